/* BATCH_MATMUL of int8 (32-bit sums, 32-bit rescale) or int16 (64-bit sums, 64-bit rescale,
 * zero points 0) as TFLite's reference BatchMatMul: out[b, i, j] = sum over k of
 * (lhs[b, i, k] - lhs zero point) * (rhs[b, k, j] - rhs zero point), lhs and rhs read
 * transposed with adj_x / adj_y, batch dimensions broadcast. */
#include "fixed_point.h"
#include "s16_accumulate.h"
#include "shape.h"
#include "utvm/kernels.h"

static bool bmm_params_valid(const utvm_batch_matmul_params_t *p) {
  bool ok = (p->rows >= 1) && (p->depth >= 1) && (p->cols >= 1) &&
            ((p->element_size == 1) || (p->element_size == 2)) && (p->multiplier >= 0) &&
            utvm_shift_valid(p->shift) && ((p->element_size == 1) || (p->shift <= 7)) &&
            ((p->adj_x == 0) || (p->adj_x == 1)) && ((p->adj_y == 0) || (p->adj_y == 1));
  int64_t lhs = (int64_t)p->rows * p->depth;
  int64_t rhs = (int64_t)p->depth * p->cols;
  int64_t out = (int64_t)p->rows * p->cols;
  for (int32_t d = 0; ok && (d < 3); ++d) {
    ok = (p->batch[d] >= 1) && ((p->lhs_batch[d] == 1) || (p->lhs_batch[d] == p->batch[d])) &&
         ((p->rhs_batch[d] == 1) || (p->rhs_batch[d] == p->batch[d]));
    lhs *= p->lhs_batch[d];
    rhs *= p->rhs_batch[d];
    out *= p->batch[d];
    ok = ok && (lhs <= INT32_MAX) && (rhs <= INT32_MAX) && (out <= INT32_MAX);
  }
  if (ok && (p->element_size == 2)) {
    ok = (p->lhs_offset == 0) && (p->rhs_offset == 0) && (p->output_offset == 0);
  } else if (ok) {
    ok = utvm_input_offset_valid(p->lhs_offset) && utvm_input_offset_valid(p->rhs_offset) &&
         utvm_zero_point_valid(p->output_offset);
  } else {
    /* invalid already */
  }
  return ok;
}

/* Element at of an int8 or int16 operand. */
static int64_t bmm_at(int32_t size, const void *data, size_t at) {
  return (size == 2) ? (int64_t)((const int16_t *)data)[at] : (int64_t)((const int8_t *)data)[at];
}

/* The start of batch b (its three indices) of an operand with batch dims dims. */
static size_t bmm_batch_start(const int32_t *dims, const int32_t *index, size_t matrix) {
  size_t start = 0u;
  for (int32_t d = 0; d < 3; ++d) {
    start = (start * (size_t)dims[d]) + ((dims[d] == 1) ? 0u : (size_t)index[d]);
  }
  return start * matrix;
}

utvm_err_t utvm_batch_matmul(const utvm_batch_matmul_params_t *params, const void *lhs,
                             const void *rhs, void *output) {
  if ((params == NULL) || (lhs == NULL) || (rhs == NULL) || (output == NULL) ||
      !bmm_params_valid(params)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const utvm_batch_matmul_params_t *p = params;
  const size_t lhs_matrix = (size_t)p->rows * (size_t)p->depth;
  const size_t rhs_matrix = (size_t)p->depth * (size_t)p->cols;
  const int32_t lo = (p->element_size == 2) ? INT16_MIN : INT8_MIN;
  const int32_t hi = (p->element_size == 2) ? INT16_MAX : INT8_MAX;
  size_t out_at = 0u;
  for (int32_t b0 = 0; b0 < p->batch[0]; ++b0) {
    for (int32_t b1 = 0; b1 < p->batch[1]; ++b1) {
      for (int32_t b2 = 0; b2 < p->batch[2]; ++b2) {
        const int32_t index[3] = {b0, b1, b2};
        const size_t l0 = bmm_batch_start(p->lhs_batch, index, lhs_matrix);
        const size_t r0 = bmm_batch_start(p->rhs_batch, index, rhs_matrix);
        for (int32_t i = 0; i < p->rows; ++i) {
          for (int32_t j = 0; j < p->cols; ++j) {
            int64_t sum = 0;
            for (int32_t k = 0; k < p->depth; ++k) {
              const size_t la = (p->adj_x != 0) ? (((size_t)k * (size_t)p->rows) + (size_t)i)
                                                : (((size_t)i * (size_t)p->depth) + (size_t)k);
              const size_t ra = (p->adj_y != 0) ? (((size_t)j * (size_t)p->depth) + (size_t)k)
                                                : (((size_t)k * (size_t)p->cols) + (size_t)j);
              sum += (bmm_at(p->element_size, lhs, l0 + la) + p->lhs_offset) *
                     (bmm_at(p->element_size, rhs, r0 + ra) + p->rhs_offset);
            }
            int32_t scaled;
            if (p->element_size == 2) {
              scaled = utvm_multiply_by_quantized_multiplier_64(sum, p->multiplier, p->shift);
            } else {
              scaled = utvm_multiply_by_quantized_multiplier((int32_t)(uint32_t)(uint64_t)sum,
                                                             p->multiplier, p->shift);
            }
            scaled = utvm_clamp_s32(utvm_wrap_add(scaled, p->output_offset), lo, hi);
            if (p->element_size == 2) {
              ((int16_t *)output)[out_at] = (int16_t)scaled;
            } else {
              ((int8_t *)output)[out_at] = (int8_t)scaled;
            }
            out_at++;
          }
        }
      }
    }
  }
  return UTVM_OK;
}

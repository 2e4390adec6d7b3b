/* GATHER of elements of 1, 2 or 4 bytes with int32 or int64 indices (TFLM's Gather): every
 * index is checked against the axis before anything is written. */
#include <string.h>

#include "shape.h"
#include "utvm/kernels.h"

/* Index i of indices (index_size 4 or 8 bytes). */
static int64_t gather_index(const uint8_t *indices, int32_t index_size, int64_t i) {
  utvm_element_t e;
  int64_t v;
  if (index_size == 8) {
    memcpy(e.bytes, &indices[(size_t)i * 8u], 8u);
    v = e.i64;
  } else {
    memcpy(e.bytes, &indices[(size_t)i * 4u], 4u);
    v = e.i32;
  }
  return v;
}

utvm_err_t utvm_gather(const utvm_gather_params_t *params, const void *input,
                       const void *indices, void *output) {
  if (params == NULL || input == NULL || indices == NULL || output == NULL ||
      (params->element_size != 1 && params->element_size != 2 && params->element_size != 4) ||
      (params->index_size != 4 && params->index_size != 8)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const utvm_gather_params_t *p = params;
  if (p->batch < 1 || p->outer < 1 || p->axis_size < 1 || p->coords < 1 || p->inner < 1) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  /* each product of two sizes is below 2^62; the tensors' element counts below 2^31 */
  const int64_t block = (int64_t)p->outer * p->inner;
  const int64_t rows = (int64_t)p->batch * p->axis_size;
  const int64_t picks = (int64_t)p->batch * p->coords;
  if (block > INT32_MAX || rows > INT32_MAX || picks > INT32_MAX || rows * block > INT32_MAX ||
      picks * block > INT32_MAX) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  const uint8_t *idx = (const uint8_t *)indices;
  const int64_t n_indices = (int64_t)p->batch * p->coords;
  for (int64_t i = 0; i < n_indices; ++i) {
    const int64_t v = gather_index(idx, p->index_size, i);
    if (v < 0 || v >= p->axis_size) {
      return UTVM_ERR_KERNEL_BAD_PARAM;
    }
  }
  const size_t run = (size_t)p->inner * (size_t)p->element_size;
  const uint8_t *in = (const uint8_t *)input;
  uint8_t *out = (uint8_t *)output;
  for (int32_t b = 0; b < p->batch; ++b) {
    for (int32_t o = 0; o < p->outer; ++o) {
      const size_t row = ((size_t)b * (size_t)p->outer + (size_t)o) * (size_t)p->axis_size;
      for (int32_t k = 0; k < p->coords; ++k) {
        const int64_t v = gather_index(idx, p->index_size, (int64_t)b * p->coords + k);
        memcpy(out, &in[(row + (size_t)v) * run], run);
        out += run;
      }
    }
  }
  return UTVM_OK;
}

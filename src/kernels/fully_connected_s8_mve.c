/*
 * FULLY_CONNECTED on MVE: utvm_fully_connected_s8_mve (see fast_s8.h, mve_s8.h).
 * utvm_fully_connected_s8 takes it on cores with the M-profile Vector Extension
 * (Cortex-M55/M85), for every call.
 * Raw int8 values are multiplied with VMLADAVA (16 products per instruction), four weight rows
 * per input load (one column per batch), and the offsets added separately:
 * sum (w + fo)(x + io) = sum w*x + io * sum w + fo * sum x + K * fo * io, all modulo 2^32 as the
 * portable int32 accumulator wraps; the terms start from the bias (io * sum w read from weights
 * laid out as UTVM_FILTER_MVE_TERMS, else summed per call).
 *
 * Stack: the terms and sums of a block of UTVM_KERNELS_MVE_CHANNEL_BLOCK channels (8 bytes per
 * channel). Frames by default (arm-none-eabi-gcc 12.2 -fstack-usage on the cortex-m55 preset's
 * flags: -Os with the kernels' -O2): utvm_fully_connected_s8_mve 640 bytes, mve_gemv 104,
 * utvm_mve_requant_run 100, utvm_mve_row_sums 24: at most 744 bytes deep.
 */
#include "fast_s8.h"

#if defined(__ARM_FEATURE_MVE)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mve_s8.h"

/* The four sums of rows r0..r3 with column over length values (wrapping), into sums[0..3]. */
static inline void mve_dot4(const int8_t *r0, const int8_t *r1, const int8_t *r2,
                            const int8_t *r3, const int8_t *column, int32_t length,
                            int32_t *sums) {
  int32_t a0 = 0;
  int32_t a1 = 0;
  int32_t a2 = 0;
  int32_t a3 = 0;
  const int8_t *p0 = r0;
  const int8_t *p1 = r1;
  const int8_t *p2 = r2;
  const int8_t *p3 = r3;
  const int8_t *c = column;
  const int32_t blocks = length / 16;
  for (int32_t b = 0; b < blocks; ++b) {
    const int8x16_t x = vldrbq_s8(c);
    a0 = vmladavaq_s8(a0, vldrbq_s8(p0), x);
    a1 = vmladavaq_s8(a1, vldrbq_s8(p1), x);
    a2 = vmladavaq_s8(a2, vldrbq_s8(p2), x);
    a3 = vmladavaq_s8(a3, vldrbq_s8(p3), x);
    c = &c[16];
    p0 = &p0[16];
    p1 = &p1[16];
    p2 = &p2[16];
    p3 = &p3[16];
  }
  const int32_t tail = length - 16 * blocks;
  if (tail > 0) {
    /* The column's zeroed lanes make the weights' extra lanes add nothing. */
    const mve_pred16_t p = vctp8q((uint32_t)tail);
    const int8x16_t x = vldrbq_z_s8(c, p);
    a0 = vmladavaq_s8(a0, vldrbq_z_s8(p0, p), x);
    a1 = vmladavaq_s8(a1, vldrbq_z_s8(p1, p), x);
    a2 = vmladavaq_s8(a2, vldrbq_z_s8(p2, p), x);
    a3 = vmladavaq_s8(a3, vldrbq_z_s8(p3, p), x);
  }
  sums[0] = a0;
  sums[1] = a1;
  sums[2] = a2;
  sums[3] = a3;
}

/* sums[i] = sum over k < length of rows[i * length + k] * column[k] for i < count (wrapping);
 * sums has count rounded up to 4 entries (the extra ones are overwritten). */
static MVE_NOINLINE void mve_gemv(const int8_t *rows, int32_t length, int32_t count,
                                  const int8_t *column, int32_t *sums) {
  const int8_t *r0 = rows;
  for (int32_t row = 0; row < count; row += 4) {
    /* Rows past count repeat the last one; their sums land in the extra entries. */
    const int8_t *r1 = ((row + 1) < count) ? &r0[length] : r0;
    const int8_t *r2 = ((row + 2) < count) ? &r1[length] : r1;
    const int8_t *r3 = ((row + 3) < count) ? &r2[length] : r2;
    mve_dot4(r0, r1, r2, r3, column, length, &sums[row]);
    r0 = &r3[length];
  }
}

void utvm_fully_connected_s8_mve(const utvm_fully_connected_params_t *params,
                                 const utvm_per_channel_quant_t *quant, int32_t batches,
                                 int32_t input_depth, int32_t output_depth, const int8_t *input,
                                 const int8_t *filter, const int32_t *bias, int8_t *output) {
  const mve_output_t o = {params->output_offset, params->act_min, params->act_max};
  const uint32_t fo = (uint32_t)params->filter_offset;
  const uint32_t k_fo_io = (uint32_t)input_depth * fo * (uint32_t)params->input_offset;
  /* Weights laid out as UTVM_FILTER_MVE_TERMS keep each row's io * sum w after their values. */
  const int32_t *laid = (params->weights_layout == (int32_t)UTVM_FILTER_MVE_TERMS)
                            ? mve_laid_terms(filter, output_depth * input_depth)
                            : NULL;
  int32_t terms[MVE_BLOCK];
  int32_t sums[MVE_BLOCK];
  for (int32_t batch = 0; batch < batches; ++batch) {
    const int8_t *x = &input[batch * input_depth];
    int32_t input_sum;
    utvm_mve_row_sums(x, input_depth, 1, &input_sum);
    const int32_t constant = (int32_t)((fo * (uint32_t)input_sum) + k_fo_io);
    for (int32_t chunk = 0; chunk < output_depth; chunk += MVE_BLOCK) {
      const int32_t count =
          ((output_depth - chunk) > MVE_BLOCK) ? MVE_BLOCK : (output_depth - chunk);
      const int8_t *rows = &filter[chunk * input_depth];
      const int32_t *chunk_bias = (bias != NULL) ? &bias[chunk] : NULL;
      if (laid != NULL) {
        mve_laid_out_terms(terms, &laid[chunk], chunk_bias, constant, count);
      } else {
        utvm_mve_row_sums(rows, input_depth, count, terms);
        mve_fold_terms(terms, chunk_bias, params->input_offset, constant, count);
      }
      mve_gemv(rows, input_depth, count, x, sums);
      utvm_mve_requant_run(sums, terms, count, chunk, quant, &o,
                      &output[batch * output_depth + chunk]);
    }
  }
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without MVE. */
typedef int utvm_kernels_no_mve_fully_connected_t;
#endif

/*
 * The MVE fast paths' out-of-line helpers (see mve_s8.h): the row sums of CONV_2D and
 * FULLY_CONNECTED (utvm_mve_row_sums) and the output step of FULLY_CONNECTED and
 * DEPTHWISE_CONV_2D (utvm_mve_requant_run); CONV_2D's four-column output step is in
 * conv2d_s8_mve.c.
 *
 * Stack (arm-none-eabi-gcc 12.2 -fstack-usage on the cortex-m55 preset's flags: -Os with the
 * kernels' -O2): utvm_mve_requant_run 100 bytes, utvm_mve_row_sums 24.
 */
#include "fast_s8.h"

#if defined(__ARM_FEATURE_MVE)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mve_s8.h"

MVE_NOINLINE void utvm_mve_row_sums(const int8_t *rows, int32_t length, int32_t count,
                                   int32_t *sums) {
  const int32_t blocks = length / 16;
  const int32_t tail = length - 16 * blocks;
  for (int32_t row = 0; row < count; ++row) {
    const int8_t *r = &rows[row * length];
    int32_t sum = 0;
    for (int32_t b = 0; b < blocks; ++b) {
      sum = vaddvaq_s8(sum, vldrbq_s8(&r[16 * b]));
    }
    if (tail > 0) {
      sum = vaddvaq_s8(sum, vldrbq_z_s8(&r[16 * blocks], vctp8q((uint32_t)tail)));
    }
    sums[row] = sum;
  }
}

/* The requantized, offset and clamped outputs of four accumulators (bias added). */
static inline int32x4_t mve_output4(int32x4_t acc, int32x4_t multiplier, int32x4_t shift,
                                    int32x4_t act_min, int32x4_t act_max, int32_t offset) {
  const int32x4_t zero = vdupq_n_s32(0);
  const int32x4_t x =
      mve_requantize(acc, multiplier, vmaxq_s32(shift, zero), vminq_s32(shift, zero));
  return vminq_s32(vmaxq_s32(vaddq_n_s32(x, offset), act_min), act_max);
}

/* out[i] for i < count from sums[i] + terms[i]: channel + i's
 * requantization, offset and clamp (utvm_mac_output_s8's order). Per-tensor parameters are
 * gathered from offset 0 in every lane, so both kinds take the same loop. */
static inline void mve_requant_inline(const int32_t *sums, const int32_t *terms, int32_t count,
                                      int32_t channel, const utvm_per_channel_quant_t *quant,
                                      const mve_output_t *o, int8_t *out) {
  const int32x4_t act_min = vdupq_n_s32(o->act_min);
  const int32x4_t act_max = vdupq_n_s32(o->act_max);
  const int32_t offset = o->output_offset;
  const uint32_t step = (quant->count == 1) ? 0u : 1u;
  const int32_t *multipliers = &quant->multiplier[(int32_t)step * channel];
  const int8_t *shifts = &quant->shift[(int32_t)step * channel];
  uint32x4_t offsets = vmulq_n_u32(vidupq_n_u32(0u, 1), step);
  const int32_t whole = count / 4;
  for (int32_t block = 0; block < whole; ++block) {
    const int32_t i = 4 * block;
    const int32x4_t acc = vaddq_s32(vldrwq_s32(&sums[i]), vldrwq_s32(&terms[i]));
    const int32x4_t multiplier = vldrwq_gather_shifted_offset_s32(multipliers, offsets);
    const int32x4_t shift = vldrbq_gather_offset_s32(shifts, offsets);
    vstrbq_s32(&out[i], mve_output4(acc, multiplier, shift, act_min, act_max, offset));
    offsets = vaddq_n_u32(offsets, 4u * step);
  }
  const int32_t i = 4 * whole;
  if (i < count) {
    const mve_pred16_t p = vctp32q((uint32_t)(count - i));
    const int32x4_t acc = vaddq_s32(vldrwq_z_s32(&sums[i], p), vldrwq_z_s32(&terms[i], p));
    const int32x4_t multiplier = vldrwq_gather_shifted_offset_z_s32(multipliers, offsets, p);
    const int32x4_t shift = vldrbq_gather_offset_z_s32(shifts, offsets, p);
    vstrbq_p_s32(&out[i], mve_output4(acc, multiplier, shift, act_min, act_max, offset), p);
  }
}

MVE_NOINLINE void utvm_mve_requant_run(const int32_t *sums, const int32_t *terms, int32_t count,
                                       int32_t channel, const utvm_per_channel_quant_t *quant,
                                       const mve_output_t *o, int8_t *out) {
  mve_requant_inline(sums, terms, count, channel, quant, o, out);
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without MVE. */
typedef int utvm_kernels_no_mve_shared_t;
#endif

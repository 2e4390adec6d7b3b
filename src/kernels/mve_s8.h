/*
 * The M-profile Vector Extension building blocks of the MVE fast paths (internal, compiled only
 * with __ARM_FEATURE_MVE: Cortex-M55/M85): int8 dot products of four weight rows with one
 * column (VMLADAVA, 16 products per instruction, wrapping modulo 2^32 like the portable
 * accumulator), row sums, and TFLite's requantization on four lanes at a time.
 *
 * Requantization is utvm_multiply_by_quantized_multiplier per lane: the left shift wraps
 * (VSHL, as utvm_wrap_shl), gemmlowp's SaturatingRoundingDoublingHighMul is VQRDMULH exactly
 * (for a negative product both give -floor((-p + 2^30 - 1) / 2^31)), and RoundingDivideByPOT
 * is gemmlowp's NEON form: x plus -1 when x < 0 and the exponent > 0 (saturating), then a
 * rounding shift right (VRSHL by minus the exponent). Loads of fewer than a full vector are
 * tail-predicated, so nothing outside the operands is read.
 */
#ifndef UTVM_KERNELS_MVE_S8_H
#define UTVM_KERNELS_MVE_S8_H

#if defined(__ARM_FEATURE_MVE)

#include <arm_mve.h>
#include <stdint.h>

#include "utvm/kernels.h"

/* Requantization parameters of four output channels (lanes). */
typedef struct {
  int32x4_t multiplier;
  int32x4_t left_shift;  /* shift when > 0, else 0 */
  int32x4_t right_shift; /* shift when < 0 (a VRSHL amount), else 0 */
} mve_quant4_t;

/* The output step's constants. */
typedef struct {
  int32_t output_offset;
  int32_t act_min;
  int32_t act_max;
} mve_output_t;

/* quant's entries for channels channel + lanes[i] (the active lanes of p; entry 0 for every
 * lane when quant is per-tensor). */
static inline mve_quant4_t mve_quant4_load(const utvm_per_channel_quant_t *quant,
                                           int32_t channel, uint32x4_t lanes, mve_pred16_t p) {
  const int32_t first = (quant->count == 1) ? 0 : channel;
  const uint32x4_t offsets = (quant->count == 1) ? vdupq_n_u32(0u) : lanes;
  const int32x4_t zero = vdupq_n_s32(0);
  const int32x4_t shift = vldrbq_gather_offset_z_s32(&quant->shift[first], offsets, p);
  mve_quant4_t q;
  q.multiplier = vldrwq_gather_shifted_offset_z_s32(&quant->multiplier[first], offsets, p);
  q.left_shift = vmaxq_s32(shift, zero);
  q.right_shift = vminq_s32(shift, zero);
  return q;
}

/* Four accumulators (bias already added) requantized, offset and clamped as
 * utvm_mac_output_s8 does, then stored as bytes at out[lanes[i]] for the active lanes of p. */
static inline void mve_requant_store(const mve_quant4_t *q, const mve_output_t *o,
                                     int32x4_t acc, int8_t *out, uint32x4_t lanes,
                                     mve_pred16_t p) {
  int32x4_t x = vshlq_s32(acc, q->left_shift);
  x = vqrdmulhq_s32(x, q->multiplier);
  x = vqaddq_s32(x, vshrq_n_s32(vandq_s32(x, q->right_shift), 31));
  x = vrshlq_s32(x, q->right_shift);
  x = vaddq_n_s32(x, o->output_offset);
  x = vmaxq_s32(x, vdupq_n_s32(o->act_min));
  x = vminq_s32(x, vdupq_n_s32(o->act_max));
  vstrbq_scatter_offset_p_s32(out, lanes, x, p);
}

/* The four int32 values a, b, c, d as lanes 0..3. */
static inline int32x4_t mve_lanes4(int32_t a, int32_t b, int32_t c, int32_t d) {
  int32x4_t v = vdupq_n_s32(a);
  v = vsetq_lane_s32(b, v, 1);
  v = vsetq_lane_s32(c, v, 2);
  v = vsetq_lane_s32(d, v, 3);
  return v;
}

/* Sums over k < length of rows[i][k] * column[k], i = 0..3, wrapping (lane i). */
static inline int32x4_t mve_dot4(const int8_t *const rows[4], const int8_t *column,
                                 int32_t length) {
  int32_t a0 = 0;
  int32_t a1 = 0;
  int32_t a2 = 0;
  int32_t a3 = 0;
  const int8_t *r0 = rows[0];
  const int8_t *r1 = rows[1];
  const int8_t *r2 = rows[2];
  const int8_t *r3 = rows[3];
  const int8_t *c = column;
  const int32_t blocks = length / 16;
  for (int32_t b = 0; b < blocks; ++b) {
    const int8x16_t x = vldrbq_s8(c);
    a0 = vmladavaq_s8(a0, vldrbq_s8(r0), x);
    a1 = vmladavaq_s8(a1, vldrbq_s8(r1), x);
    a2 = vmladavaq_s8(a2, vldrbq_s8(r2), x);
    a3 = vmladavaq_s8(a3, vldrbq_s8(r3), x);
    c = &c[16];
    r0 = &r0[16];
    r1 = &r1[16];
    r2 = &r2[16];
    r3 = &r3[16];
  }
  const int32_t tail = length - 16 * blocks;
  if (tail > 0) {
    const mve_pred16_t p = vctp8q((uint32_t)tail);
    const int8x16_t x = vldrbq_z_s8(c, p);
    a0 = vmladavaq_p_s8(a0, vldrbq_z_s8(r0, p), x, p);
    a1 = vmladavaq_p_s8(a1, vldrbq_z_s8(r1, p), x, p);
    a2 = vmladavaq_p_s8(a2, vldrbq_z_s8(r2, p), x, p);
    a3 = vmladavaq_p_s8(a3, vldrbq_z_s8(r3, p), x, p);
  }
  return mve_lanes4(a0, a1, a2, a3);
}

/* Sums of rows[i][0..length), i = 0..3 (lane i). */
static inline int32x4_t mve_sum4(const int8_t *const rows[4], int32_t length) {
  int32_t s[4] = {0, 0, 0, 0};
  for (int32_t i = 0; i < 4; ++i) {
    const int8_t *r = rows[i];
    const int32_t blocks = length / 16;
    for (int32_t b = 0; b < blocks; ++b) {
      s[i] = vaddvaq_s8(s[i], vldrbq_s8(r));
      r = &r[16];
    }
    const int32_t tail = length - 16 * blocks;
    if (tail > 0) {
      const mve_pred16_t p = vctp8q((uint32_t)tail);
      s[i] = vaddvaq_p_s8(s[i], vldrbq_z_s8(r, p), p);
    }
  }
  return mve_lanes4(s[0], s[1], s[2], s[3]);
}

#endif /* __ARM_FEATURE_MVE */

#endif /* UTVM_KERNELS_MVE_S8_H */

/*
 * What the MVE fast paths share (internal, compiled only with __ARM_FEATURE_MVE:
 * Cortex-M55/M85; conv2d_s8_mve.c, depthwise_conv2d_s8_mve.c, fully_connected_s8_mve.c and
 * add_s8_mve.c, the out-of-line helpers in mve_s8.c): the output channel block, TFLite's output
 * step on four lanes at a time, the row sums and offset terms of the dot-product paths (or
 * the terms a filter laid out as UTVM_FILTER_MVE_TERMS keeps) and a predicated copy. The sums of up to UTVM_KERNELS_MVE_CHANNEL_BLOCK output channels are
 * collected on the stack and then requantized four at a time (mve_requantize).
 *
 * Requantization is utvm_multiply_by_quantized_multiplier per lane: the left shift wraps
 * (VSHL, as utvm_wrap_shl), gemmlowp's SaturatingRoundingDoublingHighMul is VQRDMULH exactly
 * (for a negative product both give -floor((-p + 2^30 - 1) / 2^31)), and RoundingDivideByPOT
 * is gemmlowp's NEON form: x plus -1 when x < 0 and the exponent > 0 (saturating), then a
 * rounding shift right (VRSHL by minus the exponent). Lanes outside the predicate are neither
 * loaded nor stored.
 */
#ifndef UTVM_KERNELS_MVE_S8_H
#define UTVM_KERNELS_MVE_S8_H

#if defined(__ARM_FEATURE_MVE)

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/kernels.h"

/* The inner loops are functions of their own, so that their pointers and accumulators get
 * registers instead of sharing them with the callers' loop state. */
#define MVE_NOINLINE __attribute__((noinline))

#define MVE_BLOCK UTVM_KERNELS_MVE_CHANNEL_BLOCK

/* The output step's constants. */
typedef struct {
  int32_t output_offset;
  int32_t act_min;
  int32_t act_max;
} mve_output_t;

typedef char mve_block_is_a_multiple_of_16[(((MVE_BLOCK % 16) == 0) && (MVE_BLOCK > 0)) ? 1 : -1];

/* utvm_rounding_divide_by_pot on each lane of x by -right_shift (each lane's -31..0). */
static inline int32x4_t mve_rounding_divide(int32x4_t x, int32x4_t right_shift) {
  return vrshlq_s32(vqaddq_s32(x, vshrq_n_s32(vandq_s32(x, right_shift), 31)), right_shift);
}

/* utvm_multiply_by_quantized_multiplier on each lane of acc (the bias already added), with
 * left_shift = max(shift, 0) and right_shift = min(shift, 0) of each lane's shift. */
static inline int32x4_t mve_requantize(int32x4_t acc, int32x4_t multiplier, int32x4_t left_shift,
                                       int32x4_t right_shift) {
  return mve_rounding_divide(vqrdmulhq_s32(vshlq_s32(acc, left_shift), multiplier), right_shift);
}

/* terms[i] = bias[i] (0 without a bias) + scale * terms[i] + constant for i < count (wrapping). */
static inline void mve_fold_terms(int32_t *terms, const int32_t *bias, int32_t scale,
                                  int32_t constant, int32_t count) {
  for (int32_t i = 0; i < count; i += 4) {
    const mve_pred16_t p = vctp32q((uint32_t)(count - i));
    int32x4_t t = vmulq_n_s32(vldrwq_z_s32(&terms[i], p), scale);
    if (bias != NULL) {
      t = vaddq_s32(t, vldrwq_z_s32(&bias[i], p));
    }
    vstrwq_p_s32(&terms[i], vaddq_n_s32(t, constant), p);
  }
}

/* The terms of a filter laid out as UTVM_FILTER_MVE_TERMS (word-aligned): one int32 per
 * channel after its values values, which are padded to a word. */
static inline const int32_t *mve_laid_terms(const int8_t *filter, int32_t values) {
  const void *terms = &filter[(values + 3) & ~3];
  return (const int32_t *)terms;
}

/* terms[i] = laid[i] + bias[i] (0 without a bias) + constant for i < count (wrapping): the
 * accumulators' start from the terms a laid-out filter keeps. */
static inline void mve_laid_out_terms(int32_t *terms, const int32_t *laid, const int32_t *bias,
                                      int32_t constant, int32_t count) {
  for (int32_t i = 0; i < count; i += 4) {
    const mve_pred16_t p = vctp32q((uint32_t)(count - i));
    int32x4_t t = vldrwq_z_s32(&laid[i], p);
    if (bias != NULL) {
      t = vaddq_s32(t, vldrwq_z_s32(&bias[i], p));
    }
    vstrwq_p_s32(&terms[i], vaddq_n_s32(t, constant), p);
  }
}

/* n bytes from src to dst (src NULL: n bytes of pad), 16 at a time, the rest predicated. */
static inline void mve_run(int8_t *dst, const int8_t *src, int8x16_t pad, int32_t n) {
  const int32_t whole = n / 16;
  const int32_t rest = n - 16 * whole;
  int8_t *d = dst;
  if (src == NULL) {
    for (int32_t b = 0; b < whole; ++b) {
      vstrbq_s8(d, pad);
      d = &d[16];
    }
    if (rest > 0) {
      vstrbq_p_s8(d, pad, vctp8q((uint32_t)rest));
    }
  } else {
    const int8_t *s = src;
    for (int32_t b = 0; b < whole; ++b) {
      vstrbq_s8(d, vldrbq_s8(s));
      d = &d[16];
      s = &s[16];
    }
    if (rest > 0) {
      const mve_pred16_t p = vctp8q((uint32_t)rest);
      vstrbq_p_s8(d, vldrbq_z_s8(s, p), p);
    }
  }
}

/* sums[i] = sum of rows[i * length .. i * length + length) for i < count (wrapping). */
void utvm_mve_row_sums(const int8_t *rows, int32_t length, int32_t count, int32_t *sums);

/* out[i] for i < count from sums[i] + terms[i]: channel + i's requantization, offset and clamp
 * (utvm_mac_output_s8's order), four lanes at a time. */
void utvm_mve_requant_run(const int32_t *sums, const int32_t *terms, int32_t count,
                          int32_t channel, const utvm_per_channel_quant_t *quant,
                          const mve_output_t *o, int8_t *out);

#endif /* __ARM_FEATURE_MVE */

#endif /* UTVM_KERNELS_MVE_S8_H */

/*
 * The requantization of the MVE fast paths (internal, compiled only with __ARM_FEATURE_MVE:
 * Cortex-M55/M85): TFLite's output step on four lanes at a time.
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
#include <stdint.h>


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

#endif /* __ARM_FEATURE_MVE */

#endif /* UTVM_KERNELS_MVE_S8_H */

/*
 * The accumulator of the int16x8 layers (internal): TFLite sums in 64 bits and rescales with
 * the 64-bit multiply, or, with an int32 bias (quantized_bias_type INT32), sums in 32 bits
 * (wrapping) and rescales with the 32-bit multiply. The kernels sum in 64 bits either way; the
 * 32-bit path then wraps, which equals wrapping at every step.
 */
#ifndef UTVM_KERNELS_S16_ACCUMULATE_H
#define UTVM_KERNELS_S16_ACCUMULATE_H

#include <stdbool.h>
#include <stdint.h>

#include "fixed_point.h"
#include "utvm/kernels.h"

/* True for a known accumulator with shifts the 64-bit multiply takes (-31..7). */
static inline bool utvm_s16_quant_valid(utvm_accumulator_t acc,
                                        const utvm_per_channel_quant_t *quant) {
  bool ok = (acc == UTVM_ACCUMULATE_64) || (acc == UTVM_ACCUMULATE_32);
  for (int32_t i = 0; ok && (i < quant->count); ++i) {
    ok = (quant->multiplier[i] >= 0) &&
         ((acc == UTVM_ACCUMULATE_32) || (quant->shift[i] <= 7));
  }
  return ok;
}

/* Bias entry i (bias NULL: 0), as the accumulator holds it. */
static inline int64_t utvm_s16_bias(utvm_accumulator_t acc, const void *bias, int32_t i) {
  int64_t b = 0;
  if (bias != NULL) {
    b = (acc == UTVM_ACCUMULATE_32) ? (int64_t)((const int32_t *)bias)[i]
                                    : ((const int64_t *)bias)[i];
  }
  return b;
}

/* The sum rescaled and clamped to [act_min, act_max]. */
static inline int16_t utvm_s16_output(utvm_accumulator_t acc, int64_t sum, int32_t multiplier,
                                      int32_t shift, int32_t act_min, int32_t act_max) {
  int32_t scaled;
  if (acc == UTVM_ACCUMULATE_32) {
    const int32_t wrapped = (int32_t)(uint32_t)(uint64_t)sum;
    scaled = utvm_multiply_by_quantized_multiplier(wrapped, multiplier, shift);
  } else {
    scaled = utvm_multiply_by_quantized_multiplier_64(sum, multiplier, shift);
  }
  return (int16_t)utvm_clamp_s32(scaled, act_min, act_max);
}

/* True if the activation range is a non-empty part of int16. */
static inline bool utvm_act_range_s16_valid(int32_t act_min, int32_t act_max) {
  return (act_min >= INT16_MIN) && (act_max <= INT16_MAX) && (act_min <= act_max);
}

#endif /* UTVM_KERNELS_S16_ACCUMULATE_H */

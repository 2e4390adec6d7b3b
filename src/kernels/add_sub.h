/*
 * The element of TFLite's quantized ADD and SUB (internal): both inputs scaled to a common
 * 2^left_shift-larger scale, summed or subtracted, rescaled to the output (AddFunc,
 * SubElementwise). Inputs are int8 or int16 values.
 */
#ifndef UTVM_KERNELS_ADD_SUB_H
#define UTVM_KERNELS_ADD_SUB_H

#include <stdbool.h>
#include <stdint.h>

#include "fixed_point.h"
#include "utvm/kernels.h"

/* The output of x1 + x2 (x1 - x2 when subtract), clamped to the activation range. */
static inline int32_t utvm_add_sub_element(const utvm_add_params_t *params, int32_t x1,
                                           int32_t x2, bool subtract) {
  const int32_t scale = (int32_t)1 << params->left_shift;
  const int32_t shifted1 = (x1 + params->input1_offset) * scale;
  const int32_t shifted2 = (x2 + params->input2_offset) * scale;
  const int32_t scaled1 = utvm_rounding_divide_by_pot(
      utvm_sat_round_doubling_high_mul(shifted1, params->input1_multiplier),
      -params->input1_shift);
  const int32_t scaled2 = utvm_rounding_divide_by_pot(
      utvm_sat_round_doubling_high_mul(shifted2, params->input2_multiplier),
      -params->input2_shift);
  const int32_t raw = subtract ? utvm_wrap_sub(scaled1, scaled2) : utvm_wrap_add(scaled1, scaled2);
  const int32_t output = utvm_rounding_divide_by_pot(
      utvm_sat_round_doubling_high_mul(raw, params->output_multiplier), -params->output_shift);
  return utvm_clamp_s32(utvm_wrap_add(output, params->output_offset), params->act_min,
                        params->act_max);
}

#endif /* UTVM_KERNELS_ADD_SUB_H */

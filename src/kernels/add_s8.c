/* ADD, int8, with broadcasting (TFLite's reference_integer_ops::Add and BroadcastAdd4DSlow:
 * both inputs scaled to a common 2^left_shift-larger scale, summed, rescaled to the output). */
#include "add_sub.h"
#include "fast_s8.h"
#include "fixed_point.h"
#include "requant_s8.h"
#include "shape.h"
#include "utvm/kernels.h"

static bool add_params_valid(const utvm_add_params_t *params) {
  return utvm_input_offset_valid(params->input1_offset) &&
         utvm_input_offset_valid(params->input2_offset) &&
         utvm_zero_point_valid(params->output_offset) && params->left_shift >= 0 &&
         params->left_shift <= 23 && params->input1_shift >= -31 && params->input1_shift <= 0 &&
         params->input2_shift >= -31 && params->input2_shift <= 0 &&
         params->output_shift >= -31 && params->output_shift <= 0 &&
         utvm_act_range_valid(params->act_min, params->act_max);
}

/* One output element (TFLite's AddFunc). */
static int8_t add_element(const utvm_add_params_t *params, int8_t x1, int8_t x2) {
  return (int8_t)utvm_add_sub_element(params, x1, x2, false);
}

#if !defined(__ARM_FEATURE_MVE)
/* (Cores with MVE run utvm_add_s8_mve for inputs of one shape instead.) */
/* The same-shape loop with the input scales' kinds known: right shifts of 0 take the short
 * form (one of the inputs usually has one: TFLite scales the larger input by 1/2 exactly). */
static inline void add_same_shape_as(const utvm_add_params_t *params, const int8_t *input1,
                                     const int8_t *input2, int32_t count, int8_t *output,
                                     const utvm_requant_scale_t *scale1, bool right1_is_zero,
                                     const utvm_requant_scale_t *scale2, bool right2_is_zero,
                                     const utvm_requant_scale_t *scale_out) {
  const int32_t offset1 = params->input1_offset;
  const int32_t offset2 = params->input2_offset;
  const int32_t left = params->left_shift;
  const int32_t output_offset = params->output_offset;
  const int32_t act_min = params->act_min;
  const int32_t act_max = params->act_max;
  for (int32_t i = 0; i < count; ++i) {
    /* (x + offset) * 2^left: |x + offset| <= 255, left <= 23, no overflow. */
    const int32_t shifted1 = ((int32_t)input1[i] + offset1) * ((int32_t)1 << left);
    const int32_t shifted2 = ((int32_t)input2[i] + offset2) * ((int32_t)1 << left);
    const int32_t sum = utvm_wrap_add(utvm_requant_scale_known(shifted1, scale1, right1_is_zero),
                                      utvm_requant_scale_known(shifted2, scale2, right2_is_zero));
    const int32_t value = utvm_wrap_add(utvm_requant_scale(sum, scale_out), output_offset);
    output[i] = (int8_t)utvm_clamp_s32(value, act_min, act_max);
  }
}

/* Inputs of the output's shape, element by element, each scaling in one 64-bit
 * multiply-accumulate (requant_s8.h); false (nothing written) if a multiplier is negative, which
 * only the reference form takes. */
static bool add_same_shape(const utvm_add_params_t *params, const int8_t *input1,
                           const int8_t *input2, int32_t count, int8_t *output) {
  utvm_requant_scale_t scale1;
  utvm_requant_scale_t scale2;
  utvm_requant_scale_t scale_out;
  if (!utvm_requant_scale_init(&scale1, params->input1_multiplier, -params->input1_shift) ||
      !utvm_requant_scale_init(&scale2, params->input2_multiplier, -params->input2_shift) ||
      !utvm_requant_scale_init(&scale_out, params->output_multiplier, -params->output_shift)) {
    return false;
  }
  const bool zero1 = scale1.right == 0;
  const bool zero2 = scale2.right == 0;
  if (zero1 == zero2) {
    add_same_shape_as(params, input1, input2, count, output, &scale1, zero1, &scale2, zero2,
                      &scale_out);
  } else if (zero2) {
    add_same_shape_as(params, input1, input2, count, output, &scale1, false, &scale2, true,
                      &scale_out);
  } else {
    add_same_shape_as(params, input1, input2, count, output, &scale1, true, &scale2, false,
                      &scale_out);
  }
  return true;
}
#endif

void utvm_add_s8_portable(const utvm_add_params_t *params, int32_t count, const int8_t *input1,
                          const int8_t *input2, int8_t *output) {
  for (int32_t i = 0; i < count; ++i) {
    output[i] = add_element(params, input1[i], input2[i]);
  }
}

utvm_err_t utvm_add_s8(const utvm_add_params_t *params, const utvm_shape_t *input1_shape,
                       const int8_t *input1, const utvm_shape_t *input2_shape,
                       const int8_t *input2, const utvm_shape_t *output_shape, int8_t *output) {
  if (params == NULL || input1 == NULL || input2 == NULL || output == NULL ||
      !add_params_valid(params)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  utvm_broadcast_t broadcast;
  if (!utvm_broadcast_init(&broadcast, input1_shape, input2_shape, output_shape)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  const bool same_shape = (utvm_shape_count(input1_shape) == broadcast.count) &&
                          (utvm_shape_count(input2_shape) == broadcast.count);
#if defined(__ARM_FEATURE_MVE)
  if (same_shape) {
    utvm_add_s8_mve(params, broadcast.count, input1, input2, output);
    return UTVM_OK;
  }
#else
  if (same_shape && add_same_shape(params, input1, input2, broadcast.count, output)) {
    return UTVM_OK;
  }
#endif
  int32_t index[UTVM_KERNEL_MAX_RANK] = {0};
  int32_t offset1 = 0;
  int32_t offset2 = 0;
  for (int32_t i = 0; i < broadcast.count; ++i) {
    output[i] = add_element(params, input1[offset1], input2[offset2]);
    utvm_broadcast_next(&broadcast, index, &offset1, &offset2);
  }
  return UTVM_OK;
}

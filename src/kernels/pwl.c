/* The piecewise-linear element-wise map of TFLite's quantized RELU, RELU6, RELU_N1_TO_1,
 * LEAKY_RELU and ABS (ReluQuantized, QuantizeLeakyRelu, AbsEvalQuantized): int16 directly, int8
 * as the 256-entry table of the same arithmetic. */
#include "fixed_point.h"
#include "shape.h"
#include "utvm/kernels.h"

static bool pwl_params_valid(const utvm_pwl_params_t *params, int32_t lo, int32_t hi) {
  return params->input_zero_point >= lo && params->input_zero_point <= hi &&
         params->output_zero_point >= lo && params->output_zero_point <= hi &&
         params->positive_multiplier >= 0 && utvm_shift_valid(params->positive_shift) &&
         params->negative_multiplier >= 0 && utvm_shift_valid(params->negative_shift) &&
         params->negative_mode >= UTVM_PWL_SCALE && params->negative_mode <= UTVM_PWL_NEGATE &&
         params->act_min >= lo && params->act_max <= hi && params->act_min <= params->act_max;
}

/* One output of input x (|x - zero point| < 2^16, so no step overflows but the rescale, which
 * wraps as TFLite's does on two's-complement hardware). */
static int32_t pwl_element(const utvm_pwl_params_t *params, int32_t x) {
  const int32_t v = x - params->input_zero_point;
  int32_t y;
  if (v >= 0) {
    y = utvm_multiply_by_quantized_multiplier(v, params->positive_multiplier,
                                              params->positive_shift);
  } else if (params->negative_mode == UTVM_PWL_ABS) {
    y = utvm_multiply_by_quantized_multiplier(-v, params->negative_multiplier,
                                              params->negative_shift);
  } else {
    y = utvm_multiply_by_quantized_multiplier(v, params->negative_multiplier,
                                              params->negative_shift);
    y = params->negative_mode == UTVM_PWL_NEGATE ? utvm_wrap_sub(0, y) : y;
  }
  return utvm_clamp_s32(utvm_wrap_add(y, params->output_zero_point), params->act_min,
                        params->act_max);
}

utvm_err_t utvm_pwl_s16(const utvm_pwl_params_t *params, int32_t size, const int16_t *input,
                        int16_t *output) {
  if (params == NULL || input == NULL || output == NULL ||
      !pwl_params_valid(params, INT16_MIN, INT16_MAX)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (size < 0) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  for (int32_t i = 0; i < size; ++i) {
    output[i] = (int16_t)pwl_element(params, input[i]);
  }
  return UTVM_OK;
}

utvm_err_t utvm_pwl_table_s8(const utvm_pwl_params_t *params, int8_t *table) {
  if (params == NULL || table == NULL || !pwl_params_valid(params, INT8_MIN, INT8_MAX)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  for (int32_t i = 0; i < 256; ++i) {
    table[i] = (int8_t)pwl_element(params, i + INT8_MIN);
  }
  return UTVM_OK;
}

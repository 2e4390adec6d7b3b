/* LOGISTIC, int8 (TFLite's reference_integer_ops::Logistic: Q4 input, gemmlowp's logistic). */
#include "fixed_point.h"
#include "q4_activation.h"
#include "utvm/kernels.h"

utvm_err_t utvm_logistic_s8(const utvm_logistic_params_t *params, int32_t size,
                            const int8_t *input, int8_t *output) {
  if (input == NULL || output == NULL || !utvm_q4_activation_params_valid(params)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (size < 0) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  for (int32_t i = 0; i < size; ++i) {
    const int32_t x = (int32_t)input[i] - params->input_zero_point;
    if (x <= -params->input_range_radius) {
      output[i] = INT8_MIN;
    } else if (x >= params->input_range_radius) {
      output[i] = INT8_MAX;
    } else {
      const int32_t x_q4 = utvm_multiply_by_quantized_multiplier(x, params->input_multiplier,
                                                                 params->input_left_shift);
      const int32_t y = utvm_rounding_divide_by_pot(utvm_logistic_q4(x_q4), 31 - 8);
      output[i] = (int8_t)utvm_clamp_s32(y + INT8_MIN, INT8_MIN, INT8_MAX);
    }
  }
  return UTVM_OK;
}

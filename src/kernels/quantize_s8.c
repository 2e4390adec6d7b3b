/* QUANTIZE float32 -> int8 or int16 (TFLite's reference_ops::AffineQuantize) and int8 -> int8
 * (reference_ops::Requantize). */
#include <math.h>

#include "fixed_point.h"
#include "shape.h"
#include "utvm/kernels.h"

/* round(x / scale) in float, ties away from zero, then to int32. Beyond int32 TFLite's
 * conversion is undefined: here +overflow saturates and -overflow and NaN give INT32_MIN (what
 * x86 and TFLite on it produce for both). */
static int32_t quantize_round(float x, float scale) {
  const float rounded = roundf(x / scale);
  int32_t q;
  if (rounded >= 2147483648.0f) {
    q = INT32_MAX;
  } else if (rounded >= -2147483648.0f) {
    q = (int32_t)rounded;
  } else {
    q = INT32_MIN;
  }
  return q;
}

utvm_err_t utvm_quantize_f32_s8(float scale, int32_t zero_point, int32_t size, const float *input,
                                int8_t *output) {
  if (input == NULL || output == NULL || !(scale > 0.0f) || !utvm_zero_point_valid(zero_point)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (size < 0) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  for (int32_t i = 0; i < size; ++i) {
    const int32_t q = quantize_round(input[i], scale);
    output[i] = (int8_t)utvm_clamp_s32(utvm_wrap_add(q, zero_point), INT8_MIN, INT8_MAX);
  }
  return UTVM_OK;
}

utvm_err_t utvm_quantize_f32_s16(float scale, int32_t zero_point, int32_t size,
                                 const float *input, int16_t *output) {
  if (input == NULL || output == NULL || !(scale > 0.0f) || zero_point < INT16_MIN ||
      zero_point > INT16_MAX) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (size < 0) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  for (int32_t i = 0; i < size; ++i) {
    const int32_t q = quantize_round(input[i], scale);
    output[i] = (int16_t)utvm_clamp_s32(utvm_wrap_add(q, zero_point), INT16_MIN, INT16_MAX);
  }
  return UTVM_OK;
}

utvm_err_t utvm_requantize_s8(const utvm_requantize_params_t *params, int32_t size,
                              const int8_t *input, int8_t *output) {
  if (params == NULL || input == NULL || output == NULL ||
      !utvm_zero_point_valid(params->input_zero_point) ||
      !utvm_zero_point_valid(params->output_zero_point) || !utvm_shift_valid(params->shift)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (size < 0) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  for (int32_t i = 0; i < size; ++i) {
    const int32_t scaled = utvm_multiply_by_quantized_multiplier(
        (int32_t)input[i] - params->input_zero_point, params->multiplier, params->shift);
    output[i] = (int8_t)utvm_clamp_s32(utvm_wrap_add(scaled, params->output_zero_point),
                                       INT8_MIN, INT8_MAX);
  }
  return UTVM_OK;
}

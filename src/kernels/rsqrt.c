/* RSQRT on int8 (TFLM's elementwise.cc RsqrtEvalQuantized): 1/sqrt(x - zp) through TFLite's
 * inverse square root multiplier, rescaled by 1/(sqrt(input scale) * output scale); a function
 * of the input byte, tabled at prepare. Inputs below the zero point are an error, as in TFLM. */
#include <math.h>

#include "fixed_point.h"
#include "utvm/kernels.h"

/* TFLM's shift that keeps the inverse square root an integer. */
#define RSQRT_SHIFT 20

utvm_err_t utvm_rsqrt_params_s8(float input_scale, int32_t input_zero_point, float output_scale,
                                int32_t output_zero_point, utvm_rsqrt_params_t *params) {
  if ((params == NULL) || !(input_scale > 0.0f) || !(output_scale > 0.0f) ||
      (input_zero_point < INT8_MIN) || (input_zero_point > INT8_MAX) ||
      (output_zero_point < INT8_MIN) || (output_zero_point > INT8_MAX)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const float denominator = sqrtf(input_scale) * output_scale;
  utvm_err_t err =
      utvm_quantize_multiplier(1.0 / (double)denominator, &params->multiplier, &params->shift);
  if ((err == UTVM_OK) &&
      ((params->shift - RSQRT_SHIFT < -31) || (params->shift - RSQRT_SHIFT > 31))) {
    err = UTVM_ERR_KERNEL_UNSUPPORTED;
  }
  params->input_zero_point = input_zero_point;
  params->output_zero_point = output_zero_point;
  return err;
}

utvm_err_t utvm_rsqrt_table_s8(const utvm_rsqrt_params_t *params, int8_t *table) {
  if ((params == NULL) || (table == NULL) || (params->input_zero_point < INT8_MIN) ||
      (params->input_zero_point > INT8_MAX) || (params->output_zero_point < INT8_MIN) ||
      (params->output_zero_point > INT8_MAX) || (params->multiplier < 0) ||
      (params->shift - RSQRT_SHIFT < -31) || (params->shift - RSQRT_SHIFT > 31)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  for (int32_t i = 0; i < 256; ++i) {
    const int32_t value = i + INT8_MIN - params->input_zero_point;
    int32_t out = 0; /* below the zero point: never read (utvm_rsqrt_s8 refuses it) */
    if (value == 0) {
      out = INT8_MAX;
    } else if (value > 0) {
      int32_t inv_multiplier = 0;
      int32_t inv_shift = 0;
      utvm_inv_sqrt_multiplier(value, &inv_multiplier, &inv_shift);
      const int32_t data =
          utvm_multiply_by_quantized_multiplier(1, inv_multiplier, inv_shift + RSQRT_SHIFT);
      out = utvm_clamp_s32(
          utvm_wrap_add(utvm_multiply_by_quantized_multiplier(data, params->multiplier,
                                                              params->shift - RSQRT_SHIFT),
                        params->output_zero_point),
          INT8_MIN, INT8_MAX);
    } else {
      /* out stays 0 */
    }
    table[i] = (int8_t)out;
  }
  return UTVM_OK;
}

utvm_err_t utvm_rsqrt_s8(const int8_t *table, int32_t input_zero_point, int32_t size,
                         const int8_t *input, int8_t *output) {
  if ((table == NULL) || (input == NULL) || (output == NULL) || (input_zero_point < INT8_MIN) ||
      (input_zero_point > INT8_MAX)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (size < 0) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  for (int32_t i = 0; i < size; ++i) {
    if ((int32_t)input[i] < input_zero_point) {
      return UTVM_ERR_KERNEL_UNSUPPORTED;
    }
    output[i] = table[(int32_t)input[i] - INT8_MIN];
  }
  return UTVM_OK;
}

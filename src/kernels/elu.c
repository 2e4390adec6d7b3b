/* ELU on int8 (TFLM's elu.cc): the 256-entry table TFLM builds in float at prepare,
 * x < 0 ? exp(x) - 1 : x for each dequantized input, rounded to the output's steps. */
#include <math.h>

#include "utvm/kernels.h"

utvm_err_t utvm_elu_table_s8(float input_scale, int32_t input_zero_point, float output_scale,
                             int32_t output_zero_point, int8_t *table) {
  if ((table == NULL) || !(input_scale > 0.0f) || !(output_scale > 0.0f) ||
      !(input_scale <= 3.4028235e38f) || (input_zero_point < INT8_MIN) ||
      (input_zero_point > INT8_MAX) || (output_zero_point < INT8_MIN) ||
      (output_zero_point > INT8_MAX)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const float inverse_scale = 1.0f / output_scale;
  utvm_err_t err = UTVM_OK;
  for (int32_t i = 0; i < 256; ++i) {
    const float dequantized = input_scale * (float)(i + INT8_MIN - input_zero_point);
    const float transformed = (dequantized < 0.0f) ? (expf(dequantized) - 1.0f) : dequantized;
    const float shifted = roundf(transformed * inverse_scale) + (float)output_zero_point;
    /* TFLM converts to int32 before clamping: a value beyond int32 is undefined there. */
    if (!(shifted >= -2147483648.0f) || !(shifted < 2147483648.0f)) {
      err = UTVM_ERR_KERNEL_UNSUPPORTED;
      table[i] = 0;
    } else {
      int32_t quantized = (int32_t)shifted;
      quantized = (quantized > INT8_MAX) ? INT8_MAX : quantized;
      quantized = (quantized < INT8_MIN) ? INT8_MIN : quantized;
      table[i] = (int8_t)quantized;
    }
  }
  return err;
}

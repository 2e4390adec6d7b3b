/* DEQUANTIZE int8 or int16 -> float32 (TFLite's reference_ops::Dequantize). */
#include "shape.h"
#include "utvm/kernels.h"

utvm_err_t utvm_dequantize_s8_f32(float scale, int32_t zero_point, int32_t size,
                                  const int8_t *input, float *output) {
  if (input == NULL || output == NULL || !utvm_zero_point_valid(zero_point)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (size < 0) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  for (int32_t i = 0; i < size; ++i) {
    /* TFLite multiplies in double and rounds to float; the double product of a float and a
     * 9-bit integer is exact, so one float multiplication rounds to the same value. */
    const float centered = (float)((int32_t)input[i] - zero_point);
    output[i] = scale * centered;
  }
  return UTVM_OK;
}

utvm_err_t utvm_dequantize_s16_f32(float scale, int32_t zero_point, int32_t size,
                                   const int16_t *input, float *output) {
  if (input == NULL || output == NULL || zero_point < INT16_MIN || zero_point > INT16_MAX) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (size < 0) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  for (int32_t i = 0; i < size; ++i) {
    /* As int8: a 17-bit difference times a float is exact in double. */
    const float centered = (float)((int32_t)input[i] - zero_point);
    output[i] = scale * centered;
  }
  return UTVM_OK;
}

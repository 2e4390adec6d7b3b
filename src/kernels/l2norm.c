/* L2_NORMALIZATION on int8 over the last dimension (TFLite's reference integer
 * L2Normalization): each value over the row's inverse square root norm, output in 1/128 steps
 * (scale 1/128, zero point 0, as TFLite assumes). */
#include "fixed_point.h"
#include "utvm/kernels.h"

utvm_err_t utvm_l2_normalization_s8(int32_t input_zero_point, int32_t rows, int32_t depth,
                                    const int8_t *input, int8_t *output) {
  if ((input == NULL) || (output == NULL) || (input_zero_point < INT8_MIN) ||
      (input_zero_point > INT8_MAX)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if ((rows < 0) || (depth < 1) || (depth > UTVM_L2_NORMALIZATION_MAX_DEPTH) ||
      ((rows > 0) && (depth > (INT32_MAX / rows)))) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  for (int32_t row = 0; row < rows; ++row) {
    const int8_t *in = &input[row * depth];
    int8_t *out = &output[row * depth];
    int32_t sum_of_squares = 0;
    for (int32_t i = 0; i < depth; ++i) {
      const int32_t v = (int32_t)in[i] - input_zero_point;
      sum_of_squares += v * v;
    }
    int32_t multiplier = 0;
    int32_t shift = 0;
    utvm_inv_sqrt_multiplier(sum_of_squares, &multiplier, &shift);
    for (int32_t i = 0; i < depth; ++i) {
      const int32_t v = (int32_t)in[i] - input_zero_point;
      out[i] = (int8_t)utvm_clamp_s32(utvm_multiply_by_quantized_multiplier(v, multiplier, shift + 7),
                                      INT8_MIN, INT8_MAX);
    }
  }
  return UTVM_OK;
}

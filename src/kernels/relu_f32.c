/* RELU, float32 (TFLM's ReluFloat: x < 0 ? 0 : x). */
#include "f32.h"
#include "utvm/kernels.h"

utvm_err_t utvm_relu_f32(int32_t count, const float *input, float *output) {
  const utvm_err_t err = utvm_unary_f32_check(count, input, output);
  if (err == UTVM_OK) {
    for (int32_t i = 0; i < count; ++i) {
      const float value = input[i];
      output[i] = (value < 0.0f) ? 0.0f : value;
    }
  }
  return err;
}

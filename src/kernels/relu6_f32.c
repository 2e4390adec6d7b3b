/* RELU6, float32 (TFLM's Relu6Float: x > 6 ? 6 : (x < 0 ? 0 : x)). */
#include "f32.h"
#include "utvm/kernels.h"

#if UTVM_HAVE_F32 /* else f32_absent.c: utvm/kernels.h */

utvm_err_t utvm_relu6_f32(int32_t count, const float *input, float *output) {
  const utvm_err_t err = utvm_unary_f32_check(count, input, output);
  if (err == UTVM_OK) {
    for (int32_t i = 0; i < count; ++i) {
      const float value = input[i];
      const float low = (value < 0.0f) ? 0.0f : value;
      output[i] = (value > 6.0f) ? 6.0f : low;
    }
  }
  return err;
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without
 * UTVM_HAVE_F32. */
typedef int utvm_kernels_no_relu6_f32_t;
#endif

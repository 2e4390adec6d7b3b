/* SOFTMAX, float32 (TFLite's reference_ops::Softmax for float: the row's maximum subtracted,
 * times beta, expf, each divided by the row's sum of exponentials summed in order). */
#include <float.h>
#include <math.h>

#include "f32.h"
#include "utvm/kernels.h"

#if UTVM_HAVE_F32 /* else f32_absent.c: utvm/kernels.h */

utvm_err_t utvm_softmax_f32(float beta, int32_t rows, int32_t depth, const float *input,
                            float *output) {
  if ((input == NULL) || (output == NULL) || !(fabsf(beta) <= FLT_MAX)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if ((rows < 1) || (depth < 1) || ((int64_t)rows * depth > INT32_MAX)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  for (int32_t row = 0; row < rows; ++row) {
    const float *in = &input[row * depth];
    float *out = &output[row * depth];
    float max = -FLT_MAX;
    for (int32_t c = 0; c < depth; ++c) {
      max = (max < in[c]) ? in[c] : max;
    }
    float sum = 0.0f;
    for (int32_t c = 0; c < depth; ++c) {
      const float exp_c = expf((in[c] - max) * beta);
      out[c] = exp_c;
      sum += exp_c;
    }
    for (int32_t c = 0; c < depth; ++c) {
      out[c] = out[c] / sum;
    }
  }
  return UTVM_OK;
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without
 * UTVM_HAVE_F32. */
typedef int utvm_kernels_no_softmax_f32_t;
#endif

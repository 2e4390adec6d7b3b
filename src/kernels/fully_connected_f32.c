/* FULLY_CONNECTED, float32 (TFLite's reference_ops::FullyConnected for float). */
#include "f32.h"
#include "utvm/kernels.h"

#if UTVM_HAVE_F32 /* else f32_absent.c: utvm/kernels.h */

utvm_err_t utvm_fully_connected_f32(const utvm_activation_f32_t *params, int32_t batches,
                                    int32_t input_depth, int32_t output_depth,
                                    const float *input, const float *weights, const float *bias,
                                    float *output) {
  if ((params == NULL) || (input == NULL) || (weights == NULL) || (output == NULL) ||
      !utvm_act_range_f32_valid(params->act_min, params->act_max)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if ((batches < 1) || (input_depth < 1) || (output_depth < 1) ||
      ((int64_t)batches * input_depth > INT32_MAX) ||
      ((int64_t)output_depth * input_depth > INT32_MAX) ||
      ((int64_t)batches * output_depth > INT32_MAX)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  for (int32_t b = 0; b < batches; ++b) {
    const float *row_input = &input[b * input_depth];
    for (int32_t o = 0; o < output_depth; ++o) {
      const float *row_weights = &weights[o * input_depth];
      float total = 0.0f;
      for (int32_t d = 0; d < input_depth; ++d) {
        total += row_input[d] * row_weights[d];
      }
      const float bias_value = (bias != NULL) ? bias[o] : 0.0f;
      output[(b * output_depth) + o] =
          utvm_clamp_f32(total + bias_value, params->act_min, params->act_max);
    }
  }
  return UTVM_OK;
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without
 * UTVM_HAVE_F32. */
typedef int utvm_kernels_no_fully_connected_f32_t;
#endif

/* DEPTHWISE_CONV_2D, float32 (TFLite's reference_ops::DepthwiseConv for float). */
#include "f32.h"
#include "shape.h"
#include "utvm/kernels.h"

#if UTVM_HAVE_F32 /* else f32_absent.c: utvm/kernels.h */

utvm_err_t utvm_depthwise_conv2d_f32(const utvm_depthwise_conv2d_f32_params_t *params,
                                     const utvm_dims_t *input_dims, const float *input,
                                     const utvm_dims_t *filter_dims, const float *filter,
                                     const float *bias, const utvm_dims_t *output_dims,
                                     float *output) {
  if ((params == NULL) || (input == NULL) || (filter == NULL) || (output == NULL) ||
      (params->depth_multiplier < 1) ||
      !utvm_act_range_f32_valid(params->act_min, params->act_max)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!utvm_dims_valid(input_dims) || !utvm_dims_valid(filter_dims) ||
      !utvm_dims_valid(output_dims) || (filter_dims->n != 1) ||
      (output_dims->n != input_dims->n) || (filter_dims->c != output_dims->c) ||
      ((int64_t)input_dims->c * params->depth_multiplier != (int64_t)output_dims->c)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  if (!utvm_window_valid(output_dims->h, params->stride_h, filter_dims->h, params->dilation_h,
                         params->pad_top) ||
      !utvm_window_valid(output_dims->w, params->stride_w, filter_dims->w, params->dilation_w,
                         params->pad_left)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const int32_t in_h = input_dims->h;
  const int32_t in_w = input_dims->w;
  const int32_t in_c = input_dims->c;
  const int32_t out_c = output_dims->c;
  const int32_t multiplier = params->depth_multiplier;
  float *out = output;
  for (int32_t batch = 0; batch < output_dims->n; ++batch) {
    const float *batch_input = &input[batch * in_h * in_w * in_c];
    for (int32_t out_y = 0; out_y < output_dims->h; ++out_y) {
      const int32_t in_y_origin = (out_y * params->stride_h) - params->pad_top;
      for (int32_t out_x = 0; out_x < output_dims->w; ++out_x) {
        const int32_t in_x_origin = (out_x * params->stride_w) - params->pad_left;
        for (int32_t channel = 0; channel < out_c; ++channel) {
          const int32_t in_channel = channel / multiplier;
          float total = 0.0f;
          for (int32_t ky = 0; ky < filter_dims->h; ++ky) {
            const int32_t in_y = in_y_origin + (ky * params->dilation_h);
            for (int32_t kx = 0; kx < filter_dims->w; ++kx) {
              const int32_t in_x = in_x_origin + (kx * params->dilation_w);
              if ((in_y >= 0) && (in_y < in_h) && (in_x >= 0) && (in_x < in_w)) {
                total += batch_input[(((in_y * in_w) + in_x) * in_c) + in_channel] *
                         filter[(((ky * filter_dims->w) + kx) * out_c) + channel];
              }
            }
          }
          const float bias_value = (bias != NULL) ? bias[channel] : 0.0f;
          *out = utvm_clamp_f32(total + bias_value, params->act_min, params->act_max);
          ++out;
        }
      }
    }
  }
  return UTVM_OK;
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without
 * UTVM_HAVE_F32. */
typedef int utvm_kernels_no_depthwise_conv2d_f32_t;
#endif

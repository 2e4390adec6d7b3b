/* DEPTHWISE_CONV_2D, int16 activations and int8 weights (TFLite's
 * reference_integer_ops::DepthwiseConvPerChannel for int16: zero points 0, int64 bias, 64-bit
 * accumulator). */
#include "s16_accumulate.h"
#include "shape.h"
#include "utvm/kernels.h"

utvm_err_t utvm_depthwise_conv2d_s16(const utvm_depthwise_conv2d_params_t *params,
                                     const utvm_per_channel_quant_t *quant,
                                     const utvm_dims_t *input_dims, const int16_t *input,
                                     const utvm_dims_t *filter_dims, const int8_t *filter,
                                     const int64_t *bias, const utvm_dims_t *output_dims,
                                     int16_t *output) {
  if ((params == NULL) || (input == NULL) || (filter == NULL) || (output == NULL) ||
      (params->input_offset != 0) || (params->output_offset != 0) ||
      (params->depth_multiplier < 1) ||
      !utvm_act_range_s16_valid(params->act_min, params->act_max)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!utvm_dims_valid(input_dims) || !utvm_dims_valid(filter_dims) ||
      !utvm_dims_valid(output_dims) || (output_dims->n != input_dims->n) ||
      (filter_dims->n != 1) || (filter_dims->c != output_dims->c) ||
      (((int64_t)input_dims->c * params->depth_multiplier) != (int64_t)output_dims->c)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  if (!utvm_window_valid(output_dims->h, params->stride_h, filter_dims->h, params->dilation_h,
                         params->pad_top) ||
      !utvm_window_valid(output_dims->w, params->stride_w, filter_dims->w, params->dilation_w,
                         params->pad_left) ||
      !utvm_per_channel_quant_valid(quant, output_dims->c) ||
      !utvm_s16_quant_valid(UTVM_ACCUMULATE_64, quant)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const int32_t in_c = input_dims->c;
  const int32_t out_c = output_dims->c;
  int16_t *out = output;
  for (int32_t b = 0; b < output_dims->n; ++b) {
    for (int32_t oy = 0; oy < output_dims->h; ++oy) {
      const int32_t y0 = (oy * params->stride_h) - params->pad_top;
      for (int32_t ox = 0; ox < output_dims->w; ++ox) {
        const int32_t x0 = (ox * params->stride_w) - params->pad_left;
        for (int32_t oc = 0; oc < out_c; ++oc) {
          const int32_t ic = oc / params->depth_multiplier;
          int64_t sum = 0;
          for (int32_t ky = 0; ky < filter_dims->h; ++ky) {
            const int32_t y = y0 + (ky * params->dilation_h);
            for (int32_t kx = 0; (y >= 0) && (y < input_dims->h) && (kx < filter_dims->w); ++kx) {
              const int32_t x = x0 + (kx * params->dilation_w);
              if ((x >= 0) && (x < input_dims->w)) {
                const size_t in_at =
                    ((((size_t)b * (size_t)input_dims->h + (size_t)y) * (size_t)input_dims->w +
                      (size_t)x) * (size_t)in_c) + (size_t)ic;
                const size_t f_at =
                    (((size_t)ky * (size_t)filter_dims->w) + (size_t)kx) * (size_t)out_c +
                    (size_t)oc;
                sum += (int64_t)filter[f_at] * (int64_t)input[in_at];
              }
            }
          }
          sum += utvm_s16_bias(UTVM_ACCUMULATE_64, bias, oc);
          const int32_t q = utvm_quant_index(quant, oc);
          *out = utvm_s16_output(UTVM_ACCUMULATE_64, sum, quant->multiplier[q], quant->shift[q],
                                 params->act_min, params->act_max);
          out++;
        }
      }
    }
  }
  return UTVM_OK;
}

/* CONV_2D, int16 activations and int8 weights (TFLite's reference_integer_ops::ConvPerChannel
 * for int16: zero points 0, 64- or 32-bit accumulator, grouped convolution included). */
#include "s16_accumulate.h"
#include "shape.h"
#include "utvm/kernels.h"

utvm_err_t utvm_conv2d_s16(const utvm_conv2d_params_t *params,
                           const utvm_per_channel_quant_t *quant, utvm_accumulator_t acc,
                           const utvm_dims_t *input_dims, const int16_t *input,
                           const utvm_dims_t *filter_dims, const int8_t *filter, const void *bias,
                           const utvm_dims_t *output_dims, int16_t *output) {
  if ((params == NULL) || (input == NULL) || (filter == NULL) || (output == NULL) ||
      (params->filter_layout != (int32_t)UTVM_FILTER_PLAIN) || (params->input_offset != 0) ||
      (params->output_offset != 0) ||
      !utvm_act_range_s16_valid(params->act_min, params->act_max)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!utvm_dims_valid(input_dims) || !utvm_dims_valid(filter_dims) ||
      !utvm_dims_valid(output_dims) || (output_dims->n != input_dims->n) ||
      (output_dims->c != filter_dims->n) || ((input_dims->c % filter_dims->c) != 0) ||
      ((output_dims->c % (input_dims->c / filter_dims->c)) != 0)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  if (!utvm_window_valid(output_dims->h, params->stride_h, filter_dims->h, params->dilation_h,
                         params->pad_top) ||
      !utvm_window_valid(output_dims->w, params->stride_w, filter_dims->w, params->dilation_w,
                         params->pad_left) ||
      !utvm_per_channel_quant_valid(quant, output_dims->c) || !utvm_s16_quant_valid(acc, quant)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const int32_t in_c = input_dims->c;
  const int32_t f_c = filter_dims->c;
  const int32_t per_group = output_dims->c / (in_c / f_c);
  int16_t *out = output;
  for (int32_t b = 0; b < output_dims->n; ++b) {
    for (int32_t oy = 0; oy < output_dims->h; ++oy) {
      const int32_t y0 = (oy * params->stride_h) - params->pad_top;
      for (int32_t ox = 0; ox < output_dims->w; ++ox) {
        const int32_t x0 = (ox * params->stride_w) - params->pad_left;
        for (int32_t oc = 0; oc < output_dims->c; ++oc) {
          const int32_t first_in = (oc / per_group) * f_c;
          int64_t sum = 0;
          for (int32_t ky = 0; ky < filter_dims->h; ++ky) {
            const int32_t y = y0 + (ky * params->dilation_h);
            for (int32_t kx = 0; (y >= 0) && (y < input_dims->h) && (kx < filter_dims->w); ++kx) {
              const int32_t x = x0 + (kx * params->dilation_w);
              if ((x < 0) || (x >= input_dims->w)) {
                continue;
              }
              const int16_t *in_px =
                  &input[((((size_t)b * (size_t)input_dims->h + (size_t)y) * (size_t)input_dims->w +
                           (size_t)x) * (size_t)in_c) + (size_t)first_in];
              const int8_t *f_px =
                  &filter[(((size_t)oc * (size_t)filter_dims->h + (size_t)ky) * (size_t)filter_dims->w +
                           (size_t)kx) * (size_t)f_c];
              for (int32_t ic = 0; ic < f_c; ++ic) {
                sum += (int64_t)f_px[ic] * (int64_t)in_px[ic];
              }
            }
          }
          sum += utvm_s16_bias(acc, bias, oc);
          const int32_t q = utvm_quant_index(quant, oc);
          *out = utvm_s16_output(acc, sum, quant->multiplier[q], quant->shift[q], params->act_min,
                                 params->act_max);
          out++;
        }
      }
    }
  }
  return UTVM_OK;
}

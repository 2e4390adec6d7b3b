/* CONV_2D, int8 (TFLite's reference_integer_ops::ConvPerChannel, grouped convolution included). */
#include "fast_s8.h"
#include "mac_s8.h"
#include "shape.h"
#include "utvm/kernels.h"

static bool conv2d_params_valid(const utvm_conv2d_params_t *params) {
  return ((params->filter_layout == (int32_t)UTVM_FILTER_PLAIN) ||
          (params->filter_layout == (int32_t)UTVM_FILTER_DSP_S16) ||
          (params->filter_layout == (int32_t)UTVM_FILTER_MVE_TERMS)) &&
         utvm_input_offset_valid(params->input_offset) &&
         utvm_zero_point_valid(params->output_offset) &&
         utvm_act_range_valid(params->act_min, params->act_max);
}

static bool conv2d_shapes_valid(const utvm_dims_t *input_dims, const utvm_dims_t *filter_dims,
                                const utvm_dims_t *output_dims) {
  if (!utvm_dims_valid(input_dims) || !utvm_dims_valid(filter_dims) ||
      !utvm_dims_valid(output_dims)) {
    return false;
  }
  if (output_dims->n != input_dims->n || output_dims->c != filter_dims->n ||
      input_dims->c % filter_dims->c != 0) {
    return false;
  }
  const int32_t groups = input_dims->c / filter_dims->c;
  return output_dims->c % groups == 0;
}

static bool conv2d_windows_valid(const utvm_conv2d_params_t *params,
                                 const utvm_dims_t *filter_dims, const utvm_dims_t *output_dims) {
  return utvm_window_valid(output_dims->h, params->stride_h, filter_dims->h, params->dilation_h,
                           params->pad_top) &&
         utvm_window_valid(output_dims->w, params->stride_w, filter_dims->w, params->dilation_w,
                           params->pad_left);
}

size_t utvm_conv2d_s8_scratch_size_for(utvm_kernels_core_t core, const utvm_dims_t *input_dims,
                                       const utvm_dims_t *filter_dims,
                                       const utvm_dims_t *output_dims) {
  size_t bytes = 0u;
  if (((core == UTVM_KERNELS_DSP) || (core == UTVM_KERNELS_MVE)) &&
      conv2d_shapes_valid(input_dims, filter_dims, output_dims) &&
      (input_dims->c == filter_dims->c)) {
    bytes = 4u * (size_t)filter_dims->h * (size_t)filter_dims->w * (size_t)filter_dims->c;
  }
  return bytes;
}

size_t utvm_conv2d_s8_scratch_size(const utvm_dims_t *input_dims, const utvm_dims_t *filter_dims,
                                   const utvm_dims_t *output_dims) {
  return utvm_conv2d_s8_scratch_size_for(UTVM_KERNELS_NATIVE, input_dims, filter_dims,
                                         output_dims);
}

utvm_err_t utvm_conv2d_s8(const utvm_conv2d_params_t *params, const utvm_per_channel_quant_t *quant,
                          const utvm_dims_t *input_dims, const int8_t *input,
                          const utvm_dims_t *filter_dims, const int8_t *filter, const int32_t *bias,
                          const utvm_dims_t *output_dims, int8_t *output, void *scratch) {
  if (params == NULL || input == NULL || filter == NULL || output == NULL ||
      !conv2d_params_valid(params)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!conv2d_shapes_valid(input_dims, filter_dims, output_dims)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  if (!conv2d_windows_valid(params, filter_dims, output_dims) ||
      !utvm_per_channel_quant_valid(quant, output_dims->c)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (params->filter_layout != (int32_t)UTVM_FILTER_PLAIN) {
    /* A filter laid out for one core's kernels: only the build with them runs it, on the shapes
     * and word-aligned memory they take (DSP_S16: the DSP kernels; MVE_TERMS: the MVE kernel). */
#if defined(UTVM_KERNELS_DSP_PATHS) && !defined(__ARM_FEATURE_MVE)
    const int8_t *scratch_bytes = (const int8_t *)scratch;
    const bool aligned = ((((uintptr_t)(const void *)scratch_bytes) |
                           ((uintptr_t)(const void *)filter)) & 3u) == 0u;
    if ((params->filter_layout == (int32_t)UTVM_FILTER_DSP_S16) && (scratch != NULL) &&
        aligned &&
        (utvm_conv2d_s8_scratch_size_for(UTVM_KERNELS_DSP, input_dims, filter_dims,
                                         output_dims) > 0u)) {
      utvm_conv2d_s8_dsp(params, quant, input_dims, input, filter_dims, filter, bias,
                         output_dims, output, (int8_t *)scratch);
      return UTVM_OK;
    }
#elif defined(__ARM_FEATURE_MVE)
    if ((params->filter_layout == (int32_t)UTVM_FILTER_MVE_TERMS) &&
        ((((uintptr_t)(const void *)filter) & 3u) == 0u) &&
        utvm_conv2d_s8_mve_applies(input_dims, filter_dims, scratch != NULL)) {
      utvm_conv2d_s8_mve(params, quant, input_dims, input, filter_dims, filter, bias, output_dims,
                         output, (int8_t *)scratch);
      return UTVM_OK;
    }
#endif
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
#if defined(__ARM_FEATURE_MVE)
  if (utvm_conv2d_s8_mve_applies(input_dims, filter_dims, scratch != NULL)) {
    utvm_conv2d_s8_mve(params, quant, input_dims, input, filter_dims, filter, bias, output_dims,
                       output, (int8_t *)scratch);
    return UTVM_OK;
  }
  /* Without scratch, or grouped: the portable loops (the blocked paths stay out of MVE images). */
  utvm_conv2d_s8_portable(params, quant, input_dims, input, filter_dims, filter, bias,
                          output_dims, output);
  return UTVM_OK;
#elif defined(UTVM_KERNELS_DSP_PATHS)
  if (scratch != NULL &&
      utvm_conv2d_s8_scratch_size_for(UTVM_KERNELS_DSP, input_dims, filter_dims, output_dims) > 0u) {
    utvm_conv2d_s8_dsp(params, quant, input_dims, input, filter_dims, filter, bias, output_dims,
                       output, (int8_t *)scratch);
    return UTVM_OK;
  }
#else
  (void)scratch;
#endif
  if (input_dims->c == filter_dims->c) {
    utvm_conv2d_s8_blocked(params, quant, input_dims, input, filter_dims, filter, bias,
                           output_dims, output);
  } else {
    utvm_conv2d_s8_portable(params, quant, input_dims, input, filter_dims, filter, bias,
                            output_dims, output);
  }
  return UTVM_OK;
}

void utvm_conv2d_s8_portable(const utvm_conv2d_params_t *params,
                             const utvm_per_channel_quant_t *quant, const utvm_dims_t *input_dims,
                             const int8_t *input, const utvm_dims_t *filter_dims,
                             const int8_t *filter, const int32_t *bias,
                             const utvm_dims_t *output_dims, int8_t *output) {
  const int32_t in_h = input_dims->h;
  const int32_t in_w = input_dims->w;
  const int32_t in_c = input_dims->c;
  const int32_t filter_c = filter_dims->c;
  const int32_t out_c = output_dims->c;
  const int32_t filters_per_group = out_c / (in_c / filter_c);
  int8_t *out = output;
  for (int32_t batch = 0; batch < output_dims->n; ++batch) {
    const int8_t *batch_input = input + batch * in_h * in_w * in_c;
    for (int32_t out_y = 0; out_y < output_dims->h; ++out_y) {
      const int32_t in_y_origin = out_y * params->stride_h - params->pad_top;
      for (int32_t out_x = 0; out_x < output_dims->w; ++out_x) {
        const int32_t in_x_origin = out_x * params->stride_w - params->pad_left;
        for (int32_t channel = 0; channel < out_c; ++channel) {
          const int32_t group_channel = (channel / filters_per_group) * filter_c;
          const int8_t *channel_filter =
              filter + channel * filter_dims->h * filter_dims->w * filter_c;
          int32_t acc = 0;
          for (int32_t filter_y = 0; filter_y < filter_dims->h; ++filter_y) {
            const int32_t in_y = in_y_origin + params->dilation_h * filter_y;
            if (in_y < 0 || in_y >= in_h) {
              continue;
            }
            for (int32_t filter_x = 0; filter_x < filter_dims->w; ++filter_x) {
              const int32_t in_x = in_x_origin + params->dilation_w * filter_x;
              if (in_x < 0 || in_x >= in_w) {
                continue;
              }
              acc = utvm_mac_s8(acc, batch_input + (in_y * in_w + in_x) * in_c + group_channel,
                                params->input_offset,
                                channel_filter + (filter_y * filter_dims->w + filter_x) * filter_c,
                                0, filter_c);
            }
          }
          *out++ = utvm_mac_output_s8(acc, bias, quant, channel, params->output_offset,
                                      params->act_min, params->act_max);
        }
      }
    }
  }
}

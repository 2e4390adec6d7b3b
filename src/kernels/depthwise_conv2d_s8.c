/* DEPTHWISE_CONV_2D, int8 (TFLite's reference_integer_ops::DepthwiseConvPerChannel). */
#include "fast_s8.h"
#include "fixed_point.h"
#include "mac_s8.h"
#include "shape.h"
#include "utvm/kernels.h"

/* A depthwise convolution of one input channel is a convolution with one filter per output
 * channel. On the cores whose convolution multiplies im2col columns (DSP, MVE) it runs as
 * utvm_conv2d_s8 with the filter transposed into scratch, [1,KH,KW,Co] to [Co,KH,KW,1]: the
 * same products summed in the same 32-bit wrapping arithmetic, the same per-channel
 * requantization (micro_speech's first layer: a multiplier of 8 over 10x8 windows). */

/* The transposed filter's bytes, rounded up to a word (the convolution's scratch follows). */
static size_t depthwise_conv_filter_bytes(const utvm_dims_t *filter_dims) {
  const size_t bytes = (size_t)filter_dims->h * (size_t)filter_dims->w * (size_t)filter_dims->c;
  return (bytes + 3u) & ~(size_t)3u;
}

static utvm_dims_t depthwise_conv_filter_dims(const utvm_dims_t *filter_dims) {
  const utvm_dims_t dims = {filter_dims->c, filter_dims->h, filter_dims->w, 1};
  return dims;
}

/* Whether core runs a depthwise layer of these (valid) shapes as a convolution. */
static bool depthwise_runs_as_conv(utvm_kernels_core_t core, const utvm_dims_t *input_dims,
                                   const utvm_dims_t *output_dims) {
  return ((core == UTVM_KERNELS_DSP) || (core == UTVM_KERNELS_MVE)) && (input_dims->c == 1) &&
         (output_dims->c > 1);
}

size_t utvm_depthwise_conv2d_s8_scratch_size_for(utvm_kernels_core_t core,
                                                 const utvm_dims_t *input_dims,
                                                 const utvm_dims_t *filter_dims,
                                                 const utvm_dims_t *output_dims) {
  size_t bytes = 0u;
  if ((input_dims != NULL) && (filter_dims != NULL) && (output_dims != NULL) &&
      (filter_dims->n == 1) && (filter_dims->c == output_dims->c) &&
      depthwise_runs_as_conv(core, input_dims, output_dims)) {
    /* the convolution's query checks the shapes (0 when invalid) */
    const utvm_dims_t conv_filter = depthwise_conv_filter_dims(filter_dims);
    const size_t conv = utvm_conv2d_s8_scratch_size_for(core, input_dims, &conv_filter,
                                                        output_dims);
    bytes = (conv > 0u) ? (depthwise_conv_filter_bytes(filter_dims) + conv) : 0u;
  }
  return bytes;
}

size_t utvm_depthwise_conv2d_s8_scratch_size(const utvm_dims_t *input_dims,
                                             const utvm_dims_t *filter_dims,
                                             const utvm_dims_t *output_dims) {
  return utvm_depthwise_conv2d_s8_scratch_size_for(UTVM_KERNELS_NATIVE, input_dims, filter_dims,
                                                   output_dims);
}

/* The layer as a convolution (shapes from utvm_depthwise_conv2d_s8_scratch_size > 0). */
static utvm_err_t depthwise_as_conv(const utvm_depthwise_conv2d_params_t *params,
                                    const utvm_per_channel_quant_t *quant,
                                    const utvm_dims_t *input_dims, const int8_t *input,
                                    const utvm_dims_t *filter_dims, const int8_t *filter,
                                    const int32_t *bias, const utvm_dims_t *output_dims,
                                    int8_t *output, int8_t *scratch) {
  const int32_t taps = filter_dims->h * filter_dims->w;
  const int32_t channels = filter_dims->c;
  for (int32_t c = 0; c < channels; ++c) {
    for (int32_t t = 0; t < taps; ++t) {
      scratch[c * taps + t] = filter[t * channels + c];
    }
  }
  const utvm_conv2d_params_t conv = {params->stride_h,      params->stride_w,
                                     params->dilation_h,    params->dilation_w,
                                     params->pad_top,       params->pad_left,
                                     params->input_offset,  params->output_offset,
                                     params->act_min,       params->act_max,
                                     (int32_t)UTVM_FILTER_PLAIN};
  const utvm_dims_t conv_filter = depthwise_conv_filter_dims(filter_dims);
  return utvm_conv2d_s8(&conv, quant, input_dims, input, &conv_filter, scratch, bias,
                        output_dims, output,
                        &scratch[depthwise_conv_filter_bytes(filter_dims)]);
}

static bool depthwise_params_valid(const utvm_depthwise_conv2d_params_t *params) {
  return params->depth_multiplier >= 1 && utvm_input_offset_valid(params->input_offset) &&
         utvm_zero_point_valid(params->output_offset) &&
         utvm_act_range_valid(params->act_min, params->act_max);
}

static bool depthwise_shapes_valid(const utvm_depthwise_conv2d_params_t *params,
                                   const utvm_dims_t *input_dims, const utvm_dims_t *filter_dims,
                                   const utvm_dims_t *output_dims) {
  if (!utvm_dims_valid(input_dims) || !utvm_dims_valid(filter_dims) ||
      !utvm_dims_valid(output_dims)) {
    return false;
  }
  return filter_dims->n == 1 && output_dims->n == input_dims->n &&
         filter_dims->c == output_dims->c &&
         (int64_t)input_dims->c * params->depth_multiplier == output_dims->c;
}

/* The multiply-accumulate loop: acc over the filter taps of one output channel that fall
 * inside the input. input points at (in_y_origin, in_x_origin)'s channel, filter at the
 * channel's first tap. */
static int32_t depthwise_window_mac(const utvm_depthwise_conv2d_params_t *params,
                                    const utvm_dims_t *input_dims, const int8_t *input_channel,
                                    int32_t in_y_origin, int32_t in_x_origin,
                                    const utvm_dims_t *filter_dims, const int8_t *filter_channel) {
  const int32_t in_c = input_dims->c;
  const int32_t filter_c = filter_dims->c;
  int32_t acc = 0;
  for (int32_t filter_y = 0; filter_y < filter_dims->h; ++filter_y) {
    const int32_t in_y = in_y_origin + params->dilation_h * filter_y;
    if (in_y < 0 || in_y >= input_dims->h) {
      continue;
    }
    for (int32_t filter_x = 0; filter_x < filter_dims->w; ++filter_x) {
      const int32_t in_x = in_x_origin + params->dilation_w * filter_x;
      if (in_x < 0 || in_x >= input_dims->w) {
        continue;
      }
      const int32_t input_value = input_channel[(in_y * input_dims->w + in_x) * in_c];
      const int32_t filter_value =
          filter_channel[(filter_y * filter_dims->w + filter_x) * filter_c];
      acc = utvm_wrap_add(acc, filter_value * (input_value + params->input_offset));
    }
  }
  return acc;
}

utvm_err_t utvm_depthwise_conv2d_s8(const utvm_depthwise_conv2d_params_t *params,
                                    const utvm_per_channel_quant_t *quant,
                                    const utvm_dims_t *input_dims, const int8_t *input,
                                    const utvm_dims_t *filter_dims, const int8_t *filter,
                                    const int32_t *bias, const utvm_dims_t *output_dims,
                                    int8_t *output, void *scratch) {
  if (params == NULL || input == NULL || filter == NULL || output == NULL ||
      !depthwise_params_valid(params)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!depthwise_shapes_valid(params, input_dims, filter_dims, output_dims)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  if (!utvm_window_valid(output_dims->h, params->stride_h, filter_dims->h, params->dilation_h,
                         params->pad_top) ||
      !utvm_window_valid(output_dims->w, params->stride_w, filter_dims->w, params->dilation_w,
                         params->pad_left) ||
      !utvm_per_channel_quant_valid(quant, output_dims->c)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  /* (the convolution of valid depthwise shapes needs its scratch on these cores) */
  if ((scratch != NULL) && depthwise_runs_as_conv(UTVM_KERNELS_NATIVE, input_dims, output_dims)) {
    return depthwise_as_conv(params, quant, input_dims, input, filter_dims, filter, bias,
                             output_dims, output, (int8_t *)scratch);
  }
#if defined(__ARM_FEATURE_MVE)
  if (utvm_depthwise_conv2d_s8_mve_applies(input_dims->c)) {
    utvm_depthwise_conv2d_s8_mve(params, quant, input_dims, input, filter_dims, filter, bias,
                                 output_dims, output);
    return UTVM_OK;
  }
  /* Over 65535 input channels: the portable loops (the blocked paths stay out of MVE images). */
  utvm_depthwise_conv2d_s8_portable(params, quant, input_dims, input, filter_dims, filter, bias,
                                    output_dims, output);
  return UTVM_OK;
#elif defined(UTVM_KERNELS_DSP_PATHS)
  if (utvm_depthwise_conv2d_s8_dsp_applies(params->depth_multiplier)) {
    utvm_depthwise_conv2d_s8_dsp(params, quant, input_dims, input, filter_dims, filter, bias,
                                 output_dims, output);
    return UTVM_OK;
  }
#endif
  utvm_depthwise_conv2d_s8_blocked(params, quant, input_dims, input, filter_dims, filter, bias,
                                   output_dims, output);
  return UTVM_OK;
}

void utvm_depthwise_conv2d_s8_portable(const utvm_depthwise_conv2d_params_t *params,
                                       const utvm_per_channel_quant_t *quant,
                                       const utvm_dims_t *input_dims, const int8_t *input,
                                       const utvm_dims_t *filter_dims, const int8_t *filter,
                                       const int32_t *bias, const utvm_dims_t *output_dims,
                                       int8_t *output) {
  const int32_t in_c = input_dims->c;
  const int32_t multiplier = params->depth_multiplier;
  int8_t *out = output;
  for (int32_t batch = 0; batch < output_dims->n; ++batch) {
    const int8_t *batch_input = input + batch * input_dims->h * input_dims->w * in_c;
    for (int32_t out_y = 0; out_y < output_dims->h; ++out_y) {
      const int32_t in_y_origin = out_y * params->stride_h - params->pad_top;
      for (int32_t out_x = 0; out_x < output_dims->w; ++out_x) {
        const int32_t in_x_origin = out_x * params->stride_w - params->pad_left;
        for (int32_t in_channel = 0; in_channel < in_c; ++in_channel) {
          for (int32_t m = 0; m < multiplier; ++m) {
            const int32_t channel = in_channel * multiplier + m;
            const int32_t acc = depthwise_window_mac(params, input_dims,
                                                     batch_input + in_channel, in_y_origin,
                                                     in_x_origin, filter_dims, filter + channel);
            *out++ = utvm_mac_output_s8(acc, bias, quant, channel, params->output_offset,
                                        params->act_min, params->act_max);
          }
        }
      }
    }
  }
}

/*
 * Blocked portable C paths of CONV_2D (not grouped), DEPTHWISE_CONV_2D and FULLY_CONNECTED (see fast_s8.h): the kernels of cores without the DSP extension
 * (Cortex-M0/M0+/M3, hosts). Four output channels share each input value (one load and one
 * offset addition for four multiply-accumulates), the filter taps that fall inside the input
 * are found once per output position instead of tested per tap, and FULLY_CONNECTED's filter
 * offset is folded into one product per output: sum (w + fo) * v = sum w * v + fo * sum v.
 * Every sum is the same 32-bit wrapping sum as the reference loops' (only its order differs,
 * and addition modulo 2^32 is associative), so after the shared requantization
 * (utvm_mac_output_s8) the bytes are identical.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fast_s8.h"
#include "mac_s8.h"

/* Four accumulators modulo 2^32. */
typedef struct {
  uint32_t a[4];
} blocked_sums_t;

/* The sums of the four output channels whose filters start at f (filter_size values apart)
 * over the window's taps inside the input (in_c values per tap). */
static void conv_window_4(const utvm_conv2d_params_t *params, const utvm_dims_t *input_dims,
                          const utvm_window_t *window, const utvm_dims_t *filter_dims,
                          const int8_t *f, int32_t filter_size, blocked_sums_t *sums) {
  const int32_t in_c = input_dims->c;
  const int32_t input_offset = params->input_offset;
  uint32_t a0 = 0u;
  uint32_t a1 = 0u;
  uint32_t a2 = 0u;
  uint32_t a3 = 0u;
  /* Without dilation a row of taps is contiguous in the input and in the filter: one run. */
  const bool rows = params->dilation_w == 1;
  const int32_t run = rows ? (window->xs[1] - window->xs[0]) * in_c : in_c;
  const int32_t x_end =
      (rows && (window->xs[1] > window->xs[0])) ? (window->xs[0] + 1) : window->xs[1];
  for (int32_t filter_y = window->ys[0]; filter_y < window->ys[1]; ++filter_y) {
    const int32_t in_y = window->in_y_origin + params->dilation_h * filter_y;
    for (int32_t filter_x = window->xs[0]; filter_x < x_end; ++filter_x) {
      const int32_t in_x = window->in_x_origin + params->dilation_w * filter_x;
      const int8_t *x = &window->batch_input[(in_y * input_dims->w + in_x) * in_c];
      const int8_t *w0 = &f[(filter_y * filter_dims->w + filter_x) * in_c];
      const int8_t *w1 = &w0[filter_size];
      const int8_t *w2 = &w1[filter_size];
      const int8_t *w3 = &w2[filter_size];
      for (int32_t c = 0; c < run; ++c) {
        const int32_t v = (int32_t)x[c] + input_offset;
        a0 += (uint32_t)((int32_t)w0[c] * v);
        a1 += (uint32_t)((int32_t)w1[c] * v);
        a2 += (uint32_t)((int32_t)w2[c] * v);
        a3 += (uint32_t)((int32_t)w3[c] * v);
      }
    }
  }
  sums->a[0] = a0;
  sums->a[1] = a1;
  sums->a[2] = a2;
  sums->a[3] = a3;
}

/* The sum of one output channel (filter f) over the window's taps inside the input. */
static uint32_t conv_window_1(const utvm_conv2d_params_t *params, const utvm_dims_t *input_dims,
                              const utvm_window_t *window, const utvm_dims_t *filter_dims,
                              const int8_t *f) {
  const int32_t in_c = input_dims->c;
  const bool rows = params->dilation_w == 1;
  const int32_t run = rows ? (window->xs[1] - window->xs[0]) * in_c : in_c;
  const int32_t x_end =
      (rows && (window->xs[1] > window->xs[0])) ? (window->xs[0] + 1) : window->xs[1];
  uint32_t acc = 0u;
  for (int32_t filter_y = window->ys[0]; filter_y < window->ys[1]; ++filter_y) {
    const int32_t in_y = window->in_y_origin + params->dilation_h * filter_y;
    for (int32_t filter_x = window->xs[0]; filter_x < x_end; ++filter_x) {
      const int32_t in_x = window->in_x_origin + params->dilation_w * filter_x;
      const int8_t *x = &window->batch_input[(in_y * input_dims->w + in_x) * in_c];
      const int8_t *w = &f[(filter_y * filter_dims->w + filter_x) * in_c];
      for (int32_t c = 0; c < run; ++c) {
        acc += (uint32_t)((int32_t)w[c] * ((int32_t)x[c] + params->input_offset));
      }
    }
  }
  return acc;
}

void utvm_conv2d_s8_blocked(const utvm_conv2d_params_t *params,
                            const utvm_per_channel_quant_t *quant, const utvm_dims_t *input_dims,
                            const int8_t *input, const utvm_dims_t *filter_dims,
                            const int8_t *filter, const int32_t *bias,
                            const utvm_dims_t *output_dims, int8_t *output) {
  const int32_t out_c = output_dims->c;
  const int32_t filter_size = filter_dims->h * filter_dims->w * filter_dims->c;
  int8_t *out = output;
  for (int32_t batch = 0; batch < output_dims->n; ++batch) {
    utvm_window_t window;
    window.batch_input = &input[batch * input_dims->h * input_dims->w * input_dims->c];
    for (int32_t out_y = 0; out_y < output_dims->h; ++out_y) {
      window.in_y_origin = out_y * params->stride_h - params->pad_top;
      utvm_taps_inside(window.in_y_origin, params->dilation_h, filter_dims->h, input_dims->h,
                       &window.ys[0], &window.ys[1]);
      for (int32_t out_x = 0; out_x < output_dims->w; ++out_x) {
        window.in_x_origin = out_x * params->stride_w - params->pad_left;
        utvm_taps_inside(window.in_x_origin, params->dilation_w, filter_dims->w, input_dims->w,
                         &window.xs[0], &window.xs[1]);
        int32_t ch = 0;
        for (; (ch + 4) <= out_c; ch += 4) {
          blocked_sums_t sums;
          conv_window_4(params, input_dims, &window, filter_dims, &filter[ch * filter_size],
                        filter_size, &sums);
          for (int32_t k = 0; k < 4; ++k) {
            out[ch + k] = utvm_mac_output_s8((int32_t)sums.a[k], bias, quant, ch + k,
                                             params->output_offset, params->act_min,
                                             params->act_max);
          }
        }
        for (; ch < out_c; ++ch) {
          const uint32_t acc =
              conv_window_1(params, input_dims, &window, filter_dims, &filter[ch * filter_size]);
          out[ch] = utvm_mac_output_s8((int32_t)acc, bias, quant, ch, params->output_offset,
                                       params->act_min, params->act_max);
        }
        out = &out[out_c];
      }
    }
  }
}

/* The sums of channels channel..channel+3 (multiplier 1) over the window's taps inside. */
static void depthwise_window_4(const utvm_depthwise_conv2d_params_t *params,
                               const utvm_dims_t *input_dims, const utvm_window_t *window,
                               const utvm_dims_t *filter_dims, const int8_t *filter,
                               int32_t channel, blocked_sums_t *sums) {
  const int32_t c = input_dims->c;
  const int32_t input_offset = params->input_offset;
  uint32_t a0 = 0u;
  uint32_t a1 = 0u;
  uint32_t a2 = 0u;
  uint32_t a3 = 0u;
  const int32_t taps_x = window->xs[1] - window->xs[0];
  const int32_t x_step = params->dilation_w * c;
  const int32_t in_x = window->in_x_origin + params->dilation_w * window->xs[0];
  for (int32_t filter_y = window->ys[0]; (filter_y < window->ys[1]) && (taps_x > 0); ++filter_y) {
    const int32_t in_y = window->in_y_origin + params->dilation_h * filter_y;
    /* The row's first tap inside; the others x_step and c bytes further on. */
    const int8_t *x0 = &window->batch_input[(in_y * input_dims->w + in_x) * c + channel];
    const int8_t *w0 = &filter[(filter_y * filter_dims->w + window->xs[0]) * c + channel];
    for (int32_t n = 0; n < taps_x; ++n) {
      const int8_t *x = &x0[n * x_step];
      const int8_t *w = &w0[n * c];
      a0 += (uint32_t)((int32_t)w[0] * ((int32_t)x[0] + input_offset));
      a1 += (uint32_t)((int32_t)w[1] * ((int32_t)x[1] + input_offset));
      a2 += (uint32_t)((int32_t)w[2] * ((int32_t)x[2] + input_offset));
      a3 += (uint32_t)((int32_t)w[3] * ((int32_t)x[3] + input_offset));
    }
  }
  sums->a[0] = a0;
  sums->a[1] = a1;
  sums->a[2] = a2;
  sums->a[3] = a3;
}

/* The sums of output channels channel..channel+3 that share one input channel (a multiplier
 * that is a multiple of 4): one input value per tap for the four. */
static void depthwise_window_4_shared(const utvm_depthwise_conv2d_params_t *params,
                                      const utvm_dims_t *input_dims, const utvm_window_t *window,
                                      const utvm_dims_t *filter_dims, const int8_t *filter,
                                      int32_t channel, blocked_sums_t *sums) {
  const int32_t in_c = input_dims->c;
  const int32_t out_c = filter_dims->c;
  const int32_t in_channel = channel / params->depth_multiplier;
  uint32_t a0 = 0u;
  uint32_t a1 = 0u;
  uint32_t a2 = 0u;
  uint32_t a3 = 0u;
  for (int32_t filter_y = window->ys[0]; filter_y < window->ys[1]; ++filter_y) {
    const int32_t in_y = window->in_y_origin + params->dilation_h * filter_y;
    const int8_t *input_row = &window->batch_input[in_y * input_dims->w * in_c + in_channel];
    const int8_t *filter_row = &filter[filter_y * filter_dims->w * out_c + channel];
    for (int32_t filter_x = window->xs[0]; filter_x < window->xs[1]; ++filter_x) {
      const int32_t in_x = window->in_x_origin + params->dilation_w * filter_x;
      const int32_t v = (int32_t)input_row[in_x * in_c] + params->input_offset;
      const int8_t *w = &filter_row[filter_x * out_c];
      a0 += (uint32_t)((int32_t)w[0] * v);
      a1 += (uint32_t)((int32_t)w[1] * v);
      a2 += (uint32_t)((int32_t)w[2] * v);
      a3 += (uint32_t)((int32_t)w[3] * v);
    }
  }
  sums->a[0] = a0;
  sums->a[1] = a1;
  sums->a[2] = a2;
  sums->a[3] = a3;
}

/* The sum of one output channel (any multiplier) over the window's taps inside. */
static uint32_t depthwise_window_1(const utvm_depthwise_conv2d_params_t *params,
                                   const utvm_dims_t *input_dims, const utvm_window_t *window,
                                   const utvm_dims_t *filter_dims, const int8_t *filter,
                                   int32_t channel) {
  const int32_t in_c = input_dims->c;
  const int32_t out_c = filter_dims->c;
  const int32_t in_channel = channel / params->depth_multiplier;
  uint32_t acc = 0u;
  for (int32_t filter_y = window->ys[0]; filter_y < window->ys[1]; ++filter_y) {
    const int32_t in_y = window->in_y_origin + params->dilation_h * filter_y;
    for (int32_t filter_x = window->xs[0]; filter_x < window->xs[1]; ++filter_x) {
      const int32_t in_x = window->in_x_origin + params->dilation_w * filter_x;
      const int32_t x = window->batch_input[(in_y * input_dims->w + in_x) * in_c + in_channel];
      const int32_t w = filter[(filter_y * filter_dims->w + filter_x) * out_c + channel];
      acc += (uint32_t)(w * (x + params->input_offset));
    }
  }
  return acc;
}

void utvm_depthwise_conv2d_s8_blocked(const utvm_depthwise_conv2d_params_t *params,
                                      const utvm_per_channel_quant_t *quant,
                                      const utvm_dims_t *input_dims, const int8_t *input,
                                      const utvm_dims_t *filter_dims, const int8_t *filter,
                                      const int32_t *bias, const utvm_dims_t *output_dims,
                                      int8_t *output) {
  const int32_t out_c = output_dims->c;
  const bool shared = (params->depth_multiplier % 4) == 0;
  /* Blocks of four channels with multiplier 1 or a multiple of 4; one at a time otherwise. */
  const int32_t blocked_c = ((params->depth_multiplier == 1) || shared) ? out_c : 0;
  int8_t *out = output;
  for (int32_t batch = 0; batch < output_dims->n; ++batch) {
    utvm_window_t window;
    window.batch_input = &input[batch * input_dims->h * input_dims->w * input_dims->c];
    for (int32_t out_y = 0; out_y < output_dims->h; ++out_y) {
      window.in_y_origin = out_y * params->stride_h - params->pad_top;
      utvm_taps_inside(window.in_y_origin, params->dilation_h, filter_dims->h, input_dims->h,
                       &window.ys[0], &window.ys[1]);
      for (int32_t out_x = 0; out_x < output_dims->w; ++out_x) {
        window.in_x_origin = out_x * params->stride_w - params->pad_left;
        utvm_taps_inside(window.in_x_origin, params->dilation_w, filter_dims->w, input_dims->w,
                         &window.xs[0], &window.xs[1]);
        int32_t ch = 0;
        for (; (ch + 4) <= blocked_c; ch += 4) {
          blocked_sums_t sums;
          if (shared) {
            depthwise_window_4_shared(params, input_dims, &window, filter_dims, filter, ch,
                                      &sums);
          } else {
            depthwise_window_4(params, input_dims, &window, filter_dims, filter, ch, &sums);
          }
          for (int32_t k = 0; k < 4; ++k) {
            out[ch + k] = utvm_mac_output_s8((int32_t)sums.a[k], bias, quant, ch + k,
                                             params->output_offset, params->act_min,
                                             params->act_max);
          }
        }
        for (; ch < out_c; ++ch) {
          const uint32_t acc =
              depthwise_window_1(params, input_dims, &window, filter_dims, filter, ch);
          out[ch] = utvm_mac_output_s8((int32_t)acc, bias, quant, ch, params->output_offset,
                                       params->act_min, params->act_max);
        }
        out = &out[out_c];
      }
    }
  }
}

void utvm_fully_connected_s8_blocked(const utvm_fully_connected_params_t *params,
                                     const utvm_per_channel_quant_t *quant, int32_t batches,
                                     int32_t input_depth, int32_t output_depth,
                                     const int8_t *input, const int8_t *filter,
                                     const int32_t *bias, int8_t *output) {
  const int32_t input_offset = params->input_offset;
  for (int32_t b = 0; b < batches; ++b) {
    const int8_t *x = &input[b * input_depth];
    int8_t *out = &output[b * output_depth];
    uint32_t input_sum = 0u; /* sum of (x + input offset), for the filter offset */
    for (int32_t i = 0; i < input_depth; ++i) {
      input_sum += (uint32_t)((int32_t)x[i] + input_offset);
    }
    const uint32_t filter_term = (uint32_t)params->filter_offset * input_sum;
    int32_t unit = 0;
    for (; (unit + 4) <= output_depth; unit += 4) {
      const int8_t *w0 = &filter[unit * input_depth];
      const int8_t *w1 = &w0[input_depth];
      const int8_t *w2 = &w1[input_depth];
      const int8_t *w3 = &w2[input_depth];
      uint32_t a[4] = {filter_term, filter_term, filter_term, filter_term};
      for (int32_t i = 0; i < input_depth; ++i) {
        const int32_t v = (int32_t)x[i] + input_offset;
        a[0] += (uint32_t)((int32_t)w0[i] * v);
        a[1] += (uint32_t)((int32_t)w1[i] * v);
        a[2] += (uint32_t)((int32_t)w2[i] * v);
        a[3] += (uint32_t)((int32_t)w3[i] * v);
      }
      for (int32_t k = 0; k < 4; ++k) {
        out[unit + k] = utvm_mac_output_s8((int32_t)a[k], bias, quant, unit + k,
                                           params->output_offset, params->act_min,
                                           params->act_max);
      }
    }
    for (; unit < output_depth; ++unit) {
      const int8_t *w = &filter[unit * input_depth];
      uint32_t acc = filter_term;
      for (int32_t i = 0; i < input_depth; ++i) {
        acc += (uint32_t)((int32_t)w[i] * ((int32_t)x[i] + input_offset));
      }
      out[unit] = utvm_mac_output_s8((int32_t)acc, bias, quant, unit, params->output_offset,
                                     params->act_min, params->act_max);
    }
  }
}

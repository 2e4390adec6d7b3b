/*
 * DEPTHWISE_CONV_2D in blocked portable C: utvm_depthwise_conv2d_s8_blocked (see fast_s8.h,
 * blocked_s8.h). utvm_depthwise_conv2d_s8 takes it on cores without the DSP extension
 * (Cortex-M0/M0+/M3, hosts), and on cores with it for the depth multipliers the DSP path does
 * not take (neither 1 nor a multiple of 4). Cores with MVE never take it.
 * Output channels go four at a time when the multiplier is 1 (four input channels, one load
 * each) or a multiple of 4 (the four share one input value), one at a time otherwise; the taps
 * inside the input are found once per position. A 3x3 filter with multiplier 1 takes its
 * interior positions channel by channel from taps regrouped per channel once per block, the
 * input offset folded into each channel's filter sum.
 *
 * Stack: the requantization table of a channel block (24 bytes per channel: 1.5 KB by default), the
 * block's offset terms (4 bytes per channel) and its regrouped 3x3 taps (9 bytes per channel).
 * Frames by default (arm-none-eabi-gcc 12.2 -fstack-usage on the cortex-m3 preset's flags: -Os with
 * the kernels' -O2): utvm_depthwise_conv2d_s8_blocked 2624 bytes, depthwise_3x3_interior_fast 56
 * (_general 48): at most 2680 bytes deep (the same on cortex-m4; cortex-m55 2680 + 64).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blocked_s8.h"
#include "fast_s8.h"
#include "mac_s8.h"
#include "requant_s8.h"

/* The sums of w * (x + input_offset) of channels channel..channel+3 (multiplier 1) over the
 * window's taps inside (an interior window's callers pass 0 and add the offset's term). */
static inline void depthwise_window_4(const utvm_depthwise_conv2d_params_t *params,
                                      const utvm_dims_t *input_dims, const utvm_window_t *window,
                                      const utvm_dims_t *filter_dims, const int8_t *filter,
                                      int32_t channel, int32_t input_offset,
                                      blocked_sums_t *sums) {
  const int32_t c = input_dims->c;
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

/* Filter taps of a 3x3 depthwise block laid out channel by channel (9 values each). */
#define DEPTHWISE_3X3_TAPS 9

/* One position of a 3x3 depthwise layer with multiplier 1 whose window lies wholly inside the
 * input: the count channels of block (fast says whether it is), x at the window's first tap of
 * the block's first channel, rows row_step and taps col_step values apart, taps regrouped
 * channel by channel, offset_term[k] input_offset times channel k's filter sum. */
static inline void depthwise_3x3_interior_as(const int8_t *x, int32_t row_step, int32_t col_step,
                                             const int8_t *taps,
                                             const utvm_requant_block_t *block, bool fast,
                                             const uint32_t *offset_term, int32_t count,
                                             int8_t *out) {
  const int32_t row2 = 2 * row_step;
  const int32_t col2 = 2 * col_step;
  const int8_t *t = taps;
  for (int32_t k = 0; k < count; ++k) {
    uint32_t acc = offset_term[k];
    acc += (uint32_t)((int32_t)t[0] * (int32_t)x[k]);
    acc += (uint32_t)((int32_t)t[1] * (int32_t)x[k + col_step]);
    acc += (uint32_t)((int32_t)t[2] * (int32_t)x[k + col2]);
    acc += (uint32_t)((int32_t)t[3] * (int32_t)x[k + row_step]);
    acc += (uint32_t)((int32_t)t[4] * (int32_t)x[k + row_step + col_step]);
    acc += (uint32_t)((int32_t)t[5] * (int32_t)x[k + row_step + col2]);
    acc += (uint32_t)((int32_t)t[6] * (int32_t)x[k + row2]);
    acc += (uint32_t)((int32_t)t[7] * (int32_t)x[k + row2 + col_step]);
    acc += (uint32_t)((int32_t)t[8] * (int32_t)x[k + row2 + col2]);
    out[k] = utvm_requant_output_known(block, fast, k, (int32_t)acc);
    t = &t[DEPTHWISE_3X3_TAPS];
  }
}

/* depthwise_3x3_interior_as, for a fast block and for one that is not, each a function
 * of its own. */
static BLOCKED_NOINLINE void depthwise_3x3_interior_fast(const int8_t *x, int32_t row_step,
                                                         int32_t col_step, const int8_t *taps,
                                                         const utvm_requant_block_t *block,
                                                         const uint32_t *offset_term,
                                                         int32_t count, int8_t *out) {
  depthwise_3x3_interior_as(x, row_step, col_step, taps, block, true, offset_term, count, out);
}

static BLOCKED_NOINLINE void depthwise_3x3_interior_general(const int8_t *x, int32_t row_step,
                                                            int32_t col_step, const int8_t *taps,
                                                            const utvm_requant_block_t *block,
                                                            const uint32_t *offset_term,
                                                            int32_t count, int8_t *out) {
  depthwise_3x3_interior_as(x, row_step, col_step, taps, block, false, offset_term, count, out);
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
  const bool by_four = (params->depth_multiplier == 1) || shared;
  /* 3x3 with multiplier 1: interior positions channel by channel, the taps regrouped. */
  const bool taps_3x3 =
      (params->depth_multiplier == 1) && (filter_dims->h == 3) && (filter_dims->w == 3);
  utvm_requant_block_t block;
  uint32_t offset_term[UTVM_KERNELS_CHANNEL_BLOCK];
  int8_t taps[UTVM_KERNELS_CHANNEL_BLOCK * DEPTHWISE_3X3_TAPS];
  for (int32_t first = 0; first < out_c; first += UTVM_KERNELS_CHANNEL_BLOCK) {
    const int32_t count = utvm_min_s32(UTVM_KERNELS_CHANNEL_BLOCK, out_c - first);
    const int32_t blocked_end = by_four ? (first + count - count % 4) : first;
    if (taps_3x3) {
      for (int32_t k = 0; k < count; ++k) {
        for (int32_t tap = 0; tap < DEPTHWISE_3X3_TAPS; ++tap) {
          taps[k * DEPTHWISE_3X3_TAPS + tap] = filter[tap * out_c + first + k];
        }
      }
    }
    utvm_requant_block_fill(&block, quant, bias, params->output_offset, params->act_min,
                            params->act_max, first, count);
    /* input_offset times each channel's filter sum (multiplier 1: interior windows). */
    for (int32_t k = 0; k < count; ++k) {
      int32_t sum = 0;
      for (int32_t tap = 0; tap < (filter_dims->h * filter_dims->w); ++tap) {
        sum = utvm_wrap_add(sum, filter[tap * out_c + first + k]);
      }
      offset_term[k] = (uint32_t)sum * (uint32_t)params->input_offset;
    }
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
          utvm_taps_inside(window.in_x_origin, params->dilation_w, filter_dims->w,
                           input_dims->w, &window.xs[0], &window.xs[1]);
          const bool interior = (window.ys[0] == 0) && (window.ys[1] == filter_dims->h) &&
                                (window.xs[0] == 0) && (window.xs[1] == filter_dims->w);
          int32_t ch = first;
          if (interior && taps_3x3) {
            const int8_t *x = &window.batch_input[(window.in_y_origin * input_dims->w +
                                                   window.in_x_origin) * input_dims->c + first];
            const int32_t row_step = params->dilation_h * input_dims->w * input_dims->c;
            const int32_t col_step = params->dilation_w * input_dims->c;
            if (block.fast) {
              depthwise_3x3_interior_fast(x, row_step, col_step, taps, &block, offset_term, count,
                                          &out[first]);
            } else {
              depthwise_3x3_interior_general(x, row_step, col_step, taps, &block, offset_term,
                                             count, &out[first]);
            }
            ch = first + count;
          }
          for (; ch < blocked_end; ch += 4) {
            blocked_sums_t sums;
            if (shared) {
              depthwise_window_4_shared(params, input_dims, &window, filter_dims, filter, ch,
                                        &sums);
            } else if (interior) {
              depthwise_window_4(params, input_dims, &window, filter_dims, filter, ch, 0,
                                 &sums);
              for (int32_t k = 0; k < 4; ++k) {
                sums.a[k] += offset_term[ch - first + k];
              }
            } else {
              depthwise_window_4(params, input_dims, &window, filter_dims, filter, ch,
                                 params->input_offset, &sums);
            }
            for (int32_t k = 0; k < 4; ++k) {
              out[ch + k] = utvm_requant_output(&block, ch - first + k, (int32_t)sums.a[k]);
            }
          }
          for (; ch < (first + count); ++ch) {
            const uint32_t acc =
                depthwise_window_1(params, input_dims, &window, filter_dims, filter, ch);
            out[ch] = utvm_requant_output(&block, ch - first, (int32_t)acc);
          }
          out = &out[out_c];
        }
      }
    }
  }
}

/*
 * DEPTHWISE_CONV_2D on the DSP extension: utvm_depthwise_conv2d_s8_dsp (see fast_s8.h,
 * dsp_s8.h, requant_s8_dsp.h). utvm_depthwise_conv2d_s8 takes it on cores with the DSP
 * extension but not MVE (Cortex-M4/M7/M33; the host tests with emulated intrinsics) when the
 * depth multiplier is 1 or a multiple of 4 (utvm_depthwise_conv2d_s8_dsp_applies); other
 * multipliers take utvm_depthwise_conv2d_s8_blocked, and one input channel given its scratch
 * runs as a convolution (depthwise_conv2d_s8.c).
 * Four output channels per word; filters of up to UTVM_KERNELS_DSP_DW_TAPS taps are widened once
 * per channel block into a stack buffer (larger ones per tap). A 3x3 window inside the input
 * (multiplier 1) is unrolled; other windows go through a pointer per tap (to padding bytes for
 * the taps outside). With multiplier 1 each tap widens one input word and multiplies its
 * halfwords separately (SMLABB/SMLATT); with a multiple of 4 the four output channels share one
 * input value. Each sum is the same 32-bit wrapping sum as the portable loops'.
 *
 * Stack: the requantization table of a channel block (24 bytes per channel: 1.5 KB by default), the
 * block's biases and sums (4 bytes per channel each), the widened filter (2 bytes per channel and
 * tap: 1152 bytes by default), a block of padding bytes and the taps' pointers and offsets. Frames
 * by default (arm-none-eabi-gcc 12.2 -fstack-usage on the cortex-m4 preset's flags: -Os with the
 * kernels' -O2): utvm_depthwise_conv2d_s8_dsp 3640 bytes (dsp_dw_row inlined), utvm_dsp_requant_row
 * 32: at most 3672 bytes deep.
 */
#include "fast_s8.h"
#include "requant_s8_dsp.h"

#if defined(UTVM_KERNELS_DSP_PATHS)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mac_s8.h"
#include "requant_s8.h"

#if defined(__ARM_FEATURE_DSP) && defined(__GNUC__) && !defined(__clang__)
/* gcc's scheduling before register allocation hoists the loads of the multiply loops and runs
 * out of registers (spills in every iteration); without it the loops keep all in registers. */
#pragma GCC optimize("no-schedule-insns")
#endif

/* The four sums of one output position (channels of one filter word). */
typedef struct {
  int32_t a0;
  int32_t a1;
  int32_t a2;
  int32_t a3;
} dsp_dw_sums_t;

/* One tap of four channels: input word (offset added when widened) by the widened filter pair
 * f_even (channels 0 and 2) and f_odd (channels 1 and 3). */
static inline void dsp_dw_tap(dsp_dw_sums_t *s, int32_t in_word, int32_t offset_pair,
                              int32_t f_even, int32_t f_odd) {
  const int32_t in_even = utvm_dsp_sxtab16(offset_pair, in_word);
  s->a0 = utvm_dsp_smlabb(in_even, f_even, s->a0);
  s->a2 = utvm_dsp_smlatt(in_even, f_even, s->a2);
  const int32_t in_odd = utvm_dsp_sxtab16_ror8(offset_pair, in_word);
  s->a1 = utvm_dsp_smlabb(in_odd, f_odd, s->a1);
  s->a3 = utvm_dsp_smlatt(in_odd, f_odd, s->a3);
}

/* Where the taps of one output position lie for every channel group of a block. */
typedef struct {
  const int8_t *origin;  /* input at the first tap inside, channel 0 of the block */
  int32_t row_step;      /* bytes from one filter row's taps to the next's */
  int32_t x_step;        /* bytes from one tap to the next in a row */
  int32_t first_tap;     /* filter index (y * w + x) of the first tap inside */
  int32_t rows;          /* filter rows inside */
  int32_t taps_x;        /* taps per row inside */
  int32_t filter_w;      /* filter width (taps per filter row) */
} dsp_dw_window_t;

/* Adds start[0..3] to the four sums of a group, wrapping. */
static inline void dsp_dw_add_start(dsp_dw_sums_t *s, const int32_t *start) {
  s->a0 = utvm_wrap_add(s->a0, start[0]);
  s->a1 = utvm_wrap_add(s->a1, start[1]);
  s->a2 = utvm_wrap_add(s->a2, start[2]);
  s->a3 = utvm_wrap_add(s->a3, start[3]);
}

/* Stores the four sums of a group at acc[k..k+3]. */
static inline void dsp_dw_store(int32_t k, const dsp_dw_sums_t *s, int32_t *acc) {
  acc[k] = s->a0;
  acc[k + 1] = s->a1;
  acc[k + 2] = s->a2;
  acc[k + 3] = s->a3;
}

/* Every whole group of a block at one output position whose 3x3 window lies inside the input:
 * groups groups of 4 channels from win->origin, widened filter wide (18 words per group),
 * sums from start[k] to acc[k]. */
static void dsp_dw_groups_3x3(const dsp_dw_window_t *win, const int32_t *wide,
                              int32_t offset_pair, int32_t groups, const int32_t *start,
                              int32_t *acc) {
  const int32_t x_step = win->x_step;
  /* From a filter row's third tap to the next row's first. */
  const int32_t next_row = win->row_step - 2 * x_step;
  const int8_t *src = win->origin;
  const int32_t *f = wide;
  for (int32_t k = 0; k < 4 * groups; k += 4) {
    dsp_dw_sums_t s = {start[k], start[k + 1], start[k + 2], start[k + 3]};
    const int8_t *x = src;
    for (int32_t r = 0; r < 3; ++r) {
      dsp_dw_tap(&s, utvm_dsp_load4(x), offset_pair, f[0], f[1]);
      x = &x[x_step];
      dsp_dw_tap(&s, utvm_dsp_load4(x), offset_pair, f[2], f[3]);
      x = &x[x_step];
      dsp_dw_tap(&s, utvm_dsp_load4(x), offset_pair, f[4], f[5]);
      x = &x[next_row];
      f = &f[6];
    }
    dsp_dw_store(k, &s, acc);
    src = &src[4];
  }
}

/* Every whole group of a block at one output position from its taps' input pointers tap[t]
 * (channel 0 of the block, or padding bytes that are 0 once the offset is added): groups
 * groups of 4 channels, widened filter wide (2 * taps words per group), sums from start[k]
 * to acc[k]. */
static void dsp_dw_groups_taps(const int8_t *const *tap, int32_t taps, const int32_t *wide,
                               int32_t offset_pair, int32_t groups, const int32_t *start,
                               int32_t *acc) {
  const int32_t *f = wide;
  for (int32_t k = 0; k < 4 * groups; k += 4) {
    dsp_dw_sums_t s = {start[k], start[k + 1], start[k + 2], start[k + 3]};
    for (int32_t t = 0; t < taps; ++t) {
      dsp_dw_tap(&s, utvm_dsp_load4(&tap[t][k]), offset_pair, f[0], f[1]);
      f = &f[2];
    }
    dsp_dw_store(k, &s, acc);
  }
}

/* The same with a multiplier that is a multiple of 4: the four output channels of a group
 * share one input channel, byte (first + k) / multiplier - first / multiplier of the taps'
 * pointers for the group at block channel k (first: the block's first output channel). */
static void dsp_dw_groups_taps_shared(const int8_t *const *tap, int32_t taps,
                                      const int32_t *wide, int32_t input_offset,
                                      int32_t multiplier, int32_t first, int32_t groups,
                                      const int32_t *start, int32_t *acc) {
  const int32_t *f = wide;
  const int32_t base = first / multiplier;
  for (int32_t k = 0; k < 4 * groups; k += 4) {
    const int32_t c = (first + k) / multiplier - base;
    dsp_dw_sums_t s = {start[k], start[k + 1], start[k + 2], start[k + 3]};
    for (int32_t t = 0; t < taps; ++t) {
      const int32_t in_pair = utvm_dsp_pair((int32_t)tap[t][c] + input_offset);
      s.a0 = utvm_dsp_smlabb(in_pair, f[0], s.a0);
      s.a2 = utvm_dsp_smlatt(in_pair, f[0], s.a2);
      s.a1 = utvm_dsp_smlabb(in_pair, f[1], s.a1);
      s.a3 = utvm_dsp_smlatt(in_pair, f[1], s.a3);
      f = &f[2];
    }
    dsp_dw_store(k, &s, acc);
  }
}

/* The input pointer of each tap of a window (row by row) at input channel `first` of a
 * position, or pad where the tap falls outside the input. */
static void dsp_dw_tap_pointers(const utvm_depthwise_conv2d_params_t *params,
                                const utvm_dims_t *input_dims, const utvm_window_t *window,
                                const utvm_dims_t *filter_dims, int32_t first, const int8_t *pad,
                                const int8_t **tap) {
  int32_t t = 0;
  for (int32_t filter_y = 0; filter_y < filter_dims->h; ++filter_y) {
    const int32_t in_y = window->in_y_origin + params->dilation_h * filter_y;
    const bool row_inside = (in_y >= 0) && (in_y < input_dims->h);
    for (int32_t filter_x = 0; filter_x < filter_dims->w; ++filter_x) {
      const int32_t in_x = window->in_x_origin + params->dilation_w * filter_x;
      const bool inside = row_inside && (in_x >= 0) && (in_x < input_dims->w);
      tap[t] = inside
                   ? &window->batch_input[(in_y * input_dims->w + in_x) * input_dims->c + first]
                   : pad;
      ++t;
    }
  }
}

/* The sums of the four channels at input byte `channel` with multiplier 1, the filter widened
 * per tap (filters with more taps than the stack buffer holds). */
static dsp_dw_sums_t dsp_dw_group_unbuffered(const dsp_dw_window_t *win, int32_t channel,
                                             const int8_t *filter, int32_t in_c,
                                             int32_t offset_pair) {
  dsp_dw_sums_t s = {0, 0, 0, 0};
  const int8_t *row = &win->origin[channel];
  const int8_t *f_row = &filter[win->first_tap * in_c + channel];
  for (int32_t r = 0; r < win->rows; ++r) {
    for (int32_t n = 0; n < win->taps_x; ++n) {
      const int32_t f_word = utvm_dsp_load4(&f_row[n * in_c]);
      dsp_dw_tap(&s, utvm_dsp_load4(&row[n * win->x_step]), offset_pair,
                 utvm_dsp_sxtb16(f_word), utvm_dsp_sxtb16_ror8(f_word));
    }
    row = &row[win->row_step];
    f_row = &f_row[win->filter_w * in_c];
  }
  return s;
}

/* The window sum of one output channel (any multiplier). */
static int32_t dsp_depthwise_1(const utvm_depthwise_conv2d_params_t *params,
                               const utvm_dims_t *input_dims, const utvm_window_t *window,
                               const utvm_dims_t *filter_dims, const int8_t *filter,
                               int32_t channel) {
  const int32_t in_c = input_dims->c;
  const int32_t out_c = filter_dims->c;
  const int32_t in_channel = channel / params->depth_multiplier;
  int32_t acc = 0;
  for (int32_t filter_y = window->ys[0]; filter_y < window->ys[1]; ++filter_y) {
    const int32_t in_y = window->in_y_origin + params->dilation_h * filter_y;
    for (int32_t filter_x = window->xs[0]; filter_x < window->xs[1]; ++filter_x) {
      const int32_t in_x = window->in_x_origin + params->dilation_w * filter_x;
      const int32_t input_value =
          window->batch_input[(in_y * input_dims->w + in_x) * in_c + in_channel];
      const int32_t filter_value =
          filter[(filter_y * filter_dims->w + filter_x) * out_c + channel];
      acc = utvm_wrap_add(acc, filter_value * (input_value + params->input_offset));
    }
  }
  return acc;
}

/* The window sums of output channels channel..channel+3 with a multiplier that is a multiple
 * of 4: the four output channels share one input channel, whose value goes to both halfwords. */
static dsp_dw_sums_t dsp_depthwise_4_shared(const utvm_depthwise_conv2d_params_t *params,
                                            const utvm_dims_t *input_dims,
                                            const utvm_window_t *window,
                                            const utvm_dims_t *filter_dims, const int8_t *filter,
                                            int32_t channel) {
  const int32_t in_c = input_dims->c;
  const int32_t out_c = filter_dims->c;
  const int32_t in_channel = channel / params->depth_multiplier;
  dsp_dw_sums_t s = {0, 0, 0, 0};
  for (int32_t filter_y = window->ys[0]; filter_y < window->ys[1]; ++filter_y) {
    const int32_t in_y = window->in_y_origin + params->dilation_h * filter_y;
    const int8_t *input_row = &window->batch_input[in_y * input_dims->w * in_c + in_channel];
    const int8_t *filter_row = &filter[filter_y * filter_dims->w * out_c + channel];
    for (int32_t filter_x = window->xs[0]; filter_x < window->xs[1]; ++filter_x) {
      const int32_t in_x = window->in_x_origin + params->dilation_w * filter_x;
      const int32_t in_pair =
          utvm_dsp_pair((int32_t)input_row[in_x * in_c] + params->input_offset);
      const int32_t w_filter = utvm_dsp_load4(&filter_row[filter_x * out_c]);
      const int32_t filter_even = utvm_dsp_sxtb16(w_filter);
      const int32_t filter_odd = utvm_dsp_sxtb16_ror8(w_filter);
      s.a0 = utvm_dsp_smlabb(in_pair, filter_even, s.a0);
      s.a1 = utvm_dsp_smlabb(in_pair, filter_odd, s.a1);
      s.a2 = utvm_dsp_smlatt(in_pair, filter_even, s.a2);
      s.a3 = utvm_dsp_smlatt(in_pair, filter_odd, s.a3);
    }
  }
  return s;
}

/* The block's widened filter: for each group of 4 channels g and tap t, words 2 * (g * taps + t)
 * (channels 0 and 2) and the next (1 and 3); groups whole groups of the block at channel first. */
static void dsp_dw_widen_filter(const int8_t *filter, int32_t out_c, int32_t taps, int32_t first,
                                int32_t groups, int32_t *wide) {
  for (int32_t g = 0; g < groups; ++g) {
    for (int32_t t = 0; t < taps; ++t) {
      const int32_t word = utvm_dsp_load4(&filter[t * out_c + first + 4 * g]);
      wide[2 * (g * taps + t)] = utvm_dsp_sxtb16(word);
      wide[2 * (g * taps + t) + 1] = utvm_dsp_sxtb16_ror8(word);
    }
  }
}

/* One row of output positions of a channel block (count channels from block->first): the row
 * given by window (batch input, y origin and ys set), sums from start (dsp_block_bias), pad: a
 * block of padding bytes, out_row: the row's outputs. */
static void dsp_dw_row(const utvm_depthwise_conv2d_params_t *params,
                       const utvm_dims_t *input_dims, utvm_window_t *window,
                       const utvm_dims_t *filter_dims, const int8_t *filter,
                       const utvm_dims_t *output_dims, const utvm_requant_block_t *block,
                       int32_t count, const int32_t *wide, const int32_t *start,
                       const int8_t *pad, int8_t *out_row) {
  const int32_t first = block->first;
  int32_t acc[UTVM_KERNELS_CHANNEL_BLOCK];
  const int8_t *tap[UTVM_KERNELS_DSP_DW_TAPS];
  const int32_t in_c = input_dims->c;
  const int32_t groups = count / 4;
  const int32_t taps = filter_dims->h * filter_dims->w;
  const int32_t offset_pair = utvm_dsp_pair(params->input_offset);
  const bool buffered = taps <= UTVM_KERNELS_DSP_DW_TAPS;
  const int32_t multiplier = params->depth_multiplier;
  dsp_dw_window_t win;
  win.row_step = params->dilation_h * input_dims->w * in_c;
  win.x_step = params->dilation_w * in_c;
  win.filter_w = filter_dims->w;
  win.rows = window->ys[1] - window->ys[0];
  const bool all_rows = win.rows == filter_dims->h;
  const bool three = (filter_dims->h == 3) && (filter_dims->w == 3);
  /* Byte offsets of the taps from a window's first when the whole window is inside. */
  int32_t tap_offset[UTVM_KERNELS_DSP_DW_TAPS];
  for (int32_t t = 0; (t < taps) && buffered; ++t) {
    tap_offset[t] = (t / filter_dims->w) * win.row_step + (t % filter_dims->w) * win.x_step;
  }
  /* Input columns a window spans (x_step bytes apart). */
  const int32_t span_x = (filter_dims->w - 1) * params->dilation_w + 1;
  for (int32_t out_x = 0; out_x < output_dims->w; ++out_x) {
    window->in_x_origin = out_x * params->stride_w - params->pad_left;
    /* A whole window (the common case) needs no tap bookkeeping. */
    const bool full = all_rows && (window->in_x_origin >= 0) &&
                      (window->in_x_origin <= (input_dims->w - span_x));
    window->xs[0] = 0;
    window->xs[1] = filter_dims->w;
    if (!full || ((count % 4) != 0) || !buffered) {
      utvm_taps_inside(window->in_x_origin, params->dilation_w, filter_dims->w, input_dims->w,
                       &window->xs[0], &window->xs[1]);
    }
    win.taps_x = window->xs[1] - window->xs[0];
    win.first_tap = window->ys[0] * filter_dims->w + window->xs[0];
    int8_t *out = &out_row[out_x * output_dims->c + first];
    const bool empty = (win.rows == 0) || (win.taps_x == 0);
    if (buffered && full && three && (multiplier == 1)) {
      const int32_t in_y = window->in_y_origin;
      const int32_t in_x = window->in_x_origin;
      win.origin = &window->batch_input[(in_y * input_dims->w + in_x) * in_c + first];
      dsp_dw_groups_3x3(&win, wide, offset_pair, groups, start, acc);
    } else if (buffered) {
      if (full) {
        const int8_t *origin =
            &window->batch_input[(window->in_y_origin * input_dims->w + window->in_x_origin) *
                                     in_c +
                                 first / multiplier];
        for (int32_t t = 0; t < taps; ++t) {
          tap[t] = &origin[tap_offset[t]];
        }
      } else {
        dsp_dw_tap_pointers(params, input_dims, window, filter_dims, first / multiplier, pad,
                            tap);
      }
      if (multiplier == 1) {
        dsp_dw_groups_taps(tap, taps, wide, offset_pair, groups, start, acc);
      } else {
        dsp_dw_groups_taps_shared(tap, taps, wide, params->input_offset, multiplier, first,
                                  groups, start, acc);
      }
    } else if (!empty && (multiplier == 1)) {
      const int32_t in_y = window->in_y_origin + params->dilation_h * window->ys[0];
      const int32_t in_x = window->in_x_origin + params->dilation_w * window->xs[0];
      win.origin = &window->batch_input[(in_y * input_dims->w + in_x) * in_c + first];
      for (int32_t g = 0; g < groups; ++g) {
        dsp_dw_sums_t s = dsp_dw_group_unbuffered(&win, 4 * g, &filter[first], in_c, offset_pair);
        dsp_dw_add_start(&s, &start[4 * g]);
        dsp_dw_store(4 * g, &s, acc);
      }
    } else {
      for (int32_t g = 0; g < groups; ++g) {
        dsp_dw_sums_t s = {0, 0, 0, 0};
        if (!empty) {
          s = dsp_depthwise_4_shared(params, input_dims, window, filter_dims, filter,
                                     first + 4 * g);
        }
        dsp_dw_add_start(&s, &start[4 * g]);
        dsp_dw_store(4 * g, &s, acc);
      }
    }
    for (int32_t k = 4 * groups; k < count; ++k) {
      acc[k] = utvm_wrap_add(
          start[k], dsp_depthwise_1(params, input_dims, window, filter_dims, filter, first + k));
    }
    utvm_dsp_requant_row(block, acc, count, out);
  }
}

bool utvm_depthwise_conv2d_s8_dsp_applies(int32_t depth_multiplier) {
  return depth_multiplier == 1 || depth_multiplier % 4 == 0;
}

void utvm_depthwise_conv2d_s8_dsp(const utvm_depthwise_conv2d_params_t *params,
                                  const utvm_per_channel_quant_t *quant,
                                  const utvm_dims_t *input_dims, const int8_t *input,
                                  const utvm_dims_t *filter_dims, const int8_t *filter,
                                  const int32_t *bias, const utvm_dims_t *output_dims,
                                  int8_t *output) {
  const int32_t out_c = output_dims->c;
  const int32_t taps = filter_dims->h * filter_dims->w;
  const bool buffered = taps <= UTVM_KERNELS_DSP_DW_TAPS;
  const int32_t out_row_bytes = output_dims->w * out_c;
  utvm_requant_block_t block;
  int32_t wide[2 * UTVM_KERNELS_DSP_DW_TAPS * (UTVM_KERNELS_CHANNEL_BLOCK / 4)];
  int32_t bias_block[UTVM_KERNELS_CHANNEL_BLOCK];
  /* Padding: the input byte that is 0 once the offset (-127..128) is added. */
  int8_t pad[UTVM_KERNELS_CHANNEL_BLOCK];
  (void)memset(pad, (int)(uint8_t)(int8_t)(-params->input_offset), sizeof pad);
  for (int32_t first = 0; first < out_c; first += UTVM_KERNELS_CHANNEL_BLOCK) {
    const int32_t count = dsp_block_count(first, out_c);
    utvm_requant_block_fill(&block, quant, bias, params->output_offset, params->act_min,
                            params->act_max, first, count);
    dsp_block_bias(&block, count, bias_block);
    if (buffered) {
      dsp_dw_widen_filter(filter, out_c, taps, first, count / 4, wide);
    }
    int8_t *out_row = output;
    for (int32_t batch = 0; batch < output_dims->n; ++batch) {
      utvm_window_t window;
      window.batch_input = &input[batch * input_dims->h * input_dims->w * input_dims->c];
      for (int32_t out_y = 0; out_y < output_dims->h; ++out_y) {
        window.in_y_origin = out_y * params->stride_h - params->pad_top;
        utvm_taps_inside(window.in_y_origin, params->dilation_h, filter_dims->h, input_dims->h,
                         &window.ys[0], &window.ys[1]);
        dsp_dw_row(params, input_dims, &window, filter_dims, filter, output_dims, &block,
                   count, wide, bias_block, pad, out_row);
        out_row = &out_row[out_row_bytes];
      }
    }
  }
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without the DSP. */
typedef int utvm_kernels_no_dsp_depthwise_conv2d_t;
#endif

/*
 * CONV_2D in blocked portable C: utvm_conv2d_s8_blocked (see fast_s8.h, blocked_s8.h).
 * utvm_conv2d_s8 takes it for a convolution that is not grouped (input channels = filter
 * channels) on cores without the DSP extension (Cortex-M0/M0+/M3, hosts), and on cores with it
 * when the call brings no scratch; the DSP path hands its call here when the scratch is not
 * word-aligned. Cores with MVE never take it.
 * Four output channels share each input value (one load and one offset addition for four
 * multiply-accumulates), and the filter taps that fall inside the input are found once per
 * output position instead of tested per tap. Positions whose windows lie wholly inside the input
 * go in pairs, two channels at a time, with the input offset folded into each channel's filter
 * sum: sum w * (x + io) = sum w * x + io * sum w.
 *
 * Stack: the requantization table of a channel block (24 bytes per channel: 1.5 KB by default) and
 * the block's offset terms (4 bytes per channel). Frames by default (arm-none-eabi-gcc 12.2
 * -fstack-usage on the cortex-m3 preset's flags: -Os with the kernels' -O2): utvm_conv2d_s8_blocked
 * 2048 bytes, conv_position 176, conv_interior_pair_block_fast 120 (_general 112), conv_window_1
 * 80, dot_2x2 32: at most 2304 bytes deep (cortex-m4 2048 + 184 + 80 = 2312; cortex-m55, which
 * links it only for tests, 2064 + 184 + 80 = 2328).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blocked_s8.h"
#include "fast_s8.h"
#include "mac_s8.h"
#include "requant_s8.h"

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

/* Where the taps of a window that lies wholly inside the input are, relative to its first
 * tap: runs (rows of taps, or single taps with dilation) of run contiguous values each,
 * input_step and filter_step values apart. */
typedef struct {
  int32_t rows;
  int32_t run;
  int32_t runs_per_row;
  int32_t input_row_step;
  int32_t input_tap_step;
} conv_runs_t;

/* sums[0..3] += w0.a, w0.b, w1.a, w1.b over run values (no offsets): the multiply loop, a
 * function of its own so that its pointers and sums stay in registers; in Thumb-2, four values
 * per iteration, where UTVM_KERNELS_BLOCKED_ASM (conv2d_s8_blocked_asm.S). */
#if defined(UTVM_KERNELS_BLOCKED_ASM)
void utvm_blocked_dot_2x2(const int8_t *a, const int8_t *b, const int8_t *w0, const int8_t *w1,
                          int32_t run, uint32_t sums[4]);

static inline void dot_2x2(const int8_t *a, const int8_t *b, const int8_t *w0, const int8_t *w1,
                           int32_t run, uint32_t sums[4]) {
  utvm_blocked_dot_2x2(a, b, w0, w1, run, sums);
}
#else
static BLOCKED_NOINLINE void dot_2x2(const int8_t *a, const int8_t *b, const int8_t *w0,
                                     const int8_t *w1, int32_t run, uint32_t sums[4]) {
  uint32_t s00 = sums[0];
  uint32_t s01 = sums[1];
  uint32_t s10 = sums[2];
  uint32_t s11 = sums[3];
  const int8_t *const a_end = &a[run];
  while (a != a_end) {
    const int32_t va = *a;
    const int32_t vb = *b;
    const int32_t u = *w0;
    const int32_t v = *w1;
    s00 += (uint32_t)(u * va);
    s01 += (uint32_t)(u * vb);
    s10 += (uint32_t)(v * va);
    s11 += (uint32_t)(v * vb);
    a = &a[1];
    b = &b[1];
    w0 = &w0[1];
    w1 = &w1[1];
  }
  sums[0] = s00;
  sums[1] = s01;
  sums[2] = s10;
  sums[3] = s11;
}
#endif

/* The sums of w * x (no input offset) of filters f0 and f1 over two interior windows whose first
 * taps are at x0 and x1: sums[0] f0.x0, [1] f0.x1, [2] f1.x0, [3] f1.x1. */
static inline void conv_interior_2x2(const conv_runs_t *g, const int8_t *x0, const int8_t *x1,
                                     const int8_t *f0, const int8_t *f1, uint32_t sums[4]) {
  sums[0] = 0u;
  sums[1] = 0u;
  sums[2] = 0u;
  sums[3] = 0u;
  int32_t filter_at = 0;
  for (int32_t row = 0; row < g->rows; ++row) {
    for (int32_t n = 0; n < g->runs_per_row; ++n) {
      const int32_t input_at = row * g->input_row_step + n * g->input_tap_step;
      dot_2x2(&x0[input_at], &x1[input_at], &f0[filter_at], &f1[filter_at], g->run, sums);
      filter_at += g->run;
    }
  }
}

/* Channels first..first+count-1 of block (filters from f, filter_size values each) at two
 * positions whose windows lie wholly inside the input (first taps x0, x1; outputs out0, out1),
 * two channels at a time; offset_term[k] is input_offset times the sum of channel k's filter.
 * An odd last channel is left to the caller. */
static inline void conv_interior_pair_block_as(const conv_runs_t *g, const int8_t *x0,
                                               const int8_t *x1, const int8_t *f,
                                               int32_t filter_size,
                                               const utvm_requant_block_t *block, bool fast,
                                               const uint32_t *offset_term, int32_t count,
                                               int8_t *out0, int8_t *out1) {
  for (int32_t k = 0; (k + 2) <= count; k += 2) {
    uint32_t sums[4];
    const int8_t *f0 = &f[k * filter_size];
    conv_interior_2x2(g, x0, x1, f0, &f0[filter_size], sums);
    out0[k] = utvm_requant_output_known(block, fast, k, (int32_t)(sums[0] + offset_term[k]));
    out1[k] = utvm_requant_output_known(block, fast, k, (int32_t)(sums[1] + offset_term[k]));
    out0[k + 1] =
        utvm_requant_output_known(block, fast, k + 1, (int32_t)(sums[2] + offset_term[k + 1]));
    out1[k + 1] =
        utvm_requant_output_known(block, fast, k + 1, (int32_t)(sums[3] + offset_term[k + 1]));
  }
}

/* conv_interior_pair_block_as for a fast block and for one that is not, each a function of
 * its own (one copy of the loop per register allocation). */
static BLOCKED_NOINLINE void conv_interior_pair_block_fast(
    const conv_runs_t *g, const int8_t *x0, const int8_t *x1, const int8_t *f,
    int32_t filter_size, const utvm_requant_block_t *block, const uint32_t *offset_term,
    int32_t count, int8_t *out0, int8_t *out1) {
  conv_interior_pair_block_as(g, x0, x1, f, filter_size, block, true, offset_term, count, out0,
                              out1);
}

static BLOCKED_NOINLINE void conv_interior_pair_block_general(
    const conv_runs_t *g, const int8_t *x0, const int8_t *x1, const int8_t *f,
    int32_t filter_size, const utvm_requant_block_t *block, const uint32_t *offset_term,
    int32_t count, int8_t *out0, int8_t *out1) {
  conv_interior_pair_block_as(g, x0, x1, f, filter_size, block, false, offset_term, count, out0,
                              out1);
}

/* One output position of the channels of block (window: its taps inside the input), four
 * channels per input load, the input offset added per value. */
static void conv_position(const utvm_conv2d_params_t *params, const utvm_dims_t *input_dims,
                          const utvm_window_t *window, const utvm_dims_t *filter_dims,
                          const int8_t *filter, const utvm_requant_block_t *block,
                          int32_t count, int8_t *out) {
  const int32_t filter_size = filter_dims->h * filter_dims->w * filter_dims->c;
  const int8_t *f = &filter[block->first * filter_size];
  int32_t k = 0;
  for (; (k + 4) <= count; k += 4) {
    blocked_sums_t sums;
    conv_window_4(params, input_dims, window, filter_dims, &f[k * filter_size], filter_size,
                  &sums);
    for (int32_t j = 0; j < 4; ++j) {
      out[k + j] = utvm_requant_output(block, k + j, (int32_t)sums.a[j]);
    }
  }
  for (; k < count; ++k) {
    const uint32_t acc =
        conv_window_1(params, input_dims, window, filter_dims, &f[k * filter_size]);
    out[k] = utvm_requant_output(block, k, (int32_t)acc);
  }
}

/* Where an output position's window starts, whether it lies wholly inside the input, and
 * where its outputs go. */
typedef struct {
  utvm_window_t window;
  bool interior;
  int8_t *out;
} conv_position_t;

/* Two positions whose windows lie wholly inside the input, two channels at a time:
 * offset_term[k] is input_offset times the sum of channel first + k's filter. */
static void conv_interior_pair(const utvm_conv2d_params_t *params, const utvm_dims_t *input_dims,
                               conv_position_t *p0, conv_position_t *p1,
                               const utvm_dims_t *filter_dims, const int8_t *filter,
                               const utvm_requant_block_t *block, const uint32_t *offset_term,
                               int32_t count) {
  const int32_t in_c = input_dims->c;
  const int32_t filter_size = filter_dims->h * filter_dims->w * filter_dims->c;
  const int8_t *f = &filter[block->first * filter_size];
  const int8_t *x0 = &p0->window.batch_input[(p0->window.in_y_origin * input_dims->w +
                                              p0->window.in_x_origin) * in_c];
  const int8_t *x1 = &p1->window.batch_input[(p1->window.in_y_origin * input_dims->w +
                                              p1->window.in_x_origin) * in_c];
  /* Without dilation a row of taps is one contiguous run in the input and in the filter. */
  const bool rows = params->dilation_w == 1;
  conv_runs_t g;
  g.rows = filter_dims->h;
  g.runs_per_row = rows ? 1 : filter_dims->w;
  g.run = rows ? filter_dims->w * in_c : in_c;
  g.input_row_step = params->dilation_h * input_dims->w * in_c;
  g.input_tap_step = params->dilation_w * in_c;
  if (block->fast) {
    conv_interior_pair_block_fast(&g, x0, x1, f, filter_size, block, offset_term, count,
                                  p0->out, p1->out);
  } else {
    conv_interior_pair_block_general(&g, x0, x1, f, filter_size, block, offset_term, count,
                                     p0->out, p1->out);
  }
  if ((count % 2) != 0) {
    const int32_t k = count - 1;
    const int8_t *f0 = &f[k * filter_size];
    p0->out[k] = utvm_requant_output(
        block, k, (int32_t)conv_window_1(params, input_dims, &p0->window, filter_dims, f0));
    p1->out[k] = utvm_requant_output(
        block, k, (int32_t)conv_window_1(params, input_dims, &p1->window, filter_dims, f0));
  }
}

void utvm_conv2d_s8_blocked(const utvm_conv2d_params_t *params,
                            const utvm_per_channel_quant_t *quant, const utvm_dims_t *input_dims,
                            const int8_t *input, const utvm_dims_t *filter_dims,
                            const int8_t *filter, const int32_t *bias,
                            const utvm_dims_t *output_dims, int8_t *output) {
  const int32_t out_c = output_dims->c;
  const int32_t filter_size = filter_dims->h * filter_dims->w * filter_dims->c;
  utvm_requant_block_t block;
  uint32_t offset_term[UTVM_KERNELS_CHANNEL_BLOCK];
  for (int32_t first = 0; first < out_c; first += UTVM_KERNELS_CHANNEL_BLOCK) {
    const int32_t count = utvm_min_s32(UTVM_KERNELS_CHANNEL_BLOCK, out_c - first);
    utvm_requant_block_fill(&block, quant, bias, params->output_offset, params->act_min,
                            params->act_max, first, count);
    for (int32_t k = 0; k < count; ++k) {
      const int32_t sum = blocked_sum_s8(&filter[(first + k) * filter_size], filter_size);
      offset_term[k] = (uint32_t)sum * (uint32_t)params->input_offset;
    }
    /* Positions in raster order; interior ones in pairs (the odd one out alone). */
    conv_position_t pending;
    bool has_pending = false;
    int8_t *out = &output[first];
    for (int32_t batch = 0; batch < output_dims->n; ++batch) {
      conv_position_t p;
      p.window.batch_input = &input[batch * input_dims->h * input_dims->w * input_dims->c];
      for (int32_t out_y = 0; out_y < output_dims->h; ++out_y) {
        p.window.in_y_origin = out_y * params->stride_h - params->pad_top;
        utvm_taps_inside(p.window.in_y_origin, params->dilation_h, filter_dims->h,
                         input_dims->h, &p.window.ys[0], &p.window.ys[1]);
        for (int32_t out_x = 0; out_x < output_dims->w; ++out_x) {
          p.window.in_x_origin = out_x * params->stride_w - params->pad_left;
          utvm_taps_inside(p.window.in_x_origin, params->dilation_w, filter_dims->w,
                           input_dims->w, &p.window.xs[0], &p.window.xs[1]);
          p.interior = (p.window.ys[0] == 0) && (p.window.ys[1] == filter_dims->h) &&
                       (p.window.xs[0] == 0) && (p.window.xs[1] == filter_dims->w);
          p.out = out;
          if (!p.interior) {
            conv_position(params, input_dims, &p.window, filter_dims, filter, &block, count,
                          out);
          } else if (has_pending) {
            conv_interior_pair(params, input_dims, &pending, &p, filter_dims, filter, &block,
                               offset_term, count);
            has_pending = false;
          } else {
            pending = p;
            has_pending = true;
          }
          out = &out[out_c];
        }
      }
    }
    if (has_pending) {
      conv_position(params, input_dims, &pending.window, filter_dims, filter, &block, count,
                    pending.out);
    }
  }
}

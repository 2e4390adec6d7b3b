/*
 * DSP fast paths of CONV_2D, FULLY_CONNECTED and DEPTHWISE_CONV_2D (see fast_s8.h).
 * CONV_2D is im2col + a matrix multiply blocked two weight rows (output channels) by two
 * columns (output positions): each column holds the window's input values widened to int16
 * with the input offset added, stored so that one step of the inner loop loads 4 int8 weights
 * per row as one word, splits it into even and odd halfword pairs (SXTB16) and accumulates
 * 16 products with 8 SMLAD. FULLY_CONNECTED has no reuse to pay for a column: its multiply
 * widens both operands in the loop (SXTAB16 adds the offsets). Each sum is the same 32-bit
 * wrapping sum as the portable loops', so after the shared requantization (utvm_mac_output_s8)
 * the bytes are identical. Depthwise (multiplier 1 or a multiple of 4) takes four output
 * channels per filter word and multiplies their halfwords separately (SMLABB/SMLATT) over the
 * taps inside the input, found once per output position instead of tested per tap.
 */
#include "fast_s8.h"

#if defined(UTVM_KERNELS_DSP_PATHS)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mac_s8.h"

/* The output side of one multiply: requantization and where the values go. */
typedef struct {
  const utvm_per_channel_quant_t *quant;
  const int32_t *bias;
  int32_t output_offset;
  int32_t act_min;
  int32_t act_max;
} dsp_requant_t;

/* The four sums of rows r0, r1 (offset row_offset) with columns c0, c1 (offset col_offset)
 * over length values, wrapping: sums[0] r0.c0, [1] r0.c1, [2] r1.c0, [3] r1.c1. */
static void dsp_dot_2x2(const int8_t *r0, const int8_t *r1, int32_t row_offset, const int8_t *c0,
                        const int8_t *c1, int32_t col_offset, int32_t length, int32_t sums[4]) {
  const int32_t row_pair = utvm_dsp_pair(row_offset);
  const int32_t col_pair = utvm_dsp_pair(col_offset);
  int32_t s00 = 0;
  int32_t s01 = 0;
  int32_t s10 = 0;
  int32_t s11 = 0;
  const int32_t blocks = length / 4;
  for (int32_t b = 0; b < blocks; ++b) {
    const int32_t i = 4 * b;
    const int32_t wr0 = utvm_dsp_load4(&r0[i]);
    const int32_t wr1 = utvm_dsp_load4(&r1[i]);
    const int32_t wc0 = utvm_dsp_load4(&c0[i]);
    const int32_t wc1 = utvm_dsp_load4(&c1[i]);
    const int32_t r0_even = utvm_dsp_sxtab16(row_pair, wr0);
    const int32_t r0_odd = utvm_dsp_sxtab16(row_pair, utvm_dsp_ror8(wr0));
    const int32_t r1_even = utvm_dsp_sxtab16(row_pair, wr1);
    const int32_t r1_odd = utvm_dsp_sxtab16(row_pair, utvm_dsp_ror8(wr1));
    const int32_t c0_even = utvm_dsp_sxtab16(col_pair, wc0);
    const int32_t c0_odd = utvm_dsp_sxtab16(col_pair, utvm_dsp_ror8(wc0));
    const int32_t c1_even = utvm_dsp_sxtab16(col_pair, wc1);
    const int32_t c1_odd = utvm_dsp_sxtab16(col_pair, utvm_dsp_ror8(wc1));
    s00 = utvm_dsp_smlad(r0_even, c0_even, s00);
    s00 = utvm_dsp_smlad(r0_odd, c0_odd, s00);
    s01 = utvm_dsp_smlad(r0_even, c1_even, s01);
    s01 = utvm_dsp_smlad(r0_odd, c1_odd, s01);
    s10 = utvm_dsp_smlad(r1_even, c0_even, s10);
    s10 = utvm_dsp_smlad(r1_odd, c0_odd, s10);
    s11 = utvm_dsp_smlad(r1_even, c1_even, s11);
    s11 = utvm_dsp_smlad(r1_odd, c1_odd, s11);
  }
  for (int32_t i = 4 * blocks; i < length; ++i) {
    const int32_t v0 = (int32_t)r0[i] + row_offset;
    const int32_t v1 = (int32_t)r1[i] + row_offset;
    const int32_t x0 = (int32_t)c0[i] + col_offset;
    const int32_t x1 = (int32_t)c1[i] + col_offset;
    s00 = utvm_wrap_add(s00, v0 * x0);
    s01 = utvm_wrap_add(s01, v0 * x1);
    s10 = utvm_wrap_add(s10, v1 * x0);
    s11 = utvm_wrap_add(s11, v1 * x1);
  }
  sums[0] = s00;
  sums[1] = s01;
  sums[2] = s10;
  sums[3] = s11;
}

/* Output channels ch and (if < rows) ch + 1 of one or two columns from a 2x2 block's sums:
 * out0 from sums[0] and sums[2], out1 (unless NULL) from sums[1] and sums[3]. */
static void dsp_store_outputs(const dsp_requant_t *rq, int32_t ch, int32_t rows,
                              const int32_t sums[4], int8_t *out0, int8_t *out1) {
  out0[ch] = utvm_mac_output_s8(sums[0], rq->bias, rq->quant, ch, rq->output_offset, rq->act_min,
                                rq->act_max);
  if (out1 != NULL) {
    out1[ch] = utvm_mac_output_s8(sums[1], rq->bias, rq->quant, ch, rq->output_offset,
                                  rq->act_min, rq->act_max);
  }
  if ((ch + 1) < rows) {
    out0[ch + 1] = utvm_mac_output_s8(sums[2], rq->bias, rq->quant, ch + 1, rq->output_offset,
                                      rq->act_min, rq->act_max);
    if (out1 != NULL) {
      out1[ch + 1] = utvm_mac_output_s8(sums[3], rq->bias, rq->quant, ch + 1,
                                        rq->output_offset, rq->act_min, rq->act_max);
    }
  }
}

/* Every output channel of one or two columns: out0[ch] from c0 and, unless out1 is NULL,
 * out1[ch] from c1. rows weight rows of length values each, contiguous from weights. */
static void dsp_multiply_columns(const int8_t *weights, int32_t weight_offset, int32_t rows,
                                 const int8_t *c0, const int8_t *c1, int32_t col_offset,
                                 int32_t length, const dsp_requant_t *rq, int8_t *out0,
                                 int8_t *out1) {
  const int8_t *second_column = (out1 != NULL) ? c1 : c0;
  for (int32_t ch = 0; ch < rows; ch += 2) {
    const int8_t *r0 = &weights[ch * length];
    const int8_t *r1 = ((ch + 1) < rows) ? &r0[length] : r0;
    int32_t sums[4];
    dsp_dot_2x2(r0, r1, weight_offset, c0, second_column, col_offset, length, sums);
    dsp_store_outputs(rq, ch, rows, sums, out0, out1);
  }
}

/* Byte offset of value k of column (0 or 1) in a pair of int16 columns of length values each.
 * Each whole group of 4 values takes 16 bytes: column 0's values 0 and 2 as one word, its
 * values 1 and 3 as the next (matching SXTB16 of a weight word and of it rotated by 8), then
 * column 1's the same way; the last length % 4 values follow, the two columns alternating. */
static int32_t dsp_column_slot(int32_t k, int32_t column, int32_t length) {
  const int32_t whole = length - length % 4;
  int32_t offset;
  if (k < whole) {
    const int32_t j = k % 4;
    const int32_t half = (j == 1) ? 2 : ((j == 2) ? 1 : j);
    offset = 4 * (k - j) + 8 * column + 2 * half;
  } else {
    offset = 4 * whole + 4 * (k - whole) + 2 * column;
  }
  return offset;
}

/* The im2col column of output position `position` as int16 values with the input offset added
 * (0 for padding), stored as column `column` of the pair in buffer (dsp_column_slot). */
static void dsp_conv_column(const utvm_conv2d_params_t *params, const utvm_dims_t *input_dims,
                            const int8_t *input, const utvm_dims_t *filter_dims, int32_t position,
                            const utvm_dims_t *output_dims, int32_t column, int8_t *buffer) {
  const int32_t in_c = input_dims->c;
  const int32_t length = filter_dims->h * filter_dims->w * in_c;
  const int32_t plane = output_dims->h * output_dims->w;
  const int32_t out_y = (position % plane) / output_dims->w;
  const int32_t out_x = position % output_dims->w;
  const int32_t in_y_origin = out_y * params->stride_h - params->pad_top;
  const int32_t in_x_origin = out_x * params->stride_w - params->pad_left;
  const int8_t *batch_input = &input[(position / plane) * input_dims->h * input_dims->w * in_c];
  const int32_t offset_pair = utvm_dsp_pair(params->input_offset);
  const bool by_words = (in_c % 4) == 0;
  int32_t k = 0;
  for (int32_t filter_y = 0; filter_y < filter_dims->h; ++filter_y) {
    const int32_t in_y = in_y_origin + params->dilation_h * filter_y;
    for (int32_t filter_x = 0; filter_x < filter_dims->w; ++filter_x) {
      const int32_t in_x = in_x_origin + params->dilation_w * filter_x;
      const bool inside = in_y >= 0 && in_y < input_dims->h && in_x >= 0 && in_x < input_dims->w;
      const int8_t *src = inside ? &batch_input[(in_y * input_dims->w + in_x) * in_c] : NULL;
      if (by_words) {
        for (int32_t c = 0; c < in_c; c += 4) {
          int32_t even = 0;
          int32_t odd = 0;
          if (src != NULL) {
            const int32_t word = utvm_dsp_load4(&src[c]);
            even = utvm_dsp_sxtab16(offset_pair, word);
            odd = utvm_dsp_sxtab16(offset_pair, utvm_dsp_ror8(word));
          }
          int8_t *group = &buffer[4 * (k + c) + 8 * column];
          utvm_dsp_store4(group, even);
          utvm_dsp_store4(&group[4], odd);
        }
      } else {
        for (int32_t c = 0; c < in_c; ++c) {
          const int32_t value = (src != NULL) ? ((int32_t)src[c] + params->input_offset) : 0;
          utvm_dsp_store2(&buffer[dsp_column_slot(k + c, column, length)], value);
        }
      }
      k += in_c;
    }
  }
}

/* The four sums of weight rows r0, r1 with a pair of int16 columns (dsp_column_slot's layout)
 * over length values, wrapping: sums[0] r0.c0, [1] r0.c1, [2] r1.c0, [3] r1.c1. */
static void dsp_dot_2x2_s16(const int8_t *r0, const int8_t *r1, const int8_t *columns,
                            int32_t length, int32_t sums[4]) {
  int32_t s00 = 0;
  int32_t s01 = 0;
  int32_t s10 = 0;
  int32_t s11 = 0;
  const int32_t blocks = length / 4;
  const int8_t *w0 = r0;
  const int8_t *w1 = r1;
  const int8_t *col = columns;
  const int8_t *const col_end = &columns[16 * blocks];
  while (col != col_end) {
    const int32_t wr0 = utvm_dsp_load4(w0);
    const int32_t wr1 = utvm_dsp_load4(w1);
    const int32_t r0_even = utvm_dsp_sxtb16(wr0);
    const int32_t r0_odd = utvm_dsp_sxtb16(utvm_dsp_ror8(wr0));
    const int32_t r1_even = utvm_dsp_sxtb16(wr1);
    const int32_t r1_odd = utvm_dsp_sxtb16(utvm_dsp_ror8(wr1));
    const int32_t c0_even = utvm_dsp_load4(col);
    const int32_t c0_odd = utvm_dsp_load4(&col[4]);
    s00 = utvm_dsp_smlad(r0_even, c0_even, s00);
    s00 = utvm_dsp_smlad(r0_odd, c0_odd, s00);
    s10 = utvm_dsp_smlad(r1_even, c0_even, s10);
    s10 = utvm_dsp_smlad(r1_odd, c0_odd, s10);
    const int32_t c1_even = utvm_dsp_load4(&col[8]);
    const int32_t c1_odd = utvm_dsp_load4(&col[12]);
    s01 = utvm_dsp_smlad(r0_even, c1_even, s01);
    s01 = utvm_dsp_smlad(r0_odd, c1_odd, s01);
    s11 = utvm_dsp_smlad(r1_even, c1_even, s11);
    s11 = utvm_dsp_smlad(r1_odd, c1_odd, s11);
    w0 = &w0[4];
    w1 = &w1[4];
    col = &col[16];
  }
  for (int32_t i = 4 * blocks; i < length; ++i) {
    const int32_t v0 = r0[i];
    const int32_t v1 = r1[i];
    const int32_t x0 = utvm_dsp_load2(col);
    const int32_t x1 = utvm_dsp_load2(&col[2]);
    s00 = utvm_wrap_add(s00, v0 * x0);
    s01 = utvm_wrap_add(s01, v0 * x1);
    s10 = utvm_wrap_add(s10, v1 * x0);
    s11 = utvm_wrap_add(s11, v1 * x1);
    col = &col[4];
  }
  sums[0] = s00;
  sums[1] = s01;
  sums[2] = s10;
  sums[3] = s11;
}

void utvm_conv2d_s8_dsp(const utvm_conv2d_params_t *params, const utvm_per_channel_quant_t *quant,
                        const utvm_dims_t *input_dims, const int8_t *input,
                        const utvm_dims_t *filter_dims, const int8_t *filter,
                        const int32_t *bias, const utvm_dims_t *output_dims, int8_t *output,
                        int8_t *scratch) {
  const dsp_requant_t rq = {quant, bias, params->output_offset, params->act_min, params->act_max};
  const int32_t length = filter_dims->h * filter_dims->w * filter_dims->c;
  const int32_t out_c = output_dims->c;
  const int32_t positions = output_dims->n * output_dims->h * output_dims->w;
  for (int32_t p = 0; p < positions; p += 2) {
    int8_t *out1 = NULL;
    dsp_conv_column(params, input_dims, input, filter_dims, p, output_dims, 0, scratch);
    if ((p + 1) < positions) {
      dsp_conv_column(params, input_dims, input, filter_dims, p + 1, output_dims, 1, scratch);
      out1 = &output[(p + 1) * out_c];
    } else {
      dsp_conv_column(params, input_dims, input, filter_dims, p, output_dims, 1, scratch);
    }
    for (int32_t ch = 0; ch < out_c; ch += 2) {
      const int8_t *r0 = &filter[ch * length];
      const int8_t *r1 = ((ch + 1) < out_c) ? &r0[length] : r0;
      int32_t sums[4];
      dsp_dot_2x2_s16(r0, r1, scratch, length, sums);
      dsp_store_outputs(&rq, ch, out_c, sums, &output[p * out_c], out1);
    }
  }
}

void utvm_fully_connected_s8_dsp(const utvm_fully_connected_params_t *params,
                                 const utvm_per_channel_quant_t *quant, int32_t batches,
                                 int32_t input_depth, int32_t output_depth, const int8_t *input,
                                 const int8_t *filter, const int32_t *bias, int8_t *output) {
  const dsp_requant_t rq = {quant, bias, params->output_offset, params->act_min, params->act_max};
  for (int32_t batch = 0; batch < batches; batch += 2) {
    const int8_t *c0 = &input[batch * input_depth];
    const int8_t *c1 = c0;
    int8_t *out1 = NULL;
    if ((batch + 1) < batches) {
      c1 = &c0[input_depth];
      out1 = &output[(batch + 1) * output_depth];
    }
    dsp_multiply_columns(filter, params->filter_offset, output_depth, c0, c1,
                         params->input_offset, input_depth, &rq, &output[batch * output_depth],
                         out1);
  }
}

/* The window sums of output channels channel..channel+3 (sums[0..3]) with multiplier 1: their
 * input channels are the same four, one word per tap. */
static void dsp_depthwise_4(const utvm_depthwise_conv2d_params_t *params,
                            const utvm_dims_t *input_dims, const utvm_window_t *window,
                            const utvm_dims_t *filter_dims, const int8_t *filter,
                            int32_t channel, int32_t sums[4]) {
  const int32_t in_c = input_dims->c;
  const int32_t offset_pair = utvm_dsp_pair(params->input_offset);
  int32_t a0 = 0;
  int32_t a1 = 0;
  int32_t a2 = 0;
  int32_t a3 = 0;
  const int32_t taps_x = window->xs[1] - window->xs[0];
  const int32_t x_step = params->dilation_w * in_c;
  const int32_t in_x = window->in_x_origin + params->dilation_w * window->xs[0];
  for (int32_t filter_y = window->ys[0]; (filter_y < window->ys[1]) && (taps_x > 0); ++filter_y) {
    const int32_t in_y = window->in_y_origin + params->dilation_h * filter_y;
    /* The row's first tap inside; the others x_step and in_c bytes further on. */
    const int8_t *x = &window->batch_input[(in_y * input_dims->w + in_x) * in_c + channel];
    const int8_t *w = &filter[(filter_y * filter_dims->w + window->xs[0]) * in_c + channel];
    for (int32_t n = 0; n < taps_x; ++n) {
      const int32_t w_in = utvm_dsp_load4(&x[n * x_step]);
      const int32_t w_filter = utvm_dsp_load4(&w[n * in_c]);
      const int32_t in_even = utvm_dsp_sxtab16(offset_pair, w_in);
      const int32_t in_odd = utvm_dsp_sxtab16(offset_pair, utvm_dsp_ror8(w_in));
      const int32_t filter_even = utvm_dsp_sxtab16(0, w_filter);
      const int32_t filter_odd = utvm_dsp_sxtab16(0, utvm_dsp_ror8(w_filter));
      a0 = utvm_dsp_smlabb(in_even, filter_even, a0);
      a1 = utvm_dsp_smlabb(in_odd, filter_odd, a1);
      a2 = utvm_dsp_smlatt(in_even, filter_even, a2);
      a3 = utvm_dsp_smlatt(in_odd, filter_odd, a3);
    }
  }
  sums[0] = a0;
  sums[1] = a1;
  sums[2] = a2;
  sums[3] = a3;
}

/* The same with a multiplier that is a multiple of 4: the four output channels share one input
 * channel, whose value goes to both halfwords. */
static void dsp_depthwise_4_shared(const utvm_depthwise_conv2d_params_t *params,
                                   const utvm_dims_t *input_dims, const utvm_window_t *window,
                                   const utvm_dims_t *filter_dims, const int8_t *filter,
                                   int32_t channel, int32_t sums[4]) {
  const int32_t in_c = input_dims->c;
  const int32_t out_c = filter_dims->c;
  const int32_t in_channel = channel / params->depth_multiplier;
  int32_t a0 = 0;
  int32_t a1 = 0;
  int32_t a2 = 0;
  int32_t a3 = 0;
  for (int32_t filter_y = window->ys[0]; filter_y < window->ys[1]; ++filter_y) {
    const int32_t in_y = window->in_y_origin + params->dilation_h * filter_y;
    const int8_t *input_row = &window->batch_input[in_y * input_dims->w * in_c + in_channel];
    const int8_t *filter_row = &filter[filter_y * filter_dims->w * out_c + channel];
    for (int32_t filter_x = window->xs[0]; filter_x < window->xs[1]; ++filter_x) {
      const int32_t in_x = window->in_x_origin + params->dilation_w * filter_x;
      const int32_t in_pair =
          utvm_dsp_pair((int32_t)input_row[in_x * in_c] + params->input_offset);
      const int32_t w_filter = utvm_dsp_load4(&filter_row[filter_x * out_c]);
      const int32_t filter_even = utvm_dsp_sxtab16(0, w_filter);
      const int32_t filter_odd = utvm_dsp_sxtab16(0, utvm_dsp_ror8(w_filter));
      a0 = utvm_dsp_smlabb(in_pair, filter_even, a0);
      a1 = utvm_dsp_smlabb(in_pair, filter_odd, a1);
      a2 = utvm_dsp_smlatt(in_pair, filter_even, a2);
      a3 = utvm_dsp_smlatt(in_pair, filter_odd, a3);
    }
  }
  sums[0] = a0;
  sums[1] = a1;
  sums[2] = a2;
  sums[3] = a3;
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
  const int32_t blocks = out_c / 4;
  const bool shared = params->depth_multiplier > 1;
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
        for (int32_t block = 0; block < blocks; ++block) {
          const int32_t channel = 4 * block;
          int32_t sums[4];
          if (shared) {
            dsp_depthwise_4_shared(params, input_dims, &window, filter_dims, filter, channel,
                                   sums);
          } else {
            dsp_depthwise_4(params, input_dims, &window, filter_dims, filter, channel, sums);
          }
          for (int32_t k = 0; k < 4; ++k) {
            out[channel + k] =
                utvm_mac_output_s8(sums[k], bias, quant, channel + k, params->output_offset,
                                   params->act_min, params->act_max);
          }
        }
        for (int32_t channel = 4 * blocks; channel < out_c; ++channel) {
          const int32_t acc =
              dsp_depthwise_1(params, input_dims, &window, filter_dims, filter, channel);
          out[channel] = utvm_mac_output_s8(acc, bias, quant, channel, params->output_offset,
                                            params->act_min, params->act_max);
        }
        out = &out[out_c];
      }
    }
  }
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without the DSP. */
typedef int utvm_kernels_no_dsp_t;
#endif

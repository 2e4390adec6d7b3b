/*
 * CONV_2D on the DSP extension: utvm_conv2d_s8_dsp (see fast_s8.h, dsp_s8.h, requant_s8_dsp.h).
 * utvm_conv2d_s8 takes it on cores with the DSP extension but not MVE (Cortex-M4/M7/M33; the
 * host tests with emulated intrinsics) for a convolution that is not grouped and brings its
 * scratch (utvm_conv2d_s8_scratch_size_for(UTVM_KERNELS_DSP, ...) bytes); a scratch that is not
 * word-aligned hands the call to utvm_conv2d_s8_blocked.
 * im2col + a matrix multiply blocked two weight rows (output channels) by two columns (output
 * positions): each column holds the window's input values widened to int16 with the input
 * offset added (straight from the input row by row when a filter row is whole words, filter
 * width times input channels a multiple of 4, with the rows an edge cuts gathered on the stack
 * first; otherwise all gathered as bytes on the stack for small windows, run by run for
 * larger ones), stored so that
 * one step of the inner loop (unrolled four deep) loads 4 int8 weights per row as one word,
 * splits it into even and odd halfword pairs (SXTB16) and accumulates 16 products with 8 SMLAD,
 * reading the column words in pairs from the word-aligned scratch. The columns of a position
 * pair are built once per channel block. Each sum is the same 32-bit wrapping sum as the
 * portable loops'.
 *
 * Stack: the requantization table of a channel block (24 bytes per channel: 1.5 KB by default), the
 * block's biases (4 bytes per channel) and two sums per channel (8 bytes); with few input channels
 * dsp_conv_column's gathered window (UTVM_KERNELS_DSP_IM2COL_STAGE bytes). Frames by default
 * (arm-none-eabi-gcc 12.2 -fstack-usage on the cortex-m4 preset's flags: -Os with the kernels'
 * -O2): utvm_conv2d_s8_dsp 2576 bytes, dsp_conv_column 368, dsp_column_append 28, dsp_copy_or_pad
 * 16: at most 2972 bytes deep (a misaligned scratch adds utvm_conv2d_s8_blocked's 2312 under the
 * 2576 instead).
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

/* dsp_requant_pairs for a block whose table is not exact as a whole. */
static void dsp_requant_pairs_mixed(const utvm_requant_block_t *block, const int32_t *acc,
                                    int32_t count, int8_t *out0, int8_t *out1) {
  const utvm_per_channel_quant_t *quant = block->quant;
  const int32_t offset = block->output_offset;
  const int32_t act_min = block->act_min;
  const int32_t act_max = block->act_max;
  for (int32_t k = 0; k < count; ++k) {
    const int32_t q = (quant->count == 1) ? 0 : (block->first + k);
    const int32_t multiplier = quant->multiplier[q];
    const int32_t shift = quant->shift[q];
    int32_t v0;
    int32_t v1;
    if (dsp_mixed_value(block, k, acc[2 * k], multiplier, shift, &v0) &&
        dsp_mixed_value(block, k, acc[2 * k + 1], multiplier, shift, &v1)) {
      v0 = utvm_clamp_s32(utvm_wrap_add(v0, offset), act_min, act_max);
      v1 = utvm_clamp_s32(utvm_wrap_add(v1, offset), act_min, act_max);
    } else {
      v0 = utvm_requant_output(block, k, acc[2 * k]);
      v1 = utvm_requant_output(block, k, acc[2 * k + 1]);
    }
    out0[k] = (int8_t)v0;
    out1[k] = (int8_t)v1;
  }
}

/* Outputs of count channels with exact table entries entry at two positions from their sums
 * (acc[2k] for out0[k], acc[2k + 1] for out1[k]). */
static void dsp_requant_pairs_fast(const utvm_requant_entry_t *entry, dsp_clamp_t c,
                                   const int32_t *acc, int32_t count, int8_t *out0,
                                   int8_t *out1) {
  if (c.full_range) {
    for (int32_t k = 0; k < count; ++k) {
      const int32_t v0 = dsp_value_full(&entry[k], acc[2 * k], c.offset);
      const int32_t v1 = dsp_value_full(&entry[k], acc[2 * k + 1], c.offset);
      out0[k] = (int8_t)v0;
      out1[k] = (int8_t)v1;
    }
  } else {
    for (int32_t k = 0; k < count; ++k) {
      const int32_t v0 = dsp_value(&entry[k], acc[2 * k], &c);
      const int32_t v1 = dsp_value(&entry[k], acc[2 * k + 1], &c);
      out0[k] = (int8_t)v0;
      out1[k] = (int8_t)v1;
    }
  }
}

/* Outputs of the block's channels 0..count-1 at two positions from their sums (acc[2k] for
 * out0[k], acc[2k + 1] for out1[k], from dsp_block_bias); out1 may be out0 when both sums are
 * the same. */
static void dsp_requant_pairs(const utvm_requant_block_t *block, const int32_t *acc,
                              int32_t count, int8_t *out0, int8_t *out1) {
  if (block->fast) {
    dsp_requant_pairs_fast(block->entry, dsp_clamp_of(block), acc, count, out0, out1);
  } else {
    dsp_requant_pairs_mixed(block, acc, count, out0, out1);
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

/* From the slot of value k to that of k + 1 (dsp_column_slot, k < whole), by k % 4. */
static const int32_t k_dsp_slot_step[4] = {4, -2, 4, 10};

/* One im2col column being written: value k next, at byte slot of buffer (while k < whole,
 * the values in whole groups of 4; phase = k % 4). */
typedef struct {
  int8_t *buffer;
  int32_t length;
  int32_t whole;
  int32_t column;
  int32_t input_offset;
  int32_t offset_pair;
  int32_t k;
  int32_t slot;
  uint32_t phase;
} dsp_column_t;

/* Appends one value (offset already added). */
static inline void dsp_column_put(dsp_column_t *col, int32_t value) {
  if (col->k < col->whole) {
    utvm_dsp_store2(&col->buffer[col->slot], value);
    col->slot += k_dsp_slot_step[col->phase];
    col->phase = (col->phase + 1u) & 3u;
  } else {
    utvm_dsp_store2(&col->buffer[dsp_column_slot(col->k, col->column, col->length)], value);
  }
  col->k += 1;
}

/* Appends n input values from src with the input offset added, or n zeros (padding) when src
 * is NULL: whole groups of 4 as two words (SXTAB16), the others one by one. */
static inline void dsp_column_append(dsp_column_t *col, const int8_t *src, int32_t n) {
  int32_t i = 0;
  while ((i < n) && ((col->phase != 0u) || (col->k >= col->whole))) {
    dsp_column_put(col, (src != NULL) ? ((int32_t)src[i] + col->input_offset) : 0);
    ++i;
  }
  const int32_t words_left = (col->whole - col->k) / 4;
  const int32_t words_here = (n - i) / 4;
  const int32_t words = (words_here < words_left) ? words_here : words_left;
  int8_t *group = &col->buffer[col->slot];
  for (int32_t w = 0; w < words; ++w) {
    int32_t even = 0;
    int32_t odd = 0;
    if (src != NULL) {
      const int32_t word = utvm_dsp_load4(&src[i + 4 * w]);
      even = utvm_dsp_sxtab16(col->offset_pair, word);
      odd = utvm_dsp_sxtab16_ror8(col->offset_pair, word);
    }
    utvm_dsp_store4(group, even);
    utvm_dsp_store4(&group[4], odd);
    group = &group[16];
  }
  col->slot += 16 * words;
  col->k += 4 * words;
  i += 4 * words;
  while (i < n) {
    dsp_column_put(col, (src != NULL) ? ((int32_t)src[i] + col->input_offset) : 0);
    ++i;
  }
}

/* n bytes from src to dst, or n padding bytes pad when src is NULL; a word at a time. */
static void dsp_copy_or_pad(int8_t *dst, const int8_t *src, int32_t n, int8_t pad) {
  const int32_t words = n / 4;
  if (src != NULL) {
    for (int32_t w = 0; w < words; ++w) {
      utvm_dsp_store4(&dst[4 * w], utvm_dsp_load4(&src[4 * w]));
    }
    for (int32_t i = 4 * words; i < n; ++i) {
      dst[i] = src[i];
    }
  } else {
    for (int32_t i = 0; i < n; ++i) {
      dst[i] = pad;
    }
  }
}

/* dsp_conv_column for a window of at most UTVM_KERNELS_DSP_IM2COL_STAGE values: its input
 * bytes are gathered first on the stack (padding as the byte that is 0 once the offset is
 * added), then widened four at a time. */
static void dsp_conv_column_staged(const utvm_conv2d_params_t *params,
                                   const utvm_dims_t *input_dims, const int8_t *batch_input,
                                   const utvm_dims_t *filter_dims, int32_t in_y_origin,
                                   int32_t in_x_origin, const int32_t xs[2], int32_t column,
                                   int8_t *buffer) {
  const int32_t in_c = input_dims->c;
  const int32_t row_bytes = filter_dims->w * in_c;
  const int32_t length = filter_dims->h * row_bytes;
  const int32_t whole = length - length % 4;
  const int8_t pad = (int8_t)(-params->input_offset);
  int8_t stage[UTVM_KERNELS_DSP_IM2COL_STAGE];
  for (int32_t filter_y = 0; filter_y < filter_dims->h; ++filter_y) {
    const int32_t in_y = in_y_origin + params->dilation_h * filter_y;
    int8_t *dst = &stage[filter_y * row_bytes];
    if ((in_y < 0) || (in_y >= input_dims->h)) {
      dsp_copy_or_pad(dst, NULL, row_bytes, pad);
    } else if (params->dilation_w == 1) {
      const int32_t in_x = in_x_origin + xs[0];
      dsp_copy_or_pad(dst, NULL, xs[0] * in_c, pad);
      dsp_copy_or_pad(&dst[xs[0] * in_c], &batch_input[(in_y * input_dims->w + in_x) * in_c],
                      (xs[1] - xs[0]) * in_c, pad);
      dsp_copy_or_pad(&dst[xs[1] * in_c], NULL, (filter_dims->w - xs[1]) * in_c, pad);
    } else {
      for (int32_t filter_x = 0; filter_x < filter_dims->w; ++filter_x) {
        const int32_t in_x = in_x_origin + params->dilation_w * filter_x;
        const bool inside = (filter_x >= xs[0]) && (filter_x < xs[1]);
        dsp_copy_or_pad(&dst[filter_x * in_c],
                        inside ? &batch_input[(in_y * input_dims->w + in_x) * in_c] : NULL, in_c,
                        pad);
      }
    }
  }
  const int32_t offset_pair = utvm_dsp_pair(params->input_offset);
  int8_t *group = &buffer[8 * column];
  for (int32_t k = 0; k < whole; k += 4) {
    const int32_t word = utvm_dsp_load4(&stage[k]);
    utvm_dsp_store4(group, utvm_dsp_sxtab16(offset_pair, word));
    utvm_dsp_store4(&group[4], utvm_dsp_sxtab16_ror8(offset_pair, word));
    group = &group[16];
  }
  /* The last length % 4 values: 4 bytes each, the two columns alternating. */
  for (int32_t k = whole; k < length; ++k) {
    utvm_dsp_store2(&buffer[4 * k + 2 * column], (int32_t)stage[k] + params->input_offset);
  }
}

/* Widens the row_words words of one filter row (the input offset added) into groups of a
 * column from group on; returns the group after them. */
static int8_t *dsp_widen_row(const int8_t *src, int32_t row_words, int32_t offset_pair,
                             int8_t *group) {
  int8_t *g = group;
  for (int32_t w = 0; w < row_words; ++w) {
    const int32_t word = utvm_dsp_load4(&src[4 * w]);
    utvm_dsp_store4(g, utvm_dsp_sxtab16(offset_pair, word));
    utvm_dsp_store4(&g[4], utvm_dsp_sxtab16_ror8(offset_pair, word));
    g = &g[16];
  }
  return g;
}

/* dsp_conv_column with dilation 1 along x and filter rows of whole words (filter width times
 * input channels a multiple of 4), so that each filter row fills whole groups: rows inside the
 * input are widened straight from it, rows above or below are zeros, and rows cut by the left
 * or right edge are gathered first into a row on the stack (padding as the byte that is 0 once
 * the offset is added). group: the column's first group. */
static void dsp_conv_column_rows(const utvm_conv2d_params_t *params,
                                 const utvm_dims_t *input_dims, const int8_t *batch_input,
                                 const utvm_dims_t *filter_dims, int32_t in_y_origin,
                                 int32_t in_x_origin, const int32_t xs[2], int8_t *group) {
  const int32_t in_c = input_dims->c;
  const int32_t row_bytes = filter_dims->w * in_c;
  const int32_t row_words = row_bytes / 4;
  const int32_t offset_pair = utvm_dsp_pair(params->input_offset);
  const int32_t before = xs[0] * in_c;
  const int32_t inside = (xs[1] - xs[0]) * in_c;
  const int8_t pad = (int8_t)(-params->input_offset);
  int8_t row[UTVM_KERNELS_DSP_IM2COL_STAGE];
  int8_t *g = group;
  for (int32_t filter_y = 0; filter_y < filter_dims->h; ++filter_y) {
    const int32_t in_y = in_y_origin + params->dilation_h * filter_y;
    if ((in_y < 0) || (in_y >= input_dims->h)) {
      for (int32_t w = 0; w < row_words; ++w) {
        utvm_dsp_store4(g, 0);
        utvm_dsp_store4(&g[4], 0);
        g = &g[16];
      }
    } else {
      const int8_t *src = &batch_input[(in_y * input_dims->w + in_x_origin + xs[0]) * in_c];
      if (inside != row_bytes) {
        for (int32_t i = 0; i < row_bytes; ++i) {
          row[i] = ((i >= before) && (i < before + inside)) ? src[i - before] : pad;
        }
        src = row;
      }
      g = dsp_widen_row(src, row_words, offset_pair, g);
    }
  }
}

/* The im2col column of output position `position` as int16 values with the input offset added
 * (0 for padding), stored as column `column` of the pair in buffer (dsp_column_slot). With
 * dilation 1 along x, the taps of a filter row inside the input are one run of bytes. */
static void dsp_conv_column(const utvm_conv2d_params_t *params, const utvm_dims_t *input_dims,
                            const int8_t *input, const utvm_dims_t *filter_dims, int32_t position,
                            const utvm_dims_t *output_dims, int32_t column, int8_t *buffer) {
  const int32_t in_c = input_dims->c;
  const int32_t plane = output_dims->h * output_dims->w;
  const int32_t out_y = (position % plane) / output_dims->w;
  const int32_t out_x = position % output_dims->w;
  const int32_t in_y_origin = out_y * params->stride_h - params->pad_top;
  const int32_t in_x_origin = out_x * params->stride_w - params->pad_left;
  const int8_t *batch_input = &input[(position / plane) * input_dims->h * input_dims->w * in_c];
  int32_t xs[2];
  utvm_taps_inside(in_x_origin, params->dilation_w, filter_dims->w, input_dims->w, &xs[0], &xs[1]);
  const int32_t row_bytes = filter_dims->w * in_c;
  const bool row_whole = (xs[0] == 0) && (xs[1] == filter_dims->w);
  if ((params->dilation_w == 1) && ((row_bytes % 4) == 0) &&
      (row_whole || (row_bytes <= UTVM_KERNELS_DSP_IM2COL_STAGE))) {
    dsp_conv_column_rows(params, input_dims, batch_input, filter_dims, in_y_origin, in_x_origin,
                         xs, &buffer[8 * column]);
    return;
  }
  if (((in_c % 4) != 0) &&
      ((filter_dims->h * filter_dims->w * in_c) <= UTVM_KERNELS_DSP_IM2COL_STAGE)) {
    dsp_conv_column_staged(params, input_dims, batch_input, filter_dims, in_y_origin, in_x_origin,
                           xs, column, buffer);
    return;
  }
  dsp_column_t col;
  col.buffer = buffer;
  col.length = filter_dims->h * filter_dims->w * in_c;
  col.whole = col.length - col.length % 4;
  col.column = column;
  col.input_offset = params->input_offset;
  col.offset_pair = utvm_dsp_pair(params->input_offset);
  col.k = 0;
  col.slot = 8 * column;
  col.phase = 0u;
  for (int32_t filter_y = 0; filter_y < filter_dims->h; ++filter_y) {
    const int32_t in_y = in_y_origin + params->dilation_h * filter_y;
    if ((in_y < 0) || (in_y >= input_dims->h)) {
      dsp_column_append(&col, NULL, filter_dims->w * in_c);
    } else if (params->dilation_w == 1) {
      const int32_t in_x = in_x_origin + xs[0];
      dsp_column_append(&col, NULL, xs[0] * in_c);
      dsp_column_append(&col, &batch_input[(in_y * input_dims->w + in_x) * in_c],
                        (xs[1] - xs[0]) * in_c);
      dsp_column_append(&col, NULL, (filter_dims->w - xs[1]) * in_c);
    } else {
      for (int32_t filter_x = 0; filter_x < filter_dims->w; ++filter_x) {
        const int32_t in_x = in_x_origin + params->dilation_w * filter_x;
        const bool inside = (filter_x >= xs[0]) && (filter_x < xs[1]);
        dsp_column_append(&col, inside ? &batch_input[(in_y * input_dims->w + in_x) * in_c] : NULL,
                          in_c);
      }
    }
  }
}

/* One group of 4 values: weight words wr0, wr1 by the 16 bytes of a column pair at col. */
static inline void dsp_mac_2x2(dsp_sums_t *s, int32_t wr0, int32_t wr1, const int8_t *col) {
  const int32_t c0_even = utvm_dsp_load4(col);
  const int32_t c0_odd = utvm_dsp_load4(&col[4]);
  const int32_t c1_even = utvm_dsp_load4(&col[8]);
  const int32_t c1_odd = utvm_dsp_load4(&col[12]);
  const int32_t r0_even = utvm_dsp_sxtb16(wr0);
  const int32_t r0_odd = utvm_dsp_sxtb16_ror8(wr0);
  s->s00 = utvm_dsp_smlad(r0_even, c0_even, s->s00);
  s->s00 = utvm_dsp_smlad(r0_odd, c0_odd, s->s00);
  s->s01 = utvm_dsp_smlad(r0_even, c1_even, s->s01);
  s->s01 = utvm_dsp_smlad(r0_odd, c1_odd, s->s01);
  const int32_t r1_even = utvm_dsp_sxtb16(wr1);
  const int32_t r1_odd = utvm_dsp_sxtb16_ror8(wr1);
  s->s10 = utvm_dsp_smlad(r1_even, c0_even, s->s10);
  s->s10 = utvm_dsp_smlad(r1_odd, c0_odd, s->s10);
  s->s11 = utvm_dsp_smlad(r1_even, c1_even, s->s11);
  s->s11 = utvm_dsp_smlad(r1_odd, c1_odd, s->s11);
}

/* One value past the whole groups: weights v0 (row 0) and v1 (row 1) by the column pair's two
 * int16 values at col, wrapping. */
static inline void dsp_mac_2x2_one(dsp_sums_t *s, int32_t v0, int32_t v1, const int8_t *col) {
  const int32_t x0 = utvm_dsp_load2(col);
  const int32_t x1 = utvm_dsp_load2(&col[2]);
  s->s00 = utvm_wrap_add(s->s00, v0 * x0);
  s->s01 = utvm_wrap_add(s->s01, v0 * x1);
  s->s10 = utvm_wrap_add(s->s10, v1 * x0);
  s->s11 = utvm_wrap_add(s->s11, v1 * x1);
}

/* The sums of weight rows r0, r1 with a pair of int16 columns (dsp_column_slot's layout) over
 * length values from b0 (row 0) and b1 (row 1), wrapping. */
static inline dsp_sums_t dsp_dot_2x2_s16(const int8_t *r0, const int8_t *r1,
                                         const int8_t *columns, int32_t length, int32_t b0,
                                         int32_t b1) {
  dsp_sums_t s = {b0, b0, b1, b1};
  const int32_t blocks = length / 4;
  const int8_t *w0 = r0;
  const int8_t *w1 = r1;
  const int8_t *col = columns;
  const int8_t *const col_fours_end = &col[64 * (blocks / 4)];
  while (col != col_fours_end) {
    dsp_mac_2x2(&s, utvm_dsp_load4(w0), utvm_dsp_load4(w1), col);
    dsp_mac_2x2(&s, utvm_dsp_load4(&w0[4]), utvm_dsp_load4(&w1[4]), &col[16]);
    dsp_mac_2x2(&s, utvm_dsp_load4(&w0[8]), utvm_dsp_load4(&w1[8]), &col[32]);
    dsp_mac_2x2(&s, utvm_dsp_load4(&w0[12]), utvm_dsp_load4(&w1[12]), &col[48]);
    w0 = &w0[16];
    w1 = &w1[16];
    col = &col[64];
  }
  for (int32_t b = 0; b < blocks % 4; ++b) {
    dsp_mac_2x2(&s, utvm_dsp_load4(w0), utvm_dsp_load4(w1), col);
    w0 = &w0[4];
    w1 = &w1[4];
    col = &col[16];
  }
  for (int32_t i = 4 * blocks; i < length; ++i) {
    dsp_mac_2x2_one(&s, r0[i], r1[i], col);
    col = &col[4];
  }
  return s;
}

/* One group of 4 values of a pair of filter rows already widened (UTVM_FILTER_DSP_S16: 16
 * bytes at w, row 0's values 0 and 2, 1 and 3, then row 1's) by the 16 bytes of a column pair
 * at col. */
static inline void dsp_mac_2x2_wide(dsp_sums_t *s, const int8_t *w, const int8_t *col) {
  const int32_t c0_even = utvm_dsp_load4(col);
  const int32_t c0_odd = utvm_dsp_load4(&col[4]);
  const int32_t c1_even = utvm_dsp_load4(&col[8]);
  const int32_t c1_odd = utvm_dsp_load4(&col[12]);
  const int32_t r0_even = utvm_dsp_load4(w);
  const int32_t r0_odd = utvm_dsp_load4(&w[4]);
  s->s00 = utvm_dsp_smlad(r0_even, c0_even, s->s00);
  s->s00 = utvm_dsp_smlad(r0_odd, c0_odd, s->s00);
  s->s01 = utvm_dsp_smlad(r0_even, c1_even, s->s01);
  s->s01 = utvm_dsp_smlad(r0_odd, c1_odd, s->s01);
  const int32_t r1_even = utvm_dsp_load4(&w[8]);
  const int32_t r1_odd = utvm_dsp_load4(&w[12]);
  s->s10 = utvm_dsp_smlad(r1_even, c0_even, s->s10);
  s->s10 = utvm_dsp_smlad(r1_odd, c0_odd, s->s10);
  s->s11 = utvm_dsp_smlad(r1_even, c1_even, s->s11);
  s->s11 = utvm_dsp_smlad(r1_odd, c1_odd, s->s11);
}

/* dsp_dot_2x2_s16 for a pair of rows widened and interleaved (UTVM_FILTER_DSP_S16, at pair,
 * word-aligned): whole groups of 16 bytes, then the last length % 4 values as int16 pairs
 * (row 0's, row 1's). */
static inline dsp_sums_t dsp_dot_2x2_wide(const int8_t *pair, const int8_t *columns,
                                          int32_t length, int32_t b0, int32_t b1) {
  dsp_sums_t s = {b0, b0, b1, b1};
  const int32_t blocks = length / 4;
  const int8_t *w = utvm_dsp_aligned4(pair);
  const int8_t *col = columns;
  const int8_t *const col_fours_end = &col[64 * (blocks / 4)];
  while (col != col_fours_end) {
    dsp_mac_2x2_wide(&s, w, col);
    dsp_mac_2x2_wide(&s, &w[16], &col[16]);
    dsp_mac_2x2_wide(&s, &w[32], &col[32]);
    dsp_mac_2x2_wide(&s, &w[48], &col[48]);
    w = &w[64];
    col = &col[64];
  }
  for (int32_t b = 0; b < blocks % 4; ++b) {
    dsp_mac_2x2_wide(&s, w, col);
    w = &w[16];
    col = &col[16];
  }
  for (int32_t i = 4 * blocks; i < length; ++i) {
    dsp_mac_2x2_one(&s, utvm_dsp_load2(w), utvm_dsp_load2(&w[2]), col);
    w = &w[4];
    col = &col[4];
  }
  return s;
}

/* Channels come in pairs in a DSP_S16 filter: a block starts on a pair. */
typedef char dsp_block_is_even[((UTVM_KERNELS_CHANNEL_BLOCK % 2) == 0) ? 1 : -1];

/* The sums of the block's count channels (int8 rows of length values) with a column pair:
 * acc[2k] column 0, acc[2k + 1] column 1. An odd last row is multiplied as a pair with itself. */
static void dsp_conv_block(const int8_t *weights, int32_t count, const int8_t *columns,
                           int32_t length, const int32_t *bias, int32_t *acc) {
  /* The caller's columns are word-aligned: their words are read in pairs. */
  const int8_t *aligned = utvm_dsp_aligned4(columns);
  for (int32_t k = 0; k < count; k += 2) {
    const int32_t k1 = ((k + 1) < count) ? (k + 1) : k;
    const dsp_sums_t s = dsp_dot_2x2_s16(&weights[k * length], &weights[k1 * length], aligned,
                                         length, bias[k], bias[k1]);
    /* k's sums last: an odd last row's are the pair's first */
    acc[2 * k1] = s.s10;
    acc[2 * k1 + 1] = s.s11;
    acc[2 * k] = s.s00;
    acc[2 * k + 1] = s.s01;
  }
}

/* dsp_conv_block for rows widened and interleaved in pairs (UTVM_FILTER_DSP_S16: 4 * length
 * bytes per pair, a last odd row paired with zeros): pair k's four sums go to acc[2k..2k+3], an
 * odd count's last two past acc[2 * count] (acc and bias hold a whole number of pairs). One
 * pair after the other with nothing else in the loop: the dot loop takes every register. */
static void dsp_conv_block_wide(const int8_t *weights, int32_t count, const int8_t *columns,
                                int32_t length, const int32_t *bias, int32_t *acc) {
  const int8_t *aligned = utvm_dsp_aligned4(columns);
  const int8_t *pair = weights;
  const int32_t *b = bias;
  int32_t *out = acc;
  int32_t *const end = &acc[2 * (count + (count % 2))];
  while (out != end) {
    const dsp_sums_t s = dsp_dot_2x2_wide(pair, aligned, length, b[0], b[1]);
    out[0] = s.s00;
    out[1] = s.s01;
    out[2] = s.s10;
    out[3] = s.s11;
    pair = &pair[4 * length];
    b = &b[2];
    out = &out[4];
  }
}

void utvm_conv2d_s8_dsp(const utvm_conv2d_params_t *params, const utvm_per_channel_quant_t *quant,
                        const utvm_dims_t *input_dims, const int8_t *input,
                        const utvm_dims_t *filter_dims, const int8_t *filter,
                        const int32_t *bias, const utvm_dims_t *output_dims, int8_t *output,
                        int8_t *scratch) {
  const int32_t length = filter_dims->h * filter_dims->w * filter_dims->c;
  const bool wide = params->filter_layout == (int32_t)UTVM_FILTER_DSP_S16;
  /* bytes per channel: int8 values, or int16 ones (the rows in pairs) */
  const int32_t row_bytes = wide ? (2 * length) : length;
  const int32_t out_c = output_dims->c;
  const int32_t positions = output_dims->n * output_dims->h * output_dims->w;
  if (!wide && (((uintptr_t)(const void *)scratch & 3u) != 0u)) {
    utvm_conv2d_s8_blocked(params, quant, input_dims, input, filter_dims, filter, bias,
                           output_dims, output);
    return;
  }
  const int8_t *columns = scratch;
  utvm_requant_block_t block;
  int32_t bias_block[UTVM_KERNELS_CHANNEL_BLOCK];
  int32_t acc[2 * UTVM_KERNELS_CHANNEL_BLOCK];
  for (int32_t first = 0; first < out_c; first += UTVM_KERNELS_CHANNEL_BLOCK) {
    const int32_t count = dsp_block_count(first, out_c);
    utvm_requant_block_fill(&block, quant, bias, params->output_offset, params->act_min,
                            params->act_max, first, count);
    dsp_block_bias(&block, count, bias_block);
    if ((count % 2) != 0) {
      bias_block[count] = 0; /* the zero row pairing an odd last one (count < the block) */
    }
    /* Both columns built before the pair's outputs are written, pairs in order: with one block
     * a 1x1 convolution may run over its own input (utvm_conv2d_s8_inplace relies on it). */
    for (int32_t p = 0; p < positions; p += 2) {
      const int32_t p1 = ((p + 1) < positions) ? (p + 1) : p;
      dsp_conv_column(params, input_dims, input, filter_dims, p, output_dims, 0, scratch);
      dsp_conv_column(params, input_dims, input, filter_dims, p1, output_dims, 1, scratch);
      if (wide) {
        dsp_conv_block_wide(&filter[first * row_bytes], count, columns, length, bias_block, acc);
      } else {
        dsp_conv_block(&filter[first * row_bytes], count, columns, length, bias_block, acc);
      }
      dsp_requant_pairs(&block, acc, count, &output[p * out_c + first],
                        &output[p1 * out_c + first]);
    }
  }
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without the DSP. */
typedef int utvm_kernels_no_dsp_conv2d_t;
#endif

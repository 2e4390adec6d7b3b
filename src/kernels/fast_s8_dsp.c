/*
 * DSP fast paths of CONV_2D, FULLY_CONNECTED and DEPTHWISE_CONV_2D (see fast_s8.h).
 * Each works through the output channels in blocks of UTVM_KERNELS_CHANNEL_BLOCK, whose
 * requantization table (requant_s8.h) it fills once on the stack. When the table is exact the
 * sums start from the biases, and a loop of its own requantizes a block's sums (one SSAT when
 * the activation range is all of int8); a block whose table is not exact as a whole takes the
 * table channel by channel, TFLite's multiply without its final division for left shifts.
 * CONV_2D is im2col + a matrix multiply blocked two weight rows (output channels) by two
 * columns (output positions): each column holds the window's input values widened to int16
 * with the input offset added (straight from the input for a whole window of whole-word channel
 * counts, gathered as bytes on the stack first for few channels, run by run otherwise), stored
 * so that one step of the inner loop (unrolled four deep) loads 4 int8 weights per row as one
 * word, splits it into even and odd halfword pairs (SXTB16) and accumulates 16 products with 8
 * SMLAD, reading the column words in pairs from the word-aligned scratch (a misaligned one takes
 * the blocked path). The columns of a position pair are built once per channel block.
 * FULLY_CONNECTED multiplies four weight rows at a time by one input column widened per word
 * (SXTAB16 adds the input offset); a filter offset is folded into one product per output:
 * sum (w + fo)(x + io) = sum w (x + io) + fo * sum (x + io), modulo 2^32.
 * DEPTHWISE_CONV_2D takes four output channels per word; filters of up to
 * UTVM_KERNELS_DSP_DW_TAPS taps are widened once per channel block into a stack buffer (larger
 * ones per tap). A 3x3 window inside the input (multiplier 1) is unrolled; other windows go
 * through a pointer per tap (to padding bytes for the taps outside). With multiplier 1 each
 * tap widens one input word and multiplies its halfwords separately (SMLABB/SMLATT); with a
 * multiple of 4 the four output channels share one input value.
 * Each sum is the same 32-bit wrapping sum as the portable loops', and the requantization is
 * bit-exact with theirs (utvm_mac_output_s8).
 *
 * Stack: a requantization table (24 bytes per channel of a block: 1.5 KB by default), the
 * block's biases and sums (4 bytes per channel each, CONV_2D two sums per channel, FULLY_CONNECTED
 * also its starting values); CONV_2D with few channels the gathered window
 * (UTVM_KERNELS_DSP_IM2COL_STAGE bytes); DEPTHWISE_CONV_2D the widened filter (2 bytes per
 * channel and tap: 1152 bytes by default), a block of padding bytes and the taps' pointers and
 * offsets. Frames of 2568 (CONV_2D), 2536 (FULLY_CONNECTED) and 3640 (DEPTHWISE_CONV_2D)
 * bytes by default (arm-none-eabi-gcc 12 -O2 -fstack-usage).
 */
#include "fast_s8.h"

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

/* Channels in the block starting at first: UTVM_KERNELS_CHANNEL_BLOCK or what is left. */
static int32_t dsp_block_count(int32_t first, int32_t total) {
  const int32_t left = total - first;
  return (left < UTVM_KERNELS_CHANNEL_BLOCK) ? left : UTVM_KERNELS_CHANNEL_BLOCK;
}

/* The scalars of a channel block's exact table for its loops (copies: the int8 stores of the
 * outputs may alias the block, which would make the compiler read them again per value). */
typedef struct {
  int32_t offset;
  int32_t act_min;
  int32_t act_max;
  bool full_range; /* act_min -128 and act_max 127: one SSAT clamps */
} dsp_clamp_t;

static dsp_clamp_t dsp_clamp_of(const utvm_requant_block_t *block) {
  const dsp_clamp_t c = {block->output_offset, block->act_min, block->act_max,
                         (block->act_min == -128) && (block->act_max == 127)};
  return c;
}

/* The biases of the block's channels for the sums to start from when its table is exact
 * (dsp_block_bias), 0 otherwise (utvm_requant_output adds them then). */
static void dsp_block_bias(const utvm_requant_block_t *block, int32_t count, int32_t *bias) {
  for (int32_t k = 0; k < count; ++k) {
    bias[k] = block->fast ? block->entry[k].bias : 0;
  }
}

/* utvm_requant_entry_value of a sum that holds the bias already (summed from it: one load
 * and add fewer per value; the same value, sums wrap modulo 2^32 in any order). */
static inline int32_t dsp_entry_value(int32_t biased, const utvm_requant_entry_t *e) {
  utvm_requant_entry_t unbiased = *e;
  unbiased.bias = 0;
  return utvm_requant_entry_value(biased, &unbiased);
}

/* The table entry e's output value for a biased sum with the full int8 range (act -128..127). */
static inline int32_t dsp_value_full(const utvm_requant_entry_t *e, int32_t acc, int32_t offset) {
  return utvm_dsp_ssat8(utvm_wrap_add(dsp_entry_value(acc, e), offset));
}

/* The same with any activation range. */
static inline int32_t dsp_value(const utvm_requant_entry_t *e, int32_t acc, const dsp_clamp_t *c) {
  return utvm_clamp_s32(utvm_wrap_add(dsp_entry_value(acc, e), c->offset), c->act_min,
                        c->act_max);
}

/* Value (before the output offset) of a sum without the bias, for channel k of a block whose
 * table is not exact as a whole: the table's exact path for each channel that has one (a right
 * shift and a multiplier >= 0, requant_s8.h); with a left shift (scales from 1/2 up), TFLite's
 * MultiplyByQuantizedMultiplier without its final division by 2^0. *value is set and true
 * returned for these; false for the others (utvm_requant_output). */
static inline bool dsp_mixed_value(const utvm_requant_block_t *block, int32_t k, int32_t acc,
                                   int32_t multiplier, int32_t shift, int32_t *value) {
  bool done = true;
  if ((multiplier >= 0) && (shift < 0)) {
    *value = utvm_requant_entry_value(acc, &block->entry[k]);
  } else if (shift >= 0) {
    const int32_t x = utvm_wrap_add(acc, block->entry[k].bias);
    *value = utvm_sat_round_doubling_high_mul(utvm_wrap_shl(x, shift), multiplier);
  } else {
    done = false;
  }
  return done;
}

/* Output value of the block's channel k from its sum without the bias (dsp_mixed_value). */
static int8_t dsp_output_mixed(const utvm_requant_block_t *block, int32_t k, int32_t acc) {
  const int32_t q = (block->quant->count == 1) ? 0 : (block->first + k);
  int32_t value;
  int8_t out;
  if (dsp_mixed_value(block, k, acc, block->quant->multiplier[q], block->quant->shift[q],
                      &value)) {
    out = (int8_t)utvm_clamp_s32(utvm_wrap_add(value, block->output_offset), block->act_min,
                                 block->act_max);
  } else {
    out = utvm_requant_output(block, k, acc);
  }
  return out;
}

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

/* Outputs of count channels with exact table entries entry at one position from acc[k]. */
static void dsp_requant_row_fast(const utvm_requant_entry_t *entry, dsp_clamp_t c,
                                 const int32_t *acc, int32_t count, int8_t *out) {
  if (c.full_range) {
    for (int32_t k = 0; k < count; ++k) {
      out[k] = (int8_t)dsp_value_full(&entry[k], acc[k], c.offset);
    }
  } else {
    for (int32_t k = 0; k < count; ++k) {
      out[k] = (int8_t)dsp_value(&entry[k], acc[k], &c);
    }
  }
}

/* Outputs of the block's channels 0..count-1 at one position from their sums acc[k] (from
 * dsp_block_bias). */
static void dsp_requant_row(const utvm_requant_block_t *block, const int32_t *acc, int32_t count,
                            int8_t *out) {
  if (block->fast) {
    dsp_requant_row_fast(block->entry, dsp_clamp_of(block), acc, count, out);
  } else {
    for (int32_t k = 0; k < count; ++k) {
      out[k] = dsp_output_mixed(block, k, acc[k]);
    }
  }
}

/* ---- CONV_2D ---- */

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
  const bool rows_inside =
      (in_y_origin >= 0) &&
      (in_y_origin + (filter_dims->h - 1) * params->dilation_h < input_dims->h);
  if (((in_c % 4) == 0) && (params->dilation_w == 1) && rows_inside && (xs[0] == 0) &&
      (xs[1] == filter_dims->w)) {
    /* The whole window inside, each filter row one run of whole words (1x1 convolutions). */
    const int32_t offset_pair = utvm_dsp_pair(params->input_offset);
    const int32_t row_words = filter_dims->w * in_c / 4;
    int8_t *group = &buffer[8 * column];
    for (int32_t filter_y = 0; filter_y < filter_dims->h; ++filter_y) {
      const int32_t in_y = in_y_origin + params->dilation_h * filter_y;
      const int8_t *src = &batch_input[(in_y * input_dims->w + in_x_origin) * in_c];
      for (int32_t w = 0; w < row_words; ++w) {
        const int32_t word = utvm_dsp_load4(&src[4 * w]);
        utvm_dsp_store4(group, utvm_dsp_sxtab16(offset_pair, word));
        utvm_dsp_store4(&group[4], utvm_dsp_sxtab16_ror8(offset_pair, word));
        group = &group[16];
      }
    }
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

/* The four sums of a 2x2 block: row r (weights) by column c (positions). */
typedef struct {
  int32_t s00;
  int32_t s01;
  int32_t s10;
  int32_t s11;
} dsp_sums_t;

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
    const int32_t v0 = r0[i];
    const int32_t v1 = r1[i];
    const int32_t x0 = utvm_dsp_load2(col);
    const int32_t x1 = utvm_dsp_load2(&col[2]);
    s.s00 = utvm_wrap_add(s.s00, v0 * x0);
    s.s01 = utvm_wrap_add(s.s01, v0 * x1);
    s.s10 = utvm_wrap_add(s.s10, v1 * x0);
    s.s11 = utvm_wrap_add(s.s11, v1 * x1);
    col = &col[4];
  }
  return s;
}

/* The sums of the block's count channels (rows of length weights from weights) with a column
 * pair: acc[2k] column 0, acc[2k + 1] column 1. An odd last row is multiplied as a pair with
 * itself. */
static void dsp_conv_block(const int8_t *weights, int32_t count, const int8_t *columns,
                           int32_t length, const int32_t *bias, int32_t *acc) {
  /* The caller's columns are word-aligned: their words are read in pairs. */
  const int8_t *aligned = utvm_dsp_aligned4(columns);
  for (int32_t k = 0; k < count; k += 2) {
    const int32_t k1 = ((k + 1) < count) ? (k + 1) : k;
    const dsp_sums_t s =
        dsp_dot_2x2_s16(&weights[k * length], &weights[k1 * length], aligned, length, bias[k],
                        bias[k1]);
    acc[2 * k] = s.s00;
    acc[2 * k + 1] = s.s01;
    acc[2 * k1] = s.s10;
    acc[2 * k1 + 1] = s.s11;
  }
}

void utvm_conv2d_s8_dsp(const utvm_conv2d_params_t *params, const utvm_per_channel_quant_t *quant,
                        const utvm_dims_t *input_dims, const int8_t *input,
                        const utvm_dims_t *filter_dims, const int8_t *filter,
                        const int32_t *bias, const utvm_dims_t *output_dims, int8_t *output,
                        int8_t *scratch) {
  const int32_t length = filter_dims->h * filter_dims->w * filter_dims->c;
  const int32_t out_c = output_dims->c;
  const int32_t positions = output_dims->n * output_dims->h * output_dims->w;
  if (((uintptr_t)(const void *)scratch & 3u) != 0u) {
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
    for (int32_t p = 0; p < positions; p += 2) {
      const int32_t p1 = ((p + 1) < positions) ? (p + 1) : p;
      dsp_conv_column(params, input_dims, input, filter_dims, p, output_dims, 0, scratch);
      dsp_conv_column(params, input_dims, input, filter_dims, p1, output_dims, 1, scratch);
      dsp_conv_block(&filter[first * length], count, columns, length, bias_block, acc);
      dsp_requant_pairs(&block, acc, count, &output[p * out_c + first],
                        &output[p1 * out_c + first]);
    }
  }
}

/* ---- FULLY_CONNECTED ---- */

/* The sums of four weight rows (length values each, row i at &w[i * length]) with input x
 * (input offset added), from start[0..3], wrapping. */
static inline dsp_sums_t dsp_dot_4x1(const int8_t *w, int32_t length, const int8_t *x,
                                     int32_t input_offset, const int32_t *start) {
  const int32_t offset_pair = utvm_dsp_pair(input_offset);
  dsp_sums_t s = {start[0], start[1], start[2], start[3]};
  /* Rows 1 and 3 at length bytes from rows 0 and 2: two pointers for four rows. */
  const int8_t *w0 = w;
  const int8_t *w2 = &w[2 * length];
  const int8_t *xp = x;
  const int8_t *const x_end = &x[4 * (length / 4)];
  while (xp != x_end) {
    const int32_t word = utvm_dsp_load4(xp);
    const int32_t x_even = utvm_dsp_sxtab16(offset_pair, word);
    const int32_t x_odd = utvm_dsp_sxtab16_ror8(offset_pair, word);
    const int32_t v0 = utvm_dsp_load4(w0);
    s.s00 = utvm_dsp_smlad(utvm_dsp_sxtb16(v0), x_even, s.s00);
    s.s00 = utvm_dsp_smlad(utvm_dsp_sxtb16_ror8(v0), x_odd, s.s00);
    const int32_t v1 = utvm_dsp_load4(&w0[length]);
    s.s01 = utvm_dsp_smlad(utvm_dsp_sxtb16(v1), x_even, s.s01);
    s.s01 = utvm_dsp_smlad(utvm_dsp_sxtb16_ror8(v1), x_odd, s.s01);
    const int32_t v2 = utvm_dsp_load4(w2);
    s.s10 = utvm_dsp_smlad(utvm_dsp_sxtb16(v2), x_even, s.s10);
    s.s10 = utvm_dsp_smlad(utvm_dsp_sxtb16_ror8(v2), x_odd, s.s10);
    const int32_t v3 = utvm_dsp_load4(&w2[length]);
    s.s11 = utvm_dsp_smlad(utvm_dsp_sxtb16(v3), x_even, s.s11);
    s.s11 = utvm_dsp_smlad(utvm_dsp_sxtb16_ror8(v3), x_odd, s.s11);
    xp = &xp[4];
    w0 = &w0[4];
    w2 = &w2[4];
  }
  for (int32_t i = 4 * (length / 4); i < length; ++i) {
    const int32_t v = (int32_t)x[i] + input_offset;
    s.s00 = utvm_wrap_add(s.s00, (int32_t)w[i] * v);
    s.s01 = utvm_wrap_add(s.s01, (int32_t)w[length + i] * v);
    s.s10 = utvm_wrap_add(s.s10, (int32_t)w[2 * length + i] * v);
    s.s11 = utvm_wrap_add(s.s11, (int32_t)w[3 * length + i] * v);
  }
  return s;
}

/* The sum of one weight row with input x (input offset added), from start, wrapping. */
static int32_t dsp_dot_1x1(const int8_t *w, int32_t length, const int8_t *x,
                           int32_t input_offset, int32_t start) {
  const int32_t offset_pair = utvm_dsp_pair(input_offset);
  int32_t acc = start;
  const int32_t blocks = length / 4;
  for (int32_t b = 0; b < blocks; ++b) {
    const int32_t i = 4 * b;
    const int32_t word = utvm_dsp_load4(&x[i]);
    const int32_t v = utvm_dsp_load4(&w[i]);
    acc = utvm_dsp_smlad(utvm_dsp_sxtb16(v), utvm_dsp_sxtab16(offset_pair, word), acc);
    acc = utvm_dsp_smlad(utvm_dsp_sxtb16_ror8(v), utvm_dsp_sxtab16_ror8(offset_pair, word), acc);
  }
  for (int32_t i = 4 * blocks; i < length; ++i) {
    acc = utvm_wrap_add(acc, (int32_t)w[i] * ((int32_t)x[i] + input_offset));
  }
  return acc;
}

/* filter_offset * sum (x + input_offset) over length values, modulo 2^32 (0 without offset). */
static int32_t dsp_filter_offset_term(const int8_t *x, int32_t length, int32_t input_offset,
                                      int32_t filter_offset) {
  uint32_t sum = 0u;
  if (filter_offset != 0) {
    for (int32_t i = 0; i < length; ++i) {
      sum += (uint32_t)((int32_t)x[i] + input_offset);
    }
  }
  return (int32_t)(sum * (uint32_t)filter_offset);
}

void utvm_fully_connected_s8_dsp(const utvm_fully_connected_params_t *params,
                                 const utvm_per_channel_quant_t *quant, int32_t batches,
                                 int32_t input_depth, int32_t output_depth, const int8_t *input,
                                 const int8_t *filter, const int32_t *bias, int8_t *output) {
  const int32_t input_offset = params->input_offset;
  utvm_requant_block_t block;
  int32_t bias_block[UTVM_KERNELS_CHANNEL_BLOCK];
  int32_t start[UTVM_KERNELS_CHANNEL_BLOCK];
  int32_t acc[UTVM_KERNELS_CHANNEL_BLOCK];
  for (int32_t first = 0; first < output_depth; first += UTVM_KERNELS_CHANNEL_BLOCK) {
    const int32_t count = dsp_block_count(first, output_depth);
    utvm_requant_block_fill(&block, quant, bias, params->output_offset, params->act_min,
                            params->act_max, first, count);
    dsp_block_bias(&block, count, bias_block);
    const int8_t *weights = &filter[first * input_depth];
    for (int32_t batch = 0; batch < batches; ++batch) {
      const int8_t *x = &input[batch * input_depth];
      const int32_t folded =
          dsp_filter_offset_term(x, input_depth, input_offset, params->filter_offset);
      for (int32_t k = 0; k < count; ++k) {
        start[k] = utvm_wrap_add(bias_block[k], folded);
      }
      const int32_t fours = count / 4;
      for (int32_t g = 0; g < fours; ++g) {
        const int32_t k = 4 * g;
        const dsp_sums_t s =
            dsp_dot_4x1(&weights[k * input_depth], input_depth, x, input_offset, &start[k]);
        acc[k] = s.s00;
        acc[k + 1] = s.s01;
        acc[k + 2] = s.s10;
        acc[k + 3] = s.s11;
      }
      for (int32_t k = 4 * fours; k < count; ++k) {
        acc[k] = dsp_dot_1x1(&weights[k * input_depth], input_depth, x, input_offset, start[k]);
      }
      dsp_requant_row(&block, acc, count, &output[batch * output_depth + first]);
    }
  }
}

/* ---- DEPTHWISE_CONV_2D ---- */

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
    dsp_requant_row(block, acc, count, out);
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
typedef int utvm_kernels_no_dsp_t;
#endif

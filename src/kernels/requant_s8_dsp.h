/*
 * The output step the DSP fast paths share (internal; conv2d_s8_dsp.c,
 * depthwise_conv2d_s8_dsp.c, fully_connected_s8_dsp.c, compiled where fast_s8.h defines
 * UTVM_KERNELS_DSP_PATHS). Each path works through the output channels in blocks of
 * UTVM_KERNELS_CHANNEL_BLOCK, whose requantization table (requant_s8.h) it fills once on the
 * stack. When the table is exact the sums start from the biases, and a loop of its own
 * requantizes a block's sums (one SSAT when the activation range is all of int8); a block whose
 * table is not exact as a whole takes the table channel by channel, TFLite's multiply without
 * its final division for left shifts. Bit-exact with utvm_mac_output_s8.
 */
#ifndef UTVM_KERNELS_REQUANT_S8_DSP_H
#define UTVM_KERNELS_REQUANT_S8_DSP_H

#include "fast_s8.h"

#if defined(UTVM_KERNELS_DSP_PATHS)

#include <stdbool.h>
#include <stdint.h>

#include "dsp_s8.h"
#include "mac_s8.h"
#include "requant_s8.h"

/* Channels in the block starting at first: UTVM_KERNELS_CHANNEL_BLOCK or what is left. */
static inline int32_t dsp_block_count(int32_t first, int32_t total) {
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

static inline dsp_clamp_t dsp_clamp_of(const utvm_requant_block_t *block) {
  const dsp_clamp_t c = {block->output_offset, block->act_min, block->act_max,
                         (block->act_min == -128) && (block->act_max == 127)};
  return c;
}

/* The biases of the block's channels for the sums to start from when its table is exact
 * (dsp_block_bias), 0 otherwise (utvm_requant_output adds them then). */
static inline void dsp_block_bias(const utvm_requant_block_t *block, int32_t count, int32_t *bias) {
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


/* Outputs of the block's channels 0..count-1 at one position from their sums acc[k] (from
 * dsp_block_bias). */
void utvm_dsp_requant_row(const utvm_requant_block_t *block, const int32_t *acc, int32_t count,
                          int8_t *out);

#endif /* UTVM_KERNELS_DSP_PATHS */

#endif /* UTVM_KERNELS_REQUANT_S8_DSP_H */

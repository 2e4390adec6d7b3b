/*
 * Requantization of the outputs of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED in the fast
 * paths (internal): a table per block of output channels, filled once per call, turns TFLite's
 * MultiplyByQuantizedMultiplier (double rounding) into one 64-bit multiply-accumulate and a shift
 * per value, bit-exact with utvm_mac_output_s8.
 *
 * Why it is exact. For a channel with multiplier m >= 0 and shift s <= -1 (right shift r = -s,
 * 1..31; every TFLite layer whose scale is below 1/2), the reference computes
 *   t = SaturatingRoundingDoublingHighMul(x, m) = floor((x*m + 2^30) / 2^31)
 *   (no saturation: m >= 0 rules out x = m = INT32_MIN; floor form: see fixed_point.h), then
 *   RoundingDivideByPOT(t, r) = floor((t + 2^(r-1) + n) / 2^r), n = -1 if t < 0 else 0.
 * Nested floors of divisions by positive integers compose, so the result is
 *   floor((x*m + 2^30 + (2^(r-1) + n) * 2^31) / 2^(31+r)),
 * exact in 64 bits (|x*m| <= 2^62), which is the high word of that sum shifted right by r - 1.
 * n may be taken from the sign of x instead of t: they differ only when x < 0 and
 * t = 0 (x*m in [-2^30, 0)), and then floor((2^(r-1) - 1) / 2^r) = floor(2^(r-1) / 2^r) = 0.
 * So each channel stores the constant 2^30 + 2^(30+r) - 2^31 (the sum for x < 0) and the value
 * adds 2^31 when x >= 0. A channel with a left shift (s >= 0: no RoundingDivideByPOT) takes
 * floor((wrap(x * 2^s) * m + 2^30) / 2^31) from the same sum, which makes its block not fast
 * (an out-of-line step per value); a negative multiplier (not made by TFLite's prepare, but
 * possible in a hostile file) makes the whole block take utvm_mac_output_s8.
 */
#ifndef UTVM_KERNELS_REQUANT_S8_H
#define UTVM_KERNELS_REQUANT_S8_H

#include <stdbool.h>
#include <stdint.h>

#include "mac_s8.h"
#include "utvm/kernels.h"

/* The requantization of channels first..first+count-1 (count <= UTVM_KERNELS_CHANNEL_BLOCK):
 * fast when every channel shifts right (the entries' short form), else the entries with left
 * shifts too, or (reference: a negative multiplier) the parameters utvm_mac_output_s8 takes.
 * entry points into quant's table when it has one (always fast), else into storage, where a
 * channel of a block that is not fast with a left shift has shift -1, left its left shift and
 * round 2^30. */
typedef struct {
  bool fast;
  bool reference;
  int32_t first;
  int32_t output_offset;
  int32_t act_min;
  int32_t act_max;
  const int32_t *bias;
  const utvm_per_channel_quant_t *quant;
  const utvm_requant_entry_t *entry;
  utvm_requant_entry_t storage[UTVM_KERNELS_CHANNEL_BLOCK];
} utvm_requant_block_t;

/* Fills block for channels first..first+count-1 (count 1..UTVM_KERNELS_CHANNEL_BLOCK; quant
 * valid for them, bias NULL or one value per channel; with quant->table, points at it). */
void utvm_requant_block_fill(utvm_requant_block_t *block, const utvm_per_channel_quant_t *quant,
                             const int32_t *bias, int32_t output_offset, int32_t act_min,
                             int32_t act_max, int32_t first, int32_t count);

/* The requantized value of acc through a fast entry (bias added, before the output offset). */
static inline int32_t utvm_requant_entry_value(int32_t acc, const utvm_requant_entry_t *e) {
  const int32_t x = utvm_wrap_add(acc, e->bias);
  /* 2^31 more for x >= 0: the sign bit of ~x. */
  const uint64_t sign_term = (uint64_t)(~(uint32_t)x & 0x80000000u);
  const uint64_t round = ((uint64_t)(uint32_t)e->round_hi << 32) | (uint64_t)e->round_lo;
  const uint64_t sum = round + sign_term + (uint64_t)((int64_t)x * (int64_t)e->multiplier);
  const int32_t high = (int32_t)(uint32_t)(sum >> 32);
  return high >> e->shift;
}

/* Output value of a fast entry's channel from its accumulator (bias not yet added). */
static inline int8_t utvm_requant_entry_output(const utvm_requant_block_t *block,
                                               const utvm_requant_entry_t *e, int32_t acc) {
  const int32_t value = utvm_wrap_add(utvm_requant_entry_value(acc, e), block->output_offset);
  return (int8_t)utvm_clamp_s32(value, block->act_min, block->act_max);
}

/* Output value of channel block->first + k of a block that is not fast (bit-exact with
 * utvm_mac_output_s8). */
int8_t utvm_requant_output_general(const utvm_requant_block_t *block, int32_t k, int32_t acc);

/* utvm_requant_output where the caller knows block->fast (a constant in its specialised
 * copy of a loop: the test leaves the loop). */
static inline int8_t utvm_requant_output_known(const utvm_requant_block_t *block, bool fast,
                                               int32_t k, int32_t acc) {
  return fast ? utvm_requant_entry_output(block, &block->entry[k], acc)
              : utvm_requant_output_general(block, k, acc);
}

/* Output value of channel block->first + k from its accumulator (bias not yet added). */
static inline int8_t utvm_requant_output(const utvm_requant_block_t *block, int32_t k,
                                         int32_t acc) {
  int8_t out;
  if (block->fast) {
    out = utvm_requant_entry_output(block, &block->entry[k], acc);
  } else {
    out = utvm_requant_output_general(block, k, acc);
  }
  return out;
}

/* One fixed scaling RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x, multiplier),
 * right) with multiplier >= 0 and right 0..31, in the same 64-bit form (right 0 is the floor
 * form of fixed_point.h alone): the rounding constant for x < 0 (see above; 2^30 when
 * right is 0) and the shift. */
typedef struct {
  uint32_t round_lo;
  int32_t round_hi;
  int32_t multiplier;
  int32_t right;
} utvm_requant_scale_t;

/* Sets *scale; false (nothing usable) if multiplier < 0 or right is outside 0..31. */
bool utvm_requant_scale_init(utvm_requant_scale_t *scale, int32_t multiplier, int32_t right);

/* utvm_requant_scale where the caller knows whether scale->right is 0 (a constant in its
 * specialised copy of a loop). */
static inline int32_t utvm_requant_scale_known(int32_t x, const utvm_requant_scale_t *scale,
                                               bool right_is_zero) {
  const uint64_t round =
      ((uint64_t)(uint32_t)scale->round_hi << 32) | (uint64_t)scale->round_lo;
  const uint64_t product = (uint64_t)((int64_t)x * (int64_t)scale->multiplier);
  int32_t value;
  if (right_is_zero) {
    const uint64_t sum = round + product;
    /* floor(sum / 2^31) of the signed 64-bit sum: its high word times 2 plus bit 31. */
    value = (int32_t)(((uint32_t)(sum >> 32) << 1) | ((uint32_t)sum >> 31));
  } else {
    const uint64_t sum = round + (uint64_t)(~(uint32_t)x & 0x80000000u) + product;
    value = (int32_t)(uint32_t)(sum >> 32) >> (scale->right - 1);
  }
  return value;
}

/* The scaled value of x, bit-exact with utvm_rounding_divide_by_pot(
 * utvm_sat_round_doubling_high_mul(x, multiplier), right). */
static inline int32_t utvm_requant_scale(int32_t x, const utvm_requant_scale_t *scale) {
  return utvm_requant_scale_known(x, scale, scale->right == 0);
}

#endif /* UTVM_KERNELS_REQUANT_S8_H */

/* The fast paths' requantization tables (see requant_s8.h). */
#include "requant_s8.h"

void utvm_requant_block_fill(utvm_requant_block_t *block, const utvm_per_channel_quant_t *quant,
                             const int32_t *bias, int32_t output_offset, int32_t act_min,
                             int32_t act_max, int32_t first, int32_t count) {
  block->first = first;
  block->output_offset = output_offset;
  block->act_min = act_min;
  block->act_max = act_max;
  block->bias = bias;
  block->quant = quant;
  bool fast = true;
  bool reference = false;
  for (int32_t k = 0; k < count; ++k) {
    const int32_t channel = first + k;
    const int32_t q = (quant->count == 1) ? 0 : channel;
    const int32_t multiplier = quant->multiplier[q];
    const int32_t shift = quant->shift[q];
    utvm_requant_entry_t *e = &block->entry[k];
    e->bias = (bias != NULL) ? bias[channel] : 0;
    e->multiplier = multiplier;
    e->left = 0;
    if (multiplier < 0) {
      fast = false;
      reference = true;
      e->round_lo = 0u;
      e->round_hi = 0;
      e->shift = 0;
    } else if (shift >= 0) {
      fast = false;
      e->round_lo = (uint32_t)1u << 30u;
      e->round_hi = 0;
      e->shift = -1;
      e->left = shift;
    } else {
      const uint32_t right = (uint32_t)-shift; /* 1..31 */
      /* 2^30 + 2^(30+right) - 2^31 = 2^(30+right) - 2^30 (>= 2^30). */
      const uint64_t round = ((uint64_t)1u << (30u + right)) - ((uint64_t)1u << 30u);
      e->round_lo = (uint32_t)(round & 0xffffffffu);
      e->round_hi = (int32_t)(uint32_t)(round >> 32);
      e->shift = (int32_t)right - 1;
    }
  }
  block->fast = fast;
  block->reference = reference;
}

bool utvm_requant_scale_init(utvm_requant_scale_t *scale, int32_t multiplier, int32_t right) {
  if ((multiplier < 0) || (right < 0) || (right > 31)) {
    return false;
  }
  uint64_t round = (uint64_t)1u << 30u;
  if (right > 0) {
    round = ((uint64_t)1u << (30u + (uint32_t)right)) - ((uint64_t)1u << 30u);
  }
  scale->round_lo = (uint32_t)(round & 0xffffffffu);
  scale->round_hi = (int32_t)(uint32_t)(round >> 32);
  scale->multiplier = multiplier;
  scale->right = right;
  return true;
}

int8_t utvm_requant_output_general(const utvm_requant_block_t *block, int32_t k, int32_t acc) {
  if (block->reference) {
    return utvm_mac_output_s8(acc, block->bias, block->quant, block->first + k,
                              block->output_offset, block->act_min, block->act_max);
  }
  const utvm_requant_entry_t *e = &block->entry[k];
  int32_t value;
  if (e->shift >= 0) {
    value = utvm_requant_entry_value(acc, e);
  } else {
    const int32_t x = utvm_wrap_shl(utvm_wrap_add(acc, e->bias), e->left);
    const uint64_t sum = (uint64_t)e->round_lo + (uint64_t)((int64_t)x * (int64_t)e->multiplier);
    /* floor(sum / 2^31) of the signed 64-bit sum: its high word times 2 plus bit 31. */
    value = (int32_t)(((uint32_t)(sum >> 32) << 1) | ((uint32_t)sum >> 31));
  }
  value = utvm_wrap_add(value, block->output_offset);
  return (int8_t)utvm_clamp_s32(value, block->act_min, block->act_max);
}

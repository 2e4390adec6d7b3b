/*
 * The portable multiply-accumulate loop of CONV_2D and FULLY_CONNECTED, and the output step of
 * every path of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED (internal).
 */
#ifndef UTVM_KERNELS_MAC_S8_H
#define UTVM_KERNELS_MAC_S8_H

#include <stddef.h>
#include <stdint.h>

#include "fixed_point.h"
#include "utvm/kernels.h"

/* acc + sum over i < length of (filter[i] + filter_offset) * (input[i] + input_offset), in
 * 32 bits (wrapping, as TFLite's int32 accumulator does on its hardware). */
static inline int32_t utvm_mac_s8(int32_t acc, const int8_t *input, int32_t input_offset,
                                  const int8_t *filter, int32_t filter_offset, int32_t length) {
  for (int32_t i = 0; i < length; ++i) {
    acc = utvm_wrap_add(acc,
                        ((int32_t)filter[i] + filter_offset) * ((int32_t)input[i] + input_offset));
  }
  return acc;
}

/* One output value of CONV_2D or FULLY_CONNECTED from its accumulator: bias (or NULL) added,
 * requantized with channel's entry of quant, offset and clamped (TFLite's order, every path). */
static inline int8_t utvm_mac_output_s8(int32_t acc, const int32_t *bias,
                                        const utvm_per_channel_quant_t *quant, int32_t channel,
                                        int32_t output_offset, int32_t act_min, int32_t act_max) {
  int32_t value = acc;
  if (bias != NULL) {
    value = utvm_wrap_add(value, bias[channel]);
  }
  const int32_t q = (quant->count == 1) ? 0 : channel;
  value = utvm_multiply_by_quantized_multiplier(value, quant->multiplier[q], quant->shift[q]);
  value = utvm_clamp_s32(utvm_wrap_add(value, output_offset), act_min, act_max);
  return (int8_t)value;
}

#endif /* UTVM_KERNELS_MAC_S8_H */

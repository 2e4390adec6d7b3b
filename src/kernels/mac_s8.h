/*
 * The multiply-accumulate loop of CONV_2D and FULLY_CONNECTED (internal). A DSP or MVE build
 * replaces this function and nothing else; its result must stay bit-identical.
 */
#ifndef UTVM_KERNELS_MAC_S8_H
#define UTVM_KERNELS_MAC_S8_H

#include <stdint.h>

#include "fixed_point.h"

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

#endif /* UTVM_KERNELS_MAC_S8_H */

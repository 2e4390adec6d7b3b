/*
 * CONV_2D filters (and FULLY_CONNECTED weights) laid out for a core's kernels at compile time
 * (utvm_filter_layout_t): the sizes and the packing a host tool writes into the target's
 * constants. The kernels that read each layout check it against their build (conv2d_s8.c,
 * fully_connected_s8.c).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "shape.h"
#include "utvm/kernels.h"

size_t utvm_conv2d_s8_filter_size(utvm_filter_layout_t layout, const utvm_dims_t *filter_dims) {
  size_t bytes = 0u;
  if (utvm_dims_valid(filter_dims)) {
    const int64_t count = (int64_t)filter_dims->n * filter_dims->h * filter_dims->w *
                          filter_dims->c;
    if (layout == UTVM_FILTER_PLAIN) {
      bytes = (size_t)count;
    } else if (layout == UTVM_FILTER_DSP_S16) {
      /* int16 values, the channels in pairs: 2 * (count + one row) < 2^33 bytes */
      const uint64_t pairs = ((uint64_t)filter_dims->n + 1u) / 2u;
      const uint64_t length = (uint64_t)filter_dims->h * (uint64_t)filter_dims->w *
                              (uint64_t)filter_dims->c;
      const uint64_t wide = 4u * pairs * length;
      bytes = (wide <= (uint64_t)SIZE_MAX) ? (size_t)wide : 0u;
    } else if (layout == UTVM_FILTER_MVE_TERMS) {
      /* the values up to a whole word, then one int32 per channel: < 2^32 + 2^33 bytes */
      const uint64_t total = (((uint64_t)count + 3u) & ~(uint64_t)3u) +
                             (4u * (uint64_t)filter_dims->n);
      bytes = (total <= (uint64_t)SIZE_MAX) ? (size_t)total : 0u;
    } else {
      bytes = 0u;
    }
  }
  return bytes;
}

/* Stores value (-128..127) as a little-endian int16 at dst + 2 * index (the byte order of the
 * Cortex-M cores whose kernels read it, whatever the host's). */
static void put_s16(uint8_t *dst, int64_t index, int32_t value) {
  const uint32_t half = (uint32_t)value & 0xFFFFu;
  dst[2 * index] = (uint8_t)(half & 0xFFu);
  dst[(2 * index) + 1] = (uint8_t)(half >> 8u);
}

/* MVE_TERMS: the values, zeros up to a word, then each channel's input_offset * (sum of its
 * values) as a little-endian int32, wrapping as the kernels' accumulators do. */
static void pack_mve_terms(const utvm_dims_t *filter_dims, int32_t input_offset,
                           const int8_t *filter, uint8_t *out) {
  const int64_t length = (int64_t)filter_dims->h * filter_dims->w * filter_dims->c;
  const int64_t count = (int64_t)filter_dims->n * length;
  const int64_t padded = (count + 3) & ~(int64_t)3;
  (void)memcpy(out, filter, (size_t)count);
  for (int64_t i = count; i < padded; ++i) {
    out[i] = 0u;
  }
  for (int32_t k = 0; k < filter_dims->n; ++k) {
    const int8_t *row = &filter[(int64_t)k * length];
    uint32_t sum = 0u;
    for (int64_t i = 0; i < length; ++i) {
      const uint32_t value = (uint32_t)(int32_t)row[i];
      sum = sum + value;
    }
    const uint32_t term = sum * (uint32_t)input_offset;
    uint8_t *at = &out[padded + (4 * (int64_t)k)];
    for (uint32_t b = 0u; b < 4u; ++b) {
      at[b] = (uint8_t)((term >> (8u * b)) & 0xFFu);
    }
  }
}

utvm_err_t utvm_conv2d_s8_pack_filter(utvm_filter_layout_t layout, const utvm_dims_t *filter_dims,
                                      int32_t input_offset, const int8_t *filter, void *dst,
                                      size_t cap) {
  if (!utvm_dims_valid(filter_dims)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  const size_t bytes = utvm_conv2d_s8_filter_size(layout, filter_dims);
  if ((filter == NULL) || (dst == NULL) || (bytes == 0u) || (cap < bytes)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (layout == UTVM_FILTER_PLAIN) {
    (void)memcpy(dst, filter, bytes);
    return UTVM_OK;
  }
  if (layout == UTVM_FILTER_MVE_TERMS) {
    if (!utvm_input_offset_valid(input_offset)) {
      return UTVM_ERR_KERNEL_BAD_PARAM;
    }
    pack_mve_terms(filter_dims, input_offset, filter, (uint8_t *)dst);
    return UTVM_OK;
  }
  const int64_t length = (int64_t)filter_dims->h * filter_dims->w * filter_dims->c;
  const int64_t whole = length - (length % 4);
  /* index in a row's group of 4 of the value stored at position 0..3 (SXTB16's halves) */
  static const int64_t k_order[4] = {0, 2, 1, 3};
  uint8_t *out = (uint8_t *)dst;
  for (int32_t k = 0; k < filter_dims->n; k += 2) {
    const int8_t *r0 = &filter[(int64_t)k * length];
    const int8_t *r1 = ((k + 1) < filter_dims->n) ? &r0[length] : NULL;
    int64_t at = (int64_t)k * length; /* int16 values before the pair */
    for (int64_t i = 0; i < whole; i += 4) {
      for (int64_t j = 0; j < 4; ++j) {
        put_s16(out, at + j, r0[i + k_order[j]]);
        put_s16(out, at + 4 + j, (r1 != NULL) ? r1[i + k_order[j]] : 0);
      }
      at += 8;
    }
    for (int64_t i = whole; i < length; ++i) {
      put_s16(out, at, r0[i]);
      put_s16(out, at + 1, (r1 != NULL) ? r1[i] : 0);
      at += 2;
    }
  }
  return UTVM_OK;
}

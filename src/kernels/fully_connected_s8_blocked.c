/*
 * FULLY_CONNECTED in blocked portable C: utvm_fully_connected_s8_blocked (see fast_s8.h,
 * blocked_s8.h). utvm_fully_connected_s8 takes it on cores without the DSP extension or MVE
 * (Cortex-M0/M0+/M3, hosts). Each chunk of input values is widened with its offset once, then
 * multiplied into four rows at a time; the filter offset is folded into one product per output:
 * sum (w + fo) * v = sum w * v + fo * sum v.
 *
 * Stack: the requantization table of a channel block (24 bytes per channel: 1.5 KB by default), the
 * block's sums (4 bytes per channel) and FC_CHUNK widened input values (512 bytes). Frames by
 * default (arm-none-eabi-gcc 12.2 -fstack-usage on the cortex-m3 preset's flags: -Os with the
 * kernels' -O2): utvm_fully_connected_s8_blocked 2472 bytes, fc_rows_4 32: at most 2504 bytes deep
 * (the same on cortex-m4; cortex-m55 2472 + 48).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blocked_s8.h"
#include "fast_s8.h"
#include "mac_s8.h"
#include "requant_s8.h"

/* Input values the blocked FULLY_CONNECTED widens with their offset at a time (stack: two bytes
 * each). */
#define FC_CHUNK 256

/* a[0..3] += sums of filter rows w (four rows stride values apart, length values each) times
 * xo (the input values with their offset). */
static BLOCKED_NOINLINE void fc_rows_4(const int16_t *xo, const int8_t *w, int32_t stride,
                                       int32_t length, uint32_t a[4]) {
  const int8_t *w0 = w;
  const int8_t *w1 = &w0[stride];
  const int8_t *w2 = &w1[stride];
  const int8_t *w3 = &w2[stride];
  uint32_t a0 = a[0];
  uint32_t a1 = a[1];
  uint32_t a2 = a[2];
  uint32_t a3 = a[3];
  const int16_t *const x_end = &xo[length];
  while (xo != x_end) {
    const int32_t v = *xo;
    a0 += (uint32_t)((int32_t)*w0 * v);
    a1 += (uint32_t)((int32_t)*w1 * v);
    a2 += (uint32_t)((int32_t)*w2 * v);
    a3 += (uint32_t)((int32_t)*w3 * v);
    xo = &xo[1];
    w0 = &w0[1];
    w1 = &w1[1];
    w2 = &w2[1];
    w3 = &w3[1];
  }
  a[0] = a0;
  a[1] = a1;
  a[2] = a2;
  a[3] = a3;
}

void utvm_fully_connected_s8_blocked(const utvm_fully_connected_params_t *params,
                                     const utvm_per_channel_quant_t *quant, int32_t batches,
                                     int32_t input_depth, int32_t output_depth,
                                     const int8_t *input, const int8_t *filter,
                                     const int32_t *bias, int8_t *output) {
  const int32_t input_offset = params->input_offset;
  utvm_requant_block_t block;
  int16_t xo[FC_CHUNK];
  uint32_t sums[UTVM_KERNELS_CHANNEL_BLOCK];
  for (int32_t first = 0; first < output_depth; first += UTVM_KERNELS_CHANNEL_BLOCK) {
    const int32_t count = utvm_min_s32(UTVM_KERNELS_CHANNEL_BLOCK, output_depth - first);
    const int32_t count4 = count - count % 4;
    utvm_requant_block_fill(&block, quant, bias, params->output_offset, params->act_min,
                            params->act_max, first, count);
    for (int32_t b = 0; b < batches; ++b) {
      const int8_t *x = &input[b * input_depth];
      int8_t *out = &output[b * output_depth + first];
      uint32_t input_sum = 0u; /* sum of (x + input offset), for the filter offset */
      for (int32_t i = 0; i < input_depth; ++i) {
        input_sum += (uint32_t)((int32_t)x[i] + input_offset);
      }
      const uint32_t filter_term = (uint32_t)params->filter_offset * input_sum;
      for (int32_t k = 0; k < count; ++k) {
        sums[k] = filter_term;
      }
      /* Four rows per widened input value, FC_CHUNK input values at a time. */
      for (int32_t start = 0; start < input_depth; start += FC_CHUNK) {
        const int32_t length = utvm_min_s32(FC_CHUNK, input_depth - start);
        for (int32_t i = 0; i < length; ++i) {
          xo[i] = (int16_t)((int32_t)x[start + i] + input_offset);
        }
        for (int32_t k = 0; k < count4; k += 4) {
          fc_rows_4(xo, &filter[(first + k) * input_depth + start], input_depth, length,
                    &sums[k]);
        }
      }
      for (int32_t k = count4; k < count; ++k) {
        const int8_t *w = &filter[(first + k) * input_depth];
        for (int32_t i = 0; i < input_depth; ++i) {
          sums[k] += (uint32_t)((int32_t)w[i] * ((int32_t)x[i] + input_offset));
        }
      }
      for (int32_t k = 0; k < count; ++k) {
        out[k] = utvm_requant_output(&block, k, (int32_t)sums[k]);
      }
    }
  }
}

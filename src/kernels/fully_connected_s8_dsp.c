/*
 * FULLY_CONNECTED on the DSP extension: utvm_fully_connected_s8_dsp (see fast_s8.h, dsp_s8.h,
 * requant_s8_dsp.h). utvm_fully_connected_s8 takes it on cores with the DSP extension but not
 * MVE (Cortex-M4/M7/M33; the host tests with emulated intrinsics), for every call.
 * Four weight rows at a time by one input column widened per word (SXTAB16 adds the input
 * offset); a filter offset is folded into one product per output:
 * sum (w + fo)(x + io) = sum w (x + io) + fo * sum (x + io), modulo 2^32. Each sum is the same
 * 32-bit wrapping sum as the portable loops'.
 *
 * Stack: the requantization table of a channel block (24 bytes per channel: 1.5 KB by default) and
 * the block's biases, starting values and sums (4 bytes per channel each). Frames by default
 * (arm-none-eabi-gcc 12.2 -fstack-usage on the cortex-m4 preset's flags: -Os with the kernels'
 * -O2): utvm_fully_connected_s8_dsp 2584 bytes, then utvm_dsp_requant_row 32 or
 * utvm_dsp_fc_wide_groups (assembly) 36: at most 2620 bytes deep.
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

#if defined(UTVM_KERNELS_DSP_ASM)
/* dsp_dot_4x1_wide's groups of 4 values in Thumb-2 (fully_connected_s8_dsp_asm.S): sums[0..3]
 * plus the products of groups groups of x (offset_pair added) with pairs a and b. */
void utvm_dsp_fc_wide_groups(const int8_t *a, const int8_t *b, const int8_t *x, int32_t groups,
                             int32_t offset_pair, int32_t *sums);
#endif

/* dsp_dot_4x1 for two row pairs laid out as UTVM_FILTER_DSP_S16 (pair a's rows into s00 and
 * s01, pair b's into s10 and s11; 4 * length bytes each, word-aligned): whole groups of 4
 * values, two SMLAD per row on the input widened once (in assembly where UTVM_KERNELS_DSP_ASM),
 * then the last length % 4 values. */
static inline dsp_sums_t dsp_dot_4x1_wide(const int8_t *a, const int8_t *b, int32_t length,
                                          const int8_t *x, int32_t input_offset,
                                          const int32_t *start) {
  const int32_t offset_pair = utvm_dsp_pair(input_offset);
  dsp_sums_t s = {start[0], start[1], start[2], start[3]};
  const int8_t *pa = utvm_dsp_aligned4(a);
  const int8_t *pb = utvm_dsp_aligned4(b);
#if defined(UTVM_KERNELS_DSP_ASM)
  int32_t sums[4] = {s.s00, s.s01, s.s10, s.s11};
  utvm_dsp_fc_wide_groups(pa, pb, x, length / 4, offset_pair, sums);
  s.s00 = sums[0];
  s.s01 = sums[1];
  s.s10 = sums[2];
  s.s11 = sums[3];
#else
  const int8_t *xp = x;
  const int8_t *const x_end = &x[4 * (length / 4)];
  while (xp != x_end) {
    const int32_t word = utvm_dsp_load4(xp);
    const int32_t x_even = utvm_dsp_sxtab16(offset_pair, word);
    const int32_t x_odd = utvm_dsp_sxtab16_ror8(offset_pair, word);
    /* each row's two words loaded together (one LDRD) before they are used */
    const int32_t a0_even = utvm_dsp_load4(pa);
    const int32_t a0_odd = utvm_dsp_load4(&pa[4]);
    s.s00 = utvm_dsp_smlad(a0_even, x_even, s.s00);
    s.s00 = utvm_dsp_smlad(a0_odd, x_odd, s.s00);
    const int32_t a1_even = utvm_dsp_load4(&pa[8]);
    const int32_t a1_odd = utvm_dsp_load4(&pa[12]);
    s.s01 = utvm_dsp_smlad(a1_even, x_even, s.s01);
    s.s01 = utvm_dsp_smlad(a1_odd, x_odd, s.s01);
    const int32_t b0_even = utvm_dsp_load4(pb);
    const int32_t b0_odd = utvm_dsp_load4(&pb[4]);
    s.s10 = utvm_dsp_smlad(b0_even, x_even, s.s10);
    s.s10 = utvm_dsp_smlad(b0_odd, x_odd, s.s10);
    const int32_t b1_even = utvm_dsp_load4(&pb[8]);
    const int32_t b1_odd = utvm_dsp_load4(&pb[12]);
    s.s11 = utvm_dsp_smlad(b1_even, x_even, s.s11);
    s.s11 = utvm_dsp_smlad(b1_odd, x_odd, s.s11);
    xp = &xp[4];
    pa = &pa[16];
    pb = &pb[16];
  }
#endif
  /* the last values' (row 0, row 1) int16 pairs after the groups, value i's at byte 4 * i
   * (indexed from a and b: the loop's pointers stay in registers) */
  for (int32_t i = 4 * (length / 4); i < length; ++i) {
    const int32_t v = (int32_t)x[i] + input_offset;
    s.s00 = utvm_wrap_add(s.s00, utvm_dsp_load2(&a[4 * i]) * v);
    s.s01 = utvm_wrap_add(s.s01, utvm_dsp_load2(&a[4 * i + 2]) * v);
    s.s10 = utvm_wrap_add(s.s10, utvm_dsp_load2(&b[4 * i]) * v);
    s.s11 = utvm_wrap_add(s.s11, utvm_dsp_load2(&b[4 * i + 2]) * v);
  }
  return s;
}

/* The sums of a block's count rows laid out as DSP_S16 (pairs, a last odd row paired with
 * zeros) with input x, from start (entries up to the next multiple of 4 past count
 * written), into acc (the same entries): two pairs at a time, a last single pair with itself. */
static void dsp_block_wide(const int8_t *pairs, int32_t count, int32_t length, const int8_t *x,
                           int32_t input_offset, const int32_t *start, int32_t *acc) {
  const int32_t n_pairs = (count + 1) / 2;
  const int32_t pair_bytes = 4 * length;
  for (int32_t q = 0; q < n_pairs; q += 2) {
    const int8_t *a = &pairs[q * pair_bytes];
    const int8_t *b = ((q + 1) < n_pairs) ? &a[pair_bytes] : a;
    const dsp_sums_t s = dsp_dot_4x1_wide(a, b, length, x, input_offset, &start[2 * q]);
    acc[2 * q] = s.s00;
    acc[2 * q + 1] = s.s01;
    acc[2 * q + 2] = s.s10;
    acc[2 * q + 3] = s.s11;
  }
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
  const bool wide = params->weights_layout == (int32_t)UTVM_FILTER_DSP_S16;
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
      if (wide) {
        /* the pairs' sums come four at a time: the starts past count (at most the block) 0 */
        const int32_t padded = 4 * (((count + 1) / 2 + 1) / 2);
        for (int32_t k = count; k < padded; ++k) {
          start[k] = 0;
        }
        dsp_block_wide(&filter[2 * first * input_depth], count, input_depth, x, input_offset,
                       start, acc);
      } else {
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
          acc[k] =
              dsp_dot_1x1(&weights[k * input_depth], input_depth, x, input_offset, start[k]);
        }
      }
      utvm_dsp_requant_row(&block, acc, count, &output[batch * output_depth + first]);
    }
  }
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without the DSP. */
typedef int utvm_kernels_no_dsp_fully_connected_t;
#endif

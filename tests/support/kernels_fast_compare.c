/* Randomized comparison of the fast paths of CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD
 * and AVERAGE_POOL_2D with their reference loops, and of element-wise kernels run in place with
 * their results out of place (see the header). */
#include "kernels_fast_compare.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fast_s8.h"

#if defined(UTVM_KERNELS_DSP_PATHS)
#define COMPARE_DSP 1
#else
#define COMPARE_DSP 0
#endif

#if defined(__ARM_FEATURE_MVE)
#define COMPARE_MVE 1
#else
#define COMPARE_MVE 0
#endif

#define COMPARE_MAX_BYTES 16384
#define COMPARE_MAX_CHANNELS 80

static int8_t g_input[COMPARE_MAX_BYTES];
static int8_t g_filter[COMPARE_MAX_BYTES];
static int8_t g_out_fast[COMPARE_MAX_BYTES];
static int8_t g_out_portable[COMPARE_MAX_BYTES];
/* Word-aligned, as the executors' workspaces are (the DSP convolution reads its columns in word
 * pairs there and takes the blocked path at other alignments). */
static union {
  int32_t words[COMPARE_MAX_BYTES / 4];
  int8_t bytes[COMPARE_MAX_BYTES];
} g_scratch;
/* A filter laid out as UTVM_FILTER_DSP_S16 (DSP builds) or UTVM_FILTER_MVE_TERMS: word-aligned,
 * as the compiler places constants. */
#if COMPARE_DSP
#define COMPARE_PACKED_BYTES (2 * COMPARE_MAX_BYTES + 4 * COMPARE_MAX_CHANNELS)
#else
#define COMPARE_PACKED_BYTES (COMPARE_MAX_BYTES + 4 + 4 * COMPARE_MAX_CHANNELS)
#endif
static union {
  int32_t words[COMPARE_PACKED_BYTES / 4];
  int8_t bytes[COMPARE_PACKED_BYTES];
} g_packed;
static int32_t g_bias[COMPARE_MAX_CHANNELS];
static int32_t g_multiplier[COMPARE_MAX_CHANNELS];
static int8_t g_shift[COMPARE_MAX_CHANNELS];
static utvm_requant_entry_t g_table[COMPARE_MAX_CHANNELS];

/* xorshift32: the same cases on every machine. */
static uint32_t next_random(uint32_t *state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

/* A value in lo..hi. */
static int32_t random_in(uint32_t *state, int32_t lo, int32_t hi) {
  return lo + (int32_t)(next_random(state) % (uint32_t)(hi - lo + 1));
}

static void fill_s8(uint32_t *state, int8_t *data, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    data[i] = (int8_t)random_in(state, -128, 127);
  }
}

/* Per-tensor (count 1) or per-channel quantization with random multipliers, shifts and bias;
 * the bias pointer is NULL one time in four; half the time a requantization table made once
 * (utvm_requant_table_fill, as a compiler does) where every channel's form allows one. */
static const int32_t *random_quant(uint32_t *state, int32_t channels,
                                   utvm_per_channel_quant_t *quant) {
  /* Mostly TFLite's ranges; one case in eight any multiplier, shift and bias (wrapping, the
   * saturating doubling multiply, rounding shifts up to 31 both ways). */
  const bool wild = random_in(state, 0, 7) == 0;
  /* Half the tame cases shift right only (every channel on the fast paths' requantization
   * table), the others up to 1 left too (the table falls back). */
  const int32_t top_shift = (random_in(state, 0, 1) == 0) ? -1 : 1;
  quant->count = (random_in(state, 0, 1) == 0) ? 1 : channels;
  for (int32_t i = 0; i < quant->count; ++i) {
    g_multiplier[i] = wild ? (int32_t)next_random(state) : random_in(state, 1073741824, INT32_MAX);
    g_shift[i] = (int8_t)(wild ? random_in(state, -31, 31) : random_in(state, -14, top_shift));
  }
  if (wild && (random_in(state, 0, 3) == 0)) {
    g_multiplier[0] = INT32_MIN;
  }
  quant->multiplier = g_multiplier;
  quant->shift = g_shift;
  for (int32_t i = 0; i < channels; ++i) {
    g_bias[i] = wild ? (int32_t)next_random(state) : random_in(state, -40000, 40000);
  }
  const int32_t *bias = (random_in(state, 0, 3) == 0) ? NULL : g_bias;
  quant->table = NULL;
  if ((random_in(state, 0, 1) == 0) &&
      (utvm_requant_table_fill(quant, bias, channels, g_table) == UTVM_OK)) {
    quant->table = g_table;
  }
  return bias;
}

/* Input offset -127..128 with the extremes often, output zero point, activation range. */
static void random_offsets(uint32_t *state, int32_t *input_offset, int32_t *output_offset,
                           int32_t *act_min, int32_t *act_max) {
  const int32_t pick = random_in(state, 0, 3);
  *input_offset = (pick == 0) ? -127 : ((pick == 1) ? 128 : random_in(state, -127, 128));
  const int32_t out_pick = random_in(state, 0, 3);
  *output_offset = (out_pick == 0) ? -128 : ((out_pick == 1) ? 127 : random_in(state, -128, 127));
  *act_min = (random_in(state, 0, 1) == 0) ? -128 : random_in(state, -128, 0);
  *act_max = (random_in(state, 0, 1) == 0) ? 127 : random_in(state, *act_min, 127);
}

/* Output size of a window (at least 1; sometimes one more than fits, read as padding). */
static int32_t window_out(uint32_t *state, int32_t in, int32_t filter, int32_t stride,
                          int32_t dilation, int32_t pad) {
  const int32_t span = (filter - 1) * dilation + 1;
  int32_t out = (in + 2 * pad - span) / stride + 1;
  if (out < 1) {
    out = 1;
  }
  if (random_in(state, 0, 7) == 0) {
    ++out;
  }
  return out;
}

static bool same_bytes(int32_t count, utvm_fast_compare_result_t *result) {
  result->compared_bytes += count;
  return memcmp(g_out_fast, g_out_portable, (size_t)count) == 0;
}

/* Clears the fast path's output before the next path writes it. */
static void clear_fast(void) { (void)memset(g_out_fast, 0x5a, sizeof g_out_fast); }

#if COMPARE_DSP
/* The convolution again with its filter laid out as DSP_S16 (g_out_portable holds the portable
 * result): the DSP kernel, then the dispatcher, which runs it on a DSP build (not MVE) and
 * refuses it on any other. */
static bool conv_dsp_s16_case(const utvm_conv2d_params_t *plain,
                              const utvm_per_channel_quant_t *quant, const utvm_dims_t *in_dims,
                              const utvm_dims_t *filter_dims, const int32_t *bias,
                              const utvm_dims_t *out_dims, int32_t out_count,
                              utvm_fast_compare_result_t *result) {
  utvm_conv2d_params_t params = *plain;
  params.filter_layout = (int32_t)UTVM_FILTER_DSP_S16;
  bool same = utvm_conv2d_s8_pack_filter(UTVM_FILTER_DSP_S16, filter_dims, params.input_offset,
                                         g_filter, g_packed.bytes,
                                         sizeof g_packed.bytes) == UTVM_OK;
  if (same) {
    clear_fast();
    utvm_conv2d_s8_dsp(&params, quant, in_dims, g_input, filter_dims, g_packed.bytes, bias,
                       out_dims, g_out_fast, g_scratch.bytes);
    same = same_bytes(out_count, result);
  }
  if (same) {
    clear_fast();
    const utvm_err_t err = utvm_conv2d_s8(&params, quant, in_dims, g_input, filter_dims,
                                          g_packed.bytes, bias, out_dims, g_out_fast,
                                          g_scratch.bytes);
#if defined(__ARM_FEATURE_DSP) && !defined(__ARM_FEATURE_MVE)
    same = (err == UTVM_OK) && same_bytes(out_count, result) &&
           (utvm_conv2d_s8(&params, quant, in_dims, g_input, filter_dims, g_packed.bytes, bias,
                           out_dims, g_out_fast, &g_scratch.bytes[2]) == UTVM_ERR_KERNEL_BAD_PARAM) &&
           (utvm_conv2d_s8(&params, quant, in_dims, g_input, filter_dims, &g_packed.bytes[2], bias,
                           out_dims, g_out_fast, g_scratch.bytes) == UTVM_ERR_KERNEL_BAD_PARAM);
#else
    same = err == UTVM_ERR_KERNEL_BAD_PARAM;
#endif
  }
  result->conv_dsp_s16 += same ? 1 : 0;
  return same;
}
#endif

/* The convolution again with its filter laid out as MVE_TERMS (g_out_portable holds the
 * portable result): on an MVE build the MVE kernel and the dispatcher, which runs it with
 * scratch and a word-aligned filter and refuses it without either; any other build's dispatcher
 * refuses it. */
static bool conv_mve_terms_case(const utvm_conv2d_params_t *plain,
                                const utvm_per_channel_quant_t *quant,
                                const utvm_dims_t *in_dims, const utvm_dims_t *filter_dims,
                                const int32_t *bias, const utvm_dims_t *out_dims,
                                int32_t out_count, utvm_fast_compare_result_t *result) {
  utvm_conv2d_params_t params = *plain;
  params.filter_layout = (int32_t)UTVM_FILTER_MVE_TERMS;
  bool same = utvm_conv2d_s8_pack_filter(UTVM_FILTER_MVE_TERMS, filter_dims,
                                         params.input_offset, g_filter, g_packed.bytes,
                                         sizeof g_packed.bytes) == UTVM_OK;
  const utvm_err_t err = utvm_conv2d_s8(&params, quant, in_dims, g_input, filter_dims,
                                        g_packed.bytes, bias, out_dims, g_out_fast,
                                        g_scratch.bytes);
#if COMPARE_MVE
  same = same && (err == UTVM_OK) && same_bytes(out_count, result);
  if (same) {
    clear_fast();
    utvm_conv2d_s8_mve(&params, quant, in_dims, g_input, filter_dims, g_packed.bytes, bias,
                       out_dims, g_out_fast, g_scratch.bytes);
    same = same_bytes(out_count, result) &&
           (utvm_conv2d_s8(&params, quant, in_dims, g_input, filter_dims, g_packed.bytes, bias,
                           out_dims, g_out_fast, NULL) == UTVM_ERR_KERNEL_BAD_PARAM) &&
           (utvm_conv2d_s8(&params, quant, in_dims, g_input, filter_dims, &g_packed.bytes[2],
                           bias, out_dims, g_out_fast, g_scratch.bytes) ==
            UTVM_ERR_KERNEL_BAD_PARAM);
  }
#else
  (void)out_count;
  same = same && (err == UTVM_ERR_KERNEL_BAD_PARAM);
#endif
  result->conv_mve_terms += same ? 1 : 0;
  return same;
}

static bool conv_case(uint32_t *state, utvm_fast_compare_result_t *result) {
  utvm_conv2d_params_t params;
  utvm_dims_t in_dims;
  utvm_dims_t filter_dims;
  utvm_dims_t out_dims;
  const bool pointwise = random_in(state, 0, 2) == 0;
  /* One case in eight has more output channels than the MVE paths sum at a time (64). */
  const bool wide = random_in(state, 0, 7) == 0;
  in_dims.n = wide ? 1 : random_in(state, 1, 2);
  in_dims.h = random_in(state, 1, wide ? 4 : 8);
  in_dims.w = random_in(state, 1, wide ? 4 : 8);
  /* Channel counts that are multiples of 4 (word-wise columns) a third of the time. */
  in_dims.c = (random_in(state, 0, 2) == 0) ? 4 * random_in(state, 1, 4) : random_in(state, 1, 19);
  /* A 1x1 convolution over 32, 48 or 64 channels one time in four (the MVE dot loop's rows in
   * pairs, as in the models' pointwise layers). */
  if (pointwise && (random_in(state, 0, 3) == 0)) {
    in_dims.c = 16 * random_in(state, 2, 4);
  }
  /* Output channels past a few blocks of 4 one time in four. */
  filter_dims.n = (random_in(state, 0, 3) == 0) ? random_in(state, 10, 24) : random_in(state, 1, 9);
  if (wide) {
    filter_dims.n = random_in(state, 60, 72);
  }
  filter_dims.h = pointwise ? 1 : random_in(state, 1, 3);
  filter_dims.w = pointwise ? 1 : random_in(state, 1, 3);
  filter_dims.c = in_dims.c;
  /* Half the 1x1 cases of stride 1 (the MVE path reads up to 16 channels in place). */
  const bool unit_stride = pointwise && (random_in(state, 0, 1) == 0);
  params.stride_h = unit_stride ? 1 : random_in(state, 1, 3);
  params.stride_w = unit_stride ? 1 : random_in(state, 1, 3);
  params.dilation_h = random_in(state, 1, 2);
  params.dilation_w = random_in(state, 1, 2);
  params.pad_top = pointwise ? 0 : random_in(state, 0, 2);
  params.pad_left = pointwise ? 0 : random_in(state, 0, 2);
  random_offsets(state, &params.input_offset, &params.output_offset, &params.act_min,
                 &params.act_max);
  params.filter_layout = (int32_t)UTVM_FILTER_PLAIN;
  out_dims.n = in_dims.n;
  out_dims.h = window_out(state, in_dims.h, filter_dims.h, params.stride_h, params.dilation_h,
                          params.pad_top);
  out_dims.w = window_out(state, in_dims.w, filter_dims.w, params.stride_w, params.dilation_w,
                          params.pad_left);
  out_dims.c = filter_dims.n;
  utvm_per_channel_quant_t quant;
  const int32_t *bias = random_quant(state, out_dims.c, &quant);
  const int32_t out_count = out_dims.n * out_dims.h * out_dims.w * out_dims.c;
  fill_s8(state, g_input, in_dims.n * in_dims.h * in_dims.w * in_dims.c);
  fill_s8(state, g_filter, filter_dims.n * filter_dims.h * filter_dims.w * filter_dims.c);
  (void)memset(g_out_fast, 0x5a, sizeof g_out_fast);
  (void)memset(g_out_portable, 0xa5, sizeof g_out_portable);
  (void)memset(g_scratch.bytes, 0x77, sizeof g_scratch.bytes);
  utvm_conv2d_s8_portable(&params, &quant, &in_dims, g_input, &filter_dims, g_filter, bias,
                          &out_dims, g_out_portable);
  utvm_conv2d_s8_blocked(&params, &quant, &in_dims, g_input, &filter_dims, g_filter, bias,
                         &out_dims, g_out_fast);
  bool same = same_bytes(out_count, result);
#if COMPARE_DSP
  clear_fast();
  /* The scratch word-aligned three times in four, else 1 to 3 bytes off. */
  const int32_t dsp_offset = (random_in(state, 0, 3) == 0) ? random_in(state, 1, 3) : 0;
  utvm_conv2d_s8_dsp(&params, &quant, &in_dims, g_input, &filter_dims, g_filter, bias, &out_dims,
                     g_out_fast, &g_scratch.bytes[dsp_offset]);
  same = same && same_bytes(out_count, result) &&
         ((utvm_conv2d_s8_scratch_size_for(UTVM_KERNELS_DSP, &in_dims, &filter_dims, &out_dims) +
           3u) <= sizeof g_scratch.bytes);
  same = same && conv_dsp_s16_case(&params, &quant, &in_dims, &filter_dims, bias, &out_dims,
                                   out_count, result);
#endif
#if COMPARE_MVE
  clear_fast();
  /* The scratch at any alignment, its exact size at the end of the buffer. */
  const size_t mve_scratch =
      utvm_conv2d_s8_scratch_size_for(UTVM_KERNELS_MVE, &in_dims, &filter_dims, &out_dims);
  same = same && ((mve_scratch + 3u) <= sizeof g_scratch.bytes);
  if (same) {
    utvm_conv2d_s8_mve(&params, &quant, &in_dims, g_input, &filter_dims, g_filter, bias,
                       &out_dims, g_out_fast,
                       &g_scratch.bytes[sizeof g_scratch.bytes - mve_scratch -
                                        (size_t)random_in(state, 0, 3)]);
    same = same_bytes(out_count, result);
  }
#endif
  if (same) {
    clear_fast();
    same = conv_mve_terms_case(&params, &quant, &in_dims, &filter_dims, bias, &out_dims,
                               out_count, result);
  }
  result->conv_cases += 1;
  result->conv_pointwise += pointwise ? 1 : 0;
  return same;
}

static bool depthwise_case(uint32_t *state, utvm_fast_compare_result_t *result) {
  utvm_depthwise_conv2d_params_t params;
  utvm_dims_t in_dims;
  utvm_dims_t filter_dims;
  utvm_dims_t out_dims;
  const bool three = random_in(state, 0, 1) == 0;
  const bool wide = random_in(state, 0, 7) == 0;
  in_dims.n = wide ? 1 : random_in(state, 1, 2);
  in_dims.h = random_in(state, 1, 8);
  in_dims.w = random_in(state, 1, 8);
  const int32_t multipliers[6] = {1, 1, 4, 8, 2, 3};
  params.depth_multiplier = multipliers[random_in(state, 0, 5)];
  /* At most 40 input channels (16-channel blocks and tails) and 24 output channels when the
   * multiplier is above 1; with wide, 60 to 72 output channels. */
  in_dims.c =
      random_in(state, 1, (params.depth_multiplier == 1) ? 40 : 24 / params.depth_multiplier);
  if (wide) {
    in_dims.c = random_in(state, 60, 72) / params.depth_multiplier;
  }
  filter_dims.n = 1;
  filter_dims.h = three ? 3 : random_in(state, 1, 4);
  filter_dims.w = three ? 3 : random_in(state, 1, 4);
  filter_dims.c = in_dims.c * params.depth_multiplier;
  params.stride_h = random_in(state, 1, 3);
  params.stride_w = random_in(state, 1, 3);
  params.dilation_h = random_in(state, 1, 2);
  params.dilation_w = random_in(state, 1, 2);
  params.pad_top = random_in(state, 0, 2);
  params.pad_left = random_in(state, 0, 2);
  random_offsets(state, &params.input_offset, &params.output_offset, &params.act_min,
                 &params.act_max);
  out_dims.n = in_dims.n;
  out_dims.h = window_out(state, in_dims.h, filter_dims.h, params.stride_h, params.dilation_h,
                          params.pad_top);
  out_dims.w = window_out(state, in_dims.w, filter_dims.w, params.stride_w, params.dilation_w,
                          params.pad_left);
  out_dims.c = filter_dims.c;
  utvm_per_channel_quant_t quant;
  const int32_t *bias = random_quant(state, out_dims.c, &quant);
  fill_s8(state, g_input, in_dims.n * in_dims.h * in_dims.w * in_dims.c);
  fill_s8(state, g_filter, filter_dims.h * filter_dims.w * filter_dims.c);
  (void)memset(g_out_fast, 0x5a, sizeof g_out_fast);
  (void)memset(g_out_portable, 0xa5, sizeof g_out_portable);
  utvm_depthwise_conv2d_s8_portable(&params, &quant, &in_dims, g_input, &filter_dims, g_filter,
                                    bias, &out_dims, g_out_portable);
  const int32_t out_count = out_dims.n * out_dims.h * out_dims.w * out_dims.c;
  utvm_depthwise_conv2d_s8_blocked(&params, &quant, &in_dims, g_input, &filter_dims, g_filter,
                                   bias, &out_dims, g_out_fast);
  bool same = same_bytes(out_count, result);
#if COMPARE_DSP
  if (utvm_depthwise_conv2d_s8_dsp_applies(params.depth_multiplier)) {
    clear_fast();
    utvm_depthwise_conv2d_s8_dsp(&params, &quant, &in_dims, g_input, &filter_dims, g_filter,
                                 bias, &out_dims, g_out_fast);
    same = same && same_bytes(out_count, result);
  }
#endif
#if COMPARE_MVE
  clear_fast();
  utvm_depthwise_conv2d_s8_mve(&params, &quant, &in_dims, g_input, &filter_dims, g_filter, bias,
                               &out_dims, g_out_fast);
  same = same && same_bytes(out_count, result);
#endif
  /* The dispatcher with its scratch: one input channel runs as a convolution on DSP and MVE. */
  const size_t scratch =
      utvm_depthwise_conv2d_s8_scratch_size(&in_dims, &filter_dims, &out_dims);
  if ((scratch > 0u) && (scratch <= sizeof g_scratch.bytes)) {
    (void)memset(g_out_fast, 0x5a, sizeof g_out_fast);
    (void)memset(g_scratch.bytes, 0x77, sizeof g_scratch.bytes);
    same = same && (utvm_depthwise_conv2d_s8(&params, &quant, &in_dims, g_input, &filter_dims,
                                             g_filter, bias, &out_dims, g_out_fast,
                                             g_scratch.bytes) == UTVM_OK) &&
           same_bytes(out_count, result);
    result->depthwise_as_conv += 1;
  }
  result->depthwise_cases += 1;
  result->depthwise_shared += (params.depth_multiplier > 1) ? 1 : 0;
  return same;
}

/* The layer again with its weights laid out as MVE_TERMS (g_out_portable holds the portable
 * result): an MVE build's utvm_fully_connected_s8 runs them when word-aligned and refuses them
 * otherwise; any other build refuses them. */
static bool fc_mve_terms_case(const utvm_fully_connected_params_t *plain,
                              const utvm_per_channel_quant_t *quant, int32_t batches,
                              int32_t depth, int32_t units, const int32_t *bias,
                              utvm_fast_compare_result_t *result) {
  utvm_fully_connected_params_t params = *plain;
  const utvm_dims_t weights = {units, 1, 1, depth};
  params.weights_layout = (int32_t)UTVM_FILTER_MVE_TERMS;
  bool same = utvm_conv2d_s8_pack_filter(UTVM_FILTER_MVE_TERMS, &weights, params.input_offset,
                                         g_filter, g_packed.bytes,
                                         sizeof g_packed.bytes) == UTVM_OK;
  const utvm_err_t err = utvm_fully_connected_s8(&params, quant, batches, depth, units, g_input,
                                                 g_packed.bytes, bias, g_out_fast, NULL);
#if COMPARE_MVE
  same = same && (err == UTVM_OK) && same_bytes(batches * units, result) &&
         (utvm_fully_connected_s8(&params, quant, batches, depth, units, g_input,
                                  &g_packed.bytes[1], bias, g_out_fast, NULL) ==
          UTVM_ERR_KERNEL_BAD_PARAM);
#else
  same = same && (err == UTVM_ERR_KERNEL_BAD_PARAM);
#endif
  result->fc_mve_terms += same ? 1 : 0;
  return same;
}

#if COMPARE_DSP
/* The layer again with its weights laid out as DSP_S16 (g_out_portable holds the portable
 * result): the DSP kernel, then the dispatcher, which runs them word-aligned on a DSP build
 * (not MVE) and refuses them otherwise and on any other build. */
static bool fc_dsp_s16_case(const utvm_fully_connected_params_t *plain,
                            const utvm_per_channel_quant_t *quant, int32_t batches, int32_t depth,
                            int32_t units, const int32_t *bias,
                            utvm_fast_compare_result_t *result) {
  utvm_fully_connected_params_t params = *plain;
  const utvm_dims_t weights = {units, 1, 1, depth};
  params.weights_layout = (int32_t)UTVM_FILTER_DSP_S16;
  bool same = utvm_conv2d_s8_pack_filter(UTVM_FILTER_DSP_S16, &weights, params.input_offset,
                                         g_filter, g_packed.bytes,
                                         sizeof g_packed.bytes) == UTVM_OK;
  if (same) {
    clear_fast();
    utvm_fully_connected_s8_dsp(&params, quant, batches, depth, units, g_input, g_packed.bytes,
                                bias, g_out_fast);
    same = same_bytes(batches * units, result);
  }
  if (same) {
    clear_fast();
    const utvm_err_t err = utvm_fully_connected_s8(&params, quant, batches, depth, units, g_input,
                                                   g_packed.bytes, bias, g_out_fast, NULL);
#if defined(__ARM_FEATURE_DSP) && !defined(__ARM_FEATURE_MVE)
    same = (err == UTVM_OK) && same_bytes(batches * units, result) &&
           (utvm_fully_connected_s8(&params, quant, batches, depth, units, g_input,
                                    &g_packed.bytes[2], bias, g_out_fast, NULL) ==
            UTVM_ERR_KERNEL_BAD_PARAM);
#else
    same = err == UTVM_ERR_KERNEL_BAD_PARAM;
#endif
  }
  result->fc_dsp_s16 += same ? 1 : 0;
  return same;
}
#endif

static bool fc_case(uint32_t *state, utvm_fast_compare_result_t *result) {
  utvm_fully_connected_params_t params;
  const int32_t batches = random_in(state, 1, 3);
  const int32_t depth = random_in(state, 1, 70);
  const int32_t units = (random_in(state, 0, 7) == 0) ? random_in(state, 60, 72)
                                                     : random_in(state, 1, 23);
  random_offsets(state, &params.input_offset, &params.output_offset, &params.act_min,
                 &params.act_max);
  params.filter_offset = (random_in(state, 0, 1) == 0) ? 0 : random_in(state, -127, 128);
  params.weights_layout = (int32_t)UTVM_FILTER_PLAIN;
  utvm_per_channel_quant_t quant;
  const int32_t *bias = random_quant(state, units, &quant);
  fill_s8(state, g_input, batches * depth);
  fill_s8(state, g_filter, units * depth);
  (void)memset(g_out_fast, 0x5a, sizeof g_out_fast);
  (void)memset(g_out_portable, 0xa5, sizeof g_out_portable);
  utvm_fully_connected_s8_portable(&params, &quant, batches, depth, units, g_input, g_filter,
                                   bias, g_out_portable);
  utvm_fully_connected_s8_blocked(&params, &quant, batches, depth, units, g_input, g_filter, bias,
                                  g_out_fast);
  bool same = same_bytes(batches * units, result);
#if COMPARE_DSP
  clear_fast();
  utvm_fully_connected_s8_dsp(&params, &quant, batches, depth, units, g_input, g_filter, bias,
                              g_out_fast);
  same = same && same_bytes(batches * units, result) &&
         fc_dsp_s16_case(&params, &quant, batches, depth, units, bias, result);
#endif
#if COMPARE_MVE
  clear_fast();
  utvm_fully_connected_s8_mve(&params, &quant, batches, depth, units, g_input, g_filter, bias,
                              g_out_fast);
  same = same && same_bytes(batches * units, result);
#endif
  if (same) {
    clear_fast();
    same = fc_mve_terms_case(&params, &quant, batches, depth, units, bias, result);
  }
  result->fc_cases += 1;
  return same;
}

/* ADD of two inputs of one shape (no broadcasting) through utvm_add_s8 (the MVE path on a core
 * with MVE), half the time in place, against the portable loop. */
static bool add_case(uint32_t *state, utvm_fast_compare_result_t *result) {
  utvm_add_params_t params;
  const bool wild = random_in(state, 0, 7) == 0;
  int32_t unused_min;
  int32_t unused_max;
  random_offsets(state, &params.input1_offset, &params.output_offset, &params.act_min,
                 &params.act_max);
  random_offsets(state, &params.input2_offset, &unused_min, &unused_min, &unused_max);
  params.left_shift = wild ? random_in(state, 0, 23) : 20;
  params.input1_multiplier =
      wild ? (int32_t)next_random(state) : random_in(state, 1073741824, INT32_MAX);
  params.input2_multiplier =
      wild ? (int32_t)next_random(state) : random_in(state, 1073741824, INT32_MAX);
  params.output_multiplier =
      wild ? (int32_t)next_random(state) : random_in(state, 1073741824, INT32_MAX);
  params.input1_shift = wild ? random_in(state, -31, 0) : random_in(state, -3, 0);
  params.input2_shift = wild ? random_in(state, -31, 0) : random_in(state, -3, 0);
  params.output_shift = wild ? random_in(state, -31, 0) : random_in(state, -22, -16);
  utvm_shape_t shape;
  shape.rank = 2;
  shape.dims[0] = random_in(state, 1, 3);
  shape.dims[1] = random_in(state, 1, 70);
  const int32_t count = shape.dims[0] * shape.dims[1];
  fill_s8(state, g_input, count);
  fill_s8(state, g_filter, count);
  (void)memset(g_out_portable, 0xa5, sizeof g_out_portable);
  utvm_add_s8_portable(&params, count, g_input, g_filter, g_out_portable);
  const bool in_place = random_in(state, 0, 1) == 0;
  if (in_place) {
    (void)memcpy(g_out_fast, g_input, (size_t)count);
  } else {
    (void)memset(g_out_fast, 0x5a, sizeof g_out_fast);
  }
  const utvm_err_t err = utvm_add_s8(&params, &shape, in_place ? g_out_fast : g_input, &shape,
                                     g_filter, &shape, g_out_fast);
  result->add_cases += 1;
  return (err == UTVM_OK) && same_bytes(count, result);
}

/* One pooling dimension: a window of 1..size + 1 pixels (the whole input one time in four),
 * its stride and padding (0..2), and the output size (at most size + 2), every window holding
 * an input pixel. */
static void pool_dimension(uint32_t *state, int32_t size, int32_t *filter, int32_t *stride,
                           int32_t *pad, int32_t *out) {
  *filter = (random_in(state, 0, 3) == 0) ? size : random_in(state, 1, size + 1);
  *stride = random_in(state, 1, 3);
  *pad = random_in(state, 0, (*filter > 3) ? 2 : (*filter - 1));
  if ((size + 2 * *pad) < *filter) {
    *pad = *filter - size;
  }
  *out = (size + 2 * *pad - *filter) / *stride + 1;
}

static bool avg_pool_case(uint32_t *state, utvm_fast_compare_result_t *result) {
  utvm_pool2d_params_t params;
  utvm_dims_t in;
  utvm_dims_t out;
  int32_t unused;
  random_offsets(state, &unused, &unused, &params.act_min, &params.act_max);
  in.n = random_in(state, 1, 2);
  in.h = random_in(state, 1, 10);
  in.w = random_in(state, 1, 10);
  in.c = random_in(state, 1, 56); /* 2 * 12 * 12 * 56 output bytes at most */
  pool_dimension(state, in.h, &params.filter_h, &params.stride_h, &params.pad_top, &out.h);
  pool_dimension(state, in.w, &params.filter_w, &params.stride_w, &params.pad_left, &out.w);
  out.n = in.n;
  out.c = in.c;
  const int32_t count = out.n * out.h * out.w * out.c;
  fill_s8(state, g_input, in.n * in.h * in.w * in.c);
  (void)memset(g_out_portable, 0xa5, sizeof g_out_portable);
  utvm_avg_pool2d_s8_portable(&params, &in, g_input, &out, g_out_portable);
  clear_fast();
  const utvm_err_t err = utvm_avg_pool2d_s8(&params, &in, g_input, &out, g_out_fast);
  result->avg_pool_cases += 1;
  return (err == UTVM_OK) && same_bytes(count, result);
}

/* A random scale in 2^-10 .. 2^-2. */
static float random_scale(uint32_t *state) {
  return (float)random_in(state, 1, 256) / 1024.0f;
}

/* One element-wise kernel (the operators the planner may run in place), out of place into
 * g_out_portable and in place into g_out_fast: the output over an input that has the output's
 * shape. One time in three the other input broadcasts (input 2, or input 1 with the output
 * over input 2). */
static bool inplace_case(uint32_t *state, utvm_fast_compare_result_t *result) {
  utvm_shape_t shape;
  utvm_shape_t shape2;
  shape.rank = random_in(state, 1, 4);
  int32_t count = 1;
  for (int32_t d = 0; d < shape.rank; ++d) {
    shape.dims[d] = random_in(state, 1, (count > 512) ? 1 : 12);
    count *= shape.dims[d];
  }
  shape2 = shape;
  const bool broadcast = random_in(state, 0, 2) == 0;
  for (int32_t d = 0; broadcast && (d < shape.rank); ++d) {
    shape2.dims[d] = (random_in(state, 0, 1) == 0) ? 1 : shape.dims[d];
  }
  const int32_t kind = random_in(state, 0, 12);
  const bool binary = (kind <= 1) || ((kind >= 6) && (kind <= 8));
  const bool over_second = binary && (random_in(state, 0, 1) == 0);
  const int32_t element = (kind >= 6) ? 2 : 1;
  /* the shapes of input 1 and input 2: the one under the output is whole */
  const utvm_shape_t *shape_a = (broadcast && over_second) ? &shape2 : &shape;
  const utvm_shape_t *shape_b = (broadcast && over_second) ? &shape : &shape2;
  const size_t bytes = (size_t)count * (size_t)element;
  fill_s8(state, g_input, 2 * count);
  fill_s8(state, g_filter, 2 * count);
  if (element == 2) { /* int16 operators with zero points 0 keep their inputs in range */
    for (int32_t i = 0; i < 2 * count; ++i) {
      g_input[i] = (int8_t)(g_input[i] / 2);
      g_filter[i] = (int8_t)(g_filter[i] / 2);
    }
  }
  const int32_t z1 = (element == 1) ? random_in(state, -128, 127) : 0;
  const int32_t z2 = (element == 1) ? random_in(state, -128, 127) : 0;
  const int32_t zo = (element == 1) ? random_in(state, -128, 127) : 0;
  const float s1 = random_scale(state);
  const float s2 = random_scale(state);
  const float so = random_scale(state);
  utvm_add_params_t add;
  utvm_mul_params_t mul;
  utvm_requantize_params_t requantize;
  utvm_logistic_params_t logistic;
  utvm_pwl_params_t pwl;
  utvm_sigmoid_s16_params_t sigmoid;
  utvm_requantize_q_params_t requantize_q;
  int8_t table[256];
  utvm_err_t err = UTVM_OK;
  switch (kind) {
    case 0:
      err = utvm_mul_params_s8(s1, z1, s2, z2, so, zo, UTVM_ACT_NONE, &mul);
      break;
    case 1:
      err = utvm_sub_params(s1, z1, s2, z2, so * 4.0f, zo, UTVM_ACT_NONE, 20, &add);
      break;
    case 2:
      err = utvm_pwl_params(0.75, 0.1, UTVM_PWL_SCALE, z1, zo, -128, 127, &pwl);
      if (err == UTVM_OK) {
        err = utvm_pwl_table_s8(&pwl, table);
      }
      break;
    case 3:
      err = utvm_requantize_params_s8(s1, z1, so, zo, &requantize);
      break;
    case 4:
      err = utvm_logistic_params_s8(s1 * 16.0f, z1, -128, &logistic);
      break;
    case 5:
      err = utvm_tanh_params_s8(s1 * 16.0f, z1, &logistic);
      break;
    case 6:
    case 7:
      err = utvm_add_params_s16(s1, s2, so * 4.0f, UTVM_ACT_NONE, &add);
      break;
    case 8:
      err = utvm_mul_params_s16(s1, s2, so, UTVM_ACT_NONE, &mul);
      break;
    case 9:
      err = utvm_pwl_params(1.25, -0.5, UTVM_PWL_SCALE, 0, 0, -32768, 32767, &pwl);
      break;
    case 10:
    case 11:
      err = utvm_sigmoid_params_s16(s1 / 256.0f, 1.0f / 32768.0f, kind - 10, &sigmoid);
      break;
    default:
      err = utvm_requantize_q_params(s1, 0, 2, so, 0, 2, &requantize_q);
      break;
  }
  if (err != UTVM_OK) {
    return true; /* parameters TFLite would refuse: nothing to compare */
  }
  /* Runs the kernel with input 1 at a, input 2 at b, the output at out. */
  int8_t *const targets[2] = {g_out_portable, g_out_fast};
  for (int32_t pass = 0; pass < 2; ++pass) {
    int8_t *out = targets[pass];
    const int8_t *a = g_input;
    const int8_t *b = g_filter;
    if (pass == 1) {
      (void)memcpy(out, over_second ? g_filter : g_input, bytes);
      a = over_second ? g_input : out;
      b = over_second ? out : g_filter;
    } else {
      (void)memset(out, 0x5a, bytes);
    }
    switch (kind) {
      case 0:
        err = utvm_mul_s8(&mul, shape_a, a, shape_b, b, &shape, out);
        break;
      case 1:
        err = utvm_sub_s8(&add, shape_a, a, shape_b, b, &shape, out);
        break;
      case 2:
        err = utvm_lut_s8(table, count, a, out);
        break;
      case 3:
        err = utvm_requantize_s8(&requantize, count, a, out);
        break;
      case 4:
        err = utvm_logistic_s8(&logistic, count, a, out);
        break;
      case 5:
        err = utvm_tanh_s8(&logistic, count, a, out);
        break;
      case 6:
        err = utvm_add_s16(&add, shape_a, (const int16_t *)(const void *)a, shape_b,
                           (const int16_t *)(const void *)b, &shape, (int16_t *)(void *)out);
        break;
      case 7:
        err = utvm_sub_s16(&add, shape_a, (const int16_t *)(const void *)a, shape_b,
                           (const int16_t *)(const void *)b, &shape, (int16_t *)(void *)out);
        break;
      case 8:
        err = utvm_mul_s16(&mul, shape_a, (const int16_t *)(const void *)a, shape_b,
                           (const int16_t *)(const void *)b, &shape, (int16_t *)(void *)out);
        break;
      case 9:
        err = utvm_pwl_s16(&pwl, count, (const int16_t *)(const void *)a, (int16_t *)(void *)out);
        break;
      case 10:
        err = utvm_logistic_s16(&sigmoid, count, (const int16_t *)(const void *)a,
                                (int16_t *)(void *)out);
        break;
      case 11:
        err = utvm_tanh_s16(&sigmoid, count, (const int16_t *)(const void *)a,
                            (int16_t *)(void *)out);
        break;
      default:
        err = utvm_requantize_q(&requantize_q, count, a, out);
        break;
    }
    if (err != UTVM_OK) {
      return false;
    }
  }
  result->inplace_cases += 1;
  return same_bytes((int32_t)bytes, result);
}

/* One CONV_2D or DEPTHWISE_CONV_2D (multiplier 1 or 2) of batch 1, out of place into
 * g_out_portable and in place (utvm_*_inplace over a copy of the input in g_out_fast). Shapes the in-place kernels refuse (scratch size 0) are drawn again, at most 8
 * times. */
static bool window_inplace_case(uint32_t *state, utvm_fast_compare_result_t *result) {
  for (int32_t attempt = 0; attempt < 8; ++attempt) {
    const bool depthwise = random_in(state, 0, 1) == 0;
    const bool pointwise = !depthwise && (random_in(state, 0, 2) == 0);
    /* Half the 1x1 ones of stride 1 over up to COMPARE_MAX_CHANNELS channels: those a DSP or MVE
     * core runs as one call over their own input (odd counts, fewer output channels than
     * input channels) and those it bands (more output channels than input channels or than a
     * channel block). */
    const bool wide = pointwise && (random_in(state, 0, 1) == 0);
    utvm_dims_t in_dims;
    utvm_dims_t filter_dims;
    utvm_dims_t out_dims;
    in_dims.n = 1;
    in_dims.h = random_in(state, 1, wide ? 8 : 14);
    in_dims.w = random_in(state, 1, wide ? 8 : 9);
    in_dims.c = random_in(state, 1, wide ? COMPARE_MAX_CHANNELS : 24);
    filter_dims.h = pointwise ? 1 : random_in(state, 1, 3);
    filter_dims.w = pointwise ? 1 : random_in(state, 1, 3);
    const int32_t stride_h = wide ? 1 : random_in(state, 1, 2);
    const int32_t stride_w = wide ? 1 : random_in(state, 1, 2);
    const int32_t dilation_h = random_in(state, 1, 2);
    const int32_t dilation_w = random_in(state, 1, 2);
    const int32_t span_h = (filter_dims.h - 1) * dilation_h + 1;
    const int32_t span_w = (filter_dims.w - 1) * dilation_w + 1;
    /* TFLite's SAME padding pads less than a window; VALID none */
    const int32_t pad_top = random_in(state, 0, span_h - 1);
    const int32_t pad_left = random_in(state, 0, span_w - 1);
    out_dims.n = 1;
    out_dims.h = (in_dims.h + 2 * pad_top - span_h) / stride_h + 1;
    out_dims.w = (in_dims.w + 2 * pad_left - span_w) / stride_w + 1;
    const int32_t multiplier = random_in(state, 1, 2);
    out_dims.c = depthwise ? (in_dims.c * multiplier)
                           : random_in(state, 1, wide ? COMPARE_MAX_CHANNELS : 24);
    filter_dims.n = depthwise ? 1 : out_dims.c;
    filter_dims.c = depthwise ? out_dims.c : in_dims.c;
    if ((out_dims.h < 1) || (out_dims.w < 1) ||
        ((out_dims.h - 1) * stride_h - pad_top >= in_dims.h) ||
        ((out_dims.w - 1) * stride_w - pad_left >= in_dims.w)) {
      continue;
    }
    utvm_per_channel_quant_t quant;
    const int32_t *bias = random_quant(state, out_dims.c, &quant);
    int32_t input_offset;
    int32_t output_offset;
    int32_t act_min;
    int32_t act_max;
    random_offsets(state, &input_offset, &output_offset, &act_min, &act_max);
    utvm_conv2d_params_t conv = {stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left,
                                 input_offset, output_offset, act_min, act_max,
                                 (int32_t)UTVM_FILTER_PLAIN};
    utvm_depthwise_conv2d_params_t dw = {stride_h, stride_w, dilation_h, dilation_w, pad_top,
                                         pad_left, multiplier, input_offset, output_offset,
                                         act_min, act_max};
    const size_t scratch =
        depthwise ? utvm_depthwise_conv2d_s8_inplace_scratch_size(&dw, &in_dims, &filter_dims,
                                                                  &out_dims)
                  : utvm_conv2d_s8_inplace_scratch_size(&conv, &in_dims, &filter_dims,
                                                        &out_dims);
    if ((scratch == 0u) || (scratch > sizeof g_scratch.bytes)) {
      continue;
    }
    const int32_t in_count = in_dims.h * in_dims.w * in_dims.c;
    const int32_t out_count = out_dims.h * out_dims.w * out_dims.c;
    fill_s8(state, g_input, in_count);
    fill_s8(state, g_filter, filter_dims.n * filter_dims.h * filter_dims.w * filter_dims.c);
    (void)memset(g_out_portable, 0xa5, sizeof g_out_portable);
    (void)memcpy(g_out_fast, g_input, (size_t)in_count);
    (void)memset(g_scratch.bytes, 0x77, sizeof g_scratch.bytes);
    utvm_err_t err;
    utvm_err_t err_inplace;
    if (depthwise) {
      err = utvm_depthwise_conv2d_s8(&dw, &quant, &in_dims, g_input, &filter_dims, g_filter, bias,
                                     &out_dims, g_out_portable, g_scratch.bytes);
      err_inplace = utvm_depthwise_conv2d_s8_inplace(&dw, &quant, &in_dims, &filter_dims,
                                                     g_filter, bias, &out_dims, g_out_fast,
                                                     g_scratch.bytes);
    } else {
      err = utvm_conv2d_s8(&conv, &quant, &in_dims, g_input, &filter_dims, g_filter, bias,
                           &out_dims, g_out_portable, g_scratch.bytes);
      err_inplace = utvm_conv2d_s8_inplace(&conv, &quant, &in_dims, &filter_dims, g_filter, bias,
                                           &out_dims, g_out_fast, g_scratch.bytes);
    }
    result->window_inplace_cases += 1;
    if (pointwise && (stride_h == 1) && (stride_w == 1) && (out_dims.c <= in_dims.c)) {
      result->window_inplace_pointwise += 1;
    }
    return (err == UTVM_OK) && (err_inplace == UTVM_OK) && same_bytes(out_count, result);
  }
  return true; /* eight shapes that cannot run in place: nothing compared */
}

/* Whole intermediate tensors of the layer-by-layer reference of a stage. */
#define STAGE_MAX_LAYERS 5
#define STAGE_MAX_CHANNELS 8
static int8_t g_stage_a[4096];
static int8_t g_stage_b[4096];

/* A stage of 1..5 int8 CONV_2D / DEPTHWISE_CONV_2D layers (kernel sizes 1..3, strides and
 * dilations 1..2, any padding TFLite allows, depthwise multipliers 1..2; one time in three a
 * FULLY_CONNECTED tail over the last one's output) run by utvm_stage_s8
 * with 1..rows+1 patches, out of place into g_out_fast or over its input when the sizing allows,
 * compared with the layers run one after another on whole tensors (into g_out_portable). Chains
 * that do not fit are drawn again, at most 8 times. */
static bool stage_case(uint32_t *state, utvm_fast_compare_result_t *result) {
  for (int32_t attempt = 0; attempt < 8; ++attempt) {
    utvm_dims_t dims[STAGE_MAX_LAYERS][3];
    utvm_conv2d_params_t conv[STAGE_MAX_LAYERS];
    utvm_depthwise_conv2d_params_t dw[STAGE_MAX_LAYERS];
    utvm_per_channel_quant_t quant[STAGE_MAX_LAYERS + 1];
    int32_t multipliers[STAGE_MAX_LAYERS + 1][STAGE_MAX_CHANNELS * 2];
    int8_t shifts[STAGE_MAX_LAYERS + 1][STAGE_MAX_CHANNELS * 2];
    int32_t biases[STAGE_MAX_LAYERS + 1][STAGE_MAX_CHANNELS * 2];
    utvm_stage_layer_s8_t layers[STAGE_MAX_LAYERS + 1];
    utvm_stage_shape_t shapes[STAGE_MAX_LAYERS + 1];
    const int32_t n = random_in(state, 1, STAGE_MAX_LAYERS);
    utvm_dims_t in = {1, random_in(state, 1, 24), random_in(state, 1, 8),
                      random_in(state, 1, STAGE_MAX_CHANNELS)};
    const utvm_dims_t stage_in = in;
    int32_t filter_at = 0;
    bool fits = true;
    for (int32_t l = 0; (l < n) && fits; ++l) {
      const bool depthwise = random_in(state, 0, 1) == 0;
      const bool pointwise = !depthwise && (random_in(state, 0, 2) == 0);
      utvm_dims_t filter = {1, pointwise ? 1 : random_in(state, 1, 3),
                            pointwise ? 1 : random_in(state, 1, 3), 1};
      const int32_t stride_h = random_in(state, 1, 2);
      const int32_t stride_w = random_in(state, 1, 2);
      const int32_t dilation_h = pointwise ? 1 : random_in(state, 1, 2);
      const int32_t dilation_w = pointwise ? 1 : random_in(state, 1, 2);
      const int32_t span_h = (filter.h - 1) * dilation_h + 1;
      const int32_t span_w = (filter.w - 1) * dilation_w + 1;
      const int32_t pad_top = random_in(state, 0, span_h - 1);
      const int32_t pad_left = random_in(state, 0, span_w - 1);
      const int32_t multiplier = (depthwise && (in.c <= STAGE_MAX_CHANNELS / 2))
                                     ? random_in(state, 1, 2) : 1;
      utvm_dims_t out = {1, (in.h + 2 * pad_top - span_h) / stride_h + 1,
                         (in.w + 2 * pad_left - span_w) / stride_w + 1,
                         depthwise ? in.c * multiplier : random_in(state, 1, STAGE_MAX_CHANNELS)};
      filter.n = depthwise ? 1 : out.c;
      filter.c = depthwise ? out.c : in.c;
      const int32_t filter_count = filter.n * filter.h * filter.w * filter.c;
      fits = (out.h >= 1) && (out.w >= 1) && ((out.h - 1) * stride_h - pad_top < in.h) &&
             ((out.w - 1) * stride_w - pad_left < in.w) &&
             ((filter_at + filter_count) <= COMPARE_MAX_BYTES) &&
             ((out.h * out.w * out.c) <= (int32_t)sizeof g_stage_a);
      if (!fits) {
        break;
      }
      fill_s8(state, &g_filter[filter_at], filter_count);
      const int32_t *bias = random_quant(state, out.c, &quant[l]);
      for (int32_t c = 0; c < out.c; ++c) {
        multipliers[l][c] = quant[l].multiplier[(quant[l].count == 1) ? 0 : c];
        shifts[l][c] = quant[l].shift[(quant[l].count == 1) ? 0 : c];
        biases[l][c] = g_bias[c];
      }
      quant[l].multiplier = multipliers[l];
      quant[l].shift = shifts[l];
      quant[l].table = NULL; /* g_table is the next layer's */
      int32_t input_offset;
      int32_t output_offset;
      int32_t act_min;
      int32_t act_max;
      random_offsets(state, &input_offset, &output_offset, &act_min, &act_max);
      const utvm_conv2d_params_t cp = {stride_h, stride_w, dilation_h, dilation_w, pad_top,
                                       pad_left, input_offset, output_offset, act_min, act_max,
                                       (int32_t)UTVM_FILTER_PLAIN};
      const utvm_depthwise_conv2d_params_t dp = {stride_h, stride_w, dilation_h, dilation_w,
                                                 pad_top, pad_left, multiplier, input_offset,
                                                 output_offset, act_min, act_max};
      conv[l] = cp;
      dw[l] = dp;
      dims[l][0] = in;
      dims[l][1] = filter;
      dims[l][2] = out;
      layers[l].conv = depthwise ? NULL : &conv[l];
      layers[l].depthwise = depthwise ? &dw[l] : NULL;
      layers[l].quant = &quant[l];
      layers[l].dims = dims[l];
      layers[l].filter = &g_filter[filter_at];
      layers[l].bias = (bias == NULL) ? NULL : biases[l];
      layers[l].fully_connected = NULL;
      filter_at += filter_count;
      in = out;
    }
    /* one time in three (after two or more layers' room) a FULLY_CONNECTED tail */
    const int32_t depth = in.h * in.w * in.c;
    const int32_t units = random_in(state, 1, STAGE_MAX_CHANNELS);
    const bool tail = fits && (n < STAGE_MAX_LAYERS) && (random_in(state, 0, 2) == 0) &&
                      ((filter_at + units * depth) <= COMPARE_MAX_BYTES);
    utvm_dims_t tail_dims[3] = {in, {units, 1, 1, depth}, {1, 1, 1, units}};
    utvm_fully_connected_params_t fc;
    const int32_t tail_at = filter_at;
    if (tail) {
      fill_s8(state, &g_filter[filter_at], units * depth);
      const int32_t *bias = random_quant(state, units, &quant[n]);
      for (int32_t c = 0; c < units; ++c) {
        multipliers[n][c] = quant[n].multiplier[(quant[n].count == 1) ? 0 : c];
        shifts[n][c] = quant[n].shift[(quant[n].count == 1) ? 0 : c];
        biases[n][c] = g_bias[c];
      }
      quant[n].multiplier = multipliers[n];
      quant[n].shift = shifts[n];
      quant[n].table = NULL; /* g_table is the next layer's */
      int32_t filter_offset;
      random_offsets(state, &fc.input_offset, &fc.output_offset, &fc.act_min, &fc.act_max);
      random_offsets(state, &filter_offset, &fc.output_offset, &fc.act_min, &fc.act_max);
      fc.filter_offset = (quant[n].count == 1) ? filter_offset : 0;
      fc.weights_layout = (int32_t)UTVM_FILTER_PLAIN;
      layers[n].conv = NULL;
      layers[n].depthwise = NULL;
      layers[n].fully_connected = &fc;
      layers[n].quant = &quant[n];
      layers[n].dims = tail_dims;
      layers[n].filter = &g_filter[filter_at];
      layers[n].bias = (bias == NULL) ? NULL : biases[n];
    }
    if (!fits) {
      continue;
    }
    const int32_t in_count = stage_in.h * stage_in.w * stage_in.c;
    const int32_t out_count = tail ? units : (in.h * in.w * in.c);
    const uint32_t all = (uint32_t)n + (tail ? 1u : 0u);
    for (uint32_t l = 0u; l < all; ++l) {
      fits = fits && (utvm_stage_s8_shape(UTVM_KERNELS_NATIVE, &layers[l], &shapes[l]) == UTVM_OK);
    }
    const uint32_t patches = (uint32_t)random_in(state, 1, in.h + 1);
    bool inplace = random_in(state, 0, 1) == 0;
    size_t scratch = 0u;
    if (inplace && (utvm_stage_s8_scratch_size(shapes, all, patches, true, &scratch) != UTVM_OK)) {
      inplace = false;
    }
    if (!inplace && (utvm_stage_s8_scratch_size(shapes, all, patches, false, &scratch) !=
                     UTVM_OK)) {
      return false; /* every chain of valid layers runs out of place */
    }
    if (!fits || (scratch > sizeof g_scratch.bytes) || (in_count > COMPARE_MAX_BYTES) ||
        (out_count > COMPARE_MAX_BYTES)) {
      continue;
    }
    fill_s8(state, g_input, in_count);
    /* the reference: layer by layer on whole tensors */
    const int8_t *src = g_input;
    utvm_err_t err = UTVM_OK;
    for (int32_t l = 0; (l < n) && (err == UTVM_OK); ++l) {
      int8_t *dst = (((l + 1) == n) && !tail) ? g_out_portable
                                              : ((l % 2 == 0) ? g_stage_a : g_stage_b);
      if (layers[l].conv != NULL) {
        err = utvm_conv2d_s8(&conv[l], &quant[l], &dims[l][0], src, &dims[l][1], layers[l].filter,
                             layers[l].bias, &dims[l][2], dst, g_scratch.bytes);
      } else {
        err = utvm_depthwise_conv2d_s8(&dw[l], &quant[l], &dims[l][0], src, &dims[l][1],
                                       layers[l].filter, layers[l].bias, &dims[l][2], dst,
                                       g_scratch.bytes);
      }
      src = dst;
    }
    if ((err == UTVM_OK) && tail) {
      err = utvm_fully_connected_s8(&fc, &quant[n], 1, depth, units, src, &g_filter[tail_at],
                                    layers[n].bias, g_out_portable, NULL);
    }
    (void)memset(g_out_fast, 0x5a, sizeof g_out_fast);
    (void)memset(g_scratch.bytes, 0x77, sizeof g_scratch.bytes);
    utvm_err_t err_stage;
    if (inplace) {
      (void)memcpy(g_out_fast, g_input, (size_t)in_count);
      err_stage = utvm_stage_s8(layers, all, patches, g_out_fast, g_out_fast, g_scratch.bytes,
                                scratch);
      result->stage_inplace += 1;
    } else {
      err_stage = utvm_stage_s8(layers, all, patches, g_input, g_out_fast, g_scratch.bytes,
                                scratch);
    }
    result->stage_cases += 1;
    result->stage_tails += tail ? 1 : 0;
    result->stage_layers += n;
    return (err == UTVM_OK) && (err_stage == UTVM_OK) && same_bytes(out_count, result);
  }
  return true; /* eight chains that do not fit the buffers: nothing compared */
}

void utvm_fast_compare_run(uint32_t seed, int32_t cases, utvm_fast_compare_result_t *result) {
  uint32_t state = (seed == 0u) ? 1u : seed;
  (void)memset(result, 0, sizeof *result);
  result->first_mismatch = -1;
  result->fast_core = COMPARE_MVE ? (int32_t)UTVM_KERNELS_MVE
                                  : (COMPARE_DSP ? (int32_t)UTVM_KERNELS_DSP
                                                 : (int32_t)UTVM_KERNELS_PORTABLE);
  for (int32_t i = 0; i < 8 * cases; ++i) {
    bool same;
    if (i < cases) {
      same = conv_case(&state, result);
    } else if (i < 2 * cases) {
      same = depthwise_case(&state, result);
    } else if (i < 3 * cases) {
      same = fc_case(&state, result);
    } else if (i < 4 * cases) {
      same = add_case(&state, result);
    } else if (i < 5 * cases) {
      same = inplace_case(&state, result);
    } else if (i < 6 * cases) {
      same = window_inplace_case(&state, result);
    } else if (i < 7 * cases) {
      same = stage_case(&state, result);
    } else {
      same = avg_pool_case(&state, result);
    }
    if (!same) {
      if (result->mismatches == 0) {
        result->first_mismatch = i;
      }
      result->mismatches += 1;
    }
  }
}

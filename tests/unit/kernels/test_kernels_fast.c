/*
 * The DSP fast paths of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED
 * (src/kernels/<operator>_s8_dsp.c, requant_s8_dsp.c) compiled on the host with the emulated
 * intrinsics of dsp_s8.h: the intrinsics on hand-computed values, each path of the DSP loops on
 * a layer chosen to take it, then thousands of random layers compared byte for byte with the
 * portable loops.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "blocked_s8.h"
#include "dsp_s8.h"
#include "fast_s8.h"
#include "kernels_fast_compare.h"
#include "utvm/kernels.h"

static void test_emulated_intrinsics(void **state) {
  (void)state;
  /* Bytes 0 and 2 (0x80 = -128, 0x7f = 127) sign-extended onto halfwords 1 and -1. */
  assert_int_equal(utvm_dsp_sxtab16(utvm_dsp_pair(1), 0x117f2280), (int32_t)0x0080ff81);
  assert_int_equal(utvm_dsp_sxtab16(utvm_dsp_pair(-1), 0x00ff00ff), (int32_t)0xfffefffe);
  assert_int_equal(utvm_dsp_ror8(0x11223344), 0x44112233);
  /* 3 * -2 + -4 * 5 + 100, then a sum that wraps past INT32_MAX. */
  assert_int_equal(utvm_dsp_smlad((int32_t)0xfffc0003, 0x0005fffe, 100), 74);
  assert_int_equal(utvm_dsp_smlad(0x7fff7fff, 0x7fff7fff, INT32_MAX), (int32_t)0xfffe0001);
  /* Halfword products alone: low (-3 * 5) and high (7 * -2) onto 10. */
  assert_int_equal(utvm_dsp_smlabb(0x0007fffd, (int32_t)0xfffe0005, 10), -5);
  assert_int_equal(utvm_dsp_smlatt(0x0007fffd, (int32_t)0xfffe0005, 10), -4);
  assert_int_equal(utvm_dsp_load4((const int8_t *)"\x01\x02\x03\x04"), 0x04030201);
  assert_int_equal(utvm_dsp_sxtb16_ror8((int32_t)0x80ff7f01), (int32_t)0xff80007f);
  assert_int_equal(utvm_dsp_sxtab16_ror8(utvm_dsp_pair(2), (int32_t)0x80ff7f01),
                   (int32_t)0xff820081);
  assert_int_equal(utvm_dsp_ssat8(200), 127);
  assert_int_equal(utvm_dsp_ssat8(-129), -128);
  assert_int_equal(utvm_dsp_ssat8(-5), -5);
  assert_int_equal(utvm_dsp_pack(-1, 2), 0x0002ffff);
}

/* Layer data for the path cases: inputs, filters, outputs, a word-aligned scratch and
 * per-channel quantization. */
#define PATH_BYTES 16384
#define PATH_CHANNELS 80
static int8_t g_in[PATH_BYTES];
static int8_t g_filter[PATH_BYTES];
static int8_t g_ref[PATH_BYTES];
static int8_t g_fast[PATH_BYTES];
static int32_t g_scratch_words[PATH_BYTES / 4];
static int32_t g_bias[PATH_CHANNELS];
static int32_t g_mult[PATH_CHANNELS];
static int8_t g_shift[PATH_CHANNELS];

static uint32_t g_seed = 2463534242u;

static int32_t path_random(int32_t lo, int32_t hi) {
  g_seed ^= g_seed << 13;
  g_seed ^= g_seed >> 17;
  g_seed ^= g_seed << 5;
  return lo + (int32_t)(g_seed % (uint32_t)(hi - lo + 1));
}

/* Random data, and channels quantized with right shifts (the exact table), or every fifth
 * channel with a left shift and the eleventh with a negative multiplier (mixed blocks). */
static utvm_per_channel_quant_t path_fill(int32_t channels, bool mixed) {
  for (int32_t i = 0; i < PATH_BYTES; ++i) {
    g_in[i] = (int8_t)path_random(-128, 127);
    g_filter[i] = (int8_t)path_random(-128, 127);
  }
  for (int32_t c = 0; c < channels; ++c) {
    g_bias[c] = path_random(-30000, 30000);
    g_mult[c] = path_random(1073741824, INT32_MAX);
    g_shift[c] = (int8_t)path_random(-12, -6);
    if (mixed && (c % 5 == 2)) {
      g_shift[c] = (int8_t)path_random(0, 2);
      g_mult[c] = path_random(1000, 400000); /* results inside the int8 range */
    }
    if (mixed && (c == 11)) {
      g_mult[c] = -g_mult[c];
    }
  }
  (void)memset(g_ref, 0x11, sizeof g_ref);
  (void)memset(g_fast, 0x22, sizeof g_fast);
  const utvm_per_channel_quant_t quant = {g_mult, g_shift, channels, NULL};
  return quant;
}

/* A convolution through the DSP path (scratch offset bytes past a word boundary: 0 takes the
 * DSP loops, others the blocked path) and the portable loops. */
static void check_conv(const utvm_dims_t *in, const utvm_dims_t *filter, int32_t stride,
                       int32_t pad, bool mixed, bool with_bias, int32_t act_min, size_t offset) {
  const utvm_per_channel_quant_t quant = path_fill(filter->n, mixed);
  utvm_conv2d_params_t params = {0};
  params.stride_h = stride;
  params.stride_w = stride;
  params.dilation_h = 1;
  params.dilation_w = 1;
  params.pad_top = pad;
  params.pad_left = pad;
  params.input_offset = 128;
  params.output_offset = -3;
  params.act_min = act_min;
  params.act_max = 127;
  const utvm_dims_t out = {in->n, (in->h + 2 * pad - filter->h) / stride + 1,
                           (in->w + 2 * pad - filter->w) / stride + 1, filter->n};
  const int32_t count = out.n * out.h * out.w * out.c;
  assert_true(count <= PATH_BYTES);
  assert_true(in->n * in->h * in->w * in->c <= PATH_BYTES);
  assert_true(filter->n * filter->h * filter->w * filter->c <= PATH_BYTES);
  assert_true(utvm_conv2d_s8_scratch_size_for(UTVM_KERNELS_DSP, in, filter, &out) + offset <=
              sizeof g_scratch_words);
  const int32_t *bias = with_bias ? g_bias : NULL;
  utvm_conv2d_s8_portable(&params, &quant, in, g_in, filter, g_filter, bias, &out, g_ref);
  utvm_conv2d_s8_dsp(&params, &quant, in, g_in, filter, g_filter, bias, &out, g_fast,
                     &((int8_t *)g_scratch_words)[offset]);
  assert_memory_equal(g_fast, g_ref, (size_t)count);
}

static void check_depthwise(const utvm_dims_t *in, int32_t multiplier, int32_t taps,
                            int32_t stride, int32_t pad, bool mixed) {
  const utvm_dims_t filter = {1, taps, taps, in->c * multiplier};
  const utvm_per_channel_quant_t quant = path_fill(filter.c, mixed);
  utvm_depthwise_conv2d_params_t params = {0};
  params.stride_h = stride;
  params.stride_w = stride;
  params.dilation_h = 1;
  params.dilation_w = 1;
  params.pad_top = pad;
  params.pad_left = pad;
  params.depth_multiplier = multiplier;
  params.input_offset = -127;
  params.output_offset = 5;
  params.act_min = -128;
  params.act_max = 100;
  const utvm_dims_t out = {in->n, (in->h + 2 * pad - taps) / stride + 1,
                           (in->w + 2 * pad - taps) / stride + 1, filter.c};
  const int32_t count = out.n * out.h * out.w * out.c;
  assert_true(count <= PATH_BYTES);
  assert_true(in->n * in->h * in->w * in->c <= PATH_BYTES);
  assert_true(taps * taps * filter.c <= PATH_BYTES);
  utvm_depthwise_conv2d_s8_portable(&params, &quant, in, g_in, &filter, g_filter, g_bias, &out,
                                    g_ref);
  assert_true(utvm_depthwise_conv2d_s8_dsp_applies(multiplier));
  utvm_depthwise_conv2d_s8_dsp(&params, &quant, in, g_in, &filter, g_filter, g_bias, &out,
                               g_fast);
  assert_memory_equal(g_fast, g_ref, (size_t)count);
}

/* CONV_2D: 3 input channels (bytes gathered on the stack), 3x3 stride 2 with padding (border and
 * interior positions), an odd count of positions and output channels. */
static void test_dsp_conv_few_channels(void **state) {
  (void)state;
  const utvm_dims_t in = {1, 9, 9, 3};
  const utvm_dims_t filter = {9, 3, 3, 3};
  check_conv(&in, &filter, 2, 1, false, true, -128, 0u);
  check_conv(&in, &filter, 1, 0, false, false, -20, 0u);
}

/* 1x1 with whole words of channels (columns straight from the input), two batches, 70 output
 * channels (two requantization blocks), a misaligned scratch (the blocked path). */
static void test_dsp_conv_pointwise(void **state) {
  (void)state;
  const utvm_dims_t in = {2, 3, 5, 8};
  const utvm_dims_t filter = {70, 1, 1, 8};
  check_conv(&in, &filter, 1, 0, false, true, -128, 0u);
  check_conv(&in, &filter, 2, 0, false, true, -128, 0u);
  check_conv(&in, &filter, 1, 0, false, true, -128, 3u);
}

/* The DSP path of a 1x1 convolution of stride 1 with its output over its input (as
 * utvm_conv2d_s8_inplace runs it): the same bytes as the portable loops out of place, for odd
 * channel counts, fewer output channels than input channels (a channel block at most), an odd
 * position count (the last pair a position with itself), per-tensor and mixed requantization. */
static void test_dsp_conv_pointwise_over_input(void **state) {
  (void)state;
  const int32_t shapes[][4] = {{3, 5, 7, 7},   {3, 5, 7, 3},  {1, 1, 9, 1},  {2, 7, 64, 64},
                               {5, 3, 80, 64}, {4, 4, 33, 5}, {1, 7, 16, 16}, {6, 1, 13, 12}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
    const utvm_dims_t in = {1, shapes[i][0], shapes[i][1], shapes[i][2]};
    const utvm_dims_t filter = {shapes[i][3], 1, 1, in.c};
    const utvm_dims_t out = {1, in.h, in.w, filter.n};
    const bool mixed = (i % 2u) == 1u;
    utvm_per_channel_quant_t quant = path_fill(filter.n, mixed);
    quant.count = ((i % 3u) == 2u) ? 1 : filter.n;
    const utvm_conv2d_params_t params = {1, 1, 1, 1, 0, 0, 5, -3, (i == 4u) ? 0 : -128, 127,
                                         (int32_t)UTVM_FILTER_PLAIN};
    const int32_t in_count = in.h * in.w * in.c;
    const int32_t count = out.h * out.w * out.c;
    assert_true(filter.n <= UTVM_KERNELS_CHANNEL_BLOCK);
    assert_true(utvm_conv2d_s8_inplace_scratch_size_for(UTVM_KERNELS_DSP, &params, &in, &filter,
                                                        &out) ==
                utvm_conv2d_s8_scratch_size_for(UTVM_KERNELS_DSP, &in, &filter, &out));
    utvm_conv2d_s8_portable(&params, &quant, &in, g_in, &filter, g_filter, g_bias, &out, g_ref);
    (void)memcpy(g_fast, g_in, (size_t)in_count);
    utvm_conv2d_s8_dsp(&params, &quant, &in, g_fast, &filter, g_filter, g_bias, &out, g_fast,
                       (int8_t *)g_scratch_words);
    assert_memory_equal(g_fast, g_ref, (size_t)count);
  }
}

/* 3x3 over 16 channels with padding (columns by runs and padding), mixed requantization blocks
 * (left shifts, a negative multiplier). */
static void test_dsp_conv_mixed_requant(void **state) {
  (void)state;
  const utvm_dims_t in = {1, 6, 5, 16};
  const utvm_dims_t filter = {67, 3, 3, 16};
  check_conv(&in, &filter, 1, 1, true, true, -128, 0u);
  check_conv(&in, &filter, 2, 1, true, false, 0, 0u);
}

/* DEPTHWISE_CONV_2D: multiplier 1 over 70 channels (two blocks, a tail of 2), 3x3 with
 * padding at strides 1 and 2 (whole windows and border taps), 5x5 (taps past the stack
 * buffer), multiplier 8 (shared input channel), mixed requantization. */
static void test_dsp_depthwise_paths(void **state) {
  (void)state;
  const utvm_dims_t in = {1, 7, 6, 70};
  check_depthwise(&in, 1, 3, 1, 1, false);
  check_depthwise(&in, 1, 3, 2, 1, true);
  check_depthwise(&in, 1, 2, 1, 0, false);
  const utvm_dims_t small = {2, 6, 6, 12};
  check_depthwise(&small, 1, 5, 1, 2, false);
  const utvm_dims_t one = {1, 9, 8, 1};
  check_depthwise(&one, 8, 3, 2, 1, false);
  const utvm_dims_t two = {1, 5, 5, 9};
  check_depthwise(&two, 4, 3, 1, 1, true);
}

/* FULLY_CONNECTED: three batches, 13 units (groups of 4 and a tail), a depth that is not a
 * multiple of 4, filter offset folded in, no bias; then 70 units with mixed requantization. */
static void test_dsp_fully_connected(void **state) {
  (void)state;
  const int32_t depths[2] = {70, 33};
  const int32_t units[2] = {13, 70};
  for (int32_t i = 0; i < 2; ++i) {
    const utvm_per_channel_quant_t quant = path_fill(units[i], i == 1);
    utvm_fully_connected_params_t params = {0};
    params.input_offset = 3;
    params.filter_offset = (i == 0) ? -7 : 0;
    params.output_offset = -1;
    params.act_min = -128;
    params.act_max = 127;
    utvm_fully_connected_s8_portable(&params, &quant, 3, depths[i], units[i], g_in, g_filter,
                                     (i == 0) ? NULL : g_bias, g_ref);
    utvm_fully_connected_s8_dsp(&params, &quant, 3, depths[i], units[i], g_in, g_filter,
                                (i == 0) ? NULL : g_bias, g_fast);
    assert_memory_equal(g_fast, g_ref, (size_t)(3 * units[i]));
  }
}

static void test_random_layers_bit_exact(void **state) {
  (void)state;
  utvm_fast_compare_result_t result;
  utvm_fast_compare_run(20261126u, 3000, &result);
  assert_int_equal(result.mismatches, 0);
  assert_int_equal(result.first_mismatch, -1);
  assert_int_equal(result.conv_cases, 3000);
  assert_int_equal(result.depthwise_cases, 3000);
  assert_true(result.depthwise_shared > 1000);
  /* The library's dispatcher is the host's portable one (only this test emulates the DSP):
   * depthwise layers as convolutions run on the boards (tests/qemu/test_qemu_kernels.py). */
  assert_int_equal(result.depthwise_as_conv, 0);
  assert_int_equal(result.fc_cases, 3000);
  assert_int_equal(result.add_cases, 3000);
  assert_int_equal(result.avg_pool_cases, 3000);
  assert_true(result.inplace_cases > 2500); /* the rest: parameters TFLite refuses */
  assert_true(result.window_inplace_cases > 2500); /* the rest: shapes that cannot */
  assert_true(result.window_inplace_pointwise > 150);
  assert_true(result.stage_cases > 2500);          /* the rest: chains too large */
  assert_true(result.stage_layers > 2 * result.stage_cases);
  assert_true(result.stage_inplace > 300);
  assert_true(result.stage_tails > 300);
  assert_true(result.conv_pointwise > 500);
  /* every convolution also with its filter laid out as DSP_S16 and as MVE_TERMS, every fully
   * connected layer with its weights as MVE_TERMS (the dispatchers of the host's portable
   * library refusing them) */
  assert_int_equal(result.conv_dsp_s16, 3000);
  assert_int_equal(result.conv_mve_terms, 3000);
  assert_int_equal(result.fc_dsp_s16, 3000);
  assert_int_equal(result.fc_mve_terms, 3000);
  assert_true(result.compared_bytes > 100000);
}

/* Scratch of the DSP and MVE convolutions: two int16 or four int8 columns, none for a grouped
 * one. */
static void test_scratch_size(void **state) {
  (void)state;
  const utvm_dims_t input = {1, 5, 5, 7};
  const utvm_dims_t filter = {4, 3, 3, 7};
  const utvm_dims_t grouped = {4, 3, 3, 1};
  const utvm_dims_t output = {1, 3, 3, 4};
  assert_int_equal(utvm_conv2d_s8_scratch_size_for(UTVM_KERNELS_DSP, &input, &filter, &output),
                   4u * 3u * 3u * 7u);
  assert_int_equal(utvm_conv2d_s8_scratch_size_for(UTVM_KERNELS_DSP, &input, &grouped, &output),
                   0u);
  assert_int_equal(utvm_conv2d_s8_scratch_size_for(UTVM_KERNELS_PORTABLE, &input, &filter, &output),
                   0u);
  /* MVE: four int8 columns in the same bytes (code planned for either core runs on the other);
   * none for a grouped convolution or an unknown core. */
  assert_int_equal(utvm_conv2d_s8_scratch_size_for(UTVM_KERNELS_MVE, &input, &filter, &output),
                   4u * 3u * 3u * 7u);
  assert_int_equal(utvm_conv2d_s8_scratch_size_for(UTVM_KERNELS_MVE, &input, &grouped, &output),
                   0u);
  assert_int_equal(
      utvm_conv2d_s8_scratch_size_for((utvm_kernels_core_t)3, &input, &filter, &output), 0u);
  /* The host's kernel library is the portable one (only this test emulates the DSP path). */
  assert_int_equal(utvm_conv2d_s8_scratch_size(&input, &filter, &output), 0u);
}

/* A filter laid out as MVE_TERMS: TFLite's values, zeros up to a word, then per channel
 * input_offset * (sum of its values) as a little-endian int32, wrapping; the sizes of every
 * layout; the packing's refusals. */
static void test_filter_mve_terms(void **state) {
  (void)state;
  const utvm_dims_t dims = {3, 1, 1, 5};
  const int8_t filter[15] = {1, 2, 3, 4, 5, -128, -128, -128, -128, -128, 127, 0, -1, 0, 0};
  uint8_t packed[32];
  assert_int_equal(utvm_conv2d_s8_filter_size(UTVM_FILTER_PLAIN, &dims), 15u);
  assert_int_equal(utvm_conv2d_s8_filter_size(UTVM_FILTER_DSP_S16, &dims), 2u * 2u * 2u * 5u);
  assert_int_equal(utvm_conv2d_s8_filter_size(UTVM_FILTER_MVE_TERMS, &dims), 16u + 12u);
  assert_int_equal(utvm_conv2d_s8_filter_size((utvm_filter_layout_t)3, &dims), 0u);
  (void)memset(packed, 0x5a, sizeof packed);
  assert_int_equal(utvm_conv2d_s8_pack_filter(UTVM_FILTER_MVE_TERMS, &dims, -127, filter, packed,
                                              28u),
                   UTVM_OK);
  assert_memory_equal(packed, filter, 15u);
  assert_int_equal(packed[15], 0u);
  const int32_t sums[3] = {15, -640, 126};
  for (int32_t k = 0; k < 3; ++k) {
    const uint32_t term = (uint32_t)(sums[k] * -127);
    for (uint32_t b = 0u; b < 4u; ++b) {
      assert_int_equal(packed[16 + 4 * k + (int32_t)b], (term >> (8u * b)) & 0xFFu);
    }
  }
  assert_int_equal(packed[28], 0x5au);
  /* the largest input_offset, 128, on a row of -128s */
  const utvm_dims_t one = {1, 1, 1, 5};
  assert_int_equal(utvm_conv2d_s8_pack_filter(UTVM_FILTER_MVE_TERMS, &one, 128, &filter[5],
                                              packed, 8u + 4u),
                   UTVM_OK);
  const uint32_t word = (uint32_t)packed[8] | ((uint32_t)packed[9] << 8u) |
                        ((uint32_t)packed[10] << 16u) | ((uint32_t)packed[11] << 24u);
  assert_int_equal(word, (uint32_t)(-640 * 128));
  /* input_offset out of range, a dst too small, an unknown layout, invalid dims */
  assert_int_equal(utvm_conv2d_s8_pack_filter(UTVM_FILTER_MVE_TERMS, &dims, 129, filter, packed,
                                              sizeof packed),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_conv2d_s8_pack_filter(UTVM_FILTER_MVE_TERMS, &dims, 0, filter, packed,
                                              27u),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_conv2d_s8_pack_filter((utvm_filter_layout_t)3, &dims, 0, filter, packed,
                                              sizeof packed),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  const utvm_dims_t bad = {0, 1, 1, 5};
  assert_int_equal(utvm_conv2d_s8_pack_filter(UTVM_FILTER_MVE_TERMS, &bad, 0, filter, packed,
                                              sizeof packed),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
}

/* Scratch of a 1x1 convolution run in place: the kernel's own on DSP and MVE cores when it runs
 * as one call (stride 1, no padding, output channels at most the input's and a channel block),
 * else (more output channels than input channels or than a block, stride 2, the portable core)
 * the bands' and the ring's, or none. */
static void test_inplace_pointwise_scratch(void **state) {
  (void)state;
  const utvm_conv2d_params_t params = {1, 1, 1, 1, 0, 0, 0, 0, -128, 127,
                                       (int32_t)UTVM_FILTER_PLAIN};
  const utvm_dims_t in = {1, 16, 4, 40};
  const utvm_dims_t in_wide = {1, 16, 4, 72};
  const utvm_kernels_core_t cores[2] = {UTVM_KERNELS_DSP, UTVM_KERNELS_MVE};
  for (int32_t i = 0; i < 2; ++i) {
    const utvm_kernels_core_t core = cores[i];
    const int32_t out_c[3] = {40, 17, 1};
    for (int32_t j = 0; j < 3; ++j) {
      const utvm_dims_t filter = {out_c[j], 1, 1, 40};
      const utvm_dims_t out = {1, 16, 4, out_c[j]};
      assert_int_equal(utvm_conv2d_s8_inplace_scratch_size_for(core, &params, &in, &filter, &out),
                       4u * 40u);
    }
    /* more output channels than input channels: the bands (from the last row) */
    const utvm_dims_t more = {41, 1, 1, 40};
    const utvm_dims_t out_more = {1, 16, 4, 41};
    assert_true(utvm_conv2d_s8_inplace_scratch_size_for(core, &params, &in, &more, &out_more) >
                4u * 40u);
    /* more output channels than a block: the bands */
    const utvm_dims_t block = {UTVM_KERNELS_CHANNEL_BLOCK + 1, 1, 1, 72};
    const utvm_dims_t out_block = {1, 16, 4, UTVM_KERNELS_CHANNEL_BLOCK + 1};
    assert_true(utvm_conv2d_s8_inplace_scratch_size_for(core, &params, &in_wide, &block,
                                                        &out_block) > 4u * 72u);
    /* stride 2: the bands */
    const utvm_conv2d_params_t strided = {2, 2, 1, 1, 0, 0, 0, 0, -128, 127,
                                           (int32_t)UTVM_FILTER_PLAIN};
    const utvm_dims_t filter = {40, 1, 1, 40};
    const utvm_dims_t out_half = {1, 8, 2, 40};
    assert_true(utvm_conv2d_s8_inplace_scratch_size_for(core, &strided, &in, &filter,
                                                        &out_half) != 4u * 40u);
  }
  const utvm_dims_t filter = {40, 1, 1, 40};
  assert_true(utvm_conv2d_s8_inplace_scratch_size_for(UTVM_KERNELS_PORTABLE, &params, &in,
                                                      &filter, &in) > 0u);
}

/* blocked_sum_s8 (the blocked CONV_2D's filter sums, four values per word) against a plain
 * loop: every length 0..1100 (runs of 128 words and the last values) at each alignment, over
 * the extremes (all -128, all 127) and a mixed pattern. */
static void test_blocked_sum_s8(void **state) {
  (void)state;
  static int8_t values[1104];
  for (int32_t pattern = 0; pattern < 3; ++pattern) {
    for (int32_t i = 0; i < 1104; ++i) {
      const int32_t value = (pattern == 0) ? -128 : (pattern == 1) ? 127 : (((i * 73) + 19) % 256) - 128;
      values[i] = (int8_t)value;
    }
    for (int32_t offset = 0; offset < 4; ++offset) {
      for (int32_t n = 0; n <= 1100; ++n) {
        int32_t want = 0;
        for (int32_t i = 0; i < n; ++i) {
          want += values[offset + i];
        }
        assert_int_equal(blocked_sum_s8(&values[offset], n), want);
      }
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_emulated_intrinsics),
      cmocka_unit_test(test_blocked_sum_s8),
      cmocka_unit_test(test_dsp_conv_few_channels),
      cmocka_unit_test(test_dsp_conv_pointwise),
      cmocka_unit_test(test_dsp_conv_pointwise_over_input),
      cmocka_unit_test(test_dsp_conv_mixed_requant),
      cmocka_unit_test(test_dsp_depthwise_paths),
      cmocka_unit_test(test_dsp_fully_connected),
      cmocka_unit_test(test_random_layers_bit_exact),
      cmocka_unit_test(test_scratch_size),
      cmocka_unit_test(test_filter_mve_terms),
      cmocka_unit_test(test_inplace_pointwise_scratch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

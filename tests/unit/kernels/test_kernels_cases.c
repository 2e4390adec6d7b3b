/*
 * Every kernel on small hand-computed cases (the expected values are worked out in the
 * comments), corner cases, and the parameter and shape checks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "utvm/kernels.h"

/* Multiplier/shift pairs: 1.0 = 2^30 * 2^(1-31), 0.5 = 2^30 * 2^(0-31). */
#define ONE_M (1 << 30)
#define ONE_S 1
#define HALF_S 0

static const int32_t one_multiplier[1] = {ONE_M};
static const int8_t one_shift[1] = {ONE_S};
static const utvm_per_channel_quant_t unit_quant = {one_multiplier, one_shift, 1, NULL};

static utvm_conv2d_params_t conv_params(int32_t stride, int32_t dilation, int32_t pad) {
  const utvm_conv2d_params_t params = {stride, stride, dilation, dilation, pad, pad,
                                       0,      0,      INT8_MIN, INT8_MAX,
                                       (int32_t)UTVM_FILTER_PLAIN};
  return params;
}

static void test_conv2d_1x1_bias_offsets_clamp(void **state) {
  (void)state;
  const utvm_dims_t in_dims = {1, 1, 1, 2};
  const utvm_dims_t filter_dims = {1, 1, 1, 2};
  const utvm_dims_t out_dims = {1, 1, 1, 1};
  const int8_t input[2] = {1, 2};
  const int8_t filter[2] = {3, 4};
  const int32_t bias[1] = {5};
  int8_t out[1];
  utvm_conv2d_params_t params = conv_params(1, 1, 0);
  /* 1*3 + 2*4 + 5 = 16 */
  assert_int_equal(utvm_conv2d_s8(&params, &unit_quant, &in_dims, input, &filter_dims, filter,
                                  bias, &out_dims, out, NULL),
                   UTVM_OK);
  assert_int_equal(out[0], 16);
  /* Input zero point -1 (offset 1): 2*3 + 3*4 = 18, no bias; output zero point 10. */
  params.input_offset = 1;
  params.output_offset = 10;
  assert_int_equal(utvm_conv2d_s8(&params, &unit_quant, &in_dims, input, &filter_dims, filter,
                                  NULL, &out_dims, out, NULL),
                   UTVM_OK);
  assert_int_equal(out[0], 28);
  params.act_max = 20;
  assert_int_equal(utvm_conv2d_s8(&params, &unit_quant, &in_dims, input, &filter_dims, filter,
                                  NULL, &out_dims, out, NULL),
                   UTVM_OK);
  assert_int_equal(out[0], 20);
}

static void test_conv2d_same_padding_stride2(void **state) {
  (void)state;
  /* 3x3 input 1..9, 3x3 ones filter, stride 2, SAME: 2x2 output, one row/column of padding
   * on every side. Windows: {1,2,4,5}=12, {2,3,5,6}=16, {4,5,7,8}=24, {5,6,8,9}=28; x0.5. */
  utvm_padding_values_t padding;
  assert_int_equal(utvm_compute_padding(UTVM_PADDING_SAME, 2, 2, 1, 1, 3, 3, 3, 3, &padding),
                   UTVM_OK);
  assert_int_equal(padding.out_h, 2);
  assert_int_equal(padding.pad_top, 1);
  assert_int_equal(padding.offset_h, 0);
  const utvm_dims_t in_dims = {1, 3, 3, 1};
  const utvm_dims_t filter_dims = {1, 3, 3, 1};
  const utvm_dims_t out_dims = {1, 2, 2, 1};
  const int8_t input[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const int8_t filter[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  const int8_t half_shift[1] = {HALF_S};
  const utvm_per_channel_quant_t half = {one_multiplier, half_shift, 1, NULL};
  int8_t out[4];
  const utvm_conv2d_params_t params = conv_params(2, 1, padding.pad_top);
  assert_int_equal(utvm_conv2d_s8(&params, &half, &in_dims, input, &filter_dims, filter, NULL,
                                  &out_dims, out, NULL),
                   UTVM_OK);
  const int8_t expected[4] = {6, 8, 12, 14};
  assert_memory_equal(out, expected, sizeof(expected));
}

static void test_conv2d_dilation_per_channel_batch2(void **state) {
  (void)state;
  /* 5x5 input 1..25 (batch 0) and its negation (batch 1); 3x3 ones filter, dilation 2, VALID:
   * taps at rows/cols 0, 2, 4: 1+3+5+11+13+15+21+23+25 = 117. Channel 1 doubles the filter
   * with multiplier 0.5: the same 117. Input zero point -128 would add 9*128: not here. */
  const utvm_dims_t in_dims = {2, 5, 5, 1};
  const utvm_dims_t filter_dims = {2, 3, 3, 1};
  const utvm_dims_t out_dims = {2, 1, 1, 2};
  int8_t input[50];
  for (int32_t i = 0; i < 25; ++i) {
    input[i] = (int8_t)(i + 1);
    input[25 + i] = (int8_t)-(i + 1);
  }
  int8_t filter[18];
  memset(filter, 1, 9);
  memset(filter + 9, 2, 9);
  const int32_t multipliers[2] = {ONE_M, ONE_M};
  const int8_t shifts[2] = {ONE_S, HALF_S};
  const utvm_per_channel_quant_t quant = {multipliers, shifts, 2, NULL};
  int8_t out[4];
  const utvm_conv2d_params_t params = conv_params(1, 2, 0);
  assert_int_equal(utvm_conv2d_s8(&params, &quant, &in_dims, input, &filter_dims, filter, NULL,
                                  &out_dims, out, NULL),
                   UTVM_OK);
  const int8_t expected[4] = {117, 117, -117, -117};
  assert_memory_equal(out, expected, sizeof(expected));
}

static void test_conv2d_zero_point_extremes(void **state) {
  (void)state;
  /* Input zero point -128 (offset 128): inputs of -128 are real zeros, the output is the bias;
   * zero point 127 (offset -127) the same for inputs of 127. Output zero point -128. */
  const utvm_dims_t dims = {1, 2, 2, 1};
  const utvm_dims_t filter_dims = {1, 2, 2, 1};
  const utvm_dims_t out_dims = {1, 1, 1, 1};
  const int8_t low[4] = {-128, -128, -128, -128};
  const int8_t high[4] = {127, 127, 127, 127};
  const int8_t filter[4] = {127, -128, 5, 9};
  const int32_t bias[1] = {100};
  int8_t out[1];
  utvm_conv2d_params_t params = conv_params(1, 1, 0);
  params.input_offset = 128;
  params.output_offset = -128;
  assert_int_equal(utvm_conv2d_s8(&params, &unit_quant, &dims, low, &filter_dims, filter, bias,
                                  &out_dims, out, NULL),
                   UTVM_OK);
  assert_int_equal(out[0], -28);
  params.input_offset = -127;
  assert_int_equal(utvm_conv2d_s8(&params, &unit_quant, &dims, high, &filter_dims, filter, bias,
                                  &out_dims, out, NULL),
                   UTVM_OK);
  assert_int_equal(out[0], -28);
  /* Saturation: (127+128)*127*... far above 127 with offset 128 on high inputs. */
  params.input_offset = 128;
  const int8_t ones[4] = {127, 127, 127, 127};
  const int8_t positive_filter[4] = {127, 127, 127, 127};
  assert_int_equal(utvm_conv2d_s8(&params, &unit_quant, &dims, ones, &filter_dims,
                                  positive_filter, NULL, &out_dims, out, NULL),
                   UTVM_OK);
  assert_int_equal(out[0], 127);
}

static void test_conv2d_checks(void **state) {
  (void)state;
  const utvm_dims_t dims = {1, 2, 2, 2};
  const utvm_dims_t filter_dims = {3, 1, 1, 2};
  const utvm_dims_t out_dims = {1, 2, 2, 3};
  int8_t data[16] = {0};
  int8_t out[12];
  utvm_conv2d_params_t params = conv_params(1, 1, 0);
  const int32_t multipliers[2] = {ONE_M, ONE_M};
  const int8_t shifts[2] = {ONE_S, ONE_S};
  const utvm_per_channel_quant_t two = {multipliers, shifts, 2, NULL}; /* neither 1 nor 3 */
  assert_int_equal(utvm_conv2d_s8(&params, &two, &dims, data, &filter_dims, data, NULL,
                                  &out_dims, out, NULL),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_conv2d_s8(NULL, &unit_quant, &dims, data, &filter_dims, data, NULL,
                                  &out_dims, out, NULL),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  const int8_t bad_shift[1] = {32};
  const utvm_per_channel_quant_t shifted = {one_multiplier, bad_shift, 1, NULL};
  assert_int_equal(utvm_conv2d_s8(&params, &shifted, &dims, data, &filter_dims, data, NULL,
                                  &out_dims, out, NULL),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  const utvm_dims_t wrong_out = {1, 2, 2, 4};
  assert_int_equal(utvm_conv2d_s8(&params, &unit_quant, &dims, data, &filter_dims, data, NULL,
                                  &wrong_out, out, NULL),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
  const utvm_dims_t zero = {1, 0, 2, 2};
  assert_int_equal(utvm_conv2d_s8(&params, &unit_quant, &zero, data, &filter_dims, data, NULL,
                                  &out_dims, out, NULL),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
  const utvm_dims_t three_channel_filter = {3, 1, 1, 3}; /* 2 input channels: no groups */
  assert_int_equal(utvm_conv2d_s8(&params, &unit_quant, &dims, data, &three_channel_filter, data,
                                  NULL, &out_dims, out, NULL),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
  params.stride_h = 0;
  assert_int_equal(utvm_conv2d_s8(&params, &unit_quant, &dims, data, &filter_dims, data, NULL,
                                  &out_dims, out, NULL),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  params = conv_params(1, 1, 0);
  params.act_min = 5;
  params.act_max = 4;
  assert_int_equal(utvm_conv2d_s8(&params, &unit_quant, &dims, data, &filter_dims, data, NULL,
                                  &out_dims, out, NULL),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  params = conv_params(1, 1, 0);
  params.input_offset = 129;
  assert_int_equal(utvm_conv2d_s8(&params, &unit_quant, &dims, data, &filter_dims, data, NULL,
                                  &out_dims, out, NULL),
                   UTVM_ERR_KERNEL_BAD_PARAM);
}

static void test_depthwise_multiplier2(void **state) {
  (void)state;
  /* Input channels {10, 20}, multiplier 2, filter {1, 2, 3, 4}, bias 1: outputs
   * 11, 21, 61, 81; channel 3 scaled by 0.5: 40.5 -> 41. */
  const utvm_dims_t in_dims = {1, 1, 1, 2};
  const utvm_dims_t filter_dims = {1, 1, 1, 4};
  const utvm_dims_t out_dims = {1, 1, 1, 4};
  const int8_t input[2] = {10, 20};
  const int8_t filter[4] = {1, 2, 3, 4};
  const int32_t bias[4] = {1, 1, 1, 1};
  const int32_t multipliers[4] = {ONE_M, ONE_M, ONE_M, ONE_M};
  const int8_t shifts[4] = {ONE_S, ONE_S, ONE_S, HALF_S};
  const utvm_per_channel_quant_t quant = {multipliers, shifts, 4, NULL};
  const utvm_depthwise_conv2d_params_t params = {1, 1, 1, 1, 0, 0, 2, 0, 0, INT8_MIN, INT8_MAX};
  int8_t out[4];
  assert_int_equal(utvm_depthwise_conv2d_s8(&params, &quant, &in_dims, input, &filter_dims,
                                            filter, bias, &out_dims, out, NULL),
                   UTVM_OK);
  const int8_t expected[4] = {11, 21, 61, 41};
  assert_memory_equal(out, expected, sizeof(expected));
  const utvm_depthwise_conv2d_params_t wrong = {1, 1, 1, 1, 0, 0, 3, 0, 0, INT8_MIN, INT8_MAX};
  assert_int_equal(utvm_depthwise_conv2d_s8(&wrong, &quant, &in_dims, input, &filter_dims,
                                            filter, bias, &out_dims, out, NULL),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
}

static void test_depthwise_padding_every_side(void **state) {
  (void)state;
  /* 2x2 input {1,2,3,4}, 3x3 ones filter, SAME, stride 1: every output sums the whole input
   * (each window covers it, padded on the far sides): 10. */
  const utvm_dims_t in_dims = {1, 2, 2, 1};
  const utvm_dims_t filter_dims = {1, 3, 3, 1};
  const utvm_dims_t out_dims = {1, 2, 2, 1};
  const int8_t input[4] = {1, 2, 3, 4};
  int8_t filter[9];
  memset(filter, 1, sizeof(filter));
  const utvm_depthwise_conv2d_params_t params = {1, 1, 1, 1, 1, 1, 1, 0, 0, INT8_MIN, INT8_MAX};
  int8_t out[4];
  assert_int_equal(utvm_depthwise_conv2d_s8(&params, &unit_quant, &in_dims, input, &filter_dims,
                                            filter, NULL, &out_dims, out, NULL),
                   UTVM_OK);
  const int8_t expected[4] = {10, 10, 10, 10};
  assert_memory_equal(out, expected, sizeof(expected));
}

static void test_fully_connected(void **state) {
  (void)state;
  /* Rows {1,2,3} and {-1,-1,-1}; filter rows {1,0,-1} and {2,2,2}:
   * {-2, 12} and {0, -6}. With filter offset 1: {2*1+1*2+0*3, 3*6} = {4, 18} for row 0. */
  const int8_t input[6] = {1, 2, 3, -1, -1, -1};
  const int8_t filter[6] = {1, 0, -1, 2, 2, 2};
  utvm_fully_connected_params_t params = {0, 0, 0, INT8_MIN, INT8_MAX,
                                          (int32_t)UTVM_FILTER_PLAIN};
  int8_t out[4];
  assert_int_equal(utvm_fully_connected_s8(&params, &unit_quant, 2, 3, 2, input, filter, NULL,
                                           out, NULL),
                   UTVM_OK);
  const int8_t expected[4] = {-2, 12, 0, -6};
  assert_memory_equal(out, expected, sizeof(expected));
  params.filter_offset = 1;
  const int32_t bias[2] = {-4, 100};
  assert_int_equal(utvm_fully_connected_s8(&params, &unit_quant, 1, 3, 2, input, filter, bias,
                                           out, NULL),
                   UTVM_OK);
  assert_int_equal(out[0], 0);
  assert_int_equal(out[1], 118);
  assert_int_equal(utvm_fully_connected_s8(&params, &unit_quant, 0, 3, 2, input, filter, bias,
                                           out, NULL),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
}

static void test_avg_pool_rounding_and_padding(void **state) {
  (void)state;
  const utvm_dims_t in_dims = {1, 2, 2, 1};
  const utvm_dims_t out1 = {1, 1, 1, 1};
  const utvm_pool2d_params_t params = {1, 1, 2, 2, 0, 0, INT8_MIN, INT8_MAX};
  int8_t out[4];
  /* 11/4 = 2.75 -> 3; -11/4 -> -3 (rounded half away: (-11-2)/4 = -3). */
  const int8_t positive[4] = {1, 2, 3, 5};
  assert_int_equal(utvm_avg_pool2d_s8(&params, &in_dims, positive, &out1, out), UTVM_OK);
  assert_int_equal(out[0], 3);
  const int8_t negative[4] = {-1, -2, -3, -5};
  assert_int_equal(utvm_avg_pool2d_s8(&params, &in_dims, negative, &out1, out), UTVM_OK);
  assert_int_equal(out[0], -3);
  /* -10/4 = -2.5 -> -3; 10/4 = 2.5 -> 3. */
  const int8_t half[4] = {-1, -2, -3, -4};
  assert_int_equal(utvm_avg_pool2d_s8(&params, &in_dims, half, &out1, out), UTVM_OK);
  assert_int_equal(out[0], -3);
  /* 3x3 input, 2x2 filter, stride 2, SAME: total padding 1 (all at the bottom/right). The
   * windows count 4, 2, 2, 1 inputs: (1+2+4+5)/4 = 3, (3+6)/2 = 4.5 -> 5, (7+8)/2 = 7.5 -> 8,
   * 9. */
  utvm_padding_values_t padding;
  assert_int_equal(utvm_compute_padding(UTVM_PADDING_SAME, 2, 2, 1, 1, 3, 3, 2, 2, &padding),
                   UTVM_OK);
  assert_int_equal(padding.pad_top, 0);
  assert_int_equal(padding.offset_h, 1);
  const utvm_dims_t in3 = {1, 3, 3, 1};
  const utvm_dims_t out2 = {1, 2, 2, 1};
  const int8_t input[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const utvm_pool2d_params_t strided = {2, 2, 2, 2, 0, 0, INT8_MIN, INT8_MAX};
  assert_int_equal(utvm_avg_pool2d_s8(&strided, &in3, input, &out2, out), UTVM_OK);
  const int8_t expected[4] = {3, 5, 8, 9};
  assert_memory_equal(out, expected, sizeof(expected));
  /* A window wholly in the padding: TFLite fails. */
  const utvm_pool2d_params_t empty = {2, 2, 2, 2, 2, 0, INT8_MIN, INT8_MAX};
  assert_int_equal(utvm_avg_pool2d_s8(&empty, &in3, input, &out2, out),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
}

static void test_max_pool(void **state) {
  (void)state;
  const utvm_dims_t in_dims = {1, 2, 2, 2};
  const utvm_dims_t out_dims = {1, 1, 1, 2};
  const int8_t input[8] = {-128, 5, -100, -7, -128, 3, -128, 9};
  const utvm_pool2d_params_t params = {1, 1, 2, 2, 0, 0, -110, 6};
  int8_t out[2];
  assert_int_equal(utvm_max_pool2d_s8(&params, &in_dims, input, &out_dims, out), UTVM_OK);
  assert_int_equal(out[0], -100);
  assert_int_equal(out[1], 6); /* 9 clamped */
}

static utvm_shape_t shape(int32_t rank, int32_t d0, int32_t d1, int32_t d2, int32_t d3) {
  const utvm_shape_t s = {rank, {d0, d1, d2, d3, 0, 0}};
  return s;
}

static void test_add(void **state) {
  (void)state;
  /* Scales all 1.0: the result is the exact sum, saturated. */
  utvm_add_params_t params;
  assert_int_equal(utvm_add_params_s8(1.0f, 0, 1.0f, 0, 1.0f, 0, UTVM_ACT_NONE, &params),
                   UTVM_OK);
  assert_int_equal(params.left_shift, 20);
  assert_int_equal(params.input1_multiplier, ONE_M);
  assert_int_equal(params.input1_shift, 0);
  assert_int_equal(params.output_shift, -18); /* 2 / 2^20 = 2^-19 */
  const utvm_shape_t s3 = shape(1, 3, 0, 0, 0);
  const int8_t a[3] = {3, 100, -100};
  const int8_t b[3] = {4, 100, -100};
  int8_t out[6];
  assert_int_equal(utvm_add_s8(&params, &s3, a, &s3, b, &s3, out), UTVM_OK);
  const int8_t sums[3] = {7, 127, -128};
  assert_memory_equal(out, sums, sizeof(sums));
  /* In place. */
  int8_t in_place[3] = {3, 100, -100};
  assert_int_equal(utvm_add_s8(&params, &s3, in_place, &s3, b, &s3, in_place), UTVM_OK);
  assert_memory_equal(in_place, sums, sizeof(sums));
  /* Broadcast [2,1] + [3] -> [2,3]: an outer sum. */
  const utvm_shape_t col = shape(2, 2, 1, 0, 0);
  const utvm_shape_t out_shape = shape(2, 2, 3, 0, 0);
  const int8_t c[2] = {10, 20};
  const int8_t r[3] = {1, 2, 3};
  assert_int_equal(utvm_add_s8(&params, &col, c, &s3, r, &out_shape, out), UTVM_OK);
  const int8_t outer[6] = {11, 12, 13, 21, 22, 23};
  assert_memory_equal(out, outer, sizeof(outer));
  /* RELU with zero points: in1 zp 10, out zp -5: (0-10) + 4 = -6 -> clamped to -5 (real 0). */
  assert_int_equal(utvm_add_params_s8(1.0f, 10, 1.0f, 0, 1.0f, -5, UTVM_ACT_RELU, &params),
                   UTVM_OK);
  const int8_t zero[1] = {0};
  const int8_t four[1] = {4};
  const utvm_shape_t s1 = shape(1, 1, 0, 0, 0);
  assert_int_equal(utvm_add_s8(&params, &s1, zero, &s1, four, &s1, out), UTVM_OK);
  assert_int_equal(out[0], -5);
  /* Shapes that do not broadcast. */
  const utvm_shape_t s2 = shape(1, 2, 0, 0, 0);
  assert_int_equal(utvm_add_s8(&params, &s3, a, &s2, b, &s3, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  const utvm_shape_t bigger = shape(1, 4, 0, 0, 0);
  assert_int_equal(utvm_add_s8(&params, &s3, a, &s3, b, &bigger, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  /* An output scale so small that TFLite's output multiplier reaches 1. */
  assert_int_equal(utvm_add_params_s8(1.0f, 0, 1.0f, 0, 1e-7f, 0, UTVM_ACT_NONE, &params),
                   UTVM_ERR_KERNEL_UNSUPPORTED);
}

/* The element-wise kernels of issue 25: corner values and every parameter check. */
static void test_elementwise(void **state) {
  (void)state;
  /* ABS on int16 with an identity rescale: |-32768| saturates to 32767. */
  utvm_pwl_params_t pwl;
  assert_int_equal(utvm_pwl_params(1.0, 1.0, UTVM_PWL_ABS, 0, 0, INT16_MIN, INT16_MAX, &pwl),
                   UTVM_OK);
  int16_t values[4] = {-32768, -5, 0, 32767};
  assert_int_equal(utvm_pwl_s16(&pwl, 4, values, values), UTVM_OK);
  const int16_t abs_expected[4] = {32767, 5, 0, 32767};
  assert_memory_equal(values, abs_expected, sizeof(abs_expected));
  /* A negative alpha: the scaled value of |multiplier| negated. */
  assert_int_equal(utvm_pwl_params(1.0, -0.5, UTVM_PWL_SCALE, 0, 0, INT8_MIN, INT8_MAX, &pwl),
                   UTVM_OK);
  assert_int_equal(pwl.negative_mode, UTVM_PWL_NEGATE);
  int8_t table[256];
  assert_int_equal(utvm_pwl_table_s8(&pwl, table), UTVM_OK);
  assert_int_equal(table[0], 64);   /* x = -128: -(-64) */
  assert_int_equal(table[127], 0);  /* x = -1: the doubling high multiply rounds -0.5 to 0 */
  assert_int_equal(table[255], 127);
  /* Parameter checks. */
  pwl.negative_mode = 3;
  assert_int_equal(utvm_pwl_table_s8(&pwl, table), UTVM_ERR_KERNEL_BAD_PARAM);
  pwl.negative_mode = UTVM_PWL_SCALE;
  pwl.act_min = -200;
  assert_int_equal(utvm_pwl_table_s8(&pwl, table), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_pwl_s16(&pwl, -1, values, values), UTVM_ERR_KERNEL_BAD_SHAPE);
  pwl.positive_multiplier = -1;
  assert_int_equal(utvm_pwl_s16(&pwl, 1, values, values), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_lut_s8(NULL, 1, table, table), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_lut_s8(table, -1, table, table), UTVM_ERR_KERNEL_BAD_SHAPE);
  /* MINIMUM / MAXIMUM broadcasting [1,3] against [2,3], int16. */
  const utvm_shape_t row = shape(2, 1, 3, 0, 0);
  const utvm_shape_t grid = shape(2, 2, 3, 0, 0);
  const int16_t r[3] = {-1, 0, 1000};
  const int16_t g[6] = {-2, 5, 999, 0, -300, 1001};
  int16_t m[6];
  utvm_minmax_params_t mm = {1, 2};
  assert_int_equal(utvm_minmax(&mm, &row, r, &grid, g, &grid, m), UTVM_OK);
  const int16_t max_expected[6] = {-1, 5, 1000, 0, 0, 1001};
  assert_memory_equal(m, max_expected, sizeof(max_expected));
  mm.maximum = 0;
  assert_int_equal(utvm_minmax(&mm, &row, r, &grid, g, &grid, m), UTVM_OK);
  const int16_t min_expected[6] = {-2, 0, 999, -1, -300, 1000};
  assert_memory_equal(m, min_expected, sizeof(min_expected));
  mm.element_bytes = 4;
  assert_int_equal(utvm_minmax(&mm, &row, r, &grid, g, &grid, m), UTVM_ERR_KERNEL_BAD_PARAM);
  mm.element_bytes = 2;
  assert_int_equal(utvm_minmax(&mm, &grid, g, &grid, g, &row, m), UTVM_ERR_KERNEL_BAD_SHAPE);
  /* SUB int8: 1.0 - 1.0 with equal scales; int16 ADD saturates. */
  utvm_add_params_t add;
  assert_int_equal(utvm_sub_params(0.5f, 0, 0.5f, 0, 0.5f, 0, UTVM_ACT_NONE, 20, &add), UTVM_OK);
  const utvm_shape_t s3 = shape(1, 3, 0, 0, 0);
  const int8_t a8[3] = {2, -128, 127};
  const int8_t b8[3] = {2, 127, -128};
  int8_t d8[3];
  assert_int_equal(utvm_sub_s8(&add, &s3, a8, &s3, b8, &s3, d8), UTVM_OK);
  const int8_t sub_expected[3] = {0, -128, 127};
  assert_memory_equal(d8, sub_expected, sizeof(sub_expected));
  assert_int_equal(utvm_sub_params(0.5f, 0, 0.5f, 0, 0.5f, 0, UTVM_ACT_NONE, 16, &add),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_add_params_s16(0.5f, 0.5f, 0.5f, UTVM_ACT_NONE, &add), UTVM_OK);
  const int16_t a16[3] = {30000, -30000, 7};
  int16_t s16[3];
  assert_int_equal(utvm_add_s16(&add, &s3, a16, &s3, a16, &s3, s16), UTVM_OK);
  const int16_t add_expected[3] = {32767, -32768, 14};
  assert_memory_equal(s16, add_expected, sizeof(add_expected));
  assert_int_equal(utvm_sub_s16(&add, &s3, a16, &s3, a16, &s3, s16), UTVM_OK);
  const int16_t zeros[3] = {0, 0, 0};
  assert_memory_equal(s16, zeros, sizeof(zeros));
  add.input1_offset = 32768; /* (32768 + 32768) << 15 passes int32 */
  assert_int_equal(utvm_add_s16(&add, &s3, a16, &s3, a16, &s3, s16), UTVM_ERR_KERNEL_BAD_PARAM);
  /* MUL int16: zero points must be 0. */
  utvm_mul_params_t mul;
  assert_int_equal(utvm_mul_params_s16(0.5f, 0.5f, 0.25f, UTVM_ACT_NONE, &mul), UTVM_OK);
  assert_int_equal(utvm_mul_s16(&mul, &s3, a16, &s3, a16, &s3, s16), UTVM_OK);
  const int16_t mul_expected[3] = {32767, 32767, 49};
  assert_memory_equal(s16, mul_expected, sizeof(mul_expected));
  mul.output_offset = 1;
  assert_int_equal(utvm_mul_s16(&mul, &s3, a16, &s3, a16, &s3, s16), UTVM_ERR_KERNEL_BAD_PARAM);
}

static void test_mul(void **state) {
  (void)state;
  utvm_mul_params_t params;
  assert_int_equal(utvm_mul_params_s8(1.0f, 1, 1.0f, 0, 1.0f, 0, UTVM_ACT_NONE, &params),
                   UTVM_OK);
  const utvm_shape_t s3 = shape(1, 3, 0, 0, 0);
  const int8_t a[3] = {4, 21, -19};
  const int8_t b[3] = {4, 20, 20};
  int8_t out[3];
  assert_int_equal(utvm_mul_s8(&params, &s3, a, &s3, b, &s3, out), UTVM_OK);
  const int8_t expected[3] = {12, 127, -128}; /* (4-1)*4, 20*20, -20*20 */
  assert_memory_equal(out, expected, sizeof(expected));
  /* Rank-4 channel broadcast [1,1,1,3] * [1,1,2,3]. */
  const utvm_shape_t channel = shape(4, 1, 1, 1, 3);
  const utvm_shape_t map = shape(4, 1, 1, 2, 3);
  const int8_t factors[3] = {1, 2, 3}; /* minus zero point 1: 0, 1, 2 */
  const int8_t values[6] = {5, 5, 5, -7, -7, -7};
  int8_t product[6];
  assert_int_equal(utvm_mul_s8(&params, &channel, factors, &map, values, &map, product), UTVM_OK);
  const int8_t expected_product[6] = {0, 5, 10, 0, -7, -14};
  assert_memory_equal(product, expected_product, sizeof(expected_product));
}

static void test_softmax(void **state) {
  (void)state;
  utvm_softmax_params_t params;
  assert_int_equal(utvm_softmax_params_s8(1.0f, 0.1f, &params), UTVM_OK);
  /* Two equal inputs: 0.5 each = 128/256 -> 0; one input: 1.0 -> 127 (saturated). A row
   * far below its maximum (difference < diff_min): -128. */
  const int8_t pair[2] = {5, 5};
  int8_t out[4];
  assert_int_equal(utvm_softmax_s8(&params, 1, 2, pair, out), UTVM_OK);
  assert_int_equal(out[0], 0);
  assert_int_equal(out[1], 0);
  const int8_t single[1] = {-128};
  assert_int_equal(utvm_softmax_s8(&params, 1, 1, single, out), UTVM_OK);
  assert_int_equal(out[0], 127);
  assert_true(params.diff_min < 0);
  const int8_t far[2] = {127, -128}; /* 255 * 0.1 = 25.5: exp(-25.5) rounds to nothing */
  assert_int_equal(utvm_softmax_s8(&params, 1, 2, far, out), UTVM_OK);
  assert_int_equal(out[0], 127);
  assert_int_equal(out[1], -128);
  /* 512 equal inputs: TFLite's check fails. */
  static int8_t wide[512];
  static int8_t wide_out[512];
  assert_int_equal(utvm_softmax_s8(&params, 1, 512, wide, wide_out), UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_int_equal(utvm_softmax_s8(&params, 1, 511, wide, wide_out), UTVM_OK);
  assert_int_equal(utvm_softmax_params_s8(1.0f, 1e-9f, &params), UTVM_ERR_KERNEL_UNSUPPORTED);
}

static void test_logistic_tanh(void **state) {
  (void)state;
  utvm_logistic_params_t params;
  assert_int_equal(utvm_logistic_params_s8(0.1f, 3, INT8_MIN, &params), UTVM_OK);
  const int8_t input[3] = {3, 127, -128}; /* 0, 12.4, -13.1 */
  int8_t out[3];
  assert_int_equal(utvm_logistic_s8(&params, 3, input, out), UTVM_OK);
  assert_int_equal(out[0], 0);    /* 0.5 * 256 - 128 */
  assert_int_equal(out[1], 127);  /* ~1.0 */
  assert_int_equal(out[2], -128); /* ~0.0 */
  assert_int_equal(utvm_logistic_params_s8(0.1f, 3, 0, &params), UTVM_ERR_KERNEL_UNSUPPORTED);
  utvm_tanh_params_t tanh_params;
  assert_int_equal(utvm_tanh_params_s8(0.1f, 3, &tanh_params), UTVM_OK);
  assert_int_equal(utvm_tanh_s8(&tanh_params, 3, input, out), UTVM_OK);
  assert_int_equal(out[0], 0);
  assert_int_equal(out[1], 127);
  assert_int_equal(out[2], -128);
  assert_int_equal(utvm_tanh_s8(&tanh_params, -1, input, out), UTVM_ERR_KERNEL_BAD_SHAPE);
}

static void test_reshape(void **state) {
  (void)state;
  int8_t buffer[4] = {1, 2, 3, 4};
  int8_t copy[4] = {0};
  assert_int_equal(utvm_reshape(buffer, buffer, sizeof(buffer)), UTVM_OK);
  assert_int_equal(utvm_reshape(buffer, copy, sizeof(buffer)), UTVM_OK);
  assert_memory_equal(buffer, copy, sizeof(buffer));
  assert_int_equal(utvm_reshape(buffer + 1, buffer, 3), UTVM_OK); /* overlapping */
  assert_int_equal(buffer[0], 2);
  assert_int_equal(buffer[2], 4);
  assert_int_equal(utvm_reshape(NULL, copy, 4), UTVM_ERR_KERNEL_BAD_PARAM);
}

static void test_pad_batch_and_every_side(void **state) {
  (void)state;
  /* One element 7, padded by 1 before in every dimension (batch too): 2x2x2x2, the 7 last. */
  const utvm_dims_t in_dims = {1, 1, 1, 1};
  const int8_t input[1] = {7};
  const utvm_pad_params_t params = {{1, 1, 1, 1}, {0, 0, 0, 0}, -3};
  int8_t out[16];
  assert_int_equal(utvm_pad_s8(&params, &in_dims, input, out), UTVM_OK);
  for (int32_t i = 0; i < 15; ++i) {
    assert_int_equal(out[i], -3);
  }
  assert_int_equal(out[15], 7);
  /* 1x1x2x1 {1, 2} padded left 1, right 2 in w: {0, 1, 2, 0, 0}. */
  const utvm_dims_t row = {1, 1, 2, 1};
  const int8_t values[2] = {1, 2};
  const utvm_pad_params_t sides = {{0, 0, 1, 0}, {0, 0, 2, 0}, 0};
  assert_int_equal(utvm_pad_s8(&sides, &row, values, out), UTVM_OK);
  const int8_t expected[5] = {0, 1, 2, 0, 0};
  assert_memory_equal(out, expected, sizeof(expected));
  const utvm_pad_params_t negative = {{0, -1, 0, 0}, {0, 0, 0, 0}, 0};
  assert_int_equal(utvm_pad_s8(&negative, &row, values, out), UTVM_ERR_KERNEL_BAD_PARAM);
}

static void test_concatenation(void **state) {
  (void)state;
  /* [2,1] and [2,2] along axis -1 (1): rows {a0, b0, b1}, {a1, b2, b3}. */
  const int8_t a[2] = {1, 2};
  const int8_t b[4] = {10, 11, 12, 13};
  const int8_t *inputs[2] = {a, b};
  const utvm_shape_t shapes[2] = {shape(2, 2, 1, 0, 0), shape(2, 2, 2, 0, 0)};
  const utvm_shape_t out_shape = shape(2, 2, 3, 0, 0);
  int8_t out[6];
  assert_int_equal(utvm_concatenation_s8(2, inputs, shapes, -1, &out_shape, out), UTVM_OK);
  const int8_t expected[6] = {1, 10, 11, 2, 12, 13};
  assert_memory_equal(out, expected, sizeof(expected));
  assert_int_equal(utvm_concatenation_s8(2, inputs, shapes, 0, &out_shape, out),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_int_equal(utvm_concatenation_s8(2, inputs, shapes, 2, &out_shape, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
}

static void test_mean(void **state) {
  (void)state;
  utvm_mean_params_t params;
  assert_int_equal(utvm_mean_params_s8(0.5f, 0, 0.5f, 0, &params), UTVM_OK);
  /* [1,2,2,1] {1,2,3,4} over H,W: 2.5 -> 3; negated: -3. */
  const utvm_shape_t s = shape(4, 1, 2, 2, 1);
  const int32_t hw[2] = {1, 2};
  const int8_t positive[4] = {1, 2, 3, 4};
  const int8_t negative[4] = {-1, -2, -3, -4};
  int8_t out[2];
  assert_int_equal(utvm_mean_s8(&params, &s, positive, hw, 2, out), UTVM_OK);
  assert_int_equal(out[0], 3);
  assert_int_equal(utvm_mean_s8(&params, &s, negative, hw, 2, out), UTVM_OK);
  assert_int_equal(out[0], -3);
  /* Over the channels of [1,1,2,2] {1,2,3,4}: 1.5 -> 2, 3.5 -> 4. With zero point 1 in and
   * out and the output scale doubled, the exact results 0.25 + 1 and 1.25 + 1 come out as
   * 2 and 3: TFLite rounds twice (0.25 -> 0.5 -> 1, 1.25 -> 1.5 -> 2), and so must we. */
  const utvm_shape_t sc = shape(4, 1, 1, 2, 2);
  const int32_t c[1] = {-1};
  assert_int_equal(utvm_mean_s8(&params, &sc, positive, c, 1, out), UTVM_OK);
  assert_int_equal(out[0], 2);
  assert_int_equal(out[1], 4);
  assert_int_equal(utvm_mean_params_s8(0.5f, 1, 1.0f, 1, &params), UTVM_OK);
  assert_int_equal(utvm_mean_s8(&params, &sc, positive, c, 1, out), UTVM_OK);
  assert_int_equal(out[0], 2);
  assert_int_equal(out[1], 3);
  const int32_t bad[1] = {4};
  assert_int_equal(utvm_mean_s8(&params, &sc, positive, bad, 1, out), UTVM_ERR_KERNEL_BAD_PARAM);
}

static void test_quantize_dequantize(void **state) {
  (void)state;
  /* scale 0.5, zero point 1: 1.25 -> 2.5 -> 3 (+1 = 4); -1.25 -> -3 (-2); 100 -> 127. */
  const float values[4] = {1.25f, -1.25f, 100.0f, 0.0f};
  int8_t q[4];
  assert_int_equal(utvm_quantize_f32_s8(0.5f, 1, 4, values, q), UTVM_OK);
  const int8_t expected[4] = {4, -2, 127, 1};
  assert_memory_equal(q, expected, sizeof(expected));
  assert_int_equal(utvm_quantize_f32_s8(0.0f, 1, 4, values, q), UTVM_ERR_KERNEL_BAD_PARAM);
  float f[2];
  const int8_t codes[2] = {5, -128};
  assert_int_equal(utvm_dequantize_s8_f32(0.5f, 1, 2, codes, f), UTVM_OK);
  assert_true(f[0] == 2.0f);
  assert_true(f[1] == -64.5f);
  utvm_requantize_params_t params;
  assert_int_equal(utvm_requantize_params_s8(0.25f, 3, 0.25f, -4, &params), UTVM_OK);
  assert_int_equal(params.multiplier, ONE_M);
  assert_int_equal(params.shift, ONE_S);
  const int8_t in[3] = {3, 127, -128};
  int8_t out[3];
  assert_int_equal(utvm_requantize_s8(&params, 3, in, out), UTVM_OK);
  const int8_t shifted[3] = {-4, 120, -128};
  assert_memory_equal(out, shifted, sizeof(shifted));
}

/* QUANTIZE and DEQUANTIZE with int16: saturation at both ends of int16, any zero point of the
 * type, the element-size and zero-point checks of the mixed requantize. */
static void test_quantize_s16(void **state) {
  (void)state;
  const float values[4] = {1.25f, -1.25f, 1.0e9f, -1.0e9f};
  int16_t q[4];
  assert_int_equal(utvm_quantize_f32_s16(0.5f, -100, 4, values, q), UTVM_OK);
  const int16_t expected[4] = {-97, -103, INT16_MAX, INT16_MIN};
  assert_memory_equal(q, expected, sizeof(expected));
  assert_int_equal(utvm_quantize_f32_s16(0.5f, 40000, 4, values, q), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_quantize_f32_s16(0.5f, 0, -1, values, q), UTVM_ERR_KERNEL_BAD_SHAPE);
  float f[2];
  const int16_t codes[2] = {INT16_MIN, INT16_MAX};
  assert_int_equal(utvm_dequantize_s16_f32(0.5f, -32768, 2, codes, f), UTVM_OK);
  assert_true(f[0] == 0.0f);
  assert_true(f[1] == 32767.5f);
  assert_int_equal(utvm_dequantize_s16_f32(0.5f, 32768, 2, codes, f), UTVM_ERR_KERNEL_BAD_PARAM);
  /* int16 (scale 1/64) -> int8 (scale 1, zero point 3): 640 -> 10 + 3; -32768 -> -128. */
  utvm_requantize_q_params_t params;
  assert_int_equal(utvm_requantize_q_params(0.015625f, 0, 2, 1.0f, 3, 1, &params), UTVM_OK);
  const int16_t in16[3] = {640, -32768, 32767};
  int8_t out8[3];
  assert_int_equal(utvm_requantize_q(&params, 3, in16, out8), UTVM_OK);
  const int8_t expected8[3] = {13, -128, 127};
  assert_memory_equal(out8, expected8, sizeof(expected8));
  /* int8 (scale 1, zero point -5) -> int16 (scale 1/256): 127 -> 132 * 256 -> 32767. */
  assert_int_equal(utvm_requantize_q_params(1.0f, -5, 1, 0.00390625f, 0, 2, &params), UTVM_OK);
  const int8_t in8[3] = {-5, 27, 127};
  int16_t out16[3];
  assert_int_equal(utvm_requantize_q(&params, 3, in8, out16), UTVM_OK);
  const int16_t expected16[3] = {0, 8192, INT16_MAX};
  assert_memory_equal(out16, expected16, sizeof(expected16));
  /* the checks */
  assert_int_equal(utvm_requantize_q_params(1.0f, 200, 1, 1.0f, 0, 2, &params),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_requantize_q_params(1.0f, 0, 4, 1.0f, 0, 2, &params),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_requantize_q_params(1.0f, 0, 2, 1.0f, 0, 2, &params), UTVM_OK);
  params.output_size = 3;
  assert_int_equal(utvm_requantize_q(&params, 3, in16, out16), UTVM_ERR_KERNEL_BAD_PARAM);
  params.output_size = 1;
  params.output_zero_point = 128;
  assert_int_equal(utvm_requantize_q(&params, 3, in16, out8), UTVM_ERR_KERNEL_BAD_PARAM);
  params.output_zero_point = 0;
  params.shift = 32;
  assert_int_equal(utvm_requantize_q(&params, 3, in16, out8), UTVM_ERR_KERNEL_BAD_PARAM);
  params.shift = 0;
  assert_int_equal(utvm_requantize_q(&params, -1, in16, out8), UTVM_ERR_KERNEL_BAD_SHAPE);
}

/* TFLM's LUTPopulate<int16_t> restated (float arithmetic in its order): 512 samples over the
 * input range, each less half the rounded error of the interpolated midpoint, and the end. */
static float lut_exp(float v) { return expf(v); }
static float lut_recip(float v) { return 1.0f / (1.0f + v); }
static void lut_populate_s16(float in_scale, int32_t in_zp, float out_scale, float (*f)(float),
                             int16_t *lut) {
  const float in_min = in_scale * (float)(INT16_MIN - in_zp);
  const float in_max = in_scale * (float)(INT16_MAX - in_zp);
  const float out_min = out_scale * (float)INT16_MIN;
  const float out_max = out_scale * (float)INT16_MAX;
  const float step = (in_max - in_min) / 512.0f;
  const float half = step / 2.0f;
  const float inv = 65536.0f / (out_max - out_min);
  for (int32_t i = 0; i < 512; i++) {
    const float val = f(in_min + (float)i * step);
    const float mid = f(in_min + (float)i * step + half);
    const float next = f(in_min + (float)(i + 1) * step);
    const float sample = roundf(val * inv);
    const float interp = roundf((next * inv + roundf(val * inv)) / 2.0f);
    const float bias = roundf((interp - roundf(mid * inv)) / 2.0f);
    lut[i] = (int16_t)fminf(fmaxf(sample - bias, -32768.0f), 32767.0f);
  }
  lut[512] = (int16_t)fminf(fmaxf(roundf(f(in_max) * inv), -32768.0f), 32767.0f);
}

/* SOFTMAX int16: the constant tables are TFLM's, built as its prepare builds them; a row of
 * equal values gives 1/depth; the parameter checks. int8 -> int16: the zero point -32768. */
static void test_softmax_s16(void **state) {
  (void)state;
  int16_t lut[UTVM_SOFTMAX_LUT_SIZE];
  lut_populate_s16(10.0f / 65535.0f, 32767, 2.0f / 65535.0f, lut_exp, lut);
  assert_memory_equal(lut, utvm_softmax_exp_lut, sizeof(lut));
  lut_populate_s16(1.0f / 65535.0f, -32768, 2.0f / 65535.0f, lut_recip, lut);
  assert_memory_equal(lut, utvm_softmax_recip_lut, sizeof(lut));
  utvm_softmax_params_t params;
  assert_int_equal(utvm_softmax_params_s16(1.0f, 0.0003f, &params), UTVM_OK);
  const int16_t in[4] = {100, 100, 100, 100};
  int16_t out[4];
  assert_int_equal(utvm_softmax_s16(&params, 1, 4, in, out), UTVM_OK);
  for (int32_t i = 0; i < 4; ++i) {
    assert_true(out[i] >= 8191 && out[i] <= 8193); /* 1/4 in Q0.15 */
  }
  /* one dominant value: ~1 for it, ~0 for the others (exp(-10) and below) */
  const int16_t peak[3] = {INT16_MIN, INT16_MAX, INT16_MIN};
  assert_int_equal(utvm_softmax_s16(&params, 1, 3, peak, out), UTVM_OK);
  assert_true(out[1] >= 32700);
  assert_true(out[0] <= 2 && out[2] <= 2);
  assert_int_equal(utvm_softmax_s16(&params, 1, UTVM_SOFTMAX_S16_MAX_DEPTH + 1, in, out),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_int_equal(utvm_softmax_s16(&params, 0, 4, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  params.input_left_shift = 32;
  assert_int_equal(utvm_softmax_s16(&params, 1, 4, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_softmax_s16(NULL, 1, 4, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_softmax_params_s16(0.0f, 0.0003f, &params), UTVM_ERR_KERNEL_BAD_PARAM);
  /* int8 -> int16: two equal inputs give 1/2 = 32768 * 2^-16 above the zero point -32768 */
  assert_int_equal(utvm_softmax_params_s8(1.0f, 0.1f, &params), UTVM_OK);
  const int8_t in8[3] = {7, 7, -128};
  assert_int_equal(utvm_softmax_s8_s16(&params, 1, 3, in8, out), UTVM_OK);
  assert_true(out[0] >= -2 && out[0] <= 0);
  assert_int_equal(out[0], out[1]);
  assert_int_equal(out[2], INT16_MIN);
  assert_int_equal(utvm_softmax_s8_s16(&params, 1, 3, in8, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
}

/* LOGISTIC and TANH int16: TFLM's prepare (power-of-two scales take 3 << shift), the curves'
 * centre and saturation, and the checks. */
static void test_sigmoid_s16(void **state) {
  (void)state;
  utvm_sigmoid_s16_params_t params;
  /* input scale 2^-12 is TFLM's power-of-two case for both; 2^-11 for TANH only */
  assert_int_equal(utvm_sigmoid_params_s16(1.0f / 4096.0f, 1.0f / 32768.0f, 0, &params), UTVM_OK);
  assert_int_equal(params.input_multiplier, 3);
  assert_int_equal(params.input_left_shift, 0);
  assert_int_equal(utvm_sigmoid_params_s16(1.0f / 2048.0f, 1.0f / 32768.0f, 1, &params), UTVM_OK);
  assert_int_equal(params.input_multiplier, 6);
  assert_int_equal(utvm_sigmoid_params_s16(1.0f / 2048.0f, 1.0f / 32768.0f, 0, &params), UTVM_OK);
  assert_int_equal(params.input_multiplier, 24576); /* 6 after 12 doublings */
  assert_int_equal(params.input_left_shift, 12);
  assert_int_equal(utvm_sigmoid_params_s16(0.001f, 1.0f / 16384.0f, 0, &params),
                   UTVM_ERR_KERNEL_UNSUPPORTED);
  assert_int_equal(utvm_sigmoid_params_s16(4.0f, 1.0f / 32768.0f, 0, &params),
                   UTVM_ERR_KERNEL_UNSUPPORTED);
  assert_int_equal(utvm_sigmoid_params_s16(0.0003f, 1.0f / 32768.0f, 0, &params), UTVM_OK);
  const int16_t in[3] = {0, INT16_MAX, INT16_MIN};
  int16_t out[3];
  assert_int_equal(utvm_logistic_s16(&params, 3, in, out), UTVM_OK);
  assert_int_equal(out[0], 16384); /* 0.5 */
  assert_true(out[1] > 31000);     /* sigmoid(9.8) */
  assert_true(out[2] < 1800);
  assert_int_equal(utvm_tanh_s16(&params, 3, in, out), UTVM_OK);
  assert_int_equal(out[0], 0);
  assert_true(out[1] > 32000);
  assert_int_equal(out[1], -out[2]);
  params.input_multiplier = 32768;
  assert_int_equal(utvm_logistic_s16(&params, 3, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  params.input_multiplier = 3;
  params.input_left_shift = 32;
  assert_int_equal(utvm_tanh_s16(&params, 3, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  params.input_left_shift = 0;
  assert_int_equal(utvm_tanh_s16(&params, -1, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
}

/* SQUARED_DIFFERENCE: (a - b)^2 at one scale, broadcasting, saturation, the checks. */
static void test_squared_difference(void **state) {
  (void)state;
  utvm_add_params_t params;
  /* inputs 0.5, output 0.25 (zero point -128): (3 - (-1))^2 * 0.25 / 0.25 = 16 - 128 */
  assert_int_equal(utvm_squared_difference_params(0.5f, 0, 0.5f, 0, 0.25f, -128, 0, &params),
                   UTVM_OK);
  const utvm_shape_t s4 = {1, {4, 0, 0, 0, 0, 0}};
  const utvm_shape_t s1 = {1, {1, 0, 0, 0, 0, 0}};
  const int8_t a[4] = {3, -1, 127, -128};
  const int8_t b[1] = {-1};
  int8_t out[4];
  assert_int_equal(utvm_squared_difference_s8(&params, &s4, a, &s1, b, &s4, out), UTVM_OK);
  assert_int_equal(out[0], 16 - 128);
  assert_int_equal(out[1], -128);
  assert_int_equal(out[2], 127);
  assert_int_equal(out[3], 127);
  utvm_add_params_t bad = params;
  bad.left_shift = 8;
  assert_int_equal(utvm_squared_difference_s8(&bad, &s4, a, &s1, b, &s4, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  bad = params;
  bad.input1_shift = 1;
  assert_int_equal(utvm_squared_difference_s8(&bad, &s4, a, &s1, b, &s4, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_squared_difference_s8(&params, &s4, a, &s4, a, &s1, out),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
  /* int16, zero points 0: 300 - 100 = 200 at scale 1/64 -> 200^2 / 64^2 at output 1/8 */
  assert_int_equal(utvm_squared_difference_params(0.015625f, 0, 0.015625f, 0, 0.125f, 0, 1,
                                                  &params),
                   UTVM_OK);
  const int16_t x[1] = {300};
  const int16_t y[1] = {100};
  int16_t z[1];
  assert_int_equal(utvm_squared_difference_s16(&params, &s1, x, &s1, y, &s1, z), UTVM_OK);
  assert_true(z[0] >= 78 && z[0] <= 79); /* 9.77 / 0.125 = 78.1 */
  assert_int_equal(utvm_squared_difference_params(0.5f, 200, 0.5f, 0, 0.25f, 0, 0, &params),
                   UTVM_ERR_KERNEL_BAD_PARAM);
}

static void test_prepare_helpers(void **state) {
  (void)state;
  int32_t lo;
  int32_t hi;
  /* RELU6 with scale 0.05, zero point -128: [-128, -128 + 120]. */
  assert_int_equal(utvm_activation_range_s8(UTVM_ACT_RELU6, 0.05f, -128, &lo, &hi), UTVM_OK);
  assert_int_equal(lo, -128);
  assert_int_equal(hi, -8);
  /* RELU_N1_TO_1 with scale 0.1, zero point 0: [-10, 10]; RELU: [zp, 127]. */
  assert_int_equal(utvm_activation_range_s8(UTVM_ACT_RELU_N1_TO_1, 0.1f, 0, &lo, &hi), UTVM_OK);
  assert_int_equal(lo, -10);
  assert_int_equal(hi, 10);
  assert_int_equal(utvm_activation_range_s8(UTVM_ACT_RELU, 0.1f, 17, &lo, &hi), UTVM_OK);
  assert_int_equal(lo, 17);
  assert_int_equal(hi, 127);
  assert_int_equal(utvm_activation_range_s8(4, 0.1f, 0, &lo, &hi), UTVM_ERR_KERNEL_UNSUPPORTED);
  assert_int_equal(utvm_activation_range_s8(UTVM_ACT_NONE, -1.0f, 0, &lo, &hi),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  /* Per-tensor FC multiplies the scales in float; per-channel conv in double. */
  const float filter_scale[1] = {0.3f};
  int32_t m_fc;
  int32_t s_fc;
  int32_t m_conv;
  int32_t s_conv;
  assert_int_equal(utvm_fully_connected_quant_params(0.7f, filter_scale, 1, 0.11f, &m_fc, &s_fc),
                   UTVM_OK);
  assert_int_equal(utvm_conv_quant_params(0.7f, filter_scale, 1, 0.11f, &m_conv, &s_conv),
                   UTVM_OK);
  assert_int_equal(s_fc, s_conv);
  assert_true(m_fc > 0 && m_conv > 0);
  utvm_padding_values_t padding;
  assert_int_equal(utvm_compute_padding(UTVM_PADDING_VALID, 1, 1, 1, 1, 2, 2, 3, 3, &padding),
                   UTVM_OK);
  assert_int_equal(padding.out_h, 0); /* the filter does not fit */
  assert_int_equal(utvm_compute_padding((utvm_padding_t)2, 1, 1, 1, 1, 2, 2, 3, 3, &padding),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_compute_padding(UTVM_PADDING_SAME, 0, 1, 1, 1, 2, 2, 3, 3, &padding),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_string_equal(utvm_strerror(UTVM_ERR_KERNEL_BAD_SHAPE), "kernel: bad tensor shape");
}

/* utvm_split against an element-by-element loop on random shapes and element sizes, and its
 * parameter checks. */
static void test_split(void **state) {
  static uint8_t input[4096];
  static uint8_t output[4096];
  uint32_t seed = 12345u;
  (void)state;
  for (uint32_t i = 0u; i < sizeof(input); i++) {
    input[i] = (uint8_t)(i * 13u + 7u);
  }
  for (int trial = 0; trial < 200; trial++) {
    seed = seed * 1103515245u + 12345u;
    const int32_t sizes[3] = {1, 2, 4};
    utvm_split_params_t p;
    p.element_size = sizes[(seed >> 8) % 3u];
    p.outer = 1 + (int32_t)((seed >> 12) % 5u);
    p.inner = 1 + (int32_t)((seed >> 16) % 6u);
    p.input_len = 1 + (int32_t)((seed >> 20) % 7u);
    p.output_len = 1 + (int32_t)((seed >> 24) % (uint32_t)p.input_len);
    p.begin = (int32_t)((seed >> 4) % (uint32_t)(p.input_len - p.output_len + 1));
    (void)memset(output, 0xEE, sizeof(output));
    assert_int_equal(utvm_split(&p, input, output), UTVM_OK);
    const int32_t e = p.element_size;
    size_t at = 0u;
    for (int32_t o = 0; o < p.outer; o++) {
      for (int32_t m = 0; m < p.output_len; m++) {
        for (int32_t k = 0; k < p.inner * e; k++) {
          const size_t from = ((((size_t)o * (size_t)p.input_len) + (size_t)(p.begin + m)) *
                               (size_t)(p.inner * e)) + (size_t)k;
          assert_int_equal(output[at], input[from]);
          at++;
        }
      }
    }
    assert_int_equal(output[at], 0xEE); /* nothing past the output */
  }
  utvm_split_params_t p = {2, 4, 2, 2, 3, 1};
  assert_int_equal(utvm_split(NULL, input, output), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_split(&p, NULL, output), UTVM_ERR_KERNEL_BAD_PARAM);
  p.element_size = 3;
  assert_int_equal(utvm_split(&p, input, output), UTVM_ERR_KERNEL_BAD_PARAM);
  p.element_size = 1;
  p.begin = 3; /* 3 + 2 > 4 */
  assert_int_equal(utvm_split(&p, input, output), UTVM_ERR_KERNEL_BAD_SHAPE);
  p.begin = -1;
  assert_int_equal(utvm_split(&p, input, output), UTVM_ERR_KERNEL_BAD_SHAPE);
  p.begin = 0;
  p.inner = 0;
  assert_int_equal(utvm_split(&p, input, output), UTVM_ERR_KERNEL_BAD_SHAPE);
  p.inner = 0x10000;
  p.outer = 0x10000;
  assert_int_equal(utvm_split(&p, input, output), UTVM_ERR_KERNEL_BAD_SHAPE);
}

/* The int16x8 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED on a 1x1 case worked by hand,
 * both accumulators, and their parameter checks. */
static void test_s16_weighted(void **state) {
  const int16_t input[2] = {1000, -2000};
  const int8_t filter[2] = {3, 4};
  const int64_t bias64[1] = {11};
  const int32_t bias32[1] = {11};
  const int32_t mult[1] = {1 << 30}; /* 0.5 */
  const int8_t shift[1] = {0};
  const utvm_per_channel_quant_t quant = {mult, shift, 1, NULL};
  const utvm_dims_t in_dims = {1, 1, 1, 2};
  const utvm_dims_t f_dims = {1, 1, 1, 2};
  const utvm_dims_t out_dims = {1, 1, 1, 1};
  utvm_conv2d_params_t cp = {1, 1, 1, 1, 0, 0, 0, 0, INT16_MIN, INT16_MAX,
                             (int32_t)UTVM_FILTER_PLAIN};
  utvm_fully_connected_params_t fp = {0, 0, 0, INT16_MIN, INT16_MAX, (int32_t)UTVM_FILTER_PLAIN};
  int16_t out[2] = {0, 0};
  (void)state;
  /* 3 * 1000 + 4 * -2000 + 11 = -4989; 64-bit: (-4989 * 2^14 + 2^14) >> 15 = -2494 */
  assert_int_equal(utvm_conv2d_s16(&cp, &quant, UTVM_ACCUMULATE_64, &in_dims, input, &f_dims,
                                   filter, bias64, &out_dims, out), UTVM_OK);
  assert_int_equal(out[0], -2494);
  /* 32-bit: SaturatingRoundingDoublingHighMul(-4989, 2^30) = -2494 (toward zero) */
  assert_int_equal(utvm_conv2d_s16(&cp, &quant, UTVM_ACCUMULATE_32, &in_dims, input, &f_dims,
                                   filter, bias32, &out_dims, out), UTVM_OK);
  assert_int_equal(out[0], -2494);
  assert_int_equal(utvm_fully_connected_s16(&fp, &quant, UTVM_ACCUMULATE_64, 1, 2, 1, input,
                                            filter, bias64, out), UTVM_OK);
  assert_int_equal(out[0], -2494);
  /* the int16 kernel reads TFLite's weights only */
  fp.weights_layout = (int32_t)UTVM_FILTER_MVE_TERMS;
  assert_int_equal(utvm_fully_connected_s16(&fp, &quant, UTVM_ACCUMULATE_64, 1, 2, 1, input,
                                            filter, bias64, out), UTVM_ERR_KERNEL_BAD_PARAM);
  fp.weights_layout = (int32_t)UTVM_FILTER_PLAIN;
  /* activation range clamps */
  cp.act_max = -3000;
  cp.act_min = -3000;
  assert_int_equal(utvm_conv2d_s16(&cp, &quant, UTVM_ACCUMULATE_64, &in_dims, input, &f_dims,
                                   filter, NULL, &out_dims, out), UTVM_OK);
  assert_int_equal(out[0], -3000);
  /* depthwise: two channels, multiplier 1, filter [1,1,1,2] */
  const utvm_depthwise_conv2d_params_t dp = {1, 1, 1, 1, 0, 0, 1, 0, 0, INT16_MIN, INT16_MAX};
  const utvm_dims_t dw_out = {1, 1, 1, 2};
  assert_int_equal(utvm_depthwise_conv2d_s16(&dp, &quant, &in_dims, input, &f_dims, filter, NULL,
                                             &dw_out, out), UTVM_OK);
  assert_int_equal(out[0], 1500);  /* 3000 / 2 */
  assert_int_equal(out[1], -4000); /* -8000 / 2 */
  /* checks: offsets must be 0, the range within int16, shifts <= 7 for 64 bits */
  cp.act_min = INT16_MIN;
  cp.act_max = INT16_MAX;
  cp.input_offset = 1;
  assert_int_equal(utvm_conv2d_s16(&cp, &quant, UTVM_ACCUMULATE_64, &in_dims, input, &f_dims,
                                   filter, NULL, &out_dims, out), UTVM_ERR_KERNEL_BAD_PARAM);
  cp.input_offset = 0;
  cp.act_max = 40000;
  assert_int_equal(utvm_conv2d_s16(&cp, &quant, UTVM_ACCUMULATE_64, &in_dims, input, &f_dims,
                                   filter, NULL, &out_dims, out), UTVM_ERR_KERNEL_BAD_PARAM);
  cp.act_max = INT16_MAX;
  const int8_t big_shift[1] = {8};
  const utvm_per_channel_quant_t bad = {mult, big_shift, 1, NULL};
  assert_int_equal(utvm_conv2d_s16(&cp, &bad, UTVM_ACCUMULATE_64, &in_dims, input, &f_dims,
                                   filter, NULL, &out_dims, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_conv2d_s16(&cp, &bad, UTVM_ACCUMULATE_32, &in_dims, input, &f_dims,
                                   filter, NULL, &out_dims, out), UTVM_OK);
  assert_int_equal(utvm_conv2d_s16(&cp, &quant, (utvm_accumulator_t)7, &in_dims, input, &f_dims,
                                   filter, NULL, &out_dims, out), UTVM_ERR_KERNEL_BAD_PARAM);
  const utvm_dims_t wrong = {1, 1, 1, 3};
  assert_int_equal(utvm_conv2d_s16(&cp, &quant, UTVM_ACCUMULATE_64, &wrong, input, &f_dims,
                                   filter, NULL, &out_dims, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_int_equal(utvm_fully_connected_s16(&fp, &quant, UTVM_ACCUMULATE_64, 0, 2, 1, input,
                                            filter, NULL, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  fp.output_offset = 5;
  assert_int_equal(utvm_fully_connected_s16(&fp, &quant, UTVM_ACCUMULATE_64, 1, 2, 1, input,
                                            filter, NULL, out), UTVM_ERR_KERNEL_BAD_PARAM);
}

/* SVDF on a hand-worked case (one batch, one filter, memory 2) and its parameter checks. */
static void test_svdf(void **state) {
  /* feature: 2*(3-1) + 1*(5-1) = 8, rescaled x1 (2^30, shift 1) into the newest state slot;
   * time: 3*old + 2*8 with the old slot 4 -> 28, bias 2 -> 30, rescaled x0.5 -> 15, +1 */
  const int8_t input[2] = {3, 5};
  const int8_t feature[2] = {2, 1};
  const int16_t time[2] = {3, 2};
  const int32_t bias[1] = {2};
  int16_t st[2] = {0, 4};
  int32_t scratch[2];
  int8_t out[1] = {0};
  utvm_svdf_params_t p = {1, 2, 1, 1, 2, 16, -1, 0, 1, 1 << 30, 1, 1 << 30, 0};
  (void)state;
  assert_int_equal(utvm_svdf_s8_scratch_size(&p), 8u);
  assert_int_equal(utvm_svdf_s8(&p, input, feature, time, bias, st, out, scratch), UTVM_OK);
  assert_int_equal(st[0], 4); /* shifted */
  assert_int_equal(st[1], 8); /* newest */
  assert_int_equal(out[0], 16);
  assert_int_equal(utvm_svdf_s8(&p, input, feature, time, bias, st, out, NULL),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  p.state_bits = 12;
  assert_int_equal(utvm_svdf_s8(&p, input, feature, time, bias, st, out, scratch),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_svdf_s8_scratch_size(&p), 0u);
  p.state_bits = 16;
  p.rank = 2; /* does not divide 1 filter */
  assert_int_equal(utvm_svdf_s8(&p, input, feature, time, bias, st, out, scratch),
                   UTVM_ERR_KERNEL_BAD_PARAM);
}

/* LSTM parameters of a b x t x in -> cells int8 LSTM: every rescale x1 for the gates (2^30,
 * shift 1), TFLite's Q0.15 products for a cell of scale 2^-11 and a hidden state of 2^-7. */
static utvm_lstm_params_t lstm_params(int32_t b, int32_t t, int32_t in, int32_t cells) {
  utvm_lstm_params_t p;
  (void)memset(&p, 0, sizeof(p));
  p.batches = b;
  p.time_steps = t;
  p.input_size = in;
  p.cell_size = cells;
  p.act_bits = 8;
  for (int g = 0; g < UTVM_LSTM_GATES; ++g) {
    p.input_multiplier[g] = 1 << 30;
    p.input_shift[g] = 1;
    p.recurrent_multiplier[g] = 1 << 30;
    p.recurrent_shift[g] = 1;
  }
  p.forget_multiplier = 1 << 30; /* 2^-15 */
  p.forget_shift = -14;
  p.update_multiplier = 1 << 30; /* 2^-30 / 2^-11 */
  p.update_shift = -18;
  p.output_multiplier = 1 << 30; /* 2^-30 / 2^-7 */
  p.output_shift = -22;
  p.cell_tanh_multiplier = 6;    /* 3 << (15 - 11 - 3) */
  return p;
}

/* LSTM on a hand-worked step (every gate's input 0: sigmoid 16384, tanh 0): the cell 1000 halves
 * to 500 (or is clipped to 300), tanh(500 / 2048) = 7845 and tanh(300 / 2048) = 4766 in Q0.15
 * from TFLite's table, times the output gate 0.5 and 2^-23: 15 and 9; and the checks. */
static void test_lstm(void **state) {
  const int8_t zero_w[1] = {0};
  const int32_t zero_b[1] = {0};
  const int8_t input[1] = {7};
  int8_t hidden[1] = {0};
  int16_t cell[1] = {1000};
  int8_t out[1] = {0};
  int16_t scratch[4];
  utvm_lstm_weights_t w;
  utvm_lstm_params_t p = lstm_params(1, 1, 1, 1);
  (void)state;
  for (int g = 0; g < UTVM_LSTM_GATES; ++g) {
    w.input_weights[g] = zero_w;
    w.recurrent_weights[g] = zero_w;
    w.biases[g] = zero_b;
  }
  assert_int_equal(utvm_lstm_scratch_size(&p), 8u);
  assert_int_equal(utvm_lstm(&p, &w, input, hidden, cell, out, scratch), UTVM_OK);
  assert_int_equal(cell[0], 500);
  assert_int_equal(hidden[0], 15);
  assert_int_equal(out[0], 15);
  cell[0] = 1000;
  p.cell_clip = 300;
  assert_int_equal(utvm_lstm(&p, &w, input, hidden, cell, out, scratch), UTVM_OK);
  assert_int_equal(cell[0], 300);
  assert_int_equal(out[0], 9);
  assert_int_equal(utvm_lstm(&p, &w, input, hidden, cell, out, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
  w.biases[2] = NULL;
  assert_int_equal(utvm_lstm(&p, &w, input, hidden, cell, out, scratch),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  w.biases[2] = zero_b;
  p.act_bits = 12;
  assert_int_equal(utvm_lstm_scratch_size(&p), 0u);
  p.act_bits = 16;
  p.input_shift[3] = 8; /* past the 64-bit rescale's range */
  assert_int_equal(utvm_lstm(&p, &w, input, hidden, cell, out, scratch),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  p = lstm_params(3, 2, 1, 5);
  p.time_major = 1;
  assert_int_equal(utvm_lstm_scratch_size(&p), 3u * 5u * 4u * 2u);
  p.time_major = 2;
  assert_int_equal(utvm_lstm_scratch_size(&p), 0u);
}

/* LSTM time-major on the transposed input equals batch-major: the same outputs (transposed) and
 * final states, for random weights, biases, zero points and inputs. */
static void test_lstm_time_major(void **state) {
  enum { B = 2, T = 3, IN = 4, C = 5 };
  int8_t weights[2 * UTVM_LSTM_GATES][C * C];
  int32_t biases[UTVM_LSTM_GATES][C];
  int8_t in_bm[B * T * IN];
  int8_t in_tm[T * B * IN];
  int8_t hidden[2][B * C];
  int16_t cell[2][B * C];
  int8_t out[2][B * T * C];
  int16_t scratch[B * C * UTVM_LSTM_GATES];
  utvm_lstm_weights_t w;
  utvm_lstm_params_t p = lstm_params(B, T, IN, C);
  uint32_t seed = 12345u;
  (void)state;
  for (int g = 0; g < 2 * UTVM_LSTM_GATES; ++g) {
    for (int i = 0; i < C * C; ++i) {
      seed = (seed * 1103515245u) + 12345u;
      weights[g][i] = (int8_t)((int32_t)(seed >> 16) % 127);
    }
  }
  for (int g = 0; g < UTVM_LSTM_GATES; ++g) {
    for (int i = 0; i < C; ++i) {
      seed = (seed * 1103515245u) + 12345u;
      biases[g][i] = (int32_t)(seed >> 20) - 2048;
    }
    w.input_weights[g] = weights[g];
    w.recurrent_weights[g] = weights[UTVM_LSTM_GATES + g];
    w.biases[g] = biases[g];
    p.input_shift[g] = -2;
    p.recurrent_shift[g] = -3;
  }
  for (int i = 0; i < B * T * IN; ++i) {
    seed = (seed * 1103515245u) + 12345u;
    in_bm[i] = (int8_t)((int32_t)(seed >> 16) % 128);
  }
  for (int b = 0; b < B; ++b) {
    for (int t = 0; t < T; ++t) {
      (void)memcpy(&in_tm[(t * B + b) * IN], &in_bm[(b * T + t) * IN], IN);
    }
  }
  p.input_offset = 3;
  p.hidden_zero_point = -5;
  for (int m = 0; m < 2; ++m) {
    (void)memset(hidden[m], -5, sizeof(hidden[m]));
    (void)memset(cell[m], 0, sizeof(cell[m]));
    p.time_major = m;
    assert_int_equal(utvm_lstm(&p, &w, (m == 1) ? in_tm : in_bm, hidden[m], cell[m], out[m],
                               scratch), UTVM_OK);
  }
  assert_memory_equal(hidden[0], hidden[1], sizeof(hidden[0]));
  assert_memory_equal(cell[0], cell[1], sizeof(cell[0]));
  for (int b = 0; b < B; ++b) {
    for (int t = 0; t < T; ++t) {
      assert_memory_equal(&out[0][(b * T + t) * C], &out[1][(t * B + b) * C], C);
    }
  }
}

/* utvm_reduce's MAX/MIN and utvm_arg_min_max_s8 (first index of the extreme) on a hand case,
 * and their parameter checks. */
static void test_reduce_extremes_and_arg(void **state) {
  const int8_t input[8] = {3, -7, 9, 9, -128, 127, 0, -128}; /* [2,4] */
  const utvm_shape_t shape = {2, {2, 4, 0, 0, 0, 0}};
  const int32_t axis1 = 1;
  int8_t out[2];
  int32_t idx[2];
  utvm_reduce_params_t p = {(int32_t)UTVM_REDUCE_MAX, 1, 0, 0, 0, 0};
  (void)state;
  assert_int_equal(utvm_reduce(&p, &shape, input, &axis1, 1, out), UTVM_OK);
  assert_int_equal(out[0], 9);
  assert_int_equal(out[1], 127);
  p.op = (int32_t)UTVM_REDUCE_MIN;
  assert_int_equal(utvm_reduce(&p, &shape, input, &axis1, 1, out), UTVM_OK);
  assert_int_equal(out[0], -7);
  assert_int_equal(out[1], -128);
  p.element_size = 2; /* MAX/MIN are int8 only */
  assert_int_equal(utvm_reduce(&p, &shape, input, &axis1, 1, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p.element_size = 1;
  p.op = 7;
  assert_int_equal(utvm_reduce(&p, &shape, input, &axis1, 1, out), UTVM_ERR_KERNEL_BAD_PARAM);
  utvm_arg_min_max_params_t a = {2, 4, 1, 1};
  assert_int_equal(utvm_arg_min_max_s8(&a, input, idx), UTVM_OK);
  assert_int_equal(idx[0], 2); /* the first 9 */
  assert_int_equal(idx[1], 1);
  a.is_max = 0;
  assert_int_equal(utvm_arg_min_max_s8(&a, input, idx), UTVM_OK);
  assert_int_equal(idx[0], 1);
  assert_int_equal(idx[1], 0); /* the first -128 */
  a.inner = 0;
  assert_int_equal(utvm_arg_min_max_s8(&a, input, idx), UTVM_ERR_KERNEL_BAD_PARAM);
}

/* int16 pooling: TFLM's int8 arithmetic on int16 values (round half away from zero), the
 * int16 activation range, and the parameter checks. */
static void test_pool_s16(void **state) {
  (void)state;
  const utvm_dims_t in_dims = {1, 2, 2, 1};
  const utvm_dims_t out1 = {1, 1, 1, 1};
  const utvm_pool2d_params_t params = {1, 1, 2, 2, 0, 0, INT16_MIN, INT16_MAX};
  int16_t out[4] = {0};
  const int16_t positive[4] = {32767, 32767, 32767, 32766}; /* 131067 / 4 = 32766.75 */
  assert_int_equal(utvm_avg_pool2d_s16(&params, &in_dims, positive, &out1, out), UTVM_OK);
  assert_int_equal(out[0], 32767);
  const int16_t negative[4] = {-32768, -32768, -32768, -32767}; /* -32767.75 */
  assert_int_equal(utvm_avg_pool2d_s16(&params, &in_dims, negative, &out1, out), UTVM_OK);
  assert_int_equal(out[0], -32768);
  const int16_t half[4] = {-3, -2, 0, 0}; /* -1.25 rounds to -1; 1.5 rounds to 2 */
  assert_int_equal(utvm_avg_pool2d_s16(&params, &in_dims, half, &out1, out), UTVM_OK);
  assert_int_equal(out[0], -1);
  const int16_t up[4] = {3, 3, 0, 0};
  assert_int_equal(utvm_avg_pool2d_s16(&params, &in_dims, up, &out1, out), UTVM_OK);
  assert_int_equal(out[0], 2);
  assert_int_equal(utvm_max_pool2d_s16(&params, &in_dims, negative, &out1, out), UTVM_OK);
  assert_int_equal(out[0], -32767);
  const utvm_pool2d_params_t clamped = {1, 1, 2, 2, 0, 0, -1000, 1000};
  assert_int_equal(utvm_max_pool2d_s16(&clamped, &in_dims, positive, &out1, out), UTVM_OK);
  assert_int_equal(out[0], 1000);
  assert_int_equal(utvm_avg_pool2d_s16(&clamped, &in_dims, negative, &out1, out), UTVM_OK);
  assert_int_equal(out[0], -1000);
  const utvm_pool2d_params_t wide = {1, 1, 2, 2, 0, 0, -40000, 1000};
  assert_int_equal(utvm_max_pool2d_s16(&wide, &in_dims, positive, &out1, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_avg_pool2d_s16(&wide, &in_dims, positive, &out1, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  const utvm_pool2d_params_t huge = {1, 1, 256, 256, 0, 0, INT16_MIN, INT16_MAX};
  assert_int_equal(utvm_avg_pool2d_s16(&huge, &in_dims, positive, &out1, out),
                   UTVM_ERR_KERNEL_BAD_PARAM); /* 2^16 elements: the sum could pass int32 */
  assert_int_equal(utvm_avg_pool2d_s16(NULL, &in_dims, positive, &out1, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_max_pool2d_s16(&params, &in_dims, NULL, &out1, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  const utvm_dims_t out_wrong = {1, 1, 1, 2};
  assert_int_equal(utvm_max_pool2d_s16(&params, &in_dims, positive, &out_wrong, out),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
  const utvm_dims_t in3 = {1, 3, 3, 1};
  const utvm_dims_t out2 = {1, 2, 2, 1};
  const int16_t input[9] = {0};
  const utvm_pool2d_params_t empty = {2, 2, 2, 2, 2, 0, INT16_MIN, INT16_MAX};
  assert_int_equal(utvm_avg_pool2d_s16(&empty, &in3, input, &out2, out),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
}

/* RESIZE_BILINEAR int8: a 1x2 row doubled (positions 0, 0.5, 1, 1.5 clamp to the last),
 * rounding of negative halves away from zero, align_corners, and the parameter checks. */
static void test_resize_bilinear(void **state) {
  (void)state;
  const utvm_dims_t in_dims = {1, 1, 2, 1};
  const utvm_dims_t out_dims = {1, 1, 4, 1};
  const int8_t in[2] = {-3, -2};
  int8_t out[4] = {0};
  utvm_resize_params_t p = {1, 0, 0};
  assert_int_equal(utvm_resize_bilinear_s8(&p, &in_dims, in, &out_dims, out), UTVM_OK);
  const int8_t plain[4] = {-3, -3, -2, -2}; /* -2.5 rounds to -3 */
  assert_memory_equal(out, plain, sizeof(plain));
  p.align_corners = 1; /* positions 0, 1/3, 2/3, 1 */
  assert_int_equal(utvm_resize_bilinear_s8(&p, &in_dims, in, &out_dims, out), UTVM_OK);
  const int8_t aligned[4] = {-3, -3, -2, -2};
  assert_memory_equal(out, aligned, sizeof(aligned));
  const int8_t wide[2] = {-128, 127};
  p.align_corners = 0;
  p.half_pixel_centers = 1; /* positions -0.25 (clamped), 0.25, 0.75, 1.25 */
  assert_int_equal(utvm_resize_bilinear_s8(&p, &in_dims, wide, &out_dims, out), UTVM_OK);
  const int8_t half[4] = {-128, -64, 63, 127};
  assert_memory_equal(out, half, sizeof(half));
  p.align_corners = 1;
  assert_int_equal(utvm_resize_bilinear_s8(&p, &in_dims, in, &out_dims, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  p.align_corners = 0;
  p.element_size = 2;
  assert_int_equal(utvm_resize_bilinear_s8(&p, &in_dims, in, &out_dims, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  p.element_size = 1;
  assert_int_equal(utvm_resize_bilinear_s8(NULL, &in_dims, in, &out_dims, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_resize_bilinear_s8(&p, &in_dims, NULL, &out_dims, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  const utvm_dims_t deeper = {1, 1, 4, 2};
  assert_int_equal(utvm_resize_bilinear_s8(&p, &in_dims, in, &deeper, out),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
  const utvm_dims_t huge_in = {1, 1, (1 << 20) + 1, 1};
  assert_int_equal(utvm_resize_bilinear_s8(&p, &huge_in, in, &out_dims, out),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
}

/* TFLite's HardSwish restated with int16_t variables as its reference kernel has them (the
 * compiler's conversions to int16_t wrap), for one input byte. */
static int16_t ref_srdhm16(int16_t a, int16_t b) {
  if (a == INT16_MIN && b == INT16_MIN) {
    return INT16_MAX;
  }
  const int32_t ab = (int32_t)a * (int32_t)b;
  const int16_t nudge = (int16_t)(ab >= 0 ? (1 << 14) : (1 - (1 << 14)));
  return (int16_t)((ab + nudge) / (1 << 15));
}

static int16_t ref_rdbp16(int16_t x, int exponent) {
  const int16_t mask = (int16_t)((1LL << exponent) - 1);
  const int16_t remainder = (int16_t)(x & mask);
  const int16_t threshold = (int16_t)((mask >> 1) + (x < 0 ? 1 : 0));
  return (int16_t)((x >> exponent) + (remainder > threshold ? 1 : 0));
}

static int16_t ref_sat_shl16(int16_t x, int amount) {
  int64_t r = (int64_t)x * ((int64_t)1 << amount);
  r = r > INT16_MAX ? INT16_MAX : r;
  r = r < INT16_MIN ? INT16_MIN : r;
  return (int16_t)r;
}

static int8_t ref_hard_swish(const utvm_hard_swish_params_t *p, int8_t q) {
  const int16_t v = (int16_t)(q - p->input_zero_point);
  const int16_t hires = (int16_t)(v * (1 << 7));
  const int16_t pre = ref_srdhm16(hires, (int16_t)p->output_multiplier);
  int16_t r = hires;
  if (p->reluish_shift > 0) {
    r = ref_sat_shl16(r, p->reluish_shift - 1);
  }
  r = ref_srdhm16(r, (int16_t)p->reluish_multiplier);
  if (p->reluish_shift > 0) {
    r = ref_sat_shl16(r, 1);
  }
  if (p->reluish_shift < 0) {
    r = ref_rdbp16(r, -p->reluish_shift);
  }
  r = (int16_t)((r + (1 << 15)) >> 1);
  int16_t o = INT16_MAX;
  if (r != INT16_MIN || pre != INT16_MIN) {
    o = (int16_t)(((int32_t)r * pre) / (1 << 15));
  }
  o = ref_rdbp16(o, -p->output_shift);
  o = (int16_t)(o + p->output_zero_point);
  o = o > INT8_MAX ? INT8_MAX : o;
  o = o < INT8_MIN ? INT8_MIN : o;
  return (int8_t)o;
}

/* HARD_SWISH: the table equals the restated arithmetic for every byte over scales that take
 * every shift path (reluish exponent > 0, 0, < 0, <= -16), and every parameter check. */
static void test_hard_swish(void **state) {
  (void)state;
  static const float scales[6][2] = {{0.05f, 0.0244f}, {1.0f, 0.5f},   {0.01f, 0.02f},
                                     {0.001f, 0.0001f}, {1e-7f, 1e-9f}, {0.2f, 1.0f}};
  static const int32_t zps[3][2] = {{10, -113}, {-128, 127}, {127, -128}};
  utvm_hard_swish_params_t p;
  int8_t table[256];
  for (int s = 0; s < 6; ++s) {
    for (int z = 0; z < 3; ++z) {
      assert_int_equal(utvm_hard_swish_params_s8(scales[s][0], zps[z][0], scales[s][1],
                                                 zps[z][1], &p),
                       UTVM_OK);
      assert_int_equal(utvm_hard_swish_table_s8(&p, table), UTVM_OK);
      for (int i = 0; i < 256; ++i) {
        assert_int_equal(table[i], ref_hard_swish(&p, (int8_t)(i - 128)));
      }
      /* The input zero point (real 0) maps to the output zero point. */
      assert_int_equal(table[zps[z][0] + 128], zps[z][1]);
    }
  }
  /* Near-real values: scale 0.05, real 6.0 -> 6.0, real -3.0 -> 0, real -1.5 -> -0.375. */
  assert_int_equal(utvm_hard_swish_params_s8(0.05f, 0, 0.05f, 0, &p), UTVM_OK);
  assert_int_equal(utvm_hard_swish_table_s8(&p, table), UTVM_OK);
  assert_int_equal(table[120 + 128], 120);
  assert_int_equal(table[-60 + 128], 0);
  assert_int_equal(table[-30 + 128], -8);
  /* Parameter checks. */
  assert_int_equal(utvm_hard_swish_params_s8(0.0f, 0, 1.0f, 0, &p), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_hard_swish_params_s8(1.0f, 0, -1.0f, 0, &p), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_hard_swish_params_s8(1.0f, 128, 1.0f, 0, &p), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_hard_swish_params_s8(1.0f, 0, 1.0f, -129, &p), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_hard_swish_params_s8(1.0f, 0, 1.0f, 0, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
  /* The output multiplier 1/128 * 1.0 / 1e-4 > 1: TFLM refuses an exponent > 0. */
  assert_int_equal(utvm_hard_swish_params_s8(1.0f, 0, 1e-4f, 0, &p),
                   UTVM_ERR_KERNEL_UNSUPPORTED);
  assert_int_equal(utvm_hard_swish_params_s8(0.05f, 0, 0.05f, 0, &p), UTVM_OK);
  assert_int_equal(utvm_hard_swish_table_s8(NULL, table), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_hard_swish_table_s8(&p, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
  utvm_hard_swish_params_t bad = p;
  bad.output_shift = 1;
  assert_int_equal(utvm_hard_swish_table_s8(&bad, table), UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.output_shift = -32;
  assert_int_equal(utvm_hard_swish_table_s8(&bad, table), UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.reluish_shift = 32;
  assert_int_equal(utvm_hard_swish_table_s8(&bad, table), UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.reluish_multiplier = 32768;
  assert_int_equal(utvm_hard_swish_table_s8(&bad, table), UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.output_multiplier = -1;
  assert_int_equal(utvm_hard_swish_table_s8(&bad, table), UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.input_zero_point = -129;
  assert_int_equal(utvm_hard_swish_table_s8(&bad, table), UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.output_zero_point = 128;
  assert_int_equal(utvm_hard_swish_table_s8(&bad, table), UTVM_ERR_KERNEL_BAD_PARAM);
}

/* PRELU: alpha broadcast along the last axis, rounding of the alpha product, saturation of
 * int8 and int16, every parameter check. */
static void test_prelu(void **state) {
  (void)state;
  utvm_prelu_params_t p;
  /* Input 0.5, alpha 0.25, output 0.5: x >= 0 passes, x < 0 gives x * alpha / 4. */
  assert_int_equal(utvm_prelu_params(0.5f, 0, 0.25f, 0, 0.5f, 0, &p), UTVM_OK);
  const utvm_shape_t in_shape = shape(2, 2, 2, 0, 0);
  const utvm_shape_t alpha_shape = shape(1, 2, 0, 0, 0);
  const int8_t in[4] = {-8, -8, -3, 127};
  const int8_t alpha[2] = {2, -4};
  int8_t out[4];
  assert_int_equal(utvm_prelu_s8(&p, &in_shape, in, &alpha_shape, alpha, &in_shape, out),
                   UTVM_OK);
  const int8_t expected[4] = {-4, 8, -2, 127}; /* -1.5 rounds away from zero */
  assert_memory_equal(out, expected, sizeof(expected));
  /* Zero points: input -4 (x = -4 is real 0), alpha 10 (alpha 10 is 0), output 3. */
  assert_int_equal(utvm_prelu_params(0.5f, -4, 0.25f, 10, 0.5f, 3, &p), UTVM_OK);
  const int8_t in2[4] = {-4, -12, 0, -128};
  const int8_t alpha2[2] = {10, 14};
  assert_int_equal(utvm_prelu_s8(&p, &in_shape, in2, &alpha_shape, alpha2, &in_shape, out),
                   UTVM_OK);
  /* 0 + 3; -8 * 4 / 4 + 3; 4 + 3; -124 * 4 / 4 + 3 */
  const int8_t expected2[4] = {3, -5, 7, -121};
  assert_memory_equal(out, expected2, sizeof(expected2));
  /* int16 with scales 1: -32768 * -128 saturates to 32767, 32767 stays. */
  assert_int_equal(utvm_prelu_params(1.0f, 0, 1.0f, 0, 1.0f, 0, &p), UTVM_OK);
  const int16_t in16[4] = {-32768, -32768, 32767, -1};
  const int8_t alpha16[2] = {-128, 127};
  int16_t out16[4];
  assert_int_equal(
      utvm_prelu_s16(&p, &in_shape, in16, &alpha_shape, alpha16, &in_shape, out16), UTVM_OK);
  const int16_t expected16[4] = {32767, -32768, 32767, -127};
  assert_memory_equal(out16, expected16, sizeof(expected16));
  /* Parameter checks. */
  assert_int_equal(utvm_prelu_params(0.0f, 0, 1.0f, 0, 1.0f, 0, &p), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_prelu_params(1.0f, 0, -1.0f, 0, 1.0f, 0, &p), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_prelu_params(1.0f, 0, 1.0f, 0, 1.0f, 0, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_prelu_params(1e30f, 0, 1e30f, 0, 1e-30f, 0, &p),
                   UTVM_ERR_KERNEL_UNSUPPORTED);
  assert_int_equal(utvm_prelu_params(0.5f, 0, 0.25f, 0, 0.5f, 0, &p), UTVM_OK);
  utvm_prelu_params_t bad = p;
  bad.input_offset = 129;
  assert_int_equal(utvm_prelu_s8(&bad, &in_shape, in, &alpha_shape, alpha, &in_shape, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_prelu_s16(&bad, &in_shape, in16, &alpha_shape, alpha16, &in_shape,
                                  out16),
                   UTVM_OK);
  bad = p;
  bad.alpha_offset = 129;
  assert_int_equal(utvm_prelu_s8(&bad, &in_shape, in, &alpha_shape, alpha, &in_shape, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.output_offset = 128;
  assert_int_equal(utvm_prelu_s8(&bad, &in_shape, in, &alpha_shape, alpha, &in_shape, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.multiplier_2 = -1;
  assert_int_equal(utvm_prelu_s8(&bad, &in_shape, in, &alpha_shape, alpha, &in_shape, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.shift_1 = 32;
  assert_int_equal(utvm_prelu_s8(&bad, &in_shape, in, &alpha_shape, alpha, &in_shape, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.shift_2 = -32;
  assert_int_equal(utvm_prelu_s8(&bad, &in_shape, in, &alpha_shape, alpha, &in_shape, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_prelu_s8(&p, &in_shape, NULL, &alpha_shape, alpha, &in_shape, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  const utvm_shape_t wide = shape(1, 3, 0, 0, 0);
  assert_int_equal(utvm_prelu_s8(&p, &in_shape, in, &wide, alpha, &in_shape, out),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_int_equal(utvm_prelu_s8(&p, &in_shape, in, NULL, alpha, &in_shape, out),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
}

/* RSQRT: the zero point maps to 127, 1/sqrt within one step of the real value, inputs below
 * the zero point refused, every parameter check. */
static void test_rsqrt(void **state) {
  (void)state;
  utvm_rsqrt_params_t p;
  int8_t table[256];
  /* Input scale 0.02, zero point -128; output scale 0.04, zero point -128. */
  assert_int_equal(utvm_rsqrt_params_s8(0.02f, -128, 0.04f, -128, &p), UTVM_OK);
  assert_int_equal(utvm_rsqrt_table_s8(&p, table), UTVM_OK);
  assert_int_equal(table[0], 127); /* x = 0: TFLM's largest output */
  for (int32_t q = -127; q <= 127; ++q) {
    const double real = 1.0 / sqrt(0.02 * (double)(q + 128));
    double expected = floor(real / 0.04 + 0.5) - 128.0;
    expected = expected > 127.0 ? 127.0 : expected;
    const int32_t got = table[q + 128];
    assert_true(fabs((double)got - expected) <= 1.0);
  }
  /* 1/sqrt(1) with scales 1 and 1/64: 64 steps above the zero point -100. */
  assert_int_equal(utvm_rsqrt_params_s8(1.0f, 0, 1.0f / 64.0f, -100, &p), UTVM_OK);
  assert_int_equal(utvm_rsqrt_table_s8(&p, table), UTVM_OK);
  assert_int_equal(table[1 + 128], -36);
  assert_int_equal(table[4 + 128], -68); /* 1/2 */
  assert_int_equal(table[0 + 128], 127);
  int8_t in[3] = {0, 1, 4};
  int8_t out[3];
  assert_int_equal(utvm_rsqrt_s8(table, 0, 3, in, out), UTVM_OK);
  const int8_t expected[3] = {127, -36, -68};
  assert_memory_equal(out, expected, sizeof(expected));
  in[2] = -1; /* below the zero point: TFLM fails */
  assert_int_equal(utvm_rsqrt_s8(table, 0, 3, in, out), UTVM_ERR_KERNEL_UNSUPPORTED);
  /* Parameter checks. */
  assert_int_equal(utvm_rsqrt_s8(NULL, 0, 3, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_rsqrt_s8(table, 128, 3, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_rsqrt_s8(table, 0, -1, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_int_equal(utvm_rsqrt_params_s8(0.0f, 0, 1.0f, 0, &p), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_rsqrt_params_s8(1.0f, 0, 0.0f, 0, &p), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_rsqrt_params_s8(1.0f, -129, 1.0f, 0, &p), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_rsqrt_params_s8(1.0f, 0, 1.0f, 128, &p), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_rsqrt_params_s8(1.0f, 0, 1.0f, 0, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
  /* 1/(sqrt(1) * 1e-5): shift 17 - 20 is fine; 1/(1 * 1e4) gives shift -13 - 20 < -31. */
  assert_int_equal(utvm_rsqrt_params_s8(1.0f, 0, 1e-5f, 0, &p), UTVM_OK);
  assert_int_equal(utvm_rsqrt_params_s8(1.0f, 0, 1e4f, 0, &p), UTVM_ERR_KERNEL_UNSUPPORTED);
  assert_int_equal(utvm_rsqrt_params_s8(1.0f, 0, 1.0f, 0, &p), UTVM_OK);
  utvm_rsqrt_params_t bad = p;
  bad.shift = -12;
  assert_int_equal(utvm_rsqrt_table_s8(&bad, table), UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.shift = 52;
  assert_int_equal(utvm_rsqrt_table_s8(&bad, table), UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.multiplier = -1;
  assert_int_equal(utvm_rsqrt_table_s8(&bad, table), UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.input_zero_point = 128;
  assert_int_equal(utvm_rsqrt_table_s8(&bad, table), UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.output_zero_point = -129;
  assert_int_equal(utvm_rsqrt_table_s8(&bad, table), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_rsqrt_table_s8(&p, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
}

/* DIV: signs, rounding away from zero, saturation, TFLite's 0 / x = 1 step where its total
 * shift passes 31, broadcasting, a zero divisor refused, every parameter check. */
static void test_div(void **state) {
  (void)state;
  utvm_div_params_t p;
  assert_int_equal(utvm_div_params_s8(1.0f, 0, 1.0f, 0, 1.0f, 0, 0, &p), UTVM_OK);
  const utvm_shape_t eight = shape(1, 8, 0, 0, 0);
  const int8_t a[8] = {6, -6, 6, 100, 127, -128, 0, 7};
  const int8_t b[8] = {3, 3, -3, 1, -1, -1, 5, 2};
  int8_t out[8];
  assert_int_equal(utvm_div_s8(&p, &eight, a, &eight, b, &eight, out), UTVM_OK);
  /* 0 / 5: the quotient 0 shifted right by 32, where gemmlowp's mask is all ones: 1. */
  const int8_t expected[8] = {2, -2, -2, 100, -127, 127, 1, 4};
  assert_memory_equal(out, expected, sizeof(expected));
  /* Scales 0.5 / (0.25 * 0.1) = 20, the divisor [4] broadcast along [2,2]; zero points. */
  assert_int_equal(utvm_div_params_s8(0.5f, 1, 0.25f, -2, 0.1f, 3, 0, &p), UTVM_OK);
  const utvm_shape_t grid = shape(2, 2, 2, 0, 0);
  const utvm_shape_t row = shape(1, 2, 0, 0, 0);
  const int8_t a2[4] = {2, 3, -2, 1};
  const int8_t b2[2] = {1, 118};
  assert_int_equal(utvm_div_s8(&p, &grid, a2, &row, b2, &grid, out), UTVM_OK);
  const int8_t expected2[4] = {10, 3, -17, 4}; /* 20/3 + 3; 40/120 + 3; -60/3 + 3; 0 -> 1 + 3 */
  assert_memory_equal(out, expected2, sizeof(expected2));
  /* RELU6 range on the output. */
  assert_int_equal(utvm_div_params_s8(1.0f, 0, 1.0f, 0, 1.0f, 0, 3, &p), UTVM_OK);
  assert_int_equal(utvm_div_s8(&p, &eight, a, &eight, b, &eight, out), UTVM_OK);
  assert_int_equal(out[0], 2);
  assert_int_equal(out[1], 0);
  assert_int_equal(out[3], 6);
  /* A divisor at its zero point: TFLite's arithmetic is undefined, utvm refuses. */
  const int8_t zero[8] = {1, 1, 1, 1, 1, 1, 0, 1};
  assert_int_equal(utvm_div_s8(&p, &eight, a, &eight, zero, &eight, out),
                   UTVM_ERR_KERNEL_UNSUPPORTED);
  /* Parameter checks. */
  assert_int_equal(utvm_div_params_s8(0.0f, 0, 1.0f, 0, 1.0f, 0, 0, &p),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_div_params_s8(1.0f, 0, 1.0f, 128, 1.0f, 0, 0, &p),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_div_params_s8(1.0f, 0, 1.0f, 0, 1.0f, 0, 0, NULL),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_div_params_s8(1e6f, 0, 1.0f, 0, 1e-3f, 0, 0, &p),
                   UTVM_ERR_KERNEL_UNSUPPORTED);
  assert_int_equal(utvm_div_params_s8(1.0f, 0, 1.0f, 0, 1.0f, 0, 5, &p),
                   UTVM_ERR_KERNEL_UNSUPPORTED);
  assert_int_equal(utvm_div_params_s8(1.0f, 0, 1.0f, 0, 1.0f, 0, 0, &p), UTVM_OK);
  utvm_div_params_t bad = p;
  bad.shift = 23;
  assert_int_equal(utvm_div_s8(&bad, &eight, a, &eight, b, &eight, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.input2_offset = 129;
  assert_int_equal(utvm_div_s8(&bad, &eight, a, &eight, b, &eight, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.act_min = 1;
  bad.act_max = 0;
  assert_int_equal(utvm_div_s8(&bad, &eight, a, &eight, b, &eight, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.multiplier = -1;
  assert_int_equal(utvm_div_s8(&bad, &eight, a, &eight, b, &eight, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_div_s8(&p, &eight, a, &row, b, &eight, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_int_equal(utvm_div_s8(&p, &eight, NULL, &eight, b, &eight, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
}

/* LOG_SOFTMAX: a single element is log 1 = 0 (127), two equal ones -log 2, random rows
 * within one step of the real value (16/256 steps below 127, clamped), parameter checks. */
static void test_log_softmax(void **state) {
  (void)state;
  utvm_log_softmax_params_t p;
  assert_int_equal(utvm_log_softmax_params_s8(0.1f, &p), UTVM_OK);
  int8_t in[40];
  int8_t out[40];
  in[0] = -7;
  assert_int_equal(utvm_log_softmax_s8(&p, 1, 1, in, out), UTVM_OK);
  assert_int_equal(out[0], 127);
  in[0] = 5;
  in[1] = 5;
  assert_int_equal(utvm_log_softmax_s8(&p, 1, 2, in, out), UTVM_OK);
  assert_int_equal(out[0], 116); /* -0.693 / 0.0625 = -11.09 */
  assert_int_equal(out[1], 116);
  static const float scales[3] = {0.1f, 0.02f, 0.5f};
  uint32_t seed = 12345u;
  for (int s = 0; s < 3; ++s) {
    assert_int_equal(utvm_log_softmax_params_s8(scales[s], &p), UTVM_OK);
    for (int i = 0; i < 40; ++i) {
      seed = seed * 1103515245u + 12345u;
      in[i] = (int8_t)(int32_t)((seed >> 16) & 0xFFu);
    }
    assert_int_equal(utvm_log_softmax_s8(&p, 4, 10, in, out), UTVM_OK);
    for (int row = 0; row < 4; ++row) {
      double max = -1e9;
      for (int i = 0; i < 10; ++i) {
        max = fmax(max, (double)in[row * 10 + i]);
      }
      double sum = 0.0;
      for (int i = 0; i < 10; ++i) {
        sum += exp(((double)in[row * 10 + i] - max) * (double)scales[s]);
      }
      for (int i = 0; i < 10; ++i) {
        const double real = ((double)in[row * 10 + i] - max) * (double)scales[s] - log(sum);
        const double q = fmax(-128.0, fmin(127.0, floor(real / 0.0625 + 0.5) + 127.0));
        assert_true(fabs((double)out[row * 10 + i] - q) <= 1.0);
      }
    }
  }
  /* Parameter checks. */
  assert_int_equal(utvm_log_softmax_params_s8(0.0f, &p), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_log_softmax_params_s8(0.1f, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_log_softmax_params_s8(1e-12f, &p), UTVM_ERR_KERNEL_UNSUPPORTED);
  assert_int_equal(utvm_log_softmax_params_s8(0.1f, &p), UTVM_OK);
  assert_int_equal(utvm_log_softmax_s8(&p, 1, 0, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_int_equal(utvm_log_softmax_s8(&p, -1, 1, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_int_equal(utvm_log_softmax_s8(&p, 2, INT32_MAX, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_int_equal(utvm_log_softmax_s8(&p, 1, 1, NULL, out), UTVM_ERR_KERNEL_BAD_PARAM);
  utvm_log_softmax_params_t bad = p;
  bad.input_left_shift = 32;
  assert_int_equal(utvm_log_softmax_s8(&bad, 1, 1, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.reverse_scaling_shift = 1;
  assert_int_equal(utvm_log_softmax_s8(&bad, 1, 1, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.diff_min = 1;
  assert_int_equal(utvm_log_softmax_s8(&bad, 1, 1, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  bad = p;
  bad.input_multiplier = -1;
  assert_int_equal(utvm_log_softmax_s8(&bad, 1, 1, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
}

/* L2_NORMALIZATION: [3, 4] -> 3/5 and 4/5 in 1/128 steps, a zero row stays 0, [1, -1], +-1
 * alone saturates to 127 and -128, random rows within one step, parameter checks. */
static void test_l2_normalization(void **state) {
  (void)state;
  const int8_t in[6] = {8, 9, 5, 5, 6, 4};
  int8_t out[6];
  assert_int_equal(utvm_l2_normalization_s8(5, 3, 2, in, out), UTVM_OK);
  const int8_t expected[6] = {77, 102, 0, 0, 91, -91}; /* +-1/sqrt(2) */
  assert_memory_equal(out, expected, sizeof(expected));
  assert_int_equal(utvm_l2_normalization_s8(5, 2, 1, &in[4], out), UTVM_OK);
  assert_int_equal(out[0], 127); /* 128/128 saturates */
  assert_int_equal(out[1], -128);
  int8_t rnd[64];
  int8_t rnd_out[64];
  uint32_t seed = 777u;
  for (int i = 0; i < 64; ++i) {
    seed = seed * 1103515245u + 12345u;
    rnd[i] = (int8_t)(int32_t)((seed >> 16) & 0xFFu);
  }
  assert_int_equal(utvm_l2_normalization_s8(-3, 4, 16, rnd, rnd_out), UTVM_OK);
  for (int row = 0; row < 4; ++row) {
    double norm = 0.0;
    for (int i = 0; i < 16; ++i) {
      const double v = (double)rnd[row * 16 + i] + 3.0;
      norm += v * v;
    }
    norm = sqrt(norm);
    for (int i = 0; i < 16; ++i) {
      double q = floor(((double)rnd[row * 16 + i] + 3.0) / norm * 128.0 + 0.5);
      q = fmax(-128.0, fmin(127.0, q));
      assert_true(fabs((double)rnd_out[row * 16 + i] - q) <= 1.0);
    }
  }
  /* Parameter checks. */
  assert_int_equal(utvm_l2_normalization_s8(128, 1, 2, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_l2_normalization_s8(0, 1, 2, NULL, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_l2_normalization_s8(0, 1, 0, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_int_equal(utvm_l2_normalization_s8(0, -1, 2, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_int_equal(utvm_l2_normalization_s8(0, 1, UTVM_L2_NORMALIZATION_MAX_DEPTH + 1, in, out),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
}

/* ELU: TFLM's float table (x < 0: exp(x) - 1, rounded half away from zero), the zero point
 * maps to the output's, saturation, an entry beyond int32 refused, parameter checks. */
static void test_elu(void **state) {
  (void)state;
  int8_t table[256];
  assert_int_equal(utvm_elu_table_s8(0.1f, 0, 0.1f, 0, table), UTVM_OK);
  assert_int_equal(table[-128 + 128], -10); /* exp(-12.8) - 1 = -0.99999 */
  assert_int_equal(table[-10 + 128], -6);   /* exp(-1) - 1 = -0.632 */
  assert_int_equal(table[-1 + 128], -1);    /* exp(-0.1) - 1 = -0.0952 */
  assert_int_equal(table[0 + 128], 0);
  assert_int_equal(table[5 + 128], 5);
  assert_int_equal(table[127 + 128], 127);
  /* Output zero point 100 and half the scale: positives saturate, -1.0 stays in range. */
  assert_int_equal(utvm_elu_table_s8(0.1f, -3, 0.05f, 100, table), UTVM_OK);
  assert_int_equal(table[-3 + 128], 100);
  assert_int_equal(table[127 + 128], 127);
  assert_int_equal(table[-128 + 128], 80); /* -1 / 0.05 + 100 */
  for (int32_t i = 0; i < 256; ++i) {
    const float x = 0.1f * (float)(i - 128 + 3);
    const float t = (x < 0.0f) ? (expf(x) - 1.0f) : x;
    int32_t q = (int32_t)(roundf(t * (1.0f / 0.05f)) + 100.0f);
    q = q > 127 ? 127 : (q < -128 ? -128 : q);
    assert_int_equal(table[i], q);
  }
  /* Parameter checks. */
  assert_int_equal(utvm_elu_table_s8(1e30f, 0, 1e-10f, 0, table), UTVM_ERR_KERNEL_UNSUPPORTED);
  assert_int_equal(utvm_elu_table_s8(0.0f, 0, 1.0f, 0, table), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_elu_table_s8(1.0f, 0, -1.0f, 0, table), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_elu_table_s8(1.0f, 128, 1.0f, 0, table), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_elu_table_s8(1.0f, 0, 1.0f, -129, table), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_elu_table_s8(1.0f, 0, 1.0f, 0, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv2d_1x1_bias_offsets_clamp),
      cmocka_unit_test(test_conv2d_same_padding_stride2),
      cmocka_unit_test(test_conv2d_dilation_per_channel_batch2),
      cmocka_unit_test(test_conv2d_zero_point_extremes),
      cmocka_unit_test(test_conv2d_checks),
      cmocka_unit_test(test_depthwise_multiplier2),
      cmocka_unit_test(test_depthwise_padding_every_side),
      cmocka_unit_test(test_fully_connected),
      cmocka_unit_test(test_avg_pool_rounding_and_padding),
      cmocka_unit_test(test_max_pool),
      cmocka_unit_test(test_pool_s16),
      cmocka_unit_test(test_resize_bilinear),
      cmocka_unit_test(test_add),
      cmocka_unit_test(test_mul),
      cmocka_unit_test(test_softmax),
      cmocka_unit_test(test_logistic_tanh),
      cmocka_unit_test(test_reshape),
      cmocka_unit_test(test_pad_batch_and_every_side),
      cmocka_unit_test(test_concatenation),
      cmocka_unit_test(test_split),
      cmocka_unit_test(test_s16_weighted),
      cmocka_unit_test(test_svdf),
      cmocka_unit_test(test_lstm),
      cmocka_unit_test(test_lstm_time_major),
      cmocka_unit_test(test_reduce_extremes_and_arg),
      cmocka_unit_test(test_mean),
      cmocka_unit_test(test_quantize_dequantize),
      cmocka_unit_test(test_quantize_s16),
      cmocka_unit_test(test_softmax_s16),
      cmocka_unit_test(test_sigmoid_s16),
      cmocka_unit_test(test_squared_difference),
      cmocka_unit_test(test_prepare_helpers),
      cmocka_unit_test(test_elementwise),
      cmocka_unit_test(test_hard_swish),
      cmocka_unit_test(test_prelu),
      cmocka_unit_test(test_rsqrt),
      cmocka_unit_test(test_div),
      cmocka_unit_test(test_log_softmax),
      cmocka_unit_test(test_l2_normalization),
      cmocka_unit_test(test_elu),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

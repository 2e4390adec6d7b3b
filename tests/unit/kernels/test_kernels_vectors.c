/*
 * The int8 kernels and their prepare helpers against kernel_vectors.h: random cases whose
 * expected parameters and outputs come from tflite_ref.py (TFLite's integer arithmetic in
 * Python). For each case: prepare the parameters from the float scales with the C helpers,
 * compare them with the reference's, run the kernel, compare the output byte for byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernel_vectors.h"
#include "utvm/kernels.h"

/* Largest output of any vector (the generator keeps shapes small). */
#define MAX_OUTPUT 8192

static int8_t output_buffer[MAX_OUTPUT];
static float float_output_buffer[MAX_OUTPUT];

/* Fails with the case and the first differing element if actual != expected. */
static void expect_bytes(const char *what, size_t index, const int8_t *expected,
                         const int8_t *actual, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (expected[i] != actual[i]) {
      fail_msg("%s case %zu: element %zu is %d, expected %d", what, index, i, actual[i],
               expected[i]);
    }
  }
}

static void expect_ints(const char *what, size_t index, const int32_t *expected,
                        const int32_t *actual, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (expected[i] != actual[i]) {
      fail_msg("%s case %zu: parameter %zu is %d, expected %d", what, index, i, actual[i],
               expected[i]);
    }
  }
}

static size_t dims_count(const utvm_dims_t *d) {
  return (size_t)d->n * (size_t)d->h * (size_t)d->w * (size_t)d->c;
}

static void prepare_window(const char *what, size_t index, const conv_vector_t *v) {
  utvm_padding_values_t padding;
  assert_int_equal(utvm_compute_padding((utvm_padding_t)v->padding, v->stride_h, v->stride_w,
                                        v->dilation_h, v->dilation_w, v->input_dims.h,
                                        v->input_dims.w, v->filter_dims.h, v->filter_dims.w,
                                        &padding),
                   UTVM_OK);
  const int32_t expected[4] = {v->output_dims.h, v->output_dims.w, v->pad_top, v->pad_left};
  const int32_t actual[4] = {padding.out_h, padding.out_w, padding.pad_top, padding.pad_left};
  expect_ints(what, index, expected, actual, 4);
}

/* The kernels take int8_t shifts: narrows the prepare helpers' int32_t ones (checked in range). */
static void narrow_shifts(const int32_t *shifts, int8_t *narrow, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    assert_true(shifts[i] >= -31 && shifts[i] <= 31);
    narrow[i] = (int8_t)shifts[i];
  }
}

static void prepare_conv_quant(const char *what, size_t index, const conv_vector_t *v,
                               int32_t *multipliers, int32_t *shifts, int32_t *act_min,
                               int32_t *act_max) {
  assert_int_equal(utvm_conv_quant_params(v->input_scale, v->filter_scales, v->scale_count,
                                          v->output_scale, multipliers, shifts),
                   UTVM_OK);
  expect_ints(what, index, v->multipliers, multipliers, (size_t)v->scale_count);
  expect_ints(what, index, v->shifts, shifts, (size_t)v->scale_count);
  assert_int_equal(utvm_activation_range_s8(v->activation, v->output_scale, v->output_zero_point,
                                            act_min, act_max),
                   UTVM_OK);
  assert_int_equal(*act_min, v->act_min);
  assert_int_equal(*act_max, v->act_max);
}

static void test_conv2d_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(conv_vectors); ++i) {
    const conv_vector_t *v = &conv_vectors[i];
    int32_t multipliers[64];
    int32_t shifts[64];
    utvm_conv2d_params_t params;
    prepare_window("conv2d", i, v);
    prepare_conv_quant("conv2d", i, v, multipliers, shifts, &params.act_min, &params.act_max);
    params.stride_h = v->stride_h;
    params.stride_w = v->stride_w;
    params.dilation_h = v->dilation_h;
    params.dilation_w = v->dilation_w;
    params.pad_top = v->pad_top;
    params.pad_left = v->pad_left;
    params.input_offset = -v->input_zero_point;
    params.output_offset = v->output_zero_point;
    params.filter_layout = (int32_t)UTVM_FILTER_PLAIN;
    int8_t narrow[64];
    narrow_shifts(shifts, narrow, v->scale_count);
    const utvm_per_channel_quant_t quant = {multipliers, narrow, v->scale_count, NULL};
    const size_t count = dims_count(&v->output_dims);
    assert_true(count <= MAX_OUTPUT);
    assert_int_equal(utvm_conv2d_s8_scratch_size(&v->input_dims, &v->filter_dims, &v->output_dims),
                     0);
    assert_int_equal(utvm_conv2d_s8(&params, &quant, &v->input_dims, v->input, &v->filter_dims,
                                    v->filter, v->bias, &v->output_dims, output_buffer, NULL),
                     UTVM_OK);
    expect_bytes("conv2d", i, v->expected, output_buffer, count);
  }
}

static void test_depthwise_conv2d_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(depthwise_vectors); ++i) {
    const conv_vector_t *v = &depthwise_vectors[i];
    int32_t multipliers[64];
    int32_t shifts[64];
    utvm_depthwise_conv2d_params_t params;
    prepare_window("depthwise", i, v);
    prepare_conv_quant("depthwise", i, v, multipliers, shifts, &params.act_min, &params.act_max);
    params.stride_h = v->stride_h;
    params.stride_w = v->stride_w;
    params.dilation_h = v->dilation_h;
    params.dilation_w = v->dilation_w;
    params.pad_top = v->pad_top;
    params.pad_left = v->pad_left;
    params.depth_multiplier = v->depth_multiplier;
    params.input_offset = -v->input_zero_point;
    params.output_offset = v->output_zero_point;
    int8_t narrow[64];
    narrow_shifts(shifts, narrow, v->scale_count);
    const utvm_per_channel_quant_t quant = {multipliers, narrow, v->scale_count, NULL};
    const size_t count = dims_count(&v->output_dims);
    assert_true(count <= MAX_OUTPUT);
    assert_int_equal(
        utvm_depthwise_conv2d_s8_scratch_size(&v->input_dims, &v->filter_dims, &v->output_dims), 0);
    assert_int_equal(utvm_depthwise_conv2d_s8(&params, &quant, &v->input_dims, v->input,
                                              &v->filter_dims, v->filter, v->bias, &v->output_dims,
                                              output_buffer, NULL),
                     UTVM_OK);
    expect_bytes("depthwise", i, v->expected, output_buffer, count);
  }
}

static void test_fully_connected_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(fc_vectors); ++i) {
    const fc_vector_t *v = &fc_vectors[i];
    int32_t multipliers[64];
    int32_t shifts[64];
    utvm_fully_connected_params_t params;
    assert_int_equal(utvm_fully_connected_quant_params(v->input_scale, v->filter_scales,
                                                       v->scale_count, v->output_scale,
                                                       multipliers, shifts),
                     UTVM_OK);
    expect_ints("fc", i, v->multipliers, multipliers, (size_t)v->scale_count);
    expect_ints("fc", i, v->shifts, shifts, (size_t)v->scale_count);
    assert_int_equal(utvm_activation_range_s8(v->activation, v->output_scale,
                                              v->output_zero_point, &params.act_min,
                                              &params.act_max),
                     UTVM_OK);
    assert_int_equal(params.act_min, v->act_min);
    assert_int_equal(params.act_max, v->act_max);
    params.input_offset = -v->input_zero_point;
    params.filter_offset = -v->filter_zero_point;
    params.output_offset = v->output_zero_point;
    params.weights_layout = (int32_t)UTVM_FILTER_PLAIN;
    int8_t narrow[64];
    narrow_shifts(shifts, narrow, v->scale_count);
    const utvm_per_channel_quant_t quant = {multipliers, narrow, v->scale_count, NULL};
    assert_int_equal(utvm_fully_connected_s8_scratch_size(v->batches, v->input_depth,
                                                          v->output_depth),
                     0);
    assert_int_equal(utvm_fully_connected_s8(&params, &quant, v->batches, v->input_depth,
                                             v->output_depth, v->input, v->filter, v->bias,
                                             output_buffer, NULL),
                     UTVM_OK);
    expect_bytes("fc", i, v->expected, output_buffer, (size_t)(v->batches * v->output_depth));
  }
}

static void test_pool2d_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(pool_vectors); ++i) {
    const pool_vector_t *v = &pool_vectors[i];
    utvm_pool2d_params_t params;
    int32_t out_h;
    int32_t out_w;
    assert_int_equal(utvm_pool2d_params_s8((utvm_padding_t)v->padding, v->stride_h, v->stride_w,
                                           v->filter_h, v->filter_w, v->input_dims.h,
                                           v->input_dims.w, v->activation, v->scale,
                                           v->zero_point, &params, &out_h, &out_w),
                     UTVM_OK);
    const int32_t expected[6] = {v->output_dims.h, v->output_dims.w, v->pad_top,
                                 v->pad_left,      v->act_min,       v->act_max};
    const int32_t actual[6] = {out_h,          out_w,          params.pad_top,
                               params.pad_left, params.act_min, params.act_max};
    expect_ints("pool", i, expected, actual, 6);
    const utvm_err_t err =
        v->average != 0
            ? utvm_avg_pool2d_s8(&params, &v->input_dims, v->input, &v->output_dims, output_buffer)
            : utvm_max_pool2d_s8(&params, &v->input_dims, v->input, &v->output_dims, output_buffer);
    assert_int_equal(err, UTVM_OK);
    expect_bytes(v->average != 0 ? "avg_pool" : "max_pool", i, v->expected, output_buffer,
                 dims_count(&v->output_dims));
  }
}

static void test_pool2d_s16_vectors(void **state) {
  (void)state;
  static int16_t out16[MAX_OUTPUT];
  for (size_t i = 0; i < VECTOR_COUNT(pool_s16_vectors); ++i) {
    const pool_s16_vector_t *v = &pool_s16_vectors[i];
    const size_t count = dims_count(&v->output_dims);
    assert_true(count <= MAX_OUTPUT);
    const utvm_err_t err =
        v->average != 0
            ? utvm_avg_pool2d_s16(&v->params, &v->input_dims, v->input, &v->output_dims, out16)
            : utvm_max_pool2d_s16(&v->params, &v->input_dims, v->input, &v->output_dims, out16);
    assert_int_equal(err, UTVM_OK);
    if (memcmp(out16, v->expected, count * sizeof(int16_t)) != 0) {
      fail_msg("%s_s16 vector %zu differs from tflite_ref.py", v->average != 0 ? "avg" : "max",
               i);
    }
  }
}

static size_t shape_count(const utvm_shape_t *shape) {
  size_t count = 1;
  for (int32_t d = 0; d < shape->rank; ++d) {
    count *= (size_t)shape->dims[d];
  }
  return count;
}

static void test_add_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(add_vectors); ++i) {
    const binary_vector_t *v = &add_vectors[i];
    utvm_add_params_t params;
    assert_int_equal(utvm_add_params_s8(v->scale1, v->zero_point1, v->scale2, v->zero_point2,
                                        v->output_scale, v->output_zero_point, v->activation,
                                        &params),
                     UTVM_OK);
    const int32_t actual[12] = {
        params.input1_offset,     params.input2_offset, params.output_offset,
        params.left_shift,        params.input1_multiplier, params.input1_shift,
        params.input2_multiplier, params.input2_shift,      params.output_multiplier,
        params.output_shift,      params.act_min,           params.act_max};
    expect_ints("add", i, v->params, actual, 12);
    assert_int_equal(utvm_add_s8(&params, &v->shape1, v->input1, &v->shape2, v->input2,
                                 &v->output_shape, output_buffer),
                     UTVM_OK);
    expect_bytes("add", i, v->expected, output_buffer, shape_count(&v->output_shape));
  }
}

static void test_mul_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(mul_vectors); ++i) {
    const binary_vector_t *v = &mul_vectors[i];
    utvm_mul_params_t params;
    assert_int_equal(utvm_mul_params_s8(v->scale1, v->zero_point1, v->scale2, v->zero_point2,
                                        v->output_scale, v->output_zero_point, v->activation,
                                        &params),
                     UTVM_OK);
    const int32_t actual[7] = {params.input1_offset,     params.input2_offset,
                               params.output_offset,     params.output_multiplier,
                               params.output_shift,      params.act_min,
                               params.act_max};
    expect_ints("mul", i, v->params, actual, 7);
    assert_int_equal(utvm_mul_s8(&params, &v->shape1, v->input1, &v->shape2, v->input2,
                                 &v->output_shape, output_buffer),
                     UTVM_OK);
    expect_bytes("mul", i, v->expected, output_buffer, shape_count(&v->output_shape));
  }
}

static void test_softmax_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(softmax_vectors); ++i) {
    const softmax_vector_t *v = &softmax_vectors[i];
    utvm_softmax_params_t params;
    assert_int_equal(utvm_softmax_params_s8(v->beta, v->input_scale, &params), UTVM_OK);
    const int32_t actual[3] = {params.input_multiplier, params.input_left_shift, params.diff_min};
    expect_ints("softmax", i, v->params, actual, 3);
    assert_int_equal(utvm_softmax_s8(&params, v->rows, v->depth, v->input, output_buffer),
                     UTVM_OK);
    expect_bytes("softmax", i, v->expected, output_buffer, (size_t)(v->rows * v->depth));
  }
}

static void run_q4_vectors(const char *what, const q4_vector_t *vectors, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const q4_vector_t *v = &vectors[i];
    utvm_logistic_params_t params;
    const utvm_err_t err = v->is_tanh != 0
                               ? utvm_tanh_params_s8(v->input_scale, v->input_zero_point, &params)
                               : utvm_logistic_params_s8(v->input_scale, v->input_zero_point,
                                                         INT8_MIN, &params);
    assert_int_equal(err, UTVM_OK);
    const int32_t actual[4] = {params.input_zero_point, params.input_range_radius,
                               params.input_multiplier, params.input_left_shift};
    expect_ints(what, i, v->params, actual, 4);
    int8_t in_place[256];
    memcpy(in_place, v->input, (size_t)v->size);
    const utvm_err_t run = v->is_tanh != 0
                               ? utvm_tanh_s8(&params, v->size, in_place, in_place)
                               : utvm_logistic_s8(&params, v->size, in_place, in_place);
    assert_int_equal(run, UTVM_OK);
    expect_bytes(what, i, v->expected, in_place, (size_t)v->size);
  }
}

/* The piecewise-linear map's parameters as the operator files prepare them (src/ops/pwl.c). */
static utvm_err_t pwl_prepare(const pwl_vector_t *v, utvm_pwl_params_t *params) {
  const bool int16 = v->bits == 16;
  const int32_t qmin = int16 ? INT16_MIN : INT8_MIN;
  const int32_t qmax = int16 ? INT16_MAX : INT8_MAX;
  const double ratio = (double)(v->input_scale / v->output_scale);
  int32_t act_min = qmin;
  int32_t act_max = qmax;
  utvm_err_t err = UTVM_OK;
  switch (v->op) {
    case 0:
    case 1:
      err = int16 ? utvm_activation_range_s16(v->op == 0 ? UTVM_ACT_RELU : UTVM_ACT_RELU_N1_TO_1,
                                              v->output_scale, v->output_zero_point, &act_min,
                                              &act_max)
                  : utvm_activation_range_s8(v->op == 0 ? UTVM_ACT_RELU : UTVM_ACT_RELU_N1_TO_1,
                                             v->output_scale, v->output_zero_point, &act_min,
                                             &act_max);
      return err != UTVM_OK ? err
                            : utvm_pwl_params(ratio, ratio, UTVM_PWL_SCALE, v->input_zero_point,
                                              v->output_zero_point, act_min, act_max, params);
    case 2:
      err = int16 ? utvm_activation_range_s16(UTVM_ACT_RELU6, v->input_scale,
                                              v->input_zero_point, &act_min, &act_max)
                  : utvm_activation_range_s8(UTVM_ACT_RELU6, v->input_scale,
                                             v->input_zero_point, &act_min, &act_max);
      return err != UTVM_OK ? err
                            : utvm_pwl_params(1.0, 1.0, UTVM_PWL_SCALE, v->input_zero_point,
                                              v->output_zero_point, act_min, act_max, params);
    case 3:
      return utvm_pwl_params(ratio, (double)(v->input_scale * v->alpha / v->output_scale),
                             UTVM_PWL_SCALE, v->input_zero_point, v->output_zero_point, qmin,
                             qmax, params);
    default:
      return utvm_pwl_params(v->input_scale != v->output_scale ? ratio : 1.0,
                             v->input_scale != v->output_scale ? ratio : 1.0, UTVM_PWL_ABS,
                             v->input_zero_point, v->output_zero_point, qmin, qmax, params);
  }
}

/* int8: the table of every input equals TFLM's integer arithmetic (restated in tflite_ref.py)
 * and utvm_lut_s8 applies it; int16: utvm_pwl_s16 directly. */
static void test_pwl_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(pwl_s8_vectors); ++i) {
    const pwl_vector_t *v = &pwl_s8_vectors[i];
    utvm_pwl_params_t params;
    int8_t table[256];
    int8_t input[256];
    int8_t output[256];
    int32_t actual[256];
    assert_int_equal(pwl_prepare(v, &params), UTVM_OK);
    assert_int_equal(utvm_pwl_table_s8(&params, table), UTVM_OK);
    for (int32_t k = 0; k < v->size; ++k) {
      input[k] = (int8_t)v->input[k];
    }
    assert_int_equal(utvm_lut_s8(table, v->size, input, output), UTVM_OK);
    for (int32_t k = 0; k < v->size; ++k) {
      actual[k] = output[k];
    }
    expect_ints("pwl_s8", i, v->expected, actual, (size_t)v->size);
  }
  for (size_t i = 0; i < VECTOR_COUNT(pwl_s16_vectors); ++i) {
    const pwl_vector_t *v = &pwl_s16_vectors[i];
    utvm_pwl_params_t params;
    int16_t data[80];
    int32_t actual[80];
    assert_true(v->size <= 80);
    assert_int_equal(pwl_prepare(v, &params), UTVM_OK);
    for (int32_t k = 0; k < v->size; ++k) {
      data[k] = (int16_t)v->input[k];
    }
    assert_int_equal(utvm_pwl_s16(&params, v->size, data, data), UTVM_OK);
    for (int32_t k = 0; k < v->size; ++k) {
      actual[k] = data[k];
    }
    expect_ints("pwl_s16", i, v->expected, actual, (size_t)v->size);
  }
}

static void test_logistic_vectors(void **state) {
  (void)state;
  run_q4_vectors("logistic", logistic_vectors, VECTOR_COUNT(logistic_vectors));
}

static void test_tanh_vectors(void **state) {
  (void)state;
  run_q4_vectors("tanh", tanh_vectors, VECTOR_COUNT(tanh_vectors));
}

static void test_pad_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(pad_vectors); ++i) {
    const pad_vector_t *v = &pad_vectors[i];
    utvm_pad_params_t params;
    memcpy(params.before, v->before, sizeof(params.before));
    memcpy(params.after, v->after, sizeof(params.after));
    params.pad_value = v->pad_value;
    assert_true(v->output_count <= MAX_OUTPUT);
    assert_int_equal(utvm_pad_s8(&params, &v->input_dims, v->input, output_buffer), UTVM_OK);
    expect_bytes("pad", i, v->expected, output_buffer, (size_t)v->output_count);
  }
}

static void test_resize_bilinear_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(resize_bilinear_vectors); ++i) {
    const resize_bilinear_vector_t *v = &resize_bilinear_vectors[i];
    const utvm_resize_params_t params = {1, v->align_corners, v->half_pixel_centers};
    const size_t count = (size_t)v->output_dims.n * (size_t)v->output_dims.h *
                         (size_t)v->output_dims.w * (size_t)v->output_dims.c;
    assert_true(count <= MAX_OUTPUT);
    assert_int_equal(utvm_resize_bilinear_s8(&params, &v->input_dims, v->input, &v->output_dims,
                                             output_buffer),
                     UTVM_OK);
    expect_bytes("resize_bilinear", i, v->expected, output_buffer, count);
  }
}

static void test_concatenation_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(concat_vectors); ++i) {
    const concat_vector_t *v = &concat_vectors[i];
    assert_int_equal(utvm_concatenation_s8(v->num_inputs, v->inputs, v->input_shapes, v->axis,
                                           &v->output_shape, output_buffer),
                     UTVM_OK);
    expect_bytes("concatenation", i, v->expected, output_buffer, shape_count(&v->output_shape));
  }
}

static void test_mean_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(mean_vectors); ++i) {
    const mean_vector_t *v = &mean_vectors[i];
    utvm_mean_params_t params;
    assert_int_equal(utvm_mean_params_s8(v->input_scale, v->input_zero_point, v->output_scale,
                                         v->output_zero_point, &params),
                     UTVM_OK);
    const int32_t actual[4] = {params.input_zero_point, params.output_zero_point,
                               params.multiplier, params.shift};
    expect_ints("mean", i, v->params, actual, 4);
    assert_int_equal(utvm_mean_s8(&params, &v->input_shape, v->input, v->axes, v->num_axes,
                                  output_buffer),
                     UTVM_OK);
    expect_bytes("mean", i, v->expected, output_buffer, (size_t)v->output_count);
  }
}

static void test_quantize_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(quantize_vectors); ++i) {
    const quantize_vector_t *v = &quantize_vectors[i];
    assert_int_equal(utvm_quantize_f32_s8(v->scale, v->zero_point, v->size, v->input,
                                          output_buffer),
                     UTVM_OK);
    expect_bytes("quantize", i, v->expected, output_buffer, (size_t)v->size);
  }
}

static void test_requantize_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(requantize_vectors); ++i) {
    const requantize_vector_t *v = &requantize_vectors[i];
    utvm_requantize_params_t params;
    assert_int_equal(utvm_requantize_params_s8(v->input_scale, v->input_zero_point,
                                               v->output_scale, v->output_zero_point, &params),
                     UTVM_OK);
    const int32_t actual[4] = {params.input_zero_point, params.output_zero_point,
                               params.multiplier, params.shift};
    expect_ints("requantize", i, v->params, actual, 4);
    assert_int_equal(utvm_requantize_s8(&params, v->size, v->input, output_buffer), UTVM_OK);
    expect_bytes("requantize", i, v->expected, output_buffer, (size_t)v->size);
  }
}

static void test_dequantize_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(dequantize_vectors); ++i) {
    const dequantize_vector_t *v = &dequantize_vectors[i];
    assert_int_equal(utvm_dequantize_s8_f32(v->scale, v->zero_point, v->size, v->input,
                                            float_output_buffer),
                     UTVM_OK);
    /* Bit for bit, not approximately. */
    assert_memory_equal(float_output_buffer, v->expected, (size_t)v->size * sizeof(float));
  }
}

static void test_quantize_multiplier_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(multiplier_vectors); ++i) {
    const multiplier_vector_t *v = &multiplier_vectors[i];
    int32_t multiplier;
    int32_t shift;
    assert_int_equal(utvm_quantize_multiplier(v->real, &multiplier, &shift), UTVM_OK);
    const int32_t expected[2] = {v->multiplier, v->shift};
    const int32_t actual[2] = {multiplier, shift};
    expect_ints("quantize_multiplier", i, expected, actual, 2);
  }
}

static void test_compute_padding_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(padding_vectors); ++i) {
    const padding_vector_t *v = &padding_vectors[i];
    utvm_padding_values_t values;
    /* The same dimension twice: height and width must agree. */
    assert_int_equal(utvm_compute_padding((utvm_padding_t)v->padding, v->stride, v->stride,
                                          v->dilation, v->dilation, v->in_size, v->in_size,
                                          v->filter_size, v->filter_size, &values),
                     UTVM_OK);
    const int32_t expected[6] = {v->out_size, v->out_size, v->pad, v->pad, v->offset, v->offset};
    const int32_t actual[6] = {values.out_h,    values.out_w,    values.pad_top,
                               values.pad_left, values.offset_h, values.offset_w};
    expect_ints("compute_padding", i, expected, actual, 6);
  }
}

static void test_activation_range_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(activation_vectors); ++i) {
    const activation_vector_t *v = &activation_vectors[i];
    int32_t act_min;
    int32_t act_max;
    assert_int_equal(
        utvm_activation_range_s8(v->activation, v->scale, v->zero_point, &act_min, &act_max),
        UTVM_OK);
    const int32_t expected[2] = {v->act_min, v->act_max};
    const int32_t actual[2] = {act_min, act_max};
    expect_ints("activation_range", i, expected, actual, 2);
  }
}

/* HARD_SWISH: the parameters and the table of every input byte against tflite_ref.py. */
static void test_hard_swish_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < VECTOR_COUNT(hard_swish_vectors); ++i) {
    const hard_swish_vector_t *v = &hard_swish_vectors[i];
    utvm_hard_swish_params_t params;
    int8_t table[256];
    int8_t input[256];
    int8_t output[256];
    assert_int_equal(utvm_hard_swish_params_s8(v->input_scale, v->input_zero_point,
                                               v->output_scale, v->output_zero_point, &params),
                     UTVM_OK);
    expect_ints("hard_swish params", i, v->params, (const int32_t *)&params, 6u);
    assert_int_equal(utvm_hard_swish_table_s8(&params, table), UTVM_OK);
    for (int32_t k = 0; k < 256; ++k) {
      input[k] = (int8_t)(k - 128);
    }
    assert_int_equal(utvm_lut_s8(table, 256, input, output), UTVM_OK);
    expect_bytes("hard_swish", i, v->expected, output, 256u);
  }
}

/* PRELU (int8 and int16 inputs, int8 alpha broadcast) against tflite_ref.py. */
static void test_prelu_vectors(void **state) {
  (void)state;
  for (int32_t bits = 8; bits <= 16; bits += 8) {
    const prelu_vector_t *vectors = (bits == 8) ? prelu_s8_vectors : prelu_s16_vectors;
    const size_t n = (bits == 8) ? VECTOR_COUNT(prelu_s8_vectors) : VECTOR_COUNT(prelu_s16_vectors);
    for (size_t i = 0; i < n; ++i) {
      const prelu_vector_t *v = &vectors[i];
      utvm_prelu_params_t params;
      static int8_t in8[4096];
      static int16_t in16[4096];
      static int8_t out8[4096];
      static int16_t out16[4096];
      static int32_t actual[4096];
      const size_t count = shape_count(&v->output_shape);
      assert_true(count <= 4096u);
      assert_int_equal(utvm_prelu_params(v->input_scale, v->input_zero_point, v->alpha_scale,
                                         v->alpha_zero_point, v->output_scale,
                                         v->output_zero_point, &params),
                       UTVM_OK);
      expect_ints("prelu params", i, v->params, (const int32_t *)&params, 7u);
      for (size_t k = 0; k < shape_count(&v->shape); ++k) {
        in8[k] = (int8_t)v->input[k];
        in16[k] = (int16_t)v->input[k];
      }
      if (bits == 8) {
        assert_int_equal(utvm_prelu_s8(&params, &v->shape, in8, &v->alpha_shape, v->alpha,
                                       &v->output_shape, out8),
                         UTVM_OK);
      } else {
        assert_int_equal(utvm_prelu_s16(&params, &v->shape, in16, &v->alpha_shape, v->alpha,
                                        &v->output_shape, out16),
                         UTVM_OK);
      }
      for (size_t k = 0; k < count; ++k) {
        actual[k] = (bits == 8) ? out8[k] : out16[k];
      }
      expect_ints(bits == 8 ? "prelu_s8" : "prelu_s16", i, v->expected, actual, count);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv2d_vectors),
      cmocka_unit_test(test_depthwise_conv2d_vectors),
      cmocka_unit_test(test_fully_connected_vectors),
      cmocka_unit_test(test_pool2d_vectors),
      cmocka_unit_test(test_pool2d_s16_vectors),
      cmocka_unit_test(test_add_vectors),
      cmocka_unit_test(test_mul_vectors),
      cmocka_unit_test(test_softmax_vectors),
      cmocka_unit_test(test_pwl_vectors),
      cmocka_unit_test(test_logistic_vectors),
      cmocka_unit_test(test_tanh_vectors),
      cmocka_unit_test(test_pad_vectors),
      cmocka_unit_test(test_resize_bilinear_vectors),
      cmocka_unit_test(test_concatenation_vectors),
      cmocka_unit_test(test_mean_vectors),
      cmocka_unit_test(test_quantize_vectors),
      cmocka_unit_test(test_requantize_vectors),
      cmocka_unit_test(test_dequantize_vectors),
      cmocka_unit_test(test_quantize_multiplier_vectors),
      cmocka_unit_test(test_compute_padding_vectors),
      cmocka_unit_test(test_activation_range_vectors),
      cmocka_unit_test(test_hard_swish_vectors),
      cmocka_unit_test(test_prelu_vectors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Prepare-time helpers: the integer parameters of the kernels from the model's float scales,
 * computed in the same order and precision as TFLite's Prepare functions (quantization_util.cc,
 * kernel_util.cc, padding.h and TFLite Micro's *_common.cc), which decides bit-exactness. */
#include <math.h>
#include <stdbool.h>

#include "utvm/kernels.h"

/* TFLite's TfLiteRound on double: ties away from zero. */
static double round_half_away(double x) { return round(x); }

/* True if a scale from the model can be used (finite and > 0). */
static bool scale_valid(float scale) { return scale > 0.0f && scale <= 3.4028235e38f; }

static bool zero_point_valid(int32_t zero_point) {
  return zero_point >= INT8_MIN && zero_point <= INT8_MAX;
}

/* True if zero_point is a value of an element of size bytes (1 int8, 2 int16). */
static bool q_zero_point_valid(int32_t zero_point, int32_t size) {
  return (size == 1) ? zero_point_valid(zero_point)
                     : (zero_point >= INT16_MIN && zero_point <= INT16_MAX);
}

utvm_err_t utvm_quantize_multiplier(double real, int32_t *multiplier, int32_t *shift) {
  if (multiplier == NULL || shift == NULL || !isfinite(real)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (real == 0.0) {
    *multiplier = 0;
    *shift = 0;
    return UTVM_OK;
  }
  int exponent;
  const double fraction = frexp(real, &exponent); /* |fraction| in [0.5, 1) */
  int64_t fixed = (int64_t)round_half_away(fraction * 2147483648.0);
  if (fixed == ((int64_t)1 << 31)) {
    fixed /= 2;
    ++exponent;
  }
  if (exponent < -31) {
    exponent = 0;
    fixed = 0;
  }
  *multiplier = (int32_t)fixed;
  *shift = (int32_t)exponent;
  return UTVM_OK;
}

/* QuantizeMultiplierSmallerThanOneExp: 0 < real < 1 and a shift <= 0, else UNSUPPORTED. */
static utvm_err_t quantize_multiplier_below_one(double real, int32_t *multiplier,
                                                int32_t *shift) {
  if (!(real > 0.0 && real < 1.0)) {
    return UTVM_ERR_KERNEL_UNSUPPORTED;
  }
  const utvm_err_t err = utvm_quantize_multiplier(real, multiplier, shift);
  return err == UTVM_OK && *shift > 0 ? UTVM_ERR_KERNEL_UNSUPPORTED : err;
}

/* One dimension of ComputePaddingHeightWidth: output size, padding before, odd extra. */
static void compute_padding_1d(utvm_padding_t padding, int32_t stride, int32_t dilation,
                               int32_t in, int32_t filter, int32_t *out, int32_t *pad,
                               int32_t *offset) {
  const int64_t effective_filter = (int64_t)(filter - 1) * dilation + 1;
  const int64_t out_size = padding == UTVM_PADDING_SAME
                               ? ((int64_t)in + stride - 1) / stride
                               : ((int64_t)in + stride - effective_filter) / stride;
  int64_t total = (out_size - 1) * stride + effective_filter - in;
  total = total > 0 ? total : 0;
  *out = (int32_t)out_size;
  *pad = (int32_t)(total / 2);
  *offset = (int32_t)(total % 2);
}

utvm_err_t utvm_compute_padding(utvm_padding_t padding, int32_t stride_h, int32_t stride_w,
                                int32_t dilation_h, int32_t dilation_w, int32_t in_h,
                                int32_t in_w, int32_t filter_h, int32_t filter_w,
                                utvm_padding_values_t *out) {
  if (out == NULL || (padding != UTVM_PADDING_SAME && padding != UTVM_PADDING_VALID) ||
      stride_h < 1 || stride_w < 1 || dilation_h < 1 || dilation_w < 1 || in_h < 1 || in_w < 1 ||
      filter_h < 1 || filter_w < 1) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  compute_padding_1d(padding, stride_h, dilation_h, in_h, filter_h, &out->out_h, &out->pad_top,
                     &out->offset_h);
  compute_padding_1d(padding, stride_w, dilation_w, in_w, filter_w, &out->out_w, &out->pad_left,
                     &out->offset_w);
  return UTVM_OK;
}

/* zero_point + round(value / scale) in float, as TFLite's Quantize in kernel_util.cc;
 * BAD_PARAM where TFLite fails (the rounded value outside int32). */
static utvm_err_t quantize_activation_bound(float value, float scale, int32_t zero_point,
                                            int32_t *q) {
  const float rounded = roundf(value / scale);
  if (!(rounded >= -2147483648.0f && rounded <= 2147483647.0f)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const int64_t sum = (int64_t)zero_point + (int64_t)rounded;
  *q = sum < INT32_MIN ? INT32_MIN : (sum > INT32_MAX ? INT32_MAX : (int32_t)sum);
  return UTVM_OK;
}

/* The clamp range of a fused activation on an output of [qmin, qmax]. */
static utvm_err_t activation_range(int32_t activation, float output_scale,
                                   int32_t output_zero_point, int32_t qmin, int32_t qmax,
                                   int32_t *act_min, int32_t *act_max) {
  if (act_min == NULL || act_max == NULL || !scale_valid(output_scale) ||
      output_zero_point < qmin || output_zero_point > qmax) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  float low;
  float high = 0.0f; /* not used for RELU: unbounded above */
  switch (activation) {
    case UTVM_ACT_NONE:
      *act_min = qmin;
      *act_max = qmax;
      return UTVM_OK;
    case UTVM_ACT_RELU:
      low = 0.0f;
      break;
    case UTVM_ACT_RELU_N1_TO_1:
      low = -1.0f;
      high = 1.0f;
      break;
    case UTVM_ACT_RELU6:
      low = 0.0f;
      high = 6.0f;
      break;
    default:
      return UTVM_ERR_KERNEL_UNSUPPORTED;
  }
  int32_t q_low;
  utvm_err_t err = quantize_activation_bound(low, output_scale, output_zero_point, &q_low);
  if (err != UTVM_OK) {
    return err;
  }
  int32_t q_high = qmax;
  if (activation != UTVM_ACT_RELU) {
    err = quantize_activation_bound(high, output_scale, output_zero_point, &q_high);
    if (err != UTVM_OK) {
      return err;
    }
  }
  *act_min = q_low > qmin ? q_low : qmin;
  *act_max = q_high < qmax ? q_high : qmax;
  return *act_min <= *act_max ? UTVM_OK : UTVM_ERR_KERNEL_BAD_PARAM;
}

utvm_err_t utvm_activation_range_s8(int32_t activation, float output_scale,
                                    int32_t output_zero_point, int32_t *act_min,
                                    int32_t *act_max) {
  return activation_range(activation, output_scale, output_zero_point, INT8_MIN, INT8_MAX,
                          act_min, act_max);
}

utvm_err_t utvm_activation_range_s16(int32_t activation, float output_scale,
                                     int32_t output_zero_point, int32_t *act_min,
                                     int32_t *act_max) {
  return activation_range(activation, output_scale, output_zero_point, INT16_MIN, INT16_MAX,
                          act_min, act_max);
}

utvm_err_t utvm_conv_quant_params(float input_scale, const float *filter_scales, int32_t count,
                                  float output_scale, int32_t *multipliers, int32_t *shifts) {
  if (filter_scales == NULL || multipliers == NULL || shifts == NULL || count < 1 ||
      !scale_valid(input_scale) || !scale_valid(output_scale)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  for (int32_t i = 0; i < count; ++i) {
    if (!(filter_scales[i] >= 0.0f)) {
      return UTVM_ERR_KERNEL_BAD_PARAM;
    }
    const double real = (double)input_scale * (double)filter_scales[i] / (double)output_scale;
    const utvm_err_t err = utvm_quantize_multiplier(real, &multipliers[i], &shifts[i]);
    if (err != UTVM_OK) {
      return err;
    }
  }
  return UTVM_OK;
}

utvm_err_t utvm_fully_connected_quant_params(float input_scale, const float *filter_scales,
                                             int32_t count, float output_scale,
                                             int32_t *multipliers, int32_t *shifts) {
  if (count != 1) {
    return utvm_conv_quant_params(input_scale, filter_scales, count, output_scale, multipliers,
                                  shifts);
  }
  if (filter_scales == NULL || multipliers == NULL || shifts == NULL ||
      !scale_valid(input_scale) || !scale_valid(output_scale) || !(filter_scales[0] >= 0.0f)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  /* GetQuantizedConvolutionMultipler: the product of the two scales is a float. */
  const float product = input_scale * filter_scales[0];
  return utvm_quantize_multiplier((double)product / (double)output_scale, multipliers, shifts);
}

utvm_err_t utvm_pool2d_params_s8(utvm_padding_t padding, int32_t stride_h, int32_t stride_w,
                                 int32_t filter_h, int32_t filter_w, int32_t in_h, int32_t in_w,
                                 int32_t activation, float output_scale,
                                 int32_t output_zero_point, utvm_pool2d_params_t *params,
                                 int32_t *out_h, int32_t *out_w) {
  if (params == NULL || out_h == NULL || out_w == NULL) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  utvm_padding_values_t values;
  utvm_err_t err = utvm_compute_padding(padding, stride_h, stride_w, 1, 1, in_h, in_w, filter_h,
                                        filter_w, &values);
  if (err != UTVM_OK) {
    return err;
  }
  err = utvm_activation_range_s8(activation, output_scale, output_zero_point, &params->act_min,
                                 &params->act_max);
  if (err != UTVM_OK) {
    return err;
  }
  params->stride_h = stride_h;
  params->stride_w = stride_w;
  params->filter_h = filter_h;
  params->filter_w = filter_w;
  params->pad_top = values.pad_top;
  params->pad_left = values.pad_left;
  *out_h = values.out_h;
  *out_w = values.out_w;
  return UTVM_OK;
}

utvm_err_t utvm_pool2d_params_s16(utvm_padding_t padding, int32_t stride_h, int32_t stride_w,
                                  int32_t filter_h, int32_t filter_w, int32_t in_h, int32_t in_w,
                                  int32_t activation, float output_scale,
                                  int32_t output_zero_point, utvm_pool2d_params_t *params,
                                  int32_t *out_h, int32_t *out_w) {
  utvm_err_t err = utvm_pool2d_params_s8(padding, stride_h, stride_w, filter_h, filter_w, in_h,
                                         in_w, 0, 1.0f, 0, params, out_h, out_w);
  if (err == UTVM_OK) {
    err = utvm_activation_range_s16(activation, output_scale, output_zero_point,
                                    &params->act_min, &params->act_max);
  }
  return err;
}

/* CalculateOpDataAdd after the activation range: the ratios in double. */
static utvm_err_t add_params(float input1_scale, float input2_scale, float output_scale,
                             int32_t left_shift, utvm_add_params_t *params) {
  params->left_shift = left_shift;
  const double twice_max_input_scale =
      2.0 * (double)(input1_scale > input2_scale ? input1_scale : input2_scale);
  const double real_input1 = (double)input1_scale / twice_max_input_scale;
  const double real_input2 = (double)input2_scale / twice_max_input_scale;
  const double real_output =
      twice_max_input_scale / ((double)(1 << params->left_shift) * (double)output_scale);
  utvm_err_t err = quantize_multiplier_below_one(real_input1, &params->input1_multiplier,
                                                 &params->input1_shift);
  if (err == UTVM_OK) {
    err = quantize_multiplier_below_one(real_input2, &params->input2_multiplier,
                                        &params->input2_shift);
  }
  if (err == UTVM_OK) {
    err = quantize_multiplier_below_one(real_output, &params->output_multiplier,
                                        &params->output_shift);
  }
  return err;
}

utvm_err_t utvm_add_params_s8(float input1_scale, int32_t input1_zero_point, float input2_scale,
                              int32_t input2_zero_point, float output_scale,
                              int32_t output_zero_point, int32_t activation,
                              utvm_add_params_t *params) {
  if (params == NULL || !scale_valid(input1_scale) || !scale_valid(input2_scale) ||
      !scale_valid(output_scale) || !zero_point_valid(input1_zero_point) ||
      !zero_point_valid(input2_zero_point)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const utvm_err_t err = utvm_activation_range_s8(activation, output_scale, output_zero_point,
                                                  &params->act_min, &params->act_max);
  if (err != UTVM_OK) {
    return err;
  }
  params->input1_offset = -input1_zero_point;
  params->input2_offset = -input2_zero_point;
  params->output_offset = output_zero_point;
  return add_params(input1_scale, input2_scale, output_scale, 20, params);
}

utvm_err_t utvm_add_params_s16(float input1_scale, float input2_scale, float output_scale,
                               int32_t activation, utvm_add_params_t *params) {
  if (params == NULL || !scale_valid(input1_scale) || !scale_valid(input2_scale) ||
      !scale_valid(output_scale)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const utvm_err_t err = utvm_activation_range_s16(activation, output_scale, 0,
                                                   &params->act_min, &params->act_max);
  if (err != UTVM_OK) {
    return err;
  }
  params->input1_offset = 0;
  params->input2_offset = 0;
  params->output_offset = 0;
  return add_params(input1_scale, input2_scale, output_scale, 15, params);
}

utvm_err_t utvm_sub_params(float input1_scale, int32_t input1_zero_point, float input2_scale,
                           int32_t input2_zero_point, float output_scale,
                           int32_t output_zero_point, int32_t activation, int32_t left_shift,
                           utvm_add_params_t *params) {
  const bool int16 = left_shift == 15;
  const int32_t qmin = int16 ? INT16_MIN : INT8_MIN;
  const int32_t qmax = int16 ? INT16_MAX : INT8_MAX;
  if (params == NULL || (left_shift != 15 && left_shift != 20) || !scale_valid(input1_scale) ||
      !scale_valid(input2_scale) || !scale_valid(output_scale) || input1_zero_point < qmin ||
      input1_zero_point > qmax || input2_zero_point < qmin || input2_zero_point > qmax) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  utvm_err_t err = activation_range(activation, output_scale, output_zero_point, qmin, qmax,
                                    &params->act_min, &params->act_max);
  if (err != UTVM_OK) {
    return err;
  }
  params->input1_offset = -input1_zero_point;
  params->input2_offset = -input2_zero_point;
  params->output_offset = output_zero_point;
  params->left_shift = left_shift;
  /* In float, as TFLM's CalculateOpDataSub (ADD computes them in double). */
  const float twice_max_input_scale = 2.0f * (input1_scale > input2_scale ? input1_scale
                                                                          : input2_scale);
  const float real_output = twice_max_input_scale / ((float)(1 << left_shift) * output_scale);
  err = quantize_multiplier_below_one((double)(input1_scale / twice_max_input_scale),
                                      &params->input1_multiplier, &params->input1_shift);
  if (err == UTVM_OK) {
    err = quantize_multiplier_below_one((double)(input2_scale / twice_max_input_scale),
                                        &params->input2_multiplier, &params->input2_shift);
  }
  if (err == UTVM_OK) {
    err = quantize_multiplier_below_one((double)real_output, &params->output_multiplier,
                                        &params->output_shift);
  }
  return err;
}

utvm_err_t utvm_mul_params_s8(float input1_scale, int32_t input1_zero_point, float input2_scale,
                              int32_t input2_zero_point, float output_scale,
                              int32_t output_zero_point, int32_t activation,
                              utvm_mul_params_t *params) {
  if (params == NULL || !scale_valid(input1_scale) || !scale_valid(input2_scale) ||
      !scale_valid(output_scale) || !zero_point_valid(input1_zero_point) ||
      !zero_point_valid(input2_zero_point)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const utvm_err_t err = utvm_activation_range_s8(activation, output_scale, output_zero_point,
                                                  &params->act_min, &params->act_max);
  if (err != UTVM_OK) {
    return err;
  }
  params->input1_offset = -input1_zero_point;
  params->input2_offset = -input2_zero_point;
  params->output_offset = output_zero_point;
  const double real = (double)input1_scale * (double)input2_scale / (double)output_scale;
  return utvm_quantize_multiplier(real, &params->output_multiplier, &params->output_shift);
}

/* CalculateInputRadius: the largest input difference whose rescaled value stays below the
 * fixed-point range with integer_bits integer bits. */
static int32_t calculate_input_radius(int32_t integer_bits, int32_t left_shift) {
  const double max_input_rescaled = 1.0 * (double)((1 << integer_bits) - 1) *
                                    (double)((int64_t)1 << (31 - integer_bits)) /
                                    (double)((int64_t)1 << left_shift);
  return (int32_t)floor(max_input_rescaled);
}

utvm_err_t utvm_softmax_params_s8(float beta, float input_scale, utvm_softmax_params_t *params) {
  if (params == NULL || !scale_valid(input_scale) || !(beta > 0.0f) || !(beta <= 3.4028235e38f)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  /* PreprocessSoftmaxScaling with 5 integer bits. */
  double real = (double)beta * (double)input_scale * (double)(1 << (31 - 5));
  const double max_real = (double)(((int64_t)1 << 31) - 1);
  real = real < max_real ? real : max_real;
  if (!(real > 1.0)) {
    return UTVM_ERR_KERNEL_UNSUPPORTED;
  }
  const utvm_err_t err =
      utvm_quantize_multiplier(real, &params->input_multiplier, &params->input_left_shift);
  if (err != UTVM_OK) {
    return err;
  }
  params->diff_min = (int32_t)(-1.0 * calculate_input_radius(5, params->input_left_shift));
  return UTVM_OK;
}

/* Shared by LOGISTIC and TANH: the input as Q4 (4 integer bits), without QuantizeMultiplier's
 * corrections (TFLite calls frexp directly here). */
static utvm_err_t q4_input_params(float input_scale, int32_t input_zero_point,
                                  utvm_logistic_params_t *params) {
  if (params == NULL || !scale_valid(input_scale) || !zero_point_valid(input_zero_point)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const double real = (double)input_scale * (double)(1 << (31 - 4));
  int exponent;
  const double fraction = frexp(real, &exponent);
  if (exponent < 0 || exponent > 31) {
    return UTVM_ERR_KERNEL_UNSUPPORTED;
  }
  /* A float scale has 24 significant bits, so fraction * 2^31 is an integer below 2^31. */
  params->input_multiplier = (int32_t)round_half_away(fraction * 2147483648.0);
  params->input_left_shift = (int32_t)exponent;
  params->input_zero_point = input_zero_point;
  params->input_range_radius = calculate_input_radius(4, params->input_left_shift);
  return UTVM_OK;
}

utvm_err_t utvm_logistic_params_s8(float input_scale, int32_t input_zero_point,
                                   int32_t output_zero_point, utvm_logistic_params_t *params) {
  if (output_zero_point != INT8_MIN) {
    return UTVM_ERR_KERNEL_UNSUPPORTED;
  }
  return q4_input_params(input_scale, input_zero_point, params);
}

utvm_err_t utvm_tanh_params_s8(float input_scale, int32_t input_zero_point,
                               utvm_tanh_params_t *params) {
  return q4_input_params(input_scale, input_zero_point, params);
}

utvm_err_t utvm_mean_params_s8(float input_scale, int32_t input_zero_point, float output_scale,
                               int32_t output_zero_point, utvm_mean_params_t *params) {
  if (params == NULL || !scale_valid(input_scale) || !scale_valid(output_scale) ||
      !zero_point_valid(input_zero_point) || !zero_point_valid(output_zero_point)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  params->input_zero_point = input_zero_point;
  params->output_zero_point = output_zero_point;
  return utvm_quantize_multiplier((double)input_scale / (double)output_scale,
                                  &params->multiplier, &params->shift);
}

utvm_err_t utvm_requantize_params_s8(float input_scale, int32_t input_zero_point,
                                     float output_scale, int32_t output_zero_point,
                                     utvm_requantize_params_t *params) {
  if (params == NULL || !scale_valid(input_scale) || !scale_valid(output_scale) ||
      !zero_point_valid(input_zero_point) || !zero_point_valid(output_zero_point)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  params->input_zero_point = input_zero_point;
  params->output_zero_point = output_zero_point;
  return utvm_quantize_multiplier((double)input_scale / (double)output_scale,
                                  &params->multiplier, &params->shift);
}

/* TFLite's CheckedLog2: the rounded log2 of x (in float, through log), and whether x is that
 * power of two within 1e-3 of an octave. */
static bool checked_log2(float x, int32_t *log2_rounded) {
  const float x_log2 = logf(x) * (1.0f / logf(2.0f));
  const float rounded = roundf(x_log2);
  *log2_rounded = (int32_t)rounded;
  return fabsf(x_log2 - rounded) < 1e-3f;
}

utvm_err_t utvm_sigmoid_params_s16(float input_scale, float output_scale, int32_t tanh,
                                   utvm_sigmoid_s16_params_t *params) {
  int32_t in_log2 = 0;
  int32_t out_log2 = 0;
  if (params == NULL || !scale_valid(input_scale) || !scale_valid(output_scale)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!checked_log2(output_scale, &out_log2) || out_log2 != -15) {
    return UTVM_ERR_KERNEL_UNSUPPORTED;
  }
  const bool pot = checked_log2(input_scale, &in_log2);
  const int32_t shift = 12 + in_log2;
  if (pot && (shift == 0 || (tanh != 0 && shift == 1))) {
    params->input_multiplier = 3 << shift;
    params->input_left_shift = 0;
    return UTVM_OK;
  }
  double multiplier = (double)input_scale * 4096.0 * 3.0;
  int32_t left_shift = 0;
  for (int32_t k = 0; k <= 30; ++k) {
    if (multiplier <= 32767.0 / 2.0) { /* once above, doubling keeps it above */
      left_shift++;
      multiplier = multiplier * 2.0;
    }
  }
  if (multiplier >= 32768.0) {
    return UTVM_ERR_KERNEL_UNSUPPORTED; /* TFLite's DCHECK: the product would overflow */
  }
  params->input_multiplier = (int32_t)multiplier;
  params->input_left_shift = left_shift;
  return UTVM_OK;
}

utvm_err_t utvm_squared_difference_params(float input1_scale, int32_t input1_zero_point,
                                          float input2_scale, int32_t input2_zero_point,
                                          float output_scale, int32_t output_zero_point,
                                          int32_t int16, utvm_add_params_t *params) {
  const int32_t size = (int16 != 0) ? 2 : 1;
  if (params == NULL || !scale_valid(input1_scale) || !scale_valid(input2_scale) ||
      !scale_valid(output_scale) || !q_zero_point_valid(input1_zero_point, size) ||
      !q_zero_point_valid(input2_zero_point, size) ||
      !q_zero_point_valid(output_zero_point, size)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  params->input1_offset = -input1_zero_point;
  params->input2_offset = -input2_zero_point;
  params->output_offset = output_zero_point;
  params->left_shift = (int16 != 0) ? 0 : 7;
  params->act_min = (int16 != 0) ? INT16_MIN : INT8_MIN;
  params->act_max = (int16 != 0) ? INT16_MAX : INT8_MAX;
  const double twice_max =
      2.0 * (double)((input1_scale > input2_scale) ? input1_scale : input2_scale);
  const double real_output = (twice_max * twice_max) /
                             ((double)(1 << (params->left_shift * 2)) * (double)output_scale);
  utvm_err_t err = quantize_multiplier_below_one((double)input1_scale / twice_max,
                                                 &params->input1_multiplier,
                                                 &params->input1_shift);
  if (err == UTVM_OK) {
    err = quantize_multiplier_below_one((double)input2_scale / twice_max,
                                        &params->input2_multiplier, &params->input2_shift);
  }
  if (err == UTVM_OK) {
    err = utvm_quantize_multiplier(real_output, &params->output_multiplier,
                                   &params->output_shift);
  }
  return err;
}

utvm_err_t utvm_softmax_params_s16(float beta, float input_scale,
                                   utvm_softmax_params_t *params) {
  if (params == NULL || !scale_valid(beta) || !scale_valid(input_scale)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  params->diff_min = 0;
  return utvm_quantize_multiplier((double)input_scale * (double)beta / (10.0 / 65535.0),
                                  &params->input_multiplier, &params->input_left_shift);
}

utvm_err_t utvm_requantize_q_params(float input_scale, int32_t input_zero_point,
                                    int32_t input_size, float output_scale,
                                    int32_t output_zero_point, int32_t output_size,
                                    utvm_requantize_q_params_t *params) {
  if (params == NULL || !scale_valid(input_scale) || !scale_valid(output_scale) ||
      (input_size != 1 && input_size != 2) || (output_size != 1 && output_size != 2) ||
      !q_zero_point_valid(input_zero_point, input_size) ||
      !q_zero_point_valid(output_zero_point, output_size)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  params->input_zero_point = input_zero_point;
  params->output_zero_point = output_zero_point;
  params->input_size = input_size;
  params->output_size = output_size;
  return utvm_quantize_multiplier((double)input_scale / (double)output_scale,
                                  &params->multiplier, &params->shift);
}

utvm_err_t utvm_mul_params_s16(float input1_scale, float input2_scale, float output_scale,
                               int32_t activation, utvm_mul_params_t *params) {
  if (params == NULL || !scale_valid(input1_scale) || !scale_valid(input2_scale) ||
      !scale_valid(output_scale)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const utvm_err_t err = utvm_activation_range_s16(activation, output_scale, 0,
                                                   &params->act_min, &params->act_max);
  if (err != UTVM_OK) {
    return err;
  }
  params->input1_offset = 0;
  params->input2_offset = 0;
  params->output_offset = 0;
  const double real = (double)input1_scale * (double)input2_scale / (double)output_scale;
  return utvm_quantize_multiplier(real, &params->output_multiplier, &params->output_shift);
}

utvm_err_t utvm_pwl_params(double positive_real, double negative_real, int32_t negative_mode,
                           int32_t input_zero_point, int32_t output_zero_point, int32_t act_min,
                           int32_t act_max, utvm_pwl_params_t *params) {
  if (params == NULL || negative_mode < UTVM_PWL_SCALE || negative_mode > UTVM_PWL_NEGATE ||
      !(positive_real >= 0.0)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  params->input_zero_point = input_zero_point;
  params->output_zero_point = output_zero_point;
  params->negative_mode = negative_mode;
  params->act_min = act_min;
  params->act_max = act_max;
  utvm_err_t err = utvm_quantize_multiplier(positive_real, &params->positive_multiplier,
                                            &params->positive_shift);
  if (err == UTVM_OK) {
    err = utvm_quantize_multiplier(negative_real, &params->negative_multiplier,
                                   &params->negative_shift);
  }
  if (err == UTVM_OK && params->negative_multiplier < 0) {
    /* QuantizeLeakyRelu: a negative alpha negates the scaled value of |multiplier|. */
    if (negative_mode != UTVM_PWL_SCALE || params->negative_multiplier == INT32_MIN) {
      return UTVM_ERR_KERNEL_UNSUPPORTED;
    }
    params->negative_multiplier = -params->negative_multiplier;
    params->negative_mode = UTVM_PWL_NEGATE;
  }
  return err;
}

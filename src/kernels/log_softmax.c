/* LOG_SOFTMAX on int8 over the last dimension (TFLite's reference LogSoftmaxQuantized): the
 * differences to the row maximum as Q5, the Q12 sum of their exps, its logarithm (TFLite's
 * log_x_for_x_greater_than_or_equal_to_1, Q5 out of Q12), the output 16/256 steps below 127. */
#include <stdbool.h>

#include "fixed_point.h"
#include "utvm/kernels.h"

utvm_err_t utvm_log_softmax_params_s8(float input_scale, utvm_log_softmax_params_t *params) {
  utvm_softmax_params_t softmax;
  if (params == NULL) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  /* PreprocessLogSoftmaxScalingExp: PreprocessSoftmaxScaling with beta 1 and 5 integer bits. */
  utvm_err_t err = utvm_softmax_params_s8(1.0f, input_scale, &softmax);
  if (err != UTVM_OK) {
    return err;
  }
  if ((softmax.input_left_shift < 0) || (softmax.input_left_shift > 31) ||
      (softmax.input_multiplier <= 0)) {
    return UTVM_ERR_KERNEL_UNSUPPORTED;
  }
  const double reverse = (double)((int64_t)1 << (31 - softmax.input_left_shift)) /
                         (double)softmax.input_multiplier;
  /* QuantizeMultiplierSmallerThanOneExp: TFLite checks 0 < reverse < 1 and a shift <= 0. */
  if (!(reverse > 0.0) || !(reverse < 1.0)) {
    return UTVM_ERR_KERNEL_UNSUPPORTED;
  }
  err = utvm_quantize_multiplier(reverse, &params->reverse_scaling_divisor,
                                 &params->reverse_scaling_shift);
  if ((err == UTVM_OK) &&
      ((params->reverse_scaling_shift > 0) || (params->reverse_scaling_shift < -31))) {
    err = UTVM_ERR_KERNEL_UNSUPPORTED;
  }
  params->input_multiplier = softmax.input_multiplier;
  params->input_left_shift = softmax.input_left_shift;
  params->diff_min = softmax.diff_min;
  return err;
}

/* gemmlowp's SaturatingRoundingMultiplyByPOTParam for an exponent 0..31. */
static int32_t ls_saturating_shl(int32_t x, int32_t exponent) {
  return (exponent == 0) ? x : utvm_saturating_shl(x, exponent);
}

/* TFLite's SaturatingAddNonGemmlowp and SaturatingSub on int32. */
static int32_t ls_saturate(int64_t x) {
  int64_t r = x;
  if (r > (int64_t)INT32_MAX) {
    r = (int64_t)INT32_MAX;
  }
  if (r < (int64_t)INT32_MIN) {
    r = (int64_t)INT32_MIN;
  }
  return (int32_t)r;
}

/* TFLite's log_x_for_x_greater_than_or_equal_to_1<5> of a Q12 value (Q6 accumulation). */
static int32_t ls_log_q12_to_q5(int32_t input) {
  const int32_t log_2 = 1488522236;
  const int32_t sqrt_sqrt_half = 1805811301;
  const int32_t sqrt_half = 1518500250;
  const int32_t alpha_n = 117049297;
  const int32_t alpha_d = 127690142;
  const int32_t alpha_i = 1057819769;
  const int32_t alpha_f = 638450708;
  const int32_t shifted_quarter = (int32_t)1 << 23; /* 1/4 rescaled to Q6 */
  const int32_t input_integer_bits = 12;
  const int32_t accum_fraction_bits = 25; /* 31 - 6 */

  const int32_t a_headroom_plus_1 = utvm_count_leading_zeros_u64((uint64_t)(uint32_t)input) - 32;
  const int32_t r_a_tmp = ls_saturating_shl(input, a_headroom_plus_1 - 1);
  const int32_t r_a = ls_saturating_shl(utvm_sat_round_doubling_high_mul(r_a_tmp, sqrt_half), 1);
  const int32_t a_pow_2_adj = ls_saturate(
      (int64_t)ls_saturating_shl(input_integer_bits - a_headroom_plus_1, accum_fraction_bits) +
      (int64_t)shifted_quarter);
  const int32_t z_b = utvm_sat_round_doubling_high_mul(input, sqrt_half);
  const int32_t b_headroom = utvm_count_leading_zeros_u64((uint64_t)(uint32_t)z_b) - 32 - 1;
  const int32_t r_b = ls_saturating_shl(input, b_headroom);
  const int32_t b_pow_2_adj = ls_saturate(
      (int64_t)ls_saturating_shl(input_integer_bits - b_headroom, accum_fraction_bits) -
      (int64_t)shifted_quarter);
  const int32_t r = utvm_min_s32(r_a, r_b);
  const int32_t pow_2_adj = utvm_max_s32(a_pow_2_adj, b_pow_2_adj);

  const int32_t p = utvm_rounding_half_sum(r, sqrt_sqrt_half);
  int32_t q = utvm_wrap_sub(r, sqrt_sqrt_half);
  q = utvm_wrap_add(q, q);
  const int32_t common_sq = utvm_sat_round_doubling_high_mul(q, q);
  const int32_t num = utvm_wrap_add(
      utvm_sat_round_doubling_high_mul(q, r),
      utvm_sat_round_doubling_high_mul(utvm_sat_round_doubling_high_mul(q, common_sq), alpha_n));
  const int32_t denom_minus_one = utvm_wrap_add(
      utvm_sat_round_doubling_high_mul(
          p, utvm_wrap_add(utvm_wrap_add(alpha_i, q),
                           utvm_sat_round_doubling_high_mul(alpha_d, common_sq))),
      utvm_sat_round_doubling_high_mul(alpha_f, q));
  const int32_t recip_denom = utvm_one_over_one_plus_x_q0(denom_minus_one);
  const int32_t num_scaled = utvm_rounding_divide_by_pot(num, 6);
  const int32_t sum = utvm_wrap_add(utvm_sat_round_doubling_high_mul(pow_2_adj, log_2),
                                    utvm_sat_round_doubling_high_mul(num_scaled, recip_denom));
  return utvm_saturating_shl(sum, 1); /* Q6 -> Q5 */
}

static bool log_softmax_valid(const utvm_log_softmax_params_t *p) {
  return (p->input_multiplier >= 0) && (p->input_left_shift >= 0) &&
         (p->input_left_shift <= 31) && (p->reverse_scaling_divisor >= 0) &&
         (p->reverse_scaling_shift >= -31) && (p->reverse_scaling_shift <= 0) &&
         (p->diff_min <= 0);
}

utvm_err_t utvm_log_softmax_s8(const utvm_log_softmax_params_t *params, int32_t rows,
                               int32_t depth, const int8_t *input, int8_t *output) {
  if ((params == NULL) || (input == NULL) || (output == NULL) || !log_softmax_valid(params)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if ((rows < 0) || (depth < 1) || ((rows > 0) && (depth > (INT32_MAX / rows)))) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  for (int32_t row = 0; row < rows; ++row) {
    const int8_t *in = &input[row * depth];
    int8_t *out = &output[row * depth];
    int32_t max_in_row = INT8_MIN;
    for (int32_t i = 0; i < depth; ++i) {
      max_in_row = utvm_max_s32(max_in_row, in[i]);
    }
    int32_t sum_of_exps_q12 = 0;
    for (int32_t i = 0; i < depth; ++i) {
      const int32_t diff = (int32_t)in[i] - max_in_row;
      if (diff >= params->diff_min) {
        const int32_t diff_q5 = utvm_multiply_by_quantized_multiplier(
            diff, params->input_multiplier, params->input_left_shift);
        sum_of_exps_q12 = utvm_wrap_add(
            sum_of_exps_q12, utvm_rounding_divide_by_pot(utvm_exp_on_negative_values(diff_q5, 5), 12));
      }
    }
    const int32_t log_sum_q5 = ls_log_q12_to_q5(sum_of_exps_q12);
    const int32_t adjusted_diff_min = utvm_max_s32(
        params->diff_min - 1,
        utvm_multiply_by_quantized_multiplier(utvm_wrap_add(log_sum_q5, INT32_MIN),
                                              params->reverse_scaling_divisor,
                                              params->reverse_scaling_shift));
    for (int32_t i = 0; i < depth; ++i) {
      const int32_t diff = (int32_t)in[i] - max_in_row;
      int32_t value = INT8_MIN;
      if (diff > adjusted_diff_min) {
        const int32_t diff_q5 = utvm_multiply_by_quantized_multiplier(
            diff, params->input_multiplier, params->input_left_shift);
        value = utvm_clamp_s32(
            utvm_wrap_add(utvm_rounding_divide_by_pot(utvm_wrap_sub(diff_q5, log_sum_q5), 22),
                          INT8_MAX),
            INT8_MIN, INT8_MAX);
      }
      out[i] = (int8_t)value;
    }
  }
  return UTVM_OK;
}

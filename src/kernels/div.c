/* DIV on int8 with broadcasting (TFLite's reference DivElementwise / BroadcastDivSlow): the
 * divisor's fixed-point reciprocal, the dividend at full headroom, one rescale. A divisor equal
 * to its zero point is an error (TFLite's DCHECK; its arithmetic is undefined there). */
#include <stdbool.h>

#include "fixed_point.h"
#include "shape.h"
#include "utvm/kernels.h"

utvm_err_t utvm_div_params_s8(float input1_scale, int32_t input1_zero_point, float input2_scale,
                              int32_t input2_zero_point, float output_scale,
                              int32_t output_zero_point, int32_t activation,
                              utvm_div_params_t *params) {
  if ((params == NULL) || !(input1_scale > 0.0f) || !(input2_scale > 0.0f) ||
      !(output_scale > 0.0f) || (input1_zero_point < INT8_MIN) ||
      (input1_zero_point > INT8_MAX) || (input2_zero_point < INT8_MIN) ||
      (input2_zero_point > INT8_MAX)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  utvm_err_t err = utvm_activation_range_s8(activation, output_scale, output_zero_point,
                                            &params->act_min, &params->act_max);
  if (err == UTVM_OK) {
    err = utvm_quantize_multiplier((double)(input1_scale / (input2_scale * output_scale)),
                                   &params->multiplier, &params->shift);
  }
  /* Every quotient's total shift (shift - reciprocal bits - headroom) is then <= 0. */
  if ((err == UTVM_OK) && ((params->shift > 22) || (params->shift < -31))) {
    err = UTVM_ERR_KERNEL_UNSUPPORTED;
  }
  params->input1_offset = -input1_zero_point;
  params->input2_offset = -input2_zero_point;
  params->output_offset = output_zero_point;
  return err;
}

/* gemmlowp's RoundingDivideByPOT for exponent 0..62: past 31 its mask (1 << exponent) - 1 is
 * all ones in int32, and the shift is taken as the sign (TFLite's shift is undefined there). */
static int32_t div_rounding_divide(int32_t x, int32_t exponent) {
  if (exponent <= 31) {
    return utvm_rounding_divide_by_pot(x, exponent);
  }
  const int32_t threshold = -1 + ((x < 0) ? 1 : 0);
  return (x >> 31) + ((x > threshold) ? 1 : 0);
}

/* TFLite's CountLeadingSignBits of an int32 (31 for 0). */
static int32_t div_leading_sign_bits(int32_t x) {
  const uint32_t magnitude = (x < 0) ? ~(uint32_t)x : (uint32_t)x;
  return utvm_count_leading_zeros_u64((uint64_t)magnitude) - 32 - 1;
}

static int32_t div_element(const utvm_div_params_t *p, int32_t a, int32_t b) {
  int32_t numerator = p->input1_offset + a;
  int32_t denominator = p->input2_offset + b;
  if (denominator < 0) {
    numerator = -numerator;
    denominator = -denominator;
  }
  const int32_t headroom_plus_one =
      utvm_count_leading_zeros_u64((uint64_t)(uint32_t)denominator) - 32;
  const int32_t recip_shift = 31 - headroom_plus_one;
  const int32_t shifted_minus_one = (int32_t)(((uint32_t)denominator << (uint32_t)headroom_plus_one) -
                                              ((uint32_t)1 << 31));
  const int32_t reciprocal = utvm_one_over_one_plus_x_q0(shifted_minus_one);
  const int32_t headroom = div_leading_sign_bits(numerator);
  const int32_t quotient =
      utvm_sat_round_doubling_high_mul(utvm_wrap_shl(numerator, headroom), reciprocal);
  const int32_t total_shift = p->shift - recip_shift - headroom;
  const int32_t scaled = div_rounding_divide(
      utvm_sat_round_doubling_high_mul(quotient, p->multiplier), -total_shift);
  return utvm_clamp_s32(utvm_wrap_add(p->output_offset, scaled), p->act_min, p->act_max);
}

static bool div_valid(const utvm_div_params_t *p) {
  return (p->input1_offset >= -INT8_MAX) && (p->input1_offset <= -INT8_MIN) &&
         (p->input2_offset >= -INT8_MAX) && (p->input2_offset <= -INT8_MIN) &&
         (p->output_offset >= INT8_MIN) && (p->output_offset <= INT8_MAX) &&
         (p->multiplier >= 0) && (p->shift >= -31) && (p->shift <= 22) &&
         (p->act_min >= INT8_MIN) && (p->act_max <= INT8_MAX) && (p->act_min <= p->act_max);
}

utvm_err_t utvm_div_s8(const utvm_div_params_t *params, const utvm_shape_t *input1_shape,
                       const int8_t *input1, const utvm_shape_t *input2_shape,
                       const int8_t *input2, const utvm_shape_t *output_shape, int8_t *output) {
  utvm_broadcast_t broadcast;
  if ((params == NULL) || (input1 == NULL) || (input2 == NULL) || (output == NULL) ||
      !div_valid(params)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if ((input1_shape == NULL) || (input2_shape == NULL) || (output_shape == NULL) ||
      !utvm_broadcast_init(&broadcast, input1_shape, input2_shape, output_shape)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  int32_t index[UTVM_KERNEL_MAX_RANK] = {0};
  int32_t offset1 = 0;
  int32_t offset2 = 0;
  for (int32_t i = 0; i < broadcast.count; ++i) {
    if (((int32_t)input2[offset2] + params->input2_offset) == 0) {
      return UTVM_ERR_KERNEL_UNSUPPORTED;
    }
    output[i] = (int8_t)div_element(params, input1[offset1], input2[offset2]);
    utvm_broadcast_next(&broadcast, index, &offset1, &offset2);
  }
  return UTVM_OK;
}

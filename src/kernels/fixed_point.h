/*
 * Fixed-point arithmetic of the int8 kernels (internal): TFLite's requantization and the
 * gemmlowp fixed-point functions its reference kernels use (exp, 1/(1+x), logistic, tanh),
 * written for C99 and integer-exact with them.
 *
 * A "Qk" value is an int32 with k integer bits and 31-k fractional bits (gemmlowp's
 * FixedPoint<int32_t, k>). gemmlowp adds and subtracts raw values without saturation; here
 * such sums wrap (utvm_wrap_*), which is what the two's-complement hardware TFLite runs on
 * does, so no parameter can make the kernels invoke undefined behaviour.
 */
#ifndef UTVM_KERNELS_FIXED_POINT_H
#define UTVM_KERNELS_FIXED_POINT_H

#include <stdint.h>

/* a + b modulo 2^32. */
static inline int32_t utvm_wrap_add(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a + (uint32_t)b);
}

/* a - b modulo 2^32. */
static inline int32_t utvm_wrap_sub(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a - (uint32_t)b);
}

/* x * 2^shift modulo 2^32, shift 0..31 (TFLite's x * (1 << shift)). */
static inline int32_t utvm_wrap_shl(int32_t x, int32_t shift) {
  return (int32_t)((uint32_t)x << (uint32_t)shift);
}

static inline int32_t utvm_min_s32(int32_t a, int32_t b) { return a < b ? a : b; }
static inline int32_t utvm_max_s32(int32_t a, int32_t b) { return a > b ? a : b; }

static inline int32_t utvm_clamp_s32(int32_t x, int32_t lo, int32_t hi) {
  return utvm_min_s32(utvm_max_s32(x, lo), hi);
}

/* gemmlowp's SaturatingRoundingDoublingHighMul: (a * b + nudge) / 2^31 truncated, nudge 2^30
 * for a product >= 0 and 1 - 2^30 below; the one overflowing case (INT32_MIN squared)
 * saturates to INT32_MAX. For every product p that equals floor((p + 2^30) / 2^31) (for p < 0:
 * trunc((p + 1 - 2^30) / 2^31) = ceil(...) = floor((p + 2^30) / 2^31)), which is ARM's VQRDMULH
 * and takes no branch on the product's sign: one 64-bit multiply, an add and a shift.
 * (Arithmetic >> of a negative value, as TFLite relies on.) */
static inline int32_t utvm_sat_round_doubling_high_mul(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) {
    return INT32_MAX;
  }
  return (int32_t)(((int64_t)a * (int64_t)b + ((int64_t)1 << 30)) >> 31);
}

/* x / 2^exponent rounded to nearest, ties away from zero; exponent 0..31 (gemmlowp's
 * RoundingDivideByPOT). Relies on >> of a negative value being arithmetic, as TFLite does. */
static inline int32_t utvm_rounding_divide_by_pot(int32_t x, int32_t exponent) {
  const int32_t mask = (int32_t)(((uint32_t)1u << (uint32_t)exponent) - 1u);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* x * multiplier * 2^(shift-31) with TFLite's double rounding (MultiplyByQuantizedMultiplier);
 * shift -31..31. */
static inline int32_t utvm_multiply_by_quantized_multiplier(int32_t x, int32_t multiplier,
                                                            int32_t shift) {
  const int32_t left_shift = shift > 0 ? shift : 0;
  const int32_t right_shift = shift > 0 ? 0 : -shift;
  return utvm_rounding_divide_by_pot(
      utvm_sat_round_doubling_high_mul(utvm_wrap_shl(x, left_shift), multiplier), right_shift);
}

/* x * multiplier * 2^(shift-31) for a 64-bit x with TFLite's int64 MultiplyByQuantizedMultiplier
 * (the int16x8 layers): the multiplier rounded to 16 bits, one rounding shift. x is bounded
 * to +-2^47 (TFLite's stated input range; a hostile bias cannot overflow), multiplier >= 0,
 * shift -31..7 (the caller checks). */
static inline int32_t utvm_multiply_by_quantized_multiplier_64(int64_t x, int32_t multiplier,
                                                               int32_t shift) {
  const int64_t limit = (int64_t)1 << 47;
  const int64_t bounded = (x < -limit) ? -limit : ((x >= limit) ? (limit - 1) : x);
  const int32_t reduced = (multiplier < 0x7FFF0000) ? ((multiplier + (1 << 15)) >> 16) : 0x7FFF;
  const int32_t total_shift = 15 - shift;
  const int64_t rounded = (bounded * (int64_t)reduced) + ((int64_t)1 << (total_shift - 1));
  return (int32_t)(rounded >> total_shift);
}

/* x * 2^exponent saturated to int32, exponent 1..30 (gemmlowp's SaturatingRoundingMultiplyByPOT
 * with a positive exponent; Rescale to fewer integer bits). */
static inline int32_t utvm_saturating_shl(int32_t x, int32_t exponent) {
  const int32_t threshold = (int32_t)(((int32_t)1 << (31 - exponent)) - 1);
  if (x > threshold) {
    return INT32_MAX;
  }
  if (x < -threshold) {
    return INT32_MIN;
  }
  return utvm_wrap_shl(x, exponent);
}

/* (a + b) / 2 rounded away from zero, without overflow (gemmlowp's RoundingHalfSum). */
static inline int32_t utvm_rounding_half_sum(int32_t a, int32_t b) {
  const int64_t sum = (int64_t)a + (int64_t)b;
  const int64_t sign = sum >= 0 ? 1 : -1;
  return (int32_t)((sum + sign) / 2);
}

/* Number of leading zero bits of a 64-bit value (64 for 0). */
static inline int32_t utvm_count_leading_zeros_u64(uint64_t x) {
  int32_t count = 0;
  for (int32_t bit = 63; bit >= 0 && ((x >> (uint32_t)bit) & 1u) == 0u; --bit) {
    ++count;
  }
  return count;
}

/* Q0 1.0 (saturated: INT32_MAX), as gemmlowp's FixedPoint<int32_t, 0>::One(). */
#define UTVM_Q0_ONE INT32_MAX

/* exp(a) for a in [-1/4, 0), a and result Q0 (exp_on_interval_between_negative_one_quarter
 * _and_0_excl): Taylor series around -1/8. */
static inline int32_t utvm_exp_on_interval_q0(int32_t a) {
  const int32_t exp_minus_one_eighth = 1895147668;
  const int32_t one_third = 715827883;
  const int32_t x = utvm_wrap_add(a, (int32_t)1 << 28);
  const int32_t x2 = utvm_sat_round_doubling_high_mul(x, x);
  const int32_t x3 = utvm_sat_round_doubling_high_mul(x2, x);
  const int32_t x4 = utvm_sat_round_doubling_high_mul(x2, x2);
  const int32_t x4_over_4 = utvm_rounding_divide_by_pot(x4, 2);
  const int32_t poly = utvm_rounding_divide_by_pot(
      utvm_wrap_add(utvm_sat_round_doubling_high_mul(utvm_wrap_add(x4_over_4, x3), one_third),
                    x2),
      1);
  return utvm_wrap_add(exp_minus_one_eighth,
                       utvm_sat_round_doubling_high_mul(exp_minus_one_eighth,
                                                        utvm_wrap_add(x, poly)));
}

/* exp(a) for a <= 0 given with integer_bits (4 or 5) integer bits; result Q0
 * (gemmlowp's exp_on_negative_values): exp of a mod 1/4, times exp(-2^k) for each bit k of
 * the rest. */
static inline int32_t utvm_exp_on_negative_values(int32_t a, int32_t integer_bits) {
  static const int32_t exp_of_minus_pot[7] = {/* exp(-2^k), k = -2..4, Q0 */
                                              1672461947, 1302514674, 790015084, 290630308,
                                              39332535,   720401,     242};
  const int32_t fractional_bits = 31 - integer_bits;
  const int32_t one_quarter = (int32_t)1 << (fractional_bits - 2);
  const int32_t a_mod_quarter_minus_one_quarter =
      utvm_wrap_sub(a & (one_quarter - 1), one_quarter);
  int32_t result =
      utvm_exp_on_interval_q0(utvm_saturating_shl(a_mod_quarter_minus_one_quarter, integer_bits));
  const int32_t remainder = utvm_wrap_sub(a_mod_quarter_minus_one_quarter, a);
  for (int32_t k = -2; k <= 4 && k < integer_bits; ++k) {
    if ((remainder & ((int32_t)1 << (fractional_bits + k))) != 0) {
      result = utvm_sat_round_doubling_high_mul(result, exp_of_minus_pot[k + 2]);
    }
  }
  return a == 0 ? UTVM_Q0_ONE : result;
}

/* Three Newton-Raphson steps for 1 / half_denominator with half_denominator in [1/2, 1),
 * result Q2 (shared by gemmlowp's one_over_one_plus_x and one_minus_x_over_one_plus_x). */
static inline int32_t utvm_reciprocal_newton_q2(int32_t half_denominator) {
  const int32_t forty_eight_seventeenths = 1515870810;        /* 48/17, Q2 */
  const int32_t minus_thirty_two_seventeenths = -1010580540;  /* -32/17, Q2 */
  const int32_t one_q2 = (int32_t)1 << 29;
  int32_t x = utvm_wrap_add(
      forty_eight_seventeenths,
      utvm_sat_round_doubling_high_mul(half_denominator, minus_thirty_two_seventeenths));
  for (int32_t i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_x = utvm_sat_round_doubling_high_mul(half_denominator, x);
    const int32_t one_minus = utvm_wrap_sub(one_q2, half_denominator_times_x);
    x = utvm_wrap_add(x, utvm_saturating_shl(utvm_sat_round_doubling_high_mul(x, one_minus), 2));
  }
  return x;
}

/* 1 / (1 + a) for a in [0, 1), Q0 in and out (gemmlowp's one_over_one_plus_x_for_x_in_0_1). */
static inline int32_t utvm_one_over_one_plus_x_q0(int32_t a) {
  const int32_t half_denominator = utvm_rounding_half_sum(a, UTVM_Q0_ONE);
  return utvm_saturating_shl(utvm_reciprocal_newton_q2(half_denominator), 1);
}

/* (1 - a) / (1 + a) for a in [0, 1), Q0 in and out
 * (gemmlowp's one_minus_x_over_one_plus_x_for_x_in_0_1). */
static inline int32_t utvm_one_minus_x_over_one_plus_x_q0(int32_t a) {
  const int32_t half_denominator = utvm_rounding_half_sum(a, UTVM_Q0_ONE);
  return utvm_saturating_shl(
      utvm_wrap_sub(utvm_reciprocal_newton_q2(half_denominator), (int32_t)1 << 29), 2);
}

/* logistic(a) for a Q4 input, Q0 result (gemmlowp's logistic). */
static inline int32_t utvm_logistic_q4(int32_t a) {
  if (a == 0) {
    return (int32_t)1 << 30;
  }
  const int32_t magnitude = a > 0 ? a : utvm_wrap_sub(0, a);
  const int32_t if_positive =
      utvm_one_over_one_plus_x_q0(utvm_exp_on_negative_values(utvm_wrap_sub(0, magnitude), 4));
  return a > 0 ? if_positive : utvm_wrap_sub(UTVM_Q0_ONE, if_positive);
}

/* tanh(a) for a Q4 input, Q0 result (gemmlowp's tanh): from exp(-2|a|), read as Q5. */
static inline int32_t utvm_tanh_q4(int32_t a) {
  if (a == 0) {
    return 0;
  }
  const int32_t negative_magnitude = a < 0 ? a : utvm_wrap_sub(0, a);
  const int32_t tanh_of_magnitude =
      utvm_one_minus_x_over_one_plus_x_q0(utvm_exp_on_negative_values(negative_magnitude, 5));
  return a < 0 ? utvm_wrap_sub(0, tanh_of_magnitude) : tanh_of_magnitude;
}

/* TFLite's GetInvSqrtQuantizedMultiplierExp(input, kReverseShift): 1/sqrt(input) as a Q0
 * multiplier and a shift for MultiplyByQuantizedMultiplier (<= 0), through gemmlowp's five
 * Newton-Raphson steps in Q3; input 0 and 1 give INT32_MAX and 0 (input >= 0). */
static inline void utvm_inv_sqrt_multiplier(int32_t input, int32_t *multiplier, int32_t *shift) {
  if (input <= 1) {
    *multiplier = INT32_MAX;
    *shift = 0;
    return;
  }
  int32_t value = input;
  int32_t right_shift = 11;
  if (value >= ((int32_t)1 << 29)) { /* once is enough: INT32_MAX / 4 < 2^29 */
    value /= 4;
    ++right_shift;
  }
  const int32_t max_left_shift_bits =
      utvm_count_leading_zeros_u64((uint64_t)(uint32_t)value) - 32 - 1;
  const int32_t left_shift_bit_pairs = (max_left_shift_bits / 2) - 1;
  right_shift -= left_shift_bit_pairs;
  value = utvm_wrap_shl(value, 2 * left_shift_bit_pairs);
  const int32_t half_input = utvm_rounding_divide_by_pot(value >> 1, 1);
  const int32_t half_three = ((int32_t)1 << 28) + ((int32_t)1 << 27);
  int32_t x = (int32_t)1 << 28; /* Q3 1.0 */
  for (int32_t i = 0; i < 5; ++i) {
    const int32_t x3 = utvm_saturating_shl(
        utvm_sat_round_doubling_high_mul(utvm_sat_round_doubling_high_mul(x, x), x), 6);
    x = utvm_saturating_shl(utvm_wrap_sub(utvm_sat_round_doubling_high_mul(half_three, x),
                                          utvm_sat_round_doubling_high_mul(half_input, x3)),
                            3);
  }
  x = utvm_sat_round_doubling_high_mul(x, 1518500250); /* sqrt(2) / 2 in Q0 */
  if (right_shift < 0) {
    x = utvm_wrap_shl(x, -right_shift);
    right_shift = 0;
  }
  *multiplier = x;
  *shift = -right_shift;
}

#endif /* UTVM_KERNELS_FIXED_POINT_H */

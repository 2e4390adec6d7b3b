/*
 * The fixed-point primitives of src/kernels/fixed_point.h on hand-computed values, and the
 * gemmlowp-style functions (exp, 1/(1+x), logistic, tanh) against their real values.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fixed_point.h"
#include "requant_s8.h"
#include "utvm/kernels.h"

static void test_wrapping(void **state) {
  (void)state;
  assert_int_equal(utvm_wrap_add(INT32_MAX, 1), INT32_MIN);
  assert_int_equal(utvm_wrap_sub(INT32_MIN, 1), INT32_MAX);
  assert_int_equal(utvm_wrap_shl(3, 30), INT32_MIN + (1 << 30));
  assert_int_equal(utvm_wrap_shl(-1, 31), INT32_MIN);
}

static void test_saturating_rounding_doubling_high_mul(void **state) {
  (void)state;
  /* The only overflow: (-1) * (-1) in Q0 saturates. */
  assert_int_equal(utvm_sat_round_doubling_high_mul(INT32_MIN, INT32_MIN), INT32_MAX);
  assert_int_equal(utvm_sat_round_doubling_high_mul(INT32_MAX, INT32_MAX), 2147483646);
  assert_int_equal(utvm_sat_round_doubling_high_mul(INT32_MIN, INT32_MAX), -2147483647);
  assert_int_equal(utvm_sat_round_doubling_high_mul(1 << 30, 1 << 30), 1 << 29);
  /* 1.5 -> 2, -1.5 -> -1, -0.5 -> 0: the nudge rounds halves up. */
  assert_int_equal(utvm_sat_round_doubling_high_mul(3, 1 << 30), 2);
  assert_int_equal(utvm_sat_round_doubling_high_mul(-3, 1 << 30), -1);
  assert_int_equal(utvm_sat_round_doubling_high_mul(-1, 1 << 30), 0);
  assert_int_equal(utvm_sat_round_doubling_high_mul(1, 1 << 30), 1);
  assert_int_equal(utvm_sat_round_doubling_high_mul(0, INT32_MIN), 0);
}

/* gemmlowp's formula as written, for the comparison below. */
static int32_t srdhm_gemmlowp(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) {
    return INT32_MAX;
  }
  const int64_t product = (int64_t)a * (int64_t)b;
  const int64_t nudge = product >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30));
  return (int32_t)((product + nudge) / ((int64_t)1 << 31));
}

/* The shift form equals gemmlowp's truncating one on random and edge operands. */
static void test_sat_round_doubling_high_mul_random(void **state) {
  static const int32_t edges[] = {0, 1, -1, 2, -2, 3, -3, 1 << 30, -(1 << 30), (1 << 30) + 1,
                                  -(1 << 30) - 1, INT32_MAX, INT32_MIN, INT32_MIN + 1,
                                  INT32_MAX - 1, 1 << 15, -(1 << 15), 1 << 16, 46341, -46341};
  uint32_t x = 12345u;
  (void)state;
  for (size_t i = 0u; i < sizeof(edges) / sizeof(edges[0]); i++) {
    for (size_t j = 0u; j < sizeof(edges) / sizeof(edges[0]); j++) {
      assert_int_equal(utvm_sat_round_doubling_high_mul(edges[i], edges[j]),
                       srdhm_gemmlowp(edges[i], edges[j]));
    }
  }
  for (int32_t n = 0; n < 2000000; n++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    const int32_t a = (int32_t)x;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    /* small, mid and full-range second operands */
    const int32_t b = ((n % 3) == 0) ? (int32_t)(x % 65536u) - 32768
                                     : (((n % 3) == 1) ? (int32_t)(x >> 1) : (int32_t)x);
    assert_int_equal(utvm_sat_round_doubling_high_mul(a, b), srdhm_gemmlowp(a, b));
  }
}

/* xorshift32 step. */
static uint32_t next_random(uint32_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 17;
  *x ^= *x << 5;
  return *x;
}

/* The fast paths' requantization table gives utvm_mac_output_s8's bytes: every right shift,
 * edge and random accumulators, biases and multipliers (0, 1, 2^30, INT32_MAX and random),
 * offsets and clamps; a left shift or a negative multiplier makes the block take
 * utvm_mac_output_s8 itself. */
static void test_requant_block_matches_reference(void **state) {
  static const int32_t edges[] = {0, 1, -1, 2, -2, INT32_MAX, INT32_MIN, INT32_MIN + 1,
                                  INT32_MAX - 1, 1 << 30, -(1 << 30), 12345, -12345};
  static const int32_t multipliers[] = {0, 1, 1 << 30, INT32_MAX, 1518500250, 1073741825};
  enum { CHANNELS = 31 };
  int32_t multiplier[CHANNELS];
  int8_t shift[CHANNELS];
  int32_t bias[CHANNELS];
  uint32_t x = 2463534242u;
  utvm_requant_block_t block;
  (void)state;
  for (int32_t round = 0; round < 400; round++) {
    for (int32_t c = 0; c < CHANNELS; c++) {
      const uint32_t r = next_random(&x);
      multiplier[c] = ((round % 4) == 0) ? multipliers[(uint32_t)c % 6u] : (int32_t)(r >> 1);
      shift[c] = (int8_t)(-1 - c); /* -1..-31 */
      bias[c] = ((round % 3) == 0) ? edges[(uint32_t)(c + round) % 13u] : (int32_t)next_random(&x);
    }
    if ((round % 50) == 7) {
      shift[round % CHANNELS] = (int8_t)(round % 5); /* 0..4: a left shift */
    }
    if ((round % 50) == 9) {
      multiplier[round % CHANNELS] = -5;
    }
    const utvm_per_channel_quant_t quant = {multiplier, shift, CHANNELS, NULL};
    const int32_t output_offset = (int32_t)(next_random(&x) % 256u) - 128;
    const int32_t act_min = ((round % 2) == 0) ? -128 : (int32_t)(next_random(&x) % 128u) - 128;
    const int32_t act_max = ((round % 3) == 0) ? 127 : act_min + (int32_t)(next_random(&x) % 128u);
    const int32_t *bias_or_null = ((round % 5) == 0) ? NULL : bias;
    const int32_t first = round % 2;
    const int32_t count = CHANNELS - first;
    utvm_requant_block_fill(&block, &quant, bias_or_null, output_offset, act_min, act_max, first,
                            count);
    assert_true(block.fast == !(((round % 50) == 7) || ((round % 50) == 9)));
    for (int32_t n = 0; n < 4000; n++) {
      const int32_t k = n % count;
      const int32_t acc = (n < 13 * 8) ? edges[(uint32_t)n % 13u] : (int32_t)next_random(&x);
      assert_int_equal(utvm_requant_output(&block, k, acc),
                       utvm_mac_output_s8(acc, bias_or_null, &quant, first + k, output_offset,
                                          act_min, act_max));
    }
  }
}

/* utvm_requant_scale equals RoundingDivideByPOT(SaturatingRoundingDoublingHighMul) for every
 * right shift 0..31, on edge and random values and multipliers >= 0; negative multipliers and
 * shifts outside 0..31 are refused. */
static void test_requant_scale_matches_reference(void **state) {
  static const int32_t edges[] = {0, 1, -1, 2, -2, INT32_MAX, INT32_MIN, INT32_MIN + 1,
                                  INT32_MAX - 1, 1 << 30, -(1 << 30), 255 << 20, -(255 << 20)};
  static const int32_t multipliers[] = {0, 1, 1 << 30, INT32_MAX, 1518500250};
  utvm_requant_scale_t scale;
  uint32_t x = 88172645u;
  (void)state;
  assert_false(utvm_requant_scale_init(&scale, -1, 3));
  assert_false(utvm_requant_scale_init(&scale, 1 << 30, 32));
  assert_false(utvm_requant_scale_init(&scale, 1 << 30, -1));
  for (int32_t right = 0; right <= 31; right++) {
    for (int32_t n = 0; n < 30000; n++) {
      const int32_t m = (n < 65) ? multipliers[n % 5] : (int32_t)(next_random(&x) >> 1);
      const int32_t v = (n < 65) ? edges[n % 13] : (int32_t)next_random(&x);
      assert_true(utvm_requant_scale_init(&scale, m, right));
      assert_int_equal(utvm_requant_scale(v, &scale),
                       utvm_rounding_divide_by_pot(utvm_sat_round_doubling_high_mul(v, m), right));
    }
  }
}

static void test_rounding_divide_by_pot(void **state) {
  (void)state;
  assert_int_equal(utvm_rounding_divide_by_pot(5, 1), 3);   /* 2.5 -> 3 */
  assert_int_equal(utvm_rounding_divide_by_pot(-5, 1), -3); /* -2.5 -> -3 (away from 0) */
  assert_int_equal(utvm_rounding_divide_by_pot(-4, 1), -2);
  assert_int_equal(utvm_rounding_divide_by_pot(-5, 2), -1); /* -1.25 */
  assert_int_equal(utvm_rounding_divide_by_pot(-6, 2), -2); /* -1.5 */
  assert_int_equal(utvm_rounding_divide_by_pot(-7, 2), -2); /* -1.75 */
  assert_int_equal(utvm_rounding_divide_by_pot(6, 2), 2);   /* 1.5 */
  assert_int_equal(utvm_rounding_divide_by_pot(5, 2), 1);   /* 1.25 */
  assert_int_equal(utvm_rounding_divide_by_pot(123, 0), 123);
  assert_int_equal(utvm_rounding_divide_by_pot(INT32_MIN, 31), -1);
  assert_int_equal(utvm_rounding_divide_by_pot(INT32_MAX, 31), 1);
  assert_int_equal(utvm_rounding_divide_by_pot(-(1 << 30), 31), -1); /* -0.5 -> -1 */
  assert_int_equal(utvm_rounding_divide_by_pot((1 << 30) - 1, 31), 0);
}

static void test_multiply_by_quantized_multiplier(void **state) {
  (void)state;
  assert_int_equal(utvm_multiply_by_quantized_multiplier(100, 1 << 30, 1), 100); /* x 1.0 */
  assert_int_equal(utvm_multiply_by_quantized_multiplier(100, 1 << 30, -1), 25);  /* x 0.25 */
  assert_int_equal(utvm_multiply_by_quantized_multiplier(-100, 1 << 30, -3), -6); /* -6.25 */
  assert_int_equal(utvm_multiply_by_quantized_multiplier(-101, 1 << 30, -2), -13); /* -12.625 */
  assert_int_equal(utvm_multiply_by_quantized_multiplier(3, 1 << 30, 4), 24);      /* x 8 */
  assert_int_equal(utvm_multiply_by_quantized_multiplier(INT32_MAX, INT32_MAX, -31), 1);
  assert_int_equal(utvm_multiply_by_quantized_multiplier(12345, 0, 0), 0);
}

static void test_saturating_shl_and_half_sum(void **state) {
  (void)state;
  assert_int_equal(utvm_saturating_shl(1 << 25, 5), 1 << 30);
  assert_int_equal(utvm_saturating_shl(1 << 26, 5), INT32_MAX);
  assert_int_equal(utvm_saturating_shl(-(1 << 26), 5), INT32_MIN);
  assert_int_equal(utvm_saturating_shl(-(1 << 26) + 1, 5), INT32_MIN + 32);
  assert_int_equal(utvm_rounding_half_sum(INT32_MAX, INT32_MAX), INT32_MAX);
  assert_int_equal(utvm_rounding_half_sum(0, INT32_MAX), 1 << 30); /* 1073741823.5 -> up */
  assert_int_equal(utvm_rounding_half_sum(-3, 0), -2);             /* -1.5 -> -2 */
  assert_int_equal(utvm_count_leading_zeros_u64(0), 64);
  assert_int_equal(utvm_count_leading_zeros_u64(1), 63);
  assert_int_equal(utvm_count_leading_zeros_u64(UINT64_MAX), 0);
}

/* |actual - real * 2^31| within tolerance raw units. */
static void assert_q0_near(int32_t actual, double real, double tolerance) {
  const double expected = real * 2147483648.0;
  if (fabs((double)actual - expected) > tolerance) {
    fail_msg("Q0 value %d, expected about %.1f", actual, expected);
  }
}

static void test_exp_on_negative_values(void **state) {
  (void)state;
  assert_int_equal(utvm_exp_on_negative_values(0, 5), INT32_MAX);
  for (int32_t k = 1; k < 200; ++k) {
    const double x = -(double)k / 8.0; /* down to -25 */
    const int32_t q5 = (int32_t)(x * (double)(1 << 26));
    assert_q0_near(utvm_exp_on_negative_values(q5, 5), exp(x), 2e-6 * 2147483648.0);
    if (x > -16.0) {
      const int32_t q4 = (int32_t)(x * (double)(1 << 27));
      assert_q0_near(utvm_exp_on_negative_values(q4, 4), exp(x), 2e-6 * 2147483648.0);
    }
  }
}

static void test_reciprocals(void **state) {
  (void)state;
  for (int32_t k = 0; k < 64; ++k) {
    const double x = (double)k / 64.0;
    const int32_t q0 = (int32_t)(x * 2147483648.0);
    assert_q0_near(utvm_one_over_one_plus_x_q0(q0), 1.0 / (1.0 + x), 64.0);
    assert_q0_near(utvm_one_minus_x_over_one_plus_x_q0(q0), (1.0 - x) / (1.0 + x), 64.0);
  }
}

static void test_logistic_and_tanh(void **state) {
  (void)state;
  assert_int_equal(utvm_logistic_q4(0), 1 << 30);
  assert_int_equal(utvm_tanh_q4(0), 0);
  for (int32_t k = -120; k <= 120; ++k) {
    const double x = (double)k / 8.0; /* -15 .. 15 */
    const int32_t q4 = (int32_t)(x * (double)(1 << 27));
    assert_q0_near(utvm_logistic_q4(q4), 1.0 / (1.0 + exp(-x)), 2e-6 * 2147483648.0);
    assert_q0_near(utvm_tanh_q4(q4), tanh(x), 4e-6 * 2147483648.0);
  }
  /* Odd and complementary symmetry, exactly. */
  const int32_t q4 = 123456789;
  assert_int_equal(utvm_tanh_q4(-q4), -utvm_tanh_q4(q4));
  assert_int_equal(utvm_logistic_q4(-q4), INT32_MAX - utvm_logistic_q4(q4));
}

static void test_quantize_multiplier_edges(void **state) {
  (void)state;
  static const struct {
    double real;
    int32_t multiplier;
    int32_t shift;
  } cases[] = {
      {0.0, 0, 0},
      {1.0, 1 << 30, 1},
      {0.5, 1 << 30, 0},
      {0.25, 1 << 30, -1},
      {3.0, 1610612736, 2},
      {-0.75, -1610612736, 0},
      {0.5 + 0x1p-32, 1073741825, 0},      /* q * 2^31 = 2^30 + 0.5: rounds away from 0 */
      {-(0.5 + 0x1p-32), -1073741825, 0},
      {1.0 - 0x1p-33, 1 << 30, 1},         /* rounds up to 2^31: halved, shift + 1 */
      {0x1p-32, 1 << 30, -31},             /* smallest kept */
      {0x1p-33, 0, 0},                     /* shift < -31: flushed to zero */
      {0x1p40, 1 << 30, 41},               /* not clamped to 30 (double-rounding build) */
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    int32_t multiplier = -1;
    int32_t shift = -1;
    assert_int_equal(utvm_quantize_multiplier(cases[i].real, &multiplier, &shift), UTVM_OK);
    assert_int_equal(multiplier, cases[i].multiplier);
    assert_int_equal(shift, cases[i].shift);
  }
  int32_t multiplier;
  int32_t shift;
  assert_int_equal(utvm_quantize_multiplier(INFINITY, &multiplier, &shift),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_quantize_multiplier(NAN, &multiplier, &shift), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_quantize_multiplier(1.0, NULL, &shift), UTVM_ERR_KERNEL_BAD_PARAM);
}

/* The 64-bit MultiplyByQuantizedMultiplier of the int16x8 layers, worked by hand from TFLite's
 * formula: multiplier rounded to 16 bits (0x7FFF from 0x7FFF0000 up), one rounding shift of
 * 15 - shift bits; x bounded to +-2^47. */
static void test_multiply_by_quantized_multiplier_64(void **state) {
  (void)state;
  /* reduced 0x7FFF, (1000 * 32767 + 2^15) >> 16 = 500 */
  assert_int_equal(utvm_multiply_by_quantized_multiplier_64(1000, 0x7FFF8000, -1), 500);
  /* reduced 2^14, (-3 * 2^14 + 2^14) >> 15 = -1 (floor) */
  assert_int_equal(utvm_multiply_by_quantized_multiplier_64(-3, 1 << 30, 0), -1);
  /* reduced (0x40008000 + 2^15) >> 16 = 0x4001: (10 * 0x4001 + 2^14) >> 15 = 5 */
  assert_int_equal(utvm_multiply_by_quantized_multiplier_64(10, 0x40008000, 0), 5);
  /* shift 7 (the largest): total 8, (100 * 2^14 + 2^7) >> 8 = 6400 */
  assert_int_equal(utvm_multiply_by_quantized_multiplier_64(100, 1 << 30, 7), 6400);
  /* x beyond 2^47 is bounded: (2^47 - 1) * 2^14 >> 46 (shift -31) = 2^15 - 1 rounded: 32768 */
  assert_int_equal(utvm_multiply_by_quantized_multiplier_64((int64_t)1 << 60, 1 << 30, -31),
                   utvm_multiply_by_quantized_multiplier_64(((int64_t)1 << 47) - 1, 1 << 30,
                                                            -31));
  assert_int_equal(utvm_multiply_by_quantized_multiplier_64(-((int64_t)1 << 60), 1 << 30, -31),
                   -32768);
}

/* TFLite's inverse square root multiplier: 0 and 1 special, every other input within 2e-6
 * of 1/sqrt(x) (five Newton steps from 1.0 leave ~1.2e-6 at normalised inputs near 2^27),
 * shifts <= 0, up to INT32_MAX. */
static void test_inv_sqrt_multiplier(void **state) {
  (void)state;
  int32_t multiplier = 0;
  int32_t shift = 1;
  utvm_inv_sqrt_multiplier(0, &multiplier, &shift);
  assert_int_equal(multiplier, INT32_MAX);
  assert_int_equal(shift, 0);
  utvm_inv_sqrt_multiplier(1, &multiplier, &shift);
  assert_int_equal(multiplier, INT32_MAX);
  assert_int_equal(shift, 0);
  static const int32_t inputs[] = {2, 3, 4, 5, 127, 255, 256, 1000, 65025, 1 << 20,
                                   (1 << 29) - 1, 1 << 29, 1 << 30, INT32_MAX};
  for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); ++i) {
    utvm_inv_sqrt_multiplier(inputs[i], &multiplier, &shift);
    assert_true(shift <= 0);
    assert_true(multiplier > 0);
    const double got = (double)multiplier * ldexp(1.0, shift - 31);
    const double want = 1.0 / sqrt((double)inputs[i]);
    assert_true(fabs(got - want) <= 2e-6 * want);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_wrapping),
      cmocka_unit_test(test_saturating_rounding_doubling_high_mul),
      cmocka_unit_test(test_sat_round_doubling_high_mul_random),
      cmocka_unit_test(test_requant_block_matches_reference),
      cmocka_unit_test(test_requant_scale_matches_reference),
      cmocka_unit_test(test_rounding_divide_by_pot),
      cmocka_unit_test(test_multiply_by_quantized_multiplier),
      cmocka_unit_test(test_saturating_shl_and_half_sum),
      cmocka_unit_test(test_exp_on_negative_values),
      cmocka_unit_test(test_reciprocals),
      cmocka_unit_test(test_logistic_and_tanh),
      cmocka_unit_test(test_inv_sqrt_multiplier),
      cmocka_unit_test(test_quantize_multiplier_edges),
      cmocka_unit_test(test_multiply_by_quantized_multiplier_64),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The int8-input SOFTMAX of TFLite (internal; reference_ops::Softmax for int8: exponentials of
 * the scaled differences to the row maximum in gemmlowp fixed point, Q12 sum, fixed-point
 * reciprocal), for int8 or int16 outputs. Each output type has its own file
 * (softmax_s8.c, softmax_s8_s16.c), so that an image links only the one it calls and the
 * compiler folds the output width into it.
 */
#ifndef UTVM_KERNELS_SOFTMAX_ROWS_H
#define UTVM_KERNELS_SOFTMAX_ROWS_H

#include "fixed_point.h"
#include "utvm/kernels.h"

/* Integer bits of the scaled differences and of the sum of exponentials (TFLite's). */
#define SOFTMAX_DIFF_INTEGER_BITS 5
#define SOFTMAX_SUM_INTEGER_BITS 12

/* exp(input - row_max) in Q0, or -1 if the difference is below diff_min (output -128). */
static inline int32_t softmax_exp(const utvm_softmax_params_t *params, int32_t diff) {
  if (diff < params->diff_min) {
    return -1;
  }
  const int32_t scaled = utvm_sat_round_doubling_high_mul(
      utvm_wrap_shl(diff, params->input_left_shift), params->input_multiplier);
  return utvm_exp_on_negative_values(scaled, SOFTMAX_DIFF_INTEGER_BITS);
}

/* The softmax of rows x depth int8 inputs into int8 (out8) or int16 (out16) outputs of bits. */
static inline utvm_err_t softmax_rows(const utvm_softmax_params_t *params, int32_t rows, int32_t depth,
                               const int8_t *input, int32_t bits, int8_t *out8,
                               int16_t *out16) {
  if (params == NULL || input == NULL || params->input_left_shift < 0 ||
      params->input_left_shift > 31 || params->diff_min > 0) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (rows < 1 || depth < 1 || (int64_t)rows * depth > INT32_MAX) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  const int32_t out_min = (bits == 8) ? INT8_MIN : INT16_MIN;
  const int32_t out_max = (bits == 8) ? INT8_MAX : INT16_MAX;
  for (int32_t row = 0; row < rows; ++row) {
    const int8_t *in = input + row * depth;
    int32_t row_max = INT8_MIN;
    for (int32_t c = 0; c < depth; ++c) {
      row_max = utvm_max_s32(row_max, in[c]);
    }
    int32_t sum_of_exps = 0; /* Q12 */
    for (int32_t c = 0; c < depth; ++c) {
      const int32_t exp_q0 = softmax_exp(params, in[c] - row_max);
      if (exp_q0 >= 0) {
        sum_of_exps = utvm_wrap_add(sum_of_exps,
                                    utvm_rounding_divide_by_pot(exp_q0, SOFTMAX_SUM_INTEGER_BITS));
      }
    }
    if (sum_of_exps <= 0) {
      return UTVM_ERR_KERNEL_BAD_SHAPE; /* wrapped: the row is far too long */
    }
    /* GetReciprocal: sum = 2^bits_over_unit * (1 + x) with x in [0, 1). */
    const int32_t headroom_plus_one =
        utvm_count_leading_zeros_u64((uint64_t)(uint32_t)sum_of_exps) - 32;
    const int32_t bits_over_unit = SOFTMAX_SUM_INTEGER_BITS - headroom_plus_one;
    const int32_t exponent = bits_over_unit + 31 - bits;
    if (exponent > 31) {
      return UTVM_ERR_KERNEL_BAD_SHAPE; /* TFLite's check: the sum reached 512 */
    }
    const int32_t sum_minus_one =
        (int32_t)(((uint32_t)sum_of_exps << (uint32_t)headroom_plus_one) - ((uint32_t)1 << 31));
    const int32_t reciprocal = utvm_one_over_one_plus_x_q0(sum_minus_one);
    for (int32_t c = 0; c < depth; ++c) {
      const int32_t exp_q0 = softmax_exp(params, in[c] - row_max);
      int32_t value = out_min;
      if (exp_q0 >= 0) {
        const int32_t unsaturated = utvm_rounding_divide_by_pot(
            utvm_sat_round_doubling_high_mul(reciprocal, exp_q0), exponent);
        value = utvm_clamp_s32(unsaturated + out_min, out_min, out_max);
      }
      if (bits == 8) {
        out8[row * depth + c] = (int8_t)value;
      } else {
        out16[row * depth + c] = (int16_t)value;
      }
    }
  }
  return UTVM_OK;
}

#endif /* UTVM_KERNELS_SOFTMAX_ROWS_H */

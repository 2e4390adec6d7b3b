/*
 * The DSP fast paths of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED (src/kernels/fast_s8_dsp.c)
 * compiled on the
 * host with the emulated intrinsics of dsp_s8.h: the intrinsics on hand-computed values, then
 * thousands of random layers compared byte for byte with the portable loops.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

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
  assert_int_equal(result.fc_cases, 3000);
  assert_int_equal(result.add_cases, 3000);
  assert_true(result.conv_pointwise > 500);
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_emulated_intrinsics),
      cmocka_unit_test(test_random_layers_bit_exact),
      cmocka_unit_test(test_scratch_size),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

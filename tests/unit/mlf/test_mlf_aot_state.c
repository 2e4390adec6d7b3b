/*
 * The AOT archive of an operator with state (shared/models/ops2's int8 LSTM, module "lstm")
 * linked into a test program: its first run from the archive's starting state is bit-exact with
 * TFLM, and the state (writable, updated in place by the operator) carries over to the next run,
 * as TFLM's does until it is reset.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "crt_test_support.h"
#include "mlf_test.h"
#include "utvm/crt.h"

#define CASE UTVM_SHARED_DIR "/models/ops2/lstm_b1_t4_in3_cell5_i8"
#define INPUT_BYTES 12u
#define OUTPUT_BYTES 20u

static uint8_t tensor_arena[16u * 1024u] __attribute__((aligned(64)));
static uint8_t workspace_arena[16u * 1024u] __attribute__((aligned(64)));
static utvm_crt_t crt;

static int setup(void **state) {
  (void)state;
  fake_platform_reset();
  utvm_crt_config_t config = {tensor_arena, sizeof(tensor_arena), workspace_arena,
                              sizeof(workspace_arena), TVMSystemLibEntryPoint(), NULL};
  return (utvm_crt_init(&crt, &config) == UTVM_OK) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  utvm_crt_shutdown(&crt);
  return 0;
}

static void test_state_carries_over(void **state) {
  (void)state;
  uint8_t input[INPUT_BYTES];
  uint8_t expected[OUTPUT_BYTES];
  uint8_t first[OUTPUT_BYTES];
  uint8_t second[OUTPUT_BYTES];
  assert_int_equal(mlf_read_file(CASE "_in0.bin", input, sizeof(input)), INPUT_BYTES);
  assert_int_equal(mlf_read_file(CASE "_out0.tflm.bin", expected, sizeof(expected)), OUTPUT_BYTES);
  int64_t in_shape[3] = {1, 4, 3};
  int64_t out_shape[3] = {1, 4, 5};
  DLTensor tensors[2];
  TVMValue args[2] = {{.v_handle = &tensors[0]}, {.v_handle = &tensors[1]}};
  int codes[2] = {kTVMDLTensorHandle, kTVMDLTensorHandle};
  TVMValue ret;
  int code = 0;
  TVMFunctionHandle run = mlf_function("tvmgen_lstm_run");
  mlf_set_tensor(&tensors[0], input, in_shape, 3, kDLInt, 8);
  mlf_set_tensor(&tensors[1], first, out_shape, 3, kDLInt, 8);
  assert_int_equal(TVMFuncCall(run, args, codes, 2, &ret, &code), 0);
  assert_memory_equal(first, expected, OUTPUT_BYTES);
  mlf_set_tensor(&tensors[1], second, out_shape, 3, kDLInt, 8);
  assert_int_equal(TVMFuncCall(run, args, codes, 2, &ret, &code), 0);
  assert_memory_not_equal(second, expected, OUTPUT_BYTES); /* started from the first's state */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_state_carries_over, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The AOT Model Library Format archive of `utvm compile --mlf --executor aot` for KWS, linked
 * into this program (utvm_add_mlf_from_model): its metadata describes the model, and
 * tvmgen_default_run, called through the TVM C API with the reference input, gives TensorFlow
 * Lite Micro's output byte for byte; bad calls fail with a message.
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
#include "tvm/runtime/metadata_types.h"
#include "utvm/crt.h"

#define KWS_INPUT UTVM_SHARED_DIR "/models/refdata/mlperf_tiny/kws_input0_int8.bin"
#define KWS_OUTPUT UTVM_SHARED_DIR "/models/refdata/mlperf_tiny/kws_input0_int8_tflm.out0.bin"
#define KWS_INPUT_BYTES 490u
#define KWS_OUTPUT_BYTES 12u

static uint8_t tensor_arena[64u * 1024u] __attribute__((aligned(64)));
static uint8_t workspace_arena[64u * 1024u] __attribute__((aligned(64)));
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

static void test_metadata_describes_kws(void **state) {
  (void)state;
  TVMValue ret;
  int code = 0;
  assert_int_equal(TVMFuncCall(mlf_function("tvmgen_default_get_c_metadata"), NULL, NULL, 0, &ret,
                               &code), 0);
  assert_int_equal(code, kTVMOpaqueHandle);
  const struct TVMMetadata *m = (const struct TVMMetadata *)ret.v_handle;
  assert_int_equal(m->version, TVM_METADATA_VERSION);
  assert_string_equal(m->mod_name, "tvmgen_default");
  assert_int_equal(m->num_inputs, 1);
  assert_int_equal(m->num_outputs, 1);
  assert_string_equal(m->inputs[0].name, "input0");
  assert_int_equal(m->inputs[0].num_shape, 4);
  assert_int_equal(m->inputs[0].shape[1], 49);
  assert_int_equal(m->inputs[0].shape[2], 10);
  assert_int_equal(m->inputs[0].dtype.code, kDLInt);
  assert_int_equal(m->inputs[0].dtype.bits, 8);
  assert_int_equal(m->outputs[0].shape[m->outputs[0].num_shape - 1], 12);
}

static void test_run_is_bit_exact(void **state) {
  (void)state;
  static uint8_t input[KWS_INPUT_BYTES];
  static uint8_t expected[KWS_OUTPUT_BYTES];
  uint8_t output[KWS_OUTPUT_BYTES];
  assert_int_equal(mlf_read_file(KWS_INPUT, input, sizeof(input)), KWS_INPUT_BYTES);
  assert_int_equal(mlf_read_file(KWS_OUTPUT, expected, sizeof(expected)), KWS_OUTPUT_BYTES);
  int64_t in_shape[4] = {1, 49, 10, 1};
  int64_t out_shape[2] = {1, 12};
  DLTensor tensors[2];
  mlf_set_tensor(&tensors[0], input, in_shape, 4, kDLInt, 8);
  mlf_set_tensor(&tensors[1], output, out_shape, 2, kDLInt, 8);
  TVMValue args[2] = {{.v_handle = &tensors[0]}, {.v_handle = &tensors[1]}};
  int codes[2] = {kTVMDLTensorHandle, kTVMNDArrayHandle};
  TVMValue ret;
  int code = 0;
  TVMFunctionHandle run = mlf_function("tvmgen_default_run");
  for (int round = 0; round < 2; round++) { /* twice: the pool is released and reused */
    (void)memset(output, 0x55, sizeof(output));
    assert_int_equal(TVMFuncCall(run, args, codes, 2, &ret, &code), 0);
    assert_memory_equal(output, expected, KWS_OUTPUT_BYTES);
  }
  assert_int_equal(utvm_stack_used_bytes(&crt.workspace), 0u);
}

static void test_bad_calls_fail_with_a_message(void **state) {
  (void)state;
  uint8_t data[KWS_INPUT_BYTES];
  int64_t shape[1] = {KWS_INPUT_BYTES};
  DLTensor t;
  mlf_set_tensor(&t, data, shape, 1, kDLInt, 8);
  TVMValue args[2] = {{.v_handle = &t}, {.v_int64 = 3}};
  int codes[2] = {kTVMDLTensorHandle, kDLInt};
  TVMValue ret;
  int code = 0;
  TVMFunctionHandle run = mlf_function("tvmgen_default_run");
  assert_int_equal(TVMFuncCall(run, args, codes, 1, &ret, &code), -1);
  assert_non_null(strstr(TVMGetLastError(), "wrong number of tensors"));
  assert_int_equal(TVMFuncCall(run, args, codes, 2, &ret, &code), -1);
  assert_non_null(strstr(TVMGetLastError(), "not a tensor"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_metadata_describes_kws),
      cmocka_unit_test(test_run_is_bit_exact),
      cmocka_unit_test(test_bad_calls_fail_with_a_message),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

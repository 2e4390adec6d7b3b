/*
 * The AOT Model Library Format archive of `utvm compile --mlf --executor aot` for the float32
 * KWS (tests/data/tflm_float/kws_dscnn_f32.tflite: CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D,
 * RESHAPE, FULLY_CONNECTED and SOFTMAX through the float32 kernel functions), linked into this
 * program: its metadata gives float32 tensors, and tvmgen_f32_run gives TensorFlow Lite
 * Micro's output byte for byte on the case's 4 inputs.
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

#define KWS_F32_INPUT_BYTES 1960u /* float32 [1,49,10,1] */
#define KWS_F32_OUTPUT_BYTES 48u  /* float32 [1,12] */

static uint8_t tensor_arena[128u * 1024u] __attribute__((aligned(64)));
static uint8_t workspace_arena[128u * 1024u] __attribute__((aligned(64)));
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

static void test_metadata_is_float32(void **state) {
  (void)state;
  TVMValue ret;
  int code = 0;
  assert_int_equal(TVMFuncCall(mlf_function("tvmgen_f32_get_c_metadata"), NULL, NULL, 0, &ret,
                               &code), 0);
  const struct TVMMetadata *m = (const struct TVMMetadata *)ret.v_handle;
  assert_int_equal(m->num_inputs, 1);
  assert_int_equal(m->num_outputs, 1);
  assert_int_equal(m->inputs[0].dtype.code, kDLFloat);
  assert_int_equal(m->inputs[0].dtype.bits, 32);
  assert_int_equal(m->outputs[0].dtype.code, kDLFloat);
  assert_int_equal(m->outputs[0].shape[m->outputs[0].num_shape - 1], 12);
}

static void set_tensor(DLTensor *t, void *data, int64_t *shape, int32_t ndim) {
  (void)memset(t, 0, sizeof(*t));
  t->data = data;
  t->device.device_type = kDLCPU;
  t->ndim = ndim;
  t->dtype.code = kDLFloat;
  t->dtype.bits = 32;
  t->dtype.lanes = 1;
  t->shape = shape;
}

static void test_runs_are_bit_exact(void **state) {
  (void)state;
  static float input[KWS_F32_INPUT_BYTES / 4u];
  static float expected[KWS_F32_OUTPUT_BYTES / 4u];
  float output[KWS_F32_OUTPUT_BYTES / 4u];
  int64_t in_shape[4] = {1, 49, 10, 1};
  int64_t out_shape[2] = {1, 12};
  DLTensor tensors[2];
  set_tensor(&tensors[0], input, in_shape, 4);
  set_tensor(&tensors[1], output, out_shape, 2);
  TVMValue args[2] = {{.v_handle = &tensors[0]}, {.v_handle = &tensors[1]}};
  int codes[2] = {kTVMDLTensorHandle, kTVMNDArrayHandle};
  TVMValue ret;
  int code = 0;
  TVMFunctionHandle run = mlf_function("tvmgen_f32_run");
  for (int k = 0; k < 4; k++) {
    char in_file[256];
    char out_file[256];
    (void)snprintf(in_file, sizeof(in_file), "%s/kws_dscnn_f32_in%d.bin", UTVM_TFLM_FLOAT_DIR,
                   k);
    (void)snprintf(out_file, sizeof(out_file), "%s/kws_dscnn_f32_out%d.tflm.bin",
                   UTVM_TFLM_FLOAT_DIR, k);
    assert_int_equal(mlf_read_file(in_file, (uint8_t *)(void *)input, sizeof(input)),
                     KWS_F32_INPUT_BYTES);
    assert_int_equal(mlf_read_file(out_file, (uint8_t *)(void *)expected, sizeof(expected)),
                     KWS_F32_OUTPUT_BYTES);
    (void)memset(output, 0x55, sizeof(output));
    assert_int_equal(TVMFuncCall(run, args, codes, 2, &ret, &code), 0);
    assert_memory_equal(output, expected, KWS_F32_OUTPUT_BYTES);
  }
  assert_int_equal(utvm_stack_used_bytes(&crt.workspace), 0u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_metadata_is_float32),
      cmocka_unit_test(test_runs_are_bit_exact),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

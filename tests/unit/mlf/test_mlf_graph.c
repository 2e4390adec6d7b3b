/*
 * The graph-executor Model Library Format archive of `utvm compile --mlf` for IC (ResNet-8),
 * linked into this program (utvm_add_mlf_from_model): the system library holds one function per
 * operator (tvmgen_default_fused_*), the graph JSON and parameters are embedded
 * (utvm_mlf_default.h), and the graph executor's C API runs it bit-exact with TFLM.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "crt_test_support.h"
#include "utvm/graph.h"
#include "utvm_mlf_default.h"

#define IC_INPUT UTVM_SHARED_DIR "/models/refdata/mlperf_tiny/ic_input0_int8.bin"
#define IC_OUTPUT UTVM_SHARED_DIR "/models/refdata/mlperf_tiny/ic_input0_int8_tflm.out0.bin"
#define IC_INPUT_BYTES 3072u
#define IC_OUTPUT_BYTES 10u

static uint8_t tensor_arena[64u * 1024u] __attribute__((aligned(64)));
static uint8_t workspace_arena[64u * 1024u] __attribute__((aligned(64)));
static uint8_t executor_memory[512u * 1024u];
static utvm_crt_t crt;

static size_t read_file(const char *path, uint8_t *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  size_t n = fread(buf, 1u, cap, f);
  (void)fclose(f);
  return n;
}

static TVMModuleHandle system_lib(void) {
  TVMFunctionHandle get_lib = NULL;
  TVMValue ret;
  int code = 0;
  assert_int_equal(TVMFuncGetGlobal("runtime.SystemLib", &get_lib), 0);
  assert_int_equal(TVMFuncCall(get_lib, NULL, NULL, 0, &ret, &code), 0);
  return ret.v_handle;
}

static void test_graph_archive_runs_bit_exact(void **state) {
  (void)state;
  fake_platform_reset();
  utvm_crt_config_t config = {tensor_arena, sizeof(tensor_arena), workspace_arena,
                              sizeof(workspace_arena), TVMSystemLibEntryPoint(), NULL};
  assert_int_equal(utvm_crt_init(&crt, &config), UTVM_OK);
  const char *json = (const char *)utvm_mlf_default_graph;
  size_t json_len = (size_t)(utvm_mlf_default_graph_end - utvm_mlf_default_graph);
  utvm_graph_t g;
  assert_int_equal(utvm_graph_memory_size(&g, json, json_len), UTVM_OK);
  assert_true(g.memory_size <= sizeof(executor_memory));
  assert_int_equal(utvm_graph_init(&g, json, json_len, system_lib(), executor_memory,
                                   sizeof(executor_memory)), UTVM_OK);
  assert_int_equal(utvm_graph_load_params(&g, utvm_mlf_default_params,
                                          (size_t)(utvm_mlf_default_params_end -
                                                   utvm_mlf_default_params)), UTVM_OK);
  static uint8_t expected[IC_OUTPUT_BYTES];
  DLTensor *in = NULL;
  DLTensor *out = NULL;
  int32_t input = utvm_graph_input_index(&g, "input0");
  assert_true(input >= 0);
  assert_int_equal(utvm_graph_input(&g, (uint32_t)input, &in), UTVM_OK);
  assert_int_equal(read_file(IC_INPUT, (uint8_t *)in->data, IC_INPUT_BYTES), IC_INPUT_BYTES);
  assert_int_equal(read_file(IC_OUTPUT, expected, sizeof(expected)), IC_OUTPUT_BYTES);
  assert_int_equal(utvm_graph_run(&g), UTVM_OK);
  assert_int_equal(utvm_graph_output(&g, 0u, &out), UTVM_OK);
  assert_memory_equal(out->data, expected, IC_OUTPUT_BYTES);
  assert_int_equal(utvm_stack_used_bytes(&crt.workspace), 0u);
  utvm_crt_shutdown(&crt);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_graph_archive_runs_bit_exact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The graph-executor Model Library Format archive of `utvm compile --mlf` for IC (ResNet-8),
 * linked into this program (utvm_add_mlf_from_model): the system library holds one function per
 * operator (tvmgen_default_fused_*), the graph JSON and parameters are embedded
 * (utvm_mlf_default.h), and the graph executor's C API runs it bit-exact with TFLM. The same
 * archive emitted as standalone code (ic_mlf.h: packed calls of the archive's functions), and
 * KWS's generic graph JSON + parameters emitted as standalone code (kws_json.h: direct kernel
 * calls), each run through the ai_ API bit-exact in exactly their activations size.
 */
#define _POSIX_C_SOURCE 200112L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "crt_test_support.h"
#include "graph_check.h"
#include "mlf_test.h"
#include "ic_mlf.h"
#include "kws_json.h"
#include "utvm/ai.h"
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
  assert_int_equal(utvm_graph_init(&g, json, json_len, mlf_system_lib(), executor_memory,
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
  assert_int_equal(mlf_read_file(IC_INPUT, (uint8_t *)in->data, IC_INPUT_BYTES), IC_INPUT_BYTES);
  assert_int_equal(mlf_read_file(IC_OUTPUT, expected, sizeof(expected)), IC_OUTPUT_BYTES);
  /* TVM's operator functions (tvmgen_default_fused_*): 64-byte entries; the layout is sound;
   * the input set once gives the same output on every run. */
  char why[160];
  assert_int_equal(g.storage_alignment, UTVM_GRAPH_STORAGE_ALIGNMENT);
  if (graph_check_layout(&g, executor_memory, g.memory_size, NULL, why, sizeof(why)) != 0) {
    fail_msg("layout: %s", why);
  }
  (void)printf("IC graph archive: executor memory %zu B (storage block %zu B, shared part %zu B)\n",
               g.memory_size, g.arena_size, g.io_offset);
  for (int run = 0; run < 2; run++) {
    assert_int_equal(utvm_graph_run(&g), UTVM_OK);
    assert_int_equal(utvm_graph_output(&g, 0u, &out), UTVM_OK);
    assert_memory_equal(out->data, expected, IC_OUTPUT_BYTES);
  }
  assert_int_equal(utvm_stack_used_bytes(&crt.workspace), 0u);
  utvm_crt_shutdown(&crt);
}

/* Runs a standalone model on exact-size heap blocks and compares output 0 with TFLM's. */
static void run_standalone(const ai_model *m, const char *input, const char *output) {
  static uint8_t expected[64];
  void *act = NULL;
  void *in = NULL;
  void *out = NULL;
  ai_handle h = NULL;
  assert_int_equal(posix_memalign(&act, 16u, m->activations_size), 0);
  assert_int_equal(posix_memalign(&in, 16u, m->inputs[0].bytes), 0);
  assert_int_equal(posix_memalign(&out, 16u, m->outputs[0].bytes), 0);
  assert_int_equal(ai_create(m, act, m->activations_size, &h), UTVM_OK);
  assert_int_equal(ai_set_input(h, 0u, in, m->inputs[0].bytes), UTVM_OK);
  assert_int_equal(ai_set_output(h, 0u, out, m->outputs[0].bytes), UTVM_OK);
  assert_int_equal(mlf_read_file(input, (uint8_t *)in, m->inputs[0].bytes), m->inputs[0].bytes);
  assert_int_equal(ai_run(h), UTVM_OK);
  assert_int_equal(mlf_read_file(output, expected, sizeof(expected)), m->outputs[0].bytes);
  assert_memory_equal(out, expected, m->outputs[0].bytes);
  assert_int_equal(ai_destroy(h), UTVM_OK);
  free(act);
  free(in);
  free(out);
}

static void test_archive_as_standalone_code(void **state) {
  (void)state;
  fake_platform_reset();
  utvm_crt_config_t config = {tensor_arena, sizeof(tensor_arena), workspace_arena,
                              sizeof(workspace_arena), TVMSystemLibEntryPoint(), NULL};
  assert_int_equal(utvm_crt_init(&crt, &config), UTVM_OK); /* the functions' workspace */
  assert_string_equal(ai_model_ic_mlf.model_name, "test_mlf_graph_mlperf_tiny_ic_resnet8_int8_graph.tar");
  assert_int_equal(ai_model_ic_mlf.n_nodes, 16u);
  assert_int_equal(ai_model_ic_mlf.inputs[0].scale, 0.0f); /* a graph has no quantization */
  assert_string_equal(ai_model_ic_mlf.inputs[0].name, "input0");
  run_standalone(&ai_model_ic_mlf, IC_INPUT, IC_OUTPUT);
  utvm_crt_shutdown(&crt);
}

static void test_graph_json_as_standalone_code(void **state) {
  (void)state;
  assert_int_equal(AI_kws_json_NODES, 13u);
  /* the graph's in-place convolutions (kinds 59, 60) planned over their inputs: 16000 B
   * without them */
  assert_int_equal(AI_kws_json_ACTIVATIONS_SIZE, 10240u);
  run_standalone(&ai_model_kws_json, UTVM_SHARED_DIR "/models/refdata/mlperf_tiny/kws_input0_int8.bin",
                 UTVM_SHARED_DIR "/models/refdata/mlperf_tiny/kws_input0_int8_tflm.out0.bin");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_graph_archive_runs_bit_exact),
      cmocka_unit_test(test_archive_as_standalone_code),
      cmocka_unit_test(test_graph_json_as_standalone_code),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

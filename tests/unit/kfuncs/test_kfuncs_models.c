/*
 * Every model the runner tests run (shared/models/ops: 32 cases, 64 pairs; shared/models
 * refdata: 8 models, 16 pairs; the operator case sets ops2 and tflm), compiled by
 * utvm_host_compile_generic and executed in this process through the kernel functions of the
 * system library (graph_exec.h, the host-driven path), must give TFLM's outputs byte for byte.
 * Also checks the graph's invariants: storage ids never shared by two live entries, every
 * parameter in the blob.
 *
 * Every model also runs through the device's graph executor (utvm/graph.h: the graph JSON, the
 * parameter blob, the system library's module) in the least memory (plan_memory_size, then the
 * exact figure, as tvm.graph_executor.create does): bit-exact too, twice in a row with the
 * inputs set once (stateless models), its planned layout checked (graph_check.h). The table
 * gives its storage next to the runner's arena: "graph" = the shared part of the planned block
 * (activations and outputs, g.io_offset) + the model inputs + the state tensors (SVDF, LSTM),
 * each rounded to the graph's storage alignment (16: kernel functions only); parameters (weights, op params) are left out as
 * the runner's constants are (they stay in the model's bytes). "io sep" = the runner's arena
 * with its inputs and outputs apart (UTVM_MODEL_PLAN_IO_SEPARATE), counted the same way: every
 * model input, output and state tensor has bytes no activation shares at the same time;
 * "shared" = the runner's default arena (an output may reuse an input's bytes). For the 7
 * models of shared/models, graph <= 1.05 x io sep is asserted.
 */
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
#include "graph_exec.h"
#include "runner_op_case_pairs.h"
#include "runner_pairs.h"
#include "runner_test_util.h"
#include "test_syslib.h"
#include "utvm/graph.h"
#include "utvm/host_compile.h"

typedef struct {
  const char *model;
  const char *inputs[4];
  const char *outputs[4];
} ref_model_t;

static const ref_model_t ref_models[] = {
    {"person_detect_int8.tflite",
     {"refdata/person_detection/person_input_int8.bin",
      "refdata/person_detection/no_person_input_int8.bin", NULL, NULL},
     {"refdata/person_detection/person_tflm.out0.bin",
      "refdata/person_detection/no_person_tflm.out0.bin", NULL, NULL}},
    {"micro_speech_int8.tflite",
     {"refdata/micro_speech/yes_1000ms_features_int8.bin",
      "refdata/micro_speech/no_1000ms_features_int8.bin",
      "refdata/micro_speech/silence_1000ms_features_int8.bin",
      "refdata/micro_speech/noise_1000ms_features_int8.bin"},
     {"refdata/micro_speech/yes_1000ms_tflm.out0.bin", "refdata/micro_speech/no_1000ms_tflm.out0.bin",
      "refdata/micro_speech/silence_1000ms_tflm.out0.bin",
      "refdata/micro_speech/noise_1000ms_tflm.out0.bin"}},
    {"hello_world_int8.tflite",
     {"refdata/hello_world/in_-96.bin", "refdata/hello_world/in_-63.bin",
      "refdata/hello_world/in_-34.bin", "refdata/hello_world/in_0.bin"},
     {"refdata/hello_world/tflm_in_-96.out0.bin", "refdata/hello_world/tflm_in_-63.out0.bin",
      "refdata/hello_world/tflm_in_-34.out0.bin", "refdata/hello_world/tflm_in_0.out0.bin"}},
    {"mlperf_tiny_kws_dscnn_int8.tflite",
     {"refdata/mlperf_tiny/kws_input0_int8.bin", NULL, NULL, NULL},
     {"refdata/mlperf_tiny/kws_input0_int8_tflm.out0.bin", NULL, NULL, NULL}},
    {"mlperf_tiny_vww_mobilenetv1_int8.tflite",
     {"refdata/mlperf_tiny/vww_from_person_bmp_int8.bin",
      "refdata/mlperf_tiny/vww_from_no_person_bmp_int8.bin", NULL, NULL},
     {"refdata/mlperf_tiny/vww_from_person_bmp_int8_tflm.out0.bin",
      "refdata/mlperf_tiny/vww_from_no_person_bmp_int8_tflm.out0.bin", NULL, NULL}},
    {"mlperf_tiny_ic_resnet8_int8.tflite",
     {"refdata/mlperf_tiny/ic_input0_int8.bin", NULL, NULL, NULL},
     {"refdata/mlperf_tiny/ic_input0_int8_tflm.out0.bin", NULL, NULL, NULL}},
    {"mlperf_tiny_ad_autoencoder_int8.tflite",
     {"refdata/mlperf_tiny/ad_window0_int8.bin", NULL, NULL, NULL},
     {"refdata/mlperf_tiny/ad_window0_int8_tflm.out0.bin", NULL, NULL, NULL}},
    {"refdata/network_tester/network_model.tflite",
     {"refdata/network_tester/input_data.bin", NULL, NULL, NULL},
     {"refdata/network_tester/expected_output_data.bin", NULL, NULL, NULL}},
};

static int setup(void **state) {
  (void)state;
  return (test_runtime_start(TVMSystemLibEntryPoint()) != NULL) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  test_runtime_stop();
  return 0;
}

/* No storage id holds two entries that are live at once (an entry lives from the operator
 * that writes it, or the start, to its last reader, or the end for outputs). */
static void check_storage(const utvm_compiled_graph_t *g) {
  const uint32_t n = g->n_entries;
  int64_t *first = (int64_t *)malloc(n * sizeof(int64_t));
  int64_t *last = (int64_t *)malloc(n * sizeof(int64_t));
  assert_non_null(first);
  assert_non_null(last);
  for (uint32_t e = 0u; e < n; e++) {
    first[e] = -1;
    last[e] = -1;
    assert_true(g->entries[e].storage_id < g->n_storage);
    assert_true(g->storage_bytes[g->entries[e].storage_id] >= g->entries[e].bytes);
  }
  for (uint32_t k = 0u; k < g->n_ops; k++) {
    const utvm_compiled_op_t *op = &g->ops[k];
    for (uint32_t i = 0u; i < op->n_inputs; i++) {
      last[op->entries[i]] = (int64_t)k;
    }
    first[op->entries[op->n_inputs]] = (int64_t)k;
  }
  for (uint32_t i = 0u; i < g->n_outputs; i++) {
    last[g->output_entries[i]] = INT64_MAX;
  }
  for (uint32_t a = 0u; a < n; a++) {
    for (uint32_t b = a + 1u; b < n; b++) {
      if (g->entries[a].storage_id == g->entries[b].storage_id) {
        const int64_t a_end = (last[a] > first[a]) ? last[a] : first[a];
        const int64_t b_end = (last[b] > first[b]) ? last[b] : first[b];
        /* only activations share, and their lifetimes are disjoint */
        assert_true((first[a] >= 0) && (first[b] >= 0));
        assert_true((a_end < first[b]) || (b_end < first[a]));
      }
    }
  }
  free(first);
  free(last);
}

/* The system library's module (runtime.SystemLib). */
static TVMModuleHandle syslib_module(void) {
  TVMFunctionHandle fn = NULL;
  TVMValue ret;
  int ret_code = 0;
  assert_int_equal(TVMFuncGetGlobal("runtime.SystemLib", &fn), 0);
  assert_int_equal(TVMFuncCall(fn, NULL, NULL, 0, &ret, &ret_code), 0);
  return ret.v_handle;
}

static uint64_t round_storage(const utvm_graph_t *g, uint64_t n) {
  return (n + (g->storage_alignment - 1u)) & ~(uint64_t)(g->storage_alignment - 1u);
}

/* The device executor of a compiled graph, initialised in the least memory. */
typedef struct {
  utvm_graph_t g;
  uint8_t *memory;
  size_t graph_bytes; /* shared part + model inputs + state tensors (see the file comment) */
  unsigned aliases;
  unsigned grown;     /* in-place convolutions (kinds 59, 60) the executor's plan put over input 0 */
  unsigned not_grown; /* those it did not (the plain kernel runs: the input is apart, ...) */
  int stateful;
} device_t;

/* Counts d's in-place convolution nodes (planned INPLACE_GROW) by whether the plan applied
 * it: the output's data at input 0's. */
static void count_grown(device_t *d) {
  for (uint32_t k = 0u; k < d->g.num_ops; k++) {
    utvm_graph_op_info_t op;
    const DLTensor *in = NULL;
    const DLTensor *out = NULL;
    uint32_t sid = 0u;
    assert_int_equal(utvm_graph_op(&d->g, k, &op), UTVM_OK);
    if (d->g.ops_[k].plan_kind == (uint8_t)UTVM_PLAN_STEP_INPLACE_GROW) {
      assert_int_equal(utvm_graph_entry(&d->g, op.entries[0], &in, &sid), UTVM_OK);
      assert_int_equal(utvm_graph_entry(&d->g, op.entries[op.num_inputs], &out, &sid), UTVM_OK);
      if (in->data == out->data) {
        d->grown++;
      } else {
        d->not_grown++;
      }
    }
  }
}

/* Nodes of g calling an in-place convolution (utvm_k_*_inplace). */
static unsigned inplace_nodes(const utvm_compiled_graph_t *g) {
  unsigned n = 0u;
  for (uint32_t k = 0u; k < g->n_ops; k++) {
    const char *f = g->ops[k].func_name;
    const size_t len = strlen(f);
    n += ((len > 8u) && (strcmp(&f[len - 8u], "_inplace") == 0)) ? 1u : 0u;
  }
  return n;
}

/* Over every model run: in-place convolution nodes compiled, and those the device executor ran
 * in place and not in place (the host-driven path runs them all with buffers of their own). */
static unsigned g_inplace_nodes;
static unsigned g_grown;
static unsigned g_not_grown;

/* How run_model compiles (NULL: utvm_host_compile_generic's defaults). */
static const utvm_host_compile_options_t *g_compile_options;

static void device_init(device_t *d, const utvm_compiled_graph_t *cg, const char *model_file) {
  char err[256];
  utvm_err_t rc;
  memset(d, 0, sizeof(*d));
  rc = utvm_graph_memory_size(&d->g, cg->json, cg->json_len);
  if (rc != UTVM_OK) {
    fail_msg("%s: graph memory_size: %s", model_file, d->g.error);
  }
  const size_t bound = d->g.memory_size;
  size_t size = d->g.plan_memory_size;
  d->memory = (uint8_t *)malloc(size);
  assert_non_null(d->memory);
  rc = utvm_graph_init(&d->g, cg->json, cg->json_len, syslib_module(), d->memory, size);
  if (rc == UTVM_ERR_GRAPH_MEMORY) {
    size = d->g.memory_size;
    assert_true(size <= bound);
    free(d->memory);
    d->memory = (uint8_t *)malloc(size);
    assert_non_null(d->memory);
    rc = utvm_graph_init(&d->g, cg->json, cg->json_len, syslib_module(), d->memory, size);
  }
  if (rc != UTVM_OK) {
    fail_msg("%s: graph init: %s", model_file, d->g.error);
  }
  if (utvm_graph_load_params(&d->g, cg->params_blob, cg->params_blob_len) != UTVM_OK) {
    fail_msg("%s: graph load_params: %s", model_file, d->g.error);
  }
  if (graph_check_layout(&d->g, d->memory, size, &d->aliases, err, sizeof(err)) != 0) {
    fail_msg("%s: graph layout: %s", model_file, err);
  }
  count_grown(d);
  uint64_t bytes = d->g.io_offset;
  for (uint32_t i = 0u; i < cg->n_inputs; i++) {
    bytes += round_storage(&d->g, cg->entries[cg->input_entries[i]].bytes);
  }
  for (uint32_t i = 0u; i < cg->n_params; i++) {
    if (cg->params[i].state) {
      bytes += round_storage(&d->g, cg->params[i].bytes);
      d->stateful = 1;
    }
  }
  d->graph_bytes = (size_t)bytes;
}

/* Runs input in (in_size bytes) through the device executor: 1 if output 0 is want (twice in a
 * row for a stateless model). */
static int device_run(device_t *d, const uint8_t *in, size_t in_size, const uint8_t *want,
                      size_t want_size, const char *model_file) {
  DLTensor *x = NULL;
  DLTensor *y = NULL;
  const int32_t index = utvm_graph_input_index(&d->g, "input0");
  assert_true(index >= 0);
  assert_int_equal(utvm_graph_input(&d->g, (uint32_t)index, &x), UTVM_OK);
  DLTensor src = *x;
  src.data = (void *)(uintptr_t)in;
  if (utvm_graph_set_input(&d->g, (uint32_t)index, &src) != UTVM_OK) {
    fail_msg("%s: graph set_input: %s", model_file, d->g.error);
  }
  (void)in_size;
  int exact = 1;
  for (int run = 0; run < (d->stateful ? 1 : 2); run++) {
    if (utvm_graph_run(&d->g) != UTVM_OK) {
      fail_msg("%s: graph run: %s", model_file, d->g.error);
    }
    assert_int_equal(utvm_graph_output(&d->g, 0u, &y), UTVM_OK);
    exact = exact && (memcmp(y->data, want, want_size) == 0);
  }
  return exact;
}

/* Models of shared/models whose graph storage is above 1.05 x the runner's arena (checked after
 * the whole table is printed). */
static int over_bound;

/* Compiles model_file, runs each input and compares output 0; returns the exact pairs. */
static int run_model(const char *model_file, const char *const *inputs,
                     const char *const *outputs, int n_pairs) {
  size_t size = 0u;
  uint8_t *data = rt_load(model_file, &size);
  utvm_compiled_graph_t g;
  char err[256];
  int exact = 0;
  if (data == NULL) {
    fail_msg("cannot read %s", model_file);
  }
  const utvm_err_t rc =
      utvm_host_compile_generic_with(data, size, g_compile_options, &g, err, sizeof(err));
  if (rc != UTVM_OK) {
    fail_msg("%s: compile: %s: %s", model_file, utvm_strerror(rc), err);
  }
  check_storage(&g);
  rt_instance_t r;
  const char *stage = "";
  assert_int_equal(rt_setup(&r, data, size, (size_t)16u << 20, &stage), UTVM_OK);
  const size_t arena_shared = r.runner.arena_size;
  utvm_runner_t separate;
  /* the runner's plan with the inputs and outputs apart, in place as the runner plans it
   * (element-wise operators and convolutions): the graph executor plans the same kinds */
  const utvm_runner_options_t options = {UTVM_KERNELS_NATIVE, true, &utvm_op_resolver_all,
                                         UTVM_RUNNER_PATCHES_OFF};
  assert_int_equal(utvm_runner_init_with(&separate, &r.model, r.workspace,
                                         utvm_runner_workspace_size(&r.model), NULL, 0u,
                                         &options),
                   UTVM_ERR_RUNNER_ARENA);
  const size_t arena_separate = separate.arena_size;
  rt_teardown(&r);
  device_t dev;
  device_init(&dev, &g, model_file);
  const double ratio = (double)dev.graph_bytes / (double)arena_separate;
  const unsigned n_inplace = inplace_nodes(&g);
  assert_int_equal(dev.grown + dev.not_grown, n_inplace);
  g_inplace_nodes += n_inplace;
  g_grown += dev.grown;
  g_not_grown += dev.not_grown;
  (void)printf("%-45s %3u ops %4u entries: per storage id %8llu B, graph %8zu B, runner arena "
               "io sep %8zu B (%5.3f), shared %8zu B; executor memory %8zu B, %u aliases, "
               "in-place convolutions %u/%u\n",
               model_file, g.n_ops, g.n_entries, (unsigned long long)g.activation_bytes,
               dev.graph_bytes, arena_separate, ratio, arena_shared, dev.g.memory_size,
               dev.aliases, dev.grown, n_inplace);
  if ((strchr(model_file, '/') == NULL) && (g_compile_options == NULL) &&
      ((double)dev.graph_bytes > (1.05 * (double)arena_separate))) {
    (void)printf("ABOVE 5 %%: %s: graph storage %zu B, runner arena %zu B\n", model_file,
                 dev.graph_bytes, arena_separate);
    over_bound++;
  }
  graph_exec_t x;
  if (graph_exec_init(&x, &g, err, sizeof(err)) != 0) {
    fail_msg("%s: %s", model_file, err);
  }
  for (int p = 0; p < n_pairs; p++) {
    size_t in_size = 0u;
    size_t out_size = 0u;
    size_t got_size = 0u;
    uint8_t *in = rt_load(inputs[p], &in_size);
    uint8_t *want = rt_load(outputs[p], &out_size);
    assert_non_null(in);
    assert_non_null(want);
    assert_int_equal(graph_exec_set_input(&x, 0u, in, in_size), 0);
    if (graph_exec_run(&x, err, sizeof(err)) != 0) {
      fail_msg("%s: %s", model_file, err);
    }
    const uint8_t *got = (const uint8_t *)graph_exec_output(&x, 0u, &got_size);
    if ((got_size == out_size) && (memcmp(got, want, out_size) == 0) &&
        device_run(&dev, in, in_size, want, out_size, model_file)) {
      exact++;
    } else {
      (void)printf("MISMATCH %s: %s\n", model_file, inputs[p]);
    }
    free(in);
    free(want);
  }
  graph_exec_free(&x);
  free(dev.memory);
  utvm_host_graph_free(&g);
  assert_null(g.json);
  free(data);
  return exact;
}

static void test_refdata_models(void **state) {
  (void)state;
  int pairs = 0;
  int exact = 0;
  g_inplace_nodes = 0u;
  g_grown = 0u;
  g_not_grown = 0u;
  for (size_t m = 0u; m < sizeof(ref_models) / sizeof(ref_models[0]); m++) {
    int n = 0;
    while ((n < 4) && (ref_models[m].inputs[n] != NULL)) {
      n++;
    }
    exact += run_model(ref_models[m].model, ref_models[m].inputs, ref_models[m].outputs, n);
    pairs += n;
  }
  (void)printf("refdata through the kernel functions: %d/%d pairs bit-exact; in-place "
               "convolution nodes %u: %u run in place by the device executor, %u not (input "
               "apart), all %u with buffers of their own on the host-driven path\n",
               exact, pairs, g_inplace_nodes, g_grown, g_not_grown, g_inplace_nodes);
  assert_int_equal(over_bound, 0);
  /* the graphs carry in-place kinds; the executor runs some in place and falls back on the
   * plain kernel for others (person_detect's and VWW's first layer over their input) */
  assert_true(g_grown > 0u);
  assert_true(g_not_grown > 0u);
  assert_int_equal(pairs, 16);
  assert_int_equal(exact, pairs);
}

/* The refdata models with convolutions compiled with plain_convolutions (for a firmware without
 * kinds 59, 60, as `utvm run` does for one): no in-place node, bit-exact on both paths. */
static void test_plain_convolutions(void **state) {
  (void)state;
  const utvm_host_compile_options_t plain = {true, false, UTVM_KERNELS_PORTABLE};
  int pairs = 0;
  int exact = 0;
  g_compile_options = &plain;
  g_inplace_nodes = 0u;
  for (size_t m = 0u; m < sizeof(ref_models) / sizeof(ref_models[0]); m++) {
    int n = 0;
    while ((n < 4) && (ref_models[m].inputs[n] != NULL)) {
      n++;
    }
    exact += run_model(ref_models[m].model, ref_models[m].inputs, ref_models[m].outputs, n);
    pairs += n;
  }
  g_compile_options = NULL;
  (void)printf("refdata with plain convolutions: %d/%d pairs bit-exact, %u in-place nodes\n",
               exact, pairs, g_inplace_nodes);
  assert_int_equal(g_inplace_nodes, 0u);
  assert_int_equal(exact, pairs);
}

/* KWS compiled with its constants laid out for core's kernels: each convolution's filter and
 * the fully connected layer's weights a parameter of its own (op<k>_w1, bits-bit values,
 * utvm_conv2d_s8_filter_size bytes) instead of TFLite's, and this host's portable kernel
 * functions refuse the graph with a text naming the function. */
static void check_laid_out_graph(utvm_kernels_core_t core, uint32_t bits) {
  const utvm_host_compile_options_t options = {false, true, core};
  size_t size = 0u;
  uint8_t *data = rt_load("mlperf_tiny_kws_dscnn_int8.tflite", &size);
  assert_non_null(data);
  utvm_compiled_graph_t g;
  char err[256];
  assert_int_equal(utvm_host_compile_generic_with(data, size, &options, &g, err, sizeof(err)),
                   UTVM_OK);
  unsigned laid = 0u;
  unsigned convolutions = 0u;
  unsigned fully_connected = 0u;
  for (uint32_t i = 0u; i < g.n_params; i++) {
    const char *name = g.params[i].name;
    const utvm_compiled_entry_t *e = &g.entries[g.params[i].entry];
    if (strstr(name, "_w1") != NULL) {
      assert_int_equal(e->dtype.bits, bits);
      assert_int_equal(e->ndim, 1u);
      assert_int_equal(e->bytes, (uint64_t)e->shape[0] * (bits / 8u));
      laid++;
    }
  }
  for (uint32_t k = 0u; k < g.n_ops; k++) {
    convolutions += (strncmp(g.ops[k].func_name, "utvm_k_conv2d_s8", 16u) == 0) ? 1u : 0u;
    fully_connected += (strcmp(g.ops[k].func_name, "utvm_k_fully_connected_s8") == 0) ? 1u : 0u;
  }
  assert_int_equal(convolutions, 5u);
  assert_int_equal(fully_connected, 1u);
  assert_int_equal(laid, convolutions + fully_connected);
  device_t d;
  device_init(&d, &g, "mlperf_tiny_kws_dscnn_int8.tflite");
  assert_int_not_equal(utvm_graph_run(&d.g), UTVM_OK);
  assert_non_null(strstr(d.g.error, "utvm_k_conv2d_s8"));
  free(d.memory);
  utvm_host_graph_free(&g);
  free(data);
}

/* For the DSP kernels: int16 values (the M4 board runs it: qemu_device_run_mps2-an386). */
static void test_laid_out_graph(void **state) {
  (void)state;
  check_laid_out_graph(UTVM_KERNELS_DSP, 16u);
}

/* For the MVE kernels: int8 values padded to a word, then a term per output channel (the M55
 * board runs it: qemu_device_run_mps3-an547). */
static void test_laid_out_graph_mve(void **state) {
  (void)state;
  check_laid_out_graph(UTVM_KERNELS_MVE, 8u);
}

/* Every pair of pairs[0..n) bit-exact, or (a case of its set's pending list) refused by the
 * compiler with a text. Prints a line per set (a set's pairs are consecutive). */
static void run_pair_sets(const runner_pair_t *pairs, int n) {
  int exact = 0;
  int pending = 0;
  int set_first = 0;
  for (int i = 0; i < n; i++) {
    const runner_pair_t *p = &pairs[i];
    if (p->pending != 0) {
      size_t size = 0u;
      uint8_t *data = rt_load(p->model, &size);
      utvm_compiled_graph_t g;
      char err[256] = "";
      assert_non_null(data);
      if (utvm_host_compile_generic(data, size, &g, err, sizeof(err)) == UTVM_OK) {
        fail_msg("%s: listed in the %s pending list but compiles: take it off the list", p->name,
                 p->set);
      }
      assert_true(err[0] != '\0');
      free(data);
      pending++;
    } else {
      const char *in[1] = {p->input};
      const char *out[1] = {p->output};
      exact += run_model(p->model, in, out, 1);
    }
    if ((i + 1 == n) || (strcmp(pairs[i + 1].set, p->set) != 0)) {
      (void)printf("%s through the kernel functions: %d/%d pairs bit-exact, %d pending\n", p->set,
                   exact, i + 1 - set_first - pending, pending);
      assert_int_equal(exact, i + 1 - set_first - pending);
      set_first = i + 1;
      exact = 0;
      pending = 0;
    }
  }
}

static void test_ops_models(void **state) {
  (void)state;
  const int pairs = (int)(sizeof(runner_op_pairs) / sizeof(runner_op_pairs[0]));
  run_pair_sets(runner_op_pairs, pairs);
  assert_int_equal(pairs, 64);
}

/* The operator case sets (cmake/utvm_op_cases.cmake): ops2 (279 pairs), tflm (39) and
 * tflm_float (109). */
static void test_op_case_models(void **state) {
  (void)state;
  const int pairs = (int)(sizeof(runner_op_case_pairs) / sizeof(runner_op_case_pairs[0]));
  run_pair_sets(runner_op_case_pairs, pairs);
  assert_int_equal(pairs, 279 + 39 + 109);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_refdata_models, setup, teardown),
      cmocka_unit_test_setup_teardown(test_plain_convolutions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_laid_out_graph, setup, teardown),
      cmocka_unit_test_setup_teardown(test_laid_out_graph_mve, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ops_models, setup, teardown),
      cmocka_unit_test_setup_teardown(test_op_case_models, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

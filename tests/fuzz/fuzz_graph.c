/*
 * libFuzzer target for the graph executor's parsers (src/graph): the graph JSON parser and the
 * parameter blob parser.
 *
 * Input: byte 0 selects the parser (even: graph JSON, odd: parameter blob), the rest is the text
 * or blob (seeds: tests/fuzz/graph_seeds, copied to seeds-graph/ at build time). Checked on every
 * input:
 *  - JSON: utvm_graph_memory_size and utvm_graph_init either fail with an error text or give an
 *    executor whose every entry lies inside the memory given (counts within the limits, input
 *    names NUL-terminated inside it, the exact memory_size within the upper bound, the planned
 *    layout sound: graph_check.h); a graph that initialises is run (its operators are the
 *    test system library's, which check their arguments), and must not touch memory outside;
 *  - blob: utvm_graph_load_params on a fixed graph (inputs x and p, float32[4]) either fails
 *    with an error text or succeeds; either way nothing outside p's storage changes when it
 *    fails, and x's storage is untouched.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "graph_check.h"
#include "test_syslib.h"
#include "tvm/runtime/crt/platform.h"
#include "utvm/graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Platform hooks the runtime links; nothing here times or aborts. */
uint64_t test_syslib_time_us(void) { return 0u; }
tvm_crt_error_t TVMPlatformTimerStart(void) { return kTvmErrorNoError; }
tvm_crt_error_t TVMPlatformTimerStopNs(uint64_t *elapsed_ns) {
  *elapsed_ns = 0u;
  return kTvmErrorNoError;
}
tvm_crt_error_t TVMPlatformBeforeMeasurement(void) { return kTvmErrorNoError; }
tvm_crt_error_t TVMPlatformAfterMeasurement(void) { return kTvmErrorNoError; }
void TVMPlatformAbort(tvm_crt_error_t code) {
  (void)code;
  abort();
}

static const char kGraph[] =
    "{\"nodes\":[{\"op\":\"null\",\"name\":\"x\",\"inputs\":[]},{\"op\":\"null\",\"name\":\"p\","
    "\"inputs\":[]},{\"op\":\"tvm_op\",\"name\":\"add0\",\"attrs\":{\"func_name\":\"test_add_f32\","
    "\"num_inputs\":\"2\",\"num_outputs\":\"1\",\"flatten_data\":\"0\"},\"inputs\":[[0,0,0],[1,0,"
    "0]]}],\"arg_nodes\":[0,1],\"heads\":[[2,0,0]],\"attrs\":{\"dltype\":[\"list_str\",["
    "\"float32\",\"float32\",\"float32\"]],\"storage_id\":[\"list_int\",[0,1,2]],\"shape\":["
    "\"list_shape\",[[4],[4],[4]]]},\"node_row_ptr\":[0,1,2,3]}";

static uint8_t tensor_arena[4096] __attribute__((aligned(64)));
static uint8_t memory[64 * 1024] __attribute__((aligned(64)));
static utvm_crt_t crt;
static utvm_graph_t g;

/* Runtime with the test system library (module handle 0x8000). */
static void start_runtime(void) {
  const utvm_crt_config_t config = {tensor_arena, sizeof(tensor_arena), NULL, 0u,
                                    TVMSystemLibEntryPoint(), NULL};
  FUZZ_CHECK(utvm_crt_init(&crt, &config) == UTVM_OK);
}

static bool inside(const void *p, size_t n) {
  uintptr_t a = (uintptr_t)p;
  return (a >= (uintptr_t)memory) && (n <= sizeof(memory)) &&
         ((a - (uintptr_t)memory) <= (sizeof(memory) - n));
}

static void fuzz_json(const char *json, size_t len) {
  utvm_err_t err = utvm_graph_memory_size(&g, json, len);
  if (err != UTVM_OK) {
    FUZZ_CHECK(g.error[0] != '\0');
    return;
  }
  if (g.plan_memory_size > sizeof(memory)) {
    return;
  }
  const size_t bound = g.memory_size;
  err = utvm_graph_init(&g, json, len, (TVMModuleHandle)(uintptr_t)0x8000u, memory,
                        sizeof(memory));
  if (err != UTVM_OK) {
    FUZZ_CHECK(g.error[0] != '\0');
    /* only a plan larger than the memory given may say MEMORY */
    FUZZ_CHECK((err != UTVM_ERR_GRAPH_MEMORY) || (g.memory_size > sizeof(memory)));
    return;
  }
  FUZZ_CHECK(g.memory_size <= bound);
  char why[160];
  if (graph_check_layout(&g, memory, g.memory_size, NULL, why, sizeof(why)) != 0) {
    FUZZ_CHECK(false);
  }
  FUZZ_CHECK(g.num_nodes <= UTVM_GRAPH_MAX_NODES && g.num_entries <= UTVM_GRAPH_MAX_ENTRIES);
  for (uint32_t i = 0u; i < g.num_inputs; i++) {
    const char *name = utvm_graph_input_name(&g, i);
    FUZZ_CHECK(name != NULL && inside(name, strlen(name) + 1u));
    FUZZ_CHECK(utvm_graph_input_index(&g, name) >= 0);
  }
  for (uint32_t e = 0u; e < g.num_entries; e++) {
    DLTensor *t = &g.entries_[e];
    uint64_t bytes = ((uint64_t)t->dtype.bits * t->dtype.lanes + 7u) / 8u;
    FUZZ_CHECK(inside(t, sizeof(*t)) && t->ndim >= 0 && (uint32_t)t->ndim <= UTVM_GRAPH_MAX_NDIM);
    for (int32_t d = 0; d < t->ndim; d++) {
      bytes *= (uint64_t)t->shape[d];
    }
    FUZZ_CHECK(inside(t->data, (size_t)bytes));
  }
  (void)utvm_graph_run(&g);
}

static void fuzz_params(const uint8_t *blob, size_t len) {
  DLTensor *x = NULL;
  DLTensor *p = NULL;
  FUZZ_CHECK(utvm_graph_init(&g, kGraph, sizeof(kGraph) - 1u, (TVMModuleHandle)(uintptr_t)0x8000u,
                             memory, sizeof(memory)) == UTVM_OK);
  FUZZ_CHECK(utvm_graph_input(&g, 0u, &x) == UTVM_OK && utvm_graph_input(&g, 1u, &p) == UTVM_OK);
  (void)memset(x->data, 0xA5, 16u);
  (void)memset(p->data, 0x5A, 16u);
  utvm_err_t err = utvm_graph_load_params(&g, blob, len);
  uint8_t unchanged[16];
  (void)memset(unchanged, 0x5A, sizeof(unchanged));
  if (err != UTVM_OK) {
    FUZZ_CHECK(err == UTVM_ERR_GRAPH_PARAMS && g.error[0] != '\0');
    FUZZ_CHECK(memcmp(p->data, unchanged, 16u) == 0 || len == 0u);
  }
  (void)memset(unchanged, 0xA5, sizeof(unchanged));
  /* x may be loaded too (it is an input); only a failure leaves it as it was. */
  FUZZ_CHECK(err == UTVM_OK || memcmp(x->data, unchanged, 16u) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1u) {
    return 0;
  }
  start_runtime();
  if ((data[0] & 1u) == 0u) {
    fuzz_json((const char *)&data[1], size - 1u);
  } else {
    fuzz_params(&data[1], size - 1u);
  }
  utvm_crt_shutdown(&crt);
  return 0;
}

/*
 * Graph executor C API (utvm/graph.h): a 3-operator graph with shared storage run through the
 * test system library, and hostile graph JSON and parameter blobs (error code and text). The
 * planned storage (graph_check.h walks the operators: no two live entries overlap), inputs,
 * parameters and outputs kept across runs, TVM-style storage ids, and the two-step sizing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "crt_test_support.h"
#include "graph_check.h"
#include "test_syslib.h"
#include "utvm/graph.h"

/* y = ((x + p) + (x + p)) + x: entries x 0, p 1, t 2, u 3, y 4; u and y share storage 2 with t
 * (y's storage 2: t is dead once u is computed; u gets storage 3). */
static const char kBase[] =
    "{\"nodes\":[{\"op\":\"null\",\"name\":\"x\",\"inputs\":[]},"
    "{\"op\":\"null\",\"name\":\"p\",\"inputs\":[]},"
    "{\"op\":\"tvm_op\",\"name\":\"add0\",\"attrs\":{\"func_name\":\"test_add_f32\","
    "\"num_inputs\":\"2\",\"num_outputs\":\"1\",\"flatten_data\":\"0\"},\"inputs\":[[0,0,0],[1,0,0]]},"
    "{\"op\":\"tvm_op\",\"name\":\"add1\",\"attrs\":{\"func_name\":\"test_add_f32\","
    "\"num_inputs\":\"2\",\"num_outputs\":\"1\",\"flatten_data\":\"0\"},\"inputs\":[[2,0],[2,0]]},"
    "{\"op\":\"tvm_op\",\"name\":\"add2\",\"attrs\":{\"func_name\":\"test_add_f32\","
    "\"num_inputs\":\"2\",\"num_outputs\":\"1\",\"flatten_data\":\"0\"},\"inputs\":[[3,0,0],[0,0,0]]}],"
    "\"arg_nodes\":[0,1],\"heads\":[[4,0,0]],"
    "\"attrs\":{\"dltype\":[\"list_str\",[\"float32\",\"float32\",\"float32\",\"float32\",\"float32\"]],"
    "\"storage_id\":[\"list_int\",[0,1,2,3,2]],"
    "\"shape\":[\"list_shape\",[[4],[4],[4],[4],[4]]]},"
    "\"node_row_ptr\":[0,1,2,3,4,5]}";

static uint8_t memory[16384];
static utvm_graph_t g;

static int setup(void **state) {
  (void)state;
  assert_non_null(test_runtime_start(TVMSystemLibEntryPoint()));
  return 0;
}

static int teardown(void **state) {
  (void)state;
  test_runtime_stop();
  return 0;
}

/* kBase with the first occurrence of from replaced by to (caller frees). */
static char *with(const char *from, const char *to) {
  const char *at = strstr(kBase, from);
  assert_non_null(at);
  size_t n = strlen(kBase) - strlen(from) + strlen(to) + 1u;
  char *out = malloc(n);
  assert_non_null(out);
  size_t head = (size_t)(at - kBase);
  memcpy(out, kBase, head);
  memcpy(&out[head], to, strlen(to));
  strcpy(&out[head + strlen(to)], at + strlen(from));
  return out;
}

static utvm_err_t init_json(const char *json, size_t len) {
  return utvm_graph_init(&g, json, len, (TVMModuleHandle)(uintptr_t)0x8000u, memory,
                         sizeof(memory));
}

static void expect_json_error(const char *json, utvm_err_t code, const char *needle) {
  utvm_err_t err = init_json(json, strlen(json));
  if (err != code || strstr(g.error, needle) == NULL) {
    fail_msg("got 0x%x \"%s\", expected 0x%x with \"%s\"", (unsigned)err, g.error,
             (unsigned)code, needle);
  }
}

static void expect_replaced_error(const char *from, const char *to, utvm_err_t code,
                                  const char *needle) {
  char *json = with(from, to);
  expect_json_error(json, code, needle);
  free(json);
}

/* A parameter blob of one float32 array: name, shape [n], values; magic etc. from the spec. */
static size_t make_params(uint8_t *out, const char *name, int64_t n, uint8_t dtype_code) {
  size_t at = 0u;
  uint64_t v;
#define PUT64(x) (v = (uint64_t)(x), memcpy(&out[at], &v, 8u), at += 8u)
#define PUT32(x) do { uint32_t w = (uint32_t)(x); memcpy(&out[at], &w, 4u); at += 4u; } while (0)
  PUT64(0xF7E58D4F05049CB7ull);
  PUT64(0u);
  PUT64(1u);
  PUT64(strlen(name));
  memcpy(&out[at], name, strlen(name));
  at += strlen(name);
  PUT64(1u);
  PUT64(0xDD5E40F096B4A13Full);
  PUT64(0u);
  PUT32(1u);
  PUT32(0u);
  PUT32(1u);
  PUT32((uint32_t)dtype_code | (32u << 8) | (1u << 16));
  PUT64(n);
  PUT64(n * 4);
  for (int64_t i = 0; i < n; i++) {
    float f = 100.0f * (float)(i + 1);
    memcpy(&out[at], &f, 4u);
    at += 4u;
  }
#undef PUT64
#undef PUT32
  return at;
}

static void test_run_three_ops(void **state) {
  (void)state;
  assert_int_equal(utvm_graph_memory_size(&g, kBase, strlen(kBase)), UTVM_OK);
  size_t needed = g.memory_size;
  /* 4 storage buffers of 64 bytes (16 used each); 5 entries without sharing would take 5. */
  assert_int_equal(g.num_storage, 4u);
  assert_true(needed >= 4u * 64u);
  assert_int_equal(utvm_graph_init(&g, kBase, strlen(kBase), (TVMModuleHandle)(uintptr_t)0x8000u,
                                   memory, needed - 1u),
                   UTVM_ERR_GRAPH_MEMORY);
  assert_non_null(strstr(g.error, "bytes needed"));
  /* Unaligned memory of exactly the size asked for. */
  assert_int_equal(utvm_graph_init(&g, kBase, strlen(kBase), (TVMModuleHandle)(uintptr_t)0x8000u,
                                   &memory[3], needed),
                   UTVM_OK);
  assert_int_equal(g.num_inputs, 2u);
  assert_int_equal(g.num_outputs, 1u);
  assert_int_equal(g.num_ops, 3u);
  assert_int_equal(utvm_graph_input_index(&g, "p"), 1);
  assert_int_equal(utvm_graph_input_index(&g, "add0"), -1);
  assert_string_equal(utvm_graph_input_name(&g, 0u), "x");
  assert_null(utvm_graph_input_name(&g, 2u));
  uint8_t blob[256];
  size_t blob_len = make_params(blob, "p", 4, kDLFloat);
  assert_int_equal(utvm_graph_load_params(&g, blob, blob_len), UTVM_OK);
  DLTensor *x = NULL;
  DLTensor *y = NULL;
  assert_int_equal(utvm_graph_input(&g, 0u, &x), UTVM_OK);
  assert_int_equal(((uintptr_t)x->data) % 64u, 0u);
  static const float xs[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  int64_t shape[1] = {4};
  DLTensor src = {(void *)(uintptr_t)xs, {kDLCPU, 0}, 1, {kDLFloat, 32u, 1u}, shape, NULL, 0u};
  assert_int_equal(utvm_graph_set_input(&g, 0u, &src), UTVM_OK);
  assert_int_equal(utvm_graph_run(&g), UTVM_OK);
  assert_int_equal(utvm_graph_output(&g, 0u, &y), UTVM_OK);
  /* ((x + p) * 2) + x */
  static const float expected[4] = {203.0f, 406.0f, 609.0f, 812.0f};
  assert_memory_equal(y->data, expected, 16u);
  /* set_input checks dtype and size. */
  src.dtype.code = kDLInt;
  assert_int_equal(utvm_graph_set_input(&g, 0u, &src), UTVM_ERR_GRAPH_TENSOR);
  src.dtype.code = kDLFloat;
  shape[0] = 3;
  assert_int_equal(utvm_graph_set_input(&g, 0u, &src), UTVM_ERR_GRAPH_TENSOR);
  assert_int_equal(utvm_graph_set_input(&g, 2u, &src), UTVM_ERR_GRAPH_ARGUMENT);
  assert_int_equal(utvm_graph_output(&g, 1u, &y), UTVM_ERR_GRAPH_ARGUMENT);
}

/* Input info (TVM's get_input_info as JSON) leaves out loaded parameters, escapes names, and
 * measures itself; share_params copies the named inputs from another executor of the graph. */
static void test_input_info_and_share_params(void **state) {
  static uint8_t other_memory[16384];
  utvm_graph_t other;
  char text[128];
  uint8_t blob[256];
  (void)state;
  char *json = with("\"name\":\"x\"", "\"name\":\"x\\\"1\"");
  assert_int_equal(init_json(json, strlen(json)), UTVM_OK);
  static const char kAll[] = "{\"shape\": {\"x\\\"1\": [4], \"p\": [4]}, "
                             "\"dtype\": {\"x\\\"1\": \"float32\", \"p\": \"float32\"}}";
  assert_int_equal(utvm_graph_input_info(&g, NULL, 0u), strlen(kAll));
  assert_int_equal(utvm_graph_input_info(&g, text, sizeof(text)), strlen(kAll));
  assert_string_equal(text, kAll);
  /* A short buffer holds the start of the text, NUL-terminated. */
  assert_int_equal(utvm_graph_input_info(&g, text, 10u), strlen(kAll));
  assert_string_equal(text, "{\"shape\":");
  assert_int_equal(utvm_graph_init(&other, json, strlen(json), (TVMModuleHandle)(uintptr_t)0x8000u,
                                   other_memory, sizeof(other_memory)),
                   UTVM_OK);
  size_t blob_len = make_params(blob, "p", 4, kDLFloat);
  assert_int_equal(utvm_graph_load_params(&other, blob, blob_len), UTVM_OK);
  (void)utvm_graph_input_info(&other, text, sizeof(text));
  assert_string_equal(text, "{\"shape\": {\"x\\\"1\": [4]}, \"dtype\": {\"x\\\"1\": \"float32\"}}");
  /* A truncated blob and a name the other executor lacks are refused before any copy. */
  assert_int_equal(utvm_graph_share_params(&g, &other, blob, 30u), UTVM_ERR_GRAPH_PARAMS);
  assert_non_null(strstr(g.error, "params: truncated"));
  assert_int_equal(utvm_graph_share_params(&g, NULL, blob, blob_len), UTVM_ERR_GRAPH_ARGUMENT);
  DLTensor *p = NULL;
  assert_int_equal(utvm_graph_input(&g, 1u, &p), UTVM_OK);
  memset(p->data, 0, 16u);
  assert_int_equal(utvm_graph_share_params(&g, &other, blob, blob_len), UTVM_OK);
  static const float expected[4] = {100.0f, 200.0f, 300.0f, 400.0f};
  assert_memory_equal(p->data, expected, 16u);
  (void)utvm_graph_input_info(&g, text, sizeof(text));
  assert_string_equal(text, "{\"shape\": {\"x\\\"1\": [4]}, \"dtype\": {\"x\\\"1\": \"float32\"}}");
  /* A blob naming x"1 (an input of g) that other has not: other is a graph without it. */
  char *renamed = with("\"name\":\"x\"", "\"name\":\"y\"");
  assert_int_equal(utvm_graph_init(&other, renamed, strlen(renamed),
                                   (TVMModuleHandle)(uintptr_t)0x8000u, other_memory,
                                   sizeof(other_memory)),
                   UTVM_OK);
  blob_len = make_params(blob, "x\"1", 4, kDLFloat);
  assert_int_equal(utvm_graph_share_params(&g, &other, blob, blob_len), UTVM_ERR_GRAPH_PARAMS);
  assert_non_null(strstr(g.error, "not an input of the executor shared from"));
  free(renamed);
  free(json);
}


/* Sizes g for json and inits it in the least memory (plan_memory_size, then the exact size if
 * the plan needs more), at an unaligned address; checks the layout; returns the memory (caller
 * frees) and its size. */
static uint8_t *init_least(const char *json, size_t *size) {
  char err[160];
  assert_int_equal(utvm_graph_memory_size(&g, json, strlen(json)), UTVM_OK);
  const size_t bound = g.memory_size;
  const size_t least = g.plan_memory_size;
  assert_true(least <= bound);
  uint8_t *mem = malloc(bound + 8u);
  assert_non_null(mem);
  utvm_err_t err_code = utvm_graph_init(&g, json, strlen(json), (TVMModuleHandle)(uintptr_t)0x8000u,
                                        &mem[3], least);
  if (err_code == UTVM_ERR_GRAPH_MEMORY) {
    assert_true(g.memory_size > least);
    assert_non_null(strstr(g.error, "bytes needed"));
    err_code = utvm_graph_init(&g, json, strlen(json), (TVMModuleHandle)(uintptr_t)0x8000u,
                               &mem[3], g.memory_size);
  }
  assert_int_equal(err_code, UTVM_OK);
  const size_t exact = g.memory_size;
  assert_true((exact >= least) && (exact <= bound));
  /* One byte less than the exact figure is refused, with the figure. */
  assert_int_equal(utvm_graph_init(&g, json, strlen(json), (TVMModuleHandle)(uintptr_t)0x8000u,
                                   &mem[3], exact - 1u),
                   UTVM_ERR_GRAPH_MEMORY);
  assert_int_equal(g.memory_size, exact);
  assert_int_equal(utvm_graph_init(&g, json, strlen(json), (TVMModuleHandle)(uintptr_t)0x8000u,
                                   &mem[3], exact),
                   UTVM_OK);
  if (graph_check_layout(&g, &mem[3], exact, NULL, err, sizeof(err)) != 0) {
    fail_msg("layout: %s", err);
  }
  *size = exact;
  return mem;
}

/* y_k = y_(k-1) + p for k = 1..n (y_0 = x), float32[len] each: entries x 0, p 1, y_k k + 1.
 * Storage ids: same_sid 0: all distinct (no sharing at all); 1: all 0 (TVM would never). */
static char *chain_json(unsigned n, unsigned len, int same_sid) {
  const size_t cap = 512u + ((size_t)n * 220u);
  char *out = malloc(cap);
  size_t at = 0u;
  assert_non_null(out);
#define CAT(...) (at += (size_t)snprintf(&out[at], cap - at, __VA_ARGS__))
  CAT("{\"nodes\":[{\"op\":\"null\",\"name\":\"x\",\"inputs\":[]},"
      "{\"op\":\"null\",\"name\":\"p\",\"inputs\":[]}");
  for (unsigned k = 1u; k <= n; k++) {
    CAT(",{\"op\":\"tvm_op\",\"name\":\"add%u\",\"attrs\":{\"func_name\":\"test_add_f32\","
        "\"num_inputs\":\"2\",\"num_outputs\":\"1\"},\"inputs\":[[%u,0,0],[1,0,0]]}",
        k, (k == 1u) ? 0u : k);
  }
  CAT("],\"arg_nodes\":[0,1],\"heads\":[[%u,0,0]],\"attrs\":{\"dltype\":[\"list_str\",[", n + 1u);
  for (unsigned e = 0u; e < n + 2u; e++) {
    CAT("%s\"float32\"", (e == 0u) ? "" : ",");
  }
  CAT("]],\"storage_id\":[\"list_int\",[");
  for (unsigned e = 0u; e < n + 2u; e++) {
    CAT("%s%u", (e == 0u) ? "" : ",", same_sid ? 0u : e);
  }
  CAT("]],\"shape\":[\"list_shape\",[");
  for (unsigned e = 0u; e < n + 2u; e++) {
    CAT("%s[%u]", (e == 0u) ? "" : ",", len);
  }
  CAT("]]},\"node_row_ptr\":[");
  for (unsigned e = 0u; e <= n + 2u; e++) {
    CAT("%s%u", (e == 0u) ? "" : ",", e);
  }
  CAT("]}");
#undef CAT
  assert_true(at < cap);
  return out;
}

/* Sets x, loads p (16 values), runs twice: equal outputs x + n * p, inputs unchanged. */
static void run_chain_twice(unsigned n) {
  uint8_t blob[512];
  float xs[16];
  float first[16];
  int64_t shape[1] = {16};
  DLTensor *x = NULL;
  DLTensor *p = NULL;
  DLTensor *y = NULL;
  for (int i = 0; i < 16; i++) {
    xs[i] = (float)i;
  }
  DLTensor src = {xs, {kDLCPU, 0}, 1, {kDLFloat, 32u, 1u}, shape, NULL, 0u};
  assert_int_equal(utvm_graph_load_params(&g, blob, make_params(blob, "p", 16, kDLFloat)),
                   UTVM_OK);
  assert_int_equal(utvm_graph_set_input(&g, 0u, &src), UTVM_OK);
  assert_int_equal(utvm_graph_run(&g), UTVM_OK);
  assert_int_equal(utvm_graph_output(&g, 0u, &y), UTVM_OK);
  for (int i = 0; i < 16; i++) {
    const float want = (float)i + ((float)n * 100.0f * (float)(i + 1));
    if (((const float *)y->data)[i] != want) {
      fail_msg("y[%d] = %f, want %f", i, (double)((const float *)y->data)[i], (double)want);
    }
  }
  memcpy(first, y->data, sizeof(first));
  assert_int_equal(utvm_graph_run(&g), UTVM_OK);
  assert_memory_equal(y->data, first, sizeof(first));
  assert_int_equal(utvm_graph_input(&g, 0u, &x), UTVM_OK);
  assert_int_equal(utvm_graph_input(&g, 1u, &p), UTVM_OK);
  assert_memory_equal(x->data, xs, sizeof(xs));
  for (int i = 0; i < 16; i++) {
    assert_true(((const float *)p->data)[i] == 100.0f * (float)(i + 1));
  }
}

/* kBase (TVM-style: entries 2 and 4 share storage id 2, the parameter is an arg node): the
 * least memory, the layout, inputs set once and run twice give the same outputs. */
static void test_plan_base_run_twice(void **state) {
  (void)state;
  size_t size = 0u;
  uint8_t blob[256];
  uint8_t *mem = init_least(kBase, &size);
  /* x and p apart (2 x 64), t / u / y: at most two alive at a step. */
  assert_int_equal(g.io_offset, 128u);
  assert_int_equal(g.arena_size, 256u);
  assert_int_equal(utvm_graph_load_params(&g, blob, make_params(blob, "p", 4, kDLFloat)), UTVM_OK);
  static const float xs[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  int64_t shape[1] = {4};
  DLTensor src = {(void *)(uintptr_t)xs, {kDLCPU, 0}, 1, {kDLFloat, 32u, 1u}, shape, NULL, 0u};
  assert_int_equal(utvm_graph_set_input(&g, 0u, &src), UTVM_OK);
  static const float expected[4] = {203.0f, 406.0f, 609.0f, 812.0f};
  DLTensor *y = NULL;
  for (int run = 0; run < 3; run++) {
    assert_int_equal(utvm_graph_run(&g), UTVM_OK);
    assert_int_equal(utvm_graph_output(&g, 0u, &y), UTVM_OK);
    assert_memory_equal(y->data, expected, 16u);
  }
  /* get_input by index and name give the input's bytes, unchanged by the runs. */
  DLTensor *x = NULL;
  assert_int_equal(utvm_graph_input(&g, (uint32_t)utvm_graph_input_index(&g, "x"), &x), UTVM_OK);
  assert_memory_equal(x->data, xs, 16u);
  /* The storage id accessor still gives the JSON's ids. */
  const DLTensor *t = NULL;
  uint32_t sid = 0u;
  assert_int_equal(utvm_graph_entry(&g, 4u, &t, &sid), UTVM_OK);
  assert_int_equal(sid, 2u);
  free(mem);
}

/* A chain of 50 operators: TVM's storage ids (all distinct, or all one id) do not decide the
 * layout; two live entries at a time take the shared part. */
static void test_plan_chain(void **state) {
  (void)state;
  for (int same = 0; same < 2; same++) {
    size_t size = 0u;
    char *json = chain_json(50u, 16u, same);
    uint8_t *mem = init_least(json, &size);
    assert_int_equal(g.num_storage, same ? 1u : 52u);
    assert_int_equal(g.io_offset, 128u);           /* y_(k-1) and y_k */
    assert_int_equal(g.arena_size, 128u + 128u);   /* x and p apart */
    run_chain_twice(50u);
    free(mem);
    free(json);
  }
}

/* Many entries (4000 operators, 4002 entries; the limit is 4096) plan and run; more than the
 * limit is refused with a text. */
static void test_plan_many_entries(void **state) {
  (void)state;
  size_t size = 0u;
  char *json = chain_json(4000u, 16u, 0);
  uint8_t *mem = init_least(json, &size);
  assert_int_equal(g.io_offset, 128u);
  run_chain_twice(4000u);
  free(mem);
  free(json);
  json = chain_json(UTVM_GRAPH_MAX_ENTRIES, 16u, 0);
  utvm_err_t err = utvm_graph_memory_size(&g, json, strlen(json));
  assert_true((err == UTVM_ERR_GRAPH_LIMIT) || (err == UTVM_ERR_GRAPH_JSON));
  assert_true(g.error[0] != '\0');
  free(json);
}

/* Entries of 2 GiB each: planned sizes beyond 32 bits are refused with a text, nothing is
 * touched; memory below the planning size is refused. */
static void test_plan_hostile_sizes(void **state) {
  (void)state;
  char *json = chain_json(3u, 0x7FFFFFC0u / 4u, 0);
  assert_int_equal(utvm_graph_memory_size(&g, json, strlen(json)), UTVM_OK);
  assert_true(g.plan_memory_size <= sizeof(memory));
  expect_json_error(json, UTVM_ERR_GRAPH_LIMIT, "graph: planned storage of 4294967280 bytes");
  free(json);
  assert_int_equal(utvm_graph_memory_size(&g, kBase, strlen(kBase)), UTVM_OK);
  const size_t least = g.plan_memory_size;
  assert_int_equal(utvm_graph_init(&g, kBase, strlen(kBase), (TVMModuleHandle)(uintptr_t)0x8000u,
                                   memory, least - 1u),
                   UTVM_ERR_GRAPH_MEMORY);
  assert_non_null(strstr(g.error, "bytes needed"));
  assert_int_equal(utvm_graph_run(&g), UTVM_ERR_GRAPH_ARGUMENT);
}

static void test_metadata_ends_parsing(void **state) {
  (void)state;
  char *json = with("\"node_row_ptr\"", "\"metadata\":{\"anything\": [1, \"x\"]} , garbage");
  /* node_row_ptr came after metadata: never read, so missing. */
  expect_json_error(json, UTVM_ERR_GRAPH_JSON, "missing key node_row_ptr");
  free(json);
  json = with("\"nodes\":", "\"metadata\":0,\"nodes\":");
  expect_json_error(json, UTVM_ERR_GRAPH_JSON, "missing key");
  free(json);
  size_t n = strlen(kBase);
  json = malloc(n + 40u);
  memcpy(json, kBase, n - 1u);
  strcpy(&json[n - 1u], ",\"metadata\":{unparsed");
  assert_int_equal(init_json(json, strlen(json)), UTVM_OK);
  free(json);
}

static void test_hostile_json(void **state) {
  (void)state;
  /* Every truncation fails cleanly. */
  for (size_t n = 0u; n < strlen(kBase); n++) {
    utvm_err_t err = init_json(kBase, n);
    assert_true(err == UTVM_ERR_GRAPH_JSON || err == UTVM_ERR_GRAPH_LIMIT);
    assert_true(g.error[0] != '\0');
  }
  expect_replaced_error("[0,1,2,3,4,5]", "[0,1,2,3,4]", UTVM_ERR_GRAPH_LIMIT,
                        "heads: entry node id out of range");
  expect_replaced_error("[0,1,2,3,4,5]", "[0,1,2,3,4,5,6]", UTVM_ERR_GRAPH_JSON,
                        "values of dltype for 6 entries");
  expect_replaced_error("[0,1,2,3,4,5]", "[0,1,3,3,4,5]", UTVM_ERR_GRAPH_JSON,
                        "node_row_ptr does not give this input node one output");
  expect_replaced_error("[0,1,2,3,4,5]", "[1,1,2,3,4,5]", UTVM_ERR_GRAPH_JSON, "must start at 0");
  expect_replaced_error("[[0,0,0],[1,0,0]]", "[[0,0,0],[9,0,0]]", UTVM_ERR_GRAPH_LIMIT,
                        "node 2: entry node id out of range");
  expect_replaced_error("[[0,0,0],[1,0,0]]", "[[0,0,0],[1,1,0]]", UTVM_ERR_GRAPH_JSON,
                        "entry refers to output 1 of node 1");
  expect_replaced_error("[[4,0,0]]", "[[4,0,0,0]]", UTVM_ERR_GRAPH_JSON, "heads: unexpected");
  expect_replaced_error("[[4],[4],[4],[4],[4]]", "[[4],[4],[4],[4],[65536,65536,65536]]",
                        UTVM_ERR_GRAPH_LIMIT, "attrs: entry larger than");
  expect_replaced_error("[[4],[4],[4],[4],[4]]", "[[4],[4],[4],[4],[1,1,1,1,1,1,1]]",
                        UTVM_ERR_GRAPH_LIMIT, "attrs: shape of more than 6 dimensions");
  expect_replaced_error("[[4],[4],[4],[4],[4]]", "[[4],[4],[4],[4],[-4]]", UTVM_ERR_GRAPH_LIMIT,
                        "dimension out of range");
  expect_replaced_error("\"float32\",\"float32\"]", "\"float33\",\"float32\"]",
                        UTVM_ERR_GRAPH_JSON, "attrs: unknown dltype float33");
  expect_replaced_error("\"float32\",\"float32\"]", "\"custom[posit]16\",\"float32\"]",
                        UTVM_ERR_GRAPH_JSON, "unknown dltype");
  expect_replaced_error("[0,1,2,3,2]", "[0,1,2,3,999999]", UTVM_ERR_GRAPH_LIMIT,
                        "attrs: storage id out of range");
  expect_replaced_error("[0,1,2,3,2]", "[0,1,2,3]", UTVM_ERR_GRAPH_JSON,
                        "4 values of storage_id for 5 entries");
  expect_replaced_error("[0,1,2,3,2]", "[0,1,2,3,2.5]", UTVM_ERR_GRAPH_JSON, "is not an integer");
  expect_replaced_error("\"heads\":[[4,0,0]],", "", UTVM_ERR_GRAPH_JSON, "missing key heads");
  expect_replaced_error("{\"op\":\"null\",\"name\":\"x\",", "{\"name\":\"x\",", UTVM_ERR_GRAPH_JSON,
                        "graph JSON: node 0: missing key op");
  expect_replaced_error("\"storage_id\":[\"list_int\",[0,1,2,3,2]],", "", UTVM_ERR_GRAPH_JSON,
                        "attrs: missing key storage_id");
  expect_replaced_error("\"name\":\"add0\"", "\"name\":\"add0\",\"control_deps\":[]",
                        UTVM_ERR_GRAPH_JSON, "node 2: unknown key control_deps");
  expect_replaced_error("\"arg_nodes\"", "\"extra\":1,\"arg_nodes\"", UTVM_ERR_GRAPH_JSON,
                        "unknown key extra");
  expect_replaced_error("\"attrs\":{\"dltype\"",
                        "\"attrs\":{\"storage_scope\":[\"list_str\",[\"global\"]],\"dltype\"",
                        UTVM_ERR_GRAPH_JSON, "storage_scope of type list_str not supported");
  expect_replaced_error("\"attrs\":{\"dltype\"",
                        "\"attrs\":{\"extra\":[\"list_int\",[1,2]],\"dltype\"", UTVM_OK, "");
  expect_replaced_error("\"op\":\"tvm_op\"", "\"op\":\"cuda_op\"", UTVM_ERR_GRAPH_JSON,
                        "op is neither null nor tvm_op: cuda_op");
  expect_replaced_error("\"num_inputs\":\"2\"", "\"num_inputs\":\"3\"", UTVM_ERR_GRAPH_JSON,
                        "num_inputs does not match");
  expect_replaced_error("\"num_outputs\":\"1\"", "\"num_outputs\":1", UTVM_ERR_GRAPH_JSON,
                        "attrs value is not a string: num_outputs");
  expect_replaced_error("\"func_name\":\"test_add_f32\"", "\"func_name\":\"missing\"",
                        UTVM_ERR_GRAPH_FUNCTION, "node 2: function not in the module: missing");
  expect_replaced_error("\"func_name\":\"test_add_f32\"", "\"func_name\":\"__nop\"",
                        UTVM_ERR_GRAPH_JSON, "func_name not supported: __nop");
  expect_replaced_error("\"arg_nodes\":[0,1]", "\"arg_nodes\":[0,2]", UTVM_ERR_GRAPH_JSON,
                        "node 2: operator listed in arg_nodes");
  expect_replaced_error("{\"op\":\"null\",\"name\":\"x\",\"inputs\":[]}",
                        "{\"op\":\"null\",\"name\":\"x\",\"inputs\":[[1,0]]}", UTVM_ERR_GRAPH_JSON,
                        "input node with inputs");
  expect_replaced_error("\"name\":\"x\"", "\"name\":\"x\",\"name\":\"y\"", UTVM_ERR_GRAPH_JSON,
                        "duplicate key name");
  expect_replaced_error("\"name\":\"x\"", "\"name\":\"x\\u0041\"", UTVM_ERR_GRAPH_JSON,
                        "unsupported escape");
  /* Names: 119 characters pass, 120 do not. */
  char long_name[200];
  char letters[130];
  memset(letters, 'a', sizeof(letters));
  letters[119] = '\0';
  (void)snprintf(long_name, sizeof(long_name), "\"name\":\"%s\"", letters);
  expect_replaced_error("\"name\":\"add0\"", long_name, UTVM_OK, "");
  letters[119] = 'a';
  letters[120] = '\0';
  (void)snprintf(long_name, sizeof(long_name), "\"name\":\"%s\"", letters);
  expect_replaced_error("\"name\":\"add0\"", long_name, UTVM_ERR_GRAPH_JSON,
                        "graph JSON: node 2: name longer than 119 characters");
  char long_func[200];
  strcpy(long_func, "\"func_name\":\"");
  memset(&long_func[13], 'f', 120u);
  strcpy(&long_func[133], "\"");
  expect_replaced_error("\"func_name\":\"test_add_f32\"", long_func, UTVM_ERR_GRAPH_JSON,
                        "graph JSON: node 2: func_name longer than 119 characters");
  /* 1000 levels of nesting: refused at UTVM_GRAPH_MAX_JSON_DEPTH, without recursion. */
  char *deep = malloc(2200u);
  size_t n = (size_t)sprintf(deep, "{\"heads\":");
  for (int i = 0; i < 1000; i++) {
    deep[n++] = '[';
  }
  for (int i = 0; i < 1000; i++) {
    deep[n++] = ']';
  }
  strcpy(&deep[n], "}");
  expect_json_error(deep, UTVM_ERR_GRAPH_LIMIT, "nesting deeper than 8 levels");
  free(deep);
  expect_json_error("[]", UTVM_ERR_GRAPH_JSON, "expected '{'");
  expect_json_error("{\"nodes\":[]}x", UTVM_ERR_GRAPH_JSON, "");
  assert_int_equal(utvm_graph_memory_size(&g, NULL, 0u), UTVM_ERR_GRAPH_ARGUMENT);
  assert_int_equal(utvm_graph_memory_size(&g, kBase, UTVM_GRAPH_MAX_JSON_SIZE + 1u),
                   UTVM_ERR_GRAPH_LIMIT);
  assert_int_equal(utvm_graph_run(&g), UTVM_ERR_GRAPH_ARGUMENT); /* not ready after a failure */
}

static void test_hostile_params(void **state) {
  (void)state;
  uint8_t blob[256];
  assert_int_equal(init_json(kBase, strlen(kBase)), UTVM_OK);
  DLTensor *p = NULL;
  assert_int_equal(utvm_graph_input(&g, 1u, &p), UTVM_OK);
  memset(p->data, 0x55, 16u);
  size_t n = make_params(blob, "p", 4, kDLFloat);
  /* Every truncation, every bad magic: an error, and nothing copied. */
  for (size_t cut = 0u; cut < n; cut++) {
    assert_int_equal(utvm_graph_load_params(&g, blob, cut), UTVM_ERR_GRAPH_PARAMS);
    assert_non_null(strstr(g.error, "params: "));
  }
  assert_int_equal(((const uint8_t *)p->data)[15], 0x55u);
  blob[0] ^= 1u;
  assert_int_equal(utvm_graph_load_params(&g, blob, n), UTVM_ERR_GRAPH_PARAMS);
  assert_string_equal(g.error, "params: bad magic (not a parameter blob)");
  blob[0] ^= 1u;
  blob[41] ^= 1u; /* array magic */
  assert_int_equal(utvm_graph_load_params(&g, blob, n), UTVM_ERR_GRAPH_PARAMS);
  assert_string_equal(g.error, "params: p: bad array magic");
  blob[41] ^= 1u;
  blob[33] = 2u; /* array count */
  assert_int_equal(utvm_graph_load_params(&g, blob, n), UTVM_ERR_GRAPH_PARAMS);
  assert_string_equal(g.error, "params: names and arrays differ in number: 1 and 2");
  blob[33] = 1u;
  assert_int_equal(utvm_graph_load_params(&g, blob, n + 1u), UTVM_ERR_GRAPH_PARAMS);
  assert_string_equal(g.error, "params: bytes after the last array");
  n = make_params(blob, "q", 4, kDLFloat);
  assert_int_equal(utvm_graph_load_params(&g, blob, n), UTVM_ERR_GRAPH_PARAMS);
  assert_string_equal(g.error, "params: q: not a graph input");
  n = make_params(blob, "p", 4, kDLInt);
  assert_int_equal(utvm_graph_load_params(&g, blob, n), UTVM_ERR_GRAPH_PARAMS);
  assert_string_equal(g.error, "params: p: ndim or dtype differs from the graph input");
  n = make_params(blob, "p", 5, kDLFloat);
  assert_int_equal(utvm_graph_load_params(&g, blob, n), UTVM_ERR_GRAPH_PARAMS);
  assert_string_equal(g.error, "params: p: shape differs from the graph input");
  n = make_params(blob, "p", 4, kDLFloat);
  blob[n - 16u - 8u] = 20u; /* data_byte_size 20 */
  assert_int_equal(utvm_graph_load_params(&g, blob, n), UTVM_ERR_GRAPH_PARAMS);
  assert_string_equal(g.error, "params: p: data size differs from the graph input's 16");
  char name[100];
  memset(name, 'n', 80u);
  name[80] = '\0';
  n = make_params(blob, name, 4, kDLFloat);
  assert_int_equal(utvm_graph_load_params(&g, blob, n), UTVM_ERR_GRAPH_PARAMS);
  assert_string_equal(g.error, "params: name longer than 79 characters");
  assert_int_equal(((const uint8_t *)p->data)[15], 0x55u);
  n = make_params(blob, "p", 4, kDLFloat);
  assert_int_equal(utvm_graph_load_params(&g, blob, n), UTVM_OK);
  static const float loaded[4] = {100.0f, 200.0f, 300.0f, 400.0f};
  assert_memory_equal(p->data, loaded, 16u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_run_three_ops, setup, teardown),
      cmocka_unit_test_setup_teardown(test_input_info_and_share_params, setup, teardown),
      cmocka_unit_test_setup_teardown(test_plan_base_run_twice, setup, teardown),
      cmocka_unit_test_setup_teardown(test_plan_chain, setup, teardown),
      cmocka_unit_test_setup_teardown(test_plan_many_entries, setup, teardown),
      cmocka_unit_test_setup_teardown(test_plan_hostile_sizes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_metadata_ends_parsing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hostile_json, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hostile_params, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

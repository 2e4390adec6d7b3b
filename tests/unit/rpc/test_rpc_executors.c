/*
 * Graph and AOT executors over RPC, through utvm_rpc_server in-process (rpc_harness): NDArray
 * replies ([Int 13][DLTensor][Opaque nd]), FreeHandle(nd, 13), tvm.graph_executor.create with
 * the JSON as Str and as an uploaded uint8 tensor, load_params, set_input, run, outputs, hostile
 * requests answered by exceptions, release on TVMModFree and on a new session.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rpc_harness.h"
#include "utvm/aot.h"
#include "utvm/graph.h"

/* The graph of vectors/e2e_session.json (output = x + p over float32[4]) with the test system
 * library's name of its operator. */
static const char kGraph[] =
    "{\"nodes\":[{\"op\":\"null\",\"name\":\"x\",\"inputs\":[]},{\"op\":\"null\",\"name\":\"p\","
    "\"inputs\":[]},{\"op\":\"tvm_op\",\"name\":\"add0\",\"attrs\":{\"func_name\":\"test_add_f32\","
    "\"num_inputs\":\"2\",\"num_outputs\":\"1\",\"flatten_data\":\"0\"},\"inputs\":[[0,0,0],[1,0,"
    "0]]}],\"arg_nodes\":[0,1],\"heads\":[[2,0,0]],\"attrs\":{\"dltype\":[\"list_str\",["
    "\"float32\",\"float32\",\"float32\"]],\"storage_id\":[\"list_int\",[0,1,2]],\"shape\":["
    "\"list_shape\",[[4],[4],[4]]]},\"node_row_ptr\":[0,1,2,3]}";

/* p = 100, 200, 300, 400 (PROTOCOL.md 6.2). */
static const char kParamsHex[] =
    "b79c04054f8de5f7 0000000000000000 0100000000000000 0100000000000000 70 0100000000000000"
    "3fa1b496f0405edd 0000000000000000 01000000 00000000 01000000 02200100 0400000000000000"
    "1000000000000000 0000c842 00004843 00009643 0000c843";

static int setup(void **state) {
  (void)state;
  rpc_h_setup(0u);
  utvm_rpc_server_enable_ndarrays(rpc_h_server());
  assert_int_equal(utvm_graph_register_global(), UTVM_OK);
  assert_int_equal(utvm_aot_register_global(), UTVM_OK);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  rpc_h_teardown();
  return 0;
}

/* Calls function f with the arguments of b; the reply goes to reply. */
static void call(uint64_t f, const rpc_args_builder_t *b, test_bytes_t *reply) {
  test_bytes_t packet;
  test_bytes_init(&packet);
  rpc_packet_call(&packet, f, b);
  rpc_h_call(packet.data, packet.len, reply);
  test_bytes_free(&packet);
}

/* ModuleGetFunction(mod, name): the handle, 0 for a Null reply. */
static uint64_t module_function(uint64_t mod, const char *name) {
  rpc_args_builder_t b;
  test_bytes_t reply;
  rpc_reply_t r;
  rpc_ab_init(&b);
  test_bytes_init(&reply);
  rpc_ab_int(&b, kTVMModuleHandle, (int64_t)mod);
  rpc_ab_str(&b, name);
  rpc_ab_int(&b, kTVMArgBool, 1);
  call(rpc_h_get_global("tvm.rpc.server.ModuleGetFunction"), &b, &reply);
  rpc_parse_reply(reply.data, reply.len, &r);
  assert_int_equal(r.code, 4);
  assert_int_equal(r.num, 2);
  uint64_t h = (r.values[1].tc == kTVMNullptr) ? 0u : r.values[1].u;
  assert_int_equal(r.values[0].u, (h == 0u) ? (uint64_t)kTVMNullptr : (uint64_t)kTVMPackedFuncHandle);
  rpc_ab_free(&b);
  test_bytes_free(&reply);
  return h;
}

/* Calls mod's function name with b and returns the reply (the function handle is freed). */
static void call_method(uint64_t mod, const char *name, const rpc_args_builder_t *b,
                        test_bytes_t *reply) {
  uint64_t f = module_function(mod, name);
  assert_true(f != 0u);
  call(f, b, reply);
}

/* An NDArray reply: asserts the layout and float32[4], returns data and nd. */
static void expect_ndarray(const test_bytes_t *reply, uint64_t *data, uint64_t *nd) {
  rpc_reply_t r;
  rpc_parse_reply(reply->data, reply->len, &r);
  assert_int_equal(r.code, 4);
  assert_int_equal(r.num, 3);
  assert_int_equal(r.values[0].tc, kTVMArgInt);
  assert_int_equal(r.values[0].u, 13u);
  assert_int_equal(r.values[1].tc, kTVMDLTensorHandle);
  assert_int_equal(r.values[1].len, 40u);
  const uint8_t *t = r.values[1].bytes;
  assert_int_equal(rpc_get_u32(&t[8]), 1u);  /* kDLCPU */
  assert_int_equal(rpc_get_u32(&t[12]), 0u); /* device id */
  assert_int_equal(rpc_get_u32(&t[16]), 1u); /* ndim */
  assert_int_equal(rpc_get_u32(&t[20]), 0x00012002u); /* float32 */
  assert_int_equal(rpc_get_u64(&t[24]), 4u);
  assert_int_equal(rpc_get_u64(&t[32]), 0u);
  assert_int_equal(r.values[2].tc, kTVMOpaqueHandle);
  *data = rpc_get_u64(t);
  *nd = r.values[2].u;
  assert_true(*data != 0u && *nd != 0u);
}

static void copy_floats_to(uint64_t data, const float *values) {
  test_bytes_t packet;
  test_bytes_t reply;
  test_bytes_init(&packet);
  test_bytes_init(&reply);
  rpc_packet_copy_to(&packet, data, 16, 0u, (const uint8_t *)values, 16u);
  rpc_h_call(packet.data, packet.len, &reply);
  rpc_expect_void(&reply);
  test_bytes_free(&packet);
  test_bytes_free(&reply);
}

static void expect_floats_at(uint64_t data, const float *expected) {
  test_bytes_t packet;
  test_bytes_t reply;
  rpc_reply_t r;
  test_bytes_init(&packet);
  test_bytes_init(&reply);
  rpc_packet_copy_from(&packet, data, 16, 0u, 16u);
  rpc_h_call(packet.data, packet.len, &reply);
  rpc_parse_reply(reply.data, reply.len, &r);
  assert_int_equal(r.code, 8);
  assert_int_equal(r.data_len, 16u);
  assert_memory_equal(r.data, expected, 16u);
  test_bytes_free(&packet);
  test_bytes_free(&reply);
}

static void free_handle(uint64_t h, int64_t kind, bool ok) {
  rpc_args_builder_t b;
  test_bytes_t packet;
  test_bytes_t reply;
  rpc_ab_init(&b);
  test_bytes_init(&packet);
  test_bytes_init(&reply);
  rpc_ab_int(&b, kTVMOpaqueHandle, (int64_t)h);
  rpc_ab_int(&b, kTVMArgInt, kind);
  rpc_packet_syscall(&packet, 10, &b);
  rpc_h_call(packet.data, packet.len, &reply);
  if (ok) {
    rpc_expect_void(&reply);
  } else {
    (void)rpc_expect_exception(&reply);
  }
  rpc_ab_free(&b);
  test_bytes_free(&packet);
  test_bytes_free(&reply);
}

/* Free tensor-arena bytes (DevGetAttr kAvailableGlobalMemory). */
static uint64_t free_arena_bytes(void) {
  rpc_args_builder_t b;
  test_bytes_t packet;
  test_bytes_t reply;
  rpc_reply_t r;
  rpc_ab_init(&b);
  test_bytes_init(&packet);
  test_bytes_init(&reply);
  rpc_ab_device(&b, 1, 0);
  rpc_ab_int(&b, kTVMArgInt, 15);
  rpc_packet_syscall(&packet, 12, &b);
  rpc_h_call(packet.data, packet.len, &reply);
  rpc_parse_reply(reply.data, reply.len, &r);
  assert_int_equal(r.code, 4);
  uint64_t v = r.values[0].u;
  rpc_ab_free(&b);
  test_bytes_free(&packet);
  test_bytes_free(&reply);
  return v;
}

/* tvm.graph_executor.create(json as Str); returns the module or 0 after an exception whose
 * text must contain needle. */
static uint64_t create_graph(const char *json, const char *needle) {
  rpc_args_builder_t b;
  test_bytes_t reply;
  rpc_ab_init(&b);
  test_bytes_init(&reply);
  rpc_ab_str(&b, json);
  rpc_ab_int(&b, kTVMModuleHandle, 0x8000);
  rpc_ab_int(&b, kTVMArgInt, 1);
  rpc_ab_int(&b, kTVMArgInt, 0);
  call(rpc_h_get_global(UTVM_GRAPH_CREATE_NAME), &b, &reply);
  uint64_t mod = 0u;
  if (needle == NULL) {
    mod = rpc_expect_call_result(&reply, kTVMModuleHandle);
  } else {
    const char *text = rpc_expect_exception(&reply);
    if (strstr(text, needle) == NULL) {
      fail_msg("exception \"%s\" lacks \"%s\"", text, needle);
    }
    rpc_h_expect_alive();
  }
  rpc_ab_free(&b);
  test_bytes_free(&reply);
  return mod;
}

static int64_t call_int(uint64_t mod, const char *name, const char *str_arg) {
  rpc_args_builder_t b;
  test_bytes_t reply;
  rpc_ab_init(&b);
  test_bytes_init(&reply);
  if (str_arg != NULL) {
    rpc_ab_str(&b, str_arg);
  }
  call_method(mod, name, &b, &reply);
  int64_t v = (int64_t)rpc_expect_call_result(&reply, kTVMArgInt);
  rpc_ab_free(&b);
  test_bytes_free(&reply);
  return v;
}

/* Calls mod.name(b) and expects an exception containing needle; the server stays usable. */
static void expect_method_exception(uint64_t mod, const char *name, const rpc_args_builder_t *b,
                                    const char *needle) {
  test_bytes_t reply;
  test_bytes_init(&reply);
  call_method(mod, name, b, &reply);
  const char *text = rpc_expect_exception(&reply);
  if (strstr(text, needle) == NULL) {
    fail_msg("exception \"%s\" lacks \"%s\"", text, needle);
  }
  rpc_h_expect_alive();
  test_bytes_free(&reply);
}

/* Calls mod.get_input_info() and expects Bytes holding exactly text. */
static void expect_input_info(uint64_t mod, const char *text) {
  rpc_args_builder_t b;
  test_bytes_t reply;
  rpc_reply_t r;
  rpc_ab_init(&b);
  test_bytes_init(&reply);
  call_method(mod, "get_input_info", &b, &reply);
  rpc_parse_reply(reply.data, reply.len, &r);
  assert_int_equal(r.code, 4);
  assert_int_equal(r.num, 2);
  assert_int_equal(r.values[1].tc, kTVMBytes);
  assert_int_equal(r.values[1].u, strlen(text));
  assert_memory_equal(r.values[1].bytes, text, strlen(text));
  rpc_ab_free(&b);
  test_bytes_free(&reply);
}

static void test_graph_flow(void **state) {
  (void)state;
  static const float ones[4] = {1.0f, 1.0f, 1.0f, 1.0f};
  static const float sums[4] = {101.0f, 201.0f, 301.0f, 401.0f};
  uint64_t before = free_arena_bytes();
  uint64_t mod = create_graph(kGraph, NULL);
  assert_int_equal(mod, 0x8001u);
  assert_true(free_arena_bytes() < before);
  assert_int_equal(call_int(mod, "get_num_inputs", NULL), 2);
  assert_int_equal(call_int(mod, "get_num_outputs", NULL), 1);
  assert_int_equal(call_int(mod, "get_input_index", "p"), 1);
  assert_int_equal(call_int(mod, "get_input_index", "nope"), -1);
  /* TVM's GraphModule constructor looks these up without a guard: they must exist. The two
   * zero-copy functions are looked up with a guard and are absent (Null). */
  static const char *const kConstructorLookups[9] = {
      "set_input",       "run",            "get_output",     "get_input",   "get_num_outputs",
      "get_input_index", "get_input_info", "get_num_inputs", "load_params"};
  for (size_t k = 0u; k < 9u; k++) {
    assert_true(module_function(mod, kConstructorLookups[k]) != 0u);
  }
  assert_true(module_function(mod, "share_params") != 0u);
  assert_int_equal(module_function(mod, "set_input_zero_copy"), 0u);
  assert_int_equal(module_function(mod, "set_output_zero_copy"), 0u);
  expect_input_info(mod, "{\"shape\": {\"x\": [4], \"p\": [4]}, "
                         "\"dtype\": {\"x\": \"float32\", \"p\": \"float32\"}}");

  rpc_args_builder_t b;
  test_bytes_t reply;
  uint64_t x_data = 0u;
  uint64_t x_nd = 0u;
  uint64_t out_data = 0u;
  uint64_t out_nd = 0u;
  rpc_ab_init(&b);
  test_bytes_init(&reply);
  rpc_ab_str(&b, "x");
  call_method(mod, "get_input", &b, &reply);
  expect_ndarray(&reply, &x_data, &x_nd);
  copy_floats_to(x_data, ones);
  /* get_input by index gives the same view. */
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  rpc_ab_int(&b, kTVMArgInt, 0);
  uint64_t again_data = 0u;
  uint64_t again_nd = 0u;
  call_method(mod, "get_input", &b, &reply);
  expect_ndarray(&reply, &again_data, &again_nd);
  assert_int_equal(again_data, x_data);
  assert_int_equal(again_nd, x_nd);

  test_bytes_t blob;
  test_bytes_init(&blob);
  test_hex_append(&blob, kParamsHex);
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  rpc_ab_bytes(&b, kTVMBytes, blob.data, blob.len);
  call_method(mod, "load_params", &b, &reply);
  (void)rpc_expect_call_result(&reply, kTVMNullptr);
  /* A loaded parameter is no input any more (TVM's get_input_info). */
  expect_input_info(mod, "{\"shape\": {\"x\": [4]}, \"dtype\": {\"x\": \"float32\"}}");
  /* share_params from itself changes nothing; from a module that is no graph executor, or
   * with a bad blob, it is refused. */
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  rpc_ab_int(&b, kTVMModuleHandle, (int64_t)mod);
  rpc_ab_bytes(&b, kTVMBytes, blob.data, blob.len);
  call_method(mod, "share_params", &b, &reply);
  (void)rpc_expect_call_result(&reply, kTVMNullptr);
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  rpc_ab_int(&b, kTVMModuleHandle, 0x8000);
  rpc_ab_bytes(&b, kTVMBytes, blob.data, blob.len);
  expect_method_exception(mod, "share_params", &b, "expected (graph executor Module");
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  rpc_ab_int(&b, kTVMModuleHandle, (int64_t)mod);
  rpc_ab_bytes(&b, kTVMBytes, blob.data, 20u);
  expect_method_exception(mod, "share_params", &b, "params: truncated");
  /* A second executor: the table is full, and the text says who holds the slot. */
  (void)create_graph(kGraph, "module table full: held by graph executor 0x00008001; free one "
                             "(FreeHandle) or raise UTVM_CRT_MAX_MODULES");
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  call_method(mod, "run", &b, &reply);
  (void)rpc_expect_call_result(&reply, kTVMNullptr);
  rpc_ab_int(&b, kTVMArgInt, 0);
  call_method(mod, "get_output", &b, &reply);
  expect_ndarray(&reply, &out_data, &out_nd);
  expect_floats_at(out_data, sums);

  /* set_input copies a host tensor's bytes into the input. */
  static const float twos[4] = {2.0f, 2.0f, 2.0f, 2.0f};
  static const float sums2[4] = {102.0f, 202.0f, 302.0f, 402.0f};
  uint64_t host_tensor = rpc_h_alloc(16u);
  copy_floats_to(host_tensor, twos);
  static const int64_t shape4[1] = {4};
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  rpc_ab_str(&b, "x");
  rpc_ab_tensor(&b, host_tensor, 1, 1, shape4, 0u);
  call_method(mod, "set_input", &b, &reply);
  (void)rpc_expect_call_result(&reply, kTVMNullptr);
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  call_method(mod, "run", &b, &reply);
  (void)rpc_expect_call_result(&reply, kTVMNullptr);
  expect_floats_at(out_data, sums2);

  /* Hostile calls: exceptions, and the executor keeps working. */
  static const int64_t shape3[1] = {3};
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  rpc_ab_str(&b, "x");
  rpc_ab_tensor(&b, host_tensor, 1, 1, shape3, 0u);
  expect_method_exception(mod, "set_input", &b, "size differs");
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  rpc_ab_int(&b, kTVMArgInt, 7);
  expect_method_exception(mod, "get_input", &b, "get_input");
  expect_method_exception(mod, "get_output", &b, "get_output");
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  blob.data[0] ^= 1u;
  rpc_ab_bytes(&b, kTVMBytes, blob.data, blob.len);
  expect_method_exception(mod, "load_params", &b, "params: bad magic");
  blob.data[0] ^= 1u;

  /* NDArray handles: executor views are released as a no-op, unknown ones raise. */
  free_handle(x_nd, 13, true);
  free_handle(out_nd, 13, true);
  free_handle(0x1234u, 13, false);
  free_handle(x_data + 3u, 13, false);
  rpc_h_expect_alive();
  free_handle(mod, 9, true);
  rpc_h_free(host_tensor);
  assert_int_equal(free_arena_bytes(), before);
  /* The module is gone; a second executor can be created in its place. */
  assert_int_equal(create_graph(kGraph, NULL), 0x8001u);
  free_handle(0x8001u, 9, true);
  assert_int_equal(free_arena_bytes(), before);
  rpc_ab_free(&b);
  test_bytes_free(&blob);
  test_bytes_free(&reply);
}

static void test_graph_json_as_tensor(void **state) {
  (void)state;
  /* The host uploads the JSON (larger than one request could carry) with CopyToRemote. */
  size_t len = strlen(kGraph);
  uint64_t upload = rpc_h_alloc(len);
  for (size_t at = 0u; at < len; at += 200u) {
    size_t n = (len - at < 200u) ? len - at : 200u;
    test_bytes_t packet;
    test_bytes_t reply;
    test_bytes_init(&packet);
    test_bytes_init(&reply);
    rpc_packet_copy_to(&packet, upload, (int64_t)len, at, (const uint8_t *)&kGraph[at], n);
    rpc_h_call(packet.data, packet.len, &reply);
    rpc_expect_void(&reply);
    test_bytes_free(&packet);
    test_bytes_free(&reply);
  }
  rpc_args_builder_t b;
  test_bytes_t reply;
  rpc_ab_init(&b);
  test_bytes_init(&reply);
  int64_t shape[1] = {(int64_t)len};
  rpc_ab_tensor_dtype(&b, upload, kDLUInt, 8u, 1, shape);
  rpc_ab_int(&b, kTVMModuleHandle, 0x8000);
  rpc_ab_int(&b, kTVMArgInt, 1);
  rpc_ab_int(&b, kTVMArgInt, 0);
  call(rpc_h_get_global(UTVM_GRAPH_CREATE_NAME), &b, &reply);
  uint64_t mod = rpc_expect_call_result(&reply, kTVMModuleHandle);
  /* The executor keeps nothing of the upload: overwrite it, then use the executor. */
  rpc_h_free(upload);
  (void)rpc_h_alloc(len);
  assert_int_equal(call_int(mod, "get_input_index", "p"), 1);
  assert_int_equal(call_int(mod, "get_input_index", "x"), 0);
  /* A float32 tensor is no JSON. */
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  shape[0] = (int64_t)len / 4;
  rpc_ab_tensor(&b, upload, 1, 1, shape, 0u);
  rpc_ab_int(&b, kTVMModuleHandle, 0x8000);
  rpc_ab_int(&b, kTVMArgInt, 1);
  rpc_ab_int(&b, kTVMArgInt, 0);
  call(rpc_h_get_global(UTVM_GRAPH_CREATE_NAME), &b, &reply);
  const char *text = rpc_expect_exception(&reply);
  assert_non_null(strstr(text, "uint8 tensor"));
  rpc_ab_free(&b);
  test_bytes_free(&reply);
}

static void test_graph_hostile_create(void **state) {
  (void)state;
  (void)create_graph("{\"nodes\":[", "graph JSON: truncated");
  (void)create_graph("{}", "missing key nodes");
  char deep[900]; /* 400 levels: the request must fit the harness buffer */
  size_t n = 0u;
  n += (size_t)snprintf(deep, sizeof(deep), "{\"heads\":");
  for (int i = 0; i < 400; i++) {
    deep[n++] = '[';
  }
  for (int i = 0; i < 400; i++) {
    deep[n++] = ']';
  }
  deep[n++] = '}';
  deep[n] = '\0';
  (void)create_graph(deep, "nesting deeper than 8 levels");
  /* Wrong device, wrong argument types. */
  rpc_args_builder_t b;
  test_bytes_t reply;
  rpc_ab_init(&b);
  test_bytes_init(&reply);
  rpc_ab_str(&b, kGraph);
  rpc_ab_int(&b, kTVMModuleHandle, 0x8000);
  rpc_ab_int(&b, kTVMArgInt, 2);
  rpc_ab_int(&b, kTVMArgInt, 0);
  call(rpc_h_get_global(UTVM_GRAPH_CREATE_NAME), &b, &reply);
  assert_non_null(strstr(rpc_expect_exception(&reply), "cpu(0)"));
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  rpc_ab_str(&b, kGraph);
  rpc_ab_int(&b, kTVMModuleHandle, 0x8005);
  rpc_ab_int(&b, kTVMArgInt, 1);
  rpc_ab_int(&b, kTVMArgInt, 0);
  call(rpc_h_get_global(UTVM_GRAPH_CREATE_NAME), &b, &reply);
  assert_non_null(strstr(rpc_expect_exception(&reply), "function not in the module"));
  rpc_h_expect_alive();
  rpc_ab_free(&b);
  test_bytes_free(&reply);
}

static void test_new_session_releases_executor(void **state) {
  (void)state;
  uint64_t before = free_arena_bytes();
  uint64_t mod = create_graph(kGraph, NULL);
  uint64_t run = module_function(mod, "run");
  utvm_crt_reset_memory(&rpc_h_server()->crt); /* what a new session does */
  assert_int_equal(free_arena_bytes(), before);
  rpc_args_builder_t b;
  test_bytes_t reply;
  rpc_ab_init(&b);
  test_bytes_init(&reply);
  call(run, &b, &reply);
  assert_non_null(strstr(rpc_expect_exception(&reply), "invalid function handle"));
  assert_int_equal(create_graph(kGraph, NULL), mod);
  rpc_ab_free(&b);
  test_bytes_free(&reply);
}

static void test_aot_flow(void **state) {
  (void)state;
  static const float input[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  static const float doubled[4] = {2.0f, 4.0f, 6.0f, 8.0f};
  uint64_t before = free_arena_bytes();
  rpc_args_builder_t b;
  test_bytes_t reply;
  rpc_ab_init(&b);
  test_bytes_init(&reply);
  rpc_ab_int(&b, kTVMModuleHandle, 0x8000);
  rpc_ab_device(&b, 1, 0);
  rpc_ab_str(&b, "default");
  call(rpc_h_get_global(UTVM_AOT_CREATE_NAME), &b, &reply);
  uint64_t mod = rpc_expect_call_result(&reply, kTVMModuleHandle);
  assert_int_equal(call_int(mod, "get_num_inputs", NULL), 1);
  assert_int_equal(call_int(mod, "get_num_outputs", NULL), 1);
  assert_int_equal(call_int(mod, "get_input_index", "x"), 0);
  assert_int_equal(call_int(mod, "get_input_index", "y"), -1);
  uint64_t in_data = 0u;
  uint64_t in_nd = 0u;
  uint64_t out_data = 0u;
  uint64_t out_nd = 0u;
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  rpc_ab_int(&b, kTVMArgInt, 0);
  call_method(mod, "get_input", &b, &reply);
  expect_ndarray(&reply, &in_data, &in_nd);
  call_method(mod, "get_input_name", &b, &reply);
  rpc_reply_t r;
  rpc_parse_reply(reply.data, reply.len, &r);
  assert_int_equal(r.values[1].tc, kTVMStr);
  assert_int_equal(r.values[1].u, 1u);
  assert_memory_equal(r.values[1].bytes, "x", 1u);
  copy_floats_to(in_data, input);
  test_bytes_t none;
  test_bytes_init(&none);
  rpc_args_builder_t empty;
  rpc_ab_init(&empty);
  call_method(mod, "run", &empty, &reply);
  (void)rpc_expect_call_result(&reply, kTVMNullptr);
  call_method(mod, "get_output", &b, &reply);
  expect_ndarray(&reply, &out_data, &out_nd);
  expect_floats_at(out_data, doubled);
  expect_method_exception(mod, "set_input", &empty, "not implemented");
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  rpc_ab_int(&b, kTVMArgInt, 1);
  expect_method_exception(mod, "get_output", &b, "get_output");
  free_handle(in_nd, 13, true);
  free_handle(out_nd, 13, true);
  free_handle(mod, 9, true);
  assert_int_equal(free_arena_bytes(), before);
  /* Unknown model name, wrong device. */
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  rpc_ab_int(&b, kTVMModuleHandle, 0x8000);
  rpc_ab_device(&b, 1, 0);
  rpc_ab_str(&b, "nope");
  call(rpc_h_get_global(UTVM_AOT_CREATE_NAME), &b, &reply);
  assert_non_null(strstr(rpc_expect_exception(&reply), "tvmgen_nope_get_c_metadata"));
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  rpc_ab_int(&b, kTVMModuleHandle, 0x8000);
  rpc_ab_device(&b, 2, 0);
  rpc_ab_str(&b, "default");
  call(rpc_h_get_global(UTVM_AOT_CREATE_NAME), &b, &reply);
  assert_non_null(strstr(rpc_expect_exception(&reply), "cpu(0)"));
  rpc_h_expect_alive();
  rpc_ab_free(&b);
  rpc_ab_free(&empty);
  test_bytes_free(&none);
  test_bytes_free(&reply);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_graph_flow, setup, teardown),
      cmocka_unit_test_setup_teardown(test_graph_json_as_tensor, setup, teardown),
      cmocka_unit_test_setup_teardown(test_graph_hostile_create, setup, teardown),
      cmocka_unit_test_setup_teardown(test_new_session_releases_executor, setup, teardown),
      cmocka_unit_test_setup_teardown(test_aot_flow, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

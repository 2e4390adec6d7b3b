/*
 * MinRPC server against vectors/rpc.json: every host->device request vector is fed (pointers
 * substituted by real allocations) and its reply checked, byte-exact where deterministic;
 * every device->host vector is produced byte-exact by the matching situation. Also every
 * argument type code, and runtime.RPCTimeEvaluator with the fake timer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rpc_harness.h"
#include "rpc_vectors.h"

/* Pointers used by the vectors, replaced by allocations of this server. */
#define VEC_PTR_A 0x20001000u
#define VEC_PTR_B 0x20002000u

static const rpc_vector_t *vec(const char *name) {
  const rpc_vector_t *v = rpc_vectors_find(name);
  assert_non_null(v);
  return v;
}

/* Replaces every 8-byte little-endian occurrence of from by to in bytes. */
static void substitute_u64(test_bytes_t *bytes, uint64_t from, uint64_t to) {
  for (size_t i = 0u; i + 8u <= bytes->len; i++) {
    if (rpc_get_u64(&bytes->data[i]) == from) {
      for (unsigned k = 0u; k < 8u; k++) {
        bytes->data[i + k] = (uint8_t)(to >> (8u * k));
      }
    }
  }
}

static void load_packet(test_bytes_t *out, const char *name) {
  const rpc_vector_t *v = vec(name);
  test_bytes_clear(out);
  test_bytes_append(out, v->rpc_packet, v->rpc_packet_len);
}

/* Asserts reply equals the rpc packet of the device->host vector name. */
static void expect_vector_reply(const test_bytes_t *reply, const char *name) {
  const rpc_vector_t *v = vec(name);
  assert_string_equal(v->direction, "device->host");
  if (!test_bytes_equal(reply, v->rpc_packet, v->rpc_packet_len)) {
    rpc_reply_t r;
    rpc_parse_reply(reply->data, reply->len, &r);
    (void)fprintf(stderr, "reply (code %d) differs from vector %s\n", (int)r.code, name);
    if (r.code == 5) {
      (void)fprintf(stderr, "exception: %s\n", rpc_expect_exception(reply));
    }
    fail();
  }
}

/* ---------------------------------------------------------------- test functions */

/* test.types(...): returns a Str listing the argument type codes, comma-separated. */
static char types_text[128];
static int fn_types(TVMValue *args, int *codes, int num, TVMValue *ret, int *ret_tc, void *r) {
  (void)args;
  (void)r;
  size_t len = 0u;
  types_text[0] = '\0';
  for (int i = 0; i < num && len + 8u < sizeof(types_text); i++) {
    len += (size_t)snprintf(&types_text[len], sizeof(types_text) - len, "%s%d", i ? "," : "",
                            codes[i]);
  }
  ret->v_str = types_text;
  *ret_tc = kTVMStr;
  return 0;
}

/* test.arg(x): returns x with its type code; a DLTensor comes back as its data pointer (3). */
static int fn_arg(TVMValue *args, int *codes, int num, TVMValue *ret, int *ret_tc, void *r) {
  (void)r;
  if (num != 1) {
    TVMAPISetLastError("test.arg: one argument");
    return -1;
  }
  if (codes[0] == kTVMDLTensorHandle) {
    ret->v_handle = ((DLTensor *)args[0].v_handle)->data;
    *ret_tc = kTVMOpaqueHandle;
    return 0;
  }
  *ret = args[0];
  *ret_tc = codes[0];
  return 0;
}

/* test.fail(Str text): fails with text as the last error. */
static int fn_fail(TVMValue *args, int *codes, int num, TVMValue *ret, int *ret_tc, void *r) {
  (void)ret;
  (void)ret_tc;
  (void)r;
  if (num == 1 && codes[0] == kTVMStr) {
    TVMAPISetLastError(args[0].v_str);
  }
  return -1;
}

/* test.void(): returns nothing. */
static int fn_void(TVMValue *args, int *codes, int num, TVMValue *ret, int *ret_tc, void *r) {
  (void)args;
  (void)codes;
  (void)num;
  (void)ret;
  (void)ret_tc;
  (void)r;
  return 0;
}

/* test.ndarray(): claims to return an NDArray (which the server cannot send). */
static int fn_ndarray(TVMValue *args, int *codes, int num, TVMValue *ret, int *ret_tc, void *r) {
  (void)args;
  (void)codes;
  (void)num;
  (void)r;
  ret->v_handle = types_text;
  *ret_tc = kTVMNDArrayHandle;
  return 0;
}

static int setup(void **state) {
  (void)state;
  rpc_h_setup(8192u);
  assert_int_equal(utvm_crt_register_global("test.types", fn_types, NULL), UTVM_OK);
  assert_int_equal(utvm_crt_register_global("test.arg", fn_arg, NULL), UTVM_OK);
  assert_int_equal(utvm_crt_register_global("test.fail", fn_fail, NULL), UTVM_OK);
  assert_int_equal(utvm_crt_register_global("test.void", fn_void, NULL), UTVM_OK);
  assert_int_equal(utvm_crt_register_global("test.ndarray", fn_ndarray, NULL), UTVM_OK);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  rpc_h_teardown();
  return 0;
}

/* ---------------------------------------------------------------- host->device vectors */

static void test_syscall_vectors(void **state) {
  (void)state;
  test_bytes_t p;
  test_bytes_t reply;
  test_bytes_init(&p);
  test_bytes_init(&reply);

  load_packet(&p, "GetGlobalFunc_runtime.SystemLib");
  rpc_h_call(p.data, p.len, &reply);
  expect_vector_reply(&reply, "Return_handle");

  load_packet(&p, "FreeHandle_func"); /* 0x80008000 = test_add_f32 here */
  rpc_h_call(p.data, p.len, &reply);
  expect_vector_reply(&reply, "Return_void");

  load_packet(&p, "DevSetDevice_cpu0");
  rpc_h_call(p.data, p.len, &reply);
  expect_vector_reply(&reply, "Return_void");

  load_packet(&p, "DevGetAttr_cpu0_kind1");
  rpc_h_call(p.data, p.len, &reply);
  assert_non_null(strstr(rpc_expect_exception(&reply), "DevGetAttr"));

  load_packet(&p, "DevStreamSync_null_stream");
  rpc_h_call(p.data, p.len, &reply);
  expect_vector_reply(&reply, "Return_void");

  load_packet(&p, "InitServer_0.8.0_noargs");
  rpc_h_call(p.data, p.len, &reply);
  expect_vector_reply(&reply, "Return_void");

  /* Allocations: the handle is usable for a copy and can be freed exactly once. */
  static const char *const allocs[] = {"DevAllocData_16B_align64_f32",
                                       "DevAllocDataWithScope_f32x4_null",
                                       "DevAllocDataWithScope_f32x4_global"};
  for (size_t i = 0u; i < 3u; i++) {
    load_packet(&p, allocs[i]);
    rpc_h_call(p.data, p.len, &reply);
    uint64_t ptr = rpc_expect_handle(&reply);
    assert_true(ptr != 0u && (ptr % 64u) == 0u);
    load_packet(&p, "CopyToRemote_4xf32");
    substitute_u64(&p, VEC_PTR_A, ptr);
    rpc_h_call(p.data, p.len, &reply);
    expect_vector_reply(&reply, "Return_void");
    load_packet(&p, "CopyFromRemote_16B");
    substitute_u64(&p, VEC_PTR_A, ptr);
    rpc_h_call(p.data, p.len, &reply);
    expect_vector_reply(&reply, "CopyAck_4xf32");
    load_packet(&p, "DevFreeData");
    substitute_u64(&p, VEC_PTR_A, ptr);
    rpc_h_call(p.data, p.len, &reply);
    expect_vector_reply(&reply, "Return_void");
    rpc_h_call(p.data, p.len, &reply); /* double free */
    (void)rpc_expect_exception(&reply);
  }
  test_bytes_free(&p);
  test_bytes_free(&reply);
}

static void test_copy_among_and_call_vectors(void **state) {
  (void)state;
  test_bytes_t p;
  test_bytes_t reply;
  test_bytes_init(&p);
  test_bytes_init(&reply);
  uint64_t a = rpc_h_alloc(16u);
  uint64_t b = rpc_h_alloc(16u);

  load_packet(&p, "CopyToRemote_4xf32"); /* a = 1, 2, 3, 4 */
  substitute_u64(&p, VEC_PTR_A, a);
  rpc_h_call(p.data, p.len, &reply);
  expect_vector_reply(&reply, "Return_void");

  load_packet(&p, "CopyAmongRemote"); /* b = a */
  substitute_u64(&p, VEC_PTR_A, a);
  substitute_u64(&p, VEC_PTR_B, b);
  rpc_h_call(p.data, p.len, &reply);
  expect_vector_reply(&reply, "Return_void");
  load_packet(&p, "CopyFromRemote_16B");
  substitute_u64(&p, VEC_PTR_A, b);
  rpc_h_call(p.data, p.len, &reply);
  expect_vector_reply(&reply, "CopyAck_4xf32");

  /* CallFunc_3_DLTensors: 0x80008000 is test_add_f32 here; (a, b, a) makes a = 2, 4, 6, 8. */
  load_packet(&p, "CallFunc_3_DLTensors");
  substitute_u64(&p, VEC_PTR_A, a);
  substitute_u64(&p, VEC_PTR_B, b);
  rpc_h_call(p.data, p.len, &reply);
  expect_vector_reply(&reply, "Return_callfunc_void");
  rpc_packet_copy_from(&p, a, 16, 0u, 16u);
  rpc_h_call(p.data, p.len, &reply);
  static const float doubled[4] = {2.0f, 4.0f, 6.0f, 8.0f};
  assert_int_equal(reply.len, 12u + 16u);
  assert_memory_equal(&reply.data[12], doubled, 16u);

  load_packet(&p, "CallFunc_noargs"); /* runtime.SystemLib() */
  rpc_h_call(p.data, p.len, &reply);
  expect_vector_reply(&reply, "Return_callfunc_module");

  load_packet(&p, "CallFunc_ModuleGetFunction"); /* "add" is not in this system library */
  rpc_h_call(p.data, p.len, &reply);
  expect_vector_reply(&reply, "Return_callfunc_void");

  load_packet(&p, "CallFunc_RPCTimeEvaluator"); /* times "add": absent here */
  rpc_h_call(p.data, p.len, &reply);
  (void)rpc_expect_exception(&reply);

  /* CallFunc_mixed_types through test.types; the opaque 0x1234 must be a tensor pointer. */
  load_packet(&p, "CallFunc_mixed_types");
  assert_int_equal(rpc_get_u64(&p.data[12]), 0x80008003u);
  substitute_u64(&p, 0x80008003u, rpc_h_get_global("test.types"));
  rpc_h_call(p.data, p.len, &reply);
  (void)rpc_expect_exception(&reply);
  substitute_u64(&p, 0x1234u, a);
  rpc_h_call(p.data, p.len, &reply);
  uint64_t len = rpc_expect_call_result(&reply, kTVMStr);
  assert_int_equal(len, strlen("0,2,5,6,3,4,12,15"));
  assert_memory_equal(&reply.data[reply.len - len], "0,2,5,6,3,4,12,15", len);

  rpc_h_free(a);
  rpc_h_free(b);
  test_bytes_free(&p);
  test_bytes_free(&reply);
}

static void test_shutdown_vector(void **state) {
  (void)state;
  test_bytes_t p;
  test_bytes_init(&p);
  uint64_t a = rpc_h_alloc(64u);
  load_packet(&p, "Shutdown");
  rpc_h_expect_no_reply(p.data, p.len);
  /* Shutdown released every tensor: a is no longer a valid pointer. */
  test_bytes_t reply;
  test_bytes_init(&reply);
  rpc_packet_copy_from(&p, a, 64, 0u, 4u);
  rpc_h_call(p.data, p.len, &reply);
  (void)rpc_expect_exception(&reply);
  rpc_h_expect_alive();
  test_bytes_free(&p);
  test_bytes_free(&reply);
}

/* ---------------------------------------------------------------- device->host vectors */

static void call1(uint64_t f, rpc_args_builder_t *b, test_bytes_t *reply) {
  test_bytes_t p;
  test_bytes_init(&p);
  rpc_packet_call(&p, f, b);
  rpc_h_call(p.data, p.len, reply);
  test_bytes_free(&p);
  rpc_ab_free(b);
  rpc_ab_init(b);
}

static void test_reply_vectors(void **state) {
  (void)state;
  rpc_args_builder_t b;
  test_bytes_t reply;
  rpc_ab_init(&b);
  test_bytes_init(&reply);
  uint64_t echo = rpc_h_syslib_function("test_echo");
  assert_int_equal(echo, 0x80008001u);

  rpc_ab_int(&b, kTVMArgInt, 42);
  call1(echo, &b, &reply);
  expect_vector_reply(&reply, "Return_callfunc_int");

  rpc_ab_str(&b, "hello");
  call1(echo, &b, &reply);
  expect_vector_reply(&reply, "Return_callfunc_str");

  call1(rpc_h_get_global("test.void"), &b, &reply);
  expect_vector_reply(&reply, "Return_callfunc_void");

  call1(rpc_h_get_global("runtime.SystemLib"), &b, &reply);
  expect_vector_reply(&reply, "Return_callfunc_module");

  rpc_ab_int(&b, kTVMModuleHandle, 0x8000);
  rpc_ab_str(&b, "test_add_f32");
  rpc_ab_int(&b, kTVMArgBool, 1);
  call1(rpc_h_get_global("tvm.rpc.server.ModuleGetFunction"), &b, &reply);
  expect_vector_reply(&reply, "Return_callfunc_packedfunc");

  rpc_ab_str(&b, "GetAttr not supported");
  call1(rpc_h_get_global("test.fail"), &b, &reply);
  expect_vector_reply(&reply, "Exception_GetAttr");

  /* Return_callfunc_bytes_timeeval: 0.25 s and 1 us for repeat = 2, number = 1. */
  rpc_ab_int(&b, kTVMModuleHandle, 0x8000);
  rpc_ab_str(&b, "test_echo");
  static const int64_t te_args[9] = {1, 0, 1, 2, 0, 100, 0, 1, 0};
  for (size_t i = 0u; i < 9u; i++) {
    rpc_ab_int(&b, kTVMArgInt, te_args[i]);
  }
  rpc_ab_str(&b, "");
  call1(rpc_h_get_global("runtime.RPCTimeEvaluator"), &b, &reply);
  uint64_t timer = rpc_expect_call_result(&reply, kTVMPackedFuncHandle);
  static const uint64_t ticks[2] = {250000000u, 1000u};
  fake_timer_script(ticks, 2u);
  rpc_ab_int(&b, kTVMArgInt, 7);
  call1(timer, &b, &reply);
  expect_vector_reply(&reply, "Return_callfunc_bytes_timeeval");

  /* Return_callfunc_ndarray cannot be produced: the server has no NDArray objects, and a
   * function returning one gets an exception instead of a malformed reply. */
  call1(rpc_h_get_global("test.ndarray"), &b, &reply);
  (void)rpc_expect_exception(&reply);

  rpc_ab_free(&b);
  test_bytes_free(&reply);
}

/* ---------------------------------------------------------------- type codes */

static void test_every_type_code(void **state) {
  (void)state;
  rpc_args_builder_t b;
  test_bytes_t reply;
  rpc_ab_init(&b);
  test_bytes_init(&reply);
  uint64_t echo = rpc_h_syslib_function("test_echo");
  uint64_t arg = rpc_h_get_global("test.arg");
  uint64_t tensor = rpc_h_alloc(64u);

  rpc_ab_int(&b, kTVMArgInt, -2);
  call1(echo, &b, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMArgInt), (uint64_t)(int64_t)-2);
  rpc_ab_int(&b, kDLUInt, 0x7FFFFFFFFFFFFFFF);
  call1(echo, &b, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kDLUInt), 0x7FFFFFFFFFFFFFFFu);
  rpc_ab_float(&b, 1.5);
  call1(echo, &b, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMArgFloat), 0x3FF8000000000000u);
  rpc_ab_int(&b, kTVMArgBool, 1);
  call1(echo, &b, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMArgBool), 1u);
  rpc_ab_null(&b);
  call1(echo, &b, &reply);
  test_bytes_t expected;
  test_bytes_init(&expected);
  test_hex_append(&expected, "1800000000000000 04000000 02000000 00000000 04000000 0400000000000000");
  assert_true(test_bytes_equal(&reply, expected.data, expected.len));
  static const uint8_t blob[3] = {0x01, 0xFF, 0x00};
  rpc_ab_bytes(&b, kTVMBytes, blob, 3u);
  call1(echo, &b, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMBytes), 3u);
  assert_memory_equal(&reply.data[reply.len - 3u], blob, 3u);
  rpc_ab_str(&b, "");
  call1(echo, &b, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMStr), 0u);

  rpc_ab_dtype(&b, kDLFloat, 32u, 1u);
  call1(arg, &b, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMDataType), 0x00012002u);
  rpc_ab_device(&b, kDLCPU, 0);
  call1(arg, &b, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kDLDevice), 1u);
  rpc_ab_int(&b, kTVMOpaqueHandle, (int64_t)tensor);
  call1(arg, &b, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMOpaqueHandle), tensor);
  rpc_ab_int(&b, kTVMModuleHandle, 0x8000);
  call1(arg, &b, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMModuleHandle), 0x8000u);
  rpc_ab_int(&b, kTVMPackedFuncHandle, (int64_t)echo);
  call1(arg, &b, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMPackedFuncHandle), echo);
  static const int64_t shape[1] = {16};
  rpc_ab_tensor(&b, tensor, kDLCPU, 1, shape, 0u);
  call1(arg, &b, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMOpaqueHandle), tensor);
  /* Several arguments of every kind at once. */
  rpc_ab_int(&b, kTVMArgInt, 1);
  rpc_ab_int(&b, kDLUInt, 2);
  rpc_ab_float(&b, 3.0);
  rpc_ab_int(&b, kTVMOpaqueHandle, (int64_t)tensor);
  rpc_ab_null(&b);
  rpc_ab_dtype(&b, kDLInt, 8u, 4u);
  rpc_ab_device(&b, kDLCPU, 0);
  rpc_ab_tensor(&b, tensor, kDLCPU, 1, shape, 0u);
  rpc_ab_int(&b, kTVMModuleHandle, 0x8000);
  rpc_ab_int(&b, kTVMPackedFuncHandle, (int64_t)echo);
  rpc_ab_str(&b, "s");
  rpc_ab_bytes(&b, kTVMBytes, blob, 3u);
  rpc_ab_int(&b, kTVMArgBool, 0);
  call1(rpc_h_get_global("test.types"), &b, &reply);
  static const char all[] = "0,1,2,3,4,5,6,7,9,10,11,12,15";
  assert_int_equal(rpc_expect_call_result(&reply, kTVMStr), strlen(all));
  assert_memory_equal(&reply.data[reply.len - strlen(all)], all, strlen(all));

  /* test_echo refuses what it does not echo, with an exception. */
  rpc_ab_dtype(&b, kDLFloat, 32u, 1u);
  call1(echo, &b, &reply);
  assert_non_null(strstr(rpc_expect_exception(&reply), "test_echo"));

  rpc_h_free(tensor);
  test_bytes_free(&expected);
  rpc_ab_free(&b);
  test_bytes_free(&reply);
}

/* ---------------------------------------------------------------- time evaluator */

static void test_time_evaluator_busy_wait(void **state) {
  (void)state;
  rpc_args_builder_t b;
  test_bytes_t reply;
  rpc_ab_init(&b);
  test_bytes_init(&reply);
  rpc_ab_int(&b, kTVMModuleHandle, 0x8000);
  rpc_ab_str(&b, "test_busy_wait_us");
  /* device 1/0, number 2, repeat 3, min_repeat_ms 0, limit_zero 100, cooldown 0, 1, 0. */
  static const int64_t te_args[9] = {1, 0, 2, 3, 0, 100, 0, 1, 0};
  for (size_t i = 0u; i < 9u; i++) {
    rpc_ab_int(&b, kTVMArgInt, te_args[i]);
  }
  rpc_ab_str(&b, "");
  call1(rpc_h_get_global("runtime.RPCTimeEvaluator"), &b, &reply);
  uint64_t timer = rpc_expect_call_result(&reply, kTVMPackedFuncHandle);
  assert_int_equal(timer >> 16, 0xFFFFu);

  /* test_busy_wait_us(50) reads the fake clock 51 times (1 us per read) and each
   * measurement's TimerStopNs adds the scripted 1 us: 2 calls measure (2 * 51 + 1) us, and
   * the mean is exactly the double nearest to that over 2 calls. */
  static const uint64_t tick[1] = {1000u};
  fake_timer_script(tick, 1u);
  rpc_ab_int(&b, kTVMArgInt, 50);
  call1(timer, &b, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMBytes), 24u);
  const double mean = (double)((2u * 51u + 1u) * 1000u) / 1e9 / 2.0;
  for (size_t i = 0u; i < 3u; i++) {
    double got;
    (void)memcpy(&got, &reply.data[reply.len - 24u + 8u * i], sizeof(got));
    if (got != mean) {
      (void)fprintf(stderr, "repeat %zu: %.17g s, expected %.17g s\n", i, got, mean);
    }
    assert_true(got == mean);
  }
  /* One measurement (one timer start) per repeat. */
  assert_int_equal(fake_timer_starts(), 3u);

  /* The timed function's failure is an exception; the evaluator can be freed. */
  rpc_ab_int(&b, kTVMArgInt, -1);
  call1(timer, &b, &reply);
  assert_non_null(strstr(rpc_expect_exception(&reply), "test_busy_wait_us"));
  test_bytes_t p;
  test_bytes_init(&p);
  rpc_ab_int(&b, kTVMOpaqueHandle, (int64_t)timer);
  rpc_ab_int(&b, kTVMArgInt, kTVMPackedFuncHandle);
  rpc_packet_syscall(&p, 10, &b);
  rpc_h_call(p.data, p.len, &reply);
  rpc_expect_void(&reply);
  test_bytes_free(&p);
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  rpc_ab_int(&b, kTVMArgInt, 50);
  call1(timer, &b, &reply);
  assert_non_null(strstr(rpc_expect_exception(&reply), "invalid function handle"));
  rpc_ab_free(&b);
  test_bytes_free(&reply);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_syscall_vectors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_copy_among_and_call_vectors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_shutdown_vector, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reply_vectors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_every_type_code, setup, teardown),
      cmocka_unit_test_setup_teardown(test_time_evaluator_busy_wait, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

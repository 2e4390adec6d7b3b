/* Tests of the test system library (tests/syslib) called through the runtime, the way the RPC
 * server calls it: runtime.SystemLib, tvm.rpc.server.ModuleGetFunction, TVMFuncCall. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "crt_test_support.h"
#include "test_syslib.h"
#include "utvm/kfuncs.h"
#include "tvm/runtime/crt/platform.h"
#include "utvm/crt.h"

static const DLDevice kCpu = {kDLCPU, 0};
static const DLDataType kFloat32 = {kDLFloat, 32u, 1u};

static int setup(void **state) {
  (void)state;
  return test_runtime_start(TVMSystemLibEntryPoint()) == NULL ? -1 : 0;
}

static int teardown(void **state) {
  (void)state;
  test_runtime_stop();
  return 0;
}

/* runtime.SystemLib, then ModuleGetFunction(name): the handle, or NULL for a Null reply. */
static TVMFunctionHandle get_function(const char *name) {
  TVMFunctionHandle system_lib;
  TVMFunctionHandle module_get_function;
  TVMValue ret;
  int ret_code;
  TVMValue args[3];
  int codes[3] = {kTVMModuleHandle, kTVMStr, kTVMArgBool};
  assert_int_equal(TVMFuncGetGlobal("runtime.SystemLib", &system_lib), 0);
  assert_int_equal(TVMFuncCall(system_lib, NULL, NULL, 0, &ret, &ret_code), 0);
  assert_int_equal(ret_code, kTVMModuleHandle);
  args[0].v_handle = ret.v_handle;
  args[1].v_str = name;
  args[2].v_int64 = 1;
  assert_int_equal(TVMFuncGetGlobal("tvm.rpc.server.ModuleGetFunction", &module_get_function), 0);
  assert_int_equal(TVMFuncCall(module_get_function, args, codes, 3, &ret, &ret_code), 0);
  if (ret_code == kTVMNullptr) {
    return NULL;
  }
  assert_int_equal(ret_code, kTVMPackedFuncHandle);
  return ret.v_handle;
}

static void test_registry_lists_the_functions(void **state) {
  const TVMFuncRegistry *registry = TVMSystemLibEntryPoint()->registry;
  tvm_function_index_t index;
  (void)state;
  assert_int_equal(utvm_crt_registry_count(registry), TEST_SYSLIB_FUNCTION_COUNT);
  assert_int_equal(utvm_crt_registry_lookup(registry, "test_abort", &index), UTVM_OK);
  assert_int_equal(index, 3);
  assert_int_equal((uintptr_t)get_function("test_add_f32"), 0x80008000u);
  assert_int_equal((uintptr_t)get_function("test_echo"), 0x80008001u);
  assert_int_equal((uintptr_t)get_function("test_busy_wait_us"), 0x80008002u);
  assert_int_equal((uintptr_t)get_function("test_abort"), 0x80008003u);
  assert_int_equal((uintptr_t)get_function("test_sum_ints"), 0x80008004u);
  assert_null(get_function("test_missing"));
  /* utvm_crt_registry_name walks the same names in order. */
  assert_string_equal(utvm_crt_registry_name(registry, 0), "test_add_f32");
  assert_string_equal(utvm_crt_registry_name(registry, 4), "test_sum_ints");
  /* The kernel functions follow (utvm/kfuncs.h), the blob's count matching the array. */
  assert_int_equal(utvm_crt_registry_count(registry), TEST_SYSLIB_FUNCTION_COUNT);
  assert_string_equal(utvm_crt_registry_name(registry, 5), "utvm_k_conv2d_s8");
  assert_string_equal(utvm_crt_registry_name(registry, 21), "utvm_k_reshape");
  assert_string_equal(utvm_crt_registry_name(registry, 4 + UTVM_OP_KIND_MAX),
                      utvm_op_kind_function((utvm_op_kind_t)UTVM_OP_KIND_MAX));
  for (int k = 1; k <= UTVM_OP_KIND_MAX; k++) {
    tvm_function_index_t at = 0u;
    assert_int_equal(utvm_crt_registry_lookup(registry, utvm_op_kind_function((utvm_op_kind_t)k),
                                              &at), UTVM_OK);
    assert_int_equal(at, 4 + k);
  }
  /* utvm_k_kernels, then the AOT test model (replay of vectors/e2e_session.json). */
  assert_string_equal(utvm_crt_registry_name(registry, 5 + UTVM_OP_KIND_MAX), "utvm_k_kernels");
  assert_string_equal(utvm_crt_registry_name(registry, 6 + UTVM_OP_KIND_MAX),
                      "tvmgen_default_run");
  assert_string_equal(utvm_crt_registry_name(registry, 7 + UTVM_OP_KIND_MAX),
                      "tvmgen_default_get_c_metadata");
  assert_null(utvm_crt_registry_name(registry, 8 + UTVM_OP_KIND_MAX));
  assert_null(utvm_crt_registry_name(registry, -1));
  assert_null(utvm_crt_registry_name(NULL, 0));
}

/* ---- test_add_f32 ------------------------------------------------------------------------- */

typedef struct {
  DLTensor tensors[3];
  int64_t shapes[3][1];
  TVMValue args[3];
  int codes[3];
} add_call_t;

static void prepare_add(add_call_t *call, int64_t n) {
  int i;
  for (i = 0; i < 3; i++) {
    DLTensor *t = &call->tensors[i];
    call->shapes[i][0] = n;
    assert_int_equal(TVMDeviceAllocDataSpaceWithScope(kCpu, 1, call->shapes[i], kFloat32, NULL,
                                                      &t->data), 0);
    t->device = kCpu;
    t->ndim = 1;
    t->dtype = kFloat32;
    t->shape = call->shapes[i];
    t->strides = NULL;
    t->byte_offset = 0u;
    call->args[i].v_handle = t;
    call->codes[i] = kTVMDLTensorHandle;
  }
}

static int call_add(add_call_t *call, int num_args) {
  TVMValue ret;
  int ret_code;
  int result = TVMFuncCall(get_function("test_add_f32"), call->args, call->codes, num_args, &ret,
                           &ret_code);
  if (result == 0) {
    assert_int_equal(ret_code, kTVMNullptr);
  }
  return result;
}

static void test_add_f32_adds(void **state) {
  add_call_t call;
  float *a;
  float *b;
  float *out;
  int i;
  (void)state;
  prepare_add(&call, 5);
  a = (float *)call.tensors[0].data;
  b = (float *)call.tensors[1].data;
  out = (float *)call.tensors[2].data;
  for (i = 0; i < 5; i++) {
    a[i] = (float)i;
    b[i] = 0.5f * (float)i;
    out[i] = -1.0f;
  }
  assert_int_equal(call_add(&call, 3), 0);
  for (i = 0; i < 5; i++) {
    assert_true(out[i] == 1.5f * (float)i);
  }
  /* NDArray handles (type 13) are accepted as well. */
  call.codes[0] = kTVMNDArrayHandle;
  call.codes[2] = kTVMNDArrayHandle;
  assert_int_equal(call_add(&call, 3), 0);
  /* Empty vectors. */
  call.shapes[0][0] = 0;
  call.shapes[1][0] = 0;
  call.shapes[2][0] = 0;
  assert_int_equal(call_add(&call, 3), 0);
}

static void test_add_f32_rejects_bad_arguments(void **state) {
  add_call_t call;
  int64_t strides[1] = {1};
  DLDataType int32 = {kDLInt, 32u, 1u};
  DLDataType float32x2 = {kDLFloat, 32u, 2u};
  (void)state;
  prepare_add(&call, 4);
  assert_int_equal(call_add(&call, 2), -1);
  assert_string_equal(test_last_error(), "test_add_f32: expected 3 arguments");
  call.codes[1] = kTVMOpaqueHandle;
  assert_int_equal(call_add(&call, 3), -1);
  assert_string_equal(test_last_error(), "test_add_f32: arguments must be tensors (type code 7 or 13)");
  call.codes[1] = kTVMDLTensorHandle;
  call.args[2].v_handle = NULL;
  assert_int_equal(call_add(&call, 3), -1);
  assert_string_equal(test_last_error(), "test_add_f32: tensors must be 1-D");
  call.args[2].v_handle = &call.tensors[2];
  call.tensors[0].ndim = 2;
  assert_int_equal(call_add(&call, 3), -1);
  assert_string_equal(test_last_error(), "test_add_f32: tensors must be 1-D");
  call.tensors[0].ndim = 1;
  call.tensors[1].dtype = int32;
  assert_int_equal(call_add(&call, 3), -1);
  assert_string_equal(test_last_error(), "test_add_f32: tensors must be float32");
  call.tensors[1].dtype = float32x2;
  assert_int_equal(call_add(&call, 3), -1);
  call.tensors[1].dtype = kFloat32;
  call.shapes[2][0] = 3;
  assert_int_equal(call_add(&call, 3), -1);
  assert_string_equal(test_last_error(), "test_add_f32: shapes differ");
  call.shapes[2][0] = 4;
  call.tensors[2].strides = strides;
  assert_int_equal(call_add(&call, 3), -1);
  call.tensors[2].strides = NULL;
  call.tensors[2].byte_offset = 4u;
  assert_int_equal(call_add(&call, 3), -1);
  call.tensors[2].byte_offset = 0u;
  call.tensors[2].device.device_type = kDLCUDA;
  assert_int_equal(call_add(&call, 3), -1);
  call.tensors[2].device.device_type = kDLCPU;
  call.tensors[0].data = NULL;
  assert_int_equal(call_add(&call, 3), -1);
  assert_string_equal(test_last_error(), "test_add_f32: NULL tensor data");
}

/* ---- test_echo ---------------------------------------------------------------------------- */

static int echo(TVMValue in, int in_code, TVMValue *out, int *out_code) {
  return TVMFuncCall(get_function("test_echo"), &in, &in_code, 1, out, out_code);
}

static void test_echo_scalars_and_strings(void **state) {
  static const int kScalarCodes[4] = {kTVMArgInt, kDLUInt, kTVMArgFloat, kTVMArgBool};
  static const char kText[] = "hello";
  TVMValue in;
  TVMValue out;
  int out_code;
  int i;
  (void)state;
  for (i = 0; i < 4; i++) {
    in.v_int64 = 0x0123456789ABCDEFll + i;
    assert_int_equal(echo(in, kScalarCodes[i], &out, &out_code), 0);
    assert_int_equal(out_code, kScalarCodes[i]);
    assert_int_equal(out.v_int64, in.v_int64);
  }
  in.v_float64 = -2.5;
  assert_int_equal(echo(in, kTVMArgFloat, &out, &out_code), 0);
  assert_true(out.v_float64 == -2.5);
  in.v_str = kText;
  assert_int_equal(echo(in, kTVMStr, &out, &out_code), 0);
  assert_int_equal(out_code, kTVMStr);
  assert_ptr_equal(out.v_str, kText);
  in.v_handle = NULL;
  assert_int_equal(echo(in, kTVMNullptr, &out, &out_code), 0);
  assert_int_equal(out_code, kTVMNullptr);
  assert_int_equal(echo(in, kTVMDLTensorHandle, &out, &out_code), -1);
  assert_string_equal(test_last_error(), "test_echo: unsupported type code");
  assert_int_equal(TVMFuncCall(get_function("test_echo"), &in, &out_code, 2, &out, &out_code), -1);
  assert_string_equal(test_last_error(), "test_echo: expected 1 argument");
}

static void test_echo_bytes_is_an_arena_copy(void **state) {
  static const char kPayload[] = {'\x00', '\xff', 'a', '\x7f'};
  TVMByteArray in_array = {kPayload, sizeof(kPayload)};
  TVMByteArray empty = {NULL, 0u};
  TVMByteArray broken = {NULL, 3u};
  TVMValue in;
  TVMValue out;
  int out_code;
  TVMByteArray *result;
  uint8_t *base;
  size_t size;
  size_t free_before = utvm_page_free_bytes(&test_runtime()->tensors);
  (void)state;
  in.v_handle = &in_array;
  assert_int_equal(echo(in, kTVMBytes, &out, &out_code), 0);
  assert_int_equal(out_code, kTVMBytes);
  result = (TVMByteArray *)out.v_handle;
  assert_ptr_not_equal(result, &in_array);
  assert_ptr_not_equal(result->data, kPayload);
  assert_int_equal(result->size, sizeof(kPayload));
  assert_memory_equal(result->data, kPayload, sizeof(kPayload));
  assert_int_equal(utvm_crt_data_range(result, &base, &size), UTVM_OK);
  assert_int_equal(utvm_crt_data_range(result->data, &base, &size), UTVM_OK);
  /* The caller (the RPC server) frees data, then the struct. */
  assert_int_equal(TVMPlatformMemoryFree((void *)(uintptr_t)result->data, kCpu), UTVM_OK);
  assert_int_equal(TVMPlatformMemoryFree(result, kCpu), UTVM_OK);
  assert_int_equal(utvm_page_free_bytes(&test_runtime()->tensors), free_before);
  in.v_handle = &empty;
  assert_int_equal(echo(in, kTVMBytes, &out, &out_code), 0);
  result = (TVMByteArray *)out.v_handle;
  assert_int_equal(result->size, 0u);
  assert_int_equal(TVMByteArrayFree(result), 0);
  in.v_handle = &broken;
  assert_int_equal(echo(in, kTVMBytes, &out, &out_code), -1);
  in.v_handle = NULL;
  assert_int_equal(echo(in, kTVMBytes, &out, &out_code), -1);
  assert_int_equal(utvm_page_free_bytes(&test_runtime()->tensors), free_before);
}

static void test_echo_bytes_without_memory(void **state) {
  static const char kPayload[] = "x";
  TVMByteArray in_array = {kPayload, 1u};
  TVMValue in;
  TVMValue out;
  int out_code;
  void *all;
  size_t free_before = utvm_page_free_bytes(&test_runtime()->tensors);
  (void)state;
  /* Leave exactly one page: the struct fits, the data does not. */
  assert_int_equal(TVMPlatformMemoryAllocate(free_before - 64u, kCpu, &all), UTVM_OK);
  in.v_handle = &in_array;
  assert_int_equal(echo(in, kTVMBytes, &out, &out_code), -1);
  assert_string_equal(test_last_error(), "test_echo: out of memory");
  assert_int_equal(utvm_page_free_bytes(&test_runtime()->tensors), 64u);
  assert_int_equal(TVMPlatformMemoryAllocate(64u, kCpu, &out.v_handle), UTVM_OK);
  assert_int_equal(echo(in, kTVMBytes, &out, &out_code), -1);
}

/* ---- test_busy_wait_us and test_abort -------------------------------------------------------- */

static int busy_wait(int64_t microseconds, int code) {
  TVMValue arg;
  TVMValue ret;
  int ret_code;
  arg.v_int64 = microseconds;
  return TVMFuncCall(get_function("test_busy_wait_us"), &arg, &code, 1, &ret, &ret_code);
}

static void test_busy_wait_waits(void **state) {
  (void)state;
  /* The fake clock advances 100 us per read: one read for the start, then ten polls. */
  fake_time_us_step = 100u;
  assert_int_equal(busy_wait(1000, kTVMArgInt), 0);
  assert_int_equal(fake_time_us_reads, 11u);
  assert_int_equal(fake_clock_ns, 1100000u);
  assert_int_equal(fake_timer_starts, 0u);
  assert_int_equal(busy_wait(0, kTVMArgInt), 0);
  assert_int_equal(fake_time_us_reads, 13u);
  assert_int_equal(busy_wait(-1, kTVMArgInt), -1);
  assert_string_equal(test_last_error(), "test_busy_wait_us: expected one Int in 0..10000000");
  assert_int_equal(busy_wait(TEST_SYSLIB_BUSY_WAIT_MAX_US + 1, kTVMArgInt), -1);
  assert_int_equal(busy_wait(10, kTVMArgFloat), -1);
  /* The platform timer stays free for the time evaluator while the function waits. */
  assert_int_equal(TVMPlatformTimerStart(), UTVM_OK);
  assert_int_equal(busy_wait(500, kTVMArgInt), 0);
  uint64_t elapsed_ns = 0u;
  assert_int_equal(TVMPlatformTimerStopNs(&elapsed_ns), UTVM_OK);
}

/* The time evaluator can time test_busy_wait_us (it does not use the platform timer). */
static void test_busy_wait_under_time_evaluator(void **state) {
  TVMFunctionHandle global;
  TVMFunctionHandle evaluator;
  TVMValue values[12];
  int codes[12] = {kTVMModuleHandle, kTVMStr, 0, 0, 0, 0, 0, 0, 0, 0, 0, kTVMStr};
  TVMValue arg;
  int arg_code = kTVMArgInt;
  TVMValue ret;
  int ret_code;
  TVMByteArray *result;
  double mean;
  int i;
  (void)state;
  for (i = 0; i < 12; i++) {
    values[i].v_int64 = 0;
  }
  values[0].v_handle = (void *)(uintptr_t)0x8000u;
  values[1].v_str = "test_busy_wait_us";
  values[2].v_int64 = kDLCPU;
  values[4].v_int64 = 2; /* number */
  values[5].v_int64 = 1; /* repeat */
  values[11].v_str = "";
  assert_int_equal(TVMFuncGetGlobal("runtime.RPCTimeEvaluator", &global), 0);
  assert_int_equal(TVMFuncCall(global, values, codes, 12, &ret, &ret_code), 0);
  evaluator = ret.v_handle;
  /* 100 us per clock read: a 1000 us wait reads the clock 11 times, i.e. lasts 1100 us. */
  fake_time_us_step = 100u;
  arg.v_int64 = 1000;
  assert_int_equal(TVMFuncCall(evaluator, &arg, &arg_code, 1, &ret, &ret_code), 0);
  assert_int_equal(ret_code, kTVMBytes);
  result = (TVMByteArray *)ret.v_handle;
  assert_int_equal(result->size, sizeof(double));
  memcpy(&mean, result->data, sizeof(double));
  assert_true(mean > 1099e-6 && mean < 1101e-6);
  assert_int_equal(fake_time_us_reads, 3u * 11u);
  assert_int_equal(TVMByteArrayFree(result), 0);
  assert_int_equal(TVMFuncFree(evaluator), 0);
}

static void test_abort_calls_platform_abort(void **state) {
  TVMValue ret;
  int ret_code;
  TVMFunctionHandle abort_function = get_function("test_abort");
  volatile int returned = 0;
  (void)state;
  if (setjmp(fake_abort_jump) == 0) {
    (void)TVMFuncCall(abort_function, NULL, NULL, 0, &ret, &ret_code);
    returned = 1;
  }
  assert_int_equal(returned, 0);
  assert_int_equal(fake_abort_code, TEST_SYSLIB_ABORT_CODE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_registry_lists_the_functions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_add_f32_adds, setup, teardown),
      cmocka_unit_test_setup_teardown(test_add_f32_rejects_bad_arguments, setup, teardown),
      cmocka_unit_test_setup_teardown(test_echo_scalars_and_strings, setup, teardown),
      cmocka_unit_test_setup_teardown(test_echo_bytes_is_an_arena_copy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_echo_bytes_without_memory, setup, teardown),
      cmocka_unit_test_setup_teardown(test_busy_wait_waits, setup, teardown),
      cmocka_unit_test_setup_teardown(test_busy_wait_under_time_evaluator, setup, teardown),
      cmocka_unit_test_setup_teardown(test_abort_calls_platform_abort, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

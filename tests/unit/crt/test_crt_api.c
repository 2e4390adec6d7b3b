/* Tests of the TVM C API implemented by utvm_crt (src/crt/c_runtime_api.c and friends). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "crt_test_support.h"
#include "tvm/runtime/crt/platform.h"
#include "utvm/crt.h"

static const DLDevice kCpu = {kDLCPU, 0};
static const DLDataType kFloat32 = {kDLFloat, 32u, 1u};

/* ---- A small system library and a second module -------------------------------------- */

static int sum_ints(TVMValue *args, int *type_codes, int num_args, TVMValue *ret,
                    int *ret_type_code, void *resource_handle) {
  int64_t sum = 0;
  int i;
  (void)resource_handle;
  for (i = 0; i < num_args; i++) {
    if (type_codes[i] != kTVMArgInt) {
      TVMAPISetLastError("sum_ints: Int arguments only");
      return -1;
    }
    sum += args[i].v_int64;
  }
  ret->v_int64 = sum;
  *ret_type_code = kTVMArgInt;
  return 0;
}

static int fails_silently(TVMValue *args, int *type_codes, int num_args, TVMValue *ret,
                          int *ret_type_code, void *resource_handle) {
  (void)args;
  (void)type_codes;
  (void)num_args;
  (void)ret;
  (void)ret_type_code;
  (void)resource_handle;
  return -3;
}

static int no_result(TVMValue *args, int *type_codes, int num_args, TVMValue *ret,
                     int *ret_type_code, void *resource_handle) {
  (void)args;
  (void)type_codes;
  (void)num_args;
  (void)resource_handle;
  (void)ret;
  (void)ret_type_code;
  return 0;
}

static const TVMBackendPackedCFunc kLibFuncs[] = {sum_ints, fails_silently, no_result};
static const TVMFuncRegistry kLibRegistry = {
    "\003\000sum_ints\000fails_silently\000no_result\000", kLibFuncs};
static const TVMModule kLib = {&kLibRegistry};

static const TVMBackendPackedCFunc kOtherFuncs[] = {fails_silently};
static const TVMFuncRegistry kOtherRegistry = {"\001\000other\000", kOtherFuncs};
static const TVMModule kOther = {&kOtherRegistry};

static const TVMModule kNoRegistry = {NULL};

static int setup(void **state) {
  (void)state;
  return test_runtime_start(&kLib) == NULL ? -1 : 0;
}

static int teardown(void **state) {
  (void)state;
  test_runtime_stop();
  return 0;
}

static TVMFunctionHandle handle_of(uint64_t value) {
  return (TVMFunctionHandle)(uintptr_t)value;
}

static void assert_invalid_function(TVMFunctionHandle handle) {
  TVMValue ret;
  int ret_code;
  assert_int_equal(TVMFuncCall(handle, NULL, NULL, 0, &ret, &ret_code), -1);
  assert_true(starts_with(test_last_error(), "invalid function handle 0x"));
  TVMAPISetLastError("");
  assert_int_equal(TVMFuncFree(handle), -1);
  assert_true(starts_with(test_last_error(), "invalid function handle 0x"));
}

static void assert_invalid_module(TVMModuleHandle handle) {
  TVMFunctionHandle f = handle_of(1u);
  assert_int_equal(TVMModGetFunction(handle, "sum_ints", 0, &f), -1);
  assert_null(f);
  assert_true(starts_with(test_last_error(), "invalid module handle 0x"));
  TVMAPISetLastError("");
  assert_int_equal(TVMModFree(handle), -1);
  assert_true(starts_with(test_last_error(), "invalid module handle 0x"));
}

/* ---- Life cycle and last error ------------------------------------------------------------ */

static void test_before_init_everything_fails(void **state) {
  TVMFunctionHandle f;
  TVMValue ret;
  int ret_code;
  void *ptr;
  uint8_t *base;
  size_t size;
  (void)state;
  test_runtime_stop();
  assert_string_equal(test_last_error(), "utvm_crt: runtime not initialised");
  TVMAPISetLastError("ignored");
  assert_string_equal(test_last_error(), "utvm_crt: runtime not initialised");
  assert_int_equal(TVMFuncGetGlobal("runtime.SystemLib", &f), -1);
  assert_int_equal(TVMFuncCall(handle_of(0x80028000u), NULL, NULL, 0, &ret, &ret_code), -1);
  assert_int_equal(TVMFuncFree(handle_of(0x80028000u)), -1);
  assert_int_equal(TVMModFree(handle_of(0x8000u)), -1);
  assert_int_equal(TVMDeviceAllocDataSpace(kCpu, 16u, 64u, kFloat32, &ptr), -1);
  assert_null(TVMBackendAllocWorkspace(1, 0, 16u, 2, 32));
  assert_int_equal(TVMBackendFreeWorkspace(1, 0, &ret), -1);
  assert_int_equal(TVMPlatformMemoryAllocate(16u, kCpu, &ptr), UTVM_ERR_PLATFORM_CHECK_FAILURE);
  assert_int_equal(TVMPlatformMemoryFree(&ret, kCpu), UTVM_ERR_PLATFORM_CHECK_FAILURE);
  assert_int_equal(utvm_crt_data_range(&ret, &base, &size), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(TVMModGetFunction(handle_of(0x8000u), "sum_ints", 0, &f), -1);
  TVMByteArray bytes = {NULL, 0u};
  assert_int_equal(TVMByteArrayFree(&bytes), -1);
  assert_string_equal(test_last_error(), "utvm_crt: runtime not initialised");
  assert_non_null(test_runtime_start(&kLib)); /* for the teardown */
}

static void test_init_arguments(void **state) {
  utvm_crt_t other;
  utvm_crt_config_t config;
  static uint8_t arena[256];
  uint8_t tiny[32];
  TVMFunctionHandle f;
  (void)state;
  memset(&config, 0, sizeof(config));
  assert_int_equal(utvm_crt_init(NULL, &config), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_crt_init(&other, NULL), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_crt_init(&other, &config), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  config.tensor_arena = tiny;
  config.tensor_arena_size = sizeof(tiny);
  assert_int_equal(utvm_crt_init(&other, &config), UTVM_ERR_BUFFER_TOO_SMALL);
  config.tensor_arena = arena;
  config.tensor_arena_size = sizeof(arena);
  config.workspace_arena_size = 8u; /* NULL workspace with a size */
  assert_int_equal(utvm_crt_init(&other, &config), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  /* The fixture runtime is still the active one. */
  assert_int_equal(TVMFuncGetGlobal("runtime.SystemLib", &f), 0);
  utvm_crt_shutdown(&other); /* not active: no effect */
  assert_int_equal(TVMFuncGetGlobal("runtime.SystemLib", &f), 0);
}

static void test_last_error_truncates(void **state) {
  char longer[UTVM_CRT_LAST_ERROR_SIZE + 40u];
  const char *text;
  (void)state;
  memset(longer, 'e', sizeof(longer) - 1u);
  longer[sizeof(longer) - 1u] = '\0';
  TVMAPISetLastError(longer);
  text = TVMGetLastError();
  assert_int_equal(strlen(text), UTVM_CRT_LAST_ERROR_SIZE - 1u);
  assert_int_equal(text[0], 'e');
  TVMAPISetLastError("short");
  assert_string_equal(TVMGetLastError(), "short");
  TVMAPISetLastError(TVMGetLastError()); /* its own buffer */
  assert_string_equal(TVMGetLastError(), "short");
  TVMAPISetLastError(TVMGetLastError() + 2); /* a suffix of its own buffer */
  assert_string_equal(TVMGetLastError(), "ort");
  TVMAPISetLastError(NULL);
  assert_string_equal(TVMGetLastError(), "");
}

/* The raw last error: the texts, or "#<id>" tokens in a build without error texts, followed
 * by names and hex values as they are. */
static void test_last_error_form(void **state) {
  TVMFunctionHandle f;
  char expected[64];
  (void)state;
  assert_int_equal(TVMFuncGetGlobal("nope", &f), -1);
#ifdef UTVM_NO_ERROR_TEXTS
  snprintf(expected, sizeof(expected), "#%03unope", (unsigned)UTVM_TEXT_FUNCTION_NOT_FOUND);
#else
  snprintf(expected, sizeof(expected), "function not found: nope");
#endif
  assert_string_equal(TVMGetLastError(), expected);
  assert_int_equal(TVMDeviceFreeDataSpace(kCpu, NULL), -1);
#ifdef UTVM_NO_ERROR_TEXTS
  snprintf(expected, sizeof(expected), "#%03u0x00000000", (unsigned)UTVM_TEXT_UNALLOCATED_FREE);
#else
  snprintf(expected, sizeof(expected), "free of unallocated 0x00000000");
#endif
  assert_string_equal(TVMGetLastError(), expected);
  test_runtime_stop();
#ifdef UTVM_NO_ERROR_TEXTS
  assert_string_equal(TVMGetLastError(), "#000");
#else
  assert_string_equal(TVMGetLastError(), "utvm_crt: runtime not initialised");
#endif
  assert_non_null(test_runtime_start(&kLib)); /* for the teardown */
}

/* ---- Globals, calls and handles ------------------------------------------------------------ */

static void test_builtin_globals_and_handles(void **state) {
  TVMFunctionHandle f = handle_of(1u);
  (void)state;
  assert_int_equal(TVMFuncGetGlobal("runtime.SystemLib", &f), 0);
  assert_int_equal((uintptr_t)f, 0x80028000u);
  assert_int_equal(TVMFuncGetGlobal("tvm.rpc.server.ModuleGetFunction", &f), 0);
  assert_int_equal((uintptr_t)f, 0x80028001u);
  assert_int_equal(TVMFuncGetGlobal("runtime.RPCTimeEvaluator", &f), 0);
  assert_int_equal((uintptr_t)f, 0x80028002u);
  assert_int_equal(TVMFuncGetGlobal("tvm.rpc.server.GetCRTMaxPacketSize", &f), -1);
  assert_null(f);
  assert_string_equal(test_last_error(), "function not found: tvm.rpc.server.GetCRTMaxPacketSize");
  assert_int_equal(TVMFuncGetGlobal(NULL, &f), -1);
  assert_int_equal(TVMFuncGetGlobal("runtime.SystemLib", NULL), -1);
}

static int dummy_global(TVMValue *args, int *codes, int num_args, TVMValue *ret, int *ret_tc,
                        void *resource) {
  (void)args;
  (void)codes;
  (void)num_args;
  (void)resource;
  ret->v_int64 = 7;
  *ret_tc = kTVMArgInt;
  return 0;
}

/* Without utvm_crt_enable_time_evaluator runtime.RPCTimeEvaluator is not found, and its place
 * stays free: a global registered next comes after it, and enabling it later gives it TVM's
 * handle. Before utvm_crt_init enabling fails. */
static void test_time_evaluator_opt_in(void **state) {
  static uint8_t arena[1024] __attribute__((aligned(64)));
  TVMFunctionHandle f = handle_of(1u);
  (void)state;
  test_runtime_stop();
  assert_int_equal(utvm_crt_enable_time_evaluator(), UTVM_ERR_PLATFORM_CHECK_FAILURE);
  utvm_crt_t *crt = test_runtime();
  utvm_crt_config_t config;
  memset(&config, 0, sizeof(config));
  config.tensor_arena = arena;
  config.tensor_arena_size = sizeof(arena);
  assert_int_equal(utvm_crt_init(crt, &config), UTVM_OK);
  assert_int_equal(TVMFuncGetGlobal("runtime.RPCTimeEvaluator", &f), -1);
  assert_null(f);
  assert_string_equal(test_last_error(), "function not found: runtime.RPCTimeEvaluator");
  assert_int_equal(utvm_crt_register_global("test.dummy", dummy_global, NULL), UTVM_OK);
  assert_int_equal(TVMFuncGetGlobal("test.dummy", &f), 0);
  assert_int_equal((uintptr_t)f, 0x80028003u);
  assert_int_equal(utvm_crt_enable_time_evaluator(), UTVM_OK);
  assert_int_equal(TVMFuncGetGlobal("runtime.RPCTimeEvaluator", &f), 0);
  assert_int_equal((uintptr_t)f, 0x80028002u);
}

static void test_system_lib(void **state) {
  TVMFunctionHandle f;
  TVMValue ret;
  int ret_code;
  (void)state;
  assert_int_equal(TVMFuncGetGlobal("runtime.SystemLib", &f), 0);
  assert_int_equal(TVMFuncCall(f, NULL, NULL, 0, &ret, &ret_code), 0);
  assert_int_equal(ret_code, kTVMModuleHandle);
  assert_int_equal((uintptr_t)ret.v_handle, 0x8000u);
  /* Freeing the system library is a no-op. */
  assert_int_equal(TVMModFree(ret.v_handle), 0);
  assert_int_equal(TVMModGetFunction(ret.v_handle, "sum_ints", 0, &f), 0);
  /* Without a system library the global fails. */
  test_runtime_stop();
  assert_non_null(test_runtime_start(NULL));
  assert_int_equal(TVMFuncGetGlobal("runtime.SystemLib", &f), 0);
  assert_int_equal(TVMFuncCall(f, NULL, NULL, 0, &ret, &ret_code), -1);
  assert_string_equal(test_last_error(), "runtime.SystemLib: no system library");
  assert_invalid_module(handle_of(0x8000u));
}

static void test_module_get_function_global(void **state) {
  TVMFunctionHandle mgf;
  TVMValue args[3];
  int codes[3] = {kTVMModuleHandle, kTVMStr, kTVMArgBool};
  TVMValue ret;
  int ret_code;
  (void)state;
  assert_int_equal(TVMFuncGetGlobal("tvm.rpc.server.ModuleGetFunction", &mgf), 0);
  args[0].v_handle = handle_of(0x8000u);
  args[1].v_str = "fails_silently";
  args[2].v_int64 = 1;
  assert_int_equal(TVMFuncCall(mgf, args, codes, 3, &ret, &ret_code), 0);
  assert_int_equal(ret_code, kTVMPackedFuncHandle);
  assert_int_equal((uintptr_t)ret.v_handle, 0x80008001u);
  codes[2] = kTVMArgInt;
  args[1].v_str = "absent";
  assert_int_equal(TVMFuncCall(mgf, args, codes, 3, &ret, &ret_code), 0);
  assert_int_equal(ret_code, kTVMNullptr);
  /* Wrong count, types, NULL name, invalid module. */
  assert_int_equal(TVMFuncCall(mgf, args, codes, 2, &ret, &ret_code), -1);
  assert_true(starts_with(test_last_error(), "ModuleGetFunction: expected"));
  codes[2] = kTVMArgFloat;
  assert_int_equal(TVMFuncCall(mgf, args, codes, 3, &ret, &ret_code), -1);
  codes[2] = kTVMArgInt;
  codes[0] = kTVMOpaqueHandle;
  assert_int_equal(TVMFuncCall(mgf, args, codes, 3, &ret, &ret_code), -1);
  codes[0] = kTVMModuleHandle;
  codes[1] = kTVMBytes;
  assert_int_equal(TVMFuncCall(mgf, args, codes, 3, &ret, &ret_code), -1);
  codes[1] = kTVMStr;
  args[1].v_str = NULL;
  assert_int_equal(TVMFuncCall(mgf, args, codes, 3, &ret, &ret_code), -1);
  args[1].v_str = "sum_ints";
  args[0].v_handle = handle_of(0x8001u);
  assert_int_equal(TVMFuncCall(mgf, args, codes, 3, &ret, &ret_code), -1);
  assert_string_equal(test_last_error(), "invalid module handle 0x00008001");
}

static void test_func_call(void **state) {
  TVMFunctionHandle f;
  TVMValue args[2];
  int codes[2] = {kTVMArgInt, kTVMArgInt};
  TVMValue ret;
  int ret_code;
  (void)state;
  assert_int_equal(TVMModGetFunction(handle_of(0x8000u), "sum_ints", 1, &f), 0);
  assert_int_equal((uintptr_t)f, 0x80008000u);
  args[0].v_int64 = 40;
  args[1].v_int64 = 2;
  assert_int_equal(TVMFuncCall(f, args, codes, 2, &ret, &ret_code), 0);
  assert_int_equal(ret_code, kTVMArgInt);
  assert_int_equal(ret.v_int64, 42);
  assert_int_equal(TVMFuncCall(f, NULL, NULL, 0, &ret, &ret_code), 0);
  assert_int_equal(ret.v_int64, 0);
  /* No return value: Null. */
  assert_int_equal(TVMModGetFunction(handle_of(0x8000u), "no_result", 1, &f), 0);
  ret.v_int64 = 99;
  ret_code = kTVMArgInt;
  assert_int_equal(TVMFuncCall(f, NULL, NULL, 0, &ret, &ret_code), 0);
  assert_int_equal(ret_code, kTVMNullptr);
  assert_int_equal(ret.v_int64, 0);
  assert_int_equal(TVMModGetFunction(handle_of(0x8000u), "sum_ints", 1, &f), 0);
  /* Callee errors: its message, or a generic one instead of stale text. */
  codes[1] = kTVMStr;
  assert_int_equal(TVMFuncCall(f, args, codes, 2, &ret, &ret_code), -1);
  assert_string_equal(test_last_error(), "sum_ints: Int arguments only");
  assert_int_equal(TVMModGetFunction(handle_of(0x8000u), "fails_silently", 1, &f), 0);
  TVMAPISetLastError("stale");
  assert_int_equal(TVMFuncCall(f, NULL, NULL, 0, &ret, &ret_code), -1);
  assert_string_equal(test_last_error(), "function failed, code 0xfffffffd");
  /* Bad call arguments. */
  assert_int_equal(TVMFuncCall(f, NULL, NULL, 0, NULL, &ret_code), -1);
  assert_int_equal(TVMFuncCall(f, NULL, NULL, 0, &ret, NULL), -1);
  assert_int_equal(TVMFuncCall(f, NULL, NULL, -1, &ret, &ret_code), -1);
  assert_int_equal(TVMFuncCall(f, NULL, codes, 1, &ret, &ret_code), -1);
  assert_int_equal(TVMFuncCall(f, args, NULL, 1, &ret, &ret_code), -1);
  assert_string_equal(test_last_error(), "NULL argument");
  /* Static functions: TVMFuncFree is a validated no-op. */
  assert_int_equal(TVMFuncFree(f), 0);
  assert_int_equal(TVMFuncCall(f, NULL, NULL, 0, &ret, &ret_code), -1);
  assert_int_equal(TVMFuncFree(handle_of(0x80028000u)), 0);
}

static void test_invalid_function_handles(void **state) {
  (void)state;
  assert_invalid_function(NULL);
  assert_invalid_function(handle_of(0x1234u));
  assert_invalid_function(handle_of(0x8000u));             /* a module handle */
  assert_invalid_function(handle_of(0x80008003u));         /* index >= N */
  assert_invalid_function(handle_of(0x80007FFFu));         /* index tag missing */
  assert_invalid_function(handle_of(0x00008000u | 0x00028000u)); /* module tag missing */
  assert_invalid_function(handle_of(0x80018000u));         /* empty module slot */
  assert_invalid_function(handle_of(0x80038000u));         /* beyond the globals index */
  assert_invalid_function(handle_of(0x80028003u));         /* global index >= count */
  assert_invalid_function(handle_of(0xFFFF8000u));         /* free time-evaluator slot */
  assert_invalid_function(handle_of(0xFFFF8000u | UTVM_CRT_MAX_TIME_EVALUATORS));
  assert_invalid_function(handle_of(0xFFFFFFFFu));
  if (sizeof(void *) > 4u) {
    assert_invalid_function(handle_of(0x180028000ull)); /* upper bits set */
  }
  {
    TVMValue ret;
    int ret_code;
    assert_int_equal(TVMFuncCall(handle_of(0x80008003u), NULL, NULL, 0, &ret, &ret_code), -1);
    assert_string_equal(test_last_error(), "invalid function handle 0x80008003");
  }
}

static void test_invalid_module_handles(void **state) {
  (void)state;
  assert_invalid_module(NULL);
  assert_invalid_module(handle_of(0x8001u));
  assert_invalid_module(handle_of(0x8002u));
  assert_invalid_module(handle_of(0x7FFFu));
  assert_invalid_module(handle_of(0x18000u));
  assert_invalid_module(handle_of(0x80008000u));
  assert_int_equal(TVMModFree(handle_of(0xFFFFu)), -1);
}

static void test_modules(void **state) {
  TVMModuleHandle mod = NULL;
  TVMModuleHandle full;
  TVMFunctionHandle f = handle_of(1u);
  (void)state;
  assert_int_equal(TVMModGetFunction(handle_of(0x8000u), "nope", 0, &f), -1);
  assert_null(f);
  assert_string_equal(test_last_error(), "function not found: nope");
  assert_int_equal(TVMModGetFunction(handle_of(0x8000u), NULL, 0, &f), -1);
  assert_int_equal(TVMModGetFunction(handle_of(0x8000u), "sum_ints", 0, NULL), -1);
  assert_int_equal(TVMModCreateFromCModule(&kNoRegistry, &mod), -1);
  assert_int_equal(TVMModCreateFromCModule(NULL, &mod), -1);
  assert_int_equal(TVMModCreateFromCModule(&kOther, NULL), -1);
  assert_int_equal(TVMModCreateFromCModule(&kOther, &mod), 0);
  assert_int_equal((uintptr_t)mod, 0x8001u);
  assert_int_equal(TVMModCreateFromCModule(&kOther, &full), -1);
  assert_string_equal(test_last_error(),
                      "module table full: held by module 0x00008001; free one (FreeHandle) "
                      "or raise UTVM_CRT_MAX_MODULES");
  assert_int_equal(TVMModGetFunction(mod, "other", 0, &f), 0);
  assert_int_equal((uintptr_t)f, 0x80018000u);
  assert_int_equal(TVMModGetFunction(mod, "sum_ints", 0, &f), -1);
  assert_int_equal(TVMModGetFunction(mod, "other", 0, &f), 0);
  assert_int_equal(TVMModFree(mod), 0);
  /* The module and its functions are gone. */
  assert_invalid_module(mod);
  assert_invalid_function(f);
  assert_int_equal(TVMModCreateFromCModule(&kOther, &mod), 0);
  assert_int_equal((uintptr_t)mod, 0x8001u);
}

/* ---- Device memory -------------------------------------------------------------------------- */

static void test_device_alloc_data_space(void **state) {
  DLDevice gpu = {kDLCUDA, 0};
  void *a;
  void *b;
  void *c;
  uint8_t *base;
  size_t size;
  (void)state;
  assert_int_equal(TVMDeviceAllocDataSpace(kCpu, 16u, 64u, kFloat32, &a), 0);
  assert_int_equal((uintptr_t)a % 64u, 0u);
  assert_int_equal(utvm_crt_data_range(a, &base, &size), UTVM_OK);
  assert_ptr_equal(base, a);
  assert_int_equal(size, 64u);
  /* nbytes is rounded up to the alignment; the alignment is honoured. */
  assert_int_equal(TVMDeviceAllocDataSpace(kCpu, 130u, 256u, kFloat32, &b), 0);
  assert_int_equal((uintptr_t)b % 256u, 0u);
  assert_int_equal(utvm_crt_data_range((uint8_t *)b + 255, &base, &size), UTVM_OK);
  assert_int_equal(size, 256u);
  assert_int_equal(TVMDeviceAllocDataSpace(kCpu, 1u, 0u, kFloat32, &c), 0);
  assert_int_equal(TVMDeviceFreeDataSpace(kCpu, c), 0);
  /* Errors. */
  assert_int_equal(TVMDeviceAllocDataSpace(gpu, 16u, 64u, kFloat32, &c), -1);
  assert_null(c);
  assert_string_equal(test_last_error(), "unsupported device type 0x00000002");
  assert_int_equal(TVMDeviceAllocDataSpace(kCpu, 16u, 48u, kFloat32, &c), -1);
  assert_string_equal(test_last_error(), "bad alignment 0x00000030");
  assert_int_equal(TVMDeviceAllocDataSpace(kCpu, SIZE_MAX - 10u, 64u, kFloat32, &c), -1);
  assert_int_equal(TVMDeviceAllocDataSpace(kCpu, TEST_TENSOR_ARENA_SIZE, 64u, kFloat32, &c), -1);
  assert_true(starts_with(test_last_error(), "tensor arena full: need 8,192 bytes (0x00002000), largest free "));
  assert_int_equal(TVMDeviceAllocDataSpace(kCpu, 16u, 64u, kFloat32, NULL), -1);
  /* Frees. */
  assert_int_equal(TVMDeviceFreeDataSpace(gpu, a), -1);
  assert_int_equal(TVMDeviceFreeDataSpace(kCpu, (uint8_t *)b + 64), -1);
  assert_true(starts_with(test_last_error(), "free of unallocated 0x"));
  assert_int_equal(TVMDeviceFreeDataSpace(kCpu, NULL), -1);
  assert_int_equal(TVMDeviceFreeDataSpace(kCpu, a), 0);
  assert_int_equal(TVMDeviceFreeDataSpace(kCpu, a), -1);
  assert_int_equal(utvm_crt_data_range(a, &base, &size), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(TVMDeviceFreeDataSpace(kCpu, b), 0);
}

static void test_device_alloc_with_scope(void **state) {
  DLDevice gpu = {kDLCUDA, 0};
  int64_t shape[2] = {4, 1};
  int64_t huge[2] = {INT64_MAX, INT64_MAX};
  int64_t negative[1] = {-1};
  int64_t empty[1] = {0};
  DLDataType int4x3 = {kDLInt, 4u, 3u}; /* 12 bits per element: 2 bytes */
  void *p;
  uint8_t *base;
  size_t size;
  (void)state;
  assert_int_equal(TVMDeviceAllocDataSpaceWithScope(kCpu, 1, shape, kFloat32, NULL, &p), 0);
  assert_int_equal(utvm_crt_data_range(p, &base, &size), UTVM_OK);
  assert_int_equal(size, 64u);
  assert_int_equal(TVMDeviceFreeDataSpace(kCpu, p), 0);
  shape[0] = 40;
  assert_int_equal(TVMDeviceAllocDataSpaceWithScope(kCpu, 2, shape, int4x3, "global", &p), 0);
  assert_int_equal(utvm_crt_data_range(p, &base, &size), UTVM_OK);
  assert_int_equal(size, 128u); /* 80 bytes rounded up to 64 */
  assert_int_equal(TVMDeviceFreeDataSpace(kCpu, p), 0);
  assert_int_equal(TVMDeviceAllocDataSpaceWithScope(kCpu, 0, NULL, kFloat32, NULL, &p), 0);
  assert_int_equal(TVMDeviceFreeDataSpace(kCpu, p), 0);
  assert_int_equal(TVMDeviceAllocDataSpaceWithScope(kCpu, 1, empty, kFloat32, NULL, &p), 0);
  assert_int_equal(TVMDeviceFreeDataSpace(kCpu, p), 0);
  /* Errors. */
  assert_int_equal(TVMDeviceAllocDataSpaceWithScope(gpu, 1, shape, kFloat32, NULL, &p), -1);
  assert_null(p);
  assert_int_equal(TVMDeviceAllocDataSpaceWithScope(kCpu, 2, huge, kFloat32, NULL, &p), -1);
  assert_string_equal(test_last_error(), "invalid tensor shape");
  assert_int_equal(TVMDeviceAllocDataSpaceWithScope(kCpu, 1, negative, kFloat32, NULL, &p), -1);
  assert_int_equal(TVMDeviceAllocDataSpaceWithScope(kCpu, -1, shape, kFloat32, NULL, &p), -1);
  assert_int_equal(TVMDeviceAllocDataSpaceWithScope(kCpu, 1, NULL, kFloat32, NULL, &p), -1);
  assert_int_equal(TVMDeviceAllocDataSpaceWithScope(kCpu, 1, shape, kFloat32, NULL, NULL), -1);
  shape[0] = 1 << 20;
  assert_int_equal(TVMDeviceAllocDataSpaceWithScope(kCpu, 1, shape, kFloat32, NULL, &p), -1);
  assert_true(starts_with(test_last_error(), "tensor arena full"));
}

static DLTensor make_tensor(void *data, int64_t *shape, uint64_t byte_offset) {
  DLTensor t;
  t.data = data;
  t.device = kCpu;
  t.ndim = 1;
  t.dtype = kFloat32;
  t.shape = shape;
  t.strides = NULL;
  t.byte_offset = byte_offset;
  return t;
}

static void test_copy_data_from_to(void **state) {
  void *a;
  void *b;
  int64_t four[1] = {4};
  int64_t sixteen[1] = {16};
  int64_t seventeen[1] = {17};
  int64_t strides[1] = {1};
  float values[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  float out[4];
  float outside[16];
  DLTensor from;
  DLTensor to;
  (void)state;
  assert_int_equal(TVMDeviceAllocDataSpace(kCpu, 64u, 64u, kFloat32, &a), 0);
  assert_int_equal(TVMDeviceAllocDataSpace(kCpu, 64u, 64u, kFloat32, &b), 0);
  memcpy((uint8_t *)a + 16, values, sizeof(values));
  from = make_tensor(a, four, 16u);
  to = make_tensor(b, four, 48u);
  assert_int_equal(TVMDeviceCopyDataFromTo(&from, &to, NULL), 0);
  memcpy(out, (uint8_t *)b + 48, sizeof(out));
  assert_memory_equal(out, values, sizeof(values));
  /* Whole allocations; overlapping copies inside one allocation. */
  from = make_tensor(a, sixteen, 0u);
  to = make_tensor(b, sixteen, 0u);
  assert_int_equal(TVMDeviceCopyDataFromTo(&from, &to, NULL), 0);
  from = make_tensor(a, four, 0u);
  to = make_tensor(a, four, 8u);
  assert_int_equal(TVMDeviceCopyDataFromTo(&from, &to, NULL), 0);
  /* Out of bounds, through the shape or the offset. */
  from = make_tensor(a, seventeen, 0u);
  to = make_tensor(b, seventeen, 0u);
  assert_int_equal(TVMDeviceCopyDataFromTo(&from, &to, NULL), -1);
  assert_true(starts_with(test_last_error(), "copy out of bounds: 0x"));
  from = make_tensor(a, four, 0u);
  to = make_tensor(b, four, 49u);
  assert_int_equal(TVMDeviceCopyDataFromTo(&from, &to, NULL), -1);
  to = make_tensor(b, four, UINT64_MAX);
  assert_int_equal(TVMDeviceCopyDataFromTo(&from, &to, NULL), -1);
  /* Memory outside the tensor arena. */
  to = make_tensor(outside, four, 0u);
  assert_int_equal(TVMDeviceCopyDataFromTo(&from, &to, NULL), -1);
  assert_true(starts_with(test_last_error(), "tensor data not in arena: 0x"));
  /* Size mismatch, strides, devices, NULL. */
  to = make_tensor(b, sixteen, 0u);
  assert_int_equal(TVMDeviceCopyDataFromTo(&from, &to, NULL), -1);
  assert_string_equal(test_last_error(), "copy: tensor sizes differ");
  to = make_tensor(b, four, 0u);
  to.strides = strides;
  assert_int_equal(TVMDeviceCopyDataFromTo(&from, &to, NULL), -1);
  assert_string_equal(test_last_error(), "copy: strided tensors unsupported");
  to = make_tensor(b, four, 0u);
  to.device.device_type = kDLCUDA;
  assert_int_equal(TVMDeviceCopyDataFromTo(&from, &to, NULL), -1);
  to.device.device_type = kDLCPU;
  to.ndim = -1;
  assert_int_equal(TVMDeviceCopyDataFromTo(&from, &to, NULL), -1);
  assert_int_equal(TVMDeviceCopyDataFromTo(NULL, &to, NULL), -1);
  assert_int_equal(TVMDeviceCopyDataFromTo(&from, NULL, NULL), -1);
  assert_int_equal(TVMDeviceFreeDataSpace(kCpu, a), 0);
  assert_int_equal(TVMDeviceFreeDataSpace(kCpu, b), 0);
  /* A freed source is no longer a valid tensor. */
  from = make_tensor(a, four, 0u);
  to = make_tensor(a, four, 0u);
  assert_int_equal(TVMDeviceCopyDataFromTo(&from, &to, NULL), -1);
}

static void test_array_alloc_free(void **state) {
  const tvm_index_t shape[2] = {3, 5};
  TVMArrayHandle array;
  TVMArrayHandle other;
  uint8_t *base;
  size_t size;
  size_t free_before;
  (void)state;
  free_before = utvm_page_free_bytes(&test_runtime()->tensors);
  assert_int_equal(TVMArrayAlloc(shape, 2, kDLFloat, 32, 1, kDLCPU, 0, &array), 0);
  assert_int_equal(array->ndim, 2);
  assert_int_equal(array->shape[0], 3);
  assert_int_equal(array->shape[1], 5);
  assert_ptr_not_equal(array->shape, shape);
  assert_int_equal(array->dtype.code, kDLFloat);
  assert_int_equal(array->dtype.bits, 32);
  assert_int_equal(array->dtype.lanes, 1);
  assert_int_equal(array->device.device_type, kDLCPU);
  assert_null(array->strides);
  assert_int_equal(array->byte_offset, 0u);
  assert_int_equal((uintptr_t)array->data % 64u, 0u);
  assert_int_equal(utvm_crt_data_range(array->data, &base, &size), UTVM_OK);
  assert_int_equal(size, 64u);
  assert_int_equal(TVMArrayFree(array), 0);
  assert_int_equal(TVMArrayFree(array), -1); /* double free */
  assert_int_equal(utvm_page_free_bytes(&test_runtime()->tensors), free_before);
  /* Errors. */
  assert_int_equal(TVMArrayAlloc(shape, 2, kDLFloat, 32, 1, kDLCUDA, 0, &other), -1);
  assert_null(other);
  assert_int_equal(TVMArrayAlloc(shape, 2, 256, 32, 1, kDLCPU, 0, &other), -1);
  assert_int_equal(TVMArrayAlloc(shape, 2, kDLFloat, -1, 1, kDLCPU, 0, &other), -1);
  assert_int_equal(TVMArrayAlloc(shape, 2, kDLFloat, 32, 0x10000, kDLCPU, 0, &other), -1);
  assert_int_equal(TVMArrayAlloc(NULL, 2, kDLFloat, 32, 1, kDLCPU, 0, &other), -1);
  assert_int_equal(TVMArrayAlloc(shape, -2, kDLFloat, 32, 1, kDLCPU, 0, &other), -1);
  assert_int_equal(TVMArrayAlloc(shape, 2, kDLFloat, 32, 1, kDLCPU, 0, NULL), -1);
  {
    const tvm_index_t big[1] = {TEST_TENSOR_ARENA_SIZE};
    assert_int_equal(TVMArrayAlloc(big, 1, kDLFloat, 32, 1, kDLCPU, 0, &other), -1);
  }
  assert_int_equal(utvm_page_free_bytes(&test_runtime()->tensors), free_before);
  assert_int_equal(TVMArrayFree(NULL), -1);
  {
    int64_t one[1] = {1};
    DLTensor local = make_tensor(NULL, one, 0u);
    assert_int_equal(TVMArrayFree(&local), -1);
  }
}

static void test_byte_array_free(void **state) {
  void *array_memory;
  void *data;
  TVMByteArray *array;
  TVMByteArray local;
  size_t free_before = utvm_page_free_bytes(&test_runtime()->tensors);
  (void)state;
  assert_int_equal(TVMPlatformMemoryAllocate(sizeof(TVMByteArray), kCpu, &array_memory), UTVM_OK);
  assert_int_equal(TVMPlatformMemoryAllocate(10u, kCpu, &data), UTVM_OK);
  array = (TVMByteArray *)array_memory;
  array->data = (const char *)data;
  array->size = 10u;
  assert_int_equal(TVMByteArrayFree(array), 0);
  assert_int_equal(utvm_page_free_bytes(&test_runtime()->tensors), free_before);
  /* Not from the arena: nothing is freed. */
  local.data = (const char *)data;
  local.size = 1u;
  assert_int_equal(TVMByteArrayFree(&local), -1);
  assert_int_equal(TVMByteArrayFree(NULL), -1);
  assert_int_equal(TVMPlatformMemoryAllocate(sizeof(TVMByteArray), kCpu, &array_memory), UTVM_OK);
  array = (TVMByteArray *)array_memory;
  array->data = local.data; /* freed already */
  array->size = 1u;
  assert_int_equal(TVMByteArrayFree(array), -1);
  assert_int_equal(TVMPlatformMemoryFree(array_memory, kCpu), UTVM_OK);
}

static void test_platform_memory(void **state) {
  void *p;
  void *q;
  int local;
  (void)state;
  assert_int_equal(TVMPlatformMemoryAllocate(100u, kCpu, &p), UTVM_OK);
  assert_int_equal((uintptr_t)p % 64u, 0u);
  assert_int_equal(TVMPlatformMemoryAllocate(0u, kCpu, &q), UTVM_OK);
  assert_ptr_not_equal(p, q);
  assert_int_equal(TVMPlatformMemoryAllocate(TEST_TENSOR_ARENA_SIZE, kCpu, &q),
                   UTVM_ERR_PLATFORM_NO_MEMORY);
  assert_null(q);
  assert_int_equal(TVMPlatformMemoryAllocate(1u, kCpu, NULL), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(TVMPlatformMemoryFree(&local, kCpu), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(TVMPlatformMemoryFree(p, kCpu), UTVM_OK);
  assert_int_equal(TVMPlatformMemoryFree(p, kCpu), UTVM_ERR_FUNC_CALL_INVALID_ARG);
}

/* ---- Backend API --------------------------------------------------------------------------- */

static void test_workspace(void **state) {
  void *a;
  void *b;
  (void)state;
  a = TVMBackendAllocWorkspace(kDLCPU, 0, 100u, kDLFloat, 32);
  b = TVMBackendAllocWorkspace(kDLCPU, 0, 10u, kDLFloat, 32);
  assert_non_null(a);
  assert_non_null(b);
  assert_int_equal((uintptr_t)a % 64u, 0u);
  assert_int_equal((uintptr_t)b % 64u, 0u);
  memset(a, 1, 100u);
  memset(b, 2, 10u);
  assert_int_equal(TVMBackendFreeWorkspace(kDLCPU, 0, a), -1);
  assert_true(starts_with(test_last_error(), "workspace free out of order: 0x"));
  assert_int_equal(TVMBackendFreeWorkspace(kDLCPU, 0, b), 0);
  assert_int_equal(TVMBackendFreeWorkspace(kDLCPU, 0, a), 0);
  assert_int_equal(TVMBackendFreeWorkspace(kDLCPU, 0, a), -1);
  assert_null(TVMBackendAllocWorkspace(kDLCPU, 0, TEST_WORKSPACE_ARENA_SIZE, kDLFloat, 32));
  assert_string_equal(test_last_error(), "workspace arena full: need 16,384 bytes (0x00004000)");
  assert_null(TVMBackendAllocWorkspace(kDLCPU, 0, UINT64_MAX, kDLFloat, 32));
  a = TVMBackendAllocWorkspace(kDLCPU, 0, TEST_WORKSPACE_ARENA_SIZE - 64u, kDLFloat, 32);
  assert_non_null(a);
  assert_int_equal(TVMBackendFreeWorkspace(kDLCPU, 0, a), 0);
}

static void test_get_func_from_env(void **state) {
  TVMFunctionHandle f = handle_of(1u);
  (void)state;
  assert_int_equal(TVMBackendGetFuncFromEnv(NULL, "fails_silently", &f), 0);
  assert_int_equal((uintptr_t)f, 0x80008001u);
  assert_int_equal(TVMBackendGetFuncFromEnv(NULL, "runtime.RPCTimeEvaluator", &f), 0);
  assert_int_equal((uintptr_t)f, 0x80028002u);
  assert_int_equal(TVMBackendGetFuncFromEnv(NULL, "nowhere", &f), -1);
  assert_null(f);
  assert_string_equal(test_last_error(), "function not found: nowhere");
  assert_int_equal(TVMBackendGetFuncFromEnv(NULL, NULL, &f), -1);
  assert_int_equal(TVMBackendGetFuncFromEnv(NULL, "nowhere", NULL), -1);
  /* Without a system library only the globals are searched. */
  test_runtime_stop();
  assert_non_null(test_runtime_start(NULL));
  assert_int_equal(TVMBackendGetFuncFromEnv(NULL, "fails_silently", &f), -1);
  assert_int_equal(TVMBackendGetFuncFromEnv(NULL, "runtime.SystemLib", &f), 0);
}

typedef struct {
  int calls;
  int task_id;
  int32_t num_task;
  void *sync_handle;
} lambda_record_t;

static int record_lambda(int task_id, TVMParallelGroupEnv *penv, void *cdata) {
  lambda_record_t *record = (lambda_record_t *)cdata;
  record->calls++;
  record->task_id = task_id;
  record->num_task = penv->num_task;
  record->sync_handle = penv->sync_handle;
  return 17;
}

static void test_parallel_launch(void **state) {
  lambda_record_t record = {0, -1, -1, &record};
  (void)state;
  assert_int_equal(TVMBackendParallelLaunch(record_lambda, &record, 8), 17);
  assert_int_equal(record.calls, 1);
  assert_int_equal(record.task_id, 0);
  assert_int_equal(record.num_task, 1);
  assert_null(record.sync_handle);
  assert_int_equal(TVMBackendParallelLaunch(NULL, &record, 1), -1);
}

/* ---- Runtime life cycle ------------------------------------------------------------------- */

static void test_reset_memory(void **state) {
  utvm_crt_t *crt = test_runtime();
  TVMModuleHandle mod;
  TVMFunctionHandle f;
  void *tensor;
  void *workspace;
  size_t total;
  (void)state;
  total = utvm_page_free_bytes(&crt->tensors);
  assert_int_equal(utvm_crt_register_global("kept", sum_ints, NULL), UTVM_OK);
  assert_int_equal(TVMModCreateFromCModule(&kOther, &mod), 0);
  assert_int_equal(TVMDeviceAllocDataSpace(kCpu, 100u, 64u, kFloat32, &tensor), 0);
  workspace = TVMBackendAllocWorkspace(kDLCPU, 0, 100u, kDLFloat, 32);
  assert_non_null(workspace);
  utvm_crt_reset_memory(crt);
  assert_int_equal(utvm_page_free_bytes(&crt->tensors), total);
  assert_int_equal(utvm_stack_used_bytes(&crt->workspace), 0u);
  assert_int_equal(TVMDeviceFreeDataSpace(kCpu, tensor), -1);
  assert_int_equal(TVMModFree(mod), -1);
  assert_int_equal(TVMFuncGetGlobal("kept", &f), 0);
  assert_int_equal(TVMModGetFunction(handle_of(0x8000u), "sum_ints", 0, &f), 0);
  utvm_crt_reset_memory(NULL); /* no effect, no crash */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_before_init_everything_fails, setup, teardown),
      cmocka_unit_test_setup_teardown(test_init_arguments, setup, teardown),
      cmocka_unit_test_setup_teardown(test_last_error_truncates, setup, teardown),
      cmocka_unit_test_setup_teardown(test_last_error_form, setup, teardown),
      cmocka_unit_test_setup_teardown(test_builtin_globals_and_handles, setup, teardown),
      cmocka_unit_test_setup_teardown(test_time_evaluator_opt_in, setup, teardown),
      cmocka_unit_test_setup_teardown(test_system_lib, setup, teardown),
      cmocka_unit_test_setup_teardown(test_module_get_function_global, setup, teardown),
      cmocka_unit_test_setup_teardown(test_func_call, setup, teardown),
      cmocka_unit_test_setup_teardown(test_invalid_function_handles, setup, teardown),
      cmocka_unit_test_setup_teardown(test_invalid_module_handles, setup, teardown),
      cmocka_unit_test_setup_teardown(test_modules, setup, teardown),
      cmocka_unit_test_setup_teardown(test_device_alloc_data_space, setup, teardown),
      cmocka_unit_test_setup_teardown(test_device_alloc_with_scope, setup, teardown),
      cmocka_unit_test_setup_teardown(test_copy_data_from_to, setup, teardown),
      cmocka_unit_test_setup_teardown(test_array_alloc_free, setup, teardown),
      cmocka_unit_test_setup_teardown(test_byte_array_free, setup, teardown),
      cmocka_unit_test_setup_teardown(test_platform_memory, setup, teardown),
      cmocka_unit_test_setup_teardown(test_workspace, setup, teardown),
      cmocka_unit_test_setup_teardown(test_get_func_from_env, setup, teardown),
      cmocka_unit_test_setup_teardown(test_parallel_launch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reset_memory, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

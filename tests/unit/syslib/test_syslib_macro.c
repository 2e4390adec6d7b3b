/* Tests of UTVM_SYSLIB_MODULE (utvm/syslib.h): the names blob it builds is byte for byte the
 * hand-written one of PROTOCOL.md 5.5, the functions are in the list's order, and a module it
 * defines is callable through the runtime. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "crt_test_support.h"
#include "tvm/runtime/c_backend_api.h"
#include "utvm/crt.h"
#include "utvm/syslib.h"

int32_t sl_one(TVMValue *args, int *type_codes, int num_args, TVMValue *out_value,
               int *out_type_code, void *resource_handle);
int32_t sl_two(TVMValue *args, int *type_codes, int num_args, TVMValue *out_value,
               int *out_type_code, void *resource_handle);

/* Returns Int 1. */
int32_t sl_one(TVMValue *args, int *type_codes, int num_args, TVMValue *out_value,
               int *out_type_code, void *resource_handle) {
  (void)args;
  (void)type_codes;
  (void)num_args;
  (void)resource_handle;
  out_value->v_int64 = 1;
  *out_type_code = kTVMArgInt;
  return 0;
}

/* Returns Int 2. */
int32_t sl_two(TVMValue *args, int *type_codes, int num_args, TVMValue *out_value,
               int *out_type_code, void *resource_handle) {
  (void)args;
  (void)type_codes;
  (void)num_args;
  (void)resource_handle;
  out_value->v_int64 = 2;
  *out_type_code = kTVMArgInt;
  return 0;
}

#define SL_FUNCS(X) X(sl_two) X(sl_one)

UTVM_SYSLIB_MODULE(sl_module, SL_FUNCS);

static void test_blob_is_the_hand_written_one(void **state) {
  static const char expected[] = "\002\000sl_two\000sl_one\000";
  const TVMFuncRegistry *registry = sl_module()->registry;
  (void)state;
  assert_int_equal(UTVM_SYSLIB_COUNT(SL_FUNCS), 2);
  assert_memory_equal(registry->names, expected, sizeof(expected));
  assert_ptr_equal(registry->funcs[0], (TVMBackendPackedCFunc)sl_two);
  assert_ptr_equal(registry->funcs[1], (TVMBackendPackedCFunc)sl_one);
  assert_int_equal(utvm_crt_registry_count(registry), 2);
  assert_string_equal(utvm_crt_registry_name(registry, 1), "sl_one");
  assert_null(utvm_crt_registry_name(registry, 2));
}

static void test_module_functions_are_callable(void **state) {
  TVMModuleHandle module;
  TVMFunctionHandle function;
  TVMValue ret;
  int ret_code;
  (void)state;
  assert_non_null(test_runtime_start(sl_module()));
  assert_int_equal(TVMModCreateFromCModule(sl_module(), &module), 0);
  assert_int_equal(TVMModGetFunction(module, "sl_one", 0, &function), 0);
  assert_int_equal(TVMFuncCall(function, NULL, NULL, 0, &ret, &ret_code), 0);
  assert_int_equal(ret_code, kTVMArgInt);
  assert_int_equal(ret.v_int64, 1);
  assert_int_equal(TVMModGetFunction(module, "sl_three", 0, &function), -1);
  test_runtime_stop();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_blob_is_the_hand_written_one),
      cmocka_unit_test(test_module_functions_are_callable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

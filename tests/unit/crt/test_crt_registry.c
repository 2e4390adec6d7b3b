/* Tests of the function registries (src/crt/registry.c): names-blob lookups and globals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "crt_test_support.h"
#include "utvm/crt.h"

static int returns_seven(TVMValue *args, int *type_codes, int num_args, TVMValue *ret,
                         int *ret_type_code, void *resource_handle) {
  (void)args;
  (void)type_codes;
  (void)num_args;
  (void)resource_handle;
  ret->v_int64 = 7;
  *ret_type_code = kTVMArgInt;
  return 0;
}

/* Returns the integer its resource handle points to. */
static int returns_resource(TVMValue *args, int *type_codes, int num_args, TVMValue *ret,
                            int *ret_type_code, void *resource_handle) {
  (void)args;
  (void)type_codes;
  (void)num_args;
  ret->v_int64 = *(const int *)resource_handle;
  *ret_type_code = kTVMArgInt;
  return 0;
}

static const TVMBackendPackedCFunc kTwoFuncs[] = {returns_seven, returns_seven};

static void assert_found(const TVMFuncRegistry *registry, const char *name, int expected) {
  tvm_function_index_t index = 0xFFFFu;
  assert_int_equal(utvm_crt_registry_lookup(registry, name, &index), UTVM_OK);
  assert_int_equal(index, expected);
}

static void assert_missing(const TVMFuncRegistry *registry, const char *name) {
  tvm_function_index_t index = 0xFFFFu;
  assert_int_equal(utvm_crt_registry_lookup(registry, name, &index), UTVM_ERR_FUNC_NAME_NOT_FOUND);
  assert_int_equal(index, 0xFFFFu);
}

static void test_lookup_by_name(void **state) {
  /* The example of PROTOCOL.md 5.5: 02 00 'add' 00 'answer' 00 00. */
  static const char kBlob[] = "\002\000add\000answer\000";
  const TVMFuncRegistry registry = {kBlob, kTwoFuncs};
  (void)state;
  assert_int_equal(sizeof(kBlob), 14u);
  assert_found(&registry, "add", 0);
  assert_found(&registry, "answer", 1);
  assert_missing(&registry, "ad");
  assert_missing(&registry, "adds");
  assert_missing(&registry, "answe");
  assert_missing(&registry, "");
  assert_missing(&registry, NULL);
  assert_int_equal(utvm_crt_registry_count(&registry), 2);
  assert_int_equal(utvm_crt_registry_lookup(&registry, "add", NULL), UTVM_ERR_FUNC_NAME_NOT_FOUND);
}

static void test_null_registry_or_blob(void **state) {
  const TVMFuncRegistry no_names = {NULL, kTwoFuncs};
  (void)state;
  assert_missing(NULL, "add");
  assert_missing(&no_names, "add");
  assert_int_equal(utvm_crt_registry_count(NULL), 0);
  assert_int_equal(utvm_crt_registry_count(&no_names), 0);
}

static void test_zero_count(void **state) {
  static const char kBlob[] = "\000\000add\000";
  const TVMFuncRegistry registry = {kBlob, kTwoFuncs};
  (void)state;
  assert_missing(&registry, "add");
  assert_int_equal(utvm_crt_registry_count(&registry), 0);
}

static void test_count_larger_than_list(void **state) {
  static const char kBlob[] = "\005\000add\000answer\000";
  const TVMFuncRegistry registry = {kBlob, kTwoFuncs};
  (void)state;
  assert_found(&registry, "answer", 1);
  assert_missing(&registry, "more"); /* the scan stops at the empty name */
  assert_int_equal(utvm_crt_registry_count(&registry), 2);
}

static void test_count_smaller_than_list(void **state) {
  static const char kBlob[] = "\001\000add\000answer\000";
  const TVMFuncRegistry registry = {kBlob, kTwoFuncs};
  (void)state;
  assert_found(&registry, "add", 0);
  assert_missing(&registry, "answer");
  assert_int_equal(utvm_crt_registry_count(&registry), 1);
}

static void test_count_with_zero_low_byte(void **state) {
  /* N = 256 is stored as 00 01: the scan must still start at offset 2. */
  static const char kBlob[] = "\000\001add\000answer\000";
  const TVMFuncRegistry registry = {kBlob, kTwoFuncs};
  (void)state;
  assert_found(&registry, "answer", 1);
  assert_int_equal(utvm_crt_registry_count(&registry), 2);
}

static void test_missing_terminator_within_bound(void **state) {
  /* Exactly UTVM_CRT_MAX_NAMES_BLOB_BYTES bytes with no NUL after the count: the scan must
   * stop at the bound (ASan would report a read past the buffer). */
  char *blob = malloc(UTVM_CRT_MAX_NAMES_BLOB_BYTES);
  TVMFuncRegistry registry;
  (void)state;
  assert_non_null(blob);
  memset(blob, 'a', UTVM_CRT_MAX_NAMES_BLOB_BYTES);
  blob[0] = 3;
  blob[1] = 0;
  registry.names = blob;
  registry.funcs = kTwoFuncs;
  assert_missing(&registry, "aaa");
  assert_int_equal(utvm_crt_registry_count(&registry), 0);
  /* A terminated first name, then an unterminated second one. */
  blob[2] = 'x';
  blob[3] = '\0';
  assert_found(&registry, "x", 0);
  assert_missing(&registry, "aaa");
  assert_int_equal(utvm_crt_registry_count(&registry), 1);
  /* A name whose terminator is the last byte within the bound; N claims more names. */
  blob[3] = 'x';
  blob[UTVM_CRT_MAX_NAMES_BLOB_BYTES - 1u] = '\0';
  assert_missing(&registry, "b");
  assert_int_equal(utvm_crt_registry_count(&registry), 1);
  free(blob);
}

static void test_globals_table(void **state) {
  static const char *const kNames[] = {"g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7",
                                       "g8", "g9", "g10", "g11", "g12", "g13", "g14", "g15"};
  TVMFunctionHandle handle;
  TVMValue ret;
  int ret_code;
  uint32_t i;
  int resource = 42;
  (void)state;
  assert_non_null(test_runtime_start(NULL));
  /* Three built-ins are registered by utvm_crt_init. */
  assert_int_equal(utvm_crt_register_global("runtime.SystemLib", returns_seven, NULL),
                   UTVM_ERR_FUNC_ALREADY_DEFINED);
  assert_int_equal(utvm_crt_register_global(NULL, returns_seven, NULL),
                   UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_crt_register_global("x", NULL, NULL), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_crt_register_global("with.resource", returns_resource, &resource), UTVM_OK);
  for (i = 0u; i < UTVM_CRT_MAX_GLOBAL_FUNCS - 4u; i++) {
    assert_int_equal(utvm_crt_register_global(kNames[i], returns_seven, NULL), UTVM_OK);
  }
  assert_int_equal(utvm_crt_register_global("one.too.many", returns_seven, NULL),
                   UTVM_ERR_REGISTRY_FULL);
  assert_int_equal(TVMFuncRegisterGlobal("one.too.many", returns_seven, 0), -1);
  assert_string_equal(test_last_error(), "global function table full");
  /* Lookups of every entry, and the resource handle reaching the function. */
  for (i = 0u; i < UTVM_CRT_MAX_GLOBAL_FUNCS - 4u; i++) {
    assert_int_equal(TVMFuncGetGlobal(kNames[i], &handle), 0);
    assert_int_equal((uintptr_t)handle, 0x80028000u | (4u + i));
  }
  assert_int_equal(TVMFuncGetGlobal("with.resource", &handle), 0);
  assert_int_equal(TVMFuncCall(handle, NULL, NULL, 0, &ret, &ret_code), 0);
  assert_int_equal(ret_code, kTVMArgInt);
  assert_int_equal(ret.v_int64, 42);
  test_runtime_stop();
  assert_int_equal(utvm_crt_register_global("late", returns_seven, NULL),
                   UTVM_ERR_PLATFORM_CHECK_FAILURE);
}

static void test_register_global_override(void **state) {
  TVMFunctionHandle before;
  TVMFunctionHandle after;
  TVMValue ret;
  int ret_code;
  int resource = 5;
  (void)state;
  assert_non_null(test_runtime_start(NULL));
  assert_int_equal(TVMFuncRegisterGlobal("f", returns_seven, 0), 0);
  assert_int_equal(TVMFuncGetGlobal("f", &before), 0);
  assert_int_equal(TVMFuncRegisterGlobal("f", returns_seven, 0), -1);
  assert_string_equal(test_last_error(), "function already defined: f");
  assert_int_equal(TVMFuncRegisterGlobal(NULL, returns_seven, 0), -1);
  assert_int_equal(TVMFuncRegisterGlobal("g", NULL, 0), -1);
  assert_int_equal(utvm_crt_register_global("r", returns_resource, &resource), UTVM_OK);
  /* Overriding keeps the handle; the resource handle becomes NULL. */
  assert_int_equal(TVMFuncRegisterGlobal("r", returns_seven, 1), 0);
  assert_int_equal(TVMFuncGetGlobal("r", &after), 0);
  assert_int_equal(TVMFuncCall(after, NULL, NULL, 0, &ret, &ret_code), 0);
  assert_int_equal(ret.v_int64, 7);
  assert_int_equal(TVMFuncGetGlobal("f", &after), 0);
  assert_ptr_equal(before, after);
  test_runtime_stop();
  assert_int_equal(TVMFuncRegisterGlobal("f", returns_seven, 1), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lookup_by_name),
      cmocka_unit_test(test_null_registry_or_blob),
      cmocka_unit_test(test_zero_count),
      cmocka_unit_test(test_count_larger_than_list),
      cmocka_unit_test(test_count_smaller_than_list),
      cmocka_unit_test(test_count_with_zero_low_byte),
      cmocka_unit_test(test_missing_terminator_within_bound),
      cmocka_unit_test(test_globals_table),
      cmocka_unit_test(test_register_global_override),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

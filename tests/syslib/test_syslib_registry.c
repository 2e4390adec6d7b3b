/*
 * The test system library's registry, built by UTVM_SYSTEM_LIB (utvm/syslib.h) from the list
 * of its functions, in the shape TVM's C "metadata" module emits for runtime=crt, system-lib.
 * After the test functions come the int8 kernel functions (utvm/kfuncs.h), so that any
 * firmware with this library runs compiled graphs, then the AOT test model's two functions.
 */
#include "test_syslib.h"
#include "utvm/kfuncs.h"
#include "utvm/syslib.h"

#define TEST_SYSLIB_FUNCS(X)                                                                       \
  X(test_add_f32) X(test_echo) X(test_busy_wait_us) X(test_abort) X(test_sum_ints)                 \
      UTVM_KFUNCS_LIST(X) X(tvmgen_default_run) X(tvmgen_default_get_c_metadata)

/* 26 = 5 test functions + UTVM_KFUNCS_COUNT + the AOT test model's 2. */
typedef char test_syslib_check_count[
    (UTVM_SYSLIB_COUNT(TEST_SYSLIB_FUNCS) == TEST_SYSLIB_FUNCTION_COUNT) ? 1 : -1];

UTVM_SYSTEM_LIB(TEST_SYSLIB_FUNCS);

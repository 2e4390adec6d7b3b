/*
 * The test system library's registry, built by UTVM_SYSTEM_LIB (utvm/syslib.h) from the list
 * of its functions, in the shape TVM's C "metadata" module emits for runtime=crt, system-lib.
 * After the test functions come the kernel functions (utvm/kfuncs.h) the build chose
 * (TEST_SYSLIB_KFUNCS of the generated TEST_SYSLIB_KFUNCS_HEADER: every one, or UTVM_KFUNCS's
 * list), so that a firmware with this library runs compiled graphs, then the AOT test model's
 * two functions.
 */
#include "test_syslib.h"
#include "utvm/kfuncs.h"
#include "utvm/syslib.h"

#ifndef TEST_SYSLIB_KFUNCS_HEADER
#error "TEST_SYSLIB_KFUNCS_HEADER must name the generated list of kernel functions"
#endif
#include TEST_SYSLIB_KFUNCS_HEADER

#define TEST_SYSLIB_FUNCS(X)                                                                       \
  X(test_add_f32) X(test_echo) X(test_busy_wait_us) X(test_abort) X(test_sum_ints)                 \
      TEST_SYSLIB_KFUNCS(X) X(tvmgen_default_run) X(tvmgen_default_get_c_metadata)

/* 5 test functions + the chosen kernel functions + the AOT test model's 2. */
typedef char test_syslib_check_count[
    (UTVM_SYSLIB_COUNT(TEST_SYSLIB_FUNCS) == (5u + TEST_SYSLIB_KFUNCS_COUNT + 2u)) ? 1 : -1];

UTVM_SYSTEM_LIB(TEST_SYSLIB_FUNCS);

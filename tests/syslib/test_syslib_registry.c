/*
 * System-library metadata in the shape TVM's C "metadata" module emits for runtime=crt,
 * system-lib: a names blob (u16 count, NUL-terminated names, final NUL), the matching
 * function array and TVMSystemLibEntryPoint. After the test functions come the int8 kernel
 * functions (utvm/kfuncs.h), so that any firmware with this library runs compiled graphs.
 */
#include "test_syslib.h"
#include "tvm/runtime/crt/module.h"
#include "utvm/kfuncs.h"

static const TVMBackendPackedCFunc kTestSyslibFuncs[] = {
    (TVMBackendPackedCFunc)test_add_f32,
    (TVMBackendPackedCFunc)test_echo,
    (TVMBackendPackedCFunc)test_busy_wait_us,
    (TVMBackendPackedCFunc)test_abort,
    (TVMBackendPackedCFunc)test_sum_ints,
    UTVM_KFUNCS_FUNCS,
    (TVMBackendPackedCFunc)tvmgen_default_run,
    (TVMBackendPackedCFunc)tvmgen_default_get_c_metadata,
};

/* The blob's count (24 = 5 test functions + UTVM_KFUNCS_COUNT + the AOT test model's 2)
 * matches the array. */
typedef char test_syslib_check_count[
    (sizeof(kTestSyslibFuncs) / sizeof(kTestSyslibFuncs[0]) == TEST_SYSLIB_FUNCTION_COUNT) ? 1 : -1];

static const TVMFuncRegistry kTestSyslibRegistry = {
    "\030\000test_add_f32\000test_echo\000test_busy_wait_us\000test_abort\000test_sum_ints\000"
    UTVM_KFUNCS_NAMES
    "tvmgen_default_run\000tvmgen_default_get_c_metadata\000",
    kTestSyslibFuncs,
};

static const TVMModule kTestSyslibModule = {&kTestSyslibRegistry};

const TVMModule *TVMSystemLibEntryPoint(void) { return &kTestSyslibModule; }

/*
 * System-library metadata in the shape TVM's C "metadata" module emits for runtime=crt,
 * system-lib: a names blob (u16 count, NUL-terminated names, final NUL), the matching
 * function array and TVMSystemLibEntryPoint.
 */
#include "test_syslib.h"
#include "tvm/runtime/crt/module.h"

static const TVMBackendPackedCFunc kTestSyslibFuncs[] = {
    (TVMBackendPackedCFunc)test_add_f32,
    (TVMBackendPackedCFunc)test_echo,
    (TVMBackendPackedCFunc)test_busy_wait_us,
    (TVMBackendPackedCFunc)test_abort,
    (TVMBackendPackedCFunc)test_sum_ints,
    (TVMBackendPackedCFunc)tvmgen_default_run,
    (TVMBackendPackedCFunc)tvmgen_default_get_c_metadata,
};

static const TVMFuncRegistry kTestSyslibRegistry = {
    "\007\000test_add_f32\000test_echo\000test_busy_wait_us\000test_abort\000test_sum_ints\000"
    "tvmgen_default_run\000tvmgen_default_get_c_metadata\000",
    kTestSyslibFuncs,
};

static const TVMModule kTestSyslibModule = {&kTestSyslibRegistry};

const TVMModule *TVMSystemLibEntryPoint(void) { return &kTestSyslibModule; }

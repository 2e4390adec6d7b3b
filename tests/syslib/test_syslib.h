/*
 * The test system library: packed functions with the signature TVM's C code generator emits,
 * reachable through TVMSystemLibEntryPoint() (defined in test_syslib_registry.c).
 * Each returns 0 on success, or -1 after TVMAPISetLastError() on failure.
 */
#ifndef UTVM_TEST_SYSLIB_H
#define UTVM_TEST_SYSLIB_H

#include <stdint.h>

#include "tvm/runtime/c_backend_api.h"
#include "tvm/runtime/c_runtime_api.h"
#include "utvm/kfuncs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Functions of the test system library built with every kernel function (UTVM_KFUNCS "all"):
 * the 5 test functions, the UTVM_KFUNCS_COUNT kernel functions (utvm/kfuncs.h) and the AOT test
 * model's 2. */
#define TEST_SYSLIB_FUNCTION_COUNT (5u + UTVM_KFUNCS_COUNT + 2u)

/* Code passed to TVMPlatformAbort by test_abort. */
#define TEST_SYSLIB_ABORT_CODE 0x7E57

/* Largest wait test_busy_wait_us accepts, and its bound on timer polls. */
#define TEST_SYSLIB_BUSY_WAIT_MAX_US 10000000
#define TEST_SYSLIB_BUSY_WAIT_MAX_POLLS 100000000u

/* test_add_f32(a, b, out): out = a + b elementwise; three 1-D float32 CPU tensors (type code
 * 7 or 13) of equal shape, compact, byte_offset 0, non-NULL data. */
TVM_DLL int32_t test_add_f32(TVMValue *args, int *type_code, int num_args, TVMValue *out_value,
                             int *out_type_code, void *resource_handle);

/* test_echo(x): returns x with its type code, for Int (0), UInt (1), Float (2), Bool (15),
 * Str (11, same pointer), Null (4) and Bytes (12: a copy in a TVMByteArray whose struct and
 * data come from TVMPlatformMemoryAllocate, for the caller to free). */
TVM_DLL int32_t test_echo(TVMValue *args, int *type_code, int num_args, TVMValue *out_value,
                          int *out_type_code, void *resource_handle);

/* Port hook used only by the test library: a monotonic microsecond clock that is
 * independent of the single TVM platform timer (which the time evaluator owns). */
uint64_t test_syslib_time_us(void);

/* test_sum_ints(Int...): the sum of its Int arguments (any count, other types ignored), so
 * that a call with many arguments shows each of them arrived. */
TVM_DLL int32_t test_sum_ints(TVMValue *args, int *type_code, int num_args, TVMValue *out_value,
                              int *out_type_code, void *resource_handle);

/* test_busy_wait_us(n): spins on test_syslib_time_us() until n microseconds
 * (Int, 0..TEST_SYSLIB_BUSY_WAIT_MAX_US) have elapsed; error if the clock has not advanced
 * enough after TEST_SYSLIB_BUSY_WAIT_MAX_POLLS polls. Can be timed by the time evaluator. */
TVM_DLL int32_t test_busy_wait_us(TVMValue *args, int *type_code, int num_args,
                                  TVMValue *out_value, int *out_type_code, void *resource_handle);

/* test_abort(): calls TVMPlatformAbort(TEST_SYSLIB_ABORT_CODE); never returns. */
TVM_DLL int32_t test_abort(TVMValue *args, int *type_code, int num_args, TVMValue *out_value,
                           int *out_type_code, void *resource_handle);

/* The system library also holds a tiny AOT model "default" (one float32[4] input "x", one
 * float32[4] output "output", output = x + x), as TVM's AOT code generator would emit it:
 * tvmgen_default_get_c_metadata() -> opaque pointer to its struct TVMMetadata, and
 * tvmgen_default_run(x, output) (two float32[4] tensors, type code 7 or 13). */
TVM_DLL int32_t tvmgen_default_run(TVMValue *args, int *type_code, int num_args,
                                   TVMValue *out_value, int *out_type_code, void *resource_handle);
TVM_DLL int32_t tvmgen_default_get_c_metadata(TVMValue *args, int *type_code, int num_args,
                                              TVMValue *out_value, int *out_type_code,
                                              void *resource_handle);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_TEST_SYSLIB_H */

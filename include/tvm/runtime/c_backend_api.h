/*
 * TVM backend API: the runtime functions TVM-generated operator code calls.
 * Written for utvm from PROTOCOL.md section 5.4; implemented by utvm_crt.
 */
#ifndef TVM_RUNTIME_C_BACKEND_API_H_
#define TVM_RUNTIME_C_BACKEND_API_H_

#include <stdint.h>

#include "tvm/runtime/c_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Finds func_name in the system library, then among the globals; sets *out. mod_node is
 * ignored. Returns -1 (and *out = NULL) when not found. */
TVM_DLL int TVMBackendGetFuncFromEnv(void *mod_node, const char *func_name, TVMFunctionHandle *out);

/* Allocates nbytes of 64-byte aligned scratch memory from the workspace arena (LIFO).
 * Returns NULL, with the last error set, when the arena is exhausted. Hints are ignored. */
TVM_DLL void *TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                                       int dtype_code_hint, int dtype_bits_hint);

/* Frees the most recent workspace allocation. 0 on success, -1 if ptr is not the most
 * recent live allocation (out-of-order, double or foreign free). */
TVM_DLL int TVMBackendFreeWorkspace(int device_type, int device_id, void *ptr);

/* Environment of one parallel task. */
typedef struct {
  void *sync_handle;
  int32_t num_task;
} TVMParallelGroupEnv;

/* Body of a parallel loop: runs the share of task_id out of penv->num_task. */
typedef int (*FTVMParallelLambda)(int task_id, TVMParallelGroupEnv *penv, void *cdata);

/* Runs flambda as the only task (task 0 of 1, whatever num_task asks); returns its result. */
TVM_DLL int TVMBackendParallelLaunch(FTVMParallelLambda flambda, void *cdata, int num_task);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_C_BACKEND_API_H_ */

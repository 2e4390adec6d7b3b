/*
 * TVM CRT modules and function registries, in the form TVM's generated system-library code
 * defines them (PROTOCOL.md section 5.5).
 */
#ifndef TVM_RUNTIME_CRT_MODULE_H_
#define TVM_RUNTIME_CRT_MODULE_H_

#include <stdint.h>

#include "tvm/runtime/c_backend_api.h"
#include "tvm/runtime/c_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint16_t tvm_function_index_t;
typedef uint16_t tvm_module_index_t;

/* A static list of named packed functions.
 * names: u16 little-endian count N at offset 0, then N NUL-terminated names from offset 2,
 *        then one more NUL (an empty name ends the list).
 * funcs: funcs[i] implements the i-th name (N entries). */
typedef struct TVMFuncRegistry {
  const char *names;
  const TVMBackendPackedCFunc *funcs;
} TVMFuncRegistry;

/* A C module: just its function registry. */
typedef struct TVMModule {
  const TVMFuncRegistry *registry;
} TVMModule;

/* Defined by the generated code (or tests/syslib): returns the system library module. */
const TVMModule *TVMSystemLibEntryPoint(void);

/* Registers a static C module with the runtime and returns its handle in *out_handle.
 * -1 when all UTVM_CRT_MAX_MODULES slots are in use or mod has no registry. */
TVM_DLL int TVMModCreateFromCModule(const TVMModule *mod, TVMModuleHandle *out_handle);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_CRT_MODULE_H_ */

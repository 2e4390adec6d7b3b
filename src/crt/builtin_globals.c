/*
 * Built-in global functions: runtime.SystemLib and tvm.rpc.server.ModuleGetFunction
 * (PROTOCOL.md section 4). runtime.RPCTimeEvaluator lives in time_evaluator.c.
 */
#include <stddef.h>
#include <stdint.h>

#include "crt_internal.h"

int utvm_crt_system_lib_global(TVMValue *args, int *type_codes, int num_args, TVMValue *ret,
                               int *ret_type_code, void *resource_handle) {
  utvm_crt_t *crt = utvm_crt_active();
  (void)args;
  (void)type_codes;
  (void)num_args; /* ignored, as TVM does */
  (void)resource_handle;
  if (crt == NULL || crt->modules[0] == NULL) {
    return utvm_crt_fail(UTVM_TEXT_NO_SYSTEM_LIB);
  }
  ret->v_handle = utvm_crt_module_handle(0u);
  *ret_type_code = kTVMModuleHandle;
  return 0;
}

int utvm_crt_module_get_function_global(TVMValue *args, int *type_codes, int num_args,
                                        TVMValue *ret, int *ret_type_code, void *resource_handle) {
  utvm_crt_t *crt;
  uint32_t module_index;
  TVMFunctionHandle function;
  (void)resource_handle;
  if (num_args != 3 || type_codes[0] != kTVMModuleHandle || type_codes[1] != kTVMStr ||
      (type_codes[2] != kTVMArgInt && type_codes[2] != kTVMArgBool) || args[1].v_str == NULL) {
    return utvm_crt_fail(UTVM_TEXT_GET_FUNCTION_ARGS);
  }
  crt = utvm_crt_active();
  module_index = utvm_crt_decode_module(crt, args[0].v_handle);
  if (module_index >= UTVM_CRT_MAX_MODULES) {
    return -1;
  }
  function = utvm_crt_module_lookup(crt, module_index, args[1].v_str);
  *ret_type_code = (function != NULL) ? kTVMPackedFuncHandle : kTVMNullptr;
  ret->v_handle = function;
  return 0;
}

/*
 * Module and function handles: small non-zero integers carried in void* (they travel over
 * the wire as u64). Encoding: module = 0x8000 | module_index; function =
 * ((0x8000 | module_index) << 16) | (0x8000 | function_index). Decoding validates everything.
 */
#include <stddef.h>
#include <stdint.h>

#include "crt_internal.h"

/* Registry of module slot module_index when the slot is live, else NULL. */
static const TVMFuncRegistry *live_registry(const utvm_crt_t *crt, uintptr_t module_index) {
  const TVMFuncRegistry *registry = NULL;
  if ((module_index < UTVM_CRT_MAX_MODULES) && (crt->modules[module_index] != NULL)) {
    registry = crt->modules[module_index]->registry;
  }
  return registry;
}

uint32_t utvm_crt_decode_module(const utvm_crt_t *crt, TVMModuleHandle handle) {
  /* Wraps around for values below the tag, which the range check then rejects. */
  uintptr_t index = (uintptr_t)handle - UTVM_CRT_HANDLE_TAG;
  if (crt == NULL || live_registry(crt, index) == NULL) {
    (void)utvm_crt_fail_hex(UTVM_TEXT_INVALID_MODULE, (uint64_t)(uintptr_t)handle);
    return UTVM_CRT_MAX_MODULES;
  }
  return (uint32_t)index;
}

TVMBackendPackedCFunc utvm_crt_decode_function(utvm_crt_t *crt, TVMFunctionHandle handle,
                                               void **resource_handle) {
  uintptr_t raw = (uintptr_t)handle;
  /* A half without the tag wraps around, and bits above 31 push module_index past 0x7FFF:
   * either way the index exceeds every bound below. */
  uintptr_t module_index = (raw >> 16) - UTVM_CRT_HANDLE_TAG;
  uintptr_t index = (raw & 0xFFFFu) - UTVM_CRT_HANDLE_TAG;
  TVMBackendPackedCFunc func = NULL;
  *resource_handle = NULL;
  if (crt == NULL) {
    /* no runtime: func stays NULL */
  } else if (module_index == UTVM_CRT_TIME_EVAL_MODULE_INDEX) {
    /* A live evaluator is called as a packed function on its slot. */
    if (index < UTVM_CRT_MAX_TIME_EVALUATORS && crt->time_evaluators[index].func != NULL) {
      func = crt->time_evaluator_call; /* set: only the time evaluator fills a slot */
      *resource_handle = &crt->time_evaluators[index];
    }
  } else if (module_index == UTVM_CRT_GLOBALS_MODULE_INDEX) {
    if (index < crt->num_globals) {
      func = crt->globals[index].func;
      *resource_handle = crt->globals[index].resource_handle;
    }
  } else {
    const TVMFuncRegistry *registry = live_registry(crt, module_index);
    if (registry != NULL && registry->names != NULL && registry->funcs != NULL) {
      /* The registry is firmware data: its declared count N bounds funcs[]. */
      if (index < utvm_crt_registry_declared(registry->names)) {
        func = registry->funcs[index];
        *resource_handle = crt->module_contexts[module_index];
      }
    }
  }
  if (func == NULL) {
    (void)utvm_crt_fail_hex(UTVM_TEXT_INVALID_FUNCTION, (uint64_t)raw);
  }
  return func;
}

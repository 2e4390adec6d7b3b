/*
 * Module and function handles: small non-zero integers carried in void* (they travel over
 * the wire as u64). Encoding: module = 0x8000 | module_index; function =
 * ((0x8000 | module_index) << 16) | (0x8000 | function_index). Decoding validates everything.
 */
#include <stddef.h>
#include <stdint.h>

#include "crt_internal.h"

TVMModuleHandle utvm_crt_module_handle(uint16_t module_index) {
  return (TVMModuleHandle)(uintptr_t)(UTVM_CRT_HANDLE_TAG | module_index);
}

TVMFunctionHandle utvm_crt_function_handle(uint16_t module_index, uint16_t index) {
  uint32_t value = ((uint32_t)(UTVM_CRT_HANDLE_TAG | module_index) << 16) |
                   (uint32_t)(UTVM_CRT_HANDLE_TAG | index);
  return (TVMFunctionHandle)(uintptr_t)value;
}

static void invalid_handle_error(const char *what, const void *handle) {
  utvm_crt_error_set("invalid ");
  utvm_crt_error_append(what);
  utvm_crt_error_append(" handle ");
  utvm_crt_error_append_hex((uint64_t)(uintptr_t)handle);
}

static int module_live(const utvm_crt_t *crt, uint32_t module_index) {
  return module_index < UTVM_CRT_MAX_MODULES && crt->modules[module_index] != NULL &&
         crt->modules[module_index]->registry != NULL;
}

utvm_err_t utvm_crt_decode_module(const utvm_crt_t *crt, TVMModuleHandle handle,
                                  uint16_t *module_index) {
  uint64_t raw = (uint64_t)(uintptr_t)handle;
  if ((raw & ~(uint64_t)0x7FFFu) == UTVM_CRT_HANDLE_TAG && module_live(crt, (uint32_t)(raw & 0x7FFFu))) {
    *module_index = (uint16_t)(raw & 0x7FFFu);
    return UTVM_OK;
  }
  invalid_handle_error("module", handle);
  return UTVM_ERR_FUNC_INDEX_INVALID;
}

utvm_err_t utvm_crt_decode_function(const utvm_crt_t *crt, TVMFunctionHandle handle,
                                    utvm_crt_function_t *out) {
  uint64_t raw = (uint64_t)(uintptr_t)handle;
  uint32_t high = (uint32_t)((raw >> 16) & 0xFFFFu);
  uint32_t low = (uint32_t)(raw & 0xFFFFu);
  uint32_t module_index = high & 0x7FFFu;
  uint32_t index = low & 0x7FFFu;
  int valid = 0;
  out->func = NULL;
  out->resource_handle = NULL;
  if ((raw >> 32) == 0u && (high & UTVM_CRT_HANDLE_TAG) != 0u && (low & UTVM_CRT_HANDLE_TAG) != 0u) {
    if (module_index == UTVM_CRT_TIME_EVAL_MODULE_INDEX) {
      valid = index < UTVM_CRT_MAX_TIME_EVALUATORS && crt->time_evaluators[index].func != NULL;
    } else if (module_index == UTVM_CRT_GLOBALS_MODULE_INDEX) {
      valid = index < crt->num_globals;
      if (valid) {
        out->func = crt->globals[index].func;
        out->resource_handle = crt->globals[index].resource_handle;
      }
    } else if (module_live(crt, module_index)) {
      const TVMFuncRegistry *registry = crt->modules[module_index]->registry;
      /* The registry is firmware data: its declared count N bounds funcs[]. */
      const char *names = registry->names;
      uint32_t declared = (names == NULL) ? 0u :
                          ((uint32_t)(uint8_t)names[0] | ((uint32_t)(uint8_t)names[1] << 8));
      valid = index < declared && registry->funcs != NULL && registry->funcs[index] != NULL;
      if (valid) {
        out->func = registry->funcs[index];
      }
    }
  }
  if (!valid) {
    invalid_handle_error("function", handle);
    return UTVM_ERR_FUNC_INDEX_INVALID;
  }
  out->module_index = (uint16_t)module_index;
  out->index = (uint16_t)index;
  return UTVM_OK;
}

utvm_err_t utvm_crt_module_lookup(const utvm_crt_t *crt, uint16_t module_index, const char *name,
                                  TVMFunctionHandle *out) {
  tvm_function_index_t index;
  const TVMFuncRegistry *registry = crt->modules[module_index]->registry;
  utvm_err_t err = utvm_crt_registry_lookup(registry, name, &index);
  if (err != UTVM_OK || registry->funcs == NULL || registry->funcs[index] == NULL) {
    return UTVM_ERR_FUNC_NAME_NOT_FOUND;
  }
  *out = utvm_crt_function_handle(module_index, index);
  return UTVM_OK;
}

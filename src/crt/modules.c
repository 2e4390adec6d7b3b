/*
 * Modules with state (executors, utvm/crt.h): taking a module slot, releasing it, and the
 * NDArrays such modules return. Linked only when something creates a module
 * (utvm_crt_module_create installs the release and NDArray-free functions in the runtime), so a
 * firmware without executors carries none of it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crt_internal.h"

/* The runtime's release_module: empties slot module_index and runs its release hook once. */
static void module_release(void *runtime, uint32_t module_index) {
  utvm_crt_t *crt = (utvm_crt_t *)runtime;
  const utvm_crt_module_hooks_t *hooks = crt->module_hooks[module_index];
  void *context = crt->module_contexts[module_index];
  bool live = crt->modules[module_index] != NULL;
  uint32_t i;
  crt->modules[module_index] = NULL;
  crt->module_hooks[module_index] = NULL;
  crt->module_contexts[module_index] = NULL;
  /* A time evaluator of one of its functions would call into released memory. */
  for (i = 0u; live && (context != NULL) && (i < UTVM_CRT_MAX_TIME_EVALUATORS); i++) {
    if (crt->time_evaluators[i].resource_handle == context) {
      crt->time_evaluators[i].func = NULL;
    }
  }
  if (live && (hooks != NULL) && (hooks->release != NULL)) {
    hooks->release(context);
  }
}

/* The runtime's free_ndarray: a view owned by a live module is left alone, anything else must
 * be a TVMArrayAlloc'd array. */
static int ndarray_free(void *runtime, void *nd) {
  const utvm_crt_t *crt = (const utvm_crt_t *)runtime;
  uint32_t i;
  for (i = 1u; i < UTVM_CRT_MAX_MODULES; i++) {
    const utvm_crt_module_hooks_t *hooks = crt->module_hooks[i];
    if ((crt->modules[i] != NULL) && (hooks != NULL) && (hooks->owns_ndarray != NULL) &&
        (hooks->owns_ndarray(crt->module_contexts[i], nd) != 0)) {
      return 0;
    }
  }
  return TVMArrayFree((TVMArrayHandle)nd);
}

utvm_err_t utvm_crt_module_create(const TVMModule *module, const utvm_crt_module_hooks_t *hooks,
                                  void *context, TVMModuleHandle *out) {
  utvm_crt_t *crt = utvm_crt_active();
  uint16_t i;
  if (crt == NULL) {
    return UTVM_ERR_PLATFORM_CHECK_FAILURE;
  }
  if ((module == NULL) || (module->registry == NULL) || (out == NULL)) {
    (void)utvm_crt_fail(UTVM_TEXT_NULL_ARGUMENT);
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  crt->release_module = module_release;
  crt->free_ndarray = ndarray_free;
  for (i = 1u; i < UTVM_CRT_MAX_MODULES; i++) {
    if (crt->modules[i] == NULL) {
      crt->modules[i] = module;
      crt->module_hooks[i] = hooks;
      crt->module_contexts[i] = context;
      *out = utvm_crt_module_handle(i);
      return UTVM_OK;
    }
  }
  /* Say who holds the slots and how to free one. */
  (void)utvm_crt_fail_own(UTVM_CRT_OWN(UTVM_TEXT_MODULES_FULL));
  utvm_crt_error_append_own(UTVM_CRT_OWN(UTVM_TEXT_MODULES_HELD_BY));
  for (i = 1u; i < UTVM_CRT_MAX_MODULES; i++) {
    const utvm_crt_module_hooks_t *holder = crt->module_hooks[i];
    utvm_crt_error_append((i > 1u) ? ", " : "");
    utvm_crt_error_append(((holder != NULL) && (holder->name != NULL)) ? holder->name : "module");
    utvm_crt_error_append(" ");
    utvm_crt_error_append_hex((uint64_t)(uintptr_t)utvm_crt_module_handle(i));
  }
  utvm_crt_error_append_own(UTVM_CRT_OWN(UTVM_TEXT_MODULES_FREE_HINT));
  return UTVM_ERR_REGISTRY_FULL;
}

void *utvm_crt_module_context(TVMModuleHandle handle, const utvm_crt_module_hooks_t *hooks) {
  const utvm_crt_t *crt = utvm_crt_active();
  uint32_t index = (crt != NULL) ? utvm_crt_decode_module(crt, handle) : UTVM_CRT_MAX_MODULES;
  if ((hooks == NULL) || (index == 0u) || (index >= UTVM_CRT_MAX_MODULES) ||
      (crt->module_hooks[index] != hooks)) {
    return NULL;
  }
  return crt->module_contexts[index];
}

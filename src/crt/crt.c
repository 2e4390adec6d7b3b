/*
 * Runtime life cycle and the active-runtime pointer.
 *
 * g_active_runtime is the single deliberate global of utvm_crt: the TVM C API has no context
 * parameter, so every TVM entry point works on the runtime last passed to utvm_crt_init.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "crt_internal.h"

static utvm_crt_t *g_active_runtime;

utvm_crt_t *utvm_crt_active(void) { return g_active_runtime; }

utvm_err_t utvm_crt_init(utvm_crt_t *crt, const utvm_crt_config_t *config) {
  utvm_err_t err;
  if (crt == NULL || config == NULL || config->tensor_arena == NULL) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  memset(crt, 0, sizeof(*crt));
  err = utvm_page_allocator_init(&crt->tensors, config->tensor_arena, config->tensor_arena_size);
  if (err == UTVM_OK) {
    err = utvm_stack_allocator_init(&crt->workspace, config->workspace_arena,
                                    config->workspace_arena_size);
  }
  if (err != UTVM_OK) {
    return err;
  }
  /* The built-in globals (the table was zeroed: resource handles are NULL). */
  crt->globals[0].name = "runtime.SystemLib";
  crt->globals[0].func = utvm_crt_system_lib_global;
  crt->globals[1].name = "tvm.rpc.server.ModuleGetFunction";
  crt->globals[1].func = utvm_crt_module_get_function_global;
  /* runtime.RPCTimeEvaluator: its function comes with utvm_crt_enable_time_evaluator. */
  crt->globals[UTVM_CRT_TIME_EVAL_GLOBAL].name = UTVM_CRT_TIME_EVAL_NAME;
  crt->num_globals = UTVM_CRT_NUM_BUILTIN_GLOBALS;
  crt->modules[0] = config->system_lib;
  crt->sleep_ms = config->sleep_ms;
  g_active_runtime = crt;
  return UTVM_OK;
}

void utvm_crt_reset_memory(utvm_crt_t *crt) {
  uint32_t i;
  if (crt == NULL) {
    return;
  }
  for (i = 1u; (i < UTVM_CRT_MAX_MODULES) && (crt->release_module != NULL); i++) {
    crt->release_module(crt, i);
  }
  utvm_page_allocator_reset(&crt->tensors);
  utvm_stack_allocator_reset(&crt->workspace);
  for (i = 0u; i < UTVM_CRT_MAX_TIME_EVALUATORS; i++) {
    crt->time_evaluators[i].func = NULL;
  }
}

void utvm_crt_shutdown(utvm_crt_t *crt) {
  if (crt != NULL && crt == g_active_runtime) {
    g_active_runtime = NULL;
  }
}

utvm_err_t utvm_crt_data_range(const void *ptr, uint8_t **base, size_t *size) {
  /* Without a runtime the NULL allocator is rejected (UTVM_ERR_FUNC_CALL_INVALID_ARG). */
  const utvm_page_allocator_t *tensors =
      (g_active_runtime == NULL) ? NULL : &g_active_runtime->tensors;
  return utvm_page_find(tensors, ptr, base, size);
}

/* Internal interfaces shared by the files of utvm_crt. Not installed. */
#ifndef UTVM_CRT_INTERNAL_H
#define UTVM_CRT_INTERNAL_H

#include <stdint.h>

#include "utvm/crt.h"

/* Handle encoding (see utvm/crt.h). */
#define UTVM_CRT_HANDLE_TAG 0x8000u
#define UTVM_CRT_GLOBALS_MODULE_INDEX ((uint16_t)UTVM_CRT_MAX_MODULES)
#define UTVM_CRT_TIME_EVAL_MODULE_INDEX 0x7FFFu

typedef char utvm_crt_check_max_modules[(UTVM_CRT_MAX_MODULES >= 1u && UTVM_CRT_MAX_MODULES < 0x7FFFu) ? 1 : -1];
/* runtime.SystemLib, tvm.rpc.server.ModuleGetFunction, runtime.RPCTimeEvaluator. */
#define UTVM_CRT_NUM_BUILTIN_GLOBALS 3u
/* The last of them, runtime.RPCTimeEvaluator: its name is set by utvm_crt_init, its function by
 * utvm_crt_enable_time_evaluator (a global without a function is not found). */
#define UTVM_CRT_TIME_EVAL_GLOBAL 2u
#define UTVM_CRT_TIME_EVAL_NAME "runtime.RPCTimeEvaluator"

typedef char utvm_crt_check_max_globals[(UTVM_CRT_MAX_GLOBAL_FUNCS >= UTVM_CRT_NUM_BUILTIN_GLOBALS && UTVM_CRT_MAX_GLOBAL_FUNCS <= 0x7FFFu) ? 1 : -1];
typedef char utvm_crt_check_last_error[(UTVM_CRT_LAST_ERROR_SIZE >= 32u) ? 1 : -1];

/* The active runtime (the one global, see utvm/crt.h), or NULL before utvm_crt_init. */
utvm_crt_t *utvm_crt_active(void);

/* Appends the C runtime text id (UTVM_CRT_TEXT_LIST) to the last error. */
void utvm_crt_error_append_text(utvm_text_id_t id);

/* A C runtime text of a UTVM_TEXT_OWN entry (utvm/error_texts.h), named by UTVM_CRT_OWN(id):
 * the text itself, in an object of its own (utvm_crt_text_<id>, which --gc-sections drops
 * with the functions that report it), or with UTVM_NO_ERROR_TEXTS its id. */
#ifdef UTVM_NO_ERROR_TEXTS
typedef utvm_text_id_t utvm_crt_own_text_t;
#define UTVM_CRT_OWN(id) (id)
#else
typedef const char *utvm_crt_own_text_t;
#define UTVM_CRT_OWN(id) (utvm_crt_text_##id)
#define UTVM_TEXT(id, text)
#define UTVM_TEXT_OWN(id, text) extern const char utvm_crt_text_##id[sizeof(text) - 1u];
UTVM_CRT_TEXT_LIST
#undef UTVM_TEXT
#undef UTVM_TEXT_OWN
#endif

/* utvm_crt_fail, utvm_crt_fail_name, utvm_crt_fail_hex and utvm_crt_error_append_text for a
 * text of a UTVM_TEXT_OWN entry. */
int utvm_crt_fail_own(utvm_crt_own_text_t text);
int utvm_crt_fail_own_name(utvm_crt_own_text_t text, const char *name);
int utvm_crt_fail_own_hex(utvm_crt_own_text_t text, uint64_t value);
void utvm_crt_error_append_own(utvm_crt_own_text_t text);
/* True when the last-error text is empty. */
int utvm_crt_error_is_empty(void);

/* Handle encoding and validation; the decoders set the last error and fail (see each) for
 * anything that is not a live handle, also for crt == NULL (no runtime is active, so no error
 * can be recorded). */
static inline TVMModuleHandle utvm_crt_module_handle(uint16_t module_index) {
  return (TVMModuleHandle)((uintptr_t)UTVM_CRT_HANDLE_TAG | (uintptr_t)module_index);
}
static inline TVMFunctionHandle utvm_crt_function_handle(uint16_t module_index, uint16_t index) {
  uint32_t value = (((uint32_t)UTVM_CRT_HANDLE_TAG | (uint32_t)module_index) << 16) |
                   (uint32_t)UTVM_CRT_HANDLE_TAG | (uint32_t)index;
  return (TVMFunctionHandle)(uintptr_t)value;
}
/* The slot index of a live module handle; UTVM_CRT_MAX_MODULES for anything else. */
uint32_t utvm_crt_decode_module(const utvm_crt_t *crt, TVMModuleHandle handle);
/* The function of a live function handle, with the resource handle to call it with in
 * *resource_handle (for a time evaluator: crt->time_evaluator_call and its
 * utvm_crt_time_evaluator_t); NULL for anything else. */
TVMBackendPackedCFunc utvm_crt_decode_function(utvm_crt_t *crt, TVMFunctionHandle handle,
                                               void **resource_handle);

/* The function count N that a registry's names blob declares in its first two bytes
 * (little-endian; see TVMFuncRegistry). names must not be NULL. */
static inline uint32_t utvm_crt_registry_declared(const char *names) {
  return (uint32_t)(uint8_t)names[0] | ((uint32_t)(uint8_t)names[1] << 8);
}

/* The handle of function name in module slot module_index (which must be live); NULL when name
 * is absent (or NULL). Does not touch the last error. */
TVMFunctionHandle utvm_crt_module_lookup(const utvm_crt_t *crt, uint32_t module_index,
                                         const char *name);

/* Index of a global function by name; UTVM_CRT_MAX_GLOBAL_FUNCS when absent (or without a
 * function: runtime.RPCTimeEvaluator before utvm_crt_enable_time_evaluator). */
uint32_t utvm_crt_global_index(const utvm_crt_t *crt, const char *name);

/* Adds or replaces a global in the active runtime's table (replace only when
 * allow_override != 0); errors as utvm_crt_register_global. */
utvm_err_t utvm_crt_global_set(const char *name, TVMBackendPackedCFunc func, void *resource_handle,
                               int allow_override);

/* Built-in global functions (packed-function signature). */
int utvm_crt_system_lib_global(TVMValue *args, int *type_codes, int num_args, TVMValue *ret,
                               int *ret_type_code, void *resource_handle);
int utvm_crt_module_get_function_global(TVMValue *args, int *type_codes, int num_args,
                                        TVMValue *ret, int *ret_type_code, void *resource_handle);

/* IEEE-754 binary64 bit pattern of num / den, rounded to nearest-even, by integer code (the
 * time evaluator's float64 results). 0 (+0.0) when num or den is 0. */
uint64_t utvm_crt_ratio_to_binary64(uint64_t num, uint64_t den);

#endif /* UTVM_CRT_INTERNAL_H */

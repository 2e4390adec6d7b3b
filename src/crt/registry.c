/*
 * Function registries: lookups in a system-library names blob and the fixed-capacity table of
 * global functions.
 */
#include <stddef.h>
#include <stdint.h>

#include "crt_internal.h"

/* Set in scan_names' result when name was found. */
#define NAME_FOUND 0x80000000u

/* Walks the names blob: at most N names from offset 2, stopping at the empty name or at
 * UTVM_CRT_MAX_NAMES_BLOB_BYTES. Returns NAME_FOUND | index at the first name equal to name
 * (never with name == NULL), else the number of complete names visited. */
static uint32_t scan_names(const TVMFuncRegistry *registry, const char *name) {
  const char *blob;
  uint32_t declared;
  uint32_t position = 2u;
  uint32_t visited = 0u;
  if (registry == NULL || registry->names == NULL) {
    return 0u;
  }
  blob = registry->names;
  declared = utvm_crt_registry_declared(blob);
  while (visited < declared && position < UTVM_CRT_MAX_NAMES_BLOB_BYTES &&
         blob[position] != '\0') {
    uint32_t k = 0u;
    int matching = (name != NULL);
    /* Compare while matching; in every case move to this name's terminator. */
    while (position + k < UTVM_CRT_MAX_NAMES_BLOB_BYTES && blob[position + k] != '\0') {
      if (matching && blob[position + k] != name[k]) {
        matching = 0;
      }
      k++;
    }
    if (position + k >= UTVM_CRT_MAX_NAMES_BLOB_BYTES) {
      break; /* unterminated within the bound: ignore this name */
    }
    if (matching && name[k] == '\0') {
      return NAME_FOUND | visited;
    }
    visited++;
    position += k + 1u;
  }
  return visited;
}

const char *utvm_crt_registry_name(const TVMFuncRegistry *registry, int64_t index) {
  const char *blob;
  uint32_t position = 2u;
  int64_t visited = 0;
  if (registry == NULL || registry->names == NULL || index < 0) {
    return NULL;
  }
  blob = registry->names;
  while (visited < (int64_t)utvm_crt_registry_declared(blob) &&
         position < UTVM_CRT_MAX_NAMES_BLOB_BYTES && blob[position] != '\0') {
    uint32_t k = 0u;
    while (position + k < UTVM_CRT_MAX_NAMES_BLOB_BYTES && blob[position + k] != '\0') {
      k++;
    }
    if (position + k >= UTVM_CRT_MAX_NAMES_BLOB_BYTES) {
      return NULL; /* unterminated within the bound */
    }
    if (visited == index) {
      return &blob[position];
    }
    visited++;
    position += k + 1u;
  }
  return NULL;
}

utvm_err_t utvm_crt_registry_lookup(const TVMFuncRegistry *registry, const char *name,
                                    tvm_function_index_t *index) {
  uint32_t result = 0u;
  if (name != NULL && index != NULL) {
    result = scan_names(registry, name);
  }
  if ((result & NAME_FOUND) == 0u) {
    return UTVM_ERR_FUNC_NAME_NOT_FOUND;
  }
  *index = (tvm_function_index_t)(result & 0xFFFFu);
  return UTVM_OK;
}

tvm_function_index_t utvm_crt_registry_count(const TVMFuncRegistry *registry) {
  return (tvm_function_index_t)scan_names(registry, NULL);
}

TVMFunctionHandle utvm_crt_module_lookup(const utvm_crt_t *crt, uint32_t module_index,
                                         const char *name) {
  const TVMFuncRegistry *registry = crt->modules[module_index]->registry;
  uint32_t result = scan_names(registry, name);
  uint32_t index = result & 0xFFFFu;
  if ((result & NAME_FOUND) == 0u || registry->funcs == NULL || registry->funcs[index] == NULL) {
    return NULL;
  }
  return utvm_crt_function_handle((uint16_t)module_index, (uint16_t)index);
}

/* Equality of two NUL-terminated strings (no strcmp: newlib's costs 700 bytes of flash). */
static int same_string(const char *a, const char *b) {
  size_t i = 0u;
  while (a[i] == b[i]) {
    if (a[i] == '\0') {
      return 1;
    }
    i++;
  }
  return 0;
}

uint32_t utvm_crt_global_index(const utvm_crt_t *crt, const char *name) {
  uint32_t i;
  for (i = 0u; i < crt->num_globals && i < UTVM_CRT_MAX_GLOBAL_FUNCS; i++) {
    if (crt->globals[i].func != NULL && same_string(crt->globals[i].name, name)) {
      return i;
    }
  }
  return UTVM_CRT_MAX_GLOBAL_FUNCS;
}

utvm_err_t utvm_crt_global_set(const char *name, TVMBackendPackedCFunc func, void *resource_handle,
                               int allow_override) {
  utvm_crt_t *crt = utvm_crt_active();
  uint32_t index;
  utvm_crt_global_t *entry;
  if (crt == NULL) {
    return UTVM_ERR_PLATFORM_CHECK_FAILURE;
  }
  if (name == NULL || func == NULL) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  index = utvm_crt_global_index(crt, name);
  if (index < UTVM_CRT_MAX_GLOBAL_FUNCS) {
    if (!allow_override) {
      return UTVM_ERR_FUNC_ALREADY_DEFINED;
    }
  } else {
    if (crt->num_globals >= UTVM_CRT_MAX_GLOBAL_FUNCS) {
      return UTVM_ERR_REGISTRY_FULL;
    }
    index = crt->num_globals;
    crt->num_globals++;
  }
  entry = &crt->globals[index];
  entry->name = name;
  entry->func = func;
  entry->resource_handle = resource_handle;
  return UTVM_OK;
}

utvm_err_t utvm_crt_register_global(const char *name, TVMBackendPackedCFunc func,
                                    void *resource_handle) {
  return utvm_crt_global_set(name, func, resource_handle, 0);
}

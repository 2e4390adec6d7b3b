/*
 * The TVM C API (c_runtime_api.h, c_backend_api.h, crt/module.h) and the memory hooks of
 * crt/platform.h, on the active runtime. int functions: 0 on success, -1 with the last error
 * set on failure.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "crt_internal.h"
#include "tvm/runtime/crt/platform.h"

/* Tensor allocations made from a shape are rounded up to this (TVM's kAllocAlignment). */
#define TENSOR_ALIGNMENT 64u

static int check_cpu(DLDevice dev) {
  if (dev.device_type != kDLCPU) {
    return utvm_crt_fail_hex(UTVM_TEXT_DEVICE_TYPE, (uint64_t)(uint32_t)dev.device_type);
  }
  return 0;
}

/* Byte size of a compact tensor: prod(shape) * ceil(bits * lanes / 8). */
static int tensor_nbytes(int ndim, const int64_t *shape, DLDataType dtype, size_t *out) {
  size_t total = ((size_t)dtype.bits * dtype.lanes + 7u) / 8u;
  int i;
  if (ndim < 0 || (ndim > 0 && shape == NULL)) {
    return utvm_crt_fail_own(UTVM_CRT_OWN(UTVM_TEXT_INVALID_SHAPE));
  }
  for (i = 0; i < ndim; i++) {
    size_t extent = (size_t)shape[i];
    if (shape[i] < 0 || (int64_t)extent != shape[i] ||
        (extent != 0u && total > SIZE_MAX / extent)) {
      return utvm_crt_fail_own(UTVM_CRT_OWN(UTVM_TEXT_INVALID_SHAPE));
    }
    total *= extent;
  }
  *out = total;
  return 0;
}

static int allocate_tensor_memory(utvm_crt_t *crt, size_t nbytes, size_t alignment, void **out) {
  if (utvm_page_alloc(&crt->tensors, nbytes, alignment, out) != UTVM_OK) {
    (void)utvm_crt_fail_hex(UTVM_TEXT_TENSOR_ARENA_FULL, (uint64_t)nbytes);
    utvm_crt_error_append_text(UTVM_TEXT_LARGEST_FREE);
    utvm_crt_error_append_hex((uint64_t)utvm_page_largest_free_block(&crt->tensors));
    return -1;
  }
  return 0;
}

/* Checks that [data + byte_offset, + nbytes) lies in one live tensor allocation. */
static int tensor_span(const DLTensor *tensor, size_t nbytes, uint8_t **start) {
  uint8_t *base;
  size_t size;
  size_t position;
  if (utvm_crt_data_range(tensor->data, &base, &size) != UTVM_OK) {
    return utvm_crt_fail_own_hex(UTVM_CRT_OWN(UTVM_TEXT_NOT_IN_ARENA),
                                 (uint64_t)(uintptr_t)tensor->data);
  }
  position = (size_t)((uintptr_t)tensor->data - (uintptr_t)base);
  if (tensor->byte_offset > size - position || nbytes > size - position - tensor->byte_offset) {
    return utvm_crt_fail_own_hex(UTVM_CRT_OWN(UTVM_TEXT_COPY_OUT_OF_BOUNDS),
                                 (uint64_t)(uintptr_t)tensor->data);
  }
  *start = (uint8_t *)tensor->data + (size_t)tensor->byte_offset;
  return 0;
}

/* ---- Functions and modules --------------------------------------------------------------- */

int TVMFuncGetGlobal(const char *name, TVMFunctionHandle *out) {
  utvm_crt_t *crt = utvm_crt_active();
  uint32_t index;
  if (out != NULL) {
    *out = NULL;
  }
  if (crt == NULL || name == NULL || out == NULL) {
    (void)utvm_crt_fail(UTVM_TEXT_NULL_ARGUMENT);
    return -1;
  }
  index = utvm_crt_global_index(crt, name);
  if (index >= UTVM_CRT_MAX_GLOBAL_FUNCS) {
    (void)utvm_crt_fail_name(UTVM_TEXT_FUNCTION_NOT_FOUND, name);
    return -1;
  }
  *out = utvm_crt_function_handle(UTVM_CRT_GLOBALS_MODULE_INDEX, (uint16_t)index);
  return 0;
}

int TVMFuncCall(TVMFunctionHandle func, TVMValue *arg_values, int *type_codes, int num_args,
                TVMValue *ret_val, int *ret_type_code) {
  utvm_crt_t *crt = utvm_crt_active();
  TVMBackendPackedCFunc function;
  void *resource_handle;
  int result;
  if (ret_val == NULL || ret_type_code == NULL || num_args < 0 ||
      (num_args > 0 && (arg_values == NULL || type_codes == NULL))) {
    (void)utvm_crt_fail(UTVM_TEXT_NULL_ARGUMENT);
    return -1;
  }
  /* Also fails without a runtime (crt == NULL). */
  function = utvm_crt_decode_function(crt, func, &resource_handle);
  if (function == NULL) {
    return -1;
  }
  ret_val->v_int64 = 0;
  *ret_type_code = kTVMNullptr;
  crt->last_error[0] = '\0';
  result = function(arg_values, type_codes, num_args, ret_val, ret_type_code, resource_handle);
  if (result != 0) {
    if (utvm_crt_error_is_empty() != 0) { /* the callee said nothing: report its code */
      (void)utvm_crt_fail_hex(UTVM_TEXT_FUNCTION_FAILED, (uint64_t)(uint32_t)result);
    }
    return -1;
  }
  return 0;
}

int TVMFuncFree(TVMFunctionHandle func) {
  utvm_crt_t *crt = utvm_crt_active();
  void *resource_handle;
  TVMBackendPackedCFunc function = utvm_crt_decode_function(crt, func, &resource_handle);
  if (function == NULL) {
    return -1;
  }
  if (function == crt->time_evaluator_call) {
    ((utvm_crt_time_evaluator_t *)resource_handle)->func = NULL;
  }
  return 0;
}

int TVMFuncRegisterGlobal(const char *name, TVMBackendPackedCFunc f, int override) {
  /* Without an active runtime the error cannot be recorded; -1 all the same. */
  utvm_err_t err = utvm_crt_global_set(name, f, NULL, override != 0);
  if (err == UTVM_ERR_FUNC_ALREADY_DEFINED) {
    (void)utvm_crt_fail_own_name(UTVM_CRT_OWN(UTVM_TEXT_FUNCTION_DEFINED), name);
  } else if (err == UTVM_ERR_REGISTRY_FULL) {
    (void)utvm_crt_fail_own(UTVM_CRT_OWN(UTVM_TEXT_GLOBALS_FULL));
  } else if (err != UTVM_OK) {
    (void)utvm_crt_fail(UTVM_TEXT_NULL_ARGUMENT);
  }
  return (err == UTVM_OK) ? 0 : -1;
}

int TVMModGetFunction(TVMModuleHandle mod, const char *func_name, int query_imports,
                      TVMFunctionHandle *out) {
  utvm_crt_t *crt = utvm_crt_active();
  uint32_t module_index;
  (void)query_imports;
  if (out != NULL) {
    *out = NULL;
  }
  if (crt == NULL || func_name == NULL || out == NULL) {
    (void)utvm_crt_fail(UTVM_TEXT_NULL_ARGUMENT);
    return -1;
  }
  module_index = utvm_crt_decode_module(crt, mod);
  if (module_index >= UTVM_CRT_MAX_MODULES) {
    return -1;
  }
  *out = utvm_crt_module_lookup(crt, module_index, func_name);
  if (*out == NULL) {
    (void)utvm_crt_fail_name(UTVM_TEXT_FUNCTION_NOT_FOUND, func_name);
    return -1;
  }
  return 0;
}

int TVMModFree(TVMModuleHandle mod) {
  utvm_crt_t *crt = utvm_crt_active();
  uint32_t module_index = utvm_crt_decode_module(crt, mod);
  if (module_index >= UTVM_CRT_MAX_MODULES) {
    return -1;
  }
  if ((module_index != 0u) && (crt->release_module != NULL)) {
    crt->release_module(crt, module_index);
  }
  return 0;
}

int TVMModCreateFromCModule(const TVMModule *mod, TVMModuleHandle *out_handle) {
  return (utvm_crt_module_create(mod, NULL, NULL, out_handle) == UTVM_OK) ? 0 : -1;
}

int utvm_crt_ndarray_free(void *nd) {
  utvm_crt_t *crt = utvm_crt_active();
  if (crt == NULL) {
    return -1;
  }
  if (crt->free_ndarray == NULL) {
    (void)utvm_crt_fail_hex(UTVM_TEXT_UNALLOCATED_FREE, (uint64_t)(uintptr_t)nd);
    return -1;
  }
  return crt->free_ndarray(crt, nd);
}

/* ---- Device memory ----------------------------------------------------------------------- */

int TVMDeviceAllocDataSpace(DLDevice dev, size_t nbytes, size_t alignment, DLDataType type_hint,
                            void **out_data) {
  utvm_crt_t *crt = utvm_crt_active();
  (void)type_hint;
  if (crt == NULL || out_data == NULL) {
    return -1;
  }
  *out_data = NULL;
  if (check_cpu(dev) != 0) {
    return -1;
  }
  if (alignment == 0u) {
    alignment = 1u;
  }
  if ((alignment & (alignment - 1u)) != 0u) {
    (void)utvm_crt_fail_hex(UTVM_TEXT_BAD_ALIGNMENT, (uint64_t)alignment);
    return -1;
  }
  if (nbytes > SIZE_MAX - (alignment - 1u)) {
    (void)utvm_crt_fail_hex(UTVM_TEXT_TENSOR_ARENA_FULL, (uint64_t)nbytes);
    return -1;
  }
  nbytes = (nbytes + alignment - 1u) & ~(alignment - 1u);
  return allocate_tensor_memory(crt, nbytes, alignment, out_data);
}

int TVMDeviceAllocDataSpaceWithScope(DLDevice dev, int ndim, const int64_t *shape, DLDataType dtype,
                                     const char *mem_scope, void **out_data) {
  utvm_crt_t *crt = utvm_crt_active();
  size_t nbytes;
  (void)mem_scope;
  if (crt == NULL || out_data == NULL) {
    return -1;
  }
  *out_data = NULL;
  if (check_cpu(dev) != 0 ||
      tensor_nbytes(ndim, shape, dtype, &nbytes) != 0) {
    return -1;
  }
  if (nbytes > SIZE_MAX - (TENSOR_ALIGNMENT - 1u)) {
    (void)utvm_crt_fail_own(UTVM_CRT_OWN(UTVM_TEXT_INVALID_SHAPE));
    return -1;
  }
  nbytes = (nbytes + TENSOR_ALIGNMENT - 1u) & ~(size_t)(TENSOR_ALIGNMENT - 1u);
  return allocate_tensor_memory(crt, nbytes, TENSOR_ALIGNMENT, out_data);
}

int TVMDeviceFreeDataSpace(DLDevice dev, void *ptr) {
  utvm_crt_t *crt = utvm_crt_active();
  if (crt == NULL || check_cpu(dev) != 0) {
    return -1;
  }
  if (utvm_page_free(&crt->tensors, ptr) != UTVM_OK) {
    (void)utvm_crt_fail_hex(UTVM_TEXT_UNALLOCATED_FREE, (uint64_t)(uintptr_t)ptr);
    return -1;
  }
  return 0;
}

int TVMDeviceCopyDataFromTo(DLTensor *from, DLTensor *to, TVMStreamHandle stream) {
  size_t nbytes;
  size_t to_nbytes;
  uint8_t *source;
  uint8_t *destination;
  (void)stream;
  if (utvm_crt_active() == NULL) {
    return -1;
  }
  if (from == NULL || to == NULL) {
    (void)utvm_crt_fail(UTVM_TEXT_NULL_ARGUMENT);
    return -1;
  }
  if (check_cpu(from->device) != 0 ||
      check_cpu(to->device) != 0) {
    return -1;
  }
  if (from->strides != NULL || to->strides != NULL) {
    (void)utvm_crt_fail_own(UTVM_CRT_OWN(UTVM_TEXT_COPY_STRIDED));
    return -1;
  }
  if (tensor_nbytes(from->ndim, from->shape, from->dtype, &nbytes) != 0 ||
      tensor_nbytes(to->ndim, to->shape, to->dtype, &to_nbytes) != 0) {
    return -1;
  }
  if (nbytes != to_nbytes) {
    (void)utvm_crt_fail_own(UTVM_CRT_OWN(UTVM_TEXT_COPY_SIZES));
    return -1;
  }
  if (tensor_span(from, nbytes, &source) != 0 || tensor_span(to, nbytes, &destination) != 0) {
    return -1;
  }
  memmove(destination, source, nbytes);
  return 0;
}

int TVMArrayAlloc(const tvm_index_t *shape, int ndim, int dtype_code, int dtype_bits,
                  int dtype_lanes, int device_type, int device_id, TVMArrayHandle *out) {
  utvm_crt_t *crt = utvm_crt_active();
  DLTensor *tensor;
  int64_t *shape_copy;
  void *header;
  DLDevice dev;
  DLDataType dtype;
  int i;
  if (crt == NULL || out == NULL) {
    return -1;
  }
  *out = NULL;
  if (ndim < 0 || (ndim > 0 && shape == NULL) || (size_t)ndim > SIZE_MAX / 16u ||
      dtype_code < 0 || dtype_code > 0xFF || dtype_bits < 0 || dtype_bits > 0xFF ||
      dtype_lanes < 0 || dtype_lanes > 0xFFFF) {
    (void)utvm_crt_fail_own(UTVM_CRT_OWN(UTVM_TEXT_INVALID_SHAPE));
    return -1;
  }
  dev.device_type = (DLDeviceType)device_type;
  dev.device_id = device_id;
  dtype.code = (uint8_t)dtype_code;
  dtype.bits = (uint8_t)dtype_bits;
  dtype.lanes = (uint16_t)dtype_lanes;
  if (check_cpu(dev) != 0 ||
      allocate_tensor_memory(crt, sizeof(DLTensor) + (size_t)ndim * sizeof(int64_t), 0u,
                             &header) != 0) {
    return -1;
  }
  tensor = (DLTensor *)header;
  shape_copy = (int64_t *)(void *)((uint8_t *)header + sizeof(DLTensor));
  for (i = 0; i < ndim; i++) {
    shape_copy[i] = shape[i];
  }
  if (TVMDeviceAllocDataSpaceWithScope(dev, ndim, shape_copy, dtype, NULL, &tensor->data) != 0) {
    (void)utvm_page_free(&crt->tensors, header);
    return -1;
  }
  tensor->device = dev;
  tensor->ndim = ndim;
  tensor->dtype = dtype;
  tensor->shape = shape_copy;
  tensor->strides = NULL;
  tensor->byte_offset = 0u;
  *out = tensor;
  return 0;
}

/* Checks that ptr starts a live tensor-arena allocation before it is dereferenced. */
static int starts_allocation(utvm_crt_t *crt, const void *ptr) {
  uint8_t *base;
  size_t size;
  if (utvm_page_find(&crt->tensors, ptr, &base, &size) != UTVM_OK || (const void *)base != ptr) {
    (void)utvm_crt_fail_hex(UTVM_TEXT_UNALLOCATED_FREE, (uint64_t)(uintptr_t)ptr);
    return 0;
  }
  return 1;
}

int TVMArrayFree(TVMArrayHandle handle) {
  utvm_crt_t *crt = utvm_crt_active();
  if (crt == NULL || !starts_allocation(crt, handle) ||
      TVMDeviceFreeDataSpace(handle->device, handle->data) != 0) {
    return -1;
  }
  (void)utvm_page_free(&crt->tensors, handle);
  return 0;
}

/* The release of every returned kTVMBytes value (RPC server, time evaluator): the struct and
 * its data (if any) must each start a tensor-arena allocation, or nothing is freed. */
int TVMByteArrayFree(TVMByteArray *arr) {
  utvm_crt_t *crt = utvm_crt_active();
  if (crt == NULL || !starts_allocation(crt, arr)) {
    return -1;
  }
  if ((arr->data != NULL) &&
      (utvm_page_free(&crt->tensors, (void *)(uintptr_t)arr->data) != UTVM_OK)) {
    (void)utvm_crt_fail_hex(UTVM_TEXT_UNALLOCATED_FREE, (uint64_t)(uintptr_t)arr->data);
    return -1;
  }
  (void)utvm_page_free(&crt->tensors, arr);
  return 0;
}

/* ---- Backend API ---------------------------------------------------------------------------- */

int TVMBackendGetFuncFromEnv(void *mod_node, const char *func_name, TVMFunctionHandle *out) {
  utvm_crt_t *crt = utvm_crt_active();
  uint32_t index;
  (void)mod_node;
  if (out != NULL) {
    *out = NULL;
  }
  if (crt == NULL || func_name == NULL || out == NULL) {
    (void)utvm_crt_fail(UTVM_TEXT_NULL_ARGUMENT);
    return -1;
  }
  if (crt->modules[0] != NULL && crt->modules[0]->registry != NULL) {
    *out = utvm_crt_module_lookup(crt, 0u, func_name);
    if (*out != NULL) {
      return 0;
    }
  }
  index = utvm_crt_global_index(crt, func_name);
  if (index < UTVM_CRT_MAX_GLOBAL_FUNCS) {
    *out = utvm_crt_function_handle(UTVM_CRT_GLOBALS_MODULE_INDEX, (uint16_t)index);
    return 0;
  }
  (void)utvm_crt_fail_name(UTVM_TEXT_FUNCTION_NOT_FOUND, func_name);
  return -1;
}

void *TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                               int dtype_code_hint, int dtype_bits_hint) {
  utvm_crt_t *crt = utvm_crt_active();
  void *ptr = NULL;
  (void)device_type;
  (void)device_id;
  (void)dtype_code_hint;
  (void)dtype_bits_hint;
  if (crt == NULL) {
    return NULL;
  }
  if ((uint64_t)(size_t)nbytes != nbytes ||
      utvm_stack_alloc(&crt->workspace, (size_t)nbytes, &ptr) != UTVM_OK) {
    (void)utvm_crt_fail_hex(UTVM_TEXT_WORKSPACE_FULL, nbytes);
    return NULL;
  }
  return ptr;
}

int TVMBackendFreeWorkspace(int device_type, int device_id, void *ptr) {
  utvm_crt_t *crt = utvm_crt_active();
  (void)device_type;
  (void)device_id;
  if (crt == NULL) {
    return -1;
  }
  if (utvm_stack_free(&crt->workspace, ptr) != UTVM_OK) {
    (void)utvm_crt_fail_hex(UTVM_TEXT_WORKSPACE_ORDER, (uint64_t)(uintptr_t)ptr);
    return -1;
  }
  return 0;
}

int TVMBackendParallelLaunch(FTVMParallelLambda flambda, void *cdata, int num_task) {
  TVMParallelGroupEnv env;
  (void)num_task;
  if (flambda == NULL) {
    (void)utvm_crt_fail(UTVM_TEXT_NULL_ARGUMENT);
    return -1;
  }
  env.sync_handle = NULL;
  env.num_task = 1;
  return flambda(0, &env, cdata);
}

/* ---- Platform memory hooks ---------------------------------------------------------------- */

tvm_crt_error_t TVMPlatformMemoryAllocate(size_t num_bytes, DLDevice dev, void **out_ptr) {
  utvm_crt_t *crt = utvm_crt_active();
  (void)dev;
  if (out_ptr == NULL) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  *out_ptr = NULL;
  if (crt == NULL) {
    return UTVM_ERR_PLATFORM_CHECK_FAILURE;
  }
  return utvm_page_alloc(&crt->tensors, num_bytes, 0u, out_ptr);
}

tvm_crt_error_t TVMPlatformMemoryFree(void *ptr, DLDevice dev) {
  utvm_crt_t *crt = utvm_crt_active();
  (void)dev;
  if (crt == NULL) {
    return UTVM_ERR_PLATFORM_CHECK_FAILURE;
  }
  return utvm_page_free(&crt->tensors, ptr);
}

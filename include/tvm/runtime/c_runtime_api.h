/*
 * TVM C runtime API, as seen by TVM-generated C code and by utvm's runtime.
 *
 * Written for utvm from the ABI description in PROTOCOL.md section 5: type names, enum
 * values and struct layouts are part of TVM's source/binary interface and must not change.
 * DLPack types (DLTensor, DLDevice, DLDataType) come from <dlpack/dlpack.h>.
 *
 * Conventions of every int-returning function here: 0 on success, -1 on failure with a
 * message available from TVMGetLastError(). The implementation is utvm_crt (include/utvm/crt.h);
 * it must have been initialised with utvm_crt_init() first.
 */
#ifndef TVM_RUNTIME_C_RUNTIME_API_H_
#define TVM_RUNTIME_C_RUNTIME_API_H_

#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

/* Symbol visibility marker used on every exported declaration (generated code uses it too). */
#ifndef TVM_DLL
#if defined(__GNUC__)
#define TVM_DLL __attribute__((visibility("default")))
#else
#define TVM_DLL
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef int64_t tvm_index_t;

/* Device types TVM adds to DLDeviceType. */
typedef enum {
  kDLAOCL = 32,
  kDLSDAccel = 33,
  kOpenGL = 34,
  kDLMicroDev = 35
} TVMDeviceExtType;

/* Type code of each TVMValue in an argument list or return value. */
typedef enum {
  kTVMArgInt = kDLInt,
  kTVMArgFloat = kDLFloat,
  kTVMOpaqueHandle = 3,
  kTVMNullptr = 4,
  kTVMDataType = 5,
  kDLDevice = 6,
  kTVMDLTensorHandle = 7,
  kTVMObjectHandle = 8,
  kTVMModuleHandle = 9,
  kTVMPackedFuncHandle = 10,
  kTVMStr = 11,
  kTVMBytes = 12,
  kTVMNDArrayHandle = 13,
  kTVMObjectRValueRefArg = 14,
  kTVMArgBool = 15,
  kTVMExtBegin = 16,
  kTVMNNVMFirst = 16,
  kTVMNNVMLast = 20,
  kTVMExtReserveEnd = 64,
  kTVMExtEnd = 128
} TVMArgTypeCode;

/* One argument or return value; which member is valid is given by its type code. */
typedef union {
  int64_t v_int64;
  double v_float64;
  void *v_handle;
  const char *v_str;
  DLDataType v_type;
  DLDevice v_device;
} TVMValue;

/* A byte string (type code kTVMBytes); not NUL-terminated. */
typedef struct {
  const char *data;
  size_t size;
} TVMByteArray;

typedef DLTensor *TVMArrayHandle;
typedef void *TVMModuleHandle;
typedef void *TVMFunctionHandle;
typedef void *TVMRetValueHandle;
typedef void *TVMStreamHandle;
typedef void *TVMObjectHandle;

/* Signature of every packed function: generated operators, system-library and global
 * functions. Returns 0 on success, non-zero after TVMAPISetLastError() on failure. */
typedef int (*TVMBackendPackedCFunc)(TVMValue *args, int *type_codes, int num_args,
                                     TVMValue *out_ret_value, int *out_ret_tcode,
                                     void *resource_handle);

/* ABI checks (C99 form of a static assertion: a negative array size fails to compile). */
typedef char tvm_abi_check_tvm_value_size[(sizeof(TVMValue) == 8u) ? 1 : -1];
typedef char tvm_abi_check_dl_data_type_size[(sizeof(DLDataType) == 4u) ? 1 : -1];
typedef char tvm_abi_check_enum_width[(sizeof(DLDeviceType) == 4u) ? 1 : -1];
typedef char tvm_abi_check_dl_device_size[(sizeof(DLDevice) == 8u) ? 1 : -1];
typedef char tvm_abi_check_dl_tensor_size[(sizeof(DLTensor) == ((sizeof(void *) == 8u) ? 48u : 40u)) ? 1 : -1];
typedef char tvm_abi_check_dl_tensor_byte_offset[(offsetof(DLTensor, byte_offset) == ((sizeof(void *) == 8u) ? 40u : 32u)) ? 1 : -1];

/* Stores msg (truncated to UTVM_CRT_LAST_ERROR_SIZE - 1 bytes) as the last error text. */
TVM_DLL void TVMAPISetLastError(const char *msg);

/* Returns the last error text (NUL-terminated, owned by the runtime, valid until the next error). */
TVM_DLL const char *TVMGetLastError(void);

/* Looks up a global function by name; sets *out. Returns -1 (and *out = NULL) when not found. */
TVM_DLL int TVMFuncGetGlobal(const char *name, TVMFunctionHandle *out);

/* Calls a function handle. *ret_type_code is kTVMNullptr unless the callee sets a value.
 * A kTVMBytes result points to a TVMByteArray the caller releases with TVMByteArrayFree. */
TVM_DLL int TVMFuncCall(TVMFunctionHandle func, TVMValue *arg_values, int *type_codes, int num_args,
                        TVMValue *ret_val, int *ret_type_code);

/* Releases a function handle (no-op for module and global functions, frees time evaluators). */
TVM_DLL int TVMFuncFree(TVMFunctionHandle func);

/* Registers a global function under name (the string must outlive the runtime). An existing
 * name is an error unless override != 0. Note: utvm takes a TVMBackendPackedCFunc, not a
 * TVMFunctionHandle, so that no function pointer has to be cast to void*. */
TVM_DLL int TVMFuncRegisterGlobal(const char *name, TVMBackendPackedCFunc f, int override);

/* Looks up func_name in a module; sets *out. Returns -1 (and *out = NULL) when not found.
 * query_imports is ignored (C modules have no imports). */
TVM_DLL int TVMModGetFunction(TVMModuleHandle mod, const char *func_name, int query_imports,
                              TVMFunctionHandle *out);

/* Releases a module handle (the system library is never freed). */
TVM_DLL int TVMModFree(TVMModuleHandle mod);

/* Allocates nbytes (rounded up to a multiple of alignment, a power of two) of CPU tensor memory
 * from the tensor arena, at least 64-byte aligned. Non-CPU device or no memory: -1. */
TVM_DLL int TVMDeviceAllocDataSpace(DLDevice dev, size_t nbytes, size_t alignment,
                                    DLDataType type_hint, void **out_data);

/* Allocates a tensor of the given shape and dtype (size rounded up to 64 bytes); mem_scope
 * is ignored (may be NULL). Non-CPU device, bad shape or no memory: -1. */
TVM_DLL int TVMDeviceAllocDataSpaceWithScope(DLDevice dev, int ndim, const int64_t *shape,
                                             DLDataType dtype, const char *mem_scope,
                                             void **out_data);

/* Frees memory from TVMDeviceAllocDataSpace*; a pointer that does not start a live
 * allocation is an error (-1), never corruption. */
TVM_DLL int TVMDeviceFreeDataSpace(DLDevice dev, void *ptr);

/* Copies from's bytes (honouring both byte_offsets) into to. Both tensors must be compact,
 * on the CPU, of equal byte size and inside live tensor allocations; otherwise -1. */
TVM_DLL int TVMDeviceCopyDataFromTo(DLTensor *from, DLTensor *to, TVMStreamHandle stream);

/* Allocates a DLTensor (header, shape and data in the tensor arena); free with TVMArrayFree. */
TVM_DLL int TVMArrayAlloc(const tvm_index_t *shape, int ndim, int dtype_code, int dtype_bits,
                          int dtype_lanes, int device_type, int device_id, TVMArrayHandle *out);

/* Frees a tensor from TVMArrayAlloc (its data, then its header). */
TVM_DLL int TVMArrayFree(TVMArrayHandle handle);

/* Frees a TVMByteArray whose struct and data were both allocated with
 * TVMPlatformMemoryAllocate (data first, then the struct). */
TVM_DLL int TVMByteArrayFree(TVMByteArray *arr);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_C_RUNTIME_API_H_ */

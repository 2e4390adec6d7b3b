/*
 * Operator functions of the test system library, written like TVM-generated code: every
 * argument is checked, failures set the last error and return -1.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "test_syslib.h"
#include "tvm/runtime/metadata_types.h"
#include "tvm/runtime/crt/platform.h"

/* A float32 1-D tensor argument as TVM's argument binder would accept it, or NULL. */
static DLTensor *f32_vector_arg(TVMValue *args, const int *type_code, int i) {
  DLTensor *t;
  if (type_code[i] != kTVMDLTensorHandle && type_code[i] != kTVMNDArrayHandle) {
    TVMAPISetLastError("test_add_f32: arguments must be tensors (type code 7 or 13)");
    return NULL;
  }
  t = (DLTensor *)args[i].v_handle;
  if (t == NULL || t->ndim != 1 || t->shape == NULL) {
    TVMAPISetLastError("test_add_f32: tensors must be 1-D");
    return NULL;
  }
  if (t->dtype.code != kDLFloat || t->dtype.bits != 32u || t->dtype.lanes != 1u) {
    TVMAPISetLastError("test_add_f32: tensors must be float32");
    return NULL;
  }
  if (t->device.device_type != kDLCPU || t->strides != NULL || t->byte_offset != 0u) {
    TVMAPISetLastError("test_add_f32: tensors must be compact CPU tensors with byte_offset 0");
    return NULL;
  }
  if (t->data == NULL && t->shape[0] != 0) {
    TVMAPISetLastError("test_add_f32: NULL tensor data");
    return NULL;
  }
  return t;
}

int32_t test_add_f32(TVMValue *args, int *type_code, int num_args, TVMValue *out_value,
                     int *out_type_code, void *resource_handle) {
  DLTensor *a;
  DLTensor *b;
  DLTensor *out;
  const float *a_data;
  const float *b_data;
  float *out_data;
  int64_t i;
  (void)out_value;
  (void)out_type_code;
  (void)resource_handle;
  if (num_args != 3) {
    TVMAPISetLastError("test_add_f32: expected 3 arguments");
    return -1;
  }
  a = f32_vector_arg(args, type_code, 0);
  b = (a == NULL) ? NULL : f32_vector_arg(args, type_code, 1);
  out = (b == NULL) ? NULL : f32_vector_arg(args, type_code, 2);
  if (out == NULL) {
    return -1;
  }
  if (a->shape[0] != b->shape[0] || a->shape[0] != out->shape[0] || a->shape[0] < 0) {
    TVMAPISetLastError("test_add_f32: shapes differ");
    return -1;
  }
  a_data = (const float *)a->data;
  b_data = (const float *)b->data;
  out_data = (float *)out->data;
  for (i = 0; i < a->shape[0]; i++) {
    out_data[i] = a_data[i] + b_data[i];
  }
  return 0;
}

/* Copies a byte array into TVMPlatformMemoryAllocate memory (struct and data). */
static int32_t copy_bytes(const TVMByteArray *in, TVMValue *out_value) {
  DLDevice cpu = {kDLCPU, 0};
  void *array_memory = NULL;
  void *data = NULL;
  TVMByteArray *copy;
  if (in == NULL || (in->data == NULL && in->size != 0u)) {
    TVMAPISetLastError("test_echo: invalid byte array");
    return -1;
  }
  if (TVMPlatformMemoryAllocate(sizeof(TVMByteArray), cpu, &array_memory) != kTvmErrorNoError) {
    TVMAPISetLastError("test_echo: out of memory");
    return -1;
  }
  if (TVMPlatformMemoryAllocate(in->size, cpu, &data) != kTvmErrorNoError) {
    (void)TVMPlatformMemoryFree(array_memory, cpu);
    TVMAPISetLastError("test_echo: out of memory");
    return -1;
  }
  if (in->size != 0u) {
    memcpy(data, in->data, in->size);
  }
  copy = (TVMByteArray *)array_memory;
  copy->data = (const char *)data;
  copy->size = in->size;
  out_value->v_handle = copy;
  return 0;
}

int32_t test_echo(TVMValue *args, int *type_code, int num_args, TVMValue *out_value,
                  int *out_type_code, void *resource_handle) {
  (void)resource_handle;
  if (num_args != 1) {
    TVMAPISetLastError("test_echo: expected 1 argument");
    return -1;
  }
  switch (type_code[0]) {
    case kTVMArgInt:
    case kDLUInt:
    case kTVMArgFloat:
    case kTVMArgBool:
    case kTVMStr:
      *out_value = args[0];
      break;
    case kTVMNullptr:
      out_value->v_handle = NULL;
      break;
    case kTVMBytes:
      if (copy_bytes((const TVMByteArray *)args[0].v_handle, out_value) != 0) {
        return -1;
      }
      break;
    default:
      TVMAPISetLastError("test_echo: unsupported type code");
      return -1;
  }
  *out_type_code = type_code[0];
  return 0;
}

int32_t test_sum_ints(TVMValue *args, int *type_code, int num_args, TVMValue *out_value,
                      int *out_type_code, void *resource_handle) {
  int64_t sum = 0;
  (void)resource_handle;
  for (int i = 0; i < num_args; i++) {
    if (type_code[i] == kTVMArgInt) {
      sum += args[i].v_int64;
    }
  }
  out_value->v_int64 = sum;
  *out_type_code = kTVMArgInt;
  return 0;
}

int32_t test_busy_wait_us(TVMValue *args, int *type_code, int num_args, TVMValue *out_value,
                          int *out_type_code, void *resource_handle) {
  (void)out_value;
  (void)out_type_code;
  (void)resource_handle;
  if (num_args != 1 || type_code[0] != kTVMArgInt || args[0].v_int64 < 0 ||
      args[0].v_int64 > TEST_SYSLIB_BUSY_WAIT_MAX_US) {
    TVMAPISetLastError("test_busy_wait_us: expected one Int in 0..10000000");
    return -1;
  }
  uint64_t wait_us = (uint64_t)args[0].v_int64;
  uint64_t start = test_syslib_time_us();
  for (uint32_t poll = 0u; poll < TEST_SYSLIB_BUSY_WAIT_MAX_POLLS; poll++) {
    if ((test_syslib_time_us() - start) >= wait_us) {
      return 0;
    }
  }
  TVMAPISetLastError("test_busy_wait_us: the clock did not advance");
  return -1;
}

int32_t test_abort(TVMValue *args, int *type_code, int num_args, TVMValue *out_value,
                   int *out_type_code, void *resource_handle) {
  (void)args;
  (void)type_code;
  (void)num_args;
  (void)out_value;
  (void)out_type_code;
  (void)resource_handle;
  TVMPlatformAbort((tvm_crt_error_t)TEST_SYSLIB_ABORT_CODE);
}

/* ---- The AOT model "default": output = x + x over float32[4] -------------------------------- */

static const int64_t kDefaultShape[1] = {4};
static const struct TVMTensorInfo kDefaultInputs[1] = {{"x", kDefaultShape, 1, {kDLFloat, 32u, 1u}}};
static const struct TVMTensorInfo kDefaultOutputs[1] = {
    {"output", kDefaultShape, 1, {kDLFloat, 32u, 1u}}};
static const struct TVMMetadata kDefaultMetadata = {
    1, kDefaultInputs, 1, kDefaultOutputs, 1, NULL, 0, NULL, 0, "tvmgen_default"};

int32_t tvmgen_default_get_c_metadata(TVMValue *args, int *type_code, int num_args,
                                      TVMValue *out_value, int *out_type_code,
                                      void *resource_handle) {
  (void)args;
  (void)type_code;
  (void)num_args;
  (void)resource_handle;
  out_value->v_handle = (void *)(uintptr_t)&kDefaultMetadata;
  *out_type_code = kTVMOpaqueHandle;
  return 0;
}

int32_t tvmgen_default_run(TVMValue *args, int *type_code, int num_args, TVMValue *out_value,
                           int *out_type_code, void *resource_handle) {
  TVMValue add_args[3];
  int add_codes[3];
  if (num_args != 2) {
    TVMAPISetLastError("tvmgen_default_run: expected 2 arguments");
    return -1;
  }
  add_args[0] = args[0];
  add_args[1] = args[0];
  add_args[2] = args[1];
  add_codes[0] = type_code[0];
  add_codes[1] = type_code[0];
  add_codes[2] = type_code[1];
  if (((DLTensor *)args[0].v_handle)->shape == NULL || ((DLTensor *)args[0].v_handle)->shape[0] != 4) {
    TVMAPISetLastError("tvmgen_default_run: x must be float32[4]");
    return -1;
  }
  return test_add_f32(add_args, add_codes, 3, out_value, out_type_code, resource_handle);
}

/*
 * utvm kernel functions: every int8 kernel (utvm/kernels.h) as a TVM packed function
 * (PROTOCOL.md 5.3), so that a graph JSON compiled on the host (utvm/host_compile.h) runs on
 * any firmware that has them in its system library. Layout and rules: docs/KERNEL_FUNCS.md.
 *
 * Arguments of every function: the operator's input tensors (the order of
 * utvm_op_operands_t: e.g. input, filter, bias), then the op-params tensor (int32, 1-D, the
 * words of utvm/runner.h's format), then the output tensor. Each is type code 7 (DLTensor*) or
 * 13 (NDArray handle, v_handle = DLTensor*). Every tensor is checked: CPU device, no strides,
 * dtype (int8, int32, float32 as the op needs; any for utvm_k_reshape), bytes (prod(shape) x
 * element size, byte_offset honoured) equal to what the op params say, 4-byte alignment for
 * int32/float32 data; the op params are decoded and must be of the function's kind. Scratch
 * comes from TVMBackendAllocWorkspace. Errors: -1 with the crt last error naming the function
 * and the problem, e.g. "utvm_k_conv2d_s8: argument 3 (output): 512 bytes, op params say 256".
 * No allocation besides the workspace, no recursion, no state.
 */
#ifndef UTVM_KFUNCS_H
#define UTVM_KFUNCS_H

#include <stdint.h>

#include "tvm/runtime/c_backend_api.h"
#include "tvm/runtime/c_runtime_api.h"
#include "tvm/runtime/crt/module.h"
#include "utvm/runner.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of kernel functions (UTVM_KFUNCS_LIST); their names are utvm_op_kind_function(kind)
 * for kinds 1..UTVM_OP_KIND_MAX. */
#define UTVM_KFUNCS_COUNT 17u

/* The kernel functions as an X-macro list, one per utvm_op_kind_t in its order: a firmware adds
 * them to its system library with UTVM_KFUNCS_LIST(X) inside its own list (utvm/syslib.h). */
#define UTVM_KFUNCS_LIST(X)                                                                        \
  X(utvm_k_conv2d_s8) X(utvm_k_depthwise_conv2d_s8) X(utvm_k_fully_connected_s8)                   \
      X(utvm_k_avg_pool2d_s8) X(utvm_k_max_pool2d_s8) X(utvm_k_add_s8) X(utvm_k_mul_s8)            \
      X(utvm_k_softmax_s8) X(utvm_k_logistic_s8) X(utvm_k_tanh_s8) X(utvm_k_pad_s8)                \
      X(utvm_k_concatenation_s8) X(utvm_k_mean_s8) X(utvm_k_quantize_f32_s8)                       \
      X(utvm_k_requantize_s8) X(utvm_k_dequantize_s8_f32) X(utvm_k_reshape)

/* The kernel functions (arguments above; 0 or -1). One per utvm_op_kind_t, in its order. */
TVM_DLL int32_t utvm_k_conv2d_s8(TVMValue *args, int *type_codes, int num_args,
                                 TVMValue *out_value, int *out_type_code, void *resource_handle);
TVM_DLL int32_t utvm_k_depthwise_conv2d_s8(TVMValue *args, int *type_codes, int num_args,
                                           TVMValue *out_value, int *out_type_code,
                                           void *resource_handle);
TVM_DLL int32_t utvm_k_fully_connected_s8(TVMValue *args, int *type_codes, int num_args,
                                          TVMValue *out_value, int *out_type_code,
                                          void *resource_handle);
TVM_DLL int32_t utvm_k_avg_pool2d_s8(TVMValue *args, int *type_codes, int num_args,
                                     TVMValue *out_value, int *out_type_code,
                                     void *resource_handle);
TVM_DLL int32_t utvm_k_max_pool2d_s8(TVMValue *args, int *type_codes, int num_args,
                                     TVMValue *out_value, int *out_type_code,
                                     void *resource_handle);
TVM_DLL int32_t utvm_k_add_s8(TVMValue *args, int *type_codes, int num_args, TVMValue *out_value,
                              int *out_type_code, void *resource_handle);
TVM_DLL int32_t utvm_k_mul_s8(TVMValue *args, int *type_codes, int num_args, TVMValue *out_value,
                              int *out_type_code, void *resource_handle);
TVM_DLL int32_t utvm_k_softmax_s8(TVMValue *args, int *type_codes, int num_args,
                                  TVMValue *out_value, int *out_type_code, void *resource_handle);
TVM_DLL int32_t utvm_k_logistic_s8(TVMValue *args, int *type_codes, int num_args,
                                   TVMValue *out_value, int *out_type_code, void *resource_handle);
TVM_DLL int32_t utvm_k_tanh_s8(TVMValue *args, int *type_codes, int num_args, TVMValue *out_value,
                               int *out_type_code, void *resource_handle);
TVM_DLL int32_t utvm_k_pad_s8(TVMValue *args, int *type_codes, int num_args, TVMValue *out_value,
                              int *out_type_code, void *resource_handle);
TVM_DLL int32_t utvm_k_concatenation_s8(TVMValue *args, int *type_codes, int num_args,
                                        TVMValue *out_value, int *out_type_code,
                                        void *resource_handle);
TVM_DLL int32_t utvm_k_mean_s8(TVMValue *args, int *type_codes, int num_args, TVMValue *out_value,
                               int *out_type_code, void *resource_handle);
TVM_DLL int32_t utvm_k_quantize_f32_s8(TVMValue *args, int *type_codes, int num_args,
                                       TVMValue *out_value, int *out_type_code,
                                       void *resource_handle);
TVM_DLL int32_t utvm_k_requantize_s8(TVMValue *args, int *type_codes, int num_args,
                                     TVMValue *out_value, int *out_type_code,
                                     void *resource_handle);
TVM_DLL int32_t utvm_k_dequantize_s8_f32(TVMValue *args, int *type_codes, int num_args,
                                         TVMValue *out_value, int *out_type_code,
                                         void *resource_handle);
TVM_DLL int32_t utvm_k_reshape(TVMValue *args, int *type_codes, int num_args, TVMValue *out_value,
                               int *out_type_code, void *resource_handle);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_KFUNCS_H */

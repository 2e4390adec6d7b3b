/*
 * utvm kernel functions: every int8 kernel (utvm/kernels.h) as a TVM packed function
 * (PROTOCOL.md 5.3), so that a graph JSON compiled on the host (utvm/host_compile.h) runs on
 * any firmware that has them in its system library. Layout and rules: docs/KERNEL_FUNCS.md.
 *
 * Arguments of every function: the operator's input tensors (the order of
 * utvm_op_operands_t: e.g. input, filter, bias), then the op-params tensor (int32, 1-D, the
 * words of utvm/ops.h's format), then the output tensor. Each is type code 7 (DLTensor*) or
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
#include "utvm/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of kernel functions (UTVM_KFUNCS_LIST): utvm_op_kind_function(kind) for kinds
 * 1..UTVM_OP_KIND_MAX, then utvm_k_kernels. */
#define UTVM_KFUNCS_COUNT ((uint32_t)UTVM_OP_KIND_MAX + 1u)

/* The kernel functions as an X-macro list, one per utvm_op_kind_t in its order, then
 * utvm_k_kernels: a firmware adds them to its system library with UTVM_KFUNCS_LIST(X) inside its
 * own list (utvm/syslib.h). */
#define UTVM_KFUNCS_PICK_(X, kind, name) X(utvm_k_##name)
#define UTVM_KFUNCS_LIST(X) UTVM_OP_KIND_LIST(UTVM_KFUNCS_PICK_, X) X(utvm_k_kernels)

/* utvm_k_kernels(): which kernels this firmware was built with, for a host that lays constants
 * out for them (utvm_host_compile_options_t): the int UTVM_KERNELS_INFO (utvm/kernels.h); no
 * arguments. */
TVM_DLL int32_t utvm_k_kernels(TVMValue *args, int *type_codes, int num_args, TVMValue *out_value,
                               int *out_type_code, void *resource_handle);

/* The kernel functions (arguments above; 0 or -1), utvm_k_<name> for every entry of
 * UTVM_OP_KIND_LIST, in its order. */
#define UTVM_KFUNCS_DECLARE_(A, kind, name)                                                        \
  TVM_DLL int32_t utvm_k_##name(TVMValue *args, int *type_codes, int num_args,                    \
                                TVMValue *out_value, int *out_type_code, void *resource_handle);
UTVM_OP_KIND_LIST(UTVM_KFUNCS_DECLARE_, 0)
#undef UTVM_KFUNCS_DECLARE_

#ifdef __cplusplus
}
#endif

#endif /* UTVM_KFUNCS_H */

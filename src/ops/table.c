/*
 * The operator and kind tables, generated from UTVM_OP_LIST (utvm/model.h) and
 * UTVM_OP_KIND_LIST (utvm/ops.h): nothing else lists the operators.
 */
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* The kernels' parameter structs are plain int32 fields: they travel word by word. */
typedef char ops_check_dims[(sizeof(utvm_dims_t) == 16u) ? 1 : -1];
typedef char ops_check_shape[(sizeof(utvm_shape_t) == 28u) ? 1 : -1];

#define OPS_ENTRY_(name, code, op) &utvm_op_##op,
static const utvm_op_t *const kOperators[] = {UTVM_OP_LIST(OPS_ENTRY_)};
#undef OPS_ENTRY_

const utvm_op_resolver_t utvm_op_resolver_all = {
    kOperators, (uint32_t)(sizeof(kOperators) / sizeof(kOperators[0]))};

#define OPS_KIND_(A, kind, name) &utvm_op_kind_##name,
static const utvm_op_kind_info_t *const kKinds[] = {UTVM_OP_KIND_LIST(OPS_KIND_, 0)};
#undef OPS_KIND_

const utvm_op_kind_info_t *utvm_op_kind_info(utvm_op_kind_t kind) {
  const int32_t k = (int32_t)kind;
  return ((k >= 1) && (k <= UTVM_OP_KIND_MAX)) ? kKinds[k - 1] : NULL;
}

#define OPS_FUNCTION_(A, kind, name) "utvm_k_" #name,
static const char *const kFunctions[] = {UTVM_OP_KIND_LIST(OPS_FUNCTION_, 0)};
#undef OPS_FUNCTION_

const char *utvm_op_kind_function(utvm_op_kind_t kind) {
  const int32_t k = (int32_t)kind;
  return ((k >= 1) && (k <= UTVM_OP_KIND_MAX)) ? kFunctions[k - 1] : NULL;
}

#define OPS_KERNEL_(A, kind, name) "utvm_" #name,
static const char *const kKernels[] = {UTVM_OP_KIND_LIST(OPS_KERNEL_, 0)};
#undef OPS_KERNEL_

const char *utvm_op_kind_kernel(utvm_op_kind_t kind) {
  const int32_t k = (int32_t)kind;
  return ((k >= 1) && (k <= UTVM_OP_KIND_MAX)) ? kKernels[k - 1] : "";
}

#define OPS_EMIT_(A, kind, name) &utvm_op_emit_##name,
static const utvm_op_emit_t *const kEmits[] = {UTVM_OP_KIND_LIST(OPS_EMIT_, 0)};
#undef OPS_EMIT_

const utvm_op_emit_t *utvm_op_kind_emit(utvm_op_kind_t kind) {
  const int32_t k = (int32_t)kind;
  return ((k >= 1) && (k <= UTVM_OP_KIND_MAX)) ? kEmits[k - 1] : NULL;
}

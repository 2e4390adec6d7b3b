/*
 * The kernel functions (utvm/kfuncs.h): one shared entry checks the arguments against the
 * decoded op params, takes the scratch from the workspace and calls the kind's kernel through
 * its descriptor (utvm/ops.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/kfuncs.h"
#include "utvm/crt.h"
#include "utvm/ops.h"

/* Most tensors of a call: inputs, the op-params tensor, the output. */
#define KF_MAX_ARGS (UTVM_OP_PARAMS_MAX_INPUTS + 2u)

/* One function per kind, and utvm_k_kernels. */
typedef char kf_check_count[(UTVM_KFUNCS_COUNT == ((uint32_t)UTVM_OP_KIND_MAX + 1u)) ? 1 : -1];

/* The call being made. */
typedef struct {
  const char *name;
  void *data[KF_MAX_ARGS]; /* each tensor's data + byte_offset */
  utvm_op_params_t params;
} kf_call_t;

static void kf_append_u32(uint32_t value) {
  char text[11];
  uint32_t v = value;
  size_t i = sizeof(text) - 1u;
  text[i] = '\0';
  do {
    i--;
    text[i] = (char)((v % 10u) + (uint32_t)'0');
    v /= 10u;
  } while ((v != 0u) && (i > 0u));
  utvm_crt_error_append(&text[i]);
}

/* "<function>: <what>" as the last error; -1. */
static int32_t kf_fail(const kf_call_t *c, const char *what) {
  TVMAPISetLastError(c->name);
  utvm_crt_error_append(": ");
  utvm_crt_error_append(what);
  return -1;
}

/* "<function>: argument <i>: <what>"; -1. */
static int32_t kf_fail_arg(const kf_call_t *c, uint32_t i, const char *what) {
  TVMAPISetLastError(c->name);
  utvm_crt_error_append(": argument ");
  kf_append_u32(i);
  utvm_crt_error_append(": ");
  utvm_crt_error_append(what);
  return -1;
}

static bool kf_dtype_is(const DLTensor *t, uint8_t code, uint8_t bits) {
  return (t->dtype.code == code) && (t->dtype.bits == bits) && (t->dtype.lanes == 1u);
}

/* Argument i as a CPU DLTensor with its bytes (prod(shape) x element size); NULL after
 * setting the error. */
static const DLTensor *kf_tensor(const kf_call_t *c, const TVMValue *args, const int *codes,
                                 uint32_t i, uint64_t *bytes) {
  const DLTensor *t = NULL;
  uint64_t n = 1u;
  int32_t d;
  if ((codes[i] != (int)kTVMDLTensorHandle) && (codes[i] != (int)kTVMNDArrayHandle)) {
    (void)kf_fail_arg(c, i, "not a tensor (type code 7 or 13)");
    return NULL;
  }
  t = (const DLTensor *)args[i].v_handle;
  if ((t == NULL) || (t->data == NULL) || ((t->ndim > 0) && (t->shape == NULL)) ||
      (t->ndim < 0) || (t->ndim > UTVM_KERNEL_MAX_RANK)) {
    (void)kf_fail_arg(c, i, "NULL tensor, data or shape, or ndim outside 0..6");
    return NULL;
  }
  if ((t->device.device_type != kDLCPU) || (t->strides != NULL)) {
    (void)kf_fail_arg(c, i, "not a compact CPU tensor");
    return NULL;
  }
  for (d = 0; d < t->ndim; d++) {
    if ((t->shape[d] < 0) || (t->shape[d] > (int64_t)UTVM_OP_PARAMS_MAX_ELEMENTS) ||
        (n > (uint64_t)UTVM_OP_PARAMS_MAX_ELEMENTS)) {
      (void)kf_fail_arg(c, i, "bad shape");
      return NULL;
    }
    n *= (uint64_t)t->shape[d];
  }
  const uint64_t element = (((uint64_t)t->dtype.bits * (uint64_t)t->dtype.lanes) + 7u) / 8u;
  *bytes = n * element;
  if ((t->byte_offset > (uint64_t)UTVM_OP_PARAMS_MAX_ELEMENTS) ||
      (*bytes > (uint64_t)UTVM_OP_PARAMS_MAX_ELEMENTS)) {
    (void)kf_fail_arg(c, i, "too large");
    return NULL;
  }
  return t;
}

static void *kf_data(const DLTensor *t) {
  uint8_t *base = (uint8_t *)t->data;
  return &base[t->byte_offset];
}

static const char *kf_type_name(utvm_op_type_t type) {
  const char *name = "int8";
  if (type == UTVM_OP_TYPE_INT32) {
    name = "int32";
  } else if (type == UTVM_OP_TYPE_INT16) {
    name = "int16";
  } else if (type == UTVM_OP_TYPE_INT64) {
    name = "int64";
  } else if (type == UTVM_OP_TYPE_FLOAT32) {
    name = "float32";
  } else {
    /* int8 */
  }
  return name;
}

/* Operand tensor i (argument `arg`) against what the op params say. */
static int32_t kf_operand(kf_call_t *c, const TVMValue *args, const int *codes, uint32_t i,
                          uint32_t arg) {
  const utvm_op_operand_t *want = &c->params.operands[i];
  uint64_t bytes = 0u;
  const DLTensor *t = kf_tensor(c, args, codes, arg, &bytes);
  bool type_ok = true;
  if (t == NULL) {
    return -1;
  }
  switch (want->type) {
    case UTVM_OP_TYPE_INT8:
      type_ok = kf_dtype_is(t, (uint8_t)kDLInt, 8u);
      break;
    case UTVM_OP_TYPE_INT16:
      type_ok = kf_dtype_is(t, (uint8_t)kDLInt, 16u);
      break;
    case UTVM_OP_TYPE_INT32:
      type_ok = kf_dtype_is(t, (uint8_t)kDLInt, 32u);
      break;
    case UTVM_OP_TYPE_INT64:
      type_ok = kf_dtype_is(t, (uint8_t)kDLInt, 64u);
      break;
    case UTVM_OP_TYPE_FLOAT32:
      type_ok = kf_dtype_is(t, (uint8_t)kDLFloat, 32u);
      break;
    default: /* any type: bytes only */
      break;
  }
  if (!type_ok) {
    TVMAPISetLastError(c->name);
    utvm_crt_error_append(": argument ");
    kf_append_u32(arg);
    utvm_crt_error_append(": dtype is not ");
    utvm_crt_error_append(kf_type_name(want->type));
    return -1;
  }
  if (bytes != (uint64_t)want->bytes) {
    TVMAPISetLastError(c->name);
    utvm_crt_error_append(": argument ");
    kf_append_u32(arg);
    utvm_crt_error_append(": ");
    kf_append_u32((uint32_t)bytes);
    utvm_crt_error_append(" bytes, op params say ");
    kf_append_u32(want->bytes);
    return -1;
  }
  c->data[arg] = kf_data(t);
  if ((want->type == UTVM_OP_TYPE_INT16) && (((uintptr_t)c->data[arg] & 1u) != 0u)) {
    return kf_fail_arg(c, arg, "data not 2-byte aligned");
  }
  if (((want->type == UTVM_OP_TYPE_INT32) || (want->type == UTVM_OP_TYPE_FLOAT32)) &&
      (((uintptr_t)c->data[arg] & 3u) != 0u)) {
    return kf_fail_arg(c, arg, "data not 4-byte aligned");
  }
  if ((want->type == UTVM_OP_TYPE_INT64) && (((uintptr_t)c->data[arg] & 7u) != 0u)) {
    return kf_fail_arg(c, arg, "data not 8-byte aligned");
  }
  return 0;
}

/* Checks the arguments of a call of function kind: count, the op-params tensor (argument
 * num_args - 2), then every operand. */
static int32_t kf_prepare(kf_call_t *c, utvm_op_kind_t kind, const TVMValue *args,
                          const int *codes, int num_args) {
  uint64_t bytes = 0u;
  uint32_t i;
  const char *why = "";
  c->name = utvm_op_kind_function(kind);
  if ((args == NULL) || (codes == NULL) || (num_args < 3) || (num_args > (int)KF_MAX_ARGS)) {
    return kf_fail(c, "expected inputs, op params and output (3 to 9 tensors)");
  }
  const uint32_t n = (uint32_t)num_args;
  const uint32_t pi = n - 2u;
  const DLTensor *pt = kf_tensor(c, args, codes, pi, &bytes);
  if (pt == NULL) {
    return -1;
  }
  if (!kf_dtype_is(pt, (uint8_t)kDLInt, 32u)) {
    return kf_fail_arg(c, pi, "op params are not int32");
  }
  const void *words = kf_data(pt);
  if (((uintptr_t)words & 3u) != 0u) {
    return kf_fail_arg(c, pi, "op params not 4-byte aligned");
  }
  if (utvm_op_params_decode((const int32_t *)words, (uint32_t)(bytes / 4u), &c->params, &why) !=
      UTVM_OK) {
    TVMAPISetLastError(c->name);
    utvm_crt_error_append(": op params: ");
    utvm_crt_error_append(why);
    return -1;
  }
  if (c->params.kind != kind) {
    return kf_fail(c, "op params are of another kind");
  }
  if ((c->params.n_inputs + 2u) != n) {
    return kf_fail(c, "argument count differs from the op params' inputs");
  }
  for (i = 0u; i < c->params.n_inputs; i++) {
    if (kf_operand(c, args, codes, i, i) != 0) {
      return -1;
    }
  }
  return kf_operand(c, args, codes, c->params.n_inputs, n - 1u);
}

/* The scratch this device's kernel needs (its in-place figure when the output is input 0's
 * memory), or what the op params planned if more. */
static uint64_t kf_scratch_bytes(const utvm_op_kind_info_t *info, const kf_call_t *c) {
  const utvm_op_params_t *p = &c->params;
  const bool in_place = (info->inplace_scratch != NULL) && (p->n_inputs > 0u) &&
                        (c->data[0] == c->data[p->n_inputs + 1u]);
  uint64_t own = 0u;
  if (in_place) {
    own = (uint64_t)info->inplace_scratch(p);
  } else if (info->scratch != NULL) {
    own = (uint64_t)info->scratch(p);
  } else {
    /* no scratch */
  }
  return (own > (uint64_t)p->scratch_bytes) ? own : (uint64_t)p->scratch_bytes;
}

/* The kernel call: inputs, then the output (argument n_inputs + 1, after the op params). */
static utvm_err_t kf_run(const utvm_op_kind_info_t *info, const kf_call_t *c, void *scratch) {
  void *operands[UTVM_OP_PARAMS_MAX_INPUTS + 1u];
  uint32_t i;
  for (i = 0u; i < c->params.n_inputs; i++) {
    operands[i] = c->data[i];
  }
  operands[c->params.n_inputs] = c->data[c->params.n_inputs + 1u];
  return info->run(&c->params, operands, scratch);
}

/* The body of every kernel function. */
static int32_t kf_call(utvm_op_kind_t kind, TVMValue *args, const int *codes, int num_args) {
  kf_call_t c;
  void *scratch = NULL;
  const utvm_op_kind_info_t *info = utvm_op_kind_info(kind);
  if ((info == NULL) || (kf_prepare(&c, kind, args, codes, num_args) != 0)) {
    return -1;
  }
  const uint64_t scratch_bytes = kf_scratch_bytes(info, &c);
  if (scratch_bytes > 0u) {
    scratch = TVMBackendAllocWorkspace((int)kDLCPU, 0, scratch_bytes, (int)kDLInt, 8);
    if (scratch == NULL) {
      return kf_fail(&c, "no workspace for the scratch");
    }
  }
  const utvm_err_t err = kf_run(info, &c, scratch);
  if ((scratch != NULL) && (TVMBackendFreeWorkspace((int)kDLCPU, 0, scratch) != 0)) {
    return -1;
  }
  return (err == UTVM_OK) ? 0 : kf_fail(&c, utvm_strerror(err));
}

/* utvm_k_<name> for every entry of UTVM_OP_KIND_LIST. */
#define KF_DEFINE(A, kind, name)                                                                   \
  int32_t utvm_k_##name(TVMValue *args, int *type_codes, int num_args, TVMValue *out_value,        \
                        int *out_type_code, void *resource_handle) {                               \
    (void)out_value;                                                                               \
    (void)resource_handle;                                                                         \
    if (out_type_code != NULL) {                                                                   \
      *out_type_code = (int)kTVMNullptr;                                                           \
    }                                                                                              \
    return kf_call(UTVM_OP_##kind, args, type_codes, num_args);                                    \
  }
UTVM_OP_KIND_LIST(KF_DEFINE, 0)

int32_t utvm_k_kernels(TVMValue *args, int *type_codes, int num_args, TVMValue *out_value,
                       int *out_type_code, void *resource_handle) {
  (void)args;
  (void)type_codes;
  (void)resource_handle;
  if ((num_args != 0) || (out_value == NULL) || (out_type_code == NULL)) {
    TVMAPISetLastError("utvm_k_kernels: takes no arguments");
    return -1;
  }
  out_value->v_int64 = UTVM_KERNELS_INFO;
  *out_type_code = (int)kTVMArgInt;
  return 0;
}

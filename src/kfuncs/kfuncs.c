/*
 * The kernel functions (utvm/kfuncs.h): one shared entry checks the arguments against the
 * decoded op params, takes the scratch from the workspace and makes one kernel call.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/kfuncs.h"
#include "utvm/crt.h"
#include "utvm/kernels.h"

/* Most tensors of a call: inputs, the op-params tensor, the output. */
#define KF_MAX_ARGS (UTVM_OP_PARAMS_MAX_INPUTS + 2u)

/* One function per kind. */
typedef char kf_check_count[(UTVM_KFUNCS_COUNT == (uint32_t)UTVM_OP_KIND_MAX) ? 1 : -1];

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
    case UTVM_OP_TYPE_INT32:
      type_ok = kf_dtype_is(t, (uint8_t)kDLInt, 32u);
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
  if ((want->type != UTVM_OP_TYPE_INT8) && (want->type != UTVM_OP_TYPE_ANY) &&
      (((uintptr_t)c->data[arg] & 3u) != 0u)) {
    return kf_fail_arg(c, arg, "data not 4-byte aligned");
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

static const int8_t *kf_in(const kf_call_t *c, uint32_t i) { return (const int8_t *)c->data[i]; }

static int8_t *kf_out(const kf_call_t *c) {
  return (int8_t *)c->data[c->params.n_inputs + 1u];
}

static const int32_t *kf_bias(const kf_call_t *c) {
  const void *b = (c->params.has_bias != 0u) ? c->data[2] : NULL;
  return (const int32_t *)b;
}

/* The scratch this device's kernels need for a convolution or fully connected call. */
static uint64_t kf_scratch_bytes(const utvm_op_params_t *p) {
  uint64_t own = 0u;
  if (p->kind == UTVM_OP_CONV2D_S8) {
    own = (uint64_t)utvm_conv2d_s8_scratch_size(&p->dims[0], &p->dims[1], &p->dims[2]);
  } else if (p->kind == UTVM_OP_DEPTHWISE_CONV2D_S8) {
    own = (uint64_t)utvm_depthwise_conv2d_s8_scratch_size(&p->dims[0], &p->dims[1], &p->dims[2]);
  } else if (p->kind == UTVM_OP_FULLY_CONNECTED_S8) {
    own = (uint64_t)utvm_fully_connected_s8_scratch_size(p->batches, p->depth, p->units);
  } else {
    /* no scratch */
  }
  return (own > (uint64_t)p->scratch_bytes) ? own : (uint64_t)p->scratch_bytes;
}

static utvm_err_t kf_weighted(const kf_call_t *c, void *scratch) {
  const utvm_op_params_t *p = &c->params;
  utvm_err_t err;
  if (p->kind == UTVM_OP_CONV2D_S8) {
    err = utvm_conv2d_s8(&p->p.conv, &p->quant, &p->dims[0], kf_in(c, 0u), &p->dims[1],
                         kf_in(c, 1u), kf_bias(c), &p->dims[2], kf_out(c), scratch);
  } else if (p->kind == UTVM_OP_DEPTHWISE_CONV2D_S8) {
    err = utvm_depthwise_conv2d_s8(&p->p.depthwise, &p->quant, &p->dims[0], kf_in(c, 0u),
                                   &p->dims[1], kf_in(c, 1u), kf_bias(c), &p->dims[2],
                                   kf_out(c), scratch);
  } else {
    err = utvm_fully_connected_s8(&p->p.fc, &p->quant, p->batches, p->depth, p->units,
                                  kf_in(c, 0u), kf_in(c, 1u), kf_bias(c), kf_out(c), scratch);
  }
  return err;
}

static utvm_err_t kf_elementwise(const kf_call_t *c) {
  const utvm_op_params_t *p = &c->params;
  utvm_err_t err;
  switch (p->kind) {
    case UTVM_OP_SOFTMAX_S8:
      err = utvm_softmax_s8(&p->p.softmax, p->size / p->depth, p->depth, kf_in(c, 0u),
                            kf_out(c));
      break;
    case UTVM_OP_LOGISTIC_S8:
      err = utvm_logistic_s8(&p->p.logistic, p->size, kf_in(c, 0u), kf_out(c));
      break;
    case UTVM_OP_TANH_S8:
      err = utvm_tanh_s8(&p->p.logistic, p->size, kf_in(c, 0u), kf_out(c));
      break;
    case UTVM_OP_QUANTIZE_F32_S8: {
      const void *in = c->data[0];
      err = utvm_quantize_f32_s8(p->scale, p->zero_point, p->size, (const float *)in, kf_out(c));
      break;
    }
    case UTVM_OP_REQUANTIZE_S8:
      err = utvm_requantize_s8(&p->p.requantize, p->size, kf_in(c, 0u), kf_out(c));
      break;
    case UTVM_OP_DEQUANTIZE_S8_F32: {
      void *out = c->data[2];
      err = utvm_dequantize_s8_f32(p->scale, p->zero_point, p->size, kf_in(c, 0u), (float *)out);
      break;
    }
    default: /* UTVM_OP_RESHAPE */
      err = utvm_reshape(c->data[0], c->data[2], (size_t)p->bytes);
      break;
  }
  return err;
}

static utvm_err_t kf_run(const kf_call_t *c, void *scratch) {
  const utvm_op_params_t *p = &c->params;
  const int8_t *inputs[UTVM_OP_PARAMS_MAX_INPUTS];
  uint32_t i;
  utvm_err_t err;
  switch (p->kind) {
    case UTVM_OP_CONV2D_S8:
    case UTVM_OP_DEPTHWISE_CONV2D_S8:
    case UTVM_OP_FULLY_CONNECTED_S8:
      err = kf_weighted(c, scratch);
      break;
    case UTVM_OP_AVG_POOL2D_S8:
      err = utvm_avg_pool2d_s8(&p->p.pool, &p->dims[0], kf_in(c, 0u), &p->dims[1], kf_out(c));
      break;
    case UTVM_OP_MAX_POOL2D_S8:
      err = utvm_max_pool2d_s8(&p->p.pool, &p->dims[0], kf_in(c, 0u), &p->dims[1], kf_out(c));
      break;
    case UTVM_OP_ADD_S8:
      err = utvm_add_s8(&p->p.add, &p->shapes[0], kf_in(c, 0u), &p->shapes[1], kf_in(c, 1u),
                        &p->shapes[2], kf_out(c));
      break;
    case UTVM_OP_MUL_S8:
      err = utvm_mul_s8(&p->p.mul, &p->shapes[0], kf_in(c, 0u), &p->shapes[1], kf_in(c, 1u),
                        &p->shapes[2], kf_out(c));
      break;
    case UTVM_OP_PAD_S8:
      err = utvm_pad_s8(&p->p.pad, &p->dims[0], kf_in(c, 0u), kf_out(c));
      break;
    case UTVM_OP_CONCATENATION_S8:
      for (i = 0u; i < p->n_inputs; i++) {
        inputs[i] = kf_in(c, i);
      }
      err = utvm_concatenation_s8((int32_t)p->n_inputs, inputs, p->shapes, p->axis,
                                  &p->shapes[p->n_inputs], kf_out(c));
      break;
    case UTVM_OP_MEAN_S8:
      err = utvm_mean_s8(&p->p.mean, &p->shapes[0], kf_in(c, 0u), p->axes, p->n_axes, kf_out(c));
      break;
    default:
      err = kf_elementwise(c);
      break;
  }
  return err;
}

/* The body of every kernel function. */
static int32_t kf_call(utvm_op_kind_t kind, TVMValue *args, const int *codes, int num_args) {
  kf_call_t c;
  void *scratch = NULL;
  if (kf_prepare(&c, kind, args, codes, num_args) != 0) {
    return -1;
  }
  const uint64_t scratch_bytes = kf_scratch_bytes(&c.params);
  if (scratch_bytes > 0u) {
    scratch = TVMBackendAllocWorkspace((int)kDLCPU, 0, scratch_bytes, (int)kDLInt, 8);
    if (scratch == NULL) {
      return kf_fail(&c, "no workspace for the scratch");
    }
  }
  const utvm_err_t err = kf_run(&c, scratch);
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

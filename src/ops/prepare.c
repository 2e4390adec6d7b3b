/*
 * What the operators' prepare steps share: decoding operands, the checks and texts of
 * utvm/ops.h's contract ("operator 2 (FULLY_CONNECTED): bias is int8, not int32"), where
 * operands live, and the per-channel arrays of the weighted operators. The reader only
 * verified the file's structure; everything an operator needs of its operands is checked here.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ops_internal.h"

/* TFLite's tolerance on the fixed output scales. */
#define SCALE_TOLERANCE 0.001f

uint64_t ops_align(uint64_t bytes) {
  const uint64_t mask = (uint64_t)UTVM_OP_RECORD_ALIGN - 1u;
  return (bytes + mask) & ~mask;
}

size_t ops_record_bytes(size_t bytes) { return (size_t)ops_align((uint64_t)bytes); }

static const char *ops_type_name(utvm_model_type_t type) {
  const char *name;
  switch (type) {
    case UTVM_MODEL_FLOAT32: name = "float32"; break;
    case UTVM_MODEL_INT32: name = "int32"; break;
    case UTVM_MODEL_UINT8: name = "uint8"; break;
    case UTVM_MODEL_INT64: name = "int64"; break;
    case UTVM_MODEL_BOOL: name = "bool"; break;
    case UTVM_MODEL_INT16: name = "int16"; break;
    case UTVM_MODEL_INT8: name = "int8"; break;
    default: name = "?"; break;
  }
  return name;
}

utvm_text_t *ops_begin(const utvm_op_context_t *c) {
  utvm_model_text_operator(c->text, c->index, (int32_t)c->op->code);
  return c->text;
}

utvm_err_t ops_fail(const utvm_op_context_t *c, utvm_err_t err, const char *msg) {
  utvm_text_str(ops_begin(c), msg);
  return err;
}

utvm_err_t ops_fail_kernel(const utvm_op_context_t *c, utvm_err_t err, const char *what) {
  utvm_text_t *text = ops_begin(c);
  utvm_text_str(text, what);
  utvm_text_str(text, ": ");
  utvm_text_str(text, utvm_strerror(err));
  return err;
}

utvm_err_t ops_fail_shape(const utvm_op_context_t *c, const char *role, const ops_operand_t *o,
                          const char *msg) {
  utvm_text_t *text = ops_begin(c);
  utvm_text_str(text, role);
  utvm_text_str(text, " ");
  utvm_text_dims(text, o->t.rank, o->t.dims);
  utvm_text_str(text, msg);
  return UTVM_ERR_RUNNER_OPERANDS;
}

utvm_err_t ops_fail_fit(const utvm_op_context_t *c, const char *role, const ops_operand_t *a,
                        const char *other, const ops_operand_t *b) {
  utvm_text_t *text = ops_begin(c);
  utvm_text_str(text, role);
  utvm_text_str(text, " ");
  utvm_text_dims(text, a->t.rank, a->t.dims);
  utvm_text_str(text, " does not fit ");
  utvm_text_str(text, other);
  utvm_text_str(text, " ");
  utvm_text_dims(text, b->t.rank, b->t.dims);
  return UTVM_ERR_RUNNER_OPERANDS;
}

utvm_err_t ops_fail_output_size(const utvm_op_context_t *c, const ops_operand_t *out, int32_t h,
                                int32_t w) {
  int32_t expected[4];
  expected[0] = out->t.dims[0];
  expected[1] = h;
  expected[2] = w;
  expected[3] = out->t.dims[3];
  utvm_text_t *text = ops_begin(c);
  utvm_text_str(text, "output ");
  utvm_text_dims(text, out->t.rank, out->t.dims);
  utvm_text_str(text, " is not the ");
  utvm_text_dims(text, 4u, expected);
  utvm_text_str(text, " the options give");
  return UTVM_ERR_RUNNER_OPERANDS;
}

utvm_err_t ops_load(const utvm_op_context_t *c, uint32_t k, ops_operand_t *o) {
  const utvm_model_operator_t *op = c->op;
  int32_t index = -1;
  if (k == OPS_OUTPUT) {
    index = (op->n_outputs > 0u) ? op->outputs[0] : -1;
  } else if (k < op->n_inputs) {
    index = op->inputs[k];
  } else {
    index = -1;
  }
  if (index < 0) {
    return ops_fail(c, UTVM_ERR_RUNNER_OPERANDS, "a required operand is absent");
  }
  o->index = (uint32_t)index;
  if (utvm_model_tensor(c->model, o->index, &o->t) != UTVM_OK) {
    return ops_fail(c, UTVM_ERR_RUNNER_OPERANDS, "an operand cannot be decoded");
  }
  return UTVM_OK;
}

utvm_err_t ops_load_output(const utvm_op_context_t *c, uint32_t j, ops_operand_t *o) {
  const utvm_model_operator_t *op = c->op;
  if ((j >= op->n_outputs) || (op->outputs[j] < 0)) {
    return ops_fail(c, UTVM_ERR_RUNNER_OPERANDS, "a required output is absent");
  }
  o->index = (uint32_t)op->outputs[j];
  if (utvm_model_tensor(c->model, o->index, &o->t) != UTVM_OK) {
    return ops_fail(c, UTVM_ERR_RUNNER_OPERANDS, "an operand cannot be decoded");
  }
  return UTVM_OK;
}

bool ops_present(const utvm_model_operator_t *op, uint32_t k) {
  return (k < op->n_inputs) && (op->inputs[k] >= 0);
}

utvm_err_t ops_check_nonempty(const utvm_op_context_t *c, const ops_operand_t *o,
                              const char *role) {
  uint32_t d;
  bool ok = o->t.rank <= UTVM_MODEL_MAX_DIMS;
  for (d = 0u; ok && (d < o->t.rank); d++) {
    ok = o->t.dims[d] >= 1;
  }
  return ok ? UTVM_OK : ops_fail_shape(c, role, o, " has an empty dimension");
}

utvm_err_t ops_check_type(const utvm_op_context_t *c, const ops_operand_t *o, const char *role,
                          utvm_model_type_t type) {
  if (o->t.type != type) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, role);
    utvm_text_str(text, " is ");
    utvm_text_str(text, ops_type_name(o->t.type));
    utvm_text_str(text, ", not ");
    utvm_text_str(text, ops_type_name(type));
    return UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return ops_check_nonempty(c, o, role);
}

utvm_err_t ops_load_f32(const utvm_op_context_t *c, bool same_size, ops_operand_t *in,
                        ops_operand_t *out) {
  utvm_err_t err = ops_load(c, 0u, in);
  if (err == UTVM_OK) {
    err = ops_check_type(c, in, "input", UTVM_MODEL_FLOAT32);
  }
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, out);
  }
  if (err == UTVM_OK) {
    err = ops_check_type(c, out, "output", UTVM_MODEL_FLOAT32);
  }
  if ((err == UTVM_OK) && same_size && (in->t.elements != out->t.elements)) {
    err = ops_fail_fit(c, "output", out, "input", in);
  }
  return err;
}

utvm_err_t ops_check_f32_built(const utvm_op_context_t *c) {
#if UTVM_HAVE_F32
  (void)c;
  return UTVM_OK;
#else
  return ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                  "float32 operators are not in this build (UTVM_HAVE_F32 0: a core without a "
                  "single-precision FPU)");
#endif
}

utvm_err_t ops_load_f32_op(const utvm_op_context_t *c, bool same_size, ops_operand_t *in,
                           ops_operand_t *out) {
  const utvm_err_t err = ops_check_f32_built(c);
  return (err == UTVM_OK) ? ops_load_f32(c, same_size, in, out) : err;
}

bool ops_input_is_f32(const utvm_op_context_t *c) {
  utvm_model_tensor_t t;
  return ops_present(c->op, 0u) &&
         (utvm_model_tensor(c->model, (uint32_t)c->op->inputs[0], &t) == UTVM_OK) &&
         (t.type == UTVM_MODEL_FLOAT32);
}

utvm_err_t ops_check_q8(const utvm_op_context_t *c, const ops_operand_t *o, const char *role) {
  utvm_err_t err = ops_check_type(c, o, role, UTVM_MODEL_INT8);
  if ((err == UTVM_OK) && (o->t.quant.count != 1u)) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, role);
    utvm_text_str(text,
                  (o->t.quant.count == 0u) ? " is not quantized" : " is quantized per channel");
    err = UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return err;
}

utvm_err_t ops_element_type(const utvm_op_context_t *c, const ops_operand_t *o, const char *role,
                            utvm_op_type_t *type) {
  utvm_err_t err = UTVM_OK;
  if (o->t.type == UTVM_MODEL_INT8) {
    *type = UTVM_OP_TYPE_INT8;
  } else if (o->t.type == UTVM_MODEL_INT16) {
    *type = UTVM_OP_TYPE_INT16;
  } else if (o->t.type == UTVM_MODEL_INT32) {
    *type = UTVM_OP_TYPE_INT32;
  } else if (o->t.type == UTVM_MODEL_FLOAT32) {
    *type = UTVM_OP_TYPE_FLOAT32;
  } else {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, role);
    utvm_text_str(text, " is not int8, int16, int32 or float32");
    err = UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return err;
}

utvm_err_t ops_check_q16_any(const utvm_op_context_t *c, const ops_operand_t *o,
                             const char *role) {
  utvm_err_t err = ops_check_type(c, o, role, UTVM_MODEL_INT16);
  if ((err == UTVM_OK) && (o->t.quant.count != 1u)) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, role);
    utvm_text_str(text,
                  (o->t.quant.count == 0u) ? " is not quantized" : " is quantized per channel");
    err = UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return err;
}

utvm_err_t ops_check_q16(const utvm_op_context_t *c, const ops_operand_t *o, const char *role) {
  utvm_err_t err = ops_check_q16_any(c, o, role);
  if ((err == UTVM_OK) && (o->t.quant.zero_point != 0)) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, role);
    utvm_text_str(text, " is int16 with zero point ");
    utvm_text_i64(text, o->t.quant.zero_point);
    utvm_text_str(text, ", not 0");
    err = UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return err;
}

utvm_err_t ops_check_q8_q16(const utvm_op_context_t *c, const ops_operand_t *o, const char *role,
                            bool *int16) {
  *int16 = o->t.type == UTVM_MODEL_INT16;
  return *int16 ? ops_check_q16(c, o, role) : ops_check_q8(c, o, role);
}

utvm_err_t ops_load_unary_q(const utvm_op_context_t *c, ops_operand_t *in, ops_operand_t *out,
                            bool *int16) {
  bool out_int16 = false;
  utvm_err_t err = ops_load_unary(c, false, in, out);
  if (err == UTVM_OK) {
    err = ops_check_q8_q16(c, in, "input", int16);
  }
  if (err == UTVM_OK) {
    err = ops_check_q8_q16(c, out, "output", &out_int16);
  }
  if ((err == UTVM_OK) && (*int16 != out_int16)) {
    err = ops_check_type(c, out, "output", in->t.type);
  }
  return err;
}

utvm_err_t ops_load_layout_q(const utvm_op_context_t *c, ops_operand_t *in, ops_operand_t *out,
                             bool *int16) {
  bool out_int16 = false;
  utvm_err_t err = ops_load(c, 0u, in);
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, out);
  }
  if (err == UTVM_OK) {
    err = ops_check_q8_q16(c, in, "input", int16);
  }
  if (err == UTVM_OK) {
    err = ops_check_q8_q16(c, out, "output", &out_int16);
  }
  if ((err == UTVM_OK) && (*int16 != out_int16)) {
    err = ops_check_type(c, out, "output", in->t.type);
  }
  if (err == UTVM_OK) {
    err = ops_check_same_quant(c, in, out);
  }
  return err;
}

utvm_err_t ops_refuse_int16(const utvm_op_context_t *c, const ops_operand_t *in,
                            const char *types) {
  utvm_err_t err = UTVM_OK;
  if (in->t.type == UTVM_MODEL_INT16) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, "input is int16: TFLM's ");
    utvm_text_str(text, utvm_model_op_name((int32_t)c->op->code));
    utvm_text_str(text, " has ");
    utvm_text_str(text, types);
    utvm_text_str(text, " only");
    err = UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return err;
}

utvm_err_t ops_check_rank(const utvm_op_context_t *c, const ops_operand_t *o, const char *role,
                          uint32_t rank) {
  if (o->t.rank != rank) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, role);
    utvm_text_str(text, " ");
    utvm_text_dims(text, o->t.rank, o->t.dims);
    utvm_text_str(text, " is not ");
    utvm_text_u64(text, (uint64_t)rank);
    utvm_text_str(text, "-D");
    return UTVM_ERR_RUNNER_OPERANDS;
  }
  return UTVM_OK;
}

utvm_err_t ops_check_constant(const utvm_op_context_t *c, const ops_operand_t *o,
                              const char *role) {
  if (o->t.data == NULL) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, role);
    utvm_text_str(text, " is not constant");
    return UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return UTVM_OK;
}

utvm_err_t ops_check_shift(const utvm_op_context_t *c, int32_t shift) {
  if ((shift < -31) || (shift > 31)) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, "the scales' ratio is about 2^");
    utvm_text_i64(text, shift);
    utvm_text_str(text, " (the kernels take 2^-31 to 2^31)");
    return UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return UTVM_OK;
}

bool ops_same_quant(const ops_operand_t *a, const ops_operand_t *b) {
  return (a->t.quant.scale == b->t.quant.scale) &&
         (a->t.quant.zero_point == b->t.quant.zero_point);
}

utvm_err_t ops_check_same_quant(const utvm_op_context_t *c, const ops_operand_t *in,
                                const ops_operand_t *out) {
  return ops_same_quant(in, out)
             ? UTVM_OK
             : ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                        "input and output scales or zero points differ");
}

static bool scale_near(float scale, float target) {
  const float diff = scale - target;
  const float tolerance = SCALE_TOLERANCE * target;
  return (diff <= tolerance) && (-diff <= tolerance);
}

utvm_err_t ops_check_fixed_output(const utvm_op_context_t *c, const ops_operand_t *out,
                                  float scale, int32_t zero_point) {
  if (!scale_near(out->t.quant.scale, scale) || (out->t.quant.zero_point != zero_point)) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, "output zero point ");
    utvm_text_i64(text, out->t.quant.zero_point);
    utvm_text_str(text, " or scale is not the required ");
    utvm_text_i64(text, zero_point);
    utvm_text_str(text, " and 1/");
    utvm_text_u64(text, (uint64_t)(1.0f / scale));
    return UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return UTVM_OK;
}

utvm_err_t ops_load_q8(const utvm_op_context_t *c, ops_operand_t *in, ops_operand_t *out) {
  utvm_err_t err = ops_load(c, 0u, in);
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, out);
  }
  if (err == UTVM_OK) {
    err = ops_check_q8(c, in, "input");
  }
  if (err == UTVM_OK) {
    err = ops_check_q8(c, out, "output");
  }
  return err;
}

utvm_err_t ops_load_unary(const utvm_op_context_t *c, bool q8, ops_operand_t *in,
                          ops_operand_t *out) {
  utvm_err_t err = ops_load(c, 0u, in);
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, out);
  }
  if (err == UTVM_OK) {
    err = ops_check_nonempty(c, in, "input");
  }
  if (err == UTVM_OK) {
    err = ops_check_nonempty(c, out, "output");
  }
  if ((err == UTVM_OK) && (in->t.elements != out->t.elements)) {
    err = ops_fail_fit(c, "output", out, "input", in);
  }
  if ((err == UTVM_OK) && q8) {
    err = ops_check_q8(c, in, "input");
  }
  if ((err == UTVM_OK) && q8) {
    err = ops_check_q8(c, out, "output");
  }
  return err;
}

utvm_err_t ops_load_layout(const utvm_op_context_t *c, ops_operand_t *in, ops_operand_t *out,
                           utvm_op_type_t *type, int32_t *size) {
  utvm_err_t err = ops_load(c, 0u, in);
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, out);
  }
  *type = UTVM_OP_TYPE_INT8;
  if ((err == UTVM_OK) && (in->t.type == UTVM_MODEL_INT16)) {
    *type = UTVM_OP_TYPE_INT16;
  } else if ((err == UTVM_OK) && (in->t.type == UTVM_MODEL_FLOAT32)) {
    *type = UTVM_OP_TYPE_FLOAT32;
  } else if ((err == UTVM_OK) && (in->t.type != UTVM_MODEL_INT8)) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, "input is ");
    utvm_text_str(text, ops_type_name(in->t.type));
    utvm_text_str(text, ", not int8, int16 or float32");
    err = UTVM_ERR_RUNNER_UNSUPPORTED;
  } else {
    /* int8, or an error already */
  }
  *size = ops_type_size((int32_t)*type);
  if (err == UTVM_OK) {
    err = ops_check_type(c, in, "input", in->t.type);
  }
  if (err == UTVM_OK) {
    err = ops_check_type(c, out, "output", in->t.type);
  }
  if ((err == UTVM_OK) && (*type != UTVM_OP_TYPE_FLOAT32) &&
      ((in->t.quant.count != 1u) || (out->t.quant.count != 1u))) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "input and output must be quantized per tensor");
  }
  if (err == UTVM_OK) {
    err = ops_check_same_quant(c, in, out);
  }
  return err;
}

utvm_err_t ops_input_ref(const utvm_op_context_t *c, const ops_operand_t *o, ops_ref_t *ref) {
  ref->constant = o->t.data;
  ref->offset = 0u;
  if (o->t.data == NULL) {
    ref->offset = c->offsets[o->index];
    if (ref->offset == UTVM_PLAN_NO_OFFSET) {
      return ops_fail(c, UTVM_ERR_RUNNER_OPERANDS, "an input has no place in the arena");
    }
  }
  return UTVM_OK;
}

utvm_err_t ops_output_offset(const utvm_op_context_t *c, const ops_operand_t *o,
                             uint32_t *offset) {
  *offset = c->offsets[o->index];
  if (*offset == UTVM_PLAN_NO_OFFSET) {
    return ops_fail(c, UTVM_ERR_RUNNER_OPERANDS, "the output has no place in the arena");
  }
  return UTVM_OK;
}

utvm_err_t ops_places(const utvm_op_context_t *c, const ops_operand_t *in, ops_ref_t *input,
                      const ops_operand_t *out, uint32_t *output) {
  const utvm_err_t err = ops_input_ref(c, in, input);
  return (err == UTVM_OK) ? ops_output_offset(c, out, output) : err;
}

utvm_dims_t ops_dims(const utvm_model_tensor_t *t) {
  utvm_dims_t d;
  d.n = t->dims[0];
  d.h = t->dims[1];
  d.w = t->dims[2];
  d.c = t->dims[3];
  return d;
}

utvm_shape_t ops_shape(const utvm_model_tensor_t *t) {
  utvm_shape_t s;
  uint32_t d;
  s.rank = (int32_t)t->rank;
  for (d = 0u; d < (uint32_t)UTVM_KERNEL_MAX_RANK; d++) {
    s.dims[d] = (d < t->rank) ? t->dims[d] : 0;
  }
  return s;
}

utvm_padding_t ops_padding(int32_t padding) {
  return (padding == 0) ? UTVM_PADDING_SAME : UTVM_PADDING_VALID;
}

bool ops_read_int(const utvm_model_tensor_t *t, size_t i, int32_t *v) {
  const uint8_t *b = t->data;
  uint64_t u = 0u;
  uint32_t k;
  int64_t value;
  uint32_t size = 4u;
  if (t->type == UTVM_MODEL_INT64) {
    size = 8u;
  }
  for (k = 0u; k < size; k++) {
    const size_t at = (i * (size_t)size) + (size_t)k;
    const uint32_t shift = 8u * k;
    u |= (uint64_t)b[at] << shift;
  }
  if (size == 4u) {
    const uint64_t mask = 0xFFFFFFFFu;
    const uint64_t complement = (~u) & mask;
    value = ((u & 0x80000000u) != 0u) ? (-(int64_t)complement - 1) : (int64_t)u;
  } else if ((u >> 63) != 0u) {
    const uint64_t complement = ~u;
    value = -(int64_t)complement - 1;
  } else {
    value = (int64_t)u;
  }
  if ((value < (int64_t)INT32_MIN) || (value > (int64_t)INT32_MAX)) {
    return false;
  }
  *v = (int32_t)value;
  return true;
}

utvm_err_t ops_load_int_constant(const utvm_op_context_t *c, uint32_t k, const char *role,
                                 bool allow_int64, ops_operand_t *o) {
  utvm_err_t err = ops_load(c, k, o);
  if (err == UTVM_OK) {
    err = ops_check_constant(c, o, role);
  }
  if ((err == UTVM_OK) && (o->t.type != UTVM_MODEL_INT32) &&
      (!allow_int64 || (o->t.type != UTVM_MODEL_INT64))) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, role);
    utvm_text_str(text, " are ");
    utvm_text_str(text, ops_type_name(o->t.type));
    utvm_text_str(text, allow_int64 ? ", not int32 or int64" : ", not int32");
    err = UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return err;
}

/* Dimension d (counted from the last, 0 = last) of t, 1 past its rank. */
static int32_t dim_from_end(const utvm_model_tensor_t *t, uint32_t d) {
  return (d < t->rank) ? t->dims[t->rank - 1u - d] : 1;
}

bool ops_broadcasts(const utvm_model_tensor_t *a, const utvm_model_tensor_t *b,
                    const utvm_model_tensor_t *out) {
  uint32_t d;
  bool ok = (a->rank <= out->rank) && (b->rank <= out->rank) &&
            (out->rank <= (uint32_t)UTVM_KERNEL_MAX_RANK);
  for (d = 0u; ok && (d < out->rank); d++) {
    const int32_t da = dim_from_end(a, d);
    const int32_t db = dim_from_end(b, d);
    const int32_t dout = dim_from_end(out, d);
    ok = ((da == dout) || (da == 1)) && ((db == dout) || (db == 1)) &&
         (dout == ((da > db) ? da : db));
  }
  return ok;
}

uint32_t ops_inputs_1(const utvm_model_operator_t *op) {
  (void)op;
  return 1u;
}

uint32_t ops_inputs_2(const utvm_model_operator_t *op) {
  (void)op;
  return 2u;
}

uint32_t ops_inputs_weighted(const utvm_model_operator_t *op) {
  return ops_present(op, 2u) ? 3u : 2u;
}

uint32_t ops_inputs_all(const utvm_model_operator_t *op) { return op->n_inputs; }

utvm_err_t utvm_op_prepare(const utvm_op_t *d, const utvm_op_context_t *c, void *record,
                           size_t size) {
  const utvm_model_operator_t *op = c->op;
  uint32_t k;
  const char *field = NULL;
  uint32_t n = op->n_inputs;
  uint32_t min = d->min_inputs;
  uint32_t max = d->max_inputs;
  const uint32_t max_outputs = (d->max_outputs > 0u) ? d->max_outputs : 1u;
  if ((op->n_outputs < 1u) || (op->n_outputs > max_outputs)) {
    field = "outputs";
    n = op->n_outputs;
    min = 1u;
    max = max_outputs;
  } else if ((op->n_inputs < min) || (op->n_inputs > max)) {
    field = "inputs";
  } else {
    for (k = 0u; k < op->n_inputs; k++) {
      if ((op->inputs[k] < 0) && (k < min)) {
        return ops_fail(c, UTVM_ERR_MODEL_BAD_OPERANDS, "inputs: a required input is absent (-1)");
      }
    }
  }
  if (field != NULL) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, field);
    utvm_text_str(text, ": ");
    utvm_text_u64(text, n);
    utvm_text_str(text, " tensors, expected ");
    utvm_text_u64(text, min);
    if (max != min) {
      utvm_text_str(text, " to ");
      utvm_text_u64(text, max);
    }
    return UTVM_ERR_MODEL_BAD_OPERANDS;
  }
  if ((op->options2_type != 0u) ||
      ((op->options_type != 0u) && (op->options_type != (uint32_t)d->options_type))) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, "options: options of union type ");
    utvm_text_u64(text, (op->options2_type != 0u) ? op->options2_type : op->options_type);
    utvm_text_str(text, (op->options2_type != 0u) ? " (builtin_options_2)" : "");
    utvm_text_str(text, " unsupported for this operator");
    return UTVM_ERR_MODEL_BAD_OPTION;
  }
  return d->prepare(c, record, size);
}

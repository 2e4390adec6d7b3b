/*
 * Reading an operator's options: one table of fields per operator (id, storage, default, what
 * the value must be) instead of one decoder per operator. The bytes are read through the
 * model's checked option readers; every failure names the operator and the field.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ops_internal.h"

utvm_err_t ops_fail_option(const utvm_op_context_t *c, const char *msg, int32_t value,
                           const char *tail) {
  utvm_text_t *text = ops_begin(c);
  utvm_text_str(text, "options: ");
  utvm_text_str(text, msg);
  utvm_text_i64(text, value);
  utvm_text_str(text, tail);
  return UTVM_ERR_MODEL_BAD_OPTION;
}

/* A field's bits as int32 (bytes sign- or zero-extended). */
static int32_t field_value(uint8_t type, uint64_t bits) {
  const uint32_t low = (uint32_t)(bits & 0xFFFFFFFFu);
  const uint32_t byte = low & 0xFFu;
  const uint32_t magnitude = byte & 0x7Fu;
  int32_t v;
  if (type == (uint8_t)OPS_I8) {
    v = (int32_t)magnitude;
    if (byte != magnitude) {
      v -= 128;
    }
  } else if (type == (uint8_t)OPS_U8) {
    v = (int32_t)byte;
  } else if (low <= 0x7FFFFFFFu) {
    v = (int32_t)low;
  } else {
    const uint32_t inverse = ~low;
    v = -(int32_t)inverse - 1;
  }
  return v;
}

float ops_option_float(int32_t bits) {
  union {
    int32_t i;
    float f;
  } pun;
  pun.i = bits;
  return pun.f;
}

/* finite and > 0, from a float's bits */
static bool beta_valid(uint32_t bits) {
  return ((bits & 0x80000000u) == 0u) && ((bits & 0x7F800000u) != 0x7F800000u) && (bits != 0u);
}

/* How a failed check reads: "options: <lead><name> <value><tail>". */
typedef struct {
  const char *lead;
  const char *tail;
} field_text_t;

static const field_text_t kFieldTexts[] = {
    {"", ""},                              /* OPS_ANY: never fails */
    {"", " is not >= 1"},                  /* OPS_POSITIVE */
    {"negative ", ""},                     /* OPS_NONNEGATIVE */
    {"unknown ", ""},                      /* OPS_PADDING */
    {"unsupported fused activation ", ""}, /* OPS_ACTIVATION: the value's name */
    {"unsupported ", ""},                  /* OPS_BIAS_TYPE */
    {"", " unsupported (only DEFAULT)"},   /* OPS_ZERO */
    {"", " is not a finite number > 0"}};  /* OPS_BETA: no value */

/* Whether v passes f's check. */
static bool field_valid(const ops_field_t *f, int32_t v) {
  bool ok;
  switch ((ops_field_check_t)f->check) {
    case OPS_POSITIVE: ok = v >= 1; break;
    case OPS_NONNEGATIVE: ok = v >= 0; break;
    case OPS_PADDING: ok = (uint32_t)v <= 1u; break;
    case OPS_ACTIVATION: ok = (uint32_t)v <= 3u; break;
    case OPS_BIAS_TYPE:
      ok = (v == 0) || (v == (int32_t)UTVM_MODEL_INT32) || (v == (int32_t)UTVM_MODEL_INT64);
      break;
    case OPS_ZERO: ok = v == 0; break;
    case OPS_BETA: ok = beta_valid((uint32_t)v); break;
    default: ok = true; break;
  }
  return ok;
}

static utvm_err_t check_field(const utvm_op_context_t *c, const ops_field_t *f, int32_t v) {
  static const char *const activations[] = {"TANH", "SIGN_BIT"};
  if (field_valid(f, v)) {
    return UTVM_OK;
  }
  const field_text_t *how = &kFieldTexts[(f->check <= (uint8_t)OPS_BETA) ? f->check : 0u];
  utvm_text_t *text = ops_begin(c);
  utvm_text_str(text, "options: ");
  utvm_text_str(text, how->lead);
  if (f->check == (uint8_t)OPS_ACTIVATION) {
    utvm_text_str(text, ((uint32_t)v - 4u < 2u) ? activations[v - 4] : "(unknown)");
  } else {
    utvm_text_str(text, f->name);
    if (f->check != (uint8_t)OPS_BETA) {
      utvm_text_str(text, " ");
      utvm_text_i64(text, v);
    }
  }
  utvm_text_str(text, how->tail);
  return UTVM_ERR_MODEL_BAD_OPTION;
}

utvm_err_t ops_options(const utvm_op_context_t *c, const ops_field_t *fields, uint32_t n,
                       int32_t *values) {
  static const uint32_t widths[] = {1u, 1u, 4u, 4u};
  uint32_t i;
  utvm_err_t err = UTVM_OK;
  for (i = 0u; (i < n) && (err == UTVM_OK); i++) {
    const ops_field_t *f = &fields[i];
    const uint32_t width = widths[(f->type < 4u) ? f->type : 2u];
    const uint64_t def = (uint64_t)(uint32_t)f->def & ((width == 1u) ? 0xFFu : 0xFFFFFFFFu);
    uint64_t bits = 0u;
    err = utvm_model_option_bits(c->model, c->index, c->op, f->id, width, def, &bits, c->text);
    if (err == UTVM_OK) {
      values[i] = field_value(f->type, bits);
      err = check_field(c, f, values[i]);
    }
  }
  return err;
}

utvm_err_t ops_option_list(const utvm_op_context_t *c, uint32_t id, const char *name,
                           int32_t *values, uint32_t max, uint32_t *count) {
  const utvm_err_t err =
      utvm_model_option_i32s(c->model, c->index, c->op, id, values, max, count, c->text);
  if (err == UTVM_ERR_MODEL_BAD_OPTION) {
    utvm_text_str(c->text, " (");
    utvm_text_str(c->text, name);
    utvm_text_str(c->text, ")");
  }
  return err;
}

utvm_err_t ops_option_axis(const utvm_op_context_t *c, int32_t axis, uint32_t rank,
                           int32_t *out) {
  const int32_t n = (int32_t)rank;
  if ((axis < -n) || (axis >= n)) {
    return ops_fail_option(c, "axis ", axis, " outside the tensor's rank");
  }
  *out = (axis < 0) ? (axis + n) : axis;
  return UTVM_OK;
}

void ops_plan_context(utvm_op_context_t *c, utvm_text_t *text, const utvm_model_t *m,
                      uint32_t index, const utvm_model_operator_t *op) {
  utvm_text_init(text, NULL, 0u);
  c->model = m;
  c->op = op;
  c->index = index;
  c->offsets = NULL;
  c->scratch = UTVM_PLAN_NO_OFFSET;
  c->text = text;
}

utvm_plan_step_kind_t ops_view_kind(const utvm_model_t *m, int32_t tensor, int32_t axis,
                                    utvm_plan_step_kind_t kind) {
  utvm_model_tensor_t t;
  uint32_t d;
  bool outermost = false;
  if ((tensor >= 0) && (utvm_model_tensor(m, (uint32_t)tensor, &t) == UTVM_OK)) {
    const int32_t rank = (int32_t)t.rank;
    if ((axis >= -rank) && (axis < rank)) {
      const uint32_t a = (uint32_t)((axis < 0) ? (axis + rank) : axis);
      outermost = true;
      for (d = 0u; d < a; d++) {
        outermost = outermost && (t.dims[d] == 1);
      }
    }
  }
  return outermost ? kind : UTVM_PLAN_STEP_DEFAULT;
}

utvm_plan_step_kind_t ops_elementwise_kind(const utvm_model_t *m, uint32_t index,
                                           const utvm_model_operator_t *op) {
  utvm_model_tensor_t out;
  uint32_t i;
  bool same = (op->n_outputs == 1u) && (op->outputs[0] >= 0) &&
              (utvm_model_tensor(m, (uint32_t)op->outputs[0], &out) == UTVM_OK);
  (void)index;
  for (i = 0u; same && (i < op->n_inputs); i++) {
    utvm_model_tensor_t in;
    if (op->inputs[i] >= 0) {
      same = (utvm_model_tensor(m, (uint32_t)op->inputs[i], &in) == UTVM_OK) &&
             (in.element_size == out.element_size);
    }
  }
  return same ? UTVM_PLAN_STEP_INPLACE : UTVM_PLAN_STEP_DEFAULT;
}

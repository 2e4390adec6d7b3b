/* CONCATENATION (int8 quantized as the output, int16 with zero points 0, float32; up to 8
 * inputs, no fused activation): options, prepare, run, op params, emit. The kind
 * CONCATENATION (any element size) runs it and PACK (pack.c); the older kind
 * CONCATENATION_S8 stays for op params compiled before. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* ConcatenationOptions (BuiltinOptions 10). */
enum { AXIS, ACTIVATION, N_OPTIONS };
static const ops_field_t concatenation_options[N_OPTIONS] = {
    {0u, OPS_I32, OPS_ANY, 0, "axis"},
    {1u, OPS_U8, OPS_ACTIVATION, 0, "fused_activation_function"}};

size_t ops_concat_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(ops_concat_t));
}

utvm_err_t ops_concat_input(const utvm_op_context_t *c, uint32_t k, const ops_operand_t *out,
                            ops_operand_t *in) {
  utvm_err_t err = ops_load(c, k, in);
  if (err == UTVM_OK) {
    err = ops_check_type(c, in, "input", out->t.type);
  }
  if ((err == UTVM_OK) && (out->t.type == UTVM_MODEL_INT8) && !ops_same_quant(in, out)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "an input's scale or zero point differs from the output's");
  }
  if ((err == UTVM_OK) && (out->t.type == UTVM_MODEL_INT16) &&
      ((in->t.quant.count != 1u) || (in->t.quant.zero_point != 0))) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "an int16 input is not quantized per tensor with zero point 0");
  }
  return err;
}

utvm_err_t ops_concat_output(const utvm_op_context_t *c, ops_operand_t *out, ops_concat_t *rec) {
  uint32_t k;
  utvm_err_t err = ops_load(c, OPS_OUTPUT, out);
  for (k = 0u; k < (uint32_t)UTVM_CONCAT_MAX_INPUTS; k++) {
    rec->params.axis_sizes[k] = 0;
  }
  rec->type = (int32_t)UTVM_OP_TYPE_INT8;
  if ((err == UTVM_OK) && (out->t.type == UTVM_MODEL_INT16)) {
    rec->type = (int32_t)UTVM_OP_TYPE_INT16;
  } else if ((err == UTVM_OK) && (out->t.type == UTVM_MODEL_FLOAT32)) {
    rec->type = (int32_t)UTVM_OP_TYPE_FLOAT32;
  } else if (err == UTVM_OK) {
    err = ops_check_q8(c, out, "output");
  } else {
    /* err set */
  }
  if ((err == UTVM_OK) && (rec->type != (int32_t)UTVM_OP_TYPE_INT8)) {
    err = ops_check_type(c, out, "output", out->t.type);
  }
  if ((err == UTVM_OK) && (rec->type == (int32_t)UTVM_OP_TYPE_INT16) &&
      ((out->t.quant.count != 1u) || (out->t.quant.zero_point != 0))) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "the int16 output is not quantized per tensor with zero point 0");
  }
  if ((err == UTVM_OK) && (c->op->n_inputs > (uint32_t)UTVM_CONCAT_MAX_INPUTS)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED, "more than 8 inputs");
  }
  if (err == UTVM_OK) {
    err = ops_output_offset(c, out, &rec->output);
  }
  rec->params.element_size = ops_type_size(rec->type);
  rec->params.n_inputs = (int32_t)c->op->n_inputs;
  return err;
}

/* The elements of out's dimensions [from, to). */
int32_t ops_dims_product(const ops_operand_t *out, uint32_t from, uint32_t to) {
  int32_t product = 1;
  uint32_t d;
  for (d = from; (d < to) && (d < out->t.rank); d++) {
    product *= out->t.dims[d]; /* at most the output's element count */
  }
  return product;
}

/* Input k: of the output's type and quantization, same rank, same dimensions but the axis. */
static utvm_err_t concat_input(const utvm_op_context_t *c, uint32_t k, const ops_operand_t *out,
                               uint32_t axis, ops_concat_t *rec, int64_t *axis_total) {
  ops_operand_t in;
  uint32_t d;
  utvm_err_t err = ops_concat_input(c, k, out, &in);
  if ((err == UTVM_OK) && (in.t.rank != out->t.rank)) {
    err = ops_fail_fit(c, "input", &in, "output", out);
  }
  for (d = 0u; (d < in.t.rank) && (err == UTVM_OK); d++) {
    if ((d != axis) && (in.t.dims[d] != out->t.dims[d])) {
      err = ops_fail_fit(c, "input", &in, "output", out);
    }
  }
  if (err == UTVM_OK) {
    err = ops_input_ref(c, &in, &rec->inputs[k]);
  }
  if (err == UTVM_OK) {
    rec->params.axis_sizes[k] = in.t.dims[axis];
    *axis_total += (int64_t)in.t.dims[axis];
  }
  return err;
}

static utvm_err_t concat_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  ops_concat_t *rec = (ops_concat_t *)record;
  ops_operand_t out;
  uint32_t k;
  int64_t axis_total = 0;
  int32_t o[N_OPTIONS];
  int32_t axis = 0;
  (void)size;
  utvm_err_t err = ops_options(c, concatenation_options, N_OPTIONS, o);
  if (err == UTVM_OK) {
    err = ops_concat_output(c, &out, rec);
  }
  if (err == UTVM_OK) {
    err = ops_option_axis(c, o[AXIS], out.t.rank, &axis);
  }
  if ((err == UTVM_OK) && (o[ACTIVATION] != 0)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED, "a fused activation is not supported");
  }
  for (k = 0u; (k < c->op->n_inputs) && (err == UTVM_OK); k++) {
    err = concat_input(c, k, &out, (uint32_t)axis, rec, &axis_total);
  }
  if ((err == UTVM_OK) && (axis_total != (int64_t)out.t.dims[axis])) {
    err = ops_fail_shape(c, "output", &out, " is not the inputs' sizes added along the axis");
  }
  if (err == UTVM_OK) {
    rec->params.outer = ops_dims_product(&out, 0u, (uint32_t)axis);
    rec->params.inner = ops_dims_product(&out, (uint32_t)axis + 1u, out.t.rank);
  }
  return err;
}

utvm_err_t ops_concat_execute(const void *record, uint8_t *arena) {
  const ops_concat_t *r = (const ops_concat_t *)record;
  const void *inputs[UTVM_CONCAT_MAX_INPUTS];
  int32_t k;
  for (k = 0; (k < r->params.n_inputs) && (k < UTVM_CONCAT_MAX_INPUTS); k++) {
    inputs[k] = ops_in(arena, &r->inputs[k]);
  }
  return utvm_concatenation(&r->params, inputs, &arena[r->output]);
}

void ops_concat_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const ops_concat_t *r = (const ops_concat_t *)record;
  (void)core;
  p->kind = UTVM_OP_CONCATENATION;
  p->type = r->type;
  p->p.concat = r->params;
}

/* GATHER when the axis is the output's outermost dimension that is not 1. */
static utvm_plan_step_kind_t concat_plan_kind(const utvm_model_t *m, uint32_t index,
                                              const utvm_model_operator_t *op) {
  utvm_text_t text;
  utvm_op_context_t c;
  int32_t o[N_OPTIONS] = {0, 0};
  ops_plan_context(&c, &text, m, index, op);
  return (ops_options(&c, concatenation_options, N_OPTIONS, o) == UTVM_OK)
             ? ops_view_kind(m, op->outputs[0], o[AXIS], UTVM_PLAN_STEP_GATHER)
             : UTVM_PLAN_STEP_DEFAULT;
}

const utvm_op_t utvm_op_concatenation = {
    (int32_t)UTVM_MODEL_OP_CONCATENATION, 1u, UTVM_MODEL_MAX_OP_INPUTS, 10u,
    ops_concat_record_size, NULL, concat_prepare, ops_concat_execute, ops_concat_export,
    ops_inputs_all, 0u, 0u, NULL, concat_plan_kind, NULL, NULL, NULL};

/* ---- The kernel function utvm_k_concatenation_s8 ---- */

static void concat_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  uint32_t i;
  ops_walk_i32(w, &p->axis);
  for (i = 0u; (i <= p->n_inputs) && (i <= UTVM_OP_PARAMS_MAX_INPUTS); i++) {
    ops_walk_block(w, &p->shapes[i], sizeof(p->shapes[i]));
  }
}

static const char *concat_check(utvm_op_params_t *p) {
  uint32_t i;
  const int32_t rank = p->shapes[p->n_inputs].rank;
  /* The rank is checked first: -rank of a hostile INT32_MIN would overflow. */
  if ((rank < 1) || (rank > UTVM_KERNEL_MAX_RANK) || (p->axis < -rank) || (p->axis >= rank)) {
    return "axis outside the output's rank";
  }
  for (i = 0u; i <= p->n_inputs; i++) {
    uint64_t e = 0u;
    if (!ops_shape_elements(&p->shapes[i], &e)) {
      return "a shape is invalid or too large";
    }
    (void)ops_set_operand(p, i, UTVM_OP_TYPE_INT8, e);
  }
  return NULL;
}

static utvm_err_t concat_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  const int8_t *inputs[UTVM_OP_PARAMS_MAX_INPUTS];
  uint32_t i;
  (void)scratch;
  for (i = 0u; (i < p->n_inputs) && (i < UTVM_OP_PARAMS_MAX_INPUTS); i++) {
    inputs[i] = (const int8_t *)data[i];
  }
  return utvm_concatenation_s8((int32_t)p->n_inputs, inputs, p->shapes, p->axis,
                               &p->shapes[p->n_inputs], (int8_t *)data[p->n_inputs]);
}

const utvm_op_kind_info_t utvm_op_kind_concatenation_s8 = {concat_walk, concat_check, NULL,
                                                           concat_run, UTVM_PLAN_STEP_DEFAULT,
                                                           NULL};

static const utvm_op_emit_slot_t concatenation_s8_args[] = {{UTVM_EMIT_N_INPUTS, 0u},
    {UTVM_EMIT_INPUTS, 0u}, {UTVM_EMIT_SHAPES, 0u}, {UTVM_EMIT_AXIS, 0u},
    {UTVM_EMIT_OUTPUT_SHAPE, 0u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_concatenation_s8 = {NULL, NULL, concatenation_s8_args, NULL};

/* ---- The kernel function utvm_k_concatenation ---- */

typedef char concat_check_params[(sizeof(utvm_concat_params_t) == 48u) ? 1 : -1];

static void concat_any_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->type);
  ops_walk_block(w, &p->p.concat, sizeof(p->p.concat));
}

static const char *concat_any_check(utvm_op_params_t *p) {
  const utvm_concat_params_t *s = &p->p.concat;
  uint64_t total = 0u;
  uint32_t i;
  if ((ops_type_size(p->type) == 0) || (ops_type_size(p->type) != s->element_size)) {
    return "element type and size differ or are not int8, int16 or float32";
  }
  if ((s->n_inputs < 1) || ((uint32_t)s->n_inputs != p->n_inputs)) {
    return "wrong number of input tensors for the kind";
  }
  if ((s->outer < 1) || (s->inner < 1)) {
    return "a size is < 1";
  }
  for (i = 0u; i < (uint32_t)UTVM_CONCAT_MAX_INPUTS; i++) {
    if (i < p->n_inputs) {
      const uint64_t block = (uint64_t)s->outer * (uint64_t)s->inner;
      const uint64_t e = block * (uint64_t)s->axis_sizes[i];
      if ((s->axis_sizes[i] < 1) || !ops_set_operand(p, i, (utvm_op_type_t)p->type, e)) {
        return "an input size is < 1 or too large";
      }
      total += (uint64_t)s->axis_sizes[i];
    } else if (s->axis_sizes[i] != 0) {
      return "a size past the inputs is not 0";
    } else {
      /* unused */
    }
  }
  const uint64_t out = total * (uint64_t)s->outer * (uint64_t)s->inner;
  if (!ops_set_operand(p, p->n_inputs, (utvm_op_type_t)p->type, out)) {
    return "the output is too large";
  }
  return NULL;
}

static utvm_err_t concat_any_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  const void *inputs[UTVM_CONCAT_MAX_INPUTS];
  uint32_t i;
  (void)scratch;
  for (i = 0u; (i < p->n_inputs) && (i < (uint32_t)UTVM_CONCAT_MAX_INPUTS); i++) {
    inputs[i] = data[i];
  }
  return utvm_concatenation(&p->p.concat, inputs, data[p->n_inputs]);
}

const utvm_op_kind_info_t utvm_op_kind_concatenation = {concat_any_walk, concat_any_check, NULL,
                                                        concat_any_run, UTVM_PLAN_STEP_DEFAULT,
                                                        NULL};

static const utvm_op_emit_slot_t concatenation_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_INPUT_LIST, 0u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_concatenation = {"utvm_concat_params_t",
    "element_size n_inputs outer inner axis_sizes[8]", concatenation_args, NULL};

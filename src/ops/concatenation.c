/* CONCATENATION (int8, up to 7 inputs quantized as the output, no fused activation): options,
 * prepare, run, op params, emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* ConcatenationOptions (BuiltinOptions 10). */
enum { AXIS, ACTIVATION, N_OPTIONS };
static const ops_field_t concatenation_options[N_OPTIONS] = {
    {0u, OPS_I32, OPS_ANY, 0, "axis"},
    {1u, OPS_U8, OPS_ACTIVATION, 0, "fused_activation_function"}};

typedef struct {
  uint32_t output;
  int32_t n_inputs;
  int32_t axis;
  utvm_shape_t output_shape;
  ops_ref_t inputs[UTVM_MODEL_MAX_OP_INPUTS];
  utvm_shape_t shapes[UTVM_MODEL_MAX_OP_INPUTS];
} concat_record_t;

static size_t concat_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(concat_record_t));
}

/* Input k: quantized as the output, same rank, same dimensions but the axis. */
static utvm_err_t concat_input(const utvm_op_context_t *c, uint32_t k, const ops_operand_t *out,
                               uint32_t axis, concat_record_t *rec, int64_t *axis_total) {
  ops_operand_t in;
  uint32_t d;
  utvm_err_t err = ops_load(c, k, &in);
  if (err == UTVM_OK) {
    err = ops_check_q8(c, &in, "input");
  }
  if ((err == UTVM_OK) && !ops_same_quant(&in, out)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "an input's scale or zero point differs from the output's");
  }
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
    rec->shapes[k] = ops_shape(&in.t);
    *axis_total += (int64_t)in.t.dims[axis];
  }
  return err;
}

static utvm_err_t concat_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  concat_record_t *rec = (concat_record_t *)record;
  ops_operand_t out;
  uint32_t k;
  int64_t axis_total = 0;
  int32_t o[N_OPTIONS];
  int32_t axis = 0;
  (void)size;
  utvm_err_t err = ops_options(c, concatenation_options, N_OPTIONS, o);
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, &out);
  }
  if (err == UTVM_OK) {
    err = ops_option_axis(c, o[AXIS], out.t.rank, &axis);
  }
  if (err == UTVM_OK) {
    err = ops_check_q8(c, &out, "output");
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
    err = ops_output_offset(c, &out, &rec->output);
  }
  if (err == UTVM_OK) {
    rec->n_inputs = (int32_t)c->op->n_inputs;
    rec->axis = axis;
    rec->output_shape = ops_shape(&out.t);
  }
  return err;
}

static utvm_err_t concat_execute(const void *record, uint8_t *arena) {
  const concat_record_t *r = (const concat_record_t *)record;
  const int8_t *inputs[UTVM_MODEL_MAX_OP_INPUTS];
  int32_t k;
  for (k = 0; (k < r->n_inputs) && (k < (int32_t)UTVM_MODEL_MAX_OP_INPUTS); k++) {
    inputs[k] = ops_in_s8(arena, &r->inputs[k]);
  }
  return utvm_concatenation_s8(r->n_inputs, inputs, r->shapes, r->axis, &r->output_shape,
                               ops_out_s8(arena, r->output));
}

static void concat_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const concat_record_t *r = (const concat_record_t *)record;
  int32_t i;
  (void)core;
  p->kind = UTVM_OP_CONCATENATION_S8;
  p->axis = r->axis;
  for (i = 0; (i < r->n_inputs) && (i < (int32_t)UTVM_OP_PARAMS_MAX_INPUTS); i++) {
    p->shapes[i] = r->shapes[i];
  }
  p->shapes[i] = r->output_shape; /* i <= UTVM_OP_PARAMS_MAX_INPUTS */
}

const utvm_op_t utvm_op_concatenation = {
    (int32_t)UTVM_MODEL_OP_CONCATENATION, 1u, UTVM_MODEL_MAX_OP_INPUTS, 10u, concat_record_size,
    NULL, concat_prepare, concat_execute, concat_export, ops_inputs_all, 0u, 0u, NULL};

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
                                                           concat_run};

static const utvm_op_emit_slot_t concatenation_s8_args[] = {{UTVM_EMIT_N_INPUTS, 0u},
    {UTVM_EMIT_INPUTS, 0u}, {UTVM_EMIT_SHAPES, 0u}, {UTVM_EMIT_AXIS, 0u},
    {UTVM_EMIT_OUTPUT_SHAPE, 0u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_concatenation_s8 = {NULL, NULL, concatenation_s8_args};

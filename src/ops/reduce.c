/* MEAN, SUM (int8, int16), REDUCE_MAX and REDUCE_MIN (int8; TFLM has no int16 for them) over
 * constant axes, keep_dims, and float32 MEAN: options, prepare, run, op params, emit. An int8
 * MEAN keeps its kernel function (utvm_k_mean_s8), a float32 one has utvm_k_mean_f32; the
 * others call utvm_k_reduce. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ops_internal.h"

/* ReducerOptions (BuiltinOptions 27). */
enum { KEEP_DIMS, N_OPTIONS };
static const ops_field_t mean_options[N_OPTIONS] = {{0u, OPS_U8, OPS_ANY, 0, "keep_dims"}};

typedef struct {
  ops_ref_t input;
  uint32_t output;
  utvm_shape_t input_shape;
  int32_t n_axes;
  int32_t axes[UTVM_KERNEL_MAX_RANK];
  utvm_reduce_params_t params;
  int32_t f32; /* 1: float32 MEAN (utvm_mean_f32) */
} mean_record_t;

static size_t mean_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(mean_record_t));
}

/* The output shape MEAN gives: reduced dimensions dropped, or kept as 1 with keep_dims. */
static bool mean_output_fits(const ops_operand_t *in, const ops_operand_t *out,
                             const bool *reduced, bool keep_dims) {
  uint32_t d;
  uint32_t o = 0u;
  bool ok = true;
  for (d = 0u; ok && (d < in->t.rank); d++) {
    if (keep_dims || !reduced[d]) {
      ok = (o < out->t.rank) && (out->t.dims[o] == (reduced[d] ? 1 : in->t.dims[d]));
      o++;
    }
  }
  return ok && (o == out->t.rank);
}

/* The axes (input 1), each within the input's rank, into the record and reduced[]. */
static utvm_err_t mean_axes(const utvm_op_context_t *c, const ops_operand_t *in,
                            mean_record_t *rec, bool *reduced) {
  ops_operand_t axes;
  uint32_t i;
  const int32_t rank = (int32_t)in->t.rank;
  utvm_err_t err = ops_load_int_constant(c, 1u, "axes", false, &axes);
  if ((err == UTVM_OK) &&
      ((axes.t.rank > 1u) || (axes.t.elements > (size_t)UTVM_KERNEL_MAX_RANK))) {
    err = ops_fail_shape(c, "axes", &axes, " is not a list of at most 6 axes");
  }
  for (i = 0u; i < (uint32_t)UTVM_KERNEL_MAX_RANK; i++) {
    rec->axes[i] = 0;
  }
  for (i = 0u; (err == UTVM_OK) && (i < axes.t.elements); i++) {
    int32_t axis = 0;
    (void)ops_read_int(&axes.t, (size_t)i, &axis); /* int32: always fits */
    if ((axis < -rank) || (axis >= rank)) {
      utvm_text_t *text = ops_begin(c);
      utvm_text_str(text, "axis ");
      utvm_text_i64(text, axis);
      utvm_text_str(text, " is outside input ");
      utvm_text_dims(text, in->t.rank, in->t.dims);
      err = UTVM_ERR_RUNNER_OPERANDS;
    } else {
      rec->axes[i] = axis;
      reduced[(axis < 0) ? (axis + rank) : axis] = true;
    }
  }
  rec->n_axes = (int32_t)axes.t.elements;
  return err;
}

static utvm_err_t mean_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  mean_record_t *rec = (mean_record_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  bool reduced[UTVM_MODEL_MAX_DIMS] = {false, false, false, false, false, false};
  int32_t keep_dims = 0;
  (void)size;
  (void)memset(&in, 0, sizeof(in));
  (void)memset(&out, 0, sizeof(out));
  bool s16 = false;
  utvm_err_t err = ops_options(c, mean_options, N_OPTIONS, &keep_dims);
  bool out_s16 = false;
  const bool f32 = (c->op->code == UTVM_MODEL_OP_MEAN) && ops_input_is_f32(c);
  rec->f32 = 0;
  if (f32) {
    rec->f32 = 1;
  }
  if ((err == UTVM_OK) && f32) {
    err = ops_load_f32_op(c, false, &in, &out);
  } else if (err == UTVM_OK) {
    err = ops_load(c, 0u, &in);
    if (err == UTVM_OK) {
      err = ops_load(c, OPS_OUTPUT, &out);
    }
    if (err == UTVM_OK) {
      err = ops_check_q8_q16(c, &in, "input", &s16);
    }
    if (err == UTVM_OK) {
      err = ops_check_q8_q16(c, &out, "output", &out_s16);
    }
  } else {
    /* the text is written */
  }
  if ((err == UTVM_OK) && (s16 != out_s16)) {
    err = ops_check_type(c, &out, "output", in.t.type);
  }
  rec->params.op = (int32_t)UTVM_REDUCE_MEAN;
  if (c->op->code == UTVM_MODEL_OP_SUM) {
    rec->params.op = (int32_t)UTVM_REDUCE_SUM;
  } else if (c->op->code == UTVM_MODEL_OP_REDUCE_MAX) {
    rec->params.op = (int32_t)UTVM_REDUCE_MAX;
  } else if (c->op->code == UTVM_MODEL_OP_REDUCE_MIN) {
    rec->params.op = (int32_t)UTVM_REDUCE_MIN;
  } else {
    /* MEAN */
  }
  const bool extreme = (rec->params.op == (int32_t)UTVM_REDUCE_MAX) ||
                       (rec->params.op == (int32_t)UTVM_REDUCE_MIN);
  if ((err == UTVM_OK) && extreme && s16) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "int16: TFLM's REDUCE_MAX and REDUCE_MIN have int8 only");
  }
  if ((err == UTVM_OK) && extreme) {
    err = ops_check_same_quant(c, &in, &out);
  }
  if (err == UTVM_OK) {
    err = mean_axes(c, &in, rec, reduced);
  }
  if ((err == UTVM_OK) && !mean_output_fits(&in, &out, reduced, keep_dims != 0)) {
    err = ops_fail_fit(c, "output", &out, "input and axes of", &in);
  }
  rec->params.element_size = 1;
  if (s16) {
    rec->params.element_size = 2;
  }
  rec->params.input_zero_point = in.t.quant.zero_point;
  rec->params.output_zero_point = out.t.quant.zero_point;
  rec->params.multiplier = 0;
  rec->params.shift = 0;
  if ((err == UTVM_OK) && !extreme && !f32) {
    err = utvm_quantize_multiplier((double)in.t.quant.scale / (double)out.t.quant.scale,
                                   &rec->params.multiplier, &rec->params.shift);
    err = (err == UTVM_OK) ? ops_check_shift(c, rec->params.shift)
                           : ops_fail_kernel(c, err, "scales");
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  rec->input_shape = ops_shape(&in.t);
  return err;
}

static utvm_err_t mean_execute(const void *record, uint8_t *arena) {
  const mean_record_t *r = (const mean_record_t *)record;
  if (r->f32 != 0) {
    return utvm_mean_f32(&r->input_shape, ops_in_f32(arena, &r->input), r->axes, r->n_axes,
                         ops_out_f32(arena, r->output));
  }
  return utvm_reduce(&r->params, &r->input_shape, ops_in(arena, &r->input), r->axes, r->n_axes,
                     &arena[r->output]);
}

static void mean_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const mean_record_t *r = (const mean_record_t *)record;
  int32_t i;
  (void)core;
  p->shapes[0] = r->input_shape;
  p->n_axes = r->n_axes;
  for (i = 0; i < UTVM_KERNEL_MAX_RANK; i++) {
    p->axes[i] = r->axes[i];
  }
  if (r->f32 != 0) {
    p->kind = UTVM_OP_MEAN_F32;
  } else if ((r->params.op == (int32_t)UTVM_REDUCE_MEAN) && (r->params.element_size == 1)) {
    p->kind = UTVM_OP_MEAN_S8;
    p->p.mean.input_zero_point = r->params.input_zero_point;
    p->p.mean.output_zero_point = r->params.output_zero_point;
    p->p.mean.multiplier = r->params.multiplier;
    p->p.mean.shift = r->params.shift;
  } else {
    p->kind = UTVM_OP_REDUCE;
    p->p.reduce = r->params;
  }
}

/* ReducerOptions (BuiltinOptions 27) for all four. */
const utvm_op_t utvm_op_mean = {(int32_t)UTVM_MODEL_OP_MEAN, 2u, 2u, 27u, mean_record_size, NULL,
                                mean_prepare, mean_execute, mean_export, ops_inputs_1,
                                0u, 0u, NULL, NULL, NULL, NULL, NULL};

const utvm_op_t utvm_op_sum = {(int32_t)UTVM_MODEL_OP_SUM, 2u, 2u, 27u, mean_record_size, NULL,
                               mean_prepare, mean_execute, mean_export, ops_inputs_1,
                               0u, 0u, NULL, NULL, NULL, NULL, NULL};

const utvm_op_t utvm_op_reduce_max = {(int32_t)UTVM_MODEL_OP_REDUCE_MAX, 2u, 2u, 27u,
                                      mean_record_size, NULL, mean_prepare, mean_execute,
                                      mean_export, ops_inputs_1, 0u, 0u, NULL, NULL, NULL,
                                      NULL, NULL};

const utvm_op_t utvm_op_reduce_min = {(int32_t)UTVM_MODEL_OP_REDUCE_MIN, 2u, 2u, 27u,
                                      mean_record_size, NULL, mean_prepare, mean_execute,
                                      mean_export, ops_inputs_1, 0u, 0u, NULL, NULL, NULL,
                                      NULL, NULL};

/* ---- The kernel function utvm_k_mean_s8 ---- */

typedef char mean_check_params[(sizeof(utvm_mean_params_t) == 16u) ? 1 : -1];

static void mean_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, &p->shapes[0], sizeof(p->shapes[0]));
  ops_walk_i32(w, &p->n_axes);
  ops_walk_block(w, p->axes, sizeof(p->axes));
  ops_walk_block(w, &p->p.mean, sizeof(p->p.mean));
}

/* The input shape and axes of a reduction kind, operands of type. */
static const char *reduce_check_as(utvm_op_params_t *p, utvm_op_type_t type) {
  bool reduced[UTVM_KERNEL_MAX_RANK] = {false, false, false, false, false, false};
  uint64_t e = 0u;
  uint64_t out = 1u;
  int32_t i;
  const int32_t rank = p->shapes[0].rank;
  const char *why = ops_check_n_inputs(p, 1u);
  if (why != NULL) {
    return why;
  }
  if (!ops_shape_elements(&p->shapes[0], &e)) {
    return "the input shape is invalid or too large";
  }
  if ((p->n_axes < 0) || (p->n_axes > UTVM_KERNEL_MAX_RANK)) {
    return "axis count out of range";
  }
  for (i = 0; i < UTVM_KERNEL_MAX_RANK; i++) {
    const int32_t a = p->axes[i];
    if (i >= p->n_axes) {
      if (a != 0) {
        return "an unused axis is not 0";
      }
    } else if ((a < -rank) || (a >= rank)) {
      return "an axis is outside the input's rank";
    } else {
      reduced[(a < 0) ? (a + rank) : a] = true;
    }
  }
  for (i = 0; i < rank; i++) {
    out *= reduced[i] ? 1u : (uint64_t)p->shapes[0].dims[i];
  }
  return (ops_set_operand(p, 0u, type, e) && ops_set_operand(p, 1u, type, out))
             ? NULL
             : "a tensor is too large";
}

static const char *mean_check(utvm_op_params_t *p) {
  return reduce_check_as(p, UTVM_OP_TYPE_INT8);
}

static utvm_err_t mean_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_mean_s8(&p->p.mean, &p->shapes[0], (const int8_t *)data[0], p->axes, p->n_axes,
                      (int8_t *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_mean_s8 = {mean_walk, mean_check, NULL, mean_run,
                                                  UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t mean_s8_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_SHAPE, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_AXES, 0u}, {UTVM_EMIT_N_AXES, 0u}, {UTVM_EMIT_OUTPUT, 0u},
    {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_mean_s8 = {"utvm_mean_params_t",
    "input_zero_point output_zero_point multiplier shift", mean_s8_args, NULL};

/* ---- The kernel function utvm_k_reduce ---- */

typedef char reduce_check_params[(sizeof(utvm_reduce_params_t) == 24u) ? 1 : -1];

static void reduce_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, &p->shapes[0], sizeof(p->shapes[0]));
  ops_walk_i32(w, &p->n_axes);
  ops_walk_block(w, p->axes, sizeof(p->axes));
  ops_walk_block(w, &p->p.reduce, sizeof(p->p.reduce));
}

static const char *reduce_check(utvm_op_params_t *p) {
  const int32_t size = p->p.reduce.element_size;
  if ((size != 1) && (size != 2)) {
    return "element size is not 1 or 2";
  }
  return reduce_check_as(p, (size == 2) ? UTVM_OP_TYPE_INT16 : UTVM_OP_TYPE_INT8);
}

static utvm_err_t reduce_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_reduce(&p->p.reduce, &p->shapes[0], data[0], p->axes, p->n_axes, data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_reduce = {reduce_walk, reduce_check, NULL, reduce_run,
                                                 UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t reduce_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_SHAPE, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_AXES, 0u}, {UTVM_EMIT_N_AXES, 0u}, {UTVM_EMIT_OUTPUT, 0u},
    {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_reduce = {"utvm_reduce_params_t",
    "op element_size input_zero_point output_zero_point multiplier shift", reduce_args, NULL};

/* ---- The kernel function utvm_k_mean_f32 ---- */

static void mean_f32_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, &p->shapes[0], sizeof(p->shapes[0]));
  ops_walk_i32(w, &p->n_axes);
  ops_walk_block(w, p->axes, sizeof(p->axes));
}

static const char *mean_f32_check(utvm_op_params_t *p) {
  return reduce_check_as(p, UTVM_OP_TYPE_FLOAT32);
}

static utvm_err_t mean_f32_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_mean_f32(&p->shapes[0], (const float *)data[0], p->axes, p->n_axes,
                       (float *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_mean_f32 = {mean_f32_walk, mean_f32_check, NULL,
                                                   mean_f32_run, UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t mean_f32_args[] = {{UTVM_EMIT_SHAPE, 0u}, {UTVM_EMIT_INPUT, 0u},
    {UTVM_EMIT_AXES, 0u}, {UTVM_EMIT_N_AXES, 0u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_mean_f32 = {NULL, NULL, mean_f32_args, NULL};

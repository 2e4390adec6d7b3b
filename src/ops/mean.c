/* MEAN (int8, constant axes, keep_dims): options, prepare, run, op params, emit. */
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
  utvm_mean_params_t params;
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
  utvm_err_t err = ops_options(c, mean_options, N_OPTIONS, &keep_dims);
  if (err == UTVM_OK) {
    err = ops_load_q8(c, &in, &out);
  }
  if (err == UTVM_OK) {
    err = mean_axes(c, &in, rec, reduced);
  }
  if ((err == UTVM_OK) && !mean_output_fits(&in, &out, reduced, keep_dims != 0)) {
    err = ops_fail_fit(c, "output", &out, "input and axes of", &in);
  }
  if (err == UTVM_OK) {
    err = utvm_mean_params_s8(in.t.quant.scale, in.t.quant.zero_point, out.t.quant.scale,
                              out.t.quant.zero_point, &rec->params);
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
  return utvm_mean_s8(&r->params, &r->input_shape, ops_in_s8(arena, &r->input), r->axes,
                      r->n_axes, ops_out_s8(arena, r->output));
}

static void mean_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const mean_record_t *r = (const mean_record_t *)record;
  int32_t i;
  (void)core;
  p->kind = UTVM_OP_MEAN_S8;
  p->shapes[0] = r->input_shape;
  p->n_axes = r->n_axes;
  for (i = 0; i < UTVM_KERNEL_MAX_RANK; i++) {
    p->axes[i] = r->axes[i];
  }
  p->p.mean = r->params;
}

const utvm_op_t utvm_op_mean = {(int32_t)UTVM_MODEL_OP_MEAN, 2u, 2u, 27u, mean_record_size, NULL,
                                mean_prepare, mean_execute, mean_export, ops_inputs_1, 0u, 0u, NULL};

/* ---- The kernel function utvm_k_mean_s8 ---- */

typedef char mean_check_params[(sizeof(utvm_mean_params_t) == 16u) ? 1 : -1];

static void mean_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, &p->shapes[0], sizeof(p->shapes[0]));
  ops_walk_i32(w, &p->n_axes);
  ops_walk_block(w, p->axes, sizeof(p->axes));
  ops_walk_block(w, &p->p.mean, sizeof(p->p.mean));
}

static const char *mean_check(utvm_op_params_t *p) {
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
  (void)ops_set_operand(p, 0u, UTVM_OP_TYPE_INT8, e);
  (void)ops_set_operand(p, 1u, UTVM_OP_TYPE_INT8, out);
  return NULL;
}

static utvm_err_t mean_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_mean_s8(&p->p.mean, &p->shapes[0], (const int8_t *)data[0], p->axes, p->n_axes,
                      (int8_t *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_mean_s8 = {mean_walk, mean_check, NULL, mean_run};

static const utvm_op_emit_slot_t mean_s8_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_SHAPE, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_AXES, 0u}, {UTVM_EMIT_N_AXES, 0u}, {UTVM_EMIT_OUTPUT, 0u},
    {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_mean_s8 = {"utvm_mean_params_t",
    "input_zero_point output_zero_point multiplier shift", mean_s8_args};

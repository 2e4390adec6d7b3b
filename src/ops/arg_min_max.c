/* ARG_MAX and ARG_MIN (int8 input, constant int32 axis, int32 output: TFLM's types): options,
 * prepare, run, op params, emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ops_internal.h"

/* ArgMaxOptions (40), ArgMinOptions (57): output_type. */
enum { OUTPUT_TYPE, N_OPTIONS };
static const ops_field_t arg_options[N_OPTIONS] = {{0u, OPS_I8, OPS_ANY, 0, "output_type"}};

typedef struct {
  ops_ref_t input;
  uint32_t output;
  utvm_arg_min_max_params_t params;
} arg_record_t;

static size_t arg_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(arg_record_t));
}

/* The output: the input's dimensions without the axis, int32. */
static utvm_err_t arg_output(const utvm_op_context_t *c, const ops_operand_t *in, uint32_t axis,
                             const ops_operand_t *out) {
  uint32_t d;
  bool fits = (out->t.rank + 1u) == in->t.rank;
  utvm_err_t err = ops_check_type(c, out, "output", UTVM_MODEL_INT32);
  for (d = 0u; fits && (d < in->t.rank); d++) {
    if (d != axis) {
      fits = out->t.dims[(d < axis) ? d : (d - 1u)] == in->t.dims[d];
    }
  }
  if ((err == UTVM_OK) && !fits) {
    err = ops_fail_fit(c, "output", out, "input", in);
  }
  return err;
}

static utvm_err_t arg_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  arg_record_t *rec = (arg_record_t *)record;
  ops_operand_t in;
  ops_operand_t axis_t;
  ops_operand_t out;
  int32_t o[N_OPTIONS];
  int32_t axis_value = 0;
  int32_t axis = 0;
  uint32_t d;
  (void)size;
  (void)memset(&in, 0, sizeof(in));
  utvm_err_t err = ops_options(c, arg_options, N_OPTIONS, o);
  if ((err == UTVM_OK) && (o[OUTPUT_TYPE] != (int32_t)UTVM_MODEL_INT32)) {
    err = ops_fail_option(c, "output_type ", o[OUTPUT_TYPE],
                          " is not INT32 (TFLM's kernel writes int32 only)");
  }
  if (err == UTVM_OK) {
    err = ops_load(c, 0u, &in);
  }
  if (err == UTVM_OK) {
    err = ops_check_q8(c, &in, "input");
  }
  if ((err == UTVM_OK) && (in.t.rank < 1u)) {
    err = ops_fail_shape(c, "input", &in, " is a scalar");
  }
  if (err == UTVM_OK) {
    err = ops_load_int_constant(c, 1u, "axis", false, &axis_t);
  }
  if ((err == UTVM_OK) && (axis_t.t.elements != 1u)) {
    err = ops_fail_shape(c, "axis", &axis_t, " is not one value");
  }
  if (err == UTVM_OK) {
    (void)ops_read_int(&axis_t.t, 0u, &axis_value);
    err = ops_option_axis(c, axis_value, in.t.rank, &axis);
  }
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, &out);
  }
  if (err == UTVM_OK) {
    err = arg_output(c, &in, (uint32_t)axis, &out);
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  rec->params.outer = 1;
  rec->params.inner = 1;
  rec->params.axis_size = 1;
  for (d = 0u; (err == UTVM_OK) && (d < in.t.rank); d++) {
    if (d < (uint32_t)axis) {
      rec->params.outer *= in.t.dims[d];
    } else if (d > (uint32_t)axis) {
      rec->params.inner *= in.t.dims[d];
    } else {
      rec->params.axis_size = in.t.dims[d];
    }
  }
  rec->params.is_max = 0;
  if (c->op->code == UTVM_MODEL_OP_ARG_MAX) {
    rec->params.is_max = 1;
  }
  return err;
}

static utvm_err_t arg_execute(const void *record, uint8_t *arena) {
  const arg_record_t *r = (const arg_record_t *)record;
  void *out = &arena[r->output];
  return utvm_arg_min_max_s8(&r->params, ops_in_s8(arena, &r->input), (int32_t *)out);
}

static void arg_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const arg_record_t *r = (const arg_record_t *)record;
  (void)core;
  p->kind = UTVM_OP_ARG_MIN_MAX_S8;
  p->p.arg = r->params;
}

const utvm_op_t utvm_op_arg_max = {(int32_t)UTVM_MODEL_OP_ARG_MAX, 2u, 2u, 40u, arg_record_size,
                                   NULL, arg_prepare, arg_execute, arg_export, ops_inputs_1, 0u,
                                   0u, NULL, NULL, NULL, NULL, NULL};

const utvm_op_t utvm_op_arg_min = {(int32_t)UTVM_MODEL_OP_ARG_MIN, 2u, 2u, 57u, arg_record_size,
                                   NULL, arg_prepare, arg_execute, arg_export, ops_inputs_1, 0u,
                                   0u, NULL, NULL, NULL, NULL, NULL};

/* ---- The kernel function utvm_k_arg_min_max_s8 ---- */

typedef char arg_check_params[(sizeof(utvm_arg_min_max_params_t) == 16u) ? 1 : -1];

static void arg_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, &p->p.arg, sizeof(p->p.arg));
}

static const char *arg_check(utvm_op_params_t *p) {
  const utvm_arg_min_max_params_t *a = &p->p.arg;
  const char *why = ops_check_n_inputs(p, 1u);
  if ((why == NULL) && ((a->outer < 1) || (a->axis_size < 1) || (a->inner < 1) ||
                        ((a->is_max != 0) && (a->is_max != 1)))) {
    why = "a size is < 1 or is_max is not 0 or 1";
  }
  if (why == NULL) {
    const uint64_t outputs = (uint64_t)a->outer * (uint64_t)a->inner;
    const uint64_t inputs = outputs * (uint64_t)a->axis_size;
    if (!ops_set_operand(p, 0u, UTVM_OP_TYPE_INT8, inputs) ||
        !ops_set_operand(p, 1u, UTVM_OP_TYPE_INT32, outputs)) {
      why = "a tensor is too large";
    }
  }
  return why;
}

static utvm_err_t arg_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_arg_min_max_s8(&p->p.arg, (const int8_t *)data[0], (int32_t *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_arg_min_max_s8 = {arg_walk, arg_check, NULL, arg_run,
                                                         UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t arg_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_INPUT, 0u},
    {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_arg_min_max_s8 = {"utvm_arg_min_max_params_t",
    "outer axis_size inner is_max", arg_args, NULL};

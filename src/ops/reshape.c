/* RESHAPE, SQUEEZE and EXPAND_DIMS (any type): the bytes do not change, only the shape (the
 * planner makes the output a view of the input, so nothing is copied). Options, prepare, run,
 * op params, emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ops_internal.h"

typedef struct {
  ops_ref_t input;
  uint32_t output;
  uint32_t bytes;
} reshape_record_t;

static size_t reshape_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(reshape_record_t));
}

/* ReshapeOptions (BuiltinOptions 17): new_shape, at most one -1. The output tensor's shape
 * is what runs; a stored new_shape is only checked for sense. */
static utvm_err_t reshape_options(const utvm_op_context_t *c) {
  int32_t shape[UTVM_MODEL_MAX_DIMS];
  uint32_t rank = 0u;
  uint32_t i;
  uint32_t unknown = 0u;
  utvm_err_t err = ops_option_list(c, 0u, "new_shape", shape, UTVM_MODEL_MAX_DIMS, &rank);
  for (i = 0u; (err == UTVM_OK) && (i < rank); i++) {
    if (shape[i] < -1) {
      err = ops_fail_option(c, "new_shape dimension ", shape[i], " below -1");
    }
    unknown += (shape[i] == -1) ? 1u : 0u;
  }
  if ((err == UTVM_OK) && (unknown > 1u)) {
    err = ops_fail_option(c, "new_shape has more than one -1", 0, "");
  }
  return err;
}

/* SqueezeOptions (BuiltinOptions 30): squeeze_dims, each within the input's rank. */
static utvm_err_t squeeze_options(const utvm_op_context_t *c, const ops_operand_t *in) {
  int32_t dims[UTVM_MODEL_MAX_DIMS];
  uint32_t count = 0u;
  uint32_t i;
  int32_t axis = 0;
  utvm_err_t err = ops_option_list(c, 0u, "squeeze_dims", dims, UTVM_MODEL_MAX_DIMS, &count);
  for (i = 0u; (err == UTVM_OK) && (i < count); i++) {
    err = ops_option_axis(c, dims[i], in->t.rank, &axis);
  }
  return err;
}

/* EXPAND_DIMS's axis (input 1): one constant int32 or int64 in -(rank+1)..rank; the output
 * is the input with a dimension of 1 inserted there. */
static utvm_err_t expand_dims_axis(const utvm_op_context_t *c, const ops_operand_t *in) {
  ops_operand_t a;
  ops_operand_t out;
  int32_t axis = 0;
  int32_t at = 0;
  uint32_t d;
  (void)memset(&out, 0, sizeof(out));
  utvm_err_t err = ops_load_int_constant(c, 1u, "axis", true, &a);
  if ((err == UTVM_OK) && ((a.t.elements != 1u) || !ops_read_int(&a.t, 0u, &axis))) {
    err = ops_fail_shape(c, "axis", &a, " is not one value");
  }
  if (err == UTVM_OK) {
    err = ops_option_axis(c, axis, in->t.rank + 1u, &at);
  }
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, &out);
  }
  if ((err == UTVM_OK) && (out.t.rank != (in->t.rank + 1u))) {
    err = ops_fail_fit(c, "output", &out, "the expanded input", in);
  }
  for (d = 0u; (err == UTVM_OK) && (d < out.t.rank); d++) {
    int32_t want = 1;
    if (d != (uint32_t)at) {
      want = in->t.dims[(d < (uint32_t)at) ? d : (d - 1u)];
    }
    if (out.t.dims[d] != want) {
      err = ops_fail_fit(c, "output", &out, "the expanded input", in);
    }
  }
  return err;
}

static utvm_err_t reshape_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  reshape_record_t *rec = (reshape_record_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  (void)size;
  utvm_err_t err = ops_load(c, 0u, &in);
  if (err == UTVM_OK) {
    if (c->op->code == UTVM_MODEL_OP_SQUEEZE) {
      err = squeeze_options(c, &in);
    } else if (c->op->code == UTVM_MODEL_OP_EXPAND_DIMS) {
      err = expand_dims_axis(c, &in);
    } else {
      err = reshape_options(c);
    }
  }
  if (err == UTVM_OK) {
    err = ops_load_unary(c, false, &in, &out);
  }
  if ((err == UTVM_OK) && (in.t.type != out.t.type)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_OPERANDS, "input and output types differ");
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  rec->bytes = (uint32_t)in.t.bytes; /* at most UTVM_MODEL_MAX_TENSOR_BYTES */
  return err;
}

static utvm_err_t reshape_execute(const void *record, uint8_t *arena) {
  const reshape_record_t *r = (const reshape_record_t *)record;
  return utvm_reshape(ops_in(arena, &r->input), &arena[r->output], r->bytes);
}

static void reshape_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const reshape_record_t *r = (const reshape_record_t *)record;
  (void)core;
  p->kind = UTVM_OP_RESHAPE;
  p->bytes = r->bytes;
}

/* RESHAPE's second input (the shape as a tensor) is optional. */
const utvm_op_t utvm_op_reshape = {(int32_t)UTVM_MODEL_OP_RESHAPE, 1u, 2u, 17u,
                                   reshape_record_size, NULL, reshape_prepare, reshape_execute,
                                   reshape_export, ops_inputs_1, 0u, 0u, NULL, NULL, NULL,
                                   NULL, NULL};

const utvm_op_t utvm_op_squeeze = {(int32_t)UTVM_MODEL_OP_SQUEEZE, 1u, 1u, 30u,
                                   reshape_record_size, NULL, reshape_prepare, reshape_execute,
                                   reshape_export, ops_inputs_1, 0u, 0u, NULL, NULL, NULL,
                                   NULL, NULL};

/* ExpandDimsOptions (BuiltinOptions 52) has no fields. */
const utvm_op_t utvm_op_expand_dims = {(int32_t)UTVM_MODEL_OP_EXPAND_DIMS, 2u, 2u, 52u,
                                       reshape_record_size, NULL, reshape_prepare,
                                       reshape_execute, reshape_export, ops_inputs_1,
                                       0u, 0u, NULL, NULL, NULL, NULL, NULL};

/* ---- The kernel function utvm_k_reshape ---- */

static void reshape_walk(utvm_op_walk_t *w, utvm_op_params_t *p) { ops_walk_u32(w, &p->bytes); }

static const char *reshape_check(utvm_op_params_t *p) {
  const char *why = ops_check_n_inputs(p, 1u);
  if ((why == NULL) && !ops_set_operand(p, 0u, UTVM_OP_TYPE_ANY, (uint64_t)p->bytes)) {
    why = "byte count out of range";
  }
  p->operands[1] = p->operands[0];
  return why;
}

static utvm_err_t reshape_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_reshape(data[0], data[1], (size_t)p->bytes);
}

/* ALIAS: utvm_reshape skips the copy when input and output are the same bytes. */
const utvm_op_kind_info_t utvm_op_kind_reshape = {reshape_walk, reshape_check, NULL, reshape_run,
                                                  UTVM_PLAN_STEP_ALIAS, NULL};

static const utvm_op_emit_slot_t reshape_args[] = {{UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u},
    {UTVM_EMIT_BYTES, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_reshape = {NULL, NULL, reshape_args, NULL};

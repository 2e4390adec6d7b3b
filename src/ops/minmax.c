/* MINIMUM and MAXIMUM (int8 and int16, broadcasting up to 6-D): raw values compared, so inputs
 * and output must share one quantization (TFLM does not rescale). Prepare, run, op params,
 * emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

typedef struct {
  ops_binary_t b;
  utvm_minmax_params_t params;
} minmax_record_t;

static size_t minmax_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(minmax_record_t));
}

static utvm_err_t minmax_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  minmax_record_t *rec = (minmax_record_t *)record;
  ops_operand_t a;
  ops_operand_t b;
  ops_operand_t out;
  bool int16 = false;
  (void)size;
  utvm_err_t err = ops_prepare_binary_q(c, &rec->b, &a, &b, &out, &int16);
  if ((err == UTVM_OK) && (!ops_same_quant(&a, &out) || !ops_same_quant(&b, &out))) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "inputs and output scales or zero points differ (TFLM compares raw values)");
  }
  rec->params.maximum = 0;
  if (c->op->code == UTVM_MODEL_OP_MAXIMUM) {
    rec->params.maximum = 1;
  }
  rec->params.element_bytes = 1;
  if (int16) {
    rec->params.element_bytes = 2;
  }
  return err;
}

static utvm_err_t minmax_execute(const void *record, uint8_t *arena) {
  const minmax_record_t *r = (const minmax_record_t *)record;
  return utvm_minmax(&r->params, &r->b.shapes[0], ops_in(arena, &r->b.input1), &r->b.shapes[1],
                     ops_in(arena, &r->b.input2), &r->b.shapes[2], &arena[r->b.output]);
}

static void minmax_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const minmax_record_t *r = (const minmax_record_t *)record;
  (void)core;
  p->kind = UTVM_OP_MINMAX;
  p->shapes[0] = r->b.shapes[0];
  p->shapes[1] = r->b.shapes[1];
  p->shapes[2] = r->b.shapes[2];
  p->p.minmax = r->params;
}

/* MaximumMinimumOptions (BuiltinOptions 39) has no fields. */
const utvm_op_t utvm_op_minimum = {(int32_t)UTVM_MODEL_OP_MINIMUM, 2u, 2u, 39u,
                                   minmax_record_size, NULL, minmax_prepare, minmax_execute,
                                   minmax_export, ops_inputs_2, 0u, 0u, NULL, NULL, NULL,
                                   NULL, NULL};
const utvm_op_t utvm_op_maximum = {(int32_t)UTVM_MODEL_OP_MAXIMUM, 2u, 2u, 39u,
                                   minmax_record_size, NULL, minmax_prepare, minmax_execute,
                                   minmax_export, ops_inputs_2, 0u, 0u, NULL, NULL, NULL,
                                   NULL, NULL};

/* ---- The kernel function utvm_k_minmax ---- */

typedef char minmax_check_params[(sizeof(utvm_minmax_params_t) == 8u) ? 1 : -1];

static void minmax_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, p->shapes, 3u * sizeof(p->shapes[0]));
  ops_walk_block(w, &p->p.minmax, sizeof(p->p.minmax));
}

static const char *minmax_check(utvm_op_params_t *p) {
  const char *why = NULL;
  if ((p->p.minmax.maximum != 0) && (p->p.minmax.maximum != 1)) {
    why = "maximum is not 0 or 1";
  } else if (p->p.minmax.element_bytes == 1) {
    why = ops_check_binary_as(p, UTVM_OP_TYPE_INT8);
  } else if (p->p.minmax.element_bytes == 2) {
    why = ops_check_binary_as(p, UTVM_OP_TYPE_INT16);
  } else {
    why = "element_bytes is not 1 or 2";
  }
  return why;
}

static utvm_err_t minmax_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_minmax(&p->p.minmax, &p->shapes[0], data[0], &p->shapes[1], data[1],
                     &p->shapes[2], data[2]);
}

const utvm_op_kind_info_t utvm_op_kind_minmax = {minmax_walk, minmax_check, NULL, minmax_run,
                                                 UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t minmax_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_SHAPE, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_SHAPE, 1u}, {UTVM_EMIT_INPUT, 1u}, {UTVM_EMIT_SHAPE, 2u},
    {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};
const utvm_op_emit_t utvm_op_emit_minmax = {"utvm_minmax_params_t", "maximum element_bytes",
                                            minmax_args, NULL};

/* DIV (int8, broadcasting up to 6-D; TFLM has no int16 DIV): options, prepare, run, op params,
 * emit. TFLM's CalculateOpDataDiv and reference DivElementwise (kind DIV_S8). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* DivOptions (BuiltinOptions 29): the fused activation. */
static const ops_field_t div_options[1] = {
    {0u, OPS_U8, OPS_ACTIVATION, 0, "fused_activation_function"}};

typedef struct {
  ops_binary_t b;
  utvm_div_params_t params;
} div_record_t;

static size_t div_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(div_record_t));
}

static utvm_err_t div_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  div_record_t *rec = (div_record_t *)record;
  ops_operand_t a;
  ops_operand_t b;
  ops_operand_t out;
  int32_t activation = 0;
  bool int16 = false;
  (void)size;
  utvm_err_t err = ops_options(c, div_options, 1u, &activation);
  if (err == UTVM_OK) {
    err = ops_prepare_binary_q(c, &rec->b, &a, &b, &out, &int16);
  }
  if ((err == UTVM_OK) && int16) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "input is int16: TFLM's reference kernel has int8 only");
  }
  if (err == UTVM_OK) {
    err = utvm_div_params_s8(a.t.quant.scale, a.t.quant.zero_point, b.t.quant.scale,
                             b.t.quant.zero_point, out.t.quant.scale, out.t.quant.zero_point,
                             activation, &rec->params);
    err = (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "quantization");
  }
  return err;
}

static utvm_err_t div_execute(const void *record, uint8_t *arena) {
  const div_record_t *r = (const div_record_t *)record;
  return utvm_div_s8(&r->params, &r->b.shapes[0], ops_in_s8(arena, &r->b.input1),
                     &r->b.shapes[1], ops_in_s8(arena, &r->b.input2), &r->b.shapes[2],
                     ops_out_s8(arena, r->b.output));
}

static void div_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const div_record_t *r = (const div_record_t *)record;
  (void)core;
  p->kind = UTVM_OP_DIV_S8;
  p->shapes[0] = r->b.shapes[0];
  p->shapes[1] = r->b.shapes[1];
  p->shapes[2] = r->b.shapes[2];
  p->p.div = r->params;
}

const utvm_op_t utvm_op_div = {(int32_t)UTVM_MODEL_OP_DIV, 2u, 2u, 29u, div_record_size, NULL,
                               div_prepare, div_execute, div_export, ops_inputs_2,
                               0u, 0u, NULL, NULL, NULL, NULL, NULL};

/* ---- The kernel function utvm_k_div_s8 ---- */

typedef char div_check_params[(sizeof(utvm_div_params_t) == 28u) ? 1 : -1];

static void div_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, p->shapes, 3u * sizeof(p->shapes[0]));
  ops_walk_block(w, &p->p.div, sizeof(p->p.div));
}

static const char *div_check(utvm_op_params_t *p) {
  return ops_check_binary_as(p, UTVM_OP_TYPE_INT8);
}

static utvm_err_t div_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_div_s8(&p->p.div, &p->shapes[0], (const int8_t *)data[0], &p->shapes[1],
                     (const int8_t *)data[1], &p->shapes[2], (int8_t *)data[2]);
}

const utvm_op_kind_info_t utvm_op_kind_div_s8 = {div_walk, div_check, NULL, div_run,
                                                 UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t div_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_SHAPE, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_SHAPE, 1u}, {UTVM_EMIT_INPUT, 1u}, {UTVM_EMIT_SHAPE, 2u},
    {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};
const utvm_op_emit_t utvm_op_emit_div_s8 = {"utvm_div_params_t",
    "input1_offset input2_offset output_offset multiplier shift act_min act_max", div_args, NULL};

/* SQUARED_DIFFERENCE (int8 and int16, broadcasting up to 6-D): prepare, run, op params, emit.
 * TFLM's arithmetic (squared_difference.cc) in ADD's parameter struct. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

typedef struct {
  ops_binary_t b;
  utvm_add_params_t params;
  int32_t int16; /* 1: SQUARED_DIFFERENCE_S16 */
} squared_difference_record_t;

static size_t squared_difference_record_size(const utvm_model_t *m,
                                              const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(squared_difference_record_t));
}

static utvm_err_t squared_difference_prepare(const utvm_op_context_t *c, void *record,
                                             size_t size) {
  squared_difference_record_t *rec = (squared_difference_record_t *)record;
  ops_operand_t a;
  ops_operand_t b;
  ops_operand_t out;
  bool int16 = false;
  (void)size;
  utvm_err_t err = ops_prepare_binary_q(c, &rec->b, &a, &b, &out, &int16);
  rec->int16 = 0;
  if (int16) {
    rec->int16 = 1;
  }
  if (err == UTVM_OK) {
    err = utvm_squared_difference_params(a.t.quant.scale, a.t.quant.zero_point, b.t.quant.scale,
                                         b.t.quant.zero_point, out.t.quant.scale,
                                         out.t.quant.zero_point, rec->int16, &rec->params);
    err = (err == UTVM_OK) ? ops_check_shift(c, rec->params.output_shift)
                           : ops_fail_kernel(c, err, "quantization");
  }
  return err;
}

static utvm_err_t squared_difference_execute(const void *record, uint8_t *arena) {
  const squared_difference_record_t *r = (const squared_difference_record_t *)record;
  if (r->int16 != 0) {
    const void *in1 = ops_in(arena, &r->b.input1);
    const void *in2 = ops_in(arena, &r->b.input2);
    void *out = &arena[r->b.output];
    return utvm_squared_difference_s16(&r->params, &r->b.shapes[0], (const int16_t *)in1,
                                       &r->b.shapes[1], (const int16_t *)in2, &r->b.shapes[2],
                                       (int16_t *)out);
  }
  return utvm_squared_difference_s8(&r->params, &r->b.shapes[0], ops_in_s8(arena, &r->b.input1),
                                    &r->b.shapes[1], ops_in_s8(arena, &r->b.input2),
                                    &r->b.shapes[2], ops_out_s8(arena, r->b.output));
}

static void squared_difference_export(const void *record, utvm_kernels_core_t core,
                                      utvm_op_params_t *p) {
  const squared_difference_record_t *r = (const squared_difference_record_t *)record;
  (void)core;
  p->kind = (r->int16 != 0) ? UTVM_OP_SQUARED_DIFFERENCE_S16 : UTVM_OP_SQUARED_DIFFERENCE_S8;
  p->shapes[0] = r->b.shapes[0];
  p->shapes[1] = r->b.shapes[1];
  p->shapes[2] = r->b.shapes[2];
  p->p.add = r->params;
}

/* SquaredDifferenceOptions (BuiltinOptions 76) has no fields. */
const utvm_op_t utvm_op_squared_difference = {(int32_t)UTVM_MODEL_OP_SQUARED_DIFFERENCE, 2u, 2u,
                                              76u, squared_difference_record_size, NULL,
                                              squared_difference_prepare,
                                              squared_difference_execute,
                                              squared_difference_export, ops_inputs_2, 0u, 0u,
                                              NULL, NULL, NULL, NULL, NULL};

/* ---- The kernel functions utvm_k_squared_difference_s8 and _s16 (SUB's body) ---- */

static void squared_difference_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, p->shapes, 3u * sizeof(p->shapes[0]));
  ops_walk_block(w, &p->p.add, sizeof(p->p.add));
}

static const char *squared_difference_s8_check(utvm_op_params_t *p) {
  return ops_check_binary_as(p, UTVM_OP_TYPE_INT8);
}

static const char *squared_difference_s16_check(utvm_op_params_t *p) {
  return ops_check_binary_as(p, UTVM_OP_TYPE_INT16);
}

static utvm_err_t squared_difference_s8_run(const utvm_op_params_t *p, void *const *data,
                                            void *scratch) {
  (void)scratch;
  return utvm_squared_difference_s8(&p->p.add, &p->shapes[0], (const int8_t *)data[0],
                                    &p->shapes[1], (const int8_t *)data[1], &p->shapes[2],
                                    (int8_t *)data[2]);
}

static utvm_err_t squared_difference_s16_run(const utvm_op_params_t *p, void *const *data,
                                             void *scratch) {
  (void)scratch;
  return utvm_squared_difference_s16(&p->p.add, &p->shapes[0], (const int16_t *)data[0],
                                     &p->shapes[1], (const int16_t *)data[1], &p->shapes[2],
                                     (int16_t *)data[2]);
}

const utvm_op_kind_info_t utvm_op_kind_squared_difference_s8 = {
    squared_difference_walk, squared_difference_s8_check, NULL, squared_difference_s8_run,
    UTVM_PLAN_STEP_DEFAULT, NULL};
const utvm_op_kind_info_t utvm_op_kind_squared_difference_s16 = {
    squared_difference_walk, squared_difference_s16_check, NULL, squared_difference_s16_run,
    UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t squared_difference_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_SHAPE, 0u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_SHAPE, 1u}, {UTVM_EMIT_INPUT, 1u},
    {UTVM_EMIT_SHAPE, 2u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_squared_difference_s8 = {"utvm_add_params_t",
    "input1_offset input2_offset output_offset left_shift input1_multiplier input1_shift "
    "input2_multiplier input2_shift output_multiplier output_shift act_min act_max",
    squared_difference_args, NULL};
const utvm_op_emit_t utvm_op_emit_squared_difference_s16 = {"utvm_add_params_t",
    "input1_offset input2_offset output_offset left_shift input1_multiplier input1_shift "
    "input2_multiplier input2_shift output_multiplier output_shift act_min act_max",
    squared_difference_args, NULL};

/* SUB (int8, int16 and float32, broadcasting up to 6-D): options, prepare, run, op params,
 * emit. ADD's arithmetic with the second input subtracted; TFLM computes SUB's ratios in
 * float. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* SubOptions (BuiltinOptions 28): the fused activation (pot_scale_int16 is TFLite's, TFLM
 * ignores it). */
static const ops_field_t sub_options[1] = {
    {0u, OPS_U8, OPS_ACTIVATION, 0, "fused_activation_function"}};

typedef struct {
  ops_binary_t b;
  utvm_add_params_t params;
  int32_t int16; /* 1: SUB_S16 */
  int32_t f32;   /* 1: SUB_F32, params_f32 */
  utvm_activation_f32_t params_f32;
} sub_record_t;

static size_t sub_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(sub_record_t));
}

static utvm_err_t sub_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  sub_record_t *rec = (sub_record_t *)record;
  ops_operand_t a;
  ops_operand_t b;
  ops_operand_t out;
  int32_t activation = 0;
  bool int16 = false;
  (void)size;
  const bool f32 = ops_input_is_f32(c);
  utvm_err_t err = ops_options(c, sub_options, 1u, &activation);
  if ((err == UTVM_OK) && f32) {
    err = ops_prepare_binary_f32(c, &rec->b, activation, &rec->params_f32);
  } else if (err == UTVM_OK) {
    err = ops_prepare_binary_q(c, &rec->b, &a, &b, &out, &int16);
  } else {
    /* the text is written */
  }
  if ((err == UTVM_OK) && !f32) {
    err = utvm_sub_params(a.t.quant.scale, a.t.quant.zero_point, b.t.quant.scale,
                          b.t.quant.zero_point, out.t.quant.scale, out.t.quant.zero_point,
                          activation, int16 ? 15 : 20, &rec->params);
    err = (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "quantization");
  }
  rec->f32 = 0;
  if (f32) {
    rec->f32 = 1;
  }
  rec->int16 = 0;
  if (int16) {
    rec->int16 = 1;
  }
  return err;
}

static utvm_err_t sub_execute(const void *record, uint8_t *arena) {
  const sub_record_t *r = (const sub_record_t *)record;
  if (r->f32 != 0) {
    return utvm_sub_f32(&r->params_f32, &r->b.shapes[0], ops_in_f32(arena, &r->b.input1),
                        &r->b.shapes[1], ops_in_f32(arena, &r->b.input2), &r->b.shapes[2],
                        ops_out_f32(arena, r->b.output));
  }
  if (r->int16 != 0) {
    const void *in1 = ops_in(arena, &r->b.input1);
    const void *in2 = ops_in(arena, &r->b.input2);
    void *out = &arena[r->b.output];
    return utvm_sub_s16(&r->params, &r->b.shapes[0], (const int16_t *)in1, &r->b.shapes[1],
                        (const int16_t *)in2, &r->b.shapes[2], (int16_t *)out);
  }
  return utvm_sub_s8(&r->params, &r->b.shapes[0], ops_in_s8(arena, &r->b.input1),
                     &r->b.shapes[1], ops_in_s8(arena, &r->b.input2), &r->b.shapes[2],
                     ops_out_s8(arena, r->b.output));
}

static void sub_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const sub_record_t *r = (const sub_record_t *)record;
  (void)core;
  p->kind = (r->int16 != 0) ? UTVM_OP_SUB_S16 : UTVM_OP_SUB_S8;
  p->shapes[0] = r->b.shapes[0];
  p->shapes[1] = r->b.shapes[1];
  p->shapes[2] = r->b.shapes[2];
  p->p.add = r->params;
  if (r->f32 != 0) {
    p->kind = UTVM_OP_SUB_F32;
    p->p.act_f32 = r->params_f32;
  }
}

const utvm_op_t utvm_op_sub = {(int32_t)UTVM_MODEL_OP_SUB, 2u, 2u, 28u, sub_record_size, NULL,
                               sub_prepare, sub_execute, sub_export, ops_inputs_2,
                               0u, 0u, NULL, ops_elementwise_kind, NULL, NULL, NULL};

/* ---- The kernel functions utvm_k_sub_s8 and utvm_k_sub_s16 (ADD_S8's body) ---- */

static void sub_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, p->shapes, 3u * sizeof(p->shapes[0]));
  ops_walk_block(w, &p->p.add, sizeof(p->p.add));
}

static utvm_err_t sub_s8_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_sub_s8(&p->p.add, &p->shapes[0], (const int8_t *)data[0], &p->shapes[1],
                     (const int8_t *)data[1], &p->shapes[2], (int8_t *)data[2]);
}

static const char *sub_s16_check(utvm_op_params_t *p) {
  return ops_check_binary_as(p, UTVM_OP_TYPE_INT16);
}

static utvm_err_t sub_s16_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_sub_s16(&p->p.add, &p->shapes[0], (const int16_t *)data[0], &p->shapes[1],
                      (const int16_t *)data[1], &p->shapes[2], (int16_t *)data[2]);
}

const utvm_op_kind_info_t utvm_op_kind_sub_s8 = {sub_walk, ops_check_binary, NULL, sub_s8_run,
                                                 UTVM_PLAN_STEP_INPLACE, NULL};
const utvm_op_kind_info_t utvm_op_kind_sub_s16 = {sub_walk, sub_s16_check, NULL, sub_s16_run,
                                                  UTVM_PLAN_STEP_INPLACE, NULL};

static const utvm_op_emit_slot_t sub_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_SHAPE, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_SHAPE, 1u}, {UTVM_EMIT_INPUT, 1u}, {UTVM_EMIT_SHAPE, 2u},
    {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_sub_s8 = {"utvm_add_params_t",
    "input1_offset input2_offset output_offset left_shift input1_multiplier input1_shift "
    "input2_multiplier input2_shift output_multiplier output_shift act_min act_max",
    sub_args, NULL};
const utvm_op_emit_t utvm_op_emit_sub_s16 = {"utvm_add_params_t",
    "input1_offset input2_offset output_offset left_shift input1_multiplier input1_shift "
    "input2_multiplier input2_shift output_multiplier output_shift act_min act_max",
    sub_args, NULL};

/* ---- The kernel function utvm_k_sub_f32 ---- */

static void sub_f32_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, p->shapes, 3u * sizeof(p->shapes[0]));
  ops_walk_block(w, &p->p.act_f32, sizeof(p->p.act_f32));
}

static const char *sub_f32_check(utvm_op_params_t *p) {
  return ops_check_binary_as(p, UTVM_OP_TYPE_FLOAT32);
}

static utvm_err_t sub_f32_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_sub_f32(&p->p.act_f32, &p->shapes[0], (const float *)data[0], &p->shapes[1],
                      (const float *)data[1], &p->shapes[2], (float *)data[2]);
}

const utvm_op_kind_info_t utvm_op_kind_sub_f32 = {sub_f32_walk, sub_f32_check, NULL, sub_f32_run,
                                                 UTVM_PLAN_STEP_INPLACE, NULL};

static const utvm_op_emit_slot_t sub_f32_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_SHAPE, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_SHAPE, 1u}, {UTVM_EMIT_INPUT, 1u}, {UTVM_EMIT_SHAPE, 2u},
    {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_sub_f32 = {"utvm_activation_f32_t", "act_min:f act_max:f",
                                            sub_f32_args, NULL};

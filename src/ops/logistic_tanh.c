/* LOGISTIC and TANH (int8 and int16, element-wise, fixed output quantization; float32): the
 * two fixed-point sigmoid curves share their parameters, prepare and op params (kinds *_S8,
 * *_S16 for int16, *_F32 for float32). Prepare, run, op params, emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

typedef struct {
  ops_ref_t input;
  uint32_t output;
  int32_t size;
  int32_t int16;                     /* 1: the int16 kernels */
  int32_t f32;                       /* 1: the float32 kernels */
  utvm_logistic_params_t params;     /* int8 */
  utvm_sigmoid_s16_params_t params16; /* int16 */
} curve_record_t;

static size_t curve_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(curve_record_t));
}

static utvm_err_t curve_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  curve_record_t *rec = (curve_record_t *)record;
  const bool logistic = c->op->code == UTVM_MODEL_OP_LOGISTIC;
  ops_operand_t in;
  ops_operand_t out;
  (void)size;
  bool int16 = false;
  const bool f32 = ops_input_is_f32(c);
  utvm_err_t err = f32 ? ops_load_f32_op(c, true, &in, &out)
                       : ops_load_unary_q(c, &in, &out, &int16);
  rec->f32 = 0;
  if (f32) {
    rec->f32 = 1;
  }
  rec->int16 = 0;
  if (int16) {
    rec->int16 = 1;
  }
  if ((err == UTVM_OK) && f32) {
    /* no parameters */
  } else if ((err == UTVM_OK) && int16) {
    err = utvm_sigmoid_params_s16(in.t.quant.scale, out.t.quant.scale, logistic ? 0 : 1,
                                  &rec->params16);
    err = (err == UTVM_OK) ? UTVM_OK
                           : ops_fail_kernel(c, err, "input scale or output scale (not 2^-15)");
  } else if (err == UTVM_OK) {
    err = logistic ? ops_check_fixed_output(c, &out, OPS_SCALE_1_256, INT8_MIN)
                   : ops_check_fixed_output(c, &out, OPS_SCALE_1_128, 0);
  } else {
    /* err set */
  }
  if ((err == UTVM_OK) && !int16 && !f32) {
    err = logistic ? utvm_logistic_params_s8(in.t.quant.scale, in.t.quant.zero_point,
                                             out.t.quant.zero_point, &rec->params)
                   : utvm_tanh_params_s8(in.t.quant.scale, in.t.quant.zero_point, &rec->params);
    err = (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "input scale");
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  rec->size = (int32_t)in.t.elements;
  return err;
}

static utvm_err_t logistic_execute(const void *record, uint8_t *arena) {
  const curve_record_t *r = (const curve_record_t *)record;
  if (r->f32 != 0) {
    return utvm_logistic_f32(r->size, ops_in_f32(arena, &r->input), ops_out_f32(arena, r->output));
  }
  if (r->int16 != 0) {
    return utvm_logistic_s16(&r->params16, r->size, (const int16_t *)ops_in(arena, &r->input),
                             ops_out_s16(arena, r->output));
  }
  return utvm_logistic_s8(&r->params, r->size, ops_in_s8(arena, &r->input),
                          ops_out_s8(arena, r->output));
}

static utvm_err_t tanh_execute(const void *record, uint8_t *arena) {
  const curve_record_t *r = (const curve_record_t *)record;
  if (r->f32 != 0) {
    return utvm_tanh_f32(r->size, ops_in_f32(arena, &r->input), ops_out_f32(arena, r->output));
  }
  if (r->int16 != 0) {
    return utvm_tanh_s16(&r->params16, r->size, (const int16_t *)ops_in(arena, &r->input),
                         ops_out_s16(arena, r->output));
  }
  return utvm_tanh_s8(&r->params, r->size, ops_in_s8(arena, &r->input),
                      ops_out_s8(arena, r->output));
}

static void curve_export(const curve_record_t *r, utvm_op_kind_t kind, utvm_op_kind_t kind16,
                         utvm_op_kind_t kind_f32, utvm_op_params_t *p) {
  p->size = r->size;
  if (r->f32 != 0) {
    p->kind = kind_f32;
  } else if (r->int16 != 0) {
    p->kind = kind16;
    p->p.sigmoid = r->params16;
  } else {
    p->kind = kind;
    p->p.logistic = r->params;
  }
}

static void logistic_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  (void)core;
  curve_export((const curve_record_t *)record, UTVM_OP_LOGISTIC_S8, UTVM_OP_LOGISTIC_S16,
               UTVM_OP_LOGISTIC_F32, p);
}

static void tanh_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  (void)core;
  curve_export((const curve_record_t *)record, UTVM_OP_TANH_S8, UTVM_OP_TANH_S16,
               UTVM_OP_TANH_F32, p);
}

/* Neither has options. */
const utvm_op_t utvm_op_logistic = {(int32_t)UTVM_MODEL_OP_LOGISTIC, 1u, 1u, 0u,
                                    curve_record_size, NULL, curve_prepare, logistic_execute,
                                    logistic_export, ops_inputs_1, 0u, 0u, NULL, ops_elementwise_kind, NULL,
                                    NULL, NULL};

const utvm_op_t utvm_op_tanh = {(int32_t)UTVM_MODEL_OP_TANH, 1u, 1u, 0u, curve_record_size, NULL,
                                curve_prepare, tanh_execute, tanh_export, ops_inputs_1,
                                0u, 0u, NULL, ops_elementwise_kind, NULL, NULL, NULL};

/* ---- The kernel functions utvm_k_logistic_s8 and utvm_k_tanh_s8 ---- */

typedef char curve_check_params[(sizeof(utvm_logistic_params_t) == 16u) ? 1 : -1];

static void curve_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->size);
  ops_walk_block(w, &p->p.logistic, sizeof(p->p.logistic));
}

static const char *curve_check(utvm_op_params_t *p) {
  return ops_check_elementwise(p, UTVM_OP_TYPE_INT8, UTVM_OP_TYPE_INT8);
}

static utvm_err_t logistic_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_logistic_s8(&p->p.logistic, p->size, (const int8_t *)data[0], (int8_t *)data[1]);
}

static utvm_err_t tanh_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_tanh_s8(&p->p.logistic, p->size, (const int8_t *)data[0], (int8_t *)data[1]);
}

typedef char curve16_check_params[(sizeof(utvm_sigmoid_s16_params_t) == 8u) ? 1 : -1];

static void curve16_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->size);
  ops_walk_block(w, &p->p.sigmoid, sizeof(p->p.sigmoid));
}

static const char *curve16_check(utvm_op_params_t *p) {
  return ops_check_elementwise(p, UTVM_OP_TYPE_INT16, UTVM_OP_TYPE_INT16);
}

static utvm_err_t logistic16_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  const void *in = data[0];
  void *out = data[1];
  (void)scratch;
  return utvm_logistic_s16(&p->p.sigmoid, p->size, (const int16_t *)in, (int16_t *)out);
}

static utvm_err_t tanh16_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  const void *in = data[0];
  void *out = data[1];
  (void)scratch;
  return utvm_tanh_s16(&p->p.sigmoid, p->size, (const int16_t *)in, (int16_t *)out);
}

const utvm_op_kind_info_t utvm_op_kind_logistic_s16 = {curve16_walk, curve16_check, NULL,
                                                       logistic16_run, UTVM_PLAN_STEP_INPLACE,
                                                       NULL};
const utvm_op_kind_info_t utvm_op_kind_tanh_s16 = {curve16_walk, curve16_check, NULL, tanh16_run,
                                                   UTVM_PLAN_STEP_INPLACE, NULL};
const utvm_op_kind_info_t utvm_op_kind_logistic_s8 = {curve_walk, curve_check, NULL, logistic_run,
                                                      UTVM_PLAN_STEP_INPLACE, NULL};
const utvm_op_kind_info_t utvm_op_kind_tanh_s8 = {curve_walk, curve_check, NULL, tanh_run,
                                                  UTVM_PLAN_STEP_INPLACE, NULL};

static const utvm_op_emit_slot_t curve_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_SIZE, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};
const utvm_op_emit_t utvm_op_emit_logistic_s8 = {"utvm_logistic_params_t",
    "input_zero_point input_range_radius input_multiplier input_left_shift", curve_args, NULL};
const utvm_op_emit_t utvm_op_emit_tanh_s8 = {"utvm_logistic_params_t",
    "input_zero_point input_range_radius input_multiplier input_left_shift", curve_args, NULL};
const utvm_op_emit_t utvm_op_emit_logistic_s16 = {"utvm_sigmoid_s16_params_t",
    "input_multiplier input_left_shift", curve_args, NULL};
const utvm_op_emit_t utvm_op_emit_tanh_s16 = {"utvm_sigmoid_s16_params_t",
    "input_multiplier input_left_shift", curve_args, NULL};

/* ---- The kernel functions utvm_k_logistic_f32 and utvm_k_tanh_f32 ---- */

static utvm_err_t logistic_f32_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_logistic_f32(p->size, (const float *)data[0], (float *)data[1]);
}

static utvm_err_t tanh_f32_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_tanh_f32(p->size, (const float *)data[0], (float *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_logistic_f32 = {ops_unary_f32_walk, ops_unary_f32_check,
                                                       NULL, logistic_f32_run,
                                                       UTVM_PLAN_STEP_INPLACE, NULL};
const utvm_op_kind_info_t utvm_op_kind_tanh_f32 = {ops_unary_f32_walk, ops_unary_f32_check, NULL,
                                                   tanh_f32_run, UTVM_PLAN_STEP_INPLACE, NULL};

static const utvm_op_emit_slot_t curve_f32_args[] = {{UTVM_EMIT_SIZE, 0u}, {UTVM_EMIT_INPUT, 0u},
    {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};
const utvm_op_emit_t utvm_op_emit_logistic_f32 = {NULL, NULL, curve_f32_args, NULL};
const utvm_op_emit_t utvm_op_emit_tanh_f32 = {NULL, NULL, curve_f32_args, NULL};

/* What the element-wise unary operators of int8 and int16 share (RELU, RELU6, RELU_N1_TO_1,
 * LEAKY_RELU, ABS, HARD_SWISH): the record, its run and export, and the kernel functions
 * utvm_k_lut_s8 (int8 through a 256-entry table built at prepare) and utvm_k_pwl_s16 (int16,
 * the piecewise-linear map); float32 RELU, RELU6 and HARD_SWISH run their float kernel from
 * the same record (their kinds are in pwl.c and hard_swish.c). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ops_internal.h"

size_t ops_unary_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  utvm_model_tensor_t t;
  const bool int16 = (op->n_inputs > 0u) && (op->inputs[0] >= 0) &&
                     (utvm_model_tensor(m, (uint32_t)op->inputs[0], &t) == UTVM_OK) &&
                     (t.type == UTVM_MODEL_INT16);
  size_t bytes = sizeof(ops_unary_t);
  if (int16) {
    bytes = offsetof(ops_unary_t, table);
  }
  return ops_record_bytes(bytes);
}

utvm_err_t ops_unary_load(const utvm_op_context_t *c, ops_unary_t *u, ops_operand_t *in,
                          ops_operand_t *out) {
  bool int16 = false;
  utvm_err_t err = ops_load_unary_q(c, in, out, &int16);
  if (err == UTVM_OK) {
    err = ops_places(c, in, &u->input, out, &u->output);
  }
  u->size = (int32_t)in->t.elements;
  u->int16 = 0;
  if (int16) {
    u->int16 = 1;
  }
  u->f32_kind = 0;
  u->run_f32 = NULL;
  return err;
}

utvm_err_t ops_unary_load_f32(const utvm_op_context_t *c, ops_unary_t *u, utvm_op_kind_t kind,
                              utvm_err_t (*run)(int32_t count, const float *input,
                                                float *output)) {
  ops_operand_t in;
  ops_operand_t out;
  (void)memset(&in, 0, sizeof(in));
  (void)memset(&out, 0, sizeof(out));
  utvm_err_t err = ops_load_f32_op(c, true, &in, &out);
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &u->input, &out, &u->output);
  }
  u->size = (int32_t)in.t.elements;
  u->int16 = 0;
  u->f32_kind = (int32_t)kind;
  u->run_f32 = run;
  return err;
}

void ops_unary_f32_walk(utvm_op_walk_t *w, utvm_op_params_t *p) { ops_walk_i32(w, &p->size); }

const char *ops_unary_f32_check(utvm_op_params_t *p) {
  return ops_check_elementwise(p, UTVM_OP_TYPE_FLOAT32, UTVM_OP_TYPE_FLOAT32);
}

utvm_err_t ops_unary_pwl(const utvm_op_context_t *c, ops_unary_t *u) {
  utvm_err_t err;
  if (u->int16 != 0) {
    static const int16_t probe = 0;
    int16_t out = 0;
    err = utvm_pwl_s16(&u->pwl, 1, &probe, &out);
  } else {
    err = utvm_pwl_table_s8(&u->pwl, u->table);
  }
  return (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "quantization");
}

utvm_err_t ops_unary_execute(const void *record, uint8_t *arena) {
  const ops_unary_t *r = (const ops_unary_t *)record;
  utvm_err_t err;
  if (r->run_f32 != NULL) {
    err = r->run_f32(r->size, ops_in_f32(arena, &r->input), ops_out_f32(arena, r->output));
  } else if (r->int16 != 0) {
    const void *in = ops_in(arena, &r->input);
    void *out = &arena[r->output];
    err = utvm_pwl_s16(&r->pwl, r->size, (const int16_t *)in, (int16_t *)out);
  } else {
    err = utvm_lut_s8(r->table, r->size, ops_in_s8(arena, &r->input),
                      ops_out_s8(arena, r->output));
  }
  return err;
}

void ops_unary_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const ops_unary_t *r = (const ops_unary_t *)record;
  (void)core;
  p->size = r->size;
  if (r->f32_kind != 0) {
    p->kind = (utvm_op_kind_t)r->f32_kind;
  } else if (r->int16 != 0) {
    p->kind = UTVM_OP_PWL_S16;
    p->p.pwl = r->pwl;
  } else {
    p->kind = UTVM_OP_LUT_S8;
    p->table = r->table;
  }
}

/* ---- The kernel function utvm_k_lut_s8 ---- */

static void lut_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->size);
  ops_walk_table(w, &p->table);
}

static const char *lut_check(utvm_op_params_t *p) {
  return ops_check_elementwise(p, UTVM_OP_TYPE_INT8, UTVM_OP_TYPE_INT8);
}

static utvm_err_t lut_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_lut_s8(p->table, p->size, (const int8_t *)data[0], (int8_t *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_lut_s8 = {lut_walk, lut_check, NULL, lut_run,
                                                 UTVM_PLAN_STEP_INPLACE, NULL};

static const utvm_op_emit_slot_t lut_args[] = {{UTVM_EMIT_TABLE, 0u}, {UTVM_EMIT_SIZE, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};
const utvm_op_emit_t utvm_op_emit_lut_s8 = {NULL, NULL, lut_args, NULL};

/* ---- The kernel function utvm_k_pwl_s16 ---- */

typedef char pwl_check_params[(sizeof(utvm_pwl_params_t) == 36u) ? 1 : -1];

static void pwl_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->size);
  ops_walk_block(w, &p->p.pwl, sizeof(p->p.pwl));
}

static const char *pwl_check(utvm_op_params_t *p) {
  return ops_check_elementwise(p, UTVM_OP_TYPE_INT16, UTVM_OP_TYPE_INT16);
}

static utvm_err_t pwl_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_pwl_s16(&p->p.pwl, p->size, (const int16_t *)data[0], (int16_t *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_pwl_s16 = {pwl_walk, pwl_check, NULL, pwl_run,
                                                  UTVM_PLAN_STEP_INPLACE, NULL};

static const utvm_op_emit_slot_t pwl_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_SIZE, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};
const utvm_op_emit_t utvm_op_emit_pwl_s16 = {"utvm_pwl_params_t",
    "input_zero_point output_zero_point positive_multiplier positive_shift negative_multiplier "
    "negative_shift negative_mode act_min act_max",
    pwl_args, NULL};

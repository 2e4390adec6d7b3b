/* DEQUANTIZE: int8 -> float32 (kind DEQUANTIZE_S8_F32) and int16 -> float32
 * (DEQUANTIZE_S16_F32). Prepare, run, op params, emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

typedef struct {
  ops_ref_t input;
  uint32_t output;
  int32_t size;
  float scale;             /* the input's */
  int32_t zero_point;
  int32_t int16;           /* 1: int16 input */
} dequantize_record_t;

static size_t dequantize_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(dequantize_record_t));
}

static utvm_err_t dequantize_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  dequantize_record_t *rec = (dequantize_record_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  (void)size;
  utvm_err_t err = ops_load_unary(c, false, &in, &out);
  rec->int16 = 0;
  if (in.t.type == UTVM_MODEL_INT16) {
    rec->int16 = 1;
  }
  if ((err == UTVM_OK) && (rec->int16 != 0)) {
    /* TFLM's DEQUANTIZE takes any int16 zero point: only per-tensor quantization is checked. */
    err = ops_check_q16_any(c, &in, "input");
  } else if (err == UTVM_OK) {
    err = ops_check_q8(c, &in, "input");
  } else {
    /* err set */
  }
  if (err == UTVM_OK) {
    err = ops_check_type(c, &out, "output", UTVM_MODEL_FLOAT32);
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  rec->size = (int32_t)in.t.elements;
  rec->scale = in.t.quant.scale;
  rec->zero_point = in.t.quant.zero_point;
  return err;
}

static utvm_err_t dequantize_execute(const void *record, uint8_t *arena) {
  const dequantize_record_t *r = (const dequantize_record_t *)record;
  void *out = &arena[r->output];
  utvm_err_t err;
  if (r->int16 != 0) {
    err = utvm_dequantize_s16_f32(r->scale, r->zero_point, r->size,
                                  (const int16_t *)ops_in(arena, &r->input), (float *)out);
  } else {
    err = utvm_dequantize_s8_f32(r->scale, r->zero_point, r->size, ops_in_s8(arena, &r->input),
                                 (float *)out);
  }
  return err;
}

static void dequantize_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const dequantize_record_t *r = (const dequantize_record_t *)record;
  (void)core;
  p->kind = (r->int16 != 0) ? UTVM_OP_DEQUANTIZE_S16_F32 : UTVM_OP_DEQUANTIZE_S8_F32;
  p->size = r->size;
  p->scale = r->scale;
  p->zero_point = r->zero_point;
}

/* DequantizeOptions (BuiltinOptions 38) has no fields. */
const utvm_op_t utvm_op_dequantize = {(int32_t)UTVM_MODEL_OP_DEQUANTIZE, 1u, 1u, 38u,
                                      dequantize_record_size, NULL, dequantize_prepare,
                                      dequantize_execute, dequantize_export, ops_inputs_1,
                                      0u, 0u, NULL, NULL, NULL, NULL, NULL};

/* ---- The kernel function utvm_k_dequantize_s8_f32 ---- */

static void dequantize_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->size);
  ops_walk_float(w, &p->scale);
  ops_walk_i32(w, &p->zero_point);
}

static const char *dequantize_check_as(utvm_op_params_t *p, utvm_op_type_t in) {
  const char *why = ops_check_elementwise(p, in, UTVM_OP_TYPE_FLOAT32);
  if ((why == NULL) && (!(p->scale > 0.0f) || !(p->scale <= 3.4028235e38f))) {
    why = "scale is not finite and > 0";
  }
  return why;
}

static const char *dequantize_check(utvm_op_params_t *p) {
  return dequantize_check_as(p, UTVM_OP_TYPE_INT8);
}

static const char *dequantize_s16_check(utvm_op_params_t *p) {
  return dequantize_check_as(p, UTVM_OP_TYPE_INT16);
}

static utvm_err_t dequantize_s16_run(const utvm_op_params_t *p, void *const *data,
                                     void *scratch) {
  const void *in = data[0];
  void *out = data[1];
  (void)scratch;
  return utvm_dequantize_s16_f32(p->scale, p->zero_point, p->size, (const int16_t *)in,
                                 (float *)out);
}

static utvm_err_t dequantize_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  void *out = data[1];
  (void)scratch;
  return utvm_dequantize_s8_f32(p->scale, p->zero_point, p->size, (const int8_t *)data[0],
                                (float *)out);
}

const utvm_op_kind_info_t utvm_op_kind_dequantize_s16_f32 = {
    dequantize_walk, dequantize_s16_check, NULL, dequantize_s16_run, UTVM_PLAN_STEP_DEFAULT, NULL};
const utvm_op_kind_info_t utvm_op_kind_dequantize_s8_f32 = {dequantize_walk, dequantize_check, NULL,
                                                            dequantize_run, UTVM_PLAN_STEP_DEFAULT,
                                                            NULL};

static const utvm_op_emit_slot_t dequantize_s8_f32_args[] = {{UTVM_EMIT_SCALE, 0u},
    {UTVM_EMIT_ZERO_POINT, 0u}, {UTVM_EMIT_SIZE, 0u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u},
    {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_dequantize_s8_f32 = {NULL, NULL, dequantize_s8_f32_args, NULL};

const utvm_op_emit_t utvm_op_emit_dequantize_s16_f32 = {NULL, NULL, dequantize_s8_f32_args, NULL};

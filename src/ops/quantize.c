/* QUANTIZE: float32 -> int8 (kind QUANTIZE_F32_S8) or int16 (QUANTIZE_F32_S16), int8 -> int8
 * to another scale and zero point (REQUANTIZE_S8), and int16 -> int8, int8 -> int16, int16 ->
 * int16 (REQUANTIZE_Q). Prepare, run, op params, emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

typedef struct {
  ops_ref_t input;
  uint32_t output;
  int32_t size;
  int32_t kind;            /* utvm_op_kind_t */
  float scale;             /* from float32: the output's */
  int32_t zero_point;
  utvm_requantize_params_t params;     /* REQUANTIZE_S8 */
  utvm_requantize_q_params_t params_q; /* REQUANTIZE_Q */
} quantize_record_t;

static size_t quantize_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(quantize_record_t));
}

/* int8, or int16 with any zero point of its type (TFLM's QUANTIZE takes them all), quantized
 * per tensor; *bytes receives the element size. */
static utvm_err_t quantize_check_q(const utvm_op_context_t *c, const ops_operand_t *o,
                                   const char *role, int32_t *bytes) {
  utvm_err_t err;
  if (o->t.type == UTVM_MODEL_INT16) {
    *bytes = 2;
    err = ops_check_q16_any(c, o, role);
  } else {
    *bytes = 1;
    err = ops_check_q8(c, o, role);
  }
  return err;
}

static utvm_err_t quantize_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  quantize_record_t *rec = (quantize_record_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  int32_t in_bytes = 0;
  int32_t out_bytes = 0;
  (void)size;
  rec->scale = 0.0f;
  rec->zero_point = 0;
  utvm_err_t err = ops_load_unary(c, false, &in, &out);
  if (err == UTVM_OK) {
    err = quantize_check_q(c, &out, "output", &out_bytes);
  }
  if ((err == UTVM_OK) && (in.t.type == UTVM_MODEL_FLOAT32)) {
    rec->kind = (out_bytes == 1) ? (int32_t)UTVM_OP_QUANTIZE_F32_S8
                                 : (int32_t)UTVM_OP_QUANTIZE_F32_S16;
    rec->scale = out.t.quant.scale;
    rec->zero_point = out.t.quant.zero_point;
  } else if (err == UTVM_OK) {
    err = quantize_check_q(c, &in, "input", &in_bytes);
    if ((err == UTVM_OK) && (in_bytes == 1) && (out_bytes == 1)) {
      rec->kind = (int32_t)UTVM_OP_REQUANTIZE_S8;
      err = utvm_requantize_params_s8(in.t.quant.scale, in.t.quant.zero_point, out.t.quant.scale,
                                      out.t.quant.zero_point, &rec->params);
      err = (err == UTVM_OK) ? ops_check_shift(c, rec->params.shift)
                             : ops_fail_kernel(c, err, "scales");
    } else if (err == UTVM_OK) {
      rec->kind = (int32_t)UTVM_OP_REQUANTIZE_Q;
      err = utvm_requantize_q_params(in.t.quant.scale, in.t.quant.zero_point, in_bytes,
                                     out.t.quant.scale, out.t.quant.zero_point, out_bytes,
                                     &rec->params_q);
      err = (err == UTVM_OK) ? ops_check_shift(c, rec->params_q.shift)
                             : ops_fail_kernel(c, err, "scales");
    } else {
      /* err set */
    }
  } else {
    /* err set */
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  rec->size = (int32_t)in.t.elements;
  return err;
}

static utvm_err_t quantize_execute(const void *record, uint8_t *arena) {
  const quantize_record_t *r = (const quantize_record_t *)record;
  utvm_err_t err;
  if (r->kind == (int32_t)UTVM_OP_QUANTIZE_F32_S8) {
    const float *in = (const float *)ops_in(arena, &r->input);
    err = utvm_quantize_f32_s8(r->scale, r->zero_point, r->size, in, ops_out_s8(arena, r->output));
  } else if (r->kind == (int32_t)UTVM_OP_QUANTIZE_F32_S16) {
    const float *in = (const float *)ops_in(arena, &r->input);
    err = utvm_quantize_f32_s16(r->scale, r->zero_point, r->size, in,
                                ops_out_s16(arena, r->output));
  } else if (r->kind == (int32_t)UTVM_OP_REQUANTIZE_S8) {
    err = utvm_requantize_s8(&r->params, r->size, ops_in_s8(arena, &r->input),
                             ops_out_s8(arena, r->output));
  } else {
    err = utvm_requantize_q(&r->params_q, r->size, ops_in(arena, &r->input),
                            &arena[r->output]);
  }
  return err;
}

static void quantize_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const quantize_record_t *r = (const quantize_record_t *)record;
  (void)core;
  p->size = r->size;
  p->kind = (utvm_op_kind_t)r->kind;
  p->scale = r->scale;
  p->zero_point = r->zero_point;
  if (r->kind == (int32_t)UTVM_OP_REQUANTIZE_S8) {
    p->p.requantize = r->params;
  } else if (r->kind == (int32_t)UTVM_OP_REQUANTIZE_Q) {
    p->p.requantize_q = r->params_q;
  } else {
    /* the scale and zero point */
  }
}

/* QuantizeOptions (BuiltinOptions 89) has no fields. */
const utvm_op_t utvm_op_quantize = {(int32_t)UTVM_MODEL_OP_QUANTIZE, 1u, 1u, 89u,
                                    quantize_record_size, NULL, quantize_prepare,
                                    quantize_execute, quantize_export, ops_inputs_1,
                                    0u, 0u, NULL, ops_elementwise_kind, NULL, NULL, NULL};

/* ---- The kernel functions utvm_k_quantize_f32_s8 and utvm_k_requantize_s8 ---- */

typedef char requantize_check_params[(sizeof(utvm_requantize_params_t) == 16u) ? 1 : -1];

static void quantize_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->size);
  ops_walk_float(w, &p->scale);
  ops_walk_i32(w, &p->zero_point);
}

static const char *quantize_check_as(utvm_op_params_t *p, utvm_op_type_t out) {
  const char *why = ops_check_elementwise(p, UTVM_OP_TYPE_FLOAT32, out);
  if ((why == NULL) && (!(p->scale > 0.0f) || !(p->scale <= 3.4028235e38f))) {
    why = "scale is not finite and > 0";
  }
  return why;
}

static const char *quantize_check(utvm_op_params_t *p) {
  return quantize_check_as(p, UTVM_OP_TYPE_INT8);
}

static const char *quantize_s16_check(utvm_op_params_t *p) {
  return quantize_check_as(p, UTVM_OP_TYPE_INT16);
}

static utvm_err_t quantize_s16_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  const void *in = data[0];
  void *out = data[1];
  (void)scratch;
  return utvm_quantize_f32_s16(p->scale, p->zero_point, p->size, (const float *)in,
                               (int16_t *)out);
}

static utvm_err_t quantize_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  const void *in = data[0];
  (void)scratch;
  return utvm_quantize_f32_s8(p->scale, p->zero_point, p->size, (const float *)in,
                              (int8_t *)data[1]);
}

static void requantize_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->size);
  ops_walk_block(w, &p->p.requantize, sizeof(p->p.requantize));
}

static const char *requantize_check(utvm_op_params_t *p) {
  return ops_check_elementwise(p, UTVM_OP_TYPE_INT8, UTVM_OP_TYPE_INT8);
}

static utvm_err_t requantize_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_requantize_s8(&p->p.requantize, p->size, (const int8_t *)data[0],
                            (int8_t *)data[1]);
}

typedef char requantize_q_check_params[(sizeof(utvm_requantize_q_params_t) == 24u) ? 1 : -1];

static void requantize_q_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->size);
  ops_walk_block(w, &p->p.requantize_q, sizeof(p->p.requantize_q));
}

/* The op-params type of a REQUANTIZE_Q element size (INT8 for 1, INT16 for 2, ANY else). */
static utvm_op_type_t requantize_q_type(int32_t bytes) {
  utvm_op_type_t type = UTVM_OP_TYPE_ANY;
  if (bytes == 1) {
    type = UTVM_OP_TYPE_INT8;
  } else if (bytes == 2) {
    type = UTVM_OP_TYPE_INT16;
  } else {
    /* refused below */
  }
  return type;
}

static const char *requantize_q_check(utvm_op_params_t *p) {
  const utvm_op_type_t in = requantize_q_type(p->p.requantize_q.input_size);
  const utvm_op_type_t out = requantize_q_type(p->p.requantize_q.output_size);
  const char *why = NULL;
  if ((in == UTVM_OP_TYPE_ANY) || (out == UTVM_OP_TYPE_ANY)) {
    why = "element size is not 1 or 2";
  } else {
    why = ops_check_elementwise(p, in, out);
  }
  return why;
}

static utvm_err_t requantize_q_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_requantize_q(&p->p.requantize_q, p->size, data[0], data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_quantize_f32_s16 = {quantize_walk, quantize_s16_check, NULL,
                                                           quantize_s16_run, UTVM_PLAN_STEP_DEFAULT,
                                                           NULL};
const utvm_op_kind_info_t utvm_op_kind_requantize_q = {requantize_q_walk, requantize_q_check, NULL,
                                                       requantize_q_run, UTVM_PLAN_STEP_INPLACE,
                                                       NULL};
const utvm_op_kind_info_t utvm_op_kind_quantize_f32_s8 = {quantize_walk, quantize_check, NULL,
                                                          quantize_run, UTVM_PLAN_STEP_DEFAULT,
                                                          NULL};
const utvm_op_kind_info_t utvm_op_kind_requantize_s8 = {requantize_walk, requantize_check, NULL,
                                                        requantize_run, UTVM_PLAN_STEP_INPLACE,
                                                        NULL};

static const utvm_op_emit_slot_t quantize_f32_s8_args[] = {{UTVM_EMIT_SCALE, 0u},
    {UTVM_EMIT_ZERO_POINT, 0u}, {UTVM_EMIT_SIZE, 0u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u},
    {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_quantize_f32_s8 = {NULL, NULL, quantize_f32_s8_args, NULL};
static const utvm_op_emit_slot_t requantize_s8_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_SIZE, 0u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_requantize_s8 = {"utvm_requantize_params_t",
    "input_zero_point output_zero_point multiplier shift", requantize_s8_args, NULL};

const utvm_op_emit_t utvm_op_emit_quantize_f32_s16 = {NULL, NULL, quantize_f32_s8_args, NULL};
const utvm_op_emit_t utvm_op_emit_requantize_q = {"utvm_requantize_q_params_t",
    "input_zero_point output_zero_point multiplier shift input_size output_size",
    requantize_s8_args, NULL};

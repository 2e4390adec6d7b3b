/* QUANTIZE: float32 -> int8 (kind QUANTIZE_F32_S8) or int8 -> int8 to another scale and zero
 * point (kind REQUANTIZE_S8). Prepare, run, op params, emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

typedef struct {
  ops_ref_t input;
  uint32_t output;
  int32_t size;
  float scale;             /* from float32: the output's; 0.0f: requantize */
  int32_t zero_point;
  utvm_requantize_params_t params;
} quantize_record_t;

static size_t quantize_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(quantize_record_t));
}

static utvm_err_t quantize_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  quantize_record_t *rec = (quantize_record_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  (void)size;
  rec->scale = 0.0f;
  rec->zero_point = 0;
  utvm_err_t err = ops_load_unary(c, false, &in, &out);
  if (err == UTVM_OK) {
    err = ops_check_q8(c, &out, "output");
  }
  if ((err == UTVM_OK) && (in.t.type == UTVM_MODEL_FLOAT32)) {
    rec->scale = out.t.quant.scale;
    rec->zero_point = out.t.quant.zero_point;
  } else if (err == UTVM_OK) {
    err = ops_check_q8(c, &in, "input");
    if (err == UTVM_OK) {
      err = utvm_requantize_params_s8(in.t.quant.scale, in.t.quant.zero_point, out.t.quant.scale,
                                      out.t.quant.zero_point, &rec->params);
      err = (err == UTVM_OK) ? ops_check_shift(c, rec->params.shift)
                             : ops_fail_kernel(c, err, "scales");
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
  if (r->scale > 0.0f) {
    const float *in = (const float *)ops_in(arena, &r->input);
    err = utvm_quantize_f32_s8(r->scale, r->zero_point, r->size, in, ops_out_s8(arena, r->output));
  } else {
    err = utvm_requantize_s8(&r->params, r->size, ops_in_s8(arena, &r->input),
                             ops_out_s8(arena, r->output));
  }
  return err;
}

static void quantize_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const quantize_record_t *r = (const quantize_record_t *)record;
  (void)core;
  p->size = r->size;
  if (r->scale > 0.0f) {
    p->kind = UTVM_OP_QUANTIZE_F32_S8;
    p->scale = r->scale;
    p->zero_point = r->zero_point;
  } else {
    p->kind = UTVM_OP_REQUANTIZE_S8;
    p->p.requantize = r->params;
  }
}

/* QuantizeOptions (BuiltinOptions 89) has no fields. */
const utvm_op_t utvm_op_quantize = {(int32_t)UTVM_MODEL_OP_QUANTIZE, 1u, 1u, 89u,
                                    quantize_record_size, NULL, quantize_prepare,
                                    quantize_execute, quantize_export, ops_inputs_1, 0u, 0u, NULL};

/* ---- The kernel functions utvm_k_quantize_f32_s8 and utvm_k_requantize_s8 ---- */

typedef char requantize_check_params[(sizeof(utvm_requantize_params_t) == 16u) ? 1 : -1];

static void quantize_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->size);
  ops_walk_float(w, &p->scale);
  ops_walk_i32(w, &p->zero_point);
}

static const char *quantize_check(utvm_op_params_t *p) {
  const char *why = ops_check_elementwise(p, UTVM_OP_TYPE_FLOAT32, UTVM_OP_TYPE_INT8);
  if ((why == NULL) && (!(p->scale > 0.0f) || !(p->scale <= 3.4028235e38f))) {
    why = "scale is not finite and > 0";
  }
  return why;
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

const utvm_op_kind_info_t utvm_op_kind_quantize_f32_s8 = {quantize_walk, quantize_check, NULL,
                                                          quantize_run};
const utvm_op_kind_info_t utvm_op_kind_requantize_s8 = {requantize_walk, requantize_check, NULL,
                                                        requantize_run};

static const utvm_op_emit_slot_t quantize_f32_s8_args[] = {{UTVM_EMIT_SCALE, 0u},
    {UTVM_EMIT_ZERO_POINT, 0u}, {UTVM_EMIT_SIZE, 0u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u},
    {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_quantize_f32_s8 = {NULL, NULL, quantize_f32_s8_args};
static const utvm_op_emit_slot_t requantize_s8_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_SIZE, 0u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_requantize_s8 = {"utvm_requantize_params_t",
    "input_zero_point output_zero_point multiplier shift", requantize_s8_args};

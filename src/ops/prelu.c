/* PRELU (int8, and int16 with an int8 alpha as TFLM; alpha a constant or a tensor, broadcast
 * up to 6-D): prepare, run, op params, emit. TFLM's CalculatePreluParams and
 * BroadcastPrelu4DSlow (kinds PRELU_S8, PRELU_S16). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

typedef struct {
  ops_binary_t b; /* input1: the input, input2: alpha */
  utvm_prelu_params_t params;
  int32_t int16; /* 1: PRELU_S16 */
} prelu_record_t;

static size_t prelu_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(prelu_record_t));
}

/* Input and output int8, or int16 (any zero point: TFLM checks none); alpha int8. */
static utvm_err_t prelu_operands(const utvm_op_context_t *c, ops_operand_t *in,
                                 ops_operand_t *alpha, ops_operand_t *out, bool *int16) {
  utvm_err_t err = ops_load(c, 0u, in);
  if (err == UTVM_OK) {
    err = ops_load(c, 1u, alpha);
  }
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, out);
  }
  *int16 = (err == UTVM_OK) && (in->t.type == UTVM_MODEL_INT16);
  if (err == UTVM_OK) {
    err = *int16 ? ops_check_q16_any(c, in, "input") : ops_check_q8(c, in, "input");
  }
  if (err == UTVM_OK) {
    err = ops_check_q8(c, alpha, "alpha");
  }
  if (err == UTVM_OK) {
    err = *int16 ? ops_check_q16_any(c, out, "output") : ops_check_q8(c, out, "output");
  }
  return err;
}

static utvm_err_t prelu_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  prelu_record_t *rec = (prelu_record_t *)record;
  ops_operand_t in;
  ops_operand_t alpha;
  ops_operand_t out;
  bool int16 = false;
  (void)size;
  utvm_err_t err = prelu_operands(c, &in, &alpha, &out, &int16);
  rec->int16 = 0;
  if (int16) {
    rec->int16 = 1;
  }
  if (err == UTVM_OK) {
    err = ops_place_binary(c, &rec->b, &in, &alpha, &out);
  }
  if (err == UTVM_OK) {
    err = utvm_prelu_params(in.t.quant.scale, in.t.quant.zero_point, alpha.t.quant.scale,
                            alpha.t.quant.zero_point, out.t.quant.scale, out.t.quant.zero_point,
                            &rec->params);
    err = (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "quantization");
  }
  return err;
}

static utvm_err_t prelu_execute(const void *record, uint8_t *arena) {
  const prelu_record_t *r = (const prelu_record_t *)record;
  const int8_t *alpha = ops_in_s8(arena, &r->b.input2);
  if (r->int16 != 0) {
    const void *in = ops_in(arena, &r->b.input1);
    void *out = &arena[r->b.output];
    return utvm_prelu_s16(&r->params, &r->b.shapes[0], (const int16_t *)in, &r->b.shapes[1],
                          alpha, &r->b.shapes[2], (int16_t *)out);
  }
  return utvm_prelu_s8(&r->params, &r->b.shapes[0], ops_in_s8(arena, &r->b.input1),
                       &r->b.shapes[1], alpha, &r->b.shapes[2], ops_out_s8(arena, r->b.output));
}

static void prelu_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const prelu_record_t *r = (const prelu_record_t *)record;
  (void)core;
  p->kind = (r->int16 != 0) ? UTVM_OP_PRELU_S16 : UTVM_OP_PRELU_S8;
  p->shapes[0] = r->b.shapes[0];
  p->shapes[1] = r->b.shapes[1];
  p->shapes[2] = r->b.shapes[2];
  p->p.prelu = r->params;
}

/* No options. */
const utvm_op_t utvm_op_prelu = {(int32_t)UTVM_MODEL_OP_PRELU, 2u, 2u, 0u, prelu_record_size,
                                 NULL, prelu_prepare, prelu_execute, prelu_export, ops_inputs_2,
                                 0u, 0u, NULL, NULL, NULL, NULL, NULL};

/* ---- The kernel functions utvm_k_prelu_s8 and utvm_k_prelu_s16 ---- */

typedef char prelu_check_params[(sizeof(utvm_prelu_params_t) == 28u) ? 1 : -1];

static void prelu_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, p->shapes, 3u * sizeof(p->shapes[0]));
  ops_walk_block(w, &p->p.prelu, sizeof(p->p.prelu));
}

/* Input and output of type, alpha int8. */
static const char *prelu_check_as(utvm_op_params_t *p, utvm_op_type_t type) {
  uint64_t e = 0u;
  uint32_t i;
  const char *why = ops_check_n_inputs(p, 2u);
  for (i = 0u; (i < 3u) && (why == NULL); i++) {
    if (!ops_shape_elements(&p->shapes[i], &e)) {
      why = "a shape is invalid or too large";
    } else {
      (void)ops_set_operand(p, i, (i == 1u) ? UTVM_OP_TYPE_INT8 : type, e);
    }
  }
  return why;
}

static const char *prelu_s8_check(utvm_op_params_t *p) {
  return prelu_check_as(p, UTVM_OP_TYPE_INT8);
}

static const char *prelu_s16_check(utvm_op_params_t *p) {
  return prelu_check_as(p, UTVM_OP_TYPE_INT16);
}

static utvm_err_t prelu_s8_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_prelu_s8(&p->p.prelu, &p->shapes[0], (const int8_t *)data[0], &p->shapes[1],
                       (const int8_t *)data[1], &p->shapes[2], (int8_t *)data[2]);
}

static utvm_err_t prelu_s16_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  const void *in = data[0];
  void *out = data[2];
  (void)scratch;
  return utvm_prelu_s16(&p->p.prelu, &p->shapes[0], (const int16_t *)in, &p->shapes[1],
                        (const int8_t *)data[1], &p->shapes[2], (int16_t *)out);
}

const utvm_op_kind_info_t utvm_op_kind_prelu_s8 = {prelu_walk, prelu_s8_check, NULL, prelu_s8_run,
                                                   UTVM_PLAN_STEP_DEFAULT, NULL};
const utvm_op_kind_info_t utvm_op_kind_prelu_s16 = {prelu_walk, prelu_s16_check, NULL,
                                                    prelu_s16_run, UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t prelu_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_SHAPE, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_SHAPE, 1u}, {UTVM_EMIT_INPUT, 1u}, {UTVM_EMIT_SHAPE, 2u},
    {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_prelu_s8 = {"utvm_prelu_params_t",
    "input_offset alpha_offset output_offset multiplier_1 shift_1 multiplier_2 shift_2",
    prelu_args, NULL};
const utvm_op_emit_t utvm_op_emit_prelu_s16 = {"utvm_prelu_params_t",
    "input_offset alpha_offset output_offset multiplier_1 shift_1 multiplier_2 shift_2",
    prelu_args, NULL};

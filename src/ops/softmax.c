/* SOFTMAX over the last dimension: int8 -> int8 (output 1/256 and -128, kind SOFTMAX_S8), int8
 * -> int16 (1/65536 and -32768, SOFTMAX_S8_S16), int16 -> int16 (zero points 0, output
 * 1/32768, SOFTMAX_S16), float32 -> float32 (SOFTMAX_F32): options, prepare, run, op params,
 * emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* SoftmaxOptions (BuiltinOptions 9): beta, a float. */
static const ops_field_t softmax_options[1] = {{0u, OPS_F32, OPS_BETA, 0, "beta"}};

typedef struct {
  ops_ref_t input;
  uint32_t output;
  int32_t rows;
  int32_t depth; /* the last dimension */
  int32_t kind;  /* utvm_op_kind_t */
  utvm_softmax_params_t params;
  float beta;    /* SOFTMAX_F32 */
} softmax_record_t;

static size_t softmax_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(softmax_record_t));
}

/* The input and output types, their quantization and the parameters of rec->kind. */
static utvm_err_t softmax_types(const utvm_op_context_t *c, const ops_operand_t *in,
                                const ops_operand_t *out, float beta, softmax_record_t *rec) {
  utvm_err_t err;
  rec->beta = beta;
  if (in->t.type == UTVM_MODEL_FLOAT32) {
    rec->kind = (int32_t)UTVM_OP_SOFTMAX_F32;
    err = ops_check_f32_built(c);
    if (err == UTVM_OK) {
      err = ops_check_type(c, out, "output", UTVM_MODEL_FLOAT32);
    }
  } else if (in->t.type == UTVM_MODEL_INT16) {
    rec->kind = (int32_t)UTVM_OP_SOFTMAX_S16;
    err = ops_check_q16(c, in, "input");
    if (err == UTVM_OK) {
      err = ops_check_q16(c, out, "output");
    }
    if (err == UTVM_OK) {
      err = ops_check_fixed_output(c, out, OPS_SCALE_1_32768, 0);
    }
    if ((err == UTVM_OK) && (rec->depth > UTVM_SOFTMAX_S16_MAX_DEPTH)) {
      err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                     "rows of more than 65536 elements (the int16 sum overflows)");
    }
    if (err == UTVM_OK) {
      err = utvm_softmax_params_s16(beta, in->t.quant.scale, &rec->params);
      err = (err == UTVM_OK) ? ops_check_shift(c, rec->params.input_left_shift)
                             : ops_fail_kernel(c, err, "beta and input scale");
    }
  } else {
    err = ops_check_q8(c, in, "input");
    if ((err == UTVM_OK) && (out->t.type == UTVM_MODEL_INT16)) {
      rec->kind = (int32_t)UTVM_OP_SOFTMAX_S8_S16;
      err = ops_check_q16_any(c, out, "output");
      if (err == UTVM_OK) {
        err = ops_check_fixed_output(c, out, OPS_SCALE_1_65536, INT16_MIN);
      }
    } else if (err == UTVM_OK) {
      rec->kind = (int32_t)UTVM_OP_SOFTMAX_S8;
      err = ops_check_q8(c, out, "output");
      if (err == UTVM_OK) {
        err = ops_check_fixed_output(c, out, OPS_SCALE_1_256, INT8_MIN);
      }
    } else {
      /* err set */
    }
    if (err == UTVM_OK) {
      err = utvm_softmax_params_s8(beta, in->t.quant.scale, &rec->params);
      err = (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "beta and input scale");
    }
  }
  return err;
}

static utvm_err_t softmax_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  softmax_record_t *rec = (softmax_record_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  int32_t bits = 0;
  (void)size;
  utvm_err_t err = ops_options(c, softmax_options, 1u, &bits);
  if (err == UTVM_OK) {
    err = ops_load_unary(c, false, &in, &out);
  }
  if ((err == UTVM_OK) && ((in.t.rank < 1u) || (out.t.rank < 1u) ||
                           (in.t.dims[in.t.rank - 1u] != out.t.dims[out.t.rank - 1u]))) {
    err = ops_fail_fit(c, "output", &out, "input", &in);
  }
  if (err == UTVM_OK) {
    rec->depth = in.t.dims[in.t.rank - 1u];
    rec->rows = (int32_t)in.t.elements / rec->depth;
    err = softmax_types(c, &in, &out, ops_option_float(bits), rec);
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  return err;
}

static utvm_err_t softmax_execute(const void *record, uint8_t *arena) {
  const softmax_record_t *r = (const softmax_record_t *)record;
  utvm_err_t err;
  if (r->kind == (int32_t)UTVM_OP_SOFTMAX_F32) {
    err = utvm_softmax_f32(r->beta, r->rows, r->depth, ops_in_f32(arena, &r->input),
                           ops_out_f32(arena, r->output));
  } else if (r->kind == (int32_t)UTVM_OP_SOFTMAX_S16) {
    err = utvm_softmax_s16(&r->params, r->rows, r->depth,
                           (const int16_t *)ops_in(arena, &r->input),
                           ops_out_s16(arena, r->output));
  } else if (r->kind == (int32_t)UTVM_OP_SOFTMAX_S8_S16) {
    err = utvm_softmax_s8_s16(&r->params, r->rows, r->depth, ops_in_s8(arena, &r->input),
                              ops_out_s16(arena, r->output));
  } else {
    err = utvm_softmax_s8(&r->params, r->rows, r->depth, ops_in_s8(arena, &r->input),
                          ops_out_s8(arena, r->output));
  }
  return err;
}

static void softmax_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const softmax_record_t *r = (const softmax_record_t *)record;
  (void)core;
  p->kind = (utvm_op_kind_t)r->kind;
  p->size = r->rows * r->depth;
  p->depth = r->depth;
  p->p.softmax = r->params;
  p->scale = r->beta;
}

const utvm_op_t utvm_op_softmax = {(int32_t)UTVM_MODEL_OP_SOFTMAX, 1u, 1u, 9u,
                                   softmax_record_size, NULL, softmax_prepare, softmax_execute,
                                   softmax_export, ops_inputs_1, 0u, 0u, NULL, NULL, NULL,
                                   NULL, NULL};

/* ---- The kernel function utvm_k_softmax_s8 ---- */

typedef char softmax_check_params[(sizeof(utvm_softmax_params_t) == 12u) ? 1 : -1];

static void softmax_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->size);
  ops_walk_i32(w, &p->depth);
  ops_walk_block(w, &p->p.softmax, sizeof(p->p.softmax));
}

static const char *softmax_check_as(utvm_op_params_t *p, utvm_op_type_t in, utvm_op_type_t out) {
  const char *why = ops_check_elementwise(p, in, out);
  if ((why == NULL) && ((p->depth < 1) || ((p->size % p->depth) != 0))) {
    why = "size is not rows of depth elements";
  }
  return why;
}

static const char *softmax_check(utvm_op_params_t *p) {
  return softmax_check_as(p, UTVM_OP_TYPE_INT8, UTVM_OP_TYPE_INT8);
}

static const char *softmax_s8_s16_check(utvm_op_params_t *p) {
  return softmax_check_as(p, UTVM_OP_TYPE_INT8, UTVM_OP_TYPE_INT16);
}

static const char *softmax_s16_check(utvm_op_params_t *p) {
  const char *why = softmax_check_as(p, UTVM_OP_TYPE_INT16, UTVM_OP_TYPE_INT16);
  if ((why == NULL) && (p->depth > UTVM_SOFTMAX_S16_MAX_DEPTH)) {
    why = "depth above 65536";
  }
  return why;
}

static utvm_err_t softmax_s8_s16_run(const utvm_op_params_t *p, void *const *data,
                                     void *scratch) {
  void *out = data[1];
  (void)scratch;
  return utvm_softmax_s8_s16(&p->p.softmax, p->size / p->depth, p->depth,
                             (const int8_t *)data[0], (int16_t *)out);
}

static utvm_err_t softmax_s16_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  const void *in = data[0];
  void *out = data[1];
  (void)scratch;
  return utvm_softmax_s16(&p->p.softmax, p->size / p->depth, p->depth, (const int16_t *)in,
                          (int16_t *)out);
}

static utvm_err_t softmax_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_softmax_s8(&p->p.softmax, p->size / p->depth, p->depth, (const int8_t *)data[0],
                         (int8_t *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_softmax_s8_s16 = {softmax_walk, softmax_s8_s16_check, NULL,
                                                         softmax_s8_s16_run, UTVM_PLAN_STEP_DEFAULT,
                                                         NULL};
const utvm_op_kind_info_t utvm_op_kind_softmax_s16 = {softmax_walk, softmax_s16_check, NULL,
                                                      softmax_s16_run, UTVM_PLAN_STEP_DEFAULT,
                                                      NULL};
const utvm_op_kind_info_t utvm_op_kind_softmax_s8 = {softmax_walk, softmax_check, NULL, softmax_run,
                                                     UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t softmax_s8_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_ROWS, 0u},
    {UTVM_EMIT_DEPTH, 0u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_softmax_s8 = {"utvm_softmax_params_t",
    "input_multiplier input_left_shift diff_min", softmax_s8_args, NULL};

const utvm_op_emit_t utvm_op_emit_softmax_s8_s16 = {"utvm_softmax_params_t",
    "input_multiplier input_left_shift diff_min", softmax_s8_args, NULL};
const utvm_op_emit_t utvm_op_emit_softmax_s16 = {"utvm_softmax_params_t",
    "input_multiplier input_left_shift diff_min", softmax_s8_args, NULL};

/* ---- The kernel function utvm_k_softmax_f32 ---- */

static void softmax_f32_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->size);
  ops_walk_i32(w, &p->depth);
  ops_walk_float(w, &p->scale);
}

static utvm_err_t softmax_f32_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_softmax_f32(p->scale, p->size / p->depth, p->depth, (const float *)data[0],
                          (float *)data[1]);
}

static const char *softmax_f32_check(utvm_op_params_t *p) {
  return softmax_check_as(p, UTVM_OP_TYPE_FLOAT32, UTVM_OP_TYPE_FLOAT32);
}

const utvm_op_kind_info_t utvm_op_kind_softmax_f32 = {softmax_f32_walk, softmax_f32_check, NULL,
                                                      softmax_f32_run, UTVM_PLAN_STEP_DEFAULT,
                                                      NULL};

static const utvm_op_emit_slot_t softmax_f32_args[] = {{UTVM_EMIT_SCALE, 0u},
    {UTVM_EMIT_ROWS, 0u}, {UTVM_EMIT_DEPTH, 0u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u},
    {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_softmax_f32 = {NULL, NULL, softmax_f32_args, NULL};

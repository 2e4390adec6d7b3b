/* AVERAGE_POOL_2D and MAX_POOL_2D (int8; int16 with zero point 0; float32): one window, two
 * kernels per type. Options, prepare, run, op
 * params, emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ops_internal.h"

/* Pool2DOptions (BuiltinOptions 5). */
enum { PADDING, STRIDE_W, STRIDE_H, FILTER_W, FILTER_H, ACTIVATION, N_OPTIONS };
static const ops_field_t pool_2d_options[N_OPTIONS] = {
    {0u, OPS_U8, OPS_PADDING, 0, "padding"},
    {1u, OPS_I32, OPS_POSITIVE, 0, "stride_w"},
    {2u, OPS_I32, OPS_POSITIVE, 0, "stride_h"},
    {3u, OPS_I32, OPS_POSITIVE, 0, "filter_width"},
    {4u, OPS_I32, OPS_POSITIVE, 0, "filter_height"},
    {5u, OPS_U8, OPS_ACTIVATION, 0, "fused_activation_function"}};

typedef struct {
  ops_ref_t input;
  uint32_t output;
  utvm_dims_t dims[2]; /* input, output */
  utvm_pool2d_params_t params;
  bool int16;
  bool f32;
  utvm_pool2d_f32_params_t params_f32; /* f32 */
} pool_record_t;

static size_t pool_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(pool_record_t));
}

/* The float32 window: padding and output size (as utvm_pool2d_params_s8), the fused
 * activation's float range. */
static utvm_err_t pool_params_f32(const utvm_op_context_t *c, const int32_t *o,
                                  const ops_operand_t *in, const ops_operand_t *out,
                                  utvm_pool2d_f32_params_t *p) {
  utvm_padding_values_t pad;
  (void)memset(&pad, 0, sizeof(pad));
  utvm_err_t err = utvm_compute_padding(ops_padding(o[PADDING]), o[STRIDE_H], o[STRIDE_W], 1, 1,
                                        in->t.dims[1], in->t.dims[2], o[FILTER_H], o[FILTER_W],
                                        &pad);
  if (err != UTVM_OK) {
    err = ops_fail_kernel(c, err, "window");
  } else if ((pad.out_h != out->t.dims[1]) || (pad.out_w != out->t.dims[2])) {
    err = ops_fail_output_size(c, out, pad.out_h, pad.out_w);
  } else {
    err = utvm_activation_range_f32(o[ACTIVATION], &p->act_min, &p->act_max);
    err = (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "activation");
  }
  p->stride_h = o[STRIDE_H];
  p->stride_w = o[STRIDE_W];
  p->filter_h = o[FILTER_H];
  p->filter_w = o[FILTER_W];
  p->pad_top = pad.pad_top;
  p->pad_left = pad.pad_left;
  return err;
}

static utvm_err_t pool_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  pool_record_t *rec = (pool_record_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  int32_t o[N_OPTIONS];
  int32_t out_h = 0;
  int32_t out_w = 0;
  (void)size;
  (void)memset(&in, 0, sizeof(in));
  (void)memset(&out, 0, sizeof(out));
  rec->int16 = false;
  rec->f32 = ops_input_is_f32(c);
  utvm_err_t err = ops_options(c, pool_2d_options, N_OPTIONS, o);
  if ((err == UTVM_OK) && rec->f32) {
    err = ops_load_f32_op(c, false, &in, &out);
  } else if (err == UTVM_OK) {
    err = ops_load_layout_q(c, &in, &out, &rec->int16);
  } else {
    /* the text is written */
  }
  if (err == UTVM_OK) {
    err = ops_check_rank(c, &in, "input", 4u);
  }
  if (err == UTVM_OK) {
    err = ops_check_rank(c, &out, "output", 4u);
  }
  if ((err == UTVM_OK) && ((in.t.dims[0] != out.t.dims[0]) || (in.t.dims[3] != out.t.dims[3]))) {
    err = ops_fail_fit(c, "output", &out, "input", &in);
  }
  if ((err == UTVM_OK) && rec->f32) {
    err = pool_params_f32(c, o, &in, &out, &rec->params_f32);
  } else if (err == UTVM_OK) {
    if (rec->int16) {
      err = utvm_pool2d_params_s16(ops_padding(o[PADDING]), o[STRIDE_H], o[STRIDE_W],
                                   o[FILTER_H], o[FILTER_W], in.t.dims[1], in.t.dims[2],
                                   o[ACTIVATION], out.t.quant.scale, out.t.quant.zero_point,
                                   &rec->params, &out_h, &out_w);
    } else {
      err = utvm_pool2d_params_s8(ops_padding(o[PADDING]), o[STRIDE_H], o[STRIDE_W], o[FILTER_H],
                                  o[FILTER_W], in.t.dims[1], in.t.dims[2], o[ACTIVATION],
                                  out.t.quant.scale, out.t.quant.zero_point, &rec->params, &out_h,
                                  &out_w);
    }
    if (err != UTVM_OK) {
      err = ops_fail_kernel(c, err, "window");
    } else if ((out_h != out.t.dims[1]) || (out_w != out.t.dims[2])) {
      err = ops_fail_output_size(c, &out, out_h, out_w);
    } else {
      err = UTVM_OK;
    }
  } else {
    /* the text is written */
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  if (err == UTVM_OK) {
    rec->dims[0] = ops_dims(&in.t);
    rec->dims[1] = ops_dims(&out.t);
  }
  return err;
}

static utvm_err_t average_execute(const void *record, uint8_t *arena) {
  const pool_record_t *r = (const pool_record_t *)record;
  utvm_err_t err;
  if (r->f32) {
    err = utvm_avg_pool2d_f32(&r->params_f32, &r->dims[0], ops_in_f32(arena, &r->input),
                              &r->dims[1], ops_out_f32(arena, r->output));
  } else if (r->int16) {
    err = utvm_avg_pool2d_s16(&r->params, &r->dims[0], (const int16_t *)ops_in(arena, &r->input),
                              &r->dims[1], ops_out_s16(arena, r->output));
  } else {
    err = utvm_avg_pool2d_s8(&r->params, &r->dims[0], ops_in_s8(arena, &r->input), &r->dims[1],
                             ops_out_s8(arena, r->output));
  }
  return err;
}

static utvm_err_t max_execute(const void *record, uint8_t *arena) {
  const pool_record_t *r = (const pool_record_t *)record;
  utvm_err_t err;
  if (r->f32) {
    err = utvm_max_pool2d_f32(&r->params_f32, &r->dims[0], ops_in_f32(arena, &r->input),
                              &r->dims[1], ops_out_f32(arena, r->output));
  } else if (r->int16) {
    err = utvm_max_pool2d_s16(&r->params, &r->dims[0], (const int16_t *)ops_in(arena, &r->input),
                              &r->dims[1], ops_out_s16(arena, r->output));
  } else {
    err = utvm_max_pool2d_s8(&r->params, &r->dims[0], ops_in_s8(arena, &r->input), &r->dims[1],
                             ops_out_s8(arena, r->output));
  }
  return err;
}

static void pool_export(const pool_record_t *r, utvm_op_kind_t kind, utvm_op_params_t *p) {
  p->kind = kind;
  p->dims[0] = r->dims[0];
  p->dims[1] = r->dims[1];
  if (r->f32) {
    p->p.pool_f32 = r->params_f32;
  } else {
    p->p.pool = r->params;
  }
}

static void average_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  (void)core;
  const pool_record_t *r = (const pool_record_t *)record;
  utvm_op_kind_t kind = r->int16 ? UTVM_OP_AVG_POOL2D_S16 : UTVM_OP_AVG_POOL2D_S8;
  pool_export(r, r->f32 ? UTVM_OP_AVG_POOL2D_F32 : kind, p);
}

static void max_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  (void)core;
  const pool_record_t *r = (const pool_record_t *)record;
  utvm_op_kind_t kind = r->int16 ? UTVM_OP_MAX_POOL2D_S16 : UTVM_OP_MAX_POOL2D_S8;
  pool_export(r, r->f32 ? UTVM_OP_MAX_POOL2D_F32 : kind, p);
}

const utvm_op_t utvm_op_average_pool_2d = {
    (int32_t)UTVM_MODEL_OP_AVERAGE_POOL_2D, 1u, 1u, 5u, pool_record_size, NULL, pool_prepare,
    average_execute, average_export, ops_inputs_1, 0u, 0u, NULL, NULL, NULL, NULL, NULL};

const utvm_op_t utvm_op_max_pool_2d = {
    (int32_t)UTVM_MODEL_OP_MAX_POOL_2D, 1u, 1u, 5u, pool_record_size, NULL, pool_prepare,
    max_execute, max_export, ops_inputs_1, 0u, 0u, NULL, NULL, NULL, NULL, NULL};

/* ---- The kernel functions utvm_k_avg_pool2d_s8, utvm_k_max_pool2d_s8 and their _s16 ---- */

typedef char pool_check_params[(sizeof(utvm_pool2d_params_t) == 32u) ? 1 : -1];

static void pool_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, &p->dims[0], sizeof(p->dims[0]));
  ops_walk_block(w, &p->dims[1], sizeof(p->dims[1]));
  ops_walk_block(w, &p->p.pool, sizeof(p->p.pool));
}

/* Input and output of type. */
static const char *pool_check_as(utvm_op_params_t *p, utvm_op_type_t type) {
  uint64_t e[2] = {0u, 0u};
  const char *why = ops_check_n_inputs(p, 1u);
  if ((why == NULL) &&
      (!ops_dims_elements(&p->dims[0], &e[0]) || !ops_dims_elements(&p->dims[1], &e[1]))) {
    why = "a dimension is < 1 or a tensor too large";
  }
  if (why == NULL) {
    (void)ops_set_operand(p, 0u, type, e[0]);
    (void)ops_set_operand(p, 1u, type, e[1]);
  }
  return why;
}

static const char *pool_check(utvm_op_params_t *p) { return pool_check_as(p, UTVM_OP_TYPE_INT8); }

static const char *pool_check_s16(utvm_op_params_t *p) {
  return pool_check_as(p, UTVM_OP_TYPE_INT16);
}

static utvm_err_t average_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_avg_pool2d_s8(&p->p.pool, &p->dims[0], (const int8_t *)data[0], &p->dims[1],
                            (int8_t *)data[1]);
}

static utvm_err_t max_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_max_pool2d_s8(&p->p.pool, &p->dims[0], (const int8_t *)data[0], &p->dims[1],
                            (int8_t *)data[1]);
}

static utvm_err_t average_run_s16(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_avg_pool2d_s16(&p->p.pool, &p->dims[0], (const int16_t *)data[0], &p->dims[1],
                             (int16_t *)data[1]);
}

static utvm_err_t max_run_s16(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_max_pool2d_s16(&p->p.pool, &p->dims[0], (const int16_t *)data[0], &p->dims[1],
                             (int16_t *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_avg_pool2d_s16 = {pool_walk, pool_check_s16, NULL,
                                                         average_run_s16, UTVM_PLAN_STEP_DEFAULT,
                                                         NULL};
const utvm_op_kind_info_t utvm_op_kind_max_pool2d_s16 = {pool_walk, pool_check_s16, NULL,
                                                         max_run_s16, UTVM_PLAN_STEP_DEFAULT, NULL};

const utvm_op_kind_info_t utvm_op_kind_avg_pool2d_s8 = {pool_walk, pool_check, NULL, average_run,
                                                        UTVM_PLAN_STEP_DEFAULT, NULL};
const utvm_op_kind_info_t utvm_op_kind_max_pool2d_s8 = {pool_walk, pool_check, NULL, max_run,
                                                        UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t pool_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_DIMS, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_DIMS, 1u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};
const utvm_op_emit_t utvm_op_emit_avg_pool2d_s8 = {"utvm_pool2d_params_t",
    "stride_h stride_w filter_h filter_w pad_top pad_left act_min act_max", pool_args, NULL};
const utvm_op_emit_t utvm_op_emit_max_pool2d_s8 = {"utvm_pool2d_params_t",
    "stride_h stride_w filter_h filter_w pad_top pad_left act_min act_max", pool_args, NULL};
const utvm_op_emit_t utvm_op_emit_avg_pool2d_s16 = {"utvm_pool2d_params_t",
    "stride_h stride_w filter_h filter_w pad_top pad_left act_min act_max", pool_args, NULL};
const utvm_op_emit_t utvm_op_emit_max_pool2d_s16 = {"utvm_pool2d_params_t",
    "stride_h stride_w filter_h filter_w pad_top pad_left act_min act_max", pool_args, NULL};

/* ---- The kernel functions utvm_k_avg_pool2d_f32 and utvm_k_max_pool2d_f32 ---- */

typedef char pool_f32_check_params[(sizeof(utvm_pool2d_f32_params_t) == 32u) ? 1 : -1];

static void pool_f32_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, &p->dims[0], sizeof(p->dims[0]));
  ops_walk_block(w, &p->dims[1], sizeof(p->dims[1]));
  ops_walk_block(w, &p->p.pool_f32, sizeof(p->p.pool_f32));
}

static const char *pool_check_f32(utvm_op_params_t *p) {
  return pool_check_as(p, UTVM_OP_TYPE_FLOAT32);
}

static utvm_err_t average_run_f32(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_avg_pool2d_f32(&p->p.pool_f32, &p->dims[0], (const float *)data[0], &p->dims[1],
                             (float *)data[1]);
}

static utvm_err_t max_run_f32(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_max_pool2d_f32(&p->p.pool_f32, &p->dims[0], (const float *)data[0], &p->dims[1],
                             (float *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_avg_pool2d_f32 = {pool_f32_walk, pool_check_f32, NULL,
                                                         average_run_f32, UTVM_PLAN_STEP_DEFAULT,
                                                         NULL};
const utvm_op_kind_info_t utvm_op_kind_max_pool2d_f32 = {pool_f32_walk, pool_check_f32, NULL,
                                                         max_run_f32, UTVM_PLAN_STEP_DEFAULT, NULL};

const utvm_op_emit_t utvm_op_emit_avg_pool2d_f32 = {"utvm_pool2d_f32_params_t",
    "stride_h stride_w filter_h filter_w pad_top pad_left act_min:f act_max:f", pool_args, NULL};
const utvm_op_emit_t utvm_op_emit_max_pool2d_f32 = {"utvm_pool2d_f32_params_t",
    "stride_h stride_w filter_h filter_w pad_top pad_left act_min:f act_max:f", pool_args, NULL};

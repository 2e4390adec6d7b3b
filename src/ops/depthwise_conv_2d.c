/* DEPTHWISE_CONV_2D (int8, or int16 activations with int8 weights and an int64 bias;
 * per-channel or per-tensor weights; float32): options, prepare, run, op params, emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* DepthwiseConv2DOptions (BuiltinOptions 2): the window's fields (OPS_WINDOW_*), then its own. */
enum { MULTIPLIER = OPS_WINDOW_FIELDS, N_OPTIONS };
static const ops_field_t depthwise_conv_2d_options[N_OPTIONS] = {
    {0u, OPS_U8, OPS_PADDING, 0, "padding"},
    {1u, OPS_I32, OPS_POSITIVE, 0, "stride_w"},
    {2u, OPS_I32, OPS_POSITIVE, 0, "stride_h"},
    {4u, OPS_U8, OPS_ACTIVATION, 0, "fused_activation_function"},
    {5u, OPS_I32, OPS_POSITIVE, 1, "dilation_w"},
    {6u, OPS_I32, OPS_POSITIVE, 1, "dilation_h"},
    {3u, OPS_I32, OPS_NONNEGATIVE, 0, "depth_multiplier"}};

typedef struct {
  ops_conv_t conv; /* first: the per-channel arrays follow the record */
  utvm_depthwise_conv2d_params_t params;
  utvm_depthwise_conv2d_f32_params_t params_f32; /* conv.f32 */
} depthwise_record_t;

static size_t depthwise_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  return ops_weighted_record_size(m, op, sizeof(depthwise_record_t));
}

static size_t depthwise_scratch_size(utvm_kernels_core_t core, const utvm_model_t *m,
                                     const utvm_model_operator_t *op) {
  utvm_dims_t d[3];
  utvm_model_tensor_t in;
  const bool s8 = (op->n_inputs > 0u) && (op->inputs[0] >= 0) &&
                  (utvm_model_tensor(m, (uint32_t)op->inputs[0], &in) == UTVM_OK) &&
                  (in.type == UTVM_MODEL_INT8);
  return (s8 && ops_window_dims(m, op, d))
             ? utvm_depthwise_conv2d_s8_scratch_size_for(core, &d[0], &d[1], &d[2])
             : 0u;
}

/* Scratch of the in-place kernel on core (0: op cannot run in place). */
static size_t depthwise_inplace_scratch_size(utvm_kernels_core_t core, const utvm_model_t *m,
                                             const utvm_model_operator_t *op) {
  utvm_dims_t d[3];
  ops_window_t w;
  int32_t o[N_OPTIONS];
  size_t bytes = 0u;
  if (ops_window_plan(m, op, depthwise_conv_2d_options, N_OPTIONS, o, d, &w)) {
    const utvm_depthwise_conv2d_params_t p = {w.stride_h, w.stride_w, w.dilation_h, w.dilation_w,
                                              w.pad_top,  w.pad_left, 1,            0,
                                              0,          -128,       127};
    bytes = utvm_depthwise_conv2d_s8_inplace_scratch_size_for(core, &p, &d[0], &d[1], &d[2]);
  }
  return bytes;
}

/* INPLACE when the shapes can run in place (utvm_depthwise_conv2d_s8_inplace). */
static utvm_plan_step_kind_t depthwise_plan_kind(const utvm_model_t *m, uint32_t index,
                                                 const utvm_model_operator_t *op) {
  (void)index;
  return (depthwise_inplace_scratch_size(UTVM_KERNELS_PORTABLE, m, op) > 0u)
             ? UTVM_PLAN_STEP_INPLACE_GROW
             : UTVM_PLAN_STEP_DEFAULT;
}

static utvm_err_t depthwise_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  depthwise_record_t *rec = (depthwise_record_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  ops_window_t w;
  int32_t o[N_OPTIONS];
  utvm_err_t err = ops_options(c, depthwise_conv_2d_options, N_OPTIONS, o);
  if (err == UTVM_OK) {
    err = ops_prepare_conv(c, true, o, o[MULTIPLIER], 0, &w, &rec->conv, sizeof(*rec), size, &in,
                           &out);
  }
  if (err == UTVM_OK) {
    utvm_depthwise_conv2d_params_t *p = &rec->params;
    p->stride_h = w.stride_h;
    p->stride_w = w.stride_w;
    p->dilation_h = w.dilation_h;
    p->dilation_w = w.dilation_w;
    p->pad_top = w.pad_top;
    p->pad_left = w.pad_left;
    p->depth_multiplier = out.t.dims[3] / in.t.dims[3];
    p->input_offset = -in.t.quant.zero_point;
    p->output_offset = out.t.quant.zero_point;
    p->act_min = w.act_min;
    p->act_max = w.act_max;
    rec->params_f32.stride_h = w.stride_h;
    rec->params_f32.stride_w = w.stride_w;
    rec->params_f32.dilation_h = w.dilation_h;
    rec->params_f32.dilation_w = w.dilation_w;
    rec->params_f32.pad_top = w.pad_top;
    rec->params_f32.pad_left = w.pad_left;
    rec->params_f32.depth_multiplier = p->depth_multiplier;
    rec->params_f32.act_min = w.act_min_f32;
    rec->params_f32.act_max = w.act_max_f32;
    ops_conv_inplace(&rec->conv);
  }
  return err;
}

static utvm_err_t depthwise_execute(const void *record, uint8_t *arena) {
  const depthwise_record_t *r = (const depthwise_record_t *)record;
  const ops_conv_t *c = &r->conv;
  utvm_err_t err;
  if (c->f32) {
    err = utvm_depthwise_conv2d_f32(&r->params_f32, &c->dims[0], ops_in_f32(arena, &c->input),
                                    &c->dims[1], c->filter_f32, (const float *)c->bias,
                                    &c->dims[2], ops_out_f32(arena, c->output));
  } else if (c->s16) {
    err = utvm_depthwise_conv2d_s16(&r->params, &c->quant, &c->dims[0],
                                    (const int16_t *)ops_in(arena, &c->input), &c->dims[1],
                                    c->filter, (const int64_t *)c->bias, &c->dims[2],
                                    ops_out_s16(arena, c->output));
  } else if (c->inplace) {
    err = utvm_depthwise_conv2d_s8_inplace(&r->params, &c->quant, &c->dims[0], &c->dims[1],
                                           c->filter, (const int32_t *)c->bias, &c->dims[2],
                                           ops_out_s8(arena, c->output),
                                           ops_scratch(arena, c->scratch));
  } else {
    err = utvm_depthwise_conv2d_s8(&r->params, &c->quant, &c->dims[0],
                                   ops_in_s8(arena, &c->input), &c->dims[1], c->filter,
                                   (const int32_t *)c->bias, &c->dims[2],
                                   ops_out_s8(arena, c->output), ops_scratch(arena, c->scratch));
  }
  return err;
}

static void depthwise_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const depthwise_record_t *r = (const depthwise_record_t *)record;
  const ops_conv_t *c = &r->conv;
  ops_conv_export(c, p);
  p->p.depthwise = r->params;
  if (c->f32) {
    p->kind = UTVM_OP_DEPTHWISE_CONV2D_F32;
    p->p.depthwise_f32 = r->params_f32;
  } else if (c->s16) {
    p->kind = UTVM_OP_DEPTHWISE_CONV2D_S16;
  } else if (c->inplace) {
    p->kind = UTVM_OP_DEPTHWISE_CONV2D_S8_INPLACE;
    p->scratch_bytes = (uint32_t)utvm_depthwise_conv2d_s8_inplace_scratch_size_for(
        core, &r->params, &c->dims[0], &c->dims[1], &c->dims[2]);
  } else {
    p->kind = UTVM_OP_DEPTHWISE_CONV2D_S8;
    p->scratch_bytes = (uint32_t)utvm_depthwise_conv2d_s8_scratch_size_for(
        core, &c->dims[0], &c->dims[1], &c->dims[2]);
  }
}

static bool depthwise_stage_shape(utvm_kernels_core_t core, const utvm_model_t *m,
                                  const utvm_model_operator_t *op, utvm_stage_shape_t *shape) {
  return ops_stage_shape(core, m, op, depthwise_conv_2d_options, N_OPTIONS,
                         depthwise_scratch_size, shape);
}

static void depthwise_stage_layer(const void *record, utvm_stage_layer_s8_t *layer) {
  const depthwise_record_t *r = (const depthwise_record_t *)record;
  ops_stage_operands(&r->conv, layer);
  layer->conv = NULL;
  layer->depthwise = &r->params;
}

const utvm_op_t utvm_op_depthwise_conv_2d = {
    (int32_t)UTVM_MODEL_OP_DEPTHWISE_CONV_2D, 2u, 3u, 2u, depthwise_record_size,
    depthwise_scratch_size, depthwise_prepare, depthwise_execute, depthwise_export,
    ops_inputs_weighted, 0u, 0u, NULL, depthwise_plan_kind, depthwise_inplace_scratch_size,
    depthwise_stage_shape, depthwise_stage_layer};

/* ---- The kernel function utvm_k_depthwise_conv2d_s8 ---- */

typedef char depthwise_check_params[(sizeof(utvm_depthwise_conv2d_params_t) == 44u) ? 1 : -1];

static void depthwise_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, p->dims, sizeof(p->dims));
  ops_walk_block(w, &p->p.depthwise, sizeof(p->p.depthwise));
  ops_walk_u32(w, &p->has_bias);
  ops_walk_quant(w, &p->quant);
}

static size_t depthwise_scratch(const utvm_op_params_t *p) {
  return utvm_depthwise_conv2d_s8_scratch_size(&p->dims[0], &p->dims[1], &p->dims[2]);
}

static utvm_err_t depthwise_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  return utvm_depthwise_conv2d_s8(&p->p.depthwise, &p->quant, &p->dims[0],
                                  (const int8_t *)data[0], &p->dims[1], (const int8_t *)data[1],
                                  (p->has_bias != 0u) ? (const int32_t *)data[2] : NULL,
                                  &p->dims[2], (int8_t *)data[p->n_inputs], scratch);
}

static const char *depthwise_check(utvm_op_params_t *p) { return ops_check_window(p, false); }

const utvm_op_kind_info_t utvm_op_kind_depthwise_conv2d_s8 = {
    depthwise_walk, depthwise_check, depthwise_scratch, depthwise_run, UTVM_PLAN_STEP_DEFAULT,
    NULL};

static const utvm_op_emit_slot_t depthwise_conv2d_s8_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_QUANT, 1u}, {UTVM_EMIT_DIMS, 0u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_DIMS, 1u},
    {UTVM_EMIT_INPUT, 1u}, {UTVM_EMIT_BIAS, 0u}, {UTVM_EMIT_DIMS, 2u}, {UTVM_EMIT_OUTPUT, 0u},
    {UTVM_EMIT_SCRATCH, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_depthwise_conv2d_s8 = {"utvm_depthwise_conv2d_params_t",
    "stride_h stride_w dilation_h dilation_w pad_top pad_left depth_multiplier input_offset "
    "output_offset act_min act_max",
    depthwise_conv2d_s8_args, NULL};

/* ---- The kernel function utvm_k_depthwise_conv2d_s8_inplace ---- */

static size_t depthwise_inplace_scratch(const utvm_op_params_t *p) {
  return utvm_depthwise_conv2d_s8_inplace_scratch_size(&p->p.depthwise, &p->dims[0], &p->dims[1],
                                                       &p->dims[2]);
}

/* In place when the output is the input's memory (a planned arena), else the plain kernel. */
static utvm_err_t depthwise_inplace_run(const utvm_op_params_t *p, void *const *data,
                                        void *scratch) {
  if (data[0] != data[p->n_inputs]) {
    return depthwise_run(p, data, scratch);
  }
  return utvm_depthwise_conv2d_s8_inplace(&p->p.depthwise, &p->quant, &p->dims[0], &p->dims[1],
                                          (const int8_t *)data[1],
                                          (p->has_bias != 0u) ? (const int32_t *)data[2] : NULL,
                                          &p->dims[2], (int8_t *)data[p->n_inputs], scratch);
}

static const char *depthwise_inplace_check(utvm_op_params_t *p) {
  const char *why = ops_check_window(p, false);
  if ((why == NULL) && (depthwise_inplace_scratch(p) == 0u)) {
    why = "shapes that cannot run in place";
  }
  return why;
}

const utvm_op_kind_info_t utvm_op_kind_depthwise_conv2d_s8_inplace = {
    depthwise_walk, depthwise_inplace_check, depthwise_scratch, depthwise_inplace_run,
    UTVM_PLAN_STEP_INPLACE_GROW, depthwise_inplace_scratch};

static const utvm_op_emit_slot_t depthwise_conv2d_s8_inplace_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_QUANT, 1u}, {UTVM_EMIT_DIMS, 0u}, {UTVM_EMIT_DIMS, 1u}, {UTVM_EMIT_INPUT, 1u},
    {UTVM_EMIT_BIAS, 0u}, {UTVM_EMIT_DIMS, 2u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_SCRATCH, 0u},
    {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_depthwise_conv2d_s8_inplace = {
    "utvm_depthwise_conv2d_params_t",
    "stride_h stride_w dilation_h dilation_w pad_top pad_left depth_multiplier input_offset "
    "output_offset act_min act_max",
    depthwise_conv2d_s8_inplace_args, NULL};

/* ---- The kernel function utvm_k_depthwise_conv2d_s16 ---- */

static const char *depthwise_s16_check(utvm_op_params_t *p) {
  p->accumulator = (int32_t)UTVM_ACCUMULATE_64;
  return ops_check_window(p, true);
}

static utvm_err_t depthwise_s16_run(const utvm_op_params_t *p, void *const *data,
                                    void *scratch) {
  (void)scratch;
  return utvm_depthwise_conv2d_s16(&p->p.depthwise, &p->quant, &p->dims[0],
                                   (const int16_t *)data[0], &p->dims[1], (const int8_t *)data[1],
                                   (p->has_bias != 0u) ? (const int64_t *)data[2] : NULL,
                                   &p->dims[2], (int16_t *)data[p->n_inputs]);
}

const utvm_op_kind_info_t utvm_op_kind_depthwise_conv2d_s16 = {
    depthwise_walk, depthwise_s16_check, NULL, depthwise_s16_run, UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t depthwise_conv2d_s16_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_QUANT, 0u}, {UTVM_EMIT_DIMS, 0u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_DIMS, 1u},
    {UTVM_EMIT_INPUT, 1u}, {UTVM_EMIT_BIAS, 0u}, {UTVM_EMIT_DIMS, 2u}, {UTVM_EMIT_OUTPUT, 0u},
    {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_depthwise_conv2d_s16 = {"utvm_depthwise_conv2d_params_t",
    "stride_h stride_w dilation_h dilation_w pad_top pad_left depth_multiplier input_offset "
    "output_offset act_min act_max",
    depthwise_conv2d_s16_args, NULL};

/* ---- The kernel function utvm_k_depthwise_conv2d_f32 ---- */

typedef char depthwise_f32_check_params[
    (sizeof(utvm_depthwise_conv2d_f32_params_t) == 36u) ? 1 : -1];

static void depthwise_f32_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, p->dims, sizeof(p->dims));
  ops_walk_block(w, &p->p.depthwise_f32, sizeof(p->p.depthwise_f32));
  ops_walk_u32(w, &p->has_bias);
}

static utvm_err_t depthwise_f32_run(const utvm_op_params_t *p, void *const *data,
                                    void *scratch) {
  (void)scratch;
  return utvm_depthwise_conv2d_f32(&p->p.depthwise_f32, &p->dims[0], (const float *)data[0],
                                   &p->dims[1], (const float *)data[1],
                                   (p->has_bias != 0u) ? (const float *)data[2] : NULL,
                                   &p->dims[2], (float *)data[p->n_inputs]);
}

const utvm_op_kind_info_t utvm_op_kind_depthwise_conv2d_f32 = {
    depthwise_f32_walk, ops_check_window_f32, NULL, depthwise_f32_run, UTVM_PLAN_STEP_DEFAULT,
    NULL};

static const utvm_op_emit_slot_t depthwise_conv2d_f32_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_DIMS, 0u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_DIMS, 1u}, {UTVM_EMIT_INPUT, 1u},
    {UTVM_EMIT_BIAS, 0u}, {UTVM_EMIT_DIMS, 2u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_depthwise_conv2d_f32 = {"utvm_depthwise_conv2d_f32_params_t",
    "stride_h stride_w dilation_h dilation_w pad_top pad_left depth_multiplier act_min:f "
    "act_max:f",
    depthwise_conv2d_f32_args, NULL};

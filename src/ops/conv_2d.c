/* CONV_2D (int8, or int16 activations with int8 weights; per-channel or per-tensor weights;
 * float32): options, prepare, run, op params, emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* Conv2DOptions (BuiltinOptions 1): the window's fields (OPS_WINDOW_*), then its own. */
enum { BIAS_TYPE = OPS_WINDOW_FIELDS, N_OPTIONS };
static const ops_field_t conv_2d_options[N_OPTIONS] = {
    {0u, OPS_U8, OPS_PADDING, 0, "padding"},
    {1u, OPS_I32, OPS_POSITIVE, 0, "stride_w"},
    {2u, OPS_I32, OPS_POSITIVE, 0, "stride_h"},
    {3u, OPS_U8, OPS_ACTIVATION, 0, "fused_activation_function"},
    {4u, OPS_I32, OPS_POSITIVE, 1, "dilation_w"},
    {5u, OPS_I32, OPS_POSITIVE, 1, "dilation_h"},
    {6u, OPS_I8, OPS_BIAS_TYPE, 0, "quantized bias type"}};

typedef struct {
  ops_conv_t conv; /* first: the per-channel arrays follow the record */
  utvm_conv2d_params_t params;
  utvm_conv2d_f32_params_t params_f32; /* conv.f32 */
} conv_record_t;

static size_t conv_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  return ops_weighted_record_size(m, op, sizeof(conv_record_t));
}

static size_t conv_scratch_size(utvm_kernels_core_t core, const utvm_model_t *m,
                                const utvm_model_operator_t *op) {
  utvm_dims_t d[3];
  utvm_model_tensor_t in;
  const bool s8 = (op->n_inputs > 0u) && (op->inputs[0] >= 0) &&
                  (utvm_model_tensor(m, (uint32_t)op->inputs[0], &in) == UTVM_OK) &&
                  (in.type == UTVM_MODEL_INT8);
  return (s8 && ops_window_dims(m, op, d))
             ? utvm_conv2d_s8_scratch_size_for(core, &d[0], &d[1], &d[2])
             : 0u;
}

/* Scratch of the in-place kernel on core (0: op cannot run in place). */
static size_t conv_inplace_scratch_size(utvm_kernels_core_t core, const utvm_model_t *m,
                                        const utvm_model_operator_t *op) {
  utvm_dims_t d[3];
  ops_window_t w;
  int32_t o[N_OPTIONS];
  size_t bytes = 0u;
  if (ops_window_plan(m, op, conv_2d_options, N_OPTIONS, o, d, &w)) {
    const utvm_conv2d_params_t p = {w.stride_h, w.stride_w, w.dilation_h, w.dilation_w,
                                    w.pad_top,  w.pad_left, 0,           0,
                                    -128,       127,
                                    (int32_t)UTVM_FILTER_PLAIN};
    bytes = utvm_conv2d_s8_inplace_scratch_size_for(core, &p, &d[0], &d[1], &d[2]);
  }
  return bytes;
}

/* INPLACE when the shapes can run in place (utvm_conv2d_s8_inplace). */
static utvm_plan_step_kind_t conv_plan_kind(const utvm_model_t *m, uint32_t index,
                                            const utvm_model_operator_t *op) {
  (void)index;
  return (conv_inplace_scratch_size(UTVM_KERNELS_PORTABLE, m, op) > 0u) ? UTVM_PLAN_STEP_INPLACE_GROW
                                                                        : UTVM_PLAN_STEP_DEFAULT;
}

static utvm_err_t conv_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  conv_record_t *rec = (conv_record_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  ops_window_t w;
  int32_t o[N_OPTIONS];
  utvm_err_t err = ops_options(c, conv_2d_options, N_OPTIONS, o);
  if (err == UTVM_OK) {
    err = ops_prepare_conv(c, false, o, 0, o[BIAS_TYPE], &w, &rec->conv, sizeof(*rec), size, &in,
                           &out);
  }
  if (err == UTVM_OK) {
    utvm_conv2d_params_t *p = &rec->params;
    p->stride_h = w.stride_h;
    p->stride_w = w.stride_w;
    p->dilation_h = w.dilation_h;
    p->dilation_w = w.dilation_w;
    p->pad_top = w.pad_top;
    p->pad_left = w.pad_left;
    p->input_offset = -in.t.quant.zero_point;
    p->output_offset = out.t.quant.zero_point;
    p->act_min = w.act_min;
    p->act_max = w.act_max;
    p->filter_layout = (int32_t)UTVM_FILTER_PLAIN;
    rec->params_f32.stride_h = w.stride_h;
    rec->params_f32.stride_w = w.stride_w;
    rec->params_f32.dilation_h = w.dilation_h;
    rec->params_f32.dilation_w = w.dilation_w;
    rec->params_f32.pad_top = w.pad_top;
    rec->params_f32.pad_left = w.pad_left;
    rec->params_f32.act_min = w.act_min_f32;
    rec->params_f32.act_max = w.act_max_f32;
    ops_conv_inplace(&rec->conv);
  }
  return err;
}

static utvm_err_t conv_execute(const void *record, uint8_t *arena) {
  const conv_record_t *r = (const conv_record_t *)record;
  const ops_conv_t *c = &r->conv;
  utvm_err_t err;
  if (c->f32) {
    err = utvm_conv2d_f32(&r->params_f32, &c->dims[0], ops_in_f32(arena, &c->input), &c->dims[1],
                          c->filter_f32, (const float *)c->bias, &c->dims[2],
                          ops_out_f32(arena, c->output));
  } else if (c->s16) {
    err = utvm_conv2d_s16(&r->params, &c->quant, c->acc, &c->dims[0],
                          (const int16_t *)ops_in(arena, &c->input), &c->dims[1], c->filter,
                          c->bias, &c->dims[2], ops_out_s16(arena, c->output));
  } else if (c->inplace) {
    err = utvm_conv2d_s8_inplace(&r->params, &c->quant, &c->dims[0], &c->dims[1], c->filter,
                                 (const int32_t *)c->bias, &c->dims[2],
                                 ops_out_s8(arena, c->output), ops_scratch(arena, c->scratch));
  } else {
    err = utvm_conv2d_s8(&r->params, &c->quant, &c->dims[0], ops_in_s8(arena, &c->input),
                         &c->dims[1], c->filter, (const int32_t *)c->bias, &c->dims[2],
                         ops_out_s8(arena, c->output), ops_scratch(arena, c->scratch));
  }
  return err;
}

static void conv_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const conv_record_t *r = (const conv_record_t *)record;
  const ops_conv_t *c = &r->conv;
  ops_conv_export(c, p);
  p->p.conv = r->params;
  if (c->f32) {
    p->kind = UTVM_OP_CONV2D_F32;
    p->p.conv_f32 = r->params_f32;
  } else if (c->s16) {
    p->kind = UTVM_OP_CONV2D_S16;
  } else if (c->inplace) {
    p->kind = UTVM_OP_CONV2D_S8_INPLACE;
    p->scratch_bytes = (uint32_t)utvm_conv2d_s8_inplace_scratch_size_for(
        core, &r->params, &c->dims[0], &c->dims[1], &c->dims[2]);
  } else {
    p->kind = UTVM_OP_CONV2D_S8;
    p->scratch_bytes =
        (uint32_t)utvm_conv2d_s8_scratch_size_for(core, &c->dims[0], &c->dims[1], &c->dims[2]);
  }
}

static bool conv_stage_shape(utvm_kernels_core_t core, const utvm_model_t *m,
                             const utvm_model_operator_t *op, utvm_stage_shape_t *shape) {
  return ops_stage_shape(core, m, op, conv_2d_options, N_OPTIONS, conv_scratch_size, shape);
}

static void conv_stage_layer(const void *record, utvm_stage_layer_s8_t *layer) {
  const conv_record_t *r = (const conv_record_t *)record;
  ops_stage_operands(&r->conv, layer);
  layer->conv = &r->params;
  layer->depthwise = NULL;
}

const utvm_op_t utvm_op_conv_2d = {
    (int32_t)UTVM_MODEL_OP_CONV_2D, 2u, 3u, 1u, conv_record_size, conv_scratch_size,
    conv_prepare, conv_execute, conv_export, ops_inputs_weighted, 0u, 0u, NULL, conv_plan_kind,
    conv_inplace_scratch_size, conv_stage_shape, conv_stage_layer};

/* ---- The kernel function utvm_k_conv2d_s8 ---- */

typedef char conv_check_params[(sizeof(utvm_conv2d_params_t) == 44u) ? 1 : -1];

static void conv_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, p->dims, sizeof(p->dims));
  ops_walk_laid_out(w, &p->p.conv, offsetof(utvm_conv2d_params_t, filter_layout),
                    &p->p.conv.filter_layout, 2u);
  ops_walk_u32(w, &p->has_bias);
  ops_walk_quant(w, &p->quant);
}

static size_t conv_scratch(const utvm_op_params_t *p) {
  return utvm_conv2d_s8_scratch_size(&p->dims[0], &p->dims[1], &p->dims[2]);
}

static utvm_err_t conv_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  return utvm_conv2d_s8(&p->p.conv, &p->quant, &p->dims[0], (const int8_t *)data[0],
                        &p->dims[1], (const int8_t *)data[1],
                        (p->has_bias != 0u) ? (const int32_t *)data[2] : NULL, &p->dims[2],
                        (int8_t *)data[p->n_inputs], scratch);
}

/* ops_check_window, and the filter operand as params.filter_layout lays it out (a DSP_S16
 * filter: int16 values, an MVE_TERMS one int8 bytes; utvm_conv2d_s8_filter_size bytes). */
static const char *conv_check_laid_out(utvm_op_params_t *p, bool s16) {
  const char *why = ops_check_window(p, s16);
  const int32_t layout = p->p.conv.filter_layout;
  if ((why == NULL) && !s16 &&
      ((layout == (int32_t)UTVM_FILTER_DSP_S16) || (layout == (int32_t)UTVM_FILTER_MVE_TERMS))) {
    const bool wide = layout == (int32_t)UTVM_FILTER_DSP_S16;
    const size_t bytes = utvm_conv2d_s8_filter_size((utvm_filter_layout_t)layout, &p->dims[1]);
    if ((bytes == 0u) ||
        !ops_set_operand(p, 1u, wide ? UTVM_OP_TYPE_INT16 : UTVM_OP_TYPE_INT8,
                         (uint64_t)bytes / (wide ? 2u : 1u))) {
      why = "a tensor is too large";
    }
  } else if ((why == NULL) && (layout != (int32_t)UTVM_FILTER_PLAIN)) {
    why = s16 ? "filter layout not plain (int16 activations read TFLite's filter)"
              : "unknown filter layout";
  } else {
    /* checked */
  }
  return why;
}

static const char *conv_check(utvm_op_params_t *p) { return conv_check_laid_out(p, false); }

const utvm_op_kind_info_t utvm_op_kind_conv2d_s8 = {conv_walk, conv_check, conv_scratch, conv_run,
                                                    UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t conv2d_s8_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_QUANT, 1u},
    {UTVM_EMIT_DIMS, 0u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_DIMS, 1u}, {UTVM_EMIT_INPUT, 1u},
    {UTVM_EMIT_BIAS, 0u}, {UTVM_EMIT_DIMS, 2u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_SCRATCH, 0u},
    {UTVM_EMIT_END, 0u}};

/* The filter (input 1) laid out for core's kernels, for a convolution their fast kernel takes
 * (not grouped): DSP_S16 (int16, in SXTB16's order) on a core with the DSP extension,
 * MVE_TERMS (each row's input_offset * sum after the values) on an MVE core. */
static bool conv_lay_out(utvm_op_params_t *p, utvm_kernels_core_t core, const void *src,
                         void *dst, size_t cap, uint32_t *input, size_t *bytes) {
  const utvm_dims_t *filter = &p->dims[1];
  const utvm_filter_layout_t layout =
      (core == UTVM_KERNELS_MVE) ? UTVM_FILTER_MVE_TERMS : UTVM_FILTER_DSP_S16;
  const size_t n = utvm_conv2d_s8_filter_size(layout, filter);
  bool laid_out = ((core == UTVM_KERNELS_DSP) || (core == UTVM_KERNELS_MVE)) && (n > 0u) &&
                  (p->p.conv.filter_layout == (int32_t)UTVM_FILTER_PLAIN) &&
                  (utvm_conv2d_s8_scratch_size_for(core, &p->dims[0], filter, &p->dims[2]) >
                   0u);
  if (laid_out && (dst != NULL)) {
    laid_out = utvm_conv2d_s8_pack_filter(layout, filter, p->p.conv.input_offset,
                                          (const int8_t *)src, dst, cap) == UTVM_OK;
  }
  if (laid_out) {
    p->p.conv.filter_layout = (int32_t)layout;
    *input = 1u;
    *bytes = n;
  }
  return laid_out;
}

const utvm_op_emit_t utvm_op_emit_conv2d_s8 = {"utvm_conv2d_params_t",
    "stride_h stride_w dilation_h dilation_w pad_top pad_left input_offset output_offset "
    "act_min act_max filter_layout",
    conv2d_s8_args, conv_lay_out};

/* ---- The kernel function utvm_k_conv2d_s8_inplace ---- */

static size_t conv_inplace_scratch(const utvm_op_params_t *p) {
  return utvm_conv2d_s8_inplace_scratch_size_for(UTVM_KERNELS_NATIVE, &p->p.conv, &p->dims[0],
                                                 &p->dims[1], &p->dims[2]);
}

/* In place when the output is the input's memory (a planned arena), else the plain kernel. */
static utvm_err_t conv_inplace_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  if (data[0] != data[p->n_inputs]) {
    return conv_run(p, data, scratch);
  }
  return utvm_conv2d_s8_inplace(&p->p.conv, &p->quant, &p->dims[0], &p->dims[1],
                                (const int8_t *)data[1],
                                (p->has_bias != 0u) ? (const int32_t *)data[2] : NULL,
                                &p->dims[2], (int8_t *)data[p->n_inputs], scratch);
}

static const char *conv_inplace_check(utvm_op_params_t *p) {
  const char *why = conv_check_laid_out(p, false);
  if ((why == NULL) && (conv_inplace_scratch(p) == 0u)) {
    why = "shapes that cannot run in place";
  }
  return why;
}

const utvm_op_kind_info_t utvm_op_kind_conv2d_s8_inplace = {conv_walk, conv_inplace_check,
                                                            conv_scratch, conv_inplace_run,
                                                            UTVM_PLAN_STEP_INPLACE_GROW,
                                                            conv_inplace_scratch};

static const utvm_op_emit_slot_t conv2d_s8_inplace_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_QUANT, 1u}, {UTVM_EMIT_DIMS, 0u}, {UTVM_EMIT_DIMS, 1u}, {UTVM_EMIT_INPUT, 1u},
    {UTVM_EMIT_BIAS, 0u}, {UTVM_EMIT_DIMS, 2u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_SCRATCH, 0u},
    {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_conv2d_s8_inplace = {"utvm_conv2d_params_t",
    "stride_h stride_w dilation_h dilation_w pad_top pad_left input_offset output_offset "
    "act_min act_max filter_layout",
    conv2d_s8_inplace_args, conv_lay_out};

/* ---- The kernel function utvm_k_conv2d_s16 ---- */

static void conv_s16_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  conv_walk(w, p);
  ops_walk_i32(w, &p->accumulator);
}

static const char *conv_s16_check(utvm_op_params_t *p) { return conv_check_laid_out(p, true); }

static utvm_err_t conv_s16_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_conv2d_s16(&p->p.conv, &p->quant, (utvm_accumulator_t)p->accumulator, &p->dims[0],
                         (const int16_t *)data[0], &p->dims[1], (const int8_t *)data[1],
                         (p->has_bias != 0u) ? data[2] : NULL, &p->dims[2],
                         (int16_t *)data[p->n_inputs]);
}

const utvm_op_kind_info_t utvm_op_kind_conv2d_s16 = {conv_s16_walk, conv_s16_check, NULL,
                                                     conv_s16_run, UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t conv2d_s16_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_QUANT, 0u}, {UTVM_EMIT_ACCUMULATOR, 0u}, {UTVM_EMIT_DIMS, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_DIMS, 1u}, {UTVM_EMIT_INPUT, 1u}, {UTVM_EMIT_BIAS, 0u},
    {UTVM_EMIT_DIMS, 2u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_conv2d_s16 = {"utvm_conv2d_params_t",
    "stride_h stride_w dilation_h dilation_w pad_top pad_left input_offset output_offset "
    "act_min act_max filter_layout",
    conv2d_s16_args, NULL};

/* ---- The kernel function utvm_k_conv2d_f32 ---- */

typedef char conv_f32_check_params[(sizeof(utvm_conv2d_f32_params_t) == 32u) ? 1 : -1];

static void conv_f32_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, p->dims, sizeof(p->dims));
  ops_walk_block(w, &p->p.conv_f32, sizeof(p->p.conv_f32));
  ops_walk_u32(w, &p->has_bias);
}

static utvm_err_t conv_f32_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_conv2d_f32(&p->p.conv_f32, &p->dims[0], (const float *)data[0], &p->dims[1],
                         (const float *)data[1],
                         (p->has_bias != 0u) ? (const float *)data[2] : NULL, &p->dims[2],
                         (float *)data[p->n_inputs]);
}

const utvm_op_kind_info_t utvm_op_kind_conv2d_f32 = {conv_f32_walk, ops_check_window_f32, NULL,
                                                     conv_f32_run, UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t conv2d_f32_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_DIMS, 0u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_DIMS, 1u}, {UTVM_EMIT_INPUT, 1u},
    {UTVM_EMIT_BIAS, 0u}, {UTVM_EMIT_DIMS, 2u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_conv2d_f32 = {"utvm_conv2d_f32_params_t",
    "stride_h stride_w dilation_h dilation_w pad_top pad_left act_min:f act_max:f",
    conv2d_f32_args, NULL};

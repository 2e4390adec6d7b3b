/* FULLY_CONNECTED (int8, or int16 activations with int8 weights; per-tensor weights with any
 * zero point, or per-channel symmetric; float32): options, prepare, run, op params, emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "ops_internal.h"

/* FullyConnectedOptions (BuiltinOptions 8); keep_num_dims (2) and asymmetric_quantize_inputs
 * (3) change nothing for int8. */
enum { ACTIVATION, WEIGHTS_FORMAT, BIAS_TYPE, N_OPTIONS };
static const ops_field_t fully_connected_options[N_OPTIONS] = {
    {0u, OPS_U8, OPS_ACTIVATION, 0, "fused_activation_function"},
    {1u, OPS_U8, OPS_ZERO, 0, "weights format"},
    {4u, OPS_I8, OPS_BIAS_TYPE, 0, "quantized bias type"}};

typedef struct {
  ops_ref_t input;
  const int8_t *filter;
  const void *bias;        /* int32 (int64 for int16 with the 64-bit accumulator), or NULL */
  utvm_accumulator_t acc;  /* int16 activations: the accumulator */
  bool s16;                /* int16 activations */
  bool f32;                /* float32 operands: filter_f32, a float bias, params_f32 */
  const float *filter_f32;
  utvm_activation_f32_t params_f32;
  utvm_per_channel_quant_t quant; /* arrays follow the record */
  uint32_t output;
  uint32_t scratch;
  int32_t batches;
  int32_t depth;
  int32_t units;
  utvm_fully_connected_params_t params;
  utvm_dims_t stage_dims[3]; /* as a stage's tail (fc_stage_layer): input, filter, output */
} fc_record_t;

static size_t fc_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  return ops_weighted_record_size(m, op, sizeof(fc_record_t));
}

static size_t fc_scratch_size(utvm_kernels_core_t core, const utvm_model_t *m,
                              const utvm_model_operator_t *op) {
  utvm_model_tensor_t f;
  utvm_model_tensor_t out;
  utvm_model_tensor_t in;
  (void)core;
  if (!ops_present(op, 0u) || (utvm_model_tensor(m, (uint32_t)op->inputs[0], &in) != UTVM_OK) ||
      (in.type != UTVM_MODEL_INT8) || !ops_present(op, 1u) || (op->n_outputs < 1u) ||
      (utvm_model_tensor(m, (uint32_t)op->inputs[1], &f) != UTVM_OK) ||
      (utvm_model_tensor(m, (uint32_t)op->outputs[0], &out) != UTVM_OK) || (f.rank != 2u) ||
      (f.dims[0] < 1)) {
    return 0u;
  }
  const uint64_t batches = (uint64_t)out.elements / (uint64_t)f.dims[0];
  return (batches <= (uint64_t)INT32_MAX)
             ? utvm_fully_connected_s8_scratch_size((int32_t)batches, f.dims[1], f.dims[0])
             : 0u;
}

/* Filter [units, depth]; the output is [..., units] and the input holds as many rows of depth
 * elements as the output has rows. */
static utvm_err_t fc_shapes(const utvm_op_context_t *c, const ops_operand_t *in,
                            const ops_operand_t *f, const ops_operand_t *out, fc_record_t *rec) {
  const int32_t units = f->t.dims[0];
  const int32_t depth = f->t.dims[1];
  if ((out->t.rank < 1u) || (out->t.dims[out->t.rank - 1u] != units)) {
    return ops_fail_fit(c, "output", out, "filter", f);
  }
  const uint64_t batches = (uint64_t)out->t.elements / (uint64_t)units;
  if ((batches * (uint64_t)depth) != (uint64_t)in->t.elements) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, "input ");
    utvm_text_dims(text, in->t.rank, in->t.dims);
    utvm_text_str(text, " is not ");
    utvm_text_u64(text, batches);
    utvm_text_str(text, " rows of ");
    utvm_text_i64(text, depth);
    utvm_text_str(text, " (filter ");
    utvm_text_dims(text, f->t.rank, f->t.dims);
    utvm_text_str(text, ", output ");
    utvm_text_dims(text, out->t.rank, out->t.dims);
    utvm_text_str(text, ")");
    return UTVM_ERR_RUNNER_OPERANDS;
  }
  rec->batches = (int32_t)batches;
  rec->depth = depth;
  rec->units = units;
  rec->stage_dims[0] = (in->t.rank == 4u) ? ops_dims(&in->t) : (utvm_dims_t){1, 1, 1, depth};
  rec->stage_dims[1] = (utvm_dims_t){units, 1, 1, depth};
  rec->stage_dims[2] = (utvm_dims_t){1, 1, 1, units};
  return UTVM_OK;
}

static utvm_err_t fc_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  fc_record_t *rec = (fc_record_t *)record;
  ops_operand_t in;
  ops_operand_t f;
  ops_operand_t out;
  int32_t o[N_OPTIONS];
  utvm_err_t err = ops_options(c, fully_connected_options, N_OPTIONS, o);
  if (err == UTVM_OK) {
    err = ops_load(c, 0u, &in);
  }
  rec->f32 = (err == UTVM_OK) && (in.t.type == UTVM_MODEL_FLOAT32);
  if (rec->f32) {
    err = ops_load_weighted_f32(c, &in, &f, &out);
  } else if (err == UTVM_OK) {
    err = ops_load_weighted(c, &in, &f, &out);
  } else {
    /* the text is written */
  }
  if (err == UTVM_OK) {
    err = ops_check_rank(c, &f, "filter", 2u);
  }
  if ((err == UTVM_OK) && !rec->f32) {
    err = ops_check_filter(c, &f, 0, f.t.dims[0]);
  }
  if ((err == UTVM_OK) && !rec->f32 && (f.t.quant.count > 1u)) {
    err = ops_check_filter_zero_points(c, &f);
  }
  if (err == UTVM_OK) {
    err = fc_shapes(c, &in, &f, &out, rec);
  }
  rec->s16 = (err == UTVM_OK) && (in.t.type == UTVM_MODEL_INT16);
  rec->acc = UTVM_ACCUMULATE_32;
  (void)memset(&rec->quant, 0, sizeof(rec->quant));
  if ((err == UTVM_OK) && rec->f32) {
    err = ops_load_bias_f32(c, rec->units, &rec->bias);
  } else if (err == UTVM_OK) {
    err = ops_load_bias(c, rec->s16, true, o[BIAS_TYPE], rec->units, &rec->bias, &rec->acc);
  } else {
    /* the text is written */
  }
  if ((err == UTVM_OK) && rec->f32) {
    rec->params.act_min = 0; /* the int8 fields are not used */
    rec->params.act_max = 0;
    err = utvm_activation_range_f32(o[ACTIVATION], &rec->params_f32.act_min,
                                    &rec->params_f32.act_max);
    err = (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "activation");
  } else if ((err == UTVM_OK) && rec->s16) {
    err = utvm_activation_range_s16(o[ACTIVATION], out.t.quant.scale, out.t.quant.zero_point,
                                    &rec->params.act_min, &rec->params.act_max);
    err = (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "activation");
  } else if (err == UTVM_OK) {
    err = utvm_activation_range_s8(o[ACTIVATION], out.t.quant.scale, out.t.quant.zero_point,
                                   &rec->params.act_min, &rec->params.act_max);
    err = (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "activation");
  } else {
    /* the text is written */
  }
  if ((err == UTVM_OK) && !rec->f32) {
    err = ops_channel_quant(c, rec, sizeof(*rec), size, &in, &f, &out, true, &rec->quant);
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  if (err == UTVM_OK) {
    const void *filter = f.t.data;
    rec->filter = (const int8_t *)filter;
    rec->filter_f32 = rec->f32 ? (const float *)filter : NULL;
    rec->scratch = c->scratch;
    rec->params.input_offset = -in.t.quant.zero_point;
    rec->params.filter_offset = (f.t.quant.count == 1u) ? -f.t.quant.zero_point : 0;
    rec->params.output_offset = out.t.quant.zero_point;
    rec->params.weights_layout = (int32_t)UTVM_FILTER_PLAIN;
  }
  return err;
}

static utvm_err_t fc_execute(const void *record, uint8_t *arena) {
  const fc_record_t *r = (const fc_record_t *)record;
  utvm_err_t err;
  if (r->f32) {
    err = utvm_fully_connected_f32(&r->params_f32, r->batches, r->depth, r->units,
                                   ops_in_f32(arena, &r->input), r->filter_f32,
                                   (const float *)r->bias, ops_out_f32(arena, r->output));
  } else if (r->s16) {
    err = utvm_fully_connected_s16(&r->params, &r->quant, r->acc, r->batches, r->depth,
                                   r->units, (const int16_t *)ops_in(arena, &r->input), r->filter,
                                   r->bias, ops_out_s16(arena, r->output));
  } else {
    err = utvm_fully_connected_s8(&r->params, &r->quant, r->batches, r->depth, r->units,
                                  ops_in_s8(arena, &r->input), r->filter,
                                  (const int32_t *)r->bias, ops_out_s8(arena, r->output),
                                  ops_scratch(arena, r->scratch));
  }
  return err;
}

static void fc_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const fc_record_t *r = (const fc_record_t *)record;
  (void)core;
  p->kind = r->s16 ? UTVM_OP_FULLY_CONNECTED_S16 : UTVM_OP_FULLY_CONNECTED_S8;
  p->accumulator = (int32_t)r->acc;
  p->batches = r->batches;
  p->depth = r->depth;
  p->units = r->units;
  p->p.fc = r->params;
  p->has_bias = 0u;
  if (r->bias != NULL) {
    p->has_bias = 1u;
  }
  p->quant = r->quant;
  if (r->f32) {
    p->kind = UTVM_OP_FULLY_CONNECTED_F32;
    p->p.act_f32 = r->params_f32;
  } else if (!r->s16) {
    p->scratch_bytes =
        (uint32_t)utvm_fully_connected_s8_scratch_size(r->batches, r->depth, r->units);
  } else {
    /* int16: no scratch */
  }
}

/* As the tail of a patch-by-patch stage: int8, one batch of a 4-D input. */
static bool fc_stage_shape(utvm_kernels_core_t core, const utvm_model_t *m,
                           const utvm_model_operator_t *op, utvm_stage_shape_t *shape) {
  utvm_model_tensor_t in;
  utvm_model_tensor_t f;
  utvm_model_tensor_t out;
  (void)core;
  if (!ops_present(op, 0u) || !ops_present(op, 1u) || (op->n_outputs != 1u) ||
      (utvm_model_tensor(m, (uint32_t)op->inputs[0], &in) != UTVM_OK) ||
      (utvm_model_tensor(m, (uint32_t)op->inputs[1], &f) != UTVM_OK) ||
      (utvm_model_tensor(m, (uint32_t)op->outputs[0], &out) != UTVM_OK) ||
      (in.type != UTVM_MODEL_INT8) || (in.rank != 4u) || (f.rank != 2u) || (f.dims[0] < 1) ||
      (out.elements != (size_t)f.dims[0]) || (in.elements != (size_t)f.dims[1])) {
    return false;
  }
  (void)memset(shape, 0, sizeof(*shape));
  shape->input = ops_dims(&in);
  shape->output = (utvm_dims_t){1, 1, 1, f.dims[0]};
  shape->fully_connected = true;
  return true;
}

static void fc_stage_layer(const void *record, utvm_stage_layer_s8_t *layer) {
  const fc_record_t *r = (const fc_record_t *)record;
  layer->conv = NULL;
  layer->depthwise = NULL;
  layer->fully_connected = &r->params;
  layer->quant = &r->quant;
  layer->dims = r->stage_dims;
  layer->filter = r->filter;
  layer->bias = (const int32_t *)r->bias;
}

const utvm_op_t utvm_op_fully_connected = {
    (int32_t)UTVM_MODEL_OP_FULLY_CONNECTED, 2u, 3u, 8u, fc_record_size, fc_scratch_size,
    fc_prepare, fc_execute, fc_export, ops_inputs_weighted, 0u, 0u, NULL, NULL, NULL,
    fc_stage_shape, fc_stage_layer};

/* ---- The kernel function utvm_k_fully_connected_s8 ---- */

typedef char fc_check_params[(sizeof(utvm_fully_connected_params_t) == 24u) ? 1 : -1];

static void fc_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->batches);
  ops_walk_i32(w, &p->depth);
  ops_walk_i32(w, &p->units);
  ops_walk_laid_out(w, &p->p.fc, offsetof(utvm_fully_connected_params_t, weights_layout),
                    &p->p.fc.weights_layout, 3u);
  ops_walk_u32(w, &p->has_bias);
  ops_walk_quant(w, &p->quant);
}

/* Input, filter (as weights_layout lays it out: DSP_S16 (int16 values) or MVE_TERMS, int8
 * activations only, utvm_conv2d_s8_filter_size bytes), optional bias and output of activations act, the bias of
 * the accumulator's type (int8: int32). */
static const char *fc_check_types(utvm_op_params_t *p, utvm_op_type_t act) {
  const bool acc32 = p->accumulator == (int32_t)UTVM_ACCUMULATE_32;
  const int32_t layout = p->p.fc.weights_layout;
  if ((p->accumulator != (int32_t)UTVM_ACCUMULATE_32) &&
      (p->accumulator != (int32_t)UTVM_ACCUMULATE_64)) {
    return "unknown accumulator";
  }
  if ((p->batches < 1) || (p->depth < 1) || (p->units < 1)) {
    return "a size is < 1";
  }
  const bool laid_out = (layout == (int32_t)UTVM_FILTER_DSP_S16) ||
                        (layout == (int32_t)UTVM_FILTER_MVE_TERMS);
  if ((layout != (int32_t)UTVM_FILTER_PLAIN) && (!laid_out || (act != UTVM_OP_TYPE_INT8))) {
    return (act == UTVM_OP_TYPE_INT8)
               ? "unknown weights layout"
               : "weights layout not plain (int16 activations read TFLite's weights)";
  }
  const utvm_dims_t weights = {p->units, 1, 1, p->depth};
  const uint64_t weight_bytes =
      laid_out ? (uint64_t)utvm_conv2d_s8_filter_size((utvm_filter_layout_t)layout, &weights)
               : ((uint64_t)p->units * (uint64_t)p->depth);
  /* DSP_S16 weights are int16 values */
  const bool wide = layout == (int32_t)UTVM_FILTER_DSP_S16;
  if ((p->has_bias > 1u) || (p->n_inputs != (2u + p->has_bias))) {
    return "inputs are not input, filter and optional bias";
  }
  if (!ops_quant_fits(p, p->units)) {
    return "channel count or a shift out of range";
  }
  if ((weight_bytes == 0u) ||
      !ops_set_operand(p, 0u, act, (uint64_t)p->batches * (uint64_t)p->depth) ||
      !ops_set_operand(p, 1u, wide ? UTVM_OP_TYPE_INT16 : UTVM_OP_TYPE_INT8,
                       wide ? (weight_bytes / 2u) : weight_bytes) ||
      !ops_set_operand(p, p->n_inputs, act, (uint64_t)p->batches * (uint64_t)p->units)) {
    return "a tensor is too large";
  }
  if (p->has_bias != 0u) {
    (void)ops_set_operand(p, 2u, acc32 ? UTVM_OP_TYPE_INT32 : UTVM_OP_TYPE_INT64,
                          (uint64_t)p->units);
  }
  return NULL;
}

static const char *fc_check(utvm_op_params_t *p) {
  p->accumulator = (int32_t)UTVM_ACCUMULATE_32;
  return fc_check_types(p, UTVM_OP_TYPE_INT8);
}

static size_t fc_scratch(const utvm_op_params_t *p) {
  return utvm_fully_connected_s8_scratch_size(p->batches, p->depth, p->units);
}

static utvm_err_t fc_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  return utvm_fully_connected_s8(&p->p.fc, &p->quant, p->batches, p->depth, p->units,
                                 (const int8_t *)data[0], (const int8_t *)data[1],
                                 (p->has_bias != 0u) ? (const int32_t *)data[2] : NULL,
                                 (int8_t *)data[p->n_inputs], scratch);
}

const utvm_op_kind_info_t utvm_op_kind_fully_connected_s8 = {
    fc_walk, fc_check, fc_scratch, fc_run, UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t fully_connected_s8_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_QUANT, 1u}, {UTVM_EMIT_BATCHES, 0u}, {UTVM_EMIT_DEPTH, 0u}, {UTVM_EMIT_UNITS, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_INPUT, 1u}, {UTVM_EMIT_BIAS, 0u}, {UTVM_EMIT_OUTPUT, 0u},
    {UTVM_EMIT_SCRATCH, 0u}, {UTVM_EMIT_END, 0u}};

/* The weights (input 1) laid out for core's kernels: DSP_S16 (int16 row pairs in SXTB16's
 * order) on a core with the DSP extension, MVE_TERMS (each row's input_offset * sum after the
 * values) on an MVE core. */
static bool fc_lay_out(utvm_op_params_t *p, utvm_kernels_core_t core, const void *src, void *dst,
                       size_t cap, uint32_t *input, size_t *bytes) {
  const utvm_dims_t weights = {p->units, 1, 1, p->depth};
  const utvm_filter_layout_t layout =
      (core == UTVM_KERNELS_DSP) ? UTVM_FILTER_DSP_S16 : UTVM_FILTER_MVE_TERMS;
  const size_t n = utvm_conv2d_s8_filter_size(layout, &weights);
  bool laid_out = ((core == UTVM_KERNELS_DSP) || (core == UTVM_KERNELS_MVE)) && (n > 0u) &&
                  (p->p.fc.weights_layout == (int32_t)UTVM_FILTER_PLAIN);
  if (laid_out && (dst != NULL)) {
    laid_out = utvm_conv2d_s8_pack_filter(layout, &weights, p->p.fc.input_offset,
                                          (const int8_t *)src, dst, cap) == UTVM_OK;
  }
  if (laid_out) {
    p->p.fc.weights_layout = (int32_t)layout;
    *input = 1u;
    *bytes = n;
  }
  return laid_out;
}

const utvm_op_emit_t utvm_op_emit_fully_connected_s8 = {"utvm_fully_connected_params_t",
    "input_offset filter_offset output_offset act_min act_max weights_layout",
    fully_connected_s8_args, fc_lay_out};

/* ---- The kernel function utvm_k_fully_connected_s16 ---- */

static void fc_s16_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  fc_walk(w, p);
  ops_walk_i32(w, &p->accumulator);
}

static const char *fc_s16_check(utvm_op_params_t *p) {
  return fc_check_types(p, UTVM_OP_TYPE_INT16);
}

static utvm_err_t fc_s16_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_fully_connected_s16(&p->p.fc, &p->quant, (utvm_accumulator_t)p->accumulator,
                                  p->batches, p->depth, p->units, (const int16_t *)data[0],
                                  (const int8_t *)data[1], (p->has_bias != 0u) ? data[2] : NULL,
                                  (int16_t *)data[p->n_inputs]);
}

const utvm_op_kind_info_t utvm_op_kind_fully_connected_s16 = {
    fc_s16_walk, fc_s16_check, NULL, fc_s16_run, UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t fully_connected_s16_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_QUANT, 0u}, {UTVM_EMIT_ACCUMULATOR, 0u}, {UTVM_EMIT_BATCHES, 0u},
    {UTVM_EMIT_DEPTH, 0u}, {UTVM_EMIT_UNITS, 0u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_INPUT, 1u},
    {UTVM_EMIT_BIAS, 0u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_fully_connected_s16 = {"utvm_fully_connected_params_t",
    "input_offset filter_offset output_offset act_min act_max weights_layout",
    fully_connected_s16_args, NULL};

/* ---- The kernel function utvm_k_fully_connected_f32 ---- */

typedef char fc_f32_check_params[(sizeof(utvm_activation_f32_t) == 8u) ? 1 : -1];

static void fc_f32_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->batches);
  ops_walk_i32(w, &p->depth);
  ops_walk_i32(w, &p->units);
  ops_walk_block(w, &p->p.act_f32, sizeof(p->p.act_f32));
  ops_walk_u32(w, &p->has_bias);
}

/* Input [batches, depth], weights [units, depth], optional bias [units], output [batches,
 * units], all float32. */
static const char *fc_f32_check(utvm_op_params_t *p) {
  const char *why = NULL;
  if ((p->batches < 1) || (p->depth < 1) || (p->units < 1)) {
    why = "a size is < 1";
  } else if ((p->has_bias > 1u) || (p->n_inputs != (2u + p->has_bias))) {
    why = "inputs are not input, filter and optional bias";
  } else if (!ops_set_operand(p, 0u, UTVM_OP_TYPE_FLOAT32,
                              (uint64_t)p->batches * (uint64_t)p->depth) ||
             !ops_set_operand(p, 1u, UTVM_OP_TYPE_FLOAT32,
                              (uint64_t)p->units * (uint64_t)p->depth) ||
             ((p->has_bias != 0u) &&
              !ops_set_operand(p, 2u, UTVM_OP_TYPE_FLOAT32, (uint64_t)p->units)) ||
             !ops_set_operand(p, p->n_inputs, UTVM_OP_TYPE_FLOAT32,
                              (uint64_t)p->batches * (uint64_t)p->units)) {
    why = "a tensor is too large";
  } else {
    p->accumulator = (int32_t)UTVM_ACCUMULATE_32; /* unused by the float kernel */
  }
  return why;
}

static utvm_err_t fc_f32_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_fully_connected_f32(&p->p.act_f32, p->batches, p->depth, p->units,
                                  (const float *)data[0], (const float *)data[1],
                                  (p->has_bias != 0u) ? (const float *)data[2] : NULL,
                                  (float *)data[p->n_inputs]);
}

const utvm_op_kind_info_t utvm_op_kind_fully_connected_f32 = {
    fc_f32_walk, fc_f32_check, NULL, fc_f32_run, UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t fully_connected_f32_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_BATCHES, 0u}, {UTVM_EMIT_DEPTH, 0u}, {UTVM_EMIT_UNITS, 0u}, {UTVM_EMIT_INPUT, 0u},
    {UTVM_EMIT_INPUT, 1u}, {UTVM_EMIT_BIAS, 0u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_fully_connected_f32 = {"utvm_activation_f32_t",
    "act_min:f act_max:f", fully_connected_f32_args, NULL};

/*
 * What CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED share when prepared: their operands,
 * the checks of the weights and the bias, and the per-channel output multipliers that follow
 * their records (int32 multipliers, then int8 shifts).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ops_internal.h"

/* Bytes of the per-channel arrays of count channels. */
static uint64_t channel_bytes(uint64_t count) {
  return ops_align(count * (sizeof(int32_t) + sizeof(int8_t)));
}

size_t ops_weighted_record_size(const utvm_model_t *m, const utvm_model_operator_t *op,
                                size_t record_bytes) {
  utvm_model_tensor_t f;
  uint64_t count = 1u;
  if (ops_present(op, 1u) && (utvm_model_tensor(m, (uint32_t)op->inputs[1], &f) == UTVM_OK) &&
      (f.quant.count > 1u)) {
    count = f.quant.count;
  }
  const uint64_t size = ops_align((uint64_t)record_bytes) + channel_bytes(count);
  return (size >= (uint64_t)SIZE_MAX) ? SIZE_MAX : (size_t)size;
}

utvm_err_t ops_load_weighted(const utvm_op_context_t *c, ops_operand_t *in, ops_operand_t *f,
                             ops_operand_t *out) {
  utvm_err_t err = ops_load(c, 0u, in);
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, out);
  }
  if ((err == UTVM_OK) && (in->t.type == UTVM_MODEL_INT16)) {
    err = ops_check_q16(c, in, "input");
    if (err == UTVM_OK) {
      err = ops_check_q16(c, out, "output");
    }
  } else if (err == UTVM_OK) {
    err = ops_check_q8(c, in, "input");
    if (err == UTVM_OK) {
      err = ops_check_q8(c, out, "output");
    }
  } else {
    /* the load's text */
  }
  return (err == UTVM_OK) ? ops_load(c, 1u, f) : err;
}

utvm_err_t ops_load_weighted_f32(const utvm_op_context_t *c, ops_operand_t *in,
                                 ops_operand_t *f, ops_operand_t *out) {
  utvm_err_t err = ops_check_f32_built(c);
  if (err == UTVM_OK) {
    err = ops_load(c, 0u, in);
  }
  if (err == UTVM_OK) {
    err = ops_check_type(c, in, "input", UTVM_MODEL_FLOAT32);
  }
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, out);
  }
  if (err == UTVM_OK) {
    err = ops_check_type(c, out, "output", UTVM_MODEL_FLOAT32);
  }
  if (err == UTVM_OK) {
    err = ops_load(c, 1u, f);
  }
  if (err == UTVM_OK) {
    err = ops_check_type(c, f, "filter", UTVM_MODEL_FLOAT32);
  }
  return (err == UTVM_OK) ? ops_check_constant(c, f, "filter") : err;
}

utvm_err_t ops_check_filter_zero_points(const utvm_op_context_t *c, const ops_operand_t *f) {
  uint32_t ch;
  const uint32_t count = (f->t.quant.count > 1u) ? f->t.quant.count : 1u;
  for (ch = 0u; ch < count; ch++) {
    const int32_t zp = utvm_model_quant_zero_point(&f->t.quant, ch);
    if (zp != 0) {
      utvm_text_t *text = ops_begin(c);
      utvm_text_str(text, "filter zero point ");
      utvm_text_i64(text, zp);
      utvm_text_str(text, " is not 0");
      return UTVM_ERR_RUNNER_UNSUPPORTED;
    }
  }
  return UTVM_OK;
}

utvm_err_t ops_check_filter(const utvm_op_context_t *c, const ops_operand_t *f, int32_t qdim,
                            int32_t channels) {
  utvm_err_t err = ops_check_type(c, f, "filter", UTVM_MODEL_INT8);
  if (err == UTVM_OK) {
    err = ops_check_constant(c, f, "filter");
  }
  if ((err == UTVM_OK) && (f->t.quant.count == 0u)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED, "filter is not quantized");
  }
  if ((err == UTVM_OK) && (f->t.quant.count > 1u) &&
      ((f->t.quant.quantized_dimension != qdim) || (f->t.quant.count != (uint32_t)channels))) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, "filter has ");
    utvm_text_u64(text, (uint64_t)f->t.quant.count);
    utvm_text_str(text, " channel scales along dimension ");
    utvm_text_i64(text, f->t.quant.quantized_dimension);
    utvm_text_str(text, ", not ");
    utvm_text_i64(text, channels);
    utvm_text_str(text, " along ");
    utvm_text_i64(text, qdim);
    err = UTVM_ERR_RUNNER_OPERANDS;
  }
  return err;
}

/* The bias type of an int16x8 layer and its accumulator: int64 (64-bit), or int32 (32-bit)
 * where the operator allows it (also chosen by bias_type INT32 when there is no bias). */
static utvm_err_t s16_bias_type(const utvm_op_context_t *c, bool allow_int32, int32_t bias_type,
                                utvm_model_type_t *type, utvm_accumulator_t *acc) {
  ops_operand_t b;
  utvm_err_t err = UTVM_OK;
  *type = UTVM_MODEL_INT64;
  *acc = UTVM_ACCUMULATE_64;
  if (ops_present(c->op, 2u)) {
    err = ops_load(c, 2u, &b);
    if ((err == UTVM_OK) && (b.t.type == UTVM_MODEL_INT32)) {
      *type = UTVM_MODEL_INT32;
    }
  } else if (bias_type == (int32_t)UTVM_MODEL_INT32) {
    *type = UTVM_MODEL_INT32;
  } else {
    /* no bias, the 64-bit accumulator */
  }
  if ((err == UTVM_OK) && (*type == UTVM_MODEL_INT32)) {
    *acc = UTVM_ACCUMULATE_32;
    if (!allow_int32) {
      err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                     "an int32 bias with int16 activations (TFLM's kernel takes int64 only)");
    }
  }
  return err;
}

/* The bias (input 2, present): a constant of type and `channels` elements. */
static utvm_err_t load_bias_of(const utvm_op_context_t *c, utvm_model_type_t type,
                               int32_t channels, const void **bias) {
  ops_operand_t b;
  utvm_err_t err = ops_load(c, 2u, &b);
  if (err == UTVM_OK) {
    err = ops_check_type(c, &b, "bias", type);
  }
  if (err == UTVM_OK) {
    err = ops_check_constant(c, &b, "bias");
  }
  if ((err == UTVM_OK) && (b.t.elements != (size_t)channels)) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, "bias has ");
    utvm_text_u64(text, (uint64_t)b.t.elements);
    utvm_text_str(text, " elements, not ");
    utvm_text_i64(text, channels);
    err = UTVM_ERR_RUNNER_OPERANDS;
  }
  if (err == UTVM_OK) {
    *bias = b.t.data;
  }
  return err;
}

utvm_err_t ops_load_bias(const utvm_op_context_t *c, bool s16, bool allow_int32, int32_t bias_type,
                         int32_t channels, const void **bias, utvm_accumulator_t *acc) {
  utvm_model_type_t type = UTVM_MODEL_INT32;
  utvm_err_t err = UTVM_OK;
  *bias = NULL;
  *acc = UTVM_ACCUMULATE_32;
  if (s16) {
    err = s16_bias_type(c, allow_int32, bias_type, &type, acc);
  } else if (bias_type == (int32_t)UTVM_MODEL_INT64) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "int64 bias with int8 activations is not supported");
  } else {
    /* int8: an int32 bias */
  }
  if ((err == UTVM_OK) && ops_present(c->op, 2u)) {
    err = load_bias_of(c, type, channels, bias);
  }
  return err;
}

utvm_err_t ops_load_bias_f32(const utvm_op_context_t *c, int32_t channels, const void **bias) {
  *bias = NULL;
  return ops_present(c->op, 2u) ? load_bias_of(c, UTVM_MODEL_FLOAT32, channels, bias) : UTVM_OK;
}

utvm_err_t ops_channel_quant(const utvm_op_context_t *c, void *record, size_t record_bytes,
                             size_t size, const ops_operand_t *in, const ops_operand_t *f,
                             const ops_operand_t *out, bool fully_connected,
                             utvm_per_channel_quant_t *quant) {
  uint8_t *bytes = (uint8_t *)record;
  const uint32_t count = f->t.quant.count;
  const uint64_t start = ops_align((uint64_t)record_bytes);
  const uint64_t need = start + channel_bytes((uint64_t)count);
  uint32_t ch;
  utvm_err_t err = UTVM_OK;
  if ((count == 0u) || (count > (uint32_t)INT32_MAX) || (need > (uint64_t)size)) {
    return ops_fail(c, UTVM_ERR_RUNNER_ARGUMENT, "prepared record too small");
  }
  void *m = &bytes[start];
  void *s = &bytes[start + ((uint64_t)count * 4u)];
  int32_t *multipliers = (int32_t *)m;
  int8_t *shifts = (int8_t *)s;
  quant->multiplier = multipliers;
  quant->shift = shifts;
  quant->count = (int32_t)count;
  quant->table = NULL;
  for (ch = 0u; (ch < count) && (err == UTVM_OK); ch++) {
    const float scale = utvm_model_quant_scale(&f->t.quant, ch);
    int32_t shift = 0;
    if (fully_connected && (count == 1u)) {
      err = utvm_fully_connected_quant_params(in->t.quant.scale, &scale, 1, out->t.quant.scale,
                                              &multipliers[ch], &shift);
    } else {
      err = utvm_conv_quant_params(in->t.quant.scale, &scale, 1, out->t.quant.scale,
                                   &multipliers[ch], &shift);
    }
    if (err == UTVM_OK) {
      err = ops_check_shift(c, shift);
      shifts[ch] = (int8_t)((err == UTVM_OK) ? shift : 0); /* -31..31 once checked */
    } else {
      err = ops_fail_kernel(c, err, "output multiplier");
    }
  }
  return err;
}

/* The operands of a 2-D convolution, checked. */
static utvm_err_t load_window(const utvm_op_context_t *c, bool depthwise, ops_operand_t *in,
                              ops_operand_t *f, ops_operand_t *out) {
  utvm_err_t err = ops_load(c, 0u, in);
  const bool f32 = (err == UTVM_OK) && (in->t.type == UTVM_MODEL_FLOAT32);
  if (f32) {
    err = ops_load_weighted_f32(c, in, f, out);
  } else if (err == UTVM_OK) {
    err = ops_load_weighted(c, in, f, out);
  } else {
    /* the load's text */
  }
  if (err == UTVM_OK) {
    err = ops_check_rank(c, in, "input", 4u);
  }
  if (err == UTVM_OK) {
    err = ops_check_rank(c, f, "filter", 4u);
  }
  if (err == UTVM_OK) {
    err = ops_check_rank(c, out, "output", 4u);
  }
  if ((err == UTVM_OK) && !f32) {
    err = ops_check_filter(c, f, depthwise ? 3 : 0, out->t.dims[3]);
  }
  if ((err == UTVM_OK) && !f32) {
    err = ops_check_filter_zero_points(c, f);
  }
  return err;
}

/* CONV_2D: filter [output channels, h, w, input channels / groups]. DEPTHWISE_CONV_2D: filter
 * [1, h, w, output channels], a multiple of the input's; a stored depth_multiplier (newer
 * converters store 0) must agree. */
static utvm_err_t window_fits(const utvm_op_context_t *c, bool depthwise, int32_t multiplier,
                              const ops_operand_t *in, const ops_operand_t *f,
                              const ops_operand_t *out) {
  const int32_t in_c = in->t.dims[3];
  const int32_t f_c = f->t.dims[3];
  const int32_t out_c = out->t.dims[3];
  bool fits;
  if (depthwise) {
    fits = (f->t.dims[0] == 1) && (f_c == out_c) && ((out_c % in_c) == 0);
  } else {
    fits = (f->t.dims[0] == out_c) && ((in_c % f_c) == 0) && ((out_c % (in_c / f_c)) == 0);
  }
  if (!fits) {
    return ops_fail_fit(c, "filter", f, "input", in);
  }
  if (depthwise && (multiplier > 0) && (multiplier != (out_c / in_c))) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, "depth_multiplier ");
    utvm_text_i64(text, multiplier);
    utvm_text_str(text, " differs from the shapes' ");
    utvm_text_i64(text, out_c / in_c);
    return UTVM_ERR_RUNNER_OPERANDS;
  }
  return UTVM_OK;
}

/* The output size of the window, its padding and activation range into w. */
static utvm_err_t window_output(const utvm_op_context_t *c, ops_window_t *w,
                                const ops_operand_t *in, const ops_operand_t *f,
                                const ops_operand_t *out) {
  utvm_padding_values_t pad;
  utvm_err_t err = UTVM_OK;
  (void)memset(&pad, 0, sizeof(pad));
  if (out->t.dims[0] != in->t.dims[0]) {
    return ops_fail_fit(c, "output", out, "input", in);
  }
  err = utvm_compute_padding(ops_padding(w->padding), w->stride_h, w->stride_w, w->dilation_h,
                             w->dilation_w, in->t.dims[1], in->t.dims[2], f->t.dims[1],
                             f->t.dims[2], &pad);
  if (err != UTVM_OK) {
    return ops_fail_kernel(c, err, "padding");
  }
  if ((pad.out_h != out->t.dims[1]) || (pad.out_w != out->t.dims[2])) {
    return ops_fail_output_size(c, out, pad.out_h, pad.out_w);
  }
  w->pad_top = pad.pad_top;
  w->pad_left = pad.pad_left;
  if (out->t.type == UTVM_MODEL_FLOAT32) {
    err = utvm_activation_range_f32(w->activation, &w->act_min_f32, &w->act_max_f32);
  } else if (out->t.type == UTVM_MODEL_INT16) {
    err = utvm_activation_range_s16(w->activation, out->t.quant.scale, out->t.quant.zero_point,
                                    &w->act_min, &w->act_max);
  } else {
    err = utvm_activation_range_s8(w->activation, out->t.quant.scale, out->t.quant.zero_point,
                                   &w->act_min, &w->act_max);
  }
  return (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "activation");
}

utvm_err_t ops_prepare_conv(const utvm_op_context_t *c, bool depthwise, const int32_t *options,
                            int32_t multiplier, int32_t bias_type, ops_window_t *w,
                            ops_conv_t *conv, size_t record_bytes, size_t size,
                            ops_operand_t *in, ops_operand_t *out) {
  ops_operand_t f;
  w->padding = options[OPS_WINDOW_PADDING];
  w->stride_h = options[OPS_WINDOW_STRIDE_H];
  w->stride_w = options[OPS_WINDOW_STRIDE_W];
  w->dilation_h = options[OPS_WINDOW_DILATION_H];
  w->dilation_w = options[OPS_WINDOW_DILATION_W];
  w->activation = options[OPS_WINDOW_ACTIVATION];
  w->act_min = 0; /* set by window_output for its type */
  w->act_max = 0;
  w->act_min_f32 = 0.0f;
  w->act_max_f32 = 0.0f;
  utvm_err_t err = load_window(c, depthwise, in, &f, out);
  if (err == UTVM_OK) {
    err = window_fits(c, depthwise, multiplier, in, &f, out);
  }
  if (err == UTVM_OK) {
    err = window_output(c, w, in, &f, out);
  }
  conv->s16 = (err == UTVM_OK) && (in->t.type == UTVM_MODEL_INT16);
  conv->f32 = (err == UTVM_OK) && (in->t.type == UTVM_MODEL_FLOAT32);
  conv->acc = UTVM_ACCUMULATE_32;
  (void)memset(&conv->quant, 0, sizeof(conv->quant));
  if ((err == UTVM_OK) && conv->f32) {
    err = ops_load_bias_f32(c, out->t.dims[3], &conv->bias);
  } else if (err == UTVM_OK) {
    err = ops_load_bias(c, conv->s16, !depthwise, bias_type, out->t.dims[3], &conv->bias,
                        &conv->acc);
    if (err == UTVM_OK) {
      err = ops_channel_quant(c, conv, record_bytes, size, in, &f, out, false, &conv->quant);
    }
  } else {
    /* the text is written */
  }
  if (err == UTVM_OK) {
    err = ops_places(c, in, &conv->input, out, &conv->output);
  }
  if (err == UTVM_OK) {
    const void *filter = f.t.data;
    conv->filter = (const int8_t *)filter;
    conv->filter_f32 = conv->f32 ? (const float *)filter : NULL;
    conv->scratch = c->scratch;
    conv->dims[0] = ops_dims(&in->t);
    conv->dims[1] = ops_dims(&f.t);
    conv->dims[2] = ops_dims(&out->t);
  }
  return err;
}

void ops_conv_export(const ops_conv_t *conv, utvm_op_params_t *p) {
  (void)memcpy(p->dims, conv->dims, sizeof(conv->dims));
  p->has_bias = 0u;
  if (conv->bias != NULL) {
    p->has_bias = 1u;
  }
  p->accumulator = (int32_t)conv->acc;
  p->quant = conv->quant;
}

bool ops_window_dims(const utvm_model_t *m, const utvm_model_operator_t *op, utvm_dims_t *d) {
  utvm_model_tensor_t t[3];
  const int32_t index[3] = {(op->n_inputs > 0u) ? op->inputs[0] : -1,
                            (op->n_inputs > 1u) ? op->inputs[1] : -1,
                            (op->n_outputs > 0u) ? op->outputs[0] : -1};
  uint32_t i;
  for (i = 0u; i < 3u; i++) {
    if ((index[i] < 0) || (utvm_model_tensor(m, (uint32_t)index[i], &t[i]) != UTVM_OK) ||
        (t[i].rank != 4u)) {
      return false;
    }
    d[i].n = t[i].dims[0];
    d[i].h = t[i].dims[1];
    d[i].w = t[i].dims[2];
    d[i].c = t[i].dims[3];
  }
  return true;
}

void ops_conv_inplace(ops_conv_t *conv) {
  conv->inplace = !conv->s16 && !conv->f32 && (conv->input.constant == NULL) &&
                  (conv->input.offset == conv->output);
}

bool ops_window_plan(const utvm_model_t *m, const utvm_model_operator_t *op,
                     const ops_field_t *fields, uint32_t n, int32_t *options, utvm_dims_t *d,
                     ops_window_t *w) {
  utvm_text_t text;
  utvm_op_context_t c;
  utvm_model_tensor_t in;
  utvm_padding_values_t pad;
  bool ok = (op->n_inputs > 0u) && (op->inputs[0] >= 0) &&
            (utvm_model_tensor(m, (uint32_t)op->inputs[0], &in) == UTVM_OK) &&
            (in.type == UTVM_MODEL_INT8) && ops_window_dims(m, op, d);
  ops_plan_context(&c, &text, m, 0u, op);
  ok = ok && (ops_options(&c, fields, n, options) == UTVM_OK);
  if (ok) {
    w->padding = options[OPS_WINDOW_PADDING];
    w->stride_h = options[OPS_WINDOW_STRIDE_H];
    w->stride_w = options[OPS_WINDOW_STRIDE_W];
    w->dilation_h = options[OPS_WINDOW_DILATION_H];
    w->dilation_w = options[OPS_WINDOW_DILATION_W];
    ok = utvm_compute_padding(ops_padding(w->padding), w->stride_h, w->stride_w, w->dilation_h,
                              w->dilation_w, d[0].h, d[0].w, d[1].h, d[1].w, &pad) == UTVM_OK;
  }
  if (ok) {
    w->pad_top = pad.pad_top;
    w->pad_left = pad.pad_left;
  }
  return ok;
}

const char *ops_check_window(utvm_op_params_t *p, bool s16) {
  uint64_t e[3] = {0u, 0u, 0u};
  uint32_t i;
  const utvm_op_type_t act = s16 ? UTVM_OP_TYPE_INT16 : UTVM_OP_TYPE_INT8;
  if (!s16) {
    p->accumulator = (int32_t)UTVM_ACCUMULATE_32; /* int8: an int32 bias */
  }
  const bool acc32 = p->accumulator == (int32_t)UTVM_ACCUMULATE_32;
  if ((p->accumulator != (int32_t)UTVM_ACCUMULATE_32) &&
      (p->accumulator != (int32_t)UTVM_ACCUMULATE_64)) {
    return "unknown accumulator";
  }
  for (i = 0u; i < 3u; i++) {
    if (!ops_dims_elements(&p->dims[i], &e[i])) {
      return "a dimension is < 1 or a tensor too large";
    }
  }
  if ((p->has_bias > 1u) || (p->n_inputs != (2u + p->has_bias))) {
    return "inputs are not input, filter and optional bias";
  }
  if (!ops_quant_fits(p, p->dims[2].c)) {
    return "channel count or a shift out of range";
  }
  (void)ops_set_operand(p, 0u, act, e[0]);
  (void)ops_set_operand(p, 1u, UTVM_OP_TYPE_INT8, e[1]);
  if ((p->has_bias != 0u) &&
      !ops_set_operand(p, 2u, acc32 ? UTVM_OP_TYPE_INT32 : UTVM_OP_TYPE_INT64,
                       (uint64_t)p->dims[2].c)) {
    return "a tensor is too large";
  }
  (void)ops_set_operand(p, p->n_inputs, act, e[2]);
  return NULL;
}

const char *ops_check_window_f32(utvm_op_params_t *p) {
  uint64_t e[3] = {0u, 0u, 0u};
  uint32_t i;
  p->accumulator = (int32_t)UTVM_ACCUMULATE_32; /* unused by the float kernels */
  for (i = 0u; i < 3u; i++) {
    if (!ops_dims_elements(&p->dims[i], &e[i])) {
      return "a dimension is < 1 or a tensor too large";
    }
  }
  if ((p->has_bias > 1u) || (p->n_inputs != (2u + p->has_bias))) {
    return "inputs are not input, filter and optional bias";
  }
  const bool fits = ops_set_operand(p, 0u, UTVM_OP_TYPE_FLOAT32, e[0]) &&
                    ops_set_operand(p, 1u, UTVM_OP_TYPE_FLOAT32, e[1]) &&
                    ((p->has_bias == 0u) ||
                     ops_set_operand(p, 2u, UTVM_OP_TYPE_FLOAT32, (uint64_t)p->dims[2].c)) &&
                    ops_set_operand(p, p->n_inputs, UTVM_OP_TYPE_FLOAT32, e[2]);
  return fits ? NULL : "a tensor is too large";
}

bool ops_stage_shape(utvm_kernels_core_t core, const utvm_model_t *m,
                     const utvm_model_operator_t *op, const ops_field_t *fields, uint32_t n,
                     size_t (*scratch_size)(utvm_kernels_core_t core, const utvm_model_t *m,
                                            const utvm_model_operator_t *op),
                     utvm_stage_shape_t *shape) {
  utvm_dims_t d[3];
  ops_window_t w;
  int32_t options[OPS_WINDOW_FIELDS + 1u];
  if ((n > (OPS_WINDOW_FIELDS + 1u)) || !ops_window_plan(m, op, fields, n, options, d, &w)) {
    return false;
  }
  (void)memset(shape, 0, sizeof(*shape));
  shape->input = d[0];
  shape->output = d[2];
  shape->filter_h = d[1].h;
  shape->stride_h = w.stride_h;
  shape->dilation_h = w.dilation_h;
  shape->pad_top = w.pad_top;
  shape->kernel_scratch = scratch_size(core, m, op);
  return true;
}

void ops_stage_operands(const ops_conv_t *conv, utvm_stage_layer_s8_t *layer) {
  layer->fully_connected = NULL;
  layer->quant = &conv->quant;
  layer->dims = conv->dims;
  layer->filter = conv->filter;
  layer->bias = (const int32_t *)conv->bias;
}

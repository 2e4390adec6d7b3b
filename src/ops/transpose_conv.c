/* TRANSPOSE_CONV (int8, or int16 activations with int8 weights and an int64 bias; per-channel
 * or per-tensor weights): options, prepare, run, op params, emit. Inputs: output shape (a
 * constant), weights, input, optional bias; the kernel function takes weights, input, bias. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ops_internal.h"

/* TransposeConvOptions (BuiltinOptions 49). */
enum { PADDING, STRIDE_W, STRIDE_H, ACTIVATION, BIAS_TYPE, N_OPTIONS };
static const ops_field_t tconv_options[N_OPTIONS] = {
    {0u, OPS_U8, OPS_PADDING, 0, "padding"},
    {1u, OPS_I32, OPS_POSITIVE, 0, "stride_w"},
    {2u, OPS_I32, OPS_POSITIVE, 0, "stride_h"},
    {3u, OPS_U8, OPS_ACTIVATION, 0, "fused_activation_function"},
    {4u, OPS_I8, OPS_BIAS_TYPE, 0, "quantized bias type"}};

enum { SHAPE_IN, FILTER_IN, DATA_IN, BIAS_IN };

typedef struct {
  ops_ref_t input;
  const int8_t *filter;
  const void *bias;                /* int32 (int8) or int64 (int16), or NULL */
  utvm_per_channel_quant_t quant;  /* arrays follow the record */
  uint32_t output;
  uint32_t scratch;
  int32_t element_size;
  utvm_dims_t dims[3];             /* input, filter, output */
  utvm_conv2d_params_t params;
} tconv_record_t;

static size_t tconv_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  return ops_weighted_record_size(m, op, sizeof(tconv_record_t));
}

static size_t tconv_scratch_size(utvm_kernels_core_t core, const utvm_model_t *m,
                                 const utvm_model_operator_t *op) {
  utvm_model_tensor_t in;
  utvm_model_tensor_t out;
  (void)core;
  if (!ops_present(op, DATA_IN) || (op->n_outputs < 1u) ||
      (utvm_model_tensor(m, (uint32_t)op->inputs[DATA_IN], &in) != UTVM_OK) ||
      (utvm_model_tensor(m, (uint32_t)op->outputs[0], &out) != UTVM_OK) || (out.rank != 4u)) {
    return 0u;
  }
  const utvm_dims_t d = ops_dims(&out);
  return utvm_transpose_conv_scratch_size((in.type == UTVM_MODEL_INT16) ? 2 : 1, &d);
}

/* The output shape input: a constant int32 [4] equal to the output's shape. */
static utvm_err_t tconv_output_shape(const utvm_op_context_t *c, const ops_operand_t *out) {
  ops_operand_t s;
  uint32_t i;
  utvm_err_t err = ops_load_int_constant(c, SHAPE_IN, "output shape", false, &s);
  bool same = (err == UTVM_OK) && (s.t.elements == 4u);
  for (i = 0u; same && (i < 4u); i++) {
    int32_t v = 0;
    same = ops_read_int(&s.t, i, &v) && (v == out->t.dims[i]);
  }
  if ((err == UTVM_OK) && !same) {
    err = ops_fail_fit(c, "output", out, "output shape input", &s);
  }
  return err;
}

/* The optional bias (input 3): int32 [Co] for int8, int64 [Co] for int16. */
static utvm_err_t tconv_bias(const utvm_op_context_t *c, bool s16, int32_t channels,
                             const void **bias) {
  ops_operand_t b;
  utvm_err_t err = UTVM_OK;
  *bias = NULL;
  if (ops_present(c->op, BIAS_IN)) {
    err = ops_load(c, BIAS_IN, &b);
    if (err == UTVM_OK) {
      err = ops_check_type(c, &b, "bias", s16 ? UTVM_MODEL_INT64 : UTVM_MODEL_INT32);
    }
    if (err == UTVM_OK) {
      err = ops_check_constant(c, &b, "bias");
    }
    if ((err == UTVM_OK) && (b.t.elements != (size_t)channels)) {
      err = ops_fail_shape(c, "bias", &b, " is not one value per output channel");
    }
    if (err == UTVM_OK) {
      *bias = b.t.data;
    }
  }
  return err;
}

/* Shapes: 4-D operands, filter [Co, KH, KW, Ci], and the output size whose forward
 * convolution gives the input (TFLM's padding from the output). */
static utvm_err_t tconv_window(const utvm_op_context_t *c, const int32_t *o,
                               const ops_operand_t *in, const ops_operand_t *f,
                               const ops_operand_t *out, utvm_conv2d_params_t *p) {
  utvm_padding_values_t pad;
  utvm_err_t err = ops_check_rank(c, in, "input", 4u);
  (void)memset(&pad, 0, sizeof(pad));
  if (err == UTVM_OK) {
    err = ops_check_rank(c, f, "filter", 4u);
  }
  if (err == UTVM_OK) {
    err = ops_check_rank(c, out, "output", 4u);
  }
  if ((err == UTVM_OK) && ((f->t.dims[3] != in->t.dims[3]) || (f->t.dims[0] != out->t.dims[3]) ||
                           (in->t.dims[0] != out->t.dims[0]))) {
    err = ops_fail_fit(c, "filter", f, "input and output of", in);
  }
  if (err == UTVM_OK) {
    err = utvm_compute_padding(ops_padding(o[PADDING]), o[STRIDE_H], o[STRIDE_W], 1, 1,
                               out->t.dims[1], out->t.dims[2], f->t.dims[1], f->t.dims[2],
                               &pad);
    err = (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "padding");
  }
  if ((err == UTVM_OK) && ((pad.out_h != in->t.dims[1]) || (pad.out_w != in->t.dims[2]))) {
    err = ops_fail_fit(c, "output", out, "input, strides and padding of", in);
  }
  p->stride_h = o[STRIDE_H];
  p->stride_w = o[STRIDE_W];
  p->dilation_h = 1;
  p->dilation_w = 1;
  p->pad_top = pad.pad_top;
  p->pad_left = pad.pad_left;
  p->filter_layout = (int32_t)UTVM_FILTER_PLAIN;
  return err;
}

static utvm_err_t tconv_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  tconv_record_t *rec = (tconv_record_t *)record;
  ops_operand_t in;
  ops_operand_t f;
  ops_operand_t out;
  int32_t o[N_OPTIONS];
  bool s16 = false;
  bool out16 = false;
  utvm_err_t err = ops_options(c, tconv_options, N_OPTIONS, o);
  if (err == UTVM_OK) {
    err = ops_load(c, DATA_IN, &in);
  }
  if (err == UTVM_OK) {
    err = ops_load(c, FILTER_IN, &f);
  }
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, &out);
  }
  if (err == UTVM_OK) {
    err = ops_check_q8_q16(c, &in, "input", &s16);
  }
  if (err == UTVM_OK) {
    err = ops_check_q8_q16(c, &out, "output", &out16);
  }
  if ((err == UTVM_OK) && (out16 != s16)) {
    err = ops_check_type(c, &out, "output", in.t.type);
  }
  if (err == UTVM_OK) {
    err = tconv_window(c, o, &in, &f, &out, &rec->params);
  }
  if (err == UTVM_OK) {
    err = tconv_output_shape(c, &out);
  }
  if (err == UTVM_OK) {
    err = ops_check_filter(c, &f, 0, out.t.dims[3]);
  }
  if (err == UTVM_OK) {
    err = ops_check_filter_zero_points(c, &f);
  }
  if (err == UTVM_OK) {
    err = tconv_bias(c, s16, out.t.dims[3], &rec->bias);
  }
  if ((err == UTVM_OK) && s16) {
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
  if (err == UTVM_OK) {
    err = ops_channel_quant(c, rec, sizeof(*rec), size, &in, &f, &out, false, &rec->quant);
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  if ((err == UTVM_OK) && (c->scratch == UTVM_PLAN_NO_OFFSET)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_ARGUMENT, "no scratch planned");
  }
  if (err == UTVM_OK) {
    rec->filter = (const int8_t *)(const void *)f.t.data;
    rec->scratch = c->scratch;
    rec->element_size = 1;
    if (s16) {
      rec->element_size = 2;
    }
    rec->params.input_offset = -in.t.quant.zero_point;
    rec->params.output_offset = out.t.quant.zero_point;
    rec->dims[0] = ops_dims(&in.t);
    rec->dims[1] = ops_dims(&f.t);
    rec->dims[2] = ops_dims(&out.t);
  }
  return err;
}

static utvm_err_t tconv_execute(const void *record, uint8_t *arena) {
  const tconv_record_t *r = (const tconv_record_t *)record;
  return utvm_transpose_conv(&r->params, &r->quant, r->element_size, &r->dims[0],
                             ops_in(arena, &r->input), &r->dims[1], r->filter, r->bias,
                             &r->dims[2], &arena[r->output], ops_scratch(arena, r->scratch));
}

static void tconv_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const tconv_record_t *r = (const tconv_record_t *)record;
  (void)core;
  p->kind = UTVM_OP_TRANSPOSE_CONV;
  (void)memcpy(p->dims, r->dims, sizeof(r->dims));
  p->p.conv = r->params;
  p->has_bias = 0u;
  if (r->bias != NULL) {
    p->has_bias = 1u;
  }
  p->type = (r->element_size == 2) ? (int32_t)UTVM_OP_TYPE_INT16 : (int32_t)UTVM_OP_TYPE_INT8;
  p->quant = r->quant;
  p->scratch_bytes = (uint32_t)utvm_transpose_conv_scratch_size(r->element_size, &r->dims[2]);
}

/* The kernel function's inputs: weights, input and the bias when present. */
static uint32_t tconv_inputs(const utvm_model_operator_t *op) {
  return ops_present(op, BIAS_IN) ? 3u : 2u;
}

const utvm_op_t utvm_op_transpose_conv = {(int32_t)UTVM_MODEL_OP_TRANSPOSE_CONV, 3u, 4u, 49u,
                                          tconv_record_size, tconv_scratch_size, tconv_prepare,
                                          tconv_execute, tconv_export, tconv_inputs, 0u, 1u,
                                          NULL, NULL, NULL, NULL, NULL};

/* ---- The kernel function utvm_k_transpose_conv ---- */

static void tconv_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, p->dims, sizeof(p->dims));
  ops_walk_laid_out(w, &p->p.conv, offsetof(utvm_conv2d_params_t, filter_layout),
                    &p->p.conv.filter_layout, 2u);
  ops_walk_i32(w, &p->type);
  ops_walk_u32(w, &p->has_bias);
  ops_walk_quant(w, &p->quant);
}

static const char *tconv_check(utvm_op_params_t *p) {
  uint64_t e[3] = {0u, 0u, 0u};
  uint32_t i;
  const bool s16 = p->type == (int32_t)UTVM_OP_TYPE_INT16;
  const utvm_op_type_t act = s16 ? UTVM_OP_TYPE_INT16 : UTVM_OP_TYPE_INT8;
  if (!s16 && (p->type != (int32_t)UTVM_OP_TYPE_INT8)) {
    return "element type is not int8 or int16";
  }
  for (i = 0u; i < 3u; i++) {
    if (!ops_dims_elements(&p->dims[i], &e[i])) {
      return "a dimension is < 1 or a tensor too large";
    }
  }
  if ((p->has_bias > 1u) || (p->n_inputs != (2u + p->has_bias))) {
    return "inputs are not filter, input and optional bias";
  }
  if (!ops_quant_fits(p, p->dims[2].c)) {
    return "channel count or a shift out of range";
  }
  (void)ops_set_operand(p, 0u, UTVM_OP_TYPE_INT8, e[1]);
  (void)ops_set_operand(p, 1u, act, e[0]);
  if (p->has_bias != 0u) {
    (void)ops_set_operand(p, 2u, s16 ? UTVM_OP_TYPE_INT64 : UTVM_OP_TYPE_INT32,
                          (uint64_t)p->dims[2].c);
  }
  (void)ops_set_operand(p, p->n_inputs, act, e[2]);
  return NULL;
}

static size_t tconv_scratch(const utvm_op_params_t *p) {
  return utvm_transpose_conv_scratch_size((p->type == (int32_t)UTVM_OP_TYPE_INT16) ? 2 : 1,
                                          &p->dims[2]);
}

static utvm_err_t tconv_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  return utvm_transpose_conv(&p->p.conv, &p->quant,
                             (p->type == (int32_t)UTVM_OP_TYPE_INT16) ? 2 : 1, &p->dims[0],
                             data[1], &p->dims[1], (const int8_t *)data[0],
                             (p->has_bias != 0u) ? data[2] : NULL, &p->dims[2],
                             data[p->n_inputs], scratch);
}

const utvm_op_kind_info_t utvm_op_kind_transpose_conv = {tconv_walk, tconv_check, tconv_scratch,
                                                         tconv_run, UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t tconv_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_QUANT, 0u},
    {UTVM_EMIT_ELEMENT_SIZE, 0u}, {UTVM_EMIT_DIMS, 0u}, {UTVM_EMIT_INPUT, 1u},
    {UTVM_EMIT_DIMS, 1u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_BIAS, 0u}, {UTVM_EMIT_DIMS, 2u},
    {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_SCRATCH, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_transpose_conv = {"utvm_conv2d_params_t",
    "stride_h stride_w dilation_h dilation_w pad_top pad_left input_offset output_offset "
    "act_min act_max",
    tconv_args, NULL};

/*
 * Preparing one operator: every operand's type, shape, constness and quantization is checked
 * against what the operator and its kernel need (the reader only verified the file's
 * structure), then the kernel's integer parameters are computed from the model's float scales
 * with the kernels' prepare helpers, as TFLite's Prepare does. The result is a record that
 * runner_execute() turns into one kernel call.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runner_internal.h"

/* SOFTMAX and LOGISTIC outputs have scale 1/256, TANH 1/128, within TFLite's tolerance. */
#define SCALE_1_256 0.00390625f
#define SCALE_1_128 0.0078125f
#define SCALE_TOLERANCE 0.001f

/* A decoded operand and its tensor index. */
typedef struct {
  uint32_t index;
  utvm_model_tensor_t t;
} operand_t;

/* The operator being prepared. */
typedef struct {
  const runner_prepare_ctx_t *ctx;
  uint32_t index;
  const utvm_model_operator_t *op;
} prep_t;

static uint64_t prep_align(uint64_t x) {
  const uint64_t mask = (uint64_t)RUNNER_ALIGN - 1u;
  return (x + mask) & ~mask;
}

/* Starts the text "operator <k> (<NAME>): " and returns it. */
static utvm_text_t *prep_begin(const prep_t *p) {
  utvm_text_t *text = p->ctx->text;
  utvm_model_text_operator(text, p->index, (int32_t)p->op->code);
  return text;
}

static utvm_err_t prep_fail(const prep_t *p, utvm_err_t err, const char *msg) {
  utvm_text_t *text = prep_begin(p);
  utvm_text_str(text, msg);
  return err;
}

/* "<what>: <kernel error>" for a failed prepare helper. */
static utvm_err_t prep_fail_kernel(const prep_t *p, utvm_err_t err, const char *what) {
  utvm_text_t *text = prep_begin(p);
  utvm_text_str(text, what);
  utvm_text_str(text, ": ");
  utvm_text_str(text, utvm_strerror(err));
  return err;
}

/* "<role> <shape> <msg>". */
static utvm_err_t prep_fail_shape(const prep_t *p, const char *role, const operand_t *o,
                             const char *msg) {
  utvm_text_t *text = prep_begin(p);
  utvm_text_str(text, role);
  utvm_text_str(text, " ");
  utvm_text_dims(text, o->t.rank, o->t.dims);
  utvm_text_str(text, msg);
  return UTVM_ERR_RUNNER_OPERANDS;
}

/* "<role> <shape> does not fit <other role> <shape>". */
static utvm_err_t prep_fail_fit(const prep_t *p, const char *role, const operand_t *a,
                           const char *other, const operand_t *b) {
  utvm_text_t *text = prep_begin(p);
  utvm_text_str(text, role);
  utvm_text_str(text, " ");
  utvm_text_dims(text, a->t.rank, a->t.dims);
  utvm_text_str(text, " does not fit ");
  utvm_text_str(text, other);
  utvm_text_str(text, " ");
  utvm_text_dims(text, b->t.rank, b->t.dims);
  return UTVM_ERR_RUNNER_OPERANDS;
}

/* Decodes input k (which must be present) or output 0 (k == UINT32_MAX). */
static utvm_err_t load(const prep_t *p, uint32_t k, operand_t *o) {
  int32_t index = -1;
  if (k == UINT32_MAX) {
    index = (p->op->n_outputs > 0u) ? p->op->outputs[0] : -1;
  } else if (k < p->op->n_inputs) {
    index = p->op->inputs[k];
  } else {
    index = -1;
  }
  if (index < 0) {
    return prep_fail(p, UTVM_ERR_RUNNER_OPERANDS, "a required operand is absent");
  }
  o->index = (uint32_t)index;
  if (utvm_model_tensor(p->ctx->m, o->index, &o->t) != UTVM_OK) {
    return prep_fail(p, UTVM_ERR_RUNNER_OPERANDS, "an operand cannot be decoded");
  }
  return UTVM_OK;
}

/* True if input k is given (not -1). */
static bool present(const prep_t *p, uint32_t k) {
  return (k < p->op->n_inputs) && (p->op->inputs[k] >= 0);
}

static bool dims_positive(const utvm_model_tensor_t *t) {
  uint32_t d;
  bool ok = t->rank <= UTVM_MODEL_MAX_DIMS;
  for (d = 0u; ok && (d < t->rank); d++) {
    ok = t->dims[d] >= 1;
  }
  return ok;
}

/* Every dimension >= 1 (the kernels do not take empty tensors). */
static utvm_err_t check_nonempty(const prep_t *p, const operand_t *o, const char *role) {
  if (!dims_positive(&o->t)) {
    return prep_fail_shape(p, role, o, " has an empty dimension");
  }
  return UTVM_OK;
}

static utvm_err_t check_type(const prep_t *p, const operand_t *o, const char *role,
                             utvm_model_type_t type) {
  if (o->t.type != type) {
    utvm_text_t *text = prep_begin(p);
    utvm_text_str(text, role);
    utvm_text_str(text, " is ");
    utvm_text_str(text, runner_type_name(o->t.type));
    utvm_text_str(text, ", not ");
    utvm_text_str(text, runner_type_name(type));
    return UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return check_nonempty(p, o, role);
}

/* An int8 tensor quantized per tensor, every dimension >= 1. */
static utvm_err_t check_q8(const prep_t *p, const operand_t *o, const char *role) {
  utvm_err_t err = check_type(p, o, role, UTVM_MODEL_INT8);
  if ((err == UTVM_OK) && (o->t.quant.count != 1u)) {
    utvm_text_t *text = prep_begin(p);
    utvm_text_str(text, role);
    utvm_text_str(text, (o->t.quant.count == 0u) ? " is not quantized"
                                                            : " is quantized per channel");
    err = UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return err;
}

static utvm_err_t check_rank(const prep_t *p, const operand_t *o, const char *role,
                             uint32_t rank) {
  if (o->t.rank != rank) {
    utvm_text_t *text = prep_begin(p);
    utvm_text_str(text, role);
    utvm_text_str(text, " ");
    utvm_text_dims(text, o->t.rank, o->t.dims);
    utvm_text_str(text, " is not ");
    utvm_text_u64(text, (uint64_t)rank);
    utvm_text_str(text, "-D");
    return UTVM_ERR_RUNNER_OPERANDS;
  }
  return UTVM_OK;
}

static utvm_err_t check_constant(const prep_t *p, const operand_t *o, const char *role) {
  if (o->t.data == NULL) {
    utvm_text_t *text = prep_begin(p);
    utvm_text_str(text, role);
    utvm_text_str(text, " is not constant");
    return UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return UTVM_OK;
}

static bool same_quant(const operand_t *a, const operand_t *b) {
  return (a->t.quant.scale == b->t.quant.scale) &&
         (a->t.quant.zero_point == b->t.quant.zero_point);
}

static bool scale_near(float scale, float target) {
  const float diff = scale - target;
  const float tolerance = SCALE_TOLERANCE * target;
  return (diff <= tolerance) && (-diff <= tolerance);
}

/* Where an input operand lives. */
static utvm_err_t input_ref(const prep_t *p, const operand_t *o, runner_ref_t *ref) {
  ref->constant = o->t.data;
  ref->offset = 0u;
  if (o->t.data == NULL) {
    ref->offset = p->ctx->offsets[o->index];
    if (ref->offset == UTVM_PLAN_NO_OFFSET) {
      return prep_fail(p, UTVM_ERR_RUNNER_OPERANDS, "an input has no place in the arena");
    }
  }
  return UTVM_OK;
}

static utvm_err_t output_offset(const prep_t *p, const operand_t *o, uint32_t *offset) {
  *offset = p->ctx->offsets[o->index];
  if (*offset == UTVM_PLAN_NO_OFFSET) {
    return prep_fail(p, UTVM_ERR_RUNNER_OPERANDS, "the output has no place in the arena");
  }
  return UTVM_OK;
}

static utvm_dims_t to_dims(const utvm_model_tensor_t *t) {
  utvm_dims_t d;
  d.n = t->dims[0];
  d.h = t->dims[1];
  d.w = t->dims[2];
  d.c = t->dims[3];
  return d;
}

static utvm_shape_t to_shape(const utvm_model_tensor_t *t) {
  utvm_shape_t s;
  uint32_t d;
  s.rank = (int32_t)t->rank;
  for (d = 0u; d < (uint32_t)UTVM_KERNEL_MAX_RANK; d++) {
    s.dims[d] = (d < t->rank) ? t->dims[d] : 0;
  }
  return s;
}

static utvm_padding_t to_padding(utvm_model_padding_t padding) {
  return (padding == UTVM_MODEL_PADDING_SAME) ? UTVM_PADDING_SAME : UTVM_PADDING_VALID;
}

/* Bytes of the per-channel arrays of count channels: int32_t multipliers, then int8_t shifts. */
static uint64_t channel_bytes(uint64_t count) {
  return prep_align(count * (sizeof(int32_t) + sizeof(int8_t)));
}

/* The per-channel arrays (count entries each) that follow a record of record_bytes in a block
 * of size bytes; quant points to them. */
static utvm_err_t channel_arrays(const prep_t *p, void *record, size_t record_bytes, size_t size,
                                 uint32_t count, int32_t **multipliers, int8_t **shifts,
                                 utvm_per_channel_quant_t *quant) {
  uint8_t *bytes = (uint8_t *)record;
  const uint64_t start = prep_align((uint64_t)record_bytes);
  const uint64_t need = start + channel_bytes((uint64_t)count);
  if ((count == 0u) || (count > (uint32_t)INT32_MAX) || (need > (uint64_t)size)) {
    return prep_fail(p, UTVM_ERR_RUNNER_ARGUMENT, "prepared record too small");
  }
  void *m = &bytes[start];
  void *s = &bytes[start + ((uint64_t)count * 4u)];
  *multipliers = (int32_t *)m;
  *shifts = (int8_t *)s;
  quant->multiplier = *multipliers;
  quant->shift = *shifts;
  quant->count = (int32_t)count;
  return UTVM_OK;
}

/* A multiplier's shift within the kernels' range (-31..31): the scale ratio it stands for
 * lies between 2^-32 and 2^31. */
static utvm_err_t check_shift(const prep_t *p, int32_t shift) {
  if ((shift < -31) || (shift > 31)) {
    utvm_text_t *text = prep_begin(p);
    utvm_text_str(text, "the scales' ratio is about 2^");
    utvm_text_i64(text, shift);
    utvm_text_str(text, " (the kernels take 2^-31 to 2^31)");
    return UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return UTVM_OK;
}

/* Filter zero points must be 0: the int8 kernels take symmetric weights (FULLY_CONNECTED
 * per-tensor weights excepted). */
static utvm_err_t check_filter_zero_points(const prep_t *p, const operand_t *f) {
  uint32_t c;
  const uint32_t count = (f->t.quant.count > 1u) ? f->t.quant.count : 1u;
  for (c = 0u; c < count; c++) {
    const int32_t zp = utvm_model_quant_zero_point(&f->t.quant, c);
    if (zp != 0) {
      utvm_text_t *text = prep_begin(p);
      utvm_text_str(text, "filter zero point ");
      utvm_text_i64(text, zp);
      utvm_text_str(text, " is not 0");
      return UTVM_ERR_RUNNER_UNSUPPORTED;
    }
  }
  return UTVM_OK;
}

/* The weights of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED: constant int8, quantized per
 * tensor or per channel along dimension qdim with `channels` channels. */
static utvm_err_t check_filter(const prep_t *p, const operand_t *f, int32_t qdim,
                               int32_t channels) {
  utvm_err_t err = check_type(p, f, "filter", UTVM_MODEL_INT8);
  if (err == UTVM_OK) {
    err = check_constant(p, f, "filter");
  }
  if ((err == UTVM_OK) && (f->t.quant.count == 0u)) {
    err = prep_fail(p, UTVM_ERR_RUNNER_UNSUPPORTED, "filter is not quantized");
  }
  if ((err == UTVM_OK) && (f->t.quant.count > 1u) &&
      ((f->t.quant.quantized_dimension != qdim) || (f->t.quant.count != (uint32_t)channels))) {
    utvm_text_t *text = prep_begin(p);
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

/* The optional int32 bias of `channels` elements; *bias is NULL when absent. */
static utvm_err_t load_bias(const prep_t *p, int32_t bias_type, int32_t channels,
                            const int32_t **bias) {
  operand_t b;
  utvm_err_t err = UTVM_OK;
  *bias = NULL;
  if (bias_type == (int32_t)UTVM_MODEL_INT64) {
    return prep_fail(p, UTVM_ERR_RUNNER_UNSUPPORTED, "int64 bias (int16 activations) is not supported");
  }
  if (present(p, 2u)) {
    err = load(p, 2u, &b);
    if (err == UTVM_OK) {
      err = check_type(p, &b, "bias", UTVM_MODEL_INT32);
    }
    if (err == UTVM_OK) {
      err = check_constant(p, &b, "bias");
    }
    if ((err == UTVM_OK) && (b.t.elements != (size_t)channels)) {
      utvm_text_t *text = prep_begin(p);
      utvm_text_str(text, "bias has ");
      utvm_text_u64(text, (uint64_t)b.t.elements);
      utvm_text_str(text, " elements, not ");
      utvm_text_i64(text, channels);
      err = UTVM_ERR_RUNNER_OPERANDS;
    }
    if (err == UTVM_OK) {
      const void *data = b.t.data;
      *bias = (const int32_t *)data;
    }
  }
  return err;
}

/* Per-channel (count > 1) or per-tensor output multipliers of a convolution or a fully
 * connected layer, into multipliers[count] and shifts[count]. */
static utvm_err_t channel_multipliers(const prep_t *p, const operand_t *in, const operand_t *f,
                                      const operand_t *out, bool fully_connected, uint32_t count,
                                      int32_t *multipliers, int8_t *shifts) {
  uint32_t c;
  utvm_err_t err = UTVM_OK;
  for (c = 0u; (c < count) && (err == UTVM_OK); c++) {
    const float scale = utvm_model_quant_scale(&f->t.quant, c);
    int32_t shift = 0;
    if (fully_connected && (count == 1u)) {
      err = utvm_fully_connected_quant_params(in->t.quant.scale, &scale, 1, out->t.quant.scale,
                                              &multipliers[c], &shift);
    } else {
      err = utvm_conv_quant_params(in->t.quant.scale, &scale, 1, out->t.quant.scale,
                                   &multipliers[c], &shift);
    }
    if (err == UTVM_OK) {
      err = check_shift(p, shift);
      shifts[c] = (int8_t)((err == UTVM_OK) ? shift : 0); /* -31..31 once checked */
    } else {
      err = prep_fail_kernel(p, err, "output multiplier");
    }
  }
  return err;
}

/* Input 0, the filter (input 1) and the output of CONV_2D / DEPTHWISE_CONV_2D / FC. */
static utvm_err_t load_weighted(const prep_t *p, operand_t *in, operand_t *f, operand_t *out) {
  utvm_err_t err = load(p, 0u, in);
  if (err == UTVM_OK) {
    err = load(p, 1u, f);
  }
  if (err == UTVM_OK) {
    err = load(p, UINT32_MAX, out);
  }
  if (err == UTVM_OK) {
    err = check_q8(p, in, "input");
  }
  if (err == UTVM_OK) {
    err = check_q8(p, out, "output");
  }
  return err;
}

/* The window options of CONV_2D or DEPTHWISE_CONV_2D. */
typedef struct {
  utvm_model_padding_t padding;
  int32_t stride_h;
  int32_t stride_w;
  int32_t dilation_h;
  int32_t dilation_w;
  utvm_model_activation_t activation;
  int32_t bias_type;
} conv_options_t;

static utvm_err_t conv_options(const prep_t *p, bool depthwise, conv_options_t *o) {
  const utvm_model_options_t *opt = &p->op->options;
  if (depthwise && (opt->kind == UTVM_MODEL_OPTIONS_DEPTHWISE_CONV_2D)) {
    o->padding = opt->u.depthwise.padding;
    o->stride_h = opt->u.depthwise.stride_h;
    o->stride_w = opt->u.depthwise.stride_w;
    o->dilation_h = opt->u.depthwise.dilation_h;
    o->dilation_w = opt->u.depthwise.dilation_w;
    o->activation = opt->u.depthwise.activation;
    o->bias_type = 0;
    return UTVM_OK;
  }
  if (!depthwise && (opt->kind == UTVM_MODEL_OPTIONS_CONV_2D)) {
    o->padding = opt->u.conv2d.padding;
    o->stride_h = opt->u.conv2d.stride_h;
    o->stride_w = opt->u.conv2d.stride_w;
    o->dilation_h = opt->u.conv2d.dilation_h;
    o->dilation_w = opt->u.conv2d.dilation_w;
    o->activation = opt->u.conv2d.activation;
    o->bias_type = opt->u.conv2d.quantized_bias_type;
    return UTVM_OK;
  }
  return prep_fail(p, UTVM_ERR_RUNNER_OPERANDS, "options of another operator");
}

/* Filter, input and output channels of a convolution fit together. */
static utvm_err_t conv_shapes(const prep_t *p, bool depthwise, const operand_t *in,
                              const operand_t *f, const operand_t *out) {
  const int32_t in_c = in->t.dims[3];
  const int32_t out_c = out->t.dims[3];
  bool fits;
  if (depthwise) {
    const int32_t stored = p->op->options.u.depthwise.depth_multiplier;
    fits = (f->t.dims[0] == 1) && (f->t.dims[3] == out_c) && ((out_c % in_c) == 0);
    if (fits && (stored > 0) && (stored != (out_c / in_c))) {
      utvm_text_t *text = prep_begin(p);
      utvm_text_str(text, "depth_multiplier ");
      utvm_text_i64(text, stored);
      utvm_text_str(text, " differs from the shapes' ");
      utvm_text_i64(text, out_c / in_c);
      return UTVM_ERR_RUNNER_OPERANDS;
    }
  } else {
    const int32_t f_c = f->t.dims[3];
    fits = (f->t.dims[0] == out_c) && ((in_c % f_c) == 0) && ((out_c % (in_c / f_c)) == 0);
  }
  if (!fits) {
    return prep_fail_fit(p, "filter", f, "input", in);
  }
  if (out->t.dims[0] != in->t.dims[0]) {
    return prep_fail_fit(p, "output", out, "input", in);
  }
  return UTVM_OK;
}

/* "output [..] is not the [n,h,w,c] the options give". */
static utvm_err_t fail_output_size(const prep_t *p, const operand_t *out, int32_t h, int32_t w) {
  int32_t expected[4];
  expected[0] = out->t.dims[0];
  expected[1] = h;
  expected[2] = w;
  expected[3] = out->t.dims[3];
  utvm_text_t *text = prep_begin(p);
  utvm_text_str(text, "output ");
  utvm_text_dims(text, out->t.rank, out->t.dims);
  utvm_text_str(text, " is not the ");
  utvm_text_dims(text, 4u, expected);
  utvm_text_str(text, " the options give");
  return UTVM_ERR_RUNNER_OPERANDS;
}

static utvm_err_t prepare_conv(const prep_t *p, runner_conv_t *rec, size_t size) {
  const bool depthwise = p->op->code == UTVM_MODEL_OP_DEPTHWISE_CONV_2D;
  operand_t in;
  operand_t f;
  operand_t out;
  conv_options_t o;
  utvm_padding_values_t pad;
  int32_t *multipliers = NULL;
  int8_t *shifts = NULL;
  int32_t act_min = 0;
  int32_t act_max = 0;
  (void)memset(&o, 0, sizeof(o));
  (void)memset(&pad, 0, sizeof(pad));
  utvm_err_t err = load_weighted(p, &in, &f, &out);
  if (err == UTVM_OK) {
    err = check_rank(p, &in, "input", 4u);
  }
  if (err == UTVM_OK) {
    err = check_rank(p, &f, "filter", 4u);
  }
  if (err == UTVM_OK) {
    err = check_rank(p, &out, "output", 4u);
  }
  if (err == UTVM_OK) {
    err = check_filter(p, &f, depthwise ? 3 : 0, out.t.dims[3]);
  }
  if (err == UTVM_OK) {
    err = check_filter_zero_points(p, &f);
  }
  if (err == UTVM_OK) {
    err = conv_shapes(p, depthwise, &in, &f, &out);
  }
  if (err == UTVM_OK) {
    err = conv_options(p, depthwise, &o);
  }
  if (err == UTVM_OK) {
    err = utvm_compute_padding(to_padding(o.padding), o.stride_h, o.stride_w, o.dilation_h,
                               o.dilation_w, in.t.dims[1], in.t.dims[2], f.t.dims[1],
                               f.t.dims[2], &pad);
    if (err != UTVM_OK) {
      err = prep_fail_kernel(p, err, "padding");
    } else if ((pad.out_h != out.t.dims[1]) || (pad.out_w != out.t.dims[2])) {
      err = fail_output_size(p, &out, pad.out_h, pad.out_w);
    } else {
      err = UTVM_OK;
    }
  }
  if (err == UTVM_OK) {
    err = load_bias(p, o.bias_type, out.t.dims[3], &rec->bias);
  }
  if (err == UTVM_OK) {
    err = utvm_activation_range_s8((int32_t)o.activation, out.t.quant.scale,
                                   out.t.quant.zero_point, &act_min, &act_max);
    err = (err == UTVM_OK) ? UTVM_OK : prep_fail_kernel(p, err, "activation");
  }
  if (err == UTVM_OK) {
    err = channel_arrays(p, rec, sizeof(*rec), size, f.t.quant.count, &multipliers, &shifts,
                         &rec->quant);
  }
  if (err == UTVM_OK) {
    err = channel_multipliers(p, &in, &f, &out, false, f.t.quant.count, multipliers, shifts);
  }
  if (err == UTVM_OK) {
    err = input_ref(p, &in, &rec->input);
  }
  if (err == UTVM_OK) {
    err = output_offset(p, &out, &rec->output);
  }
  if (err == UTVM_OK) {
    const void *filter = f.t.data;
    rec->filter = (const int8_t *)filter;
    rec->scratch = p->ctx->scratch_offsets[p->index];
    rec->input_dims = to_dims(&in.t);
    rec->filter_dims = to_dims(&f.t);
    rec->output_dims = to_dims(&out.t);
    if (depthwise) {
      utvm_depthwise_conv2d_params_t *d = &rec->params.depthwise;
      d->stride_h = o.stride_h;
      d->stride_w = o.stride_w;
      d->dilation_h = o.dilation_h;
      d->dilation_w = o.dilation_w;
      d->pad_top = pad.pad_top;
      d->pad_left = pad.pad_left;
      d->depth_multiplier = out.t.dims[3] / in.t.dims[3];
      d->input_offset = -in.t.quant.zero_point;
      d->output_offset = out.t.quant.zero_point;
      d->act_min = act_min;
      d->act_max = act_max;
    } else {
      utvm_conv2d_params_t *c = &rec->params.conv;
      c->stride_h = o.stride_h;
      c->stride_w = o.stride_w;
      c->dilation_h = o.dilation_h;
      c->dilation_w = o.dilation_w;
      c->pad_top = pad.pad_top;
      c->pad_left = pad.pad_left;
      c->input_offset = -in.t.quant.zero_point;
      c->output_offset = out.t.quant.zero_point;
      c->act_min = act_min;
      c->act_max = act_max;
    }
  }
  return err;
}

/* FULLY_CONNECTED: filter [units, depth]; the output is [..., units] and the input holds as
 * many rows of depth elements as the output has rows. */
static utvm_err_t fc_shapes(const prep_t *p, const operand_t *in, const operand_t *f,
                            const operand_t *out, runner_fc_t *rec) {
  const int32_t units = f->t.dims[0];
  const int32_t depth = f->t.dims[1];
  if ((out->t.rank < 1u) || (out->t.dims[out->t.rank - 1u] != units)) {
    return prep_fail_fit(p, "output", out, "filter", f);
  }
  const uint64_t batches = (uint64_t)out->t.elements / (uint64_t)units;
  if ((batches * (uint64_t)depth) != (uint64_t)in->t.elements) {
    utvm_text_t *text = prep_begin(p);
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
  return UTVM_OK;
}

static utvm_err_t prepare_fc(const prep_t *p, runner_fc_t *rec, size_t size) {
  const utvm_model_fully_connected_options_t *o = &p->op->options.u.fully_connected;
  operand_t in;
  operand_t f;
  operand_t out;
  int32_t *multipliers = NULL;
  int8_t *shifts = NULL;
  utvm_err_t err = load_weighted(p, &in, &f, &out);
  if ((err == UTVM_OK) && (p->op->options.kind != UTVM_MODEL_OPTIONS_FULLY_CONNECTED)) {
    err = prep_fail(p, UTVM_ERR_RUNNER_OPERANDS, "options of another operator");
  }
  if (err == UTVM_OK) {
    err = check_rank(p, &f, "filter", 2u);
  }
  if (err == UTVM_OK) {
    err = check_filter(p, &f, 0, f.t.dims[0]);
  }
  if ((err == UTVM_OK) && (f.t.quant.count > 1u)) {
    err = check_filter_zero_points(p, &f);
  }
  if (err == UTVM_OK) {
    err = fc_shapes(p, &in, &f, &out, rec);
  }
  if (err == UTVM_OK) {
    err = load_bias(p, o->quantized_bias_type, rec->units, &rec->bias);
  }
  if (err == UTVM_OK) {
    err = utvm_activation_range_s8((int32_t)o->activation, out.t.quant.scale,
                                   out.t.quant.zero_point, &rec->params.act_min,
                                   &rec->params.act_max);
    err = (err == UTVM_OK) ? UTVM_OK : prep_fail_kernel(p, err, "activation");
  }
  if (err == UTVM_OK) {
    err = channel_arrays(p, rec, sizeof(*rec), size, f.t.quant.count, &multipliers, &shifts,
                         &rec->quant);
  }
  if (err == UTVM_OK) {
    err = channel_multipliers(p, &in, &f, &out, true, f.t.quant.count, multipliers, shifts);
  }
  if (err == UTVM_OK) {
    err = input_ref(p, &in, &rec->input);
  }
  if (err == UTVM_OK) {
    err = output_offset(p, &out, &rec->output);
  }
  if (err == UTVM_OK) {
    const void *filter = f.t.data;
    rec->filter = (const int8_t *)filter;
    rec->scratch = p->ctx->scratch_offsets[p->index];
    rec->params.input_offset = -in.t.quant.zero_point;
    rec->params.filter_offset = (f.t.quant.count == 1u) ? -f.t.quant.zero_point : 0;
    rec->params.output_offset = out.t.quant.zero_point;
  }
  return err;
}

static utvm_err_t prepare_pool(const prep_t *p, runner_pool_t *rec) {
  const utvm_model_pool2d_options_t *o = &p->op->options.u.pool2d;
  operand_t in;
  operand_t out;
  int32_t out_h = 0;
  int32_t out_w = 0;
  utvm_err_t err = load(p, 0u, &in);
  if (err == UTVM_OK) {
    err = load(p, UINT32_MAX, &out);
  }
  if ((err == UTVM_OK) && (p->op->options.kind != UTVM_MODEL_OPTIONS_POOL_2D)) {
    err = prep_fail(p, UTVM_ERR_RUNNER_OPERANDS, "options of another operator");
  }
  if (err == UTVM_OK) {
    err = check_q8(p, &in, "input");
  }
  if (err == UTVM_OK) {
    err = check_q8(p, &out, "output");
  }
  if (err == UTVM_OK) {
    err = check_rank(p, &in, "input", 4u);
  }
  if (err == UTVM_OK) {
    err = check_rank(p, &out, "output", 4u);
  }
  if ((err == UTVM_OK) && !same_quant(&in, &out)) {
    err = prep_fail(p, UTVM_ERR_RUNNER_UNSUPPORTED,
               "input and output scales or zero points differ");
  }
  if ((err == UTVM_OK) &&
      ((in.t.dims[0] != out.t.dims[0]) || (in.t.dims[3] != out.t.dims[3]))) {
    err = prep_fail_fit(p, "output", &out, "input", &in);
  }
  if (err == UTVM_OK) {
    err = utvm_pool2d_params_s8(to_padding(o->padding), o->stride_h, o->stride_w, o->filter_h,
                                o->filter_w, in.t.dims[1], in.t.dims[2], (int32_t)o->activation,
                                out.t.quant.scale, out.t.quant.zero_point, &rec->params, &out_h,
                                &out_w);
    if (err != UTVM_OK) {
      err = prep_fail_kernel(p, err, "window");
    } else if ((out_h != out.t.dims[1]) || (out_w != out.t.dims[2])) {
      err = fail_output_size(p, &out, out_h, out_w);
    } else {
      err = UTVM_OK;
    }
  }
  if (err == UTVM_OK) {
    err = input_ref(p, &in, &rec->input);
  }
  if (err == UTVM_OK) {
    err = output_offset(p, &out, &rec->output);
  }
  if (err == UTVM_OK) {
    rec->input_dims = to_dims(&in.t);
    rec->output_dims = to_dims(&out.t);
  }
  return err;
}

/* Dimension d (counted from the last, 0 = last) of t, 1 past its rank. */
static int32_t dim_from_end(const utvm_model_tensor_t *t, uint32_t d) {
  return (d < t->rank) ? t->dims[t->rank - 1u - d] : 1;
}

/* numpy broadcasting: ranks aligned at the last dimension, each input dimension equal to the
 * output's or 1, the output's the larger of the two. */
static bool broadcasts(const utvm_model_tensor_t *a, const utvm_model_tensor_t *b,
                       const utvm_model_tensor_t *out) {
  uint32_t d;
  bool ok = (a->rank <= out->rank) && (b->rank <= out->rank) &&
            (out->rank <= (uint32_t)UTVM_KERNEL_MAX_RANK);
  for (d = 0u; ok && (d < out->rank); d++) {
    const int32_t da = dim_from_end(a, d);
    const int32_t db = dim_from_end(b, d);
    const int32_t dout = dim_from_end(out, d);
    ok = ((da == dout) || (da == 1)) && ((db == dout) || (db == 1)) &&
         (dout == ((da > db) ? da : db));
  }
  return ok;
}

static utvm_err_t prepare_binary(const prep_t *p, runner_binary_t *rec) {
  const bool add = p->op->code == UTVM_MODEL_OP_ADD;
  operand_t a;
  operand_t b;
  operand_t out;
  utvm_err_t err = load(p, 0u, &a);
  if (err == UTVM_OK) {
    err = load(p, 1u, &b);
  }
  if (err == UTVM_OK) {
    err = load(p, UINT32_MAX, &out);
  }
  const utvm_model_options_kind_t kind = add ? UTVM_MODEL_OPTIONS_ADD : UTVM_MODEL_OPTIONS_MUL;
  if ((err == UTVM_OK) && (p->op->options.kind != kind)) {
    err = prep_fail(p, UTVM_ERR_RUNNER_OPERANDS, "options of another operator");
  }
  if (err == UTVM_OK) {
    err = check_q8(p, &a, "input 1");
  }
  if (err == UTVM_OK) {
    err = check_q8(p, &b, "input 2");
  }
  if (err == UTVM_OK) {
    err = check_q8(p, &out, "output");
  }
  if ((err == UTVM_OK) && !broadcasts(&a.t, &b.t, &out.t)) {
    utvm_text_t *text = prep_begin(p);
    utvm_text_str(text, "inputs ");
    utvm_text_dims(text, a.t.rank, a.t.dims);
    utvm_text_str(text, " and ");
    utvm_text_dims(text, b.t.rank, b.t.dims);
    utvm_text_str(text, " do not broadcast to output ");
    utvm_text_dims(text, out.t.rank, out.t.dims);
    err = UTVM_ERR_RUNNER_OPERANDS;
  }
  if (err == UTVM_OK) {
    if (add) {
      err = utvm_add_params_s8(a.t.quant.scale, a.t.quant.zero_point, b.t.quant.scale,
                               b.t.quant.zero_point, out.t.quant.scale, out.t.quant.zero_point,
                               (int32_t)p->op->options.u.add.activation, &rec->params.add);
    } else {
      err = utvm_mul_params_s8(a.t.quant.scale, a.t.quant.zero_point, b.t.quant.scale,
                               b.t.quant.zero_point, out.t.quant.scale, out.t.quant.zero_point,
                               (int32_t)p->op->options.u.mul.activation, &rec->params.mul);
    }
    err = (err == UTVM_OK) ? UTVM_OK : prep_fail_kernel(p, err, "quantization");
  }
  if ((err == UTVM_OK) && !add) {
    err = check_shift(p, rec->params.mul.output_shift);
  }
  if (err == UTVM_OK) {
    err = input_ref(p, &a, &rec->input1);
  }
  if (err == UTVM_OK) {
    err = input_ref(p, &b, &rec->input2);
  }
  if (err == UTVM_OK) {
    err = output_offset(p, &out, &rec->output);
  }
  if (err == UTVM_OK) {
    rec->shape1 = to_shape(&a.t);
    rec->shape2 = to_shape(&b.t);
    rec->output_shape = to_shape(&out.t);
  }
  return err;
}

/* The output of SOFTMAX, LOGISTIC or TANH: fixed quantization. */
static utvm_err_t check_fixed_output(const prep_t *p, const operand_t *out, float scale,
                                     int32_t zero_point) {
  if (!scale_near(out->t.quant.scale, scale) || (out->t.quant.zero_point != zero_point)) {
    utvm_text_t *text = prep_begin(p);
    utvm_text_str(text, "output zero point ");
    utvm_text_i64(text, out->t.quant.zero_point);
    utvm_text_str(text, " or scale is not the required ");
    utvm_text_i64(text, zero_point);
    utvm_text_str(text, (scale == SCALE_1_256) ? " and 1/256" : " and 1/128");
    return UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return UTVM_OK;
}

/* Operators of one input and one output with as many elements. */
static utvm_err_t prepare_unary(const prep_t *p, runner_unary_t *rec) {
  const utvm_model_op_t code = p->op->code;
  operand_t in;
  operand_t out;
  utvm_err_t err = load(p, 0u, &in);
  if (err == UTVM_OK) {
    err = load(p, UINT32_MAX, &out);
  }
  if (err == UTVM_OK) {
    err = check_nonempty(p, &in, "input");
  }
  if (err == UTVM_OK) {
    err = check_nonempty(p, &out, "output");
  }
  if ((err == UTVM_OK) && (in.t.elements != out.t.elements)) {
    err = prep_fail_fit(p, "output", &out, "input", &in);
  }
  if (err != UTVM_OK) {
    return err;
  }
  rec->size = (int32_t)in.t.elements;
  rec->depth = 1;
  rec->bytes = (uint32_t)in.t.bytes; /* at most UTVM_MODEL_MAX_TENSOR_BYTES */
  rec->scale = 0.0f;
  rec->zero_point = 0;
  switch (code) {
    case UTVM_MODEL_OP_SOFTMAX:
      err = check_q8(p, &in, "input");
      if (err == UTVM_OK) {
        err = check_q8(p, &out, "output");
      }
      if ((err == UTVM_OK) && ((in.t.rank < 1u) || (out.t.rank < 1u) ||
                               (in.t.dims[in.t.rank - 1u] != out.t.dims[out.t.rank - 1u]))) {
        err = prep_fail_fit(p, "output", &out, "input", &in);
      }
      if (err == UTVM_OK) {
        err = check_fixed_output(p, &out, SCALE_1_256, INT8_MIN);
      }
      if ((err == UTVM_OK) && (p->op->options.kind != UTVM_MODEL_OPTIONS_SOFTMAX)) {
        err = prep_fail(p, UTVM_ERR_RUNNER_OPERANDS, "options of another operator");
      }
      if (err == UTVM_OK) {
        rec->depth = in.t.dims[in.t.rank - 1u];
        err = utvm_softmax_params_s8(p->op->options.u.softmax.beta, in.t.quant.scale,
                                     &rec->params.softmax);
        err = (err == UTVM_OK) ? UTVM_OK : prep_fail_kernel(p, err, "beta and input scale");
      }
      break;
    case UTVM_MODEL_OP_LOGISTIC:
    case UTVM_MODEL_OP_TANH:
      err = check_q8(p, &in, "input");
      if (err == UTVM_OK) {
        err = check_q8(p, &out, "output");
      }
      if (err == UTVM_OK) {
        err = (code == UTVM_MODEL_OP_LOGISTIC) ? check_fixed_output(p, &out, SCALE_1_256, INT8_MIN)
                                               : check_fixed_output(p, &out, SCALE_1_128, 0);
      }
      if (err == UTVM_OK) {
        err = (code == UTVM_MODEL_OP_LOGISTIC)
                  ? utvm_logistic_params_s8(in.t.quant.scale, in.t.quant.zero_point,
                                            out.t.quant.zero_point, &rec->params.logistic)
                  : utvm_tanh_params_s8(in.t.quant.scale, in.t.quant.zero_point,
                                        &rec->params.logistic);
        err = (err == UTVM_OK) ? UTVM_OK : prep_fail_kernel(p, err, "input scale");
      }
      break;
    case UTVM_MODEL_OP_RESHAPE:
    case UTVM_MODEL_OP_SQUEEZE:
      if (in.t.type != out.t.type) {
        err = prep_fail(p, UTVM_ERR_RUNNER_OPERANDS, "input and output types differ");
      }
      break;
    case UTVM_MODEL_OP_QUANTIZE:
      err = check_q8(p, &out, "output");
      if ((err == UTVM_OK) && (in.t.type == UTVM_MODEL_FLOAT32)) {
        rec->scale = out.t.quant.scale;
        rec->zero_point = out.t.quant.zero_point;
      } else if (err == UTVM_OK) {
        err = check_q8(p, &in, "input");
        if (err == UTVM_OK) {
          err = utvm_requantize_params_s8(in.t.quant.scale, in.t.quant.zero_point,
                                          out.t.quant.scale, out.t.quant.zero_point,
                                          &rec->params.requantize);
          err = (err == UTVM_OK) ? check_shift(p, rec->params.requantize.shift)
                                 : prep_fail_kernel(p, err, "scales");
        }
      } else {
        /* err set */
      }
      break;
    case UTVM_MODEL_OP_DEQUANTIZE:
      err = check_q8(p, &in, "input");
      if (err == UTVM_OK) {
        err = check_type(p, &out, "output", UTVM_MODEL_FLOAT32);
      }
      rec->scale = in.t.quant.scale;
      rec->zero_point = in.t.quant.zero_point;
      break;
    default:
      err = prep_fail(p, UTVM_ERR_RUNNER_UNSUPPORTED, "not an element-wise operator");
      break;
  }
  if (err == UTVM_OK) {
    err = input_ref(p, &in, &rec->input);
  }
  if (err == UTVM_OK) {
    err = output_offset(p, &out, &rec->output);
  }
  return err;
}

/* Entry i of an int32 or int64 constant, little endian; false if it does not fit int32. */
static bool read_int(const utvm_model_tensor_t *t, size_t i, int32_t *v) {
  const uint8_t *b = t->data;
  uint64_t u = 0u;
  uint32_t k;
  int64_t value;
  uint32_t size = 4u;
  if (t->type == UTVM_MODEL_INT64) {
    size = 8u;
  }
  for (k = 0u; k < size; k++) {
    const size_t at = (i * (size_t)size) + (size_t)k;
    const uint32_t shift = 8u * k;
    u |= (uint64_t)b[at] << shift;
  }
  if (size == 4u) {
    const uint64_t mask = 0xFFFFFFFFu;
    const uint64_t complement = (~u) & mask;
    value = ((u & 0x80000000u) != 0u) ? (-(int64_t)complement - 1) : (int64_t)u;
  } else if ((u >> 63) != 0u) {
    const uint64_t complement = ~u;
    value = -(int64_t)complement - 1;
  } else {
    value = (int64_t)u;
  }
  if ((value < (int64_t)INT32_MIN) || (value > (int64_t)INT32_MAX)) {
    return false;
  }
  *v = (int32_t)value;
  return true;
}

/* A constant int32 (or int64 when allowed) operand: the paddings of PAD, the axes of MEAN. */
static utvm_err_t load_int_constant(const prep_t *p, uint32_t k, const char *role,
                                    bool allow_int64, operand_t *o) {
  utvm_err_t err = load(p, k, o);
  if (err == UTVM_OK) {
    err = check_constant(p, o, role);
  }
  if ((err == UTVM_OK) && (o->t.type != UTVM_MODEL_INT32) &&
      (!allow_int64 || (o->t.type != UTVM_MODEL_INT64))) {
    utvm_text_t *text = prep_begin(p);
    utvm_text_str(text, role);
    utvm_text_str(text, " are ");
    utvm_text_str(text, runner_type_name(o->t.type));
    utvm_text_str(text, allow_int64 ? ", not int32 or int64" : ", not int32");
    err = UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return err;
}

static utvm_err_t prepare_pad(const prep_t *p, runner_pad_t *rec) {
  operand_t in;
  operand_t pads;
  operand_t out;
  uint32_t d;
  int32_t in_dims[4] = {1, 1, 1, 1};
  utvm_err_t err = load(p, 0u, &in);
  if (err == UTVM_OK) {
    err = load(p, UINT32_MAX, &out);
  }
  if (err == UTVM_OK) {
    err = check_q8(p, &in, "input");
  }
  if (err == UTVM_OK) {
    err = check_q8(p, &out, "output");
  }
  if ((err == UTVM_OK) && ((in.t.rank < 1u) || (in.t.rank > 4u))) {
    err = prep_fail_shape(p, "input", &in, " is not 1-D to 4-D");
  }
  if ((err == UTVM_OK) && (out.t.rank != in.t.rank)) {
    err = prep_fail_fit(p, "output", &out, "input", &in);
  }
  if ((err == UTVM_OK) && !same_quant(&in, &out)) {
    err = prep_fail(p, UTVM_ERR_RUNNER_UNSUPPORTED, "input and output scales or zero points differ");
  }
  if (err == UTVM_OK) {
    err = load_int_constant(p, 1u, "paddings", true, &pads);
  }
  if ((err == UTVM_OK) && ((pads.t.rank != 2u) || (pads.t.dims[0] != (int32_t)in.t.rank) ||
                           (pads.t.dims[1] != 2))) {
    err = prep_fail_fit(p, "paddings", &pads, "input", &in);
  }
  if (err != UTVM_OK) {
    return err;
  }
  /* Lower ranks are padded to 4-D with leading dimensions of 1 and no padding. */
  const uint32_t lead = 4u - in.t.rank;
  for (d = 0u; d < 4u; d++) {
    rec->params.before[d] = 0;
    rec->params.after[d] = 0;
  }
  for (d = 0u; (d < in.t.rank) && (err == UTVM_OK); d++) {
    int32_t before = 0;
    int32_t after = 0;
    if (!read_int(&pads.t, (size_t)d * 2u, &before) ||
        !read_int(&pads.t, ((size_t)d * 2u) + 1u, &after) || (before < 0) || (after < 0) ||
        (((int64_t)in.t.dims[d] + before + after) != (int64_t)out.t.dims[d])) {
      err = prep_fail_fit(p, "output", &out, "input and paddings of", &in);
    } else {
      rec->params.before[lead + d] = before;
      rec->params.after[lead + d] = after;
      in_dims[lead + d] = in.t.dims[d];
    }
  }
  if (err == UTVM_OK) {
    err = input_ref(p, &in, &rec->input);
  }
  if (err == UTVM_OK) {
    err = output_offset(p, &out, &rec->output);
  }
  if (err == UTVM_OK) {
    rec->input_dims.n = in_dims[0];
    rec->input_dims.h = in_dims[1];
    rec->input_dims.w = in_dims[2];
    rec->input_dims.c = in_dims[3];
    rec->params.pad_value = out.t.quant.zero_point;
  }
  return err;
}

/* Input k of CONCATENATION: quantized as the output, same rank, same dimensions but axis. */
static utvm_err_t concat_input(const prep_t *p, uint32_t k, const operand_t *out, uint32_t axis,
                               runner_concat_t *rec, int64_t *axis_total) {
  operand_t in;
  uint32_t d;
  utvm_err_t err = load(p, k, &in);
  if (err == UTVM_OK) {
    err = check_q8(p, &in, "input");
  }
  if ((err == UTVM_OK) && !same_quant(&in, out)) {
    err = prep_fail(p, UTVM_ERR_RUNNER_UNSUPPORTED,
               "an input's scale or zero point differs from the output's");
  }
  if ((err == UTVM_OK) && (in.t.rank != out->t.rank)) {
    err = prep_fail_fit(p, "input", &in, "output", out);
  }
  for (d = 0u; (d < in.t.rank) && (err == UTVM_OK); d++) {
    if ((d != axis) && (in.t.dims[d] != out->t.dims[d])) {
      err = prep_fail_fit(p, "input", &in, "output", out);
    }
  }
  if (err == UTVM_OK) {
    err = input_ref(p, &in, &rec->inputs[k]);
  }
  if (err == UTVM_OK) {
    rec->shapes[k] = to_shape(&in.t);
    *axis_total += (int64_t)in.t.dims[axis];
  }
  return err;
}

static utvm_err_t prepare_concat(const prep_t *p, runner_concat_t *rec) {
  const utvm_model_concatenation_options_t *o = &p->op->options.u.concatenation;
  operand_t out;
  uint32_t k;
  int64_t axis_total = 0;
  utvm_err_t err = load(p, UINT32_MAX, &out);
  if ((err == UTVM_OK) && (p->op->options.kind != UTVM_MODEL_OPTIONS_CONCATENATION)) {
    err = prep_fail(p, UTVM_ERR_RUNNER_OPERANDS, "options of another operator");
  }
  if (err == UTVM_OK) {
    err = check_q8(p, &out, "output");
  }
  if ((err == UTVM_OK) && (o->activation != UTVM_MODEL_ACT_NONE)) {
    err = prep_fail(p, UTVM_ERR_RUNNER_UNSUPPORTED, "a fused activation is not supported");
  }
  if ((err == UTVM_OK) && ((out.t.rank < 1u) || (o->axis < 0) ||
                           ((uint32_t)o->axis >= out.t.rank) ||
                           (p->op->n_inputs > UTVM_MODEL_MAX_OP_INPUTS))) {
    err = prep_fail_shape(p, "output", &out, " has no dimension at the axis");
  }
  for (k = 0u; (k < p->op->n_inputs) && (err == UTVM_OK); k++) {
    err = concat_input(p, k, &out, (uint32_t)o->axis, rec, &axis_total);
  }
  if ((err == UTVM_OK) && (axis_total != (int64_t)out.t.dims[o->axis])) {
    err = prep_fail_shape(p, "output", &out, " is not the inputs' sizes added along the axis");
  }
  if (err == UTVM_OK) {
    err = output_offset(p, &out, &rec->output);
  }
  if (err == UTVM_OK) {
    rec->n_inputs = (int32_t)p->op->n_inputs;
    rec->axis = o->axis;
    rec->output_shape = to_shape(&out.t);
  }
  return err;
}

/* The output shape MEAN gives: reduced dimensions dropped, or kept as 1 with keep_dims. */
static bool mean_output_fits(const operand_t *in, const operand_t *out, const bool *reduced,
                             bool keep_dims) {
  uint32_t d;
  uint32_t o = 0u;
  bool ok = true;
  for (d = 0u; ok && (d < in->t.rank); d++) {
    if (keep_dims || !reduced[d]) {
      ok = (o < out->t.rank) && (out->t.dims[o] == (reduced[d] ? 1 : in->t.dims[d]));
      o++;
    }
  }
  return ok && (o == out->t.rank);
}

static utvm_err_t prepare_mean(const prep_t *p, runner_mean_t *rec) {
  operand_t in;
  operand_t axes;
  operand_t out;
  bool reduced[UTVM_MODEL_MAX_DIMS] = {false, false, false, false, false, false};
  uint32_t i;
  (void)memset(&axes, 0, sizeof(axes));
  utvm_err_t err = load(p, 0u, &in);
  if (err == UTVM_OK) {
    err = load(p, UINT32_MAX, &out);
  }
  if ((err == UTVM_OK) && (p->op->options.kind != UTVM_MODEL_OPTIONS_REDUCER)) {
    err = prep_fail(p, UTVM_ERR_RUNNER_OPERANDS, "options of another operator");
  }
  if (err == UTVM_OK) {
    err = check_q8(p, &in, "input");
  }
  if (err == UTVM_OK) {
    err = check_q8(p, &out, "output");
  }
  if (err == UTVM_OK) {
    err = load_int_constant(p, 1u, "axes", false, &axes);
  }
  if ((err == UTVM_OK) &&
      ((axes.t.rank > 1u) || (axes.t.elements > (size_t)UTVM_KERNEL_MAX_RANK))) {
    err = prep_fail_shape(p, "axes", &axes, " is not a list of at most 6 axes");
  }
  for (i = 0u; (err == UTVM_OK) && (i < axes.t.elements); i++) {
    int32_t axis = 0;
    const int32_t rank = (int32_t)in.t.rank;
    (void)read_int(&axes.t, (size_t)i, &axis);
    if ((axis < -rank) || (axis >= rank)) {
      utvm_text_t *text = prep_begin(p);
      utvm_text_str(text, "axis ");
      utvm_text_i64(text, axis);
      utvm_text_str(text, " is outside input ");
      utvm_text_dims(text, in.t.rank, in.t.dims);
      err = UTVM_ERR_RUNNER_OPERANDS;
    } else {
      rec->axes[i] = axis;
      reduced[(axis < 0) ? (axis + rank) : axis] = true;
    }
  }
  if ((err == UTVM_OK) &&
      !mean_output_fits(&in, &out, reduced, p->op->options.u.reducer.keep_dims)) {
    err = prep_fail_fit(p, "output", &out, "input and axes of", &in);
  }
  if (err == UTVM_OK) {
    err = utvm_mean_params_s8(in.t.quant.scale, in.t.quant.zero_point, out.t.quant.scale,
                              out.t.quant.zero_point, &rec->params);
    err = (err == UTVM_OK) ? check_shift(p, rec->params.shift) : prep_fail_kernel(p, err, "scales");
  }
  if (err == UTVM_OK) {
    err = input_ref(p, &in, &rec->input);
  }
  if (err == UTVM_OK) {
    err = output_offset(p, &out, &rec->output);
  }
  if (err == UTVM_OK) {
    rec->input_shape = to_shape(&in.t);
    rec->n_axes = (int32_t)axes.t.elements;
  }
  return err;
}

size_t runner_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  uint64_t size;
  utvm_model_tensor_t f;
  switch (op->code) {
    case UTVM_MODEL_OP_CONV_2D:
    case UTVM_MODEL_OP_DEPTHWISE_CONV_2D:
    case UTVM_MODEL_OP_FULLY_CONNECTED:
      if ((op->n_inputs < 2u) || (op->inputs[1] < 0) ||
          (utvm_model_tensor(m, (uint32_t)op->inputs[1], &f) != UTVM_OK)) {
        return SIZE_MAX;
      }
      size = (op->code == UTVM_MODEL_OP_FULLY_CONNECTED) ? prep_align(sizeof(runner_fc_t))
                                                         : prep_align(sizeof(runner_conv_t));
      size += channel_bytes((uint64_t)((f.quant.count > 1u) ? f.quant.count : 1u));
      break;
    case UTVM_MODEL_OP_AVERAGE_POOL_2D:
    case UTVM_MODEL_OP_MAX_POOL_2D:
      size = prep_align(sizeof(runner_pool_t));
      break;
    case UTVM_MODEL_OP_ADD:
    case UTVM_MODEL_OP_MUL:
      size = prep_align(sizeof(runner_binary_t));
      break;
    case UTVM_MODEL_OP_PAD:
      size = prep_align(sizeof(runner_pad_t));
      break;
    case UTVM_MODEL_OP_CONCATENATION:
      size = prep_align(sizeof(runner_concat_t));
      break;
    case UTVM_MODEL_OP_MEAN:
      size = prep_align(sizeof(runner_mean_t));
      break;
    default:
      size = prep_align(sizeof(runner_unary_t));
      break;
  }
  return (size >= (uint64_t)SIZE_MAX) ? SIZE_MAX : (size_t)size;
}

utvm_err_t runner_prepare(const runner_prepare_ctx_t *ctx, uint32_t index,
                          const utvm_model_operator_t *op, void *record, size_t record_size) {
  prep_t p;
  utvm_err_t err;
  p.ctx = ctx;
  p.index = index;
  p.op = op;
  if (op->n_outputs != 1u) {
    return prep_fail(&p, UTVM_ERR_RUNNER_OPERANDS, "not exactly one output");
  }
  switch (op->code) {
    case UTVM_MODEL_OP_CONV_2D:
    case UTVM_MODEL_OP_DEPTHWISE_CONV_2D:
      err = prepare_conv(&p, (runner_conv_t *)record, record_size);
      break;
    case UTVM_MODEL_OP_FULLY_CONNECTED:
      err = prepare_fc(&p, (runner_fc_t *)record, record_size);
      break;
    case UTVM_MODEL_OP_AVERAGE_POOL_2D:
    case UTVM_MODEL_OP_MAX_POOL_2D:
      err = prepare_pool(&p, (runner_pool_t *)record);
      break;
    case UTVM_MODEL_OP_ADD:
    case UTVM_MODEL_OP_MUL:
      err = prepare_binary(&p, (runner_binary_t *)record);
      break;
    case UTVM_MODEL_OP_PAD:
      err = prepare_pad(&p, (runner_pad_t *)record);
      break;
    case UTVM_MODEL_OP_CONCATENATION:
      err = prepare_concat(&p, (runner_concat_t *)record);
      break;
    case UTVM_MODEL_OP_MEAN:
      err = prepare_mean(&p, (runner_mean_t *)record);
      break;
    case UTVM_MODEL_OP_SOFTMAX:
    case UTVM_MODEL_OP_LOGISTIC:
    case UTVM_MODEL_OP_TANH:
    case UTVM_MODEL_OP_RESHAPE:
    case UTVM_MODEL_OP_SQUEEZE:
    case UTVM_MODEL_OP_QUANTIZE:
    case UTVM_MODEL_OP_DEQUANTIZE:
      err = prepare_unary(&p, (runner_unary_t *)record);
      break;
    default:
      err = prep_fail(&p, UTVM_ERR_RUNNER_UNSUPPORTED, "operator not supported by the runner");
      break;
  }
  return err;
}

/*
 * The float32 kernels (issue 30) against TensorFlow Lite Micro's float reference kernels: every
 * case of tests/data/tflm_float whose model is one operator with a float32 kernel here, run on
 * the case's 3 inputs with the model's constants and options (read with utvm's model reader),
 * compared with TFLM's output bytes. Bit-exact is asserted but for LOGISTIC, TANH and SOFTMAX,
 * whose expf/tanhf come from the C library: those within F32_LIBM_TOLERANCE (docs/TFLITE.md).
 * Then the kernels' error returns (NULL pointers, bad shapes and parameters).
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "utvm/kernels.h"
#include "utvm/model.h"

#ifndef UTVM_TFLM_FLOAT_DIR
#error "UTVM_TFLM_FLOAT_DIR must name tests/data/tflm_float"
#endif

/* Largest |utvm - TFLM| allowed where the C library computes (LOGISTIC, TANH, SOFTMAX outputs
 * are in [-1, 1]): a few float ulps of 1. */
#define F32_LIBM_TOLERANCE 1e-6

/* The whole file in a heap block of its size (malloc's alignment: 16 bytes on the hosts). */
static uint8_t *load(const char *name, size_t *size) {
  char path[512];
  (void)snprintf(path, sizeof(path), "%s/%s", UTVM_TFLM_FLOAT_DIR, name);
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fail_msg("cannot open %s", path);
  }
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  const long n = ftell(f);
  assert_true(n > 0);
  assert_int_equal(fseek(f, 0, SEEK_SET), 0);
  uint8_t *data = (uint8_t *)malloc((size_t)n);
  assert_non_null(data);
  assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
  (void)fclose(f);
  *size = (size_t)n;
  return data;
}

/* One option field of operator 0 as an integer (width bytes) or a float (4 bytes). */
static int64_t option_int(const utvm_model_t *m, const utvm_model_operator_t *op, uint32_t id,
                          uint32_t width, uint64_t def) {
  uint64_t bits = 0u;
  assert_int_equal(utvm_model_option_bits(m, 0u, op, id, width, def, &bits, NULL), UTVM_OK);
  if (width == 1u) {
    return (int64_t)(int8_t)(uint8_t)bits;
  }
  return (int64_t)(int32_t)(uint32_t)bits;
}

static float option_float(const utvm_model_t *m, const utvm_model_operator_t *op, uint32_t id) {
  uint64_t bits = 0u;
  assert_int_equal(utvm_model_option_bits(m, 0u, op, id, 4u, 0u, &bits, NULL), UTVM_OK);
  const uint32_t word = (uint32_t)bits;
  float value;
  memcpy(&value, &word, sizeof(value));
  return value;
}

static void activation(int64_t act, float *act_min, float *act_max) {
  assert_int_equal(utvm_activation_range_f32((int32_t)act, act_min, act_max), UTVM_OK);
}

static utvm_dims_t dims4(const utvm_model_tensor_t *t) {
  assert_int_equal(t->rank, 4u);
  const utvm_dims_t d = {t->dims[0], t->dims[1], t->dims[2], t->dims[3]};
  return d;
}

static utvm_shape_t shape_of(const utvm_model_tensor_t *t) {
  utvm_shape_t s;
  memset(&s, 0, sizeof(s));
  assert_true(t->rank <= (uint32_t)UTVM_KERNEL_MAX_RANK);
  s.rank = (int32_t)t->rank;
  for (uint32_t i = 0u; i < t->rank; ++i) {
    s.dims[i] = t->dims[i];
  }
  return s;
}

/* One operator of a model with its operands (an absent bias left out). */
typedef struct {
  const utvm_model_t *model;
  utvm_model_operator_t op;
  utvm_model_tensor_t operands[3];
  int32_t operand_index[3]; /* the tensors' indices */
  int32_t n_operands;
  utvm_model_tensor_t output;
  int32_t output_index;
} f32_op_t;

static const float *floats(const utvm_model_tensor_t *t) {
  assert_int_equal(t->type, UTVM_MODEL_FLOAT32);
  assert_non_null(t->data);
  return (const float *)(const void *)t->data;
}

/* Padding and output size of a window operator, checked against the output tensor. */
static void padding(int64_t scheme, int32_t stride_h, int32_t stride_w, int32_t dil_h,
                    int32_t dil_w, const utvm_dims_t *in, int32_t fh, int32_t fw,
                    const utvm_dims_t *out, int32_t *pad_top, int32_t *pad_left) {
  utvm_padding_values_t pv;
  assert_int_equal(utvm_compute_padding((utvm_padding_t)scheme, stride_h, stride_w, dil_h, dil_w,
                                        in->h, in->w, fh, fw, &pv),
                   UTVM_OK);
  assert_int_equal(pv.out_h, out->h);
  assert_int_equal(pv.out_w, out->w);
  *pad_top = pv.pad_top;
  *pad_left = pv.pad_left;
}

/* Runs c's operator on its operands' floats x[] into output; the code of the kernel. */
static utvm_err_t run_op(const f32_op_t *c, const float *const *x, float *output) {
  const utvm_model_t *m = c->model;
  const utvm_model_operator_t *op = &c->op;
  const int32_t count = (int32_t)c->output.elements;
  switch (op->code) {
    case UTVM_MODEL_OP_CONV_2D: {
      utvm_conv2d_f32_params_t p;
      const utvm_dims_t in = dims4(&c->operands[0]);
      const utvm_dims_t filter = dims4(&c->operands[1]);
      const utvm_dims_t out = dims4(&c->output);
      p.stride_w = (int32_t)option_int(m, op, 1u, 4u, 0u);
      p.stride_h = (int32_t)option_int(m, op, 2u, 4u, 0u);
      p.dilation_w = (int32_t)option_int(m, op, 4u, 4u, 1u);
      p.dilation_h = (int32_t)option_int(m, op, 5u, 4u, 1u);
      padding(option_int(m, op, 0u, 1u, 0u), p.stride_h, p.stride_w, p.dilation_h, p.dilation_w,
              &in, filter.h, filter.w, &out, &p.pad_top, &p.pad_left);
      activation(option_int(m, op, 3u, 1u, 0u), &p.act_min, &p.act_max);
      return utvm_conv2d_f32(&p, &in, x[0], &filter, x[1], c->n_operands > 2 ? x[2] : NULL, &out,
                             output);
    }
    case UTVM_MODEL_OP_DEPTHWISE_CONV_2D: {
      utvm_depthwise_conv2d_f32_params_t p;
      const utvm_dims_t in = dims4(&c->operands[0]);
      const utvm_dims_t filter = dims4(&c->operands[1]);
      const utvm_dims_t out = dims4(&c->output);
      p.stride_w = (int32_t)option_int(m, op, 1u, 4u, 0u);
      p.stride_h = (int32_t)option_int(m, op, 2u, 4u, 0u);
      p.depth_multiplier = (int32_t)option_int(m, op, 3u, 4u, 0u);
      p.dilation_w = (int32_t)option_int(m, op, 5u, 4u, 1u);
      p.dilation_h = (int32_t)option_int(m, op, 6u, 4u, 1u);
      padding(option_int(m, op, 0u, 1u, 0u), p.stride_h, p.stride_w, p.dilation_h, p.dilation_w,
              &in, filter.h, filter.w, &out, &p.pad_top, &p.pad_left);
      activation(option_int(m, op, 4u, 1u, 0u), &p.act_min, &p.act_max);
      return utvm_depthwise_conv2d_f32(&p, &in, x[0], &filter, x[1],
                                       c->n_operands > 2 ? x[2] : NULL, &out, output);
    }
    case UTVM_MODEL_OP_FULLY_CONNECTED: {
      utvm_activation_f32_t p;
      const utvm_model_tensor_t *w = &c->operands[1];
      assert_int_equal(w->rank, 2u);
      const int32_t depth = w->dims[1];
      const int32_t units = w->dims[0];
      activation(option_int(m, op, 0u, 1u, 0u), &p.act_min, &p.act_max);
      return utvm_fully_connected_f32(&p, (int32_t)c->operands[0].elements / depth, depth, units,
                                      x[0], x[1], c->n_operands > 2 ? x[2] : NULL, output);
    }
    case UTVM_MODEL_OP_AVERAGE_POOL_2D:
    case UTVM_MODEL_OP_MAX_POOL_2D: {
      utvm_pool2d_f32_params_t p;
      const utvm_dims_t in = dims4(&c->operands[0]);
      const utvm_dims_t out = dims4(&c->output);
      p.stride_w = (int32_t)option_int(m, op, 1u, 4u, 0u);
      p.stride_h = (int32_t)option_int(m, op, 2u, 4u, 0u);
      p.filter_w = (int32_t)option_int(m, op, 3u, 4u, 0u);
      p.filter_h = (int32_t)option_int(m, op, 4u, 4u, 0u);
      padding(option_int(m, op, 0u, 1u, 0u), p.stride_h, p.stride_w, 1, 1, &in, p.filter_h,
              p.filter_w, &out, &p.pad_top, &p.pad_left);
      activation(option_int(m, op, 5u, 1u, 0u), &p.act_min, &p.act_max);
      return (op->code == UTVM_MODEL_OP_AVERAGE_POOL_2D)
                 ? utvm_avg_pool2d_f32(&p, &in, x[0], &out, output)
                 : utvm_max_pool2d_f32(&p, &in, x[0], &out, output);
    }
    case UTVM_MODEL_OP_ADD:
    case UTVM_MODEL_OP_SUB:
    case UTVM_MODEL_OP_MUL: {
      utvm_activation_f32_t p;
      const utvm_shape_t s1 = shape_of(&c->operands[0]);
      const utvm_shape_t s2 = shape_of(&c->operands[1]);
      const utvm_shape_t so = shape_of(&c->output);
      activation(option_int(m, op, 0u, 1u, 0u), &p.act_min, &p.act_max);
      if (op->code == UTVM_MODEL_OP_ADD) {
        return utvm_add_f32(&p, &s1, x[0], &s2, x[1], &so, output);
      }
      if (op->code == UTVM_MODEL_OP_SUB) {
        return utvm_sub_f32(&p, &s1, x[0], &s2, x[1], &so, output);
      }
      return utvm_mul_f32(&p, &s1, x[0], &s2, x[1], &so, output);
    }
    case UTVM_MODEL_OP_SOFTMAX: {
      const utvm_model_tensor_t *t = &c->operands[0];
      const int32_t depth = t->dims[t->rank - 1u];
      return utvm_softmax_f32(option_float(m, op, 0u), count / depth, depth, x[0], output);
    }
    case UTVM_MODEL_OP_LOGISTIC:
      return utvm_logistic_f32(count, x[0], output);
    case UTVM_MODEL_OP_TANH:
      return utvm_tanh_f32(count, x[0], output);
    case UTVM_MODEL_OP_RELU:
      return utvm_relu_f32(count, x[0], output);
    case UTVM_MODEL_OP_RELU6:
      return utvm_relu6_f32(count, x[0], output);
    case UTVM_MODEL_OP_HARD_SWISH:
      return utvm_hard_swish_f32(count, x[0], output);
    /* The layout operators: the byte-generic kernels with 4-byte elements. */
    case UTVM_MODEL_OP_RESHAPE:
      return utvm_reshape(x[0], output, c->output.bytes);
    case UTVM_MODEL_OP_PAD: {
      const utvm_model_tensor_t *pads = &c->operands[1];
      assert_int_equal(pads->type, UTVM_MODEL_INT32);
      assert_int_equal(pads->elements, 8u);
      int32_t pad_values[8];
      memcpy(pad_values, pads->data, sizeof(pad_values));
      utvm_pad_any_params_t p;
      memset(&p, 0, sizeof(p));
      p.element_size = 4;
      p.mode = (int32_t)UTVM_PAD_CONSTANT;
      p.pad_value = 0; /* the bits of 0.0f */
      for (int32_t d = 0; d < 4; ++d) {
        p.before[d] = pad_values[2 * d];
        p.after[d] = pad_values[(2 * d) + 1];
      }
      const utvm_dims_t in = dims4(&c->operands[0]);
      return utvm_pad(&p, &in, x[0], output);
    }
    case UTVM_MODEL_OP_CONCATENATION: {
      utvm_concat_params_t p;
      memset(&p, 0, sizeof(p));
      const int32_t rank = (int32_t)c->output.rank;
      int32_t axis = (int32_t)option_int(m, op, 0u, 4u, 0u);
      axis = (axis < 0) ? axis + rank : axis;
      p.element_size = 4;
      p.n_inputs = c->n_operands;
      p.outer = 1;
      p.inner = 1;
      for (int32_t d = 0; d < rank; ++d) {
        if (d < axis) {
          p.outer *= c->output.dims[d];
        } else if (d > axis) {
          p.inner *= c->output.dims[d];
        }
      }
      for (int32_t i = 0; i < c->n_operands; ++i) {
        p.axis_sizes[i] = c->operands[i].dims[axis];
      }
      const void *inputs[3] = {x[0], x[1], x[2]};
      return utvm_concatenation(&p, inputs, output);
    }
    case UTVM_MODEL_OP_TRANSPOSE: {
      const utvm_model_tensor_t *in = &c->operands[0];
      const utvm_model_tensor_t *perm = &c->operands[1];
      assert_int_equal(perm->type, UTVM_MODEL_INT32);
      assert_int_equal(perm->elements, in->rank);
      int32_t perm_values[UTVM_STRIDED_COPY_MAX_RANK];
      memcpy(perm_values, perm->data, perm->bytes);
      int32_t in_strides[UTVM_STRIDED_COPY_MAX_RANK];
      int32_t stride = 1;
      for (int32_t d = (int32_t)in->rank - 1; d >= 0; --d) {
        in_strides[d] = stride;
        stride *= in->dims[d];
      }
      utvm_strided_copy_params_t p;
      memset(&p, 0, sizeof(p));
      p.element_size = 4;
      p.input_elements = (int32_t)in->elements;
      p.start = 0;
      p.rank = (int32_t)in->rank;
      for (int32_t d = 0; d < p.rank; ++d) {
        p.dims[d] = c->output.dims[d];
        p.strides[d] = in_strides[perm_values[d]];
      }
      return utvm_strided_copy(&p, x[0], output);
    }
    case UTVM_MODEL_OP_MEAN: {
      const utvm_model_tensor_t *axes = &c->operands[1];
      assert_int_equal(axes->type, UTVM_MODEL_INT32);
      assert_non_null(axes->data);
      int32_t axis_values[UTVM_KERNEL_MAX_RANK];
      assert_true(axes->elements <= (size_t)UTVM_KERNEL_MAX_RANK);
      memcpy(axis_values, axes->data, axes->bytes);
      const utvm_shape_t s = shape_of(&c->operands[0]);
      return utvm_mean_f32(&s, x[0], axis_values, (int32_t)axes->elements, output);
    }
    default:
      fail_msg("operator %s has no float32 kernel", utvm_model_op_name((int32_t)op->code));
  }
  return UTVM_ERR_KERNEL_BAD_PARAM;
}

/* Reads operator index of m and its operands into *c. */
static void open_op(f32_op_t *c, const utvm_model_t *m, uint32_t index) {
  memset(c, 0, sizeof(*c));
  c->model = m;
  assert_int_equal(utvm_model_operator(m, index, &c->op), UTVM_OK);
  assert_true(c->op.n_inputs <= 3u);
  c->n_operands = 0;
  for (uint32_t i = 0u; i < c->op.n_inputs; ++i) {
    if (c->op.inputs[i] < 0) {
      continue; /* an absent bias */
    }
    utvm_model_tensor_t *t = &c->operands[c->n_operands];
    assert_int_equal(utvm_model_tensor(m, (uint32_t)c->op.inputs[i], t), UTVM_OK);
    c->operand_index[c->n_operands] = c->op.inputs[i];
    ++c->n_operands;
  }
  c->output_index = c->op.outputs[0];
  assert_int_equal(utvm_model_tensor(m, (uint32_t)c->output_index, &c->output), UTVM_OK);
  assert_int_equal(c->output.type, UTVM_MODEL_FLOAT32);
}

/* A model run operator by operator with the float32 kernels, one heap buffer per computed
 * tensor (the graph input's is the input file's). */
typedef struct {
  utvm_model_t model;
  uint8_t *bytes;
  float **buffers; /* per tensor: NULL for constants */
  uint32_t input;
  uint32_t output;
} f32_graph_t;

static void graph_open(f32_graph_t *g, const char *name) {
  char file[256];
  size_t size = 0u;
  (void)snprintf(file, sizeof(file), "%s.tflite", name);
  g->bytes = load(file, &size);
  assert_int_equal(utvm_model_open(&g->model, g->bytes, size), UTVM_OK);
  assert_int_equal(g->model.n_inputs, 1u);
  assert_int_equal(g->model.n_outputs, 1u);
  assert_int_equal(utvm_model_input(&g->model, 0u, &g->input), UTVM_OK);
  assert_int_equal(utvm_model_output(&g->model, 0u, &g->output), UTVM_OK);
  g->buffers = (float **)calloc(g->model.n_tensors, sizeof(float *));
  assert_non_null(g->buffers);
  for (uint32_t i = 0u; i < g->model.n_tensors; ++i) {
    utvm_model_tensor_t t;
    assert_int_equal(utvm_model_tensor(&g->model, i, &t), UTVM_OK);
    if (t.data == NULL && t.type == UTVM_MODEL_FLOAT32) {
      g->buffers[i] = (float *)calloc(t.elements, sizeof(float));
      assert_non_null(g->buffers[i]);
    }
  }
}

static void graph_close(f32_graph_t *g) {
  for (uint32_t i = 0u; i < g->model.n_tensors; ++i) {
    free(g->buffers[i]);
  }
  free((void *)g->buffers);
  free(g->bytes);
}

/* Runs the graph on input (the graph input's floats); returns the graph output's buffer. */
static const float *graph_run(f32_graph_t *g, const uint8_t *input, size_t input_size) {
  utvm_model_tensor_t in;
  assert_int_equal(utvm_model_tensor(&g->model, g->input, &in), UTVM_OK);
  assert_int_equal(input_size, in.bytes);
  memcpy(g->buffers[g->input], input, input_size);
  for (uint32_t k = 0u; k < g->model.n_operators; ++k) {
    f32_op_t c;
    open_op(&c, &g->model, k);
    const float *x[3] = {NULL, NULL, NULL};
    for (int32_t i = 0; i < c.n_operands; ++i) {
      const utvm_model_tensor_t *t = &c.operands[i];
      if (t->data != NULL) {
        x[i] = (t->type == UTVM_MODEL_FLOAT32) ? floats(t) : NULL; /* RESHAPE's shape, axes */
      } else {
        x[i] = g->buffers[c.operand_index[i]];
      }
    }
    assert_int_equal(run_op(&c, x, g->buffers[c.output_index]), UTVM_OK);
  }
  return g->buffers[g->output];
}

/* The single-operator cases of tests/data/tflm_float with a float32 kernel, and the layout
 * operators' (the byte-generic kernels, element size 4). */
static const char *const f32_cases[] = {
    "conv_3x3_same_s1_f32",       "conv_3x3_valid_s2_relu_f32",   "conv_1x1_relu6_f32",
    "conv_3x3_dil2_same_f32",     "dwconv_m1_3x3_same_f32",       "dwconv_m2_3x3_valid_s2_f32",
    "dwconv_m1_3x3_same_relu6_f32", "fc_bias_f32",                "fc_nobias_f32",
    "fc_b2_bias_relu_f32",        "avgpool_2x2_s2_valid_f32",     "avgpool_3x3_s1_same_relu6_f32",
    "maxpool_2x2_s2_valid_f32",   "maxpool_3x3_s1_same_f32",      "add_same_f32",
    "add_bcast_relu_f32",         "sub_same_f32",                 "sub_bcast_f32",
    "mul_same_f32",               "mul_bcast_relu6_f32",          "softmax_beta1_f32",
    "softmax_beta05_f32",         "logistic_f32",                 "tanh_f32",
    "relu_f32",                   "relu6_f32",                    "hard_swish_f32",
    "mean_hw_keep_f32",           "mean_hw_f32",
    /* The layout operators, through the byte-generic kernels. */
    "reshape_f32", "pad_f32", "concat_axis3_f32", "transpose_0312_f32"};

/* Runs case name's pairs; prints and returns whether it passes (bit-exact, or within the
 * tolerance where libm decides). */
static bool check_case(const char *name, int32_t pairs, bool libm) {
  f32_graph_t g;
  graph_open(&g, name);
  utvm_model_tensor_t out;
  assert_int_equal(utvm_model_tensor(&g.model, g.output, &out), UTVM_OK);
  bool bit_exact = true;
  double max_err = 0.0;
  for (int32_t pair = 0; pair < pairs; ++pair) {
    char file[256];
    size_t in_size = 0u;
    size_t out_size = 0u;
    (void)snprintf(file, sizeof(file), "%s_in%d.bin", name, (int)pair);
    uint8_t *in_bytes = load(file, &in_size);
    (void)snprintf(file, sizeof(file), "%s_out%d.tflm.bin", name, (int)pair);
    uint8_t *want_bytes = load(file, &out_size);
    assert_int_equal(out_size, out.bytes);
    const float *got = graph_run(&g, in_bytes, in_size);
    if (memcmp(got, want_bytes, out_size) != 0) {
      bit_exact = false;
    }
    for (size_t i = 0u; i < out.elements; ++i) {
      float want;
      memcpy(&want, &want_bytes[i * sizeof(float)], sizeof(want));
      const double err = fabs((double)got[i] - (double)want);
      if (!(err <= max_err)) {
        max_err = err; /* NaN (a mismatch of NaN and number) keeps it */
      }
    }
    free(want_bytes);
    free(in_bytes);
  }
  const bool ok = libm ? (max_err <= F32_LIBM_TOLERANCE) : bit_exact;
  utvm_model_operator_t op;
  assert_int_equal(utvm_model_operator(&g.model, 0u, &op), UTVM_OK);
  print_message("%-30s %-18s bit-exact %-3s max abs err %.3g%s\n", name,
                g.model.n_operators == 1u ? utvm_model_op_name((int32_t)op.code) : "(graph)",
                bit_exact ? "yes" : "no", max_err, ok ? "" : "  FAIL");
  graph_close(&g);
  return ok;
}

static bool uses_libm(const char *name) {
  utvm_model_t m;
  size_t size = 0u;
  char file[256];
  (void)snprintf(file, sizeof(file), "%s.tflite", name);
  uint8_t *bytes = load(file, &size);
  assert_int_equal(utvm_model_open(&m, bytes, size), UTVM_OK);
  bool libm = false;
  for (uint32_t k = 0u; k < m.n_operators; ++k) {
    utvm_model_operator_t op;
    assert_int_equal(utvm_model_operator(&m, k, &op), UTVM_OK);
    libm = libm || (op.code == UTVM_MODEL_OP_LOGISTIC) || (op.code == UTVM_MODEL_OP_TANH) ||
           (op.code == UTVM_MODEL_OP_SOFTMAX);
  }
  free(bytes);
  return libm;
}

static void test_f32_tflm_cases(void **state) {
  (void)state;
  int32_t failures = 0;
  for (size_t k = 0u; k < sizeof(f32_cases) / sizeof(f32_cases[0]); ++k) {
    if (!check_case(f32_cases[k], 3, uses_libm(f32_cases[k]))) {
      ++failures;
    }
  }
  assert_int_equal(failures, 0);
}

/* The two whole float models of the set, layer by layer with the float32 kernels:
 * hello_world_float (3 FULLY_CONNECTED), kws_dscnn_f32 (CONV_2D, 4 x DEPTHWISE_CONV_2D +
 * CONV_2D, AVERAGE_POOL_2D, RESHAPE, FULLY_CONNECTED, SOFTMAX). */
static void test_f32_tflm_models(void **state) {
  (void)state;
  int32_t failures = 0;
  if (!check_case("hello_world_float", 3, false)) {
    ++failures;
  }
  if (!check_case("kws_dscnn_f32", 4, true)) {
    ++failures;
  }
  assert_int_equal(failures, 0);
}

/* ---- Error returns ---- */

static void test_f32_errors_conv(void **state) {
  (void)state;
  const utvm_dims_t in = {1, 3, 3, 2};
  const utvm_dims_t filter = {2, 3, 3, 2};
  const utvm_dims_t out = {1, 1, 1, 2};
  const float x[18] = {0};
  const float w[36] = {0};
  float y[2];
  utvm_conv2d_f32_params_t p = {1, 1, 1, 1, 0, 0, -FLT_MAX, FLT_MAX};
  assert_int_equal(utvm_conv2d_f32(&p, &in, x, &filter, w, NULL, &out, y), UTVM_OK);
  assert_int_equal(utvm_conv2d_f32(NULL, &in, x, &filter, w, NULL, &out, y),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_conv2d_f32(&p, &in, NULL, &filter, w, NULL, &out, y),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_conv2d_f32(&p, &in, x, &filter, NULL, NULL, &out, y),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_conv2d_f32(&p, &in, x, &filter, w, NULL, &out, NULL),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_conv2d_f32(&p, NULL, x, &filter, w, NULL, &out, y),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
  const utvm_dims_t bad_out = {1, 1, 1, 3}; /* channels differ from the filter's count */
  assert_int_equal(utvm_conv2d_f32(&p, &in, x, &filter, w, NULL, &bad_out, y),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
  const utvm_dims_t bad_filter = {2, 3, 3, 3}; /* 2 input channels, 3 filter channels */
  assert_int_equal(utvm_conv2d_f32(&p, &in, x, &bad_filter, w, NULL, &out, y),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
  p.stride_h = 0;
  assert_int_equal(utvm_conv2d_f32(&p, &in, x, &filter, w, NULL, &out, y),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  p.stride_h = 1;
  p.act_min = 1.0f;
  p.act_max = 0.0f;
  assert_int_equal(utvm_conv2d_f32(&p, &in, x, &filter, w, NULL, &out, y),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  p.act_min = NAN;
  assert_int_equal(utvm_conv2d_f32(&p, &in, x, &filter, w, NULL, &out, y),
                   UTVM_ERR_KERNEL_BAD_PARAM);
}

/* A grouped convolution (2 groups of 2 input channels), the bias after the sum, and the clamp
 * of TFLite (NaN passes through, as std::min/std::max's comparisons let it). */
static void test_f32_conv_grouped_clamp(void **state) {
  (void)state;
  const utvm_dims_t in = {1, 1, 1, 4};
  const utvm_dims_t filter = {2, 1, 1, 2};
  const utvm_dims_t out = {1, 1, 1, 2};
  const float x[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  const float w[4] = {0.5f, 0.25f, -1.0f, 2.0f};
  const float b[2] = {0.125f, 1.0f};
  float y[2];
  utvm_conv2d_f32_params_t p = {1, 1, 1, 1, 0, 0, -FLT_MAX, FLT_MAX};
  assert_int_equal(utvm_conv2d_f32(&p, &in, x, &filter, w, b, &out, y), UTVM_OK);
  assert_true(y[0] == 1.125f); /* 1*0.5 + 2*0.25 + 0.125 */
  assert_true(y[1] == 6.0f);   /* 3*-1 + 4*2 + 1 */
  p.act_min = 0.0f;
  p.act_max = 5.0f;
  assert_int_equal(utvm_conv2d_f32(&p, &in, x, &filter, w, b, &out, y), UTVM_OK);
  assert_true(y[1] == 5.0f);
  const float nan_x[4] = {NAN, 0.0f, 0.0f, 0.0f};
  assert_int_equal(utvm_conv2d_f32(&p, &in, nan_x, &filter, w, b, &out, y), UTVM_OK);
  assert_true(isnan(y[0]));
  assert_true(y[1] == 1.0f);
}

static void test_f32_errors_depthwise(void **state) {
  (void)state;
  const utvm_dims_t in = {1, 3, 3, 2};
  const utvm_dims_t filter = {1, 3, 3, 4};
  const utvm_dims_t out = {1, 1, 1, 4};
  const float x[18] = {0};
  const float w[36] = {0};
  float y[4];
  utvm_depthwise_conv2d_f32_params_t p = {1, 1, 1, 1, 0, 0, 2, -FLT_MAX, FLT_MAX};
  assert_int_equal(utvm_depthwise_conv2d_f32(&p, &in, x, &filter, w, NULL, &out, y), UTVM_OK);
  assert_int_equal(utvm_depthwise_conv2d_f32(NULL, &in, x, &filter, w, NULL, &out, y),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_depthwise_conv2d_f32(&p, &in, x, &filter, NULL, NULL, &out, y),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_depthwise_conv2d_f32(&p, &in, x, &filter, w, NULL, &out, NULL),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_depthwise_conv2d_f32(&p, &in, x, &filter, w, NULL, NULL, y),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
  p.depth_multiplier = 1; /* 2 input channels x 1 != 4 */
  assert_int_equal(utvm_depthwise_conv2d_f32(&p, &in, x, &filter, w, NULL, &out, y),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
  p.depth_multiplier = 0;
  assert_int_equal(utvm_depthwise_conv2d_f32(&p, &in, x, &filter, w, NULL, &out, y),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  p.depth_multiplier = 2;
  p.dilation_w = 0;
  assert_int_equal(utvm_depthwise_conv2d_f32(&p, &in, x, &filter, w, NULL, &out, y),
                   UTVM_ERR_KERNEL_BAD_PARAM);
}

static void test_f32_errors_fully_connected(void **state) {
  (void)state;
  const utvm_activation_f32_t p = {-FLT_MAX, FLT_MAX};
  const utvm_activation_f32_t empty = {1.0f, -1.0f};
  const float x[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  const float w[8] = {1.0f, 1.0f, 1.0f, 1.0f, 0.5f, 0.5f, 0.5f, 0.5f};
  const float b[2] = {0.25f, -1.0f};
  float y[2];
  assert_int_equal(utvm_fully_connected_f32(&p, 1, 4, 2, x, w, b, y), UTVM_OK);
  assert_true(y[0] == 10.25f);
  assert_true(y[1] == 4.0f);
  assert_int_equal(utvm_fully_connected_f32(NULL, 1, 4, 2, x, w, b, y),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_fully_connected_f32(&p, 1, 4, 2, NULL, w, b, y),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_fully_connected_f32(&p, 1, 4, 2, x, NULL, b, y),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_fully_connected_f32(&p, 1, 4, 2, x, w, b, NULL),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_fully_connected_f32(&empty, 1, 4, 2, x, w, b, y),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_fully_connected_f32(&p, 0, 4, 2, x, w, b, y), UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_int_equal(utvm_fully_connected_f32(&p, 1, 0, 2, x, w, b, y), UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_int_equal(utvm_fully_connected_f32(&p, 1, 4, -1, x, w, b, y),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_int_equal(utvm_fully_connected_f32(&p, INT32_MAX, 4, 2, x, w, b, y),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
}

static void test_f32_errors_pools(void **state) {
  (void)state;
  const utvm_dims_t in = {1, 2, 2, 1};
  const utvm_dims_t out = {1, 1, 1, 1};
  const float x[4] = {1.0f, -2.0f, 3.0f, 4.5f};
  float y[1];
  utvm_pool2d_f32_params_t p = {2, 2, 2, 2, 0, 0, -FLT_MAX, FLT_MAX};
  assert_int_equal(utvm_avg_pool2d_f32(&p, &in, x, &out, y), UTVM_OK);
  assert_true(y[0] == 1.625f);
  assert_int_equal(utvm_max_pool2d_f32(&p, &in, x, &out, y), UTVM_OK);
  assert_true(y[0] == 4.5f);
  assert_int_equal(utvm_avg_pool2d_f32(NULL, &in, x, &out, y), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_max_pool2d_f32(&p, &in, NULL, &out, y), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_avg_pool2d_f32(&p, &in, x, &out, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
  const utvm_dims_t bad_out = {1, 1, 1, 2};
  assert_int_equal(utvm_avg_pool2d_f32(&p, &in, x, &bad_out, y), UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_int_equal(utvm_max_pool2d_f32(&p, NULL, x, &out, y), UTVM_ERR_KERNEL_BAD_SHAPE);
  p.filter_w = 0;
  assert_int_equal(utvm_max_pool2d_f32(&p, &in, x, &out, y), UTVM_ERR_KERNEL_BAD_PARAM);
  p.filter_w = 2;
  p.act_max = NAN;
  assert_int_equal(utvm_avg_pool2d_f32(&p, &in, x, &out, y), UTVM_ERR_KERNEL_BAD_PARAM);
  p.act_max = FLT_MAX;
  /* A window wholly in the padding: AVERAGE fails (TFLite's error), MAX gives -FLT_MAX. */
  const utvm_dims_t out2 = {1, 2, 1, 1};
  const utvm_pool2d_f32_params_t far = {3, 2, 1, 2, 0, 0, -FLT_MAX, FLT_MAX};
  float y2[2] = {0.0f, 0.0f};
  assert_int_equal(utvm_avg_pool2d_f32(&far, &in, x, &out2, y2), UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_true(y2[0] == 0.0f); /* nothing written */
  assert_int_equal(utvm_max_pool2d_f32(&far, &in, x, &out2, y2), UTVM_OK);
  assert_true(y2[0] == 1.0f);
  assert_true(y2[1] == -FLT_MAX);
}

typedef utvm_err_t (*binary_f32_fn)(const utvm_activation_f32_t *, const utvm_shape_t *,
                                    const float *, const utvm_shape_t *, const float *,
                                    const utvm_shape_t *, float *);

static void test_f32_errors_binary(void **state) {
  (void)state;
  const binary_f32_fn fns[3] = {utvm_add_f32, utvm_sub_f32, utvm_mul_f32};
  /* a + 0.5, a - 0.5, a * 0.5, clamped to 6. */
  const float want[3][6] = {{1.5f, 3.0f, 4.5f, 4.5f, 6.0f, 6.0f},
                            {0.5f, 2.0f, 3.5f, 3.5f, 5.0f, 6.0f},
                            {0.5f, 1.25f, 2.0f, 2.0f, 2.75f, 3.5f}};
  const utvm_activation_f32_t p = {-FLT_MAX, 6.0f};
  const utvm_shape_t s23 = {2, {2, 3}};
  const utvm_shape_t s1 = {1, {1}};
  const utvm_shape_t s2 = {1, {2}};
  const float a[6] = {1.0f, 2.5f, 4.0f, 4.0f, 5.5f, 7.0f};
  const float b[1] = {0.5f};
  for (int32_t k = 0; k < 3; ++k) {
    float y[6];
    /* The scalar broadcast to [2, 3]; then in place with a tensor of the output's shape. */
    assert_int_equal(fns[k](&p, &s23, a, &s1, b, &s23, y), UTVM_OK);
    for (int32_t i = 0; i < 6; ++i) {
      assert_true(y[i] == want[k][i]);
    }
    float z[6];
    memcpy(z, a, sizeof(z));
    assert_int_equal(fns[k](&p, &s23, z, &s1, b, &s23, z), UTVM_OK);
    assert_memory_equal(z, y, sizeof(z));
    assert_int_equal(fns[k](NULL, &s23, a, &s1, b, &s23, y), UTVM_ERR_KERNEL_BAD_PARAM);
    assert_int_equal(fns[k](&p, &s23, NULL, &s1, b, &s23, y), UTVM_ERR_KERNEL_BAD_PARAM);
    assert_int_equal(fns[k](&p, &s23, a, &s1, NULL, &s23, y), UTVM_ERR_KERNEL_BAD_PARAM);
    assert_int_equal(fns[k](&p, &s23, a, &s1, b, &s23, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
    assert_int_equal(fns[k](&p, &s23, a, &s2, b, &s23, y), UTVM_ERR_KERNEL_BAD_SHAPE);
    assert_int_equal(fns[k](&p, NULL, a, &s1, b, &s23, y), UTVM_ERR_KERNEL_BAD_SHAPE);
  }
}

typedef utvm_err_t (*unary_f32_fn)(int32_t, const float *, float *);

static void test_f32_unary(void **state) {
  (void)state;
  const unary_f32_fn fns[5] = {utvm_relu_f32, utvm_relu6_f32, utvm_logistic_f32, utvm_tanh_f32,
                               utvm_hard_swish_f32};
  const float x[6] = {-7.0f, -0.0f, 0.0f, 1.5f, 7.0f, 20.0f};
  /* RELU, RELU6 and HARD_SWISH exactly; -0 stays -0 in RELU and RELU6 (TFLM's comparisons). */
  const float relu[6] = {0.0f, -0.0f, 0.0f, 1.5f, 7.0f, 20.0f};
  const float relu6[6] = {0.0f, -0.0f, 0.0f, 1.5f, 6.0f, 6.0f};
  const float hard_swish[6] = {-0.0f, 0.0f, 0.0f, 1.125f, 7.0f, 20.0f};
  for (int32_t k = 0; k < 5; ++k) {
    float y[6];
    assert_int_equal(fns[k](6, x, y), UTVM_OK);
    if (k == 0) {
      assert_memory_equal(y, relu, sizeof(y));
    } else if (k == 1) {
      assert_memory_equal(y, relu6, sizeof(y));
    } else if (k == 2) {
      assert_true(y[5] == 1.0f);          /* above the upper cutoff */
      assert_true(y[0] == 1.0f / (1.0f + expf(7.0f)));
      assert_true(y[2] == 0.5f);
    } else if (k == 3) {
      assert_true(y[2] == 0.0f);
      assert_true(y[5] == 1.0f);
    } else {
      for (int32_t i = 0; i < 6; ++i) {
        assert_true(y[i] == hard_swish[i]);
      }
    }
    /* In place. */
    float z[6];
    memcpy(z, x, sizeof(z));
    assert_int_equal(fns[k](6, z, z), UTVM_OK);
    assert_memory_equal(z, y, sizeof(z));
    assert_int_equal(fns[k](0, x, y), UTVM_OK);
    assert_int_equal(fns[k](6, NULL, y), UTVM_ERR_KERNEL_BAD_PARAM);
    assert_int_equal(fns[k](6, x, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
    assert_int_equal(fns[k](-1, x, y), UTVM_ERR_KERNEL_BAD_SHAPE);
  }
  float below[1];
  const float minus_ten[1] = {-10.0f};
  assert_int_equal(utvm_logistic_f32(1, minus_ten, below), UTVM_OK);
  assert_true(below[0] == expf(-10.0f)); /* below the lower cutoff */
}

static void test_f32_softmax(void **state) {
  (void)state;
  const float x[4] = {1.0f, 1.0f, 1.0f, 1.0f};
  const float big[2] = {100.0f, 100.0f};
  float y[4];
  assert_int_equal(utvm_softmax_f32(1.0f, 2, 2, x, y), UTVM_OK);
  for (int32_t i = 0; i < 4; ++i) {
    assert_true(y[i] == 0.5f);
  }
  /* The row's maximum is subtracted first: no overflow. */
  assert_int_equal(utvm_softmax_f32(2.0f, 1, 2, big, y), UTVM_OK);
  assert_true(y[0] == 0.5f);
  assert_int_equal(utvm_softmax_f32(1.0f, 2, 2, NULL, y), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_softmax_f32(1.0f, 2, 2, x, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_softmax_f32(NAN, 2, 2, x, y), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_softmax_f32(INFINITY, 2, 2, x, y), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_softmax_f32(1.0f, 0, 2, x, y), UTVM_ERR_KERNEL_BAD_SHAPE);
  assert_int_equal(utvm_softmax_f32(1.0f, 2, 0, x, y), UTVM_ERR_KERNEL_BAD_SHAPE);
}

static void test_f32_mean(void **state) {
  (void)state;
  const utvm_shape_t s = {3, {2, 2, 3}};
  const float x[12] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f,
                       -1.0f, -2.0f, -3.0f, -4.0f, -5.0f, 6.5f};
  const int32_t axes[2] = {1, -3}; /* axes 1 and 0 */
  float y[3];
  assert_int_equal(utvm_mean_f32(&s, x, axes, 2, y), UTVM_OK);
  assert_true(y[0] == 0.0f);
  assert_true(y[1] == 0.0f);
  assert_true(y[2] == 3.125f);
  const int32_t bad_axes[1] = {3};
  assert_int_equal(utvm_mean_f32(&s, x, bad_axes, 1, y), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_mean_f32(&s, NULL, axes, 2, y), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_mean_f32(&s, x, axes, 2, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_mean_f32(&s, x, NULL, 2, y), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_mean_f32(&s, x, axes, -1, y), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_mean_f32(NULL, x, axes, 2, y), UTVM_ERR_KERNEL_BAD_SHAPE);
  const utvm_shape_t zero = {2, {2, 0}};
  assert_int_equal(utvm_mean_f32(&zero, x, axes, 1, y), UTVM_ERR_KERNEL_BAD_SHAPE);
}

static void test_f32_activation_range(void **state) {
  (void)state;
  float lo = 0.0f;
  float hi = 0.0f;
  assert_int_equal(utvm_activation_range_f32(UTVM_ACT_NONE, &lo, &hi), UTVM_OK);
  assert_true(lo == -FLT_MAX && hi == FLT_MAX);
  assert_int_equal(utvm_activation_range_f32(UTVM_ACT_RELU, &lo, &hi), UTVM_OK);
  assert_true(lo == 0.0f && hi == FLT_MAX);
  assert_int_equal(utvm_activation_range_f32(UTVM_ACT_RELU_N1_TO_1, &lo, &hi), UTVM_OK);
  assert_true(lo == -1.0f && hi == 1.0f);
  assert_int_equal(utvm_activation_range_f32(UTVM_ACT_RELU6, &lo, &hi), UTVM_OK);
  assert_true(lo == 0.0f && hi == 6.0f);
  assert_int_equal(utvm_activation_range_f32(4, &lo, &hi), UTVM_ERR_KERNEL_UNSUPPORTED);
  assert_int_equal(utvm_activation_range_f32(0, NULL, &hi), UTVM_ERR_KERNEL_BAD_PARAM);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_f32_tflm_cases),
      cmocka_unit_test(test_f32_tflm_models),
      cmocka_unit_test(test_f32_errors_conv),
      cmocka_unit_test(test_f32_conv_grouped_clamp),
      cmocka_unit_test(test_f32_errors_depthwise),
      cmocka_unit_test(test_f32_errors_fully_connected),
      cmocka_unit_test(test_f32_errors_pools),
      cmocka_unit_test(test_f32_errors_binary),
      cmocka_unit_test(test_f32_unary),
      cmocka_unit_test(test_f32_softmax),
      cmocka_unit_test(test_f32_mean),
      cmocka_unit_test(test_f32_activation_range),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

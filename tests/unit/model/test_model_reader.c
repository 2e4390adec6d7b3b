/*
 * The TFLite reader against every shipped model (the 7 real models, network_tester and the 32
 * operator cases of ops/cases.json), against hand-built models with one defect each (error code
 * and text), and against hostile bytes: every truncation and byte corruption of hello_world and
 * truncations of every other model must give an error or a model whose accessors and plan are
 * sound (run it under the host-asan preset for the memory checks).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model_cases.h"
#include "model_check.h"
#include "tflite_builder.h"
#include "utvm/model.h"
#include "utvm/runner.h"

#ifndef UTVM_SHARED_DIR
#error "UTVM_SHARED_DIR must name the shared/ folder"
#endif

/* The whole file in a heap block of exactly its size (so ASan sees reads past the end). */
static uint8_t *load(const char *relative, size_t *size) {
  char path[512];
  FILE *f;
  long n;
  uint8_t *data;
  (void)snprintf(path, sizeof(path), "%s/models/%s", UTVM_SHARED_DIR, relative);
  f = fopen(path, "rb");
  if (f == NULL) {
    fail_msg("cannot open %s", path);
  }
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  n = ftell(f);
  assert_true(n > 0);
  assert_int_equal(fseek(f, 0, SEEK_SET), 0);
  data = (uint8_t *)malloc((size_t)n);
  assert_non_null(data);
  assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
  (void)fclose(f);
  *size = (size_t)n;
  return data;
}

static void assert_close(double got, double want) {
  if (fabs(got - want) > 1e-6 * fabs(want) + 1e-9) {
    fail_msg("got %.9g, expected %.9g", got, want);
  }
}

/* Opens data; if it is accepted, every accessor and the planner must be sound. Returns the
 * open() code. */
static utvm_err_t open_and_exercise(const uint8_t *data, size_t size, uint32_t scratch_seed) {
  utvm_model_t m;
  uint32_t sum = 0u;
  utvm_err_t plan_err;
  const char *why;
  utvm_err_t err = utvm_model_open(&m, data, size);
  if (err != UTVM_OK) {
    if (m.error[0] == '\0') {
      fail_msg("open failed (%s) without an error text", utvm_strerror(err));
    }
    return err;
  }
  why = model_exercise(&m, &sum);
  if (why != NULL) {
    fail_msg("accepted model: %s", why);
  }
  why = model_plan_check(&m, scratch_seed, 0u, NULL, &plan_err);
  if (why == NULL) {
    why = model_plan_check(&m, scratch_seed, UTVM_MODEL_PLAN_IO_SEPARATE, NULL, &plan_err);
  }
  if (why != NULL) {
    fail_msg("accepted model: plan: %s (%s)", why, m.error);
  }
  return err;
}

/* ---- the real models ---- */

typedef struct {
  const char *file;
  uint32_t n_ops;
  uint32_t in_rank;
  int32_t in_dims[4];
  double in_scale;
  int32_t in_zp;
  uint32_t out_rank;
  int32_t out_dims[4];
  int32_t first_op;
  int32_t last_op;
} real_model_t;

static const real_model_t real_models[] = {
    {"person_detect_int8.tflite", 31u, 4u, {1, 96, 96, 1}, 0.00784314, -1, 2u, {1, 2}, 4, 25},
    {"micro_speech_int8.tflite", 4u, 2u, {1, 1960}, 0.101716, -128, 2u, {1, 4}, 22, 25},
    {"hello_world_int8.tflite", 3u, 2u, {1, 1}, 0.02448, -128, 2u, {1, 1}, 9, 9},
    {"mlperf_tiny_kws_dscnn_int8.tflite", 13u, 4u, {1, 49, 10, 1}, 0.584703, 83, 2u, {1, 12}, 3, 25},
    {"mlperf_tiny_vww_mobilenetv1_int8.tflite", 31u, 4u, {1, 96, 96, 3}, 1.0 / 255.0, -128, 2u,
     {1, 2}, 3, 25},
    {"mlperf_tiny_ic_resnet8_int8.tflite", 16u, 4u, {1, 32, 32, 3}, 1.0, -128, 2u, {1, 10}, 3, 25},
    {"mlperf_tiny_ad_autoencoder_int8.tflite", 10u, 2u, {1, 640}, 0.391015, 89, 2u, {1, 640}, 9,
     9},
    {"refdata/network_tester/network_model.tflite", 1u, 0u, {0}, 0.0, 0, 0u, {0}, 4, 4},
};

static void test_real_models(void **state) {
  size_t i;
  (void)state;
  for (i = 0u; i < sizeof(real_models) / sizeof(real_models[0]); i++) {
    const real_model_t *r = &real_models[i];
    size_t size;
    uint8_t *data = load(r->file, &size);
    utvm_model_t m;
    utvm_model_tensor_t t;
    utvm_model_operator_t op;
    uint32_t index;
    uint32_t k;
    utvm_err_t err = utvm_model_open(&m, data, size);
    if (err != UTVM_OK) {
      fail_msg("%s: %s: %s", r->file, utvm_strerror(err), m.error);
    }
    assert_int_equal(m.version, 3);
    assert_true(strlen(m.description) > 0u);
    assert_int_equal(m.n_operators, r->n_ops);
    assert_int_equal(m.n_inputs, 1);
    assert_int_equal(m.n_outputs, 1);
    assert_int_equal(utvm_model_operator(&m, 0u, &op), UTVM_OK);
    assert_int_equal(op.code, r->first_op);
    assert_int_equal(utvm_model_operator(&m, m.n_operators - 1u, &op), UTVM_OK);
    assert_int_equal(op.code, r->last_op);
    for (k = 0u; k < m.n_operators; k++) {
      /* field 3 left at 0 in several files must not read as ADD (only IC has ADD) */
      assert_int_equal(utvm_model_operator(&m, k, &op), UTVM_OK);
      if (op.code == UTVM_MODEL_OP_ADD) {
        assert_string_equal(r->file, "mlperf_tiny_ic_resnet8_int8.tflite");
      }
    }
    if (r->in_rank != 0u) {
      assert_int_equal(utvm_model_input(&m, 0u, &index), UTVM_OK);
      assert_int_equal(utvm_model_tensor(&m, index, &t), UTVM_OK);
      assert_int_equal(t.type, UTVM_MODEL_INT8);
      assert_int_equal(t.rank, r->in_rank);
      assert_memory_equal(t.dims, r->in_dims, r->in_rank * sizeof(int32_t));
      assert_null(t.data);
      assert_int_equal(t.quant.count, 1);
      if (fabs(t.quant.scale - r->in_scale) > 1e-5 * r->in_scale) {
        fail_msg("%s: input scale %g, expected %g", r->file, (double)t.quant.scale, r->in_scale);
      }
      assert_int_equal(t.quant.zero_point, r->in_zp);
      assert_int_equal(utvm_model_output(&m, 0u, &index), UTVM_OK);
      assert_int_equal(utvm_model_tensor(&m, index, &t), UTVM_OK);
      assert_int_equal(t.type, UTVM_MODEL_INT8);
      assert_int_equal(t.rank, r->out_rank);
      assert_memory_equal(t.dims, r->out_dims, r->out_rank * sizeof(int32_t));
    }
    assert_int_equal(open_and_exercise(data, size, 0u), UTVM_OK);
    assert_int_equal(open_and_exercise(data, size, 7u), UTVM_OK);
    free(data);
  }
}

/* person_detect's depthwise biases store quantized_dimension 3 on a 1-D tensor. */
static void test_person_detect_bias_dimension(void **state) {
  size_t size;
  uint8_t *data = load("person_detect_int8.tflite", &size);
  utvm_model_t m;
  utvm_model_tensor_t t;
  (void)state;
  assert_int_equal(utvm_model_open(&m, data, size), UTVM_OK);
  assert_int_equal(utvm_model_tensor(&m, 33u, &t), UTVM_OK);
  assert_int_equal(t.rank, 1);
  assert_int_equal(t.quant.count, 8);
  assert_int_equal(t.quant.quantized_dimension, 0);
  assert_int_equal(t.type, UTVM_MODEL_INT32);
  assert_non_null(t.data);
  assert_int_equal(t.bytes, 32);
  free(data);
}

/* ---- the operator cases ---- */

static void check_tensor(const char *where, const utvm_model_t *m, int32_t index,
                         const case_tensor_t *want) {
  utvm_model_tensor_t t;
  uint32_t k;
  if (want->absent) {
    if (index != -1) {
      fail_msg("%s: expected an absent operand, got tensor %d", where, index);
    }
    return;
  }
  assert_true(index >= 0);
  assert_int_equal(utvm_model_tensor(m, (uint32_t)index, &t), UTVM_OK);
  if (want->name != NULL) {
    assert_string_equal(t.name, want->name);
  }
  assert_int_equal(t.type, want->type);
  assert_int_equal(t.rank, want->rank);
  for (k = 0u; k < want->rank; k++) {
    assert_int_equal(t.dims[k], want->dims[k]);
  }
  assert_int_equal(t.data != NULL, want->is_const);
  if (t.data != NULL) {
    assert_int_equal((uintptr_t)t.data % t.element_size, 0);
  }
  assert_int_equal(t.quant.count, want->quant_count);
  if (want->quant_count == 1u) {
    assert_close((double)t.quant.scale, (double)want->scale);
    assert_int_equal(t.quant.zero_point, want->zero_point);
  } else if (want->quant_count > 1u) {
    assert_int_equal(t.quant.quantized_dimension, want->quantized_dimension);
    for (k = 0u; k < t.quant.count; k++) {
      assert_true(utvm_model_quant_scale(&t.quant, k) > 0.0f);
    }
  } else {
    /* not quantized */
  }
}

/* Where a cases.json option key is stored in its operator's options table (TFLite schema):
 * field id and storage (1 unsigned byte, -1 signed byte, 4 int32, 'f' float32, 'l' int32 list). */
typedef struct {
  int32_t code;
  const char *key;
  uint32_t id;
  int32_t storage;
  int64_t def;
} option_field_t;

static const option_field_t kOptionFields[] = {
    {3, "padding", 0u, 1, 0}, {3, "strideW", 1u, 4, 0}, {3, "strideH", 2u, 4, 0},
    {3, "fusedActivationFunction", 3u, 1, 0}, {3, "dilationWFactor", 4u, 4, 1},
    {3, "dilationHFactor", 5u, 4, 1}, {3, "quantizedBiasType", 6u, -1, 0},
    {4, "padding", 0u, 1, 0}, {4, "strideW", 1u, 4, 0}, {4, "strideH", 2u, 4, 0},
    {4, "depthMultiplier", 3u, 4, 0}, {4, "fusedActivationFunction", 4u, 1, 0},
    {4, "dilationWFactor", 5u, 4, 1}, {4, "dilationHFactor", 6u, 4, 1},
    {9, "fusedActivationFunction", 0u, 1, 0}, {9, "weightsFormat", 1u, 1, 0},
    {9, "keepNumDims", 2u, 1, 0}, {9, "asymmetricQuantizeInputs", 3u, 1, 0},
    {9, "quantizedBiasType", 4u, -1, 0},
    {1, "padding", 0u, 1, 0}, {1, "strideW", 1u, 4, 0}, {1, "strideH", 2u, 4, 0},
    {1, "filterWidth", 3u, 4, 0}, {1, "filterHeight", 4u, 4, 0},
    {1, "fusedActivationFunction", 5u, 1, 0},
    {17, "padding", 0u, 1, 0}, {17, "strideW", 1u, 4, 0}, {17, "strideH", 2u, 4, 0},
    {17, "filterWidth", 3u, 4, 0}, {17, "filterHeight", 4u, 4, 0},
    {17, "fusedActivationFunction", 5u, 1, 0},
    {0, "fusedActivationFunction", 0u, 1, 0}, {0, "potScaleInt16", 1u, 1, 1},
    {18, "fusedActivationFunction", 0u, 1, 0}, {25, "beta", 0u, 'f', 0},
    {22, "newShape", 0u, 'l', 0}, {43, "squeezeDims", 0u, 'l', 0},
    {2, "axis", 0u, 4, 0}, {2, "fusedActivationFunction", 1u, 1, 0},
    {40, "keepDims", 0u, 1, 0}};

/* The value of a cases.json option key as stored (and its list, for list options), read with
 * the model's option readers. */
static double option_value(const utvm_model_t *m, uint32_t index, const utvm_model_operator_t *op,
                           const char *key, int32_t *list, uint32_t *list_len) {
  size_t i;
  *list_len = 0u;
  for (i = 0u; i < sizeof(kOptionFields) / sizeof(kOptionFields[0]); i++) {
    const option_field_t *f = &kOptionFields[i];
    uint64_t bits = 0u;
    if (f->code != (int32_t)op->code || strcmp(f->key, key) != 0) {
      continue;
    }
    if (f->storage == 'l') {
      assert_int_equal(utvm_model_option_i32s(m, index, op, f->id, list, UTVM_MODEL_MAX_DIMS,
                                              list_len, NULL),
                       UTVM_OK);
      return 0.0;
    }
    const uint32_t width = (f->storage == 1 || f->storage == -1) ? 1u : 4u;
    assert_int_equal(utvm_model_option_bits(m, index, op, f->id, width, (uint64_t)f->def & 0xFFu,
                                            &bits, NULL),
                     UTVM_OK);
    if (f->storage == 'f') {
      float v;
      uint32_t b32 = (uint32_t)bits;
      memcpy(&v, &b32, sizeof(v));
      return (double)v;
    }
    if (f->storage == -1) {
      return (double)(int8_t)(uint8_t)bits;
    }
    return (width == 1u) ? (double)bits : (double)(int32_t)(uint32_t)bits;
  }
  fail_msg("option %s not known for %s", key, utvm_model_op_name((int32_t)op->code));
  return 0.0;
}

static void test_operator_cases(void **state) {
  size_t c;
  (void)state;
  assert_int_equal(MODEL_CASE_COUNT, 32);
  for (c = 0u; c < MODEL_CASE_COUNT; c++) {
    const case_t *cs = &model_cases[c];
    char file[256];
    size_t size;
    uint8_t *data;
    utvm_model_t m;
    uint32_t i;
    uint32_t k;
    uint32_t index;
    utvm_err_t err;
    (void)snprintf(file, sizeof(file), "ops/%s", cs->model);
    data = load(file, &size);
    err = utvm_model_open(&m, data, size);
    if (err != UTVM_OK) {
      fail_msg("%s: %s: %s", cs->name, utvm_strerror(err), m.error);
    }
    assert_int_equal(m.n_operators, cs->n_ops);
    assert_int_equal(utvm_model_input(&m, 0u, &index), UTVM_OK);
    check_tensor(cs->name, &m, (int32_t)index, &cs->input);
    assert_int_equal(utvm_model_output(&m, 0u, &index), UTVM_OK);
    check_tensor(cs->name, &m, (int32_t)index, &cs->output);
    for (i = 0u; i < cs->n_ops; i++) {
      const case_op_t *want = &cs->ops[i];
      utvm_model_operator_t op;
      assert_int_equal(utvm_model_operator(&m, i, &op), UTVM_OK);
      assert_int_equal(op.code, want->code);
      assert_string_equal(utvm_model_op_name((int32_t)op.code), want->op_name);
      assert_int_equal(op.n_inputs, want->n_inputs);
      assert_int_equal(op.n_outputs, want->n_outputs);
      for (k = 0u; k < want->n_inputs; k++) {
        check_tensor(cs->name, &m, op.inputs[k], &want->inputs[k]);
      }
      for (k = 0u; k < want->n_outputs; k++) {
        check_tensor(cs->name, &m, op.outputs[k], &want->outputs[k]);
      }
      for (k = 0u; k < want->n_options; k++) {
        const case_option_t *o = &want->options[k];
        int32_t list[UTVM_MODEL_MAX_DIMS];
        uint32_t len;
        double got = option_value(&m, i, &op, o->key, list, &len);
        if (o->list_len != 0u) {
          assert_int_equal(len, o->list_len);
          assert_memory_equal(list, o->list, len * sizeof(int32_t));
        } else if (fabs(got - o->value) > 1e-6) {
          fail_msg("%s op %u option %s: got %g, expected %g", cs->name, i, o->key, got, o->value);
        }
      }
    }
    assert_int_equal(open_and_exercise(data, size, 3u), UTVM_OK);
    free(data);
  }
}

/* ---- hand-built models, one defect each ---- */

static uint8_t built[8192];

static utvm_err_t open_spec(const tb_spec_t *s, utvm_model_t *m, tb_t *b) {
  uint32_t n = tb_build(s, built, sizeof(built), b);
  assert_true(n < sizeof(built));
  return utvm_model_open(m, built, n);
}

static void expect_error(const tb_spec_t *s, utvm_err_t code, const char *text) {
  utvm_model_t m;
  utvm_err_t err = open_spec(s, &m, NULL);
  if (err != code || strstr(m.error, text) == NULL) {
    fail_msg("got %s \"%s\", expected %s \"%s\"", utvm_strerror(err), m.error,
             utvm_strerror(code), text);
  }
}

/* s opens, and preparing it (the operator files' checks) fails with code and text. */
static void expect_prepare_error(const tb_spec_t *s, utvm_err_t code, const char *text) {
  static uint8_t workspace[16384];
  utvm_model_t m;
  utvm_runner_t r;
  utvm_err_t err = open_spec(s, &m, NULL);
  if (err != UTVM_OK) {
    fail_msg("open: %s \"%s\"", utvm_strerror(err), m.error);
  }
  err = utvm_runner_init(&r, &m, workspace, sizeof(workspace), NULL, 0u);
  if (err != code || strstr(r.error, text) == NULL) {
    fail_msg("got %s \"%s\", expected %s \"%s\"", utvm_strerror(err), r.error,
             utvm_strerror(code), text);
  }
}

/* SPLIT: t0 int8[2,6] -> t2, t3 int8[2,3] along the axis t1 (an int32 constant, *axis). */
static void split_spec(tb_spec_t *s, const int32_t *axis) {
  tb_default(s);
  s->builtin[0] = 49;
  s->deprecated[0] = 49;
  s->n_tensors = 4u;
  s->t[0] = (tb_tensor_t){2u, {2, 6}, 9, 0u, "in", 1u, {0.5f}, 1u, {-3}, 0, false, false};
  s->t[1] = (tb_tensor_t){0u, {0}, 2, 1u, "axis", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s->t[2] = (tb_tensor_t){2u, {2, 3}, 9, 0u, "a", 1u, {0.5f}, 1u, {-3}, 0, false, false};
  s->t[3] = (tb_tensor_t){2u, {2, 3}, 9, 0u, "b", 1u, {0.5f}, 1u, {-3}, 0, false, false};
  s->buffer_len[1] = 4u;
  s->buffer_data[1] = axis;
  s->n_outputs = 2u;
  s->outputs[0] = 2;
  s->outputs[1] = 3;
  s->op[0] = (tb_op_t){0u, 2u, {1, 0}, 2u, {2, 3}, 35u, 1u, {{0u, 4u, 2u}}};
}

/* SPLIT, SPLIT_V and UNPACK refuse what does not fit. */
static void test_split_errors(void **state) {
  tb_spec_t s;
  const int32_t axis1 = 1;
  const int32_t axis0 = 0;
  const int32_t axis_bad = 2;
  const int32_t sizes_bad[2] = {2, 3};
  const int32_t sizes_two_unknown[2] = {-1, -1};
  const int32_t sizes_zero[2] = {0, 6};
  static uint8_t workspace[16384];
  utvm_model_t m;
  utvm_runner_t r;
  (void)state;
  split_spec(&s, &axis1);
  assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
  assert_int_equal(utvm_runner_init(&r, &m, workspace, sizeof(workspace), NULL, 0u),
                   UTVM_ERR_RUNNER_ARENA); /* prepared: only the arena is missing */
  s.op[0].fields[0].value = 3u;
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (SPLIT): options: num_splits 3 is not the number of outputs");
  split_spec(&s, &axis_bad);
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION, "operator 0 (SPLIT): options: axis 2");
  split_spec(&s, &axis0);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (SPLIT): output [2,3] does not fit input [2,6]");
  s.t[0].dims[0] = 3;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "input [3,6] does not divide into the outputs along the axis");
  split_spec(&s, &axis1);
  s.t[3].dims[1] = 4;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS, "operator 0 (SPLIT): output [2,4]");
  split_spec(&s, &axis1);
  s.t[3].scales[0] = 0.25f;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED, "scale or zero point differs");
  split_spec(&s, &axis1);
  s.t[1].type = 9;
  s.buffer_len[1] = 1u;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS, "axis [] is not one int32");
  /* SPLIT_V: input, size_splits t4, axis */
  split_spec(&s, &axis1);
  s.builtin[0] = 102;
  s.deprecated[0] = 102;
  s.n_tensors = 5u;
  s.t[4] = (tb_tensor_t){1u, {2}, 2, 2u, "sizes", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s.n_buffers = 3u;
  s.buffer_len[2] = 8u;
  s.buffer_data[2] = sizes_bad;
  s.op[0] = (tb_op_t){0u, 3u, {0, 4, 1}, 2u, {2, 3}, 79u, 1u, {{0u, 4u, 2u}}};
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (SPLIT_V): size_splits do not add up to the axis");
  s.buffer_data[2] = sizes_two_unknown;
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION, "size_splits entry -1 is not >= 1");
  s.buffer_data[2] = sizes_zero;
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION, "size_splits entry 0 is not >= 1");
  /* UNPACK: t0 int8[2,6] along axis 0 into two int8[6] */
  split_spec(&s, &axis1);
  s.builtin[0] = 88;
  s.deprecated[0] = 88;
  s.t[2] = (tb_tensor_t){1u, {6}, 9, 0u, "a", 1u, {0.5f}, 1u, {-3}, 0, false, false};
  s.t[3] = s.t[2];
  s.op[0] = (tb_op_t){0u, 1u, {0}, 2u, {2, 3}, 64u, 2u, {{0u, 4u, 2u}, {1u, 4u, 0u}}};
  assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
  assert_int_equal(utvm_runner_init(&r, &m, workspace, sizeof(workspace), NULL, 0u),
                   UTVM_ERR_RUNNER_ARENA);
  s.op[0].fields[0].value = 6u;
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (UNPACK): options: num 6 is not the number of outputs");
  s.op[0].fields[0].value = 2u;
  s.op[0].fields[1].value = 1u;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS, "operator 0 (UNPACK): output [6]");
  s.op[0].fields[1].value = 7u;
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION, "operator 0 (UNPACK): options: axis 7");
}

/* FULLY_CONNECTED with int16 activations: zero points 0, the bias int64 or int32. */
static void test_s16_weighted_errors(void **state) {
  tb_spec_t s;
  static uint8_t workspace[16384];
  utvm_model_t m;
  utvm_runner_t r;
  (void)state;
  tb_default(&s);
  s.t[0].type = 7;
  s.t[0].zps[0] = 0;
  s.t[2].type = 7;
  s.t[2].zps[0] = 0;
  assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
  assert_int_equal(utvm_runner_init(&r, &m, workspace, sizeof(workspace), NULL, 0u),
                   UTVM_ERR_RUNNER_ARENA); /* prepared */
  s.t[0].zps[0] = -3;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (FULLY_CONNECTED): input is int16 with zero point -3, not 0");
  s.t[0].zps[0] = 0;
  s.t[2].type = 9;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED, "output is int8, not int16");
  s.t[2].type = 7;
  /* a bias of int16: neither int64 nor int32 */
  s.n_tensors = 4u;
  s.t[3] = (tb_tensor_t){1u, {2}, 7, 2u, "bias", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s.n_buffers = 3u;
  s.buffer_len[2] = 4u;
  s.op[0].in[2] = 3;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED, "bias is int16, not int64");
}

/* An element-wise operator `code` on tensors 0 (input, [1,4]) and, for a binary one, 1
 * (second input, [1,4], constant), output 2 ([1,4]); all int8 of tb_default's scales. */
static void elementwise_spec(tb_spec_t *s, int32_t code, bool binary) {
  tb_default(s);
  s->deprecated[0] = (int8_t)code;
  s->builtin[0] = code;
  s->t[1].dims[0] = 1;
  s->t[1].n_scales = 1u;
  s->buffer_len[1] = 4u;
  s->t[2].dims[1] = 4;
  s->op[0] = (tb_op_t){0u, binary ? 2u : 1u, {0, 1}, 1u, {2}, 0u, 0u, {{0u, 1u, 0u}}};
}

static void test_elementwise_refusals(void **state) {
  tb_spec_t s;
  (void)state;
  elementwise_spec(&s, 21, false); /* RELU6: output scale 0.75, input 0.5 */
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (RELU6): input and output scales or zero points differ");
  elementwise_spec(&s, 19, false); /* RELU on int16 with a zero point */
  s.t[0].type = 7;
  s.t[2].type = 7;
  s.t[2].zps[0] = 0;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (RELU): input is int16 with zero point -3, not 0");
  elementwise_spec(&s, 101, false); /* ABS: int8 in, int16 out */
  s.t[2].type = 7;
  s.t[2].zps[0] = 0;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (ABS): output is int16, not int8");
  elementwise_spec(&s, 55, true); /* MAXIMUM of differently quantized inputs */
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (MAXIMUM): inputs and output scales or zero points differ");
  elementwise_spec(&s, 41, true); /* SUB of int8 and int16 */
  s.t[1].type = 7;
  s.buffer_len[1] = 8u;
  s.t[1].zps[0] = 0;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (SUB): inputs and output are not all of one type");
  elementwise_spec(&s, 41, true); /* SUB: an unknown fused activation */
  s.op[0].options_type = 28u;
  s.op[0].n_fields = 1u;
  s.op[0].fields[0] = (tb_field_t){0u, 1u, 5u};
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (SUB): options: unsupported fused activation SIGN_BIT");
  elementwise_spec(&s, 59, false); /* NEG: TFLM has float32 only */
  expect_error(&s, UTVM_ERR_MODEL_UNSUPPORTED_OPERATOR, "operator 0 (NEG): unsupported operator");
}

/* SVDF: t0 int8[1,4] input, t1 int8[2,4] feature weights, t2 int16[2,3] time weights, t3
 * int32[2] bias, t4 int16[1,6] variable state -> t5 int8[1,2]; rank 1. */
static void svdf_spec(tb_spec_t *s) {
  tb_default(s);
  s->builtin[0] = 27;
  s->deprecated[0] = 27;
  s->n_tensors = 6u;
  s->t[0] = (tb_tensor_t){2u, {1, 4}, 9, 0u, "in", 1u, {0.5f}, 1u, {-3}, 0, false, false};
  s->t[1] = (tb_tensor_t){2u, {2, 4}, 9, 1u, "feature", 1u, {0.25f}, 1u, {0}, 0, false, false};
  s->t[2] = (tb_tensor_t){2u, {2, 3}, 7, 2u, "time", 1u, {0.125f}, 1u, {0}, 0, false, false};
  s->t[3] = (tb_tensor_t){1u, {2}, 2, 3u, "bias", 1u, {0.0625f}, 1u, {0}, 0, false, false};
  s->t[4] = (tb_tensor_t){2u, {1, 6}, 7, 0u, "state", 1u, {0.5f}, 1u, {0}, 0, false, true};
  s->t[5] = (tb_tensor_t){2u, {1, 2}, 9, 0u, "out", 1u, {0.75f}, 1u, {5}, 0, false, false};
  s->n_buffers = 4u;
  s->buffer_len[1] = 8u;
  s->buffer_len[2] = 12u;
  s->buffer_len[3] = 8u;
  s->outputs[0] = 5;
  s->op[0] = (tb_op_t){0u, 5u, {0, 1, 2, 3, 4}, 1u, {5}, 6u, 1u, {{0u, 4u, 1u}}};
}

/* SVDF checks its operands as TFLM's PrepareSvdf does, and its state is a variable tensor. */
static void test_svdf_errors(void **state) {
  tb_spec_t s;
  static uint8_t workspace[16384];
  utvm_model_t m;
  utvm_runner_t r;
  (void)state;
  svdf_spec(&s);
  assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
  assert_int_equal(utvm_runner_init(&r, &m, workspace, sizeof(workspace), NULL, 0u),
                   UTVM_ERR_RUNNER_ARENA); /* prepared */
  s.t[4].variable = false;
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_GRAPH,
                       "operator 0 (SVDF): tensor 4 is read before any operator writes it");
  svdf_spec(&s);
  s.op[0].fields[0].value = 3u;
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (SVDF): options: rank 3 does not divide");
  svdf_spec(&s);
  s.op[0].in[3] = -1;
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPERANDS,
                       "operator 0 (SVDF): inputs: a required input is absent (-1)");
  svdf_spec(&s);
  s.t[3].scales[0] = 0.5f;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "bias scale is not the state's times the time weights'");
  svdf_spec(&s);
  s.t[4].type = 9;
  s.t[4].zps[0] = 0;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED, "state is int8, not int16");
  svdf_spec(&s);
  s.t[4].dims[1] = 5;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS, "state [1,5] is not [1,6]");
  svdf_spec(&s);
  s.t[1].zps[0] = 2;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED, "weights zero point 2 is not 0");
}

/* UNIDIRECTIONAL_SEQUENCE_LSTM: t0 int8[1,2,3] input; t1-t4 int8[4,3] input and t5-t8 int8[4,4]
 * recurrent weights; t9-t12 int32[4] biases; t13 int8[1,4] hidden and t14 int16[1,4] cell state
 * (variable) -> t15 int8[1,2,4]; peepholes, projection and layer norms absent; TANH. */
static void lstm_spec(tb_spec_t *s) {
  uint32_t k;
  tb_default(s);
  s->builtin[0] = 44;
  s->deprecated[0] = 44;
  s->n_tensors = 16u;
  s->t[0] = (tb_tensor_t){3u, {1, 2, 3}, 9, 0u, "in", 1u, {0.02f}, 1u, {3}, 0, false, false};
  for (k = 1u; k <= 8u; k++) {
    const int32_t depth = (k <= 4u) ? 3 : 4;
    s->t[k] = (tb_tensor_t){2u, {4, depth}, 9, k, "w", 1u, {0.01f}, 1u, {0}, 0, false, false};
    s->buffer_len[k] = (uint32_t)(4 * depth);
  }
  for (k = 9u; k <= 12u; k++) {
    s->t[k] = (tb_tensor_t){1u, {4}, 2, k, "bias", 1u, {0.0002f}, 1u, {0}, 0, false, false};
    s->buffer_len[k] = 16u;
  }
  s->t[13] = (tb_tensor_t){2u, {1, 4}, 9, 0u, "hidden", 1u, {0.0078125f}, 1u, {-3}, 0, false,
                           true};
  s->t[14] = (tb_tensor_t){2u, {1, 4}, 7, 0u, "cell", 1u, {0.00048828125f}, 1u, {0}, 0, false,
                           true};
  s->t[15] = (tb_tensor_t){3u, {1, 2, 4}, 9, 0u, "out", 1u, {0.0078125f}, 1u, {-3}, 0, false,
                           false};
  s->n_buffers = 13u;
  s->outputs[0] = 15;
  s->op[0] = (tb_op_t){0u, 24u, {0, 1, 2, 3, 4, 5, 6, 7, 8, -1, -1, -1, 9, 10, 11, 12, -1, -1,
                                 13, 14, -1, -1, -1, -1},
                       1u, {15}, 71u, 2u, {{0u, 1u, 4u}, {3u, 1u, 0u}}};
}

/* UNIDIRECTIONAL_SEQUENCE_LSTM checks its options and operands as TFLM's integer LSTM does. */
static void test_lstm_errors(void **state) {
  tb_spec_t s;
  static uint8_t workspace[16384];
  utvm_model_t m;
  utvm_runner_t r;
  (void)state;
  lstm_spec(&s);
  assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
  assert_int_equal(utvm_runner_init(&r, &m, workspace, sizeof(workspace), NULL, 0u),
                   UTVM_ERR_RUNNER_ARENA); /* prepared */
  s.op[0].fields[0].value = 0u;
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (UNIDIRECTIONAL_SEQUENCE_LSTM): options: "
                       "fused_activation_function 0 is not TANH (4)");
  lstm_spec(&s);
  s.op[0].fields[1].value = 2u;
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION, "options: time_major 2 is not a boolean");
  lstm_spec(&s);
  s.op[0].n_in = 20u;
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPERANDS, "has 20 inputs, not 24");
  lstm_spec(&s);
  s.op[0].in[10] = 5;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "peephole weights (input 10) is given: TFLM's integer LSTM has none");
  lstm_spec(&s);
  s.op[0].in[16] = 5;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED, "projection (input 16) is given");
  lstm_spec(&s);
  s.op[0].in[1] = -1;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "an input (input 1) is absent: TFLM's integer LSTM needs every gate");
  lstm_spec(&s);
  s.t[6].zps[0] = 2;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "recurrent weights (input 6) is not quantized per tensor with zero point 0");
  lstm_spec(&s);
  s.t[2].dims[1] = 4;
  s.buffer_len[2] = 16u;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS, "input weights [4,4] is not [4,3]");
  lstm_spec(&s);
  s.t[11].type = 4;
  s.buffer_len[11] = 32u;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED, "bias is int64, not int32");
  lstm_spec(&s);
  s.t[14].type = 9;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED, "cell state is int8, not int16");
  lstm_spec(&s);
  s.t[14].dims[1] = 5;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "cell state [1,5] does not hold batches x cells elements");
  lstm_spec(&s);
  s.t[15].dims[2] = 5;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS, "output [1,2,5] does not fit input [1,2,3]");
  lstm_spec(&s);
  s.t[0].rank = 2u;
  s.t[0].dims[2] = 0;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS, "input");
  lstm_spec(&s);
  s.t[14].scales[0] = 8.0f;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "cell state scale is not within 2^-43..2^1");
  lstm_spec(&s);
  s.op[0].n_fields = 3u;
  s.op[0].fields[2] = (tb_field_t){1u, 4u, 0x38000000u}; /* cell_clip 2^-15: below a step */
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "options: cell_clip is below the cell state's step");
  lstm_spec(&s);
  s.op[0].n_fields = 3u;
  s.op[0].fields[2] = (tb_field_t){5u, 1u, 1u};
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION, "diagonal_recurrent_tensors 1");
  lstm_spec(&s);
  s.t[13].variable = false;
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_GRAPH,
                       "tensor 13 is read before any operator writes it");
}

/* A reduction or ARG_MAX/ARG_MIN (code, options type) of t0 int8[2,4] along the constant
 * axis t1 = *axis into t2 (int8 [2] for reductions, int32 [2] for ARG_*). */
static void reduce_spec(tb_spec_t *s, int32_t code, uint8_t options, const int32_t *axis) {
  const bool arg = (code == 56) || (code == 79);
  tb_default(s);
  s->builtin[0] = code;
  s->deprecated[0] = (int8_t)code;
  s->t[0] = (tb_tensor_t){2u, {2, 4}, 9, 0u, "in", 1u, {0.5f}, 1u, {-3}, 0, false, false};
  s->t[1] = (tb_tensor_t){1u, {1}, 2, 1u, "axis", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s->t[2] = arg ? (tb_tensor_t){1u, {2}, 2, 0u, "out", 0u, {0.0f}, 0u, {0}, 0, false, false}
                : (tb_tensor_t){1u, {2}, 9, 0u, "out", 1u, {0.5f}, 1u, {-3}, 0, false, false};
  s->buffer_len[1] = 4u;
  s->buffer_data[1] = axis;
  s->op[0] = (tb_op_t){0u, 2u, {0, 1}, 1u, {2}, options, 1u, {{0u, 1u, arg ? 2u : 0u}}};
}

/* The reductions and ARG_MAX/ARG_MIN refuse what TFLM's kernels do not take. */
static void test_reduce_errors(void **state) {
  tb_spec_t s;
  static uint8_t workspace[16384];
  utvm_model_t m;
  utvm_runner_t r;
  const int32_t axis1 = 1;
  const int32_t axis5 = 5;
  (void)state;
  reduce_spec(&s, 82, 27u, &axis1); /* REDUCE_MAX */
  assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
  assert_int_equal(utvm_runner_init(&r, &m, workspace, sizeof(workspace), NULL, 0u),
                   UTVM_ERR_RUNNER_ARENA);
  s.t[2].scales[0] = 0.25f;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (REDUCE_MAX): input and output scales or zero points differ");
  reduce_spec(&s, 89, 27u, &axis1); /* REDUCE_MIN, int16 */
  s.t[0].type = 7;
  s.t[0].zps[0] = 0;
  s.t[2].type = 7;
  s.t[2].zps[0] = 0;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (REDUCE_MIN): int16: TFLM's REDUCE_MAX and REDUCE_MIN have "
                       "int8 only");
  reduce_spec(&s, 74, 27u, &axis5); /* SUM */
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS, "operator 0 (SUM): axis 5 is outside input");
  reduce_spec(&s, 56, 40u, &axis1); /* ARG_MAX */
  assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
  assert_int_equal(utvm_runner_init(&r, &m, workspace, sizeof(workspace), NULL, 0u),
                   UTVM_ERR_RUNNER_ARENA);
  s.op[0].fields[0].value = 4u; /* INT64 */
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (ARG_MAX): options: output_type 4 is not INT32");
  reduce_spec(&s, 79, 57u, &axis5); /* ARG_MIN */
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION, "operator 0 (ARG_MIN): options: axis 5");
  reduce_spec(&s, 79, 57u, &axis1);
  s.t[2].dims[0] = 4;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (ARG_MIN): output [4] does not fit input [2,4]");
}

/* The element-wise, activation, normalisation and quantize operators of issue 25 (round 2). */
static void test_elem2_refusals(void **state) {
  tb_spec_t s;
  (void)state;
  elementwise_spec(&s, 114, false); /* QUANTIZE int8 -> int32: TFLM has it, utvm not */
  s.t[2].type = 2;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (QUANTIZE): output is int32, not int8");
  elementwise_spec(&s, 114, false); /* QUANTIZE int16 -> int8, the input not quantized */
  s.t[0].type = 7;
  s.t[0].n_scales = 0u;
  s.t[0].n_zps = 0u;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (QUANTIZE): input is not quantized");
  elementwise_spec(&s, 6, false); /* DEQUANTIZE int16 -> int16 */
  s.t[0].type = 7;
  s.t[2].type = 7;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (DEQUANTIZE): output is int16, not float32");
  elementwise_spec(&s, 6, false); /* DEQUANTIZE int16 per channel */
  s.t[0].type = 7;
  s.t[0].n_scales = 4u;
  s.t[0].scales[1] = 0.5f;
  s.t[0].scales[2] = 0.5f;
  s.t[0].scales[3] = 0.5f;
  s.t[0].qdim = 1;
  s.t[2].type = 0;
  s.t[2].n_scales = 0u;
  s.t[2].n_zps = 0u;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (DEQUANTIZE): input is quantized per channel");
  elementwise_spec(&s, 25, false); /* SOFTMAX int16 -> int16 with output scale 0.75 */
  s.op[0].options_type = 9u;
  s.op[0].n_fields = 1u;
  s.op[0].fields[0] = (tb_field_t){0u, 4u, 0x3f800000u}; /* beta 1.0 */
  s.t[0].type = 7;
  s.t[0].zps[0] = 0;
  s.t[2].type = 7;
  s.t[2].zps[0] = 0;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (SOFTMAX): output zero point 0 or scale is not the required 0 "
                       "and 1/32768");
  s.t[2].scales[0] = 1.0f / 32768.0f;
  s.t[2].type = 9; /* int16 -> int8: TFLM has no such softmax */
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (SOFTMAX): output is int8, not int16");
  s.t[2].type = 7;
  s.t[0].zps[0] = 4;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (SOFTMAX): input is int16 with zero point 4, not 0");
  elementwise_spec(&s, 25, false); /* SOFTMAX int8 -> int16 with zero point 0 */
  s.op[0].options_type = 9u;
  s.op[0].n_fields = 1u;
  s.op[0].fields[0] = (tb_field_t){0u, 4u, 0x3f800000u};
  s.t[2].type = 7;
  s.t[2].zps[0] = 0;
  s.t[2].scales[0] = 1.0f / 65536.0f;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (SOFTMAX): output zero point 0 or scale is not the required "
                       "-32768 and 1/65536");
  elementwise_spec(&s, 14, false); /* LOGISTIC int16 with output scale 0.75 */
  s.t[0].type = 7;
  s.t[0].zps[0] = 0;
  s.t[2].type = 7;
  s.t[2].zps[0] = 0;
  expect_prepare_error(&s, UTVM_ERR_KERNEL_UNSUPPORTED,
                       "operator 0 (LOGISTIC): input scale or output scale (not 2^-15)");
  s.t[2].scales[0] = 1.0f / 32768.0f;
  s.t[0].scales[0] = 8.0f; /* TANH: the multiplier would pass 32767 */
  s.builtin[0] = 28;
  s.deprecated[0] = 28;
  expect_prepare_error(&s, UTVM_ERR_KERNEL_UNSUPPORTED,
                       "operator 0 (TANH): input scale or output scale (not 2^-15)");
  elementwise_spec(&s, 99, true); /* SQUARED_DIFFERENCE int16 with a zero point */
  s.t[0].type = 7;
  s.t[1].type = 7;
  s.buffer_len[1] = 8u;
  s.t[1].zps[0] = 0;
  s.t[2].type = 7;
  s.t[2].zps[0] = 0;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (SQUARED_DIFFERENCE): input 1 is int16 with zero point -3, not 0");
}

/* BATCH_MATMUL: lhs t0 int8[2,3,4] x rhs t1 int8[4,5] (constant) -> t2 int8[2,3,5]. */
static void bmm_spec(tb_spec_t *s) {
  tb_default(s);
  s->builtin[0] = 126;
  s->deprecated[0] = 0; /* codes above 127 are in builtin_code only */
  s->t[0] = (tb_tensor_t){3u, {2, 3, 4}, 9, 0u, "lhs", 1u, {0.5f}, 1u, {-3}, 0, false, false};
  s->t[1] = (tb_tensor_t){2u, {4, 5}, 9, 1u, "rhs", 1u, {0.25f}, 1u, {0}, 0, false, false};
  s->t[2] = (tb_tensor_t){3u, {2, 3, 5}, 9, 0u, "out", 1u, {0.75f}, 1u, {5}, 0, false, false};
  s->buffer_len[1] = 20u;
  s->op[0] = (tb_op_t){0u, 2u, {0, 1}, 1u, {2}, 101u, 2u, {{0u, 1u, 0u}, {1u, 1u, 0u}}};
}

/* BATCH_MATMUL refuses shapes that do not multiply and mixed types. */
static void test_batch_matmul_errors(void **state) {
  tb_spec_t s;
  static uint8_t workspace[16384];
  utvm_model_t m;
  utvm_runner_t r;
  (void)state;
  bmm_spec(&s);
  assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
  assert_int_equal(utvm_runner_init(&r, &m, workspace, sizeof(workspace), NULL, 0u),
                   UTVM_ERR_RUNNER_ARENA);
  s.op[0].fields[1].value = 1u; /* adj_y: rhs [4,5] read as [5,4]: depth 5 != 4 */
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (BATCH_MATMUL): rhs [4,5] does not fit lhs [2,3,4]");
  bmm_spec(&s);
  s.t[2].dims[2] = 6;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS, "output [2,3,6] does not fit");
  bmm_spec(&s);
  s.t[1].type = 7;
  s.buffer_len[1] = 40u;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (BATCH_MATMUL): lhs, rhs and output types differ");
}

/* TRANSPOSE_CONV: output shape t0 int32[4] = {1,4,4,2} (constant), weights t1 int8[2,3,3,3],
 * input t2 int8[1,2,2,3], no bias -> t3 int8[1,4,4,2]; SAME, stride 2. */
static void tconv_spec(tb_spec_t *s, const int32_t *shape) {
  tb_default(s);
  s->builtin[0] = 67;
  s->deprecated[0] = 67;
  s->n_tensors = 4u;
  s->t[0] = (tb_tensor_t){1u, {4}, 2, 1u, "shape", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s->t[1] = (tb_tensor_t){4u, {2, 3, 3, 3}, 9, 2u, "w", 1u, {0.25f}, 1u, {0}, 0, false, false};
  s->t[2] = (tb_tensor_t){4u, {1, 2, 2, 3}, 9, 0u, "in", 1u, {0.5f}, 1u, {-3}, 0, false, false};
  s->t[3] = (tb_tensor_t){4u, {1, 4, 4, 2}, 9, 0u, "out", 1u, {0.75f}, 1u, {5}, 0, false, false};
  s->n_buffers = 3u;
  s->buffer_len[1] = 16u;
  s->buffer_data[1] = shape;
  s->buffer_len[2] = 54u;
  s->inputs[0] = 2;
  s->outputs[0] = 3;
  s->op[0] = (tb_op_t){0u, 3u, {0, 1, 2}, 1u, {3}, 49u, 3u,
                       {{0u, 1u, 0u}, {1u, 4u, 2u}, {2u, 4u, 2u}}};
}

/* TRANSPOSE_CONV refuses an output shape input or output size that does not fit. */
static void test_transpose_conv_errors(void **state) {
  tb_spec_t s;
  static uint8_t workspace[16384];
  utvm_model_t m;
  utvm_runner_t r;
  const int32_t shape[4] = {1, 4, 4, 2};
  const int32_t wrong[4] = {1, 4, 5, 2};
  (void)state;
  tconv_spec(&s, shape);
  assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
  assert_int_equal(utvm_runner_init(&r, &m, workspace, sizeof(workspace), NULL, 0u),
                   UTVM_ERR_RUNNER_ARENA);
  tconv_spec(&s, wrong);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (TRANSPOSE_CONV): output [1,4,4,2] does not fit output shape "
                       "input");
  tconv_spec(&s, shape);
  s.op[0].fields[0].value = 1u; /* VALID: a 3x3 window, stride 2, over 4 gives 1, not 2 */
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "output [1,4,4,2] does not fit input, strides and padding of");
  tconv_spec(&s, shape);
  s.t[1].dims[3] = 4;
  s.buffer_len[2] = 72u;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (TRANSPOSE_CONV): filter [2,3,3,4] does not fit input and "
                       "output of");
}

static void test_built_valid(void **state) {
  tb_spec_t s;
  uint64_t bits = 0u;
  utvm_model_t m;
  utvm_model_tensor_t t;
  utvm_model_operator_t op;
  tb_t b;
  (void)state;
  tb_default(&s);
  assert_int_equal(open_spec(&s, &m, &b), UTVM_OK);
  assert_string_equal(m.description, "utvm test model");
  assert_int_equal(m.n_tensors, 3);
  assert_int_equal(utvm_model_tensor(&m, 1u, &t), UTVM_OK);
  assert_string_equal(t.name, "weights");
  assert_int_equal(t.quant.count, 2);
  assert_int_equal(t.quant.quantized_dimension, 0);
  assert_true(utvm_model_quant_scale(&t.quant, 1u) == 0.125f);
  assert_int_equal(utvm_model_quant_zero_point(&t.quant, 1u), 0);
  assert_non_null(t.data);
  assert_int_equal(t.bytes, 8);
  assert_int_equal(utvm_model_tensor(&m, 0u, &t), UTVM_OK);
  assert_int_equal(t.quant.zero_point, -3);
  assert_true(t.quant.scale == 0.5f);
  assert_int_equal(utvm_model_operator(&m, 0u, &op), UTVM_OK);
  assert_int_equal(op.code, UTVM_MODEL_OP_FULLY_CONNECTED);
  assert_int_equal(op.inputs[2], -1);
  assert_int_equal(op.options_type, 8u); /* FullyConnectedOptions */
  assert_int_equal(utvm_model_option_bits(&m, 0u, &op, 0u, 1u, 0u, &bits, NULL), UTVM_OK);
  assert_int_equal(bits, 1u); /* RELU */
  assert_int_equal(open_and_exercise(built, b.n, 5u), UTVM_OK);
  /* field 3 (builtin_code) at 0 with the code in field 0, and the reverse */
  s.builtin[0] = 0;
  assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
  assert_int_equal(utvm_model_operator(&m, 0u, &op), UTVM_OK);
  assert_int_equal(op.code, UTVM_MODEL_OP_FULLY_CONNECTED);
  s.builtin[0] = 9;
  s.deprecated[0] = 0;
  assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
  /* no options table: defaults */
  s.op[0].options_type = 0u;
  assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
  assert_int_equal(utvm_model_operator(&m, 0u, &op), UTVM_OK);
  assert_int_equal(utvm_model_option_bits(&m, 0u, &op, 0u, 1u, 0u, &bits, NULL), UTVM_OK);
  assert_int_equal(bits, 0u); /* the default, NONE */
}

/* A one-operator layout model: t0 int8 input of in_dims -> operator code (t0, t1 a constant
 * int32 list of param_dims holding param, [t3 a second constant list]) -> t2 int8 output of
 * out_dims, one quantization everywhere. */
static void tb_layout(tb_spec_t *s, int32_t code, uint8_t options_type, uint32_t in_rank,
                      const int32_t *in_dims, uint32_t n_param, const int32_t *param,
                      uint32_t out_rank, const int32_t *out_dims) {
  uint32_t d;
  tb_default(s);
  s->deprecated[0] = (int8_t)((code < 127) ? code : 127);
  s->builtin[0] = code;
  s->t[0] = (tb_tensor_t){in_rank, {0}, 9, 0u, "in", 1u, {0.5f}, 1u, {-3}, 0, false, false};
  s->t[1] = (tb_tensor_t){1u, {(int32_t)n_param}, 2, 1u, "param", 0u, {0.0f}, 0u, {0}, 0,
                          false, false};
  s->t[2] = (tb_tensor_t){out_rank, {0}, 9, 0u, "out", 1u, {0.5f}, 1u, {-3}, 0, false, false};
  for (d = 0u; d < in_rank; d++) {
    s->t[0].dims[d] = in_dims[d];
  }
  for (d = 0u; d < out_rank; d++) {
    s->t[2].dims[d] = out_dims[d];
  }
  s->buffer_len[1] = n_param * 4u;
  s->buffer_data[1] = param;
  s->op[0] = (tb_op_t){0u, 2u, {0, 1}, 1u, {2}, options_type, 0u, {{0u, 0u, 0u}}};
}

/* tb_layout with one more constant int32 list per extra entry (t3, t4: buffers 2, 3). */
static void tb_layout_lists(tb_spec_t *s, int32_t code, uint8_t options_type, uint32_t in_rank,
                            const int32_t *in_dims, uint32_t n_lists, uint32_t n_param,
                            const int32_t *const *lists, uint32_t out_rank,
                            const int32_t *out_dims) {
  uint32_t k;
  tb_layout(s, code, options_type, in_rank, in_dims, n_param, lists[0], out_rank, out_dims);
  for (k = 1u; k < n_lists; k++) {
    s->t[2u + k] = s->t[1];
    s->t[2u + k].buffer = 1u + k;
    s->buffer_len[1u + k] = n_param * 4u;
    s->buffer_data[1u + k] = lists[k];
    s->op[0].in[1u + k] = (int32_t)(2u + k);
  }
  s->n_tensors = 2u + n_lists;
  s->n_buffers = 1u + n_lists;
  s->op[0].n_in = 1u + n_lists;
}

static void test_slice_refusals(void **state) {
  static const int32_t in3[3] = {2, 5, 6};
  static const int32_t out3[3] = {1, 5, 4};
  static const int32_t out2[2] = {5, 4};
  static const int32_t begin[3] = {1, 0, 2};
  static const int32_t begin_far[3] = {1, 5, 2};
  static const int32_t begin_shrunk_far[3] = {2, 0, 2};
  static const int32_t size[3] = {1, -1, 4};
  static const int32_t end[3] = {2, 5, 6};
  static const int32_t steps[3] = {1, 1, 1};
  static const int32_t steps_zero[3] = {1, 0, 1};
  static const int32_t steps_back[3] = {1, 1, -1};
  const int32_t *const slice_ok[2] = {begin, size};
  const int32_t *const slice_far[2] = {begin_far, size};
  const int32_t *const ss_ok[3] = {begin, end, steps};
  const int32_t *const ss_zero[3] = {begin, end, steps_zero};
  const int32_t *const ss_back[3] = {begin, end, steps_back};
  const int32_t *const ss_shrunk_far[3] = {begin_shrunk_far, end, steps};
  tb_spec_t s;
  (void)state;
  tb_layout_lists(&s, 65, 48u, 3u, in3, 2u, 3u, slice_ok, 3u, out3);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given"); /* prepared */
  tb_layout_lists(&s, 65, 48u, 3u, in3, 2u, 3u, slice_far, 3u, out3);
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (SLICE): options: begin and size of axis 1 leave the input");
  tb_layout_lists(&s, 65, 48u, 3u, in3, 2u, 2u, slice_ok, 3u, out3);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (SLICE): begin [2] does not fit input [2,5,6]");
  tb_layout_lists(&s, 65, 48u, 3u, in3, 2u, 3u, slice_ok, 3u, in3);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (SLICE): output [2,5,6] does not fit the slice of input");
  /* STRIDED_SLICE: shrink_axis_mask 1 (field 4) gives [5,4]. */
  tb_layout_lists(&s, 45, 32u, 3u, in3, 3u, 3u, ss_ok, 2u, out2);
  s.op[0].n_fields = 1u;
  s.op[0].fields[0] = (tb_field_t){4u, 4u, 1u};
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given"); /* prepared */
  tb_layout_lists(&s, 45, 32u, 3u, in3, 3u, 3u, ss_ok, 3u, out3);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given"); /* prepared */
  tb_layout_lists(&s, 45, 32u, 3u, in3, 3u, 3u, ss_zero, 3u, out3);
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (STRIDED_SLICE): options: stride of axis 1 is 0");
  tb_layout_lists(&s, 45, 32u, 3u, in3, 3u, 3u, ss_back, 3u, out3);
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (STRIDED_SLICE): options: axis 2 is sliced empty");
  tb_layout_lists(&s, 45, 32u, 3u, in3, 3u, 3u, ss_shrunk_far, 2u, out2);
  s.op[0].n_fields = 1u;
  s.op[0].fields[0] = (tb_field_t){4u, 4u, 1u};
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (STRIDED_SLICE): options: begin of shrunk axis 0 leaves the input");
  tb_layout_lists(&s, 45, 32u, 3u, in3, 3u, 3u, ss_ok, 3u, out3);
  s.op[0].n_fields = 1u;
  s.op[0].fields[0] = (tb_field_t){2u, 4u, 2u};
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (STRIDED_SLICE): options: ellipsis_mask 2 unsupported");
  tb_layout_lists(&s, 45, 32u, 3u, in3, 3u, 3u, ss_ok, 3u, out3);
  s.op[0].n_fields = 1u;
  s.op[0].fields[0] = (tb_field_t){3u, 4u, 1u};
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (STRIDED_SLICE): options: new_axis_mask 1 unsupported");
}

static void test_expand_dims_refusals(void **state) {
  static const int32_t in2[2] = {5, 6};
  static const int32_t out3[3] = {5, 1, 6};
  static const int32_t axis1[1] = {1};
  static const int32_t axis_back[1] = {-2};
  static const int32_t axis_far[1] = {3};
  static const int32_t axes[2] = {1, 1};
  tb_spec_t s;
  (void)state;
  tb_layout(&s, 70, 52u, 2u, in2, 1u, axis1, 3u, out3);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given"); /* prepared */
  tb_layout(&s, 70, 52u, 2u, in2, 1u, axis_back, 3u, out3);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given");
  tb_layout(&s, 70, 52u, 2u, in2, 1u, axis_far, 3u, out3);
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (EXPAND_DIMS): options: axis 3 outside the tensor's rank");
  tb_layout(&s, 70, 52u, 2u, in2, 2u, axes, 3u, out3);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (EXPAND_DIMS): axis [2] is not one value");
  tb_layout(&s, 70, 52u, 2u, in2, 1u, axis1, 2u, in2);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (EXPAND_DIMS): output [5,6] does not fit the expanded input");
}

/* PACK of t0 and a constant t1 of t0's shape and quantization, options values_count, axis. */
static void tb_pack(tb_spec_t *s, uint32_t values, int32_t axis, uint32_t out_rank,
                    const int32_t *out_dims) {
  static const int32_t in2[2] = {3, 4};
  tb_layout(s, 83, 59u, 2u, in2, 3u, NULL, out_rank, out_dims);
  s->t[1] = s->t[0];
  s->t[1].buffer = 1u;
  s->buffer_len[1] = 12u;
  s->op[0].n_fields = 2u;
  s->op[0].fields[0] = (tb_field_t){0u, 4u, values};
  s->op[0].fields[1] = (tb_field_t){1u, 4u, (uint32_t)axis};
}

static void test_pack_refusals(void **state) {
  static const int32_t out_axis1[3] = {3, 2, 4};
  static const int32_t out_axis0[3] = {2, 3, 4};
  tb_spec_t s;
  (void)state;
  tb_pack(&s, 2u, 1, 3u, out_axis1);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given"); /* prepared */
  tb_pack(&s, 2u, -3, 3u, out_axis0);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given");
  tb_pack(&s, 3u, 1, 3u, out_axis1);
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (PACK): options: values_count 3 is not the input count");
  tb_pack(&s, 2u, 3, 3u, out_axis1);
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (PACK): options: axis 3 outside the tensor's rank");
  tb_pack(&s, 2u, 0, 3u, out_axis1);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (PACK): output [3,2,4] does not have the input count");
  tb_pack(&s, 2u, 1, 3u, out_axis1);
  s.t[1].zps[0] = 2;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (PACK): an input's scale or zero point differs from the output's");
}

static void test_layout_refusals(void **state) {
  static const int32_t in4[4] = {1, 3, 5, 4};
  static const int32_t out4[4] = {1, 4, 3, 5};
  static const int32_t perm_ok[4] = {0, 3, 1, 2};
  static const int32_t perm_twice[4] = {0, 3, 3, 2};
  static const int32_t perm_far[4] = {0, 3, 4, 2};
  static const int32_t perm_negative[4] = {0, -1, 1, 2};
  static const int32_t out_wrong[4] = {1, 3, 4, 5};
  tb_spec_t s;
  (void)state;
  tb_layout(&s, 39, 26u, 4u, in4, 4u, perm_ok, 4u, out_wrong);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (TRANSPOSE): output [1,3,4,5] does not fit the perm of input");
  tb_layout(&s, 39, 26u, 4u, in4, 4u, perm_twice, 4u, out4);
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (TRANSPOSE): perm [0,3,3,2] is not a permutation");
  tb_layout(&s, 39, 26u, 4u, in4, 4u, perm_far, 4u, out4);
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (TRANSPOSE): perm [0,3,4,2] is not a permutation");
  tb_layout(&s, 39, 26u, 4u, in4, 4u, perm_negative, 4u, out4);
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (TRANSPOSE): perm [0,-1,1,2] is not a permutation");
  tb_layout(&s, 39, 26u, 4u, in4, 3u, perm_ok, 4u, out4);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (TRANSPOSE): perm [3] does not fit input [1,3,5,4]");
  tb_layout(&s, 39, 26u, 4u, in4, 4u, perm_ok, 4u, out4);
  s.t[2].zps[0] = 4;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (TRANSPOSE): input and output scales or zero points differ");
  tb_layout(&s, 39, 26u, 4u, in4, 4u, perm_ok, 4u, out4);
  s.t[2].type = 7;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (TRANSPOSE): output is int16, not int8");
  tb_layout(&s, 39, 26u, 4u, in4, 4u, perm_ok, 4u, out4);
  s.t[0].type = 2;
  s.t[2].type = 2;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (TRANSPOSE): input is int32, not int8, int16 or float32");
  tb_layout(&s, 39, 26u, 4u, in4, 4u, perm_ok, 4u, out4);
  s.t[1].buffer = 0u; /* the perm is a second model input */
  s.n_inputs = 2u;
  s.inputs[1] = 1;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED, "operator 0 (TRANSPOSE): perm is not constant");
}

/* PAD-like operators: t0 int8 [1,3,5,4] padded by the constant [4,2] list t1 to t2 of out;
 * PADV2 adds t3, a constant int8 pad value (buffer 2). */
static void tb_pad(tb_spec_t *s, int32_t code, uint8_t options_type, const int32_t *pads,
                   const int32_t *out) {
  static const int32_t in4[4] = {1, 3, 5, 4};
  static const int8_t value[2] = {-3, -3}; /* room for the two-element and int16 refusals */
  tb_layout(s, code, options_type, 4u, in4, 8u, pads, 4u, out);
  s->t[1].rank = 2u;
  s->t[1].dims[0] = 4;
  s->t[1].dims[1] = 2;
  if (code == 60) {
    s->t[3] = (tb_tensor_t){1u, {1}, 9, 2u, "value", 1u, {0.5f}, 1u, {-3}, 0, false, false};
    s->buffer_len[2] = 1u;
    s->buffer_data[2] = value;
    s->n_tensors = 4u;
    s->n_buffers = 3u;
    s->op[0].n_in = 3u;
    s->op[0].in[2] = 3;
  }
}

static void test_pad_refusals(void **state) {
  static const int32_t pads[8] = {0, 0, 1, 2, 2, 2, 0, 0};
  static const int32_t out[4] = {1, 6, 9, 4};
  static const int32_t pads_far[8] = {0, 0, 3, 0, 0, 0, 0, 0};
  static const int32_t out_far[4] = {1, 6, 5, 4};
  tb_spec_t s;
  (void)state;
  tb_pad(&s, 60, 43u, pads, out);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given"); /* prepared */
  s.t[3].zps[0] = 0;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (PADV2): pad value is not quantized as the input");
  tb_pad(&s, 60, 43u, pads, out);
  s.t[3].dims[0] = 2;
  s.buffer_len[2] = 2u;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (PADV2): pad value [2] is not one element");
  tb_pad(&s, 60, 43u, pads, out);
  s.t[3].type = 7;
  s.buffer_len[2] = 2u;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (PADV2): pad value is int16, not int8");
  tb_pad(&s, 60, 43u, pads, out);
  s.t[3].buffer = 0u; /* the pad value is a second model input */
  s.n_inputs = 2u;
  s.inputs[1] = 3;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (PADV2): pad value is not constant");
  tb_pad(&s, 34, 22u, pads, out);
  s.t[0].type = 7;
  s.t[2].type = 7;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (PAD): input is int16 with zero point -3, not 0");
  tb_pad(&s, 100, 77u, pads, out);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given"); /* REFLECT */
  s.op[0].n_fields = 1u;
  s.op[0].fields[0] = (tb_field_t){0u, 1u, 1u};
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given"); /* SYMMETRIC */
  s.op[0].fields[0] = (tb_field_t){0u, 1u, 2u};
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (MIRROR_PAD): options: mode 2 is not REFLECT or SYMMETRIC");
  tb_pad(&s, 100, 77u, pads_far, out_far);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (MIRROR_PAD): paddings [4,2] does not fit the mirror of input "
                       "[1,3,5,4]");
  s.op[0].n_fields = 1u;
  s.op[0].fields[0] = (tb_field_t){0u, 1u, 1u};
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given"); /* SYMMETRIC: 3 */
  tb_pad(&s, 100, 77u, pads, out);
  s.t[0].type = 7;
  s.t[2].type = 7;
  s.t[0].zps[0] = 0;
  s.t[2].zps[0] = 0;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (MIRROR_PAD): input is int16: TFLM's MIRROR_PAD has int8 and "
                       "float32 only");
}

/* MAX_POOL_2D (AVERAGE_POOL_2D with code 1): t0 int16 [1,4,4,2] -> 2x2 stride 2 VALID -> t2
 * int16 [1,2,2,2], zero points 0. */
static void tb_pool_s16(tb_spec_t *s, int32_t code) {
  static const int32_t in4[4] = {1, 4, 4, 2};
  static const int32_t out4[4] = {1, 2, 2, 2};
  tb_layout(s, code, 5u, 4u, in4, 1u, in4, 4u, out4);
  s->t[0].type = 7;
  s->t[2].type = 7;
  s->t[0].zps[0] = 0;
  s->t[2].zps[0] = 0;
  s->op[0].n_in = 1u;
  s->op[0].n_fields = 5u;
  s->op[0].fields[0] = (tb_field_t){0u, 1u, 1u};
  s->op[0].fields[1] = (tb_field_t){1u, 4u, 2u};
  s->op[0].fields[2] = (tb_field_t){2u, 4u, 2u};
  s->op[0].fields[3] = (tb_field_t){3u, 4u, 2u};
  s->op[0].fields[4] = (tb_field_t){4u, 4u, 2u};
}

static void test_pool_s16_refusals(void **state) {
  tb_spec_t s;
  (void)state;
  tb_pool_s16(&s, 17);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given"); /* prepared */
  tb_pool_s16(&s, 1);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given");
  s.t[2].zps[0] = 1;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (AVERAGE_POOL_2D): output is int16 with zero point 1, not 0");
  tb_pool_s16(&s, 17);
  s.t[2].type = 9;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (MAX_POOL_2D): output is int8, not int16");
  tb_pool_s16(&s, 17);
  s.t[2].scales[0] = 0.25f;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (MAX_POOL_2D): input and output scales or zero points differ");
  tb_pool_s16(&s, 17);
  s.t[2].dims[1] = 3;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (MAX_POOL_2D): output [1,3,2,2] is not the [1,2,2,2]");
}

static void test_depth_space_refusals(void **state) {
  static const int32_t in4[4] = {1, 2, 3, 8};
  static const int32_t out4[4] = {1, 4, 6, 2};
  static const int32_t in3[3] = {2, 3, 8};
  tb_spec_t s;
  (void)state;
  tb_layout(&s, 5, 94u, 4u, in4, 1u, in4, 4u, out4);
  s.op[0].n_in = 1u;
  s.op[0].n_fields = 1u;
  s.op[0].fields[0] = (tb_field_t){0u, 4u, 2u};
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given"); /* prepared */
  s.op[0].fields[0] = (tb_field_t){0u, 4u, 0u};
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (DEPTH_TO_SPACE): options: block_size 0 is not >= 1");
  s.op[0].fields[0] = (tb_field_t){0u, 4u, 3u};
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (DEPTH_TO_SPACE): output [1,4,6,2] does not fit the block "
                       "size and input [1,2,3,8]");
  s.op[0].fields[0] = (tb_field_t){0u, 4u, 2u};
  s.t[2].dims[3] = 4;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (DEPTH_TO_SPACE): output [1,4,6,4] does not fit");
  s.t[2].dims[3] = 2;
  s.t[0].type = 7;
  s.t[2].type = 7;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (DEPTH_TO_SPACE): input is int16: TFLM's DEPTH_TO_SPACE has "
                       "int8 and float32 only");
  tb_layout(&s, 5, 94u, 3u, in3, 1u, in4, 3u, out4);
  s.op[0].n_in = 1u;
  s.op[0].n_fields = 1u;
  s.op[0].fields[0] = (tb_field_t){0u, 4u, 2u};
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (DEPTH_TO_SPACE): input [2,3,8] is not 4-D");
  tb_layout(&s, 26, 19u, 4u, out4, 1u, in4, 4u, in4);
  s.op[0].n_in = 1u;
  s.op[0].n_fields = 1u;
  s.op[0].fields[0] = (tb_field_t){0u, 4u, 2u};
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given"); /* prepared */
  s.op[0].fields[0] = (tb_field_t){0u, 4u, 4u};
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (SPACE_TO_DEPTH): output [1,2,3,8] does not fit the block size "
                       "and input [1,4,6,2]");
}

/* SPACE_TO_BATCH_ND (code 38) of t0 int8 [1,4,6,3] to t2 [4,2,3,3] by the block t1 [2,2]
 * and the paddings t3 (a [2,2] list); BATCH_TO_SPACE_ND (37) the other way with crops. */
static void tb_space_batch(tb_spec_t *s, int32_t code, const int32_t *block,
                           const int32_t *amounts) {
  static const int32_t space[4] = {1, 4, 6, 3};
  static const int32_t batch[4] = {4, 2, 3, 3};
  const int32_t *const lists[2] = {block, amounts};
  tb_layout_lists(s, code, (code == 38) ? 25u : 24u, 4u, (code == 38) ? space : batch, 2u, 2u,
                  lists, 4u, (code == 38) ? batch : space);
  s->t[3].rank = 2u;
  s->t[3].dims[0] = 2;
  s->t[3].dims[1] = 2;
  s->buffer_len[2] = 16u;
}

static void test_space_batch_refusals(void **state) {
  static const int32_t block[2] = {2, 2};
  static const int32_t block_zero[2] = {2, 0};
  static const int32_t zeros[4] = {0, 0, 0, 0};
  static const int32_t negative[4] = {0, 0, -1, 1};
  static const int32_t padded[4] = {1, 1, 0, 0};
  tb_spec_t s;
  (void)state;
  tb_space_batch(&s, 38, block, zeros);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given"); /* prepared */
  tb_space_batch(&s, 37, block, zeros);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given");
  tb_space_batch(&s, 38, block_zero, zeros);
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (SPACE_TO_BATCH_ND): options: block_shape entry 0 is not >= 1");
  tb_space_batch(&s, 37, block, negative);
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (BATCH_TO_SPACE_ND): crops has a negative entry");
  tb_space_batch(&s, 38, block, padded);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (SPACE_TO_BATCH_ND): output [4,2,3,3] does not fit the block "
                       "shape and paddings of input [1,4,6,3]");
  tb_space_batch(&s, 37, block, zeros);
  s.t[1].dims[0] = 1;
  s.buffer_len[1] = 4u;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (BATCH_TO_SPACE_ND): block_shape [1] does not fit input");
  tb_space_batch(&s, 37, block, zeros);
  s.t[0].type = 7;
  s.t[2].type = 7;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (BATCH_TO_SPACE_ND): input is int16: TFLM's BATCH_TO_SPACE_ND "
                       "has int8 and float32 only");
}

/* GATHER (code 36) of t0 int8 [6,5] by the constant int32 indices t1 [n] along axis 0 into
 * t2 [n,5]; batch_dims 0. */
static void tb_gather(tb_spec_t *s, uint32_t n, const int32_t *indices, int32_t axis) {
  static const int32_t in2[2] = {6, 5};
  const int32_t out2[2] = {(int32_t)n, 5};
  tb_layout(s, 36, 23u, 2u, in2, n, indices, 2u, out2);
  s->op[0].n_fields = 2u;
  s->op[0].fields[0] = (tb_field_t){0u, 4u, (uint32_t)axis};
  s->op[0].fields[1] = (tb_field_t){1u, 4u, 0u};
}

static void test_gather_refusals(void **state) {
  static const int32_t indices[3] = {4, 0, 5};
  static const int32_t far[3] = {4, 6, 5};
  tb_spec_t s;
  (void)state;
  tb_gather(&s, 3u, indices, 0);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given"); /* prepared */
  tb_gather(&s, 3u, far, 0);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (GATHER): indices [3]: an entry lies outside the axis");
  tb_gather(&s, 3u, indices, 2);
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (GATHER): options: axis 2 outside the tensor's rank");
  tb_gather(&s, 3u, indices, 0);
  s.op[0].fields[1] = (tb_field_t){1u, 4u, 1u};
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (GATHER): options: batch_dims 1 does not fit the axis, input "
                       "and indices");
  tb_gather(&s, 3u, indices, 0);
  s.t[2].dims[1] = 4;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (GATHER): output [3,4] does not fit the indices and input [6,5]");
  tb_gather(&s, 3u, indices, 0);
  s.t[1].type = 9;
  s.buffer_len[1] = 3u;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (GATHER): indices are not int32 or int64");
  tb_gather(&s, 3u, indices, 0);
  s.t[0].type = 7;
  s.t[2].type = 7;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (GATHER): input is int16: TFLM's GATHER has int8 and float32 "
                       "only");
  tb_gather(&s, 3u, far, 0);
  s.t[1].buffer = 0u; /* computed indices: checked by the kernel when it runs */
  s.n_inputs = 2u;
  s.inputs[1] = 1;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given");
}

/* RESIZE_NEAREST_NEIGHBOR (code 97) or RESIZE_BILINEAR (23) of t0 int8 [1,3,4,2] by the
 * constant size t1 to t2 [1,6,8,2]; options align_corners and half_pixel_centers. */
static void tb_resize(tb_spec_t *s, int32_t code, const int32_t *size, uint32_t align,
                      uint32_t half) {
  static const int32_t in4[4] = {1, 3, 4, 2};
  static const int32_t out4[4] = {1, 6, 8, 2};
  const uint8_t first = (code == 23) ? 2u : 0u;
  tb_layout(s, code, (code == 23) ? 15u : 74u, 4u, in4, 2u, size, 4u, out4);
  s->op[0].n_fields = 2u;
  s->op[0].fields[0] = (tb_field_t){first, 1u, align};
  s->op[0].fields[1] = (tb_field_t){(uint8_t)(first + 1u), 1u, half};
}

static void test_resize_refusals(void **state) {
  static const int32_t size[2] = {6, 8};
  static const int32_t size_wrong[2] = {6, 7};
  tb_spec_t s;
  (void)state;
  tb_resize(&s, 97, size, 1u, 1u);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given"); /* prepared */
  tb_resize(&s, 23, size, 0u, 1u);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given");
  tb_resize(&s, 23, size, 1u, 1u);
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (RESIZE_BILINEAR): options: align_corners and "
                       "half_pixel_centers are both true");
  tb_resize(&s, 97, size_wrong, 0u, 0u);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (RESIZE_NEAREST_NEIGHBOR): output [1,6,8,2] does not fit size "
                       "[2]");
  tb_resize(&s, 97, size, 0u, 0u);
  s.t[1].dims[0] = 1;
  s.buffer_len[1] = 4u;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (RESIZE_NEAREST_NEIGHBOR): size [1] is not [2]");
  tb_resize(&s, 97, size, 0u, 0u);
  s.t[2].dims[3] = 3;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (RESIZE_NEAREST_NEIGHBOR): output [1,6,8,3] does not fit input "
                       "[1,3,4,2]");
  tb_resize(&s, 97, size, 0u, 0u);
  s.t[1].buffer = 0u; /* the size is a second model input */
  s.n_inputs = 2u;
  s.inputs[1] = 1;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (RESIZE_NEAREST_NEIGHBOR): size is not constant");
  tb_resize(&s, 23, size, 0u, 0u);
  s.t[0].type = 7;
  s.t[2].type = 7;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (RESIZE_BILINEAR): input is int16: TFLM's RESIZE_BILINEAR has "
                       "int8 and float32 only");
  tb_resize(&s, 23, size, 0u, 0u);
  s.t[0].type = 0;
  s.t[2].type = 0;
  s.t[0].n_scales = 0u;
  s.t[0].n_zps = 0u;
  s.t[2].n_scales = 0u;
  s.t[2].n_zps = 0u;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (RESIZE_BILINEAR): input is float32: utvm's RESIZE_BILINEAR "
                       "has int8 only");
  tb_resize(&s, 97, size, 0u, 0u);
  s.t[0].type = 7;
  s.t[2].type = 7;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_ARENA, "arena: 0 bytes given"); /* int16 */
}

/* BROADCAST_TO (code 130) of t0 int16 [3,1] (zero point 0) by the constant shape t1 [3] to t2
 * [2,3,4]. */
static void tb_broadcast_to(tb_spec_t *s, const int32_t *shape) {
  static const int32_t in2[2] = {3, 1};
  static const int32_t out3[3] = {2, 3, 4};
  tb_layout(s, 130, 104u, 2u, in2, 3u, shape, 3u, out3);
  s->t[0].type = 7;
  s->t[2].type = 7;
  s->t[0].zps[0] = 0;
  s->t[2].zps[0] = 0;
}

/* BROADCAST_TO through the runner against a loop: output (a, b, c) is input (b, 0). */
static void test_broadcast_to_runs(void **state) {
  static const int32_t shape[3] = {2, 3, 4};
  static uint8_t workspace[16384];
  static uint64_t arena[256];
  tb_spec_t s;
  utvm_model_t m;
  utvm_runner_t r;
  utvm_runner_tensor_t in;
  utvm_runner_tensor_t out;
  int16_t values[3] = {-300, 7, 32767};
  (void)state;
  tb_broadcast_to(&s, shape);
  assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
  assert_int_equal(utvm_runner_init(&r, &m, workspace, sizeof(workspace), arena, sizeof(arena)),
                   UTVM_OK);
  assert_int_equal(utvm_runner_input(&r, 0u, &in), UTVM_OK);
  assert_int_equal(in.bytes, sizeof(values));
  memcpy(in.data, values, sizeof(values));
  assert_int_equal(utvm_runner_invoke(&r), UTVM_OK);
  assert_int_equal(utvm_runner_output(&r, 0u, &out), UTVM_OK);
  assert_int_equal(out.bytes, 24u * 2u);
  for (int32_t a = 0; a < 2; ++a) {
    for (int32_t b = 0; b < 3; ++b) {
      for (int32_t c = 0; c < 4; ++c) {
        int16_t got = 0;
        memcpy(&got, (const uint8_t *)out.data + (size_t)((a * 3 + b) * 4 + c) * 2u, 2u);
        assert_int_equal(got, values[b]);
      }
    }
  }
}

static void test_broadcast_to_refusals(void **state) {
  static const int32_t shape_wrong[3] = {2, 3, 5};
  static const int32_t shape[3] = {2, 3, 4};
  static const int32_t in_wide[2] = {3, 2};
  tb_spec_t s;
  (void)state;
  tb_broadcast_to(&s, shape_wrong);
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (BROADCAST_TO): output [2,3,4] does not fit shape [3]");
  tb_broadcast_to(&s, shape);
  s.t[0].dims[1] = in_wide[1];
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (BROADCAST_TO): output [2,3,4] does not fit a broadcast of "
                       "input [3,2]");
  tb_broadcast_to(&s, shape);
  s.t[2].rank = 6u;
  s.t[2].dims[3] = 1;
  s.t[2].dims[4] = 1;
  s.t[2].dims[5] = 1;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (BROADCAST_TO): output [2,3,4,1,1,1] is not 1-D to 5-D (TFLM's "
                       "limit)");
  tb_broadcast_to(&s, shape);
  s.t[2].zps[0] = 1;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (BROADCAST_TO): input and output scales or zero points differ");
}

static void test_built_errors(void **state) {
  tb_spec_t s;
  (void)state;
  tb_default(&s);
  s.version = 2u;
  expect_error(&s, UTVM_ERR_MODEL_NOT_TFLITE, "schema version 2, expected 3");
  tb_default(&s);
  s.n_subgraphs = 2u;
  expect_error(&s, UTVM_ERR_MODEL_SUBGRAPHS, "model has 2 subgraphs; exactly 1 is supported");
  tb_default(&s);
  s.t[1].buffer = 99u;
  expect_error(&s, UTVM_ERR_MODEL_INDEX,
               "tensor 1: buffer index 99 out of range (model has 2 buffers)");
  tb_default(&s);
  s.builtin[0] = 15;
  expect_error(&s, UTVM_ERR_MODEL_UNSUPPORTED_OPERATOR,
               "operator 0 (LSH_PROJECTION): unsupported operator");
  tb_default(&s);
  s.builtin[0] = 300;
  expect_error(&s, UTVM_ERR_MODEL_UNSUPPORTED_OPERATOR,
               "operator 0 (builtin 300): unsupported operator");
  tb_default(&s);
  s.builtin[0] = 32;
  s.deprecated[0] = 32;
  s.custom[0] = "MyOp";
  expect_error(&s, UTVM_ERR_MODEL_UNSUPPORTED_OPERATOR,
               "operator 0 (CUSTOM): unsupported custom operator 'MyOp'");
  tb_default(&s);
  s.op[0].fields[0].value = 4u;
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (FULLY_CONNECTED): options: unsupported fused activation TANH");
  tb_default(&s);
  s.op[0].n_fields = 2u;
  s.op[0].fields[1] = (tb_field_t){1u, 1u, 1u};
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION, "weights format 1 unsupported");
  tb_default(&s);
  s.op[0].options_type = 1u; /* Conv2DOptions on a FULLY_CONNECTED */
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION, "options of union type 1 unsupported");
  tb_default(&s);
  s.op[0].in[1] = 7;
  expect_error(&s, UTVM_ERR_MODEL_INDEX,
               "operator 0 (FULLY_CONNECTED): inputs: tensor index 7 out of range (model has 3 "
               "tensors)");
  tb_default(&s);
  s.op[0].in[0] = -2;
  expect_error(&s, UTVM_ERR_MODEL_INDEX, "tensor index -2 out of range");
  tb_default(&s);
  s.op[0].in[0] = -1;
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPERANDS,
                       "operator 0 (FULLY_CONNECTED): inputs: a required input is absent (-1)");
  tb_default(&s);
  s.op[0].n_in = 1u;
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPERANDS, "inputs: 1 tensors, expected 2 to 3");
  tb_default(&s);
  s.op[0].opcode_index = 4u;
  expect_error(&s, UTVM_ERR_MODEL_INDEX, "opcode index 4 out of range (model has 1 operator codes)");
  tb_default(&s);
  s.t[2].sparse = true;
  expect_error(&s, UTVM_ERR_MODEL_UNSUPPORTED_TYPE, "tensor 2: sparse tensors unsupported");
  tb_default(&s);
  s.t[2].variable = true; /* a variable tensor may not be an operator's output */
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_GRAPH,
                       "operator 0 (FULLY_CONNECTED): tensor 2 is a variable tensor, written as "
                       "an operator's output");
  tb_default(&s);
  s.t[0].type = 5;
  expect_error(&s, UTVM_ERR_MODEL_UNSUPPORTED_TYPE, "tensor 0: unsupported type STRING");
  tb_default(&s);
  s.buffer_len[1] = 6u;
  expect_error(&s, UTVM_ERR_MODEL_BAD_DATA, "tensor 1: constant data of 6 bytes, its shape needs 8");
  tb_default(&s);
  s.t[1].n_scales = 3u;
  s.t[1].scales[2] = 1.0f;
  expect_error(&s, UTVM_ERR_MODEL_BAD_QUANTIZATION, "scale count differs");
  tb_default(&s);
  s.t[0].zps[0] = 200;
  expect_error(&s, UTVM_ERR_MODEL_BAD_QUANTIZATION, "zero point 0 outside the range");
  tb_default(&s);
  s.t[0].scales[0] = 0.0f;
  expect_error(&s, UTVM_ERR_MODEL_BAD_QUANTIZATION, "scale 0 is not a finite number > 0");
  tb_default(&s);
  s.t[0].rank = 7u;
  expect_error(&s, UTVM_ERR_MODEL_BAD_SHAPE, "rank 7 above the limit");
  tb_default(&s);
  s.t[0].dims[1] = -4;
  expect_error(&s, UTVM_ERR_MODEL_BAD_SHAPE, "negative dimension -4");
  tb_default(&s);
  s.op[0].out[0] = 1;
  expect_error(&s, UTVM_ERR_MODEL_BAD_GRAPH, "output tensor 1 is a constant");
  tb_default(&s);
  s.inputs[0] = 1;
  expect_error(&s, UTVM_ERR_MODEL_BAD_GRAPH, "graph input 0: tensor 1 is a constant");
  tb_default(&s);
  s.outputs[0] = 3;
  expect_error(&s, UTVM_ERR_MODEL_INDEX, "graph output 0: tensor index 3 out of range");
  /* CONV_2D with a zero stride, SOFTMAX with beta 0 */
  tb_default(&s);
  s.builtin[0] = 3;
  s.deprecated[0] = 3;
  s.t[0] = (tb_tensor_t){4u, {1, 2, 2, 1}, 9, 0u, "in", 1u, {0.5f}, 1u, {0}, 0, false, false};
  s.t[1] = (tb_tensor_t){4u, {2, 1, 1, 1}, 9, 1u, "w", 1u, {0.5f}, 1u, {0}, 0, false, false};
  s.buffer_len[1] = 2u;
  s.t[2] = (tb_tensor_t){4u, {1, 2, 2, 2}, 9, 0u, "out", 1u, {0.5f}, 1u, {0}, 0, false, false};
  s.op[0].options_type = 1u;
  s.op[0].n_fields = 2u;
  s.op[0].fields[0] = (tb_field_t){1u, 4u, 1u};
  s.op[0].fields[1] = (tb_field_t){2u, 4u, 1u};
  {
    utvm_model_t m;
    utvm_model_operator_t op;
    assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
    assert_int_equal(utvm_model_operator(&m, 0u, &op), UTVM_OK);
    uint64_t dilation = 0u;
    assert_int_equal(utvm_model_option_bits(&m, 0u, &op, 4u, 4u, 1u, &dilation, NULL), UTVM_OK);
    assert_int_equal(dilation, 1u); /* schema default */
  }
  s.op[0].fields[1].value = 0u;
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (CONV_2D): options: stride_h 0 is not >= 1");
  tb_default(&s);
  s.builtin[0] = 25;
  s.deprecated[0] = 25;
  s.op[0] = (tb_op_t){0u, 1u, {0}, 1u, {2}, 9u, 1u, {{0u, 4u, 0u}}};
  s.t[2].dims[1] = 4;
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION, "beta is not a finite number > 0");
}

static void test_built_truncated_vector(void **state) {
  tb_spec_t s;
  tb_t b;
  utvm_model_t m;
  char want[128];
  (void)state;
  tb_default(&s);
  assert_int_equal(open_spec(&s, &m, &b), UTVM_OK);
  /* tensor 0's shape claims 5000 dimensions */
  built[b.shape_pos] = 0x88;
  built[b.shape_pos + 1u] = 0x13;
  assert_int_equal(utvm_model_open(&m, built, b.n), UTVM_ERR_MODEL_TRUNCATED);
  (void)snprintf(want, sizeof(want),
                 "tensor 0: shape: file truncated: vector at offset 0x%x of length 20000 exceeds "
                 "file size %u",
                 (unsigned)b.shape_pos, (unsigned)b.n);
  assert_string_equal(m.error, want);
  /* too short, not TFL3 */
  assert_int_equal(utvm_model_open(&m, built, 5u), UTVM_ERR_MODEL_TRUNCATED);
  assert_string_equal(m.error, "file truncated: 5 bytes, a TFLite file has at least 8");
  built[4] = 'X';
  assert_int_equal(utvm_model_open(&m, built, b.n), UTVM_ERR_MODEL_NOT_TFLITE);
  assert_int_equal(utvm_model_open(&m, NULL, 10u), UTVM_ERR_MODEL_ARGUMENT);
  assert_int_equal(utvm_model_open(NULL, built, 10u), UTVM_ERR_MODEL_ARGUMENT);
  /* a failed open leaves the accessors refusing */
  {
    utvm_model_tensor_t t;
    uint32_t index;
    assert_int_equal(utvm_model_tensor(&m, 0u, &t), UTVM_ERR_MODEL_ARGUMENT);
    assert_int_equal(utvm_model_input(&m, 0u, &index), UTVM_ERR_MODEL_ARGUMENT);
  }
}

/* The data-flow checks of utvm_model_plan. */
static void test_built_data_flow(void **state) {
  tb_spec_t s;
  utvm_model_t m;
  utvm_plan_t plan;
  utvm_err_t err;
  (void)state;
  /* the graph input is not the tensor the operator reads: t0 is read but never written */
  tb_default(&s);
  s.t[3] = s.t[0];
  s.n_tensors = 4u;
  s.inputs[0] = 3;
  assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
  assert_null(model_plan_check(&m, 0u, 0u, &plan, &err));
  assert_int_equal(err, UTVM_ERR_MODEL_BAD_GRAPH);
  assert_string_equal(m.error,
                      "operator 0 (FULLY_CONNECTED): tensor 0 is read before any operator writes it");
  /* the graph output is never computed */
  tb_default(&s);
  s.t[3] = s.t[2];
  s.n_tensors = 4u;
  s.outputs[0] = 3;
  assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
  assert_null(model_plan_check(&m, 0u, 0u, &plan, &err));
  assert_int_equal(err, UTVM_ERR_MODEL_BAD_GRAPH);
  assert_string_equal(m.error, "graph output 0: tensor 3 is never computed");
  /* an operator writes the graph input */
  tb_default(&s);
  s.op[0].out[0] = 0;
  assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
  assert_null(model_plan_check(&m, 0u, 0u, &plan, &err));
  assert_int_equal(err, UTVM_ERR_MODEL_BAD_GRAPH);
  /* two operators write the same tensor */
  tb_default(&s);
  s.n_ops = 2u;
  s.op[1] = s.op[0];
  assert_int_equal(open_spec(&s, &m, NULL), UTVM_OK);
  assert_null(model_plan_check(&m, 0u, 0u, &plan, &err));
  assert_int_equal(err, UTVM_ERR_MODEL_BAD_GRAPH);
  assert_string_equal(m.error, "operator 1 (FULLY_CONNECTED): tensor 2 is written a second time");
}

/* ---- hostile bytes ---- */

static void truncations(const char *file, size_t step_hint) {
  size_t size;
  uint8_t *data = load(file, &size);
  size_t len;
  size_t step = (step_hint != 0u) ? step_hint : ((size / 256u) + 1u);
  uint32_t accepted = 0u;
  for (len = 0u; len < size; len += (len < 64u || len + 64u >= size) ? 1u : step) {
    uint8_t *copy = (uint8_t *)malloc(len == 0u ? 1u : len);
    assert_non_null(copy);
    memcpy(copy, data, len);
    if (open_and_exercise(copy, len, (uint32_t)len) == UTVM_OK) {
      accepted++;
    }
    free(copy);
  }
  /* the root table sits at the end of a file written back to front: no truncation is valid */
  assert_int_equal(accepted, 0);
  free(data);
}

static void test_truncated_hello_world_every_length(void **state) {
  (void)state;
  truncations("hello_world_int8.tflite", 1u);
}

static void test_truncated_models(void **state) {
  size_t i;
  (void)state;
  for (i = 0u; i < sizeof(real_models) / sizeof(real_models[0]); i++) {
    truncations(real_models[i].file, 0u);
  }
  for (i = 0u; i < MODEL_CASE_COUNT; i++) {
    char file[256];
    (void)snprintf(file, sizeof(file), "ops/%s", model_cases[i].model);
    truncations(file, 7u);
  }
}

static void test_corrupted_hello_world_every_byte(void **state) {
  static const uint8_t flips[] = {0x01u, 0x02u, 0x10u, 0x80u, 0xFFu};
  size_t size;
  uint8_t *data = load("hello_world_int8.tflite", &size);
  size_t pos;
  size_t f;
  uint32_t accepted = 0u;
  uint32_t rejected = 0u;
  (void)state;
  for (pos = 0u; pos < size; pos++) {
    for (f = 0u; f < sizeof(flips); f++) {
      data[pos] ^= flips[f];
      if (open_and_exercise(data, size, (uint32_t)pos) == UTVM_OK) {
        accepted++;
      } else {
        rejected++;
      }
      data[pos] ^= flips[f];
    }
  }
  print_message("hello_world corruptions: %u accepted (still valid), %u rejected\n", accepted,
                rejected);
  assert_true(rejected > 0u);
  free(data);
}

/* The element-wise and normalisation operators of round 3 refuse what TFLM's kernels do
 * not take. */
static void test_elementwise3_refusals(void **state) {
  tb_spec_t s;
  (void)state;
  elementwise_spec(&s, 117, false); /* HARD_SWISH on int16 */
  s.t[0].type = 7;
  s.t[0].zps[0] = 0;
  s.t[2].type = 7;
  s.t[2].zps[0] = 0;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (HARD_SWISH): input is int16: TFLM's reference kernel has "
                       "int8 only");
  elementwise_spec(&s, 117, false); /* HARD_SWISH: output multiplier > 1 */
  s.t[2].scales[0] = 1e-5f;
  expect_prepare_error(&s, UTVM_ERR_KERNEL_UNSUPPORTED,
                       "operator 0 (HARD_SWISH): input scale or output scale");
  elementwise_spec(&s, 54, true); /* PRELU with an int16 alpha */
  s.t[1].type = 7;
  s.buffer_len[1] = 8u;
  s.t[1].zps[0] = 0;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (PRELU): alpha is int16, not int8");
  elementwise_spec(&s, 54, true); /* PRELU: alpha [1,3] against input [1,4] */
  s.t[1].dims[1] = 3;
  s.buffer_len[1] = 3u;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS,
                       "operator 0 (PRELU): inputs [1,4] and [1,3] do not broadcast to output "
                       "[1,4]");
  elementwise_spec(&s, 54, true); /* PRELU: int16 input, int8 output */
  s.t[0].type = 7;
  s.t[0].zps[0] = 0;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (PRELU): output is int8, not int16");
  elementwise_spec(&s, 76, false); /* RSQRT on int16 */
  s.t[0].type = 7;
  s.t[0].zps[0] = 0;
  s.t[2].type = 7;
  s.t[2].zps[0] = 0;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (RSQRT): input is int16: TFLM's reference kernel has int8 "
                       "only");
  elementwise_spec(&s, 76, false); /* RSQRT: output scale 1e4, the rescale shifts past 31 */
  s.t[2].scales[0] = 1e4f;
  expect_prepare_error(&s, UTVM_ERR_KERNEL_UNSUPPORTED,
                       "operator 0 (RSQRT): input scale or output scale");
  elementwise_spec(&s, 42, true); /* DIV on int16 */
  s.t[0].type = 7;
  s.t[0].zps[0] = 0;
  s.t[1].type = 7;
  s.buffer_len[1] = 8u;
  s.t[1].zps[0] = 0;
  s.t[2].type = 7;
  s.t[2].zps[0] = 0;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (DIV): input is int16: TFLM's reference kernel has int8 only");
  elementwise_spec(&s, 42, true); /* DIV: input1 scale 1e6, the multiplier's shift above 22 */
  s.t[0].scales[0] = 1e6f;
  expect_prepare_error(&s, UTVM_ERR_KERNEL_UNSUPPORTED, "operator 0 (DIV): quantization");
  elementwise_spec(&s, 42, true); /* DIV: an unknown fused activation */
  s.op[0].options_type = 29u;
  s.op[0].n_fields = 1u;
  s.op[0].fields[0] = (tb_field_t){0u, 1u, 5u};
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (DIV): options: unsupported fused activation SIGN_BIT");
  elementwise_spec(&s, 50, false); /* LOG_SOFTMAX: output not 16/256 and 127 */
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (LOG_SOFTMAX): output scale or zero point is not TFLM's "
                       "16/256 and 127");
  elementwise_spec(&s, 50, false); /* LOG_SOFTMAX on int16 */
  s.t[0].type = 7;
  s.t[0].zps[0] = 0;
  s.t[2].type = 7;
  s.t[2].zps[0] = 0;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (LOG_SOFTMAX): input is int16: TFLM's reference kernel has "
                       "int8 only");
  elementwise_spec(&s, 11, false); /* L2_NORMALIZATION with RELU */
  s.op[0].options_type = 12u;
  s.op[0].n_fields = 1u;
  s.op[0].fields[0] = (tb_field_t){0u, 1u, 1u};
  expect_prepare_error(&s, UTVM_ERR_MODEL_BAD_OPTION,
                       "operator 0 (L2_NORMALIZATION): options: fused activation is not NONE");
  elementwise_spec(&s, 11, false); /* L2_NORMALIZATION of a 5-D input */
  s.t[0].rank = 5u;
  s.t[0].dims[2] = 1;
  s.t[0].dims[3] = 1;
  s.t[0].dims[4] = 1;
  s.t[2].rank = 5u;
  s.t[2].dims[2] = 1;
  s.t[2].dims[3] = 1;
  s.t[2].dims[4] = 1;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_OPERANDS, "operator 0 (L2_NORMALIZATION): output");
  elementwise_spec(&s, 111, false); /* ELU on int16 */
  s.t[0].type = 7;
  s.t[0].zps[0] = 0;
  s.t[2].type = 7;
  s.t[2].zps[0] = 0;
  expect_prepare_error(&s, UTVM_ERR_RUNNER_UNSUPPORTED,
                       "operator 0 (ELU): input is int16: TFLM's reference kernel has int8 only");
  elementwise_spec(&s, 111, false); /* ELU: output scale 1e-10, entries beyond int32 */
  s.t[2].scales[0] = 1e-10f;
  expect_prepare_error(&s, UTVM_ERR_KERNEL_UNSUPPORTED,
                       "operator 0 (ELU): input scale or output scale");
  elementwise_spec(&s, 47, false); /* EXP: TFLM has float32 only */
  expect_error(&s, UTVM_ERR_MODEL_UNSUPPORTED_OPERATOR, "operator 0 (EXP): unsupported operator");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_real_models),
      cmocka_unit_test(test_person_detect_bias_dimension),
      cmocka_unit_test(test_operator_cases),
      cmocka_unit_test(test_built_valid),
      cmocka_unit_test(test_split_errors),
      cmocka_unit_test(test_svdf_errors),
      cmocka_unit_test(test_lstm_errors),
      cmocka_unit_test(test_reduce_errors),
      cmocka_unit_test(test_batch_matmul_errors),
      cmocka_unit_test(test_transpose_conv_errors),
      cmocka_unit_test(test_s16_weighted_errors),
      cmocka_unit_test(test_elementwise_refusals),
      cmocka_unit_test(test_elem2_refusals),
      cmocka_unit_test(test_built_errors),
      cmocka_unit_test(test_layout_refusals),
      cmocka_unit_test(test_pack_refusals),
      cmocka_unit_test(test_pad_refusals),
      cmocka_unit_test(test_pool_s16_refusals),
      cmocka_unit_test(test_depth_space_refusals),
      cmocka_unit_test(test_space_batch_refusals),
      cmocka_unit_test(test_gather_refusals),
      cmocka_unit_test(test_resize_refusals),
      cmocka_unit_test(test_broadcast_to_runs),
      cmocka_unit_test(test_broadcast_to_refusals),
      cmocka_unit_test(test_expand_dims_refusals),
      cmocka_unit_test(test_slice_refusals),
      cmocka_unit_test(test_built_truncated_vector),
      cmocka_unit_test(test_built_data_flow),
      cmocka_unit_test(test_truncated_hello_world_every_length),
      cmocka_unit_test(test_truncated_models),
      cmocka_unit_test(test_corrupted_hello_world_every_byte),
      cmocka_unit_test(test_elementwise3_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

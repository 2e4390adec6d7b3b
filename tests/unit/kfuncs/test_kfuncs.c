/*
 * The op-params format and the kernel functions against hostile input: a real operator's
 * params (chain_dscnn's, exported by the runner) round-trip; every truncation and every
 * single-word corruption decodes to an error text or to valid params (never a crash, meant for
 * host-asan); and calls with wrong argument counts, type codes, dtypes, sizes, misaligned or
 * other-kind op params return -1 with a text naming the function and the problem.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "crt_test_support.h"
#include "runner_test_util.h"
#include "test_syslib.h"
#include "utvm/kfuncs.h"

/* Operator 0 of chain_dscnn (a CONV_2D): its op params words and operand sizes. */
typedef struct {
  int32_t words[512];
  uint32_t n;
  utvm_op_params_t p;
  rt_instance_t in;
  uint8_t *model;
  uint8_t *arena; /* the runner's again, planned without convolutions in place */
} fixture_t;

static fixture_t fx;

static int setup(void **state) {
  size_t size = 0u;
  const char *stage = "";
  const char *why = "";
  utvm_op_operands_t operands;
  (void)state;
  /* the plain kernel function's op params: with the graph input apart (io_separate) the first
   * layer cannot run over it (with it shared, that layer is CONV2D_S8_INPLACE) */
  const utvm_runner_options_t plain = {UTVM_KERNELS_NATIVE, true, &utvm_op_resolver_all,
                                       UTVM_RUNNER_PATCHES_OFF};
  fx.model = rt_load("ops/chain_dscnn.tflite", &size);
  fx.arena = (uint8_t *)malloc(1u << 20);
  if ((fx.model == NULL) || (fx.arena == NULL) ||
      (rt_setup(&fx.in, fx.model, size, 1u << 20, &stage) != UTVM_OK) ||
      (utvm_runner_init_with(&fx.in.runner, &fx.in.model, fx.in.workspace,
                             utvm_runner_workspace_size(&fx.in.model), fx.arena, 1u << 20,
                             &plain) != UTVM_OK) ||
      (utvm_runner_op_params(&fx.in.runner, 0u, 0u, &fx.p, &operands) != UTVM_OK) ||
      (fx.p.kind != UTVM_OP_CONV2D_S8) ||
      (utvm_op_params_encode(&fx.p, fx.words, 512u, &fx.n, &why) != UTVM_OK)) {
    return -1;
  }
  return (test_runtime_start(TVMSystemLibEntryPoint()) != NULL) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  test_runtime_stop();
  rt_teardown(&fx.in);
  free(fx.model);
  free(fx.arena);
  return 0;
}

static void test_round_trip(void **state) {
  utvm_op_params_t d;
  int32_t again[512];
  uint32_t n = 0u;
  const char *why = NULL;
  (void)state;
  assert_int_equal(fx.words[0], UTVM_OP_PARAMS_MAGIC);
  assert_int_equal(fx.words[2], (int32_t)fx.n);
  assert_int_equal(utvm_op_params_decode(fx.words, fx.n, &d, &why), UTVM_OK);
  assert_int_equal(d.kind, UTVM_OP_CONV2D_S8);
  assert_int_equal(d.quant.count, fx.p.quant.count);
  assert_memory_equal(d.quant.shift, fx.p.quant.shift, (size_t)d.quant.count);
  assert_memory_equal(&d.p.conv, &fx.p.p.conv, sizeof(d.p.conv));
  assert_int_equal(utvm_op_params_encode(&d, again, 512u, &n, &why), UTVM_OK);
  assert_int_equal(n, fx.n);
  assert_memory_equal(again, fx.words, (size_t)n * 4u);
  /* Too small a buffer. */
  assert_int_equal(utvm_op_params_encode(&d, again, n - 1u, &n, &why), UTVM_ERR_KFUNC_CAPACITY);
}

static void test_truncations_and_corruptions(void **state) {
  utvm_op_params_t d;
  const char *why = NULL;
  (void)state;
  for (uint32_t len = 0u; len < fx.n; len++) {
    int32_t *w = (int32_t *)malloc(((size_t)len + 1u) * 4u);
    assert_non_null(w);
    (void)memcpy(w, fx.words, (size_t)len * 4u);
    assert_int_equal(utvm_op_params_decode(w, len, &d, &why), UTVM_ERR_KFUNC_PARAMS);
    assert_true(strlen(why) > 0u);
    free(w);
  }
  const int32_t values[] = {0, -1, 1, 2, 7, 8, 31, 32, -32, INT32_MAX, INT32_MIN, 0x7FFF};
  int32_t *w = (int32_t *)malloc((size_t)fx.n * 4u);
  assert_non_null(w);
  int refused = 0;
  for (uint32_t i = 0u; i < fx.n; i++) {
    for (size_t v = 0u; v < sizeof(values) / sizeof(values[0]); v++) {
      (void)memcpy(w, fx.words, (size_t)fx.n * 4u);
      w[i] = values[v];
      if (utvm_op_params_decode(w, fx.n, &d, &why) != UTVM_OK) {
        assert_true(strlen(why) > 0u);
        refused++;
      }
    }
  }
  free(w);
  assert_true(refused > 0);
  /* One encoding per parameter set: a non-zero byte after the last shift (in the last shift
   * word) is refused (found by fuzz_op_params: a one-channel CONV_2D whose re-encoding
   * differed); with that byte 0 the same words decode and re-encode unchanged. */
  static const uint32_t padded[31] = {
      0x504B0001u, 0x00000001u, 0x0000001Fu, 0x00000002u, 0x01001F00u, 0x00000001u, 0x0000004Bu,
      0x00000C50u, 0x0000014Bu, 0x00000001u, 0x01001F00u, 0x00000001u, 0x0000004Bu, 0x00000001u,
      0x01001F00u, 0x00000001u, 0x0000004Bu, 0x00000C50u, 0x0000014Bu, 0x00000001u, 0x01001F00u,
      0x00000001u, 0x0000004Bu, 0x01000C50u, 0xFF000001u, 0x000026FFu, 0x00000000u, 0x00000000u,
      0x00000001u, 0x01001F00u, 0x00001F00u};
  int32_t one_channel[31];
  int32_t again[512];
  uint32_t n_again = 0u;
  (void)memcpy(one_channel, padded, sizeof(one_channel));
  assert_int_equal(utvm_op_params_decode(one_channel, 31u, &d, &why), UTVM_ERR_KFUNC_PARAMS);
  one_channel[30] = 0;
  assert_int_equal(utvm_op_params_decode(one_channel, 31u, &d, &why), UTVM_OK);
  assert_int_equal(utvm_op_params_encode(&d, again, 31u, &n_again, &why), UTVM_OK);
  assert_memory_equal(again, one_channel, sizeof(one_channel));
  /* Version 1 (above) reads TFLite's filter layout and cannot carry another. */
  assert_int_equal(d.version, 1u);
  assert_int_equal(d.p.conv.filter_layout, (int32_t)UTVM_FILTER_PLAIN);
  d.p.conv.filter_layout = (int32_t)UTVM_FILTER_DSP_S16;
  assert_int_equal(utvm_op_params_encode(&d, again, 31u, &n_again, &why), UTVM_ERR_KFUNC_PARAMS);
  /* Versions 2 and 3: the layout word after act_max; a DSP_S16 filter is int16 values, the
   * channels in pairs, an MVE_TERMS one int8 bytes with the terms; an unknown layout is refused. */
  int32_t laid[512];
  (void)memcpy(laid, fx.words, (size_t)fx.n * 4u);
  laid[5 + 12 + 10] = (int32_t)UTVM_FILTER_DSP_S16;
  assert_int_equal(utvm_op_params_decode(laid, fx.n, &d, &why), UTVM_OK);
  assert_int_equal(d.version, 3u);
  assert_int_equal(d.operands[1].type, UTVM_OP_TYPE_INT16);
  assert_int_equal(d.operands[1].bytes,
                   (uint32_t)utvm_conv2d_s8_filter_size(UTVM_FILTER_DSP_S16, &d.dims[1]));
  laid[5 + 12 + 10] = (int32_t)UTVM_FILTER_MVE_TERMS;
  assert_int_equal(utvm_op_params_decode(laid, fx.n, &d, &why), UTVM_OK);
  assert_int_equal(d.operands[1].type, UTVM_OP_TYPE_INT8);
  assert_int_equal(d.operands[1].bytes,
                   (uint32_t)utvm_conv2d_s8_filter_size(UTVM_FILTER_MVE_TERMS, &d.dims[1]));
  /* the same body as version 2 (a CONV_2D's did not change) decodes and re-encodes as such */
  laid[0] = UTVM_OP_PARAMS_MAGIC_V2;
  assert_int_equal(utvm_op_params_decode(laid, fx.n, &d, &why), UTVM_OK);
  assert_int_equal(d.version, 2u);
  assert_int_equal(utvm_op_params_encode(&d, again, 512u, &n_again, &why), UTVM_OK);
  assert_int_equal(n_again, fx.n);
  assert_memory_equal(again, laid, (size_t)fx.n * 4u);
  laid[5 + 12 + 10] = 7;
  assert_int_equal(utvm_op_params_decode(laid, fx.n, &d, &why), UTVM_ERR_KFUNC_PARAMS);
  assert_string_equal(why, "unknown filter layout");
  /* Specific texts. */
  int32_t bad[512];
  (void)memcpy(bad, fx.words, (size_t)fx.n * 4u);
  bad[0] = 0x504B0004;
  assert_int_equal(utvm_op_params_decode(bad, fx.n, &d, &why), UTVM_ERR_KFUNC_PARAMS);
  assert_string_equal(why, "truncated or bad header");
  (void)memcpy(bad, fx.words, (size_t)fx.n * 4u);
  bad[2] = (int32_t)fx.n + 1;
  assert_int_equal(utvm_op_params_decode(bad, fx.n, &d, &why), UTVM_ERR_KFUNC_PARAMS);
  assert_string_equal(why, "word count differs from the tensor's");
  (void)memcpy(bad, fx.words, (size_t)fx.n * 4u);
  bad[5] = 0; /* input n */
  assert_int_equal(utvm_op_params_decode(bad, fx.n, &d, &why), UTVM_ERR_KFUNC_PARAMS);
  assert_string_equal(why, "a dimension is < 1 or a tensor too large");
}

/* FULLY_CONNECTED (chain_dscnn's last operator): version 3 carries utvm_fully_connected_params_t's
 * weights_layout after act_max (MVE_TERMS: the weights int8 bytes with the terms, int8
 * activations only); versions 1 and 2 have no such word, decode as TFLite's layout, re-encode as
 * they were and cannot carry another. */
static void test_fully_connected_layout(void **state) {
  utvm_op_params_t fc;
  utvm_op_params_t d;
  utvm_op_operands_t operands;
  int32_t words[512];
  int32_t again[512];
  uint32_t n = 0u;
  uint32_t n_again = 0u;
  const char *why = "";
  bool found = false;
  (void)state;
  for (uint32_t k = 0u; (k < fx.in.runner.n_operators) && !found; k++) {
    found = (utvm_runner_op_params(&fx.in.runner, k, 0u, &fc, &operands) == UTVM_OK) &&
            (fc.kind == UTVM_OP_FULLY_CONNECTED_S8);
  }
  assert_true(found);
  assert_int_equal(fc.p.fc.weights_layout, (int32_t)UTVM_FILTER_PLAIN);
  assert_int_equal(utvm_op_params_encode(&fc, words, 512u, &n, &why), UTVM_OK);
  /* header, batches, depth, units, then the six parameter words */
  const uint32_t at = UTVM_OP_PARAMS_HEADER_WORDS + 3u + 5u;
  assert_int_equal(words[at], (int32_t)UTVM_FILTER_PLAIN);
  words[at] = (int32_t)UTVM_FILTER_MVE_TERMS;
  assert_int_equal(utvm_op_params_decode(words, n, &d, &why), UTVM_OK);
  assert_int_equal(d.version, 3u);
  assert_int_equal(d.p.fc.weights_layout, (int32_t)UTVM_FILTER_MVE_TERMS);
  const utvm_dims_t weights = {d.units, 1, 1, d.depth};
  assert_int_equal(d.operands[1].type, UTVM_OP_TYPE_INT8);
  assert_int_equal(d.operands[1].bytes,
                   (uint32_t)utvm_conv2d_s8_filter_size(UTVM_FILTER_MVE_TERMS, &weights));
  assert_int_equal(utvm_op_params_encode(&d, again, 512u, &n_again, &why), UTVM_OK);
  assert_int_equal(n_again, n);
  assert_memory_equal(again, words, (size_t)n * 4u);
  /* DSP_S16: int16 values, the rows in pairs */
  words[at] = (int32_t)UTVM_FILTER_DSP_S16;
  assert_int_equal(utvm_op_params_decode(words, n, &d, &why), UTVM_OK);
  assert_int_equal(d.operands[1].type, UTVM_OP_TYPE_INT16);
  assert_int_equal(d.operands[1].bytes,
                   (uint32_t)utvm_conv2d_s8_filter_size(UTVM_FILTER_DSP_S16, &weights));
  words[at] = (int32_t)UTVM_FILTER_MVE_TERMS + 1;
  assert_int_equal(utvm_op_params_decode(words, n, &d, &why), UTVM_ERR_KFUNC_PARAMS);
  assert_string_equal(why, "unknown weights layout");
  /* Versions 2 and 1: one word fewer, TFLite's layout, re-encoded unchanged. */
  for (uint32_t version = 1u; version <= 2u; version++) {
    words[0] = (version == 1u) ? UTVM_OP_PARAMS_MAGIC_V1 : UTVM_OP_PARAMS_MAGIC_V2;
    words[2] = (int32_t)n - 1;
    (void)memmove(&words[at], &words[at + 1u], (size_t)(n - at - 1u) * 4u);
    assert_int_equal(utvm_op_params_decode(words, n - 1u, &d, &why), UTVM_OK);
    assert_int_equal(d.version, version);
    assert_int_equal(d.p.fc.weights_layout, (int32_t)UTVM_FILTER_PLAIN);
    assert_memory_equal(&d.p.fc, &fc.p.fc, sizeof(d.p.fc));
    assert_int_equal(utvm_op_params_encode(&d, again, 512u, &n_again, &why), UTVM_OK);
    assert_int_equal(n_again, n - 1u);
    assert_memory_equal(again, words, (size_t)(n - 1u) * 4u);
    d.p.fc.weights_layout = (int32_t)UTVM_FILTER_MVE_TERMS;
    assert_int_equal(utvm_op_params_encode(&d, again, 512u, &n_again, &why),
                     UTVM_ERR_KFUNC_PARAMS);
    /* back to version 3 for the next round */
    assert_int_equal(utvm_op_params_encode(&fc, words, 512u, &n, &why), UTVM_OK);
  }
  /* int16 activations read TFLite's weights only. */
  fc.kind = UTVM_OP_FULLY_CONNECTED_S16;
  fc.accumulator = (int32_t)UTVM_ACCUMULATE_64;
  fc.p.fc.weights_layout = (int32_t)UTVM_FILTER_MVE_TERMS;
  assert_int_equal(utvm_op_params_check(&fc, &why), UTVM_ERR_KFUNC_PARAMS);
  assert_string_equal(why, "weights layout not plain (int16 activations read TFLite's weights)");
}

/* Tensors for a call of utvm_k_conv2d_s8 with fixture's params. */
typedef struct {
  DLTensor t[5];
  int64_t shapes[5][1];
  TVMValue args[5];
  int codes[5];
  void *data[5];
} call_t;

static void call_init(call_t *c) {
  (void)memset(c, 0, sizeof(*c));
  const utvm_op_params_t *p = &fx.p;
  for (uint32_t i = 0u; i < 5u; i++) {
    uint32_t bytes;
    uint8_t bits = 8u;
    if (i == 3u) {
      bytes = fx.n * 4u;
      bits = 32u;
    } else {
      const uint32_t k = (i < 3u) ? i : 3u;
      bytes = p->operands[k].bytes;
      bits = (p->operands[k].type == UTVM_OP_TYPE_INT32)   ? 32u
             : (p->operands[k].type == UTVM_OP_TYPE_INT16) ? 16u
                                                           : 8u;
    }
    c->data[i] = calloc(1u, bytes + 8u);
    assert_non_null(c->data[i]);
    c->shapes[i][0] = (int64_t)(bytes / (bits / 8u));
    c->t[i].data = c->data[i];
    c->t[i].device.device_type = kDLCPU;
    c->t[i].ndim = 1;
    c->t[i].dtype.code = kDLInt;
    c->t[i].dtype.bits = bits;
    c->t[i].dtype.lanes = 1u;
    c->t[i].shape = c->shapes[i];
    c->args[i].v_handle = &c->t[i];
    c->codes[i] = kTVMNDArrayHandle;
  }
  (void)memcpy(c->data[3], fx.words, (size_t)fx.n * 4u);
}

static void call_free(call_t *c) {
  for (uint32_t i = 0u; i < 5u; i++) {
    free(c->data[i]);
  }
}

static int call(call_t *c, int n) {
  TVMValue ret;
  int ret_code = 0;
  return utvm_k_conv2d_s8(c->args, c->codes, n, &ret, &ret_code, NULL);
}

static void expect_error(call_t *c, int n, const char *text) {
  assert_int_equal(call(c, n), -1);
  if (!contains(test_last_error(), text) || !starts_with(test_last_error(), "utvm_k_conv2d_s8: ")) {
    fail_msg("expected '%s' in '%s'", text, test_last_error());
  }
}

static void test_hostile_calls(void **state) {
  call_t c;
  (void)state;
  call_init(&c);
  assert_int_equal(call(&c, 5), 0); /* a valid call (zero data) */
  c.codes[4] = kTVMDLTensorHandle;
  assert_int_equal(call(&c, 5), 0); /* type code 7 too */
  expect_error(&c, 2, "expected inputs, op params and output");
  expect_error(&c, 4, "op params: "); /* the bias taken for the op params */
  call_t short_call = c; /* input, filter, op params, output: the params want a bias */
  short_call.args[2] = c.args[3];
  short_call.codes[2] = c.codes[3];
  short_call.args[3] = c.args[4];
  short_call.codes[3] = c.codes[4];
  expect_error(&short_call, 4, "argument count differs");
  c.codes[0] = kDLInt;
  expect_error(&c, 5, "argument 0: not a tensor");
  c.codes[0] = kTVMNDArrayHandle;
  c.t[4].dtype.code = kDLFloat;
  expect_error(&c, 5, "argument 4: dtype is not int8");
  c.t[4].dtype.code = kDLInt;
  c.t[2].dtype.bits = 8u;
  expect_error(&c, 5, "argument 2: dtype is not int32");
  c.t[2].dtype.bits = 32u;
  c.shapes[4][0]--;
  expect_error(&c, 5, "op params say");
  c.shapes[4][0]++;
  c.t[0].byte_offset = 1u; /* same bytes, offset honoured: still valid for int8 */
  assert_int_equal(call(&c, 5), 0);
  c.t[0].byte_offset = 0u;
  c.t[2].byte_offset = 2u;
  expect_error(&c, 5, "argument 2: data not 4-byte aligned");
  c.t[2].byte_offset = 0u;
  c.t[1].device.device_type = kDLCUDA;
  expect_error(&c, 5, "argument 1: not a compact CPU tensor");
  c.t[1].device.device_type = kDLCPU;
  c.t[1].data = NULL;
  expect_error(&c, 5, "argument 1: NULL tensor");
  c.t[1].data = c.data[1];
  c.t[3].dtype.bits = 8u;
  expect_error(&c, 5, "argument 3: op params are not int32");
  c.t[3].dtype.bits = 32u;
  c.shapes[3][0]--;
  expect_error(&c, 5, "op params: ");
  c.shapes[3][0]++;
  /* op params of another kind */
  TVMValue ret;
  int ret_code = 0;
  assert_int_equal(utvm_k_depthwise_conv2d_s8(c.args, c.codes, 5, &ret, &ret_code, NULL), -1);
  assert_true(contains(test_last_error(), "utvm_k_depthwise_conv2d_s8: op params are of another kind"));
  /* a kernel's own refusal (activation range emptied) */
  int32_t *w = (int32_t *)c.data[3];
  w[5 + 12 + 8] = 100; /* act_min */
  w[5 + 12 + 9] = -100; /* act_max */
  expect_error(&c, 5, "kernel");
  call_free(&c);
}

/* p checks as valid (why_expected NULL; its words round-trip) or is refused with why_expected. */
static void expect_op_check(utvm_op_params_t *p, const char *why_expected) {
  const char *why = NULL;
  utvm_op_params_t q = *p;
  int32_t words[256];
  uint32_t n = 0u;
  const utvm_err_t err = utvm_op_params_check(&q, &why);
  if (why_expected == NULL) {
    assert_int_equal(err, UTVM_OK);
    /* a valid body round-trips */
    assert_int_equal(utvm_op_params_encode(&q, words, 256u, &n, &why), UTVM_OK);
    assert_int_equal(utvm_op_params_decode(words, n, &q, &why), UTVM_OK);
  } else {
    assert_int_equal(err, UTVM_ERR_KFUNC_PARAMS);
    if (why == NULL || strcmp(why, why_expected) != 0) {
      fail_msg("expected '%s', got '%s'", why_expected, why == NULL ? "(null)" : why);
    }
  }
}

/* The op-params checks of the layout kinds of round 2 (PAD, the int16 pools, SPACE_BATCH,
 * GATHER, the resizes) on hostile bodies. */
static void test_layout2_checks(void **state) {
  utvm_op_params_t p;
  (void)state;
  (void)memset(&p, 0, sizeof(p));
  p.kind = UTVM_OP_PAD;
  p.n_inputs = 1u;
  p.type = (int32_t)UTVM_OP_TYPE_INT16;
  p.dims[0] = (utvm_dims_t){1, 3, 3, 2};
  p.p.pad_any = (utvm_pad_any_params_t){2, UTVM_PAD_REFLECT, {0, 2, 2, 0}, {0, 1, 0, 0}, 0};
  expect_op_check(&p, NULL);
  p.p.pad_any.before[1] = 3;
  expect_op_check(&p, "a mirrored padding is larger than its dimension allows");
  p.p.pad_any.before[1] = 2;
  p.p.pad_any.mode = 3;
  expect_op_check(&p, "unknown pad mode");
  p.p.pad_any.mode = UTVM_PAD_CONSTANT;
  p.p.pad_any.pad_value = 40000;
  expect_op_check(&p, "the pad value is outside the element type");
  p.p.pad_any.pad_value = 0;
  p.p.pad_any.element_size = 1;
  expect_op_check(&p, "element type and size differ or are not int8, int16 or float32");
  p.p.pad_any.element_size = 2;
  p.p.pad_any.after[0] = -1;
  expect_op_check(&p, "a padding is negative or the output too large");
  p.p.pad_any.after[0] = INT32_MAX; /* each dimension near 2^32: the product must not wrap */
  p.p.pad_any.after[1] = INT32_MAX;
  p.p.pad_any.after[2] = INT32_MAX;
  expect_op_check(&p, "a padding is negative or the output too large");
  p.p.pad_any.after[0] = 0;
  p.p.pad_any.after[1] = 1;
  p.p.pad_any.after[2] = 0;

  (void)memset(&p, 0, sizeof(p));
  p.kind = UTVM_OP_SPACE_BATCH;
  p.n_inputs = 1u;
  p.type = (int32_t)UTVM_OP_TYPE_INT8;
  p.dims[0] = (utvm_dims_t){1, 4, 6, 3};
  p.dims[1] = (utvm_dims_t){4, 2, 3, 3};
  p.p.space_batch = (utvm_space_batch_params_t){1, 1, {2, 2}, {0, 0}, 5};
  expect_op_check(&p, NULL);
  p.p.space_batch.before[0] = 1;
  expect_op_check(&p, "the batch tensor does not fit the space tensor and block");
  p.p.space_batch.before[0] = 0;
  p.p.space_batch.to_batch = 2;
  expect_op_check(&p, "direction, block or padding out of range");
  p.p.space_batch.to_batch = 0;
  p.p.space_batch.block[0] = INT32_MAX;
  p.p.space_batch.block[1] = INT32_MAX;
  expect_op_check(&p, "the batch tensor does not fit the space tensor and block");
  p.p.space_batch.block[0] = 2;
  p.p.space_batch.block[1] = 2;
  p.p.space_batch.pad_value = 128;
  expect_op_check(&p, "the pad value is outside the element type");

  (void)memset(&p, 0, sizeof(p));
  p.kind = UTVM_OP_GATHER;
  p.n_inputs = 2u;
  p.type = (int32_t)UTVM_OP_TYPE_FLOAT32;
  p.p.gather = (utvm_gather_params_t){4, 8, 1, 2, 6, 5, 3};
  expect_op_check(&p, NULL);
  p.p.gather.index_size = 2;
  expect_op_check(&p, "element type and size differ, or indices not int32 or int64");
  p.p.gather.index_size = 4;
  p.p.gather.axis_size = 0;
  expect_op_check(&p, "a size is < 1");
  p.p.gather.axis_size = 65536;
  p.p.gather.outer = 65536;
  expect_op_check(&p, "a tensor is too large");
  p.p.gather.outer = 2;
  p.n_inputs = 1u;
  expect_op_check(&p, "wrong number of input tensors for the kind");

  (void)memset(&p, 0, sizeof(p));
  p.kind = UTVM_OP_RESIZE_BILINEAR_S8;
  p.n_inputs = 1u;
  p.type = (int32_t)UTVM_OP_TYPE_INT8;
  p.dims[0] = (utvm_dims_t){1, 3, 4, 2};
  p.dims[1] = (utvm_dims_t){1, 6, 8, 2};
  p.p.resize = (utvm_resize_params_t){1, 0, 1};
  expect_op_check(&p, NULL);
  p.p.resize.align_corners = 1;
  expect_op_check(&p, "align_corners or half_pixel_centers out of range");
  p.p.resize.align_corners = 0;
  p.dims[1].c = 3;
  expect_op_check(&p, "the dims do not fit the kernel");
  p.dims[1].c = 2;
  p.type = (int32_t)UTVM_OP_TYPE_INT16;
  p.p.resize.element_size = 2;
  expect_op_check(&p, "element type and size differ or are not of the kernel");
  p.kind = UTVM_OP_RESIZE_NEAREST;
  expect_op_check(&p, NULL);

  (void)memset(&p, 0, sizeof(p));
  p.kind = UTVM_OP_MAX_POOL2D_S16;
  p.n_inputs = 1u;
  p.dims[0] = (utvm_dims_t){1, 4, 4, 2};
  p.dims[1] = (utvm_dims_t){1, 2, 2, 2};
  p.p.pool = (utvm_pool2d_params_t){2, 2, 2, 2, 0, 0, -32768, 32767};
  expect_op_check(&p, NULL);
}

/* utvm_k_kernels answers this build's kernels (the host's: portable, TFLite's layout only) and
 * takes no arguments. */
static void test_kernels_info(void **state) {
  (void)state;
  TVMValue args[1];
  int codes[1] = {(int)kTVMArgInt};
  TVMValue ret;
  int ret_code = 0;
  args[0].v_int64 = 1;
  assert_int_equal(utvm_k_kernels(args, codes, 0, &ret, &ret_code, NULL), 0);
  assert_int_equal(ret_code, (int)kTVMArgInt);
  assert_int_equal(ret.v_int64, UTVM_KERNELS_INFO);
  assert_int_equal(UTVM_KERNELS_INFO_CORE(ret.v_int64), (int64_t)UTVM_KERNELS_PORTABLE);
  assert_int_equal(UTVM_KERNELS_INFO_LAYOUTS(ret.v_int64), 1);
  assert_int_equal(utvm_k_kernels(args, codes, 1, &ret, &ret_code, NULL), -1);
  assert_true(contains(test_last_error(), "utvm_k_kernels: takes no arguments"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_truncations_and_corruptions),
      cmocka_unit_test(test_fully_connected_layout),
      cmocka_unit_test(test_hostile_calls),
      cmocka_unit_test(test_layout2_checks),
      cmocka_unit_test(test_kernels_info),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

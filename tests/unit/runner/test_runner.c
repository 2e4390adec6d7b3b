/*
 * The model runner against TensorFlow Lite Micro: every input/expected pair of
 * shared/models/refdata (the real models and network_tester), of shared/models/ops (32
 * operator cases, 64 pairs) and of the operator case sets (ops2, tflm: their pending cases
 * refused) must come out byte for byte as TFLM's reference kernels computed them (float
 * outputs bit for bit); each real model's arena plus the runner's workspace (our
 * counterpart of TFLM's persistent data) must be strictly below TFLM's arena; and
 * the API's argument, workspace and arena errors; SPLIT and CONCATENATION planned as views
 * (UTVM_PLAN_STEP_SCATTER, _GATHER) on built models.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../model/tflite_builder.h"
#include "runner_op_case_pairs.h"
#include "runner_pairs.h"
#include "runner_test_util.h"

/* A model with its reference pairs (files relative to shared/models). */
typedef struct {
  const char *name;
  const char *model;
  const char *inputs[4];
  const char *outputs[4];
  size_t tflm_arena; /* TFLM's arena for this model (models/README.md), 0 if not given */
} ref_model_t;

static const ref_model_t ref_models[] = {
    {"person_detect",
     "person_detect_int8.tflite",
     {"refdata/person_detection/person_input_int8.bin",
      "refdata/person_detection/no_person_input_int8.bin", NULL, NULL},
     {"refdata/person_detection/person_tflm.out0.bin",
      "refdata/person_detection/no_person_tflm.out0.bin", NULL, NULL},
     85024u},
    {"micro_speech",
     "micro_speech_int8.tflite",
     {"refdata/micro_speech/yes_1000ms_features_int8.bin",
      "refdata/micro_speech/no_1000ms_features_int8.bin",
      "refdata/micro_speech/silence_1000ms_features_int8.bin",
      "refdata/micro_speech/noise_1000ms_features_int8.bin"},
     {"refdata/micro_speech/yes_1000ms_tflm.out0.bin", "refdata/micro_speech/no_1000ms_tflm.out0.bin",
      "refdata/micro_speech/silence_1000ms_tflm.out0.bin",
      "refdata/micro_speech/noise_1000ms_tflm.out0.bin"},
     7312u},
    {"hello_world",
     "hello_world_int8.tflite",
     {"refdata/hello_world/in_-96.bin", "refdata/hello_world/in_-63.bin",
      "refdata/hello_world/in_-34.bin", "refdata/hello_world/in_0.bin"},
     {"refdata/hello_world/tflm_in_-96.out0.bin", "refdata/hello_world/tflm_in_-63.out0.bin",
      "refdata/hello_world/tflm_in_-34.out0.bin", "refdata/hello_world/tflm_in_0.out0.bin"},
     1184u},
    {"KWS (DS-CNN)",
     "mlperf_tiny_kws_dscnn_int8.tflite",
     {"refdata/mlperf_tiny/kws_input0_int8.bin", NULL, NULL, NULL},
     {"refdata/mlperf_tiny/kws_input0_int8_tflm.out0.bin", NULL, NULL, NULL},
     24000u},
    {"VWW (MobileNetV1)",
     "mlperf_tiny_vww_mobilenetv1_int8.tflite",
     {"refdata/mlperf_tiny/vww_from_person_bmp_int8.bin",
      "refdata/mlperf_tiny/vww_from_no_person_bmp_int8.bin", NULL, NULL},
     {"refdata/mlperf_tiny/vww_from_person_bmp_int8_tflm.out0.bin",
      "refdata/mlperf_tiny/vww_from_no_person_bmp_int8_tflm.out0.bin", NULL, NULL},
     103392u},
    {"IC (ResNet-8)",
     "mlperf_tiny_ic_resnet8_int8.tflite",
     {"refdata/mlperf_tiny/ic_input0_int8.bin", NULL, NULL, NULL},
     {"refdata/mlperf_tiny/ic_input0_int8_tflm.out0.bin", NULL, NULL, NULL},
     55712u},
    {"AD (autoencoder)",
     "mlperf_tiny_ad_autoencoder_int8.tflite",
     {"refdata/mlperf_tiny/ad_window0_int8.bin", NULL, NULL, NULL},
     {"refdata/mlperf_tiny/ad_window0_int8_tflm.out0.bin", NULL, NULL, NULL},
     3424u},
    {"network_tester",
     "refdata/network_tester/network_model.tflite",
     {"refdata/network_tester/input_data.bin", NULL, NULL, NULL},
     {"refdata/network_tester/expected_output_data.bin", NULL, NULL, NULL},
     0u},
};

/* Runs input_file through an initialised instance and compares output 0 with expected_file
 * byte for byte; returns 1 if equal. */
static int run_pair(rt_instance_t *in, const char *label, const char *input_file,
                    const char *expected_file) {
  size_t in_size = 0u;
  size_t out_size = 0u;
  uint8_t *input = rt_load(input_file, &in_size);
  uint8_t *expected = rt_load(expected_file, &out_size);
  if ((input == NULL) || (expected == NULL)) {
    fail_msg("%s: cannot read %s or %s", label, input_file, expected_file);
  }
  utvm_runner_tensor_t t;
  assert_int_equal(in->model.n_inputs, 1u);
  assert_int_equal(utvm_runner_input(&in->runner, 0u, &t), UTVM_OK);
  if (t.bytes != in_size) {
    fail_msg("%s: input %s has %zu bytes, the model wants %zu", label, input_file, in_size,
             t.bytes);
  }
  (void)memcpy(t.data, input, in_size);
  const utvm_err_t err = utvm_runner_invoke(&in->runner);
  if (err != UTVM_OK) {
    fail_msg("%s: invoke: %s: %s", label, utvm_strerror(err), in->runner.error);
  }
  assert_int_equal(utvm_runner_output(&in->runner, 0u, &t), UTVM_OK);
  int same = (t.bytes == out_size) && (memcmp(t.const_data, expected, out_size) == 0);
  if (!same) {
    (void)printf("MISMATCH %s: %s -> %s\n", label, input_file, expected_file);
    const uint8_t *got = (const uint8_t *)t.const_data;
    for (size_t i = 0u; (i < out_size) && (i < t.bytes); i++) {
      if (got[i] != expected[i]) {
        (void)printf("  first difference at byte %zu: got %d, expected %d\n", i,
                     (int)(int8_t)got[i], (int)(int8_t)expected[i]);
        break;
      }
    }
  }
  free(input);
  free(expected);
  return same;
}

/* Opens and initialises a model file (rt_load), failing the test with the texts. */
static uint8_t *setup_file(rt_instance_t *in, const char *model_file) {
  size_t size = 0u;
  uint8_t *data = rt_load(model_file, &size);
  if (data == NULL) {
    fail_msg("cannot read %s (in %s/models if relative)", model_file, UTVM_SHARED_DIR);
  }
  const char *stage = "";
  const utvm_err_t err = rt_setup(in, data, size, (size_t)16u << 20, &stage);
  if (err != UTVM_OK) {
    fail_msg("%s: %s: %s: model '%s' runner '%s'", model_file, stage, utvm_strerror(err),
             in->model.error, in->runner.error);
  }
  return data;
}

/* Every refdata pair with rt_patches; returns the pairs bit-exact. */
static int refdata_pairs(void) {
  int pairs = 0;
  int exact = 0;
  for (size_t m = 0u; m < sizeof(ref_models) / sizeof(ref_models[0]); m++) {
    const ref_model_t *rm = &ref_models[m];
    rt_instance_t in;
    uint8_t *data = setup_file(&in, rm->model);
    int model_pairs = 0;
    int model_exact = 0;
    for (size_t k = 0u; (k < 4u) && (rm->inputs[k] != NULL); k++) {
      model_pairs++;
      model_exact += run_pair(&in, rm->name, rm->inputs[k], rm->outputs[k]);
    }
    (void)printf("%-20s %u operators, pairs bit-exact %d/%d, arena %zu", rm->name,
                 in.model.n_operators, model_exact, model_pairs, in.runner.arena_size);
    if (in.runner.stage_count > 0u) {
      (void)printf(", stage of %u layers in %u patches%s", in.runner.stage_count,
                   in.runner.patches, in.runner.stage_inplace ? " in place" : "");
    }
    (void)printf("\n");
    pairs += model_pairs;
    exact += model_exact;
    rt_teardown(&in);
    free(data);
  }
  (void)printf("refdata (patches %u): %d/%d pairs bit-exact\n", rt_patches, exact, pairs);
  assert_int_equal(pairs, 16);
  return exact;
}

static void test_refdata_pairs(void **state) {
  (void)state;
  rt_patches = UTVM_RUNNER_PATCHES_OFF;
  assert_int_equal(refdata_pairs(), 16);
}

/* The same patch by patch: as many patches as give the smallest arena, and forced counts (a
 * band of rows per call, several rows, one patch). */
static void test_refdata_pairs_patches(void **state) {
  (void)state;
  const uint32_t counts[] = {UTVM_RUNNER_PATCHES_AUTO, 3u, 1u, 1000u};
  for (size_t i = 0u; i < (sizeof(counts) / sizeof(counts[0])); i++) {
    rt_patches = counts[i];
    assert_int_equal(refdata_pairs(), 16);
  }
  rt_patches = UTVM_RUNNER_PATCHES_OFF;
}

/* Every pair of pairs[0..n): bit-exact, or (a case of its set's pending list) refused at open
 * or init with a text. Prints a line per set (a set's pairs are consecutive). */
static void run_pair_sets(const runner_pair_t *pairs, int n) {
  int exact = 0;
  int pending = 0;
  int set_first = 0;
  for (int i = 0; i < n; i++) {
    const runner_pair_t *p = &pairs[i];
    rt_instance_t in;
    if (p->pending != 0) {
      size_t size = 0u;
      const char *stage = "";
      uint8_t *data = rt_load(p->model, &size);
      assert_non_null(data);
      const utvm_err_t err = rt_setup(&in, data, size, (size_t)16u << 20, &stage);
      if (err == UTVM_OK) {
        fail_msg("%s: listed in the %s pending list but runs: take it off the list", p->name,
                 p->set);
      }
      const char *text = (in.model.error[0] != '\0') ? in.model.error : in.runner.error;
      assert_true(text[0] != '\0');
      pending++;
      rt_teardown(&in);
      free(data);
    } else {
      uint8_t *data = setup_file(&in, p->model);
      exact += run_pair(&in, p->name, p->input, p->output);
      rt_teardown(&in);
      free(data);
    }
    if ((i + 1 == n) || (strcmp(pairs[i + 1].set, p->set) != 0)) {
      (void)printf("%s: %d/%d pairs bit-exact, %d pending (refused)\n", p->set, exact,
                   i + 1 - set_first - pending, pending);
      assert_int_equal(exact, i + 1 - set_first - pending);
      set_first = i + 1;
      exact = 0;
      pending = 0;
    }
  }
}

static void test_ops_pairs(void **state) {
  (void)state;
  const int pairs = (int)(sizeof(runner_op_pairs) / sizeof(runner_op_pairs[0]));
  run_pair_sets(runner_op_pairs, pairs);
  assert_int_equal(pairs, 64);
}

/* The operator cases with patches forced (a stage wherever a case starts with a convolution). */
static void test_ops_pairs_patches(void **state) {
  (void)state;
  const int pairs = (int)(sizeof(runner_op_pairs) / sizeof(runner_op_pairs[0]));
  rt_patches = 2u;
  run_pair_sets(runner_op_pairs, pairs);
  rt_patches = UTVM_RUNNER_PATCHES_OFF;
}

/* The operator case sets (cmake/utvm_op_cases.cmake): ops2 (279 pairs), tflm (39) and
 * tflm_float (109). */
static void test_op_case_pairs(void **state) {
  (void)state;
  const int pairs = (int)(sizeof(runner_op_case_pairs) / sizeof(runner_op_case_pairs[0]));
  run_pair_sets(runner_op_case_pairs, pairs);
  assert_int_equal(pairs, 279 + 39 + 109);
}

/* A model with state (SVDF): a second run continues from the first one's state, and
 * utvm_runner_reset_state goes back to the start (the output of one run from the start is
 * TFLM's). */
static void test_state_persists_and_resets(void **state) {
  (void)state;
  rt_instance_t in;
  uint8_t *data = setup_file(&in, "ops2/svdf_rank2_i8.tflite");
  size_t in_size = 0u;
  size_t out_size = 0u;
  uint8_t *input = rt_load("ops2/svdf_rank2_i8_in0.bin", &in_size);
  uint8_t *expected = rt_load("ops2/svdf_rank2_i8_out0.tflm.bin", &out_size);
  utvm_runner_tensor_t t;
  utvm_runner_tensor_t out;
  assert_non_null(input);
  assert_non_null(expected);
  assert_int_equal(utvm_runner_input(&in.runner, 0u, &t), UTVM_OK);
  assert_int_equal(utvm_runner_output(&in.runner, 0u, &out), UTVM_OK);
  assert_int_equal(t.bytes, in_size);
  assert_int_equal(out.bytes, out_size);
  (void)memcpy(t.data, input, in_size);
  assert_int_equal(utvm_runner_invoke(&in.runner), UTVM_OK);
  assert_memory_equal(out.const_data, expected, out_size);
  (void)memcpy(t.data, input, in_size);
  assert_int_equal(utvm_runner_invoke(&in.runner), UTVM_OK);
  assert_true(memcmp(out.const_data, expected, out_size) != 0); /* the state moved on */
  assert_int_equal(utvm_runner_reset_state(&in.runner), UTVM_OK);
  (void)memcpy(t.data, input, in_size);
  assert_int_equal(utvm_runner_invoke(&in.runner), UTVM_OK);
  assert_memory_equal(out.const_data, expected, out_size);
  assert_int_equal(utvm_runner_reset_state(NULL), UTVM_ERR_RUNNER_ARGUMENT);
  free(input);
  free(expected);
  rt_teardown(&in);
  free(data);
}

/* Each real model's arena plus workspace is below TFLM's arena; prints the table of README.md. */
static void test_memory_below_tflm(void **state) {
  (void)state;
  (void)printf("| model | operators | arena (B) | workspace (B) | arena + workspace (B) | TFLM arena (B) |\n");
  (void)printf("|---|---:|---:|---:|---:|---:|\n");
  for (size_t m = 0u; m < sizeof(ref_models) / sizeof(ref_models[0]); m++) {
    const ref_model_t *rm = &ref_models[m];
    if (rm->tflm_arena == 0u) {
      continue;
    }
    rt_instance_t in;
    uint8_t *data = setup_file(&in, rm->model);
    const size_t total = in.runner.arena_size + in.runner.workspace_size;
    (void)printf("| %s | %u | %zu | %zu | %zu | %zu |\n", rm->name, in.model.n_operators,
                 in.runner.arena_size, in.runner.workspace_size, total, rm->tflm_arena);
    assert_true(in.runner.workspace_size == utvm_runner_workspace_size(&in.model));
    assert_true(in.runner.arena_size < rm->tflm_arena);
    assert_true(total < rm->tflm_arena);
    rt_teardown(&in);
    free(data);
  }
}

/* KWS's operators as a resolver (TFLM's MicroMutableOpResolver). */
UTVM_OP_RESOLVER(kws_ops, &utvm_op_conv_2d, &utvm_op_depthwise_conv_2d,
                 &utvm_op_average_pool_2d, &utvm_op_reshape, &utvm_op_fully_connected,
                 &utvm_op_softmax);
/* The same but SOFTMAX. */
UTVM_OP_RESOLVER(kws_ops_but_softmax, &utvm_op_conv_2d, &utvm_op_depthwise_conv_2d,
                 &utvm_op_average_pool_2d, &utvm_op_reshape, &utvm_op_fully_connected);

/* A runner with a resolver of the model's operators runs it as the one with every operator (KWS
 * bit-exact, the same workspace and arena); one that lacks an operator is refused with its name;
 * options without a resolver are refused. */
static void test_resolver(void **state) {
  (void)state;
  size_t size = 0u;
  size_t in_size = 0u;
  size_t out_size = 0u;
  uint8_t *data = rt_load("mlperf_tiny_kws_dscnn_int8.tflite", &size);
  uint8_t *input = rt_load("refdata/mlperf_tiny/kws_input0_int8.bin", &in_size);
  uint8_t *expected = rt_load("refdata/mlperf_tiny/kws_input0_int8_tflm.out0.bin", &out_size);
  utvm_model_t m;
  utvm_runner_t r;
  utvm_runner_tensor_t t;
  assert_non_null(data);
  assert_non_null(input);
  assert_non_null(expected);
  assert_int_equal(utvm_model_open(&m, data, size), UTVM_OK);
  const size_t ws_size = utvm_runner_workspace_size_with(&m, &kws_ops);
  assert_int_equal(ws_size, utvm_runner_workspace_size(&m));
  assert_int_equal(utvm_runner_workspace_size_with(&m, NULL), SIZE_MAX);
  uint8_t *ws = (uint8_t *)malloc(ws_size);
  assert_non_null(ws);
  utvm_runner_options_t options = {UTVM_KERNELS_NATIVE, false, &kws_ops,
                                   UTVM_RUNNER_PATCHES_OFF};
  assert_int_equal(utvm_runner_init_with(&r, &m, ws, ws_size, NULL, 0u, &options),
                   UTVM_ERR_RUNNER_ARENA);
  const size_t arena_size = r.arena_size;
  uint8_t *arena = (uint8_t *)malloc(arena_size); /* glibc: 16-byte aligned */
  assert_non_null(arena);
  assert_int_equal(utvm_runner_init_with(&r, &m, ws, ws_size, arena, arena_size, &options),
                   UTVM_OK);
  assert_int_equal(utvm_runner_input(&r, 0u, &t), UTVM_OK);
  assert_int_equal(t.bytes, in_size);
  (void)memcpy(t.data, input, in_size);
  assert_int_equal(utvm_runner_invoke(&r), UTVM_OK);
  assert_int_equal(utvm_runner_output(&r, 0u, &t), UTVM_OK);
  assert_int_equal(t.bytes, out_size);
  assert_memory_equal(t.const_data, expected, out_size);
  assert_int_equal(utvm_runner_init(&r, &m, ws, ws_size, NULL, 0u), UTVM_ERR_RUNNER_ARENA);
  assert_int_equal(r.arena_size, arena_size);

  options.resolver = &kws_ops_but_softmax;
  assert_int_equal(utvm_runner_init_with(&r, &m, ws, ws_size, arena, arena_size, &options),
                   UTVM_ERR_RUNNER_UNSUPPORTED);
  assert_string_equal(r.error, "operator 12 (SOFTMAX): not in the runner's operator resolver");
  options.resolver = NULL;
  assert_int_equal(utvm_runner_init_with(&r, &m, ws, ws_size, arena, arena_size, &options),
                   UTVM_ERR_RUNNER_ARGUMENT);
  assert_int_equal(utvm_runner_init_with(&r, &m, ws, ws_size, arena, arena_size, NULL),
                   UTVM_ERR_RUNNER_ARGUMENT);
  assert_null(utvm_op_resolve(&kws_ops, (int32_t)UTVM_MODEL_OP_ADD));
  assert_ptr_equal(utvm_op_resolve(&utvm_op_resolver_all, (int32_t)UTVM_MODEL_OP_SOFTMAX),
                   &utvm_op_softmax);
  assert_null(utvm_op_resolve(NULL, (int32_t)UTVM_MODEL_OP_SOFTMAX));
  free(arena);
  free(ws);
  free(expected);
  free(input);
  free(data);
}

/* ---- Views: SPLIT's outputs and CONCATENATION's inputs in the bytes of the whole ---- */

static const int32_t axis_zero = 0;

/* An int8 tensor [d0, d1] of one quantization (scale 0.5, zero point -3). */
static tb_tensor_t views_tensor(int32_t d0, int32_t d1, const char *name) {
  tb_tensor_t t = {2u, {d0, d1}, 9, 0u, name, 1u, {0.5f}, 1u, {-3}, 0, false, false};
  return t;
}

/* Operator codes 0..n-1 of builtin codes[], the int32 axis 0 in buffer 1. */
static void views_spec(tb_spec_t *s, uint32_t n_codes, const int32_t *codes) {
  uint32_t i;
  (void)memset(s, 0, sizeof(*s));
  s->version = 3u;
  s->n_subgraphs = 1u;
  s->n_codes = n_codes;
  for (i = 0u; i < n_codes; i++) {
    s->deprecated[i] = (int8_t)codes[i];
    s->builtin[i] = codes[i];
  }
  s->n_buffers = 2u;
  s->buffer_len[1] = 4u;
  s->buffer_data[1] = &axis_zero;
  s->n_inputs = 1u;
}

/* The arena of m planned with every step DEFAULT but RESHAPE's (no scratch callback: the
 * operators choose no kind), as before views. */
static size_t views_default_arena(utvm_model_t *m) {
  const size_t ws_size = utvm_model_plan_workspace_size(m);
  void *ws = malloc(ws_size);
  uint32_t *offsets = (uint32_t *)calloc(m->n_tensors, sizeof(uint32_t));
  utvm_plan_t plan;
  assert_non_null(ws);
  assert_non_null(offsets);
  (void)memset(&plan, 0, sizeof(plan));
  plan.offsets = offsets;
  assert_int_equal(utvm_model_plan(m, NULL, NULL, 0u, ws, ws_size, &plan), UTVM_OK);
  free(ws);
  free(offsets);
  return plan.arena_size;
}

/* Builds s and runs input (in_bytes) through it with the runner's own plan: the arena is arena
 * (default_arena planned without views); outputs[j] of out_bytes each is expected[j].
 * *in receives the set-up runner (tear it down and free the returned model bytes). */
static uint8_t *views_run(const tb_spec_t *s, rt_instance_t *in, size_t arena, size_t default_arena,
                          const int8_t *input, size_t in_bytes, const int8_t *const *expected,
                          uint32_t n_out, size_t out_bytes) {
  uint8_t buf[4096];
  const uint32_t size = tb_build(s, buf, sizeof(buf), NULL);
  uint8_t *data = (uint8_t *)malloc(size);
  const char *stage = "";
  utvm_runner_tensor_t t;
  uint32_t j;
  assert_non_null(data);
  (void)memcpy(data, buf, size);
  const utvm_err_t err = rt_setup(in, data, size, (size_t)1u << 20, &stage);
  if (err != UTVM_OK) {
    fail_msg("%s: %s: model '%s' runner '%s'", stage, utvm_strerror(err), in->model.error,
             in->runner.error);
  }
  assert_int_equal(in->runner.arena_size, arena);
  assert_int_equal(views_default_arena(&in->model), default_arena);
  assert_int_equal(utvm_runner_input(&in->runner, 0u, &t), UTVM_OK);
  assert_int_equal(t.bytes, in_bytes);
  (void)memcpy(t.data, input, in_bytes);
  assert_int_equal(utvm_runner_invoke(&in->runner), UTVM_OK);
  for (j = 0u; j < n_out; j++) {
    assert_int_equal(utvm_runner_output(&in->runner, j, &t), UTVM_OK);
    assert_int_equal(t.bytes, out_bytes);
    assert_memory_equal(t.const_data, expected[j], out_bytes);
  }
  return data;
}

/* SPLIT [2,16] along axis 0 into two graph outputs: each a view of half the input (32 bytes of
 * arena instead of 64), the copies skipped. */
static void test_views_split(void **state) {
  static const int32_t codes[] = {49};
  tb_spec_t s;
  rt_instance_t in;
  int8_t input[32];
  utvm_runner_tensor_t whole;
  utvm_runner_tensor_t piece;
  uint32_t i;
  (void)state;
  for (i = 0u; i < 32u; i++) {
    input[i] = (int8_t)(i * 37u - 100u);
  }
  const int8_t *const expected[] = {input, &input[16]};
  views_spec(&s, 1u, codes);
  s.n_tensors = 4u;
  s.t[0] = views_tensor(2, 16, "in");
  s.t[1] = (tb_tensor_t){1u, {1}, 2, 1u, "axis", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s.t[2] = views_tensor(1, 16, "top");
  s.t[3] = views_tensor(1, 16, "bottom");
  s.n_outputs = 2u;
  s.outputs[0] = 2;
  s.outputs[1] = 3;
  s.n_ops = 1u;
  s.op[0] = (tb_op_t){0u, 2u, {1, 0}, 2u, {2, 3}, 35u, 1u, {{0u, 4u, 2u}}};
  uint8_t *data = views_run(&s, &in, 32u, 64u, input, 32u, expected, 2u, 16u);
  assert_int_equal(utvm_runner_tensor(&in.runner, 0u, &whole), UTVM_OK);
  assert_int_equal(utvm_runner_tensor(&in.runner, 3u, &piece), UTVM_OK);
  assert_ptr_equal(piece.data, (uint8_t *)whole.data + 16);
  rt_teardown(&in);
  free(data);
}

/* CONCATENATION of two RELUs of one input: the RELUs write straight into the output's halves
 * (48 bytes of arena instead of 64). */
static void test_views_concatenation(void **state) {
  static const int32_t codes[] = {19, 2};
  tb_spec_t s;
  rt_instance_t in;
  int8_t input[16];
  int8_t expected[32];
  utvm_runner_tensor_t whole;
  utvm_runner_tensor_t piece;
  uint32_t i;
  (void)state;
  for (i = 0u; i < 16u; i++) {
    input[i] = (int8_t)(i * 41u - 60u);
    expected[i] = (input[i] < -3) ? (int8_t)-3 : input[i]; /* RELU at the zero point */
    expected[i + 16u] = expected[i];
  }
  const int8_t *const outputs[] = {expected};
  views_spec(&s, 2u, codes);
  s.n_tensors = 4u;
  s.t[0] = views_tensor(1, 16, "in");
  s.t[1] = views_tensor(1, 16, "relu_a");
  s.t[2] = views_tensor(1, 16, "relu_b");
  s.t[3] = views_tensor(2, 16, "out");
  s.n_outputs = 1u;
  s.outputs[0] = 3;
  s.n_ops = 3u;
  s.op[0] = (tb_op_t){0u, 1u, {0}, 1u, {1}, 0u, 0u, {{0u, 0u, 0u}}};
  s.op[1] = (tb_op_t){0u, 1u, {0}, 1u, {2}, 0u, 0u, {{0u, 0u, 0u}}};
  s.op[2] = (tb_op_t){1u, 2u, {1, 2}, 1u, {3}, 10u, 1u, {{0u, 4u, 0u}}};
  uint8_t *data = views_run(&s, &in, 48u, 64u, input, 16u, outputs, 1u, 32u);
  assert_int_equal(utvm_runner_tensor(&in.runner, 3u, &whole), UTVM_OK);
  assert_int_equal(utvm_runner_tensor(&in.runner, 2u, &piece), UTVM_OK);
  assert_ptr_equal(piece.data, (uint8_t *)whole.data + 16);
  rt_teardown(&in);
  free(data);
  /* along axis 1 of [2,8] pieces the inputs interleave: no views, the arena as before */
  s.t[1] = views_tensor(2, 8, "relu_a");
  s.t[2] = views_tensor(2, 8, "relu_b");
  s.t[3] = views_tensor(2, 16, "out");
  s.t[0] = views_tensor(2, 8, "in");
  s.op[2].fields[0].value = 1u;
  for (i = 0u; i < 32u; i++) {
    expected[i] = (input[(i / 16u) * 8u + (i % 8u)] < -3) ? (int8_t)-3
                                                           : input[(i / 16u) * 8u + (i % 8u)];
  }
  data = views_run(&s, &in, 64u, 64u, input, 16u, outputs, 1u, 32u);
  assert_int_equal(utvm_runner_tensor(&in.runner, 1u, &piece), UTVM_OK);
  assert_int_equal(utvm_runner_tensor(&in.runner, 3u, &whole), UTVM_OK);
  assert_ptr_not_equal(piece.data, whole.data);
  rt_teardown(&in);
  free(data);
}

/* SPLIT then CONCATENATION in reverse order: the SPLIT's outputs are views of its input; the
 * CONCATENATION, whose inputs already are views, copies (one view per buffer). */
static void test_views_split_then_concatenation(void **state) {
  static const int32_t codes[] = {49, 2};
  tb_spec_t s;
  rt_instance_t in;
  int8_t input[32];
  int8_t expected[32];
  utvm_runner_tensor_t whole;
  utvm_runner_tensor_t piece;
  uint32_t i;
  (void)state;
  for (i = 0u; i < 32u; i++) {
    input[i] = (int8_t)(i * 29u + 3u);
    expected[(i + 16u) % 32u] = input[i];
  }
  const int8_t *const outputs[] = {expected};
  views_spec(&s, 2u, codes);
  s.n_tensors = 5u;
  s.t[0] = views_tensor(2, 16, "in");
  s.t[1] = (tb_tensor_t){1u, {1}, 2, 1u, "axis", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s.t[2] = views_tensor(1, 16, "top");
  s.t[3] = views_tensor(1, 16, "bottom");
  s.t[4] = views_tensor(2, 16, "out");
  s.n_outputs = 1u;
  s.outputs[0] = 4;
  s.n_ops = 2u;
  s.op[0] = (tb_op_t){0u, 2u, {1, 0}, 2u, {2, 3}, 35u, 1u, {{0u, 4u, 2u}}};
  s.op[1] = (tb_op_t){1u, 2u, {3, 2}, 1u, {4}, 10u, 1u, {{0u, 4u, 0u}}};
  uint8_t *data = views_run(&s, &in, 64u, 64u, input, 32u, outputs, 1u, 32u);
  assert_int_equal(utvm_runner_tensor(&in.runner, 0u, &whole), UTVM_OK);
  assert_int_equal(utvm_runner_tensor(&in.runner, 3u, &piece), UTVM_OK);
  assert_ptr_equal(piece.data, (uint8_t *)whole.data + 16);
  rt_teardown(&in);
  free(data);
}

/* ---- float32 operators (issue 30): a FULLY_CONNECTED built here, one defect at a time ---- */

static const float fc_weights[8] = {1.0f, 2.0f, 3.0f, 4.0f, -1.0f, -2.0f, -3.0f, -4.0f};
static const float fc_bias[2] = {0.5f, 0.25f};
static const float fc_wide_weights[6] = {1.0f, 2.0f, 3.0f, -1.0f, -2.0f, -3.0f};
static const int8_t fc_s8_weights[8] = {1, 2, 3, 4, -1, -2, -3, -4};

/* float32 in [1,4] -> FULLY_CONNECTED(weights [2,4], bias [2], RELU) -> out [1,2]. */
static void float_fc_spec(tb_spec_t *s) {
  (void)memset(s, 0, sizeof(*s));
  s->version = 3u;
  s->n_subgraphs = 1u;
  s->n_codes = 1u;
  s->deprecated[0] = 9;
  s->builtin[0] = 9;
  s->n_tensors = 4u;
  s->t[0] = (tb_tensor_t){2u, {1, 4}, 0, 0u, "in", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s->t[1] = (tb_tensor_t){2u, {2, 4}, 0, 1u, "weights", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s->t[2] = (tb_tensor_t){1u, {2}, 0, 2u, "bias", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s->t[3] = (tb_tensor_t){2u, {1, 2}, 0, 0u, "out", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s->n_buffers = 3u;
  s->buffer_len[1] = (uint32_t)sizeof(fc_weights);
  s->buffer_data[1] = fc_weights;
  s->buffer_len[2] = (uint32_t)sizeof(fc_bias);
  s->buffer_data[2] = fc_bias;
  s->n_inputs = 1u;
  s->inputs[0] = 0;
  s->n_outputs = 1u;
  s->outputs[0] = 3;
  s->n_ops = 1u;
  s->op[0] = (tb_op_t){0u, 3u, {0, 1, 2}, 1u, {3}, 8u, 1u, {{0u, 1u, 1u}}};
}

/* Builds s and sets it up: the error of rt_setup; *text the model's or the runner's text. */
static utvm_err_t float_setup(const tb_spec_t *s, rt_instance_t *in, uint8_t **data,
                              const char **text) {
  uint8_t buf[4096];
  const char *stage = "";
  const uint32_t size = tb_build(s, buf, sizeof(buf), NULL);
  assert_true((size > 0u) && (size <= sizeof(buf)));
  *data = (uint8_t *)malloc(size);
  assert_non_null(*data);
  (void)memcpy(*data, buf, size);
  const utvm_err_t err = rt_setup(in, *data, size, (size_t)1u << 20, &stage);
  *text = (in->model.error[0] != '\0') ? in->model.error : in->runner.error;
  return err;
}

/* The spec refused at prepare with a text holding want. */
static void float_refused(const tb_spec_t *s, const char *want) {
  rt_instance_t in;
  uint8_t *data = NULL;
  const char *text = "";
  const utvm_err_t err = float_setup(s, &in, &data, &text);
  if ((err == UTVM_OK) || (strstr(text, want) == NULL)) {
    fail_msg("expected a refusal with '%s', got %s: '%s'", want, utvm_strerror(err), text);
  }
  rt_teardown(&in);
  free(data);
}

/* A float32 FULLY_CONNECTED runs (sums, bias and the fused RELU as computed by hand); every
 * operand of another type is refused naming that operand, and so is a filter of the wrong
 * depth. */
static void test_float_operands(void **state) {
  (void)state;
  tb_spec_t s;
  rt_instance_t in;
  utvm_runner_tensor_t t;
  uint8_t *data = NULL;
  const char *text = "";
  static const float input[4] = {1.0f, 0.5f, -2.0f, 3.0f};
  const float expected[2] = {8.5f, 0.0f}; /* 1 + 1 - 6 + 12 + 0.5; -8 + 0.25 clamped by RELU */
  float_fc_spec(&s);
  const utvm_err_t err = float_setup(&s, &in, &data, &text);
  if (err != UTVM_OK) {
    fail_msg("float32 FULLY_CONNECTED: %s: '%s'", utvm_strerror(err), text);
  }
  assert_int_equal(utvm_runner_input(&in.runner, 0u, &t), UTVM_OK);
  assert_int_equal(t.bytes, sizeof(input));
  (void)memcpy(t.data, input, sizeof(input));
  assert_int_equal(utvm_runner_invoke(&in.runner), UTVM_OK);
  assert_int_equal(utvm_runner_output(&in.runner, 0u, &t), UTVM_OK);
  assert_int_equal(t.bytes, sizeof(expected));
  assert_memory_equal(t.const_data, expected, sizeof(expected));
  rt_teardown(&in);
  free(data);

  /* int8 weights under a float32 input, and float32 weights under an int8 input. */
  float_fc_spec(&s);
  s.t[1] = (tb_tensor_t){2u, {2, 4}, 9, 1u, "weights", 1u, {0.5f}, 1u, {0}, 0, false, false};
  s.buffer_len[1] = (uint32_t)sizeof(fc_s8_weights);
  s.buffer_data[1] = fc_s8_weights;
  float_refused(&s, "(FULLY_CONNECTED): filter is int8, not float32");
  float_fc_spec(&s);
  s.t[0] = (tb_tensor_t){2u, {1, 4}, 9, 0u, "in", 1u, {0.5f}, 1u, {0}, 0, false, false};
  s.t[3] = (tb_tensor_t){2u, {1, 2}, 9, 0u, "out", 1u, {0.5f}, 1u, {0}, 0, false, false};
  float_refused(&s, "filter is float32, not int8");
  /* An int8 output, an int32 bias. */
  float_fc_spec(&s);
  s.t[3] = (tb_tensor_t){2u, {1, 2}, 9, 0u, "out", 1u, {0.5f}, 1u, {0}, 0, false, false};
  float_refused(&s, "output is int8, not float32");
  float_fc_spec(&s);
  s.t[2] = (tb_tensor_t){1u, {2}, 2, 2u, "bias", 0u, {0.0f}, 0u, {0}, 0, false, false};
  float_refused(&s, "bias is int32, not float32");
  /* A bias of 3 elements for 2 units; weights of depth 3 for an input of 4. */
  float_fc_spec(&s);
  s.t[2] = (tb_tensor_t){1u, {1}, 0, 2u, "bias", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s.buffer_len[2] = 4u;
  float_refused(&s, "bias has 1 elements, not 2");
  float_fc_spec(&s);
  s.t[1] = (tb_tensor_t){2u, {2, 3}, 0, 1u, "weights", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s.buffer_len[1] = (uint32_t)sizeof(fc_wide_weights);
  s.buffer_data[1] = fc_wide_weights;
  float_refused(&s, "input [1,4] is not 1 rows of 3");
  /* ADD (code 0) of the float32 input and the int8 weights: input 2 named. */
  float_fc_spec(&s);
  s.deprecated[0] = 0;
  s.builtin[0] = 0;
  s.t[1] = (tb_tensor_t){2u, {1, 4}, 9, 1u, "other", 1u, {0.5f}, 1u, {0}, 0, false, false};
  s.buffer_len[1] = 4u;
  s.buffer_data[1] = fc_s8_weights;
  s.t[3] = (tb_tensor_t){2u, {1, 4}, 0, 0u, "out", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s.op[0] = (tb_op_t){0u, 2u, {0, 1}, 1u, {3}, 11u, 1u, {{0u, 1u, 0u}}};
  float_refused(&s, "(ADD): input 2 is int8, not float32");
  /* RELU (code 19) of float32 into a float32 output of another size. */
  float_fc_spec(&s);
  s.deprecated[0] = 19;
  s.builtin[0] = 19;
  s.op[0] = (tb_op_t){0u, 1u, {0}, 1u, {3}, 0u, 0u, {{0u, 0u, 0u}}};
  float_refused(&s, "(RELU): output [1,2] does not fit input [1,4]");
}

/* PADV2 of float32 with a constant pad value: its bits fill the border. */
static void test_float_padv2(void **state) {
  (void)state;
  static const int32_t paddings[4] = {0, 0, 1, 2};
  static const float value = 2.5f;
  static const float input[2] = {-1.0f, 3.0f};
  const float expected[5] = {2.5f, -1.0f, 3.0f, 2.5f, 2.5f};
  tb_spec_t s;
  rt_instance_t in;
  utvm_runner_tensor_t t;
  uint8_t *data = NULL;
  const char *text = "";
  float_fc_spec(&s);
  s.deprecated[0] = 60;
  s.builtin[0] = 60;
  s.t[1] = (tb_tensor_t){2u, {2, 2}, 2, 1u, "paddings", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s.buffer_len[1] = (uint32_t)sizeof(paddings);
  s.buffer_data[1] = paddings;
  s.t[2] = (tb_tensor_t){1u, {1}, 0, 2u, "value", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s.buffer_len[2] = (uint32_t)sizeof(value);
  s.buffer_data[2] = &value;
  s.t[0] = (tb_tensor_t){2u, {1, 2}, 0, 0u, "in", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s.t[3] = (tb_tensor_t){2u, {1, 5}, 0, 0u, "out", 0u, {0.0f}, 0u, {0}, 0, false, false};
  s.op[0] = (tb_op_t){0u, 3u, {0, 1, 2}, 1u, {3}, 0u, 0u, {{0u, 0u, 0u}}};
  const utvm_err_t err = float_setup(&s, &in, &data, &text);
  if (err != UTVM_OK) {
    fail_msg("float32 PADV2: %s: '%s'", utvm_strerror(err), text);
  }
  assert_int_equal(utvm_runner_input(&in.runner, 0u, &t), UTVM_OK);
  (void)memcpy(t.data, input, sizeof(input));
  assert_int_equal(utvm_runner_invoke(&in.runner), UTVM_OK);
  assert_int_equal(utvm_runner_output(&in.runner, 0u, &t), UTVM_OK);
  assert_int_equal(t.bytes, sizeof(expected));
  assert_memory_equal(t.const_data, expected, sizeof(expected));
  rt_teardown(&in);
  free(data);
}

/* The op params of a float32 kind: checked (operands float32, their bytes), refused with a text
 * for a wrong input count or size, and the float fields survive encode and decode. */
static void test_float_op_params(void **state) {
  (void)state;
  utvm_op_params_t p;
  utvm_op_params_t back;
  int32_t words[64];
  uint32_t n = 0u;
  const char *why = NULL;
  (void)memset(&p, 0, sizeof(p));
  p.kind = UTVM_OP_FULLY_CONNECTED_F32;
  p.n_inputs = 3u;
  p.has_bias = 1u;
  p.batches = 2;
  p.depth = 4;
  p.units = 3;
  p.p.act_f32.act_min = -1.5f;
  p.p.act_f32.act_max = 6.25f;
  assert_int_equal(utvm_op_params_check(&p, &why), UTVM_OK);
  assert_int_equal(p.operands[0].type, UTVM_OP_TYPE_FLOAT32);
  assert_int_equal(p.operands[1].bytes, 4u * 3u * 4u);
  assert_int_equal(p.operands[2].bytes, 3u * 4u);
  assert_int_equal(p.operands[3].bytes, 2u * 3u * 4u);
  assert_int_equal(utvm_op_params_encode(&p, words, 64u, &n, &why), UTVM_OK);
  assert_int_equal(utvm_op_params_decode(words, n, &back, &why), UTVM_OK);
  assert_int_equal(back.kind, UTVM_OP_FULLY_CONNECTED_F32);
  assert_true(back.p.act_f32.act_min == -1.5f);
  assert_true(back.p.act_f32.act_max == 6.25f);
  p.n_inputs = 2u;
  assert_int_equal(utvm_op_params_check(&p, &why), UTVM_ERR_KFUNC_PARAMS);
  assert_string_equal(why, "inputs are not input, filter and optional bias");
  p.n_inputs = 3u;
  p.units = 0;
  assert_int_equal(utvm_op_params_check(&p, &why), UTVM_ERR_KFUNC_PARAMS);
  assert_string_equal(why, "a size is < 1");
  /* A CONV2D_F32 with a dimension of 0. */
  (void)memset(&p, 0, sizeof(p));
  p.kind = UTVM_OP_CONV2D_F32;
  p.n_inputs = 2u;
  p.dims[0] = (utvm_dims_t){1, 4, 4, 2};
  p.dims[1] = (utvm_dims_t){3, 1, 1, 2};
  p.dims[2] = (utvm_dims_t){1, 4, 0, 3};
  assert_int_equal(utvm_op_params_check(&p, &why), UTVM_ERR_KFUNC_PARAMS);
  assert_string_equal(why, "a dimension is < 1 or a tensor too large");
  p.dims[2].w = 4;
  assert_int_equal(utvm_op_params_check(&p, &why), UTVM_OK);
  assert_int_equal(p.operands[2].bytes, 4u * 4u * 3u * 4u);
}

static void test_argument_errors(void **state) {
  (void)state;
  size_t size = 0u;
  uint8_t *data = rt_load("hello_world_int8.tflite", &size);
  assert_non_null(data);
  utvm_model_t m;
  utvm_runner_t r;
  utvm_runner_tensor_t t;
  assert_int_equal(utvm_model_open(&m, data, size), UTVM_OK);
  const size_t ws_size = utvm_runner_workspace_size(&m);
  assert_true((ws_size > 0u) && (ws_size < 65536u));
  uint8_t *ws = (uint8_t *)malloc(ws_size);
  assert_non_null(ws);

  assert_int_equal(utvm_runner_workspace_size(NULL), SIZE_MAX);
  assert_int_equal(utvm_runner_init(NULL, &m, ws, ws_size, NULL, 0u), UTVM_ERR_RUNNER_ARGUMENT);
  assert_int_equal(utvm_runner_init(&r, NULL, ws, ws_size, NULL, 0u), UTVM_ERR_RUNNER_ARGUMENT);
  assert_int_equal(utvm_runner_init(&r, &m, NULL, ws_size, NULL, 0u), UTVM_ERR_RUNNER_ARGUMENT);
  assert_int_equal(utvm_runner_invoke(&r), UTVM_ERR_RUNNER_ARGUMENT);
  assert_int_equal(utvm_runner_input(&r, 0u, &t), UTVM_ERR_RUNNER_ARGUMENT);

  /* A workspace one byte short: the text gives the size needed. */
  assert_int_equal(utvm_runner_init(&r, &m, ws, ws_size - 1u, NULL, 0u),
                   UTVM_ERR_RUNNER_WORKSPACE);
  char want[64];
  (void)snprintf(want, sizeof(want), "needs %zu", ws_size);
  assert_non_null(strstr(r.error, want));

  /* No arena: the model is checked and the arena size reported. */
  assert_int_equal(utvm_runner_init(&r, &m, ws, ws_size, NULL, 0u), UTVM_ERR_RUNNER_ARENA);
  const size_t arena_size = r.arena_size;
  assert_true(arena_size > 0u);
  (void)snprintf(want, sizeof(want), "arena: 0 bytes given, the model needs %zu", arena_size);
  assert_string_equal(r.error, want);
  assert_int_equal(utvm_runner_invoke(&r), UTVM_ERR_RUNNER_ARGUMENT);
  assert_string_equal(r.error, "runner not initialised");

  /* Too small by one byte, then misaligned, then right. */
  uint8_t *arena = (uint8_t *)malloc(arena_size + 16u);
  assert_non_null(arena);
  assert_int_equal(utvm_runner_init(&r, &m, ws, ws_size, arena, arena_size - 1u),
                   UTVM_ERR_RUNNER_ARENA);
  assert_int_equal(utvm_runner_init(&r, &m, ws, ws_size, &arena[1], arena_size),
                   UTVM_ERR_RUNNER_ARENA);
  assert_string_equal(r.error, "arena: not 16-byte aligned");
  /* An unaligned workspace is fine (it is aligned inside, with the slack counted). */
  uint8_t *ws2 = (uint8_t *)malloc(ws_size + 1u);
  assert_non_null(ws2);
  assert_int_equal(utvm_runner_init(&r, &m, &ws2[1], ws_size, arena, arena_size), UTVM_OK);
  assert_string_equal(r.error, "");

  /* Accessors and invoke_operator reject out-of-range indices. */
  assert_int_equal(utvm_runner_input(&r, 1u, &t), UTVM_ERR_RUNNER_ARGUMENT);
  assert_int_equal(utvm_runner_output(&r, 1u, &t), UTVM_ERR_RUNNER_ARGUMENT);
  assert_int_equal(utvm_runner_tensor(&r, m.n_tensors, &t), UTVM_ERR_RUNNER_ARGUMENT);
  assert_int_equal(utvm_runner_input(&r, 0u, NULL), UTVM_ERR_RUNNER_ARGUMENT);
  assert_int_equal(utvm_runner_invoke_operator(&r, r.n_operators), UTVM_ERR_RUNNER_ARGUMENT);
  assert_string_equal(r.error, "operator index out of range");

  /* Step by step gives the same as invoke. */
  assert_int_equal(utvm_runner_input(&r, 0u, &t), UTVM_OK);
  assert_int_equal(t.type, UTVM_MODEL_INT8);
  assert_int_equal(t.bytes, 1u);
  *(int8_t *)t.data = -63;
  for (uint32_t k = 0u; k < r.n_operators; k++) {
    assert_int_equal(utvm_runner_invoke_operator(&r, k), UTVM_OK);
  }
  assert_int_equal(utvm_runner_output(&r, 0u, &t), UTVM_OK);
  assert_int_equal(*(const int8_t *)t.const_data, 125);
  assert_true(t.scale > 0.0f);
  assert_int_equal(t.zero_point, 5);

  /* A constant tensor is described read-only. */
  for (uint32_t i = 0u; i < m.n_tensors; i++) {
    utvm_model_tensor_t mt;
    assert_int_equal(utvm_model_tensor(&m, i, &mt), UTVM_OK);
    if (mt.data != NULL) {
      assert_int_equal(utvm_runner_tensor(&r, i, &t), UTVM_OK);
      assert_null(t.data);
      assert_ptr_equal(t.const_data, mt.data);
      break;
    }
  }
  free(ws2);
  free(arena);
  free(ws);
  free(data);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_refdata_pairs),
      cmocka_unit_test(test_refdata_pairs_patches),
      cmocka_unit_test(test_ops_pairs),
      cmocka_unit_test(test_ops_pairs_patches),
      cmocka_unit_test(test_op_case_pairs),
      cmocka_unit_test(test_state_persists_and_resets),
      cmocka_unit_test(test_memory_below_tflm),
      cmocka_unit_test(test_argument_errors),
      cmocka_unit_test(test_resolver),
      cmocka_unit_test(test_views_split),
      cmocka_unit_test(test_views_concatenation),
      cmocka_unit_test(test_views_split_then_concatenation),
      cmocka_unit_test(test_float_operands),
      cmocka_unit_test(test_float_padv2),
      cmocka_unit_test(test_float_op_params),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Standalone models (utvm_add_model: the code of `utvm compile -o DIR --name NET`) run through
 * the ai_ API: all seven models (IO in buffers of their own) and KWS once more with
 * --io-in-activations are linked into this one program and each gives TensorFlow Lite Micro's
 * output byte for byte on its reference input, in an activations buffer of exactly
 * activations_size bytes and IO buffers of exactly their sizes (one byte fewer is refused with
 * the size in the error); two instances of one model with separate activations; the built-in
 * buffers; argument errors of every call, each failure on a live handle in that instance's error.
 */
#define _POSIX_C_SOURCE 200112L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ad.h"
#include "ad_rq.h"
#include "hello.h"
#include "ic.h"
#include "ic_rq.h"
#include "kws.h"
#include "kws_shared.h"
#include "person.h"
#include "person_patches.h"
#include "speech.h"
#include "speech_patches.h"
#include "utvm/ai.h"
#include "vww.h"
#include "vww_patches.h"

#define REF UTVM_SHARED_DIR "/models/refdata/"
#define MAX_FILE (256u * 1024u)

typedef struct {
  const ai_model *model;
  const char *input;
  const char *output;
} ref_pair_t;

static const ref_pair_t pairs[] = {
    {&ai_model_hello, REF "hello_world/in_-63.bin", REF "hello_world/tflm_in_-63.out0.bin"},
    {&ai_model_speech, REF "micro_speech/yes_1000ms_features_int8.bin",
     REF "micro_speech/yes_1000ms_tflm.out0.bin"},
    {&ai_model_kws, REF "mlperf_tiny/kws_input0_int8.bin",
     REF "mlperf_tiny/kws_input0_int8_tflm.out0.bin"},
    {&ai_model_vww, REF "mlperf_tiny/vww_from_person_bmp_int8.bin",
     REF "mlperf_tiny/vww_from_person_bmp_int8_tflm.out0.bin"},
    {&ai_model_ic, REF "mlperf_tiny/ic_input0_int8.bin",
     REF "mlperf_tiny/ic_input0_int8_tflm.out0.bin"},
    {&ai_model_ad, REF "mlperf_tiny/ad_window0_int8.bin",
     REF "mlperf_tiny/ad_window0_int8_tflm.out0.bin"},
    {&ai_model_person, REF "person_detection/person_input_int8.bin",
     REF "person_detection/person_tflm.out0.bin"},
    {&ai_model_kws_shared, REF "mlperf_tiny/kws_input0_int8.bin",
     REF "mlperf_tiny/kws_input0_int8_tflm.out0.bin"},
    {&ai_model_person_patches, REF "person_detection/no_person_input_int8.bin",
     REF "person_detection/no_person_tflm.out0.bin"},
    {&ai_model_vww_patches, REF "mlperf_tiny/vww_from_no_person_bmp_int8.bin",
     REF "mlperf_tiny/vww_from_no_person_bmp_int8_tflm.out0.bin"},
    {&ai_model_speech_patches, REF "micro_speech/no_1000ms_features_int8.bin",
     REF "micro_speech/no_1000ms_tflm.out0.bin"},
    {&ai_model_ad_rq, REF "mlperf_tiny/ad_window0_int8.bin",
     REF "mlperf_tiny/ad_window0_int8_tflm.out0.bin"},
    {&ai_model_ic_rq, REF "mlperf_tiny/ic_input0_int8.bin",
     REF "mlperf_tiny/ic_input0_int8_tflm.out0.bin"},
};

/* Patches lower the activations (the report's figures, utvm compile --patches). */
typedef char person_patches_smaller[(AI_person_patches_ACTIVATIONS_SIZE < 21256u) ? 1 : -1];
typedef char vww_patches_smaller[(AI_vww_patches_ACTIVATIONS_SIZE < 39168u) ? 1 : -1];
typedef char speech_patches_smaller[(AI_speech_patches_ACTIVATIONS_SIZE < 3656u) ? 1 : -1];

static uint8_t file_buf[MAX_FILE];

static size_t read_file(const char *path, uint8_t *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  size_t n = fread(buf, 1u, cap, f);
  (void)fclose(f);
  return n;
}

/* A heap block of exactly size bytes (16-byte aligned): ASan catches any access past it. */
static uint8_t *exact_block(size_t size) {
  void *p = NULL;
  assert_int_equal(posix_memalign(&p, 16u, size), 0);
  return (uint8_t *)p;
}

/* The IO blocks bind_io made, freed after the tests. */
#define MAX_IO_BLOCKS 64u
static void *io_blocks[MAX_IO_BLOCKS];
static size_t n_io_blocks;

static void *io_block(size_t size) {
  assert_true(n_io_blocks < MAX_IO_BLOCKS);
  io_blocks[n_io_blocks] = exact_block(size);
  return io_blocks[n_io_blocks++];
}

/* Binds exact-size heap buffers to input 0 and output 0 of h when they have buffers of their
 * own and none yet. */
static void bind_io(ai_handle h, const ai_model *m) {
  ai_tensor t;
  assert_int_equal(ai_get_input(h, 0u, &t), UTVM_OK);
  if (m->inputs[0].offset == UTVM_AI_OWN_BUFFER && t.dl.data == NULL) {
    assert_int_equal(ai_set_input(h, 0u, io_block(m->inputs[0].bytes), m->inputs[0].bytes),
                     UTVM_OK);
  }
  assert_int_equal(ai_get_output(h, 0u, &t), UTVM_OK);
  if (m->outputs[0].offset == UTVM_AI_OWN_BUFFER && t.dl.data == NULL) {
    assert_int_equal(ai_set_output(h, 0u, io_block(m->outputs[0].bytes), m->outputs[0].bytes),
                     UTVM_OK);
  }
}

/* Writes the input of pair, runs h and compares output 0 with the reference. */
static void run_and_check(ai_handle h, const ref_pair_t *pair) {
  ai_tensor in;
  ai_tensor out;
  uint32_t n = 0u;
  assert_int_equal(ai_get_input_size(h, &n), UTVM_OK);
  assert_int_equal(n, 1u);
  bind_io(h, pair->model);
  assert_int_equal(ai_get_input(h, 0u, &in), UTVM_OK);
  assert_int_equal(read_file(pair->input, file_buf, sizeof(file_buf)), in.bytes);
  (void)memcpy(in.dl.data, file_buf, in.bytes);
  assert_int_equal(ai_run(h), UTVM_OK);
  assert_int_equal(ai_get_output_size(h, &n), UTVM_OK);
  assert_int_equal(n, 1u);
  assert_int_equal(ai_get_output(h, 0u, &out), UTVM_OK);
  assert_int_equal(read_file(pair->output, file_buf, sizeof(file_buf)), out.bytes);
  assert_memory_equal(out.dl.data, file_buf, out.bytes);
}

static void test_models_bit_exact_in_exact_memory(void **state) {
  (void)state;
  for (size_t i = 0u; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
    const ai_model *m = pairs[i].model;
    ai_handle h = NULL;
    size_t size = 0u;
    uint8_t *act = exact_block(m->activations_size);
    assert_int_equal(ai_create(m, act, m->activations_size, &h), UTVM_OK);
    assert_int_equal(ai_get_activations_size(h, &size), UTVM_OK);
    assert_int_equal(size, m->activations_size);
    run_and_check(h, &pairs[i]);
    assert_int_equal(ai_destroy(h), UTVM_OK);
    free(act);
  }
}

static void test_one_byte_fewer_refused(void **state) {
  (void)state;
  for (size_t i = 0u; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
    const ai_model *m = pairs[i].model;
    ai_handle h = (ai_handle)&h;
    ai_error e;
    char want[64];
    uint8_t *act = exact_block(m->activations_size);
    assert_int_equal(ai_create(m, act, m->activations_size - 1u, &h), UTVM_ERR_AI_ACTIVATIONS);
    assert_null(h);
    assert_int_equal(ai_get_error(NULL, &e), UTVM_OK);
    assert_int_equal(e.code, UTVM_ERR_AI_ACTIVATIONS);
    (void)snprintf(want, sizeof(want), "the model needs %zu", m->activations_size);
    assert_non_null(strstr(e.text, want));
    free(act);
  }
}

static void test_two_instances(void **state) {
  (void)state;
  const ref_pair_t *kws = &pairs[2];
  uint8_t *act1 = exact_block(AI_kws_ACTIVATIONS_SIZE);
  uint8_t *act2 = exact_block(AI_kws_ACTIVATIONS_SIZE);
  ai_handle h1 = NULL;
  ai_handle h2 = NULL;
  ai_tensor in2;
  ai_tensor out1;
  ai_tensor out2;
  uint8_t first[16];
  assert_int_equal(ai_kws_create(act1, AI_kws_ACTIVATIONS_SIZE, &h1), UTVM_OK);
  assert_int_equal(ai_create(&ai_model_kws, act2, AI_kws_ACTIVATIONS_SIZE, &h2), UTVM_OK);
  assert_ptr_not_equal(h1, h2);
  bind_io(h1, &ai_model_kws);
  bind_io(h2, &ai_model_kws);
  /* instance 2 holds a different input: its run must not disturb instance 1 */
  assert_int_equal(ai_get_input(h2, 0u, &in2), UTVM_OK);
  (void)memset(in2.dl.data, 0x11, in2.bytes);
  run_and_check(h1, kws);
  assert_int_equal(ai_get_output(h1, 0u, &out1), UTVM_OK);
  (void)memcpy(first, out1.dl.data, out1.bytes);
  assert_int_equal(ai_kws_run(h2), UTVM_OK);
  assert_int_equal(ai_get_output(h2, 0u, &out2), UTVM_OK);
  assert_ptr_not_equal(out1.dl.data, out2.dl.data);
  assert_memory_not_equal(out2.dl.data, first, out2.bytes);
  assert_memory_equal(out1.dl.data, first, out1.bytes);
  run_and_check(h2, kws);
  assert_int_equal(ai_kws_destroy(h1), UTVM_OK);
  assert_int_equal(ai_destroy(h2), UTVM_OK);
  free(act1);
  free(act2);
}

static void test_builtin_activations(void **state) {
  (void)state;
  ai_handle h = NULL;
  uint8_t *act = NULL;
  ai_tensor t;
  assert_non_null(ai_model_hello.builtin_activations);
  assert_null(ai_model_kws.builtin_activations);
  assert_int_equal(ai_create(&ai_model_hello, NULL, 0u, &h), UTVM_OK);
  assert_int_equal(ai_get_activations(h, &act), UTVM_OK);
  assert_ptr_equal(act, ai_hello_activations);
  /* the built-in IO buffers are bound from the start */
  assert_int_equal(ai_get_input(h, 0u, &t), UTVM_OK);
  assert_ptr_equal(t.dl.data, ai_hello_in0);
  assert_int_equal(ai_get_output(h, 0u, &t), UTVM_OK);
  assert_ptr_equal(t.dl.data, ai_hello_out0);
  assert_int_equal(AI_hello_IN_0_SIZE, ai_model_hello.inputs[0].bytes);
  run_and_check(h, &pairs[0]);
  assert_int_equal(ai_destroy(h), UTVM_OK);
  /* a model without one needs a buffer */
  assert_int_equal(ai_create(&ai_model_kws, NULL, 0u, &h), UTVM_ERR_AI_ACTIVATIONS);
}

static void test_descriptor(void **state) {
  (void)state;
  ai_handle h = NULL;
  const uint8_t *params = NULL;
  size_t size = 0u;
  assert_int_equal(ai_model_kws.api_version, UTVM_AI_API_VERSION);
  assert_string_equal(ai_model_kws.name, "kws");
  assert_string_equal(ai_model_kws.model_name, "mlperf_tiny_kws_dscnn_int8.tflite");
  assert_string_equal(ai_model_kws.date, "");
  assert_int_equal(ai_model_kws.n_nodes, AI_kws_NODES);
  assert_int_equal(ai_model_kws.activations_size, AI_kws_ACTIVATIONS_SIZE);
  assert_int_equal(((uintptr_t)ai_kws_params) % 16u, 0u);
  assert_int_equal(ai_model_kws.inputs[0].dtype.code, kDLInt);
  assert_int_equal(ai_model_kws.inputs[0].ndim, 4u);
  uint8_t *act = exact_block(AI_kws_ACTIVATIONS_SIZE);
  assert_int_equal(ai_create(&ai_model_kws, act, AI_kws_ACTIVATIONS_SIZE, &h), UTVM_OK);
  assert_int_equal(ai_get_params(h, &params), UTVM_OK);
  assert_ptr_equal(params, ai_kws_params);
  assert_int_equal(ai_get_params_size(h, &size), UTVM_OK);
  assert_int_equal(size, AI_kws_PARAMS_SIZE);
  ai_tensor in;
  assert_int_equal(AI_kws_IO_IN_ACTIVATIONS, 0);
  assert_int_equal(ai_model_kws.inputs[0].offset, UTVM_AI_OWN_BUFFER);
  assert_null(ai_model_kws.inputs[0].buffer);
  assert_int_equal(ai_get_input(h, 0u, &in), UTVM_OK);
  assert_null(in.dl.data); /* nothing bound yet */
  assert_int_equal(in.dl.ndim, 4);
  assert_int_equal(in.dl.shape[1], 49);
  assert_int_equal(in.zero_point, ai_model_kws.inputs[0].zero_point);
  assert_true(in.scale > 0.0f);
  assert_int_equal(ai_destroy(h), UTVM_OK);
  free(act);
  /* IO sharing: the tensors sit in the activations, which are larger by less than the IO */
  assert_int_equal(AI_kws_shared_IO_IN_ACTIVATIONS, 1);
  assert_true(AI_kws_shared_ACTIVATIONS_SIZE <
              AI_kws_ACTIVATIONS_SIZE + AI_kws_IN_0_SIZE + AI_kws_OUT_0_SIZE);
  act = exact_block(AI_kws_shared_ACTIVATIONS_SIZE);
  assert_int_equal(ai_create(&ai_model_kws_shared, act, AI_kws_shared_ACTIVATIONS_SIZE, &h),
                   UTVM_OK);
  assert_int_equal(ai_get_input(h, 0u, &in), UTVM_OK);
  assert_ptr_equal(in.dl.data, &act[ai_model_kws_shared.inputs[0].offset]);
  assert_int_equal(ai_destroy(h), UTVM_OK);
  free(act);
}

/* Binding inputs and outputs: checks, and ai_run without them. */
static void test_io_binding(void **state) {
  (void)state;
  ai_handle h = NULL;
  ai_error e;
  uint8_t *act = exact_block(AI_kws_ACTIVATIONS_SIZE);
  uint8_t *in = exact_block(AI_kws_IN_0_SIZE + 4u);
  uint8_t *out = exact_block(AI_kws_OUT_0_SIZE);
  assert_int_equal(ai_create(&ai_model_kws, act, AI_kws_ACTIVATIONS_SIZE, &h), UTVM_OK);
  assert_int_equal(ai_run(h), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_get_error(h, &e), UTVM_OK);
  assert_string_equal(e.text, "ai_run: no buffer for input 0 (ai_set_input)");
  assert_int_equal(ai_set_input(h, 0u, in, AI_kws_IN_0_SIZE - 1u), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_get_error(h, &e), UTVM_OK);
  assert_string_equal(e.text, "ai_set_input: 489 bytes, the tensor needs 490");
  assert_int_equal(ai_set_input(h, 0u, &in[1], AI_kws_IN_0_SIZE), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_set_input(h, 0u, NULL, AI_kws_IN_0_SIZE), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_set_input(h, 1u, in, AI_kws_IN_0_SIZE), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_set_output(h, 1u, out, AI_kws_OUT_0_SIZE), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_set_input(NULL, 0u, in, AI_kws_IN_0_SIZE), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_set_input(h, 0u, in, AI_kws_IN_0_SIZE), UTVM_OK);
  assert_int_equal(ai_run(h), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_get_error(h, &e), UTVM_OK);
  assert_string_equal(e.text, "ai_run: no buffer for output 0 (ai_set_output)");
  assert_int_equal(ai_set_output(h, 0u, out, AI_kws_OUT_0_SIZE), UTVM_OK);
  (void)memset(in, 0, AI_kws_IN_0_SIZE);
  assert_int_equal(ai_run(h), UTVM_OK);
  assert_int_equal(ai_destroy(h), UTVM_OK);
  /* a tensor inside the activations cannot be rebound */
  free(act);
  act = exact_block(AI_kws_shared_ACTIVATIONS_SIZE);
  assert_int_equal(ai_create(&ai_model_kws_shared, act, AI_kws_shared_ACTIVATIONS_SIZE, &h),
                   UTVM_OK);
  assert_int_equal(ai_set_input(h, 0u, in, AI_kws_IN_0_SIZE), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_get_error(h, &e), UTVM_OK);
  assert_non_null(strstr(e.text, "lives in the activations"));
  assert_int_equal(ai_destroy(h), UTVM_OK);
  free(act);
  free(in);
  free(out);
}

static void test_argument_errors(void **state) {
  (void)state;
  ai_handle h = NULL;
  ai_handle dead = NULL;
  ai_tensor t;
  ai_error e;
  uint32_t n = 0u;
  size_t size = 0u;
  uint8_t *act = NULL;
  const uint8_t *params = NULL;
  uint8_t *buf = exact_block(AI_kws_ACTIVATIONS_SIZE + 16u);
  ai_model bad = ai_model_kws;
  /* create */
  assert_int_equal(ai_create(&ai_model_kws, buf, AI_kws_ACTIVATIONS_SIZE, NULL),
                   UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_create(NULL, buf, AI_kws_ACTIVATIONS_SIZE, &h), UTVM_ERR_AI_ARGUMENT);
  assert_null(h);
  bad.api_version = 99u;
  assert_int_equal(ai_create(&bad, buf, AI_kws_ACTIVATIONS_SIZE, &h), UTVM_ERR_AI_MODEL);
  bad = ai_model_kws;
  bad.network = NULL;
  assert_int_equal(ai_create(&bad, buf, AI_kws_ACTIVATIONS_SIZE, &h), UTVM_ERR_AI_MODEL);
  assert_int_equal(ai_create(&ai_model_kws, &buf[1], AI_kws_ACTIVATIONS_SIZE, &h),
                   UTVM_ERR_AI_ACTIVATIONS);
  assert_int_equal(ai_get_error(NULL, &e), UTVM_OK);
  assert_non_null(strstr(e.text, "aligned"));
  /* pool exhaustion */
  ai_handle all[UTVM_AI_MAX_INSTANCES];
  for (uint32_t i = 0u; i < UTVM_AI_MAX_INSTANCES; i++) {
    assert_int_equal(ai_create(&ai_model_kws, buf, AI_kws_ACTIVATIONS_SIZE, &all[i]), UTVM_OK);
  }
  assert_int_equal(ai_create(&ai_model_kws, buf, AI_kws_ACTIVATIONS_SIZE, &h),
                   UTVM_ERR_AI_INSTANCES);
  for (uint32_t i = 0u; i < UTVM_AI_MAX_INSTANCES; i++) {
    assert_int_equal(ai_destroy(all[i]), UTVM_OK);
  }
  dead = all[0];
  /* every call with a handle that is not live, and with NULL outputs */
  assert_int_equal(ai_create(&ai_model_kws, buf, AI_kws_ACTIVATIONS_SIZE, &h), UTVM_OK);
  const ai_handle handles[3] = {NULL, (ai_handle)(void *)&n, dead == h ? NULL : dead};
  for (uint32_t i = 0u; i < 3u; i++) {
    ai_handle x = handles[i];
    assert_int_equal(ai_destroy(x), UTVM_ERR_AI_ARGUMENT);
    assert_int_equal(ai_run(x), UTVM_ERR_AI_ARGUMENT);
    assert_int_equal(ai_get_input_size(x, &n), UTVM_ERR_AI_ARGUMENT);
    assert_int_equal(ai_get_output_size(x, &n), UTVM_ERR_AI_ARGUMENT);
    assert_int_equal(ai_get_input(x, 0u, &t), UTVM_ERR_AI_ARGUMENT);
    assert_int_equal(ai_get_output(x, 0u, &t), UTVM_ERR_AI_ARGUMENT);
    assert_int_equal(ai_get_activations(x, &act), UTVM_ERR_AI_ARGUMENT);
    assert_int_equal(ai_get_activations_size(x, &size), UTVM_ERR_AI_ARGUMENT);
    assert_int_equal(ai_get_params(x, &params), UTVM_ERR_AI_ARGUMENT);
    assert_int_equal(ai_get_params_size(x, &size), UTVM_ERR_AI_ARGUMENT);
    if (x != NULL) {
      assert_int_equal(ai_get_error(x, &e), UTVM_ERR_AI_ARGUMENT);
    }
  }
  assert_int_equal(ai_get_error(NULL, &e), UTVM_OK);
  assert_int_equal(e.code, UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_get_input_size(h, NULL), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_get_output_size(h, NULL), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_get_input(h, 1u, &t), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_get_input(h, 0u, NULL), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_get_output(h, 1u, &t), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_get_output(h, 0u, NULL), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_get_activations(h, NULL), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_get_activations_size(h, NULL), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_get_params(h, NULL), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_get_params_size(h, NULL), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_get_error(h, NULL), UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_get_error(h, &e), UTVM_OK);
  assert_int_equal(e.code, UTVM_ERR_AI_ARGUMENT);
  assert_string_equal(e.text, "ai_get_params_size: size is NULL");
  assert_int_equal(ai_destroy(h), UTVM_OK);
  assert_int_equal(ai_destroy(h), UTVM_ERR_AI_ARGUMENT);
  free(buf);
}

/* got is UTVM_ERR_AI_ARGUMENT and h's error holds it with text. */
static void expect_instance_error(ai_handle h, utvm_err_t got, const char *text) {
  ai_error e;
  assert_int_equal(got, UTVM_ERR_AI_ARGUMENT);
  assert_int_equal(ai_get_error(h, &e), UTVM_OK);
  assert_int_equal(e.code, UTVM_ERR_AI_ARGUMENT);
  assert_string_equal(e.text, text);
}

/* A failed call on a live handle sets that instance's error, never the library's, and a later
 * success of ai_set_input / ai_set_output clears it (docs/AI.md). */
static void test_instance_errors(void **state) {
  (void)state;
  ai_handle h = NULL;
  ai_handle other = NULL;
  ai_tensor t;
  ai_error e;
  uint8_t *act = exact_block(AI_kws_ACTIVATIONS_SIZE);
  uint8_t *act2 = exact_block(AI_kws_ACTIVATIONS_SIZE);
  uint8_t *in = exact_block(AI_kws_IN_0_SIZE);
  uint8_t *out = exact_block(AI_kws_OUT_0_SIZE);
  assert_int_equal(ai_create(&ai_model_kws, act, AI_kws_ACTIVATIONS_SIZE, &h), UTVM_OK);
  assert_int_equal(ai_create(&ai_model_kws, act2, AI_kws_ACTIVATIONS_SIZE, &other), UTVM_OK);
  /* the library's error holds a text of its own that no instance call may replace */
  assert_int_equal(ai_destroy(NULL), UTVM_ERR_AI_ARGUMENT);
  expect_instance_error(h, ai_get_output(h, 5u, &t),
                        "ai_get_output: index 5 out of range (1 outputs)");
  expect_instance_error(h, ai_get_input(h, 1u, &t), "ai_get_input: index 1 out of range (1 inputs)");
  expect_instance_error(h, ai_get_input(h, 0u, NULL), "ai_get_input: tensor is NULL");
  expect_instance_error(h, ai_set_input(h, 3u, in, AI_kws_IN_0_SIZE),
                        "ai_set_input: index 3 out of range (1 inputs)");
  expect_instance_error(h, ai_set_output(h, 0u, out, AI_kws_OUT_0_SIZE - 1u),
                        "ai_set_output: 11 bytes, the tensor needs 12");
  expect_instance_error(h, ai_set_output(h, 0u, NULL, AI_kws_OUT_0_SIZE),
                        "ai_set_output: data is NULL or not 4-byte aligned");
  expect_instance_error(h, ai_get_input_size(h, NULL), "ai_get_input_size: n_inputs is NULL");
  expect_instance_error(h, ai_get_activations(h, NULL), "ai_get_activations: activations is NULL");
  /* neither the library's error nor the other instance's moved */
  assert_int_equal(ai_get_error(NULL, &e), UTVM_OK);
  assert_string_equal(e.text, "ai_destroy: handle is not live");
  assert_int_equal(ai_get_error(other, &e), UTVM_OK);
  assert_int_equal(e.code, UTVM_OK);
  assert_string_equal(e.text, "");
  /* a successful binding clears the instance's error */
  assert_int_equal(ai_set_output(h, 0u, out, AI_kws_OUT_0_SIZE), UTVM_OK);
  assert_int_equal(ai_get_error(h, &e), UTVM_OK);
  assert_int_equal(e.code, UTVM_OK);
  assert_string_equal(e.text, "");
  assert_int_equal(ai_destroy(other), UTVM_OK);
  assert_int_equal(ai_destroy(h), UTVM_OK);
  free(act);
  free(act2);
  free(in);
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_models_bit_exact_in_exact_memory),
      cmocka_unit_test(test_one_byte_fewer_refused),
      cmocka_unit_test(test_two_instances),
      cmocka_unit_test(test_builtin_activations),
      cmocka_unit_test(test_descriptor),
      cmocka_unit_test(test_io_binding),
      cmocka_unit_test(test_argument_errors),
      cmocka_unit_test(test_instance_errors),
  };
  const int failed = cmocka_run_group_tests(tests, NULL, NULL);
  for (size_t i = 0u; i < n_io_blocks; i++) {
    free(io_blocks[i]);
  }
  return failed;
}

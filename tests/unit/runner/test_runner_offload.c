/*
 * The runner's offload interface (utvm/runner.h: utvm_runner_offload_t) with a fake offload
 * written here: it takes the float32 FULLY_CONNECTED operators of hello_world_float (all three)
 * and runs them with utvm's own kernel on the pointers take was given, so the result must be
 * bit-exact with the runner's. Checked: what is offered and taken (r->n_offloaded), that
 * invoke runs the taken operators through the offload, that operators go back last taken
 * first (deinit, a second offload, NULL), declines, an error of take (text, nothing kept)
 * and bad arguments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "utvm/runner.h"

#include "test_support.h"

#ifndef UTVM_TFLM_FLOAT_DIR
#error "UTVM_TFLM_FLOAT_DIR must name tests/data/tflm_float"
#endif

#define FAKE_MAX_OPS 8u

/* One taken FULLY_CONNECTED: its call and operand places. */
typedef struct {
  utvm_activation_f32_t act;
  int32_t batches;
  int32_t depth;
  int32_t units;
  const float *input;
  const float *weights;
  const float *bias;
  float *output;
} fake_op_t;

typedef struct {
  fake_op_t ops[FAKE_MAX_OPS];
  uint32_t n_taken;
  uint32_t offered;
  uint32_t runs;
  uint32_t released[FAKE_MAX_OPS]; /* indexes of ops[] in release order */
  uint32_t n_released;
  bool decline;
  int32_t fail_at;                 /* operator index whose take fails, -1: none */
  void *handles[FAKE_MAX_OPS];
} fake_t;

static utvm_err_t fake_take(void *ctx, uint32_t index, const utvm_op_params_t *p,
                            const utvm_runner_tensor_t *tensors, utvm_text_t *text,
                            void **handle) {
  fake_t *f = ctx;
  f->offered++;
  if ((int32_t)index == f->fail_at) {
    utvm_text_str(text, "fake: refused");
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (f->decline || (p->kind != UTVM_OP_FULLY_CONNECTED_F32) || (f->n_taken == FAKE_MAX_OPS)) {
    return UTVM_OK;
  }
  assert_int_equal(p->n_inputs, 3u);
  assert_null(tensors[1].data); /* weights and bias: constants */
  assert_null(tensors[2].data);
  assert_non_null(tensors[0].data);
  assert_non_null(tensors[3].data);
  fake_op_t *op = &f->ops[f->n_taken];
  op->act = p->p.act_f32;
  op->batches = p->batches;
  op->depth = p->depth;
  op->units = p->units;
  op->input = tensors[0].data;
  op->weights = tensors[1].const_data;
  op->bias = tensors[2].const_data;
  op->output = tensors[3].data;
  f->n_taken++;
  *handle = op;
  return UTVM_OK;
}

static utvm_err_t fake_run(void *ctx, void *handle) {
  fake_t *f = ctx;
  const fake_op_t *op = handle;
  f->runs++;
  return utvm_fully_connected_f32(&op->act, op->batches, op->depth, op->units, op->input,
                                  op->weights, op->bias, op->output);
}

static void fake_release(void *ctx, void *handle) {
  fake_t *f = ctx;
  f->released[f->n_released] = (uint32_t)((fake_op_t *)handle - f->ops);
  f->n_released++;
}

static uint8_t *load(const char *name, size_t *size) {
  char path[512];
  (void)snprintf(path, sizeof(path), "%s/%s", UTVM_TFLM_FLOAT_DIR, name);
  return test_load_file(path, size);
}

typedef struct {
  uint8_t *bytes;
  utvm_model_t model;
  utvm_runner_t runner;
  uint8_t workspace[4096];
  uint8_t arena[1024] __attribute__((aligned(16)));
} hello_t;

static void hello_open(hello_t *h) {
  size_t size = 0u;
  h->bytes = load("hello_world_float.tflite", &size);
  assert_int_equal(utvm_model_open(&h->model, h->bytes, size), UTVM_OK);
  assert_int_equal(utvm_runner_init(&h->runner, &h->model, h->workspace, sizeof(h->workspace),
                                    h->arena, sizeof(h->arena)),
                   UTVM_OK);
}

/* Output 0 of the runner for input x. */
static float hello_run(hello_t *h, float x) {
  utvm_runner_tensor_t t;
  float y = 0.0f;
  assert_int_equal(utvm_runner_input(&h->runner, 0u, &t), UTVM_OK);
  (void)memcpy(t.data, &x, sizeof(x));
  assert_int_equal(utvm_runner_invoke(&h->runner), UTVM_OK);
  assert_int_equal(utvm_runner_output(&h->runner, 0u, &t), UTVM_OK);
  (void)memcpy(&y, t.const_data, sizeof(y));
  return y;
}

static utvm_runner_offload_t fake_offload(fake_t *f) {
  (void)memset(f, 0, sizeof(*f));
  f->fail_at = -1;
  utvm_runner_offload_t o = {fake_take, fake_run, fake_release, f, f->handles, FAKE_MAX_OPS};
  return o;
}

static void test_offload_takes_and_runs(void **state) {
  (void)state;
  static hello_t h;
  fake_t f;
  utvm_runner_offload_t o = fake_offload(&f);
  hello_open(&h);
  const float want[3] = {hello_run(&h, 0.5f), hello_run(&h, 1.5f), hello_run(&h, -2.0f)};
  assert_int_equal(utvm_runner_offload(&h.runner, &o), UTVM_OK);
  assert_int_equal(f.offered, 3u);
  assert_int_equal(h.runner.n_offloaded, 3u);
  assert_string_equal(h.runner.error, "");
  const float got[3] = {hello_run(&h, 0.5f), hello_run(&h, 1.5f), hello_run(&h, -2.0f)};
  assert_memory_equal(want, got, sizeof(want));
  assert_int_equal(f.runs, 9u);
  /* offered again: the three go back last first, then are taken anew */
  assert_int_equal(utvm_runner_offload(&h.runner, &o), UTVM_OK);
  assert_int_equal(f.n_released, 3u);
  assert_int_equal(f.released[0], 2u);
  assert_int_equal(f.released[2], 0u);
  assert_int_equal(h.runner.n_offloaded, 3u);
  utvm_runner_deinit(&h.runner);
  assert_int_equal(f.n_released, 6u);
  assert_int_equal(h.runner.n_offloaded, 0u);
  assert_int_equal(utvm_runner_invoke(&h.runner), UTVM_ERR_RUNNER_ARGUMENT);
  utvm_runner_deinit(&h.runner);
  assert_int_equal(f.n_released, 6u);
  free(h.bytes);
}

static void test_offload_declines_and_fails(void **state) {
  (void)state;
  static hello_t h;
  fake_t f;
  utvm_runner_offload_t o = fake_offload(&f);
  hello_open(&h);
  const float want = hello_run(&h, 0.25f);
  f.decline = true;
  assert_int_equal(utvm_runner_offload(&h.runner, &o), UTVM_OK);
  assert_int_equal(h.runner.n_offloaded, 0u);
  assert_true(hello_run(&h, 0.25f) == want);
  assert_int_equal(f.runs, 0u);
  /* take of operator 2 fails: the two taken go back, the text names the operator */
  f.decline = false;
  f.fail_at = 2;
  assert_int_equal(utvm_runner_offload(&h.runner, &o), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_string_equal(h.runner.error, "operator 2 (FULLY_CONNECTED): fake: refused");
  assert_int_equal(h.runner.n_offloaded, 0u);
  assert_int_equal(f.n_released, 2u);
  assert_true(hello_run(&h, 0.25f) == want);
  assert_int_equal(f.runs, 0u);
  /* NULL: back to the runner's kernels */
  assert_int_equal(utvm_runner_offload(&h.runner, NULL), UTVM_OK);
  free(h.bytes);
}

static void test_offload_arguments(void **state) {
  (void)state;
  static hello_t h;
  fake_t f;
  utvm_runner_offload_t o = fake_offload(&f);
  utvm_runner_t idle;
  (void)memset(&idle, 0, sizeof(idle));
  assert_int_equal(utvm_runner_offload(NULL, &o), UTVM_ERR_RUNNER_ARGUMENT);
  assert_int_equal(utvm_runner_offload(&idle, &o), UTVM_ERR_RUNNER_ARGUMENT);
  assert_string_equal(idle.error, "runner not initialised");
  hello_open(&h);
  o.n_handles = 2u;
  assert_int_equal(utvm_runner_offload(&h.runner, &o), UTVM_ERR_RUNNER_ARGUMENT);
  assert_non_null(strstr(h.runner.error, "fewer handles than the model's 3 operators"));
  o.n_handles = FAKE_MAX_OPS;
  o.run = NULL;
  assert_int_equal(utvm_runner_offload(&h.runner, &o), UTVM_ERR_RUNNER_ARGUMENT);
  assert_int_equal(f.offered, 0u);
  utvm_runner_deinit(NULL);
  free(h.bytes);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_offload_takes_and_runs),
                                     cmocka_unit_test(test_offload_declines_and_fails),
                                     cmocka_unit_test(test_offload_arguments)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

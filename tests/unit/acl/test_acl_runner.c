/*
 * The runner with the Arm Compute Library's offload (utvm_runner_offload, utvm_acl_offload_*)
 * on every case of tests/data/tflm_float (acl_runner_cases.h, generated from its cases.json):
 * each case's model runs through the runner twice, with its own kernels and with ACL taking
 * what it takes, and both outputs are compared with TFLM's and with each other within
 * ACL_TOLERANCE of max(1, the largest magnitude of the reference) (docs/TFLITE.md; ACL sums in
 * its own order); a case ACL takes nothing of must be bit-exact with the runner's kernels.
 * One line per case gives what ACL took and the largest absolute and relative differences.
 * Also: kws_dscnn_f32 runs mixed (some operators ACL's, some the runner's), a workspace too
 * small for ACL's auxiliary memory fails with a text and leaves the runner usable, and every
 * layer's memory goes back to the workspace.
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

#include "utvm/acl.h"
#include "utvm/runner.h"

#include "test_support.h"

#ifndef UTVM_TFLM_FLOAT_DIR
#error "UTVM_TFLM_FLOAT_DIR must name tests/data/tflm_float"
#endif

typedef struct {
  const char *name;
  const char *model;
  const char *input;
  const char *output;
} acl_case_pair_t;

#include "acl_runner_cases.h"

/* Largest difference allowed, relative to max(1, largest magnitude of the reference). */
#define ACL_TOLERANCE 1e-5
#define ACL_WORKSPACE_BYTES ((size_t)8u << 20)
#define MAX_OPERATORS 64u

static uint8_t *load(const char *name, size_t *size) {
  char path[512];
  (void)snprintf(path, sizeof(path), "%s/%s", UTVM_TFLM_FLOAT_DIR, name);
  return test_load_file(path, size);
}

/* One model in a runner (and, when acl is not NULL, with the offload). */
typedef struct {
  uint8_t *bytes;
  utvm_model_t model;
  utvm_runner_t runner;
  void *workspace;
  void *arena;
  utvm_acl_offload_t *acl;
  utvm_runner_offload_t offload;
  void *acl_workspace;
} acl_run_t;

static void run_open(acl_run_t *r, const char *model) {
  size_t size = 0u;
  (void)memset(r, 0, sizeof(*r));
  r->bytes = load(model, &size);
  assert_int_equal(utvm_model_open(&r->model, r->bytes, size), UTVM_OK);
  const size_t ws = utvm_runner_workspace_size(&r->model);
  r->workspace = malloc(ws);
  assert_non_null(r->workspace);
  assert_int_equal(utvm_runner_init(&r->runner, &r->model, r->workspace, ws, NULL, 0u),
                   UTVM_ERR_RUNNER_ARENA);
  r->arena = malloc(r->runner.arena_size + 16u); /* glibc: 16-byte aligned */
  assert_non_null(r->arena);
  assert_int_equal((uintptr_t)r->arena % UTVM_RUNNER_ARENA_ALIGNMENT, 0u);
  assert_int_equal(utvm_runner_init(&r->runner, &r->model, r->workspace, ws, r->arena,
                                    r->runner.arena_size),
                   UTVM_OK);
}

/* Gives the runner to ACL with a workspace of bytes; the offload's result. */
static utvm_err_t run_offload(acl_run_t *r, size_t bytes) {
  r->acl_workspace = malloc(bytes);
  assert_non_null(r->acl_workspace);
  assert_int_equal(utvm_acl_offload_init(&r->acl, r->acl_workspace, bytes, r->model.n_operators,
                                         1u, &r->offload),
                   UTVM_OK);
  return utvm_runner_offload(&r->runner, &r->offload);
}

static void run_close(acl_run_t *r) {
  utvm_runner_deinit(&r->runner);
  assert_int_equal(utvm_acl_offload_workspace_used(r->acl), 0u);
  utvm_acl_offload_free(r->acl);
  free(r->acl_workspace);
  free(r->arena);
  free(r->workspace);
  free(r->bytes);
}

/* Runs input file input through r; output 0's floats and count. */
static const float *run_input(acl_run_t *r, const char *input, size_t *n) {
  utvm_runner_tensor_t t;
  size_t size = 0u;
  uint8_t *in = load(input, &size);
  assert_int_equal(utvm_runner_input(&r->runner, 0u, &t), UTVM_OK);
  assert_int_equal(size, t.bytes);
  (void)memcpy(t.data, in, size);
  free(in);
  assert_int_equal(utvm_runner_invoke(&r->runner), UTVM_OK);
  assert_int_equal(utvm_runner_output(&r->runner, 0u, &t), UTVM_OK);
  assert_int_equal(t.type, UTVM_MODEL_FLOAT32);
  *n = t.bytes / sizeof(float);
  return (const float *)t.const_data;
}

/* Largest absolute difference of got from want, and it relative to max(1, max |want|). */
static void difference(const float *want, const float *got, size_t n, double *abs_err,
                       double *rel_err) {
  double scale = 1.0;
  *abs_err = 0.0;
  for (size_t i = 0u; i < n; i++) {
    const double d = fabs((double)want[i] - (double)got[i]);
    *abs_err = (d > *abs_err) ? d : *abs_err;
    scale = (fabs((double)want[i]) > scale) ? fabs((double)want[i]) : scale;
  }
  *rel_err = *abs_err / scale;
}

/* Whether ACL should take the single operator of case name (all of the weighted ones and the
 * pools of the set: ACL 20.08 validates each). */
static bool acl_expected(const char *name) {
  static const char *const prefixes[] = {"conv_", "dwconv_", "fc_", "avgpool_", "maxpool_"};
  for (size_t i = 0u; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
    if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0) {
      return true;
    }
  }
  return false;
}

static void test_acl_runner_cases(void **state) {
  (void)state;
  const size_t n_pairs = sizeof(acl_case_pairs) / sizeof(acl_case_pairs[0]);
  double worst = 0.0;
  uint32_t cases = 0u;
  assert_true(n_pairs >= 36u * 3u);
  (void)printf("%-32s %-9s %-12s %-12s %-12s\n", "case", "ACL", "max abs", "max rel",
               "vs runner");
  for (size_t k = 0u; k < n_pairs;) {
    const char *name = acl_case_pairs[k].name;
    acl_run_t plain;
    acl_run_t acl;
    run_open(&plain, acl_case_pairs[k].model);
    run_open(&acl, acl_case_pairs[k].model);
    assert_int_equal(run_offload(&acl, ACL_WORKSPACE_BYTES), UTVM_OK);
    if (acl_expected(name)) {
      assert_int_equal(acl.runner.n_offloaded, 1u);
    }
    double case_abs = 0.0;
    double case_rel = 0.0;
    double case_vs = 0.0;
    for (; (k < n_pairs) && (strcmp(acl_case_pairs[k].name, name) == 0); k++) {
      size_t n = 0u;
      size_t n_plain = 0u;
      size_t want_size = 0u;
      const float *got = run_input(&acl, acl_case_pairs[k].input, &n);
      const float *mine = run_input(&plain, acl_case_pairs[k].input, &n_plain);
      float *want = (float *)(void *)load(acl_case_pairs[k].output, &want_size);
      assert_int_equal(want_size, n * sizeof(float));
      assert_int_equal(n_plain, n);
      double abs_err = 0.0;
      double rel_err = 0.0;
      double vs_abs = 0.0;
      double vs_rel = 0.0;
      difference(want, got, n, &abs_err, &rel_err);
      difference(mine, got, n, &vs_abs, &vs_rel);
      if (acl.runner.n_offloaded == 0u) {
        assert_memory_equal(mine, got, n * sizeof(float));
      }
      case_abs = (abs_err > case_abs) ? abs_err : case_abs;
      case_rel = (rel_err > case_rel) ? rel_err : case_rel;
      case_vs = (vs_rel > case_vs) ? vs_rel : case_vs;
      free(want);
    }
    (void)printf("%-32s %2u of %-3u %-12.3g %-12.3g %-12.3g\n", name, acl.runner.n_offloaded,
                 acl.model.n_operators, case_abs, case_rel, case_vs);
    worst = (case_rel > worst) ? case_rel : worst;
    worst = (case_vs > worst) ? case_vs : worst;
    assert_true(case_rel <= ACL_TOLERANCE);
    assert_true(case_vs <= ACL_TOLERANCE);
    cases++;
    run_close(&acl);
    run_close(&plain);
  }
  (void)printf("%u cases, largest relative difference %.3g (tolerance %g)\n", cases, worst,
               ACL_TOLERANCE);
}

/* kws_dscnn_f32: ACL takes its convolutions, depthwise layers, pool and fully connected layer,
 * the runner keeps RESHAPE and SOFTMAX; layers report their auxiliary memory. */
static void test_acl_runner_mixed(void **state) {
  (void)state;
  acl_run_t r;
  run_open(&r, "kws_dscnn_f32.tflite");
  assert_int_equal(run_offload(&r, ACL_WORKSPACE_BYTES), UTVM_OK);
  assert_true(r.runner.n_offloaded > 0u);
  assert_true(r.runner.n_offloaded < r.runner.n_operators);
  size_t total = 0u;
  for (uint32_t k = 0u; k < r.runner.n_operators; k++) {
    utvm_model_operator_t op;
    assert_int_equal(utvm_model_operator(&r.model, k, &op), UTVM_OK);
    const bool taken = r.offload.handles[k] != NULL;
    (void)printf("operator %2u code %3d: %s, %zu bytes auxiliary\n", k, (int)op.code,
                 taken ? "ACL" : "runner", utvm_acl_offload_layer_bytes(r.acl, k));
    total += utvm_acl_offload_layer_bytes(r.acl, k);
  }
  (void)printf("ACL: %u of %u operators, workspace used %zu bytes (layers %zu)\n",
               r.runner.n_offloaded, r.runner.n_operators, utvm_acl_offload_workspace_used(r.acl),
               total);
  assert_true(utvm_acl_offload_workspace_used(r.acl) >= total);
  /* offered again: what was taken goes back first */
  const uint32_t taken = r.runner.n_offloaded;
  const size_t used = utvm_acl_offload_workspace_used(r.acl);
  assert_int_equal(utvm_runner_offload(&r.runner, &r.offload), UTVM_OK);
  assert_int_equal(r.runner.n_offloaded, taken);
  assert_int_equal(utvm_acl_offload_workspace_used(r.acl), used);
  assert_int_equal(utvm_runner_offload(&r.runner, NULL), UTVM_OK);
  assert_int_equal(r.runner.n_offloaded, 0u);
  assert_int_equal(utvm_acl_offload_workspace_used(r.acl), 0u);
  run_close(&r);
}

/* A workspace too small: a clear error, nothing stays taken, the runner's kernels still run. */
static void test_acl_runner_small_workspace(void **state) {
  (void)state;
  acl_run_t r;
  size_t n = 0u;
  run_open(&r, "kws_dscnn_f32.tflite");
  assert_int_equal(run_offload(&r, 4096u), UTVM_ERR_ACL_MEMORY);
  (void)printf("4096-byte workspace: %s\n", r.runner.error);
  assert_non_null(strstr(r.runner.error, "operator "));
  assert_non_null(strstr(r.runner.error, "workspace of 4096 bytes is too small"));
  assert_int_equal(r.runner.n_offloaded, 0u);
  assert_int_equal(utvm_acl_offload_workspace_used(r.acl), 0u);
  (void)run_input(&r, "kws_dscnn_f32_in0.bin", &n);
  assert_int_equal(n, 12u);
  run_close(&r);
}

/* Bad arguments: a runner not ready, an offload with too few handles. */
static void test_acl_runner_arguments(void **state) {
  (void)state;
  utvm_runner_t idle;
  (void)memset(&idle, 0, sizeof(idle));
  assert_int_equal(utvm_runner_offload(NULL, NULL), UTVM_ERR_RUNNER_ARGUMENT);
  assert_int_equal(utvm_runner_offload(&idle, NULL), UTVM_ERR_RUNNER_ARGUMENT);
  acl_run_t r;
  run_open(&r, "kws_dscnn_f32.tflite");
  r.acl_workspace = malloc(4096u);
  assert_int_equal(utvm_acl_offload_init(&r.acl, r.acl_workspace, 4096u, 1u, 1u, &r.offload),
                   UTVM_OK);
  assert_int_equal(utvm_runner_offload(&r.runner, &r.offload), UTVM_ERR_RUNNER_ARGUMENT);
  assert_non_null(strstr(r.runner.error, "fewer handles"));
  assert_int_equal(utvm_acl_offload_init(NULL, r.acl_workspace, 4096u, 1u, 1u, &r.offload),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  run_close(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_acl_runner_cases), cmocka_unit_test(test_acl_runner_mixed),
      cmocka_unit_test(test_acl_runner_small_workspace),
      cmocka_unit_test(test_acl_runner_arguments)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

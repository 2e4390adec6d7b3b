/*
 * libFuzzer target for the TFLite model reader, the planner and the operators' prepare steps
 * (their option decoders and operand checks, src/ops).
 *
 * Input: the bytes of a .tflite file (no header; seeds: the shipped models, copied to
 * seeds-tflite/ at build time). Checked on every input:
 *  - utvm_model_open either fails with an error text or gives a model whose every accessor
 *    succeeds and whose every pointer (names, constant data, scales, zero points) reads inside
 *    the input (model_exercise touches every byte; ASan watches);
 *  - an opened model either fails utvm_model_plan with an error text or gets a plan that an
 *    independent checker accepts (placement, alignment, no overlap of buffers alive together,
 *    aliases legitimate, arena >= lower bound), with scratch sizes drawn from the input size;
 *  - utvm_runner_init on an opened model (no arena: planning and every operator's prepare),
 *    whole and with patches
 *    fails (no arena is given) with an error text.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "model_check.h"
#include "utvm/model.h"
#include "utvm/runner.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The independent plan check is quadratic: skip it on very large graphs. */
#define CHECK_LIMIT 1024u
/* Largest runner workspace the target allocates. */
#define WORKSPACE_LIMIT (16u * 1024u * 1024u)

/* Plans and prepares every operator of m (no arena), whole and with patches (auto: every
 * candidate stage planned). */
static void prepare_all(utvm_model_t *m) {
  utvm_runner_t r;
  const size_t ws = utvm_runner_workspace_size(m);
  if (ws == SIZE_MAX || ws > WORKSPACE_LIMIT) {
    return;
  }
  void *workspace = malloc(ws + 1u);
  FUZZ_CHECK(workspace != NULL);
  utvm_runner_options_t options = {UTVM_KERNELS_NATIVE, false, &utvm_op_resolver_all,
                                   UTVM_RUNNER_PATCHES_OFF};
  for (uint32_t pass = 0u; pass < 2u; pass++) {
    options.patches = (pass == 0u) ? UTVM_RUNNER_PATCHES_OFF : UTVM_RUNNER_PATCHES_AUTO;
    const utvm_err_t err = utvm_runner_init_with(&r, m, workspace, ws, NULL, 0u, &options);
    FUZZ_CHECK(err != UTVM_OK);
    FUZZ_CHECK(r.error[0] != '\0');
  }
  free(workspace);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  utvm_model_t m;
  uint32_t sum = 0u;
  utvm_err_t err = utvm_model_open(&m, data, size);
  if (err != UTVM_OK) {
    FUZZ_CHECK(m.error[0] != '\0' || data == NULL);
    return 0;
  }
  FUZZ_CHECK(m.error[0] == '\0');
  FUZZ_CHECK(model_exercise(&m, &sum) == NULL);
  if (m.n_tensors <= CHECK_LIMIT && m.n_operators <= CHECK_LIMIT) {
    utvm_err_t plan_err;
    const char *why = model_plan_check(&m, (uint32_t)(size & 0xFFu), 0u, NULL, &plan_err);
    if (why == NULL) {
      why = model_plan_check(&m, (uint32_t)(size & 0xFFu), UTVM_MODEL_PLAN_IO_SEPARATE, NULL,
                             &plan_err);
    }
    if (why != NULL) {
      (void)fprintf(stderr, "plan: %s (%s)\n", why, m.error);
    }
    FUZZ_CHECK(why == NULL);
    prepare_all(&m);
  }
  return 0;
}

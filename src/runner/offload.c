/*
 * The runner's offload (utvm/runner.h: utvm_runner_offload_t): every operator of a ready runner
 * offered once to another implementation, which takes it (a handle) or leaves it to the
 * runner's kernel; invoke runs the taken ones through the offload (runner.c). The runner only
 * describes operators (their op params and tensors) and keeps the handles in the offload's
 * memory: what is behind the callbacks is not its business.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runner_internal.h"
#include "utvm/runner.h"

/* Gives back every taken operator, last first. */
static void give_back(utvm_runner_t *r) {
  const utvm_runner_offload_t *o = r->offload_;
  uint32_t k;
  if (o != NULL) {
    for (k = r->n_operators; k > 0u; k--) {
      if (o->handles[k - 1u] != NULL) {
        o->release(o->ctx, o->handles[k - 1u]);
        o->handles[k - 1u] = NULL;
      }
    }
  }
  r->offload_ = NULL;
  r->n_offloaded = 0u;
}

/* Whether operator k is offered: one kernel call, not in the patch-by-patch stage. */
static bool offered(const utvm_runner_t *r, uint32_t k) {
  uint32_t calls = 0u;
  const bool staged = (r->stage_count > 0u) && (k >= r->stage_first) &&
                      (k < (r->stage_first + r->stage_count));
  return !staged && (utvm_runner_op_calls(r, k, &calls) == UTVM_OK) && (calls == 1u);
}

/* Describes operator k (its op params and operand tensors) and offers it; false when it cannot
 * be described (then it is not offered). */
static bool describe(const utvm_runner_t *r, uint32_t k, utvm_op_params_t *p,
                     utvm_runner_tensor_t *tensors) {
  utvm_op_operands_t operands;
  uint32_t i;
  bool ok = utvm_runner_op_params(r, k, 0u, p, &operands) == UTVM_OK;
  for (i = 0u; ok && (i < operands.n_inputs); i++) {
    ok = utvm_runner_tensor(r, operands.inputs[i], &tensors[i]) == UTVM_OK;
  }
  return ok && (utvm_runner_tensor(r, operands.output, &tensors[operands.n_inputs]) == UTVM_OK);
}

utvm_err_t utvm_runner_offload(utvm_runner_t *r, const utvm_runner_offload_t *offload) {
  utvm_text_t text;
  uint32_t k;
  utvm_err_t err = UTVM_OK;
  if (r == NULL) {
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  utvm_text_init(&text, r->error, sizeof(r->error));
  if (!r->ready_) {
    utvm_text_str(&text, "runner not initialised");
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  give_back(r);
  if (offload == NULL) {
    return UTVM_OK;
  }
  if ((offload->take == NULL) || (offload->run == NULL) || (offload->release == NULL) ||
      (offload->handles == NULL) || (offload->n_handles < r->n_operators)) {
    utvm_text_str(&text, "offload: a callback is NULL or it has fewer handles than the model's ");
    utvm_text_u64(&text, (uint64_t)r->n_operators);
    utvm_text_str(&text, " operators");
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  for (k = 0u; k < r->n_operators; k++) {
    offload->handles[k] = NULL;
  }
  r->offload_ = offload;
  const runner_op_t *ops = (const runner_op_t *)r->ops_;
  for (k = 0u; (k < r->n_operators) && (err == UTVM_OK); k++) {
    utvm_op_params_t p;
    utvm_runner_tensor_t tensors[UTVM_OP_PARAMS_MAX_INPUTS + 1u];
    void *handle = NULL;
    if (offered(r, k) && describe(r, k, &p, tensors)) {
      utvm_text_init(&text, r->error, sizeof(r->error));
      utvm_model_text_operator(&text, k, ops[k].op->code);
      err = offload->take(offload->ctx, k, &p, tensors, &text, &handle);
    }
    if ((err == UTVM_OK) && (handle != NULL)) {
      offload->handles[k] = handle;
      r->n_offloaded++;
    }
  }
  if (err != UTVM_OK) {
    give_back(r);
  } else {
    r->error[0] = '\0';
  }
  return err;
}

void utvm_runner_deinit(utvm_runner_t *r) {
  if (r != NULL) {
    if (r->ready_) {
      give_back(r);
    }
    r->ready_ = false;
  }
}

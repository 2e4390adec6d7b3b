/* Internal to src/runner: the workspace layout, the planner's callback and the patch-by-patch
 * stage (patches.c). */
#ifndef UTVM_RUNNER_INTERNAL_H
#define UTVM_RUNNER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/runner.h"

/* One prepared operator: its descriptor and where its record starts, in bytes from the first
 * record. */
typedef struct {
  const utvm_op_t *op;
  uint32_t record;
} runner_op_t;

typedef struct {
  uint32_t *offsets;
  uint32_t *scratch_offsets;
  runner_op_t *ops;
  uint8_t *region;
  size_t region_size;
} runner_layout_t;

/* What planning asks per operator: the kernels' core and the resolver. */
typedef struct {
  utvm_kernels_core_t core;
  const utvm_op_resolver_t *resolver;
} runner_ops_t;

/* The planner's callback (utvm_model_scratch_fn): the kernels' scratch bytes and the step kind
 * of operator op (ctx: a runner_ops_t). */
utvm_err_t runner_scratch_size(void *ctx, const utvm_model_t *m, uint32_t index,
                               const utvm_model_operator_t *op, size_t *bytes,
                               utvm_plan_step_kind_t *kind, size_t *inplace_bytes);

/* Chooses the patch-by-patch stage for patches (utvm_runner_options_t.patches, not OFF) by
 * planning candidates in l's region: *stage (count 0: none) and its patches into *chosen.
 * Errors: the planner's (m->error written). */
utvm_err_t runner_stage_choose(utvm_model_t *m, runner_ops_t *ops, uint32_t plan_options,
                               uint32_t patches, runner_layout_t *l,
                               utvm_model_stage_t *stage, uint32_t *chosen);

/* Whether the planned stage's output starts at its input's offset. */
bool runner_stage_inplace(const utvm_model_t *m, const utvm_model_stage_t *stage,
                          const uint32_t *offsets);

/* The offsets of the tensors inside stage (outputs of all its operators but the last), which
 * have no memory: while prepare runs (hole true) each gets a place of its own that no arena
 * offset can be (so no operator sees its input and output at one offset); then (hole false)
 * UTVM_PLAN_NO_OFFSET again. */
void runner_stage_hole(const utvm_model_t *m, const utvm_model_stage_t *stage, uint32_t *offsets,
                       bool hole);

/* Runs r's stage (utvm_stage_s8) on its arena. */
utvm_err_t runner_stage_run(const utvm_runner_t *r);

#endif /* UTVM_RUNNER_INTERNAL_H */

/*
 * The runner's patch-by-patch stage: finding the model's first operators that can run as a
 * stage (utvm_stage_s8), choosing how many of them and how many patches by planning each
 * candidate, and running the chosen stage from the operators' prepared records.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runner_internal.h"
#include "utvm/runner.h"

/* The operator's tensor at inputs[0] / outputs[0], or -1. */
static int32_t first_input(const utvm_model_operator_t *op) {
  return (op->n_inputs > 0u) ? op->inputs[0] : -1;
}

static int32_t first_output(const utvm_model_operator_t *op) {
  return (op->n_outputs == 1u) ? op->outputs[0] : -1;
}

/* Whether tensor t is read by exactly one operator, once, and is no graph output. */
static bool read_once(const utvm_model_t *m, int32_t t) {
  uint32_t readers = 0u;
  bool ok = t >= 0;
  for (uint32_t k = 0u; ok && (k < m->n_operators); k++) {
    utvm_model_operator_t op;
    ok = utvm_model_operator(m, k, &op) == UTVM_OK;
    for (uint32_t i = 0u; ok && (i < op.n_inputs); i++) {
      readers += (op.inputs[i] == t) ? 1u : 0u;
    }
  }
  for (uint32_t i = 0u; ok && (i < m->n_outputs); i++) {
    uint32_t out = 0u;
    ok = (utvm_model_output(m, i, &out) == UTVM_OK) && (out != (uint32_t)t);
  }
  return ok && (readers == 1u);
}

/* Whether operator op only views its input (RESHAPE, SQUEEZE, EXPAND_DIMS: nothing computed). */
static bool is_view(const utvm_model_operator_t *op) {
  return (op->code == UTVM_MODEL_OP_RESHAPE) || (op->code == UTVM_MODEL_OP_SQUEEZE) ||
         (op->code == UTVM_MODEL_OP_EXPAND_DIMS);
}

/* The layers the model's first operators (after any views) can form, their shapes into
 * shapes[] and the first one's index into *first; returns how many (0: none). A
 * FULLY_CONNECTED ends them, as their tail. */
static uint32_t stage_chain(const utvm_model_t *m, const runner_ops_t *ops,
                            utvm_stage_shape_t *shapes, uint32_t *first) {
  utvm_model_operator_t op;
  uint32_t k = 0u;
  uint32_t n = 0u;
  int32_t previous = -1;
  bool more = true;
  while ((k < m->n_operators) && (utvm_model_operator(m, k, &op) == UTVM_OK) && is_view(&op)) {
    k++;
  }
  *first = k;
  while (more && ((k + n) < m->n_operators) && (n < UTVM_KERNELS_STAGE_MAX_LAYERS)) {
    utvm_model_tensor_t in;
    more = utvm_model_operator(m, k + n, &op) == UTVM_OK;
    const utvm_op_t *d = more ? utvm_op_resolve(ops->resolver, (int32_t)op.code) : NULL;
    more = (d != NULL) && (d->stage_shape != NULL) && (first_output(&op) >= 0) &&
           (first_input(&op) >= 0) &&
           (utvm_model_tensor(m, (uint32_t)first_input(&op), &in) == UTVM_OK) &&
           (in.data == NULL) && ((n == 0u) || (first_input(&op) == previous)) &&
           d->stage_shape(ops->core, m, &op, &shapes[n]) &&
           (!shapes[n].fully_connected || (n > 0u));
    if (more) {
      previous = first_output(&op);
      more = !shapes[n].fully_connected && read_once(m, previous);
      n++;
    }
  }
  return n;
}

/* The stage of n layers from operator first with patches into *stage; false when they cannot
 * run so. */
static bool stage_sized(const utvm_stage_shape_t *shapes, uint32_t first, uint32_t n,
                        uint32_t patches, utvm_model_stage_t *stage) {
  size_t whole = 0u;
  size_t inplace = 0u;
  if ((utvm_stage_s8_scratch_size(shapes, n, patches, false, &whole) != UTVM_OK) ||
      (whole > (size_t)UINT32_MAX)) {
    return false;
  }
  (void)memset(stage, 0, sizeof(*stage));
  stage->first = first;
  stage->count = n;
  stage->scratch = (uint32_t)whole;
  stage->inplace_scratch = (uint32_t)whole;
  stage->kind = UTVM_PLAN_STEP_DEFAULT;
  if ((utvm_stage_s8_scratch_size(shapes, n, patches, true, &inplace) == UTVM_OK) &&
      (inplace <= (size_t)UINT32_MAX)) {
    stage->inplace_scratch = (uint32_t)inplace;
    stage->kind = UTVM_PLAN_STEP_INPLACE_GROW;
  }
  return true;
}

/* The arena of m planned with stage (NULL: none) into *arena. */
static utvm_err_t stage_plan(utvm_model_t *m, runner_ops_t *ops, uint32_t plan_options,
                             runner_layout_t *l, const utvm_model_stage_t *stage,
                             size_t *arena) {
  utvm_plan_t plan;
  plan.offsets = l->offsets;
  plan.scratch_offsets = l->scratch_offsets;
  const utvm_err_t err =
      utvm_model_plan_stage(m, runner_scratch_size, ops, plan_options, stage,
                            l->region, l->region_size, &plan);
  *arena = plan.arena_size;
  return err;
}

/* The most rows of any layer's output: patches beyond it change nothing. */
static uint32_t stage_rows(const utvm_stage_shape_t *shapes, uint32_t n) {
  uint32_t rows = 1u;
  for (uint32_t k = 0u; k < n; k++) {
    rows = ((uint32_t)shapes[k].output.h > rows) ? (uint32_t)shapes[k].output.h : rows;
  }
  return rows;
}

utvm_err_t runner_stage_choose(utvm_model_t *m, runner_ops_t *ops, uint32_t plan_options,
                               uint32_t patches, runner_layout_t *l,
                               utvm_model_stage_t *stage, uint32_t *chosen) {
  utvm_stage_shape_t shapes[UTVM_KERNELS_STAGE_MAX_LAYERS];
  utvm_model_stage_t candidate;
  uint32_t first = 0u;
  const uint32_t n = stage_chain(m, ops, shapes, &first);
  size_t best = SIZE_MAX;
  size_t arena = 0u;
  utvm_err_t err = UTVM_OK;
  (void)memset(stage, 0, sizeof(*stage));
  *chosen = 0u;
  if (n == 0u) {
    return UTVM_OK;
  }
  const bool automatic = patches == UTVM_RUNNER_PATCHES_AUTO;
  uint32_t count = automatic ? stage_rows(shapes, n) : patches;
  /* the layers: the count whose arena is smallest (the fewest among equals) */
  for (uint32_t k = 1u; (k <= n) && (err == UTVM_OK); k++) {
    if (stage_sized(shapes, first, k, count, &candidate)) {
      err = stage_plan(m, ops, plan_options, l, &candidate, &arena);
      if ((err == UTVM_OK) && (arena < best)) {
        best = arena;
        *stage = candidate;
      }
    }
  }
  if ((err == UTVM_OK) && automatic && (stage->count > 0u)) {
    /* the fewest patches (powers of two up to one row per call) that reach the same arena */
    const uint32_t most = count;
    bool found = false;
    for (uint32_t p = 1u; (p < most) && !found && (err == UTVM_OK); p *= 2u) {
      if (stage_sized(shapes, first, stage->count, p, &candidate)) {
        err = stage_plan(m, ops, plan_options, l, &candidate, &arena);
        found = (err == UTVM_OK) && (arena <= best);
        count = found ? p : count;
        *stage = found ? candidate : *stage;
      }
    }
    /* and only when it beats planning without a stage */
    if ((err == UTVM_OK) && (stage_plan(m, ops, plan_options, l, NULL, &arena) == UTVM_OK) &&
        (arena <= best)) {
      (void)memset(stage, 0, sizeof(*stage));
    }
  }
  *chosen = (stage->count > 0u) ? count : 0u;
  return err;
}

/* The tensor the stage reads (its first operator's input 0) and the one it writes. */
static bool stage_ends(const utvm_model_t *m, const utvm_model_stage_t *stage, uint32_t *in,
                       uint32_t *out) {
  utvm_model_operator_t first;
  utvm_model_operator_t last;
  const bool ok = (stage->count > 0u) &&
                  (utvm_model_operator(m, stage->first, &first) == UTVM_OK) &&
                  (utvm_model_operator(m, stage->first + stage->count - 1u, &last) == UTVM_OK) &&
                  (first_input(&first) >= 0) && (first_output(&last) >= 0);
  *in = ok ? (uint32_t)first_input(&first) : 0u;
  *out = ok ? (uint32_t)first_output(&last) : 0u;
  return ok;
}

bool runner_stage_inplace(const utvm_model_t *m, const utvm_model_stage_t *stage,
                          const uint32_t *offsets) {
  uint32_t in = 0u;
  uint32_t out = 0u;
  return stage_ends(m, stage, &in, &out) && (offsets[in] == offsets[out]);
}

void runner_stage_hole(const utvm_model_t *m, const utvm_model_stage_t *stage, uint32_t *offsets,
                       bool hole) {
  for (uint32_t k = 0u; (k + 1u) < stage->count; k++) {
    utvm_model_operator_t op;
    if ((utvm_model_operator(m, stage->first + k, &op) == UTVM_OK) && (first_output(&op) >= 0)) {
      /* below UTVM_PLAN_NO_OFFSET, above any arena offset (an arena is below 4 GiB - 16) */
      offsets[first_output(&op)] = hole ? (UTVM_PLAN_NO_OFFSET - 1u - k) : UTVM_PLAN_NO_OFFSET;
    }
  }
}

utvm_err_t runner_stage_run(const utvm_runner_t *r) {
  utvm_stage_layer_s8_t layers[UTVM_KERNELS_STAGE_MAX_LAYERS];
  utvm_model_stage_t stage;
  uint32_t in = 0u;
  uint32_t out = 0u;
  const runner_op_t *ops = (const runner_op_t *)r->ops_;
  (void)memset(&stage, 0, sizeof(stage));
  stage.first = r->stage_first;
  stage.count = r->stage_count;
  if ((stage.count > UTVM_KERNELS_STAGE_MAX_LAYERS) || !stage_ends(r->model_, &stage, &in, &out) ||
      (r->offsets_[in] == UTVM_PLAN_NO_OFFSET) || (r->offsets_[out] == UTVM_PLAN_NO_OFFSET)) {
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  for (uint32_t k = 0u; k < stage.count; k++) {
    const runner_op_t *op = &ops[stage.first + k];
    if (op->op->stage_layer == NULL) {
      return UTVM_ERR_RUNNER_ARGUMENT;
    }
    op->op->stage_layer(&r->records_[op->record], &layers[k]);
  }
  const uint32_t scratch = r->scratch_offsets_[stage.first];
  uint8_t *arena = r->arena_;
  const int8_t *input = (const int8_t *)(const void *)&arena[r->offsets_[in]];
  int8_t *output = (int8_t *)(void *)&arena[r->offsets_[out]];
  return utvm_stage_s8(layers, stage.count, r->patches, input, output,
                       (scratch == UTVM_PLAN_NO_OFFSET) ? NULL : &r->arena_[scratch],
                       r->stage_scratch);
}

/*
 * The model runner: workspace layout, planning (with the kernels' scratch sizes), preparing
 * every operator once, tensor access and invocation.
 *
 * Workspace: [tensor offsets][scratch offsets][operators][region], where the region first
 * holds the planner's working memory and then, once the plan is made, the operators' records
 * (so it is the larger of the two). Offsets are 32-bit (the planner's); each operator entry is
 * its descriptor (utvm/ops.h) and its record's position in the region. Everything about one
 * operator is in its operator file (src/ops); the runner only lays out, plans and calls.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runner_internal.h"
#include "utvm/runner.h"

/* Records in the workspace start at multiples of this. */
#define RUNNER_ALIGN UTVM_OP_RECORD_ALIGN

static uint64_t runner_align(uint64_t x) {
  const uint64_t mask = (uint64_t)RUNNER_ALIGN - 1u;
  return (x + mask) & ~mask;
}

/* Bytes of the three tables before the region. */
static uint64_t tables_size(uint32_t n_tensors, uint32_t n_operators) {
  return runner_align((uint64_t)n_tensors * sizeof(uint32_t)) +
         runner_align((uint64_t)n_operators * sizeof(uint32_t)) +
         runner_align((uint64_t)n_operators * sizeof(runner_op_t));
}

/* Bytes of operator op's record, 0 for an operator the resolver lacks (init refuses it). */
static size_t record_size(const utvm_model_t *m, const utvm_op_resolver_t *resolver,
                          const utvm_model_operator_t *op) {
  const utvm_op_t *d = utvm_op_resolve(resolver, (int32_t)op->code);
  return (d != NULL) ? d->record_size(m, op) : 0u;
}

/* Bytes of every operator's record; SIZE_MAX if one cannot be decoded. */
static uint64_t records_size(const utvm_model_t *m, const utvm_op_resolver_t *resolver) {
  uint64_t total = 0u;
  uint32_t k;
  for (k = 0u; k < m->n_operators; k++) {
    utvm_model_operator_t op;
    size_t size = SIZE_MAX;
    if (utvm_model_operator(m, k, &op) == UTVM_OK) {
      size = record_size(m, resolver, &op);
    }
    if (size == SIZE_MAX) {
      return (uint64_t)SIZE_MAX;
    }
    total += (uint64_t)size;
  }
  return total;
}

/* utvm_runner_workspace_size_with(), for init. */
static size_t workspace_bytes(const utvm_model_t *m, const utvm_op_resolver_t *resolver) {
  if ((m == NULL) || (resolver == NULL)) {
    return SIZE_MAX;
  }
  const size_t plan = utvm_model_plan_workspace_size(m);
  if (plan == SIZE_MAX) {
    return SIZE_MAX;
  }
  const uint64_t records = records_size(m, resolver);
  if (records >= (uint64_t)SIZE_MAX) {
    return SIZE_MAX;
  }
  const uint64_t region = ((uint64_t)plan > records) ? (uint64_t)plan : records;
  const uint64_t total = RUNNER_ALIGN + tables_size(m->n_tensors, m->n_operators) + region;
  return (total >= (uint64_t)SIZE_MAX) ? SIZE_MAX : (size_t)total;
}

size_t utvm_runner_workspace_size_with(const utvm_model_t *m, const utvm_op_resolver_t *resolver) {
  return workspace_bytes(m, resolver);
}

static void runner_carve(runner_layout_t *l, void *workspace, size_t size, uint32_t n_tensors,
                  uint32_t n_operators) {
  uint8_t *p = (uint8_t *)workspace;
  const size_t pad = (size_t)((0u - (uintptr_t)p) & (RUNNER_ALIGN - 1u));
  size_t at = pad;
  void *v = &p[at];
  l->offsets = (uint32_t *)v;
  at += (size_t)runner_align((uint64_t)n_tensors * sizeof(uint32_t));
  v = &p[at];
  l->scratch_offsets = (uint32_t *)v;
  at += (size_t)runner_align((uint64_t)n_operators * sizeof(uint32_t));
  v = &p[at];
  l->ops = (runner_op_t *)v;
  at += (size_t)runner_align((uint64_t)n_operators * sizeof(runner_op_t));
  l->region = &p[at];
  l->region_size = size - at;
}

utvm_err_t runner_scratch_size(void *ctx, const utvm_model_t *m, uint32_t index,
                               const utvm_model_operator_t *op, size_t *bytes,
                               utvm_plan_step_kind_t *kind, size_t *inplace_bytes) {
  const runner_ops_t *ops = (const runner_ops_t *)ctx;
  const utvm_op_t *d = utvm_op_resolve(ops->resolver, (int32_t)op->code);
  *bytes = ((d != NULL) && (d->scratch_size != NULL)) ? d->scratch_size(ops->core, m, op) : 0u;
  *inplace_bytes = *bytes;
  if ((d != NULL) && (d->plan_kind != NULL)) {
    *kind = d->plan_kind(m, index, op);
  }
  if ((d != NULL) && (d->inplace_scratch_size != NULL)) {
    *inplace_bytes = d->inplace_scratch_size(ops->core, m, op);
  }
  return UTVM_OK;
}

/* Prepares every operator into the region, after planning. */
static utvm_err_t prepare_all(const utvm_model_t *m, const utvm_op_resolver_t *resolver,
                              const runner_layout_t *l, utvm_text_t *text) {
  utvm_op_context_t ctx;
  uint64_t at = 0u;
  uint32_t k;
  utvm_err_t err = UTVM_OK;
  ctx.model = m;
  ctx.offsets = l->offsets;
  ctx.text = text;
  for (k = 0u; (k < m->n_operators) && (err == UTVM_OK); k++) {
    utvm_model_operator_t op;
    size_t size = SIZE_MAX;
    const utvm_op_t *d = NULL;
    err = utvm_model_operator(m, k, &op);
    if (err == UTVM_OK) {
      d = utvm_op_resolve(resolver, (int32_t)op.code);
      size = (d != NULL) ? d->record_size(m, &op) : SIZE_MAX;
    }
    if ((err == UTVM_OK) && (d == NULL)) {
      utvm_model_text_operator(text, k, (int32_t)op.code);
      utvm_text_str(text, "not in the runner's operator resolver");
      err = UTVM_ERR_RUNNER_UNSUPPORTED;
    } else if ((err != UTVM_OK) || (size == SIZE_MAX) ||
               ((at + (uint64_t)size) > l->region_size) || (at > (uint64_t)UINT32_MAX)) {
      utvm_model_text_operator(text, k, (err == UTVM_OK) ? (int32_t)op.code : -1);
      utvm_text_str(text, "cannot be decoded");
      err = UTVM_ERR_RUNNER_OPERANDS;
    } else {
      ctx.op = &op;
      ctx.index = k;
      ctx.scratch = l->scratch_offsets[k];
      err = utvm_op_prepare(d, &ctx, &l->region[at], size);
      l->ops[k].op = d;
      l->ops[k].record = (uint32_t)at;
      at += (uint64_t)size;
    }
  }
  return err;
}

static utvm_err_t fail_size(utvm_text_t *text, utvm_err_t err, const char *what, size_t given,
                            size_t needed) {
  utvm_text_str(text, what);
  utvm_text_str(text, ": ");
  utvm_text_u64(text, (uint64_t)given);
  utvm_text_str(text, " bytes given, the model needs ");
  utvm_text_u64(text, (uint64_t)needed);
  return err;
}

utvm_err_t utvm_runner_init_with(utvm_runner_t *r, utvm_model_t *m, void *workspace,
                                 size_t workspace_size, void *arena, size_t arena_size,
                                 const utvm_runner_options_t *options) {
  utvm_text_t text;
  runner_layout_t l;
  utvm_plan_t plan;
  runner_ops_t ops;
  uint32_t plan_options = 0u;
  if (r == NULL) {
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  (void)memset(r, 0, sizeof(*r));
  utvm_text_init(&text, r->error, sizeof(r->error));
  if ((m == NULL) || (workspace == NULL)) {
    utvm_text_str(&text, "model or workspace is NULL");
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  if ((options == NULL) || (options->resolver == NULL)) {
    utvm_text_str(&text, "options: no operator resolver (utvm_op_resolver_all has every one)");
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  if ((options->core != UTVM_KERNELS_PORTABLE) && (options->core != UTVM_KERNELS_DSP) &&
      (options->core != UTVM_KERNELS_MVE)) {
    utvm_text_str(&text, "options: unknown kernels core");
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  ops.core = options->core;
  ops.resolver = options->resolver;
  plan_options = options->io_separate ? UTVM_MODEL_PLAN_IO_SEPARATE : 0u;
  const size_t needed = workspace_bytes(m, ops.resolver);
  if (needed == SIZE_MAX) {
    utvm_text_str(&text, "the model is not open");
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  if (workspace_size < needed) {
    return fail_size(&text, UTVM_ERR_RUNNER_WORKSPACE, "workspace", workspace_size, needed);
  }
  runner_carve(&l, workspace, workspace_size, m->n_tensors, m->n_operators);
  plan.offsets = l.offsets;
  plan.scratch_offsets = l.scratch_offsets;
  utvm_model_stage_t stage;
  (void)memset(&stage, 0, sizeof(stage));
  utvm_err_t err = UTVM_OK;
  if (options->patches != UTVM_RUNNER_PATCHES_OFF) {
    err = runner_stage_choose(m, &ops, plan_options, options->patches, &l, &stage, &r->patches);
    if (err != UTVM_OK) {
      utvm_text_str(&text, m->error);
      return err;
    }
  }
  err =
      utvm_model_plan_stage(m, runner_scratch_size, &ops, plan_options,
                            (stage.count > 0u) ? &stage : NULL, l.region, l.region_size, &plan);
  if (err != UTVM_OK) {
    utvm_text_str(&text, m->error);
    return err;
  }
  r->arena_size = plan.arena_size;
  r->io_offset = plan.io_offset;
  r->core_ = ops.core;
  r->workspace_size = needed;
  r->n_operators = m->n_operators;
  if (stage.count > 0u) {
    r->stage_first = stage.first;
    r->stage_count = stage.count;
    r->stage_inplace = runner_stage_inplace(m, &stage, l.offsets);
    r->stage_scratch = r->stage_inplace ? stage.inplace_scratch : stage.scratch;
  }
  runner_stage_hole(m, &stage, l.offsets, true); /* its inner tensors: never read by execute */
  err = prepare_all(m, ops.resolver, &l, &text);
  runner_stage_hole(m, &stage, l.offsets, false);
  if (err != UTVM_OK) {
    return err;
  }
  if ((arena == NULL) || (arena_size < plan.arena_size)) {
    return fail_size(&text, UTVM_ERR_RUNNER_ARENA, "arena", (arena == NULL) ? 0u : arena_size,
                     plan.arena_size);
  }
  uint8_t *arena_bytes = (uint8_t *)arena;
  if (((uintptr_t)arena_bytes % UTVM_RUNNER_ARENA_ALIGNMENT) != 0u) {
    utvm_text_str(&text, "arena: not 16-byte aligned");
    return UTVM_ERR_RUNNER_ARENA;
  }
  r->model_ = m;
  r->arena_ = arena_bytes;
  r->offsets_ = l.offsets;
  r->scratch_offsets_ = l.scratch_offsets;
  r->ops_ = l.ops;
  r->records_ = l.region;
  r->ready_ = true;
  return utvm_runner_reset_state(r);
}

utvm_err_t utvm_runner_reset_state(utvm_runner_t *r) {
  uint32_t i;
  utvm_err_t err = ((r == NULL) || !r->ready_) ? UTVM_ERR_RUNNER_ARGUMENT : UTVM_OK;
  for (i = 0u; (err == UTVM_OK) && (i < r->model_->n_tensors); i++) {
    utvm_model_tensor_t t;
    err = utvm_model_tensor(r->model_, i, &t);
    if ((err == UTVM_OK) && t.variable && (r->offsets_[i] != UTVM_PLAN_NO_OFFSET)) {
      const int32_t value = (t.type == UTVM_MODEL_INT8) ? t.quant.zero_point : 0;
      (void)memset(&r->arena_[r->offsets_[i]], value, t.bytes);
    }
  }
  return err;
}

utvm_err_t utvm_runner_tensor(const utvm_runner_t *r, uint32_t index, utvm_runner_tensor_t *t) {
  utvm_model_tensor_t mt;
  uint32_t d;
  if ((r == NULL) || (t == NULL) || !r->ready_ ||
      (utvm_model_tensor(r->model_, index, &mt) != UTVM_OK)) {
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  (void)memset(t, 0, sizeof(*t));
  if (mt.data != NULL) {
    t->const_data = mt.data;
  } else if (r->offsets_[index] != UTVM_PLAN_NO_OFFSET) {
    t->data = &r->arena_[r->offsets_[index]];
    t->const_data = t->data;
  } else {
    return UTVM_ERR_RUNNER_ARGUMENT; /* used by no operator: it has no memory */
  }
  t->bytes = mt.bytes;
  t->tensor = index;
  t->type = mt.type;
  t->rank = mt.rank;
  for (d = 0u; d < UTVM_MODEL_MAX_DIMS; d++) {
    t->dims[d] = mt.dims[d];
  }
  t->scale = mt.quant.scale;
  t->zero_point = mt.quant.zero_point;
  return UTVM_OK;
}

utvm_err_t utvm_runner_input(const utvm_runner_t *r, uint32_t i, utvm_runner_tensor_t *t) {
  uint32_t index = 0u;
  if ((r == NULL) || !r->ready_ || (utvm_model_input(r->model_, i, &index) != UTVM_OK)) {
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  return utvm_runner_tensor(r, index, t);
}

utvm_err_t utvm_runner_output(const utvm_runner_t *r, uint32_t i, utvm_runner_tensor_t *t) {
  uint32_t index = 0u;
  if ((r == NULL) || !r->ready_ || (utvm_model_output(r->model_, i, &index) != UTVM_OK)) {
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  return utvm_runner_tensor(r, index, t);
}

utvm_err_t utvm_runner_invoke_operator(utvm_runner_t *r, uint32_t k) {
  utvm_text_t text;
  if (r == NULL) {
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  utvm_text_init(&text, r->error, sizeof(r->error));
  if (!r->ready_ || (k >= r->n_operators)) {
    utvm_text_str(&text, r->ready_ ? "operator index out of range" : "runner not initialised");
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  const runner_op_t *ops = (const runner_op_t *)r->ops_;
  utvm_err_t err = UTVM_OK;
  if ((r->offload_ != NULL) && (r->offload_->handles[k] != NULL)) {
    err = r->offload_->run(r->offload_->ctx, r->offload_->handles[k]);
  } else if ((r->stage_count == 0u) || (k < r->stage_first) ||
             (k >= (r->stage_first + r->stage_count))) {
    err = ops[k].op->execute(&r->records_[ops[k].record], r->arena_);
  } else if (k == r->stage_first) {
    err = runner_stage_run(r);
  } else {
    /* run by the stage's first operator */
  }
  if (err != UTVM_OK) {
    utvm_model_text_operator(&text, k, ops[k].op->code);
    utvm_text_str(&text, utvm_strerror(err));
  }
  return err;
}

utvm_err_t utvm_runner_invoke(utvm_runner_t *r) {
  uint32_t k;
  utvm_err_t err = (r == NULL) ? UTVM_ERR_RUNNER_ARGUMENT : UTVM_OK;
  for (k = 0u; (err == UTVM_OK) && (k < r->n_operators); k++) {
    err = utvm_runner_invoke_operator(r, k);
  }
  if ((err == UTVM_OK) && !r->ready_) {
    err = utvm_runner_invoke_operator(r, 0u); /* writes the text */
  }
  return err;
}

utvm_err_t utvm_runner_op_calls(const utvm_runner_t *r, uint32_t k, uint32_t *calls) {
  utvm_model_operator_t op;
  if ((r == NULL) || (calls == NULL) || !r->ready_ || (k >= r->n_operators) ||
      (utvm_model_operator(r->model_, k, &op) != UTVM_OK)) {
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  *calls = op.n_outputs;
  return UTVM_OK;
}

utvm_err_t utvm_runner_op_params(const utvm_runner_t *r, uint32_t k, uint32_t j,
                                 utvm_op_params_t *p, utvm_op_operands_t *operands) {
  utvm_model_operator_t op;
  uint32_t i;
  const char *why = "";
  if ((r == NULL) || (p == NULL) || (operands == NULL) || !r->ready_ || (k >= r->n_operators) ||
      (utvm_model_operator(r->model_, k, &op) != UTVM_OK)) {
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  (void)memset(p, 0, sizeof(*p));
  (void)memset(operands, 0, sizeof(*operands));
  const runner_op_t *ops = (const runner_op_t *)r->ops_;
  const utvm_op_t *d = ops[k].op;
  const uint32_t first = d->first_kernel_input;
  const uint32_t take = d->kernel_inputs(&op);
  if ((take > UTVM_OP_PARAMS_MAX_INPUTS) || (j >= op.n_outputs) || (op.outputs[j] < 0)) {
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  for (i = first; (i < op.n_inputs) && (operands->n_inputs < take); i++) {
    if (op.inputs[i] >= 0) {
      operands->inputs[operands->n_inputs] = (uint32_t)op.inputs[i];
      operands->n_inputs++;
    }
  }
  if (operands->n_inputs != take) {
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  operands->output = (uint32_t)op.outputs[j];
  if (d->export_output != NULL) {
    d->export_output(&r->records_[ops[k].record], r->core_, j, p);
  } else {
    d->export_params(&r->records_[ops[k].record], r->core_, p);
  }
  p->n_inputs = take;
  return utvm_op_params_check(p, &why);
}

utvm_err_t utvm_runner_op_scratch(const utvm_runner_t *r, uint32_t k, uint32_t *offset) {
  if ((r == NULL) || (offset == NULL) || !r->ready_ || (k >= r->n_operators)) {
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  *offset = r->scratch_offsets_[k];
  return UTVM_OK;
}

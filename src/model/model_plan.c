/*
 * Planning a TFLite model: builds the planner's buffer and step lists from a verified model
 * (one buffer per computed tensor, one step per operator) in the caller's workspace, checks
 * the data flow on the way, and runs utvm_plan(). Step kinds: ALIAS for RESHAPE, SQUEEZE and
 * EXPAND_DIMS; the caller's callback may choose another (the runner asks the operator's
 * plan_kind: GATHER, SCATTER), since only the operator knows its layout; a step reading a
 * variable tensor stays DEFAULT.
 *
 * Constants take no planner memory: while planning, the caller's plan->offsets (one entry per
 * tensor) maps each tensor to its buffer (UTVM_PLAN_NONE for a constant); at the end each entry
 * is replaced by that buffer's offset. The steps list only computed operands, packed in one
 * index array.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/model.h"

#define WS_ALIGN 8u
/* Internal flags of a buffer while the steps are built: an operator has written it; a variable
 * tensor (alive from the first step to the last, and between invocations: never shared, never
 * placed apart with the graph's inputs and outputs). */
#define FLAG_WRITTEN 0x80000000u
#define FLAG_STATE 0x40000000u

typedef struct {
  uint32_t n_buffers;          /* computed (non-constant) tensors */
  uint32_t n_indices;          /* computed operands over all operators */
} counts_t;

typedef struct {
  utvm_plan_step_t *steps;     /* [n_operators] */
  utvm_plan_buffer_t *buffers; /* [n_buffers] */
  uint32_t *offsets;           /* [n_buffers] the planner's output, by buffer */
  uint32_t *indices;           /* [n_indices] reads then writes of each step, in step order */
  uint32_t *map;               /* [n_tensors] the buffer of each tensor (plan->offsets) */
  uint32_t n_indices;
  void *plan_ws;
  size_t plan_ws_size;
} layout_t;

static uint64_t lists_align8(uint64_t x) {
  const uint64_t mask = (uint64_t)WS_ALIGN - 1u;
  return (x + mask) & ~mask;
}

/* Bytes of the lists before the planner's own workspace. */
static uint64_t lists_size(const counts_t *c, uint32_t no) {
  return lists_align8((uint64_t)no * sizeof(utvm_plan_step_t)) +
         lists_align8((uint64_t)c->n_buffers * sizeof(utvm_plan_buffer_t)) +
         lists_align8((uint64_t)c->n_buffers * sizeof(uint32_t)) +
         lists_align8((uint64_t)c->n_indices * sizeof(uint32_t));
}

/* Whether tensor index is computed (not constant); false also when it cannot be decoded. */
static bool is_computed(const utvm_model_t *m, int32_t index, bool *ok) {
  utvm_model_tensor_t t;
  if (index < 0) {
    return false;
  }
  if (utvm_model_tensor(m, (uint32_t)index, &t) != UTVM_OK) {
    *ok = false;
    return false;
  }
  return t.data == NULL;
}

/* The computed tensors and operands of m; false if one cannot be decoded. */
static bool count(const utvm_model_t *m, counts_t *c) {
  uint32_t i;
  uint32_t k;
  bool ok = true;
  c->n_buffers = 0u;
  c->n_indices = 0u;
  for (i = 0u; i < m->n_tensors && ok; i++) {
    if (is_computed(m, (int32_t)i, &ok)) {
      c->n_buffers++;
    }
  }
  for (i = 0u; i < m->n_operators && ok; i++) {
    utvm_model_operator_t op;
    ok = utvm_model_operator(m, i, &op) == UTVM_OK;
    for (k = 0u; k < op.n_inputs && ok; k++) {
      if (is_computed(m, op.inputs[k], &ok)) {
        c->n_indices++;
      }
    }
    for (k = 0u; k < op.n_outputs && ok; k++) {
      c->n_indices++; /* an output is computed (a constant one is refused) */
    }
  }
  return ok;
}

/* Bytes of workspace for m with counts c, or SIZE_MAX. */
static size_t lists_and_plan_bytes(const utvm_model_t *m, const counts_t *c) {
  const size_t plan = utvm_plan_workspace_size(c->n_buffers, m->n_operators);
  uint64_t total;
  if (plan == SIZE_MAX) {
    return SIZE_MAX;
  }
  total = WS_ALIGN + lists_size(c, m->n_operators) + (uint64_t)plan;
  return (total >= SIZE_MAX) ? SIZE_MAX : (size_t)total;
}

size_t utvm_model_plan_workspace_size(const utvm_model_t *m) {
  counts_t c;
  if (m == NULL || !m->valid_ || !count(m, &c)) {
    return SIZE_MAX;
  }
  return lists_and_plan_bytes(m, &c);
}

static void carve(layout_t *l, void *workspace, size_t size, const counts_t *c, uint32_t no) {
  uint8_t *p = (uint8_t *)workspace;
  size_t pad = (size_t)((0u - (uintptr_t)p) & (WS_ALIGN - 1u));
  p = &p[pad];
  l->steps = (utvm_plan_step_t *)(void *)p;
  p = &p[lists_align8((uint64_t)no * sizeof(utvm_plan_step_t))];
  l->buffers = (utvm_plan_buffer_t *)(void *)p;
  p = &p[lists_align8((uint64_t)c->n_buffers * sizeof(utvm_plan_buffer_t))];
  l->offsets = (uint32_t *)(void *)p;
  p = &p[lists_align8((uint64_t)c->n_buffers * sizeof(uint32_t))];
  l->indices = (uint32_t *)(void *)p;
  p = &p[lists_align8((uint64_t)c->n_indices * sizeof(uint32_t))];
  l->n_indices = c->n_indices;
  l->plan_ws = p;
  l->plan_ws_size = size - pad - (size_t)lists_size(c, no);
}

/* "<prefix>tensor <t><msg>" for operator i (or the graph when i is UINT32_MAX). */
static utvm_err_t flow_error(utvm_text_t *text, uint32_t i, int32_t code, uint32_t t,
                             const char *msg) {
  if (i != UINT32_MAX) {
    utvm_model_text_operator(text, i, code);
  }
  utvm_text_str(text, "tensor ");
  utvm_text_u64(text, t);
  utvm_text_str(text, msg);
  return UTVM_ERR_MODEL_BAD_GRAPH;
}

/* Appends the computed inputs of op to the indices from *at, with the data-flow checks. */
static utvm_err_t step_reads(const layout_t *l, utvm_text_t *text, uint32_t i,
                             const utvm_model_operator_t *op, uint32_t *at) {
  uint32_t k;
  utvm_err_t err = UTVM_OK;
  for (k = 0u; k < op->n_inputs && err == UTVM_OK; k++) {
    if (op->inputs[k] >= 0 && l->map[op->inputs[k]] != UTVM_PLAN_NONE) {
      uint32_t t = (uint32_t)op->inputs[k];
      uint32_t b = l->map[t];
      if ((l->buffers[b].flags & (UTVM_PLAN_INPUT | FLAG_WRITTEN)) == 0u) {
        err = flow_error(text, i, (int32_t)op->code, t, " is read before any operator writes it");
      } else if (*at >= l->n_indices) {
        err = UTVM_ERR_MODEL_ARGUMENT;
      } else {
        l->indices[*at] = b;
        (*at)++;
      }
    }
  }
  return err;
}

/* Appends the outputs of op to the indices from *at, with the data-flow checks. */
static utvm_err_t step_writes(const layout_t *l, utvm_text_t *text, uint32_t i,
                              const utvm_model_operator_t *op, uint32_t *at) {
  uint32_t k;
  utvm_err_t err = UTVM_OK;
  for (k = 0u; k < op->n_outputs && err == UTVM_OK; k++) {
    uint32_t t = (uint32_t)op->outputs[k];
    uint32_t b = l->map[t];
    if (b == UTVM_PLAN_NONE) {
      err = flow_error(text, i, (int32_t)op->code, t, " is constant, written by an operator");
    } else if ((l->buffers[b].flags & FLAG_STATE) != 0u) {
      err = flow_error(text, i, (int32_t)op->code, t,
                       " is a variable tensor, written as an operator's output");
    } else if ((l->buffers[b].flags & UTVM_PLAN_INPUT) != 0u) {
      err = flow_error(text, i, (int32_t)op->code, t, " is a graph input, written by an operator");
    } else if ((l->buffers[b].flags & FLAG_WRITTEN) != 0u) {
      err = flow_error(text, i, (int32_t)op->code, t, " is written a second time");
    } else if (*at >= l->n_indices) {
      err = UTVM_ERR_MODEL_ARGUMENT;
    } else {
      l->buffers[b].flags |= FLAG_WRITTEN;
      l->indices[*at] = b;
      (*at)++;
    }
  }
  return err;
}

/* Whether step st reads a variable tensor. */
static bool reads_state(const layout_t *l, const utvm_plan_step_t *st) {
  uint32_t k;
  bool state = false;
  for (k = 0u; k < st->n_reads; k++) {
    state = state || ((l->buffers[st->reads[k]].flags & FLAG_STATE) != 0u);
  }
  return state;
}

/* One step per operator, with the data-flow checks. */
static utvm_err_t build_steps(const utvm_model_t *m, utvm_text_t *text, const layout_t *l,
                              utvm_model_scratch_fn scratch, void *ctx) {
  uint32_t i;
  uint32_t at = 0u;
  utvm_err_t err = UTVM_OK;
  for (i = 0u; i < m->n_operators && err == UTVM_OK; i++) {
    utvm_model_operator_t op;
    utvm_plan_step_t *st = &l->steps[i];
    uint32_t start = at;
    size_t bytes = 0u;
    size_t inplace_bytes = 0u;
    err = utvm_model_operator(m, i, &op);
    if (err != UTVM_OK) {
      utvm_model_text_operator(text, i, -1);
      utvm_text_str(text, "cannot be decoded");
      break;
    }
    err = step_reads(l, text, i, &op, &at);
    st->reads = &l->indices[start];
    st->n_reads = at - start;
    start = at;
    if (err == UTVM_OK) {
      err = step_writes(l, text, i, &op, &at);
    }
    st->writes = &l->indices[start];
    st->n_writes = at - start;
    st->scratch = 0u;
    st->inplace_scratch = 0u;
    st->kind = UTVM_PLAN_STEP_DEFAULT;
    if ((op.code == UTVM_MODEL_OP_RESHAPE || op.code == UTVM_MODEL_OP_SQUEEZE ||
         op.code == UTVM_MODEL_OP_EXPAND_DIMS) &&
        op.n_inputs > 0u && op.inputs[0] >= 0 && l->map[op.inputs[0]] != UTVM_PLAN_NONE) {
      st->kind = UTVM_PLAN_STEP_ALIAS; /* reads[0] is input 0 */
    }
    if (err == UTVM_ERR_MODEL_ARGUMENT) {
      utvm_text_str(text, "plan: the model changed since it was opened");
    }
    if (err == UTVM_OK && scratch != NULL) {
      err = scratch(ctx, m, i, &op, &bytes, &st->kind, &inplace_bytes);
      if (err != UTVM_OK) {
        utvm_model_text_operator(text, i, (int32_t)op.code);
        utvm_text_str(text, "scratch size: ");
        utvm_text_str(text, utvm_strerror(err));
        err = UTVM_ERR_MODEL_SCRATCH;
      } else if ((bytes > (size_t)UINT32_MAX) || (inplace_bytes > (size_t)UINT32_MAX)) {
        utvm_model_text_operator(text, i, (int32_t)op.code);
        utvm_text_str(text, "scratch size: 4 GiB or more");
        err = UTVM_ERR_MODEL_PLAN_OVERFLOW;
      } else {
        st->scratch = (uint32_t)bytes;
        st->inplace_scratch = (uint32_t)inplace_bytes;
      }
    }
    if (err == UTVM_OK && reads_state(l, st)) {
      st->kind = UTVM_PLAN_STEP_DEFAULT; /* a variable tensor changes in place: no views of it */
    }
  }
  return err;
}

/* The buffers: one per computed tensor, flagged as graph input or output; l->map filled. */
static utvm_err_t build_buffers(const utvm_model_t *m, const layout_t *l, uint32_t n_buffers) {
  utvm_model_tensor_t t;
  uint32_t i;
  uint32_t index;
  uint32_t b = 0u;
  utvm_err_t err = UTVM_OK;
  for (i = 0u; i < m->n_tensors && err == UTVM_OK; i++) {
    err = utvm_model_tensor(m, i, &t);
    l->map[i] = UTVM_PLAN_NONE;
    if (err == UTVM_OK && t.data == NULL) {
      if (b >= n_buffers || t.bytes > (size_t)UTVM_MODEL_MAX_TENSOR_BYTES) {
        err = UTVM_ERR_MODEL_ARGUMENT;
      } else {
        l->map[i] = b;
        l->buffers[b].size = (uint32_t)t.bytes;
        l->buffers[b].flags = t.variable ? (UTVM_PLAN_INPUT | UTVM_PLAN_OUTPUT | FLAG_STATE) : 0u;
        b++;
      }
    }
  }
  if (err == UTVM_OK && b != n_buffers) {
    err = UTVM_ERR_MODEL_ARGUMENT;
  }
  for (i = 0u; i < m->n_inputs && err == UTVM_OK; i++) {
    err = utvm_model_input(m, i, &index);
    if (err == UTVM_OK && l->map[index] != UTVM_PLAN_NONE) {
      l->buffers[l->map[index]].flags |= UTVM_PLAN_INPUT;
    }
  }
  for (i = 0u; i < m->n_outputs && err == UTVM_OK; i++) {
    err = utvm_model_output(m, i, &index);
    if (err == UTVM_OK && l->map[index] != UTVM_PLAN_NONE) {
      l->buffers[l->map[index]].flags |= UTVM_PLAN_OUTPUT;
    }
  }
  return err;
}

/* Every graph output is computed by an operator (or is a graph input). */
static utvm_err_t check_outputs(const utvm_model_t *m, utvm_text_t *text,
                                const layout_t *l) {
  uint32_t i;
  uint32_t index;
  utvm_err_t err = UTVM_OK;
  for (i = 0u; i < m->n_outputs && err == UTVM_OK; i++) {
    err = utvm_model_output(m, i, &index);
    if (err == UTVM_OK &&
        (l->map[index] == UTVM_PLAN_NONE ||
         (l->buffers[l->map[index]].flags & (UTVM_PLAN_INPUT | FLAG_WRITTEN)) == 0u)) {
      utvm_text_str(text, "graph output ");
      utvm_text_u64(text, i);
      utvm_text_str(text, ": ");
      err = flow_error(text, UINT32_MAX, 0, index, " is never computed");
    }
  }
  return err;
}

/* Whether buffer b is read by a step other than step k. */
static bool read_elsewhere(const layout_t *l, uint32_t n_steps, uint32_t b, uint32_t k) {
  bool found = false;
  for (uint32_t i = 0u; (i < n_steps) && !found; i++) {
    for (uint32_t r = 0u; (r < l->steps[i].n_reads) && (i != k); r++) {
      found = found || (l->steps[i].reads[r] == b);
    }
  }
  return found;
}

/* Merges the steps of stage into its first one (see utvm_model_plan_stage). */
static utvm_err_t merge_stage(const utvm_model_t *m, utvm_text_t *text, const layout_t *l,
                              const utvm_model_stage_t *stage) {
  const uint32_t first = stage->first;
  if ((stage->count == 0u) || (first >= m->n_operators) ||
      (stage->count > (m->n_operators - first))) {
    utvm_text_str(text, "plan: the stage's operators are out of range");
    return UTVM_ERR_MODEL_ARGUMENT;
  }
  const uint32_t last = first + stage->count - 1u;
  for (uint32_t k = first; k < last; k++) {
    const utvm_plan_step_t *st = &l->steps[k];
    const utvm_plan_step_t *next = &l->steps[k + 1u];
    const uint32_t b = (st->n_writes == 1u) ? st->writes[0] : UTVM_PLAN_NONE;
    if ((b == UTVM_PLAN_NONE) || ((l->buffers[b].flags & UTVM_PLAN_OUTPUT) != 0u) ||
        (next->n_reads != 1u) || (next->reads[0] != b) ||
        read_elsewhere(l, m->n_operators, b, k + 1u)) {
      utvm_model_text_operator(text, k, -1);
      utvm_text_str(text, "plan: not a stage: its output is not read by the next operator alone");
      return UTVM_ERR_MODEL_ARGUMENT;
    }
  }
  utvm_plan_step_t *st = &l->steps[first];
  st->writes = l->steps[last].writes;
  st->n_writes = l->steps[last].n_writes;
  st->scratch = stage->scratch;
  st->inplace_scratch = stage->inplace_scratch;
  st->kind = stage->kind;
  for (uint32_t k = first + 1u; k <= last; k++) {
    l->steps[k].n_reads = 0u;
    l->steps[k].n_writes = 0u;
    l->steps[k].scratch = 0u;
    l->steps[k].inplace_scratch = 0u;
    l->steps[k].kind = UTVM_PLAN_STEP_DEFAULT;
  }
  return UTVM_OK;
}

utvm_err_t utvm_model_plan(utvm_model_t *m, utvm_model_scratch_fn scratch, void *ctx,
                           uint32_t options, void *workspace, size_t workspace_size,
                           utvm_plan_t *plan) {
  return utvm_model_plan_stage(m, scratch, ctx, options, NULL, workspace, workspace_size, plan);
}

utvm_err_t utvm_model_plan_stage(utvm_model_t *m, utvm_model_scratch_fn scratch, void *ctx,
                                 uint32_t options, const utvm_model_stage_t *stage,
                                 void *workspace, size_t workspace_size, utvm_plan_t *plan) {
  layout_t l;
  utvm_text_t text;
  counts_t c;
  uint32_t i;
  utvm_err_t err;
  if (m == NULL) {
    return UTVM_ERR_MODEL_ARGUMENT;
  }
  utvm_text_init(&text, m->error, sizeof(m->error));
  if (!m->valid_ || plan == NULL || plan->offsets == NULL ||
      (scratch != NULL && plan->scratch_offsets == NULL && m->n_operators != 0u) ||
      (options & ~UTVM_MODEL_PLAN_IO_SEPARATE) != 0u) {
    utvm_text_str(&text, "plan: model not open, no plan offsets, or unknown options");
    return UTVM_ERR_MODEL_ARGUMENT;
  }
  if (!count(m, &c)) {
    utvm_text_str(&text, "plan: the model changed since it was opened");
    return UTVM_ERR_MODEL_ARGUMENT;
  }
  if (workspace == NULL || lists_and_plan_bytes(m, &c) == SIZE_MAX ||
      workspace_size < lists_and_plan_bytes(m, &c)) {
    utvm_text_str(&text, "plan: workspace smaller than utvm_model_plan_workspace_size()");
    return UTVM_ERR_MODEL_PLAN_WORKSPACE;
  }
  carve(&l, workspace, workspace_size, &c, m->n_operators);
  l.map = plan->offsets;
  err = build_buffers(m, &l, c.n_buffers);
  if (err != UTVM_OK) {
    utvm_text_str(&text, "plan: the model changed since it was opened");
    return err;
  }
  err = build_steps(m, &text, &l, scratch, ctx);
  if (err == UTVM_OK) {
    err = check_outputs(m, &text, &l);
  }
  if ((err == UTVM_OK) && (stage != NULL)) {
    err = merge_stage(m, &text, &l, stage);
  }
  if (err != UTVM_OK) {
    return err;
  }
  for (i = 0u; i < c.n_buffers; i++) {
    const bool state = (l.buffers[i].flags & FLAG_STATE) != 0u;
    l.buffers[i].flags &= ~(FLAG_WRITTEN | FLAG_STATE);
    if (((options & UTVM_MODEL_PLAN_IO_SEPARATE) != 0u) && !state &&
        ((l.buffers[i].flags & (UTVM_PLAN_INPUT | UTVM_PLAN_OUTPUT)) != 0u)) {
      l.buffers[i].flags |= UTVM_PLAN_APART;
    }
  }
  plan->offsets = l.offsets;
  err = utvm_plan(l.buffers, c.n_buffers, l.steps, m->n_operators, l.plan_ws, l.plan_ws_size,
                  plan);
  plan->offsets = l.map;
  if (err != UTVM_OK) {
    utvm_text_str(&text, "plan: ");
    utvm_text_str(&text, utvm_strerror(err));
    return err;
  }
  for (i = 0u; i < m->n_tensors; i++) {
    if (l.map[i] != UTVM_PLAN_NONE) {
      l.map[i] = l.offsets[l.map[i]];
    }
  }
  return UTVM_OK;
}

/*
 * Planning a TFLite model: builds the planner's buffer and step lists from a verified model
 * (one buffer per tensor, one step per operator) in the caller's workspace, checks the data
 * flow on the way, and runs utvm_plan().
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model_internal.h"
#include "utvm/model.h"

#define WS_ALIGN 8u
#define WRITER_NONE UINT32_MAX        /* no operator writes the tensor (yet) */
#define WRITER_INPUT (UINT32_MAX - 1u) /* a graph input: written by the application */
#define INDICES_PER_OP (UTVM_MODEL_MAX_OP_INPUTS + UTVM_MODEL_MAX_OP_OUTPUTS)

typedef struct {
  utvm_plan_buffer_t *buffers; /* [n_tensors] */
  utvm_plan_step_t *steps;     /* [n_operators] */
  uint32_t *indices;           /* [n_operators * INDICES_PER_OP] reads then writes per step */
  uint32_t *writer;            /* [n_tensors] */
  void *plan_ws;
  size_t plan_ws_size;
} layout_t;

static uint64_t lists_align8(uint64_t x) {
  const uint64_t mask = (uint64_t)WS_ALIGN - 1u;
  return (x + mask) & ~mask;
}

/* Bytes of the lists before the planner's own workspace (which starts 8-byte aligned). */
static uint64_t lists_size(uint32_t nt, uint32_t no) {
  return lists_align8((uint64_t)nt * sizeof(utvm_plan_buffer_t)) +
         lists_align8((uint64_t)no * sizeof(utvm_plan_step_t)) +
         lists_align8((uint64_t)no * INDICES_PER_OP * sizeof(uint32_t)) +
         lists_align8((uint64_t)nt * sizeof(uint32_t));
}

size_t utvm_model_plan_workspace_size(const utvm_model_t *m) {
  size_t plan;
  uint64_t total;
  if (m == NULL || !m->valid_) {
    return SIZE_MAX;
  }
  plan = utvm_plan_workspace_size(m->n_tensors, m->n_operators);
  if (plan == SIZE_MAX) {
    return SIZE_MAX;
  }
  total = WS_ALIGN + lists_size(m->n_tensors, m->n_operators) + (uint64_t)plan;
  return (total >= SIZE_MAX) ? SIZE_MAX : (size_t)total;
}

static void carve(layout_t *l, void *workspace, size_t size, uint32_t nt, uint32_t no) {
  uint8_t *p = (uint8_t *)workspace;
  size_t pad = (size_t)((0u - (uintptr_t)p) & (WS_ALIGN - 1u));
  p = &p[pad];
  l->buffers = (utvm_plan_buffer_t *)(void *)p;
  p = &p[lists_align8((uint64_t)nt * sizeof(utvm_plan_buffer_t))];
  l->steps = (utvm_plan_step_t *)(void *)p;
  p = &p[lists_align8((uint64_t)no * sizeof(utvm_plan_step_t))];
  l->indices = (uint32_t *)(void *)p;
  p = &p[lists_align8((uint64_t)no * INDICES_PER_OP * sizeof(uint32_t))];
  l->writer = (uint32_t *)(void *)p;
  p = &p[lists_align8((uint64_t)nt * sizeof(uint32_t))];
  l->plan_ws = p;
  l->plan_ws_size = size - pad - (size_t)lists_size(nt, no);
}

/* "<prefix>tensor <t><msg>" for operator i (or the graph when i is UINT32_MAX). */
static utvm_err_t flow_error(utvm_model_text_t *text, uint32_t i, int32_t code, uint32_t t,
                             const char *msg) {
  if (i != UINT32_MAX) {
    utvm_model_text_operator(text, i, code);
  }
  utvm_model_text_str(text, "tensor ");
  utvm_model_text_u32(text, t);
  utvm_model_text_str(text, msg);
  return UTVM_ERR_MODEL_BAD_GRAPH;
}

/* One step per operator, with the data-flow checks. */
static utvm_err_t build_steps(const utvm_model_t *m, utvm_model_text_t *text, const layout_t *l,
                              utvm_model_scratch_fn scratch, void *ctx) {
  uint32_t i;
  uint32_t k;
  utvm_err_t err = UTVM_OK;
  for (i = 0u; i < m->n_operators && err == UTVM_OK; i++) {
    utvm_model_operator_t op;
    utvm_plan_step_t *st = &l->steps[i];
    uint32_t *reads = &l->indices[(size_t)i * INDICES_PER_OP];
    uint32_t *writes = &reads[UTVM_MODEL_MAX_OP_INPUTS];
    err = utvm_model_operator(m, i, &op);
    if (err != UTVM_OK) {
      utvm_model_text_operator(text, i, -1);
      utvm_model_text_str(text, "cannot be decoded");
      break;
    }
    for (k = 0u; k < op.n_inputs && err == UTVM_OK; k++) {
      reads[k] = UTVM_PLAN_NONE;
      if (op.inputs[k] >= 0) {
        uint32_t t = (uint32_t)op.inputs[k];
        reads[k] = t;
        if ((l->buffers[t].flags & UTVM_PLAN_CONSTANT) == 0u && l->writer[t] == WRITER_NONE) {
          err = flow_error(text, i, (int32_t)op.code, t,
                           " is read before any operator writes it");
        }
      }
    }
    for (k = 0u; k < op.n_outputs && err == UTVM_OK; k++) {
      uint32_t t = (uint32_t)op.outputs[k];
      writes[k] = t;
      if (l->writer[t] == WRITER_INPUT) {
        err = flow_error(text, i, (int32_t)op.code, t, " is a graph input, written by an operator");
      } else if (l->writer[t] != WRITER_NONE) {
        err = flow_error(text, i, (int32_t)op.code, t, " is written a second time");
      } else {
        l->writer[t] = i;
      }
    }
    st->reads = reads;
    st->n_reads = op.n_inputs;
    st->writes = writes;
    st->n_writes = op.n_outputs;
    st->scratch = 0u;
    st->kind = UTVM_PLAN_STEP_DEFAULT;
    if ((op.code == UTVM_MODEL_OP_RESHAPE || op.code == UTVM_MODEL_OP_SQUEEZE) &&
        (l->buffers[reads[0]].flags & UTVM_PLAN_CONSTANT) == 0u) {
      st->kind = UTVM_PLAN_STEP_ALIAS;
    }
    if (err == UTVM_OK && scratch != NULL) {
      err = scratch(ctx, m, i, &op, &st->scratch);
      if (err != UTVM_OK) {
        utvm_model_text_operator(text, i, (int32_t)op.code);
        utvm_model_text_str(text, "scratch size: ");
        utvm_model_text_str(text, utvm_strerror(err));
        err = UTVM_ERR_MODEL_SCRATCH;
      }
    }
  }
  return err;
}

utvm_err_t utvm_model_plan(utvm_model_t *m, utvm_model_scratch_fn scratch, void *ctx,
                           void *workspace, size_t workspace_size, utvm_plan_t *plan) {
  layout_t l;
  utvm_model_text_t text;
  utvm_model_tensor_t t;
  uint32_t i;
  uint32_t index;
  utvm_err_t err = UTVM_OK;
  if (m == NULL) {
    return UTVM_ERR_MODEL_ARGUMENT;
  }
  utvm_model_text_init(&text, m->error, sizeof(m->error));
  if (!m->valid_ || plan == NULL || plan->offsets == NULL ||
      (scratch != NULL && plan->scratch_offsets == NULL && m->n_operators != 0u)) {
    utvm_model_text_str(&text, "plan: model not open, or no plan offsets");
    return UTVM_ERR_MODEL_ARGUMENT;
  }
  if (workspace == NULL || utvm_model_plan_workspace_size(m) == SIZE_MAX ||
      workspace_size < utvm_model_plan_workspace_size(m)) {
    utvm_model_text_str(&text, "plan: workspace smaller than utvm_model_plan_workspace_size()");
    return UTVM_ERR_MODEL_PLAN_WORKSPACE;
  }
  carve(&l, workspace, workspace_size, m->n_tensors, m->n_operators);
  for (i = 0u; i < m->n_tensors && err == UTVM_OK; i++) {
    err = utvm_model_tensor(m, i, &t);
    l.buffers[i].size = t.bytes;
    l.buffers[i].flags = 0u;
    if (t.data != NULL) {
      l.buffers[i].flags = UTVM_PLAN_CONSTANT;
    }
    l.writer[i] = WRITER_NONE;
  }
  for (i = 0u; i < m->n_inputs && err == UTVM_OK; i++) {
    err = utvm_model_input(m, i, &index);
    if (err == UTVM_OK) {
      l.buffers[index].flags |= UTVM_PLAN_INPUT;
      l.writer[index] = WRITER_INPUT;
    }
  }
  for (i = 0u; i < m->n_outputs && err == UTVM_OK; i++) {
    err = utvm_model_output(m, i, &index);
    if (err == UTVM_OK) {
      l.buffers[index].flags |= UTVM_PLAN_OUTPUT;
    }
  }
  if (err != UTVM_OK) {
    utvm_model_text_str(&text, "plan: the model changed since it was opened");
    return err;
  }
  err = build_steps(m, &text, &l, scratch, ctx);
  for (i = 0u; i < m->n_outputs && err == UTVM_OK; i++) {
    err = utvm_model_output(m, i, &index);
    if (err == UTVM_OK && (l.writer[index] == WRITER_NONE ||
                           (l.buffers[index].flags & UTVM_PLAN_CONSTANT) != 0u)) {
      utvm_model_text_str(&text, "graph output ");
      utvm_model_text_u32(&text, i);
      utvm_model_text_str(&text, ": ");
      err = flow_error(&text, UINT32_MAX, 0, index, " is never computed");
    }
  }
  if (err != UTVM_OK) {
    return err;
  }
  err = utvm_plan(l.buffers, m->n_tensors, l.steps, m->n_operators, l.plan_ws, l.plan_ws_size,
                  plan);
  if (err != UTVM_OK) {
    utvm_model_text_str(&text, "plan: ");
    utvm_model_text_str(&text, utvm_strerror(err));
  }
  return err;
}

/*
 * Test helpers for the model layer, shared by the cmocka tests and fuzz_tflite (test code: it
 * may allocate).
 *
 *   model_exercise()  calls every accessor of an opened model and reads every byte it points
 *                     to (names, constant data, scales, zero points), so ASan sees any pointer
 *                     that reaches outside the file.
 *   plan_check()      checks a plan against its problem independently of the planner: every
 *                     used buffer placed, aligned and inside the arena, no two buffers (or a
 *                     buffer and a scratch area) alive at the same step overlapping unless
 *                     they are a legitimate alias, in-place step or view (and then nested: one
 *                     inside the other), arena >= lower bound.
 *   model_plan_check() plans an opened model (utvm_model_plan, exact-size heap workspace so
 *                     ASan sees any overrun) and checks it with plan_check().
 */
#ifndef UTVM_MODEL_CHECK_H
#define UTVM_MODEL_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utvm/model.h"

/* Returns NULL, or what went wrong. *checksum accumulates every byte read. */
static inline const char *model_exercise(const utvm_model_t *m, uint32_t *checksum) {
  uint32_t i;
  uint32_t k;
  uint32_t index;
  uint32_t sum = 0u;
  utvm_model_tensor_t t;
  utvm_model_operator_t op;
  for (i = 0u; i < m->n_tensors; i++) {
    if (utvm_model_tensor(m, i, &t) != UTVM_OK) {
      return "tensor accessor failed on an opened model";
    }
    sum += (uint32_t)strlen(t.name);
    if (t.rank > UTVM_MODEL_MAX_DIMS || t.bytes != t.elements * t.element_size) {
      return "tensor shape inconsistent";
    }
    if (t.data != NULL) {
      for (k = 0u; k < t.bytes; k++) {
        sum += t.data[k];
      }
    }
    for (k = 0u; k < t.quant.count; k++) {
      float s = utvm_model_quant_scale(&t.quant, k);
      if (!(s > 0.0f)) {
        return "scale not > 0";
      }
      sum += (uint32_t)utvm_model_quant_zero_point(&t.quant, k);
    }
    if (t.quant.count > 1u &&
        (t.quant.quantized_dimension < 0 || (uint32_t)t.quant.quantized_dimension >= t.rank ||
         (uint32_t)t.dims[t.quant.quantized_dimension] != t.quant.count)) {
      return "per-channel quantization inconsistent with the shape";
    }
  }
  if (utvm_model_tensor(m, m->n_tensors, &t) == UTVM_OK) {
    return "tensor accessor accepted an index out of range";
  }
  for (i = 0u; i < m->n_operators; i++) {
    if (utvm_model_operator(m, i, &op) != UTVM_OK) {
      return "operator accessor failed on an opened model";
    }
    if (op.n_inputs > UTVM_MODEL_MAX_OP_INPUTS || op.n_outputs == 0u ||
        op.n_outputs > UTVM_MODEL_MAX_OP_OUTPUTS) {
      return "operator operand count out of limits";
    }
    for (k = 0u; k < op.n_inputs; k++) {
      if (op.inputs[k] < -1 || op.inputs[k] >= (int32_t)m->n_tensors) {
        return "operator input out of range";
      }
    }
    for (k = 0u; k < op.n_outputs; k++) {
      if (op.outputs[k] < 0 || op.outputs[k] >= (int32_t)m->n_tensors) {
        return "operator output out of range";
      }
    }
    sum += (uint32_t)op.code + op.options_type + (uint32_t)strlen(utvm_model_op_name((int32_t)op.code));
  }
  if (utvm_model_operator(m, m->n_operators, &op) == UTVM_OK) {
    return "operator accessor accepted an index out of range";
  }
  for (i = 0u; i < m->n_inputs; i++) {
    if (utvm_model_input(m, i, &index) != UTVM_OK || index >= m->n_tensors) {
      return "graph input accessor failed";
    }
  }
  for (i = 0u; i < m->n_outputs; i++) {
    if (utvm_model_output(m, i, &index) != UTVM_OK || index >= m->n_tensors) {
      return "graph output accessor failed";
    }
  }
  if (utvm_model_input(m, m->n_inputs, &index) == UTVM_OK ||
      utvm_model_output(m, m->n_outputs, &index) == UTVM_OK) {
    return "graph input/output accessor accepted an index out of range";
  }
  sum += (uint32_t)strlen(m->description);
  *checksum += sum;
  return NULL;
}

static inline bool plan_overlap(size_t a, size_t an, size_t b, size_t bn) {
  return an != 0u && bn != 0u && a < b + bn && b < a + an;
}

static inline void plan_touch(uint32_t *first, uint32_t *last, uint32_t x, uint32_t step) {
  if (first[x] == UINT32_MAX || step < first[x]) {
    first[x] = step;
  }
  if (step > last[x]) {
    last[x] = step;
  }
}

/* Returns NULL, or what is wrong with plan for this problem. */
static inline const char *plan_check(const utvm_plan_buffer_t *buffers, uint32_t nb,
                                     const utvm_plan_step_t *steps, uint32_t ns,
                                     const utvm_plan_t *plan) {
  const char *why = NULL;
  uint32_t *first = (uint32_t *)calloc((size_t)nb + 1u, sizeof(uint32_t));
  uint32_t *last = (uint32_t *)calloc((size_t)nb + 1u, sizeof(uint32_t));
  uint32_t *group = (uint32_t *)calloc((size_t)nb + 1u, sizeof(uint32_t));
  uint32_t *nwrites = (uint32_t *)calloc((size_t)nb + 1u, sizeof(uint32_t));
  uint32_t *lastw = (uint32_t *)calloc((size_t)nb + 1u, sizeof(uint32_t));
  bool *applied = (bool *)calloc((size_t)ns + 1u, sizeof(bool)); /* in-place steps applied */
  uint32_t end = (ns == 0u) ? 0u : ns - 1u;
  uint32_t a;
  uint32_t b;
  uint32_t s;
  uint32_t k;
  size_t max_scratch = 0u;
  if (first == NULL || last == NULL || group == NULL || nwrites == NULL || lastw == NULL ||
      applied == NULL) {
    why = "out of memory";
    goto done;
  }
  for (b = 0u; b < nb; b++) {
    first[b] = UINT32_MAX;
    group[b] = b;
  }
  for (s = 0u; s < ns; s++) {
    for (k = 0u; k < steps[s].n_reads; k++) {
      if (steps[s].reads[k] != UTVM_PLAN_NONE) plan_touch(first, last, steps[s].reads[k], s);
    }
    for (k = 0u; k < steps[s].n_writes; k++) {
      if (steps[s].writes[k] != UTVM_PLAN_NONE) {
        plan_touch(first, last, steps[s].writes[k], s);
        nwrites[steps[s].writes[k]]++;
        lastw[steps[s].writes[k]] = s;
      }
    }
  }
  for (b = 0u; b < nb; b++) {
    if ((buffers[b].flags & UTVM_PLAN_INPUT) != 0u) plan_touch(first, last, b, 0u);
    if ((buffers[b].flags & UTVM_PLAN_OUTPUT) != 0u) plan_touch(first, last, b, end);
    if ((buffers[b].flags & UTVM_PLAN_CONSTANT) != 0u) first[b] = UINT32_MAX;
  }
  for (b = 0u; b < nb; b++) {
    size_t off = plan->offsets[b];
    if (first[b] == UINT32_MAX) {
      if (off != UTVM_PLAN_NO_OFFSET) {
        why = "an unused or constant buffer was placed";
        goto done;
      }
      continue;
    }
    if (off == UTVM_PLAN_NO_OFFSET || off % UTVM_PLAN_ALIGNMENT != 0u ||
        off + buffers[b].size > plan->arena_size) {
      why = "a used buffer is unplaced, misaligned or outside the arena";
      goto done;
    }
  }
  /* Legitimate aliases: same offset, ALIAS step, input not written at or after the step, output
   * written only there and not a graph input. */
  for (s = 0u; s < ns; s++) {
    uint32_t in;
    uint32_t out;
    if (steps[s].kind != UTVM_PLAN_STEP_ALIAS || steps[s].n_reads == 0u || steps[s].n_writes == 0u) {
      continue;
    }
    in = steps[s].reads[0];
    out = steps[s].writes[0];
    if (in == UTVM_PLAN_NONE || out == UTVM_PLAN_NONE || first[in] == UINT32_MAX ||
        first[out] == UINT32_MAX || plan->offsets[in] != plan->offsets[out]) {
      continue;
    }
    if (nwrites[out] != 1u || (nwrites[in] != 0u && lastw[in] >= s) ||
        (buffers[out].flags & UTVM_PLAN_INPUT) != 0u) {
      continue; /* not an allowed alias: the overlap check below judges it */
    }
    {
      uint32_t ga = group[in];
      uint32_t gb = group[out];
      for (b = 0u; b < nb; b++) {
        if (group[b] == gb) group[b] = ga;
      }
    }
  }
  /* Legitimate views: GATHER or SCATTER steps whose pieces sit at the whole's offset plus the
   * sizes before them, with the conditions of utvm_plan_step_kind_t. */
  for (s = 0u; s < ns; s++) {
    const bool gather = steps[s].kind == UTVM_PLAN_STEP_GATHER;
    const uint32_t *pieces = gather ? steps[s].reads : steps[s].writes;
    const uint32_t n = gather ? steps[s].n_reads : steps[s].n_writes;
    uint32_t whole;
    size_t at = 0u;
    bool ok;
    if ((!gather && steps[s].kind != UTVM_PLAN_STEP_SCATTER) ||
        (gather ? steps[s].n_writes : steps[s].n_reads) != 1u || n == 0u) {
      continue;
    }
    whole = gather ? steps[s].writes[0] : steps[s].reads[0];
    ok = whole != UTVM_PLAN_NONE && first[whole] != UINT32_MAX &&
         (gather ? (nwrites[whole] == 1u && first[whole] == s &&
                    (buffers[whole].flags & UTVM_PLAN_INPUT) == 0u)
                 : (nwrites[whole] == 0u || lastw[whole] < s));
    for (k = 0u; ok && k < n; k++) {
      const uint32_t p = pieces[k];
      uint32_t j;
      ok = p != UTVM_PLAN_NONE && p != whole && first[p] != UINT32_MAX && nwrites[p] == 1u &&
           (buffers[p].flags & UTVM_PLAN_INPUT) == 0u &&
           (gather ? lastw[p] < s : first[p] == s) &&
           (size_t)plan->offsets[p] == (size_t)plan->offsets[whole] + at;
      for (j = 0u; ok && j < k; j++) {
        ok = pieces[j] != p;
      }
      if (ok) at += buffers[p].size;
    }
    if (!ok || at != buffers[whole].size) {
      continue; /* not an allowed view: the overlap check below judges it */
    }
    for (k = 0u; k < n; k++) {
      uint32_t ga = group[whole];
      uint32_t gb = group[pieces[k]];
      for (b = 0u; b < nb; b++) {
        if (group[b] == gb) group[b] = ga;
      }
    }
  }
  /* Legitimate in-place steps, after the aliases and views (a group they formed later is touched
   * later, so it cannot pass): the write at a
   * read's offset, no larger (INPLACE_GROW: or larger), the read written once before and not a graph input or output,
   * every buffer of the read's group touched by no later step, the write written only here and
   * touched by no earlier step. */
  for (s = 0u; s < ns; s++) {
    uint32_t out;
    const bool grow = steps[s].kind == UTVM_PLAN_STEP_INPLACE_GROW;
    if ((steps[s].kind != UTVM_PLAN_STEP_INPLACE && !grow) || steps[s].n_writes == 0u) {
      continue;
    }
    out = steps[s].writes[0];
    if (out == UTVM_PLAN_NONE || first[out] != s || nwrites[out] != 1u ||
        (buffers[out].flags & UTVM_PLAN_INPUT) != 0u) {
      continue;
    }
    for (k = 0u; k < steps[s].n_reads; k++) {
      const uint32_t in = steps[s].reads[k];
      bool ok = in != UTVM_PLAN_NONE && in != out && first[in] != UINT32_MAX &&
                plan->offsets[in] == plan->offsets[out] &&
                (buffers[out].size <= buffers[in].size || grow) &&
                (buffers[in].flags & UTVM_PLAN_OUTPUT) == 0u &&
                (((buffers[in].flags & UTVM_PLAN_INPUT) != 0u)
                     ? (grow && nwrites[in] == 0u)
                     : (nwrites[in] == 1u && lastw[in] < s));
      for (b = 0u; ok && b < nb; b++) {
        ok = group[b] != group[in] || first[b] == UINT32_MAX || last[b] <= s;
      }
      if (ok) {
        uint32_t ga = group[in];
        uint32_t gb = group[out];
        for (b = 0u; b < nb; b++) {
          if (group[b] == gb) group[b] = ga;
        }
        applied[s] = true;
        break;
      }
    }
  }
  for (a = 0u; a < nb; a++) {
    if (first[a] == UINT32_MAX) continue;
    for (b = a + 1u; b < nb; b++) {
      if (first[b] == UINT32_MAX) continue;
      if (group[a] == group[b]) {
        size_t oa = plan->offsets[a];
        size_t ob = plan->offsets[b];
        size_t ea = oa + buffers[a].size;
        size_t eb = ob + buffers[b].size;
        if (plan_overlap(oa, buffers[a].size, ob, buffers[b].size) &&
            !((oa <= ob && eb <= ea) || (ob <= oa && ea <= eb))) {
          why = "two members of an alias or view group overlap without one inside the other";
          goto done;
        }
        continue;
      }
      if (first[a] > last[b] || first[b] > last[a]) continue;
      if (plan_overlap(plan->offsets[a], buffers[a].size, plan->offsets[b], buffers[b].size)) {
        why = "two buffers alive at the same step overlap";
        goto done;
      }
    }
  }
  for (s = 0u; s < ns; s++) {
    size_t sc = applied[s] ? steps[s].inplace_scratch : steps[s].scratch;
    size_t off;
    if (sc > max_scratch) max_scratch = sc;
    if (sc == 0u) {
      if (plan->scratch_offsets != NULL && plan->scratch_offsets[s] != UTVM_PLAN_NO_OFFSET) {
        why = "a step without scratch got a scratch offset";
        goto done;
      }
      continue;
    }
    off = plan->scratch_offsets[s];
    if (off == UTVM_PLAN_NO_OFFSET || off % UTVM_PLAN_ALIGNMENT != 0u || off + sc > plan->arena_size) {
      why = "a scratch area is unplaced, misaligned or outside the arena";
      goto done;
    }
    for (b = 0u; b < nb; b++) {
      if (first[b] != UINT32_MAX && first[b] <= s && s <= last[b] &&
          plan_overlap(off, sc, plan->offsets[b], buffers[b].size)) {
        why = "a scratch area overlaps a buffer alive at its step";
        goto done;
      }
    }
  }
  if (plan->arena_size < plan->lower_bound || plan->max_scratch != max_scratch) {
    why = "arena below the lower bound, or wrong max_scratch";
  }
done:
  free(first);
  free(last);
  free(group);
  free(nwrites);
  free(lastw);
  free(applied);
  return why;
}

/* A scratch callback for tests: ctx points to a uint32_t seed; 0 gives no scratch. An odd seed
 * also asks for views: GATHER for CONCATENATION and PACK, SCATTER for SPLIT, SPLIT_V and UNPACK,
 * whatever their axis (the plan's memory safety does not depend on it; the planner judges). */
static inline utvm_err_t model_check_scratch(void *ctx, const utvm_model_t *m, uint32_t index,
                                             const utvm_model_operator_t *op, size_t *bytes,
                                             utvm_plan_step_kind_t *kind, size_t *inplace_bytes) {
  uint32_t seed = *(const uint32_t *)ctx;
  (void)m;
  *bytes = (seed == 0u) ? 0u : (size_t)(((index + 1u) * seed + (uint32_t)op->code) % 300u);
  *inplace_bytes = *bytes;
  if ((seed & 1u) != 0u && (op->code == UTVM_MODEL_OP_CONCATENATION || op->code == UTVM_MODEL_OP_PACK)) {
    *kind = UTVM_PLAN_STEP_GATHER;
  } else if ((seed & 1u) != 0u &&
             (op->code == UTVM_MODEL_OP_SPLIT || op->code == UTVM_MODEL_OP_SPLIT_V ||
              op->code == UTVM_MODEL_OP_UNPACK)) {
    *kind = UTVM_PLAN_STEP_SCATTER;
  }
  return UTVM_OK;
}

/* Whether tensor i of m is a variable tensor (alive the whole run, never placed apart). */
static inline bool plan_is_variable(const utvm_model_t *m, uint32_t i) {
  utvm_model_tensor_t t;
  return (utvm_model_tensor(m, i, &t) == UTVM_OK) && t.variable;
}

/* With UTVM_MODEL_PLAN_IO_SEPARATE: every graph input and output lies in [io_offset,
 * arena_size), aligned, apart from the others; then they are taken out of the plan (flagged
 * constant, unplaced, arena ending at io_offset) for the check of the activations. Variable
 * tensors stay among the activations. */
static inline const char *plan_check_io(const utvm_model_t *m, utvm_plan_buffer_t *buffers,
                                        utvm_plan_t *plan) {
  uint32_t i;
  uint32_t j;
  for (i = 0u; i < m->n_tensors; i++) {
    if ((buffers[i].flags & (UTVM_PLAN_INPUT | UTVM_PLAN_OUTPUT)) == 0u ||
        (buffers[i].flags & UTVM_PLAN_CONSTANT) != 0u || plan_is_variable(m, i)) continue;
    const size_t off = plan->offsets[i];
    if (off < plan->io_offset || off + buffers[i].size > plan->arena_size ||
        off % UTVM_PLAN_ALIGNMENT != 0u) {
      return "an input or output outside the IO area, or misaligned";
    }
    for (j = 0u; j < i; j++) {
      if ((buffers[j].flags & (UTVM_PLAN_INPUT | UTVM_PLAN_OUTPUT)) != 0u &&
          (buffers[j].flags & UTVM_PLAN_CONSTANT) == 0u && !plan_is_variable(m, j) &&
          plan_overlap(off, buffers[i].size, plan->offsets[j], buffers[j].size)) {
        return "two inputs or outputs overlap";
      }
    }
  }
  for (i = 0u; i < m->n_tensors; i++) {
    if (((buffers[i].flags & (UTVM_PLAN_INPUT | UTVM_PLAN_OUTPUT)) != 0u) &&
        !plan_is_variable(m, i)) {
      buffers[i].flags |= UTVM_PLAN_CONSTANT;
      plan->offsets[i] = UTVM_PLAN_NO_OFFSET;
    }
  }
  plan->arena_size = plan->io_offset;
  return NULL;
}

/* Plans m with utvm_model_plan (options: 0 or UTVM_MODEL_PLAN_IO_SEPARATE) and checks the plan
 * against lists built here from the accessors. Returns NULL when the plan is right or when
 * utvm_model_plan rightly refused (*err says which); else what is wrong. */
static inline const char *model_plan_check(utvm_model_t *m, uint32_t scratch_seed,
                                           uint32_t options, utvm_plan_t *out,
                                           utvm_err_t *err) {
  const char *why = NULL;
  size_t ws_size = utvm_model_plan_workspace_size(m);
  void *ws = (ws_size != SIZE_MAX) ? malloc(ws_size == 0u ? 1u : ws_size) : NULL;
  uint32_t *offsets = (uint32_t *)calloc((size_t)m->n_tensors + 1u, sizeof(uint32_t));
  uint32_t *scratch_offsets = (uint32_t *)calloc((size_t)m->n_operators + 1u, sizeof(uint32_t));
  utvm_plan_buffer_t *buffers = (utvm_plan_buffer_t *)calloc((size_t)m->n_tensors + 1u, sizeof(*buffers));
  utvm_plan_step_t *steps = (utvm_plan_step_t *)calloc((size_t)m->n_operators + 1u, sizeof(*steps));
  uint32_t *idx = (uint32_t *)calloc(((size_t)m->n_operators + 1u) *
                                     (UTVM_MODEL_MAX_OP_INPUTS + UTVM_MODEL_MAX_OP_OUTPUTS),
                                     sizeof(uint32_t));
  utvm_plan_t plan;
  uint32_t i;
  uint32_t k;
  uint32_t t;
  *err = UTVM_OK;
  if (ws == NULL || offsets == NULL || scratch_offsets == NULL || buffers == NULL || steps == NULL ||
      idx == NULL) {
    why = "out of memory";
    goto done;
  }
  memset(&plan, 0, sizeof(plan));
  plan.offsets = offsets;
  plan.scratch_offsets = scratch_offsets;
  *err = utvm_model_plan(m, model_check_scratch, &scratch_seed, options, ws, ws_size, &plan);
  if (*err != UTVM_OK) {
    if (m->error[0] == '\0') why = "utvm_model_plan failed without an error text";
    goto done;
  }
  for (i = 0u; i < m->n_tensors; i++) {
    utvm_model_tensor_t tensor;
    (void)utvm_model_tensor(m, i, &tensor);
    buffers[i].size = (uint32_t)tensor.bytes;
    buffers[i].flags = (tensor.data != NULL) ? UTVM_PLAN_CONSTANT : 0u;
    if (tensor.variable) {
      buffers[i].flags |= UTVM_PLAN_INPUT | UTVM_PLAN_OUTPUT; /* alive the whole run */
    }
  }
  for (i = 0u; i < m->n_inputs; i++) {
    (void)utvm_model_input(m, i, &t);
    buffers[t].flags |= UTVM_PLAN_INPUT;
  }
  for (i = 0u; i < m->n_outputs; i++) {
    (void)utvm_model_output(m, i, &t);
    buffers[t].flags |= UTVM_PLAN_OUTPUT;
  }
  for (i = 0u; i < m->n_operators; i++) {
    utvm_model_operator_t op;
    uint32_t *r = &idx[(size_t)i * (UTVM_MODEL_MAX_OP_INPUTS + UTVM_MODEL_MAX_OP_OUTPUTS)];
    uint32_t *w = &r[UTVM_MODEL_MAX_OP_INPUTS];
    (void)utvm_model_operator(m, i, &op);
    uint32_t nr = 0u;
    /* the computed inputs only, as utvm_model_plan lists them */
    for (k = 0u; k < op.n_inputs; k++) {
      if (op.inputs[k] >= 0 && (buffers[op.inputs[k]].flags & UTVM_PLAN_CONSTANT) == 0u) {
        r[nr++] = (uint32_t)op.inputs[k];
      }
    }
    for (k = 0u; k < op.n_outputs; k++) w[k] = (uint32_t)op.outputs[k];
    steps[i].reads = r;
    steps[i].n_reads = nr;
    steps[i].writes = w;
    steps[i].n_writes = op.n_outputs;
    steps[i].kind = (op.code == UTVM_MODEL_OP_RESHAPE || op.code == UTVM_MODEL_OP_SQUEEZE ||
                     op.code == UTVM_MODEL_OP_EXPAND_DIMS)
                        ? UTVM_PLAN_STEP_ALIAS : UTVM_PLAN_STEP_DEFAULT;
    {
      size_t scratch = 0u;
      size_t inplace_scratch = 0u;
      (void)model_check_scratch(&scratch_seed, m, i, &op, &scratch, &steps[i].kind,
                                &inplace_scratch);
      steps[i].scratch = (uint32_t)scratch;
      steps[i].inplace_scratch = (uint32_t)inplace_scratch;
    }
    for (k = 0u; k < nr; k++) {
      if (plan_is_variable(m, r[k])) {
        steps[i].kind = UTVM_PLAN_STEP_DEFAULT; /* as utvm_model_plan: no views of a state */
      }
    }
  }
  if (out != NULL) {
    *out = plan;
  }
  if ((options & UTVM_MODEL_PLAN_IO_SEPARATE) != 0u) {
    why = plan_check_io(m, buffers, &plan);
  } else if (plan.io_offset != plan.arena_size) {
    why = "io_offset is not arena_size without IO_SEPARATE";
  }
  if (why == NULL) {
    why = plan_check(buffers, m->n_tensors, steps, m->n_operators, &plan);
  }
  if (out != NULL) {
    out->offsets = NULL;
    out->scratch_offsets = NULL;
  }
done:
  free(ws);
  free(offsets);
  free(scratch_offsets);
  free(buffers);
  free(steps);
  free(idx);
  return why;
}

#endif /* UTVM_MODEL_CHECK_H */

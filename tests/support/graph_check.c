/* The planned-storage checker of graph_check.h. */
#include "graph_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "utvm/model.h"

static uint64_t entry_bytes(const DLTensor *t) {
  uint64_t n = ((uint64_t)t->dtype.bits * t->dtype.lanes + 7u) / 8u;
  for (int32_t d = 0; d < t->ndim; d++) {
    n *= (uint64_t)t->shape[d];
  }
  return n;
}

static uint32_t find(uint32_t *parent, uint32_t x) {
  while (parent[x] != x) {
    x = parent[x];
  }
  return x;
}

int graph_check_layout(const utvm_graph_t *g, const void *memory, size_t memory_size,
                       unsigned *aliases, char *err, size_t err_cap) {
  const uint32_t n = g->num_entries;
  const int64_t end = (int64_t)g->num_ops;
  int64_t *first = (int64_t *)malloc(((size_t)n + 1u) * sizeof(int64_t));
  int64_t *last = (int64_t *)malloc(((size_t)n + 1u) * sizeof(int64_t));
  uint32_t *parent = (uint32_t *)malloc(((size_t)n + 1u) * sizeof(uint32_t));
  const uint8_t *lo = (const uint8_t *)memory;
  const uint8_t *hi = &lo[memory_size];
  unsigned n_alias = 0u;
  int rc = 0;
  err[0] = '\0';
  if ((first == NULL) || (last == NULL) || (parent == NULL)) {
    (void)snprintf(err, err_cap, "out of memory");
    rc = -1;
  }
  for (uint32_t e = 0u; (rc == 0) && (e < n); e++) {
    first[e] = -1; /* not written: an input node, alive all the time */
    last[e] = end;
    parent[e] = e;
  }
  /* Walk the operators: the step that writes each entry. */
  for (uint32_t k = 0u; (rc == 0) && (k < g->num_ops); k++) {
    utvm_graph_op_info_t op;
    if (utvm_graph_op(g, k, &op) != UTVM_OK) {
      (void)snprintf(err, err_cap, "operator %u unreadable", k);
      rc = -1;
      break;
    }
    for (uint32_t w = 0u; w < op.num_outputs; w++) {
      const uint32_t e = op.entries[op.num_inputs + w];
      first[e] = (int64_t)k;
      last[e] = (int64_t)k;
    }
  }
  /* Last readers, heads to the end; reshape aliases. */
  for (uint32_t k = 0u; (rc == 0) && (k < g->num_ops); k++) {
    utvm_graph_op_info_t op;
    (void)utvm_graph_op(g, k, &op);
    for (uint32_t i = 0u; i < op.num_inputs; i++) {
      const uint32_t e = op.entries[i];
      if ((first[e] >= 0) && ((int64_t)k > last[e])) {
        last[e] = (int64_t)k;
      }
    }
    if ((g->ops_[k].plan_kind == (uint8_t)UTVM_PLAN_STEP_ALIAS) && (op.num_inputs >= 1u) &&
        (op.num_outputs == 1u)) {
      const DLTensor *a = NULL;
      const DLTensor *b = NULL;
      uint32_t sid = 0u;
      (void)utvm_graph_entry(g, op.entries[0], &a, &sid);
      (void)utvm_graph_entry(g, op.entries[op.num_inputs], &b, &sid);
      if (a->data == b->data) {
        parent[find(parent, op.entries[op.num_inputs])] = find(parent, op.entries[0]);
        n_alias++;
      }
    }
  }
  for (uint32_t h = 0u; (rc == 0) && (h < g->num_outputs); h++) {
    uint32_t e = 0u;
    (void)utvm_graph_output_entry(g, h, &e);
    last[e] = end;
  }
  for (uint32_t a = 0u; (rc == 0) && (a < n); a++) {
    const DLTensor *ta = NULL;
    uint32_t sid = 0u;
    (void)utvm_graph_entry(g, a, &ta, &sid);
    const uint8_t *pa = (const uint8_t *)ta->data;
    const uint64_t na = entry_bytes(ta);
    if ((pa < lo) || (pa > hi) || (na > (uint64_t)(hi - pa))) {
      (void)snprintf(err, err_cap, "entry %u outside the executor's memory", a);
      rc = -1;
    } else if (((g->storage_alignment != UTVM_GRAPH_STORAGE_ALIGNMENT) &&
                (g->storage_alignment != UTVM_GRAPH_KFUNC_ALIGNMENT)) ||
               (((uintptr_t)pa % g->storage_alignment) != 0u)) {
      (void)snprintf(err, err_cap, "entry %u not aligned to %u", a,
                     (unsigned)g->storage_alignment);
      rc = -1;
    }
    for (uint32_t b = a + 1u; (rc == 0) && (b < n); b++) {
      const DLTensor *tb = NULL;
      (void)utvm_graph_entry(g, b, &tb, &sid);
      const uint8_t *pb = (const uint8_t *)tb->data;
      const uint64_t nb = entry_bytes(tb);
      const int live_together = (first[a] <= last[b]) && (first[b] <= last[a]);
      const int overlap = (na > 0u) && (nb > 0u) && (pa < &pb[nb]) && (pb < &pa[na]);
      const int alias = (find(parent, a) == find(parent, b)) && (pa == pb);
      /* in place: same start, together only at the step that writes the later one, where the
       * earlier one dies, and that step is an in-place node (element-wise, or a convolution
       * whose output may be larger) */
      const int64_t later = (first[a] > first[b]) ? first[a] : first[b];
      const int64_t end_earlier = (first[a] > first[b]) ? last[b] : last[a];
      const int inplace = (pa == pb) && (later >= 0) && (later == end_earlier) &&
                          (later < (int64_t)g->num_ops) &&
                          ((g->ops_[later].plan_kind == (uint8_t)UTVM_PLAN_STEP_INPLACE) ||
                           (g->ops_[later].plan_kind == (uint8_t)UTVM_PLAN_STEP_INPLACE_GROW));
      if (live_together && overlap && !alias && !inplace) {
        (void)snprintf(err, err_cap,
                       "entries %u (steps %lld..%lld) and %u (steps %lld..%lld) overlap", a,
                       (long long)first[a], (long long)last[a], b, (long long)first[b],
                       (long long)last[b]);
        rc = -1;
      }
    }
  }
  if (aliases != NULL) {
    *aliases = n_alias;
  }
  free(first);
  free(last);
  free(parent);
  return rc;
}

/*
 * Static memory planner: places buffers used by an ordered list of steps in one arena.
 *
 * 1. Lifetimes. Each buffer lives from the first step that reads or writes it to the last one
 *    (inclusive); graph inputs from step 0, graph outputs to the last step. Constants and
 *    buffers no step uses are not placed.
 * 2. Groups, in step order (weighted union-find, linked root to root; each link keeps the
 *    member's byte offset from its parent, so a buffer's offset from its group's root is the sum
 *    along its path). An ALIAS step's output joins its input's group at the input's offset; so
 *    does an INPLACE step's output, over the first read whose group dies at that step (for an
 *    INPLACE_GROW step also a smaller one: the group then grows). A
 *    GATHER step's reads join its write, read k at the sum of the sizes of reads 0..k-1; a
 *    SCATTER step's writes join its read, write j at the sum of the sizes of writes 0..j-1. A
 *    group is placed once, with the union of the lifetimes and the size max(offset + size) over
 *    its members; each member's offset is its root's plus its own from the root. A step that is
 *    not safe (see utvm_plan_step_kind_t) is planned as DEFAULT.
 * 3. Items. One item per group and one per step with scratch (alive during that step only).
 * 4. Placement, greedy: items in a given order, each at the lowest 16-byte aligned offset where
 *    it overlaps no placed item whose lifetime intersects its own (one pass over the placed
 *    items sorted by offset). Three orders: size descending (TFLM's greedy planner), first use
 *    ascending, lifetime span descending; ties by index. The smallest arena wins; planning
 *    stops early when an order reaches the lower bound.
 * 5. Lower bound: the largest sum of item sizes alive at one step (difference array).
 *
 * Cost: O(n log n) sorting (heap sort, no recursion) and O(n^2) placement per order, n = items.
 * Memory: the caller's workspace only (utvm_plan_workspace_size): 4-byte sizes and offsets (the
 * sum of all placed sizes is checked below 4 GiB), six words per item, two per buffer, one per
 * step. The best order's offsets are not kept aside: that order is placed again at the end.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/model.h"

#define WS_ALIGN 4u
#define NONE UINT32_MAX
#define N_ORDERS 3u
/* off[] of a buffer while the groups are built: a root with members; a group with views. */
#define LINKED 0x1u
#define VIEWS 0x2u
/* The largest sum of aligned item sizes: every offset and end then fits 32 bits, below
 * UTVM_PLAN_NO_OFFSET. */
#define PLAN_MAX_TOTAL ((uint64_t)UINT32_MAX - ((uint64_t)UTVM_PLAN_ALIGNMENT - 1u))

typedef char plan_alignment_is_power_of_two[
    (UTVM_PLAN_ALIGNMENT != 0u && (UTVM_PLAN_ALIGNMENT & (UTVM_PLAN_ALIGNMENT - 1u)) == 0u) ? 1
                                                                                           : -1];

/* The workspace, carved into arrays of 32-bit words. Items 0..nb-1 are buffers (the roots of
 * alias groups are placed), items nb..nb+ns-1 the steps' scratch areas. */
typedef struct {
  uint32_t nb;
  uint32_t ns;
  uint32_t ni;
  uint32_t *size;   /* [ni] bytes (a group root: its largest member) */
  uint32_t *off;    /* [ni] offset under the current order (while building the groups: LINKED,
                       VIEWS) */
  uint32_t *first;  /* [ni] first step alive, NONE: not placed */
  uint32_t *last;   /* [ni] last step alive */
  uint32_t *order;  /* [ni] items in placement order (while computing lifetimes: the number of
                       steps writing each buffer) */
  uint32_t *placed; /* [ni] placed items by offset (while computing lifetimes: the last step
                       writing each buffer) */
  uint32_t *root;   /* [nb] group links (to the parent; a root links to itself) */
  uint32_t *rel;    /* [nb] byte offset from the parent (0 for a root) */
  uint32_t *diff;   /* [max(ns,1)+1] lower-bound difference array */
} ws_t;

static uint32_t align_up(uint32_t x) {
  const uint32_t mask = UTVM_PLAN_ALIGNMENT - 1u;
  return (x + mask) & ~mask;
}

static uint32_t diff_len(uint32_t ns) {
  return ((ns == 0u) ? 1u : ns) + 1u;
}

size_t utvm_plan_workspace_size(uint32_t n_buffers, uint32_t n_steps) {
  uint64_t ni = (uint64_t)n_buffers + n_steps;
  uint64_t words = (6u * ni) + (2u * (uint64_t)n_buffers) + diff_len(n_steps);
  uint64_t bytes = WS_ALIGN + (words * sizeof(uint32_t)); /* room to align the start */
  if (ni > 0x7FFFFFFFu || bytes > SIZE_MAX) { /* item indices stay below 2^31 */
    return SIZE_MAX;
  }
  return (size_t)bytes;
}

static void ws_carve(ws_t *w, void *workspace, uint32_t nb, uint32_t ns) {
  uint8_t *p = (uint8_t *)workspace;
  size_t pad = (size_t)((0u - (uintptr_t)p) & (WS_ALIGN - 1u));
  size_t ni = (size_t)nb + ns;
  p = &p[pad];
  w->nb = nb;
  w->ns = ns;
  w->ni = nb + ns;
  w->size = (uint32_t *)(void *)p;
  w->off = &w->size[ni];
  w->first = &w->off[ni];
  w->last = &w->first[ni];
  w->order = &w->last[ni];
  w->placed = &w->order[ni];
  w->root = &w->placed[ni];
  w->rel = &w->root[nb];
  w->diff = &w->rel[nb];
}

/* The root of b's group; *at receives b's byte offset from it (the walk is bounded). */
static uint32_t find_root(const ws_t *w, uint32_t b, uint64_t *at) {
  uint32_t x = b;
  uint32_t guard;
  uint64_t sum = 0u;
  for (guard = 0u; guard < w->nb && w->root[x] != x; guard++) {
    sum += w->rel[x];
    x = w->root[x];
  }
  *at = sum;
  return x;
}

/* Links group root r under root to at byte offset at. The root's last step becomes the
 * group's (the fold below computes the same maximum; INPLACE asks for it while groups grow). */
static void join(ws_t *w, uint32_t r, uint32_t to, uint64_t at, uint32_t flags) {
  w->root[r] = to;
  w->rel[r] = (uint32_t)at; /* below the group's size, itself below 2^32 */
  w->off[to] |= LINKED | flags | w->off[r];
  if (w->last[r] > w->last[to]) {
    w->last[to] = w->last[r];
  }
}

static void touch(ws_t *w, uint32_t item, uint32_t step) {
  if (w->first[item] == NONE || step < w->first[item]) {
    w->first[item] = step;
  }
  if (step > w->last[item]) {
    w->last[item] = step;
  }
}

static utvm_err_t check_steps(const utvm_plan_buffer_t *buffers, uint32_t nb,
                              const utvm_plan_step_t *steps, uint32_t ns,
                              const utvm_plan_t *plan) {
  uint32_t s;
  uint32_t k;
  if ((buffers == NULL && nb != 0u) || (steps == NULL && ns != 0u) || plan == NULL ||
      (plan->offsets == NULL && nb != 0u)) {
    return UTVM_ERR_MODEL_ARGUMENT;
  }
  for (s = 0u; s < ns; s++) {
    const utvm_plan_step_t *st = &steps[s];
    if ((st->reads == NULL && st->n_reads != 0u) || (st->writes == NULL && st->n_writes != 0u) ||
        ((st->scratch != 0u || st->inplace_scratch != 0u) && plan->scratch_offsets == NULL)) {
      return UTVM_ERR_MODEL_ARGUMENT;
    }
    for (k = 0u; k < st->n_reads; k++) {
      if (st->reads[k] != UTVM_PLAN_NONE && st->reads[k] >= nb) {
        return UTVM_ERR_MODEL_INDEX;
      }
    }
    for (k = 0u; k < st->n_writes; k++) {
      if (st->writes[k] != UTVM_PLAN_NONE && st->writes[k] >= nb) {
        return UTVM_ERR_MODEL_INDEX;
      }
    }
  }
  return UTVM_OK;
}

/* Whether buffer b may join a view: planned (not constant, not apart) and alone in its group. */
static bool alone(const ws_t *w, uint32_t b) {
  return b != UTVM_PLAN_NONE && w->first[b] != NONE && w->root[b] == b &&
         (w->off[b] & LINKED) == 0u;
}

/* An ALIAS step at s: writes[0] joins the group of reads[0] at its offset, when both are
 * planned, reads[0] is written by no later step and writes[0] only here and is no graph input;
 * into a group with views, only a lone writes[0] no larger than reads[0]. */
static void alias(ws_t *w, const utvm_plan_buffer_t *buffers, const utvm_plan_step_t *st,
                  uint32_t s) {
  const uint32_t *writes = w->order;
  const uint32_t *lastw = w->placed;
  uint32_t in;
  uint32_t out;
  uint64_t at_in;
  uint64_t at_out;
  if (st->n_reads == 0u || st->n_writes == 0u) {
    return;
  }
  in = st->reads[0];
  out = st->writes[0];
  if (in == UTVM_PLAN_NONE || out == UTVM_PLAN_NONE || in == out || w->first[in] == NONE ||
      w->first[out] == NONE || (buffers[out].flags & UTVM_PLAN_INPUT) != 0u ||
      writes[out] != 1u || (writes[in] != 0u && lastw[in] >= s)) {
    return; /* not a safe alias: plan it as a default step */
  }
  const uint32_t rin = find_root(w, in, &at_in);
  const uint32_t rout = find_root(w, out, &at_out);
  if (rin == rout || (((w->off[rin] | w->off[rout]) & VIEWS) != 0u &&
                      (!alone(w, out) || w->size[out] > w->size[in]))) {
    return;
  }
  join(w, rout, rin, at_in - at_out, 0u); /* at_out is 0: only a view has an offset */
}

/* An INPLACE (INPLACE_GROW) step at s: writes[0] joins the group of the first read that dies
 * here at that read's offset (INPLACE_GROW: also a read smaller than the write; see
 * utvm_plan_step_kind_t for the conditions); true when it did. */
static bool inplace(ws_t *w, const utvm_plan_buffer_t *buffers, const utvm_plan_step_t *st,
                    uint32_t s) {
  const uint32_t *writes = w->order;
  const uint32_t *lastw = w->placed;
  const uint32_t out = (st->n_writes > 0u) ? st->writes[0] : UTVM_PLAN_NONE;
  const bool grow = st->kind == UTVM_PLAN_STEP_INPLACE_GROW;
  uint32_t k;
  if (out == UTVM_PLAN_NONE || !alone(w, out) || w->first[out] != s || writes[out] != 1u ||
      (buffers[out].flags & UTVM_PLAN_INPUT) != 0u) {
    return false;
  }
  for (k = 0u; k < st->n_reads; k++) {
    const uint32_t in = st->reads[k];
    uint64_t at;
    uint32_t r;
    if (in == UTVM_PLAN_NONE || in == out || w->first[in] == NONE) {
      continue;
    }
    /* INPLACE_GROW also takes a graph input planned with the activations (written by none) */
    const bool input = (buffers[in].flags & UTVM_PLAN_INPUT) != 0u;
    if ((buffers[in].flags & UTVM_PLAN_OUTPUT) != 0u || (input && !grow) ||
        writes[in] != (input ? 0u : 1u) || (!input && lastw[in] >= s) ||
        (w->size[out] > w->size[in] && !grow)) {
      continue;
    }
    r = find_root(w, in, &at);
    if (w->last[r] == s) { /* the read, and every buffer sharing its bytes, dies here */
      join(w, out, r, at, 0u);
      return true;
    }
  }
  return false;
}

/* Whether a GATHER or SCATTER step at s is safe as views (see utvm_plan_step_kind_t). */
static bool view_safe(const ws_t *w, const utvm_plan_buffer_t *buffers,
                      const utvm_plan_step_t *st, uint32_t s) {
  const uint32_t *writes = w->order;
  const uint32_t *lastw = w->placed;
  const bool gather = st->kind == UTVM_PLAN_STEP_GATHER;
  const uint32_t *pieces = gather ? st->reads : st->writes;
  const uint32_t n = gather ? st->n_reads : st->n_writes;
  uint32_t whole = UTVM_PLAN_NONE;
  uint64_t at = 0u;
  uint32_t j;
  uint32_t k;
  bool ok = (gather ? st->n_writes : st->n_reads) == 1u && n > 0u;
  if (ok) {
    whole = gather ? st->writes[0] : st->reads[0];
    ok = alone(w, whole);
  }
  if (ok && gather) { /* written here only, touched by no step before */
    ok = writes[whole] == 1u && w->first[whole] == s && (buffers[whole].flags & UTVM_PLAN_INPUT) == 0u;
  } else if (ok) { /* written by no step from here on */
    ok = writes[whole] == 0u || lastw[whole] < s;
  } else {
    /* refused */
  }
  for (j = 0u; j < n && ok; j++) {
    const uint32_t b = pieces[j];
    ok = alone(w, b) && b != whole && (buffers[b].flags & UTVM_PLAN_INPUT) == 0u &&
         writes[b] == 1u && (at % UTVM_PLAN_ALIGNMENT) == 0u;
    if (ok && gather) { /* written by one earlier step */
      ok = lastw[b] < s;
    } else if (ok) { /* written here only, touched by no step before */
      ok = w->first[b] == s;
    } else {
      /* refused */
    }
    for (k = 0u; k < j && ok; k++) {
      ok = pieces[k] != b;
    }
    if (ok) {
      at += w->size[b];
    }
  }
  return ok && at == w->size[whole];
}

/* A safe GATHER or SCATTER step: each piece joins the whole at its offset. */
static void view(ws_t *w, const utvm_plan_step_t *st) {
  const bool gather = st->kind == UTVM_PLAN_STEP_GATHER;
  const uint32_t *pieces = gather ? st->reads : st->writes;
  const uint32_t n = gather ? st->n_reads : st->n_writes;
  const uint32_t whole = gather ? st->writes[0] : st->reads[0];
  uint64_t at = 0u;
  uint32_t j;
  for (j = 0u; j < n; j++) {
    join(w, pieces[j], whole, at, VIEWS);
    at += w->size[pieces[j]];
  }
}

/* Lifetimes of the buffers (steps 1 and 2 above). */
static void lifetimes(ws_t *w, const utvm_plan_buffer_t *buffers, const utvm_plan_step_t *steps) {
  uint32_t b;
  uint32_t s;
  uint32_t k;
  uint32_t end = (w->ns == 0u) ? 0u : w->ns - 1u;
  uint32_t *writes = w->order;
  uint32_t *lastw = w->placed;
  for (b = 0u; b < w->nb; b++) {
    w->first[b] = NONE;
    w->last[b] = 0u;
    w->root[b] = b;
    writes[b] = 0u;
    lastw[b] = 0u;
  }
  for (s = 0u; s < w->ns; s++) {
    for (k = 0u; k < steps[s].n_reads; k++) {
      if (steps[s].reads[k] != UTVM_PLAN_NONE) {
        touch(w, steps[s].reads[k], s);
      }
    }
    for (k = 0u; k < steps[s].n_writes; k++) {
      b = steps[s].writes[k];
      if (b != UTVM_PLAN_NONE) {
        touch(w, b, s);
        writes[b]++;
        lastw[b] = s;
      }
    }
  }
  for (b = 0u; b < w->nb; b++) {
    if ((buffers[b].flags & UTVM_PLAN_INPUT) != 0u) {
      touch(w, b, 0u);
    }
    if ((buffers[b].flags & UTVM_PLAN_OUTPUT) != 0u) {
      touch(w, b, end);
    }
    if ((buffers[b].flags & (UTVM_PLAN_CONSTANT | UTVM_PLAN_APART)) != 0u) {
      w->first[b] = NONE;
    }
    w->size[b] = buffers[b].size;
  }
  for (b = 0u; b < w->nb; b++) {
    w->off[b] = 0u;
    w->rel[b] = 0u;
  }
  /* Groups, in step order; each step's scratch (an INPLACE step's own when applied). */
  for (s = 0u; s < w->ns; s++) {
    const utvm_plan_step_t *st = &steps[s];
    w->size[w->nb + s] = st->scratch;
    if (st->kind == UTVM_PLAN_STEP_ALIAS) {
      alias(w, buffers, st, s);
    } else if (st->kind == UTVM_PLAN_STEP_INPLACE || st->kind == UTVM_PLAN_STEP_INPLACE_GROW) {
      if (inplace(w, buffers, st, s)) {
        w->size[w->nb + s] = st->inplace_scratch;
      }
    } else if ((st->kind == UTVM_PLAN_STEP_GATHER || st->kind == UTVM_PLAN_STEP_SCATTER) &&
               view_safe(w, buffers, st, s)) {
      view(w, st);
    } else {
      /* DEFAULT, or a view that is not safe */
    }
  }
  /* Fold each group into its root. */
  for (b = 0u; b < w->nb; b++) {
    uint64_t at;
    uint32_t r = find_root(w, b, &at);
    if (r != b && w->first[b] != NONE) {
      if (w->first[b] < w->first[r]) {
        w->first[r] = w->first[b];
      }
      if (w->last[b] > w->last[r]) {
        w->last[r] = w->last[b];
      }
      at += w->size[b];
      if (at > w->size[r]) {
        w->size[r] = (at > UINT32_MAX) ? UINT32_MAX : (uint32_t)at; /* UINT32_MAX: refused */
      }
    }
  }
  for (b = 0u; b < w->nb; b++) {
    if (w->root[b] != b) {
      w->first[b] = NONE; /* placed through its root */
    }
  }
  for (s = 0u; s < w->ns; s++) {
    w->first[w->nb + s] = (w->size[w->nb + s] != 0u) ? s : NONE;
    w->last[w->nb + s] = s;
  }
}

/* true when item a is placed before item b under order o */
static bool before(const ws_t *w, uint32_t o, uint32_t a, uint32_t b) {
  uint32_t span_a = w->last[a] - w->first[a];
  uint32_t span_b = w->last[b] - w->first[b];
  if (o == 1u && w->first[a] != w->first[b]) {
    return w->first[a] < w->first[b];
  }
  if (o == 2u && span_a != span_b) {
    return span_a > span_b;
  }
  if (w->size[a] != w->size[b]) {
    return w->size[a] > w->size[b];
  }
  if (w->first[a] != w->first[b]) {
    return w->first[a] < w->first[b];
  }
  return a < b;
}

/* Restores the heap property below root in a[0..size): a parent sorts after its children. */
static void sift_down(const ws_t *w, uint32_t o, uint32_t *a, uint32_t root, uint32_t size) {
  uint32_t r = root;
  uint32_t child = 2u * r + 1u;
  while (child < size) { /* r at least doubles each turn */
    uint32_t tmp;
    if (child + 1u < size && before(w, o, a[child], a[child + 1u])) {
      child++;
    }
    if (!before(w, o, a[r], a[child])) {
      break;
    }
    tmp = a[r];
    a[r] = a[child];
    a[child] = tmp;
    r = child;
    child = 2u * r + 1u;
  }
}

/* Heap sort of order[0..n) by before(), without recursion. The comparison is a strict total
 * order, so the result does not depend on the order it starts from. */
static void sort_items(ws_t *w, uint32_t o, uint32_t n) {
  uint32_t i;
  uint32_t *a = w->order;
  for (i = n / 2u; i > 0u; i--) {
    sift_down(w, o, a, i - 1u, n);
  }
  for (i = n; i > 1u; i--) {
    uint32_t tmp = a[0];
    a[0] = a[i - 1u];
    a[i - 1u] = tmp;
    sift_down(w, o, a, 0u, i - 1u);
  }
}

/* Greedy placement of order[0..n); returns the arena size. The items' aligned sizes add up to
 * at most PLAN_MAX_TOTAL, and no end exceeds that sum, so nothing below wraps. */
static uint32_t place(ws_t *w, uint32_t n) {
  uint32_t i;
  uint32_t k;
  uint32_t n_placed = 0u;
  uint32_t arena = 0u;
  for (i = 0u; i < n; i++) {
    uint32_t it = w->order[i];
    uint32_t cand = 0u;
    uint32_t at;
    /* placed[] is sorted by offset, so the first gap that fits is the lowest one */
    for (k = 0u; k < n_placed; k++) {
      uint32_t p = w->placed[k];
      if (w->size[p] == 0u || w->first[p] > w->last[it] || w->first[it] > w->last[p]) {
        continue; /* takes no memory, or lifetimes do not intersect */
      }
      if (cand + w->size[it] <= w->off[p]) {
        break;
      }
      if (align_up(w->off[p] + w->size[p]) > cand) {
        cand = align_up(w->off[p] + w->size[p]);
      }
    }
    w->off[it] = cand;
    if (cand + w->size[it] > arena) {
      arena = cand + w->size[it];
    }
    /* insert by offset (stable: after equal offsets) */
    at = n_placed;
    while (at > 0u && w->off[w->placed[at - 1u]] > cand) {
      w->placed[at] = w->placed[at - 1u];
      at--;
    }
    w->placed[at] = it;
    n_placed++;
  }
  return arena;
}

/* The largest bytes alive at one step. */
static uint32_t lower_bound(ws_t *w) {
  uint32_t i;
  uint32_t s;
  uint32_t sum = 0u;
  uint32_t best = 0u;
  for (s = 0u; s < diff_len(w->ns); s++) {
    w->diff[s] = 0u;
  }
  for (i = 0u; i < w->ni; i++) {
    if (w->first[i] != NONE) {
      /* modular arithmetic: the running sums below are exact (they never exceed the total) */
      w->diff[w->first[i]] += w->size[i];
      w->diff[w->last[i] + 1u] -= w->size[i];
    }
  }
  for (s = 0u; s + 1u < diff_len(w->ns); s++) {
    sum += w->diff[s];
    if (sum > best) {
      best = sum;
    }
  }
  return best;
}

/* The APART buffers one after another after the arena (the total was checked to fit). */
static void place_apart(const utvm_plan_buffer_t *buffers, uint32_t n_buffers, utvm_plan_t *plan) {
  uint32_t at = align_up((uint32_t)plan->arena_size);
  uint32_t b;
  bool any = false;
  plan->io_offset = plan->arena_size;
  for (b = 0u; b < n_buffers; b++) {
    if ((buffers[b].flags & (UTVM_PLAN_APART | UTVM_PLAN_CONSTANT)) == UTVM_PLAN_APART) {
      if (!any) {
        plan->io_offset = at;
        any = true;
      }
      plan->offsets[b] = at;
      at += align_up(buffers[b].size);
      plan->arena_size = at;
    }
  }
}

utvm_err_t utvm_plan(const utvm_plan_buffer_t *buffers, uint32_t n_buffers,
                     const utvm_plan_step_t *steps, uint32_t n_steps, void *workspace,
                     size_t workspace_size, utvm_plan_t *plan) {
  ws_t w;
  uint32_t i;
  uint32_t n = 0u;
  uint32_t o;
  uint32_t best_order = 0u;
  uint32_t last_order = 0u;
  uint32_t bound;
  uint64_t total = 0u;
  uint64_t best_arena = UINT64_MAX;
  utvm_err_t err = check_steps(buffers, n_buffers, steps, n_steps, plan);
  if (err != UTVM_OK) {
    return err;
  }
  if (utvm_plan_workspace_size(n_buffers, n_steps) == SIZE_MAX ||
      workspace_size < utvm_plan_workspace_size(n_buffers, n_steps) || workspace == NULL) {
    return UTVM_ERR_MODEL_PLAN_WORKSPACE;
  }
  ws_carve(&w, workspace, n_buffers, n_steps);
  lifetimes(&w, buffers, steps);
  plan->max_scratch = 0u;
  for (i = 0u; i < w.nb; i++) {
    if ((buffers[i].flags & (UTVM_PLAN_APART | UTVM_PLAN_CONSTANT)) == UTVM_PLAN_APART) {
      total += ((uint64_t)buffers[i].size + UTVM_PLAN_ALIGNMENT - 1u) &
               ~((uint64_t)UTVM_PLAN_ALIGNMENT - 1u);
    }
  }
  for (i = 0u; i < w.ni; i++) {
    if (w.first[i] != NONE) {
      total += ((uint64_t)w.size[i] + UTVM_PLAN_ALIGNMENT - 1u) & ~((uint64_t)UTVM_PLAN_ALIGNMENT - 1u);
      if (total > PLAN_MAX_TOTAL) {
        return UTVM_ERR_MODEL_PLAN_OVERFLOW;
      }
      w.order[n] = i;
      n++;
    }
    if (i >= w.nb && w.size[i] > plan->max_scratch) {
      plan->max_scratch = w.size[i];
    }
  }
  bound = lower_bound(&w);
  plan->lower_bound = bound;
  for (o = 0u; o < N_ORDERS && best_arena > bound; o++) {
    uint32_t arena;
    sort_items(&w, o, n);
    arena = place(&w, n);
    if (arena < best_arena) {
      best_arena = arena;
      best_order = o;
    }
    last_order = o;
  }
  if (best_order != last_order) { /* the offsets are the last order's: place the best again */
    sort_items(&w, best_order, n);
    (void)place(&w, n);
  }
  plan->heuristic = best_order;
  plan->arena_size = (n == 0u) ? 0u : (size_t)best_arena;
  for (i = 0u; i < w.nb; i++) {
    uint64_t at;
    uint32_t r = find_root(&w, i, &at);
    /* a member's offset plus its root's stays below the arena size */
    plan->offsets[i] = (w.first[r] != NONE) ? (w.off[r] + (uint32_t)at) : UTVM_PLAN_NO_OFFSET;
  }
  for (i = 0u; i < w.ns && plan->scratch_offsets != NULL; i++) {
    plan->scratch_offsets[i] = (w.first[w.nb + i] != NONE) ? w.off[w.nb + i] : UTVM_PLAN_NO_OFFSET;
  }
  place_apart(buffers, n_buffers, plan);
  return UTVM_OK;
}

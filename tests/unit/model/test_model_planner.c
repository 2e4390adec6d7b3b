/*
 * The static memory planner on hand-made step lists (chain, diamond, inputs alive from step 0,
 * outputs to the end, aliases, alignment, scratch, constants, bad arguments, random problems
 * checked by an independent checker) and on the shipped models: the arena and lower bound of
 * each, printed beside TensorFlow Lite Micro's arena, which the arena must stay below.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model_check.h"
#include "utvm/model.h"

#ifndef UTVM_SHARED_DIR
#error "UTVM_SHARED_DIR must name the shared/ folder"
#endif

#define MAXB 64u
#define MAXS 64u

/* A problem under construction: buffers, steps and their index lists. */
typedef struct {
  utvm_plan_buffer_t b[MAXB];
  uint32_t nb;
  utvm_plan_step_t s[MAXS];
  uint32_t ns;
  uint32_t idx[MAXS][8];
  uint32_t offsets[MAXB];
  uint32_t scratch[MAXS];
  utvm_plan_t plan;
} problem_t;

static void init(problem_t *p, uint32_t nb, const size_t *sizes) {
  uint32_t i;
  memset(p, 0, sizeof(*p));
  p->nb = nb;
  for (i = 0u; i < nb; i++) {
    p->b[i].size = (uint32_t)sizes[i];
  }
}

/* Adds a step reading r[0..nr) and writing w[0..nw). */
static void step(problem_t *p, uint32_t nr, const uint32_t *r, uint32_t nw, const uint32_t *w,
                 size_t scratch, utvm_plan_step_kind_t kind) {
  utvm_plan_step_t *s = &p->s[p->ns];
  if (nr != 0u) {
    memcpy(p->idx[p->ns], r, nr * sizeof(uint32_t));
  }
  if (nw != 0u) {
    memcpy(&p->idx[p->ns][4], w, nw * sizeof(uint32_t));
  }
  s->reads = p->idx[p->ns];
  s->n_reads = nr;
  s->writes = &p->idx[p->ns][4];
  s->n_writes = nw;
  s->scratch = (uint32_t)scratch;
  s->kind = kind;
  s->inplace_scratch = (uint32_t)scratch;
  p->ns++;
}

/* Plans p and checks the plan independently. */
static utvm_err_t run(problem_t *p) {
  size_t size = utvm_plan_workspace_size(p->nb, p->ns);
  void *ws = malloc(size);
  utvm_err_t err;
  const char *why;
  assert_non_null(ws);
  p->plan.offsets = p->offsets;
  p->plan.scratch_offsets = p->scratch;
  err = utvm_plan(p->b, p->nb, p->s, p->ns, ws, size, &p->plan);
  free(ws);
  if (err == UTVM_OK) {
    why = plan_check(p->b, p->nb, p->s, p->ns, &p->plan);
    if (why != NULL) {
      fail_msg("plan: %s", why);
    }
  }
  return err;
}

static void test_chain(void **state) {
  static const size_t sizes[] = {64, 32, 48, 16};
  static const uint32_t a = 0u, b = 1u, c = 2u, d = 3u;
  problem_t p;
  (void)state;
  init(&p, 4u, sizes);
  p.b[a].flags = UTVM_PLAN_INPUT;
  p.b[d].flags = UTVM_PLAN_OUTPUT;
  step(&p, 1u, &a, 1u, &b, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 1u, &b, 1u, &c, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 1u, &c, 1u, &d, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.plan.lower_bound, 96); /* a + b */
  assert_int_equal(p.plan.arena_size, p.plan.lower_bound);
  assert_int_equal(p.offsets[a], 0);
  assert_int_equal(p.offsets[c], 0); /* a is dead by step 1 */
  assert_int_equal(p.plan.max_scratch, 0);
}

static void test_diamond(void **state) {
  static const size_t sizes[] = {32, 48, 16, 64};
  static const uint32_t a = 0u, b = 1u, c = 2u, d = 3u;
  static const uint32_t bc[] = {1u, 2u};
  problem_t p;
  (void)state;
  init(&p, 4u, sizes);
  p.b[a].flags = UTVM_PLAN_INPUT;
  p.b[d].flags = UTVM_PLAN_OUTPUT;
  step(&p, 1u, &a, 1u, &b, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 1u, &a, 1u, &c, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 2u, bc, 1u, &d, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_int_equal(run(&p), UTVM_OK);
  /* step 1: a + b + c = 96, step 2: b + c + d = 128 */
  assert_int_equal(p.plan.lower_bound, 128);
  assert_int_equal(p.plan.arena_size, 128);
}

static void test_input_lives_from_step_zero(void **state) {
  static const size_t sizes[] = {32, 32, 32, 32};
  static const uint32_t x = 0u, y = 1u, in = 2u, out = 3u;
  static const uint32_t y_in[] = {1u, 2u};
  problem_t p;
  (void)state;
  init(&p, 4u, sizes);
  p.b[in].flags = UTVM_PLAN_INPUT; /* first read at step 2 */
  p.b[out].flags = UTVM_PLAN_OUTPUT;
  step(&p, 0u, NULL, 1u, &x, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 1u, &x, 1u, &y, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 2u, y_in, 1u, &out, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_int_equal(run(&p), UTVM_OK);
  assert_true(p.offsets[in] != p.offsets[x]);
  assert_true(p.offsets[in] != p.offsets[y]);
  assert_int_equal(p.plan.lower_bound, 96);
  assert_int_equal(p.plan.arena_size, 96);
}

static void test_output_lives_to_the_end(void **state) {
  static const size_t sizes[] = {32, 32, 32, 32};
  static const uint32_t in = 0u, out = 1u, x = 2u, y = 3u;
  problem_t p;
  (void)state;
  init(&p, 4u, sizes);
  p.b[in].flags = UTVM_PLAN_INPUT;
  p.b[out].flags = UTVM_PLAN_OUTPUT; /* written at step 0, read by nobody */
  step(&p, 1u, &in, 1u, &out, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 1u, &in, 1u, &x, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 1u, &x, 1u, &y, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_int_equal(run(&p), UTVM_OK);
  assert_true(p.offsets[out] != p.offsets[x]);
  assert_true(p.offsets[out] != p.offsets[y]);
}

static void test_alias(void **state) {
  static const size_t sizes[] = {32, 64, 64, 16};
  static const uint32_t a = 0u, b = 1u, c = 2u, d = 3u;
  problem_t p;
  (void)state;
  init(&p, 4u, sizes);
  p.b[a].flags = UTVM_PLAN_INPUT;
  p.b[d].flags = UTVM_PLAN_OUTPUT;
  step(&p, 1u, &a, 1u, &b, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 1u, &b, 1u, &c, 0u, UTVM_PLAN_STEP_ALIAS); /* RESHAPE */
  step(&p, 1u, &c, 1u, &d, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.offsets[b], p.offsets[c]);
  assert_int_equal(p.plan.lower_bound, 96); /* a + b, b = c counted once */
  assert_int_equal(p.plan.arena_size, 96);
  /* the same as DEFAULT: b and c apart */
  p.s[1].kind = UTVM_PLAN_STEP_DEFAULT;
  assert_int_equal(run(&p), UTVM_OK);
  assert_true(p.offsets[b] != p.offsets[c]);
  assert_int_equal(p.plan.arena_size, 128);
}

/* Plans p as given and again with step s as DEFAULT: the same offsets and arena (a view refused). */
static void assert_as_default(problem_t *p, uint32_t s) {
  uint32_t offsets[MAXB];
  size_t arena;
  assert_int_equal(run(p), UTVM_OK);
  memcpy(offsets, p->offsets, sizeof(offsets));
  arena = p->plan.arena_size;
  p->s[s].kind = UTVM_PLAN_STEP_DEFAULT;
  assert_int_equal(run(p), UTVM_OK);
  assert_int_equal(p->plan.arena_size, arena);
  assert_memory_equal(offsets, p->offsets, p->nb * sizeof(uint32_t));
}

/* INPLACE: the output takes the bytes of a read that dies at the step; a chain of them shares
 * one buffer. */
static void test_inplace(void **state) {
  static const size_t sizes[] = {64, 64, 64, 64, 64};
  static const uint32_t a = 0u, b = 1u, c = 2u, d = 3u, e = 4u;
  problem_t p;
  (void)state;
  init(&p, 5u, sizes);
  p.b[a].flags = UTVM_PLAN_INPUT;
  p.b[e].flags = UTVM_PLAN_OUTPUT;
  step(&p, 1u, &a, 1u, &b, 0u, UTVM_PLAN_STEP_DEFAULT);            /* CONV */
  step(&p, 1u, &b, 1u, &c, 0u, UTVM_PLAN_STEP_INPLACE);            /* RELU */
  step(&p, 1u, &c, 1u, &d, 0u, UTVM_PLAN_STEP_INPLACE);            /* LOGISTIC */
  step(&p, 2u, (const uint32_t[]){3u, 0u}, 1u, &e, 0u, UTVM_PLAN_STEP_INPLACE); /* ADD */
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.offsets[b], p.offsets[c]);
  assert_int_equal(p.offsets[c], p.offsets[d]);
  assert_int_equal(p.offsets[d], p.offsets[e]); /* over d: a is a graph input */
  assert_true(p.offsets[a] != p.offsets[b]);
  assert_int_equal(p.plan.arena_size, 128);
  /* the second read when the first lives on (ADD of d and b, b read again after) */
  init(&p, 5u, sizes);
  p.b[a].flags = UTVM_PLAN_INPUT;
  p.b[e].flags = UTVM_PLAN_OUTPUT;
  step(&p, 1u, &a, 1u, &b, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 1u, &b, 1u, &c, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 2u, (const uint32_t[]){1u, 2u}, 1u, &d, 0u, UTVM_PLAN_STEP_INPLACE);
  step(&p, 2u, (const uint32_t[]){1u, 3u}, 1u, &e, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.offsets[c], p.offsets[d]);
  assert_true(p.offsets[b] != p.offsets[d]);
}

/* INPLACE refused: the read lives on (also through an alias of it), is a graph input or
 * output, is smaller than the write, or the write is a graph input. */
static void test_inplace_refused(void **state) {
  static const size_t sizes[] = {64, 64, 64, 64};
  static const size_t grow[] = {64, 32, 64, 64};
  static const uint32_t a = 0u, b = 1u, c = 2u, d = 3u;
  problem_t p;
  (void)state;
  /* b read again at step 2 */
  init(&p, 4u, sizes);
  p.b[a].flags = UTVM_PLAN_INPUT;
  p.b[d].flags = UTVM_PLAN_OUTPUT;
  step(&p, 1u, &a, 1u, &b, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 1u, &b, 1u, &c, 0u, UTVM_PLAN_STEP_INPLACE);
  step(&p, 2u, (const uint32_t[]){1u, 2u}, 1u, &d, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_as_default(&p, 1u);
  /* b's bytes live on as c, a RESHAPE of b read at step 3 */
  init(&p, 4u, sizes);
  p.b[a].flags = UTVM_PLAN_INPUT;
  p.b[d].flags = UTVM_PLAN_OUTPUT;
  step(&p, 1u, &a, 1u, &b, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 1u, &b, 1u, &c, 0u, UTVM_PLAN_STEP_ALIAS);
  step(&p, 1u, &b, 1u, &d, 0u, UTVM_PLAN_STEP_INPLACE);
  step(&p, 1u, &c, 0u, NULL, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_as_default(&p, 2u);
  /* the read is a graph input; a graph output */
  init(&p, 4u, sizes);
  p.b[a].flags = UTVM_PLAN_INPUT;
  p.b[b].flags = UTVM_PLAN_OUTPUT;
  p.b[c].flags = UTVM_PLAN_OUTPUT;
  step(&p, 1u, &a, 1u, &b, 0u, UTVM_PLAN_STEP_INPLACE);
  step(&p, 1u, &b, 1u, &c, 0u, UTVM_PLAN_STEP_INPLACE);
  assert_int_equal(run(&p), UTVM_OK);
  assert_true(p.offsets[a] != p.offsets[b]);
  assert_true(p.offsets[b] != p.offsets[c]);
  /* the write is larger than the read (QUANTIZE int8 to int16) */
  init(&p, 4u, grow);
  p.b[a].flags = UTVM_PLAN_INPUT;
  p.b[c].flags = UTVM_PLAN_OUTPUT;
  step(&p, 1u, &a, 1u, &b, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 1u, &b, 1u, &c, 0u, UTVM_PLAN_STEP_INPLACE);
  assert_as_default(&p, 1u);
}

/* INPLACE_GROW: a larger write takes a dying read at the read's offset (also when the read is
 * itself an in-place output); a read no smaller as INPLACE. */
static void test_inplace_grow(void **state) {
  static const size_t sizes[] = {32, 32, 64, 64, 128};
  static const uint32_t a = 0u, b = 1u, c = 2u, d = 3u, e = 4u;
  problem_t p;
  (void)state;
  init(&p, 5u, sizes);
  p.b[a].flags = UTVM_PLAN_INPUT;
  p.b[e].flags = UTVM_PLAN_OUTPUT;
  step(&p, 1u, &a, 1u, &b, 0u, UTVM_PLAN_STEP_DEFAULT);       /* CONV 32 -> 32 */
  step(&p, 1u, &b, 1u, &c, 16u, UTVM_PLAN_STEP_INPLACE_GROW); /* 1x1 CONV 32 -> 64 */
  p.s[1].inplace_scratch = 8u;
  step(&p, 1u, &c, 1u, &d, 0u, UTVM_PLAN_STEP_INPLACE_GROW);  /* 64 -> 64 */
  step(&p, 1u, &d, 1u, &e, 0u, UTVM_PLAN_STEP_INPLACE_GROW);  /* 64 -> 128 */
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.offsets[b], p.offsets[c]);
  assert_int_equal(p.offsets[c], p.offsets[d]);
  assert_int_equal(p.offsets[d], p.offsets[e]);
  assert_true(p.offsets[a] != p.offsets[b]);
  /* the applied step's scratch is its in-place one (8), in a's bytes (a dies at step 0): the
   * arena is a (32) and the group (128) */
  assert_int_equal(p.plan.max_scratch, 8u);
  assert_int_equal(p.plan.arena_size, 32u + 128u);
  /* a graph input shared with the activations: taken by INPLACE_GROW, not by INPLACE */
  init(&p, 5u, sizes);
  p.b[a].flags = UTVM_PLAN_INPUT;
  step(&p, 1u, &a, 1u, &c, 0u, UTVM_PLAN_STEP_INPLACE_GROW);
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.offsets[a], p.offsets[c]);
  p.s[0].kind = UTVM_PLAN_STEP_INPLACE;
  assert_int_equal(run(&p), UTVM_OK);
  assert_true(p.offsets[a] != p.offsets[c]);
  p.b[a].flags = UTVM_PLAN_INPUT | UTVM_PLAN_APART;
  p.s[0].kind = UTVM_PLAN_STEP_INPLACE_GROW;
  assert_int_equal(run(&p), UTVM_OK);
  assert_true(p.offsets[a] != p.offsets[c]);
  /* the same larger write as INPLACE is refused */
  init(&p, 5u, sizes);
  p.b[a].flags = UTVM_PLAN_INPUT;
  step(&p, 1u, &a, 1u, &b, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 1u, &b, 1u, &c, 0u, UTVM_PLAN_STEP_INPLACE);
  assert_as_default(&p, 1u);
}

static void test_alias_refused(void **state) {
  static const size_t sizes[] = {32, 32, 32};
  static const uint32_t a = 0u, b = 1u, c = 2u;
  problem_t p;
  (void)state;
  /* the alias input is written again later: no alias */
  init(&p, 3u, sizes);
  p.b[a].flags = UTVM_PLAN_INPUT;
  p.b[c].flags = UTVM_PLAN_OUTPUT;
  step(&p, 1u, &a, 1u, &b, 0u, UTVM_PLAN_STEP_ALIAS);
  step(&p, 1u, &b, 1u, &a, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 2u, (const uint32_t[]){0u, 1u}, 1u, &c, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_int_equal(run(&p), UTVM_OK);
  assert_true(p.offsets[a] != p.offsets[b]);
  /* the alias output is a graph input: no alias */
  init(&p, 3u, sizes);
  p.b[a].flags = UTVM_PLAN_INPUT;
  p.b[b].flags = UTVM_PLAN_INPUT;
  p.b[c].flags = UTVM_PLAN_OUTPUT;
  step(&p, 1u, &a, 1u, &b, 0u, UTVM_PLAN_STEP_ALIAS);
  step(&p, 1u, &b, 1u, &c, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_int_equal(run(&p), UTVM_OK);
  assert_true(p.offsets[a] != p.offsets[b]);
  /* a constant input: the output is placed on its own */
  init(&p, 3u, sizes);
  p.b[a].flags = UTVM_PLAN_CONSTANT;
  p.b[c].flags = UTVM_PLAN_OUTPUT;
  step(&p, 1u, &a, 1u, &b, 0u, UTVM_PLAN_STEP_ALIAS);
  step(&p, 1u, &b, 1u, &c, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.offsets[a], UTVM_PLAN_NO_OFFSET);
  assert_true(p.offsets[b] != UTVM_PLAN_NO_OFFSET);
  /* a chain of aliases shares one offset */
  init(&p, 3u, sizes);
  p.b[a].flags = UTVM_PLAN_INPUT;
  p.b[c].flags = UTVM_PLAN_OUTPUT;
  step(&p, 1u, &a, 1u, &b, 0u, UTVM_PLAN_STEP_ALIAS);
  step(&p, 1u, &b, 1u, &c, 0u, UTVM_PLAN_STEP_ALIAS);
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.offsets[a], p.offsets[b]);
  assert_int_equal(p.offsets[b], p.offsets[c]);
  assert_int_equal(p.plan.arena_size, 32);
}

/* CONCATENATION: b and c, computed from a, become pieces of d at 0 and 32. */
static void gather_problem(problem_t *p, const size_t *sizes) {
  static const uint32_t a = 0u, b = 1u, c = 2u, d = 3u;
  static const uint32_t bc[] = {1u, 2u};
  init(p, 4u, sizes);
  p->b[a].flags = UTVM_PLAN_INPUT;
  p->b[d].flags = UTVM_PLAN_OUTPUT;
  step(p, 1u, &a, 1u, &b, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(p, 1u, &a, 1u, &c, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(p, 2u, bc, 1u, &d, 0u, UTVM_PLAN_STEP_GATHER);
}

static void test_gather(void **state) {
  static const size_t sizes[] = {16, 32, 16, 48};
  problem_t p;
  (void)state;
  gather_problem(&p, sizes);
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.offsets[1], p.offsets[3]);
  assert_int_equal(p.offsets[2], p.offsets[3] + 32u);
  /* step 0: a + d's group (48, alive from step 0); steps 1, 2: the same */
  assert_int_equal(p.plan.lower_bound, 64);
  assert_int_equal(p.plan.arena_size, 64);
  /* as DEFAULT: step 2 holds b, c and d */
  p.s[2].kind = UTVM_PLAN_STEP_DEFAULT;
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.plan.lower_bound, 96);
  assert_true(p.offsets[1] != p.offsets[3]);
}

/* SPLIT: the outputs b and c of a at 0 and 32, each read by a step of its own. */
static void test_scatter(void **state) {
  static const size_t sizes[] = {48, 32, 16, 16, 16};
  static const uint32_t a = 0u, c = 2u, e = 3u, f = 4u;
  static const uint32_t bc[] = {1u, 2u};
  static const uint32_t be[] = {1u, 3u};
  problem_t p;
  (void)state;
  init(&p, 5u, sizes);
  p.b[a].flags = UTVM_PLAN_INPUT;
  p.b[f].flags = UTVM_PLAN_OUTPUT;
  step(&p, 1u, &a, 2u, bc, 0u, UTVM_PLAN_STEP_SCATTER);
  step(&p, 1u, &c, 1u, &e, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 2u, be, 1u, &f, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.offsets[1], p.offsets[a]);
  assert_int_equal(p.offsets[c], p.offsets[a] + 32u);
  /* a's group (48) alive until step 2 (b read there), e and f 16 each */
  assert_int_equal(p.plan.lower_bound, 80);
  assert_int_equal(p.plan.arena_size, 80);
  p.s[0].kind = UTVM_PLAN_STEP_DEFAULT;
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.plan.lower_bound, 96); /* step 0: a + b + c */
}

/* Views and aliases: an alias of a piece joins at the piece's offset; a larger one is refused,
 * as is a view of a buffer already in a group. */
static void test_views_and_aliases(void **state) {
  static const size_t sizes[] = {32, 16, 16, 16, 32};
  static const uint32_t a = 0u, c = 2u, d = 3u, e = 4u;
  static const uint32_t bc[] = {1u, 2u};
  static const uint32_t bd[] = {1u, 3u};
  problem_t p;
  (void)state;
  init(&p, 5u, sizes);
  p.b[a].flags = UTVM_PLAN_INPUT;
  p.b[e].flags = UTVM_PLAN_OUTPUT;
  step(&p, 1u, &a, 2u, bc, 0u, UTVM_PLAN_STEP_SCATTER);
  step(&p, 1u, &c, 1u, &d, 0u, UTVM_PLAN_STEP_ALIAS);
  step(&p, 2u, bd, 1u, &e, 0u, UTVM_PLAN_STEP_GATHER);
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.offsets[c], p.offsets[a] + 16u);
  assert_int_equal(p.offsets[d], p.offsets[c]);
  assert_true(p.offsets[e] != p.offsets[1]); /* b and d already in a's group: no gather */
  assert_int_equal(p.plan.arena_size, 64);
  /* an alias larger than its piece would cover the next piece: refused */
  init(&p, 5u, (const size_t[]){32, 16, 16, 32, 48});
  p.b[a].flags = UTVM_PLAN_INPUT;
  p.b[e].flags = UTVM_PLAN_OUTPUT;
  step(&p, 1u, &a, 2u, bc, 0u, UTVM_PLAN_STEP_SCATTER);
  step(&p, 1u, &c, 1u, &d, 0u, UTVM_PLAN_STEP_ALIAS);
  step(&p, 2u, bd, 1u, &e, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.offsets[c], p.offsets[a] + 16u);
  assert_true(p.offsets[d] != p.offsets[c]);
}

/* Every unsafe view is planned as DEFAULT. */
static void test_views_refused(void **state) {
  static const size_t sizes[] = {16, 32, 16, 48};
  static const size_t odd[] = {16, 24, 24, 48};
  static const size_t short_sizes[] = {16, 32, 16, 64};
  static const uint32_t a = 0u, b = 1u, d = 3u;
  static const uint32_t bn[] = {1u, UTVM_PLAN_NONE};
  problem_t p;
  (void)state;
  gather_problem(&p, odd); /* piece 1 at 24: not aligned */
  assert_as_default(&p, 2u);
  gather_problem(&p, short_sizes); /* the pieces do not cover the whole */
  assert_as_default(&p, 2u);
  gather_problem(&p, sizes); /* a read is a graph input */
  p.b[b].flags = UTVM_PLAN_INPUT;
  assert_as_default(&p, 2u);
  gather_problem(&p, sizes); /* a read is constant */
  p.b[b].flags = UTVM_PLAN_CONSTANT;
  assert_as_default(&p, 2u);
  gather_problem(&p, sizes); /* the whole is apart */
  p.b[d].flags |= UTVM_PLAN_APART;
  assert_as_default(&p, 2u);
  gather_problem(&p, sizes); /* a read twice */
  p.idx[2][1] = 1u;
  p.b[d].size = 64u;
  assert_as_default(&p, 2u);
  gather_problem(&p, sizes); /* an absent read */
  memcpy(p.idx[2], bn, sizeof(bn));
  assert_as_default(&p, 2u);
  gather_problem(&p, sizes); /* a read written again after the gather */
  step(&p, 1u, &a, 1u, &b, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_as_default(&p, 2u);
  gather_problem(&p, sizes); /* a read written by the gather itself */
  p.s[2].n_writes = 2u;
  p.idx[2][5] = b;
  assert_as_default(&p, 2u);
  gather_problem(&p, sizes); /* the whole read before the gather */
  p.idx[0][1] = d;
  p.s[0].n_reads = 2u;
  assert_as_default(&p, 2u);
  gather_problem(&p, sizes); /* the whole written again */
  step(&p, 1u, &a, 1u, &d, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_as_default(&p, 2u);
  gather_problem(&p, sizes); /* a piece already aliased */
  p.s[1].kind = UTVM_PLAN_STEP_ALIAS;
  p.b[2].size = 16u;
  p.b[a].size = 16u;
  assert_as_default(&p, 2u);
  /* SCATTER: the whole written later, a write written twice, two reads, a repeated write */
  gather_problem(&p, sizes);
  p.s[2].kind = UTVM_PLAN_STEP_DEFAULT;
  step(&p, 1u, &d, 2u, (const uint32_t[]){4u, 5u}, 0u, UTVM_PLAN_STEP_SCATTER);
  p.nb = 6u;
  p.b[4].size = 16u;
  p.b[5].size = 32u;
  p.b[5].flags = UTVM_PLAN_OUTPUT;
  p.b[4].flags = UTVM_PLAN_OUTPUT;
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.offsets[4], p.offsets[d]); /* the safe case */
  assert_int_equal(p.offsets[5], p.offsets[d] + 16u);
  step(&p, 1u, &a, 1u, &d, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_as_default(&p, 3u);
  p.ns = 4u;
  p.s[3].kind = UTVM_PLAN_STEP_SCATTER;
  step(&p, 1u, &a, 1u, (const uint32_t[]){5u}, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_as_default(&p, 3u);
  p.ns = 4u;
  p.s[3].kind = UTVM_PLAN_STEP_SCATTER;
  p.s[3].n_reads = 2u;
  p.idx[3][1] = a;
  assert_as_default(&p, 3u);
  p.s[3].kind = UTVM_PLAN_STEP_SCATTER;
  p.s[3].n_reads = 1u;
  p.idx[3][4] = 4u;
  p.idx[3][5] = 4u;
  p.b[d].size = 32u;
  assert_as_default(&p, 3u);
}

static void test_alignment(void **state) {
  static const size_t sizes[] = {1, 3, 17, 5};
  static const uint32_t all[] = {0u, 1u, 2u};
  static const uint32_t out = 3u;
  problem_t p;
  uint32_t i;
  (void)state;
  init(&p, 4u, sizes);
  for (i = 0u; i < 3u; i++) {
    p.b[i].flags = UTVM_PLAN_INPUT;
  }
  p.b[out].flags = UTVM_PLAN_OUTPUT;
  step(&p, 3u, all, 1u, &out, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_int_equal(run(&p), UTVM_OK);
  for (i = 0u; i < 4u; i++) {
    assert_int_equal(p.offsets[i] % UTVM_PLAN_ALIGNMENT, 0);
  }
  /* 17 at 0, then 5, 3, 1 at 32, 48, 64: arena 65, lower bound 26 */
  assert_int_equal(p.plan.arena_size, 65);
  assert_int_equal(p.plan.lower_bound, 26);
}

static void test_scratch_and_constants(void **state) {
  static const size_t sizes[] = {32, 32, 1000, 32};
  static const uint32_t in = 0u, mid = 1u, weights = 2u, out = 3u;
  static const uint32_t in_w[] = {0u, 2u};
  problem_t p;
  (void)state;
  init(&p, 4u, sizes);
  p.b[in].flags = UTVM_PLAN_INPUT;
  p.b[weights].flags = UTVM_PLAN_CONSTANT;
  p.b[out].flags = UTVM_PLAN_OUTPUT;
  step(&p, 2u, in_w, 1u, &mid, 100u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 1u, &mid, 1u, &out, 48u, UTVM_PLAN_STEP_DEFAULT);
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.offsets[weights], UTVM_PLAN_NO_OFFSET);
  assert_int_equal(p.plan.max_scratch, 100);
  assert_true(p.scratch[0] != UTVM_PLAN_NO_OFFSET);
  assert_int_equal(p.plan.lower_bound, 164); /* step 0: 32 + 32 + 100 */
  /* the scratch of step 1 may reuse the input's memory */
  assert_true(p.plan.arena_size <= 176);
}

/* APART buffers (inputs and outputs with buffers of their own) follow the arena, one after
 * another, each aligned; the rest is planned without them. */
static void test_apart(void **state) {
  static const size_t sizes[] = {20, 40, 33};
  static const uint32_t in = 0u, mid = 1u, out = 2u;
  problem_t p;
  (void)state;
  init(&p, 3u, sizes);
  p.b[in].flags = UTVM_PLAN_INPUT | UTVM_PLAN_APART;
  p.b[out].flags = UTVM_PLAN_OUTPUT | UTVM_PLAN_APART;
  step(&p, 1u, &in, 1u, &mid, 0u, UTVM_PLAN_STEP_DEFAULT);
  step(&p, 1u, &mid, 1u, &out, 0u, UTVM_PLAN_STEP_DEFAULT);
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.offsets[mid], 0);
  assert_int_equal(p.plan.lower_bound, 40);
  assert_int_equal(p.plan.io_offset, 48);
  assert_int_equal(p.offsets[in], 48);
  assert_int_equal(p.offsets[out], 80);
  assert_int_equal(p.plan.arena_size, 128);
  /* without APART buffers io_offset is the arena's end */
  p.b[in].flags = UTVM_PLAN_INPUT;
  p.b[out].flags = UTVM_PLAN_OUTPUT;
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.plan.io_offset, p.plan.arena_size);
}

static void test_unused_and_empty(void **state) {
  static const size_t sizes[] = {32, 32};
  problem_t p;
  (void)state;
  init(&p, 2u, sizes);
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.plan.arena_size, 0);
  assert_int_equal(p.offsets[0], UTVM_PLAN_NO_OFFSET);
  /* no steps: inputs and outputs alive together at "step 0" */
  p.b[0].flags = UTVM_PLAN_INPUT;
  p.b[1].flags = UTVM_PLAN_OUTPUT;
  assert_int_equal(run(&p), UTVM_OK);
  assert_int_equal(p.plan.arena_size, 64);
  assert_int_equal(p.plan.lower_bound, 64);
}

static void test_bad_arguments(void **state) {
  static const size_t sizes[] = {32, 32};
  static const uint32_t a = 0u, bad = 5u;
  problem_t p;
  uint8_t ws[4096];
  (void)state;
  init(&p, 2u, sizes);
  step(&p, 1u, &a, 1u, &bad, 0u, UTVM_PLAN_STEP_DEFAULT);
  p.plan.offsets = p.offsets;
  p.plan.scratch_offsets = p.scratch;
  assert_int_equal(utvm_plan(p.b, p.nb, p.s, p.ns, ws, sizeof(ws), &p.plan), UTVM_ERR_MODEL_INDEX);
  p.idx[0][4] = 1u;
  assert_int_equal(utvm_plan(p.b, p.nb, p.s, p.ns, ws, 8u, &p.plan), UTVM_ERR_MODEL_PLAN_WORKSPACE);
  assert_int_equal(utvm_plan(p.b, p.nb, p.s, p.ns, NULL, sizeof(ws), &p.plan),
                   UTVM_ERR_MODEL_PLAN_WORKSPACE);
  assert_int_equal(utvm_plan(p.b, p.nb, p.s, p.ns, ws, sizeof(ws), NULL), UTVM_ERR_MODEL_ARGUMENT);
  p.s[0].scratch = 8u;
  p.plan.scratch_offsets = NULL;
  assert_int_equal(utvm_plan(p.b, p.nb, p.s, p.ns, ws, sizeof(ws), &p.plan), UTVM_ERR_MODEL_ARGUMENT);
  p.plan.scratch_offsets = p.scratch;
  /* a workspace at an odd address is aligned internally */
  assert_int_equal(utvm_plan(p.b, p.nb, p.s, p.ns, &ws[1], utvm_plan_workspace_size(2u, 1u),
                             &p.plan), UTVM_OK);
  /* offsets are 32-bit: the aligned sizes may add up to 4 GiB - 16, not more */
  p.s[0].scratch = 0u;
  p.b[0].size = 0xFFFFFFF0u;
  p.b[1].size = 0u;
  assert_int_equal(utvm_plan(p.b, p.nb, p.s, p.ns, ws, sizeof(ws), &p.plan), UTVM_OK);
  assert_int_equal(p.plan.arena_size, 0xFFFFFFF0u);
  p.b[0].size = UINT32_MAX - 4u;
  assert_int_equal(utvm_plan(p.b, p.nb, p.s, p.ns, ws, sizeof(ws), &p.plan),
                   UTVM_ERR_MODEL_PLAN_OVERFLOW);
  p.b[0].size = 0x80000000u;
  p.b[1].size = 0x80000000u;
  assert_int_equal(utvm_plan(p.b, p.nb, p.s, p.ns, ws, sizeof(ws), &p.plan),
                   UTVM_ERR_MODEL_PLAN_OVERFLOW);
  assert_int_equal(utvm_plan_workspace_size(0x7FFFFFFFu, 2u), SIZE_MAX);
}

static uint32_t rnd(uint32_t *seed) {
  *seed = *seed * 1103515245u + 12345u;
  return (*seed >> 16) & 0x7FFFu;
}

/* Random problems: every plan passes the checker, and planning twice gives the same plan. */
static void test_random_problems(void **state) {
  uint32_t seed = 12345u;
  uint32_t round;
  (void)state;
  for (round = 0u; round < 300u; round++) {
    problem_t p;
    size_t sizes[MAXB];
    uint32_t first[MAXB];
    uint32_t nb = 2u + round % 40u;
    uint32_t ns = 1u + (round * 7u) % 30u;
    uint32_t i;
    uint32_t k;
#define RND() rnd(&seed)
    for (i = 0u; i < nb; i++) {
      sizes[i] = (RND() % 8u == 0u) ? 0u : (size_t)(RND() % 500u);
    }
    init(&p, nb, sizes);
    for (i = 0u; i < nb; i++) {
      uint32_t f = RND() % 16u;
      p.b[i].flags = ((f & 1u) ? UTVM_PLAN_INPUT : 0u) | ((f & 2u) ? UTVM_PLAN_OUTPUT : 0u) |
                     ((f & 12u) == 12u ? UTVM_PLAN_CONSTANT : 0u);
    }
    for (i = 0u; i < ns; i++) {
      uint32_t r[3];
      uint32_t w[2];
      uint32_t nr = RND() % 4u;
      uint32_t nw = RND() % 3u;
      for (k = 0u; k < nr; k++) {
        r[k] = (RND() % 10u == 0u) ? UTVM_PLAN_NONE : RND() % nb;
      }
      for (k = 0u; k < nw; k++) {
        w[k] = RND() % nb;
      }
      {
        size_t scratch = (RND() % 4u == 0u) ? (size_t)(RND() % 200u) : 0u;
        static const utvm_plan_step_kind_t kinds[] = {
            UTVM_PLAN_STEP_ALIAS, UTVM_PLAN_STEP_GATHER, UTVM_PLAN_STEP_SCATTER,
            UTVM_PLAN_STEP_INPLACE, UTVM_PLAN_STEP_INPLACE_GROW, UTVM_PLAN_STEP_DEFAULT,
            UTVM_PLAN_STEP_DEFAULT};
        utvm_plan_step_kind_t kind = kinds[RND() % 7u];
        step(&p, nr, r, nw, w, scratch, kind);
      }
    }
#undef RND
    assert_int_equal(run(&p), UTVM_OK);
    memcpy(first, p.offsets, nb * sizeof(uint32_t));
    {
      size_t arena = p.plan.arena_size;
      assert_int_equal(run(&p), UTVM_OK);
      assert_int_equal(p.plan.arena_size, arena);
      assert_memory_equal(first, p.offsets, nb * sizeof(uint32_t));
    }
  }
}

/* ---- the shipped models ---- */

typedef struct {
  const char *name;
  const char *file;
  size_t tflm_arena; /* 0: not published */
} shipped_t;

static const shipped_t shipped[] = {
    {"person_detect", "person_detect_int8.tflite", 85024u},
    {"micro_speech", "micro_speech_int8.tflite", 7312u},
    {"KWS (DS-CNN)", "mlperf_tiny_kws_dscnn_int8.tflite", 24000u},
    {"VWW (MobileNetV1)", "mlperf_tiny_vww_mobilenetv1_int8.tflite", 103392u},
    {"IC (ResNet-8)", "mlperf_tiny_ic_resnet8_int8.tflite", 55712u},
    {"AD (autoencoder)", "mlperf_tiny_ad_autoencoder_int8.tflite", 3424u},
    {"hello_world", "hello_world_int8.tflite", 1184u},
    {"network_tester", "refdata/network_tester/network_model.tflite", 0u},
    {"ops/chain_dscnn", "ops/chain_dscnn.tflite", 0u},
};

static void test_shipped_models(void **state) {
  size_t i;
  (void)state;
  print_message("%-20s %9s %11s %11s %11s %10s\n", "model", "operators", "arena B",
                "lower bd B", "TFLM B", "workspace");
  for (i = 0u; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
    char path[512];
    FILE *f;
    long n;
    uint8_t *data;
    utvm_model_t m;
    utvm_plan_t plan;
    utvm_plan_t io_plan;
    utvm_err_t err;
    const char *why;
    (void)snprintf(path, sizeof(path), "%s/models/%s", UTVM_SHARED_DIR, shipped[i].file);
    f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_int_equal(fseek(f, 0, SEEK_SET), 0);
    data = (uint8_t *)malloc((size_t)n);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
    (void)fclose(f);
    assert_int_equal(utvm_model_open(&m, data, (size_t)n), UTVM_OK);
    why = model_plan_check(&m, 0u, 0u, &plan, &err);
    if (why != NULL || err != UTVM_OK) {
      fail_msg("%s: %s %s", shipped[i].name, why != NULL ? why : utvm_strerror(err), m.error);
    }
    print_message("%-20s %9u %11zu %11zu %11zu %10zu\n", shipped[i].name, m.n_operators,
                  plan.arena_size, plan.lower_bound, shipped[i].tflm_arena,
                  utvm_model_plan_workspace_size(&m));
    assert_true(plan.arena_size >= plan.lower_bound);
    if (shipped[i].tflm_arena != 0u) {
      assert_true(plan.arena_size < shipped[i].tflm_arena);
    }
    /* Inputs and outputs apart: the activations below io_offset, then the IO area. */
    why = model_plan_check(&m, 0u, UTVM_MODEL_PLAN_IO_SEPARATE, &io_plan, &err);
    if (why != NULL || err != UTVM_OK) {
      fail_msg("%s (IO apart): %s %s", shipped[i].name, why != NULL ? why : utvm_strerror(err),
               m.error);
    }
    /* (The activations alone may exceed the shared plan: a RESHAPE of an input, a view when
     * IO is shared, becomes a copy.) */
    print_message("%-20s IO apart: activations %zu + IO %zu\n", shipped[i].name,
                  io_plan.io_offset, io_plan.arena_size - io_plan.io_offset);
    assert_true(io_plan.arena_size > io_plan.io_offset);
    free(data);
  }
}

/* The ops2 models with SPLIT, SPLIT_V, UNPACK, CONCATENATION and PACK, their steps asked to be
 * views whatever the axis (an odd scratch seed): every plan passes the checker, views or not
 * (split_c3_i8's pieces of 32 bytes do become views). */
static void test_views_on_models(void **state) {
  static const char *const names[] = {"split_c3_i8", "split_c3_i16", "split_v_w_i8",
                                      "split_v_w_i16", "pack_axis0_i8", "pack_axis0_i16",
                                      "unpack_axis0_i8", "unpack_axis0_i16", "concat_axis3_i16"};
  size_t i;
  (void)state;
  for (i = 0u; i < sizeof(names) / sizeof(names[0]); i++) {
    char path[512];
    FILE *f;
    long n;
    uint8_t *data;
    utvm_model_t m;
    utvm_plan_t plan;
    utvm_err_t err;
    uint32_t seed;
    const char *why;
    (void)snprintf(path, sizeof(path), "%s/models/ops2/%s.tflite", UTVM_SHARED_DIR, names[i]);
    f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_int_equal(fseek(f, 0, SEEK_SET), 0);
    data = (uint8_t *)malloc((size_t)n);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
    (void)fclose(f);
    assert_int_equal(utvm_model_open(&m, data, (size_t)n), UTVM_OK);
    why = model_plan_check(&m, 2u, 0u, &plan, &err);
    if (why != NULL || err != UTVM_OK) {
      fail_msg("%s: %s %s", names[i], why != NULL ? why : utvm_strerror(err), m.error);
    }
    for (seed = 1u; seed < 8u; seed += 2u) {
      why = model_plan_check(&m, seed, 0u, &plan, &err);
      if (why != NULL || err != UTVM_OK) {
        fail_msg("%s (views, seed %u): %s %s", names[i], seed,
                 why != NULL ? why : utvm_strerror(err), m.error);
      }
      why = model_plan_check(&m, seed, UTVM_MODEL_PLAN_IO_SEPARATE, NULL, &err);
      if (why != NULL || err != UTVM_OK) {
        fail_msg("%s (views, IO apart, seed %u): %s %s", names[i], seed,
                 why != NULL ? why : utvm_strerror(err), m.error);
      }
    }
    free(data);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chain),
      cmocka_unit_test(test_apart),
      cmocka_unit_test(test_diamond),
      cmocka_unit_test(test_input_lives_from_step_zero),
      cmocka_unit_test(test_output_lives_to_the_end),
      cmocka_unit_test(test_alias),
      cmocka_unit_test(test_alias_refused),
      cmocka_unit_test(test_inplace),
      cmocka_unit_test(test_inplace_refused),
      cmocka_unit_test(test_inplace_grow),
      cmocka_unit_test(test_gather),
      cmocka_unit_test(test_scatter),
      cmocka_unit_test(test_views_and_aliases),
      cmocka_unit_test(test_views_refused),
      cmocka_unit_test(test_alignment),
      cmocka_unit_test(test_scratch_and_constants),
      cmocka_unit_test(test_unused_and_empty),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_random_problems),
      cmocka_unit_test(test_shipped_models),
      cmocka_unit_test(test_views_on_models),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

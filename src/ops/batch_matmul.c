/* BATCH_MATMUL (int8, or int16 with zero points 0; ranks 2 to 5, batch dimensions broadcast;
 * adj_x, adj_y): options, prepare, run, op params, emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* BatchMatMulOptions (BuiltinOptions 101); asymmetric_quantize_inputs (2) concerns float
 * hybrids. */
enum { ADJ_X, ADJ_Y, N_OPTIONS };
static const ops_field_t bmm_options[N_OPTIONS] = {{0u, OPS_U8, OPS_ANY, 0, "adj_x"},
                                                   {1u, OPS_U8, OPS_ANY, 0, "adj_y"}};

typedef struct {
  ops_ref_t lhs;
  ops_ref_t rhs;
  uint32_t output;
  utvm_batch_matmul_params_t params;
} bmm_record_t;

static size_t bmm_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(bmm_record_t));
}

/* Dimension d (0..4) of t seen as 5-D with leading 1s. */
static int32_t bmm_dim5(const ops_operand_t *t, uint32_t d) {
  const uint32_t lead = 5u - t->t.rank;
  return (d < lead) ? 1 : t->t.dims[d - lead];
}

/* Shapes: ranks 2..5, broadcasting batch dimensions, matching depths, the output's shape. */
static utvm_err_t bmm_shapes(const utvm_op_context_t *c, const ops_operand_t *l,
                             const ops_operand_t *r, const ops_operand_t *out,
                             utvm_batch_matmul_params_t *p) {
  uint32_t d;
  utvm_err_t err = UTVM_OK;
  if ((l->t.rank < 2u) || (l->t.rank > 5u) || (r->t.rank < 2u) || (r->t.rank > 5u)) {
    return ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED, "an input is not 2-D to 5-D");
  }
  const uint32_t rank = (l->t.rank > r->t.rank) ? l->t.rank : r->t.rank;
  for (d = 0u; (d < 3u) && (err == UTVM_OK); d++) {
    const int32_t a = bmm_dim5(l, d);
    const int32_t b = bmm_dim5(r, d);
    if ((a != b) && (a != 1) && (b != 1)) {
      err = ops_fail_fit(c, "rhs", r, "lhs", l);
    }
    p->lhs_batch[d] = a;
    p->rhs_batch[d] = b;
    p->batch[d] = (a > b) ? a : b;
  }
  p->rows = (p->adj_x != 0) ? bmm_dim5(l, 4u) : bmm_dim5(l, 3u);
  p->depth = (p->adj_x != 0) ? bmm_dim5(l, 3u) : bmm_dim5(l, 4u);
  p->cols = (p->adj_y != 0) ? bmm_dim5(r, 3u) : bmm_dim5(r, 4u);
  const int32_t rhs_depth = (p->adj_y != 0) ? bmm_dim5(r, 4u) : bmm_dim5(r, 3u);
  if ((err == UTVM_OK) && (rhs_depth != p->depth)) {
    err = ops_fail_fit(c, "rhs", r, "lhs", l);
  }
  bool fits = out->t.rank == rank;
  for (d = 0u; fits && (d < rank); d++) {
    const uint32_t at = (5u - rank) + d;
    const int32_t want = (at < 3u) ? p->batch[at] : ((at == 3u) ? p->rows : p->cols);
    fits = out->t.dims[d] == want;
  }
  if ((err == UTVM_OK) && !fits) {
    err = ops_fail_fit(c, "output", out, "lhs and rhs of", l);
  }
  return err;
}

static utvm_err_t bmm_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  bmm_record_t *rec = (bmm_record_t *)record;
  utvm_batch_matmul_params_t *p = &rec->params;
  ops_operand_t l;
  ops_operand_t r;
  ops_operand_t out;
  int32_t o[N_OPTIONS];
  bool s16 = false;
  bool r16 = false;
  bool o16 = false;
  (void)size;
  utvm_err_t err = ops_options(c, bmm_options, N_OPTIONS, o);
  if (err == UTVM_OK) {
    err = ops_load(c, 0u, &l);
  }
  if (err == UTVM_OK) {
    err = ops_load(c, 1u, &r);
  }
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, &out);
  }
  if (err == UTVM_OK) {
    err = ops_check_q8_q16(c, &l, "lhs", &s16);
  }
  if (err == UTVM_OK) {
    err = ops_check_q8_q16(c, &r, "rhs", &r16);
  }
  if (err == UTVM_OK) {
    err = ops_check_q8_q16(c, &out, "output", &o16);
  }
  if ((err == UTVM_OK) && ((r16 != s16) || (o16 != s16))) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED, "lhs, rhs and output types differ");
  }
  p->adj_x = 0;
  p->adj_y = 0;
  if (o[ADJ_X] != 0) {
    p->adj_x = 1;
  }
  if (o[ADJ_Y] != 0) {
    p->adj_y = 1;
  }
  if (err == UTVM_OK) {
    err = bmm_shapes(c, &l, &r, &out, p);
  }
  if (err == UTVM_OK) {
    const float product = l.t.quant.scale * r.t.quant.scale;
    err = utvm_quantize_multiplier((double)product / (double)out.t.quant.scale, &p->multiplier,
                                   &p->shift);
    err = (err == UTVM_OK) ? ops_check_shift(c, p->shift) : ops_fail_kernel(c, err, "rescale");
  }
  if ((err == UTVM_OK) && s16 && (p->shift > 7)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED, "the rescale is above 2^7 (int16)");
  }
  if (err == UTVM_OK) {
    err = ops_input_ref(c, &l, &rec->lhs);
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &r, &rec->rhs, &out, &rec->output);
  }
  p->element_size = 1;
  if (s16) {
    p->element_size = 2;
  }
  p->lhs_offset = -l.t.quant.zero_point;
  p->rhs_offset = -r.t.quant.zero_point;
  p->output_offset = out.t.quant.zero_point;
  return err;
}

static utvm_err_t bmm_execute(const void *record, uint8_t *arena) {
  const bmm_record_t *r = (const bmm_record_t *)record;
  return utvm_batch_matmul(&r->params, ops_in(arena, &r->lhs), ops_in(arena, &r->rhs),
                           &arena[r->output]);
}

static void bmm_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const bmm_record_t *r = (const bmm_record_t *)record;
  (void)core;
  p->kind = UTVM_OP_BATCH_MATMUL;
  p->p.bmm = r->params;
}

const utvm_op_t utvm_op_batch_matmul = {(int32_t)UTVM_MODEL_OP_BATCH_MATMUL, 2u, 2u, 101u,
                                        bmm_record_size, NULL, bmm_prepare, bmm_execute,
                                        bmm_export, ops_inputs_2, 0u, 0u, NULL, NULL, NULL,
                                        NULL, NULL};

/* ---- The kernel function utvm_k_batch_matmul ---- */

typedef char bmm_check_params[(sizeof(utvm_batch_matmul_params_t) == 80u) ? 1 : -1];

static void bmm_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, &p->p.bmm, sizeof(p->p.bmm));
}

static const char *bmm_check(utvm_op_params_t *p) {
  const utvm_batch_matmul_params_t *b = &p->p.bmm;
  const char *why = ops_check_n_inputs(p, 2u);
  uint64_t lhs = (uint64_t)b->rows * (uint64_t)b->depth;
  uint64_t rhs = (uint64_t)b->depth * (uint64_t)b->cols;
  uint64_t out = (uint64_t)b->rows * (uint64_t)b->cols;
  uint32_t d;
  if ((why == NULL) && ((b->rows < 1) || (b->depth < 1) || (b->cols < 1) ||
                        ((b->element_size != 1) && (b->element_size != 2)))) {
    why = "a size is < 1 or the element size not 1 or 2";
  }
  for (d = 0u; (why == NULL) && (d < 3u); d++) {
    if ((b->batch[d] < 1) || (b->lhs_batch[d] < 1) || (b->rhs_batch[d] < 1)) {
      why = "a batch dimension is < 1";
    } else {
      lhs *= (uint64_t)b->lhs_batch[d];
      rhs *= (uint64_t)b->rhs_batch[d];
      out *= (uint64_t)b->batch[d];
    }
  }
  if (why == NULL) {
    const utvm_op_type_t t = (b->element_size == 2) ? UTVM_OP_TYPE_INT16 : UTVM_OP_TYPE_INT8;
    if (!ops_set_operand(p, 0u, t, lhs) || !ops_set_operand(p, 1u, t, rhs) ||
        !ops_set_operand(p, 2u, t, out)) {
      why = "a tensor is too large";
    }
  }
  return why;
}

static utvm_err_t bmm_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_batch_matmul(&p->p.bmm, data[0], data[1], data[2]);
}

const utvm_op_kind_info_t utvm_op_kind_batch_matmul = {bmm_walk, bmm_check, NULL, bmm_run,
                                                       UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t bmm_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_INPUT, 0u},
    {UTVM_EMIT_INPUT, 1u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_batch_matmul = {"utvm_batch_matmul_params_t",
    "batch[3] lhs_batch[3] rhs_batch[3] rows depth cols adj_x adj_y element_size lhs_offset "
    "rhs_offset output_offset multiplier shift",
    bmm_args, NULL};

/* SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND (int8, float32; 3-D or 4-D; constant block shape and
 * paddings or crops): prepare, run, op params, emit of the byte-generic kernel utvm_space_batch
 * (kind SPACE_BATCH). SPACE_TO_BATCH_ND pads with the output zero point (float32: 0), as
 * TFLite's kernel (TFLM's micro kernel leaves its pad value unset). int16 is refused: TFLM has
 * int8 and float32 only. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ops_internal.h"

typedef struct {
  ops_ref_t input;
  uint32_t output;
  int32_t type;        /* utvm_op_type_t */
  utvm_dims_t dims[2]; /* space, batch */
  utvm_space_batch_params_t params;
} space_batch_record_t;

static size_t space_batch_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(space_batch_record_t));
}

/* A 3-D [n, h, c] or 4-D tensor as [n, h, w, c]. */
static utvm_dims_t space_batch_dims(const ops_operand_t *o) {
  utvm_dims_t d = {o->t.dims[0], o->t.dims[1], 1, o->t.dims[o->t.rank - 1u]};
  if (o->t.rank == 4u) {
    d.w = o->t.dims[2];
  }
  return d;
}

/* The block shape (input 1: constant int32 [rank - 2], each >= 1) and the paddings or crops
 * (input 2: constant int32 [rank - 2, 2], each >= 0) into rec; after[] receives the bottom and
 * right amounts. */
static utvm_err_t space_batch_lists(const utvm_op_context_t *c, const ops_operand_t *in,
                                    const char *role, space_batch_record_t *rec,
                                    int32_t *after) {
  ops_operand_t blk;
  ops_operand_t amounts;
  const uint32_t m = in->t.rank - 2u;
  uint32_t d;
  utvm_err_t err = ops_load_int_constant(c, 1u, "block_shape", false, &blk);
  if ((err == UTVM_OK) && ((blk.t.rank != 1u) || (blk.t.dims[0] != (int32_t)m))) {
    err = ops_fail_fit(c, "block_shape", &blk, "input", in);
  }
  if (err == UTVM_OK) {
    err = ops_load_int_constant(c, 2u, role, false, &amounts);
  }
  if ((err == UTVM_OK) && ((amounts.t.rank != 2u) || (amounts.t.dims[0] != (int32_t)m) ||
                           (amounts.t.dims[1] != 2))) {
    err = ops_fail_fit(c, role, &amounts, "input", in);
  }
  for (d = 0u; d < 2u; d++) {
    rec->params.block[d] = 1;
    rec->params.before[d] = 0;
    after[d] = 0;
  }
  for (d = 0u; (err == UTVM_OK) && (d < m); d++) {
    int32_t b = 0;
    int32_t top = 0;
    int32_t bottom = 0;
    (void)ops_read_int(&blk.t, (size_t)d, &b);
    (void)ops_read_int(&amounts.t, (size_t)d * 2u, &top);
    (void)ops_read_int(&amounts.t, ((size_t)d * 2u) + 1u, &bottom);
    if (b < 1) {
      err = ops_fail_option(c, "block_shape entry ", b, " is not >= 1");
    } else if ((top < 0) || (bottom < 0)) {
      utvm_text_t *text = ops_begin(c);
      utvm_text_str(text, role);
      utvm_text_str(text, " has a negative entry");
      err = UTVM_ERR_MODEL_BAD_OPTION;
    } else {
      rec->params.block[d] = b;
      rec->params.before[d] = top;
      after[d] = bottom;
    }
  }
  return err;
}

/* to_batch: SPACE_TO_BATCH_ND (input the space tensor), else BATCH_TO_SPACE_ND. */
static utvm_err_t space_batch_prepare_as(const utvm_op_context_t *c, space_batch_record_t *rec,
                                         bool to_batch) {
  ops_operand_t in;
  ops_operand_t out;
  utvm_op_type_t type = UTVM_OP_TYPE_INT8;
  int32_t size = 1;
  int32_t after[2] = {0, 0};
  (void)memset(&in, 0, sizeof(in));
  (void)memset(&out, 0, sizeof(out));
  utvm_err_t err = ops_load_layout(c, &in, &out, &type, &size);
  if (err == UTVM_OK) {
    err = ops_refuse_int16(c, &in, "int8 and float32");
  }
  if ((err == UTVM_OK) && ((in.t.rank < 3u) || (in.t.rank > 4u))) {
    err = ops_fail_shape(c, "input", &in, " is not 3-D or 4-D");
  }
  if ((err == UTVM_OK) && (out.t.rank != in.t.rank)) {
    err = ops_fail_fit(c, "output", &out, "input", &in);
  }
  if (err == UTVM_OK) {
    err = space_batch_lists(c, &in, to_batch ? "paddings" : "crops", rec, after);
  }
  if (err == UTVM_OK) {
    const utvm_dims_t s = space_batch_dims(to_batch ? &in : &out);
    const utvm_dims_t b = space_batch_dims(to_batch ? &out : &in);
    const int32_t *k = rec->params.block;
    const int32_t *top = rec->params.before;
    const int64_t blocks = (int64_t)k[0] * k[1];
    if ((blocks > INT32_MAX) || ((int64_t)b.n != ((int64_t)s.n * blocks)) || (b.c != s.c) ||
        (((int64_t)b.h * k[0]) != ((int64_t)s.h + top[0] + after[0])) ||
        (((int64_t)b.w * k[1]) != ((int64_t)s.w + top[1] + after[1]))) {
      err = ops_fail_fit(c, "output", &out,
                         to_batch ? "the block shape and paddings of input"
                                  : "the block shape and crops of input",
                         &in);
    }
    rec->dims[0] = s;
    rec->dims[1] = b;
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  rec->type = (int32_t)type;
  rec->params.element_size = size;
  rec->params.to_batch = 0;
  if (to_batch) {
    rec->params.to_batch = 1;
  }
  rec->params.pad_value = (type == UTVM_OP_TYPE_INT8) ? out.t.quant.zero_point : 0;
  return err;
}

static utvm_err_t space_to_batch_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  (void)size;
  return space_batch_prepare_as(c, (space_batch_record_t *)record, true);
}

static utvm_err_t batch_to_space_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  (void)size;
  return space_batch_prepare_as(c, (space_batch_record_t *)record, false);
}

static utvm_err_t space_batch_execute(const void *record, uint8_t *arena) {
  const space_batch_record_t *r = (const space_batch_record_t *)record;
  return utvm_space_batch(&r->params, &r->dims[0], &r->dims[1], ops_in(arena, &r->input),
                          &arena[r->output]);
}

static void space_batch_export(const void *record, utvm_kernels_core_t core,
                               utvm_op_params_t *p) {
  const space_batch_record_t *r = (const space_batch_record_t *)record;
  (void)core;
  p->kind = UTVM_OP_SPACE_BATCH;
  p->type = r->type;
  p->dims[0] = r->dims[0];
  p->dims[1] = r->dims[1];
  p->p.space_batch = r->params;
}

/* SpaceToBatchNDOptions (BuiltinOptions 25) and BatchToSpaceNDOptions (24) have no fields. */
const utvm_op_t utvm_op_space_to_batch_nd = {(int32_t)UTVM_MODEL_OP_SPACE_TO_BATCH_ND, 3u, 3u,
                                             25u, space_batch_record_size, NULL,
                                             space_to_batch_prepare, space_batch_execute,
                                             space_batch_export, ops_inputs_1, 0u, 0u, NULL, NULL, NULL,
                                             NULL, NULL};

const utvm_op_t utvm_op_batch_to_space_nd = {(int32_t)UTVM_MODEL_OP_BATCH_TO_SPACE_ND, 3u, 3u,
                                             24u, space_batch_record_size, NULL,
                                             batch_to_space_prepare, space_batch_execute,
                                             space_batch_export, ops_inputs_1, 0u, 0u, NULL, NULL, NULL,
                                             NULL, NULL};

/* ---- The kernel function utvm_k_space_batch ---- */

typedef char space_batch_check_params[(sizeof(utvm_space_batch_params_t) == 28u) ? 1 : -1];

static void space_batch_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->type);
  ops_walk_block(w, &p->dims[0], sizeof(p->dims[0]));
  ops_walk_block(w, &p->dims[1], sizeof(p->dims[1]));
  ops_walk_block(w, &p->p.space_batch, sizeof(p->p.space_batch));
}

static const char *space_batch_check(utvm_op_params_t *p) {
  const utvm_space_batch_params_t *a = &p->p.space_batch;
  const utvm_dims_t *s = &p->dims[0];
  const utvm_dims_t *b = &p->dims[1];
  uint64_t e[2] = {0u, 0u};
  const char *why = ops_check_n_inputs(p, 1u);
  if (why != NULL) {
    return why;
  }
  if ((ops_type_size(p->type) == 0) || (ops_type_size(p->type) != a->element_size)) {
    return "element type and size differ or are not int8, int16 or float32";
  }
  if (!ops_dims_elements(s, &e[0]) || !ops_dims_elements(b, &e[1])) {
    return "a dimension is < 1 or a tensor too large";
  }
  if (((a->to_batch != 0) && (a->to_batch != 1)) || (a->block[0] < 1) || (a->block[1] < 1) ||
      (a->before[0] < 0) || (a->before[1] < 0)) {
    return "direction, block or padding out of range";
  }
  if ((((int64_t)a->block[0] * a->block[1]) > INT32_MAX) ||
      ((int64_t)b->n != ((int64_t)s->n * ((int64_t)a->block[0] * a->block[1]))) ||
      (b->c != s->c) ||
      ((((int64_t)b->h * a->block[0]) - s->h - a->before[0]) < 0) ||
      ((((int64_t)b->w * a->block[1]) - s->w - a->before[1]) < 0)) {
    return "the batch tensor does not fit the space tensor and block";
  }
  if (((a->element_size == 1) && ((a->pad_value < INT8_MIN) || (a->pad_value > INT8_MAX))) ||
      ((a->element_size == 2) && ((a->pad_value < INT16_MIN) || (a->pad_value > INT16_MAX)))) {
    return "the pad value is outside the element type";
  }
  (void)ops_set_operand(p, 0u, (utvm_op_type_t)p->type, e[(a->to_batch == 1) ? 0 : 1]);
  (void)ops_set_operand(p, 1u, (utvm_op_type_t)p->type, e[(a->to_batch == 1) ? 1 : 0]);
  return NULL;
}

static utvm_err_t space_batch_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_space_batch(&p->p.space_batch, &p->dims[0], &p->dims[1], data[0], data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_space_batch = {space_batch_walk, space_batch_check, NULL,
                                                      space_batch_run, UTVM_PLAN_STEP_DEFAULT,
                                                      NULL};

static const utvm_op_emit_slot_t space_batch_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_DIMS, 0u}, {UTVM_EMIT_DIMS, 1u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u},
    {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_space_batch = {"utvm_space_batch_params_t",
    "element_size to_batch block[2] before[2] pad_value", space_batch_args, NULL};

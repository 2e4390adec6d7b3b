/* PAD (int8, 1-D to 4-D, constant paddings, the output zero point as the pad value): prepare,
 * run, op params, emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

typedef struct {
  ops_ref_t input;
  uint32_t output;
  utvm_dims_t input_dims; /* the input as 4-D, leading dimensions of 1 */
  utvm_pad_params_t params;
} pad_record_t;

static size_t pad_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(pad_record_t));
}

/* The paddings, a constant [rank, 2] list; lower ranks are padded to 4-D with leading
 * dimensions of 1 and no padding. */
static utvm_err_t pad_amounts(const utvm_op_context_t *c, const ops_operand_t *in,
                              const ops_operand_t *out, pad_record_t *rec) {
  ops_operand_t pads;
  uint32_t d;
  int32_t in_dims[4] = {1, 1, 1, 1};
  const uint32_t lead = 4u - in->t.rank;
  utvm_err_t err = ops_load_int_constant(c, 1u, "paddings", true, &pads);
  if ((err == UTVM_OK) && ((pads.t.rank != 2u) || (pads.t.dims[0] != (int32_t)in->t.rank) ||
                           (pads.t.dims[1] != 2))) {
    err = ops_fail_fit(c, "paddings", &pads, "input", in);
  }
  for (d = 0u; d < 4u; d++) {
    rec->params.before[d] = 0;
    rec->params.after[d] = 0;
  }
  for (d = 0u; (d < in->t.rank) && (err == UTVM_OK); d++) {
    int32_t before = 0;
    int32_t after = 0;
    if (!ops_read_int(&pads.t, (size_t)d * 2u, &before) ||
        !ops_read_int(&pads.t, ((size_t)d * 2u) + 1u, &after) || (before < 0) || (after < 0) ||
        (((int64_t)in->t.dims[d] + before + after) != (int64_t)out->t.dims[d])) {
      err = ops_fail_fit(c, "output", out, "input and paddings of", in);
    } else {
      rec->params.before[lead + d] = before;
      rec->params.after[lead + d] = after;
      in_dims[lead + d] = in->t.dims[d];
    }
  }
  rec->input_dims.n = in_dims[0];
  rec->input_dims.h = in_dims[1];
  rec->input_dims.w = in_dims[2];
  rec->input_dims.c = in_dims[3];
  return err;
}

static utvm_err_t pad_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  pad_record_t *rec = (pad_record_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  (void)size;
  utvm_err_t err = ops_load_q8(c, &in, &out);
  if ((err == UTVM_OK) && ((in.t.rank < 1u) || (in.t.rank > 4u))) {
    err = ops_fail_shape(c, "input", &in, " is not 1-D to 4-D");
  }
  if ((err == UTVM_OK) && (out.t.rank != in.t.rank)) {
    err = ops_fail_fit(c, "output", &out, "input", &in);
  }
  if (err == UTVM_OK) {
    err = ops_check_same_quant(c, &in, &out);
  }
  if (err == UTVM_OK) {
    err = pad_amounts(c, &in, &out, rec);
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  rec->params.pad_value = out.t.quant.zero_point;
  return err;
}

static utvm_err_t pad_execute(const void *record, uint8_t *arena) {
  const pad_record_t *r = (const pad_record_t *)record;
  return utvm_pad_s8(&r->params, &r->input_dims, ops_in_s8(arena, &r->input),
                     ops_out_s8(arena, r->output));
}

static void pad_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const pad_record_t *r = (const pad_record_t *)record;
  (void)core;
  p->kind = UTVM_OP_PAD_S8;
  p->dims[0] = r->input_dims;
  p->p.pad = r->params;
}

/* PadOptions (BuiltinOptions 22) has no fields. */
const utvm_op_t utvm_op_pad = {(int32_t)UTVM_MODEL_OP_PAD, 2u, 2u, 22u, pad_record_size, NULL,
                               pad_prepare, pad_execute, pad_export, ops_inputs_1, 0u, 0u, NULL};

/* ---- The kernel function utvm_k_pad_s8 ---- */

typedef char pad_check_params[(sizeof(utvm_pad_params_t) == 36u) ? 1 : -1];

static void pad_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, &p->dims[0], sizeof(p->dims[0]));
  ops_walk_block(w, &p->p.pad, sizeof(p->p.pad));
}

static const char *pad_check(utvm_op_params_t *p) {
  uint64_t e = 0u;
  uint64_t out = 1u;
  const int32_t in[4] = {p->dims[0].n, p->dims[0].h, p->dims[0].w, p->dims[0].c};
  uint32_t i;
  const char *why = ops_check_n_inputs(p, 1u);
  if (why != NULL) {
    return why;
  }
  if (!ops_dims_elements(&p->dims[0], &e)) {
    return "a dimension is < 1 or a tensor too large";
  }
  for (i = 0u; i < 4u; i++) {
    if ((p->p.pad.before[i] < 0) || (p->p.pad.after[i] < 0)) {
      return "a padding is negative";
    }
    out *= (uint64_t)in[i] + (uint64_t)p->p.pad.before[i] + (uint64_t)p->p.pad.after[i];
    if (out > UTVM_OP_PARAMS_MAX_ELEMENTS) {
      return "the output is too large";
    }
  }
  (void)ops_set_operand(p, 0u, UTVM_OP_TYPE_INT8, e);
  (void)ops_set_operand(p, 1u, UTVM_OP_TYPE_INT8, out);
  return NULL;
}

static utvm_err_t pad_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_pad_s8(&p->p.pad, &p->dims[0], (const int8_t *)data[0], (int8_t *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_pad_s8 = {pad_walk, pad_check, NULL, pad_run};

static const utvm_op_emit_slot_t pad_s8_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_DIMS, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_pad_s8 = {"utvm_pad_params_t", "before[4] after[4] pad_value",
    pad_s8_args};

/* TRANSPOSE (int8, int16, float32; up to 6-D; perm a constant int32 permutation): prepare as
 * a strided copy (src/ops/strided_copy.c runs it). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* The perm (input 1): a constant int32 list of the input's rank, each axis once. */
static utvm_err_t transpose_perm(const utvm_op_context_t *c, const ops_operand_t *in,
                                 int32_t *perm) {
  ops_operand_t p;
  uint32_t d;
  uint32_t seen = 0u;
  utvm_err_t err = ops_load_int_constant(c, 1u, "perm", false, &p);
  if ((err == UTVM_OK) && ((p.t.rank != 1u) || (p.t.dims[0] != (int32_t)in->t.rank))) {
    err = ops_fail_fit(c, "perm", &p, "input", in);
  }
  for (d = 0u; (err == UTVM_OK) && (d < in->t.rank); d++) {
    int32_t axis = -1;
    (void)ops_read_int(&p.t, (size_t)d, &axis);
    if ((axis < 0) || (axis >= (int32_t)in->t.rank) || ((seen & (1u << (uint32_t)axis)) != 0u)) {
      utvm_text_t *text = ops_begin(c);
      uint32_t k;
      utvm_text_str(text, "perm [");
      for (k = 0u; k < in->t.rank; k++) {
        int32_t v = 0;
        (void)ops_read_int(&p.t, (size_t)k, &v);
        utvm_text_str(text, (k == 0u) ? "" : ",");
        utvm_text_i64(text, v);
      }
      utvm_text_str(text, "] is not a permutation");
      err = UTVM_ERR_MODEL_BAD_OPTION;
    } else {
      seen |= 1u << (uint32_t)axis;
      perm[d] = axis;
    }
  }
  return err;
}

static utvm_err_t transpose_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  ops_copy_t *rec = (ops_copy_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  int32_t strides[UTVM_STRIDED_COPY_MAX_RANK];
  int32_t perm[UTVM_STRIDED_COPY_MAX_RANK] = {0, 0, 0, 0, 0, 0};
  uint32_t d;
  (void)size;
  utvm_err_t err = ops_copy_begin(c, rec, &in, &out, strides);
  if (err == UTVM_OK) {
    err = transpose_perm(c, &in, perm);
  }
  if ((err == UTVM_OK) && (out.t.rank != in.t.rank)) {
    err = ops_fail_fit(c, "output", &out, "input", &in);
  }
  for (d = 0u; (err == UTVM_OK) && (d < in.t.rank); d++) {
    if (out.t.dims[d] != in.t.dims[perm[d]]) {
      err = ops_fail_fit(c, "output", &out, "the perm of input", &in);
    } else {
      rec->params.dims[d] = out.t.dims[d];
      rec->params.strides[d] = strides[perm[d]];
    }
  }
  rec->params.rank = (in.t.rank == 0u) ? 1 : (int32_t)in.t.rank;
  return err;
}

/* TransposeOptions (BuiltinOptions 26) has no fields. */
const utvm_op_t utvm_op_transpose = {(int32_t)UTVM_MODEL_OP_TRANSPOSE, 2u, 2u, 26u,
                                     ops_copy_record_size, NULL, transpose_prepare,
                                     ops_copy_execute, ops_copy_export, ops_inputs_1,
                                     0u, 0u, NULL, NULL, NULL, NULL, NULL};

/* BROADCAST_TO (int8, int16, float32; up to 5-D as TFLM; shape a constant int32 or int64 list
 * equal to the output's): prepare as a strided copy whose broadcast dimensions have stride 0
 * (src/ops/strided_copy.c runs it). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* TFLM's limit on the output's rank. */
#define BROADCAST_TO_MAX_RANK 5u

static utvm_err_t broadcast_to_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  ops_copy_t *rec = (ops_copy_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  ops_operand_t shape;
  int32_t strides[UTVM_STRIDED_COPY_MAX_RANK];
  uint32_t d;
  (void)size;
  utvm_err_t err = ops_copy_begin(c, rec, &in, &out, strides);
  if ((err == UTVM_OK) && ((out.t.rank < 1u) || (out.t.rank > BROADCAST_TO_MAX_RANK))) {
    err = ops_fail_shape(c, "output", &out, " is not 1-D to 5-D (TFLM's limit)");
  }
  if ((err == UTVM_OK) && (in.t.rank > out.t.rank)) {
    err = ops_fail_fit(c, "output", &out, "input", &in);
  }
  if (err == UTVM_OK) {
    err = ops_load_int_constant(c, 1u, "shape", true, &shape);
  }
  if ((err == UTVM_OK) && ((shape.t.rank != 1u) || (shape.t.dims[0] != (int32_t)out.t.rank))) {
    err = ops_fail_fit(c, "shape", &shape, "output", &out);
  }
  for (d = 0u; (err == UTVM_OK) && (d < out.t.rank); d++) {
    const uint32_t lead = out.t.rank - in.t.rank;
    const int32_t in_dim = (d < lead) ? 1 : in.t.dims[d - lead];
    int32_t want = 0;
    if (!ops_read_int(&shape.t, (size_t)d, &want) || (want != out.t.dims[d])) {
      err = ops_fail_fit(c, "output", &out, "shape", &shape);
    } else if ((in_dim != 1) && (in_dim != out.t.dims[d])) {
      err = ops_fail_fit(c, "output", &out, "a broadcast of input", &in);
    } else {
      rec->params.dims[d] = out.t.dims[d];
      rec->params.strides[d] = ((d < lead) || (in_dim == 1)) ? 0 : strides[d - lead];
    }
  }
  rec->params.rank = (int32_t)out.t.rank;
  return err;
}

/* BroadcastToOptions (BuiltinOptions 104) has no fields. */
const utvm_op_t utvm_op_broadcast_to = {(int32_t)UTVM_MODEL_OP_BROADCAST_TO, 2u, 2u, 104u,
                                        ops_copy_record_size, NULL, broadcast_to_prepare,
                                        ops_copy_execute, ops_copy_export, ops_inputs_1, 0u, 0u,
                                        NULL, NULL, NULL, NULL, NULL};

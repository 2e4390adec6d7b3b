/* DEPTH_TO_SPACE and SPACE_TO_DEPTH (int8, float32; 4-D NHWC; block_size option): prepare as
 * 6-D strided copies (src/ops/strided_copy.c runs them). int16 is refused: TFLM has int8 and
 * float32 only. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* DepthToSpaceOptions (BuiltinOptions 94) and SpaceToDepthOptions (19): block_size (0). */
static const ops_field_t block_options[1] = {{0u, OPS_I32, OPS_POSITIVE, 0, "block_size"}};

/* Loads the operands (4-D, int8 or float32) and the block size into rec, in, out, *block and
 * the input strides. */
static utvm_err_t block_begin(const utvm_op_context_t *c, ops_copy_t *rec, ops_operand_t *in,
                              ops_operand_t *out, int32_t *block, int32_t *strides) {
  utvm_err_t err = ops_options(c, block_options, 1u, block);
  if (err == UTVM_OK) {
    err = ops_copy_begin(c, rec, in, out, strides);
  }
  if (err == UTVM_OK) {
    err = ops_refuse_int16(c, in, "int8 and float32");
  }
  if (err == UTVM_OK) {
    err = ops_check_rank(c, in, "input", 4u);
  }
  if (err == UTVM_OK) {
    err = ops_check_rank(c, out, "output", 4u);
  }
  return err;
}

/* Output [n, h*b, w*b, c/(b*b)] seen as [n, h, b, w, b, c/(b*b)]: input channel
 * (by*b + bx)*c' + k of pixel (y, x). */
static utvm_err_t depth_to_space_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  ops_copy_t *rec = (ops_copy_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  int32_t s[UTVM_STRIDED_COPY_MAX_RANK];
  int32_t b = 1;
  (void)size;
  utvm_err_t err = block_begin(c, rec, &in, &out, &b, s);
  if (err == UTVM_OK) {
    const int64_t bb = (int64_t)b * b;
    const int64_t depth = (int64_t)in.t.dims[3] / bb;
    if ((out.t.dims[0] != in.t.dims[0]) || ((int64_t)out.t.dims[1] != ((int64_t)in.t.dims[1] * b)) ||
        ((int64_t)out.t.dims[2] != ((int64_t)in.t.dims[2] * b)) || ((depth * bb) != in.t.dims[3]) ||
        ((int64_t)out.t.dims[3] != depth)) {
      err = ops_fail_fit(c, "output", &out, "the block size and input", &in);
    } else {
      const int32_t dims[6] = {in.t.dims[0], in.t.dims[1], b, in.t.dims[2], b, out.t.dims[3]};
      const int32_t strides[6] = {s[0], s[1], b * out.t.dims[3], s[2], out.t.dims[3], 1};
      uint32_t d;
      for (d = 0u; d < 6u; d++) {
        rec->params.dims[d] = dims[d];
        rec->params.strides[d] = strides[d];
      }
      rec->params.rank = 6;
    }
  }
  return err;
}

/* Output [n, h/b, w/b, c*b*b] seen as [n, h/b, w/b, b, b, c]: output channel (by*b + bx)*c + k
 * is input pixel (y*b + by, x*b + bx). */
static utvm_err_t space_to_depth_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  ops_copy_t *rec = (ops_copy_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  int32_t s[UTVM_STRIDED_COPY_MAX_RANK];
  int32_t b = 1;
  (void)size;
  utvm_err_t err = block_begin(c, rec, &in, &out, &b, s);
  if ((err == UTVM_OK) &&
      ((out.t.dims[0] != in.t.dims[0]) || ((int64_t)out.t.dims[1] * b != in.t.dims[1]) ||
       ((int64_t)out.t.dims[2] * b != in.t.dims[2]) ||
       ((int64_t)out.t.dims[3] != ((int64_t)in.t.dims[3] * b * b)))) {
    err = ops_fail_fit(c, "output", &out, "the block size and input", &in);
  }
  if (err == UTVM_OK) {
    const int32_t dims[6] = {in.t.dims[0], out.t.dims[1], out.t.dims[2], b, b, in.t.dims[3]};
    const int32_t strides[6] = {s[0], b * s[1], b * s[2], s[1], s[2], 1};
    uint32_t d;
    for (d = 0u; d < 6u; d++) {
      rec->params.dims[d] = dims[d];
      rec->params.strides[d] = strides[d];
    }
    rec->params.rank = 6;
  }
  return err;
}

const utvm_op_t utvm_op_depth_to_space = {(int32_t)UTVM_MODEL_OP_DEPTH_TO_SPACE, 1u, 1u, 94u,
                                          ops_copy_record_size, NULL, depth_to_space_prepare,
                                          ops_copy_execute, ops_copy_export, ops_inputs_1, 0u,
                                          0u, NULL, NULL, NULL, NULL, NULL};

const utvm_op_t utvm_op_space_to_depth = {(int32_t)UTVM_MODEL_OP_SPACE_TO_DEPTH, 1u, 1u, 19u,
                                          ops_copy_record_size, NULL, space_to_depth_prepare,
                                          ops_copy_execute, ops_copy_export, ops_inputs_1, 0u,
                                          0u, NULL, NULL, NULL, NULL, NULL};

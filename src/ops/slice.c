/* SLICE and STRIDED_SLICE (int8, int16, float32; up to 6-D; begin, size or end and strides
 * constant int32 lists of the input's rank): prepare as a strided copy (src/ops/strided_copy.c
 * runs it). STRIDED_SLICE takes TFLite's begin, end and shrink-axis masks, offset and
 * negative strides; ellipsis and new-axis masks are refused (TFLM's kernel ignores them). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* StridedSliceOptions (BuiltinOptions 32). */
enum { BEGIN_MASK, END_MASK, ELLIPSIS_MASK, NEW_AXIS_MASK, SHRINK_AXIS_MASK, OFFSET, N_OPTIONS };
static const ops_field_t strided_slice_options[N_OPTIONS] = {
    {0u, OPS_I32, OPS_ANY, 0, "begin_mask"},
    {1u, OPS_I32, OPS_ANY, 0, "end_mask"},
    {2u, OPS_I32, OPS_ANY, 0, "ellipsis_mask"},
    {3u, OPS_I32, OPS_ANY, 0, "new_axis_mask"},
    {4u, OPS_I32, OPS_ANY, 0, "shrink_axis_mask"},
    {5u, OPS_U8, OPS_ANY, 0, "offset"}};

/* Input k: a constant int32 (or int64) list of one entry per input dimension, read into v. */
static utvm_err_t slice_list(const utvm_op_context_t *c, uint32_t k, const char *role,
                             const ops_operand_t *in, int32_t *v) {
  ops_operand_t o;
  uint32_t d;
  utvm_err_t err = ops_load_int_constant(c, k, role, true, &o);
  if ((err == UTVM_OK) && ((o.t.rank != 1u) || (o.t.dims[0] != (int32_t)in->t.rank))) {
    err = ops_fail_fit(c, role, &o, "input", in);
  }
  for (d = 0u; (err == UTVM_OK) && (d < in->t.rank); d++) {
    if (!ops_read_int(&o.t, (size_t)d, &v[d])) {
      err = ops_fail_fit(c, role, &o, "input", in);
    }
  }
  return err;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) {
  int64_t r = v;
  if (r < lo) {
    r = lo;
  } else if (r > hi) {
    r = hi;
  } else {
    /* inside */
  }
  return r;
}

/* One axis of STRIDED_SLICE as TFLite's StartForAxis/EndForAxis compute it: *first and
 * *count (0 when empty); false when a shrunk axis's begin lies outside the input. */
static bool strided_axis(const int32_t *o, uint32_t d, int32_t size, int32_t begin, int32_t end,
                         int32_t stride, int32_t *first, int32_t *count) {
  const uint32_t bit = 1u << d;
  const bool forward = stride > 0;
  int64_t start = begin;
  int64_t stop = end;
  int64_t n = 0;
  if (start < 0) {
    start += size;
  }
  start = forward ? clamp64(start, 0, size) : clamp64(start, -1, (int64_t)size - 1);
  if (((uint32_t)o[BEGIN_MASK] & bit) != 0u) {
    start = forward ? 0 : ((int64_t)size - 1);
  }
  if (((uint32_t)o[SHRINK_AXIS_MASK] & bit) != 0u) {
    *first = (int32_t)start;
    *count = 1;
    return (start >= 0) && (start < (int64_t)size);
  }
  if (o[OFFSET] != 0) {
    stop += start;
  }
  if (stop < 0) {
    stop += size;
  }
  stop = forward ? clamp64(stop, 0, size) : clamp64(stop, -1, (int64_t)size - 1);
  if (((uint32_t)o[END_MASK] & bit) != 0u) {
    stop = forward ? (int64_t)size : -1;
  }
  if (forward && (stop > start)) {
    n = ((stop - start) + stride - 1) / stride;
  } else if (!forward && (stop < start)) {
    n = ((start - stop) + (-(int64_t)stride) - 1) / (-(int64_t)stride);
  } else {
    n = 0;
  }
  *first = (int32_t)start;
  *count = (int32_t)n;
  return true;
}

/* The output: its dimensions are the axes' counts, without the shrunk axes. */
static utvm_err_t slice_output(const utvm_op_context_t *c, const ops_operand_t *in,
                               const ops_operand_t *out, const int32_t *counts, uint32_t shrink) {
  uint32_t d;
  uint32_t k = 0u;
  bool fits = true;
  for (d = 0u; d < in->t.rank; d++) {
    if ((shrink & (1u << d)) == 0u) {
      fits = fits && (k < out->t.rank) && (out->t.dims[k] == counts[d]);
      k++;
    }
  }
  return (fits && (k == out->t.rank)) ? UTVM_OK
                                      : ops_fail_fit(c, "output", out, "the slice of input", in);
}

/* Fills rec's dimensions and strides from each axis's first element, count and step. */
static void slice_fill(ops_copy_t *rec, const ops_operand_t *in, const int32_t *strides,
                       const int32_t *first, const int32_t *counts, const int32_t *steps) {
  uint32_t d;
  int64_t start = 0;
  for (d = 0u; d < in->t.rank; d++) {
    start += (int64_t)first[d] * strides[d];
    rec->params.dims[d] = counts[d];
    /* Two or more elements: |step| < size, the product inside the input. */
    rec->params.strides[d] = (counts[d] > 1) ? (steps[d] * strides[d]) : 0;
  }
  rec->params.start = (int32_t)start; /* an element of the input */
  rec->params.rank = (in->t.rank == 0u) ? 1 : (int32_t)in->t.rank;
}

static utvm_err_t slice_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  ops_copy_t *rec = (ops_copy_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  int32_t strides[UTVM_STRIDED_COPY_MAX_RANK];
  int32_t begin[UTVM_STRIDED_COPY_MAX_RANK] = {0, 0, 0, 0, 0, 0};
  int32_t sizes[UTVM_STRIDED_COPY_MAX_RANK] = {0, 0, 0, 0, 0, 0};
  int32_t steps[UTVM_STRIDED_COPY_MAX_RANK] = {1, 1, 1, 1, 1, 1};
  uint32_t d;
  (void)size;
  utvm_err_t err = ops_copy_begin(c, rec, &in, &out, strides);
  if (err == UTVM_OK) {
    err = slice_list(c, 1u, "begin", &in, begin);
  }
  if (err == UTVM_OK) {
    err = slice_list(c, 2u, "size", &in, sizes);
  }
  for (d = 0u; (err == UTVM_OK) && (d < in.t.rank); d++) {
    if (sizes[d] == -1) {
      sizes[d] = in.t.dims[d] - begin[d];
    }
    if ((begin[d] < 0) || (begin[d] >= in.t.dims[d]) || (sizes[d] < 1) ||
        (sizes[d] > (in.t.dims[d] - begin[d]))) {
      err = ops_fail_option(c, "begin and size of axis ", (int32_t)d, " leave the input");
    }
  }
  if (err == UTVM_OK) {
    err = slice_output(c, &in, &out, sizes, 0u);
  }
  if (err == UTVM_OK) {
    slice_fill(rec, &in, strides, begin, sizes, steps);
  }
  return err;
}

static utvm_err_t strided_slice_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  ops_copy_t *rec = (ops_copy_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  int32_t o[N_OPTIONS];
  int32_t strides[UTVM_STRIDED_COPY_MAX_RANK];
  int32_t begin[UTVM_STRIDED_COPY_MAX_RANK] = {0, 0, 0, 0, 0, 0};
  int32_t end[UTVM_STRIDED_COPY_MAX_RANK] = {0, 0, 0, 0, 0, 0};
  int32_t steps[UTVM_STRIDED_COPY_MAX_RANK] = {1, 1, 1, 1, 1, 1};
  int32_t counts[UTVM_STRIDED_COPY_MAX_RANK] = {1, 1, 1, 1, 1, 1};
  uint32_t d;
  (void)size;
  utvm_err_t err = ops_options(c, strided_slice_options, N_OPTIONS, o);
  if ((err == UTVM_OK) && (o[ELLIPSIS_MASK] != 0)) {
    err = ops_fail_option(c, "ellipsis_mask ", o[ELLIPSIS_MASK],
                          " unsupported (TFLM's kernel ignores it)");
  }
  if ((err == UTVM_OK) && (o[NEW_AXIS_MASK] != 0)) {
    err = ops_fail_option(c, "new_axis_mask ", o[NEW_AXIS_MASK],
                          " unsupported (TFLM's kernel ignores it)");
  }
  if (err == UTVM_OK) {
    err = ops_copy_begin(c, rec, &in, &out, strides);
  }
  if (err == UTVM_OK) {
    err = slice_list(c, 1u, "begin", &in, begin);
  }
  if (err == UTVM_OK) {
    err = slice_list(c, 2u, "end", &in, end);
  }
  if (err == UTVM_OK) {
    err = slice_list(c, 3u, "strides", &in, steps);
  }
  for (d = 0u; (err == UTVM_OK) && (d < in.t.rank); d++) {
    if (steps[d] == 0) {
      err = ops_fail_option(c, "stride of axis ", (int32_t)d, " is 0");
    } else if (!strided_axis(o, d, in.t.dims[d], begin[d], end[d], steps[d], &begin[d],
                             &counts[d])) {
      err = ops_fail_option(c, "begin of shrunk axis ", (int32_t)d, " leaves the input");
    } else if (counts[d] < 1) {
      err = ops_fail_option(c, "axis ", (int32_t)d, " is sliced empty");
    } else {
      /* axis done */
    }
  }
  if (err == UTVM_OK) {
    err = slice_output(c, &in, &out, counts, (uint32_t)o[SHRINK_AXIS_MASK]);
  }
  if (err == UTVM_OK) {
    slice_fill(rec, &in, strides, begin, counts, steps);
  }
  return err;
}

/* SliceOptions (BuiltinOptions 48) has no fields. */
const utvm_op_t utvm_op_slice = {(int32_t)UTVM_MODEL_OP_SLICE, 3u, 3u, 48u, ops_copy_record_size,
                                 NULL, slice_prepare, ops_copy_execute, ops_copy_export,
                                 ops_inputs_1, 0u, 0u, NULL, NULL, NULL, NULL, NULL};

const utvm_op_t utvm_op_strided_slice = {(int32_t)UTVM_MODEL_OP_STRIDED_SLICE, 4u, 4u, 32u,
                                         ops_copy_record_size, NULL, strided_slice_prepare,
                                         ops_copy_execute, ops_copy_export, ops_inputs_1,
                                         0u, 0u, NULL, NULL, NULL, NULL, NULL};

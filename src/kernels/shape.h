/*
 * Shape checks and index helpers shared by the kernels (internal).
 */
#ifndef UTVM_KERNELS_SHAPE_H
#define UTVM_KERNELS_SHAPE_H

#include <stdbool.h>
#include <stdint.h>

#include "fixed_point.h"
#include "utvm/kernels.h"

/* True if every dimension is >= 1 and the element count fits in int32. */
static inline bool utvm_dims_valid(const utvm_dims_t *dims) {
  if (dims == NULL || dims->n < 1 || dims->h < 1 || dims->w < 1 || dims->c < 1) {
    return false;
  }
  const int64_t count = (int64_t)dims->n * dims->h * dims->w * dims->c;
  return count <= INT32_MAX;
}

/* True if the rank is 0..UTVM_KERNEL_MAX_RANK, every dimension >= 1 and the element count
 * fits in int32. */
static inline bool utvm_shape_valid(const utvm_shape_t *shape) {
  if (shape == NULL || shape->rank < 0 || shape->rank > UTVM_KERNEL_MAX_RANK) {
    return false;
  }
  int64_t count = 1;
  for (int32_t i = 0; i < shape->rank; ++i) {
    if (shape->dims[i] < 1) {
      return false;
    }
    count *= shape->dims[i];
    if (count > INT32_MAX) {
      return false;
    }
  }
  return true;
}

/* Element count of a valid shape. */
static inline int32_t utvm_shape_count(const utvm_shape_t *shape) {
  int32_t count = 1;
  for (int32_t i = 0; i < shape->rank; ++i) {
    count *= shape->dims[i];
  }
  return count;
}

/* One element of any size, seen as its bytes (the pad values and indices of the layout
 * kernels). */
typedef union {
  int8_t i8;
  int16_t i16;
  int32_t i32;
  int64_t i64;
  uint8_t bytes[8];
} utvm_element_t;

/* True if the activation range is a non-empty part of int8. */
static inline bool utvm_act_range_valid(int32_t act_min, int32_t act_max) {
  return act_min >= INT8_MIN && act_max <= INT8_MAX && act_min <= act_max;
}

/* True if offset is minus an int8 zero point (-127..128). */
static inline bool utvm_input_offset_valid(int32_t offset) {
  return offset >= -INT8_MAX && offset <= -INT8_MIN;
}

/* True if zero_point is an int8 value. */
static inline bool utvm_zero_point_valid(int32_t zero_point) {
  return zero_point >= INT8_MIN && zero_point <= INT8_MAX;
}

/* True if shift is a usable TFLite exponent (-31..31). */
static inline bool utvm_shift_valid(int32_t shift) { return shift >= -31 && shift <= 31; }

/* True if quant holds 1 or `channels` multipliers with usable shifts. */
static inline bool utvm_per_channel_quant_valid(const utvm_per_channel_quant_t *quant,
                                                int32_t channels) {
  if (quant == NULL || quant->multiplier == NULL || quant->shift == NULL ||
      (quant->count != 1 && quant->count != channels)) {
    return false;
  }
  for (int32_t i = 0; i < quant->count; ++i) {
    if (!utvm_shift_valid(quant->shift[i])) {
      return false;
    }
  }
  return true;
}

/* True if a window operator's input coordinates stay within int32: output positions 0..out-1
 * at this stride, minus pad, plus filter taps 0..filter-1 at this dilation. */
static inline bool utvm_window_valid(int32_t out, int32_t stride, int32_t filter,
                                     int32_t dilation, int32_t pad) {
  const int64_t extent = (int64_t)(out - 1) * stride + (int64_t)(filter - 1) * dilation;
  return stride >= 1 && dilation >= 1 && pad >= 0 && extent <= INT32_MAX;
}

/* Index of channel's entry in quant (entry 0 when per-tensor). */
static inline int32_t utvm_quant_index(const utvm_per_channel_quant_t *quant, int32_t channel) {
  return quant->count == 1 ? 0 : channel;
}

/* Advances a multi-index over sizes[0..count) (last index fastest) and keeps *offset equal to
 * the sum of index[i] * strides[i]; wraps to all zeros after the last position. */
static inline void utvm_odometer_next(int32_t count, const int32_t *sizes, const int32_t *strides,
                                      int32_t *index, int32_t *offset) {
  for (int32_t d = count - 1; d >= 0; --d) {
    ++index[d];
    *offset += strides[d];
    if (index[d] < sizes[d]) {
      return;
    }
    *offset -= strides[d] * sizes[d];
    index[d] = 0;
  }
}

/* Element-wise iteration of two inputs broadcast to an output (numpy rules, ranks aligned at
 * the last dimension), over UTVM_KERNEL_MAX_RANK dimensions padded with leading 1s. */
typedef struct {
  int32_t dims[UTVM_KERNEL_MAX_RANK];     /* the output's */
  int32_t strides1[UTVM_KERNEL_MAX_RANK]; /* input1's, 0 where it is broadcast */
  int32_t strides2[UTVM_KERNEL_MAX_RANK];
  int32_t count; /* output elements */
} utvm_broadcast_t;

/* Dimension d of shape when its rank is padded to UTVM_KERNEL_MAX_RANK with leading 1s. */
static inline int32_t utvm_aligned_dim(const utvm_shape_t *shape, int32_t d) {
  const int32_t shape_d = d - (UTVM_KERNEL_MAX_RANK - shape->rank);
  return shape_d >= 0 ? shape->dims[shape_d] : 1;
}

/* Sets up *b; false unless all shapes are valid, no input has a higher rank than the output
 * and every output dimension is the larger of the inputs' (each input's being equal or 1). */
static inline bool utvm_broadcast_init(utvm_broadcast_t *b, const utvm_shape_t *shape1,
                                       const utvm_shape_t *shape2, const utvm_shape_t *out) {
  if (!utvm_shape_valid(shape1) || !utvm_shape_valid(shape2) || !utvm_shape_valid(out) ||
      shape1->rank > out->rank || shape2->rank > out->rank) {
    return false;
  }
  int32_t stride1 = 1;
  int32_t stride2 = 1;
  for (int32_t d = UTVM_KERNEL_MAX_RANK - 1; d >= 0; --d) {
    const int32_t out_dim = utvm_aligned_dim(out, d);
    const int32_t dim1 = utvm_aligned_dim(shape1, d);
    const int32_t dim2 = utvm_aligned_dim(shape2, d);
    if (out_dim != utvm_max_s32(dim1, dim2) || (dim1 != 1 && dim1 != out_dim) ||
        (dim2 != 1 && dim2 != out_dim)) {
      return false;
    }
    b->dims[d] = out_dim;
    b->strides1[d] = dim1 == 1 ? 0 : stride1;
    b->strides2[d] = dim2 == 1 ? 0 : stride2;
    stride1 *= dim1;
    stride2 *= dim2;
  }
  b->count = utvm_shape_count(out);
  return true;
}

/* Moves to the next output element: advances index (last dimension fastest) and both input
 * offsets. */
static inline void utvm_broadcast_next(const utvm_broadcast_t *b, int32_t *index,
                                       int32_t *offset1, int32_t *offset2) {
  for (int32_t d = UTVM_KERNEL_MAX_RANK - 1; d >= 0; --d) {
    ++index[d];
    *offset1 += b->strides1[d];
    *offset2 += b->strides2[d];
    if (index[d] < b->dims[d]) {
      return;
    }
    *offset1 -= b->strides1[d] * b->dims[d];
    *offset2 -= b->strides2[d] * b->dims[d];
    index[d] = 0;
  }
}

#endif /* UTVM_KERNELS_SHAPE_H */

/*
 * The split of a shape into reduced and kept dimensions shared by MEAN, SUM, REDUCE_MAX,
 * REDUCE_MIN (reduce.c) and float32 MEAN (mean_f32.c) (internal).
 */
#ifndef UTVM_KERNELS_REDUCE_LAYOUT_H
#define UTVM_KERNELS_REDUCE_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "utvm/kernels.h"

/* The reduced and the kept dimensions of a shape, each with its input strides. */
typedef struct {
  int32_t reduced_count;
  int32_t reduced_sizes[UTVM_KERNEL_MAX_RANK];
  int32_t reduced_strides[UTVM_KERNEL_MAX_RANK];
  int32_t kept_count;
  int32_t kept_sizes[UTVM_KERNEL_MAX_RANK];
  int32_t kept_strides[UTVM_KERNEL_MAX_RANK];
} utvm_reduce_layout_t;

/* Splits the dimensions by the axes, both in their order in the shape; false if an axis is
 * out of range. */
static inline bool utvm_reduce_layout(const utvm_shape_t *shape, const int32_t *axes,
                                      int32_t num_axes, utvm_reduce_layout_t *layout) {
  bool reduced[UTVM_KERNEL_MAX_RANK] = {false};
  for (int32_t i = 0; i < num_axes; ++i) {
    const int32_t axis = axes[i] < 0 ? axes[i] + shape->rank : axes[i];
    if (axis < 0 || axis >= shape->rank) {
      return false;
    }
    reduced[axis] = true;
  }
  int32_t strides[UTVM_KERNEL_MAX_RANK];
  int32_t stride = 1;
  for (int32_t d = shape->rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= shape->dims[d];
  }
  layout->reduced_count = 0;
  layout->kept_count = 0;
  for (int32_t d = 0; d < shape->rank; ++d) {
    if (reduced[d]) {
      layout->reduced_sizes[layout->reduced_count] = shape->dims[d];
      layout->reduced_strides[layout->reduced_count++] = strides[d];
    } else {
      layout->kept_sizes[layout->kept_count] = shape->dims[d];
      layout->kept_strides[layout->kept_count++] = strides[d];
    }
  }
  return true;
}

/* The product of count sizes (1 for none). */
static inline int32_t utvm_reduce_product(const int32_t *sizes, int32_t count) {
  int32_t result = 1;
  for (int32_t i = 0; i < count; ++i) {
    result *= sizes[i];
  }
  return result;
}

#endif /* UTVM_KERNELS_REDUCE_LAYOUT_H */

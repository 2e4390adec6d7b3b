/*
 * Window geometry shared by AVERAGE_POOL_2D and MAX_POOL_2D (internal).
 */
#ifndef UTVM_KERNELS_POOL2D_H
#define UTVM_KERNELS_POOL2D_H

#include "shape.h"

/* Checks a pooling call's parameters and shapes (the activation range within int8, or int16
 * when int16): UTVM_OK, BAD_PARAM or BAD_SHAPE. */
static inline utvm_err_t utvm_pool2d_check(const utvm_pool2d_params_t *params,
                                           const utvm_dims_t *input_dims, const void *input,
                                           const utvm_dims_t *output_dims, const void *output,
                                           bool int16) {
  if (params == NULL || input == NULL || output == NULL || params->filter_h < 1 ||
      params->filter_w < 1 ||
      (int16 ? (params->act_min < INT16_MIN || params->act_max > INT16_MAX ||
                params->act_min > params->act_max)
             : !utvm_act_range_valid(params->act_min, params->act_max))) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!utvm_dims_valid(input_dims) || !utvm_dims_valid(output_dims) ||
      input_dims->n != output_dims->n || input_dims->c != output_dims->c) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  if (!utvm_window_valid(output_dims->h, params->stride_h, params->filter_h, 1,
                         params->pad_top) ||
      !utvm_window_valid(output_dims->w, params->stride_w, params->filter_w, 1,
                         params->pad_left)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  return UTVM_OK;
}

/* The in-bounds part [start, end) of a window starting at origin over a dimension of size. */
static inline void utvm_pool2d_window(int32_t origin, int32_t filter, int32_t size,
                                      int32_t *start, int32_t *end) {
  *start = utvm_max_s32(0, -origin);
  *end = utvm_min_s32(filter, size - origin);
}

/* TFLite's average of a window of count pixels summing to sum: rounded half away from zero. */
static inline int32_t utvm_pool2d_average(int32_t sum, int32_t count) {
  return (sum > 0) ? ((sum + (count / 2)) / count) : ((sum - (count / 2)) / count);
}

#endif /* UTVM_KERNELS_POOL2D_H */

/*
 * Helpers of the float32 kernels (internal): TFLite's float clamp and the checks they share.
 */
#ifndef UTVM_KERNELS_F32_H
#define UTVM_KERNELS_F32_H

#include <stdbool.h>
#include <stdint.h>

#include "shape.h"
#include "utvm/kernels.h"

/* TFLite's ActivationFunctionWithMinMax, min(max(x, lo), hi) with std::max and std::min's
 * comparisons (a NaN x stays NaN, -0 stays -0 when lo is 0). */
static inline float utvm_clamp_f32(float x, float lo, float hi) {
  const float low = (x < lo) ? lo : x;
  return (hi < low) ? hi : low;
}

/* True if act_min <= act_max (false when either is NaN). */
static inline bool utvm_act_range_f32_valid(float act_min, float act_max) {
  return act_min <= act_max;
}

/* An element-wise call's checks: UTVM_OK, BAD_PARAM (NULL) or BAD_SHAPE (count < 0). */
static inline utvm_err_t utvm_unary_f32_check(int32_t count, const float *input,
                                              const float *output) {
  utvm_err_t err = UTVM_OK;
  if ((input == NULL) || (output == NULL)) {
    err = UTVM_ERR_KERNEL_BAD_PARAM;
  } else if (count < 0) {
    err = UTVM_ERR_KERNEL_BAD_SHAPE;
  } else {
    err = UTVM_OK;
  }
  return err;
}


/* A pooling call's checks (as utvm_pool2d_check with a float activation range): UTVM_OK,
 * BAD_PARAM or BAD_SHAPE. */
static inline utvm_err_t utvm_pool2d_f32_check(const utvm_pool2d_f32_params_t *params,
                                               const utvm_dims_t *input_dims, const float *input,
                                               const utvm_dims_t *output_dims,
                                               const float *output) {
  utvm_err_t err = UTVM_OK;
  if ((params == NULL) || (input == NULL) || (output == NULL) || (params->filter_h < 1) ||
      (params->filter_w < 1) || !utvm_act_range_f32_valid(params->act_min, params->act_max)) {
    err = UTVM_ERR_KERNEL_BAD_PARAM;
  } else if (!utvm_dims_valid(input_dims) || !utvm_dims_valid(output_dims) ||
             (input_dims->n != output_dims->n) || (input_dims->c != output_dims->c)) {
    err = UTVM_ERR_KERNEL_BAD_SHAPE;
  } else if (!utvm_window_valid(output_dims->h, params->stride_h, params->filter_h, 1,
                                params->pad_top) ||
             !utvm_window_valid(output_dims->w, params->stride_w, params->filter_w, 1,
                                params->pad_left)) {
    err = UTVM_ERR_KERNEL_BAD_PARAM;
  } else {
    err = UTVM_OK;
  }
  return err;
}

/* A binary call's checks and its broadcast (utvm_broadcast_init): UTVM_OK, BAD_PARAM or
 * BAD_SHAPE. */
static inline utvm_err_t utvm_binary_f32_check(const utvm_activation_f32_t *params,
                                               const utvm_shape_t *input1_shape,
                                               const float *input1,
                                               const utvm_shape_t *input2_shape,
                                               const float *input2,
                                               const utvm_shape_t *output_shape,
                                               const float *output, utvm_broadcast_t *broadcast) {
  utvm_err_t err = UTVM_OK;
  if ((params == NULL) || (input1 == NULL) || (input2 == NULL) || (output == NULL) ||
      !utvm_act_range_f32_valid(params->act_min, params->act_max)) {
    err = UTVM_ERR_KERNEL_BAD_PARAM;
  } else if (!utvm_broadcast_init(broadcast, input1_shape, input2_shape, output_shape)) {
    err = UTVM_ERR_KERNEL_BAD_SHAPE;
  } else {
    err = UTVM_OK;
  }
  return err;
}

#endif /* UTVM_KERNELS_F32_H */

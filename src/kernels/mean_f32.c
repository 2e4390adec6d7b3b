/* MEAN, float32 (TFLite's reference_ops::Mean for float: each output's inputs summed from 0 in
 * input order, then divided by their count; TFLM's special case of axes 1 and 2 of a 4-D input
 * sums in the same order). */
#include "f32.h"
#include "reduce_layout.h"
#include "shape.h"
#include "utvm/kernels.h"

#if UTVM_HAVE_F32 /* else f32_absent.c: utvm/kernels.h */

utvm_err_t utvm_mean_f32(const utvm_shape_t *input_shape, const float *input,
                         const int32_t *axes, int32_t num_axes, float *output) {
  if ((input == NULL) || (output == NULL) || (num_axes < 0) ||
      ((axes == NULL) && (num_axes > 0))) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!utvm_shape_valid(input_shape)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  utvm_reduce_layout_t layout;
  if (!utvm_reduce_layout(input_shape, axes, num_axes, &layout)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const int32_t group = utvm_reduce_product(layout.reduced_sizes, layout.reduced_count);
  const int32_t outputs = utvm_reduce_product(layout.kept_sizes, layout.kept_count);
  const float divisor = (float)group;
  int32_t kept_index[UTVM_KERNEL_MAX_RANK] = {0};
  int32_t kept_offset = 0;
  for (int32_t o = 0; o < outputs; ++o) {
    int32_t reduced_index[UTVM_KERNEL_MAX_RANK] = {0};
    int32_t reduced_offset = 0;
    float sum = 0.0f;
    for (int32_t r = 0; r < group; ++r) {
      sum += input[kept_offset + reduced_offset];
      utvm_odometer_next(layout.reduced_count, layout.reduced_sizes, layout.reduced_strides,
                         reduced_index, &reduced_offset);
    }
    output[o] = sum / divisor;
    utvm_odometer_next(layout.kept_count, layout.kept_sizes, layout.kept_strides, kept_index,
                       &kept_offset);
  }
  return UTVM_OK;
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without
 * UTVM_HAVE_F32. */
typedef int utvm_kernels_no_mean_f32_t;
#endif

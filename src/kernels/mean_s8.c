/* MEAN, int8 (TFLite Micro's reduce: reference_ops::QuantizedMeanOrSum, which serves every
 * int8 MEAN: the raw sum of each reduced group, minus zero point times count, times the
 * input/output scale ratio with 1/count folded into the multiplier). */
#include "fixed_point.h"
#include "shape.h"
#include "utvm/kernels.h"

/* The reduced and the kept dimensions of a shape, each with its input strides. */
typedef struct {
  int32_t reduced_count;
  int32_t reduced_sizes[UTVM_KERNEL_MAX_RANK];
  int32_t reduced_strides[UTVM_KERNEL_MAX_RANK];
  int32_t kept_count;
  int32_t kept_sizes[UTVM_KERNEL_MAX_RANK];
  int32_t kept_strides[UTVM_KERNEL_MAX_RANK];
} mean_layout_t;

/* Splits the dimensions by the axes, both in their order in the shape; false if an axis is
 * out of range. */
static bool mean_layout(const utvm_shape_t *shape, const int32_t *axes, int32_t num_axes,
                        mean_layout_t *layout) {
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

static int32_t product(const int32_t *sizes, int32_t count) {
  int32_t result = 1;
  for (int32_t i = 0; i < count; ++i) {
    result *= sizes[i];
  }
  return result;
}

utvm_err_t utvm_mean_s8(const utvm_mean_params_t *params, const utvm_shape_t *input_shape,
                        const int8_t *input, const int32_t *axes, int32_t num_axes,
                        int8_t *output) {
  if (params == NULL || input == NULL || output == NULL || num_axes < 0 ||
      (axes == NULL && num_axes > 0) || !utvm_zero_point_valid(params->input_zero_point) ||
      !utvm_zero_point_valid(params->output_zero_point) || !utvm_shift_valid(params->shift)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!utvm_shape_valid(input_shape)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  mean_layout_t layout;
  if (!mean_layout(input_shape, axes, num_axes, &layout)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const int32_t group = product(layout.reduced_sizes, layout.reduced_count);
  const int32_t outputs = product(layout.kept_sizes, layout.kept_count);
  /* Fold 1/group into the multiplier, keeping the shift >= -31 (TFLite's order of steps). */
  int32_t fold = 63 - utvm_count_leading_zeros_u64((uint64_t)group);
  fold = utvm_min_s32(fold, 32);
  fold = utvm_min_s32(fold, 31 + params->shift);
  const int32_t multiplier =
      (int32_t)(((int64_t)params->multiplier * ((int64_t)1 << fold)) / group);
  const int32_t shift = params->shift - fold;
  const int64_t zero_point_sum = (int64_t)params->input_zero_point * group;

  int32_t kept_index[UTVM_KERNEL_MAX_RANK] = {0};
  int32_t kept_offset = 0;
  for (int32_t o = 0; o < outputs; ++o) {
    int32_t reduced_index[UTVM_KERNEL_MAX_RANK] = {0};
    int32_t reduced_offset = 0;
    int32_t sum = 0;
    for (int32_t r = 0; r < group; ++r) {
      sum = utvm_wrap_add(sum, input[kept_offset + reduced_offset]);
      utvm_odometer_next(layout.reduced_count, layout.reduced_sizes, layout.reduced_strides,
                         reduced_index, &reduced_offset);
    }
    /* TFLite subtracts in 64 bits and truncates to 32. */
    const int32_t centered = (int32_t)(uint32_t)(uint64_t)(sum - zero_point_sum);
    const int32_t scaled = utvm_multiply_by_quantized_multiplier(centered, multiplier, shift);
    output[o] = (int8_t)utvm_clamp_s32(utvm_wrap_add(scaled, params->output_zero_point),
                                       INT8_MIN, INT8_MAX);
    utvm_odometer_next(layout.kept_count, layout.kept_sizes, layout.kept_strides, kept_index,
                       &kept_offset);
  }
  return UTVM_OK;
}

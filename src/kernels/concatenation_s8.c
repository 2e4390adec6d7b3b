/* CONCATENATION, int8 (TFLite's reference_ops::Concatenation; TFLite requires one scale and
 * zero point for all inputs and the output, so this is a copy, skipped for a block that
 * already is its source). */
#include <string.h>

#include "shape.h"
#include "utvm/kernels.h"

/* True if input matches the output in rank and in every dimension but axis. */
static bool concat_input_fits(const utvm_shape_t *input, const utvm_shape_t *output,
                              int32_t axis) {
  if (!utvm_shape_valid(input) || input->rank != output->rank) {
    return false;
  }
  for (int32_t d = 0; d < output->rank; ++d) {
    if (d != axis && input->dims[d] != output->dims[d]) {
      return false;
    }
  }
  return true;
}

utvm_err_t utvm_concatenation_s8(int32_t num_inputs, const int8_t *const *inputs,
                                 const utvm_shape_t *input_shapes, int32_t axis,
                                 const utvm_shape_t *output_shape, int8_t *output) {
  if (num_inputs < 1 || inputs == NULL || input_shapes == NULL || output == NULL) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!utvm_shape_valid(output_shape) || output_shape->rank < 1) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  const int32_t rank = output_shape->rank;
  if (axis < -rank || axis >= rank) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (axis < 0) {
    axis += rank;
  }
  int64_t axis_total = 0;
  for (int32_t i = 0; i < num_inputs; ++i) {
    if (inputs[i] == NULL) {
      return UTVM_ERR_KERNEL_BAD_PARAM;
    }
    if (!concat_input_fits(&input_shapes[i], output_shape, axis)) {
      return UTVM_ERR_KERNEL_BAD_SHAPE;
    }
    axis_total += input_shapes[i].dims[axis];
  }
  if (axis_total != output_shape->dims[axis]) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  int32_t outer = 1;
  for (int32_t d = 0; d < axis; ++d) {
    outer *= output_shape->dims[d];
  }
  int32_t inner = 1;
  for (int32_t d = axis + 1; d < rank; ++d) {
    inner *= output_shape->dims[d];
  }
  int8_t *out = output;
  for (int32_t o = 0; o < outer; ++o) {
    for (int32_t i = 0; i < num_inputs; ++i) {
      const int32_t block = input_shapes[i].dims[axis] * inner;
      if (out != &inputs[i][o * block]) { /* the same bytes: a view (UTVM_PLAN_STEP_GATHER) */
        memcpy(out, &inputs[i][o * block], (size_t)block);
      }
      out += block;
    }
  }
  return UTVM_OK;
}

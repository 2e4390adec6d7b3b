/* SUB on int8, ADD and SUB on int16, with broadcasting (TFLite's SubElementwise,
 * BroadcastQuantSubSlow, and AddElementwise/BroadcastAdd6DSlow for int16): the arithmetic of
 * utvm_add_s8 (add_sub.h) over the shared broadcasting walk (binary.h). */
#include "add_sub.h"
#include "binary.h"
#include "shape.h"
#include "utvm/kernels.h"

/* Offsets, shifts and range within the element type (bound: its largest magnitude), and no
 * (|x| + |offset|) << left_shift beyond int32. */
static bool add_sub_params_valid(const utvm_add_params_t *params, int32_t bound) {
  const int64_t offset1 = params->input1_offset;
  const int64_t offset2 = params->input2_offset;
  const int64_t reach1 = (int64_t)bound + (offset1 < 0 ? -offset1 : offset1);
  const int64_t reach2 = (int64_t)bound + (offset2 < 0 ? -offset2 : offset2);
  return params->input1_offset >= -bound && params->input1_offset <= bound &&
         params->input2_offset >= -bound && params->input2_offset <= bound &&
         params->output_offset >= -bound && params->output_offset < bound &&
         params->left_shift >= 0 && params->left_shift <= 23 &&
         (reach1 << params->left_shift) <= INT32_MAX &&
         (reach2 << params->left_shift) <= INT32_MAX && params->input1_shift >= -31 &&
         params->input1_shift <= 0 && params->input2_shift >= -31 && params->input2_shift <= 0 &&
         params->output_shift >= -31 && params->output_shift <= 0 &&
         params->act_min >= -bound && params->act_max < bound &&
         params->act_min <= params->act_max;
}

static int32_t sum_element(const void *params, int32_t x1, int32_t x2) {
  return utvm_add_sub_element((const utvm_add_params_t *)params, x1, x2, false);
}

static int32_t sub_element(const void *params, int32_t x1, int32_t x2) {
  return utvm_add_sub_element((const utvm_add_params_t *)params, x1, x2, true);
}

static utvm_err_t add_sub_run(const utvm_add_params_t *params, bool subtract,
                              int32_t element_bytes, const utvm_shape_t *input1_shape,
                              const void *input1, const utvm_shape_t *input2_shape,
                              const void *input2, const utvm_shape_t *output_shape,
                              void *output) {
  const int32_t bound = element_bytes == 1 ? -INT8_MIN : -INT16_MIN;
  if (params == NULL || input1 == NULL || input2 == NULL || output == NULL ||
      !add_sub_params_valid(params, bound)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  return utvm_binary_walk(subtract ? sub_element : sum_element, params, element_bytes,
                          input1_shape, input1, input2_shape, input2, output_shape, output);
}

utvm_err_t utvm_sub_s8(const utvm_add_params_t *params, const utvm_shape_t *input1_shape,
                       const int8_t *input1, const utvm_shape_t *input2_shape,
                       const int8_t *input2, const utvm_shape_t *output_shape, int8_t *output) {
  return add_sub_run(params, true, 1, input1_shape, input1, input2_shape, input2, output_shape,
                     output);
}

utvm_err_t utvm_add_s16(const utvm_add_params_t *params, const utvm_shape_t *input1_shape,
                        const int16_t *input1, const utvm_shape_t *input2_shape,
                        const int16_t *input2, const utvm_shape_t *output_shape,
                        int16_t *output) {
  return add_sub_run(params, false, 2, input1_shape, input1, input2_shape, input2,
                     output_shape, output);
}

utvm_err_t utvm_sub_s16(const utvm_add_params_t *params, const utvm_shape_t *input1_shape,
                        const int16_t *input1, const utvm_shape_t *input2_shape,
                        const int16_t *input2, const utvm_shape_t *output_shape,
                        int16_t *output) {
  return add_sub_run(params, true, 2, input1_shape, input1, input2_shape, input2, output_shape,
                     output);
}

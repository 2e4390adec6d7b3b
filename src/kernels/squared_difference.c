/* SQUARED_DIFFERENCE on int8 and int16 with broadcasting (TFLM's squared_difference.cc): each
 * input rescaled to twice the larger scale (after a left shift of 7 for int8, 0 for int16), the
 * difference squared and rescaled to the output. */
#include <stdbool.h>

#include "binary.h"
#include "fixed_point.h"
#include "utvm/kernels.h"

static int32_t squared_difference_element(const void *p, int32_t x1, int32_t x2) {
  const utvm_add_params_t *params = (const utvm_add_params_t *)p;
  const int32_t a = utvm_multiply_by_quantized_multiplier(
      (x1 + params->input1_offset) * (1 << params->left_shift), params->input1_multiplier,
      params->input1_shift);
  const int32_t b = utvm_multiply_by_quantized_multiplier(
      (x2 + params->input2_offset) * (1 << params->left_shift), params->input2_multiplier,
      params->input2_shift);
  /* TFLite's product fits int32 for its parameters; hostile ones saturate instead. */
  const int64_t square = ((int64_t)a - b) * ((int64_t)a - b);
  const int32_t raw = (square > INT32_MAX) ? INT32_MAX : (int32_t)square;
  const int32_t out = utvm_wrap_add(
      utvm_multiply_by_quantized_multiplier(raw, params->output_multiplier, params->output_shift),
      params->output_offset);
  return utvm_clamp_s32(out, params->act_min, params->act_max);
}

/* Offsets and range within the element type (bound: its largest magnitude), left shift 0..7,
 * input shifts -31..0 (multipliers below one), output shift -31..31. */
static bool squared_difference_valid(const utvm_add_params_t *params, int32_t bound) {
  return (params->input1_offset >= -bound) && (params->input1_offset <= bound) &&
         (params->input2_offset >= -bound) && (params->input2_offset <= bound) &&
         (params->output_offset >= -bound) && (params->output_offset < bound) &&
         (params->left_shift >= 0) && (params->left_shift <= 7) &&
         (params->input1_multiplier >= 0) && (params->input2_multiplier >= 0) &&
         (params->input1_shift >= -31) && (params->input1_shift <= 0) &&
         (params->input2_shift >= -31) && (params->input2_shift <= 0) &&
         (params->output_shift >= -31) && (params->output_shift <= 31) &&
         (params->act_min >= -bound) && (params->act_max < bound) &&
         (params->act_min <= params->act_max);
}

static utvm_err_t squared_difference_run(const utvm_add_params_t *params, int32_t element_bytes,
                                         const utvm_shape_t *input1_shape, const void *input1,
                                         const utvm_shape_t *input2_shape, const void *input2,
                                         const utvm_shape_t *output_shape, void *output) {
  const int32_t bound = (element_bytes == 1) ? -INT8_MIN : -INT16_MIN;
  if ((params == NULL) || (input1 == NULL) || (input2 == NULL) || (output == NULL) ||
      !squared_difference_valid(params, bound)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  return utvm_binary_walk(squared_difference_element, params, element_bytes, input1_shape,
                          input1, input2_shape, input2, output_shape, output);
}

utvm_err_t utvm_squared_difference_s8(const utvm_add_params_t *params,
                                      const utvm_shape_t *input1_shape, const int8_t *input1,
                                      const utvm_shape_t *input2_shape, const int8_t *input2,
                                      const utvm_shape_t *output_shape, int8_t *output) {
  return squared_difference_run(params, 1, input1_shape, input1, input2_shape, input2,
                                output_shape, output);
}

utvm_err_t utvm_squared_difference_s16(const utvm_add_params_t *params,
                                       const utvm_shape_t *input1_shape, const int16_t *input1,
                                       const utvm_shape_t *input2_shape, const int16_t *input2,
                                       const utvm_shape_t *output_shape, int16_t *output) {
  return squared_difference_run(params, 2, input1_shape, input1, input2_shape, input2,
                                output_shape, output);
}

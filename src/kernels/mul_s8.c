/* MUL, int8 and int16, with broadcasting (TFLite's reference_integer_ops::Mul and
 * BroadcastMul4DSlow). */
#include "binary.h"
#include "fixed_point.h"
#include "shape.h"
#include "utvm/kernels.h"

static bool mul_params_valid(const utvm_mul_params_t *params) {
  return utvm_input_offset_valid(params->input1_offset) &&
         utvm_input_offset_valid(params->input2_offset) &&
         utvm_zero_point_valid(params->output_offset) && utvm_shift_valid(params->output_shift) &&
         utvm_act_range_valid(params->act_min, params->act_max);
}

utvm_err_t utvm_mul_s8(const utvm_mul_params_t *params, const utvm_shape_t *input1_shape,
                       const int8_t *input1, const utvm_shape_t *input2_shape,
                       const int8_t *input2, const utvm_shape_t *output_shape, int8_t *output) {
  if (params == NULL || input1 == NULL || input2 == NULL || output == NULL ||
      !mul_params_valid(params)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  utvm_broadcast_t broadcast;
  if (!utvm_broadcast_init(&broadcast, input1_shape, input2_shape, output_shape)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  int32_t index[UTVM_KERNEL_MAX_RANK] = {0};
  int32_t offset1 = 0;
  int32_t offset2 = 0;
  for (int32_t i = 0; i < broadcast.count; ++i) {
    const int32_t product = ((int32_t)input1[offset1] + params->input1_offset) *
                            ((int32_t)input2[offset2] + params->input2_offset);
    const int32_t scaled = utvm_multiply_by_quantized_multiplier(
        product, params->output_multiplier, params->output_shift);
    output[i] = (int8_t)utvm_clamp_s32(utvm_wrap_add(scaled, params->output_offset),
                                       params->act_min, params->act_max);
    utvm_broadcast_next(&broadcast, index, &offset1, &offset2);
  }
  return UTVM_OK;
}

/* One int16 output (TFLite's MulElementwise; zero points 0, so the product is within 2^30). */
static int32_t mul_element_s16(const void *params, int32_t x1, int32_t x2) {
  const utvm_mul_params_t *p = (const utvm_mul_params_t *)params;
  const int32_t scaled =
      utvm_multiply_by_quantized_multiplier(x1 * x2, p->output_multiplier, p->output_shift);
  return utvm_clamp_s32(utvm_wrap_add(scaled, p->output_offset), p->act_min, p->act_max);
}

utvm_err_t utvm_mul_s16(const utvm_mul_params_t *params, const utvm_shape_t *input1_shape,
                        const int16_t *input1, const utvm_shape_t *input2_shape,
                        const int16_t *input2, const utvm_shape_t *output_shape,
                        int16_t *output) {
  if (params == NULL || input1 == NULL || input2 == NULL || output == NULL ||
      params->input1_offset != 0 || params->input2_offset != 0 || params->output_offset != 0 ||
      !utvm_shift_valid(params->output_shift) || params->act_min < INT16_MIN ||
      params->act_max > INT16_MAX || params->act_min > params->act_max) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  return utvm_binary_walk(mul_element_s16, params, 2, input1_shape, input1, input2_shape,
                          input2, output_shape, output);
}

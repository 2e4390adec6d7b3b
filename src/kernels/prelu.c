/* PRELU on int8 and int16 with an int8 alpha, broadcast (TFLite's reference
 * BroadcastPrelu4DSlow): x - zp >= 0 rescaled by input/output scale, below zero multiplied by
 * alpha - alpha zp and rescaled by input*alpha/output scale. */
#include <stdbool.h>

#include "fixed_point.h"
#include "shape.h"
#include "utvm/kernels.h"

utvm_err_t utvm_prelu_params(float input_scale, int32_t input_zero_point, float alpha_scale,
                             int32_t alpha_zero_point, float output_scale,
                             int32_t output_zero_point, utvm_prelu_params_t *params) {
  if ((params == NULL) || !(input_scale > 0.0f) || !(alpha_scale > 0.0f) ||
      !(output_scale > 0.0f)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const double real_1 = (double)input_scale / (double)output_scale;
  const double real_2 = (double)input_scale * (double)alpha_scale / (double)output_scale;
  utvm_err_t err = utvm_quantize_multiplier(real_1, &params->multiplier_1, &params->shift_1);
  if (err == UTVM_OK) {
    err = utvm_quantize_multiplier(real_2, &params->multiplier_2, &params->shift_2);
  }
  if ((err == UTVM_OK) && ((params->shift_1 < -31) || (params->shift_1 > 31) ||
                           (params->shift_2 < -31) || (params->shift_2 > 31))) {
    err = UTVM_ERR_KERNEL_UNSUPPORTED;
  }
  params->input_offset = -input_zero_point;
  params->alpha_offset = -alpha_zero_point;
  params->output_offset = output_zero_point;
  return err;
}

static bool prelu_valid(const utvm_prelu_params_t *p, int32_t bound) {
  return (p->input_offset >= -bound) && (p->input_offset <= bound) &&
         (p->alpha_offset >= INT8_MIN) && (p->alpha_offset <= -INT8_MIN) &&
         (p->output_offset >= -bound) && (p->output_offset < bound) && (p->multiplier_1 >= 0) &&
         (p->multiplier_2 >= 0) && (p->shift_1 >= -31) && (p->shift_1 <= 31) &&
         (p->shift_2 >= -31) && (p->shift_2 <= 31);
}

static int32_t prelu_element(const utvm_prelu_params_t *p, int32_t x, int32_t alpha, int32_t lo,
                             int32_t hi) {
  const int32_t v = p->input_offset + x;
  const int32_t scaled =
      (v >= 0) ? utvm_multiply_by_quantized_multiplier(v, p->multiplier_1, p->shift_1)
               : utvm_multiply_by_quantized_multiplier(v * (p->alpha_offset + alpha),
                                                       p->multiplier_2, p->shift_2);
  return utvm_clamp_s32(utvm_wrap_add(scaled, p->output_offset), lo, hi);
}

static utvm_err_t prelu_run(const utvm_prelu_params_t *params, int32_t element_bytes,
                            const utvm_shape_t *input_shape, const void *input,
                            const utvm_shape_t *alpha_shape, const int8_t *alpha,
                            const utvm_shape_t *output_shape, void *output) {
  const int32_t bound = (element_bytes == 1) ? -INT8_MIN : -INT16_MIN;
  const int32_t lo = (element_bytes == 1) ? INT8_MIN : INT16_MIN;
  const int32_t hi = (element_bytes == 1) ? INT8_MAX : INT16_MAX;
  utvm_broadcast_t broadcast;
  if ((params == NULL) || (input == NULL) || (alpha == NULL) || (output == NULL) ||
      !prelu_valid(params, bound)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if ((input_shape == NULL) || (alpha_shape == NULL) || (output_shape == NULL) ||
      !utvm_broadcast_init(&broadcast, input_shape, alpha_shape, output_shape)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  int32_t index[UTVM_KERNEL_MAX_RANK] = {0};
  int32_t offset1 = 0;
  int32_t offset2 = 0;
  for (int32_t i = 0; i < broadcast.count; ++i) {
    if (element_bytes == 1) {
      ((int8_t *)output)[i] = (int8_t)prelu_element(
          params, ((const int8_t *)input)[offset1], alpha[offset2], lo, hi);
    } else {
      ((int16_t *)output)[i] = (int16_t)prelu_element(
          params, ((const int16_t *)input)[offset1], alpha[offset2], lo, hi);
    }
    utvm_broadcast_next(&broadcast, index, &offset1, &offset2);
  }
  return UTVM_OK;
}

utvm_err_t utvm_prelu_s8(const utvm_prelu_params_t *params, const utvm_shape_t *input_shape,
                         const int8_t *input, const utvm_shape_t *alpha_shape,
                         const int8_t *alpha, const utvm_shape_t *output_shape, int8_t *output) {
  return prelu_run(params, 1, input_shape, input, alpha_shape, alpha, output_shape, output);
}

utvm_err_t utvm_prelu_s16(const utvm_prelu_params_t *params, const utvm_shape_t *input_shape,
                          const int16_t *input, const utvm_shape_t *alpha_shape,
                          const int8_t *alpha, const utvm_shape_t *output_shape,
                          int16_t *output) {
  return prelu_run(params, 2, input_shape, input, alpha_shape, alpha, output_shape, output);
}

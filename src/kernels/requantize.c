/* QUANTIZE between int8 and int16 (TFLite's reference_ops::Requantize for int16 -> int8,
 * int8 -> int16 and int16 -> int16). */
#include "fixed_point.h"
#include "shape.h"
#include "utvm/kernels.h"

/* The value range of an element of size bytes (1 or 2). */
static int32_t requantize_min(int32_t size) { return (size == 1) ? INT8_MIN : INT16_MIN; }
static int32_t requantize_max(int32_t size) { return (size == 1) ? INT8_MAX : INT16_MAX; }

static bool requantize_zero_point_valid(int32_t zero_point, int32_t size) {
  return (zero_point >= requantize_min(size)) && (zero_point <= requantize_max(size));
}

utvm_err_t utvm_requantize_q(const utvm_requantize_q_params_t *params, int32_t size,
                             const void *input, void *output) {
  if ((params == NULL) || (input == NULL) || (output == NULL) ||
      ((params->input_size != 1) && (params->input_size != 2)) ||
      ((params->output_size != 1) && (params->output_size != 2)) ||
      !requantize_zero_point_valid(params->input_zero_point, params->input_size) ||
      !requantize_zero_point_valid(params->output_zero_point, params->output_size) ||
      !utvm_shift_valid(params->shift)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (size < 0) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  const int8_t *in8 = (const int8_t *)input;
  const int16_t *in16 = (const int16_t *)input;
  int8_t *out8 = (int8_t *)output;
  int16_t *out16 = (int16_t *)output;
  const int32_t lo = requantize_min(params->output_size);
  const int32_t hi = requantize_max(params->output_size);
  for (int32_t i = 0; i < size; ++i) {
    const int32_t x = (params->input_size == 1) ? (int32_t)in8[i] : (int32_t)in16[i];
    const int32_t scaled = utvm_multiply_by_quantized_multiplier(
        x - params->input_zero_point, params->multiplier, params->shift);
    const int32_t q = utvm_clamp_s32(utvm_wrap_add(scaled, params->output_zero_point), lo, hi);
    if (params->output_size == 1) {
      out8[i] = (int8_t)q;
    } else {
      out16[i] = (int16_t)q;
    }
  }
  return UTVM_OK;
}

/* MINIMUM and MAXIMUM, int8 or int16, with broadcasting (TFLite's MaximumMinimumBroadcastSlow:
 * raw values compared, no requantization). */
#include "binary.h"
#include "fixed_point.h"
#include "utvm/kernels.h"

static int32_t minimum_element(const void *params, int32_t x1, int32_t x2) {
  (void)params;
  return utvm_min_s32(x1, x2);
}

static int32_t maximum_element(const void *params, int32_t x1, int32_t x2) {
  (void)params;
  return utvm_max_s32(x1, x2);
}

utvm_err_t utvm_minmax(const utvm_minmax_params_t *params, const utvm_shape_t *input1_shape,
                       const void *input1, const utvm_shape_t *input2_shape, const void *input2,
                       const utvm_shape_t *output_shape, void *output) {
  if (params == NULL || input1 == NULL || input2 == NULL || output == NULL ||
      (params->maximum != 0 && params->maximum != 1) ||
      (params->element_bytes != 1 && params->element_bytes != 2)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  return utvm_binary_walk(params->maximum == 1 ? maximum_element : minimum_element, NULL,
                          params->element_bytes, input1_shape, input1, input2_shape, input2,
                          output_shape, output);
}

/* CONCATENATION of tensors of any element size (TFLite's reference_ops::Concatenation with one
 * quantization for every input and the output, and PACK: a copy of each input's block per
 * outer index, skipped when a block already is its source: a view, UTVM_PLAN_STEP_GATHER). */
#include <string.h>

#include "utvm/kernels.h"

utvm_err_t utvm_concatenation(const utvm_concat_params_t *params, const void *const *inputs,
                              void *output) {
  if (params == NULL || inputs == NULL || output == NULL ||
      (params->element_size != 1 && params->element_size != 2 && params->element_size != 4) ||
      params->n_inputs < 1 || params->n_inputs > UTVM_CONCAT_MAX_INPUTS) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  int64_t axis_total = 0;
  for (int32_t i = 0; i < params->n_inputs; ++i) {
    if (inputs[i] == NULL) {
      return UTVM_ERR_KERNEL_BAD_PARAM;
    }
    if (params->axis_sizes[i] < 1) {
      return UTVM_ERR_KERNEL_BAD_SHAPE;
    }
    axis_total += params->axis_sizes[i];
  }
  if (params->outer < 1 || params->inner < 1 ||
      axis_total * params->inner > INT32_MAX / params->outer) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  uint8_t *out = (uint8_t *)output;
  const size_t unit = (size_t)params->inner * (size_t)params->element_size;
  for (int32_t o = 0; o < params->outer; ++o) {
    for (int32_t i = 0; i < params->n_inputs; ++i) {
      const size_t block = (size_t)params->axis_sizes[i] * unit;
      const uint8_t *in = (const uint8_t *)inputs[i];
      if (out != &in[(size_t)o * block]) { /* the same bytes: a view (UTVM_PLAN_STEP_GATHER) */
        memcpy(out, &in[(size_t)o * block], block);
      }
      out += block;
    }
  }
  return UTVM_OK;
}

/* One output of SPLIT, SPLIT_V or UNPACK (any element type): a block of the middle axis of the
 * input seen as [outer, input_len, inner], copied row by row (not when a row already is its
 * source: a view, UTVM_PLAN_STEP_SCATTER). */
#include <stdint.h>
#include <string.h>

#include "utvm/kernels.h"

utvm_err_t utvm_split(const utvm_split_params_t *params, const void *input, void *output) {
  if ((params == NULL) || (input == NULL) || (output == NULL)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const utvm_split_params_t *p = params;
  if ((p->element_size != 1) && (p->element_size != 2) && (p->element_size != 4)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if ((p->outer < 1) || (p->input_len < 1) || (p->output_len < 1) || (p->inner < 1) ||
      (p->begin < 0) || (p->begin > (p->input_len - p->output_len))) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  const uint64_t input_bytes =
      (uint64_t)p->outer * (uint64_t)p->input_len * (uint64_t)p->inner * (uint64_t)p->element_size;
  if (input_bytes > (uint64_t)INT32_MAX) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  const size_t row = (size_t)p->inner * (size_t)p->element_size;
  const size_t in_stride = row * (size_t)p->input_len;
  const size_t out_bytes = row * (size_t)p->output_len;
  const uint8_t *in = (const uint8_t *)input + (row * (size_t)p->begin);
  uint8_t *out = (uint8_t *)output;
  int32_t o;
  for (o = 0; o < p->outer; o++) {
    if (out != in) { /* the same bytes when the planner made the output a view of the input */
      (void)memcpy(out, in, out_bytes);
    }
    in = &in[in_stride];
    out = &out[out_bytes];
  }
  return UTVM_OK;
}

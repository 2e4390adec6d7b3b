/* PAD, int8, over the four NHWC dimensions (TFLite's reference_ops::Pad with a constant). */
#include <string.h>

#include "shape.h"
#include "utvm/kernels.h"

utvm_err_t utvm_pad_s8(const utvm_pad_params_t *params, const utvm_dims_t *input_dims,
                       const int8_t *input, int8_t *output) {
  if (params == NULL || input == NULL || output == NULL ||
      !utvm_zero_point_valid(params->pad_value)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!utvm_dims_valid(input_dims)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  const int32_t in[4] = {input_dims->n, input_dims->h, input_dims->w, input_dims->c};
  int32_t out[4];
  int64_t count = 1;
  for (int32_t d = 0; d < 4; ++d) {
    if (params->before[d] < 0 || params->after[d] < 0) {
      return UTVM_ERR_KERNEL_BAD_PARAM;
    }
    const int64_t size = (int64_t)in[d] + params->before[d] + params->after[d];
    if (size > INT32_MAX) {
      return UTVM_ERR_KERNEL_BAD_SHAPE;
    }
    count *= size; /* below 2^62 */
    if (count > INT32_MAX) {
      return UTVM_ERR_KERNEL_BAD_SHAPE;
    }
    out[d] = (int32_t)size;
  }
  const int8_t pad = (int8_t)params->pad_value;
  const size_t row = (size_t)out[3];
  int8_t *out_row = output;
  const int8_t *in_row = input;
  for (int32_t b = 0; b < out[0]; ++b) {
    const bool b_inside = b >= params->before[0] && b < params->before[0] + in[0];
    for (int32_t y = 0; y < out[1]; ++y) {
      const bool y_inside = b_inside && y >= params->before[1] && y < params->before[1] + in[1];
      for (int32_t x = 0; x < out[2]; ++x) {
        if (y_inside && x >= params->before[2] && x < params->before[2] + in[2]) {
          memset(out_row, pad, (size_t)params->before[3]);
          memcpy(out_row + params->before[3], in_row, (size_t)in[3]);
          memset(out_row + params->before[3] + in[3], pad, (size_t)params->after[3]);
          in_row += in[3];
        } else {
          memset(out_row, pad, row);
        }
        out_row += row;
      }
    }
  }
  return UTVM_OK;
}

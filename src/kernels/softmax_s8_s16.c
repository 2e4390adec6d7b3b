/* SOFTMAX, int8 -> int16 (the int8-input softmax of softmax_rows.h). */
#include "softmax_rows.h"

utvm_err_t utvm_softmax_s8_s16(const utvm_softmax_params_t *params, int32_t rows, int32_t depth,
                               const int8_t *input, int16_t *output) {
  if (output == NULL) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  return softmax_rows(params, rows, depth, input, 16, NULL, output);
}

/* SOFTMAX, int8 -> int8 (the int8-input softmax of softmax_rows.h). */
#include "softmax_rows.h"

utvm_err_t utvm_softmax_s8(const utvm_softmax_params_t *params, int32_t rows, int32_t depth,
                           const int8_t *input, int8_t *output) {
  if (output == NULL) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  return softmax_rows(params, rows, depth, input, 8, output, NULL);
}

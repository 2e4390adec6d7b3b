/* int8 element-wise operators through a 256-entry table built at prepare (utvm_pwl_table_s8
 * and the other table builders). */
#include "utvm/kernels.h"

utvm_err_t utvm_lut_s8(const int8_t *table, int32_t size, const int8_t *input, int8_t *output) {
  if (table == NULL || input == NULL || output == NULL) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (size < 0) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  for (int32_t i = 0; i < size; ++i) {
    output[i] = table[(int32_t)input[i] - INT8_MIN];
  }
  return UTVM_OK;
}

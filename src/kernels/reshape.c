/* RESHAPE and SQUEEZE: the bytes do not change, only the shape the caller records. */
#include <string.h>

#include "utvm/kernels.h"

utvm_err_t utvm_reshape(const void *input, void *output, size_t size) {
  if (size == 0u || input == output) {
    return UTVM_OK;
  }
  if (input == NULL || output == NULL) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  memmove(output, input, size);
  return UTVM_OK;
}

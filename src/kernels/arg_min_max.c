/* ARG_MAX and ARG_MIN of int8 along one axis (TFLite's reference ArgMinMax: the first index
 * of the strictly largest / smallest value, int32 output). */
#include "utvm/kernels.h"

utvm_err_t utvm_arg_min_max_s8(const utvm_arg_min_max_params_t *params, const int8_t *input,
                               int32_t *output) {
  if ((params == NULL) || (input == NULL) || (output == NULL) || (params->outer < 1) ||
      (params->axis_size < 1) || (params->inner < 1) ||
      (((int64_t)params->outer * params->axis_size * params->inner) > INT32_MAX)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const utvm_arg_min_max_params_t *p = params;
  for (int32_t o = 0; o < p->outer; ++o) {
    for (int32_t i = 0; i < p->inner; ++i) {
      const int8_t *column = &input[((size_t)o * (size_t)p->axis_size * (size_t)p->inner) +
                                    (size_t)i];
      int8_t best = column[0];
      int32_t best_index = 0;
      for (int32_t a = 1; a < p->axis_size; ++a) {
        const int8_t v = column[(size_t)a * (size_t)p->inner];
        if ((p->is_max != 0) ? (v > best) : (v < best)) {
          best = v;
          best_index = a;
        }
      }
      output[((size_t)o * (size_t)p->inner) + (size_t)i] = best_index;
    }
  }
  return UTVM_OK;
}

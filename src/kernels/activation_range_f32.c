/* The clamp range of a fused activation on a float output (TFLite's CalculateActivationRange). */
#include <float.h>

#include "utvm/kernels.h"

utvm_err_t utvm_activation_range_f32(int32_t activation, float *act_min, float *act_max) {
  utvm_err_t err = UTVM_OK;
  if ((act_min == NULL) || (act_max == NULL)) {
    err = UTVM_ERR_KERNEL_BAD_PARAM;
  } else if (activation == (int32_t)UTVM_ACT_NONE) {
    *act_min = -FLT_MAX;
    *act_max = FLT_MAX;
  } else if (activation == (int32_t)UTVM_ACT_RELU) {
    *act_min = 0.0f;
    *act_max = FLT_MAX;
  } else if (activation == (int32_t)UTVM_ACT_RELU_N1_TO_1) {
    *act_min = -1.0f;
    *act_max = 1.0f;
  } else if (activation == (int32_t)UTVM_ACT_RELU6) {
    *act_min = 0.0f;
    *act_max = 6.0f;
  } else {
    err = UTVM_ERR_KERNEL_UNSUPPORTED;
  }
  return err;
}

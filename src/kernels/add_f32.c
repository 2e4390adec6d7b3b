/* ADD, float32 (TFLite's reference kernels for float: input1 + input2, clamped to the fused
 * activation; the broadcast as utvm_add_s8's). */
#include "f32.h"
#include "shape.h"
#include "utvm/kernels.h"

utvm_err_t utvm_add_f32(const utvm_activation_f32_t *params, const utvm_shape_t *input1_shape,
                        const float *input1, const utvm_shape_t *input2_shape,
                        const float *input2, const utvm_shape_t *output_shape, float *output) {
  utvm_broadcast_t broadcast;
  const utvm_err_t err = utvm_binary_f32_check(params, input1_shape, input1, input2_shape, input2,
                                               output_shape, output, &broadcast);
  if (err != UTVM_OK) {
    return err;
  }
  const float act_min = params->act_min;
  const float act_max = params->act_max;
  if ((utvm_shape_count(input1_shape) == broadcast.count) &&
      (utvm_shape_count(input2_shape) == broadcast.count)) {
    for (int32_t i = 0; i < broadcast.count; ++i) {
      output[i] = utvm_clamp_f32(input1[i] + input2[i], act_min, act_max);
    }
  } else {
    int32_t index[UTVM_KERNEL_MAX_RANK] = {0};
    int32_t offset1 = 0;
    int32_t offset2 = 0;
    for (int32_t i = 0; i < broadcast.count; ++i) {
      output[i] = utvm_clamp_f32(input1[offset1] + input2[offset2], act_min, act_max);
      utvm_broadcast_next(&broadcast, index, &offset1, &offset2);
    }
  }
  return UTVM_OK;
}

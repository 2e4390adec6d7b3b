/* ADD, SUB and MUL, float32 (TFLite's reference kernels for float: input1 op input2, clamped
 * to the fused activation; the broadcast as utvm_add_s8's). One walk, three operations. */
#include "f32.h"
#include "shape.h"
#include "utvm/kernels.h"

#if UTVM_HAVE_F32 /* else f32_absent.c: utvm/kernels.h */

typedef enum { BINARY_ADD, BINARY_SUB, BINARY_MUL } binary_op_t;

static inline float binary_apply(binary_op_t op, float a, float b) {
  float result;
  switch (op) {
    case BINARY_ADD:
      result = a + b;
      break;
    case BINARY_SUB:
      result = a - b;
      break;
    default:
      result = a * b;
      break;
  }
  return result;
}

static utvm_err_t binary_f32(binary_op_t op, const utvm_activation_f32_t *params,
                             const utvm_shape_t *input1_shape, const float *input1,
                             const utvm_shape_t *input2_shape, const float *input2,
                             const utvm_shape_t *output_shape, float *output) {
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
      output[i] = utvm_clamp_f32(binary_apply(op, input1[i], input2[i]), act_min, act_max);
    }
  } else {
    int32_t index[UTVM_KERNEL_MAX_RANK] = {0};
    int32_t offset1 = 0;
    int32_t offset2 = 0;
    for (int32_t i = 0; i < broadcast.count; ++i) {
      output[i] = utvm_clamp_f32(binary_apply(op, input1[offset1], input2[offset2]), act_min,
                                 act_max);
      utvm_broadcast_next(&broadcast, index, &offset1, &offset2);
    }
  }
  return UTVM_OK;
}

utvm_err_t utvm_add_f32(const utvm_activation_f32_t *params, const utvm_shape_t *input1_shape,
                        const float *input1, const utvm_shape_t *input2_shape,
                        const float *input2, const utvm_shape_t *output_shape, float *output) {
  return binary_f32(BINARY_ADD, params, input1_shape, input1, input2_shape, input2, output_shape,
                    output);
}

utvm_err_t utvm_sub_f32(const utvm_activation_f32_t *params, const utvm_shape_t *input1_shape,
                        const float *input1, const utvm_shape_t *input2_shape,
                        const float *input2, const utvm_shape_t *output_shape, float *output) {
  return binary_f32(BINARY_SUB, params, input1_shape, input1, input2_shape, input2, output_shape,
                    output);
}

utvm_err_t utvm_mul_f32(const utvm_activation_f32_t *params, const utvm_shape_t *input1_shape,
                        const float *input1, const utvm_shape_t *input2_shape,
                        const float *input2, const utvm_shape_t *output_shape, float *output) {
  return binary_f32(BINARY_MUL, params, input1_shape, input1, input2_shape, input2, output_shape,
                    output);
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without
 * UTVM_HAVE_F32. */
typedef int utvm_kernels_no_binary_f32_t;
#endif

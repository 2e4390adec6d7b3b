/*
 * The float32 kernels of a build without them (UTVM_HAVE_F32 0, utvm/kernels.h: cores without a
 * single-precision FPU): each refuses with UTVM_ERR_KERNEL_NO_F32 and writes nothing, so that
 * the operators of src/ops link and a float32 operator that reaches a kernel anyway (op params
 * sent to utvm_k_*_f32) fails with that error. The real kernels are the *_f32.c beside this.
 */
#include "utvm/kernels.h"

#if !UTVM_HAVE_F32

utvm_err_t utvm_conv2d_f32(const utvm_conv2d_f32_params_t *params, const utvm_dims_t *input_dims,
                           const float *input, const utvm_dims_t *filter_dims,
                           const float *filter, const float *bias,
                           const utvm_dims_t *output_dims, float *output) {
  (void)params;
  (void)input_dims;
  (void)input;
  (void)filter_dims;
  (void)filter;
  (void)bias;
  (void)output_dims;
  (void)output;
  return UTVM_ERR_KERNEL_NO_F32;
}

utvm_err_t utvm_depthwise_conv2d_f32(const utvm_depthwise_conv2d_f32_params_t *params,
                                     const utvm_dims_t *input_dims, const float *input,
                                     const utvm_dims_t *filter_dims, const float *filter,
                                     const float *bias, const utvm_dims_t *output_dims,
                                     float *output) {
  (void)params;
  (void)input_dims;
  (void)input;
  (void)filter_dims;
  (void)filter;
  (void)bias;
  (void)output_dims;
  (void)output;
  return UTVM_ERR_KERNEL_NO_F32;
}

utvm_err_t utvm_fully_connected_f32(const utvm_activation_f32_t *params, int32_t batches,
                                    int32_t input_depth, int32_t output_depth,
                                    const float *input, const float *weights, const float *bias,
                                    float *output) {
  (void)params;
  (void)batches;
  (void)input_depth;
  (void)output_depth;
  (void)input;
  (void)weights;
  (void)bias;
  (void)output;
  return UTVM_ERR_KERNEL_NO_F32;
}

/* The pools' common refusal. */
static utvm_err_t pool2d_f32_absent(const utvm_pool2d_f32_params_t *params,
                                    const utvm_dims_t *input_dims, const float *input,
                                    const utvm_dims_t *output_dims, float *output) {
  (void)params;
  (void)input_dims;
  (void)input;
  (void)output_dims;
  (void)output;
  return UTVM_ERR_KERNEL_NO_F32;
}

utvm_err_t utvm_avg_pool2d_f32(const utvm_pool2d_f32_params_t *params,
                               const utvm_dims_t *input_dims, const float *input,
                               const utvm_dims_t *output_dims, float *output) {
  return pool2d_f32_absent(params, input_dims, input, output_dims, output);
}

utvm_err_t utvm_max_pool2d_f32(const utvm_pool2d_f32_params_t *params,
                               const utvm_dims_t *input_dims, const float *input,
                               const utvm_dims_t *output_dims, float *output) {
  return pool2d_f32_absent(params, input_dims, input, output_dims, output);
}

/* ADD, SUB and MUL's common refusal. */
static utvm_err_t binary_f32_absent(const utvm_activation_f32_t *params,
                                    const utvm_shape_t *input1_shape, const float *input1,
                                    const utvm_shape_t *input2_shape, const float *input2,
                                    const utvm_shape_t *output_shape, float *output) {
  (void)params;
  (void)input1_shape;
  (void)input1;
  (void)input2_shape;
  (void)input2;
  (void)output_shape;
  (void)output;
  return UTVM_ERR_KERNEL_NO_F32;
}

utvm_err_t utvm_add_f32(const utvm_activation_f32_t *params, const utvm_shape_t *input1_shape,
                        const float *input1, const utvm_shape_t *input2_shape,
                        const float *input2, const utvm_shape_t *output_shape, float *output) {
  return binary_f32_absent(params, input1_shape, input1, input2_shape, input2, output_shape,
                           output);
}

utvm_err_t utvm_sub_f32(const utvm_activation_f32_t *params, const utvm_shape_t *input1_shape,
                        const float *input1, const utvm_shape_t *input2_shape,
                        const float *input2, const utvm_shape_t *output_shape, float *output) {
  return binary_f32_absent(params, input1_shape, input1, input2_shape, input2, output_shape,
                           output);
}

utvm_err_t utvm_mul_f32(const utvm_activation_f32_t *params, const utvm_shape_t *input1_shape,
                        const float *input1, const utvm_shape_t *input2_shape,
                        const float *input2, const utvm_shape_t *output_shape, float *output) {
  return binary_f32_absent(params, input1_shape, input1, input2_shape, input2, output_shape,
                           output);
}

/* The element-wise kernels' common refusal. */
static utvm_err_t unary_f32_absent(int32_t count, const float *input, float *output) {
  (void)count;
  (void)input;
  (void)output;
  return UTVM_ERR_KERNEL_NO_F32;
}

utvm_err_t utvm_relu_f32(int32_t count, const float *input, float *output) {
  return unary_f32_absent(count, input, output);
}

utvm_err_t utvm_relu6_f32(int32_t count, const float *input, float *output) {
  return unary_f32_absent(count, input, output);
}

utvm_err_t utvm_logistic_f32(int32_t count, const float *input, float *output) {
  return unary_f32_absent(count, input, output);
}

utvm_err_t utvm_tanh_f32(int32_t count, const float *input, float *output) {
  return unary_f32_absent(count, input, output);
}

utvm_err_t utvm_hard_swish_f32(int32_t count, const float *input, float *output) {
  return unary_f32_absent(count, input, output);
}

utvm_err_t utvm_softmax_f32(float beta, int32_t rows, int32_t depth, const float *input,
                            float *output) {
  (void)beta;
  (void)rows;
  (void)depth;
  (void)input;
  (void)output;
  return UTVM_ERR_KERNEL_NO_F32;
}

utvm_err_t utvm_mean_f32(const utvm_shape_t *input_shape, const float *input,
                         const int32_t *axes, int32_t num_axes, float *output) {
  (void)input_shape;
  (void)input;
  (void)axes;
  (void)num_axes;
  (void)output;
  return UTVM_ERR_KERNEL_NO_F32;
}

#else
/* ISO C needs a declaration in every translation unit; this file has none with
 * UTVM_HAVE_F32. */
typedef int utvm_kernels_with_f32_t;
#endif

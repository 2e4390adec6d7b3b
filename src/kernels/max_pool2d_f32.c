/* MAX_POOL_2D, float32 (TFLite's reference_ops::MaxPool for float). */
#include <float.h>

#include "f32.h"
#include "pool2d.h"
#include "utvm/kernels.h"

utvm_err_t utvm_max_pool2d_f32(const utvm_pool2d_f32_params_t *params,
                               const utvm_dims_t *input_dims, const float *input,
                               const utvm_dims_t *output_dims, float *output) {
  const utvm_err_t err = utvm_pool2d_f32_check(params, input_dims, input, output_dims, output);
  if (err != UTVM_OK) {
    return err;
  }
  const int32_t in_h = input_dims->h;
  const int32_t in_w = input_dims->w;
  const int32_t depth = input_dims->c;
  float *out = output;
  for (int32_t batch = 0; batch < output_dims->n; ++batch) {
    const float *batch_input = &input[batch * in_h * in_w * depth];
    for (int32_t out_y = 0; out_y < output_dims->h; ++out_y) {
      const int32_t in_y_origin = (out_y * params->stride_h) - params->pad_top;
      int32_t y_start;
      int32_t y_end;
      utvm_pool2d_window(in_y_origin, params->filter_h, in_h, &y_start, &y_end);
      for (int32_t out_x = 0; out_x < output_dims->w; ++out_x) {
        const int32_t in_x_origin = (out_x * params->stride_w) - params->pad_left;
        int32_t x_start;
        int32_t x_end;
        utvm_pool2d_window(in_x_origin, params->filter_w, in_w, &x_start, &x_end);
        for (int32_t channel = 0; channel < depth; ++channel) {
          float max = -FLT_MAX;
          for (int32_t y = y_start; y < y_end; ++y) {
            for (int32_t x = x_start; x < x_end; ++x) {
              const float value =
                  batch_input[((((in_y_origin + y) * in_w) + in_x_origin + x) * depth) + channel];
              /* std::max(max, value): value only when max < value. */
              max = (max < value) ? value : max;
            }
          }
          *out = utvm_clamp_f32(max, params->act_min, params->act_max);
          ++out;
        }
      }
    }
  }
  return UTVM_OK;
}

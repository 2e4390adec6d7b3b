/* AVERAGE_POOL_2D and MAX_POOL_2D, float32 (TFLite's reference_ops::AveragePool and MaxPool
 * for float): one window walk, two reductions. */
#include <float.h>

#include "f32.h"
#include "pool2d.h"
#include "utvm/kernels.h"

#if UTVM_HAVE_F32 /* else f32_absent.c: utvm/kernels.h */

typedef enum { POOL_AVERAGE, POOL_MAX } pool_kind_t;

/* True when each of count windows along one axis has an input inside (TFLite fails the whole
 * average pool otherwise: checked before any output is written). */
static bool windows_nonempty(int32_t count, int32_t stride, int32_t pad, int32_t filter,
                             int32_t in_size) {
  for (int32_t out = 0; out < count; ++out) {
    int32_t start;
    int32_t end;
    utvm_pool2d_window((out * stride) - pad, filter, in_size, &start, &end);
    if (start >= end) {
      return false;
    }
  }
  return true;
}

static utvm_err_t pool2d_f32(pool_kind_t kind, const utvm_pool2d_f32_params_t *params,
                             const utvm_dims_t *input_dims, const float *input,
                             const utvm_dims_t *output_dims, float *output) {
  const utvm_err_t err = utvm_pool2d_f32_check(params, input_dims, input, output_dims, output);
  if (err != UTVM_OK) {
    return err;
  }
  const int32_t in_h = input_dims->h;
  const int32_t in_w = input_dims->w;
  const int32_t depth = input_dims->c;
  if ((kind == POOL_AVERAGE) &&
      (!windows_nonempty(output_dims->h, params->stride_h, params->pad_top, params->filter_h,
                         in_h) ||
       !windows_nonempty(output_dims->w, params->stride_w, params->pad_left, params->filter_w,
                         in_w))) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
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
          float total = 0.0f;
          float count = 0.0f;
          float max = -FLT_MAX;
          for (int32_t y = y_start; y < y_end; ++y) {
            for (int32_t x = x_start; x < x_end; ++x) {
              const float value =
                  batch_input[((((in_y_origin + y) * in_w) + in_x_origin + x) * depth) + channel];
              if (kind == POOL_AVERAGE) {
                total += value;
                count += 1.0f;
              } else {
                max = (max < value) ? value : max; /* std::max(max, value) */
              }
            }
          }
          const float result = (kind == POOL_AVERAGE) ? (total / count) : max;
          *out = utvm_clamp_f32(result, params->act_min, params->act_max);
          ++out;
        }
      }
    }
  }
  return UTVM_OK;
}

utvm_err_t utvm_avg_pool2d_f32(const utvm_pool2d_f32_params_t *params,
                               const utvm_dims_t *input_dims, const float *input,
                               const utvm_dims_t *output_dims, float *output) {
  return pool2d_f32(POOL_AVERAGE, params, input_dims, input, output_dims, output);
}

utvm_err_t utvm_max_pool2d_f32(const utvm_pool2d_f32_params_t *params,
                               const utvm_dims_t *input_dims, const float *input,
                               const utvm_dims_t *output_dims, float *output) {
  return pool2d_f32(POOL_MAX, params, input_dims, input, output_dims, output);
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without
 * UTVM_HAVE_F32. */
typedef int utvm_kernels_no_pool2d_f32_t;
#endif

/* AVERAGE_POOL_2D, int8 (TFLite's reference_integer_ops::AveragePool; on cores with MVE each
 * window is averaged 16 channels at a time: avg_pool2d_s8_mve.c). */
#include "fast_s8.h"
#include "fixed_point.h"
#include "pool2d.h"
#include "utvm/kernels.h"

/* Largest window: its sum, rounded, stays within int32. */
#define AVG_POOL_MAX_WINDOW ((int64_t)1 << 23)

/* True if some output window along one dimension has no input inside: window origins grow
 * with the output position, so only the first and the last can be empty. */
static bool avg_pool_has_empty_window(int32_t out, int32_t stride, int32_t filter, int32_t pad,
                                      int32_t size) {
  const int32_t first_origin = -pad;
  const int32_t last_origin = (out - 1) * stride - pad;
  return first_origin + filter <= 0 || last_origin >= size;
}

/* The outputs of one window (see utvm_avg_pool2d_s8_mve_window), channel by channel. */
static void avg_pool_window(const utvm_pool2d_params_t *params, const int8_t *first, int32_t row,
                            int32_t depth, int32_t rows, int32_t columns, int8_t *out) {
  const int32_t count = rows * columns;
  for (int32_t channel = 0; channel < depth; ++channel) {
    int32_t acc = 0;
    for (int32_t y = 0; y < rows; ++y) {
      for (int32_t x = 0; x < columns; ++x) {
        acc += first[y * row + x * depth + channel];
      }
    }
    out[channel] = (int8_t)utvm_clamp_s32(utvm_pool2d_average(acc, count), params->act_min,
                                          params->act_max);
  }
}

typedef void (*avg_pool_window_t)(const utvm_pool2d_params_t *params, const int8_t *first,
                                  int32_t row, int32_t depth, int32_t rows, int32_t columns,
                                  int8_t *out);

/* Every output window of the layer, its pixels inside the input averaged by window. */
static void avg_pool_windows(const utvm_pool2d_params_t *params, const utvm_dims_t *input_dims,
                             const int8_t *input, const utvm_dims_t *output_dims, int8_t *output,
                             avg_pool_window_t window) {
  const int32_t in_h = input_dims->h;
  const int32_t in_w = input_dims->w;
  const int32_t depth = input_dims->c;
  const int32_t row = in_w * depth;
  int8_t *out = output;
  for (int32_t batch = 0; batch < output_dims->n; ++batch) {
    const int8_t *batch_input = &input[batch * in_h * row];
    for (int32_t out_y = 0; out_y < output_dims->h; ++out_y) {
      const int32_t in_y_origin = out_y * params->stride_h - params->pad_top;
      int32_t y_start;
      int32_t y_end;
      utvm_pool2d_window(in_y_origin, params->filter_h, in_h, &y_start, &y_end);
      for (int32_t out_x = 0; out_x < output_dims->w; ++out_x) {
        const int32_t in_x_origin = out_x * params->stride_w - params->pad_left;
        int32_t x_start;
        int32_t x_end;
        utvm_pool2d_window(in_x_origin, params->filter_w, in_w, &x_start, &x_end);
        window(params,
               &batch_input[(in_y_origin + y_start) * row + (in_x_origin + x_start) * depth], row,
               depth, y_end - y_start, x_end - x_start, out);
        out = &out[depth];
      }
    }
  }
}

void utvm_avg_pool2d_s8_portable(const utvm_pool2d_params_t *params,
                                 const utvm_dims_t *input_dims, const int8_t *input,
                                 const utvm_dims_t *output_dims, int8_t *output) {
  avg_pool_windows(params, input_dims, input, output_dims, output, avg_pool_window);
}

utvm_err_t utvm_avg_pool2d_s8(const utvm_pool2d_params_t *params, const utvm_dims_t *input_dims,
                              const int8_t *input, const utvm_dims_t *output_dims, int8_t *output) {
  const utvm_err_t err = utvm_pool2d_check(params, input_dims, input, output_dims, output, false);
  if (err != UTVM_OK) {
    return err;
  }
  if ((int64_t)params->filter_h * params->filter_w > AVG_POOL_MAX_WINDOW) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (avg_pool_has_empty_window(output_dims->h, params->stride_h, params->filter_h,
                                params->pad_top, input_dims->h) ||
      avg_pool_has_empty_window(output_dims->w, params->stride_w, params->filter_w,
                                params->pad_left, input_dims->w)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
#if defined(__ARM_FEATURE_MVE)
  avg_pool_windows(params, input_dims, input, output_dims, output,
                   utvm_avg_pool2d_s8_mve_window);
#else
  avg_pool_windows(params, input_dims, input, output_dims, output, avg_pool_window);
#endif
  return UTVM_OK;
}

/*
 * AVERAGE_POOL_2D on MVE: utvm_avg_pool2d_s8_mve (see fast_s8.h, mve_s8.h). utvm_avg_pool2d_s8
 * takes it on cores with the M-profile Vector Extension (Cortex-M55/M85). Each window's sums
 * are taken 16 channels at a time in four int32 vectors (a pixel's 16 values widened by the
 * loads); the rounded division and the clamp then run per channel exactly as the portable
 * loop does.
 *
 * Stack (arm-none-eabi-gcc 12.2 -fstack-usage on the cortex-m55 preset's flags: -Os with the
 * kernels' -O2): utvm_avg_pool2d_s8_mve 232 bytes (the window sums inlined).
 */
#include "fast_s8.h"

#if defined(__ARM_FEATURE_MVE)

#include <stdint.h>

#include "mve_s8.h"
#include "pool2d.h"

/* The sums of channels 0..n-1 (1..16) over rows x columns pixels from first (rows row bytes
 * apart, pixels depth bytes apart), into sums[0..15]. */
static void mve_avg_window_sums(const int8_t *first, int32_t row, int32_t depth, int32_t rows,
                                int32_t columns, int32_t n, int32_t *sums) {
  const mve_pred16_t p0 = vctp32q((uint32_t)n);
  const mve_pred16_t p1 = vctp32q((uint32_t)((n > 4) ? (n - 4) : 0));
  const mve_pred16_t p2 = vctp32q((uint32_t)((n > 8) ? (n - 8) : 0));
  const mve_pred16_t p3 = vctp32q((uint32_t)((n > 12) ? (n - 12) : 0));
  int32x4_t s0 = vdupq_n_s32(0);
  int32x4_t s1 = s0;
  int32x4_t s2 = s0;
  int32x4_t s3 = s0;
  for (int32_t y = 0; y < rows; ++y) {
    const int8_t *pixel = &first[y * row];
    for (int32_t x = 0; x < columns; ++x) {
      s0 = vaddq_s32(s0, vldrbq_z_s32(pixel, p0));
      s1 = vaddq_s32(s1, vldrbq_z_s32(&pixel[4], p1));
      s2 = vaddq_s32(s2, vldrbq_z_s32(&pixel[8], p2));
      s3 = vaddq_s32(s3, vldrbq_z_s32(&pixel[12], p3));
      pixel = &pixel[depth];
    }
  }
  vstrwq_s32(sums, s0);
  vstrwq_s32(&sums[4], s1);
  vstrwq_s32(&sums[8], s2);
  vstrwq_s32(&sums[12], s3);
}

void utvm_avg_pool2d_s8_mve(const utvm_pool2d_params_t *params, const utvm_dims_t *input_dims,
                            const int8_t *input, const utvm_dims_t *output_dims, int8_t *output) {
  const int32_t in_h = input_dims->h;
  const int32_t in_w = input_dims->w;
  const int32_t depth = input_dims->c;
  const int32_t row = in_w * depth;
  int32_t sums[16];
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
        const int32_t count = (y_end - y_start) * (x_end - x_start);
        const int8_t *first =
            &batch_input[(in_y_origin + y_start) * row + (in_x_origin + x_start) * depth];
        for (int32_t channel = 0; channel < depth; channel += 16) {
          const int32_t n = ((depth - channel) < 16) ? (depth - channel) : 16;
          mve_avg_window_sums(&first[channel], row, depth, y_end - y_start, x_end - x_start, n,
                              sums);
          for (int32_t i = 0; i < n; ++i) {
            const int32_t acc = (sums[i] > 0) ? ((sums[i] + (count / 2)) / count)
                                              : ((sums[i] - (count / 2)) / count);
            out[channel + i] = (int8_t)utvm_clamp_s32(acc, params->act_min, params->act_max);
          }
        }
        out = &out[depth];
      }
    }
  }
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without MVE. */
typedef int utvm_kernels_no_mve_avg_pool2d_t;
#endif

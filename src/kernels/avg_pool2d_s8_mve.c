/*
 * AVERAGE_POOL_2D on MVE: utvm_avg_pool2d_s8_mve_window (see fast_s8.h, mve_s8.h), which
 * utvm_avg_pool2d_s8's walk over the windows calls on cores with the M-profile Vector Extension
 * (Cortex-M55/M85). Each window's sums are taken 16 channels at a time in four int32 vectors (a
 * pixel's 16 values widened by the loads); the rounded division and the clamp then run per
 * channel as the portable loop's (utvm_pool2d_average).
 *
 * Stack (arm-none-eabi-gcc 12.2 -fstack-usage on the cortex-m55 preset's flags: -Os with the
 * kernels' -O2): utvm_avg_pool2d_s8_mve_window 184 bytes (the window sums inlined).
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

void utvm_avg_pool2d_s8_mve_window(const utvm_pool2d_params_t *params, const int8_t *first,
                                   int32_t row, int32_t depth, int32_t rows, int32_t columns,
                                   int8_t *out) {
  const int32_t count = rows * columns;
  int32_t sums[16];
  for (int32_t channel = 0; channel < depth; channel += 16) {
    const int32_t n = ((depth - channel) < 16) ? (depth - channel) : 16;
    mve_avg_window_sums(&first[channel], row, depth, rows, columns, n, sums);
    for (int32_t i = 0; i < n; ++i) {
      out[channel + i] = (int8_t)utvm_clamp_s32(utvm_pool2d_average(sums[i], count),
                                                params->act_min, params->act_max);
    }
  }
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without MVE. */
typedef int utvm_kernels_no_mve_avg_pool2d_t;
#endif

/* RESIZE_BILINEAR, int8 (TFLite's reference ResizeBilinearInteger: 10-bit fixed-point
 * positions, four weights whose sum is 2^20, the result rounded half away from zero). */
#include "shape.h"
#include "utvm/kernels.h"

/* Largest input height or width: 2^10 * size stays well within int32. */
#define RESIZE_MAX_INPUT (1 << 20)
/* Largest output height or width. */
#define RESIZE_MAX_OUTPUT (1 << 24)

/* TFLite's scale in 10-bit fixed point from in_size to out_size. */
static int32_t bilinear_scale(int32_t in_size, int32_t out_size, bool align) {
  int32_t scale = ((1 << 10) * in_size + out_size / 2) / out_size;
  if (align && out_size > 1) {
    scale = ((1 << 10) * (in_size - 1) + (out_size - 1) / 2) / (out_size - 1);
  }
  return scale;
}

/* Position of output coordinate o in 10-bit fixed point and its two input neighbours. */
static void bilinear_position(int32_t o, int32_t scale, bool half, int32_t in_size,
                              int32_t *at, int32_t *lower, int32_t *upper) {
  *at = half ? o * scale + scale / 2 - (1 << 9) : o * scale;
  *lower = utvm_max_s32(*at / (1 << 10), 0);
  *upper = utvm_min_s32((*at + (1 << 10) - 1) / (1 << 10), in_size - 1);
}

utvm_err_t utvm_resize_bilinear_s8(const utvm_resize_params_t *params,
                                   const utvm_dims_t *input_dims, const int8_t *input,
                                   const utvm_dims_t *output_dims, int8_t *output) {
  if (params == NULL || input == NULL || output == NULL || params->element_size != 1 ||
      (params->align_corners != 0 && params->align_corners != 1) ||
      (params->half_pixel_centers != 0 && params->half_pixel_centers != 1) ||
      (params->align_corners == 1 && params->half_pixel_centers == 1)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!utvm_dims_valid(input_dims) || !utvm_dims_valid(output_dims) ||
      input_dims->n != output_dims->n || input_dims->c != output_dims->c ||
      input_dims->h > RESIZE_MAX_INPUT || input_dims->w > RESIZE_MAX_INPUT ||
      output_dims->h > RESIZE_MAX_OUTPUT || output_dims->w > RESIZE_MAX_OUTPUT) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  const bool align = params->align_corners == 1;
  const bool half = params->half_pixel_centers == 1;
  const int32_t scale_h = bilinear_scale(input_dims->h, output_dims->h, align);
  const int32_t scale_w = bilinear_scale(input_dims->w, output_dims->w, align);
  const int32_t depth = input_dims->c;
  const int32_t row = input_dims->w * depth;
  int8_t *out = output;
  for (int32_t b = 0; b < output_dims->n; ++b) {
    const int8_t *image = &input[(size_t)b * (size_t)input_dims->h * (size_t)row];
    for (int32_t y = 0; y < output_dims->h; ++y) {
      int32_t at_y;
      int32_t y0;
      int32_t y1;
      bilinear_position(y, scale_h, half, input_dims->h, &at_y, &y0, &y1);
      const int64_t dy = at_y - (1 << 10) * y0;
      for (int32_t x = 0; x < output_dims->w; ++x) {
        int32_t at_x;
        int32_t x0;
        int32_t x1;
        bilinear_position(x, scale_w, half, input_dims->w, &at_x, &x0, &x1);
        const int64_t dx = at_x - (1 << 10) * x0;
        const int8_t *p00 = &image[(size_t)y0 * (size_t)row + (size_t)x0 * (size_t)depth];
        const int8_t *p10 = &image[(size_t)y1 * (size_t)row + (size_t)x0 * (size_t)depth];
        const int8_t *p01 = &image[(size_t)y0 * (size_t)row + (size_t)x1 * (size_t)depth];
        const int8_t *p11 = &image[(size_t)y1 * (size_t)row + (size_t)x1 * (size_t)depth];
        for (int32_t c = 0; c < depth; ++c) {
          const int64_t sum = (int64_t)p00[c] * ((1 << 10) - dy) * ((1 << 10) - dx) +
                              (int64_t)p10[c] * dy * ((1 << 10) - dx) +
                              (int64_t)p01[c] * ((1 << 10) - dy) * dx +
                              (int64_t)p11[c] * dy * dx;
          const int64_t round = sum > 0 ? (1 << 19) : -(1 << 19);
          *out++ = (int8_t)((sum + round) / (1 << 20));
        }
      }
    }
  }
  return UTVM_OK;
}

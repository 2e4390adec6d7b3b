/* RESIZE_NEAREST_NEIGHBOR of elements of 1, 2 or 4 bytes (TFLite's reference
 * ResizeNearestNeighbor): each output pixel copies the input pixel TFLite's float mapping picks
 * (align_corners: rounded, else floored; half_pixel_centers: from pixel centres). */
#include <math.h>
#include <string.h>

#include "shape.h"
#include "utvm/kernels.h"

/* The input coordinate of output coordinate o, in float as TFLite's GetNearestNeighbor. */
static int32_t nearest_source(int32_t o, int32_t in_size, int32_t out_size, bool align,
                              bool half) {
  const float scale = (align && out_size > 1) ? (float)(in_size - 1) / (float)(out_size - 1)
                                              : (float)in_size / (float)out_size;
  const float at = ((float)o + (half ? 0.5f : 0.0f)) * scale;
  int32_t v = align ? (int32_t)roundf(at) : (int32_t)floorf(at);
  v = utvm_min_s32(v, in_size - 1);
  return utvm_max_s32(v, 0); /* TFLite clamps at 0 for half_pixel_centers; never below 0 else */
}

utvm_err_t utvm_resize_nearest(const utvm_resize_params_t *params, const utvm_dims_t *input_dims,
                               const void *input, const utvm_dims_t *output_dims, void *output) {
  if (params == NULL || input == NULL || output == NULL ||
      (params->element_size != 1 && params->element_size != 2 && params->element_size != 4) ||
      (params->align_corners != 0 && params->align_corners != 1) ||
      (params->half_pixel_centers != 0 && params->half_pixel_centers != 1)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!utvm_dims_valid(input_dims) || !utvm_dims_valid(output_dims) ||
      input_dims->n != output_dims->n || input_dims->c != output_dims->c ||
      output_dims->h > (1 << 24) || output_dims->w > (1 << 24)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  const bool align = params->align_corners == 1;
  const bool half = params->half_pixel_centers == 1;
  const size_t run = (size_t)input_dims->c * (size_t)params->element_size;
  const uint8_t *in = (const uint8_t *)input;
  uint8_t *out = (uint8_t *)output;
  for (int32_t b = 0; b < output_dims->n; ++b) {
    for (int32_t y = 0; y < output_dims->h; ++y) {
      const int32_t sy = nearest_source(y, input_dims->h, output_dims->h, align, half);
      const size_t row = ((size_t)b * (size_t)input_dims->h + (size_t)sy) * (size_t)input_dims->w;
      for (int32_t x = 0; x < output_dims->w; ++x) {
        const int32_t sx = nearest_source(x, input_dims->w, output_dims->w, align, half);
        memcpy(out, &in[(row + (size_t)sx) * run], run);
        out += run;
      }
    }
  }
  return UTVM_OK;
}

/* SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND of elements of 1, 2 or 4 bytes (TFLite's reference
 * SpaceToBatchND and BatchToSpaceND): one map between a space tensor [n, h, w, c] and a batch
 * tensor [n*bh*bw, h', w', c]. Batch pixel (b, y, x) with shift = b / n is space pixel
 * (b % n, y*bh + shift/bw - top, x*bw + shift%bw - left), or padding where that lies
 * outside (to batch: pad_value is written; to space: the pixel is cropped away). */
#include <string.h>

#include "shape.h"
#include "utvm/kernels.h"

/* True if params fit the element size and the two tensors fit each other: the batch tensor
 * covers the space one with top/left before it and a non-negative rest after it. */
static bool space_batch_valid(const utvm_space_batch_params_t *p, const utvm_dims_t *s,
                              const utvm_dims_t *b) {
  if ((p->element_size == 1 && (p->pad_value < INT8_MIN || p->pad_value > INT8_MAX)) ||
      (p->element_size == 2 && (p->pad_value < INT16_MIN || p->pad_value > INT16_MAX)) ||
      (p->to_batch != 0 && p->to_batch != 1) || p->block[0] < 1 || p->block[1] < 1 ||
      p->before[0] < 0 || p->before[1] < 0) {
    return false;
  }
  const int64_t blocks = (int64_t)p->block[0] * p->block[1]; /* below 2^62 */
  return blocks <= INT32_MAX && (int64_t)b->n == (int64_t)s->n * blocks && b->c == s->c &&
         (int64_t)b->h * p->block[0] - s->h - p->before[0] >= 0 &&
         (int64_t)b->w * p->block[1] - s->w - p->before[1] >= 0;
}

utvm_err_t utvm_space_batch(const utvm_space_batch_params_t *params,
                            const utvm_dims_t *space_dims, const utvm_dims_t *batch_dims,
                            const void *input, void *output) {
  if (params == NULL || input == NULL || output == NULL ||
      (params->element_size != 1 && params->element_size != 2 && params->element_size != 4)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!utvm_dims_valid(space_dims) || !utvm_dims_valid(batch_dims)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  if (!space_batch_valid(params, space_dims, batch_dims)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const size_t size = (size_t)params->element_size;
  const size_t run = (size_t)space_dims->c * size;
  utvm_element_t pad;
  if (size == 1u) {
    pad.i8 = (int8_t)params->pad_value;
  } else if (size == 2u) {
    pad.i16 = (int16_t)params->pad_value;
  } else {
    pad.i32 = params->pad_value;
  }
  const uint8_t *value = pad.bytes;
  const bool to_batch = params->to_batch == 1;
  const uint8_t *in = (const uint8_t *)input;
  uint8_t *out = (uint8_t *)output;
  uint8_t *space_out = to_batch ? NULL : out;
  const uint8_t *space_in = to_batch ? in : NULL;
  for (int32_t b = 0; b < batch_dims->n; ++b) {
    const int32_t shift = b / space_dims->n;
    const int32_t sb = b % space_dims->n;
    const int32_t shift_h = shift / params->block[1];
    const int32_t shift_w = shift % params->block[1];
    for (int32_t y = 0; y < batch_dims->h; ++y) {
      const int32_t sy = y * params->block[0] + shift_h - params->before[0];
      for (int32_t x = 0; x < batch_dims->w; ++x) {
        const int32_t sx = x * params->block[1] + shift_w - params->before[1];
        const size_t batch_at = ((((size_t)b * (size_t)batch_dims->h) + (size_t)y) *
                                     (size_t)batch_dims->w + (size_t)x) * run;
        const bool inside = sy >= 0 && sy < space_dims->h && sx >= 0 && sx < space_dims->w;
        const size_t space_at =
            inside ? ((((size_t)sb * (size_t)space_dims->h) + (size_t)sy) * (size_t)space_dims->w +
                      (size_t)sx) * run
                   : 0u;
        if (to_batch && inside) {
          memcpy(&out[batch_at], &space_in[space_at], run);
        } else if (to_batch) {
          for (int32_t c = 0; c < space_dims->c; ++c) {
            memcpy(&out[batch_at + (size_t)c * size], value, size);
          }
        } else if (inside) {
          memcpy(&space_out[space_at], &in[batch_at], run);
        } else {
          /* cropped away */
        }
      }
    }
  }
  return UTVM_OK;
}

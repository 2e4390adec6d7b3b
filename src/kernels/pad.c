/* PAD, PADV2 and MIRROR_PAD of elements of 1, 2 or 4 bytes over four dimensions: a constant
 * border (TFLite's reference_ops::Pad) or a mirrored one (TFLM's MirrorPad, REFLECT leaves
 * the edge out, SYMMETRIC repeats it). */
#include <string.h>

#include "shape.h"
#include "utvm/kernels.h"

/* The input coordinate of output coordinate o along a dimension of n inputs with `before`
 * added in front, or -1 where the constant goes. */
static int32_t pad_source(int32_t o, int32_t before, int32_t n, int32_t mode) {
  int32_t i = o - before;
  if (i < 0) {
    i = mode == UTVM_PAD_REFLECT ? -i : (mode == UTVM_PAD_SYMMETRIC ? -i - 1 : -1);
  } else if (i >= n) {
    i = mode == UTVM_PAD_REFLECT ? 2 * n - 2 - i : (mode == UTVM_PAD_SYMMETRIC ? 2 * n - 1 - i : -1);
  } else {
    /* inside the input */
  }
  return i;
}

/* True if the pad value fits the element type and every padding the mode. */
static bool pad_params_valid(const utvm_pad_any_params_t *p, const int32_t *in) {
  if ((p->element_size == 1 && (p->pad_value < INT8_MIN || p->pad_value > INT8_MAX)) ||
      (p->element_size == 2 && (p->pad_value < INT16_MIN || p->pad_value > INT16_MAX)) ||
      p->mode < UTVM_PAD_CONSTANT || p->mode > UTVM_PAD_SYMMETRIC) {
    return false;
  }
  for (int32_t d = 0; d < 4; ++d) {
    /* REFLECT pads up to n - 1, SYMMETRIC up to n */
    const int32_t most = p->mode == UTVM_PAD_REFLECT ? in[d] - 1 : in[d];
    if (p->before[d] < 0 || p->after[d] < 0 ||
        (p->mode != UTVM_PAD_CONSTANT && (p->before[d] > most || p->after[d] > most))) {
      return false;
    }
  }
  return true;
}

utvm_err_t utvm_pad(const utvm_pad_any_params_t *params, const utvm_dims_t *input_dims,
                    const void *input, void *output) {
  if (params == NULL || input == NULL || output == NULL ||
      (params->element_size != 1 && params->element_size != 2 && params->element_size != 4)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!utvm_dims_valid(input_dims)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  const int32_t in[4] = {input_dims->n, input_dims->h, input_dims->w, input_dims->c};
  if (!pad_params_valid(params, in)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  int32_t out[4];
  int64_t count = 1;
  for (int32_t d = 0; d < 4; ++d) {
    const int64_t size = (int64_t)in[d] + params->before[d] + params->after[d];
    if (size > INT32_MAX) {
      return UTVM_ERR_KERNEL_BAD_SHAPE;
    }
    count *= size; /* below 2^62 */
    if (count > INT32_MAX) {
      return UTVM_ERR_KERNEL_BAD_SHAPE;
    }
    out[d] = (int32_t)size;
  }
  const size_t size = (size_t)params->element_size;
  utvm_element_t pad;
  if (size == 1u) {
    pad.i8 = (int8_t)params->pad_value;
  } else if (size == 2u) {
    pad.i16 = (int16_t)params->pad_value;
  } else {
    pad.i32 = params->pad_value;
  }
  const uint8_t *value = pad.bytes;
  const int32_t mode = params->mode;
  const uint8_t *src = (const uint8_t *)input;
  uint8_t *dst = (uint8_t *)output;
  for (int32_t b = 0; b < out[0]; ++b) {
    const int32_t sb = pad_source(b, params->before[0], in[0], mode);
    for (int32_t y = 0; y < out[1]; ++y) {
      const int32_t sy = pad_source(y, params->before[1], in[1], mode);
      for (int32_t x = 0; x < out[2]; ++x) {
        const int32_t sx = pad_source(x, params->before[2], in[2], mode);
        if (sb < 0 || sy < 0 || sx < 0) {
          for (int32_t c = 0; c < out[3]; ++c) {
            memcpy(dst, value, size);
            dst += size;
          }
        } else {
          const int64_t at = (((int64_t)sb * in[1] + sy) * in[2] + sx) * in[3];
          const uint8_t *row = &src[(size_t)at * size];
          for (int32_t c = 0; c < params->before[3]; ++c) {
            const int32_t sc = pad_source(c, params->before[3], in[3], mode);
            memcpy(dst, sc < 0 ? value : &row[(size_t)sc * size], size);
            dst += size;
          }
          memcpy(dst, row, (size_t)in[3] * size);
          dst += (size_t)in[3] * size;
          for (int32_t c = params->before[3] + in[3]; c < out[3]; ++c) {
            const int32_t sc = pad_source(c, params->before[3], in[3], mode);
            memcpy(dst, sc < 0 ? value : &row[(size_t)sc * size], size);
            dst += size;
          }
        }
      }
    }
  }
  return UTVM_OK;
}

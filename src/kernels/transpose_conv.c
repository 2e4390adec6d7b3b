/* TRANSPOSE_CONV with int8 weights and int8 (32-bit sums) or int16 activations (64-bit sums,
 * zero points 0), as TFLite's reference_integer_ops::TransposeConv: every input pixel scattered
 * through the filter into an output-sized sum (scratch), then the bias, the per-channel rescale
 * and the activation range. */
#include <string.h>

#include "fixed_point.h"
#include "s16_accumulate.h"
#include "shape.h"
#include "utvm/kernels.h"

static bool tconv_valid(const utvm_conv2d_params_t *p, int32_t element_size,
                        const utvm_per_channel_quant_t *quant, const utvm_dims_t *in,
                        const utvm_dims_t *f, const utvm_dims_t *out) {
  bool ok = utvm_dims_valid(in) && utvm_dims_valid(f) && utvm_dims_valid(out) &&
            (in->n == out->n) && (in->c == f->c) && (out->c == f->n) && (p->stride_h >= 1) &&
            (p->stride_w >= 1) && (p->pad_top >= 0) && (p->pad_left >= 0) &&
            (p->dilation_h == 1) && (p->dilation_w == 1) &&
            (p->filter_layout == (int32_t)UTVM_FILTER_PLAIN) &&
            utvm_per_channel_quant_valid(quant, out->c) &&
            (((int64_t)(in->h - 1) * p->stride_h) + f->h <= INT32_MAX) &&
            (((int64_t)(in->w - 1) * p->stride_w) + f->w <= INT32_MAX);
  if (ok && (element_size == 2)) {
    ok = (p->input_offset == 0) && (p->output_offset == 0) &&
         utvm_s16_quant_valid(UTVM_ACCUMULATE_64, quant) &&
         utvm_act_range_s16_valid(p->act_min, p->act_max);
  } else if (ok) {
    ok = (element_size == 1) && utvm_input_offset_valid(p->input_offset) &&
         utvm_zero_point_valid(p->output_offset) && utvm_act_range_valid(p->act_min, p->act_max);
  } else {
    /* invalid already */
  }
  return ok;
}

size_t utvm_transpose_conv_scratch_size(int32_t element_size, const utvm_dims_t *output_dims) {
  size_t bytes = 0u;
  if (utvm_dims_valid(output_dims) && ((element_size == 1) || (element_size == 2))) {
    bytes = (size_t)output_dims->n * (size_t)output_dims->h * (size_t)output_dims->w *
            (size_t)output_dims->c * ((element_size == 2) ? sizeof(int64_t) : sizeof(int32_t));
  }
  return bytes;
}

/* The scattered sums: int64 for int16 (scratch of int64), wrapping int32 for int8. */
static void tconv_scatter(const utvm_conv2d_params_t *p, int32_t element_size,
                          const utvm_dims_t *in, const void *input, const utvm_dims_t *f,
                          const int8_t *filter, const utvm_dims_t *out, void *scratch) {
  int64_t *sum64 = (int64_t *)scratch;
  int32_t *sum32 = (int32_t *)scratch;
  for (int32_t b = 0; b < in->n; ++b) {
    for (int32_t iy = 0; iy < in->h; ++iy) {
      for (int32_t ix = 0; ix < in->w; ++ix) {
        for (int32_t ic = 0; ic < in->c; ++ic) {
          const size_t in_at = ((((size_t)b * (size_t)in->h + (size_t)iy) * (size_t)in->w +
                                 (size_t)ix) * (size_t)in->c) + (size_t)ic;
          const int64_t v = ((element_size == 2) ? (int64_t)((const int16_t *)input)[in_at]
                                                 : (int64_t)((const int8_t *)input)[in_at]) +
                            p->input_offset;
          for (int32_t ky = 0; ky < f->h; ++ky) {
            const int32_t oy = (iy * p->stride_h) - p->pad_top + ky;
            for (int32_t kx = 0; (oy >= 0) && (oy < out->h) && (kx < f->w); ++kx) {
              const int32_t ox = (ix * p->stride_w) - p->pad_left + kx;
              if ((ox < 0) || (ox >= out->w)) {
                continue;
              }
              const size_t out_px =
                  (((size_t)b * (size_t)out->h + (size_t)oy) * (size_t)out->w + (size_t)ox) *
                  (size_t)out->c;
              for (int32_t oc = 0; oc < out->c; ++oc) {
                const size_t f_at = ((((size_t)oc * (size_t)f->h + (size_t)ky) * (size_t)f->w +
                                      (size_t)kx) * (size_t)f->c) + (size_t)ic;
                const int64_t term = v * (int64_t)filter[f_at];
                if (element_size == 2) {
                  sum64[out_px + (size_t)oc] += term;
                } else {
                  sum32[out_px + (size_t)oc] =
                      utvm_wrap_add(sum32[out_px + (size_t)oc], (int32_t)term);
                }
              }
            }
          }
        }
      }
    }
  }
}

utvm_err_t utvm_transpose_conv(const utvm_conv2d_params_t *params,
                               const utvm_per_channel_quant_t *quant, int32_t element_size,
                               const utvm_dims_t *input_dims, const void *input,
                               const utvm_dims_t *filter_dims, const int8_t *filter,
                               const void *bias, const utvm_dims_t *output_dims, void *output,
                               void *scratch) {
  if ((params == NULL) || (input == NULL) || (filter == NULL) || (output == NULL) ||
      (scratch == NULL) || (quant == NULL) ||
      !tconv_valid(params, element_size, quant, input_dims, filter_dims, output_dims)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const size_t n = (size_t)output_dims->n * (size_t)output_dims->h * (size_t)output_dims->w *
                   (size_t)output_dims->c;
  (void)memset(scratch, 0, utvm_transpose_conv_scratch_size(element_size, output_dims));
  tconv_scatter(params, element_size, input_dims, input, filter_dims, filter, output_dims,
                scratch);
  for (size_t i = 0u; i < n; ++i) {
    const int32_t oc = (int32_t)(i % (size_t)output_dims->c);
    const int32_t q = utvm_quant_index(quant, oc);
    if (element_size == 2) {
      const int64_t b = (bias != NULL) ? ((const int64_t *)bias)[oc] : 0;
      ((int16_t *)output)[i] =
          utvm_s16_output(UTVM_ACCUMULATE_64, ((const int64_t *)scratch)[i] + b,
                          quant->multiplier[q], quant->shift[q], params->act_min, params->act_max);
    } else {
      const int32_t b = (bias != NULL) ? ((const int32_t *)bias)[oc] : 0;
      const int32_t acc = utvm_wrap_add(((const int32_t *)scratch)[i], b);
      const int32_t scaled =
          utvm_multiply_by_quantized_multiplier(acc, quant->multiplier[q], quant->shift[q]);
      ((int8_t *)output)[i] = (int8_t)utvm_clamp_s32(utvm_wrap_add(scaled, params->output_offset),
                                                     params->act_min, params->act_max);
    }
  }
  return UTVM_OK;
}

/*
 * MVE fast paths of CONV_2D, FULLY_CONNECTED and DEPTHWISE_CONV_2D (see fast_s8.h and
 * mve_s8.h), for cores with the M-profile Vector Extension (Cortex-M55/M85).
 *
 * CONV_2D and FULLY_CONNECTED multiply raw int8 values with VMLADAVA (16 products per
 * instruction) and add the offsets afterwards: sum (w + fo)(x + io) = sum w*x + io * sum w +
 * fo * sum x + K * fo * io, all modulo 2^32 as the portable int32 accumulator wraps, so every
 * sum is the portable one. A 1x1 convolution reads each output position's input pixel in
 * place; any other reads an int8 im2col column in which padding holds -io (so that x + io is 0
 * there: -io is -128..127). Four output channels share each column load, and their four sums
 * are requantized together (mve_requant_store). DEPTHWISE_CONV_2D works lane-wise over 8
 * output channels: input and filter widened to int16 (x + io fits), even and odd lanes
 * multiplied into int32 (VMULLB/VMULLT) and accumulated over the taps inside the input; with a
 * multiplier other than 1 (or fewer than 8 channels left) the inputs are gathered.
 */
#include "fast_s8.h"

#if defined(__ARM_FEATURE_MVE)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mve_s8.h"

/* The inner loops are functions of their own, so that their pointers and accumulators get
 * registers instead of sharing them with the callers' loop state. */
#define MVE_NOINLINE __attribute__((noinline))

#define MVE_BLOCK UTVM_KERNELS_MVE_CHANNEL_BLOCK

/* The output step's constants. */
typedef struct {
  int32_t output_offset;
  int32_t act_min;
  int32_t act_max;
} mve_output_t;

typedef char mve_block_is_a_multiple_of_8[((MVE_BLOCK % 8) == 0) && (MVE_BLOCK > 0) ? 1 : -1];

/* sums[i] = sum over k < length of rows[i * length + k] * column[k] for i < count (wrapping);
 * sums has count rounded up to 4 entries (the extra ones are overwritten). */
static MVE_NOINLINE void mve_gemv(const int8_t *rows, int32_t length, int32_t count,
                                  const int8_t *column, int32_t *sums) {
  const int32_t blocks = length / 16;
  const int32_t tail = length - 16 * blocks;
  const int8_t *next = rows;
  for (int32_t row = 0; row < count; row += 4) {
    const int8_t *r0 = next;
    const int8_t *r1 = ((row + 1) < count) ? &r0[length] : r0;
    const int8_t *r2 = ((row + 2) < count) ? &r1[length] : r1;
    const int8_t *r3 = ((row + 3) < count) ? &r2[length] : r2;
    next = &r3[length];
    const int8_t *c = column;
    int32_t a0 = 0;
    int32_t a1 = 0;
    int32_t a2 = 0;
    int32_t a3 = 0;
    for (int32_t b = 0; b < blocks; ++b) {
      const int8x16_t x = vldrbq_s8(c);
      a0 = vmladavaq_s8(a0, vldrbq_s8(r0), x);
      a1 = vmladavaq_s8(a1, vldrbq_s8(r1), x);
      a2 = vmladavaq_s8(a2, vldrbq_s8(r2), x);
      a3 = vmladavaq_s8(a3, vldrbq_s8(r3), x);
      c = &c[16];
      r0 = &r0[16];
      r1 = &r1[16];
      r2 = &r2[16];
      r3 = &r3[16];
    }
    if (tail > 0) {
      /* The column's zeroed lanes make the weights' extra lanes add nothing. */
      const mve_pred16_t p = vctp8q((uint32_t)tail);
      const int8x16_t x = vldrbq_z_s8(c, p);
      a0 = vmladavaq_s8(a0, vldrbq_z_s8(r0, p), x);
      a1 = vmladavaq_s8(a1, vldrbq_z_s8(r1, p), x);
      a2 = vmladavaq_s8(a2, vldrbq_z_s8(r2, p), x);
      a3 = vmladavaq_s8(a3, vldrbq_z_s8(r3, p), x);
    }
    sums[row] = a0;
    sums[row + 1] = a1;
    sums[row + 2] = a2;
    sums[row + 3] = a3;
  }
}

/* sums[i] = sum of rows[i * length .. i * length + length) for i < count (wrapping). */
static MVE_NOINLINE void mve_row_sums(const int8_t *rows, int32_t length, int32_t count,
                                      int32_t *sums) {
  const int32_t blocks = length / 16;
  const int32_t tail = length - 16 * blocks;
  for (int32_t row = 0; row < count; ++row) {
    const int8_t *r = &rows[row * length];
    int32_t sum = 0;
    for (int32_t b = 0; b < blocks; ++b) {
      sum = vaddvaq_s8(sum, vldrbq_s8(&r[16 * b]));
    }
    if (tail > 0) {
      sum = vaddvaq_s8(sum, vldrbq_z_s8(&r[16 * blocks], vctp8q((uint32_t)tail)));
    }
    sums[row] = sum;
  }
}

/* terms[i] = bias[i] (0 without a bias) + scale * terms[i] + constant for i < count (wrapping). */
static void mve_fold_terms(int32_t *terms, const int32_t *bias, int32_t scale, int32_t constant,
                           int32_t count) {
  for (int32_t i = 0; i < count; i += 4) {
    const mve_pred16_t p = vctp32q((uint32_t)(count - i));
    int32x4_t t = vmulq_n_s32(vldrwq_z_s32(&terms[i], p), scale);
    if (bias != NULL) {
      t = vaddq_s32(t, vldrwq_z_s32(&bias[i], p));
    }
    vstrwq_p_s32(&terms[i], vaddq_n_s32(t, constant), p);
  }
}

/* out[i] for i < count from sums[i] + terms[i] (terms may be NULL): channel + i's
 * requantization, offset and clamp (utvm_mac_output_s8's order). */
static MVE_NOINLINE void mve_requant_run(const int32_t *sums, const int32_t *terms,
                                         int32_t count, int32_t channel,
                                         const utvm_per_channel_quant_t *quant,
                                         const mve_output_t *o, int8_t *out) {
  const int32x4_t zero = vdupq_n_s32(0);
  const int32x4_t act_min = vdupq_n_s32(o->act_min);
  const int32x4_t act_max = vdupq_n_s32(o->act_max);
  const bool per_channel = quant->count != 1;
  const int32x4_t tensor_shift = vdupq_n_s32(quant->shift[0]);
  int32x4_t multiplier = vdupq_n_s32(quant->multiplier[0]);
  int32x4_t left_shift = vmaxq_s32(tensor_shift, zero);
  int32x4_t right_shift = vminq_s32(tensor_shift, zero);
  for (int32_t i = 0; i < count; i += 4) {
    const mve_pred16_t p = vctp32q((uint32_t)(count - i));
    int32x4_t acc = vldrwq_z_s32(&sums[i], p);
    if (terms != NULL) {
      acc = vaddq_s32(acc, vldrwq_z_s32(&terms[i], p));
    }
    if (per_channel) {
      const int32x4_t shift = vldrbq_z_s32(&quant->shift[channel + i], p);
      multiplier = vldrwq_z_s32(&quant->multiplier[channel + i], p);
      left_shift = vmaxq_s32(shift, zero);
      right_shift = vminq_s32(shift, zero);
    }
    int32x4_t x = mve_requantize(acc, multiplier, left_shift, right_shift);
    x = vaddq_n_s32(x, o->output_offset);
    x = vminq_s32(vmaxq_s32(x, act_min), act_max);
    vstrbq_p_s32(&out[i], x, p);
  }
}

/* n bytes from src to dst. */
static void mve_copy(int8_t *dst, const int8_t *src, int32_t n) {
  const int32_t blocks = n / 16;
  for (int32_t b = 0; b < blocks; ++b) {
    vstrbq_s8(&dst[16 * b], vldrbq_s8(&src[16 * b]));
  }
  const int32_t tail = n - 16 * blocks;
  if (tail > 0) {
    const mve_pred16_t p = vctp8q((uint32_t)tail);
    vstrbq_p_s8(&dst[16 * blocks], vldrbq_z_s8(&src[16 * blocks], p), p);
  }
}

/* n bytes of value at dst. */
static void mve_fill(int8_t *dst, int8x16_t value, int32_t n) {
  const int32_t blocks = n / 16;
  for (int32_t b = 0; b < blocks; ++b) {
    vstrbq_s8(&dst[16 * b], value);
  }
  const int32_t tail = n - 16 * blocks;
  if (tail > 0) {
    vstrbq_p_s8(&dst[16 * blocks], value, vctp8q((uint32_t)tail));
  }
}

/* The im2col column of the window at (in_y_origin, in_x_origin) of batch_input: its KH*KW*Ci
 * input values, -io where it lies outside the input. */
static void mve_conv_column(const utvm_conv2d_params_t *params, const utvm_dims_t *input_dims,
                            const int8_t *batch_input, int32_t in_y_origin, int32_t in_x_origin,
                            const utvm_dims_t *filter_dims, int8_t *column) {
  const int32_t in_c = input_dims->c;
  const int32_t row_length = filter_dims->w * in_c;
  const int8x16_t pad = vdupq_n_s8((int8_t)(-params->input_offset));
  int32_t first;
  int32_t end;
  utvm_taps_inside(in_x_origin, params->dilation_w, filter_dims->w, input_dims->w, &first, &end);
  for (int32_t filter_y = 0; filter_y < filter_dims->h; ++filter_y) {
    const int32_t in_y = in_y_origin + params->dilation_h * filter_y;
    int8_t *dst = &column[filter_y * row_length];
    if ((in_y < 0) || (in_y >= input_dims->h) || (first == end)) {
      mve_fill(dst, pad, row_length);
    } else {
      const int8_t *src_row = &batch_input[in_y * input_dims->w * in_c];
      mve_fill(dst, pad, first * in_c);
      if (params->dilation_w == 1) {
        mve_copy(&dst[first * in_c], &src_row[(in_x_origin + first) * in_c],
                 (end - first) * in_c);
      } else {
        for (int32_t filter_x = first; filter_x < end; ++filter_x) {
          const int32_t in_x = in_x_origin + params->dilation_w * filter_x;
          mve_copy(&dst[filter_x * in_c], &src_row[in_x * in_c], in_c);
        }
      }
      mve_fill(&dst[end * in_c], pad, (filter_dims->w - end) * in_c);
    }
  }
}

bool utvm_conv2d_s8_mve_applies(const utvm_dims_t *input_dims, const utvm_dims_t *filter_dims,
                                bool has_scratch) {
  const bool pointwise = (filter_dims->h == 1) && (filter_dims->w == 1);
  return (input_dims->c == filter_dims->c) && (pointwise || has_scratch);
}

void utvm_conv2d_s8_mve(const utvm_conv2d_params_t *params, const utvm_per_channel_quant_t *quant,
                        const utvm_dims_t *input_dims, const int8_t *input,
                        const utvm_dims_t *filter_dims, const int8_t *filter,
                        const int32_t *bias, const utvm_dims_t *output_dims, int8_t *output,
                        int8_t *scratch) {
  const mve_output_t o = {params->output_offset, params->act_min, params->act_max};
  const bool pointwise = (filter_dims->h == 1) && (filter_dims->w == 1);
  const int32_t length = filter_dims->h * filter_dims->w * filter_dims->c;
  const int32_t out_c = output_dims->c;
  const int32_t in_c = input_dims->c;
  const int32_t batch_size = input_dims->h * input_dims->w * in_c;
  int32_t terms[MVE_BLOCK];
  int32_t sums[MVE_BLOCK];
  for (int32_t chunk = 0; chunk < out_c; chunk += MVE_BLOCK) {
    const int32_t count = ((out_c - chunk) > MVE_BLOCK) ? MVE_BLOCK : (out_c - chunk);
    const int8_t *rows = &filter[chunk * length];
    const int32_t *chunk_bias = (bias != NULL) ? &bias[chunk] : NULL;
    mve_row_sums(rows, length, count, terms);
    mve_fold_terms(terms, chunk_bias, params->input_offset, 0, count);
    int8_t *out = &output[chunk];
    for (int32_t batch = 0; batch < output_dims->n; ++batch) {
      const int8_t *batch_input = &input[batch * batch_size];
      for (int32_t out_y = 0; out_y < output_dims->h; ++out_y) {
        const int32_t in_y = out_y * params->stride_h - params->pad_top;
        for (int32_t out_x = 0; out_x < output_dims->w; ++out_x) {
          const int32_t in_x = out_x * params->stride_w - params->pad_left;
          const int8_t *column = scratch;
          if (!pointwise) {
            mve_conv_column(params, input_dims, batch_input, in_y, in_x, filter_dims, scratch);
          } else if ((in_y >= 0) && (in_y < input_dims->h) && (in_x >= 0) &&
                     (in_x < input_dims->w)) {
            column = &batch_input[(in_y * input_dims->w + in_x) * in_c];
          } else {
            column = NULL;
          }
          if (column != NULL) {
            mve_gemv(rows, length, count, column, sums);
            mve_requant_run(sums, terms, count, chunk, quant, &o, out);
          } else {
            /* A 1x1 window in the padding sums to 0: the terms less io * (row sum) leave only
             * the bias. */
            mve_row_sums(rows, length, count, sums);
            mve_fold_terms(sums, NULL, -params->input_offset, 0, count);
            mve_requant_run(sums, terms, count, chunk, quant, &o, out);
          }
          out = &out[out_c];
        }
      }
    }
  }
}

void utvm_fully_connected_s8_mve(const utvm_fully_connected_params_t *params,
                                 const utvm_per_channel_quant_t *quant, int32_t batches,
                                 int32_t input_depth, int32_t output_depth, const int8_t *input,
                                 const int8_t *filter, const int32_t *bias, int8_t *output) {
  const mve_output_t o = {params->output_offset, params->act_min, params->act_max};
  const uint32_t fo = (uint32_t)params->filter_offset;
  const uint32_t k_fo_io = (uint32_t)input_depth * fo * (uint32_t)params->input_offset;
  int32_t terms[MVE_BLOCK];
  int32_t sums[MVE_BLOCK];
  for (int32_t batch = 0; batch < batches; ++batch) {
    const int8_t *x = &input[batch * input_depth];
    int32_t input_sum;
    mve_row_sums(x, input_depth, 1, &input_sum);
    const int32_t constant = (int32_t)((fo * (uint32_t)input_sum) + k_fo_io);
    for (int32_t chunk = 0; chunk < output_depth; chunk += MVE_BLOCK) {
      const int32_t count =
          ((output_depth - chunk) > MVE_BLOCK) ? MVE_BLOCK : (output_depth - chunk);
      const int8_t *rows = &filter[chunk * input_depth];
      mve_row_sums(rows, input_depth, count, terms);
      mve_fold_terms(terms, (bias != NULL) ? &bias[chunk] : NULL, params->input_offset,
                     constant, count);
      mve_gemv(rows, input_depth, count, x, sums);
      mve_requant_run(sums, terms, count, chunk, quant, &o,
                      &output[batch * output_depth + chunk]);
    }
  }
}

/* One output position of a depthwise convolution: its first tap inside the input (pixel) and
 * in the filter, the steps between taps along x and y, and the tap counts. */
typedef struct {
  const int8_t *pixel;
  const int8_t *filter;
  int32_t input_step_x;
  int32_t input_step_y;
  int32_t filter_step_x;
  int32_t filter_step_y;
  int32_t taps_y;
  int32_t taps_x;
} mve_taps_t;

/* The input channel of output channels channel..channel+7 (those below out_c; 0 for the
 * others) as byte offsets in a pixel. */
static uint16x8_t mve_depthwise_sources(int32_t channel, int32_t multiplier, int32_t out_c) {
  uint16_t sources[8];
  int32_t source = channel / multiplier;
  int32_t step = channel % multiplier;
  for (int32_t i = 0; i < 8; ++i) {
    sources[i] = (uint16_t)(((channel + i) < out_c) ? source : 0);
    ++step;
    if (step == multiplier) {
      step = 0;
      ++source;
    }
  }
  return vld1q_u16(sources);
}

/* sums[i] = the window sum of output channel channel + i, i < count (sums has count rounded up
 * to 8 entries). 8 channels at a time: even and odd lanes are multiplied separately, so they
 * are stored interleaved. With multiplier 1 and 8 channels left the input is loaded
 * contiguously, else gathered (output channel c reads input channel c / multiplier). */
static MVE_NOINLINE void mve_depthwise_sums(const mve_taps_t *t, int16_t io, int32_t channel,
                                            int32_t count, int32_t multiplier, int32_t out_c,
                                            int32_t *sums) {
  const uint32x4_t even_lanes = vidupq_n_u32(0u, 2);
  for (int32_t group = 0; group < count; group += 8) {
    const int32_t first = channel + group;
    const bool direct = (multiplier == 1) && ((count - group) >= 8);
    const uint16x8_t sources =
        direct ? vdupq_n_u16(0u) : mve_depthwise_sources(first, multiplier, out_c);
    const mve_pred16_t p = vctp16q((uint32_t)(count - group));
    int32x4_t even = vdupq_n_s32(0);
    int32x4_t odd = vdupq_n_s32(0);
    const int8_t *input_row = direct ? &t->pixel[first] : t->pixel;
    const int8_t *filter_row = &t->filter[first];
    for (int32_t y = 0; y < t->taps_y; ++y) {
      const int8_t *in = input_row;
      const int8_t *w = filter_row;
      if (direct) {
        for (int32_t x = 0; x < t->taps_x; ++x) {
          const int16x8_t xs = vaddq_n_s16(vldrbq_s16(in), io);
          const int16x8_t ws = vldrbq_s16(w);
          even = vaddq_s32(even, vmullbq_int_s16(xs, ws));
          odd = vaddq_s32(odd, vmulltq_int_s16(xs, ws));
          in = &in[t->input_step_x];
          w = &w[t->filter_step_x];
        }
      } else {
        for (int32_t x = 0; x < t->taps_x; ++x) {
          const int16x8_t xs = vaddq_n_s16(vldrbq_gather_offset_z_s16(in, sources, p), io);
          const int16x8_t ws = vldrbq_z_s16(w, p);
          even = vaddq_s32(even, vmullbq_int_s16(xs, ws));
          odd = vaddq_s32(odd, vmulltq_int_s16(xs, ws));
          in = &in[t->input_step_x];
          w = &w[t->filter_step_x];
        }
      }
      input_row = &input_row[t->input_step_y];
      filter_row = &filter_row[t->filter_step_y];
    }
    vstrwq_scatter_shifted_offset_s32(&sums[group], even_lanes, even);
    vstrwq_scatter_shifted_offset_s32(&sums[group + 1], even_lanes, odd);
  }
}

bool utvm_depthwise_conv2d_s8_mve_applies(int32_t input_channels) {
  return input_channels <= (int32_t)UINT16_MAX;
}

void utvm_depthwise_conv2d_s8_mve(const utvm_depthwise_conv2d_params_t *params,
                                  const utvm_per_channel_quant_t *quant,
                                  const utvm_dims_t *input_dims, const int8_t *input,
                                  const utvm_dims_t *filter_dims, const int8_t *filter,
                                  const int32_t *bias, const utvm_dims_t *output_dims,
                                  int8_t *output) {
  const mve_output_t o = {params->output_offset, params->act_min, params->act_max};
  const int32_t in_c = input_dims->c;
  const int32_t out_c = output_dims->c;
  const int16_t io = (int16_t)params->input_offset;
  int32_t sums[MVE_BLOCK];
  mve_taps_t t;
  t.input_step_x = params->dilation_w * in_c;
  t.input_step_y = params->dilation_h * input_dims->w * in_c;
  t.filter_step_x = out_c;
  t.filter_step_y = filter_dims->w * out_c;
  int8_t *out = output;
  for (int32_t batch = 0; batch < output_dims->n; ++batch) {
    const int8_t *batch_input = &input[batch * input_dims->h * input_dims->w * in_c];
    for (int32_t out_y = 0; out_y < output_dims->h; ++out_y) {
      const int32_t in_y_origin = out_y * params->stride_h - params->pad_top;
      int32_t ys[2];
      utvm_taps_inside(in_y_origin, params->dilation_h, filter_dims->h, input_dims->h, &ys[0],
                       &ys[1]);
      t.taps_y = ys[1] - ys[0];
      for (int32_t out_x = 0; out_x < output_dims->w; ++out_x) {
        const int32_t in_x_origin = out_x * params->stride_w - params->pad_left;
        int32_t xs[2];
        utvm_taps_inside(in_x_origin, params->dilation_w, filter_dims->w, input_dims->w, &xs[0],
                         &xs[1]);
        t.taps_x = xs[1] - xs[0];
        /* The first tap inside (none when the window is all padding: then nothing is read). */
        const bool inside = (t.taps_y > 0) && (t.taps_x > 0);
        const int32_t in_y = inside ? (in_y_origin + params->dilation_h * ys[0]) : 0;
        const int32_t in_x = inside ? (in_x_origin + params->dilation_w * xs[0]) : 0;
        t.pixel = &batch_input[(in_y * input_dims->w + in_x) * in_c];
        t.filter = inside ? &filter[(ys[0] * filter_dims->w + xs[0]) * out_c] : filter;
        for (int32_t chunk = 0; chunk < out_c; chunk += MVE_BLOCK) {
          const int32_t count = ((out_c - chunk) > MVE_BLOCK) ? MVE_BLOCK : (out_c - chunk);
          mve_depthwise_sums(&t, io, chunk, count, params->depth_multiplier, out_c, sums);
          mve_requant_run(sums, (bias != NULL) ? &bias[chunk] : NULL, count, chunk, quant, &o,
                          &out[chunk]);
        }
        out = &out[out_c];
      }
    }
  }
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without MVE. */
typedef int utvm_kernels_no_mve_t;
#endif

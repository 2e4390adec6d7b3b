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
 * are requantized together (mve_requant_store). DEPTHWISE_CONV_2D works lane-wise over 16
 * output channels: input and filter widened to int16 (x + io fits), even and odd lanes
 * multiplied into int32 (VMULLB/VMULLT) and accumulated over the taps inside the input; with a
 * multiplier other than 1 (or fewer than 16 channels left) the inputs are gathered.
 */
#include "fast_s8.h"

#if defined(__ARM_FEATURE_MVE)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mve_s8.h"

/* Weight rows ch..ch+3 of rows rows of length values each from weights (rows past the last
 * repeat row ch; their lanes are not stored). */
static void mve_rows4(const int8_t *weights, int32_t ch, int32_t rows, int32_t length,
                      const int8_t *out[4]) {
  for (int32_t i = 0; i < 4; ++i) {
    const int32_t row = ((ch + i) < rows) ? (ch + i) : ch;
    out[i] = &weights[row * length];
  }
}

/* bias[ch..ch+3] (lanes of p), or 0 without a bias. */
static int32x4_t mve_bias4(const int32_t *bias, int32_t ch, mve_pred16_t p) {
  return (bias != NULL) ? vldrwq_z_s32(&bias[ch], p) : vdupq_n_s32(0);
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

/* Where one output position's window starts in the input. */
typedef struct {
  const int8_t *batch_input;
  int32_t in_y_origin;
  int32_t in_x_origin;
} mve_window_t;

/* The im2col column of one window: its KH*KW*Ci input values, -io where it lies outside. */
static void mve_conv_column(const utvm_conv2d_params_t *params, const utvm_dims_t *input_dims,
                            const mve_window_t *window, const utvm_dims_t *filter_dims,
                            int8_t *column) {
  const int32_t in_c = input_dims->c;
  const int32_t row_length = filter_dims->w * in_c;
  const int8x16_t pad = vdupq_n_s8((int8_t)(-params->input_offset));
  for (int32_t filter_y = 0; filter_y < filter_dims->h; ++filter_y) {
    const int32_t in_y = window->in_y_origin + params->dilation_h * filter_y;
    int8_t *dst = &column[filter_y * row_length];
    if ((in_y < 0) || (in_y >= input_dims->h)) {
      mve_fill(dst, pad, row_length);
    } else {
      const int8_t *src_row = &window->batch_input[in_y * input_dims->w * in_c];
      int32_t first;
      int32_t end;
      utvm_taps_inside(window->in_x_origin, params->dilation_w, filter_dims->w, input_dims->w,
                       &first, &end);
      mve_fill(dst, pad, first * in_c);
      if (params->dilation_w == 1) {
        mve_copy(&dst[first * in_c], &src_row[(window->in_x_origin + first) * in_c],
                 (end - first) * in_c);
      } else {
        for (int32_t filter_x = first; filter_x < end; ++filter_x) {
          const int32_t in_x = window->in_x_origin + params->dilation_w * filter_x;
          mve_copy(&dst[filter_x * in_c], &src_row[in_x * in_c], in_c);
        }
      }
      mve_fill(&dst[end * in_c], pad, (filter_dims->w - end) * in_c);
    }
  }
}

/* 1x1 CONV_2D: four output channels at a time over every output position, each position's
 * input pixel read in place (a position outside the input sums to 0, as in the portable
 * loops). */
static void mve_conv_pointwise(const utvm_conv2d_params_t *params,
                               const utvm_per_channel_quant_t *quant,
                               const utvm_dims_t *input_dims, const int8_t *input,
                               const int8_t *filter, const int32_t *bias,
                               const utvm_dims_t *output_dims, int8_t *output) {
  const mve_output_t o = {params->output_offset, params->act_min, params->act_max};
  const uint32x4_t lanes = vidupq_n_u32(0u, 1);
  const int32_t in_c = input_dims->c;
  const int32_t out_c = output_dims->c;
  const int32_t batch_size = input_dims->h * input_dims->w * in_c;
  for (int32_t ch = 0; ch < out_c; ch += 4) {
    const mve_pred16_t p = vctp32q((uint32_t)(out_c - ch));
    const int8_t *rows[4];
    mve_rows4(filter, ch, out_c, in_c, rows);
    const mve_quant4_t q = mve_quant4_load(quant, ch, lanes, p);
    const int32x4_t bias4 = mve_bias4(bias, ch, p);
    const int32x4_t base = vmlaq_n_s32(bias4, mve_sum4(rows, in_c), params->input_offset);
    int8_t *out = &output[ch];
    for (int32_t batch = 0; batch < output_dims->n; ++batch) {
      const int8_t *batch_input = &input[batch * batch_size];
      for (int32_t out_y = 0; out_y < output_dims->h; ++out_y) {
        const int32_t in_y = out_y * params->stride_h - params->pad_top;
        const bool row_inside = (in_y >= 0) && (in_y < input_dims->h);
        for (int32_t out_x = 0; out_x < output_dims->w; ++out_x) {
          const int32_t in_x = out_x * params->stride_w - params->pad_left;
          int32x4_t acc = bias4;
          if (row_inside && (in_x >= 0) && (in_x < input_dims->w)) {
            acc = vaddq_s32(
                mve_dot4(rows, &batch_input[(in_y * input_dims->w + in_x) * in_c], in_c), base);
          }
          mve_requant_store(&q, &o, acc, out, lanes, p);
          out = &out[out_c];
        }
      }
    }
  }
}

/* CONV_2D through an int8 im2col column: the scratch (4K bytes) holds the column (K bytes),
 * then, 4-byte aligned, bias + io * (row sum) of as many output channels as fit (a multiple of
 * 4), which are done together for every position before the next such chunk. When not even 4
 * fit (K < 7), those terms are computed for every column instead. */
static void mve_conv_im2col(const utvm_conv2d_params_t *params,
                            const utvm_per_channel_quant_t *quant, const utvm_dims_t *input_dims,
                            const int8_t *input, const utvm_dims_t *filter_dims,
                            const int8_t *filter, const int32_t *bias,
                            const utvm_dims_t *output_dims, int8_t *output, int8_t *scratch) {
  const mve_output_t o = {params->output_offset, params->act_min, params->act_max};
  const uint32x4_t lanes = vidupq_n_u32(0u, 1);
  const int32_t length = filter_dims->h * filter_dims->w * filter_dims->c;
  const int32_t out_c = output_dims->c;
  int8_t *column = scratch;
  const uint32_t misalignment = (uint32_t)((uintptr_t)&scratch[length] & 3u);
  const int32_t pad = (int32_t)((4u - misalignment) & 3u);
  int32_t *base = (int32_t *)(void *)&scratch[length + pad];
  const int32_t fit = ((3 * length - pad) / 4) & ~3;
  const bool stored = fit >= 4;
  const int32_t capacity = stored ? fit : out_c;
  const int32_t batch_size = input_dims->h * input_dims->w * input_dims->c;
  for (int32_t chunk = 0; chunk < out_c; chunk += capacity) {
    const int32_t chunk_end = ((out_c - chunk) > capacity) ? (chunk + capacity) : out_c;
    for (int32_t ch = chunk; stored && (ch < chunk_end); ch += 4) {
      const mve_pred16_t p = vctp32q((uint32_t)(chunk_end - ch));
      const int8_t *rows[4];
      mve_rows4(filter, ch, out_c, length, rows);
      vstrwq_p_s32(&base[ch - chunk],
                   vmlaq_n_s32(mve_bias4(bias, ch, p), mve_sum4(rows, length),
                               params->input_offset),
                   p);
    }
    int32_t position = 0;
    for (int32_t batch = 0; batch < output_dims->n; ++batch) {
      mve_window_t window;
      window.batch_input = &input[batch * batch_size];
      for (int32_t out_y = 0; out_y < output_dims->h; ++out_y) {
        window.in_y_origin = out_y * params->stride_h - params->pad_top;
        for (int32_t out_x = 0; out_x < output_dims->w; ++out_x) {
          window.in_x_origin = out_x * params->stride_w - params->pad_left;
          mve_conv_column(params, input_dims, &window, filter_dims, column);
          int8_t *out = &output[position * out_c];
          for (int32_t ch = chunk; ch < chunk_end; ch += 4) {
            const mve_pred16_t p = vctp32q((uint32_t)(chunk_end - ch));
            const int8_t *rows[4];
            mve_rows4(filter, ch, out_c, length, rows);
            const mve_quant4_t q = mve_quant4_load(quant, ch, lanes, p);
            const int32x4_t terms =
                stored ? vldrwq_z_s32(&base[ch - chunk], p)
                       : vmlaq_n_s32(mve_bias4(bias, ch, p), mve_sum4(rows, length),
                                     params->input_offset);
            const int32x4_t acc = vaddq_s32(mve_dot4(rows, column, length), terms);
            mve_requant_store(&q, &o, acc, &out[ch], lanes, p);
          }
          ++position;
        }
      }
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
  if ((filter_dims->h == 1) && (filter_dims->w == 1)) {
    mve_conv_pointwise(params, quant, input_dims, input, filter, bias, output_dims, output);
  } else {
    mve_conv_im2col(params, quant, input_dims, input, filter_dims, filter, bias, output_dims,
                    output, scratch);
  }
}

/* The sum of input[0..length), wrapping. */
static int32_t mve_sum(const int8_t *input, int32_t length) {
  const int8_t *rows[4] = {input, input, input, input};
  return vgetq_lane_s32(mve_sum4(rows, length), 0);
}

void utvm_fully_connected_s8_mve(const utvm_fully_connected_params_t *params,
                                 const utvm_per_channel_quant_t *quant, int32_t batches,
                                 int32_t input_depth, int32_t output_depth, const int8_t *input,
                                 const int8_t *filter, const int32_t *bias, int8_t *output) {
  const mve_output_t o = {params->output_offset, params->act_min, params->act_max};
  const uint32x4_t lanes = vidupq_n_u32(0u, 1);
  const uint32_t fo = (uint32_t)params->filter_offset;
  const uint32_t k_fo_io = (uint32_t)input_depth * fo * (uint32_t)params->input_offset;
  for (int32_t batch = 0; batch < batches; ++batch) {
    const int8_t *x = &input[batch * input_depth];
    const int32_t constant = (int32_t)((fo * (uint32_t)mve_sum(x, input_depth)) + k_fo_io);
    int8_t *out = &output[batch * output_depth];
    for (int32_t ch = 0; ch < output_depth; ch += 4) {
      const mve_pred16_t p = vctp32q((uint32_t)(output_depth - ch));
      const int8_t *rows[4];
      mve_rows4(filter, ch, output_depth, input_depth, rows);
      const mve_quant4_t q = mve_quant4_load(quant, ch, lanes, p);
      int32x4_t acc = vaddq_s32(mve_dot4(rows, x, input_depth), mve_bias4(bias, ch, p));
      acc = vmlaq_n_s32(acc, mve_sum4(rows, input_depth), params->input_offset);
      mve_requant_store(&q, &o, vaddq_n_s32(acc, constant), &out[ch], lanes, p);
    }
  }
}

/* Depthwise accumulators of 16 channels: even and odd lanes of channels 0..7 and 8..15. */
typedef struct {
  int32x4_t even0;
  int32x4_t odd0;
  int32x4_t even1;
  int32x4_t odd1;
} mve_acc16_t;

/* The window sums of channels channel..channel+15 over the taps inside the input (ys, xs),
 * all 16 channels present. */
static void mve_depthwise_16(const utvm_depthwise_conv2d_params_t *params,
                             const utvm_dims_t *input_dims, const mve_window_t *window,
                             const int32_t ys[2], const int32_t xs[2],
                             const utvm_dims_t *filter_dims, const int8_t *filter,
                             int32_t channel, mve_acc16_t *acc) {
  const int32_t in_c = input_dims->c;
  const int16_t io = (int16_t)params->input_offset;
  mve_acc16_t a = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
  for (int32_t filter_y = ys[0]; filter_y < ys[1]; ++filter_y) {
    const int32_t in_y = window->in_y_origin + params->dilation_h * filter_y;
    const int8_t *input_row = &window->batch_input[in_y * input_dims->w * in_c + channel];
    const int8_t *filter_row = &filter[filter_y * filter_dims->w * in_c + channel];
    for (int32_t filter_x = xs[0]; filter_x < xs[1]; ++filter_x) {
      const int32_t in_x = window->in_x_origin + params->dilation_w * filter_x;
      const int8_t *in = &input_row[in_x * in_c];
      const int8_t *w = &filter_row[filter_x * in_c];
      const int16x8_t x0 = vaddq_n_s16(vldrbq_s16(in), io);
      const int16x8_t x1 = vaddq_n_s16(vldrbq_s16(&in[8]), io);
      const int16x8_t w0 = vldrbq_s16(w);
      const int16x8_t w1 = vldrbq_s16(&w[8]);
      a.even0 = vaddq_s32(a.even0, vmullbq_int_s16(x0, w0));
      a.odd0 = vaddq_s32(a.odd0, vmulltq_int_s16(x0, w0));
      a.even1 = vaddq_s32(a.even1, vmullbq_int_s16(x1, w1));
      a.odd1 = vaddq_s32(a.odd1, vmulltq_int_s16(x1, w1));
    }
  }
  *acc = a;
}

/* The same for any multiplier and the last count (1..16) channels: output channel c reads
 * input channel c / multiplier (gathered), loads predicated to the count channels. */
static void mve_depthwise_any(const utvm_depthwise_conv2d_params_t *params,
                              const utvm_dims_t *input_dims, const mve_window_t *window,
                              const int32_t ys[2], const int32_t xs[2],
                              const utvm_dims_t *filter_dims, const int8_t *filter,
                              int32_t channel, int32_t count, mve_acc16_t *acc) {
  const int32_t in_c = input_dims->c;
  const int32_t out_c = filter_dims->c;
  const int16_t io = (int16_t)params->input_offset;
  const mve_pred16_t p0 = vctp16q((uint32_t)count);
  const mve_pred16_t p1 = vctp16q((count > 8) ? (uint32_t)(count - 8) : 0u);
  uint16_t sources[16];
  int32_t source = channel / params->depth_multiplier;
  int32_t step = channel % params->depth_multiplier;
  for (int32_t i = 0; i < 16; ++i) {
    sources[i] = (uint16_t)(((channel + i) < out_c) ? source : 0);
    ++step;
    if (step == params->depth_multiplier) {
      step = 0;
      ++source;
    }
  }
  const uint16x8_t sources0 = vld1q_u16(sources);
  const uint16x8_t sources1 = vld1q_u16(&sources[8]);
  mve_acc16_t a = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
  for (int32_t filter_y = ys[0]; filter_y < ys[1]; ++filter_y) {
    const int32_t in_y = window->in_y_origin + params->dilation_h * filter_y;
    const int8_t *input_row = &window->batch_input[in_y * input_dims->w * in_c];
    const int8_t *filter_row = &filter[filter_y * filter_dims->w * out_c + channel];
    for (int32_t filter_x = xs[0]; filter_x < xs[1]; ++filter_x) {
      const int32_t in_x = window->in_x_origin + params->dilation_w * filter_x;
      const int8_t *in = &input_row[in_x * in_c];
      const int8_t *w = &filter_row[filter_x * out_c];
      const int16x8_t x0 = vaddq_n_s16(vldrbq_gather_offset_z_s16(in, sources0, p0), io);
      const int16x8_t x1 = vaddq_n_s16(vldrbq_gather_offset_z_s16(in, sources1, p1), io);
      const int16x8_t w0 = vldrbq_z_s16(w, p0);
      const int16x8_t w1 = vldrbq_z_s16(&w[8], p1);
      a.even0 = vaddq_s32(a.even0, vmullbq_int_s16(x0, w0));
      a.odd0 = vaddq_s32(a.odd0, vmulltq_int_s16(x0, w0));
      a.even1 = vaddq_s32(a.even1, vmullbq_int_s16(x1, w1));
      a.odd1 = vaddq_s32(a.odd1, vmulltq_int_s16(x1, w1));
    }
  }
  *acc = a;
}

/* One accumulator of channels channel + first + 2i (i = 0..3, those below count) requantized
 * and stored at out[channel + first + 2i]. */
static void mve_depthwise_store(const utvm_per_channel_quant_t *quant, const int32_t *bias,
                                const mve_output_t *o, int32x4_t acc, int32_t channel,
                                int32_t first, int32_t count, int8_t *out) {
  const uint32x4_t lanes = vidupq_n_u32(0u, 2);
  const int32_t remaining = (count > first) ? (count - first) : 0;
  const mve_pred16_t p = vcmphiq_u32(vdupq_n_u32((uint32_t)remaining), lanes);
  const int32_t ch = channel + first;
  int32x4_t sum = acc;
  if (bias != NULL) {
    sum = vaddq_s32(sum, vldrwq_gather_shifted_offset_z_s32(&bias[ch], lanes, p));
  }
  const mve_quant4_t q = mve_quant4_load(quant, ch, lanes, p);
  mve_requant_store(&q, o, sum, &out[ch], lanes, p);
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
  const int32_t out_c = output_dims->c;
  int8_t *out = output;
  for (int32_t batch = 0; batch < output_dims->n; ++batch) {
    mve_window_t window;
    int32_t ys[2];
    int32_t xs[2];
    window.batch_input = &input[batch * input_dims->h * input_dims->w * input_dims->c];
    for (int32_t out_y = 0; out_y < output_dims->h; ++out_y) {
      window.in_y_origin = out_y * params->stride_h - params->pad_top;
      utvm_taps_inside(window.in_y_origin, params->dilation_h, filter_dims->h, input_dims->h,
                       &ys[0], &ys[1]);
      for (int32_t out_x = 0; out_x < output_dims->w; ++out_x) {
        window.in_x_origin = out_x * params->stride_w - params->pad_left;
        utvm_taps_inside(window.in_x_origin, params->dilation_w, filter_dims->w, input_dims->w,
                         &xs[0], &xs[1]);
        for (int32_t channel = 0; channel < out_c; channel += 16) {
          const int32_t count = ((out_c - channel) > 16) ? 16 : (out_c - channel);
          mve_acc16_t acc;
          if ((count == 16) && (params->depth_multiplier == 1)) {
            mve_depthwise_16(params, input_dims, &window, ys, xs, filter_dims, filter, channel,
                             &acc);
          } else {
            mve_depthwise_any(params, input_dims, &window, ys, xs, filter_dims, filter, channel,
                              count, &acc);
          }
          mve_depthwise_store(quant, bias, &o, acc.even0, channel, 0, count, out);
          mve_depthwise_store(quant, bias, &o, acc.odd0, channel, 1, count, out);
          mve_depthwise_store(quant, bias, &o, acc.even1, channel, 8, count, out);
          mve_depthwise_store(quant, bias, &o, acc.odd1, channel, 9, count, out);
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

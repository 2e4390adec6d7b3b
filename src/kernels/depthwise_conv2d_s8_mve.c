/*
 * DEPTHWISE_CONV_2D on MVE: utvm_depthwise_conv2d_s8_mve (see fast_s8.h, mve_s8.h).
 * utvm_depthwise_conv2d_s8 takes it on cores with the M-profile Vector Extension
 * (Cortex-M55/M85) for up to 65535 input channels (utvm_depthwise_conv2d_s8_mve_applies: its
 * gathers take 16-bit channel offsets); more take the portable loops there, and one input
 * channel given its scratch runs as a convolution (depthwise_conv2d_s8.c).
 * Lane-wise, input and filter widened to int16, even and odd lanes multiplied into int32
 * (VMULLB/VMULLT), the input offset folded into the terms. A 3x3 filter with multiplier 1 runs
 * 16 channels at a time over the whole layer (mve_dw3_group_outputs; then 8 of the channels
 * left if there are as many, taps half as wide): their weights and requantization parameters
 * gathered once into lane order, each window's nine taps summed from the terms in assembly
 * (depthwise_conv2d_s8_mve_asm.S, 13 instructions per tap; the taps of windows at the padding
 * that lie there, told by a mask, read a pad vector of -io) and requantized there straight
 * from those lanes, narrowed back into channel order, a row segment of windows per call. When
 * three rows of windows fit the patch, each output row's input rows are copied into it between
 * columns of pad vectors (mve_dw3_group_strips), so that one call takes the whole row, border
 * windows included. Its other channels, and 3x3 filters of a larger multiplier, read the nine
 * taps of 8 channels through offsets from the window (or a patch padded with -io at the
 * borders), the inputs gathered; other filters sum the taps inside the input, the offset added
 * per tap.
 *
 * Stack: the sums and terms (or zero biases) of a block of UTVM_KERNELS_MVE_CHANNEL_BLOCK channels
 * (4 bytes per channel each); the 3x3 path also its nine-pixel border patch (9 bytes per channel),
 * the input channel of each output channel (2 bytes per channel), the taps' offsets and one
 * 16-channel group (mve_dw3_group_t, 428 bytes). Frames by default (arm-none-eabi-gcc 12.2
 * -fstack-usage on the cortex-m55 preset's flags: -Os with the kernels' -O2):
 * utvm_depthwise_conv2d_s8_mve 2176 bytes (the 3x3 path inlined), mve_depthwise_sums 152,
 * utvm_mve_requant_run 100, utvm_mve_dw3_run, utvm_mve_dw3_window_valid and their 8-channel
 * twins 88 (assembly), mve_dw3_8 60, mve_dw3_border 32: at most 2328 bytes deep.
 */
#include "fast_s8.h"

#if defined(__ARM_FEATURE_MVE)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mve_s8.h"

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

/* The window sums of 16 consecutive channels with multiplier 1 (all present) into sums[0..15]:
 * even and odd lanes are multiplied separately, so they are stored interleaved. */
static void mve_depthwise_16(const mve_taps_t *t, int16_t io, const int8_t *pixel,
                             const int8_t *filter, int32_t *sums) {
  const uint32x4_t even_lanes = vidupq_n_u32(0u, 2);
  int32x4_t even0 = vdupq_n_s32(0);
  int32x4_t odd0 = vdupq_n_s32(0);
  int32x4_t even1 = vdupq_n_s32(0);
  int32x4_t odd1 = vdupq_n_s32(0);
  const int8_t *input_row = pixel;
  const int8_t *filter_row = filter;
  for (int32_t y = 0; y < t->taps_y; ++y) {
    const int8_t *in = input_row;
    const int8_t *w = filter_row;
    for (int32_t x = 0; x < t->taps_x; ++x) {
      const int16x8_t x0 = vaddq_n_s16(vldrbq_s16(in), io);
      const int16x8_t w0 = vldrbq_s16(w);
      even0 = vaddq_s32(even0, vmullbq_int_s16(x0, w0));
      odd0 = vaddq_s32(odd0, vmulltq_int_s16(x0, w0));
      const int16x8_t x1 = vaddq_n_s16(vldrbq_s16(&in[8]), io);
      const int16x8_t w1 = vldrbq_s16(&w[8]);
      even1 = vaddq_s32(even1, vmullbq_int_s16(x1, w1));
      odd1 = vaddq_s32(odd1, vmulltq_int_s16(x1, w1));
      in = &in[t->input_step_x];
      w = &w[t->filter_step_x];
    }
    input_row = &input_row[t->input_step_y];
    filter_row = &filter_row[t->filter_step_y];
  }
  vstrwq_scatter_shifted_offset_s32(sums, even_lanes, even0);
  vstrwq_scatter_shifted_offset_s32(&sums[1], even_lanes, odd0);
  vstrwq_scatter_shifted_offset_s32(&sums[8], even_lanes, even1);
  vstrwq_scatter_shifted_offset_s32(&sums[9], even_lanes, odd1);
}

/* The window sums of the count (1..8) output channels from first on, any multiplier, into
 * sums[0..7]: output channel c reads input channel c / multiplier, gathered. */
static void mve_depthwise_8_any(const mve_taps_t *t, int16_t io, int32_t first, int32_t count,
                                int32_t multiplier, int32_t out_c, int32_t *sums) {
  const uint32x4_t even_lanes = vidupq_n_u32(0u, 2);
  const uint16x8_t sources = mve_depthwise_sources(first, multiplier, out_c);
  const mve_pred16_t p = vctp16q((uint32_t)count);
  int32x4_t even = vdupq_n_s32(0);
  int32x4_t odd = vdupq_n_s32(0);
  const int8_t *input_row = t->pixel;
  const int8_t *filter_row = &t->filter[first];
  for (int32_t y = 0; y < t->taps_y; ++y) {
    const int8_t *in = input_row;
    const int8_t *w = filter_row;
    for (int32_t x = 0; x < t->taps_x; ++x) {
      const int16x8_t xs = vaddq_n_s16(vldrbq_gather_offset_z_s16(in, sources, p), io);
      const int16x8_t ws = vldrbq_z_s16(w, p);
      even = vaddq_s32(even, vmullbq_int_s16(xs, ws));
      odd = vaddq_s32(odd, vmulltq_int_s16(xs, ws));
      in = &in[t->input_step_x];
      w = &w[t->filter_step_x];
    }
    input_row = &input_row[t->input_step_y];
    filter_row = &filter_row[t->filter_step_y];
  }
  vstrwq_scatter_shifted_offset_s32(sums, even_lanes, even);
  vstrwq_scatter_shifted_offset_s32(&sums[1], even_lanes, odd);
}

/* sums[i] = the window sum of output channel channel + i, i < count (sums has count rounded up
 * to 16 entries): 16 channels at a time with multiplier 1, else 8 (gathered inputs). */
static MVE_NOINLINE void mve_depthwise_sums(const mve_taps_t *t, int16_t io, int32_t channel,
                                            int32_t count, int32_t multiplier, int32_t out_c,
                                            int32_t *sums) {
  int32_t group = 0;
  if (multiplier == 1) {
    for (; (count - group) >= 16; group += 16) {
      mve_depthwise_16(t, io, &t->pixel[channel + group], &t->filter[channel + group],
                       &sums[group]);
    }
  }
  for (; group < count; group += 8) {
    const int32_t left = ((count - group) > 8) ? 8 : (count - group);
    mve_depthwise_8_any(t, io, channel + group, left, multiplier, out_c, &sums[group]);
  }
}

/* The 3x3 depthwise path. Each tap t of an output position is read at base + offsets[t]: base
 * is the window's first pixel and offsets the taps' distances when the window lies inside the
 * input, else base is a patch on the stack holding the nine taps' pixels (MVE_BLOCK bytes
 * each), -io where a tap lies in the padding. With the input offset taken out of the taps
 * (terms[c] = bias + io * the sum of channel c's nine weights), a padding tap adds -io * w,
 * which cancels its io * w in the terms, as the reference skips it. */
#define MVE_TAPS 9

/* The sums over the nine taps of the channels of p (up to 8), their input values at sources
 * from each tap (base + offsets[t]), weights from w, into sums[0..7]. */
static MVE_NOINLINE void mve_dw3_8(const int8_t *base, const int32_t *offsets,
                                   uint16x8_t sources, const int8_t *w, int32_t step,
                                   mve_pred16_t p, int32_t *sums) {
  const uint32x4_t even_lanes = vidupq_n_u32(0u, 2);
  int32x4_t even = vdupq_n_s32(0);
  int32x4_t odd = vdupq_n_s32(0);
  const int8_t *wt = w;
  if (p == 0xffffu) {
    /* Eight channels: no predication. */
    for (int32_t t = 0; t < MVE_TAPS; ++t) {
      const int16x8_t xs = vldrbq_gather_offset_s16(&base[offsets[t]], sources);
      const int16x8_t ws = vldrbq_s16(wt);
      even = vaddq_s32(even, vmullbq_int_s16(xs, ws));
      odd = vaddq_s32(odd, vmulltq_int_s16(xs, ws));
      wt = &wt[step];
    }
  } else {
    for (int32_t t = 0; t < MVE_TAPS; ++t) {
      const int16x8_t xs = vldrbq_gather_offset_z_s16(&base[offsets[t]], sources, p);
      const int16x8_t ws = vldrbq_z_s16(wt, p);
      even = vaddq_s32(even, vmullbq_int_s16(xs, ws));
      odd = vaddq_s32(odd, vmulltq_int_s16(xs, ws));
      wt = &wt[step];
    }
  }
  vstrwq_scatter_shifted_offset_s32(sums, even_lanes, even);
  vstrwq_scatter_shifted_offset_s32(&sums[1], even_lanes, odd);
}

/* One group of 16 channels of the 3x3 path with multiplier 1: its nine taps' weights (tap t
 * at 16 * t) and, per accumulator lane, its channel's terms, multiplier and shifts. The
 * products come out even and odd channels apart (VMULLB/VMULLT), so the lanes are in the
 * order channel(i) gives; the outputs are narrowed back into channel order (VQMOVNB/VQMOVNT). */
typedef struct {
  int8_t weights[MVE_TAPS * 16];
  int8_t pad[16];       /* -io: an input value in the padding */
  int32_t terms[16];
  int32_t multipliers[16];
  int32_t left_shifts[16];
  int32_t right_shifts[16];
  bool left;            /* some channel shifts left */
  int16_t output_offset;
  int16_t act_min;
  int16_t act_max;
  bool half;            /* 8 channels (the assembly's *8 entries), not 16 */
} mve_dw3_group_t;

/* Fills g for the 16 channels from first on, or the 8 with half (of a chunk whose terms begin
 * at channel chunk). Accumulator lanes 4k..4k+3 hold channels c, c + 2, c + 4, c + 6 with
 * c = 8 * (k / 2) + k % 2: even channels of each half of the group, then odd; with half only
 * k 0 and 1 are filled, and only 8 weights of each tap are read. */
static void mve_dw3_group(const int8_t *filter, int32_t out_c, int32_t chunk, int32_t first,
                          bool half, const int32_t *terms, const utvm_per_channel_quant_t *quant,
                          const mve_output_t *o, int8x16_t pad, mve_dw3_group_t *g) {
  const uint32_t step = (quant->count == 1) ? 0u : 1u;
  const int32_t *multipliers = &quant->multiplier[(int32_t)step * first];
  const int8_t *shifts = &quant->shift[(int32_t)step * first];
  const int32x4_t zero = vdupq_n_s32(0);
  int32_t left = 0;
  for (int32_t k = 0; k < (half ? 2 : 4); ++k) {
    const uint32x4_t lanes = vidupq_n_u32((uint32_t)(8 * (k / 2) + (k % 2)), 2);
    const uint32x4_t params = vmulq_n_u32(lanes, step);
    const int32x4_t shift = vldrbq_gather_offset_s32(shifts, params);
    vstrwq_s32(&g->terms[4 * k], vldrwq_gather_shifted_offset_s32(&terms[first - chunk], lanes));
    vstrwq_s32(&g->multipliers[4 * k], vldrwq_gather_shifted_offset_s32(multipliers, params));
    vstrwq_s32(&g->left_shifts[4 * k], vmaxq_s32(shift, zero));
    vstrwq_s32(&g->right_shifts[4 * k], vminq_s32(shift, zero));
    left = vmaxvq_s32(left, shift);
  }
  g->left = left > 0;
  for (int32_t t = 0; t < MVE_TAPS; ++t) {
    const int8_t *weights = &filter[t * out_c + first];
    vstrbq_s8(&g->weights[16 * t], half ? vldrbq_z_s8(weights, vctp8q(8u)) : vldrbq_s8(weights));
  }
  vstrbq_s8(g->pad, pad);
  g->output_offset = (int16_t)o->output_offset;
  g->act_min = (int16_t)o->act_min;
  g->act_max = (int16_t)o->act_max;
  g->half = half;
}

/* depthwise_conv2d_s8_mve_asm.S reads the group at these offsets (its G_* constants). */
typedef char mve_dw3_group_layout_is_the_assembly_s[
    ((offsetof(mve_dw3_group_t, pad) == 144) && (offsetof(mve_dw3_group_t, terms) == 160) &&
     (offsetof(mve_dw3_group_t, multipliers) == 224) &&
     (offsetof(mve_dw3_group_t, left_shifts) == 288) &&
     (offsetof(mve_dw3_group_t, right_shifts) == 352) &&
     (offsetof(mve_dw3_group_t, left) == 416) &&
     (offsetof(mve_dw3_group_t, output_offset) == 418) &&
     (offsetof(mve_dw3_group_t, act_min) == 420) && (offsetof(mve_dw3_group_t, act_max) == 422))
        ? 1
        : -1];

/* In depthwise_conv2d_s8_mve_asm.S (assembled with the MVE paths on arm-none-eabi-gcc, the
 * only compiler the M55 presets use): the outputs of n >= 1 windows of a group along a row
 * (window j reads tap (ty, tx) at pixel + j * step + ty * row + tx * column, its 16 outputs go
 * to out + j * out_step), and of one window at the padding (window bytes from input, the taps
 * whose bit 3 * ty + tx of valid is clear reading the group's pad vector). */
void utvm_mve_dw3_run(const int8_t *pixel, int32_t column, int32_t row, const mve_dw3_group_t *g,
                      int8_t *out, int32_t step, int32_t n, int32_t out_step);
void utvm_mve_dw3_window_valid(const int8_t *input, int32_t window, int32_t column, int32_t row,
                               const mve_dw3_group_t *g, int8_t *out, uint32_t valid);
/* The same for a group of 8 channels (the group's first 8 lanes of each vector). */
void utvm_mve_dw3_run8(const int8_t *pixel, int32_t column, int32_t row,
                       const mve_dw3_group_t *g, int8_t *out, int32_t step, int32_t n,
                       int32_t out_step);
void utvm_mve_dw3_window_valid8(const int8_t *input, int32_t window, int32_t column, int32_t row,
                                const mve_dw3_group_t *g, int8_t *out, uint32_t valid);

/* True if the 3x3 path takes this layer: a 3x3 filter, multiplier 1 or few enough input
 * channels for a patch pixel (MVE_BLOCK bytes). */
static bool mve_dw3_applies(const utvm_depthwise_conv2d_params_t *params,
                            const utvm_dims_t *input_dims, const utvm_dims_t *filter_dims) {
  return (filter_dims->h == 3) && (filter_dims->w == 3) &&
         ((params->depth_multiplier == 1) || (input_dims->c <= MVE_BLOCK));
}

/* What the 3x3 path keeps for a whole layer and one chunk of channels. */
typedef struct {
  int32_t in_h;
  int32_t in_w;
  int32_t in_c;
  int32_t dilation_h;
  int32_t dilation_w;
  int32_t in_row;     /* bytes per input row */
  int32_t base;       /* the chunk's first input channel read through base: chunk or 0 */
  int32_t bytes;      /* bytes of a pixel read from there */
  int32_t offsets[MVE_TAPS];
  int32_t patch_offsets[MVE_TAPS];
  int8x16_t pad;
} mve_dw3_t;

/* Where the window at (in_y_origin, in_x_origin) of batch_input is read: *base and the taps'
 * offsets, through patch (MVE_TAPS * MVE_BLOCK bytes) when it is not all inside. */
static const int32_t *mve_dw3_window(const mve_dw3_t *d, const int8_t *batch_input,
                                     int32_t in_y_origin, int32_t in_x_origin, int8_t *patch,
                                     const int8_t **base) {
  const int32_t in_c = d->in_c;
  const int32_t last_y = in_y_origin + 2 * d->dilation_h;
  const int32_t last_x = in_x_origin + 2 * d->dilation_w;
  const int32_t *offsets = d->offsets;
  if ((in_y_origin >= 0) && (in_x_origin >= 0) && (last_y < d->in_h) && (last_x < d->in_w)) {
    *base = &batch_input[in_y_origin * d->in_row + in_x_origin * in_c + d->base];
  } else {
    for (int32_t ty = 0; ty < 3; ++ty) {
      const int32_t in_y = in_y_origin + d->dilation_h * ty;
      const bool row_inside = (in_y >= 0) && (in_y < d->in_h);
      for (int32_t tx = 0; tx < 3; ++tx) {
        const int32_t in_x = in_x_origin + d->dilation_w * tx;
        const bool inside = row_inside && (in_x >= 0) && (in_x < d->in_w);
        mve_run(&patch[(3 * ty + tx) * MVE_BLOCK],
                inside ? &batch_input[in_y * d->in_row + in_x * in_c + d->base] : NULL, d->pad,
                d->bytes);
      }
    }
    *base = patch;
    offsets = d->patch_offsets;
  }
  return offsets;
}

/* The taps of a window from origin along one axis (dilation, size) that lie inside the input:
 * bit t for tap t. */
static uint32_t mve_dw3_inside(int32_t origin, int32_t dilation, int32_t size) {
  uint32_t inside = 0u;
  for (int32_t t = 0; t < 3; ++t) {
    const int32_t at = origin + dilation * t;
    inside |= ((at >= 0) && (at < size)) ? (1u << t) : 0u;
  }
  return inside;
}

/* The 16 outputs of a group at the window from (in_y_origin, in_x_origin) of input (the
 * group's first channel of the batch), some of whose taps lie in the padding: those read the
 * group's pad vector. row_taps: the taps in rows inside the input (bits 3 * ty .. 3 * ty + 2). */
static void mve_dw3_border(const mve_dw3_t *d, const mve_dw3_group_t *g, const int8_t *input,
                           int32_t in_y_origin, uint32_t row_taps, int32_t in_x_origin,
                           int8_t *out) {
  /* bit tx of the columns inside repeated for the three rows (bits tx, tx + 3, tx + 6) */
  const uint32_t column_taps = mve_dw3_inside(in_x_origin, d->dilation_w, d->in_w) * 0x49u;
  (g->half ? utvm_mve_dw3_window_valid8 : utvm_mve_dw3_window_valid)(
      input, in_y_origin * d->in_row + in_x_origin * d->in_c, d->offsets[1], d->offsets[3], g,
      out, row_taps & column_taps);
}

/* The bytes of a strip: three rows of width pixels of 16 channels. */
#define MVE_DW3_STRIP_BYTES(width) (3 * 16 * (width))

/* Every output of one group (g, channels d->base..d->base + 15, or + 7 with half) over a layer
 * whose window rows span width pixels, padding included (MVE_DW3_STRIP_BYTES(width) fit the
 * strip): per output row its three input rows are copied into the strip, whose pixels outside
 * the input hold the group's pad vector, and all its windows read from there in one
 * utvm_mve_dw3_run (utvm_mve_dw3_run8). */
static inline void mve_dw3_strips(const mve_dw3_t *d,
                                  const utvm_depthwise_conv2d_params_t *params,
                                  const mve_dw3_group_t *g, const int8_t *input,
                                  const utvm_dims_t *output_dims, int8_t *output, int32_t width,
                                  int8_t *strip, bool half) {
  const int32_t out_h = output_dims->h;
  const int32_t out_w = output_dims->w;
  const int32_t out_c = output_dims->c;
  const int32_t in_c = d->in_c;
  const int32_t row_bytes = 16 * width;
  const int8x16_t pad = vldrbq_s8(g->pad);
  /* Strip pixels lo..hi-1 of a row inside the input are its pixels 0..in_w-1, the others
   * always pad. */
  const int32_t lo = (params->pad_left < width) ? params->pad_left : width;
  const int32_t hi = ((lo + d->in_w) < width) ? (lo + d->in_w) : width;
  for (int32_t x = 0; x < 3 * width; ++x) {
    vstrbq_s8(&strip[16 * x], pad);
  }
  for (int32_t batch = 0; batch < output_dims->n; ++batch) {
    const int8_t *batch_input = &input[batch * d->in_h * d->in_row + d->base];
    for (int32_t out_y = 0; out_y < out_h; ++out_y) {
      const int32_t in_y_origin = out_y * params->stride_h - params->pad_top;
      for (int32_t ty = 0; ty < 3; ++ty) {
        const int32_t in_y = in_y_origin + d->dilation_h * ty;
        int8_t *dst = &strip[ty * row_bytes + 16 * lo];
        if ((in_y >= 0) && (in_y < d->in_h)) {
          const int8_t *src = &batch_input[in_y * d->in_row];
          if (half) {
            /* 8 values per pixel: none read past the group's channels */
            const mve_pred16_t eight = vctp8q(8u);
            for (int32_t x = lo; x < hi; ++x) {
              vstrbq_s8(dst, vldrbq_z_s8(src, eight));
              dst = &dst[16];
              src = &src[in_c];
            }
          } else {
            for (int32_t x = lo; x < hi; ++x) {
              vstrbq_s8(dst, vldrbq_s8(src));
              dst = &dst[16];
              src = &src[in_c];
            }
          }
        } else {
          for (int32_t x = lo; x < hi; ++x) {
            vstrbq_s8(dst, pad);
            dst = &dst[16];
          }
        }
      }
      (half ? utvm_mve_dw3_run8 : utvm_mve_dw3_run)(
          strip, 16 * d->dilation_w, row_bytes, g,
          &output[((batch * out_h + out_y) * out_w) * out_c + d->base], 16 * params->stride_w,
          out_w, out_c);
    }
  }
}

/* mve_dw3_strips with half constant in each copy of its loops. */
static void mve_dw3_group_strips(const mve_dw3_t *d,
                                 const utvm_depthwise_conv2d_params_t *params,
                                 const mve_dw3_group_t *g, const int8_t *input,
                                 const utvm_dims_t *output_dims, int8_t *output, int32_t width,
                                 int8_t *strip) {
  if (g->half) {
    mve_dw3_strips(d, params, g, input, output_dims, output, width, strip, true);
  } else {
    mve_dw3_strips(d, params, g, input, output_dims, output, width, strip, false);
  }
}

/* Every output of one group (g, channels d->base..d->base + 15, or + 7 when g->half) over the
 * layer: the windows inside the input a row segment at a time, the others one by one
 * (mve_dw3_border). */
static void mve_dw3_group_outputs(const mve_dw3_t *d,
                                  const utvm_depthwise_conv2d_params_t *params,
                                  const mve_dw3_group_t *g, const int8_t *input,
                                  const utvm_dims_t *output_dims, int8_t *output) {
  const int32_t out_h = output_dims->h;
  const int32_t out_w = output_dims->w;
  const int32_t out_c = output_dims->c;
  const int32_t stride_w = params->stride_w;
  const int32_t pad_left = params->pad_left;
  const int32_t first = d->base;
  /* Output columns lo..hi-1 of a row inside the input have their windows inside. */
  const int32_t last_x = d->in_w - 1 - 2 * d->dilation_w + pad_left;
  int32_t lo = (pad_left + stride_w - 1) / stride_w;
  int32_t hi = (last_x < 0) ? 0 : ((last_x / stride_w) + 1);
  lo = (lo < out_w) ? lo : out_w;
  hi = (hi < out_w) ? hi : out_w;
  hi = (hi > lo) ? hi : lo;
  for (int32_t batch = 0; batch < output_dims->n; ++batch) {
    const int8_t *batch_input = &input[batch * d->in_h * d->in_row + first];
    for (int32_t out_y = 0; out_y < out_h; ++out_y) {
      const int32_t in_y_origin = out_y * params->stride_h - params->pad_top;
      const uint32_t rows = mve_dw3_inside(in_y_origin, d->dilation_h, d->in_h);
      /* bit ty of the rows inside spread to bits 3 * ty .. 3 * ty + 2 */
      const uint32_t row_taps =
          ((rows & 1u) * 0x7u) | ((rows & 2u) * 0x1cu) | ((rows & 4u) * 0x70u);
      const int32_t row_lo = (rows == 7u) ? lo : out_w;
      const int32_t row_hi = (rows == 7u) ? hi : out_w;
      int8_t *out_row = &output[((batch * out_h + out_y) * out_w) * out_c + first];
      for (int32_t out_x = 0; out_x < row_lo; ++out_x) {
        mve_dw3_border(d, g, batch_input, in_y_origin, row_taps, out_x * stride_w - pad_left,
                       &out_row[out_x * out_c]);
      }
      if (row_hi > row_lo) {
        const int8_t *pixel =
            &batch_input[in_y_origin * d->in_row + (row_lo * stride_w - pad_left) * d->in_c];
        (g->half ? utvm_mve_dw3_run8 : utvm_mve_dw3_run)(pixel, d->offsets[1], d->offsets[3], g,
                                                         &out_row[row_lo * out_c],
                                                         stride_w * d->in_c, row_hi - row_lo,
                                                         out_c);
      }
      for (int32_t out_x = row_hi; out_x < out_w; ++out_x) {
        mve_dw3_border(d, g, batch_input, in_y_origin, row_taps, out_x * stride_w - pad_left,
                       &out_row[out_x * out_c]);
      }
    }
  }
}

/* terms[i] = bias[i] (0 without a bias) + io * the sum of channel i's nine weights (filter
 * + i, taps out_c bytes apart), for i < count: the weights summed 8 channels at a time in int16
 * lanes (nine int8 values fit), widened through the stack. */
static void mve_dw3_terms(const int8_t *filter, int32_t out_c, const int32_t *bias, int32_t io,
                          int32_t count, int32_t *terms) {
  int16_t sums[8];
  for (int32_t i = 0; i < count; i += 8) {
    int16x8_t w_sum = vdupq_n_s16(0);
    if ((count - i) >= 8) {
      for (int32_t tap = 0; tap < MVE_TAPS; ++tap) {
        w_sum = vaddq_s16(w_sum, vldrbq_s16(&filter[tap * out_c + i]));
      }
    } else {
      const mve_pred16_t p = vctp16q((uint32_t)(count - i));
      for (int32_t tap = 0; tap < MVE_TAPS; ++tap) {
        w_sum = vaddq_s16(w_sum, vldrbq_z_s16(&filter[tap * out_c + i], p));
      }
    }
    vst1q_s16(sums, w_sum);
    for (int32_t h = 0; (h < 8) && ((i + h) < count); h += 4) {
      const mve_pred16_t p = vctp32q((uint32_t)(count - i - h));
      const int32x4_t b =
          (bias != NULL) ? vldrwq_z_s32(&bias[i + h], p) : vdupq_n_s32(0);
      vstrwq_p_s32(&terms[i + h], vmlaq_n_s32(b, vldrhq_s32(&sums[h]), io), p);
    }
  }
}

/* utvm_depthwise_conv2d_s8_mve for the layers mve_dw3_applies takes. */
static void mve_depthwise_3x3(const utvm_depthwise_conv2d_params_t *params,
                              const utvm_per_channel_quant_t *quant,
                              const utvm_dims_t *input_dims, const int8_t *input,
                              const int8_t *filter, const int32_t *bias,
                              const utvm_dims_t *output_dims, int8_t *output) {
  const mve_output_t o = {params->output_offset, params->act_min, params->act_max};
  const int32_t in_c = input_dims->c;
  const int32_t out_c = output_dims->c;
  const int32_t multiplier = params->depth_multiplier;
  mve_dw3_t d;
  int8_t patch[MVE_TAPS * MVE_BLOCK];
  uint16_t sources[MVE_BLOCK];
  int32_t terms[MVE_BLOCK];
  int32_t sums[MVE_BLOCK];
  mve_dw3_group_t group;
  const int32_t stride_w = params->stride_w;
  const int32_t pad_left = params->pad_left;
  const int32_t out_h = output_dims->h;
  const int32_t out_w = output_dims->w;
  /* The pixels a row of windows spans, from the first window's first tap. */
  const int32_t width = (out_w - 1) * stride_w + 2 * params->dilation_w + 1;
  d.in_h = input_dims->h;
  d.in_w = input_dims->w;
  d.in_c = in_c;
  d.dilation_h = params->dilation_h;
  d.dilation_w = params->dilation_w;
  d.in_row = input_dims->w * in_c;
  d.pad = vdupq_n_s8((int8_t)(-params->input_offset));
  for (int32_t t = 0; t < MVE_TAPS; ++t) {
    d.offsets[t] = (t / 3) * params->dilation_h * d.in_row + (t % 3) * params->dilation_w * in_c;
    d.patch_offsets[t] = t * MVE_BLOCK;
  }
  for (int32_t chunk = 0; chunk < out_c; chunk += MVE_BLOCK) {
    const int32_t count = ((out_c - chunk) > MVE_BLOCK) ? MVE_BLOCK : (out_c - chunk);
    mve_dw3_terms(&filter[chunk], out_c, (bias != NULL) ? &bias[chunk] : NULL,
                  params->input_offset, count, terms);
    /* With multiplier 1, whole groups of 16 channels take utvm_mve_dw3_run over the layer, then
     * 8 of the channels left if there are as many (utvm_mve_dw3_run8). */
    const int32_t whole = (multiplier == 1) ? (count - (count % 16)) : 0;
    const int32_t first = ((multiplier == 1) && ((count - whole) >= 8)) ? (whole + 8) : whole;
    for (int32_t g = 0; g < first; g += 16) {
      mve_dw3_group(filter, out_c, chunk, chunk + g, (first - g) == 8, terms, quant, &o, d.pad,
                    &group);
      d.base = chunk + g;
      if (MVE_DW3_STRIP_BYTES(width) <= (int32_t)sizeof(patch)) {
        mve_dw3_group_strips(&d, params, &group, input, output_dims, output, width, patch);
      } else {
        mve_dw3_group_outputs(&d, params, &group, input, output_dims, output);
      }
    }
    /* The other channels, all of them at each output position: with multiplier 1 the taps are
     * read from channel chunk + first on, else from channel 0 (one chunk: in_c <= MVE_BLOCK),
     * sources holding each output channel's input channel. */
    d.base = (multiplier == 1) ? (chunk + first) : 0;
    d.bytes = (multiplier == 1) ? (count - first) : in_c;
    for (int32_t i = first; i < count; ++i) {
      sources[i] = (uint16_t)((multiplier == 1) ? (i - first) : ((chunk + i) / multiplier));
    }
    for (int32_t batch = 0; (first < count) && (batch < output_dims->n); ++batch) {
      const int8_t *batch_input = &input[batch * input_dims->h * d.in_row];
      int8_t *out = &output[batch * out_h * out_w * out_c + chunk];
      for (int32_t out_y = 0; out_y < out_h; ++out_y) {
        const int32_t in_y_origin = out_y * params->stride_h - params->pad_top;
        for (int32_t out_x = 0; out_x < out_w; ++out_x) {
          const int8_t *base;
          const int32_t *offsets = mve_dw3_window(&d, batch_input, in_y_origin,
                                                  out_x * stride_w - pad_left, patch, &base);
          for (int32_t g = first; g < count; g += 8) {
            mve_dw3_8(base, offsets, vld1q_u16(&sources[g]), &filter[chunk + g], out_c,
                      vctp16q((uint32_t)(count - g)), &sums[g]);
          }
          utvm_mve_requant_run(&sums[first], &terms[first], count - first, chunk + first, quant,
                               &o, &out[first]);
          out = &out[out_c];
        }
      }
    }
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
  if (mve_dw3_applies(params, input_dims, filter_dims)) {
    mve_depthwise_3x3(params, quant, input_dims, input, filter, bias, output_dims, output);
    return;
  }
  const mve_output_t o = {params->output_offset, params->act_min, params->act_max};
  const int32_t in_c = input_dims->c;
  const int32_t out_c = output_dims->c;
  const int16_t io = (int16_t)params->input_offset;
  int32_t sums[MVE_BLOCK];
  int32_t no_bias[MVE_BLOCK];
  mve_taps_t t;
  for (int32_t i = 0; i < MVE_BLOCK; i += 4) {
    vstrwq_s32(&no_bias[i], vdupq_n_s32(0));
  }
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
          utvm_mve_requant_run(sums, (bias != NULL) ? &bias[chunk] : no_bias, count, chunk, quant,
                          &o, &out[chunk]);
        }
        out = &out[out_c];
      }
    }
  }
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without MVE. */
typedef int utvm_kernels_no_mve_depthwise_conv2d_t;
#endif

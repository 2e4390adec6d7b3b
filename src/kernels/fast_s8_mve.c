/*
 * MVE fast paths of CONV_2D, FULLY_CONNECTED, DEPTHWISE_CONV_2D and ADD (see fast_s8.h and
 * mve_s8.h), for cores with the M-profile Vector Extension (Cortex-M55/M85).
 *
 * CONV_2D and FULLY_CONNECTED multiply raw int8 values with VMLADAVA (16 products per
 * instruction) and add the offsets separately: sum (w + fo)(x + io) = sum w*x + io * sum w +
 * fo * sum x + K * fo * io, all modulo 2^32 as the portable int32 accumulator wraps, so every
 * sum is the portable one; the terms (bias + io * sum w) start the accumulators. CONV_2D builds
 * the int8 im2col columns of four output positions at a time in its scratch, interleaved by 16
 * values so that one pointer reaches all four, with -io where a window lies in the padding
 * (x + io is 0 there; -io is -128..127): windows inside the input are copied row by row (straight
 * into the layout when Ci is a multiple of 16), 1x1 columns are the input pixels, and a 1x1
 * convolution of stride 1 over up to 16 channels reads them in place. Each weight row is then
 * taken once for the four columns (columns of up to 16 values stay in registers over all rows).
 * VMLADAVA accumulates in even registers only, which limits a dot loop to four accumulators
 * without moves (one row by four columns). FULLY_CONNECTED (one column per batch) takes four
 * weight rows per input load. DEPTHWISE_CONV_2D works lane-wise, input and filter widened to
 * int16, even and odd lanes multiplied into int32 (VMULLB/VMULLT): a 3x3 filter reads its nine
 * taps through offsets from the window (or a patch padded with -io at the borders), the input
 * offset folded into the terms, 16 channels per step with multiplier 1, else 8 with the inputs
 * gathered; other filters sum the taps inside the input, the offset added per tap. The sums of
 * up to UTVM_KERNELS_MVE_CHANNEL_BLOCK output channels are collected on the stack and then
 * requantized four at a time (mve_requantize), CONV_2D's four columns per parameter load. ADD
 * of two same-shape inputs runs TFLite's fixed-point steps four lanes at a time.
 */
#include "fast_s8.h"
#include "fixed_point.h"

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

typedef char mve_block_is_a_multiple_of_16[(((MVE_BLOCK % 16) == 0) && (MVE_BLOCK > 0)) ? 1 : -1];

/* The four sums of rows r0..r3 with column over length values (wrapping), into sums[0..3]. */
static inline void mve_dot4(const int8_t *r0, const int8_t *r1, const int8_t *r2,
                            const int8_t *r3, const int8_t *column, int32_t length,
                            int32_t *sums) {
  int32_t a0 = 0;
  int32_t a1 = 0;
  int32_t a2 = 0;
  int32_t a3 = 0;
  const int8_t *p0 = r0;
  const int8_t *p1 = r1;
  const int8_t *p2 = r2;
  const int8_t *p3 = r3;
  const int8_t *c = column;
  const int32_t blocks = length / 16;
  for (int32_t b = 0; b < blocks; ++b) {
    const int8x16_t x = vldrbq_s8(c);
    a0 = vmladavaq_s8(a0, vldrbq_s8(p0), x);
    a1 = vmladavaq_s8(a1, vldrbq_s8(p1), x);
    a2 = vmladavaq_s8(a2, vldrbq_s8(p2), x);
    a3 = vmladavaq_s8(a3, vldrbq_s8(p3), x);
    c = &c[16];
    p0 = &p0[16];
    p1 = &p1[16];
    p2 = &p2[16];
    p3 = &p3[16];
  }
  const int32_t tail = length - 16 * blocks;
  if (tail > 0) {
    /* The column's zeroed lanes make the weights' extra lanes add nothing. */
    const mve_pred16_t p = vctp8q((uint32_t)tail);
    const int8x16_t x = vldrbq_z_s8(c, p);
    a0 = vmladavaq_s8(a0, vldrbq_z_s8(p0, p), x);
    a1 = vmladavaq_s8(a1, vldrbq_z_s8(p1, p), x);
    a2 = vmladavaq_s8(a2, vldrbq_z_s8(p2, p), x);
    a3 = vmladavaq_s8(a3, vldrbq_z_s8(p3, p), x);
  }
  sums[0] = a0;
  sums[1] = a1;
  sums[2] = a2;
  sums[3] = a3;
}

/* sums[i] = sum over k < length of rows[i * length + k] * column[k] for i < count (wrapping);
 * sums has count rounded up to 4 entries (the extra ones are overwritten). */
static MVE_NOINLINE void mve_gemv(const int8_t *rows, int32_t length, int32_t count,
                                  const int8_t *column, int32_t *sums) {
  const int8_t *r0 = rows;
  for (int32_t row = 0; row < count; row += 4) {
    /* Rows past count repeat the last one; their sums land in the extra entries. */
    const int8_t *r1 = ((row + 1) < count) ? &r0[length] : r0;
    const int8_t *r2 = ((row + 2) < count) ? &r1[length] : r1;
    const int8_t *r3 = ((row + 3) < count) ? &r2[length] : r2;
    mve_dot4(r0, r1, r2, r3, column, length, &sums[row]);
    r0 = &r3[length];
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

/* The requantized, offset and clamped outputs of four accumulators (bias added). */
static inline int32x4_t mve_output4(int32x4_t acc, int32x4_t multiplier, int32x4_t shift,
                                    int32x4_t act_min, int32x4_t act_max, int32_t offset) {
  const int32x4_t zero = vdupq_n_s32(0);
  const int32x4_t x =
      mve_requantize(acc, multiplier, vmaxq_s32(shift, zero), vminq_s32(shift, zero));
  return vminq_s32(vmaxq_s32(vaddq_n_s32(x, offset), act_min), act_max);
}

/* out[i] for i < count from sums[i] (+ terms[i] unless terms is NULL): channel + i's
 * requantization, offset and clamp (utvm_mac_output_s8's order). Per-tensor parameters are
 * gathered from offset 0 in every lane, so both kinds take the same loop. */
static inline void mve_requant_inline(const int32_t *sums, const int32_t *terms, int32_t count,
                                      int32_t channel, const utvm_per_channel_quant_t *quant,
                                      const mve_output_t *o, int8_t *out) {
  const int32x4_t act_min = vdupq_n_s32(o->act_min);
  const int32x4_t act_max = vdupq_n_s32(o->act_max);
  const int32_t offset = o->output_offset;
  const uint32_t step = (quant->count == 1) ? 0u : 1u;
  const int32_t *multipliers = &quant->multiplier[(int32_t)step * channel];
  const int8_t *shifts = &quant->shift[(int32_t)step * channel];
  uint32x4_t offsets = vmulq_n_u32(vidupq_n_u32(0u, 1), step);
  const int32_t whole = count / 4;
  for (int32_t block = 0; block < whole; ++block) {
    const int32_t i = 4 * block;
    int32x4_t acc = vldrwq_s32(&sums[i]);
    if (terms != NULL) {
      acc = vaddq_s32(acc, vldrwq_s32(&terms[i]));
    }
    const int32x4_t multiplier = vldrwq_gather_shifted_offset_s32(multipliers, offsets);
    const int32x4_t shift = vldrbq_gather_offset_s32(shifts, offsets);
    vstrbq_s32(&out[i], mve_output4(acc, multiplier, shift, act_min, act_max, offset));
    offsets = vaddq_n_u32(offsets, 4u * step);
  }
  const int32_t i = 4 * whole;
  if (i < count) {
    const mve_pred16_t p = vctp32q((uint32_t)(count - i));
    int32x4_t acc = vldrwq_z_s32(&sums[i], p);
    if (terms != NULL) {
      acc = vaddq_s32(acc, vldrwq_z_s32(&terms[i], p));
    }
    const int32x4_t multiplier = vldrwq_gather_shifted_offset_z_s32(multipliers, offsets, p);
    const int32x4_t shift = vldrbq_gather_offset_z_s32(shifts, offsets, p);
    vstrbq_p_s32(&out[i], mve_output4(acc, multiplier, shift, act_min, act_max, offset), p);
  }
}

/* mve_requant_inline with terms. */
static MVE_NOINLINE void mve_requant_run(const int32_t *sums, const int32_t *terms,
                                         int32_t count, int32_t channel,
                                         const utvm_per_channel_quant_t *quant,
                                         const mve_output_t *o, int8_t *out) {
  mve_requant_inline(sums, terms, count, channel, quant, o, out);
}

/* The outputs of columns 0..columns-1 (1..4), column j's sums at sums[j * MVE_BLOCK] (terms
 * included), its count outputs at out[j * out_step]: each channel's parameters loaded once for
 * all the columns. */
static MVE_NOINLINE void mve_requant_columns(const int32_t *sums, int32_t columns, int32_t count,
                                             int32_t channel,
                                             const utvm_per_channel_quant_t *quant,
                                             const mve_output_t *o, int8_t *out,
                                             int32_t out_step) {
  const int32x4_t act_min = vdupq_n_s32(o->act_min);
  const int32x4_t act_max = vdupq_n_s32(o->act_max);
  const int32x4_t zero = vdupq_n_s32(0);
  const int32_t offset = o->output_offset;
  const bool per_channel = quant->count != 1;
  const int32_t *multipliers = &quant->multiplier[per_channel ? channel : 0];
  const int8_t *shifts = &quant->shift[per_channel ? channel : 0];
  int32x4_t multiplier = vdupq_n_s32(multipliers[0]);
  int32x4_t shift = vdupq_n_s32(shifts[0]);
  const int32_t whole = count / 4;
  for (int32_t block = 0; block < whole; ++block) {
    const int32_t i = 4 * block;
    if (per_channel) {
      multiplier = vldrwq_s32(&multipliers[i]);
      shift = vldrbq_s32(&shifts[i]);
    }
    const int32x4_t left = vmaxq_s32(shift, zero);
    const int32x4_t right = vminq_s32(shift, zero);
    for (int32_t j = 0; j < columns; ++j) {
      const int32x4_t x = mve_requantize(vldrwq_s32(&sums[j * MVE_BLOCK + i]), multiplier, left,
                                         right);
      vstrbq_s32(&out[j * out_step + i],
                 vminq_s32(vmaxq_s32(vaddq_n_s32(x, offset), act_min), act_max));
    }
  }
  const int32_t i = 4 * whole;
  if (i < count) {
    const mve_pred16_t p = vctp32q((uint32_t)(count - i));
    if (per_channel) {
      multiplier = vldrwq_z_s32(&multipliers[i], p);
      shift = vldrbq_z_s32(&shifts[i], p);
    }
    const int32x4_t left = vmaxq_s32(shift, zero);
    const int32x4_t right = vminq_s32(shift, zero);
    for (int32_t j = 0; j < columns; ++j) {
      const int32x4_t x = mve_requantize(vldrwq_z_s32(&sums[j * MVE_BLOCK + i], p), multiplier,
                                         left, right);
      vstrbq_p_s32(&out[j * out_step + i],
                   vminq_s32(vmaxq_s32(vaddq_n_s32(x, offset), act_min), act_max), p);
    }
  }
}

/* Four im2col columns of length values, interleaved so that one pointer reaches all four
 * (mve_gemm4): 16-value block b of column j at 64 * b + 16 * j, then the length % 16 values
 * left of each column one after another. 4 * length bytes in all. */
typedef struct {
  int8_t *base;
  int32_t whole; /* values in whole 16-value blocks: length - length % 16 */
  int32_t tail;  /* length % 16 */
} mve_columns_t;

/* n values of column j from value k on: src[0..n), or pad where src is NULL. */
static void mve_put(const mve_columns_t *cols, int32_t j, int32_t k, const int8_t *src,
                    int8x16_t pad, int32_t n) {
  int32_t done = 0;
  if (((k % 16) == 0) && (k < cols->whole)) {
    /* Whole 16-value blocks from an aligned start: one vector each. */
    const int32_t blocks = ((cols->whole - k) < n) ? ((cols->whole - k) / 16) : (n / 16);
    int8_t *dst = &cols->base[4 * k + 16 * j];
    for (int32_t b = 0; b < blocks; ++b) {
      vstrbq_s8(&dst[64 * b], (src != NULL) ? vldrbq_s8(&src[16 * b]) : pad);
    }
    done = 16 * blocks;
  }
  while (done < n) {
    const int32_t at = k + done;
    int8_t *dst;
    int32_t room;
    if (at < cols->whole) {
      const int32_t offset = at % 16;
      dst = &cols->base[4 * (at - offset) + 16 * j + offset];
      room = 16 - offset;
    } else {
      dst = &cols->base[4 * cols->whole + j * cols->tail + (at - cols->whole)];
      room = cols->tail;
    }
    const int32_t run = ((n - done) < room) ? (n - done) : room;
    const mve_pred16_t p = vctp8q((uint32_t)run);
    vstrbq_p_s8(dst, (src != NULL) ? vldrbq_z_s8(&src[done], p) : pad, p);
    done += run;
  }
}

/* A column up to this long is built in a stack buffer by byte runs and then interleaved, which
 * is cheaper than interleaving many short runs (input channels not a multiple of 16). */
#define MVE_PLAIN_COLUMN 512

/* n bytes from src to dst (src NULL: n bytes of pad), 16 at a time, the rest predicated. */
static inline void mve_run(int8_t *dst, const int8_t *src, int8x16_t pad, int32_t n) {
  const int32_t whole = n / 16;
  const int32_t rest = n - 16 * whole;
  int8_t *d = dst;
  if (src == NULL) {
    for (int32_t b = 0; b < whole; ++b) {
      vstrbq_s8(d, pad);
      d = &d[16];
    }
    if (rest > 0) {
      vstrbq_p_s8(d, pad, vctp8q((uint32_t)rest));
    }
  } else {
    const int8_t *s = src;
    for (int32_t b = 0; b < whole; ++b) {
      vstrbq_s8(d, vldrbq_s8(s));
      d = &d[16];
      s = &s[16];
    }
    if (rest > 0) {
      const mve_pred16_t p = vctp8q((uint32_t)rest);
      vstrbq_p_s8(d, vldrbq_z_s8(s, p), p);
    }
  }
}

/* n (a multiple of 16) values of column j from value k (a multiple of 16) on: src[0..n), or
 * pad where src is NULL; the column has no tail. */
static inline void mve_run_aligned(const mve_columns_t *cols, int32_t j, int32_t k,
                                   const int8_t *src, int8x16_t pad, int32_t n) {
  int8_t *dst = &cols->base[4 * k + 16 * j];
  for (int32_t i = 0; i < n; i += 16) {
    vstrbq_s8(dst, (src != NULL) ? vldrbq_s8(&src[i]) : pad);
    dst = &dst[64];
  }
}

/* What the column builder keeps for a whole convolution. */
typedef struct {
  const utvm_conv2d_params_t *params;
  const utvm_dims_t *input_dims;
  const utvm_dims_t *filter_dims;
  mve_columns_t cols;
  int8x16_t pad;      /* -io: x + io is 0 in the padding */
  int32_t row_length; /* KW * Ci */
  int32_t length;     /* KH * KW * Ci */
  bool aligned;       /* Ci a multiple of 16: every run starts and ends on a block */
} mve_conv_t;

/* One filter row of a window: where its taps come from (src_row NULL: all padding, else the
 * input row with taps first..end-1 inside), as runs of length values from dst on. */
static inline void mve_conv_row(const mve_conv_t *cv, const int8_t *src_row, int32_t in_x_origin,
                                int32_t first, int32_t end, int8_t *dst) {
  const int32_t in_c = cv->input_dims->c;
  const int32_t dilation = cv->params->dilation_w;
  if (src_row == NULL) {
    mve_run(dst, NULL, cv->pad, cv->row_length);
  } else {
    mve_run(dst, NULL, cv->pad, first * in_c);
    if (dilation == 1) {
      mve_run(&dst[first * in_c], &src_row[(in_x_origin + first) * in_c], cv->pad,
              (end - first) * in_c);
    } else {
      for (int32_t filter_x = first; filter_x < end; ++filter_x) {
        mve_run(&dst[filter_x * in_c], &src_row[(in_x_origin + dilation * filter_x) * in_c],
                cv->pad, in_c);
      }
    }
    mve_run(&dst[end * in_c], NULL, cv->pad, (cv->filter_dims->w - end) * in_c);
  }
}

/* The same row straight into column j of an aligned layout, from value k on. */
static inline void mve_conv_row_aligned(const mve_conv_t *cv, const int8_t *src_row,
                                        int32_t in_x_origin, int32_t first, int32_t end,
                                        int32_t j, int32_t k) {
  const int32_t in_c = cv->input_dims->c;
  const int32_t dilation = cv->params->dilation_w;
  if (src_row == NULL) {
    mve_run_aligned(&cv->cols, j, k, NULL, cv->pad, cv->row_length);
  } else {
    mve_run_aligned(&cv->cols, j, k, NULL, cv->pad, first * in_c);
    if (dilation == 1) {
      mve_run_aligned(&cv->cols, j, k + first * in_c, &src_row[(in_x_origin + first) * in_c],
                      cv->pad, (end - first) * in_c);
    } else {
      for (int32_t filter_x = first; filter_x < end; ++filter_x) {
        mve_run_aligned(&cv->cols, j, k + filter_x * in_c,
                        &src_row[(in_x_origin + dilation * filter_x) * in_c], cv->pad, in_c);
      }
    }
    mve_run_aligned(&cv->cols, j, k + end * in_c, NULL, cv->pad,
                    (cv->filter_dims->w - end) * in_c);
  }
}

/* Column j: the im2col column of the window at (in_y_origin, in_x_origin) of batch_input, its
 * KH*KW*Ci input values, -io where it lies outside the input. Runs straight into the layout when
 * they are whole blocks, through a stack buffer when the column is short, else by mve_put. */
static MVE_NOINLINE void mve_conv_column(const mve_conv_t *cv, const int8_t *batch_input,
                                         int32_t in_y_origin, int32_t in_x_origin, int32_t j) {
  const utvm_dims_t *in = cv->input_dims;
  const int32_t dilation_h = cv->params->dilation_h;
  const int32_t row_bytes = in->w * in->c;
  int32_t first;
  int32_t end;
  utvm_taps_inside(in_x_origin, cv->params->dilation_w, cv->filter_dims->w, in->w, &first, &end);
  if (cv->aligned) {
    for (int32_t filter_y = 0; filter_y < cv->filter_dims->h; ++filter_y) {
      const int32_t in_y = in_y_origin + dilation_h * filter_y;
      const bool inside = (in_y >= 0) && (in_y < in->h) && (first < end);
      mve_conv_row_aligned(cv, inside ? &batch_input[in_y * row_bytes] : NULL, in_x_origin, first,
                           end, j, filter_y * cv->row_length);
    }
  } else if (cv->length <= MVE_PLAIN_COLUMN) {
    int8_t plain[MVE_PLAIN_COLUMN];
    for (int32_t filter_y = 0; filter_y < cv->filter_dims->h; ++filter_y) {
      const int32_t in_y = in_y_origin + dilation_h * filter_y;
      const bool inside = (in_y >= 0) && (in_y < in->h) && (first < end);
      mve_conv_row(cv, inside ? &batch_input[in_y * row_bytes] : NULL, in_x_origin, first, end,
                   &plain[filter_y * cv->row_length]);
    }
    mve_put(&cv->cols, j, 0, plain, cv->pad, cv->length);
  } else {
    const int32_t in_c = in->c;
    for (int32_t filter_y = 0; filter_y < cv->filter_dims->h; ++filter_y) {
      const int32_t in_y = in_y_origin + dilation_h * filter_y;
      const int32_t k = filter_y * cv->row_length;
      if ((in_y < 0) || (in_y >= in->h) || (first == end)) {
        mve_put(&cv->cols, j, k, NULL, cv->pad, cv->row_length);
      } else {
        const int8_t *src_row = &batch_input[in_y * row_bytes];
        mve_put(&cv->cols, j, k, NULL, cv->pad, first * in_c);
        for (int32_t filter_x = first; filter_x < end; ++filter_x) {
          const int32_t in_x = in_x_origin + cv->params->dilation_w * filter_x;
          mve_put(&cv->cols, j, k + filter_x * in_c, &src_row[in_x * in_c], cv->pad, in_c);
        }
        mve_put(&cv->cols, j, k + end * in_c, NULL, cv->pad, (cv->filter_dims->w - end) * in_c);
      }
    }
  }
}

/* Column j of a window inside the input with dilation_w 1: filter row y is the run of
 * row_length values at src + y * row_step, straight into the layout when it is aligned, else
 * through a stack buffer (length <= MVE_PLAIN_COLUMN). */
static MVE_NOINLINE void mve_conv_column_inside(const mve_conv_t *cv, const int8_t *src,
                                                int32_t row_step, int32_t j) {
  const int32_t rows = cv->filter_dims->h;
  const int32_t row_length = cv->row_length;
  const int8_t *s = src;
  if (cv->aligned) {
    int8_t *dst = &cv->cols.base[16 * j];
    for (int32_t filter_y = 0; filter_y < rows; ++filter_y) {
      const int8_t *from = s;
      for (int32_t i = 0; i < row_length; i += 16) {
        vstrbq_s8(dst, vldrbq_s8(from));
        dst = &dst[64];
        from = &from[16];
      }
      s = &s[row_step];
    }
  } else {
    int8_t plain[MVE_PLAIN_COLUMN];
    for (int32_t filter_y = 0; filter_y < rows; ++filter_y) {
      mve_run(&plain[filter_y * row_length], s, cv->pad, row_length);
      s = &s[row_step];
    }
    const mve_columns_t *cols = &cv->cols;
    int8_t *dst = &cols->base[16 * j];
    const int32_t blocks = cols->whole / 16;
    for (int32_t b = 0; b < blocks; ++b) {
      vstrbq_s8(dst, vldrbq_s8(&plain[16 * b]));
      dst = &dst[64];
    }
    if (cols->tail > 0) {
      const mve_pred16_t p = vctp8q((uint32_t)cols->tail);
      vstrbq_p_s8(&cols->base[4 * cols->whole + j * cols->tail],
                  vldrbq_z_s8(&plain[cols->whole], p), p);
    }
  }
}

/* Column j of a 1x1 convolution: the input pixel at (in_y, in_x) of batch_input, or -io. */
static MVE_NOINLINE void mve_pointwise_column(const mve_conv_t *cv, const int8_t *batch_input,
                                              int32_t in_y, int32_t in_x, int32_t j) {
  const utvm_dims_t *in = cv->input_dims;
  const bool inside = (in_y >= 0) && (in_y < in->h) && (in_x >= 0) && (in_x < in->w);
  mve_put(&cv->cols, j, 0, inside ? &batch_input[(in_y * in->w + in_x) * in->c] : NULL, cv->pad,
          in->c);
}

/* The sums of weight row w with the four interleaved columns at c over blocks (at least 1)
 * whole 16-value blocks and (has_tail) the tail values at tail_columns (tail each), each started
 * from the row's term t, into sums[j * MVE_BLOCK] for column j. One row at a time keeps the four
 * accumulators in the even registers VMLADAVA needs, the loop state outside in registers too. */
static inline void mve_row4(const int8_t *w, const int8_t *c, int32_t blocks, bool has_tail,
                            int32_t tail, const int8_t *tail_columns, int32_t t, int32_t *sums) {
  int32_t a0 = t;
  int32_t a1 = t;
  int32_t a2 = t;
  int32_t a3 = t;
  const int8_t *wp = w;
  const int8_t *c0 = c;
  const int8_t *c1 = &c[16];
  const int8_t *c2 = &c[32];
  const int8_t *c3 = &c[48];
  int32_t b = blocks;
  do { /* blocks >= 1; a pointer per column gives the compiler its post-increment loads */
    const int8x16_t x = vldrbq_s8(wp);
    wp = &wp[16];
    a0 = vmladavaq_s8(a0, x, vldrbq_s8(c0));
    c0 = &c0[64];
    a1 = vmladavaq_s8(a1, x, vldrbq_s8(c1));
    c1 = &c1[64];
    a2 = vmladavaq_s8(a2, x, vldrbq_s8(c2));
    c2 = &c2[64];
    a3 = vmladavaq_s8(a3, x, vldrbq_s8(c3));
    c3 = &c3[64];
    --b;
  } while (b > 0);
  if (has_tail) {
    /* The weights' zeroed lanes make the columns' extra lanes add nothing. */
    const mve_pred16_t p = vctp8q((uint32_t)tail);
    const int8x16_t x = vldrbq_z_s8(wp, p);
    a0 = vmladavaq_s8(a0, x, vldrbq_z_s8(tail_columns, p));
    a1 = vmladavaq_s8(a1, x, vldrbq_z_s8(&tail_columns[tail], p));
    a2 = vmladavaq_s8(a2, x, vldrbq_z_s8(&tail_columns[2 * tail], p));
    a3 = vmladavaq_s8(a3, x, vldrbq_z_s8(&tail_columns[3 * tail], p));
  }
  sums[0] = a0;
  sums[MVE_BLOCK] = a1;
  sums[2 * MVE_BLOCK] = a2;
  sums[3 * MVE_BLOCK] = a3;
}

/* mve_gemm4 for four columns of length <= 16 values at c[0..3] (each one vector, kept in
 * registers while the rows go by). */
static MVE_NOINLINE void mve_gemm4_short(const int8_t *rows, int32_t count, const int32_t *terms,
                                         const int8_t *const *c, int32_t length, int32_t *sums) {
  const mve_pred16_t p = vctp8q((uint32_t)length);
  const int8x16_t c0 = vldrbq_z_s8(c[0], p);
  const int8x16_t c1 = vldrbq_z_s8(c[1], p);
  const int8x16_t c2 = vldrbq_z_s8(c[2], p);
  const int8x16_t c3 = vldrbq_z_s8(c[3], p);
  const int8_t *w = rows;
  for (int32_t row = 0; row < count; ++row) {
    const int8x16_t x = vldrbq_z_s8(w, p);
    const int32_t t = terms[row];
    sums[row] = vmladavaq_s8(t, x, c0);
    sums[MVE_BLOCK + row] = vmladavaq_s8(t, x, c1);
    sums[2 * MVE_BLOCK + row] = vmladavaq_s8(t, x, c2);
    sums[3 * MVE_BLOCK + row] = vmladavaq_s8(t, x, c3);
    w = &w[length];
  }
}

/* sums[j * MVE_BLOCK + i] = terms[i] + sum over k of rows[i * length + k] * column j's value k,
 * for the four interleaved columns j and i < count (wrapping). */
static MVE_NOINLINE void mve_gemm4(const int8_t *rows, int32_t count, const int32_t *terms,
                                   const mve_columns_t *cols, int32_t *sums) {
  const int32_t blocks = cols->whole / 16;
  const int32_t tail = cols->tail;
  const int32_t length = cols->whole + tail;
  const int8_t *base = cols->base;
  const int8_t *tail_columns = &base[4 * cols->whole];
  if (tail == 0) {
    for (int32_t row = 0; row < count; ++row) {
      mve_row4(&rows[row * length], base, blocks, false, 0, tail_columns, terms[row], &sums[row]);
    }
  } else {
    for (int32_t row = 0; row < count; ++row) {
      mve_row4(&rows[row * length], base, blocks, true, tail, tail_columns, terms[row],
               &sums[row]);
    }
  }
}

bool utvm_conv2d_s8_mve_applies(const utvm_dims_t *input_dims, const utvm_dims_t *filter_dims,
                                bool has_scratch) {
  return (input_dims->c == filter_dims->c) && has_scratch;
}

void utvm_conv2d_s8_mve(const utvm_conv2d_params_t *params, const utvm_per_channel_quant_t *quant,
                        const utvm_dims_t *input_dims, const int8_t *input,
                        const utvm_dims_t *filter_dims, const int8_t *filter,
                        const int32_t *bias, const utvm_dims_t *output_dims, int8_t *output,
                        int8_t *scratch) {
  const mve_output_t o = {params->output_offset, params->act_min, params->act_max};
  const int32_t row_length = filter_dims->w * filter_dims->c;
  const int32_t length = filter_dims->h * row_length;
  const mve_conv_t cv = {params,
                         input_dims,
                         filter_dims,
                         {scratch, length - length % 16, length % 16},
                         vdupq_n_s8((int8_t)(-params->input_offset)),
                         row_length,
                         length,
                         (input_dims->c % 16) == 0};
  const bool pointwise = (filter_dims->h == 1) && (filter_dims->w == 1);
  const int32_t out_c = output_dims->c;
  const int32_t out_w = output_dims->w;
  const int32_t batch_size = input_dims->h * input_dims->w * input_dims->c;
  const int32_t plane = output_dims->h * out_w;
  const int32_t positions = output_dims->n * plane;
  const int32_t in_row = input_dims->w * input_dims->c;
  const int32_t in_c = input_dims->c;
  const int32_t row_step = params->dilation_h * in_row;
  const int32_t stride_h = params->stride_h;
  const int32_t stride_w = params->stride_w;
  const int32_t pad_top = params->pad_top;
  const int32_t pad_left = params->pad_left;
  /* Windows from these origins on lie inside the input; with dilation_w 1 their rows are runs. */
  const int32_t last_y = input_dims->h - 1 - params->dilation_h * (filter_dims->h - 1);
  const int32_t last_x = input_dims->w - 1 - params->dilation_w * (filter_dims->w - 1);
  const bool direct = (params->dilation_w == 1) && (cv.aligned || (length <= MVE_PLAIN_COLUMN));
  /* A 1x1 convolution of stride 1 without padding over the whole input of at most 16 channels
   * reads position p's column in place, at input + p * Ci. */
  const bool in_place = pointwise && (length <= 16) && (params->stride_h == 1) &&
                        (params->stride_w == 1) && (params->pad_top == 0) &&
                        (params->pad_left == 0) && (output_dims->h == input_dims->h) &&
                        (output_dims->w == input_dims->w);
  int32_t terms[MVE_BLOCK];
  int32_t sums[4 * MVE_BLOCK];
  for (int32_t chunk = 0; chunk < out_c; chunk += MVE_BLOCK) {
    const int32_t count = ((out_c - chunk) > MVE_BLOCK) ? MVE_BLOCK : (out_c - chunk);
    const int8_t *rows = &filter[chunk * length];
    mve_row_sums(rows, length, count, terms);
    mve_fold_terms(terms, (bias != NULL) ? &bias[chunk] : NULL, params->input_offset, 0, count);
    for (int32_t first = 0; first < positions; first += 4) {
      const int32_t columns = ((positions - first) < 4) ? (positions - first) : 4;
      if (in_place) {
        /* Past the last position the last column repeats; its sums are not stored. */
        const int8_t *c[4];
        for (int32_t j = 0; j < 4; ++j) {
          c[j] = &input[(first + ((j < columns) ? j : (columns - 1))) * length];
        }
        mve_gemm4_short(rows, count, terms, c, length, sums);
      } else {
        /* Past the last position the columns keep what they held; their sums are not stored. */
        for (int32_t j = 0; j < columns; ++j) {
          const int32_t position = first + j;
          const int32_t in_y = ((position % plane) / out_w) * stride_h - pad_top;
          const int32_t in_x = (position % out_w) * stride_w - pad_left;
          const int8_t *batch_input = &input[(position / plane) * batch_size];
          if (pointwise) {
            mve_pointwise_column(&cv, batch_input, in_y, in_x, j);
          } else if (direct && (in_y >= 0) && (in_x >= 0) && (in_y <= last_y) &&
                     (in_x <= last_x)) {
            mve_conv_column_inside(&cv, &batch_input[in_y * in_row + in_x * in_c], row_step, j);
          } else {
            mve_conv_column(&cv, batch_input, in_y, in_x, j);
          }
        }
        if (length <= 16) {
          const int8_t *c[4] = {scratch, &scratch[length], &scratch[2 * length],
                                &scratch[3 * length]};
          mve_gemm4_short(rows, count, terms, c, length, sums);
        } else {
          mve_gemm4(rows, count, terms, &cv.cols, sums);
        }
      }
      mve_requant_columns(sums, columns, count, chunk, quant, &o, &output[first * out_c + chunk],
                          out_c);
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

/* The sums over the nine taps of 16 channels of multiplier 1 from channel g (base + offsets[t]
 * + g) and of the filter (w, tap t at t * step) into sums[0..15]: even and odd lanes are
 * multiplied separately (VMULLB/VMULLT), so they are stored interleaved. */
static MVE_NOINLINE void mve_dw3_16(const int8_t *base, const int32_t *offsets, int32_t g,
                                    const int8_t *w, int32_t step, int32_t *sums) {
  const uint32x4_t even_lanes = vidupq_n_u32(0u, 2);
  int32x4_t even0 = vdupq_n_s32(0);
  int32x4_t odd0 = vdupq_n_s32(0);
  int32x4_t even1 = vdupq_n_s32(0);
  int32x4_t odd1 = vdupq_n_s32(0);
  const int8_t *wt = w;
  for (int32_t t = 0; t < MVE_TAPS; ++t) {
    const int8_t *x = &base[offsets[t] + g];
    int16x8_t xs = vldrbq_s16(x);
    int16x8_t ws = vldrbq_s16(wt);
    even0 = vaddq_s32(even0, vmullbq_int_s16(xs, ws));
    odd0 = vaddq_s32(odd0, vmulltq_int_s16(xs, ws));
    xs = vldrbq_s16(&x[8]);
    ws = vldrbq_s16(&wt[8]);
    even1 = vaddq_s32(even1, vmullbq_int_s16(xs, ws));
    odd1 = vaddq_s32(odd1, vmulltq_int_s16(xs, ws));
    wt = &wt[step];
  }
  vstrwq_scatter_shifted_offset_s32(sums, even_lanes, even0);
  vstrwq_scatter_shifted_offset_s32(&sums[1], even_lanes, odd0);
  vstrwq_scatter_shifted_offset_s32(&sums[8], even_lanes, even1);
  vstrwq_scatter_shifted_offset_s32(&sums[9], even_lanes, odd1);
}

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
  const int32_t stride_w = params->stride_w;
  const int32_t pad_left = params->pad_left;
  const int32_t out_h = output_dims->h;
  const int32_t out_w = output_dims->w;
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
    /* With multiplier 1 the taps are read from the chunk's channel on, else from channel 0
     * (one chunk: in_c <= MVE_BLOCK), sources holding each output channel's input channel. */
    d.base = (multiplier == 1) ? chunk : 0;
    d.bytes = (multiplier == 1) ? count : in_c;
    for (int32_t i = 0; i < count; ++i) {
      sources[i] = (uint16_t)((multiplier == 1) ? i : ((chunk + i) / multiplier));
    }
    for (int32_t i = 0; i < count; i += 4) {
      const mve_pred16_t p = vctp32q((uint32_t)(count - i));
      const int32x4_t b = (bias != NULL) ? vldrwq_z_s32(&bias[chunk + i], p) : vdupq_n_s32(0);
      int32x4_t w_sum = vdupq_n_s32(0);
      for (int32_t tap = 0; tap < MVE_TAPS; ++tap) {
        w_sum = vaddq_s32(w_sum, vldrbq_z_s32(&filter[tap * out_c + chunk + i], p));
      }
      vstrwq_p_s32(&terms[i], vmlaq_n_s32(b, w_sum, params->input_offset), p);
    }
    for (int32_t batch = 0; batch < output_dims->n; ++batch) {
      const int8_t *batch_input = &input[batch * input_dims->h * d.in_row];
      int8_t *out = &output[batch * out_h * out_w * out_c + chunk];
      for (int32_t out_y = 0; out_y < out_h; ++out_y) {
        const int32_t in_y_origin = out_y * params->stride_h - params->pad_top;
        for (int32_t out_x = 0; out_x < out_w; ++out_x) {
          const int8_t *base;
          const int32_t *offsets = mve_dw3_window(&d, batch_input, in_y_origin,
                                                  out_x * stride_w - pad_left, patch, &base);
          int32_t g = 0;
          if (multiplier == 1) {
            for (; (count - g) >= 16; g += 16) {
              mve_dw3_16(base, offsets, g, &filter[chunk + g], out_c, &sums[g]);
            }
          }
          for (; g < count; g += 8) {
            mve_dw3_8(base, offsets, vld1q_u16(&sources[g]), &filter[chunk + g], out_c,
                      vctp16q((uint32_t)(count - g)), &sums[g]);
          }
          mve_requant_run(sums, terms, count, chunk, quant, &o, out);
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
          mve_requant_run(sums, (bias != NULL) ? &bias[chunk] : no_bias, count, chunk, quant,
                          &o, &out[chunk]);
        }
        out = &out[out_c];
      }
    }
  }
}

/* ADD's constants, copied out of the parameters (which the byte stores could alias). */
typedef struct {
  int32_t left_shift;
  int32_t offset1;
  int32_t offset2;
  int32_t multiplier1;
  int32_t multiplier2;
  int32_t output_multiplier;
  int32_t output_offset;
  int32x4_t right_shift1;
  int32x4_t right_shift2;
  int32x4_t output_right_shift;
  int32x4_t act_min;
  int32x4_t act_max;
} mve_add_t;

/* Four outputs of ADD from four values of each input (TFLite's AddFunc, lane-wise). */
static inline int32x4_t mve_add4(const mve_add_t *a, int32x4_t x1, int32x4_t x2) {
  /* (x + offset) * 2^left_shift: |x + offset| <= 255 and left_shift <= 23, no overflow. */
  const int32x4_t scaled1 = mve_rounding_divide(
      vqrdmulhq_n_s32(vshlq_r_s32(vaddq_n_s32(x1, a->offset1), a->left_shift), a->multiplier1),
      a->right_shift1);
  const int32x4_t scaled2 = mve_rounding_divide(
      vqrdmulhq_n_s32(vshlq_r_s32(vaddq_n_s32(x2, a->offset2), a->left_shift), a->multiplier2),
      a->right_shift2);
  const int32x4_t sum = mve_rounding_divide(
      vqrdmulhq_n_s32(vaddq_s32(scaled1, scaled2), a->output_multiplier), a->output_right_shift);
  return vminq_s32(vmaxq_s32(vaddq_n_s32(sum, a->output_offset), a->act_min), a->act_max);
}

void utvm_add_s8_mve(const utvm_add_params_t *params, int32_t count, const int8_t *input1,
                     const int8_t *input2, int8_t *output) {
  const mve_add_t a = {params->left_shift,
                       params->input1_offset,
                       params->input2_offset,
                       params->input1_multiplier,
                       params->input2_multiplier,
                       params->output_multiplier,
                       params->output_offset,
                       vdupq_n_s32(params->input1_shift),
                       vdupq_n_s32(params->input2_shift),
                       vdupq_n_s32(params->output_shift),
                       vdupq_n_s32(params->act_min),
                       vdupq_n_s32(params->act_max)};
  const int32_t whole = count / 4;
  const int8_t *in1 = input1;
  const int8_t *in2 = input2;
  int8_t *out = output;
  for (int32_t i = 0; i < whole; ++i) {
    vstrbq_s32(out, mve_add4(&a, vldrbq_s32(in1), vldrbq_s32(in2)));
    in1 = &in1[4];
    in2 = &in2[4];
    out = &out[4];
  }
  const int32_t tail = count - 4 * whole;
  if (tail > 0) {
    const mve_pred16_t p = vctp32q((uint32_t)tail);
    vstrbq_p_s32(out, mve_add4(&a, vldrbq_z_s32(in1, p), vldrbq_z_s32(in2, p)), p);
  }
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without MVE. */
typedef int utvm_kernels_no_mve_t;
#endif

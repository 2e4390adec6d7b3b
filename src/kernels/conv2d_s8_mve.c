/*
 * CONV_2D on MVE: utvm_conv2d_s8_mve (see fast_s8.h, mve_s8.h). utvm_conv2d_s8 takes it on
 * cores with the M-profile Vector Extension (Cortex-M55/M85) for a convolution that is not
 * grouped and brings its scratch (utvm_conv2d_s8_mve_applies); other calls take the portable
 * loops there.
 * Raw int8 values are multiplied with VMLADAVA (16 products per instruction) and the offsets
 * added separately: sum (w + fo)(x + io) = sum w*x + io * sum w + fo * sum x + K * fo * io, all
 * modulo 2^32 as the portable int32 accumulator wraps, so every sum is the portable one; the
 * terms (bias + io * sum w) start the accumulators (io * sum w read from a filter laid out as
 * UTVM_FILTER_MVE_TERMS, else summed per call). The int8 im2col columns of four output
 * positions at a time are built in the scratch, interleaved by 16 values so that one pointer
 * reaches all four, with -io where a window lies in the padding (x + io is 0 there; -io is
 * -128..127): windows inside the input are copied row by row (straight into the layout when Ci
 * is a multiple of 16), 1x1 columns are the input pixels (of a 1x1 convolution of stride 1
 * without padding, four consecutive ones copied a vector at a time), and such a convolution
 * over up to 16 channels reads them in place. Each weight row is then taken once for the four
 * columns (columns of up to 16 values stay in registers over all rows). VMLADAVA accumulates in
 * even registers only: eight accumulators, two rows by four columns, in assembly
 * (conv2d_s8_mve_asm.S; the last row of an odd count one row by four in C).
 * The outputs are requantized four columns per parameter load: 8 channels at a time in
 * assembly (utvm_mve_requant4) when the parameters are per channel and shift right, else 4 in C.
 *
 * Stack: the terms and the four columns' sums of a block of UTVM_KERNELS_MVE_CHANNEL_BLOCK channels
 * (20 bytes per channel: 1280 bytes by default); a column that is not built straight into the
 * layout goes through a MVE_PLAIN_COLUMN-byte buffer. Frames by default (arm-none-eabi-gcc 12.2
 * -fstack-usage on the cortex-m55 preset's flags: -Os with the kernels' -O2): utvm_conv2d_s8_mve
 * 1672 bytes, mve_conv_column 624, mve_conv_column_inside 568, mve_requant_columns 136,
 * utvm_mve_requant4 104 (conv2d_s8_mve_asm.S), mve_gemm4 72, mve_put 56, utvm_mve_gemm4_pairs 56
 * (conv2d_s8_mve_asm.S), mve_gemm4_short 44, utvm_mve_row_sums 24, mve_pixel_columns 16: at most
 * 2352 bytes deep.
 */
#include "fast_s8.h"

#if defined(__ARM_FEATURE_MVE)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mve_s8.h"

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

/* What utvm_mve_requant4 (conv2d_s8_mve_asm.S, at the offsets R_* there) reads. */
typedef struct {
  const int32_t *multipliers; /* of the chunk's first channel */
  const int8_t *shifts;       /* of the chunk's first channel, none above 0 */
  int32_t groups;             /* of 8 channels */
  int32_t out_step;           /* bytes between the columns' outputs */
  int32_t sums_step;          /* bytes between the columns' sums */
  int32_t output_offset;
  int32_t act_min;
  int32_t act_max;
} mve_requant4_t;

typedef char mve_requant4_layout_is_the_assembly_s[
    ((offsetof(mve_requant4_t, multipliers) == 0) && (offsetof(mve_requant4_t, shifts) == 4) &&
     (offsetof(mve_requant4_t, groups) == 8) && (offsetof(mve_requant4_t, out_step) == 12) &&
     (offsetof(mve_requant4_t, sums_step) == 16) &&
     (offsetof(mve_requant4_t, output_offset) == 20) &&
     (offsetof(mve_requant4_t, act_min) == 24) && (offsetof(mve_requant4_t, act_max) == 28))
        ? 1
        : -1];

/* In conv2d_s8_mve_asm.S: mve_requant_columns for four columns and 8 * r->groups channels
 * with per-channel parameters and no left shift. */
void utvm_mve_requant4(const int32_t *sums, int8_t *out, const mve_requant4_t *r);

/* The requantization of a chunk of count channels from channel on: r->groups is the number
 * of whole groups of 8 channels that utvm_mve_requant4 can take (0 when a parameter is shared
 * by all channels or a shift is left). */
static void mve_requant4_prepare(mve_requant4_t *r, const utvm_per_channel_quant_t *quant,
                                 int32_t channel, int32_t count) {
  bool right = quant->count != 1;
  for (int32_t i = 0; right && (i < count); ++i) {
    right = quant->shift[channel + i] <= 0;
  }
  r->multipliers = &quant->multiplier[channel];
  r->shifts = &quant->shift[channel];
  r->groups = right ? (count / 8) : 0;
}

/* The outputs of columns 0..columns-1 of a chunk of count channels from channel on
 * (mve_requant_columns' arguments): the whole groups of 8 channels of four columns in the
 * assembly, the rest in C. */
static void mve_requant_chunk(const int32_t *sums, int32_t columns, int32_t count,
                              int32_t channel, const utvm_per_channel_quant_t *quant,
                              const mve_output_t *o, const mve_requant4_t *r, int8_t *out,
                              int32_t out_step) {
  int32_t done = 0;
  if ((columns == 4) && (r->groups > 0)) {
    utvm_mve_requant4(sums, out, r);
    done = 8 * r->groups;
  }
  if (done < count) {
    mve_requant_columns(&sums[done], columns, count - done, channel + done, quant, o, &out[done],
                        out_step);
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

/* The taps first..end-1 of one filter row of a window, inside the input row src_row, into
 * dst (the row's run of row_length values, whose other taps hold the padding already). */
static inline void mve_conv_row_inside(const mve_conv_t *cv, const int8_t *src_row,
                                       int32_t in_x_origin, int32_t first, int32_t end,
                                       int8_t *dst) {
  const int32_t in_c = cv->input_dims->c;
  const int32_t dilation = cv->params->dilation_w;
  if (dilation == 1) {
    mve_run(&dst[first * in_c], &src_row[(in_x_origin + first) * in_c], cv->pad,
            (end - first) * in_c);
  } else {
    for (int32_t filter_x = first; filter_x < end; ++filter_x) {
      mve_run(&dst[filter_x * in_c], &src_row[(in_x_origin + dilation * filter_x) * in_c],
              cv->pad, in_c);
    }
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
    /* All padding first, then the taps inside over it. */
    int8_t plain[MVE_PLAIN_COLUMN];
    mve_run(plain, NULL, cv->pad, cv->length);
    for (int32_t filter_y = 0; (first < end) && (filter_y < cv->filter_dims->h); ++filter_y) {
      const int32_t in_y = in_y_origin + dilation_h * filter_y;
      if ((in_y >= 0) && (in_y < in->h)) {
        mve_conv_row_inside(cv, &batch_input[in_y * row_bytes], in_x_origin, first, end,
                            &plain[filter_y * cv->row_length]);
      }
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

/* Columns 0..columns-1 of a 1x1 convolution over Ci (a multiple of 16) channels from
 * consecutive input pixels, column j from src + j * Ci. */
static MVE_NOINLINE void mve_pixel_columns(const mve_columns_t *cols, const int8_t *src,
                                           int32_t in_c, int32_t columns) {
  for (int32_t j = 0; j < columns; ++j) {
    const int8_t *pixel = &src[j * in_c];
    int8_t *dst = &cols->base[16 * j];
    for (int32_t k = 0; k < in_c; k += 16) {
      vstrbq_s8(dst, vldrbq_s8(&pixel[k]));
      dst = &dst[64];
    }
  }
}

/* The sums of weight row w with the four interleaved columns at c over blocks (at least 1)
 * whole 16-value blocks and the tail values after them (tail each, 0..15), each started from the
 * row's term t, into sums[j * MVE_BLOCK] for column j: the last row of an odd count (the others
 * go two at a time through utvm_mve_gemm4_pairs). */
static inline void mve_row4(const int8_t *w, const int8_t *c, int32_t blocks, int32_t tail,
                            int32_t t, int32_t *sums) {
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
  if (tail > 0) {
    /* The tails follow the whole blocks, where c0 stopped; the weights' zeroed lanes make the
     * columns' extra lanes add nothing. */
    const mve_pred16_t p = vctp8q((uint32_t)tail);
    const int8x16_t x = vldrbq_z_s8(wp, p);
    a0 = vmladavaq_s8(a0, x, vldrbq_z_s8(c0, p));
    a1 = vmladavaq_s8(a1, x, vldrbq_z_s8(&c0[tail], p));
    a2 = vmladavaq_s8(a2, x, vldrbq_z_s8(&c0[2 * tail], p));
    a3 = vmladavaq_s8(a3, x, vldrbq_z_s8(&c0[3 * tail], p));
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

/* In conv2d_s8_mve_asm.S (assembled with the MVE paths on arm-none-eabi-gcc, the only compiler
 * the M55 presets use): mve_gemm4 without a tail, two rows at a time. */
void utvm_mve_gemm4_pairs(const int8_t *rows, const int8_t *columns, const int32_t *terms,
                          int32_t *sums, int32_t pairs, int32_t blocks, int32_t tail,
                          int32_t stride);

/* sums[j * MVE_BLOCK + i] = terms[i] + sum over k of rows[i * length + k] * column j's value k,
 * for the four interleaved columns j and i < count (wrapping); length > 16. The rows go in
 * pairs through the assembly, the last of an odd count through mve_row4. */
static MVE_NOINLINE void mve_gemm4(const int8_t *rows, int32_t count, const int32_t *terms,
                                   const mve_columns_t *cols, int32_t *sums) {
  const int32_t blocks = cols->whole / 16;
  const int32_t tail = cols->tail;
  const int32_t pairs = count / 2;
  if (pairs > 0) {
    utvm_mve_gemm4_pairs(rows, cols->base, terms, sums, pairs, blocks, tail,
                         (int32_t)(MVE_BLOCK * sizeof(int32_t)));
  }
  if ((count % 2) != 0) {
    const int32_t row = count - 1;
    mve_row4(&rows[row * (cols->whole + tail)], cols->base, blocks, tail, terms[row], &sums[row]);
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
  /* A 1x1 convolution of stride 1 without padding over the whole input reads position p's
   * column at input + p * Ci: in place for at most 16 channels. */
  const bool pixels = pointwise && (params->stride_h == 1) && (params->stride_w == 1) &&
                      (params->pad_top == 0) && (params->pad_left == 0) &&
                      (output_dims->h == input_dims->h) && (output_dims->w == input_dims->w);
  const bool in_place = pixels && (length <= 16);
  /* A filter laid out as UTVM_FILTER_MVE_TERMS keeps each row's io * sum w after its values. */
  const int32_t *laid = (params->filter_layout == (int32_t)UTVM_FILTER_MVE_TERMS)
                            ? mve_laid_terms(filter, out_c * length)
                            : NULL;
  int32_t terms[MVE_BLOCK];
  int32_t sums[4 * MVE_BLOCK];
  mve_requant4_t requant = {NULL,
                            NULL,
                            0,
                            out_c,
                            (int32_t)(MVE_BLOCK * sizeof(int32_t)),
                            params->output_offset,
                            params->act_min,
                            params->act_max};
  for (int32_t chunk = 0; chunk < out_c; chunk += MVE_BLOCK) {
    const int32_t count = ((out_c - chunk) > MVE_BLOCK) ? MVE_BLOCK : (out_c - chunk);
    mve_requant4_prepare(&requant, quant, chunk, count);
    const int8_t *rows = &filter[chunk * length];
    const int32_t *chunk_bias = (bias != NULL) ? &bias[chunk] : NULL;
    if (laid != NULL) {
      mve_laid_out_terms(terms, &laid[chunk], chunk_bias, 0, count);
    } else {
      utvm_mve_row_sums(rows, length, count, terms);
      mve_fold_terms(terms, chunk_bias, params->input_offset, 0, count);
    }
    /* The four columns read (into scratch or registers) before their outputs are written,
     * positions in order: with one chunk a 1x1 convolution may run over its own input
     * (utvm_conv2d_s8_inplace relies on it). */
    for (int32_t first = 0; first < positions; first += 4) {
      const int32_t columns = ((positions - first) < 4) ? (positions - first) : 4;
      if (in_place) {
        /* Past the last position the last column repeats; its sums are not stored. */
        const int8_t *c[4];
        for (int32_t j = 0; j < 4; ++j) {
          c[j] = &input[(first + ((j < columns) ? j : (columns - 1))) * length];
        }
        mve_gemm4_short(rows, count, terms, c, length, sums);
      } else if (pixels && cv.aligned) {
        /* The same four positions' pixels copied into the layout, a vector at a time. */
        mve_pixel_columns(&cv.cols, &input[first * length], length, columns);
        mve_gemm4(rows, count, terms, &cv.cols, sums);
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
      mve_requant_chunk(sums, columns, count, chunk, quant, &o, &requant,
                        &output[first * out_c + chunk], out_c);
    }
  }
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without MVE. */
typedef int utvm_kernels_no_mve_conv2d_t;
#endif

/* CONV_2D and DEPTHWISE_CONV_2D int8 with the output written over the input (one buffer, both
 * from its start).
 *
 * Output rows are computed one at a time (from the last when the output is larger than the
 * input, so that its rows move away from the input rows still to be read), each by the plain kernel on the input rows its window
 * reads (the call's input starts at the window's first real row; the rows above it that the
 * window covers are the model's top padding, passed as pad_top), into a ring of pending rows
 * in scratch. A pending row is copied into the buffer, in order, once no later output row reads
 * an input byte under it. The row count the ring needs follows from the shapes alone
 * (window_pending_rows), so the scratch size is known before the call; the result is the plain
 * kernel's, byte for byte, since every output value is computed from the same input values and
 * the same padding.
 *
 * A 1x1 convolution of stride 1 without padding whose output has no more channels than its
 * input (output position p's bytes then start at or before input position p's) runs instead as
 * one call of utvm_conv2d_s8 with the output over the input, on the cores whose kernel reads
 * every input byte of a block of positions (into its im2col columns in scratch, or registers)
 * before it writes that block's outputs, over all output channels, and takes the positions in
 * order: the DSP and MVE paths when the output channels fit one channel block of both
 * (window_pointwise_direct). The portable loops write a position's channels while they still
 * read its input, and the blocked ones take channel blocks outside positions: those cores keep
 * the bands.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "copy_s8.h"
#include "fast_s8.h"
#include "shape.h"
#include "utvm/kernels.h"
#include "window_rows.h"

/* The kernel's own scratch comes first, then the band and the ring at a multiple of this. */
#define WINDOW_RING_ALIGN 4u
/* Output bytes one kernel call computes, about (a row at least): fewer calls, less of each
 * call's set-up, for a larger band in scratch. */
#define WINDOW_BAND_BYTES 2048

/* Output channels the DSP and MVE paths of CONV_2D compute in one pass over the positions:
 * the smaller of their channel blocks (code planned for either core runs on the other). */
#define WINDOW_ONE_PASS_CHANNELS                                         \
  ((UTVM_KERNELS_CHANNEL_BLOCK < UTVM_KERNELS_MVE_CHANNEL_BLOCK) ? UTVM_KERNELS_CHANNEL_BLOCK \
                                                                 : UTVM_KERNELS_MVE_CHANNEL_BLOCK)

/* True when utvm_conv2d_s8 on core computes this convolution exactly with its output over its
 * input (see the top of this file): a DSP or MVE core, batch 1, a 1x1 filter that is not
 * grouped, stride 1, no padding, and at most as many output channels as input channels and
 * WINDOW_ONE_PASS_CHANNELS. */
static bool window_pointwise_direct(utvm_kernels_core_t core, const utvm_conv2d_params_t *params,
                                    const utvm_dims_t *input_dims, const utvm_dims_t *filter_dims,
                                    const utvm_dims_t *output_dims) {
  return ((core == UTVM_KERNELS_DSP) || (core == UTVM_KERNELS_MVE)) && (params != NULL) &&
         utvm_dims_valid(input_dims) && utvm_dims_valid(filter_dims) &&
         utvm_dims_valid(output_dims) && (input_dims->n == 1) && (output_dims->n == 1) &&
         (filter_dims->h == 1) && (filter_dims->w == 1) && (filter_dims->c == input_dims->c) &&
         (filter_dims->n == output_dims->c) && (params->stride_h == 1) &&
         (params->stride_w == 1) && (params->pad_top == 0) && (params->pad_left == 0) &&
         (output_dims->h == input_dims->h) && (output_dims->w == input_dims->w) &&
         (output_dims->c <= input_dims->c) && (output_dims->c <= WINDOW_ONE_PASS_CHANNELS);
}

/* True when scratch lets utvm_conv2d_s8 take its fast path for a call over its own input:
 * MVE's runs the portable loops without scratch, and the DSP path hands a scratch that is not
 * word-aligned to the blocked loops, neither of which may run over their input. */
static bool window_direct_scratch(const int8_t *scratch) {
#if defined(UTVM_KERNELS_DSP_PATHS)
  return (scratch != NULL) && (((uintptr_t)(const void *)scratch & 3u) == 0u);
#else
  return scratch != NULL;
#endif
}

/* The vertical geometry of a window operator. Every byte offset and row index below fits in
 * int32_t (window_rows_init checks the bounds once), so that the row ring is simulated and run
 * in 32-bit arithmetic. */
typedef struct {
  int32_t in_h;
  int32_t out_h;
  int32_t stride;
  int32_t pad_top;
  int32_t reach;   /* input rows one output row's window spans: (KH - 1) * dilation + 1 */
  int32_t row_in;  /* bytes of an input row */
  int32_t row_out; /* bytes of an output row */
  bool reverse;    /* rows from the last (an output larger than the input), else from row 0 */
  int32_t band;    /* output rows per kernel call */
} window_rows_t;

/* First input row output row y reads (negative in the top padding). */
static int32_t window_first_row(const window_rows_t *g, int32_t y) {
  return (y * g->stride) - g->pad_top;
}

/* The output row computed at position i of the order. */
static int32_t window_row_at(const window_rows_t *g, int32_t i) {
  return g->reverse ? (g->out_h - 1 - i) : i;
}

/* The rows at positions from first_pending on that may be copied into the buffer, in order,
 * once the rows up to position i are computed: their bytes miss every input byte the rows
 * still to compute read (forward: from the next row's first input row on; reverse: up to the
 * next row's last one). Returns the position after them (the first row that waits). */
static int32_t window_free_until(const window_rows_t *g, int32_t first_pending, int32_t i) {
  int32_t j = first_pending;
  if ((i + 1) >= g->out_h) {
    j = i + 1; /* every row computed: all free */
  } else {
    const int32_t first = window_first_row(g, window_row_at(g, i + 1));
    if (!g->reverse) {
      /* a forward order writes no more bytes than the input holds: first <= in_h suffices */
      const int32_t row = (first < 0) ? 0 : ((first > g->in_h) ? g->in_h : first);
      const int32_t limit = row * g->row_in;
      while ((j <= i) && (((j + 1) * g->row_out) <= limit)) {
        ++j;
      }
    } else {
      const int32_t end = first + g->reach;
      const int32_t row = (end > g->in_h) ? g->in_h : ((end < 0) ? 0 : end);
      const int32_t limit = row * g->row_in;
      while ((j <= i) && (((g->out_h - 1 - j) * g->row_out) >= limit)) {
        ++j;
      }
    }
  }
  return j;
}

/* Most output rows pending at once (the ring's rows): after each band is computed, the pending
 * rows that are free and then the band's rows that are free (in order, while none waits before
 * them) go into place; the others wait in the ring. */
static int32_t window_pending_rows(const window_rows_t *g) {
  int32_t first_pending = 0;
  int32_t most = 0;
  for (int32_t i = 0; i < g->out_h; i += g->band) {
    const int32_t end = ((g->out_h - i) > g->band) ? (i + g->band) : g->out_h;
    first_pending = window_free_until(g, first_pending, end - 1);
    const int32_t pending = end - first_pending;
    most = (pending > most) ? pending : most;
  }
  return most;
}

/* Fills g from the shapes; false unless they can run in place: batch 1, every dimension
 * valid, at most UTVM_KERNELS_INPLACE_MAX_ROWS output rows (the ring's size is simulated row
 * by row), the last row's window inside int32_t, the band and the ring no more than half the
 * output. */
static bool window_rows_init(window_rows_t *g, const utvm_dims_t *input_dims,
                             const utvm_dims_t *output_dims, int32_t filter_h, int32_t stride,
                             int32_t dilation, int32_t pad_top, int32_t *pending) {
  if (!utvm_dims_valid(input_dims) || !utvm_dims_valid(output_dims) || (input_dims->n != 1) ||
      (output_dims->n != 1) || (output_dims->h > UTVM_KERNELS_INPLACE_MAX_ROWS) ||
      (filter_h < 1) || (stride < 1) || (dilation < 1) ||
      (pad_top < 0) || !utvm_window_valid(output_dims->h, stride, filter_h, dilation, pad_top) ||
      ((((int64_t)output_dims->h - 1) * stride + ((int64_t)filter_h - 1) * dilation) >=
       (int64_t)INT32_MAX)) {
    return false;
  }
  g->in_h = input_dims->h;
  g->out_h = output_dims->h;
  g->stride = stride;
  g->pad_top = pad_top;
  g->reach = ((filter_h - 1) * dilation) + 1;
  /* n = 1 and valid dimensions: a tensor's bytes fit in int32_t */
  g->row_in = input_dims->w * input_dims->c;
  g->row_out = output_dims->w * output_dims->c;
  g->reverse = ((int64_t)g->row_out * g->out_h) > ((int64_t)g->row_in * g->in_h);
  /* rows per call: about WINDOW_BAND_BYTES of output, at most a quarter of the rows, or half
   * of them for a window one row tall (whose rows seldom wait: fewer calls, each setting up its
   * channels again, in scratch that stays under the model's largest; a third or half for every
   * window raises micro_speech's arena) */
  int32_t band = WINDOW_BAND_BYTES / g->row_out;
  const int32_t most = (g->reach == 1) ? (g->out_h / 2) : (g->out_h / 4);
  band = (band > most) ? most : band;
  g->band = (band < 1) ? 1 : band;
  *pending = window_pending_rows(g);
  return (2 * (*pending + g->band)) <= g->out_h;
}

static size_t window_ring_offset(size_t kernel_scratch) {
  return (kernel_scratch + (WINDOW_RING_ALIGN - 1u)) & ~(size_t)(WINDOW_RING_ALIGN - 1u);
}

/* The input rows output rows y..y+n-1 read: the call's first row, row count and top padding. */
static void window_band_input(const window_rows_t *g, int32_t y, int32_t n, int32_t *row0,
                              int32_t *rows, int32_t *pad_top) {
  const int32_t first = window_first_row(g, y);
  int32_t end = window_first_row(g, y + n - 1) + g->reach;
  end = (end > g->in_h) ? g->in_h : end;
  *row0 = (first < 0) ? 0 : first;
  *pad_top = (first < 0) ? -first : 0;
  *rows = end - *row0;
}

/* Output rows y..y+n-1 of layer into out_rows, reading the buffer data. */
static utvm_err_t window_run_band(const utvm_stage_layer_s8_t *layer, const window_rows_t *g,
                                  int32_t y, int32_t n, const int8_t *data, int8_t *out_rows,
                                  void *kernel_scratch) {
  int32_t row0;
  int32_t rows;
  int32_t pad_top;
  window_band_input(g, y, n, &row0, &rows, &pad_top);
  if (rows < 1) {
    return UTVM_ERR_KERNEL_BAD_SHAPE; /* windows wholly in the padding: TFLite pads less */
  }
  return utvm_window_rows_s8(layer, &data[row0 * g->row_in], rows, pad_top, out_rows, n,
                             kernel_scratch);
}

/* Every output row, a band per kernel call (after kernel_bytes of the kernel's scratch: the
 * band, then the ring of ring_rows waiting rows). */
static utvm_err_t window_run(const utvm_stage_layer_s8_t *layer, const window_rows_t *g,
                             int32_t ring_rows,
                             size_t kernel_bytes, int8_t *data, void *scratch) {
  uint8_t *bytes = (uint8_t *)scratch;
  const size_t row_out = (size_t)g->row_out;
  int8_t *band = (int8_t *)(void *)&bytes[window_ring_offset(kernel_bytes)];
  int8_t *ring = &band[(size_t)g->band * row_out];
  void *kernel_scratch = (kernel_bytes > 0u) ? scratch : NULL;
  int32_t first_pending = 0;
  utvm_err_t err = UTVM_OK;
  for (int32_t i = 0; (i < g->out_h) && (err == UTVM_OK); i += g->band) {
    const int32_t end = ((g->out_h - i) > g->band) ? (i + g->band) : g->out_h;
    const int32_t y0 = g->reverse ? (g->out_h - end) : i; /* the band's first row */
    err = window_run_band(layer, g, y0, end - i, data, band, kernel_scratch);
    const int32_t free_end = window_free_until(g, first_pending, end - 1);
    for (int32_t j = first_pending; (j < end) && (err == UTVM_OK); ++j) {
      const size_t z = (size_t)window_row_at(g, j);
      const int8_t *row = (j < i) ? &ring[(z % (size_t)ring_rows) * row_out]
                                  : &band[(z - (size_t)y0) * row_out];
      if (j < free_end) {
        utvm_copy_s8(&data[z * row_out], row, row_out);
      } else if (j >= i) { /* waits in the ring */
        utvm_copy_s8(&ring[(z % (size_t)ring_rows) * row_out], row, row_out);
      } else {
        /* already waiting */
      }
    }
    first_pending = free_end;
  }
  return err;
}

/* Scratch of an in-place call whose kernel takes kernel_bytes: those rounded up, then the
 * ring; 0 when the shapes cannot run in place. */
static size_t window_scratch(const utvm_dims_t *input_dims, const utvm_dims_t *filter_dims,
                             const utvm_dims_t *output_dims, int32_t stride_h, int32_t dilation_h,
                             int32_t pad_top, size_t kernel_bytes) {
  window_rows_t g;
  int32_t pending = 0;
  if ((filter_dims == NULL) || !window_rows_init(&g, input_dims, output_dims, filter_dims->h,
                                                 stride_h, dilation_h, pad_top, &pending)) {
    return 0u;
  }
  return window_ring_offset(kernel_bytes) + (((size_t)pending + (size_t)g.band) * (size_t)g.row_out);
}

/* Runs the layer of these operands in place over data (its vertical window: stride_h,
 * dilation_h, pad_top). */
static utvm_err_t window_inplace(const utvm_conv2d_params_t *conv,
                                 const utvm_depthwise_conv2d_params_t *depthwise,
                                 const utvm_per_channel_quant_t *quant,
                                 const utvm_dims_t *input_dims, const utvm_dims_t *filter_dims,
                                 const int8_t *filter, const int32_t *bias,
                                 const utvm_dims_t *output_dims, int8_t *data, void *scratch) {
  window_rows_t g;
  int32_t pending = 0;
  if ((input_dims == NULL) || (filter_dims == NULL) || (output_dims == NULL) || (data == NULL) ||
      (scratch == NULL)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const int32_t stride_h = (conv != NULL) ? conv->stride_h : depthwise->stride_h;
  const int32_t dilation_h = (conv != NULL) ? conv->dilation_h : depthwise->dilation_h;
  const int32_t pad_top = (conv != NULL) ? conv->pad_top : depthwise->pad_top;
  if (!window_rows_init(&g, input_dims, output_dims, filter_dims->h, stride_h, dilation_h,
                        pad_top, &pending)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  const utvm_dims_t dims[3] = {*input_dims, *filter_dims, *output_dims};
  const utvm_stage_layer_s8_t layer = {conv, depthwise, quant, dims, filter, bias, NULL};
  const size_t kernel_bytes =
      (conv != NULL) ? utvm_conv2d_s8_scratch_size(input_dims, filter_dims, output_dims)
                     : utvm_depthwise_conv2d_s8_scratch_size(input_dims, filter_dims, output_dims);
  return window_run(&layer, &g, pending, kernel_bytes, data, scratch);
}

size_t utvm_conv2d_s8_inplace_scratch_size_for(utvm_kernels_core_t core,
                                               const utvm_conv2d_params_t *params,
                                               const utvm_dims_t *input_dims,
                                               const utvm_dims_t *filter_dims,
                                               const utvm_dims_t *output_dims) {
  size_t bytes = 0u;
  if (window_pointwise_direct(core, params, input_dims, filter_dims, output_dims)) {
    bytes = utvm_conv2d_s8_scratch_size_for(core, input_dims, filter_dims, output_dims);
  } else if (params != NULL) {
    bytes = window_scratch(input_dims, filter_dims, output_dims, params->stride_h,
                           params->dilation_h, params->pad_top,
                           utvm_conv2d_s8_scratch_size_for(core, input_dims, filter_dims,
                                                           output_dims));
  } else {
    /* no parameters: cannot run */
  }
  return bytes;
}

size_t utvm_conv2d_s8_inplace_scratch_size(const utvm_conv2d_params_t *params,
                                           const utvm_dims_t *input_dims,
                                           const utvm_dims_t *filter_dims,
                                           const utvm_dims_t *output_dims) {
  return utvm_conv2d_s8_inplace_scratch_size_for(UTVM_KERNELS_NATIVE, params, input_dims,
                                                 filter_dims, output_dims);
}

utvm_err_t utvm_conv2d_s8_inplace(const utvm_conv2d_params_t *params,
                                  const utvm_per_channel_quant_t *quant,
                                  const utvm_dims_t *input_dims, const utvm_dims_t *filter_dims,
                                  const int8_t *filter, const int32_t *bias,
                                  const utvm_dims_t *output_dims, int8_t *data, void *scratch) {
  if (params == NULL) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (window_pointwise_direct(UTVM_KERNELS_NATIVE, params, input_dims, filter_dims,
                              output_dims)) {
    if ((data == NULL) || !window_direct_scratch((const int8_t *)scratch)) {
      return UTVM_ERR_KERNEL_BAD_PARAM;
    }
    return utvm_conv2d_s8(params, quant, input_dims, data, filter_dims, filter, bias, output_dims,
                          data, scratch);
  }
  return window_inplace(params, NULL, quant, input_dims, filter_dims, filter, bias, output_dims,
                        data, scratch);
}

size_t utvm_depthwise_conv2d_s8_inplace_scratch_size_for(
    utvm_kernels_core_t core, const utvm_depthwise_conv2d_params_t *params,
    const utvm_dims_t *input_dims, const utvm_dims_t *filter_dims, const utvm_dims_t *output_dims) {
  return (params == NULL)
             ? 0u
             : window_scratch(input_dims, filter_dims, output_dims, params->stride_h,
                              params->dilation_h, params->pad_top,
                              utvm_depthwise_conv2d_s8_scratch_size_for(core, input_dims,
                                                                        filter_dims, output_dims));
}

size_t utvm_depthwise_conv2d_s8_inplace_scratch_size(const utvm_depthwise_conv2d_params_t *params,
                                                     const utvm_dims_t *input_dims,
                                                     const utvm_dims_t *filter_dims,
                                                     const utvm_dims_t *output_dims) {
  return utvm_depthwise_conv2d_s8_inplace_scratch_size_for(UTVM_KERNELS_NATIVE, params,
                                                           input_dims, filter_dims, output_dims);
}

utvm_err_t utvm_depthwise_conv2d_s8_inplace(const utvm_depthwise_conv2d_params_t *params,
                                            const utvm_per_channel_quant_t *quant,
                                            const utvm_dims_t *input_dims,
                                            const utvm_dims_t *filter_dims, const int8_t *filter,
                                            const int32_t *bias, const utvm_dims_t *output_dims,
                                            int8_t *data, void *scratch) {
  if (params == NULL) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  return window_inplace(NULL, params, quant, input_dims, filter_dims, filter, bias, output_dims,
                        data, scratch);
}

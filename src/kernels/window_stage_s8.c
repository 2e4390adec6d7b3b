/* A stage of int8 CONV_2D and DEPTHWISE_CONV_2D layers (each reading the one before) run patch
 * by patch: the stage's last output is computed a band of rows at a time, and every layer
 * computes its own rows a band at a time (ceil(rows / patches) rows per kernel call) only when
 * the layer after it needs them. A layer's rows live in a line buffer in scratch that holds just
 * the rows the next layer's next call reads plus the band being computed: the rows two calls
 * share stay in the buffer (moved to its front when older rows are no longer read), so nothing
 * is computed twice. The stage's input and output are whole tensors. A FULLY_CONNECTED last
 * layer (a tail) takes each band of the layer before as it is computed into int32 accumulators
 * in scratch (its products added in another order, with the same wrapping 32-bit sums) and
 * writes its output once every band is in.
 *
 * One schedule serves both the sizing and the run (stage_walk): the sizing pass records how
 * many rows each line buffer ever holds; the run repeats it with the kernel calls. Each call is
 * the plain kernel on the rows its windows read, the model's top padding passed as the call's
 * pad_top and the bottom edge as the call's input height, so every value equals the whole-tensor
 * kernel's, byte for byte.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "copy_s8.h"
#include "mac_s8.h"
#include "shape.h"
#include "utvm/kernels.h"
#include "window_rows.h"

/* Line buffers start at multiples of this after the kernels' scratch. */
#define STAGE_ALIGN 4u

/* The vertical geometry of one layer. */
typedef struct {
  int32_t in_h;
  int32_t out_h;
  int32_t stride;
  int32_t pad_top;
  int32_t reach;    /* input rows one output row's window spans */
  int32_t band;     /* output rows per kernel call */
  size_t row_in;    /* bytes of an input row */
  size_t row_out;   /* bytes of an output row */
} stage_rows_t;

/* The schedule's state: rows computed and the first row held, per layer. */
typedef struct {
  stage_rows_t g[UTVM_KERNELS_STAGE_MAX_LAYERS];
  int32_t done[UTVM_KERNELS_STAGE_MAX_LAYERS];
  int32_t base[UTVM_KERNELS_STAGE_MAX_LAYERS];
  int32_t cap[UTVM_KERNELS_STAGE_MAX_LAYERS];   /* rows each line buffer holds at most */
  uint32_t n;          /* window layers (the tail is not one) */
  bool tail;           /* a FULLY_CONNECTED after them */
  int32_t units;       /* the tail's outputs */
  utvm_stage_stats_t stats;
} stage_t;

/* What a walk does besides the bookkeeping: nothing (sizing) or the calls and copies. */
typedef struct {
  const utvm_stage_layer_s8_t *layers; /* NULL: sizing only */
  const int8_t *input;
  int8_t *output;
  int8_t *buffers[UTVM_KERNELS_STAGE_MAX_LAYERS];
  void *kernel_scratch;
  int32_t *acc;                        /* the tail's accumulators */
  bool inplace;                        /* output over input: checked at each write */
} stage_run_t;

static bool stage_rows_of(const utvm_stage_shape_t *s, uint32_t patches, stage_rows_t *g) {
  if (!utvm_dims_valid(&s->input) || !utvm_dims_valid(&s->output) || (s->input.n != 1) ||
      (s->output.n != 1) || (s->output.h > UTVM_KERNELS_INPLACE_MAX_ROWS) ||
      (s->input.h > UTVM_KERNELS_INPLACE_MAX_ROWS) || (s->filter_h < 1) ||
      !utvm_window_valid(s->output.h, s->stride_h, s->filter_h, s->dilation_h, s->pad_top)) {
    return false;
  }
  g->in_h = s->input.h;
  g->out_h = s->output.h;
  g->stride = s->stride_h;
  g->pad_top = s->pad_top;
  g->reach = (int32_t)(((int64_t)s->filter_h - 1) * s->dilation_h + 1);
  g->row_in = (size_t)s->input.w * (size_t)s->input.c;
  g->row_out = (size_t)s->output.w * (size_t)s->output.c;
  const uint32_t rows = (uint32_t)s->output.h;
  g->band = (int32_t)((patches >= rows) ? 1u : ((rows + patches - 1u) / patches));
  return true;
}

/* Fills st from the shapes; false unless they form a stage (1..MAX layers, each reading the
 * previous one's output whole, valid windows, patches >= 1). */
static bool stage_init(stage_t *st, const utvm_stage_shape_t *shapes, uint32_t n,
                       uint32_t patches) {
  bool ok = (shapes != NULL) && (n >= 1u) && (n <= UTVM_KERNELS_STAGE_MAX_LAYERS) &&
            (patches >= 1u);
  (void)memset(st, 0, sizeof(*st));
  st->tail = ok && shapes[n - 1u].fully_connected;
  if (st->tail) { /* after a window layer, reading its whole output as one batch */
    const utvm_dims_t *in = &shapes[n - 1u].input;
    const utvm_dims_t *out = &shapes[n - 1u].output;
    ok = (n >= 2u) && utvm_dims_valid(in) && utvm_dims_valid(out) && (out->n == 1) &&
         (out->h == 1) && (out->w == 1) && (in->n == 1) &&
         (((int64_t)in->h * in->w * in->c) <= INT32_MAX);
    st->units = out->c;
    n--;
  }
  for (uint32_t l = 0u; ok && (l < n); l++) {
    ok = !shapes[l].fully_connected && stage_rows_of(&shapes[l], patches, &st->g[l]);
  }
  /* each layer (the tail too) reads the whole output of the one before */
  for (uint32_t l = 1u; ok && (l < (st->tail ? (n + 1u) : n)); l++) {
    const utvm_dims_t *a = &shapes[l - 1u].output;
    const utvm_dims_t *b = &shapes[l].input;
    ok = (a->n == b->n) && (a->h == b->h) && (a->w == b->w) && (a->c == b->c);
  }
  st->n = n;
  return ok;
}

/* First input row of output row y (negative in the top padding). */
static int64_t stage_first_row(const stage_rows_t *g, int64_t y) {
  return (y * (int64_t)g->stride) - (int64_t)g->pad_top;
}

/* The call of layer l on its output rows y0..y1-1: reads input rows row0..end-1. */
static utvm_err_t stage_call(const stage_t *st, stage_run_t *run, uint32_t l, int32_t y0,
                             int32_t y1, int32_t row0, int32_t end) {
  const utvm_stage_layer_s8_t *layer = &run->layers[l];
  const stage_rows_t *g = &st->g[l];
  const int32_t pad_top = (int32_t)((int64_t)row0 - stage_first_row(g, y0));
  const int8_t *in =
      (l == 0u) ? &run->input[(size_t)row0 * g->row_in]
                : &run->buffers[l - 1u][(size_t)(row0 - st->base[l - 1u]) * g->row_in];
  int8_t *out = (((l + 1u) == st->n) && !st->tail)
                    ? &run->output[(size_t)y0 * g->row_out]
                    : &run->buffers[l][(size_t)(y0 - st->base[l]) * g->row_out];
  return utvm_window_rows_s8(layer, in, end - row0, pad_top, out, y1 - y0, run->kernel_scratch);
}

/* The tail takes the last window layer's rows y0..y1-1 (in its band buffer) into its
 * accumulators: they are inputs y0 * row .. y1 * row - 1 of its one batch. */
static void stage_tail_add(const stage_t *st, stage_run_t *run, int32_t y0, int32_t y1) {
  const uint32_t last = st->n - 1u;
  const utvm_stage_layer_s8_t *fc = &run->layers[st->n];
  const int32_t row = (int32_t)st->g[last].row_out;
  const int32_t depth = fc->dims[1].c;
  const int32_t length = (y1 - y0) * row;
  for (int32_t o = 0; o < st->units; ++o) {
    run->acc[o] = utvm_mac_s8(run->acc[o], run->buffers[last], fc->fully_connected->input_offset,
                              &fc->filter[((size_t)o * (size_t)depth) + ((size_t)y0 * (size_t)row)],
                              fc->fully_connected->filter_offset, length);
  }
}

/* Layer l's next band: its rows y0..y1-1 into its line buffer (dropping the rows the next
 * layer no longer reads) or into the output. */
static utvm_err_t stage_band(stage_t *st, stage_run_t *run, uint32_t l, int32_t row0,
                             int32_t end) {
  stage_rows_t *g = &st->g[l];
  const int32_t y0 = st->done[l];
  const int32_t y1 = ((g->out_h - y0) > g->band) ? (y0 + g->band) : g->out_h;
  utvm_err_t err = UTVM_OK;
  const bool banded = ((l + 1u) == st->n) && st->tail; /* a band buffer for the tail */
  if (banded) {
    st->base[l] = y0;
  } else if ((l + 1u) < st->n) {
    int64_t keep = stage_first_row(&st->g[l + 1u], st->done[l + 1u]);
    keep = (keep < st->base[l]) ? st->base[l] : ((keep > y0) ? y0 : keep);
    if (keep > st->base[l]) { /* the rows from keep on move to the buffer's front */
      const size_t moved = (size_t)((int64_t)y0 - keep) * g->row_out;
      if ((run->layers != NULL) && (moved > 0u)) {
        utvm_move_front_s8(run->buffers[l],
                           &run->buffers[l][(size_t)(keep - st->base[l]) * g->row_out], moved);
      }
      st->stats.copied_bytes += (uint64_t)moved;
      st->base[l] = (int32_t)keep;
    }
  } else {
    /* the stage's output */
  }
  if (banded || ((l + 1u) < st->n)) {
    const int32_t held = y1 - st->base[l];
    if (run->layers == NULL) {
      st->cap[l] = (held > st->cap[l]) ? held : st->cap[l];
    } else if (held > st->cap[l]) {
      err = UTVM_ERR_KERNEL_BAD_SHAPE; /* the layers are not those the scratch was sized for */
    } else {
      /* fits */
    }
  } else if (run->inplace) {
    /* the output bytes written must lie under input rows that no call reads any more */
    const stage_rows_t *g0 = &st->g[0];
    int64_t live = (st->done[0] < g0->out_h) ? stage_first_row(g0, st->done[0]) : g0->in_h;
    live = (live < 0) ? 0 : live; /* layer 0's next call (this one, for one layer) reads from it */
    if (((int64_t)y1 * (int64_t)g->row_out) > (live * (int64_t)g0->row_in)) {
      err = UTVM_ERR_KERNEL_BAD_SHAPE;
    }
  } else {
    /* out of place */
  }
  if ((err == UTVM_OK) && (run->layers != NULL)) {
    err = stage_call(st, run, l, y0, y1, row0, end);
    if ((err == UTVM_OK) && ((l + 1u) == st->n) && st->tail) {
      stage_tail_add(st, run, y0, y1);
    }
  }
  st->stats.calls++;
  st->done[l] = y1;
  return err;
}

/* The schedule: the last layer's bands in order; a layer whose next band needs input rows
 * not yet computed hands over to the layer before it, which computes one band and hands back. */
static utvm_err_t stage_walk(stage_t *st, stage_run_t *run) {
  const uint32_t last = st->n - 1u;
  uint64_t steps = 0u;
  uint64_t bound = 0u;
  uint32_t l = last;
  utvm_err_t err = UTVM_OK;
  for (uint32_t k = 0u; k < st->n; k++) {
    st->done[k] = 0;
    st->base[k] = 0;
    bound += (uint64_t)st->g[k].out_h;
  }
  bound = (bound + 1u) * ((uint64_t)st->n + 1u);
  st->stats.calls = 0u;
  st->stats.copied_bytes = 0u;
  while ((err == UTVM_OK) && (st->done[last] < st->g[last].out_h)) {
    const stage_rows_t *g = &st->g[l];
    const int32_t y0 = st->done[l];
    const int32_t y1 = ((g->out_h - y0) > g->band) ? (y0 + g->band) : g->out_h;
    const int64_t first = stage_first_row(g, y0);
    int64_t end = stage_first_row(g, (int64_t)y1 - 1) + g->reach;
    end = (end > (int64_t)g->in_h) ? (int64_t)g->in_h : end;
    const int64_t row0 = (first < 0) ? 0 : first;
    steps++;
    if (steps > bound) {
      err = UTVM_ERR_KERNEL_BAD_SHAPE; /* cannot happen: each pass computes a band */
    } else if (end <= row0) {
      err = UTVM_ERR_KERNEL_BAD_SHAPE; /* windows wholly in the padding: TFLite pads less */
    } else if ((l > 0u) && (st->done[l - 1u] < end)) {
      l--;
    } else {
      err = stage_band(st, run, l, (int32_t)row0, (int32_t)end);
      l = (l < last) ? (l + 1u) : last;
    }
  }
  return err;
}

static size_t stage_align(size_t x) {
  return (x + (STAGE_ALIGN - 1u)) & ~(size_t)(STAGE_ALIGN - 1u);
}

/* Bytes of the line buffers of a sized stage, each aligned (the tail: the last window
 * layer's band buffer, then its accumulators). */
static size_t stage_buffers_size(const stage_t *st) {
  size_t total = 0u;
  const uint32_t buffered = st->tail ? st->n : (st->n - 1u);
  for (uint32_t l = 0u; l < buffered; l++) {
    total += stage_align((size_t)st->cap[l] * st->g[l].row_out);
  }
  return total + (st->tail ? ((size_t)st->units * sizeof(int32_t)) : 0u);
}

/* Sizes st (the walk without calls); false if the schedule fails or in place is impossible. */
static bool stage_size(stage_t *st, bool inplace) {
  stage_run_t run;
  (void)memset(&run, 0, sizeof(run));
  run.inplace = inplace;
  return stage_walk(st, &run) == UTVM_OK;
}

/* The largest kernel scratch of the layers. */
static size_t stage_kernel_scratch(const utvm_stage_shape_t *shapes, uint32_t n) {
  size_t kernel = 0u;
  for (uint32_t l = 0u; l < n; l++) {
    kernel = (shapes[l].kernel_scratch > kernel) ? shapes[l].kernel_scratch : kernel;
  }
  return kernel;
}

utvm_err_t utvm_stage_s8_scratch_size(const utvm_stage_shape_t *shapes, uint32_t n,
                                      uint32_t patches, bool inplace, size_t *bytes) {
  stage_t st;
  if (bytes == NULL) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  *bytes = 0u;
  if (!stage_init(&st, shapes, n, patches) || !stage_size(&st, inplace)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  *bytes = stage_align(stage_kernel_scratch(shapes, n)) + stage_buffers_size(&st);
  return UTVM_OK;
}

utvm_err_t utvm_stage_s8_stats(const utvm_stage_shape_t *shapes, uint32_t n, uint32_t patches,
                               utvm_stage_stats_t *stats) {
  stage_t st;
  if ((stats == NULL) || !stage_init(&st, shapes, n, patches) || !stage_size(&st, false)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  *stats = st.stats;
  stats->buffer_bytes = (uint64_t)stage_buffers_size(&st);
  return UTVM_OK;
}

utvm_err_t utvm_stage_s8_shape(utvm_kernels_core_t core, const utvm_stage_layer_s8_t *layer,
                               utvm_stage_shape_t *shape) {
  const uint32_t kinds = ((layer != NULL) && (layer->conv != NULL) ? 1u : 0u) +
                        ((layer != NULL) && (layer->depthwise != NULL) ? 1u : 0u) +
                        ((layer != NULL) && (layer->fully_connected != NULL) ? 1u : 0u);
  if ((layer == NULL) || (shape == NULL) || (layer->dims == NULL) || (kinds != 1u)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const utvm_dims_t *d = layer->dims;
  (void)memset(shape, 0, sizeof(*shape));
  shape->input = d[0];
  shape->output = d[2];
  shape->filter_h = d[1].h;
  if (layer->fully_connected != NULL) {
    shape->fully_connected = true;
  } else if (layer->conv != NULL) {
    shape->stride_h = layer->conv->stride_h;
    shape->dilation_h = layer->conv->dilation_h;
    shape->pad_top = layer->conv->pad_top;
    shape->kernel_scratch = utvm_conv2d_s8_scratch_size_for(core, &d[0], &d[1], &d[2]);
  } else {
    shape->stride_h = layer->depthwise->stride_h;
    shape->dilation_h = layer->depthwise->dilation_h;
    shape->pad_top = layer->depthwise->pad_top;
    shape->kernel_scratch = utvm_depthwise_conv2d_s8_scratch_size_for(core, &d[0], &d[1], &d[2]);
  }
  return UTVM_OK;
}

/* The tail's operands: parameters in TFLite's ranges, weights {units, 1, 1, depth} in TFLite's
 * layout for its one batch of depth inputs, the quantization's channels. */
static utvm_err_t stage_tail_check(const utvm_stage_layer_s8_t *fc, int32_t units) {
  const utvm_fully_connected_params_t *p = fc->fully_connected;
  const utvm_dims_t *in = &fc->dims[0];
  const utvm_dims_t *f = &fc->dims[1];
  const int64_t depth = (int64_t)in->h * in->w * in->c;
  if ((fc->filter == NULL) || (p->weights_layout != (int32_t)UTVM_FILTER_PLAIN) ||
      !utvm_input_offset_valid(p->input_offset) ||
      !utvm_input_offset_valid(p->filter_offset) || !utvm_zero_point_valid(p->output_offset) ||
      !utvm_act_range_valid(p->act_min, p->act_max) ||
      !utvm_per_channel_quant_valid(fc->quant, units)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  return ((f->n == units) && (f->h == 1) && (f->w == 1) && ((int64_t)f->c == depth) &&
          (((int64_t)units * depth) <= INT32_MAX))
             ? UTVM_OK
             : UTVM_ERR_KERNEL_BAD_SHAPE;
}

utvm_err_t utvm_stage_s8(const utvm_stage_layer_s8_t *layers, uint32_t n, uint32_t patches,
                         const int8_t *input, int8_t *output, void *scratch,
                         size_t scratch_bytes) {
  utvm_stage_shape_t shapes[UTVM_KERNELS_STAGE_MAX_LAYERS];
  stage_t st;
  stage_run_t run;
  if ((layers == NULL) || (input == NULL) || (output == NULL) || (n < 1u) ||
      (n > UTVM_KERNELS_STAGE_MAX_LAYERS)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  for (uint32_t l = 0u; l < n; l++) {
    const utvm_err_t err = utvm_stage_s8_shape(UTVM_KERNELS_NATIVE, &layers[l], &shapes[l]);
    if (err != UTVM_OK) {
      return err;
    }
  }
  const bool inplace = (const void *)input == (const void *)output;
  if (!stage_init(&st, shapes, n, patches) || !stage_size(&st, inplace)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  const size_t kernel = stage_kernel_scratch(shapes, n);
  const size_t needed = stage_align(kernel) + stage_buffers_size(&st);
  if ((scratch_bytes < needed) || ((scratch == NULL) && (needed > 0u))) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  (void)memset(&run, 0, sizeof(run));
  run.layers = layers;
  run.input = input;
  run.output = output;
  run.inplace = inplace;
  uint8_t *bytes = (uint8_t *)scratch;
  run.kernel_scratch = (kernel > 0u) ? scratch : NULL;
  size_t at = stage_align(kernel);
  const uint32_t buffered = st.tail ? st.n : (st.n - 1u);
  for (uint32_t l = 0u; l < buffered; l++) {
    run.buffers[l] = (int8_t *)(void *)&bytes[at];
    at += stage_align((size_t)st.cap[l] * st.g[l].row_out);
  }
  utvm_err_t err = UTVM_OK;
  if (st.tail) {
    err = stage_tail_check(&layers[st.n], st.units);
    run.acc = (int32_t *)(void *)&bytes[at];
    for (int32_t o = 0; o < st.units; ++o) {
      run.acc[o] = 0;
    }
  }
  if (err == UTVM_OK) {
    err = stage_walk(&st, &run);
  }
  if ((err == UTVM_OK) && st.tail) { /* every input in: the tail's outputs */
    const utvm_stage_layer_s8_t *fc = &layers[st.n];
    const utvm_fully_connected_params_t *p = fc->fully_connected;
    for (int32_t o = 0; o < st.units; ++o) {
      output[o] = utvm_mac_output_s8(run.acc[o], fc->bias, fc->quant, o, p->output_offset,
                                     p->act_min, p->act_max);
    }
  }
  return err;
}

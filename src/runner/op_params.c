/*
 * Operator parameters ("op params", utvm/runner.h, docs/KERNEL_FUNCS.md): one walk over the
 * fields of an operator's call serves counting, encoding and decoding, so the three cannot
 * disagree; utvm_op_params_check validates the decoded form and derives its operand tensors.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runner_internal.h"

/* The kernels' parameter structs are plain int32 fields: they travel word by word. */
typedef char op_params_check_conv[(sizeof(utvm_conv2d_params_t) == 40u) ? 1 : -1];
typedef char op_params_check_depthwise[(sizeof(utvm_depthwise_conv2d_params_t) == 44u) ? 1 : -1];
typedef char op_params_check_fc[(sizeof(utvm_fully_connected_params_t) == 20u) ? 1 : -1];
typedef char op_params_check_pool[(sizeof(utvm_pool2d_params_t) == 32u) ? 1 : -1];
typedef char op_params_check_add[(sizeof(utvm_add_params_t) == 48u) ? 1 : -1];
typedef char op_params_check_mul[(sizeof(utvm_mul_params_t) == 28u) ? 1 : -1];
typedef char op_params_check_softmax[(sizeof(utvm_softmax_params_t) == 12u) ? 1 : -1];
typedef char op_params_check_logistic[(sizeof(utvm_logistic_params_t) == 16u) ? 1 : -1];
typedef char op_params_check_requantize[(sizeof(utvm_requantize_params_t) == 16u) ? 1 : -1];
typedef char op_params_check_pad[(sizeof(utvm_pad_params_t) == 36u) ? 1 : -1];
typedef char op_params_check_mean[(sizeof(utvm_mean_params_t) == 16u) ? 1 : -1];
typedef char op_params_check_dims[(sizeof(utvm_dims_t) == 16u) ? 1 : -1];
typedef char op_params_check_shape[(sizeof(utvm_shape_t) == 28u) ? 1 : -1];

/* The kernel functions' names, in kind order (kind 1 first). */
#define OP_KIND_FUNCTION_(A, kind, name) "utvm_k_" #name,
static const char *const kOpKindFunctions[UTVM_OP_KIND_MAX] = {
    UTVM_OP_KIND_LIST(OP_KIND_FUNCTION_, 0)};
#undef OP_KIND_FUNCTION_

const char *utvm_op_kind_function(utvm_op_kind_t kind) {
  const int32_t k = (int32_t)kind;
  return ((k >= 1) && (k <= UTVM_OP_KIND_MAX)) ? kOpKindFunctions[k - 1] : NULL;
}

/* Counting (out and in NULL), writing (out) or reading (in) words. */
typedef struct {
  int32_t *out;
  const int32_t *in;
  uint32_t n;
  uint32_t at;
  bool ok;
  bool in_body; /* the header was read and accepted */
} op_cursor_t;

static void walk_i32(op_cursor_t *c, int32_t *v) {
  if (!c->ok || (c->at >= c->n)) {
    c->ok = false;
    return;
  }
  if (c->out != NULL) {
    c->out[c->at] = *v;
  } else if (c->in != NULL) {
    *v = c->in[c->at];
  } else {
    /* counting */
  }
  c->at++;
}

static void walk_u32(op_cursor_t *c, uint32_t *v) {
  int32_t w = (int32_t)*v;
  walk_i32(c, &w);
  *v = (uint32_t)w;
}

/* A block of bytes / 4 int32 fields (a kernel's parameter struct, dims, a shape). */
static void walk_block(op_cursor_t *c, void *block, size_t bytes) {
  uint8_t *b = (uint8_t *)block;
  size_t i;
  for (i = 0u; (i + 4u) <= bytes; i += 4u) {
    int32_t w = 0;
    (void)memcpy(&w, &b[i], sizeof(w));
    walk_i32(c, &w);
    (void)memcpy(&b[i], &w, sizeof(w));
  }
}

static void walk_float(op_cursor_t *c, float *v) {
  int32_t w = 0;
  (void)memcpy(&w, v, sizeof(w));
  walk_i32(c, &w);
  (void)memcpy(v, &w, sizeof(w));
}

/* The per-channel count, multipliers (one word each) and shifts (four per word, byte j of the
 * array in bits 8*(j%4) of word j/4). Reading points quant's arrays into the words. */
static void walk_quant(op_cursor_t *c, utvm_per_channel_quant_t *q) {
  uint32_t count = (uint32_t)q->count;
  uint32_t i;
  walk_u32(c, &count);
  const uint32_t shift_words = (count + 3u) / 4u;
  if (!c->ok || (count == 0u) || (count > (c->n - c->at)) ||
      (shift_words > ((c->n - c->at) - count))) {
    c->ok = false;
    return;
  }
  if (c->in != NULL) {
    const void *shifts = &c->in[c->at + count];
    q->count = (int32_t)count;
    q->multiplier = &c->in[c->at];
    q->shift = (const int8_t *)shifts;
    /* The bytes after the last shift are 0: one encoding per parameter set. */
    for (i = count; i < (shift_words * 4u); i++) {
      if (q->shift[i] != 0) {
        c->ok = false;
      }
    }
  } else if (c->out != NULL) {
    for (i = 0u; i < count; i++) {
      c->out[c->at + i] = q->multiplier[i];
    }
    for (i = 0u; i < shift_words; i++) {
      uint32_t w = 0u;
      uint32_t b;
      for (b = 0u; b < 4u; b++) {
        const uint32_t j = (i * 4u) + b;
        const uint32_t byte = (j < count) ? ((uint32_t)q->shift[j] & 0xFFu) : 0u;
        w |= byte << (8u * b);
      }
      c->out[c->at + count + i] = (int32_t)w;
    }
  } else {
    /* counting */
  }
  c->at += count + shift_words;
}

/* Every field of p after the header, in the order of docs/KERNEL_FUNCS.md. */
static void walk_body(op_cursor_t *c, utvm_op_params_t *p) {
  uint32_t i;
  switch (p->kind) {
    case UTVM_OP_CONV2D_S8:
    case UTVM_OP_DEPTHWISE_CONV2D_S8:
      walk_block(c, p->dims, sizeof(p->dims));
      if (p->kind == UTVM_OP_CONV2D_S8) {
        walk_block(c, &p->p.conv, sizeof(p->p.conv));
      } else {
        walk_block(c, &p->p.depthwise, sizeof(p->p.depthwise));
      }
      walk_u32(c, &p->has_bias);
      walk_quant(c, &p->quant);
      break;
    case UTVM_OP_FULLY_CONNECTED_S8:
      walk_i32(c, &p->batches);
      walk_i32(c, &p->depth);
      walk_i32(c, &p->units);
      walk_block(c, &p->p.fc, sizeof(p->p.fc));
      walk_u32(c, &p->has_bias);
      walk_quant(c, &p->quant);
      break;
    case UTVM_OP_AVG_POOL2D_S8:
    case UTVM_OP_MAX_POOL2D_S8:
      walk_block(c, &p->dims[0], sizeof(p->dims[0]));
      walk_block(c, &p->dims[1], sizeof(p->dims[1]));
      walk_block(c, &p->p.pool, sizeof(p->p.pool));
      break;
    case UTVM_OP_ADD_S8:
    case UTVM_OP_MUL_S8:
      walk_block(c, p->shapes, 3u * sizeof(p->shapes[0]));
      if (p->kind == UTVM_OP_ADD_S8) {
        walk_block(c, &p->p.add, sizeof(p->p.add));
      } else {
        walk_block(c, &p->p.mul, sizeof(p->p.mul));
      }
      break;
    case UTVM_OP_SOFTMAX_S8:
      walk_i32(c, &p->size);
      walk_i32(c, &p->depth);
      walk_block(c, &p->p.softmax, sizeof(p->p.softmax));
      break;
    case UTVM_OP_LOGISTIC_S8:
    case UTVM_OP_TANH_S8:
      walk_i32(c, &p->size);
      walk_block(c, &p->p.logistic, sizeof(p->p.logistic));
      break;
    case UTVM_OP_PAD_S8:
      walk_block(c, &p->dims[0], sizeof(p->dims[0]));
      walk_block(c, &p->p.pad, sizeof(p->p.pad));
      break;
    case UTVM_OP_CONCATENATION_S8:
      walk_i32(c, &p->axis);
      for (i = 0u; (i <= p->n_inputs) && (i <= UTVM_OP_PARAMS_MAX_INPUTS); i++) {
        walk_block(c, &p->shapes[i], sizeof(p->shapes[i]));
      }
      break;
    case UTVM_OP_MEAN_S8:
      walk_block(c, &p->shapes[0], sizeof(p->shapes[0]));
      walk_i32(c, &p->n_axes);
      walk_block(c, p->axes, sizeof(p->axes));
      walk_block(c, &p->p.mean, sizeof(p->p.mean));
      break;
    case UTVM_OP_QUANTIZE_F32_S8:
    case UTVM_OP_DEQUANTIZE_S8_F32:
      walk_i32(c, &p->size);
      walk_float(c, &p->scale);
      walk_i32(c, &p->zero_point);
      break;
    case UTVM_OP_REQUANTIZE_S8:
      walk_i32(c, &p->size);
      walk_block(c, &p->p.requantize, sizeof(p->p.requantize));
      break;
    case UTVM_OP_RESHAPE:
      walk_u32(c, &p->bytes);
      break;
    default:
      c->ok = false;
      break;
  }
}

/* The header (magic, kind, word count, inputs, scratch) then the body. */
static void walk_all(op_cursor_t *c, utvm_op_params_t *p, uint32_t *total) {
  int32_t magic = UTVM_OP_PARAMS_MAGIC;
  int32_t kind = (int32_t)p->kind;
  walk_i32(c, &magic);
  walk_i32(c, &kind);
  walk_u32(c, total);
  walk_u32(c, &p->n_inputs);
  walk_u32(c, &p->scratch_bytes);
  if (c->ok && (c->in != NULL)) {
    if ((magic != UTVM_OP_PARAMS_MAGIC) || (kind < 1) || (kind > UTVM_OP_KIND_MAX) ||
        (p->n_inputs == 0u) || (p->n_inputs > UTVM_OP_PARAMS_MAX_INPUTS)) {
      c->ok = false;
    } else {
      p->kind = (utvm_op_kind_t)kind;
    }
  }
  if (c->ok) {
    c->in_body = true;
    walk_body(c, p);
  }
}

/* ---- Checks ---- */

static bool count_fits(uint64_t elements, uint64_t size, uint32_t *bytes) {
  const uint64_t total = elements * size;
  if ((elements == 0u) || (elements > UTVM_OP_PARAMS_MAX_ELEMENTS) ||
      (total > UTVM_OP_PARAMS_MAX_ELEMENTS)) {
    return false;
  }
  *bytes = (uint32_t)total;
  return true;
}

static bool dims_elements(const utvm_dims_t *d, uint64_t *elements) {
  const int32_t v[4] = {d->n, d->h, d->w, d->c};
  uint64_t e = 1u;
  uint32_t i;
  for (i = 0u; i < 4u; i++) {
    if ((v[i] < 1) || (e > UTVM_OP_PARAMS_MAX_ELEMENTS)) {
      return false;
    }
    e *= (uint64_t)v[i];
  }
  *elements = e;
  return e <= UTVM_OP_PARAMS_MAX_ELEMENTS;
}

/* Rank 0..6, dimensions >= 1 up to the rank and 0 past it. */
static bool shape_elements(const utvm_shape_t *s, uint64_t *elements) {
  uint64_t e = 1u;
  int32_t i;
  if ((s->rank < 0) || (s->rank > UTVM_KERNEL_MAX_RANK)) {
    return false;
  }
  for (i = 0; i < UTVM_KERNEL_MAX_RANK; i++) {
    if (i < s->rank) {
      if ((s->dims[i] < 1) || (e > UTVM_OP_PARAMS_MAX_ELEMENTS)) {
        return false;
      }
      e *= (uint64_t)s->dims[i];
    } else if (s->dims[i] != 0) {
      return false;
    } else {
      /* unused dimension */
    }
  }
  *elements = e;
  return e <= UTVM_OP_PARAMS_MAX_ELEMENTS;
}

static bool set_operand(utvm_op_params_t *p, uint32_t i, utvm_op_type_t type, uint64_t elements) {
  const uint64_t size = ((type == UTVM_OP_TYPE_INT8) || (type == UTVM_OP_TYPE_ANY)) ? 1u : 4u;
  p->operands[i].type = type;
  return count_fits(elements, size, &p->operands[i].bytes);
}

static bool quant_fits(const utvm_op_params_t *p, int32_t channels) {
  int32_t i;
  const utvm_per_channel_quant_t *q = &p->quant;
  if ((q->multiplier == NULL) || (q->shift == NULL) ||
      ((q->count != 1) && (q->count != channels))) {
    return false;
  }
  for (i = 0; i < q->count; i++) {
    if ((q->shift[i] < -31) || (q->shift[i] > 31)) {
      return false;
    }
  }
  return true;
}

/* CONV_2D, DEPTHWISE_CONV_2D: input, filter, [bias], output. */
static const char *check_conv(utvm_op_params_t *p) {
  uint64_t e[3] = {0u, 0u, 0u};
  uint32_t i;
  for (i = 0u; i < 3u; i++) {
    if (!dims_elements(&p->dims[i], &e[i])) {
      return "a dimension is < 1 or a tensor too large";
    }
  }
  if ((p->has_bias > 1u) || (p->n_inputs != (2u + p->has_bias))) {
    return "inputs are not input, filter and optional bias";
  }
  if (!quant_fits(p, p->dims[2].c)) {
    return "channel count or a shift out of range";
  }
  (void)set_operand(p, 0u, UTVM_OP_TYPE_INT8, e[0]);
  (void)set_operand(p, 1u, UTVM_OP_TYPE_INT8, e[1]);
  if (p->has_bias != 0u) {
    (void)set_operand(p, 2u, UTVM_OP_TYPE_INT32, (uint64_t)p->dims[2].c);
  }
  (void)set_operand(p, p->n_inputs, UTVM_OP_TYPE_INT8, e[2]);
  return NULL;
}

static const char *check_fc(utvm_op_params_t *p) {
  if ((p->batches < 1) || (p->depth < 1) || (p->units < 1)) {
    return "a size is < 1";
  }
  if ((p->has_bias > 1u) || (p->n_inputs != (2u + p->has_bias))) {
    return "inputs are not input, filter and optional bias";
  }
  if (!quant_fits(p, p->units)) {
    return "channel count or a shift out of range";
  }
  if (!set_operand(p, 0u, UTVM_OP_TYPE_INT8, (uint64_t)p->batches * (uint64_t)p->depth) ||
      !set_operand(p, 1u, UTVM_OP_TYPE_INT8, (uint64_t)p->units * (uint64_t)p->depth) ||
      !set_operand(p, p->n_inputs, UTVM_OP_TYPE_INT8,
                   (uint64_t)p->batches * (uint64_t)p->units)) {
    return "a tensor is too large";
  }
  if (p->has_bias != 0u) {
    (void)set_operand(p, 2u, UTVM_OP_TYPE_INT32, (uint64_t)p->units);
  }
  return NULL;
}

static const char *check_pad(utvm_op_params_t *p) {
  uint64_t e = 0u;
  uint64_t out = 1u;
  const int32_t in[4] = {p->dims[0].n, p->dims[0].h, p->dims[0].w, p->dims[0].c};
  uint32_t i;
  if (!dims_elements(&p->dims[0], &e)) {
    return "a dimension is < 1 or a tensor too large";
  }
  for (i = 0u; i < 4u; i++) {
    if ((p->p.pad.before[i] < 0) || (p->p.pad.after[i] < 0)) {
      return "a padding is negative";
    }
    out *= (uint64_t)in[i] + (uint64_t)p->p.pad.before[i] + (uint64_t)p->p.pad.after[i];
    if (out > UTVM_OP_PARAMS_MAX_ELEMENTS) {
      return "the output is too large";
    }
  }
  (void)set_operand(p, 0u, UTVM_OP_TYPE_INT8, e);
  (void)set_operand(p, 1u, UTVM_OP_TYPE_INT8, out);
  return NULL;
}

static const char *check_concat(utvm_op_params_t *p) {
  uint32_t i;
  const int32_t rank = p->shapes[p->n_inputs].rank;
  /* The rank is checked first: -rank of a hostile INT32_MIN would overflow. */
  if ((rank < 1) || (rank > UTVM_KERNEL_MAX_RANK) || (p->axis < -rank) || (p->axis >= rank)) {
    return "axis outside the output's rank";
  }
  for (i = 0u; i <= p->n_inputs; i++) {
    uint64_t e = 0u;
    if (!shape_elements(&p->shapes[i], &e)) {
      return "a shape is invalid or too large";
    }
    (void)set_operand(p, i, UTVM_OP_TYPE_INT8, e);
  }
  return NULL;
}

static const char *check_mean(utvm_op_params_t *p) {
  bool reduced[UTVM_KERNEL_MAX_RANK] = {false, false, false, false, false, false};
  uint64_t e = 0u;
  uint64_t out = 1u;
  int32_t i;
  const int32_t rank = p->shapes[0].rank;
  if (!shape_elements(&p->shapes[0], &e)) {
    return "the input shape is invalid or too large";
  }
  if ((p->n_axes < 0) || (p->n_axes > UTVM_KERNEL_MAX_RANK)) {
    return "axis count out of range";
  }
  for (i = 0; i < UTVM_KERNEL_MAX_RANK; i++) {
    const int32_t a = p->axes[i];
    if (i >= p->n_axes) {
      if (a != 0) {
        return "an unused axis is not 0";
      }
    } else if ((a < -rank) || (a >= rank)) {
      return "an axis is outside the input's rank";
    } else {
      reduced[(a < 0) ? (a + rank) : a] = true;
    }
  }
  for (i = 0; i < rank; i++) {
    out *= reduced[i] ? 1u : (uint64_t)p->shapes[0].dims[i];
  }
  (void)set_operand(p, 0u, UTVM_OP_TYPE_INT8, e);
  (void)set_operand(p, 1u, UTVM_OP_TYPE_INT8, out);
  return NULL;
}

/* The operators of n_inputs inputs; NULL when the count fits the kind. */
static const char *check_inputs(const utvm_op_params_t *p) {
  uint32_t want = 1u;
  switch (p->kind) {
    case UTVM_OP_CONV2D_S8:
    case UTVM_OP_DEPTHWISE_CONV2D_S8:
    case UTVM_OP_FULLY_CONNECTED_S8:
    case UTVM_OP_CONCATENATION_S8:
      want = p->n_inputs; /* checked with the body */
      break;
    case UTVM_OP_ADD_S8:
    case UTVM_OP_MUL_S8:
      want = 2u;
      break;
    default:
      break;
  }
  return ((p->n_inputs == want) && (p->n_inputs >= 1u) &&
          (p->n_inputs <= UTVM_OP_PARAMS_MAX_INPUTS))
             ? NULL
             : "wrong number of input tensors for the kind";
}

static const char *check_body(utvm_op_params_t *p) {
  uint64_t e[3] = {0u, 0u, 0u};
  uint32_t i;
  const char *why = NULL;
  switch (p->kind) {
    case UTVM_OP_CONV2D_S8:
    case UTVM_OP_DEPTHWISE_CONV2D_S8:
      why = check_conv(p);
      break;
    case UTVM_OP_FULLY_CONNECTED_S8:
      why = check_fc(p);
      break;
    case UTVM_OP_AVG_POOL2D_S8:
    case UTVM_OP_MAX_POOL2D_S8:
      if (!dims_elements(&p->dims[0], &e[0]) || !dims_elements(&p->dims[1], &e[1])) {
        why = "a dimension is < 1 or a tensor too large";
      } else {
        (void)set_operand(p, 0u, UTVM_OP_TYPE_INT8, e[0]);
        (void)set_operand(p, 1u, UTVM_OP_TYPE_INT8, e[1]);
      }
      break;
    case UTVM_OP_ADD_S8:
    case UTVM_OP_MUL_S8:
      for (i = 0u; (i < 3u) && (why == NULL); i++) {
        if (!shape_elements(&p->shapes[i], &e[i])) {
          why = "a shape is invalid or too large";
        } else {
          (void)set_operand(p, i, UTVM_OP_TYPE_INT8, e[i]);
        }
      }
      break;
    case UTVM_OP_SOFTMAX_S8:
      if ((p->size < 1) || (p->depth < 1) || ((p->size % p->depth) != 0)) {
        why = "size is not rows of depth elements";
      }
      break;
    case UTVM_OP_PAD_S8:
      why = check_pad(p);
      break;
    case UTVM_OP_CONCATENATION_S8:
      why = check_concat(p);
      break;
    case UTVM_OP_MEAN_S8:
      why = check_mean(p);
      break;
    case UTVM_OP_QUANTIZE_F32_S8:
    case UTVM_OP_DEQUANTIZE_S8_F32:
      if (!(p->scale > 0.0f) || !(p->scale <= 3.4028235e38f)) {
        why = "scale is not finite and > 0";
      }
      break;
    case UTVM_OP_RESHAPE:
      if (!set_operand(p, 0u, UTVM_OP_TYPE_ANY, (uint64_t)p->bytes)) {
        why = "byte count out of range";
      }
      p->operands[1] = p->operands[0];
      break;
    default:
      break;
  }
  return why;
}

/* Element-wise kinds: size elements in and out. */
static const char *check_elementwise(utvm_op_params_t *p) {
  utvm_op_type_t in = UTVM_OP_TYPE_INT8;
  utvm_op_type_t out = UTVM_OP_TYPE_INT8;
  if (p->kind == UTVM_OP_QUANTIZE_F32_S8) {
    in = UTVM_OP_TYPE_FLOAT32;
  }
  if (p->kind == UTVM_OP_DEQUANTIZE_S8_F32) {
    out = UTVM_OP_TYPE_FLOAT32;
  }
  if ((p->size < 1) || !set_operand(p, 0u, in, (uint64_t)p->size) ||
      !set_operand(p, 1u, out, (uint64_t)p->size)) {
    return "size out of range";
  }
  return NULL;
}

utvm_err_t utvm_op_params_check(utvm_op_params_t *p, const char **why) {
  const char *problem = NULL;
  if ((p == NULL) || (why == NULL)) {
    return UTVM_ERR_KFUNC_PARAMS;
  }
  if (((int32_t)p->kind < 1) || ((int32_t)p->kind > UTVM_OP_KIND_MAX)) {
    problem = "unknown kind";
  } else if (p->scratch_bytes > UTVM_OP_PARAMS_MAX_ELEMENTS) {
    problem = "scratch too large";
  } else {
    problem = check_inputs(p);
  }
  if (problem == NULL) {
    (void)memset(p->operands, 0, sizeof(p->operands));
    switch (p->kind) {
      case UTVM_OP_SOFTMAX_S8:
      case UTVM_OP_LOGISTIC_S8:
      case UTVM_OP_TANH_S8:
      case UTVM_OP_QUANTIZE_F32_S8:
      case UTVM_OP_REQUANTIZE_S8:
      case UTVM_OP_DEQUANTIZE_S8_F32:
        problem = check_elementwise(p);
        break;
      default:
        break;
    }
  }
  if (problem == NULL) {
    problem = check_body(p);
  }
  *why = (problem == NULL) ? "" : problem;
  return (problem == NULL) ? UTVM_OK : UTVM_ERR_KFUNC_PARAMS;
}

uint32_t utvm_op_params_words(const utvm_op_params_t *p) {
  op_cursor_t c;
  utvm_op_params_t copy;
  uint32_t total = 0u;
  if (p == NULL) {
    return 0u;
  }
  copy = *p;
  c.out = NULL;
  c.in = NULL;
  c.n = UINT32_MAX;
  c.at = 0u;
  c.ok = true;
  c.in_body = false;
  walk_all(&c, &copy, &total);
  return c.ok ? c.at : 0u;
}

utvm_err_t utvm_op_params_encode(utvm_op_params_t *p, int32_t *words, uint32_t cap,
                                 uint32_t *n_words, const char **why) {
  op_cursor_t c;
  if ((words == NULL) || (n_words == NULL) || (why == NULL)) {
    return UTVM_ERR_KFUNC_PARAMS;
  }
  utvm_err_t err = utvm_op_params_check(p, why);
  if (err != UTVM_OK) {
    return err;
  }
  uint32_t total = utvm_op_params_words(p);
  if (total > cap) {
    *why = "buffer too small";
    return UTVM_ERR_KFUNC_CAPACITY;
  }
  c.out = words;
  c.in = NULL;
  c.n = total;
  c.at = 0u;
  c.ok = true;
  c.in_body = false;
  walk_all(&c, p, &total);
  *n_words = total;
  return UTVM_OK;
}

utvm_err_t utvm_op_params_decode(const int32_t *words, uint32_t n_words, utvm_op_params_t *p,
                                 const char **why) {
  op_cursor_t c;
  uint32_t total = 0u;
  if ((words == NULL) || (p == NULL) || (why == NULL)) {
    return UTVM_ERR_KFUNC_PARAMS;
  }
  (void)memset(p, 0, sizeof(*p));
  c.out = NULL;
  c.in = words;
  c.n = n_words;
  c.at = 0u;
  c.ok = true;
  c.in_body = false;
  walk_all(&c, p, &total);
  if (!c.ok) {
    *why = c.in_body ? "truncated or bad body" : "truncated or bad header";
    return UTVM_ERR_KFUNC_PARAMS;
  }
  if ((total != n_words) || (c.at != n_words)) {
    *why = "word count differs from the tensor's";
    return UTVM_ERR_KFUNC_PARAMS;
  }
  return utvm_op_params_check(p, why);
}

/*
 * Operator parameters ("op params", utvm/ops.h, docs/KERNEL_FUNCS.md): one walk over the
 * fields of a call serves counting, encoding and decoding, so the three cannot disagree. The
 * header is walked here, the body by the kind's descriptor (its operator file);
 * utvm_op_params_check validates the decoded form and derives its operand tensors.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ops_internal.h"

void ops_walk_i32(utvm_op_walk_t *w, int32_t *v) {
  if (!w->ok || (w->at >= w->n)) {
    w->ok = false;
    return;
  }
  if (w->out != NULL) {
    w->out[w->at] = *v;
  } else if (w->in != NULL) {
    *v = w->in[w->at];
  } else {
    /* counting */
  }
  w->at++;
}

void ops_walk_u32(utvm_op_walk_t *w, uint32_t *v) {
  int32_t word = (int32_t)*v;
  ops_walk_i32(w, &word);
  *v = (uint32_t)word;
}

void ops_walk_block(utvm_op_walk_t *w, void *block, size_t bytes) {
  uint8_t *b = (uint8_t *)block;
  size_t i;
  for (i = 0u; (i + 4u) <= bytes; i += 4u) {
    int32_t word = 0;
    (void)memcpy(&word, &b[i], sizeof(word));
    ops_walk_i32(w, &word);
    (void)memcpy(&b[i], &word, sizeof(word));
  }
}

void ops_walk_table(utvm_op_walk_t *w, const int8_t **table) {
  uint32_t i;
  if (!w->ok || (w->at > w->n) || ((w->n - w->at) < 64u)) {
    w->ok = false;
    return;
  }
  if (w->in != NULL) {
    const void *bytes = &w->in[w->at];
    *table = (const int8_t *)bytes;
  } else if (w->out != NULL) {
    for (i = 0u; i < 64u; i++) {
      uint32_t word = 0u;
      uint32_t b;
      for (b = 0u; b < 4u; b++) {
        word |= ((uint32_t)(*table)[(i * 4u) + b] & 0xFFu) << (8u * b);
      }
      w->out[w->at + i] = (int32_t)word;
    }
  } else {
    /* counting */
  }
  w->at += 64u;
}

void ops_walk_float(utvm_op_walk_t *w, float *v) {
  int32_t word = 0;
  (void)memcpy(&word, v, sizeof(word));
  ops_walk_i32(w, &word);
  (void)memcpy(v, &word, sizeof(word));
}

/* The count, multipliers (one word each) and shifts (four per word, byte j of the array in
 * bits 8*(j%4) of word j/4). */
void ops_walk_quant(utvm_op_walk_t *w, utvm_per_channel_quant_t *q) {
  uint32_t count = (uint32_t)q->count;
  uint32_t i;
  ops_walk_u32(w, &count);
  const uint32_t shift_words = (count + 3u) / 4u;
  if (!w->ok || (count == 0u) || (count > (w->n - w->at)) ||
      (shift_words > ((w->n - w->at) - count))) {
    w->ok = false;
    return;
  }
  if (w->in != NULL) {
    const void *shifts = &w->in[w->at + count];
    q->count = (int32_t)count;
    q->multiplier = &w->in[w->at];
    q->shift = (const int8_t *)shifts;
    /* The bytes after the last shift are 0: one encoding per parameter set. */
    for (i = count; i < (shift_words * 4u); i++) {
      if (q->shift[i] != 0) {
        w->ok = false;
      }
    }
  } else if (w->out != NULL) {
    for (i = 0u; i < count; i++) {
      w->out[w->at + i] = q->multiplier[i];
    }
    for (i = 0u; i < shift_words; i++) {
      uint32_t word = 0u;
      uint32_t b;
      for (b = 0u; b < 4u; b++) {
        const uint32_t j = (i * 4u) + b;
        const uint32_t byte = (j < count) ? ((uint32_t)q->shift[j] & 0xFFu) : 0u;
        word |= byte << (8u * b);
      }
      w->out[w->at + count + i] = (int32_t)word;
    }
  } else {
    /* counting */
  }
  w->at += count + shift_words;
}

void ops_walk_laid_out(utvm_op_walk_t *w, void *params, size_t fields_bytes, int32_t *layout,
                       uint32_t since) {
  ops_walk_block(w, params, fields_bytes);
  if (w->version >= since) {
    ops_walk_i32(w, layout);
  } else if (w->in != NULL) {
    *layout = 0;
  } else if (*layout != 0) {
    w->ok = false; /* an older version has TFLite's layout only */
  } else {
    /* an older version: no layout word */
  }
}

/* Word 0 of version: versions 1 and 2 their own, any other the current one. */
static int32_t magic_of(uint32_t version) {
  int32_t magic = UTVM_OP_PARAMS_MAGIC;
  if (version == 2u) {
    magic = UTVM_OP_PARAMS_MAGIC_V2;
  } else if (version == 1u) {
    magic = UTVM_OP_PARAMS_MAGIC_V1;
  } else {
    /* the current version */
  }
  return magic;
}

/* The header (magic, kind, word count, inputs, scratch) then the kind's body; *in_body tells
 * whether the header was accepted. */
static void walk_all(utvm_op_walk_t *w, utvm_op_params_t *p, uint32_t *total, bool *in_body) {
  int32_t magic = magic_of(p->version);
  int32_t kind = (int32_t)p->kind;
  w->version = (uint32_t)magic & 0xFFFFu;
  ops_walk_i32(w, &magic);
  ops_walk_i32(w, &kind);
  ops_walk_u32(w, total);
  ops_walk_u32(w, &p->n_inputs);
  ops_walk_u32(w, &p->scratch_bytes);
  const utvm_op_kind_info_t *info = utvm_op_kind_info((utvm_op_kind_t)kind);
  if (w->ok && (w->in != NULL)) {
    if ((magic_of((uint32_t)magic & 0xFFFFu) != magic) ||
        (info == NULL) || (p->n_inputs == 0u) || (p->n_inputs > UTVM_OP_PARAMS_MAX_INPUTS)) {
      w->ok = false;
    } else {
      p->kind = (utvm_op_kind_t)kind;
      w->version = (uint32_t)magic & 0xFFFFu;
      p->version = w->version;
    }
  }
  if (w->ok && (info == NULL)) {
    w->ok = false;
  }
  *in_body = w->ok;
  if (w->ok) {
    info->walk(w, p);
  }
}

/* ---- Checks shared by the kinds ---- */

static bool count_fits(uint64_t elements, uint64_t size, uint32_t *bytes) {
  const uint64_t total = elements * size;
  if ((elements == 0u) || (elements > UTVM_OP_PARAMS_MAX_ELEMENTS) ||
      (total > UTVM_OP_PARAMS_MAX_ELEMENTS)) {
    return false;
  }
  *bytes = (uint32_t)total;
  return true;
}

bool ops_dims_elements(const utvm_dims_t *d, uint64_t *elements) {
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

bool ops_shape_elements(const utvm_shape_t *s, uint64_t *elements) {
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

int32_t ops_type_size(int32_t type) {
  int32_t size = 0;
  if (type == (int32_t)UTVM_OP_TYPE_INT8) {
    size = 1;
  } else if (type == (int32_t)UTVM_OP_TYPE_INT16) {
    size = 2;
  } else if ((type == (int32_t)UTVM_OP_TYPE_INT32) || (type == (int32_t)UTVM_OP_TYPE_FLOAT32)) {
    size = 4;
  } else if (type == (int32_t)UTVM_OP_TYPE_INT64) {
    size = 8;
  } else {
    size = 0;
  }
  return size;
}

bool ops_set_operand(utvm_op_params_t *p, uint32_t i, utvm_op_type_t type, uint64_t elements) {
  const int32_t size = (type == UTVM_OP_TYPE_ANY) ? 1 : ops_type_size((int32_t)type);
  p->operands[i].type = type;
  return (size > 0) && count_fits(elements, (uint64_t)size, &p->operands[i].bytes);
}

bool ops_quant_fits(const utvm_op_params_t *p, int32_t channels) {
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

const char *ops_check_n_inputs(const utvm_op_params_t *p, uint32_t n) {
  return (p->n_inputs == n) ? NULL : "wrong number of input tensors for the kind";
}

const char *ops_check_elementwise(utvm_op_params_t *p, utvm_op_type_t in, utvm_op_type_t out) {
  const char *why = ops_check_n_inputs(p, 1u);
  if ((why == NULL) && ((p->size < 1) || !ops_set_operand(p, 0u, in, (uint64_t)p->size) ||
                        !ops_set_operand(p, 1u, out, (uint64_t)p->size))) {
    why = "size out of range";
  }
  return why;
}

/* ---- The format ---- */

/* A walk writing to out, reading from in, or counting (both NULL), over n words. */
static utvm_op_walk_t walk_start(int32_t *out, const int32_t *in, uint32_t n) {
  utvm_op_walk_t w;
  w.out = out;
  w.in = in;
  w.n = n;
  w.at = 0u;
  w.ok = true;
  w.version = (uint32_t)UTVM_OP_PARAMS_MAGIC & 0xFFFFu; /* walk_all sets the one walked */
  return w;
}

utvm_err_t utvm_op_params_check(utvm_op_params_t *p, const char **why) {
  const char *problem = NULL;
  if ((p == NULL) || (why == NULL)) {
    return UTVM_ERR_KFUNC_PARAMS;
  }
  const utvm_op_kind_info_t *info = utvm_op_kind_info(p->kind);
  if (info == NULL) {
    problem = "unknown kind";
  } else if (p->scratch_bytes > UTVM_OP_PARAMS_MAX_ELEMENTS) {
    problem = "scratch too large";
  } else if ((p->n_inputs < 1u) || (p->n_inputs > UTVM_OP_PARAMS_MAX_INPUTS)) {
    problem = "wrong number of input tensors for the kind";
  } else {
    (void)memset(p->operands, 0, sizeof(p->operands));
    problem = info->check(p);
  }
  *why = (problem == NULL) ? "" : problem;
  return (problem == NULL) ? UTVM_OK : UTVM_ERR_KFUNC_PARAMS;
}

uint32_t utvm_op_params_words(const utvm_op_params_t *p) {
  utvm_op_walk_t w;
  utvm_op_params_t copy;
  uint32_t total = 0u;
  bool in_body = false;
  if (p == NULL) {
    return 0u;
  }
  copy = *p;
  w = walk_start(NULL, NULL, UINT32_MAX);
  walk_all(&w, &copy, &total, &in_body);
  return w.ok ? w.at : 0u;
}

utvm_err_t utvm_op_params_encode(utvm_op_params_t *p, int32_t *words, uint32_t cap,
                                 uint32_t *n_words, const char **why) {
  utvm_op_walk_t w;
  bool in_body = false;
  if ((words == NULL) || (n_words == NULL) || (why == NULL)) {
    return UTVM_ERR_KFUNC_PARAMS;
  }
  utvm_err_t err = utvm_op_params_check(p, why);
  if (err != UTVM_OK) {
    return err;
  }
  uint32_t total = utvm_op_params_words(p);
  if (total == 0u) {
    *why = "a layout the format version cannot carry";
    return UTVM_ERR_KFUNC_PARAMS;
  }
  if (total > cap) {
    *why = "buffer too small";
    return UTVM_ERR_KFUNC_CAPACITY;
  }
  w = walk_start(words, NULL, total);
  walk_all(&w, p, &total, &in_body);
  *n_words = total;
  return UTVM_OK;
}

utvm_err_t utvm_op_params_decode(const int32_t *words, uint32_t n_words, utvm_op_params_t *p,
                                 const char **why) {
  utvm_op_walk_t w;
  uint32_t total = 0u;
  bool in_body = false;
  if ((words == NULL) || (p == NULL) || (why == NULL)) {
    return UTVM_ERR_KFUNC_PARAMS;
  }
  (void)memset(p, 0, sizeof(*p));
  w = walk_start(NULL, words, n_words);
  walk_all(&w, p, &total, &in_body);
  if (!w.ok) {
    *why = in_body ? "truncated or bad body" : "truncated or bad header";
    return UTVM_ERR_KFUNC_PARAMS;
  }
  if ((total != n_words) || (w.at != n_words)) {
    *why = "word count differs from the tensor's";
    return UTVM_ERR_KFUNC_PARAMS;
  }
  return utvm_op_params_check(p, why);
}

/*
 * A tiny front-to-back FlatBuffers writer for tests: builds small TFLite models from a spec, so
 * the tests can make one precise defect at a time (an unsupported operator, a bad index, an
 * unknown activation...). Parents are written before their children, so every offset points
 * forward, as FlatBuffers requires; vtables are written just before their tables.
 */
#ifndef UTVM_TFLITE_BUILDER_H
#define UTVM_TFLITE_BUILDER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define TB_MAX 24u

typedef struct {
  uint32_t rank;
  int32_t dims[8];
  int32_t type;          /* TensorType */
  uint32_t buffer;
  const char *name;
  uint32_t n_scales;     /* 0: no quantization table */
  float scales[4];
  uint32_t n_zps;
  int64_t zps[4];
  int32_t qdim;
  bool sparse;
  bool variable;
} tb_tensor_t;

typedef struct {
  uint8_t id;
  uint8_t width;         /* 1, 4 */
  uint32_t value;
} tb_field_t;

typedef struct {
  uint32_t opcode_index;
  uint32_t n_in;
  int32_t in[TB_MAX];
  uint32_t n_out;
  int32_t out[4];
  uint8_t options_type;  /* BuiltinOptions union type */
  uint32_t n_fields;     /* fields of the options table (written when options_type != 0) */
  tb_field_t fields[8];
} tb_op_t;

typedef struct {
  uint32_t version;
  uint32_t n_subgraphs;
  uint32_t n_codes;
  int8_t deprecated[4];
  int32_t builtin[4];
  const char *custom[4];
  uint32_t n_tensors;
  tb_tensor_t t[TB_MAX];
  uint32_t n_buffers;
  uint32_t buffer_len[TB_MAX]; /* bytes of data, 0: none */
  const void *buffer_data[TB_MAX]; /* those bytes, NULL: a pattern */
  uint32_t n_inputs;
  int32_t inputs[2];
  uint32_t n_outputs;
  int32_t outputs[2];
  uint32_t n_ops;
  tb_op_t op[4];
} tb_spec_t;

typedef struct {
  uint8_t *d;
  uint32_t n;
  uint32_t cap;
  uint32_t shape_pos;    /* position of tensor 0's shape vector (its length field) */
} tb_t;

static inline void tb_put(tb_t *b, uint64_t v, uint32_t w) {
  uint32_t i;
  for (i = 0u; i < w && b->n < b->cap; i++) {
    b->d[b->n++] = (uint8_t)(v >> (8u * i));
  }
}

static inline void tb_align(tb_t *b, uint32_t a, uint32_t extra) {
  while ((b->n + extra) % a != 0u && b->n < b->cap) {
    b->d[b->n++] = 0u;
  }
}

static inline void tb_patch(tb_t *b, uint32_t at, uint32_t target) {
  uint32_t rel = target - at;
  memcpy(&b->d[at], &rel, 4); /* the tests run on little-endian hosts */
}

/* A table of fields 0..nf-1 (width 0: absent); returns its position, fields' positions in fpos. */
static inline uint32_t tb_table(tb_t *b, uint32_t nf, const uint8_t *w, const uint64_t *v,
                                uint32_t *fpos) {
  uint32_t fo[16];
  uint32_t off = 4u;
  uint32_t i;
  uint32_t vt;
  uint32_t t;
  for (i = 0u; i < nf; i++) {
    fo[i] = 0u;
    if (w[i] != 0u) {
      off = (off + w[i] - 1u) & ~(uint32_t)(w[i] - 1u);
      fo[i] = off;
      off += w[i];
    }
  }
  tb_align(b, 2u, 0u);
  vt = b->n;
  tb_put(b, 4u + 2u * nf, 2u);
  tb_put(b, off, 2u);
  for (i = 0u; i < nf; i++) {
    tb_put(b, fo[i], 2u);
  }
  tb_align(b, 8u, 0u);
  t = b->n;
  tb_put(b, t - vt, 4u);
  while (b->n < t + off && b->n < b->cap) {
    b->d[b->n++] = 0u;
  }
  for (i = 0u; i < nf; i++) {
    fpos[i] = 0u;
    if (w[i] != 0u) {
      uint32_t k;
      fpos[i] = t + fo[i];
      for (k = 0u; k < w[i]; k++) {
        b->d[t + fo[i] + k] = (uint8_t)(v[i] >> (8u * k));
      }
    }
  }
  return t;
}

/* A vector of n elements of w bytes from vals (NULL: zeros); returns the length's position. */
static inline uint32_t tb_vec(tb_t *b, uint32_t w, uint32_t n, const void *vals, uint32_t elem_align) {
  uint32_t pos;
  tb_align(b, 4u, 0u);
  tb_align(b, elem_align, 4u);
  pos = b->n;
  tb_put(b, n, 4u);
  if (vals != NULL) {
    uint32_t i;
    for (i = 0u; i < n * w && b->n < b->cap; i++) {
      b->d[b->n++] = ((const uint8_t *)vals)[i];
    }
  } else {
    uint32_t i;
    for (i = 0u; i < n * w && b->n < b->cap; i++) {
      b->d[b->n++] = (uint8_t)(i * 7u + 1u);
    }
  }
  return pos;
}

static inline uint32_t tb_string(tb_t *b, const char *s) {
  uint32_t pos = tb_vec(b, 1u, (uint32_t)strlen(s), s, 1u);
  tb_put(b, 0u, 1u);
  return pos;
}

/* Builds spec into d[cap]; returns the size. */
static inline uint32_t tb_build(const tb_spec_t *s, uint8_t *d, uint32_t cap, tb_t *out) {
  tb_t bb = {d, 0u, cap, 0u};
  tb_t *b = &bb;
  uint32_t mf[5];
  uint32_t sf[4];
  uint32_t v;
  uint32_t i;
  uint32_t k;
  uint8_t w[16];
  uint64_t val[16];
  uint32_t model;
  uint32_t sg;
  memset(d, 0, cap);
  tb_put(b, 0u, 4u);
  tb_put(b, 0x334C4654u, 4u); /* "TFL3" */
  /* Model: version, operator_codes, subgraphs, description, buffers */
  memset(w, 0, sizeof(w));
  memset(val, 0, sizeof(val));
  w[0] = 4; val[0] = s->version; w[1] = 4; w[2] = 4; w[3] = 4; w[4] = 4;
  model = tb_table(b, 5u, w, val, mf);
  tb_patch(b, 0u, model);
  /* operator codes */
  v = tb_vec(b, 4u, s->n_codes, NULL, 1u);
  tb_patch(b, mf[1], v);
  for (i = 0u; i < s->n_codes; i++) {
    uint32_t cf[4];
    uint32_t t;
    memset(w, 0, sizeof(w));
    w[0] = 1; val[0] = (uint8_t)s->deprecated[i];
    w[1] = (s->custom[i] != NULL) ? 4u : 0u;
    w[2] = 4; val[2] = 1;
    w[3] = 4; val[3] = (uint32_t)s->builtin[i];
    t = tb_table(b, 4u, w, val, cf);
    tb_patch(b, v + 4u + 4u * i, t);
    if (s->custom[i] != NULL) {
      tb_patch(b, cf[1], tb_string(b, s->custom[i]));
    }
  }
  /* subgraphs: every entry points to the same subgraph */
  v = tb_vec(b, 4u, s->n_subgraphs, NULL, 1u);
  tb_patch(b, mf[2], v);
  memset(w, 0, sizeof(w));
  w[0] = 4; w[1] = 4; w[2] = 4; w[3] = 4;
  sg = tb_table(b, 4u, w, val, sf);
  for (i = 0u; i < s->n_subgraphs; i++) {
    tb_patch(b, v + 4u + 4u * i, sg);
  }
  /* tensors */
  v = tb_vec(b, 4u, s->n_tensors, NULL, 1u);
  tb_patch(b, sf[0], v);
  for (i = 0u; i < s->n_tensors; i++) {
    const tb_tensor_t *t = &s->t[i];
    uint32_t tf[7];
    uint32_t tt;
    memset(w, 0, sizeof(w));
    memset(val, 0, sizeof(val));
    w[0] = 4; w[1] = 1; val[1] = (uint8_t)t->type; w[2] = 4; val[2] = t->buffer; w[3] = 4;
    w[4] = (t->n_scales != 0u || t->n_zps != 0u) ? 4u : 0u;
    w[5] = t->variable ? 1u : 0u; val[5] = 1u;
    w[6] = t->sparse ? 4u : 0u;
    tt = tb_table(b, 7u, w, val, tf);
    tb_patch(b, v + 4u + 4u * i, tt);
    {
      uint32_t sp = tb_vec(b, 4u, t->rank, t->dims, 1u);
      if (i == 0u) {
        b->shape_pos = sp;
      }
      tb_patch(b, tf[0], sp);
    }
    tb_patch(b, tf[3], tb_string(b, (t->name != NULL) ? t->name : "t"));
    if (w[4] != 0u) {
      uint32_t qf[7];
      uint32_t q;
      memset(w, 0, sizeof(w));
      memset(val, 0, sizeof(val));
      w[2] = 4; w[3] = 4; w[6] = 4; val[6] = (uint32_t)t->qdim;
      q = tb_table(b, 7u, w, val, qf);
      tb_patch(b, tf[4], q);
      tb_patch(b, qf[2], tb_vec(b, 4u, t->n_scales, t->scales, 1u));
      tb_patch(b, qf[3], tb_vec(b, 8u, t->n_zps, t->zps, 8u));
    }
    if (t->sparse) {
      uint32_t dummy[1];
      tb_patch(b, tf[6], tb_table(b, 0u, w, val, dummy));
    }
  }
  tb_patch(b, sf[1], tb_vec(b, 4u, s->n_inputs, s->inputs, 1u));
  tb_patch(b, sf[2], tb_vec(b, 4u, s->n_outputs, s->outputs, 1u));
  /* operators */
  v = tb_vec(b, 4u, s->n_ops, NULL, 1u);
  tb_patch(b, sf[3], v);
  for (i = 0u; i < s->n_ops; i++) {
    const tb_op_t *o = &s->op[i];
    uint32_t of[5];
    uint32_t ot;
    memset(w, 0, sizeof(w));
    memset(val, 0, sizeof(val));
    w[0] = 4; val[0] = o->opcode_index; w[1] = 4; w[2] = 4;
    w[3] = 1; val[3] = o->options_type;
    w[4] = (o->options_type != 0u) ? 4u : 0u;
    ot = tb_table(b, 5u, w, val, of);
    tb_patch(b, v + 4u + 4u * i, ot);
    tb_patch(b, of[1], tb_vec(b, 4u, o->n_in, o->in, 1u));
    tb_patch(b, of[2], tb_vec(b, 4u, o->n_out, o->out, 1u));
    if (o->options_type != 0u) {
      uint32_t nf = 0u;
      uint32_t pf[16];
      memset(w, 0, sizeof(w));
      memset(val, 0, sizeof(val));
      for (k = 0u; k < o->n_fields; k++) {
        w[o->fields[k].id] = o->fields[k].width;
        val[o->fields[k].id] = o->fields[k].value;
        if (o->fields[k].id + 1u > nf) {
          nf = o->fields[k].id + 1u;
        }
      }
      tb_patch(b, of[4], tb_table(b, nf, w, val, pf));
    }
  }
  tb_patch(b, mf[3], tb_string(b, "utvm test model"));
  /* buffers */
  v = tb_vec(b, 4u, s->n_buffers, NULL, 1u);
  tb_patch(b, mf[4], v);
  for (i = 0u; i < s->n_buffers; i++) {
    uint32_t bf[1];
    uint32_t bt;
    memset(w, 0, sizeof(w));
    w[0] = (s->buffer_len[i] != 0u) ? 4u : 0u;
    bt = tb_table(b, 1u, w, val, bf);
    tb_patch(b, v + 4u + 4u * i, bt);
    if (s->buffer_len[i] != 0u) {
      tb_patch(b, bf[0], tb_vec(b, 1u, s->buffer_len[i], s->buffer_data[i], 16u));
    }
  }
  if (out != NULL) {
    *out = bb;
  }
  return b->n;
}

/* A valid model: t0 int8[1,4] (input) -> FULLY_CONNECTED(t0, t1 weights int8[2,4], no bias)
 * -> t2 int8[1,2] (output). */
static inline void tb_default(tb_spec_t *s) {
  memset(s, 0, sizeof(*s));
  s->version = 3u;
  s->n_subgraphs = 1u;
  s->n_codes = 1u;
  s->deprecated[0] = 9;
  s->builtin[0] = 9;
  s->n_tensors = 3u;
  s->t[0] = (tb_tensor_t){2u, {1, 4}, 9, 0u, "in", 1u, {0.5f}, 1u, {-3}, 0, false, false};
  s->t[1] = (tb_tensor_t){2u, {2, 4}, 9, 1u, "weights", 2u, {0.25f, 0.125f}, 1u, {0}, 0, false, false};
  s->t[2] = (tb_tensor_t){2u, {1, 2}, 9, 0u, "out", 1u, {0.75f}, 1u, {5}, 0, false, false};
  s->n_buffers = 2u;
  s->buffer_len[1] = 8u;
  s->n_inputs = 1u;
  s->inputs[0] = 0;
  s->n_outputs = 1u;
  s->outputs[0] = 2;
  s->n_ops = 1u;
  s->op[0] = (tb_op_t){0u, 3u, {0, 1, -1}, 1u, {2}, 8u, 1u, {{0u, 1u, 1u}}};
}

#endif /* UTVM_TFLITE_BUILDER_H */

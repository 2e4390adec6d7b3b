/*
 * Internal to src/model: the checked FlatBuffers access of the TFLite reader (fb_*) and the
 * reading context whose error text every failed check writes (rd_*). Every fb_* read checks the
 * position against the file size first, so a hostile file can make a read fail but never read
 * outside [data, data + size).
 */
#ifndef UTVM_MODEL_FB_H
#define UTVM_MODEL_FB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/model.h"

typedef char fb_check_float_is_32_bits[(sizeof(float) == 4u) ? 1 : -1];

/* The reading context: the file, the error text, and what is being read (for the text). */
typedef struct {
  const uint8_t *data;
  uint32_t size;
  utvm_text_t text;
  const char *what;   /* "tensor", "buffer", ... ; NULL: the model itself */
  uint32_t index;
  int32_t code;       /* an operator's builtin code, when coded */
  bool coded;         /* the entity is an operator whose code is known */
  const char *field;  /* the field being read, or NULL */
} rd_t;

/* A verified table; vsize 0 stands for an absent table (every field takes its default). */
typedef struct {
  uint32_t pos;
  uint32_t vt;
  uint32_t vsize;
  uint32_t tsize;
} fb_table_t;

/* A verified vector: position of its first element and its length (0, 0 when absent). */
typedef struct {
  uint32_t pos;
  uint32_t len;
} fb_vec_t;

/* Saved and restored around a nested decode (an operator reading a tensor's rank). */
typedef struct {
  const char *what;
  uint32_t index;
  int32_t code;
  bool coded;
  const char *field;
} rd_where_t;

/* ---- little-endian loads and reinterpretations (callers have checked the bounds) ---- */

static inline uint32_t ld16(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}

static inline uint32_t ld32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t ld64(const uint8_t *p) {
  return (uint64_t)ld32(p) | ((uint64_t)ld32(&p[4]) << 32);
}

/* Two's complement reinterpretation without implementation-defined conversions. */
static inline int32_t to_i32(uint32_t u) {
  const uint32_t inverse = ~u;
  return (u <= 0x7FFFFFFFu) ? (int32_t)u : (-(int32_t)inverse - 1);
}

static inline int64_t to_i64(uint64_t u) {
  const uint64_t inverse = ~u;
  return (u <= 0x7FFFFFFFFFFFFFFFu) ? (int64_t)u : (-(int64_t)inverse - 1);
}

static inline float to_f32(uint32_t bits) {
  union {
    uint32_t u;
    float f;
  } pun;
  pun.u = bits;
  return pun.f;
}

/* finite and > 0 */
static inline bool positive_finite(uint32_t bits) {
  return (bits & 0x80000000u) == 0u && (bits & 0x7F800000u) != 0x7F800000u && bits != 0u;
}

/* Starts the error text with "<what> <index> (<NAME>): <field>: ". */
void rd_err_begin(rd_t *r);

utvm_err_t rd_fail(rd_t *r, utvm_err_t code, const char *msg);

/* "<prefix><what> at offset 0x<pos> of length <len> exceeds file size <size>" */
utvm_err_t rd_fail_extent(rd_t *r, const char *what, uint32_t pos, uint64_t len);

/* "<prefix><msg><value><tail>" */
utvm_err_t rd_fail_i32(rd_t *r, utvm_err_t code, const char *msg, int32_t value,
                       const char *tail);

/* "<prefix><msg> <index> out of range (<count> <things>)" */
utvm_err_t rd_fail_index(rd_t *r, const char *msg, int64_t index, uint32_t count,
                         const char *things);

/* Verifies the table at pos and its vtable. */
utvm_err_t fb_table_at(rd_t *r, uint32_t pos, fb_table_t *t);

/* Makes t the absent table (every field takes its default). */
void fb_absent_table(fb_table_t *t);

/* The position of field id (width bytes) in the file, or 0 when absent. */
utvm_err_t fb_field(rd_t *r, const fb_table_t *t, uint32_t id, uint32_t width,
                    uint32_t *pos);

/* A scalar field of width 1, 2, 4 or 8 bytes as raw little-endian bits, or def when absent. */
utvm_err_t fb_scalar(rd_t *r, const fb_table_t *t, uint32_t id, uint32_t width,
                     uint64_t def, uint64_t *out);

/* An int32 / uint32 field, def (0 for uint32) when absent. */
utvm_err_t fb_i32(rd_t *r, const fb_table_t *t, uint32_t id, int32_t def, int32_t *out);
utvm_err_t fb_u32(rd_t *r, const fb_table_t *t, uint32_t id, uint32_t *out);

/* A byte field: unsigned (enums as ubyte, bools) */
utvm_err_t fb_u8(rd_t *r, const fb_table_t *t, uint32_t id, uint32_t def, uint32_t *out);

/* A signed byte field (TFLite's byte enums: TensorType, deprecated_builtin_code) */
utvm_err_t fb_i8(rd_t *r, const fb_table_t *t, uint32_t id, int32_t *out);

/* A bool field, def when absent. */
utvm_err_t fb_bool(rd_t *r, const fb_table_t *t, uint32_t id, bool def, bool *out);

/* The target of an offset field (table, vector or string), 0 when absent. Every target starts
 * with 4 bytes (vtable offset or length), so they are checked here. */
utvm_err_t fb_ref(rd_t *r, const fb_table_t *t, uint32_t id, uint32_t *target);

/* A table field; absent gives the absent table. */
utvm_err_t fb_subtable(rd_t *r, const fb_table_t *t, uint32_t id, fb_table_t *sub);

/* A vector field of elem-byte elements; absent gives the empty vector. */
utvm_err_t fb_vector(rd_t *r, const fb_table_t *t, uint32_t id, uint32_t elem,
                     fb_vec_t *v);

/* A string field: "" when absent; verified NUL-terminated inside the file. */
utvm_err_t fb_string(rd_t *r, const fb_table_t *t, uint32_t id, const char **s);

/* Element i (< v->len) of a vector of tables. */
utvm_err_t fb_vec_table(rd_t *r, const fb_vec_t *v, uint32_t i, fb_table_t *t);

/* Element i (< len) of a verified vector of int32. */
int32_t fb_vec_i32(const rd_t *r, uint32_t pos, uint32_t i);

/* Starts reading m's file with the error text in err[cap] (err may be NULL: no text). */
void rd_init(rd_t *r, const utvm_model_t *m, char *err, size_t cap);

/* Names what is read next in error texts: "<what> <index>" ("tensor 3"). */
void rd_at(rd_t *r, const char *what, uint32_t index);

/* Saves and restores what is being read, around a nested decode. */
rd_where_t rd_save(const rd_t *r);
void rd_restore(rd_t *r, const rd_where_t *w);

/* A vector stored in m (position of its first element) as a reader vector. */
fb_vec_t fb_vec_of(uint32_t pos, uint32_t len);

#endif /* UTVM_MODEL_FB_H */

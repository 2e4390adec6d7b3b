/* The checked FlatBuffers access and the reading context of the TFLite reader (fb.h). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fb.h"

/* ---- error texts ---- */

/* Starts the error text with "<what> <index> (<NAME>): <field>: ". */
void rd_err_begin(rd_t *r) {
  utvm_text_t *t = &r->text;
  if (t->buf == NULL || t->len != 0u) {
    return;
  }
  if (r->what != NULL) {
    if (r->coded) {
      utvm_model_text_operator(t, r->index, r->code);
    } else {
      utvm_text_str(t, r->what);
      utvm_text_str(t, " ");
      utvm_text_u64(t, r->index);
      utvm_text_str(t, ": ");
    }
  }
  if (r->field != NULL) {
    utvm_text_str(t, r->field);
    utvm_text_str(t, ": ");
  }
}

utvm_err_t rd_fail(rd_t *r, utvm_err_t code, const char *msg) {
  rd_err_begin(r);
  utvm_text_str(&r->text, msg);
  return code;
}

/* "<prefix><what> at offset 0x<pos> of length <len> exceeds file size <size>" */
utvm_err_t rd_fail_extent(rd_t *r, const char *what, uint32_t pos, uint64_t len) {
  rd_err_begin(r);
  utvm_text_str(&r->text, "file truncated: ");
  utvm_text_str(&r->text, what);
  utvm_text_str(&r->text, " at offset ");
  utvm_text_hex(&r->text, pos);
  utvm_text_str(&r->text, " of length ");
  if (len > 0xFFFFFFFFu) {
    utvm_text_str(&r->text, ">4G");
  } else {
    utvm_text_u64(&r->text, (uint32_t)len);
  }
  utvm_text_str(&r->text, " exceeds file size ");
  utvm_text_u64(&r->text, r->size);
  return UTVM_ERR_MODEL_TRUNCATED;
}

/* "<prefix><msg><value><tail>" */
utvm_err_t rd_fail_i32(rd_t *r, utvm_err_t code, const char *msg, int32_t value,
                       const char *tail) {
  rd_err_begin(r);
  utvm_text_str(&r->text, msg);
  utvm_text_i64(&r->text, value);
  utvm_text_str(&r->text, tail);
  return code;
}

/* "<prefix><msg> <index> out of range (<count> <things>)" */
utvm_err_t rd_fail_index(rd_t *r, const char *msg, int64_t index, uint32_t count,
                         const char *things) {
  rd_err_begin(r);
  utvm_text_str(&r->text, msg);
  utvm_text_str(&r->text, " ");
  if (index < INT32_MIN || index > INT32_MAX) {
    utvm_text_str(&r->text, "(out of int32)");
  } else {
    utvm_text_i64(&r->text, (int32_t)index);
  }
  utvm_text_str(&r->text, " out of range (model has ");
  utvm_text_u64(&r->text, count);
  utvm_text_str(&r->text, " ");
  utvm_text_str(&r->text, things);
  utvm_text_str(&r->text, ")");
  return UTVM_ERR_MODEL_INDEX;
}

/* ---- verified FlatBuffers access ---- */

/* Verifies the table at pos and its vtable. */
utvm_err_t fb_table_at(rd_t *r, uint32_t pos, fb_table_t *t) {
  int64_t vt;
  uint32_t vsize;
  uint32_t tsize;
  if (pos > r->size - 4u) {
    return rd_fail_extent(r, "table", pos, 4u);
  }
  vt = (int64_t)pos - (int64_t)to_i32(ld32(&r->data[pos]));
  if (vt < 0 || vt > (int64_t)r->size - 4) {
    rd_err_begin(r);
    utvm_text_str(&r->text, "table at offset ");
    utvm_text_hex(&r->text, pos);
    utvm_text_str(&r->text, " has its vtable outside the file");
    return UTVM_ERR_MODEL_MALFORMED;
  }
  vsize = ld16(&r->data[vt]);
  tsize = ld16(&r->data[vt + 2]);
  if (vsize < 4u || (vsize & 1u) != 0u || tsize < 4u) {
    rd_err_begin(r);
    utvm_text_str(&r->text, "vtable at offset ");
    utvm_text_hex(&r->text, (uint32_t)vt);
    utvm_text_str(&r->text, " is malformed");
    return UTVM_ERR_MODEL_MALFORMED;
  }
  if (vsize > r->size - (uint32_t)vt) {
    return rd_fail_extent(r, "vtable", (uint32_t)vt, vsize);
  }
  if (tsize > r->size - pos) {
    return rd_fail_extent(r, "table", pos, tsize);
  }
  t->pos = pos;
  t->vt = (uint32_t)vt;
  t->vsize = vsize;
  t->tsize = tsize;
  return UTVM_OK;
}

void fb_absent_table(fb_table_t *t) {
  t->pos = 0u;
  t->vt = 0u;
  t->vsize = 0u;
  t->tsize = 0u;
}

/* The position of field id (width bytes) in the file, or 0 when absent. */
utvm_err_t fb_field(rd_t *r, const fb_table_t *t, uint32_t id, uint32_t width,
                    uint32_t *pos) {
  uint32_t off = 0u;
  *pos = 0u;
  if (4u + 2u * id + 2u <= t->vsize) {
    off = ld16(&r->data[t->vt + 4u + 2u * id]);
  }
  if (off == 0u) {
    return UTVM_OK;
  }
  if (off < 4u || off + width > t->tsize) {
    rd_err_begin(r);
    utvm_text_str(&r->text, "field ");
    utvm_text_u64(&r->text, id);
    utvm_text_str(&r->text, " lies outside its table at offset ");
    utvm_text_hex(&r->text, t->pos);
    return UTVM_ERR_MODEL_MALFORMED;
  }
  *pos = t->pos + off;
  return UTVM_OK;
}

/* A scalar field of width 1, 2, 4 or 8 bytes as raw little-endian bits, or def when absent. */
utvm_err_t fb_scalar(rd_t *r, const fb_table_t *t, uint32_t id, uint32_t width,
                     uint64_t def, uint64_t *out) {
  uint32_t pos;
  utvm_err_t err = fb_field(r, t, id, width, &pos);
  *out = def;
  if (err != UTVM_OK || pos == 0u) {
    return err;
  }
  if (width == 1u) {
    *out = r->data[pos];
  } else if (width == 2u) {
    *out = ld16(&r->data[pos]);
  } else if (width == 4u) {
    *out = ld32(&r->data[pos]);
  } else {
    *out = ld64(&r->data[pos]);
  }
  return UTVM_OK;
}

utvm_err_t fb_i32(rd_t *r, const fb_table_t *t, uint32_t id, int32_t def, int32_t *out) {
  uint64_t v;
  utvm_err_t err = fb_scalar(r, t, id, 4u, (uint64_t)(uint32_t)def, &v);
  *out = to_i32((uint32_t)v);
  return err;
}

utvm_err_t fb_u32(rd_t *r, const fb_table_t *t, uint32_t id, uint32_t *out) {
  uint64_t v;
  utvm_err_t err = fb_scalar(r, t, id, 4u, 0u, &v);
  *out = (uint32_t)v;
  return err;
}

/* A byte field: unsigned (enums as ubyte, bools) */
utvm_err_t fb_u8(rd_t *r, const fb_table_t *t, uint32_t id, uint32_t def, uint32_t *out) {
  uint64_t v;
  utvm_err_t err = fb_scalar(r, t, id, 1u, def, &v);
  *out = (uint32_t)v;
  return err;
}

/* A signed byte field (TFLite's byte enums: TensorType, deprecated_builtin_code) */
utvm_err_t fb_i8(rd_t *r, const fb_table_t *t, uint32_t id, int32_t *out) {
  uint32_t v;
  utvm_err_t err = fb_u8(r, t, id, 0u, &v);
  *out = (v < 128u) ? (int32_t)v : ((int32_t)v - 256);
  return err;
}

utvm_err_t fb_bool(rd_t *r, const fb_table_t *t, uint32_t id, bool def, bool *out) {
  uint32_t v;
  utvm_err_t err = fb_u8(r, t, id, def ? 1u : 0u, &v);
  *out = v != 0u;
  return err;
}

/* The target of an offset field (table, vector or string), 0 when absent. Every target starts
 * with 4 bytes (vtable offset or length), so they are checked here. */
utvm_err_t fb_ref(rd_t *r, const fb_table_t *t, uint32_t id, uint32_t *target) {
  uint32_t pos;
  uint64_t to;
  utvm_err_t err = fb_field(r, t, id, 4u, &pos);
  *target = 0u;
  if (err != UTVM_OK || pos == 0u) {
    return err;
  }
  to = (uint64_t)pos + ld32(&r->data[pos]);
  if (to > (uint64_t)r->size - 4u) {
    rd_err_begin(r);
    utvm_text_str(&r->text, "file truncated: offset at ");
    utvm_text_hex(&r->text, pos);
    utvm_text_str(&r->text, " points past file size ");
    utvm_text_u64(&r->text, r->size);
    return UTVM_ERR_MODEL_TRUNCATED;
  }
  *target = (uint32_t)to;
  return UTVM_OK;
}

/* A table field; absent gives the absent table. */
utvm_err_t fb_subtable(rd_t *r, const fb_table_t *t, uint32_t id, fb_table_t *sub) {
  uint32_t target;
  utvm_err_t err = fb_ref(r, t, id, &target);
  fb_absent_table(sub);
  if (err != UTVM_OK || target == 0u) {
    return err;
  }
  return fb_table_at(r, target, sub);
}

/* A vector field of elem-byte elements; absent gives the empty vector. */
utvm_err_t fb_vector(rd_t *r, const fb_table_t *t, uint32_t id, uint32_t elem,
                     fb_vec_t *v) {
  uint32_t target;
  uint64_t bytes;
  utvm_err_t err = fb_ref(r, t, id, &target);
  v->pos = 0u;
  v->len = 0u;
  if (err != UTVM_OK || target == 0u) {
    return err;
  }
  bytes = (uint64_t)ld32(&r->data[target]) * elem;
  if (bytes > (uint64_t)r->size - target - 4u) {
    return rd_fail_extent(r, "vector", target, bytes);
  }
  v->pos = target + 4u;
  v->len = ld32(&r->data[target]);
  return UTVM_OK;
}

/* A string field: "" when absent; verified NUL-terminated inside the file. */
utvm_err_t fb_string(rd_t *r, const fb_table_t *t, uint32_t id, const char **s) {
  fb_vec_t v;
  utvm_err_t err = fb_vector(r, t, id, 1u, &v);
  *s = "";
  if (err != UTVM_OK || v.pos == 0u) {
    return err;
  }
  if (v.len >= r->size - v.pos || r->data[v.pos + v.len] != 0u) {
    rd_err_begin(r);
    utvm_text_str(&r->text, "string at offset ");
    utvm_text_hex(&r->text, v.pos - 4u);
    utvm_text_str(&r->text, " is not NUL-terminated");
    return UTVM_ERR_MODEL_MALFORMED;
  }
  *s = (const char *)(const void *)&r->data[v.pos];
  return UTVM_OK;
}

/* Element i (< v->len) of a vector of tables. */
utvm_err_t fb_vec_table(rd_t *r, const fb_vec_t *v, uint32_t i, fb_table_t *t) {
  uint32_t pos = v->pos + 4u * i;
  uint64_t to = (uint64_t)pos + ld32(&r->data[pos]);
  if (to > (uint64_t)r->size - 4u) {
    rd_err_begin(r);
    utvm_text_str(&r->text, "file truncated: table offset at ");
    utvm_text_hex(&r->text, pos);
    utvm_text_str(&r->text, " points past file size ");
    utvm_text_u64(&r->text, r->size);
    return UTVM_ERR_MODEL_TRUNCATED;
  }
  return fb_table_at(r, (uint32_t)to, t);
}

/* Element i (< len) of a verified vector of int32. */
int32_t fb_vec_i32(const rd_t *r, uint32_t pos, uint32_t i) {
  return to_i32(ld32(&r->data[pos + 4u * i]));
}

/* ---- the reading context ---- */


void rd_init(rd_t *r, const utvm_model_t *m, char *err, size_t cap) {
  r->data = m->data_;
  r->size = m->size_;
  utvm_text_init(&r->text, err, cap);
  r->what = NULL;
  r->index = 0u;
  r->code = -1;
  r->coded = false;
  r->field = NULL;
}

void rd_at(rd_t *r, const char *what, uint32_t index) {
  r->what = what;
  r->index = index;
  r->code = -1;
  r->coded = false;
  r->field = NULL;
}

rd_where_t rd_save(const rd_t *r) {
  rd_where_t w;
  w.what = r->what;
  w.index = r->index;
  w.code = r->code;
  w.coded = r->coded;
  w.field = r->field;
  return w;
}

void rd_restore(rd_t *r, const rd_where_t *w) {
  r->what = w->what;
  r->index = w->index;
  r->code = w->code;
  r->coded = w->coded;
  r->field = w->field;
}

/* A vector stored in m (position of its first element) as a reader vector. */
fb_vec_t fb_vec_of(uint32_t pos, uint32_t len) {
  fb_vec_t v;
  v.pos = pos;
  v.len = len;
  return v;
}


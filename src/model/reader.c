/*
 * TFLite model reader: a verifying FlatBuffers walk over the subset of the TFLite schema that
 * utvm runs (docs/TFLITE.md lists the tables and field ids).
 *
 * FlatBuffers in brief: the file starts with a 32-bit offset to the root table (Model) and the
 * identifier "TFL3". A table starts with a signed 32-bit offset back to its vtable (vtable =
 * table - value); a vtable holds its own size, the table's inline size and one 16-bit offset per
 * field (0: absent, the schema default applies). A field that refers to a table, vector or
 * string holds an unsigned 32-bit offset relative to the field itself; a vector is a 32-bit
 * length followed by its elements; a string is a vector of bytes followed by a NUL. Unions are
 * two fields: a type byte (id n) and an offset (id n+1). All numbers are little endian.
 *
 * Every read goes through the fb_* helpers (fb.c), which check the position against the file
 * size first, so a hostile file can make open() fail but never read outside [data, data + size).
 * The walk follows the schema (Model -> SubGraph -> Tensor / Operator -> options) with loops
 * over verified vector lengths; nothing recurses. Scalars are read byte by byte, so the reader does
 * not depend on the alignment of the file or of its fields.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fb.h"
#include "utvm/model.h"

#define CUSTOM_CODE 32

/* ---- the model ---- */
/* Buffer b's data: NULL and 0 when it has none. */
static utvm_err_t decode_buffer(rd_t *r, const utvm_model_t *m, uint32_t b, const uint8_t **data,
                                uint32_t *len, uint32_t *offset_out) {
  fb_table_t t;
  fb_vec_t v;
  uint64_t offset;
  uint64_t size;
  fb_vec_t all = fb_vec_of(m->buffers_, m->n_buffers);
  utvm_err_t err;
  rd_where_t where = rd_save(r);
  rd_at(r, "buffer", b);
  *data = NULL;
  *len = 0u;
  *offset_out = 0u;
  err = fb_vec_table(r, &all, b, &t);
  if (err == UTVM_OK) {
    r->field = "data";
    err = fb_vector(r, &t, 0u, 1u, &v);
  }
  if (err == UTVM_OK) {
    r->field = "offset";
    err = fb_scalar(r, &t, 1u, 8u, 0u, &offset);
  }
  if (err == UTVM_OK) {
    r->field = "size";
    err = fb_scalar(r, &t, 2u, 8u, 0u, &size);
  }
  if (err == UTVM_OK) {
    r->field = NULL;
    if (offset > 1u) {
      /* data stored after the flatbuffer (files over 2 GiB and some converters) */
      if (size > r->size || offset > (uint64_t)r->size - size) {
        err = rd_fail_extent(r, "external data", (offset > 0xFFFFFFFFu) ? 0xFFFFFFFFu : (uint32_t)offset,
                          size);
      } else if (size != 0u) {
        *data = &r->data[offset];
        *len = (uint32_t)size;
        *offset_out = (uint32_t)offset;
      } else {
        /* no data */
      }
    } else if (v.len != 0u) {
      *data = &r->data[v.pos];
      *len = v.len;
      *offset_out = v.pos;
    } else {
      /* no data */
    }
  }
  if (err == UTVM_OK) {
    rd_restore(r, &where);
  }
  return err;
}

static uint32_t element_size(int32_t type) {
  switch (type) {
    case (int32_t)UTVM_MODEL_FLOAT32: return 4u;
    case (int32_t)UTVM_MODEL_INT32: return 4u;
    case (int32_t)UTVM_MODEL_UINT8: return 1u;
    case (int32_t)UTVM_MODEL_INT64: return 8u;
    case (int32_t)UTVM_MODEL_BOOL: return 1u;
    case (int32_t)UTVM_MODEL_INT16: return 2u;
    case (int32_t)UTVM_MODEL_INT8: return 1u;
    default: return 0u;
  }
}

static const char *type_name(int32_t type) {
  static const char *const names[] = {"FLOAT32", "FLOAT16", "INT32", "UINT8", "INT64",
                                      "STRING", "BOOL", "INT16", "COMPLEX64", "INT8",
                                      "FLOAT64", "COMPLEX128", "UINT64", "RESOURCE", "VARIANT",
                                      "UINT32", "UINT16", "INT4", "BFLOAT16"};
  if (type < 0 || (uint32_t)type >= (uint32_t)(sizeof(names) / sizeof(names[0]))) {
    return "unknown";
  }
  return names[type];
}

/* The zero point range of a tensor type. */
static void zero_point_range(utvm_model_type_t type, int64_t *lo, int64_t *hi) {
  switch (type) {
    case UTVM_MODEL_INT8: *lo = -128; *hi = 127; break;
    case UTVM_MODEL_UINT8: *lo = 0; *hi = 255; break;
    case UTVM_MODEL_INT16: *lo = -32768; *hi = 32767; break;
    default: *lo = INT32_MIN; *hi = INT32_MAX; break;
  }
}

static utvm_err_t decode_quant(rd_t *r, const fb_table_t *tt, utvm_model_tensor_t *out) {
  fb_table_t q;
  fb_vec_t scales;
  fb_vec_t zps;
  uint32_t details;
  int32_t qdim;
  uint32_t i;
  int64_t lo;
  int64_t hi;
  utvm_model_quant_t *qp = &out->quant;
  utvm_err_t err;
  r->field = "quantization";
  err = fb_subtable(r, tt, 4u, &q);
  if (err == UTVM_OK) {
    err = fb_vector(r, &q, 2u, 4u, &scales);
  }
  if (err == UTVM_OK) {
    err = fb_vector(r, &q, 3u, 8u, &zps);
  }
  if (err == UTVM_OK) {
    err = fb_u8(r, &q, 4u, 0u, &details);
  }
  if (err == UTVM_OK) {
    err = fb_i32(r, &q, 6u, 0, &qdim);
  }
  if (err != UTVM_OK) {
    return err;
  }
  if (details != 0u) {
    return rd_fail(r, UTVM_ERR_MODEL_BAD_QUANTIZATION, "custom quantization details unsupported");
  }
  if (scales.len == 0u) {
    return UTVM_OK; /* not quantized: min/max only, or nothing */
  }
  if (zps.len != 0u && zps.len != 1u && zps.len != scales.len) {
    return rd_fail(r, UTVM_ERR_MODEL_BAD_QUANTIZATION,
                "zero point count is neither 1 nor the scale count");
  }
  if (scales.len > 1u) {
    if (out->rank == 1u) {
      /* A 1-D tensor (a bias) has one axis; some converters copy the weights' dimension here
       * (person_detect's depthwise biases say 3). */
      qdim = 0;
    }
    if (qdim < 0 || (uint32_t)qdim >= out->rank) {
      return rd_fail_i32(r, UTVM_ERR_MODEL_BAD_QUANTIZATION, "quantized dimension ", qdim,
                      " outside the shape");
    }
    if ((uint32_t)out->dims[qdim] != scales.len) {
      return rd_fail(r, UTVM_ERR_MODEL_BAD_QUANTIZATION,
                  "scale count differs from the quantized dimension's size");
    }
  } else {
    qdim = 0;
  }
  for (i = 0u; i < scales.len; i++) {
    if (!positive_finite(ld32(&r->data[scales.pos + 4u * i]))) {
      return rd_fail_i32(r, UTVM_ERR_MODEL_BAD_QUANTIZATION, "scale ", (int32_t)i,
                      " is not a finite number > 0");
    }
  }
  zero_point_range(out->type, &lo, &hi);
  for (i = 0u; i < zps.len; i++) {
    int64_t zp = to_i64(ld64(&r->data[zps.pos + 8u * i]));
    if (zp < lo || zp > hi) {
      return rd_fail_i32(r, UTVM_ERR_MODEL_BAD_QUANTIZATION, "zero point ", (int32_t)i,
                      " outside the range of the tensor type");
    }
  }
  qp->count = scales.len;
  qp->zero_point_count = zps.len;
  qp->quantized_dimension = qdim;
  qp->scales = &r->data[scales.pos];
  qp->zero_points = (zps.len != 0u) ? &r->data[zps.pos] : NULL;
  qp->scale = to_f32(ld32(qp->scales));
  qp->zero_point = (zps.len != 0u) ? (int32_t)to_i64(ld64(qp->zero_points)) : 0;
  return UTVM_OK;
}

/* Decodes and verifies tensor index into *out. */
static utvm_err_t decode_tensor(rd_t *r, const utvm_model_t *m, uint32_t index,
                                utvm_model_tensor_t *out) {
  fb_table_t t;
  fb_table_t sparsity;
  fb_vec_t shape;
  fb_vec_t tensors = fb_vec_of(m->tensors_, m->n_tensors);
  int32_t type;
  bool variable;
  uint32_t i;
  uint64_t elements = 1u;
  const uint8_t *data;
  uint32_t len;
  uint32_t data_offset;
  utvm_err_t err;
  (void)memset(out, 0, sizeof(*out));
  out->name = "";
  rd_at(r, "tensor", index);
  err = fb_vec_table(r, &tensors, index, &t);
  if (err == UTVM_OK) {
    r->field = "shape";
    err = fb_vector(r, &t, 0u, 4u, &shape);
  }
  if (err == UTVM_OK) {
    r->field = "type";
    err = fb_i8(r, &t, 1u, &type);
  }
  if (err == UTVM_OK) {
    r->field = "buffer";
    err = fb_u32(r, &t, 2u, &out->buffer);
  }
  if (err == UTVM_OK) {
    r->field = "name";
    err = fb_string(r, &t, 3u, &out->name);
  }
  if (err == UTVM_OK) {
    r->field = "is_variable";
    err = fb_bool(r, &t, 5u, false, &variable);
  }
  if (err == UTVM_OK) {
    r->field = "sparsity";
    err = fb_subtable(r, &t, 6u, &sparsity);
  }
  if (err != UTVM_OK) {
    return err;
  }
  r->field = NULL;
  out->element_size = element_size(type);
  if (out->element_size == 0u) {
    rd_err_begin(r);
    utvm_text_str(&r->text, "unsupported type ");
    utvm_text_str(&r->text, type_name(type));
    return UTVM_ERR_MODEL_UNSUPPORTED_TYPE;
  }
  out->type = (utvm_model_type_t)type;
  out->variable = variable;
  if (sparsity.vsize != 0u) {
    return rd_fail(r, UTVM_ERR_MODEL_UNSUPPORTED_TYPE, "sparse tensors unsupported");
  }
  if (shape.len > UTVM_MODEL_MAX_DIMS) {
    return rd_fail_i32(r, UTVM_ERR_MODEL_BAD_SHAPE, "rank ", (int32_t)shape.len,
                    " above the limit of 6 (UTVM_MODEL_MAX_DIMS)");
  }
  out->rank = shape.len;
  for (i = 0u; i < shape.len; i++) {
    int32_t d = fb_vec_i32(r, shape.pos, i);
    if (d < 0) {
      return rd_fail_i32(r, UTVM_ERR_MODEL_BAD_SHAPE, "negative dimension ", d, "");
    }
    out->dims[i] = d;
    elements *= (uint64_t)(uint32_t)d;
    if (elements * out->element_size > UTVM_MODEL_MAX_TENSOR_BYTES) {
      return rd_fail(r, UTVM_ERR_MODEL_BAD_SHAPE,
                  "larger than 2 GiB (UTVM_MODEL_MAX_TENSOR_BYTES)");
    }
  }
  out->elements = (size_t)elements;
  out->bytes = (size_t)elements * out->element_size;
  if (out->buffer >= m->n_buffers) {
    return rd_fail_index(r, "buffer index", (int64_t)out->buffer, m->n_buffers, "buffers");
  }
  err = decode_quant(r, &t, out);
  if (err != UTVM_OK) {
    return err;
  }
  r->field = NULL;
  err = decode_buffer(r, m, out->buffer, &data, &len, &data_offset);
  if (err != UTVM_OK) {
    return err;
  }
  if (data != NULL) {
    if ((size_t)len != out->bytes) {
      rd_err_begin(r);
      utvm_text_str(&r->text, "constant data of ");
      utvm_text_u64(&r->text, len);
      utvm_text_str(&r->text, " bytes, its shape needs ");
      utvm_text_u64(&r->text, (uint32_t)out->bytes);
      return UTVM_ERR_MODEL_BAD_DATA;
    }
    if (((uintptr_t)data % out->element_size) != 0u) {
      rd_err_begin(r);
      utvm_text_str(&r->text, "constant data at offset ");
      utvm_text_hex(&r->text, data_offset);
      utvm_text_str(&r->text, " not aligned to its element size (load the model at a "
                                    "16-byte aligned address)");
      return UTVM_ERR_MODEL_BAD_DATA;
    }
    /* a variable tensor's stored value is not read: it starts at its zero point, as in TFLM */
    out->data = variable ? NULL : data;
  }
  return UTVM_OK;
}

/* True for an operator of UTVM_OP_LIST. */
static bool supported(int32_t code) {
#define READER_CODE_(name, c, op) (code == (c)) ||
  return UTVM_OP_LIST(READER_CODE_) false;
#undef READER_CODE_
}

/* Reads an operator's input or output tensor list into list[max]. */
static utvm_err_t decode_operands(rd_t *r, const utvm_model_t *m, const fb_table_t *t,
                                  uint32_t id, uint32_t min, uint32_t max, bool optional,
                                  int32_t *list, uint32_t *n) {
  fb_vec_t v;
  uint32_t i;
  utvm_err_t err;
  r->field = (id == 1u) ? "inputs" : "outputs";
  err = fb_vector(r, t, id, 4u, &v);
  if (err != UTVM_OK) {
    return err;
  }
  if (v.len < min || v.len > max) {
    rd_err_begin(r);
    utvm_text_u64(&r->text, v.len);
    utvm_text_str(&r->text, " tensors, expected ");
    utvm_text_u64(&r->text, min);
    if (max != min) {
      utvm_text_str(&r->text, " to ");
      utvm_text_u64(&r->text, max);
    }
    return UTVM_ERR_MODEL_BAD_OPERANDS;
  }
  *n = v.len;
  for (i = 0u; i < v.len; i++) {
    int32_t index = fb_vec_i32(r, v.pos, i);
    list[i] = index;
    if (index == -1 && optional && i >= min) {
      continue; /* an optional operand, absent */
    }
    if (index < 0 || (uint32_t)index >= m->n_tensors) {
      return rd_fail_index(r, "tensor index", index, m->n_tensors, "tensors");
    }
  }
  return UTVM_OK;
}

/* The builtin code of operator code entry i: max(deprecated_builtin_code, builtin_code). */
static utvm_err_t decode_opcode(rd_t *r, const utvm_model_t *m, uint32_t i, int32_t *code,
                                int32_t *version, const char **custom) {
  fb_table_t t;
  fb_vec_t codes = fb_vec_of(m->opcodes_, m->n_opcodes_);
  int32_t deprecated = 0;
  int32_t builtin = 0;
  utvm_err_t err = fb_vec_table(r, &codes, i, &t);
  if (err == UTVM_OK) {
    r->field = "operator code";
    err = fb_i8(r, &t, 0u, &deprecated);
  }
  if (err == UTVM_OK) {
    err = fb_string(r, &t, 1u, custom);
  }
  if (err == UTVM_OK) {
    err = fb_i32(r, &t, 2u, 1, version);
  }
  if (err == UTVM_OK) {
    err = fb_i32(r, &t, 3u, 0, &builtin);
  }
  *code = (deprecated > builtin) ? deprecated : builtin;
  return err;
}

/* Decodes and verifies operator index into *op: its code, operand lists and options table. */
static utvm_err_t decode_operator(rd_t *r, const utvm_model_t *m, uint32_t index,
                                  utvm_model_operator_t *op) {
  fb_table_t t;
  fb_table_t options;
  fb_vec_t ops = fb_vec_of(m->operators_, m->n_operators);
  uint32_t opcode_index;
  int32_t code;
  const char *custom;
  utvm_err_t err;
  (void)memset(op, 0, sizeof(*op));
  rd_at(r, "operator", index);
  err = fb_vec_table(r, &ops, index, &t);
  if (err == UTVM_OK) {
    r->field = "opcode_index";
    err = fb_u32(r, &t, 0u, &opcode_index);
  }
  if (err == UTVM_OK && opcode_index >= m->n_opcodes_) {
    err = rd_fail_index(r, "opcode index", (int64_t)opcode_index, m->n_opcodes_, "operator codes");
  }
  if (err == UTVM_OK) {
    err = decode_opcode(r, m, opcode_index, &code, &op->version, &custom);
  }
  if (err != UTVM_OK) {
    return err;
  }
  r->code = code;
  r->coded = true;
  r->field = NULL;
  if (code == CUSTOM_CODE) {
    rd_err_begin(r);
    utvm_text_str(&r->text, "unsupported custom operator '");
    utvm_text_str(&r->text, custom);
    utvm_text_str(&r->text, "'");
    return UTVM_ERR_MODEL_UNSUPPORTED_OPERATOR;
  }
  if (!supported(code)) {
    return rd_fail(r, UTVM_ERR_MODEL_UNSUPPORTED_OPERATOR, "unsupported operator");
  }
  op->code = (utvm_model_op_t)code;
  err = decode_operands(r, m, &t, 1u, 0u, UTVM_MODEL_MAX_OP_INPUTS, true, op->inputs,
                        &op->n_inputs);
  if (err == UTVM_OK) {
    err = decode_operands(r, m, &t, 2u, 1u, UTVM_MODEL_MAX_OP_OUTPUTS, false, op->outputs,
                          &op->n_outputs);
  }
  if (err == UTVM_OK) {
    r->field = "options";
    err = fb_u8(r, &t, 3u, 0u, &op->options_type);
  }
  if (err == UTVM_OK) {
    err = fb_u8(r, &t, 11u, 0u, &op->options2_type);
  }
  fb_absent_table(&options);
  if (err == UTVM_OK && op->options_type != 0u) {
    err = fb_subtable(r, &t, 4u, &options);
  }
  if (err == UTVM_OK) {
    op->options_ = options.pos;
    r->field = NULL;
  }
  return err;
}

/* Starts reading operator op's options table for the option readers. */
static utvm_err_t option_table(rd_t *r, const utvm_model_t *m, uint32_t index,
                               const utvm_model_operator_t *op, utvm_text_t *text,
                               fb_table_t *t) {
  rd_init(r, m, NULL, 0u);
  if (text != NULL) {
    r->text = *text;
  }
  rd_at(r, "operator", index);
  r->code = (int32_t)op->code;
  r->coded = true;
  r->field = "options";
  fb_absent_table(t);
  return (op->options_ != 0u) ? fb_table_at(r, op->options_, t) : UTVM_OK;
}

static utvm_err_t option_done(const rd_t *r, utvm_err_t err, utvm_text_t *text) {
  if (text != NULL) {
    *text = r->text;
  }
  return err;
}

utvm_err_t utvm_model_option_bits(const utvm_model_t *m, uint32_t index,
                                  const utvm_model_operator_t *op, uint32_t id, uint32_t width,
                                  uint64_t def, uint64_t *bits, utvm_text_t *text) {
  rd_t r;
  fb_table_t t;
  if (m == NULL || !m->valid_ || op == NULL || bits == NULL ||
      (width != 1u && width != 2u && width != 4u && width != 8u)) {
    return UTVM_ERR_MODEL_ARGUMENT;
  }
  utvm_err_t err = option_table(&r, m, index, op, text, &t);
  if (err == UTVM_OK) {
    err = fb_scalar(&r, &t, id, width, def, bits);
  }
  return option_done(&r, err, text);
}

utvm_err_t utvm_model_option_i32s(const utvm_model_t *m, uint32_t index,
                                  const utvm_model_operator_t *op, uint32_t id, int32_t *values,
                                  uint32_t max, uint32_t *count, utvm_text_t *text) {
  rd_t r;
  fb_table_t t;
  fb_vec_t v = fb_vec_of(0u, 0u);
  uint32_t i;
  if (m == NULL || !m->valid_ || op == NULL || values == NULL || count == NULL) {
    return UTVM_ERR_MODEL_ARGUMENT;
  }
  *count = 0u;
  utvm_err_t err = option_table(&r, m, index, op, text, &t);
  if (err == UTVM_OK) {
    err = fb_vector(&r, &t, id, 4u, &v);
  }
  if (err == UTVM_OK && v.len > max) {
    rd_err_begin(&r);
    utvm_text_str(&r.text, "a list of ");
    utvm_text_u64(&r.text, v.len);
    utvm_text_str(&r.text, " values, above the limit of ");
    utvm_text_u64(&r.text, max);
    err = UTVM_ERR_MODEL_BAD_OPTION;
  }
  for (i = 0u; err == UTVM_OK && i < v.len; i++) {
    values[i] = fb_vec_i32(&r, v.pos, i);
  }
  if (err == UTVM_OK) {
    *count = v.len;
  }
  return option_done(&r, err, text);
}

/* ---- public API ---- */

float utvm_model_quant_scale(const utvm_model_quant_t *q, uint32_t c) {
  if (q == NULL || q->scales == NULL || q->count == 0u) {
    return 0.0f;
  }
  if (q->count == 1u) {
    return q->scale;
  }
  return (c < q->count) ? to_f32(ld32(&q->scales[4u * c])) : 0.0f;
}

int32_t utvm_model_quant_zero_point(const utvm_model_quant_t *q, uint32_t c) {
  if (q == NULL || q->zero_points == NULL || q->zero_point_count == 0u) {
    return 0;
  }
  if (q->zero_point_count == 1u || c >= q->zero_point_count) {
    return q->zero_point;
  }
  /* verified at open to fit the tensor type */
  return (int32_t)to_i64(ld64(&q->zero_points[8u * c]));
}

/* Verifies the graph-level facts: graph inputs and outputs exist, inputs and operator outputs are
 * not constants. */
static utvm_err_t check_graph(rd_t *r, const utvm_model_t *m) {
  uint32_t i;
  uint32_t j;
  utvm_model_tensor_t t;
  utvm_model_operator_t op;
  utvm_err_t err = UTVM_OK;
  for (i = 0u; i < m->n_inputs + m->n_outputs && err == UTVM_OK; i++) {
    bool is_input = i < m->n_inputs;
    int32_t index = is_input ? fb_vec_i32(r, m->inputs_, i) : fb_vec_i32(r, m->outputs_, i - m->n_inputs);
    rd_at(r, is_input ? "graph input" : "graph output", is_input ? i : i - m->n_inputs);
    if (index < 0 || (uint32_t)index >= m->n_tensors) {
      err = rd_fail_index(r, "tensor index", index, m->n_tensors, "tensors");
    } else if (is_input) {
      err = decode_tensor(r, m, (uint32_t)index, &t);
      if (err == UTVM_OK && t.data != NULL) {
        rd_at(r, "graph input", i);
        err = rd_fail_i32(r, UTVM_ERR_MODEL_BAD_GRAPH, "tensor ", index, " is a constant");
      }
    } else {
      /* outputs: existence is enough here; utvm_model_plan checks that they are produced */
    }
  }
  for (i = 0u; i < m->n_operators && err == UTVM_OK; i++) {
    err = decode_operator(r, m, i, &op);
    for (j = 0u; j < op.n_outputs && err == UTVM_OK; j++) {
      err = decode_tensor(r, m, (uint32_t)op.outputs[j], &t);
      if (err == UTVM_OK && t.data != NULL) {
        rd_at(r, "operator", i);
        r->code = (int32_t)op.code;
        r->coded = true;
        err = rd_fail_i32(r, UTVM_ERR_MODEL_BAD_GRAPH, "output tensor ", op.outputs[j],
                       " is a constant");
      }
    }
  }
  return err;
}

utvm_err_t utvm_model_open(utvm_model_t *m, const uint8_t *data, size_t size) {
  rd_t rd;
  rd_t *r = &rd;
  fb_table_t model;
  fb_table_t subgraph;
  fb_vec_t v;
  const char *name;
  uint32_t i;
  utvm_model_tensor_t tensor;
  utvm_err_t err;
  if (m == NULL) {
    return UTVM_ERR_MODEL_ARGUMENT;
  }
  (void)memset(m, 0, sizeof(*m));
  m->description = "";
  rd_init(r, m, m->error, sizeof(m->error));
  if (data == NULL) {
    return rd_fail(r, UTVM_ERR_MODEL_ARGUMENT, "no model data");
  }
  if (size < 8u) {
    rd_err_begin(r);
    utvm_text_str(&r->text, "file truncated: ");
    utvm_text_u64(&r->text, (uint32_t)size);
    utvm_text_str(&r->text, " bytes, a TFLite file has at least 8");
    return UTVM_ERR_MODEL_TRUNCATED;
  }
  if (size > 0x7FFFFFFFu) {
    return rd_fail(r, UTVM_ERR_MODEL_MALFORMED, "file larger than 2 GiB");
  }
  r->data = data;
  r->size = (uint32_t)size;
  if (data[4] != (uint8_t)'T' || data[5] != (uint8_t)'F' || data[6] != (uint8_t)'L' ||
      data[7] != (uint8_t)'3') {
    return rd_fail(r, UTVM_ERR_MODEL_NOT_TFLITE, "not a TFLite file: identifier is not TFL3");
  }
  r->field = "root";
  err = fb_table_at(r, ld32(data), &model);
  if (err == UTVM_OK) {
    r->field = "version";
    err = fb_u32(r, &model, 0u, &m->version);
  }
  if (err == UTVM_OK && m->version != UTVM_MODEL_SCHEMA_VERSION) {
    err = rd_fail_i32(r, UTVM_ERR_MODEL_NOT_TFLITE, "schema version ", to_i32(m->version),
                   ", expected 3");
  }
  if (err == UTVM_OK) {
    r->field = "operator_codes";
    err = fb_vector(r, &model, 1u, 4u, &v);
    m->opcodes_ = v.pos;
    m->n_opcodes_ = v.len;
  }
  if (err == UTVM_OK) {
    r->field = "subgraphs";
    err = fb_vector(r, &model, 2u, 4u, &v);
  }
  if (err == UTVM_OK && v.len != 1u) {
    err = rd_fail_i32(r, UTVM_ERR_MODEL_SUBGRAPHS, "model has ", (int32_t)v.len,
                   " subgraphs; exactly 1 is supported");
  }
  if (err == UTVM_OK) {
    err = fb_vec_table(r, &v, 0u, &subgraph);
  }
  if (err == UTVM_OK) {
    r->field = "description";
    err = fb_string(r, &model, 3u, &m->description);
  }
  if (err == UTVM_OK) {
    r->field = "buffers";
    err = fb_vector(r, &model, 4u, 4u, &v);
    m->buffers_ = v.pos;
    m->n_buffers = v.len;
  }
  rd_at(r, "subgraph", 0u);
  if (err == UTVM_OK) {
    r->field = "tensors";
    err = fb_vector(r, &subgraph, 0u, 4u, &v);
    m->tensors_ = v.pos;
    m->n_tensors = v.len;
  }
  if (err == UTVM_OK) {
    r->field = "inputs";
    err = fb_vector(r, &subgraph, 1u, 4u, &v);
    m->inputs_ = v.pos;
    m->n_inputs = v.len;
  }
  if (err == UTVM_OK) {
    r->field = "outputs";
    err = fb_vector(r, &subgraph, 2u, 4u, &v);
    m->outputs_ = v.pos;
    m->n_outputs = v.len;
  }
  if (err == UTVM_OK) {
    r->field = "operators";
    err = fb_vector(r, &subgraph, 3u, 4u, &v);
    m->operators_ = v.pos;
    m->n_operators = v.len;
  }
  if (err == UTVM_OK) {
    r->field = "name";
    err = fb_string(r, &subgraph, 4u, &name);
  }
  m->data_ = data;
  m->size_ = (uint32_t)size;
  /* Every buffer and operator code table, then every tensor, then the graph and operators. */
  for (i = 0u; i < m->n_buffers && err == UTVM_OK; i++) {
    const uint8_t *bytes;
    uint32_t len;
    uint32_t offset;
    err = decode_buffer(r, m, i, &bytes, &len, &offset);
  }
  for (i = 0u; i < m->n_opcodes_ && err == UTVM_OK; i++) {
    int32_t code;
    int32_t version;
    const char *custom;
    rd_at(r, "operator code", i);
    err = decode_opcode(r, m, i, &code, &version, &custom);
  }
  for (i = 0u; i < m->n_tensors && err == UTVM_OK; i++) {
    err = decode_tensor(r, m, i, &tensor);
  }
  if (err == UTVM_OK) {
    err = check_graph(r, m);
  }
  if (err != UTVM_OK) {
    m->valid_ = false;
    return err;
  }
  m->valid_ = true;
  m->error[0] = '\0';
  return UTVM_OK;
}

utvm_err_t utvm_model_tensor(const utvm_model_t *m, uint32_t index, utvm_model_tensor_t *t) {
  rd_t r;
  if (m == NULL || t == NULL || !m->valid_ || index >= m->n_tensors) {
    return UTVM_ERR_MODEL_ARGUMENT;
  }
  rd_init(&r, m, NULL, 0u);
  return decode_tensor(&r, m, index, t);
}

utvm_err_t utvm_model_operator(const utvm_model_t *m, uint32_t index, utvm_model_operator_t *op) {
  rd_t r;
  if (m == NULL || op == NULL || !m->valid_ || index >= m->n_operators) {
    return UTVM_ERR_MODEL_ARGUMENT;
  }
  rd_init(&r, m, NULL, 0u);
  return decode_operator(&r, m, index, op);
}

static utvm_err_t graph_tensor(const utvm_model_t *m, uint32_t pos, uint32_t n, uint32_t i,
                               uint32_t *tensor) {
  int32_t index;
  if (m == NULL || tensor == NULL || !m->valid_ || i >= n) {
    return UTVM_ERR_MODEL_ARGUMENT;
  }
  index = to_i32(ld32(&m->data_[pos + 4u * i]));
  if (index < 0 || (uint32_t)index >= m->n_tensors) {
    return UTVM_ERR_MODEL_INDEX; /* verified at open: only if the bytes changed since */
  }
  *tensor = (uint32_t)index;
  return UTVM_OK;
}

utvm_err_t utvm_model_input(const utvm_model_t *m, uint32_t i, uint32_t *tensor) {
  return graph_tensor(m, (m != NULL) ? m->inputs_ : 0u, (m != NULL) ? m->n_inputs : 0u, i, tensor);
}

utvm_err_t utvm_model_output(const utvm_model_t *m, uint32_t i, uint32_t *tensor) {
  return graph_tensor(m, (m != NULL) ? m->outputs_ : 0u, (m != NULL) ? m->n_outputs : 0u, i,
                      tensor);
}

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

/* TFLite BuiltinOptions union types the reader decodes. */
#define OPT_CONV_2D 1u
#define OPT_DEPTHWISE_CONV_2D 2u
#define OPT_POOL_2D 5u
#define OPT_FULLY_CONNECTED 8u
#define OPT_SOFTMAX 9u
#define OPT_CONCATENATION 10u
#define OPT_ADD 11u
#define OPT_RESHAPE 17u
#define OPT_MUL 21u
#define OPT_PAD 22u
#define OPT_REDUCER 27u
#define OPT_SQUEEZE 30u
#define OPT_DEQUANTIZE 38u
#define OPT_QUANTIZE 89u

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
  if (variable) {
    return rd_fail(r, UTVM_ERR_MODEL_UNSUPPORTED_TYPE, "variable tensors unsupported");
  }
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
    out->data = data;
  }
  return UTVM_OK;
}

/* What the reader knows of each supported operator. */
typedef struct {
  uint32_t min_in;       /* inputs 0..min_in-1 are required, the others optional (-1) */
  uint32_t max_in;
  uint32_t options_type; /* BuiltinOptions type accepted besides NONE (0: only NONE) */
  bool optional;         /* inputs from min_in on may be -1 (absent) */
  utvm_model_options_kind_t kind;
} op_spec_t;

static bool op_spec(int32_t code, op_spec_t *s) {
  s->min_in = 1u;
  s->max_in = 1u;
  s->options_type = 0u;
  s->kind = UTVM_MODEL_OPTIONS_NONE;
  s->optional = (code == (int32_t)UTVM_MODEL_OP_CONV_2D) ||
                (code == (int32_t)UTVM_MODEL_OP_DEPTHWISE_CONV_2D) ||
                (code == (int32_t)UTVM_MODEL_OP_FULLY_CONNECTED) ||
                (code == (int32_t)UTVM_MODEL_OP_RESHAPE);
  switch (code) {
    case (int32_t)UTVM_MODEL_OP_ADD:
      s->min_in = 2u; s->max_in = 2u; s->options_type = OPT_ADD; s->kind = UTVM_MODEL_OPTIONS_ADD;
      break;
    case (int32_t)UTVM_MODEL_OP_MUL:
      s->min_in = 2u; s->max_in = 2u; s->options_type = OPT_MUL; s->kind = UTVM_MODEL_OPTIONS_MUL;
      break;
    case (int32_t)UTVM_MODEL_OP_AVERAGE_POOL_2D:
    case (int32_t)UTVM_MODEL_OP_MAX_POOL_2D:
      s->options_type = OPT_POOL_2D; s->kind = UTVM_MODEL_OPTIONS_POOL_2D;
      break;
    case (int32_t)UTVM_MODEL_OP_CONCATENATION:
      s->max_in = UTVM_MODEL_MAX_OP_INPUTS; s->options_type = OPT_CONCATENATION;
      s->kind = UTVM_MODEL_OPTIONS_CONCATENATION;
      break;
    case (int32_t)UTVM_MODEL_OP_CONV_2D:
      s->min_in = 2u; s->max_in = 3u; s->options_type = OPT_CONV_2D;
      s->kind = UTVM_MODEL_OPTIONS_CONV_2D;
      break;
    case (int32_t)UTVM_MODEL_OP_DEPTHWISE_CONV_2D:
      s->min_in = 2u; s->max_in = 3u; s->options_type = OPT_DEPTHWISE_CONV_2D;
      s->kind = UTVM_MODEL_OPTIONS_DEPTHWISE_CONV_2D;
      break;
    case (int32_t)UTVM_MODEL_OP_FULLY_CONNECTED:
      s->min_in = 2u; s->max_in = 3u; s->options_type = OPT_FULLY_CONNECTED;
      s->kind = UTVM_MODEL_OPTIONS_FULLY_CONNECTED;
      break;
    case (int32_t)UTVM_MODEL_OP_SOFTMAX:
      s->options_type = OPT_SOFTMAX; s->kind = UTVM_MODEL_OPTIONS_SOFTMAX;
      break;
    case (int32_t)UTVM_MODEL_OP_RESHAPE:
      s->max_in = 2u; s->options_type = OPT_RESHAPE; s->kind = UTVM_MODEL_OPTIONS_RESHAPE;
      break;
    case (int32_t)UTVM_MODEL_OP_SQUEEZE:
      s->options_type = OPT_SQUEEZE; s->kind = UTVM_MODEL_OPTIONS_SQUEEZE;
      break;
    case (int32_t)UTVM_MODEL_OP_PAD:
      s->min_in = 2u; s->max_in = 2u; s->options_type = OPT_PAD;
      break;
    case (int32_t)UTVM_MODEL_OP_MEAN:
      s->min_in = 2u; s->max_in = 2u; s->options_type = OPT_REDUCER;
      s->kind = UTVM_MODEL_OPTIONS_REDUCER;
      break;
    case (int32_t)UTVM_MODEL_OP_QUANTIZE:
      s->options_type = OPT_QUANTIZE;
      break;
    case (int32_t)UTVM_MODEL_OP_DEQUANTIZE:
      s->options_type = OPT_DEQUANTIZE;
      break;
    case (int32_t)UTVM_MODEL_OP_LOGISTIC:
    case (int32_t)UTVM_MODEL_OP_TANH:
      break;
    default:
      return false;
  }
  return true;
}

/* ---- options ---- */

static utvm_err_t check_activation(rd_t *r, uint32_t act, utvm_model_activation_t *out) {
  if (act > (uint32_t)UTVM_MODEL_ACT_RELU6) {
    static const char *const names[] = {"TANH", "SIGN_BIT"};
    rd_err_begin(r);
    utvm_text_str(&r->text, "unsupported fused activation ");
    utvm_text_str(&r->text, (act - 4u < 2u) ? names[act - 4u] : "(unknown)");
    return UTVM_ERR_MODEL_BAD_OPTION;
  }
  *out = (utvm_model_activation_t)act;
  return UTVM_OK;
}

static utvm_err_t check_padding(rd_t *r, uint32_t padding, utvm_model_padding_t *out) {
  if (padding > 1u) {
    return rd_fail_i32(r, UTVM_ERR_MODEL_BAD_OPTION, "unknown padding ", (int32_t)padding, "");
  }
  *out = (utvm_model_padding_t)padding;
  return UTVM_OK;
}

/* value >= 1, for strides, dilations and filter sizes */
static utvm_err_t check_positive(rd_t *r, const char *name, int32_t value) {
  if (value < 1) {
    rd_err_begin(r);
    utvm_text_str(&r->text, name);
    utvm_text_str(&r->text, " ");
    utvm_text_i64(&r->text, value);
    utvm_text_str(&r->text, " is not >= 1");
    return UTVM_ERR_MODEL_BAD_OPTION;
  }
  return UTVM_OK;
}

static utvm_err_t check_bias_type(rd_t *r, int32_t type) {
  if (type != 0 && type != (int32_t)UTVM_MODEL_INT32 && type != (int32_t)UTVM_MODEL_INT64) {
    return rd_fail_i32(r, UTVM_ERR_MODEL_BAD_OPTION, "unsupported quantized bias type ", type, "");
  }
  return UTVM_OK;
}

/* Reads the fields listed in ids (a -1 entry is skipped) as int32 with the given defaults. */
static utvm_err_t read_i32s(rd_t *r, const fb_table_t *t, const uint32_t *ids, const int32_t *defs,
                            int32_t *out, uint32_t n) {
  uint32_t i;
  utvm_err_t err = UTVM_OK;
  for (i = 0u; i < n && err == UTVM_OK; i++) {
    err = fb_i32(r, t, ids[i], defs[i], &out[i]);
  }
  return err;
}

/* The rank of tensor index (verified at open). */
static utvm_err_t tensor_rank(rd_t *r, const utvm_model_t *m, int32_t index, uint32_t *rank) {
  utvm_model_tensor_t t;
  rd_where_t where = rd_save(r);
  utvm_err_t err = decode_tensor(r, m, (uint32_t)index, &t);
  *rank = t.rank;
  if (err == UTVM_OK) {
    rd_restore(r, &where);
  }
  return err;
}

/* Normalises axis (-rank..rank-1) to 0..rank-1. */
static utvm_err_t normalise_axis(rd_t *r, int32_t axis, uint32_t rank, int32_t *out) {
  int32_t n = (int32_t)rank;
  if (axis < -n || axis >= n) {
    return rd_fail_i32(r, UTVM_ERR_MODEL_BAD_OPTION, "axis ", axis, " outside the tensor's rank");
  }
  *out = (axis < 0) ? axis + n : axis;
  return UTVM_OK;
}

static utvm_err_t decode_conv(rd_t *r, const fb_table_t *t, utvm_model_operator_t *op) {
  static const uint32_t ids[] = {1u, 2u, 4u, 5u, 6u};
  static const int32_t defs[] = {0, 0, 1, 1, 0};
  int32_t v[5] = {0, 0, 0, 0, 0};
  uint32_t padding;
  uint32_t act;
  utvm_model_conv2d_options_t *o = &op->options.u.conv2d;
  utvm_err_t err = fb_u8(r, t, 0u, 0u, &padding);
  if (err == UTVM_OK) {
    err = fb_u8(r, t, 3u, 0u, &act);
  }
  if (err == UTVM_OK) {
    /* quantized_bias_type is a byte: read it as one */
    err = read_i32s(r, t, ids, defs, v, 4u);
  }
  if (err == UTVM_OK) {
    err = fb_i8(r, t, ids[4], &v[4]);
  }
  if (err == UTVM_OK) {
    err = check_padding(r, padding, &o->padding);
  }
  if (err == UTVM_OK) {
    err = check_activation(r, act, &o->activation);
  }
  o->stride_w = v[0];
  o->stride_h = v[1];
  o->dilation_w = v[2];
  o->dilation_h = v[3];
  o->quantized_bias_type = v[4];
  if (err == UTVM_OK) {
    err = check_positive(r, "stride_w", v[0]);
  }
  if (err == UTVM_OK) {
    err = check_positive(r, "stride_h", v[1]);
  }
  if (err == UTVM_OK) {
    err = check_positive(r, "dilation_w", v[2]);
  }
  if (err == UTVM_OK) {
    err = check_positive(r, "dilation_h", v[3]);
  }
  if (err == UTVM_OK) {
    err = check_bias_type(r, v[4]);
  }
  return err;
}

static utvm_err_t decode_depthwise(rd_t *r, const fb_table_t *t, utvm_model_operator_t *op) {
  static const uint32_t ids[] = {1u, 2u, 3u, 5u, 6u};
  static const int32_t defs[] = {0, 0, 0, 1, 1};
  int32_t v[5] = {0, 0, 0, 0, 0};
  uint32_t padding;
  uint32_t act;
  utvm_model_depthwise_options_t *o = &op->options.u.depthwise;
  utvm_err_t err = fb_u8(r, t, 0u, 0u, &padding);
  if (err == UTVM_OK) {
    err = fb_u8(r, t, 4u, 0u, &act);
  }
  if (err == UTVM_OK) {
    err = read_i32s(r, t, ids, defs, v, 5u);
  }
  if (err == UTVM_OK) {
    err = check_padding(r, padding, &o->padding);
  }
  if (err == UTVM_OK) {
    err = check_activation(r, act, &o->activation);
  }
  o->stride_w = v[0];
  o->stride_h = v[1];
  o->depth_multiplier = v[2];
  o->dilation_w = v[3];
  o->dilation_h = v[4];
  if (err == UTVM_OK) {
    err = check_positive(r, "stride_w", v[0]);
  }
  if (err == UTVM_OK) {
    err = check_positive(r, "stride_h", v[1]);
  }
  if (err == UTVM_OK && v[2] < 0) {
    err = rd_fail_i32(r, UTVM_ERR_MODEL_BAD_OPTION, "negative depth_multiplier ", v[2], "");
  }
  if (err == UTVM_OK) {
    err = check_positive(r, "dilation_w", v[3]);
  }
  if (err == UTVM_OK) {
    err = check_positive(r, "dilation_h", v[4]);
  }
  return err;
}

static utvm_err_t decode_pool(rd_t *r, const fb_table_t *t, utvm_model_operator_t *op) {
  static const uint32_t ids[] = {1u, 2u, 3u, 4u};
  static const int32_t defs[] = {0, 0, 0, 0};
  int32_t v[4] = {0, 0, 0, 0};
  uint32_t padding;
  uint32_t act;
  utvm_model_pool2d_options_t *o = &op->options.u.pool2d;
  utvm_err_t err = fb_u8(r, t, 0u, 0u, &padding);
  if (err == UTVM_OK) {
    err = fb_u8(r, t, 5u, 0u, &act);
  }
  if (err == UTVM_OK) {
    err = read_i32s(r, t, ids, defs, v, 4u);
  }
  if (err == UTVM_OK) {
    err = check_padding(r, padding, &o->padding);
  }
  if (err == UTVM_OK) {
    err = check_activation(r, act, &o->activation);
  }
  o->stride_w = v[0];
  o->stride_h = v[1];
  o->filter_w = v[2];
  o->filter_h = v[3];
  if (err == UTVM_OK) {
    err = check_positive(r, "stride_w", v[0]);
  }
  if (err == UTVM_OK) {
    err = check_positive(r, "stride_h", v[1]);
  }
  if (err == UTVM_OK) {
    err = check_positive(r, "filter_width", v[2]);
  }
  if (err == UTVM_OK) {
    err = check_positive(r, "filter_height", v[3]);
  }
  return err;
}

static utvm_err_t decode_fully_connected(rd_t *r, const fb_table_t *t,
                                         utvm_model_operator_t *op) {
  uint32_t act = 0u;
  uint32_t format = 0u;
  utvm_model_fully_connected_options_t *o = &op->options.u.fully_connected;
  utvm_err_t err = fb_u8(r, t, 0u, 0u, &act);
  if (err == UTVM_OK) {
    err = fb_u8(r, t, 1u, 0u, &format);
  }
  if (err == UTVM_OK) {
    err = fb_bool(r, t, 2u, false, &o->keep_num_dims);
  }
  if (err == UTVM_OK) {
    err = fb_bool(r, t, 3u, false, &o->asymmetric_quantize_inputs);
  }
  if (err == UTVM_OK) {
    err = fb_i8(r, t, 4u, &o->quantized_bias_type);
  }
  if (err == UTVM_OK) {
    err = check_activation(r, act, &o->activation);
  }
  if (err == UTVM_OK && format != 0u) {
    err = rd_fail_i32(r, UTVM_ERR_MODEL_BAD_OPTION, "weights format ", (int32_t)format,
                   " unsupported (only DEFAULT)");
  }
  if (err == UTVM_OK) {
    err = check_bias_type(r, o->quantized_bias_type);
  }
  return err;
}

static utvm_err_t decode_reshape(rd_t *r, const fb_table_t *t, utvm_model_operator_t *op) {
  fb_vec_t v;
  uint32_t i;
  uint32_t unknown = 0u;
  utvm_model_reshape_options_t *o = &op->options.u.reshape;
  utvm_err_t err = fb_vector(r, t, 0u, 4u, &v);
  if (err != UTVM_OK) {
    return err;
  }
  if (v.len > UTVM_MODEL_MAX_DIMS) {
    return rd_fail_i32(r, UTVM_ERR_MODEL_BAD_OPTION, "new_shape of rank ", (int32_t)v.len,
                    " above the limit of 6 (UTVM_MODEL_MAX_DIMS)");
  }
  o->has_new_shape = v.len != 0u;
  o->rank = v.len;
  for (i = 0u; i < v.len; i++) {
    o->new_shape[i] = fb_vec_i32(r, v.pos, i);
    if (o->new_shape[i] < -1) {
      return rd_fail_i32(r, UTVM_ERR_MODEL_BAD_OPTION, "new_shape dimension ", o->new_shape[i],
                      " below -1");
    }
    if (o->new_shape[i] == -1) {
      unknown++;
    }
  }
  if (unknown > 1u) {
    return rd_fail(r, UTVM_ERR_MODEL_BAD_OPTION, "new_shape has more than one -1");
  }
  return UTVM_OK;
}

static utvm_err_t decode_squeeze(rd_t *r, const utvm_model_t *m, const fb_table_t *t,
                                 utvm_model_operator_t *op) {
  fb_vec_t v;
  uint32_t i;
  uint32_t rank;
  utvm_model_squeeze_options_t *o = &op->options.u.squeeze;
  utvm_err_t err = fb_vector(r, t, 0u, 4u, &v);
  if (err != UTVM_OK) {
    return err;
  }
  if (v.len > UTVM_MODEL_MAX_DIMS) {
    return rd_fail_i32(r, UTVM_ERR_MODEL_BAD_OPTION, "squeeze_dims of length ", (int32_t)v.len,
                    " above the limit of 6 (UTVM_MODEL_MAX_DIMS)");
  }
  err = tensor_rank(r, m, op->inputs[0], &rank);
  o->count = v.len;
  for (i = 0u; i < v.len && err == UTVM_OK; i++) {
    err = normalise_axis(r, fb_vec_i32(r, v.pos, i), rank, &o->dims[i]);
  }
  return err;
}

static utvm_err_t decode_concatenation(rd_t *r, const utvm_model_t *m, const fb_table_t *t,
                                       utvm_model_operator_t *op) {
  int32_t axis;
  uint32_t act;
  uint32_t rank;
  utvm_model_concatenation_options_t *o = &op->options.u.concatenation;
  utvm_err_t err = fb_i32(r, t, 0u, 0, &axis);
  if (err == UTVM_OK) {
    err = fb_u8(r, t, 1u, 0u, &act);
  }
  if (err == UTVM_OK) {
    err = check_activation(r, act, &o->activation);
  }
  if (err == UTVM_OK) {
    err = tensor_rank(r, m, op->outputs[0], &rank);
  }
  if (err == UTVM_OK) {
    err = normalise_axis(r, axis, rank, &o->axis);
  }
  return err;
}

static utvm_err_t decode_options(rd_t *r, const utvm_model_t *m, const fb_table_t *t,
                                 utvm_model_operator_t *op) {
  utvm_err_t err = UTVM_OK;
  uint32_t act;
  uint32_t beta;
  uint64_t bits;
  r->field = "options";
  switch (op->options.kind) {
    case UTVM_MODEL_OPTIONS_CONV_2D:
      err = decode_conv(r, t, op);
      break;
    case UTVM_MODEL_OPTIONS_DEPTHWISE_CONV_2D:
      err = decode_depthwise(r, t, op);
      break;
    case UTVM_MODEL_OPTIONS_FULLY_CONNECTED:
      err = decode_fully_connected(r, t, op);
      break;
    case UTVM_MODEL_OPTIONS_POOL_2D:
      err = decode_pool(r, t, op);
      break;
    case UTVM_MODEL_OPTIONS_ADD:
      err = fb_u8(r, t, 0u, 0u, &act);
      if (err == UTVM_OK) {
        err = fb_bool(r, t, 1u, true, &op->options.u.add.pot_scale_int16);
      }
      if (err == UTVM_OK) {
        err = check_activation(r, act, &op->options.u.add.activation);
      }
      break;
    case UTVM_MODEL_OPTIONS_MUL:
      err = fb_u8(r, t, 0u, 0u, &act);
      if (err == UTVM_OK) {
        err = check_activation(r, act, &op->options.u.mul.activation);
      }
      break;
    case UTVM_MODEL_OPTIONS_SOFTMAX:
      err = fb_scalar(r, t, 0u, 4u, 0u, &bits);
      beta = (uint32_t)bits;
      if (err == UTVM_OK && !positive_finite(beta)) {
        err = rd_fail(r, UTVM_ERR_MODEL_BAD_OPTION, "beta is not a finite number > 0");
      }
      op->options.u.softmax.beta = to_f32(beta);
      break;
    case UTVM_MODEL_OPTIONS_RESHAPE:
      err = decode_reshape(r, t, op);
      break;
    case UTVM_MODEL_OPTIONS_SQUEEZE:
      err = decode_squeeze(r, m, t, op);
      break;
    case UTVM_MODEL_OPTIONS_CONCATENATION:
      err = decode_concatenation(r, m, t, op);
      break;
    case UTVM_MODEL_OPTIONS_REDUCER:
      err = fb_bool(r, t, 0u, false, &op->options.u.reducer.keep_dims);
      break;
    default:
      /* no options */
      break;
  }
  return err;
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

/* Decodes and verifies operator index into *op. */
static utvm_err_t decode_operator(rd_t *r, const utvm_model_t *m, uint32_t index,
                                  utvm_model_operator_t *op) {
  fb_table_t t;
  fb_table_t options;
  fb_vec_t ops = fb_vec_of(m->operators_, m->n_operators);
  uint32_t opcode_index;
  uint32_t options_type;
  uint32_t options2_type;
  int32_t code;
  const char *custom;
  op_spec_t spec;
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
  if (!op_spec(code, &spec)) {
    return rd_fail(r, UTVM_ERR_MODEL_UNSUPPORTED_OPERATOR, "unsupported operator");
  }
  op->code = (utvm_model_op_t)code;
  op->options.kind = spec.kind;
  err = decode_operands(r, m, &t, 1u, spec.min_in, spec.max_in, spec.optional, op->inputs,
                        &op->n_inputs);
  if (err == UTVM_OK) {
    err = decode_operands(r, m, &t, 2u, 1u, 1u, false, op->outputs, &op->n_outputs);
  }
  if (err == UTVM_OK) {
    r->field = "options";
    err = fb_u8(r, &t, 3u, 0u, &options_type);
  }
  if (err == UTVM_OK) {
    err = fb_u8(r, &t, 11u, 0u, &options2_type);
  }
  if (err == UTVM_OK &&
      (options2_type != 0u || (options_type != 0u && options_type != spec.options_type))) {
    rd_err_begin(r);
    utvm_text_str(&r->text, "options of union type ");
    utvm_text_u64(&r->text, (options2_type != 0u) ? options2_type : options_type);
    utvm_text_str(&r->text, (options2_type != 0u) ? " (builtin_options_2)" : "");
    utvm_text_str(&r->text, " unsupported for this operator");
    err = UTVM_ERR_MODEL_BAD_OPTION;
  }
  fb_absent_table(&options);
  if (err == UTVM_OK && options_type != 0u) {
    err = fb_subtable(r, &t, 4u, &options);
  }
  if (err == UTVM_OK) {
    err = decode_options(r, m, &options, op);
  }
  if (err == UTVM_OK) {
    r->field = NULL;
  }
  return err;
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

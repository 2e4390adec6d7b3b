/* PAD and PADV2 (int8, int16, float32; 1-D to 4-D; constant paddings; the output zero point
 * (float32: 0.0f) or a constant pad value quantized like the input) and MIRROR_PAD (int8,
 * float32; REFLECT, SYMMETRIC): prepare, run, op params, emit. int8 with a constant border is
 * the kind PAD_S8, the rest the byte-generic kind PAD. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ops_internal.h"

typedef struct {
  ops_ref_t input;
  uint32_t output;
  int32_t type;           /* utvm_op_type_t */
  utvm_dims_t input_dims; /* the input as 4-D, leading dimensions of 1 */
  utvm_pad_any_params_t params;
} pad_record_t;

static size_t pad_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(pad_record_t));
}

/* The paddings, a constant [rank, 2] list; lower ranks are padded to 4-D with leading
 * dimensions of 1 and no padding. Mirrored paddings stay within the input (REFLECT: up to the
 * dimension - 1, SYMMETRIC: up to the dimension). */
static utvm_err_t pad_amounts(const utvm_op_context_t *c, const ops_operand_t *in,
                              const ops_operand_t *out, pad_record_t *rec) {
  ops_operand_t pads;
  uint32_t d;
  int32_t in_dims[4] = {1, 1, 1, 1};
  const uint32_t lead = 4u - in->t.rank;
  utvm_err_t err = ops_load_int_constant(c, 1u, "paddings", true, &pads);
  if ((err == UTVM_OK) && ((pads.t.rank != 2u) || (pads.t.dims[0] != (int32_t)in->t.rank) ||
                           (pads.t.dims[1] != 2))) {
    err = ops_fail_fit(c, "paddings", &pads, "input", in);
  }
  for (d = 0u; d < 4u; d++) {
    rec->params.before[d] = 0;
    rec->params.after[d] = 0;
  }
  for (d = 0u; (d < in->t.rank) && (err == UTVM_OK); d++) {
    int32_t before = 0;
    int32_t after = 0;
    const int32_t most = (rec->params.mode == (int32_t)UTVM_PAD_REFLECT) ? (in->t.dims[d] - 1)
                                                                          : in->t.dims[d];
    if (!ops_read_int(&pads.t, (size_t)d * 2u, &before) ||
        !ops_read_int(&pads.t, ((size_t)d * 2u) + 1u, &after) || (before < 0) || (after < 0) ||
        (((int64_t)in->t.dims[d] + before + after) != (int64_t)out->t.dims[d])) {
      err = ops_fail_fit(c, "output", out, "input and paddings of", in);
    } else if ((rec->params.mode != (int32_t)UTVM_PAD_CONSTANT) &&
               ((before > most) || (after > most))) {
      err = ops_fail_fit(c, "paddings", &pads, "the mirror of input", in);
    } else {
      rec->params.before[lead + d] = before;
      rec->params.after[lead + d] = after;
      in_dims[lead + d] = in->t.dims[d];
    }
  }
  rec->input_dims.n = in_dims[0];
  rec->input_dims.h = in_dims[1];
  rec->input_dims.w = in_dims[2];
  rec->input_dims.c = in_dims[3];
  return err;
}

/* The pad value of PADV2 (input 2, when given): one constant element of the input's type and
 * quantization (TFLM copies its stored value). */
static utvm_err_t pad_value(const utvm_op_context_t *c, const ops_operand_t *in,
                            pad_record_t *rec) {
  ops_operand_t v;
  utvm_err_t err = ops_load(c, 2u, &v);
  if (err == UTVM_OK) {
    err = ops_check_constant(c, &v, "pad value");
  }
  if (err == UTVM_OK) {
    err = ops_check_type(c, &v, "pad value", in->t.type);
  }
  if ((err == UTVM_OK) && (v.t.elements != 1u)) {
    err = ops_fail_shape(c, "pad value", &v, " is not one element");
  }
  if ((err == UTVM_OK) && (in->t.type != UTVM_MODEL_FLOAT32) &&
      ((v.t.quant.count != 1u) || !ops_same_quant(&v, in))) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "pad value is not quantized as the input");
  }
  if ((err == UTVM_OK) && (in->t.type == UTVM_MODEL_FLOAT32)) {
    const uint8_t *b = v.t.data; /* the float's bits, little-endian */
    const uint32_t bits = (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) |
                          ((uint32_t)b[3] << 24);
    rec->params.pad_value = (int32_t)bits;
  } else if (err == UTVM_OK) {
    const uint8_t *b = v.t.data;
    rec->params.pad_value = (in->t.type == UTVM_MODEL_INT16)
                                ? (int32_t)(int16_t)(uint16_t)((uint32_t)b[0] |
                                                               ((uint32_t)b[1] << 8))
                                : (int32_t)(int8_t)b[0];
  } else {
    /* the text is written */
  }
  return err;
}

/* Input 0 and the output: both int8 or both int16 (zero point 0), one quantization, or both
 * float32 (f32), of one rank 1 to 4. */
static utvm_err_t pad_load(const utvm_op_context_t *c, bool f32, ops_operand_t *in,
                           ops_operand_t *out, bool *int16) {
  utvm_err_t err = f32 ? ops_load_f32(c, false, in, out) : ops_load_layout_q(c, in, out, int16);
  if ((err == UTVM_OK) && ((in->t.rank < 1u) || (in->t.rank > 4u))) {
    err = ops_fail_shape(c, "input", in, " is not 1-D to 4-D");
  }
  if ((err == UTVM_OK) && (out->t.rank != in->t.rank)) {
    err = ops_fail_fit(c, "output", out, "input", in);
  }
  return err;
}

/* The prepare of every operator of the file with border mode (PADV2: the pad value of input 2
 * when given). */
static utvm_err_t pad_common(const utvm_op_context_t *c, pad_record_t *rec, int32_t mode) {
  ops_operand_t in;
  ops_operand_t out;
  bool int16 = false;
  (void)memset(&in, 0, sizeof(in));
  (void)memset(&out, 0, sizeof(out));
  rec->params.mode = mode;
  const bool f32 = ops_input_is_f32(c);
  utvm_err_t err = pad_load(c, f32, &in, &out, &int16);
  if ((err == UTVM_OK) && (mode != (int32_t)UTVM_PAD_CONSTANT)) {
    err = ops_refuse_int16(c, &in, "int8 and float32");
  }
  if (err == UTVM_OK) {
    err = pad_amounts(c, &in, &out, rec);
  }
  rec->type = (int32_t)UTVM_OP_TYPE_INT8;
  rec->params.element_size = 1;
  if (int16) {
    rec->type = (int32_t)UTVM_OP_TYPE_INT16;
    rec->params.element_size = 2;
  }
  if (f32) {
    rec->type = (int32_t)UTVM_OP_TYPE_FLOAT32;
    rec->params.element_size = 4;
  }
  /* as TFLM pads: the output zero point (int16: 0), float32 0.0f (bits 0) */
  rec->params.pad_value = f32 ? 0 : out.t.quant.zero_point;
  if ((err == UTVM_OK) && ops_present(c->op, 2u)) {
    err = pad_value(c, &in, rec);
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  return err;
}

static utvm_err_t pad_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  (void)size;
  return pad_common(c, (pad_record_t *)record, (int32_t)UTVM_PAD_CONSTANT);
}

/* MirrorPadOptions (BuiltinOptions 77): mode REFLECT (0) or SYMMETRIC (1). */
static const ops_field_t mirror_pad_options[1] = {{0u, OPS_I8, OPS_ANY, 0, "mode"}};

static utvm_err_t mirror_pad_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  int32_t mode = 0;
  (void)size;
  utvm_err_t err = ops_options(c, mirror_pad_options, 1u, &mode);
  if ((err == UTVM_OK) && ((mode < 0) || (mode > 1))) {
    err = ops_fail_option(c, "mode ", mode, " is not REFLECT or SYMMETRIC");
  }
  if (err == UTVM_OK) {
    err = pad_common(c, (pad_record_t *)record,
                     (mode == 0) ? (int32_t)UTVM_PAD_REFLECT : (int32_t)UTVM_PAD_SYMMETRIC);
  }
  return err;
}

/* int8 with a constant border: the kernel of PAD_S8. */
static bool pad_is_s8(const pad_record_t *r, utvm_pad_params_t *p8) {
  uint32_t d;
  for (d = 0u; d < 4u; d++) {
    p8->before[d] = r->params.before[d];
    p8->after[d] = r->params.after[d];
  }
  p8->pad_value = r->params.pad_value;
  return (r->params.element_size == 1) && (r->params.mode == (int32_t)UTVM_PAD_CONSTANT);
}

static utvm_err_t pad_execute(const void *record, uint8_t *arena) {
  const pad_record_t *r = (const pad_record_t *)record;
  utvm_pad_params_t p8;
  utvm_err_t err;
  if (pad_is_s8(r, &p8)) {
    err = utvm_pad_s8(&p8, &r->input_dims, ops_in_s8(arena, &r->input),
                      ops_out_s8(arena, r->output));
  } else {
    err = utvm_pad(&r->params, &r->input_dims, ops_in(arena, &r->input), &arena[r->output]);
  }
  return err;
}

static void pad_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const pad_record_t *r = (const pad_record_t *)record;
  utvm_pad_params_t p8;
  (void)core;
  p->dims[0] = r->input_dims;
  if (pad_is_s8(r, &p8)) {
    p->kind = UTVM_OP_PAD_S8;
    p->p.pad = p8;
  } else {
    p->kind = UTVM_OP_PAD;
    p->type = r->type;
    p->p.pad_any = r->params;
  }
}

/* PadOptions (BuiltinOptions 22) has no fields. */
const utvm_op_t utvm_op_pad = {(int32_t)UTVM_MODEL_OP_PAD, 2u, 2u, 22u, pad_record_size, NULL,
                               pad_prepare, pad_execute, pad_export, ops_inputs_1,
                               0u, 0u, NULL, NULL, NULL, NULL, NULL};

/* PadV2Options (BuiltinOptions 43) has no fields; the pad value is input 2. */
const utvm_op_t utvm_op_padv2 = {(int32_t)UTVM_MODEL_OP_PADV2, 2u, 3u, 43u, pad_record_size,
                                 NULL, pad_prepare, pad_execute, pad_export, ops_inputs_1, 0u,
                                 0u, NULL, NULL, NULL, NULL, NULL};

const utvm_op_t utvm_op_mirror_pad = {(int32_t)UTVM_MODEL_OP_MIRROR_PAD, 2u, 2u, 77u,
                                      pad_record_size, NULL, mirror_pad_prepare, pad_execute,
                                      pad_export, ops_inputs_1, 0u, 0u, NULL, NULL, NULL,
                                      NULL, NULL};

/* ---- The kernel function utvm_k_pad_s8 ---- */

typedef char pad_check_params[(sizeof(utvm_pad_params_t) == 36u) ? 1 : -1];

static void pad_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, &p->dims[0], sizeof(p->dims[0]));
  ops_walk_block(w, &p->p.pad, sizeof(p->p.pad));
}

/* The output elements of input dims d padded by before and after (false if a padding is
 * negative or the output too large). */
static bool pad_output_elements(const utvm_dims_t *d, const int32_t *before,
                                const int32_t *after, uint64_t *out) {
  const int32_t in[4] = {d->n, d->h, d->w, d->c};
  uint32_t i;
  bool ok = true;
  *out = 1u;
  for (i = 0u; ok && (i < 4u); i++) {
    const uint64_t size = (uint64_t)in[i] + (uint64_t)before[i] + (uint64_t)after[i];
    if ((before[i] < 0) || (after[i] < 0) || (size > UTVM_OP_PARAMS_MAX_ELEMENTS)) {
      ok = false;
    } else {
      *out *= size; /* both factors below 2^31 */
      ok = *out <= UTVM_OP_PARAMS_MAX_ELEMENTS;
    }
  }
  return ok;
}

static const char *pad_check(utvm_op_params_t *p) {
  uint64_t e = 0u;
  uint64_t out = 1u;
  const char *why = ops_check_n_inputs(p, 1u);
  if (why != NULL) {
    return why;
  }
  if (!ops_dims_elements(&p->dims[0], &e)) {
    return "a dimension is < 1 or a tensor too large";
  }
  if (!pad_output_elements(&p->dims[0], p->p.pad.before, p->p.pad.after, &out)) {
    return "a padding is negative or the output too large";
  }
  (void)ops_set_operand(p, 0u, UTVM_OP_TYPE_INT8, e);
  (void)ops_set_operand(p, 1u, UTVM_OP_TYPE_INT8, out);
  return NULL;
}

static utvm_err_t pad_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_pad_s8(&p->p.pad, &p->dims[0], (const int8_t *)data[0], (int8_t *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_pad_s8 = {pad_walk, pad_check, NULL, pad_run,
                                                 UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t pad_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_DIMS, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_pad_s8 = {"utvm_pad_params_t", "before[4] after[4] pad_value",
    pad_args, NULL};

/* ---- The kernel function utvm_k_pad (any element size, any border) ---- */

typedef char pad_any_check_params[(sizeof(utvm_pad_any_params_t) == 44u) ? 1 : -1];

static void pad_any_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->type);
  ops_walk_block(w, &p->dims[0], sizeof(p->dims[0]));
  ops_walk_block(w, &p->p.pad_any, sizeof(p->p.pad_any));
}

static const char *pad_any_check(utvm_op_params_t *p) {
  const utvm_pad_any_params_t *a = &p->p.pad_any;
  const int32_t in[4] = {p->dims[0].n, p->dims[0].h, p->dims[0].w, p->dims[0].c};
  uint64_t e = 0u;
  uint64_t out = 1u;
  uint32_t i;
  const char *why = ops_check_n_inputs(p, 1u);
  if (why != NULL) {
    return why;
  }
  if ((ops_type_size(p->type) == 0) || (ops_type_size(p->type) != a->element_size)) {
    return "element type and size differ or are not int8, int16 or float32";
  }
  if (!ops_dims_elements(&p->dims[0], &e)) {
    return "a dimension is < 1 or a tensor too large";
  }
  if (!pad_output_elements(&p->dims[0], a->before, a->after, &out)) {
    return "a padding is negative or the output too large";
  }
  if ((a->mode < (int32_t)UTVM_PAD_CONSTANT) || (a->mode > (int32_t)UTVM_PAD_SYMMETRIC)) {
    return "unknown pad mode";
  }
  for (i = 0u; i < 4u; i++) {
    const int32_t most = (a->mode == (int32_t)UTVM_PAD_REFLECT) ? (in[i] - 1) : in[i];
    if ((a->mode != (int32_t)UTVM_PAD_CONSTANT) && ((a->before[i] > most) || (a->after[i] > most))) {
      return "a mirrored padding is larger than its dimension allows";
    }
  }
  if (((a->element_size == 1) && ((a->pad_value < INT8_MIN) || (a->pad_value > INT8_MAX))) ||
      ((a->element_size == 2) && ((a->pad_value < INT16_MIN) || (a->pad_value > INT16_MAX)))) {
    return "the pad value is outside the element type";
  }
  (void)ops_set_operand(p, 0u, (utvm_op_type_t)p->type, e);
  (void)ops_set_operand(p, 1u, (utvm_op_type_t)p->type, out);
  return NULL;
}

static utvm_err_t pad_any_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_pad(&p->p.pad_any, &p->dims[0], data[0], data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_pad = {pad_any_walk, pad_any_check, NULL, pad_any_run,
                                              UTVM_PLAN_STEP_DEFAULT, NULL};

const utvm_op_emit_t utvm_op_emit_pad = {"utvm_pad_any_params_t",
    "element_size mode before[4] after[4] pad_value", pad_args, NULL};

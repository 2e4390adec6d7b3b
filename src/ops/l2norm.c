/* L2_NORMALIZATION over the last dimension (int8, up to 4-D, fused activation NONE; TFLM has
 * no int16): options, prepare, run, op params, emit (kind L2_NORMALIZATION_S8). TFLM's kernel
 * writes 1/128 steps with zero point 0 and checks no output quantization: neither does utvm. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* L2NormOptions (BuiltinOptions 12): the fused activation. */
static const ops_field_t l2norm_options[1] = {
    {0u, OPS_U8, OPS_ACTIVATION, 0, "fused_activation_function"}};

typedef struct {
  ops_ref_t input;
  uint32_t output;
  int32_t rows;
  int32_t depth; /* the last dimension */
  int32_t input_zero_point;
} l2norm_record_t;

static size_t l2norm_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(l2norm_record_t));
}

static utvm_err_t l2norm_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  l2norm_record_t *rec = (l2norm_record_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  int32_t activation = 0;
  bool int16 = false;
  (void)size;
  utvm_err_t err = ops_load_unary_q(c, &in, &out, &int16);
  if (err == UTVM_OK) {
    err = ops_options(c, l2norm_options, 1u, &activation);
  }
  if ((err == UTVM_OK) && (activation != (int32_t)UTVM_ACT_NONE)) {
    err = ops_fail(c, UTVM_ERR_MODEL_BAD_OPTION,
                   "options: fused activation is not NONE (TFLM's check)");
  }
  if ((err == UTVM_OK) && int16) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "input is int16: TFLM's reference kernel has int8 only");
  }
  if ((err == UTVM_OK) && ((in.t.rank < 1u) || (in.t.rank > 4u) || (in.t.rank != out.t.rank) ||
                           (in.t.dims[in.t.rank - 1u] != out.t.dims[out.t.rank - 1u]))) {
    err = ops_fail_fit(c, "output", &out, "input (1-D to 4-D)", &in);
  }
  if ((err == UTVM_OK) && (in.t.dims[in.t.rank - 1u] > UTVM_L2_NORMALIZATION_MAX_DEPTH)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "last dimension above 33025 (the int32 sum of squares overflows)");
  }
  if (err == UTVM_OK) {
    rec->depth = in.t.dims[in.t.rank - 1u];
    rec->rows = (int32_t)in.t.elements / rec->depth;
    rec->input_zero_point = in.t.quant.zero_point;
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  return err;
}

static utvm_err_t l2norm_execute(const void *record, uint8_t *arena) {
  const l2norm_record_t *r = (const l2norm_record_t *)record;
  return utvm_l2_normalization_s8(r->input_zero_point, r->rows, r->depth,
                                  ops_in_s8(arena, &r->input), ops_out_s8(arena, r->output));
}

static void l2norm_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const l2norm_record_t *r = (const l2norm_record_t *)record;
  (void)core;
  p->kind = UTVM_OP_L2_NORMALIZATION_S8;
  p->size = r->rows * r->depth;
  p->depth = r->depth;
  p->zero_point = r->input_zero_point;
}

const utvm_op_t utvm_op_l2_normalization = {(int32_t)UTVM_MODEL_OP_L2_NORMALIZATION, 1u, 1u, 12u,
                                            l2norm_record_size, NULL, l2norm_prepare,
                                            l2norm_execute, l2norm_export, ops_inputs_1, 0u, 0u,
                                            NULL, NULL, NULL, NULL, NULL};

/* ---- The kernel function utvm_k_l2_normalization_s8 ---- */

static void l2norm_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->size);
  ops_walk_i32(w, &p->depth);
  ops_walk_i32(w, &p->zero_point);
}

static const char *l2norm_check(utvm_op_params_t *p) {
  const char *why = ops_check_elementwise(p, UTVM_OP_TYPE_INT8, UTVM_OP_TYPE_INT8);
  if ((why == NULL) && ((p->depth < 1) || ((p->size % p->depth) != 0))) {
    why = "size is not rows of depth elements";
  }
  if ((why == NULL) && (p->depth > UTVM_L2_NORMALIZATION_MAX_DEPTH)) {
    why = "depth above 33025";
  }
  if ((why == NULL) && ((p->zero_point < INT8_MIN) || (p->zero_point > INT8_MAX))) {
    why = "zero point outside int8";
  }
  return why;
}

static utvm_err_t l2norm_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_l2_normalization_s8(p->zero_point, p->size / p->depth, p->depth,
                                  (const int8_t *)data[0], (int8_t *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_l2_normalization_s8 = {
    l2norm_walk, l2norm_check, NULL, l2norm_run, UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t l2norm_args[] = {{UTVM_EMIT_ZERO_POINT, 0u},
    {UTVM_EMIT_ROWS, 0u}, {UTVM_EMIT_DEPTH, 0u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u},
    {UTVM_EMIT_END, 0u}};
const utvm_op_emit_t utvm_op_emit_l2_normalization_s8 = {NULL, NULL, l2norm_args, NULL};

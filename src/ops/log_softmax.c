/* LOG_SOFTMAX over the last dimension (int8; TFLM has no int16): the output fixed at scale
 * 16/256 and zero point 127 as TFLM requires. Prepare, run, op params, emit (kind
 * LOG_SOFTMAX_S8). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* TFLM's fixed output quantization. */
#define LOG_SOFTMAX_OUTPUT_SCALE 0.0625f
#define LOG_SOFTMAX_OUTPUT_ZERO_POINT 127

typedef struct {
  ops_ref_t input;
  uint32_t output;
  int32_t rows;
  int32_t depth; /* the last dimension */
  utvm_log_softmax_params_t params;
} log_softmax_record_t;

static size_t log_softmax_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(log_softmax_record_t));
}

static utvm_err_t log_softmax_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  log_softmax_record_t *rec = (log_softmax_record_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  bool int16 = false;
  (void)size;
  utvm_err_t err = ops_load_unary_q(c, &in, &out, &int16);
  if ((err == UTVM_OK) && int16) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "input is int16: TFLM's reference kernel has int8 only");
  }
  if ((err == UTVM_OK) && ((in.t.rank < 1u) || (in.t.rank != out.t.rank) ||
                           (in.t.dims[in.t.rank - 1u] != out.t.dims[out.t.rank - 1u]))) {
    err = ops_fail_fit(c, "output", &out, "input", &in);
  }
  if ((err == UTVM_OK) && ((out.t.quant.scale != LOG_SOFTMAX_OUTPUT_SCALE) ||
                           (out.t.quant.zero_point != LOG_SOFTMAX_OUTPUT_ZERO_POINT))) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "output scale or zero point is not TFLM's 16/256 and 127");
  }
  if (err == UTVM_OK) {
    rec->depth = in.t.dims[in.t.rank - 1u];
    rec->rows = (int32_t)in.t.elements / rec->depth;
    err = utvm_log_softmax_params_s8(in.t.quant.scale, &rec->params);
    err = (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "input scale");
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  return err;
}

static utvm_err_t log_softmax_execute(const void *record, uint8_t *arena) {
  const log_softmax_record_t *r = (const log_softmax_record_t *)record;
  return utvm_log_softmax_s8(&r->params, r->rows, r->depth, ops_in_s8(arena, &r->input),
                             ops_out_s8(arena, r->output));
}

static void log_softmax_export(const void *record, utvm_kernels_core_t core,
                               utvm_op_params_t *p) {
  const log_softmax_record_t *r = (const log_softmax_record_t *)record;
  (void)core;
  p->kind = UTVM_OP_LOG_SOFTMAX_S8;
  p->size = r->rows * r->depth;
  p->depth = r->depth;
  p->p.log_softmax = r->params;
}

/* LogSoftmaxOptions (BuiltinOptions 36) has no fields. */
const utvm_op_t utvm_op_log_softmax = {(int32_t)UTVM_MODEL_OP_LOG_SOFTMAX, 1u, 1u, 36u,
                                       log_softmax_record_size, NULL, log_softmax_prepare,
                                       log_softmax_execute, log_softmax_export, ops_inputs_1,
                                       0u, 0u, NULL, NULL, NULL, NULL, NULL};

/* ---- The kernel function utvm_k_log_softmax_s8 ---- */

typedef char log_softmax_check_params[(sizeof(utvm_log_softmax_params_t) == 20u) ? 1 : -1];

static void log_softmax_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->size);
  ops_walk_i32(w, &p->depth);
  ops_walk_block(w, &p->p.log_softmax, sizeof(p->p.log_softmax));
}

static const char *log_softmax_check(utvm_op_params_t *p) {
  const char *why = ops_check_elementwise(p, UTVM_OP_TYPE_INT8, UTVM_OP_TYPE_INT8);
  if ((why == NULL) && ((p->depth < 1) || ((p->size % p->depth) != 0))) {
    why = "size is not rows of depth elements";
  }
  return why;
}

static utvm_err_t log_softmax_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_log_softmax_s8(&p->p.log_softmax, p->size / p->depth, p->depth,
                             (const int8_t *)data[0], (int8_t *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_log_softmax_s8 = {log_softmax_walk, log_softmax_check, NULL,
                                                         log_softmax_run, UTVM_PLAN_STEP_DEFAULT,
                                                         NULL};

static const utvm_op_emit_slot_t log_softmax_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_ROWS, 0u}, {UTVM_EMIT_DEPTH, 0u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u},
    {UTVM_EMIT_END, 0u}};
const utvm_op_emit_t utvm_op_emit_log_softmax_s8 = {"utvm_log_softmax_params_t",
    "input_multiplier input_left_shift reverse_scaling_divisor reverse_scaling_shift diff_min",
    log_softmax_args, NULL};

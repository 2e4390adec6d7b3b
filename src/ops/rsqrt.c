/* RSQRT (int8, element-wise; TFLM has no int16): prepare builds the 256-entry table of TFLM's
 * integer arithmetic, the kernel refuses inputs below the zero point as TFLM does (kind
 * RSQRT_S8). Prepare, run, op params, emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

typedef struct {
  ops_ref_t input;
  uint32_t output;
  int32_t size;
  int32_t input_zero_point;
  int8_t table[256];
} rsqrt_record_t;

static size_t rsqrt_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(rsqrt_record_t));
}

static utvm_err_t rsqrt_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  rsqrt_record_t *rec = (rsqrt_record_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  bool int16 = false;
  utvm_rsqrt_params_t params;
  (void)size;
  utvm_err_t err = ops_load_unary_q(c, &in, &out, &int16);
  if ((err == UTVM_OK) && int16) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "input is int16: TFLM's reference kernel has int8 only");
  }
  if (err == UTVM_OK) {
    err = utvm_rsqrt_params_s8(in.t.quant.scale, in.t.quant.zero_point, out.t.quant.scale,
                               out.t.quant.zero_point, &params);
    err = (err == UTVM_OK) ? utvm_rsqrt_table_s8(&params, rec->table) : err;
    err = (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "input scale or output scale");
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  rec->size = (int32_t)in.t.elements;
  rec->input_zero_point = in.t.quant.zero_point;
  return err;
}

static utvm_err_t rsqrt_execute(const void *record, uint8_t *arena) {
  const rsqrt_record_t *r = (const rsqrt_record_t *)record;
  return utvm_rsqrt_s8(r->table, r->input_zero_point, r->size, ops_in_s8(arena, &r->input),
                       ops_out_s8(arena, r->output));
}

static void rsqrt_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const rsqrt_record_t *r = (const rsqrt_record_t *)record;
  (void)core;
  p->kind = UTVM_OP_RSQRT_S8;
  p->size = r->size;
  p->zero_point = r->input_zero_point;
  p->table = r->table;
}

/* No options. */
const utvm_op_t utvm_op_rsqrt = {(int32_t)UTVM_MODEL_OP_RSQRT, 1u, 1u, 0u, rsqrt_record_size,
                                 NULL, rsqrt_prepare, rsqrt_execute, rsqrt_export, ops_inputs_1,
                                 0u, 0u, NULL, NULL, NULL, NULL, NULL};

/* ---- The kernel function utvm_k_rsqrt_s8 ---- */

static void rsqrt_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->size);
  ops_walk_i32(w, &p->zero_point);
  ops_walk_table(w, &p->table);
}

static const char *rsqrt_check(utvm_op_params_t *p) {
  const char *why = ops_check_elementwise(p, UTVM_OP_TYPE_INT8, UTVM_OP_TYPE_INT8);
  if ((why == NULL) && ((p->zero_point < INT8_MIN) || (p->zero_point > INT8_MAX))) {
    why = "zero point outside int8";
  }
  return why;
}

static utvm_err_t rsqrt_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_rsqrt_s8(p->table, p->zero_point, p->size, (const int8_t *)data[0],
                       (int8_t *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_rsqrt_s8 = {rsqrt_walk, rsqrt_check, NULL, rsqrt_run,
                                                   UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t rsqrt_args[] = {{UTVM_EMIT_TABLE, 0u},
    {UTVM_EMIT_ZERO_POINT, 0u}, {UTVM_EMIT_SIZE, 0u}, {UTVM_EMIT_INPUT, 0u},
    {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};
const utvm_op_emit_t utvm_op_emit_rsqrt_s8 = {NULL, NULL, rsqrt_args, NULL};

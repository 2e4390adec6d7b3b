/* HARD_SWISH (int8 and float32, element-wise; TFLM has no int16): TFLite's 16-bit fixed-point
 * HardSwish is a function of the input byte, so prepare builds its 256-entry table and the
 * operator runs as utvm_k_lut_s8 (record, run and op params in unary.c); float32 runs
 * utvm_hard_swish_f32 from the same record (kind HARD_SWISH_F32, here). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

static utvm_err_t hard_swish_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  ops_unary_t *u = (ops_unary_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  utvm_hard_swish_params_t params;
  (void)size;
  const bool f32 = ops_input_is_f32(c);
  utvm_err_t err = f32 ? ops_unary_load_f32(c, u, UTVM_OP_HARD_SWISH_F32, utvm_hard_swish_f32)
                       : ops_unary_load(c, u, &in, &out);
  if ((err == UTVM_OK) && !f32 && (u->int16 != 0)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "input is int16: TFLM's reference kernel has int8 only");
  }
  if ((err == UTVM_OK) && !f32) {
    err = utvm_hard_swish_params_s8(in.t.quant.scale, in.t.quant.zero_point, out.t.quant.scale,
                                    out.t.quant.zero_point, &params);
    err = (err == UTVM_OK) ? utvm_hard_swish_table_s8(&params, u->table) : err;
    err = (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "input scale or output scale");
  }
  return err;
}

/* No options. */
const utvm_op_t utvm_op_hard_swish = {(int32_t)UTVM_MODEL_OP_HARD_SWISH, 1u, 1u, 0u,
                                      ops_unary_record_size, NULL, hard_swish_prepare,
                                      ops_unary_execute, ops_unary_export, ops_inputs_1, 0u, 0u,
                                      NULL, ops_elementwise_kind, NULL, NULL, NULL};

/* ---- The kernel function utvm_k_hard_swish_f32 ---- */

static utvm_err_t hard_swish_f32_run(const utvm_op_params_t *p, void *const *data,
                                     void *scratch) {
  (void)scratch;
  return utvm_hard_swish_f32(p->size, (const float *)data[0], (float *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_hard_swish_f32 = {ops_unary_f32_walk, ops_unary_f32_check,
                                                         NULL, hard_swish_f32_run,
                                                         UTVM_PLAN_STEP_INPLACE, NULL};

static const utvm_op_emit_slot_t hard_swish_f32_args[] = {{UTVM_EMIT_SIZE, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};
const utvm_op_emit_t utvm_op_emit_hard_swish_f32 = {NULL, NULL, hard_swish_f32_args, NULL};

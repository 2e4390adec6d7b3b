/* HARD_SWISH (int8, element-wise; TFLM has no int16): TFLite's 16-bit fixed-point HardSwish is
 * a function of the input byte, so prepare builds its 256-entry table and the operator runs as
 * utvm_k_lut_s8 (record, run and op params in unary.c). */
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
  utvm_err_t err = ops_unary_load(c, u, &in, &out);
  if ((err == UTVM_OK) && (u->int16 != 0)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "input is int16: TFLM's reference kernel has int8 only");
  }
  if (err == UTVM_OK) {
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

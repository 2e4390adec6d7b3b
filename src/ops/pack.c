/* PACK (int8 quantized as the output, int16 with zero points 0, float32; up to 8 inputs of one
 * shape stacked along a new axis): prepare as a concatenation (src/ops/concatenation.c runs
 * it: each input is [outer, 1, inner]). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ops_internal.h"

/* PackOptions (BuiltinOptions 59). */
enum { VALUES_COUNT, AXIS, N_OPTIONS };
static const ops_field_t pack_options[N_OPTIONS] = {{0u, OPS_I32, OPS_ANY, 0, "values_count"},
                                                    {1u, OPS_I32, OPS_ANY, 0, "axis"}};

/* Input k: of the output's type and quantization, its shape the output's without the axis. */
static utvm_err_t pack_input(const utvm_op_context_t *c, uint32_t k, const ops_operand_t *out,
                             uint32_t axis, ops_concat_t *rec) {
  ops_operand_t in;
  uint32_t d;
  utvm_err_t err = ops_concat_input(c, k, out, &in);
  if ((err == UTVM_OK) && ((in.t.rank + 1u) != out->t.rank)) {
    err = ops_fail_fit(c, "input", &in, "output", out);
  }
  for (d = 0u; (d < in.t.rank) && (err == UTVM_OK); d++) {
    if (in.t.dims[d] != out->t.dims[(d < axis) ? d : (d + 1u)]) {
      err = ops_fail_fit(c, "input", &in, "output", out);
    }
  }
  if (err == UTVM_OK) {
    err = ops_input_ref(c, &in, &rec->inputs[k]);
  }
  rec->params.axis_sizes[k] = 1;
  return err;
}

static utvm_err_t pack_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  ops_concat_t *rec = (ops_concat_t *)record;
  ops_operand_t out;
  uint32_t k;
  int32_t o[N_OPTIONS];
  int32_t axis = 0;
  (void)size;
  (void)memset(&out, 0, sizeof(out));
  utvm_err_t err = ops_options(c, pack_options, N_OPTIONS, o);
  if ((err == UTVM_OK) && (o[VALUES_COUNT] != (int32_t)c->op->n_inputs)) {
    err = ops_fail_option(c, "values_count ", o[VALUES_COUNT], " is not the input count");
  }
  if (err == UTVM_OK) {
    err = ops_concat_output(c, &out, rec);
  }
  if (err == UTVM_OK) {
    err = ops_option_axis(c, o[AXIS], out.t.rank, &axis);
  }
  if ((err == UTVM_OK) && (out.t.dims[axis] != (int32_t)c->op->n_inputs)) {
    err = ops_fail_shape(c, "output", &out, " does not have the input count along the axis");
  }
  for (k = 0u; (k < c->op->n_inputs) && (err == UTVM_OK); k++) {
    err = pack_input(c, k, &out, (uint32_t)axis, rec);
  }
  if (err == UTVM_OK) {
    rec->params.outer = ops_dims_product(&out, 0u, (uint32_t)axis);
    rec->params.inner = ops_dims_product(&out, (uint32_t)axis + 1u, out.t.rank);
  }
  return err;
}

/* GATHER when the new axis is the output's outermost dimension that is not 1. */
static utvm_plan_step_kind_t pack_plan_kind(const utvm_model_t *m, uint32_t index,
                                            const utvm_model_operator_t *op) {
  utvm_text_t text;
  utvm_op_context_t c;
  int32_t o[N_OPTIONS] = {0, 0};
  ops_plan_context(&c, &text, m, index, op);
  return (ops_options(&c, pack_options, N_OPTIONS, o) == UTVM_OK)
             ? ops_view_kind(m, op->outputs[0], o[AXIS], UTVM_PLAN_STEP_GATHER)
             : UTVM_PLAN_STEP_DEFAULT;
}

const utvm_op_t utvm_op_pack = {(int32_t)UTVM_MODEL_OP_PACK, 1u, UTVM_MODEL_MAX_OP_INPUTS, 59u,
                                ops_concat_record_size, NULL, pack_prepare, ops_concat_execute,
                                ops_concat_export, ops_inputs_all, 0u, 0u, NULL, pack_plan_kind, NULL,
                                NULL, NULL};

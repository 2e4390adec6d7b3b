/* What the broadcasting binary operators (ADD, MUL) share: operands, shapes and the check. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

utvm_err_t ops_prepare_binary(const utvm_op_context_t *c, ops_binary_t *b, ops_operand_t *in1,
                              ops_operand_t *in2, ops_operand_t *out) {
  utvm_err_t err = ops_load(c, 0u, in1);
  if (err == UTVM_OK) {
    err = ops_load(c, 1u, in2);
  }
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, out);
  }
  if (err == UTVM_OK) {
    err = ops_check_q8(c, in1, "input 1");
  }
  if (err == UTVM_OK) {
    err = ops_check_q8(c, in2, "input 2");
  }
  if (err == UTVM_OK) {
    err = ops_check_q8(c, out, "output");
  }
  if ((err == UTVM_OK) && !ops_broadcasts(&in1->t, &in2->t, &out->t)) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, "inputs ");
    utvm_text_dims(text, in1->t.rank, in1->t.dims);
    utvm_text_str(text, " and ");
    utvm_text_dims(text, in2->t.rank, in2->t.dims);
    utvm_text_str(text, " do not broadcast to output ");
    utvm_text_dims(text, out->t.rank, out->t.dims);
    err = UTVM_ERR_RUNNER_OPERANDS;
  }
  if (err == UTVM_OK) {
    err = ops_input_ref(c, in1, &b->input1);
  }
  if (err == UTVM_OK) {
    err = ops_input_ref(c, in2, &b->input2);
  }
  if (err == UTVM_OK) {
    err = ops_output_offset(c, out, &b->output);
  }
  if (err == UTVM_OK) {
    b->shapes[0] = ops_shape(&in1->t);
    b->shapes[1] = ops_shape(&in2->t);
    b->shapes[2] = ops_shape(&out->t);
  }
  return err;
}

const char *ops_check_binary(utvm_op_params_t *p) {
  uint64_t e = 0u;
  uint32_t i;
  const char *why = ops_check_n_inputs(p, 2u);
  for (i = 0u; (i < 3u) && (why == NULL); i++) {
    if (!ops_shape_elements(&p->shapes[i], &e)) {
      why = "a shape is invalid or too large";
    } else {
      (void)ops_set_operand(p, i, UTVM_OP_TYPE_INT8, e);
    }
  }
  return why;
}

/* What the broadcasting binary operators (ADD, MUL, SUB, MINIMUM, MAXIMUM) share: operands,
 * shapes and the check; float32 ADD, SUB and MUL. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* Loads the operands and checks their types: int8 only, or int8 or int16 alike (*int16). */
static utvm_err_t binary_operands(const utvm_op_context_t *c, ops_operand_t *in1,
                                  ops_operand_t *in2, ops_operand_t *out, bool *int16) {
  bool int16_2 = false;
  bool int16_out = false;
  utvm_err_t err = ops_load(c, 0u, in1);
  if (err == UTVM_OK) {
    err = ops_load(c, 1u, in2);
  }
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, out);
  }
  if (int16 == NULL) {
    if (err == UTVM_OK) {
      err = ops_check_q8(c, in1, "input 1");
    }
    if (err == UTVM_OK) {
      err = ops_check_q8(c, in2, "input 2");
    }
    if (err == UTVM_OK) {
      err = ops_check_q8(c, out, "output");
    }
    return err;
  }
  if (err == UTVM_OK) {
    err = ops_check_q8_q16(c, in1, "input 1", int16);
  }
  if (err == UTVM_OK) {
    err = ops_check_q8_q16(c, in2, "input 2", &int16_2);
  }
  if (err == UTVM_OK) {
    err = ops_check_q8_q16(c, out, "output", &int16_out);
  }
  if ((err == UTVM_OK) && ((*int16 != int16_2) || (*int16 != int16_out))) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED, "inputs and output are not all of one type");
  }
  return err;
}

/* ops_prepare_binary after binary_operands. */
static utvm_err_t binary_places(const utvm_op_context_t *c, ops_binary_t *b,
                                const ops_operand_t *in1, const ops_operand_t *in2,
                                const ops_operand_t *out, utvm_err_t loaded) {
  utvm_err_t err = loaded;
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

utvm_err_t ops_prepare_binary(const utvm_op_context_t *c, ops_binary_t *b, ops_operand_t *in1,
                              ops_operand_t *in2, ops_operand_t *out) {
  return binary_places(c, b, in1, in2, out, binary_operands(c, in1, in2, out, NULL));
}

utvm_err_t ops_prepare_binary_f32(const utvm_op_context_t *c, ops_binary_t *b,
                                  int32_t activation, utvm_activation_f32_t *act) {
  ops_operand_t in1;
  ops_operand_t in2;
  ops_operand_t out;
  utvm_err_t err = ops_check_f32_built(c);
  if (err == UTVM_OK) {
    err = ops_load(c, 0u, &in1);
  }
  if (err == UTVM_OK) {
    err = ops_load(c, 1u, &in2);
  }
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, &out);
  }
  if (err == UTVM_OK) {
    err = ops_check_type(c, &in1, "input 1", UTVM_MODEL_FLOAT32);
  }
  if (err == UTVM_OK) {
    err = ops_check_type(c, &in2, "input 2", UTVM_MODEL_FLOAT32);
  }
  if (err == UTVM_OK) {
    err = ops_check_type(c, &out, "output", UTVM_MODEL_FLOAT32);
  }
  if (err == UTVM_OK) {
    err = utvm_activation_range_f32(activation, &act->act_min, &act->act_max);
    err = (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "activation");
  }
  return binary_places(c, b, &in1, &in2, &out, err);
}

utvm_err_t ops_prepare_binary_q(const utvm_op_context_t *c, ops_binary_t *b, ops_operand_t *in1,
                                ops_operand_t *in2, ops_operand_t *out, bool *int16) {
  return binary_places(c, b, in1, in2, out, binary_operands(c, in1, in2, out, int16));
}

utvm_err_t ops_place_binary(const utvm_op_context_t *c, ops_binary_t *b, const ops_operand_t *in1,
                            const ops_operand_t *in2, const ops_operand_t *out) {
  return binary_places(c, b, in1, in2, out, UTVM_OK);
}

const char *ops_check_binary(utvm_op_params_t *p) {
  return ops_check_binary_as(p, UTVM_OP_TYPE_INT8);
}

const char *ops_check_binary_as(utvm_op_params_t *p, utvm_op_type_t type) {
  uint64_t e = 0u;
  uint32_t i;
  const char *why = ops_check_n_inputs(p, 2u);
  for (i = 0u; (i < 3u) && (why == NULL); i++) {
    if (!ops_shape_elements(&p->shapes[i], &e)) {
      why = "a shape is invalid or too large";
    } else if (!ops_set_operand(p, i, type, e)) {
      why = "a tensor is too large";
    } else {
      /* operand i set */
    }
  }
  return why;
}

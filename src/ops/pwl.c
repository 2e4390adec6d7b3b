/* RELU, RELU6, RELU_N1_TO_1, LEAKY_RELU and ABS (int8 and int16, element-wise; RELU and RELU6
 * also float32, kinds RELU_F32 and RELU6_F32 here, run from unary.c's record): TFLite's
 * quantized forms are one piecewise-linear map (utvm_pwl_params_t) from different scales and
 * clamps; int8 runs it as a 256-entry table built at prepare (utvm_k_lut_s8), int16 directly
 * (utvm_k_pwl_s16). Options and prepare here; record, run and op params in unary.c. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* QuantizeMultiplier's 1.0: rescale(v) = v exactly. */
#define PWL_IDENTITY 1.0

/* The clamp of a fused activation on the output's type. */
static utvm_err_t pwl_activation_range(const utvm_op_context_t *c, const ops_unary_t *u,
                                       const ops_operand_t *out, int32_t activation,
                                       int32_t *act_min, int32_t *act_max) {
  const utvm_err_t err =
      (u->int16 != 0)
          ? utvm_activation_range_s16(activation, out->t.quant.scale, out->t.quant.zero_point,
                                      act_min, act_max)
          : utvm_activation_range_s8(activation, out->t.quant.scale, out->t.quant.zero_point,
                                     act_min, act_max);
  return (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "activation range");
}

/* Fills u->pwl and the table (int8) or checks it (int16). */
static utvm_err_t pwl_finish(const utvm_op_context_t *c, ops_unary_t *u, double positive_real,
                             double negative_real, int32_t mode, const ops_operand_t *in,
                             const ops_operand_t *out, int32_t act_min, int32_t act_max) {
  const utvm_err_t err = utvm_pwl_params(positive_real, negative_real, mode,
                                         in->t.quant.zero_point, out->t.quant.zero_point,
                                         act_min, act_max, &u->pwl);
  return (err == UTVM_OK) ? ops_unary_pwl(c, u) : ops_fail_kernel(c, err, "quantization");
}

/* RELU and RELU_N1_TO_1: ReluQuantized, input scale / output scale (in float). */
static utvm_err_t relu_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  ops_unary_t *u = (ops_unary_t *)record;
  const int32_t activation =
      (c->op->code == UTVM_MODEL_OP_RELU) ? (int32_t)UTVM_ACT_RELU : (int32_t)UTVM_ACT_RELU_N1_TO_1;
  ops_operand_t in;
  ops_operand_t out;
  int32_t act_min = 0;
  int32_t act_max = 0;
  (void)size;
  const bool f32 = (c->op->code == UTVM_MODEL_OP_RELU) && ops_input_is_f32(c);
  utvm_err_t err = f32 ? ops_unary_load_f32(c, u, UTVM_OP_RELU_F32, utvm_relu_f32)
                       : ops_unary_load(c, u, &in, &out);
  if ((err == UTVM_OK) && !f32) {
    err = pwl_activation_range(c, u, &out, activation, &act_min, &act_max);
  }
  if ((err == UTVM_OK) && !f32) {
    const double real = (double)(in.t.quant.scale / out.t.quant.scale);
    err = pwl_finish(c, u, real, real, UTVM_PWL_SCALE, &in, &out, act_min, act_max);
  }
  return err;
}

/* RELU6: TFLM clamps the input to [zero point, quantized 6] without rescaling, so input and
 * output must share their quantization. */
static utvm_err_t relu6_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  ops_unary_t *u = (ops_unary_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  int32_t act_min = 0;
  int32_t act_max = 0;
  (void)size;
  const bool f32 = ops_input_is_f32(c);
  utvm_err_t err = f32 ? ops_unary_load_f32(c, u, UTVM_OP_RELU6_F32, utvm_relu6_f32)
                       : ops_unary_load(c, u, &in, &out);
  if ((err == UTVM_OK) && !f32) {
    err = ops_check_same_quant(c, &in, &out);
  }
  if ((err == UTVM_OK) && !f32) {
    err = pwl_activation_range(c, u, &in, (int32_t)UTVM_ACT_RELU6, &act_min, &act_max);
  }
  if ((err == UTVM_OK) && !f32) {
    err = pwl_finish(c, u, PWL_IDENTITY, PWL_IDENTITY, UTVM_PWL_SCALE, &in, &out, act_min,
                     act_max);
  }
  return err;
}

/* LeakyReluOptions (BuiltinOptions 75): alpha. */
static const ops_field_t leaky_relu_options[1] = {{0u, OPS_F32, OPS_ANY, 0, "alpha"}};

/* LEAKY_RELU: identity and alpha multipliers (QuantizeLeakyRelu), the type's range. */
static utvm_err_t leaky_relu_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  ops_unary_t *u = (ops_unary_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  int32_t alpha_bits = 0;
  int32_t act_min = 0;
  int32_t act_max = 0;
  (void)size;
  utvm_err_t err = ops_options(c, leaky_relu_options, 1u, &alpha_bits);
  if (err == UTVM_OK) {
    err = ops_unary_load(c, u, &in, &out);
  }
  if (err == UTVM_OK) {
    err = pwl_activation_range(c, u, &out, (int32_t)UTVM_ACT_NONE, &act_min, &act_max);
  }
  if (err == UTVM_OK) {
    const float alpha = ops_option_float(alpha_bits);
    const double identity = (double)(in.t.quant.scale / out.t.quant.scale);
    const double scaled_alpha = (double)(in.t.quant.scale * alpha / out.t.quant.scale);
    err = pwl_finish(c, u, identity, scaled_alpha, UTVM_PWL_SCALE, &in, &out, act_min, act_max);
  }
  return err;
}

/* ABS: |x - zero point|, rescaled when the scales differ (AbsEvalQuantized), the type's
 * range. */
static utvm_err_t abs_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  ops_unary_t *u = (ops_unary_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  int32_t act_min = 0;
  int32_t act_max = 0;
  (void)size;
  utvm_err_t err = ops_unary_load(c, u, &in, &out);
  if (err == UTVM_OK) {
    err = pwl_activation_range(c, u, &out, (int32_t)UTVM_ACT_NONE, &act_min, &act_max);
  }
  if (err == UTVM_OK) {
    const double real = (in.t.quant.scale != out.t.quant.scale)
                            ? (double)(in.t.quant.scale / out.t.quant.scale)
                            : PWL_IDENTITY;
    err = pwl_finish(c, u, real, real, UTVM_PWL_ABS, &in, &out, act_min, act_max);
  }
  return err;
}

/* RELU, RELU_N1_TO_1 and RELU6 have no options; ABS accepts AbsOptions (78, empty). */
const utvm_op_t utvm_op_relu = {(int32_t)UTVM_MODEL_OP_RELU, 1u, 1u, 0u, ops_unary_record_size,
                                NULL, relu_prepare, ops_unary_execute, ops_unary_export,
                                ops_inputs_1, 0u, 0u, NULL, ops_elementwise_kind, NULL, NULL, NULL};
const utvm_op_t utvm_op_relu_n1_to_1 = {(int32_t)UTVM_MODEL_OP_RELU_N1_TO_1, 1u, 1u, 0u,
                                        ops_unary_record_size, NULL, relu_prepare,
                                        ops_unary_execute, ops_unary_export, ops_inputs_1,
                                        0u, 0u, NULL, ops_elementwise_kind, NULL, NULL, NULL};
const utvm_op_t utvm_op_relu6 = {(int32_t)UTVM_MODEL_OP_RELU6, 1u, 1u, 0u, ops_unary_record_size,
                                 NULL, relu6_prepare, ops_unary_execute, ops_unary_export,
                                 ops_inputs_1, 0u, 0u, NULL, ops_elementwise_kind, NULL,
                                 NULL, NULL};
const utvm_op_t utvm_op_leaky_relu = {(int32_t)UTVM_MODEL_OP_LEAKY_RELU, 1u, 1u, 75u,
                                      ops_unary_record_size, NULL, leaky_relu_prepare,
                                      ops_unary_execute, ops_unary_export, ops_inputs_1,
                                      0u, 0u, NULL, ops_elementwise_kind, NULL, NULL, NULL};
const utvm_op_t utvm_op_abs = {(int32_t)UTVM_MODEL_OP_ABS, 1u, 1u, 78u, ops_unary_record_size,
                               NULL, abs_prepare, ops_unary_execute, ops_unary_export,
                               ops_inputs_1, 0u, 0u, NULL, ops_elementwise_kind, NULL, NULL, NULL};

/* ---- The kernel functions utvm_k_relu_f32 and utvm_k_relu6_f32 (float32 RELU, RELU6) ---- */

static utvm_err_t relu_f32_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_relu_f32(p->size, (const float *)data[0], (float *)data[1]);
}

static utvm_err_t relu6_f32_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_relu6_f32(p->size, (const float *)data[0], (float *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_relu_f32 = {ops_unary_f32_walk, ops_unary_f32_check, NULL,
                                                   relu_f32_run, UTVM_PLAN_STEP_INPLACE, NULL};
const utvm_op_kind_info_t utvm_op_kind_relu6_f32 = {ops_unary_f32_walk, ops_unary_f32_check,
                                                    NULL, relu6_f32_run, UTVM_PLAN_STEP_INPLACE,
                                                    NULL};

static const utvm_op_emit_slot_t relu_f32_args[] = {{UTVM_EMIT_SIZE, 0u}, {UTVM_EMIT_INPUT, 0u},
    {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};
const utvm_op_emit_t utvm_op_emit_relu_f32 = {NULL, NULL, relu_f32_args, NULL};
const utvm_op_emit_t utvm_op_emit_relu6_f32 = {NULL, NULL, relu_f32_args, NULL};

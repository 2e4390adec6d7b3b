/*
 * Exporting a prepared operator as op params (utvm_runner_op_params): the record that
 * runner_prepare() filled, turned into the kernel function's call, and the model tensors of
 * its operands in the kernel function's order.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runner_internal.h"

static void export_conv(const runner_conv_t *c, bool depthwise, utvm_kernels_core_t core,
                        utvm_op_params_t *p) {
  p->kind = depthwise ? UTVM_OP_DEPTHWISE_CONV2D_S8 : UTVM_OP_CONV2D_S8;
  p->dims[0] = c->input_dims;
  p->dims[1] = c->filter_dims;
  p->dims[2] = c->output_dims;
  if (depthwise) {
    p->p.depthwise = c->params.depthwise;
    p->scratch_bytes =
        (uint32_t)utvm_depthwise_conv2d_s8_scratch_size(&c->input_dims, &c->filter_dims,
                                                        &c->output_dims);
  } else {
    p->p.conv = c->params.conv;
    p->scratch_bytes =
        (uint32_t)utvm_conv2d_s8_scratch_size_for(core, &c->input_dims, &c->filter_dims,
                                                  &c->output_dims);
  }
  p->has_bias = (c->bias != NULL) ? 1u : 0u;
  p->quant = c->quant;
}

static void export_fc(const runner_fc_t *f, utvm_op_params_t *p) {
  p->kind = UTVM_OP_FULLY_CONNECTED_S8;
  p->batches = f->batches;
  p->depth = f->depth;
  p->units = f->units;
  p->p.fc = f->params;
  p->has_bias = (f->bias != NULL) ? 1u : 0u;
  p->quant = f->quant;
  p->scratch_bytes =
      (uint32_t)utvm_fully_connected_s8_scratch_size(f->batches, f->depth, f->units);
}

static void export_unary(utvm_model_op_t code, const runner_unary_t *u, utvm_op_params_t *p) {
  p->size = u->size;
  switch (code) {
    case UTVM_MODEL_OP_SOFTMAX:
      p->kind = UTVM_OP_SOFTMAX_S8;
      p->depth = u->depth;
      p->p.softmax = u->params.softmax;
      break;
    case UTVM_MODEL_OP_LOGISTIC:
    case UTVM_MODEL_OP_TANH:
      p->kind = (code == UTVM_MODEL_OP_LOGISTIC) ? UTVM_OP_LOGISTIC_S8 : UTVM_OP_TANH_S8;
      p->p.logistic = u->params.logistic;
      break;
    case UTVM_MODEL_OP_QUANTIZE:
      if (u->scale > 0.0f) {
        p->kind = UTVM_OP_QUANTIZE_F32_S8;
        p->scale = u->scale;
        p->zero_point = u->zero_point;
      } else {
        p->kind = UTVM_OP_REQUANTIZE_S8;
        p->p.requantize = u->params.requantize;
      }
      break;
    case UTVM_MODEL_OP_DEQUANTIZE:
      p->kind = UTVM_OP_DEQUANTIZE_S8_F32;
      p->scale = u->scale;
      p->zero_point = u->zero_point;
      break;
    default: /* RESHAPE, SQUEEZE */
      p->kind = UTVM_OP_RESHAPE;
      p->size = 0;
      p->bytes = u->bytes;
      break;
  }
}

/* The record's fields as op params (n_inputs set by the caller). */
static void export_record(utvm_model_op_t code, const void *record, utvm_kernels_core_t core,
                          utvm_op_params_t *p) {
  switch (code) {
    case UTVM_MODEL_OP_CONV_2D:
    case UTVM_MODEL_OP_DEPTHWISE_CONV_2D:
      export_conv((const runner_conv_t *)record, code == UTVM_MODEL_OP_DEPTHWISE_CONV_2D, core,
                  p);
      break;
    case UTVM_MODEL_OP_FULLY_CONNECTED:
      export_fc((const runner_fc_t *)record, p);
      break;
    case UTVM_MODEL_OP_AVERAGE_POOL_2D:
    case UTVM_MODEL_OP_MAX_POOL_2D: {
      const runner_pool_t *r = (const runner_pool_t *)record;
      p->kind = (code == UTVM_MODEL_OP_AVERAGE_POOL_2D) ? UTVM_OP_AVG_POOL2D_S8
                                                        : UTVM_OP_MAX_POOL2D_S8;
      p->dims[0] = r->input_dims;
      p->dims[1] = r->output_dims;
      p->p.pool = r->params;
      break;
    }
    case UTVM_MODEL_OP_ADD:
    case UTVM_MODEL_OP_MUL: {
      const runner_binary_t *b = (const runner_binary_t *)record;
      p->shapes[0] = b->shape1;
      p->shapes[1] = b->shape2;
      p->shapes[2] = b->output_shape;
      if (code == UTVM_MODEL_OP_ADD) {
        p->kind = UTVM_OP_ADD_S8;
        p->p.add = b->params.add;
      } else {
        p->kind = UTVM_OP_MUL_S8;
        p->p.mul = b->params.mul;
      }
      break;
    }
    case UTVM_MODEL_OP_PAD: {
      const runner_pad_t *r = (const runner_pad_t *)record;
      p->kind = UTVM_OP_PAD_S8;
      p->dims[0] = r->input_dims;
      p->p.pad = r->params;
      break;
    }
    case UTVM_MODEL_OP_CONCATENATION: {
      const runner_concat_t *r = (const runner_concat_t *)record;
      int32_t i;
      p->kind = UTVM_OP_CONCATENATION_S8;
      p->axis = r->axis;
      for (i = 0; (i < r->n_inputs) && (i < (int32_t)UTVM_OP_PARAMS_MAX_INPUTS); i++) {
        p->shapes[i] = r->shapes[i];
      }
      p->shapes[i] = r->output_shape; /* i <= UTVM_OP_PARAMS_MAX_INPUTS */
      break;
    }
    case UTVM_MODEL_OP_MEAN: {
      const runner_mean_t *r = (const runner_mean_t *)record;
      int32_t i;
      p->kind = UTVM_OP_MEAN_S8;
      p->shapes[0] = r->input_shape;
      p->n_axes = r->n_axes;
      for (i = 0; i < UTVM_KERNEL_MAX_RANK; i++) {
        p->axes[i] = (i < r->n_axes) ? r->axes[i] : 0;
      }
      p->p.mean = r->params;
      break;
    }
    default:
      export_unary(code, (const runner_unary_t *)record, p);
      break;
  }
}

/* The model tensors the kernel function takes, in its order. */
static utvm_err_t export_operands(const utvm_model_operator_t *op, utvm_op_operands_t *o) {
  uint32_t take = 1u;
  uint32_t i;
  switch (op->code) {
    case UTVM_MODEL_OP_CONV_2D:
    case UTVM_MODEL_OP_DEPTHWISE_CONV_2D:
    case UTVM_MODEL_OP_FULLY_CONNECTED:
      take = ((op->n_inputs > 2u) && (op->inputs[2] >= 0)) ? 3u : 2u;
      break;
    case UTVM_MODEL_OP_ADD:
    case UTVM_MODEL_OP_MUL:
      take = 2u;
      break;
    case UTVM_MODEL_OP_CONCATENATION:
      take = op->n_inputs;
      break;
    default: /* one data input; PAD paddings, MEAN axes, RESHAPE shape are in the params */
      break;
  }
  if ((take > UTVM_OP_PARAMS_MAX_INPUTS) || (take > op->n_inputs) || (op->n_outputs != 1u) ||
      (op->outputs[0] < 0)) {
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  o->n_inputs = take;
  for (i = 0u; i < take; i++) {
    if (op->inputs[i] < 0) {
      return UTVM_ERR_RUNNER_ARGUMENT;
    }
    o->inputs[i] = (uint32_t)op->inputs[i];
  }
  o->output = (uint32_t)op->outputs[0];
  return UTVM_OK;
}

utvm_err_t utvm_runner_op_params(const utvm_runner_t *r, uint32_t k, utvm_op_params_t *p,
                                 utvm_op_operands_t *operands) {
  utvm_model_operator_t op;
  const char *why = "";
  if ((r == NULL) || (p == NULL) || (operands == NULL) || !r->ready_ || (k >= r->n_operators) ||
      (utvm_model_operator(r->model_, k, &op) != UTVM_OK)) {
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  (void)memset(p, 0, sizeof(*p));
  (void)memset(operands, 0, sizeof(*operands));
  utvm_err_t err = export_operands(&op, operands);
  if (err == UTVM_OK) {
    const runner_op_t *ops = (const runner_op_t *)r->ops_;
    export_record(ops[k].code, &r->records_[ops[k].record], r->core_, p);
    p->n_inputs = operands->n_inputs;
    err = utvm_op_params_check(p, &why);
  }
  return err;
}

utvm_err_t utvm_runner_op_scratch(const utvm_runner_t *r, uint32_t k, uint32_t *offset) {
  if ((r == NULL) || (offset == NULL) || !r->ready_ || (k >= r->n_operators)) {
    return UTVM_ERR_RUNNER_ARGUMENT;
  }
  const runner_op_t *ops = (const runner_op_t *)r->ops_;
  const void *record = &r->records_[ops[k].record];
  switch (ops[k].code) {
    case UTVM_MODEL_OP_CONV_2D:
    case UTVM_MODEL_OP_DEPTHWISE_CONV_2D:
      *offset = ((const runner_conv_t *)record)->scratch;
      break;
    case UTVM_MODEL_OP_FULLY_CONNECTED:
      *offset = ((const runner_fc_t *)record)->scratch;
      break;
    default:
      *offset = UTVM_PLAN_NO_OFFSET;
      break;
  }
  return UTVM_OK;
}

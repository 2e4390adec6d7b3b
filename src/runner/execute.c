/* Running one prepared operator: its operands' addresses in the arena (or in the model's
 * constant data) and one kernel call. Every check was made by runner_prepare(). */
#include <stddef.h>
#include <stdint.h>

#include "runner_internal.h"

static const void *input_at(uint8_t *arena, const runner_ref_t *ref) {
  const void *p;
  if (ref->constant != NULL) {
    p = ref->constant;
  } else {
    p = &arena[ref->offset];
  }
  return p;
}

static const int8_t *input_s8(uint8_t *arena, const runner_ref_t *ref) {
  return (const int8_t *)input_at(arena, ref);
}

static int8_t *output_s8(uint8_t *arena, uint32_t offset) {
  void *p = &arena[offset];
  return (int8_t *)p;
}

static void *scratch_at(uint8_t *arena, uint32_t offset) {
  void *p = NULL;
  if (offset != UTVM_PLAN_NO_OFFSET) {
    p = &arena[offset];
  }
  return p;
}

static utvm_err_t run_conv(const runner_conv_t *c, bool depthwise, uint8_t *arena) {
  utvm_err_t err;
  if (depthwise) {
    err = utvm_depthwise_conv2d_s8(&c->params.depthwise, &c->quant, &c->input_dims,
                                   input_s8(arena, &c->input), &c->filter_dims, c->filter, c->bias,
                                   &c->output_dims, output_s8(arena, c->output),
                                   scratch_at(arena, c->scratch));
  } else {
    err = utvm_conv2d_s8(&c->params.conv, &c->quant, &c->input_dims, input_s8(arena, &c->input),
                         &c->filter_dims, c->filter, c->bias, &c->output_dims,
                         output_s8(arena, c->output), scratch_at(arena, c->scratch));
  }
  return err;
}

static utvm_err_t run_unary(utvm_model_op_t code, const runner_unary_t *u, uint8_t *arena) {
  utvm_err_t err;
  switch (code) {
    case UTVM_MODEL_OP_SOFTMAX:
      err = utvm_softmax_s8(&u->params.softmax, u->size / u->depth, u->depth,
                            input_s8(arena, &u->input), output_s8(arena, u->output));
      break;
    case UTVM_MODEL_OP_LOGISTIC:
      err = utvm_logistic_s8(&u->params.logistic, u->size, input_s8(arena, &u->input),
                             output_s8(arena, u->output));
      break;
    case UTVM_MODEL_OP_TANH:
      err = utvm_tanh_s8(&u->params.logistic, u->size, input_s8(arena, &u->input),
                         output_s8(arena, u->output));
      break;
    case UTVM_MODEL_OP_QUANTIZE:
      if (u->scale > 0.0f) {
        const float *in = (const float *)input_at(arena, &u->input);
        err = utvm_quantize_f32_s8(u->scale, u->zero_point, u->size, in,
                                   output_s8(arena, u->output));
      } else {
        err = utvm_requantize_s8(&u->params.requantize, u->size, input_s8(arena, &u->input),
                                 output_s8(arena, u->output));
      }
      break;
    case UTVM_MODEL_OP_DEQUANTIZE: {
      void *out = &arena[u->output];
      err = utvm_dequantize_s8_f32(u->scale, u->zero_point, u->size, input_s8(arena, &u->input),
                                   (float *)out);
      break;
    }
    default: /* RESHAPE, SQUEEZE: nothing to do when the planner aliased the two */
      err = utvm_reshape(input_at(arena, &u->input), &arena[u->output], u->bytes);
      break;
  }
  return err;
}

static utvm_err_t run_concat(const runner_concat_t *c, uint8_t *arena) {
  const int8_t *inputs[UTVM_MODEL_MAX_OP_INPUTS];
  int32_t k;
  for (k = 0; (k < c->n_inputs) && (k < (int32_t)UTVM_MODEL_MAX_OP_INPUTS); k++) {
    inputs[k] = input_s8(arena, &c->inputs[k]);
  }
  return utvm_concatenation_s8(c->n_inputs, inputs, c->shapes, c->axis, &c->output_shape,
                               output_s8(arena, c->output));
}

utvm_err_t runner_execute(utvm_model_op_t code, const void *record, uint8_t *arena) {
  utvm_err_t err;
  switch (code) {
    case UTVM_MODEL_OP_CONV_2D:
    case UTVM_MODEL_OP_DEPTHWISE_CONV_2D:
      err = run_conv((const runner_conv_t *)record,
                     code == UTVM_MODEL_OP_DEPTHWISE_CONV_2D, arena);
      break;
    case UTVM_MODEL_OP_FULLY_CONNECTED: {
      const runner_fc_t *f = (const runner_fc_t *)record;
      err = utvm_fully_connected_s8(&f->params, &f->quant, f->batches, f->depth, f->units,
                                    input_s8(arena, &f->input), f->filter, f->bias,
                                    output_s8(arena, f->output), scratch_at(arena, f->scratch));
      break;
    }
    case UTVM_MODEL_OP_AVERAGE_POOL_2D:
    case UTVM_MODEL_OP_MAX_POOL_2D: {
      const runner_pool_t *p = (const runner_pool_t *)record;
      err = (code == UTVM_MODEL_OP_AVERAGE_POOL_2D)
                ? utvm_avg_pool2d_s8(&p->params, &p->input_dims, input_s8(arena, &p->input),
                                     &p->output_dims, output_s8(arena, p->output))
                : utvm_max_pool2d_s8(&p->params, &p->input_dims, input_s8(arena, &p->input),
                                     &p->output_dims, output_s8(arena, p->output));
      break;
    }
    case UTVM_MODEL_OP_ADD:
    case UTVM_MODEL_OP_MUL: {
      const runner_binary_t *b = (const runner_binary_t *)record;
      err = (code == UTVM_MODEL_OP_ADD)
                ? utvm_add_s8(&b->params.add, &b->shape1, input_s8(arena, &b->input1),
                              &b->shape2, input_s8(arena, &b->input2), &b->output_shape,
                              output_s8(arena, b->output))
                : utvm_mul_s8(&b->params.mul, &b->shape1, input_s8(arena, &b->input1),
                              &b->shape2, input_s8(arena, &b->input2), &b->output_shape,
                              output_s8(arena, b->output));
      break;
    }
    case UTVM_MODEL_OP_PAD: {
      const runner_pad_t *p = (const runner_pad_t *)record;
      err = utvm_pad_s8(&p->params, &p->input_dims, input_s8(arena, &p->input),
                        output_s8(arena, p->output));
      break;
    }
    case UTVM_MODEL_OP_CONCATENATION:
      err = run_concat((const runner_concat_t *)record, arena);
      break;
    case UTVM_MODEL_OP_MEAN: {
      const runner_mean_t *m = (const runner_mean_t *)record;
      err = utvm_mean_s8(&m->params, &m->input_shape, input_s8(arena, &m->input), m->axes,
                         m->n_axes, output_s8(arena, m->output));
      break;
    }
    default:
      err = run_unary(code, (const runner_unary_t *)record, arena);
      break;
  }
  return err;
}

/*
 * Internal to src/runner: the prepared form of each operator (its kernel's parameters and
 * where its operands live) and the per-operator prepare step.
 */
#ifndef UTVM_RUNNER_INTERNAL_H
#define UTVM_RUNNER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "utvm/kernels.h"
#include "utvm/model.h"
#include "utvm/runner.h"

/* Records in the workspace start at multiples of this. */
#define RUNNER_ALIGN 8u

/* Where an input operand lives: constant data in the model, or an arena offset. Offsets are
 * the planner's (32-bit, below 4 GiB). */
typedef struct {
  const uint8_t *constant; /* NULL: at arena + offset */
  uint32_t offset;
} runner_ref_t;

typedef struct {
  runner_ref_t input;
  const int8_t *filter;
  const int32_t *bias;     /* NULL when the model has none */
  uint32_t output;
  uint32_t scratch;        /* arena offset, or UTVM_PLAN_NO_OFFSET */
  utvm_dims_t input_dims;
  utvm_dims_t filter_dims;
  utvm_dims_t output_dims;
  utvm_per_channel_quant_t quant; /* arrays follow the record in the workspace */
  union {
    utvm_conv2d_params_t conv;
    utvm_depthwise_conv2d_params_t depthwise;
  } params;
} runner_conv_t;

typedef struct {
  runner_ref_t input;
  const int8_t *filter;
  const int32_t *bias;
  utvm_per_channel_quant_t quant; /* arrays follow the record in the workspace */
  uint32_t output;
  uint32_t scratch;
  int32_t batches;
  int32_t depth;
  int32_t units;
  utvm_fully_connected_params_t params;
} runner_fc_t;

typedef struct {
  runner_ref_t input;
  uint32_t output;
  utvm_dims_t input_dims;
  utvm_dims_t output_dims;
  utvm_pool2d_params_t params;
} runner_pool_t;

typedef struct {
  runner_ref_t input1;
  runner_ref_t input2;
  uint32_t output;
  utvm_shape_t shape1;
  utvm_shape_t shape2;
  utvm_shape_t output_shape;
  union {
    utvm_add_params_t add;
    utvm_mul_params_t mul;
  } params;
} runner_binary_t;

/* SOFTMAX, LOGISTIC, TANH, QUANTIZE, DEQUANTIZE, RESHAPE, SQUEEZE: one input, one output of
 * the same number of elements. */
typedef struct {
  runner_ref_t input;
  uint32_t output;
  int32_t size;            /* elements */
  int32_t depth;           /* SOFTMAX: the last dimension */
  uint32_t bytes;          /* RESHAPE, SQUEEZE */
  float scale;             /* QUANTIZE from float32 (output), DEQUANTIZE (input) */
  int32_t zero_point;
  union {
    utvm_softmax_params_t softmax;
    utvm_logistic_params_t logistic;
    utvm_requantize_params_t requantize;
  } params;
} runner_unary_t;

typedef struct {
  runner_ref_t input;
  uint32_t output;
  utvm_dims_t input_dims;
  utvm_pad_params_t params;
} runner_pad_t;

typedef struct {
  uint32_t output;
  int32_t n_inputs;
  int32_t axis;
  utvm_shape_t output_shape;
  runner_ref_t inputs[UTVM_MODEL_MAX_OP_INPUTS];
  utvm_shape_t shapes[UTVM_MODEL_MAX_OP_INPUTS];
} runner_concat_t;

typedef struct {
  runner_ref_t input;
  uint32_t output;
  utvm_shape_t input_shape;
  int32_t n_axes;
  int32_t axes[UTVM_KERNEL_MAX_RANK];
  utvm_mean_params_t params;
} runner_mean_t;

/* One prepared operator: its code and where its record (one of the types above) starts, in
 * bytes from the first record. */
typedef struct {
  utvm_model_op_t code;
  uint32_t record;
} runner_op_t;

/* The name of a tensor type ("int8"). */
const char *runner_type_name(utvm_model_type_t type);

/* Bytes of operator op's record with its arrays (a multiple of RUNNER_ALIGN), or SIZE_MAX if
 * its operands cannot be decoded. */
size_t runner_record_size(const utvm_model_t *m, const utvm_model_operator_t *op);

/* Everything prepare needs to know about the runner being set up. */
typedef struct {
  const utvm_model_t *m;
  const uint32_t *offsets;      /* the plan's tensor offsets */
  const uint32_t *scratch_offsets;
  utvm_text_t *text;
} runner_prepare_ctx_t;

/* Checks operator index (decoded in *op) and fills its record (record_size bytes, aligned to
 * RUNNER_ALIGN) with everything invoke needs; on failure writes the text. */
utvm_err_t runner_prepare(const runner_prepare_ctx_t *ctx, uint32_t index,
                          const utvm_model_operator_t *op, void *record, size_t record_size);

/* Runs a prepared operator (its code and record) on arena. */
utvm_err_t runner_execute(utvm_model_op_t code, const void *record, uint8_t *arena);

#endif /* UTVM_RUNNER_INTERNAL_H */

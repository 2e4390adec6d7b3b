/*
 * Internal to src/ops: what the operator files share. Prepare helpers (operands, checks and
 * error texts, the places of operands, per-channel arrays), option reading from a field table,
 * the op-params walk and its checks, and the operator and kind descriptors each file defines.
 */
#ifndef UTVM_OPS_INTERNAL_H
#define UTVM_OPS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/kernels.h"
#include "utvm/model.h"
#include "utvm/ops.h"

/* ---- Descriptors, defined by the operator files ---- */

#define OPS_DECLARE_KIND_(A, kind, name)                                                           \
  extern const utvm_op_kind_info_t utvm_op_kind_##name;                                            \
  extern const utvm_op_emit_t utvm_op_emit_##name;
UTVM_OP_KIND_LIST(OPS_DECLARE_KIND_, 0)
#undef OPS_DECLARE_KIND_

/* ---- Operands ---- */

/* A decoded operand and its tensor index. */
typedef struct {
  uint32_t index;
  utvm_model_tensor_t t;
} ops_operand_t;

/* Where an input operand lives: constant data in the model, or an arena offset. */
typedef struct {
  const uint8_t *constant; /* NULL: at arena + offset */
  uint32_t offset;
} ops_ref_t;

/* Index of output 0 for ops_load. */
#define OPS_OUTPUT UINT32_MAX

/* Bytes rounded up to UTVM_OP_RECORD_ALIGN. */
uint64_t ops_align(uint64_t bytes);

/* A record of `bytes` with nothing after it: its aligned size. */
size_t ops_record_bytes(size_t bytes);

/* Decodes input k (which must be present) or OPS_OUTPUT. */
utvm_err_t ops_load(const utvm_op_context_t *c, uint32_t k, ops_operand_t *o);

/* Decodes output j (which must be present). */
utvm_err_t ops_load_output(const utvm_op_context_t *c, uint32_t j, ops_operand_t *o);

/* True if input k is given (not -1). */
bool ops_present(const utvm_model_operator_t *op, uint32_t k);

/* Starts the text "operator <k> (<NAME>): " and returns it. */
utvm_text_t *ops_begin(const utvm_op_context_t *c);

/* "<msg>"; returns err. */
utvm_err_t ops_fail(const utvm_op_context_t *c, utvm_err_t err, const char *msg);

/* "<what>: <kernel error>" for a failed prepare helper. */
utvm_err_t ops_fail_kernel(const utvm_op_context_t *c, utvm_err_t err, const char *what);

/* "<role> <shape><msg>"; UTVM_ERR_RUNNER_OPERANDS. */
utvm_err_t ops_fail_shape(const utvm_op_context_t *c, const char *role, const ops_operand_t *o,
                          const char *msg);

/* "<role> <shape> does not fit <other> <shape>"; UTVM_ERR_RUNNER_OPERANDS. */
utvm_err_t ops_fail_fit(const utvm_op_context_t *c, const char *role, const ops_operand_t *a,
                        const char *other, const ops_operand_t *b);

/* "output <shape> is not the [n,h,w,c] the options give"; UTVM_ERR_RUNNER_OPERANDS. */
utvm_err_t ops_fail_output_size(const utvm_op_context_t *c, const ops_operand_t *out, int32_t h,
                                int32_t w);

/* Every dimension >= 1 (the kernels do not take empty tensors). */
utvm_err_t ops_check_nonempty(const utvm_op_context_t *c, const ops_operand_t *o,
                              const char *role);

/* Of the type, every dimension >= 1. */
utvm_err_t ops_check_type(const utvm_op_context_t *c, const ops_operand_t *o, const char *role,
                          utvm_model_type_t type);

/* int16, quantized per tensor with zero point 0 (TFLM's int16x8 kernels), every dimension >= 1. */
utvm_err_t ops_check_q16(const utvm_op_context_t *c, const ops_operand_t *o, const char *role);

/* int16 quantized per tensor with any zero point (QUANTIZE, DEQUANTIZE, SOFTMAX's int16
 * output of int8), every dimension >= 1. */
utvm_err_t ops_check_q16_any(const utvm_op_context_t *c, const ops_operand_t *o,
                             const char *role);

/* int8, quantized per tensor, every dimension >= 1. */
utvm_err_t ops_check_q8(const utvm_op_context_t *c, const ops_operand_t *o, const char *role);

/* The op-params type of an int8, int16, int32 or float32 operand (any other is refused). */
utvm_err_t ops_element_type(const utvm_op_context_t *c, const ops_operand_t *o, const char *role,
                            utvm_op_type_t *type);

/* Of rank `rank`. */
utvm_err_t ops_check_rank(const utvm_op_context_t *c, const ops_operand_t *o, const char *role,
                          uint32_t rank);

/* Constant data in the model. */
utvm_err_t ops_check_constant(const utvm_op_context_t *c, const ops_operand_t *o,
                              const char *role);

/* A multiplier's shift within the kernels' range (-31..31). */
utvm_err_t ops_check_shift(const utvm_op_context_t *c, int32_t shift);

/* The same scale and zero point. */
bool ops_same_quant(const ops_operand_t *a, const ops_operand_t *b);

/* "input and output scales or zero points differ" unless they are the same. */
utvm_err_t ops_check_same_quant(const utvm_op_context_t *c, const ops_operand_t *in,
                                const ops_operand_t *out);

/* The output of SOFTMAX, LOGISTIC or TANH: scale (1/2^n: 1/256, 1/128, 1/32768, 1/65536;
 * within TFLite's tolerance) and zero point fixed. */
utvm_err_t ops_check_fixed_output(const utvm_op_context_t *c, const ops_operand_t *out,
                                  float scale, int32_t zero_point);
#define OPS_SCALE_1_256 0.00390625f
#define OPS_SCALE_1_128 0.0078125f
#define OPS_SCALE_1_32768 3.0517578125e-05f
#define OPS_SCALE_1_65536 1.52587890625e-05f

/* float32: input 0 and the output, both float32, every dimension >= 1 (a mixed operator is
 * refused naming the operand that is not float32); same_size: of as many elements. */
utvm_err_t ops_load_f32(const utvm_op_context_t *c, bool same_size, ops_operand_t *in,
                        ops_operand_t *out);

/* UTVM_OK when this build has the float32 operators (UTVM_HAVE_F32, utvm/kernels.h), else
 * UTVM_ERR_RUNNER_UNSUPPORTED with the text: the prepare of every float32 arithmetic operator
 * (kinds CONV2D_F32 ... MEAN_F32) calls it first; the layout operators and QUANTIZE and
 * DEQUANTIZE, which run without an FPU, do not. */
utvm_err_t ops_check_f32_built(const utvm_op_context_t *c);

/* ops_load_f32 of a float32 arithmetic operator: ops_check_f32_built first. */
utvm_err_t ops_load_f32_op(const utvm_op_context_t *c, bool same_size, ops_operand_t *in,
                           ops_operand_t *out);

/* Whether input 0 of the operator is float32 (false when it cannot be decoded). */
bool ops_input_is_f32(const utvm_op_context_t *c);

/* Input 0 and the output, both int8 per tensor. */
utvm_err_t ops_load_q8(const utvm_op_context_t *c, ops_operand_t *in, ops_operand_t *out);

/* Input 0 and the output, both present, int8 per tensor (check_q8 when q8) and of as many
 * elements. */
utvm_err_t ops_load_unary(const utvm_op_context_t *c, bool q8, ops_operand_t *in,
                          ops_operand_t *out);

/* Where an input operand lives, and the output's arena offset. */
utvm_err_t ops_input_ref(const utvm_op_context_t *c, const ops_operand_t *o, ops_ref_t *ref);
utvm_err_t ops_output_offset(const utvm_op_context_t *c, const ops_operand_t *o,
                             uint32_t *offset);

/* Where the input lives and the output's arena offset (ops_input_ref, ops_output_offset). */
utvm_err_t ops_places(const utvm_op_context_t *c, const ops_operand_t *in, ops_ref_t *input,
                      const ops_operand_t *out, uint32_t *output);

/* A 4-D tensor as kernel dims, any tensor as a kernel shape. */
utvm_dims_t ops_dims(const utvm_model_tensor_t *t);
utvm_shape_t ops_shape(const utvm_model_tensor_t *t);

/* TFLite's padding enum as the kernels'. */
utvm_padding_t ops_padding(int32_t padding);

/* Entry i of an int32 or int64 constant; false if it does not fit int32. */
bool ops_read_int(const utvm_model_tensor_t *t, size_t i, int32_t *v);

/* Input k: a constant int32 (or int64 when allowed) list, the paddings of PAD, the axes of
 * MEAN. */
utvm_err_t ops_load_int_constant(const utvm_op_context_t *c, uint32_t k, const char *role,
                                 bool allow_int64, ops_operand_t *o);

/* numpy broadcasting of a and b to out (ranks up to UTVM_KERNEL_MAX_RANK). */
bool ops_broadcasts(const utvm_model_tensor_t *a, const utvm_model_tensor_t *b,
                    const utvm_model_tensor_t *out);

/* ---- Layout operators (int8, int16, float32: the bytes move, the values do not) ---- */

/* Input 0 and the output: both present, of one type (int8 or int16 quantized per tensor with
 * one scale and zero point, or float32), every dimension >= 1; *type receives the op-params
 * type and *size the element size. */
utvm_err_t ops_load_layout(const utvm_op_context_t *c, ops_operand_t *in, ops_operand_t *out,
                           utvm_op_type_t *type, int32_t *size);

/* The record of a strided-copy operator (src/ops/strided_copy.c runs and exports it). */
typedef struct {
  ops_ref_t input;
  uint32_t output;
  int32_t type; /* utvm_op_type_t */
  utvm_strided_copy_params_t params;
} ops_copy_t;

/* Loads input 0 and the output (ops_load_layout) into in and out and starts rec: element size
 * and type, places, the input's element count, start 0; strides[] receives the input's
 * row-major strides (in elements, 0 past its rank). */
utvm_err_t ops_copy_begin(const utvm_op_context_t *c, ops_copy_t *rec, ops_operand_t *in,
                          ops_operand_t *out, int32_t *strides);

/* The descriptor phases shared by the strided-copy operators. */
size_t ops_copy_record_size(const utvm_model_t *m, const utvm_model_operator_t *op);
utvm_err_t ops_copy_execute(const void *record, uint8_t *arena);
void ops_copy_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p);

/* The record of a concatenation (CONCATENATION, PACK; src/ops/concatenation.c runs it). */
typedef struct {
  uint32_t output;
  int32_t type; /* utvm_op_type_t */
  utvm_concat_params_t params;
  ops_ref_t inputs[UTVM_CONCAT_MAX_INPUTS];
} ops_concat_t;

/* Loads the output of a concatenation: int8 per tensor, int16 per tensor with zero point 0,
 * or float32, at most UTVM_CONCAT_MAX_INPUTS inputs; fills rec's type, output place, element
 * size and input count. */
utvm_err_t ops_concat_output(const utvm_op_context_t *c, ops_operand_t *out, ops_concat_t *rec);

/* Loads input k of a concatenation: of out's type, int8 quantized as out, int16 with zero
 * point 0. */
utvm_err_t ops_concat_input(const utvm_op_context_t *c, uint32_t k, const ops_operand_t *out,
                            ops_operand_t *in);

/* The elements of out's dimensions [from, to). */
int32_t ops_dims_product(const ops_operand_t *out, uint32_t from, uint32_t to);

/* The descriptor phases shared by the concatenations. */
size_t ops_concat_record_size(const utvm_model_t *m, const utvm_model_operator_t *op);
utvm_err_t ops_concat_execute(const void *record, uint8_t *arena);
void ops_concat_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p);

/* ---- Weighted operators (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED) ---- */

/* Bytes of a record of record_bytes followed by the per-channel arrays of the filter
 * (input 1) of op: count int32 multipliers, then count int8 shifts. */
size_t ops_weighted_record_size(const utvm_model_t *m, const utvm_model_operator_t *op,
                                size_t record_bytes);

/* Input 0, the filter (input 1) and the output, input and output both int8 per tensor or both
 * int16 per tensor with zero point 0. */
utvm_err_t ops_load_weighted(const utvm_op_context_t *c, ops_operand_t *in, ops_operand_t *f,
                             ops_operand_t *out);

/* float32: input 0, the filter (input 1, constant) and the output, each float32 (a mixed
 * operator is refused naming the operand that is not). */
utvm_err_t ops_load_weighted_f32(const utvm_op_context_t *c, ops_operand_t *in,
                                 ops_operand_t *f, ops_operand_t *out);

/* float32: the optional bias (input 2), a float32 constant of `channels` elements; *bias NULL
 * when absent. */
utvm_err_t ops_load_bias_f32(const utvm_op_context_t *c, int32_t channels, const void **bias);

/* Constant int8 weights quantized per tensor or per channel along qdim with `channels`. */
utvm_err_t ops_check_filter(const utvm_op_context_t *c, const ops_operand_t *f, int32_t qdim,
                            int32_t channels);

/* Every filter zero point 0 (symmetric weights). */
utvm_err_t ops_check_filter_zero_points(const utvm_op_context_t *c, const ops_operand_t *f);

/* The optional bias (input 2) of `channels` elements and the accumulator of the layer; *bias
 * NULL when absent. int8 activations (s16 false): an int32 bias, the 32-bit accumulator (an
 * int64 bias_type is refused). int16 activations: an int64 bias (64-bit accumulator) or, where
 * allow_int32, an int32 one (32-bit accumulator, also chosen by bias_type INT32 without a bias).
 * bias_type is the options' quantized_bias_type. */
utvm_err_t ops_load_bias(const utvm_op_context_t *c, bool s16, bool allow_int32, int32_t bias_type,
                         int32_t channels, const void **bias, utvm_accumulator_t *acc);

/* The per-channel arrays after a record of record_bytes in a block of size bytes, filled with
 * the output multipliers of in, f and out (fully_connected: TFLite's FC rounding for one
 * per-tensor scale); quant points to them. */
utvm_err_t ops_channel_quant(const utvm_op_context_t *c, void *record, size_t record_bytes,
                             size_t size, const ops_operand_t *in, const ops_operand_t *f,
                             const ops_operand_t *out, bool fully_connected,
                             utvm_per_channel_quant_t *quant);

/* The options CONV_2D and DEPTHWISE_CONV_2D share, first in their option values (field
 * tables in this order; the operator's own fields follow from OPS_WINDOW_FIELDS). */
enum {
  OPS_WINDOW_PADDING,
  OPS_WINDOW_STRIDE_W,
  OPS_WINDOW_STRIDE_H,
  OPS_WINDOW_ACTIVATION,
  OPS_WINDOW_DILATION_W,
  OPS_WINDOW_DILATION_H,
  OPS_WINDOW_FIELDS
};

/* The window of CONV_2D or DEPTHWISE_CONV_2D: from the options, with padding and activation
 * range. */
typedef struct {
  int32_t padding;
  int32_t stride_h;
  int32_t stride_w;
  int32_t dilation_h;
  int32_t dilation_w;
  int32_t activation;
  int32_t pad_top;  /* out */
  int32_t pad_left; /* out */
  int32_t act_min;  /* out */
  int32_t act_max;  /* out */
  float act_min_f32; /* out, float32 outputs */
  float act_max_f32; /* out, float32 outputs */
} ops_window_t;

/* What the records of CONV_2D and DEPTHWISE_CONV_2D start with. */
typedef struct {
  ops_ref_t input;
  const int8_t *filter;
  const void *bias;        /* int32 (int64 for int16 with the 64-bit accumulator), or NULL */
  utvm_accumulator_t acc;  /* int16 activations: the accumulator */
  bool s16;                /* int16 activations */
  bool f32;                /* float32 operands (filter_f32, a float bias, no quant) */
  const float *filter_f32; /* float32: the filter, else NULL */
  uint32_t output;
  uint32_t scratch;        /* arena offset, or UTVM_PLAN_NO_OFFSET */
  bool inplace;            /* int8 with the output over the input (the planner applied
                              INPLACE): the *_inplace kernel runs, its scratch planned */
  utvm_dims_t dims[3];     /* input, filter, output */
  utvm_per_channel_quant_t quant; /* arrays follow the record */
} ops_conv_t;

/* Prepares a 2-D convolution whose record (record_bytes, in a block of size) starts with
 * *conv, its window w from options[0..OPS_WINDOW_FIELDS): 4-D operands, constant int8
 * symmetric weights with channel scales along dimension 3 (depthwise) or 0, the filter fitting the channels (depthwise: a stored multiplier > 0 must
 * agree), the output size of the window w (padding and activation range filled in), the
 * optional int32 bias (bias_type as stored; int64 refused) and the per-channel multipliers.
 * in and out receive the input and output. */
utvm_err_t ops_prepare_conv(const utvm_op_context_t *c, bool depthwise, const int32_t *options,
                            int32_t multiplier, int32_t bias_type, ops_window_t *w,
                            ops_conv_t *conv,
                            size_t record_bytes, size_t size, ops_operand_t *in,
                            ops_operand_t *out);

/* A convolution record's dims, bias flag and per-channel quantization as op params. */
void ops_conv_export(const ops_conv_t *conv, utvm_op_params_t *p);

/* The 4-D dims of input, filter and output of op; false when they are not all 4-D. */
bool ops_window_dims(const utvm_model_t *m, const utvm_model_operator_t *op, utvm_dims_t *d);

/* Whether conv's output was placed over its input (int8, a computed input at the output's
 * offset: INPLACE_GROW applied): sets conv->inplace. */
void ops_conv_inplace(ops_conv_t *conv);

/* The op-params check of a 2-D convolution kind: input, filter, [bias], output (int16
 * activations and the accumulator's bias type when s16; int8 sets the 32-bit accumulator). */
const char *ops_check_window(utvm_op_params_t *p, bool s16);

/* The same for the float32 kinds: every operand float32, no per-channel arrays. */
const char *ops_check_window_f32(utvm_op_params_t *p);

/* ---- Broadcasting binary operators (ADD, MUL) ---- */

typedef struct {
  ops_ref_t input1;
  ops_ref_t input2;
  uint32_t output;
  utvm_shape_t shapes[3]; /* input 1, input 2, output */
} ops_binary_t;

/* Loads both int8 inputs and the output, checks that they broadcast and fills b. */
utvm_err_t ops_prepare_binary(const utvm_op_context_t *c, ops_binary_t *b, ops_operand_t *in1,
                              ops_operand_t *in2, ops_operand_t *out);

/* Loads both inputs and the output of a float32 ADD, SUB or MUL (each float32: a mixed
 * operator is refused naming the operand), checks that they broadcast, fills b and the fused
 * activation's range. */
utvm_err_t ops_prepare_binary_f32(const utvm_op_context_t *c, ops_binary_t *b,
                                  int32_t activation, utvm_activation_f32_t *act);

/* The op-params check of a binary kind: two inputs of shapes[0..1], output shapes[2]. */
const char *ops_check_binary(utvm_op_params_t *p);

/* ---- Element-wise operators of int8 and int16 (issue 25) ---- */

/* int8, or int16 with zero point 0 (TFLM's int16x8 rule), quantized per tensor, every
 * dimension >= 1; *int16 tells which. */
utvm_err_t ops_check_q8_q16(const utvm_op_context_t *c, const ops_operand_t *o, const char *role,
                            bool *int16);

/* Input 0 and the output of as many elements, both int8 or both int16 (ops_check_q8_q16). */
utvm_err_t ops_load_unary_q(const utvm_op_context_t *c, ops_operand_t *in, ops_operand_t *out,
                            bool *int16);

/* ops_prepare_binary for inputs and output all int8 or all int16 (ops_check_q8_q16). */
utvm_err_t ops_prepare_binary_q(const utvm_op_context_t *c, ops_binary_t *b, ops_operand_t *in1,
                                ops_operand_t *in2, ops_operand_t *out, bool *int16);

/* Input 0 and the output (any shapes), both int8 or both int16 (ops_check_q8_q16), of one
 * scale and zero point (PAD, pooling, the layout operators of round 2); *int16 tells which. */
utvm_err_t ops_load_layout_q(const utvm_op_context_t *c, ops_operand_t *in, ops_operand_t *out,
                             bool *int16);

/* "input is int16: TFLM's <NAME> has <types> only" (UNSUPPORTED) when in is int16. */
utvm_err_t ops_refuse_int16(const utvm_op_context_t *c, const ops_operand_t *in,
                            const char *types);

/* Checks that the loaded operands broadcast and fills b (operands of any types). */
utvm_err_t ops_place_binary(const utvm_op_context_t *c, ops_binary_t *b, const ops_operand_t *in1,
                            const ops_operand_t *in2, const ops_operand_t *out);

/* ops_check_binary with operands of type. */
const char *ops_check_binary_as(utvm_op_params_t *p, utvm_op_type_t type);

/* The record of an element-wise unary operator: int8 through a table (LUT_S8), int16 through
 * the piecewise-linear map (PWL_S16; the record ends before the table). */
typedef struct {
  ops_ref_t input;
  uint32_t output;
  int32_t size;
  int32_t int16;            /* 1: PWL_S16, 0: LUT_S8 */
  int32_t f32_kind;         /* float32: the kind (RELU_F32, ...), else 0 */
  utvm_err_t (*run_f32)(int32_t count, const float *input, float *output); /* float32 */
  utvm_pwl_params_t pwl;    /* int16 */
  int8_t table[256];        /* int8 */
} ops_unary_t;

/* Bytes of op's ops_unary_t: without the table when input 0 is int16. */
size_t ops_unary_record_size(const utvm_model_t *m, const utvm_model_operator_t *op);

/* Loads input 0 and the output (ops_load_unary_q) into u's places, size and type. */
utvm_err_t ops_unary_load(const utvm_op_context_t *c, ops_unary_t *u, ops_operand_t *in,
                          ops_operand_t *out);

/* float32: loads input 0 and the output (ops_load_f32, as many elements) into u's places and
 * size, and sets its kind and kernel (run by ops_unary_execute, exported as kind). */
utvm_err_t ops_unary_load_f32(const utvm_op_context_t *c, ops_unary_t *u, utvm_op_kind_t kind,
                              utvm_err_t (*run)(int32_t count, const float *input,
                                                float *output));

/* The op-params body and check of the float32 element-wise kinds: size, float32 in and out. */
void ops_unary_f32_walk(utvm_op_walk_t *w, utvm_op_params_t *p);
const char *ops_unary_f32_check(utvm_op_params_t *p);

/* Fills u's table (int8) from u->pwl, or checks u->pwl for the int16 kernel. */
utvm_err_t ops_unary_pwl(const utvm_op_context_t *c, ops_unary_t *u);

/* Runs and exports an ops_unary_t record. */
utvm_err_t ops_unary_execute(const void *record, uint8_t *arena);
void ops_unary_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p);

/* Reads the 256-entry table of a LUT kind (reading points *table into the words). */
void ops_walk_table(utvm_op_walk_t *w, const int8_t **table);

/* ---- Options ---- */

/* How a field of an options table is stored. */
typedef enum { OPS_U8, OPS_I8, OPS_I32, OPS_F32 } ops_field_type_t;

/* What a field's value must be (the text names the field when it is not). */
typedef enum {
  OPS_ANY,          /* any value */
  OPS_POSITIVE,     /* >= 1: strides, dilations, filter sizes */
  OPS_NONNEGATIVE,  /* >= 0 */
  OPS_PADDING,      /* SAME or VALID */
  OPS_ACTIVATION,   /* NONE, RELU, RELU_N1_TO_1 or RELU6 */
  OPS_BIAS_TYPE,    /* 0, INT32 or INT64 */
  OPS_ZERO,         /* 0 only (FULLY_CONNECTED weights_format DEFAULT) */
  OPS_BETA          /* a float, finite and > 0 (value: its bits) */
} ops_field_check_t;

typedef struct {
  uint8_t id;       /* field id in the table */
  uint8_t type;     /* ops_field_type_t */
  uint8_t check;    /* ops_field_check_t */
  int32_t def;      /* the schema's default (float fields: its bits) */
  const char *name; /* for the text */
} ops_field_t;

/* Reads fields[n] of the operator's options table into values[n] (as int32; float fields as
 * their bits), checked; UTVM_ERR_MODEL_BAD_OPTION with "options: <why>" when one is not. */
utvm_err_t ops_options(const utvm_op_context_t *c, const ops_field_t *fields, uint32_t n,
                       int32_t *values);

/* For the planner: the dims of an int8 CONV_2D or DEPTHWISE_CONV_2D (input, filter, output)
 * and its window (strides, dilations, padding into w) from its options (fields, n of them, into
 * options[n]); false when op is not int8 or does not decode. */
bool ops_window_plan(const utvm_model_t *m, const utvm_model_operator_t *op,
                     const ops_field_t *fields, uint32_t n, int32_t *options, utvm_dims_t *d,
                     ops_window_t *w);

/* For a patch-by-patch stage: the shape of an int8 CONV_2D or DEPTHWISE_CONV_2D (its window
 * from options fields[n]) for core's kernels (kernel_scratch: its scratch_size for core);
 * false when ops_window_plan is. */
bool ops_stage_shape(utvm_kernels_core_t core, const utvm_model_t *m,
                     const utvm_model_operator_t *op, const ops_field_t *fields, uint32_t n,
                     size_t (*scratch_size)(utvm_kernels_core_t core, const utvm_model_t *m,
                                            const utvm_model_operator_t *op),
                     utvm_stage_shape_t *shape);

/* A stage layer's operands from a convolution record (params left to the caller). */
void ops_stage_operands(const ops_conv_t *conv, utvm_stage_layer_s8_t *layer);

/* The float a float field's value (its bits) stands for. */
float ops_option_float(int32_t bits);

/* Reads a vector-of-int32 field (at most max values) into values, *count of them. */
utvm_err_t ops_option_list(const utvm_op_context_t *c, uint32_t id, const char *name,
                           int32_t *values, uint32_t max, uint32_t *count);

/* "options: <msg><value><tail>"; UTVM_ERR_MODEL_BAD_OPTION. */
utvm_err_t ops_fail_option(const utvm_op_context_t *c, const char *msg, int32_t value,
                           const char *tail);

/* A context for decoding op's options outside prepare (a plan_kind phase): no offsets, and
 * text only counts what a failure would write. */
void ops_plan_context(utvm_op_context_t *c, utvm_text_t *text, const utvm_model_t *m,
                      uint32_t index, const utvm_model_operator_t *op);

/* kind when axis (-rank..rank-1) of tensor, the whole a view step cuts, is its outermost
 * dimension that is not 1 (every dimension before it is 1, so the pieces along it are
 * contiguous), else UTVM_PLAN_STEP_DEFAULT (also when tensor cannot be decoded). */
utvm_plan_step_kind_t ops_view_kind(const utvm_model_t *m, int32_t tensor, int32_t axis,
                                    utvm_plan_step_kind_t kind);

/* An element-wise operator's plan kind (a plan_kind): UTVM_PLAN_STEP_INPLACE when every present
 * input has the output's element size (its kernel reads element i before writing element i, as
 * the in-place tests check on each core), else UTVM_PLAN_STEP_DEFAULT (a QUANTIZE that changes
 * the width, an operand that cannot be decoded). */
utvm_plan_step_kind_t ops_elementwise_kind(const utvm_model_t *m, uint32_t index,
                                           const utvm_model_operator_t *op);

/* Normalises axis (-rank..rank-1) to 0..rank-1, or fails ("options: axis N outside the
 * tensor's rank"). */
utvm_err_t ops_option_axis(const utvm_op_context_t *c, int32_t axis, uint32_t rank,
                           int32_t *out);

/* ---- Execution ---- */

static inline const void *ops_in(uint8_t *arena, const ops_ref_t *ref) {
  const void *p;
  if (ref->constant != NULL) {
    p = ref->constant;
  } else {
    p = &arena[ref->offset];
  }
  return p;
}

static inline const int8_t *ops_in_s8(uint8_t *arena, const ops_ref_t *ref) {
  return (const int8_t *)ops_in(arena, ref);
}

static inline int8_t *ops_out_s8(uint8_t *arena, uint32_t offset) {
  void *p = &arena[offset];
  return (int8_t *)p;
}

static inline int16_t *ops_out_s16(uint8_t *arena, uint32_t offset) {
  void *p = &arena[offset];
  return (int16_t *)p;
}

static inline float *ops_out_f32(uint8_t *arena, uint32_t offset) {
  void *p = &arena[offset];
  return (float *)p;
}

static inline const float *ops_in_f32(uint8_t *arena, const ops_ref_t *ref) {
  return (const float *)ops_in(arena, ref);
}

static inline void *ops_scratch(uint8_t *arena, uint32_t offset) {
  void *p = NULL;
  if (offset != UTVM_PLAN_NO_OFFSET) {
    p = &arena[offset];
  }
  return p;
}

/* The first n inputs (the kernel function's operands). */
uint32_t ops_inputs_1(const utvm_model_operator_t *op);
uint32_t ops_inputs_2(const utvm_model_operator_t *op);
/* Input, filter and the bias when present. */
uint32_t ops_inputs_weighted(const utvm_model_operator_t *op);
/* Every input. */
uint32_t ops_inputs_all(const utvm_model_operator_t *op);

/* ---- Op params: the walk and its checks ---- */

struct utvm_op_walk_s {
  int32_t *out;      /* writing */
  const int32_t *in; /* reading (neither: counting) */
  uint32_t n;
  uint32_t at;
  bool ok;
  uint32_t version;  /* of the format read (UTVM_OP_PARAMS_MAGIC's low half), else the current */
};

/* A parameter struct of fields_bytes / 4 int32 words followed by its layout word, which the
 * format versions before since have not (read as *layout = 0, TFLite's layout; written only when
 * *layout is 0). */
void ops_walk_laid_out(utvm_op_walk_t *w, void *params, size_t fields_bytes, int32_t *layout,
                       uint32_t since);

void ops_walk_i32(utvm_op_walk_t *w, int32_t *v);
void ops_walk_u32(utvm_op_walk_t *w, uint32_t *v);
/* A block of bytes / 4 int32 fields (a kernel's parameter struct, dims, a shape). */
void ops_walk_block(utvm_op_walk_t *w, void *block, size_t bytes);
void ops_walk_float(utvm_op_walk_t *w, float *v);
/* The per-channel count, multipliers and shifts (reading points quant into the words). */
void ops_walk_quant(utvm_op_walk_t *w, utvm_per_channel_quant_t *q);

/* Bytes of one element of op-params type `type` (utvm_op_type_t), 0 for ANY or an unknown one. */
int32_t ops_type_size(int32_t type);
/* Operand i of type and elements (false if too large or of an unknown type). */
bool ops_set_operand(utvm_op_params_t *p, uint32_t i, utvm_op_type_t type, uint64_t elements);
/* Elements of 4-D dims (false if a dimension < 1 or too large). */
bool ops_dims_elements(const utvm_dims_t *d, uint64_t *elements);
/* Elements of a shape: rank 0..6, dimensions >= 1 up to the rank and 0 past it. */
bool ops_shape_elements(const utvm_shape_t *s, uint64_t *elements);
/* quant of count 1 or channels, every shift in -31..31. */
bool ops_quant_fits(const utvm_op_params_t *p, int32_t channels);
/* Element-wise kinds: size elements of type in in, of type out out, one input. */
const char *ops_check_elementwise(utvm_op_params_t *p, utvm_op_type_t in, utvm_op_type_t out);
/* Exactly n inputs. */
const char *ops_check_n_inputs(const utvm_op_params_t *p, uint32_t n);

#endif /* UTVM_OPS_INTERNAL_H */

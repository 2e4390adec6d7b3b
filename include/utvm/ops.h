/*
 * utvm operators: everything utvm knows about one TFLite operator, in one file per operator
 * (src/ops/<operator>.c): its options, the checks and integer parameters of its Prepare, its
 * kernel call, its export to op params, the op-params body of its kernel functions, the
 * kernel call the code emitter writes and how the planner may place its operands (views). Two tables are generated from two lists and nothing
 * else names an operator:
 *
 *  - UTVM_OP_LIST (utvm/model.h): the TFLite operators the reader accepts, each with the
 *    descriptor (utvm_op_t) of its operator file;
 *  - UTVM_OP_KIND_LIST (below): the kernel functions ("kinds" of op params), each with the
 *    descriptor (utvm_op_kind_info_t) of the operator file that defines it. An operator may
 *    have several kinds (QUANTIZE: from float or int8) and a kind several operators
 *    (RESHAPE, SQUEEZE).
 *
 * The model runner (utvm/runner.h) prepares and runs operators through a resolver
 * (utvm_op_resolve(): every operator, or those a firmware lists); the
 * kernel functions (utvm/kfuncs.h) run op params through utvm_op_kind_info(); the host's code
 * emitter writes calls from utvm_op_kind_emit(). Device code: no heap, no recursion, no static
 * state; a firmware links only the phases it calls (function and data sections).
 */
#ifndef UTVM_OPS_H
#define UTVM_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/error.h"
#include "utvm/kernels.h"
#include "utvm/model.h"
#include "utvm/text.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Operator parameters ("op params"): one operator's kernel call as int32 words ----------
 *
 * A pointer-free, versioned, little-endian int32 array holding everything a kernel call needs
 * that is not an operand tensor (layout in docs/KERNEL_FUNCS.md): word 0 UTVM_OP_PARAMS_MAGIC
 * (version in the low half), word 1 the kind, word 2 the word count, word 3 the number of
 * input operand tensors, word 4 the scratch bytes, then the kind's body. The host compiler
 * encodes them (utvm_runner_op_params + utvm_op_params_encode) and the kernel functions
 * (utvm/kfuncs.h) decode them; decode validates everything against the word count. */

/* Magic and version of the format (word 0). Version 2 added utvm_conv2d_params_t's
 * filter_layout to the CONV_2D and TRANSPOSE_CONV bodies, version 3
 * utvm_fully_connected_params_t's weights_layout to the FULLY_CONNECTED bodies; versions 1 and
 * 2 (bodies without them: TFLite's layout) still decode, and encode again as they were
 * (utvm_op_params_t.version). */
#define UTVM_OP_PARAMS_MAGIC 0x504B0003
#define UTVM_OP_PARAMS_MAGIC_V2 0x504B0002
#define UTVM_OP_PARAMS_MAGIC_V1 0x504B0001
/* Words of the header. */
#define UTVM_OP_PARAMS_HEADER_WORDS 5u
/* Most input operand tensors of one kernel call (UNIDIRECTIONAL_SEQUENCE_LSTM: 15). With the
 * op-params tensor and the output that is 17 tensors: utvm's graph executor passes up to
 * UTVM_GRAPH_MAX_OP_ARGS, TVM's C graph executor at most 9 (7 inputs). */
#define UTVM_OP_PARAMS_MAX_INPUTS 15u
/* Largest operand tensor in elements (and in bytes), and largest scratch request. */
#define UTVM_OP_PARAMS_MAX_ELEMENTS 0x7FFFFFFFu

/* The kernel functions, one entry each, in kind order from 1: X(A, KIND, name) is the kind
 * UTVM_OP_<KIND> (word 1 of the op params), the kernel utvm_<name> (utvm/kernels.h) and the kernel
 * function utvm_k_<name> (utvm/kfuncs.h). A is passed through to X unchanged (for adapters such as
 * UTVM_KFUNCS_LIST). Every kind table is generated from this list: a new kernel function is one
 * line here. Kinds are part of the op-params format: never reorder, only append. */
#define UTVM_OP_KIND_LIST(X, A)                                                                    \
  X(A, CONV2D_S8, conv2d_s8)                                                                       \
  X(A, DEPTHWISE_CONV2D_S8, depthwise_conv2d_s8)                                                   \
  X(A, FULLY_CONNECTED_S8, fully_connected_s8)                                                     \
  X(A, AVG_POOL2D_S8, avg_pool2d_s8)                                                               \
  X(A, MAX_POOL2D_S8, max_pool2d_s8)                                                               \
  X(A, ADD_S8, add_s8)                                                                             \
  X(A, MUL_S8, mul_s8)                                                                             \
  X(A, SOFTMAX_S8, softmax_s8)                                                                     \
  X(A, LOGISTIC_S8, logistic_s8)                                                                   \
  X(A, TANH_S8, tanh_s8)                                                                           \
  X(A, PAD_S8, pad_s8)                                                                             \
  X(A, CONCATENATION_S8, concatenation_s8)                                                         \
  X(A, MEAN_S8, mean_s8)                                                                           \
  X(A, QUANTIZE_F32_S8, quantize_f32_s8)                                                           \
  X(A, REQUANTIZE_S8, requantize_s8)                                                               \
  X(A, DEQUANTIZE_S8_F32, dequantize_s8_f32)                                                       \
  X(A, RESHAPE, reshape)                                                                           \
  X(A, SPLIT, split)                                                                               \
  X(A, CONV2D_S16, conv2d_s16)                                                                     \
  X(A, DEPTHWISE_CONV2D_S16, depthwise_conv2d_s16)                                                 \
  X(A, FULLY_CONNECTED_S16, fully_connected_s16)                                                   \
  X(A, STRIDED_COPY, strided_copy)                                                                 \
  X(A, CONCATENATION, concatenation)                                                               \
  X(A, LUT_S8, lut_s8)                                                                             \
  X(A, PWL_S16, pwl_s16)                                                                           \
  X(A, MINMAX, minmax)                                                                             \
  X(A, SUB_S8, sub_s8)                                                                             \
  X(A, ADD_S16, add_s16)                                                                           \
  X(A, SUB_S16, sub_s16)                                                                           \
  X(A, MUL_S16, mul_s16)                                                                           \
  X(A, SVDF_S8, svdf_s8)                                                                           \
  X(A, REDUCE, reduce)                                                                             \
  X(A, ARG_MIN_MAX_S8, arg_min_max_s8)                                                             \
  X(A, QUANTIZE_F32_S16, quantize_f32_s16)                                                         \
  X(A, REQUANTIZE_Q, requantize_q)                                                                 \
  X(A, DEQUANTIZE_S16_F32, dequantize_s16_f32)                                                     \
  X(A, SOFTMAX_S8_S16, softmax_s8_s16)                                                             \
  X(A, SOFTMAX_S16, softmax_s16)                                                                   \
  X(A, LOGISTIC_S16, logistic_s16)                                                                 \
  X(A, TANH_S16, tanh_s16)                                                                         \
  X(A, SQUARED_DIFFERENCE_S8, squared_difference_s8)                                               \
  X(A, SQUARED_DIFFERENCE_S16, squared_difference_s16)                                             \
  X(A, BATCH_MATMUL, batch_matmul)                                                                 \
  X(A, PAD, pad)                                                                                   \
  X(A, AVG_POOL2D_S16, avg_pool2d_s16)                                                             \
  X(A, MAX_POOL2D_S16, max_pool2d_s16)                                                             \
  X(A, SPACE_BATCH, space_batch)                                                                   \
  X(A, GATHER, gather)                                                                             \
  X(A, RESIZE_NEAREST, resize_nearest)                                                             \
  X(A, RESIZE_BILINEAR_S8, resize_bilinear_s8)                                                     \
  X(A, TRANSPOSE_CONV, transpose_conv)                                                             \
  X(A, PRELU_S8, prelu_s8)                                                                         \
  X(A, PRELU_S16, prelu_s16)                                                                       \
  X(A, RSQRT_S8, rsqrt_s8)                                                                         \
  X(A, DIV_S8, div_s8)                                                                             \
  X(A, LOG_SOFTMAX_S8, log_softmax_s8)                                                             \
  X(A, L2_NORMALIZATION_S8, l2_normalization_s8)                                                   \
  X(A, LSTM, lstm)                                                                                 \
  X(A, CONV2D_S8_INPLACE, conv2d_s8_inplace)                                                       \
  X(A, DEPTHWISE_CONV2D_S8_INPLACE, depthwise_conv2d_s8_inplace)                                   \
  X(A, CONV2D_F32, conv2d_f32)                                                                     \
  X(A, DEPTHWISE_CONV2D_F32, depthwise_conv2d_f32)                                                 \
  X(A, FULLY_CONNECTED_F32, fully_connected_f32)                                                   \
  X(A, AVG_POOL2D_F32, avg_pool2d_f32)                                                             \
  X(A, MAX_POOL2D_F32, max_pool2d_f32)                                                             \
  X(A, ADD_F32, add_f32)                                                                           \
  X(A, SUB_F32, sub_f32)                                                                           \
  X(A, MUL_F32, mul_f32)                                                                           \
  X(A, RELU_F32, relu_f32)                                                                         \
  X(A, RELU6_F32, relu6_f32)                                                                       \
  X(A, LOGISTIC_F32, logistic_f32)                                                                 \
  X(A, TANH_F32, tanh_f32)                                                                         \
  X(A, HARD_SWISH_F32, hard_swish_f32)                                                             \
  X(A, SOFTMAX_F32, softmax_f32)                                                                   \
  X(A, MEAN_F32, mean_f32)

/* What a kernel function computes (word 1): UTVM_OP_<KIND> of UTVM_OP_KIND_LIST, from 1. */
#define UTVM_OP_KIND_ENUM_(A, kind, name) UTVM_OP_##kind,
typedef enum {
  UTVM_OP_KIND_NONE_ = 0,
  UTVM_OP_KIND_LIST(UTVM_OP_KIND_ENUM_, 0)
  UTVM_OP_KIND_END_
} utvm_op_kind_t;
#undef UTVM_OP_KIND_ENUM_

/* Highest kind. */
#define UTVM_OP_KIND_MAX ((int32_t)UTVM_OP_KIND_END_ - 1)

/* The float32 arithmetic kinds, UTVM_OP_CONV2D_F32 ... UTVM_OP_MEAN_F32 (61..75): those a
 * build without UTVM_HAVE_F32 (utvm/kernels.h) refuses; a host does not send them to such a
 * device (UTVM_KERNELS_INFO_NO_F32). A float32 kind appended later widens the range or adds
 * a second one here. */
#define UTVM_OP_KIND_IS_F32(kind)                     \
  (((int32_t)(kind) >= (int32_t)UTVM_OP_CONV2D_F32) && \
   ((int32_t)(kind) <= (int32_t)UTVM_OP_MEAN_F32))

/* The kernel function of a kind ("utvm_k_conv2d_s8", utvm/kfuncs.h), or NULL if unknown. */
const char *utvm_op_kind_function(utvm_op_kind_t kind);

/* Element types of operand tensors (DLPack codes: int 0, uint 1, float 2). */
typedef enum {
  UTVM_OP_TYPE_ANY = 0,   /* RESHAPE: any type, only the bytes count */
  UTVM_OP_TYPE_INT8 = 1,
  UTVM_OP_TYPE_INT32 = 2,
  UTVM_OP_TYPE_FLOAT32 = 3,
  UTVM_OP_TYPE_INT16 = 4,
  UTVM_OP_TYPE_INT64 = 5
} utvm_op_type_t;

/* One operand tensor as the call needs it: type and bytes (elements x element size). */
typedef struct {
  utvm_op_type_t type;
  uint32_t bytes;
} utvm_op_operand_t;

/* An operator's call in decoded form. Which fields count depends on kind (see
 * docs/KERNEL_FUNCS.md); decode and utvm_op_params_check fill operands[] (inputs, then the
 * output: n_inputs + 1 entries). quant's arrays point into the decoded words (or, from the
 * runner, into its records). */
typedef struct {
  utvm_op_kind_t kind;
  uint32_t version;           /* the format version decode read (1 to 3); 0 (the current) for
                                 params built to encode: encode writes this version */
  uint32_t n_inputs;          /* input operand tensors (the op-params tensor not counted) */
  uint32_t scratch_bytes;     /* kernel scratch planned (for the runner's core, see
                                 utvm_runner_options_t; another core may need more) */
  utvm_dims_t dims[3];        /* CONV/DEPTHWISE: input, filter, output; POOL: input, output;
                                 PAD: input */
  utvm_shape_t shapes[UTVM_OP_PARAMS_MAX_INPUTS + 1u]; /* ADD/MUL: input 1, input 2, output;
                                 CONCATENATION: inputs then output; MEAN: input */
  int32_t batches;            /* FULLY_CONNECTED */
  int32_t depth;              /* FULLY_CONNECTED input depth, SOFTMAX row length */
  int32_t units;              /* FULLY_CONNECTED */
  int32_t size;               /* element-wise operators: elements; SOFTMAX: rows x depth */
  uint32_t bytes;             /* RESHAPE */
  float scale;                /* QUANTIZE_F32 (output), DEQUANTIZE (input); SOFTMAX_F32: beta */
  int32_t zero_point;
  int32_t axis;               /* CONCATENATION */
  int32_t n_axes;             /* MEAN */
  int32_t axes[UTVM_KERNEL_MAX_RANK];
  int32_t type;               /* layout kinds, SPLIT: the element type (utvm_op_type_t) */
  uint32_t has_bias;          /* CONV, DEPTHWISE, FULLY_CONNECTED: 1 if input 2 is the bias */
  int32_t accumulator;        /* their _S16 kinds: utvm_accumulator_t (bias int64 or int32) */
  utvm_per_channel_quant_t quant; /* CONV, DEPTHWISE, FULLY_CONNECTED */
  union {
    utvm_conv2d_params_t conv;
    utvm_depthwise_conv2d_params_t depthwise;
    utvm_fully_connected_params_t fc;
    utvm_pool2d_params_t pool;
    utvm_add_params_t add;
    utvm_mul_params_t mul;
    utvm_softmax_params_t softmax;
    utvm_logistic_params_t logistic;
    utvm_requantize_params_t requantize;
    utvm_pad_params_t pad;
    utvm_mean_params_t mean;
    utvm_split_params_t split;
    utvm_strided_copy_params_t copy;
    utvm_concat_params_t concat;
    utvm_pwl_params_t pwl;
    utvm_minmax_params_t minmax;
    utvm_svdf_params_t svdf;
    utvm_reduce_params_t reduce;
    utvm_arg_min_max_params_t arg;
    utvm_batch_matmul_params_t bmm;
    utvm_requantize_q_params_t requantize_q;
    utvm_sigmoid_s16_params_t sigmoid;
    utvm_pad_any_params_t pad_any;
    utvm_space_batch_params_t space_batch;
    utvm_gather_params_t gather;
    utvm_resize_params_t resize;
    utvm_prelu_params_t prelu;
    utvm_div_params_t div;
    utvm_log_softmax_params_t log_softmax;
    utvm_lstm_params_t lstm;
    utvm_conv2d_f32_params_t conv_f32;
    utvm_depthwise_conv2d_f32_params_t depthwise_f32;
    utvm_pool2d_f32_params_t pool_f32;
    utvm_activation_f32_t act_f32; /* FULLY_CONNECTED_F32, ADD_F32, SUB_F32, MUL_F32 */
  } p;
  const int8_t *table;        /* LUT_S8: 256 entries (into the decoded words, or the runner's
                                 record) */
  utvm_op_operand_t operands[UTVM_OP_PARAMS_MAX_INPUTS + 1u];
} utvm_op_params_t;

/* The model tensors of an operator's operands, in the kernel function's order. */
typedef struct {
  uint32_t n_inputs;
  uint32_t inputs[UTVM_OP_PARAMS_MAX_INPUTS];
  uint32_t output;
} utvm_op_operands_t;

/* Checks p's fields (kind, counts, shapes, sizes, shift ranges) and fills p->operands.
 * UTVM_ERR_KFUNC_PARAMS with *why (a static text) naming the problem. */
utvm_err_t utvm_op_params_check(utvm_op_params_t *p, const char **why);

/* Words p encodes to (after utvm_op_params_check succeeded), or 0 for an unknown kind. */
uint32_t utvm_op_params_words(const utvm_op_params_t *p);

/* Checks p and writes its words into words[cap]; *n_words receives the count.
 * UTVM_ERR_KFUNC_PARAMS (as check) or UTVM_ERR_KFUNC_CAPACITY when cap is too small. */
utvm_err_t utvm_op_params_encode(utvm_op_params_t *p, int32_t *words, uint32_t cap,
                                 uint32_t *n_words, const char **why);

/* Decodes and validates words[n_words] into *p (never reads past n_words): quant's arrays
 * point into words, which must stay valid (the shift bytes are read in place, so this format
 * is for little-endian machines). UTVM_ERR_KFUNC_PARAMS with *why naming the problem. */
utvm_err_t utvm_op_params_decode(const int32_t *words, uint32_t n_words, utvm_op_params_t *p,
                                 const char **why);

/* ---- Operators: one descriptor per TFLite operator of UTVM_OP_LIST ------------------------- */

/* What an operator's prepare step gets: the operator, where the plan put its tensors, and the
 * text to write its error into ("operator <index> (<NAME>): " is written by the operator). */
typedef struct {
  const utvm_model_t *model;
  const utvm_model_operator_t *op;
  uint32_t index;               /* the operator's index in the model */
  const uint32_t *offsets;      /* every tensor's arena offset, or UTVM_PLAN_NO_OFFSET */
  uint32_t scratch;             /* this operator's scratch offset, or UTVM_PLAN_NO_OFFSET */
  utvm_text_t *text;
} utvm_op_context_t;

/* One TFLite operator's phases. The record is the operator's own compact form of its kernel
 * call (parameters and operand places), prepared once into the runner's workspace. */
typedef struct {
  int32_t code;                 /* TFLite BuiltinOperator */
  uint8_t min_inputs;           /* inputs 0..min_inputs-1 are required; later ones may be -1 */
  uint8_t max_inputs;
  uint8_t options_type;         /* BuiltinOptions union type accepted besides none (0: none) */
  /* Bytes of the record for op (a multiple of UTVM_OP_RECORD_ALIGN): enough for any operands
   * (those prepare refuses included). */
  size_t (*record_size)(const utvm_model_t *m, const utvm_model_operator_t *op);
  /* Scratch bytes the kernels of core need for op (0 for shapes prepare will refuse); NULL
   * when the operator never needs scratch. */
  size_t (*scratch_size)(utvm_kernels_core_t core, const utvm_model_t *m,
                         const utvm_model_operator_t *op);
  /* Decodes the options, checks every operand and fills the record (size bytes, aligned to
   * UTVM_OP_RECORD_ALIGN); on failure writes c->text and returns UTVM_ERR_MODEL_BAD_OPTION,
   * UTVM_ERR_MODEL_BAD_OPERANDS, UTVM_ERR_RUNNER_OPERANDS, UTVM_ERR_RUNNER_UNSUPPORTED or a
   * kernel's error. */
  utvm_err_t (*prepare)(const utvm_op_context_t *c, void *record, size_t size);
  /* Runs the prepared record on arena (a kernel's error, if any). */
  utvm_err_t (*execute)(const void *record, uint8_t *arena);
  /* The record as op params (n_inputs left to the caller) for the kernels of core. */
  void (*export_params)(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p);
  /* Input operands the kernel function takes: the first this many present ones (absent, -1,
   * inputs skipped) from input first_kernel_input on. */
  uint32_t (*kernel_inputs)(const utvm_model_operator_t *op);
  /* Most outputs, 0 meaning exactly one. An operator with several (SPLIT, SPLIT_V, UNPACK) is
   * one kernel call per output: export_params is NULL and export_output gives the call that
   * writes output j. */
  uint8_t max_outputs;
  /* The operator's input the kernel function's inputs start at (SPLIT: 1, after the axis). */
  uint8_t first_kernel_input;
  void (*export_output)(const void *record, utvm_kernels_core_t core, uint32_t j,
                        utvm_op_params_t *p);
  /* How the planner may place op's operands (utvm_plan_step_kind_t): GATHER when its inputs are
   * contiguous pieces of its output (CONCATENATION, PACK), SCATTER when its outputs are of its
   * input (SPLIT, SPLIT_V, UNPACK), DEFAULT when not (or op cannot be decoded); NULL: DEFAULT.
   * The planner still checks that the views are safe; execute then skips those copies. */
  utvm_plan_step_kind_t (*plan_kind)(const utvm_model_t *m, uint32_t index,
                                     const utvm_model_operator_t *op);
  /* Bytes of scratch on core when the planner places op's output over its input (plan_kind
   * INPLACE through a buffer of the kernel's own, CONV_2D and DEPTHWISE_CONV_2D); NULL: the
   * same as scratch_size. prepare runs in place when the two offsets are equal. */
  size_t (*inplace_scratch_size)(utvm_kernels_core_t core, const utvm_model_t *m,
                                 const utvm_model_operator_t *op);
  /* The operator as a layer of a patch-by-patch stage (utvm_stage_s8: int8 CONV_2D and
   * DEPTHWISE_CONV_2D); NULL for an operator that never is one. stage_shape: its shape for
   * core's kernels from the model, false when op cannot be a layer (not int8, undecodable);
   * stage_layer: the layer of a prepared record (pointers into the record). */
  bool (*stage_shape)(utvm_kernels_core_t core, const utvm_model_t *m,
                      const utvm_model_operator_t *op, utvm_stage_shape_t *shape);
  void (*stage_layer)(const void *record, utvm_stage_layer_s8_t *layer);
} utvm_op_t;

/* Records start at multiples of this many bytes. */
#define UTVM_OP_RECORD_ALIGN 8u

/* Every operator's descriptor, utvm_op_<name> of UTVM_OP_LIST (utvm/model.h), e.g.
 * utvm_op_conv_2d, utvm_op_fully_connected, utvm_op_unidirectional_sequence_lstm. */
#define UTVM_OP_DECLARE_(name, code, op) extern const utvm_op_t utvm_op_##op;
UTVM_OP_LIST(UTVM_OP_DECLARE_)
#undef UTVM_OP_DECLARE_

/* An operator resolver (TFLM's MicroMutableOpResolver): the operators a runner may prepare. A
 * firmware that lists only its models' operators links only their code (the linker drops the
 * rest: function and data sections, --gc-sections); utvm_op_resolver_all links every one. */
typedef struct {
  const utvm_op_t *const *ops;
  uint32_t count;
} utvm_op_resolver_t;

/* Defines `static const utvm_op_resolver_t name` of the descriptors given, e.g.
 *   UTVM_OP_RESOLVER(kws_ops, &utvm_op_conv_2d, &utvm_op_depthwise_conv_2d,
 *                    &utvm_op_average_pool_2d, &utvm_op_fully_connected, &utvm_op_softmax); */
#define UTVM_OP_RESOLVER(name, ...)                                                                \
  static const utvm_op_t *const name##_ops_[] = {__VA_ARGS__};                                    \
  static const utvm_op_resolver_t name = {name##_ops_,                                            \
                                          (uint32_t)(sizeof(name##_ops_) / sizeof(name##_ops_[0]))}

/* Every operator utvm has. */
extern const utvm_op_resolver_t utvm_op_resolver_all;

/* The descriptor of TFLite operator code in resolver, or NULL when it has none (or resolver is
 * NULL). */
const utvm_op_t *utvm_op_resolve(const utvm_op_resolver_t *resolver, int32_t code);

/* Prepares c->op with its descriptor d: checks the operand counts (one output; "inputs: 1
 * tensors, expected 2 to 3", UTVM_ERR_MODEL_BAD_OPERANDS) and the options' union type
 * (UTVM_ERR_MODEL_BAD_OPTION), then d->prepare. */
utvm_err_t utvm_op_prepare(const utvm_op_t *d, const utvm_op_context_t *c, void *record,
                           size_t size);

/* ---- Kinds: one descriptor per kernel function of UTVM_OP_KIND_LIST ---------------------- */

/* Reading, writing or counting op-params words (internal to src/ops). */
typedef struct utvm_op_walk_s utvm_op_walk_t;

/* One kernel function's op params and call. */
typedef struct {
  /* Walks the body's fields in format order (utvm_op_walk_* of src/ops). */
  void (*walk)(utvm_op_walk_t *w, utvm_op_params_t *p);
  /* Checks the body against p->n_inputs and fills p->operands (inputs, then the output);
   * NULL, or a static text naming the problem. */
  const char *(*check)(utvm_op_params_t *p);
  /* Bytes of scratch this device's kernel needs (NULL: none). */
  size_t (*scratch)(const utvm_op_params_t *p);
  /* Calls the kernel: data[0..n_inputs) are the inputs, data[n_inputs] the output, each of
   * the bytes and type of p->operands. */
  utvm_err_t (*run)(const utvm_op_params_t *p, void *const *data, void *scratch);
  /* How a planner may place the output (utvm_plan_step_kind_t, utvm/model.h): INPLACE for
   * the element-wise kinds that read each element before writing it (over a data input of the
   * output's element size), INPLACE_GROW for the in-place convolutions (the output over input
   * 0, maybe larger), ALIAS for RESHAPE (a copy skipped when input and output are the same
   * bytes), else DEFAULT. run works whether or not a plan applied it (the in-place
   * convolutions run the plain kernel when data[0] is not the output). */
  utvm_plan_step_kind_t plan_kind;
  /* Bytes of scratch this device's kernel needs when data[0] is the output (run in place);
   * NULL: the same as scratch. */
  size_t (*inplace_scratch)(const utvm_op_params_t *p);
} utvm_op_kind_info_t;

/* The descriptor of kind, or NULL if unknown. */
const utvm_op_kind_info_t *utvm_op_kind_info(utvm_op_kind_t kind);

/* ---- The kernel call as C, for the host's code emitter ------------------------------------- */

/* The arguments of a kernel call, in order. */
typedef enum {
  UTVM_EMIT_END = 0,
  UTVM_EMIT_PARAMS,             /* &<parameter struct> (utvm_op_emit_t.params_type) */
  UTVM_EMIT_QUANT,              /* &<per-channel multipliers and shifts>; index 1: the kind's
                                   int8 fast paths read a requantization table
                                   (utvm_per_channel_quant_t.table), which the emitter makes
                                   when it lays constants out for a DSP or portable core */
  UTVM_EMIT_DIMS,               /* &dims[index] */
  UTVM_EMIT_SHAPE,              /* &shapes[index] */
  UTVM_EMIT_SHAPES,             /* shapes (an array of n_inputs + 1) */
  UTVM_EMIT_OUTPUT_SHAPE,       /* &shapes[n_inputs] */
  UTVM_EMIT_INPUT,              /* input operand index */
  UTVM_EMIT_INPUTS,             /* an array of every input operand */
  UTVM_EMIT_N_INPUTS,           /* n_inputs */
  UTVM_EMIT_BIAS,               /* input 2 when has_bias, else NULL */
  UTVM_EMIT_OUTPUT,
  UTVM_EMIT_SCRATCH,
  UTVM_EMIT_SIZE,
  UTVM_EMIT_ROWS,               /* size / depth */
  UTVM_EMIT_DEPTH,
  UTVM_EMIT_BATCHES,
  UTVM_EMIT_UNITS,
  UTVM_EMIT_BYTES,
  UTVM_EMIT_SCALE,
  UTVM_EMIT_ZERO_POINT,
  UTVM_EMIT_AXIS,
  UTVM_EMIT_AXES,               /* the axes array */
  UTVM_EMIT_N_AXES,
  UTVM_EMIT_ACCUMULATOR,        /* UTVM_ACCUMULATE_32 or _64 */
  UTVM_EMIT_INPUT_LIST,         /* an array of every input operand as const void * */
  UTVM_EMIT_TABLE,              /* the 256-entry int8 table */
  UTVM_EMIT_STATE,              /* input operand index that the call updates in place (a
                                   variable tensor: SVDF's state) */
  UTVM_EMIT_ELEMENT_SIZE,       /* 2 when the op params' type is int16, else 1 */
  UTVM_EMIT_LSTM_WEIGHTS        /* a utvm_lstm_weights_t of input operands 1..12 */
} utvm_op_emit_arg_t;

/* Most arguments of a kernel call, UTVM_EMIT_END included. */
#define UTVM_OP_EMIT_MAX_ARGS 12u

/* One argument: what (utvm_op_emit_arg_t) and, for DIMS, SHAPE and INPUT, which. */
typedef struct {
  uint8_t what;
  uint8_t index;
} utvm_op_emit_slot_t;

/* How the emitter writes one kind's call: utvm_<name>(args...). */
typedef struct {
  const char *params_type;      /* the parameter struct's type, NULL when the call has none */
  const char *params_fields;    /* its fields in order, space separated, each an int32 word:
                                   "name[n]" for an array of n, "name:f" for a float */
  const utvm_op_emit_slot_t *args; /* in call order, then UTVM_EMIT_END (at most
                                   UTVM_OP_EMIT_MAX_ARGS in all) */
  /* Lays out a constant input for core's kernels at compile time (NULL: the kind's inputs keep
   * TFLite's layout): false when p's shapes or the core keep it; else sets p's layout field,
   * *input (which input) and *bytes (its size laid out), and when dst is not NULL writes it
   * there (cap bytes) from src, the input's bytes in TFLite's layout. */
  bool (*lay_out)(utvm_op_params_t *p, utvm_kernels_core_t core, const void *src, void *dst,
                  size_t cap, uint32_t *input, size_t *bytes);
} utvm_op_emit_t;

/* How to emit kind's call, or NULL if unknown (host tools; device code does not link it). */
const utvm_op_emit_t *utvm_op_kind_emit(utvm_op_kind_t kind);

/* The kernel's name of kind ("utvm_conv2d_s8", utvm/kernels.h), or "" if unknown. */
const char *utvm_op_kind_kernel(utvm_op_kind_t kind);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_OPS_H */

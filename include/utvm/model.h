/*
 * utvm model layer: a verified, zero-copy reader of TensorFlow Lite flatbuffers (.tflite) and a
 * static memory planner for one activations arena.
 *
 * Reader. utvm_model_open() verifies the whole file once (every offset, vtable, vector, string
 * and index the accessors will touch, the supported operator set (UTVM_OP_LIST), each
 * operator's options table, tensor types, shapes, quantization and constant-data sizes) and
 * keeps only pointers into the caller's bytes and counts. What an operator's options say and
 * whether its operands fit it is its operator file's business (utvm/ops.h), checked when the
 * runner prepares it. The accessors decode one tensor or operator on demand into a small caller
 * struct, re-checking what they read, so they never read outside the file. The bytes must stay
 * valid and unchanged while the model is used. Nothing allocates, nothing recurses, no state is
 * static, every loop is bounded by a count that the file size bounds. See docs/TFLITE.md.
 *
 * Planner. utvm_plan() places a list of buffers used by an ordered list of steps in one arena
 * (lifetimes, greedy placement); utvm_model_plan() builds those lists from a model. The caller
 * provides all working memory (utvm_plan_workspace_size, utvm_model_plan_workspace_size).
 *
 * Errors: every function returns UTVM_OK or a UTVM_ERR_MODEL_* code; utvm_model_open() and
 * utvm_model_plan() also write a readable text to the model's error[] (e.g. "operator 7
 * (TRANSPOSE): unsupported operator").
 */
#ifndef UTVM_MODEL_H
#define UTVM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/error.h"
#include "utvm/text.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Limits
 * ------------------------------------------------------------------------------------------- */

/* Largest tensor rank (shape length), also the largest RESHAPE new_shape and SQUEEZE dims list. */
#define UTVM_MODEL_MAX_DIMS 6u
/* Largest number of inputs (UNIDIRECTIONAL_SEQUENCE_LSTM has 24, most of them optional) and
 * outputs (SPLIT, UNPACK) of one operator. */
#define UTVM_MODEL_MAX_OP_INPUTS 24u
#define UTVM_MODEL_MAX_OP_OUTPUTS 16u
/* Largest tensor in bytes (elements x element size). */
#define UTVM_MODEL_MAX_TENSOR_BYTES 0x7FFFFFFFu
/* Bytes of utvm_model_t.error, NUL included; longer texts are cut. */
#define UTVM_MODEL_ERROR_SIZE 128u
/* The TFLite schema version the reader accepts (Model.version). */
#define UTVM_MODEL_SCHEMA_VERSION 3u

/* ---------------------------------------------------------------------------------------------
 * Enumerations (values are the TFLite schema's)
 * ------------------------------------------------------------------------------------------- */

/* Tensor element types the reader accepts (TFLite TensorType); any other is an error. */
typedef enum {
  UTVM_MODEL_FLOAT32 = 0,
  UTVM_MODEL_INT32 = 2,
  UTVM_MODEL_UINT8 = 3,
  UTVM_MODEL_INT64 = 4,
  UTVM_MODEL_BOOL = 6,
  UTVM_MODEL_INT16 = 7,
  UTVM_MODEL_INT8 = 9
} utvm_model_type_t;

/* The operator list: the TFLite operators utvm runs, X(NAME, code, op) with code the TFLite
 * BuiltinOperator value and utvm_op_<op> the descriptor (utvm/ops.h) of its operator file
 * (src/ops/). The enum below, every name table and the operator table are generated from it:
 * a new operator is one line here and its file. */
#define UTVM_OP_LIST(X)                                                                            \
  X(ADD, 0, add)                                                                                   \
  X(AVERAGE_POOL_2D, 1, average_pool_2d)                                                           \
  X(CONCATENATION, 2, concatenation)                                                               \
  X(CONV_2D, 3, conv_2d)                                                                           \
  X(DEPTHWISE_CONV_2D, 4, depthwise_conv_2d)                                                       \
  X(DEPTH_TO_SPACE, 5, depth_to_space)                                                             \
  X(DEQUANTIZE, 6, dequantize)                                                                     \
  X(FULLY_CONNECTED, 9, fully_connected)                                                           \
  X(L2_NORMALIZATION, 11, l2_normalization)                                                        \
  X(LOGISTIC, 14, logistic)                                                                        \
  X(MAX_POOL_2D, 17, max_pool_2d)                                                                  \
  X(MUL, 18, mul)                                                                                  \
  X(RELU, 19, relu)                                                                                \
  X(RELU_N1_TO_1, 20, relu_n1_to_1)                                                                \
  X(RELU6, 21, relu6)                                                                              \
  X(RESHAPE, 22, reshape)                                                                          \
  X(RESIZE_BILINEAR, 23, resize_bilinear)                                                          \
  X(SOFTMAX, 25, softmax)                                                                          \
  X(SPACE_TO_DEPTH, 26, space_to_depth)                                                            \
  X(SVDF, 27, svdf)                                                                                \
  X(TANH, 28, tanh)                                                                                \
  X(PAD, 34, pad)                                                                                  \
  X(GATHER, 36, gather)                                                                            \
  X(BATCH_TO_SPACE_ND, 37, batch_to_space_nd)                                                      \
  X(SPACE_TO_BATCH_ND, 38, space_to_batch_nd)                                                      \
  X(TRANSPOSE, 39, transpose)                                                                      \
  X(MEAN, 40, mean)                                                                                \
  X(SUB, 41, sub)                                                                                  \
  X(DIV, 42, div)                                                                                  \
  X(SQUEEZE, 43, squeeze)                                                                          \
  X(UNIDIRECTIONAL_SEQUENCE_LSTM, 44, unidirectional_sequence_lstm)                                \
  X(STRIDED_SLICE, 45, strided_slice)                                                              \
  X(SPLIT, 49, split)                                                                              \
  X(LOG_SOFTMAX, 50, log_softmax)                                                                  \
  X(PRELU, 54, prelu)                                                                              \
  X(MAXIMUM, 55, maximum)                                                                          \
  X(ARG_MAX, 56, arg_max)                                                                          \
  X(MINIMUM, 57, minimum)                                                                          \
  X(PADV2, 60, padv2)                                                                              \
  X(SLICE, 65, slice)                                                                              \
  X(TRANSPOSE_CONV, 67, transpose_conv)                                                            \
  X(EXPAND_DIMS, 70, expand_dims)                                                                  \
  X(SUM, 74, sum)                                                                                  \
  X(RSQRT, 76, rsqrt)                                                                              \
  X(ARG_MIN, 79, arg_min)                                                                          \
  X(REDUCE_MAX, 82, reduce_max)                                                                    \
  X(PACK, 83, pack)                                                                                \
  X(UNPACK, 88, unpack)                                                                            \
  X(REDUCE_MIN, 89, reduce_min)                                                                    \
  X(RESIZE_NEAREST_NEIGHBOR, 97, resize_nearest_neighbor)                                          \
  X(LEAKY_RELU, 98, leaky_relu)                                                                    \
  X(SQUARED_DIFFERENCE, 99, squared_difference)                                                    \
  X(MIRROR_PAD, 100, mirror_pad)                                                                   \
  X(ABS, 101, abs)                                                                                 \
  X(SPLIT_V, 102, split_v)                                                                         \
  X(ELU, 111, elu)                                                                                 \
  X(QUANTIZE, 114, quantize)                                                                       \
  X(HARD_SWISH, 117, hard_swish)                                                                   \
  X(BATCH_MATMUL, 126, batch_matmul)                                                               \
  X(BROADCAST_TO, 130, broadcast_to)

/* Supported builtin operators (UTVM_MODEL_OP_<NAME>); any other is an error at open. */
#define UTVM_MODEL_OP_ENUM_(name, code, op) UTVM_MODEL_OP_##name = (code),
typedef enum { UTVM_OP_LIST(UTVM_MODEL_OP_ENUM_) } utvm_model_op_t;
#undef UTVM_MODEL_OP_ENUM_

/* ---------------------------------------------------------------------------------------------
 * Tensors
 * ------------------------------------------------------------------------------------------- */

/* Quantization of a tensor: real = scale * (q - zero_point), per tensor (count 1) or per channel
 * along quantized_dimension (count = dims[quantized_dimension] > 1). Verified at open: every
 * scale finite and > 0; zero_point_count is 0 (all zero), 1 (one value for every channel) or
 * count; every zero point in the range of the tensor type (int8 -128..127, uint8 0..255, int16,
 * else int32). Read channel values with utvm_model_quant_scale/_zero_point. */
typedef struct {
  uint32_t count;               /* 0: not quantized, 1: per tensor, >1: per channel */
  uint32_t zero_point_count;    /* 0, 1 or count */
  int32_t quantized_dimension;  /* axis of the channels (0 unless per channel; 0 for 1-D) */
  float scale;                  /* channel 0's scale (0.0f when not quantized) */
  int32_t zero_point;           /* channel 0's zero point */
  const uint8_t *scales;        /* count little-endian float32 in the file */
  const uint8_t *zero_points;   /* zero_point_count little-endian int64 in the file */
} utvm_model_quant_t;

/* A tensor, decoded by utvm_model_tensor(). Pointers point into the model's bytes. */
typedef struct {
  const char *name;             /* NUL-terminated, "" when the file has none */
  utvm_model_type_t type;
  uint32_t element_size;        /* bytes per element (1, 2, 4 or 8) */
  uint32_t rank;                /* 0..UTVM_MODEL_MAX_DIMS */
  int32_t dims[UTVM_MODEL_MAX_DIMS]; /* shape, each >= 0; entries past rank are 0 */
  size_t elements;              /* product of dims (1 for rank 0) */
  size_t bytes;                 /* elements * element_size */
  const uint8_t *data;          /* constant data (bytes long, aligned to element_size), or NULL
                                   for a tensor computed at run time (activation, graph input,
                                   variable) */
  bool variable;                /* is_variable: an operator's state (SVDF, LSTM), kept from one
                                   invocation to the next; never constant */
  uint32_t buffer;              /* index of its Buffer in the file */
  utvm_model_quant_t quant;
} utvm_model_tensor_t;

/* Channel c's scale (c < q->count; channel 0's when count is 1) or 0.0f out of range. */
float utvm_model_quant_scale(const utvm_model_quant_t *q, uint32_t c);
/* Channel c's zero point: 0 when none are stored, the single value when one is stored. */
int32_t utvm_model_quant_zero_point(const utvm_model_quant_t *q, uint32_t c);

/* ---------------------------------------------------------------------------------------------
 * Operators and their options
 * ------------------------------------------------------------------------------------------- */

/* An operator, decoded by utvm_model_operator(). Tensor indices are < n_tensors or -1 (an
 * absent optional operand: whether the operator allows it is its operator file's check). Its
 * options (builtin_options) are read with utvm_model_option_*. */
typedef struct {
  utvm_model_op_t code;         /* max(deprecated_builtin_code, builtin_code), as the schema says */
  int32_t version;              /* OperatorCode.version (operator revision, default 1) */
  uint32_t n_inputs;
  uint32_t n_outputs;
  int32_t inputs[UTVM_MODEL_MAX_OP_INPUTS];
  int32_t outputs[UTVM_MODEL_MAX_OP_OUTPUTS];
  uint32_t options_type;        /* BuiltinOptions union type, 0 when it has none */
  uint32_t options2_type;       /* BuiltinOptions2 union type, 0 when it has none */
  /* private */
  uint32_t options_;            /* position of the options table, 0 when absent */
} utvm_model_operator_t;

/* ---------------------------------------------------------------------------------------------
 * The model
 * ------------------------------------------------------------------------------------------- */

/* A verified model: caller-owned (stack or static), filled by utvm_model_open(). The public
 * fields are read-only for the caller; the rest is private. */
typedef struct {
  /* public, read-only */
  uint32_t version;             /* schema version (3) */
  const char *description;      /* Model.description, NUL-terminated, "" when absent */
  uint32_t n_tensors;
  uint32_t n_operators;
  uint32_t n_inputs;            /* graph inputs */
  uint32_t n_outputs;           /* graph outputs */
  uint32_t n_buffers;
  char error[UTVM_MODEL_ERROR_SIZE]; /* what failed, "" after success */
  /* private */
  const uint8_t *data_;
  uint32_t size_;
  uint32_t opcodes_;            /* positions of the vectors' first elements in the file */
  uint32_t n_opcodes_;
  uint32_t buffers_;
  uint32_t tensors_;
  uint32_t operators_;
  uint32_t inputs_;
  uint32_t outputs_;
  bool valid_;
} utvm_model_t;

/* Verifies data[0..size) as a TFLite model with one subgraph of supported operators and fills
 * *m. On failure returns the code, writes m->error and leaves the model unusable (accessors
 * return UTVM_ERR_MODEL_ARGUMENT). data must stay valid while m is used; its address should be
 * 16-byte aligned (constant data is checked aligned to its element size). */
utvm_err_t utvm_model_open(utvm_model_t *m, const uint8_t *data, size_t size);

/* Decodes tensor index (< m->n_tensors) into *t. */
utvm_err_t utvm_model_tensor(const utvm_model_t *m, uint32_t index, utvm_model_tensor_t *t);

/* Decodes operator index (< m->n_operators, in execution order) into *op. */
utvm_err_t utvm_model_operator(const utvm_model_t *m, uint32_t index, utvm_model_operator_t *op);

/* Field id of operator op's options table as the raw little-endian bits of a width-byte scalar
 * (1, 2, 4 or 8), or def when the table or the field is absent. index is the operator's (for
 * the text). On failure writes "operator <index> (<NAME>): options: <why>" to text and returns
 * UTVM_ERR_MODEL_TRUNCATED or UTVM_ERR_MODEL_MALFORMED. */
utvm_err_t utvm_model_option_bits(const utvm_model_t *m, uint32_t index,
                                  const utvm_model_operator_t *op, uint32_t id, uint32_t width,
                                  uint64_t def, uint64_t *bits, utvm_text_t *text);

/* Field id of op's options table as a vector of int32: at most max values into values[],
 * *count of them (0 when absent). A longer vector is UTVM_ERR_MODEL_BAD_OPTION; errors as
 * utvm_model_option_bits. */
utvm_err_t utvm_model_option_i32s(const utvm_model_t *m, uint32_t index,
                                  const utvm_model_operator_t *op, uint32_t id, int32_t *values,
                                  uint32_t max, uint32_t *count, utvm_text_t *text);

/* The tensor index of graph input i (< m->n_inputs) / graph output i (< m->n_outputs). */
utvm_err_t utvm_model_input(const utvm_model_t *m, uint32_t i, uint32_t *tensor);
utvm_err_t utvm_model_output(const utvm_model_t *m, uint32_t i, uint32_t *tensor);

/* The TFLite name of builtin operator code ("CONV_2D"), or "?" if unknown. */
const char *utvm_model_op_name(int32_t code);

/* Appends "operator <index> (<NAME>): " to t ("builtin <code>" for a code without a name). */
void utvm_model_text_operator(utvm_text_t *t, uint32_t index, int32_t code);

/* ---------------------------------------------------------------------------------------------
 * Planner (generic: buffers and ordered steps; no TFLite knowledge)
 * ------------------------------------------------------------------------------------------- */

/* Every planned buffer and scratch area starts at a multiple of this many bytes from the arena
 * base (which the caller aligns to it too). */
#define UTVM_PLAN_ALIGNMENT 16u
/* An absent entry in a step's reads or writes (skipped), and the offset of an unplanned buffer.
 * Sizes and offsets are 32-bit: the planner refuses (UTVM_ERR_MODEL_PLAN_OVERFLOW) a problem
 * whose placed sizes, each rounded up to UTVM_PLAN_ALIGNMENT, add up to 4 GiB - 16 or more. */
#define UTVM_PLAN_NONE UINT32_MAX
#define UTVM_PLAN_NO_OFFSET UINT32_MAX

/* utvm_plan_buffer_t.flags */
#define UTVM_PLAN_INPUT 0x1u    /* graph input: alive from step 0 */
#define UTVM_PLAN_OUTPUT 0x2u   /* graph output: alive until the last step */
#define UTVM_PLAN_CONSTANT 0x4u /* lives elsewhere (model data): never placed */
#define UTVM_PLAN_APART 0x8u    /* shares no memory: placed after the arena (plan->io_offset) */

typedef struct {
  uint32_t size;                /* bytes */
  uint32_t flags;               /* UTVM_PLAN_INPUT | _OUTPUT | _CONSTANT | _APART */
} utvm_plan_buffer_t;

/* How a step's outputs may share memory with its inputs. */
typedef enum {
  /* Outputs get memory of their own, disjoint from every buffer alive during the step. */
  UTVM_PLAN_STEP_DEFAULT = 0,
  /* writes[0] is a view of reads[0] (RESHAPE, SQUEEZE: same bytes, nothing computed): both get
   * the same offset and the union of their lifetimes. Applied when both are planned, reads[0]
   * is written by no later step and writes[0] by no other step; else treated as DEFAULT. The
   * executor must skip the copy when the two offsets are equal. */
  UTVM_PLAN_STEP_ALIAS = 1,
  /* writes[0] takes the bytes of a read that dies at this step (element-wise kernels that
   * read each element before writing it: ADD, MUL, activations, QUANTIZE to the same width):
   * it joins that read's group at the read's offset. The read is the first of reads[] that is
   * planned, no graph input or output, written by exactly one earlier step, no smaller than
   * writes[0], and whose group (the read and every buffer sharing its bytes) is touched by no
   * later step; writes[0] must be planned, no graph input, written only here, touched by no
   * earlier step and alone in its group. Else treated as DEFAULT. The executor passes the
   * same memory as input and output. */
  UTVM_PLAN_STEP_INPLACE = 2,
  /* The reads are contiguous pieces of writes[0] (CONCATENATION, PACK along the outermost
   * dimension that is not 1): read k is a view of writes[0] at the sum of the sizes of reads
   * 0..k-1. SCATTER, the other way (SPLIT, SPLIT_V, UNPACK): write j is a view of reads[0] at the
   * sum of the sizes of writes 0..j-1. All or nothing, else treated as DEFAULT: applied when the
   * step has one write (GATHER) or one read (SCATTER), every piece and the whole is planned (not
   * constant, not apart) and alone in its group (no alias or view yet), the pieces are pairwise
   * distinct and none is the whole or a graph input, their sizes add up to the whole's, and each
   * piece's offset in the whole is a multiple of UTVM_PLAN_ALIGNMENT; GATHER: each read is
   * written by exactly one earlier step, writes[0] only by this one and by no step before it (nor
   * is it read before it, or a graph input); SCATTER: each write is written only by this step and
   * touched by no step before it, reads[0] by no step from this one on. A graph output flag only
   * extends the lifetimes. An ALIAS into a group with views is applied only to a writes[0] alone
   * in its group and no larger than reads[0]. The executor must skip each copy whose source and
   * destination are the same bytes. */
  UTVM_PLAN_STEP_GATHER = 3,
  UTVM_PLAN_STEP_SCATTER = 4,
  /* INPLACE that also accepts a read smaller than writes[0], at the same offset (writes[0]
   * grows past the read's end; the kernel must never write a byte of the read that it has still
   * to read, as utvm_conv2d_s8_inplace does, writing its rows from the last one), and a graph
   * input planned with the activations (not APART; written by no step). */
  UTVM_PLAN_STEP_INPLACE_GROW = 5
} utvm_plan_step_kind_t;

typedef struct {
  const uint32_t *reads;        /* buffer indices (< n_buffers) or UTVM_PLAN_NONE */
  const uint32_t *writes;
  uint32_t n_reads;
  uint32_t n_writes;
  uint32_t scratch;             /* bytes of scratch memory the step needs while it runs */
  utvm_plan_step_kind_t kind;
  uint32_t inplace_scratch;     /* INPLACE: its scratch instead when the output is placed over
                                   the read (a kernel that runs in place through a buffer of its
                                   own, e.g. utvm_conv2d_s8_inplace's ring); else unused */
} utvm_plan_step_t;

/* The plan. Set offsets (n_buffers entries) and scratch_offsets (n_steps entries; may be NULL
 * when no step has scratch) before calling; the planner fills them and the sizes. */
typedef struct {
  uint32_t *offsets;            /* out: each buffer's offset in the arena, UTVM_PLAN_NO_OFFSET
                                   for constants and buffers no step uses (nor flags) */
  uint32_t *scratch_offsets;    /* out: each step's scratch offset, UTVM_PLAN_NO_OFFSET if none */
  size_t arena_size;            /* out: bytes of the arena (buffers and scratch) */
  size_t lower_bound;           /* out: max over steps of the bytes alive at that step */
  size_t max_scratch;           /* out: the largest scratch of one step */
  uint32_t heuristic;           /* out: which placement order won (0 size, 1 start, 2 span) */
  size_t io_offset;             /* out: where the APART buffers start, one after another, each
                                   aligned, up to arena_size (the bytes below are the shared
                                   arena); arena_size when there are none */
} utvm_plan_t;

/* Bytes of workspace utvm_plan() needs for n_buffers and n_steps (SIZE_MAX if that overflows):
 * 32 per buffer and 28 per step plus 12 to 16, on any target (32-bit words only). */
size_t utvm_plan_workspace_size(uint32_t n_buffers, uint32_t n_steps);

/* Plans the arena: lifetimes (first write or read .. last read or write; INPUT from step 0,
 * OUTPUT to the last step), aliases and views (a buffer at an offset inside another's bytes,
 * see utvm_plan_step_kind_t), then greedy placement (largest first, lowest offset that
 * overlaps no placed buffer alive at the same time) under three orders, keeping the smallest.
 * Each step's scratch is placed like a buffer alive during that step only. APART buffers come
 * last, after the arena, in index order. Deterministic. */
utvm_err_t utvm_plan(const utvm_plan_buffer_t *buffers, uint32_t n_buffers,
                     const utvm_plan_step_t *steps, uint32_t n_steps, void *workspace,
                     size_t workspace_size, utvm_plan_t *plan);

/* ---------------------------------------------------------------------------------------------
 * Planning a model
 * ------------------------------------------------------------------------------------------- */

/* utvm_model_plan() options. IO_SEPARATE: the graph inputs and outputs share no memory with
 * the activations or with each other; they are placed one after another (each aligned) after
 * the planned activations, from plan->io_offset to plan->arena_size, so that an application can
 * give them buffers of their own. Without it they are planned like any tensor (IO sharing: an
 * output may reuse an input's bytes once the input is read). */
#define UTVM_MODEL_PLAN_IO_SEPARATE 0x1u

/* Asked once per operator for its scratch bytes (e.g. by asking the kernels) and its step kind:
 * *kind arrives as utvm_model_plan() chose it (UTVM_PLAN_STEP_ALIAS for RESHAPE, SQUEEZE and
 * EXPAND_DIMS of a computed tensor, else DEFAULT) and may be changed (e.g. GATHER for a
 * CONCATENATION whose inputs are contiguous pieces of its output). *inplace_bytes (arriving 0)
 * is the step's scratch when an INPLACE kind is applied (utvm_plan_step_t.inplace_scratch).
 * NULL: no scratch, kinds kept. */
typedef utvm_err_t (*utvm_model_scratch_fn)(void *ctx, const utvm_model_t *m, uint32_t index,
                                            const utvm_model_operator_t *op, size_t *bytes,
                                            utvm_plan_step_kind_t *kind, size_t *inplace_bytes);

/* Bytes of workspace utvm_model_plan() needs for m (SIZE_MAX if m is not open, a tensor or
 * operator cannot be decoded, or the size overflows). Decodes every tensor and operator to
 * count the computed ones: 44 bytes per computed tensor, 4 per computed operand and 60 per
 * operator (52 on a 32-bit target), plus alignment. */
size_t utvm_model_plan_workspace_size(const utvm_model_t *m);

/* Plans m: one buffer per computed tensor (graph inputs and operator outputs; constants take
 * no planner memory; graph inputs and outputs flagged), one step per operator (its computed
 * inputs read, its outputs written, RESHAPE, SQUEEZE and EXPAND_DIMS of a computed tensor as
 * UTVM_PLAN_STEP_ALIAS, the kind the scratch callback gives otherwise; a step other than DEFAULT
 * that reads a variable tensor is planned as DEFAULT: its bytes change in place). Also checks the data flow: every computed tensor an operator reads is
 * a graph input or written by an earlier operator, no tensor is written twice or is both a
 * graph input and written, no constant is written, every graph output is produced.
 * plan->offsets needs m->n_tensors entries and receives each tensor's offset
 * (UTVM_PLAN_NO_OFFSET for constants and unused tensors); it is also the tensor-to-buffer map
 * while planning, so after an error its entries are unspecified. plan->scratch_offsets needs
 * m->n_operators entries (or NULL when scratch is NULL); a scratch size of 4 GiB or more is
 * refused (UTVM_ERR_MODEL_PLAN_OVERFLOW). options: 0 or UTVM_MODEL_PLAN_IO_SEPARATE (unknown
 * bits are refused). Writes m->error on failure. */
utvm_err_t utvm_model_plan(utvm_model_t *m, utvm_model_scratch_fn scratch, void *ctx,
                           uint32_t options, void *workspace, size_t workspace_size,
                           utvm_plan_t *plan);

/* Operators planned as one step: a patch-by-patch stage (utvm_stage_s8), which holds none of
 * the tensors between them. */
typedef struct {
  uint32_t first;               /* its first operator */
  uint32_t count;               /* operators first..first+count-1 (count >= 1) */
  uint32_t scratch;             /* bytes the step needs while it runs */
  uint32_t inplace_scratch;     /* the same when kind INPLACE_GROW is applied */
  utvm_plan_step_kind_t kind;   /* DEFAULT, or INPLACE_GROW: the stage runs in place */
} utvm_model_stage_t;

/* utvm_model_plan() with the operators of stage (NULL: none) as one step that reads what the
 * first reads, writes what the last writes and needs the stage's scratch (the callback's
 * answers for those operators are not used); the tensors between them get no memory
 * (UTVM_PLAN_NO_OFFSET). UTVM_ERR_MODEL_ARGUMENT unless each operator of the stage but the last
 * writes one tensor, read only by the next one, which reads no other computed tensor, and
 * that is no graph output. */
utvm_err_t utvm_model_plan_stage(utvm_model_t *m, utvm_model_scratch_fn scratch, void *ctx,
                                 uint32_t options, const utvm_model_stage_t *stage,
                                 void *workspace, size_t workspace_size, utvm_plan_t *plan);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_MODEL_H */

/*
 * utvm model runner: runs a TFLite model opened by the model reader (utvm/model.h) with the
 * int8 kernels (utvm/kernels.h), bit-exact with TensorFlow Lite Micro's reference kernels.
 *
 * Memory: the caller owns all of it. The workspace (utvm_runner_workspace_size bytes, any
 * alignment) holds a 32-bit arena offset per tensor and per operator (its scratch), an 8-byte
 * entry per operator, then one region: during init the planner's working memory (computed
 * tensors and operators only), then, in the same bytes, each operator's prepared record
 * (kernel parameters, operand places, per-channel int32 multipliers and int8 shifts); the
 * region is the larger of the two. The arena (16-byte aligned, r->arena_size bytes, below
 * 4 GiB) holds every activation tensor and kernel scratch area. Arena plus workspace is what
 * compares with TFLM's arena (which holds its tensor and operator data too). Both, the model
 * and its bytes must stay valid and unchanged while the runner is used. Nothing allocates,
 * nothing recurses, no state is static.
 *
 * init plans the arena and prepares every operator once: all integer parameters come from the
 * model's float scales through the kernels' prepare helpers, and every operand type, shape and
 * quantization combination is checked before any kernel runs, so a model the reader accepts
 * either runs or fails with a code and a text naming the operator, e.g.
 * "operator 2 (FULLY_CONNECTED): bias is int8, not int32".
 *
 * Usage:
 *   utvm_runner_init(&r, &m, ws, sizeof(ws), NULL, 0u);   -> UTVM_ERR_RUNNER_ARENA, sets
 *                                                            r.arena_size (model checked)
 *   utvm_runner_init(&r, &m, ws, sizeof(ws), arena, r.arena_size);
 *   utvm_runner_input(&r, 0u, &in);  memcpy(in.data, ..., in.bytes);
 *   utvm_runner_invoke(&r);
 *   utvm_runner_output(&r, 0u, &out);
 */
#ifndef UTVM_RUNNER_H
#define UTVM_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/error.h"
#include "utvm/kernels.h"
#include "utvm/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of utvm_runner_t.error, NUL included; longer texts are cut. */
#define UTVM_RUNNER_ERROR_SIZE 160u
/* Alignment the arena must have (the planner's). */
#define UTVM_RUNNER_ARENA_ALIGNMENT UTVM_PLAN_ALIGNMENT

/* A runner: caller-owned (stack or static), filled by utvm_runner_init(). The public fields are
 * read-only for the caller; the rest is private. */
typedef struct {
  /* public, read-only */
  size_t arena_size;            /* bytes of arena the plan needs (set once planning succeeded) */
  size_t workspace_size;        /* bytes of workspace used */
  size_t io_offset;             /* with io_separate: where the inputs and outputs start in the
                                   arena (below are the activations); arena_size otherwise */
  uint32_t n_operators;
  char error[UTVM_RUNNER_ERROR_SIZE]; /* what failed, "" after success */
  /* private */
  const utvm_model_t *model_;
  uint8_t *arena_;
  uint32_t *offsets_;           /* [n_tensors] arena offset of each tensor, or UTVM_PLAN_NO_OFFSET */
  void *ops_;                   /* [n_operators] prepared operators */
  uint8_t *records_;            /* their records */
  utvm_kernels_core_t core_;
  bool ready_;
} utvm_runner_t;

/* How utvm_runner_init_with() plans. */
typedef struct {
  /* Whose kernel scratch sizes to plan: UTVM_KERNELS_NATIVE for the kernels this runner calls;
   * another core's lets a host tool plan a target's memory (the portable kernels ignore
   * scratch, so the runner still computes the same results). */
  utvm_kernels_core_t core;
  /* The graph inputs and outputs in their own bytes after the activations
   * (UTVM_MODEL_PLAN_IO_SEPARATE; r->io_offset), instead of sharing the activations. */
  bool io_separate;
} utvm_runner_options_t;

/* A tensor as the runner holds it: data points into the arena (activations, graph inputs and
 * outputs) or into the model's bytes (constants, read-only). */
typedef struct {
  void *data;                   /* NULL for a constant (see const_data) */
  const void *const_data;       /* the bytes, for every tensor */
  size_t bytes;
  uint32_t tensor;              /* its index in the model */
  utvm_model_type_t type;
  uint32_t rank;
  int32_t dims[UTVM_MODEL_MAX_DIMS];
  float scale;                  /* per-tensor scale (channel 0's), 0.0f when not quantized */
  int32_t zero_point;
} utvm_runner_tensor_t;

/* Bytes of workspace utvm_runner_init() needs for m (an opened model), or SIZE_MAX if m is not
 * open or the size overflows. */
size_t utvm_runner_workspace_size(const utvm_model_t *m);

/* Plans m's arena, prepares and checks every operator, then takes the arena. On success the
 * runner is ready to invoke. Errors (code plus r->error): UTVM_ERR_RUNNER_WORKSPACE (the text
 * gives the bytes needed), UTVM_ERR_MODEL_* from the planner, UTVM_ERR_RUNNER_OPERANDS,
 * UTVM_ERR_RUNNER_UNSUPPORTED or UTVM_ERR_KERNEL_* for an operator (the text names it), and
 * UTVM_ERR_RUNNER_ARENA when arena is NULL, misaligned or smaller than r->arena_size (which is
 * then set: pass NULL and 0 to learn it). m->error receives the planner's text too. The
 * workspace and arena stay the caller's. */
utvm_err_t utvm_runner_init(utvm_runner_t *r, utvm_model_t *m, void *workspace,
                            size_t workspace_size, void *arena, size_t arena_size);

/* utvm_runner_init() with options (NULL: this build's kernels, IO sharing the activations, as
 * utvm_runner_init). UTVM_ERR_RUNNER_ARGUMENT for an unknown core. */
utvm_err_t utvm_runner_init_with(utvm_runner_t *r, utvm_model_t *m, void *workspace,
                                 size_t workspace_size, void *arena, size_t arena_size,
                                 const utvm_runner_options_t *options);

/* Describes tensor index (< the model's n_tensors) into *t. UTVM_ERR_RUNNER_ARGUMENT if the
 * runner is not ready, the index is out of range or the tensor has no memory (a non-constant
 * tensor that no operator uses). */
utvm_err_t utvm_runner_tensor(const utvm_runner_t *r, uint32_t index, utvm_runner_tensor_t *t);

/* Graph input / output i (< n_inputs / n_outputs) as utvm_runner_tensor(): write the inputs'
 * data before utvm_runner_invoke(), read the outputs' after it. */
utvm_err_t utvm_runner_input(const utvm_runner_t *r, uint32_t i, utvm_runner_tensor_t *t);
utvm_err_t utvm_runner_output(const utvm_runner_t *r, uint32_t i, utvm_runner_tensor_t *t);

/* Runs operator k (< r->n_operators) alone, for per-layer timing; the operators before it must
 * have run. A kernel's error is returned with r->error naming the operator. */
utvm_err_t utvm_runner_invoke_operator(utvm_runner_t *r, uint32_t k);

/* Runs every operator in order (stops at the first error, as invoke_operator). */
utvm_err_t utvm_runner_invoke(utvm_runner_t *r);

/* ---- Operator parameters ("op params"): one operator's kernel call as int32 words ----------
 *
 * A pointer-free, versioned, little-endian int32 array holding everything a kernel call needs
 * that is not an operand tensor (layout in docs/KERNEL_FUNCS.md): word 0 UTVM_OP_PARAMS_MAGIC
 * (version in the low half), word 1 the kind, word 2 the word count, word 3 the number of
 * input operand tensors, word 4 the scratch bytes, then the kind's body. The host compiler
 * encodes them (utvm_runner_op_params + utvm_op_params_encode) and the kernel functions
 * (utvm/kfuncs.h) decode them; decode validates everything against the word count. */

/* Magic and version of the format (word 0). */
#define UTVM_OP_PARAMS_MAGIC 0x504B0001
/* Words of the header. */
#define UTVM_OP_PARAMS_HEADER_WORDS 5u
/* Most input operand tensors of one operator (CONCATENATION): with the op-params tensor and
 * the output, TVM's C graph executor passes at most 9 tensors. */
#define UTVM_OP_PARAMS_MAX_INPUTS 7u
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
  X(A, RESHAPE, reshape)

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

/* The kernel function of a kind ("utvm_k_conv2d_s8", utvm/kfuncs.h), or NULL if unknown. */
const char *utvm_op_kind_function(utvm_op_kind_t kind);

/* Element types of operand tensors (DLPack codes: int 0, uint 1, float 2). */
typedef enum {
  UTVM_OP_TYPE_ANY = 0,   /* RESHAPE: any type, only the bytes count */
  UTVM_OP_TYPE_INT8 = 1,
  UTVM_OP_TYPE_INT32 = 2,
  UTVM_OP_TYPE_FLOAT32 = 3
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
  float scale;                /* QUANTIZE_F32 (output), DEQUANTIZE (input) */
  int32_t zero_point;
  int32_t axis;               /* CONCATENATION */
  int32_t n_axes;             /* MEAN */
  int32_t axes[UTVM_KERNEL_MAX_RANK];
  uint32_t has_bias;          /* CONV, DEPTHWISE, FULLY_CONNECTED: 1 if input 2 is the bias */
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
  } p;
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

/* Operator k (< r->n_operators) of a ready runner as op params (from its prepared record:
 * the runner's checks and arithmetic) and its operand tensors. quant's arrays point into the
 * runner's workspace. UTVM_ERR_RUNNER_ARGUMENT for a bad runner or index; p is checked. */
utvm_err_t utvm_runner_op_params(const utvm_runner_t *r, uint32_t k, utvm_op_params_t *p,
                                 utvm_op_operands_t *operands);

/* Arena offset of operator k's kernel scratch area into *offset (UTVM_PLAN_NO_OFFSET when it
 * has none), for code that calls the kernels itself. UTVM_ERR_RUNNER_ARGUMENT for a bad runner
 * or index. */
utvm_err_t utvm_runner_op_scratch(const utvm_runner_t *r, uint32_t k, uint32_t *offset);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_RUNNER_H */

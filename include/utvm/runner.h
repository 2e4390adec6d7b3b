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
#include "utvm/ops.h"

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
  uint32_t stage_first;         /* the patch-by-patch stage (utvm_runner_options_t.patches): */
  uint32_t stage_count;         /* operators stage_first.. of it, 0 when there is none */
  uint32_t patches;             /* its patches (0 when there is none) */
  bool stage_inplace;           /* its output is written over its input */
  uint32_t stage_scratch;       /* bytes of its scratch (at utvm_runner_op_scratch of its first
                                   operator) */
  uint32_t n_offloaded;         /* operators an offload took (utvm_runner_offload) */
  char error[UTVM_RUNNER_ERROR_SIZE]; /* what failed, "" after success */
  /* private */
  const utvm_model_t *model_;
  uint8_t *arena_;
  uint32_t *offsets_;           /* [n_tensors] arena offset of each tensor, or UTVM_PLAN_NO_OFFSET */
  uint32_t *scratch_offsets_;   /* [n_operators] arena offset of each scratch, or UTVM_PLAN_NO_OFFSET */
  void *ops_;                   /* [n_operators] prepared operators */
  uint8_t *records_;            /* their records */
  utvm_kernels_core_t core_;
  const struct utvm_runner_offload_s *offload_;
  bool ready_;
} utvm_runner_t;

/* utvm_runner_options_t.patches */
#define UTVM_RUNNER_PATCHES_OFF 0u
#define UTVM_RUNNER_PATCHES_AUTO UINT32_MAX

/* How utvm_runner_init_with() plans. */
typedef struct {
  /* Whose kernel scratch sizes to plan: UTVM_KERNELS_NATIVE for the kernels this runner calls;
   * another core's lets a host tool plan a target's memory (the portable kernels ignore
   * scratch, so the runner still computes the same results). */
  utvm_kernels_core_t core;
  /* The graph inputs and outputs in their own bytes after the activations
   * (UTVM_MODEL_PLAN_IO_SEPARATE; r->io_offset), instead of sharing the activations. */
  bool io_separate;
  /* The operators the runner may prepare (utvm/ops.h: UTVM_OP_RESOLVER, or
   * &utvm_op_resolver_all); required. A model operator it lacks is refused by init. */
  const utvm_op_resolver_t *resolver;
  /* Patch-by-patch scheduling of the model's first stage (utvm_stage_s8): when the model starts
   * with int8 CONV_2D / DEPTHWISE_CONV_2D operators each read only by the next, init runs the
   * first few of them (as many as give the smallest arena) as one stage whose last output is
   * computed in `patches` bands of rows, with none of the tensors between them in the arena.
   * UTVM_RUNNER_PATCHES_OFF: never; UTVM_RUNNER_PATCHES_AUTO: the number of patches and layers
   * that give the smallest arena, only if smaller than without (fewest patches among equals);
   * N >= 1: N patches, the layers that give the smallest arena. Results are bit-exact either
   * way. r->stage_first, stage_count and patches say what was chosen. */
  uint32_t patches;
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

/* An offload: another implementation that takes some operators off the runner's kernels, per
 * operator (e.g. the Arm Compute Library on aarch64 Linux, utvm/acl.h). utvm_runner_offload()
 * offers it every operator of a ready runner; the ones it declines keep the runner's kernel.
 * Plain C callbacks and the caller's memory: the runner knows nothing of what is behind them. */
typedef struct utvm_runner_offload_s {
  /* Operator index of the model, prepared by the runner: p is its call as op params
   * (utvm_runner_op_params: kind, shapes, parameters), tensors[0..p->n_inputs] its input
   * operands then its output (a constant has data NULL and its bytes at const_data; the others'
   * data stay where they are while the runner is used, so the offload may keep the pointers).
   * Leaves *handle NULL to decline, sets it to take the operator; any error fails
   * utvm_runner_offload, the offload appending its reason to text (which already names the
   * operator). */
  utvm_err_t (*take)(void *ctx, uint32_t index, const utvm_op_params_t *p,
                     const utvm_runner_tensor_t *tensors, utvm_text_t *text, void **handle);
  /* Runs a taken operator on the tensors take was given (an error stops the invocation). */
  utvm_err_t (*run)(void *ctx, void *handle);
  /* Gives a taken operator back (utvm_runner_deinit, another utvm_runner_offload, or a failed
   * utvm_runner_offload); operators are given back last taken first. */
  void (*release)(void *ctx, void *handle);
  void *ctx;
  void **handles;               /* caller memory of n_handles entries, one per operator */
  uint32_t n_handles;
} utvm_runner_offload_t;

/* Bytes of workspace utvm_runner_init() needs for m (an opened model), or SIZE_MAX if m is not
 * open or the size overflows. Links every operator (utvm_op_resolver_all). */
size_t utvm_runner_workspace_size(const utvm_model_t *m);

/* The same for utvm_runner_init_with() with resolver (NULL: SIZE_MAX); links only the
 * resolver's operators. */
size_t utvm_runner_workspace_size_with(const utvm_model_t *m, const utvm_op_resolver_t *resolver);

/* Plans m's arena, prepares and checks every operator, then takes the arena. On success the
 * runner is ready to invoke. Errors (code plus r->error): UTVM_ERR_RUNNER_WORKSPACE (the text
 * gives the bytes needed), UTVM_ERR_MODEL_* from the planner, UTVM_ERR_RUNNER_OPERANDS,
 * UTVM_ERR_RUNNER_UNSUPPORTED or UTVM_ERR_KERNEL_* for an operator (the text names it), and
 * UTVM_ERR_RUNNER_ARENA when arena is NULL, misaligned or smaller than r->arena_size (which is
 * then set: pass NULL and 0 to learn it). m->error receives the planner's text too. The
 * workspace and arena stay the caller's. Every operator utvm has may run, so every one is
 * linked: a firmware that wants only its model's uses utvm_runner_init_with() and a resolver. */
utvm_err_t utvm_runner_init(utvm_runner_t *r, utvm_model_t *m, void *workspace,
                            size_t workspace_size, void *arena, size_t arena_size);

/* utvm_runner_init() with options (required: the resolver included; utvm_runner_init is this
 * with UTVM_KERNELS_NATIVE, IO sharing the activations and utvm_op_resolver_all). An operator
 * the resolver lacks: UTVM_ERR_RUNNER_UNSUPPORTED ("operator 3 (SOFTMAX): not in the runner's
 * operator resolver"). UTVM_ERR_RUNNER_ARGUMENT for no options or resolver, an unknown core. */
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

/* Sets every variable tensor (the state SVDF and LSTM keep between invocations) to its zero
 * point (int8) or 0, as TFLM's ResetVariableTensors; utvm_runner_init does it once.
 * UTVM_ERR_RUNNER_ARGUMENT if the runner is not ready. */
utvm_err_t utvm_runner_reset_state(utvm_runner_t *r);

/* Runs operator k (< r->n_operators) alone, for per-layer timing; the operators before it must
 * have run. A kernel's error is returned with r->error naming the operator. The stage's first
 * operator runs the whole stage; its other operators do nothing. */
utvm_err_t utvm_runner_invoke_operator(utvm_runner_t *r, uint32_t k);

/* Offers every operator of a ready runner to offload (after giving back what a previous offload
 * took), which must outlive the runner's use: operators of a patch-by-patch stage and
 * operators of several kernel calls (SPLIT) are not offered. r->n_offloaded counts what it took;
 * invoke then runs those through offload->run. NULL offload: back to the runner's kernels.
 * UTVM_ERR_RUNNER_ARGUMENT (runner not ready, no callbacks, fewer handles than operators) or the
 * error of take, r->error naming the operator and the reason; nothing stays taken then. */
utvm_err_t utvm_runner_offload(utvm_runner_t *r, const utvm_runner_offload_t *offload);

/* Gives back every operator an offload took; the runner is no longer ready (init it again to
 * use it). Call it before utvm_runner_init reuses r when an offload took operators. NULL: no-op. */
void utvm_runner_deinit(utvm_runner_t *r);

/* Runs every operator in order (stops at the first error, as invoke_operator). */
utvm_err_t utvm_runner_invoke(utvm_runner_t *r);

/* The kernel calls of operator k (< r->n_operators) into *calls: one per output (SPLIT,
 * SPLIT_V and UNPACK write each output with a call of its own). UTVM_ERR_RUNNER_ARGUMENT for a
 * bad runner or index. */
utvm_err_t utvm_runner_op_calls(const utvm_runner_t *r, uint32_t k, uint32_t *calls);

/* Call j (< utvm_runner_op_calls) of operator k (< r->n_operators) of a ready runner as op
 * params (from its prepared record: the runner's checks and arithmetic) and its operand
 * tensors. quant's arrays point into the runner's workspace. UTVM_ERR_RUNNER_ARGUMENT for a
 * bad runner or index; p is checked. */
utvm_err_t utvm_runner_op_params(const utvm_runner_t *r, uint32_t k, uint32_t j,
                                 utvm_op_params_t *p, utvm_op_operands_t *operands);

/* Arena offset of operator k's kernel scratch area into *offset (UTVM_PLAN_NO_OFFSET when it
 * has none), for code that calls the kernels itself. UTVM_ERR_RUNNER_ARGUMENT for a bad runner
 * or index. */
utvm_err_t utvm_runner_op_scratch(const utvm_runner_t *r, uint32_t k, uint32_t *offset);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_RUNNER_H */

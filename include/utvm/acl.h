/*
 * utvm's Arm Compute Library backend (Cortex-A, aarch64 Linux; built with -DUTVM_WITH_ACL=ON):
 * float32 layers run by ACL's NEON functions behind a C interface (the C++ is src/acl/).
 *
 * A layer is configured once (utvm_acl_*_prepare: ACL's validate, configure, the weights
 * imported from the caller's constants and reshaped, its auxiliary memory taken from the
 * caller's allocator) and run any number of times (utvm_acl_layer_run) on caller memory.
 * Shapes and parameters are the float32 kernels' (utvm/kernels.h: NHWC, filters OHWI / 1HWO,
 * [units, depth] weights), so a layer computes what the utvm kernel with the same arguments
 * does, up to float rounding: ACL sums in another order (docs/TFLITE.md gives the tolerance).
 *
 * Memory: the layer object and ACL's own bookkeeping come from the C++ heap (this backend is
 * for Linux hosts); the auxiliary buffers ACL's functions need (reshaped weights, im2col and
 * GEMM workspaces) come from memory->alloc at prepare and go back through memory->free when the
 * layer is freed, in reverse order (a stack allocator such as TVM's workspace suits). The
 * constants (filter, bias) must outlive the layer; input and output are given per run.
 * Errors: UTVM_ERR_KERNEL_BAD_PARAM / _BAD_SHAPE (as the utvm kernel would refuse),
 * UTVM_ERR_ACL_UNSUPPORTED (ACL refuses the layer), UTVM_ERR_ACL_MEMORY, UTVM_ERR_ACL_FAILED.
 */
#ifndef UTVM_ACL_H
#define UTVM_ACL_H

#include <stddef.h>
#include <stdint.h>

#include "utvm/crt.h"
#include "utvm/error.h"
#include "utvm/kernels.h"
#include "utvm/runner.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The allocator ACL's auxiliary memory comes from: alloc returns bytes aligned to alignment
 * (a power of two) or NULL; free takes back what alloc gave, last first. */
typedef struct {
  void *(*alloc)(void *ctx, size_t bytes, size_t alignment);
  void (*free)(void *ctx, void *ptr);
  void *ctx;
} utvm_acl_memory_t;

/* A configured layer (opaque). */
typedef struct utvm_acl_layer utvm_acl_layer_t;

/* CONV_2D as utvm_conv2d_f32 (groups of one only: ACL 20.08 has no grouped NEON convolution,
 * UTVM_ERR_ACL_UNSUPPORTED); bias may be NULL. *layer receives the layer. */
utvm_err_t utvm_acl_conv2d_f32_prepare(const utvm_conv2d_f32_params_t *params,
                                       const utvm_dims_t *input_dims, const utvm_dims_t *filter_dims,
                                       const float *filter, const float *bias,
                                       const utvm_dims_t *output_dims,
                                       const utvm_acl_memory_t *memory, utvm_acl_layer_t **layer);

/* DEPTHWISE_CONV_2D as utvm_depthwise_conv2d_f32. */
utvm_err_t utvm_acl_depthwise_conv2d_f32_prepare(const utvm_depthwise_conv2d_f32_params_t *params,
                                                 const utvm_dims_t *input_dims,
                                                 const utvm_dims_t *filter_dims,
                                                 const float *filter, const float *bias,
                                                 const utvm_dims_t *output_dims,
                                                 const utvm_acl_memory_t *memory,
                                                 utvm_acl_layer_t **layer);

/* FULLY_CONNECTED as utvm_fully_connected_f32. */
utvm_err_t utvm_acl_fully_connected_f32_prepare(const utvm_activation_f32_t *params,
                                                int32_t batches, int32_t input_depth,
                                                int32_t output_depth, const float *weights,
                                                const float *bias,
                                                const utvm_acl_memory_t *memory,
                                                utvm_acl_layer_t **layer);

/* AVERAGE_POOL_2D (average nonzero) or MAX_POOL_2D as utvm_avg_pool2d_f32 / utvm_max_pool2d_f32
 * (the average over the taps inside the input, as TFLite). */
utvm_err_t utvm_acl_pool2d_f32_prepare(int32_t average, const utvm_pool2d_f32_params_t *params,
                                       const utvm_dims_t *input_dims,
                                       const utvm_dims_t *output_dims,
                                       const utvm_acl_memory_t *memory, utvm_acl_layer_t **layer);

/* Runs layer on input into output (caller memory of the prepared shapes, 4-byte aligned). */
utvm_err_t utvm_acl_layer_run(utvm_acl_layer_t *layer, const float *input, float *output);

/* Bytes of auxiliary memory the layer took from its allocator. */
size_t utvm_acl_layer_memory_bytes(const utvm_acl_layer_t *layer);

/* Frees layer and gives its auxiliary memory back (NULL: nothing). */
void utvm_acl_layer_free(utvm_acl_layer_t *layer);

/* ---- The runner's offload (utvm/runner.h: utvm_runner_offload) -----------------------------
 *
 * ACL takes, per operator, the float32 CONV_2D (groups of one), DEPTHWISE_CONV_2D,
 * FULLY_CONNECTED, AVERAGE_POOL_2D and MAX_POOL_2D whose filter and bias are constants and
 * that its validate accepts; the runner's kernels run every other operator. Each taken layer
 * is configured once, when utvm_runner_offload offers it, and reused by every invoke. ACL's
 * auxiliary memory (reshaped weights, im2col and GEMM workspaces, padded copies) comes from a
 * utvm stack allocator (utvm/crt.h) over the caller's workspace: layers are given back last
 * first. A workspace too small for a layer fails utvm_runner_offload with
 * UTVM_ERR_ACL_MEMORY and a text giving the workspace's size and what the layers before used
 * (no silent fallback: the caller chose ACL). */
typedef struct utvm_acl_offload utvm_acl_offload_t;

/* Creates the offload for a model of n_operators operators over workspace[workspace_size]
 * (caller memory, kept until utvm_acl_offload_free) into *acl and fills *offload (to give to
 * utvm_runner_offload; its handles are the offload's). threads: ACL's scheduler threads, 0 for
 * its default (one per core); the scheduler is the process's, so the last call sets it.
 * UTVM_ERR_KERNEL_BAD_PARAM for NULL arguments, UTVM_ERR_ACL_MEMORY when the C++ heap fails. */
utvm_err_t utvm_acl_offload_init(utvm_acl_offload_t **acl, void *workspace,
                                 size_t workspace_size, uint32_t n_operators, uint32_t threads,
                                 utvm_runner_offload_t *offload);

/* Bytes of auxiliary memory the layer of operator index took (0 when ACL did not take it). */
size_t utvm_acl_offload_layer_bytes(const utvm_acl_offload_t *acl, uint32_t index);

/* Bytes of the workspace in use (alignment included). */
size_t utvm_acl_offload_workspace_used(const utvm_acl_offload_t *acl);

/* Frees the offload (after utvm_runner_deinit or another utvm_runner_offload gave its layers
 * back; a layer still held is freed here). NULL: nothing. */
void utvm_acl_offload_free(utvm_acl_offload_t *acl);

/* The ACL version the backend was built with ("v20.08"), for utvm info. */
const char *utvm_acl_version(void);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_ACL_H */

/*
 * utvm generic compiler (host): turns an int8 .tflite model that the runner (utvm/runner.h)
 * accepts into a graph JSON (PROTOCOL.md 6.1) whose operator nodes call the kernel functions
 * (utvm/kfuncs.h) and a parameter blob (6.2) with the constants and every node's op params, so
 * that the model runs through TVM's graph executor on any firmware with those functions.
 *
 * Graph (docs/KERNEL_FUNCS.md): node i < n_inputs is model input i, named "input<i>"; then one
 * "null" node per constant operand ("p<tensor index>") and per operator ("op<k>_params"), all
 * in arg_nodes and in the blob; then one "tvm_op" node per operator ("op<k>_<function>") in
 * model order, whose inputs are its operands, then its op params. Every node has one output,
 * so entry id = node id. Storage: one id per input and per parameter; activations share ids by
 * lifetime (greedy best-fit slot reuse; an output never shares with a live entry or with the
 * operator's own inputs). RESHAPE and SQUEEZE are copy nodes (utvm_k_reshape).
 * All memory is malloc'd (sizes bounded by the model's) and freed by utvm_host_graph_free.
 * Library utvm_host_compiler (host/compiler/), with utvm/host_emit.h and utvm/host_mlf.h.
 */
#ifndef UTVM_HOST_COMPILE_H
#define UTVM_HOST_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tvm/runtime/c_runtime_api.h"
#include "utvm/error.h"
#include "utvm/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

#define UTVM_COMPILED_MAX_NDIM 6
/* Largest arena the compiler lets the runner plan while checking a model (bytes). */
#ifndef UTVM_COMPILED_MAX_ARENA
#define UTVM_COMPILED_MAX_ARENA 0x40000000u
#endif

typedef struct {
  uint32_t ndim;
  int64_t shape[UTVM_COMPILED_MAX_NDIM];
  DLDataType dtype;
  uint64_t bytes;
  uint32_t storage_id;
} utvm_compiled_entry_t;

typedef struct {
  char *name;
  char *func_name;
  uint32_t n_inputs;
  uint32_t n_outputs;
  uint32_t *entries; /* n_inputs then n_outputs entry ids */
} utvm_compiled_op_t;

typedef struct {
  char *name;
  uint32_t entry;
  const uint8_t *data;
  uint64_t bytes;
  bool state;        /* a variable tensor's starting value (named state<tensor>: SVDF and LSTM
                        state, which its operator updates in place) */
} utvm_compiled_param_t;

typedef struct {
  char *json;
  size_t json_len;                 /* graph JSON, PROTOCOL 6.1 (NUL-terminated) */
  uint8_t *params_blob;
  size_t params_blob_len;          /* parameter blob, PROTOCOL 6.2 */
  uint32_t n_entries;
  utvm_compiled_entry_t *entries;
  uint32_t n_ops;
  utvm_compiled_op_t *ops;            /* in execution order */
  uint32_t n_params;
  utvm_compiled_param_t *params;      /* data points into params_blob */
  uint32_t n_inputs;
  uint32_t *input_entries;
  char **input_names;              /* model inputs */
  uint32_t n_outputs;
  uint32_t *output_entries;        /* heads, in order */
  uint32_t n_storage;
  uint64_t *storage_bytes;         /* per storage_id: the largest entry */
  uint64_t activation_bytes;
  uint64_t param_bytes;            /* sums, for reports */
} utvm_compiled_graph_t;

/* Compiles a .tflite (bytes, size) into *g for the generic kernel functions. Errors: code
 * plus text in err (err_cap bytes), e.g. the runner's "operator 2 (...): ..." text. A
 * convolution the runner's plan runs in place is a node of its in-place kind
 * (utvm_k_conv2d_s8_inplace, utvm_k_depthwise_conv2d_s8_inplace). */
utvm_err_t utvm_host_compile_generic(const uint8_t *tflite, size_t size, utvm_compiled_graph_t *g,
                                     char *err, size_t err_cap);

/* utvm_host_compile_generic_with() options. */
typedef struct {
  /* The in-place convolutions as their plain kinds (utvm_k_conv2d_s8,
   * utvm_k_depthwise_conv2d_s8: the same op-params body, the plain kernel's scratch), for a
   * firmware whose kernel functions predate kinds 59 and 60. */
  bool plain_convolutions;
  /* Constants laid out for core's kernels where they read a faster layout (utvm_op_emit_t's
   * lay_out: CONV_2D filters widened for the DSP kernels, CONV_2D filters and FULLY_CONNECTED
   * weights with their rows' terms for the MVE kernels): each becomes a parameter of its own
   * call, op<k>_w<input>; only a firmware with those kernels runs the graph (utvm_k_kernels
   * tells). false: TFLite's layout, which every firmware reads. */
  bool lay_out;
  utvm_kernels_core_t core;
} utvm_host_compile_options_t;

/* utvm_host_compile_generic with options o (NULL: the defaults, all false). */
utvm_err_t utvm_host_compile_generic_with(const uint8_t *tflite, size_t size,
                                          const utvm_host_compile_options_t *o,
                                          utvm_compiled_graph_t *g, char *err, size_t err_cap);

/* Frees everything; g zeroed. */
void utvm_host_graph_free(utvm_compiled_graph_t *g);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_HOST_COMPILE_H */

/*
 * utvm host library: the standalone code emitter. Turns an int8 .tflite model that the runner
 * (utvm/runner.h) accepts into C for the ai_ API (utvm/ai.h; docs/AI.md):
 *   NET.h       the descriptor `extern const ai_model ai_model_NET`, the entry points
 *               ai_NET_create/_run/_destroy and AI_NET_* size macros
 *   NET.c       one static const parameter struct (and per-channel multiplier/shift arrays) per
 *               operator, and the network: a straight sequence of kernel calls (utvm/kernels.h)
 *   NET_data.c  the weights as one 16-byte aligned const blob in section
 *               ".rodata.utvm.weights" (and, with builtin_activations, the buffer in
 *               ".bss.utvm.activations")
 * Every activation tensor and scratch area sits at the runner planner's offset in one
 * activations buffer. Inputs and outputs have buffers of their own (the application's, bound
 * with ai_set_input/ai_set_output, or built-in ones), or with io_in_activations sit inside the
 * activations at planned offsets (IO sharing), so activations_size is the runner's arena_size
 * (or its io_offset). With patches (utvm_emit_options_t.patches) the first operators may run as
 * one utvm_stage_s8 call (utvm/kernels.h). Scratch is planned for the target core's kernels (options core). Every parameter comes from the runner's prepared operators
 * (utvm_runner_op_params); nothing is re-derived. Output is deterministic: the same model and
 * options give the same bytes. The weights blob holds the model's little-endian bytes, so the
 * code is for little-endian targets (Arm Cortex-M, x86). Library utvm_host_compiler
 * (host/compiler/).
 */
#ifndef UTVM_HOST_EMIT_H
#define UTVM_HOST_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/error.h"
#include "utvm/kernels.h"
#include "utvm/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The tool version the generated code records (with utvm/ai.h's UTVM_AI_API_VERSION, the ai_
 * API it is generated for). */
#define UTVM_EMIT_TOOL_VERSION "utvm 0.1.0"
/* Longest network name (a C identifier: letter, then letters, digits, '_'). */
#define UTVM_EMIT_MAX_NAME 32u
/* Largest generated file (the weights as text). */
#define UTVM_EMIT_MAX_BYTES ((size_t)512u << 20)
/* Longest function name a report row holds (a graph's func_name, UTVM_GRAPH_MAX_NAME_LEN). */
#define UTVM_EMIT_MAX_FUNCTION 119u
/* Most arguments of one packed-function call in a graph (UTVM_GRAPH_MAX_OP_ARGS). */
#define UTVM_EMIT_MAX_PACKED_ARGS 16u
/* Largest arena the emitter accepts (bytes; the offsets are 32-bit). */
#define UTVM_EMIT_MAX_ARENA 0x40000000u

typedef struct {
  const char *name;          /* NET: symbols ai_NET_*, files NET.h, NET.c, NET_data.c */
  const char *model_name;    /* recorded in the header comment and descriptor, NULL: "" */
  const char *date;          /* creation date to record, NULL: none (deterministic output) */
  bool builtin_activations;  /* the generated code carries its own activations buffer (and,
                                without io_in_activations, a buffer per input and output) */
  bool io_in_activations;    /* inputs and outputs inside the activations (IO sharing) */
  utvm_kernels_core_t core;  /* the target's kernels, whose scratch is planned */
  uint32_t patches;          /* utvm_runner_options_t.patches: UTVM_RUNNER_PATCHES_OFF (0),
                                _AUTO or a count; a stage becomes one utvm_stage_s8 call */
  bool lay_out;              /* constants laid out for core's kernels where they read a faster
                                layout (utvm_op_emit_t.lay_out: CONV_2D filters widened to
                                int16 for the DSP kernels, twice the bytes; CONV_2D filters and
                                FULLY_CONNECTED weights with their rows' terms for the MVE
                                kernels), in a patch-by-patch stage too */
  bool requant_tables;       /* the int8 fast paths' requantization entries made here, once,
                                for CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED on DSP and
                                portable cores (24 bytes of flash per output channel) instead
                                of per call; needs lay_out. A per-build choice: it pays in
                                instructions where layers have few positions per channel */
} utvm_emit_options_t;

/* One operator of the report. */
typedef struct {
  char function[UTVM_EMIT_MAX_FUNCTION + 1u]; /* the kernel ("utvm_conv2d_s8") or packed
                                                function called */
  uint32_t output_bytes;
  uint32_t output_offset;    /* in the activations; UINT32_MAX for an output of its own */
  uint32_t scratch_bytes;
} utvm_emit_layer_t;

/* What a model needs, before any firmware is built. */
typedef struct {
  size_t activations_bytes;  /* the activations buffer of the chosen IO placement */
  size_t activations_io_shared_bytes;   /* activations with inputs and outputs inside */
  size_t activations_io_separate_bytes; /* activations without them (IO apart) */
  size_t io_bytes;           /* bytes of the inputs and outputs together */
  size_t io_aligned_bytes;   /* the same, each rounded up to 16 bytes (UTVM_AI_ALIGNED) */
  size_t params_bytes;       /* the weights blob (constants, each 16-byte aligned) */
  size_t laid_out_bytes;     /* of which constants laid out for the core (options lay_out), */
  size_t laid_out_from_bytes; /* which take this many bytes in TFLite's layout */
  size_t requant_table_bytes; /* requantization tables made for the core (options
                                 requant_tables), in NET.c's constants, not the weights blob; */
  size_t requant_table_option_bytes; /* what they take, or would take with requant_tables */
  size_t scratch_bytes;      /* largest kernel scratch of one operator (or stage) */
  size_t activations_without_patches_bytes; /* activations_bytes planned without patches */
  uint32_t stage_first;      /* the patch-by-patch stage: its first operator, */
  uint32_t stage_layers;     /* its operators (0: none), */
  uint32_t patches;          /* its patches, */
  uint64_t stage_calls;      /* its kernel calls per inference (stage_layers without patches) */
  uint64_t stage_copied_bytes; /* bytes its line buffers move per inference (nothing is
                                  computed twice: rows two calls share stay in the buffers) */
  uint32_t n_inputs;
  uint32_t n_outputs;
  uint32_t n_layers;
  utvm_emit_layer_t *layers; /* malloc'd, freed by utvm_host_emit_report_free */
  bool kernels_used[UTVM_OP_KIND_MAX + 1]; /* [kind]: the model calls utvm_op_kind_t kind */
} utvm_emit_report_t;

/* Emits the model (tflite, size bytes) as o->name's three files into dir (which must exist),
 * or only fills *report when dir is NULL; report may be NULL. Errors: UTVM_ERR_EMIT_ARGUMENT
 * (bad name or options), the reader's, planner's or runner's codes for a model they refuse,
 * UTVM_ERR_EMIT_MEMORY, UTVM_ERR_EMIT_WRITE; a text in err (err_cap bytes). */
utvm_err_t utvm_host_emit(const uint8_t *tflite, size_t size, const utvm_emit_options_t *o,
                          const char *dir, utvm_emit_report_t *report, char *err,
                          size_t err_cap);

/* Emits a TVM graph (graph JSON of json_len bytes, PROTOCOL.md 6.1, and its parameter blob,
 * 6.2, or NULL) the same way: read by the graph executor's parser, one buffer per entry planned
 * by utvm_plan. Operators whose function is a kernel function (utvm_k_*: `utvm compile
 * --generic` or `--mlf`) become direct kernel calls, their op params decoded here; any other
 * function (TVM's fused operators) a call of the packed function of that name, which the
 * firmware links from the model's library (an MLF archive's codegen/host/src/ *.c). Inputs are
 * the graph inputs that are not parameters, outputs its heads; neither carries quantization
 * (scale 0). Errors as utvm_host_emit, plus the graph parser's UTVM_ERR_GRAPH_* codes. */
utvm_err_t utvm_host_emit_graph(const char *json, size_t json_len, const uint8_t *params,
                                size_t params_len, const utvm_emit_options_t *o,
                                const char *dir, utvm_emit_report_t *report, char *err,
                                size_t err_cap);

/* Frees the report's layers; the report is zeroed. */
void utvm_host_emit_report_free(utvm_emit_report_t *report);

/* The kernel function (utvm/kernels.h) of an op kind, e.g. "utvm_conv2d_s8", or "" if
 * unknown. */
const char *utvm_host_emit_kernel_name(uint32_t kind);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_HOST_EMIT_H */

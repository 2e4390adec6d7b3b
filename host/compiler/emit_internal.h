/*
 * The standalone code emitter's shared parts (emit.c), used by its two back ends: the .tflite
 * one (emit.c: the runner's prepared operators) and the graph one (emit_graph.c: a TVM graph
 * JSON and parameter blob).
 */
#ifndef UTVM_HOST_EMIT_INTERNAL_H
#define UTVM_HOST_EMIT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dlpack/dlpack.h"
#include "text.h"
#include "utvm/ai.h"
#include "utvm/host_emit.h"
#include "utvm/model.h"
#include "utvm/runner.h"

/* Alignment of every constant in the weights blob. */
#define EMIT_ALIGN 16u
/* n rounded up to EMIT_ALIGN. */
#define emit_align_up(n) (((size_t)(n) + (EMIT_ALIGN - 1u)) & ~(size_t)(EMIT_ALIGN - 1u))
/* Bytes of one operand's C expression ("a(act, 123456u)", "io[3]", "w(123u)"). */
#define EMIT_EXPR_SIZE 48u
/* DLPack's type code of booleans (kDLBool, newer than Debian's dlpack.h). */
#define EMIT_DL_BOOL 6u

/* Everything one emission holds. */
typedef struct {
  /* the .tflite back end */
  utvm_model_t model;
  uint8_t *bytes;            /* a copy of the model */
  void *workspace;
  void *arena_block;
  uint8_t *arena;
  utvm_runner_t runner;
  uint32_t *io_index;        /* per tensor: its index in io[] (inputs, then outputs), or
                                UINT32_MAX */
  /* shared */
  const utvm_emit_options_t *o;
  bool io_separate;          /* inputs and outputs have buffers of their own */
  size_t shared_bytes;       /* activations with IO inside (the plan with IO sharing) */
  size_t separate_bytes;     /* activations without IO (the plan with IO apart) */
  size_t whole_bytes;        /* activations of the chosen IO placement without patches */
  utvm_op_params_t *stage;   /* [UTVM_KERNELS_STAGE_MAX_LAYERS] the stage's layers' op params */
  char (*stage_operands)[2][EMIT_EXPR_SIZE]; /* their filter and bias expressions */
  char stage_input[EMIT_EXPR_SIZE]; /* the stage's input expression */
  const char *constant_kind; /* what a constant id numbers, for comments ("tensor") */
  uint32_t *const_offsets;   /* per constant id: offset in the weights blob, or UINT32_MAX */
  size_t params_bytes;
  size_t laid_out_bytes;     /* constants laid out for the core (options lay_out): their bytes, */
  size_t laid_out_from_bytes; /* and the same constants' bytes in TFLite's layout */
  size_t requant_table_bytes; /* requantization tables made (options requant_tables), */
  size_t requant_table_option_bytes; /* and what they take with the option */
  utvm_requant_entry_t *table; /* the call being emitted: its requantization table (malloc'd), */
  int32_t table_channels;    /* of this many entries (0: none) */
  host_text_t data;          /* NET_data.c's blob body */
  host_text_t defs;          /* NET.c's parameter structs */
  host_text_t body;          /* NET.c's network */
  host_text_t externs;       /* NET.c's declarations of packed functions called */
  host_text_t io_decls;      /* NET.h's IO size macros and built-in IO buffers */
  host_text_t io_defs;       /* NET_data.c's built-in IO buffers */
  host_text_t states;        /* NET.c's variable tensors (ai_state_info entries) */
  uint32_t n_states;
  bool uses_w;
  bool uses_wp;              /* writable weights pointers (a packed call's DLTensor) */
  bool uses_a;
  bool uses_io;
  bool uses_packed;          /* the network calls packed functions (call_packed helper) */
  char *err;
  size_t err_cap;
} emit_t;

/* An input or output as its ai_tensor_info describes it. */
typedef struct {
  bool input;
  uint32_t index;
  const char *name;
  bool own_buffer;           /* else at offset in the activations */
  uint32_t offset;
  size_t bytes;
  DLDataType dtype;
  uint32_t rank;
  int64_t dims[UTVM_AI_MAX_DIMS];
  float scale;
  int32_t zero_point;
} emit_io_t;

/* Writes the error text into e->err and returns code. */
utvm_err_t emit_fail(emit_t *e, utvm_err_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Whether name is a C identifier of 1 to UTVM_EMIT_MAX_NAME characters. */
bool emit_name_valid(const char *name);

/* A C string literal of text (printable ASCII kept, the rest as octal escapes). */
void emit_cstring(host_text_t *s, const char *text);

/* An exact float literal (C99 hexadecimal). */
void emit_float(host_text_t *s, float v);

/* Appends constant id (< the back end's count; data of bytes bytes) to the weights blob once,
 * 16-byte aligned; returns its offset. */
uint32_t emit_constant(emit_t *e, uint32_t id, const void *data, size_t bytes);

/* The parameter structs of call j of operator k (j > 0: the further outputs of SPLIT...) and
 * its direct kernel call on the operand expressions in[n_in] (the kernel's order), out and
 * scratch ("NULL" or an expression). */
utvm_err_t emit_kernel_call(emit_t *e, uint32_t k, uint32_t j, const utvm_op_params_t *p,
                            char (*in)[EMIT_EXPR_SIZE], uint32_t n_in, const char *out,
                            const char *scratch);

/* Appends io's ai_tensor_info initializer to s, its size macro (and built-in buffer) to the
 * header and data texts. */
void emit_io_info(emit_t *e, host_text_t *s, const emit_io_t *io);

/* After a back end's rc: refuses texts that ran out of memory, writes the three files into dir
 * (unless dir is NULL or rc is an error) and frees io[0..1]; returns the first error. */
utvm_err_t emit_finish(emit_t *e, utvm_err_t rc, const char *dir, const utvm_emit_report_t *r,
                       host_text_t *io);

/* Frees the shared texts and constant offsets. */
void emit_free_shared(emit_t *e);

#endif /* UTVM_HOST_EMIT_INTERNAL_H */

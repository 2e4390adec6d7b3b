/*
 * utvm error codes: one enum for every layer.
 *
 * Values follow TVM's tvm_crt_error_t numbering (category << 8 | code) where TVM
 * defines the same condition, so a code seen in a log means the same thing in
 * both implementations. utvm-only conditions use free codes in the same categories.
 */
#ifndef UTVM_ERROR_H
#define UTVM_ERROR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  UTVM_OK = 0,

  /* Function registry (0x1xx). */
  UTVM_ERR_FUNC_NAME_NOT_FOUND = 0x100,
  UTVM_ERR_FUNC_INDEX_INVALID = 0x101,
  UTVM_ERR_REGISTRY_FULL = 0x102,
  UTVM_ERR_FUNC_ALREADY_DEFINED = 0x103,
  UTVM_ERR_BUFFER_TOO_SMALL = 0x104,

  /* Framing (0x2xx). */
  UTVM_ERR_FRAMING_INVALID_STATE = 0x200,
  UTVM_ERR_FRAMING_SHORT_PACKET = 0x201,
  UTVM_ERR_FRAMING_INVALID_ESCAPE = 0x202,
  UTVM_ERR_FRAMING_PAYLOAD_OVERFLOW = 0x203,
  UTVM_ERR_FRAMING_PAYLOAD_INCOMPLETE = 0x204,
  UTVM_ERR_FRAMING_LENGTH_TOO_LARGE = 0x2F0,  /* utvm: length above the configured maximum */
  UTVM_ERR_FRAMING_BAD_CRC = 0x2F1,           /* utvm: packet CRC mismatch */

  /* Write stream (0x3xx). */
  UTVM_ERR_WRITE_SHORT = 0x300,
  UTVM_ERR_WRITE_LONG = 0x301,
  UTVM_ERR_WRITE_FAILED = 0x3F0, /* utvm: the transport's write callback failed */

  /* Session (0x4xx). */
  UTVM_ERR_SESSION_INVALID_STATE = 0x400,
  UTVM_ERR_SESSION_RX_BUSY = 0x401,
  UTVM_ERR_SESSION_RX_SHORT_WRITE = 0x402,
  UTVM_ERR_SESSION_BAD_ARGUMENT = 0x4F0,   /* utvm: e.g. a Log length outside 1..1023 */
  UTVM_ERR_SESSION_TOO_LARGE = 0x4F1,      /* utvm: message above the transmit limit */
  UTVM_ERR_SESSION_NO_RANDOM = 0x4F2,      /* utvm: the random hook failed */

  /* Platform (0x5xx). */
  UTVM_ERR_PLATFORM_CHECK_FAILURE = 0x500,
  UTVM_ERR_PLATFORM_MEMORY_MANAGER_INITIALIZED = 0x501,
  UTVM_ERR_PLATFORM_SHUTDOWN = 0x502,
  UTVM_ERR_PLATFORM_NO_MEMORY = 0x503,
  UTVM_ERR_PLATFORM_TIMER_BAD_STATE = 0x504,
  UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE = 0x505,
  UTVM_ERR_PLATFORM_TIMER_NOT_RUNNING = 0x5F0, /* utvm: the port's timer was never started */

  /* Function calls (0x8xx). */
  UTVM_ERR_FUNC_CALL_NUM_ARGS = 0x800,
  UTVM_ERR_FUNC_CALL_WRONG_ARG_TYPE = 0x801,
  UTVM_ERR_FUNC_CALL_NOT_IMPLEMENTED = 0x802,
  UTVM_ERR_FUNC_CALL_INVALID_ARG = 0x803,

  /* Time evaluator (0x9xx). */
  UTVM_ERR_TIME_EVAL_BAD_HANDLE = 0x900,
  UTVM_ERR_TIME_EVAL_TIMER_OVERFLOW = 0x9F0, /* utvm: the measurement overflowed the timer */

  /* Kernels (0xAxx). */
  UTVM_ERR_KERNEL_BAD_PARAM = 0xA00,   /* utvm: a kernel parameter is out of its range */
  UTVM_ERR_KERNEL_BAD_SHAPE = 0xA01,   /* utvm: tensor shapes that do not fit together */
  UTVM_ERR_KERNEL_UNSUPPORTED = 0xA02, /* utvm: quantization or option TFLite rejects too */
  UTVM_ERR_KERNEL_NO_F32 = 0xA03,      /* utvm: a float32 kernel in a build without them
                                          (UTVM_HAVE_F32 0, utvm/kernels.h) */
  /* The Arm Compute Library backend (include/utvm/acl.h, 0xA80..0xAFF). */
  UTVM_ERR_ACL_UNSUPPORTED = 0xA80,    /* utvm: a layer ACL's validate() refuses */
  UTVM_ERR_ACL_MEMORY = 0xA81,         /* utvm: the layer's memory could not be had */
  UTVM_ERR_ACL_FAILED = 0xA82,         /* utvm: an ACL call failed (threw) */

  /* Model reader and planner (0xBxx). */
  UTVM_ERR_MODEL_ARGUMENT = 0xB00,          /* NULL pointer, index out of range, unopened model */
  UTVM_ERR_MODEL_TRUNCATED = 0xB01,         /* an offset or length reaches past the file */
  UTVM_ERR_MODEL_MALFORMED = 0xB02,         /* bad flatbuffer structure (vtable, string, union) */
  UTVM_ERR_MODEL_NOT_TFLITE = 0xB03,        /* no "TFL3" identifier or schema version not 3 */
  UTVM_ERR_MODEL_SUBGRAPHS = 0xB04,         /* not exactly one subgraph */
  UTVM_ERR_MODEL_INDEX = 0xB05,             /* a tensor, buffer or opcode index out of range */
  UTVM_ERR_MODEL_UNSUPPORTED_OPERATOR = 0xB06,
  UTVM_ERR_MODEL_UNSUPPORTED_TYPE = 0xB07,  /* tensor type (or sparse, variable tensor) */
  UTVM_ERR_MODEL_BAD_OPTION = 0xB08,        /* unsupported or invalid operator option */
  UTVM_ERR_MODEL_BAD_OPERANDS = 0xB09,      /* wrong number of inputs or outputs */
  UTVM_ERR_MODEL_BAD_SHAPE = 0xB0A,         /* negative dimension, too large, too many dims */
  UTVM_ERR_MODEL_BAD_QUANTIZATION = 0xB0B,
  UTVM_ERR_MODEL_BAD_DATA = 0xB0C,          /* constant data size or alignment wrong */
  UTVM_ERR_MODEL_BAD_GRAPH = 0xB0D,         /* data flow: read before written, written twice */
  UTVM_ERR_MODEL_PLAN_WORKSPACE = 0xB0E,    /* planner workspace too small */
  UTVM_ERR_MODEL_PLAN_OVERFLOW = 0xB0F,     /* sizes overflow the address space */
  UTVM_ERR_MODEL_SCRATCH = 0xB10,           /* the scratch callback failed */

  /* Model runner (0xCxx). */
  UTVM_ERR_RUNNER_ARGUMENT = 0xC00,    /* NULL pointer, index out of range, runner not ready */
  UTVM_ERR_RUNNER_WORKSPACE = 0xC01,   /* workspace smaller than utvm_runner_workspace_size */
  UTVM_ERR_RUNNER_ARENA = 0xC02,       /* arena too small or not 16-byte aligned */
  UTVM_ERR_RUNNER_OPERANDS = 0xC03,    /* operand types, shapes or quantization do not fit */
  UTVM_ERR_RUNNER_UNSUPPORTED = 0xC04, /* a valid operand combination the runner cannot run */

  /* Graph executor (0xD00..0xD7F) and AOT executor (0xD80..0xDFF). */
  UTVM_ERR_GRAPH_ARGUMENT = 0xD00, /* NULL pointer, index or name out of range, not ready */
  UTVM_ERR_GRAPH_JSON = 0xD01,     /* graph JSON malformed or not TVM's schema */
  UTVM_ERR_GRAPH_LIMIT = 0xD02,    /* graph over a UTVM_GRAPH_MAX_* limit */
  UTVM_ERR_GRAPH_MEMORY = 0xD03,   /* memory smaller than utvm_graph_memory_size */
  UTVM_ERR_GRAPH_FUNCTION = 0xD04, /* operator function absent from the module, or failed */
  UTVM_ERR_GRAPH_PARAMS = 0xD05,   /* parameter blob malformed or not matching the graph */
  UTVM_ERR_GRAPH_TENSOR = 0xD06,   /* set_input tensor of another size or dtype */
  UTVM_ERR_AOT_ARGUMENT = 0xD80,   /* NULL pointer, index or name out of range, not ready */
  UTVM_ERR_AOT_METADATA = 0xD81,   /* metadata function absent, failing or out of limits */
  UTVM_ERR_AOT_MEMORY = 0xD82,     /* memory smaller than utvm_aot_memory_size */
  UTVM_ERR_AOT_FUNCTION = 0xD83,   /* run function absent from the module, or failed */
  /* Kernel functions and the generic compiler (0xExx). */
  UTVM_ERR_KFUNC_PARAMS = 0xE00,       /* op params malformed or inconsistent */
  UTVM_ERR_KFUNC_CAPACITY = 0xE01,     /* op params buffer too small */
  UTVM_ERR_COMPILE_ARGUMENT = 0xE80,   /* NULL pointer or empty model */
  UTVM_ERR_COMPILE_MEMORY = 0xE81,     /* host allocation failed */
  UTVM_ERR_COMPILE_LIMIT = 0xE82,      /* the model exceeds a limit of the graph format */
  /* Standalone models: the ai_ API (0xF00..0xF7F) and the code emitter (0xF80..0xFFF). */
  UTVM_ERR_AI_ARGUMENT = 0xF00,        /* NULL pointer, index out of range, handle not live */
  UTVM_ERR_AI_ACTIVATIONS = 0xF01,     /* activations buffer too small or misaligned */
  UTVM_ERR_AI_INSTANCES = 0xF02,       /* every instance of the pool is in use */
  UTVM_ERR_AI_MODEL = 0xF03,           /* model descriptor malformed or of another API version */
  UTVM_ERR_AI_RUN = 0xF04,             /* a kernel of the network failed */
  UTVM_ERR_EMIT_ARGUMENT = 0xF80,      /* NULL pointer, bad name or empty model */
  UTVM_ERR_EMIT_MEMORY = 0xF81,        /* host allocation failed */
  UTVM_ERR_EMIT_WRITE = 0xF82          /* an output file could not be written */
} utvm_err_t;

/* Returns a short, static, human-readable name for an error code; never NULL. */
const char *utvm_strerror(utvm_err_t err);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_ERROR_H */

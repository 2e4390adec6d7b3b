/*
 * utvm standalone models: the `ai_` runtime API (X-CUBE-AI's shape) above the code that
 * `utvm compile MODEL.tflite -o DIR --name NET` emits (NET.h, NET.c, NET_data.c; docs/AI.md).
 *
 * A generated model is a descriptor, `ai_model_NET` (ai_model), plus a network function that
 * calls the int8 kernels (utvm/kernels.h) one after another on one activations buffer: every
 * activation and kernel scratch area lives at the runner planner's offset in it. Inputs and
 * outputs have buffers of their own (the application's, bound with ai_set_input/_output, or
 * the model's built-in ones), or, for a model generated with --io-in-activations, sit inside
 * the activations (IO sharing). activations_size bytes plus the IO buffers is all the RAM a
 * model needs. The weights are one read-only blob (params_size bytes).
 *
 * Usage:
 *   ai_handle h;
 *   static uint8_t act[AI_NET_ACTIVATIONS_SIZE] UTVM_AI_ALIGNED;
 *   static int8_t in_buf[AI_NET_IN_0_SIZE], out_buf[AI_NET_OUT_0_SIZE];
 *   ai_create(&ai_model_NET, act, sizeof(act), &h);   (NULL, 0: the built-in buffer)
 *   ai_set_input(h, 0u, in_buf, sizeof(in_buf));      (not with --io-in-activations)
 *   ai_set_output(h, 0u, out_buf, sizeof(out_buf));
 *   ... fill in_buf (or ai_get_input(h, 0u, &in) and write in.dl.data) ...
 *   ai_run(h);
 *   ai_destroy(h);
 *
 * Instances come from a fixed pool of UTVM_AI_MAX_INSTANCES (static memory of this library),
 * so two instances of one model with separate activations run side by side. No heap, no
 * recursion. Every call checks its arguments and returns a status; ai_get_error() gives the
 * text of the last failure (of a handle, or of the library for a refused ai_create).
 */
#ifndef UTVM_AI_H
#define UTVM_AI_H

#include <stddef.h>
#include <stdint.h>

#include "dlpack/dlpack.h"
#include "utvm/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the descriptor layout below; generated code records the one it was made for. */
#define UTVM_AI_API_VERSION 3u
/* Instances live at once (all models together). */
#ifndef UTVM_AI_MAX_INSTANCES
#define UTVM_AI_MAX_INSTANCES 4u
#endif
/* Alignment activations buffers must have (the planner's, UTVM_PLAN_ALIGNMENT). */
#define UTVM_AI_ACTIVATIONS_ALIGNMENT 16u
/* Highest rank of an input or output tensor. */
#define UTVM_AI_MAX_DIMS 6u
/* Most inputs plus outputs of a model whose IO has buffers of its own. */
#ifndef UTVM_AI_MAX_IO
#define UTVM_AI_MAX_IO 8u
#endif
/* Alignment of an application's input or output buffer (float32 IO is read as words). */
#define UTVM_AI_IO_ALIGNMENT 4u
/* ai_tensor_info.offset of an input or output with a buffer of its own. */
#define UTVM_AI_OWN_BUFFER UINT32_MAX
/* Bytes of an error text, NUL included; longer texts are cut. */
#define UTVM_AI_ERROR_SIZE 128u

/* Placement of generated data in named ELF sections (GCC and clang; nothing elsewhere):
 * weights in ".rodata.utvm.weights", a built-in activations buffer in ".bss.utvm.activations"
 * (zero-initialised, no flash image). Default linker scripts put them with .rodata and .bss; a
 * firmware's script may place them by name (flash, SRAM, external memory; docs/AI.md). */
#if defined(__GNUC__)
#define UTVM_AI_SECTION(name) __attribute__((section(name)))
#define UTVM_AI_ALIGNED __attribute__((aligned(16)))
#else
#define UTVM_AI_SECTION(name)
#define UTVM_AI_ALIGNED
#endif

/* An input or output of a model, as the generated code describes it. */
typedef struct {
  const char *name;            /* the model's tensor name ("" if none) */
  uint32_t offset;             /* in the activations buffer, or UTVM_AI_OWN_BUFFER */
  uint8_t *buffer;             /* an own-buffer tensor's built-in buffer, or NULL */
  uint32_t bytes;
  DLDataType dtype;            /* int8, or float32 for a model with float IO */
  uint32_t ndim;
  int64_t shape[UTVM_AI_MAX_DIMS];
  float scale;                 /* quantization scale, 0.0f when not quantized */
  int32_t zero_point;
} ai_tensor_info;

struct ai_model_s;
/* An instance: a pointer into the library's pool, valid from ai_create to ai_destroy. */
typedef struct ai_instance_s *ai_handle;

/* The network function: runs every kernel on activations (activations_size bytes, aligned)
 * and io (the buffers of the inputs, then of the outputs, that have their own); returns the
 * first kernel error. */
typedef utvm_err_t (*ai_network_fn)(uint8_t *activations, void *const *io);

/* A generated model's descriptor (`const ai_model ai_model_NET`). */
typedef struct ai_model_s {
  uint32_t api_version;        /* UTVM_AI_API_VERSION of the generator */
  const char *name;            /* NET */
  const char *tool_version;    /* "utvm <version>" that generated it */
  const char *model_name;      /* the .tflite file's base name */
  const char *date;            /* creation date, "" unless generated with --date */
  uint32_t n_nodes;            /* kernel calls per run */
  uint32_t n_inputs;
  uint32_t n_outputs;
  const ai_tensor_info *inputs;
  const ai_tensor_info *outputs;
  size_t activations_size;     /* bytes of the activations buffer */
  size_t params_size;          /* bytes of the weights blob */
  const uint8_t *params;       /* the weights blob */
  uint8_t *builtin_activations; /* the model's own buffer, or NULL */
  ai_network_fn network;
  /* the generated entry points: ai_NET_create(activations, size, &h), _run(h), _destroy(h) */
  utvm_err_t (*create)(void *activations, size_t activations_size, ai_handle *handle);
  utvm_err_t (*run)(ai_handle handle);
  utvm_err_t (*destroy)(ai_handle handle);
  /* Sets the model's variable tensors (the state SVDF and LSTM keep between runs) in the
   * activations to their starting values; NULL for a model without state. */
  void (*reset_state)(uint8_t *activations);
} ai_model;

/* An input or output: the DLTensor (shape in this struct, so keep the struct where dl is used)
 * plus its quantization. */
typedef struct {
  DLTensor dl;
  int64_t shape[UTVM_AI_MAX_DIMS];
  float scale;
  int32_t zero_point;
  size_t bytes;
} ai_tensor;

/* Last error: its code and text ("" after success). */
typedef struct {
  utvm_err_t code;
  char text[UTVM_AI_ERROR_SIZE];
} ai_error;

/* Makes an instance of model on activations (activations_size bytes, 16-byte aligned, owned by
 * the caller until ai_destroy), or on the model's built-in buffer when activations is NULL.
 * Errors: UTVM_ERR_AI_ARGUMENT, UTVM_ERR_AI_MODEL, UTVM_ERR_AI_ACTIVATIONS (the text gives the
 * bytes needed), UTVM_ERR_AI_INSTANCES; then *handle is NULL and ai_get_error(NULL) tells. */
utvm_err_t ai_create(const ai_model *model, void *activations, size_t activations_size,
                     ai_handle *handle);

/* Sets every variable tensor of the instance's model (the state SVDF and LSTM keep between
 * runs) to its starting value, as TFLM's ResetVariableTensors; ai_create does it.
 * UTVM_ERR_AI_ARGUMENT for a handle that is not live. */
utvm_err_t ai_reset_state(ai_handle handle);

/* Returns the instance to the pool (its activations stay the caller's). UTVM_ERR_AI_ARGUMENT
 * for a handle that is not live. */
utvm_err_t ai_destroy(ai_handle handle);

/* Binds input / output i (< n_inputs / n_outputs) of a tensor with a buffer of its own to the
 * application's data (at least the tensor's bytes, UTVM_AI_IO_ALIGNMENT-aligned, owned by the
 * caller while the instance uses it); replaces a built-in buffer. UTVM_ERR_AI_ARGUMENT for a
 * bad handle, index, pointer or size, or a tensor that lives in the activations. */
utvm_err_t ai_set_input(ai_handle handle, uint32_t i, void *data, size_t bytes);
utvm_err_t ai_set_output(ai_handle handle, uint32_t i, void *data, size_t bytes);

/* Runs the network once (inputs written before, outputs read after). UTVM_ERR_AI_ARGUMENT if an
 * input or output has no buffer yet (ai_set_input / ai_set_output); UTVM_ERR_AI_RUN with the
 * kernel's error in the text. */
utvm_err_t ai_run(ai_handle handle);

/* Number of inputs / outputs of the instance's model. */
utvm_err_t ai_get_input_size(ai_handle handle, uint32_t *n_inputs);
utvm_err_t ai_get_output_size(ai_handle handle, uint32_t *n_outputs);

/* Input / output i (< n_inputs / n_outputs) into *t: data in the instance's activations, its
 * bound or built-in buffer, or NULL while an own-buffer tensor has none. */
utvm_err_t ai_get_input(ai_handle handle, uint32_t i, ai_tensor *t);
utvm_err_t ai_get_output(ai_handle handle, uint32_t i, ai_tensor *t);

/* The instance's activations buffer and its size (the model's activations_size). */
utvm_err_t ai_get_activations(ai_handle handle, uint8_t **activations);
utvm_err_t ai_get_activations_size(ai_handle handle, size_t *size);

/* The model's read-only weights blob and its size. */
utvm_err_t ai_get_params(ai_handle handle, const uint8_t **params);
utvm_err_t ai_get_params_size(ai_handle handle, size_t *size);

/* Copies the last error of live handle (set by any failed call on it; ai_set_input,
 * ai_set_output and ai_run clear it on success) or, for NULL, the library's (a refused
 * ai_create, a call with a handle that is not live) into *e. UTVM_ERR_AI_ARGUMENT if e is NULL
 * or handle is not live. */
utvm_err_t ai_get_error(ai_handle handle, ai_error *e);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_AI_H */

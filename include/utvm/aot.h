/*
 * utvm AOT executor: runs a model compiled by TVM's AOT executor (C interface, packed API) from
 * its metadata (struct TVMMetadata of <tvm/runtime/metadata_types.h>, PROTOCOL.md 5.6).
 *
 * init finds `tvmgen_<name>_get_c_metadata` and `<mod_name>_run` in a module of the C runtime,
 * checks the metadata against the limits below and lays out one tensor per input, output and
 * workspace pool in caller memory (utvm_aot_memory_size bytes, any alignment; data 64-byte
 * aligned). run calls `<mod_name>_run` with the inputs, outputs then pools as DLTensors of type
 * code 7, as TVM's AOT executor does. The metadata (firmware constants) is referenced, not
 * copied. Nothing allocates, nothing recurses, no state is static.
 *
 * Over RPC (utvm_aot_register_global), `tvm.aot_executor.create` allocates that memory from the
 * runtime's tensor arena and returns a module (see docs/EXECUTORS.md).
 */
#ifndef UTVM_AOT_H
#define UTVM_AOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tvm/runtime/metadata_types.h"
#include "utvm/crt.h"
#include "utvm/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most tensors passed to the run function (inputs + outputs + workspace pools). */
#ifndef UTVM_AOT_MAX_ARGS
#define UTVM_AOT_MAX_ARGS 32u
#endif
/* Most dimensions of a tensor of the metadata. */
#ifndef UTVM_AOT_MAX_NDIM
#define UTVM_AOT_MAX_NDIM 16u
#endif
/* Longest executor name (create's module_name) and metadata mod_name, and tensor names read. */
#define UTVM_AOT_MAX_NAME_LEN 63u
/* Largest tensor in bytes. */
#ifndef UTVM_AOT_MAX_TENSOR_BYTES
#define UTVM_AOT_MAX_TENSOR_BYTES 0x7FFFFFC0u
#endif
/* Metadata version understood (TVM v0.18 emits 1). */
#define UTVM_AOT_METADATA_VERSION 1
/* Alignment of every tensor's data. */
#define UTVM_AOT_ALIGNMENT 64u
/* Bytes of utvm_aot_t.error, NUL included. */
#define UTVM_AOT_ERROR_SIZE 128u

/* Name of the global function registered by utvm_aot_register_global. */
#define UTVM_AOT_CREATE_NAME "tvm.aot_executor.create"

/* An AOT executor: caller-owned. Public fields read-only; the rest private. */
typedef struct {
  /* public, read-only */
  size_t memory_size; /* bytes of memory init needs (set by memory_size and init) */
  uint32_t num_inputs;
  uint32_t num_outputs;
  uint32_t num_pools;
  char error[UTVM_AOT_ERROR_SIZE];
  /* private */
  const struct TVMMetadata *metadata_;
  TVMFunctionHandle run_;
  DLTensor *tensors_; /* inputs, outputs, pools */
  bool ready_;
} utvm_aot_t;

/* Finds the metadata of executor name (e.g. "default") in module (a live module handle of the
 * active runtime), checks it and sets a->memory_size. UTVM_ERR_AOT_METADATA (function absent,
 * failing, or metadata over the limits, with a->error saying which), UTVM_ERR_AOT_FUNCTION
 * (no `<mod_name>_run`), UTVM_ERR_AOT_ARGUMENT for NULL pointers or a name too long. */
utvm_err_t utvm_aot_memory_size(utvm_aot_t *a, TVMModuleHandle module, const char *name);

/* As utvm_aot_memory_size, then lays the tensors out in memory (memory_size bytes, kept by the
 * caller while a is used). UTVM_ERR_AOT_MEMORY when memory is NULL or smaller than
 * a->memory_size (then set). */
utvm_err_t utvm_aot_init(utvm_aot_t *a, TVMModuleHandle module, const char *name, void *memory,
                         size_t memory_size);

/* Index of the input called name, or -1; name of input index (the metadata's), or NULL. */
int32_t utvm_aot_input_index(const utvm_aot_t *a, const char *name);
const char *utvm_aot_input_name(const utvm_aot_t *a, uint32_t index);

/* The tensor of input / output index (in the executor's memory, valid while a is).
 * UTVM_ERR_AOT_ARGUMENT for an index out of range or an executor not ready. */
utvm_err_t utvm_aot_input(utvm_aot_t *a, uint32_t index, DLTensor **out);
utvm_err_t utvm_aot_output(utvm_aot_t *a, uint32_t index, DLTensor **out);

/* Calls `<mod_name>_run`; UTVM_ERR_AOT_FUNCTION with its last error in a->error on failure. */
utvm_err_t utvm_aot_run(utvm_aot_t *a);

/* Registers UTVM_AOT_CREATE_NAME in the active runtime: create(Module, Device cpu(0), Str name)
 * -> Module (docs/EXECUTORS.md). Errors as utvm_crt_register_global. */
utvm_err_t utvm_aot_register_global(void);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_AOT_H */

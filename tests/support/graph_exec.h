/*
 * Host-driven execution of a compiled graph (utvm/host_compile.h) in this process: one heap
 * buffer per storage id (exactly its bytes, so ASan sees overruns), a DLTensor per entry, the
 * parameters copied in, and each operator's function looked up by func_name in the system
 * library (runtime.SystemLib, TVMModGetFunction) and called with TVMFuncCall, tensors passed
 * as type code 13 like TVM's graph executor. The caller initialises crt (utvm_crt_init with
 * the system library) first.
 */
#ifndef UTVM_GRAPH_EXEC_H
#define UTVM_GRAPH_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "utvm/host_compile.h"

/* An executable graph; owns its buffers. */
typedef struct {
  const utvm_compiled_graph_t *g;
  uint8_t **storage;          /* [n_storage] */
  DLTensor *tensors;          /* [n_entries] */
  TVMFunctionHandle *funcs;   /* [n_ops] */
} graph_exec_t;

/* Allocates the storage, loads the parameters and resolves every function. 0, or -1 with a
 * text in err. */
int graph_exec_init(graph_exec_t *x, const utvm_compiled_graph_t *g, char *err, size_t err_cap);

/* Copies bytes into model input i; -1 if the size differs. */
int graph_exec_set_input(graph_exec_t *x, uint32_t i, const void *data, size_t bytes);

/* Runs every operator in order; -1 with "<node name>: <last error>" in err. */
int graph_exec_run(graph_exec_t *x, char *err, size_t err_cap);

/* Model output i's bytes (and their count). */
const void *graph_exec_output(const graph_exec_t *x, uint32_t i, size_t *bytes);

void graph_exec_free(graph_exec_t *x);

#endif /* UTVM_GRAPH_EXEC_H */

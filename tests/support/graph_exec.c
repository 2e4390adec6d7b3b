/* Host-driven execution of a compiled graph (graph_exec.h). */
#include "graph_exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/runtime/c_runtime_api.h"
#include "utvm/graph.h"

int graph_exec_init(graph_exec_t *x, const utvm_compiled_graph_t *g, char *err, size_t err_cap) {
  TVMFunctionHandle syslib_fn = NULL;
  TVMValue ret;
  int ret_code = 0;
  memset(x, 0, sizeof(*x));
  x->g = g;
  x->storage = (uint8_t **)calloc(g->n_storage + 1u, sizeof(uint8_t *));
  x->tensors = (DLTensor *)calloc(g->n_entries + 1u, sizeof(DLTensor));
  x->funcs = (TVMFunctionHandle *)calloc(g->n_ops + 1u, sizeof(TVMFunctionHandle));
  if ((x->storage == NULL) || (x->tensors == NULL) || (x->funcs == NULL)) {
    (void)snprintf(err, err_cap, "out of memory");
    return -1;
  }
  for (uint32_t s = 0u; s < g->n_storage; s++) {
    x->storage[s] = (uint8_t *)malloc((size_t)(g->storage_bytes[s] > 0u ? g->storage_bytes[s] : 1u));
    if (x->storage[s] == NULL) {
      (void)snprintf(err, err_cap, "out of memory for storage %u", s);
      return -1;
    }
  }
  for (uint32_t e = 0u; e < g->n_entries; e++) {
    DLTensor *t = &x->tensors[e];
    t->data = x->storage[g->entries[e].storage_id];
    t->device.device_type = kDLCPU;
    t->device.device_id = 0;
    t->ndim = (int32_t)g->entries[e].ndim;
    t->dtype = g->entries[e].dtype;
    t->shape = (int64_t *)g->entries[e].shape;
    t->strides = NULL;
    t->byte_offset = 0u;
  }
  for (uint32_t i = 0u; i < g->n_params; i++) {
    memcpy(x->tensors[g->params[i].entry].data, g->params[i].data, (size_t)g->params[i].bytes);
  }
  if ((TVMFuncGetGlobal("runtime.SystemLib", &syslib_fn) != 0) ||
      (TVMFuncCall(syslib_fn, NULL, NULL, 0, &ret, &ret_code) != 0)) {
    (void)snprintf(err, err_cap, "runtime.SystemLib: %s", TVMGetLastError());
    return -1;
  }
  for (uint32_t k = 0u; k < g->n_ops; k++) {
    if (TVMModGetFunction(ret.v_handle, g->ops[k].func_name, 0, &x->funcs[k]) != 0 ||
        (x->funcs[k] == NULL)) {
      (void)snprintf(err, err_cap, "%s: function %s not in the system library", g->ops[k].name,
                     g->ops[k].func_name);
      return -1;
    }
  }
  return 0;
}

int graph_exec_set_input(graph_exec_t *x, uint32_t i, const void *data, size_t bytes) {
  if ((i >= x->g->n_inputs) || (bytes != x->g->entries[x->g->input_entries[i]].bytes)) {
    return -1;
  }
  memcpy(x->tensors[x->g->input_entries[i]].data, data, bytes);
  return 0;
}

int graph_exec_run(graph_exec_t *x, char *err, size_t err_cap) {
  const utvm_compiled_graph_t *g = x->g;
  for (uint32_t k = 0u; k < g->n_ops; k++) {
    const utvm_compiled_op_t *op = &g->ops[k];
    TVMValue args[UTVM_GRAPH_MAX_OP_ARGS];
    int codes[UTVM_GRAPH_MAX_OP_ARGS];
    TVMValue ret;
    int ret_code = 0;
    const uint32_t n = op->n_inputs + op->n_outputs;
    if (n > UTVM_GRAPH_MAX_OP_ARGS) {
      (void)snprintf(err, err_cap, "%s: too many arguments", op->name);
      return -1;
    }
    for (uint32_t a = 0u; a < n; a++) {
      args[a].v_handle = &x->tensors[op->entries[a]];
      codes[a] = kTVMNDArrayHandle;
    }
    if (TVMFuncCall(x->funcs[k], args, codes, (int)n, &ret, &ret_code) != 0) {
      (void)snprintf(err, err_cap, "%s: %s", op->name, TVMGetLastError());
      return -1;
    }
  }
  return 0;
}

const void *graph_exec_output(const graph_exec_t *x, uint32_t i, size_t *bytes) {
  if (i >= x->g->n_outputs) {
    *bytes = 0u;
    return NULL;
  }
  *bytes = (size_t)x->g->entries[x->g->output_entries[i]].bytes;
  return x->tensors[x->g->output_entries[i]].data;
}

void graph_exec_free(graph_exec_t *x) {
  if (x->storage != NULL) {
    for (uint32_t s = 0u; s < x->g->n_storage; s++) {
      free(x->storage[s]);
    }
  }
  free(x->storage);
  free(x->tensors);
  free(x->funcs);
  memset(x, 0, sizeof(*x));
}

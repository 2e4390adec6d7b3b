/*
 * The graph executor's calls into the C runtime (utvm/crt.h): operators looked up in a module
 * and run. Apart from the parser (graph.c), so that a code generator that only reads graphs
 * (utvm_graph_init_lookup) links no runtime.
 */
#include <stddef.h>
#include <stdint.h>

#include "graph_internal.h"
#include "utvm/graph.h"

/* utvm_graph_init's lookup: the function in the module (ctx). */
static int32_t module_lookup(void *ctx, const char *name, TVMFunctionHandle *func) {
  return (int32_t)TVMModGetFunction((TVMModuleHandle)ctx, name, 1, func);
}

utvm_err_t utvm_graph_init(utvm_graph_t *g, const char *json, size_t json_len,
                           TVMModuleHandle module, void *memory, size_t memory_size) {
  return utvm_graph_init_lookup(g, json, json_len, module_lookup, module, memory, memory_size);
}

utvm_err_t utvm_graph_run(utvm_graph_t *g) {
  TVMValue values[UTVM_GRAPH_MAX_OP_ARGS];
  int codes[UTVM_GRAPH_MAX_OP_ARGS];
  if (g == NULL) {
    return UTVM_ERR_GRAPH_ARGUMENT;
  }
  if (!g->ready_) {
    graph_text_set(g, "graph: not initialised");
    return UTVM_ERR_GRAPH_ARGUMENT;
  }
  for (uint32_t k = 0u; k < g->num_ops; k++) {
    const utvm_graph_op_t *op = &g->ops_[k];
    uint32_t n = (uint32_t)op->num_inputs + op->num_outputs;
    TVMValue ret;
    int ret_code = kTVMNullptr;
    for (uint32_t a = 0u; a < n; a++) {
      values[a].v_handle = &g->entries_[g->args_[op->first_arg + a]];
      codes[a] = kTVMNDArrayHandle;
    }
    if (TVMFuncCall(op->func, values, codes, (int)n, &ret, &ret_code) != 0) {
      graph_text_set(g, "graph run: node ");
      graph_text_u64(g, op->node);
      graph_text_str(g, ": ");
      graph_text_str(g, TVMGetLastError());
      return UTVM_ERR_GRAPH_FUNCTION;
    }
  }
  g->error[0] = '\0';
  return UTVM_OK;
}

/*
 * tvm.graph_executor.create and the functions of the module it returns (PROTOCOL.md 4.2), on
 * the C API of graph.c. The executor and its memory are one block of the runtime's tensor arena;
 * the module slot's release hook frees it (TVMModFree, or a new session).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "graph_internal.h"
#include "tvm/runtime/crt/platform.h"

static int graph_fail_text(const char *text) {
  TVMAPISetLastError(text);
  return -1;
}

/* The executor's error text as the last error: -1 when err is not UTVM_OK, 0 otherwise. */
static int result_of(const utvm_graph_t *g, utvm_err_t err) {
  return (err == UTVM_OK) ? 0 : graph_fail_text(g->error);
}

static bool graph_is_tensor(int code) {
  return (code == kTVMDLTensorHandle) || (code == kTVMNDArrayHandle);
}

/* Bytes of a 1-D uint8 tensor argument (JSON text, parameter blob); NULL if it is none. */
static const uint8_t *byte_tensor(const TVMValue *v, int code, size_t *len) {
  const DLTensor *t = (const DLTensor *)v->v_handle;
  if (!graph_is_tensor(code) || (t == NULL) || (t->ndim != 1) || (t->shape == NULL) ||
      (t->dtype.code != (uint8_t)kDLUInt) || (t->dtype.bits != 8u) || (t->dtype.lanes != 1u) ||
      (t->shape[0] < 0) || (t->data == NULL)) {
    return NULL;
  }
  *len = (size_t)t->shape[0];
  return &((const uint8_t *)t->data)[t->byte_offset];
}

/* The input an argument names (Int index or Str name); -1 if none. */
static int32_t graph_input_of(const utvm_graph_t *g, const TVMValue *v, int code) {
  if (code == kTVMStr) {
    return utvm_graph_input_index(g, v->v_str);
  }
  if ((code == kTVMArgInt) && (v->v_int64 >= 0) && (v->v_int64 < (int64_t)g->num_inputs)) {
    return (int32_t)v->v_int64;
  }
  return -1;
}

static int graph_get_input(TVMValue *args, int *codes, int num_args, TVMValue *ret, int *ret_code,
                           void *resource) {
  utvm_graph_t *g = (utvm_graph_t *)resource;
  DLTensor *view = NULL;
  int32_t index = (num_args == 1) ? graph_input_of(g, &args[0], codes[0]) : -1;
  if (index < 0) {
    return graph_fail_text("graph get_input: expected an input index or name of the graph");
  }
  (void)utvm_graph_input(g, (uint32_t)index, &view);
  ret->v_handle = view;
  *ret_code = kTVMNDArrayHandle;
  return 0;
}

static int graph_set_input(TVMValue *args, int *codes, int num_args, TVMValue *ret, int *ret_code,
                           void *resource) {
  utvm_graph_t *g = (utvm_graph_t *)resource;
  int32_t index = (num_args == 2) ? graph_input_of(g, &args[0], codes[0]) : -1;
  (void)ret;
  (void)ret_code;
  if ((index < 0) || !graph_is_tensor(codes[1])) {
    return graph_fail_text("graph set_input: expected (input index or name, tensor)");
  }
  return result_of(g, utvm_graph_set_input(g, (uint32_t)index, (const DLTensor *)args[1].v_handle));
}

static int graph_get_output(TVMValue *args, int *codes, int num_args, TVMValue *ret, int *ret_code,
                            void *resource) {
  utvm_graph_t *g = (utvm_graph_t *)resource;
  DLTensor *view = NULL;
  if ((num_args != 1) || (codes[0] != kTVMArgInt) || (args[0].v_int64 < 0) ||
      (args[0].v_int64 >= (int64_t)g->num_outputs)) {
    return graph_fail_text("graph get_output: expected an output index of the graph");
  }
  (void)utvm_graph_output(g, (uint32_t)args[0].v_int64, &view);
  ret->v_handle = view;
  *ret_code = kTVMNDArrayHandle;
  return 0;
}

static int graph_get_input_index(TVMValue *args, int *codes, int num_args, TVMValue *ret,
                                 int *ret_code, void *resource) {
  const utvm_graph_t *g = (const utvm_graph_t *)resource;
  if ((num_args != 1) || (codes[0] != kTVMStr)) {
    return graph_fail_text("graph get_input_index: expected a name");
  }
  ret->v_int64 = utvm_graph_input_index(g, args[0].v_str);
  *ret_code = kTVMArgInt;
  return 0;
}

static int graph_get_num_inputs(TVMValue *args, int *codes, int num_args, TVMValue *ret,
                                int *ret_code, void *resource) {
  (void)args;
  (void)codes;
  (void)num_args;
  ret->v_int64 = ((const utvm_graph_t *)resource)->num_inputs;
  *ret_code = kTVMArgInt;
  return 0;
}

static int graph_get_num_outputs(TVMValue *args, int *codes, int num_args, TVMValue *ret,
                                 int *ret_code, void *resource) {
  (void)args;
  (void)codes;
  (void)num_args;
  ret->v_int64 = ((const utvm_graph_t *)resource)->num_outputs;
  *ret_code = kTVMArgInt;
  return 0;
}

/* The bytes of a Bytes argument or of a 1-D uint8 tensor (parameter blob); NULL if it is
 * neither. */
static const uint8_t *bytes_argument(const TVMValue *v, int code, size_t *len) {
  if ((code == kTVMBytes) && (v->v_handle != NULL)) {
    const TVMByteArray *bytes = (const TVMByteArray *)v->v_handle;
    *len = bytes->size;
    return (const uint8_t *)bytes->data;
  }
  return byte_tensor(v, code, len);
}

static int graph_load_params(TVMValue *args, int *codes, int num_args, TVMValue *ret,
                             int *ret_code, void *resource) {
  utvm_graph_t *g = (utvm_graph_t *)resource;
  const uint8_t *blob = NULL;
  size_t len = 0u;
  (void)ret;
  (void)ret_code;
  if (num_args == 1) {
    blob = bytes_argument(&args[0], codes[0], &len);
  }
  if (blob == NULL) {
    return graph_fail_text("graph load_params: expected Bytes or a 1-D uint8 tensor");
  }
  return result_of(g, utvm_graph_load_params(g, blob, len));
}

static void graph_release(void *context) {
  DLDevice cpu = {kDLCPU, 0};
  ((utvm_graph_t *)context)->ready_ = false;
  (void)TVMPlatformMemoryFree(context, cpu);
}

static int graph_owns_ndarray(const void *context, const void *nd) {
  const utvm_graph_t *g = (const utvm_graph_t *)context;
  for (uint32_t e = 0u; e < g->num_entries; e++) {
    if ((const void *)&g->entries_[e] == nd) {
      return 1;
    }
  }
  return 0;
}

static const utvm_crt_module_hooks_t kGraphHooks = {graph_release, graph_owns_ndarray,
                                                    "graph executor"};

/* get_input_info() -> Bytes: the JSON of utvm_graph_input_info (TVM returns a Map, which a
 * device cannot build; `json.loads` reads this). The bytes come from the tensor arena and the
 * RPC server frees them after the reply. */
static int graph_get_input_info(TVMValue *args, int *codes, int num_args, TVMValue *ret,
                                int *ret_code, void *resource) {
  const utvm_graph_t *g = (const utvm_graph_t *)resource;
  DLDevice cpu = {kDLCPU, 0};
  void *array = NULL;
  void *text = NULL;
  size_t len = utvm_graph_input_info(g, NULL, 0u);
  (void)args;
  (void)codes;
  if (num_args != 0) {
    return graph_fail_text("graph get_input_info: expected no arguments");
  }
  if ((TVMPlatformMemoryAllocate(sizeof(TVMByteArray), cpu, &array) != kTvmErrorNoError) ||
      (TVMPlatformMemoryAllocate(len + 1u, cpu, &text) != kTvmErrorNoError)) {
    if (array != NULL) {
      (void)TVMPlatformMemoryFree(array, cpu);
    }
    TVMAPISetLastError("graph get_input_info: tensor arena too small for the text, bytes ");
    utvm_crt_error_append_hex((uint64_t)len + 1u + sizeof(TVMByteArray));
    return -1;
  }
  (void)utvm_graph_input_info(g, (char *)text, len + 1u);
  ((TVMByteArray *)array)->data = (const char *)text;
  ((TVMByteArray *)array)->size = len;
  ret->v_handle = array;
  *ret_code = kTVMBytes;
  return 0;
}

/* share_params(Module other, Bytes | uint8 tensor params): copies the named parameters from
 * another graph executor (utvm_graph_share_params). */
static int graph_share_params(TVMValue *args, int *codes, int num_args, TVMValue *ret,
                              int *ret_code, void *resource) {
  utvm_graph_t *g = (utvm_graph_t *)resource;
  const utvm_graph_t *other = NULL;
  const uint8_t *blob = NULL;
  size_t len = 0u;
  (void)ret;
  (void)ret_code;
  if ((num_args == 2) && (codes[0] == kTVMModuleHandle)) {
    other = (const utvm_graph_t *)utvm_crt_module_context(args[0].v_handle, &kGraphHooks);
    blob = bytes_argument(&args[1], codes[1], &len);
  }
  if ((other == NULL) || (blob == NULL)) {
    return graph_fail_text(
        "graph share_params: expected (graph executor Module, Bytes or a 1-D uint8 tensor)");
  }
  return result_of(g, utvm_graph_share_params(g, other, blob, len));
}

static int graph_run(TVMValue *args, int *codes, int num_args, TVMValue *ret, int *ret_code,
                     void *resource) {
  utvm_graph_t *g = (utvm_graph_t *)resource;
  (void)args;
  (void)codes;
  (void)num_args;
  (void)ret;
  (void)ret_code;
  return result_of(g, utvm_graph_run(g));
}

/* The module's functions: every one TVM's GraphModule constructor looks up without a guard.
 * set_input_zero_copy and set_output_zero_copy are absent (ModuleGetFunction answers Null,
 * which the constructor accepts). */
static const TVMBackendPackedCFunc kGraphFuncs[10] = {
    graph_get_input,      graph_set_input,       graph_get_output,     graph_get_input_index,
    graph_get_num_inputs, graph_get_num_outputs, graph_get_input_info, graph_load_params,
    graph_share_params,   graph_run};

static const TVMFuncRegistry kGraphRegistry = {
    "\012\000" "get_input\000" "set_input\000" "get_output\000" "get_input_index\000"
    "get_num_inputs\000" "get_num_outputs\000" "get_input_info\000" "load_params\000"
    "share_params\000" "run\000",
    kGraphFuncs};

static const TVMModule kGraphModule = {&kGraphRegistry};


/* An executor initialised in size bytes of the tensor arena after it (one block), or NULL with
 * the last error set; *needed receives the exact size when init said the memory was too
 * small (else it is left alone). */
static utvm_graph_t *graph_alloc_init(const char *json, size_t len, TVMModuleHandle module,
                                      size_t size, size_t *needed) {
  DLDevice cpu = {kDLCPU, 0};
  void *block = NULL;
  if ((size > (SIZE_MAX - sizeof(utvm_graph_t))) ||
      (TVMPlatformMemoryAllocate(sizeof(utvm_graph_t) + size, cpu, &block) != kTvmErrorNoError)) {
    TVMAPISetLastError("tvm.graph_executor.create: tensor arena too small for the graph, bytes ");
    utvm_crt_error_append_hex((uint64_t)sizeof(utvm_graph_t) + size);
    return NULL;
  }
  utvm_graph_t *g = (utvm_graph_t *)block;
  utvm_err_t err =
      utvm_graph_init(g, json, len, module, &((uint8_t *)block)[sizeof(utvm_graph_t)], size);
  if (err != UTVM_OK) {
    if (err == UTVM_ERR_GRAPH_MEMORY) {
      *needed = g->memory_size;
    }
    (void)graph_fail_text(g->error);
    (void)TVMPlatformMemoryFree(block, cpu);
    g = NULL;
  }
  return g;
}

/* create(Str json | DLTensor uint8 json, Module, Int device_type, Int device_id) -> Module. */
static int graph_create(TVMValue *args, int *codes, int num_args, TVMValue *ret, int *ret_code,
                        void *resource) {
  DLDevice cpu = {kDLCPU, 0};
  const char *json = NULL;
  size_t len = 0u;
  utvm_graph_t probe;
  TVMModuleHandle handle = NULL;
  (void)resource;
  if ((num_args != 4) || (codes[1] != kTVMModuleHandle) || (codes[2] != kTVMArgInt) ||
      (codes[3] != kTVMArgInt)) {
    return graph_fail_text("tvm.graph_executor.create: expected (Str json, Module, Int, Int)");
  }
  if ((args[2].v_int64 != (int64_t)kDLCPU) || (args[3].v_int64 != 0)) {
    return graph_fail_text("tvm.graph_executor.create: device must be cpu(0)");
  }
  if (codes[0] == kTVMStr) {
    json = args[0].v_str;
    while ((len <= UTVM_GRAPH_MAX_JSON_SIZE) && (json[len] != '\0')) {
      len++;
    }
  } else {
    json = (const char *)byte_tensor(&args[0], codes[0], &len);
    if (json == NULL) {
      return graph_fail_text("tvm.graph_executor.create: JSON must be a Str or a 1-D uint8 tensor");
    }
  }
  if (utvm_graph_memory_size(&probe, json, len) != UTVM_OK) {
    return graph_fail_text(probe.error);
  }
  /* Plan in the least memory first; when the plan needs more, init again in exactly that (the
   * peak is the larger of the two, not the upper bound of memory_size). */
  size_t needed = probe.plan_memory_size;
  utvm_graph_t *g = graph_alloc_init(json, len, args[1].v_handle, probe.plan_memory_size,
                                     &needed);
  if ((g == NULL) && (needed > probe.plan_memory_size)) {
    g = graph_alloc_init(json, len, args[1].v_handle, needed, &needed);
  }
  if (g == NULL) {
    return -1;
  }
  if (utvm_crt_module_create(&kGraphModule, &kGraphHooks, g, &handle) != UTVM_OK) {
    (void)TVMPlatformMemoryFree(g, cpu);
    return -1;
  }
  ret->v_handle = handle;
  *ret_code = kTVMModuleHandle;
  return 0;
}

utvm_err_t utvm_graph_register_global(void) {
  return utvm_crt_register_global(UTVM_GRAPH_CREATE_NAME, graph_create, NULL);
}

/* Model Library Format archives of a compiled model (utvm/host_mlf.h). */
#define _DEFAULT_SOURCE

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "text.h"
#include "utvm/graph.h"
#include "utvm/host_mlf.h"

/* The public bound is the one host_text_t enforces. */
typedef char text_bound_check[(UTVM_MLF_MAX_BYTES == HOST_TEXT_MAX_BYTES) ? 1 : -1];

/* Most operands of one operator in generated code (the graph executor's: LSTM takes 17). */
#define MLF_MAX_OP_ARGS UTVM_GRAPH_MAX_OP_ARGS
/* Alignment of constants and of every activation in the AOT pool. */
#define MLF_ALIGN 16u
#define TAR_BLOCK 512u

/* Where an entry's data lives in generated AOT code. */
enum { WHERE_POOL = 0, WHERE_CONSTANT = 1, WHERE_INPUT = 2, WHERE_OUTPUT = 3 };

typedef struct {
  const utvm_compiled_graph_t *g;
  const char *name;
  utvm_mlf_executor_t executor;
  uint8_t *where;       /* [n_entries] */
  uint32_t *index;      /* [n_entries] param, input or output index */
  uint64_t *offset;     /* [n_storage] pool offset of each activation storage id */
  uint64_t pool_bytes;
  char *err;
  size_t err_cap;
} mlf_t;

static utvm_err_t mlf_fail(mlf_t *m, utvm_err_t code, const char *text, const char *detail) {
  (void)snprintf(m->err, m->err_cap, "%s%s", text, (detail != NULL) ? detail : "");
  return code;
}

/* "utvm_k_conv2d_s8" -> "conv2d_s8". */
static const char *kind_of(const char *func_name) {
  return (strncmp(func_name, "utvm_k_", 7u) == 0) ? &func_name[7] : func_name;
}

static bool name_ok(const char *name) {
  size_t n = strlen(name);
  if ((n == 0u) || (n > UTVM_MLF_MAX_NAME)) {
    return false;
  }
  for (size_t i = 0u; i < n; i++) {
    char c = name[i];
    if (!(((c >= 'a') && (c <= 'z')) || ((c >= 'A') && (c <= 'Z')) ||
          ((c >= '0') && (c <= '9') && (i > 0u)) || (c == '_'))) {
      return false;
    }
  }
  return true;
}

/* Checks g's references and classifies every entry; lays the activations out in one pool. */
static utvm_err_t classify(mlf_t *m) {
  const utvm_compiled_graph_t *g = m->g;
  m->where = (uint8_t *)calloc((size_t)g->n_entries + 1u, 1u);
  m->index = (uint32_t *)calloc((size_t)g->n_entries + 1u, sizeof(uint32_t));
  m->offset = (uint64_t *)calloc((size_t)g->n_storage + 1u, sizeof(uint64_t));
  if ((m->where == NULL) || (m->index == NULL) || (m->offset == NULL)) {
    return mlf_fail(m, UTVM_ERR_PLATFORM_NO_MEMORY, "out of host memory", NULL);
  }
  for (uint32_t e = 0u; e < g->n_entries; e++) {
    if ((g->entries[e].storage_id >= g->n_storage) || (g->entries[e].ndim > UTVM_COMPILED_MAX_NDIM)) {
      return mlf_fail(m, UTVM_ERR_FUNC_CALL_INVALID_ARG, "inconsistent graph: an entry", NULL);
    }
  }
  struct {
    uint32_t n;
    const uint32_t *ids;
    uint8_t where;
  } roles[2] = {{g->n_inputs, g->input_entries, WHERE_INPUT},
                {g->n_outputs, g->output_entries, WHERE_OUTPUT}};
  for (uint32_t k = 0u; k < g->n_params; k++) {
    if (g->params[k].entry >= g->n_entries) {
      return mlf_fail(m, UTVM_ERR_FUNC_CALL_INVALID_ARG, "inconsistent graph: a parameter", NULL);
    }
    m->where[g->params[k].entry] = WHERE_CONSTANT;
    m->index[g->params[k].entry] = k;
  }
  for (size_t r = 0u; r < 2u; r++) {
    for (uint32_t i = 0u; i < roles[r].n; i++) {
      uint32_t e = roles[r].ids[i];
      if ((e >= g->n_entries) || (m->where[e] != WHERE_POOL)) {
        return mlf_fail(m, UTVM_ERR_FUNC_CALL_INVALID_ARG,
                        "inconsistent graph: an input or output entry", NULL);
      }
      m->where[e] = roles[r].where;
      m->index[e] = i;
    }
  }
  bool *placed = (bool *)calloc((size_t)g->n_storage + 1u, sizeof(bool));
  if (placed == NULL) {
    return mlf_fail(m, UTVM_ERR_PLATFORM_NO_MEMORY, "out of host memory", NULL);
  }
  for (uint32_t e = 0u; e < g->n_entries; e++) {
    uint32_t s = g->entries[e].storage_id;
    if ((m->where[e] == WHERE_POOL) && !placed[s]) {
      placed[s] = true;
      m->offset[s] = m->pool_bytes;
      m->pool_bytes += (g->storage_bytes[s] + (MLF_ALIGN - 1u)) & ~(uint64_t)(MLF_ALIGN - 1u);
    }
  }
  free(placed);
  for (uint32_t k = 0u; k < g->n_ops; k++) {
    const utvm_compiled_op_t *op = &g->ops[k];
    if ((op->n_inputs + op->n_outputs > MLF_MAX_OP_ARGS) || (op->func_name == NULL)) {
      return mlf_fail(m, UTVM_ERR_FUNC_CALL_INVALID_ARG, "an operator has too many operands",
                      NULL);
    }
    for (uint32_t a = 0u; a < op->n_inputs + op->n_outputs; a++) {
      if (op->entries[a] >= g->n_entries) {
        return mlf_fail(m, UTVM_ERR_FUNC_CALL_INVALID_ARG, "inconsistent graph: an operand",
                        NULL);
      }
    }
  }
  return UTVM_OK;
}

/* extern declarations of the distinct kernel functions the operators call. */
static void emit_kernel_declarations(const mlf_t *m, host_text_t *s) {
  const utvm_compiled_graph_t *g = m->g;
  host_text_printf(s, "/* The utvm kernel functions (utvm_kfuncs) the operators call. */\n");
  for (uint32_t k = 0u; k < g->n_ops; k++) {
    bool seen = false;
    for (uint32_t j = 0u; (j < k) && !seen; j++) {
      seen = strcmp(g->ops[j].func_name, g->ops[k].func_name) == 0;
    }
    if (!seen) {
      host_text_printf(s, "extern int32_t %s(TVMValue *args, int *type_codes, int num_args, "
                "TVMValue *ret, int *ret_code, void *resource_handle);\n", g->ops[k].func_name);
    }
  }
  host_text_printf(s, "\n");
}

static void emit_header(const mlf_t *m, host_text_t *s, const char *what) {
  host_text_printf(s, "/* Generated by `utvm compile --mlf`: model \"%s\", %s. Do not edit. */\n"
            "#include <stdint.h>\n\n#include \"tvm/runtime/c_backend_api.h\"\n"
            "#include \"tvm/runtime/c_runtime_api.h\"\n", m->name, what);
}

/* Graph executor: one function per operator, forwarding to its kernel function. */
static void emit_graph_lib0(const mlf_t *m, host_text_t *s) {
  const utvm_compiled_graph_t *g = m->g;
  emit_header(m, s, "operators for the graph executor");
  host_text_printf(s, "\n");
  emit_kernel_declarations(m, s);
  for (uint32_t k = 0u; k < g->n_ops; k++) {
    host_text_printf(s, "int32_t tvmgen_%s_fused_%u_%s(TVMValue *args, int *type_codes, int num_args, "
              "TVMValue *ret, int *ret_code, void *resource_handle);\n", m->name, k,
              kind_of(g->ops[k].func_name));
    host_text_printf(s, "int32_t tvmgen_%s_fused_%u_%s(TVMValue *args, int *type_codes, int num_args, "
              "TVMValue *ret, int *ret_code, void *resource_handle) {\n"
              "  return %s(args, type_codes, num_args, ret, ret_code, resource_handle);\n}\n\n",
              m->name, k, kind_of(g->ops[k].func_name), g->ops[k].func_name);
  }
}

static void emit_bytes(host_text_t *s, const uint8_t *data, uint64_t n) {
  for (uint64_t i = 0u; i < n; i++) {
    host_text_printf(s, "%s%u,", ((i % 24u) == 0u) ? "\n  " : "", (unsigned)data[i]);
  }
}

static void emit_tensor_infos(const mlf_t *m, host_text_t *s, const char *what, uint32_t n,
                              const uint32_t *ids) {
  const utvm_compiled_graph_t *g = m->g;
  for (uint32_t i = 0u; i < n; i++) {
    const utvm_compiled_entry_t *e = &g->entries[ids[i]];
    host_text_printf(s, "static const int64_t %s%u_shape[%u] = {", what, i, (e->ndim > 0u) ? e->ndim : 1u);
    for (uint32_t d = 0u; d < e->ndim; d++) {
      host_text_printf(s, "%s%lld", (d > 0u) ? ", " : "", (long long)e->shape[d]);
    }
    host_text_printf(s, "%s};\n", (e->ndim == 0u) ? "1" : "");
  }
  host_text_printf(s, "static const struct TVMTensorInfo model_%ss[%u] = {\n", what, (n > 0u) ? n : 1u);
  for (uint32_t i = 0u; i < n; i++) {
    const utvm_compiled_entry_t *e = &g->entries[ids[i]];
    host_text_printf(s, "    {\"%s%u\", %s%u_shape, %u, {%u, %u, %u}},\n", what, i, what, i, e->ndim,
              (unsigned)e->dtype.code, (unsigned)e->dtype.bits, (unsigned)e->dtype.lanes);
  }
  host_text_printf(s, "};\n");
}

/* AOT: constants, entry and operator tables, <mod>_run and the metadata. */
static void emit_aot_lib0(const mlf_t *m, host_text_t *s) {
  const utvm_compiled_graph_t *g = m->g;
  const char *n = m->name;
  emit_header(m, s, "AOT executor");
  host_text_printf(s, "#include \"tvm/runtime/metadata_types.h\"\n\n");
  emit_kernel_declarations(m, s);
  host_text_printf(s, "/* Constants: weights, biases and each operator's parameters (%llu bytes);\n"
            " * a variable tensor's (SVDF, LSTM state) is writable: its operator updates it in place,\n"
            " * from one run to the next. */\n",
            (unsigned long long)g->param_bytes);
  for (uint32_t k = 0u; k < g->n_params; k++) {
    host_text_printf(s, "static %suint8_t constant_%u[%llu] __attribute__((aligned(%u))) = {",
              g->params[k].state ? "" : "const ", k,
              (unsigned long long)((g->params[k].bytes > 0u) ? g->params[k].bytes : 1u),
              MLF_ALIGN);
    emit_bytes(s, g->params[k].data, g->params[k].bytes);
    host_text_printf(s, "%s};\n", (g->params[k].bytes == 0u) ? "0" : "\n");
  }
  host_text_printf(s, "\n/* Every tensor: where it lives (0 pool at offset, 1 constant, 2 input, 3 "
            "output), shape and type. */\n");
  for (uint32_t e = 0u; e < g->n_entries; e++) {
    const utvm_compiled_entry_t *en = &g->entries[e];
    host_text_printf(s, "static const int64_t shape_%u[%u] = {", e, (en->ndim > 0u) ? en->ndim : 1u);
    for (uint32_t d = 0u; d < en->ndim; d++) {
      host_text_printf(s, "%s%lld", (d > 0u) ? ", " : "", (long long)en->shape[d]);
    }
    host_text_printf(s, "%s};\n", (en->ndim == 0u) ? "1" : "");
  }
  host_text_printf(s, "\ntypedef struct {\n  uint8_t where;\n  uint32_t index;\n  uint32_t offset;\n"
            "  const uint8_t *constant;\n  int32_t ndim;\n  const int64_t *shape;\n"
            "  DLDataType dtype;\n} model_entry_t;\n\n");
  host_text_printf(s, "static const model_entry_t model_entries[%u] = {\n",
            (g->n_entries > 0u) ? g->n_entries : 1u);
  for (uint32_t e = 0u; e < g->n_entries; e++) {
    const utvm_compiled_entry_t *en = &g->entries[e];
    char constant[32] = "0";
    if (m->where[e] == WHERE_CONSTANT) {
      (void)snprintf(constant, sizeof(constant), "constant_%u", m->index[e]);
    }
    host_text_printf(s, "    {%u, %u, %llu, %s, %u, shape_%u, {%u, %u, %u}},\n", (unsigned)m->where[e],
              m->index[e],
              (unsigned long long)((m->where[e] == WHERE_POOL) ? m->offset[en->storage_id] : 0u),
              constant, en->ndim, e, (unsigned)en->dtype.code, (unsigned)en->dtype.bits,
              (unsigned)en->dtype.lanes);
  }
  host_text_printf(s, "};\n\n");
  for (uint32_t k = 0u; k < g->n_ops; k++) {
    const utvm_compiled_op_t *op = &g->ops[k];
    host_text_printf(s, "static const uint32_t operands_%u[%u] = {", k, op->n_inputs + op->n_outputs);
    for (uint32_t a = 0u; a < op->n_inputs + op->n_outputs; a++) {
      host_text_printf(s, "%s%u", (a > 0u) ? ", " : "", op->entries[a]);
    }
    host_text_printf(s, "};\n");
  }
  host_text_printf(s, "\ntypedef struct {\n  TVMBackendPackedCFunc func;\n  uint32_t n_operands;\n"
            "  const uint32_t *operands;\n} model_operator_t;\n\n");
  host_text_printf(s, "static const model_operator_t model_operators[%u] = {\n",
            (g->n_ops > 0u) ? g->n_ops : 1u);
  for (uint32_t k = 0u; k < g->n_ops; k++) {
    const utvm_compiled_op_t *op = &g->ops[k];
    host_text_printf(s, "    {(TVMBackendPackedCFunc)%s, %u, operands_%u},\n", op->func_name,
              op->n_inputs + op->n_outputs, k);
  }
  host_text_printf(s, "};\n\n");
  host_text_printf(s,
            "#define NUM_INPUTS %uu\n#define NUM_OUTPUTS %uu\n#define NUM_OPERATORS %uu\n"
            "#define POOL_BYTES %lluu\n#define MAX_OPERANDS %uu\n\n",
            g->n_inputs, g->n_outputs, g->n_ops, (unsigned long long)m->pool_bytes,
            MLF_MAX_OP_ARGS);
  host_text_printf(s,
            "/* Runs the model: args are the inputs then the outputs (DLTensor or NDArray).\n"
            " * The activations live in one workspace block of POOL_BYTES bytes. */\n"
            "int32_t tvmgen_%s_run(TVMValue *args, int *type_codes, int num_args, TVMValue *ret,\n"
            "                      int *ret_code, void *resource_handle);\n"
            "int32_t tvmgen_%s_run(TVMValue *args, int *type_codes, int num_args, TVMValue *ret,\n"
            "                      int *ret_code, void *resource_handle) {\n"
            "  uint8_t *io[NUM_INPUTS + NUM_OUTPUTS];\n"
            "  uint8_t *pool = 0;\n"
            "  int32_t rc = 0;\n"
            "  uint32_t k;\n"
            "  (void)ret;\n  (void)ret_code;\n  (void)resource_handle;\n"
            "  if (num_args != (int)(NUM_INPUTS + NUM_OUTPUTS)) {\n"
            "    TVMAPISetLastError(\"tvmgen_%s_run: wrong number of tensors\");\n"
            "    return -1;\n  }\n"
            "  for (k = 0u; k < NUM_INPUTS + NUM_OUTPUTS; k++) {\n"
            "    const DLTensor *t = (const DLTensor *)args[k].v_handle;\n"
            "    if (((type_codes[k] != kTVMDLTensorHandle) && (type_codes[k] != "
            "kTVMNDArrayHandle)) ||\n"
            "        (t == 0) || (t->data == 0)) {\n"
            "      TVMAPISetLastError(\"tvmgen_%s_run: an argument is not a tensor\");\n"
            "      return -1;\n    }\n"
            "    io[k] = (uint8_t *)t->data + t->byte_offset;\n  }\n"
            "  if (POOL_BYTES > 0u) {\n"
            "    pool = (uint8_t *)TVMBackendAllocWorkspace(kDLCPU, 0, POOL_BYTES, 0, 8);\n"
            "    if (pool == 0) {\n      return -1;\n    }\n  }\n"
            "  for (k = 0u; (k < NUM_OPERATORS) && (rc == 0); k++) {\n"
            "    const model_operator_t *op = &model_operators[k];\n"
            "    DLTensor tensors[MAX_OPERANDS];\n"
            "    TVMValue values[MAX_OPERANDS];\n"
            "    int codes[MAX_OPERANDS];\n"
            "    TVMValue result;\n"
            "    int result_code = kTVMNullptr;\n"
            "    uint32_t a;\n"
            "    for (a = 0u; (a < op->n_operands) && (a < MAX_OPERANDS); a++) {\n"
            "      const model_entry_t *e = &model_entries[op->operands[a]];\n"
            "      uint8_t *data = pool + e->offset;\n"
            "      if (e->where == 1u) {\n"
            "        data = (uint8_t *)(uintptr_t)e->constant;\n"
            "      } else if (e->where == 2u) {\n"
            "        data = io[e->index];\n"
            "      } else if (e->where == 3u) {\n"
            "        data = io[NUM_INPUTS + e->index];\n"
            "      }\n"
            "      tensors[a].data = data;\n"
            "      tensors[a].device.device_type = kDLCPU;\n"
            "      tensors[a].device.device_id = 0;\n"
            "      tensors[a].ndim = e->ndim;\n"
            "      tensors[a].dtype = e->dtype;\n"
            "      tensors[a].shape = (int64_t *)(uintptr_t)e->shape;\n"
            "      tensors[a].strides = 0;\n"
            "      tensors[a].byte_offset = 0u;\n"
            "      values[a].v_handle = &tensors[a];\n"
            "      codes[a] = kTVMDLTensorHandle;\n"
            "    }\n"
            "    rc = op->func(values, codes, (int)op->n_operands, &result, &result_code, 0);\n"
            "  }\n"
            "  if (pool != 0) {\n"
            "    (void)TVMBackendFreeWorkspace(kDLCPU, 0, pool);\n  }\n"
            "  return rc;\n}\n\n",
            n, n, n, n);
  emit_tensor_infos(m, s, "input", g->n_inputs, g->input_entries);
  emit_tensor_infos(m, s, "output", g->n_outputs, g->output_entries);
  host_text_printf(s,
            "static const struct TVMMetadata model_metadata = {\n"
            "    TVM_METADATA_VERSION, model_inputs, NUM_INPUTS, model_outputs, NUM_OUTPUTS,\n"
            "    0, 0, 0, 0, \"tvmgen_%s\"};\n\n"
            "/* Returns the model's struct TVMMetadata (type code 3, opaque handle). */\n"
            "int32_t tvmgen_%s_get_c_metadata(TVMValue *args, int *type_codes, int num_args,\n"
            "                                 TVMValue *ret, int *ret_code, void "
            "*resource_handle);\n"
            "int32_t tvmgen_%s_get_c_metadata(TVMValue *args, int *type_codes, int num_args,\n"
            "                                 TVMValue *ret, int *ret_code, void "
            "*resource_handle) {\n"
            "  (void)args;\n  (void)type_codes;\n  (void)num_args;\n  (void)resource_handle;\n"
            "  ret[0].v_handle = (void *)(uintptr_t)&model_metadata;\n"
            "  ret_code[0] = kTVMOpaqueHandle;\n  return 0;\n}\n",
            n, n, n);
}

/* The system library: a TVMFuncRegistry of the generated functions. */
static void emit_lib1(const mlf_t *m, host_text_t *s) {
  const utvm_compiled_graph_t *g = m->g;
  uint32_t count = (m->executor == UTVM_MLF_AOT) ? 2u : g->n_ops;
  emit_header(m, s, "system library");
  host_text_printf(s, "#include \"tvm/runtime/crt/module.h\"\n\n");
  host_text_printf(s, "#define F(name) int32_t name(TVMValue *args, int *type_codes, int num_args, "
            "TVMValue *ret, int *ret_code, void *resource_handle)\n");
  if (m->executor == UTVM_MLF_AOT) {
    host_text_printf(s, "F(tvmgen_%s_get_c_metadata);\nF(tvmgen_%s_run);\n", m->name, m->name);
  } else {
    for (uint32_t k = 0u; k < g->n_ops; k++) {
      host_text_printf(s, "F(tvmgen_%s_fused_%u_%s);\n", m->name, k, kind_of(g->ops[k].func_name));
    }
  }
  host_text_printf(s, "\nstatic const TVMBackendPackedCFunc functions[%u] = {\n", count);
  if (m->executor == UTVM_MLF_AOT) {
    host_text_printf(s, "    (TVMBackendPackedCFunc)tvmgen_%s_get_c_metadata,\n"
              "    (TVMBackendPackedCFunc)tvmgen_%s_run,\n", m->name, m->name);
  } else {
    for (uint32_t k = 0u; k < g->n_ops; k++) {
      host_text_printf(s, "    (TVMBackendPackedCFunc)tvmgen_%s_fused_%u_%s,\n", m->name, k,
                kind_of(g->ops[k].func_name));
    }
  }
  host_text_printf(s, "};\n\n/* u16 count, the names, an empty name. */\n"
            "static const TVMFuncRegistry registry = {\n    \"\\%03o\\%03o\"\n",
            count & 0xFFu, (count >> 8) & 0xFFu);
  if (m->executor == UTVM_MLF_AOT) {
    host_text_printf(s, "    \"tvmgen_%s_get_c_metadata\\000\"\n    \"tvmgen_%s_run\\000\"\n", m->name,
              m->name);
  } else {
    for (uint32_t k = 0u; k < g->n_ops; k++) {
      host_text_printf(s, "    \"tvmgen_%s_fused_%u_%s\\000\"\n", m->name, k,
                kind_of(g->ops[k].func_name));
    }
  }
  host_text_printf(s, "    ,\n    functions};\n\nstatic const TVMModule system_lib = {&registry};\n\n"
            "const TVMModule *TVMSystemLibEntryPoint(void) { return &system_lib; }\n");
}

/* The graph JSON with the k-th operator's func_name replaced by its generated function. */
static utvm_err_t emit_graph_json(mlf_t *m, host_text_t *s) {
  const utvm_compiled_graph_t *g = m->g;
  const char *p = g->json;
  const char *end = g->json + g->json_len;
  uint32_t k = 0u;
  while (p < end) {
    const char *hit = strstr(p, "\"func_name\"");
    if ((hit == NULL) || (hit >= end)) {
      break;
    }
    const char *q = hit + 11;
    while ((q < end) && ((*q == ' ') || (*q == ':'))) {
      q++;
    }
    const char *close = (q < end) && (*q == '"') ? memchr(q + 1, '"', (size_t)(end - q - 1)) : NULL;
    if ((close == NULL) || (k >= g->n_ops)) {
      return mlf_fail(m, UTVM_ERR_FUNC_CALL_INVALID_ARG, "graph JSON: unexpected func_name",
                      NULL);
    }
    host_text_add(s, p, (size_t)(q + 1 - p));
    host_text_printf(s, "tvmgen_%s_fused_%u_%s", m->name, k, kind_of(g->ops[k].func_name));
    p = close;
    k++;
  }
  host_text_add(s, p, (size_t)(end - p));
  if (k != g->n_ops) {
    return mlf_fail(m, UTVM_ERR_FUNC_CALL_INVALID_ARG,
                    "graph JSON: func_name count differs from the operators", NULL);
  }
  return UTVM_OK;
}

static void emit_io_json(const mlf_t *m, host_text_t *s, uint32_t n, const uint32_t *ids,
                         const char *prefix) {
  for (uint32_t i = 0u; i < n; i++) {
    const utvm_compiled_entry_t *e = &m->g->entries[ids[i]];
    const char *type = (e->dtype.code == 2u) ? "float" : (e->dtype.code == 1u) ? "uint" : "int";
    host_text_printf(s, "%s\"%s%u\": {\"size\": %llu, \"dtype\": \"%s%u\"}", (i > 0u) ? ", " : "",
              prefix, i, (unsigned long long)e->bytes, type, (unsigned)e->dtype.bits);
  }
}

static void emit_metadata_json(const mlf_t *m, host_text_t *s) {
  const utvm_compiled_graph_t *g = m->g;
  char when[32];
  time_t now = time(NULL);
  const char *epoch = getenv("SOURCE_DATE_EPOCH");
  if (epoch != NULL) {
    now = (time_t)strtoll(epoch, NULL, 10);
  }
  struct tm tm;
  (void)gmtime_r(&now, &tm);
  (void)strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%SZ", &tm);
  bool aot = m->executor == UTVM_MLF_AOT;
  uint64_t io = 0u;
  for (uint32_t i = 0u; i < g->n_inputs; i++) {
    io += g->entries[g->input_entries[i]].bytes;
  }
  for (uint32_t i = 0u; i < g->n_outputs; i++) {
    io += g->entries[g->output_entries[i]].bytes;
  }
  host_text_printf(s, "{\n  \"version\": 7,\n  \"modules\": {\n    \"%s\": {\n"
            "      \"model_name\": \"%s\",\n      \"export_datetime\": \"%s\",\n"
            "      \"target\": [\"c -keys=cpu -model=utvm\"],\n"
            "      \"executors\": [\"%s\"],\n      \"style\": \"full-model\",\n"
            "      \"memory\": {\n",
            m->name, m->name, when, aot ? "aot" : "graph");
  if (!aot) {
    host_text_printf(s, "        \"sids\": [");
    for (uint32_t sid = 0u; sid < g->n_storage; sid++) {
      host_text_printf(s, "%s\n          {\"storage_id\": %u, \"size_bytes\": %llu", (sid > 0u) ? "," : "",
                sid, (unsigned long long)g->storage_bytes[sid]);
      for (uint32_t i = 0u; i < g->n_inputs; i++) {
        if (g->entries[g->input_entries[i]].storage_id == sid) {
          host_text_printf(s, ", \"input_binding\": \"%s\"", g->input_names[i]);
        }
      }
      host_text_printf(s, "}");
    }
    host_text_printf(s, "\n        ],\n");
  }
  host_text_printf(s, "        \"functions\": {\n          \"operator_functions\": [");
  for (uint32_t k = 0u; k < g->n_ops; k++) {
    host_text_printf(s, "%s\n            {\"function_name\": \"tvmgen_%s_fused_%u_%s\", \"workspace\": "
              "[{\"device\": 1, \"workspace_size_bytes\": 0}]}", (k > 0u) ? "," : "", m->name, k,
              kind_of(g->ops[k].func_name));
  }
  host_text_printf(s, "\n          ],\n          \"main\": [{\"device\": 1, \"workspace_size_bytes\": "
            "%llu, \"constants_size_bytes\": %llu, \"io_size_bytes\": %llu, \"inputs\": {",
            (unsigned long long)(aot ? m->pool_bytes : g->activation_bytes),
            (unsigned long long)g->param_bytes, (unsigned long long)io);
  emit_io_json(m, s, g->n_inputs, g->input_entries, "input");
  host_text_printf(s, "}, \"outputs\": {");
  emit_io_json(m, s, g->n_outputs, g->output_entries, "output");
  host_text_printf(s, "}}]\n        }\n      }\n    }\n  }\n}\n");
}

/* Appends one regular file to a ustar archive. */
static void tar_file(host_text_t *tar, const char *name, const void *data, size_t n, time_t mtime) {
  uint8_t h[TAR_BLOCK];
  (void)memset(h, 0, sizeof(h));
  size_t name_len = strlen(name);
  (void)memcpy(h, name, (name_len < 99u) ? name_len : 99u);
  (void)snprintf((char *)&h[100], 8u, "%07o", 0644u);
  (void)snprintf((char *)&h[108], 8u, "%07o", 0u);
  (void)snprintf((char *)&h[116], 8u, "%07o", 0u);
  (void)snprintf((char *)&h[124], 12u, "%011llo", (unsigned long long)n);
  (void)snprintf((char *)&h[136], 12u, "%011llo", (unsigned long long)mtime);
  (void)memset(&h[148], ' ', 8u);
  h[156] = '0';
  (void)memcpy(&h[257], "ustar", 6u);
  (void)memcpy(&h[263], "00", 2u);
  (void)memcpy(&h[265], "root", 4u);
  (void)memcpy(&h[297], "root", 4u);
  unsigned sum = 0u;
  for (size_t i = 0u; i < sizeof(h); i++) {
    sum += h[i];
  }
  (void)snprintf((char *)&h[148], 8u, "%06o", sum);
  h[155] = ' ';
  host_text_add(tar, h, sizeof(h));
  host_text_add(tar, data, n);
  static const uint8_t zeros[TAR_BLOCK] = {0};
  host_text_add(tar, zeros, (TAR_BLOCK - (n % TAR_BLOCK)) % TAR_BLOCK);
}

utvm_err_t utvm_host_write_mlf(const utvm_compiled_graph_t *g, utvm_mlf_executor_t executor,
                               const char *name, const char *path, char *err, size_t err_cap) {
  mlf_t m;
  (void)memset(&m, 0, sizeof(m));
  m.g = g;
  m.name = name;
  m.executor = executor;
  m.err = err;
  m.err_cap = err_cap;
  if ((g == NULL) || (path == NULL) || (name == NULL) || !name_ok(name) ||
      ((executor != UTVM_MLF_GRAPH) && (executor != UTVM_MLF_AOT))) {
    return mlf_fail(&m, UTVM_ERR_FUNC_CALL_INVALID_ARG,
                    "a module name is 1 to 32 letters, digits (not first) or '_'", NULL);
  }
  utvm_err_t rc = classify(&m);
  host_text_t parts[5];
  (void)memset(parts, 0, sizeof(parts));
  char names[5][160];
  size_t n_parts = 0u;
  if (rc == UTVM_OK) {
    (void)snprintf(names[0], sizeof(names[0]), "./metadata.json");
    emit_metadata_json(&m, &parts[0]);
    (void)snprintf(names[1], sizeof(names[1]), "./codegen/host/src/%s_lib0.c", name);
    if (executor == UTVM_MLF_AOT) {
      emit_aot_lib0(&m, &parts[1]);
    } else {
      emit_graph_lib0(&m, &parts[1]);
    }
    (void)snprintf(names[2], sizeof(names[2]), "./codegen/host/src/%s_lib1.c", name);
    emit_lib1(&m, &parts[2]);
    n_parts = 3u;
    if (executor == UTVM_MLF_GRAPH) {
      (void)snprintf(names[3], sizeof(names[3]), "./executor-config/graph/%s.graph", name);
      rc = emit_graph_json(&m, &parts[3]);
      (void)snprintf(names[4], sizeof(names[4]), "./parameters/%s.params", name);
      host_text_add(&parts[4], g->params_blob, g->params_blob_len);
      n_parts = 5u;
    }
  }
  host_text_t tar;
  (void)memset(&tar, 0, sizeof(tar));
  time_t mtime = time(NULL);
  for (size_t i = 0u; (rc == UTVM_OK) && (i < n_parts); i++) {
    if (parts[i].failed) {
      rc = mlf_fail(&m, UTVM_ERR_PLATFORM_NO_MEMORY, "out of host memory or archive too large",
                    NULL);
    } else {
      tar_file(&tar, names[i], parts[i].bytes.data, parts[i].bytes.len, mtime);
    }
  }
  if (rc == UTVM_OK) {
    static const uint8_t end[2u * TAR_BLOCK] = {0};
    host_text_add(&tar, end, sizeof(end));
    if (tar.failed) {
      rc = mlf_fail(&m, UTVM_ERR_PLATFORM_NO_MEMORY, "out of host memory or archive too large",
                    NULL);
    }
  }
  if (rc == UTVM_OK) {
    FILE *f = fopen(path, "wb");
    bool ok = (f != NULL) && (fwrite(tar.bytes.data, 1u, tar.bytes.len, f) == tar.bytes.len);
    ok = (f != NULL) && (fclose(f) == 0) && ok;
    if (!ok) {
      rc = mlf_fail(&m, UTVM_ERR_WRITE_FAILED, "cannot write ", path);
    }
  }
  for (size_t i = 0u; i < 5u; i++) {
    host_text_free(&parts[i]);
  }
  host_text_free(&tar);
  free(m.where);
  free(m.index);
  free(m.offset);
  return rc;
}

/* ---- Reading an archive's graph ---------------------------------------------------------- */

/* A tar header's octal field (NUL- or space-terminated digits), or UINT64_MAX if malformed. */
static uint64_t tar_octal(const uint8_t *field, size_t width) {
  uint64_t v = 0u;
  size_t i = 0u;
  while ((i < width) && (field[i] == (uint8_t)' ')) {
    i++;
  }
  size_t digits = 0u;
  for (; (i < width) && (field[i] >= (uint8_t)'0') && (field[i] <= (uint8_t)'7'); i++) {
    v = (v << 3) | (uint64_t)(field[i] - (uint8_t)'0');
    digits++;
  }
  if ((digits == 0u) || (digits > 11u) || ((i < width) && (field[i] != 0u) &&
                                           (field[i] != (uint8_t)' '))) {
    return UINT64_MAX;
  }
  return v;
}

/* Whether path (a member name, "./" prefix allowed) is dir/<name><suffix>, name non-empty and
 * without '/'. */
static bool tar_path_is(const char *path, const char *dir, const char *suffix) {
  const char *p = (strncmp(path, "./", 2u) == 0) ? &path[2] : path;
  const size_t nd = strlen(dir);
  const size_t ns = strlen(suffix);
  const size_t n = strlen(p);
  return (n > (nd + ns)) && (strncmp(p, dir, nd) == 0) && (strcmp(&p[n - ns], suffix) == 0) &&
         (memchr(&p[nd], '/', n - nd) == NULL);
}

utvm_err_t utvm_host_mlf_find_graph(const uint8_t *tar, size_t len, const uint8_t **graph,
                                    size_t *graph_len, const uint8_t **params,
                                    size_t *params_len, char *err, size_t err_cap) {
  size_t pos = 0u;
  uint32_t members = 0u;
  *graph = NULL;
  *graph_len = 0u;
  *params = NULL;
  *params_len = 0u;
  if ((len >= 2u) && (tar[0] == 0x1fu) && (tar[1] == 0x8bu)) {
    (void)snprintf(err, err_cap, "a gzip-compressed archive: unpack it first (gunzip)");
    return UTVM_ERR_EMIT_ARGUMENT;
  }
  while ((len - pos) >= 512u) {
    const uint8_t *h = &tar[pos];
    char path[260];
    bool zero = true;
    for (size_t i = 0u; zero && (i < 512u); i++) {
      zero = h[i] == 0u;
    }
    if (zero) {
      break; /* the end-of-archive blocks */
    }
    if ((memcmp(&h[257], "ustar", 5u) != 0) || (++members > UTVM_MLF_MAX_MEMBERS)) {
      (void)snprintf(err, err_cap, "member at byte %zu: not a ustar header (or too many)", pos);
      return UTVM_ERR_EMIT_ARGUMENT;
    }
    const uint64_t size = tar_octal(&h[124], 12u);
    if ((size == UINT64_MAX) || (size > (uint64_t)(len - pos - 512u))) {
      (void)snprintf(err, err_cap, "member at byte %zu: bad or truncated size", pos);
      return UTVM_ERR_EMIT_ARGUMENT;
    }
    char name[101];
    char prefix[156];
    (void)memcpy(name, &h[0], 100u);
    name[100] = '\0';
    (void)memcpy(prefix, &h[345], 155u);
    prefix[155] = '\0';
    (void)snprintf(path, sizeof(path), "%s%s%s", prefix, (prefix[0] != '\0') ? "/" : "", name);
    const bool file = (h[156] == (uint8_t)'0') || (h[156] == 0u);
    const uint8_t *data = &tar[pos + 512u];
    if (file && (*graph == NULL) && tar_path_is(path, "executor-config/graph/", ".graph")) {
      *graph = data;
      *graph_len = (size_t)size;
    } else if (file && (*params == NULL) && tar_path_is(path, "parameters/", ".params")) {
      *params = data;
      *params_len = (size_t)size;
    } else {
      /* another member (source, metadata, directory, pax header): skipped */
    }
    pos += 512u + (size_t)((size + 511u) & ~(uint64_t)511u);
    if (pos > len) {
      pos = len;
    }
  }
  if (*graph == NULL) {
    (void)snprintf(err, err_cap, "no executor-config/graph/*.graph in the archive (an AOT "
                   "archive, or not Model Library Format)");
    return UTVM_ERR_EMIT_ARGUMENT;
  }
  return UTVM_OK;
}

/*
 * The standalone code emitter's graph back end (utvm_host_emit_graph, utvm/host_emit.h): a TVM
 * graph JSON and parameter blob, read by the graph executor's own parser (utvm/graph.h, with a
 * lookup that only records the function names), planned by the planner (utvm_plan: one buffer
 * per entry, one step per operator) and turned into the same three files as a .tflite model.
 *
 * Operators whose function is a kernel function (utvm_k_*, docs/KERNEL_FUNCS.md) become direct
 * kernel calls: their op-params tensor is decoded here, at build time, into the same constant
 * parameter structs the .tflite back end writes. Any other function becomes a call of the
 * packed function of that name (TVM's backend signature) on DLTensors built in place.
 */
#define _DEFAULT_SOURCE

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_internal.h"
#include "utvm/graph.h"
#include "utvm/kernels.h"

#define KFUNC_PREFIX "utvm_k_"

/* One operator as the back end sees it. */
typedef struct {
  utvm_graph_op_info_t info;
  const char *function;      /* its func_name (in names) */
  bool kernel;               /* a kernel function: p holds its decoded op params */
  utvm_op_params_t p;
  uint32_t scratch;          /* bytes of scratch for the target core */
  uint32_t inplace_scratch;  /* an in-place convolution (kind 59, 60): its scratch on the target
                                core when the plan puts the output over input 0 (else the plain
                                kernel runs with scratch) */
} graph_op_t;

/* Everything the graph back end holds besides the shared emit_t. */
typedef struct {
  emit_t *e;
  utvm_graph_t g;
  void *memory;
  char **names;              /* [num_ops] function names, in lookup order */
  uint32_t n_names;
  uint32_t cap_names;
  bool *is_param;            /* [num_entries] a parameter (constant) entry */
  graph_op_t *ops;           /* [num_ops] */
  uint32_t *offsets;         /* [num_entries] arena offset or UTVM_PLAN_NO_OFFSET */
  uint32_t *scratch_offsets; /* [num_ops] */
  uint32_t *io_index;        /* [num_entries] index in io[] (inputs, then outputs) or
                                UINT32_MAX */
  uint32_t *in_entries;      /* [num_inputs] the entries of the non-parameter inputs */
  uint32_t n_in;
  size_t io_offset;
  size_t arena_size;
} graph_emit_t;

/* The lookup of utvm_graph_init_lookup: records the name; the handle is its index + 1. */
static int32_t record_name(void *ctx, const char *name, TVMFunctionHandle *func) {
  graph_emit_t *ge = (graph_emit_t *)ctx;
  if (ge->n_names >= ge->cap_names) {
    return -1;
  }
  ge->names[ge->n_names] = strdup(name);
  if (ge->names[ge->n_names] == NULL) {
    return -1;
  }
  ge->n_names++;
  *func = (TVMFunctionHandle)(uintptr_t)ge->n_names;
  return 0;
}

static uint64_t read_u64(const uint8_t *p) {
  uint64_t v = 0u;
  for (uint32_t i = 0u; i < 8u; i++) {
    v |= (uint64_t)p[i] << (8u * i);
  }
  return v;
}

/* Marks the graph inputs named in the parameter blob (already checked whole by
 * utvm_graph_load_params, read again here with every bound checked). */
static utvm_err_t mark_params(graph_emit_t *ge, const uint8_t *blob, size_t len) {
  char name[UTVM_GRAPH_MAX_PARAM_NAME_LEN + 1u];
  size_t pos = 24u;
  if ((blob == NULL) || (len < pos)) {
    return UTVM_OK;
  }
  const uint64_t count = read_u64(&blob[16]);
  for (uint64_t k = 0u; (k < count) && (k < UTVM_GRAPH_MAX_INPUTS); k++) {
    if ((len - pos) < 8u) {
      return emit_fail(ge->e, UTVM_ERR_EMIT_ARGUMENT, "parameters: names cut short");
    }
    const uint64_t n = read_u64(&blob[pos]);
    pos += 8u;
    if ((n > (uint64_t)(len - pos)) || (n > UTVM_GRAPH_MAX_PARAM_NAME_LEN)) {
      return emit_fail(ge->e, UTVM_ERR_EMIT_ARGUMENT, "parameters: name %llu too long",
                       (unsigned long long)k);
    }
    (void)memcpy(name, &blob[pos], (size_t)n);
    name[n] = '\0';
    pos += (size_t)n;
    const int32_t index = utvm_graph_input_index(&ge->g, name);
    uint32_t entry = 0u;
    if ((index < 0) || (utvm_graph_input_entry(&ge->g, (uint32_t)index, &entry) != UTVM_OK)) {
      return emit_fail(ge->e, UTVM_ERR_EMIT_ARGUMENT, "parameters: %s is no graph input", name);
    }
    if (strncmp(name, "state", 5u) == 0) {
      return emit_fail(ge->e, UTVM_ERR_EMIT_ARGUMENT,
                       "parameters: %s is a variable tensor (SVDF or LSTM state, updated in place): "
                       "code from a graph keeps no state; compile the .tflite instead "
                       "(utvm compile MODEL -o DIR)", name);
    }
    ge->is_param[entry] = true;
  }
  return UTVM_OK;
}

/* Reads the graph and its parameters and records each operator. */
static utvm_err_t graph_open(graph_emit_t *ge, const char *json, size_t json_len,
                             const uint8_t *params, size_t params_len) {
  emit_t *e = ge->e;
  utvm_err_t err = utvm_graph_memory_size(&ge->g, json, json_len);
  if (err != UTVM_OK) {
    return emit_fail(e, err, "%s", ge->g.error);
  }
  ge->memory = malloc(ge->g.memory_size);
  ge->cap_names = ge->g.num_ops;
  ge->names = (char **)calloc((size_t)ge->cap_names + 1u, sizeof(char *));
  if ((ge->memory == NULL) || (ge->names == NULL)) {
    return emit_fail(e, UTVM_ERR_EMIT_MEMORY, "out of memory for the graph");
  }
  err = utvm_graph_init_lookup(&ge->g, json, json_len, record_name, ge, ge->memory,
                               ge->g.memory_size);
  if (err != UTVM_OK) {
    return emit_fail(e, err, "%s", (ge->g.error[0] != '\0') ? ge->g.error : "out of memory");
  }
  if (params != NULL) {
    err = utvm_graph_load_params(&ge->g, params, params_len);
    if (err != UTVM_OK) {
      return emit_fail(e, err, "%s", ge->g.error);
    }
  }
  const size_t n_entries = (size_t)ge->g.num_entries + 1u;
  ge->is_param = (bool *)calloc(n_entries, sizeof(bool));
  ge->offsets = (uint32_t *)calloc(n_entries, sizeof(uint32_t));
  ge->io_index = (uint32_t *)calloc(n_entries, sizeof(uint32_t));
  ge->in_entries = (uint32_t *)calloc((size_t)ge->g.num_inputs + 1u, sizeof(uint32_t));
  ge->ops = (graph_op_t *)calloc((size_t)ge->g.num_ops + 1u, sizeof(graph_op_t));
  ge->scratch_offsets = (uint32_t *)calloc((size_t)ge->g.num_ops + 1u, sizeof(uint32_t));
  e->const_offsets = (uint32_t *)malloc(n_entries * sizeof(uint32_t));
  if ((ge->is_param == NULL) || (ge->offsets == NULL) || (ge->io_index == NULL) ||
      (ge->in_entries == NULL) || (ge->ops == NULL) || (ge->scratch_offsets == NULL) ||
      (e->const_offsets == NULL)) {
    return emit_fail(e, UTVM_ERR_EMIT_MEMORY, "out of memory");
  }
  for (size_t i = 0u; i < n_entries; i++) {
    e->const_offsets[i] = UINT32_MAX;
    ge->io_index[i] = UINT32_MAX;
  }
  return mark_params(ge, params, params_len);
}

/* The operator's op params from its last input (a parameter of int32 words). */
static utvm_err_t decode_kernel(graph_emit_t *ge, graph_op_t *op) {
  const DLTensor *t = NULL;
  uint32_t sid = 0u;
  const char *why = "";
  const uint32_t last = op->info.entries[op->info.num_inputs - 1u];
  if ((utvm_graph_entry(&ge->g, last, &t, &sid) != UTVM_OK) || !ge->is_param[last] ||
      (t->dtype.code != (uint8_t)kDLInt) || (t->dtype.bits != 32u)) {
    return emit_fail(ge->e, UTVM_ERR_EMIT_ARGUMENT,
                     "node %u (%s): the last input is not an int32 op-params parameter",
                     op->info.node, op->function);
  }
  uint32_t bytes = 0u;
  uint64_t elements = 1u;
  for (int32_t d = 0; d < t->ndim; d++) {
    elements *= (uint64_t)t->shape[d];
  }
  bytes = (uint32_t)(elements * 4u);
  utvm_err_t err = utvm_op_params_decode((const int32_t *)t->data, bytes / 4u, &op->p, &why);
  if (err != UTVM_OK) {
    return emit_fail(ge->e, err, "node %u (%s): op params: %s", op->info.node, op->function,
                     why);
  }
  if ((strcmp(utvm_op_kind_function(op->p.kind), op->function) != 0) ||
      ((op->p.n_inputs + 1u) != op->info.num_inputs) || (op->info.num_outputs != 1u)) {
    return emit_fail(ge->e, UTVM_ERR_EMIT_ARGUMENT,
                     "node %u (%s): op params of %s with %u inputs for %u operands", op->info.node,
                     op->function, utvm_op_kind_function(op->p.kind), op->p.n_inputs,
                     op->info.num_inputs);
  }
  op->kernel = true;
  op->scratch = op->p.scratch_bytes;
  const utvm_kernels_core_t core = ge->e->o->core;
  if ((op->p.kind == UTVM_OP_CONV2D_S8) || (op->p.kind == UTVM_OP_CONV2D_S8_INPLACE)) {
    op->scratch = (uint32_t)utvm_conv2d_s8_scratch_size_for(core, &op->p.dims[0], &op->p.dims[1],
                                                            &op->p.dims[2]);
  } else if ((op->p.kind == UTVM_OP_DEPTHWISE_CONV2D_S8) ||
             (op->p.kind == UTVM_OP_DEPTHWISE_CONV2D_S8_INPLACE)) {
    op->scratch = (uint32_t)utvm_depthwise_conv2d_s8_scratch_size_for(
        core, &op->p.dims[0], &op->p.dims[1], &op->p.dims[2]);
  } else {
    /* the exported scratch */
  }
  if (op->p.kind == UTVM_OP_CONV2D_S8_INPLACE) {
    op->inplace_scratch = (uint32_t)utvm_conv2d_s8_inplace_scratch_size_for(
        core, &op->p.p.conv, &op->p.dims[0], &op->p.dims[1], &op->p.dims[2]);
  } else if (op->p.kind == UTVM_OP_DEPTHWISE_CONV2D_S8_INPLACE) {
    op->inplace_scratch = (uint32_t)utvm_depthwise_conv2d_s8_inplace_scratch_size_for(
        core, &op->p.p.depthwise, &op->p.dims[0], &op->p.dims[1], &op->p.dims[2]);
  } else {
    op->inplace_scratch = op->scratch;
  }
  op->p.scratch_bytes = op->scratch;
  return UTVM_OK;
}

/* Whether operator op is an in-place convolution (its kind's plan kind INPLACE_GROW) whose
 * inputs but the first are parameters (the planner puts the output over the first planned read,
 * the kernel runs in place over input 0 only). */
static bool grows_in_place(const graph_emit_t *ge, const graph_op_t *op) {
  const utvm_op_kind_info_t *info = op->kernel ? utvm_op_kind_info(op->p.kind) : NULL;
  bool grows = (info != NULL) && (info->plan_kind == UTVM_PLAN_STEP_INPLACE_GROW) &&
               (op->info.num_inputs >= 2u) && (op->info.num_outputs == 1u);
  for (uint32_t i = 1u; grows && (i < op->info.num_inputs); i++) {
    grows = ge->is_param[op->info.entries[i]];
  }
  return grows;
}

/* After the chosen plan: an in-place convolution whose output the plan put over input 0 keeps
 * its kind and takes its in-place scratch; any other becomes its plain kind (the same op-params
 * body) with the plain kernel's scratch, as the kernel function does with two buffers. */
static void settle_in_place(graph_emit_t *ge) {
  for (uint32_t k = 0u; k < ge->g.num_ops; k++) {
    graph_op_t *op = &ge->ops[k];
    if (grows_in_place(ge, op)) {
      const uint32_t in = op->info.entries[0];
      const uint32_t out = op->info.entries[op->info.num_inputs];
      if (!ge->is_param[in] && (ge->offsets[in] != UTVM_PLAN_NO_OFFSET) &&
          (ge->offsets[in] == ge->offsets[out])) {
        op->scratch = op->inplace_scratch;
      } else {
        op->p.kind = (op->p.kind == UTVM_OP_CONV2D_S8_INPLACE) ? UTVM_OP_CONV2D_S8
                                                                : UTVM_OP_DEPTHWISE_CONV2D_S8;
      }
      op->p.scratch_bytes = op->scratch;
    }
  }
}

/* Whether name is a C identifier (the graph parser bounds its length). */
static bool c_identifier(const char *name) {
  bool ok = (name[0] != '\0');
  for (size_t i = 0u; ok && (name[i] != '\0'); i++) {
    const char c = name[i];
    ok = ((c >= 'a') && (c <= 'z')) || ((c >= 'A') && (c <= 'Z')) || (c == '_') ||
         ((i > 0u) && (c >= '0') && (c <= '9'));
  }
  return ok;
}

/* Records every operator (decoding the kernel functions' op params) and the real inputs. */
static utvm_err_t graph_ops(graph_emit_t *ge) {
  utvm_err_t err = UTVM_OK;
  for (uint32_t k = 0u; (err == UTVM_OK) && (k < ge->g.num_ops); k++) {
    graph_op_t *op = &ge->ops[k];
    err = utvm_graph_op(&ge->g, k, &op->info);
    const uintptr_t handle = (uintptr_t)op->info.func;
    if ((err != UTVM_OK) || (handle == 0u) || (handle > ge->n_names)) {
      return emit_fail(ge->e, UTVM_ERR_EMIT_ARGUMENT, "operator %u cannot be read", k);
    }
    op->function = ge->names[handle - 1u];
    if (!c_identifier(op->function)) {
      return emit_fail(ge->e, UTVM_ERR_EMIT_ARGUMENT, "node %u: function %s is not a C identifier",
                       op->info.node, op->function);
    }
    if (strncmp(op->function, KFUNC_PREFIX, strlen(KFUNC_PREFIX)) == 0) {
      err = (op->info.num_inputs == 0u)
                ? emit_fail(ge->e, UTVM_ERR_EMIT_ARGUMENT, "node %u: %s without inputs",
                            op->info.node, op->function)
                : decode_kernel(ge, op);
    }
  }
  for (uint32_t i = 0u; (err == UTVM_OK) && (i < ge->g.num_inputs); i++) {
    uint32_t entry = 0u;
    err = utvm_graph_input_entry(&ge->g, i, &entry);
    if ((err == UTVM_OK) && !ge->is_param[entry]) {
      ge->in_entries[ge->n_in] = entry;
      ge->n_in++;
    }
  }
  return err;
}

/* Plans the entries: inputs and outputs apart (separate) or shared; fills ge->offsets. */
static utvm_err_t graph_plan(graph_emit_t *ge, bool separate) {
  const uint32_t nb = ge->g.num_entries;
  const uint32_t ns = ge->g.num_ops;
  utvm_plan_buffer_t *buffers = (utvm_plan_buffer_t *)calloc((size_t)nb + 1u, sizeof(*buffers));
  utvm_plan_step_t *steps = (utvm_plan_step_t *)calloc((size_t)ns + 1u, sizeof(*steps));
  const size_t ws_size = utvm_plan_workspace_size(nb, ns);
  void *ws = (ws_size == SIZE_MAX) ? NULL : malloc(ws_size);
  utvm_err_t err = UTVM_OK;
  if ((buffers == NULL) || (steps == NULL) || (ws == NULL)) {
    err = emit_fail(ge->e, UTVM_ERR_EMIT_MEMORY, "out of memory for the plan");
  }
  const uint32_t apart = separate ? UTVM_PLAN_APART : 0u;
  for (uint32_t b = 0u; (err == UTVM_OK) && (b < nb); b++) {
    const DLTensor *t = NULL;
    uint32_t sid = 0u;
    (void)utvm_graph_entry(&ge->g, b, &t, &sid);
    uint64_t bytes = ((uint64_t)t->dtype.bits * t->dtype.lanes + 7u) / 8u;
    for (int32_t d = 0; d < t->ndim; d++) {
      bytes *= (uint64_t)t->shape[d];
    }
    buffers[b].size = (uint32_t)bytes;
    buffers[b].flags = ge->is_param[b] ? UTVM_PLAN_CONSTANT : 0u;
  }
  for (uint32_t i = 0u; (err == UTVM_OK) && (i < ge->n_in); i++) {
    buffers[ge->in_entries[i]].flags |= UTVM_PLAN_INPUT | apart;
  }
  for (uint32_t i = 0u; (err == UTVM_OK) && (i < ge->g.num_outputs); i++) {
    uint32_t entry = 0u;
    (void)utvm_graph_output_entry(&ge->g, i, &entry);
    buffers[entry].flags |= UTVM_PLAN_OUTPUT | apart;
  }
  for (uint32_t k = 0u; (err == UTVM_OK) && (k < ns); k++) {
    const graph_op_t *op = &ge->ops[k];
    steps[k].reads = op->info.entries;
    steps[k].n_reads = op->info.num_inputs;
    steps[k].writes = &op->info.entries[op->info.num_inputs];
    steps[k].n_writes = op->info.num_outputs;
    steps[k].scratch = op->scratch;
    /* the in-place convolutions over input 0 when the planner can (settle_in_place) */
    steps[k].kind =
        grows_in_place(ge, op) ? UTVM_PLAN_STEP_INPLACE_GROW : UTVM_PLAN_STEP_DEFAULT;
    steps[k].inplace_scratch = op->inplace_scratch;
  }
  if (err == UTVM_OK) {
    utvm_plan_t plan;
    (void)memset(&plan, 0, sizeof(plan));
    plan.offsets = ge->offsets;
    plan.scratch_offsets = ge->scratch_offsets;
    err = utvm_plan(buffers, nb, steps, ns, ws, ws_size, &plan);
    if (err != UTVM_OK) {
      err = emit_fail(ge->e, err, "plan: %s", utvm_strerror(err));
    } else if (plan.arena_size > (size_t)UTVM_EMIT_MAX_ARENA) {
      err = emit_fail(ge->e, UTVM_ERR_EMIT_ARGUMENT, "the graph needs an arena of %zu bytes",
                      plan.arena_size);
    } else {
      ge->arena_size = plan.arena_size;
      ge->io_offset = plan.io_offset;
    }
  }
  free(buffers);
  free(steps);
  free(ws);
  return err;
}

/* The C expression of entry: a weights pointer (a parameter), an io[] entry or a place in the
 * activations; writable for a packed call's DLTensor. */
static utvm_err_t entry_expr(graph_emit_t *ge, uint32_t entry, bool writable, char *expr,
                             size_t cap) {
  emit_t *e = ge->e;
  const DLTensor *t = NULL;
  uint32_t sid = 0u;
  (void)utvm_graph_entry(&ge->g, entry, &t, &sid);
  if (ge->is_param[entry]) {
    size_t bytes = ((size_t)t->dtype.bits * t->dtype.lanes + 7u) / 8u;
    for (int32_t d = 0; d < t->ndim; d++) {
      bytes *= (size_t)t->shape[d];
    }
    (void)snprintf(expr, cap, "%s(%uu)", writable ? "wp" : "w",
                   emit_constant(e, entry, t->data, bytes));
    e->uses_w = e->uses_w || !writable;
    e->uses_wp = e->uses_wp || writable;
  } else if (ge->offsets[entry] == UTVM_PLAN_NO_OFFSET) {
    return emit_fail(e, UTVM_ERR_EMIT_ARGUMENT, "entry %u is neither computed nor an input",
                     entry);
  } else if (e->io_separate && (ge->io_index[entry] != UINT32_MAX)) {
    (void)snprintf(expr, cap, "io[%u]", ge->io_index[entry]);
    e->uses_io = true;
  } else {
    (void)snprintf(expr, cap, "a(act, %uu)", ge->offsets[entry]);
    e->uses_a = true;
  }
  return UTVM_OK;
}

/* A packed call of operator k on DLTensors of its entries. */
static utvm_err_t emit_packed(graph_emit_t *ge, uint32_t k, const graph_op_t *op) {
  emit_t *e = ge->e;
  const uint32_t n = op->info.num_inputs + op->info.num_outputs;
  bool declared = false;
  for (uint32_t j = 0u; j < k; j++) {
    declared = declared || (strcmp(ge->ops[j].function, op->function) == 0);
  }
  if (!declared) {
    host_text_printf(&e->externs, "int %s(TVMValue *args, int *type_codes, int num_args, "
                     "TVMValue *ret, int *ret_code,\n    void *resource_handle);\n",
                     op->function);
  }
  host_text_printf(&e->body, "  if (err == UTVM_OK) { /* operator %u: node %u */\n"
                   "    DLTensor t[%u] = {\n", k, op->info.node, n);
  for (uint32_t a = 0u; a < n; a++) {
    char expr[EMIT_EXPR_SIZE];
    const DLTensor *t = NULL;
    uint32_t sid = 0u;
    const uint32_t entry = op->info.entries[a];
    utvm_err_t err = entry_expr(ge, entry, true, expr, sizeof(expr));
    if (err != UTVM_OK) {
      return err;
    }
    (void)utvm_graph_entry(&ge->g, entry, &t, &sid);
    if (t->ndim > 0) {
      host_text_printf(&e->defs, "static int64_t op%u_shape%u[%d] = {", k, a, t->ndim);
      for (int32_t d = 0; d < t->ndim; d++) {
        host_text_printf(&e->defs, "%s%lld", (d == 0) ? "" : ", ", (long long)t->shape[d]);
      }
      host_text_printf(&e->defs, "};\n");
    }
    host_text_printf(&e->body, "        {%s, {kDLCPU, 0}, %d, {%uu, %uu, %uu}, ", expr, t->ndim,
                     t->dtype.code, t->dtype.bits, t->dtype.lanes);
    if (t->ndim > 0) {
      host_text_printf(&e->body, "op%u_shape%u, NULL, 0u},\n", k, a);
    } else {
      host_text_printf(&e->body, "NULL, NULL, 0u},\n");
    }
  }
  host_text_printf(&e->body, "    };\n    err = call_packed(%s, t, %u);\n  }\n", op->function, n);
  e->uses_packed = true;
  return UTVM_OK;
}

/* The direct kernel call of operator k (a kernel function). */
static utvm_err_t emit_kernel(graph_emit_t *ge, uint32_t k, const graph_op_t *op) {
  char in[UTVM_OP_PARAMS_MAX_INPUTS][EMIT_EXPR_SIZE];
  char out[EMIT_EXPR_SIZE];
  char scratch[EMIT_EXPR_SIZE] = "NULL";
  utvm_err_t err = UTVM_OK;
  const uint32_t n_in = op->p.n_inputs;
  if (n_in > UTVM_OP_PARAMS_MAX_INPUTS) {
    return emit_fail(ge->e, UTVM_ERR_EMIT_ARGUMENT, "operator %u: %u inputs", k, n_in);
  }
  for (uint32_t i = 0u; (err == UTVM_OK) && (i < n_in); i++) {
    err = entry_expr(ge, op->info.entries[i], false, in[i], sizeof(in[i]));
  }
  if (err == UTVM_OK) {
    err = entry_expr(ge, op->info.entries[op->info.num_inputs], false, out, sizeof(out));
  }
  if (err != UTVM_OK) {
    return err;
  }
  if ((op->scratch > 0u) && (ge->scratch_offsets[k] != UTVM_PLAN_NO_OFFSET)) {
    (void)snprintf(scratch, sizeof(scratch), "a(act, %uu)", ge->scratch_offsets[k]);
    ge->e->uses_a = true;
  }
  return emit_kernel_call(ge->e, k, 0u, &op->p, in, n_in, out, scratch);
}

/* The inputs' and outputs' table rows (no quantization: a graph does not carry it). */
static utvm_err_t graph_io(graph_emit_t *ge, host_text_t *io, utvm_emit_report_t *rep) {
  for (uint32_t i = 0u; i < (ge->n_in + ge->g.num_outputs); i++) {
    const bool input = i < ge->n_in;
    uint32_t entry = 0u;
    const DLTensor *t = NULL;
    uint32_t sid = 0u;
    emit_io_t r;
    if (input) {
      entry = ge->in_entries[i];
    } else {
      (void)utvm_graph_output_entry(&ge->g, i - ge->n_in, &entry);
    }
    (void)utvm_graph_entry(&ge->g, entry, &t, &sid);
    if (t->ndim > (int32_t)UTVM_AI_MAX_DIMS) {
      return emit_fail(ge->e, UTVM_ERR_EMIT_ARGUMENT, "%s %u has more than %u dimensions",
                       input ? "input" : "output", input ? i : (i - ge->n_in),
                       UTVM_AI_MAX_DIMS);
    }
    (void)memset(&r, 0, sizeof(r));
    r.input = input;
    r.index = input ? i : (i - ge->n_in);
    r.name = "";
    if (input) {
      for (uint32_t k = 0u; k < ge->g.num_inputs; k++) {
        uint32_t x = 0u;
        if ((utvm_graph_input_entry(&ge->g, k, &x) == UTVM_OK) && (x == entry)) {
          r.name = utvm_graph_input_name(&ge->g, k);
        }
      }
    }
    r.own_buffer = ge->e->io_separate;
    r.offset = ge->offsets[entry];
    r.dtype = t->dtype;
    r.rank = (uint32_t)t->ndim;
    r.bytes = ((size_t)t->dtype.bits * t->dtype.lanes + 7u) / 8u;
    for (uint32_t d = 0u; d < r.rank; d++) {
      r.dims[d] = t->shape[d];
      r.bytes *= (size_t)t->shape[d];
    }
    emit_io_info(ge->e, &io[input ? 0 : 1], &r);
    rep->io_bytes += r.bytes;
    rep->io_aligned_bytes += emit_align_up(r.bytes);
  }
  return UTVM_OK;
}

static void graph_close(graph_emit_t *ge) {
  for (uint32_t i = 0u; i < ge->n_names; i++) {
    free(ge->names[i]);
  }
  free(ge->names);
  free(ge->memory);
  free(ge->is_param);
  free(ge->ops);
  free(ge->offsets);
  free(ge->scratch_offsets);
  free(ge->io_index);
  free(ge->in_entries);
}

/* Plans both ways for the report, then the chosen way; marks each IO entry's io[] index. */
static utvm_err_t graph_layout(graph_emit_t *ge, utvm_emit_report_t *r) {
  emit_t *e = ge->e;
  utvm_err_t err = graph_plan(ge, true);
  e->separate_bytes = ge->io_offset;
  if (err == UTVM_OK) {
    err = graph_plan(ge, false);
    e->shared_bytes = ge->arena_size;
  }
  if (err == UTVM_OK) {
    err = graph_plan(ge, e->io_separate);
  }
  if (err != UTVM_OK) {
    return err;
  }
  settle_in_place(ge);
  if (e->io_separate && ((ge->n_in + ge->g.num_outputs) > UTVM_AI_MAX_IO)) {
    return emit_fail(e, UTVM_ERR_EMIT_ARGUMENT,
                     "%u inputs and outputs: more than %u need --io-in-activations",
                     ge->n_in + ge->g.num_outputs, UTVM_AI_MAX_IO);
  }
  for (uint32_t i = 0u; i < (ge->n_in + ge->g.num_outputs); i++) {
    uint32_t entry = (i < ge->n_in) ? ge->in_entries[i] : 0u;
    if (i >= ge->n_in) {
      (void)utvm_graph_output_entry(&ge->g, i - ge->n_in, &entry);
    }
    if (ge->io_index[entry] != UINT32_MAX) {
      if (e->io_separate) {
        return emit_fail(e, UTVM_ERR_EMIT_ARGUMENT,
                         "entry %u is two inputs or outputs: use --io-in-activations", entry);
      }
    } else {
      ge->io_index[entry] = i;
    }
  }
  r->n_inputs = ge->n_in;
  r->n_outputs = ge->g.num_outputs;
  r->n_layers = ge->g.num_ops;
  r->activations_bytes = e->io_separate ? ge->io_offset : ge->arena_size;
  r->activations_io_shared_bytes = e->shared_bytes;
  r->activations_io_separate_bytes = e->separate_bytes;
  return UTVM_OK;
}

/* The report's row of operator k. */
static void graph_layer(graph_emit_t *ge, const graph_op_t *op, utvm_emit_layer_t *layer) {
  const uint32_t out = op->info.entries[op->info.num_inputs];
  const DLTensor *t = NULL;
  uint32_t sid = 0u;
  size_t bytes = 0u;
  (void)utvm_graph_entry(&ge->g, out, &t, &sid);
  bytes = ((size_t)t->dtype.bits * t->dtype.lanes + 7u) / 8u;
  for (int32_t d = 0; d < t->ndim; d++) {
    bytes *= (size_t)t->shape[d];
  }
  (void)snprintf(layer->function, sizeof(layer->function), "%s",
                 op->kernel ? utvm_host_emit_kernel_name((uint32_t)op->p.kind) : op->function);
  layer->output_bytes = (uint32_t)bytes;
  layer->output_offset = (ge->e->io_separate && (ge->io_index[out] != UINT32_MAX))
                             ? UINT32_MAX
                             : ge->offsets[out];
  layer->scratch_bytes = op->scratch;
}

utvm_err_t utvm_host_emit_graph(const char *json, size_t json_len, const uint8_t *params,
                                size_t params_len, const utvm_emit_options_t *o,
                                const char *dir, utvm_emit_report_t *report, char *err,
                                size_t err_cap) {
  emit_t e;
  graph_emit_t ge;
  utvm_emit_report_t r;
  host_text_t io[2];
  (void)memset(&e, 0, sizeof(e));
  (void)memset(&ge, 0, sizeof(ge));
  (void)memset(&r, 0, sizeof(r));
  (void)memset(io, 0, sizeof(io));
  e.err = err;
  e.err_cap = err_cap;
  e.o = o;
  e.constant_kind = "entry";
  ge.e = &e;
  if ((err != NULL) && (err_cap > 0u)) {
    err[0] = '\0';
  }
  if ((json == NULL) || (json_len == 0u) || (o == NULL) || !emit_name_valid(o->name) ||
      ((o->core != UTVM_KERNELS_PORTABLE) && (o->core != UTVM_KERNELS_DSP) &&
       (o->core != UTVM_KERNELS_MVE))) {
    return emit_fail(&e, UTVM_ERR_EMIT_ARGUMENT,
                     "no graph, an unknown core, or the name is not a C identifier of 1 to %u "
                     "characters", UTVM_EMIT_MAX_NAME);
  }
  e.io_separate = !o->io_in_activations;
  utvm_err_t rc = graph_open(&ge, json, json_len, params, params_len);
  if (rc == UTVM_OK) {
    rc = graph_ops(&ge);
  }
  if (rc == UTVM_OK) {
    rc = graph_layout(&ge, &r);
  }
  if (rc == UTVM_OK) {
    r.layers = (utvm_emit_layer_t *)calloc((size_t)r.n_layers + 1u, sizeof(utvm_emit_layer_t));
    if (r.layers == NULL) {
      rc = emit_fail(&e, UTVM_ERR_EMIT_MEMORY, "out of memory");
    }
  }
  for (uint32_t k = 0u; (rc == UTVM_OK) && (k < r.n_layers); k++) {
    const graph_op_t *op = &ge.ops[k];
    rc = op->kernel ? emit_kernel(&ge, k, op) : emit_packed(&ge, k, op);
    graph_layer(&ge, op, &r.layers[k]);
    if (op->kernel) {
      r.kernels_used[op->p.kind] = true;
    }
    if (op->scratch > r.scratch_bytes) {
      r.scratch_bytes = op->scratch;
    }
  }
  if (rc == UTVM_OK) {
    rc = graph_io(&ge, io, &r);
    r.params_bytes = e.params_bytes;
  }
  rc = emit_finish(&e, rc, dir, &r, io);
  graph_close(&ge);
  emit_free_shared(&e);
  if ((rc == UTVM_OK) && (report != NULL)) {
    *report = r;
  } else {
    free(r.layers);
  }
  return rc;
}

/*
 * The generic compiler (utvm/host_compile.h): the runner checks and prepares the model, each
 * operator is exported as op params (utvm_runner_op_params), and the graph JSON, parameter
 * blob and storage plan are built from those.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utvm/host_compile.h"
#include "utvm/kernels.h"
#include "utvm/model.h"
#include "utvm/runner.h"

#define NO_ENTRY UINT32_MAX
/* TVM's graph executor: names up to 119 characters, parameter names below 80. */
#define NAME_CAP 80u

/* A growable byte buffer. */
typedef struct {
  uint8_t *data;
  size_t len;
  size_t cap;
  bool failed;
} cbuf_t;

static void cbuf_put(cbuf_t *b, const void *bytes, size_t n) {
  if (b->failed) {
    return;
  }
  if ((b->len + n + 1u) > b->cap) {
    size_t cap = (b->cap == 0u) ? 4096u : b->cap;
    while ((b->len + n + 1u) > cap) {
      cap *= 2u;
    }
    uint8_t *grown = (uint8_t *)realloc(b->data, cap);
    if (grown == NULL) {
      b->failed = true;
      return;
    }
    b->data = grown;
    b->cap = cap;
  }
  (void)memcpy(&b->data[b->len], bytes, n);
  b->len += n;
  b->data[b->len] = 0u;
}

static void cbuf_printf(cbuf_t *b, const char *fmt, ...) {
  char text[256];
  va_list ap;
  va_start(ap, fmt);
  const int n = vsnprintf(text, sizeof(text), fmt, ap);
  va_end(ap);
  if ((n < 0) || ((size_t)n >= sizeof(text))) {
    b->failed = true;
    return;
  }
  cbuf_put(b, text, (size_t)n);
}

static void cbuf_u64(cbuf_t *b, uint64_t v) {
  uint8_t le[8];
  for (uint32_t i = 0u; i < 8u; i++) {
    le[i] = (uint8_t)(v >> (8u * i));
  }
  cbuf_put(b, le, sizeof(le));
}

static void cbuf_u32(cbuf_t *b, uint32_t v) {
  uint8_t le[4];
  for (uint32_t i = 0u; i < 4u; i++) {
    le[i] = (uint8_t)(v >> (8u * i));
  }
  cbuf_put(b, le, sizeof(le));
}

/* Everything the compiler holds while it works. */
typedef struct {
  utvm_model_t model;
  utvm_runner_t runner;
  uint8_t *bytes;
  void *workspace;
  void *arena_block;          /* malloc'd; the arena is its first 16-byte aligned byte */
  uint32_t *tensor_entry;   /* [n_tensors] entry of each tensor, or NO_ENTRY */
  uint32_t n_calls;         /* kernel calls (graph nodes): one per operator output */
  uint32_t *call_op;        /* [n_calls] the operator of each call */
  uint32_t *call_output;    /* [n_calls] the output it writes */
  int32_t **op_words;       /* [n_calls] encoded op params */
  uint32_t *op_n_words;
  uint32_t *op_params_entry;
  uint32_t *param_tensor;   /* [n_params] tensor index, or NO_ENTRY for op params */
  uint32_t *param_op;       /* [n_params] call of op params or of a laid-out constant */
  bool *param_laid;         /* [n_params] the laid-out constant of call param_op */
  uint32_t *laid_input;     /* [n_calls] the input laid out for the core, or NO_ENTRY */
  uint8_t **laid_data;      /* [n_calls] its bytes (laid_bytes), malloc'd */
  size_t *laid_bytes;
  uint32_t *laid_entry;     /* [n_calls] its entry */
  bool plain_convolutions;  /* utvm_host_compile_options_t */
  bool lay_out;
  utvm_kernels_core_t core;
  char *err;
  size_t err_cap;
} compiler_t;

static utvm_err_t fail(compiler_t *c, utvm_err_t code, const char *fmt, ...) {
  if ((c->err != NULL) && (c->err_cap > 0u)) {
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(c->err, c->err_cap, fmt, ap);
    va_end(ap);
  }
  return code;
}

static char *dup_text(const char *s) {
  const size_t n = strlen(s) + 1u;
  char *d = (char *)malloc(n);
  if (d != NULL) {
    (void)memcpy(d, s, n);
  }
  return d;
}

static bool dtype_of(utvm_model_type_t type, DLDataType *dt) {
  dt->lanes = 1u;
  switch (type) {
    case UTVM_MODEL_INT8:
      dt->code = (uint8_t)kDLInt;
      dt->bits = 8u;
      return true;
    case UTVM_MODEL_UINT8:
      dt->code = (uint8_t)kDLUInt;
      dt->bits = 8u;
      return true;
    case UTVM_MODEL_INT16:
      dt->code = (uint8_t)kDLInt;
      dt->bits = 16u;
      return true;
    case UTVM_MODEL_INT32:
      dt->code = (uint8_t)kDLInt;
      dt->bits = 32u;
      return true;
    case UTVM_MODEL_INT64:
      dt->code = (uint8_t)kDLInt;
      dt->bits = 64u;
      return true;
    case UTVM_MODEL_FLOAT32:
      dt->code = (uint8_t)kDLFloat;
      dt->bits = 32u;
      return true;
    default:
      return false;
  }
}

static const char *dtype_name(DLDataType dt) {
  if (dt.code == (uint8_t)kDLFloat) {
    return "float32";
  }
  if (dt.code == (uint8_t)kDLUInt) {
    return "uint8";
  }
  if (dt.bits == 16u) {
    return "int16";
  }
  if (dt.bits == 64u) {
    return "int64";
  }
  return (dt.bits == 8u) ? "int8" : "int32";
}

/* Adds an entry for model tensor t (its node is created by the caller at the same index). */
static utvm_err_t add_tensor_entry(compiler_t *c, utvm_compiled_graph_t *g, uint32_t t) {
  utvm_model_tensor_t mt;
  utvm_compiled_entry_t *e = &g->entries[g->n_entries];
  if (utvm_model_tensor(&c->model, t, &mt) != UTVM_OK) {
    return fail(c, UTVM_ERR_MODEL_INDEX, "tensor %u cannot be decoded", t);
  }
  (void)memset(e, 0, sizeof(*e));
  if (!dtype_of(mt.type, &e->dtype)) {
    return fail(c, UTVM_ERR_COMPILE_LIMIT,
                "tensor %u (%s) has a type the graph does not take (int8, uint8, int16, int32, int64, float32)",
                t, mt.name);
  }
  e->ndim = (mt.rank == 0u) ? 1u : mt.rank;
  for (uint32_t d = 0u; d < e->ndim; d++) {
    e->shape[d] = (mt.rank == 0u) ? 1 : (int64_t)mt.dims[d];
  }
  e->bytes = (uint64_t)mt.bytes;
  c->tensor_entry[t] = g->n_entries;
  g->n_entries++;
  return UTVM_OK;
}

/* Storage ids: one per input and parameter, activations by greedy best-fit reuse. */
static utvm_err_t plan_storage(compiler_t *c, utvm_compiled_graph_t *g, uint32_t first_op_entry) {
  const uint32_t n = g->n_entries;
  uint32_t *last_use = (uint32_t *)calloc((size_t)n, sizeof(uint32_t));
  uint32_t *slot_owner = (uint32_t *)calloc((size_t)n, sizeof(uint32_t));
  g->storage_bytes = (uint64_t *)calloc((size_t)n, sizeof(uint64_t));
  if ((last_use == NULL) || (slot_owner == NULL) || (g->storage_bytes == NULL)) {
    free(last_use);
    free(slot_owner);
    return fail(c, UTVM_ERR_COMPILE_MEMORY, "out of memory");
  }
  for (uint32_t k = 0u; k < g->n_ops; k++) {
    for (uint32_t i = 0u; i < g->ops[k].n_inputs; i++) {
      last_use[g->ops[k].entries[i]] = k;
    }
  }
  for (uint32_t i = 0u; i < g->n_outputs; i++) {
    last_use[g->output_entries[i]] = UINT32_MAX;
  }
  uint32_t sid = 0u;
  for (uint32_t e = 0u; e < first_op_entry; e++) {
    g->entries[e].storage_id = sid;
    g->storage_bytes[sid] = g->entries[e].bytes;
    sid++;
  }
  const uint32_t first_slot = sid;
  for (uint32_t k = 0u; k < g->n_ops; k++) {
    const utvm_compiled_op_t *op = &g->ops[k];
    const uint32_t out = op->entries[op->n_inputs];
    const uint64_t bytes = g->entries[out].bytes;
    uint32_t best = NO_ENTRY;
    for (uint32_t s = first_slot; s < sid; s++) {
      /* free once its last reader ran before this operator */
      if (last_use[slot_owner[s]] >= k) {
        continue;
      }
      const bool fits = g->storage_bytes[s] >= bytes;
      if (best == NO_ENTRY) {
        best = s;
      } else {
        const bool best_fits = g->storage_bytes[best] >= bytes;
        if ((fits && (!best_fits || (g->storage_bytes[s] < g->storage_bytes[best]))) ||
            (!fits && !best_fits && (g->storage_bytes[s] > g->storage_bytes[best]))) {
          best = s;
        }
      }
    }
    if (best == NO_ENTRY) {
      best = sid;
      sid++;
    }
    slot_owner[best] = out;
    if (g->storage_bytes[best] < bytes) {
      g->storage_bytes[best] = bytes;
    }
    g->entries[out].storage_id = best;
  }
  g->n_storage = sid;
  for (uint32_t s = first_slot; s < sid; s++) {
    g->activation_bytes += g->storage_bytes[s];
  }
  for (uint32_t s = 0u; s < first_slot; s++) {
    if (s >= g->n_inputs) {
      g->param_bytes += g->storage_bytes[s];
    } else {
      g->activation_bytes += g->storage_bytes[s];
    }
  }
  free(last_use);
  free(slot_owner);
  return UTVM_OK;
}

/* The parameter blob (6.2): names, then arrays; params[i].data points at array i's bytes. */
static utvm_err_t build_blob(compiler_t *c, utvm_compiled_graph_t *g) {
  cbuf_t b = {NULL, 0u, 0u, false};
  size_t *at = (size_t *)calloc((size_t)g->n_params + 1u, sizeof(size_t));
  if (at == NULL) {
    return fail(c, UTVM_ERR_COMPILE_MEMORY, "out of memory");
  }
  cbuf_u64(&b, 0xF7E58D4F05049CB7u);
  cbuf_u64(&b, 0u);
  cbuf_u64(&b, (uint64_t)g->n_params);
  for (uint32_t i = 0u; i < g->n_params; i++) {
    const size_t len = strlen(g->params[i].name);
    cbuf_u64(&b, (uint64_t)len);
    cbuf_put(&b, g->params[i].name, len);
  }
  cbuf_u64(&b, (uint64_t)g->n_params);
  for (uint32_t i = 0u; i < g->n_params; i++) {
    const utvm_compiled_entry_t *e = &g->entries[g->params[i].entry];
    cbuf_u64(&b, 0xDD5E40F096B4A13Fu);
    cbuf_u64(&b, 0u);
    cbuf_u32(&b, 1u);
    cbuf_u32(&b, 0u);
    cbuf_u32(&b, e->ndim);
    const uint8_t dt[4] = {e->dtype.code, e->dtype.bits, (uint8_t)e->dtype.lanes, 0u};
    cbuf_put(&b, dt, sizeof(dt));
    for (uint32_t d = 0u; d < e->ndim; d++) {
      cbuf_u64(&b, (uint64_t)e->shape[d]);
    }
    cbuf_u64(&b, e->bytes);
    at[i] = b.len;
    if (c->param_laid[i]) {
      cbuf_put(&b, c->laid_data[c->param_op[i]], c->laid_bytes[c->param_op[i]]);
    } else if (c->param_tensor[i] != NO_ENTRY) {
      utvm_model_tensor_t mt;
      (void)utvm_model_tensor(&c->model, c->param_tensor[i], &mt);
      if (mt.variable) {
        /* TFLM's reset value: the zero point for int8, else 0 */
        const uint8_t fill = (mt.type == UTVM_MODEL_INT8) ? (uint8_t)mt.quant.zero_point : 0u;
        for (size_t j = 0u; j < mt.bytes; j++) {
          cbuf_put(&b, &fill, 1u);
        }
      } else {
        cbuf_put(&b, mt.data, mt.bytes);
      }
    } else {
      const uint32_t k = c->param_op[i];
      for (uint32_t w = 0u; w < c->op_n_words[k]; w++) {
        cbuf_u32(&b, (uint32_t)c->op_words[k][w]);
      }
    }
  }
  if (b.failed) {
    free(b.data);
    free(at);
    return fail(c, UTVM_ERR_COMPILE_MEMORY, "out of memory");
  }
  g->params_blob = b.data;
  g->params_blob_len = b.len;
  for (uint32_t i = 0u; i < g->n_params; i++) {
    g->params[i].data = &b.data[at[i]];
  }
  free(at);
  return UTVM_OK;
}

/* The graph JSON (6.1). */
static utvm_err_t build_json(compiler_t *c, utvm_compiled_graph_t *g, uint32_t first_op_entry) {
  cbuf_t b = {NULL, 0u, 0u, false};
  const uint32_t n_nodes = g->n_entries;
  cbuf_printf(&b, "{\n  \"nodes\": [\n");
  for (uint32_t n = 0u; n < n_nodes; n++) {
    const char *sep = ((n + 1u) < n_nodes) ? "," : "";
    if (n < g->n_inputs) {
      cbuf_printf(&b, "    {\"op\": \"null\", \"name\": \"%s\", \"inputs\": []}%s\n",
                  g->input_names[n], sep);
    } else if (n < first_op_entry) {
      cbuf_printf(&b, "    {\"op\": \"null\", \"name\": \"%s\", \"inputs\": []}%s\n",
                  g->params[n - g->n_inputs].name, sep);
    } else {
      const utvm_compiled_op_t *op = &g->ops[n - first_op_entry];
      cbuf_printf(&b,
                  "    {\"op\": \"tvm_op\", \"name\": \"%s\", \"attrs\": {\"func_name\": \"%s\", "
                  "\"num_inputs\": \"%u\", \"num_outputs\": \"%u\", \"flatten_data\": \"0\"}, "
                  "\"inputs\": [",
                  op->name, op->func_name, op->n_inputs, op->n_outputs);
      for (uint32_t i = 0u; i < op->n_inputs; i++) {
        cbuf_printf(&b, "%s[%u, 0, 0]", (i > 0u) ? ", " : "", op->entries[i]);
      }
      cbuf_printf(&b, "]}%s\n", sep);
    }
  }
  cbuf_printf(&b, "  ],\n  \"arg_nodes\": [");
  for (uint32_t n = 0u; n < first_op_entry; n++) {
    cbuf_printf(&b, "%s%u", (n > 0u) ? ", " : "", n);
  }
  cbuf_printf(&b, "],\n  \"heads\": [");
  for (uint32_t i = 0u; i < g->n_outputs; i++) {
    cbuf_printf(&b, "%s[%u, 0, 0]", (i > 0u) ? ", " : "", g->output_entries[i]);
  }
  cbuf_printf(&b, "],\n  \"attrs\": {\n    \"dltype\": [\"list_str\", [");
  for (uint32_t e = 0u; e < g->n_entries; e++) {
    cbuf_printf(&b, "%s\"%s\"", (e > 0u) ? ", " : "", dtype_name(g->entries[e].dtype));
  }
  cbuf_printf(&b, "]],\n    \"storage_id\": [\"list_int\", [");
  for (uint32_t e = 0u; e < g->n_entries; e++) {
    cbuf_printf(&b, "%s%u", (e > 0u) ? ", " : "", g->entries[e].storage_id);
  }
  cbuf_printf(&b, "]],\n    \"shape\": [\"list_shape\", [");
  for (uint32_t e = 0u; e < g->n_entries; e++) {
    cbuf_printf(&b, "%s[", (e > 0u) ? ", " : "");
    for (uint32_t d = 0u; d < g->entries[e].ndim; d++) {
      cbuf_printf(&b, "%s%lld", (d > 0u) ? ", " : "", (long long)g->entries[e].shape[d]);
    }
    cbuf_printf(&b, "]");
  }
  cbuf_printf(&b, "]]\n  },\n  \"node_row_ptr\": [");
  for (uint32_t n = 0u; n <= n_nodes; n++) {
    cbuf_printf(&b, "%s%u", (n > 0u) ? ", " : "", n);
  }
  cbuf_printf(&b, "]\n}\n");
  if (b.failed) {
    free(b.data);
    return fail(c, UTVM_ERR_COMPILE_MEMORY, "out of memory");
  }
  g->json = (char *)b.data;
  g->json_len = b.len;
  return UTVM_OK;
}

/* Opens the model and initialises the runner (arena included) on copies the compiler owns. */
static utvm_err_t open_model(compiler_t *c, const uint8_t *tflite, size_t size) {
  c->bytes = (uint8_t *)malloc(size);
  if (c->bytes == NULL) {
    return fail(c, UTVM_ERR_COMPILE_MEMORY, "out of memory for the model");
  }
  (void)memcpy(c->bytes, tflite, size);
  utvm_err_t err = utvm_model_open(&c->model, c->bytes, size);
  if (err != UTVM_OK) {
    return fail(c, err, "%s", c->model.error);
  }
  const size_t ws = utvm_runner_workspace_size(&c->model);
  c->workspace = (ws == SIZE_MAX) ? NULL : malloc(ws);
  if (c->workspace == NULL) {
    return fail(c, UTVM_ERR_COMPILE_MEMORY, "out of memory for the runner workspace");
  }
  /* the runner's own plan (inputs and outputs shared): a convolution it runs in place is
   * exported as its in-place kind (59, 60), which the graph executor plans in place again when
   * it can and otherwise runs as the plain kernel */
  const utvm_runner_options_t options = {UTVM_KERNELS_NATIVE, false, &utvm_op_resolver_all,
                                         UTVM_RUNNER_PATCHES_OFF};
  err = utvm_runner_init_with(&c->runner, &c->model, c->workspace, ws, NULL, 0u, &options);
  if (err != UTVM_ERR_RUNNER_ARENA) {
    return fail(c, (err == UTVM_OK) ? UTVM_ERR_RUNNER_ARENA : err, "%s", c->runner.error);
  }
  const size_t arena_size = c->runner.arena_size;
  if (arena_size > (size_t)UTVM_COMPILED_MAX_ARENA) {
    return fail(c, UTVM_ERR_COMPILE_LIMIT, "the model needs an arena of %zu bytes", arena_size);
  }
  c->arena_block = malloc(arena_size + 16u);
  if (c->arena_block == NULL) {
    return fail(c, UTVM_ERR_COMPILE_MEMORY, "out of memory for the arena");
  }
  uint8_t *block = (uint8_t *)c->arena_block;
  uint8_t *arena = &block[(16u - ((uintptr_t)block & 15u)) & 15u];
  err = utvm_runner_init_with(&c->runner, &c->model, c->workspace, ws, arena, arena_size, &options);
  return (err == UTVM_OK) ? UTVM_OK : fail(c, err, "%s", c->runner.error);
}

/* The calls of every operator (one per output) into c->call_op and c->call_output. */
static utvm_err_t list_calls(compiler_t *c) {
  const uint32_t n_ops = c->runner.n_operators;
  uint32_t n = 0u;
  for (uint32_t pass = 0u; pass < 2u; pass++) {
    n = 0u;
    for (uint32_t k = 0u; k < n_ops; k++) {
      uint32_t calls = 0u;
      (void)utvm_runner_op_calls(&c->runner, k, &calls);
      for (uint32_t j = 0u; j < calls; j++) {
        if (pass == 1u) {
          c->call_op[n] = k;
          c->call_output[n] = j;
        }
        n++;
      }
    }
    if (pass == 0u) {
      c->call_op = (uint32_t *)calloc((size_t)n + 1u, sizeof(uint32_t));
      c->call_output = (uint32_t *)calloc((size_t)n + 1u, sizeof(uint32_t));
      if ((c->call_op == NULL) || (c->call_output == NULL)) {
        return fail(c, UTVM_ERR_COMPILE_MEMORY, "out of memory");
      }
    }
  }
  c->n_calls = n;
  return UTVM_OK;
}

/* The name of call k: "op<operator>" or, for an operator with several outputs,
 * "op<operator>_<output>". */
static void call_name(const compiler_t *c, uint32_t k, char *name, size_t cap) {
  const uint32_t op = c->call_op[k];
  const bool several = ((k > 0u) && (c->call_op[k - 1u] == op)) ||
                       (((k + 1u) < c->n_calls) && (c->call_op[k + 1u] == op));
  if (several) {
    (void)snprintf(name, cap, "op%u_%u", op, c->call_output[k]);
  } else {
    (void)snprintf(name, cap, "op%u", op);
  }
}

/* With c->lay_out, call k's constant input laid out for c->core (utvm_op_emit_t.lay_out): p's
 * layout field set and the bytes kept in c->laid_*[k]. */
static utvm_err_t lay_out_call(compiler_t *c, uint32_t k, utvm_op_params_t *p,
                               const utvm_op_operands_t *o) {
  const utvm_op_emit_t *how = utvm_op_kind_emit(p->kind);
  utvm_op_params_t trial = *p;
  uint32_t input = NO_ENTRY;
  size_t bytes = 0u;
  utvm_model_tensor_t mt;
  c->laid_input[k] = NO_ENTRY;
  if (!c->lay_out || (how == NULL) || (how->lay_out == NULL) ||
      !how->lay_out(&trial, c->core, NULL, NULL, 0u, &input, &bytes) || (input >= o->n_inputs) ||
      (utvm_model_tensor(&c->model, o->inputs[input], &mt) != UTVM_OK) || (mt.data == NULL) ||
      mt.variable) {
    return UTVM_OK; /* TFLite's layout */
  }
  c->laid_data[k] = (uint8_t *)malloc(bytes);
  if (c->laid_data[k] == NULL) {
    return fail(c, UTVM_ERR_COMPILE_MEMORY, "out of memory");
  }
  if (!how->lay_out(p, c->core, mt.data, c->laid_data[k], bytes, &input, &bytes)) {
    return fail(c, UTVM_ERR_COMPILE_ARGUMENT, "operator %u: input %u cannot be laid out",
                c->call_op[k], input);
  }
  c->laid_input[k] = input;
  c->laid_bytes[k] = bytes;
  return UTVM_OK;
}

/* Call k's laid-out constant as a parameter of its own (the dtype and size its op params
 * check gives the input). */
static utvm_err_t add_laid_param(compiler_t *c, utvm_compiled_graph_t *g, uint32_t k,
                                 const char *name) {
  utvm_op_params_t p;
  const char *why = "";
  if (utvm_op_params_decode(c->op_words[k], c->op_n_words[k], &p, &why) != UTVM_OK) {
    return fail(c, UTVM_ERR_COMPILE_ARGUMENT, "operator %u: op params: %s", c->call_op[k], why);
  }
  const utvm_op_operand_t *operand = &p.operands[c->laid_input[k]];
  utvm_compiled_param_t *param = &g->params[g->n_params];
  utvm_compiled_entry_t *e = &g->entries[g->n_entries];
  const uint32_t size = (operand->type == UTVM_OP_TYPE_INT16) ? 2u : 1u;
  if ((operand->bytes != c->laid_bytes[k]) || ((operand->type != UTVM_OP_TYPE_INT16) &&
                                              (operand->type != UTVM_OP_TYPE_INT8))) {
    return fail(c, UTVM_ERR_COMPILE_ARGUMENT, "operator %u: laid-out input of %zu bytes",
                c->call_op[k], c->laid_bytes[k]);
  }
  param->state = false;
  param->name = dup_text(name);
  if (param->name == NULL) {
    return fail(c, UTVM_ERR_COMPILE_MEMORY, "out of memory");
  }
  param->entry = g->n_entries;
  param->bytes = c->laid_bytes[k];
  c->param_tensor[g->n_params] = NO_ENTRY;
  c->param_op[g->n_params] = k;
  c->param_laid[g->n_params] = true;
  g->n_params++;
  (void)memset(e, 0, sizeof(*e));
  e->ndim = 1u;
  e->shape[0] = (int64_t)(c->laid_bytes[k] / size);
  e->dtype.code = (uint8_t)kDLInt;
  e->dtype.bits = (uint8_t)(8u * size);
  e->dtype.lanes = 1u;
  e->bytes = (uint64_t)c->laid_bytes[k];
  c->laid_entry[k] = g->n_entries;
  g->n_entries++;
  return UTVM_OK;
}

/* Exports every call's op params and adds the input and parameter entries. */
static utvm_err_t export_ops(compiler_t *c, utvm_compiled_graph_t *g, utvm_op_operands_t *operands) {
  for (uint32_t k = 0u; k < c->n_calls; k++) {
    utvm_op_params_t p;
    const char *why = "";
    const uint32_t op = c->call_op[k];
    utvm_err_t err = utvm_runner_op_params(&c->runner, op, c->call_output[k], &p, &operands[k]);
    if (err != UTVM_OK) {
      return fail(c, UTVM_ERR_COMPILE_LIMIT, "operator %u: more than %u inputs", op,
                  UTVM_OP_PARAMS_MAX_INPUTS);
    }
    if (c->plain_convolutions && (p.kind == UTVM_OP_CONV2D_S8_INPLACE)) {
      p.kind = UTVM_OP_CONV2D_S8;
      p.scratch_bytes = (uint32_t)utvm_conv2d_s8_scratch_size_for(UTVM_KERNELS_NATIVE, &p.dims[0],
                                                                  &p.dims[1], &p.dims[2]);
    } else if (c->plain_convolutions && (p.kind == UTVM_OP_DEPTHWISE_CONV2D_S8_INPLACE)) {
      p.kind = UTVM_OP_DEPTHWISE_CONV2D_S8;
      p.scratch_bytes = (uint32_t)utvm_depthwise_conv2d_s8_scratch_size_for(
          UTVM_KERNELS_NATIVE, &p.dims[0], &p.dims[1], &p.dims[2]);
    } else {
      /* the runner's kind */
    }
    err = lay_out_call(c, k, &p, &operands[k]);
    if (err != UTVM_OK) {
      return err;
    }
    const uint32_t words = utvm_op_params_words(&p);
    c->op_words[k] = (int32_t *)malloc((size_t)words * sizeof(int32_t));
    if (c->op_words[k] == NULL) {
      return fail(c, UTVM_ERR_COMPILE_MEMORY, "out of memory");
    }
    err = utvm_op_params_encode(&p, c->op_words[k], words, &c->op_n_words[k], &why);
    if (err != UTVM_OK) {
      return fail(c, err, "operator %u: op params: %s", op, why);
    }
    g->ops[k].func_name = dup_text(utvm_op_kind_function(p.kind));
    g->ops[k].n_inputs = operands[k].n_inputs + 1u;
    g->ops[k].n_outputs = 1u;
    g->ops[k].entries = (uint32_t *)calloc((size_t)operands[k].n_inputs + 2u, sizeof(uint32_t));
    if ((g->ops[k].func_name == NULL) || (g->ops[k].entries == NULL)) {
      return fail(c, UTVM_ERR_COMPILE_MEMORY, "out of memory");
    }
  }
  return UTVM_OK;
}

static utvm_err_t add_param(compiler_t *c, utvm_compiled_graph_t *g, const char *name, uint32_t tensor,
                            uint32_t op, bool state) {
  utvm_compiled_param_t *p = &g->params[g->n_params];
  p->state = state;
  p->name = dup_text(name);
  if (p->name == NULL) {
    return fail(c, UTVM_ERR_COMPILE_MEMORY, "out of memory");
  }
  p->entry = g->n_entries;
  c->param_tensor[g->n_params] = tensor;
  c->param_op[g->n_params] = op;
  g->n_params++;
  if (tensor != NO_ENTRY) {
    utvm_err_t err = add_tensor_entry(c, g, tensor);
    p->bytes = g->entries[p->entry].bytes;
    return err;
  }
  utvm_compiled_entry_t *e = &g->entries[g->n_entries];
  (void)memset(e, 0, sizeof(*e));
  e->ndim = 1u;
  e->shape[0] = (int64_t)c->op_n_words[op];
  e->dtype.code = (uint8_t)kDLInt;
  e->dtype.bits = 32u;
  e->dtype.lanes = 1u;
  e->bytes = (uint64_t)c->op_n_words[op] * 4u;
  p->bytes = e->bytes;
  c->op_params_entry[op] = g->n_entries;
  g->n_entries++;
  return UTVM_OK;
}

static utvm_err_t build_graph(compiler_t *c, utvm_compiled_graph_t *g) {
  const uint32_t n_tensors = c->model.n_tensors;
  char name[NAME_CAP];
  char call[32];
  utvm_err_t err = list_calls(c);
  if (err != UTVM_OK) {
    return err;
  }
  const uint32_t n_ops = c->n_calls;
  utvm_op_operands_t *operands = (utvm_op_operands_t *)calloc((size_t)n_ops + 1u,
                                                              sizeof(utvm_op_operands_t));
  /* at most: every tensor, one op params and one laid-out constant per call */
  const size_t max_entries = (size_t)n_tensors + (2u * (size_t)n_ops) + 1u;
  c->tensor_entry = (uint32_t *)malloc(((size_t)n_tensors + 1u) * sizeof(uint32_t));
  c->op_words = (int32_t **)calloc((size_t)n_ops + 1u, sizeof(int32_t *));
  c->op_n_words = (uint32_t *)calloc((size_t)n_ops + 1u, sizeof(uint32_t));
  c->op_params_entry = (uint32_t *)calloc((size_t)n_ops + 1u, sizeof(uint32_t));
  c->param_tensor = (uint32_t *)calloc(max_entries, sizeof(uint32_t));
  c->param_op = (uint32_t *)calloc(max_entries, sizeof(uint32_t));
  c->param_laid = (bool *)calloc(max_entries, sizeof(bool));
  c->laid_input = (uint32_t *)calloc((size_t)n_ops + 1u, sizeof(uint32_t));
  c->laid_data = (uint8_t **)calloc((size_t)n_ops + 1u, sizeof(uint8_t *));
  c->laid_bytes = (size_t *)calloc((size_t)n_ops + 1u, sizeof(size_t));
  c->laid_entry = (uint32_t *)calloc((size_t)n_ops + 1u, sizeof(uint32_t));
  g->entries = (utvm_compiled_entry_t *)calloc(max_entries, sizeof(utvm_compiled_entry_t));
  g->ops = (utvm_compiled_op_t *)calloc((size_t)n_ops + 1u, sizeof(utvm_compiled_op_t));
  g->params = (utvm_compiled_param_t *)calloc(max_entries, sizeof(utvm_compiled_param_t));
  g->input_entries = (uint32_t *)calloc((size_t)c->model.n_inputs + 1u, sizeof(uint32_t));
  g->input_names = (char **)calloc((size_t)c->model.n_inputs + 1u, sizeof(char *));
  g->output_entries = (uint32_t *)calloc((size_t)c->model.n_outputs + 1u, sizeof(uint32_t));
  if ((operands == NULL) || (c->tensor_entry == NULL) || (c->op_words == NULL) ||
      (c->op_n_words == NULL) || (c->op_params_entry == NULL) || (c->param_tensor == NULL) ||
      (c->param_op == NULL) || (c->param_laid == NULL) || (c->laid_input == NULL) ||
      (c->laid_data == NULL) || (c->laid_bytes == NULL) || (c->laid_entry == NULL) ||
      (g->entries == NULL) || (g->ops == NULL) ||
      (g->params == NULL) || (g->input_entries == NULL) || (g->input_names == NULL) ||
      (g->output_entries == NULL)) {
    free(operands);
    return fail(c, UTVM_ERR_COMPILE_MEMORY, "out of memory");
  }
  for (uint32_t t = 0u; t < n_tensors; t++) {
    c->tensor_entry[t] = NO_ENTRY;
  }
  g->n_ops = n_ops;
  err = export_ops(c, g, operands);
  /* Model inputs: nodes 0.. in the model's input order. */
  for (uint32_t i = 0u; (err == UTVM_OK) && (i < c->model.n_inputs); i++) {
    uint32_t t = 0u;
    (void)utvm_model_input(&c->model, i, &t);
    if (c->tensor_entry[t] != NO_ENTRY) {
      err = fail(c, UTVM_ERR_COMPILE_LIMIT, "tensor %u is model input twice", t);
      break;
    }
    (void)snprintf(name, sizeof(name), "input%u", i);
    g->input_names[i] = dup_text(name);
    g->input_entries[i] = g->n_entries;
    g->n_inputs++;
    err = (g->input_names[i] == NULL) ? fail(c, UTVM_ERR_COMPILE_MEMORY, "out of memory")
                                      : add_tensor_entry(c, g, t);
  }
  /* Parameters: constants and variable tensors (their initial value) at first use, then each
   * operator's op params. A variable tensor is a parameter so that its storage is its own and
   * outlives a run: the operator updates it in place. */
  for (uint32_t k = 0u; (err == UTVM_OK) && (k < n_ops); k++) {
    for (uint32_t i = 0u; (err == UTVM_OK) && (i < operands[k].n_inputs); i++) {
      const uint32_t t = operands[k].inputs[i];
      utvm_model_tensor_t mt;
      if (c->laid_input[k] == i) {
        call_name(c, k, call, sizeof(call));
        (void)snprintf(name, sizeof(name), "%s_w%u", call, i);
        err = add_laid_param(c, g, k, name);
      } else if ((utvm_model_tensor(&c->model, t, &mt) == UTVM_OK) &&
          ((mt.data != NULL) || mt.variable) && (c->tensor_entry[t] == NO_ENTRY)) {
        (void)snprintf(name, sizeof(name), mt.variable ? "state%u" : "p%u", t);
        err = add_param(c, g, name, t, 0u, mt.variable);
      }
    }
    if (err == UTVM_OK) {
      call_name(c, k, call, sizeof(call));
      (void)snprintf(name, sizeof(name), "%s_params", call);
      err = add_param(c, g, name, NO_ENTRY, k, false);
    }
  }
  const uint32_t first_op_entry = g->n_entries;
  /* Operator nodes, in model order. */
  for (uint32_t k = 0u; (err == UTVM_OK) && (k < n_ops); k++) {
    utvm_compiled_op_t *op = &g->ops[k];
    for (uint32_t i = 0u; i < operands[k].n_inputs; i++) {
      const uint32_t e = (c->laid_input[k] == i) ? c->laid_entry[k]
                                                 : c->tensor_entry[operands[k].inputs[i]];
      if (e == NO_ENTRY) {
        err = fail(c, UTVM_ERR_MODEL_BAD_GRAPH, "operator %u reads tensor %u before it is written",
                   c->call_op[k], operands[k].inputs[i]);
        break;
      }
      op->entries[i] = e;
    }
    if (err != UTVM_OK) {
      break;
    }
    op->entries[operands[k].n_inputs] = c->op_params_entry[k];
    if (c->tensor_entry[operands[k].output] != NO_ENTRY) {
      err = fail(c, UTVM_ERR_MODEL_BAD_GRAPH, "operator %u writes tensor %u a second time",
                 c->call_op[k], operands[k].output);
      break;
    }
    const char *fn = op->func_name;
    call_name(c, k, call, sizeof(call));
    (void)snprintf(name, sizeof(name), "%s_%s", call, &fn[7]); /* without "utvm_k_" */
    op->name = dup_text(name);
    op->entries[op->n_inputs] = g->n_entries;
    err = (op->name == NULL) ? fail(c, UTVM_ERR_COMPILE_MEMORY, "out of memory")
                             : add_tensor_entry(c, g, operands[k].output);
  }
  for (uint32_t i = 0u; (err == UTVM_OK) && (i < c->model.n_outputs); i++) {
    uint32_t t = 0u;
    (void)utvm_model_output(&c->model, i, &t);
    if (c->tensor_entry[t] == NO_ENTRY) {
      err = fail(c, UTVM_ERR_COMPILE_LIMIT, "model output %u (tensor %u) is no operator's output",
                 i, t);
    } else {
      g->output_entries[i] = c->tensor_entry[t];
      g->n_outputs++;
    }
  }
  if ((err == UTVM_OK) && (g->n_inputs == 0u)) {
    err = fail(c, UTVM_ERR_COMPILE_LIMIT, "the model has no input");
  }
  free(operands);
  if (err == UTVM_OK) {
    err = plan_storage(c, g, first_op_entry);
  }
  if (err == UTVM_OK) {
    err = build_blob(c, g);
  }
  if (err == UTVM_OK) {
    err = build_json(c, g, first_op_entry);
  }
  return err;
}

static void compiler_free(compiler_t *c) {
  if (c->op_words != NULL) {
    for (uint32_t k = 0u; k < c->n_calls; k++) {
      free(c->op_words[k]);
    }
  }
  free(c->op_words);
  if (c->laid_data != NULL) {
    for (uint32_t k = 0u; k < c->n_calls; k++) {
      free(c->laid_data[k]);
    }
  }
  free(c->laid_data);
  free(c->laid_input);
  free(c->laid_bytes);
  free(c->laid_entry);
  free(c->param_laid);
  free(c->call_op);
  free(c->call_output);
  free(c->op_n_words);
  free(c->op_params_entry);
  free(c->param_tensor);
  free(c->param_op);
  free(c->tensor_entry);
  free(c->arena_block);
  free(c->workspace);
  free(c->bytes);
}

utvm_err_t utvm_host_compile_generic(const uint8_t *tflite, size_t size, utvm_compiled_graph_t *g,
                                     char *err, size_t err_cap) {
  return utvm_host_compile_generic_with(tflite, size, NULL, g, err, err_cap);
}

utvm_err_t utvm_host_compile_generic_with(const uint8_t *tflite, size_t size,
                                          const utvm_host_compile_options_t *o,
                                          utvm_compiled_graph_t *g, char *err, size_t err_cap) {
  compiler_t c;
  (void)memset(&c, 0, sizeof(c));
  c.plain_convolutions = (o != NULL) && o->plain_convolutions;
  c.lay_out = (o != NULL) && o->lay_out;
  c.core = (o != NULL) ? o->core : UTVM_KERNELS_PORTABLE;
  c.err = err;
  c.err_cap = err_cap;
  if ((err != NULL) && (err_cap > 0u)) {
    err[0] = '\0';
  }
  if (g == NULL) {
    return fail(&c, UTVM_ERR_COMPILE_ARGUMENT, "no graph to fill");
  }
  (void)memset(g, 0, sizeof(*g));
  if ((tflite == NULL) || (size == 0u)) {
    return fail(&c, UTVM_ERR_COMPILE_ARGUMENT, "no model bytes");
  }
  utvm_err_t rc = open_model(&c, tflite, size);
  if (rc == UTVM_OK) {
    rc = build_graph(&c, g);
  }
  compiler_free(&c);
  if (rc != UTVM_OK) {
    utvm_host_graph_free(g);
  }
  return rc;
}

void utvm_host_graph_free(utvm_compiled_graph_t *g) {
  if (g == NULL) {
    return;
  }
  free(g->json);
  free(g->params_blob);
  free(g->entries);
  if (g->ops != NULL) {
    for (uint32_t k = 0u; k < g->n_ops; k++) {
      free(g->ops[k].name);
      free(g->ops[k].func_name);
      free(g->ops[k].entries);
    }
  }
  free(g->ops);
  if (g->params != NULL) {
    for (uint32_t i = 0u; i < g->n_params; i++) {
      free(g->params[i].name);
    }
  }
  free(g->params);
  if (g->input_names != NULL) {
    for (uint32_t i = 0u; i < g->n_inputs; i++) {
      free(g->input_names[i]);
    }
  }
  free(g->input_names);
  free(g->input_entries);
  free(g->output_entries);
  free(g->storage_bytes);
  (void)memset(g, 0, sizeof(*g));
}

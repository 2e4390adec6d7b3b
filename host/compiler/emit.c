/* The standalone code emitter (utvm/host_emit.h): the runner's prepared operators as C. */
#define _DEFAULT_SOURCE

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_internal.h"
#include "utvm/host_emit.h"
#include "utvm/model.h"
#include "utvm/ops.h"
#include "utvm/runner.h"

/* The public bound is the one host_text_t enforces. */
typedef char text_bound_check[(UTVM_EMIT_MAX_BYTES == HOST_TEXT_MAX_BYTES) ? 1 : -1];


void emit_cstring(host_text_t *s, const char *text) {
  size_t i;
  host_text_printf(s, "\"");
  for (i = 0u; (text != NULL) && (text[i] != '\0') && (i < 256u); i++) {
    const unsigned char ch = (unsigned char)text[i];
    if ((ch == '"') || (ch == '\\')) {
      host_text_printf(s, "\\%c", ch);
    } else if ((ch >= 32u) && (ch < 127u) && (ch != '?')) {
      host_text_printf(s, "%c", ch);
    } else {
      host_text_printf(s, "\\%03o", ch);
    }
  }
  host_text_printf(s, "\"");
}

void emit_float(host_text_t *s, float v) { host_text_printf(s, "%af", (double)v); }

const char *utvm_host_emit_kernel_name(uint32_t kind) {
  return utvm_op_kind_kernel((utvm_op_kind_t)kind);
}

utvm_err_t emit_fail(emit_t *e, utvm_err_t code, const char *fmt, ...) {
  if ((e->err != NULL) && (e->err_cap > 0u)) {
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(e->err, e->err_cap, fmt, ap);
    va_end(ap);
  }
  return code;
}

bool emit_name_valid(const char *name) {
  size_t i;
  if ((name == NULL) || !isalpha((unsigned char)name[0])) {
    return false;
  }
  for (i = 0u; name[i] != '\0'; i++) {
    if ((i >= UTVM_EMIT_MAX_NAME) || (!isalnum((unsigned char)name[i]) && (name[i] != '_'))) {
      return false;
    }
  }
  return true;
}

/* Plans the model with options ro (no arena): the arena size and where IO starts. */
static utvm_err_t emit_plan(emit_t *e, size_t ws, const utvm_runner_options_t *ro,
                            size_t *arena_size, size_t *io_offset) {
  const utvm_err_t err =
      utvm_runner_init_with(&e->runner, &e->model, e->workspace, ws, NULL, 0u, ro);
  if (err != UTVM_ERR_RUNNER_ARENA) {
    return emit_fail(e, (err == UTVM_OK) ? UTVM_ERR_EMIT_ARGUMENT : err, "%s", e->runner.error);
  }
  *arena_size = e->runner.arena_size;
  *io_offset = e->runner.io_offset;
  if (*arena_size > (size_t)UTVM_EMIT_MAX_ARENA) {
    return emit_fail(e, UTVM_ERR_EMIT_ARGUMENT, "the model needs an arena of %zu bytes",
                     *arena_size);
  }
  return UTVM_OK;
}

/* Which io[] entry each graph input and output is (the first, for a tensor that is both). */
static utvm_err_t emit_io_map(emit_t *e) {
  uint32_t t;
  uint32_t i;
  e->io_index = (uint32_t *)malloc(((size_t)e->model.n_tensors + 1u) * sizeof(uint32_t));
  if (e->io_index == NULL) {
    return emit_fail(e, UTVM_ERR_EMIT_MEMORY, "out of memory");
  }
  for (t = 0u; t < e->model.n_tensors; t++) {
    e->io_index[t] = UINT32_MAX;
  }
  for (i = 0u; i < (e->model.n_inputs + e->model.n_outputs); i++) {
    const utvm_err_t err = (i < e->model.n_inputs)
                               ? utvm_model_input(&e->model, i, &t)
                               : utvm_model_output(&e->model, i - e->model.n_inputs, &t);
    if (err != UTVM_OK) {
      return emit_fail(e, err, "graph input or output %u cannot be decoded", i);
    }
    if (e->io_index[t] == UINT32_MAX) {
      e->io_index[t] = i;
    } else if (e->io_separate) {
      return emit_fail(e, UTVM_ERR_EMIT_ARGUMENT,
                       "tensor %u is both an input and an output: use --io-in-activations", t);
    } else {
      /* one place in the activations serves both */
    }
  }
  if (e->io_separate && ((e->model.n_inputs + e->model.n_outputs) > UTVM_AI_MAX_IO)) {
    return emit_fail(e, UTVM_ERR_EMIT_ARGUMENT,
                     "%u inputs and outputs: more than %u need --io-in-activations",
                     e->model.n_inputs + e->model.n_outputs, UTVM_AI_MAX_IO);
  }
  return UTVM_OK;
}

/* Opens the model, plans it both ways (IO shared and apart) for the report, and initialises
 * the runner with the chosen placement on an arena of exactly its size. */
static utvm_err_t emit_open(emit_t *e, const uint8_t *tflite, size_t size) {
  size_t arena_size = 0u;
  size_t io_offset = 0u;
  e->bytes = (uint8_t *)malloc(size);
  if (e->bytes == NULL) {
    return emit_fail(e, UTVM_ERR_EMIT_MEMORY, "out of memory for the model");
  }
  (void)memcpy(e->bytes, tflite, size);
  utvm_err_t err = utvm_model_open(&e->model, e->bytes, size);
  if (err != UTVM_OK) {
    return emit_fail(e, err, "%s", e->model.error);
  }
  const size_t ws = utvm_runner_workspace_size(&e->model);
  e->workspace = (ws == SIZE_MAX) ? NULL : malloc(ws);
  if (e->workspace == NULL) {
    return emit_fail(e, UTVM_ERR_EMIT_MEMORY, "out of memory for the runner workspace");
  }
  utvm_runner_options_t ro = {e->o->core, e->io_separate, &utvm_op_resolver_all,
                              UTVM_RUNNER_PATCHES_OFF};
  err = emit_plan(e, ws, &ro, &arena_size, &io_offset);
  e->whole_bytes = e->io_separate ? io_offset : arena_size;
  ro.patches = e->o->patches;
  ro.io_separate = true;
  if (err == UTVM_OK) {
    err = emit_plan(e, ws, &ro, &arena_size, &io_offset);
  }
  e->separate_bytes = io_offset;
  ro.io_separate = false;
  if (err == UTVM_OK) {
    err = emit_plan(e, ws, &ro, &arena_size, &io_offset);
    e->shared_bytes = arena_size;
  }
  ro.io_separate = e->io_separate;
  if (err == UTVM_OK) {
    err = emit_plan(e, ws, &ro, &arena_size, &io_offset);
  }
  if (err != UTVM_OK) {
    return err;
  }
  e->arena_block = malloc(arena_size + EMIT_ALIGN);
  if (e->arena_block == NULL) {
    return emit_fail(e, UTVM_ERR_EMIT_MEMORY, "out of memory for the arena");
  }
  uint8_t *block = (uint8_t *)e->arena_block;
  e->arena = &block[(EMIT_ALIGN - ((uintptr_t)block & (EMIT_ALIGN - 1u))) & (EMIT_ALIGN - 1u)];
  err = utvm_runner_init_with(&e->runner, &e->model, e->workspace, ws, e->arena, arena_size, &ro);
  if (err != UTVM_OK) {
    return emit_fail(e, err, "%s", e->runner.error);
  }
  /* ids 0..n-1: the tensors as TFLite lays them out; n..2n-1: laid out for the core */
  const size_t ids = 2u * (size_t)e->model.n_tensors;
  e->const_offsets = (uint32_t *)malloc((ids + 1u) * sizeof(uint32_t));
  if (e->const_offsets == NULL) {
    return emit_fail(e, UTVM_ERR_EMIT_MEMORY, "out of memory");
  }
  for (size_t t = 0u; t < ids; t++) {
    e->const_offsets[t] = UINT32_MAX;
  }
  return emit_io_map(e);
}

/* Writes NET.h, NET.c and NET_data.c into dir; io[0] and io[1] hold the input and output
 * tables. */
static utvm_err_t emit_files(emit_t *e, const utvm_emit_options_t *o, const char *dir,
                             const utvm_emit_report_t *r, const host_text_t *io);

utvm_err_t emit_finish(emit_t *e, utvm_err_t rc, const char *dir, const utvm_emit_report_t *r,
                       host_text_t *io) {
  utvm_err_t err = rc;
  if ((err == UTVM_OK) && (e->data.failed || e->defs.failed || e->body.failed || io[0].failed ||
                           io[1].failed || e->io_decls.failed || e->io_defs.failed ||
                           e->externs.failed)) {
    err = emit_fail(e, UTVM_ERR_EMIT_MEMORY, "out of memory for the generated code");
  }
  if ((err == UTVM_OK) && (dir != NULL)) {
    err = emit_files(e, e->o, dir, r, io);
  }
  host_text_free(&io[0]);
  host_text_free(&io[1]);
  return err;
}

void emit_free_shared(emit_t *e) {
  free(e->const_offsets);
  e->const_offsets = NULL;
  host_text_free(&e->data);
  host_text_free(&e->defs);
  host_text_free(&e->body);
  host_text_free(&e->externs);
  host_text_free(&e->io_decls);
  host_text_free(&e->io_defs);
  host_text_free(&e->states);
}

static void emit_close(emit_t *e) {
  free(e->stage);
  free(e->stage_operands);
  free(e->io_index);
  free(e->arena_block);
  free(e->workspace);
  free(e->bytes);
  emit_free_shared(e);
}

/* The arena offset of a tensor that lives in the arena. */
static uint32_t arena_offset(const emit_t *e, const utvm_runner_tensor_t *t) {
  return (uint32_t)((const uint8_t *)t->data - e->arena);
}

/* Whether computed tensor t is an input or output with a buffer of its own. */
static bool own_buffer(const emit_t *e, const utvm_runner_tensor_t *t) {
  return e->io_separate && ((size_t)arena_offset(e, t) >= e->runner.io_offset) &&
         (e->io_index[t->tensor] != UINT32_MAX);
}

/* The C expression of a computed tensor: its io[] entry or its place in the activations. */
static void activation_expr(emit_t *e, const utvm_runner_tensor_t *t, char *expr, size_t cap) {
  if (own_buffer(e, t)) {
    (void)snprintf(expr, cap, "io[%u]", e->io_index[t->tensor]);
    e->uses_io = true;
  } else {
    (void)snprintf(expr, cap, "a(act, %uu)", arena_offset(e, t));
    e->uses_a = true;
  }
}

uint32_t emit_constant(emit_t *e, uint32_t id, const void *data, size_t bytes) {
  if (e->const_offsets[id] != UINT32_MAX) {
    return e->const_offsets[id];
  }
  const size_t pad = (EMIT_ALIGN - (e->params_bytes & (EMIT_ALIGN - 1u))) & (EMIT_ALIGN - 1u);
  const uint8_t *b = (const uint8_t *)data;
  size_t i;
  for (i = 0u; i < pad; i++) {
    host_text_printf(&e->data, "0,%s", (((e->params_bytes + i + 1u) % 24u) == 0u) ? "\n" : "");
  }
  e->params_bytes += pad;
  const uint32_t offset = (uint32_t)e->params_bytes;
  const uint32_t n = e->model.n_tensors; /* 0 in the graph back end */
  if ((n > 0u) && (id >= n)) {
    host_text_printf(&e->data, "\n/* %s %u laid out for the core at %u: %zu bytes */\n",
                     e->constant_kind, id - n, offset, bytes);
  } else {
    host_text_printf(&e->data, "\n/* %s %u at %u: %zu bytes */\n", e->constant_kind, id, offset,
                     bytes);
  }
  for (i = 0u; i < bytes; i++) {
    host_text_printf(&e->data, "%u,%s", b[i], (((i + 1u) % 24u) == 0u) ? "\n" : "");
  }
  e->params_bytes += bytes;
  e->const_offsets[id] = offset;
  return offset;
}

/* The C expression of operand tensor index: a weights or an activations pointer. */
static utvm_err_t operand(emit_t *e, uint32_t index, char *expr, size_t cap) {
  utvm_runner_tensor_t t;
  utvm_err_t err = utvm_runner_tensor(&e->runner, index, &t);
  if (err != UTVM_OK) {
    return emit_fail(e, err, "tensor %u has no memory", index);
  }
  if (t.data == NULL) {
    (void)snprintf(expr, cap, "w(%uu)", emit_constant(e, t.tensor, t.const_data, t.bytes));
    e->uses_w = true;
  } else {
    activation_expr(e, &t, expr, cap);
  }
  return UTVM_OK;
}

static void sb_dims(host_text_t *s, const utvm_dims_t *d) {
  host_text_printf(s, "{%d, %d, %d, %d}", d->n, d->h, d->w, d->c);
}

static void sb_shape(host_text_t *s, const utvm_shape_t *sh) {
  int32_t i;
  host_text_printf(s, "{%d, {", sh->rank);
  for (i = 0; i < UTVM_KERNEL_MAX_RANK; i++) {
    host_text_printf(s, "%s%d", (i == 0) ? "" : ", ", sh->dims[i]);
  }
  host_text_printf(s, "}}");
}

/* Per-channel multipliers and shifts of operator k, and its requantization table when the
 * call has one (e->table). */
static void emit_quant(emit_t *e, const char *id, const utvm_per_channel_quant_t *q) {
  int32_t i;
  host_text_printf(&e->defs, "static const int32_t %s_mult[%d] = {", id, q->count);
  for (i = 0; i < q->count; i++) {
    host_text_printf(&e->defs, "%s%d", (i == 0) ? "" : ((i % 8) == 0) ? ",\n    " : ", ",
              q->multiplier[i]);
  }
  host_text_printf(&e->defs, "};\nstatic const int8_t %s_shift[%d] = {", id, q->count);
  for (i = 0; i < q->count; i++) {
    host_text_printf(&e->defs, "%s%d", (i == 0) ? "" : ((i % 16) == 0) ? ",\n    " : ", ", q->shift[i]);
  }
  host_text_printf(&e->defs, "};\n");
  if (e->table_channels > 0) {
    host_text_printf(&e->defs, "static const utvm_requant_entry_t %s_rq[%d] = {", id,
                     e->table_channels);
    for (i = 0; i < e->table_channels; i++) {
      const utvm_requant_entry_t *t = &e->table[i];
      host_text_printf(&e->defs, "%s{%d, %d, %uu, %d, %d, %d}", (i == 0) ? "" : ",\n    ",
                       t->bias, t->multiplier, t->round_lo, t->round_hi, t->shift, t->left);
    }
    host_text_printf(&e->defs, "};\n");
  }
  host_text_printf(&e->defs, "static const utvm_per_channel_quant_t %s_q = {%s_mult, %s_shift, %d, ",
                   id, id, id, q->count);
  if (e->table_channels > 0) {
    host_text_printf(&e->defs, "%s_rq};\n", id);
  } else {
    host_text_printf(&e->defs, "NULL};\n");
  }
}

/* Whether the kind's int8 fast paths read a requantization table ({UTVM_EMIT_QUANT, 1}). */
static bool emit_reads_table(const utvm_op_emit_t *how) {
  bool reads = false;
  for (uint32_t i = 0u; (how != NULL) && (i < UTVM_OP_EMIT_MAX_ARGS) &&
                        (how->args[i].what != (uint8_t)UTVM_EMIT_END);
       i++) {
    if ((how->args[i].what == (uint8_t)UTVM_EMIT_QUANT) && (how->args[i].index == 1u)) {
      reads = true;
    }
  }
  return reads;
}

/* With o->lay_out and o->requant_tables on a DSP or portable core, call p's requantization
 * table made once here (utvm_requant_table_fill) into e->table and e->table_channels, the
 * channels of the output tensor; none (e->table_channels 0) otherwise. Counts the table's
 * bytes in requant_table_option_bytes even without the option (the report's choice).
 * emit_table_done frees it after the call is emitted. */
static utvm_err_t emit_table_make(emit_t *e, uint32_t k, const utvm_op_params_t *p,
                                  const utvm_op_operands_t *o) {
  utvm_runner_tensor_t out;
  utvm_runner_tensor_t bias;
  const int32_t *bias_values = NULL;
  e->table = NULL;
  e->table_channels = 0;
  if (!e->o->lay_out || (e->o->core == UTVM_KERNELS_MVE) ||
      !emit_reads_table(utvm_op_kind_emit(p->kind)) ||
      (utvm_runner_tensor(&e->runner, o->output, &out) != UTVM_OK) || (out.rank == 0u) ||
      (out.dims[out.rank - 1u] < 1)) {
    return UTVM_OK;
  }
  const int32_t channels = out.dims[out.rank - 1u];
  if ((p->has_bias != 0u) && (o->n_inputs > 2u)) {
    if ((utvm_runner_tensor(&e->runner, o->inputs[2], &bias) != UTVM_OK) ||
        (bias.data != NULL) || (bias.bytes != ((size_t)channels * sizeof(int32_t)))) {
      return UTVM_OK; /* not a constant bias of one value per channel: computed per call */
    }
    bias_values = (const int32_t *)bias.const_data;
  }
  utvm_requant_entry_t *table = (utvm_requant_entry_t *)calloc((size_t)channels, sizeof(*table));
  if (table == NULL) {
    return emit_fail(e, UTVM_ERR_EMIT_MEMORY, "out of memory for operator %u's table", k);
  }
  if (utvm_requant_table_fill(&p->quant, bias_values, channels, table) != UTVM_OK) {
    free(table); /* a channel the table form cannot hold: computed per call */
    return UTVM_OK;
  }
  e->requant_table_option_bytes += (size_t)channels * sizeof(*table);
  if (!e->o->requant_tables) {
    free(table);
    return UTVM_OK;
  }
  e->table = table;
  e->table_channels = channels;
  e->requant_table_bytes += (size_t)channels * sizeof(*table);
  return UTVM_OK;
}

static void emit_table_done(emit_t *e) {
  free(e->table);
  e->table = NULL;
  e->table_channels = 0;
}

/* The parameter struct of call id: "static const <type> op<k>_p = {.field = value, ...};"
 * from the kind's field list (every field an int32 word, "name[n]" an array, "name:f" a float
 * written as an exact hexadecimal literal). */
static void emit_params(emit_t *e, const char *id, const utvm_op_emit_t *how, const utvm_op_params_t *p) {
  host_text_t *s = &e->defs;
  int32_t words[sizeof(p->p) / sizeof(int32_t)];
  const char *f = how->params_fields;
  size_t at = 0u;
  (void)memcpy(words, &p->p, sizeof(words));
  host_text_printf(s, "static const %s %s_p = {", how->params_type, id);
  while ((f != NULL) && (*f != '\0') && (at < (sizeof(words) / sizeof(words[0])))) {
    const size_t len = strcspn(f, " [:");
    unsigned long count = 1u;
    host_text_printf(s, "%s.%.*s = ", (at == 0u) ? "" : ", ", (int)len, f);
    f += len;
    if ((f[0] == ':') && (f[1] == 'f')) {
      float v = 0.0f;
      (void)memcpy(&v, &words[at], sizeof(v));
      emit_float(s, v);
      at++;
      f += 2;
      count = 0u;
    } else if (*f == '[') {
      count = strtoul(f + 1, NULL, 10);
      f += strcspn(f, "]") + 1u;
      host_text_printf(s, "{");
    }
    for (unsigned long i = 0u; (i < count) && (at < (sizeof(words) / sizeof(words[0]))); i++) {
      host_text_printf(s, "%s%d", (i == 0u) ? "" : ", ", words[at]);
      at++;
    }
    host_text_printf(s, "%s", (count > 1u) ? "}" : "");
    f += strspn(f, " ");
  }
  host_text_printf(s, "};\n");
}

/* The declarations argument a of call id's call needs (dims, shapes, axes, inputs). */
static void emit_declare(emit_t *e, const char *id, const utvm_op_emit_slot_t *a,
                         const utvm_op_params_t *p, char (*in)[EMIT_EXPR_SIZE], uint32_t n_in) {
  host_text_t *s = &e->defs;
  uint32_t i;
  switch ((utvm_op_emit_arg_t)a->what) {
    case UTVM_EMIT_QUANT:
      emit_quant(e, id, &p->quant);
      break;
    case UTVM_EMIT_DIMS:
      host_text_printf(s, "static const utvm_dims_t %s_d%u = ", id, a->index);
      sb_dims(s, &p->dims[a->index % 3u]);
      host_text_printf(s, ";\n");
      break;
    case UTVM_EMIT_SHAPE:
      host_text_printf(s, "static const utvm_shape_t %s_s%u = ", id, a->index);
      sb_shape(s, &p->shapes[a->index % (UTVM_OP_PARAMS_MAX_INPUTS + 1u)]);
      host_text_printf(s, ";\n");
      break;
    case UTVM_EMIT_SHAPES:
      host_text_printf(s, "static const utvm_shape_t %s_shapes[%u] = {", id, p->n_inputs + 1u);
      for (i = 0u; i <= p->n_inputs; i++) {
        host_text_printf(s, "%s", (i == 0u) ? "" : ",\n    ");
        sb_shape(s, &p->shapes[i]);
      }
      host_text_printf(s, "};\n");
      break;
    case UTVM_EMIT_AXES:
      host_text_printf(s, "static const int32_t %s_axes[%d] = {", id, UTVM_KERNEL_MAX_RANK);
      for (i = 0u; i < (uint32_t)UTVM_KERNEL_MAX_RANK; i++) {
        host_text_printf(s, "%s%d", (i == 0u) ? "" : ", ", p->axes[i]);
      }
      host_text_printf(s, "};\n");
      break;
    case UTVM_EMIT_TABLE:
      host_text_printf(s, "static const int8_t %s_t[256] = {", id);
      for (i = 0u; i < 256u; i++) {
        host_text_printf(s, "%s%d", (i == 0u) ? "" : (((i % 16u) == 0u) ? ",\n    " : ", "),
                         (p->table != NULL) ? p->table[i] : 0);
      }
      host_text_printf(s, "};\n");
      break;
    case UTVM_EMIT_INPUTS:
    case UTVM_EMIT_INPUT_LIST:
      host_text_printf(&e->body, "const %s *const in[%u] = {",
                       (a->what == (uint8_t)UTVM_EMIT_INPUTS) ? "int8_t" : "void", n_in);
      for (i = 0u; i < n_in; i++) {
        host_text_printf(&e->body, "%s%s", (i == 0u) ? "" : ", ", in[i]);
      }
      host_text_printf(&e->body, "};\n    ");
      break;
    default:
      break;
  }
}

/* Argument a of call id's call. */
static void emit_argument(emit_t *e, const char *id, const utvm_op_emit_slot_t *a,
                          const utvm_op_params_t *p, char (*in)[EMIT_EXPR_SIZE], const char *out,
                          const char *scratch) {
  host_text_t *s = &e->body;
  switch ((utvm_op_emit_arg_t)a->what) {
    case UTVM_EMIT_PARAMS: host_text_printf(s, "&%s_p", id); break;
    case UTVM_EMIT_QUANT: host_text_printf(s, "&%s_q", id); break;
    case UTVM_EMIT_DIMS: host_text_printf(s, "&%s_d%u", id, a->index); break;
    case UTVM_EMIT_SHAPE: host_text_printf(s, "&%s_s%u", id, a->index); break;
    case UTVM_EMIT_SHAPES: host_text_printf(s, "%s_shapes", id); break;
    case UTVM_EMIT_OUTPUT_SHAPE: host_text_printf(s, "&%s_shapes[%u]", id, p->n_inputs); break;
    case UTVM_EMIT_INPUT:
    case UTVM_EMIT_STATE: host_text_printf(s, "%s", in[a->index % UTVM_OP_PARAMS_MAX_INPUTS]); break;
    case UTVM_EMIT_INPUTS: host_text_printf(s, "in"); break;
    case UTVM_EMIT_INPUT_LIST: host_text_printf(s, "in"); break;
    case UTVM_EMIT_N_INPUTS: host_text_printf(s, "%u", p->n_inputs); break;
    case UTVM_EMIT_BIAS: host_text_printf(s, "%s", (p->has_bias != 0u) ? in[2] : "NULL"); break;
    case UTVM_EMIT_OUTPUT: host_text_printf(s, "%s", out); break;
    case UTVM_EMIT_SCRATCH: host_text_printf(s, "%s", scratch); break;
    case UTVM_EMIT_SIZE: host_text_printf(s, "%d", p->size); break;
    case UTVM_EMIT_ROWS: host_text_printf(s, "%d", p->size / p->depth); break;
    case UTVM_EMIT_DEPTH: host_text_printf(s, "%d", p->depth); break;
    case UTVM_EMIT_BATCHES: host_text_printf(s, "%d", p->batches); break;
    case UTVM_EMIT_UNITS: host_text_printf(s, "%d", p->units); break;
    case UTVM_EMIT_BYTES: host_text_printf(s, "%uu", p->bytes); break;
    case UTVM_EMIT_ELEMENT_SIZE:
      host_text_printf(s, "%d", (p->type == (int32_t)UTVM_OP_TYPE_INT16) ? 2 : 1);
      break;
    case UTVM_EMIT_LSTM_WEIGHTS:
      host_text_printf(s, "&(const utvm_lstm_weights_t){{%s, %s, %s, %s}, {%s, %s, %s, %s}, "
                       "{%s, %s, %s, %s}}", in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8],
                       in[9], in[10], in[11], in[12]);
      break;
    case UTVM_EMIT_ACCUMULATOR:
      host_text_printf(s, "%s", (p->accumulator == (int32_t)UTVM_ACCUMULATE_32)
                                    ? "UTVM_ACCUMULATE_32" : "UTVM_ACCUMULATE_64");
      break;
    case UTVM_EMIT_SCALE: emit_float(s, p->scale); break;
    case UTVM_EMIT_ZERO_POINT: host_text_printf(s, "%d", p->zero_point); break;
    case UTVM_EMIT_AXIS: host_text_printf(s, "%d", p->axis); break;
    case UTVM_EMIT_AXES: host_text_printf(s, "%s_axes", id); break;
    case UTVM_EMIT_N_AXES: host_text_printf(s, "%d", p->n_axes); break;
    case UTVM_EMIT_TABLE: host_text_printf(s, "%s_t", id); break;
    default: break;
  }
}

/* The variable tensors (tflite back end): their places in the activations and starting bytes,
 * for ai_create and ai_reset_state. */
static utvm_err_t emit_states(emit_t *e) {
  utvm_err_t err = UTVM_OK;
  for (uint32_t i = 0u; (err == UTVM_OK) && (i < e->model.n_tensors); i++) {
    utvm_model_tensor_t mt;
    utvm_runner_tensor_t t;
    err = utvm_model_tensor(&e->model, i, &mt);
    if ((err == UTVM_OK) && mt.variable && (utvm_runner_tensor(&e->runner, i, &t) == UTVM_OK) &&
        (t.data != NULL)) {
      const int32_t value = (mt.type == UTVM_MODEL_INT8) ? mt.quant.zero_point : 0;
      host_text_printf(&e->states, "  (void)memset(&act[%uu], %d, %uu); /* tensor %u (%s) */\n",
                       arena_offset(e, &t), value, (uint32_t)t.bytes, i, mt.name);
      e->n_states++;
    }
  }
  return err;
}

/* With o->lay_out, a constant input of call p laid out for the target core's kernels
 * (utvm_op_emit_t.lay_out): p's layout field set, *laid_input (UINT32_MAX: none) the input
 * and in[*laid_input] the laid-out copy's expression. */
static utvm_err_t emit_lay_out(emit_t *e, uint32_t k, utvm_op_params_t *p,
                               const utvm_op_operands_t *o, char (*in)[EMIT_EXPR_SIZE],
                               uint32_t *laid_input) {
  const utvm_op_emit_t *how = utvm_op_kind_emit(p->kind);
  utvm_op_params_t laid = *p;
  uint32_t input = UINT32_MAX;
  size_t bytes = 0u;
  utvm_runner_tensor_t t;
  *laid_input = UINT32_MAX;
  if (!e->o->lay_out || (how == NULL) || (how->lay_out == NULL) ||
      !how->lay_out(&laid, e->o->core, NULL, NULL, 0u, &input, &bytes) ||
      (input >= o->n_inputs) || (utvm_runner_tensor(&e->runner, o->inputs[input], &t) != UTVM_OK) ||
      (t.data != NULL) || (t.tensor >= e->model.n_tensors)) {
    return UTVM_OK; /* TFLite's layout */
  }
  void *copy = malloc(bytes);
  if (copy == NULL) {
    return emit_fail(e, UTVM_ERR_EMIT_MEMORY, "out of memory for operator %u's constants", k);
  }
  if (!how->lay_out(p, e->o->core, t.const_data, copy, bytes, &input, &bytes)) {
    free(copy);
    return emit_fail(e, UTVM_ERR_EMIT_ARGUMENT, "operator %u: input %u cannot be laid out", k,
                     input);
  }
  const uint32_t id = e->model.n_tensors + t.tensor;
  if (e->const_offsets[id] == UINT32_MAX) {
    e->laid_out_bytes += bytes;
    e->laid_out_from_bytes += t.bytes;
  }
  (void)snprintf(in[input], EMIT_EXPR_SIZE, "w(%uu)", emit_constant(e, id, copy, bytes));
  free(copy);
  *laid_input = input;
  return UTVM_OK;
}

/* The kernel call of operator k (tflite back end): operands from the runner's plan. */
static utvm_err_t emit_call(emit_t *e, uint32_t k, uint32_t j, const utvm_op_params_t *plain,
                            const utvm_op_operands_t *o, utvm_emit_layer_t *layer) {
  utvm_op_params_t laid = *plain;
  const utvm_op_params_t *p = &laid;
  char in[UTVM_OP_PARAMS_MAX_INPUTS][EMIT_EXPR_SIZE];
  char out[EMIT_EXPR_SIZE];
  char scratch[EMIT_EXPR_SIZE] = "NULL";
  uint32_t scratch_offset = UTVM_PLAN_NO_OFFSET;
  utvm_runner_tensor_t ot;
  uint32_t i;
  utvm_err_t err = UTVM_OK;
  uint32_t laid_input = UINT32_MAX;
  err = emit_lay_out(e, k, &laid, o, in, &laid_input);
  if (err != UTVM_OK) {
    return err;
  }
  for (i = 0u; (err == UTVM_OK) && (i < o->n_inputs); i++) {
    if (i != laid_input) {
      err = operand(e, o->inputs[i], in[i], sizeof(in[i]));
    }
  }
  if (err == UTVM_OK) {
    err = utvm_runner_tensor(&e->runner, o->output, &ot);
  }
  if ((err == UTVM_OK) && (ot.data == NULL)) {
    err = UTVM_ERR_RUNNER_ARGUMENT;
  }
  if (err == UTVM_OK) {
    err = utvm_runner_op_scratch(&e->runner, k, &scratch_offset);
  }
  if (err != UTVM_OK) {
    return emit_fail(e, err, "operator %u: operands not in the plan", k);
  }
  activation_expr(e, &ot, out, sizeof(out));
  if ((p->scratch_bytes > 0u) && (scratch_offset != UTVM_PLAN_NO_OFFSET)) {
    (void)snprintf(scratch, sizeof(scratch), "a(act, %uu)", scratch_offset);
    e->uses_a = true;
  }
  (void)snprintf(layer->function, sizeof(layer->function), "%s",
                 utvm_host_emit_kernel_name((uint32_t)p->kind));
  layer->output_bytes = (uint32_t)ot.bytes;
  layer->output_offset = own_buffer(e, &ot) ? UINT32_MAX : arena_offset(e, &ot);
  layer->scratch_bytes = p->scratch_bytes;
  err = emit_table_make(e, k, p, o);
  if (err == UTVM_OK) {
    err = emit_kernel_call(e, k, j, p, in, o->n_inputs, out, scratch);
  }
  emit_table_done(e);
  return err;
}

/* Layer i of the stage as a kernel takes it, pointing into e->stage[i]. */
static void stage_layer_of(const emit_t *e, uint32_t i, utvm_stage_layer_s8_t *layer) {
  const utvm_op_params_t *p = &e->stage[i];
  const bool depthwise = (p->kind == UTVM_OP_DEPTHWISE_CONV2D_S8) ||
                         (p->kind == UTVM_OP_DEPTHWISE_CONV2D_S8_INPLACE);
  const bool tail = p->kind == UTVM_OP_FULLY_CONNECTED_S8;
  layer->conv = (depthwise || tail) ? NULL : &p->p.conv;
  layer->depthwise = depthwise ? &p->p.depthwise : NULL;
  layer->fully_connected = tail ? &p->p.fc : NULL;
  layer->quant = &p->quant;
  layer->dims = p->dims;
  layer->filter = NULL;
  layer->bias = NULL;
}

/* The call of the runner's stage (after its last layer): one utvm_stage_s8 over the layers'
 * parameters emitted by emit_stage_layer, and the stage's figures into *r. */
static utvm_err_t emit_stage_call(emit_t *e, const utvm_op_operands_t *last, const char *input,
                                  utvm_emit_layer_t *layer, utvm_emit_report_t *r) {
  const uint32_t n = e->runner.stage_count;
  const uint32_t first = e->runner.stage_first;
  utvm_stage_shape_t shapes[UTVM_KERNELS_STAGE_MAX_LAYERS];
  utvm_stage_stats_t stats;
  char out[EMIT_EXPR_SIZE];
  char scratch[EMIT_EXPR_SIZE] = "NULL";
  uint32_t scratch_offset = UTVM_PLAN_NO_OFFSET;
  utvm_runner_tensor_t ot;
  utvm_err_t err = utvm_runner_tensor(&e->runner, last->output, &ot);
  for (uint32_t i = 0u; (err == UTVM_OK) && (i < n); i++) {
    utvm_stage_layer_s8_t l;
    stage_layer_of(e, i, &l);
    err = (utvm_stage_s8_shape(e->o->core, &l, &shapes[i]) == UTVM_OK) ? UTVM_OK
                                                                       : UTVM_ERR_EMIT_ARGUMENT;
  }
  if (err == UTVM_OK) {
    err = (utvm_stage_s8_stats(shapes, n, e->runner.patches, &stats) == UTVM_OK)
              ? utvm_runner_op_scratch(&e->runner, first, &scratch_offset)
              : UTVM_ERR_EMIT_ARGUMENT;
  }
  if (err != UTVM_OK) {
    return emit_fail(e, err, "operators %u..%u: the stage cannot be emitted", first,
                     first + n - 1u);
  }
  activation_expr(e, &ot, out, sizeof(out));
  if ((e->runner.stage_scratch > 0u) && (scratch_offset != UTVM_PLAN_NO_OFFSET)) {
    (void)snprintf(scratch, sizeof(scratch), "a(act, %uu)", scratch_offset);
    e->uses_a = true;
  }
  host_text_printf(&e->body, "  if (err == UTVM_OK) { /* operators %u..%u: one stage, %u patches"
                   "%s */\n    const utvm_stage_layer_s8_t stage[%u] = {\n", first,
                   first + n - 1u, e->runner.patches, e->runner.stage_inplace ? ", in place" : "",
                   n);
  for (uint32_t i = 0u; i < n; i++) {
    utvm_stage_layer_s8_t l;
    stage_layer_of(e, i, &l);
    const uint32_t k = first + i;
    if (l.conv != NULL) {
      host_text_printf(&e->body, "        {&op%u_p, NULL, ", k);
    } else if (l.depthwise != NULL) {
      host_text_printf(&e->body, "        {NULL, &op%u_p, ", k);
    } else {
      host_text_printf(&e->body, "        {NULL, NULL, ");
    }
    host_text_printf(&e->body, "&op%u_q, op%u_dims, %s, %s, ", k, k, e->stage_operands[i][0],
                     e->stage_operands[i][1]);
    if (l.fully_connected != NULL) {
      host_text_printf(&e->body, "&op%u_p},\n", k);
    } else {
      host_text_printf(&e->body, "NULL},\n");
    }
  }
  host_text_printf(&e->body, "    };\n    err = utvm_stage_s8(stage, %uu, %uu, %s, %s, %s, %uu);\n"
                   "  }\n", n, e->runner.patches, input, out, scratch, e->runner.stage_scratch);
  layer->output_bytes = (uint32_t)ot.bytes;
  layer->output_offset = own_buffer(e, &ot) ? UINT32_MAX : arena_offset(e, &ot);
  r->stage_first = first;
  r->stage_layers = n;
  r->patches = e->runner.patches;
  r->stage_calls = stats.calls;
  r->stage_copied_bytes = stats.copied_bytes;
  if (e->runner.stage_scratch > r->scratch_bytes) {
    r->scratch_bytes = e->runner.stage_scratch;
  }
  return UTVM_OK;
}

/* Operator k, a layer of the runner's stage: its parameters, multipliers, shifts and dims as
 * definitions and its operands kept; the stage's last layer emits the stage's call. */
static utvm_err_t emit_stage_layer(emit_t *e, uint32_t k, const utvm_op_params_t *p,
                                   const utvm_op_operands_t *o, utvm_emit_layer_t *layer,
                                   utvm_emit_report_t *r) {
  const uint32_t i = k - e->runner.stage_first;
  const utvm_op_emit_t *how = utvm_op_kind_emit(p->kind);
  char id[24];
  utvm_err_t err = UTVM_OK;
  (void)memset(layer, 0, sizeof(*layer));
  layer->output_offset = UINT32_MAX;
  (void)snprintf(layer->function, sizeof(layer->function), "%s",
                 (i == 0u) ? "utvm_stage_s8" : "(in the stage)");
  if ((e->stage == NULL) || (how == NULL) || (how->params_type == NULL) || (o->n_inputs < 2u)) {
    return emit_fail(e, UTVM_ERR_EMIT_ARGUMENT, "operator %u: not a stage layer", k);
  }
  (void)snprintf(id, sizeof(id), "op%u", k);
  e->stage[i] = *p;
  if ((p->kind == UTVM_OP_FULLY_CONNECTED_S8) && (i > 0u)) { /* the tail's dims */
    const utvm_dims_t filter = {p->units, 1, 1, p->depth};
    const utvm_dims_t output = {1, 1, 1, p->units};
    e->stage[i].dims[0] = e->stage[i - 1u].dims[2];
    e->stage[i].dims[1] = filter;
    e->stage[i].dims[2] = output;
  }
  /* A window layer's weights laid out for the core as a call of its own would have them (a
   * FULLY_CONNECTED tail sums its input band by band over TFLite's layout). */
  char in[UTVM_OP_PARAMS_MAX_INPUTS][EMIT_EXPR_SIZE];
  uint32_t laid_input = UINT32_MAX;
  if (p->kind != UTVM_OP_FULLY_CONNECTED_S8) {
    err = emit_lay_out(e, k, &e->stage[i], o, in, &laid_input);
  }
  if (laid_input == 1u) {
    (void)snprintf(e->stage_operands[i][0], sizeof(e->stage_operands[i][0]), "%s", in[1]);
  } else if (err == UTVM_OK) {
    err = operand(e, o->inputs[1], e->stage_operands[i][0], sizeof(e->stage_operands[i][0]));
  } else {
    /* failed: reported */
  }
  (void)snprintf(e->stage_operands[i][1], sizeof(e->stage_operands[i][1]), "NULL");
  if ((err == UTVM_OK) && (p->has_bias != 0u) && (o->n_inputs > 2u)) {
    err = operand(e, o->inputs[2], e->stage_operands[i][1], sizeof(e->stage_operands[i][1]));
  }
  if ((err == UTVM_OK) && (i == 0u)) {
    err = operand(e, o->inputs[0], e->stage_input, sizeof(e->stage_input));
  }
  if (err != UTVM_OK) {
    return err;
  }
  emit_params(e, id, how, &e->stage[i]);
  err = emit_table_make(e, k, p, o);
  if (err != UTVM_OK) {
    return err;
  }
  emit_quant(e, id, &p->quant);
  emit_table_done(e);
  host_text_printf(&e->defs, "static const utvm_dims_t %s_dims[3] = {", id);
  for (uint32_t d = 0u; d < 3u; d++) {
    host_text_printf(&e->defs, "%s", (d == 0u) ? "" : ", ");
    sb_dims(&e->defs, &e->stage[i].dims[d]);
  }
  host_text_printf(&e->defs, "};\n");
  if (i == 0u) {
    layer->scratch_bytes = e->runner.stage_scratch;
  }
  return ((i + 1u) == e->runner.stage_count) ? emit_stage_call(e, o, e->stage_input, layer, r)
                                             : UTVM_OK;
}

utvm_err_t emit_kernel_call(emit_t *e, uint32_t k, uint32_t j, const utvm_op_params_t *p,
                            char (*in)[EMIT_EXPR_SIZE], uint32_t n_in, const char *out,
                            const char *scratch) {
  const utvm_op_emit_t *how = utvm_op_kind_emit(p->kind);
  uint32_t i;
  char id[24];
  if (j == 0u) {
    (void)snprintf(id, sizeof(id), "op%u", k);
  } else {
    (void)snprintf(id, sizeof(id), "op%u_%u", k, j);
  }
  if ((n_in > UTVM_OP_PARAMS_MAX_INPUTS) || (n_in < p->n_inputs) || (n_in == 0u)) {
    return emit_fail(e, UTVM_ERR_EMIT_ARGUMENT, "operator %u: %u operands", k, n_in);
  }
  if (how == NULL) {
    return emit_fail(e, UTVM_ERR_EMIT_ARGUMENT, "operator %u: kind %d has no kernel call", k,
                     (int)p->kind);
  }
  if (how->params_type != NULL) {
    emit_params(e, id, how, p);
  }
  host_text_printf(&e->body, "  if (err == UTVM_OK) { /* operator %u */\n    ", k);
  for (i = 0u; (i < UTVM_OP_EMIT_MAX_ARGS) && (how->args[i].what != (uint8_t)UTVM_EMIT_END); i++) {
    emit_declare(e, id, &how->args[i], p, in, n_in);
  }
  host_text_printf(&e->body, "err = %s(", utvm_op_kind_kernel(p->kind));
  for (i = 0u; (i < UTVM_OP_EMIT_MAX_ARGS) && (how->args[i].what != (uint8_t)UTVM_EMIT_END); i++) {
    host_text_printf(&e->body, "%s", (i == 0u) ? "" : ", ");
    emit_argument(e, id, &how->args[i], p, in, out, scratch);
  }
  host_text_printf(&e->body, ");\n  }\n");
  return UTVM_OK;
}

void emit_io_info(emit_t *e, host_text_t *s, const emit_io_t *io) {
  const char *code = "kDLInt";
  switch (io->dtype.code) {
    case kDLFloat: code = "kDLFloat"; break;
    case kDLUInt: code = "kDLUInt"; break;
    case EMIT_DL_BOOL: code = "6u /* kDLBool */"; break;
    default: break;
  }
  const char *n = e->o->name;
  const char *what = io->input ? "in" : "out";
  host_text_printf(&e->io_decls, "#define AI_%s_%s_%u_SIZE %zuu\n", n, io->input ? "IN" : "OUT",
                   io->index, io->bytes);
  host_text_printf(s, "    {");
  emit_cstring(s, io->name);
  if (!io->own_buffer) {
    host_text_printf(s, ", %uu, NULL", io->offset);
  } else if (e->o->builtin_activations) {
    host_text_printf(s, ", UTVM_AI_OWN_BUFFER, ai_%s_%s%u", n, what, io->index);
    host_text_printf(&e->io_decls, "extern uint8_t ai_%s_%s%u[];\n", n, what, io->index);
    host_text_printf(&e->io_defs, "uint8_t ai_%s_%s%u[%zu] UTVM_AI_SECTION(\".bss.utvm.io\") "
                     "UTVM_AI_ALIGNED;\n", n, what, io->index, (io->bytes > 0u) ? io->bytes : 1u);
  } else {
    host_text_printf(s, ", UTVM_AI_OWN_BUFFER, NULL");
  }
  host_text_printf(s, ", %zuu, {%s, %u, %u}, %u, {", io->bytes, code, io->dtype.bits,
                   io->dtype.lanes, io->rank);
  for (uint32_t d = 0u; d < UTVM_AI_MAX_DIMS; d++) {
    host_text_printf(s, "%s%lld", (d == 0u) ? "" : ", ",
                     (d < io->rank) ? (long long)io->dims[d] : 0LL);
  }
  host_text_printf(s, "}, ");
  emit_float(s, io->scale);
  host_text_printf(s, ", %d},\n", io->zero_point);
}

/* An input or output's ai_tensor_info initializer (tflite back end). */
static utvm_err_t emit_io(emit_t *e, host_text_t *s, bool input, uint32_t i,
                          utvm_emit_report_t *r) {
  utvm_runner_tensor_t t;
  utvm_model_tensor_t mt;
  emit_io_t io;
  const utvm_err_t err = input ? utvm_runner_input(&e->runner, i, &t)
                               : utvm_runner_output(&e->runner, i, &t);
  if ((err != UTVM_OK) || (t.data == NULL) ||
      (utvm_model_tensor(&e->model, t.tensor, &mt) != UTVM_OK)) {
    return emit_fail(e, UTVM_ERR_EMIT_ARGUMENT, "%s %u is not a computed tensor",
                     input ? "input" : "output", i);
  }
  (void)memset(&io, 0, sizeof(io));
  io.dtype.code = (uint8_t)kDLInt;
  io.dtype.bits = 8u;
  io.dtype.lanes = 1u;
  switch (t.type) {
    case UTVM_MODEL_FLOAT32: io.dtype.code = (uint8_t)kDLFloat; io.dtype.bits = 32u; break;
    case UTVM_MODEL_INT32: io.dtype.bits = 32u; break;
    case UTVM_MODEL_UINT8: io.dtype.code = (uint8_t)kDLUInt; break;
    case UTVM_MODEL_INT16: io.dtype.bits = 16u; break;
    case UTVM_MODEL_INT64: io.dtype.bits = 64u; break;
    case UTVM_MODEL_BOOL: io.dtype.code = (uint8_t)EMIT_DL_BOOL; break;
    default: break;
  }
  io.input = input;
  io.index = i;
  io.name = mt.name;
  io.own_buffer = own_buffer(e, &t);
  io.offset = arena_offset(e, &t);
  io.bytes = t.bytes;
  io.rank = (t.rank < UTVM_AI_MAX_DIMS) ? t.rank : UTVM_AI_MAX_DIMS;
  for (uint32_t d = 0u; d < io.rank; d++) {
    io.dims[d] = t.dims[d];
  }
  io.scale = t.scale;
  io.zero_point = t.zero_point;
  emit_io_info(e, s, &io);
  r->io_bytes += t.bytes;
  r->io_aligned_bytes += emit_align_up(t.bytes);
  return UTVM_OK;
}

static utvm_err_t write_text(emit_t *e, const char *dir, const char *name, const char *suffix,
                             const host_text_t *s) {
  char path[1024];
  (void)snprintf(path, sizeof(path), "%s/%s%s", dir, name, suffix);
  if (s->failed) {
    return emit_fail(e, UTVM_ERR_EMIT_MEMORY, "out of memory (or over %zu bytes) for %s",
                     UTVM_EMIT_MAX_BYTES, path);
  }
  FILE *f = fopen(path, "wb");
  bool ok = (f != NULL) && (fwrite(s->bytes.data, 1u, s->bytes.len, f) == s->bytes.len);
  if ((f != NULL) && (fclose(f) != 0)) {
    ok = false;
  }
  return ok ? UTVM_OK : emit_fail(e, UTVM_ERR_EMIT_WRITE, "cannot write %s", path);
}

static void header_comment(host_text_t *s, const utvm_emit_options_t *o, const char *what) {
  host_text_printf(s, "/*\n * %s of network \"%s\" (model %s),\n * generated by %s for the ai_ API "
            "version %u.\n", what, o->name, (o->model_name != NULL) ? o->model_name : "",
            UTVM_EMIT_TOOL_VERSION, UTVM_AI_API_VERSION);
  if (o->date != NULL) {
    host_text_printf(s, " * Created %s.\n", o->date);
  }
  host_text_printf(s, " * Do not edit: run `utvm compile MODEL -o DIR --name %s` again.\n */\n", o->name);
}

/* Writes NET.h, NET.c and NET_data.c. */
static utvm_err_t emit_files(emit_t *e, const utvm_emit_options_t *o, const char *dir,
                             const utvm_emit_report_t *r, const host_text_t *io) {
  const char *n = o->name;
  host_text_t h = {0};
  host_text_t c = {0};
  host_text_t d = {0};
  header_comment(&h, o, "Header");
  host_text_printf(&h, "#ifndef AI_%s_H\n#define AI_%s_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n"
            "#include \"utvm/ai.h\"\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", n, n);
  host_text_printf(&h, "/* Bytes of the activations buffer (%s), of the weights; "
            "inputs, outputs, kernel calls; whether inputs and outputs live in the activations; "
            "the bytes of each input and output. */\n#define AI_%s_ACTIVATIONS_SIZE %zuu\n"
            "#define AI_%s_PARAMS_SIZE %zuu\n#define AI_%s_IN_NUM %uu\n#define AI_%s_OUT_NUM %uu\n"
            "#define AI_%s_NODES %uu\n#define AI_%s_IO_IN_ACTIVATIONS %uu\n%s\n",
            e->io_separate ? "inputs and outputs apart" : "inputs and outputs inside",
            n, r->activations_bytes, n, r->params_bytes, n, r->n_inputs, n, r->n_outputs, n,
            r->n_layers, n, e->io_separate ? 0u : 1u, host_text_str(&e->io_decls));
  if (e->io_separate) {
    host_text_printf(&h, "/* The ai_ library must hold this model's inputs and outputs. */\n"
                     "typedef char ai_%s_io_fits[(%uu <= UTVM_AI_MAX_IO) ? 1 : -1];\n\n", n,
                     r->n_inputs + r->n_outputs);
  }
  host_text_printf(&h, "/* The descriptor, for ai_create() and the other ai_ calls. */\n"
            "extern const ai_model ai_model_%s;\n"
            "/* The weights blob (section .rodata.utvm.weights). */\n"
            "extern const uint8_t ai_%s_params[];\n", n, n);
  if (o->builtin_activations) {
    host_text_printf(&h, "/* The built-in activations buffer (section .bss.utvm.activations)%s. */\n"
              "extern uint8_t ai_%s_activations[];\n",
              e->io_separate ? "; the built-in inputs and outputs (.bss.utvm.io) are above" : "", n);
  }
  host_text_printf(&h, "/* ai_create(&ai_model_%s, ...), ai_run(h), ai_destroy(h). */\n"
            "utvm_err_t ai_%s_create(void *activations, size_t activations_size, "
            "ai_handle *handle);\nutvm_err_t ai_%s_run(ai_handle handle);\n"
            "utvm_err_t ai_%s_destroy(ai_handle handle);\n\n#ifdef __cplusplus\n}\n#endif\n\n"
            "#endif /* AI_%s_H */\n", n, n, n, n, n);

  header_comment(&c, o, "Kernel calls");
  host_text_printf(&c, "#include <stddef.h>\n#include <stdint.h>\n%s\n#include \"%s.h\"\n"
            "#include \"utvm/kernels.h\"\n%s\n", (e->n_states > 0u) ? "#include <string.h>\n" : "",
            n, e->uses_packed ? "#include \"tvm/runtime/c_runtime_api.h\"\n" : "");
  if (e->uses_packed) {
    host_text_printf(&c, "/* The operators' packed functions (TVM's backend signature), defined in "
                     "the model's\n * library (e.g. an MLF archive's codegen/host/src). */\n%s\n"
                     "/* Calls f on the DLTensors t[n] (type code kTVMDLTensorHandle). */\n"
                     "static utvm_err_t call_packed(TVMBackendPackedCFunc f, DLTensor *t, int n) {\n"
                     "  TVMValue values[%u];\n  int codes[%u];\n  TVMValue ret;\n"
                     "  int ret_code = kTVMNullptr;\n  int i;\n"
                     "  for (i = 0; i < n; i++) {\n    values[i].v_handle = &t[i];\n"
                     "    codes[i] = kTVMDLTensorHandle;\n  }\n"
                     "  return (f(values, codes, n, &ret, &ret_code, NULL) == 0) ? UTVM_OK\n"
                     "                                                          : "
                     "UTVM_ERR_AI_RUN;\n}\n\n",
                     host_text_str(&e->externs), UTVM_EMIT_MAX_PACKED_ARGS,
                     UTVM_EMIT_MAX_PACKED_ARGS);
  }
  if (e->uses_w) {
    host_text_printf(&c, "static const void *w(uint32_t offset) { return &ai_%s_params[offset]; }\n", n);
  }
  if (e->uses_wp) {
    host_text_printf(&c, "static void *wp(uint32_t offset) {\n"
                     "  return (void *)(uintptr_t)&ai_%s_params[offset];\n}\n", n);
  }
  if (e->uses_a) {
    host_text_printf(&c, "static void *a(uint8_t *act, uint32_t offset) { return &act[offset]; }\n");
  }
  host_text_printf(&c, "\n%s\nstatic utvm_err_t network(uint8_t *act, void *const *io) {\n"
            "  utvm_err_t err = UTVM_OK;\n%s%s%s  return err;\n}\n\n", host_text_str(&e->defs),
            e->uses_a ? "" : "  (void)act;\n", e->uses_io ? "" : "  (void)io;\n",
            host_text_str(&e->body));
  host_text_printf(&c, "static const ai_tensor_info inputs[%u] = {\n%s};\n", r->n_inputs, host_text_str(&io[0]));
  host_text_printf(&c, "static const ai_tensor_info outputs[%u] = {\n%s};\n\n", r->n_outputs, host_text_str(&io[1]));
  if (e->n_states > 0u) {
    host_text_printf(&c, "/* The variable tensors to their starting values (ai_create, "
                     "ai_reset_state). */\nstatic void reset_state(uint8_t *act) {\n%s}\n\n",
                     host_text_str(&e->states));
  }
  host_text_printf(&c, "const ai_model ai_model_%s = {\n  %uu, \"%s\", \"%s\", ", n,
            UTVM_AI_API_VERSION, n, UTVM_EMIT_TOOL_VERSION);
  emit_cstring(&c, (o->model_name != NULL) ? o->model_name : "");
  host_text_printf(&c, ", ");
  emit_cstring(&c, (o->date != NULL) ? o->date : "");
  host_text_printf(&c, ",\n  %uu, %uu, %uu, inputs, outputs, %zuu, %zuu, ai_%s_params, %s%s%s,\n"
            "  network, ai_%s_create, ai_%s_run, ai_%s_destroy, %s};\n\n", r->n_layers,
            r->n_inputs, r->n_outputs, r->activations_bytes, r->params_bytes, n,
            o->builtin_activations ? "ai_" : "NULL", o->builtin_activations ? n : "",
            o->builtin_activations ? "_activations" : "", n, n, n,
            (e->n_states > 0u) ? "reset_state" : "NULL");
  host_text_printf(&c, "utvm_err_t ai_%s_create(void *activations, size_t activations_size, "
            "ai_handle *handle) {\n  return ai_create(&ai_model_%s, activations, "
            "activations_size, handle);\n}\n\n"
            "utvm_err_t ai_%s_run(ai_handle handle) { return ai_run(handle); }\n\n"
            "utvm_err_t ai_%s_destroy(ai_handle handle) { return ai_destroy(handle); }\n",
            n, n, n, n);

  header_comment(&d, o, "Weights");
  host_text_printf(&d, "#include <stdint.h>\n\n#include \"%s.h\"\n\n", n);
  host_text_printf(&d, "const uint8_t ai_%s_params[%zu] UTVM_AI_SECTION(\".rodata.utvm.weights\") "
            "UTVM_AI_ALIGNED = {%s};\n", n, (r->params_bytes > 0u) ? r->params_bytes : 1u,
            (e->data.bytes.len > 0u) ? host_text_str(&e->data) : "0");
  if (o->builtin_activations) {
    host_text_printf(&d, "\nuint8_t ai_%s_activations[%zu] UTVM_AI_SECTION(\".bss.utvm.activations\") "
              "UTVM_AI_ALIGNED;\n%s", n, (r->activations_bytes > 0u) ? r->activations_bytes : 1u,
              host_text_str(&e->io_defs));
  }
  utvm_err_t err = write_text(e, dir, n, ".h", &h);
  if (err == UTVM_OK) {
    err = write_text(e, dir, n, ".c", &c);
  }
  if (err == UTVM_OK) {
    err = write_text(e, dir, n, "_data.c", &d);
  }
  host_text_free(&h);
  host_text_free(&c);
  host_text_free(&d);
  return err;
}

utvm_err_t utvm_host_emit(const uint8_t *tflite, size_t size, const utvm_emit_options_t *o,
                          const char *dir, utvm_emit_report_t *report, char *err,
                          size_t err_cap) {
  emit_t e;
  utvm_emit_report_t r;
  host_text_t io[2];
  (void)memset(&e, 0, sizeof(e));
  (void)memset(&r, 0, sizeof(r));
  (void)memset(io, 0, sizeof(io));
  e.err = err;
  e.err_cap = err_cap;
  e.o = o;
  e.constant_kind = "tensor";
  if ((err != NULL) && (err_cap > 0u)) {
    err[0] = '\0';
  }
  if ((tflite == NULL) || (size == 0u) || (o == NULL) || !emit_name_valid(o->name)) {
    return emit_fail(&e, UTVM_ERR_EMIT_ARGUMENT,
                     "no model, or the name is not a C identifier of 1 to %u characters",
                     UTVM_EMIT_MAX_NAME);
  }
  if ((o->core != UTVM_KERNELS_PORTABLE) && (o->core != UTVM_KERNELS_DSP) &&
      (o->core != UTVM_KERNELS_MVE)) {
    return emit_fail(&e, UTVM_ERR_EMIT_ARGUMENT, "unknown kernels core %d", (int)o->core);
  }
  e.io_separate = !o->io_in_activations;
  utvm_err_t rc = emit_open(&e, tflite, size);
  if (rc == UTVM_OK) {
    r.n_layers = e.runner.n_operators;
    r.layers = (utvm_emit_layer_t *)calloc((size_t)r.n_layers + 1u, sizeof(utvm_emit_layer_t));
    if (e.runner.stage_count > 0u) {
      e.stage = (utvm_op_params_t *)calloc(UTVM_KERNELS_STAGE_MAX_LAYERS, sizeof(*e.stage));
      e.stage_operands = calloc(UTVM_KERNELS_STAGE_MAX_LAYERS, sizeof(*e.stage_operands));
    }
    if ((r.layers == NULL) ||
        ((e.runner.stage_count > 0u) && ((e.stage == NULL) || (e.stage_operands == NULL)))) {
      rc = emit_fail(&e, UTVM_ERR_EMIT_MEMORY, "out of memory");
    }
  }
  for (uint32_t k = 0u; (rc == UTVM_OK) && (k < r.n_layers); k++) {
    uint32_t calls = 0u;
    uint32_t output_bytes = 0u;
    rc = utvm_runner_op_calls(&e.runner, k, &calls);
    for (uint32_t j = 0u; (rc == UTVM_OK) && (j < calls); j++) {
      utvm_op_params_t p;
      utvm_op_operands_t ops;
      rc = utvm_runner_op_params(&e.runner, k, j, &p, &ops);
      const bool staged = (e.runner.stage_count > 0u) && (k >= e.runner.stage_first) &&
                          ((k - e.runner.stage_first) < e.runner.stage_count);
      if (rc != UTVM_OK) {
        rc = emit_fail(&e, rc, "operator %u has no kernel parameters", k);
      } else if (staged) {
        rc = emit_stage_layer(&e, k, &p, &ops, &r.layers[k], &r); /* kernel: utvm_stage_s8 */
        output_bytes += r.layers[k].output_bytes;
      } else {
        utvm_emit_layer_t layer;
        rc = emit_call(&e, k, j, &p, &ops, &layer);
        output_bytes += layer.output_bytes;
        if (j == 0u) {
          r.layers[k] = layer;
        }
        r.kernels_used[p.kind] = true;
        if (p.scratch_bytes > r.scratch_bytes) {
          r.scratch_bytes = p.scratch_bytes;
        }
      }
    }
    r.layers[k].output_bytes = output_bytes;
  }
  if (rc == UTVM_OK) {
    rc = emit_states(&e);
  }
  if (rc == UTVM_OK) {
    r.n_inputs = e.model.n_inputs;
    r.n_outputs = e.model.n_outputs;
    for (uint32_t i = 0u; (rc == UTVM_OK) && (i < r.n_inputs); i++) {
      rc = emit_io(&e, &io[0], true, i, &r);
    }
    for (uint32_t i = 0u; (rc == UTVM_OK) && (i < r.n_outputs); i++) {
      rc = emit_io(&e, &io[1], false, i, &r);
    }
    r.activations_bytes = e.io_separate ? e.runner.io_offset : e.runner.arena_size;
    r.activations_io_shared_bytes = e.shared_bytes;
    r.activations_io_separate_bytes = e.separate_bytes;
    r.activations_without_patches_bytes = e.whole_bytes;
    r.params_bytes = e.params_bytes;
    r.laid_out_bytes = e.laid_out_bytes;
    r.laid_out_from_bytes = e.laid_out_from_bytes;
    r.requant_table_bytes = e.requant_table_bytes;
    r.requant_table_option_bytes = e.requant_table_option_bytes;
  }
  rc = emit_finish(&e, rc, dir, &r, io);
  emit_close(&e);
  if ((rc == UTVM_OK) && (report != NULL)) {
    *report = r;
  } else {
    free(r.layers);
  }
  return rc;
}

void utvm_host_emit_report_free(utvm_emit_report_t *report) {
  if (report != NULL) {
    free(report->layers);
    (void)memset(report, 0, sizeof(*report));
  }
}

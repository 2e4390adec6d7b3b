/*
 * utvm compile: standalone C for the ai_ API or its memory report (utvm/host_emit.h), the
 * generic compiler's DIR/graph.json and DIR/params.bin (utvm/host_compile.h) or a Model Library
 * Format archive (utvm/host_mlf.h), each with a short report.
 */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "sizes.h"
#include "utvm/host_mlf.h"
#include "utvm/host_compile.h"
#include "utvm/host_emit.h"
#include "utvm/runner.h"

/* What utvm compile writes. */
typedef struct {
  const char *model;
  const char *out_dir;  /* --generic -o DIR: DIR/graph.json and DIR/params.bin, or NULL */
  const char *mlf;      /* --mlf OUT.tar: a Model Library Format archive, or NULL */
  bool aot;             /* --executor aot (else graph) */
  const char *name;     /* --name: the MLF module name ("default") */
  utvm_host_compile_options_t compile; /* --cpu (laid out for its kernels) and --weights */
  const char *cpu;      /* --cpu, or NULL */
  bool json;
} cli_compile_options_t;

/* What utvm compile emits as standalone C (utvm/host_emit.h). */
typedef struct {
  const char *model;
  const char *out_dir;  /* -o DIR: DIR/NET.h, NET.c, NET_data.c; NULL: report only */
  const char *name;     /* --name NET */
  const char *date;     /* --date, or NULL */
  const char *cpu;      /* --cpu: the target core (host, cortex-m4, ...); required */
  const char *sizes;    /* --sizes: a build's utvm-sizes.txt (the report measures), or NULL */
  const char *params;   /* --params: a graph JSON model's parameter blob, or NULL */
  bool builtin_activations;
  bool io_in_activations;
  uint32_t patches;     /* --patches (utvm_runner_options_t.patches) */
  bool lay_out;         /* not --weights tflite (utvm_emit_options_t.lay_out) */
  bool requant_tables;  /* --requant tables (utvm_emit_options_t.requant_tables) */
  bool json;
} cli_emit_options_t;

/* Largest model compile reads. */
#define COMPILE_MAX_MODEL_BYTES ((size_t)64u << 20)

static int compile_error(bool json, int code, const char *kind, const char *msg) {
  (void)fprintf(stderr, "utvm: %s\n", msg);
  if (code == CLI_EXIT_USAGE) {
    (void)fprintf(stderr, "(run 'utvm compile --help' for usage)\n");
  }
  if (json) {
    (void)printf("{\"ok\": false, \"exit_code\": %d, \"kind\": \"%s\", \"error\": ", code, kind);
    cli_json_string(stdout, msg, strlen(msg));
    (void)printf("}\n");
  }
  return code;
}

/* The whole file in a heap block, or NULL with msg set. */
static uint8_t *read_all(const char *path, size_t *size, char *msg, size_t cap) {
  struct stat st;
  FILE *f = fopen(path, "rb");
  if ((f == NULL) || (fstat(fileno(f), &st) != 0) || !S_ISREG(st.st_mode) ||
      (st.st_size <= 0) || ((uint64_t)st.st_size > (uint64_t)COMPILE_MAX_MODEL_BYTES)) {
    (void)snprintf(msg, cap, "cannot read model %s: %s", path,
                   (f == NULL) ? strerror(errno) : "not a regular file of 1 byte to 64 MiB");
    if (f != NULL) {
      (void)fclose(f);
    }
    return NULL;
  }
  *size = (size_t)st.st_size;
  uint8_t *data = (uint8_t *)malloc(*size);
  if ((data != NULL) && (fread(data, 1u, *size, f) != *size)) {
    free(data);
    data = NULL;
  }
  (void)fclose(f);
  if (data == NULL) {
    (void)snprintf(msg, cap, "cannot read model %s: short read or out of memory", path);
  }
  return data;
}

static bool write_file(const char *dir, const char *name, const void *data, size_t size,
                       char *msg, size_t cap) {
  char path[512];
  (void)snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  bool ok = (f != NULL) && (fwrite(data, 1u, size, f) == size);
  if ((f != NULL) && (fclose(f) != 0)) {
    ok = false;
  }
  if (!ok) {
    (void)snprintf(msg, cap, "cannot write %.400s: %.200s", path, strerror(errno));
  }
  return ok;
}

/* Creates dir unless it exists; *created says whether this call made it. False with msg set
 * when it can be neither made nor found. */
static bool make_out_dir(const char *dir, bool *created, char *msg, size_t cap) {
  *created = mkdir(dir, 0777) == 0;
  if (!*created && (errno != EEXIST)) {
    (void)snprintf(msg, cap, "cannot create %s: %s", dir, strerror(errno));
    return false;
  }
  return true;
}

/* After a failed compile: when this run created dir, removes the files it may have written
 * there (dir/<stem><suffix> for each suffix) and dir itself; a directory that existed before
 * stays as it is. */
static void remove_out_dir(const char *dir, bool created, const char *stem,
                           const char *const *suffixes, size_t n_suffixes) {
  if (created) {
    char path[4096];
    for (size_t i = 0u; i < n_suffixes; i++) {
      (void)snprintf(path, sizeof(path), "%s/%s%s", dir, stem, suffixes[i]);
      (void)remove(path);
    }
    (void)rmdir(dir);
  }
}

static bool cli_kernels_core(const char *cpu, utvm_kernels_core_t *core);

/* Whether utvm builds its float32 operators for cpu (NULL: the host's): not on the cores
 * without a single-precision FPU, whose builds have UTVM_HAVE_F32 0 (utvm/kernels.h). */
static bool cpu_has_f32(const char *cpu) {
  static const char *const no_fpu[] = {"cortex-m0", "cortex-m0plus", "cortex-m3"};
  bool has = true;
  for (size_t i = 0u; (cpu != NULL) && (i < (sizeof(no_fpu) / sizeof(no_fpu[0]))); i++) {
    has = has && (strcmp(cpu, no_fpu[i]) != 0);
  }
  return has;
}

/* A model with a float32 operator (g, compiled) for a --cpu without float32 operators: false
 * with the text in msg; true otherwise. */
static bool cpu_runs_graph(const char *cpu, const char *model, const utvm_compiled_graph_t *g,
                           char *msg, size_t cap) {
  const utvm_compiled_op_t *f32 = cpu_has_f32(cpu) ? NULL : cli_first_f32_op(g);
  if (f32 != NULL) {
    (void)snprintf(msg, cap, "%s: --cpu %s has no FPU: utvm builds no float32 operators for it "
                   "(UTVM_HAVE_F32 0), and the model has %s; give a core with an FPU "
                   "(cortex-m4, cortex-m7, cortex-m33, cortex-m55, ...) or an int8 model",
                   model, cpu, f32->name);
  }
  return f32 == NULL;
}

/* cpu_runs_graph for a model file's bytes (compiled here for the check); a model the generic
 * compiler refuses passes (the emitter reports it). */
static bool cpu_runs_model(const char *cpu, const char *model, const uint8_t *data,
                           size_t size, char *msg, size_t cap) {
  char err[512];
  utvm_compiled_graph_t g;
  bool runs = true;
  if (!cpu_has_f32(cpu) &&
      (utvm_host_compile_generic(data, size, &g, err, sizeof(err)) == UTVM_OK)) {
    runs = cpu_runs_graph(cpu, model, &g, msg, cap);
    utvm_host_graph_free(&g);
  }
  return runs;
}

/* utvm compile --generic / --mlf: writes the files of c for its model; returns the exit code
 * (0 ok, 2 usage or files, 4 a model refused). */
static int compile_files(const cli_compile_options_t *c) {
  const char *model = c->model;
  const char *out_dir = c->out_dir;
  bool json = c->json;
  char msg[1024];
  char err[512];
  size_t size = 0u;
  utvm_compiled_graph_t g;
  uint8_t *data = read_all(model, &size, msg, sizeof(msg));
  if (data == NULL) {
    return compile_error(json, CLI_EXIT_USAGE, "usage", msg);
  }
  const utvm_err_t rc =
      utvm_host_compile_generic_with(data, size, &c->compile, &g, err, sizeof(err));
  free(data);
  if (rc != UTVM_OK) {
    (void)snprintf(msg, sizeof(msg), "%s: %s: %s", model, utvm_strerror(rc), err);
    return compile_error(json, CLI_EXIT_DEVICE_ERROR, "model", msg);
  }
  if (!cpu_runs_graph(c->cpu, model, &g, msg, sizeof(msg))) {
    utvm_host_graph_free(&g);
    return compile_error(json, CLI_EXIT_DEVICE_ERROR, "model", msg);
  }
  if (c->mlf != NULL) {
    const utvm_err_t mlf_rc = utvm_host_write_mlf(&g, c->aot ? UTVM_MLF_AOT : UTVM_MLF_GRAPH,
                                                  c->name, c->mlf, err, sizeof(err));
    if (mlf_rc != UTVM_OK) {
      (void)snprintf(msg, sizeof(msg), "%s: %s", c->mlf, err);
      utvm_host_graph_free(&g);
      return compile_error(json, (mlf_rc == UTVM_ERR_FUNC_CALL_INVALID_ARG) ? CLI_EXIT_USAGE
                                                                             : CLI_EXIT_DEVICE_ERROR,
                           "usage", msg);
    }
    if (!json) {
      (void)printf("wrote %s (Model Library Format, %s executor, module \"%s\")\n", c->mlf,
                   c->aot ? "aot" : "graph", c->name);
    }
  }
  if (out_dir == NULL) {
    if (json) {
      (void)printf("{\"ok\": true, \"mlf\": ");
      cli_json_string(stdout, c->mlf, strlen(c->mlf));
      (void)printf(", \"executor\": \"%s\", \"operators\": %u, \"activation_bytes\": %llu, "
                   "\"parameter_bytes\": %llu}\n", c->aot ? "aot" : "graph", g.n_ops,
                   (unsigned long long)g.activation_bytes, (unsigned long long)g.param_bytes);
    }
    utvm_host_graph_free(&g);
    return CLI_EXIT_OK;
  }
  static const char *const generic_files[] = {"graph.json", "params.bin"};
  bool created = false;
  if (!make_out_dir(out_dir, &created, msg, sizeof(msg))) {
    utvm_host_graph_free(&g);
    return compile_error(json, CLI_EXIT_USAGE, "usage", msg);
  }
  if (!write_file(out_dir, generic_files[0], g.json, g.json_len, msg, sizeof(msg)) ||
      !write_file(out_dir, generic_files[1], g.params_blob, g.params_blob_len, msg,
                  sizeof(msg))) {
    utvm_host_graph_free(&g);
    remove_out_dir(out_dir, created, "", generic_files, 2u);
    return compile_error(json, CLI_EXIT_USAGE, "usage", msg);
  }
  uint64_t storage = 0u;
  for (uint32_t s = 0u; s < g.n_storage; s++) {
    storage += g.storage_bytes[s];
  }
  if (json) {
    (void)printf("{\"ok\": true, \"graph\": ");
    char path[4096];
    (void)snprintf(path, sizeof(path), "%s/graph.json", out_dir);
    cli_json_string(stdout, path, strlen(path));
    (void)snprintf(path, sizeof(path), "%s/params.bin", out_dir);
    (void)printf(", \"params\": ");
    cli_json_string(stdout, path, strlen(path));
    (void)printf(", \"operators\": %u, \"entries\": %u, \"parameters\": %u, \"storage_ids\": %u, "
                 "\"storage_bytes\": %llu, \"activation_bytes\": %llu, \"parameter_bytes\": %llu, "
                 "\"params_blob_bytes\": %zu}\n",
                 g.n_ops, g.n_entries, g.n_params, g.n_storage, (unsigned long long)storage,
                 (unsigned long long)g.activation_bytes, (unsigned long long)g.param_bytes,
                 g.params_blob_len);
  } else {
    (void)printf("wrote %s/graph.json (%zu bytes) and %s/params.bin (%zu bytes)\n", out_dir,
                 g.json_len, out_dir, g.params_blob_len);
    (void)printf("operators          %u\n", g.n_ops);
    (void)printf("entries            %u (%u parameters)\n", g.n_entries, g.n_params);
    (void)printf("storage            %u ids, %llu bytes (activations and inputs %llu)\n",
                 g.n_storage, (unsigned long long)storage, (unsigned long long)g.activation_bytes);
    (void)printf("parameters         %llu bytes\n", (unsigned long long)g.param_bytes);
  }
  utvm_host_graph_free(&g);
  return CLI_EXIT_OK;
}

/* The kernels a --cpu value runs (NULL: the host's, portable); false for an unknown name. */
static bool cli_kernels_core(const char *cpu, utvm_kernels_core_t *core) {
  static const char *const portable[] = {"host", "cortex-m0", "cortex-m0plus", "cortex-m3"};
  static const char *const dsp[] = {"cortex-m4", "cortex-m7", "cortex-m33", "cortex-m35p"};
  static const char *const mve[] = {"cortex-m55", "cortex-m85"};
  size_t i;
  *core = UTVM_KERNELS_PORTABLE;
  if (cpu == NULL) {
    return true;
  }
  for (i = 0u; i < (sizeof(portable) / sizeof(portable[0])); i++) {
    if (strcmp(cpu, portable[i]) == 0) {
      return true;
    }
  }
  for (i = 0u; i < (sizeof(dsp) / sizeof(dsp[0])); i++) {
    if (strcmp(cpu, dsp[i]) == 0) {
      *core = UTVM_KERNELS_DSP;
      return true;
    }
  }
  for (i = 0u; i < (sizeof(mve) / sizeof(mve[0])); i++) {
    if (strcmp(cpu, mve[i]) == 0) {
      *core = UTVM_KERNELS_MVE;
      return true;
    }
  }
  return false;
}

/* The measured memory of a model (docs/AI.md, "The memory report"): rows of the table's
 * kernels, the compiled network code and weights, the ai_ runtime and what it pulls in. */
typedef struct {
  bool measured;
  cli_sz_row_t kernels;
  cli_sz_row_t network;
  cli_sz_row_t weights;
  cli_sz_row_t runtime;
  cli_sz_row_t total;
  uint32_t kernel_flash[UTVM_OP_KIND_MAX + 1]; /* each kernel alone: its text + rodata + data */
  uint32_t stage_flash;      /* utvm_stage_s8 alone (a model with patches) */
} emit_memory_t;

/* The kernel a patch-by-patch stage calls (its layers' kernels through it). */
static const char kStageKernel[] = "utvm_stage_s8";

static const char *const memory_rows[4] = {"kernels", "network", "weights", "runtime"};

static uint64_t row_flash(const cli_sz_row_t *r) {
  return r->bytes[CLI_SZ_TEXT] + r->bytes[CLI_SZ_RODATA] + r->bytes[CLI_SZ_DATA];
}

static uint64_t row_ram(const cli_sz_row_t *r) {
  return r->bytes[CLI_SZ_DATA] + r->bytes[CLI_SZ_BSS];
}

/* The kernel paths the core takes for the kernels the model calls, e.g. "DSP fast paths
 * (*_s8_dsp.c) for CONV_2D, FULLY_CONNECTED". */
static void kernel_paths(utvm_kernels_core_t core, const bool *used, char *text, size_t cap) {
  static const uint32_t kinds[4] = {UTVM_OP_CONV2D_S8, UTVM_OP_DEPTHWISE_CONV2D_S8,
                                    UTVM_OP_FULLY_CONNECTED_S8, UTVM_OP_ADD_S8};
  static const char *const names[4] = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED",
                                       "ADD"};
  const uint32_t n_fast = (core == UTVM_KERNELS_MVE) ? 4u : 3u;
  size_t len = (size_t)snprintf(text, cap, "%s", (core == UTVM_KERNELS_MVE)
                                                     ? "MVE fast paths (*_s8_mve.c)"
                                                 : (core == UTVM_KERNELS_DSP)
                                                     ? "DSP fast paths (*_s8_dsp.c)"
                                                     : "blocked portable C (*_s8_blocked.c)");
  bool any = false;
  for (uint32_t i = 0u; (i < n_fast) && (len < cap); i++) {
    /* the in-place convolutions run the same kernels, a row at a time */
    const bool inplace = ((i == 0u) && used[UTVM_OP_CONV2D_S8_INPLACE]) ||
                         ((i == 1u) && used[UTVM_OP_DEPTHWISE_CONV2D_S8_INPLACE]);
    if (used[kinds[i]] || inplace) {
      len += (size_t)snprintf(&text[len], cap - len, "%s%s", any ? ", " : " for ", names[i]);
      any = true;
    }
  }
  if (!any) {
    (void)snprintf(text, cap, "reference loops only (no operator with a fast path)");
  }
}

/* Measures the model emitted as NET.c and NET_data.c in dir with the table t into *m. */
static bool emit_measure(const cli_sizes_t *t, const char *dir, const char *name,
                         const bool *used, bool stage, emit_memory_t *m, char *msg,
                         size_t cap) {
  const char *groups[UTVM_OP_KIND_MAX + 2];
  uint32_t n = 0u;
  char src[1024];
  char obj[1024];
  (void)memset(m, 0, sizeof(*m));
  for (uint32_t k = 1u; k <= (uint32_t)UTVM_OP_KIND_MAX; k++) {
    if (used[k]) {
      groups[n] = utvm_host_emit_kernel_name(k);
      if (!cli_sizes_has_group(t, groups[n])) {
        (void)snprintf(msg, cap, "--sizes: the table has no figures for %s", groups[n]);
        return false;
      }
      cli_sz_row_t alone;
      cli_sizes_union(t, &groups[n], 1u, NULL, false, &alone);
      m->kernel_flash[k] = (uint32_t)row_flash(&alone);
      n++;
    }
  }
  if (stage) {
    groups[n] = kStageKernel;
    if (!cli_sizes_has_group(t, groups[n])) {
      (void)snprintf(msg, cap, "--sizes: the table has no figures for %s", groups[n]);
      return false;
    }
    cli_sz_row_t alone;
    cli_sizes_union(t, &groups[n], 1u, NULL, false, &alone);
    m->stage_flash = (uint32_t)row_flash(&alone);
    n++;
  }
  groups[n++] = "ai_runtime";
  if (!cli_sizes_has_group(t, "ai_runtime")) {
    (void)snprintf(msg, cap, "--sizes: the table has no figures for the ai_ runtime");
    return false;
  }
  cli_sizes_union(t, groups, n - 1u, "libutvm_kernels.a(", false, &m->kernels);
  cli_sizes_union(t, groups, n, "libutvm_kernels.a(", true, &m->runtime);
  const char *suffix[2] = {".c", "_data.c"};
  cli_sz_row_t *rows[2] = {&m->network, &m->weights};
  for (uint32_t i = 0u; i < 2u; i++) {
    (void)snprintf(src, sizeof(src), "%s/%s%s", dir, name, suffix[i]);
    (void)snprintf(obj, sizeof(obj), "%s/%s%s.o", dir, name, suffix[i]);
    const bool ok = cli_sizes_compile(t, dir, src, obj, rows[i], msg, cap);
    (void)remove(obj);
    if (!ok) {
      return false;
    }
  }
  const cli_sz_row_t *all[4] = {&m->kernels, &m->network, &m->weights, &m->runtime};
  for (uint32_t r = 0u; r < 4u; r++) {
    for (uint32_t k = 0u; k < (uint32_t)CLI_SZ_KINDS; k++) {
      m->total.bytes[k] += all[r]->bytes[k];
    }
  }
  m->measured = true;
  return true;
}

static void json_row(const char *key, const cli_sz_row_t *r, bool last) {
  (void)printf("\"%s\": {\"text\": %llu, \"rodata\": %llu, \"data\": %llu, \"bss\": %llu, "
               "\"flash\": %llu, \"ram\": %llu}%s", key,
               (unsigned long long)r->bytes[CLI_SZ_TEXT],
               (unsigned long long)r->bytes[CLI_SZ_RODATA],
               (unsigned long long)r->bytes[CLI_SZ_DATA], (unsigned long long)r->bytes[CLI_SZ_BSS],
               (unsigned long long)row_flash(r), (unsigned long long)row_ram(r), last ? "" : ", ");
}

/* The report's "activations_without_patches_bytes" and "patches" members, then "layers": [. */
static void patches_json(const utvm_emit_report_t *r) {
  (void)printf("\"activations_without_patches_bytes\": %zu, \"patches\": ",
               r->activations_without_patches_bytes);
  if (r->stage_layers == 0u) {
    (void)printf("null, ");
  } else {
    (void)printf("{\"first_operator\": %u, \"layers\": %u, \"patches\": %u, "
                 "\"kernel_calls\": %llu, \"copied_bytes\": %llu, \"recomputed_macs\": 0}, ",
                 r->stage_first, r->stage_layers, r->patches,
                 (unsigned long long)r->stage_calls, (unsigned long long)r->stage_copied_bytes);
  }
  (void)printf("\"layers\": [");
}

/* The report's patches line. */
static void patches_text(const utvm_emit_report_t *r) {
  if (r->stage_layers == 0u) {
    (void)printf("patches            none (--patches auto|N|off)\n");
    return;
  }
  (void)printf("patches            operators %u..%u as one stage in %u patches: activations %zu "
               "bytes, %zu without\n"
               "  extra work       %llu kernel calls instead of %u, %llu bytes moved in line "
               "buffers, nothing computed twice\n",
               r->stage_first, r->stage_first + r->stage_layers - 1u, r->patches,
               r->activations_bytes, r->activations_without_patches_bytes,
               (unsigned long long)r->stage_calls, r->stage_layers,
               (unsigned long long)r->stage_copied_bytes);
}

static void emit_report_json(const cli_emit_options_t *e, const utvm_emit_report_t *r,
                             const emit_memory_t *m, const char *paths) {
  const cli_sz_row_t *rows[4] = {&m->kernels, &m->network, &m->weights, &m->runtime};
  char flash[24] = "null";
  if (m->measured) {
    (void)snprintf(flash, sizeof(flash), "%llu", (unsigned long long)row_flash(&m->kernels));
  }
  (void)printf("{\"ok\": true, \"model\": ");
  cli_json_string(stdout, e->model, strlen(e->model));
  (void)printf(", \"name\": ");
  cli_json_string(stdout, e->name, strlen(e->name));
  (void)printf(", \"cpu\": \"%s\", \"kernel_paths\": \"%s\", \"activations_bytes\": %zu, "
               "\"io_in_activations\": %s, \"io_bytes\": %zu, \"io_aligned_bytes\": %zu, "
               "\"activations_io_shared_bytes\": %zu, \"activations_io_separate_bytes\": %zu, "
               "\"params_bytes\": %zu, \"laid_out_bytes\": %zu, \"laid_out_from_bytes\": %zu, "
               "\"requant_table_bytes\": %zu, \"requant_table_option_bytes\": %zu, "
               "\"scratch_bytes\": %zu, \"kernel_flash_bytes\": %s, "
               "\"inputs\": %u, \"outputs\": %u, ",
               e->cpu, paths, r->activations_bytes, e->io_in_activations ? "true" : "false",
               r->io_bytes, r->io_aligned_bytes, r->activations_io_shared_bytes,
               r->activations_io_separate_bytes, r->params_bytes, r->laid_out_bytes,
               r->laid_out_from_bytes, r->requant_table_bytes, r->requant_table_option_bytes,
               r->scratch_bytes, flash, r->n_inputs, r->n_outputs);
  patches_json(r);
  for (uint32_t k = 0u; k < r->n_layers; k++) {
    char offset[16] = "null";
    if (r->layers[k].output_offset != UINT32_MAX) {
      (void)snprintf(offset, sizeof(offset), "%u", r->layers[k].output_offset);
    }
    (void)printf("%s{\"kernel\": \"%s\", \"output_bytes\": %u, \"output_offset\": %s, "
                 "\"scratch_bytes\": %u}", (k == 0u) ? "" : ", ", r->layers[k].function,
                 r->layers[k].output_bytes, offset, r->layers[k].scratch_bytes);
  }
  (void)printf("], \"kernels\": [");
  bool first = true;
  for (uint32_t k = 1u; k <= (uint32_t)UTVM_OP_KIND_MAX; k++) {
    if (r->kernels_used[k]) {
      char alone[16] = "null";
      if (m->measured) {
        (void)snprintf(alone, sizeof(alone), "%u", m->kernel_flash[k]);
      }
      (void)printf("%s{\"kernel\": \"%s\", \"flash_bytes\": %s}", first ? "" : ", ",
                   utvm_host_emit_kernel_name(k), alone);
      first = false;
    }
  }
  if (r->stage_layers > 0u) {
    char alone[16] = "null";
    if (m->measured) {
      (void)snprintf(alone, sizeof(alone), "%u", m->stage_flash);
    }
    (void)printf("%s{\"kernel\": \"%s\", \"flash_bytes\": %s}", first ? "" : ", ",
                 kStageKernel, alone);
  }
  (void)printf("], \"memory\": ");
  if (!m->measured) {
    (void)printf("null}\n");
    return;
  }
  (void)printf("{\"sizes\": ");
  cli_json_string(stdout, e->sizes, strlen(e->sizes));
  (void)printf(", ");
  for (uint32_t i = 0u; i < 4u; i++) {
    json_row(memory_rows[i], rows[i], false);
  }
  json_row("total", &m->total, true);
  (void)printf("}}\n");
}

static void text_row(const char *label, const cli_sz_row_t *r) {
  (void)printf("  %-16s %8llu %8llu %8llu %8llu %8llu %8llu\n", label,
               (unsigned long long)r->bytes[CLI_SZ_TEXT],
               (unsigned long long)r->bytes[CLI_SZ_RODATA],
               (unsigned long long)r->bytes[CLI_SZ_DATA], (unsigned long long)r->bytes[CLI_SZ_BSS],
               (unsigned long long)row_flash(r), (unsigned long long)row_ram(r));
}

static void emit_report_print(const cli_emit_options_t *e, const utvm_emit_report_t *r,
                              const emit_memory_t *m, const char *paths) {
  if (e->json) {
    emit_report_json(e, r, m, paths);
    return;
  }
  (void)printf("model              %s\n", e->model);
  (void)printf("cpu                %s: %s\n", e->cpu, paths);
  (void)printf("activations        %zu bytes (%s)\n", r->activations_bytes,
               e->io_in_activations ? "inputs and outputs inside" : "inputs and outputs apart");
  (void)printf("  IO apart         %zu bytes + inputs and outputs %zu bytes (%zu with 16-byte "
               "alignment)\n", r->activations_io_separate_bytes, r->io_bytes,
               r->io_aligned_bytes);
  (void)printf("  IO inside        %zu bytes (--io-in-activations)\n",
               r->activations_io_shared_bytes);
  patches_text(r);
  (void)printf("params             %zu bytes\n", r->params_bytes);
  if (r->laid_out_bytes > 0u) {
    (void)printf("  laid out         %zu bytes for the %s kernels (%zu bytes in TFLite's layout; "
                 "--weights tflite keeps it)\n", r->laid_out_bytes, e->cpu,
                 r->laid_out_from_bytes);
  } else {
    (void)printf("  laid out         none (TFLite's layout%s)\n",
                 e->lay_out ? ": no constant reads faster otherwise on this core" : ", --weights tflite");
  }
  if (r->requant_table_bytes > 0u) {
    (void)printf("requant tables     %zu bytes in the network code (made for the %s kernels "
                 "once, not per call; --requant call makes them per call)\n",
                 r->requant_table_bytes, e->cpu);
  } else if (r->requant_table_option_bytes > 0u) {
    (void)printf("requant tables     none (made per call; --requant tables: %zu bytes of flash, "
                 "made once)\n", r->requant_table_option_bytes);
  }
  (void)printf("largest scratch    %zu bytes\n", r->scratch_bytes);
  if (m->measured) {
    const cli_sz_row_t *rows[4] = {&m->kernels, &m->network, &m->weights, &m->runtime};
    (void)printf("memory             measured by %s (the linker's input sections)\n", e->sizes);
    (void)printf("  %-16s %8s %8s %8s %8s %8s %8s\n", "", "text", "rodata", "data", "bss",
                 "flash", "RAM");
    for (uint32_t i = 0u; i < 4u; i++) {
      text_row(memory_rows[i], rows[i]);
    }
    text_row("total", &m->total);
    (void)printf("  plus the application's activations and IO buffers (IO apart)\n");
  } else {
    (void)printf("memory             not measured: add --sizes build/<preset>/utvm-sizes.txt "
                 "(a build for this core writes it)\n");
  }
  (void)printf("kernels            %s\n", m->measured ? "(flash of each alone; shared code "
                                                      "counted once in the rows above)" : "");
  for (uint32_t k = 1u; k <= (uint32_t)UTVM_OP_KIND_MAX; k++) {
    if (r->kernels_used[k]) {
      if (m->measured) {
        (void)printf("  %-24s %u bytes\n", utvm_host_emit_kernel_name(k), m->kernel_flash[k]);
      } else {
        (void)printf("  %s\n", utvm_host_emit_kernel_name(k));
      }
    }
  }
  if ((r->stage_layers > 0u) && m->measured) {
    (void)printf("  %-24s %u bytes\n", kStageKernel, m->stage_flash);
  } else if (r->stage_layers > 0u) {
    (void)printf("  %s\n", kStageKernel);
  }
  (void)printf("layers             %u\n", r->n_layers);
  for (uint32_t k = 0u; k < r->n_layers; k++) {
    char at[24] = "own buffer";
    if (r->layers[k].output_offset != UINT32_MAX) {
      (void)snprintf(at, sizeof(at), "%u", r->layers[k].output_offset);
    }
    if ((r->stage_layers > 0u) && (k >= r->stage_first) &&
        ((k - r->stage_first + 1u) < r->stage_layers)) {
      (void)printf("  %4u %-24s output not held (patch by patch), scratch %u\n", k,
                   r->layers[k].function, r->layers[k].scratch_bytes);
      continue;
    }
    (void)printf("  %4u %-24s output %8u bytes at %10s, scratch %u\n", k, r->layers[k].function,
                 r->layers[k].output_bytes, at, r->layers[k].scratch_bytes);
  }
}

/* The emitter for what model holds: a .tflite ("TFL3" at byte 4), an MLF archive ("ustar" at
 * byte 257, or gzip's magic: refused with a hint), else a graph JSON with params. */
static utvm_err_t emit_any(const uint8_t *model, size_t size, const uint8_t *params,
                           size_t params_size, const utvm_emit_options_t *o, const char *dir,
                           utvm_emit_report_t *r, char *err, size_t err_cap) {
  size_t first = 0u;
  while ((first < size) && ((model[first] == (uint8_t)' ') || (model[first] == (uint8_t)'\n') ||
                            (model[first] == (uint8_t)'\r') || (model[first] == (uint8_t)'\t'))) {
    first++;
  }
  const bool archive = ((size > 262u) && (memcmp(&model[257], "ustar", 5u) == 0)) ||
                       ((size >= 2u) && (model[0] == 0x1fu) && (model[1] == 0x8bu));
  const bool json = (first < size) && (model[first] == (uint8_t)'{');
  if (archive || json) {
    const uint8_t *graph = model;
    size_t graph_len = size;
    if (archive) {
      if (params != NULL) {
        (void)snprintf(err, err_cap, "--params goes with a graph JSON: the archive has its own");
        return UTVM_ERR_EMIT_ARGUMENT;
      }
      const utvm_err_t rc = utvm_host_mlf_find_graph(model, size, &graph, &graph_len, &params,
                                                     &params_size, err, err_cap);
      if (rc != UTVM_OK) {
        return rc;
      }
    }
    return utvm_host_emit_graph((const char *)graph, graph_len, params, params_size, o, dir, r,
                                err, err_cap);
  }
  if (params != NULL) {
    (void)snprintf(err, err_cap, "--params goes with a graph JSON model");
    return UTVM_ERR_EMIT_ARGUMENT;
  }
  return utvm_host_emit(model, size, o, dir, r, err, err_cap);
}

/* The usage error of a missing or unknown --cpu. */
static int cpu_error(const cli_emit_options_t *e) {
  char msg[512];
  (void)snprintf(msg, sizeof(msg), "%s%s: the target core decides the kernels' paths and scratch; "
                 "give one of host, cortex-m0, cortex-m0plus, cortex-m3, cortex-m4, cortex-m7, "
                 "cortex-m33, cortex-m35p, cortex-m55, cortex-m85",
                 (e->cpu == NULL) ? "--cpu is required" : "--cpu ",
                 (e->cpu == NULL) ? "" : e->cpu);
  return compile_error(e->json, CLI_EXIT_USAGE, "usage", msg);
}

/* Emits into a new temporary directory, measures the model there with the table and removes
 * the directory; false with a text in msg. */
static bool emit_and_measure(const cli_emit_options_t *e, const uint8_t *model, size_t size,
                             const uint8_t *params, size_t params_size,
                             const utvm_emit_options_t *o, utvm_emit_report_t *r,
                             emit_memory_t *m, utvm_err_t *rc, char *msg, size_t cap) {
  char dir[] = "/tmp/utvm_report_XXXXXX";
  char err[512];
  cli_sizes_t t;
  if (!cli_sizes_load(e->sizes, &t, msg, cap)) {
    return false;
  }
  if (strcmp(t.core, e->cpu) != 0) {
    (void)snprintf(msg, cap, "--sizes %s measures %s, not --cpu %s", e->sizes, t.core, e->cpu);
    cli_sizes_free(&t);
    return false;
  }
  if (mkdtemp(dir) == NULL) {
    (void)snprintf(msg, cap, "cannot create a temporary directory: %s", strerror(errno));
    cli_sizes_free(&t);
    return false;
  }
  *rc = emit_any(model, size, params, params_size, o, dir, r, err, sizeof(err));
  bool ok = true;
  if (*rc != UTVM_OK) {
    (void)snprintf(msg, cap, "%s: %s: %s", e->model, utvm_strerror(*rc), err);
    ok = false;
  } else {
    ok = emit_measure(&t, dir, o->name, r->kernels_used, r->stage_layers > 0u, m, msg, cap);
  }
  const char *suffix[3] = {".h", ".c", "_data.c"};
  for (uint32_t i = 0u; i < 3u; i++) {
    char path[512];
    (void)snprintf(path, sizeof(path), "%s/%s%s", dir, o->name, suffix[i]);
    (void)remove(path);
  }
  (void)rmdir(dir);
  cli_sizes_free(&t);
  return ok;
}

/* utvm compile -o DIR --name NET / --report: emits or reports; returns the exit code (0 ok,
 * 2 usage or files, 4 a model refused). */
static int emit_files(const cli_emit_options_t *e) {
  char msg[1024];
  char err[512];
  char paths[160];
  size_t size = 0u;
  utvm_emit_report_t r;
  emit_memory_t m;
  utvm_emit_options_t o;
  (void)memset(&o, 0, sizeof(o));
  (void)memset(&m, 0, sizeof(m));
  (void)memset(&r, 0, sizeof(r)); /* freed even when a refused --sizes table stops the emission */
  if ((e->cpu == NULL) || !cli_kernels_core(e->cpu, &o.core)) {
    return cpu_error(e);
  }
  if ((e->sizes != NULL) && (e->out_dir != NULL)) {
    return compile_error(e->json, CLI_EXIT_USAGE, "usage", "--sizes goes with --report");
  }
  uint8_t *data = read_all(e->model, &size, msg, sizeof(msg));
  if (data == NULL) {
    return compile_error(e->json, CLI_EXIT_USAGE, "usage", msg);
  }
  if ((e->params == NULL) && !cpu_runs_model(e->cpu, e->model, data, size, msg, sizeof(msg))) {
    free(data);
    return compile_error(e->json, CLI_EXIT_DEVICE_ERROR, "model", msg);
  }
  uint8_t *params = NULL;
  size_t params_size = 0u;
  if (e->params != NULL) {
    params = read_all(e->params, &params_size, msg, sizeof(msg));
    if (params == NULL) {
      free(data);
      return compile_error(e->json, CLI_EXIT_USAGE, "usage", msg);
    }
  }
  const char *slash = strrchr(e->model, '/');
  o.name = e->name;
  o.model_name = (slash != NULL) ? &slash[1] : e->model;
  o.date = e->date;
  o.builtin_activations = e->builtin_activations;
  o.io_in_activations = e->io_in_activations;
  o.patches = e->patches;
  o.lay_out = e->lay_out;
  o.requant_tables = e->requant_tables;
  static const char *const emitted_files[] = {".h", ".c", "_data.c"};
  bool created = false;
  if ((e->out_dir != NULL) && !make_out_dir(e->out_dir, &created, msg, sizeof(msg))) {
    free(data);
    free(params);
    return compile_error(e->json, CLI_EXIT_USAGE, "usage", msg);
  }
  utvm_err_t rc = UTVM_OK;
  bool measured = true;
  if (e->sizes != NULL) {
    measured = emit_and_measure(e, data, size, params, params_size, &o, &r, &m, &rc, msg,
                                sizeof(msg));
  } else {
    rc = emit_any(data, size, params, params_size, &o, e->out_dir, &r, err, sizeof(err));
    (void)snprintf(msg, sizeof(msg), "%s: %s: %s", e->model, utvm_strerror(rc), err);
  }
  free(data);
  free(params);
  if (rc != UTVM_OK) {
    if (e->out_dir != NULL) {
      remove_out_dir(e->out_dir, created, e->name, emitted_files, 3u);
    }
    const bool usage = (rc == UTVM_ERR_EMIT_ARGUMENT) || (rc == UTVM_ERR_EMIT_WRITE);
    return compile_error(e->json, usage ? CLI_EXIT_USAGE : CLI_EXIT_DEVICE_ERROR,
                         usage ? "usage" : "model", msg);
  }
  if (!measured) {
    utvm_host_emit_report_free(&r);
    return compile_error(e->json, CLI_EXIT_USAGE, "usage", msg);
  }
  kernel_paths(o.core, r.kernels_used, paths, sizeof(paths));
  if (e->out_dir == NULL) {
    emit_report_print(e, &r, &m, paths);
  } else if (e->json) {
    (void)printf("{\"ok\": true, \"name\": ");
    cli_json_string(stdout, e->name, strlen(e->name));
    (void)printf(", \"cpu\": \"%s\", \"kernel_paths\": \"%s\", \"activations_bytes\": %zu, "
                 "\"params_bytes\": %zu, \"scratch_bytes\": %zu}\n", e->cpu, paths,
                 r.activations_bytes, r.params_bytes, r.scratch_bytes);
  } else {
    (void)printf("wrote %s/%s.h, %s.c and %s_data.c (activations %zu bytes, params %zu bytes; "
                 "%s: %s)\n", e->out_dir, e->name, e->name, e->name, r.activations_bytes,
                 r.params_bytes, e->cpu, paths);
  }
  utvm_host_emit_report_free(&r);
  return CLI_EXIT_OK;
}

/* utvm compile --help. */
static const char compile_help[] =
    "usage: utvm compile MODEL -o DIR --name NET --cpu CPU [--builtin-activations]\n"
    "                     [--io-in-activations] [--patches auto|N|off] [--date DATE]\n"
    "                     [--params GRAPH.params] [--weights core|tflite]\n"
    "                     [--requant call|tables]\n"
    "       utvm [--json] compile MODEL.tflite --report --cpu CPU [--sizes TABLE]\n"
    "                     [--io-in-activations] [--patches auto|N|off]\n"
    "                     [--weights core|tflite] [--requant call|tables]\n"
    "       utvm [--json] compile MODEL.tflite --generic -o DIR [--cpu CPU]\n"
    "       utvm [--json] compile MODEL.tflite --mlf OUT.tar [--executor graph|aot]\n"
    "                     [--name NAME] [--cpu CPU]\n\n"
    "-o DIR --name NET (no --generic) emits standalone C for the ai_ API (docs/AI.md)\n"
    "from MODEL: a .tflite, a TVM graph JSON (with --params its parameter blob) or a\n"
    "graph-executor Model Library Format archive (.tar):\n"
    "DIR/NET.h, NET.c (straight kernel calls) and NET_data.c (weights, section\n"
    ".rodata.utvm.weights); inputs and outputs get buffers of their own (the\n"
    "application's: ai_set_input/ai_set_output), or with --io-in-activations live in\n"
    "the activations at the planner's offsets. --builtin-activations adds the buffers\n"
    "(sections .bss.utvm.activations, .bss.utvm.io); --cpu (required) is the target\n"
    "core, whose kernel paths and scratch are planned (host, cortex-m0/m0plus/m3:\n"
    "blocked portable C; cortex-m4/m7/m33/m35p: DSP; cortex-m55/m85: MVE); --date\n"
    "records DATE. --report prints activations with and without IO sharing, params,\n"
    "scratch, the kernel paths and per-layer outputs; with --sizes TABLE (a build's\n"
    "utvm-sizes.txt for the same core) also the flash and RAM the kernels, the\n"
    "network code, the weights and the ai_ runtime take, measured (--json: one\n"
    "object with activations_bytes, params_bytes, memory, ...).\n"
    "--patches (default off) runs the model's first int8 CONV_2D / DEPTHWISE_CONV_2D\n"
    "layers as one stage patch by patch (utvm_stage_s8, docs/AI.md): bit-exact, in\n"
    "smaller activations; N bands of rows, or auto: the planner picks N and uses\n"
    "patches only where they lower the activations. The report gives both.\n"
    "--weights core (default) lays constants out for the --cpu's kernels where they\n"
    "read a faster layout: on the DSP cores each CONV_2D filter widened to int16 in\n"
    "the order of the dot loops (twice its bytes; layers of a patch stage excepted);\n"
    "--weights tflite keeps TFLite's layout. The report gives the bytes either way.\n"
    "--requant tables (DSP and portable cores) makes the requantization entries of\n"
    "int8 convolutions and FULLY_CONNECTED at compile time, 24 bytes per channel,\n"
    "instead of per call (call, the default). The report gives the bytes.\n\n"
    "--mlf writes a Model Library Format archive (TVM's layout, PROTOCOL.md 6.3):\n"
    "metadata.json, codegen/host/src/NAME_lib0.c (one packed function per operator\n"
    "calling the kernel functions; AOT: also the constants, tvmgen_NAME_run and\n"
    "tvmgen_NAME_get_c_metadata) and NAME_lib1.c (the system library); graph: also\n"
    "executor-config/graph/NAME.graph and parameters/NAME.params. Link it into a\n"
    "firmware with utvm_add_mlf() (cmake/utvm_mlf.cmake). NAME defaults to default.\n\n"
    "--generic -o DIR compiles MODEL for the kernel functions every utvm firmware\n"
    "has (utvm_k_*, docs/KERNEL_FUNCS.md): writes DIR/graph.json (TVM graph\n"
    "executor JSON) and DIR/params.bin (TVM parameter blob: weights, biases and each\n"
    "operator's op params); DIR is created if needed. Prints the operators, entries,\n"
    "storage and parameter bytes (--json: one object). The model goes through the\n"
    "runner's checks. With --cpu (and --weights core, the default) constants are laid\n"
    "out for that core's kernels as for standalone C, each a parameter of its own call\n"
    "(op<k>_w<input>): only a firmware with those kernels runs the graph (utvm info\n"
    "shows a device's kernels); without --cpu, TFLite's layout, which every firmware\n"
    "reads. The same holds for --mlf.\n\n"
    "A failed compile removes the DIR it created (a DIR that existed stays). Exit\n"
    "codes: 0 ok, 2 usage (bad option, unreadable model, unwritable DIR), 4 a model\n"
    "the reader, the runner or the compiler refuses.\n";

/* utvm compile MODEL: standalone C or its report (emit_files), or the generic compiler's files
 * (compile_files); no device. */
static int compile_main(const cli_options_t *o) {
  if (o->num_positional != 1) {
    return cli_usage_error(o, "compile needs one model file%s", "");
  }
  if (!o->report && !o->generic && (o->mlf == NULL) && (o->out_dir != NULL) &&
      (o->mlf_name == NULL)) {
    return cli_usage_error(o, "compile -o DIR needs --name NET (standalone C) or --generic%s",
                           "");
  }
  if (o->report || (!o->generic && (o->mlf == NULL) && (o->out_dir != NULL))) {
    cli_emit_options_t e;
    (void)memset(&e, 0, sizeof(e));
    e.model = o->positional[0];
    e.out_dir = o->report ? NULL : o->out_dir;
    e.name = (o->mlf_name != NULL) ? o->mlf_name : "network";
    e.date = o->date;
    e.builtin_activations = o->builtin_activations;
    e.io_in_activations = o->io_in_activations;
    e.patches = o->patches;
    e.lay_out = !o->weights_tflite;
    e.requant_tables = o->requant_tables;
    e.cpu = o->cpu;
    e.sizes = o->sizes;
    e.params = o->params;
    e.json = o->json;
    return emit_files(&e);
  }
  if ((o->mlf == NULL) && !o->generic) {
    return cli_usage_error(o, "compile needs -o DIR --name NET, --report, --generic -o DIR or "
                           "--mlf OUT.tar%s", "");
  }
  if (o->generic && (o->out_dir == NULL)) {
    return cli_usage_error(o, "compile --generic needs -o DIR%s", "");
  }
  cli_compile_options_t c;
  (void)memset(&c, 0, sizeof(c));
  c.model = o->positional[0];
  c.out_dir = o->generic ? o->out_dir : NULL;
  c.mlf = o->mlf;
  c.aot = (o->executor != NULL) && (strcmp(o->executor, "aot") == 0);
  c.name = (o->mlf_name != NULL) ? o->mlf_name : "default";
  c.json = o->json;
  c.cpu = o->cpu;
  if (!cli_kernels_core(o->cpu, &c.compile.core)) {
    return cli_usage_error(o, "--cpu %s: give one of host, cortex-m0, cortex-m0plus, cortex-m3, "
                           "cortex-m4, cortex-m7, cortex-m33, cortex-m35p, cortex-m55, cortex-m85",
                           o->cpu);
  }
  c.compile.lay_out = (o->cpu != NULL) && !o->weights_tflite;
  return compile_files(&c);
}

const cli_command_t cli_compile_command = {"compile", compile_help, compile_main};

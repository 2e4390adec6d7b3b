/*
 * utvm compile MODEL --generic -o DIR: the generic compiler (utvm/host_compile.h) on a file;
 * writes DIR/graph.json and DIR/params.bin and prints a short report.
 */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "utvm/host_mlf.h"
#include "utvm/host_compile.h"

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

int cli_compile(const cli_compile_options_t *c) {
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
  const utvm_err_t rc = utvm_host_compile_generic(data, size, &g, err, sizeof(err));
  free(data);
  if (rc != UTVM_OK) {
    (void)snprintf(msg, sizeof(msg), "%s: %s: %s", model, utvm_strerror(rc), err);
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
  if ((mkdir(out_dir, 0777) != 0) && (errno != EEXIST)) {
    (void)snprintf(msg, sizeof(msg), "cannot create %s: %s", out_dir, strerror(errno));
    utvm_host_graph_free(&g);
    return compile_error(json, CLI_EXIT_USAGE, "usage", msg);
  }
  if (!write_file(out_dir, "graph.json", g.json, g.json_len, msg, sizeof(msg)) ||
      !write_file(out_dir, "params.bin", g.params_blob, g.params_blob_len, msg, sizeof(msg))) {
    utvm_host_graph_free(&g);
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

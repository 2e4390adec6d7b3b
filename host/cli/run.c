/* utvm run: runs a .tflite model on the host with the model runner (src/runner), or on a device
 * (--connect: compiled for the generic kernel functions, remote.c); utvm time MODEL times it on
 * the device. The host runner also gives the inputs' and outputs' shapes and host buffers. */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "utvm/runner.h"
#if defined(UTVM_WITH_ACL)
#include "utvm/acl.h"
#endif

/* The options of utvm run. */
typedef struct {
  bool json;
  bool per_layer;
  const char *model;
  const char *inputs[CLI_MAX_RUN_FILES];
  int num_inputs;
  const char *outputs[CLI_MAX_RUN_FILES];
  int num_outputs;
  const char *labels; /* "a,b,c": print the label of output 0's largest value, or NULL */
  /* On a device (--connect): connect opens the device (once inputs and outputs are checked)
   * and returns -1 with *host set, or an exit code; the caller closes it. */
  bool on_device;
  int (*connect)(void *ctx, utvm_host_t **host);
  void *connect_ctx;
  bool host_driven;  /* walk the graph on the host, one call per operator */
  bool weights_tflite; /* --weights tflite: TFLite's constant layout whatever the device reads */
  const char *aot;   /* --executor aot: the firmware's AOT model of this name, or NULL */
  bool time_only;    /* utvm time MODEL: inputs optional (zeros), outputs not printed */
  int number;        /* time evaluator parameters */
  int repeat;
  int min_repeat_ms;
  const char *transport; /* the --connect specification */
  double deadline_s; /* --deadline, 0 for the default */
  bool no_acl;       /* --no-acl: the runner's kernels only */
  int acl_threads;   /* --acl-threads: ACL's scheduler threads, 0 for ACL's default */
} cli_run_options_t;

/* Bytes of the workspace ACL's auxiliary memory comes from (a build with ACL). */
#define RUN_ACL_WORKSPACE_BYTES ((size_t)64u << 20)

/* Largest model file read. */
#define RUN_MAX_MODEL_BYTES ((size_t)64u << 20)
/* Values printed per output in text mode (JSON prints them all). */
#define RUN_MAX_TEXT_VALUES 4096u

typedef struct {
  const cli_run_options_t *o;
  uint8_t *model_bytes;
  size_t model_size;
  void *workspace;
  void *arena;
  utvm_model_t model;
  utvm_runner_t runner;
#if defined(UTVM_WITH_ACL)
  utvm_acl_offload_t *acl;      /* the ACL offload (NULL with --no-acl or on a device) */
  utvm_runner_offload_t offload;
  void *acl_workspace;
#endif
  double *layer_seconds;
  utvm_host_t *host;            /* on a device: the client (closed by cli_run_model) */
  utvm_compiled_graph_t graph;           /* on a device: the compiled model */
  cli_remote_result_t remote;
} run_t;

static double run_now(void) {
  struct timespec ts;
  (void)clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Prints an error (stderr, and the JSON object with --json); returns code. */
static int run_error(const cli_run_options_t *o, int code, const char *kind, const char *msg) {
  (void)fprintf(stderr, "utvm: %s\n", msg);
  if (code == CLI_EXIT_USAGE) {
    (void)fprintf(stderr, "(run 'utvm run --help' for usage)\n");
  }
  if (o->json) {
    (void)printf("{\"ok\": false, \"exit_code\": %d, \"kind\": \"%s\", \"error\": ", code, kind);
    cli_json_string(stdout, msg, strlen(msg));
    (void)printf("}\n");
  }
  return code;
}

static const char *run_type_name(utvm_model_type_t type) {
  switch (type) {
    case UTVM_MODEL_FLOAT32: return "float32";
    case UTVM_MODEL_INT32: return "int32";
    case UTVM_MODEL_UINT8: return "uint8";
    case UTVM_MODEL_INT64: return "int64";
    case UTVM_MODEL_BOOL: return "bool";
    case UTVM_MODEL_INT16: return "int16";
    case UTVM_MODEL_INT8: return "int8";
    default: return "?";
  }
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s);
  size_t k = strlen(suffix);
  return (n >= k) && (strcmp(&s[n - k], suffix) == 0);
}

/* "int8[1,96,96,1]". */
static void tensor_label(const utvm_runner_tensor_t *t, char *buf, size_t size) {
  size_t len = (size_t)snprintf(buf, size, "%s[", run_type_name(t->type));
  for (uint32_t d = 0u; (d < t->rank) && (len < size); d++) {
    len += (size_t)snprintf(&buf[len], size - len, "%s%d", (d > 0u) ? "," : "", (int)t->dims[d]);
  }
  if (len < size) {
    (void)snprintf(&buf[len], size - len, "]");
  }
}

/* Reads path into a 16-byte aligned block (the reader wants the model so aligned). */
static int read_model(run_t *run, size_t *size) {
  const cli_run_options_t *o = run->o;
  char msg[1024];
  struct stat st;
  FILE *f = fopen(o->model, "rb");
  if ((f == NULL) || (fstat(fileno(f), &st) != 0) || !S_ISREG(st.st_mode)) {
    (void)snprintf(msg, sizeof(msg), "cannot read model %s: %s", o->model,
                   (f == NULL) ? strerror(errno) : "not a regular file");
    if (f != NULL) {
      (void)fclose(f);
    }
    return run_error(o, CLI_EXIT_USAGE, "usage", msg);
  }
  if ((st.st_size <= 0) || ((uint64_t)st.st_size > (uint64_t)RUN_MAX_MODEL_BYTES)) {
    (void)fclose(f);
    (void)snprintf(msg, sizeof(msg), "model %s: %lld bytes (a model must have 1 to %zu bytes)",
                   o->model, (long long)st.st_size, RUN_MAX_MODEL_BYTES);
    return run_error(o, CLI_EXIT_DEVICE_ERROR, "model", msg);
  }
  *size = (size_t)st.st_size;
  void *p = NULL;
  if (posix_memalign(&p, 16u, (*size + 15u) & ~(size_t)15u) != 0) {
    (void)fclose(f);
    return run_error(o, CLI_EXIT_USAGE, "usage", "out of memory for the model");
  }
  run->model_bytes = (uint8_t *)p;
  size_t got = fread(run->model_bytes, 1u, *size, f);
  (void)fclose(f);
  if (got != *size) {
    (void)snprintf(msg, sizeof(msg), "cannot read model %s: short read", o->model);
    return run_error(o, CLI_EXIT_USAGE, "usage", msg);
  }
  return -1;
}

/* Gives the runner's float32 convolutions, fully connected layers and pools to ACL (a build
 * with ACL, on this host, without --no-acl); -1, or the exit code of a failure. */
static int setup_acl(run_t *run) {
#if defined(UTVM_WITH_ACL)
  const cli_run_options_t *o = run->o;
  char msg[1024];
  if (o->no_acl || o->on_device) {
    return -1;
  }
  run->acl_workspace = malloc(RUN_ACL_WORKSPACE_BYTES);
  utvm_err_t err = (run->acl_workspace != NULL)
                       ? utvm_acl_offload_init(&run->acl, run->acl_workspace,
                                               RUN_ACL_WORKSPACE_BYTES, run->model.n_operators,
                                               (uint32_t)o->acl_threads, &run->offload)
                       : UTVM_ERR_ACL_MEMORY;
  if (err == UTVM_OK) {
    err = utvm_runner_offload(&run->runner, &run->offload);
  }
  if (err != UTVM_OK) {
    (void)snprintf(msg, sizeof(msg), "model %s: ACL: %s", o->model,
                   (run->runner.error[0] != '\0') ? run->runner.error : utvm_strerror(err));
    return run_error(o, CLI_EXIT_DEVICE_ERROR, "model", msg);
  }
#else
  (void)run;
#endif
  return -1;
}

/* Opens the model and sets up the runner with workspace and arena of the sizes it asks for. */
static int setup(run_t *run) {
  const cli_run_options_t *o = run->o;
  char msg[1024];
  size_t size = 0u;
  int code = read_model(run, &size);
  if (code >= 0) {
    return code;
  }
  run->model_size = size;
  utvm_err_t err = utvm_model_open(&run->model, run->model_bytes, size);
  if (err != UTVM_OK) {
    (void)snprintf(msg, sizeof(msg), "model %s refused: %s", o->model, run->model.error);
    return run_error(o, CLI_EXIT_DEVICE_ERROR, "model", msg);
  }
  size_t ws = utvm_runner_workspace_size(&run->model);
  run->workspace = (ws != SIZE_MAX) ? malloc(ws) : NULL;
  if (run->workspace == NULL) {
    return run_error(o, CLI_EXIT_DEVICE_ERROR, "model", "no memory for the runner workspace");
  }
  err = utvm_runner_init(&run->runner, &run->model, run->workspace, ws, NULL, 0u);
  if (err == UTVM_ERR_RUNNER_ARENA) {
    size_t arena = run->runner.arena_size;
    if (posix_memalign(&run->arena, 16u, (arena > 16u) ? arena : 16u) != 0) {
      run->arena = NULL;
      return run_error(o, CLI_EXIT_DEVICE_ERROR, "model", "no memory for the arena");
    }
    err = utvm_runner_init(&run->runner, &run->model, run->workspace, ws, run->arena, arena);
  }
  if (err != UTVM_OK) {
    (void)snprintf(msg, sizeof(msg), "model %s refused: %s", o->model, run->runner.error);
    return run_error(o, CLI_EXIT_DEVICE_ERROR, "model", msg);
  }
  return setup_acl(run);
}

/* The npy dtype of a tensor type. */
static bool npy_dtype_of(utvm_model_type_t type, utvm_host_dtype_t *d, const char **descr) {
  d->lanes = 1u;
  switch (type) {
    case UTVM_MODEL_INT8: d->code = 0u; d->bits = 8u; *descr = "|i1"; return true;
    case UTVM_MODEL_UINT8: d->code = 1u; d->bits = 8u; *descr = "|u1"; return true;
    case UTVM_MODEL_INT16: d->code = 0u; d->bits = 16u; *descr = "<i2"; return true;
    case UTVM_MODEL_INT32: d->code = 0u; d->bits = 32u; *descr = "<i4"; return true;
    case UTVM_MODEL_INT64: d->code = 0u; d->bits = 64u; *descr = "<i8"; return true;
    case UTVM_MODEL_FLOAT32: d->code = 2u; d->bits = 32u; *descr = "<f4"; return true;
    default: return false;
  }
}

/* Copies input file i into graph input i: raw bytes of exactly the tensor's size, or a .npy of
 * the tensor's element type and size. */
static int load_input(run_t *run, uint32_t i) {
  const cli_run_options_t *o = run->o;
  const char *path = o->inputs[i];
  char msg[1024];
  char label[128];
  utvm_runner_tensor_t t;
  (void)utvm_runner_input(&run->runner, i, &t);
  tensor_label(&t, label, sizeof(label));
  if (ends_with(path, ".npy")) {
    utvm_host_npy_t npy;
    char why[512];
    if (utvm_host_npy_read(path, &npy, why, sizeof(why)) != UTVM_HOST_OK) {
      (void)snprintf(msg, sizeof(msg), "input %u (%s): %s", i, path, why);
      return run_error(o, CLI_EXIT_USAGE, "usage", msg);
    }
    utvm_host_dtype_t want;
    const char *descr = NULL;
    bool ok = npy_dtype_of(t.type, &want, &descr) && (npy.dtype.code == want.code) &&
              (npy.dtype.bits == want.bits) && (npy.nbytes == t.bytes);
    if (ok) {
      (void)memcpy(t.data, npy.data, t.bytes);
    } else {
      char have[32];
      utvm_host_dtype_name(npy.dtype, have, sizeof(have));
      (void)snprintf(msg, sizeof(msg),
                     "input %u (%s): holds %zu bytes of %s, the model's input %u is %s (%zu "
                     "bytes)", i, path, npy.nbytes, have, i, label, t.bytes);
    }
    utvm_host_npy_free(&npy);
    return ok ? -1 : run_error(o, CLI_EXIT_USAGE, "usage", msg);
  }
  struct stat st;
  FILE *f = fopen(path, "rb");
  if ((f == NULL) || (fstat(fileno(f), &st) != 0)) {
    (void)snprintf(msg, sizeof(msg), "input %u: cannot read %s: %s", i, path, strerror(errno));
    if (f != NULL) {
      (void)fclose(f);
    }
    return run_error(o, CLI_EXIT_USAGE, "usage", msg);
  }
  if ((uint64_t)st.st_size != (uint64_t)t.bytes) {
    (void)fclose(f);
    (void)snprintf(msg, sizeof(msg),
                   "input %u (%s): %lld bytes, expected %zu (the model's input %u is %s)", i,
                   path, (long long)st.st_size, t.bytes, i, label);
    return run_error(o, CLI_EXIT_USAGE, "usage", msg);
  }
  size_t got = fread(t.data, 1u, t.bytes, f);
  (void)fclose(f);
  if (got != t.bytes) {
    (void)snprintf(msg, sizeof(msg), "input %u: short read from %s", i, path);
    return run_error(o, CLI_EXIT_USAGE, "usage", msg);
  }
  return -1;
}

/* Writes t as a .npy file (format 1.0, header padded to 64 bytes). */
static bool write_npy(FILE *f, const utvm_runner_tensor_t *t) {
  utvm_host_dtype_t d;
  const char *descr = NULL;
  if (!npy_dtype_of(t->type, &d, &descr)) {
    return false;
  }
  char header[256];
  int len = snprintf(header, sizeof(header), "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     descr);
  for (uint32_t k = 0u; k < t->rank; k++) {
    len += snprintf(&header[len], sizeof(header) - (size_t)len, "%d,%s", (int)t->dims[k],
                    (k + 1u < t->rank) ? " " : "");
  }
  len += snprintf(&header[len], sizeof(header) - (size_t)len, "), }");
  /* Pad with spaces and end with a newline so that data starts at a multiple of 64. */
  size_t total = 10u + (size_t)len + 1u;
  size_t padded = (total + 63u) & ~(size_t)63u;
  size_t header_len = padded - 10u;
  uint8_t prefix[10] = {0x93u, 'N', 'U', 'M', 'P', 'Y', 1u, 0u,
                        (uint8_t)(header_len & 0xFFu), (uint8_t)(header_len >> 8)};
  bool ok = fwrite(prefix, 1u, sizeof(prefix), f) == sizeof(prefix);
  ok = ok && (fwrite(header, 1u, (size_t)len, f) == (size_t)len);
  for (size_t k = (size_t)len; ok && (k + 1u < header_len); k++) {
    ok = fputc(' ', f) != EOF;
  }
  ok = ok && (fputc('\n', f) != EOF);
  return ok && (fwrite(t->const_data, 1u, t->bytes, f) == t->bytes);
}

static int write_output(run_t *run, uint32_t i) {
  const cli_run_options_t *o = run->o;
  const char *path = o->outputs[i];
  char msg[1024];
  utvm_runner_tensor_t t;
  (void)utvm_runner_output(&run->runner, i, &t);
  FILE *f = fopen(path, "wb");
  bool ok = f != NULL;
  if (ok) {
    ok = ends_with(path, ".npy") ? write_npy(f, &t)
                                 : (fwrite(t.const_data, 1u, t.bytes, f) == t.bytes);
    ok = (fclose(f) == 0) && ok;
  }
  if (!ok) {
    (void)snprintf(msg, sizeof(msg), "output %u: cannot write %s%s%s", i, path,
                   (errno != 0) ? ": " : "", (errno != 0) ? strerror(errno) : "");
    return run_error(o, CLI_EXIT_USAGE, "usage", msg);
  }
  return -1;
}

/* Prints element k of t as a JSON/text number. */
static void print_value(FILE *out, const utvm_runner_tensor_t *t, size_t k) {
  const uint8_t *p = (const uint8_t *)t->const_data;
  switch (t->type) {
    case UTVM_MODEL_INT8:
      (void)fprintf(out, "%d", (int)(int8_t)p[k]);
      break;
    case UTVM_MODEL_UINT8:
    case UTVM_MODEL_BOOL:
      (void)fprintf(out, "%u", (unsigned)p[k]);
      break;
    case UTVM_MODEL_INT16: {
      int16_t v;
      (void)memcpy(&v, &p[2u * k], sizeof(v));
      (void)fprintf(out, "%d", (int)v);
      break;
    }
    case UTVM_MODEL_INT32: {
      int32_t v;
      (void)memcpy(&v, &p[4u * k], sizeof(v));
      (void)fprintf(out, "%ld", (long)v);
      break;
    }
    case UTVM_MODEL_INT64: {
      int64_t v;
      (void)memcpy(&v, &p[8u * k], sizeof(v));
      (void)fprintf(out, "%lld", (long long)v);
      break;
    }
    default: {
      float v;
      (void)memcpy(&v, &p[4u * k], sizeof(v));
      if (isfinite(v)) {
        (void)fprintf(out, "%.9g", (double)v);
      } else {
        (void)fprintf(out, "null");
      }
      break;
    }
  }
}

static void print_values(FILE *out, const utvm_runner_tensor_t *t, size_t limit) {
  size_t n = t->bytes / ((t->type == UTVM_MODEL_INT8 || t->type == UTVM_MODEL_UINT8 ||
                          t->type == UTVM_MODEL_BOOL)
                             ? 1u
                             : (t->type == UTVM_MODEL_INT16) ? 2u
                             : (t->type == UTVM_MODEL_INT64) ? 8u : 4u);
  (void)fputc('[', out);
  for (size_t k = 0u; (k < n) && (k < limit); k++) {
    (void)fputs((k > 0u) ? ", " : "", out);
    print_value(out, t, k);
  }
  (void)fputs((n > limit) ? ", ...]" : "]", out);
}

static void print_shape_json(FILE *out, const utvm_runner_tensor_t *t) {
  (void)fputc('[', out);
  for (uint32_t d = 0u; d < t->rank; d++) {
    (void)fprintf(out, "%s%d", (d > 0u) ? ", " : "", (int)t->dims[d]);
  }
  (void)fputc(']', out);
}

/* The output tensor of operator k. */
static void layer_output(const run_t *run, uint32_t k, utvm_runner_tensor_t *t,
                         const char **name) {
  utvm_model_operator_t op;
  (void)memset(t, 0, sizeof(*t));
  *name = "?";
  if (utvm_model_operator(&run->model, k, &op) == UTVM_OK) {
    *name = utvm_model_op_name((int32_t)op.code);
    (void)utvm_runner_tensor(&run->runner, (uint32_t)op.outputs[0], t);
  }
}

/* Index of the largest value of t (the first one on ties), or -1 for an empty tensor. */
static long argmax(const utvm_runner_tensor_t *t) {
  const uint8_t *p = (const uint8_t *)t->const_data;
  long best = -1;
  double best_value = 0.0;
  size_t n = (t->type == UTVM_MODEL_FLOAT32) ? t->bytes / 4u : t->bytes;
  for (size_t k = 0u; k < n; k++) {
    double v;
    if (t->type == UTVM_MODEL_FLOAT32) {
      float f;
      (void)memcpy(&f, &p[4u * k], sizeof(f));
      v = (double)f;
    } else if (t->type == UTVM_MODEL_UINT8) {
      v = (double)p[k];
    } else {
      v = (double)(int8_t)p[k];
    }
    if ((best < 0) || (v > best_value)) {
      best = (long)k;
      best_value = v;
    }
  }
  return best;
}

/* Copies label index of the comma-separated list into buf ("?" past its end). */
static void label_of(const char *labels, long index, char *buf, size_t size) {
  const char *p = labels;
  for (long k = 0; (k < index) && (p != NULL); k++) {
    p = strchr(p, ',');
    p = (p != NULL) ? p + 1 : NULL;
  }
  size_t len = (p != NULL) ? strcspn(p, ",") : 0u;
  (void)snprintf(buf, size, "%.*s", (int)len, (p != NULL) ? p : "");
  if (len == 0u) {
    (void)snprintf(buf, size, "?");
  }
}

static void print_device_layers(const run_t *run, bool json);
static void print_device_json(const run_t *run);
static void print_device_text(const run_t *run);

/* The auxiliary bytes of operator k's ACL layer, -1 when ACL does not run it. */
static long long acl_layer_bytes(const run_t *run, uint32_t k) {
#if defined(UTVM_WITH_ACL)
  if ((run->acl != NULL) && (run->offload.handles[k] != NULL)) {
    return (long long)utvm_acl_offload_layer_bytes(run->acl, k);
  }
#else
  (void)run;
  (void)k;
#endif
  return -1;
}

/* "acl": the backend, what it took and its memory (a build with ACL). */
static void print_acl_json(const run_t *run) {
#if defined(UTVM_WITH_ACL)
  if (!run->o->on_device) {
    (void)printf(", \"acl\": {\"version\": \"%s\", \"enabled\": %s, \"operators\": %u, "
                 "\"workspace_bytes\": %zu}",
                 utvm_acl_version(), (run->acl != NULL) ? "true" : "false",
                 run->runner.n_offloaded, utvm_acl_offload_workspace_used(run->acl));
  }
#else
  (void)run;
#endif
}

/* The line saying what ACL took (a build with ACL). */
static void print_acl_text(const run_t *run) {
#if defined(UTVM_WITH_ACL)
  if (run->o->on_device) {
    return;
  }
  if (run->acl == NULL) {
    (void)printf("acl         ACL %s off (--no-acl): the runner's kernels\n", utvm_acl_version());
  } else {
    (void)printf("acl         ACL %s: %u of %u operators, auxiliary memory %zu bytes of a %zu-byte "
                 "workspace\n",
                 utvm_acl_version(), run->runner.n_offloaded, run->model.n_operators,
                 utvm_acl_offload_workspace_used(run->acl), RUN_ACL_WORKSPACE_BYTES);
  }
#else
  (void)run;
#endif
}

static void print_json(const run_t *run, double seconds) {
  const cli_run_options_t *o = run->o;
  (void)printf("{\"ok\": true, \"model\": ");
  cli_json_string(stdout, o->model, strlen(o->model));
  (void)printf(", \"operators\": %u, \"tensors\": %u, \"arena_bytes\": %zu, "
               "\"workspace_bytes\": %zu, \"seconds\": %.9f, \"output\": ",
               run->model.n_operators, run->model.n_tensors, run->runner.arena_size,
               run->runner.workspace_size, seconds);
  utvm_runner_tensor_t t;
  (void)utvm_runner_output(&run->runner, 0u, &t);
  print_values(stdout, &t, SIZE_MAX);
  (void)printf(", \"outputs\": [");
  for (uint32_t i = 0u; i < run->model.n_outputs; i++) {
    (void)utvm_runner_output(&run->runner, i, &t);
    (void)printf("%s{\"index\": %u, \"tensor\": %u, \"type\": \"%s\", \"shape\": ",
                 (i > 0u) ? ", " : "", i, t.tensor, run_type_name(t.type));
    print_shape_json(stdout, &t);
    (void)printf(", \"scale\": %.9g, \"zero_point\": %d, \"values\": ", (double)t.scale,
                 (int)t.zero_point);
    print_values(stdout, &t, SIZE_MAX);
    (void)printf("}");
  }
  (void)printf("]");
  if (o->labels != NULL) {
    char label[128];
    (void)utvm_runner_output(&run->runner, 0u, &t);
    long best = argmax(&t);
    label_of(o->labels, best, label, sizeof(label));
    (void)printf(", \"answer\": {\"index\": %ld, \"label\": ", best);
    cli_json_string(stdout, label, strlen(label));
    (void)printf("}");
  }
  if (o->on_device) {
    print_device_json(run);
  }
  print_acl_json(run);
  if (o->per_layer && (o->on_device)) {
    (void)printf(", \"layers\": [");
    print_device_layers(run, true);
    (void)printf("]");
  } else if (o->per_layer) {
    (void)printf(", \"layers\": [");
    for (uint32_t k = 0u; k < run->model.n_operators; k++) {
      const char *name = NULL;
      layer_output(run, k, &t, &name);
      (void)printf("%s{\"index\": %u, \"operator\": \"%s\", \"type\": \"%s\", \"shape\": ",
                   (k > 0u) ? ", " : "", k, name, run_type_name(t.type));
      print_shape_json(stdout, &t);
      (void)printf(", \"acl_bytes\": %lld, \"seconds\": %.9f}", acl_layer_bytes(run, k),
                   run->layer_seconds[k]);
    }
    (void)printf("]");
  }
  (void)printf("}\n");
}

static void print_text(const run_t *run, double seconds) {
  const cli_run_options_t *o = run->o;
  char label[128];
  utvm_runner_tensor_t t;
  (void)printf("model       %s: %u operators, %u tensors\n", o->model, run->model.n_operators,
               run->model.n_tensors);
  (void)printf("arena       %zu bytes (runner workspace %zu bytes)\n", run->runner.arena_size,
               run->runner.workspace_size);
  if (o->on_device) {
    print_device_text(run);
  }
  print_acl_text(run);
  if (o->per_layer && (o->on_device)) {
    (void)printf("layers:\n  %4s  %-28s %-22s %12s\n", "#", "kernel function", "output",
                 "time (us)");
    print_device_layers(run, false);
  } else if (o->per_layer) {
    (void)printf("layers:\n  %4s  %-20s %-24s %12s\n", "#", "operator", "output", "time (us)");
    for (uint32_t k = 0u; k < run->model.n_operators; k++) {
      const char *name = NULL;
      layer_output(run, k, &t, &name);
      tensor_label(&t, label, sizeof(label));
      const long long acl = acl_layer_bytes(run, k);
      (void)printf("  %4u  %-20s %-24s %12.3f", k, name, label, run->layer_seconds[k] * 1e6);
      if (acl >= 0) {
        (void)printf("  ACL, %lld bytes auxiliary", acl);
      }
      (void)printf("\n");
    }
  }
  if (o->on_device) {
    (void)printf("time        %.6f s per inference (device time evaluator%s)\n", seconds,
                 o->per_layer ? ": sum of the operators" : "");
  } else {
    (void)printf("time        %.6f s\n", seconds);
  }
  for (uint32_t i = 0u; i < run->model.n_outputs; i++) {
    (void)utvm_runner_output(&run->runner, i, &t);
    tensor_label(&t, label, sizeof(label));
    (void)printf("output %-4u %s scale %.9g zero point %d: ", i, label, (double)t.scale,
                 (int)t.zero_point);
    print_values(stdout, &t, RUN_MAX_TEXT_VALUES);
    (void)printf("\n");
  }
  if (o->labels != NULL) {
    (void)utvm_runner_output(&run->runner, 0u, &t);
    long best = argmax(&t);
    label_of(o->labels, best, label, sizeof(label));
    (void)printf("answer      %s (output 0, index %ld)\n", label, best);
  }
}

/* Whether the device's system library lacks an in-place convolution function that graph g
 * calls (a firmware of before kinds 59 and 60, or built without them: UTVM_KFUNCS). A device
 * that cannot tell counts as having them (the function check before the upload names any that
 * is missing). */
static bool device_lacks_inplace(utvm_host_t *host, const utvm_compiled_graph_t *g) {
  static const char *const kInplace[2] = {"utvm_k_conv2d_s8_inplace",
                                          "utvm_k_depthwise_conv2d_s8_inplace"};
  uint64_t lib = 0u;
  bool lacks = false;
  if (utvm_host_system_lib(host, &lib) != UTVM_HOST_OK) {
    return false;
  }
  for (uint32_t i = 0u; (i < 2u) && !lacks; i++) {
    bool used = false;
    for (uint32_t k = 0u; (k < g->n_ops) && !used; k++) {
      used = strcmp(g->ops[k].func_name, kInplace[i]) == 0;
    }
    uint64_t f = 0u;
    const utvm_host_err_t rc =
        used ? utvm_host_module_get_function(host, lib, kInplace[i], &f) : UTVM_HOST_OK;
    lacks = rc == UTVM_HOST_ERR_NOT_FOUND;
    if (used && (rc == UTVM_HOST_OK)) {
      (void)utvm_host_free_handle(host, f, UTVM_TC_FUNCTION);
    }
  }
  return lacks;
}

/* The compile options for the device's kernels: its utvm_k_kernels (core and filter layouts)
 * when it has that function and reads a layout other than TFLite's, else TFLite's layout. */
static utvm_host_compile_options_t device_layout(utvm_host_t *host) {
  utvm_host_compile_options_t opts = {false, false, UTVM_KERNELS_PORTABLE};
  int64_t info = 0;
  if (cli_device_kernels(host, &info)) {
    const int64_t core = UTVM_KERNELS_INFO_CORE(info);
    const int64_t layouts = UTVM_KERNELS_INFO_LAYOUTS(info);
    opts.lay_out = ((layouts & ~(int64_t)(1u << UTVM_FILTER_PLAIN)) != 0) &&
                   (core >= (int64_t)UTVM_KERNELS_PORTABLE) && (core <= (int64_t)UTVM_KERNELS_MVE);
    opts.core = opts.lay_out ? (utvm_kernels_core_t)core : UTVM_KERNELS_PORTABLE;
  }
  return opts;
}

/* Runs the model on the device behind o->host: compiled for the generic kernel functions (the
 * in-place convolutions as plain ones when the device lacks their functions; constants laid
 * out for the device's kernels when it reads such layouts, unless --weights tflite), inputs from the
 * host runner's input tensors, outputs into its output tensors. */
static int run_on_device(run_t *run, double *seconds) {
  const cli_run_options_t *o = run->o;
  char msg[1400];
  char why[1024];
  utvm_err_t err = utvm_host_compile_generic(run->model_bytes, run->model_size, &run->graph, why,
                                             sizeof(why));
  if (err != UTVM_OK) {
    (void)snprintf(msg, sizeof(msg), "model %s refused: %s", o->model, why);
    return run_error(o, CLI_EXIT_DEVICE_ERROR, "model", msg);
  }
  if ((run->graph.n_inputs != run->model.n_inputs) ||
      (run->graph.n_outputs != run->model.n_outputs) || (run->model.n_inputs > CLI_MAX_RUN_FILES) ||
      (run->model.n_outputs > CLI_MAX_RUN_FILES)) {
    (void)snprintf(msg, sizeof(msg), "model %s: %u inputs and %u outputs are not supported on a "
                   "device", o->model, run->model.n_inputs, run->model.n_outputs);
    return run_error(o, CLI_EXIT_DEVICE_ERROR, "model", msg);
  }
  cli_remote_buffer_t inputs[CLI_MAX_RUN_FILES];
  cli_remote_buffer_t outputs[CLI_MAX_RUN_FILES];
  for (uint32_t i = 0u; i < run->model.n_inputs; i++) {
    utvm_runner_tensor_t t;
    (void)utvm_runner_input(&run->runner, i, &t);
    inputs[i].data = t.data;
    inputs[i].bytes = t.bytes;
  }
  for (uint32_t i = 0u; i < run->model.n_outputs; i++) {
    utvm_runner_tensor_t t;
    (void)utvm_runner_output(&run->runner, i, &t);
    outputs[i].data = t.data;
    outputs[i].bytes = t.bytes;
  }
  cli_remote_options_t ro;
  (void)memset(&ro, 0, sizeof(ro));
  ro.start_s = cli_now_s();
  int code = o->connect(o->connect_ctx, &run->host);
  if (code >= 0) {
    return code;
  }
  int64_t kernels = 0;
  const utvm_compiled_op_t *f32 = cli_first_f32_op(&run->graph);
  if ((f32 != NULL) && cli_device_kernels(run->host, &kernels) &&
      UTVM_KERNELS_INFO_NO_F32(kernels)) {
    (void)snprintf(msg, sizeof(msg), "the device (built without float32 operators: a core "
                   "without a single-precision FPU) does not run float32 operators: %s (nothing of "
                   "the model was sent)", f32->name);
    return run_error(o, CLI_EXIT_DEVICE_ERROR, "model", msg);
  }
  utvm_host_compile_options_t opts =
      o->weights_tflite ? (utvm_host_compile_options_t){false, false, UTVM_KERNELS_PORTABLE}
                        : device_layout(run->host);
  opts.plain_convolutions = device_lacks_inplace(run->host, &run->graph);
  if (opts.plain_convolutions || opts.lay_out) {
    utvm_host_graph_free(&run->graph);
    err = utvm_host_compile_generic_with(run->model_bytes, run->model_size, &opts, &run->graph,
                                         why, sizeof(why));
    if (err != UTVM_OK) {
      (void)snprintf(msg, sizeof(msg), "model %s refused: %s", o->model, why);
      return run_error(o, CLI_EXIT_DEVICE_ERROR, "model", msg);
    }
  }
  ro.host_driven = (o->host_driven || o->per_layer) && (o->aot == NULL);
  ro.aot = o->aot;
  ro.per_layer = o->per_layer;
  ro.timed = true; /* host-driven: each call timed, so a run reports its time too */
  ro.number = o->number;
  ro.repeat = o->repeat;
  ro.min_repeat_ms = o->min_repeat_ms;
  ro.connect = o->transport;
  ro.deadline_s = o->deadline_s;
  code = cli_remote_run(run->host, &ro, &run->graph, inputs, outputs, &run->remote);
  if (code >= 0) {
    const char *kind = (run->remote.host_error != UTVM_HOST_OK)
                           ? utvm_host_strerror(run->remote.host_error) : "model";
    (void)snprintf(msg, sizeof(msg), "model %s on the device: %s", o->model, run->remote.error);
    return run_error(o, code, kind, msg);
  }
  *seconds = run->remote.seconds;
  return -1;
}

/* Per-operator lines of a device run: the graph's kernel functions and output entries. */
static void print_device_layers(const run_t *run, bool json) {
  const utvm_compiled_graph_t *g = &run->graph;
  for (uint32_t k = 0u; k < g->n_ops; k++) {
    const utvm_compiled_op_t *op = &g->ops[k];
    const utvm_compiled_entry_t *e = &g->entries[op->entries[op->n_inputs]];
    char shape[128];
    size_t len = 0u;
    for (uint32_t d = 0u; (d < e->ndim) && (len < sizeof(shape)); d++) {
      len += (size_t)snprintf(&shape[len], sizeof(shape) - len, "%s%lld", (d > 0u) ? "," : "",
                              (long long)e->shape[d]);
    }
    shape[(len < sizeof(shape)) ? len : sizeof(shape) - 1u] = '\0';
    if (json) {
      (void)printf("%s{\"index\": %u, \"function\": \"%s\", \"shape\": [%s], \"seconds\": %.9f}",
                   (k > 0u) ? ", " : "", k, op->func_name, shape, run->remote.layer_seconds[k]);
    } else {
      (void)printf("  %4u  %-28s [%s]%*s %12.3f\n", k, op->func_name, shape,
                   (len < 20u) ? (int)(20u - len) : 0, "", run->remote.layer_seconds[k] * 1e6);
    }
  }
}

static void print_device_json(const run_t *run) {
  const cli_remote_result_t *d = &run->remote;
  (void)printf(", \"device\": {\"path\": \"%s\", \"device_bytes\": %llu, \"device_free\": %llu, "
               "\"activation_bytes\": %llu, \"param_bytes\": %llu, \"upload_bytes\": %llu, "
               "\"upload_seconds\": %.6f, \"kernel_calls\": %u, \"deadline_seconds\": %g, "
               "\"recoveries\": %u}",
               (run->o->aot != NULL) ? "aot-executor"
               : (run->o->host_driven || run->o->per_layer) ? "host-driven" : "graph-executor",
               (unsigned long long)d->device_bytes, (unsigned long long)d->device_free,
               (unsigned long long)run->graph.activation_bytes,
               (unsigned long long)run->graph.param_bytes, (unsigned long long)d->upload_bytes,
               d->upload_seconds, run->graph.n_ops, d->deadline_s, (unsigned)d->recoveries);
}

static void print_device_text(const run_t *run) {
  const cli_remote_result_t *d = &run->remote;
  if (run->o->aot != NULL) {
    (void)printf("device      AOT executor: the firmware's model \"%s\"\n", run->o->aot);
    return;
  }
  (void)printf("device      %s: %u kernel calls, %llu bytes of tensor memory (activations "
               "%llu, parameters %llu) of %llu free\n",
               (run->o->aot != NULL) ? "AOT executor (the firmware's model)"
               : (run->o->host_driven || run->o->per_layer) ? "host-driven" : "graph executor",
               run->graph.n_ops, (unsigned long long)d->device_bytes,
               (unsigned long long)run->graph.activation_bytes,
               (unsigned long long)run->graph.param_bytes, (unsigned long long)d->device_free);
  (void)printf("upload      %llu bytes in %.3f s\n", (unsigned long long)d->upload_bytes,
               d->upload_seconds);
}

/* Invokes the model o->number times (the inputs put back before each: the activations may
 * share their bytes), *seconds the time per inference; -1, or the exit code of a failure. */
static int invoke_number(run_t *run, utvm_err_t *err, double *seconds) {
  const cli_run_options_t *o = run->o;
  const int number = (o->number > 0) ? o->number : 1;
  const uint32_t n_inputs = run->model.n_inputs;
  utvm_runner_tensor_t *inputs =
      (utvm_runner_tensor_t *)calloc((n_inputs > 0u) ? n_inputs : 1u, sizeof(*inputs));
  uint8_t **saved = (uint8_t **)calloc((n_inputs > 0u) ? n_inputs : 1u, sizeof(*saved));
  bool ok = (inputs != NULL) && (saved != NULL);
  for (uint32_t i = 0u; ok && (i < n_inputs); i++) {
    (void)utvm_runner_input(&run->runner, i, &inputs[i]);
    saved[i] = (uint8_t *)malloc((inputs[i].bytes > 0u) ? inputs[i].bytes : 1u);
    ok = saved[i] != NULL;
    if (ok) {
      (void)memcpy(saved[i], inputs[i].data, inputs[i].bytes);
    }
  }
  double t0 = run_now();
  for (int n = 0; ok && (n < number) && (*err == UTVM_OK); n++) {
    for (uint32_t i = 0u; (n > 0) && (i < n_inputs); i++) {
      (void)memcpy(inputs[i].data, saved[i], inputs[i].bytes);
    }
    *err = utvm_runner_invoke(&run->runner);
  }
  *seconds = (run_now() - t0) / (double)number;
  for (uint32_t i = 0u; (saved != NULL) && (i < n_inputs); i++) {
    free(saved[i]);
  }
  free(saved);
  free(inputs);
  return ok ? -1 : run_error(o, CLI_EXIT_USAGE, "usage", "out of memory");
}

static int run_model(run_t *run) {
  const cli_run_options_t *o = run->o;
  char msg[1024];
  int code = setup(run);
  if (code >= 0) {
    return code;
  }
  if (((uint32_t)o->num_inputs != run->model.n_inputs) &&
      !(o->time_only && (o->num_inputs == 0))) {
    (void)snprintf(msg, sizeof(msg), "the model has %u input(s), %d --input given",
                   run->model.n_inputs, o->num_inputs);
    return run_error(o, CLI_EXIT_USAGE, "usage", msg);
  }
  if ((uint32_t)o->num_outputs > run->model.n_outputs) {
    (void)snprintf(msg, sizeof(msg), "the model has %u output(s), %d --output given",
                   run->model.n_outputs, o->num_outputs);
    return run_error(o, CLI_EXIT_USAGE, "usage", msg);
  }
  for (uint32_t i = 0u; i < run->model.n_inputs; i++) {
    if (o->num_inputs == 0) {
      utvm_runner_tensor_t t;
      (void)utvm_runner_input(&run->runner, i, &t);
      (void)memset(t.data, 0, t.bytes);
      continue;
    }
    code = load_input(run, i);
    if (code >= 0) {
      return code;
    }
  }
  run->layer_seconds = (double *)calloc((size_t)run->model.n_operators + 1u, sizeof(double));
  if (run->layer_seconds == NULL) {
    return run_error(o, CLI_EXIT_USAGE, "usage", "out of memory");
  }
  double seconds = 0.0;
  utvm_err_t err = UTVM_OK;
  if (o->on_device) {
    code = run_on_device(run, &seconds);
    if (code >= 0) {
      return code;
    }
  } else if (o->per_layer) {
    for (uint32_t k = 0u; (k < run->model.n_operators) && (err == UTVM_OK); k++) {
      double t0 = run_now();
      err = utvm_runner_invoke_operator(&run->runner, k);
      run->layer_seconds[k] = run_now() - t0;
      seconds += run->layer_seconds[k];
    }
  } else {
    code = invoke_number(run, &err, &seconds);
    if (code >= 0) {
      return code;
    }
  }
  if (err != UTVM_OK) {
    (void)snprintf(msg, sizeof(msg), "model %s failed: %s", o->model, run->runner.error);
    return run_error(o, CLI_EXIT_DEVICE_ERROR, "model", msg);
  }
  for (uint32_t i = 0u; i < (uint32_t)o->num_outputs; i++) {
    code = write_output(run, i);
    if (code >= 0) {
      return code;
    }
  }
  if (o->json) {
    print_json(run, seconds);
  } else {
    print_text(run, seconds);
  }
  return CLI_EXIT_OK;
}

/* Runs a .tflite model on the host with the model runner; returns the exit code
 * (0 ok, 2 usage or input files, 4 a model the reader or runner refuses). */
static int run_file(const cli_run_options_t *o) {
  run_t run;
  (void)memset(&run, 0, sizeof(run));
  run.o = o;
  int code = run_model(&run);
  free(run.layer_seconds);
  free(run.remote.layer_seconds);
  utvm_host_graph_free(&run.graph);
  utvm_runner_deinit(&run.runner);
#if defined(UTVM_WITH_ACL)
  utvm_acl_offload_free(run.acl);
  free(run.acl_workspace);
#endif
  free(run.arena);
  free(run.workspace);
  free(run.model_bytes);
  return code;
}

/* utvm run --help. */
static const char run_help[] =
    "usage: utvm [--connect T [--host-driven]] [--json] run MODEL.tflite --input IN\n"
    "                [--input IN2 ...] [--output OUT ...] [--per-layer] [--labels A,B]\n"
    "                [--deadline S] [--number N] [--no-acl] [--acl-threads N]\n\n"
    "Runs MODEL on this host with the model runner (int8, int16 and float32 kernels,\n"
    "bit-exact with TFLite Micro's reference kernels); no device is started. The k-th\n"
    "--input fills graph input k, the k-th --output receives graph output k: IN/OUT ending in\n"
    ".npy are NumPy files (dtype and size must match the tensor), any other name holds\n"
    "the tensor's raw bytes (exactly its size). Prints the outputs, the arena size, the\n"
    "operator count and the time taken; --per-layer adds each operator with its time and\n"
    "output shape (JSON: \"layers\"); --labels A,B,C prints the label of output 0's\n"
    "largest value (JSON: \"answer\"). --json prints one object with arena_bytes,\n"
    "operators, output (values of output 0), outputs and seconds. Models of at most\n"
    "64 MiB. Exit codes: 0 ok, 2 usage (bad option, missing or wrong-size input file),\n"
    "4 a model the reader or the runner refuses (the text names the operator).\n"
    "--number N invokes the model N times (time: per inference).\n\n"
    "Built with the Arm Compute Library (preset aarch64-linux-acl, UTVM_WITH_ACL), the\n"
    "runner gives ACL the float32 CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and pools\n"
    "it accepts (layers configured once, auxiliary memory from a 64 MiB workspace) and\n"
    "runs the rest with its own kernels; the output's \"acl\" line says how many it\n"
    "took, --per-layer marks each with its auxiliary bytes. ACL sums in its own order:\n"
    "within 1e-5 of the runner's kernels, not bit-exact (docs/TFLITE.md). --no-acl: the\n"
    "runner's kernels only, to compare; --acl-threads N: ACL's threads (default: one\n"
    "per core).\n\n"
    "With --connect T (given on the command line; UTVM_CONNECT is not used here) the\n"
    "model runs on the device with no new firmware: it is compiled for the device's\n"
    "kernel functions (utvm_k_*), the graph JSON goes to tvm.graph_executor.create (as\n"
    "an uploaded tensor when it exceeds one request), each parameter is copied into\n"
    "the executor's storage (get_input), then the input, one timed run, the outputs;\n"
    "everything is freed afterwards. A model larger than the device's free tensor\n"
    "memory is refused before anything is uploaded. --host-driven: the host allocates\n"
    "the tensors and calls each operator's kernel function itself (no executor);\n"
    "--per-layer on a device implies it and times each call. --executor aot [--name\n"
    "NAME] runs the model built into the firmware (utvm_add_mlf of an AOT archive,\n"
    "tvmgen_NAME_*) through tvm.aot_executor.create; MODEL then only gives the inputs\n"
    "and outputs. Device errors exit 4, connection failures 3.\n\n"
    "On a device the run survives a bad link: a step that fails on the link (a lost\n"
    "reply, a timeout, a device reset, a broken session) is done again from its first\n"
    "unfinished item when the session survived, else the session is restarted (the\n"
    "device frees everything) and the device steps start again from the first; the\n"
    "compiled model and the inputs are kept. At most 20 recoveries, and all within\n"
    "--deadline S (default 30 + 20 x B x 10 / R seconds, B the bytes to move:\n"
    "parameters, graph JSON, inputs, outputs; R the link rate in bit/s: the baud of a\n"
    "serial: transport, 115200 when not given, else a nominal 1000000). A failure\n"
    "names the step and its cause (\"uploading parameter p15: ...\"); a passed\n"
    "deadline exits 3 with \"deadline of S s passed during STEP (PROGRESS)\". On a\n"
    "terminal stderr shows \"[step k/n] uploading parameters 45% (35/78 KB), 2\n"
    "recoveries\"; --json adds deadline_seconds and recoveries to \"device\".\n";

/* What run/time MODEL on a device needs to connect once its files are checked. */
typedef struct {
  const cli_options_t *o;
  utvm_host_t *host;
} model_connect_t;

static int connect_for_model(void *ctx, utvm_host_t **host) {
  model_connect_t *c = (model_connect_t *)ctx;
  int code = cli_connect(c->o, cli_log_to_stderr, &c->host);
  *host = c->host;
  return code;
}

/* run MODEL: the model runner on this host, or with --connect on the device (graph executor,
 * or --host-driven); time MODEL: timed on the device. */
int cli_run_model(const cli_options_t *o, bool time_only) {
  if (o->num_positional != 1) {
    return cli_usage_error(o, "%s needs one model file", time_only ? "time" : "run");
  }
  if ((o->num_inputs == 0) && !time_only) {
    return cli_usage_error(o, "run needs --input FILE for each graph input%s", "");
  }
  bool on_device = time_only || o->connect_given;
  if ((o->executor != NULL) && !on_device) {
    return cli_usage_error(o, "--executor runs the model on a device: add --connect TRANSPORT%s",
                           "");
  }
  if ((o->executor != NULL) && (strcmp(o->executor, "aot") == 0) &&
      (o->host_driven || o->per_layer)) {
    return cli_usage_error(o, "--executor aot runs the firmware's model: no --host-driven or "
                           "--per-layer%s", "");
  }
  if (o->host_driven && !on_device) {
    return cli_usage_error(o, "--host-driven runs the model on a device: add --connect "
                           "TRANSPORT%s", "");
  }
  model_connect_t c = {o, NULL};
  cli_run_options_t r;
  (void)memset(&r, 0, sizeof(r));
  r.json = o->json;
  r.per_layer = o->per_layer;
  r.model = o->positional[0];
  (void)memcpy(r.inputs, o->inputs, sizeof(r.inputs));
  r.num_inputs = o->num_inputs;
  (void)memcpy(r.outputs, o->outputs, sizeof(r.outputs));
  r.num_outputs = o->num_outputs;
  r.on_device = on_device;
  r.connect = connect_for_model;
  r.connect_ctx = &c;
  r.host_driven = o->host_driven;
  r.weights_tflite = o->weights_tflite;
  r.aot = ((o->executor != NULL) && (strcmp(o->executor, "aot") == 0))
              ? ((o->mlf_name != NULL) ? o->mlf_name : "default") : NULL;
  r.labels = o->labels;
  r.time_only = time_only;
  r.number = time_only ? o->number : 1;
  r.repeat = time_only ? o->repeat : 1;
  r.min_repeat_ms = time_only ? o->min_repeat_ms : 0;
  r.transport = o->connect;
  r.deadline_s = o->deadline_s;
  r.no_acl = o->no_acl;
  r.acl_threads = o->acl_threads;
  if (!on_device) {
    r.number = o->number;
  }
  int code = run_file(&r);
  utvm_host_close(c.host);
  return code;
}

static int run_main(const cli_options_t *o) { return cli_run_model(o, false); }

const cli_command_t cli_run_command = {"run", run_help, run_main};

/* Internal interfaces of the utvm command-line tool. */
#ifndef UTVM_CLI_H
#define UTVM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "utvm/host.h"
#include "utvm/host_compile.h"

/* Exit codes. */
enum {
  CLI_EXIT_OK = 0,
  CLI_EXIT_USAGE = 2,
  CLI_EXIT_CONNECTION = 3,
  CLI_EXIT_DEVICE_ERROR = 4,
  CLI_EXIT_DEVICE_RESET = 5
};

/* One command-line argument for a device function. Tensors keep their host copy. */
typedef struct {
  utvm_host_value_t value;
  bool is_tensor;
  void *host_data; /* tensor contents (malloc'd) */
  size_t nbytes;
  bool uploaded;   /* device memory allocated (value.v.tensor.data) */
} cli_arg_t;

/* Parses a typed argument (i:3, u:3, f:2.5, b:1, s:text, x:hex, n:, t:DTYPE:[..],
 * t:DTYPE:#2x3, npy:PATH, bin:DTYPE:[SHAPE]:PATH). Returns false with a message in err. */
bool cli_parse_arg(const char *text, cli_arg_t *out, char *err, size_t err_size);

/* Frees the host memory of an argument. */
void cli_arg_free(cli_arg_t *arg);

/* Writes text as a JSON string literal. */
void cli_json_string(FILE *out, const char *text, size_t len);

/* Prints tensor contents as a JSON/text array (same syntax): [1, 2, 3] or nested. */
void cli_print_tensor_data(FILE *out, const utvm_host_tensor_t *t, const void *data);

/* Prints a returned value: as JSON ({"type": ..., "value": ...}) or as text ("int 42"). */
void cli_print_value(FILE *out, const utvm_host_value_t *v, bool json);

/* Exit code of a host library error. */
int cli_exit_code(utvm_host_err_t err);

/* Most --input and --output files of utvm run. */
#define CLI_MAX_RUN_FILES 8

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
  const char *aot;   /* --executor aot: the firmware's AOT model of this name, or NULL */
  bool time_only;    /* utvm time MODEL: inputs optional (zeros), outputs not printed */
  int number;        /* time evaluator parameters */
  int repeat;
  int min_repeat_ms;
} cli_run_options_t;

/* Most operands of one operator in a host-driven run. */
#define CLI_REMOTE_MAX_OP_ARGS 16

/* How a compiled model runs on a device. */
typedef struct {
  bool host_driven; /* the host calls each operator's kernel function (else the graph executor) */
  const char *aot;  /* the device's AOT executor runs its built-in model of this name (the
                     * .tflite only gives the inputs and outputs), or NULL */
  bool per_layer;   /* time each operator (host-driven) */
  bool timed;       /* host-driven: time each operator even without per_layer */
  int number;       /* time evaluator: calls per measurement, measurements, minimum ms */
  int repeat;
  int min_repeat_ms;
} cli_remote_options_t;

/* A model input or output in host memory. */
typedef struct {
  void *data;
  size_t bytes;
} cli_remote_buffer_t;

/* What a device run measured and, on failure, why. */
typedef struct {
  double seconds;          /* device time of one inference (time evaluator mean) */
  double *layer_seconds;   /* [n_ops] per operator (host-driven, timed), malloc'd */
  uint64_t device_bytes;   /* device tensor memory the run needed (page-rounded) */
  uint64_t device_free;    /* the device's free tensor memory before the run (0: unknown) */
  uint64_t upload_bytes;   /* parameters (and graph JSON) uploaded */
  double upload_seconds;   /* time the parameter upload took */
  utvm_host_err_t host_error; /* the host library's error, UTVM_HOST_OK for others */
  char error[1024];
} cli_remote_result_t;

/* Runs compiled model g on the device behind host: uploads it, copies the n_inputs inputs in,
 * runs (timed), copies the outputs out and frees all it created on the device. Returns -1 on
 * success, else an exit code with res->error set. The caller frees res->layer_seconds. */
int cli_remote_run(utvm_host_t *host, const cli_remote_options_t *ro, const utvm_compiled_graph_t *g,
                   const cli_remote_buffer_t *inputs, cli_remote_buffer_t *outputs,
                   cli_remote_result_t *res);

/* utvm run: runs a .tflite model on the host with the model runner; returns the exit code
 * (0 ok, 2 usage or input files, 4 a model the reader or runner refuses). */
int cli_run(const cli_run_options_t *o);

/* What utvm compile writes. */
typedef struct {
  const char *model;
  const char *out_dir;  /* --generic -o DIR: DIR/graph.json and DIR/params.bin, or NULL */
  const char *mlf;      /* --mlf OUT.tar: a Model Library Format archive, or NULL */
  bool aot;             /* --executor aot (else graph) */
  const char *name;     /* --name: the MLF module name ("default") */
  bool json;
} cli_compile_options_t;

/* utvm compile: writes the files of c for its model; returns the exit code (0 ok, 2 usage or
 * files, 4 a model refused). */
int cli_compile(const cli_compile_options_t *c);

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
  bool json;
} cli_emit_options_t;

/* utvm compile -o DIR --name NET / --report: emits or reports; returns the exit code (0 ok,
 * 2 usage or files, 4 a model refused). */
int cli_emit(const cli_emit_options_t *e);

#endif /* UTVM_CLI_H */

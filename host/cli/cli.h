/* Internal interfaces of the utvm command-line tool. */
#ifndef UTVM_CLI_H
#define UTVM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "utvm/host.h"
#include "utvm/graph.h"
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
/* Most positional arguments after the command. */
#define CLI_MAX_ARGS 32
/* utvm bench: the largest (default) and smallest --max-size. */
#define CLI_BENCH_MAX_SIZE (1024u * 1024u)
#define CLI_BENCH_MIN_SIZE 1024u

/* The global options and the words after the command (main.c parses them; every option is
 * accepted with every command, each command reads its own). */
typedef struct {
  const char *connect;
  bool connect_given; /* --connect on the command line (run uses no UTVM_CONNECT) */
  bool host_driven;
  const char *labels;
  bool json;
  double timeout_s;
  double deadline_s; /* run/time MODEL on a device: --deadline, 0 for the default */
  double start_timeout_s;
  double retry_s;
  int number;
  int repeat;
  int min_repeat_ms;
  size_t bench_max;
  const char *command;
  const char *positional[CLI_MAX_ARGS];
  int num_positional;
  bool per_layer;
  bool generic;
  bool report;
  bool builtin_activations;
  bool io_in_activations;
  uint32_t patches;   /* --patches: UTVM_RUNNER_PATCHES_OFF (default), _AUTO or a count */
  bool weights_tflite; /* --weights tflite: constants in TFLite's layout (default core: laid
                          out for the --cpu's kernels) */
  bool requant_tables; /* --requant tables: requantization entries made at compile time
                          (default call: made per call) */
  bool no_acl;        /* run --no-acl: the runner's kernels only (a build with ACL) */
  int acl_threads;    /* run --acl-threads N: ACL's scheduler threads (0: one per core) */
  const char *date;
  const char *cpu;
  const char *sizes;
  const char *params;
  const char *mlf;
  const char *executor;
  const char *mlf_name;
  const char *out_dir;
  const char *inputs[CLI_MAX_RUN_FILES];
  int num_inputs;
  const char *outputs[CLI_MAX_RUN_FILES];
  int num_outputs;
  /* call/time on a device: the arguments after the function name, parsed (and their files
   * read) by cli_on_device before the device starts. */
  cli_arg_t *args;
  int num_args;
} cli_options_t;

/* A command: its name, its help (utvm NAME --help) and what runs it (returns the exit code). */
typedef struct {
  const char *name;
  const char *help;
  int (*run)(const cli_options_t *o);
} cli_command_t;

/* The commands, one file each (info.c, call.c, time.c, bench.c, logs.c, run.c, compile.c,
 * explain.c). */
extern const cli_command_t cli_info_command;
extern const cli_command_t cli_call_command;
extern const cli_command_t cli_time_command;
extern const cli_command_t cli_bench_command;
extern const cli_command_t cli_logs_command;
extern const cli_command_t cli_run_command;
extern const cli_command_t cli_compile_command;
extern const cli_command_t cli_explain_command;

/* Prints a usage error (fmt with one %s for detail; as JSON too with --json) and returns
 * CLI_EXIT_USAGE. */
int cli_usage_error(const cli_options_t *o, const char *fmt, const char *detail);

/* Reports a host library failure (with a hint; as JSON too with --json); returns the exit
 * code. */
int cli_report(const cli_options_t *o, utvm_host_err_t err, const char *detail);

/* Monotonic clock in seconds. */
double cli_now_s(void);

/* Prints a device log line on stderr ("device: TEXT"). */
void cli_log_to_stderr(void *ctx, const char *text, size_t len);

/* Installs the signal handlers that kill the transport's children, then opens the device of
 * o->connect with o's timeouts; returns -1 with *host set, or an exit code. */
int cli_connect(const cli_options_t *o, utvm_host_log_fn log, utvm_host_t **host);

/* Runs command on the device: parses positional[1..] as typed arguments into o->args when
 * typed_args (before anything starts), connects, runs, closes; returns the exit code. */
int cli_on_device(const cli_options_t *o, bool typed_args, utvm_host_log_fn log,
                  int (*command)(const cli_options_t *o, utvm_host_t *host));

/* Progress on stderr, on a terminal only and shown after a second: a bar for one long copy,
 * or one line for a run of several steps (steps > 0: utvm run/time MODEL on a device),
 * "[step k/n] LABEL 45% (35/78 KB), 2 recoveries (NOTE)", redrawn by the copies and steps. */
typedef struct {
  double start;
  bool shown;
  bool tty;             /* stderr is a terminal */
  const char *label;
  unsigned step;        /* step k of steps; steps 0: a single copy */
  unsigned steps;
  uint64_t step_done;   /* bytes the step copied before the current copy */
  uint64_t step_total;  /* bytes the step copies; 0: no percentage */
  unsigned recoveries;
  char note[64];        /* "" or a note in parentheses at the end */
  int width;            /* characters of the line drawn last */
} cli_progress_t;

/* Starts showing host's copy progress under label; cli_progress_end stops it. */
void cli_progress_begin(utvm_host_t *host, cli_progress_t *p, const char *label);
void cli_progress_end(utvm_host_t *host, cli_progress_t *p);

/* Redraws the line of a run of steps, with copy_done bytes of the current copy done. */
void cli_progress_show(cli_progress_t *p, uint64_t copy_done);

/* Uploads the tensors among o->args and gives each argument's value in values; *count is the
 * number of arguments. Returns -1, or the exit code of a failure. */
int cli_upload_args(const cli_options_t *o, utvm_host_t *host, utvm_host_value_t *values,
                    int *count);

/* Frees the device memory of the uploaded tensor arguments. */
void cli_free_device_args(utvm_host_t *host, cli_arg_t *args, int n);

/* The device's kernels (utvm_k_kernels of its system library: UTVM_KERNELS_INFO of its build)
 * into *info; false when it has no such function (older or TVM firmware) or does not answer
 * an int. */
bool cli_device_kernels(utvm_host_t *host, int64_t *info);

/* The first operator of g that calls a float32 arithmetic kernel function (UTVM_OP_KIND_IS_F32:
 * utvm_k_conv2d_f32 ... utvm_k_mean_f32), or NULL. */
const utvm_compiled_op_t *cli_first_f32_op(const utvm_compiled_graph_t *g);

/* run MODEL (on this host, or with --connect on the device) and, with time_only, time MODEL on
 * the device; returns the exit code. */
int cli_run_model(const cli_options_t *o, bool time_only);

/* Most operands of one operator in a host-driven run. */
#define CLI_REMOTE_MAX_OP_ARGS UTVM_GRAPH_MAX_OP_ARGS

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
  const char *connect; /* the transport specification (its link rate sets the default deadline) */
  double start_s;   /* cli_now_s() when the run started (before connecting) */
  double deadline_s; /* the run ends within this many seconds of start_s; 0: the default,
                      * 30 + 20 x (bytes to move x 10 bits / link rate), link rate the baud
                      * of a serial: transport (115200 when not given), else 1 Mbit/s */
} cli_remote_options_t;

/* A model input or output in host memory. */
typedef struct {
  void *data;
  size_t bytes;
} cli_remote_buffer_t;

/* Bytes of a device run's error text. */
#define CLI_REMOTE_ERROR_BYTES 1024

/* What a device run measured and, on failure, why. */
typedef struct {
  double seconds;          /* device time of one inference (time evaluator mean) */
  double *layer_seconds;   /* [n_ops] per operator (host-driven, timed), malloc'd */
  uint64_t device_bytes;   /* device tensor memory the run needed (page-rounded) */
  uint64_t device_free;    /* the device's free tensor memory before the run (0: unknown) */
  uint64_t upload_bytes;   /* parameters (and graph JSON) uploaded */
  double upload_seconds;   /* time the parameter upload took */
  double deadline_s;       /* the run's deadline (given or default) */
  uint32_t recoveries;     /* steps done again and sessions restarted after link failures */
  utvm_host_err_t host_error; /* the host library's error, UTVM_HOST_OK for others */
  char error[CLI_REMOTE_ERROR_BYTES];
} cli_remote_result_t;

/* Runs compiled model g on the device behind host: uploads it, copies the n_inputs inputs in,
 * runs (timed), copies the outputs out and frees all it created on the device. A step that
 * fails on the link is done again, or the session restarted and the run done again from its
 * first device step, until ro's deadline (docs/RECOVERY.md). Returns -1 on success, else an
 * exit code with res->error set ("STEP: CAUSE"). The caller frees res->layer_seconds. */
int cli_remote_run(utvm_host_t *host, const cli_remote_options_t *ro, const utvm_compiled_graph_t *g,
                   const cli_remote_buffer_t *inputs, cli_remote_buffer_t *outputs,
                   cli_remote_result_t *res);

#endif /* UTVM_CLI_H */

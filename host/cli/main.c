/* utvm: command-line client for a utvm (or TVM microTVM) device. */
#define _DEFAULT_SOURCE

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "utvm/rpc_server.h"

#define CLI_MAX_ARGS 32
#define CLI_LATENCY_CALLS 200
#define CLI_BENCH_MAX_SIZE (1024u * 1024u)
#define CLI_BENCH_MIN_SIZE 1024u
#define CLI_BENCH_SECONDS 0.3
#define CLI_BENCH_MAX_ROUNDS 50

typedef struct {
  const char *connect;
  bool connect_given; /* --connect on the command line (run uses no UTVM_CONNECT) */
  bool host_driven;
  const char *labels;
  bool json;
  double timeout_s;
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
  /* call/time: the arguments after the function name, parsed (and their files read) once,
   * before the device starts; main owns and frees them. */
  cli_arg_t *args;
  int num_args;
} cli_options_t;

static volatile sig_atomic_t interrupted;

static const char usage_text[] =
    "usage: utvm [--connect TRANSPORT] [--json] [--timeout S] COMMAND [ARGS...]\n"
    "\n"
    "Talks to a utvm or TVM microTVM device over the microTVM RPC protocol.\n"
    "\n"
    "commands:\n"
    "  info                  session, packet limits, device functions and link statistics\n"
    "  call FUNC [ARG...]    call FUNC (system library first, then globals) and print the\n"
    "                        result and every tensor argument after the call\n"
    "  time FUNC [ARG...]    time FUNC with the device's time evaluator\n"
    "                        (--number N --repeat R --min-repeat-ms M)\n"
    "  bench                 round-trip latency and transfer throughput (--max-size BYTES)\n"
    "  logs                  stay connected and print device logs until EOF or Ctrl-C\n"
    "  explain TEXT          print a device error text with its #<id> tokens (from a device\n"
    "                        built with UTVM_ERROR_TEXTS=OFF) replaced by their texts; no\n"
    "                        device needed\n"
    "  compile MODEL -o DIR --name NET | --report | --generic -o DIR | --mlf OUT.tar\n"
    "                        graph.json + params.bin for the kernel functions (no device)\n"
    "  run MODEL --input IN [--output OUT] [--per-layer]\n"
    "                        run a .tflite model on this host with the model runner (int8\n"
    "                        kernels, bit-exact with TFLite Micro); no device needed; with\n"
    "                        --connect on the device (graph executor, or --host-driven)\n"
    "  time MODEL.tflite [--input IN] [--per-layer]\n"
    "                        time a model on the device per inference (or per operator)\n"
    "\n"
    "arguments: i:INT u:UINT f:FLOAT b:0|1 s:TEXT x:HEXBYTES n: (null)\n"
    "           t:DTYPE:[1,2,3] (inline tensor, nested lists for more dimensions; every value\n"
    "           must fit DTYPE exactly: no fractions for integers, nothing out of range)\n"
    "           t:DTYPE:#2x3 (zero-filled tensor; at most 16 dimensions)\n"
    "           npy:PATH.npy   npy:DTYPE:PATH.npy (the file's dtype must be DTYPE)\n"
    "           bin:DTYPE:[SHAPE]:PATH (raw little-endian file of exactly DTYPE x SHAPE\n"
    "           bytes, e.g. bin:int8:[1,49,10,1]:input.bin)\n"
    "\n"
    "options:\n"
    "  --connect T       exec:CMD | serial:PATH[@BAUD] | tcp:HOST:PORT | qemu:BOARD[:ELF] |\n"
    "                    fault:OPTIONS/T (default: environment variable UTVM_CONNECT)\n"
    "  --json            machine-readable output on stdout\n"
    "  --timeout S       reply timeout in seconds (default 10)\n"
    "  --start-timeout S handshake timeout in seconds (default 5)\n"
    "  --retry S         handshake retry interval in seconds (default 0.5)\n"
    "  --help            this text (COMMAND --help: that command's help)\n"
    "\n"
    "transports: qemu:BOARD runs build/BOARD/bin/utvm-server.elf (looked for under\n"
    "  $UTVM_BUILD_DIR, ./build, the build this tool belongs to and its source tree's build/);\n"
    "  QEMU runs with -icount shift=0, so its timings are virtual: 1 ns per instruction.\n"
    "  fault:OPTIONS/T wraps transport T in a fault injector for recovery tests: OPTIONS\n"
    "  is key=value,... of seed, ber, drop, insert, dup (tx./rx. prefix: one direction),\n"
    "  split, delay_us, reset_at; e.g. fault:seed=7,ber=1e-4,split=1/exec:./utvm-posix-server\n"
    "\n"
    "exit codes: 0 ok, 2 usage, 3 connection failure, 4 device error (run: model refused),\n"
    "  5 device reset, 130 interrupted (SIGINT), 143 terminated (SIGTERM), 129 hung up\n"
    "  (SIGHUP); on a signal the transport's child processes (QEMU, exec: commands) are\n"
    "  killed first\n";

/* Each command's own help (utvm COMMAND --help). */
static const struct {
  const char *command;
  const char *help;
} command_help[] = {
    {"info", "usage: utvm [--connect T] [--json] info\n\n"
             "Prints the session, packet limits, the device's global functions and the functions\n"
             "of its system library (when the device lists them: utvm.crt.FunctionName), tensor\n"
             "memory and link statistics.\n"},
    {"call", "usage: utvm [--connect T] [--json] call FUNC [ARG...]\n\n"
             "Calls FUNC (system library first, then globals) with typed arguments and prints\n"
             "the result and every tensor argument after the call. Arguments: i:INT u:UINT\n"
             "f:FLOAT b:0|1 s:TEXT x:HEX n: t:DTYPE:[..] t:DTYPE:#SHAPE npy:[DTYPE:]PATH\n"
             "bin:DTYPE:[SHAPE]:PATH (raw bytes, size checked against DTYPE x SHAPE)\n"
             "(see utvm --help). Arguments are checked before the device is started.\n"},
    {"time", "usage: utvm [--connect T] [--json] time FUNC [ARG...] [--number N] [--repeat R]\n"
             "                 [--min-repeat-ms M]\n\n"
             "Times system library function FUNC with the device's time evaluator: R repeats\n"
             "of N calls each (N grows until a repeat lasts M ms); prints mean, median, min,\n"
             "max and stddev per call. Under QEMU (qemu: transport) the times are -icount\n"
             "virtual time: 1 ns = 1 instruction. A device timer that does not run is an\n"
             "error, never a 0 us result.\n\n"
             "usage: utvm [--connect T] [--json] time MODEL.tflite [--input IN ...] [--per-layer]\n"
             "                 [--host-driven] [--number N] [--repeat R] [--min-repeat-ms M]\n\n"
             "Runs MODEL on the device as 'utvm --connect T run MODEL' does (inputs are zeros\n"
             "without --input) and times one inference: the time evaluator on the graph\n"
             "executor's run; --per-layer (implies --host-driven) times each operator's\n"
             "kernel function instead.\n"},
    {"bench", "usage: utvm [--connect T] [--json] bench [--max-size BYTES]\n\n"
              "Measures the null-call round trip and upload/download throughput for copies from\n"
              "1 KiB up to --max-size (default 1 MiB, or the largest block the device grants).\n"},
    {"logs", "usage: utvm [--connect T] [--json] logs\n\n"
             "Stays connected and prints device logs until EOF or Ctrl-C (exit code 0).\n"},
    {"run", "usage: utvm [--connect T [--host-driven]] [--json] run MODEL.tflite --input IN\n"
            "                [--input IN2 ...] [--output OUT ...] [--per-layer] [--labels A,B]\n\n"
            "Runs MODEL on this host with the model runner (the int8 kernels, bit-exact with\n"
            "TensorFlow Lite Micro's reference kernels); no device is started. The k-th --input\n"
            "fills graph input k, the k-th --output receives graph output k: IN/OUT ending in\n"
            ".npy are NumPy files (dtype and size must match the tensor), any other name holds\n"
            "the tensor's raw bytes (exactly its size). Prints the outputs, the arena size, the\n"
            "operator count and the time taken; --per-layer adds each operator with its time and\n"
            "output shape (JSON: \"layers\"); --labels A,B,C prints the label of output 0's\n"
            "largest value (JSON: \"answer\"). --json prints one object with arena_bytes,\n"
            "operators, output (values of output 0), outputs and seconds. Models of at most\n"
            "64 MiB. Exit codes: 0 ok, 2 usage (bad option, missing or wrong-size input file),\n"
            "4 a model the reader or the runner refuses (the text names the operator).\n\n"
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
            "and outputs. Device errors exit 4, connection failures 3.\n"},
    {"compile", "usage: utvm compile MODEL -o DIR --name NET --cpu CPU [--builtin-activations]\n"
                "                     [--io-in-activations] [--date DATE]\n"
                "                     [--params GRAPH.params]\n"
                "       utvm [--json] compile MODEL.tflite --report --cpu CPU [--sizes TABLE]\n"
                "                     [--io-in-activations]\n"
                "       utvm [--json] compile MODEL.tflite --generic -o DIR\n"
                "       utvm [--json] compile MODEL.tflite --mlf OUT.tar [--executor graph|aot]\n"
                "                     [--name NAME]\n\n"
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
                "object with activations_bytes, params_bytes, memory, ...).\n\n"
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
                "runner's checks.\n\n"
                "A failed compile removes the DIR it created (a DIR that existed stays). Exit\n"
                "codes: 0 ok, 2 usage (bad option, unreadable model, unwritable DIR), 4 a model\n"
                "the reader, the runner or the compiler refuses.\n"},
    {"explain", "usage: utvm explain TEXT\n\n"
                "Replaces the #<id> tokens of a device error text (a device built with\n"
                "UTVM_ERROR_TEXTS=OFF) by their texts; needs no device.\n"},
};

/* The help of command, or NULL for an unknown command. */
static const char *help_of(const char *command) {
  for (size_t i = 0u; (command != NULL) && (i < sizeof(command_help) / sizeof(command_help[0]));
       i++) {
    if (strcmp(command, command_help[i].command) == 0) {
      return command_help[i].help;
    }
  }
  return NULL;
}

static int usage_error(const cli_options_t *o, const char *fmt, const char *detail) {
  (void)fprintf(stderr, "utvm: ");
  (void)fprintf(stderr, fmt, detail);
  (void)fprintf(stderr, "\n(run 'utvm --help' for usage)\n");
  if ((o != NULL) && o->json) {
    (void)printf("{\"ok\": false, \"exit_code\": %d, \"kind\": \"usage\", \"error\": ",
                 CLI_EXIT_USAGE);
    char msg[512];
    (void)snprintf(msg, sizeof(msg), fmt, detail);
    cli_json_string(stdout, msg, strlen(msg));
    (void)printf("}\n");
  }
  return CLI_EXIT_USAGE;
}

/* Reports a host library failure; returns the exit code. */
static int report(const cli_options_t *o, utvm_host_err_t err, const char *detail) {
  int code = cli_exit_code(err);
  const char *hint = "";
  if (code == CLI_EXIT_CONNECTION) {
    hint = "check --connect (or UTVM_CONNECT), that the device runs the utvm server, and the "
           "timeouts";
  } else if (code == CLI_EXIT_DEVICE_RESET) {
    hint = "the device rebooted; the last device log above shows why";
  } else if (err == UTVM_HOST_ERR_NOT_FOUND) {
    hint = "check the function name (system library functions and globals are searched)";
  } else {
    hint = "";
  }
  (void)fprintf(stderr, "utvm: %s: %s\n", utvm_host_strerror(err), detail);
  if (hint[0] != '\0') {
    (void)fprintf(stderr, "utvm: hint: %s\n", hint);
  }
  if (o->json) {
    (void)printf("{\"ok\": false, \"exit_code\": %d, \"kind\": \"%s\", \"error\": ", code,
                 utvm_host_strerror(err));
    cli_json_string(stdout, detail, strlen(detail));
    (void)printf("}\n");
  }
  return code;
}

static bool parse_double(const char *text, double *out) {
  char *end = NULL;
  *out = strtod(text, &end);
  return (end != text) && (*end == '\0') && (*out >= 0.0);
}

static bool parse_int(const char *text, int *out) {
  char *end = NULL;
  long v = strtol(text, &end, 10);
  if ((end == text) || (*end != '\0') || (v < 0) || (v > 0x7FFFFFFF)) {
    return false;
  }
  *out = (int)v;
  return true;
}

/* Parses argv; returns -1 to continue, else an exit code. */
static int parse_options(int argc, char **argv, cli_options_t *o) {
  (void)memset(o, 0, sizeof(*o));
  o->connect = getenv("UTVM_CONNECT");
  o->timeout_s = 10.0;
  o->start_timeout_s = 5.0;
  o->retry_s = 0.5;
  o->number = 1;
  o->repeat = 3;
  o->min_repeat_ms = 0;
  o->bench_max = CLI_BENCH_MAX_SIZE;
  bool options_done = false;
  bool help = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!options_done && (strcmp(a, "--") == 0)) {
      options_done = true;
      continue;
    }
    if (!options_done && (strcmp(a, "-o") == 0)) {
      if (i + 1 >= argc) {
        return usage_error(o, "option %s needs a value", a);
      }
      o->out_dir = argv[++i];
      continue;
    }
    if (!options_done && (strncmp(a, "--", 2u) == 0)) {
      if ((strcmp(a, "--help") == 0) || (strcmp(a, "-h") == 0)) {
        help = true;
        continue;
      }
      if (strcmp(a, "--json") == 0) {
        o->json = true;
        continue;
      }
      if (strcmp(a, "--per-layer") == 0) {
        o->per_layer = true;
        continue;
      }
      if (strcmp(a, "--generic") == 0) {
        o->generic = true;
        continue;
      }
      if (strcmp(a, "--report") == 0) {
        o->report = true;
        continue;
      }
      if (strcmp(a, "--builtin-activations") == 0) {
        o->builtin_activations = true;
        continue;
      }
      if (strcmp(a, "--io-in-activations") == 0) {
        o->io_in_activations = true;
        continue;
      }
      if (strcmp(a, "--host-driven") == 0) {
        o->host_driven = true;
        continue;
      }
      if (i + 1 >= argc) {
        return usage_error(o, "option %s needs a value", a);
      }
      const char *v = argv[++i];
      bool ok = true;
      int bench_max = 0;
      if (strcmp(a, "--connect") == 0) {
        o->connect = v;
        o->connect_given = true;
      } else if ((strcmp(a, "--input") == 0) || (strcmp(a, "--output") == 0)) {
        bool input = strcmp(a, "--input") == 0;
        int *count = input ? &o->num_inputs : &o->num_outputs;
        if (*count >= CLI_MAX_RUN_FILES) {
          return usage_error(o, "too many %s files (at most 8)", a);
        }
        (input ? o->inputs : o->outputs)[(*count)++] = v;
      } else if (strcmp(a, "--mlf") == 0) {
        o->mlf = v;
      } else if (strcmp(a, "--date") == 0) {
        o->date = v;
      } else if (strcmp(a, "--cpu") == 0) {
        o->cpu = v;
      } else if (strcmp(a, "--sizes") == 0) {
        o->sizes = v;
      } else if (strcmp(a, "--params") == 0) {
        o->params = v;
      } else if (strcmp(a, "--executor") == 0) {
        o->executor = v;
        ok = (strcmp(v, "graph") == 0) || (strcmp(v, "aot") == 0);
      } else if (strcmp(a, "--name") == 0) {
        o->mlf_name = v;
      } else if (strcmp(a, "--labels") == 0) {
        o->labels = v;
      } else if (strcmp(a, "--timeout") == 0) {
        ok = parse_double(v, &o->timeout_s) && (o->timeout_s > 0.0);
      } else if (strcmp(a, "--start-timeout") == 0) {
        ok = parse_double(v, &o->start_timeout_s) && (o->start_timeout_s > 0.0);
      } else if (strcmp(a, "--retry") == 0) {
        ok = parse_double(v, &o->retry_s);
      } else if (strcmp(a, "--number") == 0) {
        ok = parse_int(v, &o->number) && (o->number > 0);
      } else if (strcmp(a, "--repeat") == 0) {
        ok = parse_int(v, &o->repeat) && (o->repeat > 0);
      } else if (strcmp(a, "--min-repeat-ms") == 0) {
        ok = parse_int(v, &o->min_repeat_ms);
      } else if (strcmp(a, "--max-size") == 0) {
        ok = parse_int(v, &bench_max) && (bench_max >= (int)CLI_BENCH_MIN_SIZE);
        o->bench_max = (size_t)bench_max;
      } else {
        return usage_error(o, "unknown option %s", a);
      }
      if (!ok) {
        return usage_error(o, "bad value '%s'", v);
      }
    } else if (o->command == NULL) {
      o->command = a;
    } else if (o->num_positional < CLI_MAX_ARGS) {
      o->positional[o->num_positional++] = a;
    } else {
      return usage_error(o, "too many arguments (at most %s)", "32");
    }
  }
  if (help) {
    const char *command_text = help_of(o->command);
    (void)fputs((command_text != NULL) ? command_text : usage_text, stdout);
    return CLI_EXIT_OK;
  }
  if (o->command == NULL) {
    (void)fputs(usage_text, stderr);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

static double now_s(void) {
  struct timespec ts;
  (void)clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void log_to_stderr(void *ctx, const char *text, size_t len) {
  (void)ctx;
  (void)fprintf(stderr, "device: %.*s\n", (int)len, text);
}

static void log_as_json(void *ctx, const char *text, size_t len) {
  (void)ctx;
  (void)printf("{\"log\": ");
  cli_json_string(stdout, text, len);
  (void)printf("}\n");
  (void)fflush(stdout);
}

static int connect_device(const cli_options_t *o, utvm_host_log_fn log, utvm_host_t **host) {
  if ((o->connect == NULL) || (o->connect[0] == '\0')) {
    return usage_error(o, "no device given: use --connect TRANSPORT or set UTVM_CONNECT%s", "");
  }
  utvm_host_options_t opts;
  utvm_host_options_default(&opts);
  opts.call_timeout_ms = (int32_t)(o->timeout_s * 1000.0);
  opts.start_timeout_ms = (int32_t)(o->start_timeout_s * 1000.0);
  opts.retry_ms = (int32_t)(o->retry_s * 1000.0);
  opts.log = log;
  char err[1024];
  utvm_host_err_t rc = utvm_host_open(o->connect, &opts, host, err, sizeof(err));
  if (rc != UTVM_HOST_OK) {
    return report(o, (rc == UTVM_HOST_ERR_ARGUMENT) ? rc : UTVM_HOST_ERR_CONNECT, err);
  }
  return -1;
}

/* ------------------------------------------------------------------ progress bar */

typedef struct {
  double start;
  bool shown;
  const char *label;
} progress_t;

static void progress_update(void *ctx, size_t done, size_t total) {
  progress_t *p = (progress_t *)ctx;
  if ((now_s() - p->start) < 1.0) {
    return;
  }
  int width = 30;
  int filled = (int)((double)width * (double)done / (double)total);
  (void)fprintf(stderr, "\r%s [", p->label);
  for (int i = 0; i < width; i++) {
    (void)fputc((i < filled) ? '=' : ' ', stderr);
  }
  (void)fprintf(stderr, "] %3d%%", (int)(100.0 * (double)done / (double)total));
  p->shown = true;
}

static void progress_begin(utvm_host_t *host, progress_t *p, const char *label) {
  p->start = now_s();
  p->shown = false;
  p->label = label;
  if (isatty(STDERR_FILENO)) {
    utvm_host_set_progress(host, progress_update, p);
  }
}

static void progress_end(utvm_host_t *host, progress_t *p) {
  if (p->shown) {
    (void)fputc('\n', stderr);
  }
  utvm_host_set_progress(host, NULL, NULL);
}

/* ------------------------------------------------------------------ arguments on the device */

/* Frees the device memory of the uploaded tensor arguments (main frees their host copies). */
static void free_device_args(utvm_host_t *host, cli_arg_t *args, int n) {
  for (int i = 0; i < n; i++) {
    if (args[i].uploaded) {
      (void)utvm_host_dev_free_data(host, args[i].value.v.tensor.device,
                                    args[i].value.v.tensor.data);
      args[i].uploaded = false;
    }
  }
}

/* Uploads the tensors among the parsed arguments (o->args) and gives each argument's value in
 * values; *count is the number of arguments. */
static int prepare_args(const cli_options_t *o, utvm_host_t *host, utvm_host_value_t *values,
                        int *count) {
  *count = o->num_args;
  for (int i = 0; i < o->num_args; i++) {
    cli_arg_t *a = &o->args[i];
    if (a->is_tensor) {
      utvm_host_tensor_t *t = &a->value.v.tensor;
      utvm_host_err_t rc = utvm_host_dev_alloc_data_with_scope(host, t, NULL, &t->data);
      if (rc == UTVM_HOST_OK) {
        a->uploaded = true;
        progress_t p;
        progress_begin(host, &p, "upload");
        rc = utvm_host_copy_to_device(host, t, a->host_data, a->nbytes);
        progress_end(host, &p);
      }
      if (rc != UTVM_HOST_OK) {
        return report(o, rc, utvm_host_last_error(host));
      }
    }
    values[i] = a->value;
  }
  return -1;
}

/* ------------------------------------------------------------------ commands */

static int cmd_call(const cli_options_t *o, utvm_host_t *host) {
  if (o->num_positional < 1) {
    return usage_error(o, "call needs a function name%s", "");
  }
  const char *name = o->positional[0];
  uint64_t function = 0u;
  bool in_syslib = false;
  utvm_host_err_t rc = utvm_host_find_function(host, name, &function, &in_syslib);
  if (rc != UTVM_HOST_OK) {
    return report(o, rc, utvm_host_last_error(host));
  }
  cli_arg_t *args = o->args;
  utvm_host_value_t values[CLI_MAX_ARGS];
  int n = 0;
  int exit_code = prepare_args(o, host, values, &n);
  utvm_host_value_t ret;
  if (exit_code < 0) {
    rc = utvm_host_call(host, function, values, (size_t)n, &ret);
    if (rc != UTVM_HOST_OK) {
      exit_code = report(o, rc, utvm_host_last_error(host));
    }
  }
  void *nd_data = NULL;
  if ((exit_code < 0) && (ret.type_code == UTVM_TC_NDARRAY)) {
    size_t nbytes = utvm_host_tensor_nbytes(&ret.v.tensor);
    nd_data = malloc((nbytes > 0u) ? nbytes : 1u);
    utvm_host_tensor_t t = ret.v.tensor;
    uint64_t nd = ret.ndarray_handle;
    rc = (nd_data != NULL) ? utvm_host_copy_from_device(host, &t, nd_data, nbytes)
                           : UTVM_HOST_ERR_NO_MEMORY;
    utvm_host_err_t free_rc = utvm_host_free_handle(host, nd, UTVM_TC_NDARRAY);
    rc = (rc != UTVM_HOST_OK) ? rc : free_rc;
    ret.type_code = UTVM_TC_NDARRAY;
    ret.v.tensor = t;
    ret.ndarray_handle = nd;
    if (rc != UTVM_HOST_OK) {
      exit_code = report(o, rc, utvm_host_last_error(host));
    }
  }
  /* Download the tensors (the call may have written them) before printing. */
  void *outputs[CLI_MAX_ARGS];
  (void)memset(outputs, 0, sizeof(outputs));
  for (int i = 0; (exit_code < 0) && (i < n); i++) {
    if (args[i].is_tensor) {
      outputs[i] = malloc((args[i].nbytes > 0u) ? args[i].nbytes : 1u);
      rc = (outputs[i] != NULL) ? utvm_host_copy_from_device(host, &args[i].value.v.tensor,
                                                             outputs[i], args[i].nbytes)
                                : UTVM_HOST_ERR_NO_MEMORY;
      if (rc != UTVM_HOST_OK) {
        exit_code = report(o, rc, utvm_host_last_error(host));
      }
    }
  }
  if (exit_code < 0) {
    FILE *out = stdout;
    char dtype[32];
    if (o->json) {
      (void)fprintf(out, "{\"ok\": true, \"function\": ");
      cli_json_string(out, name, strlen(name));
      (void)fprintf(out, ", \"system_lib\": %s, \"return\": ", in_syslib ? "true" : "false");
      cli_print_value(out, &ret, true);
      if (ret.type_code == UTVM_TC_NDARRAY) {
        (void)fprintf(out, ", \"return_data\": ");
        cli_print_tensor_data(out, &ret.v.tensor, nd_data);
      }
      (void)fprintf(out, ", \"tensors\": [");
      bool first = true;
      for (int i = 0; i < n; i++) {
        if (!args[i].is_tensor) {
          continue;
        }
        const utvm_host_tensor_t *t = &args[i].value.v.tensor;
        utvm_host_dtype_name(t->dtype, dtype, sizeof(dtype));
        (void)fprintf(out, "%s{\"arg\": %d, \"dtype\": \"%s\", \"shape\": [", first ? "" : ", ",
                      i, dtype);
        for (int32_t d = 0; d < t->ndim; d++) {
          (void)fprintf(out, "%s%lld", (d > 0) ? ", " : "", (long long)t->shape[d]);
        }
        (void)fprintf(out, "], \"data\": ");
        cli_print_tensor_data(out, t, outputs[i]);
        (void)fprintf(out, "}");
        first = false;
      }
      (void)fprintf(out, "]}\n");
    } else {
      (void)fprintf(out, "return: ");
      cli_print_value(out, &ret, false);
      if (ret.type_code == UTVM_TC_NDARRAY) {
        (void)fprintf(out, " ");
        cli_print_tensor_data(out, &ret.v.tensor, nd_data);
      }
      (void)fprintf(out, "\n");
      for (int i = 0; i < n; i++) {
        if (args[i].is_tensor) {
          utvm_host_dtype_name(args[i].value.v.tensor.dtype, dtype, sizeof(dtype));
          (void)fprintf(out, "arg %d (%s): ", i, dtype);
          cli_print_tensor_data(out, &args[i].value.v.tensor, outputs[i]);
          (void)fprintf(out, "\n");
        }
      }
    }
    exit_code = CLI_EXIT_OK;
  }
  for (int i = 0; i < n; i++) {
    free(outputs[i]);
  }
  free(nd_data);
  free_device_args(host, args, n);
  return exit_code;
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a;
  double y = *(const double *)b;
  return (x < y) ? -1 : ((x > y) ? 1 : 0);
}

static int cmd_time(const cli_options_t *o, utvm_host_t *host) {
  if (o->num_positional < 1) {
    return usage_error(o, "time needs a function name%s", "");
  }
  const char *name = o->positional[0];
  uint64_t module = 0u;
  uint64_t function = 0u;
  utvm_host_err_t rc = utvm_host_system_lib(host, &module);
  if (rc == UTVM_HOST_OK) {
    rc = utvm_host_module_get_function(host, module, name, &function);
  }
  if (rc != UTVM_HOST_OK) {
    char detail[1200];
    (void)snprintf(detail, sizeof(detail), "%s (only system library functions can be timed)",
                   utvm_host_last_error(host));
    return report(o, rc, detail);
  }
  (void)utvm_host_free_handle(host, function, UTVM_TC_FUNCTION);
  cli_arg_t *args = o->args;
  utvm_host_value_t values[CLI_MAX_ARGS];
  int n = 0;
  int exit_code = prepare_args(o, host, values, &n);
  double *seconds = NULL;
  size_t count = 0u;
  if (exit_code < 0) {
    utvm_host_time_params_t params;
    utvm_host_time_params_default(&params);
    params.number = o->number;
    params.repeat = o->repeat;
    params.min_repeat_ms = o->min_repeat_ms;
    rc = utvm_host_time(host, module, name, &params, values, (size_t)n, &seconds, &count);
    if (rc != UTVM_HOST_OK) {
      exit_code = report(o, rc, utvm_host_last_error(host));
    } else if (count == 0u) {
      exit_code = report(o, UTVM_HOST_ERR_PROTOCOL, "the time evaluator returned no results");
    } else {
      exit_code = -1;
    }
  }
  if (exit_code < 0) {
    double sum = 0.0;
    for (size_t i = 0u; i < count; i++) {
      sum += seconds[i];
    }
    double mean = sum / (double)count;
    double var = 0.0;
    for (size_t i = 0u; i < count; i++) {
      var += (seconds[i] - mean) * (seconds[i] - mean);
    }
    double stddev = sqrt(var / (double)count);
    double *sorted = (double *)malloc(count * sizeof(double));
    double median = mean;
    if (sorted != NULL) {
      (void)memcpy(sorted, seconds, count * sizeof(double));
      qsort(sorted, count, sizeof(double), compare_double);
      median = ((count % 2u) == 1u) ? sorted[count / 2u]
                                    : 0.5 * (sorted[count / 2u - 1u] + sorted[count / 2u]);
    }
    double min = (sorted != NULL) ? sorted[0] : mean;
    double max = (sorted != NULL) ? sorted[count - 1u] : mean;
    free(sorted);
    if (o->json) {
      (void)printf("{\"ok\": true, \"function\": ");
      cli_json_string(stdout, name, strlen(name));
      (void)printf(", \"number\": %d, \"repeat\": %d, \"min_repeat_ms\": %d, \"results_s\": [",
                   o->number, o->repeat, o->min_repeat_ms);
      for (size_t i = 0u; i < count; i++) {
        (void)printf("%s%.9g", (i > 0u) ? ", " : "", seconds[i]);
      }
      (void)printf("], \"mean_s\": %.9g, \"median_s\": %.9g, \"min_s\": %.9g, \"max_s\": %.9g, "
                   "\"stddev_s\": %.9g}\n", mean, median, min, max, stddev);
    } else {
      (void)printf("%s: %zu measurements (number %d, min_repeat_ms %d), per call:\n", name,
                   count, o->number, o->min_repeat_ms);
      (void)printf("  mean   %12.3f us\n  median %12.3f us\n  min    %12.3f us\n"
                   "  max    %12.3f us\n  stddev %12.3f us\n", mean * 1e6, median * 1e6,
                   min * 1e6, max * 1e6, stddev * 1e6);
    }
    exit_code = CLI_EXIT_OK;
  }
  free(seconds);
  free_device_args(host, args, n);
  return exit_code;
}

/* Most names listed per function table. */
#define CLI_MAX_LISTED_FUNCTIONS 256

/* Names of the device's function tables through utvm.crt.FunctionName (table 0: system
 * library, 1: globals), malloc'd into names[table] with counts[table]; listed is false for a
 * device without that function (TVM's). */
typedef struct {
  bool listed;
  char *names[2][CLI_MAX_LISTED_FUNCTIONS];
  size_t counts[2];
} function_lists_t;

static void function_lists_free(function_lists_t *lists) {
  for (size_t t = 0u; t < 2u; t++) {
    for (size_t i = 0u; i < lists->counts[t]; i++) {
      free(lists->names[t][i]);
    }
    lists->counts[t] = 0u;
  }
}

static utvm_host_err_t list_functions(utvm_host_t *host, function_lists_t *lists) {
  (void)memset(lists, 0, sizeof(*lists));
  uint64_t f = 0u;
  utvm_host_err_t rc = utvm_host_get_global(host, "utvm.crt.FunctionName", &f);
  if ((rc != UTVM_HOST_OK) || (f == 0u)) {
    return rc;
  }
  lists->listed = true;
  for (size_t t = 0u; t < 2u; t++) {
    for (size_t i = 0u; i < CLI_MAX_LISTED_FUNCTIONS; i++) {
      utvm_host_value_t args[2];
      (void)memset(args, 0, sizeof(args));
      args[0].type_code = UTVM_TC_INT;
      args[0].v.i = (int64_t)t;
      args[1].type_code = UTVM_TC_INT;
      args[1].v.i = (int64_t)i;
      utvm_host_value_t ret;
      rc = utvm_host_call(host, f, args, 2u, &ret);
      if (rc != UTVM_HOST_OK) {
        return rc;
      }
      if (ret.type_code != UTVM_TC_STR) {
        break;
      }
      char *name = (char *)malloc(ret.v.bytes.len + 1u);
      if (name == NULL) {
        return UTVM_HOST_ERR_NO_MEMORY;
      }
      (void)memcpy(name, ret.v.bytes.data, ret.v.bytes.len);
      name[ret.v.bytes.len] = '\0';
      lists->names[t][lists->counts[t]++] = name;
    }
  }
  return UTVM_HOST_OK;
}

static int cmd_info(const cli_options_t *o, utvm_host_t *host) {
  static const char *const globals[] = {
      "runtime.SystemLib", "tvm.rpc.server.ModuleGetFunction",
      "tvm.rpc.server.GetCRTMaxPacketSize", "utvm.rpc.server.GetMaxTransferSize",
      "runtime.RPCTimeEvaluator", "tvm.aot_executor.create", "tvm.graph_executor.create"};
  bool present[sizeof(globals) / sizeof(globals[0])];
  int64_t sizes[2] = {0, 0};
  for (size_t i = 0u; i < sizeof(globals) / sizeof(globals[0]); i++) {
    uint64_t handle = 0u;
    utvm_host_err_t rc = utvm_host_get_global(host, globals[i], &handle);
    if (rc != UTVM_HOST_OK) {
      return report(o, rc, utvm_host_last_error(host));
    }
    present[i] = (handle != 0u);
    if (present[i] && ((i == 2u) || (i == 3u))) {
      utvm_host_value_t ret;
      rc = utvm_host_call(host, handle, NULL, 0u, &ret);
      if (rc != UTVM_HOST_OK) {
        return report(o, rc, utvm_host_last_error(host));
      }
      sizes[i - 2u] = ret.v.i;
    }
  }
  uint64_t max_packet = 0u;
  utvm_host_err_t rc = utvm_host_max_packet(host, &max_packet);
  if (rc != UTVM_HOST_OK) {
    return report(o, rc, utvm_host_last_error(host));
  }
  /* RPC protocol: InitServer succeeds only if the device speaks this host's version. */
  rc = utvm_host_init_server(host);
  if ((rc != UTVM_HOST_OK) && (rc != UTVM_HOST_ERR_DEVICE_EXCEPTION)) {
    return report(o, rc, utvm_host_last_error(host));
  }
  bool protocol_ok = (rc == UTVM_HOST_OK);
  /* Device attributes of cpu(0) the device answers (kExist, total and free tensor memory). */
  static const int32_t attr_kinds[3] = {0, 14, 15};
  static const char *const attr_names[3] = {"exist", "total_memory", "available_memory"};
  int64_t attrs[3] = {-1, -1, -1};
  const utvm_host_device_t cpu0 = {1, 0};
  for (size_t i = 0u; i < 3u; i++) {
    utvm_host_value_t v;
    rc = utvm_host_dev_get_attr(host, cpu0, attr_kinds[i], &v);
    if (rc == UTVM_HOST_OK) {
      attrs[i] = (v.type_code == UTVM_TC_INT) ? v.v.i : -1;
    } else if (rc != UTVM_HOST_ERR_DEVICE_EXCEPTION) {
      return report(o, rc, utvm_host_last_error(host));
    }
  }
  function_lists_t lists;
  rc = list_functions(host, &lists);
  if (rc != UTVM_HOST_OK) {
    function_lists_free(&lists);
    return report(o, rc, utvm_host_last_error(host));
  }
  static const char *const table_names[2] = {"system_lib", "globals"};
  utvm_host_stats_t s;
  utvm_host_get_stats(host, &s);
  if (o->json) {
    (void)printf("{\"ok\": true, \"rpc_protocol\": \"%s\", \"protocol_accepted\": %s, "
                 "\"attributes\": {", UTVM_RPC_PROTOCOL_VERSION, protocol_ok ? "true" : "false");
    const char *separator = "";
    for (size_t i = 0u; i < 3u; i++) {
      if (attrs[i] >= 0) {
        (void)printf("%s\"%s\": %lld", separator, attr_names[i], (long long)attrs[i]);
        separator = ", ";
      }
    }
    (void)printf("}, \"transport\": ");
    cli_json_string(stdout, o->connect, strlen(o->connect));
    (void)printf(", \"session_id\": %u, \"crt_max_packet_size\": %lld, "
                 "\"max_transfer_size\": %lld, \"copy_packet_size\": %llu, \"globals\": {",
                 (unsigned)s.session_id, (long long)sizes[0], (long long)sizes[1],
                 (unsigned long long)max_packet);
    for (size_t i = 0u; i < sizeof(globals) / sizeof(globals[0]); i++) {
      (void)printf("%s\"%s\": %s", (i > 0u) ? ", " : "", globals[i],
                   present[i] ? "true" : "false");
    }
    (void)printf("}, \"functions\": ");
    if (lists.listed) {
      for (size_t t = 0u; t < 2u; t++) {
        (void)printf("%s\"%s\": [", (t == 0u) ? "{" : ", ", table_names[t]);
        for (size_t i = 0u; i < lists.counts[t]; i++) {
          (void)printf("%s", (i > 0u) ? ", " : "");
          cli_json_string(stdout, lists.names[t][i], strlen(lists.names[t][i]));
        }
        (void)printf("]");
      }
      (void)printf("}");
    } else {
      (void)printf("null");
    }
    (void)printf(", \"stats\": {\"bytes_sent\": %llu, \"bytes_received\": %llu, "
                 "\"requests\": %u, \"exceptions\": %u, \"logs\": %u, "
                 "\"handshake_attempts\": %u, \"packets_ok\": %u, \"crc_errors\": %u, "
                 "\"short_packets\": %u, \"invalid_escapes\": %u, \"dropped_wrong_sid\": %u}}\n",
                 (unsigned long long)s.bytes_sent, (unsigned long long)s.bytes_received,
                 s.requests, s.exceptions, s.logs, s.handshake_attempts, s.framing.packets_ok,
                 s.framing.crc_errors, s.framing.short_packets, s.framing.invalid_escapes,
                 s.session.dropped_wrong_sid);
  } else {
    (void)printf("transport          %s\n", o->connect);
    (void)printf("rpc protocol       %s (%s)\n", UTVM_RPC_PROTOCOL_VERSION,
                 protocol_ok ? "InitServer accepted" : "InitServer refused by the device");
    static const char *const attr_labels[3] = {"cpu(0) exists", "tensor memory", "free memory"};
    for (size_t i = 0u; i < 3u; i++) {
      if (attrs[i] >= 0) {
        (void)printf("%-18s %lld%s\n", attr_labels[i], (long long)attrs[i],
                     (i == 0u) ? "" : " bytes");
      }
    }
    (void)printf("session id         0x%04x (%u handshake attempt(s))\n", (unsigned)s.session_id,
                 s.handshake_attempts);
    (void)printf("crt max packet     %lld bytes\n", (long long)sizes[0]);
    (void)printf("max transfer       %lld bytes%s\n", (long long)sizes[1],
                 present[3] ? "" : " (not offered: TVM-compatible chunking)");
    (void)printf("copy packet used   %llu bytes\n", (unsigned long long)max_packet);
    (void)printf("globals:\n");
    for (size_t i = 0u; i < sizeof(globals) / sizeof(globals[0]); i++) {
      (void)printf("  %-36s %s\n", globals[i], present[i] ? "yes" : "no");
    }
    if (lists.listed) {
      static const char *const table_labels[2] = {"system library functions", "all globals"};
      for (size_t t = 0u; t < 2u; t++) {
        (void)printf("%s (%zu):\n", table_labels[t], lists.counts[t]);
        for (size_t i = 0u; i < lists.counts[t]; i++) {
          (void)printf("  %s\n", lists.names[t][i]);
        }
      }
    } else {
      (void)printf("functions: not listed by this device (no utvm.crt.FunctionName)\n");
    }
    (void)printf("link: %llu bytes sent, %llu received, %u requests, %u exceptions, %u logs\n",
                 (unsigned long long)s.bytes_sent, (unsigned long long)s.bytes_received,
                 s.requests, s.exceptions, s.logs);
    (void)printf("framing: %u packets ok, %u CRC errors, %u short packets, %u invalid escapes\n",
                 s.framing.packets_ok, s.framing.crc_errors, s.framing.short_packets,
                 s.framing.invalid_escapes);
  }
  function_lists_free(&lists);
  return CLI_EXIT_OK;
}

/* Moves size bytes to or from device memory at data repeatedly; returns MB/s or -1. */
static double measure_transfer(utvm_host_t *host, uint64_t data, uint8_t *buf, size_t size,
                               bool upload, utvm_host_err_t *rc) {
  utvm_host_tensor_t t;
  (void)memset(&t, 0, sizeof(t));
  t.data = data;
  t.device.device_type = 1;
  t.ndim = 1;
  t.dtype.code = 1u;
  t.dtype.bits = 8u;
  t.dtype.lanes = 1u;
  t.shape[0] = (int64_t)size;
  double start = now_s();
  int rounds = 0;
  progress_t p;
  progress_begin(host, &p, upload ? "upload  " : "download");
  while ((rounds < CLI_BENCH_MAX_ROUNDS) && ((now_s() - start) < CLI_BENCH_SECONDS)) {
    *rc = upload ? utvm_host_copy_to_device(host, &t, buf, size)
                 : utvm_host_copy_from_device(host, &t, buf, size);
    if (*rc != UTVM_HOST_OK) {
      progress_end(host, &p);
      return -1.0;
    }
    rounds++;
  }
  progress_end(host, &p);
  double elapsed = now_s() - start;
  return ((double)size * (double)rounds) / elapsed / 1e6;
}

static int cmd_bench(const cli_options_t *o, utvm_host_t *host) {
  uint64_t f = 0u;
  utvm_host_err_t rc = utvm_host_get_global(host, "tvm.rpc.server.GetCRTMaxPacketSize", &f);
  if ((rc == UTVM_HOST_OK) && (f == 0u)) {
    rc = utvm_host_get_global(host, "runtime.SystemLib", &f);
  }
  double lat_min = 1e9;
  double lat_max = 0.0;
  double lat_sum = 0.0;
  for (int i = 0; (rc == UTVM_HOST_OK) && (i < CLI_LATENCY_CALLS); i++) {
    double t0 = now_s();
    rc = utvm_host_call(host, f, NULL, 0u, NULL);
    double dt = now_s() - t0;
    lat_sum += dt;
    lat_min = (dt < lat_min) ? dt : lat_min;
    lat_max = (dt > lat_max) ? dt : lat_max;
  }
  if (rc != UTVM_HOST_OK) {
    return report(o, rc, utvm_host_last_error(host));
  }
  uint64_t max_packet = 0u;
  rc = utvm_host_max_packet(host, &max_packet);
  if (rc != UTVM_HOST_OK) {
    return report(o, rc, utvm_host_last_error(host));
  }
  /* Largest buffer the device grants, up to the requested maximum. */
  utvm_host_device_t cpu = {1, 0};
  utvm_host_dtype_t u8 = {1u, 8u, 1u};
  size_t largest = o->bench_max;
  uint64_t data = 0u;
  for (; largest >= CLI_BENCH_MIN_SIZE; largest /= 2u) {
    rc = utvm_host_dev_alloc_data(host, cpu, (int64_t)largest, 64, u8, &data);
    if (rc == UTVM_HOST_OK) {
      break;
    }
    if (rc != UTVM_HOST_ERR_DEVICE_EXCEPTION) {
      return report(o, rc, utvm_host_last_error(host));
    }
  }
  if (largest < CLI_BENCH_MIN_SIZE) {
    return report(o, UTVM_HOST_ERR_DEVICE_EXCEPTION, "the device cannot allocate 1 KiB");
  }
  uint8_t *buf = (uint8_t *)malloc(largest);
  if (buf == NULL) {
    (void)utvm_host_dev_free_data(host, cpu, data);
    return report(o, UTVM_HOST_ERR_NO_MEMORY, "out of host memory");
  }
  for (size_t i = 0u; i < largest; i++) {
    buf[i] = (uint8_t)(i * 7u);
  }
  double mean_us = lat_sum / CLI_LATENCY_CALLS * 1e6;
  if (o->json) {
    (void)printf("{\"ok\": true, \"latency_us\": {\"calls\": %d, \"mean\": %.3f, \"min\": %.3f, "
                 "\"max\": %.3f}, \"copy_packet_size\": %llu, \"transfers\": [",
                 CLI_LATENCY_CALLS, mean_us, lat_min * 1e6, lat_max * 1e6,
                 (unsigned long long)max_packet);
  } else {
    (void)printf("null call round trip: mean %.1f us, min %.1f us, max %.1f us (%d calls)\n",
                 mean_us, lat_min * 1e6, lat_max * 1e6, CLI_LATENCY_CALLS);
    (void)printf("copy packet size: %llu bytes\n\n", (unsigned long long)max_packet);
    (void)printf("%12s %14s %14s\n", "bytes", "upload MB/s", "download MB/s");
  }
  bool first = true;
  for (size_t size = CLI_BENCH_MIN_SIZE; (rc == UTVM_HOST_OK) && (size <= largest); size *= 4u) {
    double up = measure_transfer(host, data, buf, size, true, &rc);
    double down = (rc == UTVM_HOST_OK) ? measure_transfer(host, data, buf, size, false, &rc)
                                       : -1.0;
    if (rc != UTVM_HOST_OK) {
      break;
    }
    if (o->json) {
      (void)printf("%s{\"bytes\": %zu, \"upload_MBps\": %.3f, \"download_MBps\": %.3f}",
                   first ? "" : ", ", size, up, down);
    } else {
      (void)printf("%12zu %14.3f %14.3f\n", size, up, down);
    }
    (void)fflush(stdout);
    first = false;
  }
  free(buf);
  if (rc != UTVM_HOST_OK) {
    if (o->json) {
      (void)printf("]}\n");
    }
    return report(o, rc, utvm_host_last_error(host));
  }
  rc = utvm_host_dev_free_data(host, cpu, data);
  if (o->json) {
    (void)printf("]}\n");
  }
  return (rc == UTVM_HOST_OK) ? CLI_EXIT_OK : report(o, rc, utvm_host_last_error(host));
}

static void on_sigint(int sig) {
  (void)sig;
  interrupted = 1;
}

/* Every command but logs: a signal kills the transport's children and exits 128 + sig. */
static void on_fatal_signal(int sig) {
  static const char message[] = "utvm: interrupted; device transport closed\n";
  utvm_host_kill_children();
  (void)write(STDERR_FILENO, message, sizeof(message) - 1u);
  _exit(128 + sig);
}

static void install_signal_handlers(void) {
  static const int signals[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction sa;
  (void)memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_fatal_signal;
  (void)sigfillset(&sa.sa_mask);
  for (size_t i = 0u; i < 3u; i++) {
    (void)sigaction(signals[i], &sa, NULL);
  }
}

static int cmd_logs(const cli_options_t *o, utvm_host_t *host) {
  struct sigaction sa;
  (void)memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_sigint;
  (void)sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGINT, &sa, NULL);
  (void)sigaction(SIGTERM, &sa, NULL);
  if (!o->json) {
    (void)fprintf(stderr, "utvm: connected; printing device logs (Ctrl-C to stop)\n");
  }
  while (interrupted == 0) {
    utvm_host_err_t rc = utvm_host_poll(host, 200);
    if (rc == UTVM_HOST_ERR_IO) {
      return CLI_EXIT_OK;
    }
    if (rc == UTVM_HOST_ERR_DEVICE_RESET) {
      (void)fprintf(stderr, "utvm: the device reset; reconnecting\n");
      rc = utvm_host_reconnect(host);
      if (rc != UTVM_HOST_OK) {
        return report(o, rc, utvm_host_last_error(host));
      }
    }
  }
  return CLI_EXIT_OK;
}

/* explain TEXT: expands the tokens of an error text copied from elsewhere (e.g. the exception
 * a TVM host printed), without a device. */
static int cmd_explain(const cli_options_t *o) {
  if (o->num_positional != 1) {
    return usage_error(o, "explain needs one text (quote it)%s", "");
  }
  char text[4096];
  size_t len = utvm_host_expand_error(o->positional[0], text, sizeof(text));
  if (o->json) {
    (void)printf("{\"ok\": true, \"text\": ");
    cli_json_string(stdout, text, len);
    (void)printf("}\n");
  } else {
    (void)printf("%s\n", text);
  }
  return CLI_EXIT_OK;
}

static bool is_model_file(const char *path) {
  size_t n = strlen(path);
  return (n > 7u) && (strcmp(&path[n - 7u], ".tflite") == 0);
}

/* What run/time MODEL on a device needs to connect once its files are checked. */
typedef struct {
  const cli_options_t *o;
  utvm_host_t *host;
} model_connect_t;

static int connect_for_model(void *ctx, utvm_host_t **host) {
  model_connect_t *c = (model_connect_t *)ctx;
  install_signal_handlers();
  int code = connect_device(c->o, log_to_stderr, &c->host);
  *host = c->host;
  return code;
}

/* run MODEL: the model runner on this host, or with --connect on the device (graph executor,
 * or --host-driven); time MODEL: timed on the device. */
static int cmd_run(const cli_options_t *o, bool time_only) {
  if (o->num_positional != 1) {
    return usage_error(o, "%s needs one model file", time_only ? "time" : "run");
  }
  if ((o->num_inputs == 0) && !time_only) {
    return usage_error(o, "run needs --input FILE for each graph input%s", "");
  }
  bool on_device = time_only || o->connect_given;
  if ((o->executor != NULL) && !on_device) {
    return usage_error(o, "--executor runs the model on a device: add --connect TRANSPORT%s", "");
  }
  if ((o->executor != NULL) && (strcmp(o->executor, "aot") == 0) &&
      (o->host_driven || o->per_layer)) {
    return usage_error(o, "--executor aot runs the firmware's model: no --host-driven or "
                          "--per-layer%s", "");
  }
  if (o->host_driven && !on_device) {
    return usage_error(o, "--host-driven runs the model on a device: add --connect TRANSPORT%s",
                       "");
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
  r.aot = ((o->executor != NULL) && (strcmp(o->executor, "aot") == 0))
              ? ((o->mlf_name != NULL) ? o->mlf_name : "default") : NULL;
  r.labels = o->labels;
  r.time_only = time_only;
  r.number = time_only ? o->number : 1;
  r.repeat = time_only ? o->repeat : 1;
  r.min_repeat_ms = time_only ? o->min_repeat_ms : 0;
  int code = cli_run(&r);
  utvm_host_close(c.host);
  return code;
}

/* compile MODEL --generic -o DIR | --mlf OUT.tar [--executor graph|aot] [--name NAME]: no
 * device. */
static int cmd_compile(const cli_options_t *o) {
  if (o->num_positional != 1) {
    return usage_error(o, "compile needs one model file%s", "");
  }
  if (!o->report && !o->generic && (o->mlf == NULL) && (o->out_dir != NULL) &&
      (o->mlf_name == NULL)) {
    return usage_error(o, "compile -o DIR needs --name NET (standalone C) or --generic%s", "");
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
    e.cpu = o->cpu;
    e.sizes = o->sizes;
    e.params = o->params;
    e.json = o->json;
    return cli_emit(&e);
  }
  if ((o->mlf == NULL) && !o->generic) {
    return usage_error(o, "compile needs -o DIR --name NET, --report, --generic -o DIR or "
                       "--mlf OUT.tar%s", "");
  }
  if (o->generic && (o->out_dir == NULL)) {
    return usage_error(o, "compile --generic needs -o DIR%s", "");
  }
  cli_compile_options_t c;
  (void)memset(&c, 0, sizeof(c));
  c.model = o->positional[0];
  c.out_dir = o->generic ? o->out_dir : NULL;
  c.mlf = o->mlf;
  c.aot = (o->executor != NULL) && (strcmp(o->executor, "aot") == 0);
  c.name = (o->mlf_name != NULL) ? o->mlf_name : "default";
  c.json = o->json;
  return cli_compile(&c);
}

/* Frees the host copies of the parsed call/time arguments. */
static void free_parsed_args(cli_options_t *o) {
  for (int i = 0; i < o->num_args; i++) {
    cli_arg_free(&o->args[i]);
  }
  o->num_args = 0;
}

int main(int argc, char **argv) {
  cli_options_t o;
  int exit_code = parse_options(argc, argv, &o);
  if (exit_code >= 0) {
    return exit_code;
  }
  if (strcmp(o.command, "explain") == 0) {
    return cmd_explain(&o);
  }
  if (strcmp(o.command, "run") == 0) {
    return cmd_run(&o, false);
  }
  if ((strcmp(o.command, "time") == 0) && (o.num_positional >= 1) &&
      is_model_file(o.positional[0])) {
    return cmd_run(&o, true);
  }
  if (strcmp(o.command, "compile") == 0) {
    return cmd_compile(&o);
  }
  int (*command)(const cli_options_t *, utvm_host_t *) = NULL;
  if (strcmp(o.command, "info") == 0) {
    command = cmd_info;
  } else if (strcmp(o.command, "call") == 0) {
    command = cmd_call;
  } else if (strcmp(o.command, "time") == 0) {
    command = cmd_time;
  } else if (strcmp(o.command, "bench") == 0) {
    command = cmd_bench;
  } else if (strcmp(o.command, "logs") == 0) {
    command = cmd_logs;
  } else {
    return usage_error(&o, "unknown command '%s'", o.command);
  }
  /* Arguments are checked before a device is started: a typo or a missing file costs no
   * QEMU boot. */
  cli_arg_t args[CLI_MAX_ARGS];
  o.args = args;
  for (int i = 1; ((command == cmd_call) || (command == cmd_time)) && (i < o.num_positional);
       i++) {
    char err[512];
    if (!cli_parse_arg(o.positional[i], &args[o.num_args], err, sizeof(err))) {
      free_parsed_args(&o);
      return usage_error(&o, "%s", err);
    }
    o.num_args++;
  }
  install_signal_handlers();
  utvm_host_t *host = NULL;
  utvm_host_log_fn log = ((command == cmd_logs) && o.json) ? log_as_json : log_to_stderr;
  exit_code = connect_device(&o, log, &host);
  if (exit_code < 0) {
    exit_code = command(&o, host);
    utvm_host_close(host);
  }
  free_parsed_args(&o);
  return exit_code;
}

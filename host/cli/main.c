/* utvm: command-line client for a utvm (or TVM microTVM) device and the host's model tools.
 * This file holds the global options and dispatches to the commands, one file each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "utvm/runner.h"

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
    "  --deadline S      run/time MODEL on a device: the whole run ends within S seconds,\n"
    "                    recoveries included (default 30 + 20 x the model's bytes x 10 bits\n"
    "                    / link rate: a serial: baud, else 1 Mbit/s; see utvm run --help)\n"
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

/* The commands (each with its own help: utvm COMMAND --help). */
static const cli_command_t *const commands[] = {
    &cli_info_command, &cli_call_command,    &cli_time_command,    &cli_bench_command,
    &cli_logs_command, &cli_run_command,     &cli_compile_command, &cli_explain_command};

/* The command called name, or NULL for an unknown command. */
static const cli_command_t *command_named(const char *name) {
  for (size_t i = 0u; (name != NULL) && (i < sizeof(commands) / sizeof(commands[0])); i++) {
    if (strcmp(name, commands[i]->name) == 0) {
      return commands[i];
    }
  }
  return NULL;
}

int cli_usage_error(const cli_options_t *o, const char *fmt, const char *detail) {
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
        return cli_usage_error(o, "option %s needs a value", a);
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
      if (strcmp(a, "--no-acl") == 0) {
        o->no_acl = true;
        continue;
      }
      if (strcmp(a, "--host-driven") == 0) {
        o->host_driven = true;
        continue;
      }
      if (i + 1 >= argc) {
        return cli_usage_error(o, "option %s needs a value", a);
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
          return cli_usage_error(o, "too many %s files (at most 8)", a);
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
      } else if (strcmp(a, "--patches") == 0) {
        int count = 0;
        o->patches = UTVM_RUNNER_PATCHES_OFF;
        if (strcmp(v, "auto") == 0) {
          o->patches = UTVM_RUNNER_PATCHES_AUTO;
        } else if (strcmp(v, "off") != 0) {
          ok = parse_int(v, &count) && (count > 0) && (count <= UTVM_KERNELS_INPLACE_MAX_ROWS);
          o->patches = ok ? (uint32_t)count : UTVM_RUNNER_PATCHES_OFF;
        }
      } else if (strcmp(a, "--weights") == 0) {
        o->weights_tflite = strcmp(v, "tflite") == 0;
        ok = o->weights_tflite || (strcmp(v, "core") == 0);
      } else if (strcmp(a, "--requant") == 0) {
        o->requant_tables = strcmp(v, "tables") == 0;
        ok = o->requant_tables || (strcmp(v, "call") == 0);
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
      } else if (strcmp(a, "--deadline") == 0) {
        ok = parse_double(v, &o->deadline_s) && (o->deadline_s > 0.0);
      } else if (strcmp(a, "--start-timeout") == 0) {
        ok = parse_double(v, &o->start_timeout_s) && (o->start_timeout_s > 0.0);
      } else if (strcmp(a, "--retry") == 0) {
        ok = parse_double(v, &o->retry_s);
      } else if (strcmp(a, "--acl-threads") == 0) {
        ok = parse_int(v, &o->acl_threads) && (o->acl_threads >= 0);
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
        return cli_usage_error(o, "unknown option %s", a);
      }
      if (!ok) {
        return cli_usage_error(o, "bad value '%s'", v);
      }
    } else if (o->command == NULL) {
      o->command = a;
    } else if (o->num_positional < CLI_MAX_ARGS) {
      o->positional[o->num_positional++] = a;
    } else {
      return cli_usage_error(o, "too many arguments (at most %s)", "32");
    }
  }
  if (help) {
    const cli_command_t *command = command_named(o->command);
    (void)fputs((command != NULL) ? command->help : usage_text, stdout);
    return CLI_EXIT_OK;
  }
  if (o->command == NULL) {
    (void)fputs(usage_text, stderr);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

int main(int argc, char **argv) {
  cli_options_t o;
  int exit_code = parse_options(argc, argv, &o);
  if (exit_code >= 0) {
    return exit_code;
  }
  const cli_command_t *command = command_named(o.command);
  if (command == NULL) {
    return cli_usage_error(&o, "unknown command '%s'", o.command);
  }
  return command->run(&o);
}

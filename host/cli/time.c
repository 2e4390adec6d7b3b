/* utvm time FUNC [ARG...]: a system library function timed by the device's time evaluator;
 * utvm time MODEL.tflite: a model timed on the device (run.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* utvm time --help. */
static const char time_help[] =
    "usage: utvm [--connect T] [--json] time FUNC [ARG...] [--number N] [--repeat R]\n"
    "                 [--min-repeat-ms M]\n\n"
    "Times system library function FUNC with the device's time evaluator: R repeats\n"
    "of N calls each (N grows until a repeat lasts M ms); prints mean, median, min,\n"
    "max and stddev per call. Under QEMU (qemu: transport) the times are -icount\n"
    "virtual time: 1 ns = 1 instruction. A device timer that does not run is an\n"
    "error, never a 0 us result.\n\n"
    "usage: utvm [--connect T] [--json] time MODEL.tflite [--input IN ...] [--per-layer]\n"
    "                 [--host-driven] [--number N] [--repeat R] [--min-repeat-ms M]\n"
    "                 [--deadline S]\n\n"
    "Runs MODEL on the device as 'utvm --connect T run MODEL' does (inputs are zeros\n"
    "without --input) and times one inference: the time evaluator on the graph\n"
    "executor's run; --per-layer (implies --host-driven) times each operator's\n"
    "kernel function instead. A bad link is recovered from within --deadline S as for\n"
    "run (utvm run --help).\n";

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a;
  double y = *(const double *)b;
  return (x < y) ? -1 : ((x > y) ? 1 : 0);
}

static int time_on_device(const cli_options_t *o, utvm_host_t *host) {
  if (o->num_positional < 1) {
    return cli_usage_error(o, "time needs a function name%s", "");
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
    return cli_report(o, rc, detail);
  }
  (void)utvm_host_free_handle(host, function, UTVM_TC_FUNCTION);
  cli_arg_t *args = o->args;
  utvm_host_value_t values[CLI_MAX_ARGS];
  int n = 0;
  int exit_code = cli_upload_args(o, host, values, &n);
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
      exit_code = cli_report(o, rc, utvm_host_last_error(host));
    } else if (count == 0u) {
      exit_code = cli_report(o, UTVM_HOST_ERR_PROTOCOL, "the time evaluator returned no results");
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
  cli_free_device_args(host, args, n);
  return exit_code;
}

/* Whether path names a model (time MODEL.tflite) rather than a function. */
static bool is_model_file(const char *path) {
  size_t n = strlen(path);
  return (n > 7u) && (strcmp(&path[n - 7u], ".tflite") == 0);
}

static int time_main(const cli_options_t *o) {
  if ((o->num_positional >= 1) && is_model_file(o->positional[0])) {
    return cli_run_model(o, true);
  }
  return cli_on_device(o, true, cli_log_to_stderr, time_on_device);
}

const cli_command_t cli_time_command = {"time", time_help, time_main};

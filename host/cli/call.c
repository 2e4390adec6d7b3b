/* utvm call FUNC [ARG...]: calls a device function (system library first, then globals) and
 * prints the result and every tensor argument after the call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* utvm call --help. */
static const char call_help[] =
    "usage: utvm [--connect T] [--json] call FUNC [ARG...]\n\n"
    "Calls FUNC (system library first, then globals) with typed arguments and prints\n"
    "the result and every tensor argument after the call. Arguments: i:INT u:UINT\n"
    "f:FLOAT b:0|1 s:TEXT x:HEX n: t:DTYPE:[..] t:DTYPE:#SHAPE npy:[DTYPE:]PATH\n"
    "bin:DTYPE:[SHAPE]:PATH (raw bytes, size checked against DTYPE x SHAPE)\n"
    "(see utvm --help). Arguments are checked before the device is started.\n";

static int call_on_device(const cli_options_t *o, utvm_host_t *host) {
  if (o->num_positional < 1) {
    return cli_usage_error(o, "call needs a function name%s", "");
  }
  const char *name = o->positional[0];
  uint64_t function = 0u;
  bool in_syslib = false;
  utvm_host_err_t rc = utvm_host_find_function(host, name, &function, &in_syslib);
  if (rc != UTVM_HOST_OK) {
    return cli_report(o, rc, utvm_host_last_error(host));
  }
  cli_arg_t *args = o->args;
  utvm_host_value_t values[CLI_MAX_ARGS];
  int n = 0;
  int exit_code = cli_upload_args(o, host, values, &n);
  utvm_host_value_t ret;
  if (exit_code < 0) {
    rc = utvm_host_call(host, function, values, (size_t)n, &ret);
    if (rc != UTVM_HOST_OK) {
      exit_code = cli_report(o, rc, utvm_host_last_error(host));
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
    if (rc != UTVM_HOST_OK) { /* reported before the release replaces the library's text */
      exit_code = cli_report(o, rc, (nd_data != NULL) ? utvm_host_last_error(host)
                                                      : "no host memory for the result");
    }
    rc = utvm_host_free_handle(host, nd, UTVM_TC_NDARRAY);
    if ((exit_code < 0) && (rc != UTVM_HOST_OK)) {
      exit_code = cli_report(o, rc, utvm_host_last_error(host));
    }
    ret.type_code = UTVM_TC_NDARRAY;
    ret.v.tensor = t;
    ret.ndarray_handle = nd;
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
        exit_code = cli_report(o, rc, utvm_host_last_error(host));
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
  cli_free_device_args(host, args, n);
  return exit_code;
}

static int call_main(const cli_options_t *o) {
  return cli_on_device(o, true, cli_log_to_stderr, call_on_device);
}

const cli_command_t cli_call_command = {"call", call_help, call_main};

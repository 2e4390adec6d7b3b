/* What the commands that talk to a device share: connecting (with the signal handlers that
 * close the transport), reporting host library errors, the progress bar of long copies and the
 * typed arguments of call and time on the device. */
#define _DEFAULT_SOURCE

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "utvm/ops.h"

int cli_report(const cli_options_t *o, utvm_host_err_t err, const char *detail) {
  int code = cli_exit_code(err);
  bool blank = true;
  for (const char *c = detail; blank && (*c != '\0'); c++) {
    blank = isspace((unsigned char)*c) != 0;
  }
  if (blank) {
    detail = "the host library gave no further detail"; /* never an empty cause */
  }
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

double cli_now_s(void) {
  struct timespec ts;
  (void)clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_log_to_stderr(void *ctx, const char *text, size_t len) {
  (void)ctx;
  (void)fprintf(stderr, "device: %.*s\n", (int)len, text);
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

int cli_connect(const cli_options_t *o, utvm_host_log_fn log, utvm_host_t **host) {
  install_signal_handlers();
  if ((o->connect == NULL) || (o->connect[0] == '\0')) {
    return cli_usage_error(o, "no device given: use --connect TRANSPORT or set UTVM_CONNECT%s",
                           "");
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
    return cli_report(o, (rc == UTVM_HOST_ERR_ARGUMENT) ? rc : UTVM_HOST_ERR_CONNECT, err);
  }
  return -1;
}

void cli_progress_show(cli_progress_t *p, uint64_t copy_done) {
  if (!p->tty || (p->steps == 0u) || ((cli_now_s() - p->start) < 1.0)) {
    return;
  }
  char line[256];
  int n = snprintf(line, sizeof(line), "[step %u/%u] %s", p->step, p->steps,
                   (p->label != NULL) ? p->label : "");
  if ((p->step_total > 0u) && (n >= 0) && ((size_t)n < sizeof(line))) {
    uint64_t done = p->step_done + copy_done;
    done = (done < p->step_total) ? done : p->step_total;
    const bool kb = p->step_total >= 10240u; /* bytes below 10 KB */
    const uint64_t unit = kb ? 1024u : 1u;
    n += snprintf(&line[n], sizeof(line) - (size_t)n, " %d%% (%llu/%llu %s)",
                  (int)(100u * done / p->step_total), (unsigned long long)(done / unit),
                  (unsigned long long)((p->step_total + unit - 1u) / unit), kb ? "KB" : "B");
  }
  if ((p->recoveries > 0u) && (n >= 0) && ((size_t)n < sizeof(line))) {
    n += snprintf(&line[n], sizeof(line) - (size_t)n, ", %u %s", p->recoveries,
                  (p->recoveries == 1u) ? "recovery" : "recoveries");
  }
  if ((p->note[0] != '\0') && (n >= 0) && ((size_t)n < sizeof(line))) {
    n += snprintf(&line[n], sizeof(line) - (size_t)n, " (%s)", p->note);
  }
  n = ((n >= 0) && ((size_t)n < sizeof(line))) ? n : (int)sizeof(line) - 1;
  /* Blanks what a longer earlier line leaves. */
  (void)fprintf(stderr, "\r%s%*s", line, (p->width > n) ? p->width - n : 0, "");
  p->width = n;
  p->shown = true;
}

static void progress_update(void *ctx, size_t done, size_t total) {
  cli_progress_t *p = (cli_progress_t *)ctx;
  if (p->steps > 0u) {
    cli_progress_show(p, done);
    return;
  }
  if ((cli_now_s() - p->start) < 1.0) {
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

void cli_progress_begin(utvm_host_t *host, cli_progress_t *p, const char *label) {
  (void)memset(p, 0, sizeof(*p));
  p->start = cli_now_s();
  p->label = label;
  p->tty = isatty(STDERR_FILENO) != 0;
  if (p->tty) {
    utvm_host_set_progress(host, progress_update, p);
  }
}

void cli_progress_end(utvm_host_t *host, cli_progress_t *p) {
  if (p->shown) {
    (void)fputc('\n', stderr);
  }
  utvm_host_set_progress(host, NULL, NULL);
}

/* cli_on_device frees the host copies of the arguments. */
void cli_free_device_args(utvm_host_t *host, cli_arg_t *args, int n) {
  for (int i = 0; i < n; i++) {
    if (args[i].uploaded) {
      (void)utvm_host_dev_free_data(host, args[i].value.v.tensor.device,
                                    args[i].value.v.tensor.data);
      args[i].uploaded = false;
    }
  }
}

int cli_upload_args(const cli_options_t *o, utvm_host_t *host, utvm_host_value_t *values,
                    int *count) {
  *count = o->num_args;
  for (int i = 0; i < o->num_args; i++) {
    cli_arg_t *a = &o->args[i];
    if (a->is_tensor) {
      utvm_host_tensor_t *t = &a->value.v.tensor;
      utvm_host_err_t rc = utvm_host_dev_alloc_data_with_scope(host, t, NULL, &t->data);
      if (rc == UTVM_HOST_OK) {
        a->uploaded = true;
        cli_progress_t p;
        cli_progress_begin(host, &p, "upload");
        rc = utvm_host_copy_to_device(host, t, a->host_data, a->nbytes);
        cli_progress_end(host, &p);
      }
      if (rc != UTVM_HOST_OK) {
        return cli_report(o, rc, utvm_host_last_error(host));
      }
    }
    values[i] = a->value;
  }
  return -1;
}

/* Frees the host copies of the parsed call/time arguments. */
static void free_parsed_args(cli_options_t *o) {
  for (int i = 0; i < o->num_args; i++) {
    cli_arg_free(&o->args[i]);
  }
  o->num_args = 0;
}

int cli_on_device(const cli_options_t *o, bool typed_args, utvm_host_log_fn log,
                  int (*command)(const cli_options_t *o, utvm_host_t *host)) {
  /* Arguments are checked before a device is started: a typo or a missing file costs no
   * QEMU boot. */
  cli_options_t with_args = *o;
  cli_arg_t args[CLI_MAX_ARGS];
  with_args.args = args;
  with_args.num_args = 0;
  for (int i = 1; typed_args && (i < o->num_positional); i++) {
    char err[512];
    if (!cli_parse_arg(o->positional[i], &args[with_args.num_args], err, sizeof(err))) {
      free_parsed_args(&with_args);
      return cli_usage_error(o, "%s", err);
    }
    with_args.num_args++;
  }
  utvm_host_t *host = NULL;
  int exit_code = cli_connect(&with_args, log, &host);
  if (exit_code < 0) {
    exit_code = command(&with_args, host);
    utvm_host_close(host);
  }
  free_parsed_args(&with_args);
  return exit_code;
}

const utvm_compiled_op_t *cli_first_f32_op(const utvm_compiled_graph_t *g) {
  for (uint32_t k = 0u; k < g->n_ops; k++) {
    for (int32_t kind = (int32_t)UTVM_OP_CONV2D_F32; UTVM_OP_KIND_IS_F32(kind); kind++) {
      if (strcmp(g->ops[k].func_name, utvm_op_kind_function((utvm_op_kind_t)kind)) == 0) {
        return &g->ops[k];
      }
    }
  }
  return NULL;
}

bool cli_device_kernels(utvm_host_t *host, int64_t *info) {
  uint64_t lib = 0u;
  uint64_t f = 0u;
  bool answered = false;
  if ((utvm_host_system_lib(host, &lib) != UTVM_HOST_OK) ||
      (utvm_host_module_get_function(host, lib, "utvm_k_kernels", &f) != UTVM_HOST_OK) ||
      (f == 0u)) {
    return false;
  }
  utvm_host_value_t ret;
  if ((utvm_host_call(host, f, NULL, 0u, &ret) == UTVM_HOST_OK) &&
      (ret.type_code == UTVM_TC_INT)) {
    *info = ret.v.i;
    answered = true;
  }
  (void)utvm_host_free_handle(host, f, UTVM_TC_FUNCTION);
  return answered;
}

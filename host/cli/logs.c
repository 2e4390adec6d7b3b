/* utvm logs: stays connected and prints device logs until EOF or Ctrl-C. */
#define _DEFAULT_SOURCE

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* utvm logs --help. */
static const char logs_help[] =
    "usage: utvm [--connect T] [--json] logs\n\n"
    "Stays connected and prints device logs until EOF or Ctrl-C (exit code 0).\n";

static volatile sig_atomic_t interrupted;

static void log_as_json(void *ctx, const char *text, size_t len) {
  (void)ctx;
  (void)printf("{\"log\": ");
  cli_json_string(stdout, text, len);
  (void)printf("}\n");
  (void)fflush(stdout);
}

static void on_sigint(int sig) {
  (void)sig;
  interrupted = 1;
}

static int logs_on_device(const cli_options_t *o, utvm_host_t *host) {
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
        return cli_report(o, rc, utvm_host_last_error(host));
      }
    }
  }
  return CLI_EXIT_OK;
}

static int logs_main(const cli_options_t *o) {
  return cli_on_device(o, false, o->json ? log_as_json : cli_log_to_stderr, logs_on_device);
}

const cli_command_t cli_logs_command = {"logs", logs_help, logs_main};

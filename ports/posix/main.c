/*
 * utvm-posix-server: the utvm RPC server and the test system library speaking the
 * microTVM protocol on stdin/stdout. Diagnostics go to stderr only. End of input ends the
 * process with status 0; TVMPlatformAbort reboots it on the same pipes: the process executes
 * itself again, or, when the system cannot run its executable directly (an aarch64 server under
 * qemu-user without binfmt_misc), exits with POSIX_REBOOT_STATUS for its launcher to start it
 * again (the emulated/ scripts of a cross build, cmake/utvm_emulator.cmake).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "posix_port.h"
#include "tvm/runtime/crt/platform.h"
#include "utvm/aot.h"
#include "utvm/graph.h"
#include "utvm/rpc_server.h"

#define TENSOR_ARENA_MAX (16u * 1024u * 1024u)
#define WORKSPACE_ARENA_SIZE (1024u * 1024u)
#define REQUEST_BUFFER_MAX (256u * 1024u)
#define OUTPUT_BUFFER_SIZE 8192u
#define INPUT_CHUNK_SIZE 4096u
#define REPLY_CACHE_SIZE 512u
/* Test global: Count(Int k) adds k to a counter and returns it, so that a host can count how
 * many times its calls ran on the device (tests/reliability/test_soak.c). */
#define POSIX_COUNT_NAME "utvm.posix.Count"
/* POSIX_REBOOT_STATUS (from the build, UTVM_POSIX_REBOOT_STATUS): the exit status asking the
 * launcher to start the server again (a reboot it cannot do itself). */
#ifndef POSIX_REBOOT_STATUS
#error "POSIX_REBOOT_STATUS must give the reboot's exit status"
#endif

static uint8_t tensor_arena[TENSOR_ARENA_MAX] __attribute__((aligned(64)));
static uint8_t workspace_arena[WORKSPACE_ARENA_SIZE] __attribute__((aligned(64)));
static uint8_t request_buffer[REQUEST_BUFFER_MAX] __attribute__((aligned(8)));
static uint8_t output[OUTPUT_BUFFER_SIZE];
/* The last reply, sent again when a utvm host repeats a request (UTVM_RPC_SEQUENCE_NAME);
 * --reply-cache uses a part of it, or none (the sequence extension off). */
static uint8_t reply_cache[REPLY_CACHE_SIZE];
static size_t output_len;
static utvm_rpc_server_t server;
static int64_t count_total;

static int posix_count(TVMValue *args, int *codes, int num_args, TVMValue *ret, int *ret_tc,
                       void *resource) {
  (void)resource;
  if ((num_args != 1) || (codes[0] != kTVMArgInt)) {
    TVMAPISetLastError("utvm.posix.Count: takes one Int");
    return -1;
  }
  count_total += args[0].v_int64;
  ret->v_int64 = count_total;
  *ret_tc = kTVMArgInt;
  return 0;
}
static char **saved_argv;

const TVMModule *TVMSystemLibEntryPoint(void);

int posix_port_flush(void) {
  size_t done = 0u;
  while (done < output_len) {
    ssize_t n = write(STDOUT_FILENO, &output[done], output_len - done);
    if (n > 0) {
      done += (size_t)n;
    } else if ((n < 0) && (errno == EINTR)) {
      continue;
    } else {
      output_len = 0u;
      return -1;
    }
  }
  output_len = 0u;
  return 0;
}

static utvm_err_t write_stdout(void *ctx, const uint8_t *data, size_t n) {
  (void)ctx;
  size_t done = 0u;
  while (done < n) {
    if (output_len == sizeof(output)) {
      if (posix_port_flush() != 0) {
        return UTVM_ERR_WRITE_FAILED;
      }
    }
    size_t take = sizeof(output) - output_len;
    take = (take < (n - done)) ? take : (n - done);
    (void)memcpy(&output[output_len], &data[done], take);
    output_len += take;
    done += take;
  }
  return UTVM_OK;
}

static utvm_err_t random_bytes(void *ctx, uint8_t *buf, size_t n) {
  (void)ctx;
  return (TVMPlatformGenerateRandom(buf, n) == kTvmErrorNoError) ? UTVM_OK
                                                                  : UTVM_ERR_SESSION_NO_RANDOM;
}

void posix_port_log(const char *text, size_t len) {
  (void)utvm_rpc_server_log(&server, text, len);
  (void)posix_port_flush();
}

void posix_port_reboot(void) {
  (void)posix_port_flush();
  (void)execv("/proc/self/exe", saved_argv);
  int err = errno;
  if (err == ENOEXEC) {
    (void)fprintf(stderr, "utvm-posix-server: cannot execute itself (%s), exit %d to reboot\n",
                  strerror(err), POSIX_REBOOT_STATUS);
    _exit(POSIX_REBOOT_STATUS);
  }
  (void)fprintf(stderr, "utvm-posix-server: reboot failed: %s\n", strerror(err));
  _exit(70);
}

static void usage(void) {
  (void)fprintf(stderr,
                "usage: utvm-posix-server [--arena BYTES] [--buffer BYTES] [--max-transfer BYTES]\n"
                "                         [--reply-cache BYTES]\n"
                "  Serves the microTVM RPC protocol on stdin/stdout.\n"
                "  --arena         tensor arena size (default and max %u)\n"
                "  --buffer        request buffer size (default and max %u, min %u)\n"
                "  --max-transfer  copy size offered to utvm hosts (default 262144; 0 = off)\n"
                "  --reply-cache   reply cache of the sequence extension (default and max %u,\n"
                "                  min %u; 0 = off: hosts recover with Sync)\n",
                TENSOR_ARENA_MAX, REQUEST_BUFFER_MAX, UTVM_RPC_MIN_BUFFER_SIZE, REPLY_CACHE_SIZE,
                UTVM_RPC_REPLY_CACHE_MIN);
}

static int parse_size(const char *text, size_t max, size_t *out) {
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 0);
  if ((errno != 0) || (end == text) || (*end != '\0') || (v > max)) {
    return -1;
  }
  *out = (size_t)v;
  return 0;
}

int main(int argc, char **argv) {
  size_t arena = TENSOR_ARENA_MAX;
  size_t buffer = REQUEST_BUFFER_MAX;
  size_t max_transfer = 256u * 1024u;
  size_t reply_cache_size = REPLY_CACHE_SIZE;
  saved_argv = argv;
  for (int i = 1; i < argc; i += 2) {
    size_t *target = NULL;
    size_t max = 0u;
    if (strcmp(argv[i], "--arena") == 0) {
      target = &arena;
      max = TENSOR_ARENA_MAX;
    } else if (strcmp(argv[i], "--buffer") == 0) {
      target = &buffer;
      max = REQUEST_BUFFER_MAX;
    } else if (strcmp(argv[i], "--max-transfer") == 0) {
      target = &max_transfer;
      max = TENSOR_ARENA_MAX;
    } else if (strcmp(argv[i], "--reply-cache") == 0) {
      target = &reply_cache_size;
      max = REPLY_CACHE_SIZE;
    } else {
      usage();
      return (strcmp(argv[i], "--help") == 0) ? 0 : 2;
    }
    if ((i + 1 >= argc) || (parse_size(argv[i + 1], max, target) != 0)) {
      usage();
      return 2;
    }
  }
  (void)signal(SIGPIPE, SIG_IGN);
  (void)TVMPlatformInitialize();

  const utvm_rpc_server_config_t config = {
      write_stdout, NULL, random_bytes, NULL, request_buffer, buffer, (uint32_t)max_transfer,
      {tensor_arena, arena, workspace_arena, sizeof(workspace_arena), TVMSystemLibEntryPoint(),
       posix_port_sleep_ms},
      NULL};
  utvm_err_t err = utvm_rpc_server_init(&server, &config);
  if ((err == UTVM_OK) && (reply_cache_size > 0u)) {
    err = utvm_rpc_server_enable_sequence(&server, reply_cache, (uint32_t)reply_cache_size);
  }
  if (err == UTVM_OK) {
    utvm_rpc_server_enable_large_calls(&server); /* the graph executor's JSON and params */
    utvm_rpc_server_enable_ndarrays(&server); /* the executors' get_input / get_output */
    err = utvm_crt_enable_time_evaluator();
  }
  if (err == UTVM_OK) {
    err = utvm_crt_register_optional_globals();
  }
  if (err == UTVM_OK) {
    err = utvm_graph_register_global();
  }
  if (err == UTVM_OK) {
    err = utvm_aot_register_global();
  }
  if (err == UTVM_OK) {
    err = utvm_crt_register_global(POSIX_COUNT_NAME, posix_count, NULL);
  }
  if (err != UTVM_OK) {
    (void)fprintf(stderr, "utvm-posix-server: init failed: %s\n", utvm_strerror(err));
    return 1;
  }
  (void)posix_port_flush();

  uint8_t input[INPUT_CHUNK_SIZE];
  for (;;) {
    ssize_t n = read(STDIN_FILENO, input, sizeof(input));
    if (n == 0) {
      return 0;
    }
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      (void)fprintf(stderr, "utvm-posix-server: read failed: %s\n", strerror(errno));
      return 1;
    }
    utvm_rpc_server_feed(&server, input, (size_t)n);
    if (posix_port_flush() != 0) {
      (void)fprintf(stderr, "utvm-posix-server: stdout closed\n");
      return 0;
    }
  }
}

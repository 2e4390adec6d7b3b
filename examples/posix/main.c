/*
 * The examples' user function on a POSIX host: the RPC server on stdin/stdout with a system
 * library of my_dot_s8 (../common/dot_s8.c), and the TVM platform hooks it needs (timer on
 * CLOCK_MONOTONIC, random bytes from rand(), abort = exit). A host starts it as a device:
 * utvm --connect exec:./dot_server call my_dot_s8 ...
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "dot_s8.h"
#include "tvm/runtime/crt/platform.h"
#include "utvm/rpc_server.h"
#include "utvm/syslib.h"

UTVM_SYSTEM_LIB(MY_FUNCS);

static uint8_t tensor_arena[64 * 1024] __attribute__((aligned(64)));
static uint8_t workspace_arena[16 * 1024] __attribute__((aligned(64)));
static uint8_t request_buffer[2048] __attribute__((aligned(8)));
static uint8_t reply_cache[128];
static utvm_rpc_server_t server;
static uint64_t timer_start_ns;

static uint64_t now_ns(void) {
  struct timespec ts;
  (void)clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

tvm_crt_error_t TVMPlatformInitialize(void) { return kTvmErrorNoError; }

tvm_crt_error_t TVMPlatformTimerStart(void) {
  timer_start_ns = now_ns();
  return kTvmErrorNoError;
}

tvm_crt_error_t TVMPlatformTimerStopNs(uint64_t *elapsed_ns) {
  *elapsed_ns = now_ns() - timer_start_ns;
  return kTvmErrorNoError;
}

tvm_crt_error_t TVMPlatformBeforeMeasurement(void) { return kTvmErrorNoError; }

tvm_crt_error_t TVMPlatformAfterMeasurement(void) { return kTvmErrorNoError; }

tvm_crt_error_t TVMPlatformGenerateRandom(uint8_t *buffer, size_t num_bytes) {
  for (size_t i = 0; i < num_bytes; i++) {
    buffer[i] = (uint8_t)rand();
  }
  return kTvmErrorNoError;
}

size_t TVMPlatformFormatMessage(char *out_buf, size_t out_buf_size_bytes, const char *fmt,
                                va_list args) {
  int n = vsnprintf(out_buf, out_buf_size_bytes, fmt, args);
  if (n < 0) {
    return 0u;
  }
  return ((size_t)n < out_buf_size_bytes) ? (size_t)n : out_buf_size_bytes - 1u;
}

void TVMPlatformAbort(tvm_crt_error_t code) {
  (void)fprintf(stderr, "dot_server: TVMPlatformAbort(0x%x)\n", (unsigned)code);
  exit(1);
}

static utvm_err_t write_stdout(void *ctx, const uint8_t *data, size_t n) {
  (void)ctx;
  return (fwrite(data, 1u, n, stdout) == n) ? UTVM_OK : UTVM_ERR_WRITE_FAILED;
}

static utvm_err_t random_bytes(void *ctx, uint8_t *buf, size_t n) {
  (void)ctx;
  return (TVMPlatformGenerateRandom(buf, n) == kTvmErrorNoError) ? UTVM_OK
                                                                  : UTVM_ERR_SESSION_NO_RANDOM;
}

int main(void) {
  srand((unsigned)now_ns());
  const utvm_rpc_server_config_t config = {
      write_stdout, NULL, random_bytes, NULL, request_buffer, sizeof(request_buffer), 16384u,
      {tensor_arena, sizeof(tensor_arena), workspace_arena, sizeof(workspace_arena),
       TVMSystemLibEntryPoint(), NULL},
      NULL};
  if (utvm_rpc_server_init(&server, &config) != UTVM_OK ||
      utvm_rpc_server_enable_sequence(&server, reply_cache, sizeof(reply_cache)) != UTVM_OK ||
      utvm_crt_enable_time_evaluator() != UTVM_OK ||
      utvm_crt_register_optional_globals() != UTVM_OK) {
    (void)fprintf(stderr, "dot_server: server init failed\n");
    return 1;
  }
  (void)fflush(stdout);
  uint8_t chunk[256];
  for (;;) {
    ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));
    if (n <= 0) {
      return 0; /* the host closed the link */
    }
    utvm_rpc_server_feed(&server, chunk, (size_t)n);
    (void)fflush(stdout);
  }
}

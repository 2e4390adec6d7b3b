/*
 * Bare-metal program that runs the whole device stack (framing + session + MinRPC server +
 * C runtime), linked by bench/size/stack_size.sh with --gc-sections so the map file shows
 * what a firmware serving RPC links. The buffers, arenas, server state and platform hooks
 * below are the application's; the test system library's five test functions (in a registry
 * of this program's own, without the kernel functions the firmware's registry also lists) and
 * the workspace calls in main() stand in for generated operators. It is a bare TVM-compatible
 * server: the opt-in features are off unless SIZE_ENABLE_<feature> is defined (stack_size.sh's
 * UTVM_SIZE_FEATURES), SEQUENCE, LARGE_CALLS, NDARRAYS and TIME_EVALUATOR, each calling its
 * enable function, to measure what the feature costs.
 *
 * Built with -DSIZE_APP_ONLY, main() leaves the device stack out: linked with the application's
 * hooks kept (stack_size.sh names them with -Wl,--undefined), that program is the baseline
 * whose difference to the full program is what the stack costs, also under link-time
 * optimisation, where the map cannot attribute bytes to archives. The hooks therefore have
 * external linkage.
 */
#include <stdint.h>

#include "test_syslib.h"
#include "tvm/runtime/crt/module.h"
#include "tvm/runtime/crt/platform.h"
#include "utvm/rpc_server.h"
#include "utvm/syslib.h"

int main(void);
utvm_err_t size_app_uart_write(void *ctx, const uint8_t *data, size_t n);
utvm_err_t size_app_random(void *ctx, uint8_t *buf, size_t n);

#ifndef SIZE_APP_ONLY
static uint8_t request_buffer[UTVM_RPC_MIN_BUFFER_SIZE] __attribute__((aligned(8)));
static uint8_t tensor_arena[1024] __attribute__((aligned(64)));
static uint8_t workspace_arena[256] __attribute__((aligned(64)));
static utvm_rpc_server_t server;
#ifdef SIZE_ENABLE_SEQUENCE
static uint8_t reply_cache[UTVM_RPC_REPLY_CACHE_MIN];
#endif
#endif
static volatile uint8_t uart_tx;
static volatile uint32_t ticks;

utvm_err_t size_app_uart_write(void *ctx, const uint8_t *data, size_t n) {
  (void)ctx;
  for (size_t i = 0u; i < n; i++) {
    uart_tx = data[i];
  }
  return UTVM_OK;
}

utvm_err_t size_app_random(void *ctx, uint8_t *buf, size_t n) {
  (void)ctx;
  for (size_t i = 0u; i < n; i++) {
    buf[i] = (uint8_t)ticks;
  }
  return UTVM_OK;
}

uint64_t test_syslib_time_us(void) { return ticks; }

#define SIZE_SYSLIB_FUNCS(X)                                                                       \
  X(test_add_f32) X(test_echo) X(test_busy_wait_us) X(test_abort) X(test_sum_ints)

UTVM_SYSTEM_LIB(SIZE_SYSLIB_FUNCS);

tvm_crt_error_t TVMPlatformTimerStart(void) { return kTvmErrorNoError; }

tvm_crt_error_t TVMPlatformTimerStopNs(uint64_t *elapsed_ns) {
  *elapsed_ns = ticks;
  return kTvmErrorNoError;
}

tvm_crt_error_t TVMPlatformBeforeMeasurement(void) { return kTvmErrorNoError; }
tvm_crt_error_t TVMPlatformAfterMeasurement(void) { return kTvmErrorNoError; }

void TVMPlatformAbort(tvm_crt_error_t code) {
  (void)code;
  for (;;) {
    ticks++;
  }
}

#ifdef SIZE_APP_ONLY
/* The C runtime functions the test system library calls, as stubs: the baseline holds the
 * library but none of the stack. noipa keeps link-time optimisation from seeing through them
 * (it would drop the library's error texts with an empty TVMAPISetLastError). */
__attribute__((noipa)) void TVMAPISetLastError(const char *msg) { (void)msg; }

__attribute__((noipa)) tvm_crt_error_t TVMPlatformMemoryAllocate(size_t num_bytes, DLDevice dev, void **out_ptr) {
  (void)num_bytes;
  (void)dev;
  *out_ptr = NULL;
  return kTvmErrorPlatformNoMemory;
}

__attribute__((noipa)) tvm_crt_error_t TVMPlatformMemoryFree(void *ptr, DLDevice dev) {
  (void)ptr;
  (void)dev;
  return kTvmErrorNoError;
}

int main(void) {
  for (;;) {
    ticks++;
  }
}
#else
int main(void) {
  const utvm_rpc_server_config_t config = {
      size_app_uart_write, NULL, size_app_random, NULL, request_buffer, sizeof(request_buffer), 0u,
      {tensor_arena, sizeof(tensor_arena), workspace_arena, sizeof(workspace_arena),
       TVMSystemLibEntryPoint(), NULL},
      NULL};
  if (utvm_rpc_server_init(&server, &config) != UTVM_OK) {
    return 1;
  }
#ifdef SIZE_ENABLE_SEQUENCE
  (void)utvm_rpc_server_enable_sequence(&server, reply_cache, sizeof(reply_cache));
#endif
#ifdef SIZE_ENABLE_LARGE_CALLS
  utvm_rpc_server_enable_large_calls(&server);
#endif
#ifdef SIZE_ENABLE_NDARRAYS
  utvm_rpc_server_enable_ndarrays(&server);
#endif
#ifdef SIZE_ENABLE_TIME_EVALUATOR
  (void)utvm_crt_enable_time_evaluator();
#endif
  (void)utvm_rpc_server_log(&server, "boot", 4u);
  /* Generated operators also take scratch memory from the workspace arena. */
  void *scratch = TVMBackendAllocWorkspace(kDLCPU, 0, 64u, 0, 0);
  (void)TVMBackendFreeWorkspace(kDLCPU, 0, scratch);
  for (;;) {
    uint8_t rx = (uint8_t)ticks;
    utvm_rpc_server_feed(&server, &rx, 1u);
  }
}
#endif

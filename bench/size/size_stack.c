/*
 * Bare-metal program that runs the whole device stack (framing + session + MinRPC server +
 * C runtime), linked by bench/size/stack_size.sh with --gc-sections so the map file shows
 * what a firmware serving RPC links. The buffers, arenas, server state and platform hooks
 * below are the application's; the test system library and the workspace calls in main()
 * stand in for generated operators.
 */
#include <stdint.h>

#include "test_syslib.h"
#include "tvm/runtime/crt/platform.h"
#include "utvm/rpc_server.h"

int main(void);
const TVMModule *TVMSystemLibEntryPoint(void);

static uint8_t request_buffer[UTVM_RPC_MIN_BUFFER_SIZE] __attribute__((aligned(8)));
static uint8_t tensor_arena[1024] __attribute__((aligned(64)));
static uint8_t workspace_arena[256] __attribute__((aligned(64)));
static utvm_rpc_server_t server;
static volatile uint8_t uart_tx;
static volatile uint32_t ticks;

static utvm_err_t uart_write(void *ctx, const uint8_t *data, size_t n) {
  (void)ctx;
  for (size_t i = 0u; i < n; i++) {
    uart_tx = data[i];
  }
  return UTVM_OK;
}

static utvm_err_t hw_random(void *ctx, uint8_t *buf, size_t n) {
  (void)ctx;
  for (size_t i = 0u; i < n; i++) {
    buf[i] = (uint8_t)ticks;
  }
  return UTVM_OK;
}

uint64_t test_syslib_time_us(void) { return ticks; }

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

int main(void) {
  const utvm_rpc_server_config_t config = {
      uart_write, NULL, hw_random, NULL, request_buffer, sizeof(request_buffer), 0u,
      {tensor_arena, sizeof(tensor_arena), workspace_arena, sizeof(workspace_arena),
       TVMSystemLibEntryPoint()},
      NULL};
  if (utvm_rpc_server_init(&server, &config) != UTVM_OK) {
    return 1;
  }
  (void)utvm_rpc_server_log(&server, "boot", 4u);
  /* Generated operators also take scratch memory from the workspace arena. */
  void *scratch = TVMBackendAllocWorkspace(kDLCPU, 0, 64u, 0, 0);
  (void)TVMBackendFreeWorkspace(kDLCPU, 0, scratch);
  for (;;) {
    uint8_t rx = (uint8_t)ticks;
    utvm_rpc_server_feed(&server, &rx, 1u);
  }
}

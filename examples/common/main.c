/*
 * The examples' firmware: README.md's main() (the RPC server on the board's UART, fed from the
 * port's RX ring) with a system library of one user function, my_dot_s8 (dot_s8.c).
 */
#include "cortex_m.h"                 /* ports/cortex-m: utvm_irq_disable/enable, utvm_wfi */
#include "port.h"                     /* ports/cortex-m: utvm_port_uart_*, utvm_port_rx_* */
#include "tvm/runtime/crt/module.h"
#include "tvm/runtime/crt/platform.h"
#include "utvm/rpc_server.h"
#include "utvm/syslib.h"

#include "dot_s8.h"

UTVM_SYSTEM_LIB(MY_FUNCS);                     /* TVMSystemLibEntryPoint: my_dot_s8 */

static uint8_t tensor_arena[64 * 1024] __attribute__((aligned(64)));
static uint8_t workspace_arena[16 * 1024] __attribute__((aligned(64)));
static uint8_t request_buffer[2048] __attribute__((aligned(8)));
static uint8_t reply_cache[128];             /* repeats a reply a utvm host lost */
static utvm_rpc_server_t server;

static utvm_err_t uart_write(void *ctx, const uint8_t *data, size_t n) {
  (void)ctx;
  utvm_port_uart_write(data, n);                /* blocking transmit */
  return UTVM_OK;
}

static utvm_err_t random_bytes(void *ctx, uint8_t *buf, size_t n) {
  (void)ctx;
  return (TVMPlatformGenerateRandom(buf, n) == kTvmErrorNoError) ? UTVM_OK
                                                                  : UTVM_ERR_SESSION_NO_RANDOM;
}

int main(void) {
  /* Starts SysTick: the time evaluator's timer (without it, timing is an error). */
  if (TVMPlatformInitialize() != kTvmErrorNoError) {
    TVMPlatformAbort(kTvmErrorPlatformCheckFailure);
  }
  utvm_port_uart_init();                        /* UART with RX interrupt -> ring buffer */
  const utvm_rpc_server_config_t config = {
      uart_write, NULL, random_bytes, NULL, request_buffer, sizeof(request_buffer),
      16384u,                                   /* copy size offered to utvm hosts */
      {tensor_arena, sizeof(tensor_arena), workspace_arena, sizeof(workspace_arena),
       TVMSystemLibEntryPoint(),                /* the system library above */
       utvm_port_sleep_ms},                     /* time evaluator cooldown (or NULL) */
      NULL};                                    /* boot log: e.g. the last reset cause */
  if (utvm_rpc_server_init(&server, &config) != UTVM_OK ||
      utvm_rpc_server_enable_sequence(&server, reply_cache, sizeof(reply_cache)) != UTVM_OK ||
      utvm_crt_enable_time_evaluator() != UTVM_OK) {   /* TVM's time_evaluator */
    TVMPlatformAbort(kTvmErrorPlatformCheckFailure);
  }
  (void)utvm_crt_register_optional_globals();   /* random_fill, function names for utvm info */
  uint8_t chunk[64];
  for (;;) {                                    /* feed whatever the UART delivered */
    size_t n = utvm_port_rx_take(chunk, sizeof(chunk));
    if (n > 0u) {
      utvm_rpc_server_feed(&server, chunk, n);
    } else {
      utvm_irq_disable();                       /* sleep only if nothing arrived meanwhile */
      if (utvm_port_rx_empty()) {
        utvm_wfi();
      }
      utvm_irq_enable();
    }
  }
}

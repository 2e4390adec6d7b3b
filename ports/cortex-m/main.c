/*
 * utvm-server firmware: the RPC server with the test system library on the board's UART.
 *
 * Boot: report a crash record left by the previous run (Log message, then Terminate), start
 * the timer, the UART and the watchdog, initialise the server (which sends the boot
 * Terminate). Main loop: move received bytes from the ring into the server; when idle,
 * report receive losses and sleep until the next interrupt (UART RX or SysTick).
 *
 * Busy-time accounting (for bench/qemu): the main loop adds the ticks it spends asleep in
 * wfi to sleep_ticks; the global function UTVM_PORT_BUSY_NS_NAME (registered after the
 * server) returns the ticks outside wfi since the timer started, in nanoseconds.
 */
#include "cortex_m.h"
#include "port.h"
#include "test_syslib.h"
#include "tvm/runtime/crt/module.h"
#include "tvm/runtime/crt/platform.h"
#include "utvm/aot.h"
#include "utvm/crt.h"
#include "utvm/graph.h"
#include "utvm/rpc_server.h"

/* Request buffer: one request's header and arguments (copy payloads go straight to tensor
 * memory). 2048 B holds anything a TVM host sends in one packet. */
#define REQUEST_BUFFER_SIZE 2048u
/* Copy packets offered to utvm hosts through UTVM_RPC_GET_MAX_TRANSFER_NAME. */
#ifndef UTVM_PORT_MAX_TRANSFER_SIZE
#define UTVM_PORT_MAX_TRANSFER_SIZE 16384u
#endif
#if defined(UTVM_BOARD_WATCHDOG_BASE) && \
    ((UTVM_PORT_WATCHDOG_MS * (UTVM_BOARD_CPU_HZ / 1000u)) < ((UTVM_SYST_MAX_RELOAD + 1u) / 4u * 5u))
#error "UTVM_PORT_WATCHDOG_MS: an idle device would be reset (shorter than 1.25 SysTick wraps)"
#endif
/* Bytes moved from the ring to the server per step of the main loop. */
#define FEED_CHUNK_SIZE 64u

/* Application-owned server memory (see board.h for the arena sizes). The tensor arena sits
 * in its own NOLOAD section, which the board's linker script places in its largest RAM. */
static uint8_t tensor_arena[UTVM_BOARD_TENSOR_ARENA_SIZE]
    __attribute__((aligned(64), section(".utvm_arena")));
static uint8_t workspace_arena[UTVM_BOARD_WORKSPACE_ARENA_SIZE] __attribute__((aligned(64)));
static uint8_t request_buffer[REQUEST_BUFFER_SIZE] __attribute__((aligned(8)));
/* The last reply, sent again when a utvm host repeats a request whose reply it lost
 * (UTVM_RPC_SEQUENCE_NAME). */
#ifndef UTVM_PORT_REPLY_CACHE_SIZE
#define UTVM_PORT_REPLY_CACHE_SIZE 128u
#endif
static uint8_t reply_cache[UTVM_PORT_REPLY_CACHE_SIZE];
static utvm_rpc_server_t server;
/* Ticks spent in wfi since boot; main-loop state, a static because UTVM_PORT_BUSY_NS_NAME
 * reads it. */
static uint64_t sleep_ticks;

static utvm_err_t uart_write(void *ctx, const uint8_t *data, size_t n) {
  (void)ctx;
  utvm_port_uart_write(data, n);
  return UTVM_OK;
}

static utvm_err_t random_bytes(void *ctx, uint8_t *buf, size_t n) {
  (void)ctx;
  return (TVMPlatformGenerateRandom(buf, n) == kTvmErrorNoError) ? UTVM_OK
                                                                  : UTVM_ERR_SESSION_NO_RANDOM;
}

/* Starts the server with the sequence extension, large calls and the time evaluator; boot_log
 * (NULL for none) reaches the host before the boot Terminate. */
static utvm_err_t server_start(const char *boot_log) {
  const utvm_rpc_server_config_t config = {
      uart_write,
      NULL,
      random_bytes,
      NULL,
      request_buffer,
      sizeof(request_buffer),
      UTVM_PORT_MAX_TRANSFER_SIZE,
      {tensor_arena, sizeof(tensor_arena), workspace_arena, sizeof(workspace_arena),
       TVMSystemLibEntryPoint(), utvm_port_sleep_ms},
      boot_log};
  utvm_err_t err = utvm_rpc_server_init(&server, &config);
  if (err == UTVM_OK) {
    err = utvm_rpc_server_enable_sequence(&server, reply_cache, sizeof(reply_cache));
  }
  if (err == UTVM_OK) {
    utvm_rpc_server_enable_large_calls(&server); /* the graph executor's JSON and params */
    err = utvm_crt_enable_time_evaluator();
  }
  return err;
}

/* UTVM_PORT_BUSY_NS_NAME: busy ticks (ticks - sleep_ticks) as nanoseconds, an Int. */
static int get_busy_ns(TVMValue *args, int *codes, int num_args, TVMValue *ret, int *ret_tc,
                       void *resource) {
  (void)args;
  (void)codes;
  (void)num_args;
  (void)resource;
  uint64_t busy = utvm_port_ticks() - sleep_ticks;
  /* Split in seconds and the rest so that the product cannot overflow. */
  uint64_t ns = ((busy / UTVM_BOARD_CPU_HZ) * 1000000000u) +
                (((busy % UTVM_BOARD_CPU_HZ) * 1000000000u) / UTVM_BOARD_CPU_HZ);
  ret->v_int64 = (int64_t)ns;
  *ret_tc = kTVMArgInt;
  return 0;
}

/* Logs receive losses (ring full, UART overrun) that happened since the last report. */
static void report_rx_losses(uint32_t *reported) {
  uint32_t lost = utvm_port_rx_dropped() + utvm_port_uart_hw_overruns();
  if (lost == *reported) {
    return;
  }
  char text[96];
  size_t len = 0u;
  utvm_port_append_str(text, sizeof(text), &len, "uart rx overflow: ");
  utvm_port_append_dec(text, sizeof(text), &len, lost - *reported);
  utvm_port_append_str(text, sizeof(text), &len, " bytes dropped (total ");
  utvm_port_append_dec(text, sizeof(text), &len, lost);
  utvm_port_append_str(text, sizeof(text), &len, ")");
  (void)utvm_rpc_server_log(&server, text, len);
  *reported = lost;
}

int main(void) {
  char crash_text[UTVM_PORT_CRASH_TEXT_MAX + 1u];
  size_t crash_len = utvm_port_take_crash_report(crash_text, UTVM_PORT_CRASH_TEXT_MAX);
  crash_text[crash_len] = '\0';
  (void)TVMPlatformInitialize();
  utvm_port_uart_init();
#if defined(UTVM_BOARD_WATCHDOG_BASE)
  utvm_port_watchdog_init(UTVM_PORT_WATCHDOG_MS);
#endif
  if (server_start((crash_len > 0u) ? crash_text : NULL) != UTVM_OK) {
    utvm_port_crash(UTVM_PORT_CAUSE_UNEXPECTED, 0u, 0u, 0u);
  }
  utvm_rpc_server_enable_ndarrays(&server); /* the executors' get_input / get_output */
  if (utvm_crt_register_optional_globals() != UTVM_OK ||
      utvm_crt_register_global(UTVM_PORT_BUSY_NS_NAME, get_busy_ns, NULL) != UTVM_OK ||
      utvm_graph_register_global() != UTVM_OK || utvm_aot_register_global() != UTVM_OK) {
    static const char no_busy_ns[] = "cannot register the optional globals";
    (void)utvm_rpc_server_log(&server, no_busy_ns, sizeof(no_busy_ns) - 1u);
  }
  uint32_t reported_losses = 0u;
  uint8_t chunk[FEED_CHUNK_SIZE];
  for (;;) {
#if defined(UTVM_BOARD_WATCHDOG_BASE)
    utvm_port_watchdog_kick();
#endif
    size_t n = utvm_port_rx_take(chunk, sizeof(chunk));
    if (n > 0u) {
      utvm_rpc_server_feed(&server, chunk, n);
      continue;
    }
    report_rx_losses(&reported_losses);
    utvm_irq_disable();
    if (utvm_port_rx_empty()) {
      uint64_t sleep_start = utvm_port_ticks();
      utvm_wfi(); /* wakes on a pending interrupt even with interrupts masked */
      sleep_ticks += utvm_port_ticks() - sleep_start;
    }
    utvm_irq_enable();
  }
}

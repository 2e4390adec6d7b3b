/*
 * utvm Cortex-M port: the interfaces between the core code (startup, timer, crash record,
 * receive ring, main loop), the peripheral drivers (drivers/) and the board files
 * (boards/<board>/board.h: addresses, clocks, IRQ numbers; linker.ld).
 *
 * State: the port keeps its state in file-scope statics because interrupt handlers and the
 * TVM platform hooks (which have no context argument) must reach it; each is documented
 * where it is defined.
 */
#ifndef UTVM_CORTEX_M_PORT_H
#define UTVM_CORTEX_M_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "utvm/error.h"

/* Receive ring buffer size in bytes (a power of two). A host sends one request and then
 * waits for the reply, and the main loop feeds bytes to the server as they arrive, so the
 * ring only has to absorb what arrives while the main loop is busy elsewhere (replying,
 * reporting). 4096 B is twice the largest packet a TVM host sends (2048 B): a full packet
 * plus its worst-case escaping fits. Bytes arriving while it is full are dropped, counted
 * and reported to the host as a Log message. */
#ifndef UTVM_PORT_RX_RING_SIZE
#define UTVM_PORT_RX_RING_SIZE 4096u
#endif

/* Watchdog timeout in milliseconds (boards with UTVM_BOARD_WATCHDOG_BASE): an operator that
 * keeps the main loop away longer than this is reset and reported as "watchdog". An idle
 * device is woken (and kicks) at least once per SysTick wrap, 2^24 CPU clock ticks (671 ms at
 * 25 MHz): main.c rejects a timeout shorter than 1.25 wraps at compile time. main.c passes it
 * to utvm_port_watchdog_init; the utvm-server-wdt test image uses 1000 ms (CMakeLists.txt). */
#ifndef UTVM_PORT_WATCHDOG_MS
#define UTVM_PORT_WATCHDOG_MS 10000u
#endif

/* Global function registered by the firmware (main.c) after the server: takes no
 * arguments and returns an Int, the nanoseconds the CPU spent outside wfi (busy) since the
 * timer started: busy ticks * 1e9 / UTVM_BOARD_CPU_HZ. Under qemu-system-arm -icount shift=0
 * one nanosecond is one guest instruction (bench/qemu). */
#define UTVM_PORT_BUSY_NS_NAME "utvm.port.GetBusyNs"

/* ---- Provided by the UART driver (drivers/cmsdk_uart.c, drivers/stm32_usart.c) ---------------------------------- */

/* Configures the board's console UART (UTVM_BOARD_UART_*): receiver with its RX interrupt
 * enabled in the peripheral and the NVIC, polled transmitter. */
void utvm_port_uart_init(void);

/* Transmits n bytes, waiting (polling) for room in the transmitter. */
void utvm_port_uart_write(const uint8_t *data, size_t n);

/* RX interrupt handler (installed in the vector table at UTVM_BOARD_UART_IRQ): moves every
 * received byte into the ring with utvm_port_rx_push(), stopping when
 * utvm_port_rx_pause_if_full() says the ring is full (the byte stays in the UART). */
void utvm_port_uart_isr(void);

/* Receive overruns counted by the UART hardware (0 if it has no such flag). */
uint32_t utvm_port_uart_hw_overruns(void);

/* ---- Receive ring (rx_ring.c) -------------------------------------------------------- */

/* Interrupt side: appends one byte, or drops and counts it when the ring is full. */
void utvm_port_rx_push(uint8_t byte);

/* Interrupt side, before reading a byte from the UART: false when the ring has room. When it
 * is full, masks UTVM_BOARD_UART_IRQ in the NVIC and returns true: the byte stays in the
 * UART until utvm_port_rx_take() makes room and unmasks it (flow control). A hardware UART
 * then overruns (counted by the driver); QEMU's UART models hold further input back, so
 * nothing is lost under emulation. */
bool utvm_port_rx_pause_if_full(void);

/* Main-loop side: moves up to max buffered bytes to dst; returns how many. Ends a pause of
 * the UART interrupt (utvm_port_rx_pause_if_full), raising it again for the held byte. */
size_t utvm_port_rx_take(uint8_t *dst, size_t max);

/* True when no byte is buffered. */
bool utvm_port_rx_empty(void);

/* Bytes dropped because the ring was full, since boot (none from drivers that check
 * utvm_port_rx_pause_if_full first). */
uint32_t utvm_port_rx_dropped(void);

/* ---- Timer (timer.c) ----------------------------------------------------------------- */

/* Starts SysTick on the CPU clock (UTVM_BOARD_CPU_HZ) with its wrap interrupt, which
 * extends the 24-bit counter to 64 bits and wakes the main loop periodically. */
void utvm_port_timer_init(void);

/* CPU clock ticks since utvm_port_timer_init (64-bit, from thread mode). */
uint64_t utvm_port_ticks(void);

/* The runtime's sleep hook (time evaluator cooldown): waits ms milliseconds on the SysTick
 * count. UTVM_ERR_PLATFORM_TIMER_NOT_RUNNING before TVMPlatformInitialize. A wait longer than
 * the watchdog timeout (UTVM_PORT_WATCHDOG_MS) resets the board. */
utvm_err_t utvm_port_sleep_ms(uint32_t ms);

/* SysTick exception handler. */
void utvm_port_systick_isr(void);

/* ---- Watchdog (drivers/cmsdk_watchdog.c, boards with UTVM_BOARD_WATCHDOG_BASE) ------- */

/* Starts the watchdog with a timeout of timeout_ms milliseconds (at most 2^32 watchdog clock
 * ticks, 171 s at 25 MHz; longer is clamped); its first expiry raises NMI. */
void utvm_port_watchdog_init(uint32_t timeout_ms);

/* Restarts the watchdog countdown (called by the main loop). */
void utvm_port_watchdog_kick(void);

/* ---- Crash record and reset (crash.c) ------------------------------------------------ */

/* Why the device reset itself. */
typedef enum {
  UTVM_PORT_CAUSE_ABORT = 1,      /* TVMPlatformAbort */
  UTVM_PORT_CAUSE_HARDFAULT = 2,
  UTVM_PORT_CAUSE_MEMMANAGE = 3,
  UTVM_PORT_CAUSE_BUSFAULT = 4,
  UTVM_PORT_CAUSE_USAGEFAULT = 5,
  UTVM_PORT_CAUSE_SECUREFAULT = 6,
  UTVM_PORT_CAUSE_WATCHDOG = 7,   /* watchdog expiry (NMI) */
  UTVM_PORT_CAUSE_NMI = 8,        /* NMI on a board without watchdog */
  UTVM_PORT_CAUSE_UNEXPECTED = 9  /* an exception without handler */
} utvm_port_cause_t;

/* Writes a crash record (cause, code, pc, lr, fault status registers) to .noinit RAM and
 * resets the device through SCB AIRCR. */
__attribute__((noreturn)) void utvm_port_crash(utvm_port_cause_t cause, uint32_t code,
                                               uint32_t pc, uint32_t lr);

/* Fault entry from the naked handler shim in startup.c: frame is the exception stack frame
 * (r0-r3, r12, lr, pc, xpsr), exc_return the handler's LR, ipsr the exception number. Marked
 * used: the shim reaches it from assembly, which link-time optimisation does not see. */
__attribute__((noreturn, used)) void utvm_port_fault(const uint32_t *frame, uint32_t exc_return,
                                               uint32_t ipsr);

/* Resets the device through SCB AIRCR (SYSRESETREQ). */
__attribute__((noreturn)) void utvm_port_reset(void);

/* Largest crash report text, in bytes (within the 1..1023 of a session Log message). */
#define UTVM_PORT_CRASH_TEXT_MAX 200u

/* If the previous run left a valid crash record: formats it into text (at most
 * UTVM_PORT_CRASH_TEXT_MAX bytes, no terminator), clears the record and returns the
 * length; returns 0 when there is none. */
size_t utvm_port_take_crash_report(char *text, size_t size);

/* ---- Text helpers (crash.c) ----------------------------------------------------------- */

/* Appends the NUL-terminated string s to text[*len, size); truncates at size. */
void utvm_port_append_str(char *text, size_t size, size_t *len, const char *s);

/* Appends value as "0x" and 8 lowercase hex digits to text[*len, size); truncates at size. */
void utvm_port_append_hex(char *text, size_t size, size_t *len, uint32_t value);

/* Appends value in decimal to text[*len, size); truncates at size. */
void utvm_port_append_dec(char *text, size_t size, size_t *len, uint32_t value);

/* ---- Linker script symbols ------------------------------------------------------------ */
extern uint32_t __utvm_data_load[];  /* .data initial values (flash) */
extern uint32_t __utvm_data_start[];
extern uint32_t __utvm_data_end[];
extern uint32_t __utvm_bss_start[];
extern uint32_t __utvm_bss_end[];
extern uint32_t __utvm_ram_start[];  /* lowest address of the RAM holding the stack */
extern uint32_t __utvm_stack_top[];  /* initial main stack pointer */

#endif /* UTVM_CORTEX_M_PORT_H */

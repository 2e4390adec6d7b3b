/*
 * Arm CMSDK APB watchdog (MPS2 boards): counts down from the load value; the first expiry
 * raises its interrupt, wired to NMI, whose handler records a "watchdog" crash and resets;
 * a second expiry (if the NMI handler itself hung) resets the system in hardware.
 * Board macros: UTVM_BOARD_WATCHDOG_BASE, UTVM_BOARD_WATCHDOG_CLK_HZ.
 */
#include "cortex_m.h"
#include "port.h"

#define WDOG_LOAD UTVM_REG32(UTVM_BOARD_WATCHDOG_BASE + 0x000u)
#define WDOG_CTRL UTVM_REG32(UTVM_BOARD_WATCHDOG_BASE + 0x008u)
#define WDOG_INTCLR UTVM_REG32(UTVM_BOARD_WATCHDOG_BASE + 0x00Cu)
#define WDOG_LOCK UTVM_REG32(UTVM_BOARD_WATCHDOG_BASE + 0xC00u)

#define CTRL_INTEN (1u << 0)
#define CTRL_RESEN (1u << 1)
#define LOCK_UNLOCK 0x1ACCE551u

#define LOAD_MAX 0xFFFFFFFFu

void utvm_port_watchdog_init(uint32_t timeout_ms) {
  /* Ticks per millisecond is a compile-time constant: no 64-bit division at run time. */
  uint64_t ticks = (uint64_t)(UTVM_BOARD_WATCHDOG_CLK_HZ / 1000u) * timeout_ms;
  WDOG_LOCK = LOCK_UNLOCK;
  WDOG_LOAD = (ticks > LOAD_MAX) ? LOAD_MAX : (uint32_t)ticks;
  WDOG_INTCLR = 1u;
  WDOG_CTRL = CTRL_INTEN | CTRL_RESEN;
  WDOG_LOCK = 0u;
}

void utvm_port_watchdog_kick(void) {
  WDOG_LOCK = LOCK_UNLOCK;
  WDOG_INTCLR = 1u; /* clears the interrupt and reloads the counter */
  WDOG_LOCK = 0u;
}

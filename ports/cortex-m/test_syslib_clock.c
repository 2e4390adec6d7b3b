/* The test system library's clock on the Cortex-M port (independent of the TVM platform
 * timer): SysTick ticks in microseconds. Linked into every image that links utvm_test_syslib. */
#include "port.h"
#include "test_syslib.h"

uint64_t test_syslib_time_us(void) { return utvm_port_ticks() / (UTVM_BOARD_CPU_HZ / 1000000u); }

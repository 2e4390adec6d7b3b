/*
 * utvm-echo firmware: returns every byte received on the board's UART unchanged. Used by the
 * QEMU test that proves all 256 byte values cross the serial chardev intact both ways.
 */
#include "cortex_m.h"
#include "port.h"

int main(void) {
  utvm_port_timer_init();
  utvm_port_uart_init();
  uint8_t chunk[64];
  for (;;) {
    size_t n = utvm_port_rx_take(chunk, sizeof(chunk));
    if (n > 0u) {
      utvm_port_uart_write(chunk, n);
      continue;
    }
    utvm_irq_disable();
    if (utvm_port_rx_empty()) {
      utvm_wfi();
    }
    utvm_irq_enable();
  }
}

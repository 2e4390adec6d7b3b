/*
 * Arm CMSDK APB UART (MPS2 and MPS3 boards): RX interrupt into the receive ring, polled TX.
 * Board macros: UTVM_BOARD_UART_BASE, UTVM_BOARD_UART_IRQ (the RX or combined interrupt),
 * UTVM_BOARD_UART_CLK_HZ, UTVM_BOARD_UART_BAUD.
 */
#include "cortex_m.h"
#include "port.h"

#define UART_DATA UTVM_REG32(UTVM_BOARD_UART_BASE + 0x000u)
#define UART_STATE UTVM_REG32(UTVM_BOARD_UART_BASE + 0x004u)
#define UART_CTRL UTVM_REG32(UTVM_BOARD_UART_BASE + 0x008u)
#define UART_INTCLEAR UTVM_REG32(UTVM_BOARD_UART_BASE + 0x00Cu)
#define UART_BAUDDIV UTVM_REG32(UTVM_BOARD_UART_BASE + 0x010u)

#define STATE_TX_FULL (1u << 0)
#define STATE_RX_FULL (1u << 1)
#define STATE_RX_OVERRUN (1u << 3)
#define CTRL_TX_EN (1u << 0)
#define CTRL_RX_EN (1u << 1)
#define CTRL_RX_INTEN (1u << 3)
#define INT_RX (1u << 1)
#define INT_RX_OVERRUN (1u << 3)

/* Port state: counted in the interrupt handler. */
static volatile uint32_t uart_overruns;

void utvm_port_uart_init(void) {
  UART_CTRL = 0u;
  UART_BAUDDIV = UTVM_BOARD_UART_CLK_HZ / UTVM_BOARD_UART_BAUD;
  UART_INTCLEAR = 0xFu;
  UART_CTRL = CTRL_TX_EN | CTRL_RX_EN | CTRL_RX_INTEN;
  utvm_nvic_enable(UTVM_BOARD_UART_IRQ);
}

void utvm_port_uart_write(const uint8_t *data, size_t n) {
  for (size_t i = 0u; i < n; i++) {
    while ((UART_STATE & STATE_TX_FULL) != 0u) {
      /* Polled: wait for the holding register. */
    }
    UART_DATA = data[i];
  }
}

void utvm_port_uart_isr(void) {
  /* Clear first, then drain: a byte arriving after the last STATE read raises the
   * interrupt again instead of being stranded. */
  UART_INTCLEAR = INT_RX | INT_RX_OVERRUN;
  uint32_t state = UART_STATE;
  if ((state & STATE_RX_OVERRUN) != 0u) {
    uart_overruns = uart_overruns + 1u;
    UART_STATE = STATE_RX_OVERRUN; /* write one to clear */
  }
  for (uint32_t i = 0u; i < UTVM_PORT_RX_RING_SIZE; i++) {
    if ((UART_STATE & STATE_RX_FULL) == 0u) {
      return;
    }
    if (utvm_port_rx_pause_if_full()) {
      return; /* flow control: the byte waits in the holding register */
    }
    utvm_port_rx_push((uint8_t)UART_DATA);
  }
  /* Bound reached with data still arriving (QEMU refills the holding register as soon as it
   * is read): come back after letting the interrupted code run, since the RX interrupt
   * status was already cleared. */
  utvm_nvic_set_pending(UTVM_BOARD_UART_IRQ);
}

uint32_t utvm_port_uart_hw_overruns(void) { return uart_overruns; }

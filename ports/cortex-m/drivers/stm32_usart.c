/*
 * STM32F4 USART: RX interrupt (RXNEIE) into the receive ring, polled TX.
 * Board macros: UTVM_BOARD_UART_BASE, UTVM_BOARD_UART_IRQ, UTVM_BOARD_UART_CLK_HZ,
 * UTVM_BOARD_UART_BAUD, UTVM_BOARD_UART_RCC_ENR / UTVM_BOARD_UART_RCC_BIT (clock enable).
 * Pin multiplexing (GPIO alternate functions) is not configured: QEMU does not model it.
 */
#include "cortex_m.h"
#include "port.h"

#define USART_SR UTVM_REG32(UTVM_BOARD_UART_BASE + 0x00u)
#define USART_DR UTVM_REG32(UTVM_BOARD_UART_BASE + 0x04u)
#define USART_BRR UTVM_REG32(UTVM_BOARD_UART_BASE + 0x08u)
#define USART_CR1 UTVM_REG32(UTVM_BOARD_UART_BASE + 0x0Cu)

#define SR_ORE (1u << 3)
#define SR_RXNE (1u << 5)
#define SR_TXE (1u << 7)
#define CR1_RE (1u << 2)
#define CR1_TE (1u << 3)
#define CR1_RXNEIE (1u << 5)
#define CR1_UE (1u << 13)

/* Port state: counted in the interrupt handler. */
static volatile uint32_t uart_overruns;

void utvm_port_uart_init(void) {
  UTVM_REG32(UTVM_BOARD_UART_RCC_ENR) |= UTVM_BOARD_UART_RCC_BIT;
  USART_CR1 = 0u;
  USART_BRR = UTVM_BOARD_UART_CLK_HZ / UTVM_BOARD_UART_BAUD;
  USART_CR1 = CR1_UE | CR1_TE | CR1_RE | CR1_RXNEIE;
  utvm_nvic_enable(UTVM_BOARD_UART_IRQ);
}

void utvm_port_uart_write(const uint8_t *data, size_t n) {
  for (size_t i = 0u; i < n; i++) {
    while ((USART_SR & SR_TXE) == 0u) {
      /* Polled: wait for the data register. */
    }
    USART_DR = data[i];
  }
}

void utvm_port_uart_isr(void) {
  for (uint32_t i = 0u; i < UTVM_PORT_RX_RING_SIZE; i++) {
    uint32_t sr = USART_SR;
    if ((sr & SR_ORE) != 0u) {
      uart_overruns = uart_overruns + 1u; /* cleared by the SR-then-DR read sequence */
    }
    if ((sr & (SR_RXNE | SR_ORE)) == 0u) {
      break;
    }
    if (utvm_port_rx_pause_if_full()) {
      break; /* flow control: the byte waits in the data register */
    }
    utvm_port_rx_push((uint8_t)USART_DR);
  }
}

uint32_t utvm_port_uart_hw_overruns(void) { return uart_overruns; }

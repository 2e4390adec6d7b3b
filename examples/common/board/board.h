/* The examples' own board description: QEMU's mps2-an386 (Cortex-M4F), written as a project
 * outside utvm would write it for its board (README.md, "Porting to your board"). */
#ifndef UTVM_BOARD_H
#define UTVM_BOARD_H

#define UTVM_BOARD_NAME "example-mps2-an386"
#define UTVM_BOARD_CPU_HZ 25000000u     /* CPU clock, also the SysTick clock */
#define UTVM_BOARD_NUM_IRQS 32u         /* external interrupts in the vector table */

/* Console: CMSDK APB UART0 (drivers/cmsdk_uart.c), RX interrupt 0. */
#define UTVM_BOARD_UART_BASE 0x40004000u
#define UTVM_BOARD_UART_IRQ 0u
#define UTVM_BOARD_UART_CLK_HZ 25000000u
#define UTVM_BOARD_UART_BAUD 115200u

#endif /* UTVM_BOARD_H */

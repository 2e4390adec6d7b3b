/* Netduino Plus 2 (STM32F405RG, Cortex-M4F), as modelled by QEMU hw/arm/netduinoplus2.c and
 * stm32f405_soc.c: the first -serial chardev is USART1. */
#ifndef UTVM_BOARD_H
#define UTVM_BOARD_H

#define UTVM_BOARD_NAME "netduinoplus2"
#define UTVM_BOARD_CPU_HZ 168000000u /* SYSCLK, also the SysTick clock */
#define UTVM_BOARD_NUM_IRQS 96u

/* Console: USART1 on APB2 (84 MHz), interrupt 37. */
#define UTVM_BOARD_UART_BASE 0x40011000u
#define UTVM_BOARD_UART_IRQ 37u
#define UTVM_BOARD_UART_CLK_HZ 84000000u
#define UTVM_BOARD_UART_BAUD 115200u
#define UTVM_BOARD_UART_RCC_ENR 0x40023844u /* RCC_APB2ENR */
#define UTVM_BOARD_UART_RCC_BIT (1u << 4)   /* USART1EN */

/* No watchdog (QEMU models neither IWDG nor WWDG on this SoC). */

/* Tensor arena: 96 KiB of the 128 KiB SRAM. Workspace arena: 8 KiB. */
#define UTVM_BOARD_TENSOR_ARENA_SIZE (96u * 1024u)
#define UTVM_BOARD_WORKSPACE_ARENA_SIZE (8u * 1024u)

#endif /* UTVM_BOARD_H */

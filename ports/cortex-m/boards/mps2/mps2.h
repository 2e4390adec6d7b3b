/* MPS2 boards as modelled by QEMU hw/arm/mps2.c: the AN385 (Cortex-M3) and AN386 (Cortex-M4F)
 * FPGA images share this memory map, clocks and peripherals; each board.h names the board
 * and includes this file. */
#ifndef UTVM_BOARD_MPS2_H
#define UTVM_BOARD_MPS2_H

#define UTVM_BOARD_CPU_HZ 25000000u /* SYSCLK, also the SysTick clock */
#define UTVM_BOARD_NUM_IRQS 32u

/* Console: CMSDK APB UART0, RX interrupt 0 (TX is 1, not used). */
#define UTVM_BOARD_UART_BASE 0x40004000u
#define UTVM_BOARD_UART_IRQ 0u
#define UTVM_BOARD_UART_CLK_HZ 25000000u
#define UTVM_BOARD_UART_BAUD 115200u

/* CMSDK APB watchdog, interrupt wired to NMI. */
#define UTVM_BOARD_WATCHDOG_BASE 0x40008000u
#define UTVM_BOARD_WATCHDOG_CLK_HZ 25000000u

/* Tensor arena: 2 MiB of the 4 MiB SSRAM2&3 (the page allocator manages at most 32767 pages
 * of 64 B, about 2 MiB). Workspace arena: 64 KiB. */
#define UTVM_BOARD_TENSOR_ARENA_SIZE (2048u * 1024u)
#define UTVM_BOARD_WORKSPACE_ARENA_SIZE (64u * 1024u)

#endif /* UTVM_BOARD_MPS2_H */

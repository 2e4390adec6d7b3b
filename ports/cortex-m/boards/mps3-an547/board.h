/* MPS3 with the AN547 FPGA image (Cortex-M55, SSE-300), as modelled by QEMU
 * hw/arm/mps2-tz.c. The core runs Secure; peripherals are used through their Non-secure
 * aliases, which Secure code may access while the PPCs are at their reset configuration. */
#ifndef UTVM_BOARD_H
#define UTVM_BOARD_H

#define UTVM_BOARD_NAME "mps3-an547"
#define UTVM_BOARD_CPU_HZ 32000000u /* SYSCLK (MAINCLK), also the SysTick clock */
#define UTVM_BOARD_NUM_IRQS 128u    /* 32 SSE-300 interrupts + 96 expansion interrupts */
#define UTVM_BOARD_HAS_SECUREFAULT 1

/* Console: CMSDK APB UART0 on its combined interrupt 43 (TX 33, RX 34); APB clock 25 MHz. */
#define UTVM_BOARD_UART_BASE 0x49303000u
#define UTVM_BOARD_UART_IRQ 43u
#define UTVM_BOARD_UART_CLK_HZ 25000000u
#define UTVM_BOARD_UART_BAUD 115200u

/* No watchdog: the SSE-300 watchdogs are not CMSDK APB watchdogs wired to NMI. */

/* Tensor arena: 2 MiB of the 4 MiB SRAM 2 (the page allocator manages at most 32767 pages
 * of 64 B, about 2 MiB). Workspace arena: 64 KiB in DTCM. */
#define UTVM_BOARD_TENSOR_ARENA_SIZE (2048u * 1024u)
#define UTVM_BOARD_WORKSPACE_ARENA_SIZE (64u * 1024u)

#endif /* UTVM_BOARD_H */

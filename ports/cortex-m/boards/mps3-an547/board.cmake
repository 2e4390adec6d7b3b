# mps3-an547: CMSDK UART0 console.
set(UTVM_BOARD_DRIVERS drivers/cmsdk_uart.c)

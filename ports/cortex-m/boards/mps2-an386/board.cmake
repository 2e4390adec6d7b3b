# mps2-an386: CMSDK UART0 console, CMSDK watchdog.
set(UTVM_BOARD_DRIVERS drivers/cmsdk_uart.c drivers/cmsdk_watchdog.c)

# mps2-an386: CMSDK UART0 console, CMSDK watchdog.
set(UTVM_BOARD_DRIVERS drivers/cmsdk_uart.c drivers/cmsdk_watchdog.c)
set(UTVM_BOARD_LINKER_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/../mps2/linker.ld)

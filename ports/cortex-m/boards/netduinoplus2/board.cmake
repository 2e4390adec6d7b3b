# netduinoplus2: STM32 USART1 console.
set(UTVM_BOARD_DRIVERS drivers/stm32_usart.c)

/*
 * Cortex-M startup in C: the vector table, the reset handler (FPU enable, .data copy, .bss
 * zeroing, then main) and the fault entry shim.
 *
 * External interrupts without a handler are left as NULL entries: taking one branches to
 * address 0 without the Thumb bit, which raises an INVSTATE UsageFault that is recorded in the
 * crash record like any other fault. Only the board's UART interrupt is ever enabled.
 */
#include <stdint.h>

#include "cortex_m.h"
#include "port.h"

int main(void);

typedef void (*utvm_vector_t)(void);

/* The table the core fetches at reset: initial SP, then exception and interrupt vectors. */
typedef struct {
  const uint32_t *initial_sp;
  utvm_vector_t system[15];                 /* exceptions 1..15 */
  utvm_vector_t irq[UTVM_BOARD_NUM_IRQS];   /* external interrupts 0..N-1 */
} utvm_vector_table_t;

void utvm_reset_handler(void);
void utvm_fault_entry(void);
void utvm_unexpected_handler(void);

__attribute__((used, section(".vectors"))) const utvm_vector_table_t utvm_vector_table = {
    __utvm_stack_top,
    {
        utvm_reset_handler,      /* 1 Reset */
        utvm_fault_entry,        /* 2 NMI (watchdog) */
        utvm_fault_entry,        /* 3 HardFault */
        utvm_fault_entry,        /* 4 MemManage */
        utvm_fault_entry,        /* 5 BusFault */
        utvm_fault_entry,        /* 6 UsageFault */
        utvm_fault_entry,        /* 7 SecureFault (ARMv8-M) */
        NULL,                    /* 8 reserved */
        NULL,                    /* 9 reserved */
        NULL,                    /* 10 reserved */
        utvm_unexpected_handler, /* 11 SVCall */
        utvm_unexpected_handler, /* 12 DebugMonitor */
        NULL,                    /* 13 reserved */
        utvm_unexpected_handler, /* 14 PendSV */
        utvm_port_systick_isr,   /* 15 SysTick */
    },
    {[UTVM_BOARD_UART_IRQ] = utvm_port_uart_isr},
};

void utvm_reset_handler(void) {
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  /* Before any floating-point (or MVE) instruction can run. */
  UTVM_SCB_CPACR |= UTVM_SCB_CPACR_FPU_FULL;
  utvm_dsb();
  utvm_isb();
#endif
  /* Bounded by the linker-script section sizes; volatile so that these loops are not turned
   * into memcpy/memset calls that might run before the FPU is usable. */
  volatile uint32_t *dst = __utvm_data_start;
  const volatile uint32_t *src = __utvm_data_load;
  while (dst < __utvm_data_end) {
    *dst = *src;
    dst++;
    src++;
  }
  dst = __utvm_bss_start;
  while (dst < __utvm_bss_end) {
    *dst = 0u;
    dst++;
  }
  UTVM_SCB_SHCSR |= UTVM_SCB_SHCSR_FAULTS_ENABLE;
#if defined(UTVM_BOARD_HAS_SECUREFAULT)
  UTVM_SCB_SHCSR |= UTVM_SCB_SHCSR_SECUREFAULT_ENABLE;
#endif
  utvm_dsb();
  utvm_isb();
  (void)main();
  utvm_port_crash(UTVM_PORT_CAUSE_UNEXPECTED, 0u, 0u, 0u);
}

/* Naked shim shared by NMI and all faults: picks the stack the exception frame was pushed
 * on (EXC_RETURN bit 2) and passes frame, EXC_RETURN and IPSR to utvm_port_fault(). */
__attribute__((naked)) void utvm_fault_entry(void) {
  __asm__ volatile(
      "tst lr, #4\n"
      "ite eq\n"
      "mrseq r0, msp\n"
      "mrsne r0, psp\n"
      "mov r1, lr\n"
      "mrs r2, ipsr\n"
      "b utvm_port_fault\n");
}

void utvm_unexpected_handler(void) { utvm_port_crash(UTVM_PORT_CAUSE_UNEXPECTED, 0u, 0u, 0u); }

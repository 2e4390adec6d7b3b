/*
 * Cortex-M core registers (System Control Space) and the few instructions the port needs,
 * for ARMv7-M (Cortex-M3/M4) and ARMv8.1-M (Cortex-M55). Addresses and bit positions are
 * those of the ARMv7-M / ARMv8-M Architecture Reference Manuals.
 */
#ifndef UTVM_CORTEX_M_H
#define UTVM_CORTEX_M_H

#include <stdint.h>

/* A memory-mapped 32-bit register at an absolute address. */
#define UTVM_REG32(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* SysTick. */
#define UTVM_SYST_CSR UTVM_REG32(0xE000E010u)
#define UTVM_SYST_RVR UTVM_REG32(0xE000E014u)
#define UTVM_SYST_CVR UTVM_REG32(0xE000E018u)
#define UTVM_SYST_CSR_ENABLE (1u << 0)
#define UTVM_SYST_CSR_TICKINT (1u << 1)
#define UTVM_SYST_CSR_CLKSOURCE_CPU (1u << 2)
#define UTVM_SYST_MAX_RELOAD 0x00FFFFFFu

/* NVIC: interrupt set-enable and set-pending registers, 32 interrupts per register. */
#define UTVM_NVIC_ISER(n) UTVM_REG32(0xE000E100u + (4u * (uint32_t)(n)))
#define UTVM_NVIC_ICER(n) UTVM_REG32(0xE000E180u + (4u * (uint32_t)(n)))
#define UTVM_NVIC_ISPR(n) UTVM_REG32(0xE000E200u + (4u * (uint32_t)(n)))

/* System Control Block. */
#define UTVM_SCB_ICSR UTVM_REG32(0xE000ED04u)
#define UTVM_SCB_VTOR UTVM_REG32(0xE000ED08u)
#define UTVM_SCB_AIRCR UTVM_REG32(0xE000ED0Cu)
#define UTVM_SCB_SHCSR UTVM_REG32(0xE000ED24u)
#define UTVM_SCB_CFSR UTVM_REG32(0xE000ED28u)
#define UTVM_SCB_HFSR UTVM_REG32(0xE000ED2Cu)
#define UTVM_SCB_MMFAR UTVM_REG32(0xE000ED34u)
#define UTVM_SCB_BFAR UTVM_REG32(0xE000ED38u)
#define UTVM_SCB_CPACR UTVM_REG32(0xE000ED88u)
#define UTVM_SCB_ICSR_PENDSTSET (1u << 26)
#define UTVM_SCB_AIRCR_RESET (0x05FA0000u | (1u << 2)) /* VECTKEY | SYSRESETREQ */
/* SHCSR: enable MemManage, BusFault, UsageFault (and SecureFault on ARMv8-M) as their own
 * exceptions instead of escalating to HardFault. */
#define UTVM_SCB_SHCSR_FAULTS_ENABLE ((1u << 16) | (1u << 17) | (1u << 18))
#define UTVM_SCB_SHCSR_SECUREFAULT_ENABLE (1u << 19)
/* CPACR: full access to CP10 and CP11 (FPU, and MVE on Cortex-M55). */
#define UTVM_SCB_CPACR_FPU_FULL ((3u << 20) | (3u << 22))

/* Exception numbers (IPSR values). */
#define UTVM_EXC_NMI 2u
#define UTVM_EXC_HARDFAULT 3u
#define UTVM_EXC_MEMMANAGE 4u
#define UTVM_EXC_BUSFAULT 5u
#define UTVM_EXC_USAGEFAULT 6u
#define UTVM_EXC_SECUREFAULT 7u

/* Instruction wrappers (inline assembly is the only way to emit these from C). */
static inline void utvm_irq_disable(void) { __asm__ volatile("cpsid i" ::: "memory"); }
static inline void utvm_irq_enable(void) { __asm__ volatile("cpsie i" ::: "memory"); }
static inline void utvm_wfi(void) { __asm__ volatile("wfi" ::: "memory"); }
static inline void utvm_dsb(void) { __asm__ volatile("dsb 0xF" ::: "memory"); }
static inline void utvm_isb(void) { __asm__ volatile("isb 0xF" ::: "memory"); }

/* Enables external interrupt irq (0-based, as in the vector table after the 16 system
 * exceptions) in the NVIC. */
static inline void utvm_nvic_enable(uint32_t irq) {
  UTVM_NVIC_ISER(irq / 32u) = 1u << (irq % 32u);
}

/* Disables external interrupt irq in the NVIC (a pending request waits until it is enabled). */
static inline void utvm_nvic_disable(uint32_t irq) {
  UTVM_NVIC_ICER(irq / 32u) = 1u << (irq % 32u);
  utvm_dsb();
  utvm_isb();
}

/* Marks external interrupt irq pending, so that its handler runs again. */
static inline void utvm_nvic_set_pending(uint32_t irq) {
  UTVM_NVIC_ISPR(irq / 32u) = 1u << (irq % 32u);
}

#endif /* UTVM_CORTEX_M_H */

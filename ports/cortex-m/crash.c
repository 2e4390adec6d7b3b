/*
 * Crash record and reset. A fault, NMI (watchdog) or TVMPlatformAbort writes a record into
 * the .noinit RAM section (not loaded, not zeroed at boot, kept across a system reset) and
 * resets through SCB AIRCR. At the next boot the main loop reports a valid record to the
 * host and clears it.
 *
 * Port state: the record itself, which must live at a fixed place outside .data/.bss.
 */
#include "cortex_m.h"
#include "port.h"
#include "tvm/runtime/crt/platform.h"

#define CRASH_MAGIC 0x75C8A54Bu

typedef struct {
  uint32_t magic;
  uint32_t cause; /* utvm_port_cause_t */
  uint32_t code;  /* abort code (TVMPlatformAbort), else 0 */
  uint32_t pc;
  uint32_t lr;
  uint32_t cfsr;
  uint32_t hfsr;
  uint32_t mmfar;
  uint32_t bfar;
  uint32_t check; /* CRASH_MAGIC ^ every other field */
} crash_record_t;

static crash_record_t crash_record __attribute__((section(".noinit")));

static uint32_t record_check(const crash_record_t *r) {
  return CRASH_MAGIC ^ r->cause ^ r->code ^ r->pc ^ r->lr ^ r->cfsr ^ r->hfsr ^ r->mmfar ^
         r->bfar;
}

void utvm_port_reset(void) {
  utvm_dsb();
  UTVM_SCB_AIRCR = UTVM_SCB_AIRCR_RESET;
  utvm_dsb();
  for (;;) {
    /* The reset takes effect asynchronously. */
  }
}

void utvm_port_crash(utvm_port_cause_t cause, uint32_t code, uint32_t pc, uint32_t lr) {
  utvm_irq_disable();
  crash_record.cause = (uint32_t)cause;
  crash_record.code = code;
  crash_record.pc = pc;
  crash_record.lr = lr;
  crash_record.cfsr = UTVM_SCB_CFSR;
  crash_record.hfsr = UTVM_SCB_HFSR;
  crash_record.mmfar = UTVM_SCB_MMFAR;
  crash_record.bfar = UTVM_SCB_BFAR;
  crash_record.magic = CRASH_MAGIC;
  crash_record.check = record_check(&crash_record);
  utvm_port_reset();
}

static utvm_port_cause_t cause_of_exception(uint32_t ipsr) {
  switch (ipsr & 0x1FFu) {
    case UTVM_EXC_NMI:
#if defined(UTVM_BOARD_WATCHDOG_BASE)
      return UTVM_PORT_CAUSE_WATCHDOG;
#else
      return UTVM_PORT_CAUSE_NMI;
#endif
    case UTVM_EXC_HARDFAULT:
      return UTVM_PORT_CAUSE_HARDFAULT;
    case UTVM_EXC_MEMMANAGE:
      return UTVM_PORT_CAUSE_MEMMANAGE;
    case UTVM_EXC_BUSFAULT:
      return UTVM_PORT_CAUSE_BUSFAULT;
    case UTVM_EXC_USAGEFAULT:
      return UTVM_PORT_CAUSE_USAGEFAULT;
    case UTVM_EXC_SECUREFAULT:
      return UTVM_PORT_CAUSE_SECUREFAULT;
    default:
      return UTVM_PORT_CAUSE_UNEXPECTED;
  }
}

void utvm_port_fault(const uint32_t *frame, uint32_t exc_return, uint32_t ipsr) {
  uint32_t pc = 0u;
  uint32_t lr = exc_return;
  uintptr_t at = (uintptr_t)frame;
  /* Read the stacked pc and lr only if the whole 8-word frame lies in RAM (a stack overflow
   * leaves the stack pointer elsewhere, and a second fault here would lock the core up). */
  if ((at >= (uintptr_t)__utvm_ram_start) && (at <= (uintptr_t)__utvm_stack_top - 32u) &&
      ((at & 3u) == 0u)) {
    pc = frame[6];
    lr = frame[5];
  }
  utvm_port_crash(cause_of_exception(ipsr), 0u, pc, lr);
}

void TVMPlatformAbort(tvm_crt_error_t code) {
  uint32_t caller = (uint32_t)(uintptr_t)__builtin_return_address(0);
  utvm_port_crash(UTVM_PORT_CAUSE_ABORT, (uint32_t)code, caller & ~1u, caller);
}

static const char *cause_name(uint32_t cause) {
  switch (cause) {
    case UTVM_PORT_CAUSE_ABORT:
      return "abort";
    case UTVM_PORT_CAUSE_HARDFAULT:
      return "hardfault";
    case UTVM_PORT_CAUSE_MEMMANAGE:
      return "memmanage";
    case UTVM_PORT_CAUSE_BUSFAULT:
      return "busfault";
    case UTVM_PORT_CAUSE_USAGEFAULT:
      return "usagefault";
    case UTVM_PORT_CAUSE_SECUREFAULT:
      return "securefault";
    case UTVM_PORT_CAUSE_WATCHDOG:
      return "watchdog";
    case UTVM_PORT_CAUSE_NMI:
      return "nmi";
    default:
      return "unexpected-exception";
  }
}

size_t utvm_port_take_crash_report(char *text, size_t size) {
  crash_record_t r = crash_record;
  size_t len = 0u;
  crash_record.magic = 0u;
  crash_record.check = 0u;
  if ((r.magic != CRASH_MAGIC) || (r.check != record_check(&r))) {
    return 0u;
  }
  if (size > UTVM_PORT_CRASH_TEXT_MAX) {
    size = UTVM_PORT_CRASH_TEXT_MAX;
  }
  utvm_port_append_str(text, size, &len, "device reset: ");
  utvm_port_append_str(text, size, &len, cause_name(r.cause));
  if (r.cause == (uint32_t)UTVM_PORT_CAUSE_ABORT) {
    utvm_port_append_str(text, size, &len, " code=");
    utvm_port_append_hex(text, size, &len, r.code);
  }
  utvm_port_append_str(text, size, &len, " pc=");
  utvm_port_append_hex(text, size, &len, r.pc);
  utvm_port_append_str(text, size, &len, " lr=");
  utvm_port_append_hex(text, size, &len, r.lr);
  utvm_port_append_str(text, size, &len, " cfsr=");
  utvm_port_append_hex(text, size, &len, r.cfsr);
  utvm_port_append_str(text, size, &len, " hfsr=");
  utvm_port_append_hex(text, size, &len, r.hfsr);
  utvm_port_append_str(text, size, &len, " mmfar=");
  utvm_port_append_hex(text, size, &len, r.mmfar);
  utvm_port_append_str(text, size, &len, " bfar=");
  utvm_port_append_hex(text, size, &len, r.bfar);
  return len;
}

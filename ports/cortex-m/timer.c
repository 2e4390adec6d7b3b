/*
 * SysTick timer: a 64-bit tick count built from the 24-bit down-counter (running on the CPU
 * clock, reload 2^24 - 1) plus a wrap counter kept by the SysTick interrupt; the TVM
 * platform timer hooks and the (non-cryptographic) random hook on top of it.
 *
 * Port state (statics): the wrap counter is shared with the SysTick interrupt, and the TVM
 * timer hooks have no context argument.
 */
#include "cortex_m.h"
#include "port.h"
#include "tvm/runtime/crt/platform.h"
#include "utvm/error.h"

#define TICKS_PER_WRAP (UTVM_SYST_MAX_RELOAD + 1u)

/* Nanoseconds per tick in 32.32 fixed point, folded at compile time: the whole part and the
 * fraction rounded to 32 bits. A conversion gives ticks * 1e9 / UTVM_BOARD_CPU_HZ truncated to
 * whole nanoseconds, exactly at 25 MHz (40 ns) and 32 MHz (31.25 ns); at other clocks within
 * 1 ns below 2^32 ticks and within a relative 2^-33 beyond. */
#define NS_PER_TICK_WHOLE (1000000000u / UTVM_BOARD_CPU_HZ)
#define NS_PER_TICK_FRACTION                                                                  \
  (((((uint64_t)(1000000000u % UTVM_BOARD_CPU_HZ)) << 32) + (UTVM_BOARD_CPU_HZ / 2u)) /       \
   UTVM_BOARD_CPU_HZ)

typedef char utvm_timer_check_clock[(UTVM_BOARD_CPU_HZ > 0u && UTVM_BOARD_CPU_HZ <= 1000000000u &&
                                     NS_PER_TICK_FRACTION <= 0xFFFFFFFFu) ? 1 : -1];

static volatile uint32_t systick_wraps;  /* counter wraps since init (low 32 bits) */
static volatile uint32_t systick_epochs; /* times systick_wraps itself wrapped */
static uint64_t timer_start_ticks;
static uint32_t timer_start_epoch;
static bool timer_running;
static uint32_t random_state;

void utvm_port_timer_init(void) {
  UTVM_SYST_CSR = 0u;
  UTVM_SYST_RVR = UTVM_SYST_MAX_RELOAD;
  UTVM_SYST_CVR = 0u;
  UTVM_SYST_CSR = UTVM_SYST_CSR_ENABLE | UTVM_SYST_CSR_TICKINT | UTVM_SYST_CSR_CLKSOURCE_CPU;
}

void utvm_port_systick_isr(void) {
  uint32_t wraps = systick_wraps + 1u;
  systick_wraps = wraps;
  if (wraps == 0u) {
    systick_epochs = systick_epochs + 1u;
  }
}

static uint32_t irq_save(void) {
  uint32_t primask;
  __asm__ volatile("mrs %0, primask" : "=r"(primask));
  utvm_irq_disable();
  return primask;
}

static void irq_restore(uint32_t primask) {
  __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}

/* Reads wraps and the counter consistently; *epoch receives the epoch of the reading. */
static uint64_t read_ticks(uint32_t *epoch) {
  uint32_t primask = irq_save();
  uint32_t wraps = systick_wraps;
  uint32_t ep = systick_epochs;
  uint32_t count = UTVM_SYST_CVR;
  if ((UTVM_SCB_ICSR & UTVM_SCB_ICSR_PENDSTSET) != 0u) {
    /* A wrap the interrupt has not counted yet: count it and re-read the counter, which
     * has certainly restarted from the reload value. */
    count = UTVM_SYST_CVR;
    wraps++;
    if (wraps == 0u) {
      ep++;
    }
  }
  irq_restore(primask);
  *epoch = ep;
  return ((uint64_t)wraps * TICKS_PER_WRAP) + (uint64_t)(UTVM_SYST_MAX_RELOAD - count);
}

uint64_t utvm_port_ticks(void) {
  uint32_t epoch;
  return read_ticks(&epoch);
}

/* SysTick counts only after utvm_port_timer_init (TVMPlatformInitialize). */
static bool systick_running(void) { return (UTVM_SYST_CSR & UTVM_SYST_CSR_ENABLE) != 0u; }

tvm_crt_error_t TVMPlatformTimerStart(void) {
  if (!systick_running()) {
    return (tvm_crt_error_t)UTVM_ERR_PLATFORM_TIMER_NOT_RUNNING;
  }
  if (timer_running) {
    return kTvmErrorPlatformTimerBadState;
  }
  timer_start_ticks = read_ticks(&timer_start_epoch);
  timer_running = true;
  return kTvmErrorNoError;
}

/* ticks * 1e9 / UTVM_BOARD_CPU_HZ with 32x32-bit products only (no division helper);
 * false if the nanoseconds do not fit in 64 bits. */
static bool ticks_to_ns(uint64_t ticks, uint64_t *ns) {
  uint64_t fraction_ns = ((ticks >> 32) * NS_PER_TICK_FRACTION) +
                         (((ticks & 0xFFFFFFFFu) * NS_PER_TICK_FRACTION) >> 32);
  uint64_t whole_ns = ticks * NS_PER_TICK_WHOLE;
  uint64_t total_ns = whole_ns + fraction_ns;
  if ((ticks > (UINT64_MAX / NS_PER_TICK_WHOLE)) || (total_ns < whole_ns)) {
    return false;
  }
  *ns = total_ns;
  return true;
}

tvm_crt_error_t TVMPlatformTimerStopNs(uint64_t *elapsed_ns) {
  uint32_t epoch;
  if (!timer_running) {
    return kTvmErrorPlatformTimerBadState;
  }
  uint64_t now = read_ticks(&epoch);
  timer_running = false;
  if (epoch != timer_start_epoch) {
    /* The extended counter itself wrapped (2^56 ticks): the difference is meaningless. */
    return (tvm_crt_error_t)UTVM_ERR_TIME_EVAL_TIMER_OVERFLOW;
  }
  if (!ticks_to_ns(now - timer_start_ticks, elapsed_ns)) {
    return (tvm_crt_error_t)UTVM_ERR_TIME_EVAL_TIMER_OVERFLOW;
  }
  return kTvmErrorNoError;
}

utvm_err_t utvm_port_sleep_ms(uint32_t ms) {
  uint64_t start = utvm_port_ticks();
  uint64_t wait = (uint64_t)ms * (UTVM_BOARD_CPU_HZ / 1000u);
  if (!systick_running()) {
    return UTVM_ERR_PLATFORM_TIMER_NOT_RUNNING;
  }
  /* Bounded by time: the running SysTick advances the count. */
  while (utvm_port_ticks() - start < wait) {
  }
  return UTVM_OK;
}

tvm_crt_error_t TVMPlatformBeforeMeasurement(void) { return kTvmErrorNoError; }

tvm_crt_error_t TVMPlatformAfterMeasurement(void) { return kTvmErrorNoError; }

/* Not cryptographic: a xorshift generator stirred with the tick count at every call, so the
 * session nonces vary with the host's timing. Enough for session ids, nothing else. */
tvm_crt_error_t TVMPlatformGenerateRandom(uint8_t *buffer, size_t num_bytes) {
  uint32_t x = random_state ^ (uint32_t)utvm_port_ticks() ^ 0x9E3779B9u;
  for (size_t i = 0u; i < num_bytes; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    x ^= (uint32_t)utvm_port_ticks();
    buffer[i] = (uint8_t)(x >> 24);
  }
  random_state = x;
  return kTvmErrorNoError;
}

tvm_crt_error_t TVMPlatformInitialize(void) {
  utvm_port_timer_init();
  return kTvmErrorNoError;
}

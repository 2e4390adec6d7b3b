/*
 * Test support for the utvm_crt tests: a fake platform (timer driven by a fake clock,
 * measurement hooks, abort via longjmp) and a runtime fixture over static arenas.
 */
#ifndef UTVM_CRT_TEST_SUPPORT_H
#define UTVM_CRT_TEST_SUPPORT_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "test_support.h"
#include "tvm/runtime/crt/platform.h"
#include "utvm/crt.h"

#define TEST_TENSOR_ARENA_SIZE 8192u
#define TEST_WORKSPACE_ARENA_SIZE 16384u

/* Fake clock in nanoseconds; tests and fake operators advance it. */
extern uint64_t fake_clock_ns;
/* Added to the clock by every TVMPlatformTimerStopNs before it reads it. */
extern uint64_t fake_timer_stop_advance_ns;
/* TVMPlatformTimerStopNs returns fake_timer_stop_error from its fake_timer_stop_fail_from-th
 * call on (1-based; 0 = never). TimerStart / the measurement hooks return the *_error values. */
extern utvm_err_t fake_timer_stop_error;
extern uint32_t fake_timer_stop_fail_from;
extern utvm_err_t fake_timer_start_error;
extern utvm_err_t fake_before_measurement_error;
extern utvm_err_t fake_after_measurement_error;
/* Observations. */
extern int fake_timer_running;
extern uint32_t fake_timer_starts;
extern uint32_t fake_timer_stops;
extern uint32_t fake_before_measurement_calls;
extern uint32_t fake_after_measurement_calls;
/* test_syslib_time_us() (the test library's clock hook) returns the fake clock in whole
 * microseconds, then advances it by fake_time_us_step microseconds and counts the read. */
extern uint64_t fake_time_us_step;
extern uint32_t fake_time_us_reads;
/* TVMPlatformAbort stores its code here and longjmps to fake_abort_jump. */
extern jmp_buf fake_abort_jump;
extern int fake_abort_code;

/* Resets every fake_* variable above (clock 0, no errors, timer stopped). */
void fake_platform_reset(void);

/* The fixture runtime's sleep hook: counts its calls and sums the milliseconds asked for
 * (fake_sleep_calls, fake_sleep_total_ms); returns fake_sleep_error. */
extern uint32_t fake_sleep_calls;
extern uint32_t fake_sleep_total_ms;
extern utvm_err_t fake_sleep_error;
utvm_err_t fake_sleep_ms(uint32_t ms);

/* The fixture runtime: fake_platform_reset(), then utvm_crt_init over static arenas of
 * TEST_TENSOR_ARENA_SIZE / TEST_WORKSPACE_ARENA_SIZE bytes
 * (64-byte aligned) and utvm_crt_enable_time_evaluator. Returns the runtime or NULL. */
utvm_crt_t *test_runtime_start(const TVMModule *system_lib);

/* The fixture runtime object (whether or not it is active). */
utvm_crt_t *test_runtime(void);

/* utvm_crt_shutdown of the fixture runtime. */
void test_runtime_stop(void);

/* TVMGetLastError() with its "#<id>" tokens expanded (test_expand_error): what the tests
 * compare, so that they pass with and without UTVM_ERROR_TEXTS. */
const char *test_last_error(void);

/* True when text starts with prefix. */
int starts_with(const char *text, const char *prefix);

/* True when needle occurs in text. */
int contains(const char *text, const char *needle);

#endif /* UTVM_CRT_TEST_SUPPORT_H */

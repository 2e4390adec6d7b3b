#include "crt_test_support.h"

#include <string.h>

#include "test_syslib.h"

uint64_t fake_clock_ns;
uint64_t fake_timer_stop_advance_ns;
utvm_err_t fake_timer_stop_error;
uint32_t fake_timer_stop_fail_from;
utvm_err_t fake_timer_start_error;
utvm_err_t fake_before_measurement_error;
utvm_err_t fake_after_measurement_error;
int fake_timer_running;
uint32_t fake_timer_starts;
uint32_t fake_sleep_calls;
uint32_t fake_sleep_total_ms;
utvm_err_t fake_sleep_error;

utvm_err_t fake_sleep_ms(uint32_t ms) {
  fake_sleep_calls++;
  fake_sleep_total_ms += ms;
  return fake_sleep_error;
}
uint32_t fake_timer_stops;
uint32_t fake_before_measurement_calls;
uint32_t fake_after_measurement_calls;
uint64_t fake_time_us_step;
uint32_t fake_time_us_reads;
jmp_buf fake_abort_jump;
int fake_abort_code;

static uint64_t g_timer_start_ns;
static utvm_crt_t g_runtime;
static uint8_t g_tensor_arena[TEST_TENSOR_ARENA_SIZE] __attribute__((aligned(64)));
static uint8_t g_workspace_arena[TEST_WORKSPACE_ARENA_SIZE] __attribute__((aligned(64)));

void fake_platform_reset(void) {
  fake_clock_ns = 0u;
  fake_timer_stop_advance_ns = 0u;
  fake_timer_stop_error = UTVM_OK;
  fake_timer_stop_fail_from = 0u;
  fake_timer_start_error = UTVM_OK;
  fake_before_measurement_error = UTVM_OK;
  fake_after_measurement_error = UTVM_OK;
  fake_timer_running = 0;
  fake_timer_starts = 0u;
  fake_sleep_calls = 0u;
  fake_sleep_total_ms = 0u;
  fake_sleep_error = UTVM_OK;
  fake_timer_stops = 0u;
  fake_before_measurement_calls = 0u;
  fake_after_measurement_calls = 0u;
  fake_time_us_step = 0u;
  fake_time_us_reads = 0u;
  fake_abort_code = 0;
  g_timer_start_ns = 0u;
}

tvm_crt_error_t TVMPlatformTimerStart(void) {
  if (fake_timer_start_error != UTVM_OK) {
    return fake_timer_start_error;
  }
  if (fake_timer_running) {
    return UTVM_ERR_PLATFORM_TIMER_BAD_STATE;
  }
  fake_timer_running = 1;
  fake_timer_starts++;
  g_timer_start_ns = fake_clock_ns;
  return UTVM_OK;
}

tvm_crt_error_t TVMPlatformTimerStopNs(uint64_t *elapsed_ns) {
  if (!fake_timer_running) {
    return UTVM_ERR_PLATFORM_TIMER_BAD_STATE;
  }
  fake_timer_running = 0;
  fake_timer_stops++;
  if (fake_timer_stop_fail_from != 0u && fake_timer_stops >= fake_timer_stop_fail_from) {
    return fake_timer_stop_error;
  }
  fake_clock_ns += fake_timer_stop_advance_ns;
  *elapsed_ns = fake_clock_ns - g_timer_start_ns;
  return UTVM_OK;
}

tvm_crt_error_t TVMPlatformBeforeMeasurement(void) {
  fake_before_measurement_calls++;
  return fake_before_measurement_error;
}

tvm_crt_error_t TVMPlatformAfterMeasurement(void) {
  fake_after_measurement_calls++;
  return fake_after_measurement_error;
}

uint64_t test_syslib_time_us(void) {
  uint64_t now = fake_clock_ns / 1000u;
  fake_time_us_reads++;
  fake_clock_ns += fake_time_us_step * 1000u;
  return now;
}

void TVMPlatformAbort(tvm_crt_error_t code) {
  fake_abort_code = (int)code;
  longjmp(fake_abort_jump, 1);
}

utvm_crt_t *test_runtime_start(const TVMModule *system_lib) {
  utvm_crt_config_t config;
  fake_platform_reset();
  memset(g_tensor_arena, 0xA5, sizeof(g_tensor_arena));
  memset(g_workspace_arena, 0x5A, sizeof(g_workspace_arena));
  config.tensor_arena = g_tensor_arena;
  config.tensor_arena_size = sizeof(g_tensor_arena);
  config.workspace_arena = g_workspace_arena;
  config.workspace_arena_size = sizeof(g_workspace_arena);
  config.system_lib = system_lib;
  config.sleep_ms = fake_sleep_ms;
  return ((utvm_crt_init(&g_runtime, &config) == UTVM_OK) &&
          (utvm_crt_enable_time_evaluator() == UTVM_OK))
             ? &g_runtime
             : NULL;
}

utvm_crt_t *test_runtime(void) { return &g_runtime; }

void test_runtime_stop(void) { utvm_crt_shutdown(&g_runtime); }

int starts_with(const char *text, const char *prefix) {
  return text != NULL && strncmp(text, prefix, strlen(prefix)) == 0;
}

int contains(const char *text, const char *needle) {
  return text != NULL && strstr(text, needle) != NULL;
}

const char *test_last_error(void) { return test_expand_error(TVMGetLastError()); }

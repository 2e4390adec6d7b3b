/* Tests of runtime.RPCTimeEvaluator (src/crt/time_evaluator.c) with a fake timer, and of its
 * integer float64 conversion against the compiler's double arithmetic. */
#include <float.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "crt_internal.h"
#include "crt_test_support.h"
#include "tvm/runtime/crt/platform.h"
#include "utvm/crt.h"

static const DLDevice kCpu = {kDLCPU, 0};

/* ---- Timed functions --------------------------------------------------------------------- */

static uint64_t g_op_cost_ns;
static uint32_t g_op_calls;
static uint32_t g_op_fail_at; /* 1-based call number that fails; 0 = never */
static int g_op_saw_argument;

/* Advances the fake clock by g_op_cost_ns; checks that it receives its argument. */
static int fake_op(TVMValue *args, int *type_codes, int num_args, TVMValue *ret,
                   int *ret_type_code, void *resource_handle) {
  (void)ret;
  (void)ret_type_code;
  (void)resource_handle;
  g_op_calls++;
  g_op_saw_argument = (num_args == 1 && type_codes[0] == kTVMArgInt && args[0].v_int64 == 77);
  if (g_op_fail_at != 0u && g_op_calls >= g_op_fail_at) {
    TVMAPISetLastError("fake_op failed");
    return -1;
  }
  fake_clock_ns += g_op_cost_ns;
  return 0;
}

/* Leaks one arena page per call; fails without a message once the arena is full. */
static int leaking_op(TVMValue *args, int *type_codes, int num_args, TVMValue *ret,
                      int *ret_type_code, void *resource_handle) {
  void *memory;
  (void)args;
  (void)type_codes;
  (void)num_args;
  (void)ret;
  (void)ret_type_code;
  (void)resource_handle;
  fake_clock_ns += 1000000u;
  return TVMPlatformMemoryAllocate(1u, kCpu, &memory) == UTVM_OK ? 0 : -1;
}

/* Returns a byte array whose struct and data come from the arena (as TVM's convention asks);
 * the evaluator must free both after each call. */
static int bytes_result_op(TVMValue *args, int *type_codes, int num_args, TVMValue *ret,
                           int *ret_type_code, void *resource_handle) {
  void *array_memory;
  void *data;
  (void)args;
  (void)type_codes;
  (void)num_args;
  (void)resource_handle;
  fake_clock_ns += 1000000u;
  if (TVMPlatformMemoryAllocate(sizeof(TVMByteArray), kCpu, &array_memory) != UTVM_OK ||
      TVMPlatformMemoryAllocate(4u, kCpu, &data) != UTVM_OK) {
    return -1;
  }
  ((TVMByteArray *)array_memory)->data = (const char *)data;
  ((TVMByteArray *)array_memory)->size = 4u;
  ret->v_handle = array_memory;
  *ret_type_code = kTVMBytes;
  return 0;
}

static const TVMBackendPackedCFunc kFuncs[] = {fake_op, leaking_op, bytes_result_op};
static const TVMFuncRegistry kRegistry = {
    "\003\000fake_op\000leaking_op\000bytes_result_op\000", kFuncs};
static const TVMModule kLib = {&kRegistry};

/* ---- Helpers ------------------------------------------------------------------------------ */

typedef struct {
  TVMValue values[12];
  int codes[12];
} evaluator_args_t;

static evaluator_args_t default_args(const char *name, int64_t number, int64_t repeat,
                                     int64_t min_repeat_ms, int64_t limit_zero) {
  static const int kCodes[12] = {kTVMModuleHandle, kTVMStr, 0, 0, 0, 0, 0, 0, 0, 0, 0, kTVMStr};
  evaluator_args_t a;
  int i;
  for (i = 0; i < 12; i++) {
    a.codes[i] = kCodes[i];
    a.values[i].v_int64 = 0;
  }
  a.values[0].v_handle = (void *)(uintptr_t)0x8000u;
  a.values[1].v_str = name;
  a.values[2].v_int64 = kDLCPU;
  a.values[3].v_int64 = 0;
  a.values[4].v_int64 = number;
  a.values[5].v_int64 = repeat;
  a.values[6].v_int64 = min_repeat_ms;
  a.values[7].v_int64 = limit_zero;
  a.values[8].v_int64 = 0;  /* cooldown_interval_ms */
  a.values[9].v_int64 = 1;  /* repeats_to_cooldown */
  a.values[10].v_int64 = 0; /* cache_flush_bytes */
  a.values[11].v_str = "";
  return a;
}

static int create_with(evaluator_args_t *a, int num_args, TVMFunctionHandle *out) {
  TVMFunctionHandle global;
  TVMValue ret;
  int ret_code = -1;
  assert_int_equal(TVMFuncGetGlobal("runtime.RPCTimeEvaluator", &global), 0);
  if (TVMFuncCall(global, a->values, a->codes, num_args, &ret, &ret_code) != 0) {
    return -1;
  }
  assert_int_equal(ret_code, kTVMPackedFuncHandle);
  *out = ret.v_handle;
  return 0;
}

static TVMFunctionHandle create(const char *name, int64_t number, int64_t repeat,
                                int64_t min_repeat_ms, int64_t limit_zero) {
  evaluator_args_t a = default_args(name, number, repeat, min_repeat_ms, limit_zero);
  TVMFunctionHandle f = NULL;
  assert_int_equal(create_with(&a, 12, &f), 0);
  return f;
}

/* Runs the evaluator with one Int argument (77); on success copies the means into out. */
static int run(TVMFunctionHandle evaluator, double *out, size_t max_results, size_t *count) {
  TVMValue arg;
  int code = kTVMArgInt;
  TVMValue ret;
  int ret_code;
  TVMByteArray *result;
  arg.v_int64 = 77;
  if (TVMFuncCall(evaluator, &arg, &code, 1, &ret, &ret_code) != 0) {
    return -1;
  }
  assert_int_equal(ret_code, kTVMBytes);
  result = (TVMByteArray *)ret.v_handle;
  assert_int_equal(result->size % sizeof(double), 0u);
  *count = result->size / sizeof(double);
  assert_true(*count <= max_results);
  memcpy(out, result->data, result->size);
  /* The caller frees both blocks with TVMPlatformMemoryFree (data, then struct). */
  assert_int_equal(TVMPlatformMemoryFree((void *)(uintptr_t)result->data, kCpu), UTVM_OK);
  assert_int_equal(TVMPlatformMemoryFree(result, kCpu), UTVM_OK);
  return 0;
}

static int setup(void **state) {
  (void)state;
  g_op_cost_ns = 0u;
  g_op_calls = 0u;
  g_op_fail_at = 0u;
  g_op_saw_argument = 0;
  return test_runtime_start(&kLib) == NULL ? -1 : 0;
}

static int teardown(void **state) {
  (void)state;
  test_runtime_stop();
  return 0;
}

static size_t tensor_free_bytes(void) { return utvm_page_free_bytes(&test_runtime()->tensors); }

/* ---- Tests ------------------------------------------------------------------------------------ */

static void test_known_elapsed_time(void **state) {
  TVMFunctionHandle evaluator;
  double means[3];
  size_t count;
  int i;
  size_t free_before = tensor_free_bytes();
  (void)state;
  evaluator = create("fake_op", 5, 3, 0, 100);
  assert_int_equal((uintptr_t)evaluator, 0xFFFF8000u);
  g_op_cost_ns = 250000u;
  assert_int_equal(run(evaluator, means, 3u, &count), 0);
  assert_int_equal(count, 3u);
  for (i = 0; i < 3; i++) {
    assert_true(means[i] == 0.25e-3); /* 1250000 ns / 5 calls, rounded once */
  }
  assert_true(g_op_saw_argument);
  /* One untimed call, then 3 measurements of 5 calls. */
  assert_int_equal(g_op_calls, 1u + 3u * 5u);
  assert_int_equal(fake_timer_starts, 3u);
  assert_int_equal(fake_timer_stops, 3u);
  assert_int_equal(fake_before_measurement_calls, 3u);
  assert_int_equal(fake_after_measurement_calls, 3u);
  assert_false(fake_timer_running);
  assert_int_equal(tensor_free_bytes(), free_before);
  assert_int_equal(TVMFuncFree(evaluator), 0);
  assert_int_equal(tensor_free_bytes(), free_before);
}

static void test_number_grows_to_reach_min_repeat(void **state) {
  TVMFunctionHandle evaluator;
  double means[2];
  size_t count;
  (void)state;
  /* 0.8 ms per call, min_repeat 15 ms: the first round (1 call) is too short, the next uses
   * floor(15 / 0.8) + 1 = 19 calls (15.2 ms) and the count persists into the next repeat. */
  g_op_cost_ns = 800000u;
  evaluator = create("fake_op", 1, 2, 15, 100);
  assert_int_equal(run(evaluator, means, 2u, &count), 0);
  assert_int_equal(count, 2u);
  assert_true(means[0] == 0.8e-3);
  assert_true(means[1] == 0.8e-3);
  assert_int_equal(g_op_calls, 1u + (1u + 19u) + 19u);
  assert_int_equal(fake_timer_starts, 3u);
  /* A second evaluation starts from the grown number. */
  g_op_calls = 0u;
  assert_int_equal(run(evaluator, means, 2u, &count), 0);
  assert_int_equal(g_op_calls, 1u + 19u + 19u);
}

static void test_number_grows_by_golden_ratio(void **state) {
  TVMFunctionHandle evaluator;
  double means[1];
  size_t count;
  (void)state;
  /* 10 calls of 1 ms = 10 ms < 15 ms; 15 / 1 + 1 = 16 = floor(10 * 1.618): 16 calls. */
  g_op_cost_ns = 1000000u;
  evaluator = create("fake_op", 10, 1, 15, 100);
  assert_int_equal(run(evaluator, means, 1u, &count), 0);
  assert_int_equal(g_op_calls, 1u + 10u + 16u);
  /* 100 calls of 1 ms against min_repeat 101 ms: max(102, 161) = 161 calls. */
  assert_int_equal(TVMFuncFree(evaluator), 0);
  g_op_calls = 0u;
  evaluator = create("fake_op", 100, 1, 101, 100);
  assert_int_equal(run(evaluator, means, 1u, &count), 0);
  assert_int_equal(g_op_calls, 1u + 100u + 161u);
  assert_true(means[0] == 1e-3);
  /* 1250 calls of 1 us = 1.25 ms < 2 ms: max(2000 + 1, floor(1250 * 1.618) = 2022). */
  assert_int_equal(TVMFuncFree(evaluator), 0);
  g_op_calls = 0u;
  g_op_cost_ns = 1000u;
  evaluator = create("fake_op", 1250, 1, 2, 100);
  assert_int_equal(run(evaluator, means, 1u, &count), 0);
  assert_int_equal(g_op_calls, 1u + 1250u + 2022u);
  assert_true(means[0] == 1e-6);
}

static void test_number_growth_is_exact_for_large_products(void **state) {
  TVMFunctionHandle evaluator;
  double means[1];
  size_t count;
  (void)state;
  /* min_repeat 4e9 ms = 4e15 ns times 5000 calls is 2e19, beyond 64 bits: 5000 calls of 4 ms
   * (2e10 ns) give floor(2e19 / 2e10) + 1 = 1000000001 calls. The next measurement is cut
   * short by a failing call, which leaves the grown number stored. */
  g_op_cost_ns = 4000000u;
  evaluator = create("fake_op", 5000, 1, 4000000000, 100);
  g_op_fail_at = 1u + 5000u + 3u;
  assert_int_equal(run(evaluator, means, 1u, &count), -1);
  assert_string_equal(test_last_error(), "fake_op failed");
  assert_int_equal(test_runtime()->time_evaluators[0].number, 1000000001u);
  /* One nanosecond more: floor(2e19 / (2e10 + 1)) + 1 = 999999999 + 1 calls. */
  assert_int_equal(TVMFuncFree(evaluator), 0);
  evaluator = create("fake_op", 5000, 1, 4000000000, 100);
  g_op_calls = 0u;
  fake_timer_stop_advance_ns = 1u;
  assert_int_equal(run(evaluator, means, 1u, &count), -1);
  assert_int_equal(test_runtime()->time_evaluators[0].number, 1000000000u);
}

static void test_number_limit_boundary(void **state) {
  TVMFunctionHandle evaluator;
  double means[1];
  size_t count;
  (void)state;
  /* One call of 1 ms against min_repeat (2^31 - 2) ms asks for exactly
   * UTVM_CRT_TIME_EVAL_MAX_NUMBER = 2^31 - 1 calls: accepted (the failing call stops it). */
  g_op_cost_ns = 1000000u;
  g_op_fail_at = 3u;
  evaluator = create("fake_op", 1, 1, 2147483646, 100);
  assert_int_equal(run(evaluator, means, 1u, &count), -1);
  assert_string_equal(test_last_error(), "fake_op failed");
  assert_int_equal(test_runtime()->time_evaluators[0].number, UTVM_CRT_TIME_EVAL_MAX_NUMBER);
  /* One millisecond more asks for 2^31 calls: an error, and number is unchanged. */
  assert_int_equal(TVMFuncFree(evaluator), 0);
  g_op_calls = 0u;
  evaluator = create("fake_op", 1, 1, 2147483647, 100);
  assert_int_equal(run(evaluator, means, 1u, &count), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: calls per measurement overflow");
  assert_int_equal(test_runtime()->time_evaluators[0].number, 1u);
  assert_int_equal(g_op_calls, 2u);
}

static void test_zero_readings_are_limited(void **state) {
  TVMFunctionHandle evaluator;
  double means[2];
  size_t count;
  (void)state;
  g_op_cost_ns = 0u;
  evaluator = create("fake_op", 3, 2, 10, 5);
  /* Zero readings do not grow number: 5 rounds of 3 calls, then a timer that still reads 0 ns
   * for calls that ran is an error (TVM would report 0 s). */
  assert_int_equal(run(evaluator, means, 2u, &count), -1);
  assert_string_equal(test_last_error(),
                      "RPCTimeEvaluator: platform hook error 0x000005f0 (timer not running: "
                      "TVMPlatformInitialize not called? A timer that reads 0 ns for calls that "
                      "ran is not used)");
  assert_int_equal(fake_timer_starts, 5u);
  assert_int_equal(g_op_calls, 1u + 5u * 3u);
  /* limit_zero_time_iterations = 0: a single round, as TVM does, and the same error. */
  assert_int_equal(TVMFuncFree(evaluator), 0);
  fake_platform_reset();
  evaluator = create("fake_op", 3, 1, 10, 0);
  assert_int_equal(run(evaluator, means, 1u, &count), -1);
  assert_int_equal(fake_timer_starts, 1u);
  /* A zero reading followed by a non-zero one is a result. */
  assert_int_equal(TVMFuncFree(evaluator), 0);
  fake_platform_reset();
  evaluator = create("fake_op", 3, 1, 0, 5);
  g_op_cost_ns = 1000u;
  assert_int_equal(run(evaluator, means, 1u, &count), 0);
  assert_true(means[0] > 0.0);
}

/* A port whose timer cannot start because it was never initialised (the Cortex-M port's
 * TVMPlatformTimerStart before TVMPlatformInitialize) gets the same readable error. */
static void test_timer_not_running_is_an_error(void **state) {
  TVMFunctionHandle evaluator;
  double means[1];
  size_t count;
  (void)state;
  g_op_cost_ns = 1000u;
  evaluator = create("fake_op", 1, 1, 0, 100);
  fake_timer_start_error = UTVM_ERR_PLATFORM_TIMER_NOT_RUNNING;
  assert_int_equal(run(evaluator, means, 1u, &count), -1);
  assert_string_equal(test_last_error(),
                      "RPCTimeEvaluator: platform hook error 0x000005f0 (timer not running: "
                      "TVMPlatformInitialize not called? A timer that reads 0 ns for calls that "
                      "ran is not used)");
}

/* number = 0: no calls are timed and every result is NaN, as TVM's evaluator returns. */
static void test_number_zero_gives_nan(void **state) {
  TVMFunctionHandle evaluator;
  double means[3];
  size_t count;
  (void)state;
  g_op_cost_ns = 1000u;
  evaluator = create("fake_op", 0, 3, 10, 100);
  assert_int_equal(run(evaluator, means, 3u, &count), 0);
  assert_int_equal(count, 3u);
  assert_true(means[0] != means[0] && means[1] != means[1] && means[2] != means[2]);
  assert_int_equal(fake_timer_starts, 0u);
  assert_int_equal(g_op_calls, 1u); /* the warm-up call */
}

/* cooldown_interval_ms: the runtime's sleep hook runs before every repeats_to_cooldown-th
 * repeat but the first; its failure is an error; without a hook a cooldown is refused. */
static void test_cooldown_sleeps_between_repeats(void **state) {
  evaluator_args_t a = default_args("fake_op", 1, 5, 0, 100);
  TVMFunctionHandle evaluator;
  double means[5];
  size_t count;
  (void)state;
  g_op_cost_ns = 1000u;
  a.values[8].v_int64 = 7;
  a.values[9].v_int64 = 2;
  assert_int_equal(create_with(&a, 12, &evaluator), 0);
  assert_int_equal(run(evaluator, means, 5u, &count), 0);
  assert_int_equal(count, 5u);
  assert_int_equal(fake_sleep_calls, 2u); /* before repeats 2 and 4 */
  assert_int_equal(fake_sleep_total_ms, 14u);
  /* repeats_to_cooldown 0 counts as 1: before every repeat but the first. */
  assert_int_equal(TVMFuncFree(evaluator), 0);
  fake_sleep_calls = 0u;
  a.values[9].v_int64 = 0;
  assert_int_equal(create_with(&a, 12, &evaluator), 0);
  assert_int_equal(run(evaluator, means, 5u, &count), 0);
  assert_int_equal(fake_sleep_calls, 4u);
  fake_sleep_error = UTVM_ERR_PLATFORM_CHECK_FAILURE;
  assert_int_equal(run(evaluator, means, 5u, &count), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: platform hook error 0x00000500");
  assert_int_equal(TVMFuncFree(evaluator), 0);
  test_runtime()->sleep_ms = NULL;
  assert_int_equal(create_with(&a, 12, &evaluator), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: cooldown not supported");
}

static void test_round_limit_is_an_error(void **state) {
  TVMFunctionHandle evaluator;
  double means[1];
  size_t count;
  size_t free_before = tensor_free_bytes();
  (void)state;
  g_op_cost_ns = 0u;
  evaluator = create("fake_op", 1, 1, 10, 1000000);
  assert_int_equal(run(evaluator, means, 1u, &count), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: round limit reached");
  assert_int_equal(fake_timer_starts, UTVM_CRT_TIME_EVAL_MAX_ROUNDS);
  assert_int_equal(tensor_free_bytes(), free_before);
}

static void test_number_overflow_is_an_error(void **state) {
  TVMFunctionHandle evaluator;
  double means[1];
  size_t count;
  size_t free_before = tensor_free_bytes();
  (void)state;
  g_op_cost_ns = 1u;
  evaluator = create("fake_op", 1, 1, 4000000000, 100);
  assert_int_equal(run(evaluator, means, 1u, &count), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: calls per measurement overflow");
  assert_int_equal(g_op_calls, 2u);
  assert_int_equal(tensor_free_bytes(), free_before);
  /* The stored number is unchanged, so the evaluator can run again. */
  assert_int_equal(run(evaluator, means, 1u, &count), -1);
  assert_int_equal(g_op_calls, 4u);
}

static void test_timer_overflow_is_an_error(void **state) {
  TVMFunctionHandle evaluator;
  double means[3];
  size_t count;
  size_t free_before = tensor_free_bytes();
  (void)state;
  g_op_cost_ns = 1000000u;
  evaluator = create("fake_op", 2, 3, 0, 100);
  fake_timer_stop_error = UTVM_ERR_TIME_EVAL_TIMER_OVERFLOW;
  fake_timer_stop_fail_from = 2u; /* the second measurement overflows */
  assert_int_equal(run(evaluator, means, 3u, &count), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: timer overflow");
  assert_false(fake_timer_running);
  assert_int_equal(fake_after_measurement_calls, 2u);
  assert_int_equal(tensor_free_bytes(), free_before);
  /* Other timer errors. */
  fake_timer_stop_error = UTVM_ERR_PLATFORM_TIMER_BAD_STATE;
  fake_timer_stop_fail_from = 1u;
  assert_int_equal(run(evaluator, means, 3u, &count), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: platform hook error 0x00000504");
  fake_timer_stop_fail_from = 0u;
  fake_timer_start_error = UTVM_ERR_PLATFORM_TIMER_BAD_STATE;
  assert_int_equal(run(evaluator, means, 3u, &count), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: platform hook error 0x00000504");
  fake_timer_start_error = UTVM_OK;
  fake_before_measurement_error = UTVM_ERR_PLATFORM_CHECK_FAILURE;
  assert_int_equal(run(evaluator, means, 3u, &count), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: platform hook error 0x00000500");
  fake_before_measurement_error = UTVM_OK;
  fake_after_measurement_error = UTVM_ERR_PLATFORM_CHECK_FAILURE;
  assert_int_equal(run(evaluator, means, 3u, &count), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: platform hook error 0x00000500");
  fake_after_measurement_error = UTVM_OK;
  assert_int_equal(tensor_free_bytes(), free_before);
  assert_int_equal(run(evaluator, means, 3u, &count), 0);
  assert_int_equal(count, 3u);
}

static void test_extreme_timer_readings(void **state) {
  TVMFunctionHandle evaluator;
  double means[2];
  size_t count;
  (void)state;
  /* The longest reading, 2^64 - 1 ns for one call: 18446744073.709551615 s, rounded once.
   * It exceeds min_repeat, so number does not grow. */
  evaluator = create("fake_op", 1, 2, 1000, 100);
  fake_timer_stop_advance_ns = UINT64_MAX;
  assert_int_equal(run(evaluator, means, 2u, &count), 0);
  assert_int_equal(count, 2u);
  assert_true(means[0] == 18446744073.709551615);
  assert_true(means[1] == 18446744073.709551615);
  assert_int_equal(g_op_calls, 3u);
  /* The shortest non-zero reading, 1 ns for 7 calls, against min_repeat 0. */
  assert_int_equal(TVMFuncFree(evaluator), 0);
  fake_timer_stop_advance_ns = 1u;
  evaluator = create("fake_op", 7, 1, 0, 100);
  assert_int_equal(run(evaluator, means, 1u, &count), 0);
  assert_true(means[0] == 1.0 / 7e9);
}

static void test_timed_function_failure(void **state) {
  TVMFunctionHandle evaluator;
  double means[2];
  size_t count;
  size_t free_before = tensor_free_bytes();
  (void)state;
  evaluator = create("fake_op", 4, 2, 0, 100);
  g_op_fail_at = 1u; /* the untimed call */
  assert_int_equal(run(evaluator, means, 2u, &count), -1);
  assert_string_equal(test_last_error(), "fake_op failed");
  assert_int_equal(fake_timer_starts, 0u);
  g_op_calls = 0u;
  g_op_fail_at = 3u; /* inside the first measurement */
  assert_int_equal(run(evaluator, means, 2u, &count), -1);
  assert_string_equal(test_last_error(), "fake_op failed");
  assert_false(fake_timer_running);
  assert_int_equal(fake_after_measurement_calls, 1u);
  assert_int_equal(tensor_free_bytes(), free_before);
}

static void test_byte_results_of_timed_function_are_freed(void **state) {
  TVMFunctionHandle evaluator;
  double means[2];
  size_t count;
  size_t free_before = tensor_free_bytes();
  (void)state;
  evaluator = create("bytes_result_op", 3, 2, 0, 100);
  assert_int_equal(run(evaluator, means, 2u, &count), 0);
  assert_true(means[0] == 1e-3);
  assert_int_equal(tensor_free_bytes(), free_before);
  /* A function that leaks arena memory fills the arena: an error, not a crash. */
  assert_int_equal(TVMFuncFree(evaluator), 0);
  evaluator = create("leaking_op", 1000, 1, 0, 100);
  assert_int_equal(run(evaluator, means, 1u, &count), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: timed function failed");
  assert_false(fake_timer_running);
}

static void test_repeat_zero_gives_empty_bytes(void **state) {
  TVMFunctionHandle evaluator;
  double means[1];
  size_t count = 99u;
  (void)state;
  evaluator = create("fake_op", 1, 0, 0, 100);
  assert_int_equal(run(evaluator, means, 1u, &count), 0);
  assert_int_equal(count, 0u);
  assert_int_equal(g_op_calls, 1u);
}

static void test_no_memory_for_the_result(void **state) {
  TVMFunctionHandle evaluator;
  double means[2];
  size_t count;
  void *block;
  size_t free_before = tensor_free_bytes();
  (void)state;
  g_op_cost_ns = 1000u;
  evaluator = create("fake_op", 1, 2, 0, 100);
  /* The whole arena in one block: the result struct cannot be allocated. */
  assert_int_equal(TVMPlatformMemoryAllocate(free_before, kCpu, &block), UTVM_OK);
  assert_int_equal(run(evaluator, means, 2u, &count), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: no memory for the result");
  assert_int_equal(TVMPlatformMemoryFree(block, kCpu), UTVM_OK);
  /* Room for the struct only: the data cannot be allocated and the struct is released. */
  assert_int_equal(TVMPlatformMemoryAllocate(free_before - UTVM_CRT_PAGE_SIZE, kCpu, &block),
                   UTVM_OK);
  assert_int_equal(run(evaluator, means, 2u, &count), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: no memory for the result");
  assert_int_equal(TVMPlatformMemoryFree(block, kCpu), UTVM_OK);
  assert_int_equal(tensor_free_bytes(), free_before);
  assert_int_equal(run(evaluator, means, 2u, &count), 0);
  assert_int_equal(count, 2u);
}

static void test_creation_argument_checks(void **state) {
  evaluator_args_t a;
  TVMFunctionHandle f;
  int i;
  (void)state;
  a = default_args("fake_op", 1, 1, 0, 100);
  assert_int_equal(create_with(&a, 11, &f), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: expected 12 arguments");
  assert_int_equal(create_with(&a, 13, &f), -1);
  assert_int_equal(create_with(&a, 0, &f), -1);
  for (i = 0; i < 12; i++) {
    char expected[64];
    a = default_args("fake_op", 1, 1, 0, 100);
    a.codes[i] = (a.codes[i] == kTVMArgInt) ? kTVMArgFloat : kTVMNullptr;
    assert_int_equal(create_with(&a, 12, &f), -1);
    snprintf(expected, sizeof(expected), "RPCTimeEvaluator: bad argument 0x%08x", (unsigned)i);
    assert_string_equal(test_last_error(), expected);
  }
  a = default_args("fake_op", 1, 1, 0, 100);
  a.codes[2] = kTVMArgBool; /* Bool is not Int for these arguments */
  assert_int_equal(create_with(&a, 12, &f), -1);
  /* Module: Null handle value, invalid handle, function absent. */
  a = default_args("fake_op", 1, 1, 0, 100);
  a.values[0].v_handle = NULL;
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(test_last_error(), "invalid module handle 0x00000000");
  a.values[0].v_handle = (void *)(uintptr_t)0x8001u;
  assert_int_equal(create_with(&a, 12, &f), -1);
  a = default_args("absent", 1, 1, 0, 100);
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: function not found");
  a.values[1].v_str = NULL;
  assert_int_equal(create_with(&a, 12, &f), -1);
  /* Values. */
  a = default_args("fake_op", 1, 1, 0, 100);
  a.values[2].v_int64 = kDLCUDA;
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: bad argument 0x00000002");
  /* device_id: any int32 (as in DLDevice), nothing wider. */
  a = default_args("fake_op", 1, 1, 0, 100);
  a.values[3].v_int64 = (int64_t)INT32_MAX + 1;
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: bad argument 0x00000003");
  a.values[3].v_int64 = (int64_t)INT32_MIN - 1;
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: bad argument 0x00000003");
  a = default_args("fake_op", -1, 1, 0, 100);
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: bad argument 0x00000004");
  a = default_args("fake_op", (int64_t)UTVM_CRT_TIME_EVAL_MAX_NUMBER + 1, 1, 0, 100);
  assert_int_equal(create_with(&a, 12, &f), -1);
  a = default_args("fake_op", 1, -1, 0, 100);
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: bad argument 0x00000005");
  a = default_args("fake_op", 1, UTVM_CRT_TIME_EVAL_MAX_REPEAT + 1, 0, 100);
  assert_int_equal(create_with(&a, 12, &f), -1);
  a = default_args("fake_op", 1, 1, -1, 100);
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: bad argument 0x00000006");
  a = default_args("fake_op", 1, 1, 0, (int64_t)UINT32_MAX + 1);
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: bad argument 0x00000007");
  a = default_args("fake_op", 1, 1, 0, 100);
  a.values[8].v_int64 = -1;
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: bad argument 0x00000008");
  a.values[8].v_int64 = (int64_t)UINT32_MAX + 1;
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: bad argument 0x00000008");
  a = default_args("fake_op", 1, 1, 0, 100);
  a.values[9].v_int64 = -5;
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: bad argument 0x00000009");
  /* Ignored arguments. */
  a = default_args("fake_op", 1, 1, 0, 100);
  a.values[10].v_int64 = 1 << 20;
  a.values[11].v_str = "cache_flush_cpu_non_first_arg";
  a.values[3].v_int64 = INT32_MIN; /* device_id: only its range is checked */
  assert_int_equal(create_with(&a, 12, &f), 0);
}

static void test_slots(void **state) {
  TVMFunctionHandle evaluators[UTVM_CRT_MAX_TIME_EVALUATORS];
  TVMFunctionHandle extra;
  evaluator_args_t a = default_args("fake_op", 1, 1, 0, 100);
  double means[1];
  size_t count;
  uint32_t i;
  (void)state;
  g_op_cost_ns = 1000u;
  for (i = 0u; i < UTVM_CRT_MAX_TIME_EVALUATORS; i++) {
    evaluators[i] = create("fake_op", 1, 1, 0, 100);
    assert_int_equal((uintptr_t)evaluators[i], 0xFFFF8000u | i);
  }
  assert_int_equal(create_with(&a, 12, &extra), -1);
  assert_string_equal(test_last_error(), "RPCTimeEvaluator: too many live evaluators");
  assert_int_equal(TVMFuncFree(evaluators[0]), 0);
  assert_int_equal(TVMFuncFree(evaluators[0]), -1);
  assert_int_equal(run(evaluators[0], means, 1u, &count), -1);
  assert_string_equal(test_last_error(), "invalid function handle 0xffff8000");
  assert_int_equal(create_with(&a, 12, &extra), 0);
  assert_ptr_equal(extra, evaluators[0]);
  assert_int_equal(run(evaluators[1], means, 1u, &count), 0);
  /* utvm_crt_reset_memory releases every slot. */
  utvm_crt_reset_memory(test_runtime());
  assert_int_equal(TVMFuncFree(evaluators[1]), -1);
}

static void test_evaluator_of_freed_module_still_runs(void **state) {
  static const TVMModule other = {&kRegistry};
  TVMModuleHandle mod;
  evaluator_args_t a = default_args("fake_op", 2, 1, 0, 100);
  TVMFunctionHandle evaluator;
  double means[1];
  size_t count;
  (void)state;
  assert_int_equal(TVMModCreateFromCModule(&other, &mod), 0);
  a.values[0].v_handle = mod;
  assert_int_equal(create_with(&a, 12, &evaluator), 0);
  assert_int_equal(TVMModFree(mod), 0);
  g_op_cost_ns = 2000000u;
  assert_int_equal(run(evaluator, means, 1u, &count), 0);
  assert_true(means[0] == 2e-3);
}

/* ---- utvm_crt_ratio_to_binary64 ---------------------------------------------------------- */

static uint64_t bits_of(double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof(bits));
  return bits;
}

static double double_of(uint64_t bits) {
  double value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

/* Deterministic xorshift64; every value has a random bit length. */
static uint64_t g_random_state = 0x9E3779B97F4A7C15u;
static uint64_t random_u64(void) {
  g_random_state ^= g_random_state << 13;
  g_random_state ^= g_random_state >> 7;
  g_random_state ^= g_random_state << 17;
  return g_random_state;
}
static uint64_t random_value(unsigned max_bits) {
  uint64_t value = random_u64() >> (random_u64() % 64u);
  return (max_bits < 64u) ? (value & ((UINT64_C(1) << max_bits) - 1u)) : value;
}

/* Asserts the helper against an expected double, printing both on a mismatch. */
static void expect_ratio(uint64_t num, uint64_t den, double expected) {
  uint64_t got = utvm_crt_ratio_to_binary64(num, den);
  if (got != bits_of(expected)) {
    (void)fprintf(stderr, "%llu / %llu: got 0x%016llx, expected 0x%016llx (%.17g)\n",
                  (unsigned long long)num, (unsigned long long)den, (unsigned long long)got,
                  (unsigned long long)bits_of(expected), expected);
  }
  assert_true(got == bits_of(expected));
}

static void test_ratio_known_values(void **state) {
  (void)state;
  assert_true(utvm_crt_ratio_to_binary64(1u, 1u) == UINT64_C(0x3FF0000000000000));
  assert_true(utvm_crt_ratio_to_binary64(1u, 3u) == UINT64_C(0x3FD5555555555555));
  assert_true(utvm_crt_ratio_to_binary64(2u, 3u) == UINT64_C(0x3FE5555555555555));
  assert_true(utvm_crt_ratio_to_binary64(1u, 10u) == UINT64_C(0x3FB999999999999A));
  assert_true(utvm_crt_ratio_to_binary64(UINT64_MAX, 1u) == UINT64_C(0x43F0000000000000));
  assert_true(utvm_crt_ratio_to_binary64(1u, UINT64_MAX) == UINT64_C(0x3BF0000000000000));
  assert_true(utvm_crt_ratio_to_binary64(UINT64_MAX, UINT64_MAX) == UINT64_C(0x3FF0000000000000));
  /* Zero, and the documented result for a zero denominator. */
  assert_true(utvm_crt_ratio_to_binary64(0u, 7u) == 0u);
  assert_true(utvm_crt_ratio_to_binary64(7u, 0u) == 0u);
  /* Doubles next to 2^53 are 2 apart. Ties go to even; just above or below a tie rounds to
   * the nearer neighbour; a rounding carry reaches the next power of two. */
  expect_ratio((UINT64_C(1) << 53) + 1u, 1u, 9007199254740992.0);
  expect_ratio((UINT64_C(1) << 53) + 3u, 1u, 9007199254740996.0);
  expect_ratio((UINT64_C(1) << 54) + 3u, 2u, 9007199254740994.0);  /* 2^53 + 1.5 */
  expect_ratio((UINT64_C(1) << 55) + 5u, 4u, 9007199254740994.0);  /* 2^53 + 1.25 */
  expect_ratio((UINT64_C(1) << 55) + 3u, 4u, 9007199254740992.0);  /* 2^53 + 0.75 */
  expect_ratio(UINT64_C(0x3FFFFFFFFFFFFFF), 1u, 288230376151711744.0);
  /* Seconds per call as the evaluator computes them. */
  expect_ratio(1250000u, UINT64_C(5000000000), 0.25e-3);
  expect_ratio(1u, UINT64_C(2147483647000000000), 1.0 / 2147483647e9);
}

static void test_ratio_matches_double_division(void **state) {
  uint32_t i;
  (void)state;
  /* Below 2^53 both operands are exact doubles, so the compiler's division is the correctly
   * rounded ratio. */
  for (i = 0u; i < 200000u; i++) {
    uint64_t num = random_value(53u);
    uint64_t den = random_value(53u);
    if (den == 0u) {
      den = 1u;
    }
    expect_ratio(num, den, (double)num / (double)den);
  }
  /* Any 64-bit numerator over a power of two: the conversion to double is correctly rounded
   * and the scaling exact. */
  for (i = 0u; i < 100000u; i++) {
    uint64_t num = random_value(64u);
    unsigned shift = (unsigned)(random_u64() % 64u);
    expect_ratio(num, UINT64_C(1) << shift, (double)num / (double)(UINT64_C(1) << shift));
  }
  /* Scaling both operands does not change the ratio. */
  for (i = 0u; i < 100000u; i++) {
    uint64_t num = random_value(32u);
    uint64_t den = random_value(31u) + 1u;
    uint64_t k = random_value(32u) + 1u;
    expect_ratio(num * k, den * k, (double)num / (double)den);
  }
}

static void test_ratio_matches_long_double_division(void **state) {
  uint32_t i;
  uint32_t checked = 0u;
  (void)state;
  if (LDBL_MANT_DIG < 64) {
    /* Without a 64-bit long double significand the other tests carry the check. */
    assert_true(utvm_crt_ratio_to_binary64(3u, 4u) == bits_of(0.75));
    return;
  }
  /* Full 64-bit operands: the long double quotient is rounded to 64 bits, then to 53; that
   * is the correctly rounded double unless the first rounding landed exactly halfway between
   * two doubles, which the loop skips. */
  for (i = 0u; i < 200000u; i++) {
    uint64_t num = random_value(64u);
    uint64_t den = random_value(64u);
    long double quotient;
    double nearest;
    if (num == 0u || den == 0u) {
      continue;
    }
    quotient = (long double)num / (long double)den;
    nearest = (double)quotient;
    /* The positive neighbours of nearest are one unit of its bit pattern away. */
    if (quotient == ((long double)nearest + (long double)double_of(bits_of(nearest) - 1u)) / 2.0L ||
        quotient == ((long double)nearest + (long double)double_of(bits_of(nearest) + 1u)) / 2.0L) {
      continue;
    }
    expect_ratio(num, den, nearest);
    checked++;
  }
  assert_true(checked > 190000u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_known_elapsed_time, setup, teardown),
      cmocka_unit_test_setup_teardown(test_timer_not_running_is_an_error, setup, teardown),
      cmocka_unit_test_setup_teardown(test_number_zero_gives_nan, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cooldown_sleeps_between_repeats, setup, teardown),
      cmocka_unit_test_setup_teardown(test_number_grows_to_reach_min_repeat, setup, teardown),
      cmocka_unit_test_setup_teardown(test_number_grows_by_golden_ratio, setup, teardown),
      cmocka_unit_test_setup_teardown(test_number_growth_is_exact_for_large_products, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_number_limit_boundary, setup, teardown),
      cmocka_unit_test_setup_teardown(test_zero_readings_are_limited, setup, teardown),
      cmocka_unit_test_setup_teardown(test_round_limit_is_an_error, setup, teardown),
      cmocka_unit_test_setup_teardown(test_number_overflow_is_an_error, setup, teardown),
      cmocka_unit_test_setup_teardown(test_timer_overflow_is_an_error, setup, teardown),
      cmocka_unit_test_setup_teardown(test_extreme_timer_readings, setup, teardown),
      cmocka_unit_test_setup_teardown(test_timed_function_failure, setup, teardown),
      cmocka_unit_test_setup_teardown(test_byte_results_of_timed_function_are_freed, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_repeat_zero_gives_empty_bytes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_no_memory_for_the_result, setup, teardown),
      cmocka_unit_test_setup_teardown(test_creation_argument_checks, setup, teardown),
      cmocka_unit_test_setup_teardown(test_slots, setup, teardown),
      cmocka_unit_test_setup_teardown(test_evaluator_of_freed_module_still_runs, setup, teardown),
      cmocka_unit_test(test_ratio_known_values),
      cmocka_unit_test(test_ratio_matches_double_division),
      cmocka_unit_test(test_ratio_matches_long_double_division),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

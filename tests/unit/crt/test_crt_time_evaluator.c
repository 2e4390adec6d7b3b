/* Tests of runtime.RPCTimeEvaluator (src/crt/time_evaluator.c) with a fake timer. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "crt_test_support.h"
#include "tvm/runtime/crt/platform.h"
#include "utvm/crt.h"

static const DLDevice kCpu = {kDLCPU, 0};

/* ---- Timed functions --------------------------------------------------------------------- */

static double g_op_cost_seconds;
static uint32_t g_op_calls;
static uint32_t g_op_fail_at; /* 1-based call number that fails; 0 = never */
static int g_op_saw_argument;

/* Advances the fake clock by g_op_cost_seconds; checks that it receives its argument. */
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
  fake_clock_seconds += g_op_cost_seconds;
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
  fake_clock_seconds += 0.001;
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
  fake_clock_seconds += 0.001;
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
  g_op_cost_seconds = 0.0;
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
  g_op_cost_seconds = 0.25e-3;
  assert_int_equal(run(evaluator, means, 3u, &count), 0);
  assert_int_equal(count, 3u);
  for (i = 0; i < 3; i++) {
    assert_true(fabs(means[i] - 0.25e-3) < 1e-12);
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
  g_op_cost_seconds = 0.8e-3;
  evaluator = create("fake_op", 1, 2, 15, 100);
  assert_int_equal(run(evaluator, means, 2u, &count), 0);
  assert_int_equal(count, 2u);
  assert_true(fabs(means[0] - 0.8e-3) < 1e-12);
  assert_true(fabs(means[1] - 0.8e-3) < 1e-12);
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
  g_op_cost_seconds = 1e-3;
  evaluator = create("fake_op", 10, 1, 15, 100);
  assert_int_equal(run(evaluator, means, 1u, &count), 0);
  assert_int_equal(g_op_calls, 1u + 10u + 16u);
  /* 100 calls of 1 ms against min_repeat 101 ms: max(102, 161) = 161 calls. */
  assert_int_equal(TVMFuncFree(evaluator), 0);
  g_op_calls = 0u;
  evaluator = create("fake_op", 100, 1, 101, 100);
  assert_int_equal(run(evaluator, means, 1u, &count), 0);
  assert_int_equal(g_op_calls, 1u + 100u + 161u);
  assert_true(fabs(means[0] - 1e-3) < 1e-12);
  /* 1250 calls of 1 us = 1.25 ms < 2 ms: max(2000 + 1, floor(1250 * 1.618) = 2022). */
  assert_int_equal(TVMFuncFree(evaluator), 0);
  g_op_calls = 0u;
  g_op_cost_seconds = 1e-6;
  evaluator = create("fake_op", 1250, 1, 2, 100);
  assert_int_equal(run(evaluator, means, 1u, &count), 0);
  assert_int_equal(g_op_calls, 1u + 1250u + 2022u);
}

static void test_zero_readings_are_limited(void **state) {
  TVMFunctionHandle evaluator;
  double means[2];
  size_t count;
  (void)state;
  g_op_cost_seconds = 0.0;
  evaluator = create("fake_op", 3, 2, 10, 5);
  assert_int_equal(run(evaluator, means, 2u, &count), 0);
  assert_int_equal(count, 2u);
  assert_true(means[0] == 0.0 && means[1] == 0.0);
  /* Zero readings do not grow number: 5 rounds of 3 calls per repeat. */
  assert_int_equal(fake_timer_starts, 10u);
  assert_int_equal(g_op_calls, 1u + 2u * 5u * 3u);
  /* limit_zero_time_iterations = 0: a single round, as TVM does. */
  assert_int_equal(TVMFuncFree(evaluator), 0);
  fake_platform_reset();
  evaluator = create("fake_op", 3, 1, 10, 0);
  assert_int_equal(run(evaluator, means, 1u, &count), 0);
  assert_int_equal(fake_timer_starts, 1u);
}

static void test_round_limit_is_an_error(void **state) {
  TVMFunctionHandle evaluator;
  double means[1];
  size_t count;
  size_t free_before = tensor_free_bytes();
  (void)state;
  g_op_cost_seconds = 0.0;
  evaluator = create("fake_op", 1, 1, 10, 1000000);
  assert_int_equal(run(evaluator, means, 1u, &count), -1);
  assert_string_equal(TVMGetLastError(), "time evaluator: round limit reached");
  assert_int_equal(fake_timer_starts, UTVM_CRT_TIME_EVAL_MAX_ROUNDS);
  assert_int_equal(tensor_free_bytes(), free_before);
}

static void test_number_overflow_is_an_error(void **state) {
  TVMFunctionHandle evaluator;
  double means[1];
  size_t count;
  size_t free_before = tensor_free_bytes();
  (void)state;
  g_op_cost_seconds = 1e-9;
  evaluator = create("fake_op", 1, 1, 4000000000, 100);
  assert_int_equal(run(evaluator, means, 1u, &count), -1);
  assert_string_equal(TVMGetLastError(), "time evaluator: calls per measurement overflow");
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
  g_op_cost_seconds = 1e-3;
  evaluator = create("fake_op", 2, 3, 0, 100);
  fake_timer_stop_error = UTVM_ERR_TIME_EVAL_TIMER_OVERFLOW;
  fake_timer_stop_fail_from = 2u; /* the second measurement overflows */
  assert_int_equal(run(evaluator, means, 3u, &count), -1);
  assert_string_equal(TVMGetLastError(), "time evaluator: timer overflow");
  assert_false(fake_timer_running);
  assert_int_equal(fake_after_measurement_calls, 2u);
  assert_int_equal(tensor_free_bytes(), free_before);
  /* Other timer errors. */
  fake_timer_stop_error = UTVM_ERR_PLATFORM_TIMER_BAD_STATE;
  fake_timer_stop_fail_from = 1u;
  assert_int_equal(run(evaluator, means, 3u, &count), -1);
  assert_string_equal(TVMGetLastError(), "time evaluator: timer error 0x00000504");
  fake_timer_stop_fail_from = 0u;
  fake_timer_start_error = UTVM_ERR_PLATFORM_TIMER_BAD_STATE;
  assert_int_equal(run(evaluator, means, 3u, &count), -1);
  assert_string_equal(TVMGetLastError(), "time evaluator: timer error 0x00000504");
  fake_timer_start_error = UTVM_OK;
  fake_before_measurement_error = UTVM_ERR_PLATFORM_CHECK_FAILURE;
  assert_int_equal(run(evaluator, means, 3u, &count), -1);
  assert_string_equal(TVMGetLastError(), "time evaluator: measurement hook error 0x00000500");
  fake_before_measurement_error = UTVM_OK;
  fake_after_measurement_error = UTVM_ERR_PLATFORM_CHECK_FAILURE;
  assert_int_equal(run(evaluator, means, 3u, &count), -1);
  assert_string_equal(TVMGetLastError(), "time evaluator: measurement hook error 0x00000500");
  fake_after_measurement_error = UTVM_OK;
  assert_int_equal(tensor_free_bytes(), free_before);
  assert_int_equal(run(evaluator, means, 3u, &count), 0);
  assert_int_equal(count, 3u);
}

static void test_invalid_timer_reading(void **state) {
  TVMFunctionHandle evaluator;
  double means[1];
  size_t count;
  (void)state;
  g_op_cost_seconds = -1e-3; /* the clock runs backwards */
  evaluator = create("fake_op", 1, 1, 0, 100);
  assert_int_equal(run(evaluator, means, 1u, &count), -1);
  assert_string_equal(TVMGetLastError(), "time evaluator: invalid timer reading");
  g_op_cost_seconds = 0.0;
  fake_timer_stop_advance = NAN;
  assert_int_equal(run(evaluator, means, 1u, &count), -1);
  assert_string_equal(TVMGetLastError(), "time evaluator: invalid timer reading");
  fake_clock_seconds = 0.0;
  fake_timer_stop_advance = INFINITY;
  assert_int_equal(run(evaluator, means, 1u, &count), -1);
  assert_string_equal(TVMGetLastError(), "time evaluator: invalid timer reading");
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
  assert_string_equal(TVMGetLastError(), "fake_op failed");
  assert_int_equal(fake_timer_starts, 0u);
  g_op_calls = 0u;
  g_op_fail_at = 3u; /* inside the first measurement */
  assert_int_equal(run(evaluator, means, 2u, &count), -1);
  assert_string_equal(TVMGetLastError(), "fake_op failed");
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
  assert_true(fabs(means[0] - 1e-3) < 1e-12);
  assert_int_equal(tensor_free_bytes(), free_before);
  /* A function that leaks arena memory fills the arena: an error, not a crash. */
  assert_int_equal(TVMFuncFree(evaluator), 0);
  evaluator = create("leaking_op", 1000, 1, 0, 100);
  assert_int_equal(run(evaluator, means, 1u, &count), -1);
  assert_string_equal(TVMGetLastError(), "time evaluator: timed function failed");
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

static void test_creation_argument_checks(void **state) {
  evaluator_args_t a;
  TVMFunctionHandle f;
  int i;
  (void)state;
  a = default_args("fake_op", 1, 1, 0, 100);
  assert_int_equal(create_with(&a, 11, &f), -1);
  assert_string_equal(TVMGetLastError(), "RPCTimeEvaluator: expected 12 arguments");
  assert_int_equal(create_with(&a, 13, &f), -1);
  assert_int_equal(create_with(&a, 0, &f), -1);
  for (i = 0; i < 12; i++) {
    char expected[64];
    a = default_args("fake_op", 1, 1, 0, 100);
    a.codes[i] = (a.codes[i] == kTVMArgInt) ? kTVMArgFloat : kTVMNullptr;
    assert_int_equal(create_with(&a, 12, &f), -1);
    snprintf(expected, sizeof(expected), "RPCTimeEvaluator: bad argument 0x%08x", (unsigned)i);
    assert_string_equal(TVMGetLastError(), expected);
  }
  a = default_args("fake_op", 1, 1, 0, 100);
  a.codes[2] = kTVMArgBool; /* Bool is not Int for these arguments */
  assert_int_equal(create_with(&a, 12, &f), -1);
  /* Module: Null handle value, invalid handle, function absent. */
  a = default_args("fake_op", 1, 1, 0, 100);
  a.values[0].v_handle = NULL;
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(TVMGetLastError(), "invalid module handle 0x00000000");
  a.values[0].v_handle = (void *)(uintptr_t)0x8001u;
  assert_int_equal(create_with(&a, 12, &f), -1);
  a = default_args("absent", 1, 1, 0, 100);
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(TVMGetLastError(), "RPCTimeEvaluator: function not found");
  a.values[1].v_str = NULL;
  assert_int_equal(create_with(&a, 12, &f), -1);
  /* Values. */
  a = default_args("fake_op", 1, 1, 0, 100);
  a.values[2].v_int64 = kDLCUDA;
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(TVMGetLastError(), "RPCTimeEvaluator: bad argument 0x00000002");
  a = default_args("fake_op", 0, 1, 0, 100);
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(TVMGetLastError(), "RPCTimeEvaluator: bad argument 0x00000004");
  a = default_args("fake_op", (int64_t)UTVM_CRT_TIME_EVAL_MAX_NUMBER + 1, 1, 0, 100);
  assert_int_equal(create_with(&a, 12, &f), -1);
  a = default_args("fake_op", 1, -1, 0, 100);
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(TVMGetLastError(), "RPCTimeEvaluator: bad argument 0x00000005");
  a = default_args("fake_op", 1, UTVM_CRT_TIME_EVAL_MAX_REPEAT + 1, 0, 100);
  assert_int_equal(create_with(&a, 12, &f), -1);
  a = default_args("fake_op", 1, 1, -1, 100);
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(TVMGetLastError(), "RPCTimeEvaluator: bad argument 0x00000006");
  a = default_args("fake_op", 1, 1, 0, (int64_t)UINT32_MAX + 1);
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(TVMGetLastError(), "RPCTimeEvaluator: bad argument 0x00000007");
  a = default_args("fake_op", 1, 1, 0, 100);
  a.values[8].v_int64 = 10;
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(TVMGetLastError(), "RPCTimeEvaluator: cooldown not supported");
  a.values[8].v_int64 = -1;
  assert_int_equal(create_with(&a, 12, &f), -1);
  assert_string_equal(TVMGetLastError(), "RPCTimeEvaluator: bad argument 0x00000008");
  /* Ignored arguments. */
  a = default_args("fake_op", 1, 1, 0, 100);
  a.values[9].v_int64 = -5;
  a.values[10].v_int64 = 1 << 20;
  a.values[11].v_str = "cache_flush_cpu_non_first_arg";
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
  for (i = 0u; i < UTVM_CRT_MAX_TIME_EVALUATORS; i++) {
    evaluators[i] = create("fake_op", 1, 1, 0, 100);
    assert_int_equal((uintptr_t)evaluators[i], 0xFFFF8000u | i);
  }
  assert_int_equal(create_with(&a, 12, &extra), -1);
  assert_string_equal(TVMGetLastError(), "RPCTimeEvaluator: too many live evaluators");
  assert_int_equal(TVMFuncFree(evaluators[0]), 0);
  assert_int_equal(TVMFuncFree(evaluators[0]), -1);
  assert_int_equal(run(evaluators[0], means, 1u, &count), -1);
  assert_string_equal(TVMGetLastError(), "invalid function handle 0xffff8000");
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
  g_op_cost_seconds = 2e-3;
  assert_int_equal(run(evaluator, means, 1u, &count), 0);
  assert_true(fabs(means[0] - 2e-3) < 1e-12);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_known_elapsed_time, setup, teardown),
      cmocka_unit_test_setup_teardown(test_number_grows_to_reach_min_repeat, setup, teardown),
      cmocka_unit_test_setup_teardown(test_number_grows_by_golden_ratio, setup, teardown),
      cmocka_unit_test_setup_teardown(test_zero_readings_are_limited, setup, teardown),
      cmocka_unit_test_setup_teardown(test_round_limit_is_an_error, setup, teardown),
      cmocka_unit_test_setup_teardown(test_number_overflow_is_an_error, setup, teardown),
      cmocka_unit_test_setup_teardown(test_timer_overflow_is_an_error, setup, teardown),
      cmocka_unit_test_setup_teardown(test_invalid_timer_reading, setup, teardown),
      cmocka_unit_test_setup_teardown(test_timed_function_failure, setup, teardown),
      cmocka_unit_test_setup_teardown(test_byte_results_of_timed_function_are_freed, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_repeat_zero_gives_empty_bytes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_creation_argument_checks, setup, teardown),
      cmocka_unit_test_setup_teardown(test_slots, setup, teardown),
      cmocka_unit_test_setup_teardown(test_evaluator_of_freed_module_still_runs, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

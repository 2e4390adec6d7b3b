/*
 * runtime.RPCTimeEvaluator (PROTOCOL.md section 4.1): creation of a time-evaluator function
 * and its measurement loop. Every loop is bounded by UTVM_CRT_TIME_EVAL_MAX_ROUNDS,
 * UTVM_CRT_TIME_EVAL_MAX_NUMBER and UTVM_CRT_TIME_EVAL_MAX_REPEAT; timer failures are errors.
 */
#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "crt_internal.h"
#include "tvm/runtime/crt/platform.h"

#define NUM_ARGS 12

typedef char max_number_fits_golden_scale[(UTVM_CRT_TIME_EVAL_MAX_NUMBER <= 0x7FFFFFFFu) ? 1 : -1];

static const int kArgTypes[NUM_ARGS] = {
    kTVMModuleHandle, kTVMStr,    kTVMArgInt, kTVMArgInt, kTVMArgInt, kTVMArgInt,
    kTVMArgInt,       kTVMArgInt, kTVMArgInt, kTVMArgInt, kTVMArgInt, kTVMStr};

static int fail(const char *text) {
  utvm_crt_error_set("RPCTimeEvaluator: ");
  utvm_crt_error_append(text);
  return -1;
}

static int fail_bad_argument(uint16_t index) {
  utvm_crt_error_set("RPCTimeEvaluator: bad argument ");
  utvm_crt_error_append_hex(index);
  return -1;
}

static int fail_code(const char *text, utvm_err_t err) {
  utvm_crt_error_set("time evaluator: ");
  utvm_crt_error_append(text);
  utvm_crt_error_append_hex((uint64_t)err);
  return -1;
}

static int in_range(int64_t value, int64_t low, int64_t high) {
  return value >= low && value <= high;
}

int utvm_crt_time_evaluator_global(TVMValue *args, int *type_codes, int num_args, TVMValue *ret,
                                   int *ret_type_code, void *resource_handle) {
  utvm_crt_t *crt = utvm_crt_active();
  uint16_t module_index;
  TVMFunctionHandle target;
  utvm_crt_function_t function;
  utvm_crt_time_evaluator_t *slot = NULL;
  uint16_t i;
  (void)resource_handle;
  if (num_args != NUM_ARGS) {
    return fail("expected 12 arguments");
  }
  for (i = 0u; i < NUM_ARGS; i++) {
    if (type_codes[i] != kArgTypes[i]) {
      return fail_bad_argument(i);
    }
  }
  if (crt == NULL || utvm_crt_decode_module(crt, args[0].v_handle, &module_index) != UTVM_OK) {
    return -1;
  }
  if (args[1].v_str == NULL ||
      utvm_crt_module_lookup(crt, module_index, args[1].v_str, &target) != UTVM_OK ||
      utvm_crt_decode_function(crt, target, &function) != UTVM_OK) {
    return fail("function not found");
  }
  if (args[2].v_int64 != kDLCPU) {
    return fail_bad_argument(2u);
  }
  if (!in_range(args[4].v_int64, 1, (int64_t)UTVM_CRT_TIME_EVAL_MAX_NUMBER)) {
    return fail_bad_argument(4u);
  }
  if (!in_range(args[5].v_int64, 0, (int64_t)UTVM_CRT_TIME_EVAL_MAX_REPEAT)) {
    return fail_bad_argument(5u);
  }
  if (!in_range(args[6].v_int64, 0, (int64_t)UINT32_MAX)) {
    return fail_bad_argument(6u);
  }
  if (!in_range(args[7].v_int64, 0, (int64_t)UINT32_MAX)) {
    return fail_bad_argument(7u);
  }
  if (args[8].v_int64 > 0) {
    return fail("cooldown not supported");
  }
  if (args[8].v_int64 < 0) {
    return fail_bad_argument(8u);
  }
  for (i = 0u; i < UTVM_CRT_MAX_TIME_EVALUATORS && slot == NULL; i++) {
    if (crt->time_evaluators[i].func == NULL) {
      slot = &crt->time_evaluators[i];
    }
  }
  if (slot == NULL) {
    return fail("too many live evaluators");
  }
  slot->func = function.func;
  slot->number = (uint32_t)args[4].v_int64;
  slot->repeat = (uint32_t)args[5].v_int64;
  slot->min_repeat_ms = (uint32_t)args[6].v_int64;
  slot->limit_zero_time_iterations = (uint32_t)args[7].v_int64;
  ret->v_handle = utvm_crt_function_handle(UTVM_CRT_TIME_EVAL_MODULE_INDEX,
                                           (uint16_t)(slot - crt->time_evaluators));
  *ret_type_code = kTVMPackedFuncHandle;
  return 0;
}

/* One call of the timed function; a returned byte array is released. */
static int call_timed(TVMBackendPackedCFunc func, TVMValue *args, int *type_codes, int num_args) {
  TVMValue value;
  int type_code = kTVMNullptr;
  value.v_handle = NULL;
  if (func(args, type_codes, num_args, &value, &type_code, NULL) != 0) {
    if (utvm_crt_error_is_empty()) {
      utvm_crt_error_set("time evaluator: timed function failed");
    }
    return -1;
  }
  if (type_code == kTVMBytes) {
    (void)TVMByteArrayFree((TVMByteArray *)value.v_handle);
  }
  return 0;
}

/* One measurement: `number` calls between TimerStart and TimerStop; AfterMeasurement runs
 * whenever the timer was started. */
static int measure(TVMBackendPackedCFunc func, uint32_t number, TVMValue *args, int *type_codes,
                   int num_args, double *seconds) {
  const char *what = "measurement hook error ";
  utvm_err_t err = TVMPlatformBeforeMeasurement();
  if (err == UTVM_OK) {
    double ignored;
    int failed = 0;
    uint32_t i;
    what = "timer error ";
    err = TVMPlatformTimerStart();
    if (err != UTVM_OK) {
      return fail_code(what, err);
    }
    for (i = 0u; i < number && failed == 0; i++) {
      failed = call_timed(func, args, type_codes, num_args);
    }
    err = TVMPlatformTimerStop((failed == 0) ? seconds : &ignored);
    utvm_err_t after = TVMPlatformAfterMeasurement();
    if (failed != 0) {
      return -1;
    }
    if (err == UTVM_ERR_TIME_EVAL_TIMER_OVERFLOW) {
      utvm_crt_error_set("time evaluator: timer overflow");
      return -1;
    }
    if (err == UTVM_OK) {
      what = "measurement hook error ";
      err = after;
    }
  }
  if (err != UTVM_OK) {
    return fail_code(what, err);
  }
  if (!(*seconds >= 0.0) || *seconds > DBL_MAX) {
    utvm_crt_error_set("time evaluator: invalid timer reading");
    return -1;
  }
  return 0;
}

/* floor(number * 1.618) without overflow or floating point (number < 2^31). */
static uint32_t golden_scale(uint32_t number) {
  return (number / 1000u) * 1618u + ((number % 1000u) * 1618u) / 1000u;
}

/* Mean seconds per call for one repeat; te->number grows as in PROTOCOL.md 4.1. */
static int run_repeat(utvm_crt_time_evaluator_t *te, TVMBackendPackedCFunc func, TVMValue *args,
                      int *type_codes, int num_args, double *mean) {
  double min_repeat_seconds = (double)te->min_repeat_ms / 1000.0;
  double seconds = 0.0;
  uint32_t zero_readings = 0u;
  uint32_t round;
  for (round = 0u; round < UTVM_CRT_TIME_EVAL_MAX_ROUNDS; round++) {
    if (seconds > 0.0) {
      /* number = max(min_repeat / (seconds / number) + 1, number * 1.618), truncated; the
       * "+ 1" and the golden-ratio product are done exactly in integers. */
      double calls_for_min = min_repeat_seconds / (seconds / (double)te->number);
      uint32_t scaled = golden_scale(te->number);
      uint32_t next;
      if (!(calls_for_min < (double)UTVM_CRT_TIME_EVAL_MAX_NUMBER)) {
        next = UINT32_MAX;
      } else {
        next = (uint32_t)calls_for_min + 1u;
      }
      if (scaled > next) {
        next = scaled;
      }
      if (next > UTVM_CRT_TIME_EVAL_MAX_NUMBER) {
        utvm_crt_error_set("time evaluator: calls per measurement overflow");
        return -1;
      }
      te->number = next;
    }
    if (measure(func, te->number, args, type_codes, num_args, &seconds) != 0) {
      return -1;
    }
    if (seconds == 0.0) {
      zero_readings++;
    }
    if (!(seconds < min_repeat_seconds && zero_readings < te->limit_zero_time_iterations)) {
      *mean = seconds / (double)te->number;
      return 0;
    }
  }
  utvm_crt_error_set("time evaluator: round limit reached");
  return -1;
}

int utvm_crt_time_evaluator_call(utvm_crt_t *crt, uint16_t slot, TVMValue *args, int *type_codes,
                                 int num_args, TVMValue *ret, int *ret_type_code) {
  utvm_crt_time_evaluator_t *te = &crt->time_evaluators[slot];
  TVMBackendPackedCFunc func = te->func;
  DLDevice cpu = {kDLCPU, 0};
  void *array_memory = NULL;
  void *data = NULL;
  TVMByteArray *result;
  uint32_t r;
  if (call_timed(func, args, type_codes, num_args) != 0) {
    return -1;
  }
  if (TVMPlatformMemoryAllocate(sizeof(TVMByteArray), cpu, &array_memory) != UTVM_OK ||
      TVMPlatformMemoryAllocate((size_t)te->repeat * sizeof(double), cpu, &data) != UTVM_OK) {
    utvm_crt_error_set("time evaluator: no memory for the result");
    if (array_memory != NULL) {
      (void)TVMPlatformMemoryFree(array_memory, cpu);
    }
    return -1;
  }
  for (r = 0u; r < te->repeat; r++) {
    double mean;
    if (run_repeat(te, func, args, type_codes, num_args, &mean) != 0) {
      (void)TVMPlatformMemoryFree(data, cpu);
      (void)TVMPlatformMemoryFree(array_memory, cpu);
      return -1;
    }
    (void)memcpy((uint8_t *)data + (size_t)r * sizeof(double), &mean, sizeof(double));
  }
  result = (TVMByteArray *)array_memory;
  result->data = (const char *)data;
  result->size = (size_t)te->repeat * sizeof(double);
  ret->v_handle = result;
  *ret_type_code = kTVMBytes;
  return 0;
}

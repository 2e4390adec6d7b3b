/*
 * runtime.RPCTimeEvaluator (PROTOCOL.md section 4.1): creation of a time-evaluator function
 * and its measurement loop, opt-in with utvm_crt_enable_time_evaluator so that a firmware
 * without it links none of this file. Every loop is bounded by UTVM_CRT_TIME_EVAL_MAX_ROUNDS,
 * UTVM_CRT_TIME_EVAL_MAX_NUMBER and UTVM_CRT_TIME_EVAL_MAX_REPEAT; timer failures are errors.
 * Integer arithmetic only: the timer reports nanoseconds (TVMPlatformTimerStopNs) and the
 * float64 means are built bit by bit, so no soft-float code is linked.
 */
#include <stddef.h>
#include <stdint.h>

#include "crt_internal.h"
#include "tvm/runtime/crt/platform.h"

#define NUM_ARGS 12
#define NS_PER_MS 1000000u
#define NS_PER_S 1000000000u
/* The quiet NaN of binary64. */
#define UTVM_CRT_BINARY64_NAN 0x7FF8000000000000u

/* number < 2^31 keeps number * 1618 in 32 bits and number * NS_PER_S in 64 bits. */
typedef char max_number_fits[(UTVM_CRT_TIME_EVAL_MAX_NUMBER <= 0x7FFFFFFFu) ? 1 : -1];

static const uint8_t kArgTypes[NUM_ARGS] = {
    kTVMModuleHandle, kTVMStr,    kTVMArgInt, kTVMArgInt, kTVMArgInt, kTVMArgInt,
    kTVMArgInt,       kTVMArgInt, kTVMArgInt, kTVMArgInt, kTVMArgInt, kTVMStr};

/* Sets the last error to "RPCTimeEvaluator: " and the text of id; returns -1. */
static int fail(utvm_text_id_t id) {
  (void)utvm_crt_fail(UTVM_TEXT_TIME_EVALUATOR);
  utvm_crt_error_append_text(id);
  return -1;
}

/* As fail, followed by value in hex. */
static int fail_hex(utvm_text_id_t id, uint32_t value) {
  (void)fail(id);
  utvm_crt_error_append_hex(value);
  return -1;
}

/* Accepted values of the Int arguments 2 to 9: device_type the CPU, device_id any int32 (as
 * in DLDevice), then each of number (0 gives NaN results, as TVM's), repeat, min_repeat_ms,
 * limit_zero_time_iterations, cooldown_interval_ms (> 0 needs the runtime's sleep hook) and
 * repeats_to_cooldown (0 counts as 1) in [0, kMaxValues[i - FIRST_MAX_ARG]]. */
#define DEVICE_TYPE_ARG 2u
#define DEVICE_ID_ARG 3u
#define FIRST_MAX_ARG 4u
#define COOLDOWN_ARG 8u
#define LAST_MAX_ARG 9u
static const uint32_t kMaxValues[LAST_MAX_ARG - FIRST_MAX_ARG + 1u] = {
    UTVM_CRT_TIME_EVAL_MAX_NUMBER, UTVM_CRT_TIME_EVAL_MAX_REPEAT, UINT32_MAX, UINT32_MAX,
    UINT32_MAX, UINT32_MAX};

/* The first of the Int arguments 2 to 9 outside its accepted values, or 0 if none is. */
static uint32_t first_bad_int(const TVMValue *args) {
  uint32_t bad = 0u;
  if (args[DEVICE_TYPE_ARG].v_int64 != (int64_t)kDLCPU) {
    bad = DEVICE_TYPE_ARG;
  } else if ((args[DEVICE_ID_ARG].v_int64 < INT32_MIN) ||
             (args[DEVICE_ID_ARG].v_int64 > INT32_MAX)) {
    bad = DEVICE_ID_ARG;
  } else {
    for (uint32_t i = FIRST_MAX_ARG; (bad == 0u) && (i <= LAST_MAX_ARG); i++) {
      /* Unsigned: negative values wrap past every maximum. */
      if ((uint64_t)args[i].v_int64 > kMaxValues[i - FIRST_MAX_ARG]) {
        bad = i;
      }
    }
  }
  return bad;
}

/* runtime.RPCTimeEvaluator: a time-evaluator function of a module's function (packed-function
 * signature). */
static int time_evaluator_global(TVMValue *args, int *type_codes, int num_args, TVMValue *ret,
                                 int *ret_type_code, void *resource_handle) {
  utvm_crt_t *crt = utvm_crt_active();
  uint32_t module_index;
  TVMFunctionHandle target;
  TVMBackendPackedCFunc function = NULL;
  void *target_resource = NULL; /* the module function's own (e.g. an executor) */
  uint32_t i;
  (void)resource_handle;
  if (num_args != NUM_ARGS) {
    return fail(UTVM_TEXT_TE_ARGUMENT_COUNT);
  }
  for (i = 0u; i < NUM_ARGS; i++) {
    if (type_codes[i] != kArgTypes[i]) {
      return fail_hex(UTVM_TEXT_TE_BAD_ARGUMENT, i);
    }
  }
  i = first_bad_int(args);
  if (i != 0u) {
    return fail_hex(UTVM_TEXT_TE_BAD_ARGUMENT, i);
  }
  /* Also fails without a runtime (crt == NULL). */
  module_index = utvm_crt_decode_module(crt, args[0].v_handle);
  if (module_index >= UTVM_CRT_MAX_MODULES) {
    return -1;
  }
  /* A NULL name is not found either. */
  target = utvm_crt_module_lookup(crt, module_index, args[1].v_str);
  if (target != NULL) {
    function = utvm_crt_decode_function(crt, target, &target_resource);
  }
  if (function == NULL) {
    return fail(UTVM_TEXT_TE_NOT_FOUND);
  }
  if (args[COOLDOWN_ARG].v_int64 != 0 && crt->sleep_ms == NULL) {
    return fail(UTVM_TEXT_TE_COOLDOWN);
  }
  for (i = 0u; i < UTVM_CRT_MAX_TIME_EVALUATORS; i++) {
    utvm_crt_time_evaluator_t *te = &crt->time_evaluators[i];
    if (te->func == NULL) {
      te->func = function;
      te->resource_handle = target_resource;
      te->number = (uint32_t)args[4].v_int64;
      te->repeat = (uint32_t)args[5].v_int64;
      te->min_repeat_ms = (uint32_t)args[6].v_int64;
      te->limit_zero_time_iterations = (uint32_t)args[7].v_int64;
      te->cooldown_ms = (uint32_t)args[COOLDOWN_ARG].v_int64;
      te->repeats_to_cooldown = (uint32_t)args[LAST_MAX_ARG].v_int64;
      ret->v_handle = utvm_crt_function_handle(UTVM_CRT_TIME_EVAL_MODULE_INDEX, (uint16_t)i);
      *ret_type_code = kTVMPackedFuncHandle;
      return 0;
    }
  }
  return fail(UTVM_TEXT_TE_NO_SLOT);
}

/* One evaluation: the evaluator, its timed function (read once, so that the function may even
 * free the evaluator) and the function's arguments. */
typedef struct {
  utvm_crt_time_evaluator_t *te;
  TVMBackendPackedCFunc func;
  TVMValue *args;
  int *type_codes;
  int num_args;
} evaluation_t;

/* The device of TVMPlatformMemoryAllocate's blocks. */
static const DLDevice kCpu = {kDLCPU, 0};

/* Releases a TVMPlatformMemoryAllocate block (a NULL block is a harmless error). */
static void free_block(void *block) {
  (void)TVMPlatformMemoryFree(block, kCpu);
}

/* `count` calls of the timed function, stopping at the first failure (-1); a returned byte
 * array is released. */
static int call_timed(const evaluation_t *ev, uint32_t count) {
  uint32_t i;
  for (i = 0u; i < count; i++) {
    TVMValue value;
    int type_code = kTVMNullptr;
    value.v_handle = NULL;
    if (ev->func(ev->args, ev->type_codes, ev->num_args, &value, &type_code,
                 ev->te->resource_handle) != 0) {
      if (utvm_crt_error_is_empty()) {
        (void)fail(UTVM_TEXT_TE_CALL_FAILED);
      }
      return -1;
    }
    if (type_code == kTVMBytes) {
      (void)TVMByteArrayFree((TVMByteArray *)value.v_handle);
    }
  }
  return 0;
}

/* A 128-bit value in two words during a division. */
typedef struct {
  uint64_t high;
  uint64_t low;
} wide_t;

/* Bit-serial long division (smaller than a library division). Each of `count` steps shifts
 * v->high:v->low left by one bit and, when v->high (with the bit shifted out of it) is at
 * least divisor, subtracts divisor from it and sets the bottom bit of v->low. With v->high
 * below divisor, this divides floor((v->high * 2^64 + v->low) * 2^(count - 64)) by divisor:
 * v->high becomes the remainder and v->low the quotient, provided that quotient is below 2^64
 * and, when count < 64, the low 64 - count bits of v->low are zero. */
static void divide_bits(wide_t *v, uint32_t count, uint64_t divisor) {
  uint32_t i;
  for (i = 0u; i < count; i++) {
    /* high < divisor, so 2 high + 1 < 2 divisor: with the carry out the true value exceeds
     * divisor and the wrapped difference is exact. */
    uint64_t carry = v->high >> 63;
    v->high = (v->high << 1) | (v->low >> 63);
    v->low <<= 1;
    if (carry != 0u || v->high >= divisor) {
      v->high -= divisor;
      v->low |= 1u;
    }
  }
}

uint64_t utvm_crt_ratio_to_binary64(uint64_t num, uint64_t den) {
  uint32_t biased_exponent = 1021u;
  wide_t v;
  uint64_t n = num;
  uint64_t d = den;
  uint64_t q;
  uint32_t steps = 64u + 54u;
  if (n == 0u || d == 0u) {
    return 0u; /* d == 0 only guards the loops below; callers never divide by 0 */
  }
  /* num / den = n / d * 2^(b - a) with n = num << a and d = den << b at bit 63. */
  while (n < ((uint64_t)1u << 63)) {
    n <<= 1;
    biased_exponent--;
  }
  while (d < ((uint64_t)1u << 63)) {
    d <<= 1;
    biased_exponent++;
  }
  /* q = floor(n / d * 2^53) when n >= d, else floor(n / d * 2^54): in [2^53, 2^54), and
   * the remainder v.high. */
  if (n >= d) {
    steps--;
    biased_exponent++;
  }
  v.high = 0u;
  v.low = n;
  divide_bits(&v, steps, d);
  q = v.low;
  /* q: 53 significand bits and the rounding bit; v.high != 0: more bits below. Nearest-even:
   * adding 1 carries a set rounding bit into the significand, so add it when bits below it
   * are set or the significand is odd (with the rounding bit clear it changes nothing). */
  if (v.high != 0u || (q & 2u) != 0u) {
    q++;
  }
  /* The significand's leading bit adds one to the exponent field (and a rounding carry to
   * 2^53 gives the next power of two). */
  return ((uint64_t)biased_exponent << 52) + (q >> 1);
}

/* floor(min_repeat_ns * number / elapsed_ns) + 1, exact with the 83-bit product held in two
 * words, or UINT32_MAX when the quotient does not fit in 31 bits (beyond any valid number).
 * min_repeat_ns < 2^52, elapsed_ns > 0. */
static uint32_t calls_for_min_repeat(uint64_t min_repeat_ns, uint32_t number,
                                     uint64_t elapsed_ns) {
  uint64_t low_product = (uint64_t)(uint32_t)min_repeat_ns * number;
  wide_t v;
  /* The product's bits above bit 30, then its 31 low bits at the top of v.low. */
  v.high = (((min_repeat_ns >> 32) * number) << 1) + (low_product >> 31);
  v.low = low_product << 33;
  if (v.high >= elapsed_ns) {
    return UINT32_MAX;
  }
  divide_bits(&v, 31u, elapsed_ns);
  return (uint32_t)v.low + 1u;
}

/* floor(number * 1.618) without overflow (number < 2^31). */
static uint32_t golden_scale(uint32_t number) {
  return (number / 1000u) * 1618u + ((number % 1000u) * 1618u) / 1000u;
}

/* Mean seconds per call for one repeat, as binary64 bits; te->number grows as in
 * PROTOCOL.md 4.1. One measurement is `number` calls between TimerStart and TimerStopNs;
 * AfterMeasurement runs whenever the timer was started. */
static int run_repeat(const evaluation_t *ev, uint64_t *mean_bits) {
  utvm_crt_time_evaluator_t *te = ev->te;
  uint64_t min_repeat_ns = (uint64_t)te->min_repeat_ms * NS_PER_MS;
  uint64_t elapsed_ns = 0u;
  uint32_t zero_readings = 0u;
  uint32_t round;
  for (round = 0u; round < UTVM_CRT_TIME_EVAL_MAX_ROUNDS; round++) {
    utvm_err_t err;
    if (elapsed_ns > 0u) {
      /* number = max(min_repeat / (elapsed / number) + 1, number * 1.618), truncated. */
      uint32_t next = calls_for_min_repeat(min_repeat_ns, te->number, elapsed_ns);
      uint32_t scaled = golden_scale(te->number);
      if (scaled > next) {
        next = scaled;
      }
      if (next > UTVM_CRT_TIME_EVAL_MAX_NUMBER) {
        return fail(UTVM_TEXT_TE_NUMBER_OVERFLOW);
      }
      te->number = next;
    }
    err = TVMPlatformBeforeMeasurement();
    if (err == UTVM_OK) {
      err = TVMPlatformTimerStart();
      if (err == UTVM_OK) {
        int failed = call_timed(ev, te->number);
        utvm_err_t after;
        err = TVMPlatformTimerStopNs(&elapsed_ns);
        after = TVMPlatformAfterMeasurement();
        if (failed != 0) {
          return -1;
        }
        if (err == UTVM_OK) {
          err = after;
        }
      }
    }
    if (err == UTVM_ERR_TIME_EVAL_TIMER_OVERFLOW) {
      return fail(UTVM_TEXT_TE_TIMER_OVERFLOW);
    }
    if (err != UTVM_OK) {
      return fail_hex(UTVM_TEXT_TE_PLATFORM_HOOK, (uint32_t)err);
    }
    if (elapsed_ns == 0u) {
      zero_readings++;
    }
    if (elapsed_ns >= min_repeat_ns || zero_readings >= te->limit_zero_time_iterations) {
      /* A timer that reads 0 ns for calls that ran is not running: an error, not a result
       * (the host reads the code as "timer not running"). */
      if (elapsed_ns == 0u) {
        return fail_hex(UTVM_TEXT_TE_PLATFORM_HOOK, UTVM_ERR_PLATFORM_TIMER_NOT_RUNNING);
      }
      *mean_bits = utvm_crt_ratio_to_binary64(elapsed_ns, (uint64_t)te->number * NS_PER_S);
      return 0;
    }
  }
  return fail(UTVM_TEXT_TE_ROUND_LIMIT);
}

/* Runs the time evaluator resource_handle (a live utvm_crt_time_evaluator_t) with the timed
 * function's arguments (4.1 of PROTOCOL.md); packed-function signature. On failure (-1) the
 * last error is always set. */
static int time_evaluator_call(TVMValue *args, int *type_codes, int num_args, TVMValue *ret,
                               int *ret_type_code, void *resource_handle) {
  utvm_crt_time_evaluator_t *te = (utvm_crt_time_evaluator_t *)resource_handle;
  const evaluation_t ev = {te, te->func, args, type_codes, num_args};
  void *array_memory = NULL;
  void *data = NULL;
  int rc = call_timed(&ev, 1u);
  uint32_t r;
  if (rc == 0 &&
      (TVMPlatformMemoryAllocate(sizeof(TVMByteArray), kCpu, &array_memory) != UTVM_OK ||
       TVMPlatformMemoryAllocate((size_t)ev.te->repeat * sizeof(uint64_t), kCpu, &data) !=
           UTVM_OK)) {
    rc = fail(UTVM_TEXT_TE_NO_MEMORY);
  }
  /* The arena's blocks are 64-byte aligned (tvm/runtime/crt/platform.h). */
  for (r = 0u; rc == 0 && r < ev.te->repeat; r++) {
    uint64_t *mean_bits = &((uint64_t *)data)[r];
    if (r > 0u && ev.te->cooldown_ms > 0u &&
        (r % ((ev.te->repeats_to_cooldown > 0u) ? ev.te->repeats_to_cooldown : 1u)) == 0u) {
      /* The evaluator lives in the active runtime, whose sleep hook it was created with. */
      utvm_err_t err = utvm_crt_active()->sleep_ms(ev.te->cooldown_ms);
      if (err != UTVM_OK) {
        rc = fail_hex(UTVM_TEXT_TE_PLATFORM_HOOK, (uint32_t)err);
      }
    }
    if (rc == 0) {
      /* number 0: no call per measurement, so 0 / 0 seconds: NaN, as TVM's evaluator. */
      if (ev.te->number == 0u) {
        *mean_bits = UTVM_CRT_BINARY64_NAN;
      } else {
        rc = run_repeat(&ev, mean_bits);
      }
    }
  }
  if (rc != 0) {
    free_block(data);
    free_block(array_memory);
    return -1;
  }
  ((TVMByteArray *)array_memory)->data = (const char *)data;
  ((TVMByteArray *)array_memory)->size = (size_t)ev.te->repeat * sizeof(uint64_t);
  ret->v_handle = array_memory;
  *ret_type_code = kTVMBytes;
  return 0;
}

utvm_err_t utvm_crt_enable_time_evaluator(void) {
  utvm_crt_t *crt = utvm_crt_active();
  if (crt == NULL) {
    return UTVM_ERR_PLATFORM_CHECK_FAILURE;
  }
  crt->globals[UTVM_CRT_TIME_EVAL_GLOBAL].func = time_evaluator_global;
  crt->time_evaluator_call = time_evaluator_call;
  return UTVM_OK;
}

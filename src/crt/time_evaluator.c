/*
 * runtime.RPCTimeEvaluator (PROTOCOL.md section 4.1): creation of a time-evaluator function
 * and its measurement loop. Every loop is bounded by UTVM_CRT_TIME_EVAL_MAX_ROUNDS,
 * UTVM_CRT_TIME_EVAL_MAX_NUMBER and UTVM_CRT_TIME_EVAL_MAX_REPEAT; timer failures are errors.
 * Integer arithmetic only: the timer reports nanoseconds (TVMPlatformTimerStopNs) and the
 * float64 means are built bit by bit, so no soft-float code is linked.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "crt_internal.h"
#include "tvm/runtime/crt/platform.h"

#define NUM_ARGS 12
#define NS_PER_MS 1000000u
#define NS_PER_S 1000000000u
#define TOP_BIT ((uint64_t)1u << 63)

/* number < 2^31 keeps number * 1618 in 32 bits and number * NS_PER_S in 64 bits. */
typedef char max_number_fits[(UTVM_CRT_TIME_EVAL_MAX_NUMBER <= 0x7FFFFFFFu) ? 1 : -1];

static const uint8_t kArgTypes[NUM_ARGS] = {
    kTVMModuleHandle, kTVMStr,    kTVMArgInt, kTVMArgInt, kTVMArgInt, kTVMArgInt,
    kTVMArgInt,       kTVMArgInt, kTVMArgInt, kTVMArgInt, kTVMArgInt, kTVMStr};

static int fail(const char *text) {
  utvm_crt_error_set("RPCTimeEvaluator: ");
  utvm_crt_error_append(text);
  return -1;
}

/* "RPCTimeEvaluator: <text><value in hex>". */
static int fail_code(const char *text, uint64_t value) {
  (void)fail(text);
  utvm_crt_error_append_hex(value);
  return -1;
}

static int fail_bad_argument(uint16_t index) { return fail_code("bad argument ", index); }

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
      (void)fail("timed function failed");
    }
    return -1;
  }
  if ((type_code == kTVMBytes) && (value.v_handle != NULL)) {
    /* Data and struct come from TVMPlatformMemoryAllocate (utvm/crt.h). */
    TVMByteArray *bytes = (TVMByteArray *)value.v_handle;
    const DLDevice cpu = {kDLCPU, 0};
    (void)TVMPlatformMemoryFree((void *)(uintptr_t)bytes->data, cpu);
    (void)TVMPlatformMemoryFree(bytes, cpu);
  }
  return 0;
}

/* One measurement: `number` calls between TimerStart and TimerStopNs; AfterMeasurement runs
 * whenever the timer was started. */
static int measure(TVMBackendPackedCFunc func, uint32_t number, TVMValue *args, int *type_codes,
                   int num_args, uint64_t *elapsed_ns) {
  const char *what = "measurement hook error ";
  utvm_err_t err = TVMPlatformBeforeMeasurement();
  if (err == UTVM_OK) {
    int failed = 0;
    uint32_t i;
    what = "timer error ";
    err = TVMPlatformTimerStart();
    if (err != UTVM_OK) {
      return fail_code(what, (uint64_t)err);
    }
    for (i = 0u; i < number && failed == 0; i++) {
      failed = call_timed(func, args, type_codes, num_args);
    }
    err = TVMPlatformTimerStopNs(elapsed_ns);
    utvm_err_t after = TVMPlatformAfterMeasurement();
    if (failed != 0) {
      return -1;
    }
    if (err == UTVM_ERR_TIME_EVAL_TIMER_OVERFLOW) {
      return fail("timer overflow");
    }
    if (err == UTVM_OK) {
      what = "measurement hook error ";
      err = after;
    }
  }
  if (err != UTVM_OK) {
    return fail_code(what, (uint64_t)err);
  }
  return 0;
}

/* Bit-serial long division (smaller than a library division): shifts the top `count` bits of
 * next_bits one at a time into the remainder *rem, which must be below divisor, and returns
 * the low 64 bits of the quotient; *rem receives the final remainder. */
static uint64_t divide_bits(uint64_t *rem, uint64_t divisor, uint64_t next_bits, uint32_t count) {
  uint64_t r = *rem;
  uint64_t bits = next_bits;
  uint64_t quotient = 0u;
  uint32_t i;
  for (i = 0u; i < count; i++) {
    /* r < divisor, so 2r + 1 < 2 divisor: with the carry out the true value exceeds divisor
     * and the wrapped difference is exact. */
    uint64_t carry = r >> 63;
    r = (r << 1) | (bits >> 63);
    bits <<= 1;
    quotient <<= 1;
    if (carry != 0u || r >= divisor) {
      r -= divisor;
      quotient |= 1u;
    }
  }
  *rem = r;
  return quotient;
}

uint64_t utvm_crt_ratio_to_binary64(uint64_t num, uint64_t den) {
  uint32_t biased_exponent = 1021u;
  uint64_t n = num;
  uint64_t d = den;
  uint64_t rem = 0u;
  uint64_t q;
  if (n == 0u || d == 0u) {
    return 0u; /* d == 0 only guards the loops below; callers never divide by 0 */
  }
  /* num / den = n / d * 2^(b - a) with n = num << a and d = den << b at bit 63. */
  while (n < TOP_BIT) {
    n <<= 1;
    biased_exponent--;
  }
  while (d < TOP_BIT) {
    d <<= 1;
    biased_exponent++;
  }
  /* q = floor(n / d * 2^54) in [2^53, 2^55): 54 or 55 significant bits. */
  q = divide_bits(&rem, d, n, 64u + 54u);
  if (q >= ((uint64_t)1u << 54)) {
    rem |= q & 1u;
    q >>= 1;
    biased_exponent++;
  }
  /* q: 53 significand bits and the rounding bit; rem != 0: more bits below. Nearest-even. */
  if ((q & 1u) != 0u && (rem != 0u || (q & 2u) != 0u)) {
    q += 2u;
  }
  /* The significand's leading bit adds one to the exponent field (and a rounding carry to
   * 2^53 gives the next power of two). */
  return ((uint64_t)biased_exponent << 52) + (q >> 1);
}

/* floor(min_repeat_ns * number / elapsed_ns) + 1, or 2^32 when that exceeds 32 bits; exact
 * with the 83-bit product held in two words. elapsed_ns > 0. */
static uint64_t calls_for_min_repeat(uint64_t min_repeat_ns, uint32_t number,
                                     uint64_t elapsed_ns) {
  uint64_t low_product = (min_repeat_ns & 0xFFFFFFFFu) * number;
  uint64_t high_product = (min_repeat_ns >> 32) * number;
  uint64_t low = low_product + (high_product << 32);
  uint64_t high = (high_product >> 32) + ((low < low_product) ? 1u : 0u);
  /* The quotient fits in 32 bits iff the product's bits above 32 are below elapsed_ns. */
  uint64_t rem = (high << 32) | (low >> 32);
  if (rem >= elapsed_ns) {
    return (uint64_t)1u << 32;
  }
  return divide_bits(&rem, elapsed_ns, low << 32, 32u) + 1u;
}

/* floor(number * 1.618) without overflow (number < 2^31). */
static uint32_t golden_scale(uint32_t number) {
  return (number / 1000u) * 1618u + ((number % 1000u) * 1618u) / 1000u;
}

/* Mean seconds per call for one repeat, as binary64 bits; te->number grows as in
 * PROTOCOL.md 4.1. */
static int run_repeat(utvm_crt_time_evaluator_t *te, TVMBackendPackedCFunc func, TVMValue *args,
                      int *type_codes, int num_args, uint64_t *mean_bits) {
  uint64_t min_repeat_ns = (uint64_t)te->min_repeat_ms * NS_PER_MS;
  uint64_t elapsed_ns = 0u;
  uint32_t zero_readings = 0u;
  uint32_t round;
  for (round = 0u; round < UTVM_CRT_TIME_EVAL_MAX_ROUNDS; round++) {
    if (elapsed_ns > 0u) {
      /* number = max(min_repeat / (elapsed / number) + 1, number * 1.618), truncated. */
      uint64_t next = calls_for_min_repeat(min_repeat_ns, te->number, elapsed_ns);
      uint32_t scaled = golden_scale(te->number);
      if (scaled > next) {
        next = scaled;
      }
      if (next > UTVM_CRT_TIME_EVAL_MAX_NUMBER) {
        return fail("calls per measurement overflow");
      }
      te->number = (uint32_t)next;
    }
    if (measure(func, te->number, args, type_codes, num_args, &elapsed_ns) != 0) {
      return -1;
    }
    if (elapsed_ns == 0u) {
      zero_readings++;
    }
    if (!(elapsed_ns < min_repeat_ns && zero_readings < te->limit_zero_time_iterations)) {
      *mean_bits = utvm_crt_ratio_to_binary64(elapsed_ns, (uint64_t)te->number * NS_PER_S);
      return 0;
    }
  }
  return fail("round limit reached");
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
      TVMPlatformMemoryAllocate((size_t)te->repeat * sizeof(uint64_t), cpu, &data) != UTVM_OK) {
    if (array_memory != NULL) {
      (void)TVMPlatformMemoryFree(array_memory, cpu);
    }
    return fail("no memory for the result");
  }
  for (r = 0u; r < te->repeat; r++) {
    uint64_t mean_bits = 0u;
    if (run_repeat(te, func, args, type_codes, num_args, &mean_bits) != 0) {
      (void)TVMPlatformMemoryFree(data, cpu);
      (void)TVMPlatformMemoryFree(array_memory, cpu);
      return -1;
    }
    /* Stored as a double would be: native byte order, little-endian on every supported core. */
    (void)memcpy((uint8_t *)data + (size_t)r * sizeof(uint64_t), &mean_bits, sizeof(uint64_t));
  }
  result = (TVMByteArray *)array_memory;
  result->data = (const char *)data;
  result->size = (size_t)te->repeat * sizeof(uint64_t);
  ret->v_handle = result;
  *ret_type_code = kTVMBytes;
  return 0;
}

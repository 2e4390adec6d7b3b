/*
 * Optional global functions, registered by utvm_crt_register_optional_globals (not by
 * utvm_crt_init, so an image that does not want them does not link them):
 *
 *   tvm.contrib.random.random_fill(DLTensor out): fills out with random values in [1, 10), as
 *     TVM's own random_fill does (AutoTVM's runners call it to fill input tensors); integers get
 *     1..9, floats (16, 32 and 64 bits) a uniform fraction too, bool true. Built from the
 *     platform's TVMPlatformGenerateRandom with integer arithmetic only.
 *   utvm.crt.FunctionName(Int table, Int index): the name (Str) of function `index` of the
 *     system library (table 0) or of the global table (table 1); Null past the end. The host's
 *     `utvm info` lists functions with it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crt_internal.h"
#include "tvm/runtime/crt/platform.h"

/* Sets the last error to text (these optional functions keep their texts out of the
 * catalogue of utvm/error_texts.h, which every image with the runtime holds); returns -1. */
static int fail_with_text(const char *text) {
  TVMAPISetLastError(text);
  return -1;
}

/* Random bytes drawn per lane (the widest lane is 64 bits). */
#define RANDOM_WORD_BYTES 8u

/* Returns 64 random bits, or false when the platform cannot deliver them. */
static bool random_word(uint64_t *word) {
  uint8_t bytes[RANDOM_WORD_BYTES];
  uint64_t w = 0u;
  uint32_t i;
  if (TVMPlatformGenerateRandom(bytes, sizeof(bytes)) != kTvmErrorNoError) {
    return false;
  }
  for (i = 0u; i < RANDOM_WORD_BYTES; i++) {
    w = (w << 8) | bytes[i];
  }
  *word = w;
  return true;
}

/* The bits of a float of mantissa_bits and exponent_bias holding integer (1..9) plus a random
 * fraction: the fixed-point value integer.fraction normalised by its leading bit. */
static uint64_t float_bits(uint32_t integer, uint64_t fraction, uint32_t mantissa_bits,
                           uint32_t exponent_bias) {
  uint64_t mantissa_mask = ((uint64_t)1u << mantissa_bits) - 1u;
  uint64_t value = ((uint64_t)integer << mantissa_bits) | (fraction & mantissa_mask);
  uint32_t exponent = 0u;
  uint32_t above_leading_bit = mantissa_bits + 1u;
  uint64_t biased_exponent = exponent_bias;
  while (exponent < 3u && (value >> above_leading_bit) != 0u) {
    exponent++;
    above_leading_bit++;
  }
  biased_exponent += exponent;
  return (biased_exponent << mantissa_bits) | ((value >> exponent) & mantissa_mask);
}

/* Bytes one lane of dtype takes (TVM's bool, 1 bit, takes a byte); 0 if unsupported. */
static uint32_t lane_bytes(DLDataType dtype) {
  uint32_t bits = dtype.bits;
  if (dtype.code == (uint8_t)kDLFloat) {
    return (bits == 16u || bits == 32u || bits == 64u) ? bits / 8u : 0u;
  }
  if (dtype.code == (uint8_t)kDLInt || dtype.code == (uint8_t)kDLUInt) {
    return (bits == 1u) ? 1u : ((bits == 8u || bits == 16u || bits == 32u || bits == 64u) ? bits / 8u : 0u);
  }
  return 0u;
}

/* One lane's bits for dtype (supported by lane_bytes) from 64 random bits. */
static uint64_t lane_bits(DLDataType dtype, uint64_t random) {
  uint32_t integer = 1u + (uint32_t)((random >> 56) % 9u);
  if (dtype.code == (uint8_t)kDLFloat) {
    if (dtype.bits == 16u) {
      return float_bits(integer, random, 10u, 15u);
    }
    return (dtype.bits == 32u) ? float_bits(integer, random, 23u, 127u)
                               : float_bits(integer, random, 52u, 1023u);
  }
  return (dtype.bits == 1u) ? 1u : integer;
}

static int random_fill(TVMValue *args, int *type_codes, int num_args, TVMValue *ret,
                       int *ret_type_code, void *resource_handle) {
  const DLTensor *tensor;
  uint8_t *data;
  uint8_t *base;
  size_t size;
  uint64_t lanes = 1u;
  uint64_t width;
  uint64_t offset;
  uint64_t i;
  int32_t d;
  (void)ret;
  (void)resource_handle;
  if (num_args != 1 ||
      (type_codes[0] != (int)kTVMDLTensorHandle && type_codes[0] != (int)kTVMNDArrayHandle) ||
      args[0].v_handle == NULL) {
    return fail_with_text("random_fill: expected one tensor in the arena");
  }
  tensor = (const DLTensor *)args[0].v_handle;
  width = lane_bytes(tensor->dtype);
  if (width == 0u || tensor->dtype.lanes == 0u) {
    return fail_with_text("random_fill: unsupported dtype");
  }
  lanes = tensor->dtype.lanes;
  for (d = 0; d < tensor->ndim; d++) {
    int64_t extent = tensor->shape[d];
    if (extent < 0 || (extent > 0 && lanes > UINT32_MAX / (uint64_t)extent)) {
      return fail_with_text("random_fill: invalid tensor shape");
    }
    lanes *= (uint64_t)extent;
  }
  data = (uint8_t *)tensor->data + tensor->byte_offset;
  /* The elements must lie inside one live tensor allocation. */
  offset = (uintptr_t)data;
  if (lanes > 0u && (utvm_crt_data_range(data, &base, &size) != UTVM_OK ||
                     (offset - (uintptr_t)base) + (lanes * width) > (uint64_t)size)) {
    return fail_with_text("random_fill: expected one tensor in the arena");
  }
  for (i = 0u; i < lanes; i++) {
    uint64_t random = 0u;
    uint64_t bits;
    uint32_t b;
    if (!random_word(&random)) {
      return fail_with_text("random_fill: platform random failed");
    }
    bits = lane_bits(tensor->dtype, random);
    uint8_t *lane = &data[i * width];
    for (b = 0u; b < width; b++) {
      lane[b] = (uint8_t)bits; /* little-endian targets */
      bits >>= 8;
    }
  }
  *ret_type_code = kTVMNullptr;
  return 0;
}

static int function_name(TVMValue *args, int *type_codes, int num_args, TVMValue *ret,
                         int *ret_type_code, void *resource_handle) {
  const utvm_crt_t *crt = utvm_crt_active();
  const char *name = NULL;
  (void)resource_handle;
  if (num_args != 2 || type_codes[0] != (int)kTVMArgInt || type_codes[1] != (int)kTVMArgInt ||
      args[1].v_int64 < 0 || crt == NULL) {
    return fail_with_text(UTVM_CRT_FUNCTION_NAME_NAME ": expected (Int, Int)");
  }
  if (args[0].v_int64 == 0 && crt->modules[0] != NULL) {
    name = utvm_crt_registry_name(crt->modules[0]->registry, args[1].v_int64);
  } else if (args[0].v_int64 == 1 && args[1].v_int64 < (int64_t)crt->num_globals) {
    name = crt->globals[args[1].v_int64].name;
  } else {
    /* no such table or index: Null */
  }
  ret->v_str = name;
  *ret_type_code = (name != NULL) ? kTVMStr : kTVMNullptr;
  return 0;
}

utvm_err_t utvm_crt_register_optional_globals(void) {
  utvm_err_t err = utvm_crt_register_global(UTVM_CRT_RANDOM_FILL_NAME, random_fill, NULL);
  if (err == UTVM_OK) {
    err = utvm_crt_register_global(UTVM_CRT_FUNCTION_NAME_NAME, function_name, NULL);
  }
  return err;
}

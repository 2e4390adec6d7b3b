/*
 * The DSP fast paths' output loop for one position (utvm_dsp_requant_row, see
 * requant_s8_dsp.h), shared by FULLY_CONNECTED and DEPTHWISE_CONV_2D; CONV_2D's two-position
 * loop is in conv2d_s8_dsp.c.
 *
 * Stack (arm-none-eabi-gcc 12.2 -fstack-usage on the cortex-m4 preset's flags: -Os with the
 * kernels' -O2): utvm_dsp_requant_row 32 bytes, then utvm_dsp_requant_row_full (assembly) 32.
 */
#include "fast_s8.h"
#include "requant_s8_dsp.h"

#if defined(UTVM_KERNELS_DSP_PATHS)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mac_s8.h"
#include "requant_s8.h"

#if defined(__ARM_FEATURE_DSP) && defined(__GNUC__) && !defined(__clang__)
/* gcc's scheduling before register allocation hoists the loads of the multiply loops and runs
 * out of registers (spills in every iteration); without it the loops keep all in registers. */
#pragma GCC optimize("no-schedule-insns")
#endif

/* Output value of the block's channel k from its sum without the bias (dsp_mixed_value). */
static int8_t dsp_output_mixed(const utvm_requant_block_t *block, int32_t k, int32_t acc) {
  const int32_t q = (block->quant->count == 1) ? 0 : (block->first + k);
  int32_t value;
  int8_t out;
  if (dsp_mixed_value(block, k, acc, block->quant->multiplier[q], block->quant->shift[q],
                      &value)) {
    out = (int8_t)utvm_clamp_s32(utvm_wrap_add(value, block->output_offset), block->act_min,
                                 block->act_max);
  } else {
    out = utvm_requant_output(block, k, acc);
  }
  return out;
}

#if defined(UTVM_KERNELS_DSP_ASM)
/* dsp_requant_row_fast's full-range loop in Thumb-2 (requant_s8_dsp_asm.S), count >= 1. */
void utvm_dsp_requant_row_full(const utvm_requant_entry_t *entry, const int32_t *acc,
                               int32_t count, int8_t *out, int32_t offset);

/* The assembly reads an entry's fields at these offsets (a negative array size otherwise). */
typedef char utvm_requant_entry_layout_check
    [((offsetof(utvm_requant_entry_t, multiplier) == 4u) &&
      (offsetof(utvm_requant_entry_t, round_lo) == 8u) &&
      (offsetof(utvm_requant_entry_t, round_hi) == 12u) &&
      (offsetof(utvm_requant_entry_t, shift) == 16u) && (sizeof(utvm_requant_entry_t) == 24u))
         ? 1
         : -1];
#endif

/* Outputs of count channels with exact table entries entry at one position from acc[k]. */
static void dsp_requant_row_fast(const utvm_requant_entry_t *entry, dsp_clamp_t c,
                                 const int32_t *acc, int32_t count, int8_t *out) {
  if (c.full_range) {
#if defined(UTVM_KERNELS_DSP_ASM)
    if (count > 0) {
      utvm_dsp_requant_row_full(entry, acc, count, out, c.offset);
    }
#else
    for (int32_t k = 0; k < count; ++k) {
      out[k] = (int8_t)dsp_value_full(&entry[k], acc[k], c.offset);
    }
#endif
  } else {
    for (int32_t k = 0; k < count; ++k) {
      out[k] = (int8_t)dsp_value(&entry[k], acc[k], &c);
    }
  }
}

void utvm_dsp_requant_row(const utvm_requant_block_t *block, const int32_t *acc, int32_t count,
                          int8_t *out) {
  if (block->fast) {
    dsp_requant_row_fast(block->entry, dsp_clamp_of(block), acc, count, out);
  } else {
    for (int32_t k = 0; k < count; ++k) {
      out[k] = dsp_output_mixed(block, k, acc[k]);
    }
  }
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without the DSP. */
typedef int utvm_kernels_no_dsp_requant_t;
#endif

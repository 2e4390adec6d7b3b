/*
 * The DSP paths' requantization of one position in Thumb-2 (requant_s8_dsp.c; where fast_s8.h
 * defines UTVM_KERNELS_DSP_ASM: arm-none-eabi-gcc on a core with the DSP extension but not MVE).
 *
 *   void utvm_dsp_requant_row_full(const utvm_requant_entry_t *entry, const int32_t *acc,
 *                                  int32_t count, int8_t *out, int32_t offset);
 *
 * The C loop it replaces (dsp_requant_row_fast with the full int8 range), for k in 0..count-1
 * (count >= 1): out[k] = SSAT8((high word of round + sign term + acc[k] * multiplier) >> shift,
 * plus offset), entry k's fields as requant_s8.h lays them out (bias, multiplier, round_lo,
 * round_hi, shift, left: 24 bytes; the sums hold their biases already, so bias and left are
 * loaded with the others by one LDM and not used). The sign term is 2^31 for acc[k] >= 0,
 * as utvm_requant_entry_value adds it. 13 instructions per value where gcc 12's code of the C
 * loop takes 17 (four loads and a pointer update for the entry's fields).
 */
#if defined(__ARM_FEATURE_DSP) && !defined(__ARM_FEATURE_MVE) && defined(__thumb2__)

  .syntax unified
  .thumb
  .section .text.utvm_dsp_requant_row_full, "ax", %progbits
  .global utvm_dsp_requant_row_full
  .type utvm_dsp_requant_row_full, %function
  .p2align 2

utvm_dsp_requant_row_full:
  push {r4-r10, lr}
  ldr r12, [sp, #32]         /* offset (the fifth argument, above the 8 saved words) */
  add r2, r1, r2, lsl #2     /* the end of acc */
1:
  ldr r4, [r1], #4           /* x = acc[k] */
  ldmia r0!, {r5-r10}        /* bias, multiplier, round_lo, round_hi, shift, left */
  mvn lr, r4
  and lr, lr, #0x80000000    /* 2^31 when x >= 0 */
  adds r7, r7, lr
  adc r8, r8, #0
  smlal r7, r8, r4, r6       /* round + sign term + x * multiplier, 64 bits */
  asr r8, r8, r9
  add r8, r8, r12
  ssat r8, #8, r8
  strb r8, [r3], #1
  cmp r1, r2
  bne 1b
  pop {r4-r10, pc}

  .size utvm_dsp_requant_row_full, . - utvm_dsp_requant_row_full

#endif

/*
 * FULLY_CONNECTED's DSP dot loop in Thumb-2 (fully_connected_s8_dsp.c; where fast_s8.h defines
 * UTVM_KERNELS_DSP_ASM: arm-none-eabi-gcc on a core with the DSP extension but not MVE).
 *
 *   void utvm_dsp_fc_wide_groups(const int8_t *a, const int8_t *b, const int8_t *x,
 *                                int32_t groups, int32_t offset_pair, int32_t *sums);
 *
 * The C loop it replaces (dsp_dot_4x1_wide), group by group: for each of groups groups of 4
 * input values at x (any alignment), widened once with the input offset (SXTAB16 with
 * offset_pair, utvm_dsp_pair), two SMLAD per weight row on pair a's two rows (16 bytes per
 * group, word-aligned: sums[0], sums[1]) and pair b's (sums[2], sums[3]); sums wrap modulo 2^32
 * as SMLAD's do. Two groups per iteration with post-indexed loads: 16 instructions per group
 * where gcc 12's code of the C loop takes 19 (it keeps two pointer updates and, unrolled, runs
 * out of registers). Every register but sp and pc holds a value: a, b, x, the end of x, four
 * sums, the offset, the input word, its even values, and a weight row's two words.
 */
#if defined(__ARM_FEATURE_DSP) && !defined(__ARM_FEATURE_MVE) && defined(__thumb2__)

  .syntax unified
  .thumb
  .section .text.utvm_dsp_fc_wide_groups, "ax", %progbits
  .global utvm_dsp_fc_wide_groups
  .type utvm_dsp_fc_wide_groups, %function
  .p2align 2

/* One group: 4 input values (r9 to odd, r10 even, each + the offset) by 4 rows. */
.macro GROUP
  ldr r9, [r2], #4
  sxtab16 r10, r8, r9
  sxtab16 r9, r8, r9, ror #8
  ldrd r11, r12, [r0], #8
  smlad r4, r11, r10, r4
  smlad r4, r12, r9, r4
  ldrd r11, r12, [r0], #8
  smlad r5, r11, r10, r5
  smlad r5, r12, r9, r5
  ldrd r11, r12, [r1], #8
  smlad r6, r11, r10, r6
  smlad r6, r12, r9, r6
  ldrd r11, r12, [r1], #8
  smlad r7, r11, r10, r7
  smlad r7, r12, r9, r7
.endm

utvm_dsp_fc_wide_groups:
  push {r4-r11, lr}
  ldr r8, [sp, #36]          /* offset_pair (the fifth argument, above the 9 saved words) */
  ldr lr, [sp, #40]          /* sums */
  ldm lr, {r4-r7}
  tst r3, #1
  add r3, r2, r3, lsl #2     /* the end of x */
  beq 1f
  GROUP                      /* an odd group first */
1:
  cmp r2, r3
  beq 3f
2:
  GROUP
  GROUP
  cmp r2, r3
  bne 2b
3:
  stm lr, {r4-r7}
  pop {r4-r11, pc}

  .size utvm_dsp_fc_wide_groups, . - utvm_dsp_fc_wide_groups

#endif

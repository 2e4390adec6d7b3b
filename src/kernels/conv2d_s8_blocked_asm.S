/*
 * CONV_2D's blocked dot loop in Thumb-2 (conv2d_s8_blocked.c; where fast_s8.h defines
 * UTVM_KERNELS_BLOCKED_ASM: arm-none-eabi-gcc on a Thumb-2 core without the DSP extension,
 * the Cortex-M3).
 *
 *   void utvm_blocked_dot_2x2(const int8_t *a, const int8_t *b, const int8_t *w0,
 *                             const int8_t *w1, int32_t run, uint32_t sums[4]);
 *
 * The C loop it replaces (dot_2x2): sums[0] += w0.a, sums[1] += w0.b, sums[2] += w1.a,
 * sums[3] += w1.b over run (>= 0) int8 values, wrapping modulo 2^32 as MLA does. Four values
 * per iteration with post-indexed loads, then one at a time: 34 instructions per 4 values
 * where gcc 12's code of the C loop takes 40 (10 per value; unrolled, it keeps a pointer
 * update per stream). Every register but sp and pc holds a value: the four pointers, four
 * sums, the count, the sums' address, and the value loaded from each stream.
 */
#if defined(__thumb2__) && !defined(__ARM_FEATURE_DSP) && !defined(__ARM_FEATURE_MVE)

  .syntax unified
  .thumb
  .section .text.utvm_blocked_dot_2x2, "ax", %progbits
  .global utvm_blocked_dot_2x2
  .type utvm_blocked_dot_2x2, %function
  .p2align 2

/* One value of each stream: a (r8), b (r9), w0 (r10), w1 (r11) into the four sums. */
.macro VALUE
  ldrsb r8, [r0], #1
  ldrsb r9, [r1], #1
  ldrsb r10, [r2], #1
  ldrsb r11, [r3], #1
  mla r4, r10, r8, r4
  mla r5, r10, r9, r5
  mla r6, r11, r8, r6
  mla r7, r11, r9, r7
.endm

utvm_blocked_dot_2x2:
  push {r4-r11, lr}
  ldr r12, [sp, #36]      /* run */
  ldr lr, [sp, #40]       /* sums */
  ldm lr, {r4-r7}
  subs r12, r12, #4
  blo 2f
1:
  VALUE
  VALUE
  VALUE
  VALUE
  subs r12, r12, #4
  bhs 1b
2:
  adds r12, r12, #4       /* the last run % 4 values */
  beq 4f
3:
  VALUE
  subs r12, r12, #1
  bne 3b
4:
  stm lr, {r4-r7}
  pop {r4-r11, pc}
  .size utvm_blocked_dot_2x2, . - utvm_blocked_dot_2x2

#endif

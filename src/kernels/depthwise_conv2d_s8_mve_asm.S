/*
 * DEPTHWISE_CONV_2D's 3x3 MVE window in assembly (depthwise_conv2d_s8_mve.c; on every core
 * with MVE, whose builds are arm-none-eabi-gcc's).
 *
 *   void utvm_mve_dw3_sums(const int8_t *window, int32_t column, int32_t row,
 *                          const int8_t *weights, int32_t *sums);
 *   void utvm_mve_dw3_sums_taps(const int8_t *const *taps, const int8_t *weights,
 *                               int32_t *sums);
 *
 * The sums over the nine taps of one window of 16 channels: tap (ty, tx) reads 16 input values
 * at window + ty * row + tx * column (utvm_mve_dw3_sums) or at taps[3 * ty + tx]
 * (utvm_mve_dw3_sums_taps: a window at the padding, its taps there reading a pad vector) and 16
 * weights at weights + 16 * (3 * ty + tx); both are widened to int16, the even and odd lanes
 * multiplied into int32 (VMULLB/VMULLT) and summed (wrapping) into sums[0..3] (channels 0, 2,
 * 4, 6), sums[4..7] (1, 3, 5, 7), sums[8..11] (8, 10, ...) and sums[12..15] (9, 11, ...).
 * 13 instructions per tap, loads and arithmetic interleaved; gcc 12 spills the accumulators of
 * the same loop written with intrinsics once it is unrolled, and spends 18 per tap on it
 * rolled. Registers: q3..q6 the sums, q0..q2 the input, weight and product vectors; r5 the
 * tap's input, r4 its filter row's (or r0 the tap table), r3 the weights, r6 the sums. The two
 * entries share the store of the sums.
 */
#if defined(__ARM_FEATURE_MVE) && defined(__thumb2__)

  .syntax unified
  .thumb
  .section .text.utvm_mve_dw3_sums, "ax", %progbits
  .global utvm_mve_dw3_sums
  .type utvm_mve_dw3_sums, %function
  .global utvm_mve_dw3_sums_taps
  .type utvm_mve_dw3_sums_taps, %function
  .p2align 2

/* One tap at r5 (weights at r3, which moves on by 16). */
.macro TAP
  vldrb.s16 q0, [r5]
  vldrb.s16 q1, [r3], #8
  vmullb.s16 q2, q0, q1
  vadd.i32 q3, q3, q2
  vmullt.s16 q2, q0, q1
  vldrb.s16 q0, [r5, #8]
  vadd.i32 q4, q4, q2
  vldrb.s16 q1, [r3], #8
  vmullb.s16 q2, q0, q1
  vadd.i32 q5, q5, q2
  vmullt.s16 q2, q0, q1
  vadd.i32 q6, q6, q2
.endm

/* The four sums to 0. */
.macro ZERO
  vmov.i32 q3, #0
  vmov.i32 q4, #0
  vmov.i32 q5, #0
  vmov.i32 q6, #0
.endm

/* r0 the taps' pointers, r3 the weights, r6 the sums. */
utvm_mve_dw3_sums_taps:
  push {r4, r5, r6, lr}
  vpush {d8-d13}
  mov r6, r2
  mov r3, r1
  ZERO
  mov lr, #3
1:
  ldr r5, [r0], #4
  TAP
  ldr r5, [r0], #4
  TAP
  ldr r5, [r0], #4
  TAP
  subs lr, lr, #1
  bne 1b
  b 3f

/* r4 the filter row's first input, r5 the tap's, r3 the weights, r6 the sums. */
utvm_mve_dw3_sums:
  push {r4, r5, r6, lr}
  vpush {d8-d13}
  ldr r6, [sp, #64]
  ZERO
  mov r4, r0
  mov lr, #3
2:
  mov r5, r4
  TAP
  add r5, r5, r1
  TAP
  add r5, r5, r1
  TAP
  add r4, r4, r2
  subs lr, lr, #1
  bne 2b
3:
  vstrw.32 q3, [r6]
  vstrw.32 q4, [r6, #16]
  vstrw.32 q5, [r6, #32]
  vstrw.32 q6, [r6, #48]
  vpop {d8-d13}
  pop {r4, r5, r6, pc}

  .size utvm_mve_dw3_sums, . - utvm_mve_dw3_sums
  .size utvm_mve_dw3_sums_taps, utvm_mve_dw3_sums - utvm_mve_dw3_sums_taps

#endif

/*
 * DEPTHWISE_CONV_2D's 3x3 MVE window in assembly (depthwise_conv2d_s8_mve.c; on every core
 * with MVE, whose builds are arm-none-eabi-gcc's).
 *
 *   void utvm_mve_dw3_sums(const int8_t *window, int32_t column, int32_t row,
 *                          const int8_t *weights, int32_t *sums);
 *   void utvm_mve_dw3_sums_valid(const int8_t *input, int32_t window, int32_t column,
 *                                int32_t row, const int8_t *weights, int32_t *sums,
 *                                uint32_t valid, const int8_t *pad);
 *
 * The sums over the nine taps of one window of 16 channels: tap (ty, tx) reads 16 input values
 * at window + ty * row + tx * column (utvm_mve_dw3_sums; for utvm_mve_dw3_sums_valid, a window
 * at the padding, the window is a byte offset from input, which may lie before it, and a tap
 * whose bit 3 * ty + tx of valid is clear reads the 16-byte pad vector instead, its address
 * never formed) and 16 weights at weights + 16 * (3 * ty + tx); both are widened to int16, the
 * even and odd lanes multiplied into int32 (VMULLB/VMULLT) and summed (wrapping) into
 * sums[0..3] (channels 0, 2, 4, 6), sums[4..7] (1, 3, 5, 7), sums[8..11] (8, 10, ...) and
 * sums[12..15] (9, 11, ...). 13 instructions per tap, loads and arithmetic interleaved, 4 more
 * to pick a tap at the padding; gcc 12 spills the accumulators of the same loop written with
 * intrinsics once it is unrolled, and spends 18 per tap on it rolled. Registers: q3..q6 the
 * sums, q0..q2 the input, weight and product vectors; r5 the tap's input, r4 its filter row's,
 * r3 the weights, r6 the sums, r7 the valid taps and r8 the pad. The two entries share the
 * store of the sums; 72 bytes of stack.
 */
#if defined(__ARM_FEATURE_MVE) && defined(__thumb2__)

  .syntax unified
  .thumb
  .section .text.utvm_mve_dw3_sums, "ax", %progbits
  .global utvm_mve_dw3_sums
  .type utvm_mve_dw3_sums, %function
  .global utvm_mve_dw3_sums_valid
  .type utvm_mve_dw3_sums_valid, %function
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

/* r5 for tap tx of the row at r4: r4 + tx * r1 if the next bit of r7 is set, else the pad
 * vector at r8 (r7 moves on by a bit). */
.macro PICK tx
  lsrs r7, r7, #1
  ite cs
.if \tx == 0
  movcs r5, r4
.elseif \tx == 1
  addcs r5, r4, r1
.else
  addcs r5, r4, r1, lsl #1
.endif
  movcc r5, r8
.endm

/* r4 the filter row's first input, r1 the column step, r2 the row step, r7 the valid taps,
 * r8 the pad vector, r3 the weights, r6 the sums. */
utvm_mve_dw3_sums_valid:
  push {r4, r5, r6, r7, r8, lr}
  vpush {d8-d13}
  add r4, r0, r1
  mov r1, r2
  mov r2, r3
  ldrd r3, r6, [sp, #72]
  ldrd r7, r8, [sp, #80]
  ZERO
  mov lr, #3
1:
  PICK 0
  TAP
  PICK 1
  TAP
  PICK 2
  TAP
  add r4, r4, r2
  subs lr, lr, #1
  bne 1b
  b 3f

/* r4 the filter row's first input, r5 the tap's, r3 the weights, r6 the sums. */
utvm_mve_dw3_sums:
  push {r4, r5, r6, r7, r8, lr}
  vpush {d8-d13}
  ldr r6, [sp, #72]
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
  pop {r4, r5, r6, r7, r8, pc}

  .size utvm_mve_dw3_sums, . - utvm_mve_dw3_sums
  .size utvm_mve_dw3_sums_valid, utvm_mve_dw3_sums - utvm_mve_dw3_sums_valid

#endif

/*
 * DEPTHWISE_CONV_2D's 3x3 MVE windows in assembly (depthwise_conv2d_s8_mve.c; on every core
 * with MVE, whose builds are arm-none-eabi-gcc's), a group of 16 channels at a time, or of 8
 * (utvm_mve_dw3_run8, utvm_mve_dw3_window_valid8, the same arguments).
 *
 *   void utvm_mve_dw3_run(const int8_t *pixel, int32_t column, int32_t row,
 *                         const mve_dw3_group_t *g, int8_t *out, int32_t step, int32_t n,
 *                         int32_t out_step);
 *   void utvm_mve_dw3_window_valid(const int8_t *input, int32_t window, int32_t column,
 *                                  int32_t row, const mve_dw3_group_t *g, int8_t *out,
 *                                  uint32_t valid);
 *
 * The 16 outputs of windows of the group g: tap (ty, tx) of window j reads 16 input values at
 * pixel + j * step + ty * row + tx * column and its outputs go to out + j * out_step, for
 * j < n (n at least 1; utvm_mve_dw3_run, windows inside the input), or (utvm_mve_dw3_window_valid,
 * one window at the padding) window is a byte offset from input, which may lie before it, and
 * a tap whose bit 3 * ty + tx of valid is clear reads the group's pad vector instead, its
 * address never formed. Each tap's 16 input values and its 16 weights (at g + 16 * (3 * ty +
 * tx)) are widened to int16, the even and odd lanes multiplied into int32 (VMULLB/VMULLT) and
 * summed (wrapping) from the group's terms into four vectors in lane order (channels 0, 2, 4,
 * 6; 1, 3, 5, 7; 8, 10, ...; 9, 11, ...); these are requantized as utvm_mac_output_s8 does
 * (VQRDMULH, then the rounding right shift with gemmlowp's fixup), narrowed with saturation to
 * int16 back into channel order (VQMOVNB/VQMOVNT; a value outside int16 stays outside the
 * clamp), offset (saturating), clamped and stored. The 8-channel entries read, sum and store
 * only the first 8 values of each (the first two vectors of sums: channels 0, 2, 4, 6 and 1,
 * 3, 5, 7), 7 instructions per tap.
 * 13 instructions per tap, loads and arithmetic interleaved, 4 more to pick a tap at the
 * padding; gcc 12 spills the accumulators of the same loop written with intrinsics once it is
 * unrolled, and spends 18 per tap on it rolled. The group is read at the offsets G_* below,
 * which depthwise_conv2d_s8_mve.c checks at compile time. Registers: q3..q6 the sums, q0..q2
 * the input, weight and product vectors, then the requantization's; r5 the tap's input, r4 its
 * filter row's, r3 the weights, r9 the group, r6 the output; utvm_mve_dw3_run keeps the window
 * in r0, the count in r7, the steps in r8 and r10; utvm_mve_dw3_window_valid the valid taps in
 * r7 and the pad in r8. 88 bytes of stack.
 */
#if defined(__ARM_FEATURE_MVE) && defined(__thumb2__)

  .syntax unified
  .thumb
  .section .text.utvm_mve_dw3_run, "ax", %progbits
  .global utvm_mve_dw3_run
  .type utvm_mve_dw3_run, %function
  .global utvm_mve_dw3_window_valid
  .type utvm_mve_dw3_window_valid, %function
  .global utvm_mve_dw3_run8
  .type utvm_mve_dw3_run8, %function
  .global utvm_mve_dw3_window_valid8
  .type utvm_mve_dw3_window_valid8, %function
  .p2align 2

/* mve_dw3_group_t's layout (depthwise_conv2d_s8_mve.c). */
#define G_PAD 144
#define G_TERMS 160
#define G_MULTIPLIERS 224
#define G_LEFT_SHIFTS 288
#define G_RIGHT_SHIFTS 352
#define G_LEFT 416
#define G_OUTPUT_OFFSET 418
#define G_ACT_MIN 420
#define G_ACT_MAX 422

/* One tap at r5 (weights at r3, which moves on by 16); with half, its first 8 channels only. */
.macro TAP half
.if \half
  vldrb.s16 q0, [r5]
  vldrb.s16 q1, [r3], #16
  vmullb.s16 q2, q0, q1
  vadd.i32 q3, q3, q2
  vmullt.s16 q2, q0, q1
  vadd.i32 q4, q4, q2
.else
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
.endif
.endm

/* The sums from the group's terms (q3, q4; q5 and q6 too without half), the weights from the
 * group's first (r3). */
.macro START half
  vldrw.u32 q3, [r9, #G_TERMS]
  vldrw.u32 q4, [r9, #G_TERMS + 16]
.if \half == 0
  vldrw.u32 q5, [r9, #G_TERMS + 32]
  vldrw.u32 q6, [r9, #G_TERMS + 48]
.endif
  mov r3, r9
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

/* Sums q (lanes k / 4 .. k / 4 + 3 of the group) multiplied and shifted right. */
.macro SCALE q, k
  vldrw.u32 q0, [r9, #G_MULTIPLIERS + \k]
  vqrdmulh.s32 \q, \q, q0
  vldrw.u32 q1, [r9, #G_RIGHT_SHIFTS + \k]
  vand q2, \q, q1
  vshr.s32 q2, q2, #31
  vqadd.s32 \q, \q, q2
  vrshl.s32 \q, \q, q1
.endm

/* The 16 outputs of the sums q3..q6 at r6, or with half the 8 of q3 and q4. Clobbers q0..q2,
 * r5, r11, r12 and lr. */
.macro OUTPUT half
  ldrb r5, [r9, #G_LEFT]
  cbz r5, .Lscale\@
  vldrw.u32 q0, [r9, #G_LEFT_SHIFTS]
  vshl.s32 q3, q3, q0
  vldrw.u32 q0, [r9, #G_LEFT_SHIFTS + 16]
  vshl.s32 q4, q4, q0
.if \half == 0
  vldrw.u32 q0, [r9, #G_LEFT_SHIFTS + 32]
  vshl.s32 q5, q5, q0
  vldrw.u32 q0, [r9, #G_LEFT_SHIFTS + 48]
  vshl.s32 q6, q6, q0
.endif
.Lscale\@:
  SCALE q3, 0
  SCALE q4, 16
.if \half == 0
  SCALE q5, 32
  SCALE q6, 48
.endif
  ldrsh r11, [r9, #G_OUTPUT_OFFSET]
  ldrsh r12, [r9, #G_ACT_MIN]
  ldrsh lr, [r9, #G_ACT_MAX]
  vqmovnb.s32 q0, q3
  vqmovnt.s32 q0, q4
  vqadd.s16 q0, q0, r11
.if \half == 0
  vqmovnb.s32 q1, q5
  vqmovnt.s32 q1, q6
  vqadd.s16 q1, q1, r11
.endif
  vdup.16 q2, r12
  vmax.s16 q0, q0, q2
.if \half == 0
  vmax.s16 q1, q1, q2
.endif
  vdup.16 q2, lr
  vmin.s16 q0, q0, q2
  vstrb.16 q0, [r6]
.if \half == 0
  vmin.s16 q1, q1, q2
  vstrb.16 q1, [r6, #8]
.endif
.endm

/* The windows of utvm_mve_dw3_run (with half, utvm_mve_dw3_run8). r0 the window, r1 the column
 * step, r2 the row step, r9 the group, r6 the output, r8 and r10 the window's and the output's
 * steps, r7 the windows left. */
.macro RUN half
  push {r4, r5, r6, r7, r8, r9, r10, r11, lr}
  vpush {d8-d13}
  sub sp, sp, #4
  ldrd r6, r8, [sp, #88]
  ldrd r7, r10, [sp, #96]
  mov r9, r3
1:
  START \half
  mov r4, r0
  mov lr, #3
2:
  mov r5, r4
  TAP \half
  add r5, r5, r1
  TAP \half
  add r5, r5, r1
  TAP \half
  add r4, r4, r2
  subs lr, lr, #1
  bne 2b
  OUTPUT \half
  add r0, r0, r8
  add r6, r6, r10
  subs r7, r7, #1
  bne 1b
  add sp, sp, #4
  vpop {d8-d13}
  pop {r4, r5, r6, r7, r8, r9, r10, r11, pc}
.endm

/* The window of utvm_mve_dw3_window_valid (with half, utvm_mve_dw3_window_valid8). r4 the
 * filter row's first input, r1 the column step, r2 the row step, r7 the valid taps, r8 the pad
 * vector, r9 the group, r6 the output. */
.macro VALID half
  push {r4, r5, r6, r7, r8, r9, r10, r11, lr}
  vpush {d8-d13}
  sub sp, sp, #4
  add r4, r0, r1
  mov r1, r2
  mov r2, r3
  ldrd r9, r6, [sp, #88]
  ldr r7, [sp, #96]
  add r8, r9, #G_PAD
  START \half
  mov lr, #3
1:
  PICK 0
  TAP \half
  PICK 1
  TAP \half
  PICK 2
  TAP \half
  add r4, r4, r2
  subs lr, lr, #1
  bne 1b
  OUTPUT \half
  add sp, sp, #4
  vpop {d8-d13}
  pop {r4, r5, r6, r7, r8, r9, r10, r11, pc}
.endm

utvm_mve_dw3_run:
  RUN 0
  .size utvm_mve_dw3_run, . - utvm_mve_dw3_run

utvm_mve_dw3_window_valid:
  VALID 0
  .size utvm_mve_dw3_window_valid, . - utvm_mve_dw3_window_valid

utvm_mve_dw3_run8:
  RUN 1
  .size utvm_mve_dw3_run8, . - utvm_mve_dw3_run8

utvm_mve_dw3_window_valid8:
  VALID 1
  .size utvm_mve_dw3_window_valid8, . - utvm_mve_dw3_window_valid8

#endif

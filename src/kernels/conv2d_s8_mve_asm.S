/*
 * CONV_2D's MVE dot loop in assembly, two weight rows against four columns (conv2d_s8_mve.c;
 * on every core with MVE, whose builds are arm-none-eabi-gcc's).
 *
 *   void utvm_mve_gemm4_pairs(const int8_t *rows, const int8_t *columns, const int32_t *terms,
 *                             int32_t *sums, int32_t pairs, int32_t blocks, int32_t tail,
 *                             int32_t stride);
 *
 * For rows i < 2 * pairs of length = 16 * blocks + tail values each (row i at
 * rows + length * i) and four columns laid out as mve_gemm4 reads them (16-value block b of
 * column j at columns + 64 * b + 16 * j, then column j's tail values at
 * columns + 64 * blocks + tail * j): the sum of terms[i] and row i's products with column j
 * (VMLADAVA, wrapping) is stored at sums + j * stride bytes + 4 * i. blocks is at least 1 and
 * tail 0..15; the tails are loaded under a predicate (VCTP), so nothing past them is read.
 * Two rows at a time keep eight accumulators in the eight even registers VMLADAVA writes
 * (r0 ... r12 and lr), so each column vector loaded serves two rows: 16 instructions per 128
 * multiply-accumulates, against 20 for one row at a time, and the per-row work halves; gcc 12
 * runs out of registers for this loop written with intrinsics. Registers: r1 and r3 the rows,
 * r5 the columns (r9 their start), r7 the block count (r11 blocks), then the tail; the stack
 * keeps the terms, sums, stride, pairs and length. 56 bytes of stack.
 */
#if defined(__ARM_FEATURE_MVE) && defined(__thumb2__)

  .syntax unified
  .thumb
  .section .text.utvm_mve_gemm4_pairs, "ax", %progbits
  .global utvm_mve_gemm4_pairs
  .type utvm_mve_gemm4_pairs, %function
  .p2align 2

/* The tail of the next column (r5, which moves on by the tail r7) into \q under the tail's
 * predicate, multiplied with both rows' tails into \a0 (row 0, q0) and \a1 (row 1, q1). */
.macro TAIL_COLUMN q, a0, a1
  vpst
  vldrbt.8 \q, [r5]
  add r5, r5, r7
  vmladava.s8 \a0, q0, \q
  vmladava.s8 \a1, q1, \q
.endm

utvm_mve_gemm4_pairs:
  push {r4, r5, r6, r7, r8, r9, r10, r11, lr}
  sub sp, sp, #20
  ldr r4, [sp, #56]
  ldr r11, [sp, #60]
  ldr r6, [sp, #64]
  ldr r5, [sp, #68]
  strd r2, r3, [sp]
  strd r5, r4, [sp, #8]
  add r6, r6, r11, lsl #4
  str r6, [sp, #16]
  mov r9, r1
  mov r1, r0
  add r3, r0, r6
1:
  ldr r5, [sp]
  ldrd r0, r8, [r5], #8
  str r5, [sp]
  mov r2, r0
  mov r4, r0
  mov r6, r0
  mov r10, r8
  mov r12, r8
  mov lr, r8
  mov r5, r9
  mov r7, r11
2:
  vldrb.8 q0, [r1], #16
  vldrb.8 q2, [r5], #16
  vldrb.8 q1, [r3], #16
  vmladava.s8 r0, q0, q2
  vldrb.8 q3, [r5], #16
  vmladava.s8 r8, q1, q2
  vmladava.s8 r2, q0, q3
  vldrb.8 q2, [r5], #16
  vmladava.s8 r10, q1, q3
  vmladava.s8 r4, q0, q2
  vldrb.8 q3, [r5], #16
  vmladava.s8 r12, q1, q2
  vmladava.s8 r6, q0, q3
  vmladava.s8 lr, q1, q3
  subs r7, r7, #1
  bne 2b
  ldr r7, [sp, #16]
  subs r7, r7, r11, lsl #4
  beq 3f
  vctp.8 r7
  vpstt
  vldrbt.8 q0, [r1]
  vldrbt.8 q1, [r3]
  add r1, r1, r7
  add r3, r3, r7
  TAIL_COLUMN q2, r0, r8
  TAIL_COLUMN q3, r2, r10
  TAIL_COLUMN q2, r4, r12
  TAIL_COLUMN q3, r6, lr
3:
  ldrd r5, r7, [sp, #4]
  strd r0, r8, [r5], #8
  str r5, [sp, #4]
  add r5, r5, r7
  strd r2, r10, [r5, #-8]
  add r5, r5, r7
  strd r4, r12, [r5, #-8]
  add r5, r5, r7
  strd r6, lr, [r5, #-8]
  ldr r0, [sp, #16]
  mov r1, r3
  add r3, r3, r0
  ldr r0, [sp, #12]
  subs r0, r0, #1
  str r0, [sp, #12]
  bne 1b
  add sp, sp, #20
  pop {r4, r5, r6, r7, r8, r9, r10, r11, pc}

  .size utvm_mve_gemm4_pairs, . - utvm_mve_gemm4_pairs

/*
 *   void utvm_mve_requant4(const int32_t *sums, int8_t *out, const mve_requant4_t *r);
 *
 * The outputs of four columns, 8 * r->groups channels each: channel i of column j from the sum
 * at sums + j * r->sums_step bytes + 4 * i, into out + j * r->out_step + i. Each channel's
 * multiplier is read from r->multipliers[i] and its shift, 0 or less (a right shift), from
 * r->shifts[i]. The sums and the multipliers of 8 channels are loaded de-interleaved (VLD2:
 * even channels in one vector, odd ones in the other) and the shifts gathered the same way,
 * so that the narrowing to int16 (VQMOVNB/VQMOVNT) puts the 8 results back in channel order;
 * then they are requantized as utvm_mac_output_s8 does (VQRDMULH, then the rounding right
 * shift with gemmlowp's fixup), offset (saturating) and clamped: by the saturating narrowing
 * to int8 when the range is -128..127, else against r->act_min and r->act_max. A group's
 * parameters are loaded once for the four columns. 17 instructions per 8 outputs of a column
 * (20 with the clamp), and 12 more per group. Registers: r0..r3 the columns' sums, r4..r7
 * their outputs, r8 the multipliers, r9 the shifts, r12 the output offset, r11 and lr the
 * clamp's bounds; q4, q5 the multipliers and q6, q7 the shifts of a group; the group count on
 * the stack. 104 bytes of stack.
 */
  .section .text.utvm_mve_requant4, "ax", %progbits
  .global utvm_mve_requant4
  .type utvm_mve_requant4, %function
  .p2align 2

/* mve_requant4_t's layout (conv2d_s8_mve.c). */
#define R_MULTIPLIERS 0
#define R_GROUPS 8
#define R_SUMS_STEP 16
#define R_OUTPUT_OFFSET 20
#define R_ACT_MIN 24

/* The next 8 channels' multipliers into q4 (even channels) and q5 (odd), their shifts into
 * q6 and q7. */
.macro GROUP
  mov r10, #0
  vidup.u32 q2, r10, #2
  vldrb.s32 q6, [r9, q2]
  add r10, r9, #1
  vldrb.s32 q7, [r10, q2]
  add r9, r9, #8
  vld20.32 {q4, q5}, [r8]
  vld21.32 {q4, q5}, [r8]!
.endm

/* The next 8 outputs of the column whose sums are at \s, stored at \o (both move on). */
.macro COLUMN s, o, clamp
  vld20.32 {q0, q1}, [\s]
  vld21.32 {q0, q1}, [\s]!
  vqrdmulh.s32 q0, q0, q4
  vqrdmulh.s32 q1, q1, q5
  vand q2, q0, q6
  vand q3, q1, q7
  vshr.s32 q2, q2, #31
  vshr.s32 q3, q3, #31
  vqadd.s32 q0, q0, q2
  vqadd.s32 q1, q1, q3
  vrshl.s32 q0, q0, q6
  vrshl.s32 q1, q1, q7
  vqmovnb.s32 q2, q0
  vqmovnt.s32 q2, q1
  vqadd.s16 q2, q2, r12
.if \clamp
  vdup.16 q3, r11
  vmax.s16 q2, q2, q3
  vdup.16 q3, lr
  vmin.s16 q2, q2, q3
.else
  vqmovnb.s16 q2, q2
.endif
  vstrb.16 q2, [\o], #8
.endm

.macro GROUPS clamp
  GROUP
  COLUMN r0, r4, \clamp
  COLUMN r1, r5, \clamp
  COLUMN r2, r6, \clamp
  COLUMN r3, r7, \clamp
  ldr r10, [sp]
  subs r10, r10, #1
  str r10, [sp]
.endm

utvm_mve_requant4:
  push {r4, r5, r6, r7, r8, r9, r10, r11, lr}
  vpush {d8-d15}
  sub sp, sp, #4
  ldrd r8, r9, [r2, #R_MULTIPLIERS]
  ldrd r10, r11, [r2, #R_GROUPS]
  str r10, [sp]
  mov r4, r1
  add r5, r4, r11
  add r6, r5, r11
  add r7, r6, r11
  ldrd r10, r12, [r2, #R_SUMS_STEP]
  ldrd r11, lr, [r2, #R_ACT_MIN]
  add r1, r0, r10
  add r2, r1, r10
  add r3, r2, r10
  cmn r11, #128
  bne 2f
  cmp lr, #127
  bne 2f
1:
  GROUPS 0
  bne 1b
  b 3f
2:
  GROUPS 1
  bne 2b
3:
  add sp, sp, #4
  vpop {d8-d15}
  pop {r4, r5, r6, r7, r8, r9, r10, r11, pc}

  .size utvm_mve_requant4, . - utvm_mve_requant4

#endif

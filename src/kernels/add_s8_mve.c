/*
 * ADD on MVE: utvm_add_s8_mve (see fast_s8.h, mve_s8.h). utvm_add_s8 takes it on cores with
 * the M-profile Vector Extension (Cortex-M55/M85) when both inputs have the output's shape (no
 * broadcasting); broadcasting ADDs take the reference loop there. TFLite's fixed-point steps
 * (AddFunc) four lanes at a time.
 *
 * Stack (arm-none-eabi-gcc 12.2 -fstack-usage on the cortex-m55 preset's flags: -Os with the
 * kernels' -O2): utvm_add_s8_mve 112 bytes.
 */
#include "fast_s8.h"

#if defined(__ARM_FEATURE_MVE)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mve_s8.h"

/* ADD's constants, copied out of the parameters (which the byte stores could alias). */
typedef struct {
  int32_t left_shift;
  int32_t offset1;
  int32_t offset2;
  int32_t multiplier1;
  int32_t multiplier2;
  int32_t output_multiplier;
  int32_t output_offset;
  int32x4_t right_shift1;
  int32x4_t right_shift2;
  int32x4_t output_right_shift;
  int32x4_t act_min;
  int32x4_t act_max;
} mve_add_t;

/* Four outputs of ADD from four values of each input (TFLite's AddFunc, lane-wise). */
static inline int32x4_t mve_add4(const mve_add_t *a, int32x4_t x1, int32x4_t x2) {
  /* (x + offset) * 2^left_shift: |x + offset| <= 255 and left_shift <= 23, no overflow. */
  const int32x4_t scaled1 = mve_rounding_divide(
      vqrdmulhq_n_s32(vshlq_r_s32(vaddq_n_s32(x1, a->offset1), a->left_shift), a->multiplier1),
      a->right_shift1);
  const int32x4_t scaled2 = mve_rounding_divide(
      vqrdmulhq_n_s32(vshlq_r_s32(vaddq_n_s32(x2, a->offset2), a->left_shift), a->multiplier2),
      a->right_shift2);
  const int32x4_t sum = mve_rounding_divide(
      vqrdmulhq_n_s32(vaddq_s32(scaled1, scaled2), a->output_multiplier), a->output_right_shift);
  return vminq_s32(vmaxq_s32(vaddq_n_s32(sum, a->output_offset), a->act_min), a->act_max);
}

void utvm_add_s8_mve(const utvm_add_params_t *params, int32_t count, const int8_t *input1,
                     const int8_t *input2, int8_t *output) {
  const mve_add_t a = {params->left_shift,
                       params->input1_offset,
                       params->input2_offset,
                       params->input1_multiplier,
                       params->input2_multiplier,
                       params->output_multiplier,
                       params->output_offset,
                       vdupq_n_s32(params->input1_shift),
                       vdupq_n_s32(params->input2_shift),
                       vdupq_n_s32(params->output_shift),
                       vdupq_n_s32(params->act_min),
                       vdupq_n_s32(params->act_max)};
  const int32_t whole = count / 4;
  const int8_t *in1 = input1;
  const int8_t *in2 = input2;
  int8_t *out = output;
  for (int32_t i = 0; i < whole; ++i) {
    vstrbq_s32(out, mve_add4(&a, vldrbq_s32(in1), vldrbq_s32(in2)));
    in1 = &in1[4];
    in2 = &in2[4];
    out = &out[4];
  }
  const int32_t tail = count - 4 * whole;
  if (tail > 0) {
    const mve_pred16_t p = vctp32q((uint32_t)tail);
    vstrbq_p_s32(out, mve_add4(&a, vldrbq_z_s32(in1, p), vldrbq_z_s32(in2, p)), p);
  }
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without MVE. */
typedef int utvm_kernels_no_mve_add_t;
#endif

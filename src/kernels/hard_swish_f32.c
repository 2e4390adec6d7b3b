/* HARD_SWISH, float32 (TFLite's reference_ops::HardSwish for float:
 * x * min(6, max(0, x + 3)) / 6, multiplied before the division). */
#include "f32.h"
#include "utvm/kernels.h"

#if UTVM_HAVE_F32 /* else f32_absent.c: utvm/kernels.h */

utvm_err_t utvm_hard_swish_f32(int32_t count, const float *input, float *output) {
  const utvm_err_t err = utvm_unary_f32_check(count, input, output);
  if (err == UTVM_OK) {
    for (int32_t i = 0; i < count; ++i) {
      const float value = input[i];
      const float shifted = value + 3.0f;
      /* std::max(0, x + 3) then std::min(6, that), with their comparisons. */
      const float low = (0.0f < shifted) ? shifted : 0.0f;
      const float factor = (low < 6.0f) ? low : 6.0f;
      output[i] = (value * factor) / 6.0f;
    }
  }
  return err;
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without
 * UTVM_HAVE_F32. */
typedef int utvm_kernels_no_hard_swish_f32_t;
#endif

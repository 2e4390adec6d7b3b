/* TANH, float32 (TFLite's reference kernel: the C library's tanh of float). */
#include <math.h>

#include "f32.h"
#include "utvm/kernels.h"

#if UTVM_HAVE_F32 /* else f32_absent.c: utvm/kernels.h */

utvm_err_t utvm_tanh_f32(int32_t count, const float *input, float *output) {
  const utvm_err_t err = utvm_unary_f32_check(count, input, output);
  if (err == UTVM_OK) {
    for (int32_t i = 0; i < count; ++i) {
      output[i] = tanhf(input[i]);
    }
  }
  return err;
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without
 * UTVM_HAVE_F32. */
typedef int utvm_kernels_no_tanh_f32_t;
#endif

/* LOGISTIC, float32 (TFLite's reference_ops::Logistic for float: 1 above the upper cutoff,
 * expf(x) below the lower one, else 1 / (1 + expf(-x))). */
#include <math.h>

#include "f32.h"
#include "utvm/kernels.h"

#if UTVM_HAVE_F32 /* else f32_absent.c: utvm/kernels.h */

/* TFLite's cutoffs: above the upper one 1/(1+e^-x) rounds to 1 in float; below the lower one
 * it is e^x to float precision. */
#define LOGISTIC_F32_UPPER 16.619047164916992188f
#define LOGISTIC_F32_LOWER (-9.0f)

utvm_err_t utvm_logistic_f32(int32_t count, const float *input, float *output) {
  const utvm_err_t err = utvm_unary_f32_check(count, input, output);
  if (err == UTVM_OK) {
    for (int32_t i = 0; i < count; ++i) {
      const float value = input[i];
      float result;
      if (value > LOGISTIC_F32_UPPER) {
        result = 1.0f;
      } else if (value < LOGISTIC_F32_LOWER) {
        result = expf(value);
      } else {
        result = 1.0f / (1.0f + expf(-value));
      }
      output[i] = result;
    }
  }
  return err;
}

#else
/* ISO C needs a declaration in every translation unit; this file has none without
 * UTVM_HAVE_F32. */
typedef int utvm_kernels_no_logistic_f32_t;
#endif

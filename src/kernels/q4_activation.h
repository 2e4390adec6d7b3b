/*
 * The parameter check shared by LOGISTIC and TANH (internal): both scale the input to Q4 and
 * saturate outside input_range_radius.
 */
#ifndef UTVM_KERNELS_Q4_ACTIVATION_H
#define UTVM_KERNELS_Q4_ACTIVATION_H

#include <stdbool.h>
#include <stddef.h>

#include "utvm/kernels.h"

/* True for a non-NULL parameter set with a shift in -31..31, a non-negative radius and an int8
 * input zero point. */
static inline bool utvm_q4_activation_params_valid(const utvm_logistic_params_t *params) {
  return params != NULL && params->input_left_shift >= -31 && params->input_left_shift <= 31 &&
         params->input_range_radius >= 0 && params->input_zero_point >= INT8_MIN &&
         params->input_zero_point <= INT8_MAX;
}

#endif /* UTVM_KERNELS_Q4_ACTIVATION_H */

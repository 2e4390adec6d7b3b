/*
 * The user function of the examples: my_dot_s8(a, b, out) writes the dot product of two int8
 * vectors of equal length into out[0], an int32 tensor of shape [1]. Checks its arguments the
 * way every packed function must (the tensors come from the host) and reports a readable error.
 */
#include <stdint.h>

#include "dot_s8.h"

/* A compact 1-D CPU tensor argument of the given dtype, or NULL. */
static const DLTensor *vector_arg(const TVMValue *args, const int *type_codes, int i,
                                  uint8_t code, uint8_t bits) {
  const DLTensor *t;
  if (type_codes[i] != kTVMDLTensorHandle && type_codes[i] != kTVMNDArrayHandle) {
    return NULL;
  }
  t = (const DLTensor *)args[i].v_handle;
  if (t == NULL || t->ndim != 1 || t->shape == NULL || t->shape[0] < 0 || t->strides != NULL ||
      t->byte_offset != 0u || t->dtype.code != code || t->dtype.bits != bits ||
      t->dtype.lanes != 1u || (t->data == NULL && t->shape[0] != 0)) {
    return NULL;
  }
  return t;
}

int32_t my_dot_s8(TVMValue *args, int *type_codes, int num_args, TVMValue *out_value,
                  int *out_type_code, void *resource_handle) {
  const DLTensor *a;
  const DLTensor *b;
  const DLTensor *out;
  const int8_t *x;
  const int8_t *y;
  int32_t sum = 0;
  int64_t i;
  (void)out_value;
  (void)out_type_code;
  (void)resource_handle;
  if (num_args != 3) {
    TVMAPISetLastError("my_dot_s8: expected 3 arguments (a, b, out)");
    return -1;
  }
  a = vector_arg(args, type_codes, 0, (uint8_t)kDLInt, 8u);
  b = vector_arg(args, type_codes, 1, (uint8_t)kDLInt, 8u);
  out = vector_arg(args, type_codes, 2, (uint8_t)kDLInt, 32u);
  if (a == NULL || b == NULL || out == NULL) {
    TVMAPISetLastError("my_dot_s8: a and b must be 1-D int8 tensors, out a 1-D int32 tensor");
    return -1;
  }
  if (a->shape[0] != b->shape[0] || out->shape[0] != 1 || a->shape[0] > MY_DOT_S8_MAX_LENGTH) {
    TVMAPISetLastError("my_dot_s8: a and b must have the same length (at most 65536), out 1");
    return -1;
  }
  x = (const int8_t *)a->data;
  y = (const int8_t *)b->data;
  for (i = 0; i < a->shape[0]; i++) {
    sum += (int32_t)x[i] * (int32_t)y[i];
  }
  *(int32_t *)out->data = sum;
  return 0;
}

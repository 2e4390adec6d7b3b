/* The examples' user function (dot_s8.c). */
#ifndef MY_DOT_S8_H
#define MY_DOT_S8_H

#include <stdint.h>

#include "tvm/runtime/c_backend_api.h"
#include "tvm/runtime/c_runtime_api.h"

/* Longest vectors: 65536 products of at most 128 * 128 fit an int32. */
#define MY_DOT_S8_MAX_LENGTH 65536

/* my_dot_s8(a, b, out): out[0] = sum of a[i] * b[i]; a, b int8 [n], out int32 [1]. 0, or -1
 * with a readable last error. */
int32_t my_dot_s8(TVMValue *args, int *type_codes, int num_args, TVMValue *out_value,
                  int *out_type_code, void *resource_handle);

/* The firmware's system library: the functions a host can call by name. */
#define MY_FUNCS(X) X(my_dot_s8)

#endif /* MY_DOT_S8_H */

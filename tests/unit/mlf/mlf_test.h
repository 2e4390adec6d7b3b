/*
 * What the Model Library Format test programs share (cmocka assertions; each program links one
 * archive's system library): reading a reference file, the system library and its functions.
 */
#ifndef UTVM_MLF_TEST_H
#define UTVM_MLF_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tvm/runtime/c_runtime_api.h"

/* Up to cap bytes of the file at path into buf; the count read. */
static inline size_t mlf_read_file(const char *path, uint8_t *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  size_t n = fread(buf, 1u, cap, f);
  (void)fclose(f);
  return n;
}

/* t as a CPU tensor of ndim dimensions (shape) of one-lane elements of DLPack type code and
 * bits over data. */
static inline void mlf_set_tensor(DLTensor *t, void *data, int64_t *shape, int32_t ndim,
                                  uint8_t code, uint8_t bits) {
  (void)memset(t, 0, sizeof(*t));
  t->data = data;
  t->device.device_type = kDLCPU;
  t->ndim = ndim;
  t->dtype.code = code;
  t->dtype.bits = bits;
  t->dtype.lanes = 1;
  t->shape = shape;
}

/* The linked archive's system library (runtime.SystemLib). */
static inline TVMModuleHandle mlf_system_lib(void) {
  TVMFunctionHandle get_lib = NULL;
  TVMValue ret;
  int code = 0;
  assert_int_equal(TVMFuncGetGlobal("runtime.SystemLib", &get_lib), 0);
  assert_int_equal(TVMFuncCall(get_lib, NULL, NULL, 0, &ret, &code), 0);
  return ret.v_handle;
}

/* Function name of the system library. */
static inline TVMFunctionHandle mlf_function(const char *name) {
  TVMFunctionHandle f = NULL;
  assert_int_equal(TVMModGetFunction(mlf_system_lib(), name, 1, &f), 0);
  return f;
}

#endif /* UTVM_MLF_TEST_H */

/*
 * System libraries from a list of C functions, without a hand-written names blob.
 *
 * A firmware lists its packed functions in an X-macro and expands UTVM_SYSTEM_LIB once, in one
 * source file:
 *
 *   #include "utvm/syslib.h"
 *   #define MY_FUNCS(X) X(my_dot_s8) X(my_add_f32)
 *   UTVM_SYSTEM_LIB(MY_FUNCS)
 *
 * which defines TVMSystemLibEntryPoint() returning a TVMModule whose TVMFuncRegistry
 * (PROTOCOL.md 5.5, <tvm/runtime/crt/module.h>) holds the names blob (u16 little-endian count,
 * each name NUL-terminated, a final NUL) and the function array, in the list's order. Checked
 * by the compiler: every name must be a declared function (an undeclared one is an error), a
 * name listed twice is an error (duplicate enumerator), the list must not be empty, and the
 * count and blob size must fit the runtime's limits. The count is derived from the list.
 * Lists nest: X(a) OTHER_LIST(X) X(b) adds OTHER_LIST's functions in place (UTVM_KFUNCS_LIST of
 * utvm/kfuncs.h adds the int8 kernel functions).
 *
 * Functions added at run time instead (for example after reading a configuration) are
 * registered with TVMFuncRegisterGlobal(name, func, 0) after utvm_rpc_server_init (or
 * utvm_crt_init): up to UTVM_CRT_MAX_GLOBAL_FUNCS of them, the name not copied (it must stay
 * valid), a name already registered an error unless override is non-zero. Hosts find both
 * kinds by name (TVM's get_function / utvm call); utvm info lists both.
 *
 * Each function has the packed-function signature of TVM's C code generator
 * (TVMBackendPackedCFunc, <tvm/runtime/c_runtime_api.h>; an int32_t result is accepted):
 *   int32_t f(TVMValue *args, int *type_codes, int num_args, TVMValue *out_value,
 *             int *out_type_code, void *resource_handle);
 * returning 0, or -1 after TVMAPISetLastError(message).
 */
#ifndef UTVM_SYSLIB_H
#define UTVM_SYSLIB_H

#include <stdint.h>

#include "tvm/runtime/c_runtime_api.h"
#include "tvm/runtime/crt/module.h"
#include "utvm/crt.h"

/* The number of functions in LIST, an integer constant expression (unsigned). */
#define UTVM_SYSLIB_COUNT(LIST) (0u LIST(UTVM_SYSLIB_ONE_))

/* Defines const TVMModule *entry(void), the module of the functions of LIST (an X-macro taking
 * one macro argument, applied to each function name). At most one UTVM_SYSLIB_MODULE (or
 * UTVM_SYSTEM_LIB) per source file: its helper names are fixed (utvm_syslib_*). Other modules
 * than the system library are registered with TVMModCreateFromCModule(entry(), &handle). */
#define UTVM_SYSLIB_MODULE(entry, LIST)                                                            \
  enum { LIST(UTVM_SYSLIB_ENUM_) utvm_syslib_names_end_ };                                         \
  typedef char utvm_syslib_check_count_[(UTVM_SYSLIB_COUNT(LIST) >= 1u &&                          \
                                         UTVM_SYSLIB_COUNT(LIST) <= UINT16_MAX) ? 1 : -1];         \
  static const TVMBackendPackedCFunc utvm_syslib_funcs_[] = {LIST(UTVM_SYSLIB_FUNC_)};             \
  static const struct {                                                                            \
    unsigned char count[2];                                                                        \
    char names[sizeof(LIST(UTVM_SYSLIB_NAME_))];                                                   \
  } utvm_syslib_names_ = {{(unsigned char)(UTVM_SYSLIB_COUNT(LIST) & 0xFFu),                      \
                           (unsigned char)(UTVM_SYSLIB_COUNT(LIST) >> 8)},                         \
                          LIST(UTVM_SYSLIB_NAME_)};                                                \
  typedef char utvm_syslib_check_blob_[(sizeof(utvm_syslib_names_) ==                              \
                                        2u + sizeof(LIST(UTVM_SYSLIB_NAME_)) &&                    \
                                        sizeof(utvm_syslib_names_) <=                              \
                                            UTVM_CRT_MAX_NAMES_BLOB_BYTES) ? 1 : -1];              \
  static const TVMFuncRegistry utvm_syslib_registry_ = {(const char *)&utvm_syslib_names_,         \
                                                        utvm_syslib_funcs_};                       \
  static const TVMModule utvm_syslib_module_ = {&utvm_syslib_registry_};                           \
  const TVMModule *entry(void);                                                                    \
  const TVMModule *entry(void) { return &utvm_syslib_module_; }                                    \
  typedef char utvm_syslib_check_end_

/* Defines TVMSystemLibEntryPoint(), the system library that utvm_rpc_server_init takes, from
 * LIST (see above). Use as a declaration: UTVM_SYSTEM_LIB(MY_FUNCS); */
#define UTVM_SYSTEM_LIB(LIST) UTVM_SYSLIB_MODULE(TVMSystemLibEntryPoint, LIST)

/* Per-function expansions (internal). */
#define UTVM_SYSLIB_ONE_(name) +1u
#define UTVM_SYSLIB_ENUM_(name) utvm_syslib_index_##name,
#define UTVM_SYSLIB_FUNC_(name) (TVMBackendPackedCFunc)(name),
#define UTVM_SYSLIB_NAME_(name) #name "\0"

#endif /* UTVM_SYSLIB_H */

/* Must not compile: a function listed twice in a system library (test_syslib_duplicate_name
 * checks that the compiler refuses it). */
#include "utvm/syslib.h"

int32_t sl_dup(TVMValue *args, int *type_codes, int num_args, TVMValue *out_value,
               int *out_type_code, void *resource_handle);

#define DUP_FUNCS(X) X(sl_dup) X(sl_dup)

UTVM_SYSTEM_LIB(DUP_FUNCS);

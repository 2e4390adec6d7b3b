/* Must not compile: a system library listing a function that is not declared
 * (test_syslib_undeclared_name checks that the compiler refuses it). */
#include "utvm/syslib.h"

#define UNDECLARED_FUNCS(X) X(sl_not_declared)

UTVM_SYSTEM_LIB(UNDECLARED_FUNCS);

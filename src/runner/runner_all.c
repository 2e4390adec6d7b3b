/*
 * The runner with every operator (utvm_op_resolver_all): utvm_runner_init and
 * utvm_runner_workspace_size. Apart from runner.c so that a firmware calling only
 * utvm_runner_init_with() with a resolver of its own never links the other operators.
 */
#include <stddef.h>

#include "utvm/runner.h"

size_t utvm_runner_workspace_size(const utvm_model_t *m) {
  return utvm_runner_workspace_size_with(m, &utvm_op_resolver_all);
}

utvm_err_t utvm_runner_init(utvm_runner_t *r, utvm_model_t *m, void *workspace,
                            size_t workspace_size, void *arena, size_t arena_size) {
  const utvm_runner_options_t options = {UTVM_KERNELS_NATIVE, false, &utvm_op_resolver_all,
                                         UTVM_RUNNER_PATCHES_OFF};
  return utvm_runner_init_with(r, m, workspace, workspace_size, arena, arena_size, &options);
}

/*
 * Finding an operator's descriptor in a resolver (utvm/ops.h). Apart from the operator table
 * (table.c) so that a firmware with a resolver of its own links neither the table nor the
 * operators it does not list.
 */
#include <stddef.h>
#include <stdint.h>

#include "utvm/ops.h"

const utvm_op_t *utvm_op_resolve(const utvm_op_resolver_t *resolver, int32_t code) {
  const utvm_op_t *found = NULL;
  uint32_t i;
  if ((resolver != NULL) && (resolver->ops != NULL)) {
    for (i = 0u; (i < resolver->count) && (found == NULL); i++) {
      if ((resolver->ops[i] != NULL) && (resolver->ops[i]->code == code)) {
        found = resolver->ops[i];
      }
    }
  }
  return found;
}

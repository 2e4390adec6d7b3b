/*
 * Workspace arena: LIFO allocator. Each allocation is preceded by an 8-byte header holding
 * the allocator's previous top and previous last-allocation offset (two uint32_t), so a free
 * restores the exact earlier state. The header ends at the aligned data start, so it is itself
 * 8-byte aligned. Offset 0 is never an allocation (the header comes first), which makes
 * last == 0 mean "empty".
 */
#include <stddef.h>
#include <stdint.h>

#include "utvm/crt.h"

#define HEADER_SIZE 8u

typedef char workspace_alignment_is_power_of_two[
    (UTVM_CRT_WORKSPACE_ALIGNMENT >= HEADER_SIZE &&
     (UTVM_CRT_WORKSPACE_ALIGNMENT & (UTVM_CRT_WORKSPACE_ALIGNMENT - 1u)) == 0u) ? 1 : -1];

/* The header of the allocation whose data starts at offset: previous top, previous last. */
static uint32_t *header_of(utvm_stack_allocator_t *sa, size_t offset) {
  return (uint32_t *)(void *)(sa->base + offset - HEADER_SIZE);
}

utvm_err_t utvm_stack_allocator_init(utvm_stack_allocator_t *sa, uint8_t *buffer, size_t size) {
  if (sa == NULL || (buffer == NULL && size != 0u)) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  sa->base = buffer;
  sa->size = (uint32_t)size;
  if ((size_t)sa->size != size) {
    sa->size = 0xFFFFFFFFu; /* larger than 4 GiB - 1: use that much */
  }
  utvm_stack_allocator_reset(sa);
  return UTVM_OK;
}

void utvm_stack_allocator_reset(utvm_stack_allocator_t *sa) {
  if (sa != NULL) {
    sa->top = 0u;
    sa->last = 0u;
  }
}

utvm_err_t utvm_stack_alloc(utvm_stack_allocator_t *sa, size_t nbytes, void **out) {
  size_t data_offset;
  uint32_t *header;
  if (sa == NULL || out == NULL) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  *out = NULL;
  /* With no arena (base NULL, size 0) no data offset fits. */
  data_offset = (size_t)sa->top + HEADER_SIZE +
                ((0u - ((uintptr_t)sa->base + sa->top + HEADER_SIZE)) &
                 (UTVM_CRT_WORKSPACE_ALIGNMENT - 1u));
  if (data_offset > sa->size || nbytes > sa->size - data_offset) {
    return UTVM_ERR_PLATFORM_NO_MEMORY;
  }
  header = header_of(sa, data_offset);
  header[0] = sa->top;
  header[1] = sa->last;
  sa->last = (uint32_t)data_offset;
  sa->top = (uint32_t)(data_offset + nbytes);
  *out = sa->base + data_offset;
  return UTVM_OK;
}

utvm_err_t utvm_stack_free(utvm_stack_allocator_t *sa, void *ptr) {
  const uint32_t *header;
  /* last == 0: nothing allocated (always so without an arena). */
  if (sa == NULL || sa->last == 0u || ptr != (void *)(sa->base + sa->last)) {
    return UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE;
  }
  header = header_of(sa, sa->last);
  /* A header overwritten by an overflowing earlier allocation must not move the stack. */
  if (header[0] > sa->last - HEADER_SIZE || header[1] > header[0] ||
      (header[1] != 0u && header[1] < HEADER_SIZE)) {
    return UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE;
  }
  sa->top = header[0];
  sa->last = header[1];
  return UTVM_OK;
}

size_t utvm_stack_used_bytes(const utvm_stack_allocator_t *sa) {
  return (sa == NULL) ? 0u : sa->top;
}

/*
 * Workspace arena: LIFO allocator. Each allocation is preceded by an 8-byte header holding
 * the allocator's previous top and previous last-allocation offset (two little-endian u32),
 * so a free restores the exact earlier state. Offset 0 is never an allocation (the header
 * comes first), which makes last == 0 mean "empty".
 */
#include <stddef.h>
#include <stdint.h>

#include "utvm/crt.h"

#define HEADER_SIZE 8u

typedef char workspace_alignment_is_power_of_two[
    (UTVM_CRT_WORKSPACE_ALIGNMENT >= HEADER_SIZE &&
     (UTVM_CRT_WORKSPACE_ALIGNMENT & (UTVM_CRT_WORKSPACE_ALIGNMENT - 1u)) == 0u) ? 1 : -1];

static void put_u32(uint8_t *dst, uint32_t value) {
  dst[0] = (uint8_t)(value & 0xFFu);
  dst[1] = (uint8_t)((value >> 8) & 0xFFu);
  dst[2] = (uint8_t)((value >> 16) & 0xFFu);
  dst[3] = (uint8_t)(value >> 24);
}

static uint32_t get_u32(const uint8_t *src) {
  return (uint32_t)src[0] | ((uint32_t)src[1] << 8) | ((uint32_t)src[2] << 16) |
         ((uint32_t)src[3] << 24);
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
  uintptr_t header_end;
  uintptr_t padding;
  size_t data_offset;
  if (sa == NULL || out == NULL) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  *out = NULL;
  if (sa->base == NULL) {
    return UTVM_ERR_PLATFORM_NO_MEMORY;
  }
  header_end = (uintptr_t)sa->base + sa->top + HEADER_SIZE;
  padding = (UTVM_CRT_WORKSPACE_ALIGNMENT - (header_end % UTVM_CRT_WORKSPACE_ALIGNMENT)) %
            UTVM_CRT_WORKSPACE_ALIGNMENT;
  data_offset = (size_t)sa->top + HEADER_SIZE + padding;
  if (data_offset > sa->size || nbytes > sa->size - data_offset) {
    return UTVM_ERR_PLATFORM_NO_MEMORY;
  }
  put_u32(sa->base + data_offset - HEADER_SIZE, sa->top);
  put_u32(sa->base + data_offset - HEADER_SIZE + 4u, sa->last);
  sa->last = (uint32_t)data_offset;
  sa->top = (uint32_t)(data_offset + nbytes);
  *out = sa->base + data_offset;
  return UTVM_OK;
}

utvm_err_t utvm_stack_free(utvm_stack_allocator_t *sa, void *ptr) {
  const uint8_t *header;
  uint32_t previous_top;
  uint32_t previous_last;
  if (sa == NULL || sa->base == NULL || sa->last == 0u || ptr != (void *)(sa->base + sa->last)) {
    return UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE;
  }
  header = sa->base + sa->last - HEADER_SIZE;
  previous_top = get_u32(header);
  previous_last = get_u32(header + 4u);
  /* A header overwritten by an overflowing earlier allocation must not move the stack. */
  if (previous_top > sa->last - HEADER_SIZE || previous_last > previous_top ||
      (previous_last != 0u && previous_last < HEADER_SIZE)) {
    return UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE;
  }
  sa->top = previous_top;
  sa->last = previous_last;
  return UTVM_OK;
}

size_t utvm_stack_used_bytes(const utvm_stack_allocator_t *sa) {
  return (sa == NULL) ? 0u : sa->top;
}

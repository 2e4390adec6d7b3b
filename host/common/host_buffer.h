/* The growable byte buffer of the host libraries: the link's messages and the compiler's texts
 * (host side only; the device libraries never allocate). Not installed. */
#ifndef UTVM_HOST_BUFFER_H
#define UTVM_HOST_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer; a zero-initialised one is empty. */
typedef struct {
  uint8_t *data;
  size_t len;
  size_t cap;
} host_buffer_t;

/* Makes room for extra more bytes without letting len exceed limit; false if that would
 * exceed limit or memory is exhausted (the buffer is then unchanged). */
bool host_buffer_reserve(host_buffer_t *b, size_t extra, size_t limit);

/* Appends n bytes (reserving as above); false on failure. */
bool host_buffer_append(host_buffer_t *b, const void *data, size_t n, size_t limit);

/* Releases the memory and empties the buffer. */
void host_buffer_free(host_buffer_t *b);

#endif /* UTVM_HOST_BUFFER_H */

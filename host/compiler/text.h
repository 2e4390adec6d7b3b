/* The growable texts the compiler writes its C, JSON and archives into (not installed). */
#ifndef UTVM_HOST_COMPILER_TEXT_H
#define UTVM_HOST_COMPILER_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "host_buffer.h"

/* Largest text a host_text_t holds (the bound of UTVM_EMIT_MAX_BYTES and UTVM_MLF_MAX_BYTES). */
#define HOST_TEXT_MAX_BYTES ((size_t)512u << 20)

/* A growable text on a host_buffer_t, always NUL-terminated after its bytes.len bytes. Once an
 * append fails (memory, or HOST_TEXT_MAX_BYTES), failed stays set and appends do nothing.
 * A zero-initialised host_text_t is empty. */
typedef struct {
  host_buffer_t bytes;
  bool failed;
} host_text_t;

/* Appends n bytes of data. */
void host_text_add(host_text_t *t, const void *data, size_t n);
/* Appends the printf-style formatted text. */
void host_text_printf(host_text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text ("" when nothing was appended). */
const char *host_text_str(const host_text_t *t);
/* Releases the memory and empties the text. */
void host_text_free(host_text_t *t);

#endif /* UTVM_HOST_COMPILER_TEXT_H */

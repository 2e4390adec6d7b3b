/* Growable texts of the compiler library, on the host libraries' byte buffer. */
#include "text.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Makes room for n more bytes and the terminating NUL. */
static bool text_reserve(host_text_t *t, size_t n) {
  if (!t->failed && ((n == SIZE_MAX) ||
                     !host_buffer_reserve(&t->bytes, n + 1u, HOST_TEXT_MAX_BYTES))) {
    t->failed = true;
  }
  return !t->failed;
}

void host_text_add(host_text_t *t, const void *data, size_t n) {
  if (text_reserve(t, n)) {
    if (n > 0u) {
      (void)memcpy(&t->bytes.data[t->bytes.len], data, n);
    }
    t->bytes.len += n;
    t->bytes.data[t->bytes.len] = 0u;
  }
}

void host_text_printf(host_text_t *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) {
    t->failed = true;
  } else if (text_reserve(t, (size_t)n)) {
    va_start(ap, fmt);
    (void)vsnprintf((char *)&t->bytes.data[t->bytes.len], (size_t)n + 1u, fmt, ap);
    va_end(ap);
    t->bytes.len += (size_t)n;
  }
}

const char *host_text_str(const host_text_t *t) {
  return (t->bytes.data != NULL) ? (const char *)t->bytes.data : "";
}

void host_text_free(host_text_t *t) {
  host_buffer_free(&t->bytes);
  t->failed = false;
}

/* Growable byte buffers of the host library. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"

bool host_buffer_reserve(host_buffer_t *b, size_t extra, size_t limit) {
  if ((b->len > limit) || (extra > (limit - b->len))) {
    return false;
  }
  size_t need = b->len + extra;
  if (need <= b->cap) {
    return true;
  }
  size_t cap = (b->cap < 256u) ? 256u : b->cap;
  while (cap < need) {
    cap *= 2u;
  }
  uint8_t *grown = (uint8_t *)realloc(b->data, cap);
  if (grown == NULL) {
    return false;
  }
  b->data = grown;
  b->cap = cap;
  return true;
}

bool host_buffer_append(host_buffer_t *b, const void *data, size_t n, size_t limit) {
  if (!host_buffer_reserve(b, n, limit)) {
    return false;
  }
  if (n > 0u) {
    (void)memcpy(&b->data[b->len], data, n);
  }
  b->len += n;
  return true;
}

void host_buffer_free(host_buffer_t *b) {
  free(b->data);
  b->data = NULL;
  b->len = 0u;
  b->cap = 0u;
}

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

/* Growable texts of the compiler library. */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Makes room for n more bytes and the terminating NUL (capacity doubled from 256 bytes). */
static bool text_reserve(host_text_t *t, size_t n) {
  if (t->failed) {
    return false;
  }
  if ((t->len >= HOST_TEXT_MAX_BYTES) || (n >= (HOST_TEXT_MAX_BYTES - t->len))) {
    t->failed = true;
    return false;
  }
  size_t need = t->len + n + 1u;
  if (need > t->cap) {
    size_t cap = (t->cap < 256u) ? 256u : t->cap;
    while (cap < need) {
      cap *= 2u;
    }
    char *grown = (char *)realloc(t->data, cap);
    if (grown == NULL) {
      t->failed = true;
      return false;
    }
    t->data = grown;
    t->cap = cap;
  }
  return true;
}

void host_text_add(host_text_t *t, const void *data, size_t n) {
  if (text_reserve(t, n)) {
    if (n > 0u) {
      (void)memcpy(&t->data[t->len], data, n);
    }
    t->len += n;
    t->data[t->len] = '\0';
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
    (void)vsnprintf(&t->data[t->len], (size_t)n + 1u, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
  }
}

const char *host_text_str(const host_text_t *t) { return (t->data != NULL) ? t->data : ""; }

void host_text_free(host_text_t *t) {
  free(t->data);
  t->data = NULL;
  t->len = 0u;
  t->cap = 0u;
  t->failed = false;
}

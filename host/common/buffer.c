/* Growable byte buffers of the host libraries (host_buffer.h). */
#include <stdlib.h>
#include <string.h>

#include "host_buffer.h"

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

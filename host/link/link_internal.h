/* Shared helpers of the link library (not installed). */
#ifndef UTVM_HOST_LINK_INTERNAL_H
#define UTVM_HOST_LINK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/host.h"

/* snprintf into buf (ignored when buf is NULL or size 0). */
void host_format(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Monotonic clock in milliseconds. */
int64_t host_now_ms(void);

/* A growable byte buffer (host side only; the device library never allocates). */
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

/* Opens a fault-injecting transport from "OPTIONS/INNER" (the text after "fault:"). */
utvm_host_err_t host_fault_open(const char *arg, utvm_host_transport_t *out, char *errbuf,
                                size_t errbuf_size);

#endif /* UTVM_HOST_LINK_INTERNAL_H */

/* Shared helpers of the link library (not installed). */
#ifndef UTVM_HOST_LINK_INTERNAL_H
#define UTVM_HOST_LINK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host_buffer.h"
#include "utvm/host.h"

/* snprintf into buf (ignored when buf is NULL or size 0). */
void host_format(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Monotonic clock in milliseconds. */
int64_t host_now_ms(void);

/* Opens a fault-injecting transport from "OPTIONS/INNER" (the text after "fault:"). */
utvm_host_err_t host_fault_open(const char *arg, utvm_host_transport_t *out, char *errbuf,
                                size_t errbuf_size);

#endif /* UTVM_HOST_LINK_INTERNAL_H */

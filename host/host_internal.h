/* Shared helpers of the host library (not installed). */
#ifndef UTVM_HOST_INTERNAL_H
#define UTVM_HOST_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "utvm/host.h"

/* snprintf into buf (ignored when buf is NULL or size 0). */
void host_format(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Monotonic clock in milliseconds. */
int64_t host_now_ms(void);

#endif /* UTVM_HOST_INTERNAL_H */

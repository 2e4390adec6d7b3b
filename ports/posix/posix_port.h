/* Glue between the POSIX port's main loop and its platform hooks. */
#ifndef UTVM_POSIX_PORT_H
#define UTVM_POSIX_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "utvm/error.h"

/* Writes every buffered output byte to stdout; returns 0, or -1 when stdout is gone. */
int posix_port_flush(void);

/* Sends text as a device Log message (best effort) and flushes. */
void posix_port_log(const char *text, size_t len);

/* The runtime's sleep hook (time evaluator cooldown): nanosleep for ms milliseconds. */
utvm_err_t posix_port_sleep_ms(uint32_t ms);

/* Starts the process afresh on the same stdin/stdout, like a device reboot; never returns. */
void posix_port_reboot(void) __attribute__((noreturn));

#endif /* UTVM_POSIX_PORT_H */

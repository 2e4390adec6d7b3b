/*
 * Last-error text: a fixed buffer in the active runtime, always NUL-terminated, truncating.
 */
#include <stddef.h>
#include <stdint.h>

#include "crt_internal.h"

static const char kNotInitialised[] = "utvm_crt: runtime not initialised";

/* Appends text after the first `start` bytes of the buffer (truncating). */
static void write_from(utvm_crt_t *crt, size_t start, const char *text) {
  size_t i = start;
  size_t k = 0u;
  if (text != NULL) {
    while (i + 1u < UTVM_CRT_LAST_ERROR_SIZE && text[k] != '\0') {
      crt->last_error[i] = text[k];
      i++;
      k++;
    }
  }
  crt->last_error[i] = '\0';
}

static size_t current_length(const utvm_crt_t *crt) {
  size_t n = 0u;
  while (n + 1u < UTVM_CRT_LAST_ERROR_SIZE && crt->last_error[n] != '\0') {
    n++;
  }
  return n;
}

void utvm_crt_error_set(const char *text) {
  utvm_crt_t *crt = utvm_crt_active();
  if (crt != NULL) {
    write_from(crt, 0u, text);
  }
}

void utvm_crt_error_append(const char *text) {
  utvm_crt_t *crt = utvm_crt_active();
  if (crt != NULL) {
    write_from(crt, current_length(crt), text);
  }
}

void utvm_crt_error_append_hex(uint64_t value) {
  static const char kDigits[] = "0123456789abcdef";
  char text[19];
  size_t digits = (value > 0xFFFFFFFFu) ? 16u : 8u;
  size_t i;
  text[0] = '0';
  text[1] = 'x';
  for (i = 0u; i < digits; i++) {
    text[2u + i] = kDigits[(value >> (4u * (digits - 1u - i))) & 0xFu];
  }
  text[2u + digits] = '\0';
  utvm_crt_error_append(text);
}

int utvm_crt_error_is_empty(void) {
  utvm_crt_t *crt = utvm_crt_active();
  return crt == NULL || crt->last_error[0] == '\0';
}

void TVMAPISetLastError(const char *msg) {
  utvm_crt_t *crt = utvm_crt_active();
  /* msg may be the buffer itself or point into it: copying forwards is safe then. */
  if (crt != NULL && msg != crt->last_error) {
    write_from(crt, 0u, msg);
  }
}

const char *TVMGetLastError(void) {
  utvm_crt_t *crt = utvm_crt_active();
  return (crt == NULL) ? kNotInitialised : crt->last_error;
}

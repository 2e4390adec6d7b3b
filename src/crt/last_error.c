/*
 * Last-error text: a fixed buffer in the active runtime, always NUL-terminated, truncating.
 */
#include <stddef.h>
#include <stdint.h>

#include "crt_internal.h"

static const char kNotInitialised[] = "utvm_crt: runtime not initialised";

/* Writes text into the last error of the active runtime, after its current text when append
 * != 0 and from the start otherwise (truncating; a NULL text writes nothing). */
static void write_text(const char *text, int append) {
  utvm_crt_t *crt = utvm_crt_active();
  if (crt != NULL) {
    char *out = crt->last_error;
    const char *const last = &crt->last_error[UTVM_CRT_LAST_ERROR_SIZE - 1u];
    const char *next = (text == NULL) ? "" : text;
    while ((append != 0) && (out < last) && (*out != '\0')) {
      out++;
    }
    while ((out < last) && (*next != '\0')) {
      *out = *next;
      out++;
      next++;
    }
    *out = '\0';
  }
}

void utvm_crt_error_set(const char *text) { write_text(text, 0); }

void utvm_crt_error_append(const char *text) { write_text(text, 1); }

void utvm_crt_error_append_hex(uint64_t value) {
  char text[19];
  uint64_t rest = value;
  size_t i = (value > 0xFFFFFFFFu) ? 18u : 10u;
  text[0] = '0';
  text[1] = 'x';
  text[i] = '\0';
  while (i > 2u) {
    uint32_t nibble = (uint32_t)rest & 0xFu;
    i--;
    text[i] = (char)((nibble < 10u) ? (nibble + (uint32_t)'0') : (nibble + ((uint32_t)'a' - 10u)));
    rest >>= 4u;
  }
  write_text(text, 1);
}

int utvm_crt_fail(const char *text) {
  write_text(text, 0);
  return -1;
}

int utvm_crt_fail_name(const char *text, const char *name) {
  write_text(text, 0);
  write_text(name, 1);
  return -1;
}

int utvm_crt_fail_hex(const char *text, uint64_t value) {
  write_text(text, 0);
  utvm_crt_error_append_hex(value);
  return -1;
}

int utvm_crt_error_is_empty(void) {
  utvm_crt_t *crt = utvm_crt_active();
  return (crt == NULL) || (crt->last_error[0] == '\0');
}

void TVMAPISetLastError(const char *msg) {
  /* msg may be the buffer itself (copied onto itself unchanged) or point into it (copying
   * forwards is safe then). */
  write_text(msg, 0);
}

const char *TVMGetLastError(void) {
  utvm_crt_t *crt = utvm_crt_active();
  return (crt == NULL) ? kNotInitialised : crt->last_error;
}

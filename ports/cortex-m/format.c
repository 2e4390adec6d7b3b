/* Tiny text formatting for the port's log messages and TVMPlatformFormatMessage (no printf
 * family: it would cost several kilobytes of flash). */
#include <stdarg.h>

#include "port.h"
#include "tvm/runtime/crt/platform.h"

static void append_char(char *text, size_t size, size_t *len, char c) {
  if (*len < size) {
    text[*len] = c;
    *len += 1u;
  }
}

void utvm_port_append_str(char *text, size_t size, size_t *len, const char *s) {
  for (size_t i = 0u; (s[i] != '\0') && (*len < size); i++) {
    append_char(text, size, len, s[i]);
  }
}

void utvm_port_append_hex(char *text, size_t size, size_t *len, uint32_t value) {
  static const char digits[] = "0123456789abcdef";
  append_char(text, size, len, '0');
  append_char(text, size, len, 'x');
  for (uint32_t shift = 32u; shift > 0u; shift -= 4u) {
    append_char(text, size, len, digits[(value >> (shift - 4u)) & 0xFu]);
  }
}

void utvm_port_append_dec(char *text, size_t size, size_t *len, uint32_t value) {
  char reversed[10];
  size_t n = 0u;
  do {
    reversed[n] = (char)('0' + (value % 10u));
    n++;
    value /= 10u;
  } while ((value != 0u) && (n < sizeof(reversed)));
  while (n > 0u) {
    n--;
    append_char(text, size, len, reversed[n]);
  }
}

/* Supports %s, %c, %d, %i, %u, %x, %p and %% (%x and %p print "0x" and 8 hex digits); any
 * other conversion character is copied literally. No width or precision; a "l" length
 * modifier is accepted and ignored (long is 32 bits here). */
size_t TVMPlatformFormatMessage(char *out_buf, size_t out_buf_size_bytes, const char *fmt,
                                va_list args) {
  size_t len = 0u;
  if ((out_buf == NULL) || (out_buf_size_bytes == 0u)) {
    return 0u;
  }
  size_t size = out_buf_size_bytes - 1u; /* room for the terminator */
  for (size_t i = 0u; (fmt[i] != '\0') && (len < size); i++) {
    if (fmt[i] != '%') {
      append_char(out_buf, size, &len, fmt[i]);
      continue;
    }
    i++;
    if (fmt[i] == 'l') {
      i++;
    }
    switch (fmt[i]) {
      case 's': {
        const char *s = va_arg(args, const char *);
        utvm_port_append_str(out_buf, size, &len, (s != NULL) ? s : "(null)");
        break;
      }
      case 'c':
        append_char(out_buf, size, &len, (char)va_arg(args, int));
        break;
      case 'd':
      case 'i': {
        int v = va_arg(args, int);
        uint32_t magnitude = (uint32_t)v;
        if (v < 0) {
          append_char(out_buf, size, &len, '-');
          magnitude = 0u - magnitude;
        }
        utvm_port_append_dec(out_buf, size, &len, magnitude);
        break;
      }
      case 'u':
        utvm_port_append_dec(out_buf, size, &len, va_arg(args, unsigned int));
        break;
      case 'x':
        utvm_port_append_hex(out_buf, size, &len, va_arg(args, unsigned int));
        break;
      case 'p':
        utvm_port_append_hex(out_buf, size, &len, (uint32_t)(uintptr_t)va_arg(args, void *));
        break;
      case '\0':
        i--; /* a lone '%' at the end */
        break;
      default:
        append_char(out_buf, size, &len, fmt[i]);
        break;
    }
  }
  out_buf[len] = '\0';
  return len;
}

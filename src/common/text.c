/* The bounded text builder (utvm/text.h). */
#include "utvm/text.h"

void utvm_text_init(utvm_text_t *t, char *buf, size_t cap) {
  t->buf = (cap > 0u) ? buf : NULL;
  t->cap = cap;
  t->len = 0u;
  t->needed = 0u;
  if (t->buf != NULL) {
    t->buf[0] = '\0';
  }
}

void utvm_text_resume(utvm_text_t *t, char *buf, size_t cap) {
  utvm_text_init(t, NULL, 0u);
  if ((buf != NULL) && (cap > 0u)) {
    size_t n = 0u;
    while (((n + 1u) < cap) && (buf[n] != '\0')) {
      n++;
    }
    buf[n] = '\0';
    t->buf = buf;
    t->cap = cap;
    t->len = n;
    t->needed = n;
  }
}

void utvm_text_char(utvm_text_t *t, char c) {
  if ((t->buf != NULL) && ((t->len + 1u) < t->cap)) {
    t->buf[t->len] = c;
    t->len++;
    t->buf[t->len] = '\0';
  }
  t->needed++;
}

void utvm_text_str(utvm_text_t *t, const char *s) {
  if (s != NULL) {
    for (size_t i = 0u; s[i] != '\0'; i++) {
      utvm_text_char(t, s[i]);
    }
  }
}

/* Appends the digits of v in base (10 or 16). */
static void text_digits(utvm_text_t *t, uint64_t v, uint32_t base) {
  static const char kDigits[] = "0123456789abcdef";
  char digits[20];
  uint32_t n = 0u;
  uint64_t x = v;
  do {
    digits[n] = kDigits[x % base];
    n++;
    x /= base;
  } while ((x != 0u) && (n < 20u));
  while (n > 0u) {
    n--;
    utvm_text_char(t, digits[n]);
  }
}

void utvm_text_u64(utvm_text_t *t, uint64_t v) { text_digits(t, v, 10u); }

void utvm_text_i64(utvm_text_t *t, int64_t v) {
  if (v < 0) {
    utvm_text_char(t, '-');
    text_digits(t, 0u - (uint64_t)v, 10u);
  } else {
    text_digits(t, (uint64_t)v, 10u);
  }
}

void utvm_text_hex(utvm_text_t *t, uint64_t v) {
  utvm_text_str(t, "0x");
  text_digits(t, v, 16u);
}

void utvm_text_dims(utvm_text_t *t, uint32_t rank, const int32_t *dims) {
  utvm_text_char(t, '[');
  for (uint32_t i = 0u; (i < rank) && (i < UTVM_TEXT_MAX_DIMS); i++) {
    if (i > 0u) {
      utvm_text_char(t, ',');
    }
    utvm_text_i64(t, (int64_t)dims[i]);
  }
  utvm_text_char(t, ']');
}

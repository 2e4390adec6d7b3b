/* Error texts of the runner: a bounded string builder (no printf on the device). */
#include <stddef.h>
#include <stdint.h>

#include "runner_internal.h"

void runner_text_init(runner_text_t *t, char *buf, size_t cap) {
  t->buf = buf;
  t->len = 0u;
  t->cap = cap;
  if ((buf != NULL) && (cap > 0u)) {
    buf[0] = '\0';
  }
}

static void runner_text_char(runner_text_t *t, char c) {
  if ((t->buf != NULL) && ((t->len + 1u) < t->cap)) {
    t->buf[t->len] = c;
    t->len++;
    t->buf[t->len] = '\0';
  }
}

void runner_text_str(runner_text_t *t, const char *s) {
  size_t i;
  if (s != NULL) {
    /* Bounded by the capacity: characters past it are dropped. */
    for (i = 0u; (s[i] != '\0') && ((t->len + 1u) < t->cap); i++) {
      runner_text_char(t, s[i]);
    }
  }
}

void runner_text_u64(runner_text_t *t, uint64_t v) {
  static const char dec[] = "0123456789";
  char digits[20];
  uint32_t n = 0u;
  uint64_t x = v;
  do {
    digits[n] = dec[x % 10u];
    n++;
    x /= 10u;
  } while ((x != 0u) && (n < 20u));
  while (n > 0u) {
    n--;
    runner_text_char(t, digits[n]);
  }
}

void runner_text_i32(runner_text_t *t, int32_t v) {
  if (v < 0) {
    const uint32_t magnitude = 0u - (uint32_t)v;
    runner_text_char(t, '-');
    runner_text_u64(t, (uint64_t)magnitude);
  } else {
    runner_text_u64(t, (uint64_t)v);
  }
}

void runner_text_dims(runner_text_t *t, uint32_t rank, const int32_t *dims) {
  uint32_t i;
  runner_text_char(t, '[');
  for (i = 0u; (i < rank) && (i < UTVM_MODEL_MAX_DIMS); i++) {
    if (i > 0u) {
      runner_text_char(t, ',');
    }
    runner_text_i32(t, dims[i]);
  }
  runner_text_char(t, ']');
}

void runner_text_operator(runner_text_t *t, uint32_t index, int32_t code) {
  runner_text_str(t, "operator ");
  runner_text_u64(t, (uint64_t)index);
  runner_text_str(t, " (");
  runner_text_str(t, utvm_model_op_name(code));
  runner_text_str(t, "): ");
}

const char *runner_type_name(utvm_model_type_t type) {
  const char *name;
  switch (type) {
    case UTVM_MODEL_FLOAT32: name = "float32"; break;
    case UTVM_MODEL_INT32: name = "int32"; break;
    case UTVM_MODEL_UINT8: name = "uint8"; break;
    case UTVM_MODEL_INT64: name = "int64"; break;
    case UTVM_MODEL_BOOL: name = "bool"; break;
    case UTVM_MODEL_INT16: name = "int16"; break;
    case UTVM_MODEL_INT8: name = "int8"; break;
    default: name = "?"; break;
  }
  return name;
}

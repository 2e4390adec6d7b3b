/*
 * Last-error text: a fixed buffer in the active runtime, always NUL-terminated, truncating.
 * Errors of the device stack are composed from the ids of utvm/error_texts.h: written as their
 * texts, or as "#<id>" tokens with UTVM_NO_ERROR_TEXTS (the host expands them).
 */
#include <stddef.h>
#include <stdint.h>

#include "crt_internal.h"

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

#ifdef UTVM_NO_ERROR_TEXTS
/* Texts are not kept: ids are written as tokens. */
static const char kCrtTexts[] = "";
static const char kNotInitialised[] = "#000";
typedef char check_not_initialised_id[(UTVM_TEXT_NOT_INITIALISED == 0) ? 1 : -1];
#else
/* The texts of UTVM_CRT_TEXT_LIST, each NUL-terminated, in id order, a UTVM_TEXT_OWN entry's
 * as an empty string. The first is UTVM_TEXT_NOT_INITIALISED. */
#define UTVM_TEXT(id, text) text
#define UTVM_TEXT_OWN(id, text) "\0"
static const char kCrtTexts[] = UTVM_CRT_TEXT_LIST;
static const char *const kNotInitialised = kCrtTexts;
#undef UTVM_TEXT
#undef UTVM_TEXT_OWN
/* The texts of the UTVM_TEXT_OWN entries, one object each (without the list's second NUL). */
#define UTVM_TEXT(id, text)
#define UTVM_TEXT_OWN(id, text) const char utvm_crt_text_##id[sizeof(text) - 1u] = text;
UTVM_CRT_TEXT_LIST
#undef UTVM_TEXT
#undef UTVM_TEXT_OWN
#endif

/* Writes the text of id (texts as for utvm_crt_error_append_id) into the last error, after
 * its current text when append != 0 and replacing it otherwise. */
static void write_id_text(utvm_text_id_t id, const char *texts, size_t texts_size, int append) {
#ifdef UTVM_NO_ERROR_TEXTS
  uint32_t value = (uint32_t)id;
  char token[UTVM_TEXT_TOKEN_DIGITS + 2];
  token[0] = '#';
  for (uint32_t i = UTVM_TEXT_TOKEN_DIGITS; i > 0u; i--) {
    token[i] = (char)((value % 10u) + (uint32_t)'0');
    value /= 10u;
  }
  token[UTVM_TEXT_TOKEN_DIGITS + 1] = '\0';
  (void)texts;
  (void)texts_size;
  write_text(token, append);
#else
  /* The index-th string of texts, counted from the first id of id's library. */
  uint32_t index = (uint32_t)id;
  uint32_t pos = 0u;
  uint32_t skipped = 0u;
  if (index >= (uint32_t)UTVM_TEXT_RPC_FIRST_ID) {
    index -= (uint32_t)UTVM_TEXT_RPC_FIRST_ID;
  }
  for (size_t i = 0u; (i < texts_size) && (skipped < index); i++) {
    if (texts[i] == '\0') {
      skipped++;
      pos = (uint32_t)i + 1u;
    }
  }
  write_text((pos < texts_size) ? &texts[pos] : NULL, append);
#endif
}

void utvm_crt_error_append_id(utvm_text_id_t id, const char *texts, size_t texts_size) {
  write_id_text(id, texts, texts_size, 1);
}

void utvm_crt_error_append_text(utvm_text_id_t id) {
  write_id_text(id, kCrtTexts, sizeof(kCrtTexts), 1);
}

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

int utvm_crt_fail(utvm_text_id_t id) {
  write_id_text(id, kCrtTexts, sizeof(kCrtTexts), 0);
  return -1;
}

int utvm_crt_fail_name(utvm_text_id_t id, const char *name) {
  (void)utvm_crt_fail(id);
  write_text(name, 1);
  return -1;
}

int utvm_crt_fail_hex(utvm_text_id_t id, uint64_t value) {
  (void)utvm_crt_fail(id);
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

/* Writes the text of a UTVM_TEXT_OWN entry into the last error, after its current text when
 * append != 0 and replacing it otherwise. */
static void write_own_text(utvm_crt_own_text_t text, int append) {
#ifdef UTVM_NO_ERROR_TEXTS
  write_id_text(text, kCrtTexts, sizeof(kCrtTexts), append);
#else
  write_text(text, append);
#endif
}

int utvm_crt_fail_own(utvm_crt_own_text_t text) {
  write_own_text(text, 0);
  return -1;
}

int utvm_crt_fail_own_name(utvm_crt_own_text_t text, const char *name) {
  write_own_text(text, 0);
  write_text(name, 1);
  return -1;
}

int utvm_crt_fail_own_hex(utvm_crt_own_text_t text, uint64_t value) {
  write_own_text(text, 0);
  utvm_crt_error_append_hex(value);
  return -1;
}

void utvm_crt_error_append_own(utvm_crt_own_text_t text) { write_own_text(text, 1); }

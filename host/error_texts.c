/* Expansion of the "#<id>" tokens a device built with UTVM_ERROR_TEXTS=OFF writes into its
 * exception texts (utvm/error_texts.h). */
#include <string.h>

#include "utvm/error_texts.h"
#include "utvm/host.h"

/* The texts by id (each string ends at the "\0" of its entry). */
#define UTVM_TEXT(id, text) text,
static const char *const kTexts[UTVM_TEXT_COUNT] = {UTVM_TEXT_LIST};

/* The id of the token at text ('#' and UTVM_TEXT_TOKEN_DIGITS digits naming a known text), or
 * UTVM_TEXT_COUNT when text does not start with one. */
static size_t token_id(const char *text) {
  size_t id = 0u;
  if (text[0] != '#') {
    return UTVM_TEXT_COUNT;
  }
  for (size_t i = 1u; i <= UTVM_TEXT_TOKEN_DIGITS; i++) {
    if ((text[i] < '0') || (text[i] > '9')) {
      return UTVM_TEXT_COUNT;
    }
    id = (id * 10u) + (size_t)(text[i] - '0');
  }
  return (id < UTVM_TEXT_COUNT) ? id : UTVM_TEXT_COUNT;
}

size_t utvm_host_expand_error(const char *text, char *out, size_t out_size) {
  size_t len = 0u;
  if ((out == NULL) || (out_size == 0u)) {
    return 0u;
  }
  const char *p = (text != NULL) ? text : "";
  while ((*p != '\0') && (len + 1u < out_size)) {
    size_t id = token_id(p);
    const char *piece = p;
    size_t piece_len = 1u;
    if (id < UTVM_TEXT_COUNT) {
      piece = kTexts[id];
      piece_len = strlen(piece);
      p += 1u + UTVM_TEXT_TOKEN_DIGITS;
    } else {
      p++;
    }
    if (piece_len > out_size - 1u - len) {
      piece_len = out_size - 1u - len;
    }
    (void)memcpy(&out[len], piece, piece_len);
    len += piece_len;
  }
  out[len] = '\0';
  return len;
}

/* Expansion of the "#<id>" tokens a device built with UTVM_ERROR_TEXTS=OFF writes into its
 * exception texts (utvm/error_texts.h). */
#include <string.h>

#include "utvm/error_texts.h"
#include "utvm/host.h"

/* The texts by id of each library (each string ends at the "\0" of its entry). */
#define UTVM_TEXT(id, text) text,
static const char *const kCrtTexts[] = {UTVM_CRT_TEXT_LIST};
static const char *const kRpcTexts[] = {UTVM_RPC_TEXT_LIST};
#define CRT_COUNT (sizeof(kCrtTexts) / sizeof(kCrtTexts[0]))
#define RPC_COUNT (sizeof(kRpcTexts) / sizeof(kRpcTexts[0]))

/* The text of the token at p ('#' and UTVM_TEXT_TOKEN_DIGITS digits naming a known text), or
 * NULL when p does not start with one. */
static const char *token_text(const char *p) {
  size_t id = 0u;
  if (p[0] != '#') {
    return NULL;
  }
  for (size_t i = 1u; i <= UTVM_TEXT_TOKEN_DIGITS; i++) {
    if ((p[i] < '0') || (p[i] > '9')) {
      return NULL;
    }
    id = (id * 10u) + (size_t)(p[i] - '0');
  }
  if (id < CRT_COUNT) {
    return kCrtTexts[id];
  }
  if ((id >= UTVM_TEXT_RPC_FIRST_ID) && (id - UTVM_TEXT_RPC_FIRST_ID < RPC_COUNT)) {
    return kRpcTexts[id - UTVM_TEXT_RPC_FIRST_ID];
  }
  return NULL;
}

size_t utvm_host_expand_error(const char *text, char *out, size_t out_size) {
  size_t len = 0u;
  if ((out == NULL) || (out_size == 0u)) {
    return 0u;
  }
  const char *p = (text != NULL) ? text : "";
  while ((*p != '\0') && (len + 1u < out_size)) {
    const char *piece = token_text(p);
    size_t piece_len = 1u;
    if (piece != NULL) {
      piece_len = strlen(piece);
      p += 1u + UTVM_TEXT_TOKEN_DIGITS;
    } else {
      piece = p;
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

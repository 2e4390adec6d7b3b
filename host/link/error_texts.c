/* Expansion of the "#<id>" tokens a device built with UTVM_ERROR_TEXTS=OFF writes into its
 * exception texts (utvm/error_texts.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utvm/error_texts.h"
#include "utvm/host.h"

/* The texts by id of each library (each string ends at the "\0" of its entry). */
#define UTVM_TEXT(id, text) text,
#define UTVM_TEXT_OWN(id, text) text,
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

/* Texts after which the device writes a byte count in hex, and what the host writes
 * instead before the count (in decimal with thousands separators, then the hex in brackets). */
static const struct {
  const char *device;
  const char *host;
} kByteCounts[] = {{"tensor arena full, bytes ", "tensor arena full: need "},
                   {"workspace arena full, bytes ", "workspace arena full: need "},
                   {", largest free ", ", largest free "}};

/* True if out[0, len) ends with text. */
static bool ends_with(const char *out, size_t len, const char *text) {
  size_t tlen = strlen(text);
  return (len >= tlen) && (strncmp(&out[len - tlen], text, tlen) == 0);
}

/* Adds the snprintf result of w characters at out[*len] to *len, clamped to what fit. */
static void advance(size_t out_size, size_t *len, int w) {
  if (w > 0) {
    *len = ((size_t)w < out_size - *len) ? *len + (size_t)w : out_size - 1u;
  }
}

/* Platform error codes the host explains after the device's hex value. */
static const struct {
  const char *device;
  const char *explanation;
} kPlatformCodes[] = {
    {"platform hook error 0x000005f0",
     " (timer not running: TVMPlatformInitialize not called? A timer that reads 0 ns for calls "
     "that ran is not used)"}};

/* If out[0, *len) ends with one of kPlatformCodes' device texts, appends its explanation. */
static void explain_platform_code(char *out, size_t out_size, size_t *len) {
  for (size_t k = 0u; k < sizeof(kPlatformCodes) / sizeof(kPlatformCodes[0]); k++) {
    if (ends_with(out, *len, kPlatformCodes[k].device)) {
      advance(out_size, len,
              snprintf(&out[*len], out_size - *len, "%s", kPlatformCodes[k].explanation));
    }
  }
}

/* If out[0, *len) ends with one of kByteCounts' device texts and *p starts a hex count, rewrites
 * that text, writes the count as "300,032 bytes (0x00049400)" and moves *p past it. */
static void rewrite_byte_count(char *out, size_t out_size, size_t *len, const char **p) {
  for (size_t k = 0u; k < sizeof(kByteCounts) / sizeof(kByteCounts[0]); k++) {
    if (!ends_with(out, *len, kByteCounts[k].device) || (strncmp(*p, "0x", 2u) != 0)) {
      continue;
    }
    char *end = NULL;
    unsigned long long count = strtoull(*p + 2, &end, 16);
    if (end == *p + 2) {
      return;
    }
    char digits[32];
    char grouped[48];
    int n = snprintf(digits, sizeof(digits), "%llu", count);
    size_t g = 0u;
    for (int i = 0; i < n; i++) {
      if ((i > 0) && (((n - i) % 3) == 0)) {
        grouped[g++] = ',';
      }
      grouped[g++] = digits[i];
    }
    grouped[g] = '\0';
    *len -= strlen(kByteCounts[k].device);
    advance(out_size, len, snprintf(&out[*len], out_size - *len, "%s%s bytes (%.*s)",
                                    kByteCounts[k].host, grouped, (int)(end - *p), *p));
    *p = end;
    return;
  }
}

size_t utvm_host_expand_error(const char *text, char *out, size_t out_size) {
  size_t len = 0u;
  if ((out == NULL) || (out_size == 0u)) {
    return 0u;
  }
  const char *p = (text != NULL) ? text : "";
  while ((*p != '\0') && (len + 1u < out_size)) {
    rewrite_byte_count(out, out_size, &len, &p);
    if ((*p == '\0') || (len + 1u >= out_size)) {
      break;
    }
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
  explain_platform_code(out, out_size, &len);
  out[len] = '\0';
  return len;
}

/*
 * utvm text: the one bounded text builder of the device libraries (no printf on the device).
 * A text is built in a caller-owned buffer and cut at its capacity: characters past cap - 1 are
 * dropped, the buffer always ends with a NUL, and `needed` counts every character appended,
 * stored or not, so a caller can measure a text (buf NULL) before giving it room.
 */
#ifndef UTVM_TEXT_H
#define UTVM_TEXT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most dimensions utvm_text_dims writes. */
#define UTVM_TEXT_MAX_DIMS 16u

/* A text being built; fields read-only for the caller. */
typedef struct {
  char *buf;     /* NULL: nothing is stored, characters are only counted */
  size_t cap;    /* bytes of buf, NUL included */
  size_t len;    /* characters stored, NUL excluded */
  size_t needed; /* characters appended, stored or not */
} utvm_text_t;

/* Starts an empty text in buf[cap] (buf may be NULL, or cap 0: then it only counts). */
void utvm_text_init(utvm_text_t *t, char *buf, size_t cap);
/* Continues the NUL-terminated text already in buf[cap] (at most cap - 1 characters of it). */
void utvm_text_resume(utvm_text_t *t, char *buf, size_t cap);

/* Appends one character, a string (NULL appends nothing), an unsigned or signed decimal, "0x"
 * and the hex digits of v without leading zeros, or a shape "[1,2,3]" (at most
 * UTVM_TEXT_MAX_DIMS of its rank dimensions). */
void utvm_text_char(utvm_text_t *t, char c);
void utvm_text_str(utvm_text_t *t, const char *s);
void utvm_text_u64(utvm_text_t *t, uint64_t v);
void utvm_text_i64(utvm_text_t *t, int64_t v);
void utvm_text_hex(utvm_text_t *t, uint64_t v);
void utvm_text_dims(utvm_text_t *t, uint32_t rank, const int32_t *dims);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_TEXT_H */

/*
 * Input layout shared by the utvm fuzz targets, so that one seed corpus serves all of them:
 *
 *   byte 0   chunking: bits 0-6 give the largest chunk handed to one feed call (0: the whole
 *            stream in a single call); bit 7 is a fault flag whose meaning each target defines
 *   byte 1   a parameter whose meaning each target defines (e.g. a nonce or a size limit)
 *   byte 2.. the byte stream fed to the decoder under test
 *
 * Chunk sizes between 1 and the limit are drawn from a small generator seeded by bytes 0-1,
 * so the fuzzer controls the chunking through two bytes without spending stream bytes on it.
 */
#ifndef UTVM_FUZZ_INPUT_H
#define UTVM_FUZZ_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_HEADER_SIZE 2u
#define FUZZ_CHUNK_LIMIT_MASK 0x7Fu
#define FUZZ_FAULT_FLAG 0x80u

/* Aborts (so libFuzzer records a crash) when cond is false. */
#define FUZZ_CHECK(cond)                                                      \
  do {                                                                        \
    if (!(cond)) {                                                            \
      (void)fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      abort();                                                                \
    }                                                                         \
  } while (0)

typedef struct {
  const uint8_t *stream; /* bytes after the header */
  size_t size;
  size_t pos;
  uint32_t rng;
  uint8_t chunk_limit;   /* 0: one chunk */
  bool fault;
  uint8_t param;
} fuzz_input_t;

/* Splits data into header and stream; returns false if data is shorter than the header. */
static inline bool fuzz_input_init(fuzz_input_t *in, const uint8_t *data, size_t size) {
  if (size < FUZZ_HEADER_SIZE) {
    return false;
  }
  in->stream = &data[FUZZ_HEADER_SIZE];
  in->size = size - FUZZ_HEADER_SIZE;
  in->pos = 0u;
  in->chunk_limit = (uint8_t)(data[0] & FUZZ_CHUNK_LIMIT_MASK);
  in->fault = (data[0] & FUZZ_FAULT_FLAG) != 0u;
  in->param = data[1];
  in->rng = 0x9E3779B9u ^ ((uint32_t)data[0] << 8) ^ (uint32_t)data[1];
  return true;
}

/* Returns the length of the next chunk (0 when the stream is used up) and its start. */
static inline size_t fuzz_input_next_chunk(fuzz_input_t *in, const uint8_t **chunk) {
  size_t left = in->size - in->pos;
  size_t n = left;
  if ((in->chunk_limit != 0u) && (left > 0u)) {
    in->rng ^= in->rng << 13;
    in->rng ^= in->rng >> 17;
    in->rng ^= in->rng << 5;
    n = 1u + (size_t)(in->rng % in->chunk_limit);
    if (n > left) {
      n = left;
    }
  }
  *chunk = &in->stream[in->pos];
  in->pos += n;
  return n;
}

/* A growable byte buffer for the harnesses (test code may allocate). */
typedef struct {
  uint8_t *data;
  size_t len;
  size_t cap;
} fuzz_bytes_t;

static inline void fuzz_bytes_append(fuzz_bytes_t *b, const uint8_t *data, size_t n) {
  if (b->len + n > b->cap) {
    size_t cap = (b->cap == 0u) ? 256u : b->cap;
    while (cap < b->len + n) {
      cap *= 2u;
    }
    uint8_t *grown = (uint8_t *)realloc(b->data, cap);
    FUZZ_CHECK(grown != NULL);
    b->data = grown;
    b->cap = cap;
  }
  if (n > 0u) {
    (void)memcpy(&b->data[b->len], data, n);
    b->len += n;
  }
}

static inline void fuzz_bytes_free(fuzz_bytes_t *b) {
  free(b->data);
  b->data = NULL;
  b->len = 0u;
  b->cap = 0u;
}

#endif /* UTVM_FUZZ_INPUT_H */

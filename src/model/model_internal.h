/*
 * Internal to src/model: the bounded error-text builder shared by the reader and the model
 * planner (no printf on the device). A text is written once, into a caller-owned buffer, and cut
 * at its capacity.
 */
#ifndef UTVM_MODEL_INTERNAL_H
#define UTVM_MODEL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  char *buf;   /* NULL: texts are not kept (the accessors) */
  size_t len;  /* characters written, NUL excluded */
  size_t cap;  /* bytes of buf, NUL included */
} utvm_model_text_t;

/* Starts an empty text in buf[cap] (buf may be NULL). */
void utvm_model_text_init(utvm_model_text_t *t, char *buf, size_t cap);
/* Appends a string, a decimal, a signed decimal, or "0x" and hex digits. */
void utvm_model_text_str(utvm_model_text_t *t, const char *s);
void utvm_model_text_u32(utvm_model_text_t *t, uint32_t v);
void utvm_model_text_i32(utvm_model_text_t *t, int32_t v);
void utvm_model_text_hex(utvm_model_text_t *t, uint32_t v);
/* Appends "operator <index> (<NAME>): ". */
void utvm_model_text_operator(utvm_model_text_t *t, uint32_t index, int32_t code);

#endif /* UTVM_MODEL_INTERNAL_H */

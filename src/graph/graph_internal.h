/* Internals of the graph executor shared by its source files (not a public API). */
#ifndef UTVM_GRAPH_INTERNAL_H
#define UTVM_GRAPH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/graph.h"
#include "utvm/text.h"

typedef char graph_check_op_args[(UTVM_GRAPH_MAX_OP_ARGS >= 10u) ? 1 : -1];
typedef char graph_check_depth[(UTVM_GRAPH_MAX_JSON_DEPTH >= 5u) ? 1 : -1];

/* ---- Error texts: utvm/text.h over utvm_graph_t.error (no printf on the device). ---- */

/* Starts g->error with text. */
void graph_text_set(utvm_graph_t *g, const char *text);
/* Appends text / a decimal number to g->error (cut at UTVM_GRAPH_ERROR_SIZE - 1). */
void graph_text_str(utvm_graph_t *g, const char *text);
void graph_text_u64(utvm_graph_t *g, uint64_t value);

/* ---- JSON cursor ----------------------------------------------------------------------------- */

/* Not a node: the parser's node index outside the nodes list. */
#define GRAPH_NO_INDEX 0xFFFFFFFFu

/* A cursor over the JSON text with the error context of what it is reading. */
typedef struct {
  const char *s;
  size_t len;
  size_t pos;
  utvm_graph_t *g;
  const char *section; /* e.g. "attrs", named in errors */
  uint32_t node;       /* node being read, or GRAPH_NO_INDEX */
  utvm_err_t err;      /* UTVM_OK until the first error */
} graph_json_t;

/* Records the first error: code and "graph JSON: <section or node N>: <problem><detail>"
 * (detail may be NULL); returns false. */
bool graph_json_fail(graph_json_t *j, utvm_err_t code, const char *problem, const char *detail);
/* As graph_json_fail with a number after the problem, then tail (may be NULL). */
bool graph_json_fail_n(graph_json_t *j, utvm_err_t code, const char *problem, uint64_t n,
                       const char *tail);

/* The next character after whitespace, '\0' at the end of the text. */
char graph_json_peek(graph_json_t *j);
/* Consumes c after whitespace; false with "expected 'c'" otherwise. */
bool graph_json_expect(graph_json_t *j, char c);
/* Iteration over the elements of an array (close ']') or the members of an object ('}'): call
 * with first = true right after the opening bracket; 1 if an element follows (its separator is
 * consumed), 0 at the end (the bracket is consumed), -1 on error. */
int graph_json_next(graph_json_t *j, char close, bool first);
/* A string into out (capacity cap, NUL-terminated; out may be NULL to skip it): false with
 * "<what> longer than <cap - 1> characters" when it does not fit. *len gets its length. */
bool graph_json_string(graph_json_t *j, char *out, size_t cap, size_t *len, const char *what);
/* An integer in [min, max] (no fraction, no exponent): false with "<what> ..." otherwise. */
bool graph_json_int(graph_json_t *j, int64_t min, int64_t max, int64_t *value, const char *what);
/* Skips one value of any kind (nesting bounded by UTVM_GRAPH_MAX_JSON_DEPTH). */
bool graph_json_skip(graph_json_t *j);
/* Equality of a NUL-terminated string with another. */
bool graph_same(const char *a, const char *b);

/* Parses a dltype string ("float32", "int8", "uint16x4", "bool", "handle", ...). */
bool graph_parse_dtype(const char *text, DLDataType *dtype);

/* Bytes of a tensor of dtype and shape, false above UTVM_GRAPH_MAX_TENSOR_BYTES. */
bool graph_tensor_bytes(DLDataType dtype, const int64_t *shape, uint32_t ndim, uint32_t *bytes);

#endif /* UTVM_GRAPH_INTERNAL_H */

/* Bounded, non-recursive JSON reading for the graph executor, and its error texts. */
#include <stddef.h>
#include <stdint.h>

#include "graph_internal.h"

/* ---- Error texts ------------------------------------------------------------------------------ */

/* g->error is built with utvm/text.h; these resume it at its NUL. */

void graph_text_str(utvm_graph_t *g, const char *text) {
  utvm_text_t t;
  utvm_text_resume(&t, g->error, sizeof(g->error));
  utvm_text_str(&t, text);
}

void graph_text_set(utvm_graph_t *g, const char *text) {
  g->error[0] = '\0';
  graph_text_str(g, text);
}

void graph_text_u64(utvm_graph_t *g, uint64_t value) {
  utvm_text_t t;
  utvm_text_resume(&t, g->error, sizeof(g->error));
  utvm_text_u64(&t, value);
}

/* ---- Cursor ---------------------------------------------------------------------------------- */

bool graph_json_fail(graph_json_t *j, utvm_err_t code, const char *problem, const char *detail) {
  if (j->err == UTVM_OK) {
    j->err = code;
    graph_text_set(j->g, "graph JSON: ");
    if (j->node != GRAPH_NO_INDEX) {
      graph_text_str(j->g, "node ");
      graph_text_u64(j->g, j->node);
      graph_text_str(j->g, ": ");
    } else if (j->section != NULL) {
      graph_text_str(j->g, j->section);
      graph_text_str(j->g, ": ");
    } else {
      /* top level: no context */
    }
    graph_text_str(j->g, problem);
    graph_text_str(j->g, detail);
  }
  return false;
}

bool graph_json_fail_n(graph_json_t *j, utvm_err_t code, const char *problem, uint64_t n,
                       const char *tail) {
  bool first = (j->err == UTVM_OK);
  (void)graph_json_fail(j, code, problem, NULL);
  if (first) {
    graph_text_u64(j->g, n);
    graph_text_str(j->g, tail);
  }
  return false;
}

static void skip_space(graph_json_t *j) {
  while ((j->pos < j->len) && ((j->s[j->pos] == ' ') || (j->s[j->pos] == '\n') ||
                               (j->s[j->pos] == '\r') || (j->s[j->pos] == '\t'))) {
    j->pos++;
  }
}

char graph_json_peek(graph_json_t *j) {
  skip_space(j);
  return (j->pos < j->len) ? j->s[j->pos] : '\0';
}

bool graph_json_expect(graph_json_t *j, char c) {
  char text[4] = {'\'', c, '\'', '\0'};
  if (graph_json_peek(j) != c) {
    if (j->pos >= j->len) {
      return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "truncated, expected ", text);
    }
    (void)graph_json_fail_n(j, UTVM_ERR_GRAPH_JSON, "unexpected character at offset ",
                            (uint64_t)j->pos, ", expected ");
    graph_text_str(j->g, text);
    return false;
  }
  j->pos++;
  return true;
}

int graph_json_next(graph_json_t *j, char close, bool first) {
  char c = graph_json_peek(j);
  if (c == close) {
    j->pos++;
    return 0;
  }
  if (!first && !graph_json_expect(j, ',')) {
    return -1;
  }
  return 1;
}

bool graph_json_string(graph_json_t *j, char *out, size_t cap, size_t *len, const char *what) {
  size_t n = 0u;
  if (!graph_json_expect(j, '"')) {
    return false;
  }
  while (j->pos < j->len) {
    char c = j->s[j->pos];
    j->pos++;
    if (c == '"') {
      if (out != NULL) {
        out[n] = '\0';
      }
      if (len != NULL) {
        *len = n;
      }
      return true;
    }
    if ((uint8_t)c < 0x20u) {
      return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, what, ": control character in string");
    }
    if (c == '\\') {
      static const char kEscapes[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
      char e = (j->pos < j->len) ? j->s[j->pos] : '\0';
      bool known = false;
      j->pos++;
      for (size_t k = 0u; (k + 1u) < (sizeof(kEscapes) - 1u); k += 2u) {
        if (kEscapes[k] == e) {
          c = kEscapes[k + 1u];
          known = true;
        }
      }
      if (!known) {
        return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, what, ": unsupported escape in string");
      }
    }
    if (out != NULL) {
      if ((n + 1u) >= cap) {
        (void)graph_json_fail(j, UTVM_ERR_GRAPH_JSON, what, " longer than ");
        graph_text_u64(j->g, (uint64_t)cap - 1u);
        graph_text_str(j->g, " characters");
        return false;
      }
      out[n] = c;
    }
    n++;
  }
  return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, what, ": unterminated string");
}

bool graph_json_int(graph_json_t *j, int64_t min, int64_t max, int64_t *value, const char *what) {
  bool negative = false;
  uint32_t digits = 0u;
  uint64_t magnitude = 0u;
  if (graph_json_peek(j) == '-') {
    negative = true;
    j->pos++;
  }
  while ((j->pos < j->len) && (j->s[j->pos] >= '0') && (j->s[j->pos] <= '9')) {
    if (digits < 18u) {
      magnitude = (magnitude * 10u) + (uint64_t)((uint32_t)j->s[j->pos] - (uint32_t)'0');
    }
    digits++;
    j->pos++;
  }
  if ((digits == 0u) ||
      ((j->pos < j->len) &&
       ((j->s[j->pos] == '.') || (j->s[j->pos] == 'e') || (j->s[j->pos] == 'E')))) {
    return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, what, " is not an integer");
  }
  int64_t v = negative ? -(int64_t)magnitude : (int64_t)magnitude;
  if ((digits > 18u) || (v < min) || (v > max)) {
    return graph_json_fail(j, UTVM_ERR_GRAPH_LIMIT, what, " out of range");
  }
  *value = v;
  return true;
}

bool graph_json_skip(graph_json_t *j) {
  char closers[UTVM_GRAPH_MAX_JSON_DEPTH];
  uint32_t depth = 0u;
  /* Each round consumes at least one character. */
  for (size_t round = 0u; round <= j->len; round++) {
    char c = graph_json_peek(j);
    bool value_done = false;
    if (c == '"') {
      if (!graph_json_string(j, NULL, 0u, NULL, "string")) {
        return false;
      }
      value_done = true;
    } else if ((c == '{') || (c == '[')) {
      if (depth >= UTVM_GRAPH_MAX_JSON_DEPTH) {
        return graph_json_fail_n(j, UTVM_ERR_GRAPH_LIMIT, "nesting deeper than ",
                                 UTVM_GRAPH_MAX_JSON_DEPTH, " levels");
      }
      closers[depth] = (c == '{') ? '}' : ']';
      depth++;
      j->pos++;
    } else if ((c == '}') || (c == ']')) {
      if ((depth == 0u) || (closers[depth - 1u] != c)) {
        return graph_json_fail_n(j, UTVM_ERR_GRAPH_JSON, "unbalanced bracket at offset ",
                                 (uint64_t)j->pos, NULL);
      }
      depth--;
      j->pos++;
      value_done = true;
    } else if (((c == ',') || (c == ':')) && (depth > 0u)) {
      j->pos++;
    } else if (((c >= '0') && (c <= '9')) || (c == '-') || ((c >= 'a') && (c <= 'z'))) {
      while ((j->pos < j->len) &&
             (((j->s[j->pos] >= '0') && (j->s[j->pos] <= '9')) || (j->s[j->pos] == '-') ||
              (j->s[j->pos] == '+') || (j->s[j->pos] == '.') ||
              ((j->s[j->pos] >= 'a') && (j->s[j->pos] <= 'z')) ||
              ((j->s[j->pos] >= 'A') && (j->s[j->pos] <= 'Z')))) {
        j->pos++;
      }
      value_done = true;
    } else if (c == '\0') {
      return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "truncated", NULL);
    } else {
      return graph_json_fail_n(j, UTVM_ERR_GRAPH_JSON, "unexpected character at offset ",
                               (uint64_t)j->pos, NULL);
    }
    if (value_done && (depth == 0u)) {
      return true;
    }
  }
  return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "truncated", NULL);
}

bool graph_same(const char *a, const char *b) {
  size_t i = 0u;
  while (a[i] == b[i]) {
    if (a[i] == '\0') {
      return true;
    }
    i++;
  }
  return false;
}

/* ---- dtypes and sizes ------------------------------------------------------------------------ */

/* Reads a decimal number of 1..5 digits at text[*pos]; false if there is none. */
static bool read_decimal(const char *text, size_t *pos, uint32_t *value) {
  uint32_t v = 0u;
  uint32_t digits = 0u;
  while ((text[*pos] >= '0') && (text[*pos] <= '9') && (digits < 6u)) {
    v = (v * 10u) + ((uint32_t)text[*pos] - (uint32_t)'0');
    digits++;
    (*pos)++;
  }
  *value = v;
  return (digits > 0u) && (digits < 6u);
}

bool graph_parse_dtype(const char *text, DLDataType *dtype) {
  static const struct {
    const char *prefix;
    uint8_t code;
  } kPrefixes[4] = {{"uint", (uint8_t)kDLUInt}, {"int", (uint8_t)kDLInt},
                    {"float", (uint8_t)kDLFloat}, {"bfloat", (uint8_t)kDLBfloat}};
  size_t pos = 0u;
  uint32_t bits = 0u;
  uint32_t lanes = 1u;
  bool known = false;
  if (graph_same(text, "bool")) {
    dtype->code = (uint8_t)kDLUInt;
    dtype->bits = 1u;
    dtype->lanes = 1u;
    return true;
  }
  if (graph_same(text, "handle")) {
    dtype->code = (uint8_t)kDLOpaqueHandle;
    dtype->bits = 64u;
    dtype->lanes = 1u;
    return true;
  }
  for (size_t k = 0u; (k < 4u) && !known; k++) {
    size_t n = 0u;
    while ((kPrefixes[k].prefix[n] != '\0') && (text[n] == kPrefixes[k].prefix[n])) {
      n++;
    }
    if (kPrefixes[k].prefix[n] == '\0') {
      dtype->code = kPrefixes[k].code;
      pos = n;
      known = true;
    }
  }
  if (!known || !read_decimal(text, &pos, &bits)) {
    return false;
  }
  if (text[pos] == 'x') {
    pos++;
    if (!read_decimal(text, &pos, &lanes)) {
      return false;
    }
  }
  if ((text[pos] != '\0') || (lanes == 0u) || (lanes > 0xFFFFu) ||
      ((bits != 8u) && (bits != 16u) && (bits != 32u) && (bits != 64u)) ||
      ((dtype->code == (uint8_t)kDLBfloat) && (bits != 16u))) {
    return false;
  }
  dtype->bits = (uint8_t)bits;
  dtype->lanes = (uint16_t)lanes;
  return true;
}

bool graph_tensor_bytes(DLDataType dtype, const int64_t *shape, uint32_t ndim, uint32_t *bytes) {
  uint64_t total = (((uint64_t)dtype.bits * dtype.lanes) + 7u) / 8u;
  for (uint32_t i = 0u; i < ndim; i++) {
    if ((shape[i] < 0) || ((uint64_t)shape[i] > UTVM_GRAPH_MAX_TENSOR_BYTES)) {
      return false;
    }
    total *= (uint64_t)shape[i];
    if (total > UTVM_GRAPH_MAX_TENSOR_BYTES) {
      return false;
    }
  }
  *bytes = (uint32_t)total;
  return true;
}

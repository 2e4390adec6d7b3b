/* The graph's inputs as TVM's get_input_info describes them, written as JSON. */
#include <stddef.h>
#include <stdint.h>

#include "graph_internal.h"

/* A bounded text writer: counts every character, stores those that fit (cap - 1 of them). */
typedef struct {
  char *out;
  size_t cap;
  size_t len;
} info_writer_t;

static void put_char(info_writer_t *w, char c) {
  if ((w->out != NULL) && ((w->len + 1u) < w->cap)) {
    w->out[w->len] = c;
  }
  w->len++;
}

static void put_str(info_writer_t *w, const char *s) {
  for (size_t i = 0u; s[i] != '\0'; i++) {
    put_char(w, s[i]);
  }
}

static void put_u64(info_writer_t *w, uint64_t value) {
  char digits[20];
  uint32_t n = 0u;
  uint64_t rest = value;
  do {
    digits[n] = (char)('0' + (int)(rest % 10u));
    rest /= 10u;
    n++;
  } while ((rest != 0u) && (n < 20u));
  while (n > 0u) {
    n--;
    put_char(w, digits[n]);
  }
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void put_json_string(info_writer_t *w, const char *s) {
  static const char kHex[] = "0123456789abcdef";
  put_char(w, '"');
  for (size_t i = 0u; s[i] != '\0'; i++) {
    uint8_t c = (uint8_t)s[i];
    if ((c == (uint8_t)'"') || (c == (uint8_t)'\\')) {
      put_char(w, '\\');
      put_char(w, (char)c);
    } else if (c < 0x20u) {
      put_str(w, "\\u00");
      put_char(w, kHex[c >> 4]);
      put_char(w, kHex[c & 0xFu]);
    } else {
      put_char(w, (char)c);
    }
  }
  put_char(w, '"');
}

/* A dtype as TVM names it: "int8", "float32", "uint8x4", "bool", "handle", "bfloat16". */
static void put_dtype(info_writer_t *w, DLDataType dtype) {
  put_char(w, '"');
  if ((dtype.code == (uint8_t)kDLUInt) && (dtype.bits == 1u) && (dtype.lanes == 1u)) {
    put_str(w, "bool");
  } else if (dtype.code == (uint8_t)kDLOpaqueHandle) {
    put_str(w, "handle");
  } else {
    if (dtype.code == (uint8_t)kDLInt) {
      put_str(w, "int");
    } else if (dtype.code == (uint8_t)kDLUInt) {
      put_str(w, "uint");
    } else if (dtype.code == (uint8_t)kDLFloat) {
      put_str(w, "float");
    } else {
      put_str(w, "bfloat");
    }
    put_u64(w, dtype.bits);
    if (dtype.lanes != 1u) {
      put_char(w, 'x');
      put_u64(w, dtype.lanes);
    }
  }
  put_char(w, '"');
}

/* One of the two maps: "shape" (which 0) or "dtype" (1) of every input without parameters. */
static void put_map(info_writer_t *w, const utvm_graph_t *g, uint32_t which) {
  bool first = true;
  put_char(w, '{');
  for (uint32_t k = 0u; k < g->num_inputs; k++) {
    const DLTensor *t = &g->entries_[g->row_ptr_[g->input_nodes_[k]]];
    if (g->input_params_[k] != 0u) {
      continue;
    }
    put_str(w, first ? "" : ", ");
    first = false;
    put_json_string(w, utvm_graph_input_name(g, k));
    put_str(w, ": ");
    if (which == 0u) {
      put_char(w, '[');
      for (int32_t d = 0; d < t->ndim; d++) {
        put_str(w, (d == 0) ? "" : ", ");
        put_u64(w, (uint64_t)t->shape[d]);
      }
      put_char(w, ']');
    } else {
      put_dtype(w, t->dtype);
    }
  }
  put_char(w, '}');
}

size_t utvm_graph_input_info(const utvm_graph_t *g, char *out, size_t cap) {
  info_writer_t w = {out, cap, 0u};
  if ((g == NULL) || !g->ready_) {
    if ((out != NULL) && (cap > 0u)) {
      out[0] = '\0';
    }
    return 0u;
  }
  put_str(&w, "{\"shape\": ");
  put_map(&w, g, 0u);
  put_str(&w, ", \"dtype\": ");
  put_map(&w, g, 1u);
  put_char(&w, '}');
  if ((out != NULL) && (cap > 0u)) {
    out[(w.len < cap) ? w.len : (cap - 1u)] = '\0';
  }
  return w.len;
}

/* The graph's inputs as TVM's get_input_info describes them, written as JSON. */
#include <stddef.h>
#include <stdint.h>

#include "graph_internal.h"

/* A JSON string: quotes, backslashes and control characters escaped. */
static void put_json_string(utvm_text_t *w, const char *s) {
  static const char kHex[] = "0123456789abcdef";
  utvm_text_char(w, '"');
  for (size_t i = 0u; s[i] != '\0'; i++) {
    uint8_t c = (uint8_t)s[i];
    if ((c == (uint8_t)'"') || (c == (uint8_t)'\\')) {
      utvm_text_char(w, '\\');
      utvm_text_char(w, (char)c);
    } else if (c < 0x20u) {
      utvm_text_str(w, "\\u00");
      utvm_text_char(w, kHex[c >> 4]);
      utvm_text_char(w, kHex[c & 0xFu]);
    } else {
      utvm_text_char(w, (char)c);
    }
  }
  utvm_text_char(w, '"');
}

/* A dtype as TVM names it: "int8", "float32", "uint8x4", "bool", "handle", "bfloat16". */
static void put_dtype(utvm_text_t *w, DLDataType dtype) {
  utvm_text_char(w, '"');
  if ((dtype.code == (uint8_t)kDLUInt) && (dtype.bits == 1u) && (dtype.lanes == 1u)) {
    utvm_text_str(w, "bool");
  } else if (dtype.code == (uint8_t)kDLOpaqueHandle) {
    utvm_text_str(w, "handle");
  } else {
    if (dtype.code == (uint8_t)kDLInt) {
      utvm_text_str(w, "int");
    } else if (dtype.code == (uint8_t)kDLUInt) {
      utvm_text_str(w, "uint");
    } else if (dtype.code == (uint8_t)kDLFloat) {
      utvm_text_str(w, "float");
    } else {
      utvm_text_str(w, "bfloat");
    }
    utvm_text_u64(w, dtype.bits);
    if (dtype.lanes != 1u) {
      utvm_text_char(w, 'x');
      utvm_text_u64(w, dtype.lanes);
    }
  }
  utvm_text_char(w, '"');
}

/* One of the two maps: "shape" (which 0) or "dtype" (1) of every input without parameters. */
static void put_map(utvm_text_t *w, const utvm_graph_t *g, uint32_t which) {
  bool first = true;
  utvm_text_char(w, '{');
  for (uint32_t k = 0u; k < g->num_inputs; k++) {
    const DLTensor *t = &g->entries_[g->row_ptr_[g->input_nodes_[k]]];
    if (g->input_params_[k] != 0u) {
      continue;
    }
    utvm_text_str(w, first ? "" : ", ");
    first = false;
    put_json_string(w, utvm_graph_input_name(g, k));
    utvm_text_str(w, ": ");
    if (which == 0u) {
      utvm_text_char(w, '[');
      for (int32_t d = 0; d < t->ndim; d++) {
        utvm_text_str(w, (d == 0) ? "" : ", ");
        utvm_text_u64(w, (uint64_t)t->shape[d]);
      }
      utvm_text_char(w, ']');
    } else {
      put_dtype(w, t->dtype);
    }
  }
  utvm_text_char(w, '}');
}

size_t utvm_graph_input_info(const utvm_graph_t *g, char *out, size_t cap) {
  utvm_text_t w;
  utvm_text_init(&w, out, cap);
  if ((g == NULL) || !g->ready_) {
    return 0u;
  }
  utvm_text_str(&w, "{\"shape\": ");
  put_map(&w, g, 0u);
  utvm_text_str(&w, ", \"dtype\": ");
  put_map(&w, g, 1u);
  utvm_text_char(&w, '}');
  return w.needed;
}

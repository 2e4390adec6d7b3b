/* Parameter blob of runtime.SaveParams (PROTOCOL.md 6.2) into the graph's inputs. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "graph_internal.h"

#define LIST_MAGIC 0xF7E58D4F05049CB7ull
#define ARRAY_MAGIC 0xDD5E40F096B4A13Full

/* A bounds-checked reader over the blob. */
typedef struct {
  const uint8_t *p;
  size_t len;
  size_t pos;
  utvm_graph_t *g;
  bool failed;
} params_reader_t;

static bool params_fail(params_reader_t *r, const char *problem, const char *name) {
  if (!r->failed) {
    r->failed = true;
    graph_text_set(r->g, "params: ");
    if (name != NULL) {
      graph_text_str(r->g, name);
      graph_text_str(r->g, ": ");
    }
    graph_text_str(r->g, problem);
  }
  return false;
}

/* Takes n bytes; NULL (error "truncated at byte <pos>") if fewer remain. */
static const uint8_t *take(params_reader_t *r, size_t n) {
  if ((r->len - r->pos) < n) {
    (void)params_fail(r, "truncated at byte ", NULL);
    graph_text_u64(r->g, (uint64_t)r->pos);
    return NULL;
  }
  const uint8_t *at = &r->p[r->pos];
  r->pos += n;
  return at;
}

static bool read_u64(params_reader_t *r, uint64_t *v) {
  const uint8_t *b = take(r, 8u);
  uint64_t x = 0u;
  if (b == NULL) {
    return false;
  }
  for (uint32_t i = 8u; i > 0u; i--) {
    x = (x << 8) | b[i - 1u];
  }
  *v = x;
  return true;
}

static bool read_u32(params_reader_t *r, uint32_t *v) {
  const uint8_t *b = take(r, 4u);
  if (b == NULL) {
    return false;
  }
  *v = (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
  return true;
}

/* Reads name k of the names list at *names_pos into name (NUL-terminated); advances. */
static bool read_name(params_reader_t *r, size_t *names_pos, char *name) {
  size_t saved = r->pos;
  uint64_t n = 0u;
  bool ok;
  r->pos = *names_pos;
  ok = read_u64(r, &n);
  if (ok && (n > UTVM_GRAPH_MAX_PARAM_NAME_LEN)) {
    ok = params_fail(r, "name longer than 79 characters", NULL);
  }
  const uint8_t *bytes = ok ? take(r, (size_t)n) : NULL;
  if (bytes != NULL) {
    (void)memcpy(name, bytes, (size_t)n);
    name[n] = '\0';
    *names_pos = r->pos;
  }
  r->pos = saved;
  return bytes != NULL;
}

/* One array: checks it against the graph input called name, copies its data when copy. */
static bool read_array(params_reader_t *r, const char *name, bool copy) {
  utvm_graph_t *g = r->g;
  uint64_t magic = 0u;
  uint64_t reserved = 0u;
  uint32_t device_type = 0u;
  uint32_t device_id = 0u;
  uint32_t ndim = 0u;
  uint32_t dtype_bits = 0u;
  uint64_t data_size = 0u;
  uint32_t bytes = 0u;
  DLTensor *dst = NULL;
  int32_t index = utvm_graph_input_index(g, name);
  if (!read_u64(r, &magic) || !read_u64(r, &reserved) || !read_u32(r, &device_type) ||
      !read_u32(r, &device_id) || !read_u32(r, &ndim) || !read_u32(r, &dtype_bits)) {
    return false;
  }
  if (magic != ARRAY_MAGIC) {
    return params_fail(r, "bad array magic", name);
  }
  if ((device_type != (uint32_t)kDLCPU) || (device_id != 0u)) {
    return params_fail(r, "array not saved from cpu(0)", name);
  }
  if (index < 0) {
    return params_fail(r, "not a graph input", name);
  }
  (void)utvm_graph_input(g, (uint32_t)index, &dst);
  if ((ndim != (uint32_t)dst->ndim) ||
      ((uint32_t)dst->dtype.code | ((uint32_t)dst->dtype.bits << 8) |
       ((uint32_t)dst->dtype.lanes << 16)) != dtype_bits) {
    return params_fail(r, "ndim or dtype differs from the graph input", name);
  }
  for (uint32_t d = 0u; d < ndim; d++) {
    uint64_t extent = 0u;
    if (!read_u64(r, &extent)) {
      return false;
    }
    if (extent != (uint64_t)dst->shape[d]) {
      return params_fail(r, "shape differs from the graph input", name);
    }
  }
  (void)graph_tensor_bytes(dst->dtype, dst->shape, ndim, &bytes);
  if (!read_u64(r, &data_size)) {
    return false;
  }
  if (data_size != bytes) {
    (void)params_fail(r, "data size differs from the graph input's ", name);
    graph_text_u64(g, bytes);
    return false;
  }
  const uint8_t *data = take(r, bytes);
  if (data == NULL) {
    return false;
  }
  if (copy) {
    if (bytes > 0u) {
      (void)memcpy(dst->data, data, bytes);
    }
    g->input_params_[index] = 1u;
  }
  return true;
}

/* The blob's header: the magic, the names (skipped; the first one's position in *names_pos)
 * and the array count, which must equal the name count (*names). */
static bool read_header(params_reader_t *r, uint32_t *names, size_t *names_pos) {
  uint64_t magic = 0u;
  uint64_t reserved = 0u;
  uint64_t count = 0u;
  uint64_t arrays = 0u;
  if (!read_u64(r, &magic) || !read_u64(r, &reserved)) {
    return false;
  }
  if (magic != LIST_MAGIC) {
    return params_fail(r, "bad magic (not a parameter blob)", NULL);
  }
  if (!read_u64(r, &count)) {
    return false;
  }
  if (count > UTVM_GRAPH_MAX_INPUTS) {
    return params_fail(r, "more names than graph inputs can be", NULL);
  }
  *names_pos = r->pos;
  for (uint32_t k = 0u; k < (uint32_t)count; k++) {
    uint64_t n = 0u;
    if (!read_u64(r, &n) || (take(r, (n > r->len) ? r->len + 1u : (size_t)n) == NULL)) {
      return false;
    }
  }
  if (!read_u64(r, &arrays)) {
    return false;
  }
  if (arrays != count) {
    (void)params_fail(r, "names and arrays differ in number: ", NULL);
    graph_text_u64(r->g, count);
    graph_text_str(r->g, " and ");
    graph_text_u64(r->g, arrays);
    return false;
  }
  *names = (uint32_t)count;
  return true;
}

/* One walk over the blob: checks everything, copies the arrays when copy. */
static bool walk(params_reader_t *r, bool copy) {
  uint32_t names = 0u;
  size_t names_pos = 0u;
  char name[UTVM_GRAPH_MAX_PARAM_NAME_LEN + 1u];
  if (!read_header(r, &names, &names_pos)) {
    return false;
  }
  for (uint32_t k = 0u; k < names; k++) {
    if (!read_name(r, &names_pos, name) || !read_array(r, name, copy)) {
      return false;
    }
  }
  if (r->pos != r->len) {
    return params_fail(r, "bytes after the last array", NULL);
  }
  return true;
}

utvm_err_t utvm_graph_load_params(utvm_graph_t *g, const uint8_t *blob, size_t blob_len) {
  params_reader_t r;
  if (g == NULL) {
    return UTVM_ERR_GRAPH_ARGUMENT;
  }
  if (!g->ready_ || ((blob == NULL) && (blob_len > 0u))) {
    graph_text_set(g, "params: executor not ready or NULL blob");
    return UTVM_ERR_GRAPH_ARGUMENT;
  }
  for (uint32_t copy = 0u; copy < 2u; copy++) {
    r.p = blob;
    r.len = blob_len;
    r.pos = 0u;
    r.g = g;
    r.failed = false;
    if (!walk(&r, copy != 0u)) {
      return UTVM_ERR_GRAPH_PARAMS;
    }
  }
  g->error[0] = '\0';
  return UTVM_OK;
}

utvm_err_t utvm_graph_share_params(utvm_graph_t *g, const utvm_graph_t *other,
                                   const uint8_t *blob, size_t blob_len) {
  params_reader_t r;
  uint32_t names = 0u;
  size_t names_start = 0u;
  char name[UTVM_GRAPH_MAX_PARAM_NAME_LEN + 1u];
  if (g == NULL) {
    return UTVM_ERR_GRAPH_ARGUMENT;
  }
  if (!g->ready_ || (other == NULL) || !other->ready_ || ((blob == NULL) && (blob_len > 0u))) {
    graph_text_set(g, "share_params: executor not ready or NULL argument");
    return UTVM_ERR_GRAPH_ARGUMENT;
  }
  r.p = blob;
  r.len = blob_len;
  r.pos = 0u;
  r.g = g;
  r.failed = false;
  if (!read_header(&r, &names, &names_start)) {
    return UTVM_ERR_GRAPH_PARAMS;
  }
  /* Every name is checked before anything is copied (two walks over the names). */
  for (uint32_t copy = 0u; copy < 2u; copy++) {
    size_t names_pos = names_start;
    for (uint32_t k = 0u; k < names; k++) {
      if (!read_name(&r, &names_pos, name)) {
        return UTVM_ERR_GRAPH_PARAMS;
      }
      int32_t index = utvm_graph_input_index(g, name);
      int32_t from = utvm_graph_input_index(other, name);
      DLTensor *dst = NULL;
      const DLTensor *src = NULL;
      uint32_t bytes = 0u;
      uint32_t src_bytes = 0u;
      if (index < 0) {
        continue; /* not an input of this graph: skipped, as TVM does */
      }
      if (from < 0) {
        (void)params_fail(&r, "not an input of the executor shared from", name);
        return UTVM_ERR_GRAPH_PARAMS;
      }
      (void)utvm_graph_input(g, (uint32_t)index, &dst);
      src = &other->entries_[other->row_ptr_[other->input_nodes_[from]]];
      (void)graph_tensor_bytes(dst->dtype, dst->shape, (uint32_t)dst->ndim, &bytes);
      (void)graph_tensor_bytes(src->dtype, src->shape, (uint32_t)src->ndim, &src_bytes);
      if ((bytes != src_bytes) || (dst->dtype.code != src->dtype.code) ||
          (dst->dtype.bits != src->dtype.bits) || (dst->dtype.lanes != src->dtype.lanes)) {
        (void)params_fail(&r, "dtype or size differs in the executor shared from", name);
        return UTVM_ERR_GRAPH_PARAMS;
      }
      if ((copy != 0u) && (dst->data != src->data)) {
        if (bytes > 0u) {
          (void)memcpy(dst->data, src->data, bytes);
        }
        g->input_params_[index] = 1u;
      }
    }
  }
  g->error[0] = '\0';
  return UTVM_OK;
}

/* Data type helpers and the .npy reader of the host library. */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link_internal.h"

/* Largest .npy data accepted (bytes). */
#define NPY_MAX_DATA (256u * 1024u * 1024u)
/* Largest .npy header accepted (bytes). */
#define NPY_MAX_HEADER 65536u

size_t utvm_host_dtype_bytes(utvm_host_dtype_t dtype) {
  size_t lanes = (dtype.lanes == 0u) ? 1u : dtype.lanes;
  return ((size_t)dtype.bits * lanes + 7u) / 8u;
}

size_t utvm_host_tensor_nbytes(const utvm_host_tensor_t *tensor) {
  size_t n = utvm_host_dtype_bytes(tensor->dtype);
  for (int32_t d = 0; (d < tensor->ndim) && (d < UTVM_HOST_MAX_NDIM); d++) {
    if (tensor->shape[d] < 0) {
      return 0u;
    }
    n *= (size_t)tensor->shape[d];
  }
  return n;
}

bool utvm_host_dtype_parse(const char *text, utvm_host_dtype_t *out) {
  static const struct {
    const char *prefix;
    uint8_t code;
  } kinds[] = {{"uint", 1u}, {"int", 0u}, {"float", 2u}};
  if (strcmp(text, "bool") == 0) {
    out->code = 1u;
    out->bits = 8u;
    out->lanes = 1u;
    return true;
  }
  for (size_t i = 0u; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
    size_t len = strlen(kinds[i].prefix);
    if (strncmp(text, kinds[i].prefix, len) == 0) {
      char *end = NULL;
      errno = 0;
      unsigned long bits = strtoul(&text[len], &end, 10);
      if ((end == &text[len]) || (*end != '\0') || (errno != 0)) {
        return false;
      }
      bool ok = (bits == 8u) || (bits == 16u) || (bits == 32u) || (bits == 64u);
      if ((kinds[i].code == 2u) && (bits == 8u)) {
        ok = false;
      }
      if (!ok) {
        return false;
      }
      out->code = kinds[i].code;
      out->bits = (uint8_t)bits;
      out->lanes = 1u;
      return true;
    }
  }
  return false;
}

void utvm_host_dtype_name(utvm_host_dtype_t dtype, char *buf, size_t size) {
  static const char *const names[] = {"int", "uint", "float", "handle", "bfloat"};
  const char *kind = (dtype.code < 5u) ? names[dtype.code] : "type";
  if (dtype.lanes > 1u) {
    host_format(buf, size, "%s%ux%u", kind, (unsigned)dtype.bits, (unsigned)dtype.lanes);
  } else {
    host_format(buf, size, "%s%u", kind, (unsigned)dtype.bits);
  }
}

/* Finds the value text after 'key': in a numpy header dict; NULL if absent. */
static const char *npy_field(const char *header, const char *key) {
  char quoted[32];
  host_format(quoted, sizeof(quoted), "'%s'", key);
  const char *at = strstr(header, quoted);
  if (at == NULL) {
    return NULL;
  }
  at += strlen(quoted);
  while ((*at == ' ') || (*at == ':')) {
    at++;
  }
  return at;
}

/* Parses a descr such as '<f4', '|u1', '|b1'. */
static bool npy_descr(const char *value, utvm_host_dtype_t *dtype, char *why, size_t why_size) {
  if ((value == NULL) || (value[0] != '\'')) {
    host_format(why, why_size, "no 'descr' in the header");
    return false;
  }
  char order = value[1];
  char kind = value[2];
  char *end = NULL;
  unsigned long size = strtoul(&value[3], &end, 10);
  if ((end == &value[3]) || (*end != '\'')) {
    host_format(why, why_size, "unsupported descr %.12s", value);
    return false;
  }
  if ((order == '>') && (size > 1u)) {
    host_format(why, why_size, "big-endian data is not supported (save with '<' byte order)");
    return false;
  }
  if ((order != '<') && (order != '|') && (order != '=') && (order != '>')) {
    host_format(why, why_size, "unsupported byte order '%c'", order);
    return false;
  }
  bool ok = false;
  if ((kind == 'i') || (kind == 'u')) {
    ok = (size == 1u) || (size == 2u) || (size == 4u) || (size == 8u);
    dtype->code = (uint8_t)((kind == 'i') ? 0u : 1u);
  } else if (kind == 'f') {
    ok = (size == 2u) || (size == 4u) || (size == 8u);
    dtype->code = 2u;
  } else if (kind == 'b') {
    ok = (size == 1u);
    dtype->code = 1u;
  } else {
    ok = false;
  }
  if (!ok) {
    host_format(why, why_size, "unsupported dtype %.12s (use i1/u1/i2/u2/i4/u4/i8/u8/f2/f4/f8)",
                value);
    return false;
  }
  dtype->bits = (uint8_t)(size * 8u);
  dtype->lanes = 1u;
  return true;
}

/* Parses "(2, 3)" / "(4,)" / "()" into the shape. */
static bool npy_shape(const char *value, utvm_host_npy_t *out, char *why, size_t why_size) {
  if ((value == NULL) || (value[0] != '(')) {
    host_format(why, why_size, "no 'shape' in the header");
    return false;
  }
  const char *p = value + 1;
  out->ndim = 0;
  for (size_t guard = 0u; guard <= UTVM_HOST_MAX_NDIM; guard++) {
    while (*p == ' ') {
      p++;
    }
    if (*p == ')') {
      return true;
    }
    if (out->ndim >= UTVM_HOST_MAX_NDIM) {
      break;
    }
    char *end = NULL;
    errno = 0;
    long long dim = strtoll(p, &end, 10);
    if ((end == p) || (dim < 0) || (errno != 0)) {
      host_format(why, why_size, "bad shape %.40s", value);
      return false;
    }
    out->shape[out->ndim] = (int64_t)dim;
    out->ndim++;
    p = end;
    while (*p == ' ') {
      p++;
    }
    if (*p == ',') {
      p++;
    }
  }
  host_format(why, why_size, "more than %d dimensions", UTVM_HOST_MAX_NDIM);
  return false;
}

static utvm_host_err_t npy_parse(FILE *f, utvm_host_npy_t *out, char *why, size_t why_size) {
  uint8_t magic[10];
  if (fread(magic, 1u, 8u, f) != 8u || (memcmp(magic, "\x93NUMPY", 6u) != 0)) {
    host_format(why, why_size, "not a .npy file (bad magic)");
    return UTVM_HOST_ERR_ARGUMENT;
  }
  uint8_t major = magic[6];
  size_t header_len = 0u;
  if (major == 1u) {
    if (fread(magic, 1u, 2u, f) != 2u) {
      host_format(why, why_size, "truncated header");
      return UTVM_HOST_ERR_ARGUMENT;
    }
    header_len = (size_t)magic[0] | ((size_t)magic[1] << 8);
  } else if ((major == 2u) || (major == 3u)) {
    if (fread(magic, 1u, 4u, f) != 4u) {
      host_format(why, why_size, "truncated header");
      return UTVM_HOST_ERR_ARGUMENT;
    }
    header_len = (size_t)magic[0] | ((size_t)magic[1] << 8) | ((size_t)magic[2] << 16) |
                 ((size_t)magic[3] << 24);
  } else {
    host_format(why, why_size, "unsupported .npy version %u", (unsigned)major);
    return UTVM_HOST_ERR_ARGUMENT;
  }
  if (header_len > NPY_MAX_HEADER) {
    host_format(why, why_size, "header too long");
    return UTVM_HOST_ERR_ARGUMENT;
  }
  char *header = (char *)malloc(header_len + 1u);
  if (header == NULL) {
    return UTVM_HOST_ERR_NO_MEMORY;
  }
  bool ok = (fread(header, 1u, header_len, f) == header_len);
  header[header_len] = '\0';
  if (!ok) {
    host_format(why, why_size, "truncated header");
  }
  if (ok) {
    const char *fortran = npy_field(header, "fortran_order");
    if ((fortran == NULL) || (strncmp(fortran, "False", 5u) != 0)) {
      host_format(why, why_size, "only C-order arrays are supported (fortran_order must be "
                  "False)");
      ok = false;
    }
  }
  ok = ok && npy_descr(npy_field(header, "descr"), &out->dtype, why, why_size);
  ok = ok && npy_shape(npy_field(header, "shape"), out, why, why_size);
  free(header);
  if (!ok) {
    return UTVM_HOST_ERR_ARGUMENT;
  }
  size_t nbytes = utvm_host_dtype_bytes(out->dtype);
  for (int32_t d = 0; d < out->ndim; d++) {
    if ((out->shape[d] > 0) && (nbytes > (NPY_MAX_DATA / (size_t)out->shape[d]))) {
      host_format(why, why_size, "array too large");
      return UTVM_HOST_ERR_ARGUMENT;
    }
    nbytes *= (size_t)out->shape[d];
  }
  out->data = malloc((nbytes > 0u) ? nbytes : 1u);
  if (out->data == NULL) {
    return UTVM_HOST_ERR_NO_MEMORY;
  }
  out->nbytes = nbytes;
  if (fread(out->data, 1u, nbytes, f) != nbytes) {
    host_format(why, why_size, "file shorter than its header says (%zu data bytes expected)",
                nbytes);
    free(out->data);
    out->data = NULL;
    return UTVM_HOST_ERR_ARGUMENT;
  }
  return UTVM_HOST_OK;
}

utvm_host_err_t utvm_host_npy_read(const char *path, utvm_host_npy_t *out, char *errbuf,
                                   size_t errbuf_size) {
  (void)memset(out, 0, sizeof(*out));
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    host_format(errbuf, errbuf_size, "%s: %s", path, strerror(errno));
    return UTVM_HOST_ERR_ARGUMENT;
  }
  char why[160] = "";
  utvm_host_err_t rc = npy_parse(f, out, why, sizeof(why));
  (void)fclose(f);
  if (rc != UTVM_HOST_OK) {
    host_format(errbuf, errbuf_size, "%s: %s", path, (why[0] != '\0') ? why : "out of memory");
  }
  return rc;
}

void utvm_host_npy_free(utvm_host_npy_t *npy) {
  free(npy->data);
  npy->data = NULL;
  npy->nbytes = 0u;
}

/* Typed command-line arguments of the utvm tool. */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* Most elements of an inline tensor. */
#define CLI_MAX_INLINE_ELEMENTS (1u << 20)

static int hex_digit(char c) {
  if ((c >= '0') && (c <= '9')) {
    return c - '0';
  }
  if ((c >= 'a') && (c <= 'f')) {
    return c - 'a' + 10;
  }
  if ((c >= 'A') && (c <= 'F')) {
    return c - 'A' + 10;
  }
  return -1;
}

/* Checks that v is exactly representable as dtype (an integer in range for integer dtypes, a
 * finite float32 in range); writes why not into err (naming element i) and returns false. */
static bool element_fits(utvm_host_dtype_t dtype, size_t i, double v, char *err, size_t size) {
  char name[32];
  utvm_host_dtype_name(dtype, name, sizeof(name));
  if (dtype.code == 2u) {
    if ((dtype.bits == 32u) && isfinite(v) && (fabs(v) > (double)FLT_MAX)) {
      (void)snprintf(err, size, "element %zu: %.17g is outside float32's range", i, v);
      return false;
    }
    return true;
  }
  /* Integers: 1-bit bool, 8..64-bit int/uint; 64-bit values only where a double is exact. */
  double low = 0.0;
  double high = 1.0;
  if (dtype.bits > 1u) {
    unsigned bits = (dtype.bits > 53u) ? 53u : dtype.bits;
    high = (dtype.code == 0u) ? ldexp(1.0, (int)bits - 1) - 1.0 : ldexp(1.0, (int)bits) - 1.0;
    low = (dtype.code == 0u) ? -ldexp(1.0, (int)bits - 1) : 0.0;
    if (dtype.bits > 53u) {
      high = ldexp(1.0, 53);
      low = (dtype.code == 0u) ? -high : 0.0;
    }
  }
  if (v != floor(v)) {
    (void)snprintf(err, size, "element %zu: %.17g is not an integer (%s)", i, v, name);
    return false;
  }
  if ((v < low) || (v > high)) {
    (void)snprintf(err, size, "element %zu: %.17g is outside %s's range %.17g..%.17g%s", i, v,
                   name, low, high,
                   (dtype.bits > 53u) ? " (exact in a literal; use npy: for more)" : "");
    return false;
  }
  return true;
}

/* Stores number v as element i of dtype into data. */
static bool store_element(void *data, size_t i, utvm_host_dtype_t dtype, double v) {
  uint8_t *p = (uint8_t *)data + i * utvm_host_dtype_bytes(dtype);
  if (dtype.code == 2u) {
    if (dtype.bits == 32u) {
      float f = (float)v;
      (void)memcpy(p, &f, sizeof(f));
      return true;
    }
    if (dtype.bits == 64u) {
      (void)memcpy(p, &v, sizeof(v));
      return true;
    }
    return false;
  }
  int64_t iv = (int64_t)v;
  size_t n = utvm_host_dtype_bytes(dtype);
  for (size_t b = 0u; b < n; b++) {
    p[b] = (uint8_t)((uint64_t)iv >> (8u * b));
  }
  return true;
}

/* Parses "#2x3": a zero-filled tensor of that shape. */
static bool parse_zero_shape(const char *text, utvm_host_tensor_t *t, char *err, size_t size) {
  const char *p = text;
  t->ndim = 0;
  while (*p != '\0') {
    if (t->ndim >= UTVM_HOST_MAX_NDIM) {
      (void)snprintf(err, size, "too many dimensions in '%s' (at most %d)", text,
                     UTVM_HOST_MAX_NDIM);
      return false;
    }
    char *end = NULL;
    long long dim = strtoll(p, &end, 10);
    if ((end == p) || (dim < 0) || (dim > (long long)CLI_MAX_INLINE_ELEMENTS)) {
      (void)snprintf(err, size, "bad shape '%s' (expected e.g. #2x3: at most %d dimensions of at "
                     "most %u elements)", text, UTVM_HOST_MAX_NDIM, CLI_MAX_INLINE_ELEMENTS);
      return false;
    }
    t->shape[t->ndim] = dim;
    t->ndim++;
    p = end;
    if (*p == 'x') {
      p++;
    } else if (*p != '\0') {
      (void)snprintf(err, size, "bad shape '%s' (expected e.g. #2x3)", text);
      return false;
    } else {
      /* End of the shape. */
    }
  }
  return t->ndim > 0;
}

/* Parses a (possibly nested) list "[1,2,3]" / "[[1,2],[3,4]]" into elements and shape. */
static bool parse_list(const char *text, utvm_host_tensor_t *t, double **values, size_t *count,
                       char *err, size_t size) {
  int64_t seen[UTVM_HOST_MAX_NDIM];
  int64_t counter[UTVM_HOST_MAX_NDIM + 1];
  bool known[UTVM_HOST_MAX_NDIM];
  int32_t depth = 0;
  int32_t leaf_depth = -1;
  size_t cap = 16u;
  double *vals = (double *)malloc(cap * sizeof(double));
  if (vals == NULL) {
    return false;
  }
  *count = 0u;
  (void)memset(known, 0, sizeof(known));
  (void)memset(seen, 0, sizeof(seen));
  const char *p = text;
  bool ok = true;
  bool done = false;
  while (ok && !done && (*p != '\0')) {
    if (*p == '[') {
      if (depth >= UTVM_HOST_MAX_NDIM) {
        ok = false;
        break;
      }
      counter[depth] = 0;
      depth++;
      p++;
    } else if (*p == ']') {
      if (depth == 0) {
        ok = false;
        break;
      }
      depth--;
      if (!known[depth]) {
        known[depth] = true;
        seen[depth] = counter[depth];
      } else if (seen[depth] != counter[depth]) {
        ok = false;
        break;
      }
      if (depth > 0) {
        counter[depth - 1]++;
      } else {
        done = true;
      }
      p++;
    } else if ((*p == ',') || (*p == ' ')) {
      p++;
    } else {
      char *end = NULL;
      double v = strtod(p, &end);
      if ((end == p) || (depth == 0) || ((leaf_depth >= 0) && (leaf_depth != depth))) {
        ok = false;
        break;
      }
      leaf_depth = depth;
      if (*count == cap) {
        if (cap >= CLI_MAX_INLINE_ELEMENTS) {
          ok = false;
          break;
        }
        cap *= 2u;
        double *grown = (double *)realloc(vals, cap * sizeof(double));
        if (grown == NULL) {
          ok = false;
          break;
        }
        vals = grown;
      }
      vals[*count] = v;
      (*count)++;
      counter[depth - 1]++;
      p = end;
    }
  }
  while (ok && (*p == ' ')) {
    p++;
  }
  if (!ok || !done || (*p != '\0')) {
    (void)snprintf(err, size, "bad tensor list '%s' (expected e.g. [1,2,3] or [[1,2],[3,4]])",
                   text);
    free(vals);
    return false;
  }
  int32_t ndim = (leaf_depth > 0) ? leaf_depth : 1;
  t->ndim = ndim;
  for (int32_t d = 0; d < ndim; d++) {
    t->shape[d] = known[d] ? seen[d] : 0;
  }
  *values = vals;
  return true;
}

static bool parse_tensor(const char *spec, cli_arg_t *out, char *err, size_t size) {
  const char *colon = strchr(spec, ':');
  char dtype_text[32];
  size_t len = (colon != NULL) ? (size_t)(colon - spec) : 0u;
  if ((colon == NULL) || (len == 0u) || (len >= sizeof(dtype_text))) {
    (void)snprintf(err, size, "bad tensor '%s' (expected t:DTYPE:[values] or t:DTYPE:#SHAPE)",
                   spec);
    return false;
  }
  (void)memcpy(dtype_text, spec, len);
  dtype_text[len] = '\0';
  utvm_host_tensor_t *t = &out->value.v.tensor;
  (void)memset(t, 0, sizeof(*t));
  t->device.device_type = 1;
  if (!utvm_host_dtype_parse(dtype_text, &t->dtype)) {
    (void)snprintf(err, size, "unknown dtype '%s' (use int8..int64, uint8..uint64, float32, "
                   "float64, bool)", dtype_text);
    return false;
  }
  const char *body = colon + 1;
  double *values = NULL;
  size_t count = 0u;
  if (body[0] == '#') {
    if (!parse_zero_shape(body + 1, t, err, size)) {
      return false;
    }
  } else if (!parse_list(body, t, &values, &count, err, size)) {
    return false;
  }
  size_t nbytes = utvm_host_tensor_nbytes(t);
  size_t elements = nbytes / utvm_host_dtype_bytes(t->dtype);
  out->host_data = calloc((nbytes > 0u) ? nbytes : 1u, 1u);
  if (out->host_data == NULL) {
    free(values);
    (void)snprintf(err, size, "out of memory");
    return false;
  }
  out->nbytes = nbytes;
  bool ok = true;
  for (size_t i = 0u; (values != NULL) && (i < count) && (i < elements); i++) {
    char why[256];
    if (!element_fits(t->dtype, i, values[i], why, sizeof(why))) {
      (void)snprintf(err, size, "t:%s: %s", spec, why);
      free(values);
      free(out->host_data);
      out->host_data = NULL;
      return false;
    }
    ok = ok && store_element(out->host_data, i, t->dtype, values[i]);
  }
  free(values);
  if (!ok) {
    (void)snprintf(err, size, "inline values are not supported for %s (use npy:)", dtype_text);
    free(out->host_data);
    out->host_data = NULL;
    return false;
  }
  out->is_tensor = true;
  out->value.type_code = UTVM_TC_DLTENSOR;
  return true;
}

/* npy:PATH or npy:DTYPE:PATH (then the file's dtype must be DTYPE). */
static bool parse_npy(const char *spec, cli_arg_t *out, char *err, size_t size) {
  const char *path = spec;
  utvm_host_dtype_t expected = {0u, 0u, 0u};
  const char *colon = strchr(spec, ':');
  if ((colon != NULL) && ((size_t)(colon - spec) < 32u)) {
    char dtype_text[32];
    (void)memcpy(dtype_text, spec, (size_t)(colon - spec));
    dtype_text[colon - spec] = '\0';
    if (utvm_host_dtype_parse(dtype_text, &expected)) {
      path = colon + 1;
    }
  }
  utvm_host_npy_t npy;
  if (utvm_host_npy_read(path, &npy, err, size) != UTVM_HOST_OK) {
    return false;
  }
  if ((expected.bits != 0u) && ((npy.dtype.code != expected.code) ||
                                (npy.dtype.bits != expected.bits) ||
                                (npy.dtype.lanes != expected.lanes))) {
    char want[32];
    char have[32];
    utvm_host_dtype_name(expected, want, sizeof(want));
    utvm_host_dtype_name(npy.dtype, have, sizeof(have));
    (void)snprintf(err, size, "%s holds %s, not %s", path, have, want);
    free(npy.data);
    return false;
  }
  utvm_host_tensor_t *t = &out->value.v.tensor;
  (void)memset(t, 0, sizeof(*t));
  t->device.device_type = 1;
  t->dtype = npy.dtype;
  t->ndim = npy.ndim;
  (void)memcpy(t->shape, npy.shape, sizeof(t->shape));
  out->host_data = npy.data;
  out->nbytes = npy.nbytes;
  out->is_tensor = true;
  out->value.type_code = UTVM_TC_DLTENSOR;
  return true;
}

/* Most bytes of a bin: tensor file. */
#define CLI_MAX_BIN_BYTES (256u * 1024u * 1024u)

/* Parses the "[1,49,10,1]" of a bin: argument (text up to its ']') into t's shape and returns
 * the tensor's bytes in *nbytes (at most CLI_MAX_BIN_BYTES). */
static bool parse_bin_shape(const char *text, size_t len, utvm_host_tensor_t *t, size_t *nbytes) {
  size_t i = 1u;
  size_t n = utvm_host_dtype_bytes(t->dtype);
  t->ndim = 0;
  if ((len < 3u) || (text[0] != '[') || (text[len - 1u] != ']')) {
    return false;
  }
  while (i < len - 1u) {
    uint64_t dim = 0u;
    size_t digits = 0u;
    while ((i < len - 1u) && (text[i] == ' ')) {
      i++;
    }
    while ((i < len - 1u) && (text[i] >= '0') && (text[i] <= '9') && (digits < 10u)) {
      dim = (dim * 10u) + (uint64_t)(text[i] - '0');
      digits++;
      i++;
    }
    while ((i < len - 1u) && (text[i] == ' ')) {
      i++;
    }
    if ((digits == 0u) || (t->ndim >= UTVM_HOST_MAX_NDIM) ||
        ((i < len - 1u) && (text[i] != ',')) || ((dim > 0u) && (n > CLI_MAX_BIN_BYTES / dim))) {
      return false;
    }
    n *= (size_t)dim;
    t->shape[t->ndim] = (int64_t)dim;
    t->ndim++;
    if (i < len - 1u) {
      i++; /* the comma */
      if (i == len - 1u) {
        return false; /* "[1,]" */
      }
    }
  }
  *nbytes = n;
  return t->ndim > 0;
}

/* bin:DTYPE:[SHAPE]:PATH: a tensor from a raw file of exactly DTYPE x SHAPE bytes. */
static bool parse_bin(const char *spec, cli_arg_t *out, char *err, size_t size) {
  const char *colon = strchr(spec, ':');
  const char *close = (colon != NULL) ? strchr(colon, ']') : NULL;
  size_t dtype_len = (colon != NULL) ? (size_t)(colon - spec) : 0u;
  char dtype_text[32];
  if ((colon == NULL) || (dtype_len == 0u) || (dtype_len >= sizeof(dtype_text)) ||
      (colon[1] != '[') || (close == NULL) || (close[1] != ':') || (close[2] == '\0')) {
    (void)snprintf(err, size, "bad argument 'bin:%s' (expected bin:DTYPE:[SHAPE]:PATH, e.g. "
                   "bin:int8:[1,49,10,1]:input.bin)", spec);
    return false;
  }
  (void)memcpy(dtype_text, spec, dtype_len);
  dtype_text[dtype_len] = '\0';
  utvm_host_tensor_t *t = &out->value.v.tensor;
  (void)memset(t, 0, sizeof(*t));
  t->device.device_type = 1;
  if (!utvm_host_dtype_parse(dtype_text, &t->dtype)) {
    (void)snprintf(err, size, "unknown dtype '%s' in 'bin:%s' (use int8..int64, uint8..uint64, "
                   "float32, float64, bool)", dtype_text, spec);
    return false;
  }
  const char *shape = colon + 1;
  const size_t shape_len = (size_t)(close - shape) + 1u;
  size_t nbytes = 0u;
  if (!parse_bin_shape(shape, shape_len, t, &nbytes)) {
    (void)snprintf(err, size, "bad shape '%.*s' in 'bin:%s' (expected e.g. [1,49,10,1]: 1 to %d "
                   "dimensions, at most %u bytes in all)", (int)shape_len, shape, spec,
                   UTVM_HOST_MAX_NDIM, CLI_MAX_BIN_BYTES);
    return false;
  }
  const char *path = close + 2;
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    (void)snprintf(err, size, "bin: cannot open %s: %s", path, strerror(errno));
    return false;
  }
  struct stat st;
  if ((fstat(fileno(f), &st) != 0) || !S_ISREG(st.st_mode)) {
    (void)snprintf(err, size, "bin: %s is not a regular file", path);
    (void)fclose(f);
    return false;
  }
  if ((uint64_t)st.st_size != (uint64_t)nbytes) {
    (void)snprintf(err, size, "bin: %s holds %llu bytes; %s x %.*s needs %zu", path,
                   (unsigned long long)st.st_size, dtype_text, (int)shape_len, shape, nbytes);
    (void)fclose(f);
    return false;
  }
  out->host_data = malloc((nbytes > 0u) ? nbytes : 1u);
  if (out->host_data == NULL) {
    (void)snprintf(err, size, "out of memory");
    (void)fclose(f);
    return false;
  }
  const size_t got = fread(out->host_data, 1u, nbytes, f);
  (void)fclose(f);
  if (got != nbytes) {
    (void)snprintf(err, size, "bin: %s: read %zu of %zu bytes", path, got, nbytes);
    free(out->host_data);
    out->host_data = NULL;
    return false;
  }
  out->nbytes = nbytes;
  out->is_tensor = true;
  out->value.type_code = UTVM_TC_DLTENSOR;
  return true;
}

static bool parse_hex(const char *text, cli_arg_t *out, char *err, size_t size) {
  size_t len = strlen(text);
  if ((len % 2u) != 0u) {
    (void)snprintf(err, size, "hex bytes need an even number of digits: '%s'", text);
    return false;
  }
  uint8_t *bytes = (uint8_t *)malloc((len / 2u) + 1u);
  if (bytes == NULL) {
    return false;
  }
  for (size_t i = 0u; i < len / 2u; i++) {
    int hi = hex_digit(text[2u * i]);
    int lo = hex_digit(text[2u * i + 1u]);
    if ((hi < 0) || (lo < 0)) {
      free(bytes);
      (void)snprintf(err, size, "bad hex digit in '%s'", text);
      return false;
    }
    bytes[i] = (uint8_t)((hi << 4) | lo);
  }
  out->host_data = bytes;
  out->value.type_code = UTVM_TC_BYTES;
  out->value.v.bytes.data = bytes;
  out->value.v.bytes.len = len / 2u;
  return true;
}

bool cli_parse_arg(const char *text, cli_arg_t *out, char *err, size_t size) {
  (void)memset(out, 0, sizeof(*out));
  const char *colon = strchr(text, ':');
  if (colon == NULL) {
    (void)snprintf(err, size, "argument '%s' has no type prefix (use i:, u:, f:, b:, s:, x:, "
                   "n:, t:, npy:, bin:)", text);
    return false;
  }
  size_t kind_len = (size_t)(colon - text);
  const char *rest = colon + 1;
  char *end = NULL;
  errno = 0;
  if ((kind_len == 1u) && ((text[0] == 'i') || (text[0] == 'u') || (text[0] == 'b'))) {
    bool is_unsigned = (text[0] == 'u');
    if (is_unsigned) {
      out->value.v.u = strtoull(rest, &end, 0);
    } else {
      out->value.v.i = strtoll(rest, &end, 0);
    }
    if ((end == rest) || (*end != '\0') || (errno != 0)) {
      (void)snprintf(err, size, "bad integer in '%s'", text);
      return false;
    }
    out->value.type_code =
        (text[0] == 'i') ? UTVM_TC_INT : (is_unsigned ? UTVM_TC_UINT : UTVM_TC_BOOL);
    if ((out->value.type_code == UTVM_TC_BOOL) && (out->value.v.i != 0)) {
      out->value.v.i = 1;
    }
    return true;
  }
  if ((kind_len == 1u) && (text[0] == 'f')) {
    out->value.v.f = strtod(rest, &end);
    if ((end == rest) || (*end != '\0')) {
      (void)snprintf(err, size, "bad number in '%s'", text);
      return false;
    }
    out->value.type_code = UTVM_TC_FLOAT;
    return true;
  }
  if ((kind_len == 1u) && (text[0] == 's')) {
    out->value.type_code = UTVM_TC_STR;
    out->value.v.bytes.data = (const uint8_t *)rest;
    out->value.v.bytes.len = strlen(rest);
    return true;
  }
  if ((kind_len == 1u) && (text[0] == 'n')) {
    out->value.type_code = UTVM_TC_NULL;
    return true;
  }
  if ((kind_len == 1u) && (text[0] == 'x')) {
    return parse_hex(rest, out, err, size);
  }
  if ((kind_len == 1u) && (text[0] == 't')) {
    return parse_tensor(rest, out, err, size);
  }
  if ((kind_len == 3u) && (strncmp(text, "npy", 3u) == 0)) {
    return parse_npy(rest, out, err, size);
  }
  if ((kind_len == 3u) && (strncmp(text, "bin", 3u) == 0)) {
    return parse_bin(rest, out, err, size);
  }
  (void)snprintf(err, size, "unknown argument type in '%s' (use i:, u:, f:, b:, s:, x:, n:, t:, "
                 "npy:, bin:)", text);
  return false;
}

void cli_arg_free(cli_arg_t *arg) {
  free(arg->host_data);
  arg->host_data = NULL;
}

/* Half-precision bits to double. */
static double half_to_double(uint16_t h) {
  int exponent = (int)((h >> 10) & 0x1Fu);
  double mantissa = (double)(h & 0x3FFu);
  double sign = ((h & 0x8000u) != 0u) ? -1.0 : 1.0;
  if (exponent == 0) {
    return sign * ldexp(mantissa, -24);
  }
  if (exponent == 31) {
    return (mantissa == 0.0) ? sign * INFINITY : NAN;
  }
  return sign * ldexp(mantissa + 1024.0, exponent - 25);
}

static void print_element(FILE *out, utvm_host_dtype_t dtype, const uint8_t *p) {
  size_t n = utvm_host_dtype_bytes(dtype);
  uint64_t bits = 0u;
  for (size_t b = 0u; b < n; b++) {
    bits |= (uint64_t)p[b] << (8u * b);
  }
  if (dtype.code == 2u) {
    double v = 0.0;
    if (n == 4u) {
      float f = 0.0f;
      uint32_t b32 = (uint32_t)bits;
      (void)memcpy(&f, &b32, sizeof(f));
      v = (double)f;
    } else if (n == 8u) {
      (void)memcpy(&v, &bits, sizeof(v));
    } else {
      v = half_to_double((uint16_t)bits);
    }
    if (isfinite(v)) {
      (void)fprintf(out, "%.9g", v);
    } else {
      (void)fprintf(out, "null");
    }
  } else if (dtype.code == 0u) {
    unsigned shift = (unsigned)(64u - 8u * n);
    int64_t v = (int64_t)(bits << shift) >> shift;
    (void)fprintf(out, "%lld", (long long)v);
  } else {
    (void)fprintf(out, "%llu", (unsigned long long)bits);
  }
}

void cli_print_tensor_data(FILE *out, const utvm_host_tensor_t *t, const void *data) {
  size_t esize = utvm_host_dtype_bytes(t->dtype);
  size_t total = utvm_host_tensor_nbytes(t) / ((esize > 0u) ? esize : 1u);
  int32_t ndim = (t->ndim > 0) ? t->ndim : 0;
  if (ndim == 0) {
    print_element(out, t->dtype, (const uint8_t *)data);
    return;
  }
  /* Strides in elements of each dimension, for placing brackets. */
  size_t stride[UTVM_HOST_MAX_NDIM];
  size_t s = 1u;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    stride[d] = s;
    s *= (size_t)t->shape[d];
  }
  for (int32_t d = 0; d < ndim; d++) {
    (void)fputc('[', out);
  }
  for (size_t i = 0u; i < total; i++) {
    if (i > 0u) {
      int32_t closes = 0;
      for (int32_t d = 0; d < ndim; d++) {
        if ((i % stride[d]) == 0u) {
          closes = ndim - d;
          break;
        }
      }
      for (int32_t c = 1; c < closes; c++) {
        (void)fputc(']', out);
      }
      (void)fputs(", ", out);
      for (int32_t c = 1; c < closes; c++) {
        (void)fputc('[', out);
      }
    }
    print_element(out, t->dtype, (const uint8_t *)data + i * esize);
  }
  for (int32_t d = 0; d < ndim; d++) {
    (void)fputc(']', out);
  }
}

void cli_json_string(FILE *out, const char *text, size_t len) {
  (void)fputc('"', out);
  for (size_t i = 0u; i < len; i++) {
    unsigned char c = (unsigned char)text[i];
    if ((c == '"') || (c == '\\')) {
      (void)fprintf(out, "\\%c", c);
    } else if (c == '\n') {
      (void)fputs("\\n", out);
    } else if ((c < 0x20u) || (c >= 0x7Fu)) {
      (void)fprintf(out, "\\u%04x", (unsigned)c);
    } else {
      (void)fputc((int)c, out);
    }
  }
  (void)fputc('"', out);
}

static const char *type_name(int32_t tc) {
  switch (tc) {
    case UTVM_TC_INT:
      return "int";
    case UTVM_TC_UINT:
      return "uint";
    case UTVM_TC_FLOAT:
      return "float";
    case UTVM_TC_HANDLE:
      return "handle";
    case UTVM_TC_NULL:
      return "null";
    case UTVM_TC_DATATYPE:
      return "datatype";
    case UTVM_TC_DEVICE:
      return "device";
    case UTVM_TC_OBJECT:
      return "object";
    case UTVM_TC_MODULE:
      return "module";
    case UTVM_TC_FUNCTION:
      return "function";
    case UTVM_TC_STR:
      return "str";
    case UTVM_TC_BYTES:
      return "bytes";
    case UTVM_TC_NDARRAY:
      return "ndarray";
    case UTVM_TC_BOOL:
      return "bool";
    default:
      return "unknown";
  }
}

void cli_print_value(FILE *out, const utvm_host_value_t *v, bool json) {
  if (json) {
    (void)fprintf(out, "{\"type\": \"%s\", \"value\": ", type_name(v->type_code));
  } else {
    (void)fprintf(out, "%s", type_name(v->type_code));
    if (v->type_code == UTVM_TC_NULL) {
      return;
    }
    (void)fputc(' ', out);
  }
  char name[32];
  switch (v->type_code) {
    case UTVM_TC_INT:
      (void)fprintf(out, "%lld", (long long)v->v.i);
      break;
    case UTVM_TC_UINT:
      (void)fprintf(out, "%llu", (unsigned long long)v->v.u);
      break;
    case UTVM_TC_BOOL:
      (void)fprintf(out, "%s", (v->v.i != 0) ? "true" : "false");
      break;
    case UTVM_TC_FLOAT:
      if (isfinite(v->v.f) || !json) {
        (void)fprintf(out, "%.17g", v->v.f);
      } else {
        (void)fprintf(out, "null");
      }
      break;
    case UTVM_TC_NULL:
      (void)fprintf(out, "null");
      break;
    case UTVM_TC_STR:
      if (json) {
        cli_json_string(out, (const char *)v->v.bytes.data, v->v.bytes.len);
      } else {
        (void)fwrite(v->v.bytes.data, 1u, v->v.bytes.len, out);
      }
      break;
    case UTVM_TC_BYTES:
      (void)fputs(json ? "\"" : "", out);
      for (size_t i = 0u; i < v->v.bytes.len; i++) {
        (void)fprintf(out, "%02x", (unsigned)v->v.bytes.data[i]);
      }
      (void)fputs(json ? "\"" : "", out);
      break;
    case UTVM_TC_DATATYPE:
      utvm_host_dtype_name(v->v.dtype, name, sizeof(name));
      (void)fprintf(out, json ? "\"%s\"" : "%s", name);
      break;
    case UTVM_TC_DEVICE:
      (void)fprintf(out, json ? "{\"device_type\": %d, \"device_id\": %d}" : "(%d, %d)",
                    (int)v->v.device.device_type, (int)v->v.device.device_id);
      break;
    default:
      (void)fprintf(out, json ? "\"0x%llx\"" : "0x%llx", (unsigned long long)v->v.handle);
      break;
  }
  if (json) {
    (void)fputc('}', out);
  }
}

int cli_exit_code(utvm_host_err_t err) {
  switch (err) {
    case UTVM_HOST_OK:
      return CLI_EXIT_OK;
    case UTVM_HOST_ERR_ARGUMENT:
      return CLI_EXIT_USAGE;
    case UTVM_HOST_ERR_CONNECT:
    case UTVM_HOST_ERR_IO:
    case UTVM_HOST_ERR_HANDSHAKE:
    case UTVM_HOST_ERR_TIMEOUT:
    case UTVM_HOST_ERR_BROKEN:
    case UTVM_HOST_ERR_LINK:
      return CLI_EXIT_CONNECTION;
    case UTVM_HOST_ERR_DEVICE_RESET:
      return CLI_EXIT_DEVICE_RESET;
    default:
      return CLI_EXIT_DEVICE_ERROR;
  }
}

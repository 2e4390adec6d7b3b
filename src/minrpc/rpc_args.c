/* Decoding and validation of RPC argument lists (PROTOCOL.md 3.3) and the error reports. */
#include <string.h>

#include "rpc_internal.h"
#include "utvm/crt.h"

/* rpc_code_kind of type codes 0 to 15 (kTVMArgInt ... kTVMArgBool). */
static const uint8_t kCodeKinds[16] = {
    RPC_KIND_ARG_FIXED | RPC_KIND_RETURN_SCALAR,                          /* Int */
    RPC_KIND_ARG_FIXED | RPC_KIND_RETURN_SCALAR,                          /* UInt */
    RPC_KIND_ARG_FIXED | RPC_KIND_RETURN_SCALAR,                          /* Float */
    RPC_KIND_ARG_FIXED | RPC_KIND_ARG_HANDLE | RPC_KIND_RETURN_HANDLE,    /* OpaqueHandle */
    0u,                                                                   /* Null */
    RPC_KIND_ARG_FIXED | RPC_KIND_RETURN_SCALAR,                          /* DataType */
    RPC_KIND_ARG_FIXED | RPC_KIND_RETURN_SCALAR,                          /* Device */
    0u,                                                                   /* DLTensor */
    RPC_KIND_RETURN_HANDLE,                                               /* Object */
    RPC_KIND_ARG_FIXED | RPC_KIND_ARG_HANDLE | RPC_KIND_RETURN_HANDLE,    /* Module */
    RPC_KIND_ARG_FIXED | RPC_KIND_ARG_HANDLE | RPC_KIND_RETURN_HANDLE,    /* PackedFunc */
    0u, 0u, 0u, 0u,                                   /* Str, Bytes, NDArray, ObjectRValueRef */
    RPC_KIND_ARG_FIXED | RPC_KIND_RETURN_SCALAR,                          /* Bool */
};

uint32_t rpc_code_kind(int tc) {
  return ((tc >= 0) && (tc < 16)) ? kCodeKinds[tc] : 0u;
}

bool rpc_device_is_cpu0(DLDevice dev) {
  return (dev.device_type == kDLCPU) && (dev.device_id == 0);
}

#ifdef UTVM_NO_ERROR_TEXTS
static const char kRpcTexts[] = ""; /* ids are written as tokens */
#else
/* The texts of UTVM_RPC_TEXT_LIST, each NUL-terminated, in id order, a UTVM_TEXT_OWN entry's
 * as an empty string. */
#define UTVM_TEXT(id, text) text
#define UTVM_TEXT_OWN(id, text) "\0"
static const char kRpcTexts[] = UTVM_RPC_TEXT_LIST;
#undef UTVM_TEXT
#undef UTVM_TEXT_OWN
/* The texts of the UTVM_TEXT_OWN entries, one object each (without the list's second NUL). */
#define UTVM_TEXT(id, text)
#define UTVM_TEXT_OWN(id, text) const char utvm_rpc_text_##id[sizeof(text) - 1u] = text;
UTVM_RPC_TEXT_LIST
#undef UTVM_TEXT
#undef UTVM_TEXT_OWN
#endif

/* Appends the text of id (UTVM_RPC_TEXT_LIST) to the last error. */
static void append_text(utvm_text_id_t id) {
  utvm_crt_error_append_id(id, kRpcTexts, sizeof(kRpcTexts));
}

/* Sets the last error to "<request name>: " for the request being handled. */
static void fail_request(const utvm_rpc_server_t *server) {
  /* Request names are UTVM_TEXT_RPC + code for codes 0..21; other codes say "RPC". */
  uint32_t code = (uint32_t)server->code;
  uint32_t name = (uint32_t)UTVM_TEXT_RPC +
                  ((code <= (uint32_t)UTVM_RPC_DEV_GET_CURRENT_STREAM) ? code : 0u);
  TVMAPISetLastError("");
  append_text((utvm_text_id_t)name);
  utvm_crt_error_append(": ");
}

void rpc_fail(const utvm_rpc_server_t *server, utvm_text_id_t problem) {
  fail_request(server);
  append_text(problem);
}

void rpc_fail_own(const utvm_rpc_server_t *server, rpc_own_text_t problem) {
  fail_request(server);
  rpc_append_own(problem);
}

void rpc_append_own(rpc_own_text_t text) {
#ifdef UTVM_NO_ERROR_TEXTS
  append_text(text);
#else
  utvm_crt_error_append(text);
#endif
}

void rpc_fail_hex(const utvm_rpc_server_t *server, utvm_text_id_t problem, uint64_t value) {
  rpc_fail(server, problem);
  utvm_crt_error_append(" ");
  utvm_crt_error_append_hex(value);
}

uint8_t *rpc_reader_take(const utvm_rpc_server_t *server, rpc_reader_t *reader, uint32_t n) {
  if (n > reader->left) {
    rpc_fail(server, UTVM_TEXT_RPC_TRUNCATED);
    return NULL;
  }
  uint8_t *p = reader->pos;
  reader->pos = &reader->pos[n];
  reader->left -= n;
  return p;
}

/* Reserves n bytes aligned to 8 in the scratch area; NULL with the error set if it is full. */
static void *scratch_alloc(const utvm_rpc_server_t *server, rpc_scratch_t *scratch, uint32_t n) {
  uintptr_t addr = ((uintptr_t)scratch->next + 7u) & ~(uintptr_t)7u;
  uintptr_t end = (uintptr_t)scratch->end;
  if ((addr > end) || ((end - addr) < n)) {
    rpc_fail(server, UTVM_TEXT_RPC_BUFFER);
    return NULL;
  }
  scratch->next = (uint8_t *)(addr + n);
  return (void *)addr;
}

bool rpc_decode_tensor(const utvm_rpc_server_t *server, rpc_reader_t *reader, DLTensor *tensor) {
  const uint8_t *h = rpc_reader_take(server, reader, RPC_TENSOR_HEADER_SIZE - 8u);
  if (h == NULL) {
    return false;
  }
  uint64_t data = rpc_read_u64(h);
  if (data > (uint64_t)UINTPTR_MAX) {
    rpc_fail(server, UTVM_TEXT_RPC_HANDLE);
    return false;
  }
  tensor->data = (void *)(uintptr_t)data;
  (void)memcpy(&tensor->device, &h[8], sizeof(tensor->device));
  int32_t ndim = (int32_t)rpc_read_u32(&h[16]);
  (void)memcpy(&tensor->dtype, &h[20], sizeof(tensor->dtype));
  if ((ndim < 0) || ((uint32_t)ndim > UTVM_RPC_MAX_NDIM)) {
    rpc_fail(server, UTVM_TEXT_RPC_NDIM);
    return false;
  }
  tensor->ndim = ndim;
  const uint8_t *shape_bytes = rpc_reader_take(server, reader, 8u * (uint32_t)ndim);
  const uint8_t *offset_bytes =
      (shape_bytes != NULL) ? rpc_reader_take(server, reader, 8u) : NULL;
  if (offset_bytes == NULL) {
    return false;
  }
  tensor->byte_offset = rpc_read_u64(offset_bytes);
  int64_t *shape = (int64_t *)scratch_alloc(server, &reader->scratch, 8u * (uint32_t)ndim);
  if (shape == NULL) {
    return false;
  }
  (void)memcpy(shape, shape_bytes, 8u * (uint32_t)ndim);
  tensor->shape = shape;
  tensor->strides = NULL; /* strides are never sent: the tensor is compact */
  return true;
}

bool rpc_tensor_nbytes(const utvm_rpc_server_t *server, const DLTensor *tensor,
                       uint32_t *nbytes) {
  if (!rpc_device_is_cpu0(tensor->device)) {
    rpc_fail(server, UTVM_TEXT_RPC_DEVICE);
    return false;
  }
  /* bits * lanes is below 2^24, so the element size fits; each product of two 32-bit values
   * fits in 64 bits. */
  uint32_t total = (((uint32_t)tensor->dtype.bits * tensor->dtype.lanes) + 7u) / 8u;
  bool ok = (tensor->dtype.bits != 0u) && (tensor->dtype.lanes != 0u);
  for (int32_t i = 0; ok && (i < tensor->ndim); i++) {
    int64_t dim = tensor->shape[i];
    uint64_t product = (uint64_t)total * (uint32_t)dim;
    ok = (dim >= 0) && (dim <= (int64_t)UINT32_MAX) && (product <= UINT32_MAX);
    total = (uint32_t)product;
  }
  if (!ok) {
    rpc_fail(server, UTVM_TEXT_RPC_SHAPE);
    return false;
  }
  *nbytes = total;
  return true;
}

uint8_t *rpc_check_range(const utvm_rpc_server_t *server, const void *data, uint32_t offset,
                         uint32_t nbytes) {
  uint8_t *base = NULL;
  size_t size = 0u;
  /* The allocation holding a large CallFunc being run is the server's, not the host's. */
  if ((utvm_crt_data_range(data, &base, &size) == UTVM_OK) && (base != server->rx_buffer) &&
      (offset <= size)) {
    size_t start = (size_t)((uintptr_t)data - (uintptr_t)base);
    size_t room = size - offset; /* allocation bytes not taken by the offset */
    if ((start <= room) && (nbytes <= (room - start))) {
      return &base[start + offset];
    }
  }
  rpc_fail(server, UTVM_TEXT_RPC_RANGE);
  return NULL;
}

bool rpc_check_tensor(const utvm_rpc_server_t *server, const DLTensor *tensor,
                      uint32_t *nbytes) {
  if (!rpc_tensor_nbytes(server, tensor, nbytes)) {
    return false;
  }
  return ((*nbytes == 0u) && (tensor->data == NULL)) ||
         (rpc_check_range(server, tensor->data, rpc_clamp_u32(tensor->byte_offset), *nbytes) !=
          NULL);
}

/* Decodes the value of one argument of type code tc into value. */
static bool decode_value(const utvm_rpc_server_t *server, rpc_reader_t *reader,
                         int tc, TVMValue *value) {
  uint32_t kind = rpc_code_kind(tc);
  bool fixed = (kind & RPC_KIND_ARG_FIXED) != 0u;
  (void)memset(value, 0, sizeof(*value));
  if (tc == kTVMNullptr) {
    return true;
  }
  if (tc == kTVMDLTensorHandle) {
    DLTensor *tensor =
        (DLTensor *)scratch_alloc(server, &reader->scratch, (uint32_t)sizeof(DLTensor));
    value->v_handle = tensor;
    return (tensor != NULL) && rpc_decode_tensor(server, reader, tensor);
  }
  if ((tc != kTVMStr) && (tc != kTVMBytes) && !fixed) {
    rpc_fail_hex(server, UTVM_TEXT_RPC_TYPE_CODE, (uint64_t)(uint32_t)tc);
    return false;
  }
  uint8_t *p = rpc_reader_take(server, reader, 8u);
  if (p == NULL) {
    return false;
  }
  uint64_t u = rpc_read_u64(p);
  if (fixed) {
    if (((kind & RPC_KIND_ARG_HANDLE) != 0u) && (u > (uint64_t)UINTPTR_MAX)) {
      rpc_fail(server, UTVM_TEXT_RPC_HANDLE);
      return false;
    }
    (void)memcpy(value, p, sizeof(*value));
    return true;
  }
  /* Str or Bytes: move the text back over the last length byte to make room for a NUL. A
   * length beyond 32 bits is clamped to one beyond what the reader holds. */
  uint8_t *bytes = rpc_reader_take(server, reader, rpc_clamp_u32(u));
  if (bytes == NULL) {
    return false;
  }
  uint8_t *text = &p[7];
  (void)memmove(text, bytes, (size_t)u);
  text[u] = 0u;
  value->v_str = (const char *)text;
  if (tc == kTVMBytes) {
    TVMByteArray *array =
        (TVMByteArray *)scratch_alloc(server, &reader->scratch, (uint32_t)sizeof(TVMByteArray));
    if (array == NULL) {
      return false;
    }
    array->data = (const char *)text;
    array->size = (size_t)u;
    value->v_handle = array;
  }
  return true;
}

bool rpc_decode_args(const utvm_rpc_server_t *server, rpc_reader_t *reader, rpc_args_t *args) {
  const uint8_t *p = rpc_reader_take(server, reader, 4u);
  if (p == NULL) {
    return false;
  }
  int32_t num = (int32_t)rpc_read_u32(p);
  if ((num < 0) || ((uint32_t)num > UTVM_RPC_MAX_ARGS)) {
    rpc_fail_hex(server, UTVM_TEXT_RPC_ARGUMENTS, (uint64_t)(uint32_t)num);
    return false;
  }
  const uint8_t *codes = rpc_reader_take(server, reader, 4u * (uint32_t)num);
  if (codes == NULL) {
    return false;
  }
  /* One block: num values, then num codes (8-aligned after the 8-byte values). */
  args->values = (TVMValue *)scratch_alloc(
      server, &reader->scratch, (uint32_t)(sizeof(TVMValue) + sizeof(int)) * (uint32_t)num);
  if (args->values == NULL) {
    return false;
  }
  args->codes = (int *)(void *)&args->values[num];
  args->num = num;
  for (int32_t i = 0; i < num; i++) {
    args->codes[i] = (int)(int32_t)rpc_read_u32(&codes[4 * i]);
    if (!decode_value(server, reader, args->codes[i], &args->values[i])) {
      return false;
    }
  }
  return true;
}

/* Internals of the MinRPC server shared by its source files (not a public API). */
#ifndef UTVM_RPC_INTERNAL_H
#define UTVM_RPC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "tvm/runtime/c_runtime_api.h"
#include "utvm/rpc_codes.h"
#include "utvm/rpc_server.h"

/* Bytes of the packet prefix: u64 packet_nbytes + i32 code. */
#define RPC_PREFIX_SIZE 12u
/* Bytes of a DLTensor header on the wire without its shape. */
#define RPC_TENSOR_HEADER_SIZE 32u

static inline uint32_t rpc_read_u32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t rpc_read_u64(const uint8_t *p) {
  return (uint64_t)rpc_read_u32(p) | ((uint64_t)rpc_read_u32(&p[4]) << 32);
}

static inline void rpc_write_u32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

static inline void rpc_write_u64(uint8_t *p, uint64_t v) {
  rpc_write_u32(p, (uint32_t)v);
  rpc_write_u32(&p[4], (uint32_t)(v >> 32));
}

/* Bounds-checked cursor over a received packet. */
typedef struct {
  uint8_t *pos;
  uint32_t left;
} rpc_reader_t;

/* Bump allocator over the unused tail of the request buffer (parsed arguments). */
typedef struct {
  uint8_t *next;
  uint8_t *end;
} rpc_scratch_t;

/* A decoded packed sequence. */
typedef struct {
  TVMValue values[UTVM_RPC_MAX_ARGS];
  int codes[UTVM_RPC_MAX_ARGS];
  int num;
} rpc_args_t;

/* Takes n bytes from the reader; NULL (and nothing taken) if fewer remain. */
uint8_t *rpc_reader_take(rpc_reader_t *reader, uint32_t n);

/* Decodes a packed sequence (PROTOCOL.md 3.3) into args; tensors, byte arrays and shapes
 * are placed in scratch; strings are NUL-terminated in place. Sets the last error and
 * returns false on malformed or unsupported input, or an unissued data pointer. */
bool rpc_decode_args(rpc_reader_t *reader, rpc_scratch_t *scratch, rpc_args_t *args);

/* Decodes one DLTensor header (3.3) into tensor, its shape into scratch. Only the wire
 * format and ndim are checked; false with the last error set on failure. */
bool rpc_decode_tensor(rpc_reader_t *reader, rpc_scratch_t *scratch, DLTensor *tensor);

/* Byte size of a tensor's elements (prod(shape) * ceil(bits * lanes / 8)); false on
 * overflow beyond 32 bits or a negative dimension. */
bool rpc_tensor_nbytes(const DLTensor *tensor, uint32_t *nbytes);

/* Checks that [data + offset, + nbytes) lies inside one live tensor allocation of the CPU
 * device and returns the start; NULL with the last error set otherwise. what names the
 * request in the message. */
uint8_t *rpc_check_range(uint64_t data, uint64_t offset, uint64_t nbytes, const char *what);

/* Checks a decoded tensor argument: CPU device 0, sane dtype, data range inside a live
 * allocation. Returns false with the last error set otherwise. */
bool rpc_check_tensor(const DLTensor *tensor);

/* Sets the last error to prefix followed by value in hex (utvm_crt_error_append_hex). */
void rpc_set_error_hex(const char *prefix, uint64_t value);

#endif /* UTVM_RPC_INTERNAL_H */

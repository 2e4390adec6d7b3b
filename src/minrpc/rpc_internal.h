/* Internals of the MinRPC server shared by its source files (not a public API). */
#ifndef UTVM_RPC_INTERNAL_H
#define UTVM_RPC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tvm/runtime/c_runtime_api.h"
#include "utvm/error_texts.h"
#include "utvm/rpc_codes.h"
#include "utvm/rpc_server.h"

/* Values move between the wire and TVMValue by copying their 8 little-endian bytes. */
#if defined(__BYTE_ORDER__) && (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
#error "the utvm RPC server needs a little-endian target"
#endif
typedef char rpc_check_value_size[(sizeof(TVMValue) == 8u) ? 1 : -1];

/* Bytes of the packet prefix: u64 packet_nbytes + i32 code. */
#define RPC_PREFIX_SIZE 12u
/* Bytes of a DLTensor header on the wire without its shape. */
#define RPC_TENSOR_HEADER_SIZE 32u

/* Little-endian wire integers at any alignment. The target is little-endian (checked above),
 * so each is a plain copy, which compilers turn into one load or store where the CPU allows
 * unaligned access. */
static inline uint32_t rpc_read_u32(const uint8_t *p) {
  uint32_t v;
  (void)memcpy(&v, p, sizeof(v));
  return v;
}

static inline uint64_t rpc_read_u64(const uint8_t *p) {
  uint64_t v;
  (void)memcpy(&v, p, sizeof(v));
  return v;
}

static inline void rpc_write_u32(uint8_t *p, uint32_t v) {
  (void)memcpy(p, &v, sizeof(v));
}

static inline void rpc_write_u64(uint8_t *p, uint64_t v) {
  (void)memcpy(p, &v, sizeof(v));
}

/* What the server does with a type code (rpc_code_kind): an argument whose value is its 8
 * wire bytes, one of those that is a handle, a result sent as an opaque handle, a result
 * sent as its 8 value bytes. */
#define RPC_KIND_ARG_FIXED 0x01u
#define RPC_KIND_ARG_HANDLE 0x02u
#define RPC_KIND_RETURN_HANDLE 0x04u
#define RPC_KIND_RETURN_SCALAR 0x08u

/* The RPC_KIND_ flags of type code tc (0 for codes the server does not move as 8 bytes). */
uint32_t rpc_code_kind(int tc);

/* The only device this server has: CPU 0. */
bool rpc_device_is_cpu0(DLDevice dev);

/* Bytes of the u64 packet_nbytes that starts every reply, before the RPC code. */
#define REPLY_PREFIX_SIZE 8u

/* Receive states of a request (server->rx_state). */
enum {
  RX_IDLE = 0,  /* no request in progress, or a message that is no request: no reply */
  RX_COLLECT,   /* gathering request bytes into the buffer */
  RX_STREAM_IN, /* CopyToRemote payload: written straight to tensor memory */
  RX_DISCARD,   /* dropping the rest of a rejected request (last error set) */
  RX_REPLAY,    /* a repeated sequence number: the kept reply goes out again */
  RX_STALE      /* an older sequence number: dropped without a reply */
};

/* server->seq_flags: the current request has a sequence number; last_seq is valid in this
 * session; the next reply is to be kept. */
#define RPC_SEQ_RX 0x01u
#define RPC_SEQ_LAST_VALID 0x02u
#define RPC_SEQ_KEEP 0x04u

/* The sequence extension's part of the receive and reply paths (rpc_sequence.c), which
 * utvm_rpc_server_enable_sequence installs as server->sequence: without it no request has a
 * sequence number and none of that code is linked. */
struct utvm_rpc_sequence_ops {
  /* Called when the first RPC_PREFIX_SIZE bytes of a request are gathered: true when they
   * began with a sequence prefix, which was taken out (the packet's first bytes follow);
   * otherwise, for a numbered request, sets server->code and rx_state for a repeated, stale or
   * refused number. */
  bool (*on_header)(utvm_rpc_server_t *server);
  /* Called when a numbered request ends (status: its frame's): remembers a new number; true
   * when the request was answered from the reply cache or dropped as stale. */
  bool (*on_end)(utvm_rpc_server_t *server, utvm_frame_status_t status, uint8_t rx_state);
  /* Begins a reply message of the three parts (lens[i] bytes each): its sequence prefix if the
   * request had one, and a copy in the reply cache if the request asked for it. */
  utvm_err_t (*reply_begin)(utvm_rpc_server_t *server, const uint8_t *const parts[3],
                            const uint32_t lens[3]);
};

/* Sends one reply message of the three parts (a NULL part has length 0). */
void rpc_reply_send(utvm_rpc_server_t *server, const uint8_t *const parts[3],
                    const uint32_t lens[3]);

/* Sends one reply message: head, whose first REPLY_PREFIX_SIZE bytes are filled in here with
 * packet_nbytes and which holds at least the RPC code after them, then mid, then tail. */
void rpc_reply_parts(utvm_rpc_server_t *server, uint8_t *head, uint32_t head_len,
                     const void *mid, uint32_t mid_len, const void *tail, uint32_t tail_len);

/* Exception reply carrying the last error: [Str tc][text] (PROTOCOL.md 3.5). */
void rpc_reply_exception(utvm_rpc_server_t *server);

/* Sets the last error to "<request name>: <problem>" for the request being handled, problem
 * being a text of UTVM_RPC_TEXT_LIST (utvm/error_texts.h); rpc_fail_hex adds " 0x<value>". */
void rpc_fail(const utvm_rpc_server_t *server, utvm_text_id_t problem);
void rpc_fail_hex(const utvm_rpc_server_t *server, utvm_text_id_t problem, uint64_t value);

/* An RPC text of a UTVM_TEXT_OWN entry (utvm/error_texts.h), named by RPC_OWN(id): the text
 * itself, in an object of its own (utvm_rpc_text_<id>, defined in rpc_args.c, which
 * --gc-sections drops with the opt-in feature that reports it), or with UTVM_NO_ERROR_TEXTS its
 * id. */
#ifdef UTVM_NO_ERROR_TEXTS
typedef utvm_text_id_t rpc_own_text_t;
#define RPC_OWN(id) (id)
#else
typedef const char *rpc_own_text_t;
#define RPC_OWN(id) (utvm_rpc_text_##id)
#define UTVM_TEXT(id, text)
#define UTVM_TEXT_OWN(id, text) extern const char utvm_rpc_text_##id[sizeof(text) - 1u];
UTVM_RPC_TEXT_LIST
#undef UTVM_TEXT
#undef UTVM_TEXT_OWN
#endif

/* rpc_fail for a text of a UTVM_TEXT_OWN entry, and appending one to the last error. */
void rpc_fail_own(const utvm_rpc_server_t *server, rpc_own_text_t problem);
void rpc_append_own(rpc_own_text_t text);

/* Bump allocator over the unused tail of the request buffer (parsed arguments); next need
 * not be aligned: each allocation is. */
typedef struct {
  uint8_t *next;
  uint8_t *end;
} rpc_scratch_t;

/* Bounds-checked cursor over a received packet, with the scratch area that what it decodes
 * is placed in. */
typedef struct {
  uint8_t *pos;
  uint32_t left;
  rpc_scratch_t scratch;
} rpc_reader_t;

/* A decoded packed sequence; values and codes lie in the reader's scratch (num entries). */
typedef struct {
  TVMValue *values;
  int *codes;
  int num;
} rpc_args_t;

/* Takes n bytes from the reader; NULL (nothing taken) with the last error set to
 * UTVM_TEXT_RPC_TRUNCATED if fewer remain. */
uint8_t *rpc_reader_take(const utvm_rpc_server_t *server, rpc_reader_t *reader, uint32_t n);

/* Decodes a packed sequence (PROTOCOL.md 3.3) into args; tensors, byte arrays and shapes
 * are placed in the reader's scratch; strings are NUL-terminated in place. Sets the last error and
 * returns false on malformed or unsupported input. Tensors and raw pointers are not checked
 * against device memory here: the request that hands them on does that. */
bool rpc_decode_args(const utvm_rpc_server_t *server, rpc_reader_t *reader, rpc_args_t *args);

/* Decodes one DLTensor header (3.3) into tensor, its shape into the reader's scratch. Only
 * the wire format and ndim are checked; false with the last error set on failure (tensor is
 * then partly written and not to be used). */
bool rpc_decode_tensor(const utvm_rpc_server_t *server, rpc_reader_t *reader, DLTensor *tensor);

/* Byte size of the elements of a tensor on CPU device 0 (prod(shape) * ceil(bits * lanes / 8));
 * false with the last error set for another device, on overflow beyond 32 bits or a negative
 * dimension. */
bool rpc_tensor_nbytes(const utvm_rpc_server_t *server, const DLTensor *tensor,
                       uint32_t *nbytes);

/* A tensor that may be read or written: rpc_tensor_nbytes succeeds (its byte size goes to
 * *nbytes) and data lies inside a live allocation (a tensor without elements
 * may have NULL data). False with the last error set otherwise. */
bool rpc_check_tensor(const utvm_rpc_server_t *server, const DLTensor *tensor,
                      uint32_t *nbytes);

/* v, or UINT32_MAX if v does not fit in 32 bits. Tensor allocations are below 4 GiB - 1
 * (UTVM_CRT_MAX_PAGES pages of at most 2^UTVM_CRT_MAX_PAGE_SHIFT bytes, checked below), so an
 * offset or length clamped this way is out of range just as the wire value is. */
typedef char rpc_check_allocation_below_4g[
    (((uint64_t)UTVM_CRT_MAX_PAGES << UTVM_CRT_MAX_PAGE_SHIFT) < UINT32_MAX) ? 1 : -1];
static inline uint32_t rpc_clamp_u32(uint64_t v) {
  return (v > UINT32_MAX) ? UINT32_MAX : (uint32_t)v;
}

/* Checks that [data + offset, + nbytes) lies inside one live tensor allocation other than the
 * one a large CallFunc was gathered in (server->rx_buffer) and returns the start; NULL with
 * UTVM_TEXT_RPC_RANGE set otherwise. */
uint8_t *rpc_check_range(const utvm_rpc_server_t *server, const void *data, uint32_t offset,
                         uint32_t nbytes);

#endif /* UTVM_RPC_INTERNAL_H */

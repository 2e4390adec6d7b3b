/*
 * utvm MinRPC server: TVM's RPC protocol (PROTOCOL.md sections 3 and 4) over a utvm
 * session, event-driven and streaming.
 *
 * The application feeds whatever bytes its UART delivered with utvm_rpc_server_feed();
 * the server never waits for input. Requests are executed synchronously inside feed and
 * replies are written through the config's write callback. CopyToRemote payloads are
 * written straight into tensor memory as they are unframed and CopyFromRemote replies are
 * framed straight out of it, so copies are not limited by the receive buffer: only
 * request headers and call arguments are buffered.
 *
 * Every value from the wire is checked: function and module handles against what the
 * runtime issued, data pointers and copy ranges against live tensor allocations, every
 * length against what remains. A violation produces an exception reply whose text is the
 * runtime's last error; the server stays usable.
 */
#ifndef UTVM_RPC_SERVER_H
#define UTVM_RPC_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "utvm/crt.h"
#include "utvm/error.h"
#include "utvm/rpc_codes.h" /* UTVM_RPC_PROTOCOL_VERSION */
#include "utvm/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest packet_nbytes reported through tvm.rpc.server.GetCRTMaxPacketSize: what a TVM
 * host's 2048-byte receive buffer allows (PROTOCOL.md 3.9). */
#define UTVM_RPC_TVM_MAX_PACKET 2037u

/* Smallest argument buffer accepted by utvm_rpc_server_init (a DLTensor argument of
 * 6 dimensions plus the parsed-argument tables fit in it). */
#define UTVM_RPC_MIN_BUFFER_SIZE 256u

/* Most arguments in one CallFunc or syscall (TVM's hosts send up to 40, e.g. an AOT run
 * function with many inputs and outputs). The decoded arguments (12 bytes each) are placed in
 * the request buffer after the request, so the buffer size is the practical limit; this
 * macro only bounds the count read from the wire. */
#ifndef UTVM_RPC_MAX_ARGS
#define UTVM_RPC_MAX_ARGS 64u
#endif

/* Most dimensions of a DLTensor argument, copy or allocation (TVM's C runtime also allows
 * 16). A shape takes 8 bytes per dimension of the request buffer. */
#ifndef UTVM_RPC_MAX_NDIM
#define UTVM_RPC_MAX_NDIM 16u
#endif

/* Name of the utvm-specific global function that returns the largest copy packet
 * (packet_nbytes) a utvm host may use in either direction. Calling it lifts the
 * session's reply limit from the TVM host's 2048 bytes to that size. */
#define UTVM_RPC_GET_MAX_TRANSFER_NAME "utvm.rpc.server.GetMaxTransferSize"

/* Name of the utvm-specific global function Sync(Int token) -> token: a host that lost a
 * reply sends it and discards replies until its token comes back (docs/RECOVERY.md). */
#define UTVM_RPC_SYNC_NAME "utvm.rpc.server.Sync"

/* Name of the utvm-specific global function that announces the sequence extension
 * (docs/RECOVERY.md, PROTOCOL.md): it returns the reply cache size. A host that finds it may
 * put UTVM_RPC_SEQ_PREFIX_SIZE bytes before each request packet:
 *   u32 sequence number | u16 header check | u16 UTVM_RPC_SEQ_TAG
 * and the reply comes with the same prefix (check 0). A repeated number is not run again: its
 * kept reply is sent again. The header check of a CopyToRemote is the CRC-16/CCITT-FALSE of the
 * packet's bytes before the payload: the server verifies it before it writes any payload byte,
 * so a damaged header cannot steer a write elsewhere (other requests: 0, not checked).
 * Registered by utvm_rpc_server_enable_sequence. */
#define UTVM_RPC_SEQUENCE_NAME "utvm.rpc.server.Sequence"
/* Bytes of the prefix of a sequence-numbered request or reply, and its tag ("ut"). */
#define UTVM_RPC_SEQ_PREFIX_SIZE 8u
#define UTVM_RPC_SEQ_TAG 0x7475u
/* Smallest reply cache accepted (every syscall reply and exception text fits in 128). */
#define UTVM_RPC_REPLY_CACHE_MIN 64u
/* Everything the server needs, supplied by the application. */
typedef struct {
  utvm_write_fn write;      /* transport output (e.g. UART transmit) */
  void *write_ctx;
  utvm_random_fn random;    /* session nonces */
  void *random_ctx;
  /* Request buffer: holds one request except copy payloads (headers and CallFunc
   * arguments, including strings and bytes) and the decoded arguments. 8-byte aligned, at
   * least UTVM_RPC_MIN_BUFFER_SIZE. A request larger than the buffer gets the exception
   * "<request>: over request buffer", a CallFunc too unless utvm_rpc_server_enable_large_calls
   * was called. */
  uint8_t *buffer;
  size_t buffer_size;
  /* Largest copy packet (packet_nbytes) offered to a utvm host through
   * UTVM_RPC_GET_MAX_TRANSFER_NAME; 0 disables the function. TVM hosts never call it
   * and are always served within UTVM_RPC_TVM_MAX_PACKET. */
  uint32_t max_transfer_size;
  utvm_crt_config_t crt;    /* arenas and system library of the runtime */
  /* Optional NUL-terminated text sent as a Log message just before the boot
   * TerminateSession, e.g. the cause of the previous reset, so that a host seeing the
   * Terminate already holds the cause. NULL for none; truncated to UTVM_SESSION_LOG_MAX. */
  const char *boot_log;
} utvm_rpc_server_config_t;

/* Request and error counters, cumulative since init. */
typedef struct {
  uint32_t requests;        /* RPC packets executed (including those answered by exception) */
  uint32_t exceptions;      /* exception replies sent */
  uint32_t copy_crc_errors; /* CopyToRemote whose payload failed its CRC */
  uint32_t discarded;       /* requests dropped without reply (truncated frames, empty packets) */
  uint32_t write_errors;    /* transport write failures while replying */
  uint32_t replays;         /* repeated sequence numbers answered from the reply cache */
  uint32_t reruns;          /* repeated CopyFromRemote run again (reply was not kept) */
  uint32_t stale;           /* requests with an older sequence number, dropped unanswered */
} utvm_rpc_server_stats_t;

/* A server instance. Fields are private; initialise with utvm_rpc_server_init(). */
typedef struct {
  /* Receive state first: fields at short offsets take shorter loads and stores on Thumb. */
  uint8_t *buffer;
  uint32_t buffer_size;
  uint32_t body_len;        /* RPC body bytes (u64 prefix included) of the current request */
  uint32_t received;        /* body bytes received so far */
  uint32_t collect;         /* body bytes to gather in buffer before the next decision */
  uint8_t *copy_dst;        /* CopyToRemote: where the next payload byte goes */
  uint8_t *rx_buffer;       /* where the request is gathered: buffer, or the large-CallFunc
                             * allocation in the tensor arena (freed when the request ends) */
  int32_t code;             /* RPC code of the current request */
  uint8_t rx_state;
  uint8_t seq_flags;        /* RPC_SEQ_ flags (rpc_server.c) */
  uint16_t rx_check;        /* header check of the current request's prefix */
  uint32_t rx_seq;          /* sequence number of the current request, if it has one */
  uint32_t last_seq;        /* the last sequence number run in this session */
  uint8_t *reply_cache;
  uint32_t reply_cache_size;
  uint32_t cache_len;       /* bytes of the kept reply; above reply_cache_size: none kept */
  uint32_t max_transfer_size;
  utvm_rpc_server_stats_t stats;
  void (*reply_ndarray)(void *server, const DLTensor *t); /* utvm_rpc_server_enable_ndarrays */
  const struct utvm_rpc_sequence_ops *sequence;           /* utvm_rpc_server_enable_sequence */
  void (*gather_call)(void *server);                 /* utvm_rpc_server_enable_large_calls */
  utvm_session_t session;
  utvm_crt_t crt;
} utvm_rpc_server_t;

/* Initialises the runtime and the session, sends config->boot_log (if any) and the boot
 * TerminateSession. Returns
 * UTVM_ERR_SESSION_BAD_ARGUMENT for a missing callback or a buffer below
 * UTVM_RPC_MIN_BUFFER_SIZE, the runtime's init error, or the write error. The server keeps
 * pointers to the buffers and arenas (owned by the application, which must keep them). */
utvm_err_t utvm_rpc_server_init(utvm_rpc_server_t *server, const utvm_rpc_server_config_t *config);

/* Consumes n received bytes of any chunking; executes complete requests and writes their
 * replies before returning. Never fails: bad input is answered or discarded and counted. */
void utvm_rpc_server_feed(utvm_rpc_server_t *server, const uint8_t *data, size_t n);

/* Lets CallFunc return NDArrays ([Int 13][DLTensor][Opaque nd], PROTOCOL.md 3.5), as the graph
 * and AOT executors' get_input / get_output do: call after utvm_rpc_server_init in a firmware
 * that registers executors (utvm/graph.h, utvm/aot.h). Without it such a result is answered
 * with the exception "unsupported type code 0xd" and the code is not linked. */
void utvm_rpc_server_enable_ndarrays(utvm_rpc_server_t *server);

/* Turns the sequence extension on (exactly-once requests for a utvm host, docs/RECOVERY.md):
 * registers UTVM_RPC_SEQUENCE_NAME and keeps the reply to the last numbered request in
 * reply_cache (owned by the application), sent again when the host repeats that request. A
 * larger reply is not kept: a repeated CopyFromRemote then runs again, any other request is
 * answered "<request>: repeated; ran once, reply not kept". 128 bytes keep every reply but
 * copies, strings, bytes and NDArrays of more than 6 dimensions. Call once, after
 * utvm_rpc_server_init. Returns UTVM_ERR_SESSION_BAD_ARGUMENT for a NULL server or cache or a
 * size below UTVM_RPC_REPLY_CACHE_MIN, else the registration's error. Without it the global
 * does not exist, a utvm host sends plain requests (recovering with UTVM_RPC_SYNC_NAME), a
 * numbered one is refused ("length mismatch": its prefix is no packet length) and the code is
 * not linked. */
utvm_err_t utvm_rpc_server_enable_sequence(utvm_rpc_server_t *server, uint8_t *reply_cache,
                                           uint32_t reply_cache_size);

/* Lets a CallFunc larger than the request buffer through (TVM sends a graph JSON or a parameter
 * blob as one argument: firmware with executors calls it): it is received into a temporary
 * allocation of the tensor arena, freed after the call; without room for it the request is
 * answered "CallFunc: over request buffer, needs 0x<N> bytes of the tensor arena, 0x<M> free".
 * Without it such a CallFunc gets "CallFunc: over request buffer" and the code is not linked. */
void utvm_rpc_server_enable_large_calls(utvm_rpc_server_t *server);

/* Sends a Log message to the host (1..UTVM_SESSION_LOG_MAX bytes, no terminator needed);
 * allowed at any time except while a reply is being written. Errors as
 * utvm_session_send_log. */
utvm_err_t utvm_rpc_server_log(utvm_rpc_server_t *server, const char *text, size_t len);

/* Counters of the server, its session and its framing decoder; any pointer may be NULL. */
void utvm_rpc_server_get_stats(const utvm_rpc_server_t *server, utvm_rpc_server_stats_t *rpc,
                               utvm_session_stats_t *session, utvm_unframer_stats_t *framing);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_RPC_SERVER_H */

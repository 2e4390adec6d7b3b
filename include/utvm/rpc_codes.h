/*
 * TVM RPC packet codes (PROTOCOL.md 3.2), shared by the device server (src/minrpc) and the
 * host client (host/). Every Normal message carries one packet:
 * u64 packet_nbytes | i32 code | code-specific contents.
 */
#ifndef UTVM_RPC_CODES_H
#define UTVM_RPC_CODES_H

#ifdef __cplusplus
extern "C" {
#endif

/* RPC protocol version spoken by the server and the host (TVM v0.18). */
#define UTVM_RPC_PROTOCOL_VERSION "0.8.0"

typedef enum {
  UTVM_RPC_NONE = 0,
  UTVM_RPC_SHUTDOWN = 1,
  UTVM_RPC_INIT_SERVER = 2,
  UTVM_RPC_CALL_FUNC = 3,
  UTVM_RPC_RETURN = 4,
  UTVM_RPC_EXCEPTION = 5,
  UTVM_RPC_COPY_FROM_REMOTE = 6,
  UTVM_RPC_COPY_TO_REMOTE = 7,
  UTVM_RPC_COPY_ACK = 8,
  /* Syscalls (>= 9): their contents are one packed argument sequence. */
  UTVM_RPC_GET_GLOBAL_FUNC = 9,
  UTVM_RPC_FREE_HANDLE = 10,
  UTVM_RPC_DEV_SET_DEVICE = 11,
  UTVM_RPC_DEV_GET_ATTR = 12,
  UTVM_RPC_DEV_ALLOC_DATA = 13,
  UTVM_RPC_DEV_FREE_DATA = 14,
  UTVM_RPC_DEV_STREAM_SYNC = 15,
  UTVM_RPC_COPY_AMONG_REMOTE = 16,
  UTVM_RPC_DEV_ALLOC_DATA_WITH_SCOPE = 17,
  UTVM_RPC_DEV_CREATE_STREAM = 18,
  UTVM_RPC_DEV_FREE_STREAM = 19,
  UTVM_RPC_DEV_SET_STREAM = 20,
  UTVM_RPC_DEV_GET_CURRENT_STREAM = 21
} utvm_rpc_code_t;

#ifdef __cplusplus
}
#endif

#endif /* UTVM_RPC_CODES_H */

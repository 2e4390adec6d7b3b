/*
 * utvm host library: the initiator side of a microTVM link (PROTOCOL.md sections 2-4), for
 * POSIX hosts.
 *
 * It reuses the device's framing and session layers (utvm_session_t as initiator) and adds
 * transports (child process, serial port, TCP, QEMU), the session handshake with retries, and
 * an RPC client for every request a TVM v0.18 host can send. Every wait is bounded by a
 * timeout; nothing here can block forever.
 *
 * Memory: the library allocates with malloc. Objects returned through out-pointers are owned
 * by the caller and released with the matching free function; strings and bytes inside a
 * returned value point into the client's reply buffer and stay valid until the next request
 * on the same client.
 *
 * Not thread-safe: use one client per thread.
 *
 * Library utvm_host_link (host/link/): no model, runner or compiler code, so a program that only
 * talks to a device links none (the compiler is utvm_host_compiler: utvm/host_compile.h).
 */
#ifndef UTVM_HOST_H
#define UTVM_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/framing.h"
#include "utvm/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Errors of the host library. */
typedef enum {
  UTVM_HOST_OK = 0,
  UTVM_HOST_ERR_ARGUMENT,         /* bad argument or transport specification */
  UTVM_HOST_ERR_CONNECT,          /* the transport could not be opened */
  UTVM_HOST_ERR_IO,               /* read/write failure or end of stream */
  UTVM_HOST_ERR_HANDSHAKE,        /* no StartSessionReply within the start timeout */
  UTVM_HOST_ERR_TIMEOUT,          /* no reply within the call timeout and no resynchronisation
                                   * possible; the client is unusable */
  UTVM_HOST_ERR_DEVICE_EXCEPTION, /* the device answered with an exception (text kept) */
  UTVM_HOST_ERR_DEVICE_RESET,     /* the device terminated the session during a request */
  UTVM_HOST_ERR_NOT_FOUND,        /* a function is not on the device */
  UTVM_HOST_ERR_PROTOCOL,         /* a malformed or unexpected reply */
  UTVM_HOST_ERR_NO_MEMORY,        /* malloc failed or a size limit was exceeded */
  UTVM_HOST_ERR_BROKEN,           /* an earlier timeout or I/O error left the link unusable */
  UTVM_HOST_ERR_LINK              /* a request or its reply was lost and the request was not
                                   * retried (side effects) or retries ran out; the link was
                                   * resynchronised and stays usable; a call may or may not have
                                   * run (docs/RECOVERY.md) */
} utvm_host_err_t;

/* Static name of an error code ("device exception", ...); never NULL. */
const char *utvm_host_strerror(utvm_host_err_t err);

/* Copies a device error text into out (out_size bytes, always NUL-terminated unless out_size
 * is 0), replacing each "#<id>" token of a device built with UTVM_ERROR_TEXTS=OFF by its text
 * (utvm/error_texts.h); unknown ids and everything else are copied as they are, text NULL
 * counts as "". Returns the length written (excluding the NUL), truncated to out_size - 1. */
size_t utvm_host_expand_error(const char *text, char *out, size_t out_size);

/* ------------------------------------------------------------------------- transports */

/* A byte stream to the device. read returns the number of bytes read (> 0), 0 when nothing
 * arrived within timeout_ms, or -1 on end of stream or error. write sends all n bytes within
 * timeout_ms and returns 0, or -1 (error or timeout). close releases everything (child
 * processes are killed and reaped) and may be called once. */
typedef struct {
  long (*read)(void *ctx, uint8_t *buf, size_t n, int32_t timeout_ms);
  int (*write)(void *ctx, const uint8_t *data, size_t n, int32_t timeout_ms);
  void (*close)(void *ctx);
  void *ctx;
} utvm_host_transport_t;

/* Opens a transport from a specification:
 *   exec:CMD             run CMD with /bin/sh -c, talk over its stdin/stdout
 *   serial:PATH[@BAUD]   raw serial port (default 115200 baud)
 *   tcp:HOST:PORT        TCP connection
 *   qemu:BOARD[:ELF]     qemu-system-arm -M <machine of BOARD> ... -kernel ELF; BOARD is a
 *                        preset (cortex-m3, cortex-m4, cortex-m55) or a QEMU machine name;
 *                        ELF defaults to build/BOARD/bin/utvm-server.elf
 *   fault:OPTIONS/SPEC   the transport SPEC behind a fault injector (test links, see below)
 * Child processes run in their own process group; the first child transport sets SIGPIPE to
 * SIG_IGN if it was SIG_DFL (a dead child must not kill the host). On failure returns
 * UTVM_HOST_ERR_ARGUMENT or UTVM_HOST_ERR_CONNECT and writes a reason into errbuf. */
utvm_host_err_t utvm_host_transport_open(const char *spec, utvm_host_transport_t *out,
                                         char *errbuf, size_t errbuf_size);

/* Kills the device behind an exec: or qemu: transport (SIGKILL to its process group) and
 * starts it again with the same command: a power cycle (the new device sends its boot
 * Terminate). UTVM_HOST_ERR_ARGUMENT for other transports, UTVM_HOST_ERR_CONNECT (reason in
 * errbuf) if the restart fails. */
utvm_host_err_t utvm_host_transport_restart(const utvm_host_transport_t *transport,
                                            char *errbuf, size_t errbuf_size);

/* Kills (SIGKILL, whole process group) and reaps every child process that an open exec: or
 * qemu: transport started. Async-signal-safe: for a SIGINT/SIGTERM handler that then exits;
 * the transports are unusable afterwards. */
void utvm_host_kill_children(void);

/* Fault injection (tests of recovery). fault:OPTIONS/SPEC wraps the transport SPEC; OPTIONS
 * is a comma-separated list of key=value:
 *   seed=N         PRNG seed (default 1); the same seed and traffic give the same faults
 *   ber=P          probability that a bit is flipped
 *   drop=P         probability that a byte is dropped
 *   insert=P       probability that a random byte is inserted before a byte
 *   dup=P          probability that a byte is sent twice
 *   split=0|1      deliver writes and reads in random pieces
 *   delay_us=N     sleep before every delivered piece
 *   reset_at=N     when N bytes (both directions together) have passed, stop forwarding and
 *                  restart the device (utvm_host_transport_restart); the rest of that write
 *                  or read is lost. Once.
 * ber, drop, insert and dup apply to both directions; prefix them with "tx." (host to device)
 * or "rx." (device to host) for one direction. Example:
 *   fault:seed=7,ber=1e-4,rx.drop=1e-4,split=1/exec:./utvm-posix-server */

/* Faults injected in one direction. */
typedef struct {
  uint64_t bytes;      /* bytes that entered the injector */
  uint64_t bit_flips;
  uint64_t drops;
  uint64_t inserts;
  uint64_t duplicates;
} utvm_host_fault_counts_t;

typedef struct {
  utvm_host_fault_counts_t to_device;
  utvm_host_fault_counts_t from_device;
  uint64_t split_pieces; /* extra pieces created by split=1 */
  uint32_t resets;       /* device restarts done for reset_at */
  uint64_t traffic;      /* bytes counted for reset_at so far (both directions) */
} utvm_host_fault_stats_t;

/* Copies the counters of a fault transport into *stats; false if transport is not one. */
bool utvm_host_fault_get_stats(const utvm_host_transport_t *transport,
                               utvm_host_fault_stats_t *stats);

/* Sum of injected faults (flips, drops, inserts, duplicates, resets; not split pieces). */
uint64_t utvm_host_fault_total(const utvm_host_fault_stats_t *stats);

/* Arms the device reset at absolute traffic byte `byte` (compare stats.traffic), or disarms
 * it when byte < 0. False if transport is not a fault transport. */
bool utvm_host_fault_set_reset_at(const utvm_host_transport_t *transport, int64_t byte);

/* ------------------------------------------------------------------------- values */

/* Most dimensions of a tensor handled by the host. */
#define UTVM_HOST_MAX_NDIM 16

/* Type codes (TVM's TVMArgTypeCode values, PROTOCOL.md 3.3). */
enum {
  UTVM_TC_INT = 0,
  UTVM_TC_UINT = 1,
  UTVM_TC_FLOAT = 2,
  UTVM_TC_HANDLE = 3,
  UTVM_TC_NULL = 4,
  UTVM_TC_DATATYPE = 5,
  UTVM_TC_DEVICE = 6,
  UTVM_TC_DLTENSOR = 7,
  UTVM_TC_OBJECT = 8,
  UTVM_TC_MODULE = 9,
  UTVM_TC_FUNCTION = 10,
  UTVM_TC_STR = 11,
  UTVM_TC_BYTES = 12,
  UTVM_TC_NDARRAY = 13,
  UTVM_TC_BOOL = 15
};

typedef struct {
  uint8_t code; /* 0 int, 1 uint, 2 float */
  uint8_t bits;
  uint16_t lanes;
} utvm_host_dtype_t;

typedef struct {
  int32_t device_type; /* 1 = CPU */
  int32_t device_id;
} utvm_host_device_t;

/* A DLTensor header as it travels on the wire (data is a device address). */
typedef struct {
  uint64_t data;
  utvm_host_device_t device;
  int32_t ndim;
  utvm_host_dtype_t dtype;
  int64_t shape[UTVM_HOST_MAX_NDIM];
  uint64_t byte_offset;
} utvm_host_tensor_t;

/* One argument or return value. type_code selects the member:
 * INT/BOOL: i; UINT: u; FLOAT: f; HANDLE/MODULE/FUNCTION/OBJECT: handle; NULL: none;
 * DATATYPE: dtype; DEVICE: device; STR/BYTES: bytes (STR arguments may use a NUL-terminated
 * string with len = SIZE_MAX); DLTENSOR: tensor; NDARRAY (returns only): tensor plus
 * ndarray_handle, to be released with utvm_host_free_handle(..., UTVM_TC_NDARRAY). */
typedef struct {
  int32_t type_code;
  union {
    int64_t i;
    uint64_t u;
    double f;
    uint64_t handle;
    utvm_host_dtype_t dtype;
    utvm_host_device_t device;
    struct {
      const uint8_t *data;
      size_t len;
    } bytes;
    utvm_host_tensor_t tensor;
  } v;
  uint64_t ndarray_handle;
} utvm_host_value_t;

/* Bytes of one element of dtype (bits * lanes rounded up to bytes). */
size_t utvm_host_dtype_bytes(utvm_host_dtype_t dtype);

/* Number of data bytes of a tensor (product of shape times element bytes); 0 for a negative
 * dimension. */
size_t utvm_host_tensor_nbytes(const utvm_host_tensor_t *tensor);

/* Parses "float32", "int8", "uint16", "bool", ... into *out; false if unknown. */
bool utvm_host_dtype_parse(const char *text, utvm_host_dtype_t *out);

/* Writes the name of dtype ("float32") into buf (at least 16 bytes). */
void utvm_host_dtype_name(utvm_host_dtype_t dtype, char *buf, size_t size);

/* ------------------------------------------------------------------------- client */

/* Receives every device Log message (text is not NUL-terminated). */
typedef void (*utvm_host_log_fn)(void *ctx, const char *text, size_t len);

/* Progress of a long copy: done of total bytes. */
typedef void (*utvm_host_progress_fn)(void *ctx, size_t done, size_t total);

typedef struct {
  int32_t retry_ms;         /* interval between handshake attempts (default 500) */
  int32_t start_timeout_ms; /* give up the handshake after this (default 5000) */
  int32_t call_timeout_ms;  /* bound of every reply wait (default 10000) */
  utvm_host_log_fn log;     /* NULL: print "device: <text>" on stderr */
  void *log_ctx;
  bool use_max_transfer;    /* ask for UTVM_RPC_GET_MAX_TRANSFER_NAME (default true) */
  bool recover;             /* look up UTVM_RPC_SEQUENCE_NAME and UTVM_RPC_SYNC_NAME at session
                             * start and recover from lost requests and replies (default true,
                             * docs/RECOVERY.md) */
  int32_t max_retries;      /* repeats of one request after a loss (default 10) */
} utvm_host_options_t;

/* Fills opts with the defaults above. */
void utvm_host_options_default(utvm_host_options_t *opts);

typedef struct utvm_host utvm_host_t;

/* Link statistics. */
typedef struct {
  uint64_t bytes_sent;
  uint64_t bytes_received;
  uint32_t requests;
  uint32_t exceptions;
  uint32_t logs;
  uint32_t handshake_attempts;
  uint16_t session_id;
  utvm_session_stats_t session;
  utvm_unframer_stats_t framing; /* packets_ok, crc_errors, ... */
  uint32_t lost_replies;         /* reply waits that timed out */
  uint32_t not_executed;         /* "failed its CRC" exceptions from the device */
  uint32_t resyncs;              /* Sync exchanges sent */
  uint32_t stale_replies;        /* replies discarded while resynchronising */
  uint32_t retries;              /* requests (or copy chunks) sent again after a loss */
  uint32_t damaged_replies;      /* reply waits cut short by a damaged frame (sequenced) */
  uint32_t chunk_shrinks;        /* copy chunks halved after a loss */
  size_t copy_chunk;             /* bytes per copy chunk now (adapts to the link; 0: no copy yet) */
  bool can_recover;              /* the device has UTVM_RPC_SEQUENCE_NAME or UTVM_RPC_SYNC_NAME */
  bool sequenced;                /* requests carry sequence numbers (UTVM_RPC_SEQUENCE_NAME) */
} utvm_host_stats_t;

/* Opens the transport of spec (see utvm_host_transport_open), then the session. opts may be
 * NULL for defaults. On success *out is a client to release with utvm_host_close. On failure
 * *out is NULL and, if errbuf is given, it holds a message. */
utvm_host_err_t utvm_host_open(const char *spec, const utvm_host_options_t *opts,
                               utvm_host_t **out, char *errbuf, size_t errbuf_size);

/* Like utvm_host_open over an already open transport; the client takes ownership of it (it is
 * closed on failure too). */
utvm_host_err_t utvm_host_open_transport(const utvm_host_transport_t *transport,
                                         const utvm_host_options_t *opts, utvm_host_t **out,
                                         char *errbuf, size_t errbuf_size);

/* Runs the handshake again on the same transport (after a device reset). Forgets every
 * cached handle. */
utvm_host_err_t utvm_host_reconnect(utvm_host_t *host);

/* The client's transport (for utvm_host_fault_get_stats and friends); owned by the client. */
const utvm_host_transport_t *utvm_host_get_transport(const utvm_host_t *host);

/* Closes the transport and frees the client (NULL is ignored). */
void utvm_host_close(utvm_host_t *host);

/* Message of the last failure: the device's exception text, the reset cause, what timed
 * out... Never NULL; valid until the next call on host. */
const char *utvm_host_last_error(const utvm_host_t *host);

/* Copies the link statistics into *stats. */
void utvm_host_get_stats(const utvm_host_t *host, utvm_host_stats_t *stats);

/* Processes incoming traffic (logs) for up to timeout_ms. Returns UTVM_HOST_OK on timeout,
 * UTVM_HOST_ERR_IO at end of stream, UTVM_HOST_ERR_DEVICE_RESET if the device terminated. */
utvm_host_err_t utvm_host_poll(utvm_host_t *host, int32_t timeout_ms);

/* ---- RPC requests (each waits for its reply within call_timeout_ms) ---- */

/* GetGlobalFunc: *handle is 0 when the device has no such function (not an error). */
utvm_host_err_t utvm_host_get_global(utvm_host_t *host, const char *name, uint64_t *handle);

/* The system library module handle (runtime.SystemLib), cached per session. */
utvm_host_err_t utvm_host_system_lib(utvm_host_t *host, uint64_t *module);

/* tvm.rpc.server.ModuleGetFunction(module, name, true). UTVM_HOST_ERR_NOT_FOUND if absent. */
utvm_host_err_t utvm_host_module_get_function(utvm_host_t *host, uint64_t module,
                                              const char *name, uint64_t *function);

/* Finds name in the system library, then among the globals. UTVM_HOST_ERR_NOT_FOUND if
 * neither has it. *from_system_lib tells which (may be NULL). */
utvm_host_err_t utvm_host_find_function(utvm_host_t *host, const char *name, uint64_t *function,
                                        bool *from_system_lib);

/* CallFunc: calls function with args and decodes the return into *ret (may be NULL). A call
 * may have side effects, so after a lost reply it is not repeated: UTVM_HOST_ERR_LINK. */
utvm_host_err_t utvm_host_call(utvm_host_t *host, uint64_t function,
                               const utvm_host_value_t *args, size_t num_args,
                               utvm_host_value_t *ret);

/* Like utvm_host_call for a function the caller knows to be idempotent (same result, no side
 * effects when run twice): it is repeated after a lost request or reply. */
utvm_host_err_t utvm_host_call_idempotent(utvm_host_t *host, uint64_t function,
                                          const utvm_host_value_t *args, size_t num_args,
                                          utvm_host_value_t *ret);

/* FreeHandle(handle, type_code): type_code is UTVM_TC_FUNCTION, MODULE, NDARRAY or OBJECT. */
utvm_host_err_t utvm_host_free_handle(utvm_host_t *host, uint64_t handle, int32_t type_code);

/* DevAllocData(device, nbytes, alignment, dtype): *data is the device address. */
utvm_host_err_t utvm_host_dev_alloc_data(utvm_host_t *host, utvm_host_device_t device,
                                         int64_t nbytes, int64_t alignment,
                                         utvm_host_dtype_t dtype, uint64_t *data);

/* DevAllocDataWithScope(tensor header, scope or NULL): *data is the device address. */
utvm_host_err_t utvm_host_dev_alloc_data_with_scope(utvm_host_t *host,
                                                    const utvm_host_tensor_t *tensor,
                                                    const char *scope, uint64_t *data);

/* DevFreeData(device, data). */
utvm_host_err_t utvm_host_dev_free_data(utvm_host_t *host, utvm_host_device_t device,
                                        uint64_t data);

/* InitServer with this host's RPC protocol version (UTVM_RPC_PROTOCOL_VERSION, no
 * arguments): UTVM_HOST_OK if the device speaks it; UTVM_HOST_ERR_DEVICE_EXCEPTION with the device's
 * text on a mismatch (TVM hosts never send it; utvm and TVM devices both answer it). */
utvm_host_err_t utvm_host_init_server(utvm_host_t *host);

/* DevGetAttr(device, kind): the single return value in *value. */
utvm_host_err_t utvm_host_dev_get_attr(utvm_host_t *host, utvm_host_device_t device,
                                       int32_t kind, utvm_host_value_t *value);

/* DevStreamSync(device, stream). */
utvm_host_err_t utvm_host_dev_stream_sync(utvm_host_t *host, utvm_host_device_t device,
                                          uint64_t stream);

/* Largest copy packet (packet_nbytes) in force: the utvm transfer size if the device offers
 * it (and use_max_transfer is set), else GetCRTMaxPacketSize, else 0 (no limit). Cached. */
utvm_host_err_t utvm_host_max_packet(utvm_host_t *host, uint64_t *max_packet);

/* Copies nbytes from data into the device tensor (CopyToRemote, chunked by the max packet;
 * chunk k is sent with byte_offset = tensor->byte_offset + k * block). */
utvm_host_err_t utvm_host_copy_to_device(utvm_host_t *host, const utvm_host_tensor_t *tensor,
                                         const void *data, size_t nbytes);

/* Copies nbytes of the device tensor into data (CopyFromRemote, chunked likewise). */
utvm_host_err_t utvm_host_copy_from_device(utvm_host_t *host, const utvm_host_tensor_t *tensor,
                                           void *data, size_t nbytes);

/* Reports progress of copies longer than one chunk (NULL disables). */
void utvm_host_set_progress(utvm_host_t *host, utvm_host_progress_fn fn, void *ctx);

/* Parameters of runtime.RPCTimeEvaluator (PROTOCOL.md 4.1). */
typedef struct {
  int32_t number;
  int32_t repeat;
  int32_t min_repeat_ms;
  int32_t limit_zero_time_iterations;
  int32_t cooldown_interval_ms;
  int32_t repeats_to_cooldown;
  int32_t cache_flush_bytes;
  const char *f_preproc; /* NULL means "" */
} utvm_host_time_params_t;

/* Fills params with number 1, repeat 1, min_repeat_ms 0, limit_zero_time_iterations 100, rest
 * 0. */
void utvm_host_time_params_default(utvm_host_time_params_t *params);

/* Times function name of module: creates the evaluator, calls it with args, frees it. On
 * success *seconds is a malloc'd array of *count mean seconds per call (one per repeat),
 * freed by the caller with free(). */
utvm_host_err_t utvm_host_time(utvm_host_t *host, uint64_t module, const char *name,
                               const utvm_host_time_params_t *params,
                               const utvm_host_value_t *args, size_t num_args,
                               double **seconds, size_t *count);

/* ------------------------------------------------------------------------- .npy files */

/* A tensor read from a .npy file: data is malloc'd (C order, little-endian). */
typedef struct {
  utvm_host_dtype_t dtype;
  int32_t ndim;
  int64_t shape[UTVM_HOST_MAX_NDIM];
  void *data;
  size_t nbytes;
} utvm_host_npy_t;

/* Reads a .npy file (format v1/v2/v3, dtypes b1 i1 u1 i2 u2 i4 u4 i8 u8 f2 f4 f8, little
 * endian or byte-sized, C order). Returns UTVM_HOST_ERR_ARGUMENT with a reason in errbuf for
 * an unsupported or malformed file. Release with utvm_host_npy_free. */
utvm_host_err_t utvm_host_npy_read(const char *path, utvm_host_npy_t *out, char *errbuf,
                                   size_t errbuf_size);

/* Frees the data of a tensor from utvm_host_npy_read. */
void utvm_host_npy_free(utvm_host_npy_t *npy);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_HOST_H */

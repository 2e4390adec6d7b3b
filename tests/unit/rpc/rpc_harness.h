/*
 * In-process harness for the MinRPC server tests: a server with static arenas, driven by a
 * raw-framing "host" (tests/support reference encoder), fake platform hooks with a scripted
 * timer, RPC packet builders and a reply decoder written from PROTOCOL.md section 3.
 *
 * Test code only: allocation failures abort the process.
 */
#ifndef UTVM_RPC_HARNESS_H
#define UTVM_RPC_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "test_support.h"
#include "utvm/rpc_server.h"

/* Host and device nonces of every harness session: sid 0xA55A, as in vectors/rpc.json. */
#define RPC_H_HOST_NONCE 0x5Au
#define RPC_H_DEVICE_NONCE 0xA5u
/* Request buffer of the harness server (small, so copies must stream). */
#define RPC_H_BUFFER_SIZE 1024u
#define RPC_H_TENSOR_ARENA_SIZE (96u * 1024u)

/* ---------------------------------------------------------------- server */

/* Opt-in features of the harness server (rpc_h_setup_with): the sequence extension with the
 * harness's 256-byte reply cache, large calls, the time evaluator. */
#define RPC_H_SEQUENCE 0x1u
#define RPC_H_LARGE_CALLS 0x2u
#define RPC_H_TIME_EVALUATOR 0x4u

/* Initialises the server (max_transfer as in the config) with every feature and opens the
 * session; asserts the boot Terminate and the StartSessionReply are byte-exact. */
void rpc_h_setup(uint32_t max_transfer);
/* rpc_h_setup with the RPC_H_ features given. */
void rpc_h_setup_with(uint32_t max_transfer, uint32_t features);
void rpc_h_teardown(void);
/* Session nonces used by rpc_h_send / expected by rpc_h_replies after the host re-keyed the
 * session with its own StartSessionInit. */
void rpc_h_set_nonces(uint8_t host, uint8_t device);
utvm_rpc_server_t *rpc_h_server(void);

/* Feeds raw bytes to the server in chunks of chunk bytes (0: all at once). */
void rpc_h_feed(const uint8_t *data, size_t n, size_t chunk);
/* Frames a session message (sid, type, body) and appends it to wire (crc_xor as in
 * test_encode_packet). */
void rpc_h_frame(test_bytes_t *wire, uint16_t sid, uint8_t type, const uint8_t *body, size_t n,
                 uint16_t crc_xor);
/* Everything the server wrote since the last take (then cleared). */
void rpc_h_take_output(test_bytes_t *out);
/* Sends packet in a Normal message of the current session, fed in chunks of chunk bytes. */
void rpc_h_send(const uint8_t *packet, size_t n, size_t chunk);
/* Decodes the output since the last take into Normal-message RPC packets; asserts that every
 * frame is valid and carries the current sid. Returns the number of packets (at most max). */
size_t rpc_h_replies(test_bytes_t *packets, size_t max);
/* Sends packet and asserts exactly one reply, returned in reply (RPC packet, u64 prefix
 * included). */
void rpc_h_call(const uint8_t *packet, size_t n, test_bytes_t *reply);
/* Sends packet and asserts that nothing at all is written back. */
void rpc_h_expect_no_reply(const uint8_t *packet, size_t n);

/* ---------------------------------------------------------------- packets */

/* Packed-sequence builder (PROTOCOL.md 3.3). */
typedef struct {
  test_bytes_t codes;
  test_bytes_t values;
  int32_t num;
} rpc_args_builder_t;

void rpc_ab_init(rpc_args_builder_t *b);
void rpc_ab_free(rpc_args_builder_t *b);
void rpc_ab_int(rpc_args_builder_t *b, int32_t tc, int64_t v); /* 0, 1, 3, 9, 10, 15 */
void rpc_ab_float(rpc_args_builder_t *b, double v);
void rpc_ab_null(rpc_args_builder_t *b);
void rpc_ab_dtype(rpc_args_builder_t *b, uint8_t code, uint8_t bits, uint16_t lanes);
void rpc_ab_device(rpc_args_builder_t *b, int32_t type, int32_t id);
void rpc_ab_bytes(rpc_args_builder_t *b, int32_t tc, const void *data, size_t n); /* 11, 12 */
void rpc_ab_str(rpc_args_builder_t *b, const char *s);
/* DLTensor argument: data, device {dev_type, 0}, ndim, float32 dtype, shape, byte_offset. */
void rpc_ab_tensor(rpc_args_builder_t *b, uint64_t data, int32_t dev_type, int32_t ndim,
                   const int64_t *shape, uint64_t byte_offset);
/* DLTensor argument on cpu(0) of dtype {code, bits, 1}, byte_offset 0. */
void rpc_ab_tensor_dtype(rpc_args_builder_t *b, uint64_t data, uint8_t code, uint8_t bits,
                         int32_t ndim, const int64_t *shape);
/* Appends num_args, codes, values to out. */
void rpc_ab_emit(const rpc_args_builder_t *b, test_bytes_t *out);

/* Little-endian appenders. */
void rpc_put_u32(test_bytes_t *out, uint32_t v);
void rpc_put_u64(test_bytes_t *out, uint64_t v);
uint32_t rpc_get_u32(const uint8_t *p);
uint64_t rpc_get_u64(const uint8_t *p);

/* Starts a packet: u64 placeholder + code. rpc_packet_finish patches packet_nbytes. */
void rpc_packet_begin(test_bytes_t *out, int32_t code);
void rpc_packet_finish(test_bytes_t *out);
/* Whole packets. */
void rpc_packet_syscall(test_bytes_t *out, int32_t code, const rpc_args_builder_t *b);
void rpc_packet_call(test_bytes_t *out, uint64_t handle, const rpc_args_builder_t *b);
/* CopyToRemote / CopyFromRemote of a 1-D uint8 tensor of `shape` elements at data. */
void rpc_packet_copy_to(test_bytes_t *out, uint64_t data, int64_t shape, uint64_t offset,
                        const uint8_t *payload, size_t n);
void rpc_packet_copy_from(test_bytes_t *out, uint64_t data, int64_t shape, uint64_t offset,
                          uint64_t n);

/* ---------------------------------------------------------------- replies */

#define RPC_H_MAX_VALUES 8u

typedef struct {
  int32_t tc;
  uint64_t u;           /* scalar value / handle / str-bytes length */
  const uint8_t *bytes; /* str/bytes payload, DLTensor header */
  size_t len;           /* encoded size of the value */
} rpc_value_t;

typedef struct {
  int32_t code;
  int32_t num;
  rpc_value_t values[RPC_H_MAX_VALUES];
  const uint8_t *data; /* CopyAck payload */
  size_t data_len;
} rpc_reply_t;

/* Decodes a packed sequence at p[0..n); returns false if malformed. *used = bytes taken. */
bool rpc_parse_seq(const uint8_t *p, size_t n, rpc_value_t *values, int32_t max, int32_t *num,
                   size_t *used);
/* Decodes a reply packet (prefix included); asserts it is well formed and exactly sized. */
void rpc_parse_reply(const uint8_t *packet, size_t n, rpc_reply_t *reply);
/* Asserts the reply is an exception, and returns its text with "#<id>" tokens expanded
 * (test_expand_error: NUL-terminated copy, static). */
const char *rpc_expect_exception(const test_bytes_t *reply);
/* Asserts a syscall reply carrying a handle; returns it. */
uint64_t rpc_expect_handle(const test_bytes_t *reply);
/* Asserts Return_void bytes. */
void rpc_expect_void(const test_bytes_t *reply);
/* Asserts a CallFunc reply [Int tc][value]; returns the value's u64. */
uint64_t rpc_expect_call_result(const test_bytes_t *reply, int32_t tc);

/* ---------------------------------------------------------------- conveniences */

uint64_t rpc_h_get_global(const char *name);
/* ModuleGetFunction(runtime.SystemLib module, name); 0 when absent. */
uint64_t rpc_h_syslib_function(const char *name);
/* DevAllocData on cpu(0) of nbytes (alignment 64, uint8); returns the pointer. */
uint64_t rpc_h_alloc(uint64_t nbytes);
void rpc_h_free(uint64_t ptr);
/* Asserts that the server still answers GetGlobalFunc("runtime.SystemLib"). */
void rpc_h_expect_alive(void);

/* ---------------------------------------------------------------- fake platform */

/* The fake timer is a virtual clock that advances only when TVMPlatformTimerStopNs is called,
 * by ticks_ns[k] nanoseconds at the k-th stop (the last tick repeats); a stop reports the
 * time since its matching start. Nested start/stop pairs are allowed (4 deep). */
void fake_timer_script(const uint64_t *ticks_ns, size_t n);
/* Number of TimerStart calls since the last script. */
size_t fake_timer_starts(void);

#endif /* UTVM_RPC_HARNESS_H */

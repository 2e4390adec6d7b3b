/*
 * libFuzzer target for the whole device stack: framing + session + MinRPC server + C runtime
 * with the test system library, in process, with fake platform hooks.
 *
 * Input: the fuzz_input.h header (byte 0: chunking, bit 7 set: every fifth transport write
 * fails; byte 1: unused), then a sequence of records, structure-aware:
 *
 *   [mode u8][length u16 LE][length bytes]   (a short last record takes what remains)
 *
 *   mode & 3 == 0  the bytes are an RPC packet without its u64 length prefix: the harness
 *                  adds the prefix and frames it as a Normal message of the open session;
 *   mode & 3 == 1  the bytes are a whole RPC packet, prefix included (as in rpc.json), framed
 *                  as a Normal message of the open session;
 *   mode & 3 == 2  as 0, then the wire byte at (mode >> 2) * 7 modulo the frame length is
 *                  XORed with 0xA5 (CRC errors, broken escapes, bad lengths, stray starts);
 *   mode & 3 == 3  the bytes are fed raw.
 *
 * The server is initialised and its session opened (sid 0xA55A, as in vectors/rpc.json)
 * before every input, with a reply cache (the sequence extension, PROTOCOL.md 8.6). Seeds:
 * tests/fuzz/corpus/rpc/ (the host->device rpc_packet_hex vectors of rpc.json as mode-1
 * records, one per file and all in one conversation; seed-sequence-*: numbered requests, a
 * repeat, an older number and a plain packet after them).
 *
 * Checked on every input:
 *  - ASan/UBSan: no memory error anywhere in the stack;
 *  - TVMPlatformAbort is only reached through test_abort (its code); it longjmps back here
 *    and the server is initialised afresh, as a device would reboot;
 *  - when writes never fail, everything the server wrote decodes as good frames of at most
 *    the TVM host's 2048-byte message size;
 *  - no wedge: after the input, a TVM host that sends 0xfe, TerminateSession,
 *    StartSessionInit gets a StartSessionReply, and its GetGlobalFunc("runtime.SystemLib")
 *    in the new session gets a non-zero handle.
 *
 * Bounded work: test_syslib_time_us advances a fake clock by one second per read (so
 * test_busy_wait_us polls at most 11 times), and tests/fuzz/CMakeLists.txt builds the fuzz
 * copy of utvm_crt with small time-evaluator limits (number, repeat).
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "test_syslib.h"
#include "tvm/runtime/crt/platform.h"
#include "utvm/framing.h"
#include "utvm/rpc_server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const TVMModule *TVMSystemLibEntryPoint(void);

#define REQUEST_BUFFER_SIZE 512u
#define TENSOR_ARENA_SIZE (64u * 1024u)
#define WORKSPACE_ARENA_SIZE 4096u
#define HOST_NONCE 0x5Au
#define DEVICE_NONCE 0xA5u
#define SESSION_ID ((uint16_t)(HOST_NONCE | (DEVICE_NONCE << 8)))
#define RECORD_HEADER_SIZE 3u
#define RPC_PREFIX_SIZE 8u
#define RPC_CODE_RETURN 4u
#define TYPE_CODE_HANDLE 3u
#define WRITE_FAIL_PERIOD 5u

static uint8_t request_buffer[REQUEST_BUFFER_SIZE] __attribute__((aligned(8)));
static uint8_t reply_cache[128];
static uint8_t tensor_arena[TENSOR_ARENA_SIZE] __attribute__((aligned(64)));
static uint8_t workspace_arena[WORKSPACE_ARENA_SIZE] __attribute__((aligned(64)));
static utvm_rpc_server_t server;

typedef struct {
  fuzz_bytes_t out;
  bool failing;
  uint32_t calls;
} transport_t;

static transport_t transport;

/* ---------------------------------------------------------------- fake platform */

static jmp_buf abort_target;
static bool abort_armed;
static uint64_t clock_us;
static uint64_t timer_started_us;
static bool timer_running;

uint64_t test_syslib_time_us(void) {
  clock_us += 1000000u;
  return clock_us;
}

tvm_crt_error_t TVMPlatformTimerStart(void) {
  if (timer_running) {
    return kTvmErrorPlatformTimerBadState;
  }
  timer_running = true;
  timer_started_us = clock_us;
  return kTvmErrorNoError;
}

tvm_crt_error_t TVMPlatformTimerStopNs(uint64_t *elapsed_ns) {
  if (!timer_running) {
    return kTvmErrorPlatformTimerBadState;
  }
  timer_running = false;
  clock_us += 1000u;
  *elapsed_ns = (clock_us - timer_started_us) * 1000u;
  return kTvmErrorNoError;
}

tvm_crt_error_t TVMPlatformBeforeMeasurement(void) { return kTvmErrorNoError; }
tvm_crt_error_t TVMPlatformAfterMeasurement(void) { return kTvmErrorNoError; }

void TVMPlatformAbort(tvm_crt_error_t code) {
  FUZZ_CHECK(abort_armed);
  FUZZ_CHECK(code == (tvm_crt_error_t)TEST_SYSLIB_ABORT_CODE);
  longjmp(abort_target, 1);
}

static utvm_err_t transport_write(void *ctx, const uint8_t *data, size_t n) {
  transport_t *t = (transport_t *)ctx;
  FUZZ_CHECK(n > 0u && data != NULL);
  t->calls++;
  if (t->failing && (t->calls % WRITE_FAIL_PERIOD) == 0u) {
    return UTVM_ERR_WRITE_FAILED;
  }
  fuzz_bytes_append(&t->out, data, n);
  return UTVM_OK;
}

static utvm_err_t device_random(void *ctx, uint8_t *buf, size_t n) {
  (void)ctx;
  (void)memset(buf, DEVICE_NONCE, n);
  return UTVM_OK;
}

/* ---------------------------------------------------------------- host side */

static utvm_err_t append_write(void *ctx, const uint8_t *data, size_t n) {
  fuzz_bytes_append((fuzz_bytes_t *)ctx, data, n);
  return UTVM_OK;
}

/* Appends one frame carrying a session message (sid, type, body) to wire. */
static void frame_message(fuzz_bytes_t *wire, uint16_t sid, uint8_t type, const uint8_t *prefix,
                          size_t prefix_len, const uint8_t *body, size_t body_len) {
  utvm_framer_t framer;
  const uint8_t header[UTVM_SESSION_HEADER_SIZE] = {(uint8_t)sid, (uint8_t)(sid >> 8), type};
  utvm_framer_init(&framer, append_write, wire);
  FUZZ_CHECK(utvm_framer_start(&framer, (uint32_t)(sizeof(header) + prefix_len + body_len)) ==
             UTVM_OK);
  FUZZ_CHECK(utvm_framer_write(&framer, header, sizeof(header)) == UTVM_OK);
  if (prefix_len > 0u) {
    FUZZ_CHECK(utvm_framer_write(&framer, prefix, prefix_len) == UTVM_OK);
  }
  if (body_len > 0u) {
    FUZZ_CHECK(utvm_framer_write(&framer, body, body_len) == UTVM_OK);
  }
  FUZZ_CHECK(utvm_framer_finish(&framer) == UTVM_OK);
}

/* Feeds wire in chunks drawn from the input's chunking generator. */
static void feed(fuzz_input_t *in, const uint8_t *wire, size_t n) {
  size_t pos = 0u;
  while (pos < n) {
    size_t take = n - pos;
    if (in->chunk_limit != 0u) {
      in->rng ^= in->rng << 13;
      in->rng ^= in->rng >> 17;
      in->rng ^= in->rng << 5;
      size_t limit = 1u + (size_t)(in->rng % in->chunk_limit);
      take = (take < limit) ? take : limit;
    }
    utvm_rpc_server_feed(&server, &wire[pos], take);
    pos += take;
  }
}

/* Initialises the server and opens the session as a TVM host does. */
static void start_server(void) {
  const utvm_rpc_server_config_t config = {
      transport_write, &transport, device_random, NULL, request_buffer, sizeof(request_buffer),
      0u,
      {tensor_arena, sizeof(tensor_arena), workspace_arena, sizeof(workspace_arena),
       TVMSystemLibEntryPoint(), NULL},
      NULL};
  timer_running = false;
  FUZZ_CHECK(utvm_rpc_server_init(&server, &config) == UTVM_OK);
  FUZZ_CHECK(utvm_rpc_server_enable_sequence(&server, reply_cache, sizeof(reply_cache)) ==
             UTVM_OK);
  utvm_rpc_server_enable_large_calls(&server);
  FUZZ_CHECK(utvm_crt_enable_time_evaluator() == UTVM_OK);
  static const uint8_t version = UTVM_SESSION_VERSION;
  static const uint8_t resync = 0xFEu;
  fuzz_bytes_t wire = {NULL, 0u, 0u};
  fuzz_bytes_append(&wire, &resync, 1u);
  frame_message(&wire, 0u, (uint8_t)UTVM_MSG_TERMINATE_SESSION, NULL, 0u, NULL, 0u);
  frame_message(&wire, HOST_NONCE, (uint8_t)UTVM_MSG_START_SESSION_INIT, NULL, 0u, &version, 1u);
  utvm_rpc_server_feed(&server, wire.data, wire.len);
  FUZZ_CHECK(utvm_session_state(&server.session) == UTVM_SESSION_STATE_ESTABLISHED);
  FUZZ_CHECK(utvm_session_id(&server.session) == SESSION_ID);
  fuzz_bytes_free(&wire);
}

/* ---------------------------------------------------------------- output checks */

typedef struct {
  fuzz_bytes_t payload;
  uint32_t bad_frames;
  uint16_t sid;      /* session of the Normal replies looked at */
  uint16_t new_sid;  /* sid of the last StartSessionReply, 0 if none */
  bool got_handle;   /* a Normal Return [handle] reply with a non-zero handle */
} output_check_t;

static void out_start(void *ctx, uint32_t payload_len) {
  (void)payload_len;
  ((output_check_t *)ctx)->payload.len = 0u;
}

static void out_payload(void *ctx, const uint8_t *data, size_t n) {
  fuzz_bytes_append(&((output_check_t *)ctx)->payload, data, n);
}

static uint32_t get_u32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void out_end(void *ctx, utvm_frame_status_t status) {
  output_check_t *c = (output_check_t *)ctx;
  if (status != UTVM_FRAME_OK) {
    c->bad_frames++;
    return;
  }
  const uint8_t *m = c->payload.data;
  size_t len = c->payload.len;
  FUZZ_CHECK(len >= UTVM_SESSION_HEADER_SIZE && len <= UTVM_SESSION_TVM_HOST_MAX_MESSAGE);
  if (m[2] == (uint8_t)UTVM_MSG_START_SESSION_REPLY && len == UTVM_SESSION_HEADER_SIZE + 1u) {
    c->new_sid = (uint16_t)(m[0] | (m[1] << 8));
  }
  /* Return packet: u64 length 20, code 4, one value, type code 3, u64 handle. */
  const size_t reply_len = UTVM_SESSION_HEADER_SIZE + RPC_PREFIX_SIZE + 20u;
  if (m[2] == (uint8_t)UTVM_MSG_NORMAL && len == reply_len &&
      (uint16_t)(m[0] | (m[1] << 8)) == c->sid) {
    const uint8_t *p = &m[UTVM_SESSION_HEADER_SIZE];
    uint64_t handle = (uint64_t)get_u32(&p[20]) | ((uint64_t)get_u32(&p[24]) << 32);
    if (get_u32(&p[0]) == 20u && get_u32(&p[4]) == 0u && get_u32(&p[8]) == RPC_CODE_RETURN &&
        get_u32(&p[12]) == 1u && get_u32(&p[16]) == TYPE_CODE_HANDLE && handle != 0u) {
      c->got_handle = true;
    }
  }
}

static void check_output(const fuzz_bytes_t *out, output_check_t *result) {
  const utvm_unframer_handler_t handler = {out_start, out_payload, out_end, result};
  utvm_unframer_t decoder;
  result->bad_frames = 0u;
  result->new_sid = 0u;
  result->got_handle = false;
  utvm_unframer_init(&decoder, &handler, UINT32_MAX);
  utvm_unframer_feed(&decoder, out->data, out->len);
  FUZZ_CHECK(!utvm_unframer_in_packet(&decoder));
  FUZZ_CHECK(result->bad_frames == 0u && decoder.stats.invalid_escapes == 0u);
}

/* The host reopens the session and asks for the system library. */
static void check_alive(output_check_t *check) {
  static const char name[] = "runtime.SystemLib";
  /* GetGlobalFunc (9), one Str argument (type code 11, u64 length, bytes). */
  uint8_t packet[RPC_PREFIX_SIZE + 4u + 4u + 4u + 8u + sizeof(name) - 1u];
  const uint32_t body_len = (uint32_t)(sizeof(packet) - RPC_PREFIX_SIZE);
  const uint32_t words[] = {body_len, 0u, 9u, 1u, 11u, (uint32_t)(sizeof(name) - 1u), 0u};
  for (size_t i = 0u; i < sizeof(words) / sizeof(words[0]); i++) {
    for (size_t b = 0u; b < 4u; b++) {
      packet[4u * i + b] = (uint8_t)(words[i] >> (8u * b));
    }
  }
  (void)memcpy(&packet[sizeof(words)], name, sizeof(name) - 1u);

  static const uint8_t version = UTVM_SESSION_VERSION;
  static const uint8_t resync = 0xFEu;
  fuzz_bytes_t wire = {NULL, 0u, 0u};
  fuzz_bytes_append(&wire, &resync, 1u);
  frame_message(&wire, 0u, (uint8_t)UTVM_MSG_TERMINATE_SESSION, NULL, 0u, NULL, 0u);
  frame_message(&wire, HOST_NONCE, (uint8_t)UTVM_MSG_START_SESSION_INIT, NULL, 0u, &version, 1u);
  transport.failing = false;
  transport.out.len = 0u;
  utvm_rpc_server_feed(&server, wire.data, wire.len);
  check_output(&transport.out, check);
  /* The device picks a fresh nonce on every handshake. */
  FUZZ_CHECK((check->new_sid & 0xFFu) == HOST_NONCE && (check->new_sid >> 8) != 0u);
  check->sid = check->new_sid;
  wire.len = 0u;
  frame_message(&wire, check->sid, (uint8_t)UTVM_MSG_NORMAL, NULL, 0u, packet, sizeof(packet));
  transport.out.len = 0u;
  utvm_rpc_server_feed(&server, wire.data, wire.len);
  fuzz_bytes_free(&wire);
  check_output(&transport.out, check);
  FUZZ_CHECK(check->got_handle);
}

/* ---------------------------------------------------------------- records */

static void run_record(fuzz_input_t *in, uint8_t mode, const uint8_t *bytes, size_t n,
                       fuzz_bytes_t *wire) {
  wire->len = 0u;
  switch (mode & 3u) {
    case 0u:
    case 2u: {
      uint8_t prefix[RPC_PREFIX_SIZE];
      for (size_t b = 0u; b < RPC_PREFIX_SIZE; b++) {
        prefix[b] = (uint8_t)((uint64_t)n >> (8u * b));
      }
      frame_message(wire, SESSION_ID, (uint8_t)UTVM_MSG_NORMAL, prefix, sizeof(prefix), bytes, n);
      if ((mode & 3u) == 2u) {
        wire->data[((size_t)(mode >> 2) * 7u) % wire->len] ^= 0xA5u;
      }
      feed(in, wire->data, wire->len);
      break;
    }
    case 1u:
      frame_message(wire, SESSION_ID, (uint8_t)UTVM_MSG_NORMAL, NULL, 0u, bytes, n);
      feed(in, wire->data, wire->len);
      break;
    default:
      feed(in, bytes, n);
      break;
  }
}

/* Runs every record of the input; returns false if test_abort was reached. */
static bool run_records(fuzz_input_t *in, fuzz_bytes_t *wire) {
  if (setjmp(abort_target) != 0) {
    abort_armed = false;
    return false;
  }
  abort_armed = true;
  while (in->size - in->pos >= RECORD_HEADER_SIZE) {
    const uint8_t *r = &in->stream[in->pos];
    size_t n = (size_t)r[1] | ((size_t)r[2] << 8);
    in->pos += RECORD_HEADER_SIZE;
    if (n > in->size - in->pos) {
      n = in->size - in->pos;
    }
    run_record(in, r[0], &in->stream[in->pos], n, wire);
    in->pos += n;
  }
  abort_armed = false;
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input_t in;
  if (!fuzz_input_init(&in, data, size)) {
    return 0;
  }
  transport.failing = false;
  transport.out.len = 0u;
  start_server();
  transport.out.len = 0u;
  transport.failing = in.fault;

  fuzz_bytes_t wire = {NULL, 0u, 0u};
  output_check_t check = {{NULL, 0u, 0u}, 0u, SESSION_ID, 0u, false};
  if (!run_records(&in, &wire)) {
    /* test_abort: the device reboots. */
    transport.failing = false;
    transport.out.len = 0u;
    start_server();
  } else if (!in.fault) {
    check_output(&transport.out, &check);
  }
  fuzz_bytes_free(&wire);

  check_alive(&check);
  fuzz_bytes_free(&check.payload);
  utvm_crt_shutdown(&server.crt);
  return 0;
}

/*
 * Whole-stack RPC workload for bench/run.sh (run under valgrind --tool=callgrind).
 *
 * usage: bench_rpc <call|copy_to|copy_from> <count or payload bytes>
 *
 *   call N        N CallFunc requests of tvm.rpc.server.GetCRTMaxPacketSize (no arguments,
 *                 Int result): the cost of a null call;
 *   copy_to N     one CopyToRemote of N bytes into a uint8 tensor;
 *   copy_from N   one CopyFromRemote of N bytes (one CopyAck reply).
 *
 * A server (framing + session + MinRPC + runtime, test system library) is set up in process:
 * handshake, GetGlobalFunc, the utvm transfer-size call that lifts the reply limit, and a
 * DevAllocData of the tensor. The measured requests are framed beforehand and fed in 256-byte
 * chunks through measured_feed(), the only function run.sh counts (--toggle-collect), replies
 * going to a byte-counting write callback. Prints the requests and reply bytes seen.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_syslib.h"
#include "tvm/runtime/crt/platform.h"
#include "utvm/framing.h"
#include "utvm/rpc_server.h"

const TVMModule *TVMSystemLibEntryPoint(void);

#define FEED_CHUNK 256u
#define MAX_COPY_BYTES (256u * 1024u)
#define TENSOR_ARENA_SIZE (MAX_COPY_BYTES + 64u * 1024u)
#define HOST_NONCE 0x5Au
#define DEVICE_NONCE 0xA5u
#define SESSION_ID ((uint16_t)(HOST_NONCE | (DEVICE_NONCE << 8)))

static uint8_t request_buffer[2048] __attribute__((aligned(8)));
static uint8_t tensor_arena[TENSOR_ARENA_SIZE] __attribute__((aligned(64)));
static uint8_t workspace_arena[4096] __attribute__((aligned(64)));
static utvm_rpc_server_t server;

typedef struct {
  uint8_t *data;
  size_t len;
  size_t cap;
} bytes_t;

static void die(const char *what) {
  (void)fprintf(stderr, "bench_rpc: %s\n", what);
  exit(1);
}

static void bytes_append(bytes_t *b, const void *data, size_t n) {
  if (b->len + n > b->cap) {
    size_t cap = (b->cap == 0u) ? 1024u : b->cap;
    while (cap < b->len + n) {
      cap *= 2u;
    }
    b->data = (uint8_t *)realloc(b->data, cap);
    if (b->data == NULL) {
      die("out of memory");
    }
    b->cap = cap;
  }
  (void)memcpy(&b->data[b->len], data, n);
  b->len += n;
}

static void put_u32(bytes_t *b, uint32_t v) {
  uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  bytes_append(b, le, sizeof(le));
}

static void put_u64(bytes_t *b, uint64_t v) {
  put_u32(b, (uint32_t)v);
  put_u32(b, (uint32_t)(v >> 32));
}

static uint64_t get_u64(const uint8_t *p) {
  uint64_t v = 0u;
  for (size_t i = 0u; i < 8u; i++) {
    v |= (uint64_t)p[i] << (8u * i);
  }
  return v;
}

/* ---------------------------------------------------------------- platform hooks */

uint64_t test_syslib_time_us(void) { return 0u; }
tvm_crt_error_t TVMPlatformTimerStart(void) { return kTvmErrorNoError; }
tvm_crt_error_t TVMPlatformTimerStopNs(uint64_t *elapsed_ns) {
  *elapsed_ns = 1000u;
  return kTvmErrorNoError;
}
tvm_crt_error_t TVMPlatformBeforeMeasurement(void) { return kTvmErrorNoError; }
tvm_crt_error_t TVMPlatformAfterMeasurement(void) { return kTvmErrorNoError; }
void TVMPlatformAbort(tvm_crt_error_t code) {
  (void)fprintf(stderr, "bench_rpc: TVMPlatformAbort(0x%x)\n", (unsigned)code);
  exit(1);
}

/* ---------------------------------------------------------------- transport */

typedef struct {
  bytes_t captured; /* setup replies, decoded by the harness */
  uint64_t counted; /* bytes written while measuring */
  int capture;
} transport_t;

static transport_t transport;

static utvm_err_t transport_write(void *ctx, const uint8_t *data, size_t n) {
  transport_t *t = (transport_t *)ctx;
  if (t->capture) {
    bytes_append(&t->captured, data, n);
  } else {
    t->counted += n;
  }
  return UTVM_OK;
}

static utvm_err_t device_random(void *ctx, uint8_t *buf, size_t n) {
  (void)ctx;
  (void)memset(buf, DEVICE_NONCE, n);
  return UTVM_OK;
}

static utvm_err_t bytes_write(void *ctx, const uint8_t *data, size_t n) {
  bytes_append((bytes_t *)ctx, data, n);
  return UTVM_OK;
}

/* Frames one session message (sid, type, body). */
static void frame(bytes_t *wire, uint16_t sid, uint8_t type, const uint8_t *body, size_t n) {
  utvm_framer_t framer;
  const uint8_t header[3] = {(uint8_t)sid, (uint8_t)(sid >> 8), type};
  utvm_framer_init(&framer, bytes_write, wire);
  if (utvm_framer_start(&framer, (uint32_t)(sizeof(header) + n)) != UTVM_OK ||
      utvm_framer_write(&framer, header, sizeof(header)) != UTVM_OK ||
      (n > 0u && utvm_framer_write(&framer, body, n) != UTVM_OK) ||
      utvm_framer_finish(&framer) != UTVM_OK) {
    die("framing failed");
  }
}

/* The measured region: everything the server does for these bytes, replies included. */
__attribute__((noinline)) void measured_feed(const uint8_t *data, size_t n);
__attribute__((noinline)) void measured_feed(const uint8_t *data, size_t n) {
  utvm_rpc_server_feed(&server, data, n);
}

static void feed_chunked(const bytes_t *wire, int measured) {
  for (size_t i = 0u; i < wire->len; i += FEED_CHUNK) {
    size_t n = (wire->len - i < FEED_CHUNK) ? wire->len - i : FEED_CHUNK;
    if (measured) {
      measured_feed(&wire->data[i], n);
    } else {
      utvm_rpc_server_feed(&server, &wire->data[i], n);
    }
  }
}

typedef struct {
  bytes_t *payload;
  bytes_t current;
} reply_probe_t;

static void probe_start(void *ctx, uint32_t len) {
  (void)len;
  ((reply_probe_t *)ctx)->current.len = 0u;
}

static void probe_payload(void *ctx, const uint8_t *data, size_t n) {
  bytes_append(&((reply_probe_t *)ctx)->current, data, n);
}

static void probe_end(void *ctx, utvm_frame_status_t status) {
  reply_probe_t *p = (reply_probe_t *)ctx;
  if (status == UTVM_FRAME_OK && p->current.len > 3u) {
    p->payload->len = 0u;
    bytes_append(p->payload, &p->current.data[3], p->current.len - 3u);
  }
}

/* Payload of the last good frame in the captured output (the reply), prefix included. */
static void last_reply(bytes_t *reply) {
  reply_probe_t probe = {reply, {NULL, 0u, 0u}};
  const utvm_unframer_handler_t handler = {probe_start, probe_payload, probe_end, &probe};
  utvm_unframer_t decoder;
  reply->len = 0u;
  utvm_unframer_init(&decoder, &handler, UINT32_MAX);
  utvm_unframer_feed(&decoder, transport.captured.data, transport.captured.len);
  free(probe.current.data);
  transport.captured.len = 0u;
}

/* Sends one request during setup; returns the handle of a Return [handle] reply, or 0 for
 * any other Return. */
static uint64_t setup_request(const bytes_t *packet) {
  bytes_t wire = {NULL, 0u, 0u};
  bytes_t reply = {NULL, 0u, 0u};
  frame(&wire, SESSION_ID, (uint8_t)UTVM_MSG_NORMAL, packet->data, packet->len);
  feed_chunked(&wire, 0);
  last_reply(&reply);
  /* [u64 len][i32 Return=4][i32 1][i32 tc=3][u64 handle] */
  if (reply.len < 12u || reply.data[8] != 4u) {
    die("unexpected setup reply");
  }
  uint64_t value = (reply.len == 28u && reply.data[16] == 3u) ? get_u64(&reply.data[20]) : 0u;
  free(wire.data);
  free(reply.data);
  return value;
}

/* Packet builders (PROTOCOL.md section 3). */
static void begin(bytes_t *p, uint32_t code) {
  p->len = 0u;
  put_u64(p, 0u);
  put_u32(p, code);
}

static void finish(bytes_t *p) {
  uint64_t n = p->len - 8u;
  for (size_t i = 0u; i < 8u; i++) {
    p->data[i] = (uint8_t)(n >> (8u * i));
  }
}

static void get_global(bytes_t *p, const char *name) {
  begin(p, 9u);
  put_u32(p, 1u);
  put_u32(p, 11u);
  put_u64(p, strlen(name));
  bytes_append(p, name, strlen(name));
  finish(p);
}

static void call_noargs(bytes_t *p, uint64_t handle) {
  begin(p, 3u);
  put_u64(p, handle);
  put_u32(p, 0u);
  finish(p);
}

/* CopyToRemote (7) / CopyFromRemote (6) header: 1-D uint8 tensor of n bytes at data. */
static void copy_header(bytes_t *p, uint32_t code, uint64_t data, uint64_t n) {
  begin(p, code);
  put_u64(p, data);
  put_u32(p, 1u); /* kDLCPU */
  put_u32(p, 0u);
  put_u32(p, 1u); /* ndim */
  put_u32(p, 0x00010801u); /* uint8 x1 */
  put_u64(p, n);  /* shape[0] */
  put_u64(p, 0u); /* byte_offset */
  put_u64(p, n);  /* nbytes */
}

int main(int argc, char **argv) {
  if (argc != 3) {
    die("usage: bench_rpc <call|copy_to|copy_from> <count or payload bytes>");
  }
  const unsigned long amount = strtoul(argv[2], NULL, 10);
  if (amount > MAX_COPY_BYTES) {
    die("amount too large");
  }
  const utvm_rpc_server_config_t config = {
      transport_write, &transport, device_random, NULL, request_buffer, sizeof(request_buffer),
      MAX_COPY_BYTES + 64u,
      {tensor_arena, sizeof(tensor_arena), workspace_arena, sizeof(workspace_arena),
       TVMSystemLibEntryPoint(), NULL},
      NULL};
  transport.capture = 1;
  if (utvm_rpc_server_init(&server, &config) != UTVM_OK) {
    die("server init failed");
  }
  bytes_t wire = {NULL, 0u, 0u};
  static const uint8_t resync = 0xFEu;
  static const uint8_t version = UTVM_SESSION_VERSION;
  bytes_append(&wire, &resync, 1u);
  frame(&wire, 0u, (uint8_t)UTVM_MSG_TERMINATE_SESSION, NULL, 0u);
  frame(&wire, HOST_NONCE, (uint8_t)UTVM_MSG_START_SESSION_INIT, &version, 1u);
  feed_chunked(&wire, 0);
  if (utvm_session_id(&server.session) != SESSION_ID) {
    die("handshake failed");
  }
  transport.captured.len = 0u;

  bytes_t packet = {NULL, 0u, 0u};
  get_global(&packet, "tvm.rpc.server.GetCRTMaxPacketSize");
  uint64_t max_packet_fn = setup_request(&packet);
  get_global(&packet, UTVM_RPC_GET_MAX_TRANSFER_NAME);
  call_noargs(&packet, setup_request(&packet));
  (void)setup_request(&packet);
  /* DevAllocData (13): device cpu(0), nbytes, alignment 64, dtype uint8. */
  begin(&packet, 13u);
  put_u32(&packet, 4u);
  put_u32(&packet, 6u);
  put_u32(&packet, 0u);
  put_u32(&packet, 0u);
  put_u32(&packet, 5u);
  put_u32(&packet, 1u);
  put_u32(&packet, 0u);
  put_u64(&packet, MAX_COPY_BYTES);
  put_u64(&packet, 64u);
  put_u32(&packet, 0x00010801u);
  put_u32(&packet, 0u);
  finish(&packet);
  uint64_t tensor = setup_request(&packet);
  if (max_packet_fn == 0u || tensor == 0u) {
    die("setup failed");
  }

  /* The measured requests, framed beforehand. */
  unsigned long requests = 1u;
  wire.len = 0u;
  if (strcmp(argv[1], "call") == 0) {
    call_noargs(&packet, max_packet_fn);
    for (unsigned long i = 0u; i < amount; i++) {
      frame(&wire, SESSION_ID, (uint8_t)UTVM_MSG_NORMAL, packet.data, packet.len);
    }
    requests = amount;
  } else if (strcmp(argv[1], "copy_to") == 0) {
    copy_header(&packet, 7u, tensor, amount);
    for (unsigned long i = 0u; i < amount; i++) {
      const uint8_t byte = (uint8_t)(i * 131u + 7u);
      bytes_append(&packet, &byte, 1u);
    }
    finish(&packet);
    frame(&wire, SESSION_ID, (uint8_t)UTVM_MSG_NORMAL, packet.data, packet.len);
  } else if (strcmp(argv[1], "copy_from") == 0) {
    copy_header(&packet, 6u, tensor, amount);
    finish(&packet);
    frame(&wire, SESSION_ID, (uint8_t)UTVM_MSG_NORMAL, packet.data, packet.len);
  } else {
    die("unknown workload");
  }
  transport.capture = 0;
  feed_chunked(&wire, 1);

  utvm_rpc_server_stats_t stats;
  utvm_rpc_server_get_stats(&server, &stats, NULL, NULL);
  if (stats.exceptions != 0u) {
    die("a request was answered with an exception");
  }
  (void)printf("%lu requests, %llu reply bytes\n", requests, (unsigned long long)transport.counted);
  free(wire.data);
  free(packet.data);
  free(transport.captured.data);
  return 0;
}

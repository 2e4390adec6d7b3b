/* In-process MinRPC server harness (see rpc_harness.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rpc_harness.h"
#include "test_syslib.h"
#include "tvm/runtime/crt/platform.h"

const TVMModule *TVMSystemLibEntryPoint(void);

static uint8_t request_buffer[RPC_H_BUFFER_SIZE] __attribute__((aligned(8)));
static uint8_t reply_cache[256];
static uint8_t tensor_arena[RPC_H_TENSOR_ARENA_SIZE] __attribute__((aligned(64)));
static uint8_t workspace_arena[4096] __attribute__((aligned(64)));
static utvm_rpc_server_t server;
static test_pipe_t pipe_out;
static test_random_t nonce = {RPC_H_DEVICE_NONCE, false, 0u};
static uint8_t host_nonce = RPC_H_HOST_NONCE;
static uint8_t device_nonce = RPC_H_DEVICE_NONCE;

void rpc_h_set_nonces(uint8_t host, uint8_t device) {
  host_nonce = host;
  device_nonce = device;
}

/* ---------------------------------------------------------------- fake platform */

/* Virtual clock in nanoseconds; every TimerStopNs advances it by the next scripted tick and
 * every read of test_syslib_time_us() by 1 us. Like a real port, the timer does not nest. */
#define FAKE_TIMER_DEPTH 1u
static uint64_t timer_ticks[16];
static size_t timer_ticks_len;
static size_t timer_stops;
static size_t timer_start_calls;
static uint64_t clock_ns;
static uint64_t timer_started_at[FAKE_TIMER_DEPTH];
static size_t timer_depth;

void fake_timer_script(const uint64_t *ticks_ns, size_t n) {
  assert_true(n > 0u && n <= 16u);
  (void)memcpy(timer_ticks, ticks_ns, n * sizeof(uint64_t));
  timer_ticks_len = n;
  timer_stops = 0u;
  timer_start_calls = 0u;
  timer_depth = 0u;
}

size_t fake_timer_starts(void) { return timer_start_calls; }

uint64_t test_syslib_time_us(void) {
  clock_ns += 1000u;
  return clock_ns / 1000u;
}

tvm_crt_error_t TVMPlatformTimerStart(void) {
  if (timer_depth == FAKE_TIMER_DEPTH) {
    return kTvmErrorPlatformTimerBadState;
  }
  timer_started_at[timer_depth] = clock_ns;
  timer_depth++;
  timer_start_calls++;
  return kTvmErrorNoError;
}

tvm_crt_error_t TVMPlatformTimerStopNs(uint64_t *elapsed_ns) {
  if (timer_depth == 0u) {
    return kTvmErrorPlatformTimerBadState;
  }
  timer_depth--;
  size_t i = (timer_stops < timer_ticks_len) ? timer_stops : timer_ticks_len - 1u;
  clock_ns += (timer_ticks_len > 0u) ? timer_ticks[i] : 1000u;
  timer_stops++;
  *elapsed_ns = clock_ns - timer_started_at[timer_depth];
  return kTvmErrorNoError;
}

tvm_crt_error_t TVMPlatformBeforeMeasurement(void) { return kTvmErrorNoError; }
tvm_crt_error_t TVMPlatformAfterMeasurement(void) { return kTvmErrorNoError; }
tvm_crt_error_t TVMPlatformInitialize(void) { return kTvmErrorNoError; }

tvm_crt_error_t TVMPlatformGenerateRandom(uint8_t *buffer, size_t num_bytes) {
  (void)memset(buffer, RPC_H_DEVICE_NONCE, num_bytes);
  return kTvmErrorNoError;
}

size_t TVMPlatformFormatMessage(char *out_buf, size_t out_buf_size_bytes, const char *fmt,
                                va_list args) {
  int n = vsnprintf(out_buf, out_buf_size_bytes, fmt, args);
  if (n < 0) {
    return 0u;
  }
  return ((size_t)n < out_buf_size_bytes) ? (size_t)n : out_buf_size_bytes - 1u;
}

void TVMPlatformAbort(tvm_crt_error_t code) {
  (void)fprintf(stderr, "TVMPlatformAbort(0x%x) in an RPC test\n", (unsigned)code);
  abort();
}

/* ---------------------------------------------------------------- server */

utvm_rpc_server_t *rpc_h_server(void) { return &server; }

void rpc_h_frame(test_bytes_t *wire, uint16_t sid, uint8_t type, const uint8_t *body, size_t n,
                 uint16_t crc_xor) {
  test_bytes_t payload;
  test_bytes_init(&payload);
  test_bytes_push(&payload, (uint8_t)sid);
  test_bytes_push(&payload, (uint8_t)(sid >> 8));
  test_bytes_push(&payload, type);
  test_bytes_append(&payload, body, n);
  test_encode_packet(wire, payload.data, payload.len, TEST_NO_NOP, crc_xor);
  test_bytes_free(&payload);
}

void rpc_h_feed(const uint8_t *data, size_t n, size_t chunk) {
  size_t step = (chunk == 0u) ? n : chunk;
  for (size_t i = 0u; i < n; i += step) {
    size_t take = (n - i < step) ? n - i : step;
    utvm_rpc_server_feed(&server, &data[i], take);
  }
}

void rpc_h_take_output(test_bytes_t *out) {
  test_bytes_clear(out);
  test_bytes_append(out, pipe_out.bytes.data, pipe_out.bytes.len);
  test_bytes_clear(&pipe_out.bytes);
}

void rpc_h_setup(uint32_t max_transfer) {
  rpc_h_setup_with(max_transfer, RPC_H_SEQUENCE | RPC_H_LARGE_CALLS | RPC_H_TIME_EVALUATOR);
}

void rpc_h_setup_with(uint32_t max_transfer, uint32_t features) {
  test_pipe_init(&pipe_out);
  nonce.value = RPC_H_DEVICE_NONCE;
  host_nonce = RPC_H_HOST_NONCE;
  device_nonce = RPC_H_DEVICE_NONCE;
  const utvm_rpc_server_config_t config = {
      test_pipe_write, &pipe_out, test_random_fill, &nonce, request_buffer,
      sizeof(request_buffer), max_transfer,
      {tensor_arena, sizeof(tensor_arena), workspace_arena, sizeof(workspace_arena),
       TVMSystemLibEntryPoint(), NULL},
      NULL};
  assert_int_equal(utvm_rpc_server_init(&server, &config), UTVM_OK);
  if ((features & RPC_H_TIME_EVALUATOR) != 0u) {
    assert_int_equal(utvm_crt_enable_time_evaluator(), UTVM_OK);
  }
  if ((features & RPC_H_SEQUENCE) != 0u) {
    assert_int_equal(utvm_rpc_server_enable_sequence(&server, reply_cache, sizeof(reply_cache)),
                     UTVM_OK);
  }
  if ((features & RPC_H_LARGE_CALLS) != 0u) {
    utvm_rpc_server_enable_large_calls(&server);
  }
  test_bytes_t wire;
  test_bytes_init(&wire);
  test_hex_append(&wire, "fefffd030000000000026677");
  assert_true(test_bytes_equal(&pipe_out.bytes, wire.data, wire.len));
  test_bytes_clear(&pipe_out.bytes);
  /* A TVM host: 0xfe, TerminateSession, StartSessionInit (nonce 0x5a). */
  test_bytes_clear(&wire);
  test_hex_append(&wire, "fe fffd030000000000026677 fffd040000005a000001bbc4");
  rpc_h_feed(wire.data, wire.len, 0u);
  test_bytes_clear(&wire);
  test_hex_append(&wire, "fffd040000005aa50101e6a1"); /* vectors/session.json */
  assert_true(test_bytes_equal(&pipe_out.bytes, wire.data, wire.len));
  test_bytes_clear(&pipe_out.bytes);
  test_bytes_free(&wire);
}

void rpc_h_teardown(void) {
  utvm_crt_shutdown(&server.crt);
  test_pipe_free(&pipe_out);
}

void rpc_h_send(const uint8_t *packet, size_t n, size_t chunk) {
  test_bytes_t wire;
  test_bytes_init(&wire);
  rpc_h_frame(&wire, (uint16_t)(host_nonce | (device_nonce << 8)), UTVM_MSG_NORMAL,
              packet, n, 0u);
  rpc_h_feed(wire.data, wire.len, chunk);
  test_bytes_free(&wire);
}

size_t rpc_h_replies(test_bytes_t *packets, size_t max) {
  test_bytes_t payloads;
  size_t lens[64];
  test_bytes_init(&payloads);
  size_t count = test_decode_packets(pipe_out.bytes.data, pipe_out.bytes.len, &payloads, lens, 64u);
  /* Every byte written must belong to a good frame: re-encode and compare. */
  test_bytes_t again;
  test_bytes_init(&again);
  size_t offset = 0u;
  for (size_t i = 0u; i < count; i++) {
    const uint8_t *p = &payloads.data[offset];
    test_encode_packet(&again, p, lens[i], TEST_NO_NOP, 0u);
    assert_true(lens[i] >= 3u);
    assert_int_equal(p[0], host_nonce);
    assert_int_equal(p[1], device_nonce);
    assert_int_equal(p[2], UTVM_MSG_NORMAL);
    assert_true(lens[i] <= UTVM_SESSION_TVM_HOST_MAX_MESSAGE ||
                server.max_transfer_size > 0u);
    if (i < max) {
      test_bytes_clear(&packets[i]);
      test_bytes_append(&packets[i], &p[3], lens[i] - 3u);
    }
    offset += lens[i];
  }
  assert_true(test_bytes_equal(&pipe_out.bytes, again.data, again.len));
  test_bytes_clear(&pipe_out.bytes);
  test_bytes_free(&again);
  test_bytes_free(&payloads);
  return count;
}

void rpc_h_call(const uint8_t *packet, size_t n, test_bytes_t *reply) {
  rpc_h_send(packet, n, 0u);
  assert_int_equal(rpc_h_replies(reply, 1u), 1u);
}

void rpc_h_expect_no_reply(const uint8_t *packet, size_t n) {
  rpc_h_send(packet, n, 0u);
  assert_int_equal(pipe_out.bytes.len, 0u);
}

/* ---------------------------------------------------------------- packets */

void rpc_put_u32(test_bytes_t *out, uint32_t v) {
  for (unsigned i = 0u; i < 4u; i++) {
    test_bytes_push(out, (uint8_t)(v >> (8u * i)));
  }
}

void rpc_put_u64(test_bytes_t *out, uint64_t v) {
  rpc_put_u32(out, (uint32_t)v);
  rpc_put_u32(out, (uint32_t)(v >> 32));
}

uint32_t rpc_get_u32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

uint64_t rpc_get_u64(const uint8_t *p) {
  return (uint64_t)rpc_get_u32(p) | ((uint64_t)rpc_get_u32(&p[4]) << 32);
}

void rpc_ab_init(rpc_args_builder_t *b) {
  test_bytes_init(&b->codes);
  test_bytes_init(&b->values);
  b->num = 0;
}

void rpc_ab_free(rpc_args_builder_t *b) {
  test_bytes_free(&b->codes);
  test_bytes_free(&b->values);
}

static void ab_code(rpc_args_builder_t *b, int32_t tc) {
  rpc_put_u32(&b->codes, (uint32_t)tc);
  b->num++;
}

void rpc_ab_int(rpc_args_builder_t *b, int32_t tc, int64_t v) {
  ab_code(b, tc);
  rpc_put_u64(&b->values, (uint64_t)v);
}

void rpc_ab_float(rpc_args_builder_t *b, double v) {
  uint64_t bits;
  (void)memcpy(&bits, &v, sizeof(bits));
  ab_code(b, kTVMArgFloat);
  rpc_put_u64(&b->values, bits);
}

void rpc_ab_null(rpc_args_builder_t *b) { ab_code(b, kTVMNullptr); }

void rpc_ab_dtype(rpc_args_builder_t *b, uint8_t code, uint8_t bits, uint16_t lanes) {
  ab_code(b, kTVMDataType);
  test_bytes_push(&b->values, code);
  test_bytes_push(&b->values, bits);
  test_bytes_push(&b->values, (uint8_t)lanes);
  test_bytes_push(&b->values, (uint8_t)(lanes >> 8));
  rpc_put_u32(&b->values, 0u);
}

void rpc_ab_device(rpc_args_builder_t *b, int32_t type, int32_t id) {
  ab_code(b, kDLDevice);
  rpc_put_u32(&b->values, (uint32_t)type);
  rpc_put_u32(&b->values, (uint32_t)id);
}

void rpc_ab_bytes(rpc_args_builder_t *b, int32_t tc, const void *data, size_t n) {
  ab_code(b, tc);
  rpc_put_u64(&b->values, n);
  test_bytes_append(&b->values, (const uint8_t *)data, n);
}

void rpc_ab_str(rpc_args_builder_t *b, const char *s) { rpc_ab_bytes(b, kTVMStr, s, strlen(s)); }

static void put_tensor_header(test_bytes_t *out, uint64_t data, int32_t dev_type, int32_t ndim,
                              uint8_t code, uint8_t bits, const int64_t *shape,
                              uint64_t byte_offset) {
  rpc_put_u64(out, data);
  rpc_put_u32(out, (uint32_t)dev_type);
  rpc_put_u32(out, 0u);
  rpc_put_u32(out, (uint32_t)ndim);
  test_bytes_push(out, code);
  test_bytes_push(out, bits);
  test_bytes_push(out, 1u);
  test_bytes_push(out, 0u);
  for (int32_t i = 0; i < ndim; i++) {
    rpc_put_u64(out, (uint64_t)shape[i]);
  }
  rpc_put_u64(out, byte_offset);
}

void rpc_ab_tensor(rpc_args_builder_t *b, uint64_t data, int32_t dev_type, int32_t ndim,
                   const int64_t *shape, uint64_t byte_offset) {
  ab_code(b, kTVMDLTensorHandle);
  put_tensor_header(&b->values, data, dev_type, ndim, kDLFloat, 32u, shape, byte_offset);
}

void rpc_ab_tensor_dtype(rpc_args_builder_t *b, uint64_t data, uint8_t code, uint8_t bits,
                         int32_t ndim, const int64_t *shape) {
  ab_code(b, kTVMDLTensorHandle);
  put_tensor_header(&b->values, data, kDLCPU, ndim, code, bits, shape, 0u);
}

void rpc_ab_emit(const rpc_args_builder_t *b, test_bytes_t *out) {
  rpc_put_u32(out, (uint32_t)b->num);
  test_bytes_append(out, b->codes.data, b->codes.len);
  test_bytes_append(out, b->values.data, b->values.len);
}

void rpc_packet_begin(test_bytes_t *out, int32_t code) {
  test_bytes_clear(out);
  rpc_put_u64(out, 0u);
  rpc_put_u32(out, (uint32_t)code);
}

void rpc_packet_finish(test_bytes_t *out) {
  uint64_t n = out->len - 8u;
  for (unsigned i = 0u; i < 8u; i++) {
    out->data[i] = (uint8_t)(n >> (8u * i));
  }
}

void rpc_packet_syscall(test_bytes_t *out, int32_t code, const rpc_args_builder_t *b) {
  rpc_packet_begin(out, code);
  rpc_ab_emit(b, out);
  rpc_packet_finish(out);
}

void rpc_packet_call(test_bytes_t *out, uint64_t handle, const rpc_args_builder_t *b) {
  rpc_packet_begin(out, 3);
  rpc_put_u64(out, handle);
  rpc_ab_emit(b, out);
  rpc_packet_finish(out);
}

void rpc_packet_copy_to(test_bytes_t *out, uint64_t data, int64_t shape, uint64_t offset,
                        const uint8_t *payload, size_t n) {
  rpc_packet_begin(out, 7);
  put_tensor_header(out, data, kDLCPU, 1, kDLUInt, 8u, &shape, offset);
  rpc_put_u64(out, n);
  test_bytes_append(out, payload, n);
  rpc_packet_finish(out);
}

void rpc_packet_copy_from(test_bytes_t *out, uint64_t data, int64_t shape, uint64_t offset,
                          uint64_t n) {
  rpc_packet_begin(out, 6);
  put_tensor_header(out, data, kDLCPU, 1, kDLUInt, 8u, &shape, offset);
  rpc_put_u64(out, n);
  rpc_packet_finish(out);
}

/* ---------------------------------------------------------------- replies */

bool rpc_parse_seq(const uint8_t *p, size_t n, rpc_value_t *values, int32_t max, int32_t *num,
                   size_t *used) {
  if (n < 4u) {
    return false;
  }
  int32_t count = (int32_t)rpc_get_u32(p);
  if (count < 0 || count > max || n < 4u + 4u * (size_t)count) {
    return false;
  }
  size_t at = 4u + 4u * (size_t)count;
  for (int32_t i = 0; i < count; i++) {
    rpc_value_t *v = &values[i];
    (void)memset(v, 0, sizeof(*v));
    v->tc = (int32_t)rpc_get_u32(&p[4u + 4u * (size_t)i]);
    size_t len = 8u;
    switch (v->tc) {
      case kTVMNullptr:
        len = 0u;
        break;
      case kTVMObjectHandle:
        len = 12u;
        break;
      case kTVMDLTensorHandle:
        if (n - at < 32u) {
          return false;
        }
        len = 32u + 8u * (size_t)rpc_get_u32(&p[at + 16u]);
        v->bytes = &p[at];
        break;
      case kTVMStr:
      case kTVMBytes:
        if (n - at < 8u) {
          return false;
        }
        if (rpc_get_u64(&p[at]) > n - at - 8u) {
          return false;
        }
        len = 8u + (size_t)rpc_get_u64(&p[at]);
        v->bytes = &p[at + 8u];
        break;
      case kTVMArgInt:
      case kDLUInt:
      case kTVMArgFloat:
      case kTVMOpaqueHandle:
      case kTVMDataType:
      case kDLDevice:
      case kTVMModuleHandle:
      case kTVMPackedFuncHandle:
      case kTVMArgBool:
        break;
      default:
        return false;
    }
    if (n - at < len) {
      return false;
    }
    if (len >= 8u) {
      v->u = rpc_get_u64(&p[at]);
    }
    v->len = len;
    at += len;
  }
  *num = count;
  *used = at;
  return true;
}

void rpc_parse_reply(const uint8_t *packet, size_t n, rpc_reply_t *reply) {
  (void)memset(reply, 0, sizeof(*reply));
  assert_true(n >= 12u);
  assert_int_equal(rpc_get_u64(packet), n - 8u);
  reply->code = (int32_t)rpc_get_u32(&packet[8]);
  if (reply->code == 8) {
    reply->data = &packet[12];
    reply->data_len = n - 12u;
    return;
  }
  assert_true(reply->code == 4 || reply->code == 5);
  size_t used = 0u;
  assert_true(rpc_parse_seq(&packet[12], n - 12u, reply->values, (int32_t)RPC_H_MAX_VALUES,
                            &reply->num, &used));
  assert_int_equal(used, n - 12u);
}

const char *rpc_expect_exception(const test_bytes_t *reply) {
  static char text[2048];
  rpc_reply_t r;
  rpc_parse_reply(reply->data, reply->len, &r);
  if (r.code != 5) {
    (void)fprintf(stderr, "expected an exception, got code %d\n", (int)r.code);
  }
  assert_int_equal(r.code, 5);
  assert_int_equal(r.num, 1);
  assert_int_equal(r.values[0].tc, kTVMStr);
  size_t len = (size_t)r.values[0].u;
  assert_true(len < sizeof(text));
  (void)memcpy(text, r.values[0].bytes, len);
  text[len] = '\0';
  return test_expand_error(text);
}

static void expect_return(const test_bytes_t *reply, rpc_reply_t *r) {
  rpc_parse_reply(reply->data, reply->len, r);
  if (r->code == 5) {
    (void)fprintf(stderr, "unexpected exception: %.*s\n", (int)r->values[0].u,
                  (const char *)r->values[0].bytes);
  }
  assert_int_equal(r->code, 4);
}

uint64_t rpc_expect_handle(const test_bytes_t *reply) {
  rpc_reply_t r;
  expect_return(reply, &r);
  assert_int_equal(r.num, 1);
  assert_int_equal(r.values[0].tc, kTVMOpaqueHandle);
  return r.values[0].u;
}

void rpc_expect_void(const test_bytes_t *reply) {
  rpc_reply_t r;
  expect_return(reply, &r);
  test_bytes_t expected;
  test_bytes_init(&expected);
  test_hex_append(&expected, "0c00000000000000 04000000 01000000 04000000");
  assert_true(test_bytes_equal(reply, expected.data, expected.len));
  test_bytes_free(&expected);
}

uint64_t rpc_expect_call_result(const test_bytes_t *reply, int32_t tc) {
  rpc_reply_t r;
  expect_return(reply, &r);
  assert_int_equal(r.num, 2);
  assert_int_equal(r.values[0].tc, kTVMArgInt);
  assert_int_equal(r.values[0].u, (uint64_t)(int64_t)tc);
  return r.values[1].u;
}

/* ---------------------------------------------------------------- conveniences */

uint64_t rpc_h_get_global(const char *name) {
  rpc_args_builder_t b;
  test_bytes_t packet;
  test_bytes_t reply;
  rpc_ab_init(&b);
  test_bytes_init(&packet);
  test_bytes_init(&reply);
  rpc_ab_str(&b, name);
  rpc_packet_syscall(&packet, 9, &b);
  rpc_h_call(packet.data, packet.len, &reply);
  uint64_t h = rpc_expect_handle(&reply);
  rpc_ab_free(&b);
  test_bytes_free(&packet);
  test_bytes_free(&reply);
  return h;
}

uint64_t rpc_h_syslib_function(const char *name) {
  uint64_t mgf = rpc_h_get_global("tvm.rpc.server.ModuleGetFunction");
  assert_true(mgf != 0u);
  rpc_args_builder_t b;
  test_bytes_t packet;
  test_bytes_t reply;
  rpc_ab_init(&b);
  test_bytes_init(&packet);
  test_bytes_init(&reply);
  rpc_ab_int(&b, kTVMModuleHandle, 0x8000);
  rpc_ab_str(&b, name);
  rpc_ab_int(&b, kTVMArgBool, 1);
  rpc_packet_call(&packet, mgf, &b);
  rpc_h_call(packet.data, packet.len, &reply);
  rpc_reply_t r;
  expect_return(&reply, &r);
  assert_int_equal(r.num, 2);
  uint64_t h = 0u;
  if (r.values[0].u == (uint64_t)kTVMPackedFuncHandle) {
    assert_int_equal(r.values[1].tc, kTVMOpaqueHandle);
    h = r.values[1].u;
  } else {
    assert_int_equal(r.values[0].u, (uint64_t)kTVMNullptr);
  }
  rpc_ab_free(&b);
  test_bytes_free(&packet);
  test_bytes_free(&reply);
  return h;
}

uint64_t rpc_h_alloc(uint64_t nbytes) {
  rpc_args_builder_t b;
  test_bytes_t packet;
  test_bytes_t reply;
  rpc_ab_init(&b);
  test_bytes_init(&packet);
  test_bytes_init(&reply);
  rpc_ab_device(&b, kDLCPU, 0);
  rpc_ab_int(&b, kTVMArgInt, (int64_t)nbytes);
  rpc_ab_int(&b, kTVMArgInt, 64);
  rpc_ab_dtype(&b, kDLUInt, 8u, 1u);
  rpc_packet_syscall(&packet, 13, &b);
  rpc_h_call(packet.data, packet.len, &reply);
  uint64_t h = rpc_expect_handle(&reply);
  assert_true(h != 0u);
  rpc_ab_free(&b);
  test_bytes_free(&packet);
  test_bytes_free(&reply);
  return h;
}

void rpc_h_free(uint64_t ptr) {
  rpc_args_builder_t b;
  test_bytes_t packet;
  test_bytes_t reply;
  rpc_ab_init(&b);
  test_bytes_init(&packet);
  test_bytes_init(&reply);
  rpc_ab_device(&b, kDLCPU, 0);
  rpc_ab_int(&b, kTVMOpaqueHandle, (int64_t)ptr);
  rpc_packet_syscall(&packet, 14, &b);
  rpc_h_call(packet.data, packet.len, &reply);
  rpc_expect_void(&reply);
  rpc_ab_free(&b);
  test_bytes_free(&packet);
  test_bytes_free(&reply);
}

void rpc_h_expect_alive(void) {
  assert_int_equal(rpc_h_get_global("runtime.SystemLib"), 0x80028000u);
}

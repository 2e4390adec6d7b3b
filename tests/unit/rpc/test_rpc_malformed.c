/*
 * Malformed and hostile requests: each gets an exception reply (or, where PROTOCOL.md says
 * so, no reply) and the server answers a good request afterwards.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rpc_harness.h"
#include "test_syslib.h"
#include "tvm/runtime/crt/platform.h"

static int setup(void **state) {
  (void)state;
  rpc_h_setup(8192u);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  rpc_h_teardown();
  return 0;
}

/* Sends packet, expects one exception (containing needle unless NULL), then a good request. */
static void expect_rejected(const test_bytes_t *packet, const char *needle) {
  test_bytes_t reply;
  test_bytes_init(&reply);
  rpc_h_call(packet->data, packet->len, &reply);
  const char *text = rpc_expect_exception(&reply);
  if (needle != NULL && strstr(text, needle) == NULL) {
    (void)fprintf(stderr, "exception \"%s\" lacks \"%s\"\n", text, needle);
    fail();
  }
  test_bytes_free(&reply);
  rpc_h_expect_alive();
}

static void get_global_packet(test_bytes_t *p, const char *name) {
  rpc_args_builder_t b;
  rpc_ab_init(&b);
  rpc_ab_str(&b, name);
  rpc_packet_syscall(p, 9, &b);
  rpc_ab_free(&b);
}

static void test_lengths_and_codes(void **state) {
  (void)state;
  test_bytes_t p;
  test_bytes_init(&p);
  /* packet_nbytes larger / smaller than the message. */
  static const int64_t deltas[4] = {1, 100, -1, -20};
  for (size_t i = 0u; i < 4u; i++) {
    get_global_packet(&p, "runtime.SystemLib");
    uint64_t n = rpc_get_u64(p.data) + (uint64_t)deltas[i];
    for (unsigned k = 0u; k < 8u; k++) {
      p.data[k] = (uint8_t)(n >> (8u * k));
    }
    expect_rejected(&p, "length");
  }
  /* Truncated contents: the packet is consistent but its arguments end early. */
  get_global_packet(&p, "runtime.SystemLib");
  p.len -= 5u;
  rpc_packet_finish(&p);
  expect_rejected(&p, NULL);
  for (size_t cut = 13u; cut < 40u; cut += 3u) {
    rpc_packet_begin(&p, 3);
    rpc_put_u64(&p, 0x80028000u);
    rpc_put_u32(&p, 1u);
    rpc_put_u32(&p, 11u);
    rpc_put_u64(&p, 100u);
    test_hex_append(&p, "41424344");
    p.len = (cut < p.len) ? cut : p.len;
    rpc_packet_finish(&p);
    expect_rejected(&p, NULL);
  }
  /* Unknown and device->host codes. */
  static const int32_t codes[9] = {0, 4, 5, 8, 22, 23, 1000, -1, INT32_MIN};
  for (size_t i = 0u; i < 9u; i++) {
    rpc_packet_begin(&p, codes[i]);
    rpc_put_u32(&p, 0u);
    rpc_packet_finish(&p);
    expect_rejected(&p, "RPC: unknown code 0x");
  }
  /* InitServer with another protocol version. */
  rpc_packet_begin(&p, 2);
  rpc_put_u64(&p, 5u);
  test_hex_append(&p, "302e372e30 00000000");
  rpc_packet_finish(&p);
  expect_rejected(&p, "InitServer: protocol version is not 0.8.0");
  test_bytes_free(&p);
}

static void test_syscall_arguments(void **state) {
  (void)state;
  test_bytes_t p;
  rpc_args_builder_t b;
  test_bytes_init(&p);
  for (int32_t code = 9; code <= 21; code++) {
    for (int variant = 0; variant < 3; variant++) {
      rpc_ab_init(&b);
      if (variant == 1) {
        for (int i = 0; i < 5; i++) {
          rpc_ab_int(&b, kTVMArgInt, i);
        }
      } else if (variant == 2) {
        rpc_ab_float(&b, 1.0);
        rpc_ab_float(&b, 2.0);
      }
      rpc_packet_syscall(&p, code, &b);
      expect_rejected(&p, NULL);
      rpc_ab_free(&b);
    }
  }
  /* Too many arguments, negative count, unknown type codes. */
  rpc_packet_begin(&p, 9);
  rpc_put_u32(&p, 0xFFFFFFFFu);
  rpc_packet_finish(&p);
  expect_rejected(&p, NULL);
  rpc_packet_begin(&p, 9);
  rpc_put_u32(&p, 1000u);
  rpc_packet_finish(&p);
  expect_rejected(&p, NULL);
  uint64_t echo = rpc_h_syslib_function("test_echo");
  static const int32_t bad_codes[7] = {8, 13, 14, 16, 99, -1, 0x7FFFFFFF};
  for (size_t i = 0u; i < 7u; i++) {
    rpc_packet_begin(&p, 3);
    rpc_put_u64(&p, echo);
    rpc_put_u32(&p, 1u);
    rpc_put_u32(&p, (uint32_t)bad_codes[i]);
    rpc_put_u64(&p, 0u);
    rpc_put_u32(&p, 0u);
    rpc_packet_finish(&p);
    expect_rejected(&p, NULL);
  }
  test_bytes_free(&p);
}

static void test_bad_tensors(void **state) {
  (void)state;
  test_bytes_t p;
  rpc_args_builder_t b;
  test_bytes_init(&p);
  uint64_t add = rpc_h_syslib_function("test_add_f32");
  uint64_t t = rpc_h_alloc(64u);
  static const int64_t shape17[17] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  static const int64_t negative[1] = {-4};
  static const int64_t huge[1] = {INT64_MAX};
  static const int64_t huge2[2] = {0x100000000, 0x100000000};
  static const int64_t too_long[1] = {17}; /* 68 bytes in a 64-byte allocation */
  static const int64_t ok[1] = {16};
  struct {
    int32_t dev;
    int32_t ndim;
    const int64_t *shape;
    uint64_t data;
    uint64_t offset;
  } cases[8] = {
      {kDLCPU, 17, shape17, t, 0u}, {kDLCPU, 1, negative, t, 0u}, {kDLCPU, 1, huge, t, 0u},
      {kDLCPU, 2, huge2, t, 0u},    {kDLCUDA, 1, ok, t, 0u},      {kDLCPU, 1, too_long, t, 0u},
      {kDLCPU, 1, ok, t + 4u, 0u},  {kDLCPU, 1, ok, t, 4u},
  };
  for (size_t i = 0u; i < 8u; i++) {
    rpc_ab_init(&b);
    rpc_ab_tensor(&b, cases[i].data, cases[i].dev, cases[i].ndim, cases[i].shape,
                  cases[i].offset);
    rpc_ab_tensor(&b, t, kDLCPU, 1, ok, 0u);
    rpc_ab_tensor(&b, t, kDLCPU, 1, ok, 0u);
    rpc_packet_call(&p, add, &b);
    expect_rejected(&p, NULL);
    rpc_ab_free(&b);
    /* The same header in DevAllocDataWithScope (ndim, dims and device checked). */
    if (i < 5u) {
      rpc_ab_init(&b);
      rpc_ab_tensor(&b, 0u, cases[i].dev, cases[i].ndim, cases[i].shape, 0u);
      rpc_ab_null(&b);
      rpc_packet_syscall(&p, 17, &b);
      expect_rejected(&p, NULL);
      rpc_ab_free(&b);
    }
  }
  /* ndim 17 (above UTVM_RPC_MAX_NDIM) and a non-CPU device in copy requests. */
  rpc_packet_copy_from(&p, t, 64, 0u, 4u);
  p.data[28] = 17u;
  expect_rejected(&p, NULL);
  static const uint8_t four[4] = {1, 2, 3, 4};
  rpc_packet_copy_to(&p, t, 64, 0u, four, 4u);
  p.data[28] = 17u;
  expect_rejected(&p, "ndim");
  rpc_packet_copy_to(&p, t, 64, 0u, four, 4u);
  p.data[20] = kDLCUDA;
  expect_rejected(&p, "device");
  rpc_h_free(t);
  test_bytes_free(&p);
}

static void test_unissued_handles(void **state) {
  (void)state;
  test_bytes_t p;
  rpc_args_builder_t b;
  test_bytes_init(&p);
  uint64_t t = rpc_h_alloc(128u);
  /* 0x8000800N: function N of the system library; the first past its end is not issued. */
  static const uint64_t bogus[9] = {0u, 1u, 0x8001u, 0x80008000u + TEST_SYSLIB_FUNCTION_COUNT,
                                    0x8002801Fu, 0xFFFF8001u, 0xFFFF8005u, 0xDEADBEEFu,
                                    0x8000000080028000u};
  for (size_t i = 0u; i < 9u; i++) {
    rpc_ab_init(&b);
    rpc_packet_call(&p, bogus[i], &b);
    expect_rejected(&p, NULL);
    rpc_ab_free(&b);
    for (int32_t kind = 9; kind <= 10; kind++) {
      rpc_ab_init(&b);
      rpc_ab_int(&b, kTVMOpaqueHandle, (int64_t)bogus[i]);
      rpc_ab_int(&b, kTVMArgInt, kind);
      rpc_packet_syscall(&p, 10, &b);
      expect_rejected(&p, NULL);
      rpc_ab_free(&b);
    }
    /* ModuleGetFunction on a module that was never issued. */
    rpc_ab_init(&b);
    rpc_ab_int(&b, kTVMModuleHandle, (int64_t)bogus[i]);
    rpc_ab_str(&b, "test_echo");
    rpc_ab_int(&b, kTVMArgBool, 1);
    rpc_packet_call(&p, rpc_h_get_global("tvm.rpc.server.ModuleGetFunction"), &b);
    expect_rejected(&p, NULL);
    rpc_ab_free(&b);
  }
  /* DevFreeData of pointers that do not start a live allocation. */
  static const int64_t frees[4] = {1, 64, -1, -64};
  for (size_t i = 0u; i < 4u; i++) {
    rpc_ab_init(&b);
    rpc_ab_device(&b, kDLCPU, 0);
    rpc_ab_int(&b, kTVMOpaqueHandle, (int64_t)t + frees[i]);
    rpc_packet_syscall(&p, 14, &b);
    expect_rejected(&p, NULL);
    rpc_ab_free(&b);
  }
  /* FreeHandle of an NDArray or object: none are issued. */
  rpc_ab_init(&b);
  rpc_ab_int(&b, kTVMOpaqueHandle, (int64_t)t);
  rpc_ab_int(&b, kTVMArgInt, 13);
  rpc_packet_syscall(&p, 10, &b);
  expect_rejected(&p, NULL);
  rpc_ab_free(&b);
  rpc_h_free(t);
  test_bytes_free(&p);
}

static void test_copy_ranges(void **state) {
  (void)state;
  test_bytes_t p;
  test_bytes_t reply;
  test_bytes_init(&p);
  test_bytes_init(&reply);
  uint64_t t = rpc_h_alloc(128u);
  uint64_t freed = rpc_h_alloc(64u);
  rpc_h_free(freed);
  static const uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  struct {
    uint64_t ptr;
    uint64_t offset;
    uint64_t n;
  } cases[7] = {
      {t, 129u, 1u}, {t, 128u, 1u}, {t, 121u, 8u}, {t - 1u, 0u, 1u},
      {freed, 0u, 4u}, {t, UINT64_MAX, 2u}, {t + 200u, 0u, 1u},
  };
  for (size_t i = 0u; i < 7u; i++) {
    rpc_packet_copy_from(&p, cases[i].ptr, 128, cases[i].offset, cases[i].n);
    expect_rejected(&p, "CopyFromRemote: range outside tensors");
    rpc_packet_copy_to(&p, cases[i].ptr, 128, cases[i].offset, data,
                       (size_t)((cases[i].n < 8u) ? cases[i].n : 8u));
    expect_rejected(&p, "CopyToRemote: range outside tensors");
  }
  /* The last bytes of the allocation are fine. */
  rpc_packet_copy_to(&p, t, 128, 120u, data, 8u);
  rpc_h_call(p.data, p.len, &reply);
  rpc_expect_void(&reply);
  rpc_packet_copy_from(&p, t, 128, 120u, 8u);
  rpc_h_call(p.data, p.len, &reply);
  assert_int_equal(reply.len, 20u);
  assert_memory_equal(&reply.data[12], data, 8u);
  rpc_h_free(t);
  test_bytes_free(&p);
  test_bytes_free(&reply);
}

/* test.lengths(Str s, Bytes b, Int k) -> strlen(s) * 10^6 + len(b) * 10 + k. */
static int argument_lengths(TVMValue *args, int *codes, int num_args, TVMValue *ret,
                            int *ret_tc, void *resource) {
  (void)resource;
  assert_int_equal(num_args, (codes[0] == kTVMStr && num_args == 1) ? 1 : 3);
  int64_t total = (int64_t)strlen(args[0].v_str) * 1000000;
  if (num_args == 3) {
    const TVMByteArray *bytes = (const TVMByteArray *)args[1].v_handle;
    for (size_t i = 0u; i < bytes->size; i++) {
      assert_int_equal((uint8_t)bytes->data[i], (uint8_t)(i * 7u));
    }
    total += (int64_t)bytes->size * 10 + args[2].v_int64;
  }
  ret->v_int64 = total;
  *ret_tc = kTVMArgInt;
  return 0;
}

static void test_oversize_and_streaming(void **state) {
  (void)state;
  test_bytes_t p;
  test_bytes_t reply;
  rpc_args_builder_t b;
  test_bytes_init(&p);
  test_bytes_init(&reply);
  /* A CallFunc with a Str and Bytes longer than the request buffer (TVM sends a graph JSON or
   * a parameter blob so) is gathered in the tensor arena, which is whole again afterwards. */
  assert_int_equal(utvm_crt_register_global("test.lengths", argument_lengths, NULL), UTVM_OK);
  uint64_t lengths = rpc_h_get_global("test.lengths");
  static char big[40u * RPC_H_BUFFER_SIZE];
  static uint8_t blob[20u * RPC_H_BUFFER_SIZE];
  (void)memset(big, 'x', sizeof(big) - 1u);
  for (size_t i = 0u; i < sizeof(blob); i++) {
    blob[i] = (uint8_t)(i * 7u);
  }
  size_t free_before = utvm_page_free_bytes(&rpc_h_server()->crt.tensors);
  rpc_ab_init(&b);
  rpc_ab_str(&b, big);
  rpc_ab_bytes(&b, kTVMBytes, blob, sizeof(blob));
  rpc_ab_int(&b, kTVMArgInt, 5);
  rpc_packet_call(&p, lengths, &b);
  rpc_ab_free(&b);
  rpc_h_send(p.data, p.len, 333u);
  assert_int_equal(rpc_h_replies(&reply, 1u), 1u);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMArgInt),
                   (sizeof(big) - 1u) * 1000000u + sizeof(blob) * 10u + 5u);
  assert_int_equal(utvm_page_free_bytes(&rpc_h_server()->crt.tensors), free_before);
  /* The allocation a large CallFunc is gathered in is the server's, not the host's: a handle
   * into it (first fit puts it where a fresh allocation went) is refused. */
  uint64_t first = rpc_h_alloc(64u);
  rpc_h_free(first);
  rpc_ab_init(&b);
  rpc_ab_str(&b, big);
  rpc_ab_int(&b, kTVMOpaqueHandle, (int64_t)first);
  rpc_packet_call(&p, lengths, &b);
  rpc_ab_free(&b);
  expect_rejected(&p, "CallFunc: range outside tensors");
  assert_int_equal(utvm_page_free_bytes(&rpc_h_server()->crt.tensors), free_before);
  /* Without room in the arena: how much it needs and how much is free. */
  static char huge[RPC_H_TENSOR_ARENA_SIZE + 1u];
  (void)memset(huge, 'y', sizeof(huge) - 1u);
  rpc_ab_init(&b);
  rpc_ab_str(&b, huge);
  rpc_packet_call(&p, lengths, &b);
  rpc_ab_free(&b);
  expect_rejected(&p, "CallFunc: over request buffer, needs 0x");
  rpc_h_call(p.data, p.len, &reply);
  assert_non_null(strstr(rpc_expect_exception(&reply), " bytes of the tensor arena, 0x"));
  assert_int_equal(utvm_page_free_bytes(&rpc_h_server()->crt.tensors), free_before);
  /* A large CallFunc whose CRC fails, and one cut short by a new packet: no leak. */
  rpc_ab_init(&b);
  rpc_ab_str(&b, big);
  rpc_packet_call(&p, lengths, &b);
  rpc_ab_free(&b);
  test_bytes_t wire;
  test_bytes_init(&wire);
  rpc_h_frame(&wire, 0xA55Au, UTVM_MSG_NORMAL, p.data, p.len, 0x0101u);
  rpc_h_feed(wire.data, wire.len, 0u);
  assert_int_equal(rpc_h_replies(&reply, 1u), 1u);
  assert_non_null(strstr(rpc_expect_exception(&reply), "CallFunc: failed its CRC"));
  test_bytes_free(&wire);
  test_bytes_init(&wire);
  rpc_h_frame(&wire, 0xA55Au, UTVM_MSG_NORMAL, p.data, p.len, 0u);
  rpc_h_feed(wire.data, wire.len / 2u, 0u);
  rpc_h_expect_alive();
  assert_int_equal(utvm_page_free_bytes(&rpc_h_server()->crt.tensors), free_before);
  /* Other requests are still bounded by the request buffer. */
  rpc_ab_init(&b);
  rpc_ab_str(&b, big);
  rpc_packet_syscall(&p, 9, &b);
  rpc_ab_free(&b);
  expect_rejected(&p, "GetGlobalFunc: over request buffer");

  /* A CopyToRemote of 40 KiB (40 times the request buffer) streams into the tensor. */
  const size_t n = 40u * 1024u;
  uint64_t t = rpc_h_alloc(n);
  test_bytes_t payload;
  test_bytes_init(&payload);
  uint32_t seed = 1234u;
  for (size_t i = 0u; i < n; i++) {
    uint8_t byte;
    test_fill_random(&seed, &byte, 1u);
    test_bytes_push(&payload, byte);
  }
  rpc_packet_copy_to(&p, t, (int64_t)n, 0u, payload.data, n);
  rpc_h_send(p.data, p.len, 777u);
  assert_int_equal(rpc_h_replies(&reply, 1u), 1u);
  rpc_expect_void(&reply);
  for (size_t at = 0u; at < n; at += 2000u) {
    size_t chunk = (n - at < 2000u) ? n - at : 2000u;
    rpc_packet_copy_from(&p, t, (int64_t)n, at, chunk);
    rpc_h_call(p.data, p.len, &reply);
    assert_int_equal(reply.len, 12u + chunk);
    assert_memory_equal(&reply.data[12], &payload.data[at], chunk);
  }

  /* Bad CRC on a CopyToRemote: exception mentioning the CRC. */
  test_bytes_free(&wire);
  test_bytes_init(&wire);
  rpc_packet_copy_to(&p, t, (int64_t)n, 0u, payload.data, 4096u);
  rpc_h_frame(&wire, 0xA55Au, UTVM_MSG_NORMAL, p.data, p.len, 0x0101u);
  rpc_h_feed(wire.data, wire.len, 0u);
  assert_int_equal(rpc_h_replies(&reply, 1u), 1u);
  assert_non_null(strstr(rpc_expect_exception(&reply), "CopyToRemote: payload failed its CRC"));
  rpc_h_expect_alive();

  /* CopyFromRemote beyond TVM's 2037-byte packet limit, until GetMaxTransferSize is called. */
  rpc_packet_copy_from(&p, t, (int64_t)n, 0u, 4000u);
  expect_rejected(&p, "CopyFromRemote: over reply limit 0x");
  rpc_ab_init(&b);
  rpc_packet_call(&p, rpc_h_get_global(UTVM_RPC_GET_MAX_TRANSFER_NAME), &b);
  rpc_ab_free(&b);
  rpc_h_call(p.data, p.len, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMArgInt), 8192u);
  rpc_packet_copy_from(&p, t, (int64_t)n, 0u, 4000u);
  rpc_h_call(p.data, p.len, &reply);
  assert_int_equal(reply.len, 12u + 4000u);
  assert_memory_equal(&reply.data[12], payload.data, 4000u);
  rpc_h_free(t);
  test_bytes_free(&wire);
  test_bytes_free(&payload);
  test_bytes_free(&p);
  test_bytes_free(&reply);
}

/* A global returning kTVMBytes whose struct comes from TVMPlatformMemoryAllocate (the server
 * releases it) with no data and the size given by the Int argument. */
static int bytes_without_data(TVMValue *args, int *codes, int num_args, TVMValue *ret,
                              int *ret_tc, void *resource) {
  (void)codes;
  (void)num_args;
  (void)resource;
  void *memory = NULL;
  const DLDevice cpu = {kDLCPU, 0};
  assert_int_equal(TVMPlatformMemoryAllocate(sizeof(TVMByteArray), cpu, &memory), 0);
  TVMByteArray *bytes = (TVMByteArray *)memory;
  bytes->data = NULL;
  bytes->size = (size_t)args[0].v_int64;
  ret->v_handle = bytes;
  *ret_tc = kTVMBytes;
  return 0;
}

static void test_faulty_results(void **state) {
  (void)state;
  test_bytes_t p;
  test_bytes_t reply;
  rpc_args_builder_t b;
  test_bytes_init(&p);
  test_bytes_init(&reply);
  assert_int_equal(utvm_crt_register_global("test.bytes_without_data", bytes_without_data, NULL),
                   UTVM_OK);
  uint64_t f = rpc_h_get_global("test.bytes_without_data");
  size_t free_before = utvm_page_free_bytes(&rpc_h_server()->crt.tensors);
  /* No data and no size: empty bytes. */
  rpc_ab_init(&b);
  rpc_ab_int(&b, kTVMArgInt, 0);
  rpc_packet_call(&p, f, &b);
  rpc_ab_free(&b);
  rpc_h_call(p.data, p.len, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMBytes), 0u);
  assert_int_equal(reply.len, 8u + 32u); /* packet_nbytes, then code, 2 args, no payload */
  /* A size without data: refused, never read from NULL. */
  rpc_ab_init(&b);
  rpc_ab_int(&b, kTVMArgInt, 16);
  rpc_packet_call(&p, f, &b);
  rpc_ab_free(&b);
  expect_rejected(&p, "CallFunc: unsupported type code 0x0000000c");
  /* Both structs were released. */
  assert_int_equal(utvm_page_free_bytes(&rpc_h_server()->crt.tensors), free_before);
  test_bytes_free(&p);
  test_bytes_free(&reply);
}

/* The server's own globals answer their documented calls and refuse any other arguments. */
static void test_server_globals(void **state) {
  (void)state;
  test_bytes_t p;
  test_bytes_t reply;
  rpc_args_builder_t b;
  test_bytes_init(&p);
  test_bytes_init(&reply);
  uint64_t packet_size = rpc_h_get_global("tvm.rpc.server.GetCRTMaxPacketSize");
  uint64_t sync = rpc_h_get_global(UTVM_RPC_SYNC_NAME);
  uint64_t transfer = rpc_h_get_global(UTVM_RPC_GET_MAX_TRANSFER_NAME);
  rpc_ab_init(&b);
  rpc_packet_call(&p, packet_size, &b);
  rpc_h_call(p.data, p.len, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMArgInt), UTVM_RPC_TVM_MAX_PACKET);
  rpc_packet_call(&p, transfer, &b);
  rpc_h_call(p.data, p.len, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMArgInt), 8192u);
  rpc_packet_call(&p, sync, &b);
  expect_rejected(&p, "CallFunc: bad arguments");
  rpc_ab_int(&b, kTVMArgInt, 0x123456789ll);
  rpc_packet_call(&p, sync, &b);
  rpc_h_call(p.data, p.len, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMArgInt), 0x123456789ull);
  rpc_packet_call(&p, packet_size, &b);
  expect_rejected(&p, "CallFunc: bad arguments");
  rpc_packet_call(&p, transfer, &b);
  expect_rejected(&p, "CallFunc: bad arguments");
  rpc_ab_free(&b);
  rpc_ab_init(&b);
  rpc_ab_str(&b, "token");
  rpc_packet_call(&p, sync, &b);
  expect_rejected(&p, "CallFunc: bad arguments");
  rpc_ab_free(&b);
  test_bytes_free(&p);
  test_bytes_free(&reply);
}

static void test_empty_messages(void **state) {
  (void)state;
  rpc_h_expect_no_reply(NULL, 0u);
  static const uint8_t zero[8] = {0};
  rpc_h_expect_no_reply(zero, 8u);
  static const uint8_t short_body[5] = {1, 0, 0, 0, 0};
  test_bytes_t reply;
  test_bytes_init(&reply);
  rpc_h_send(short_body, 5u, 0u);
  size_t replies = rpc_h_replies(&reply, 1u);
  assert_true(replies <= 1u);
  if (replies == 1u) {
    (void)rpc_expect_exception(&reply);
  }
  test_bytes_free(&reply);
  rpc_h_expect_alive();
}

static void test_split_at_every_byte(void **state) {
  (void)state;
  test_bytes_t p;
  test_bytes_t wire;
  test_bytes_t expected;
  test_bytes_t got;
  test_bytes_init(&p);
  test_bytes_init(&wire);
  test_bytes_init(&expected);
  test_bytes_init(&got);
  uint64_t t = rpc_h_alloc(64u);
  static const uint8_t data[16] = {0xFF, 0xFD, 0xFF, 0xFE, 1, 2, 3, 4, 0xFF, 0xFF, 0, 0, 9, 9, 9, 9};
  const size_t n_packets = 2u;
  for (size_t k = 0u; k < n_packets; k++) {
    if (k == 0u) {
      get_global_packet(&p, "tvm.rpc.server.ModuleGetFunction");
    } else {
      rpc_packet_copy_to(&p, t, 64, 8u, data, 16u);
    }
    test_bytes_clear(&wire);
    rpc_h_frame(&wire, 0xA55Au, UTVM_MSG_NORMAL, p.data, p.len, 0u);
    rpc_h_feed(wire.data, wire.len, 0u);
    rpc_h_take_output(&expected);
    assert_true(expected.len > 0u);
    for (size_t split = 1u; split < wire.len; split++) {
      rpc_h_feed(wire.data, split, 0u);
      rpc_h_feed(&wire.data[split], wire.len - split, 0u);
      rpc_h_take_output(&got);
      assert_true(test_bytes_equal(&got, expected.data, expected.len));
    }
    rpc_h_feed(wire.data, wire.len, 1u);
    rpc_h_take_output(&got);
    assert_true(test_bytes_equal(&got, expected.data, expected.len));
  }
  rpc_h_free(t);
  test_bytes_free(&p);
  test_bytes_free(&wire);
  test_bytes_free(&expected);
  test_bytes_free(&got);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_lengths_and_codes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_syscall_arguments, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_tensors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unissued_handles, setup, teardown),
      cmocka_unit_test_setup_teardown(test_copy_ranges, setup, teardown),
      cmocka_unit_test_setup_teardown(test_oversize_and_streaming, setup, teardown),
      cmocka_unit_test_setup_teardown(test_faulty_results, setup, teardown),
      cmocka_unit_test_setup_teardown(test_server_globals, setup, teardown),
      cmocka_unit_test_setup_teardown(test_empty_messages, setup, teardown),
      cmocka_unit_test_setup_teardown(test_split_at_every_byte, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

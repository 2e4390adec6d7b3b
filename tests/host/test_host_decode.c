/* Host library against a scripted in-process device: exact request bytes (vectors/rpc.json),
 * every reply form of PROTOCOL.md 3.5, exceptions, malformed replies, device reset, silence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rpc_vectors.h"
#include "utvm/host.h"

#define FAKE_MAX_REPLIES 8u

/* The scripted device: a responder session that answers each Normal message with the next
 * scripted RPC packet (or a log and a Terminate, or nothing). */
typedef struct {
  utvm_session_t device;
  uint8_t to_host[65536];
  size_t to_host_len;
  size_t to_host_pos;
  uint8_t request[4096];
  size_t request_len;
  uint32_t requests;
  const uint8_t *replies[FAKE_MAX_REPLIES];
  size_t reply_lens[FAKE_MAX_REPLIES];
  size_t num_replies;
  size_t next_reply;
  const char *log_then_terminate;
  uint8_t nonce;
} fake_device_t;

static fake_device_t fake;

static utvm_err_t fake_device_write(void *ctx, const uint8_t *data, size_t n) {
  (void)ctx;
  assert_true(fake.to_host_len + n <= sizeof(fake.to_host));
  memcpy(&fake.to_host[fake.to_host_len], data, n);
  fake.to_host_len += n;
  return UTVM_OK;
}

static utvm_err_t fake_random(void *ctx, uint8_t *buf, size_t n) {
  (void)ctx;
  for (size_t i = 0u; i < n; i++) {
    fake.nonce = (uint8_t)(fake.nonce + 37u);
    buf[i] = fake.nonce;
  }
  return UTVM_OK;
}

static void fake_message_start(void *ctx, utvm_msg_type_t type, uint32_t body_len) {
  (void)ctx;
  (void)type;
  (void)body_len;
  fake.request_len = 0u;
}

static void fake_message_data(void *ctx, const uint8_t *data, size_t n) {
  (void)ctx;
  assert_true(fake.request_len + n <= sizeof(fake.request));
  memcpy(&fake.request[fake.request_len], data, n);
  fake.request_len += n;
}

static void fake_message_end(void *ctx, utvm_frame_status_t status) {
  (void)ctx;
  assert_int_equal(status, UTVM_FRAME_OK);
  fake.requests++;
  if (fake.log_then_terminate != NULL) {
    assert_int_equal(utvm_session_send_log(&fake.device, fake.log_then_terminate,
                                           strlen(fake.log_then_terminate)),
                     UTVM_OK);
    assert_int_equal(utvm_session_send_terminate(&fake.device), UTVM_OK);
    return;
  }
  if (fake.next_reply >= fake.num_replies) {
    return; /* silent device */
  }
  size_t i = fake.next_reply++;
  assert_int_equal(utvm_session_message_begin(&fake.device, (uint32_t)fake.reply_lens[i]),
                   UTVM_OK);
  assert_int_equal(utvm_session_message_write(&fake.device, fake.replies[i], fake.reply_lens[i]),
                   UTVM_OK);
  assert_int_equal(utvm_session_message_end(&fake.device), UTVM_OK);
}

static long fake_read(void *ctx, uint8_t *buf, size_t n, int32_t timeout_ms) {
  (void)ctx;
  (void)timeout_ms;
  size_t avail = fake.to_host_len - fake.to_host_pos;
  size_t take = (avail < n) ? avail : n;
  memcpy(buf, &fake.to_host[fake.to_host_pos], take);
  fake.to_host_pos += take;
  if (fake.to_host_pos == fake.to_host_len) {
    fake.to_host_pos = 0u;
    fake.to_host_len = 0u;
  }
  return (long)take;
}

static int fake_write(void *ctx, const uint8_t *data, size_t n, int32_t timeout_ms) {
  (void)ctx;
  (void)timeout_ms;
  utvm_session_feed(&fake.device, data, n);
  return 0;
}

static int closes;

static void fake_close(void *ctx) {
  (void)ctx;
  closes++;
}

typedef struct {
  char text[128];
  int count;
} log_capture_t;

static log_capture_t logs;

static void capture_log(void *ctx, const char *text, size_t len) {
  (void)ctx;
  snprintf(logs.text, sizeof(logs.text), "%.*s", (int)len, text);
  logs.count++;
}

static utvm_host_t *open_fake(void) {
  memset(&fake, 0, sizeof(fake));
  memset(&logs, 0, sizeof(logs));
  const utvm_session_config_t config = {
      UTVM_SESSION_ROLE_RESPONDER, fake_device_write, NULL, fake_random, NULL,
      {NULL, fake_message_start, fake_message_data, fake_message_end, NULL}, 0u, 0u};
  assert_int_equal(utvm_session_init(&fake.device, &config), UTVM_OK);
  const utvm_host_transport_t transport = {fake_read, fake_write, fake_close, NULL};
  utvm_host_options_t opts;
  utvm_host_options_default(&opts);
  opts.call_timeout_ms = 100;
  opts.log = capture_log;
  utvm_host_t *host = NULL;
  char err[128];
  assert_int_equal(utvm_host_open_transport(&transport, &opts, &host, err, sizeof(err)),
                   UTVM_HOST_OK);
  return host;
}

/* Queues the rpc_packet of vector name as the next reply. */
/* Makes room for one more scripted reply (the queue restarts once it has been consumed). */
static void script_reserve(void) {
  if (fake.next_reply == fake.num_replies) {
    fake.next_reply = 0u;
    fake.num_replies = 0u;
  }
  assert_true(fake.num_replies < FAKE_MAX_REPLIES);
}

static void script_vector(const char *name) {
  const rpc_vector_t *v = rpc_vectors_find(name);
  assert_non_null(v);
  script_reserve();
  fake.replies[fake.num_replies] = v->rpc_packet;
  fake.reply_lens[fake.num_replies] = v->rpc_packet_len;
  fake.num_replies++;
}

static void script_bytes(const uint8_t *packet, size_t len) {
  script_reserve();
  fake.replies[fake.num_replies] = packet;
  fake.reply_lens[fake.num_replies] = len;
  fake.num_replies++;
}

/* The last request the device received equals the rpc_packet of vector name. */
static void assert_request(const char *name) {
  const rpc_vector_t *v = rpc_vectors_find(name);
  assert_non_null(v);
  assert_int_equal(fake.request_len, v->rpc_packet_len);
  assert_memory_equal(fake.request, v->rpc_packet, fake.request_len);
}

static const uint8_t return_handle_0[] = {0x14, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 1, 0,
                                          0,    0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
static const uint8_t return_handle_80028001[] = {0x14, 0, 0, 0, 0, 0, 0, 0, 4, 0,    0,
                                                 0,    1, 0, 0, 0, 3, 0, 0, 0, 0x01, 0x80,
                                                 0x02, 0x80, 0, 0, 0, 0};

static const utvm_host_device_t cpu = {1, 0};

static utvm_host_tensor_t f32x4(uint64_t data) {
  utvm_host_tensor_t t;
  memset(&t, 0, sizeof(t));
  t.data = data;
  t.device = cpu;
  t.ndim = 1;
  t.dtype.code = 2u;
  t.dtype.bits = 32u;
  t.dtype.lanes = 1u;
  t.shape[0] = 4;
  return t;
}

static void test_syscall_requests(void **state) {
  (void)state;
  utvm_host_t *host = open_fake();
  uint64_t handle = 0u;
  script_vector("Return_handle");
  assert_int_equal(utvm_host_get_global(host, "runtime.SystemLib", &handle), UTVM_HOST_OK);
  assert_request("GetGlobalFunc_runtime.SystemLib");
  assert_int_equal(handle, 0x80028000u);

  script_vector("Return_void");
  assert_int_equal(utvm_host_free_handle(host, 0x80008000u, UTVM_TC_FUNCTION), UTVM_HOST_OK);
  assert_request("FreeHandle_func");

  script_vector("Exception_GetAttr");
  utvm_host_value_t value;
  assert_int_equal(utvm_host_dev_get_attr(host, cpu, 1, &value),
                   UTVM_HOST_ERR_DEVICE_EXCEPTION);
  assert_request("DevGetAttr_cpu0_kind1");
  assert_string_equal(utvm_host_last_error(host), "GetAttr not supported");

  script_vector("Return_handle");
  utvm_host_dtype_t f32 = {2u, 32u, 1u};
  assert_int_equal(utvm_host_dev_alloc_data(host, cpu, 16, 64, f32,
                                            &handle),
                   UTVM_HOST_OK);
  assert_request("DevAllocData_16B_align64_f32");

  utvm_host_tensor_t t = f32x4(0u);
  script_vector("Return_handle");
  assert_int_equal(utvm_host_dev_alloc_data_with_scope(host, &t, NULL, &handle), UTVM_HOST_OK);
  assert_request("DevAllocDataWithScope_f32x4_null");
  script_vector("Return_handle");
  assert_int_equal(utvm_host_dev_alloc_data_with_scope(host, &t, "global", &handle),
                   UTVM_HOST_OK);
  assert_request("DevAllocDataWithScope_f32x4_global");

  script_vector("Return_void");
  assert_int_equal(utvm_host_dev_free_data(host, cpu, 0x20001000u), UTVM_HOST_OK);
  assert_request("DevFreeData");
  script_vector("Return_void");
  assert_int_equal(utvm_host_dev_stream_sync(host, cpu, 0u), UTVM_HOST_OK);
  assert_request("DevStreamSync_null_stream");
  utvm_host_close(host);
}

static void test_copies(void **state) {
  (void)state;
  utvm_host_t *host = open_fake();
  /* Neither size global exists: copies go unchunked. */
  script_bytes(return_handle_0, sizeof(return_handle_0));
  script_bytes(return_handle_0, sizeof(return_handle_0));
  script_vector("Return_void");
  const float values[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  utvm_host_tensor_t t = f32x4(0x20001000u);
  assert_int_equal(utvm_host_copy_to_device(host, &t, values, sizeof(values)), UTVM_HOST_OK);
  assert_request("CopyToRemote_4xf32");
  script_vector("CopyAck_4xf32");
  float back[4] = {0};
  assert_int_equal(utvm_host_copy_from_device(host, &t, back, sizeof(back)), UTVM_HOST_OK);
  assert_request("CopyFromRemote_16B");
  assert_memory_equal(back, values, sizeof(values));
  /* A CopyAck of the wrong size is a protocol error. */
  script_vector("CopyAck_4xf32");
  assert_int_equal(utvm_host_copy_from_device(host, &t, back, 8u), UTVM_HOST_ERR_PROTOCOL);
  utvm_host_close(host);
}

static void test_call_requests(void **state) {
  (void)state;
  utvm_host_t *host = open_fake();
  script_bytes(return_handle_80028001, sizeof(return_handle_80028001));
  script_vector("Return_callfunc_packedfunc");
  uint64_t f = 0u;
  assert_int_equal(utvm_host_module_get_function(host, 0x8000u, "add", &f), UTVM_HOST_OK);
  assert_request("CallFunc_ModuleGetFunction");
  assert_int_equal(f, 0x80008000u);

  static const uint8_t bytes[] = {0x01, 0xff};
  utvm_host_value_t args[8];
  memset(args, 0, sizeof(args));
  args[0].type_code = UTVM_TC_INT;
  args[0].v.i = -2;
  args[1].type_code = UTVM_TC_FLOAT;
  args[1].v.f = 1.5;
  args[2].type_code = UTVM_TC_DATATYPE;
  args[2].v.dtype = (utvm_host_dtype_t){1u, 8u, 4u};
  args[3].type_code = UTVM_TC_DEVICE;
  args[3].v.device = cpu;
  args[4].type_code = UTVM_TC_HANDLE;
  args[4].v.handle = 0x1234u;
  args[5].type_code = UTVM_TC_NULL;
  args[6].type_code = UTVM_TC_BYTES;
  args[6].v.bytes.data = bytes;
  args[6].v.bytes.len = sizeof(bytes);
  args[7].type_code = UTVM_TC_BOOL;
  args[7].v.i = 1;
  script_vector("Return_callfunc_void");
  utvm_host_value_t ret;
  assert_int_equal(utvm_host_call(host, 0x80008003u, args, 8u, &ret), UTVM_HOST_OK);
  assert_request("CallFunc_mixed_types");
  assert_int_equal(ret.type_code, UTVM_TC_NULL);

  /* NDArray arguments travel as DLTensor (code 7). */
  args[0].type_code = UTVM_TC_NDARRAY;
  args[0].v.tensor = f32x4(0x20001000u);
  args[1].type_code = UTVM_TC_DLTENSOR;
  args[1].v.tensor = f32x4(0x20002000u);
  args[2].type_code = UTVM_TC_DLTENSOR;
  args[2].v.tensor = f32x4(0x20001000u);
  script_vector("Return_callfunc_void");
  assert_int_equal(utvm_host_call(host, 0x80008000u, args, 3u, &ret), UTVM_HOST_OK);
  assert_request("CallFunc_3_DLTensors");

  /* The 12 arguments of runtime.RPCTimeEvaluator, then the timing call's Bytes result. */
  script_bytes(return_handle_80028001, sizeof(return_handle_80028001));
  script_vector("Return_callfunc_packedfunc");
  script_vector("Return_callfunc_bytes_timeeval");
  script_vector("Return_void");
  utvm_host_time_params_t params;
  memset(&params, 0, sizeof(params));
  params.number = 0;
  params.f_preproc = NULL;
  double *seconds = NULL;
  size_t count = 0u;
  assert_int_equal(utvm_host_time(host, 0x8000u, "add", &params, NULL, 0u, &seconds, &count),
                   UTVM_HOST_OK);
  assert_int_equal(count, 2);
  assert_true(seconds[0] == 0.25);
  assert_true(seconds[1] > 0.0);
  free(seconds);
  assert_request("FreeHandle_func");
  utvm_host_close(host);
}

static void test_return_forms(void **state) {
  (void)state;
  utvm_host_t *host = open_fake();
  utvm_host_value_t ret;

  script_vector("Return_callfunc_int");
  assert_int_equal(utvm_host_call(host, 0x80028000u, NULL, 0u, &ret), UTVM_HOST_OK);
  assert_request("CallFunc_noargs");
  assert_int_equal(ret.type_code, UTVM_TC_INT);
  assert_int_equal(ret.v.i, 42);

  script_vector("Return_callfunc_module");
  assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.type_code, UTVM_TC_MODULE);
  assert_int_equal(ret.v.handle, 0x8000u);

  script_vector("Return_callfunc_str");
  assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.type_code, UTVM_TC_STR);
  assert_int_equal(ret.v.bytes.len, 5);
  assert_memory_equal(ret.v.bytes.data, "hello", 5);

  script_vector("Return_callfunc_bytes_timeeval");
  assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.type_code, UTVM_TC_BYTES);
  assert_int_equal(ret.v.bytes.len, 16);

  script_vector("Return_callfunc_ndarray");
  assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.type_code, UTVM_TC_NDARRAY);
  assert_int_equal(ret.v.tensor.data, 0x20001000u);
  assert_int_equal(ret.v.tensor.ndim, 1);
  assert_int_equal(ret.v.tensor.shape[0], 4);
  assert_int_equal(ret.v.tensor.dtype.bits, 32);
  assert_int_equal(ret.ndarray_handle, 0x20003000u);

  /* Hand-built replies: float, uint, datatype, device, opaque handle, function, object. */
  static const uint8_t ret_float[] = {0x20, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0,
                                      0,    0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
                                      0,    0, 0, 0, 0, 0, 0x04, 0x40};
  script_bytes(ret_float, sizeof(ret_float));
  assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.type_code, UTVM_TC_FLOAT);
  assert_true(ret.v.f == 2.5);

  static const uint8_t ret_dtype[] = {0x20, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0,
                                      0,    0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0,
                                      2,    16, 1, 0, 0, 0, 0, 0};
  script_bytes(ret_dtype, sizeof(ret_dtype));
  assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.type_code, UTVM_TC_DATATYPE);
  assert_int_equal(ret.v.dtype.code, 2);
  assert_int_equal(ret.v.dtype.bits, 16);
  assert_int_equal(ret.v.dtype.lanes, 1);

  static const uint8_t ret_device[] = {0x20, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0,
                                       0,    0, 0, 0, 6, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0,
                                       1,    0, 0, 0, 3, 0, 0, 0};
  script_bytes(ret_device, sizeof(ret_device));
  assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.type_code, UTVM_TC_DEVICE);
  assert_int_equal(ret.v.device.device_type, 1);
  assert_int_equal(ret.v.device.device_id, 3);

  const int32_t plain[] = {UTVM_TC_UINT, UTVM_TC_HANDLE, UTVM_TC_BOOL};
  for (size_t i = 0u; i < 3u; i++) {
    uint8_t packet[40] = {0x20, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0};
    packet[20] = (uint8_t)plain[i];
    packet[24] = (uint8_t)plain[i];
    packet[32] = 1u;
    script_bytes(packet, sizeof(packet));
    assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, &ret), UTVM_HOST_OK);
    assert_int_equal(ret.type_code, plain[i]);
    assert_int_equal(ret.v.u, 1u);
  }
  const int32_t handles[] = {UTVM_TC_FUNCTION, UTVM_TC_OBJECT};
  for (size_t i = 0u; i < 2u; i++) {
    uint8_t packet[40] = {0x20, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
                          0,    0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0x77};
    packet[20] = (uint8_t)UTVM_TC_HANDLE;
    packet[24] = (uint8_t)handles[i];
    script_bytes(packet, sizeof(packet));
    assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, &ret), UTVM_HOST_OK);
    assert_int_equal(ret.type_code, handles[i]);
    assert_int_equal(ret.v.handle, 0x77u);
  }
  utvm_host_close(host);
  assert_int_equal(closes > 0, 1);
}

static void test_malformed_replies(void **state) {
  (void)state;
  utvm_host_t *host = open_fake();
  utvm_host_value_t ret;
  /* Length prefix disagrees with the message. */
  static const uint8_t bad_length[] = {0x30, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0,
                                       0,    0};
  script_bytes(bad_length, sizeof(bad_length));
  assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, &ret), UTVM_HOST_ERR_PROTOCOL);
  /* A syscall-style reply (one value) to CallFunc. */
  script_vector("Return_void");
  assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, &ret), UTVM_HOST_ERR_PROTOCOL);
  /* A CallFunc-style reply to a syscall. */
  script_vector("Return_callfunc_int");
  assert_int_equal(utvm_host_free_handle(host, 1u, UTVM_TC_FUNCTION), UTVM_HOST_ERR_PROTOCOL);
  /* Unknown type code in the reply. */
  static const uint8_t bad_code[] = {0x18, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0,
                                     0,    0, 0, 0, 99, 0, 0, 0, 99, 0, 0, 0, 0, 0, 0, 0};
  script_bytes(bad_code, sizeof(bad_code));
  assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, &ret), UTVM_HOST_ERR_PROTOCOL);
  /* Str length beyond the packet. */
  static const uint8_t bad_str[] = {0x20, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0,
                                    0,    0, 0, 0, 11, 0, 0, 0, 11, 0, 0, 0, 0, 0, 0, 0,
                                    0xff, 0, 0, 0, 0, 0, 0, 0};
  script_bytes(bad_str, sizeof(bad_str));
  assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, &ret), UTVM_HOST_ERR_PROTOCOL);
  /* The client stays usable after malformed replies. */
  script_vector("Return_callfunc_int");
  assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.v.i, 42);
  utvm_host_close(host);
}

static void test_reset_and_silence(void **state) {
  (void)state;
  utvm_host_t *host = open_fake();
  fake.log_then_terminate = "watchdog fired";
  assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, NULL), UTVM_HOST_ERR_DEVICE_RESET);
  assert_non_null(strstr(utvm_host_last_error(host), "watchdog fired"));
  assert_int_equal(logs.count, 1);
  assert_string_equal(logs.text, "watchdog fired");
  fake.log_then_terminate = NULL;
  assert_int_equal(utvm_host_reconnect(host), UTVM_HOST_OK);
  script_vector("Return_callfunc_int");
  utvm_host_value_t ret;
  assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.v.i, 42);
  /* No reply at all: bounded by the call timeout, then the link is marked unusable. */
  assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, &ret), UTVM_HOST_ERR_TIMEOUT);
  assert_int_equal(utvm_host_call(host, 1u, NULL, 0u, &ret), UTVM_HOST_ERR_BROKEN);
  utvm_host_close(host);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_syscall_requests), cmocka_unit_test(test_copies),
      cmocka_unit_test(test_call_requests),    cmocka_unit_test(test_return_forms),
      cmocka_unit_test(test_malformed_replies), cmocka_unit_test(test_reset_and_silence),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

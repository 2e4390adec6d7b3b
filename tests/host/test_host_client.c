/* Host library against the real utvm-posix-server (path in UTVM_POSIX_SERVER). */
#define _DEFAULT_SOURCE

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "utvm/host.h"

#ifndef UTVM_POSIX_SERVER
#error "UTVM_POSIX_SERVER must name the server binary"
#endif

#define SERVER_SPEC "exec:" UTVM_POSIX_SERVER

static const utvm_host_device_t cpu = {1, 0};

typedef struct {
  char last[256];
  int count;
} log_capture_t;

static void capture_log(void *ctx, const char *text, size_t len) {
  log_capture_t *c = (log_capture_t *)ctx;
  size_t n = (len < sizeof(c->last) - 1u) ? len : sizeof(c->last) - 1u;
  (void)memcpy(c->last, text, n);
  c->last[n] = '\0';
  c->count++;
}

static double now_s(void) {
  struct timespec ts;
  (void)clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static utvm_host_t *open_server(const char *spec, log_capture_t *logs, bool max_transfer) {
  utvm_host_options_t opts;
  utvm_host_options_default(&opts);
  opts.call_timeout_ms = 5000;
  opts.use_max_transfer = max_transfer;
  if (logs != NULL) {
    opts.log = capture_log;
    opts.log_ctx = logs;
  }
  utvm_host_t *host = NULL;
  char err[256];
  utvm_host_err_t rc = utvm_host_open(spec, &opts, &host, err, sizeof(err));
  if (rc != UTVM_HOST_OK) {
    (void)fprintf(stderr, "open failed: %s\n", err);
  }
  assert_int_equal(rc, UTVM_HOST_OK);
  assert_non_null(host);
  return host;
}

static uint64_t syslib_function(utvm_host_t *host, const char *name) {
  uint64_t f = 0u;
  bool in_syslib = false;
  assert_int_equal(utvm_host_find_function(host, name, &f, &in_syslib), UTVM_HOST_OK);
  assert_true(in_syslib);
  assert_int_not_equal(f, 0);
  return f;
}

/* A 16 MiB tensor arena (--arena) is usable in full: tensors of 512 KiB fill it (the page
 * allocator once capped every arena at 2 MiB - 64 B), the single 2 MiB and 8 MiB tensors a
 * TVM host asks for fit, and the last tensor's bytes round-trip. */
static void test_arena_16mib_filled_by_tensors(void **state) {
  (void)state;
  utvm_host_t *host = open_server(SERVER_SPEC " --arena 16777216", NULL, true);
  const utvm_host_dtype_t i8 = {0u, 8u, 1u};
  utvm_host_value_t total;
  assert_int_equal(utvm_host_dev_get_attr(host, cpu, 14, &total), UTVM_HOST_OK);
  assert_true(total.v.i > 16 * 1024 * 1024 - 128 * 1024);
  uint64_t big = 0u;
  assert_int_equal(utvm_host_dev_alloc_data(host, cpu, 8 * 1024 * 1024, 64, i8, &big),
                   UTVM_HOST_OK);
  uint64_t two = 0u;
  assert_int_equal(utvm_host_dev_alloc_data(host, cpu, 2 * 1024 * 1024, 64, i8, &two),
                   UTVM_HOST_OK);
  assert_int_equal(utvm_host_dev_free_data(host, cpu, big), UTVM_HOST_OK);
  assert_int_equal(utvm_host_dev_free_data(host, cpu, two), UTVM_HOST_OK);
  uint64_t blocks[40];
  int n = 0;
  while (n < 40) {
    utvm_host_err_t rc = utvm_host_dev_alloc_data(host, cpu, 512 * 1024, 64, i8, &blocks[n]);
    if (rc != UTVM_HOST_OK) {
      assert_int_equal(rc, UTVM_HOST_ERR_DEVICE_EXCEPTION);
      assert_non_null(strstr(utvm_host_last_error(host), "tensor arena full"));
      break;
    }
    n++;
  }
  /* 16 MiB less bookkeeping holds 31 such tensors (2 MiB - 64 B held 3). */
  assert_int_equal(n, 31);
  static uint8_t pattern[512 * 1024];
  static uint8_t back[512 * 1024];
  for (size_t i = 0u; i < sizeof(pattern); i++) {
    pattern[i] = (uint8_t)(i * 13u + 7u);
  }
  utvm_host_tensor_t t;
  memset(&t, 0, sizeof(t));
  t.data = blocks[n - 1];
  t.device = cpu;
  t.ndim = 1;
  t.dtype = i8;
  t.shape[0] = (int64_t)sizeof(pattern);
  assert_int_equal(utvm_host_copy_to_device(host, &t, pattern, sizeof(pattern)), UTVM_HOST_OK);
  assert_int_equal(utvm_host_copy_from_device(host, &t, back, sizeof(back)), UTVM_HOST_OK);
  assert_memory_equal(pattern, back, sizeof(back));
  utvm_host_close(host);
}

/* tvm.contrib.random.random_fill fills tensors of every dtype with values in [1, 10), as
 * TVM's does (AutoTVM's runners call it on the device); not a constant fill. */
static void test_random_fill(void **state) {
  (void)state;
  utvm_host_t *host = open_server(SERVER_SPEC, NULL, true);
  uint64_t fill = 0u;
  assert_int_equal(utvm_host_get_global(host, "tvm.contrib.random.random_fill", &fill),
                   UTVM_HOST_OK);
  assert_int_not_equal(fill, 0u);
  static const utvm_host_dtype_t dtypes[] = {
      {0u, 8u, 1u}, {0u, 16u, 1u}, {0u, 32u, 1u}, {0u, 64u, 1u}, {1u, 8u, 1u},
      {1u, 1u, 1u}, {2u, 16u, 1u}, {2u, 32u, 1u}, {2u, 64u, 1u}, {0u, 8u, 4u}};
  for (size_t k = 0u; k < sizeof(dtypes) / sizeof(dtypes[0]); k++) {
    utvm_host_value_t arg;
    memset(&arg, 0, sizeof(arg));
    arg.type_code = UTVM_TC_DLTENSOR;
    utvm_host_tensor_t *t = &arg.v.tensor;
    t->device.device_type = 1;
    t->ndim = 2;
    t->shape[0] = 4;
    t->shape[1] = 16;
    t->dtype = dtypes[k];
    assert_int_equal(utvm_host_dev_alloc_data_with_scope(host, t, NULL, &t->data), UTVM_HOST_OK);
    assert_int_equal(utvm_host_call(host, fill, &arg, 1u, NULL), UTVM_HOST_OK);
    uint8_t data[64 * 8 * 4];
    size_t nbytes = utvm_host_tensor_nbytes(t);
    assert_int_equal(utvm_host_copy_from_device(host, t, data, nbytes), UTVM_HOST_OK);
    size_t lanes = 64u * dtypes[k].lanes;
    size_t width = nbytes / lanes;
    double first = -1.0;
    bool varied = false;
    for (size_t i = 0u; i < lanes; i++) {
      double v = 0.0;
      const uint8_t *e = &data[i * width];
      if (dtypes[k].code == 2u) {
        if (width == 4u) {
          float f;
          memcpy(&f, e, 4u);
          v = (double)f;
        } else if (width == 8u) {
          memcpy(&v, e, 8u);
        } else {
          uint16_t h = (uint16_t)(e[0] | (e[1] << 8));
          v = ldexp((double)((h & 0x3FFu) | 0x400u), (int)((h >> 10) & 0x1Fu) - 25);
        }
      } else {
        int64_t iv = 0;
        for (size_t b = 0u; b < width; b++) {
          iv |= (int64_t)e[b] << (8u * b);
        }
        v = (double)iv;
      }
      if (dtypes[k].bits == 1u) {
        assert_true(v == 1.0);
      } else {
        assert_true(v >= 1.0 && v < 10.0);
      }
      varied = varied || ((i > 0u) && (v != first));
      first = (i == 0u) ? v : first;
    }
    assert_true(varied || dtypes[k].bits == 1u);
    assert_int_equal(utvm_host_dev_free_data(host, t->device, t->data), UTVM_HOST_OK);
  }
  /* A tensor outside the arena is refused with a readable error. */
  utvm_host_value_t bad;
  memset(&bad, 0, sizeof(bad));
  bad.type_code = UTVM_TC_DLTENSOR;
  bad.v.tensor.device.device_type = 1;
  bad.v.tensor.ndim = 1;
  bad.v.tensor.shape[0] = 4;
  bad.v.tensor.dtype.code = 0u;
  bad.v.tensor.dtype.bits = 8u;
  bad.v.tensor.dtype.lanes = 1u;
  bad.v.tensor.data = 0x1000u;
  assert_int_equal(utvm_host_call(host, fill, &bad, 1u, NULL), UTVM_HOST_ERR_DEVICE_EXCEPTION);
  utvm_host_close(host);
}

/* A call with 40 arguments (TVM's hosts send that many) reaches the function whole, and a
 * 16-dimensional tensor is allocated, copied and read back (TVM's device allows 16). */
static void test_many_arguments_and_dimensions(void **state) {
  (void)state;
  utvm_host_t *host = open_server(SERVER_SPEC, NULL, true);
  uint64_t sum = syslib_function(host, "test_sum_ints");
  utvm_host_value_t args[40];
  for (int i = 0; i < 40; i++) {
    memset(&args[i], 0, sizeof(args[i]));
    args[i].type_code = UTVM_TC_INT;
    args[i].v.i = i + 1;
  }
  utvm_host_value_t ret;
  assert_int_equal(utvm_host_call(host, sum, args, 40u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.type_code, UTVM_TC_INT);
  assert_int_equal(ret.v.i, 820);
  utvm_host_tensor_t t;
  memset(&t, 0, sizeof(t));
  t.device.device_type = 1;
  t.ndim = 16;
  t.dtype.code = 0u;
  t.dtype.bits = 8u;
  t.dtype.lanes = 1u;
  for (int d = 0; d < 16; d++) {
    t.shape[d] = (d % 4 == 0) ? 2 : 1;
  }
  uint8_t in[16];
  uint8_t out[16];
  for (int i = 0; i < 16; i++) {
    in[i] = (uint8_t)(100 + i);
  }
  assert_int_equal(utvm_host_dev_alloc_data_with_scope(host, &t, NULL, &t.data), UTVM_HOST_OK);
  assert_int_equal(utvm_host_copy_to_device(host, &t, in, sizeof(in)), UTVM_HOST_OK);
  assert_int_equal(utvm_host_copy_from_device(host, &t, out, sizeof(out)), UTVM_HOST_OK);
  assert_memory_equal(in, out, sizeof(in));
  utvm_host_close(host);
}

/* time_evaluator with number = 0 returns NaN (TVM's answer), and a cooldown between repeats
 * sleeps on the POSIX server. */
static void test_time_number_zero_and_cooldown(void **state) {
  (void)state;
  utvm_host_t *host = open_server(SERVER_SPEC, NULL, true);
  uint64_t module = 0u;
  assert_int_equal(utvm_host_system_lib(host, &module), UTVM_HOST_OK);
  utvm_host_value_t arg;
  memset(&arg, 0, sizeof(arg));
  arg.type_code = UTVM_TC_INT;
  arg.v.i = 100;
  utvm_host_time_params_t params;
  utvm_host_time_params_default(&params);
  params.number = 0;
  params.repeat = 2;
  double *seconds = NULL;
  size_t count = 0u;
  assert_int_equal(utvm_host_time(host, module, "test_busy_wait_us", &params, &arg, 1u,
                                  &seconds, &count), UTVM_HOST_OK);
  assert_int_equal(count, 2u);
  assert_true(isnan(seconds[0]) && isnan(seconds[1]));
  free(seconds);
  utvm_host_time_params_default(&params);
  params.repeat = 4;
  params.cooldown_interval_ms = 60;
  params.repeats_to_cooldown = 1;
  double start = now_s();
  assert_int_equal(utvm_host_time(host, module, "test_busy_wait_us", &params, &arg, 1u,
                                  &seconds, &count), UTVM_HOST_OK);
  assert_true(now_s() - start >= 0.18); /* three cooldowns of 60 ms */
  assert_int_equal(count, 4u);
  assert_true(seconds[3] >= 90e-6); /* 100 us on a microsecond clock: at least 99 us */
  free(seconds);
  utvm_host_close(host);
}

static void test_open_and_stats(void **state) {
  (void)state;
  utvm_host_t *host = open_server(SERVER_SPEC, NULL, true);
  utvm_host_stats_t s;
  utvm_host_get_stats(host, &s);
  assert_int_not_equal(s.session_id, 0);
  assert_int_equal(s.handshake_attempts, 1);
  assert_true(s.bytes_sent > 0u);
  assert_true(s.bytes_received > 0u);
  assert_int_equal(s.framing.crc_errors, 0);
  utvm_host_close(host);
}

static void test_get_global(void **state) {
  (void)state;
  utvm_host_t *host = open_server(SERVER_SPEC, NULL, true);
  uint64_t h = 0u;
  assert_int_equal(utvm_host_get_global(host, "runtime.SystemLib", &h), UTVM_HOST_OK);
  assert_int_not_equal(h, 0);
  assert_int_equal(utvm_host_get_global(host, "no.such.function", &h), UTVM_HOST_OK);
  assert_int_equal(h, 0);
  uint64_t f = 0u;
  assert_int_equal(utvm_host_find_function(host, "no_such_function", &f, NULL),
                   UTVM_HOST_ERR_NOT_FOUND);
  assert_non_null(strstr(utvm_host_last_error(host), "no_such_function"));
  uint64_t module = 0u;
  assert_int_equal(utvm_host_system_lib(host, &module), UTVM_HOST_OK);
  assert_int_equal(utvm_host_module_get_function(host, module, "missing", &f),
                   UTVM_HOST_ERR_NOT_FOUND);
  /* A global found through find_function. */
  bool in_syslib = true;
  assert_int_equal(utvm_host_find_function(host, "tvm.rpc.server.GetCRTMaxPacketSize", &f,
                                           &in_syslib), UTVM_HOST_OK);
  assert_false(in_syslib);
  utvm_host_value_t ret;
  assert_int_equal(utvm_host_call(host, f, NULL, 0u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.type_code, UTVM_TC_INT);
  assert_int_equal(ret.v.i, 2037);
  utvm_host_close(host);
}

static void test_echo_scalars(void **state) {
  (void)state;
  utvm_host_t *host = open_server(SERVER_SPEC, NULL, true);
  uint64_t echo = syslib_function(host, "test_echo");
  utvm_host_value_t arg;
  utvm_host_value_t ret;

  arg.type_code = UTVM_TC_INT;
  arg.v.i = -1234567890123LL;
  assert_int_equal(utvm_host_call(host, echo, &arg, 1u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.type_code, UTVM_TC_INT);
  assert_true(ret.v.i == -1234567890123LL);

  arg.type_code = UTVM_TC_FLOAT;
  arg.v.f = 2.5;
  assert_int_equal(utvm_host_call(host, echo, &arg, 1u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.type_code, UTVM_TC_FLOAT);
  assert_true(ret.v.f == 2.5);

  arg.type_code = UTVM_TC_BOOL;
  arg.v.i = 1;
  assert_int_equal(utvm_host_call(host, echo, &arg, 1u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.type_code, UTVM_TC_BOOL);
  assert_int_equal(ret.v.i, 1);

  arg.type_code = UTVM_TC_STR;
  arg.v.bytes.data = (const uint8_t *)"hello, device";
  arg.v.bytes.len = SIZE_MAX;
  assert_int_equal(utvm_host_call(host, echo, &arg, 1u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.type_code, UTVM_TC_STR);
  assert_int_equal(ret.v.bytes.len, 13);
  assert_memory_equal(ret.v.bytes.data, "hello, device", 13);

  static const uint8_t blob[] = {0x00, 0xff, 0xfd, 0xfe, 0xff, 0x10};
  arg.type_code = UTVM_TC_BYTES;
  arg.v.bytes.data = blob;
  arg.v.bytes.len = sizeof(blob);
  assert_int_equal(utvm_host_call(host, echo, &arg, 1u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.type_code, UTVM_TC_BYTES);
  assert_int_equal(ret.v.bytes.len, sizeof(blob));
  assert_memory_equal(ret.v.bytes.data, blob, sizeof(blob));

  arg.type_code = UTVM_TC_NULL;
  assert_int_equal(utvm_host_call(host, echo, &arg, 1u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.type_code, UTVM_TC_NULL);
  utvm_host_close(host);
}

/* Argument types test_echo does not accept still travel intact: the device decodes them and
 * answers with its exception, and the session stays usable. */
static void test_other_argument_types(void **state) {
  (void)state;
  utvm_host_t *host = open_server(SERVER_SPEC, NULL, true);
  uint64_t echo = syslib_function(host, "test_echo");
  utvm_host_value_t arg;
  memset(&arg, 0, sizeof(arg));
  const int32_t codes[] = {UTVM_TC_UINT,   UTVM_TC_DATATYPE, UTVM_TC_DEVICE,
                           UTVM_TC_HANDLE, UTVM_TC_FUNCTION, UTVM_TC_MODULE};
  for (size_t i = 0u; i < sizeof(codes) / sizeof(codes[0]); i++) {
    arg.type_code = codes[i];
    arg.v.u = (codes[i] == UTVM_TC_MODULE) ? 0x8000u : 7u;
    if (codes[i] == UTVM_TC_DATATYPE) {
      arg.v.dtype.code = 2u;
      arg.v.dtype.bits = 32u;
      arg.v.dtype.lanes = 1u;
    }
    if (codes[i] == UTVM_TC_DEVICE) {
      arg.v.device = cpu;
    }
    utvm_host_err_t rc = utvm_host_call(host, echo, &arg, 1u, NULL);
    assert_true((rc == UTVM_HOST_ERR_DEVICE_EXCEPTION) || (rc == UTVM_HOST_OK));
    if (rc == UTVM_HOST_ERR_DEVICE_EXCEPTION) {
      assert_true(strlen(utvm_host_last_error(host)) > 0u);
    }
  }
  arg.type_code = UTVM_TC_INT;
  arg.v.i = 7;
  utvm_host_value_t ret;
  assert_int_equal(utvm_host_call(host, echo, &arg, 1u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.v.i, 7);
  utvm_host_close(host);
}

static utvm_host_tensor_t f32_vector(uint64_t data, int64_t n) {
  utvm_host_tensor_t t;
  memset(&t, 0, sizeof(t));
  t.data = data;
  t.device = cpu;
  t.ndim = 1;
  t.dtype.code = 2u;
  t.dtype.bits = 32u;
  t.dtype.lanes = 1u;
  t.shape[0] = n;
  return t;
}

static void run_add(utvm_host_t *host, int64_t n) {
  uint64_t add = syslib_function(host, "test_add_f32");
  utvm_host_tensor_t t[3];
  float *host_data[3];
  size_t nbytes = (size_t)n * sizeof(float);
  for (int i = 0; i < 3; i++) {
    t[i] = f32_vector(0u, n);
    uint64_t data = 0u;
    if (i == 2) {
      utvm_host_dtype_t f32 = {2u, 32u, 1u};
      assert_int_equal(utvm_host_dev_alloc_data(host, cpu, (int64_t)nbytes, 64, f32, &data),
                       UTVM_HOST_OK);
    } else {
      assert_int_equal(utvm_host_dev_alloc_data_with_scope(host, &t[i], (i == 0) ? NULL : "global",
                                                           &data),
                       UTVM_HOST_OK);
    }
    assert_int_not_equal(data, 0);
    t[i].data = data;
    host_data[i] = (float *)calloc((size_t)n, sizeof(float));
    assert_non_null(host_data[i]);
  }
  for (int64_t k = 0; k < n; k++) {
    host_data[0][k] = (float)k;
    host_data[1][k] = 0.5f * (float)k;
  }
  assert_int_equal(utvm_host_copy_to_device(host, &t[0], host_data[0], nbytes), UTVM_HOST_OK);
  assert_int_equal(utvm_host_copy_to_device(host, &t[1], host_data[1], nbytes), UTVM_HOST_OK);
  assert_int_equal(utvm_host_dev_stream_sync(host, cpu, 0u), UTVM_HOST_OK);
  utvm_host_value_t args[3];
  for (int i = 0; i < 3; i++) {
    args[i].type_code = UTVM_TC_DLTENSOR;
    args[i].v.tensor = t[i];
  }
  utvm_host_value_t ret;
  assert_int_equal(utvm_host_call(host, add, args, 3u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.type_code, UTVM_TC_NULL);
  assert_int_equal(utvm_host_copy_from_device(host, &t[2], host_data[2], nbytes), UTVM_HOST_OK);
  for (int64_t k = 0; k < n; k++) {
    assert_true(host_data[2][k] == 1.5f * (float)k);
  }
  /* Read back an input too: the upload landed intact. */
  memset(host_data[2], 0, nbytes);
  assert_int_equal(utvm_host_copy_from_device(host, &t[1], host_data[2], nbytes), UTVM_HOST_OK);
  assert_memory_equal(host_data[2], host_data[1], nbytes);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(utvm_host_dev_free_data(host, cpu, t[i].data), UTVM_HOST_OK);
    free(host_data[i]);
  }
}

static void test_tensors_small(void **state) {
  (void)state;
  utvm_host_t *host = open_server(SERVER_SPEC, NULL, true);
  run_add(host, 3);
  utvm_host_close(host);
}

/* 100k floats: chunked by the utvm transfer size, and by TVM's 2037-byte packets. */
static void test_tensors_chunked(void **state) {
  (void)state;
  utvm_host_t *host = open_server(SERVER_SPEC, NULL, true);
  uint64_t max_packet = 0u;
  assert_int_equal(utvm_host_max_packet(host, &max_packet), UTVM_HOST_OK);
  assert_true(max_packet > 2037u);
  run_add(host, 100000);
  utvm_host_close(host);

  host = open_server(SERVER_SPEC, NULL, false);
  assert_int_equal(utvm_host_max_packet(host, &max_packet), UTVM_HOST_OK);
  assert_int_equal(max_packet, 2037);
  run_add(host, 3000);
  utvm_host_stats_t s;
  utvm_host_get_stats(host, &s);
  assert_true(s.requests > 12u); /* 12000-byte copies took several chunks each */
  utvm_host_close(host);
}

static void test_syscall_errors(void **state) {
  (void)state;
  utvm_host_t *host = open_server(SERVER_SPEC, NULL, true);
  utvm_host_value_t value;
  utvm_host_err_t rc = utvm_host_dev_get_attr(host, cpu, 1, &value);
  assert_true((rc == UTVM_HOST_OK) || (rc == UTVM_HOST_ERR_DEVICE_EXCEPTION));
  /* Freeing memory that was never allocated is refused with a message. */
  assert_int_equal(utvm_host_dev_free_data(host, cpu, 0x1234u),
                   UTVM_HOST_ERR_DEVICE_EXCEPTION);
  assert_true(strlen(utvm_host_last_error(host)) > 0u);
  /* A huge allocation fails cleanly. */
  utvm_host_dtype_t u8 = {1u, 8u, 1u};
  uint64_t data = 0u;
  assert_int_equal(utvm_host_dev_alloc_data(host, cpu, 1LL << 40, 64, u8, &data),
                   UTVM_HOST_ERR_DEVICE_EXCEPTION);
  /* Function handles can be freed. */
  uint64_t echo = syslib_function(host, "test_echo");
  assert_int_equal(utvm_host_free_handle(host, echo, UTVM_TC_FUNCTION), UTVM_HOST_OK);
  utvm_host_close(host);
}

static void test_exception_text(void **state) {
  (void)state;
  utvm_host_t *host = open_server(SERVER_SPEC, NULL, true);
  uint64_t add = syslib_function(host, "test_add_f32");
  utvm_host_value_t arg;
  arg.type_code = UTVM_TC_INT;
  arg.v.i = 1;
  assert_int_equal(utvm_host_call(host, add, &arg, 1u, NULL), UTVM_HOST_ERR_DEVICE_EXCEPTION);
  assert_non_null(strstr(utvm_host_last_error(host), "test_add_f32"));
  utvm_host_stats_t s;
  utvm_host_get_stats(host, &s);
  assert_int_equal(s.exceptions, 1);
  /* Still usable. */
  uint64_t echo = syslib_function(host, "test_echo");
  assert_int_equal(utvm_host_call(host, echo, &arg, 1u, NULL), UTVM_HOST_OK);
  utvm_host_close(host);
}

static void test_time_evaluator(void **state) {
  (void)state;
  utvm_host_t *host = open_server(SERVER_SPEC, NULL, true);
  uint64_t module = 0u;
  assert_int_equal(utvm_host_system_lib(host, &module), UTVM_HOST_OK);
  utvm_host_time_params_t params;
  utvm_host_time_params_default(&params);
  params.number = 10;
  params.repeat = 3;
  utvm_host_value_t arg;
  arg.type_code = UTVM_TC_INT;
  arg.v.i = 5;
  double *seconds = NULL;
  size_t count = 0u;
  assert_int_equal(utvm_host_time(host, module, "test_echo", &params, &arg, 1u, &seconds, &count),
                   UTVM_HOST_OK);
  assert_int_equal(count, 3);
  for (size_t i = 0u; i < count; i++) {
    assert_true((seconds[i] >= 0.0) && (seconds[i] < 1.0));
  }
  free(seconds);
  /* A missing function: the device refuses, nothing leaks. */
  assert_int_not_equal(utvm_host_time(host, module, "nope", &params, &arg, 1u, &seconds, &count),
                       UTVM_HOST_OK);
  assert_null(seconds);
  utvm_host_close(host);
}

/* A peer that never answers: the handshake fails within the start timeout. */
static void test_handshake_timeout(void **state) {
  (void)state;
  utvm_host_options_t opts;
  utvm_host_options_default(&opts);
  opts.retry_ms = 200;
  opts.start_timeout_ms = 700;
  utvm_host_t *host = NULL;
  char err[256];
  double t0 = now_s();
  assert_int_equal(utvm_host_open("exec:cat > /dev/null", &opts, &host, err, sizeof(err)),
                   UTVM_HOST_ERR_HANDSHAKE);
  double elapsed = now_s() - t0;
  assert_null(host);
  assert_true(elapsed < 2.0);
  assert_non_null(strstr(err, "handshake"));
  /* A command that exits at once fails fast. */
  t0 = now_s();
  assert_int_equal(utvm_host_open("exec:exit 3", &opts, &host, err, sizeof(err)),
                   UTVM_HOST_ERR_CONNECT);
  assert_true((now_s() - t0) < 2.0);
}

/* Without recovery, a call that outlasts the call timeout fails in bounded time and the link is
 * then unusable. */
static void test_call_timeout(void **state) {
  (void)state;
  utvm_host_options_t opts;
  utvm_host_options_default(&opts);
  opts.call_timeout_ms = 300;
  opts.recover = false;
  utvm_host_t *host = NULL;
  char err[256];
  assert_int_equal(utvm_host_open(SERVER_SPEC, &opts, &host, err, sizeof(err)), UTVM_HOST_OK);
  uint64_t wait = syslib_function(host, "test_busy_wait_us");
  utvm_host_value_t arg;
  arg.type_code = UTVM_TC_INT;
  arg.v.i = 3000000;
  double t0 = now_s();
  assert_int_equal(utvm_host_call(host, wait, &arg, 1u, NULL), UTVM_HOST_ERR_TIMEOUT);
  assert_true((now_s() - t0) < 1.5);
  assert_int_equal(utvm_host_call(host, wait, &arg, 1u, NULL), UTVM_HOST_ERR_BROKEN);
  t0 = now_s();
  utvm_host_close(host);
  assert_true((now_s() - t0) < 2.0);
}

/* In a sequenced session a call that outlasts the call timeout is repeated under its number:
 * after max_retries repeats it fails with UTVM_HOST_ERR_LINK (it ran at most once) and the link
 * stays usable. Calls made while the device is still busy queue up behind it; each runs exactly
 * once (utvm.posix.Count counts the runs), their repeats are answered from the reply cache and
 * the late replies are told apart from the current one's. */
static void test_call_timeout_sequenced(void **state) {
  (void)state;
  utvm_host_options_t opts;
  utvm_host_options_default(&opts);
  opts.call_timeout_ms = 300;
  opts.max_retries = 2;
  utvm_host_t *host = NULL;
  char err[256];
  assert_int_equal(utvm_host_open(SERVER_SPEC, &opts, &host, err, sizeof(err)), UTVM_HOST_OK);
  utvm_host_stats_t stats;
  utvm_host_get_stats(host, &stats);
  assert_true(stats.sequenced);
  uint64_t count = 0u;
  assert_int_equal(utvm_host_get_global(host, "utvm.posix.Count", &count), UTVM_HOST_OK);
  assert_true(count != 0u);
  uint64_t wait = syslib_function(host, "test_busy_wait_us");
  utvm_host_value_t arg;
  arg.type_code = UTVM_TC_INT;
  arg.v.i = 2000000;
  double t0 = now_s();
  assert_int_equal(utvm_host_call(host, wait, &arg, 1u, NULL), UTVM_HOST_ERR_LINK);
  assert_true((now_s() - t0) < 1.6);
  assert_non_null(strstr(utvm_host_last_error(host), "CallFunc: no intact reply in 3 attempts"));
  arg.v.i = 1;
  utvm_host_value_t ret;
  utvm_host_err_t rc = UTVM_HOST_ERR_LINK;
  int64_t calls = 0;
  while ((rc == UTVM_HOST_ERR_LINK) && (calls < 20)) {
    rc = utvm_host_call(host, count, &arg, 1u, &ret);
    calls++;
  }
  assert_int_equal(rc, UTVM_HOST_OK);
  assert_true(calls >= 2);
  assert_int_equal(ret.v.i, calls);
  arg.v.i = 0;
  assert_int_equal(utvm_host_call_idempotent(host, count, &arg, 1u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.v.i, calls);
  utvm_host_get_stats(host, &stats);
  assert_true(stats.stale_replies >= 2u);
  assert_true(stats.retries >= 4u);
  utvm_host_close(host);
}

/* A device without the sequence extension (--reply-cache 0: no utvm.rpc.server.Sequence): the
 * host falls back to plain requests and recovers lost replies with Sync. */
static void test_sync_fallback(void **state) {
  (void)state;
  utvm_host_options_t opts;
  utvm_host_options_default(&opts);
  opts.call_timeout_ms = 300;
  utvm_host_t *host = NULL;
  char err[256];
  assert_int_equal(utvm_host_open("fault:seed=3,rx.drop=2e-3/exec:" UTVM_POSIX_SERVER
                                  " --reply-cache 0",
                                  &opts, &host, err, sizeof(err)),
                   UTVM_HOST_OK);
  utvm_host_stats_t stats;
  utvm_host_get_stats(host, &stats);
  assert_false(stats.sequenced);
  assert_true(stats.can_recover);
  uint64_t echo = syslib_function(host, "test_echo");
  utvm_host_value_t arg;
  arg.type_code = UTVM_TC_INT;
  utvm_host_value_t ret;
  for (int64_t i = 0; i < 60; i++) {
    arg.v.i = i;
    assert_int_equal(utvm_host_call_idempotent(host, echo, &arg, 1u, &ret), UTVM_HOST_OK);
    assert_int_equal(ret.v.i, i);
  }
  utvm_host_get_stats(host, &stats);
  assert_false(stats.sequenced);
  assert_true(stats.resyncs >= 1u);
  utvm_host_close(host);
}

/* test_abort reboots the device: a distinct error carrying the abort log, then recovery. */
static void test_device_reset(void **state) {
  (void)state;
  log_capture_t logs;
  memset(&logs, 0, sizeof(logs));
  utvm_host_t *host = open_server(SERVER_SPEC, &logs, true);
  uint64_t abort_fn = syslib_function(host, "test_abort");
  assert_int_equal(utvm_host_call(host, abort_fn, NULL, 0u, NULL), UTVM_HOST_ERR_DEVICE_RESET);
  assert_non_null(strstr(utvm_host_last_error(host), "abort"));
  assert_true(logs.count >= 1);
  assert_non_null(strstr(logs.last, "abort"));
  /* Same transport, new session. */
  assert_int_equal(utvm_host_reconnect(host), UTVM_HOST_OK);
  uint64_t echo = syslib_function(host, "test_echo");
  utvm_host_value_t arg;
  arg.type_code = UTVM_TC_INT;
  arg.v.i = 11;
  utvm_host_value_t ret;
  assert_int_equal(utvm_host_call(host, echo, &arg, 1u, &ret), UTVM_HOST_OK);
  assert_int_equal(ret.v.i, 11);
  utvm_host_close(host);
  /* And a fresh connection works too. */
  host = open_server(SERVER_SPEC, NULL, true);
  echo = syslib_function(host, "test_echo");
  assert_int_equal(utvm_host_call(host, echo, &arg, 1u, &ret), UTVM_HOST_OK);
  utvm_host_close(host);
}

static void test_transport_specs(void **state) {
  (void)state;
  utvm_host_transport_t t;
  char err[256];
  assert_int_equal(utvm_host_transport_open("bogus:x", &t, err, sizeof(err)),
                   UTVM_HOST_ERR_ARGUMENT);
  assert_non_null(strstr(err, "unknown transport"));
  assert_int_equal(utvm_host_transport_open("exec:", &t, err, sizeof(err)),
                   UTVM_HOST_ERR_ARGUMENT);
  assert_int_equal(utvm_host_transport_open("tcp:nohostport", &t, err, sizeof(err)),
                   UTVM_HOST_ERR_ARGUMENT);
  assert_int_equal(utvm_host_transport_open("tcp:127.0.0.1:1", &t, err, sizeof(err)),
                   UTVM_HOST_ERR_CONNECT);
  assert_int_equal(utvm_host_transport_open("serial:/nonexistent/tty@115200", &t, err,
                                            sizeof(err)),
                   UTVM_HOST_ERR_CONNECT);
  assert_int_equal(utvm_host_transport_open("serial:/dev/null@12345", &t, err, sizeof(err)),
                   UTVM_HOST_ERR_ARGUMENT);
  assert_int_equal(utvm_host_transport_open("serial:/dev/null", &t, err, sizeof(err)),
                   UTVM_HOST_ERR_CONNECT); /* not a terminal */
  assert_int_equal(utvm_host_transport_open("qemu:cortex-m3:/nonexistent.elf", &t, err,
                                            sizeof(err)),
                   UTVM_HOST_ERR_CONNECT);
  assert_non_null(strstr(err, "nonexistent.elf"));
  /* exec: echoes bytes back through a child. */
  assert_int_equal(utvm_host_transport_open("exec:cat", &t, err, sizeof(err)), UTVM_HOST_OK);
  assert_int_equal(t.write(t.ctx, (const uint8_t *)"abc", 3u, 1000), 0);
  uint8_t buf[8];
  long got = 0;
  for (int i = 0; (i < 20) && (got < 3); i++) {
    long n = t.read(t.ctx, &buf[got], sizeof(buf) - (size_t)got, 100);
    assert_true(n >= 0);
    got += n;
  }
  assert_int_equal(got, 3);
  assert_memory_equal(buf, "abc", 3);
  assert_int_equal(t.read(t.ctx, buf, sizeof(buf), 50), 0); /* nothing more: timeout */
  t.close(t.ctx);
}

/* Writes a .npy file with numpy and returns its path in path. */
static void numpy_save(const char *expr, const char *name, char *path, size_t size) {
  const char *tmp = getenv("TMPDIR");
  (void)snprintf(path, size, "%s/utvm_host_test_%d_%s.npy", (tmp != NULL) ? tmp : "/tmp",
                 (int)getpid(), name);
  char cmd[1024];
  (void)snprintf(cmd, sizeof(cmd),
                 "/usr/bin/python3 -c \"import numpy as np; np.save('%s', %s)\"", path, expr);
  assert_int_equal(system(cmd), 0);
}

static void test_npy(void **state) {
  (void)state;
  char path[512];
  char err[256];
  utvm_host_npy_t npy;

  numpy_save("np.arange(6, dtype=np.float32).reshape(2, 3)", "f4", path, sizeof(path));
  assert_int_equal(utvm_host_npy_read(path, &npy, err, sizeof(err)), UTVM_HOST_OK);
  assert_int_equal(npy.ndim, 2);
  assert_int_equal(npy.shape[0], 2);
  assert_int_equal(npy.shape[1], 3);
  assert_int_equal(npy.dtype.code, 2);
  assert_int_equal(npy.dtype.bits, 32);
  assert_int_equal(npy.nbytes, 24);
  assert_true(((float *)npy.data)[5] == 5.0f);
  utvm_host_npy_free(&npy);
  (void)remove(path);

  const struct {
    const char *expr;
    uint8_t code;
    uint8_t bits;
  } cases[] = {{"np.array([-1, 2], dtype=np.int8)", 0u, 8u},
               {"np.array([1, 255], dtype=np.uint8)", 1u, 8u},
               {"np.array([-300, 2], dtype=np.int16)", 0u, 16u},
               {"np.array([-70000, 2], dtype=np.int32)", 0u, 32u},
               {"np.array([-(1 << 40), 2], dtype=np.int64)", 0u, 64u},
               {"np.array([0.25, 2], dtype=np.float64)", 2u, 64u}};
  for (size_t i = 0u; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char name[16];
    (void)snprintf(name, sizeof(name), "c%zu", i);
    numpy_save(cases[i].expr, name, path, sizeof(path));
    assert_int_equal(utvm_host_npy_read(path, &npy, err, sizeof(err)), UTVM_HOST_OK);
    assert_int_equal(npy.dtype.code, cases[i].code);
    assert_int_equal(npy.dtype.bits, cases[i].bits);
    assert_int_equal(npy.ndim, 1);
    assert_int_equal(npy.shape[0], 2);
    assert_int_equal(npy.nbytes, 2u * cases[i].bits / 8u);
    utvm_host_npy_free(&npy);
    (void)remove(path);
  }
  /* Scalars (0-d). */
  numpy_save("np.float32(7)", "scalar", path, sizeof(path));
  assert_int_equal(utvm_host_npy_read(path, &npy, err, sizeof(err)), UTVM_HOST_OK);
  assert_int_equal(npy.ndim, 0);
  assert_true(*(float *)npy.data == 7.0f);
  utvm_host_npy_free(&npy);
  (void)remove(path);
  /* Version 2 header. */
  const char *tmp = getenv("TMPDIR");
  (void)snprintf(path, sizeof(path), "%s/utvm_host_test_%d_v2.npy", (tmp != NULL) ? tmp : "/tmp",
                 (int)getpid());
  char cmd[1024];
  (void)snprintf(cmd, sizeof(cmd),
                 "/usr/bin/python3 -c \"import numpy as np; from numpy.lib import format as f; "
                 "fh = open('%s', 'wb'); a = np.array([3, 4], dtype=np.int32); "
                 "f.write_array(fh, a, version=(2, 0)); fh.close()\"", path);
  assert_int_equal(system(cmd), 0);
  assert_int_equal(utvm_host_npy_read(path, &npy, err, sizeof(err)), UTVM_HOST_OK);
  assert_int_equal(((int32_t *)npy.data)[1], 4);
  utvm_host_npy_free(&npy);
  (void)remove(path);
  /* Rejected: Fortran order, big endian, complex, missing file. */
  numpy_save("np.asfortranarray(np.zeros((2, 2), dtype=np.float32))", "fortran", path,
             sizeof(path));
  assert_int_equal(utvm_host_npy_read(path, &npy, err, sizeof(err)), UTVM_HOST_ERR_ARGUMENT);
  assert_non_null(strstr(err, "C-order"));
  (void)remove(path);
  numpy_save("np.array([1, 2], dtype='>i4')", "big", path, sizeof(path));
  assert_int_equal(utvm_host_npy_read(path, &npy, err, sizeof(err)), UTVM_HOST_ERR_ARGUMENT);
  assert_non_null(strstr(err, "big-endian"));
  (void)remove(path);
  numpy_save("np.array([1j])", "complex", path, sizeof(path));
  assert_int_equal(utvm_host_npy_read(path, &npy, err, sizeof(err)), UTVM_HOST_ERR_ARGUMENT);
  (void)remove(path);
  assert_int_equal(utvm_host_npy_read("/nonexistent.npy", &npy, err, sizeof(err)),
                   UTVM_HOST_ERR_ARGUMENT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_open_and_stats),
      cmocka_unit_test(test_get_global),
      cmocka_unit_test(test_echo_scalars),
      cmocka_unit_test(test_other_argument_types),
      cmocka_unit_test(test_tensors_small),
      cmocka_unit_test(test_tensors_chunked),
      cmocka_unit_test(test_syscall_errors),
      cmocka_unit_test(test_exception_text),
      cmocka_unit_test(test_time_evaluator),
      cmocka_unit_test(test_handshake_timeout),
      cmocka_unit_test(test_call_timeout),
      cmocka_unit_test(test_call_timeout_sequenced),
      cmocka_unit_test(test_sync_fallback),
      cmocka_unit_test(test_device_reset),
      cmocka_unit_test(test_transport_specs),
      cmocka_unit_test(test_npy),
      cmocka_unit_test(test_arena_16mib_filled_by_tensors),
      cmocka_unit_test(test_random_fill),
      cmocka_unit_test(test_many_arguments_and_dimensions),
      cmocka_unit_test(test_time_number_zero_and_cooldown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

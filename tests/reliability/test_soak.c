/* Soak over a bad link (issue 6, item 4; issue 27): thousands of RPC operations -- test_echo
 * calls with verified results, utvm.posix.Count(1) calls that count their runs on the device,
 * CopyToRemote + CopyFromRemote with verified contents, function lookups -- through the fault
 * transport (bit errors, dropped, inserted and duplicated bytes, split deliveries). The figures
 * are printed; wrong results, hangs and errors surfaced to the caller must be 0, and every
 * counted call must have run exactly once (device count == calls made).
 *
 *   test_soak                 10,000 operations against the POSIX server
 *   test_soak qemu ELF        300 operations against QEMU mps2-an385 running ELF */
#define _DEFAULT_SOURCE

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "utvm/host.h"
#include "utvm/rpc_server.h"

#ifndef UTVM_POSIX_SERVER
#error "UTVM_POSIX_SERVER must name the server binary"
#endif

/* Link faults of the soak: bit-error rate 1e-4 plus random drops (and a few inserted and
 * duplicated bytes), both directions, random write/read splitting. */
#define SOAK_FAULTS "ber=1e-4,drop=1e-4,insert=1e-5,dup=1e-5,split=1"
#define TENSOR_BYTES 256u
/* Most consecutive failed attempts to set a session up before the run fails. */
#define MAX_SETUP_ATTEMPTS 20

typedef struct {
  const char *name;
  char spec[1200];
  uint32_t operations;
  int32_t call_timeout_ms;
  double hang_ms; /* an operation longer than this counts as a hang */
  utvm_host_t *host;
} soak_config_t;

typedef struct {
  uint32_t operations;
  uint32_t ok;
  uint32_t errors;
  uint32_t wrong;
  uint32_t hangs;
  uint32_t reconnects;
  uint32_t count_calls; /* Count(1) calls made (each must run exactly once) */
  uint32_t by_error[UTVM_HOST_ERR_LINK + 1];
} soak_figures_t;

typedef struct {
  utvm_host_t *host;
  uint64_t echo;
  uint64_t syslib;
  uint64_t sync_global;
  uint64_t count;        /* utvm.posix.Count, 0 on a device without it */
  int64_t count_seen;    /* the device's count after the last answered Count(1) */
  utvm_host_tensor_t tensor;
  uint64_t rng;
} soak_session_t;

static soak_config_t config;
static const utvm_host_device_t cpu = {1, 0};

static uint64_t next_random(soak_session_t *s) {
  s->rng ^= s->rng << 13;
  s->rng ^= s->rng >> 7;
  s->rng ^= s->rng << 17;
  return s->rng;
}

static double now_ms(void) {
  struct timespec ts;
  (void)clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void quiet_log(void *ctx, const char *text, size_t len) {
  (void)ctx;
  (void)text;
  (void)len;
}

/* Records the outcome of one operation; true if the session is still usable. */
static bool record(soak_figures_t *fig, utvm_host_err_t rc, bool right, double took_ms) {
  fig->operations++;
  if (took_ms > config.hang_ms) {
    fig->hangs++;
  }
  if (rc == UTVM_HOST_OK) {
    if (right) {
      fig->ok++;
    } else {
      fig->wrong++;
    }
    return true;
  }
  fig->errors++;
  fig->by_error[rc]++;
  if (rc != UTVM_HOST_ERR_LINK) {
    (void)fprintf(stderr, "soak %s: operation %u: %s: %s\n", config.name, fig->operations,
                  utvm_host_strerror(rc), utvm_host_last_error(config.host));
  }
  /* LINK: resynchronised; an exception: the device answered. Anything else: reconnect. */
  return (rc == UTVM_HOST_ERR_LINK) || (rc == UTVM_HOST_ERR_DEVICE_EXCEPTION);
}

/* Session state for the operations: the functions and a tensor. */
static utvm_host_err_t session_setup(soak_session_t *s) {
  bool in_syslib = false;
  utvm_host_err_t rc = utvm_host_find_function(s->host, "test_echo", &s->echo, &in_syslib);
  if (rc == UTVM_HOST_OK) {
    rc = utvm_host_system_lib(s->host, &s->syslib);
  }
  if (rc == UTVM_HOST_OK) {
    rc = utvm_host_get_global(s->host, UTVM_RPC_SYNC_NAME, &s->sync_global);
  }
  if (rc == UTVM_HOST_OK) {
    rc = utvm_host_get_global(s->host, "utvm.posix.Count", &s->count);
  }
  if (rc == UTVM_HOST_OK) {
    utvm_host_dtype_t u8 = {1u, 8u, 1u};
    (void)memset(&s->tensor, 0, sizeof(s->tensor));
    s->tensor.device = cpu;
    s->tensor.ndim = 1;
    s->tensor.dtype = u8;
    s->tensor.shape[0] = TENSOR_BYTES;
    rc = utvm_host_dev_alloc_data(s->host, cpu, TENSOR_BYTES, 8, u8, &s->tensor.data);
  }
  return rc;
}

/* Reconnects until a session is set up (bounded). */
static void reestablish(soak_session_t *s, soak_figures_t *fig) {
  for (int attempt = 0; attempt < MAX_SETUP_ATTEMPTS; attempt++) {
    fig->reconnects++;
    if ((utvm_host_reconnect(s->host) == UTVM_HOST_OK) && (session_setup(s) == UTVM_HOST_OK)) {
      return;
    }
  }
  fail_msg("%s: no working session after %d attempts: %s", config.name, MAX_SETUP_ATTEMPTS,
           utvm_host_last_error(s->host));
}

static bool op_echo(soak_session_t *s, soak_figures_t *fig, bool idempotent) {
  utvm_host_value_t arg;
  arg.type_code = UTVM_TC_INT;
  arg.v.i = (int64_t)(next_random(s) >> 1);
  utvm_host_value_t ret;
  double start = now_ms();
  utvm_host_err_t rc = idempotent ? utvm_host_call_idempotent(s->host, s->echo, &arg, 1u, &ret)
                                  : utvm_host_call(s->host, s->echo, &arg, 1u, &ret);
  bool right = (rc == UTVM_HOST_OK) && (ret.type_code == UTVM_TC_INT) && (ret.v.i == arg.v.i);
  return record(fig, rc, right, now_ms() - start);
}

/* Count(1): a call with a side effect. Exactly once means each answer is one more than the last
 * (no call ran twice, none was lost) as long as no call failed in between. */
static bool op_count(soak_session_t *s, soak_figures_t *fig) {
  utvm_host_value_t arg;
  arg.type_code = UTVM_TC_INT;
  arg.v.i = 1;
  utvm_host_value_t ret;
  double start = now_ms();
  fig->count_calls++;
  utvm_host_err_t rc = utvm_host_call(s->host, s->count, &arg, 1u, &ret);
  bool right = (rc == UTVM_HOST_OK) && (ret.type_code == UTVM_TC_INT) &&
               (ret.v.i == s->count_seen + 1);
  if (rc == UTVM_HOST_OK) {
    s->count_seen = ret.v.i;
  }
  return record(fig, rc, right, now_ms() - start);
}

static bool op_copy(soak_session_t *s, soak_figures_t *fig) {
  uint8_t data[TENSOR_BYTES];
  uint8_t back[TENSOR_BYTES];
  size_t n = 16u + (size_t)(next_random(s) % (TENSOR_BYTES - 15u));
  for (size_t i = 0u; i < n; i++) {
    data[i] = (uint8_t)next_random(s);
  }
  double start = now_ms();
  utvm_host_err_t rc = utvm_host_copy_to_device(s->host, &s->tensor, data, n);
  if (!record(fig, rc, true, now_ms() - start)) {
    return false;
  }
  if (rc != UTVM_HOST_OK) {
    return true; /* contents unknown: nothing to verify */
  }
  (void)memset(back, 0, sizeof(back));
  start = now_ms();
  rc = utvm_host_copy_from_device(s->host, &s->tensor, back, n);
  return record(fig, rc, memcmp(back, data, n) == 0, now_ms() - start);
}

static bool op_lookup(soak_session_t *s, soak_figures_t *fig, bool global) {
  uint64_t handle = 0u;
  double start = now_ms();
  utvm_host_err_t rc =
      global ? utvm_host_get_global(s->host, UTVM_RPC_SYNC_NAME, &handle)
             : utvm_host_module_get_function(s->host, s->syslib, "test_echo", &handle);
  bool right = handle == (global ? s->sync_global : s->echo);
  return record(fig, rc, right, now_ms() - start);
}

static void run_soak(void **state) {
  (void)state;
  soak_figures_t fig;
  (void)memset(&fig, 0, sizeof(fig));
  soak_session_t s;
  (void)memset(&s, 0, sizeof(s));
  s.rng = 0x5EED5EED12345678ULL;
  utvm_host_options_t opts;
  utvm_host_options_default(&opts);
  opts.call_timeout_ms = config.call_timeout_ms;
  opts.retry_ms = 2 * config.call_timeout_ms;
  opts.start_timeout_ms = 20 * config.call_timeout_ms;
  opts.log = quiet_log;
  char err[512];
  double start = now_ms();
  utvm_host_err_t rc = UTVM_HOST_ERR_CONNECT;
  rc = utvm_host_open(config.spec, &opts, &s.host, err, sizeof(err));
  if (rc != UTVM_HOST_OK) {
    fail_msg("%s: open %s: %s", config.name, config.spec, err);
  }
  config.host = s.host;
  if (session_setup(&s) != UTVM_HOST_OK) {
    reestablish(&s, &fig);
  }
  while (fig.operations < config.operations) {
    uint64_t pick = next_random(&s) % 100u;
    bool usable = true;
    if ((pick < 20u) && (s.count != 0u)) {
      usable = op_count(&s, &fig);
    } else if (pick < 40u) {
      usable = op_echo(&s, &fig, false);
    } else if (pick < 50u) {
      usable = op_echo(&s, &fig, true);
    } else if (pick < 80u) {
      usable = op_copy(&s, &fig);
    } else {
      usable = op_lookup(&s, &fig, pick < 90u);
    }
    if (!usable) {
      reestablish(&s, &fig);
    }
  }
  double seconds = (now_ms() - start) / 1000.0;
  int64_t device_count = 0;
  if (s.count != 0u) {
    utvm_host_value_t arg;
    utvm_host_value_t ret;
    arg.type_code = UTVM_TC_INT;
    arg.v.i = 0;
    assert_int_equal(utvm_host_call_idempotent(s.host, s.count, &arg, 1u, &ret), UTVM_HOST_OK);
    device_count = ret.v.i;
  }
  utvm_host_stats_t hs;
  utvm_host_get_stats(s.host, &hs);
  utvm_host_fault_stats_t fs;
  assert_true(utvm_host_fault_get_stats(utvm_host_get_transport(s.host), &fs));
  (void)printf("soak %s: operations %u, injected faults %llu (flips %llu, drops %llu, inserts "
               "%llu, dups %llu; %llu bytes), errors surfaced %u (link %u, exception %u, other "
               "%u), retries %u, resyncs %u, lost replies %u, not-executed %u, reconnects %u, "
               "wrong results %u, hangs %u, %.1f s; counted calls %u, runs on the device %lld "
               "(executions per call %.4f); damaged replies %u, stale replies %u, chunk "
               "shrinks %u%s\n",
               config.name, fig.operations, (unsigned long long)utvm_host_fault_total(&fs),
               (unsigned long long)(fs.to_device.bit_flips + fs.from_device.bit_flips),
               (unsigned long long)(fs.to_device.drops + fs.from_device.drops),
               (unsigned long long)(fs.to_device.inserts + fs.from_device.inserts),
               (unsigned long long)(fs.to_device.duplicates + fs.from_device.duplicates),
               (unsigned long long)(fs.to_device.bytes + fs.from_device.bytes), fig.errors,
               fig.by_error[UTVM_HOST_ERR_LINK], fig.by_error[UTVM_HOST_ERR_DEVICE_EXCEPTION],
               fig.errors - fig.by_error[UTVM_HOST_ERR_LINK] -
                   fig.by_error[UTVM_HOST_ERR_DEVICE_EXCEPTION],
               hs.retries, hs.resyncs, hs.lost_replies, hs.not_executed, fig.reconnects,
               fig.wrong, fig.hangs, seconds, fig.count_calls, (long long)device_count,
               (fig.count_calls > 0u) ? (double)device_count / (double)fig.count_calls : 0.0,
               hs.damaged_replies, hs.stale_replies, hs.chunk_shrinks,
               hs.sequenced ? "" : " (device without the sequence extension)");
  assert_int_equal(fig.wrong, 0);
  assert_int_equal(fig.hangs, 0);
  assert_true(utvm_host_fault_total(&fs) > 0u);
  assert_true(hs.retries > 0u);
  assert_int_equal(device_count, (int64_t)fig.count_calls);
  if (hs.sequenced) {
    assert_int_equal(fig.errors, 0);
  }
  /* Recovery works: most operations succeed despite the faults. */
  assert_true(fig.ok >= (fig.operations * 9u) / 10u);
  utvm_host_close(s.host);
}

int main(int argc, char **argv) {
  (void)memset(&config, 0, sizeof(config));
  if ((argc == 3) && (strcmp(argv[1], "qemu") == 0)) {
    config.name = "qemu mps2-an385";
    (void)snprintf(config.spec, sizeof(config.spec), "fault:seed=11," SOAK_FAULTS
                   "/qemu:mps2-an385:%s", argv[2]);
    config.operations = 300u;
    config.call_timeout_ms = 400;
    config.hang_ms = 60000.0;
  } else if (argc == 1) {
    config.name = "posix";
    (void)snprintf(config.spec, sizeof(config.spec),
                   "fault:seed=7," SOAK_FAULTS "/exec:" UTVM_POSIX_SERVER);
    config.operations = 10000u;
    config.call_timeout_ms = 100;
    config.hang_ms = 20000.0;
  } else {
    (void)fprintf(stderr, "usage: %s [qemu ELF]\n", argv[0]);
    return 2;
  }
  const struct CMUnitTest tests[] = {cmocka_unit_test(run_soak)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

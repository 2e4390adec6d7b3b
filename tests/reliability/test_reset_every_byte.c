/* Device reset at every byte of an exchange (issue 6, item 3): for a 4 KB CopyToRemote and
 * for a CallFunc of test_echo, the fault transport power-cycles the POSIX server at each byte
 * offset of the exchange (with arguments "qemu ELF": against QEMU mps2-an385, every offset of
 * the call and evenly spaced offsets of the copy). Each time the host must report DEVICE_RESET -- or, when the reset
 * falls after the reply, the correct result -- never a wrong result or a hang; then a new
 * session completes the operation correctly. */
#define _DEFAULT_SOURCE

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "utvm/host.h"

#ifndef UTVM_POSIX_SERVER
#error "UTVM_POSIX_SERVER must name the server binary"
#endif

#define COPY_BYTES 4096u
/* Offsets tried per operation at most (every byte of both exchanges fits); longer exchanges
 * would be sampled evenly, always including the first and last EDGE_OFFSETS bytes. */
#define MAX_OFFSETS 6000u
#define EDGE_OFFSETS 160u
/* Under QEMU each reset boots the firmware again: fewer offsets. */
#define QEMU_MAX_OFFSETS 250u
/* Reply wait bound: a reset shows up at once (boot Terminate), so this is only hit by a hang. */
#define CALL_TIMEOUT_MS 3000
/* Longest time one reset-and-recover iteration may take before it counts as a hang. */
#define ITERATION_LIMIT_MS 8000.0

static const utvm_host_device_t cpu = {1, 0};
static char device_spec[1200] = "fault:seed=1/exec:" UTVM_POSIX_SERVER;
static uint32_t max_offsets = MAX_OFFSETS;

typedef struct {
  uint32_t offsets;
  uint32_t resets_reported;
  uint32_t completed_before_reset;
  double slowest_ms;
} reset_counts_t;

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

static utvm_host_t *open_device(void) {
  utvm_host_options_t opts;
  utvm_host_options_default(&opts);
  opts.call_timeout_ms = CALL_TIMEOUT_MS;
  opts.retry_ms = 200;
  opts.log = quiet_log;
  utvm_host_t *host = NULL;
  char err[256];
  utvm_host_err_t rc =
      utvm_host_open(device_spec, &opts, &host, err, sizeof(err));
  if (rc != UTVM_HOST_OK) {
    fail_msg("open: %s", err);
  }
  utvm_host_stats_t s;
  utvm_host_get_stats(host, &s);
  assert_true(s.can_recover);
  return host;
}

static utvm_host_fault_stats_t fault_stats(const utvm_host_t *host) {
  utvm_host_fault_stats_t f;
  assert_true(utvm_host_fault_get_stats(utvm_host_get_transport(host), &f));
  return f;
}

static void check(utvm_host_t *host, utvm_host_err_t rc, const char *what) {
  if (rc != UTVM_HOST_OK) {
    fail_msg("%s: %s (%s)", what, utvm_host_strerror(rc), utvm_host_last_error(host));
  }
}

/* ---- the two operations: setup (device state), run (measured), verify (after success) ---- */

typedef struct {
  utvm_host_tensor_t tensor;
  uint64_t echo;
  uint8_t data[COPY_BYTES];
  uint8_t back[COPY_BYTES];
  int64_t value;
  uint32_t round;
} op_state_t;

typedef struct {
  const char *name;
  void (*setup)(utvm_host_t *host, op_state_t *st);
  utvm_host_err_t (*run)(utvm_host_t *host, op_state_t *st);
  void (*verify)(utvm_host_t *host, op_state_t *st);
} operation_t;

static void copy_setup(utvm_host_t *host, op_state_t *st) {
  utvm_host_dtype_t u8 = {1u, 8u, 1u};
  (void)memset(&st->tensor, 0, sizeof(st->tensor));
  st->tensor.device = cpu;
  st->tensor.ndim = 1;
  st->tensor.dtype = u8;
  st->tensor.shape[0] = COPY_BYTES;
  check(host, utvm_host_dev_alloc_data(host, cpu, COPY_BYTES, 64, u8, &st->tensor.data),
        "DevAllocData");
  st->round++;
  for (size_t i = 0u; i < COPY_BYTES; i++) {
    /* Includes 0xFF and 0xFD bytes, so the payload has escapes. */
    st->data[i] = (uint8_t)((i * 7u) + (st->round * 13u));
  }
}

static utvm_host_err_t copy_run(utvm_host_t *host, op_state_t *st) {
  return utvm_host_copy_to_device(host, &st->tensor, st->data, COPY_BYTES);
}

static void copy_verify(utvm_host_t *host, op_state_t *st) {
  (void)memset(st->back, 0, sizeof(st->back));
  check(host, utvm_host_copy_from_device(host, &st->tensor, st->back, COPY_BYTES),
        "CopyFromRemote");
  assert_memory_equal(st->back, st->data, COPY_BYTES);
}

static void echo_setup(utvm_host_t *host, op_state_t *st) {
  bool in_syslib = false;
  check(host, utvm_host_find_function(host, "test_echo", &st->echo, &in_syslib), "test_echo");
  st->round++;
  st->value = (int64_t)0x1234567800ll + (int64_t)st->round;
}

static utvm_host_err_t echo_run(utvm_host_t *host, op_state_t *st) {
  utvm_host_value_t arg;
  arg.type_code = UTVM_TC_INT;
  arg.v.i = st->value;
  utvm_host_value_t ret;
  utvm_host_err_t rc = utvm_host_call(host, st->echo, &arg, 1u, &ret);
  if (rc == UTVM_HOST_OK) {
    /* A result is only ever the right one. */
    assert_int_equal(ret.type_code, UTVM_TC_INT);
    assert_int_equal(ret.v.i, st->value);
  }
  return rc;
}

static void echo_verify(utvm_host_t *host, op_state_t *st) {
  assert_int_equal(echo_run(host, st), UTVM_HOST_OK);
}

static const operation_t copy_op = {"CopyToRemote 4 KB", copy_setup, copy_run, copy_verify};
static const operation_t echo_op = {"CallFunc test_echo", echo_setup, echo_run, echo_verify};

/* Bytes of one exchange of op (both directions), measured without a reset, in the state of
 * the loop below (the session's cached lookups done by a first run). */
static uint64_t measure_exchange(utvm_host_t *host, const operation_t *op, op_state_t *st) {
  op->setup(host, st);
  check(host, op->run(host, st), op->name);
  uint64_t before = fault_stats(host).traffic;
  check(host, op->run(host, st), op->name);
  uint64_t length = fault_stats(host).traffic - before;
  op->verify(host, st);
  return length;
}

/* k-th offset of count spread over [0, length). */
static uint64_t offset_at(uint32_t k, uint32_t count, uint64_t length) {
  if (count >= length) {
    return k;
  }
  if (k < EDGE_OFFSETS) {
    return k;
  }
  if (k >= (count - EDGE_OFFSETS)) {
    return length - (uint64_t)(count - k);
  }
  uint64_t span = length - 2u * EDGE_OFFSETS;
  uint64_t inner = count - 2u * EDGE_OFFSETS;
  return EDGE_OFFSETS + ((uint64_t)(k - EDGE_OFFSETS) * span) / inner;
}

static void reset_every_byte(const operation_t *op, reset_counts_t *counts) {
  static op_state_t st;
  (void)memset(&st, 0, sizeof(st));
  utvm_host_t *host = open_device();
  uint64_t length = measure_exchange(host, op, &st);
  assert_true(length > 40u);
  uint32_t count = (length < max_offsets) ? (uint32_t)length : max_offsets;
  for (uint32_t k = 0u; k < count; k++) {
    double start = now_ms();
    op->setup(host, &st);
    utvm_host_fault_stats_t f = fault_stats(host);
    uint64_t offset = offset_at(k, count, length);
    assert_true(utvm_host_fault_set_reset_at(utvm_host_get_transport(host),
                                             (int64_t)(f.traffic + offset)));
    utvm_host_err_t rc = op->run(host, &st);
    bool fired = fault_stats(host).resets > f.resets;
    if (rc == UTVM_HOST_ERR_DEVICE_RESET) {
      assert_true(fired);
      counts->resets_reported++;
    } else if (rc == UTVM_HOST_OK) {
      /* The reset was to fall after the last byte of this exchange (escaping made it a byte
       * or two shorter than measured). */
      assert_false(fired);
      counts->completed_before_reset++;
    } else {
      fail_msg("%s, reset at byte %llu of %llu: %s (%s)", op->name, (unsigned long long)offset,
               (unsigned long long)length, utvm_host_strerror(rc), utvm_host_last_error(host));
    }
    assert_true(utvm_host_fault_set_reset_at(utvm_host_get_transport(host), -1));
    /* The device state is gone (or, without a reset, this session is): start over. */
    check(host, utvm_host_reconnect(host), "reconnect");
    op->setup(host, &st);
    check(host, op->run(host, &st), op->name);
    op->verify(host, &st);
    double took = now_ms() - start;
    counts->slowest_ms = (took > counts->slowest_ms) ? took : counts->slowest_ms;
    assert_true(took < ITERATION_LIMIT_MS);
    counts->offsets++;
  }
  (void)printf("reset-at-every-byte %s: exchange %llu bytes, %u offsets, %u resets reported, "
               "%u completed before the reset, 0 wrong results, 0 hangs, slowest %.1f ms\n",
               op->name, (unsigned long long)length, counts->offsets, counts->resets_reported,
               counts->completed_before_reset, counts->slowest_ms);
  assert_true(counts->resets_reported >= count - 3u);
  assert_int_equal(counts->resets_reported + counts->completed_before_reset, count);
  utvm_host_close(host);
}

static void test_reset_during_copy(void **state) {
  (void)state;
  reset_counts_t counts;
  (void)memset(&counts, 0, sizeof(counts));
  reset_every_byte(&copy_op, &counts);
  assert_true(counts.offsets >= ((max_offsets < 200u) ? max_offsets : 200u));
}

static void test_reset_during_call(void **state) {
  (void)state;
  reset_counts_t counts;
  (void)memset(&counts, 0, sizeof(counts));
  reset_every_byte(&echo_op, &counts);
  assert_true(counts.offsets >= 60u);
}

int main(int argc, char **argv) {
  if ((argc == 3) && (strcmp(argv[1], "qemu") == 0)) {
    (void)snprintf(device_spec, sizeof(device_spec), "fault:seed=1/qemu:mps2-an385:%s", argv[2]);
    max_offsets = QEMU_MAX_OFFSETS;
  } else if (argc != 1) {
    (void)fprintf(stderr, "usage: %s [qemu ELF]\n", argv[0]);
    return 2;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reset_during_call),
      cmocka_unit_test(test_reset_during_copy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Boots a board's firmware under QEMU through scripts/qemu-run.sh and talks to it over the
 * child's stdin/stdout pipes.
 *
 *   utvm_qemu_board_test serial  RUNNER BOARD ECHO_ELF
 *       all 256 byte values (in several orders and chunk sizes) come back unchanged from the
 *       raw-echo image: the serial chardev is transparent both ways. (A probe byte is echoed
 *       first, so that nothing is sent before the firmware's receiver is enabled.)
 *   utvm_qemu_board_test session RUNNER BOARD SERVER_ELF
 *       the boot Terminate arrives byte-exact; a session opens (utvm_session_t as
 *       initiator); GetGlobalFunc("runtime.SystemLib") returns a non-zero handle; calling
 *       test_abort makes the device report "abort code=0x00007e57" in a Log message followed by
 *       a Terminate; a new session then works.
 *   utvm_qemu_board_test watchdog RUNNER BOARD SERVER_WDT_ELF
 *       (an image with a 1000 ms watchdog) the device stays up while idle for 1.5 s and while
 *       an operator runs for 200 ms (test_busy_wait_us returns normally); an operator that
 *       hangs (test_busy_wait_us of 10 s) is reset by the watchdog: a Log message
 *       "device reset: watchdog", then a Terminate, and no reply; a new session then works.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "utvm/session.h"

#define BOOT_TIMEOUT_MS 10000
#define REPLY_TIMEOUT_MS 10000
#define RX_BODY_MAX 4096u
/* Host time allowed for the watchdog to fire: 1 s of guest time is 1e9 instructions under
 * -icount shift=0, about 7 s on an idle 2-core machine and over 20 s on a loaded one. */
#define WATCHDOG_TIMEOUT_MS 60000

static const char *runner;
static const char *board;
static const char *elf;

/* ---- Child process -------------------------------------------------------------------- */

typedef struct {
  pid_t pid;
  int to_child;   /* child's stdin */
  int from_child; /* child's stdout */
} child_t;

static void child_start(child_t *c) {
  int in_pipe[2];
  int out_pipe[2];
  assert_int_equal(pipe(in_pipe), 0);
  assert_int_equal(pipe(out_pipe), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    (void)dup2(in_pipe[0], STDIN_FILENO);
    (void)dup2(out_pipe[1], STDOUT_FILENO);
    (void)close(in_pipe[0]);
    (void)close(in_pipe[1]);
    (void)close(out_pipe[0]);
    (void)close(out_pipe[1]);
    execl(runner, runner, board, elf, (char *)NULL);
    _exit(127);
  }
  (void)close(in_pipe[0]);
  (void)close(out_pipe[1]);
  c->pid = pid;
  c->to_child = in_pipe[1];
  c->from_child = out_pipe[0];
}

/* Closes the child's stdin (which makes the runner stop QEMU) and reaps it. */
static void child_stop(child_t *c) {
  (void)close(c->to_child);
  (void)close(c->from_child);
  int status = 0;
  for (int i = 0; i < 100; i++) {
    if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
      assert_true(WIFEXITED(status));
      assert_int_equal(WEXITSTATUS(status), 0);
      return;
    }
    struct timespec delay = {0, 50 * 1000 * 1000};
    (void)nanosleep(&delay, NULL);
  }
  (void)kill(c->pid, SIGKILL);
  (void)waitpid(c->pid, &status, 0);
  fail_msg("%s did not stop within 5 s of its stdin closing", runner);
}

static void child_write(const child_t *c, const uint8_t *data, size_t n) {
  size_t done = 0u;
  while (done < n) {
    ssize_t w = write(c->to_child, &data[done], n - done);
    if ((w < 0) && (errno == EINTR)) {
      continue;
    }
    assert_true(w > 0);
    done += (size_t)w;
  }
}

static int64_t now_ms(void) {
  struct timespec ts;
  (void)clock_gettime(CLOCK_MONOTONIC, &ts);
  return ((int64_t)ts.tv_sec * 1000) + (ts.tv_nsec / 1000000);
}

/* Reads what is available within timeout_ms; returns the byte count (0 on timeout). */
static size_t child_read(const child_t *c, uint8_t *buf, size_t max, int timeout_ms) {
  struct pollfd p = {c->from_child, POLLIN, 0};
  int r = poll(&p, 1, timeout_ms);
  if (r <= 0) {
    return 0u;
  }
  ssize_t n = read(c->from_child, buf, max);
  assert_true(n > 0); /* EOF means QEMU died */
  return (size_t)n;
}

/* Reads exactly n bytes or fails after timeout_ms. */
static void child_read_exact(const child_t *c, uint8_t *buf, size_t n, int timeout_ms) {
  int64_t deadline = now_ms() + timeout_ms;
  size_t got = 0u;
  while (got < n) {
    int64_t left = deadline - now_ms();
    if (left <= 0) {
      fail_msg("timeout: %zu of %zu bytes received", got, n);
    }
    got += child_read(c, &buf[got], n - got, (int)left);
  }
}

/* ---- Serial transparency ------------------------------------------------------------- */

static void echo_and_check(const child_t *c, const uint8_t *data, size_t n, size_t chunk) {
  uint8_t *back = malloc(n);
  assert_non_null(back);
  for (size_t off = 0u; off < n; off += chunk) {
    size_t len = ((n - off) < chunk) ? (n - off) : chunk;
    child_write(c, &data[off], len);
  }
  child_read_exact(c, back, n, REPLY_TIMEOUT_MS);
  assert_memory_equal(back, data, n);
  free(back);
}

/* Starts the echo image and waits until it listens: QEMU's STM32 USART model drops bytes that
 * arrive before the guest enables the receiver. Probes with one byte every 100 ms, then
 * drains. */
static void serial_start(child_t *c) {
  child_start(c);
  uint8_t probe = 0x55u;
  uint8_t reply[64];
  size_t got = 0u;
  for (int i = 0; (i < 100) && (got == 0u); i++) {
    child_write(c, &probe, 1u);
    got = child_read(c, reply, sizeof(reply), 100);
  }
  assert_true(got > 0u);
  while (child_read(c, reply, sizeof(reply), 300) > 0u) {
  }
}

static void test_serial_all_byte_values(void **state) {
  (void)state;
  child_t c;
  serial_start(&c);
  uint8_t data[4 * 256];
  for (size_t i = 0u; i < 256u; i++) {
    data[i] = (uint8_t)i;                     /* ascending */
    data[256u + i] = (uint8_t)(255u - i);     /* descending */
    data[512u + i] = (uint8_t)(i * 167u + 13u); /* a permutation */
    data[768u + i] = (uint8_t)(((i & 1u) != 0u) ? 0xFFu : (i & 0x1Fu)); /* controls, 0xFF */
  }
  echo_and_check(&c, data, sizeof(data), 1u);
  echo_and_check(&c, data, sizeof(data), 7u);
  echo_and_check(&c, data, sizeof(data), sizeof(data));
  /* Nothing extra arrives (no translation added bytes). */
  uint8_t extra[16];
  assert_int_equal(child_read(&c, extra, sizeof(extra), 300), 0);
  child_stop(&c);
}

/* ---- Session driver ------------------------------------------------------------------- */

typedef struct {
  child_t child;
  utvm_session_t session;
  int established;
  int terminated;
  utvm_msg_type_t rx_type;
  uint8_t rx_body[RX_BODY_MAX];
  size_t rx_len;
  uint8_t log_body[UTVM_SESSION_LOG_MAX];
  size_t log_len;
  int have_normal;
  uint32_t normals_seen; /* intact Normal messages received in all */
  int have_log;
  char last_log[1024];
  uint32_t handshakes_seen;
} driver_t;

static utvm_err_t driver_write(void *ctx, const uint8_t *data, size_t n) {
  driver_t *d = ctx;
  child_write(&d->child, data, n);
  return UTVM_OK;
}

static utvm_err_t driver_random(void *ctx, uint8_t *buf, size_t n) {
  (void)ctx;
  for (size_t i = 0u; i < n; i++) {
    buf[i] = (uint8_t)(rand() & 0xFF);
  }
  return UTVM_OK;
}

static void on_event(void *ctx, utvm_session_event_t event) {
  driver_t *d = ctx;
  if (event == UTVM_SESSION_EVENT_ESTABLISHED) {
    d->established = 1;
  } else {
    d->terminated = 1;
  }
}

static void on_start(void *ctx, utvm_msg_type_t type, uint32_t body_len) {
  driver_t *d = ctx;
  (void)body_len;
  d->rx_type = type;
  if (type == UTVM_MSG_NORMAL) {
    d->rx_len = 0u;
  } else {
    d->log_len = 0u;
  }
}

static void on_data(void *ctx, const uint8_t *data, size_t n) {
  driver_t *d = ctx;
  uint8_t *dst = (d->rx_type == UTVM_MSG_NORMAL) ? d->rx_body : d->log_body;
  size_t cap = (d->rx_type == UTVM_MSG_NORMAL) ? sizeof(d->rx_body) : sizeof(d->log_body);
  size_t *len = (d->rx_type == UTVM_MSG_NORMAL) ? &d->rx_len : &d->log_len;
  size_t take = (n < (cap - *len)) ? n : (cap - *len);
  memcpy(&dst[*len], data, take);
  *len += take;
}

static void on_end(void *ctx, utvm_frame_status_t status) {
  driver_t *d = ctx;
  if (status != UTVM_FRAME_OK) {
    return;
  }
  if (d->rx_type == UTVM_MSG_NORMAL) {
    d->have_normal = 1;
    d->normals_seen++;
  } else if (d->rx_type == UTVM_MSG_LOG) {
    size_t n = (d->log_len < sizeof(d->last_log) - 1u) ? d->log_len : sizeof(d->last_log) - 1u;
    memcpy(d->last_log, d->log_body, n);
    d->last_log[n] = '\0';
    d->have_log = 1;
    (void)fprintf(stderr, "device log: %s\n", d->last_log);
  }
}

static void driver_init(driver_t *d) {
  memset(d, 0, sizeof(*d));
  utvm_session_config_t config;
  memset(&config, 0, sizeof(config));
  config.role = UTVM_SESSION_ROLE_INITIATOR;
  config.write = driver_write;
  config.write_ctx = d;
  config.random = driver_random;
  config.handler.event = on_event;
  config.handler.message_start = on_start;
  config.handler.message_data = on_data;
  config.handler.message_end = on_end;
  config.handler.ctx = d;
  assert_int_equal(utvm_session_init(&d->session, &config), UTVM_OK);
}

/* Feeds received bytes to the session until *flag becomes non-zero or timeout_ms pass;
 * returns the flag. */
static int driver_wait(driver_t *d, const int *flag, int timeout_ms) {
  int64_t deadline = now_ms() + timeout_ms;
  while (*flag == 0) {
    int64_t left = deadline - now_ms();
    if (left <= 0) {
      break;
    }
    uint8_t buf[512];
    size_t n = child_read(&d->child, buf, sizeof(buf), (int)((left < 100) ? left : 100));
    if (n > 0u) {
      utvm_session_feed(&d->session, buf, n);
    }
  }
  return *flag;
}

/* Handshake with retries every second, as a host would. */
static void driver_open_session(driver_t *d) {
  d->established = 0;
  for (int attempt = 0; (attempt < 10) && (d->established == 0); attempt++) {
    assert_int_equal(utvm_session_start(&d->session), UTVM_OK);
    (void)driver_wait(d, &d->established, 1000);
  }
  assert_true(d->established);
  assert_int_equal(utvm_session_state(&d->session), UTVM_SESSION_STATE_ESTABLISHED);
}

static void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) {
    p[i] = (uint8_t)(v >> (8 * i));
  }
}

static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) {
    p[i] = (uint8_t)(v >> (8 * i));
  }
}

static uint32_t get_u32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}

static uint64_t get_u64(const uint8_t *p) {
  return (uint64_t)get_u32(p) | ((uint64_t)get_u32(&p[4]) << 32);
}

/* Sends one RPC packet (code + contents; the u64 length is added here). */
static void driver_send_rpc(driver_t *d, uint32_t code, const uint8_t *contents, size_t n) {
  uint8_t head[12];
  put_u64(head, 4u + n);
  put_u32(&head[8], code);
  assert_int_equal(utvm_session_message_begin(&d->session, (uint32_t)(sizeof(head) + n)),
                   UTVM_OK);
  assert_int_equal(utvm_session_message_write(&d->session, head, sizeof(head)), UTVM_OK);
  if (n > 0u) {
    assert_int_equal(utvm_session_message_write(&d->session, contents, n), UTVM_OK);
  }
  assert_int_equal(utvm_session_message_end(&d->session), UTVM_OK);
}

/* Waits for the reply and checks it is a kReturn of a handle (code 3), alone (syscall) or
 * after the original type code (CallFunc); returns the handle. */
static uint64_t driver_expect_handle(driver_t *d) {
  d->have_normal = 0;
  assert_true(driver_wait(d, &d->have_normal, REPLY_TIMEOUT_MS));
  assert_true(d->rx_len >= 12u + 8u);
  assert_int_equal(get_u64(d->rx_body), d->rx_len - 8u);
  assert_int_equal(get_u32(&d->rx_body[8]), 4u); /* kReturn */
  uint32_t num_values = get_u32(&d->rx_body[12]);
  assert_true((num_values >= 1u) && (num_values <= 2u)); /* [handle] or [Int tc][handle] */
  assert_int_equal(d->rx_len, 16u + (12u * num_values));
  assert_int_equal(get_u32(&d->rx_body[16u + (4u * (num_values - 1u))]), 3u); /* handle */
  return get_u64(&d->rx_body[d->rx_len - 8u]);
}

static uint64_t driver_get_global(driver_t *d, const char *name) {
  uint8_t req[128];
  size_t len = strlen(name);
  assert_true(len + 16u <= sizeof(req));
  put_u32(req, 1u);      /* num_args */
  put_u32(&req[4], 11u); /* kTVMStr */
  put_u64(&req[8], len);
  memcpy(&req[16], name, len);
  driver_send_rpc(d, 9u, req, 16u + len); /* kGetGlobalFunc */
  return driver_expect_handle(d);
}

/* CallFunc(runtime.SystemLib getter) -> the system library module handle. */
static uint64_t driver_system_lib(driver_t *d, uint64_t getter) {
  uint8_t req[12];
  put_u64(req, getter);
  put_u32(&req[8], 0u); /* no arguments */
  driver_send_rpc(d, 3u, req, sizeof(req));
  uint64_t module = driver_expect_handle(d);
  assert_true(module != 0u);
  return module;
}

/* ModuleGetFunction(module, name, true) -> function handle (must exist). */
static uint64_t driver_syslib_function(driver_t *d, uint64_t module, const char *name) {
  uint64_t mgf = driver_get_global(d, "tvm.rpc.server.ModuleGetFunction");
  assert_true(mgf != 0u);
  uint8_t req[128];
  size_t len = strlen(name);
  assert_true(len + 48u <= sizeof(req));
  size_t off = 0u;
  put_u64(&req[off], mgf);
  off += 8u;
  put_u32(&req[off], 3u);
  put_u32(&req[off + 4u], 9u);   /* Module */
  put_u32(&req[off + 8u], 11u);  /* Str */
  put_u32(&req[off + 12u], 15u); /* Bool */
  off += 16u;
  put_u64(&req[off], module);
  off += 8u;
  put_u64(&req[off], len);
  memcpy(&req[off + 8u], name, len);
  off += 8u + len;
  put_u64(&req[off], 1u);
  off += 8u;
  driver_send_rpc(d, 3u, req, off);
  uint64_t fn = driver_expect_handle(d);
  assert_true(fn != 0u);
  return fn;
}

/* Waits for the reply to a CallFunc and checks it is a kReturn (code 4). */
static void driver_expect_return(driver_t *d) {
  d->have_normal = 0;
  assert_true(driver_wait(d, &d->have_normal, REPLY_TIMEOUT_MS));
  assert_true(d->rx_len >= 12u);
  assert_int_equal(get_u64(d->rx_body), d->rx_len - 8u);
  assert_int_equal(get_u32(&d->rx_body[8]), 4u); /* kReturn */
}

/* Sends CallFunc(fn, Int us): test_busy_wait_us. */
static void driver_send_busy_wait(driver_t *d, uint64_t fn, uint64_t us) {
  uint8_t req[24];
  put_u64(req, fn);
  put_u32(&req[8], 1u);  /* num_args */
  put_u32(&req[12], 0u); /* kTVMArgInt */
  put_u64(&req[16], us);
  driver_send_rpc(d, 3u, req, sizeof(req));
}

/* Boots the image, checks the boot Terminate and opens a session. */
static driver_t *driver_boot(void) {
  static const uint8_t boot_terminate[] = {0xfe, 0xff, 0xfd, 0x03, 0x00, 0x00,
                                           0x00, 0x00, 0x00, 0x02, 0x66, 0x77};
  driver_t *d = calloc(1, sizeof(*d));
  assert_non_null(d);
  driver_init(d);
  child_start(&d->child);
  uint8_t boot[sizeof(boot_terminate)];
  child_read_exact(&d->child, boot, sizeof(boot), BOOT_TIMEOUT_MS);
  assert_memory_equal(boot, boot_terminate, sizeof(boot));
  driver_open_session(d);
  return d;
}

static void test_watchdog(void **state) {
  (void)state;
  driver_t *d = driver_boot();
  uint64_t syslib_getter = driver_get_global(d, "runtime.SystemLib");
  assert_true(syslib_getter != 0u);
  uint64_t module = driver_system_lib(d, syslib_getter);
  uint64_t busy_fn = driver_syslib_function(d, module, "test_busy_wait_us");

  /* Idle longer than the timeout: SysTick wakes the main loop, which kicks the watchdog. */
  d->have_log = 0;
  d->terminated = 0;
  (void)driver_wait(d, &d->terminated, 1500);
  assert_false(d->have_log);
  assert_false(d->terminated);

  /* An operator shorter than the timeout returns normally. */
  driver_send_busy_wait(d, busy_fn, 200000u);
  driver_expect_return(d);
  assert_false(d->have_log);

  /* A hung operator (10 s, far beyond the 1 s timeout): the watchdog resets the device, which
   * reports it. */
  d->have_normal = 0;
  driver_send_busy_wait(d, busy_fn, 10000000u);
  assert_true(driver_wait(d, &d->have_log, WATCHDOG_TIMEOUT_MS));
  assert_non_null(strstr(d->last_log, "device reset: watchdog pc=0x"));
  assert_true(driver_wait(d, &d->terminated, 2000));
  assert_false(d->have_normal); /* the call never returned */
  assert_int_not_equal(utvm_session_state(&d->session), UTVM_SESSION_STATE_ESTABLISHED);

  /* A new session works after the reset. */
  driver_open_session(d);
  assert_true(driver_get_global(d, "runtime.SystemLib") != 0u);

  child_stop(&d->child);
  free(d);
}

static void test_session(void **state) {
  (void)state;
  driver_t *d = driver_boot();
  uint64_t syslib_getter = driver_get_global(d, "runtime.SystemLib");
  assert_true(syslib_getter != 0u);
  assert_int_equal(driver_get_global(d, "no.such.function"), 0u);

  uint64_t module = driver_system_lib(d, syslib_getter);
  uint8_t req[64];

  uint64_t abort_fn = driver_syslib_function(d, module, "test_abort");

  /* test_abort(): the device resets and reports why (Log, then Terminate). */
  put_u64(req, abort_fn);
  put_u32(&req[8], 0u);
  d->have_log = 0;
  d->terminated = 0;
  driver_send_rpc(d, 3u, req, 12u);
  assert_true(driver_wait(d, &d->have_log, 2000));
  assert_non_null(strstr(d->last_log, "device reset: abort code=0x00007e57"));
  /* The boot Terminate follows the Log and ends the session. */
  assert_true(driver_wait(d, &d->terminated, 2000));
  assert_int_not_equal(utvm_session_state(&d->session), UTVM_SESSION_STATE_ESTABLISHED);

  /* A new session works after the reset. */
  driver_open_session(d);
  assert_true(driver_get_global(d, "runtime.SystemLib") != 0u);

  child_stop(&d->child);
  free(d);
}

/* Requests queued behind a running operator, more bytes than the firmware's receive ring. */
#define FLOW_REQUESTS 120u

/* Receive flow control: the firmware's main loop is busy in an operator (interrupts on) while
 * the host keeps sending. The UART handler fills the ring, then must hold further input back
 * in the UART (QEMU then stops delivering) rather than drop it: every queued request is
 * answered once the operator returns, and no loss is reported. */
static void test_session_flow_control(void **state) {
  (void)state;
  driver_t *d = driver_boot();
  uint64_t syslib_getter = driver_get_global(d, "runtime.SystemLib");
  uint64_t module = driver_system_lib(d, syslib_getter);
  uint64_t busy_fn = driver_syslib_function(d, module, "test_busy_wait_us");
  uint8_t req[64];
  static const char name[] = "runtime.SystemLib";
  put_u32(req, 1u);      /* num_args */
  put_u32(&req[4], 11u); /* kTVMStr */
  put_u64(&req[8], sizeof(name) - 1u);
  memcpy(&req[16], name, sizeof(name) - 1u);
  d->have_log = 0;
  d->normals_seen = 0u;
  driver_send_busy_wait(d, busy_fn, 300000u);
  for (uint32_t i = 0u; i < FLOW_REQUESTS; i++) {
    driver_send_rpc(d, 9u, req, 16u + sizeof(name) - 1u); /* kGetGlobalFunc */
  }
  /* The operator alone is 300 M instructions under -icount: on a loaded host QEMU may need
   * most of REPLY_TIMEOUT_MS for it, so the replies get four times that (the loop ends as soon
   * as they are all in). */
  int64_t deadline = now_ms() + 4 * REPLY_TIMEOUT_MS;
  while ((d->normals_seen < FLOW_REQUESTS + 1u) && (now_ms() < deadline)) {
    int done = 0;
    (void)driver_wait(d, &done, 100);
  }
  if (d->normals_seen != FLOW_REQUESTS + 1u) {
    fail_msg("%u of %u replies arrived%s%s", (unsigned)d->normals_seen,
             (unsigned)(FLOW_REQUESTS + 1u), d->have_log ? "; device log: " : "",
             d->have_log ? d->last_log : "");
  }
  assert_int_equal(get_u32(&d->rx_body[8]), 4u); /* the last one a kReturn */
  assert_int_equal(get_u64(&d->rx_body[d->rx_len - 8u]), syslib_getter);
  assert_false(d->have_log);
  child_stop(&d->child);
  free(d);
}

int main(int argc, char **argv) {
  if (argc != 5) {
    (void)fprintf(stderr, "usage: %s serial|session|watchdog RUNNER BOARD ELF\n", argv[0]);
    return 2;
  }
  runner = argv[2];
  board = argv[3];
  elf = argv[4];
  (void)signal(SIGPIPE, SIG_IGN);
  srand((unsigned)time(NULL));
  if (strcmp(argv[1], "serial") == 0) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_serial_all_byte_values)};
    return cmocka_run_group_tests_name("qemu_serial", tests, NULL, NULL);
  }
  if (strcmp(argv[1], "session") == 0) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_session),
                                       cmocka_unit_test(test_session_flow_control)};
    return cmocka_run_group_tests_name("qemu_session", tests, NULL, NULL);
  }
  if (strcmp(argv[1], "watchdog") == 0) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_watchdog)};
    return cmocka_run_group_tests_name("qemu_watchdog", tests, NULL, NULL);
  }
  (void)fprintf(stderr, "unknown mode %s\n", argv[1]);
  return 2;
}

/* TVM platform hooks for a POSIX process: monotonic timer, OS randomness, abort = reboot. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "posix_port.h"
#include "test_syslib.h"
#include "tvm/runtime/crt/platform.h"

static struct timespec timer_start;
static bool timer_running;

tvm_crt_error_t TVMPlatformTimerStart(void) {
  if (timer_running) {
    return kTvmErrorPlatformTimerBadState;
  }
  if (clock_gettime(CLOCK_MONOTONIC, &timer_start) != 0) {
    return kTvmErrorPlatformTimerBadState;
  }
  timer_running = true;
  return kTvmErrorNoError;
}

tvm_crt_error_t TVMPlatformTimerStopNs(uint64_t *elapsed_ns) {
  struct timespec now;
  if (!timer_running) {
    return kTvmErrorPlatformTimerBadState;
  }
  timer_running = false;
  if (clock_gettime(CLOCK_MONOTONIC, &now) != 0) {
    return kTvmErrorPlatformTimerBadState;
  }
  /* The clock is monotonic; the checks only keep the arithmetic in range (2^31 s). */
  time_t seconds = now.tv_sec - timer_start.tv_sec;
  if ((seconds < 0) || (seconds > (time_t)INT32_MAX)) {
    return (tvm_crt_error_t)UTVM_ERR_TIME_EVAL_TIMER_OVERFLOW;
  }
  int64_t ns = ((int64_t)seconds * 1000000000) +
               ((int64_t)now.tv_nsec - (int64_t)timer_start.tv_nsec);
  if (ns < 0) {
    return (tvm_crt_error_t)UTVM_ERR_TIME_EVAL_TIMER_OVERFLOW;
  }
  *elapsed_ns = (uint64_t)ns;
  return kTvmErrorNoError;
}

uint64_t test_syslib_time_us(void) {
  struct timespec now;
  (void)clock_gettime(CLOCK_MONOTONIC, &now);
  return ((uint64_t)now.tv_sec * 1000000u) + ((uint64_t)now.tv_nsec / 1000u);
}

utvm_err_t posix_port_sleep_ms(uint32_t ms) {
  struct timespec left = {(time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L};
  /* Each interrupted nanosleep continues with the time left, which only shrinks. */
  while (nanosleep(&left, &left) != 0) {
    if (errno != EINTR) {
      return UTVM_ERR_PLATFORM_CHECK_FAILURE;
    }
  }
  return UTVM_OK;
}

tvm_crt_error_t TVMPlatformBeforeMeasurement(void) { return kTvmErrorNoError; }

tvm_crt_error_t TVMPlatformAfterMeasurement(void) { return kTvmErrorNoError; }

tvm_crt_error_t TVMPlatformGenerateRandom(uint8_t *buffer, size_t num_bytes) {
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  size_t done = 0u;
  while ((fd >= 0) && (done < num_bytes)) {
    ssize_t n = read(fd, &buffer[done], num_bytes - done);
    if (n > 0) {
      done += (size_t)n;
    } else if ((n < 0) && (errno == EINTR)) {
      continue;
    } else {
      break;
    }
  }
  if (fd >= 0) {
    (void)close(fd);
  }
  return (done == num_bytes) ? kTvmErrorNoError : kTvmErrorPlatformCheckFailure;
}

tvm_crt_error_t TVMPlatformInitialize(void) { return kTvmErrorNoError; }

size_t TVMPlatformFormatMessage(char *out_buf, size_t out_buf_size_bytes, const char *fmt,
                                va_list args) {
  int n = vsnprintf(out_buf, out_buf_size_bytes, fmt, args);
  if (n < 0) {
    return 0u;
  }
  return ((size_t)n < out_buf_size_bytes) ? (size_t)n : out_buf_size_bytes - 1u;
}

void TVMPlatformAbort(tvm_crt_error_t code) {
  char text[64];
  int n = snprintf(text, sizeof(text), "device abort: TVMPlatformAbort(0x%x)", (unsigned)code);
  (void)fprintf(stderr, "utvm-posix-server: %s, rebooting\n", text);
  if (n > 0) {
    posix_port_log(text, (size_t)n);
  }
  posix_port_reboot();
}

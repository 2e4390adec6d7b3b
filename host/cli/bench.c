/* utvm bench: the null-call round trip and upload/download throughput of the link. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* utvm bench --help. */
static const char bench_help[] =
    "usage: utvm [--connect T] [--json] bench [--max-size BYTES]\n\n"
    "Measures the null-call round trip and upload/download throughput for copies from\n"
    "1 KiB up to --max-size (default 1 MiB, or the largest block the device grants).\n";

/* Null calls timed; seconds and most rounds per transfer size. */
#define CLI_LATENCY_CALLS 200
#define CLI_BENCH_SECONDS 0.3
#define CLI_BENCH_MAX_ROUNDS 50

/* Moves size bytes to or from device memory at data repeatedly; returns MB/s or -1. */
static double measure_transfer(utvm_host_t *host, uint64_t data, uint8_t *buf, size_t size,
                               bool upload, utvm_host_err_t *rc) {
  utvm_host_tensor_t t;
  (void)memset(&t, 0, sizeof(t));
  t.data = data;
  t.device.device_type = 1;
  t.ndim = 1;
  t.dtype.code = 1u;
  t.dtype.bits = 8u;
  t.dtype.lanes = 1u;
  t.shape[0] = (int64_t)size;
  double start = cli_now_s();
  int rounds = 0;
  cli_progress_t p;
  cli_progress_begin(host, &p, upload ? "upload  " : "download");
  while ((rounds < CLI_BENCH_MAX_ROUNDS) && ((cli_now_s() - start) < CLI_BENCH_SECONDS)) {
    *rc = upload ? utvm_host_copy_to_device(host, &t, buf, size)
                 : utvm_host_copy_from_device(host, &t, buf, size);
    if (*rc != UTVM_HOST_OK) {
      cli_progress_end(host, &p);
      return -1.0;
    }
    rounds++;
  }
  cli_progress_end(host, &p);
  double elapsed = cli_now_s() - start;
  return ((double)size * (double)rounds) / elapsed / 1e6;
}

static int bench_on_device(const cli_options_t *o, utvm_host_t *host) {
  uint64_t f = 0u;
  utvm_host_err_t rc = utvm_host_get_global(host, "tvm.rpc.server.GetCRTMaxPacketSize", &f);
  if ((rc == UTVM_HOST_OK) && (f == 0u)) {
    rc = utvm_host_get_global(host, "runtime.SystemLib", &f);
  }
  double lat_min = 1e9;
  double lat_max = 0.0;
  double lat_sum = 0.0;
  for (int i = 0; (rc == UTVM_HOST_OK) && (i < CLI_LATENCY_CALLS); i++) {
    double t0 = cli_now_s();
    rc = utvm_host_call(host, f, NULL, 0u, NULL);
    double dt = cli_now_s() - t0;
    lat_sum += dt;
    lat_min = (dt < lat_min) ? dt : lat_min;
    lat_max = (dt > lat_max) ? dt : lat_max;
  }
  if (rc != UTVM_HOST_OK) {
    return cli_report(o, rc, utvm_host_last_error(host));
  }
  uint64_t max_packet = 0u;
  rc = utvm_host_max_packet(host, &max_packet);
  if (rc != UTVM_HOST_OK) {
    return cli_report(o, rc, utvm_host_last_error(host));
  }
  /* Largest buffer the device grants, up to the requested maximum. */
  utvm_host_device_t cpu = {1, 0};
  utvm_host_dtype_t u8 = {1u, 8u, 1u};
  size_t largest = o->bench_max;
  uint64_t data = 0u;
  for (; largest >= CLI_BENCH_MIN_SIZE; largest /= 2u) {
    rc = utvm_host_dev_alloc_data(host, cpu, (int64_t)largest, 64, u8, &data);
    if (rc == UTVM_HOST_OK) {
      break;
    }
    if (rc != UTVM_HOST_ERR_DEVICE_EXCEPTION) {
      return cli_report(o, rc, utvm_host_last_error(host));
    }
  }
  if (largest < CLI_BENCH_MIN_SIZE) {
    return cli_report(o, UTVM_HOST_ERR_DEVICE_EXCEPTION, "the device cannot allocate 1 KiB");
  }
  uint8_t *buf = (uint8_t *)malloc(largest);
  if (buf == NULL) {
    (void)utvm_host_dev_free_data(host, cpu, data);
    return cli_report(o, UTVM_HOST_ERR_NO_MEMORY, "out of host memory");
  }
  for (size_t i = 0u; i < largest; i++) {
    buf[i] = (uint8_t)(i * 7u);
  }
  double mean_us = lat_sum / CLI_LATENCY_CALLS * 1e6;
  if (o->json) {
    (void)printf("{\"ok\": true, \"latency_us\": {\"calls\": %d, \"mean\": %.3f, \"min\": %.3f, "
                 "\"max\": %.3f}, \"copy_packet_size\": %llu, \"transfers\": [",
                 CLI_LATENCY_CALLS, mean_us, lat_min * 1e6, lat_max * 1e6,
                 (unsigned long long)max_packet);
  } else {
    (void)printf("null call round trip: mean %.1f us, min %.1f us, max %.1f us (%d calls)\n",
                 mean_us, lat_min * 1e6, lat_max * 1e6, CLI_LATENCY_CALLS);
    (void)printf("copy packet size: %llu bytes\n\n", (unsigned long long)max_packet);
    (void)printf("%12s %14s %14s\n", "bytes", "upload MB/s", "download MB/s");
  }
  bool first = true;
  for (size_t size = CLI_BENCH_MIN_SIZE; (rc == UTVM_HOST_OK) && (size <= largest); size *= 4u) {
    double up = measure_transfer(host, data, buf, size, true, &rc);
    double down = (rc == UTVM_HOST_OK) ? measure_transfer(host, data, buf, size, false, &rc)
                                       : -1.0;
    if (rc != UTVM_HOST_OK) {
      break;
    }
    if (o->json) {
      (void)printf("%s{\"bytes\": %zu, \"upload_MBps\": %.3f, \"download_MBps\": %.3f}",
                   first ? "" : ", ", size, up, down);
    } else {
      (void)printf("%12zu %14.3f %14.3f\n", size, up, down);
    }
    (void)fflush(stdout);
    first = false;
  }
  free(buf);
  if (rc != UTVM_HOST_OK) {
    if (o->json) {
      (void)printf("]}\n");
    }
    return cli_report(o, rc, utvm_host_last_error(host));
  }
  rc = utvm_host_dev_free_data(host, cpu, data);
  if (o->json) {
    (void)printf("]}\n");
  }
  return (rc == UTVM_HOST_OK) ? CLI_EXIT_OK : cli_report(o, rc, utvm_host_last_error(host));
}

static int bench_main(const cli_options_t *o) {
  return cli_on_device(o, false, cli_log_to_stderr, bench_on_device);
}

const cli_command_t cli_bench_command = {"bench", bench_help, bench_main};

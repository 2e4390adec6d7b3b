/*
 * Guest instructions per RPC request on a Cortex-M board under QEMU (bench/run.sh).
 *
 *   bench_qemu BOARD ELF [CALLS]
 *
 * Boots ELF with the host library's qemu:BOARD:ELF transport (qemu-system-arm -icount
 * shift=0: the guest clock advances 1 ns per instruction) and reads the firmware's busy time
 * (utvm.port.GetBusyNs: nanoseconds outside wfi, see ports/cortex-m/port.h) around the
 * measured requests. The cost of one read is the difference of two back-to-back reads (the
 * smallest of a few) and is subtracted from every measurement. Each measurement is taken
 * ROUNDS times and the cheapest kept: the count varies with how the host's bytes happen to
 * be batched in the receive ring (each main-loop pass and wake-up costs instructions).
 *   null call: (busy after CALLS CallFunc of tvm.rpc.server.GetCRTMaxPacketSize - busy
 *              before - one read) / CALLS
 *   copy:      (cost of a 65536-byte copy - cost of a 64-byte copy) / 65472 per payload byte,
 *              for CopyToRemote (upload) and CopyFromRemote (download); the host chunks
 *              copies by the device's max transfer size.
 * Prints one line: "BOARD NULL_CALL UPLOAD_PER_BYTE DOWNLOAD_PER_BYTE UPLOAD_64 DOWNLOAD_64
 * MAX_PACKET" (instructions; the 64-byte columns are whole-request costs). Exit status 1 on
 * any failure, with the reason on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utvm/host.h"

#define BUSY_NS_NAME "utvm.port.GetBusyNs"
#define NULL_CALL_NAME "tvm.rpc.server.GetCRTMaxPacketSize"
#define LARGE_COPY 65536u
#define SMALL_COPY 64u
#define READ_COST_SAMPLES 5
#define ROUNDS 3
#define DEFAULT_CALLS 200L
#define MAX_CALLS 100000L

typedef struct {
  utvm_host_t *host;
  uint64_t busy_fn;
  int64_t read_cost;
} bench_t;

static int fail(const bench_t *b, const char *what, utvm_host_err_t err) {
  fprintf(stderr, "bench_qemu: %s: %s (%s)\n", what, utvm_host_strerror(err),
          (b->host != NULL) ? utvm_host_last_error(b->host) : "");
  return 1;
}

/* Reads the device's busy nanoseconds into *ns. */
static utvm_host_err_t read_busy(const bench_t *b, int64_t *ns) {
  utvm_host_value_t ret;
  utvm_host_err_t err = utvm_host_call(b->host, b->busy_fn, NULL, 0u, &ret);
  if ((err == UTVM_HOST_OK) && (ret.type_code != UTVM_TC_INT)) {
    err = UTVM_HOST_ERR_PROTOCOL;
  }
  if (err == UTVM_HOST_OK) {
    *ns = ret.v.i;
  }
  return err;
}

/* Busy instructions of one copy of nbytes (upload or download), read cost subtracted: the
 * cheapest of ROUNDS copies. */
static utvm_host_err_t copy_cost(const bench_t *b, const utvm_host_tensor_t *tensor,
                                 uint8_t *data, size_t nbytes, int upload, int64_t *cost) {
  utvm_host_tensor_t t = *tensor;
  t.shape[0] = (int64_t)nbytes;
  utvm_host_err_t err = UTVM_HOST_OK;
  for (int round = 0; (round < ROUNDS) && (err == UTVM_HOST_OK); round++) {
    int64_t before = 0;
    int64_t after = 0;
    err = read_busy(b, &before);
    if (err == UTVM_HOST_OK) {
      err = upload ? utvm_host_copy_to_device(b->host, &t, data, nbytes)
                   : utvm_host_copy_from_device(b->host, &t, data, nbytes);
    }
    if (err == UTVM_HOST_OK) {
      err = read_busy(b, &after);
    }
    int64_t this_cost = after - before - b->read_cost;
    if ((round == 0) || (this_cost < *cost)) {
      *cost = this_cost;
    }
  }
  return err;
}

int main(int argc, char **argv) {
  bench_t b = {NULL, 0u, 0};
  char spec[2048];
  char errbuf[256];
  if ((argc < 3) || (argc > 4)) {
    fprintf(stderr, "usage: %s BOARD ELF [CALLS]\n", argv[0]);
    return 2;
  }
  long calls = (argc == 4) ? strtol(argv[3], NULL, 10) : DEFAULT_CALLS;
  if ((calls < 1) || (calls > MAX_CALLS)) {
    fprintf(stderr, "bench_qemu: CALLS must be 1..%ld\n", MAX_CALLS);
    return 2;
  }
  (void)snprintf(spec, sizeof(spec), "qemu:%s:%s", argv[1], argv[2]);
  utvm_host_options_t opts;
  utvm_host_options_default(&opts);
  opts.recover = false; /* no Sync traffic: every byte on the link is a measured request */
  utvm_host_err_t err = utvm_host_open(spec, &opts, &b.host, errbuf, sizeof(errbuf));
  if (err != UTVM_HOST_OK) {
    fprintf(stderr, "bench_qemu: opening %s: %s\n", spec, errbuf);
    return 1;
  }
  uint64_t null_fn = 0u;
  uint64_t max_packet = 0u;
  err = utvm_host_get_global(b.host, BUSY_NS_NAME, &b.busy_fn);
  if ((err == UTVM_HOST_OK) && (b.busy_fn == 0u)) {
    err = UTVM_HOST_ERR_NOT_FOUND;
  }
  if (err == UTVM_HOST_OK) {
    err = utvm_host_get_global(b.host, NULL_CALL_NAME, &null_fn);
  }
  if ((err == UTVM_HOST_OK) && (null_fn == 0u)) {
    err = UTVM_HOST_ERR_NOT_FOUND;
  }
  if (err == UTVM_HOST_OK) {
    err = utvm_host_max_packet(b.host, &max_packet);
  }
  if (err != UTVM_HOST_OK) {
    int rc = fail(&b, "looking up " BUSY_NS_NAME " and " NULL_CALL_NAME, err);
    utvm_host_close(b.host);
    return rc;
  }

  /* Cost of one read: smallest difference of back-to-back reads. */
  int64_t previous = 0;
  int64_t now = 0;
  err = read_busy(&b, &previous);
  for (int i = 0; (i < READ_COST_SAMPLES) && (err == UTVM_HOST_OK); i++) {
    err = read_busy(&b, &now);
    if ((i == 0) || ((now - previous) < b.read_cost)) {
      b.read_cost = now - previous;
    }
    previous = now;
  }

  /* Null calls: the cheapest of ROUNDS rounds (see the header). */
  double null_call = 0.0;
  for (int round = 0; (round < ROUNDS) && (err == UTVM_HOST_OK); round++) {
    int64_t before = 0;
    int64_t after = 0;
    err = read_busy(&b, &before);
    for (long i = 0; (i < calls) && (err == UTVM_HOST_OK); i++) {
      utvm_host_value_t ret;
      err = utvm_host_call(b.host, null_fn, NULL, 0u, &ret);
    }
    if (err == UTVM_HOST_OK) {
      err = read_busy(&b, &after);
    }
    double per_call = (double)(after - before - b.read_cost) / (double)calls;
    if ((round == 0) || (per_call < null_call)) {
      null_call = per_call;
    }
  }
  if (err != UTVM_HOST_OK) {
    int rc = fail(&b, "null calls", err);
    utvm_host_close(b.host);
    return rc;
  }

  /* Copies into one device tensor, checked by reading the data back. */
  const utvm_host_device_t cpu = {1, 0};
  const utvm_host_dtype_t u8 = {1u, 8u, 1u};
  utvm_host_tensor_t tensor;
  (void)memset(&tensor, 0, sizeof(tensor));
  tensor.device = cpu;
  tensor.ndim = 1;
  tensor.dtype = u8;
  uint8_t *sent = malloc(LARGE_COPY);
  uint8_t *received = malloc(LARGE_COPY);
  if ((sent == NULL) || (received == NULL)) {
    free(sent);
    free(received);
    utvm_host_close(b.host);
    fprintf(stderr, "bench_qemu: out of memory\n");
    return 1;
  }
  for (size_t i = 0u; i < LARGE_COPY; i++) {
    sent[i] = (uint8_t)((i * 7u) ^ (i >> 8));
  }
  int64_t up_small = 0;
  int64_t up_large = 0;
  int64_t down_small = 0;
  int64_t down_large = 0;
  err = utvm_host_dev_alloc_data(b.host, cpu, (int64_t)LARGE_COPY, 64, u8, &tensor.data);
  if (err == UTVM_HOST_OK) {
    err = copy_cost(&b, &tensor, sent, SMALL_COPY, 1, &up_small);
  }
  if (err == UTVM_HOST_OK) {
    err = copy_cost(&b, &tensor, sent, LARGE_COPY, 1, &up_large);
  }
  if (err == UTVM_HOST_OK) {
    err = copy_cost(&b, &tensor, received, SMALL_COPY, 0, &down_small);
  }
  if (err == UTVM_HOST_OK) {
    err = copy_cost(&b, &tensor, received, LARGE_COPY, 0, &down_large);
  }
  if ((err == UTVM_HOST_OK) && (memcmp(sent, received, LARGE_COPY) != 0)) {
    err = UTVM_HOST_ERR_PROTOCOL;
  }
  free(sent);
  free(received);
  if (err != UTVM_HOST_OK) {
    int rc = fail(&b, "64 KiB copies (or read-back mismatch)", err);
    utvm_host_close(b.host);
    return rc;
  }
  utvm_host_close(b.host);

  const double span = (double)(LARGE_COPY - SMALL_COPY);
  printf("%s %.0f %.2f %.2f %lld %lld %llu\n", argv[1], null_call,
         (double)(up_large - up_small) / span, (double)(down_large - down_small) / span,
         (long long)up_small, (long long)down_small, (unsigned long long)max_packet);
  return 0;
}

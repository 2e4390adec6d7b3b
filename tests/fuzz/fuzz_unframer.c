/*
 * libFuzzer target for the framing decoder.
 *
 * Input (fuzz_input.h): chunking byte (bit 7: call utvm_unframer_reset between some chunks),
 * a byte selecting max_payload_len (0: no limit, else 16 * value), then the wire bytes.
 *
 * Checked on every input:
 *  - packet_start and packet_end alternate (one end per start), payload only inside a packet;
 *  - the bytes streamed never exceed the announced length, which never exceeds the limit;
 *    an OK packet streamed exactly the announced length;
 *  - utvm_unframer_in_packet agrees with the callbacks after every feed call;
 *  - the counters match the callbacks, never decrease, and count at most one event per
 *    start sequence in the input;
 *  - every OK packet re-encodes with the framer to wire bytes that decode to the same payload.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "utvm/framing.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define STATUS_COUNT 4u

typedef struct {
  uint32_t max_len;
  bool open;
  uint32_t announced;
  uint32_t streamed;
  uint32_t starts;
  uint32_t ends[STATUS_COUNT];
  uint32_t reset_truncations; /* TRUNCATED ends caused by utvm_unframer_reset */
  bool resetting;
  bool reencode;              /* round-trip every OK packet through the framer */
  fuzz_bytes_t payload;
} probe_t;

static void probe_start(void *ctx, uint32_t payload_len) {
  probe_t *p = (probe_t *)ctx;
  FUZZ_CHECK(!p->open);
  FUZZ_CHECK(payload_len <= p->max_len);
  p->open = true;
  p->announced = payload_len;
  p->streamed = 0u;
  p->payload.len = 0u;
  p->starts++;
}

static void probe_payload(void *ctx, const uint8_t *data, size_t n) {
  probe_t *p = (probe_t *)ctx;
  FUZZ_CHECK(p->open);
  FUZZ_CHECK(data != NULL);
  FUZZ_CHECK(n <= (size_t)(p->announced - p->streamed));
  p->streamed += (uint32_t)n;
  fuzz_bytes_append(&p->payload, data, n);
}

static utvm_err_t append_write(void *ctx, const uint8_t *data, size_t n) {
  fuzz_bytes_append((fuzz_bytes_t *)ctx, data, n);
  return UTVM_OK;
}

static size_t count_byte(const uint8_t *data, size_t n, uint8_t value) {
  size_t count = 0u;
  for (size_t i = 0u; i < n; i++) {
    count += (data[i] == value) ? 1u : 0u;
  }
  return count;
}

static void probe_end(void *ctx, utvm_frame_status_t status);

/* Encodes payload with a fresh framer, decodes the result and compares. */
static void check_reencode(const uint8_t *payload, uint32_t len) {
  fuzz_bytes_t wire = {NULL, 0u, 0u};
  utvm_framer_t framer;
  utvm_framer_init(&framer, append_write, &wire);
  FUZZ_CHECK(utvm_framer_send(&framer, payload, len) == UTVM_OK);

  const uint8_t len_bytes[4] = {(uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16),
                                (uint8_t)(len >> 24)};
  /* 0xfe prefix + ff fd + escaped length + escaped payload + CRC (2 to 4 bytes). */
  size_t minimum = 1u + 2u + 4u + count_byte(len_bytes, 4u, 0xFFu) + len +
                   count_byte(payload, len, 0xFFu) + 2u;
  FUZZ_CHECK(wire.len >= minimum && wire.len <= minimum + 2u);
  FUZZ_CHECK(wire.data[0] == 0xFEu && wire.data[1] == 0xFFu && wire.data[2] == 0xFDu);

  probe_t again;
  (void)memset(&again, 0, sizeof(again));
  again.max_len = UINT32_MAX;
  const utvm_unframer_handler_t handler = {probe_start, probe_payload, probe_end, &again};
  utvm_unframer_t decoder;
  utvm_unframer_init(&decoder, &handler, UINT32_MAX);
  utvm_unframer_feed(&decoder, wire.data, wire.len);
  FUZZ_CHECK(again.starts == 1u);
  FUZZ_CHECK(again.ends[UTVM_FRAME_OK] == 1u);
  FUZZ_CHECK(!again.open);
  FUZZ_CHECK(again.payload.len == len);
  FUZZ_CHECK(len == 0u || memcmp(again.payload.data, payload, len) == 0);
  fuzz_bytes_free(&again.payload);
  fuzz_bytes_free(&wire);
}

static void probe_end(void *ctx, utvm_frame_status_t status) {
  probe_t *p = (probe_t *)ctx;
  FUZZ_CHECK(p->open);
  FUZZ_CHECK((uint32_t)status < STATUS_COUNT);
  p->open = false;
  p->ends[status]++;
  if (p->resetting) {
    FUZZ_CHECK(status == UTVM_FRAME_TRUNCATED);
    p->reset_truncations++;
  }
  if (status == UTVM_FRAME_OK) {
    FUZZ_CHECK(p->streamed == p->announced);
    FUZZ_CHECK(p->payload.len == p->announced);
    if (p->reencode) {
      check_reencode(p->payload.data, p->announced);
    }
  }
}

static uint32_t stats_sum(const utvm_unframer_stats_t *s) {
  return s->packets_ok + s->crc_errors + s->short_packets + s->invalid_escapes +
         s->length_overflows;
}

static void check_stats(const probe_t *p, const utvm_unframer_stats_t *now,
                        const utvm_unframer_stats_t *before) {
  FUZZ_CHECK(now->packets_ok >= before->packets_ok);
  FUZZ_CHECK(now->crc_errors >= before->crc_errors);
  FUZZ_CHECK(now->short_packets >= before->short_packets);
  FUZZ_CHECK(now->invalid_escapes >= before->invalid_escapes);
  FUZZ_CHECK(now->length_overflows >= before->length_overflows);
  FUZZ_CHECK(now->packets_ok == p->ends[UTVM_FRAME_OK]);
  FUZZ_CHECK(now->crc_errors == p->ends[UTVM_FRAME_BAD_CRC]);
  FUZZ_CHECK(now->short_packets >= p->ends[UTVM_FRAME_TRUNCATED] - p->reset_truncations);
  FUZZ_CHECK(now->invalid_escapes >= p->ends[UTVM_FRAME_INVALID_ESCAPE]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input_t in;
  if (!fuzz_input_init(&in, data, size)) {
    return 0;
  }
  probe_t probe;
  (void)memset(&probe, 0, sizeof(probe));
  probe.max_len = (in.param == 0u) ? UINT32_MAX : 16u * (uint32_t)in.param;
  probe.reencode = true;
  const utvm_unframer_handler_t handler = {probe_start, probe_payload, probe_end, &probe};
  utvm_unframer_t decoder;
  utvm_unframer_init(&decoder, &handler, probe.max_len);

  utvm_unframer_stats_t before;
  (void)memset(&before, 0, sizeof(before));
  const uint8_t *chunk = NULL;
  size_t n = fuzz_input_next_chunk(&in, &chunk);
  while (n > 0u) {
    utvm_unframer_feed(&decoder, chunk, n);
    FUZZ_CHECK(probe.open == utvm_unframer_in_packet(&decoder));
    check_stats(&probe, &decoder.stats, &before);
    before = decoder.stats;
    if (in.fault && (in.rng & 7u) == 0u) {
      probe.resetting = true;
      utvm_unframer_reset(&decoder);
      probe.resetting = false;
      FUZZ_CHECK(!utvm_unframer_in_packet(&decoder));
      FUZZ_CHECK(!probe.open);
    }
    n = fuzz_input_next_chunk(&in, &chunk);
  }
  FUZZ_CHECK(stats_sum(&decoder.stats) <= count_byte(in.stream, in.size, 0xFDu));

  probe.resetting = true;
  utvm_unframer_reset(&decoder);
  probe.resetting = false;
  FUZZ_CHECK(!probe.open && !utvm_unframer_in_packet(&decoder));
  check_stats(&probe, &decoder.stats, &before);
  fuzz_bytes_free(&probe.payload);
  return 0;
}

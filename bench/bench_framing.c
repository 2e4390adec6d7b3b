/*
 * Framing throughput workload for bench/run.sh (run under valgrind --tool=callgrind).
 *
 * usage: bench_framing <encode|decode> <random|ff> <payload bytes>
 *
 * Builds one payload of the given size and content, then either sends it as one packet
 * with utvm_framer_send into a counting sink, or decodes its wire image (prepared
 * beforehand) with utvm_unframer_feed in 256-byte chunks, as a UART DMA driver would.
 * run.sh counts instructions only inside utvm_framer_send / utvm_unframer_feed
 * (--toggle-collect), so payload generation and pre-encoding are not measured.
 * Prints the number of payload bytes seen at the far end, which must equal the size.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utvm/framing.h"

#define DECODE_CHUNK 256u

typedef struct {
  uint8_t *data;
  size_t len;
  size_t cap;
} wire_buffer_t;

typedef struct {
  uint64_t payload_bytes;
  uint32_t packets_ok;
} decode_sink_t;

static utvm_err_t count_write(void *ctx, const uint8_t *data, size_t n) {
  (void)data;
  *(uint64_t *)ctx += n;
  return UTVM_OK;
}

static utvm_err_t buffer_write(void *ctx, const uint8_t *data, size_t n) {
  wire_buffer_t *b = (wire_buffer_t *)ctx;
  if (b->len + n > b->cap) {
    return UTVM_ERR_WRITE_FAILED;
  }
  (void)memcpy(&b->data[b->len], data, n);
  b->len += n;
  return UTVM_OK;
}

static void sink_payload(void *ctx, const uint8_t *data, size_t n) {
  (void)data;
  ((decode_sink_t *)ctx)->payload_bytes += n;
}

static void sink_end(void *ctx, utvm_frame_status_t status) {
  if (status == UTVM_FRAME_OK) {
    ((decode_sink_t *)ctx)->packets_ok++;
  }
}

static void fill_payload(uint8_t *payload, uint32_t size, int all_ff) {
  uint32_t state = 0x12345678u;
  for (uint32_t i = 0u; i < size; i++) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    payload[i] = all_ff ? 0xFFu : (uint8_t)(state >> 24);
  }
}

static int run_encode(const uint8_t *payload, uint32_t size) {
  uint64_t wire_bytes = 0u;
  utvm_framer_t framer;
  utvm_framer_init(&framer, count_write, &wire_bytes);
  if (utvm_framer_send(&framer, payload, size) != UTVM_OK) {
    return 1;
  }
  (void)printf("encode: %u payload bytes, %llu wire bytes\n", (unsigned)size,
               (unsigned long long)wire_bytes);
  return 0;
}

static int run_decode(const uint8_t *payload, uint32_t size) {
  /* Worst case: every byte escaped, plus prefix, start, length and CRC. */
  wire_buffer_t wire = {NULL, 0u, (2u * (size_t)size) + 16u};
  wire.data = (uint8_t *)malloc(wire.cap);
  if (wire.data == NULL) {
    return 1;
  }
  utvm_framer_t framer;
  utvm_framer_init(&framer, buffer_write, &wire);
  if (utvm_framer_send(&framer, payload, size) != UTVM_OK) {
    free(wire.data);
    return 1;
  }
  decode_sink_t sink = {0u, 0u};
  const utvm_unframer_handler_t handler = {NULL, sink_payload, sink_end, &sink};
  utvm_unframer_t unframer;
  utvm_unframer_init(&unframer, &handler, UINT32_MAX);
  for (size_t offset = 0u; offset < wire.len; offset += DECODE_CHUNK) {
    size_t n = (wire.len - offset < DECODE_CHUNK) ? (wire.len - offset) : DECODE_CHUNK;
    utvm_unframer_feed(&unframer, &wire.data[offset], n);
  }
  free(wire.data);
  if ((sink.packets_ok != 1u) || (sink.payload_bytes != size)) {
    return 1;
  }
  (void)printf("decode: %llu payload bytes, %u packet\n", (unsigned long long)sink.payload_bytes,
               (unsigned)sink.packets_ok);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 4 || (strcmp(argv[2], "random") != 0 && strcmp(argv[2], "ff") != 0)) {
    (void)fprintf(stderr, "usage: bench_framing <encode|decode> <random|ff> <payload bytes>\n");
    return 2;
  }
  uint32_t size = (uint32_t)strtoul(argv[3], NULL, 10);
  uint8_t *payload = (uint8_t *)malloc((size_t)size + 1u);
  if (payload == NULL) {
    return 1;
  }
  fill_payload(payload, size, strcmp(argv[2], "ff") == 0);
  int rc = 2;
  if (strcmp(argv[1], "encode") == 0) {
    rc = run_encode(payload, size);
  } else if (strcmp(argv[1], "decode") == 0) {
    rc = run_decode(payload, size);
  } else {
    (void)fprintf(stderr, "bench_framing: unknown mode %s\n", argv[1]);
  }
  free(payload);
  return rc;
}

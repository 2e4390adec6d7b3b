/*
 * Bare-metal program that uses the whole public API of the framing layer, linked by
 * bench/run.sh with --gc-sections so the map file shows what a firmware using framing links.
 */
#include <stdint.h>

#include "utvm/framing.h"

int main(void);

static volatile uint8_t wire_sink;
static volatile uint32_t payload_count;

static utvm_err_t sink_write(void *ctx, const uint8_t *data, size_t n) {
  (void)ctx;
  for (size_t i = 0u; i < n; i++) {
    wire_sink = data[i];
  }
  return UTVM_OK;
}

static void on_payload(void *ctx, const uint8_t *data, size_t n) {
  (void)ctx;
  (void)data;
  payload_count += (uint32_t)n;
}

static void on_start(void *ctx, uint32_t payload_len) {
  (void)ctx;
  payload_count = payload_len;
}

static void on_end(void *ctx, utvm_frame_status_t status) {
  (void)ctx;
  payload_count += (uint32_t)status;
}

int main(void) {
  static utvm_framer_t framer;
  static utvm_unframer_t unframer;
  static const uint8_t payload[3] = {1u, 2u, 3u};
  static const uint8_t wire[11] = {0xFFu, 0xFDu, 3u, 0u, 0u, 0u, 1u, 2u, 3u, 0x15u, 0x36u};
  const utvm_unframer_handler_t handler = {on_start, on_payload, on_end, NULL};

  utvm_framer_init(&framer, sink_write, NULL);
  int failures = (utvm_framer_send(&framer, payload, sizeof(payload)) != UTVM_OK) ? 1 : 0;
  failures += (utvm_framer_start(&framer, 1u) != UTVM_OK) ? 1 : 0;
  failures += (utvm_framer_write(&framer, payload, 1u) != UTVM_OK) ? 1 : 0;
  failures += (utvm_framer_finish(&framer) != UTVM_OK) ? 1 : 0;
  utvm_unframer_init(&unframer, &handler, 2048u);
  utvm_unframer_feed(&unframer, wire, sizeof(wire));
  failures += utvm_unframer_in_packet(&unframer) ? 1 : 0;
  utvm_unframer_reset(&unframer);
  failures += (utvm_crc16_update(UTVM_CRC16_INIT, payload, 1u) == 0u) ? 1 : 0;
  return failures;
}

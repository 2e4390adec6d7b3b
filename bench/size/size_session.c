/*
 * Bare-metal program that uses the whole public API of the session layer, linked by
 * bench/run.sh with --gc-sections so the map file shows what a firmware using sessions links.
 */
#include <stdint.h>

#include "utvm/session.h"

int main(void);

static volatile uint8_t wire_sink;
static volatile uint32_t event_count;

static utvm_err_t sink_write(void *ctx, const uint8_t *data, size_t n) {
  (void)ctx;
  for (size_t i = 0u; i < n; i++) {
    wire_sink = data[i];
  }
  return UTVM_OK;
}

static utvm_err_t fixed_random(void *ctx, uint8_t *buf, size_t n) {
  (void)ctx;
  for (size_t i = 0u; i < n; i++) {
    buf[i] = (uint8_t)(0xA5u + i);
  }
  return UTVM_OK;
}

static void on_event(void *ctx, utvm_session_event_t event) {
  (void)ctx;
  event_count += (uint32_t)event + 1u;
}

static void on_start(void *ctx, utvm_msg_type_t type, uint32_t body_len) {
  (void)ctx;
  event_count += (uint32_t)type + body_len;
}

static void on_data(void *ctx, const uint8_t *data, size_t n) {
  (void)ctx;
  (void)data;
  event_count += (uint32_t)n;
}

static void on_end(void *ctx, utvm_frame_status_t status) {
  (void)ctx;
  event_count += (uint32_t)status;
}

int main(void) {
  static utvm_session_t session;
  static const uint8_t init[12] = {0xFFu, 0xFDu, 4u,    0u,    0u,    0u,
                                   0x5Au, 0x00u, 0x00u, 0x01u, 0xBBu, 0xC4u};
  static const uint8_t body[2] = {1u, 2u};
  utvm_session_config_t config = {
      .role = UTVM_SESSION_ROLE_RESPONDER,
      .write = sink_write,
      .random = fixed_random,
      .handler = {.event = on_event, .message_start = on_start, .message_data = on_data,
                  .message_end = on_end},
      .max_rx_payload = 2048u,
  };
  int failures = (utvm_session_init(&session, &config) != UTVM_OK) ? 1 : 0;
  failures += (utvm_session_send_terminate(&session) != UTVM_OK) ? 1 : 0;
  utvm_session_feed(&session, init, sizeof(init));
  failures += (utvm_session_send_log(&session, "boot", 4u) != UTVM_OK) ? 1 : 0;
  failures += (utvm_session_message_begin(&session, sizeof(body)) != UTVM_OK) ? 1 : 0;
  failures += (utvm_session_message_write(&session, body, sizeof(body)) != UTVM_OK) ? 1 : 0;
  failures += (utvm_session_message_end(&session) != UTVM_OK) ? 1 : 0;
  failures += (utvm_session_state(&session) != UTVM_SESSION_STATE_ESTABLISHED) ? 1 : 0;
  failures += (utvm_session_id(&session) == 0u) ? 1 : 0;
  utvm_session_stats_t stats;
  utvm_unframer_stats_t framing;
  utvm_session_get_stats(&session, &stats, &framing);
  failures += (stats.handshakes != 1u) ? 1 : 0;
  config.role = UTVM_SESSION_ROLE_INITIATOR;
  failures += (utvm_session_init(&session, &config) != UTVM_OK) ? 1 : 0;
  failures += (utvm_session_start(&session) != UTVM_OK) ? 1 : 0;
  return failures;
}

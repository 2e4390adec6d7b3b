/*
 * libFuzzer target for a responder (device) session.
 *
 * Input (fuzz_input.h): chunking byte (bit 7: the transport write callback fails on every
 * third call), a byte that is the first random byte the nonce hook returns (0: the hook
 * fails), then the bytes received from the host.
 *
 * Checked on every input:
 *  - message_start / message_data / message_end pair up, data stays within the announced
 *    body length, an OK message streamed exactly that length, only Normal and Log messages
 *    reach the handler and Normal ones only in an established session;
 *  - the counters agree with the callbacks;
 *  - everything the session sends decodes as well-formed frames: StartSessionReply with
 *    both nonces set and version 1, or TerminateSession with sid 0 (when writes never fail,
 *    no frame is corrupt);
 *  - recovery: after the fuzz input, a host that sends 0xfe, TerminateSession,
 *    StartSessionInit and a Normal message gets a reply to its init and its message is
 *    delivered -- no input can wedge the session.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "utvm/framing.h"
#include "utvm/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RX_PAYLOAD 2048u
#define RECOVERY_INIT_NONCE 0x5Au

typedef struct {
  fuzz_bytes_t out;
  bool failing;      /* fail every third write */
  uint32_t calls;
} transport_t;

typedef struct {
  bool broken;       /* the hook reports failure */
  bool first_pending;
  uint8_t first;
  uint32_t state;
} nonce_source_t;

typedef struct {
  utvm_session_t *session;
  bool open;
  utvm_msg_type_t type;
  uint32_t body_len;
  uint32_t received;
  uint32_t delivered;
  uint32_t established_events;
  uint32_t terminated_events;
  fuzz_bytes_t last_body;
} probe_t;

static utvm_err_t transport_write(void *ctx, const uint8_t *data, size_t n) {
  transport_t *t = (transport_t *)ctx;
  FUZZ_CHECK(n > 0u && data != NULL);
  t->calls++;
  if (t->failing && (t->calls % 3u) == 0u) {
    return UTVM_ERR_WRITE_FAILED;
  }
  fuzz_bytes_append(&t->out, data, n);
  return UTVM_OK;
}

static utvm_err_t nonce_random(void *ctx, uint8_t *buf, size_t n) {
  nonce_source_t *s = (nonce_source_t *)ctx;
  if (s->broken) {
    return UTVM_ERR_SESSION_NO_RANDOM;
  }
  for (size_t i = 0u; i < n; i++) {
    if (s->first_pending) {
      buf[i] = s->first;
      s->first_pending = false;
    } else {
      s->state ^= s->state << 13;
      s->state ^= s->state >> 17;
      s->state ^= s->state << 5;
      buf[i] = (uint8_t)(s->state >> 24);
    }
  }
  return UTVM_OK;
}

static void probe_event(void *ctx, utvm_session_event_t event) {
  probe_t *p = (probe_t *)ctx;
  if (event == UTVM_SESSION_EVENT_ESTABLISHED) {
    p->established_events++;
    FUZZ_CHECK(utvm_session_state(p->session) == UTVM_SESSION_STATE_ESTABLISHED);
    uint16_t sid = utvm_session_id(p->session);
    FUZZ_CHECK((sid & 0xFFu) != 0u && (sid >> 8) != 0u);
  } else {
    FUZZ_CHECK(event == UTVM_SESSION_EVENT_TERMINATED);
    p->terminated_events++;
    FUZZ_CHECK(utvm_session_state(p->session) != UTVM_SESSION_STATE_ESTABLISHED);
  }
}

static void probe_message_start(void *ctx, utvm_msg_type_t type, uint32_t body_len) {
  probe_t *p = (probe_t *)ctx;
  FUZZ_CHECK(!p->open);
  FUZZ_CHECK(type == UTVM_MSG_NORMAL || type == UTVM_MSG_LOG);
  if (type == UTVM_MSG_NORMAL) {
    FUZZ_CHECK(utvm_session_state(p->session) == UTVM_SESSION_STATE_ESTABLISHED);
  }
  FUZZ_CHECK(body_len <= MAX_RX_PAYLOAD - UTVM_SESSION_HEADER_SIZE);
  p->open = true;
  p->type = type;
  p->body_len = body_len;
  p->received = 0u;
  p->last_body.len = 0u;
}

static void probe_message_data(void *ctx, const uint8_t *data, size_t n) {
  probe_t *p = (probe_t *)ctx;
  FUZZ_CHECK(p->open);
  FUZZ_CHECK(data != NULL);
  FUZZ_CHECK(n <= (size_t)(p->body_len - p->received));
  p->received += (uint32_t)n;
  fuzz_bytes_append(&p->last_body, data, n);
}

static void probe_message_end(void *ctx, utvm_frame_status_t status) {
  probe_t *p = (probe_t *)ctx;
  FUZZ_CHECK(p->open);
  p->open = false;
  if (status == UTVM_FRAME_OK) {
    FUZZ_CHECK(p->received == p->body_len);
    p->delivered++;
  }
}

/* Decoder of what the session sent: collects each OK frame's payload. */
typedef struct {
  fuzz_bytes_t payload;
  uint32_t frames_ok;
  uint32_t replies;
  uint16_t last_reply_sid;
} output_check_t;

static void out_start(void *ctx, uint32_t payload_len) {
  (void)payload_len;
  ((output_check_t *)ctx)->payload.len = 0u;
}

static void out_payload(void *ctx, const uint8_t *data, size_t n) {
  fuzz_bytes_append(&((output_check_t *)ctx)->payload, data, n);
}

static void out_end(void *ctx, utvm_frame_status_t status) {
  output_check_t *c = (output_check_t *)ctx;
  if (status != UTVM_FRAME_OK) {
    return;
  }
  c->frames_ok++;
  const uint8_t *m = c->payload.data;
  FUZZ_CHECK(c->payload.len >= UTVM_SESSION_HEADER_SIZE);
  FUZZ_CHECK(c->payload.len <= UTVM_SESSION_TVM_HOST_MAX_MESSAGE);
  if (m[2] == (uint8_t)UTVM_MSG_START_SESSION_REPLY) {
    FUZZ_CHECK(c->payload.len == UTVM_SESSION_HEADER_SIZE + 1u);
    FUZZ_CHECK(m[0] != 0u && m[1] != 0u && m[3] == UTVM_SESSION_VERSION);
    c->replies++;
    c->last_reply_sid = (uint16_t)(m[0] | ((uint16_t)m[1] << 8));
  } else {
    FUZZ_CHECK(m[2] == (uint8_t)UTVM_MSG_TERMINATE_SESSION);
    FUZZ_CHECK(c->payload.len == UTVM_SESSION_HEADER_SIZE && m[0] == 0u && m[1] == 0u);
  }
}

/* Decodes everything in out; when clean, requires that no frame was corrupt. */
static void check_output(const fuzz_bytes_t *out, bool clean, output_check_t *result) {
  (void)memset(result, 0, sizeof(*result));
  const utvm_unframer_handler_t handler = {out_start, out_payload, out_end, result};
  utvm_unframer_t decoder;
  utvm_unframer_init(&decoder, &handler, UINT32_MAX);
  utvm_unframer_feed(&decoder, out->data, out->len);
  FUZZ_CHECK(!utvm_unframer_in_packet(&decoder) || !clean);
  if (clean) {
    FUZZ_CHECK(decoder.stats.crc_errors == 0u && decoder.stats.short_packets == 0u &&
               decoder.stats.invalid_escapes == 0u);
  }
  fuzz_bytes_free(&result->payload);
}

static utvm_err_t append_write(void *ctx, const uint8_t *data, size_t n) {
  fuzz_bytes_append((fuzz_bytes_t *)ctx, data, n);
  return UTVM_OK;
}

/* Frames one session message the way a TVM host does (first packet after 0xfe). */
static void frame_message(fuzz_bytes_t *wire, const uint8_t *payload, uint32_t len) {
  utvm_framer_t framer;
  utvm_framer_init(&framer, append_write, wire);
  FUZZ_CHECK(utvm_framer_send(&framer, payload, len) == UTVM_OK);
}

static void check_recovery(utvm_session_t *session, probe_t *probe, transport_t *transport,
                           nonce_source_t *nonces) {
  transport->failing = false;
  transport->out.len = 0u;
  nonces->broken = false;

  static const uint8_t terminate[] = {0x00u, 0x00u, (uint8_t)UTVM_MSG_TERMINATE_SESSION};
  static const uint8_t init[] = {RECOVERY_INIT_NONCE, 0x00u,
                                 (uint8_t)UTVM_MSG_START_SESSION_INIT, UTVM_SESSION_VERSION};
  fuzz_bytes_t wire = {NULL, 0u, 0u};
  frame_message(&wire, terminate, sizeof(terminate));
  frame_message(&wire, init, sizeof(init));
  utvm_session_feed(session, wire.data, wire.len);

  FUZZ_CHECK(!probe->open);
  FUZZ_CHECK(utvm_session_state(session) == UTVM_SESSION_STATE_ESTABLISHED);
  uint16_t sid = utvm_session_id(session);
  FUZZ_CHECK((sid & 0xFFu) == RECOVERY_INIT_NONCE && (sid >> 8) != 0u);
  output_check_t sent;
  check_output(&transport->out, true, &sent);
  FUZZ_CHECK(sent.replies >= 1u && sent.last_reply_sid == sid);

  static const uint8_t body[] = {'u', 't', 'v', 'm', 0xFFu};
  uint8_t normal[UTVM_SESSION_HEADER_SIZE + sizeof(body)];
  normal[0] = (uint8_t)sid;
  normal[1] = (uint8_t)(sid >> 8);
  normal[2] = (uint8_t)UTVM_MSG_NORMAL;
  (void)memcpy(&normal[UTVM_SESSION_HEADER_SIZE], body, sizeof(body));
  wire.len = 0u;
  frame_message(&wire, normal, sizeof(normal));
  uint32_t delivered_before = probe->delivered;
  utvm_session_feed(session, wire.data, wire.len);
  FUZZ_CHECK(!probe->open);
  FUZZ_CHECK(probe->delivered == delivered_before + 1u);
  FUZZ_CHECK(probe->type == UTVM_MSG_NORMAL && probe->body_len == sizeof(body));
  FUZZ_CHECK(probe->last_body.len == sizeof(body) &&
             memcmp(probe->last_body.data, body, sizeof(body)) == 0);
  fuzz_bytes_free(&wire);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input_t in;
  if (!fuzz_input_init(&in, data, size)) {
    return 0;
  }
  transport_t transport;
  (void)memset(&transport, 0, sizeof(transport));
  transport.failing = in.fault;
  nonce_source_t nonces = {in.param == 0u, true, in.param, 0xC0FFEE11u ^ in.param};
  utvm_session_t session;
  probe_t probe;
  (void)memset(&probe, 0, sizeof(probe));
  probe.session = &session;

  utvm_session_config_t config;
  (void)memset(&config, 0, sizeof(config));
  config.role = UTVM_SESSION_ROLE_RESPONDER;
  config.write = transport_write;
  config.write_ctx = &transport;
  config.random = nonce_random;
  config.random_ctx = &nonces;
  config.handler.event = probe_event;
  config.handler.message_start = probe_message_start;
  config.handler.message_data = probe_message_data;
  config.handler.message_end = probe_message_end;
  config.handler.ctx = &probe;
  config.max_rx_payload = MAX_RX_PAYLOAD;
  FUZZ_CHECK(utvm_session_init(&session, &config) == UTVM_OK);

  const uint8_t *chunk = NULL;
  size_t n = fuzz_input_next_chunk(&in, &chunk);
  while (n > 0u) {
    utvm_session_feed(&session, chunk, n);
    n = fuzz_input_next_chunk(&in, &chunk);
  }

  utvm_session_stats_t stats;
  utvm_unframer_stats_t framing;
  utvm_session_get_stats(&session, &stats, &framing);
  FUZZ_CHECK(stats.messages_delivered == probe.delivered);
  FUZZ_CHECK(stats.handshakes == probe.established_events);
  FUZZ_CHECK(stats.terminates_received >= probe.terminated_events);
  FUZZ_CHECK(framing.packets_ok >= probe.delivered);
  output_check_t sent;
  check_output(&transport.out, !in.fault, &sent);
  if (!in.fault) {
    FUZZ_CHECK(sent.replies == stats.handshakes);
  }

  check_recovery(&session, &probe, &transport, &nonces);

  fuzz_bytes_free(&probe.last_body);
  fuzz_bytes_free(&transport.out);
  return 0;
}

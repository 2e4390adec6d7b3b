/* Session layer: conformance with vectors/session.json (converted to session_vectors.h at
 * build time), handshake and state transitions in both roles, robustness against
 * unexpected traffic, limits, and two sessions talking to each other. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "session_vectors.h"
#include "test_support.h"
#include "utvm/session.h"

/* ------------------------------------------------------------------ helpers */

/* A session with its transport output, its upward events and its random source. */
typedef struct {
  utvm_session_t session;
  test_pipe_t out;
  test_recorder_t rec;
  test_random_t random;
} endpoint_t;

static void endpoint_init_limits(endpoint_t *e, utvm_session_role_t role, uint8_t random_value,
                                 uint32_t max_rx, uint32_t max_tx) {
  test_pipe_init(&e->out);
  test_recorder_init(&e->rec);
  e->random.value = random_value;
  e->random.fail = false;
  e->random.calls = 0u;
  utvm_session_config_t config;
  memset(&config, 0, sizeof(config));
  config.role = role;
  config.write = test_pipe_write;
  config.write_ctx = &e->out;
  config.random = test_random_fill;
  config.random_ctx = &e->random;
  config.handler = test_recorder_session_handler(&e->rec);
  config.max_rx_payload = max_rx;
  config.max_tx_payload = max_tx;
  assert_int_equal(utvm_session_init(&e->session, &config), UTVM_OK);
}

static void endpoint_init(endpoint_t *e, utvm_session_role_t role, uint8_t random_value) {
  endpoint_init_limits(e, role, random_value, 0u, 0u);
}

static void endpoint_free(endpoint_t *e) {
  test_pipe_free(&e->out);
  test_recorder_free(&e->rec);
}

static void endpoint_clear(endpoint_t *e) {
  test_bytes_clear(&e->out.bytes);
  test_recorder_clear(&e->rec);
}

static utvm_session_stats_t stats_of(const endpoint_t *e) {
  utvm_session_stats_t stats;
  utvm_session_get_stats(&e->session, &stats, NULL);
  return stats;
}

/* How many times e reported the session event. */
static size_t session_events(const endpoint_t *e, utvm_session_event_t event) {
  return test_recorder_count(&e->rec, TEST_EV_SESSION_EVENT, (uint32_t)event);
}

static utvm_unframer_stats_t framing_stats_of(const endpoint_t *e) {
  utvm_unframer_stats_t stats;
  utvm_session_get_stats(&e->session, NULL, &stats);
  return stats;
}

static void feed(endpoint_t *e, const uint8_t *data, size_t n) {
  utvm_session_feed(&e->session, data, n);
}

static bool bytes_same(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len) {
  return (a_len == b_len) && ((a_len == 0u) || (memcmp(a, b, a_len) == 0));
}

static const session_vector_t *vector(const char *name) {
  const session_vector_t *v = session_vectors_find(name);
  if (v == NULL) {
    fail_msg("session.json has no vector %s", name);
  }
  return v;
}

/* The vector's session fields, read from its payload. */
static uint16_t vector_sid(const session_vector_t *v) {
  assert_true(v->payload_len >= UTVM_SESSION_HEADER_SIZE);
  return (uint16_t)(v->payload[0] | (v->payload[1] << 8));
}

static const uint8_t *vector_body(const session_vector_t *v) {
  return &v->payload[UTVM_SESSION_HEADER_SIZE];
}

static size_t vector_body_len(const session_vector_t *v) {
  return v->payload_len - UTVM_SESSION_HEADER_SIZE;
}

static void assert_output(const endpoint_t *e, const uint8_t *expected, size_t len,
                          const char *what) {
  if (!test_bytes_equal(&e->out.bytes, expected, len)) {
    print_error("%s: sent %zu bytes, expected %zu\n", what, e->out.bytes.len, len);
    fail();
  }
}

/* Frames header + body (CRC xor-ed with crc_xor) with the reference encoder. */
static void frame_message(test_bytes_t *out, uint16_t sid, uint8_t type, const uint8_t *body,
                          size_t len, uint16_t crc_xor) {
  test_bytes_t payload;
  test_bytes_init(&payload);
  test_bytes_push(&payload, (uint8_t)sid);
  test_bytes_push(&payload, (uint8_t)(sid >> 8));
  test_bytes_push(&payload, type);
  test_bytes_append(&payload, body, len);
  test_encode_packet(out, payload.data, payload.len, TEST_NO_NOP, crc_xor);
  test_bytes_free(&payload);
}

static void feed_message(endpoint_t *e, uint16_t sid, uint8_t type, const uint8_t *body,
                         size_t len) {
  test_bytes_t wire;
  test_bytes_init(&wire);
  frame_message(&wire, sid, type, body, len, 0u);
  feed(e, wire.data, wire.len);
  test_bytes_free(&wire);
}

static const uint8_t version_byte[1] = {UTVM_SESSION_VERSION};

static void feed_init(endpoint_t *e, uint8_t initiator_nonce) {
  feed_message(e, initiator_nonce, UTVM_MSG_START_SESSION_INIT, version_byte, 1u);
}

/* Decodes what e sent since the last clear: returns the number of packets, stores up to
 * max payloads (concatenated in payloads, lengths in lens). */
static size_t sent_packets(const endpoint_t *e, test_bytes_t *payloads, size_t *lens, size_t max) {
  test_bytes_clear(payloads);
  return test_decode_packets(e->out.bytes.data, e->out.bytes.len, payloads, lens, max);
}

/* Makes a responder established with the given nonces; clears its output and events. */
static void establish_responder(endpoint_t *e, uint8_t nh, uint8_t nd) {
  e->random.value = nd;
  feed_init(e, nh);
  assert_int_equal(utvm_session_state(&e->session), UTVM_SESSION_STATE_ESTABLISHED);
  assert_int_equal(utvm_session_id(&e->session), (uint16_t)(nh | (nd << 8)));
  endpoint_clear(e);
}

/* Asserts the recording holds exactly one message, ended OK, of the given type and body. */
static void assert_one_message(const endpoint_t *e, utvm_msg_type_t type, const uint8_t *body,
                               size_t len) {
  test_unit_t units[2];
  size_t count = test_recorder_units(&e->rec, units, 2u);
  if (count != 1u) {
    test_recorder_dump(&e->rec, "session events");
  }
  assert_int_equal(count, 1u);
  assert_int_equal(units[0].type, type);
  assert_int_equal(units[0].declared_len, len);
  assert_true(units[0].ended);
  assert_int_equal(units[0].status, UTVM_FRAME_OK);
  assert_true(bytes_same(units[0].data, units[0].len, body, len));
}

static void send_normal(endpoint_t *e, const uint8_t *body, size_t len) {
  assert_int_equal(utvm_session_message_begin(&e->session, (uint32_t)len), UTVM_OK);
  assert_int_equal(utvm_session_message_write(&e->session, body, len), UTVM_OK);
  assert_int_equal(utvm_session_message_end(&e->session), UTVM_OK);
}

static const uint8_t body3[3] = {0x0a, 0x0b, 0x0c};

/* ---------------------------------------------------------------- vectors */

/* A responder reproduces TVM's bytes: boot Terminate with the 0xfe prefix, the reply to
 * the 0x5a init with nonce 0xa5, a Normal message, Log "hi", a later Terminate; and it
 * receives TVM's Normal message. */
static void test_responder_vectors(void **state) {
  (void)state;
  const session_vector_t *terminate_first = vector("terminate_after_initialize_first_packet");
  const session_vector_t *terminate_idle = vector("terminate_idle_framer");
  const session_vector_t *init = vector("start_session_init_nonce_5a");
  const session_vector_t *reply = vector("start_session_reply_nonce_a5");
  const session_vector_t *normal = vector("normal_3_bytes_session_5aa5");
  const session_vector_t *log = vector("log_hi");
  assert_int_equal(reply->payload[2], UTVM_MSG_START_SESSION_REPLY);
  assert_int_equal(normal->payload[2], UTVM_MSG_NORMAL);
  assert_int_equal(log->payload[2], UTVM_MSG_LOG);

  endpoint_t r;
  endpoint_init(&r, UTVM_SESSION_ROLE_RESPONDER, reply->payload[1]);
  assert_int_equal(utvm_session_state(&r.session), UTVM_SESSION_STATE_RESET);
  assert_int_equal(utvm_session_send_terminate(&r.session), UTVM_OK);
  assert_output(&r, terminate_first->wire, terminate_first->wire_len, terminate_first->name);
  assert_int_equal(utvm_session_state(&r.session), UTVM_SESSION_STATE_NO_SESSION);

  endpoint_clear(&r);
  feed(&r, init->wire, init->wire_len);
  assert_output(&r, reply->wire, reply->wire_len, reply->name);
  assert_int_equal(utvm_session_state(&r.session), UTVM_SESSION_STATE_ESTABLISHED);
  assert_int_equal(utvm_session_id(&r.session), vector_sid(reply));
  assert_int_equal(r.rec.count, 1u);
  assert_int_equal(session_events(&r, UTVM_SESSION_EVENT_ESTABLISHED), 1u);
  assert_int_equal(stats_of(&r).handshakes, 1u);

  endpoint_clear(&r);
  send_normal(&r, vector_body(normal), vector_body_len(normal));
  assert_output(&r, normal->wire, normal->wire_len, normal->name);

  endpoint_clear(&r);
  assert_int_equal(utvm_session_send_log(&r.session, (const char *)vector_body(log),
                                         vector_body_len(log)), UTVM_OK);
  assert_output(&r, log->wire, log->wire_len, log->name);

  feed(&r, normal->wire, normal->wire_len);
  assert_one_message(&r, UTVM_MSG_NORMAL, vector_body(normal), vector_body_len(normal));
  assert_int_equal(stats_of(&r).messages_delivered, 1u);

  endpoint_clear(&r);
  assert_int_equal(utvm_session_send_terminate(&r.session), UTVM_OK);
  assert_output(&r, terminate_idle->wire, terminate_idle->wire_len, terminate_idle->name);
  assert_int_equal(utvm_session_state(&r.session), UTVM_SESSION_STATE_NO_SESSION);
  assert_int_equal(utvm_session_id(&r.session), 0u);
  endpoint_free(&r);
}

/* A responder that never sent anything puts the 0xfe before its first reply. */
static void test_responder_first_reply_has_prefix(void **state) {
  (void)state;
  const session_vector_t *init = vector("start_session_init_nonce_5a");
  const session_vector_t *reply = vector("start_session_reply_nonce_a5");
  endpoint_t r;
  endpoint_init(&r, UTVM_SESSION_ROLE_RESPONDER, reply->payload[1]);
  feed(&r, init->wire, init->wire_len);
  assert_int_equal(r.out.bytes.len, reply->wire_len + 1u);
  assert_int_equal(r.out.bytes.data[0], 0xFEu);
  assert_true(bytes_same(&r.out.bytes.data[1], r.out.bytes.len - 1u, reply->wire, reply->wire_len));
  endpoint_free(&r);
}

/* An initiator reproduces TVM's host bytes: Terminate (with 0xfe) + Init for nonces 0x41
 * and 0x5a; it accepts TVM's reply, sends and receives Normal, receives Log "hi", honours
 * a Terminate, and a retry sends Terminate + Init without the prefix. */
static void test_initiator_vectors(void **state) {
  (void)state;
  const session_vector_t *terminate_first = vector("terminate_after_initialize_first_packet");
  const session_vector_t *terminate_idle = vector("terminate_idle_framer");
  const session_vector_t *init_5a = vector("start_session_init_nonce_5a");
  const session_vector_t *init_41 = vector("start_session_init_from_tvm_initiator");
  const session_vector_t *reply = vector("start_session_reply_nonce_a5");
  const session_vector_t *normal = vector("normal_3_bytes_session_5aa5");
  const session_vector_t *log = vector("log_hi");
  test_bytes_t expected;
  test_bytes_init(&expected);

  endpoint_t a;
  endpoint_init(&a, UTVM_SESSION_ROLE_INITIATOR, init_41->payload[0]);
  assert_int_equal(utvm_session_start(&a.session), UTVM_OK);
  test_bytes_append(&expected, terminate_first->wire, terminate_first->wire_len);
  test_bytes_append(&expected, init_41->wire, init_41->wire_len);
  assert_output(&a, expected.data, expected.len, init_41->name);
  assert_int_equal(utvm_session_state(&a.session), UTVM_SESSION_STATE_INIT_SENT);
  assert_int_equal(utvm_session_id(&a.session), 0u);
  endpoint_free(&a);

  endpoint_t b;
  endpoint_init(&b, UTVM_SESSION_ROLE_INITIATOR, init_5a->payload[0]);
  assert_int_equal(utvm_session_start(&b.session), UTVM_OK);
  test_bytes_clear(&expected);
  test_bytes_append(&expected, terminate_first->wire, terminate_first->wire_len);
  test_bytes_append(&expected, init_5a->wire, init_5a->wire_len);
  assert_output(&b, expected.data, expected.len, init_5a->name);

  endpoint_clear(&b);
  feed(&b, reply->wire, reply->wire_len);
  assert_int_equal(utvm_session_state(&b.session), UTVM_SESSION_STATE_ESTABLISHED);
  assert_int_equal(utvm_session_id(&b.session), vector_sid(reply));
  assert_int_equal(session_events(&b, UTVM_SESSION_EVENT_ESTABLISHED), 1u);
  assert_int_equal(b.out.bytes.len, 0u);

  endpoint_clear(&b);
  send_normal(&b, vector_body(normal), vector_body_len(normal));
  assert_output(&b, normal->wire, normal->wire_len, normal->name);

  endpoint_clear(&b);
  feed(&b, log->wire, log->wire_len);
  assert_one_message(&b, UTVM_MSG_LOG, vector_body(log), vector_body_len(log));
  endpoint_clear(&b);
  feed(&b, normal->wire, normal->wire_len);
  assert_one_message(&b, UTVM_MSG_NORMAL, vector_body(normal), vector_body_len(normal));

  endpoint_clear(&b);
  feed(&b, terminate_idle->wire, terminate_idle->wire_len);
  assert_int_equal(utvm_session_state(&b.session), UTVM_SESSION_STATE_NO_SESSION);
  assert_int_equal(b.rec.count, 1u);
  assert_int_equal(session_events(&b, UTVM_SESSION_EVENT_TERMINATED), 1u);
  assert_int_equal(stats_of(&b).terminates_received, 1u);

  endpoint_clear(&b);
  b.random.value = init_41->payload[0];
  assert_int_equal(utvm_session_start(&b.session), UTVM_OK);
  test_bytes_clear(&expected);
  test_bytes_append(&expected, terminate_idle->wire, terminate_idle->wire_len);
  test_bytes_append(&expected, init_41->wire, init_41->wire_len);
  assert_output(&b, expected.data, expected.len, "retry");
  endpoint_free(&b);
  test_bytes_free(&expected);
}

/* ------------------------------------------------------------ responder states */

/* The reply to an init carries the initiator nonce, a fresh responder nonce and version 1;
 * a second init replaces the session, after which the old sid's traffic is dropped. */
static void test_responder_reinit_replaces_session(void **state) {
  (void)state;
  test_bytes_t payloads;
  test_bytes_init(&payloads);
  size_t lens[4];
  endpoint_t r;
  endpoint_init(&r, UTVM_SESSION_ROLE_RESPONDER, 0x22u);
  assert_int_equal(utvm_session_send_terminate(&r.session), UTVM_OK);
  endpoint_clear(&r);

  feed_init(&r, 0x11u);
  assert_int_equal(sent_packets(&r, &payloads, lens, 4u), 1u);
  static const uint8_t reply1[4] = {0x11, 0x22, UTVM_MSG_START_SESSION_REPLY, UTVM_SESSION_VERSION};
  assert_true(bytes_same(payloads.data, lens[0], reply1, sizeof(reply1)));
  assert_int_equal(utvm_session_id(&r.session), 0x2211u);

  endpoint_clear(&r);
  r.random.value = 0x33u;
  feed_init(&r, 0x44u);
  assert_int_equal(sent_packets(&r, &payloads, lens, 4u), 1u);
  static const uint8_t reply2[4] = {0x44, 0x33, UTVM_MSG_START_SESSION_REPLY, UTVM_SESSION_VERSION};
  assert_true(bytes_same(payloads.data, lens[0], reply2, sizeof(reply2)));
  assert_int_equal(utvm_session_state(&r.session), UTVM_SESSION_STATE_ESTABLISHED);
  assert_int_equal(utvm_session_id(&r.session), 0x3344u);
  assert_int_equal(session_events(&r, UTVM_SESSION_EVENT_ESTABLISHED), 1u);
  assert_int_equal(stats_of(&r).handshakes, 2u);

  endpoint_clear(&r);
  feed_message(&r, 0x2211u, UTVM_MSG_NORMAL, body3, sizeof(body3));
  assert_int_equal(r.rec.count, 0u);
  assert_int_equal(stats_of(&r).dropped_wrong_sid, 1u);
  feed_message(&r, 0x3344u, UTVM_MSG_NORMAL, body3, sizeof(body3));
  assert_one_message(&r, UTVM_MSG_NORMAL, body3, sizeof(body3));
  assert_int_equal(r.out.bytes.len, 0u);
  endpoint_free(&r);
  test_bytes_free(&payloads);
}

/* A Terminate ends an established session (TERMINATED event, NO_SESSION) and Normal
 * traffic is dropped afterwards; a Terminate without a session changes nothing. */
static void test_terminate_while_established(void **state) {
  (void)state;
  endpoint_t r;
  endpoint_init(&r, UTVM_SESSION_ROLE_RESPONDER, 0x22u);
  feed_message(&r, 0u, UTVM_MSG_TERMINATE_SESSION, NULL, 0u);
  assert_int_equal(r.rec.count, 0u);
  assert_int_equal(r.out.bytes.len, 0u);

  establish_responder(&r, 0x11u, 0x22u);
  feed_message(&r, 0u, UTVM_MSG_TERMINATE_SESSION, NULL, 0u);
  assert_int_equal(utvm_session_state(&r.session), UTVM_SESSION_STATE_NO_SESSION);
  assert_int_equal(utvm_session_id(&r.session), 0u);
  assert_int_equal(r.rec.count, 1u);
  assert_int_equal(session_events(&r, UTVM_SESSION_EVENT_TERMINATED), 1u);
  assert_int_equal(r.out.bytes.len, 0u);

  endpoint_clear(&r);
  feed_message(&r, 0x2211u, UTVM_MSG_NORMAL, body3, sizeof(body3));
  assert_int_equal(r.rec.count, 0u);
  assert_int_equal(stats_of(&r).dropped_no_session, 1u);
  feed_message(&r, 0u, UTVM_MSG_TERMINATE_SESSION, NULL, 0u);
  assert_int_equal(r.rec.count, 0u);
  assert_int_equal(utvm_session_state(&r.session), UTVM_SESSION_STATE_NO_SESSION);
  endpoint_free(&r);
}

/* Normal messages before any session and after a Terminate are dropped and counted. */
static void test_normal_without_session_dropped(void **state) {
  (void)state;
  endpoint_t r;
  endpoint_init(&r, UTVM_SESSION_ROLE_RESPONDER, 0x22u);
  feed_message(&r, 0x2211u, UTVM_MSG_NORMAL, body3, sizeof(body3));
  feed_message(&r, 0u, UTVM_MSG_NORMAL, body3, sizeof(body3));
  assert_int_equal(utvm_session_send_terminate(&r.session), UTVM_OK);
  feed_message(&r, 0x2211u, UTVM_MSG_NORMAL, NULL, 0u);
  assert_int_equal(r.rec.count, 0u);
  assert_int_equal(stats_of(&r).dropped_no_session, 3u);
  assert_int_equal(stats_of(&r).messages_delivered, 0u);
  assert_int_equal(utvm_session_message_begin(&r.session, 1u), UTVM_ERR_SESSION_INVALID_STATE);
  endpoint_free(&r);
}

/* Normal and Log with a wrong sid are dropped; the next good message is delivered; Log is
 * accepted with sid 0 and with the current sid. */
static void test_wrong_sid_dropped(void **state) {
  (void)state;
  static const uint8_t text[2] = {'o', 'k'};
  endpoint_t r;
  endpoint_init(&r, UTVM_SESSION_ROLE_RESPONDER, 0x22u);
  establish_responder(&r, 0x11u, 0x22u);
  feed_message(&r, 0x2311u, UTVM_MSG_NORMAL, body3, sizeof(body3));
  feed_message(&r, 0x2212u, UTVM_MSG_NORMAL, body3, sizeof(body3));
  feed_message(&r, 0u, UTVM_MSG_NORMAL, body3, sizeof(body3));
  feed_message(&r, 0x1122u, UTVM_MSG_LOG, text, sizeof(text));
  assert_int_equal(r.rec.count, 0u);
  assert_int_equal(stats_of(&r).dropped_wrong_sid, 4u);

  feed_message(&r, 0x2211u, UTVM_MSG_NORMAL, body3, sizeof(body3));
  assert_one_message(&r, UTVM_MSG_NORMAL, body3, sizeof(body3));
  endpoint_clear(&r);
  feed_message(&r, 0u, UTVM_MSG_LOG, text, sizeof(text));
  assert_one_message(&r, UTVM_MSG_LOG, text, sizeof(text));
  endpoint_clear(&r);
  feed_message(&r, 0x2211u, UTVM_MSG_LOG, text, sizeof(text));
  assert_one_message(&r, UTVM_MSG_LOG, text, sizeof(text));
  assert_int_equal(stats_of(&r).messages_delivered, 3u);
  assert_int_equal(r.out.bytes.len, 0u);
  endpoint_free(&r);
}

/* Undefined message types are dropped even with the current sid. */
static void test_unknown_type_dropped(void **state) {
  (void)state;
  static const uint8_t types[] = {0x04, 0x0f, 0x11, 0x20, 0xff};
  endpoint_t r;
  endpoint_init(&r, UTVM_SESSION_ROLE_RESPONDER, 0x22u);
  establish_responder(&r, 0x11u, 0x22u);
  for (size_t i = 0u; i < sizeof(types); i++) {
    feed_message(&r, 0x2211u, types[i], body3, sizeof(body3));
  }
  assert_int_equal(r.rec.count, 0u);
  assert_int_equal(r.out.bytes.len, 0u);
  assert_int_equal(stats_of(&r).dropped_unknown_type, sizeof(types));
  assert_int_equal(utvm_session_state(&r.session), UTVM_SESSION_STATE_ESTABLISHED);
  feed_message(&r, 0x2211u, UTVM_MSG_NORMAL, body3, sizeof(body3));
  assert_one_message(&r, UTVM_MSG_NORMAL, body3, sizeof(body3));
  endpoint_free(&r);
}

/* Payloads shorter than the session header are dropped and counted. */
static void test_runt_dropped(void **state) {
  (void)state;
  static const uint8_t header[2] = {0x11, 0x22};
  test_bytes_t wire;
  test_bytes_init(&wire);
  endpoint_t r;
  endpoint_init(&r, UTVM_SESSION_ROLE_RESPONDER, 0x22u);
  establish_responder(&r, 0x11u, 0x22u);
  for (size_t len = 0u; len < UTVM_SESSION_HEADER_SIZE; len++) {
    test_encode_packet(&wire, header, len, TEST_NO_NOP, 0u);
  }
  feed(&r, wire.data, wire.len);
  assert_int_equal(r.rec.count, 0u);
  assert_int_equal(stats_of(&r).dropped_runt, 3u);
  feed_message(&r, 0x2211u, UTVM_MSG_NORMAL, body3, sizeof(body3));
  assert_one_message(&r, UTVM_MSG_NORMAL, body3, sizeof(body3));
  endpoint_free(&r);
  test_bytes_free(&wire);
}

/* Inits with nonce 0, with an empty body or with a bad CRC get no reply and change nothing;
 * a Terminate with a bad CRC does not end the session. */
static void test_bad_inits_dropped(void **state) {
  (void)state;
  test_bytes_t wire;
  test_bytes_init(&wire);
  endpoint_t r;
  endpoint_init(&r, UTVM_SESSION_ROLE_RESPONDER, 0x22u);
  feed_init(&r, 0u);
  feed_message(&r, 0x0011u, UTVM_MSG_START_SESSION_INIT, NULL, 0u);
  frame_message(&wire, 0x0011u, UTVM_MSG_START_SESSION_INIT, version_byte, 1u, 0x0040u);
  feed(&r, wire.data, wire.len);
  assert_int_equal(r.out.bytes.len, 0u);
  assert_int_equal(r.rec.count, 0u);
  assert_int_equal(utvm_session_state(&r.session), UTVM_SESSION_STATE_RESET);
  assert_int_equal(stats_of(&r).dropped_bad_handshake, 2u);
  assert_int_equal(framing_stats_of(&r).crc_errors, 1u);

  feed_init(&r, 0x11u);
  assert_int_equal(utvm_session_state(&r.session), UTVM_SESSION_STATE_ESTABLISHED);
  assert_int_equal(utvm_session_id(&r.session), 0x2211u);
  assert_true(r.out.bytes.len > 0u);

  endpoint_clear(&r);
  test_bytes_clear(&wire);
  frame_message(&wire, 0u, UTVM_MSG_TERMINATE_SESSION, NULL, 0u, 0x0100u);
  feed(&r, wire.data, wire.len);
  assert_int_equal(utvm_session_state(&r.session), UTVM_SESSION_STATE_ESTABLISHED);
  assert_int_equal(r.rec.count, 0u);
  endpoint_free(&r);
  test_bytes_free(&wire);
}

/* A Normal message with a bad CRC is streamed and then ended with BAD_CRC; nothing else is
 * affected and the next message is delivered. */
static void test_bad_crc_normal(void **state) {
  (void)state;
  test_bytes_t wire;
  test_bytes_init(&wire);
  endpoint_t r;
  endpoint_init(&r, UTVM_SESSION_ROLE_RESPONDER, 0x22u);
  establish_responder(&r, 0x11u, 0x22u);
  frame_message(&wire, 0x2211u, UTVM_MSG_NORMAL, body3, sizeof(body3), 0x1000u);
  feed(&r, wire.data, wire.len);
  test_unit_t units[2];
  assert_int_equal(test_recorder_units(&r.rec, units, 2u), 1u);
  assert_int_equal(units[0].type, UTVM_MSG_NORMAL);
  assert_true(units[0].ended);
  assert_int_equal(units[0].status, UTVM_FRAME_BAD_CRC);
  assert_int_equal(stats_of(&r).messages_delivered, 0u);
  assert_int_equal(framing_stats_of(&r).crc_errors, 1u);
  assert_int_equal(utvm_session_state(&r.session), UTVM_SESSION_STATE_ESTABLISHED);

  endpoint_clear(&r);
  feed_message(&r, 0x2211u, UTVM_MSG_NORMAL, body3, sizeof(body3));
  assert_one_message(&r, UTVM_MSG_NORMAL, body3, sizeof(body3));
  assert_int_equal(stats_of(&r).messages_delivered, 1u);
  endpoint_free(&r);
  test_bytes_free(&wire);
}

/* A Normal message cut off by the next packet start ends with TRUNCATED; one cut inside
 * its header produces no message events; the following message is delivered. */
static void test_truncated_normal(void **state) {
  (void)state;
  test_bytes_t wire;
  test_bytes_init(&wire);
  endpoint_t r;
  endpoint_init(&r, UTVM_SESSION_ROLE_RESPONDER, 0x22u);
  establish_responder(&r, 0x11u, 0x22u);
  frame_message(&wire, 0x2211u, UTVM_MSG_NORMAL, body3, sizeof(body3), 0u);
  feed(&r, wire.data, 6u + UTVM_SESSION_HEADER_SIZE + 2u); /* start, length, header, 2 bytes */
  feed(&r, wire.data, 6u + 2u);                            /* start, length, 2 header bytes */
  feed(&r, wire.data, wire.len);
  test_unit_t units[3];
  assert_int_equal(test_recorder_units(&r.rec, units, 3u), 2u);
  assert_true(units[0].ended);
  assert_int_equal(units[0].status, UTVM_FRAME_TRUNCATED);
  assert_true(bytes_same(units[0].data, units[0].len, body3, 2u));
  assert_true(units[1].ended);
  assert_int_equal(units[1].status, UTVM_FRAME_OK);
  assert_true(bytes_same(units[1].data, units[1].len, body3, sizeof(body3)));
  assert_int_equal(framing_stats_of(&r).short_packets, 2u);
  assert_int_equal(stats_of(&r).messages_delivered, 1u);
  endpoint_free(&r);
  test_bytes_free(&wire);
}

/* A framing payload above max_rx_payload is skipped by the decoder; one at the limit is
 * delivered. */
static void test_max_rx_payload(void **state) {
  (void)state;
  uint8_t body[64];
  memset(body, 0x5A, sizeof(body));
  endpoint_t r;
  endpoint_init_limits(&r, UTVM_SESSION_ROLE_RESPONDER, 0x22u, 64u, 0u);
  establish_responder(&r, 0x11u, 0x22u);
  feed_message(&r, 0x2211u, UTVM_MSG_NORMAL, body, 64u - UTVM_SESSION_HEADER_SIZE + 1u);
  assert_int_equal(r.rec.count, 0u);
  assert_int_equal(framing_stats_of(&r).length_overflows, 1u);
  feed_message(&r, 0x2211u, UTVM_MSG_NORMAL, body, 64u - UTVM_SESSION_HEADER_SIZE);
  assert_one_message(&r, UTVM_MSG_NORMAL, body, 64u - UTVM_SESSION_HEADER_SIZE);
  endpoint_free(&r);
}

/* ------------------------------------------------------------ initiator checks */

/* start() sends Terminate then Init; only a reply with the matching initiator nonce,
 * version 1 and a non-zero responder nonce is accepted; stale replies are ignored. */
static void test_initiator_reply_checks(void **state) {
  (void)state;
  static const uint8_t version2[1] = {0x02};
  test_bytes_t payloads;
  test_bytes_init(&payloads);
  test_bytes_t wire;
  test_bytes_init(&wire);
  size_t lens[4];
  endpoint_t a;
  endpoint_init(&a, UTVM_SESSION_ROLE_INITIATOR, 0x41u);
  assert_int_equal(utvm_session_start(&a.session), UTVM_OK);
  assert_int_equal(sent_packets(&a, &payloads, lens, 4u), 2u);
  static const uint8_t terminate[3] = {0x00, 0x00, UTVM_MSG_TERMINATE_SESSION};
  static const uint8_t init[4] = {0x41, 0x00, UTVM_MSG_START_SESSION_INIT, UTVM_SESSION_VERSION};
  assert_true(bytes_same(payloads.data, lens[0], terminate, sizeof(terminate)));
  assert_true(bytes_same(&payloads.data[lens[0]], lens[1], init, sizeof(init)));
  endpoint_clear(&a);

  feed_message(&a, 0x9942u, UTVM_MSG_START_SESSION_REPLY, version_byte, 1u); /* wrong nonce */
  feed_message(&a, 0x9941u, UTVM_MSG_START_SESSION_REPLY, version2, 1u);     /* version 2 */
  feed_message(&a, 0x0041u, UTVM_MSG_START_SESSION_REPLY, version_byte, 1u); /* Nd = 0 */
  feed_message(&a, 0x9941u, UTVM_MSG_START_SESSION_REPLY, NULL, 0u);         /* no version */
  frame_message(&wire, 0x9941u, UTVM_MSG_START_SESSION_REPLY, version_byte, 1u, 0x0002u);
  feed(&a, wire.data, wire.len); /* bad CRC */
  feed_message(&a, 0x9941u, UTVM_MSG_NORMAL, body3, sizeof(body3)); /* not a reply */
  assert_int_equal(utvm_session_state(&a.session), UTVM_SESSION_STATE_INIT_SENT);
  assert_int_equal(utvm_session_id(&a.session), 0u);
  assert_int_equal(a.rec.count, 0u);
  assert_int_equal(a.out.bytes.len, 0u);
  assert_int_equal(stats_of(&a).dropped_bad_handshake, 4u);

  feed_message(&a, 0x9941u, UTVM_MSG_START_SESSION_REPLY, version_byte, 1u);
  assert_int_equal(utvm_session_state(&a.session), UTVM_SESSION_STATE_ESTABLISHED);
  assert_int_equal(utvm_session_id(&a.session), 0x9941u);
  assert_int_equal(session_events(&a, UTVM_SESSION_EVENT_ESTABLISHED), 1u);
  assert_int_equal(a.out.bytes.len, 0u);

  /* Stale or mismatching replies leave the session alone. */
  endpoint_clear(&a);
  feed_message(&a, 0x7742u, UTVM_MSG_START_SESSION_REPLY, version_byte, 1u);
  feed_message(&a, 0x7741u, UTVM_MSG_START_SESSION_REPLY, version2, 1u);
  assert_int_equal(utvm_session_state(&a.session), UTVM_SESSION_STATE_ESTABLISHED);
  assert_int_equal(utvm_session_id(&a.session), 0x9941u);
  assert_int_equal(a.rec.count, 0u);
  feed_message(&a, 0x9941u, UTVM_MSG_NORMAL, body3, sizeof(body3));
  assert_one_message(&a, UTVM_MSG_NORMAL, body3, sizeof(body3));
  endpoint_free(&a);
  test_bytes_free(&payloads);
  test_bytes_free(&wire);
}

/* Each start() uses a new nonce (even if the random hook repeats itself); a reply to an
 * earlier init is then ignored and the reply to the latest one accepted. */
static void test_initiator_retry_uses_new_nonce(void **state) {
  (void)state;
  test_bytes_t payloads;
  test_bytes_init(&payloads);
  size_t lens[4];
  uint8_t nonces[3];
  endpoint_t a;
  endpoint_init(&a, UTVM_SESSION_ROLE_INITIATOR, 0x41u);
  for (size_t attempt = 0u; attempt < 3u; attempt++) {
    if (attempt == 2u) {
      a.random.value = 0x77u;
    }
    endpoint_clear(&a);
    assert_int_equal(utvm_session_start(&a.session), UTVM_OK);
    assert_int_equal(sent_packets(&a, &payloads, lens, 4u), 2u);
    assert_int_equal(lens[0], 3u);
    assert_int_equal(payloads.data[2], UTVM_MSG_TERMINATE_SESSION);
    assert_int_equal(lens[1], 4u);
    assert_int_equal(payloads.data[3 + 2], UTVM_MSG_START_SESSION_INIT);
    nonces[attempt] = payloads.data[3];
    assert_int_not_equal(nonces[attempt], 0u);
    assert_int_equal(a.out.bytes.data[0], (attempt == 0u) ? 0xFEu : 0xFFu);
  }
  assert_int_not_equal(nonces[1], nonces[0]);
  assert_int_equal(nonces[2], 0x77u);
  endpoint_clear(&a);
  feed_message(&a, (uint16_t)(0x5500u | nonces[1]), UTVM_MSG_START_SESSION_REPLY, version_byte, 1u);
  feed_message(&a, (uint16_t)(0x5500u | nonces[0]), UTVM_MSG_START_SESSION_REPLY, version_byte, 1u);
  assert_int_equal(utvm_session_state(&a.session), UTVM_SESSION_STATE_INIT_SENT);
  feed_message(&a, 0x5577u, UTVM_MSG_START_SESSION_REPLY, version_byte, 1u);
  assert_int_equal(utvm_session_id(&a.session), 0x5577u);
  endpoint_free(&a);
  test_bytes_free(&payloads);
}

/* A random hook that returns zeros still yields non-zero nonces in both roles; a failing
 * hook makes start() fail and leaves a responder without a session. */
static void test_nonces_never_zero(void **state) {
  (void)state;
  test_bytes_t payloads;
  test_bytes_init(&payloads);
  size_t lens[4];
  endpoint_t a;
  endpoint_init(&a, UTVM_SESSION_ROLE_INITIATOR, 0x00u);
  for (int attempt = 0; attempt < 3; attempt++) {
    endpoint_clear(&a);
    assert_int_equal(utvm_session_start(&a.session), UTVM_OK);
    assert_int_equal(sent_packets(&a, &payloads, lens, 4u), 2u);
    assert_int_not_equal(payloads.data[3], 0u);
  }
  a.random.fail = true;
  assert_int_equal(utvm_session_start(&a.session), UTVM_ERR_SESSION_NO_RANDOM);
  assert_int_not_equal(utvm_session_state(&a.session), UTVM_SESSION_STATE_ESTABLISHED);
  endpoint_free(&a);

  endpoint_t r;
  endpoint_init(&r, UTVM_SESSION_ROLE_RESPONDER, 0x00u);
  for (uint8_t nh = 1u; nh <= 3u; nh++) {
    endpoint_clear(&r);
    feed_init(&r, nh);
    assert_int_equal(sent_packets(&r, &payloads, lens, 4u), 1u);
    assert_int_equal(payloads.data[0], nh);
    assert_int_not_equal(payloads.data[1], 0u);
    assert_int_equal(utvm_session_id(&r.session), (uint16_t)(nh | (payloads.data[1] << 8)));
  }
  endpoint_free(&r);

  endpoint_t f;
  endpoint_init(&f, UTVM_SESSION_ROLE_RESPONDER, 0x22u);
  f.random.fail = true;
  feed_init(&f, 0x11u);
  assert_int_not_equal(utvm_session_state(&f.session), UTVM_SESSION_STATE_ESTABLISHED);
  assert_int_equal(f.rec.count, 0u);
  endpoint_free(&f);
  test_bytes_free(&payloads);
}

/* --------------------------------------------------------- two live endpoints */

/* Moves everything each endpoint sent to the other until both are quiet; returns the
 * number of rounds that carried bytes. */
static size_t pump(endpoint_t *a, endpoint_t *b) {
  test_bytes_t a_out;
  test_bytes_t b_out;
  test_bytes_init(&a_out);
  test_bytes_init(&b_out);
  size_t rounds = 0u;
  while ((a->out.bytes.len > 0u) || (b->out.bytes.len > 0u)) {
    assert_true(rounds < 10u);
    test_bytes_clear(&a_out);
    test_bytes_clear(&b_out);
    test_bytes_append(&a_out, a->out.bytes.data, a->out.bytes.len);
    test_bytes_append(&b_out, b->out.bytes.data, b->out.bytes.len);
    test_bytes_clear(&a->out.bytes);
    test_bytes_clear(&b->out.bytes);
    feed(b, a_out.data, a_out.len);
    feed(a, b_out.data, b_out.len);
    rounds++;
  }
  test_bytes_free(&a_out);
  test_bytes_free(&b_out);
  return rounds;
}

static void assert_linked(endpoint_t *a, endpoint_t *b) {
  assert_int_equal(utvm_session_state(&a->session), UTVM_SESSION_STATE_ESTABLISHED);
  assert_int_equal(utvm_session_state(&b->session), UTVM_SESSION_STATE_ESTABLISHED);
  assert_int_equal(utvm_session_id(&a->session), utvm_session_id(&b->session));
  assert_int_equal(session_events(a, UTVM_SESSION_EVENT_ESTABLISHED), 1u);
  assert_int_equal(session_events(b, UTVM_SESSION_EVENT_ESTABLISHED), 1u);
  endpoint_clear(a);
  endpoint_clear(b);
  send_normal(a, body3, sizeof(body3));
  send_normal(b, body3, 2u);
  (void)pump(a, b);
  assert_one_message(b, UTVM_MSG_NORMAL, body3, sizeof(body3));
  assert_one_message(a, UTVM_MSG_NORMAL, body3, 2u);
}

/* Two initiators whose inits cross: the lower nonce wins, the other side replies. */
static void test_collision_lower_nonce_wins(void **state) {
  (void)state;
  test_bytes_t payloads;
  test_bytes_init(&payloads);
  size_t lens[4];
  endpoint_t a;
  endpoint_t b;
  endpoint_init(&a, UTVM_SESSION_ROLE_INITIATOR, 0x10u);
  endpoint_init(&b, UTVM_SESSION_ROLE_INITIATOR, 0x20u);
  assert_int_equal(utvm_session_start(&a.session), UTVM_OK);
  assert_int_equal(utvm_session_start(&b.session), UTVM_OK);
  b.random.value = 0x30u;

  /* One exchange: A ignores B's higher init, B answers A's lower one. */
  test_bytes_t a_out;
  test_bytes_init(&a_out);
  test_bytes_append(&a_out, a.out.bytes.data, a.out.bytes.len);
  test_bytes_clear(&a.out.bytes);
  feed(&a, b.out.bytes.data, b.out.bytes.len);
  test_bytes_clear(&b.out.bytes);
  feed(&b, a_out.data, a_out.len);
  assert_int_equal(a.out.bytes.len, 0u);
  assert_int_equal(utvm_session_state(&a.session), UTVM_SESSION_STATE_INIT_SENT);
  assert_int_equal(utvm_session_state(&b.session), UTVM_SESSION_STATE_ESTABLISHED);
  assert_int_equal(sent_packets(&b, &payloads, lens, 4u), 1u);
  static const uint8_t reply[4] = {0x10, 0x30, UTVM_MSG_START_SESSION_REPLY, UTVM_SESSION_VERSION};
  assert_true(bytes_same(payloads.data, lens[0], reply, sizeof(reply)));

  assert_int_equal(pump(&a, &b), 1u);
  assert_int_equal(utvm_session_id(&a.session), 0x3010u);
  assert_linked(&a, &b);
  endpoint_free(&a);
  endpoint_free(&b);
  test_bytes_free(&a_out);
  test_bytes_free(&payloads);
}

/* Two initiators with equal nonces: both send a new init, then the lower new nonce wins. */
static void test_collision_equal_nonces(void **state) {
  (void)state;
  test_bytes_t payloads;
  test_bytes_init(&payloads);
  size_t lens[4];
  endpoint_t a;
  endpoint_t b;
  endpoint_init(&a, UTVM_SESSION_ROLE_INITIATOR, 0x33u);
  endpoint_init(&b, UTVM_SESSION_ROLE_INITIATOR, 0x33u);
  assert_int_equal(utvm_session_start(&a.session), UTVM_OK);
  assert_int_equal(utvm_session_start(&b.session), UTVM_OK);
  a.random.value = 0x11u;
  b.random.value = 0x22u;

  test_bytes_t a_out;
  test_bytes_init(&a_out);
  test_bytes_append(&a_out, a.out.bytes.data, a.out.bytes.len);
  test_bytes_clear(&a.out.bytes);
  feed(&a, b.out.bytes.data, b.out.bytes.len);
  test_bytes_clear(&b.out.bytes);
  feed(&b, a_out.data, a_out.len);
  assert_int_equal(utvm_session_state(&a.session), UTVM_SESSION_STATE_INIT_SENT);
  assert_int_equal(utvm_session_state(&b.session), UTVM_SESSION_STATE_INIT_SENT);
  size_t count = sent_packets(&a, &payloads, lens, 4u);
  assert_true((count >= 1u) && (count <= 4u));
  size_t last = payloads.len - lens[count - 1u];
  static const uint8_t a_init[4] = {0x11, 0x00, UTVM_MSG_START_SESSION_INIT, UTVM_SESSION_VERSION};
  assert_true(bytes_same(&payloads.data[last], lens[count - 1u], a_init, sizeof(a_init)));
  count = sent_packets(&b, &payloads, lens, 4u);
  assert_true((count >= 1u) && (count <= 4u));
  last = payloads.len - lens[count - 1u];
  static const uint8_t b_init[4] = {0x22, 0x00, UTVM_MSG_START_SESSION_INIT, UTVM_SESSION_VERSION};
  assert_true(bytes_same(&payloads.data[last], lens[count - 1u], b_init, sizeof(b_init)));

  b.random.value = 0x44u;
  (void)pump(&a, &b);
  assert_int_equal(utvm_session_id(&a.session), 0x4411u);
  assert_linked(&a, &b);
  endpoint_free(&a);
  endpoint_free(&b);
  test_bytes_free(&a_out);
  test_bytes_free(&payloads);
}

/* Feeds data to e in random chunks. */
static void feed_randomly(endpoint_t *e, const uint8_t *data, size_t n, uint32_t *rng) {
  size_t off = 0u;
  while (off < n) {
    size_t chunk = 1u + test_random_below(rng, (test_random_below(rng, 3u) == 0u) ? 4000u : 64u);
    chunk = (chunk > (n - off)) ? (n - off) : chunk;
    feed(e, &data[off], chunk);
    off += chunk;
  }
}

/* Sends body as one Normal message written in random pieces, delivers it to the peer in
 * random chunks and checks the peer received exactly that message. */
static void transfer(endpoint_t *from, endpoint_t *to, const uint8_t *body, size_t len,
                     uint32_t *rng) {
  test_bytes_clear(&from->out.bytes);
  test_recorder_clear(&to->rec);
  assert_int_equal(utvm_session_message_begin(&from->session, (uint32_t)len), UTVM_OK);
  size_t off = 0u;
  while (off < len) {
    size_t piece = 1u + test_random_below(rng, 700u);
    piece = (piece > (len - off)) ? (len - off) : piece;
    assert_int_equal(utvm_session_message_write(&from->session, &body[off], piece), UTVM_OK);
    off += piece;
  }
  assert_int_equal(utvm_session_message_end(&from->session), UTVM_OK);
  feed_randomly(to, from->out.bytes.data, from->out.bytes.len, rng);
  assert_one_message(to, UTVM_MSG_NORMAL, body, len);
}

/* An initiator and a responder wired back to back: boot Terminate, handshake, then Normal
 * messages of every size 0..5000 in both directions, and Log messages in between. */
static void test_back_to_back_sessions(void **state) {
  (void)state;
  static const size_t max_body = 5000u;
  static const char log_text[] = "device log line";
  uint32_t max_payload = (uint32_t)max_body + UTVM_SESSION_HEADER_SIZE;
  endpoint_t *host = malloc(sizeof(*host));
  endpoint_t *device = malloc(sizeof(*device));
  uint8_t *body = malloc(max_body);
  assert_non_null(host);
  assert_non_null(device);
  assert_non_null(body);
  endpoint_init_limits(host, UTVM_SESSION_ROLE_INITIATOR, 0x5Au, max_payload, max_payload);
  endpoint_init_limits(device, UTVM_SESSION_ROLE_RESPONDER, 0xA5u, max_payload, max_payload);
  uint32_t rng = 777u;

  assert_int_equal(utvm_session_send_terminate(&device->session), UTVM_OK);
  assert_int_equal(utvm_session_start(&host->session), UTVM_OK);
  assert_int_equal(pump(host, device), 2u);
  assert_int_equal(utvm_session_id(&host->session), 0xA55Au);
  assert_linked(host, device);

  test_fill_random(&rng, body, max_body);
  for (size_t len = 0u; len <= max_body; len++) {
    test_fill_random(&rng, body, len);
    if ((len % 7u) == 3u) {
      memset(body, 0xFF, len / 2u);
    }
    transfer(host, device, body, len, &rng);
    transfer(device, host, body, max_body - len, &rng);
    if ((len % 500u) == 0u) {
      test_bytes_clear(&device->out.bytes);
      test_recorder_clear(&host->rec);
      assert_int_equal(utvm_session_send_log(&device->session, log_text, sizeof(log_text) - 1u),
                       UTVM_OK);
      feed_randomly(host, device->out.bytes.data, device->out.bytes.len, &rng);
      assert_one_message(host, UTVM_MSG_LOG, (const uint8_t *)log_text, sizeof(log_text) - 1u);
    }
  }
  utvm_session_stats_t host_stats = stats_of(host);
  utvm_session_stats_t device_stats = stats_of(device);
  assert_int_equal(device_stats.messages_delivered, max_body + 2u);
  assert_int_equal(host_stats.messages_delivered, max_body + 2u + 11u);
  utvm_unframer_stats_t framing = framing_stats_of(host);
  assert_int_equal(framing.crc_errors + framing.short_packets + framing.invalid_escapes +
                   framing.length_overflows, 0u);
  assert_int_equal(host_stats.dropped_wrong_sid + host_stats.dropped_no_session +
                   host_stats.dropped_unknown_type + host_stats.dropped_runt +
                   host_stats.dropped_bad_handshake, 0u);
  endpoint_free(host);
  endpoint_free(device);
  free(host);
  free(device);
  free(body);
}

/* ------------------------------------------------------------------ limits */

/* Log bodies must be 1..1023 bytes; nothing is sent for a rejected one. */
static void test_log_length_limits(void **state) {
  (void)state;
  static char text[UTVM_SESSION_LOG_MAX + 1u];
  memset(text, 'x', sizeof(text));
  test_bytes_t payloads;
  test_bytes_init(&payloads);
  size_t lens[4];
  endpoint_t r;
  endpoint_init(&r, UTVM_SESSION_ROLE_RESPONDER, 0x22u);
  assert_int_equal(utvm_session_send_log(&r.session, text, 0u), UTVM_ERR_SESSION_BAD_ARGUMENT);
  assert_int_equal(utvm_session_send_log(&r.session, text, UTVM_SESSION_LOG_MAX + 1u),
                   UTVM_ERR_SESSION_BAD_ARGUMENT);
  assert_int_equal(utvm_session_send_log(&r.session, NULL, 1u), UTVM_ERR_SESSION_BAD_ARGUMENT);
  assert_int_equal(r.out.bytes.len, 0u);
  assert_int_equal(utvm_session_send_log(&r.session, text, 1u), UTVM_OK);
  assert_int_equal(utvm_session_send_log(&r.session, text, UTVM_SESSION_LOG_MAX), UTVM_OK);
  assert_int_equal(sent_packets(&r, &payloads, lens, 4u), 2u);
  assert_int_equal(lens[0], UTVM_SESSION_HEADER_SIZE + 1u);
  assert_int_equal(lens[1], UTVM_SESSION_HEADER_SIZE + UTVM_SESSION_LOG_MAX);
  static const uint8_t log_header[3] = {0x00, 0x00, UTVM_MSG_LOG};
  assert_memory_equal(payloads.data, log_header, sizeof(log_header));
  assert_memory_equal(&payloads.data[lens[0]], log_header, sizeof(log_header));

  /* Not while a message is open. */
  establish_responder(&r, 0x11u, 0x22u);
  assert_int_equal(utvm_session_message_begin(&r.session, 1u), UTVM_OK);
  assert_int_equal(utvm_session_send_log(&r.session, text, 1u), UTVM_ERR_SESSION_INVALID_STATE);
  endpoint_free(&r);
  test_bytes_free(&payloads);
}

/* message_begin enforces max_tx_payload (default: TVM's 2048-byte host buffer) and the
 * session state; an open message blocks other sends until complete. */
static void test_message_limits_and_states(void **state) {
  (void)state;
  static uint8_t body[UTVM_SESSION_TVM_HOST_MAX_MESSAGE];
  memset(body, 0x42, sizeof(body));
  const uint32_t default_max = UTVM_SESSION_TVM_HOST_MAX_MESSAGE - UTVM_SESSION_HEADER_SIZE;
  endpoint_t r;
  endpoint_init(&r, UTVM_SESSION_ROLE_RESPONDER, 0x22u);
  assert_int_equal(utvm_session_message_begin(&r.session, 1u), UTVM_ERR_SESSION_INVALID_STATE);
  establish_responder(&r, 0x11u, 0x22u);
  assert_int_equal(utvm_session_message_begin(&r.session, default_max + 1u),
                   UTVM_ERR_SESSION_TOO_LARGE);
  assert_int_equal(utvm_session_message_begin(&r.session, UINT32_MAX), UTVM_ERR_SESSION_TOO_LARGE);
  assert_int_equal(r.out.bytes.len, 0u);
  assert_int_equal(utvm_session_message_begin(&r.session, default_max), UTVM_OK);
  assert_int_equal(utvm_session_message_begin(&r.session, 1u), UTVM_ERR_SESSION_INVALID_STATE);
  assert_int_equal(utvm_session_send_terminate(&r.session), UTVM_ERR_SESSION_INVALID_STATE);
  assert_int_equal(utvm_session_message_write(&r.session, body, default_max - 1u), UTVM_OK);
  assert_int_equal(utvm_session_message_end(&r.session), UTVM_ERR_FRAMING_PAYLOAD_INCOMPLETE);
  assert_int_equal(utvm_session_message_write(&r.session, body, 2u),
                   UTVM_ERR_FRAMING_PAYLOAD_OVERFLOW);
  assert_int_equal(utvm_session_message_write(&r.session, body, 1u), UTVM_OK);
  assert_int_equal(utvm_session_message_end(&r.session), UTVM_OK);
  assert_int_equal(utvm_session_state(&r.session), UTVM_SESSION_STATE_ESTABLISHED);
  size_t sent = r.out.bytes.len;
  assert_int_equal(utvm_session_message_write(&r.session, body, 1u),
                   UTVM_ERR_FRAMING_INVALID_STATE);
  assert_int_equal(r.out.bytes.len, sent);
  endpoint_free(&r);

  endpoint_t small;
  endpoint_init_limits(&small, UTVM_SESSION_ROLE_RESPONDER, 0x22u, 0u, 100u);
  establish_responder(&small, 0x11u, 0x22u);
  assert_int_equal(utvm_session_message_begin(&small.session, 98u), UTVM_ERR_SESSION_TOO_LARGE);
  assert_int_equal(utvm_session_message_begin(&small.session, 97u), UTVM_OK);
  assert_int_equal(utvm_session_message_write(&small.session, body, 97u), UTVM_OK);
  assert_int_equal(utvm_session_message_end(&small.session), UTVM_OK);
  endpoint_free(&small);
}

/* init rejects a config without a write callback or a random source. */
static void test_init_rejects_incomplete_config(void **state) {
  (void)state;
  test_pipe_t pipe;
  test_pipe_init(&pipe);
  test_random_t random = {0x22u, false, 0u};
  utvm_session_t session;
  utvm_session_config_t config;
  memset(&config, 0, sizeof(config));
  config.write = test_pipe_write;
  config.write_ctx = &pipe;
  config.random = test_random_fill;
  config.random_ctx = &random;
  assert_int_equal(utvm_session_init(&session, &config), UTVM_OK);
  config.write = NULL;
  assert_int_equal(utvm_session_init(&session, &config), UTVM_ERR_SESSION_BAD_ARGUMENT);
  config.write = test_pipe_write;
  config.random = NULL;
  assert_int_equal(utvm_session_init(&session, &config), UTVM_ERR_SESSION_BAD_ARGUMENT);
  assert_int_equal(pipe.bytes.len, 0u);
  test_pipe_free(&pipe);
}

/* A transport failure is returned to the caller; the next packet starts with 0xfe again. */
static void test_write_failure_is_reported(void **state) {
  (void)state;
  const session_vector_t *terminate_first = vector("terminate_after_initialize_first_packet");
  endpoint_t r;
  endpoint_init(&r, UTVM_SESSION_ROLE_RESPONDER, 0x22u);
  assert_int_equal(utvm_session_send_terminate(&r.session), UTVM_OK);
  endpoint_clear(&r);
  r.out.fail_at_call = r.out.write_calls + 1u;
  assert_int_equal(utvm_session_send_terminate(&r.session), UTVM_ERR_WRITE_FAILED);
  endpoint_clear(&r);
  assert_int_equal(utvm_session_send_terminate(&r.session), UTVM_OK);
  assert_output(&r, terminate_first->wire, terminate_first->wire_len, "terminate after failure");
  endpoint_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_responder_vectors),
    cmocka_unit_test(test_responder_first_reply_has_prefix),
    cmocka_unit_test(test_initiator_vectors),
    cmocka_unit_test(test_responder_reinit_replaces_session),
    cmocka_unit_test(test_terminate_while_established),
    cmocka_unit_test(test_normal_without_session_dropped),
    cmocka_unit_test(test_wrong_sid_dropped),
    cmocka_unit_test(test_unknown_type_dropped),
    cmocka_unit_test(test_runt_dropped),
    cmocka_unit_test(test_bad_inits_dropped),
    cmocka_unit_test(test_bad_crc_normal),
    cmocka_unit_test(test_truncated_normal),
    cmocka_unit_test(test_max_rx_payload),
    cmocka_unit_test(test_initiator_reply_checks),
    cmocka_unit_test(test_initiator_retry_uses_new_nonce),
    cmocka_unit_test(test_nonces_never_zero),
    cmocka_unit_test(test_collision_lower_nonce_wins),
    cmocka_unit_test(test_collision_equal_nonces),
    cmocka_unit_test(test_back_to_back_sessions),
    cmocka_unit_test(test_log_length_limits),
    cmocka_unit_test(test_message_limits_and_states),
    cmocka_unit_test(test_init_rejects_incomplete_config),
    cmocka_unit_test(test_write_failure_is_reported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

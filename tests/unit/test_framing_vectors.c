/* Conformance of the framing layer with TVM's Framer and Unframer: vectors/framing.json and
 * vectors/unframer.json, converted to C at build time (framing_vectors.h,
 * unframer_vectors.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "framing_vectors.h"
#include "test_support.h"
#include "unframer_vectors.h"
#include "utvm/framing.h"

/* The framing.json vector encoded by a framer in its reset state (it carries the 0xfe). */
static bool is_first_packet_after_reset(const framing_vector_t *v) {
  return strcmp(v->name, "first_packet_after_reset") == 0;
}

static void assert_bytes(const uint8_t *actual, size_t actual_len, const uint8_t *expected,
                         size_t expected_len, const char *what) {
  if ((actual_len != expected_len) ||
      ((expected_len > 0u) && (memcmp(actual, expected, expected_len) != 0))) {
    print_error("%s: %zu bytes differ from the expected %zu bytes\n", what, actual_len,
                expected_len);
    fail();
  }
}

/* Encodes payload through start/write/finish, writing it in chunks of at most chunk bytes
 * (with a zero-length write before the first chunk). */
static void encode_chunked(utvm_framer_t *framer, const uint8_t *payload, size_t len,
                           size_t chunk) {
  assert_int_equal(utvm_framer_start(framer, (uint32_t)len), UTVM_OK);
  assert_int_equal(utvm_framer_write(framer, payload, 0u), UTVM_OK);
  for (size_t off = 0u; off < len; off += chunk) {
    size_t n = ((len - off) < chunk) ? (len - off) : chunk;
    assert_int_equal(utvm_framer_write(framer, &payload[off], n), UTVM_OK);
  }
  assert_int_equal(utvm_framer_finish(framer), UTVM_OK);
}

/* Every framing.json payload is encoded to exactly the vector's wire bytes, however the
 * payload is chunked, by a framer that has already sent a packet; a fresh framer emits the
 * same bytes behind one bare 0xfe. */
static void test_encode_framing_vectors(void **state) {
  (void)state;
  static const uint8_t dummy[1] = {0x42u};
  test_pipe_t pipe;
  test_pipe_init(&pipe);
  for (size_t i = 0u; i < FRAMING_VECTORS_COUNT; i++) {
    const framing_vector_t *v = &framing_vectors[i];
    const uint8_t *packet_wire = v->wire;
    size_t packet_wire_len = v->wire_len;
    utvm_framer_t framer;

    utvm_framer_init(&framer, test_pipe_write, &pipe);
    test_bytes_clear(&pipe.bytes);
    if (is_first_packet_after_reset(v)) {
      assert_true(v->wire_len > 1u);
      assert_int_equal(v->wire[0], 0xFEu);
      packet_wire = &v->wire[1];
      packet_wire_len = v->wire_len - 1u;
      assert_int_equal(utvm_framer_send(&framer, v->payload, (uint32_t)v->payload_len), UTVM_OK);
      assert_bytes(pipe.bytes.data, pipe.bytes.len, v->wire, v->wire_len, v->name);
    } else {
      assert_int_equal(utvm_framer_send(&framer, v->payload, (uint32_t)v->payload_len), UTVM_OK);
      assert_int_equal(pipe.bytes.len, v->wire_len + 1u);
      assert_int_equal(pipe.bytes.data[0], 0xFEu);
      assert_bytes(&pipe.bytes.data[1], pipe.bytes.len - 1u, v->wire, v->wire_len, v->name);
    }

    /* The framer is now past its first packet. */
    test_bytes_clear(&pipe.bytes);
    assert_int_equal(utvm_framer_send(&framer, v->payload, (uint32_t)v->payload_len), UTVM_OK);
    assert_bytes(pipe.bytes.data, pipe.bytes.len, packet_wire, packet_wire_len, v->name);
    size_t max_chunk = (v->payload_len > 0u) ? v->payload_len : 1u;
    for (size_t chunk = 1u; chunk <= max_chunk; chunk++) {
      test_bytes_clear(&pipe.bytes);
      encode_chunked(&framer, v->payload, v->payload_len, chunk);
      assert_bytes(pipe.bytes.data, pipe.bytes.len, packet_wire, packet_wire_len, v->name);
    }

    /* Past a dummy first packet, for vectors recorded that way. */
    if (!is_first_packet_after_reset(v)) {
      utvm_framer_init(&framer, test_pipe_write, &pipe);
      assert_int_equal(utvm_framer_send(&framer, dummy, sizeof(dummy)), UTVM_OK);
      test_bytes_clear(&pipe.bytes);
      encode_chunked(&framer, v->payload, v->payload_len, 1u);
      assert_bytes(pipe.bytes.data, pipe.bytes.len, v->wire, v->wire_len, v->name);
    }
  }
  test_pipe_free(&pipe);
}

/* Feeds data in chunks of at most chunk bytes (0: one call). */
static void feed_chunked(utvm_unframer_t *unframer, const uint8_t *data, size_t n, size_t chunk) {
  if (chunk == 0u) {
    utvm_unframer_feed(unframer, data, n);
    return;
  }
  for (size_t off = 0u; off < n; off += chunk) {
    utvm_unframer_feed(unframer, &data[off], ((n - off) < chunk) ? (n - off) : chunk);
  }
}

/* Every framing.json wire decodes to its payload with a valid CRC. */
static void test_decode_framing_vectors(void **state) {
  (void)state;
  static const size_t chunkings[] = {0u, 1u, 2u, 5u};
  test_recorder_t rec;
  test_recorder_init(&rec);
  utvm_unframer_handler_t handler = test_recorder_unframer_handler(&rec);
  for (size_t i = 0u; i < FRAMING_VECTORS_COUNT; i++) {
    const framing_vector_t *v = &framing_vectors[i];
    for (size_t c = 0u; c < sizeof(chunkings) / sizeof(chunkings[0]); c++) {
      utvm_unframer_t unframer;
      utvm_unframer_init(&unframer, &handler, UINT32_MAX);
      test_recorder_clear(&rec);
      feed_chunked(&unframer, v->wire, v->wire_len, chunkings[c]);
      test_unit_t unit;
      assert_int_equal(test_recorder_units(&rec, &unit, 1u), 1u);
      assert_true(unit.ended);
      assert_int_equal(unit.status, UTVM_FRAME_OK);
      assert_int_equal(unit.declared_len, v->payload_len);
      assert_bytes(unit.data, unit.len, v->payload, v->payload_len, v->name);
      assert_false(utvm_unframer_in_packet(&unframer));
      assert_int_equal(unframer.stats.packets_ok, 1u);
      assert_int_equal(unframer.stats.crc_errors, 0u);
      assert_int_equal(unframer.stats.short_packets, 0u);
      assert_int_equal(unframer.stats.invalid_escapes, 0u);
      assert_int_equal(unframer.stats.length_overflows, 0u);
    }
  }
  test_recorder_free(&rec);
}

/* Checks one unframer.json case against a recording of the whole input. */
static void check_unframer_case(const unframer_case_t *c, const test_recorder_t *rec,
                                const utvm_unframer_t *unframer) {
  test_unit_t units[16];
  size_t count = test_recorder_units(rec, units, 16u);
  assert_true(count <= 16u);

  /* Completed packets (CRC verdict known) in order; abandoned ones are not packets. */
  size_t completed = 0u;
  bool open = false;
  for (size_t u = 0u; u < count; u++) {
    if (!units[u].ended) {
      assert_int_equal(u, count - 1u);
      open = true;
      assert_bytes(units[u].data, units[u].len, c->partial_streamed, c->partial_streamed_len,
                   c->name);
    } else if ((units[u].status == UTVM_FRAME_OK) || (units[u].status == UTVM_FRAME_BAD_CRC)) {
      assert_true(completed < c->packets_count);
      const unframer_packet_t *p = &c->packets[completed];
      assert_int_equal(units[u].status == UTVM_FRAME_OK, p->crc_valid);
      assert_bytes(units[u].data, units[u].len, p->bytes_streamed, p->bytes_streamed_len, c->name);
      completed++;
    } else {
      assert_true((units[u].status == UTVM_FRAME_TRUNCATED) ||
                  (units[u].status == UTVM_FRAME_INVALID_ESCAPE));
    }
  }
  assert_int_equal(completed, c->packets_count);
  if (!open) {
    assert_int_equal(c->partial_streamed_len, 0u);
  }
  assert_int_equal(utvm_unframer_in_packet(unframer), open);

  uint32_t short_packets = 0u;
  uint32_t invalid_escapes = 0u;
  for (size_t w = 0u; w < c->write_calls_count; w++) {
    uint32_t error = c->write_calls[w].error;
    assert_true((error == 0u) || (error == (uint32_t)UTVM_ERR_FRAMING_SHORT_PACKET) ||
                (error == (uint32_t)UTVM_ERR_FRAMING_INVALID_ESCAPE));
    short_packets += (error == (uint32_t)UTVM_ERR_FRAMING_SHORT_PACKET) ? 1u : 0u;
    invalid_escapes += (error == (uint32_t)UTVM_ERR_FRAMING_INVALID_ESCAPE) ? 1u : 0u;
  }
  uint32_t valid = 0u;
  for (size_t p = 0u; p < c->packets_count; p++) {
    valid += c->packets[p].crc_valid ? 1u : 0u;
  }
  assert_int_equal(unframer->stats.short_packets, short_packets);
  assert_int_equal(unframer->stats.invalid_escapes, invalid_escapes);
  assert_int_equal(unframer->stats.packets_ok, valid);
  assert_int_equal(unframer->stats.crc_errors, c->packets_count - valid);
  assert_int_equal(unframer->stats.length_overflows, 0u);
}

/* Every unframer.json case gives TVM's outcome: the same completed packets with the same
 * CRC verdicts and streamed bytes, the same partial packet, the same error counts; in one
 * feed, byte by byte, and split in two at every offset. */
static void test_unframer_cases(void **state) {
  (void)state;
  test_recorder_t rec;
  test_recorder_init(&rec);
  utvm_unframer_handler_t handler = test_recorder_unframer_handler(&rec);
  for (size_t i = 0u; i < UNFRAMER_CASES_COUNT; i++) {
    const unframer_case_t *c = &unframer_cases[i];
    utvm_unframer_t unframer;

    utvm_unframer_init(&unframer, &handler, UINT32_MAX);
    test_recorder_clear(&rec);
    utvm_unframer_feed(&unframer, c->input, c->input_len);
    check_unframer_case(c, &rec, &unframer);

    utvm_unframer_init(&unframer, &handler, UINT32_MAX);
    test_recorder_clear(&rec);
    feed_chunked(&unframer, c->input, c->input_len, 1u);
    check_unframer_case(c, &rec, &unframer);

    for (size_t split = 0u; split <= c->input_len; split++) {
      utvm_unframer_init(&unframer, &handler, UINT32_MAX);
      test_recorder_clear(&rec);
      utvm_unframer_feed(&unframer, c->input, split);
      utvm_unframer_feed(&unframer, &c->input[split], c->input_len - split);
      check_unframer_case(c, &rec, &unframer);
    }
  }
  test_recorder_free(&rec);
}

/* A decoder without a handler, or with a handler of NULL callbacks, still counts. */
static void test_unframer_cases_without_callbacks(void **state) {
  (void)state;
  static const utvm_unframer_handler_t empty_handler = {NULL, NULL, NULL, NULL};
  test_recorder_t rec;
  test_recorder_init(&rec);
  utvm_unframer_handler_t handler = test_recorder_unframer_handler(&rec);
  for (size_t i = 0u; i < UNFRAMER_CASES_COUNT; i++) {
    const unframer_case_t *c = &unframer_cases[i];
    utvm_unframer_t reference;
    utvm_unframer_t no_handler;
    utvm_unframer_t null_callbacks;
    utvm_unframer_init(&reference, &handler, UINT32_MAX);
    utvm_unframer_init(&no_handler, NULL, UINT32_MAX);
    utvm_unframer_init(&null_callbacks, &empty_handler, UINT32_MAX);
    utvm_unframer_feed(&reference, c->input, c->input_len);
    utvm_unframer_feed(&no_handler, c->input, c->input_len);
    utvm_unframer_feed(&null_callbacks, c->input, c->input_len);
    assert_memory_equal(&no_handler.stats, &reference.stats, sizeof(reference.stats));
    assert_memory_equal(&null_callbacks.stats, &reference.stats, sizeof(reference.stats));
    assert_int_equal(utvm_unframer_in_packet(&no_handler), utvm_unframer_in_packet(&reference));
    utvm_unframer_reset(&no_handler);
    utvm_unframer_reset(&null_callbacks);
    assert_false(utvm_unframer_in_packet(&no_handler));
    assert_false(utvm_unframer_in_packet(&null_callbacks));
  }
  test_recorder_free(&rec);
}

/* The reference encoder of tests/support agrees with the vectors, so tests that build
 * packets with it (nops, bad CRCs) start from TVM's format. */
static void test_reference_encoder_matches_vectors(void **state) {
  (void)state;
  test_bytes_t out;
  test_bytes_init(&out);
  for (size_t i = 0u; i < FRAMING_VECTORS_COUNT; i++) {
    const framing_vector_t *v = &framing_vectors[i];
    size_t skip = is_first_packet_after_reset(v) ? 1u : 0u;
    test_bytes_clear(&out);
    test_encode_packet(&out, v->payload, v->payload_len, TEST_NO_NOP, 0u);
    assert_bytes(out.data, out.len, &v->wire[skip], v->wire_len - skip, v->name);
  }
  const unframer_case_t *nop = unframer_cases_find(
      "nop escape (ff fe) inside payload, CRC over wire bytes incl. the nop");
  assert_non_null(nop);
  assert_int_equal(nop->packets_count, 1u);
  test_bytes_clear(&out);
  test_encode_packet(&out, nop->packets[0].bytes_streamed, nop->packets[0].bytes_streamed_len, 1u,
                     0u);
  assert_bytes(out.data, out.len, nop->input, nop->input_len, nop->name);
  test_bytes_free(&out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_encode_framing_vectors),
    cmocka_unit_test(test_decode_framing_vectors),
    cmocka_unit_test(test_unframer_cases),
    cmocka_unit_test(test_unframer_cases_without_callbacks),
    cmocka_unit_test(test_reference_encoder_matches_vectors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

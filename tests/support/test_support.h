/*
 * Helpers shared by the unit tests: growable byte buffers, hex parsing, an in-memory pipe
 * usable as a transport write callback, a scripted random hook, an event recorder for the
 * framing decoder and the session layer, and a reference packet encoder written from
 * PROTOCOL.md independently of src/framing.
 *
 * Test code only: allocation failures abort the process.
 */
#ifndef UTVM_TEST_SUPPORT_H
#define UTVM_TEST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/framing.h"
#include "utvm/session.h"

/* ------------------------------------------------------------ byte buffer */

/* A growable byte buffer; data is NULL until something is appended. */
typedef struct {
  uint8_t *data;
  size_t len;
  size_t cap;
} test_bytes_t;

void test_bytes_init(test_bytes_t *bytes);
void test_bytes_free(test_bytes_t *bytes);
/* Drops the contents, keeps the allocation. */
void test_bytes_clear(test_bytes_t *bytes);
void test_bytes_append(test_bytes_t *bytes, const uint8_t *data, size_t n);
void test_bytes_push(test_bytes_t *bytes, uint8_t byte);
/* True if the buffer holds exactly data[0..n). */
bool test_bytes_equal(const test_bytes_t *bytes, const uint8_t *data, size_t n);

/* Appends the bytes written in hex (whitespace allowed between bytes) and returns how many;
 * aborts on malformed input. */
size_t test_hex_append(test_bytes_t *out, const char *hex);

/* Fills buf with n bytes of a fixed-seed xorshift generator whose state is *state. */
void test_fill_random(uint32_t *state, uint8_t *buf, size_t n);
/* Next value of the generator, in [0, bound) (bound > 0). */
uint32_t test_random_below(uint32_t *state, uint32_t bound);

/* ------------------------------------------------------------------ files */

/* The whole file at path in a heap block the caller frees (its bytes in *size); a file that
 * cannot be read or is empty aborts the test with its path. */
uint8_t *test_load_file(const char *path, size_t *size);

/* ------------------------------------------------------------------ pipe */

/* Collects everything written through test_pipe_write. The write call with index
 * fail_at_call (counting from 0) fails with fail_error and writes nothing. */
typedef struct {
  test_bytes_t bytes;
  size_t write_calls;
  size_t fail_at_call;
  utvm_err_t fail_error;
} test_pipe_t;

#define TEST_PIPE_NEVER_FAILS SIZE_MAX

void test_pipe_init(test_pipe_t *pipe);
void test_pipe_free(test_pipe_t *pipe);
/* utvm_write_fn; ctx is a test_pipe_t. */
utvm_err_t test_pipe_write(void *ctx, const uint8_t *data, size_t n);

/* ---------------------------------------------------------------- random */

/* utvm_random_fn state: every byte handed out is value; fail makes the hook fail. */
typedef struct {
  uint8_t value;
  bool fail;
  size_t calls;
} test_random_t;

/* utvm_random_fn; ctx is a test_random_t. */
utvm_err_t test_random_fill(void *ctx, uint8_t *buf, size_t n);

/* -------------------------------------------------------------- recorder */

typedef enum {
  TEST_EV_PACKET_START,  /* value: payload_len */
  TEST_EV_PAYLOAD,       /* data (consecutive chunks merged) */
  TEST_EV_PACKET_END,    /* value: utvm_frame_status_t */
  TEST_EV_SESSION_EVENT, /* value: utvm_session_event_t */
  TEST_EV_MESSAGE_START, /* value: utvm_msg_type_t, value2: body_len */
  TEST_EV_MESSAGE_DATA,  /* data (consecutive chunks merged) */
  TEST_EV_MESSAGE_END    /* value: utvm_frame_status_t */
} test_event_kind_t;

typedef struct {
  test_event_kind_t kind;
  uint32_t value;
  uint32_t value2;
  size_t data_offset; /* into test_recorder_t.data */
  size_t data_len;
} test_event_t;

/* Records decoder or session callbacks in order. Data chunks delivered back to back are
 * merged into one event, so recordings of differently chunked input compare equal. */
typedef struct {
  test_event_t *events;
  size_t count;
  size_t cap;
  test_bytes_t data;
} test_recorder_t;

void test_recorder_init(test_recorder_t *rec);
void test_recorder_free(test_recorder_t *rec);
void test_recorder_clear(test_recorder_t *rec);
/* Same events with the same data. */
bool test_recorder_equal(const test_recorder_t *a, const test_recorder_t *b);
/* Number of events of kind with the given value. */
size_t test_recorder_count(const test_recorder_t *rec, test_event_kind_t kind, uint32_t value);
/* Prints the events to stderr (for failure diagnosis). */
void test_recorder_dump(const test_recorder_t *rec, const char *title);

/* Handlers that record into rec. */
utvm_unframer_handler_t test_recorder_unframer_handler(test_recorder_t *rec);
utvm_session_handler_t test_recorder_session_handler(test_recorder_t *rec);

/* One packet (unframer recording) or message (session recording): its start event, the
 * data streamed for it, and its end event if one was recorded. */
typedef struct {
  uint32_t type;         /* message type; 0 for packets */
  uint32_t declared_len; /* payload_len or body_len of the start event */
  const uint8_t *data;   /* points into the recorder; valid until it changes */
  size_t len;
  bool ended;
  utvm_frame_status_t status; /* valid if ended */
} test_unit_t;

/* Splits a recording into packets/messages; returns how many exist (at most max are
 * stored). Session events between messages are skipped. Aborts on a malformed sequence
 * (data outside a unit, an end without a start, a start inside a unit). */
size_t test_recorder_units(const test_recorder_t *rec, test_unit_t *units, size_t max);

/* ------------------------------------------------- reference packet encoder */

#define TEST_NO_NOP SIZE_MAX

/* Appends one packet for payload[0..len) to out, following PROTOCOL.md section 1 (no
 * leading 0xfe). If nop_before < len, an ff fe no-op is put before that payload byte; the
 * CRC is sent xor-ed with crc_xor (0 for a valid packet). */
void test_encode_packet(test_bytes_t *out, const uint8_t *payload, size_t len, size_t nop_before,
                        uint16_t crc_xor);

/* Decodes stream with a fresh utvm decoder (no length limit) and appends every packet that
 * ended with UTVM_FRAME_OK to payloads, each followed by its length in lens (at most max
 * entries). Returns the number of such packets. */
size_t test_decode_packets(const uint8_t *stream, size_t n, test_bytes_t *payloads,
                           size_t *lens, size_t max);

/* ------------------------------------------------------------ error texts */

/* A device error text with its "#<id>" tokens expanded (utvm_host_expand_error), so that a
 * test compares the same texts whether the device was built with or without error texts.
 * Returns a static copy, valid until the next call. */
const char *test_expand_error(const char *text);

#endif /* UTVM_TEST_SUPPORT_H */

#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utvm/host.h"

static void *test_realloc(void *ptr, size_t size) {
  void *p = realloc(ptr, size);
  if (p == NULL) {
    (void)fprintf(stderr, "test support: out of memory\n");
    abort();
  }
  return p;
}

/* ------------------------------------------------------------ byte buffer */

void test_bytes_init(test_bytes_t *bytes) {
  bytes->data = NULL;
  bytes->len = 0u;
  bytes->cap = 0u;
}

void test_bytes_free(test_bytes_t *bytes) {
  free(bytes->data);
  test_bytes_init(bytes);
}

void test_bytes_clear(test_bytes_t *bytes) { bytes->len = 0u; }

void test_bytes_append(test_bytes_t *bytes, const uint8_t *data, size_t n) {
  if (n == 0u) {
    return;
  }
  if (bytes->len + n > bytes->cap) {
    size_t cap = (bytes->cap == 0u) ? 64u : bytes->cap;
    while (cap < bytes->len + n) {
      cap *= 2u;
    }
    bytes->data = test_realloc(bytes->data, cap);
    bytes->cap = cap;
  }
  memcpy(&bytes->data[bytes->len], data, n);
  bytes->len += n;
}

void test_bytes_push(test_bytes_t *bytes, uint8_t byte) { test_bytes_append(bytes, &byte, 1u); }

bool test_bytes_equal(const test_bytes_t *bytes, const uint8_t *data, size_t n) {
  return (bytes->len == n) && ((n == 0u) || (memcmp(bytes->data, data, n) == 0));
}

static int hex_digit(char c) {
  if ((c >= '0') && (c <= '9')) {
    return c - '0';
  }
  if ((c >= 'a') && (c <= 'f')) {
    return c - 'a' + 10;
  }
  if ((c >= 'A') && (c <= 'F')) {
    return c - 'A' + 10;
  }
  return -1;
}

size_t test_hex_append(test_bytes_t *out, const char *hex) {
  size_t count = 0u;
  size_t i = 0u;
  while (hex[i] != '\0') {
    if ((hex[i] == ' ') || (hex[i] == '\n') || (hex[i] == '\t')) {
      i++;
      continue;
    }
    int hi = hex_digit(hex[i]);
    int lo = (hex[i + 1u] != '\0') ? hex_digit(hex[i + 1u]) : -1;
    if ((hi < 0) || (lo < 0)) {
      (void)fprintf(stderr, "test support: malformed hex at offset %zu of \"%s\"\n", i, hex);
      abort();
    }
    test_bytes_push(out, (uint8_t)((hi << 4) | lo));
    count++;
    i += 2u;
  }
  return count;
}

static uint32_t xorshift32(uint32_t *state) {
  uint32_t x = (*state != 0u) ? *state : 0x9E3779B9u;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

void test_fill_random(uint32_t *state, uint8_t *buf, size_t n) {
  for (size_t i = 0u; i < n; i++) {
    buf[i] = (uint8_t)(xorshift32(state) >> 24);
  }
}

uint32_t test_random_below(uint32_t *state, uint32_t bound) { return xorshift32(state) % bound; }

/* ------------------------------------------------------------------ files */

uint8_t *test_load_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  long n = -1;
  uint8_t *data = NULL;
  if ((f != NULL) && (fseek(f, 0, SEEK_END) == 0)) {
    n = ftell(f);
  }
  if ((n > 0) && (fseek(f, 0, SEEK_SET) == 0)) {
    data = (uint8_t *)test_realloc(NULL, (size_t)n);
    if (fread(data, 1u, (size_t)n, f) != (size_t)n) {
      n = -1;
    }
  }
  if (f != NULL) {
    (void)fclose(f);
  }
  if (n <= 0) {
    (void)fprintf(stderr, "test support: cannot read %s\n", path);
    abort();
  }
  *size = (size_t)n;
  return data;
}

/* ------------------------------------------------------------------ pipe */

void test_pipe_init(test_pipe_t *pipe) {
  test_bytes_init(&pipe->bytes);
  pipe->write_calls = 0u;
  pipe->fail_at_call = TEST_PIPE_NEVER_FAILS;
  pipe->fail_error = UTVM_ERR_WRITE_FAILED;
}

void test_pipe_free(test_pipe_t *pipe) { test_bytes_free(&pipe->bytes); }

utvm_err_t test_pipe_write(void *ctx, const uint8_t *data, size_t n) {
  test_pipe_t *pipe = (test_pipe_t *)ctx;
  size_t call = pipe->write_calls;
  pipe->write_calls++;
  if (call == pipe->fail_at_call) {
    return pipe->fail_error;
  }
  test_bytes_append(&pipe->bytes, data, n);
  return UTVM_OK;
}

/* ---------------------------------------------------------------- random */

utvm_err_t test_random_fill(void *ctx, uint8_t *buf, size_t n) {
  test_random_t *random = (test_random_t *)ctx;
  random->calls++;
  if (random->fail) {
    return UTVM_ERR_SESSION_NO_RANDOM;
  }
  memset(buf, random->value, n);
  return UTVM_OK;
}

/* -------------------------------------------------------------- recorder */

void test_recorder_init(test_recorder_t *rec) {
  rec->events = NULL;
  rec->count = 0u;
  rec->cap = 0u;
  test_bytes_init(&rec->data);
}

void test_recorder_free(test_recorder_t *rec) {
  free(rec->events);
  test_bytes_free(&rec->data);
  test_recorder_init(rec);
}

void test_recorder_clear(test_recorder_t *rec) {
  rec->count = 0u;
  test_bytes_clear(&rec->data);
}

static void recorder_add(test_recorder_t *rec, test_event_kind_t kind, uint32_t value,
                         uint32_t value2) {
  if (rec->count == rec->cap) {
    rec->cap = (rec->cap == 0u) ? 32u : 2u * rec->cap;
    rec->events = test_realloc(rec->events, rec->cap * sizeof(rec->events[0]));
  }
  test_event_t *ev = &rec->events[rec->count];
  rec->count++;
  ev->kind = kind;
  ev->value = value;
  ev->value2 = value2;
  ev->data_offset = rec->data.len;
  ev->data_len = 0u;
}

static void recorder_data(test_recorder_t *rec, test_event_kind_t kind, const uint8_t *data,
                          size_t n) {
  if ((rec->count == 0u) || (rec->events[rec->count - 1u].kind != kind)) {
    recorder_add(rec, kind, 0u, 0u);
  }
  test_bytes_append(&rec->data, data, n);
  rec->events[rec->count - 1u].data_len += n;
}

bool test_recorder_equal(const test_recorder_t *a, const test_recorder_t *b) {
  if (a->count != b->count) {
    return false;
  }
  for (size_t i = 0u; i < a->count; i++) {
    const test_event_t *x = &a->events[i];
    const test_event_t *y = &b->events[i];
    if ((x->kind != y->kind) || (x->value != y->value) || (x->value2 != y->value2) ||
        (x->data_len != y->data_len)) {
      return false;
    }
    if ((x->data_len > 0u) &&
        (memcmp(&a->data.data[x->data_offset], &b->data.data[y->data_offset], x->data_len) != 0)) {
      return false;
    }
  }
  return true;
}

size_t test_recorder_count(const test_recorder_t *rec, test_event_kind_t kind, uint32_t value) {
  size_t n = 0u;
  for (size_t i = 0u; i < rec->count; i++) {
    if ((rec->events[i].kind == kind) && (rec->events[i].value == value)) {
      n++;
    }
  }
  return n;
}

void test_recorder_dump(const test_recorder_t *rec, const char *title) {
  static const char *const names[] = {"packet_start", "payload", "packet_end", "session_event",
                                      "message_start", "message_data", "message_end"};
  (void)fprintf(stderr, "%s: %zu events\n", title, rec->count);
  for (size_t i = 0u; i < rec->count; i++) {
    const test_event_t *ev = &rec->events[i];
    (void)fprintf(stderr, "  %-13s %u %u", names[ev->kind], (unsigned)ev->value,
                  (unsigned)ev->value2);
    for (size_t j = 0u; (j < ev->data_len) && (j < 32u); j++) {
      (void)fprintf(stderr, " %02x", rec->data.data[ev->data_offset + j]);
    }
    (void)fprintf(stderr, "%s\n", (ev->data_len > 32u) ? " ..." : "");
  }
}

static void on_packet_start(void *ctx, uint32_t payload_len) {
  recorder_add((test_recorder_t *)ctx, TEST_EV_PACKET_START, payload_len, 0u);
}

static void on_payload(void *ctx, const uint8_t *data, size_t n) {
  recorder_data((test_recorder_t *)ctx, TEST_EV_PAYLOAD, data, n);
}

static void on_packet_end(void *ctx, utvm_frame_status_t status) {
  recorder_add((test_recorder_t *)ctx, TEST_EV_PACKET_END, (uint32_t)status, 0u);
}

static void on_session_event(void *ctx, utvm_session_event_t event) {
  recorder_add((test_recorder_t *)ctx, TEST_EV_SESSION_EVENT, (uint32_t)event, 0u);
}

static void on_message_start(void *ctx, utvm_msg_type_t type, uint32_t body_len) {
  recorder_add((test_recorder_t *)ctx, TEST_EV_MESSAGE_START, (uint32_t)type, body_len);
}

static void on_message_data(void *ctx, const uint8_t *data, size_t n) {
  recorder_data((test_recorder_t *)ctx, TEST_EV_MESSAGE_DATA, data, n);
}

static void on_message_end(void *ctx, utvm_frame_status_t status) {
  recorder_add((test_recorder_t *)ctx, TEST_EV_MESSAGE_END, (uint32_t)status, 0u);
}

utvm_unframer_handler_t test_recorder_unframer_handler(test_recorder_t *rec) {
  utvm_unframer_handler_t handler = {on_packet_start, on_payload, on_packet_end, rec};
  return handler;
}

utvm_session_handler_t test_recorder_session_handler(test_recorder_t *rec) {
  utvm_session_handler_t handler = {on_session_event, on_message_start, on_message_data,
                                    on_message_end, rec};
  return handler;
}

static void malformed_recording(const test_recorder_t *rec, size_t index) {
  (void)fprintf(stderr, "test support: event %zu out of order\n", index);
  test_recorder_dump(rec, "recording");
  abort();
}

size_t test_recorder_units(const test_recorder_t *rec, test_unit_t *units, size_t max) {
  size_t count = 0u;
  bool open = false;
  test_unit_t unit;
  memset(&unit, 0, sizeof(unit));
  for (size_t i = 0u; i < rec->count; i++) {
    const test_event_t *ev = &rec->events[i];
    switch (ev->kind) {
      case TEST_EV_PACKET_START:
      case TEST_EV_MESSAGE_START:
        if (open) {
          malformed_recording(rec, i);
        }
        memset(&unit, 0, sizeof(unit));
        unit.type = (ev->kind == TEST_EV_MESSAGE_START) ? ev->value : 0u;
        unit.declared_len = (ev->kind == TEST_EV_MESSAGE_START) ? ev->value2 : ev->value;
        unit.data = rec->data.data;
        open = true;
        break;
      case TEST_EV_PAYLOAD:
      case TEST_EV_MESSAGE_DATA:
        if (!open || (unit.len != 0u)) {
          malformed_recording(rec, i);
        }
        unit.data = &rec->data.data[ev->data_offset];
        unit.len = ev->data_len;
        break;
      case TEST_EV_PACKET_END:
      case TEST_EV_MESSAGE_END:
        if (!open) {
          malformed_recording(rec, i);
        }
        unit.ended = true;
        unit.status = (utvm_frame_status_t)ev->value;
        if (count < max) {
          units[count] = unit;
        }
        count++;
        open = false;
        break;
      case TEST_EV_SESSION_EVENT:
      default:
        break;
    }
  }
  if (open) {
    if (count < max) {
      units[count] = unit;
    }
    count++;
  }
  return count;
}

/* ------------------------------------------------- reference packet encoder */

/* Appends byte to the packet, escaped if 0xff; covered bytes also enter the CRC. */
static void encode_byte(test_bytes_t *out, uint16_t *crc, uint8_t byte, bool covered) {
  uint8_t wire[2] = {byte, byte};
  size_t n = (byte == 0xFFu) ? 2u : 1u;
  test_bytes_append(out, wire, n);
  if (covered) {
    *crc = utvm_crc16_update(*crc, wire, n);
  }
}

void test_encode_packet(test_bytes_t *out, const uint8_t *payload, size_t len, size_t nop_before,
                        uint16_t crc_xor) {
  static const uint8_t start[2] = {0xFFu, 0xFDu};
  static const uint8_t nop[2] = {0xFFu, 0xFEu};
  uint16_t crc = utvm_crc16_update(UTVM_CRC16_INIT, start, sizeof(start));
  test_bytes_append(out, start, sizeof(start));
  uint32_t len32 = (uint32_t)len;
  for (uint32_t shift = 0u; shift < 32u; shift += 8u) {
    encode_byte(out, &crc, (uint8_t)(len32 >> shift), true);
  }
  for (size_t i = 0u; i < len; i++) {
    if (i == nop_before) {
      test_bytes_append(out, nop, sizeof(nop));
      crc = utvm_crc16_update(crc, nop, sizeof(nop));
    }
    encode_byte(out, &crc, payload[i], true);
  }
  crc ^= crc_xor;
  encode_byte(out, &crc, (uint8_t)crc, false);
  encode_byte(out, &crc, (uint8_t)(crc >> 8), false);
}

size_t test_decode_packets(const uint8_t *stream, size_t n, test_bytes_t *payloads,
                           size_t *lens, size_t max) {
  test_recorder_t rec;
  test_recorder_init(&rec);
  utvm_unframer_handler_t handler = test_recorder_unframer_handler(&rec);
  utvm_unframer_t unframer;
  utvm_unframer_init(&unframer, &handler, UINT32_MAX);
  utvm_unframer_feed(&unframer, stream, n);
  size_t total = test_recorder_units(&rec, NULL, 0u);
  test_unit_t *units = test_realloc(NULL, (total + 1u) * sizeof(*units));
  (void)test_recorder_units(&rec, units, total);
  size_t found = 0u;
  for (size_t i = 0u; i < total; i++) {
    if (units[i].ended && (units[i].status == UTVM_FRAME_OK)) {
      if (found < max) {
        test_bytes_append(payloads, units[i].data, units[i].len);
        lens[found] = units[i].len;
      }
      found++;
    }
  }
  free(units);
  test_recorder_free(&rec);
  return found;
}

const char *test_expand_error(const char *text) {
  static char expanded[4096];
  (void)utvm_host_expand_error(text, expanded, sizeof(expanded));
  return expanded;
}

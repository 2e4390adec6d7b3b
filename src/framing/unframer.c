/* Streaming packet decoder (PROTOCOL.md 1.6), hardened: it never stops accepting input. */
#include <string.h>

#include "framing_internal.h"

/* The three fields of a packet follow each other in this order. */
enum {
  UNFRAMER_HUNT = 0, /* looking for ff fd */
  UNFRAMER_LENGTH,   /* 4 escaped length bytes; remaining counts those still missing */
  UNFRAMER_PAYLOAD,  /* remaining counts payload bytes still missing */
  UNFRAMER_CRC       /* 2 escaped CRC bytes; remaining counts those still missing */
};

/* Ends the current packet (if packet_start announced it) and returns to hunting. */
static void unframer_end(utvm_unframer_t *u, utvm_frame_status_t status) {
  bool announced = (u->state >= UNFRAMER_PAYLOAD);
  u->state = UNFRAMER_HUNT;
  u->pending_ff = false;
  if (announced && (u->handler.packet_end != NULL)) {
    u->handler.packet_end(u->handler.ctx, status);
  }
}

/* The field of the current state has no byte missing: checks the CRC (state CRC), or moves
 * on to the next field. A packet without payload goes straight from LENGTH to CRC. */
static void unframer_field_complete(utvm_unframer_t *u) {
  if (u->state == UNFRAMER_CRC) {
    bool ok = ((u->field >> 16) == u->crc);
    if (ok) {
      u->stats.packets_ok++;
    } else {
      u->stats.crc_errors++;
    }
    unframer_end(u, ok ? UTVM_FRAME_OK : UTVM_FRAME_BAD_CRC);
    return;
  }
  if (u->state == UNFRAMER_LENGTH) {
    if (u->field > u->max_payload_len) {
      u->stats.length_overflows++;
      u->state = UNFRAMER_HUNT;
      return;
    }
    u->state = UNFRAMER_PAYLOAD;
    u->remaining = u->field;
    if (u->handler.packet_start != NULL) {
      u->handler.packet_start(u->handler.ctx, u->field);
    }
  }
  if (u->remaining == 0u) {
    u->state = UNFRAMER_CRC;
    u->remaining = 2u;
  }
}

/* n unescaped bytes of the current field (n is 1 outside the payload). The length and CRC
 * fields are little-endian: bytes enter field from the top, so after the last one the
 * length is field and the CRC is field >> 16. */
static inline void unframer_data(utvm_unframer_t *u, const uint8_t *data, size_t n) {
  u->remaining -= (uint32_t)n;
  if (u->state != UNFRAMER_PAYLOAD) {
    u->field = (u->field >> 8) | ((uint32_t)data[0] << 24);
  } else if (u->handler.payload != NULL) {
    u->handler.payload(u->handler.ctx, data, n);
  } else {
    /* Nobody listens to the payload. */
  }
  if (u->remaining == 0u) {
    unframer_field_complete(u);
  }
}

/* One wire byte: hunting, or inside a packet where the payload fast path did not take it. */
static void unframer_byte(utvm_unframer_t *u, const uint8_t *wire) {
  uint32_t b = *wire;
  bool escaped = u->pending_ff;
  u->pending_ff = false;
  if (escaped && (b == UTVM_FRAMING_START)) {
    if (u->state != UNFRAMER_HUNT) {
      u->stats.short_packets++;
      unframer_end(u, UTVM_FRAME_TRUNCATED);
    }
    u->state = UNFRAMER_LENGTH;
    u->remaining = 4u;
    u->crc = UTVM_FRAMING_START_CRC;
  } else if (u->state == UNFRAMER_HUNT) {
    u->pending_ff = (b == UTVM_FRAMING_ESCAPE);
  } else if (escaped && (b != UTVM_FRAMING_ESCAPE) && (b != UTVM_FRAMING_NOP)) {
    u->stats.invalid_escapes++;
    unframer_end(u, UTVM_FRAME_INVALID_ESCAPE);
  } else {
    /* The CRC covers every wire byte before the CRC field, escapes included. */
    if (u->state != UNFRAMER_CRC) {
      u->crc = utvm_crc16_update(u->crc, wire, 1u);
    }
    if (escaped ? (b == UTVM_FRAMING_ESCAPE) : (b != UTVM_FRAMING_ESCAPE)) {
      unframer_data(u, wire, 1u); /* a plain byte, or the 0xff of ff ff */
    } else {
      u->pending_ff = !escaped; /* an escape introducer, or the no-op ff fe */
    }
  }
}

/* Payload fast path (state PAYLOAD, no 0xff pending): passes on a run of ordinary bytes, or
 * of complete ff ff pairs, from data[0..n) and returns how many wire bytes it used; 0 leaves
 * data[0] to unframer_byte. The wire bytes of k pairs are 2k bytes 0xff, so their first k
 * bytes are also the k unescaped bytes. */
static size_t unframer_payload_run(utvm_unframer_t *u, const uint8_t *data, size_t n) {
  size_t limit = (n < u->remaining) ? n : (size_t)u->remaining;
  size_t count = 0u;
  while ((count < limit) && (data[count] != UTVM_FRAMING_ESCAPE)) {
    count++;
  }
  size_t used = count;
  if (count == 0u) {
    while (((2u * count) + 1u < n) && (count < limit) &&
           (data[2u * count] == UTVM_FRAMING_ESCAPE) &&
           (data[(2u * count) + 1u] == UTVM_FRAMING_ESCAPE)) {
      count++;
    }
    used = 2u * count;
  }
  if (count > 0u) {
    u->crc = utvm_crc16_update(u->crc, data, used);
    unframer_data(u, data, count);
  }
  return used;
}

void utvm_unframer_init(utvm_unframer_t *unframer, const utvm_unframer_handler_t *handler,
                        uint32_t max_payload_len) {
  (void)memset(unframer, 0, sizeof(*unframer)); /* state UNFRAMER_HUNT */
  if (handler != NULL) {
    unframer->handler = *handler;
  }
  unframer->max_payload_len = max_payload_len;
}

void utvm_unframer_feed(utvm_unframer_t *unframer, const uint8_t *data, size_t n) {
  size_t i = 0u;
  while (i < n) {
    size_t used = 0u;
    if ((unframer->state == UNFRAMER_PAYLOAD) && !unframer->pending_ff) {
      used = unframer_payload_run(unframer, &data[i], n - i);
    }
    if (used == 0u) {
      unframer_byte(unframer, &data[i]);
      used = 1u;
    }
    i += used;
  }
}

bool utvm_unframer_in_packet(const utvm_unframer_t *unframer) {
  return unframer->state >= UNFRAMER_PAYLOAD;
}

void utvm_unframer_reset(utvm_unframer_t *unframer) {
  unframer_end(unframer, UTVM_FRAME_TRUNCATED);
}

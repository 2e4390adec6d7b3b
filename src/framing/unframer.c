/* Streaming packet decoder (PROTOCOL.md 1.6), hardened: it never stops accepting input. */
#include <string.h>

#include "framing_internal.h"

enum {
  UNFRAMER_HUNT = 0, /* looking for ff fd */
  UNFRAMER_LENGTH,   /* 4 escaped length bytes; remaining counts those still missing */
  UNFRAMER_PAYLOAD,  /* remaining counts payload bytes still missing */
  UNFRAMER_CRC       /* 2 escaped CRC bytes; remaining counts those still missing */
};

static void unframer_begin(utvm_unframer_t *u) {
  u->state = UNFRAMER_LENGTH;
  u->remaining = 4u;
  u->crc = UTVM_FRAMING_START_CRC;
}

/* Ends the current packet (if packet_start announced it) and returns to hunting. */
static void unframer_end(utvm_unframer_t *u, utvm_frame_status_t status) {
  bool announced = (u->state >= UNFRAMER_PAYLOAD);
  u->state = UNFRAMER_HUNT;
  u->pending_ff = false;
  if (announced && (u->handler.packet_end != NULL)) {
    u->handler.packet_end(u->handler.ctx, status);
  }
}

/* Moves on to the CRC field once no payload byte is missing. */
static void unframer_check_payload_done(utvm_unframer_t *u) {
  if (u->remaining == 0u) {
    u->state = UNFRAMER_CRC;
    u->remaining = 2u;
  }
}

static void unframer_deliver(utvm_unframer_t *u, const uint8_t *data, size_t n) {
  u->remaining -= (uint32_t)n;
  if (u->handler.payload != NULL) {
    u->handler.payload(u->handler.ctx, data, n);
  }
  unframer_check_payload_done(u);
}

/* One unescaped byte of the length field (state LENGTH) or the CRC field (state CRC). Both
 * are little-endian: bytes enter field from the top, so after the last one the length is
 * field and the CRC is field >> 16. */
static void unframer_field_byte(utvm_unframer_t *u, uint8_t b) {
  u->field = (u->field >> 8) | ((uint32_t)b << 24);
  u->remaining--;
  if (u->remaining != 0u) {
    return;
  }
  if (u->state == UNFRAMER_CRC) {
    bool ok = ((u->field >> 16) == u->crc);
    if (ok) {
      u->stats.packets_ok++;
    } else {
      u->stats.crc_errors++;
    }
    unframer_end(u, ok ? UTVM_FRAME_OK : UTVM_FRAME_BAD_CRC);
  } else if (u->field > u->max_payload_len) {
    u->stats.length_overflows++;
    u->state = UNFRAMER_HUNT;
  } else {
    u->state = UNFRAMER_PAYLOAD;
    u->remaining = u->field;
    if (u->handler.packet_start != NULL) {
      u->handler.packet_start(u->handler.ctx, u->field);
    }
    unframer_check_payload_done(u);
  }
}

/* One wire byte: hunting, or inside a packet where the payload fast path did not take it. */
static void unframer_byte(utvm_unframer_t *u, uint8_t b) {
  bool escaped = u->pending_ff;
  u->pending_ff = false;
  if (escaped && (b == UTVM_FRAMING_START)) {
    if (u->state != UNFRAMER_HUNT) {
      u->stats.short_packets++;
      unframer_end(u, UTVM_FRAME_TRUNCATED);
    }
    unframer_begin(u);
  } else if (u->state == UNFRAMER_HUNT) {
    u->pending_ff = (b == UTVM_FRAMING_ESCAPE);
  } else if (escaped && (b != UTVM_FRAMING_ESCAPE) && (b != UTVM_FRAMING_NOP)) {
    u->stats.invalid_escapes++;
    unframer_end(u, UTVM_FRAME_INVALID_ESCAPE);
  } else {
    /* The CRC covers every wire byte before the CRC field, escapes included. */
    if (u->state != UNFRAMER_CRC) {
      u->crc = utvm_crc16_update(u->crc, &b, 1u);
    }
    if (escaped ? (b == UTVM_FRAMING_NOP) : (b == UTVM_FRAMING_ESCAPE)) {
      u->pending_ff = !escaped; /* an escape introducer, or the no-op ff fe */
    } else if (u->state == UNFRAMER_PAYLOAD) {
      unframer_deliver(u, &b, 1u);
    } else {
      unframer_field_byte(u, b);
    }
  }
}

/* Payload fast path (state PAYLOAD, no 0xff pending): passes on a run of ordinary bytes, or
 * of complete ff ff pairs, from data[0..n) and returns how many wire bytes it used; 0 leaves
 * data[0] to unframer_byte. */
static size_t unframer_payload_run(utvm_unframer_t *u, const uint8_t *data, size_t n) {
  size_t limit = (n < u->remaining) ? n : (size_t)u->remaining;
  const uint8_t *unescaped = data;
  size_t count = 0u;
  while ((count < limit) && (data[count] != UTVM_FRAMING_ESCAPE)) {
    count++;
  }
  size_t used = count;
  if (count == 0u) {
    unescaped = utvm_framing_ff_run;
    while (((2u * count) + 1u < n) && (count < limit) && (count < UTVM_FRAMING_FF_RUN_SIZE) &&
           (data[2u * count] == UTVM_FRAMING_ESCAPE) &&
           (data[(2u * count) + 1u] == UTVM_FRAMING_ESCAPE)) {
      count++;
    }
    used = 2u * count;
  }
  if (count > 0u) {
    u->crc = utvm_crc16_update(u->crc, data, used);
    unframer_deliver(u, unescaped, count);
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
      unframer_byte(unframer, data[i]);
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

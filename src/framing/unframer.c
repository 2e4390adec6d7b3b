/* Streaming packet decoder (PROTOCOL.md 1.6), hardened: it never stops accepting input. */
#include <string.h>

#include "framing_internal.h"

enum {
  UNFRAMER_HUNT = 0, /* looking for ff fd */
  UNFRAMER_LENGTH,   /* 4 escaped length bytes; remaining counts those still missing */
  UNFRAMER_PAYLOAD,  /* remaining counts payload bytes still missing */
  UNFRAMER_CRC       /* 2 escaped CRC bytes; remaining counts those still missing */
};

static const uint8_t start_sequence[2] = {UTVM_FRAMING_ESCAPE, UTVM_FRAMING_START};

static void unframer_begin(utvm_unframer_t *u) {
  u->state = UNFRAMER_LENGTH;
  u->remaining = 4u;
  u->length = 0u;
  u->pending_ff = false;
  u->crc = utvm_crc16_update(UTVM_CRC16_INIT, start_sequence, sizeof(start_sequence));
}

static bool unframer_announced(const utvm_unframer_t *u) {
  return (u->state == UNFRAMER_PAYLOAD) || (u->state == UNFRAMER_CRC);
}

/* Ends the current packet (if packet_start announced it) and returns to hunting. */
static void unframer_end(utvm_unframer_t *u, utvm_frame_status_t status) {
  bool announced = unframer_announced(u);
  u->state = UNFRAMER_HUNT;
  u->pending_ff = false;
  if (announced && (u->handler.packet_end != NULL)) {
    u->handler.packet_end(u->handler.ctx, status);
  }
}

static void unframer_deliver(utvm_unframer_t *u, const uint8_t *data, size_t n) {
  u->remaining -= (uint32_t)n;
  if (u->handler.payload != NULL) {
    u->handler.payload(u->handler.ctx, data, n);
  }
  if (u->remaining == 0u) {
    u->state = UNFRAMER_CRC;
    u->remaining = 2u;
  }
}

/* One unescaped byte of the length field (state LENGTH) or the CRC field (state CRC). */
static void unframer_field_byte(utvm_unframer_t *u, uint8_t b) {
  if (u->state == UNFRAMER_LENGTH) {
    u->length |= (uint32_t)b << (8u * (4u - u->remaining));
    u->remaining--;
    if (u->remaining == 0u) {
      if (u->length > u->max_payload_len) {
        u->stats.length_overflows++;
        u->state = UNFRAMER_HUNT;
      } else {
        u->state = UNFRAMER_PAYLOAD;
        u->remaining = u->length;
        if (u->handler.packet_start != NULL) {
          u->handler.packet_start(u->handler.ctx, u->length);
        }
        if (u->length == 0u) {
          u->state = UNFRAMER_CRC;
          u->remaining = 2u;
        }
      }
    }
  } else {
    u->rx_crc = (uint16_t)((u->remaining == 2u) ? (uint32_t)b : (u->rx_crc | ((uint32_t)b << 8)));
    u->remaining--;
    if (u->remaining == 0u) {
      bool ok = (u->rx_crc == u->crc);
      if (ok) {
        u->stats.packets_ok++;
      } else {
        u->stats.crc_errors++;
      }
      unframer_end(u, ok ? UTVM_FRAME_OK : UTVM_FRAME_BAD_CRC);
    }
  }
}

/* The byte after a 0xff inside a packet (the 0xff itself is already in the CRC). */
static void unframer_escaped_byte(utvm_unframer_t *u, uint8_t b) {
  bool covered = (u->state != UNFRAMER_CRC);
  u->pending_ff = false;
  if (b == UTVM_FRAMING_ESCAPE) {
    if (covered) {
      u->crc = utvm_crc16_update(u->crc, &b, 1u);
    }
    if (u->state == UNFRAMER_PAYLOAD) {
      unframer_deliver(u, utvm_framing_ff_run, 1u);
    } else {
      unframer_field_byte(u, b);
    }
  } else if (b == UTVM_FRAMING_NOP) {
    if (covered) {
      u->crc = utvm_crc16_update(u->crc, &b, 1u);
    }
  } else if (b == UTVM_FRAMING_START) {
    u->stats.short_packets++;
    unframer_end(u, UTVM_FRAME_TRUNCATED);
    unframer_begin(u);
  } else {
    u->stats.invalid_escapes++;
    unframer_end(u, UTVM_FRAME_INVALID_ESCAPE);
  }
}

/* Consumes payload bytes from data[0..n) and returns how many were used. */
static size_t unframer_payload(utvm_unframer_t *u, const uint8_t *data, size_t n) {
  size_t limit = (n < u->remaining) ? n : (size_t)u->remaining;
  size_t run = 0u;
  while ((run < limit) && (data[run] != UTVM_FRAMING_ESCAPE)) {
    run++;
  }
  if (run > 0u) {
    u->crc = utvm_crc16_update(u->crc, data, run);
    unframer_deliver(u, data, run);
    return run;
  }
  /* data[0] is an escape introducer: take as many complete ff ff pairs as possible. */
  size_t pairs = 0u;
  while (((2u * pairs) + 1u < n) && (pairs < limit) &&
         (pairs < (UTVM_FRAMING_FF_RUN_SIZE / 2u)) && (data[2u * pairs] == UTVM_FRAMING_ESCAPE) &&
         (data[(2u * pairs) + 1u] == UTVM_FRAMING_ESCAPE)) {
    pairs++;
  }
  if (pairs > 0u) {
    u->crc = utvm_crc16_update(u->crc, utvm_framing_ff_run, 2u * pairs);
    unframer_deliver(u, utvm_framing_ff_run, pairs);
    return 2u * pairs;
  }
  u->crc = utvm_crc16_update(u->crc, data, 1u);
  u->pending_ff = true;
  return 1u;
}

void utvm_unframer_init(utvm_unframer_t *unframer, const utvm_unframer_handler_t *handler,
                        uint32_t max_payload_len) {
  (void)memset(unframer, 0, sizeof(*unframer));
  if (handler != NULL) {
    unframer->handler = *handler;
  }
  unframer->max_payload_len = max_payload_len;
  unframer->state = UNFRAMER_HUNT;
}

void utvm_unframer_feed(utvm_unframer_t *unframer, const uint8_t *data, size_t n) {
  utvm_unframer_t *u = unframer;
  size_t i = 0u;
  while (i < n) {
    if (u->state == UNFRAMER_HUNT) {
      uint8_t b = data[i];
      i++;
      if (u->pending_ff && (b == UTVM_FRAMING_START)) {
        unframer_begin(u);
      } else {
        u->pending_ff = (b == UTVM_FRAMING_ESCAPE);
      }
    } else if (u->pending_ff) {
      uint8_t b = data[i];
      i++;
      unframer_escaped_byte(u, b);
    } else if (u->state == UNFRAMER_PAYLOAD) {
      i += unframer_payload(u, &data[i], n - i);
    } else {
      uint8_t b = data[i];
      i++;
      if (b == UTVM_FRAMING_ESCAPE) {
        if (u->state == UNFRAMER_LENGTH) {
          u->crc = utvm_crc16_update(u->crc, &b, 1u);
        }
        u->pending_ff = true;
      } else {
        if (u->state == UNFRAMER_LENGTH) {
          u->crc = utvm_crc16_update(u->crc, &b, 1u);
        }
        unframer_field_byte(u, b);
      }
    }
  }
}

bool utvm_unframer_in_packet(const utvm_unframer_t *unframer) {
  return unframer_announced(unframer);
}

void utvm_unframer_reset(utvm_unframer_t *unframer) {
  unframer_end(unframer, UTVM_FRAME_TRUNCATED);
}

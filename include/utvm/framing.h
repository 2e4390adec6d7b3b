/*
 * utvm framing layer: microTVM packet framing (PROTOCOL.md section 1).
 *
 * Wire format of one packet:  ff fd | u32 length | payload | u16 CRC
 * Length, payload and CRC are escaped (a data byte 0xff is sent as ff ff); the
 * CRC-16/CCITT-FALSE covers the wire bytes from the start sequence to the last
 * payload byte, escapes included.
 *
 * Both directions stream: the encoder is fed payload chunks after the length is
 * declared, the decoder passes payload bytes downstream as soon as they are
 * unescaped and reports the CRC verdict at the end of the packet. Neither side
 * holds a packet-sized buffer; all state lives in caller-owned structs.
 */
#ifndef UTVM_FRAMING_H
#define UTVM_FRAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Initial value of a CRC-16/CCITT-FALSE computation. */
#define UTVM_CRC16_INIT 0xFFFFu

/* Extends crc over n bytes of data and returns the new value. The build chooses the
 * implementation (CMake UTVM_CRC16): table (512-byte table), nibble (32-byte table, the
 * default) or bitwise (no table, slowest). */
uint16_t utvm_crc16_update(uint16_t crc, const uint8_t *data, size_t n);

/* Transport write callback: must accept all n bytes or return an error. */
typedef utvm_err_t (*utvm_write_fn)(void *ctx, const uint8_t *data, size_t n);

/* ---------------------------------------------------------------- encoder */

/* Streaming packet encoder. Fields are private; initialise with utvm_framer_init(). */
typedef struct {
  utvm_write_fn write;
  void *write_ctx;
  uint32_t remaining;  /* payload bytes still to be written in the open packet */
  uint16_t crc;
  bool in_packet;
  bool send_prefix;    /* next packet is preceded by one bare 0xfe (PROTOCOL.md 1.5) */
} utvm_framer_t;

/* Prepares an encoder that sends through write(write_ctx, ...). The first packet is
 * preceded by a bare 0xfe byte, as TVM's framer does after a reset. */
void utvm_framer_init(utvm_framer_t *framer, utvm_write_fn write, void *write_ctx);

/* Begins a packet of payload_len payload bytes (start sequence and length are sent now).
 * Returns UTVM_ERR_FRAMING_INVALID_STATE if a packet is already open, or the write
 * callback's error (the encoder then returns to its reset state). */
utvm_err_t utvm_framer_start(utvm_framer_t *framer, uint32_t payload_len);

/* Escapes and sends n payload bytes of the open packet. Returns
 * UTVM_ERR_FRAMING_PAYLOAD_OVERFLOW (nothing sent) if n exceeds what the declared length
 * leaves, UTVM_ERR_FRAMING_INVALID_STATE if no packet is open, or the write error. */
utvm_err_t utvm_framer_write(utvm_framer_t *framer, const uint8_t *data, size_t n);

/* Sends the CRC and closes the packet. Returns UTVM_ERR_FRAMING_PAYLOAD_INCOMPLETE if
 * fewer payload bytes than declared were written (the packet stays open). */
utvm_err_t utvm_framer_finish(utvm_framer_t *framer);

/* Sends a whole packet: start, write, finish. */
utvm_err_t utvm_framer_send(utvm_framer_t *framer, const uint8_t *payload, uint32_t len);

/* ---------------------------------------------------------------- decoder */

/* How a packet ended, as reported to the packet_end callback. */
typedef enum {
  UTVM_FRAME_OK = 0,        /* complete, CRC valid */
  UTVM_FRAME_BAD_CRC,       /* complete, CRC mismatch: discard what was streamed */
  UTVM_FRAME_TRUNCATED,     /* a new start sequence arrived inside the packet */
  UTVM_FRAME_INVALID_ESCAPE /* ff followed by a byte other than ff, fe, fd */
} utvm_frame_status_t;

/* Downstream of the decoder (the session layer, or a test). Any pointer may be NULL. */
typedef struct {
  /* A packet with a valid start and an acceptable length began. */
  void (*packet_start)(void *ctx, uint32_t payload_len);
  /* n unescaped payload bytes, in order; data is only valid during the call. */
  void (*payload)(void *ctx, const uint8_t *data, size_t n);
  /* The packet that packet_start announced ended (always called exactly once). */
  void (*packet_end)(void *ctx, utvm_frame_status_t status);
  void *ctx;
} utvm_unframer_handler_t;

/* Error counters, cumulative since init. */
typedef struct {
  uint32_t packets_ok;
  uint32_t crc_errors;
  uint32_t short_packets;    /* packet start inside a packet */
  uint32_t invalid_escapes;
  uint32_t length_overflows; /* length above max_payload_len: packet skipped */
} utvm_unframer_stats_t;

/* Streaming packet decoder. Fields are private; initialise with utvm_unframer_init(). */
typedef struct {
  uint8_t state;
  bool pending_ff;     /* last byte seen was an unpaired 0xff */
  uint16_t crc;
  uint32_t remaining;  /* payload bytes left, or length/CRC bytes left in those states */
  uint32_t field;      /* length or CRC field bytes received, the latest in the top byte */
  uint32_t max_payload_len;
  utvm_unframer_handler_t handler;
  utvm_unframer_stats_t stats;
} utvm_unframer_t;

/* Prepares a decoder that hunts for a packet start. Packets whose length field exceeds
 * max_payload_len are skipped and counted; pass UINT32_MAX for no limit. */
void utvm_unframer_init(utvm_unframer_t *unframer, const utvm_unframer_handler_t *handler,
                        uint32_t max_payload_len);

/* Consumes n bytes of any chunking. Never fails: errors are reported through packet_end
 * and the counters, and the decoder resynchronises on the next start sequence. */
void utvm_unframer_feed(utvm_unframer_t *unframer, const uint8_t *data, size_t n);

/* Returns true while the decoder is inside a packet (between packet_start and packet_end). */
bool utvm_unframer_in_packet(const utvm_unframer_t *unframer);

/* Abandons any packet in progress (packet_end(TRUNCATED) if one was open) and hunts again. */
void utvm_unframer_reset(utvm_unframer_t *unframer);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_FRAMING_H */

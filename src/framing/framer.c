/* Streaming packet encoder (PROTOCOL.md 1.1-1.5). */
#include <string.h>

#include "framing_internal.h"

static utvm_err_t framer_emit(utvm_framer_t *framer, const uint8_t *data, size_t n, bool in_crc) {
  if (in_crc) {
    framer->crc = utvm_crc16_update(framer->crc, data, n);
  }
  utvm_err_t err = framer->write(framer->write_ctx, data, n);
  if (err != UTVM_OK) {
    /* Like TVM's framer after a transport error: abandon the packet and prefix the next
     * one with 0xfe so the peer's receiver can resynchronise. */
    framer->in_packet = false;
    framer->send_prefix = true;
  }
  return err;
}

/* Sends data escaped: a run of ordinary bytes goes out in one write; a run of k bytes 0xff
 * is written twice, which makes the k escaped pairs ff ff. */
static utvm_err_t framer_emit_escaped(utvm_framer_t *framer, const uint8_t *data, size_t n,
                                      bool in_crc) {
  utvm_err_t err = UTVM_OK;
  size_t i = 0u;
  while ((i < n) && (err == UTVM_OK)) {
    bool ff_run = (data[i] == UTVM_FRAMING_ESCAPE);
    size_t run_end = i + 1u;
    while ((run_end < n) && ((data[run_end] == UTVM_FRAMING_ESCAPE) == ff_run)) {
      run_end++;
    }
    err = framer_emit(framer, &data[i], run_end - i, in_crc);
    if ((err == UTVM_OK) && ff_run) {
      err = framer_emit(framer, &data[i], run_end - i, in_crc);
    }
    i = run_end;
  }
  return err;
}

void utvm_framer_init(utvm_framer_t *framer, utvm_write_fn write, void *write_ctx) {
  (void)memset(framer, 0, sizeof(*framer));
  framer->write = write;
  framer->write_ctx = write_ctx;
  framer->send_prefix = true;
}

utvm_err_t utvm_framer_start(utvm_framer_t *framer, uint32_t payload_len) {
  /* The optional bare 0xfe, then the start sequence, which the CRC covers. */
  static const uint8_t prefix_and_start[3] = {UTVM_FRAMING_NOP_PREFIX, UTVM_FRAMING_ESCAPE,
                                              UTVM_FRAMING_START};
  if (framer->in_packet) {
    return UTVM_ERR_FRAMING_INVALID_STATE;
  }
  size_t skip = framer->send_prefix ? 0u : 1u;
  framer->send_prefix = false;
  framer->crc = UTVM_FRAMING_START_CRC;
  utvm_err_t err = framer_emit(framer, &prefix_and_start[skip], sizeof(prefix_and_start) - skip,
                               false);
  if (err == UTVM_OK) {
    const uint8_t length[4] = {(uint8_t)payload_len, (uint8_t)(payload_len >> 8),
                               (uint8_t)(payload_len >> 16), (uint8_t)(payload_len >> 24)};
    err = framer_emit_escaped(framer, length, sizeof(length), true);
  }
  if (err == UTVM_OK) {
    framer->remaining = payload_len;
    framer->in_packet = true;
  }
  return err;
}

utvm_err_t utvm_framer_write(utvm_framer_t *framer, const uint8_t *data, size_t n) {
  if (!framer->in_packet) {
    return UTVM_ERR_FRAMING_INVALID_STATE;
  }
  if (n > framer->remaining) {
    return UTVM_ERR_FRAMING_PAYLOAD_OVERFLOW;
  }
  utvm_err_t err = framer_emit_escaped(framer, data, n, true);
  if (err == UTVM_OK) {
    framer->remaining -= (uint32_t)n;
  }
  return err;
}

utvm_err_t utvm_framer_finish(utvm_framer_t *framer) {
  if (!framer->in_packet) {
    return UTVM_ERR_FRAMING_INVALID_STATE;
  }
  if (framer->remaining != 0u) {
    return UTVM_ERR_FRAMING_PAYLOAD_INCOMPLETE;
  }
  const uint8_t crc[2] = {(uint8_t)framer->crc, (uint8_t)(framer->crc >> 8)};
  utvm_err_t err = framer_emit_escaped(framer, crc, sizeof(crc), false);
  framer->in_packet = false;
  return err;
}

utvm_err_t utvm_framer_send(utvm_framer_t *framer, const uint8_t *payload, uint32_t len) {
  utvm_err_t err = utvm_framer_start(framer, len);
  if (err == UTVM_OK) {
    err = utvm_framer_write(framer, payload, len);
  }
  if (err == UTVM_OK) {
    err = utvm_framer_finish(framer);
  }
  return err;
}

/* Host RPC client: session handshake, request/reply exchange and every RPC request
 * (PROTOCOL.md sections 2-4, initiator side). */
#define _DEFAULT_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "link_internal.h"
#include "utvm/rpc_codes.h"
#include "utvm/rpc_server.h"

/* Largest message the host accepts or sends (header + body). */
#define HOST_MAX_MESSAGE (64u * 1024u * 1024u)
/* Sync exchanges tried before the link is declared unusable. */
#define HOST_SYNC_ATTEMPTS 3
/* Sessions opened while looking up Sequence and Sync before going on without recovery. */
#define HOST_SYNC_LOOKUP_ATTEMPTS 4
/* Every request is built after this much room for its sequence number (used or not). */
#define REQ_SEQ_ROOM UTVM_RPC_SEQ_PREFIX_SIZE
/* Adaptive copy chunks (bytes of data): never below this; doubled after this many clean chunks
 * in a row, halved after a lost or damaged one. */
#define HOST_MIN_COPY_CHUNK 128u
#define HOST_COPY_GROW_AFTER 4u
/* Exception texts of a utvm device for a request it received with a bad CRC: the first never
 * ran, the second is a copy whose destination was partly written (docs/RECOVERY.md). Matched
 * in host->error, where "#<id>" tokens are already expanded. */
#define HOST_NOT_EXECUTED_TEXT "was not executed"
#define HOST_BAD_CRC_TEXT "failed its CRC"
/* Largest argument count of a request. */
#define HOST_MAX_ARGS 64u
/* Bytes read from the transport at once. */
#define HOST_READ_CHUNK 4096u
/* Fixed part of a copy request: code, header without shape, nbytes (PROTOCOL.md 3.9). */
#define COPY_OVERHEAD 44u
/* Object type index of RPCObjectRef (PROTOCOL.md 3.3). */
#define RPC_OBJECT_TYPE_INDEX 9u

struct utvm_host {
  utvm_host_transport_t transport;
  utvm_host_options_t opts;
  utvm_session_t session;
  host_buffer_t tx;      /* framed bytes not yet written to the transport */
  host_buffer_t request; /* RPC packet being built */
  host_buffer_t reply;   /* body of the last Normal message */
  host_buffer_t sync_request; /* Sync packet (host->request is kept for a retry) */
  uint64_t sync_function;     /* handle of UTVM_RPC_SYNC_NAME, 0 if the device lacks it */
  bool sequenced;             /* the device has UTVM_RPC_SEQUENCE_NAME: requests are numbered */
  uint32_t seq;               /* number of the request in flight (sequenced sessions) */
  uint32_t damage_mark;       /* framing error count when the request was sent */
  size_t request_header;      /* CopyToRemote: packet bytes before the payload (else 0) */
  size_t copy_chunk;          /* adaptive copy chunk (0: not yet known) */
  uint32_t copy_clean;        /* clean copy chunks in a row */
  size_t reply_expected;
  size_t reply_skip;     /* bytes before the packet in host->reply (its sequence number) */
  bool reply_receiving;
  bool reply_ready;
  bool reply_overflow;
  char log[UTVM_SESSION_LOG_MAX + 1u];
  size_t log_len;
  bool log_receiving;
  char last_log[UTVM_SESSION_LOG_MAX + 1u];
  bool established;
  bool reset;
  bool eof;
  bool broken;
  uint64_t system_lib;
  uint64_t module_get_function;
  uint64_t max_packet;
  bool max_packet_known;
  uint64_t rng;
  utvm_host_progress_fn progress;
  void *progress_ctx;
  utvm_host_stats_t stats;
  char error[2048];
};

const char *utvm_host_strerror(utvm_host_err_t err) {
  switch (err) {
    case UTVM_HOST_OK:
      return "ok";
    case UTVM_HOST_ERR_ARGUMENT:
      return "invalid argument";
    case UTVM_HOST_ERR_CONNECT:
      return "cannot connect";
    case UTVM_HOST_ERR_IO:
      return "transport error";
    case UTVM_HOST_ERR_HANDSHAKE:
      return "session handshake failed";
    case UTVM_HOST_ERR_TIMEOUT:
      return "timeout";
    case UTVM_HOST_ERR_DEVICE_EXCEPTION:
      return "device exception";
    case UTVM_HOST_ERR_DEVICE_RESET:
      return "device reset";
    case UTVM_HOST_ERR_NOT_FOUND:
      return "not found";
    case UTVM_HOST_ERR_PROTOCOL:
      return "protocol error";
    case UTVM_HOST_ERR_NO_MEMORY:
      return "out of memory";
    case UTVM_HOST_ERR_BROKEN:
      return "link unusable";
    case UTVM_HOST_ERR_LINK:
      return "request or reply lost on the link";
    default:
      return "unknown error";
  }
}

/* ------------------------------------------------------------------------- buffers */

/* Largest message body the client buffers (a reply, a request, a transmit burst). */
#define HOST_BUFFER_LIMIT (HOST_MAX_MESSAGE + 64u)

static bool buffer_reserve(host_buffer_t *b, size_t extra) {
  return host_buffer_reserve(b, extra, HOST_BUFFER_LIMIT);
}

static bool buffer_append(host_buffer_t *b, const void *data, size_t n) {
  return host_buffer_append(b, data, n, HOST_BUFFER_LIMIT);
}

static void put_le(uint8_t *out, uint64_t v, size_t n) {
  for (size_t i = 0u; i < n; i++) {
    out[i] = (uint8_t)(v >> (8u * i));
  }
}

static uint64_t get_le(const uint8_t *in, size_t n) {
  uint64_t v = 0u;
  for (size_t i = 0u; i < n; i++) {
    v |= (uint64_t)in[i] << (8u * i);
  }
  return v;
}

/* Request builder: failures are remembered and reported when the request is sent. */
typedef struct {
  host_buffer_t *buf;
  bool ok;
} writer_t;

static void w_bytes(writer_t *w, const void *data, size_t n) {
  if (w->ok && !buffer_append(w->buf, data, n)) {
    w->ok = false;
  }
}

static void w_u32(writer_t *w, uint32_t v) {
  uint8_t b[4];
  put_le(b, v, 4u);
  w_bytes(w, b, 4u);
}

static void w_u64(writer_t *w, uint64_t v) {
  uint8_t b[8];
  put_le(b, v, 8u);
  w_bytes(w, b, 8u);
}

static void w_tensor(writer_t *w, const utvm_host_tensor_t *t, uint64_t byte_offset) {
  w_u64(w, t->data);
  w_u32(w, (uint32_t)t->device.device_type);
  w_u32(w, (uint32_t)t->device.device_id);
  w_u32(w, (uint32_t)t->ndim);
  uint8_t dtype[4] = {t->dtype.code, t->dtype.bits, (uint8_t)t->dtype.lanes,
                      (uint8_t)(t->dtype.lanes >> 8)};
  w_bytes(w, dtype, 4u);
  for (int32_t d = 0; d < t->ndim; d++) {
    w_u64(w, (uint64_t)t->shape[d]);
  }
  w_u64(w, byte_offset);
}

/* Starts a packet with room for a sequence number, its u64 length placeholder and code. */
static writer_t packet_begin(host_buffer_t *packet, uint32_t code) {
  packet->len = 0u;
  writer_t w = {packet, true};
  w_u64(&w, 0u);
  w_u64(&w, 0u);
  w_u32(&w, code);
  return w;
}

static writer_t request_begin(utvm_host_t *host, uint32_t code) {
  host->request_header = 0u;
  return packet_begin(&host->request, code);
}

static size_t value_len(const utvm_host_value_t *v) {
  if ((v->type_code != UTVM_TC_STR) || (v->v.bytes.len != SIZE_MAX)) {
    return v->v.bytes.len;
  }
  return (v->v.bytes.data != NULL) ? strlen((const char *)v->v.bytes.data) : 0u;
}

/* Appends a packed sequence (PROTOCOL.md 3.3). Returns false for an unsupported type. */
static bool w_args(writer_t *w, const utvm_host_value_t *args, size_t n) {
  if (n > HOST_MAX_ARGS) {
    return false;
  }
  w_u32(w, (uint32_t)n);
  for (size_t i = 0u; i < n; i++) {
    int32_t tc = (args[i].type_code == UTVM_TC_NDARRAY) ? UTVM_TC_DLTENSOR : args[i].type_code;
    w_u32(w, (uint32_t)tc);
  }
  for (size_t i = 0u; i < n; i++) {
    const utvm_host_value_t *a = &args[i];
    switch (a->type_code) {
      case UTVM_TC_INT:
      case UTVM_TC_UINT:
      case UTVM_TC_BOOL:
      case UTVM_TC_FLOAT:
      case UTVM_TC_HANDLE:
      case UTVM_TC_MODULE:
      case UTVM_TC_FUNCTION:
        w_u64(w, a->v.u);
        break;
      case UTVM_TC_NULL:
        break;
      case UTVM_TC_DATATYPE: {
        uint8_t dt[8] = {a->v.dtype.code, a->v.dtype.bits, (uint8_t)a->v.dtype.lanes,
                         (uint8_t)(a->v.dtype.lanes >> 8), 0u, 0u, 0u, 0u};
        w_bytes(w, dt, sizeof(dt));
        break;
      }
      case UTVM_TC_DEVICE:
        w_u32(w, (uint32_t)a->v.device.device_type);
        w_u32(w, (uint32_t)a->v.device.device_id);
        break;
      case UTVM_TC_DLTENSOR:
      case UTVM_TC_NDARRAY:
        if ((a->v.tensor.ndim < 0) || (a->v.tensor.ndim > UTVM_HOST_MAX_NDIM)) {
          return false;
        }
        w_tensor(w, &a->v.tensor, a->v.tensor.byte_offset);
        break;
      case UTVM_TC_OBJECT:
        w_u32(w, RPC_OBJECT_TYPE_INDEX);
        w_u64(w, a->v.handle);
        break;
      case UTVM_TC_STR:
      case UTVM_TC_BYTES: {
        size_t len = value_len(a);
        w_u64(w, len);
        w_bytes(w, a->v.bytes.data, len);
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

/* Reply reader with bounds checks. */
typedef struct {
  const uint8_t *p;
  size_t len;
  size_t pos;
  bool ok;
} reader_t;

static const uint8_t *r_take(reader_t *r, size_t n) {
  if (!r->ok || (n > (r->len - r->pos))) {
    r->ok = false;
    return NULL;
  }
  const uint8_t *at = &r->p[r->pos];
  r->pos += n;
  return at;
}

static uint64_t r_u(reader_t *r, size_t n) {
  const uint8_t *at = r_take(r, n);
  return (at != NULL) ? get_le(at, n) : 0u;
}

/* Decodes one value of wire type code tc (server mode: no module/function codes). */
static bool r_value(reader_t *r, int32_t tc, utvm_host_value_t *out) {
  (void)memset(out, 0, sizeof(*out));
  out->type_code = tc;
  switch (tc) {
    case UTVM_TC_INT:
    case UTVM_TC_UINT:
    case UTVM_TC_BOOL:
    case UTVM_TC_FLOAT:
    case UTVM_TC_HANDLE:
      out->v.u = r_u(r, 8u);
      break;
    case UTVM_TC_NULL:
      break;
    case UTVM_TC_DATATYPE:
      out->v.dtype.code = (uint8_t)r_u(r, 1u);
      out->v.dtype.bits = (uint8_t)r_u(r, 1u);
      out->v.dtype.lanes = (uint16_t)r_u(r, 2u);
      (void)r_take(r, 4u);
      break;
    case UTVM_TC_DEVICE:
      out->v.device.device_type = (int32_t)(uint32_t)r_u(r, 4u);
      out->v.device.device_id = (int32_t)(uint32_t)r_u(r, 4u);
      break;
    case UTVM_TC_DLTENSOR: {
      utvm_host_tensor_t *t = &out->v.tensor;
      t->data = r_u(r, 8u);
      t->device.device_type = (int32_t)(uint32_t)r_u(r, 4u);
      t->device.device_id = (int32_t)(uint32_t)r_u(r, 4u);
      t->ndim = (int32_t)(uint32_t)r_u(r, 4u);
      t->dtype.code = (uint8_t)r_u(r, 1u);
      t->dtype.bits = (uint8_t)r_u(r, 1u);
      t->dtype.lanes = (uint16_t)r_u(r, 2u);
      if ((t->ndim < 0) || (t->ndim > UTVM_HOST_MAX_NDIM)) {
        return false;
      }
      for (int32_t d = 0; d < t->ndim; d++) {
        t->shape[d] = (int64_t)r_u(r, 8u);
      }
      t->byte_offset = r_u(r, 8u);
      break;
    }
    case UTVM_TC_STR:
    case UTVM_TC_BYTES: {
      uint64_t len = r_u(r, 8u);
      if (len > (r->len - r->pos)) {
        return false;
      }
      out->v.bytes.data = r_take(r, (size_t)len);
      out->v.bytes.len = (size_t)len;
      break;
    }
    default:
      return false;
  }
  return r->ok;
}

/* ------------------------------------------------------------------------- session glue */

static utvm_err_t session_write(void *ctx, const uint8_t *data, size_t n) {
  utvm_host_t *host = (utvm_host_t *)ctx;
  return buffer_append(&host->tx, data, n) ? UTVM_OK : UTVM_ERR_WRITE_FAILED;
}

/* xorshift64*, seeded from the clock and pid: nonces only need to differ between runs. */
static utvm_err_t session_random(void *ctx, uint8_t *buf, size_t n) {
  utvm_host_t *host = (utvm_host_t *)ctx;
  for (size_t i = 0u; i < n; i++) {
    host->rng ^= host->rng >> 12;
    host->rng ^= host->rng << 25;
    host->rng ^= host->rng >> 27;
    buf[i] = (uint8_t)((host->rng * 0x2545F4914F6CDD1DULL) >> 56);
  }
  return UTVM_OK;
}

static void on_event(void *ctx, utvm_session_event_t event) {
  utvm_host_t *host = (utvm_host_t *)ctx;
  if (event == UTVM_SESSION_EVENT_ESTABLISHED) {
    host->established = true;
  } else {
    host->established = false;
    host->reset = true;
  }
}

/* True if the reply in host->reply answers the request in flight of a sequenced session (then
 * parse_reply skips its prefix); others are late replies to earlier attempts or requests. */
static bool reply_is_current(utvm_host_t *host) {
  const host_buffer_t *b = &host->reply;
  if ((b->len < (REQ_SEQ_ROOM + 12u)) ||
      (get_le(&b->data[REQ_SEQ_ROOM], 8u) != (uint64_t)(b->len - REQ_SEQ_ROOM - 8u)) ||
      (get_le(&b->data[6], 2u) != UTVM_RPC_SEQ_TAG) || (get_le(b->data, 4u) != host->seq)) {
    return false;
  }
  host->reply_skip = REQ_SEQ_ROOM;
  return true;
}

static void on_message_start(void *ctx, utvm_msg_type_t type, uint32_t body_len) {
  utvm_host_t *host = (utvm_host_t *)ctx;
  if (type == UTVM_MSG_LOG) {
    host->log_receiving = true;
    host->log_len = 0u;
    return;
  }
  if (host->sequenced && host->reply_ready) {
    host->stats.stale_replies++; /* the current reply is in: later ones are late repeats */
    return;
  }
  host->reply_receiving = true;
  host->reply_ready = false;
  host->reply.len = 0u;
  host->reply_skip = 0u;
  host->reply_expected = body_len;
  host->reply_overflow = !buffer_reserve(&host->reply, body_len);
}

static void on_message_data(void *ctx, const uint8_t *data, size_t n) {
  utvm_host_t *host = (utvm_host_t *)ctx;
  if (host->log_receiving) {
    size_t room = UTVM_SESSION_LOG_MAX - host->log_len;
    size_t take = (n < room) ? n : room;
    (void)memcpy(&host->log[host->log_len], data, take);
    host->log_len += take;
  } else if (host->reply_receiving && !host->reply_overflow) {
    if (n > (host->reply_expected - host->reply.len)) {
      host->reply_overflow = true;
    } else {
      (void)buffer_append(&host->reply, data, n);
    }
  } else {
    /* Overflowing reply: dropped, reported when it ends. */
  }
}

static void default_log(void *ctx, const char *text, size_t len) {
  (void)ctx;
  (void)fprintf(stderr, "device: %.*s\n", (int)len, text);
}

static void on_message_end(void *ctx, utvm_frame_status_t status) {
  utvm_host_t *host = (utvm_host_t *)ctx;
  if (host->log_receiving) {
    host->log_receiving = false;
    if (status == UTVM_FRAME_OK) {
      host->log[host->log_len] = '\0';
      (void)memcpy(host->last_log, host->log, host->log_len + 1u);
      host->stats.logs++;
      utvm_host_log_fn fn = (host->opts.log != NULL) ? host->opts.log : default_log;
      fn(host->opts.log_ctx, host->log, host->log_len);
    }
    return;
  }
  if (!host->reply_receiving) {
    return;
  }
  host->reply_receiving = false;
  if ((status == UTVM_FRAME_OK) && host->sequenced && !reply_is_current(host)) {
    host->stats.stale_replies++;
  } else if (status == UTVM_FRAME_OK) {
    host->reply_ready = true;
  } else {
    /* damaged: dropped (wait_reply notices the framing error) */
  }
}

/* ------------------------------------------------------------------------- I/O */

static utvm_host_err_t flush_tx(utvm_host_t *host) {
  if (host->tx.len == 0u) {
    return UTVM_HOST_OK;
  }
  int rc = host->transport.write(host->transport.ctx, host->tx.data, host->tx.len,
                                 host->opts.call_timeout_ms);
  host->stats.bytes_sent += host->tx.len;
  host->tx.len = 0u;
  if (rc != 0) {
    host->broken = true;
    host_format(host->error, sizeof(host->error),
                "cannot write to the device (it closed the connection or stopped reading)");
    return UTVM_HOST_ERR_IO;
  }
  return UTVM_HOST_OK;
}

/* Reads and processes input for at most timeout_ms (one transport read). */
static utvm_host_err_t pump(utvm_host_t *host, int32_t timeout_ms) {
  uint8_t buf[HOST_READ_CHUNK];
  long got = host->transport.read(host->transport.ctx, buf, sizeof(buf), timeout_ms);
  if (got < 0) {
    host->eof = true;
    return UTVM_HOST_ERR_IO;
  }
  if (got > 0) {
    host->stats.bytes_received += (uint64_t)got;
    utvm_session_feed(&host->session, buf, (size_t)got);
  }
  return UTVM_HOST_OK;
}

static void describe_last_log(const utvm_host_t *host, char *buf, size_t size) {
  if (host->last_log[0] != '\0') {
    host_format(buf, size, "; last device log: \"%s\"", host->last_log);
  } else {
    host_format(buf, size, "; the device sent no log message");
  }
}

/* Framing errors seen so far (damaged or cut frames of any kind). */
static uint32_t framing_errors(const utvm_host_t *host) {
  utvm_unframer_stats_t f;
  utvm_session_get_stats(&host->session, NULL, &f);
  return f.crc_errors + f.short_packets + f.invalid_escapes + f.length_overflows;
}

/* Waits until deadline for the next reply. UTVM_HOST_ERR_TIMEOUT (link not marked broken, no
 * message) if none arrived, or, in a sequenced session, as soon as a damaged frame arrived
 * (most likely the reply: repeating the request is safe there); reset, end of stream and
 * oversize replies break the link. */
static utvm_host_err_t wait_reply(utvm_host_t *host, const char *what, int64_t deadline) {
  char cause[UTVM_SESSION_LOG_MAX + 64u];
  for (;;) {
    if (host->reset) {
      host->broken = true;
      describe_last_log(host, cause, sizeof(cause));
      host_format(host->error, sizeof(host->error),
                  "the device reset (terminated the session) during %s%s", what, cause);
      return UTVM_HOST_ERR_DEVICE_RESET;
    }
    if (host->reply_ready) {
      host->reply_ready = false;
      if (host->reply_overflow) {
        host->broken = true;
        host_format(host->error, sizeof(host->error), "reply to %s too large", what);
        return UTVM_HOST_ERR_NO_MEMORY;
      }
      return UTVM_HOST_OK;
    }
    if (host->eof) {
      host->broken = true;
      describe_last_log(host, cause, sizeof(cause));
      host_format(host->error, sizeof(host->error),
                  "the device closed the connection during %s%s", what, cause);
      return UTVM_HOST_ERR_IO;
    }
    if (host->sequenced && (framing_errors(host) != host->damage_mark)) {
      host->stats.damaged_replies++;
      return UTVM_HOST_ERR_TIMEOUT;
    }
    int64_t left = deadline - host_now_ms();
    if (left <= 0) {
      host->stats.lost_replies++;
      return UTVM_HOST_ERR_TIMEOUT;
    }
    (void)pump(host, (int32_t)left);
  }
}

/* Sends the RPC packet built in packet (packet_begin: its length filled in here) as one
 * Normal message, after the request's sequence number in a sequenced session. */
static utvm_host_err_t send_packet(utvm_host_t *host, host_buffer_t *packet, const char *what) {
  put_le(&packet->data[REQ_SEQ_ROOM], packet->len - REQ_SEQ_ROOM - 8u, 8u);
  const uint8_t *start = packet->data;
  size_t len = packet->len;
  if (host->sequenced) {
    uint16_t check = 0u;
    if ((packet == &host->request) && (host->request_header > 0u)) {
      check = utvm_crc16_update(UTVM_CRC16_INIT, &packet->data[REQ_SEQ_ROOM],
                                host->request_header);
    }
    put_le(packet->data, host->seq, 4u);
    put_le(&packet->data[4], ((uint64_t)UTVM_RPC_SEQ_TAG << 16) | check, 4u);
  } else {
    start = &packet->data[REQ_SEQ_ROOM];
    len -= REQ_SEQ_ROOM;
  }
  host->damage_mark = framing_errors(host);
  utvm_err_t err = utvm_session_message_begin(&host->session, (uint32_t)len);
  if (err == UTVM_OK) {
    err = utvm_session_message_write(&host->session, start, len);
  }
  if (err == UTVM_OK) {
    err = utvm_session_message_end(&host->session);
  }
  if (err != UTVM_OK) {
    host->broken = true;
    host_format(host->error, sizeof(host->error), "cannot send %s: %s", what,
                utvm_strerror(err));
    return UTVM_HOST_ERR_IO;
  }
  host->stats.requests++;
  return flush_tx(host);
}

/* Checks the reply in host->reply: r reads it after its code, *code is the RPC code.
 * Exceptions become UTVM_HOST_ERR_DEVICE_EXCEPTION with the text in host->error. */
static utvm_host_err_t parse_reply(utvm_host_t *host, const char *what, reader_t *r,
                                   uint32_t *code) {
  r->p = &host->reply.data[host->reply_skip];
  r->len = host->reply.len - host->reply_skip;
  r->pos = 0u;
  r->ok = true;
  uint64_t nbytes = r_u(r, 8u);
  *code = (uint32_t)r_u(r, 4u);
  if (!r->ok || (nbytes != (uint64_t)(r->len - 8u))) {
    host_format(host->error, sizeof(host->error), "malformed reply to %s", what);
    return UTVM_HOST_ERR_PROTOCOL;
  }
  if (*code == UTVM_RPC_EXCEPTION) {
    host->stats.exceptions++;
    utvm_host_value_t text;
    uint32_t num = (uint32_t)r_u(r, 4u);
    uint32_t tc = (uint32_t)r_u(r, 4u);
    if ((num == 1u) && (tc == UTVM_TC_STR) && r_value(r, UTVM_TC_STR, &text)) {
      /* A device built without error texts sends "#<id>" tokens: kept expanded, so that the
       * recovery below and every caller read the texts. */
      char device_text[sizeof(host->error)];
      host_format(device_text, sizeof(device_text), "%.*s", (int)text.v.bytes.len,
                  (const char *)text.v.bytes.data);
      (void)utvm_host_expand_error(device_text, host->error, sizeof(host->error));
    } else {
      host_format(host->error, sizeof(host->error), "device exception (undecodable text)");
    }
    return UTVM_HOST_ERR_DEVICE_EXCEPTION;
  }
  return UTVM_HOST_OK;
}

/* True if the reply in host->reply is the Return of Sync(token). */
static bool is_sync_reply(utvm_host_t *host, uint64_t token) {
  reader_t r;
  uint32_t code = 0u;
  char saved[sizeof(host->error)];
  (void)memcpy(saved, host->error, sizeof(saved));
  utvm_host_err_t rc = parse_reply(host, "Sync", &r, &code);
  (void)memcpy(host->error, saved, sizeof(saved));
  if ((rc != UTVM_HOST_OK) || (code != UTVM_RPC_RETURN)) {
    return false;
  }
  uint32_t num = (uint32_t)r_u(&r, 4u);
  uint32_t tc0 = (uint32_t)r_u(&r, 4u);
  uint32_t tc1 = (uint32_t)r_u(&r, 4u);
  uint64_t original = r_u(&r, 8u);
  uint64_t value = r_u(&r, 8u);
  return r.ok && (r.pos == r.len) && (num == 2u) && (tc0 == UTVM_TC_INT) &&
         (tc1 == UTVM_TC_INT) && (original == UTVM_TC_INT) && (value == token);
}

/* Resynchronises after a lost request or reply: sends Sync(token) and discards every reply
 * until the one carrying token, so no late reply can be taken for a later request's. On
 * failure the link is broken. */
static utvm_host_err_t resync(utvm_host_t *host, const char *what) {
  for (int32_t attempt = 0; attempt < HOST_SYNC_ATTEMPTS; attempt++) {
    uint64_t token = 0u;
    (void)session_random(host, (uint8_t *)&token, sizeof(token));
    token &= 0x7FFFFFFFFFFFFFFFULL;
    writer_t w = packet_begin(&host->sync_request, UTVM_RPC_CALL_FUNC);
    w_u64(&w, host->sync_function);
    utvm_host_value_t arg;
    arg.type_code = UTVM_TC_INT;
    arg.v.u = token;
    w.ok = w.ok && w_args(&w, &arg, 1u);
    if (!w.ok) {
      host->broken = true;
      host_format(host->error, sizeof(host->error), "out of memory");
      return UTVM_HOST_ERR_NO_MEMORY;
    }
    host->stats.resyncs++;
    host->reply_ready = false;
    utvm_host_err_t rc = send_packet(host, &host->sync_request, "Sync");
    int64_t deadline = host_now_ms() + host->opts.call_timeout_ms;
    while (rc == UTVM_HOST_OK) {
      rc = wait_reply(host, "Sync", deadline);
      if (rc != UTVM_HOST_OK) {
        break;
      }
      if (is_sync_reply(host, token)) {
        return UTVM_HOST_OK;
      }
      host->stats.stale_replies++;
      if (strstr(host->error, HOST_NOT_EXECUTED_TEXT) != NULL) {
        /* Possibly the Sync itself arrived damaged: send another one now. */
        rc = UTVM_HOST_ERR_TIMEOUT;
      }
    }
    if (rc != UTVM_HOST_ERR_TIMEOUT) {
      return rc;
    }
  }
  host->broken = true;
  host_format(host->error, sizeof(host->error),
              "no reply to %s, and %d Sync requests got no answer within %d ms each: the link "
              "is unusable; reconnect", what, HOST_SYNC_ATTEMPTS, (int)host->opts.call_timeout_ms);
  return UTVM_HOST_ERR_TIMEOUT;
}

/* Sequenced session (docs/RECOVERY.md): host->request goes out under a new number and is sent
 * again under the same number until an intact reply carrying it arrives; the device runs a
 * number once and answers a repeat from its reply cache, so every request is safe to repeat.
 * At most retries repeats. */
static utvm_host_err_t transact_sequenced(utvm_host_t *host, const char *what, int32_t retries,
                                          reader_t *r, uint32_t *code) {
  uint32_t lost = 0u;
  uint32_t refused = 0u;
  host->seq++;
  for (int32_t attempt = 0;; attempt++) {
    if (host->reset) {
      return wait_reply(host, what, 0); /* reports the reset */
    }
    host->error[0] = '\0';
    host->last_log[0] = '\0';
    host->reply_ready = false;
    utvm_host_err_t rc = send_packet(host, &host->request, what);
    int64_t deadline = host_now_ms() + host->opts.call_timeout_ms;
    if (rc == UTVM_HOST_OK) {
      rc = wait_reply(host, what, deadline); /* only the current reply becomes ready */
    }
    if (rc == UTVM_HOST_OK) {
      rc = parse_reply(host, what, r, code);
      if ((rc != UTVM_HOST_ERR_DEVICE_EXCEPTION) || (strstr(host->error, HOST_BAD_CRC_TEXT) == NULL)) {
        return rc;
      }
      host->stats.not_executed++;
      refused++;
    } else if (rc == UTVM_HOST_ERR_TIMEOUT) {
      lost++;
    } else {
      return rc;
    }
    if (attempt >= retries) {
      host_format(host->error, sizeof(host->error),
                  "%s: no intact reply in %d attempts (%u lost or damaged on the link, %u "
                  "damaged on the way to the device; %d ms per attempt); it ran at most once",
                  what, (int)attempt + 1, (unsigned)lost, (unsigned)refused,
                  (int)host->opts.call_timeout_ms);
      return UTVM_HOST_ERR_LINK;
    }
    host->stats.retries++;
  }
}

/* Sends host->request and waits for its reply, recovering from losses (docs/RECOVERY.md): in a
 * sequenced session every request is repeated (transact_sequenced); otherwise after a timeout
 * the link is resynchronised with Sync and an idempotent request is sent again, and a request
 * the device reports as not executed (bad CRC) is sent again whatever it is. At most retries
 * repeats. On success r reads the reply after its code and *code is the RPC code. */
static utvm_host_err_t transact(utvm_host_t *host, bool built, const char *what, bool idempotent,
                                int32_t retries, reader_t *r, uint32_t *code) {
  if (!built) {
    host_format(host->error, sizeof(host->error), "cannot encode %s (unsupported argument or "
                "too large)", what);
    return UTVM_HOST_ERR_ARGUMENT;
  }
  if (host->broken) {
    host_format(host->error, sizeof(host->error),
                "the link is unusable after an earlier failure; reconnect");
    return UTVM_HOST_ERR_BROKEN;
  }
  int32_t max_retries = (retries > 0) ? retries : 0;
  if (host->sequenced) {
    return transact_sequenced(host, what, max_retries, r, code);
  }
  for (int32_t attempt = 0;; attempt++) {
    host->error[0] = '\0';
    host->last_log[0] = '\0';
    host->reply_ready = false;
    utvm_host_err_t rc = send_packet(host, &host->request, what);
    if (rc == UTVM_HOST_OK) {
      rc = wait_reply(host, what, host_now_ms() + host->opts.call_timeout_ms);
    }
    bool timed_out = (rc == UTVM_HOST_ERR_TIMEOUT);
    bool retry_any = false;
    if (rc == UTVM_HOST_OK) {
      rc = parse_reply(host, what, r, code);
      if (rc != UTVM_HOST_ERR_DEVICE_EXCEPTION) {
        return rc;
      }
      retry_any = (strstr(host->error, HOST_NOT_EXECUTED_TEXT) != NULL);
      if (!retry_any && (!idempotent || (strstr(host->error, HOST_BAD_CRC_TEXT) == NULL))) {
        return rc;
      }
      host->stats.not_executed++;
    } else if (!timed_out) {
      return rc;
    } else {
      /* Lost request or reply. */
    }
    if (host->sync_function != 0u) {
      utvm_host_err_t sync_rc = resync(host, what);
      if (sync_rc != UTVM_HOST_OK) {
        return sync_rc;
      }
    } else if (timed_out) {
      host->broken = true;
      host_format(host->error, sizeof(host->error),
                  "no reply to %s within %d ms (raise the timeout, or check that the device "
                  "is running the utvm server)", what, (int)host->opts.call_timeout_ms);
      return UTVM_HOST_ERR_TIMEOUT;
    } else {
      /* The device answered "not executed": nothing of this request is still in flight. */
    }
    if (!retry_any && !idempotent) {
      host_format(host->error, sizeof(host->error),
                  "no reply to %s within %d ms: the request or its reply was lost, so it may "
                  "or may not have run (the link is resynchronised)", what,
                  (int)host->opts.call_timeout_ms);
      return UTVM_HOST_ERR_LINK;
    }
    if (attempt >= max_retries) {
      if (timed_out) {
        host_format(host->error, sizeof(host->error),
                    "%s lost on the link %d times; giving up (the link is resynchronised)",
                    what, (int)attempt + 1);
        return UTVM_HOST_ERR_LINK;
      }
      return UTVM_HOST_ERR_DEVICE_EXCEPTION;
    }
    host->stats.retries++;
  }
}

/* Reads a Return packet's packed sequence header: count and type codes. */
static bool r_seq_header(reader_t *r, uint32_t *num, int32_t *codes, uint32_t max) {
  *num = (uint32_t)r_u(r, 4u);
  if (!r->ok || (*num > max)) {
    return false;
  }
  for (uint32_t i = 0u; i < *num; i++) {
    codes[i] = (int32_t)(uint32_t)r_u(r, 4u);
  }
  return r->ok;
}

/* Syscall exchange: one return value (PROTOCOL.md 3.5). */
/* A syscall request built in w, with at most retries repeats after a loss; its one return
 * value into *result (may be NULL). */
static utvm_host_err_t rpc_syscall_value(utvm_host_t *host, writer_t *w, const char *what,
                                         bool idempotent, int32_t retries,
                                         utvm_host_value_t *result) {
  reader_t r;
  uint32_t code = 0u;
  utvm_host_err_t rc = transact(host, w->ok, what, idempotent, retries, &r, &code);
  if (rc != UTVM_HOST_OK) {
    return rc;
  }
  uint32_t num = 0u;
  int32_t codes[1];
  utvm_host_value_t value;
  if ((code != UTVM_RPC_RETURN) || !r_seq_header(&r, &num, codes, 1u) || (num != 1u) ||
      !r_value(&r, codes[0], &value)) {
    host_format(host->error, sizeof(host->error), "unexpected reply to %s", what);
    return UTVM_HOST_ERR_PROTOCOL;
  }
  if (result != NULL) {
    *result = value;
  }
  return UTVM_HOST_OK;
}

static utvm_host_err_t rpc_syscall(utvm_host_t *host, writer_t *w, const char *what,
                                   bool idempotent, utvm_host_value_t *result) {
  return rpc_syscall_value(host, w, what, idempotent, host->opts.max_retries, result);
}

/* An idempotent syscall without a result, repeated at most retries times. */
static utvm_host_err_t rpc_syscall_retries(utvm_host_t *host, writer_t *w, const char *what,
                                           int32_t retries) {
  return rpc_syscall_value(host, w, what, true, retries, NULL);
}

/* ------------------------------------------------------------------------- open / close */

void utvm_host_options_default(utvm_host_options_t *opts) {
  (void)memset(opts, 0, sizeof(*opts));
  opts->retry_ms = 500;
  opts->start_timeout_ms = 5000;
  opts->call_timeout_ms = 10000;
  opts->use_max_transfer = true;
  opts->recover = true;
  opts->max_retries = 10;
}

static void forget_session_state(utvm_host_t *host) {
  host->system_lib = 0u;
  host->module_get_function = 0u;
  host->max_packet = 0u;
  host->max_packet_known = false;
  host->sync_function = 0u;
  host->sequenced = false;
  host->seq = 0u;
  host->reset = false;
  host->established = false;
  host->broken = false;
  host->reply_ready = false;
  host->reply_receiving = false;
  host->log_receiving = false;
  host->tx.len = 0u;
}

static utvm_host_err_t handshake_once(utvm_host_t *host) {
  int64_t start = host_now_ms();
  int64_t give_up = start + host->opts.start_timeout_ms;
  forget_session_state(host);
  if (host->eof) {
    host_format(host->error, sizeof(host->error), "the device connection is closed");
    return UTVM_HOST_ERR_IO;
  }
  for (;;) {
    utvm_err_t err = utvm_session_start(&host->session);
    host->stats.handshake_attempts++;
    utvm_host_err_t rc = (err == UTVM_OK) ? flush_tx(host) : UTVM_HOST_ERR_IO;
    if (rc != UTVM_HOST_OK) {
      host_format(host->error, sizeof(host->error),
                  "cannot send the session handshake (device not running?)");
      return UTVM_HOST_ERR_CONNECT;
    }
    int64_t retry_at = host_now_ms() + ((host->opts.retry_ms > 0) ? host->opts.retry_ms
                                                                   : host->opts.start_timeout_ms);
    if (retry_at > give_up) {
      retry_at = give_up;
    }
    while (!host->established && !host->eof) {
      int64_t left = retry_at - host_now_ms();
      if (left <= 0) {
        break;
      }
      (void)pump(host, (int32_t)left);
    }
    if (host->established) {
      host->reset = false;
      return UTVM_HOST_OK;
    }
    if (host->eof) {
      char cause[UTVM_SESSION_LOG_MAX + 64u];
      describe_last_log(host, cause, sizeof(cause));
      host_format(host->error, sizeof(host->error),
                  "the device closed the connection during the session handshake%s "
                  "(check the transport command)", cause);
      return UTVM_HOST_ERR_CONNECT;
    }
    if (host_now_ms() >= give_up) {
      host_format(host->error, sizeof(host->error),
                  "session handshake failed after %.1f s (%u attempts): the device does not "
                  "answer; check the transport, baud rate and that the utvm server runs",
                  (double)(host_now_ms() - start) / 1000.0,
                  (unsigned)host->stats.handshake_attempts);
      return UTVM_HOST_ERR_HANDSHAKE;
    }
  }
}

/* Sets recovery up: numbered requests if the device has UTVM_RPC_SEQUENCE_NAME, else Sync if
 * it has UTVM_RPC_SYNC_NAME (host->sync_function stays 0 if it has neither). */
static utvm_host_err_t lookup_recovery(utvm_host_t *host) {
  uint64_t sequence = 0u;
  utvm_host_err_t rc = utvm_host_get_global(host, UTVM_RPC_SEQUENCE_NAME, &sequence);
  if ((rc == UTVM_HOST_OK) && (sequence != 0u)) {
    host->sequenced = true;
    return rc;
  }
  if (rc == UTVM_HOST_OK) {
    rc = utvm_host_get_global(host, UTVM_RPC_SYNC_NAME, &host->sync_function);
  }
  return rc;
}

/* Opens a session and, with opts.recover, looks up Sync. A lookup that fails (lost on the
 * link) is retried in a new session, whose id makes the device's late reply unrecognisable;
 * after HOST_SYNC_LOOKUP_ATTEMPTS the session goes on without recovery. */
static utvm_host_err_t handshake(utvm_host_t *host) {
  for (int32_t round = 0;; round++) {
    utvm_host_err_t rc = handshake_once(host);
    if ((rc != UTVM_HOST_OK) || !host->opts.recover || (round >= HOST_SYNC_LOOKUP_ATTEMPTS)) {
      return rc;
    }
    rc = lookup_recovery(host);
    if ((rc == UTVM_HOST_OK) || (rc == UTVM_HOST_ERR_IO) || (rc == UTVM_HOST_ERR_NO_MEMORY)) {
      return rc;
    }
  }
}

utvm_host_err_t utvm_host_open_transport(const utvm_host_transport_t *transport,
                                         const utvm_host_options_t *opts, utvm_host_t **out,
                                         char *errbuf, size_t errbuf_size) {
  *out = NULL;
  utvm_host_t *host = (utvm_host_t *)calloc(1u, sizeof(*host));
  if (host == NULL) {
    transport->close(transport->ctx);
    host_format(errbuf, errbuf_size, "out of memory");
    return UTVM_HOST_ERR_NO_MEMORY;
  }
  host->transport = *transport;
  if (opts != NULL) {
    host->opts = *opts;
  } else {
    utvm_host_options_default(&host->opts);
  }
  host->rng = ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid() ^ (uint64_t)host_now_ms() ^
              (uint64_t)(uintptr_t)host;
  if (host->rng == 0u) {
    host->rng = 0x9E3779B97F4A7C15ULL;
  }
  const utvm_session_config_t config = {
      UTVM_SESSION_ROLE_INITIATOR,
      session_write,
      host,
      session_random,
      host,
      {on_event, on_message_start, on_message_data, on_message_end, host},
      HOST_MAX_MESSAGE,
      HOST_MAX_MESSAGE};
  utvm_host_err_t rc = UTVM_HOST_OK;
  if (utvm_session_init(&host->session, &config) != UTVM_OK) {
    host_format(host->error, sizeof(host->error), "session init failed");
    rc = UTVM_HOST_ERR_ARGUMENT;
  } else {
    rc = handshake(host);
  }
  if (rc != UTVM_HOST_OK) {
    host_format(errbuf, errbuf_size, "%s", host->error);
    utvm_host_close(host);
    return rc;
  }
  host->stats.session_id = utvm_session_id(&host->session);
  *out = host;
  return UTVM_HOST_OK;
}

utvm_host_err_t utvm_host_open(const char *spec, const utvm_host_options_t *opts,
                               utvm_host_t **out, char *errbuf, size_t errbuf_size) {
  utvm_host_transport_t transport;
  *out = NULL;
  utvm_host_err_t rc = utvm_host_transport_open(spec, &transport, errbuf, errbuf_size);
  if (rc != UTVM_HOST_OK) {
    return (rc == UTVM_HOST_ERR_ARGUMENT) ? rc : UTVM_HOST_ERR_CONNECT;
  }
  return utvm_host_open_transport(&transport, opts, out, errbuf, errbuf_size);
}

utvm_host_err_t utvm_host_reconnect(utvm_host_t *host) {
  utvm_host_err_t rc = handshake(host);
  if (rc == UTVM_HOST_OK) {
    host->stats.session_id = utvm_session_id(&host->session);
  }
  return rc;
}

void utvm_host_close(utvm_host_t *host) {
  if (host == NULL) {
    return;
  }
  host->transport.close(host->transport.ctx);
  host_buffer_free(&host->tx);
  host_buffer_free(&host->request);
  host_buffer_free(&host->reply);
  host_buffer_free(&host->sync_request);
  free(host);
}

const char *utvm_host_last_error(const utvm_host_t *host) { return host->error; }

const utvm_host_transport_t *utvm_host_get_transport(const utvm_host_t *host) {
  return &host->transport;
}

void utvm_host_get_stats(const utvm_host_t *host, utvm_host_stats_t *stats) {
  *stats = host->stats;
  stats->session_id = utvm_session_id(&host->session);
  stats->can_recover = (host->sync_function != 0u) || host->sequenced;
  stats->sequenced = host->sequenced;
  stats->copy_chunk = host->copy_chunk;
  utvm_session_get_stats(&host->session, &stats->session, &stats->framing);
}

utvm_host_err_t utvm_host_poll(utvm_host_t *host, int32_t timeout_ms) {
  int64_t deadline = host_now_ms() + timeout_ms;
  for (;;) {
    if (host->reset) {
      host->reset = false;
      host_format(host->error, sizeof(host->error), "the device terminated the session");
      return UTVM_HOST_ERR_DEVICE_RESET;
    }
    if (host->eof) {
      host_format(host->error, sizeof(host->error), "the device closed the connection");
      return UTVM_HOST_ERR_IO;
    }
    int64_t left = deadline - host_now_ms();
    if (left <= 0) {
      return UTVM_HOST_OK;
    }
    (void)pump(host, (int32_t)left);
  }
}

void utvm_host_set_progress(utvm_host_t *host, utvm_host_progress_fn fn, void *ctx) {
  host->progress = fn;
  host->progress_ctx = ctx;
}

/* ------------------------------------------------------------------------- requests */

utvm_host_err_t utvm_host_get_global(utvm_host_t *host, const char *name, uint64_t *handle) {
  writer_t w = request_begin(host, UTVM_RPC_GET_GLOBAL_FUNC);
  utvm_host_value_t arg;
  arg.type_code = UTVM_TC_STR;
  arg.v.bytes.data = (const uint8_t *)name;
  arg.v.bytes.len = SIZE_MAX;
  w.ok = w.ok && w_args(&w, &arg, 1u);
  utvm_host_value_t value;
  utvm_host_err_t rc = rpc_syscall(host, &w, "GetGlobalFunc", true, &value);
  if (rc == UTVM_HOST_OK) {
    if ((value.type_code != UTVM_TC_HANDLE) && (value.type_code != UTVM_TC_NULL)) {
      host_format(host->error, sizeof(host->error), "GetGlobalFunc returned type %d",
                  (int)value.type_code);
      return UTVM_HOST_ERR_PROTOCOL;
    }
    *handle = (value.type_code == UTVM_TC_HANDLE) ? value.v.handle : 0u;
  }
  return rc;
}

/* Looks up a global and fails with NOT_FOUND if the device lacks it. */
static utvm_host_err_t require_global(utvm_host_t *host, const char *name, uint64_t *handle) {
  utvm_host_err_t rc = utvm_host_get_global(host, name, handle);
  if ((rc == UTVM_HOST_OK) && (*handle == 0u)) {
    host_format(host->error, sizeof(host->error), "the device has no global function '%s'",
                name);
    return UTVM_HOST_ERR_NOT_FOUND;
  }
  return rc;
}

/* Decodes a CallFunc reply (PROTOCOL.md 3.5). */
static utvm_host_err_t decode_call_reply(utvm_host_t *host, reader_t *r, utvm_host_value_t *ret) {
  uint32_t num = 0u;
  int32_t codes[3];
  utvm_host_value_t original;
  utvm_host_value_t value;
  if (!r_seq_header(r, &num, codes, 3u) || (num < 2u) || (codes[0] != UTVM_TC_INT) ||
      !r_value(r, UTVM_TC_INT, &original) || !r_value(r, codes[1], &value)) {
    host_format(host->error, sizeof(host->error), "malformed CallFunc reply");
    return UTVM_HOST_ERR_PROTOCOL;
  }
  int32_t tc = (int32_t)original.v.i;
  utvm_host_value_t result = value;
  result.type_code = tc;
  if (tc == UTVM_TC_NDARRAY) {
    utvm_host_value_t nd;
    if ((num != 3u) || (codes[1] != UTVM_TC_DLTENSOR) || (codes[2] != UTVM_TC_HANDLE) ||
        !r_value(r, UTVM_TC_HANDLE, &nd)) {
      host_format(host->error, sizeof(host->error), "malformed NDArray return");
      return UTVM_HOST_ERR_PROTOCOL;
    }
    result.ndarray_handle = nd.v.handle;
  } else if (num != 2u) {
    host_format(host->error, sizeof(host->error), "CallFunc reply with %u values", num);
    return UTVM_HOST_ERR_PROTOCOL;
  } else if ((tc == UTVM_TC_MODULE) || (tc == UTVM_TC_FUNCTION) || (tc == UTVM_TC_OBJECT)) {
    if (codes[1] != UTVM_TC_HANDLE) {
      host_format(host->error, sizeof(host->error), "handle return with wire type %d",
                  (int)codes[1]);
      return UTVM_HOST_ERR_PROTOCOL;
    }
  } else if (codes[1] != tc) {
    host_format(host->error, sizeof(host->error), "return type %d sent as type %d", (int)tc,
                (int)codes[1]);
    return UTVM_HOST_ERR_PROTOCOL;
  } else {
    /* Plain value, already decoded. */
  }
  if (ret != NULL) {
    *ret = result;
  }
  return UTVM_HOST_OK;
}

static utvm_host_err_t host_call(utvm_host_t *host, uint64_t function,
                                 const utvm_host_value_t *args, size_t num_args,
                                 bool idempotent, utvm_host_value_t *ret) {
  writer_t w = request_begin(host, UTVM_RPC_CALL_FUNC);
  w_u64(&w, function);
  w.ok = w.ok && w_args(&w, args, num_args);
  reader_t r;
  uint32_t code = 0u;
  utvm_host_err_t rc =
      transact(host, w.ok, "CallFunc", idempotent, host->opts.max_retries, &r, &code);
  if (rc != UTVM_HOST_OK) {
    return rc;
  }
  if (code != UTVM_RPC_RETURN) {
    host_format(host->error, sizeof(host->error), "CallFunc answered with code %u", code);
    return UTVM_HOST_ERR_PROTOCOL;
  }
  return decode_call_reply(host, &r, ret);
}

utvm_host_err_t utvm_host_call(utvm_host_t *host, uint64_t function,
                               const utvm_host_value_t *args, size_t num_args,
                               utvm_host_value_t *ret) {
  return host_call(host, function, args, num_args, false, ret);
}

utvm_host_err_t utvm_host_call_idempotent(utvm_host_t *host, uint64_t function,
                                          const utvm_host_value_t *args, size_t num_args,
                                          utvm_host_value_t *ret) {
  return host_call(host, function, args, num_args, true, ret);
}

utvm_host_err_t utvm_host_system_lib(utvm_host_t *host, uint64_t *module) {
  if (host->system_lib == 0u) {
    uint64_t f = 0u;
    utvm_host_err_t rc = require_global(host, "runtime.SystemLib", &f);
    utvm_host_value_t ret;
    if (rc == UTVM_HOST_OK) {
      rc = host_call(host, f, NULL, 0u, true, &ret);
    }
    if (rc != UTVM_HOST_OK) {
      return rc;
    }
    if (ret.type_code != UTVM_TC_MODULE) {
      host_format(host->error, sizeof(host->error), "runtime.SystemLib returned type %d",
                  (int)ret.type_code);
      return UTVM_HOST_ERR_PROTOCOL;
    }
    host->system_lib = ret.v.handle;
  }
  *module = host->system_lib;
  return UTVM_HOST_OK;
}

utvm_host_err_t utvm_host_module_get_function(utvm_host_t *host, uint64_t module,
                                              const char *name, uint64_t *function) {
  if (host->module_get_function == 0u) {
    utvm_host_err_t rc =
        require_global(host, "tvm.rpc.server.ModuleGetFunction", &host->module_get_function);
    if (rc != UTVM_HOST_OK) {
      return rc;
    }
  }
  utvm_host_value_t args[3];
  args[0].type_code = UTVM_TC_MODULE;
  args[0].v.handle = module;
  args[1].type_code = UTVM_TC_STR;
  args[1].v.bytes.data = (const uint8_t *)name;
  args[1].v.bytes.len = SIZE_MAX;
  args[2].type_code = UTVM_TC_BOOL;
  args[2].v.i = 1;
  utvm_host_value_t ret;
  utvm_host_err_t rc = host_call(host, host->module_get_function, args, 3u, true, &ret);
  if (rc != UTVM_HOST_OK) {
    return rc;
  }
  if ((ret.type_code == UTVM_TC_NULL) ||
      ((ret.type_code == UTVM_TC_FUNCTION) && (ret.v.handle == 0u))) {
    host_format(host->error, sizeof(host->error), "the module has no function '%s'", name);
    return UTVM_HOST_ERR_NOT_FOUND;
  }
  if (ret.type_code != UTVM_TC_FUNCTION) {
    host_format(host->error, sizeof(host->error), "ModuleGetFunction returned type %d",
                (int)ret.type_code);
    return UTVM_HOST_ERR_PROTOCOL;
  }
  *function = ret.v.handle;
  return UTVM_HOST_OK;
}

utvm_host_err_t utvm_host_find_function(utvm_host_t *host, const char *name, uint64_t *function,
                                        bool *from_system_lib) {
  uint64_t module = 0u;
  utvm_host_err_t rc = utvm_host_system_lib(host, &module);
  if (rc == UTVM_HOST_OK) {
    rc = utvm_host_module_get_function(host, module, name, function);
    if (rc == UTVM_HOST_OK) {
      if (from_system_lib != NULL) {
        *from_system_lib = true;
      }
      return UTVM_HOST_OK;
    }
  }
  if ((rc != UTVM_HOST_ERR_NOT_FOUND) && (rc != UTVM_HOST_ERR_DEVICE_EXCEPTION)) {
    return rc;
  }
  rc = utvm_host_get_global(host, name, function);
  if ((rc == UTVM_HOST_OK) && (*function == 0u)) {
    host_format(host->error, sizeof(host->error),
                "no function '%s' in the system library or among the device's globals", name);
    return UTVM_HOST_ERR_NOT_FOUND;
  }
  if ((rc == UTVM_HOST_OK) && (from_system_lib != NULL)) {
    *from_system_lib = false;
  }
  return rc;
}

utvm_host_err_t utvm_host_free_handle(utvm_host_t *host, uint64_t handle, int32_t type_code) {
  writer_t w = request_begin(host, UTVM_RPC_FREE_HANDLE);
  utvm_host_value_t args[2];
  args[0].type_code = UTVM_TC_HANDLE;
  args[0].v.handle = handle;
  args[1].type_code = UTVM_TC_INT;
  args[1].v.i = type_code;
  w.ok = w.ok && w_args(&w, args, 2u);
  return rpc_syscall(host, &w, "FreeHandle", false, NULL);
}

static utvm_host_err_t handle_result(utvm_host_t *host, utvm_host_err_t rc,
                                     const utvm_host_value_t *value, const char *what,
                                     uint64_t *out) {
  if (rc != UTVM_HOST_OK) {
    return rc;
  }
  if (value->type_code != UTVM_TC_HANDLE) {
    host_format(host->error, sizeof(host->error), "%s returned type %d", what,
                (int)value->type_code);
    return UTVM_HOST_ERR_PROTOCOL;
  }
  *out = value->v.handle;
  return UTVM_HOST_OK;
}

utvm_host_err_t utvm_host_dev_alloc_data(utvm_host_t *host, utvm_host_device_t device,
                                         int64_t nbytes, int64_t alignment,
                                         utvm_host_dtype_t dtype, uint64_t *data) {
  writer_t w = request_begin(host, UTVM_RPC_DEV_ALLOC_DATA);
  utvm_host_value_t args[4];
  args[0].type_code = UTVM_TC_DEVICE;
  args[0].v.device = device;
  args[1].type_code = UTVM_TC_INT;
  args[1].v.i = nbytes;
  args[2].type_code = UTVM_TC_INT;
  args[2].v.i = alignment;
  args[3].type_code = UTVM_TC_DATATYPE;
  args[3].v.dtype = dtype;
  w.ok = w.ok && w_args(&w, args, 4u);
  utvm_host_value_t value;
  utvm_host_err_t rc = rpc_syscall(host, &w, "DevAllocData", false, &value);
  return handle_result(host, rc, &value, "DevAllocData", data);
}

utvm_host_err_t utvm_host_dev_alloc_data_with_scope(utvm_host_t *host,
                                                    const utvm_host_tensor_t *tensor,
                                                    const char *scope, uint64_t *data) {
  writer_t w = request_begin(host, UTVM_RPC_DEV_ALLOC_DATA_WITH_SCOPE);
  utvm_host_value_t args[2];
  args[0].type_code = UTVM_TC_DLTENSOR;
  args[0].v.tensor = *tensor;
  if (scope != NULL) {
    args[1].type_code = UTVM_TC_STR;
    args[1].v.bytes.data = (const uint8_t *)scope;
    args[1].v.bytes.len = SIZE_MAX;
  } else {
    args[1].type_code = UTVM_TC_NULL;
  }
  w.ok = w.ok && w_args(&w, args, 2u);
  utvm_host_value_t value;
  utvm_host_err_t rc = rpc_syscall(host, &w, "DevAllocDataWithScope", false, &value);
  return handle_result(host, rc, &value, "DevAllocDataWithScope", data);
}

/* Syscalls taking [Device, Opaque] and returning void. */
static utvm_host_err_t device_handle_syscall(utvm_host_t *host, uint32_t code, const char *what,
                                             bool idempotent, utvm_host_device_t device,
                                             uint64_t handle) {
  writer_t w = request_begin(host, code);
  utvm_host_value_t args[2];
  args[0].type_code = UTVM_TC_DEVICE;
  args[0].v.device = device;
  args[1].type_code = UTVM_TC_HANDLE;
  args[1].v.handle = handle;
  w.ok = w.ok && w_args(&w, args, 2u);
  return rpc_syscall(host, &w, what, idempotent, NULL);
}

utvm_host_err_t utvm_host_dev_free_data(utvm_host_t *host, utvm_host_device_t device,
                                        uint64_t data) {
  return device_handle_syscall(host, UTVM_RPC_DEV_FREE_DATA, "DevFreeData", false, device, data);
}

utvm_host_err_t utvm_host_dev_stream_sync(utvm_host_t *host, utvm_host_device_t device,
                                          uint64_t stream) {
  return device_handle_syscall(host, UTVM_RPC_DEV_STREAM_SYNC, "DevStreamSync", true, device,
                               stream);
}

utvm_host_err_t utvm_host_dev_get_attr(utvm_host_t *host, utvm_host_device_t device,
                                       int32_t kind, utvm_host_value_t *value) {
  writer_t w = request_begin(host, UTVM_RPC_DEV_GET_ATTR);
  utvm_host_value_t args[2];
  args[0].type_code = UTVM_TC_DEVICE;
  args[0].v.device = device;
  args[1].type_code = UTVM_TC_INT;
  args[1].v.i = kind;
  w.ok = w.ok && w_args(&w, args, 2u);
  return rpc_syscall(host, &w, "DevGetAttr", true, value);
}

utvm_host_err_t utvm_host_init_server(utvm_host_t *host) {
  static const char version[] = UTVM_RPC_PROTOCOL_VERSION;
  writer_t w = request_begin(host, UTVM_RPC_INIT_SERVER);
  w_u64(&w, sizeof(version) - 1u);
  w_bytes(&w, version, sizeof(version) - 1u);
  w.ok = w.ok && w_args(&w, NULL, 0u);
  utvm_host_value_t value;
  utvm_host_err_t rc = rpc_syscall(host, &w, "InitServer", true, &value);
  if ((rc == UTVM_HOST_OK) && (value.type_code != UTVM_TC_NULL)) {
    host_format(host->error, sizeof(host->error), "unexpected reply to InitServer");
    rc = UTVM_HOST_ERR_PROTOCOL;
  }
  return rc;
}

/* Calls a no-argument global returning an Int; *value = 0 if the global is absent. */
static utvm_host_err_t call_size_global(utvm_host_t *host, const char *name, uint64_t *value) {
  uint64_t f = 0u;
  *value = 0u;
  utvm_host_err_t rc = utvm_host_get_global(host, name, &f);
  if ((rc != UTVM_HOST_OK) || (f == 0u)) {
    return rc;
  }
  utvm_host_value_t ret;
  rc = host_call(host, f, NULL, 0u, true, &ret);
  if (rc != UTVM_HOST_OK) {
    return rc;
  }
  if ((ret.type_code != UTVM_TC_INT) || (ret.v.i <= 0)) {
    host_format(host->error, sizeof(host->error), "%s returned an invalid size", name);
    return UTVM_HOST_ERR_PROTOCOL;
  }
  *value = ret.v.u;
  return UTVM_HOST_OK;
}

utvm_host_err_t utvm_host_max_packet(utvm_host_t *host, uint64_t *max_packet) {
  if (!host->max_packet_known) {
    uint64_t transfer = 0u;
    utvm_host_err_t rc = UTVM_HOST_OK;
    if (host->opts.use_max_transfer) {
      rc = call_size_global(host, UTVM_RPC_GET_MAX_TRANSFER_NAME, &transfer);
    }
    if ((rc == UTVM_HOST_OK) && (transfer == 0u)) {
      rc = call_size_global(host, "tvm.rpc.server.GetCRTMaxPacketSize", &transfer);
    }
    if (rc != UTVM_HOST_OK) {
      return rc;
    }
    if ((transfer == 0u) || (transfer > (HOST_MAX_MESSAGE - 64u))) {
      transfer = HOST_MAX_MESSAGE - 64u;
    }
    host->max_packet = transfer;
    host->max_packet_known = true;
  }
  *max_packet = host->max_packet;
  return UTVM_HOST_OK;
}

/* Bytes of data per copy packet for tensor, or 0 if the limit leaves no room. */
static utvm_host_err_t copy_block(utvm_host_t *host, const utvm_host_tensor_t *tensor,
                                  size_t *block) {
  if ((tensor->ndim < 0) || (tensor->ndim > UTVM_HOST_MAX_NDIM)) {
    host_format(host->error, sizeof(host->error), "tensor ndim %d out of range",
                (int)tensor->ndim);
    return UTVM_HOST_ERR_ARGUMENT;
  }
  uint64_t max_packet = 0u;
  utvm_host_err_t rc = utvm_host_max_packet(host, &max_packet);
  if (rc != UTVM_HOST_OK) {
    return rc;
  }
  uint64_t overhead = COPY_OVERHEAD + 8u * (uint64_t)tensor->ndim;
  if (max_packet <= overhead) {
    host_format(host->error, sizeof(host->error), "device packet limit %llu too small",
                (unsigned long long)max_packet);
    return UTVM_HOST_ERR_PROTOCOL;
  }
  *block = (size_t)(max_packet - overhead);
  return UTVM_HOST_OK;
}

/* One chunk of a copy: n bytes at offset done of the tensor, to or from data. Not repeated
 * here: a chunk that is lost or damaged on the link comes back as UTVM_HOST_ERR_LINK (or a
 * "failed its CRC" exception) for copy_chunks to try again smaller. */
static utvm_host_err_t copy_chunk(utvm_host_t *host, const utvm_host_tensor_t *tensor,
                                  uint8_t *data, size_t done, size_t n, bool to_device) {
  writer_t w = request_begin(host, to_device ? UTVM_RPC_COPY_TO_REMOTE : UTVM_RPC_COPY_FROM_REMOTE);
  w_tensor(&w, tensor, tensor->byte_offset + done);
  w_u64(&w, n);
  if (to_device) {
    host->request_header = host->request.len - REQ_SEQ_ROOM;
    w_bytes(&w, &data[done], n);
    return rpc_syscall_retries(host, &w, "CopyToRemote", 0);
  }
  reader_t r;
  uint32_t code = 0u;
  utvm_host_err_t rc = transact(host, w.ok, "CopyFromRemote", true, 0, &r, &code);
  if (rc != UTVM_HOST_OK) {
    return rc;
  }
  const uint8_t *bytes = r_take(&r, n);
  if ((code != UTVM_RPC_COPY_ACK) || (bytes == NULL) || (r.pos != r.len)) {
    host_format(host->error, sizeof(host->error), "malformed CopyAck (%zu bytes expected)", n);
    return UTVM_HOST_ERR_PROTOCOL;
  }
  (void)memcpy(&data[done], bytes, n);
  return UTVM_HOST_OK;
}

/* True for a failure that says only that the link lost or damaged a request or its reply. */
static bool lost_on_link(const utvm_host_t *host, utvm_host_err_t rc) {
  return (rc == UTVM_HOST_ERR_LINK) ||
         ((rc == UTVM_HOST_ERR_DEVICE_EXCEPTION) && (strstr(host->error, HOST_BAD_CRC_TEXT) != NULL));
}

/* Copies nbytes in chunks that adapt to the link: a chunk lost or damaged is sent again at
 * half the size (a copy is idempotent, so a new request may replace the lost one), and the
 * size doubles again after HOST_COPY_GROW_AFTER clean chunks, up to the device's packet limit.
 * Gives up after opts.max_retries failures in a row at HOST_MIN_COPY_CHUNK. */
static utvm_host_err_t copy_chunks(utvm_host_t *host, const utvm_host_tensor_t *tensor,
                                   uint8_t *data, size_t nbytes, bool to_device) {
  size_t block = 0u;
  utvm_host_err_t rc = copy_block(host, tensor, &block);
  if ((host->copy_chunk == 0u) || (host->copy_chunk > block)) {
    host->copy_chunk = block;
  }
  int32_t failures = 0;
  for (size_t done = 0u; (rc == UTVM_HOST_OK) && (done < nbytes);) {
    size_t n = ((nbytes - done) < host->copy_chunk) ? (nbytes - done) : host->copy_chunk;
    rc = copy_chunk(host, tensor, data, done, n, to_device);
    if (rc == UTVM_HOST_OK) {
      done += n;
      failures = 0;
      host->copy_clean++;
      if ((host->copy_clean >= HOST_COPY_GROW_AFTER) && (host->copy_chunk < block)) {
        host->copy_chunk = ((block / 2u) < host->copy_chunk) ? block : (2u * host->copy_chunk);
        host->copy_clean = 0u;
      }
      if ((host->progress != NULL) && (nbytes > n)) {
        host->progress(host->progress_ctx, done, nbytes);
      }
      continue;
    }
    host->copy_clean = 0u;
    if (!lost_on_link(host, rc) || host->broken) {
      return rc;
    }
    if (host->copy_chunk > HOST_MIN_COPY_CHUNK) {
      host->copy_chunk = (host->copy_chunk / 2u > HOST_MIN_COPY_CHUNK) ? (host->copy_chunk / 2u)
                                                                       : HOST_MIN_COPY_CHUNK;
      host->stats.chunk_shrinks++;
    } else if (failures >= host->opts.max_retries) {
      return rc;
    } else {
      failures++;
    }
    host->stats.retries++;
    rc = UTVM_HOST_OK;
  }
  return rc;
}

utvm_host_err_t utvm_host_copy_to_device(utvm_host_t *host, const utvm_host_tensor_t *tensor,
                                         const void *data, size_t nbytes) {
  return copy_chunks(host, tensor, (uint8_t *)(uintptr_t)data, nbytes, true);
}

utvm_host_err_t utvm_host_copy_from_device(utvm_host_t *host, const utvm_host_tensor_t *tensor,
                                           void *data, size_t nbytes) {
  return copy_chunks(host, tensor, (uint8_t *)data, nbytes, false);
}

void utvm_host_time_params_default(utvm_host_time_params_t *params) {
  (void)memset(params, 0, sizeof(*params));
  params->number = 1;
  params->repeat = 1;
  params->limit_zero_time_iterations = 100;
}

utvm_host_err_t utvm_host_time(utvm_host_t *host, uint64_t module, const char *name,
                               const utvm_host_time_params_t *params,
                               const utvm_host_value_t *args, size_t num_args,
                               double **seconds, size_t *count) {
  *seconds = NULL;
  *count = 0u;
  uint64_t evaluator_factory = 0u;
  utvm_host_err_t rc = require_global(host, "runtime.RPCTimeEvaluator", &evaluator_factory);
  if (rc != UTVM_HOST_OK) {
    return rc;
  }
  const int32_t ints[8] = {1, 0, params->number, params->repeat, params->min_repeat_ms,
                           params->limit_zero_time_iterations, params->cooldown_interval_ms,
                           params->repeats_to_cooldown};
  utvm_host_value_t eargs[12];
  eargs[0].type_code = UTVM_TC_MODULE;
  eargs[0].v.handle = module;
  eargs[1].type_code = UTVM_TC_STR;
  eargs[1].v.bytes.data = (const uint8_t *)name;
  eargs[1].v.bytes.len = SIZE_MAX;
  for (size_t i = 0u; i < 8u; i++) {
    eargs[2u + i].type_code = UTVM_TC_INT;
    eargs[2u + i].v.i = ints[i];
  }
  eargs[10].type_code = UTVM_TC_INT;
  eargs[10].v.i = params->cache_flush_bytes;
  eargs[11].type_code = UTVM_TC_STR;
  eargs[11].v.bytes.data = (const uint8_t *)((params->f_preproc != NULL) ? params->f_preproc : "");
  eargs[11].v.bytes.len = SIZE_MAX;
  utvm_host_value_t evaluator;
  rc = utvm_host_call(host, evaluator_factory, eargs, 12u, &evaluator);
  if (rc != UTVM_HOST_OK) {
    return rc;
  }
  if ((evaluator.type_code != UTVM_TC_FUNCTION) || (evaluator.v.handle == 0u)) {
    host_format(host->error, sizeof(host->error), "runtime.RPCTimeEvaluator returned type %d",
                (int)evaluator.type_code);
    return UTVM_HOST_ERR_PROTOCOL;
  }
  uint64_t evaluator_handle = evaluator.v.handle;
  utvm_host_value_t result;
  rc = utvm_host_call(host, evaluator_handle, args, num_args, &result);
  if (rc == UTVM_HOST_OK) {
    if ((result.type_code != UTVM_TC_BYTES) || ((result.v.bytes.len % 8u) != 0u)) {
      host_format(host->error, sizeof(host->error), "time evaluator returned type %d",
                  (int)result.type_code);
      rc = UTVM_HOST_ERR_PROTOCOL;
    } else {
      size_t n = result.v.bytes.len / 8u;
      double *values = (double *)malloc((n > 0u) ? n * sizeof(double) : 1u);
      if (values == NULL) {
        rc = UTVM_HOST_ERR_NO_MEMORY;
      } else {
        for (size_t i = 0u; i < n; i++) {
          uint64_t bits = get_le(&result.v.bytes.data[8u * i], 8u);
          (void)memcpy(&values[i], &bits, sizeof(double));
        }
        *seconds = values;
        *count = n;
      }
    }
  }
  if ((rc == UTVM_HOST_OK) || (rc == UTVM_HOST_ERR_DEVICE_EXCEPTION)) {
    char saved[sizeof(host->error)];
    (void)memcpy(saved, host->error, sizeof(saved));
    utvm_host_err_t free_rc = utvm_host_free_handle(host, evaluator_handle, UTVM_TC_FUNCTION);
    (void)memcpy(host->error, saved, sizeof(saved));
    if ((rc == UTVM_HOST_OK) && (free_rc != UTVM_HOST_OK)) {
      free(*seconds);
      *seconds = NULL;
      *count = 0u;
      rc = free_rc;
    }
  }
  return rc;
}

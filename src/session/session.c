/* Session layer (PROTOCOL.md section 2): handshake, terminate, log and normal traffic. */
#include <string.h>

#include "utvm/session.h"

/* RX_HEADER and RX_CONTROL, the states that collect rx_header bytes, are the first two after
 * RX_IDLE (session_on_payload tests rx_state <= RX_CONTROL). */
enum {
  RX_IDLE = 0, /* between packets */
  RX_HEADER,   /* collecting the 3-byte session header */
  RX_CONTROL,  /* handshake/terminate: keep the first body byte, act when the CRC is known */
  RX_DELIVER,  /* streaming an accepted Normal/Log body upward */
  RX_DISCARD   /* a message this side does not accept */
};

/* rx_header bytes: the session header, then the version byte of a handshake message. */
#define RX_HEADER_WITH_VERSION (UTVM_SESSION_HEADER_SIZE + 1u)

/* The body of a handshake message: the version byte. */
static const uint8_t kHandshakeBody = UTVM_SESSION_VERSION;

/* Nonce draws before falling back to a derived value (the hook returned 0 or a repeat). */
#define SESSION_NONCE_ATTEMPTS 4u

/* Opens a packet for a message of body_len bytes and sends its session header. */
static utvm_err_t session_begin(utvm_session_t *s, utvm_msg_type_t type, uint16_t sid,
                                uint32_t body_len) {
  if (s->framer.in_packet) {
    return UTVM_ERR_SESSION_INVALID_STATE;
  }
  if (body_len > (s->config.max_tx_payload - UTVM_SESSION_HEADER_SIZE)) {
    return UTVM_ERR_SESSION_TOO_LARGE;
  }
  const uint8_t header[UTVM_SESSION_HEADER_SIZE] = {(uint8_t)sid, (uint8_t)(sid >> 8),
                                                    (uint8_t)type};
  utvm_err_t err = utvm_framer_start(&s->framer, UTVM_SESSION_HEADER_SIZE + body_len);
  if (err == UTVM_OK) {
    err = utvm_framer_write(&s->framer, header, sizeof(header));
  }
  return err;
}

/* Sends a whole message. */
static utvm_err_t session_send(utvm_session_t *s, utvm_msg_type_t type, uint16_t sid,
                               const uint8_t *body, uint32_t body_len) {
  utvm_err_t err = session_begin(s, type, sid, body_len);
  if (err == UTVM_OK) {
    err = utvm_framer_write(&s->framer, body, body_len);
  }
  if (err == UTVM_OK) {
    err = utvm_framer_finish(&s->framer);
  }
  return err;
}

/* Draws a fresh local_nonce: never 0, and different from the previous one so stale traffic
 * of the last session cannot match the new session id. */
static utvm_err_t session_new_nonce(utvm_session_t *s) {
  uint8_t candidate = 0u;
  for (uint32_t attempt = 0u; attempt < SESSION_NONCE_ATTEMPTS; attempt++) {
    if (s->config.random(s->config.random_ctx, &candidate, 1u) != UTVM_OK) {
      return UTVM_ERR_SESSION_NO_RANDOM;
    }
    if ((candidate != 0u) && (candidate != s->local_nonce)) {
      s->local_nonce = candidate;
      return UTVM_OK;
    }
  }
  s->local_nonce++;
  if (s->local_nonce == 0u) {
    s->local_nonce = 1u;
  }
  return UTVM_OK;
}

static void session_event(utvm_session_t *s, utvm_session_event_t event) {
  if (s->config.handler.event != NULL) {
    s->config.handler.event(s->config.handler.ctx, event);
  }
}

static utvm_err_t session_send_init(utvm_session_t *s) {
  utvm_err_t err = session_new_nonce(s);
  if (err == UTVM_OK) {
    err = session_send(s, UTVM_MSG_START_SESSION_INIT, s->local_nonce, &kHandshakeBody, 1u);
  }
  if (err == UTVM_OK) {
    s->state = UTVM_SESSION_STATE_INIT_SENT;
  }
  return err;
}

/* Answers a StartSessionInit from initiator nonce nh with a new own nonce. Returns the new
 * session id, or 0 if no reply went out. */
static uint32_t session_reply(utvm_session_t *s, uint32_t nh) {
  uint32_t sid = 0u;
  if (session_new_nonce(s) == UTVM_OK) {
    sid = nh | ((uint32_t)s->local_nonce << 8);
    if (session_send(s, UTVM_MSG_START_SESSION_REPLY, (uint16_t)sid, &kHandshakeBody, 1u) !=
        UTVM_OK) {
      sid = 0u;
    }
  }
  return sid;
}

/* Acts on a complete handshake or terminate message (rx_header holds it). */
static void session_handle_control(utvm_session_t *s) {
  uint32_t nh = s->rx_header[0]; /* initiator nonce */
  uint32_t nr = s->rx_header[1]; /* responder nonce */
  uint32_t type = s->rx_header[2];
  bool init_sent = (s->state == UTVM_SESSION_STATE_INIT_SENT);
  bool bad = false;
  bool terminated = false;
  uint32_t new_sid = 0u;
  if (type == (uint32_t)UTVM_MSG_TERMINATE_SESSION) {
    s->stats.terminates_received++;
    if (s->state == UTVM_SESSION_STATE_ESTABLISHED) {
      s->state = UTVM_SESSION_STATE_NO_SESSION;
      s->session_id = 0u;
      terminated = true;
    }
  } else if ((nh == 0u) || (s->rx_header_len != RX_HEADER_WITH_VERSION)) {
    bad = true; /* an init or reply without an initiator nonce or a version */
  } else if (type == (uint32_t)UTVM_MSG_START_SESSION_REPLY) {
    bad = !init_sent || (s->rx_header[3] != UTVM_SESSION_VERSION) || (nh != s->local_nonce) ||
          (nr == 0u);
    if (!bad) {
      new_sid = nh | (nr << 8);
    }
  } else if (!init_sent || (nh < s->local_nonce)) {
    /* Not initiating, or a collision that the lower initiator nonce (the peer's) wins: this
     * side answers as the responder. In a collision the peer must speak our version. */
    bad = init_sent && (s->rx_header[3] != UTVM_SESSION_VERSION);
    if (!bad) {
      new_sid = session_reply(s, nh);
    }
  } else if (nh == s->local_nonce) {
    (void)session_send_init(s);
  } else {
    /* Collision with a higher nonce: the peer will answer our init. */
  }
  if (bad) {
    s->stats.dropped_bad_handshake++;
  }
  if (new_sid != 0u) {
    /* A handshake completed: the new session id is in force. */
    s->session_id = (uint16_t)new_sid;
    s->state = UTVM_SESSION_STATE_ESTABLISHED;
    s->stats.handshakes++;
  }
  /* One event at most: a terminate establishes nothing. */
  if (terminated || (new_sid != 0u)) {
    session_event(s, terminated ? UTVM_SESSION_EVENT_TERMINATED : UTVM_SESSION_EVENT_ESTABLISHED);
  }
}

/* The control messages are the wire types 0, 1 and 2 (session_classify tests type <= 2). */
typedef char session_check_control_types[
    ((UTVM_MSG_START_SESSION_INIT == 0) && (UTVM_MSG_START_SESSION_REPLY == 1) &&
     (UTVM_MSG_TERMINATE_SESSION == 2)) ? 1 : -1];

/* Decides what to do with a message once its header is complete. session_id is 0 unless a
 * session is established, and no established session has id 0. */
static void session_classify(utvm_session_t *s) {
  uint32_t sid = (uint32_t)s->rx_header[0] | ((uint32_t)s->rx_header[1] << 8);
  uint32_t type = s->rx_header[2];
  s->rx_state = RX_DISCARD;
  if (type == (uint32_t)UTVM_MSG_NORMAL) {
    if (s->session_id == 0u) {
      s->stats.dropped_no_session++;
    } else if (sid != s->session_id) {
      s->stats.dropped_wrong_sid++;
    } else {
      s->rx_state = RX_DELIVER;
    }
  } else if (type == (uint32_t)UTVM_MSG_LOG) {
    if ((sid == 0u) || (sid == s->session_id)) {
      s->rx_state = RX_DELIVER;
    } else {
      s->stats.dropped_wrong_sid++;
    }
  } else if (type <= (uint32_t)UTVM_MSG_TERMINATE_SESSION) {
    s->rx_state = RX_CONTROL; /* StartSessionInit, StartSessionReply, TerminateSession */
  } else {
    s->stats.dropped_unknown_type++;
  }
  if ((s->rx_state == RX_DELIVER) && (s->config.handler.message_start != NULL)) {
    s->config.handler.message_start(s->config.handler.ctx, (utvm_msg_type_t)type,
                                    s->rx_payload_len - UTVM_SESSION_HEADER_SIZE);
  }
}

static void session_on_packet_start(void *ctx, uint32_t payload_len) {
  utvm_session_t *s = (utvm_session_t *)ctx;
  s->rx_payload_len = payload_len;
  s->rx_header_len = 0u;
  s->rx_state = RX_HEADER;
}

static void session_on_payload(void *ctx, const uint8_t *data, size_t n) {
  utvm_session_t *s = (utvm_session_t *)ctx;
  size_t used = 0u;
  /* Header bytes, and for a handshake message its version byte; other body bytes of a
   * handshake message and of a discarded message are dropped. */
  while ((used < n) && (s->rx_state <= RX_CONTROL) &&
         (s->rx_header_len < RX_HEADER_WITH_VERSION)) {
    s->rx_header[s->rx_header_len] = data[used];
    s->rx_header_len++;
    used++;
    if (s->rx_header_len == UTVM_SESSION_HEADER_SIZE) {
      session_classify(s);
    }
  }
  if ((used < n) && (s->rx_state == RX_DELIVER) && (s->config.handler.message_data != NULL)) {
    s->config.handler.message_data(s->config.handler.ctx, &data[used], n - used);
  }
}

static void session_on_packet_end(void *ctx, utvm_frame_status_t status) {
  utvm_session_t *s = (utvm_session_t *)ctx;
  uint8_t rx_state = s->rx_state;
  s->rx_state = RX_IDLE;
  if (rx_state == RX_DELIVER) {
    if (status == UTVM_FRAME_OK) {
      s->stats.messages_delivered++;
    }
    if (s->config.handler.message_end != NULL) {
      s->config.handler.message_end(s->config.handler.ctx, status);
    }
  } else if (status != UTVM_FRAME_OK) {
    /* Counted by the framing decoder; nothing was passed upward. */
  } else if (rx_state == RX_HEADER) {
    s->stats.dropped_runt++;
  } else if (rx_state == RX_CONTROL) {
    session_handle_control(s);
  } else {
    /* RX_DISCARD: already counted when classified. */
  }
}

utvm_err_t utvm_session_init(utvm_session_t *session, const utvm_session_config_t *config) {
  if ((session == NULL) || (config == NULL) || (config->write == NULL) ||
      (config->random == NULL) ||
      ((config->max_tx_payload != 0u) && (config->max_tx_payload <= UTVM_SESSION_HEADER_SIZE))) {
    return UTVM_ERR_SESSION_BAD_ARGUMENT;
  }
  (void)memset(session, 0, sizeof(*session)); /* UTVM_SESSION_STATE_RESET, RX_IDLE */
  session->config = *config;
  if (session->config.max_tx_payload == 0u) {
    session->config.max_tx_payload = UTVM_SESSION_TVM_HOST_MAX_MESSAGE;
  }
  utvm_framer_init(&session->framer, config->write, config->write_ctx);
  const utvm_unframer_handler_t handler = {session_on_packet_start, session_on_payload,
                                           session_on_packet_end, session};
  utvm_unframer_init(&session->unframer, &handler,
                     (config->max_rx_payload == 0u) ? UINT32_MAX : config->max_rx_payload);
  return UTVM_OK;
}

void utvm_session_feed(utvm_session_t *session, const uint8_t *data, size_t n) {
  utvm_unframer_feed(&session->unframer, data, n);
}

utvm_err_t utvm_session_send_terminate(utvm_session_t *session) {
  utvm_err_t err = session_send(session, UTVM_MSG_TERMINATE_SESSION, 0u, NULL, 0u);
  if (err != UTVM_ERR_SESSION_INVALID_STATE) {
    session->state = UTVM_SESSION_STATE_NO_SESSION;
    session->session_id = 0u;
  }
  return err;
}

utvm_err_t utvm_session_start(utvm_session_t *session) {
  utvm_err_t err = utvm_session_send_terminate(session);
  if (err == UTVM_OK) {
    err = session_send_init(session);
  }
  return err;
}

utvm_err_t utvm_session_send_log(utvm_session_t *session, const char *text, size_t len) {
  if ((text == NULL) || (len == 0u) || (len > UTVM_SESSION_LOG_MAX)) {
    return UTVM_ERR_SESSION_BAD_ARGUMENT;
  }
  return session_send(session, UTVM_MSG_LOG, 0u, (const uint8_t *)text, (uint32_t)len);
}

utvm_err_t utvm_session_message_begin(utvm_session_t *session, uint32_t body_len) {
  if (session->state != UTVM_SESSION_STATE_ESTABLISHED) {
    return UTVM_ERR_SESSION_INVALID_STATE;
  }
  return session_begin(session, UTVM_MSG_NORMAL, session->session_id, body_len);
}

utvm_err_t utvm_session_message_write(utvm_session_t *session, const uint8_t *data, size_t n) {
  return utvm_framer_write(&session->framer, data, n);
}

utvm_err_t utvm_session_message_end(utvm_session_t *session) {
  return utvm_framer_finish(&session->framer);
}

utvm_session_state_t utvm_session_state(const utvm_session_t *session) {
  return (utvm_session_state_t)session->state;
}

uint16_t utvm_session_id(const utvm_session_t *session) { return session->session_id; }

void utvm_session_get_stats(const utvm_session_t *session, utvm_session_stats_t *stats,
                            utvm_unframer_stats_t *framing) {
  if (stats != NULL) {
    *stats = session->stats;
  }
  if (framing != NULL) {
    *framing = session->unframer.stats;
  }
}

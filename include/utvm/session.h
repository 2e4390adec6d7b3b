/*
 * utvm session layer: microTVM sessions over the framing layer (PROTOCOL.md section 2).
 *
 * Every framing payload is  sid lo | sid hi | type | body.  This layer runs the nonce
 * handshake (initiator or responder), sends and honours TerminateSession, and passes
 * Normal and Log message bodies upward as a stream of chunks followed by an
 * end-of-message event with the frame verdict, so no layer buffers a whole message.
 *
 * Unlike TVM's receiver, nothing on the wire can wedge it: a message with a wrong
 * session id, an unknown type, a bad CRC or a truncated frame is discarded (and
 * counted) and the next message is processed normally.
 */
#ifndef UTVM_SESSION_H
#define UTVM_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/error.h"
#include "utvm/framing.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Session protocol version carried in handshake bodies. */
#define UTVM_SESSION_VERSION 0x01u
/* Bytes of the session header (sid lo, sid hi, type). */
#define UTVM_SESSION_HEADER_SIZE 3u
/* Longest Log body a TVM host accepts (PROTOCOL.md 2.5); the shortest is 1. */
#define UTVM_SESSION_LOG_MAX 1023u
/* Largest message (header + body) a TVM host can receive (PROTOCOL.md 2.6). */
#define UTVM_SESSION_TVM_HOST_MAX_MESSAGE 2048u

/* Message types (PROTOCOL.md 2.1). */
typedef enum {
  UTVM_MSG_START_SESSION_INIT = 0x00,
  UTVM_MSG_START_SESSION_REPLY = 0x01,
  UTVM_MSG_TERMINATE_SESSION = 0x02,
  UTVM_MSG_LOG = 0x03,
  UTVM_MSG_NORMAL = 0x10
} utvm_msg_type_t;

typedef enum {
  UTVM_SESSION_ROLE_RESPONDER = 0, /* device: answers inits */
  UTVM_SESSION_ROLE_INITIATOR = 1  /* host: sends inits */
} utvm_session_role_t;

typedef enum {
  UTVM_SESSION_STATE_RESET = 0,    /* nothing sent or received yet */
  UTVM_SESSION_STATE_NO_SESSION,   /* idle: terminated, or never established */
  UTVM_SESSION_STATE_INIT_SENT,    /* initiator: waiting for a StartSessionReply */
  UTVM_SESSION_STATE_ESTABLISHED
} utvm_session_state_t;

/* Session events reported to the layer above. */
typedef enum {
  UTVM_SESSION_EVENT_ESTABLISHED = 0, /* a (new) session id is in force */
  UTVM_SESSION_EVENT_TERMINATED       /* the peer terminated the established session */
} utvm_session_event_t;

/* Upward interface, registered at init. Any function pointer may be NULL. */
typedef struct {
  /* Handshake outcome or peer Terminate. */
  void (*event)(void *ctx, utvm_session_event_t event);
  /* A Normal (current session) or Log (sid 0 or current) message begins; body_len bytes
   * of body follow through message_data, then exactly one message_end. */
  void (*message_start)(void *ctx, utvm_msg_type_t type, uint32_t body_len);
  void (*message_data)(void *ctx, const uint8_t *data, size_t n);
  /* UTVM_FRAME_OK: deliver the message; any other status: discard what was streamed. */
  void (*message_end)(void *ctx, utvm_frame_status_t status);
  void *ctx;
} utvm_session_handler_t;

/* Port hook: fill buf with n random bytes. */
typedef utvm_err_t (*utvm_random_fn)(void *ctx, uint8_t *buf, size_t n);

/* Everything a session needs, supplied by the application (littlefs-style config). */
typedef struct {
  utvm_session_role_t role;
  utvm_write_fn write;        /* transport output */
  void *write_ctx;
  utvm_random_fn random;      /* nonce source */
  void *random_ctx;
  utvm_session_handler_t handler;
  /* Largest framing payload accepted (header + body); 0 means UINT32_MAX. Larger frames
   * are skipped by the framing decoder without being streamed. */
  uint32_t max_rx_payload;
  /* Largest message this side sends (header + body); 0 means
   * UTVM_SESSION_TVM_HOST_MAX_MESSAGE. A device talking to a TVM host must keep it there. */
  uint32_t max_tx_payload;
} utvm_session_config_t;

/* Receive and discard counters, cumulative since init. */
typedef struct {
  uint32_t messages_delivered;   /* Normal/Log messages ended with UTVM_FRAME_OK */
  uint32_t handshakes;           /* sessions established */
  uint32_t terminates_received;
  uint32_t dropped_wrong_sid;
  uint32_t dropped_no_session;   /* Normal while no session is established */
  uint32_t dropped_unknown_type;
  uint32_t dropped_runt;         /* payload shorter than the header */
  uint32_t dropped_bad_handshake;/* init/reply that failed a check */
} utvm_session_stats_t;

/* A session endpoint. Fields are private; initialise with utvm_session_init(). */
typedef struct {
  uint8_t state;           /* utvm_session_state_t */
  uint8_t local_nonce;     /* the nonce this side sent last (init or reply) */
  uint8_t rx_state;
  uint8_t rx_header_len;
  uint8_t rx_header[UTVM_SESSION_HEADER_SIZE + 1u]; /* + version byte of a handshake */
  uint16_t session_id;     /* in force while ESTABLISHED, else 0 */
  uint32_t rx_payload_len; /* framing payload length of the message being received */
  utvm_session_config_t config;
  utvm_session_stats_t stats;
  utvm_framer_t framer;
  utvm_unframer_t unframer;
} utvm_session_t;

/* Prepares a session (no I/O). Returns UTVM_ERR_SESSION_BAD_ARGUMENT if write or random
 * is missing or max_tx_payload leaves no room for a body. The config is copied. */
utvm_err_t utvm_session_init(utvm_session_t *session, const utvm_session_config_t *config);

/* Feeds received bytes of any chunking; handler callbacks run from inside this call. */
void utvm_session_feed(utvm_session_t *session, const uint8_t *data, size_t n);

/* Sends TerminateSession (sid 0) and drops any established session. A device calls this
 * once at boot. Returns the write error, or UTVM_ERR_SESSION_INVALID_STATE while a
 * message is being sent. */
utvm_err_t utvm_session_send_terminate(utvm_session_t *session);

/* Initiator: sends TerminateSession then StartSessionInit with a fresh nonce, and waits
 * (through feed) for the reply. Call again to retry. Errors as for send_terminate, plus
 * UTVM_ERR_SESSION_NO_RANDOM. */
utvm_err_t utvm_session_start(utvm_session_t *session);

/* Sends a Log message (sid 0). len must be 1..UTVM_SESSION_LOG_MAX, else
 * UTVM_ERR_SESSION_BAD_ARGUMENT; UTVM_ERR_SESSION_INVALID_STATE while a message is open;
 * UTVM_ERR_SESSION_TOO_LARGE above max_tx_payload. */
utvm_err_t utvm_session_send_log(utvm_session_t *session, const char *text, size_t len);

/* Begins a Normal message of body_len bytes in the established session. Returns
 * UTVM_ERR_SESSION_INVALID_STATE (no session, or a message already open),
 * UTVM_ERR_SESSION_TOO_LARGE (over max_tx_payload), or the write error. */
utvm_err_t utvm_session_message_begin(utvm_session_t *session, uint32_t body_len);

/* Sends n body bytes of the open message; errors as utvm_framer_write. */
utvm_err_t utvm_session_message_write(utvm_session_t *session, const uint8_t *data, size_t n);

/* Closes the open message. Returns UTVM_ERR_FRAMING_PAYLOAD_INCOMPLETE if body bytes
 * are missing (the message stays open). */
utvm_err_t utvm_session_message_end(utvm_session_t *session);

/* Current state (utvm_session_state_t). */
utvm_session_state_t utvm_session_state(const utvm_session_t *session);

/* Current session id (initiator nonce | responder nonce << 8); 0 when not established. */
uint16_t utvm_session_id(const utvm_session_t *session);

/* Counters of this session and of its framing decoder; either pointer may be NULL. */
void utvm_session_get_stats(const utvm_session_t *session, utvm_session_stats_t *stats,
                            utvm_unframer_stats_t *framing);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_SESSION_H */

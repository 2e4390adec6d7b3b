/*
 * The sequence extension (utvm.rpc.server.Sequence, docs/RECOVERY.md, PROTOCOL.md 8.6):
 * numbered requests run once, the reply to the last one is kept in the reply cache. Opt-in
 * with utvm_rpc_server_enable_sequence, so that a firmware without it links none of it.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rpc_internal.h"
#include "utvm/rpc_server.h"

/* What a sequence-numbered request whose code is known becomes: a new number runs (its reply
 * is kept when it ends well); the last number again is answered from the reply cache, run
 * again if it is a read whose reply was not kept, and refused otherwise; an older number is
 * dropped. Unsigned differences order numbers across wrap-around. */
static void sequence_policy(utvm_rpc_server_t *server) {
  uint32_t ahead = server->rx_seq - server->last_seq;
  if (((server->seq_flags & RPC_SEQ_LAST_VALID) == 0u) ||
      ((ahead != 0u) && (ahead < 0x80000000u))) {
    return;
  }
  if (ahead != 0u) {
    server->rx_state = RX_STALE;
  } else if (server->cache_len <= server->reply_cache_size) {
    server->rx_state = RX_REPLAY;
  } else if (server->code == (int32_t)UTVM_RPC_COPY_FROM_REMOTE) {
    server->stats.reruns++;
  } else {
    rpc_fail_own(server, RPC_OWN(UTVM_TEXT_RPC_NOT_KEPT));
    server->rx_state = RX_DISCARD;
  }
}

/* A message that starts with a sequence prefix (UTVM_RPC_SEQ_PREFIX_SIZE bytes ending in
 * UTVM_RPC_SEQ_TAG): the number and header check are taken out and the packet after them is
 * collected as any other. A plain packet's first 8 bytes are its length, below 2^32; a
 * prefix's are at least 2^48 (the tag): the two cannot be confused. Then, when the packet's
 * own first bytes are in, the policy for its number. */
static bool sequence_on_header(utvm_rpc_server_t *server) {
  uint8_t *buf = server->buffer;
  const uint32_t keep = RPC_PREFIX_SIZE - UTVM_RPC_SEQ_PREFIX_SIZE;
  if ((server->seq_flags & RPC_SEQ_RX) != 0u) {
    server->code = (int32_t)rpc_read_u32(&buf[8]);
    sequence_policy(server);
    return false;
  }
  if ((server->body_len < (RPC_PREFIX_SIZE + UTVM_RPC_SEQ_PREFIX_SIZE)) ||
      ((rpc_read_u32(&buf[4]) >> 16) != UTVM_RPC_SEQ_TAG)) {
    return false;
  }
  server->rx_seq = rpc_read_u32(buf);
  server->rx_check = (uint16_t)rpc_read_u32(&buf[4]);
  server->seq_flags |= RPC_SEQ_RX;
  (void)memmove(buf, &buf[UTVM_RPC_SEQ_PREFIX_SIZE], keep);
  server->received = keep;
  server->body_len -= UTVM_RPC_SEQ_PREFIX_SIZE;
  return true;
}

/* A numbered request that ended: an intact one with a new number is the request whose reply a
 * repeat gets; a repeated one is answered from the reply cache, a stale one dropped. */
static bool sequence_on_end(utvm_rpc_server_t *server, utvm_frame_status_t status,
                            uint8_t rx_state) {
  if ((status == UTVM_FRAME_OK) && (rx_state != RX_STALE) &&
      (((server->seq_flags & RPC_SEQ_LAST_VALID) == 0u) || (server->rx_seq != server->last_seq))) {
    server->last_seq = server->rx_seq;
    server->seq_flags |= (uint8_t)(RPC_SEQ_LAST_VALID | RPC_SEQ_KEEP);
    server->cache_len = UINT32_MAX;
  }
  if (status == UTVM_FRAME_BAD_CRC) {
    return false; /* answered "not executed" */
  }
  if (rx_state == RX_REPLAY) {
    const uint8_t *const parts[3] = {server->reply_cache, NULL, NULL};
    const uint32_t lens[3] = {server->cache_len, 0u, 0u};
    rpc_reply_send(server, parts, lens);
    server->stats.replays++;
    return true;
  }
  if (rx_state == RX_STALE) {
    server->stats.stale++;
    return true;
  }
  return false;
}

/* Keeps a copy of the reply when the request asked for it (a new sequence number) and it fits
 * the reply cache, cache_len recording its size (above the cache's: none kept), then begins the
 * message, after the request's sequence number if it had one. */
static utvm_err_t sequence_reply_begin(utvm_rpc_server_t *server, const uint8_t *const parts[3],
                                       const uint32_t lens[3]) {
  utvm_session_t *session = &server->session;
  uint32_t len = lens[0] + lens[1] + lens[2];
  if ((server->seq_flags & RPC_SEQ_KEEP) != 0u) {
    server->seq_flags &= (uint8_t)~RPC_SEQ_KEEP;
    server->cache_len = len;
    if (len <= server->reply_cache_size) {
      uint32_t kept = 0u;
      for (uint32_t i = 0u; i < 3u; i++) {
        if (lens[i] > 0u) {
          (void)memcpy(&server->reply_cache[kept], parts[i], lens[i]);
          kept += lens[i];
        }
      }
    }
  }
  if ((server->seq_flags & RPC_SEQ_RX) == 0u) {
    return utvm_session_message_begin(session, len);
  }
  uint8_t seq[UTVM_RPC_SEQ_PREFIX_SIZE];
  rpc_write_u32(seq, server->rx_seq);
  rpc_write_u32(&seq[4], (uint32_t)UTVM_RPC_SEQ_TAG << 16);
  utvm_err_t err = utvm_session_message_begin(session, len + UTVM_RPC_SEQ_PREFIX_SIZE);
  return (err == UTVM_OK) ? utvm_session_message_write(session, seq, sizeof(seq)) : err;
}

static const struct utvm_rpc_sequence_ops kSequenceOps = {sequence_on_header, sequence_on_end,
                                                          sequence_reply_begin};

/* utvm.rpc.server.Sequence(): the reply cache size; that it exists tells a host it may number
 * its requests (docs/RECOVERY.md). */
static int rpc_sequence(TVMValue *args, int *codes, int num_args, TVMValue *ret, int *ret_tc,
                        void *resource) {
  const utvm_rpc_server_t *server = (const utvm_rpc_server_t *)resource;
  (void)args;
  (void)codes;
  if (num_args != 0) {
    rpc_fail(server, UTVM_TEXT_RPC_ARGUMENTS);
    return -1;
  }
  ret->v_int64 = (int64_t)server->reply_cache_size;
  *ret_tc = kTVMArgInt;
  return 0;
}

utvm_err_t utvm_rpc_server_enable_sequence(utvm_rpc_server_t *server, uint8_t *reply_cache,
                                           uint32_t reply_cache_size) {
  if ((server == NULL) || (reply_cache == NULL) ||
      (reply_cache_size < UTVM_RPC_REPLY_CACHE_MIN)) {
    return UTVM_ERR_SESSION_BAD_ARGUMENT;
  }
  utvm_err_t err = utvm_crt_register_global(UTVM_RPC_SEQUENCE_NAME, rpc_sequence, server);
  if (err == UTVM_OK) {
    server->reply_cache = reply_cache;
    server->reply_cache_size = reply_cache_size;
    server->sequence = &kSequenceOps;
  }
  return err;
}

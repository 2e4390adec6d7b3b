/*
 * CallFunc requests larger than the request buffer (TVM's GraphModule sends the graph JSON or
 * the parameter blob as one argument): opt-in with utvm_rpc_server_enable_large_calls, so that
 * a firmware without executors links none of it.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rpc_internal.h"
#include "utvm/rpc_server.h"

/* The whole request is gathered in a temporary allocation of the tensor arena, which the
 * server frees when the request ends (rpc_server.c's rpc_release_rx); without room for it the
 * request is refused with "<request>: over request buffer, needs 0x<N> bytes of the tensor
 * arena, 0x<M> free" (M: the largest free block). */
static void gather_in_arena(void *rpc_server) {
  utvm_rpc_server_t *server = (utvm_rpc_server_t *)rpc_server;
  void *memory = NULL;
  if (utvm_page_alloc(&server->crt.tensors, server->body_len, 8u, &memory) != UTVM_OK) {
    rpc_fail_own(server, RPC_OWN(UTVM_TEXT_RPC_ARENA_NEEDS));
    utvm_crt_error_append(" ");
    utvm_crt_error_append_hex(server->body_len);
    rpc_append_own(RPC_OWN(UTVM_TEXT_RPC_ARENA_BYTES));
    utvm_crt_error_append(" ");
    utvm_crt_error_append_hex(utvm_page_largest_free_block(&server->crt.tensors));
    rpc_append_own(RPC_OWN(UTVM_TEXT_RPC_ARENA_FREE));
    server->rx_state = RX_DISCARD;
    return;
  }
  server->rx_buffer = (uint8_t *)memory;
  (void)memcpy(server->rx_buffer, server->buffer, RPC_PREFIX_SIZE);
  server->collect = server->body_len;
}

void utvm_rpc_server_enable_large_calls(utvm_rpc_server_t *server) {
  if (server != NULL) {
    server->gather_call = gather_in_arena;
  }
}

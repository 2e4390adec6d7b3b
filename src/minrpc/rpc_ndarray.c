/*
 * NDArray results of CallFunc (the graph and AOT executors' get_input / get_output): opt-in with
 * utvm_rpc_server_enable_ndarrays, so that a firmware without executors links none of it.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rpc_internal.h"
#include "utvm/rpc_server.h"

/* CallFunc reply for an NDArray result t (PROTOCOL.md 3.5): [Int 13][DLTensor t][Opaque nd],
 * nd being t's address; the shape is sent straight from the tensor. */
static void reply_ndarray(void *rpc_server, const DLTensor *t) {
  utvm_rpc_server_t *server = (utvm_rpc_server_t *)rpc_server;
  if ((t == NULL) || (t->ndim < 0) || ((uint32_t)t->ndim > UTVM_RPC_MAX_NDIM) ||
      ((t->ndim > 0) && (t->shape == NULL))) {
    rpc_fail(server, UTVM_TEXT_RPC_NDIM);
    rpc_reply_exception(server);
    return;
  }
  uint8_t head[REPLY_PREFIX_SIZE + 52u];
  uint8_t tail[16];
  rpc_write_u32(&head[8], UTVM_RPC_RETURN);
  rpc_write_u32(&head[12], 3u);
  rpc_write_u32(&head[16], kTVMArgInt);
  rpc_write_u32(&head[20], kTVMDLTensorHandle);
  rpc_write_u32(&head[24], kTVMOpaqueHandle);
  rpc_write_u64(&head[28], kTVMNDArrayHandle);
  rpc_write_u64(&head[36], (uint64_t)(uintptr_t)t->data);
  rpc_write_u32(&head[44], (uint32_t)t->device.device_type);
  rpc_write_u32(&head[48], (uint32_t)t->device.device_id);
  rpc_write_u32(&head[52], (uint32_t)t->ndim);
  (void)memcpy(&head[56], &t->dtype, 4u);
  rpc_write_u64(&tail[0], t->byte_offset);
  rpc_write_u64(&tail[8], (uint64_t)(uintptr_t)t);
  rpc_reply_parts(server, head, sizeof(head), t->shape, 8u * (uint32_t)t->ndim, tail, sizeof(tail));
}

void utvm_rpc_server_enable_ndarrays(utvm_rpc_server_t *server) {
  if (server != NULL) {
    server->reply_ndarray = reply_ndarray;
  }
}

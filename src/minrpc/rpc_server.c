/* MinRPC server: receive state machine, request dispatch and replies (PROTOCOL.md 3-4). */
#include <string.h>

#include "rpc_internal.h"

/* Bytes of a CopyToRemote/CopyFromRemote request before its shape. */
#define RPC_COPY_FIXED_HEADER (RPC_PREFIX_SIZE + RPC_TENSOR_HEADER_SIZE - 8u)

/* ---------------------------------------------------------------- replies */

/* Length of s, at most max. */
static uint32_t bounded_length(const char *s, uint32_t max) {
  uint32_t n = 0u;
  while ((n < max) && (s[n] != '\0')) {
    n++;
  }
  return n;
}

/* Largest packet_nbytes a reply may have in the current session. */
static uint32_t reply_limit(const utvm_rpc_server_t *server) {
  uint32_t seq = ((server->seq_flags & RPC_SEQ_RX) != 0u) ? UTVM_RPC_SEQ_PREFIX_SIZE : 0u;
  return server->session.config.max_tx_payload - UTVM_SESSION_HEADER_SIZE - 8u - seq;
}

void rpc_reply_send(utvm_rpc_server_t *server, const uint8_t *const parts[3],
                    const uint32_t lens[3]) {
  utvm_err_t err = (server->sequence != NULL)
                       ? server->sequence->reply_begin(server, parts, lens)
                       : utvm_session_message_begin(&server->session,
                                                    lens[0] + lens[1] + lens[2]);
  for (uint32_t i = 0u; i < 3u; i++) {
    if (err == UTVM_OK) {
      err = utvm_session_message_write(&server->session, parts[i], lens[i]);
    }
  }
  if (err == UTVM_OK) {
    err = utvm_session_message_end(&server->session);
  }
  if (err != UTVM_OK) {
    server->stats.write_errors++;
  }
}

void rpc_reply_parts(utvm_rpc_server_t *server, uint8_t *head, uint32_t head_len,
                     const void *mid, uint32_t mid_len, const void *tail, uint32_t tail_len) {
  const uint8_t *const parts[3] = {head, (const uint8_t *)mid, (const uint8_t *)tail};
  const uint32_t lens[3] = {head_len, mid_len, tail_len};
  rpc_write_u64(head, (head_len + mid_len + tail_len) - REPLY_PREFIX_SIZE);
  rpc_reply_send(server, parts, lens);
}

/* rpc_reply_parts without mid. */
static void reply(utvm_rpc_server_t *server, uint8_t *head, uint32_t head_len, const void *tail,
                  uint32_t tail_len) {
  rpc_reply_parts(server, head, head_len, NULL, 0u, tail, tail_len);
}

/* Sends a reply with one packed value: [code][1][tc][u64 value], or without the value bytes
 * when value_len is 0, then tail. */
static void reply_one_value(utvm_rpc_server_t *server, uint32_t code, int tc, uint64_t value,
                            uint32_t value_len, const void *tail, uint32_t tail_len) {
  uint8_t head[REPLY_PREFIX_SIZE + 20u];
  rpc_write_u32(&head[8], code);
  rpc_write_u32(&head[12], 1u);
  rpc_write_u32(&head[16], (uint32_t)tc);
  rpc_write_u64(&head[20], value);
  reply(server, head, REPLY_PREFIX_SIZE + 12u + value_len, tail, tail_len);
}

void rpc_reply_exception(utvm_rpc_server_t *server) {
  const char *text = TVMGetLastError();
  uint32_t len = bounded_length(text, reply_limit(server) - 20u);
  reply_one_value(server, UTVM_RPC_EXCEPTION, kTVMStr, len, 8u, text, len);
  server->stats.exceptions++;
}

/* Syscall reply with one value: tc 4 (void), 3 (handle) or 0 (int: a size of device memory,
 * which like a handle fits a pointer). */
static void reply_value(utvm_rpc_server_t *server, int tc, uintptr_t value) {
  reply_one_value(server, UTVM_RPC_RETURN, tc, value, (tc == kTVMNullptr) ? 0u : 8u, NULL, 0u);
}

/* CallFunc reply: [Int tc][value] (PROTOCOL.md 3.5); str and bytes results follow the
 * header straight from the callee's memory. */
static void reply_call_result(utvm_rpc_server_t *server, int tc, const TVMValue *v) {
  uint32_t kind = rpc_code_kind(tc);
  uint32_t limit = reply_limit(server) - 32u;
  uint32_t value_len = 8u;
  uint32_t wire_tc = (uint32_t)tc;
  const void *tail = NULL;
  uint32_t tail_len = 0u;
  uint64_t value = 0u;
  (void)memcpy(&value, v, sizeof(value));
  if ((kind & RPC_KIND_RETURN_HANDLE) != 0u) {
    wire_tc = kTVMOpaqueHandle;
    value = (uint64_t)(uintptr_t)v->v_handle;
  } else if (tc == kTVMNullptr) {
    value_len = 0u;
  } else if ((tc == kTVMNDArrayHandle) && (server->reply_ndarray != NULL)) {
    server->reply_ndarray(server, (const DLTensor *)v->v_handle);
    return;
  } else if (tc == kTVMStr) {
    tail = (v->v_str != NULL) ? v->v_str : "";
    tail_len = bounded_length((const char *)tail, limit + 1u);
  } else if ((tc == kTVMBytes) && (v->v_handle != NULL) &&
             ((((const TVMByteArray *)v->v_handle)->data != NULL) ||
              (((const TVMByteArray *)v->v_handle)->size == 0u))) {
    /* Empty bytes may come without data; bytes with a size but no data are refused below. */
    const TVMByteArray *bytes = (const TVMByteArray *)v->v_handle;
    tail = (bytes->data != NULL) ? bytes->data : "";
    tail_len = (bytes->size > limit) ? (limit + 1u) : (uint32_t)bytes->size;
  } else if ((kind & RPC_KIND_RETURN_SCALAR) == 0u) {
    rpc_fail_hex(server, UTVM_TEXT_RPC_TYPE_CODE, (uint64_t)(uint32_t)tc);
    rpc_reply_exception(server);
    return;
  } else {
    /* scalar: the 8 value bytes as they are */
  }
  if (tail_len > limit) {
    rpc_fail_hex(server, UTVM_TEXT_RPC_LIMIT, limit);
    rpc_reply_exception(server);
    return;
  }
  if (tail != NULL) {
    value = tail_len;
  }
  uint8_t head[REPLY_PREFIX_SIZE + 32u];
  rpc_write_u32(&head[8], UTVM_RPC_RETURN);
  rpc_write_u32(&head[12], 2u);
  rpc_write_u32(&head[16], kTVMArgInt);
  rpc_write_u32(&head[20], wire_tc);
  rpc_write_u64(&head[24], (uint64_t)(int64_t)tc);
  rpc_write_u64(&head[32], value);
  reply(server, head, REPLY_PREFIX_SIZE + 24u + value_len, tail, tail_len);
}

/* ---------------------------------------------------------------- requests */

/* Each do_ function returns true after a successful reply, false when the request is to be
 * answered with the last error. */

static bool do_call_func(utvm_rpc_server_t *server, rpc_reader_t *r, rpc_args_t *args) {
  const uint8_t *h = rpc_reader_take(server, r, 8u);
  uint64_t handle = (h != NULL) ? rpc_read_u64(h) : 0u;
  if ((h == NULL) || (handle > (uint64_t)UINTPTR_MAX)) {
    rpc_fail(server, UTVM_TEXT_RPC_HANDLE);
    return false;
  }
  if (!rpc_decode_args(server, r, args)) {
    return false;
  }
  /* Memory from the host reaches a function only inside live tensors: raw pointers (or
   * NULL) and tensors. */
  for (int i = 0; i < args->num; i++) {
    void *arg = args->values[i].v_handle;
    uint32_t tensor_bytes = 0u;
    if (args->codes[i] == kTVMOpaqueHandle) {
      if ((arg != NULL) && (rpc_check_range(server, arg, 0u, 0u) == NULL)) {
        return false;
      }
    } else if ((args->codes[i] == kTVMDLTensorHandle) &&
               !rpc_check_tensor(server, (const DLTensor *)arg, &tensor_bytes)) {
      return false;
    } else {
      /* other values carry no device memory */
    }
  }
  TVMValue ret;
  int ret_tc = kTVMNullptr;
  ret.v_int64 = 0;
  if (TVMFuncCall((TVMFunctionHandle)(uintptr_t)handle, args->values, args->codes, args->num,
                  &ret, &ret_tc) != 0) {
    return false;
  }
  reply_call_result(server, ret_tc, &ret);
  if (ret_tc == kTVMBytes) {
    (void)TVMByteArrayFree((TVMByteArray *)ret.v_handle); /* the callee allocated it for us */
  }
  return true;
}

/* do_init_server spells the version's length as one byte 5. */
typedef char rpc_check_version_length[(sizeof(UTVM_RPC_PROTOCOL_VERSION) == 6u) ? 1 : -1];

static bool do_init_server(utvm_rpc_server_t *server, rpc_reader_t *r, rpc_args_t *args) {
  /* The version string as it is sent: u64 length 5, then its bytes (no NUL). */
  static const char version[] = "\5\0\0\0\0\0\0\0" UTVM_RPC_PROTOCOL_VERSION;
  const uint8_t *wire = rpc_reader_take(server, r, sizeof(version) - 1u);
  if ((wire == NULL) || (memcmp(wire, version, sizeof(version) - 1u) != 0)) {
    rpc_fail(server, UTVM_TEXT_RPC_VERSION);
    return false;
  }
  if (!rpc_decode_args(server, r, args)) {
    return false;
  }
  if (args->num != 0) {
    rpc_fail(server, UTVM_TEXT_RPC_ARGUMENTS);
    return false;
  }
  reply_value(server, kTVMNullptr, 0u);
  return true;
}

#define SIG_END 0xFFu
#define SIG_STR_OR_NULL 0xFEu
#define TC(code) ((uint8_t)(code))

/* Argument type codes of the syscalls, indexed by code - UTVM_RPC_GET_GLOBAL_FUNC, SIG_END
 * after the last. */
static const uint8_t kSyscallArgs[UTVM_RPC_DEV_GET_CURRENT_STREAM - UTVM_RPC_GET_GLOBAL_FUNC + 1][4] = {
    {TC(kTVMStr), SIG_END, SIG_END, SIG_END},                                  /* GetGlobalFunc */
    {TC(kTVMOpaqueHandle), TC(kTVMArgInt), SIG_END, SIG_END},                  /* FreeHandle */
    {TC(kDLDevice), SIG_END, SIG_END, SIG_END},                                /* DevSetDevice */
    {TC(kDLDevice), TC(kTVMArgInt), SIG_END, SIG_END},                         /* DevGetAttr */
    {TC(kDLDevice), TC(kTVMArgInt), TC(kTVMArgInt), TC(kTVMDataType)},         /* DevAllocData */
    {TC(kDLDevice), TC(kTVMOpaqueHandle), SIG_END, SIG_END},                   /* DevFreeData */
    {TC(kDLDevice), TC(kTVMOpaqueHandle), SIG_END, SIG_END},                   /* DevStreamSync */
    {TC(kTVMDLTensorHandle), TC(kTVMDLTensorHandle), TC(kTVMOpaqueHandle), SIG_END},
    {TC(kTVMDLTensorHandle), SIG_STR_OR_NULL, SIG_END, SIG_END},               /* ...WithScope */
    {TC(kDLDevice), SIG_END, SIG_END, SIG_END},                                /* DevCreateStream */
    {TC(kDLDevice), TC(kTVMOpaqueHandle), SIG_END, SIG_END},                   /* DevFreeStream */
    {TC(kDLDevice), TC(kTVMOpaqueHandle), SIG_END, SIG_END},                   /* DevSetStream */
    {TC(kDLDevice), SIG_END, SIG_END, SIG_END},                                /* DevGetCurrentStream */
};

/* Runs a syscall whose arguments matched its signature and replies; false with the last
 * error set on failure. */
static bool run_syscall(utvm_rpc_server_t *server, int32_t code, const rpc_args_t *args) {
  const TVMValue *v = args->values;
  int tc = kTVMNullptr;
  uintptr_t value = 0u; /* a handle or a size of device memory */
  switch (code) {
    case UTVM_RPC_GET_GLOBAL_FUNC: {
      TVMFunctionHandle f = NULL;
      (void)TVMFuncGetGlobal(v[0].v_str, &f); /* not found: handle 0, as TVM answers */
      tc = kTVMOpaqueHandle;
      value = (uintptr_t)f;
      break;
    }
    case UTVM_RPC_FREE_HANDLE: {
      int freed;
      if (v[1].v_int64 == kTVMPackedFuncHandle) {
        freed = TVMFuncFree(v[0].v_handle);
      } else if (v[1].v_int64 == kTVMModuleHandle) {
        freed = TVMModFree(v[0].v_handle);
      } else if (v[1].v_int64 == kTVMNDArrayHandle) {
        freed = utvm_crt_ndarray_free(v[0].v_handle);
      } else {
        rpc_fail_hex(server, UTVM_TEXT_RPC_TYPE_CODE, (uint64_t)v[1].v_int64);
        return false;
      }
      if (freed != 0) {
        return false;
      }
      break;
    }
    case UTVM_RPC_DEV_SET_DEVICE:
      if (!rpc_device_is_cpu0(v[0].v_device)) {
        rpc_fail(server, UTVM_TEXT_RPC_DEVICE);
        return false;
      }
      break;
    case UTVM_RPC_DEV_GET_ATTR:
      tc = kTVMArgInt;
      if (v[1].v_int64 == 0) { /* kExist */
        value = rpc_device_is_cpu0(v[0].v_device) ? 1u : 0u;
      } else if (v[1].v_int64 == 14) { /* kTotalGlobalMemory */
        value = utvm_page_total_bytes(&server->crt.tensors);
      } else if (v[1].v_int64 == 15) { /* kAvailableGlobalMemory */
        value = utvm_page_free_bytes(&server->crt.tensors);
      } else {
        rpc_fail_hex(server, UTVM_TEXT_RPC_KIND, (uint64_t)v[1].v_int64);
        return false;
      }
      break;
    case UTVM_RPC_DEV_ALLOC_DATA_WITH_SCOPE: {
      /* The tensor describes the allocation: its data pointer is not used. */
      const DLTensor *tensor = (const DLTensor *)v[0].v_handle;
      uint32_t nbytes = 0u;
      void *ptr = NULL;
      if (!rpc_tensor_nbytes(server, tensor, &nbytes) ||
          (TVMDeviceAllocDataSpace(tensor->device, nbytes, UTVM_CRT_PAGE_SIZE, tensor->dtype,
                                   &ptr) != 0)) {
        return false;
      }
      tc = kTVMOpaqueHandle;
      value = (uintptr_t)ptr;
      break;
    }
    case UTVM_RPC_DEV_ALLOC_DATA: {
      uint64_t nbytes = (uint64_t)v[1].v_int64;
      uint64_t alignment = (uint64_t)v[2].v_int64;
      uint32_t alignment32 = (uint32_t)alignment; /* exact once alignment is bounded */
      void *ptr = NULL;
      if ((nbytes > (uint64_t)SIZE_MAX) || (alignment > UTVM_CRT_PAGE_SIZE) ||
          (alignment32 == 0u) || ((alignment32 & (alignment32 - 1u)) != 0u)) {
        rpc_fail(server, UTVM_TEXT_RPC_ALIGNMENT);
        return false;
      }
      if (TVMDeviceAllocDataSpace(v[0].v_device, (size_t)nbytes, alignment32, v[3].v_type,
                                  &ptr) != 0) {
        return false;
      }
      tc = kTVMOpaqueHandle;
      value = (uintptr_t)ptr;
      break;
    }
    case UTVM_RPC_DEV_FREE_DATA:
      if (TVMDeviceFreeDataSpace(v[0].v_device, v[1].v_handle) != 0) {
        return false;
      }
      break;
    case UTVM_RPC_COPY_AMONG_REMOTE: {
      const DLTensor *from = (const DLTensor *)v[0].v_handle;
      const DLTensor *to = (const DLTensor *)v[1].v_handle;
      uint32_t from_bytes = 0u;
      uint32_t to_bytes = 0u;
      if (!rpc_check_tensor(server, from, &from_bytes) ||
          !rpc_check_tensor(server, to, &to_bytes)) {
        return false;
      }
      if (from_bytes != to_bytes) {
        rpc_fail(server, UTVM_TEXT_RPC_SIZES);
        return false;
      }
      (void)memmove(&((uint8_t *)to->data)[to->byte_offset],
                    &((const uint8_t *)from->data)[from->byte_offset], from_bytes);
      break;
    }
    case UTVM_RPC_DEV_CREATE_STREAM:
    case UTVM_RPC_DEV_GET_CURRENT_STREAM:
      tc = kTVMOpaqueHandle; /* the null stream */
      break;
    default:
      /* DevStreamSync, DevFreeStream, DevSetStream: nothing to do on a CPU. */
      break;
  }
  reply_value(server, tc, value);
  return true;
}

/* Syscalls (code 9..21): one packed argument sequence checked against kSyscallArgs. */
static bool do_syscall(utvm_rpc_server_t *server, int32_t code, rpc_reader_t *r,
                       rpc_args_t *args) {
  if (!rpc_decode_args(server, r, args)) {
    return false;
  }
  const uint8_t *sig = kSyscallArgs[code - UTVM_RPC_GET_GLOBAL_FUNC];
  bool ok = (args->num <= 4);
  for (int i = 0; ok && (i < 4); i++) {
    /* SIG_END stands for a missing argument. */
    uint32_t tc = (i < args->num) ? (uint32_t)args->codes[i] : SIG_END;
    ok = (tc == sig[i]) || ((sig[i] == SIG_STR_OR_NULL) &&
                            ((tc == (uint32_t)kTVMStr) || (tc == (uint32_t)kTVMNullptr)));
  }
  if (!ok) {
    rpc_fail(server, UTVM_TEXT_RPC_ARGUMENTS);
    return false;
  }
  return run_syscall(server, code, args);
}

/* The memory range of a CopyFromRemote or CopyToRemote request (DLTensor, u64 nbytes) at r:
 * its start in a live tensor and *nbytes; NULL with the last error set otherwise. */
static uint8_t *copy_range(const utvm_rpc_server_t *server, rpc_reader_t *r, uint32_t *nbytes) {
  DLTensor tensor;
  if (!rpc_decode_tensor(server, r, &tensor)) {
    return NULL;
  }
  const uint8_t *n = rpc_reader_take(server, r, 8u);
  if (n == NULL) {
    return NULL;
  }
  if (!rpc_device_is_cpu0(tensor.device)) {
    rpc_fail(server, UTVM_TEXT_RPC_DEVICE);
    return NULL;
  }
  *nbytes = rpc_clamp_u32(rpc_read_u64(n));
  return rpc_check_range(server, tensor.data, rpc_clamp_u32(tensor.byte_offset), *nbytes);
}

static bool do_copy_from_remote(utvm_rpc_server_t *server, rpc_reader_t *r) {
  uint32_t nbytes = 0u;
  const uint8_t *src = copy_range(server, r, &nbytes);
  uint32_t limit = reply_limit(server) - 4u;
  if (src == NULL) {
    return false;
  }
  if (nbytes > limit) {
    rpc_fail_hex(server, UTVM_TEXT_RPC_LIMIT, limit);
    return false;
  }
  uint8_t head[REPLY_PREFIX_SIZE + 4u];
  rpc_write_u32(&head[8], UTVM_RPC_COPY_ACK);
  reply(server, head, sizeof(head), src, nbytes);
  return true;
}

/* Executes the complete request held in the buffer and replies. */
static void rpc_dispatch(utvm_rpc_server_t *server) {
  uint8_t *buf = server->rx_buffer;
  int32_t code = server->code;
  /* The request buffer after the request is the scratch area; all of it when the request
   * was gathered in the tensor arena. */
  uint8_t *scratch = (buf == server->buffer) ? &buf[server->body_len] : server->buffer;
  rpc_reader_t r = {&buf[RPC_PREFIX_SIZE], server->body_len - RPC_PREFIX_SIZE,
                    {scratch, &server->buffer[server->buffer_size]}};
  rpc_args_t args;
  bool replied;
  args.num = 0;
  switch (code) {
    case UTVM_RPC_SHUTDOWN:
      utvm_crt_reset_memory(&server->crt);
      return;
    case UTVM_RPC_INIT_SERVER:
      replied = do_init_server(server, &r, &args);
      break;
    case UTVM_RPC_CALL_FUNC:
      replied = do_call_func(server, &r, &args);
      break;
    case UTVM_RPC_COPY_FROM_REMOTE:
      replied = do_copy_from_remote(server, &r);
      break;
    default:
      replied = false;
      if ((code < UTVM_RPC_GET_GLOBAL_FUNC) || (code > UTVM_RPC_DEV_GET_CURRENT_STREAM)) {
        rpc_fail_hex(server, UTVM_TEXT_RPC_CODE, (uint64_t)(uint32_t)code);
      } else {
        replied = do_syscall(server, code, &r, &args);
      }
      break;
  }
  if (!replied) {
    rpc_reply_exception(server);
  }
}

/* ---------------------------------------------------------------- receive path */

/* Drops the rest of the request; it is answered with the last error when it ends. */
static void rpc_reject(utvm_rpc_server_t *server, utvm_text_id_t problem) {
  rpc_fail(server, problem);
  server->rx_state = RX_DISCARD;
}

/* Frees the large-CallFunc allocation, if the request had one. */
static void rpc_release_rx(utvm_rpc_server_t *server) {
  if (server->rx_buffer != server->buffer) {
    (void)utvm_page_free(&server->crt.tensors, server->rx_buffer);
    server->rx_buffer = server->buffer;
  }
}

/* Called each time the buffer holds the `collect` bytes asked for. */
static void rpc_on_collected(utvm_rpc_server_t *server) {
  uint8_t *buf = server->buffer;
  uint32_t header = server->received;
  if ((header == RPC_PREFIX_SIZE) && (server->sequence != NULL) &&
      server->sequence->on_header(server)) {
    /* the rest of the prefix follows */
  } else if (header == RPC_PREFIX_SIZE) {
    server->code = (int32_t)rpc_read_u32(&buf[8]);
    if (server->rx_state != RX_COLLECT) {
      /* repeated, stale or refused: the rest of the request is not looked at */
    } else if (rpc_read_u64(buf) != (uint64_t)(server->body_len - 8u)) {
      rpc_reject(server, UTVM_TEXT_RPC_LENGTH);
    } else if (server->code == UTVM_RPC_COPY_TO_REMOTE) {
      server->collect = RPC_COPY_FIXED_HEADER;
    } else if (server->body_len <= server->buffer_size) {
      server->collect = server->body_len;
    } else if ((server->code == UTVM_RPC_CALL_FUNC) && (server->gather_call != NULL)) {
      server->gather_call(server);
    } else {
      rpc_reject(server, UTVM_TEXT_RPC_BUFFER);
    }
  } else if (server->code != UTVM_RPC_COPY_TO_REMOTE) {
    /* The whole request is buffered; it runs when the message ends with a good CRC. */
  } else if (header == RPC_COPY_FIXED_HEADER) {
    /* ndim is known: collect the shape, byte_offset and nbytes (ndim is checked later). */
    uint32_t ndim = rpc_read_u32(&buf[28]);
    server->collect = RPC_COPY_FIXED_HEADER + (8u * ((ndim <= UTVM_RPC_MAX_NDIM) ? ndim : 0u)) + 16u;
  } else {
    rpc_reader_t r = {&buf[RPC_PREFIX_SIZE], header - RPC_PREFIX_SIZE,
                      {&buf[header], &buf[server->buffer_size]}};
    uint32_t nbytes = 0u;
    server->copy_dst = copy_range(server, &r, &nbytes);
    if (((server->seq_flags & RPC_SEQ_RX) != 0u) &&
        (utvm_crc16_update(UTVM_CRC16_INIT, buf, header) != server->rx_check)) {
      rpc_reject(server, UTVM_TEXT_RPC_CRC); /* a damaged header: nothing is written */
    } else if (server->copy_dst == NULL) {
      server->rx_state = RX_DISCARD;
    } else if (nbytes != (server->body_len - header)) {
      rpc_reject(server, UTVM_TEXT_RPC_LENGTH);
    } else {
      server->rx_state = RX_STREAM_IN;
    }
  }
  if ((server->rx_state == RX_COLLECT) && (server->collect > server->body_len)) {
    rpc_reject(server, UTVM_TEXT_RPC_TRUNCATED);
  }
}

static void rpc_on_message_start(void *ctx, utvm_msg_type_t type, uint32_t body_len) {
  utvm_rpc_server_t *server = (utvm_rpc_server_t *)ctx;
  server->body_len = body_len;
  server->received = 0u;
  server->code = UTVM_RPC_NONE;
  server->seq_flags &= (uint8_t)~(RPC_SEQ_RX | RPC_SEQ_KEEP);
  server->collect = RPC_PREFIX_SIZE;
  rpc_release_rx(server); /* a request whose end never came */
  /* A Log sent to the device, or no request (packet_nbytes 0): ignored, as TVM does. */
  server->rx_state = ((type != UTVM_MSG_NORMAL) || (body_len < RPC_PREFIX_SIZE)) ? RX_IDLE
                                                                                 : RX_COLLECT;
}

static void rpc_on_message_data(void *ctx, const uint8_t *data, size_t n) {
  utvm_rpc_server_t *server = (utvm_rpc_server_t *)ctx;
  size_t used = 0u;
  /* Bytes to buffer; the session bounds the body, so none is left over once the whole request
   * is buffered. */
  while ((used < n) && (server->rx_state == RX_COLLECT) && (server->received < server->collect)) {
    size_t take = server->collect - server->received;
    take = (take < (n - used)) ? take : (n - used);
    (void)memcpy(&server->rx_buffer[server->received], &data[used], take);
    server->received += (uint32_t)take;
    used += take;
    if (server->received == server->collect) {
      rpc_on_collected(server);
    }
  }
  /* Then, for a CopyToRemote whose header passed, its payload. */
  if (server->rx_state == RX_STREAM_IN) {
    (void)memcpy(server->copy_dst, &data[used], n - used);
    server->copy_dst = &server->copy_dst[n - used];
  }
}

static void rpc_on_message_end(void *ctx, utvm_frame_status_t status) {
  utvm_rpc_server_t *server = (utvm_rpc_server_t *)ctx;
  uint8_t rx_state = server->rx_state;
  server->rx_state = RX_IDLE;
  if (rx_state == RX_IDLE) {
    return;
  }
  if ((status == UTVM_FRAME_TRUNCATED) || (status == UTVM_FRAME_INVALID_ESCAPE)) {
    /* The host started another packet: whatever this was, it gets no reply. */
    server->stats.discarded++;
    rpc_release_rx(server);
    return;
  }
  server->stats.requests++;
  if (((server->seq_flags & RPC_SEQ_RX) != 0u) &&
      server->sequence->on_end(server, status, rx_state)) {
    /* answered from the reply cache, or dropped as stale */
  } else if (status == UTVM_FRAME_BAD_CRC) {
    if (rx_state == RX_STREAM_IN) {
      server->stats.copy_crc_errors++;
      rpc_fail(server, UTVM_TEXT_RPC_COPY_CRC);
    } else {
      rpc_fail(server, UTVM_TEXT_RPC_CRC);
    }
    rpc_reply_exception(server);
  } else if (rx_state == RX_DISCARD) {
    rpc_reply_exception(server); /* rejected: the last error says why */
  } else if (rx_state == RX_STREAM_IN) {
    reply_value(server, kTVMNullptr, 0u);
  } else {
    rpc_dispatch(server);
  }
  rpc_release_rx(server);
}

static void rpc_on_session_event(void *ctx, utvm_session_event_t event) {
  utvm_rpc_server_t *server = (utvm_rpc_server_t *)ctx;
  /* Nothing survives a session (PROTOCOL.md 7.18): a new session starts from a clean slate. */
  if (event == UTVM_SESSION_EVENT_ESTABLISHED) {
    server->rx_buffer = server->buffer; /* the reset frees any large-CallFunc allocation */
    server->seq_flags = 0u;
    utvm_crt_reset_memory(&server->crt);
    server->session.config.max_tx_payload = UTVM_SESSION_TVM_HOST_MAX_MESSAGE;
  }
}

/* ---------------------------------------------------------------- server globals */

static int rpc_get_crt_max_packet_size(TVMValue *args, int *codes, int num_args, TVMValue *ret,
                                       int *ret_tc, void *resource) {
  (void)args;
  (void)codes;
  if (num_args != 0) {
    rpc_fail((const utvm_rpc_server_t *)resource, UTVM_TEXT_RPC_ARGUMENTS);
    return -1;
  }
  ret->v_int64 = UTVM_RPC_TVM_MAX_PACKET;
  *ret_tc = kTVMArgInt;
  return 0;
}

static int rpc_get_max_transfer_size(TVMValue *args, int *codes, int num_args, TVMValue *ret,
                                     int *ret_tc, void *resource) {
  utvm_rpc_server_t *server = (utvm_rpc_server_t *)resource;
  (void)args;
  (void)codes;
  if (num_args != 0) {
    rpc_fail(server, UTVM_TEXT_RPC_ARGUMENTS);
    return -1;
  }
  uint32_t limit = server->max_transfer_size + UTVM_SESSION_HEADER_SIZE + 8u +
                   UTVM_RPC_SEQ_PREFIX_SIZE;
  if (limit > server->session.config.max_tx_payload) {
    server->session.config.max_tx_payload = limit;
  }
  ret->v_int64 = server->max_transfer_size;
  *ret_tc = kTVMArgInt;
  return 0;
}

/* utvm.rpc.server.Sync(token): returns token, so a host can tell its reply from late replies
 * to requests it gave up on (docs/RECOVERY.md). */
static int rpc_sync(TVMValue *args, int *codes, int num_args, TVMValue *ret, int *ret_tc,
                    void *resource) {
  if ((num_args != 1) || (codes[0] != kTVMArgInt)) {
    rpc_fail((const utvm_rpc_server_t *)resource, UTVM_TEXT_RPC_ARGUMENTS);
    return -1;
  }
  ret->v_int64 = args[0].v_int64;
  *ret_tc = kTVMArgInt;
  return 0;
}

/* ---------------------------------------------------------------- public API */

utvm_err_t utvm_rpc_server_init(utvm_rpc_server_t *server, const utvm_rpc_server_config_t *config) {
  if ((server == NULL) || (config == NULL) || (config->buffer == NULL) ||
      (config->buffer_size < UTVM_RPC_MIN_BUFFER_SIZE) || (config->buffer_size > UINT32_MAX) ||
      (((uintptr_t)config->buffer & 7u) != 0u) ||
      (config->max_transfer_size > (UINT32_MAX - 64u))) {
    return UTVM_ERR_SESSION_BAD_ARGUMENT;
  }
  (void)memset(server, 0, sizeof(*server));
  server->buffer = config->buffer;
  server->rx_buffer = config->buffer;
  server->buffer_size = (uint32_t)config->buffer_size;
  server->max_transfer_size = config->max_transfer_size;
  /* The server's globals; the last only when a copy size is configured. */
  static const struct {
    const char *name;
    TVMBackendPackedCFunc func;
  } globals[3] = {{"tvm.rpc.server.GetCRTMaxPacketSize", rpc_get_crt_max_packet_size},
                  {UTVM_RPC_SYNC_NAME, rpc_sync},
                  {UTVM_RPC_GET_MAX_TRANSFER_NAME, rpc_get_max_transfer_size}};
  const uint32_t count = (config->max_transfer_size > 0u) ? 3u : 2u;
  utvm_err_t err = utvm_crt_init(&server->crt, &config->crt);
  for (uint32_t i = 0u; (err == UTVM_OK) && (i < count); i++) {
    err = utvm_crt_register_global(globals[i].name, globals[i].func, server);
  }
  if (err == UTVM_OK) {
    const utvm_session_config_t session_config = {
        UTVM_SESSION_ROLE_RESPONDER, config->write, config->write_ctx, config->random,
        config->random_ctx,
        {rpc_on_session_event, rpc_on_message_start, rpc_on_message_data, rpc_on_message_end,
         server},
        0u, 0u};
    err = utvm_session_init(&server->session, &session_config);
  }
  if ((err == UTVM_OK) && (config->boot_log != NULL) && (config->boot_log[0] != '\0')) {
    err = utvm_session_send_log(&server->session, config->boot_log,
                                bounded_length(config->boot_log, UTVM_SESSION_LOG_MAX));
  }
  if (err == UTVM_OK) {
    err = utvm_session_send_terminate(&server->session);
  }
  return err;
}

void utvm_rpc_server_feed(utvm_rpc_server_t *server, const uint8_t *data, size_t n) {
  utvm_session_feed(&server->session, data, n);
}

utvm_err_t utvm_rpc_server_log(utvm_rpc_server_t *server, const char *text, size_t len) {
  return utvm_session_send_log(&server->session, text, len);
}

void utvm_rpc_server_get_stats(const utvm_rpc_server_t *server, utvm_rpc_server_stats_t *rpc,
                               utvm_session_stats_t *session, utvm_unframer_stats_t *framing) {
  if (rpc != NULL) {
    *rpc = server->stats;
  }
  utvm_session_get_stats(&server->session, session, framing);
}

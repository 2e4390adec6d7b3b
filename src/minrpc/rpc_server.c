/* MinRPC server: receive state machine, request dispatch and replies (PROTOCOL.md 3-4). */
#include <string.h>

#include "rpc_internal.h"
#include "tvm/runtime/crt/platform.h"

enum {
  RX_IDLE = 0,  /* no request in progress */
  RX_IGNORE,    /* a message that is not a request: no reply whatever happens */
  RX_COLLECT,   /* gathering request bytes into the buffer */
  RX_STREAM_IN, /* CopyToRemote payload: written straight to tensor memory */
  RX_DISCARD    /* dropping the rest of the message (pending_error says whether to reply) */
};

/* Upper bound of a reply prefix, one value and its type codes (not counting str/bytes). */
#define RPC_REPLY_SCRATCH 96u

/* Bytes of a CopyToRemote/CopyFromRemote request before its shape. */
#define RPC_COPY_FIXED_HEADER (RPC_PREFIX_SIZE + RPC_TENSOR_HEADER_SIZE - 8u)

/* ---------------------------------------------------------------- replies */

typedef struct {
  utvm_rpc_server_t *server;
  utvm_err_t err;
} rpc_writer_t;

static void writer_put(rpc_writer_t *w, const uint8_t *data, size_t n) {
  if ((w->err == UTVM_OK) && (n > 0u)) {
    w->err = utvm_session_message_write(&w->server->session, data, n);
  }
}

/* Starts a reply whose packet (after the u64 length) is nbytes long. */
static rpc_writer_t reply_begin(utvm_rpc_server_t *server, uint32_t nbytes) {
  rpc_writer_t w = {server, UTVM_OK};
  uint8_t prefix[8];
  rpc_write_u64(prefix, nbytes);
  w.err = utvm_session_message_begin(&server->session, 8u + nbytes);
  writer_put(&w, prefix, sizeof(prefix));
  return w;
}

static void reply_end(rpc_writer_t *w) {
  if (w->err == UTVM_OK) {
    w->err = utvm_session_message_end(&w->server->session);
  }
  if (w->err != UTVM_OK) {
    w->server->stats.write_errors++;
  }
}

/* Largest packet_nbytes a reply may have in the current session. */
static uint32_t reply_limit(const utvm_rpc_server_t *server) {
  return server->session.config.max_tx_payload - UTVM_SESSION_HEADER_SIZE - 8u;
}

static void reply_exception(utvm_rpc_server_t *server) {
  const char *text = TVMGetLastError();
  uint32_t len = (text != NULL) ? (uint32_t)strlen(text) : 0u;
  if (len > (reply_limit(server) - 16u)) {
    len = reply_limit(server) - 16u;
  }
  uint8_t head[16];
  rpc_write_u32(head, UTVM_RPC_EXCEPTION);
  rpc_write_u32(&head[4], 1u);
  rpc_write_u32(&head[8], kTVMStr);
  rpc_write_u32(&head[12], len);
  uint8_t len_hi[4] = {0u, 0u, 0u, 0u};
  rpc_writer_t w = reply_begin(server, 20u + len);
  writer_put(&w, head, sizeof(head));
  writer_put(&w, len_hi, sizeof(len_hi));
  writer_put(&w, (const uint8_t *)text, len);
  reply_end(&w);
  server->stats.exceptions++;
}

/* Syscall reply with one value: tc 4 (void), 3 (handle) or 0 (int). */
static void reply_value(utvm_rpc_server_t *server, int tc, uint64_t value) {
  uint8_t body[20];
  rpc_write_u32(body, UTVM_RPC_RETURN);
  rpc_write_u32(&body[4], 1u);
  rpc_write_u32(&body[8], (uint32_t)tc);
  rpc_write_u64(&body[12], value);
  uint32_t n = 20u;
  if (tc == kTVMNullptr) {
    n = 12u;
  }
  rpc_writer_t w = reply_begin(server, n);
  writer_put(&w, body, n);
  reply_end(&w);
}

static void reply_void(utvm_rpc_server_t *server) { reply_value(server, kTVMNullptr, 0u); }

/* Encodes the value part of a CallFunc result into out (no str/bytes payload); returns
 * the wire type code and sets *len, *extra and *extra_len for trailing payload bytes. */
static bool encode_return(int tc, const TVMValue *v, uint8_t *out, uint32_t *len,
                          int *wire_tc, const uint8_t **extra, uint32_t *extra_len) {
  *extra = NULL;
  *extra_len = 0u;
  *wire_tc = tc;
  *len = 8u;
  switch (tc) {
    case kTVMArgInt:
    case kDLUInt:
    case kTVMArgBool:
      rpc_write_u64(out, (uint64_t)v->v_int64);
      return true;
    case kTVMArgFloat: {
      uint64_t bits = 0u;
      (void)memcpy(&bits, &v->v_float64, sizeof(bits));
      rpc_write_u64(out, bits);
      return true;
    }
    case kTVMNullptr:
      *len = 0u;
      return true;
    case kTVMDataType:
      out[0] = v->v_type.code;
      out[1] = v->v_type.bits;
      out[2] = (uint8_t)v->v_type.lanes;
      out[3] = (uint8_t)(v->v_type.lanes >> 8);
      rpc_write_u32(&out[4], 0u);
      return true;
    case kDLDevice:
      rpc_write_u32(out, (uint32_t)v->v_device.device_type);
      rpc_write_u32(&out[4], (uint32_t)v->v_device.device_id);
      return true;
    case kTVMOpaqueHandle:
    case kTVMObjectHandle:
    case kTVMModuleHandle:
    case kTVMPackedFuncHandle:
      *wire_tc = kTVMOpaqueHandle;
      rpc_write_u64(out, (uint64_t)(uintptr_t)v->v_handle);
      return true;
    case kTVMStr: {
      const char *s = (v->v_str != NULL) ? v->v_str : "";
      *extra = (const uint8_t *)s;
      *extra_len = (uint32_t)strlen(s);
      rpc_write_u64(out, *extra_len);
      return true;
    }
    case kTVMBytes: {
      const TVMByteArray *b = (const TVMByteArray *)v->v_handle;
      uint64_t size = (b != NULL) ? b->size : 0u;
      if ((b == NULL) || (size > UINT32_MAX)) {
        TVMAPISetLastError("invalid returned byte array");
        return false;
      }
      *extra = (const uint8_t *)b->data;
      *extra_len = (uint32_t)b->size;
      rpc_write_u64(out, *extra_len);
      return true;
    }
    default:
      rpc_set_error_hex("unsupported return type code ", (uint64_t)(uint32_t)tc);
      return false;
  }
}

/* Releases a kTVMBytes result, which the callee allocated for the caller (PROTOCOL.md 3.5). */
static void release_return(int tc, TVMValue *v) {
  if ((tc == kTVMBytes) && (v->v_handle != NULL)) {
    TVMByteArray *b = (TVMByteArray *)v->v_handle;
    const DLDevice cpu = {kDLCPU, 0};
    if (b->data != NULL) {
      (void)TVMPlatformMemoryFree((void *)(uintptr_t)b->data, cpu);
    }
    (void)TVMPlatformMemoryFree(b, cpu);
  }
}

/* CallFunc reply: [Int tc][value] (PROTOCOL.md 3.5). */
static void reply_call_result(utvm_rpc_server_t *server, int tc, TVMValue *v) {
  uint8_t body[RPC_REPLY_SCRATCH];
  uint32_t value_len = 0u;
  int wire_tc = tc;
  const uint8_t *extra = NULL;
  uint32_t extra_len = 0u;
  if (!encode_return(tc, v, &body[24], &value_len, &wire_tc, &extra, &extra_len)) {
    reply_exception(server);
    return;
  }
  uint32_t fixed = 24u + value_len;
  if (extra_len > (reply_limit(server) - fixed)) {
    rpc_set_error_hex("return value over reply limit ", reply_limit(server));
    reply_exception(server);
    return;
  }
  rpc_write_u32(body, UTVM_RPC_RETURN);
  rpc_write_u32(&body[4], 2u);
  rpc_write_u32(&body[8], kTVMArgInt);
  rpc_write_u32(&body[12], (uint32_t)wire_tc);
  rpc_write_u64(&body[16], (uint64_t)(int64_t)tc);
  rpc_writer_t w = reply_begin(server, fixed + extra_len);
  writer_put(&w, body, fixed);
  writer_put(&w, extra, extra_len);
  reply_end(&w);
}

/* ---------------------------------------------------------------- requests */

static bool device_is_cpu0(DLDevice dev) {
  return (dev.device_type == kDLCPU) && (dev.device_id == 0);
}

/* A raw pointer from the host (type 3) reaches a function only if it is NULL or points into
 * a live tensor allocation; false with the last error set otherwise. */
static bool opaque_args_in_tensors(const rpc_args_t *args) {
  for (int i = 0; i < args->num; i++) {
    if ((args->codes[i] == kTVMOpaqueHandle) && (args->values[i].v_handle != NULL) &&
        (rpc_check_range((uint64_t)(uintptr_t)args->values[i].v_handle, 0u, 0u,
                         "CallFunc: opaque handle not in a tensor") == NULL)) {
      return false;
    }
  }
  return true;
}

static void do_call_func(utvm_rpc_server_t *server, rpc_reader_t *r, rpc_scratch_t *scratch,
                         rpc_args_t *args) {
  const uint8_t *h = rpc_reader_take(r, 8u);
  uint64_t handle = (h != NULL) ? rpc_read_u64(h) : 0u;
  if ((h == NULL) || (handle > (uint64_t)UINTPTR_MAX)) {
    TVMAPISetLastError("CallFunc: bad function handle");
  } else if (rpc_decode_args(r, scratch, args) && opaque_args_in_tensors(args)) {
    TVMValue ret;
    int ret_tc = kTVMNullptr;
    ret.v_int64 = 0;
    if (TVMFuncCall((TVMFunctionHandle)(uintptr_t)handle, args->values, args->codes, args->num,
                    &ret, &ret_tc) == 0) {
      reply_call_result(server, ret_tc, &ret);
      release_return(ret_tc, &ret);
      return;
    }
  } else {
    /* the decoder or the pointer check set the error */
  }
  reply_exception(server);
}

static void do_init_server(utvm_rpc_server_t *server, rpc_reader_t *r, rpc_scratch_t *scratch,
                           rpc_args_t *args) {
  static const char version[] = UTVM_RPC_PROTOCOL_VERSION;
  const uint8_t *len_bytes = rpc_reader_take(r, 8u);
  uint64_t len = (len_bytes != NULL) ? rpc_read_u64(len_bytes) : 0u;
  const uint8_t *text = ((len_bytes != NULL) && (len <= r->left)) ?
                            rpc_reader_take(r, (uint32_t)len) : NULL;
  if ((text == NULL) || (len != (sizeof(version) - 1u)) ||
      (memcmp(text, version, sizeof(version) - 1u) != 0)) {
    TVMAPISetLastError("InitServer: protocol version is not " UTVM_RPC_PROTOCOL_VERSION);
  } else if (!rpc_decode_args(r, scratch, args)) {
    /* error set */
  } else if (args->num != 0) {
    TVMAPISetLastError("InitServer: takes no arguments");
  } else {
    reply_void(server);
    return;
  }
  reply_exception(server);
}

static void do_alloc_with_scope(utvm_rpc_server_t *server, rpc_reader_t *r, rpc_scratch_t *scratch) {
  const uint8_t *p = rpc_reader_take(r, 4u);
  const uint8_t *codes = (p != NULL) ? rpc_reader_take(r, 8u) : NULL;
  DLTensor tensor;
  uint32_t nbytes = 0u;
  void *ptr = NULL;
  if ((codes == NULL) || (rpc_read_u32(p) != 2u) || (rpc_read_u32(codes) != kTVMDLTensorHandle) ||
      ((rpc_read_u32(&codes[4]) != kTVMNullptr) && (rpc_read_u32(&codes[4]) != kTVMStr))) {
    TVMAPISetLastError("DevAllocDataWithScope: bad arguments");
  } else if (!rpc_decode_tensor(r, scratch, &tensor) || !rpc_tensor_nbytes(&tensor, &nbytes)) {
    /* error set */
  } else if (!device_is_cpu0(tensor.device)) {
    TVMAPISetLastError("DevAllocDataWithScope: not device cpu(0)");
  } else if (TVMDeviceAllocDataSpace(tensor.device, nbytes, UTVM_CRT_PAGE_SIZE, tensor.dtype, &ptr) == 0) {
    reply_value(server, kTVMOpaqueHandle, (uint64_t)(uintptr_t)ptr);
    return;
  } else {
    /* runtime set the error */
  }
  reply_exception(server);
}

/* Signature of a syscall whose arguments are one packed sequence: its name and the expected
 * argument type codes, SIG_END after the last. */
typedef struct {
  const char *name;
  uint8_t codes[4];
} rpc_syscall_sig_t;

#define SIG_END 0xFFu
#define TC(code) ((uint8_t)(code))

/* Indexed by code - UTVM_RPC_GET_GLOBAL_FUNC; DevAllocDataWithScope is decoded by its own code. */
static const rpc_syscall_sig_t kSyscalls[UTVM_RPC_DEV_GET_CURRENT_STREAM - UTVM_RPC_GET_GLOBAL_FUNC + 1] = {
    {"GetGlobalFunc", {TC(kTVMStr), SIG_END, SIG_END, SIG_END}},
    {"FreeHandle", {TC(kTVMOpaqueHandle), TC(kTVMArgInt), SIG_END, SIG_END}},
    {"DevSetDevice", {TC(kDLDevice), SIG_END, SIG_END, SIG_END}},
    {"DevGetAttr", {TC(kDLDevice), TC(kTVMArgInt), SIG_END, SIG_END}},
    {"DevAllocData", {TC(kDLDevice), TC(kTVMArgInt), TC(kTVMArgInt), TC(kTVMDataType)}},
    {"DevFreeData", {TC(kDLDevice), TC(kTVMOpaqueHandle), SIG_END, SIG_END}},
    {"DevStreamSync", {TC(kDLDevice), TC(kTVMOpaqueHandle), SIG_END, SIG_END}},
    {"CopyAmongRemote", {TC(kTVMDLTensorHandle), TC(kTVMDLTensorHandle), TC(kTVMOpaqueHandle), SIG_END}},
    {NULL, {SIG_END, SIG_END, SIG_END, SIG_END}}, /* DevAllocDataWithScope */
    {"DevCreateStream", {TC(kDLDevice), SIG_END, SIG_END, SIG_END}},
    {"DevFreeStream", {TC(kDLDevice), TC(kTVMOpaqueHandle), SIG_END, SIG_END}},
    {"DevSetStream", {TC(kDLDevice), TC(kTVMOpaqueHandle), SIG_END, SIG_END}},
    {"DevGetCurrentStream", {TC(kDLDevice), SIG_END, SIG_END, SIG_END}},
};

/* Runs a syscall whose arguments matched its signature; stores a handle or Int result in
 * *tc and *value (left kTVMNullptr for void). False with the last error set on failure. */
static bool run_syscall(utvm_rpc_server_t *server, int32_t code, const rpc_args_t *args,
                        int *tc, uint64_t *value) {
  const TVMValue *v = args->values;
  switch (code) {
    case UTVM_RPC_GET_GLOBAL_FUNC: {
      TVMFunctionHandle f = NULL;
      if (TVMFuncGetGlobal(v[0].v_str, &f) != 0) {
        f = NULL;
      }
      *tc = kTVMOpaqueHandle;
      *value = (uint64_t)(uintptr_t)f;
      return true;
    }
    case UTVM_RPC_FREE_HANDLE:
      if (v[1].v_int64 == kTVMPackedFuncHandle) {
        return TVMFuncFree(v[0].v_handle) == 0;
      }
      if (v[1].v_int64 == kTVMModuleHandle) {
        return TVMModFree(v[0].v_handle) == 0;
      }
      TVMAPISetLastError("FreeHandle: only type codes 9 and 10 are issued");
      return false;
    case UTVM_RPC_DEV_SET_DEVICE:
      if (!device_is_cpu0(v[0].v_device)) {
        TVMAPISetLastError("DevSetDevice: not device cpu(0)");
        return false;
      }
      return true;
    case UTVM_RPC_DEV_GET_ATTR: {
      const utvm_page_allocator_t *tensors = &server->crt.tensors;
      *tc = kTVMArgInt;
      if (v[1].v_int64 == 0) { /* kExist */
        *value = device_is_cpu0(v[0].v_device) ? 1u : 0u;
      } else if (v[1].v_int64 == 14) { /* kTotalGlobalMemory */
        *value = (uint64_t)tensors->num_pages * UTVM_CRT_PAGE_SIZE;
      } else if (v[1].v_int64 == 15) { /* kAvailableGlobalMemory */
        *value = utvm_page_free_bytes(tensors);
      } else {
        rpc_set_error_hex("DevGetAttr: unsupported kind ", (uint64_t)v[1].v_int64);
        return false;
      }
      return true;
    }
    case UTVM_RPC_DEV_ALLOC_DATA: {
      int64_t nbytes = v[1].v_int64;
      int64_t alignment = v[2].v_int64;
      void *ptr = NULL;
      if ((nbytes < 0) || ((uint64_t)nbytes > (uint64_t)SIZE_MAX) || (alignment <= 0) ||
          (alignment > (int64_t)UTVM_CRT_PAGE_SIZE) || ((alignment & (alignment - 1)) != 0)) {
        TVMAPISetLastError("DevAllocData: bad size or alignment");
        return false;
      }
      if (TVMDeviceAllocDataSpace(v[0].v_device, (size_t)nbytes, (size_t)alignment, v[3].v_type,
                                  &ptr) != 0) {
        return false;
      }
      *tc = kTVMOpaqueHandle;
      *value = (uint64_t)(uintptr_t)ptr;
      return true;
    }
    case UTVM_RPC_DEV_FREE_DATA:
      return TVMDeviceFreeDataSpace(v[0].v_device, v[1].v_handle) == 0;
    case UTVM_RPC_COPY_AMONG_REMOTE: {
      const DLTensor *from = (const DLTensor *)v[0].v_handle;
      const DLTensor *to = (const DLTensor *)v[1].v_handle;
      uint32_t from_bytes = 0u;
      uint32_t to_bytes = 0u;
      (void)rpc_tensor_nbytes(from, &from_bytes); /* both already validated by the decoder */
      (void)rpc_tensor_nbytes(to, &to_bytes);
      if (from_bytes != to_bytes) {
        TVMAPISetLastError("CopyAmongRemote: tensor sizes differ");
        return false;
      }
      if (from_bytes > 0u) {
        (void)memmove(&((uint8_t *)to->data)[to->byte_offset],
                      &((const uint8_t *)from->data)[from->byte_offset], from_bytes);
      }
      return true;
    }
    case UTVM_RPC_DEV_CREATE_STREAM:
    case UTVM_RPC_DEV_GET_CURRENT_STREAM:
      *tc = kTVMOpaqueHandle;
      return true;
    default:
      /* DevStreamSync, DevFreeStream, DevSetStream: nothing to do on a CPU. */
      return true;
  }
}

/* Syscalls whose arguments are one plain packed sequence (code 9..21 except 17). */
static void do_syscall(utvm_rpc_server_t *server, int32_t code, const rpc_args_t *args) {
  const rpc_syscall_sig_t *sig = &kSyscalls[code - UTVM_RPC_GET_GLOBAL_FUNC];
  bool ok = (args->num <= 4);
  for (int i = 0; ok && (i < 4); i++) {
    ok = (sig->codes[i] == SIG_END) ? (i >= args->num) :
                                      ((i < args->num) && (args->codes[i] == (int)sig->codes[i]));
  }
  int tc = kTVMNullptr;
  uint64_t value = 0u;
  if (!ok) {
    TVMAPISetLastError(sig->name);
    utvm_crt_error_append(": wrong argument types");
  } else if (run_syscall(server, code, args, &tc, &value)) {
    reply_value(server, tc, value);
    return;
  } else {
    /* run_syscall or the runtime set the error */
  }
  reply_exception(server);
}

static void do_copy_from_remote(utvm_rpc_server_t *server, rpc_reader_t *r, rpc_scratch_t *scratch) {
  DLTensor tensor;
  const uint8_t *n_bytes = NULL;
  if (rpc_decode_tensor(r, scratch, &tensor)) {
    n_bytes = rpc_reader_take(r, 8u);
  }
  if (n_bytes == NULL) {
    TVMAPISetLastError("CopyFromRemote: truncated");
    reply_exception(server);
    return;
  }
  uint64_t nbytes = rpc_read_u64(n_bytes);
  uint32_t limit = reply_limit(server) - 4u;
  const uint8_t *src = NULL;
  if (nbytes > (uint64_t)limit) {
    rpc_set_error_hex("CopyFromRemote: over reply limit ", limit);
  } else {
    src = rpc_check_range((uint64_t)(uintptr_t)tensor.data, tensor.byte_offset, nbytes,
                          "CopyFromRemote: range outside tensors");
  }
  if (src == NULL) {
    reply_exception(server);
    return;
  }
  uint8_t code[4];
  rpc_write_u32(code, UTVM_RPC_COPY_ACK);
  rpc_writer_t w = reply_begin(server, 4u + (uint32_t)nbytes);
  writer_put(&w, code, sizeof(code));
  writer_put(&w, src, (size_t)nbytes);
  reply_end(&w);
}

/* Executes a complete request held in the buffer. */
static void rpc_dispatch(utvm_rpc_server_t *server) {
  uint8_t *buf = server->buffer;
  int32_t code = (int32_t)rpc_read_u32(&buf[8]);
  rpc_reader_t r = {&buf[RPC_PREFIX_SIZE], server->body_len - RPC_PREFIX_SIZE};
  uint32_t used = (server->body_len + 7u) & ~7u;
  if (used > server->buffer_size) {
    used = server->buffer_size;
  }
  rpc_scratch_t scratch = {&buf[used], &buf[server->buffer_size]};
  rpc_args_t args;
  args.num = 0;
  server->stats.requests++;
  switch (code) {
    case UTVM_RPC_SHUTDOWN:
      utvm_crt_reset_memory(&server->crt);
      return;
    case UTVM_RPC_INIT_SERVER:
      do_init_server(server, &r, &scratch, &args);
      return;
    case UTVM_RPC_CALL_FUNC:
      do_call_func(server, &r, &scratch, &args);
      return;
    case UTVM_RPC_COPY_FROM_REMOTE:
      do_copy_from_remote(server, &r, &scratch);
      return;
    case UTVM_RPC_DEV_ALLOC_DATA_WITH_SCOPE:
      do_alloc_with_scope(server, &r, &scratch);
      return;
    default:
      break;
  }
  if (code < UTVM_RPC_GET_GLOBAL_FUNC) {
    rpc_set_error_hex("unexpected RPC code ", (uint64_t)(uint32_t)code);
    reply_exception(server);
  } else if (code > UTVM_RPC_DEV_GET_CURRENT_STREAM) {
    rpc_set_error_hex("Syscall not recognized: ", (uint64_t)(uint32_t)code);
    reply_exception(server);
  } else if (rpc_decode_args(&r, &scratch, &args)) {
    do_syscall(server, code, &args);
  } else {
    reply_exception(server);
  }
}

/* ---------------------------------------------------------------- receive path */

static void rpc_reject(utvm_rpc_server_t *server, const char *reason) {
  server->pending_error = reason;
  server->rx_state = RX_DISCARD;
}

static const char copy_to_range_error[] = "CopyToRemote: range outside tensors";

/* Called each time the buffer holds the `collect` bytes asked for. */
static void rpc_on_collected(utvm_rpc_server_t *server) {
  const uint8_t *buf = server->buffer;
  bool copy_to = (rpc_read_u32(&buf[8]) == UTVM_RPC_COPY_TO_REMOTE);
  if (server->received == RPC_PREFIX_SIZE) {
    if (rpc_read_u64(buf) != (uint64_t)(server->body_len - 8u)) {
      rpc_reject(server, "RPC packet length != message length");
    } else if (copy_to) {
      server->collect = RPC_COPY_FIXED_HEADER;
    } else if (server->body_len > server->buffer_size) {
      rpc_reject(server, "request larger than request buffer");
    } else {
      server->collect = server->body_len;
    }
  } else if (!copy_to) {
    /* The whole request is buffered; it runs when the message ends with a good CRC. */
  } else if (server->received == RPC_COPY_FIXED_HEADER) {
    int32_t ndim = (int32_t)rpc_read_u32(&buf[28]);
    if ((ndim < 0) || ((uint32_t)ndim > UTVM_RPC_MAX_NDIM)) {
      rpc_reject(server, "CopyToRemote: bad ndim");
    } else {
      server->collect = RPC_COPY_FIXED_HEADER + (8u * (uint32_t)ndim) + 16u;
    }
  } else {
    uint32_t header = server->received;
    uint64_t offset = rpc_read_u64(&buf[header - 16u]);
    uint64_t nbytes = rpc_read_u64(&buf[header - 8u]);
    if (nbytes != (uint64_t)(server->body_len - header)) {
      rpc_reject(server, "CopyToRemote: nbytes != message length");
    } else if ((rpc_read_u32(&buf[20]) != (uint32_t)kDLCPU) || (rpc_read_u32(&buf[24]) != 0u)) {
      rpc_reject(server, "CopyToRemote: not device cpu(0)");
    } else {
      server->copy_dst = rpc_check_range(rpc_read_u64(&buf[12]), offset, nbytes,
                                         copy_to_range_error);
      if (server->copy_dst == NULL) {
        rpc_reject(server, copy_to_range_error);
      } else {
        server->rx_state = RX_STREAM_IN;
      }
    }
  }
  if ((server->rx_state == RX_COLLECT) && (server->collect > server->body_len)) {
    rpc_reject(server, "RPC request shorter than header");
  }
}

static void rpc_on_message_start(void *ctx, utvm_msg_type_t type, uint32_t body_len) {
  utvm_rpc_server_t *server = (utvm_rpc_server_t *)ctx;
  server->body_len = body_len;
  server->received = 0u;
  server->pending_error = NULL;
  server->copy_dst = NULL;
  server->rx_state = RX_IGNORE;
  if ((type != UTVM_MSG_NORMAL) || (body_len < RPC_PREFIX_SIZE)) {
    /* A Log sent to the device, or no request: packet_nbytes 0 (ignored, as TVM does). */
    return;
  }
  server->collect = RPC_PREFIX_SIZE;
  server->rx_state = RX_COLLECT;
}

static void rpc_on_message_data(void *ctx, const uint8_t *data, size_t n) {
  utvm_rpc_server_t *server = (utvm_rpc_server_t *)ctx;
  size_t used = 0u;
  while ((used < n) && (server->rx_state != RX_DISCARD) && (server->rx_state != RX_IGNORE)) {
    size_t left = n - used;
    if (server->rx_state == RX_STREAM_IN) {
      (void)memcpy(server->copy_dst, &data[used], left);
      server->copy_dst = &server->copy_dst[left];
      server->received += (uint32_t)left;
      used = n;
    } else if (server->received < server->collect) {
      size_t take = server->collect - server->received;
      take = (take < left) ? take : left;
      (void)memcpy(&server->buffer[server->received], &data[used], take);
      server->received += (uint32_t)take;
      used += take;
      if (server->received == server->collect) {
        rpc_on_collected(server);
      }
    } else {
      /* More bytes than the request needs cannot happen: the session bounds the body. */
      rpc_reject(server, "RPC message longer than request");
    }
  }
}

static void rpc_on_message_end(void *ctx, utvm_frame_status_t status) {
  utvm_rpc_server_t *server = (utvm_rpc_server_t *)ctx;
  uint8_t rx_state = server->rx_state;
  server->rx_state = RX_IDLE;
  if (rx_state == RX_IGNORE) {
    return;
  }
  if ((status == UTVM_FRAME_TRUNCATED) || (status == UTVM_FRAME_INVALID_ESCAPE)) {
    /* The host started another packet: whatever this was, it gets no reply. */
    server->stats.discarded++;
    return;
  }
  if (status == UTVM_FRAME_BAD_CRC) {
    if (rx_state == RX_STREAM_IN) {
      server->stats.copy_crc_errors++;
      TVMAPISetLastError("CopyToRemote: payload failed its CRC; destination contents undefined");
    } else {
      TVMAPISetLastError("request failed its CRC check and was not executed");
    }
    server->stats.requests++;
    reply_exception(server);
  } else if (server->pending_error != NULL) {
    server->stats.requests++;
    TVMAPISetLastError(server->pending_error);
    reply_exception(server);
  } else if (rx_state == RX_STREAM_IN) {
    server->stats.requests++;
    reply_void(server);
  } else {
    rpc_dispatch(server);
  }
}

static void rpc_on_session_event(void *ctx, utvm_session_event_t event) {
  utvm_rpc_server_t *server = (utvm_rpc_server_t *)ctx;
  /* Nothing survives a session (PROTOCOL.md 7.18): a new session starts from a clean slate. */
  if (event == UTVM_SESSION_EVENT_ESTABLISHED) {
    utvm_crt_reset_memory(&server->crt);
    server->session.config.max_tx_payload = UTVM_SESSION_TVM_HOST_MAX_MESSAGE;
  }
}

/* ---------------------------------------------------------------- server globals */

static int rpc_get_crt_max_packet_size(TVMValue *args, int *codes, int num_args, TVMValue *ret,
                                       int *ret_tc, void *resource) {
  (void)args;
  (void)codes;
  (void)resource;
  if (num_args != 0) {
    TVMAPISetLastError("GetCRTMaxPacketSize: takes no arguments");
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
    TVMAPISetLastError("GetMaxTransferSize: takes no arguments");
    return -1;
  }
  uint32_t limit = server->max_transfer_size + UTVM_SESSION_HEADER_SIZE + 8u;
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
  (void)resource;
  if ((num_args != 1) || (codes[0] != kTVMArgInt)) {
    TVMAPISetLastError("Sync takes one Int token");
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
  server->buffer_size = (uint32_t)config->buffer_size;
  server->max_transfer_size = config->max_transfer_size;
  utvm_err_t err = utvm_crt_init(&server->crt, &config->crt);
  if (err == UTVM_OK) {
    err = utvm_crt_register_global("tvm.rpc.server.GetCRTMaxPacketSize",
                                   rpc_get_crt_max_packet_size, server);
  }
  if (err == UTVM_OK) {
    err = utvm_crt_register_global(UTVM_RPC_SYNC_NAME, rpc_sync, server);
  }
  if ((err == UTVM_OK) && (config->max_transfer_size > 0u)) {
    err = utvm_crt_register_global(UTVM_RPC_GET_MAX_TRANSFER_NAME, rpc_get_max_transfer_size,
                                   server);
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
    size_t len = 0u;
    while ((len < UTVM_SESSION_LOG_MAX) && (config->boot_log[len] != '\0')) {
      len++;
    }
    err = utvm_session_send_log(&server->session, config->boot_log, len);
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

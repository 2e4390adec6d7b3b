/* Decoding and validation of RPC argument lists (PROTOCOL.md 3.3). */
#include <string.h>

#include "rpc_internal.h"
#include "utvm/crt.h"

/* Shared text: the scratch area (request buffer tail) cannot hold the parsed arguments. */
static const char kNoScratch[] = "request buffer too small for arguments";

uint8_t *rpc_reader_take(rpc_reader_t *reader, uint32_t n) {
  if (n > reader->left) {
    return NULL;
  }
  uint8_t *p = reader->pos;
  reader->pos = &reader->pos[n];
  reader->left -= n;
  return p;
}

/* Reserves n bytes aligned to 8 in the scratch area; NULL if it is exhausted. */
static void *scratch_alloc(rpc_scratch_t *scratch, uint32_t n) {
  uintptr_t addr = ((uintptr_t)scratch->next + 7u) & ~(uintptr_t)7u;
  uintptr_t end = (uintptr_t)scratch->end;
  if ((addr > end) || ((end - addr) < n)) {
    return NULL;
  }
  scratch->next = (uint8_t *)(addr + n);
  return (void *)addr;
}

void rpc_set_error_hex(const char *prefix, uint64_t value) {
  TVMAPISetLastError(prefix);
  utvm_crt_error_append_hex(value);
}

static bool reader_take_u64(rpc_reader_t *reader, uint64_t *value) {
  const uint8_t *p = rpc_reader_take(reader, 8u);
  if (p == NULL) {
    return false;
  }
  *value = rpc_read_u64(p);
  return true;
}

/* A u64 handle from the wire as a pointer; false if it does not fit this device. */
static bool handle_from_wire(uint64_t wire, void **handle) {
  if (wire > (uint64_t)UINTPTR_MAX) {
    TVMAPISetLastError("handle wider than a pointer");
    return false;
  }
  *handle = (void *)(uintptr_t)wire;
  return true;
}

bool rpc_decode_tensor(rpc_reader_t *reader, rpc_scratch_t *scratch, DLTensor *tensor) {
  const uint8_t *h = rpc_reader_take(reader, RPC_TENSOR_HEADER_SIZE - 8u);
  if (h == NULL) {
    TVMAPISetLastError("DLTensor header truncated");
    return false;
  }
  (void)memset(tensor, 0, sizeof(*tensor));
  if (!handle_from_wire(rpc_read_u64(h), &tensor->data)) {
    return false;
  }
  tensor->device.device_type = (DLDeviceType)(int32_t)rpc_read_u32(&h[8]);
  tensor->device.device_id = (int32_t)rpc_read_u32(&h[12]);
  int32_t ndim = (int32_t)rpc_read_u32(&h[16]);
  tensor->dtype.code = h[20];
  tensor->dtype.bits = h[21];
  tensor->dtype.lanes = (uint16_t)((uint16_t)h[22] | ((uint16_t)h[23] << 8));
  if ((ndim < 0) || ((uint32_t)ndim > UTVM_RPC_MAX_NDIM)) {
    rpc_set_error_hex("DLTensor ndim over ", UTVM_RPC_MAX_NDIM);
    return false;
  }
  tensor->ndim = ndim;
  const uint8_t *shape_bytes = rpc_reader_take(reader, 8u * (uint32_t)ndim);
  if (shape_bytes == NULL) {
    TVMAPISetLastError("DLTensor shape truncated");
    return false;
  }
  if (ndim > 0) {
    int64_t *shape = (int64_t *)scratch_alloc(scratch, 8u * (uint32_t)ndim);
    if (shape == NULL) {
      TVMAPISetLastError(kNoScratch);
      return false;
    }
    for (int32_t i = 0; i < ndim; i++) {
      shape[i] = (int64_t)rpc_read_u64(&shape_bytes[8 * i]);
    }
    tensor->shape = shape;
  }
  if (!reader_take_u64(reader, &tensor->byte_offset)) {
    TVMAPISetLastError("DLTensor byte_offset truncated");
    return false;
  }
  return true;
}

bool rpc_tensor_nbytes(const DLTensor *tensor, uint32_t *nbytes) {
  uint64_t count = 1u;
  for (int32_t i = 0; i < tensor->ndim; i++) {
    int64_t dim = tensor->shape[i];
    if ((dim < 0) || ((uint64_t)dim > UINT32_MAX)) {
      TVMAPISetLastError("DLTensor dimension out of range");
      return false;
    }
    count *= (uint64_t)dim;
    if (count > UINT32_MAX) {
      TVMAPISetLastError("DLTensor over 4 GiB");
      return false;
    }
  }
  uint64_t elem = (((uint64_t)tensor->dtype.bits * tensor->dtype.lanes) + 7u) / 8u;
  uint64_t total = count * elem;
  if (total > UINT32_MAX) {
    TVMAPISetLastError("DLTensor over 4 GiB");
    return false;
  }
  *nbytes = (uint32_t)total;
  return true;
}

uint8_t *rpc_check_range(uint64_t data, uint64_t offset, uint64_t nbytes, const char *what) {
  uint8_t *base = NULL;
  size_t size = 0u;
  if ((data > (uint64_t)UINTPTR_MAX) ||
      (utvm_crt_data_range((const void *)(uintptr_t)data, &base, &size) != UTVM_OK)) {
    TVMAPISetLastError(what);
    return NULL;
  }
  uint64_t start = data - (uint64_t)(uintptr_t)base;
  if ((offset > size) || (start > (size - offset)) || (nbytes > (size - offset - start))) {
    TVMAPISetLastError(what);
    return NULL;
  }
  return &base[start + offset];
}

bool rpc_check_tensor(const DLTensor *tensor) {
  if ((tensor->device.device_type != kDLCPU) || (tensor->device.device_id != 0)) {
    TVMAPISetLastError("DLTensor not on device cpu(0)");
    return false;
  }
  if ((tensor->dtype.bits == 0u) || (tensor->dtype.lanes == 0u)) {
    TVMAPISetLastError("DLTensor dtype empty");
    return false;
  }
  uint32_t nbytes = 0u;
  if (!rpc_tensor_nbytes(tensor, &nbytes)) {
    return false;
  }
  if ((nbytes == 0u) && (tensor->data == NULL)) {
    return true;
  }
  return rpc_check_range((uint64_t)(uintptr_t)tensor->data, tensor->byte_offset, nbytes,
                         "DLTensor data outside tensors") != NULL;
}

/* Decodes the value of one argument of type code tc into value. */
static bool decode_value(rpc_reader_t *reader, rpc_scratch_t *scratch, int tc, TVMValue *value) {
  uint64_t u = 0u;
  switch (tc) {
    case kTVMArgInt:
    case kDLUInt:
    case kTVMArgBool:
      if (!reader_take_u64(reader, &u)) {
        break;
      }
      value->v_int64 = (int64_t)u;
      return true;
    case kTVMArgFloat:
      if (!reader_take_u64(reader, &u)) {
        break;
      }
      (void)memcpy(&value->v_float64, &u, sizeof(u));
      return true;
    case kTVMNullptr:
      value->v_handle = NULL;
      return true;
    case kTVMDataType: {
      const uint8_t *p = rpc_reader_take(reader, 8u);
      if (p == NULL) {
        break;
      }
      value->v_type.code = p[0];
      value->v_type.bits = p[1];
      value->v_type.lanes = (uint16_t)((uint16_t)p[2] | ((uint16_t)p[3] << 8));
      return true;
    }
    case kDLDevice: {
      const uint8_t *p = rpc_reader_take(reader, 8u);
      if (p == NULL) {
        break;
      }
      value->v_device.device_type = (DLDeviceType)(int32_t)rpc_read_u32(p);
      value->v_device.device_id = (int32_t)rpc_read_u32(&p[4]);
      return true;
    }
    case kTVMOpaqueHandle:
    case kTVMModuleHandle:
    case kTVMPackedFuncHandle:
      /* Module and function handles are checked by the runtime when used; raw pointers by
       * CallFunc before they reach a function (syscalls only hand them to the runtime). */
      if (!reader_take_u64(reader, &u) || !handle_from_wire(u, &value->v_handle)) {
        break;
      }
      return true;
    case kTVMDLTensorHandle: {
      DLTensor *tensor = (DLTensor *)scratch_alloc(scratch, (uint32_t)sizeof(DLTensor));
      if (tensor == NULL) {
        TVMAPISetLastError(kNoScratch);
        return false;
      }
      if (!rpc_decode_tensor(reader, scratch, tensor) || !rpc_check_tensor(tensor)) {
        return false;
      }
      value->v_handle = tensor;
      return true;
    }
    case kTVMStr:
    case kTVMBytes: {
      uint8_t *len_bytes = rpc_reader_take(reader, 8u);
      if (len_bytes == NULL) {
        break;
      }
      uint64_t len = rpc_read_u64(len_bytes);
      if (len > reader->left) {
        break;
      }
      uint8_t *bytes = rpc_reader_take(reader, (uint32_t)len);
      /* Move the text back over the last length byte to make room for a terminator. */
      uint8_t *text = &len_bytes[7];
      (void)memmove(text, bytes, (size_t)len);
      text[len] = 0u;
      if (tc == kTVMStr) {
        value->v_str = (const char *)text;
        return true;
      }
      TVMByteArray *array = (TVMByteArray *)scratch_alloc(scratch, (uint32_t)sizeof(TVMByteArray));
      if (array == NULL) {
        TVMAPISetLastError(kNoScratch);
        return false;
      }
      array->data = (const char *)text;
      array->size = (size_t)len;
      value->v_handle = array;
      return true;
    }
    default:
      rpc_set_error_hex("unsupported argument type code ", (uint64_t)(uint32_t)tc);
      return false;
  }
  TVMAPISetLastError("argument value truncated");
  return false;
}

bool rpc_decode_args(rpc_reader_t *reader, rpc_scratch_t *scratch, rpc_args_t *args) {
  const uint8_t *p = rpc_reader_take(reader, 4u);
  if (p == NULL) {
    TVMAPISetLastError("argument count truncated");
    return false;
  }
  int32_t num = (int32_t)rpc_read_u32(p);
  if ((num < 0) || ((uint32_t)num > UTVM_RPC_MAX_ARGS)) {
    rpc_set_error_hex("argument count over ", UTVM_RPC_MAX_ARGS);
    return false;
  }
  args->num = num;
  const uint8_t *codes = rpc_reader_take(reader, 4u * (uint32_t)num);
  if (codes == NULL) {
    TVMAPISetLastError("type codes truncated");
    return false;
  }
  for (int32_t i = 0; i < num; i++) {
    args->codes[i] = (int)(int32_t)rpc_read_u32(&codes[4 * i]);
  }
  for (int32_t i = 0; i < num; i++) {
    if (!decode_value(reader, scratch, args->codes[i], &args->values[i])) {
      return false;
    }
  }
  return true;
}

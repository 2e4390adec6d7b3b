/*
 * AOT executor metadata (TVM's tvm/runtime/metadata_types.h, PROTOCOL.md 5.6): what
 * `tvmgen_<name>_get_c_metadata()` returns (out_value[0].v_handle, type code 3). Layouts as
 * TVM's code generator emits them.
 */
#ifndef TVM_RUNTIME_METADATA_TYPES_H_
#define TVM_RUNTIME_METADATA_TYPES_H_

#include <stdint.h>

#include "dlpack/dlpack.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One input, output or workspace pool: name, shape[num_shape], dtype. */
struct TVMTensorInfo {
  const char *name;
  const int64_t *shape;
  int64_t num_shape;
  DLDataType dtype;
};

/* One constant pool: data_len bytes at data_bytes, placed at byte_offset. */
struct TVMConstantInfo {
  const char *name_hint;
  int64_t byte_offset;
  int64_t data_len;
  const void *data_bytes;
};

/* The model: its tensors, pools and module name (e.g. "tvmgen_default"). */
struct TVMMetadata {
  int64_t version;
  const struct TVMTensorInfo *inputs;
  int64_t num_inputs;
  const struct TVMTensorInfo *outputs;
  int64_t num_outputs;
  const struct TVMTensorInfo *workspace_pools;
  int64_t num_workspace_pools;
  const struct TVMConstantInfo *constant_pools;
  int64_t num_constant_pools;
  const char *mod_name;
};

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_METADATA_TYPES_H_ */

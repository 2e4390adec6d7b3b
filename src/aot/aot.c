/*
 * AOT executor (PROTOCOL.md 4.2, 5.6): metadata checks, tensor layout, run, and the RPC module
 * tvm.aot_executor.create. Over RPC the executor and its memory are one block of the runtime's
 * tensor arena, freed by the module slot's release hook (TVMModFree, or a new session).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tvm/runtime/crt/platform.h"
#include "utvm/aot.h"
#include "utvm/text.h"

/* ---- Error texts --------------------------------------------------------------------------- */

/* Appends text to a->error (utvm/text.h). */
static void text_str(utvm_aot_t *a, const char *text) {
  utvm_text_t t;
  utvm_text_resume(&t, a->error, sizeof(a->error));
  utvm_text_str(&t, text);
}

static utvm_err_t aot_fail(utvm_aot_t *a, utvm_err_t err, const char *text, const char *detail) {
  a->error[0] = '\0';
  text_str(a, "aot: ");
  text_str(a, text);
  text_str(a, detail);
  return err;
}

/* Length of s up to max + 1 (so that a longer string is seen as too long). */
static size_t aot_name_length(const char *s, size_t max) {
  size_t n = 0u;
  while ((n <= max) && (s[n] != '\0')) {
    n++;
  }
  return n;
}

static bool aot_same(const char *a, const char *b) {
  size_t i = 0u;
  while (a[i] == b[i]) {
    if (a[i] == '\0') {
      return true;
    }
    i++;
  }
  return false;
}

/* ---- Metadata --------------------------------------------------------------------------------- */

/* The tensor infos of slot k (inputs, outputs, then pools). */
static const struct TVMTensorInfo *info_at(const struct TVMMetadata *md, uint32_t k) {
  uint32_t inputs = (uint32_t)md->num_inputs;
  uint32_t outputs = (uint32_t)md->num_outputs;
  if (k < inputs) {
    return &md->inputs[k];
  }
  if (k < (inputs + outputs)) {
    return &md->outputs[k - inputs];
  }
  return &md->workspace_pools[k - inputs - outputs];
}

static bool info_bytes(const struct TVMTensorInfo *info, uint32_t *bytes) {
  uint64_t total = (((uint64_t)info->dtype.bits * info->dtype.lanes) + 7u) / 8u;
  if ((info->num_shape < 0) || (info->num_shape > (int64_t)UTVM_AOT_MAX_NDIM) ||
      ((info->num_shape > 0) && (info->shape == NULL)) || (info->name == NULL) ||
      (info->dtype.bits == 0u) || (info->dtype.lanes == 0u)) {
    return false;
  }
  for (int64_t d = 0; d < info->num_shape; d++) {
    if ((info->shape[d] < 0) || ((uint64_t)info->shape[d] > UTVM_AOT_MAX_TENSOR_BYTES)) {
      return false;
    }
    total *= (uint64_t)info->shape[d];
    if (total > UTVM_AOT_MAX_TENSOR_BYTES) {
      return false;
    }
  }
  *bytes = (uint32_t)total;
  return true;
}

static size_t round_up(size_t n, size_t to) { return (n + (to - 1u)) & ~(to - 1u); }

/* Finds, calls and checks the metadata; finds the run function; sets the sizes. */
static utvm_err_t load_metadata(utvm_aot_t *a, TVMModuleHandle module, const char *name) {
  char function[UTVM_AOT_MAX_NAME_LEN + 24u];
  TVMFunctionHandle get_metadata = NULL;
  TVMValue ret;
  int ret_code = kTVMNullptr;
  size_t dims = 0u;
  size_t data = 0u;
  size_t n = (name == NULL) ? 0u : aot_name_length(name, UTVM_AOT_MAX_NAME_LEN);
  if ((n == 0u) || (n > UTVM_AOT_MAX_NAME_LEN)) {
    return aot_fail(a, UTVM_ERR_AOT_ARGUMENT, "executor name empty or longer than 63 characters",
                    NULL);
  }
  (void)memcpy(function, "tvmgen_", 7u);
  (void)memcpy(&function[7], name, n);
  (void)memcpy(&function[7u + n], "_get_c_metadata", 16u);
  if (TVMModGetFunction(module, function, 0, &get_metadata) != 0) {
    return aot_fail(a, UTVM_ERR_AOT_METADATA, "module has no ", function);
  }
  if ((TVMFuncCall(get_metadata, NULL, NULL, 0, &ret, &ret_code) != 0) ||
      (ret_code != kTVMOpaqueHandle) || (ret.v_handle == NULL)) {
    return aot_fail(a, UTVM_ERR_AOT_METADATA, function, " did not return a pointer");
  }
  const struct TVMMetadata *md = (const struct TVMMetadata *)ret.v_handle;
  if (md->version != UTVM_AOT_METADATA_VERSION) {
    return aot_fail(a, UTVM_ERR_AOT_METADATA, "metadata version is not 1", NULL);
  }
  if ((md->num_inputs < 0) || (md->num_outputs < 0) || (md->num_workspace_pools < 0) ||
      ((md->num_inputs + md->num_outputs + md->num_workspace_pools) >
       (int64_t)UTVM_AOT_MAX_ARGS) ||
      ((md->num_inputs > 0) && (md->inputs == NULL)) ||
      ((md->num_outputs > 0) && (md->outputs == NULL)) ||
      ((md->num_workspace_pools > 0) && (md->workspace_pools == NULL))) {
    return aot_fail(a, UTVM_ERR_AOT_METADATA, "more than 32 tensors or NULL tensor lists", NULL);
  }
  if (md->num_constant_pools != 0) {
    return aot_fail(a, UTVM_ERR_AOT_METADATA, "constant pools not supported", NULL);
  }
  n = (md->mod_name == NULL) ? 0u : aot_name_length(md->mod_name, UTVM_AOT_MAX_NAME_LEN);
  if ((n == 0u) || (n > UTVM_AOT_MAX_NAME_LEN)) {
    return aot_fail(a, UTVM_ERR_AOT_METADATA, "mod_name empty or longer than 63 characters", NULL);
  }
  a->metadata_ = md;
  a->num_inputs = (uint32_t)md->num_inputs;
  a->num_outputs = (uint32_t)md->num_outputs;
  a->num_pools = (uint32_t)md->num_workspace_pools;
  for (uint32_t k = 0u; k < (a->num_inputs + a->num_outputs + a->num_pools); k++) {
    const struct TVMTensorInfo *info = info_at(md, k);
    uint32_t bytes = 0u;
    if (!info_bytes(info, &bytes)) {
      return aot_fail(a, UTVM_ERR_AOT_METADATA, "tensor with a bad name, dtype or shape: ",
                      (info->name != NULL) ? info->name : "(NULL)");
    }
    dims += (size_t)info->num_shape;
    data += round_up(bytes, UTVM_AOT_ALIGNMENT);
  }
  (void)memcpy(function, md->mod_name, n);
  (void)memcpy(&function[n], "_run", 5u);
  if (TVMModGetFunction(module, function, 0, &a->run_) != 0) {
    return aot_fail(a, UTVM_ERR_AOT_FUNCTION, "module has no ", function);
  }
  a->memory_size = round_up((size_t)(a->num_inputs + a->num_outputs + a->num_pools) *
                                sizeof(DLTensor), 8u) +
                   (dims * 8u) + (UTVM_AOT_ALIGNMENT - 1u) + data;
  return UTVM_OK;
}

utvm_err_t utvm_aot_memory_size(utvm_aot_t *a, TVMModuleHandle module, const char *name) {
  if (a == NULL) {
    return UTVM_ERR_AOT_ARGUMENT;
  }
  (void)memset(a, 0, sizeof(*a));
  return load_metadata(a, module, name);
}

utvm_err_t utvm_aot_init(utvm_aot_t *a, TVMModuleHandle module, const char *name, void *memory,
                         size_t memory_size) {
  utvm_err_t err = utvm_aot_memory_size(a, module, name);
  if (err != UTVM_OK) {
    return err;
  }
  if ((memory == NULL) || (memory_size < a->memory_size)) {
    return aot_fail(a, UTVM_ERR_AOT_MEMORY, "memory smaller than utvm_aot_memory_size", NULL);
  }
  uint32_t count = a->num_inputs + a->num_outputs + a->num_pools;
  uint8_t *bytes = (uint8_t *)memory;
  uint8_t *at = &bytes[(8u - ((uintptr_t)bytes & 7u)) & 7u];
  a->tensors_ = (DLTensor *)(void *)at;
  int64_t *shapes = (int64_t *)(void *)&at[round_up((size_t)count * sizeof(DLTensor), 8u)];
  size_t dims = 0u;
  for (uint32_t k = 0u; k < count; k++) {
    dims += (size_t)info_at(a->metadata_, k)->num_shape;
  }
  uint8_t *data_start = (uint8_t *)&shapes[dims];
  uint8_t *data = &data_start[(UTVM_AOT_ALIGNMENT - ((uintptr_t)data_start & (UTVM_AOT_ALIGNMENT - 1u))) &
                              (UTVM_AOT_ALIGNMENT - 1u)];
  dims = 0u;
  for (uint32_t k = 0u; k < count; k++) {
    const struct TVMTensorInfo *info = info_at(a->metadata_, k);
    DLTensor *t = &a->tensors_[k];
    uint32_t size = 0u;
    (void)info_bytes(info, &size);
    t->data = data;
    t->device.device_type = kDLCPU;
    t->device.device_id = 0;
    t->ndim = (int32_t)info->num_shape;
    t->dtype = info->dtype;
    t->shape = &shapes[dims];
    t->strides = NULL;
    t->byte_offset = 0u;
    for (int64_t d = 0; d < info->num_shape; d++) {
      shapes[dims] = info->shape[d];
      dims++;
    }
    (void)memset(data, 0, size);
    data = &data[round_up(size, UTVM_AOT_ALIGNMENT)];
  }
  a->error[0] = '\0';
  a->ready_ = true;
  return UTVM_OK;
}

int32_t utvm_aot_input_index(const utvm_aot_t *a, const char *name) {
  if ((a == NULL) || !a->ready_ || (name == NULL)) {
    return -1;
  }
  for (uint32_t k = 0u; k < a->num_inputs; k++) {
    if (aot_same(a->metadata_->inputs[k].name, name)) {
      return (int32_t)k;
    }
  }
  return -1;
}

const char *utvm_aot_input_name(const utvm_aot_t *a, uint32_t index) {
  if ((a == NULL) || !a->ready_ || (index >= a->num_inputs)) {
    return NULL;
  }
  return a->metadata_->inputs[index].name;
}

utvm_err_t utvm_aot_input(utvm_aot_t *a, uint32_t index, DLTensor **out) {
  if ((a == NULL) || (out == NULL) || !a->ready_ || (index >= a->num_inputs)) {
    return UTVM_ERR_AOT_ARGUMENT;
  }
  *out = &a->tensors_[index];
  return UTVM_OK;
}

utvm_err_t utvm_aot_output(utvm_aot_t *a, uint32_t index, DLTensor **out) {
  if ((a == NULL) || (out == NULL) || !a->ready_ || (index >= a->num_outputs)) {
    return UTVM_ERR_AOT_ARGUMENT;
  }
  *out = &a->tensors_[a->num_inputs + index];
  return UTVM_OK;
}

utvm_err_t utvm_aot_run(utvm_aot_t *a) {
  TVMValue values[UTVM_AOT_MAX_ARGS];
  int codes[UTVM_AOT_MAX_ARGS];
  TVMValue ret;
  int ret_code = kTVMNullptr;
  if ((a == NULL) || !a->ready_) {
    return UTVM_ERR_AOT_ARGUMENT;
  }
  uint32_t count = a->num_inputs + a->num_outputs + a->num_pools;
  for (uint32_t k = 0u; k < count; k++) {
    values[k].v_handle = &a->tensors_[k];
    codes[k] = kTVMDLTensorHandle;
  }
  if (TVMFuncCall(a->run_, values, codes, (int)count, &ret, &ret_code) != 0) {
    return aot_fail(a, UTVM_ERR_AOT_FUNCTION, "run: ", TVMGetLastError());
  }
  a->error[0] = '\0';
  return UTVM_OK;
}

/* ---- RPC module -------------------------------------------------------------------------------- */

static int aot_fail_text(const char *text) {
  TVMAPISetLastError(text);
  return -1;
}

/* The input an argument names (Int index or Str name); -1 if none. */
static int32_t aot_input_of(const utvm_aot_t *a, const TVMValue *v, int code) {
  if (code == kTVMStr) {
    return utvm_aot_input_index(a, v->v_str);
  }
  if ((code == kTVMArgInt) && (v->v_int64 >= 0) && (v->v_int64 < (int64_t)a->num_inputs)) {
    return (int32_t)v->v_int64;
  }
  return -1;
}

static int aot_get_input(TVMValue *args, int *codes, int num_args, TVMValue *ret, int *ret_code,
                         void *resource) {
  utvm_aot_t *a = (utvm_aot_t *)resource;
  DLTensor *t = NULL;
  int32_t index = (num_args == 1) ? aot_input_of(a, &args[0], codes[0]) : -1;
  if (index < 0) {
    return aot_fail_text("aot get_input: expected an input index or name of the model");
  }
  (void)utvm_aot_input(a, (uint32_t)index, &t);
  ret->v_handle = t;
  *ret_code = kTVMNDArrayHandle;
  return 0;
}

static int aot_get_output(TVMValue *args, int *codes, int num_args, TVMValue *ret, int *ret_code,
                          void *resource) {
  utvm_aot_t *a = (utvm_aot_t *)resource;
  DLTensor *t = NULL;
  if ((num_args != 1) || (codes[0] != kTVMArgInt) || (args[0].v_int64 < 0) ||
      (args[0].v_int64 >= (int64_t)a->num_outputs)) {
    return aot_fail_text("aot get_output: expected an output index of the model");
  }
  (void)utvm_aot_output(a, (uint32_t)args[0].v_int64, &t);
  ret->v_handle = t;
  *ret_code = kTVMNDArrayHandle;
  return 0;
}

static int aot_get_input_index(TVMValue *args, int *codes, int num_args, TVMValue *ret,
                               int *ret_code, void *resource) {
  if ((num_args != 1) || (codes[0] != kTVMStr)) {
    return aot_fail_text("aot get_input_index: expected a name");
  }
  ret->v_int64 = utvm_aot_input_index((const utvm_aot_t *)resource, args[0].v_str);
  *ret_code = kTVMArgInt;
  return 0;
}

static int aot_get_input_name(TVMValue *args, int *codes, int num_args, TVMValue *ret,
                              int *ret_code, void *resource) {
  const char *name = NULL;
  if ((num_args == 1) && (codes[0] == kTVMArgInt) && (args[0].v_int64 >= 0) &&
      (args[0].v_int64 <= (int64_t)UINT32_MAX)) {
    name = utvm_aot_input_name((const utvm_aot_t *)resource, (uint32_t)args[0].v_int64);
  }
  if (name == NULL) {
    return aot_fail_text("aot get_input_name: expected an input index of the model");
  }
  ret->v_str = name;
  *ret_code = kTVMStr;
  return 0;
}

static int aot_get_num_inputs(TVMValue *args, int *codes, int num_args, TVMValue *ret,
                              int *ret_code, void *resource) {
  (void)args;
  (void)codes;
  (void)num_args;
  ret->v_int64 = ((const utvm_aot_t *)resource)->num_inputs;
  *ret_code = kTVMArgInt;
  return 0;
}

static int aot_get_num_outputs(TVMValue *args, int *codes, int num_args, TVMValue *ret,
                               int *ret_code, void *resource) {
  (void)args;
  (void)codes;
  (void)num_args;
  ret->v_int64 = ((const utvm_aot_t *)resource)->num_outputs;
  *ret_code = kTVMArgInt;
  return 0;
}

static int aot_run(TVMValue *args, int *codes, int num_args, TVMValue *ret, int *ret_code,
                   void *resource) {
  utvm_aot_t *a = (utvm_aot_t *)resource;
  (void)args;
  (void)codes;
  (void)num_args;
  (void)ret;
  (void)ret_code;
  return (utvm_aot_run(a) == UTVM_OK) ? 0 : aot_fail_text(a->error);
}

/* get_input_info, load_params, set_input, share_params: listed by TVM's AOT executor but not
 * implemented there either. */
static int aot_not_implemented(TVMValue *args, int *codes, int num_args, TVMValue *ret,
                               int *ret_code, void *resource) {
  (void)args;
  (void)codes;
  (void)num_args;
  (void)ret;
  (void)ret_code;
  (void)resource;
  return aot_fail_text("aot executor: not implemented");
}

static const TVMBackendPackedCFunc kAotFuncs[11] = {
    aot_get_input,      aot_get_output,      aot_get_input_index, aot_get_input_name,
    aot_get_num_inputs, aot_get_num_outputs, aot_run,             aot_not_implemented,
    aot_not_implemented, aot_not_implemented, aot_not_implemented};

static const TVMFuncRegistry kAotRegistry = {
    "\013\000" "get_input\000" "get_output\000" "get_input_index\000" "get_input_name\000"
    "get_num_inputs\000" "get_num_outputs\000" "run\000" "get_input_info\000" "load_params\000"
    "set_input\000" "share_params\000",
    kAotFuncs};

static const TVMModule kAotModule = {&kAotRegistry};

static void aot_release(void *context) {
  DLDevice cpu = {kDLCPU, 0};
  ((utvm_aot_t *)context)->ready_ = false;
  (void)TVMPlatformMemoryFree(context, cpu);
}

static int aot_owns_ndarray(const void *context, const void *nd) {
  const utvm_aot_t *a = (const utvm_aot_t *)context;
  for (uint32_t k = 0u; k < (a->num_inputs + a->num_outputs); k++) {
    if ((const void *)&a->tensors_[k] == nd) {
      return 1;
    }
  }
  return 0;
}

static const utvm_crt_module_hooks_t kAotHooks = {aot_release, aot_owns_ndarray, "aot executor"};

/* create(Module, Device cpu(0), Str name) -> Module. */
static int aot_create(TVMValue *args, int *codes, int num_args, TVMValue *ret, int *ret_code,
                      void *resource) {
  DLDevice cpu = {kDLCPU, 0};
  utvm_aot_t probe;
  void *block = NULL;
  TVMModuleHandle handle = NULL;
  (void)resource;
  if ((num_args != 3) || (codes[0] != kTVMModuleHandle) || (codes[1] != kDLDevice) ||
      (codes[2] != kTVMStr)) {
    return aot_fail_text("tvm.aot_executor.create: expected (Module, Device, Str name)");
  }
  if ((args[1].v_device.device_type != kDLCPU) || (args[1].v_device.device_id != 0)) {
    return aot_fail_text("tvm.aot_executor.create: device must be cpu(0)");
  }
  if (utvm_aot_memory_size(&probe, args[0].v_handle, args[2].v_str) != UTVM_OK) {
    return aot_fail_text(probe.error);
  }
  if (TVMPlatformMemoryAllocate(sizeof(utvm_aot_t) + probe.memory_size, cpu, &block) !=
      kTvmErrorNoError) {
    TVMAPISetLastError("tvm.aot_executor.create: tensor arena too small, bytes ");
    utvm_crt_error_append_hex((uint64_t)sizeof(utvm_aot_t) + probe.memory_size);
    return -1;
  }
  utvm_aot_t *a = (utvm_aot_t *)block;
  if (utvm_aot_init(a, args[0].v_handle, args[2].v_str, &((uint8_t *)block)[sizeof(utvm_aot_t)],
                    probe.memory_size) != UTVM_OK) {
    (void)aot_fail_text(a->error);
    (void)TVMPlatformMemoryFree(block, cpu);
    return -1;
  }
  if (utvm_crt_module_create(&kAotModule, &kAotHooks, a, &handle) != UTVM_OK) {
    (void)TVMPlatformMemoryFree(block, cpu);
    return -1;
  }
  ret->v_handle = handle;
  *ret_code = kTVMModuleHandle;
  return 0;
}

utvm_err_t utvm_aot_register_global(void) {
  return utvm_crt_register_global(UTVM_AOT_CREATE_NAME, aot_create, NULL);
}

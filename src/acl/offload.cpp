// The runner's offload on the Arm Compute Library (include/utvm/acl.h, utvm_acl_offload_*):
// the runner describes each operator as op params and tensors, this file decides whether ACL
// takes it and prepares the layer (acl.cpp) with memory of a utvm stack allocator.
#include "utvm/acl.h"

#include <arm_compute/runtime/Scheduler.h>

#include <cstring>
#include <cstdint>
#include <exception>
#include <new>
#include <utility>
#include <vector>

struct utvm_acl_offload {
  utvm_stack_allocator_t stack;
  size_t workspace_size = 0u;
  std::vector<void *> handles;  // the runner's per-operator handles (utvm_acl_layer_t *)
  std::vector<size_t> bytes;    // auxiliary bytes of each operator's layer
  std::vector<std::pair<void *, void *>> live;  // blocks given out: (aligned, the stack's)
};

namespace {

// The stack allocator's blocks are UTVM_CRT_WORKSPACE_ALIGNMENT-aligned; a larger alignment
// (ACL's memory pools ask 128) takes a block that much larger, aligned inside.
void *stack_alloc(void *ctx, size_t bytes, size_t alignment) {
  auto *acl = static_cast<utvm_acl_offload *>(ctx);
  const size_t extra = (alignment > UTVM_CRT_WORKSPACE_ALIGNMENT)
                           ? (alignment - UTVM_CRT_WORKSPACE_ALIGNMENT) : 0u;
  void *raw = nullptr;
  if (((alignment & (alignment - 1u)) != 0u) || (bytes > (SIZE_MAX - extra)) ||
      (utvm_stack_alloc(&acl->stack, bytes + extra, &raw) != UTVM_OK)) {
    return nullptr;
  }
  const uintptr_t at = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t mask = static_cast<uintptr_t>((alignment > 1u) ? (alignment - 1u) : 0u);
  void *aligned = reinterpret_cast<void *>((at + mask) & ~mask);
  acl->live.emplace_back(aligned, raw);
  return aligned;
}

void stack_free(void *ctx, void *ptr) {
  auto *acl = static_cast<utvm_acl_offload *>(ctx);
  if (!acl->live.empty() && (acl->live.back().first == ptr)) {
    (void)utvm_stack_free(&acl->stack, acl->live.back().second);
    acl->live.pop_back();
  }
}

// Whether the operand of tensor t is a float32 constant (filters and biases must be).
bool constant_f32(const utvm_runner_tensor_t &t) {
  return (t.data == nullptr) && (t.type == UTVM_MODEL_FLOAT32);
}

// Prepares the layer of op params p if ACL may take it: UTVM_OK with *layer, or with *layer
// NULL (declined), or ACL's error.
utvm_err_t prepare(const utvm_op_params_t &p, const utvm_runner_tensor_t *t,
                   const utvm_acl_memory_t &memory, utvm_acl_layer_t **layer) {
  const bool weighted = (p.kind == UTVM_OP_CONV2D_F32) ||
                        (p.kind == UTVM_OP_DEPTHWISE_CONV2D_F32) ||
                        (p.kind == UTVM_OP_FULLY_CONNECTED_F32);
  if (weighted && (!constant_f32(t[1]) || ((p.has_bias != 0u) && !constant_f32(t[2])))) {
    return UTVM_OK;
  }
  const auto *filter = static_cast<const float *>(weighted ? t[1].const_data : nullptr);
  const auto *bias = static_cast<const float *>((p.has_bias != 0u) ? t[2].const_data : nullptr);
  switch (p.kind) {
    case UTVM_OP_CONV2D_F32:
      return utvm_acl_conv2d_f32_prepare(&p.p.conv_f32, &p.dims[0], &p.dims[1], filter, bias,
                                         &p.dims[2], &memory, layer);
    case UTVM_OP_DEPTHWISE_CONV2D_F32:
      return utvm_acl_depthwise_conv2d_f32_prepare(&p.p.depthwise_f32, &p.dims[0], &p.dims[1],
                                                   filter, bias, &p.dims[2], &memory, layer);
    case UTVM_OP_FULLY_CONNECTED_F32:
      return utvm_acl_fully_connected_f32_prepare(&p.p.act_f32, p.batches, p.depth, p.units,
                                                  filter, bias, &memory, layer);
    case UTVM_OP_AVG_POOL2D_F32:
    case UTVM_OP_MAX_POOL2D_F32:
      return utvm_acl_pool2d_f32_prepare((p.kind == UTVM_OP_AVG_POOL2D_F32) ? 1 : 0,
                                         &p.p.pool_f32, &p.dims[0], &p.dims[1], &memory, layer);
    default:
      return UTVM_OK;
  }
}

// A taken operator: its layer and the arena places of its input and output.
struct taken_op {
  utvm_acl_layer_t *layer;
  const float *input;
  float *output;
};

utvm_err_t take(void *ctx, uint32_t index, const utvm_op_params_t *p,
                const utvm_runner_tensor_t *tensors, utvm_text_t *text, void **handle) {
  auto *acl = static_cast<utvm_acl_offload *>(ctx);
  const utvm_acl_memory_t memory = {stack_alloc, stack_free, acl};
  const size_t used = utvm_stack_used_bytes(&acl->stack);
  utvm_acl_layer_t *layer = nullptr;
  const utvm_runner_tensor_t &in = tensors[0];
  const utvm_runner_tensor_t &out = tensors[p->n_inputs];
  utvm_err_t err = UTVM_OK;
  if ((index < acl->bytes.size()) && (in.data != nullptr) && (out.data != nullptr)) {
    err = prepare(*p, tensors, memory, &layer);
  }
  if (err == UTVM_ERR_ACL_MEMORY) {
    utvm_text_str(text, "ACL: auxiliary memory: the workspace of ");
    utvm_text_u64(text, static_cast<uint64_t>(acl->workspace_size));
    utvm_text_str(text, " bytes is too small (the layers before took ");
    utvm_text_u64(text, static_cast<uint64_t>(used));
    utvm_text_str(text, ")");
    return err;
  }
  if (err == UTVM_ERR_ACL_FAILED) {
    utvm_text_str(text, "ACL: configuring the layer failed");
    return err;
  }
  if (layer == nullptr) {
    return UTVM_OK;  // declined: not ACL's, or ACL refuses it (UNSUPPORTED, BAD_*)
  }
  taken_op *op = new (std::nothrow) taken_op{layer, static_cast<const float *>(in.data),
                                             static_cast<float *>(out.data)};
  if (op == nullptr) {
    utvm_acl_layer_free(layer);
    utvm_text_str(text, "ACL: no heap for the layer");
    return UTVM_ERR_ACL_MEMORY;
  }
  acl->bytes[index] = utvm_acl_layer_memory_bytes(layer);
  *handle = op;
  return UTVM_OK;
}

utvm_err_t run(void *ctx, void *handle) {
  (void)ctx;
  auto *op = static_cast<taken_op *>(handle);
  return utvm_acl_layer_run(op->layer, op->input, op->output);
}

void release(void *ctx, void *handle) {
  auto *acl = static_cast<utvm_acl_offload *>(ctx);
  auto *op = static_cast<taken_op *>(handle);
  for (size_t k = 0u; k < acl->handles.size(); ++k) {
    if (acl->handles[k] == handle) {
      acl->bytes[k] = 0u;
    }
  }
  utvm_acl_layer_free(op->layer);
  delete op;
}

}  // namespace

extern "C" {

utvm_err_t utvm_acl_offload_init(utvm_acl_offload_t **acl, void *workspace,
                                 size_t workspace_size, uint32_t n_operators, uint32_t threads,
                                 utvm_runner_offload_t *offload) {
  if ((acl == nullptr) || (workspace == nullptr) || (offload == nullptr)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  *acl = nullptr;
  utvm_acl_offload *o = nullptr;
  try {
    o = new utvm_acl_offload();
    o->handles.assign(n_operators, nullptr);
    o->bytes.assign(n_operators, 0u);
    if (threads > 0u) {
      arm_compute::Scheduler::get().set_num_threads(threads);
    }
  } catch (const std::bad_alloc &) {
    delete o;
    return UTVM_ERR_ACL_MEMORY;
  } catch (const std::exception &) {
    delete o;
    return UTVM_ERR_ACL_FAILED;
  }
  if (utvm_stack_allocator_init(&o->stack, static_cast<uint8_t *>(workspace), workspace_size) !=
      UTVM_OK) {
    delete o;
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  o->workspace_size = workspace_size;
  std::memset(offload, 0, sizeof(*offload));
  offload->take = take;
  offload->run = run;
  offload->release = release;
  offload->ctx = o;
  offload->handles = o->handles.data();
  offload->n_handles = n_operators;
  *acl = o;
  return UTVM_OK;
}

size_t utvm_acl_offload_layer_bytes(const utvm_acl_offload_t *acl, uint32_t index) {
  return ((acl != nullptr) && (index < acl->bytes.size())) ? acl->bytes[index] : 0u;
}

size_t utvm_acl_offload_workspace_used(const utvm_acl_offload_t *acl) {
  return (acl != nullptr) ? utvm_stack_used_bytes(&acl->stack) : 0u;
}

void utvm_acl_offload_free(utvm_acl_offload_t *acl) {
  if (acl != nullptr) {
    for (size_t k = acl->handles.size(); k > 0u; --k) {
      if (acl->handles[k - 1u] != nullptr) {
        release(acl, acl->handles[k - 1u]);
        acl->handles[k - 1u] = nullptr;
      }
    }
    delete acl;
  }
}

}  // extern "C"

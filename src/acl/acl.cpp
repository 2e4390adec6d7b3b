// utvm's Arm Compute Library backend: include/utvm/acl.h. The only C++ in utvm; everything it
// exports is the C interface of that header.
#include "utvm/acl.h"

#include <arm_compute/core/Types.h>
#include <arm_compute/core/Version.h>
#include <arm_compute/runtime/BlobLifetimeManager.h>
#include <arm_compute/runtime/IAllocator.h>
#include <arm_compute/runtime/IMemoryRegion.h>
#include <arm_compute/runtime/MemoryManagerOnDemand.h>
#include <arm_compute/runtime/NEON/functions/NEActivationLayer.h>
#include <arm_compute/runtime/NEON/functions/NEDepthwiseConvolutionLayer.h>
#include <arm_compute/runtime/NEON/functions/NEFullyConnectedLayer.h>
#include <arm_compute/runtime/NEON/functions/NEGEMMConvolutionLayer.h>
#include <arm_compute/runtime/NEON/functions/NEPoolingLayer.h>
#include <arm_compute/runtime/PoolManager.h>
#include <arm_compute/runtime/Tensor.h>

#include <cfloat>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <vector>

namespace acl = arm_compute;

namespace {

// The caller's allocator as ACL's: every allocation is recorded and given back last-first
// when the layer is freed (ACL's pools free theirs in allocation order, which a stack
// allocator cannot take), so regions never free on their own.
class Region final : public acl::IMemoryRegion {
 public:
  Region(void *memory, size_t size) : IMemoryRegion(size), memory_(memory) {}
  std::unique_ptr<acl::IMemoryRegion> extract_subregion(size_t offset, size_t size) override {
    (void)offset;
    (void)size;
    return nullptr;
  }
  void *buffer() override { return memory_; }
  const void *buffer() const override { return memory_; }

 private:
  void *memory_;
};

class Allocator final : public acl::IAllocator {
 public:
  explicit Allocator(const utvm_acl_memory_t &memory) : memory_(memory) {}
  ~Allocator() override { release(); }
  void *allocate(size_t size, size_t alignment) override {
    void *p = memory_.alloc(memory_.ctx, size, (alignment < 16u) ? 16u : alignment);
    if (p == nullptr) {
      throw std::bad_alloc();
    }
    taken_.push_back(p);
    bytes_ += size;
    return p;
  }
  void free(void *ptr) override { (void)ptr; }  // given back by release(), last first
  std::unique_ptr<acl::IMemoryRegion> make_region(size_t size, size_t alignment) override {
    return std::make_unique<Region>(allocate(size, alignment), size);
  }
  void release() {
    while (!taken_.empty()) {
      memory_.free(memory_.ctx, taken_.back());
      taken_.pop_back();
    }
  }
  size_t bytes() const { return bytes_; }

 private:
  utvm_acl_memory_t memory_;
  std::vector<void *> taken_;
  size_t bytes_ = 0u;
};

// NHWC tensor shape of utvm dims (ACL lists dimensions innermost first).
acl::TensorShape nhwc_shape(const utvm_dims_t &d) {
  return acl::TensorShape(static_cast<size_t>(d.c), static_cast<size_t>(d.w),
                          static_cast<size_t>(d.h), static_cast<size_t>(d.n));
}

acl::TensorInfo nhwc_info(const utvm_dims_t &d) {
  acl::TensorInfo info(nhwc_shape(d), 1, acl::DataType::F32);
  info.set_data_layout(acl::DataLayout::NHWC);
  return info;
}

bool dims_valid(const utvm_dims_t *d) {
  return (d != nullptr) && (d->n > 0) && (d->h > 0) && (d->w > 0) && (d->c > 0);
}

// The fused activation min(max(x, lo), hi) as ACL's (none for the whole float range).
acl::ActivationLayerInfo activation(float lo, float hi) {
  using F = acl::ActivationLayerInfo::ActivationFunction;
  if ((lo <= -FLT_MAX) && (hi >= FLT_MAX)) {
    return acl::ActivationLayerInfo();
  }
  if ((lo == 0.0f) && (hi >= FLT_MAX)) {
    return acl::ActivationLayerInfo(F::RELU);
  }
  return acl::ActivationLayerInfo(F::LU_BOUNDED_RELU, hi, lo);
}

// Padding after the window (right or bottom) that makes ACL's floor rounding give out.
unsigned int pad_after(int32_t in, int32_t out, int32_t stride, int32_t filter, int32_t dilation,
                       int32_t before) {
  const int64_t reach = static_cast<int64_t>(out - 1) * stride +
                        static_cast<int64_t>(filter - 1) * dilation + 1;
  const int64_t after = reach - in - before;
  return (after > 0) ? static_cast<unsigned int>(after) : 0u;
}

// The window of a convolution or pool: strides, padding before (TFLite's) and after (what
// makes ACL's floor rounding give the output size).
acl::PadStrideInfo window(const utvm_dims_t &in, const utvm_dims_t &out, int32_t stride_h,
                          int32_t stride_w, int32_t filter_h, int32_t filter_w, int32_t dilation_h,
                          int32_t dilation_w, int32_t pad_top, int32_t pad_left) {
  return acl::PadStrideInfo(
      static_cast<unsigned int>(stride_w), static_cast<unsigned int>(stride_h),
      static_cast<unsigned int>(pad_left),
      pad_after(in.w, out.w, stride_w, filter_w, dilation_w, pad_left),
      static_cast<unsigned int>(pad_top),
      pad_after(in.h, out.h, stride_h, filter_h, dilation_h, pad_top),
      acl::DimensionRoundingType::FLOOR);
}

// The window parameters of CONV_2D and DEPTHWISE_CONV_2D in range, the activation range not
// empty (nor NaN).
template <typename Params>
bool conv_params_valid(const Params &p) {
  return (p.act_min <= p.act_max) && (p.stride_h >= 1) && (p.stride_w >= 1) &&
         (p.dilation_h >= 1) && (p.dilation_w >= 1) && (p.pad_top >= 0) && (p.pad_left >= 0);
}

}  // namespace

struct utvm_acl_layer {
  explicit utvm_acl_layer(const utvm_acl_memory_t &memory)
      : allocator(memory),
        manager(std::make_shared<acl::MemoryManagerOnDemand>(
            std::make_shared<acl::BlobLifetimeManager>(), std::make_shared<acl::PoolManager>())) {}
  ~utvm_acl_layer() {
    function.reset();  // ACL's objects first, then the memory they used
    activation.reset();
    manager.reset();
    allocator.release();
  }
  Allocator allocator;
  std::shared_ptr<acl::MemoryManagerOnDemand> manager;
  acl::Tensor input;
  acl::Tensor output;
  acl::Tensor weights;
  acl::Tensor bias;
  std::unique_ptr<acl::IFunction> function;
  std::unique_ptr<acl::NEActivationLayer> activation;  // pools: their fused activation
  const float *weights_data = nullptr;  // the caller's constants, copied by finish()
  const float *bias_data = nullptr;
  bool padded_input = false;
  bool padded_output = false;
};

namespace {

// The window and dilation of CONV_2D's or DEPTHWISE_CONV_2D's parameters.
template <typename Params>
acl::PadStrideInfo conv_window(const Params &p, const utvm_dims_t &in, const utvm_dims_t &filter,
                               const utvm_dims_t &out) {
  return window(in, out, p.stride_h, p.stride_w, filter.h, filter.w, p.dilation_h, p.dilation_w,
                p.pad_top, p.pad_left);
}

template <typename Params>
acl::Size2D conv_dilation(const Params &p) {
  return acl::Size2D(static_cast<size_t>(p.dilation_w), static_cast<size_t>(p.dilation_h));
}

// The NHWC input and output the caller feeds.
void init_io(utvm_acl_layer *layer, const utvm_dims_t &in, const utvm_dims_t &out) {
  layer->input.allocator()->init(nhwc_info(in));
  layer->output.allocator()->init(nhwc_info(out));
}

// A constant input: described now, loaded by finish() once configure has set its padding.
void init_constant(utvm_acl_layer *layer, acl::Tensor &t, const acl::TensorInfo &info,
                   const float *data) {
  t.allocator()->init(info);
  if (&t == &layer->weights) {
    layer->weights_data = data;
  } else {
    layer->bias_data = data;
  }
}

// Moves a dense buffer into (to_tensor) or out of a tensor of up to 4 dimensions whatever its
// padding, one row of its first dimension at a time.
void copy_padded(acl::Tensor &t, float *dense, bool to_tensor) {
  const acl::TensorShape &s = t.info()->tensor_shape();
  const size_t row = s[0] * sizeof(float);
  size_t k = 0u;
  for (size_t n = 0u; n < s[3]; ++n) {
    for (size_t h = 0u; h < s[2]; ++h) {
      for (size_t w = 0u; w < s[1]; ++w) {
        uint8_t *p = t.ptr_to_element(acl::Coordinates(0, static_cast<int>(w),
                                                       static_cast<int>(h), static_cast<int>(n)));
        if (to_tensor) {
          std::memcpy(p, &dense[k], row);
        } else {
          std::memcpy(&dense[k], p, row);
        }
        k += s[0];
      }
    }
  }
}

// The bias of channels outputs, if any.
void init_bias(utvm_acl_layer *layer, int32_t channels, const float *bias) {
  if (bias != nullptr) {
    init_constant(layer, layer->bias,
                  acl::TensorInfo(acl::TensorShape(static_cast<size_t>(channels)), 1,
                                  acl::DataType::F32),
                  bias);
  }
}

// Gives t memory of the caller's allocator for its padded size.
void own_memory(utvm_acl_layer *layer, acl::Tensor &t) {
  t.allocator()->import_memory(layer->allocator.allocate(t.info()->total_size(), 64u));
}

// After configure: the constants copied into memory of the caller's allocator in the padding
// ACL chose, the tensors the caller feeds imported per run or, when ACL padded them, given
// memory of their own (copied per run), ACL's working memory, then the function's one-time
// preparation (weights reshaped).
utvm_err_t finish(utvm_acl_layer *layer) {
  if (layer->weights_data != nullptr) {
    own_memory(layer, layer->weights);
    copy_padded(layer->weights, const_cast<float *>(layer->weights_data), true);
  }
  if (layer->bias_data != nullptr) {
    own_memory(layer, layer->bias);
    copy_padded(layer->bias, const_cast<float *>(layer->bias_data), true);
  }
  layer->padded_input = !layer->input.info()->padding().empty();
  layer->padded_output = !layer->output.info()->padding().empty();
  if (layer->padded_input) {
    own_memory(layer, layer->input);
  }
  if (layer->padded_output) {
    own_memory(layer, layer->output);
  }
  layer->manager->populate(layer->allocator, 1u);
  layer->function->prepare();
  return UTVM_OK;
}

// Runs make (validate + configure of one function) with the layer's exceptions mapped.
template <typename Make>
utvm_err_t prepare_layer(const utvm_acl_memory_t *memory, utvm_acl_layer_t **out, Make make) {
  if (out == nullptr) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  *out = nullptr;
  if ((memory == nullptr) || (memory->alloc == nullptr) || (memory->free == nullptr)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  utvm_acl_layer *layer = nullptr;
  utvm_err_t err = UTVM_OK;
  try {
    layer = new utvm_acl_layer(*memory);
    err = make(layer);
    if (err == UTVM_OK) {
      err = finish(layer);
    }
  } catch (const std::bad_alloc &) {
    err = UTVM_ERR_ACL_MEMORY;
  } catch (const std::exception &) {
    err = UTVM_ERR_ACL_FAILED;
  }
  if (err == UTVM_OK) {
    *out = layer;
  } else {
    delete layer;
  }
  return err;
}

}  // namespace

extern "C" {

utvm_err_t utvm_acl_conv2d_f32_prepare(const utvm_conv2d_f32_params_t *params,
                                       const utvm_dims_t *input_dims, const utvm_dims_t *filter_dims,
                                       const float *filter, const float *bias,
                                       const utvm_dims_t *output_dims,
                                       const utvm_acl_memory_t *memory, utvm_acl_layer_t **layer) {
  if ((params == nullptr) || (filter == nullptr) || !conv_params_valid(*params)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!dims_valid(input_dims) || !dims_valid(filter_dims) || !dims_valid(output_dims) ||
      (output_dims->n != input_dims->n) || (output_dims->c != filter_dims->n)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  if (filter_dims->c != input_dims->c) {
    return UTVM_ERR_ACL_UNSUPPORTED;  // grouped
  }
  return prepare_layer(memory, layer, [&](utvm_acl_layer *l) {
    const acl::PadStrideInfo pad = conv_window(*params, *input_dims, *filter_dims, *output_dims);
    const acl::Size2D dilation = conv_dilation(*params);
    init_io(l, *input_dims, *output_dims);
    init_constant(l, l->weights, nhwc_info(*filter_dims), filter);
    init_bias(l, output_dims->c, bias);
    const acl::ActivationLayerInfo act = activation(params->act_min, params->act_max);
    acl::ITensor *b = (bias != nullptr) ? &l->bias : nullptr;
    if (!bool(acl::NEGEMMConvolutionLayer::validate(l->input.info(), l->weights.info(),
                                                     (b != nullptr) ? b->info() : nullptr,
                                                     l->output.info(), pad, acl::WeightsInfo(),
                                                     dilation, act))) {
      return UTVM_ERR_ACL_UNSUPPORTED;
    }
    auto f = std::make_unique<acl::NEGEMMConvolutionLayer>(l->manager);
    f->configure(&l->input, &l->weights, b, &l->output, pad, acl::WeightsInfo(), dilation, act);
    l->function = std::move(f);
    return UTVM_OK;
  });
}

utvm_err_t utvm_acl_depthwise_conv2d_f32_prepare(const utvm_depthwise_conv2d_f32_params_t *params,
                                                 const utvm_dims_t *input_dims,
                                                 const utvm_dims_t *filter_dims,
                                                 const float *filter, const float *bias,
                                                 const utvm_dims_t *output_dims,
                                                 const utvm_acl_memory_t *memory,
                                                 utvm_acl_layer_t **layer) {
  if ((params == nullptr) || (filter == nullptr) || !conv_params_valid(*params) ||
      (params->depth_multiplier < 1)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!dims_valid(input_dims) || !dims_valid(filter_dims) || !dims_valid(output_dims) ||
      (filter_dims->n != 1) || (output_dims->n != input_dims->n) ||
      (filter_dims->c != output_dims->c) ||
      (static_cast<int64_t>(input_dims->c) * params->depth_multiplier != output_dims->c)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  return prepare_layer(memory, layer, [&](utvm_acl_layer *l) {
    const acl::PadStrideInfo pad = conv_window(*params, *input_dims, *filter_dims, *output_dims);
    const acl::Size2D dilation = conv_dilation(*params);
    init_io(l, *input_dims, *output_dims);
    // [1, KH, KW, C*M] in ACL's NHWC order: (C*M, KW, KH)
    acl::TensorInfo wi(acl::TensorShape(static_cast<size_t>(filter_dims->c),
                                        static_cast<size_t>(filter_dims->w),
                                        static_cast<size_t>(filter_dims->h)),
                       1, acl::DataType::F32);
    wi.set_data_layout(acl::DataLayout::NHWC);
    init_constant(l, l->weights, wi, filter);
    init_bias(l, output_dims->c, bias);
    const acl::ActivationLayerInfo act = activation(params->act_min, params->act_max);
    acl::ITensor *b = (bias != nullptr) ? &l->bias : nullptr;
    const auto multiplier = static_cast<unsigned int>(params->depth_multiplier);
    if (!bool(acl::NEDepthwiseConvolutionLayer::validate(
            l->input.info(), l->weights.info(), (b != nullptr) ? b->info() : nullptr,
            l->output.info(), pad, multiplier, act, dilation))) {
      return UTVM_ERR_ACL_UNSUPPORTED;
    }
    auto f = std::make_unique<acl::NEDepthwiseConvolutionLayer>(l->manager);
    f->configure(&l->input, &l->weights, b, &l->output, pad, multiplier, act, dilation);
    l->function = std::move(f);
    return UTVM_OK;
  });
}

utvm_err_t utvm_acl_fully_connected_f32_prepare(const utvm_activation_f32_t *params,
                                                int32_t batches, int32_t input_depth,
                                                int32_t output_depth, const float *weights,
                                                const float *bias,
                                                const utvm_acl_memory_t *memory,
                                                utvm_acl_layer_t **layer) {
  if ((params == nullptr) || (weights == nullptr) || !(params->act_min <= params->act_max)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if ((batches < 1) || (input_depth < 1) || (output_depth < 1)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  return prepare_layer(memory, layer, [&](utvm_acl_layer *l) {
    const auto depth = static_cast<size_t>(input_depth);
    const auto units = static_cast<size_t>(output_depth);
    const auto rows = static_cast<size_t>(batches);
    l->input.allocator()->init(acl::TensorInfo(acl::TensorShape(depth, rows), 1,
                                               acl::DataType::F32));
    l->output.allocator()->init(acl::TensorInfo(acl::TensorShape(units, rows), 1,
                                                acl::DataType::F32));
    // [units, depth] row-major: ACL's (depth, units), transposed by the function
    init_constant(l, l->weights,
                  acl::TensorInfo(acl::TensorShape(depth, units), 1, acl::DataType::F32), weights);
    init_bias(l, output_depth, bias);
    acl::FullyConnectedLayerInfo info;
    info.activation_info = activation(params->act_min, params->act_max);
    acl::ITensor *b = (bias != nullptr) ? &l->bias : nullptr;
    if (!bool(acl::NEFullyConnectedLayer::validate(l->input.info(), l->weights.info(),
                                                    (b != nullptr) ? b->info() : nullptr,
                                                    l->output.info(), info))) {
      return UTVM_ERR_ACL_UNSUPPORTED;
    }
    auto f = std::make_unique<acl::NEFullyConnectedLayer>(l->manager);
    f->configure(&l->input, &l->weights, b, &l->output, info);
    l->function = std::move(f);
    return UTVM_OK;
  });
}

utvm_err_t utvm_acl_pool2d_f32_prepare(int32_t average, const utvm_pool2d_f32_params_t *params,
                                       const utvm_dims_t *input_dims,
                                       const utvm_dims_t *output_dims,
                                       const utvm_acl_memory_t *memory, utvm_acl_layer_t **layer) {
  if ((params == nullptr) || !(params->act_min <= params->act_max) || (params->stride_h < 1) ||
      (params->stride_w < 1) || (params->filter_h < 1) || (params->filter_w < 1) ||
      (params->pad_top < 0) || (params->pad_left < 0)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!dims_valid(input_dims) || !dims_valid(output_dims) || (input_dims->n != output_dims->n) ||
      (input_dims->c != output_dims->c)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  return prepare_layer(memory, layer, [&](utvm_acl_layer *l) {
    const acl::PadStrideInfo pad =
        window(*input_dims, *output_dims, params->stride_h, params->stride_w, params->filter_h,
               params->filter_w, 1, 1, params->pad_top, params->pad_left);
    init_io(l, *input_dims, *output_dims);
    const acl::PoolingLayerInfo info(
        (average != 0) ? acl::PoolingType::AVG : acl::PoolingType::MAX,
        acl::Size2D(static_cast<size_t>(params->filter_w), static_cast<size_t>(params->filter_h)),
        acl::DataLayout::NHWC, pad, true);
    if (!bool(acl::NEPoolingLayer::validate(l->input.info(), l->output.info(), info))) {
      return UTVM_ERR_ACL_UNSUPPORTED;
    }
    auto f = std::make_unique<acl::NEPoolingLayer>();
    f->configure(&l->input, &l->output, info);
    l->function = std::move(f);
    const acl::ActivationLayerInfo act = activation(params->act_min, params->act_max);
    if (act.enabled()) {
      l->activation = std::make_unique<acl::NEActivationLayer>();
      l->activation->configure(&l->output, nullptr, act);
    }
    return UTVM_OK;
  });
}

utvm_err_t utvm_acl_layer_run(utvm_acl_layer_t *layer, const float *input, float *output) {
  if ((layer == nullptr) || (input == nullptr) || (output == nullptr)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  try {
    if (layer->padded_input) {
      copy_padded(layer->input, const_cast<float *>(input), true);
    } else {
      layer->input.allocator()->import_memory(const_cast<float *>(input));
    }
    if (!layer->padded_output) {
      layer->output.allocator()->import_memory(output);
    }
    layer->function->run();
    if (layer->activation) {
      layer->activation->run();
    }
    if (layer->padded_output) {
      copy_padded(layer->output, output, false);
    }
  } catch (const std::exception &) {
    return UTVM_ERR_ACL_FAILED;
  }
  return UTVM_OK;
}

size_t utvm_acl_layer_memory_bytes(const utvm_acl_layer_t *layer) {
  return (layer != nullptr) ? layer->allocator.bytes() : 0u;
}

void utvm_acl_layer_free(utvm_acl_layer_t *layer) { delete layer; }

const char *utvm_acl_version(void) { return "v20.08"; }

}  // extern "C"

/* FULLY_CONNECTED, int8 (TFLite's reference_integer_ops::FullyConnected and, with filter
 * offset 0, FullyConnectedPerChannel). */
#include "fast_s8.h"
#include "mac_s8.h"
#include "shape.h"
#include "utvm/kernels.h"

size_t utvm_fully_connected_s8_scratch_size(int32_t batches, int32_t input_depth,
                                            int32_t output_depth) {
  (void)batches;
  (void)input_depth;
  (void)output_depth;
  return 0u;
}

/* The weights' layout this build reads: TFLite's, or word-aligned MVE_TERMS on MVE builds and
 * DSP_S16 on DSP builds. */
static bool fully_connected_layout_valid(const utvm_fully_connected_params_t *params,
                                         const int8_t *filter) {
#if defined(__ARM_FEATURE_MVE)
  const int32_t laid_out = (int32_t)UTVM_FILTER_MVE_TERMS;
#elif defined(UTVM_KERNELS_DSP_PATHS)
  const int32_t laid_out = (int32_t)UTVM_FILTER_DSP_S16;
#else
  const int32_t laid_out = (int32_t)UTVM_FILTER_PLAIN; /* no other */
#endif
  const bool aligned = (((uintptr_t)(const void *)filter) & 3u) == 0u;
  return (params->weights_layout == (int32_t)UTVM_FILTER_PLAIN) ||
         ((params->weights_layout == laid_out) && aligned);
}

static bool fully_connected_params_valid(const utvm_fully_connected_params_t *params) {
  return utvm_input_offset_valid(params->input_offset) &&
         utvm_input_offset_valid(params->filter_offset) &&
         utvm_zero_point_valid(params->output_offset) &&
         utvm_act_range_valid(params->act_min, params->act_max);
}

utvm_err_t utvm_fully_connected_s8(const utvm_fully_connected_params_t *params,
                                   const utvm_per_channel_quant_t *quant, int32_t batches,
                                   int32_t input_depth, int32_t output_depth, const int8_t *input,
                                   const int8_t *filter, const int32_t *bias, int8_t *output,
                                   void *scratch) {
  (void)scratch;
  if (params == NULL || input == NULL || filter == NULL || output == NULL ||
      !fully_connected_params_valid(params) || !fully_connected_layout_valid(params, filter)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (batches < 1 || input_depth < 1 || output_depth < 1 ||
      (int64_t)batches * input_depth > INT32_MAX || (int64_t)batches * output_depth > INT32_MAX ||
      (int64_t)output_depth * input_depth > INT32_MAX) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  if (!utvm_per_channel_quant_valid(quant, output_depth)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
#if defined(__ARM_FEATURE_MVE)
  utvm_fully_connected_s8_mve(params, quant, batches, input_depth, output_depth, input, filter,
                              bias, output);
#elif defined(UTVM_KERNELS_DSP_PATHS)
  utvm_fully_connected_s8_dsp(params, quant, batches, input_depth, output_depth, input, filter,
                              bias, output);
#else
  utvm_fully_connected_s8_blocked(params, quant, batches, input_depth, output_depth, input,
                                  filter, bias, output);
#endif
  return UTVM_OK;
}

void utvm_fully_connected_s8_portable(const utvm_fully_connected_params_t *params,
                                      const utvm_per_channel_quant_t *quant, int32_t batches,
                                      int32_t input_depth, int32_t output_depth,
                                      const int8_t *input, const int8_t *filter,
                                      const int32_t *bias, int8_t *output) {
  for (int32_t batch = 0; batch < batches; ++batch) {
    const int8_t *batch_input = input + batch * input_depth;
    for (int32_t channel = 0; channel < output_depth; ++channel) {
      int32_t acc = utvm_mac_s8(0, batch_input, params->input_offset,
                                filter + channel * input_depth, params->filter_offset,
                                input_depth);
      output[batch * output_depth + channel] =
          utvm_mac_output_s8(acc, bias, quant, channel, params->output_offset, params->act_min,
                             params->act_max);
    }
  }
}

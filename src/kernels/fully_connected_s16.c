/* FULLY_CONNECTED, int16 activations and int8 weights (TFLite's reference_integer_ops::
 * FullyConnected and FullyConnectedPerChannel for int16: zero points 0 but the weights' per
 * tensor, 64- or 32-bit accumulator). */
#include "s16_accumulate.h"
#include "shape.h"
#include "utvm/kernels.h"

utvm_err_t utvm_fully_connected_s16(const utvm_fully_connected_params_t *params,
                                    const utvm_per_channel_quant_t *quant,
                                    utvm_accumulator_t acc, int32_t batches, int32_t input_depth,
                                    int32_t output_depth, const int16_t *input,
                                    const int8_t *filter, const void *bias, int16_t *output) {
  if ((params == NULL) || (input == NULL) || (filter == NULL) || (output == NULL) ||
      (params->input_offset != 0) || (params->output_offset != 0) ||
      (params->weights_layout != (int32_t)UTVM_FILTER_PLAIN) ||
      !utvm_input_offset_valid(params->filter_offset) ||
      !utvm_act_range_s16_valid(params->act_min, params->act_max)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if ((batches < 1) || (input_depth < 1) || (output_depth < 1) ||
      (((int64_t)batches * input_depth) > INT32_MAX) ||
      (((int64_t)output_depth * input_depth) > INT32_MAX) ||
      (((int64_t)batches * output_depth) > INT32_MAX)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  if (!utvm_per_channel_quant_valid(quant, output_depth) || !utvm_s16_quant_valid(acc, quant) ||
      ((quant->count > 1) && (params->filter_offset != 0))) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  for (int32_t b = 0; b < batches; ++b) {
    const int16_t *in_row = &input[(size_t)b * (size_t)input_depth];
    for (int32_t oc = 0; oc < output_depth; ++oc) {
      const int8_t *f_row = &filter[(size_t)oc * (size_t)input_depth];
      int64_t sum = 0;
      for (int32_t d = 0; d < input_depth; ++d) {
        sum += ((int64_t)f_row[d] + params->filter_offset) * (int64_t)in_row[d];
      }
      sum += utvm_s16_bias(acc, bias, oc);
      const int32_t q = utvm_quant_index(quant, oc);
      output[((size_t)b * (size_t)output_depth) + (size_t)oc] = utvm_s16_output(
          acc, sum, quant->multiplier[q], quant->shift[q], params->act_min, params->act_max);
    }
  }
  return UTVM_OK;
}

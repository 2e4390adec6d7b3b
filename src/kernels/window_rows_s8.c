/* Some output rows of an int8 CONV_2D or DEPTHWISE_CONV_2D layer (window_rows.h): the plain
 * kernel with the call's heights and top padding; every value is the whole layer's. */
#include "window_rows.h"

utvm_err_t utvm_window_rows_s8(const utvm_stage_layer_s8_t *layer, const int8_t *input,
                               int32_t in_rows, int32_t pad_top, int8_t *output,
                               int32_t out_rows, void *scratch) {
  utvm_dims_t in = layer->dims[0];
  utvm_dims_t out = layer->dims[2];
  in.h = in_rows;
  out.h = out_rows;
  utvm_err_t err;
  if (layer->conv != NULL) {
    utvm_conv2d_params_t p = *layer->conv;
    p.pad_top = pad_top;
    err = utvm_conv2d_s8(&p, layer->quant, &in, input, &layer->dims[1], layer->filter,
                         layer->bias, &out, output, scratch);
  } else {
    utvm_depthwise_conv2d_params_t p = *layer->depthwise;
    p.pad_top = pad_top;
    err = utvm_depthwise_conv2d_s8(&p, layer->quant, &in, input, &layer->dims[1], layer->filter,
                                   layer->bias, &out, output, scratch);
  }
  return err;
}

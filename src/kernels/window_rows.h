/* Internal to src/kernels: some output rows of an int8 CONV_2D or DEPTHWISE_CONV_2D layer, the
 * call that the in-place convolutions (window_inplace_s8.c) and the patch-by-patch stage
 * (window_stage_s8.c) make for each band of rows. */
#ifndef UTVM_KERNELS_WINDOW_ROWS_H
#define UTVM_KERNELS_WINDOW_ROWS_H

#include <stdint.h>

#include "utvm/kernels.h"

/* Output rows of layer (conv or depthwise set; dims whole) from the plain kernel: out_rows rows
 * into output from in_rows input rows at input, whose first row is the top of the first output
 * row's window less pad_top rows of the model's padding (rows below in_rows are the bottom
 * edge). The kernel's error. */
utvm_err_t utvm_window_rows_s8(const utvm_stage_layer_s8_t *layer, const int8_t *input,
                               int32_t in_rows, int32_t pad_top, int8_t *output,
                               int32_t out_rows, void *scratch);

#endif /* UTVM_KERNELS_WINDOW_ROWS_H */

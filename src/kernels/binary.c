/* The broadcasting walk shared by the element-wise binary kernels (binary.h). */
#include "binary.h"

#include "shape.h"

static int32_t walk_load(const void *data, int32_t element_bytes, int32_t i) {
  return element_bytes == 1 ? (int32_t)((const int8_t *)data)[i]
                            : (int32_t)((const int16_t *)data)[i];
}

utvm_err_t utvm_binary_walk(utvm_binary_fn_t fn, const void *params, int32_t element_bytes,
                            const utvm_shape_t *input1_shape, const void *input1,
                            const utvm_shape_t *input2_shape, const void *input2,
                            const utvm_shape_t *output_shape, void *output) {
  utvm_broadcast_t broadcast;
  if (!utvm_broadcast_init(&broadcast, input1_shape, input2_shape, output_shape)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  int32_t index[UTVM_KERNEL_MAX_RANK] = {0};
  int32_t offset1 = 0;
  int32_t offset2 = 0;
  for (int32_t i = 0; i < broadcast.count; ++i) {
    const int32_t y = fn(params, walk_load(input1, element_bytes, offset1),
                         walk_load(input2, element_bytes, offset2));
    if (element_bytes == 1) {
      ((int8_t *)output)[i] = (int8_t)y;
    } else {
      ((int16_t *)output)[i] = (int16_t)y;
    }
    utvm_broadcast_next(&broadcast, index, &offset1, &offset2);
  }
  return UTVM_OK;
}

/*
 * The broadcasting walk of the element-wise binary kernels (internal): one loop over the output
 * of two broadcast inputs, int8 or int16 elements, each output from an element function.
 */
#ifndef UTVM_KERNELS_BINARY_H
#define UTVM_KERNELS_BINARY_H

#include <stdint.h>

#include "utvm/kernels.h"

/* One output element from two input elements (the result already within the element type). */
typedef int32_t (*utvm_binary_fn_t)(const void *params, int32_t x1, int32_t x2);

/* Writes fn(params, a, b) for every output element, a and b the broadcast inputs' elements
 * (element_bytes 1: int8, 2: int16). BAD_SHAPE unless the shapes broadcast (shape.h). */
utvm_err_t utvm_binary_walk(utvm_binary_fn_t fn, const void *params, int32_t element_bytes,
                            const utvm_shape_t *input1_shape, const void *input1,
                            const utvm_shape_t *input2_shape, const void *input2,
                            const utvm_shape_t *output_shape, void *output);

#endif /* UTVM_KERNELS_BINARY_H */

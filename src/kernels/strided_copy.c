/* A strided N-D copy of elements of 1, 2 or 4 bytes: the data movement of TRANSPOSE, SLICE,
 * STRIDED_SLICE, DEPTH_TO_SPACE, SPACE_TO_DEPTH and BATCH_TO_SPACE_ND, whose prepare steps
 * turn their options into output dimensions and input strides. */
#include <stdbool.h>
#include <string.h>

#include "utvm/kernels.h"

#define MAX_RANK UTVM_STRIDED_COPY_MAX_RANK

/* The parameters as MAX_RANK dimensions (leading dimensions of 1), checked: every output
 * element's input index lies in [0, input_elements). */
static bool strided_copy_expand(const utvm_strided_copy_params_t *p, int32_t *dims,
                                int32_t *strides) {
  if (p->rank < 1 || p->rank > MAX_RANK || p->input_elements < 1) {
    return false;
  }
  const int32_t lead = MAX_RANK - p->rank;
  int64_t count = 1;
  int64_t lowest = p->start;
  int64_t highest = p->start;
  for (int32_t d = 0; d < MAX_RANK; ++d) {
    dims[d] = 1;
    strides[d] = 0;
    if (d >= lead) {
      dims[d] = p->dims[d - lead];
      strides[d] = p->strides[d - lead];
    }
    if (dims[d] < 1) {
      return false;
    }
    count *= dims[d];
    if (count > INT32_MAX) {
      return false;
    }
    const int64_t reach = (int64_t)strides[d] * (dims[d] - 1);
    if (reach < 0) {
      lowest += reach;
    } else {
      highest += reach;
    }
  }
  return lowest >= 0 && highest < p->input_elements;
}

utvm_err_t utvm_strided_copy(const utvm_strided_copy_params_t *params, const void *input,
                             void *output) {
  if (params == NULL || input == NULL || output == NULL ||
      (params->element_size != 1 && params->element_size != 2 && params->element_size != 4)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  int32_t dims[MAX_RANK];
  int32_t strides[MAX_RANK];
  if (!strided_copy_expand(params, dims, strides)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  const size_t size = (size_t)params->element_size;
  const uint8_t *in = (const uint8_t *)input;
  uint8_t *out = (uint8_t *)output;
  const bool runs = strides[5] == 1;
  for (int32_t i0 = 0; i0 < dims[0]; ++i0) {
    const int64_t a0 = params->start + (int64_t)i0 * strides[0];
    for (int32_t i1 = 0; i1 < dims[1]; ++i1) {
      const int64_t a1 = a0 + (int64_t)i1 * strides[1];
      for (int32_t i2 = 0; i2 < dims[2]; ++i2) {
        const int64_t a2 = a1 + (int64_t)i2 * strides[2];
        for (int32_t i3 = 0; i3 < dims[3]; ++i3) {
          const int64_t a3 = a2 + (int64_t)i3 * strides[3];
          for (int32_t i4 = 0; i4 < dims[4]; ++i4) {
            const int64_t a4 = a3 + (int64_t)i4 * strides[4];
            if (runs) {
              const size_t run = (size_t)dims[5] * size;
              memcpy(out, &in[(size_t)a4 * size], run);
              out += run;
            } else {
              for (int32_t i5 = 0; i5 < dims[5]; ++i5) {
                const int64_t at = a4 + (int64_t)i5 * strides[5];
                memcpy(out, &in[(size_t)at * size], size);
                out += size;
              }
            }
          }
        }
      }
    }
  }
  return UTVM_OK;
}

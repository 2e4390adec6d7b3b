/* MEAN, SUM, REDUCE_MAX and REDUCE_MIN over axes (TFLite Micro's reduce): MEAN and SUM of int8
 * or int16 as reference_ops::QuantizedMeanOrSum (the raw int32 sum of each reduced group, minus
 * zero point times count, times the input/output scale ratio, MEAN with 1/count folded into the
 * multiplier); MAX and MIN of int8 as ReduceGeneric (the raw extreme, no rescale). */
#include "fixed_point.h"
#include "reduce_layout.h"
#include "shape.h"
#include "utvm/kernels.h"

/* Element i of an int8 or int16 input. */
static int32_t reduce_at(const utvm_reduce_params_t *p, const void *input, int32_t i) {
  return (p->element_size == 2) ? (int32_t)((const int16_t *)input)[i]
                                : (int32_t)((const int8_t *)input)[i];
}

/* MEAN or SUM of one group: TFLite's int32 sum (wrapping), the zero points, the rescale. */
static int32_t reduce_sum(const utvm_reduce_params_t *p, int32_t sum, int32_t group,
                          int32_t multiplier, int32_t shift) {
  /* TFLite subtracts in 64 bits and truncates to 32. */
  const int64_t zero_point_sum = (int64_t)p->input_zero_point * group;
  const int32_t centered = (int32_t)(uint32_t)(uint64_t)((int64_t)sum - zero_point_sum);
  const int32_t scaled = utvm_multiply_by_quantized_multiplier(centered, multiplier, shift);
  return utvm_wrap_add(scaled, p->output_zero_point);
}

static bool reduce_params_valid(const utvm_reduce_params_t *p) {
  const int32_t lo = (p->element_size == 2) ? INT16_MIN : INT8_MIN;
  const int32_t hi = (p->element_size == 2) ? INT16_MAX : INT8_MAX;
  bool ok = ((p->element_size == 1) || (p->element_size == 2)) &&
            (p->input_zero_point >= lo) && (p->input_zero_point <= hi) &&
            (p->output_zero_point >= lo) && (p->output_zero_point <= hi) &&
            utvm_shift_valid(p->shift) && (p->multiplier >= 0);
  if ((p->op == (int32_t)UTVM_REDUCE_MAX) || (p->op == (int32_t)UTVM_REDUCE_MIN)) {
    ok = ok && (p->element_size == 1);
  } else {
    ok = ok && ((p->op == (int32_t)UTVM_REDUCE_MEAN) || (p->op == (int32_t)UTVM_REDUCE_SUM));
  }
  return ok;
}

utvm_err_t utvm_reduce(const utvm_reduce_params_t *params, const utvm_shape_t *input_shape,
                       const void *input, const int32_t *axes, int32_t num_axes, void *output) {
  if ((params == NULL) || (input == NULL) || (output == NULL) || (num_axes < 0) ||
      ((axes == NULL) && (num_axes > 0)) || !reduce_params_valid(params)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (!utvm_shape_valid(input_shape)) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  utvm_reduce_layout_t layout;
  if (!utvm_reduce_layout(input_shape, axes, num_axes, &layout)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const utvm_reduce_params_t *p = params;
  const int32_t group = utvm_reduce_product(layout.reduced_sizes, layout.reduced_count);
  const int32_t outputs = utvm_reduce_product(layout.kept_sizes, layout.kept_count);
  const int32_t lo = (p->element_size == 2) ? INT16_MIN : INT8_MIN;
  const int32_t hi = (p->element_size == 2) ? INT16_MAX : INT8_MAX;
  int32_t multiplier = p->multiplier;
  int32_t shift = p->shift;
  if (p->op == (int32_t)UTVM_REDUCE_MEAN) {
    /* Fold 1/group into the multiplier, keeping the shift >= -31 (TFLite's order of steps). */
    int32_t fold = 63 - utvm_count_leading_zeros_u64((uint64_t)group);
    fold = utvm_min_s32(fold, 32);
    fold = utvm_min_s32(fold, 31 + p->shift);
    multiplier = (int32_t)(((int64_t)p->multiplier * ((int64_t)1 << fold)) / group);
    shift = p->shift - fold;
  }
  int32_t kept_index[UTVM_KERNEL_MAX_RANK] = {0};
  int32_t kept_offset = 0;
  for (int32_t o = 0; o < outputs; ++o) {
    int32_t reduced_index[UTVM_KERNEL_MAX_RANK] = {0};
    int32_t reduced_offset = 0;
    int32_t acc = (p->op == (int32_t)UTVM_REDUCE_MAX)   ? lo
                  : (p->op == (int32_t)UTVM_REDUCE_MIN) ? hi
                                                        : 0;
    for (int32_t r = 0; r < group; ++r) {
      const int32_t v = reduce_at(p, input, kept_offset + reduced_offset);
      if (p->op == (int32_t)UTVM_REDUCE_MAX) {
        acc = utvm_max_s32(acc, v);
      } else if (p->op == (int32_t)UTVM_REDUCE_MIN) {
        acc = utvm_min_s32(acc, v);
      } else {
        acc = utvm_wrap_add(acc, v);
      }
      utvm_odometer_next(layout.reduced_count, layout.reduced_sizes, layout.reduced_strides,
                         reduced_index, &reduced_offset);
    }
    if ((p->op == (int32_t)UTVM_REDUCE_MEAN) || (p->op == (int32_t)UTVM_REDUCE_SUM)) {
      acc = utvm_clamp_s32(reduce_sum(p, acc, group, multiplier, shift), lo, hi);
    }
    if (p->element_size == 2) {
      ((int16_t *)output)[o] = (int16_t)acc;
    } else {
      ((int8_t *)output)[o] = (int8_t)acc;
    }
    utvm_odometer_next(layout.kept_count, layout.kept_sizes, layout.kept_strides, kept_index,
                       &kept_offset);
  }
  return UTVM_OK;
}

utvm_err_t utvm_mean_s8(const utvm_mean_params_t *params, const utvm_shape_t *input_shape,
                        const int8_t *input, const int32_t *axes, int32_t num_axes,
                        int8_t *output) {
  utvm_reduce_params_t p;
  if (params == NULL) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  p.op = (int32_t)UTVM_REDUCE_MEAN;
  p.element_size = 1;
  p.input_zero_point = params->input_zero_point;
  p.output_zero_point = params->output_zero_point;
  p.multiplier = params->multiplier;
  p.shift = params->shift;
  return utvm_reduce(&p, input_shape, input, axes, num_axes, output);
}

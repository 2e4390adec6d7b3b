/* SVDF with int8 input and output and an int8 or int16 state and time weights (TFLM's
 * EvalIntegerSvdfReference): the state shifts one step, the feature matmul writes its newest
 * column, the time matmul, the rank reduction, the bias and the output rescale. The int32
 * sums wrap as TFLM's do. */
#include "shape.h"
#include "utvm/kernels.h"

/* The low 32 bits of v as int32 (TFLM's int32 arithmetic wraps). */
static int32_t svdf_wrap(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

static bool svdf_params_valid(const utvm_svdf_params_t *p) {
  bool ok = (p->batches >= 1) && (p->input_size >= 1) && (p->filters >= 1) && (p->rank >= 1) &&
            (p->memory_size >= 1) && ((p->filters % p->rank) == 0) &&
            ((p->state_bits == 8) || (p->state_bits == 16)) &&
            utvm_input_offset_valid(p->input_offset) && utvm_zero_point_valid(p->output_offset) &&
            (p->multiplier_1 >= 0) && utvm_shift_valid(p->shift_1) && (p->multiplier_2 >= 0) &&
            utvm_shift_valid(p->shift_2);
  if (ok) {
    const int64_t state = (int64_t)p->batches * p->filters * p->memory_size;
    const int64_t in = (int64_t)p->batches * p->input_size;
    const int64_t features = (int64_t)p->filters * p->input_size;
    ok = (state <= INT32_MAX) && (in <= INT32_MAX) && (features <= INT32_MAX) &&
         ((p->state_bits == 16) ? ((p->state_zero_point >= INT16_MIN) &&
                                   (p->state_zero_point <= INT16_MAX))
                                : utvm_zero_point_valid(p->state_zero_point));
  }
  return ok;
}

size_t utvm_svdf_s8_scratch_size(const utvm_svdf_params_t *params) {
  size_t bytes = 0u;
  if ((params != NULL) && svdf_params_valid(params)) {
    const size_t units = (size_t)(params->filters / params->rank);
    bytes = (size_t)params->batches * ((size_t)params->filters + units) * sizeof(int32_t);
  }
  return bytes;
}

/* State element i. */
static int32_t svdf_state_get(const utvm_svdf_params_t *p, const void *state, size_t i) {
  return (p->state_bits == 16) ? (int32_t)((const int16_t *)state)[i]
                               : (int32_t)((const int8_t *)state)[i];
}

/* Stores v into state element i, wrapped to the state type as TFLM's conversion does. */
static void svdf_state_set(const utvm_svdf_params_t *p, void *state, size_t i, int32_t v) {
  if (p->state_bits == 16) {
    ((int16_t *)state)[i] = (int16_t)(uint16_t)(uint32_t)v;
  } else {
    ((int8_t *)state)[i] = (int8_t)(uint8_t)(uint32_t)v;
  }
}

/* Shifts the whole state one element down and writes each filter's newest entry. */
static void svdf_features(const utvm_svdf_params_t *p, const int8_t *input,
                          const int8_t *weights_feature, void *state) {
  const size_t n_state = (size_t)p->batches * (size_t)p->filters * (size_t)p->memory_size;
  const int32_t t_max = (p->state_bits == 16) ? INT16_MAX : INT8_MAX;
  const int32_t t_min = (p->state_bits == 16) ? INT16_MIN : INT8_MIN;
  for (size_t i = 0u; (i + 1u) < n_state; ++i) {
    svdf_state_set(p, state, i, svdf_state_get(p, state, i + 1u));
  }
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *in = &input[(size_t)b * (size_t)p->input_size];
    for (int32_t r = 0; r < p->filters; ++r) {
      const int8_t *w = &weights_feature[(size_t)r * (size_t)p->input_size];
      int64_t dot = 0;
      for (int32_t c = 0; c < p->input_size; ++c) {
        dot += (int64_t)w[c] * ((int64_t)in[c] + p->input_offset);
      }
      int32_t v = utvm_multiply_by_quantized_multiplier(svdf_wrap(dot), p->multiplier_1,
                                                        p->shift_1);
      v = utvm_clamp_s32(v, t_min, t_max);
      const size_t at = ((((size_t)b * (size_t)p->filters) + (size_t)r) *
                         (size_t)p->memory_size) + ((size_t)p->memory_size - 1u);
      svdf_state_set(p, state, at, p->state_zero_point + v);
    }
  }
}

utvm_err_t utvm_svdf_s8(const utvm_svdf_params_t *params, const int8_t *input,
                        const int8_t *weights_feature, const void *weights_time,
                        const int32_t *bias, void *state, int8_t *output, void *scratch) {
  if ((params == NULL) || (input == NULL) || (weights_feature == NULL) ||
      (weights_time == NULL) || (state == NULL) || (output == NULL) || (scratch == NULL)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const utvm_svdf_params_t *p = params;
  if (!svdf_params_valid(p)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const int32_t units = p->filters / p->rank;
  int32_t *per_filter = (int32_t *)scratch;
  int32_t *per_unit = &per_filter[(size_t)p->batches * (size_t)p->filters];
  svdf_features(p, input, weights_feature, state);
  for (int32_t b = 0; b < p->batches; ++b) {
    for (int32_t f = 0; f < p->filters; ++f) {
      const size_t row = (size_t)f * (size_t)p->memory_size;
      const size_t col = (((size_t)b * (size_t)p->filters) + (size_t)f) * (size_t)p->memory_size;
      int64_t sum = 0;
      for (int32_t j = 0; j < p->memory_size; ++j) {
        const int32_t w = (p->state_bits == 16)
                              ? (int32_t)((const int16_t *)weights_time)[row + (size_t)j]
                              : (int32_t)((const int8_t *)weights_time)[row + (size_t)j];
        sum += (int64_t)w *
               ((int64_t)svdf_state_get(p, state, col + (size_t)j) - p->state_zero_point);
      }
      per_filter[((size_t)b * (size_t)p->filters) + (size_t)f] = svdf_wrap(sum);
    }
  }
  for (int32_t b = 0; b < p->batches; ++b) {
    for (int32_t u = 0; u < units; ++u) {
      int64_t sum = (bias != NULL) ? (int64_t)bias[u] : 0;
      for (int32_t k = 0; k < p->rank; ++k) {
        sum += per_filter[((size_t)b * (size_t)p->filters) + ((size_t)u * (size_t)p->rank) +
                          (size_t)k];
      }
      per_unit[((size_t)b * (size_t)units) + (size_t)u] = svdf_wrap(sum);
    }
  }
  for (size_t i = 0u; i < ((size_t)p->batches * (size_t)units); ++i) {
    const int32_t scaled =
        utvm_multiply_by_quantized_multiplier(per_unit[i], p->multiplier_2, p->shift_2);
    output[i] = (int8_t)utvm_clamp_s32(scaled + p->output_offset, INT8_MIN, INT8_MAX);
  }
  return UTVM_OK;
}

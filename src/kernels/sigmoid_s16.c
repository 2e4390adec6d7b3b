/* LOGISTIC and TANH int16 -> int16 (TFLite's reference_integer_ops::Logistic and Tanh for
 * int16): the input rescaled to steps of 1/(3 * 4096) (2^17 = 10.7), then the sigmoid table
 * interpolated on its absolute value (TANH as 2 * sigmoid(2x) - 1), output Q0.15. */
#include <stdbool.h>

#include "utvm/kernels.h"

/* sigmoid(i / 24) in unsigned Q0.16 for i = 0..255 (TFLite's sigmoid_table_uint16, data). */
static const uint16_t sigmoid_table[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149,
    40794, 41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369,
    47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169,
    53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370,
    60565, 60753, 60935, 61110, 61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302,
    62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186, 63279, 63368, 63454, 63536,
    63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786,
    64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079,
    65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234, 65246, 65258,
    65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
    65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474,
    65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498,
    65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522,
    65523, 65523, 65524, 65524, 65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528,
    65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530, 65530, 65530, 65531, 65531,
    65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534,
    65534, 65534, 65534, 65535};

/* The rescaled input: (x * multiplier + round) >> shift, as TFLite (in 64 bits: the same value
 * wherever TFLite's int32 arithmetic does not overflow). */
static int32_t sigmoid_input(const utvm_sigmoid_s16_params_t *params, int32_t x) {
  const int64_t round = (params->input_left_shift > 0)
                            ? ((int64_t)1 << (uint32_t)(params->input_left_shift - 1))
                            : 0;
  return (int32_t)((((int64_t)x * params->input_multiplier) + round) >>
                   (uint32_t)params->input_left_shift);
}

static bool sigmoid_params_valid(const utvm_sigmoid_s16_params_t *params) {
  return (params->input_multiplier >= 0) && (params->input_multiplier <= INT16_MAX) &&
         (params->input_left_shift >= 0) && (params->input_left_shift <= 31);
}

/* The table at |v| >> bits, interpolated with its low bits; saturated past the end. */
static uint32_t sigmoid_lookup(uint32_t magnitude, uint32_t bits, uint32_t saturated) {
  const uint32_t index = magnitude >> bits;
  uint32_t result = saturated;
  if (index < 255u) {
    const uint32_t a = sigmoid_table[index];
    const uint32_t b = sigmoid_table[index + 1u];
    const uint32_t fraction = magnitude & ((1u << bits) - 1u);
    result = (a << bits) + (fraction * (b - a));
  }
  return result;
}

static uint32_t sigmoid_magnitude(int32_t v) {
  return (v < 0) ? (0u - (uint32_t)v) : (uint32_t)v;
}

utvm_err_t utvm_logistic_s16(const utvm_sigmoid_s16_params_t *params, int32_t size,
                             const int16_t *input, int16_t *output) {
  if ((params == NULL) || (input == NULL) || (output == NULL) || !sigmoid_params_valid(params)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (size < 0) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  for (int32_t i = 0; i < size; ++i) {
    const int32_t v = sigmoid_input(params, input[i]);
    uint32_t result = sigmoid_lookup(sigmoid_magnitude(v), 9u, 0x7FFFu << 10u);
    result = (v >= 0) ? (result + (1u << 9u)) : ((1u << 25u) - result + (1u << 9u) - 1u);
    output[i] = (int16_t)(result >> 10u);
  }
  return UTVM_OK;
}

utvm_err_t utvm_tanh_s16(const utvm_sigmoid_s16_params_t *params, int32_t size,
                         const int16_t *input, int16_t *output) {
  if ((params == NULL) || (input == NULL) || (output == NULL) || !sigmoid_params_valid(params)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  if (size < 0) {
    return UTVM_ERR_KERNEL_BAD_SHAPE;
  }
  for (int32_t i = 0; i < size; ++i) {
    const int32_t v = sigmoid_input(params, input[i]);
    const int32_t r = (int32_t)sigmoid_lookup(sigmoid_magnitude(v), 8u, 0xFFFFu << 8u);
    const int32_t centered = (v >= 0) ? (r - (1 << 23) + (1 << 7)) : (-r + (1 << 23) + (1 << 7) - 1);
    /* >> 8 of a signed value: floor, as TFLite's arithmetic shift */
    output[i] = (int16_t)((centered >= 0) ? (centered / 256) : (-((-centered + 255) / 256)));
  }
  return UTVM_OK;
}

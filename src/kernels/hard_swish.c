/* HARD_SWISH on int8 (TFLite's reference quantized HardSwish): the parameters from the
 * scales, and the 256-entry table of the 16-bit fixed-point arithmetic for each input byte. */
#include "utvm/kernels.h"

#include "fixed_point.h"

/* x modulo 2^16 as an int16 value (C++'s conversion to int16_t on two's complement). */
static int32_t hs_wrap16(int32_t x) {
  const uint32_t u = (uint32_t)x & 0xFFFFu;
  return (u >= 0x8000u) ? ((int32_t)u - 65536) : (int32_t)u;
}

static int32_t hs_sat16(int64_t x) {
  int64_t r = x;
  if (r > (int64_t)INT16_MAX) {
    r = (int64_t)INT16_MAX;
  }
  if (r < (int64_t)INT16_MIN) {
    r = (int64_t)INT16_MIN;
  }
  return (int32_t)r;
}

/* gemmlowp's int16 SaturatingRoundingDoublingHighMul. */
static int32_t hs_srdhm16(int32_t a, int32_t b) {
  if ((a == INT16_MIN) && (b == INT16_MIN)) {
    return INT16_MAX;
  }
  const int32_t ab = a * b;
  const int32_t nudge = (ab >= 0) ? 16384 : (1 - 16384);
  return hs_wrap16((ab + nudge) / 32768);
}

/* TFLite's int16 SaturatingDoublingHighMul (truncating). */
static int32_t hs_sdhm16(int32_t a, int32_t b) {
  if ((a == INT16_MIN) && (b == INT16_MIN)) {
    return INT16_MAX;
  }
  return hs_wrap16((a * b) / 32768);
}

/* gemmlowp's RoundingDivideByPOT on int16, exponent 0..31 (its mask is taken modulo 2^16). */
static int32_t hs_rdbp16(int32_t x, int32_t exponent) {
  const int32_t mask = (exponent >= 16) ? -1 : (int32_t)((1u << (uint32_t)exponent) - 1u);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + ((x < 0) ? 1 : 0);
  return hs_wrap16((x >> exponent) + ((remainder > threshold) ? 1 : 0));
}

/* TFLite's SaturatingLeftShift of an int16 value, amount 0..30. */
static int32_t hs_sat_shl16(int32_t x, int32_t amount) {
  return hs_sat16((int64_t)x * ((int64_t)1 << amount));
}

/* DownScaleInt32ToInt16Multiplier. */
static int32_t hs_downscale(int32_t m) {
  return (m >= (INT32_MAX - 32768)) ? INT16_MAX : ((m + 32768) >> 16);
}

utvm_err_t utvm_hard_swish_params_s8(float input_scale, int32_t input_zero_point,
                                     float output_scale, int32_t output_zero_point,
                                     utvm_hard_swish_params_t *params) {
  if ((params == NULL) || !(input_scale > 0.0f) || !(output_scale > 0.0f) ||
      (input_zero_point < INT8_MIN) || (input_zero_point > INT8_MAX) ||
      (output_zero_point < INT8_MIN) || (output_zero_point > INT8_MAX)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const float hires_input_scale = (1.0f / 128.0f) * input_scale;
  const float reluish_scale = 3.0f / 32768.0f;
  int32_t out_mult = 0;
  int32_t out_shift = 0;
  int32_t rel_mult = 0;
  int32_t rel_shift = 0;
  utvm_err_t err =
      utvm_quantize_multiplier((double)(hires_input_scale / output_scale), &out_mult, &out_shift);
  if (err == UTVM_OK) {
    err = utvm_quantize_multiplier((double)(hires_input_scale / reluish_scale), &rel_mult,
                                   &rel_shift);
  }
  if (err != UTVM_OK) {
    return err;
  }
  /* TFLM requires the output exponent <= 0; the shifts stay where its arithmetic is defined. */
  if ((out_shift > 0) || (out_shift < -31) || (rel_shift > 31) || (rel_shift < -31)) {
    return UTVM_ERR_KERNEL_UNSUPPORTED;
  }
  params->input_zero_point = input_zero_point;
  params->output_zero_point = output_zero_point;
  params->output_multiplier = hs_downscale(out_mult);
  params->output_shift = out_shift;
  params->reluish_multiplier = hs_downscale(rel_mult);
  params->reluish_shift = rel_shift;
  return UTVM_OK;
}

/* One input byte through TFLite's HardSwish arithmetic. */
static int8_t hard_swish_element(const utvm_hard_swish_params_t *p, int32_t q) {
  const int32_t hires = (q - p->input_zero_point) * 128;
  const int32_t preshift_out = hs_srdhm16(hires, p->output_multiplier);
  int32_t reluish = hires;
  if (p->reluish_shift > 0) {
    reluish = hs_sat_shl16(reluish, p->reluish_shift - 1);
  }
  reluish = hs_srdhm16(reluish, p->reluish_multiplier);
  if (p->reluish_shift > 0) {
    reluish = hs_sat_shl16(reluish, 1);
  }
  if (p->reluish_shift < 0) {
    reluish = hs_rdbp16(reluish, -p->reluish_shift);
  }
  reluish = (reluish + 32768) >> 1;
  const int32_t preshift_value = hs_sdhm16(reluish, preshift_out);
  const int32_t out =
      hs_wrap16(hs_rdbp16(preshift_value, -p->output_shift) + p->output_zero_point);
  return (int8_t)utvm_clamp_s32(out, INT8_MIN, INT8_MAX);
}

utvm_err_t utvm_hard_swish_table_s8(const utvm_hard_swish_params_t *params, int8_t *table) {
  if ((params == NULL) || (table == NULL) || (params->input_zero_point < INT8_MIN) ||
      (params->input_zero_point > INT8_MAX) || (params->output_zero_point < INT8_MIN) ||
      (params->output_zero_point > INT8_MAX) || (params->output_multiplier < 0) ||
      (params->output_multiplier > INT16_MAX) || (params->reluish_multiplier < 0) ||
      (params->reluish_multiplier > INT16_MAX) || (params->output_shift > 0) ||
      (params->output_shift < -31) || (params->reluish_shift > 31) ||
      (params->reluish_shift < -31)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  for (int32_t i = 0; i < 256; ++i) {
    table[i] = hard_swish_element(params, i + INT8_MIN);
  }
  return UTVM_OK;
}

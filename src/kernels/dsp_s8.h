/*
 * The Cortex-M DSP extension's dual 16-bit operations the fast int8 kernels use (internal).
 * The fast paths are compiled on a core with the DSP extension (__ARM_FEATURE_DSP:
 * Cortex-M4/M7/M33/M55), where each helper is one ACLE intrinsic of <arm_acle.h>, or with
 * UTVM_KERNELS_DSP_EMULATED (host tests), where each is a few lines of portable C with the
 * same result, so the blocked loops are tested on the host too.
 *
 * A word holds 4 int8 values (byte 0 in bits 0..7, little-endian as Cortex-M and the host) or
 * 2 int16 values (halfword 0 in bits 0..15).
 */
#ifndef UTVM_KERNELS_DSP_S8_H
#define UTVM_KERNELS_DSP_S8_H

#include <stdint.h>
#include <string.h>

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>

/* Halfwords of a plus bytes 0 and 2 of x sign-extended, each modulo 2^16 (SXTAB16). */
static inline int32_t utvm_dsp_sxtab16(int32_t a, int32_t x) { return __sxtab16(a, x); }

/* Bytes 0 and 2 of x sign-extended to halfwords (SXTB16). */
static inline int32_t utvm_dsp_sxtb16(int32_t x) { return __sxtb16(x); }

/* acc + x.lo * y.lo + x.hi * y.hi on signed halfwords, modulo 2^32 (SMLAD). */
static inline int32_t utvm_dsp_smlad(int32_t x, int32_t y, int32_t acc) {
  return __smlad(x, y, acc);
}

/* acc + x.lo * y.lo (SMLABB) and acc + x.hi * y.hi (SMLATT), modulo 2^32. */
static inline int32_t utvm_dsp_smlabb(int32_t x, int32_t y, int32_t acc) {
  return __smlabb(x, y, acc);
}
static inline int32_t utvm_dsp_smlatt(int32_t x, int32_t y, int32_t acc) {
  return __smlatt(x, y, acc);
}

#elif defined(UTVM_KERNELS_DSP_EMULATED)

static inline uint32_t utvm_dsp_half_add_byte(uint32_t half, uint32_t byte) {
  const int32_t value = (int32_t)(int8_t)(uint8_t)(byte & 0xffu);
  return (half + (uint32_t)value) & 0xffffu;
}

static inline int32_t utvm_dsp_sxtab16(int32_t a, int32_t x) {
  const uint32_t ua = (uint32_t)a;
  const uint32_t ux = (uint32_t)x;
  const uint32_t lo = utvm_dsp_half_add_byte(ua & 0xffffu, ux);
  const uint32_t hi = utvm_dsp_half_add_byte(ua >> 16, ux >> 16);
  return (int32_t)(lo | (hi << 16));
}

static inline int32_t utvm_dsp_sxtb16(int32_t x) { return utvm_dsp_sxtab16(0, x); }

static inline int32_t utvm_dsp_half(int32_t x, uint32_t index) {
  return (int32_t)(int16_t)(uint16_t)(((uint32_t)x >> (16u * index)) & 0xffffu);
}

static inline int32_t utvm_dsp_smlad(int32_t x, int32_t y, int32_t acc) {
  const uint32_t lo = (uint32_t)(utvm_dsp_half(x, 0u) * utvm_dsp_half(y, 0u));
  const uint32_t hi = (uint32_t)(utvm_dsp_half(x, 1u) * utvm_dsp_half(y, 1u));
  return (int32_t)((uint32_t)acc + lo + hi);
}

static inline int32_t utvm_dsp_smlabb(int32_t x, int32_t y, int32_t acc) {
  return (int32_t)((uint32_t)acc + (uint32_t)(utvm_dsp_half(x, 0u) * utvm_dsp_half(y, 0u)));
}

static inline int32_t utvm_dsp_ssat8(int32_t x) {
  return (x < -128) ? -128 : ((x > 127) ? 127 : x);
}

static inline int32_t utvm_dsp_smlatt(int32_t x, int32_t y, int32_t acc) {
  return (int32_t)((uint32_t)acc + (uint32_t)(utvm_dsp_half(x, 1u) * utvm_dsp_half(y, 1u)));
}
#endif

#if defined(__ARM_FEATURE_DSP) || defined(UTVM_KERNELS_DSP_EMULATED)
/* x rotated right by 8 bits (bytes 1 and 3 move to 0 and 2). */
static inline int32_t utvm_dsp_ror8(int32_t x) {
  const uint32_t ux = (uint32_t)x;
  return (int32_t)((ux >> 8) | (ux << 24));
}

#if defined(__ARM_FEATURE_DSP) && defined(__GNUC__)
/* Bytes 1 and 3 of x sign-extended to halfwords, and added to a's halfwords: one SXTB16 or
 * SXTAB16 with its rotation (gcc 12 does not fold a separate rotation into the intrinsic). */
static inline int32_t utvm_dsp_sxtb16_ror8(int32_t x) {
  int32_t result;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(result) : "r"(x));
  return result;
}
static inline int32_t utvm_dsp_sxtab16_ror8(int32_t a, int32_t x) {
  int32_t result;
  __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(result) : "r"(a), "r"(x));
  return result;
}

/* x clamped to -128..127: one SSAT #8 (gcc 12's __ssat of <arm_acle.h> converts its result
 * from unsigned, which -Wsign-conversion rejects). */
static inline int32_t utvm_dsp_ssat8(int32_t x) {
  int32_t result;
  __asm__("ssat %0, #8, %1" : "=r"(result) : "r"(x));
  return result;
}
#else
static inline int32_t utvm_dsp_sxtb16_ror8(int32_t x) { return utvm_dsp_sxtb16(utvm_dsp_ror8(x)); }
static inline int32_t utvm_dsp_sxtab16_ror8(int32_t a, int32_t x) {
  return utvm_dsp_sxtab16(a, utvm_dsp_ror8(x));
}
#endif

/* 4 int8 values at any alignment as one word. */
static inline int32_t utvm_dsp_load4(const int8_t *p) {
  int32_t word;
  (void)memcpy(&word, p, sizeof word);
  return word;
}

/* Stores word at p, any alignment. */
static inline void utvm_dsp_store4(int8_t *p, int32_t word) {
  (void)memcpy(p, &word, sizeof word);
}

/* p, which the caller has found 4-byte aligned, marked so for the compiler: the word loads
 * from it may then be paired (LDRD). */
static inline const int8_t *utvm_dsp_aligned4(const int8_t *p) {
#if defined(__GNUC__)
  return (const int8_t *)__builtin_assume_aligned(p, 4);
#else
  return p;
#endif
}

/* The int16 value at p (any alignment), and value stored there as int16 (-32768..32767). */
static inline int32_t utvm_dsp_load2(const int8_t *p) {
  int16_t half;
  (void)memcpy(&half, p, sizeof half);
  return half;
}
static inline void utvm_dsp_store2(int8_t *p, int32_t value) {
  const int16_t half = (int16_t)value;
  (void)memcpy(p, &half, sizeof half);
}

/* Halfword 0 from lo, halfword 1 from hi (each taken modulo 2^16). */
static inline int32_t utvm_dsp_pack(int32_t lo, int32_t hi) {
  return (int32_t)(((uint32_t)lo & 0xffffu) | ((uint32_t)hi << 16));
}

/* value in both halfwords (an offset for utvm_dsp_sxtab16), value in -32768..32767. */
static inline int32_t utvm_dsp_pair(int32_t value) {
  const uint32_t half = (uint32_t)value & 0xffffu;
  return (int32_t)(half | (half << 16));
}

/* The four sums of a 2x2 block: row r (weights) by column c (positions); FULLY_CONNECTED's four
 * rows by one column in the same order. */
typedef struct {
  int32_t s00;
  int32_t s01;
  int32_t s10;
  int32_t s11;
} dsp_sums_t;
#endif

#endif /* UTVM_KERNELS_DSP_S8_H */

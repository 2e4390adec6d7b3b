/*
 * Row copies of the in-place convolutions and stages (internal): memcpy and memmove, or on
 * cores with MVE 16 bytes per vector load and store front to back, the last vector predicated
 * to the bytes left (newlib's memcpy moves at most a word per load and store).
 */
#ifndef UTVM_KERNELS_COPY_S8_H
#define UTVM_KERNELS_COPY_S8_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__ARM_FEATURE_MVE)
#include <arm_mve.h>

/* n bytes from src to dst front to back, each vector loaded before it is stored: right for
 * buffers that do not overlap and for dst before src. */
static inline void utvm_copy_forward_s8(int8_t *dst, const int8_t *src, size_t n) {
  const size_t whole = n / 16u;
  const size_t rest = n % 16u;
  const int8_t *s = src;
  int8_t *d = dst;
  for (size_t b = 0u; b < whole; ++b) {
    vstrbq_s8(d, vldrbq_s8(s));
    d = &d[16];
    s = &s[16];
  }
  if (rest > 0u) {
    const mve_pred16_t p = vctp8q((uint32_t)rest);
    vstrbq_p_s8(d, vldrbq_z_s8(s, p), p);
  }
}
#endif

/* Copies n bytes from src to dst, which do not overlap. */
static inline void utvm_copy_s8(int8_t *dst, const int8_t *src, size_t n) {
#if defined(__ARM_FEATURE_MVE)
  utvm_copy_forward_s8(dst, src, n);
#else
  (void)memcpy(dst, src, n);
#endif
}

/* Moves n bytes from src to dst, which starts at or before src (they may overlap). */
static inline void utvm_move_front_s8(int8_t *dst, const int8_t *src, size_t n) {
#if defined(__ARM_FEATURE_MVE)
  utvm_copy_forward_s8(dst, src, n);
#else
  (void)memmove(dst, src, n);
#endif
}

#endif /* UTVM_KERNELS_COPY_S8_H */

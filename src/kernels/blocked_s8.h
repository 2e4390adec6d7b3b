/*
 * What the blocked portable C paths share (internal): conv2d_s8_blocked.c,
 * depthwise_conv2d_s8_blocked.c and fully_connected_s8_blocked.c, the kernels of cores without
 * the DSP extension (Cortex-M0/M0+/M3, hosts; see fast_s8.h for when each is taken). Every sum
 * they form is the same 32-bit wrapping sum as the reference loops' (only its order differs, and
 * addition modulo 2^32 is associative), so after the shared requantization (requant_s8.h,
 * bit-exact with utvm_mac_output_s8) the bytes are identical.
 */
#ifndef UTVM_KERNELS_BLOCKED_S8_H
#define UTVM_KERNELS_BLOCKED_S8_H

#include <stdint.h>
#include <string.h>

/* Four accumulators modulo 2^32. */
typedef struct {
  uint32_t a[4];
} blocked_sums_t;

/* The inner loops are functions of their own (GCC and Clang would inline them), so that their
 * pointers and accumulators get registers instead of sharing them with the callers' state. */
#if defined(__GNUC__)
#define BLOCKED_NOINLINE __attribute__((noinline))
#else
#define BLOCKED_NOINLINE
#endif

/* Words blocked_sum_s8 sums in 16-bit lanes before folding them: each word adds at most
 * 2 * 255 to a lane, so 128 words stay below 2^16. */
#define BLOCKED_SUM_WORDS 128

/* The sum of n (>= 0) int8 values at x (any alignment), modulo 2^32: four at a time from a word,
 * each value biased to 0..255 (its sign bit flipped: x + 128) and added in pairs into two 16-bit
 * lanes, the bias taken off per run of words; then the last n % 4 one at a time. About half the
 * instructions of a loop over the values on cores without SIMD. */
static inline int32_t blocked_sum_s8(const int8_t *x, int32_t n) {
  uint32_t total = 0u;
  int32_t i = 0;
  while ((n - i) >= 4) {
    const int32_t left = (n - i) / 4;
    const int32_t words = (left < BLOCKED_SUM_WORDS) ? left : BLOCKED_SUM_WORDS;
    uint32_t lanes = 0u;
    for (int32_t k = 0; k < words; ++k) {
      uint32_t word;
      (void)memcpy(&word, &x[i + (4 * k)], sizeof word);
      word ^= 0x80808080u;
      lanes += (word & 0x00FF00FFu) + ((word >> 8u) & 0x00FF00FFu);
    }
    total += ((lanes & 0xFFFFu) + (lanes >> 16u)) - ((uint32_t)words * 512u);
    i += 4 * words;
  }
  int32_t last = 0; /* at most 3 values */
  for (; i < n; ++i) {
    last += (int32_t)x[i];
  }
  return (int32_t)(total + (uint32_t)last);
}

#endif /* UTVM_KERNELS_BLOCKED_S8_H */

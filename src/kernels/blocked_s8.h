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

#endif /* UTVM_KERNELS_BLOCKED_S8_H */

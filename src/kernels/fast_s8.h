/*
 * The implementations behind CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and same-shape ADD
 * (internal), all bit-exact with the reference loops in portable C (TFLite's, the definition of
 * the result). Each operator's public function checks every argument and then calls one of
 * these, which trust their arguments; tests call them all and compare. Which one a call takes:
 *
 *   core                        CONV_2D             DEPTHWISE_CONV_2D   FULLY_CONNECTED  ADD
 *   no DSP (M0/M0+/M3, hosts)   blocked (1)         blocked             blocked          (3)
 *   DSP, no MVE (M4/M7/M33)     dsp with scratch,   dsp for multiplier  dsp              (3)
 *                               else blocked (1)    1 or 4k, else
 *                                                   blocked
 *   MVE (M55/M85)               mve (1) with        mve up to 65535     mve              mve (2)
 *                               scratch, else       input channels,
 *                               portable            else portable
 *
 * (1) not grouped (input channels = filter channels), else portable; (2) inputs of the output's
 * shape, else the broadcasting loop; (3) inputs of the output's shape take add_s8.c's own loop
 * (requant_s8.h's scales), the others (and negative multipliers) the broadcasting loop.
 * A core with MVE always has the DSP extension too, and runs the MVE paths instead.
 * AVERAGE_POOL_2D takes its mve path on MVE cores, its portable loops on the others.
 *
 * Files, one algorithm each: <operator>_s8.c holds the checks, the selection above and the
 * portable loops; <operator>_s8_blocked.c the blocked portable C path (shared: blocked_s8.h);
 * <operator>_s8_dsp.c the DSP path, compiled where UTVM_KERNELS_DSP_PATHS is defined (ACLE
 * intrinsics or their emulation: dsp_s8.h; output step: requant_s8_dsp.h); <operator>_s8_mve.c
 * the MVE path, compiled with __ARM_FEATURE_MVE (shared: mve_s8.h); <operator>_s8_dsp_asm.S an
 * inner loop of the DSP path in Thumb-2 assembly (UTVM_KERNELS_DSP_ASM), <operator>_s8_blocked_asm.S
 * one of the blocked path (UTVM_KERNELS_BLOCKED_ASM), <operator>_s8_mve_asm.S one of the MVE
 * path (always: MVE builds are arm-none-eabi-gcc's). Each file's comment gives
 * its measured stack. Every fast path requantizes through requant_s8.h's tables.
 */
#ifndef UTVM_KERNELS_FAST_S8_H
#define UTVM_KERNELS_FAST_S8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dsp_s8.h"
#include "utvm/kernels.h"

/* The DSP paths are compiled on cores with the DSP extension but not MVE (whose own paths
 * cover every case the DSP ones did), and in the host tests (emulated). */
#if (defined(__ARM_FEATURE_DSP) && !defined(__ARM_FEATURE_MVE)) || \
    defined(UTVM_KERNELS_DSP_EMULATED)
#define UTVM_KERNELS_DSP_PATHS 1
#endif

/* Inner loops in Thumb-2 assembly (*_asm.S beside their C file, each faster than gcc's code of
 * the C loop by a measured margin) on arm-none-eabi-gcc builds of the DSP paths; the host's
 * emulated DSP paths keep the C loops. */
#if defined(__ARM_FEATURE_DSP) && !defined(__ARM_FEATURE_MVE) && defined(__thumb2__) && \
    defined(__GNUC__) && !defined(__clang__) && !defined(UTVM_KERNELS_DSP_EMULATED)
#define UTVM_KERNELS_DSP_ASM 1
#endif

/* The blocked paths' inner loop in Thumb-2 assembly (conv2d_s8_blocked_asm.S) on
 * arm-none-eabi-gcc builds for a Thumb-2 core without the DSP extension (Cortex-M3); hosts and
 * the other cores keep the C loop. */
#if defined(__thumb2__) && !defined(__ARM_FEATURE_DSP) && !defined(__ARM_FEATURE_MVE) && \
    defined(__GNUC__) && !defined(__clang__)
#define UTVM_KERNELS_BLOCKED_ASM 1
#endif

/* The filter taps of a window along one axis that fall inside the input: [*first, *end).
 * dilation and taps >= 1, in >= 1 (checked arguments). In 32-bit unsigned arithmetic (one
 * hardware division, no 64-bit library call): -origin + dilation - 1 and in - 1 - origin are
 * below 2^32 for any int32 origin. */
static inline void utvm_taps_inside(int32_t origin, int32_t dilation, int32_t taps, int32_t in,
                                    int32_t *first, int32_t *end) {
  const uint32_t d = (uint32_t)dilation;
  uint32_t lo = 0u;
  if (origin < 0) {
    lo = ((0u - (uint32_t)origin) + d - 1u) / d;
  }
  uint32_t hi = 0u;
  if (origin < in) {
    hi = ((uint32_t)in - 1u - (uint32_t)origin) / d + 1u;
  }
  if (hi > (uint32_t)taps) {
    hi = (uint32_t)taps;
  }
  if (lo > hi) {
    lo = hi;
  }
  *first = (int32_t)lo;
  *end = (int32_t)hi;
}

/* Where one output position's window lies: the batch's input, the window origin and the taps
 * inside the input (rows ys[0]..ys[1]-1, columns xs[0]..xs[1]-1). */
typedef struct {
  const int8_t *batch_input;
  int32_t in_y_origin;
  int32_t in_x_origin;
  int32_t ys[2];
  int32_t xs[2];
} utvm_window_t;

/* ---- CONV_2D: conv2d_s8.c, conv2d_s8_blocked.c, conv2d_s8_dsp.c, conv2d_s8_mve.c ---- */

/* utvm_conv2d_s8 in portable C (checked arguments). */
void utvm_conv2d_s8_portable(const utvm_conv2d_params_t *params,
                             const utvm_per_channel_quant_t *quant, const utvm_dims_t *input_dims,
                             const int8_t *input, const utvm_dims_t *filter_dims,
                             const int8_t *filter, const int32_t *bias,
                             const utvm_dims_t *output_dims, int8_t *output);

/* utvm_conv2d_s8 for a convolution that is not grouped (input channels = filter channels),
 * blocked over four output channels (checked arguments). */
void utvm_conv2d_s8_blocked(const utvm_conv2d_params_t *params,
                            const utvm_per_channel_quant_t *quant, const utvm_dims_t *input_dims,
                            const int8_t *input, const utvm_dims_t *filter_dims,
                            const int8_t *filter, const int32_t *bias,
                            const utvm_dims_t *output_dims, int8_t *output);

#if defined(UTVM_KERNELS_DSP_PATHS)
/* utvm_conv2d_s8 as im2col + a 2x2-blocked matrix multiply with dual 16-bit MACs (checked
 * arguments; scratch: utvm_conv2d_s8_scratch_size_for(UTVM_KERNELS_DSP, ...) bytes, which must
 * be > 0; word-aligned, as workspaces are, else a PLAIN filter runs utvm_conv2d_s8_blocked; a
 * DSP_S16 filter needs an aligned scratch and a word-aligned filter: the caller checks). */
void utvm_conv2d_s8_dsp(const utvm_conv2d_params_t *params, const utvm_per_channel_quant_t *quant,
                        const utvm_dims_t *input_dims, const int8_t *input,
                        const utvm_dims_t *filter_dims, const int8_t *filter,
                        const int32_t *bias, const utvm_dims_t *output_dims, int8_t *output,
                        int8_t *scratch);
#endif

#if defined(__ARM_FEATURE_MVE)
/* True if utvm_conv2d_s8_mve takes this convolution (not grouped, with scratch). */
bool utvm_conv2d_s8_mve_applies(const utvm_dims_t *input_dims, const utvm_dims_t *filter_dims,
                                bool has_scratch);

/* utvm_conv2d_s8 as int8 im2col (four columns at a time; 1x1 of stride 1 over up to 16
 * channels in place) and dot products (checked arguments; scratch:
 * utvm_conv2d_s8_scratch_size_for(UTVM_KERNELS_MVE, ...) bytes, any alignment). */
void utvm_conv2d_s8_mve(const utvm_conv2d_params_t *params, const utvm_per_channel_quant_t *quant,
                        const utvm_dims_t *input_dims, const int8_t *input,
                        const utvm_dims_t *filter_dims, const int8_t *filter,
                        const int32_t *bias, const utvm_dims_t *output_dims, int8_t *output,
                        int8_t *scratch);
#endif

/* ---- DEPTHWISE_CONV_2D: depthwise_conv2d_s8.c, depthwise_conv2d_s8_blocked.c,
 * depthwise_conv2d_s8_dsp.c, depthwise_conv2d_s8_mve.c ---- */

/* utvm_depthwise_conv2d_s8 in portable C (checked arguments). */
void utvm_depthwise_conv2d_s8_portable(const utvm_depthwise_conv2d_params_t *params,
                                       const utvm_per_channel_quant_t *quant,
                                       const utvm_dims_t *input_dims, const int8_t *input,
                                       const utvm_dims_t *filter_dims, const int8_t *filter,
                                       const int32_t *bias, const utvm_dims_t *output_dims,
                                       int8_t *output);

/* utvm_depthwise_conv2d_s8 blocked over four output channels when the multiplier is 1 or a
 * multiple of 4, one at a time otherwise, the taps inside found per position (checked
 * arguments). */
void utvm_depthwise_conv2d_s8_blocked(const utvm_depthwise_conv2d_params_t *params,
                                      const utvm_per_channel_quant_t *quant,
                                      const utvm_dims_t *input_dims, const int8_t *input,
                                      const utvm_dims_t *filter_dims, const int8_t *filter,
                                      const int32_t *bias, const utvm_dims_t *output_dims,
                                      int8_t *output);

#if defined(UTVM_KERNELS_DSP_PATHS)
/* True if utvm_depthwise_conv2d_s8_dsp takes this depth multiplier (1 or a multiple of 4). */
bool utvm_depthwise_conv2d_s8_dsp_applies(int32_t depth_multiplier);

/* utvm_depthwise_conv2d_s8 for those multipliers (checked arguments; no scratch): four output
 * channels at a time, 16-bit multiply-accumulates (stack: see depthwise_conv2d_s8_dsp.c). */
void utvm_depthwise_conv2d_s8_dsp(const utvm_depthwise_conv2d_params_t *params,
                                  const utvm_per_channel_quant_t *quant,
                                  const utvm_dims_t *input_dims, const int8_t *input,
                                  const utvm_dims_t *filter_dims, const int8_t *filter,
                                  const int32_t *bias, const utvm_dims_t *output_dims,
                                  int8_t *output);
#endif

#if defined(__ARM_FEATURE_MVE)
/* True if utvm_depthwise_conv2d_s8_mve takes this many input channels (up to 65535: its
 * gathers take 16-bit channel offsets). */
bool utvm_depthwise_conv2d_s8_mve_applies(int32_t input_channels);

/* utvm_depthwise_conv2d_s8 (checked arguments; no scratch): 16 or 8 output channels per step,
 * lane-wise 16x16->32-bit multiplies; a 3x3 filter over all nine taps with the input offset
 * folded into the terms (multiplier 1, or up to UTVM_KERNELS_MVE_CHANNEL_BLOCK input
 * channels), other filters over the taps inside the input. */
void utvm_depthwise_conv2d_s8_mve(const utvm_depthwise_conv2d_params_t *params,
                                  const utvm_per_channel_quant_t *quant,
                                  const utvm_dims_t *input_dims, const int8_t *input,
                                  const utvm_dims_t *filter_dims, const int8_t *filter,
                                  const int32_t *bias, const utvm_dims_t *output_dims,
                                  int8_t *output);
#endif

/* ---- FULLY_CONNECTED: fully_connected_s8.c, fully_connected_s8_blocked.c,
 * fully_connected_s8_dsp.c, fully_connected_s8_mve.c ---- */

/* utvm_fully_connected_s8 in portable C (checked arguments). */
void utvm_fully_connected_s8_portable(const utvm_fully_connected_params_t *params,
                                      const utvm_per_channel_quant_t *quant, int32_t batches,
                                      int32_t input_depth, int32_t output_depth,
                                      const int8_t *input, const int8_t *filter,
                                      const int32_t *bias, int8_t *output);

/* utvm_fully_connected_s8 blocked over four units, the filter offset folded into one product
 * per output (checked arguments). */
void utvm_fully_connected_s8_blocked(const utvm_fully_connected_params_t *params,
                                     const utvm_per_channel_quant_t *quant, int32_t batches,
                                     int32_t input_depth, int32_t output_depth,
                                     const int8_t *input, const int8_t *filter,
                                     const int32_t *bias, int8_t *output);

#if defined(UTVM_KERNELS_DSP_PATHS)
/* utvm_fully_connected_s8 with dual 16-bit MACs, four output channels by one batch at a time
 * (checked arguments). */
void utvm_fully_connected_s8_dsp(const utvm_fully_connected_params_t *params,
                                 const utvm_per_channel_quant_t *quant, int32_t batches,
                                 int32_t input_depth, int32_t output_depth, const int8_t *input,
                                 const int8_t *filter, const int32_t *bias, int8_t *output);
#endif

#if defined(__ARM_FEATURE_MVE)
/* utvm_fully_connected_s8 with int8 dot products, four output channels at a time. */
void utvm_fully_connected_s8_mve(const utvm_fully_connected_params_t *params,
                                 const utvm_per_channel_quant_t *quant, int32_t batches,
                                 int32_t input_depth, int32_t output_depth, const int8_t *input,
                                 const int8_t *filter, const int32_t *bias, int8_t *output);
#endif

/* ---- ADD: add_s8.c, add_s8_mve.c ---- */

/* ADD of count elements of two inputs of the output's shape (no broadcasting; checked
 * arguments; output may alias an input). */
void utvm_add_s8_portable(const utvm_add_params_t *params, int32_t count, const int8_t *input1,
                          const int8_t *input2, int8_t *output);

#if defined(__ARM_FEATURE_MVE)
/* utvm_add_s8_portable four lanes at a time. */
void utvm_add_s8_mve(const utvm_add_params_t *params, int32_t count, const int8_t *input1,
                     const int8_t *input2, int8_t *output);
#endif

/* ---- AVERAGE_POOL_2D: avg_pool2d_s8.c, avg_pool2d_s8_mve.c ---- */

/* AVERAGE_POOL_2D over checked arguments whose windows all hold an input pixel, every window
 * through the reference loop (utvm_avg_pool2d_s8 takes the MVE one where it is built). */
void utvm_avg_pool2d_s8_portable(const utvm_pool2d_params_t *params,
                                 const utvm_dims_t *input_dims, const int8_t *input,
                                 const utvm_dims_t *output_dims, int8_t *output);

#if defined(__ARM_FEATURE_MVE)
/* The depth outputs of one window of rows x columns pixels from first (rows row bytes apart,
 * pixels depth bytes apart) into out: the reference loop's averages, 16 channels at a time. */
void utvm_avg_pool2d_s8_mve_window(const utvm_pool2d_params_t *params, const int8_t *first,
                                   int32_t row, int32_t depth, int32_t rows, int32_t columns,
                                   int8_t *out);
#endif

#endif /* UTVM_KERNELS_FAST_S8_H */

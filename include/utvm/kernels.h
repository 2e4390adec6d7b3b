/*
 * utvm int8 kernels: the operators of int8 TensorFlow Lite models, bit-exact with TensorFlow
 * Lite Micro's reference kernels (tflite-micro 90b983c2b3f1, double-rounding build).
 *
 * Conventions, for every function below:
 * - Layout is NHWC (TFLite's); filters are OHWI for CONV_2D, 1HWO for DEPTHWISE_CONV_2D and
 *   [output_depth, input_depth] for FULLY_CONNECTED.
 * - Offsets follow TFLite: input_offset = -input zero point, output_offset = +output zero point.
 * - A shift is TFLite's exponent: > 0 shifts left, < 0 shifts right (range -31..31).
 * - act_min/act_max is the fused activation as a clamp range of output values
 *   (utvm_activation_range_s8 computes it).
 * - Kernels only read their inputs and write their outputs; the caller owns all memory. They
 *   never allocate and keep no state. A kernel whose parameters are out of range returns
 *   UTVM_ERR_KERNEL_BAD_PARAM, one whose shapes do not fit UTVM_ERR_KERNEL_BAD_SHAPE, before it
 *   writes anything; the arithmetic itself never fails.
 * - Inputs and outputs must not overlap, except where a function says otherwise.
 * - The prepare helpers (utvm_*_params_s8, utvm_quantize_multiplier, ...) turn the float
 *   scales of a .tflite file into these integer parameters exactly as TFLite's Prepare does;
 *   they use double arithmetic and run once per model, not per inference.
 */
#ifndef UTVM_KERNELS_H
#define UTVM_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Cores ---- */

/* Which kernel variants a build runs, as far as they differ in scratch memory: the portable C
 * loops (hosts, Cortex-M0/M0+/M3), the fast paths of cores with the DSP extension
 * (Cortex-M4/M7/M33/M35P), or those of cores with the M-profile Vector Extension (Cortex-M55/
 * M85). Results are the same bit for bit. MVE's scratch sizes are the DSP ones, so code
 * planned for either core runs on the other. */
typedef enum {
  UTVM_KERNELS_PORTABLE = 0,
  UTVM_KERNELS_DSP = 1,
  UTVM_KERNELS_MVE = 2
} utvm_kernels_core_t;

#if defined(__ARM_FEATURE_MVE)
#define UTVM_KERNELS_NATIVE UTVM_KERNELS_MVE
#elif defined(__ARM_FEATURE_DSP) || defined(UTVM_KERNELS_DSP_EMULATED)
#define UTVM_KERNELS_NATIVE UTVM_KERNELS_DSP
#else
#define UTVM_KERNELS_NATIVE UTVM_KERNELS_PORTABLE
#endif

/* UTVM_HAVE_F32: whether the float32 operators are built (the kernels utvm_conv2d_f32 ...
 * utvm_mean_f32 below and the kinds UTVM_OP_CONV2D_F32 ... UTVM_OP_MEAN_F32 of utvm/ops.h that
 * call them). 1: built. 0: each float32 kernel is a stub that returns UTVM_ERR_KERNEL_NO_F32
 * (src/kernels/f32_absent.c), the runner refuses a float32 operator when it prepares the
 * model, and utvm_k_kernels tells a host (UTVM_KERNELS_INFO_NO_F32), which refuses such a
 * model before it uploads anything; the operators that only convert or move float32 values
 * (QUANTIZE, DEQUANTIZE, RESHAPE, PAD, CONCATENATION, TRANSPOSE, ...) are not affected.
 * Default: 1 on hosts and on Arm cores whose FPU has single precision (__ARM_FP bit 2:
 * Cortex-M4F, M7, M33 with FPU, M55, M85), 0 on Arm cores without (Cortex-M0/M0+/M3, or any
 * core built with -mfloat-abi=soft), whose software float would run these operators 10 to 100
 * times slower (the Cortex-M3 image saves the kernels' flash, docs/TFLITE.md "float32 on
 * boards"). Define it to 0 or 1 (e.g. -DUTVM_HAVE_F32=0) for every file of the build to
 * choose otherwise. */
#ifndef UTVM_HAVE_F32
#if defined(__arm__) && !(defined(__ARM_FP) && ((__ARM_FP & 0x4) != 0))
#define UTVM_HAVE_F32 0
#else
#define UTVM_HAVE_F32 1
#endif
#endif

/* Output channels whose requantization table the fast paths of CONV_2D, DEPTHWISE_CONV_2D and
 * FULLY_CONNECTED (blocked portable C and DSP) fill at a time on the stack; a multiple of 4.
 * Stack per channel of a block: 24 bytes of table, plus in the blocked paths 4 (CONV_2D,
 * FULLY_CONNECTED) or 13 (3x3 DEPTHWISE_CONV_2D) bytes, plus 512 bytes of widened input in
 * FULLY_CONNECTED (the DSP paths: src/kernels/<operator>_s8_dsp.c). Frames by default
 * (arm-none-eabi-gcc 12 -O2 -fstack-usage): blocked CONV_2D 2048, FULLY_CONNECTED 2472,
 * DEPTHWISE_CONV_2D 2624 bytes; DSP 2576, 2536 and 3640 bytes (each path's file gives its
 * callees' frames too). */
#ifndef UTVM_KERNELS_CHANNEL_BLOCK
#define UTVM_KERNELS_CHANNEL_BLOCK 64
#endif

/* Filter taps (height x width) up to which the DSP path of DEPTHWISE_CONV_2D with multiplier 1
 * widens a channel block's filter once into a stack buffer (2 bytes per tap and channel of
 * the block: 1152 bytes by default); larger filters widen it per tap. */
#ifndef UTVM_KERNELS_DSP_DW_TAPS
#define UTVM_KERNELS_DSP_DW_TAPS 9
#endif

/* Values (filter height x width x channels) up to which the DSP path of CONV_2D gathers an
 * im2col column's input bytes on the stack first when the channel count is not a multiple of
 * 4 (first layers: 3 or 1 channel); larger columns are widened run by run. */
#ifndef UTVM_KERNELS_DSP_IM2COL_STAGE
#define UTVM_KERNELS_DSP_IM2COL_STAGE 256
#endif

/* Output channels the MVE paths of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED sum before
 * requantizing them (stack: up to 20 bytes per channel, plus 512 bytes of im2col column in
 * CONV_2D); a multiple of 16. */
#ifndef UTVM_KERNELS_MVE_CHANNEL_BLOCK
#define UTVM_KERNELS_MVE_CHANNEL_BLOCK 64
#endif

/* ---- Shapes and shared parameter types ---- */

/* A 4-D NHWC shape (batches, height, width, channels); every dimension >= 1. */
typedef struct {
  int32_t n;
  int32_t h;
  int32_t w;
  int32_t c;
} utvm_dims_t;

/* Highest rank of utvm_shape_t (broadcasting, MEAN, CONCATENATION). */
#define UTVM_KERNEL_MAX_RANK 6

/* A shape of rank 0..UTVM_KERNEL_MAX_RANK (dims[0] outermost); every dimension >= 1. */
typedef struct {
  int32_t rank;
  int32_t dims[UTVM_KERNEL_MAX_RANK];
} utvm_shape_t;

/* One output channel's requantization in the form the blocked and DSP paths of CONV_2D,
 * DEPTHWISE_CONV_2D and FULLY_CONNECTED read (src/kernels/requant_s8.h proves it exact): the
 * channel's bias (0 without), its multiplier, the 64-bit rounding constant of a negative value
 * as two words, and its right shift minus one (left: 0). utvm_requant_table_fill writes it. */
typedef struct {
  int32_t bias;
  int32_t multiplier;
  uint32_t round_lo;
  int32_t round_hi;
  int32_t shift;
  int32_t left;
} utvm_requant_entry_t;

/* Output requantization of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED: count is 1
 * (per-tensor: entry 0 for every channel) or the number of output channels (per-channel).
 * Shifts are int8_t (their range is -31..31) to keep per-channel tables small; the prepare
 * helpers below produce int32_t shifts, which the caller stores narrowed. table is NULL, or
 * one entry per output channel that utvm_requant_table_fill made from these multipliers and
 * shifts and the call's bias, computed once (at compile time) instead of per call: the blocked
 * and DSP paths read it, the others ignore it. */
typedef struct {
  const int32_t *multiplier;
  const int8_t *shift;
  int32_t count;
  const utvm_requant_entry_t *table;
} utvm_per_channel_quant_t;

/* Fills table[0..channels-1] for quant (table ignored; count 1 or channels) and bias (NULL or
 * channels values; the caller owns all). UTVM_ERR_KERNEL_BAD_PARAM for NULL pointers, channels
 * out of 1..INT32_MAX or not matching count, or a channel the table form cannot hold (a
 * negative multiplier or a shift that is not right: 1..31). */
utvm_err_t utvm_requant_table_fill(const utvm_per_channel_quant_t *quant, const int32_t *bias,
                                   int32_t channels, utvm_requant_entry_t *table);

/* TFLite's fused activation functions, numbered as in the schema (ActivationFunctionType). */
typedef enum {
  UTVM_ACT_NONE = 0,
  UTVM_ACT_RELU = 1,
  UTVM_ACT_RELU_N1_TO_1 = 2,
  UTVM_ACT_RELU6 = 3
} utvm_activation_t;

/* TFLite's padding schemes, numbered as in the schema (Padding). */
typedef enum { UTVM_PADDING_SAME = 0, UTVM_PADDING_VALID = 1 } utvm_padding_t;

/* Output size and padding of one 2-D window operator, as TFLite computes them: pad_top and
 * pad_left go to the kernels; offset_h/offset_w is the extra row/column SAME pads at the
 * bottom/right when the total padding is odd (the kernels infer it from the output size). */
typedef struct {
  int32_t out_h;
  int32_t out_w;
  int32_t pad_top;
  int32_t pad_left;
  int32_t offset_h;
  int32_t offset_w;
} utvm_padding_values_t;

/* ---- CONV_2D ---- */

typedef struct {
  int32_t stride_h;
  int32_t stride_w;
  int32_t dilation_h;
  int32_t dilation_w;
  int32_t pad_top;
  int32_t pad_left;
  int32_t input_offset;  /* -input zero point, -127..128 */
  int32_t output_offset; /* output zero point, -128..127 */
  int32_t act_min;
  int32_t act_max;
  int32_t filter_layout; /* utvm_filter_layout_t: how the filter's bytes are laid out */
} utvm_conv2d_params_t;

/* How a CONV_2D filter's bytes are laid out (utvm_conv2d_params_t.filter_layout), chosen at
 * compile time for the target core's kernels:
 * PLAIN: TFLite's, int8 [Co][KH][KW][Ci]; every core reads it (filters loaded from a .tflite).
 * DSP_S16: for the DSP kernels (CONV_2D and FULLY_CONNECTED; utvm_conv2d_s8_pack_filter):
 *   the values widened to int16,
 *   the output channels in pairs (a last odd one paired with zeros); per pair, each group of 4
 *   of the KH*KW*Ci values as the first channel's values 0, 2, 1, 3 (the order of SXTB16's
 *   halves) then the second's, and the last (KH*KW*Ci) % 4 values one pair at a time; the
 *   filter word-aligned. Only a build with the DSP kernels runs it, on a convolution that is
 *   not grouped, with its scratch, word-aligned (else UTVM_ERR_KERNEL_BAD_PARAM).
 * MVE_TERMS: for the MVE kernels (CONV_2D and FULLY_CONNECTED): TFLite's int8 values, zeros up
 *   to a multiple of 4 bytes, then per output channel one little-endian int32, input_offset
 *   times the sum of the channel's values (modulo 2^32, as the accumulator wraps): the term each
 *   accumulator starts from, bias aside. Only a build with the MVE kernels runs it, on a
 *   convolution that is not grouped, with its scratch, word-aligned (else
 *   UTVM_ERR_KERNEL_BAD_PARAM). */
typedef enum {
  UTVM_FILTER_PLAIN = 0,
  UTVM_FILTER_DSP_S16 = 1,
  UTVM_FILTER_MVE_TERMS = 2
} utvm_filter_layout_t;

/* The filter layouts this build's utvm_conv2d_s8 (and utvm_fully_connected_s8's weights) reads:
 * bit (1 << utvm_filter_layout_t). */
#if defined(__ARM_FEATURE_MVE)
#define UTVM_KERNELS_FILTER_LAYOUTS \
  ((1u << (uint32_t)UTVM_FILTER_PLAIN) | (1u << (uint32_t)UTVM_FILTER_MVE_TERMS))
#elif defined(__ARM_FEATURE_DSP)
#define UTVM_KERNELS_FILTER_LAYOUTS \
  ((1u << (uint32_t)UTVM_FILTER_PLAIN) | (1u << (uint32_t)UTVM_FILTER_DSP_S16))
#else
#define UTVM_KERNELS_FILTER_LAYOUTS (1u << (uint32_t)UTVM_FILTER_PLAIN)
#endif

/* This build's kernels as one int (what the kernel function utvm_k_kernels answers a host):
 * UTVM_KERNELS_NATIVE in bits 0..7, UTVM_KERNELS_FILTER_LAYOUTS in bits 8..15, bit 16 set when
 * the float32 operators are left out (UTVM_HAVE_F32 0; clear in firmware of before the bit,
 * which built them everywhere); and the three read back from such a value. */
#if UTVM_HAVE_F32
#define UTVM_KERNELS_INFO_F32_BIT_ 0u
#else
#define UTVM_KERNELS_INFO_F32_BIT_ (1u << 16u)
#endif
#define UTVM_KERNELS_INFO                                                                  \
  ((int64_t)(((uint32_t)UTVM_KERNELS_FILTER_LAYOUTS << 8u) | (uint32_t)UTVM_KERNELS_NATIVE | \
             UTVM_KERNELS_INFO_F32_BIT_))
#define UTVM_KERNELS_INFO_CORE(value) ((int64_t)((uint64_t)(value) & 0xFFu))
#define UTVM_KERNELS_INFO_LAYOUTS(value) ((int64_t)(((uint64_t)(value) >> 8u) & 0xFFu))
#define UTVM_KERNELS_INFO_NO_F32(value) ((((uint64_t)(value) >> 16u) & 1u) != 0u)

/* Bytes of a filter of filter_dims {Co, KH, KW, Ci} laid out as layout (0 for an unknown
 * layout or invalid dims). */
size_t utvm_conv2d_s8_filter_size(utvm_filter_layout_t layout, const utvm_dims_t *filter_dims);

/* Writes TFLite's int8 filter (filter_dims) laid out as layout into dst (cap bytes, at least
 * utvm_conv2d_s8_filter_size; the caller owns both); input_offset (-input zero point, -127..128)
 * is the call's, which MVE_TERMS folds in (the other layouts ignore it). UTVM_ERR_KERNEL_BAD_PARAM
 * for an unknown layout, an input_offset out of range or a dst too small,
 * UTVM_ERR_KERNEL_BAD_SHAPE for invalid dims. */
utvm_err_t utvm_conv2d_s8_pack_filter(utvm_filter_layout_t layout, const utvm_dims_t *filter_dims,
                                      int32_t input_offset, const int8_t *filter, void *dst,
                                      size_t cap);

/* Bytes of scratch utvm_conv2d_s8 needs for these shapes on this build's core
 * (UTVM_KERNELS_NATIVE): 0 for the portable kernel; on cores with the DSP extension
 * (__ARM_FEATURE_DSP) two int16 im2col columns, 4*KH*KW*Ci, when not grouped; with MVE
 * (__ARM_FEATURE_MVE) the same bytes, as four int8 columns. */
size_t utvm_conv2d_s8_scratch_size(const utvm_dims_t *input_dims, const utvm_dims_t *filter_dims,
                                   const utvm_dims_t *output_dims);

/* The same for the kernels of another core, so that a host tool plans a target's memory
 * (0 for invalid shapes or an unknown core). */
size_t utvm_conv2d_s8_scratch_size_for(utvm_kernels_core_t core, const utvm_dims_t *input_dims,
                                       const utvm_dims_t *filter_dims,
                                       const utvm_dims_t *output_dims);

/* CONV_2D: input [N,H,W,Ci], filter [Co,KH,KW,Ci/groups] (grouped when Ci > filter c) laid out
 * as params->filter_layout, bias [Co] or NULL, output [N,OH,OW,Co]. scratch:
 * utvm_conv2d_s8_scratch_size bytes (may be NULL if 0; a DSP or MVE build given NULL runs the
 * portable loops, with the same result, for a PLAIN filter). */
utvm_err_t utvm_conv2d_s8(const utvm_conv2d_params_t *params, const utvm_per_channel_quant_t *quant,
                          const utvm_dims_t *input_dims, const int8_t *input,
                          const utvm_dims_t *filter_dims, const int8_t *filter, const int32_t *bias,
                          const utvm_dims_t *output_dims, int8_t *output, void *scratch);

/* ---- DEPTHWISE_CONV_2D ---- */

typedef struct {
  int32_t stride_h;
  int32_t stride_w;
  int32_t dilation_h;
  int32_t dilation_w;
  int32_t pad_top;
  int32_t pad_left;
  int32_t depth_multiplier; /* output channels per input channel */
  int32_t input_offset;
  int32_t output_offset;
  int32_t act_min;
  int32_t act_max;
} utvm_depthwise_conv2d_params_t;

/* Bytes of scratch utvm_depthwise_conv2d_s8 needs on this build's core (UTVM_KERNELS_NATIVE):
 * 0 but for one input channel (Ci = 1, M > 1) on cores with the DSP extension or MVE, which
 * run the layer as utvm_conv2d_s8 with the filter transposed into scratch: the filter's bytes
 * rounded up to 4, then utvm_conv2d_s8_scratch_size of the convolution. */
size_t utvm_depthwise_conv2d_s8_scratch_size(const utvm_dims_t *input_dims,
                                             const utvm_dims_t *filter_dims,
                                             const utvm_dims_t *output_dims);

/* The same for the kernels of another core (0 for invalid shapes or an unknown core). */
size_t utvm_depthwise_conv2d_s8_scratch_size_for(utvm_kernels_core_t core,
                                                 const utvm_dims_t *input_dims,
                                                 const utvm_dims_t *filter_dims,
                                                 const utvm_dims_t *output_dims);

/* DEPTHWISE_CONV_2D: input [N,H,W,Ci], filter [1,KH,KW,Ci*M], bias [Ci*M] or NULL, output
 * [N,OH,OW,Ci*M]; output channel ci*M+m reads input channel ci. scratch:
 * utvm_depthwise_conv2d_s8_scratch_size bytes, word-aligned (may be NULL: the depthwise loops
 * run, with the same result). */
utvm_err_t utvm_depthwise_conv2d_s8(const utvm_depthwise_conv2d_params_t *params,
                                    const utvm_per_channel_quant_t *quant,
                                    const utvm_dims_t *input_dims, const int8_t *input,
                                    const utvm_dims_t *filter_dims, const int8_t *filter,
                                    const int32_t *bias, const utvm_dims_t *output_dims,
                                    int8_t *output, void *scratch);

/* ---- CONV_2D and DEPTHWISE_CONV_2D int8 in place ----
 * The output over its own input in one buffer of max(input, output) bytes, for a planner that
 * places a layer's output over an input that dies there: data holds the input from its start
 * before the call and the output from its start after it. Output rows are computed a band at a
 * time (about 2 KB of output per call, at most a quarter of the rows, half for a window one row
 * tall; from the last row when the output is larger) by utvm_conv2d_s8 /
 * utvm_depthwise_conv2d_s8 into scratch, each row
 * copied into data once no row still to compute reads the input bytes under it (until then it
 * waits in a ring in scratch); the result is the out-of-place kernel's, byte for byte. Shapes
 * that can run in place: batch 1, at most UTVM_KERNELS_INPLACE_MAX_ROWS rows, and the band and
 * the waiting rows at most half the output (e.g. 1 waiting row for a 3x3 window of stride 1,
 * none for a 1x1).
 * Aliasing: utvm_conv2d_s8 and utvm_depthwise_conv2d_s8 themselves still need an output that
 * does not overlap the input; the in-place entries decide when a kernel may run over its own
 * input. utvm_conv2d_s8_inplace runs a 1x1 convolution of stride 1 without padding whose
 * output channels are at most its input channels and at most the smaller of
 * UTVM_KERNELS_CHANNEL_BLOCK and UTVM_KERNELS_MVE_CHANNEL_BLOCK as ONE call of utvm_conv2d_s8
 * with output == input on DSP and MVE cores (their paths read a block of positions' input
 * bytes, all of them, before they write those positions' outputs, positions in order, every
 * channel in one pass; output position p's bytes start at or before input position p's); its
 * scratch is then the kernel's own. Other shapes, and every shape on the portable core, run in
 * bands as above. */

/* Most output rows of a convolution run in place (the ring's size is worked out row by row). */
#ifndef UTVM_KERNELS_INPLACE_MAX_ROWS
#define UTVM_KERNELS_INPLACE_MAX_ROWS 4096
#endif

/* Bytes of scratch utvm_conv2d_s8_inplace needs on core: utvm_conv2d_s8_scratch_size_for for
 * a 1x1 convolution that runs as one call (above), else the kernel's scratch rounded up to 4,
 * then the band and the ring; 0 when these shapes cannot run in place (or a pointer is NULL). */
size_t utvm_conv2d_s8_inplace_scratch_size_for(utvm_kernels_core_t core,
                                               const utvm_conv2d_params_t *params,
                                               const utvm_dims_t *input_dims,
                                               const utvm_dims_t *filter_dims,
                                               const utvm_dims_t *output_dims);

/* The same on this build's core (UTVM_KERNELS_NATIVE). */
size_t utvm_conv2d_s8_inplace_scratch_size(const utvm_conv2d_params_t *params,
                                           const utvm_dims_t *input_dims,
                                           const utvm_dims_t *filter_dims,
                                           const utvm_dims_t *output_dims);

/* CONV_2D (as utvm_conv2d_s8) in place over data. scratch: the size above for this build's
 * core (UTVM_KERNELS_NATIVE), word-aligned. UTVM_ERR_KERNEL_BAD_SHAPE for shapes that cannot
 * run in place, BAD_PARAM for a NULL pointer or (a 1x1 convolution run as one call) a scratch
 * that is not word-aligned, else the kernel's error. */
utvm_err_t utvm_conv2d_s8_inplace(const utvm_conv2d_params_t *params,
                                  const utvm_per_channel_quant_t *quant,
                                  const utvm_dims_t *input_dims, const utvm_dims_t *filter_dims,
                                  const int8_t *filter, const int32_t *bias,
                                  const utvm_dims_t *output_dims, int8_t *data, void *scratch);

/* Bytes of scratch utvm_depthwise_conv2d_s8_inplace needs on this build's core: the kernel's
 * scratch rounded up to 4, then the ring; 0 when these shapes cannot run in place. */
size_t utvm_depthwise_conv2d_s8_inplace_scratch_size(const utvm_depthwise_conv2d_params_t *params,
                                                     const utvm_dims_t *input_dims,
                                                     const utvm_dims_t *filter_dims,
                                                     const utvm_dims_t *output_dims);

/* The same for the kernels of another core. */
size_t utvm_depthwise_conv2d_s8_inplace_scratch_size_for(
    utvm_kernels_core_t core, const utvm_depthwise_conv2d_params_t *params,
    const utvm_dims_t *input_dims, const utvm_dims_t *filter_dims, const utvm_dims_t *output_dims);

/* DEPTHWISE_CONV_2D (as utvm_depthwise_conv2d_s8) in place over data; errors as
 * utvm_conv2d_s8_inplace. */
utvm_err_t utvm_depthwise_conv2d_s8_inplace(const utvm_depthwise_conv2d_params_t *params,
                                            const utvm_per_channel_quant_t *quant,
                                            const utvm_dims_t *input_dims,
                                            const utvm_dims_t *filter_dims, const int8_t *filter,
                                            const int32_t *bias, const utvm_dims_t *output_dims,
                                            int8_t *data, void *scratch);

/* FULLY_CONNECTED's parameters (its kernels are below). */
typedef struct {
  int32_t input_offset;  /* -input zero point */
  int32_t filter_offset; /* -filter zero point; 0 for per-channel weights (TFLite has none) */
  int32_t output_offset;
  int32_t act_min;
  int32_t act_max;
  int32_t weights_layout; /* utvm_filter_layout_t of the weights {units, 1, 1, depth}: PLAIN,
                             DSP_S16 (DSP builds) or MVE_TERMS (MVE builds); int8 activations
                             only */
} utvm_fully_connected_params_t;

/* ---- A stage of CONV_2D / DEPTHWISE_CONV_2D int8 layers, patch by patch ----
 * The first layers of a CNN (each reading the whole output of the one before) run without
 * holding their intermediate tensors: the last layer's output is computed in `patches` bands of
 * rows, and each layer computes its rows a band at a time (ceil(its rows / patches), at least
 * one row, per kernel call) when the next layer needs them, into a line buffer in scratch that
 * holds the rows the next layer's next call reads. Rows two calls share stay in the line buffer
 * (nothing is computed twice); the result is the layer-by-layer result, byte for byte. Input
 * and output are whole tensors; with input == output the output is written over the input
 * (allowed when every output band lands on input rows no call reads any more, which the sizing
 * checks). Limits: batch 1, UTVM_KERNELS_STAGE_MAX_LAYERS layers, UTVM_KERNELS_INPLACE_MAX_ROWS
 * rows per tensor. */

/* Most layers of a stage. */
#ifndef UTVM_KERNELS_STAGE_MAX_LAYERS
#define UTVM_KERNELS_STAGE_MAX_LAYERS 16u
#endif

/* One layer as utvm_conv2d_s8 (conv set), utvm_depthwise_conv2d_s8 (depthwise set) or, as the
 * last of two or more, utvm_fully_connected_s8 of one batch (fully_connected set: it adds each
 * band of the layer before to its accumulators, so that layer's output is never whole either)
 * takes it, exactly one of the three set; dims[0..2]: input, filter, output (fully connected:
 * the input as the layer before writes it, filter {units, 1, 1, depth}, output {1, 1, 1,
 * units}). Pointers only: the caller owns all of it. */
typedef struct {
  const utvm_conv2d_params_t *conv;
  const utvm_depthwise_conv2d_params_t *depthwise;
  const utvm_per_channel_quant_t *quant;
  const utvm_dims_t *dims;
  const int8_t *filter;
  const int32_t *bias;
  const utvm_fully_connected_params_t *fully_connected;
} utvm_stage_layer_s8_t;

/* What the sizing needs of a layer (utvm_stage_s8_shape, or a planner's own decoding). */
typedef struct {
  utvm_dims_t input;
  utvm_dims_t output;
  int32_t filter_h;
  int32_t stride_h;
  int32_t dilation_h;
  int32_t pad_top;
  size_t kernel_scratch; /* bytes of the layer's kernel scratch on the core planned for */
  bool fully_connected;  /* a FULLY_CONNECTED last layer (the window fields unused) */
} utvm_stage_shape_t;

/* Work a stage does (utvm_stage_s8_stats). */
typedef struct {
  uint64_t calls;        /* kernel calls (one per layer without patches) */
  uint64_t copied_bytes; /* line-buffer bytes moved to the front */
  uint64_t buffer_bytes; /* bytes of the line buffers */
} utvm_stage_stats_t;

/* The shape of layer for core's kernels. BAD_PARAM for a NULL pointer or not exactly one of
 * conv and depthwise set. */
utvm_err_t utvm_stage_s8_shape(utvm_kernels_core_t core, const utvm_stage_layer_s8_t *layer,
                               utvm_stage_shape_t *shape);

/* Bytes of scratch utvm_stage_s8 needs for layers of these shapes (the largest kernel scratch,
 * then each line buffer, word-aligned) into *bytes. BAD_SHAPE when they cannot run as a stage
 * (see above; inplace: an output band would land on input rows still to read), BAD_PARAM for
 * bytes NULL. */
utvm_err_t utvm_stage_s8_scratch_size(const utvm_stage_shape_t *shapes, uint32_t n,
                                      uint32_t patches, bool inplace, size_t *bytes);

/* The calls, moved bytes and line-buffer bytes of the stage (not in place); BAD_SHAPE as
 * above. */
utvm_err_t utvm_stage_s8_stats(const utvm_stage_shape_t *shapes, uint32_t n, uint32_t patches,
                               utvm_stage_stats_t *stats);

/* Runs the n layers over input into output (the same pointer: in place) through scratch
 * (scratch_bytes, word-aligned, at least the size above for this build's core). BAD_PARAM for
 * NULL pointers or too little scratch, BAD_SHAPE as above, else the first kernel error. */
utvm_err_t utvm_stage_s8(const utvm_stage_layer_s8_t *layers, uint32_t n, uint32_t patches,
                         const int8_t *input, int8_t *output, void *scratch,
                         size_t scratch_bytes);

/* ---- FULLY_CONNECTED ---- */


/* Bytes of scratch utvm_fully_connected_s8 needs (0 for the portable kernel). */
size_t utvm_fully_connected_s8_scratch_size(int32_t batches, int32_t input_depth,
                                            int32_t output_depth);

/* FULLY_CONNECTED: input [batches, input_depth] (any input flattened so), filter
 * [output_depth, input_depth] laid out as params->weights_layout (DSP_S16 or MVE_TERMS: as
 * the filter {output_depth, 1, 1, input_depth} of a convolution, word-aligned, on DSP or MVE
 * builds only; else BAD_PARAM), bias [output_depth] or NULL, output [batches, output_depth]. */
utvm_err_t utvm_fully_connected_s8(const utvm_fully_connected_params_t *params,
                                   const utvm_per_channel_quant_t *quant, int32_t batches,
                                   int32_t input_depth, int32_t output_depth, const int8_t *input,
                                   const int8_t *filter, const int32_t *bias, int8_t *output,
                                   void *scratch);

/* ---- CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED with int16 activations (int16x8) ---- */

/* The accumulator of an int16x8 layer, as TFLM chooses it: 64-bit sums rescaled with its 64-bit
 * multiply (an int64 bias, TFLite's default), or 32-bit sums (wrapping) rescaled with the 32-bit
 * multiply (an int32 bias, or no bias and quantized_bias_type INT32). */
typedef enum { UTVM_ACCUMULATE_64 = 0, UTVM_ACCUMULATE_32 = 1 } utvm_accumulator_t;

/* CONV_2D with int16 input and output (zero points 0: input_offset and output_offset must be
 * 0), int8 weights as utvm_conv2d_s8; bias [Co] of int64 (UTVM_ACCUMULATE_64) or int32
 * (UTVM_ACCUMULATE_32), or NULL; act_min/act_max within int16; shifts -31..7 with the 64-bit
 * accumulator. BAD_PARAM / BAD_SHAPE as utvm_conv2d_s8. */
utvm_err_t utvm_conv2d_s16(const utvm_conv2d_params_t *params,
                           const utvm_per_channel_quant_t *quant, utvm_accumulator_t acc,
                           const utvm_dims_t *input_dims, const int16_t *input,
                           const utvm_dims_t *filter_dims, const int8_t *filter, const void *bias,
                           const utvm_dims_t *output_dims, int16_t *output);

/* DEPTHWISE_CONV_2D with int16 input and output (offsets 0), int8 weights, int64 bias or NULL
 * (TFLM's int16 depthwise has only the 64-bit accumulator). */
utvm_err_t utvm_depthwise_conv2d_s16(const utvm_depthwise_conv2d_params_t *params,
                                     const utvm_per_channel_quant_t *quant,
                                     const utvm_dims_t *input_dims, const int16_t *input,
                                     const utvm_dims_t *filter_dims, const int8_t *filter,
                                     const int64_t *bias, const utvm_dims_t *output_dims,
                                     int16_t *output);

/* FULLY_CONNECTED with int16 input and output (input_offset and output_offset 0), int8
 * weights in TFLite's layout (weights_layout PLAIN; filter_offset for per-tensor weights), bias
 * of the accumulator's type or NULL. */
utvm_err_t utvm_fully_connected_s16(const utvm_fully_connected_params_t *params,
                                    const utvm_per_channel_quant_t *quant,
                                    utvm_accumulator_t acc, int32_t batches, int32_t input_depth,
                                    int32_t output_depth, const int16_t *input,
                                    const int8_t *filter, const void *bias, int16_t *output);

/* ---- TRANSPOSE_CONV ---- */

/* Bytes of scratch utvm_transpose_conv needs: one sum per output element, int32 for int8
 * (element_size 1), int64 for int16 (2); 0 for invalid dims. */
size_t utvm_transpose_conv_scratch_size(int32_t element_size, const utvm_dims_t *output_dims);

/* TRANSPOSE_CONV: input [N,H,W,Ci] of element_size 1 (int8) or 2 (int16: offsets 0, shifts up
 * to 7), filter [Co,KH,KW,Ci] int8, bias [Co] of int32 (int8) or int64 (int16) or NULL, output
 * [N,OH,OW,Co]; params as a convolution's (dilations 1; pad_top/pad_left the padding of the
 * forward convolution from output to input). scratch: utvm_transpose_conv_scratch_size bytes.
 * BAD_PARAM for NULL pointers or parameters or shapes out of range. */
utvm_err_t utvm_transpose_conv(const utvm_conv2d_params_t *params,
                               const utvm_per_channel_quant_t *quant, int32_t element_size,
                               const utvm_dims_t *input_dims, const void *input,
                               const utvm_dims_t *filter_dims, const int8_t *filter,
                               const void *bias, const utvm_dims_t *output_dims, void *output,
                               void *scratch);

/* ---- BATCH_MATMUL ---- */

typedef struct {
  int32_t batch[3];       /* output batch dimensions (leading ones 1) */
  int32_t lhs_batch[3];   /* each 1 (broadcast) or batch[d] */
  int32_t rhs_batch[3];
  int32_t rows;           /* output [.., rows, cols], depth summed */
  int32_t depth;
  int32_t cols;
  int32_t adj_x;          /* 1: lhs is stored [depth, rows] */
  int32_t adj_y;          /* 1: rhs is stored [cols, depth] */
  int32_t element_size;   /* 1 int8, 2 int16 (zero points 0) */
  int32_t lhs_offset;     /* -lhs zero point */
  int32_t rhs_offset;     /* -rhs zero point */
  int32_t output_offset;  /* output zero point */
  int32_t multiplier;     /* lhs scale x rhs scale / output scale */
  int32_t shift;          /* -31..31 (int16: up to 7) */
} utvm_batch_matmul_params_t;

/* BATCH_MATMUL (TFLite's reference: int8 with 32-bit sums, int16 with 64-bit sums; no fused
 * activation). BAD_PARAM for NULL pointers or parameters out of range (sizes, broadcasting,
 * offsets, an operand over 2^31 elements). */
utvm_err_t utvm_batch_matmul(const utvm_batch_matmul_params_t *params, const void *lhs,
                             const void *rhs, void *output);

/* ---- SVDF ---- */

typedef struct {
  int32_t batches;
  int32_t input_size;
  int32_t filters;          /* units x rank */
  int32_t rank;
  int32_t memory_size;
  int32_t state_bits;       /* 8 or 16: the type of the state and the time weights */
  int32_t input_offset;     /* -input zero point */
  int32_t state_zero_point;
  int32_t output_offset;    /* output zero point */
  int32_t multiplier_1;     /* input x feature weights -> state */
  int32_t shift_1;
  int32_t multiplier_2;     /* state x time weights -> output */
  int32_t shift_2;
} utvm_svdf_params_t;

/* Bytes of int32 scratch utvm_svdf_s8 needs: batches x (filters + units) x 4 (0 for invalid
 * parameters). */
size_t utvm_svdf_s8_scratch_size(const utvm_svdf_params_t *params);

/* SVDF, int8 input [batches, input_size] and output [batches, units]: weights_feature int8
 * [filters, input_size], weights_time [filters, memory_size] and the state [batches, filters x
 * memory_size] both int8 or both int16 (state_bits), bias int32 [units] or NULL. The state is
 * read and updated in place (the caller keeps it between calls). TFLM's integer SVDF applies no
 * fused activation (only the int8 clamp): neither does this. BAD_PARAM for NULL pointers (the
 * scratch included) or parameters out of range. */
utvm_err_t utvm_svdf_s8(const utvm_svdf_params_t *params, const int8_t *input,
                        const int8_t *weights_feature, const void *weights_time,
                        const int32_t *bias, void *state, int8_t *output, void *scratch);

/* ---- UNIDIRECTIONAL_SEQUENCE_LSTM ---- */

/* The gates, in TFLite's order of the LSTM's weights and biases. */
#define UTVM_LSTM_GATES 4

typedef struct {
  int32_t batches;
  int32_t time_steps;
  int32_t input_size;
  int32_t cell_size;                  /* units: the width of both states */
  int32_t time_major;                 /* 1: input [time_steps, batches, input_size] and output
                                         [time_steps, batches, cell_size]; 0: batches first */
  int32_t act_bits;                   /* 8: int8 input, hidden state and output, int32 biases;
                                         16: int16 and int64 biases */
  int32_t input_offset;               /* -input zero point */
  int32_t hidden_zero_point;          /* hidden state (and output) zero point */
  int32_t input_multiplier[UTVM_LSTM_GATES];     /* input x weights -> gate (Q3.12) */
  int32_t input_shift[UTVM_LSTM_GATES];
  int32_t recurrent_multiplier[UTVM_LSTM_GATES]; /* hidden state x weights -> gate (Q3.12) */
  int32_t recurrent_shift[UTVM_LSTM_GATES];
  int32_t forget_multiplier;          /* forget gate x cell -> cell */
  int32_t forget_shift;
  int32_t update_multiplier;          /* input gate x cell gate -> cell */
  int32_t update_shift;
  int32_t output_multiplier;          /* output gate x tanh(cell) -> hidden state */
  int32_t output_shift;
  int32_t cell_clip;                  /* |cell| bound in cell units, 0: none */
  int32_t cell_tanh_multiplier;       /* tanh(cell)'s input rescale (utvm_tanh_s16) */
  int32_t cell_tanh_shift;
} utvm_lstm_params_t;

/* The constant operands, gates in the order input, forget, cell, output. */
typedef struct {
  const int8_t *input_weights[UTVM_LSTM_GATES];     /* [cell_size, input_size] */
  const int8_t *recurrent_weights[UTVM_LSTM_GATES]; /* [cell_size, cell_size] */
  const void *biases[UTVM_LSTM_GATES];              /* [cell_size]: int32 (act_bits 8) or int64 */
} utvm_lstm_weights_t;

/* Bytes of scratch utvm_lstm needs: four int16 gate rows of cell_size per batch run at once
 * (batches when time-major, else 1); 0 for invalid parameters. */
size_t utvm_lstm_scratch_size(const utvm_lstm_params_t *params);

/* UNIDIRECTIONAL_SEQUENCE_LSTM as TFLM's integer LSTM (no peepholes, projection or layer
 * norm): per step, each gate is a saturated sum of two int16 (Q3.12) matmuls, sigmoid (tanh for
 * the cell gate); the int16 cell and the hidden state (act_bits wide) are read and updated in
 * place (the caller keeps them between calls) and each step's hidden state is written to the
 * output. BAD_PARAM for NULL pointers (scratch included) or parameters out of range. */
utvm_err_t utvm_lstm(const utvm_lstm_params_t *params, const utvm_lstm_weights_t *weights,
                     const void *input, void *hidden_state, int16_t *cell_state, void *output,
                     void *scratch);

/* ---- AVERAGE_POOL_2D, MAX_POOL_2D ---- */

typedef struct {
  int32_t stride_h;
  int32_t stride_w;
  int32_t filter_h;
  int32_t filter_w;
  int32_t pad_top;
  int32_t pad_left;
  int32_t act_min;
  int32_t act_max;
} utvm_pool2d_params_t;

/* AVERAGE_POOL_2D (input and output share scale and zero point): each output is the rounded
 * mean of its window's in-bounds inputs; input [N,H,W,C], output [N,OH,OW,C]. BAD_SHAPE if a
 * window has no input inside. */
utvm_err_t utvm_avg_pool2d_s8(const utvm_pool2d_params_t *params, const utvm_dims_t *input_dims,
                              const int8_t *input, const utvm_dims_t *output_dims, int8_t *output);

/* MAX_POOL_2D: the maximum of each window's in-bounds inputs, clamped to the activation. */
utvm_err_t utvm_max_pool2d_s8(const utvm_pool2d_params_t *params, const utvm_dims_t *input_dims,
                              const int8_t *input, const utvm_dims_t *output_dims, int8_t *output);

/* AVERAGE_POOL_2D and MAX_POOL_2D of int16 (zero point 0, TFLM's int16 arithmetic: that of
 * int8 on int16 values; the activation range within int16; AVERAGE: windows of at most 2^15
 * elements). */
utvm_err_t utvm_avg_pool2d_s16(const utvm_pool2d_params_t *params, const utvm_dims_t *input_dims,
                               const int16_t *input, const utvm_dims_t *output_dims,
                               int16_t *output);
utvm_err_t utvm_max_pool2d_s16(const utvm_pool2d_params_t *params, const utvm_dims_t *input_dims,
                               const int16_t *input, const utvm_dims_t *output_dims,
                               int16_t *output);

/* ---- ADD, MUL (broadcasting) ---- */

typedef struct {
  int32_t input1_offset; /* -zero point, -127..128 */
  int32_t input2_offset;
  int32_t output_offset;
  int32_t left_shift; /* 20 for int8 (TFLite), 0..23 */
  int32_t input1_multiplier;
  int32_t input1_shift; /* -31..0 */
  int32_t input2_multiplier;
  int32_t input2_shift;
  int32_t output_multiplier;
  int32_t output_shift; /* -31..0 */
  int32_t act_min;
  int32_t act_max;
} utvm_add_params_t;

typedef struct {
  int32_t input1_offset;
  int32_t input2_offset;
  int32_t output_offset;
  int32_t output_multiplier;
  int32_t output_shift;
  int32_t act_min;
  int32_t act_max;
} utvm_mul_params_t;

/* ADD with numpy/TFLite broadcasting: shapes align at their last dimension, and each input
 * dimension equals the output's or is 1. Output may alias an input of the output's shape. */
utvm_err_t utvm_add_s8(const utvm_add_params_t *params, const utvm_shape_t *input1_shape,
                       const int8_t *input1, const utvm_shape_t *input2_shape,
                       const int8_t *input2, const utvm_shape_t *output_shape, int8_t *output);

/* MUL with the same broadcasting rules as utvm_add_s8. */
utvm_err_t utvm_mul_s8(const utvm_mul_params_t *params, const utvm_shape_t *input1_shape,
                       const int8_t *input1, const utvm_shape_t *input2_shape,
                       const int8_t *input2, const utvm_shape_t *output_shape, int8_t *output);

/* ---- Element-wise operators (RELU family, ABS, LEAKY_RELU; MINIMUM, MAXIMUM, SUB, int16 ADD
 * and MUL): int8 unary operators run as a 256-entry table, int16 ones as piecewise-linear
 * arithmetic; binary ones broadcast as ADD ---- */

/* What the piecewise-linear map does with v = x - input zero point below 0. */
#define UTVM_PWL_SCALE 0  /* rescale(v) with the negative multiplier */
#define UTVM_PWL_ABS 1    /* rescale(-v): ABS */
#define UTVM_PWL_NEGATE 2 /* -rescale(v): LEAKY_RELU with a negative alpha */

/* y = output zero point + rescale(v) (TFLite's MultiplyByQuantizedMultiplier, the positive
 * or negative multiplier by the sign of v), clamped to [act_min, act_max]: TFLite's quantized
 * RELU, RELU6, RELU_N1_TO_1, LEAKY_RELU and ABS. */
typedef struct {
  int32_t input_zero_point;
  int32_t output_zero_point;
  int32_t positive_multiplier; /* >= 0 */
  int32_t positive_shift;      /* -31..31 */
  int32_t negative_multiplier; /* >= 0 */
  int32_t negative_shift;
  int32_t negative_mode;       /* UTVM_PWL_* */
  int32_t act_min;
  int32_t act_max;
} utvm_pwl_params_t;

/* The piecewise-linear map on int16 (zero points and range int16). Output may alias input. */
utvm_err_t utvm_pwl_s16(const utvm_pwl_params_t *params, int32_t size, const int16_t *input,
                        int16_t *output);

/* int8 through a table: output[i] = table[input[i] + 128]. Output may alias input. */
utvm_err_t utvm_lut_s8(const int8_t *table, int32_t size, const int8_t *input, int8_t *output);

/* MINIMUM or MAXIMUM of raw values (inputs and output share one quantization), broadcast as
 * ADD; elements of element_bytes 1 (int8) or 2 (int16). */
typedef struct {
  int32_t maximum;       /* 1: MAXIMUM, 0: MINIMUM */
  int32_t element_bytes; /* 1 or 2 */
} utvm_minmax_params_t;

utvm_err_t utvm_minmax(const utvm_minmax_params_t *params, const utvm_shape_t *input1_shape,
                       const void *input1, const utvm_shape_t *input2_shape, const void *input2,
                       const utvm_shape_t *output_shape, void *output);

/* SUB, int8: ADD's arithmetic with the scaled second input subtracted (params from
 * utvm_sub_params). */
utvm_err_t utvm_sub_s8(const utvm_add_params_t *params, const utvm_shape_t *input1_shape,
                       const int8_t *input1, const utvm_shape_t *input2_shape,
                       const int8_t *input2, const utvm_shape_t *output_shape, int8_t *output);

/* ADD and SUB on int16 (left shift 15; offsets and range int16, (|x| + |offset|) << left_shift
 * within int32). */
utvm_err_t utvm_add_s16(const utvm_add_params_t *params, const utvm_shape_t *input1_shape,
                        const int16_t *input1, const utvm_shape_t *input2_shape,
                        const int16_t *input2, const utvm_shape_t *output_shape,
                        int16_t *output);
utvm_err_t utvm_sub_s16(const utvm_add_params_t *params, const utvm_shape_t *input1_shape,
                        const int16_t *input1, const utvm_shape_t *input2_shape,
                        const int16_t *input2, const utvm_shape_t *output_shape,
                        int16_t *output);

/* SQUARED_DIFFERENCE on int8 (left shift 7) and int16 (0; zero points 0), broadcasting, with
 * ADD's parameter struct (utvm_squared_difference_params; output shift -31..31). BAD_PARAM for
 * parameters out of range, BAD_SHAPE unless the shapes broadcast. */
utvm_err_t utvm_squared_difference_s8(const utvm_add_params_t *params,
                                      const utvm_shape_t *input1_shape, const int8_t *input1,
                                      const utvm_shape_t *input2_shape, const int8_t *input2,
                                      const utvm_shape_t *output_shape, int8_t *output);
utvm_err_t utvm_squared_difference_s16(const utvm_add_params_t *params,
                                       const utvm_shape_t *input1_shape, const int16_t *input1,
                                       const utvm_shape_t *input2_shape, const int16_t *input2,
                                       const utvm_shape_t *output_shape, int16_t *output);

/* MUL on int16 (zero points 0, as TFLM requires). */
utvm_err_t utvm_mul_s16(const utvm_mul_params_t *params, const utvm_shape_t *input1_shape,
                        const int16_t *input1, const utvm_shape_t *input2_shape,
                        const int16_t *input2, const utvm_shape_t *output_shape,
                        int16_t *output);

/* ---- SOFTMAX, LOGISTIC, TANH ---- */

typedef struct {
  int32_t input_multiplier;
  int32_t input_left_shift; /* 0..31 */
  int32_t diff_min;         /* <= 0: inputs further below the row maximum give -128 */
} utvm_softmax_params_t;

/* SOFTMAX over the last dimension: rows x depth int8 -> int8 with scale 1/256, zero point
 * -128. BAD_SHAPE (rows before it written) where TFLite's check fails: a row's sum of
 * exponentials reaches 512, e.g. 512 inputs equal to the row maximum. */
utvm_err_t utvm_softmax_s8(const utvm_softmax_params_t *params, int32_t rows, int32_t depth,
                           const int8_t *input, int8_t *output);

/* SOFTMAX int8 -> int16 (output scale 1/65536, zero point -32768): utvm_softmax_s8's
 * arithmetic with TFLite's int16 output exponent. */
utvm_err_t utvm_softmax_s8_s16(const utvm_softmax_params_t *params, int32_t rows, int32_t depth,
                               const int8_t *input, int16_t *output);

/* Entries of the int16 softmax tables, and the longest row (its sum of exponentials fits
 * int32). */
#define UTVM_SOFTMAX_LUT_SIZE 513
#define UTVM_SOFTMAX_S16_MAX_DEPTH 65536

/* TFLM's int16 softmax tables (LUTPopulate<int16_t>): exp over [-10, 0] and 1 / (1 + x) over
 * [0, 1], both in Q0.15. */
extern const int16_t utvm_softmax_exp_lut[UTVM_SOFTMAX_LUT_SIZE];
extern const int16_t utvm_softmax_recip_lut[UTVM_SOFTMAX_LUT_SIZE];

/* SOFTMAX int16 -> int16 (input zero point 0, output scale 1/32768 and zero point 0): params'
 * input_multiplier and input_left_shift (-31..31) scale the differences to the row maximum
 * onto [-65535, 0] = [-10, 0] (diff_min unused). BAD_SHAPE for rows of more than
 * UTVM_SOFTMAX_S16_MAX_DEPTH. */
utvm_err_t utvm_softmax_s16(const utvm_softmax_params_t *params, int32_t rows, int32_t depth,
                            const int16_t *input, int16_t *output);

typedef struct {
  int32_t input_zero_point;
  int32_t input_range_radius; /* inputs this far from the zero point saturate */
  int32_t input_multiplier;
  int32_t input_left_shift; /* -31..31 */
} utvm_logistic_params_t;

/* TANH shares LOGISTIC's parameters (computed by utvm_tanh_params_s8). */
typedef utvm_logistic_params_t utvm_tanh_params_t;

/* LOGISTIC, element-wise: output scale 1/256, zero point -128. Output may alias input. */
utvm_err_t utvm_logistic_s8(const utvm_logistic_params_t *params, int32_t size,
                            const int8_t *input, int8_t *output);

/* TANH, element-wise: output scale 1/128, zero point 0. Output may alias input. */
utvm_err_t utvm_tanh_s8(const utvm_tanh_params_t *params, int32_t size, const int8_t *input,
                        int8_t *output);

/* ---- RESHAPE, SQUEEZE, PAD, SPLIT, CONCATENATION, MEAN ---- */

/* RESHAPE and SQUEEZE: the data does not change; copies size bytes unless input == output
 * (in place: nothing to do). Overlapping buffers are allowed. */
utvm_err_t utvm_reshape(const void *input, void *output, size_t size);

typedef struct {
  int32_t before[4]; /* elements added before each of n, h, w, c; >= 0 */
  int32_t after[4];  /* elements added after each dimension; >= 0 */
  int32_t pad_value; /* the output zero point for PAD, -128..127 */
} utvm_pad_params_t;

/* PAD: output [n+before[0]+after[0], h+.., w+.., c+..] holds the input at offset `before`
 * and pad_value elsewhere. */
utvm_err_t utvm_pad_s8(const utvm_pad_params_t *params, const utvm_dims_t *input_dims,
                       const int8_t *input, int8_t *output);

/* One output of SPLIT, SPLIT_V or UNPACK: the input seen as [outer, input_len, inner] elements
 * of element_size bytes, the output [outer, output_len, inner] from position begin of the middle
 * axis. */
typedef struct {
  int32_t outer;
  int32_t input_len;
  int32_t output_len;
  int32_t begin;
  int32_t inner;
  int32_t element_size; /* 1, 2 or 4 */
} utvm_split_params_t;

/* Copies one output of a split. UTVM_ERR_KERNEL_BAD_PARAM (NULL, element size not 1, 2 or 4),
 * UTVM_ERR_KERNEL_BAD_SHAPE (a size < 1, the block outside the input, the input over 2 GiB).
 * input and output must not overlap, except that output may be its own block of the input (a
 * planner's view, outer 1: nothing is copied). */
utvm_err_t utvm_split(const utvm_split_params_t *params, const void *input, void *output);

/* CONCATENATION along axis (negative counts from the end) of num_inputs tensors of equal rank
 * and equal other dimensions; every input and the output share scale and zero point. An input
 * that already is its block of the output (a planner's view) is not copied. */
utvm_err_t utvm_concatenation_s8(int32_t num_inputs, const int8_t *const *inputs,
                                 const utvm_shape_t *input_shapes, int32_t axis,
                                 const utvm_shape_t *output_shape, int8_t *output);

/* ---- Layout operators (any element size: 1, 2 or 4 bytes) ---- */

/* Highest rank of a strided copy. */
#define UTVM_STRIDED_COPY_MAX_RANK 6

/* A strided N-D copy (TRANSPOSE, SLICE, STRIDED_SLICE, DEPTH_TO_SPACE, SPACE_TO_DEPTH,
 * BATCH_TO_SPACE_ND): output element [i0..i(rank-1)] (row-major over dims) is input element
 * start + sum(i_d * strides[d]). */
typedef struct {
  int32_t element_size;   /* 1, 2 or 4 bytes */
  int32_t input_elements; /* elements of the input: every read lies within it */
  int32_t start;          /* the input element of output element 0 */
  int32_t rank;           /* 1..UTVM_STRIDED_COPY_MAX_RANK */
  int32_t dims[UTVM_STRIDED_COPY_MAX_RANK];    /* output dimensions (first rank), >= 1 */
  int32_t strides[UTVM_STRIDED_COPY_MAX_RANK]; /* input elements per step of each output
                                                  dimension (first rank; may be <= 0) */
} utvm_strided_copy_params_t;

/* Most inputs of a concatenation. */
#define UTVM_CONCAT_MAX_INPUTS 8

/* A concatenation of tensors of any element size along one axis (CONCATENATION int16 and
 * float32, PACK): input i is [outer, axis_sizes[i], inner], the output
 * [outer, sum of axis_sizes, inner]. */
typedef struct {
  int32_t element_size; /* 1, 2 or 4 bytes */
  int32_t n_inputs;     /* 1..UTVM_CONCAT_MAX_INPUTS */
  int32_t outer;        /* elements of the dimensions before the axis, >= 1 */
  int32_t inner;        /* elements of the dimensions after the axis, >= 1 */
  int32_t axis_sizes[UTVM_CONCAT_MAX_INPUTS]; /* first n_inputs >= 1 */
} utvm_concat_params_t;

/* The concatenation of params: BAD_PARAM for an element size other than 1, 2 or 4, an input
 * count out of range or NULL pointers, BAD_SHAPE for sizes < 1 or an output above INT32_MAX
 * elements. An input may be its own block of the output (a planner's view, outer 1: not
 * copied); otherwise inputs and output must not overlap. */
utvm_err_t utvm_concatenation(const utvm_concat_params_t *params, const void *const *inputs,
                              void *output);

/* The strided copy of params: BAD_PARAM for an element size other than 1, 2 or 4 or NULL
 * pointers, BAD_SHAPE for a rank, dimension or count out of range or a read outside the
 * input. */
utvm_err_t utvm_strided_copy(const utvm_strided_copy_params_t *params, const void *input,
                             void *output);

/* ---- Layout operators of issue 25, round 2 (PAD int16, PADV2, MIRROR_PAD, ...) ---- */

/* How PAD, PADV2 and MIRROR_PAD fill the border. */
typedef enum {
  UTVM_PAD_CONSTANT = 0,  /* pad_value */
  UTVM_PAD_REFLECT = 1,   /* mirrored without the edge: paddings up to the dimension - 1 */
  UTVM_PAD_SYMMETRIC = 2  /* mirrored with the edge: paddings up to the dimension */
} utvm_pad_mode_t;

typedef struct {
  int32_t element_size; /* 1, 2 or 4 bytes */
  int32_t mode;         /* utvm_pad_mode_t */
  int32_t before[4];    /* elements added before each of n, h, w, c; >= 0 */
  int32_t after[4];     /* elements added after each dimension; >= 0 */
  int32_t pad_value;    /* CONSTANT: the element written (within int8 or int16 for 1 or 2
                           bytes; the bits of a 4-byte element) */
} utvm_pad_any_params_t;

/* PAD, PADV2, MIRROR_PAD of any element size: output [n+before[0]+after[0], ...] holds the
 * input at offset `before` and the border of the mode. BAD_PARAM for NULL pointers, an element
 * size other than 1, 2 or 4, an unknown mode, a negative padding, a mirrored padding past its
 * limit or a pad value outside the element type; BAD_SHAPE for dimensions < 1 or an output
 * above INT32_MAX elements. input and output must not overlap. */
utvm_err_t utvm_pad(const utvm_pad_any_params_t *params, const utvm_dims_t *input_dims,
                    const void *input, void *output);

/* SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND: a space tensor [n, h, w, c] and a batch tensor
 * [n*block[0]*block[1], h', w', c] (3-D operators: w = 1, block[1] = 1). */
typedef struct {
  int32_t element_size; /* 1, 2 or 4 bytes */
  int32_t to_batch;     /* 1: space (input) to batch (output); 0: batch (input) to space */
  int32_t block[2];     /* block height and width, >= 1 */
  int32_t before[2];    /* padding (to batch) or crop (to space) at the top and left, >= 0 */
  int32_t pad_value;    /* to batch: the element padded in (TFLM: the output zero point) */
} utvm_space_batch_params_t;

/* Moves the input (the space tensor of space_dims when to_batch, else the batch tensor of
 * batch_dims) into the other: batch pixel (b, y, x) is space pixel (b % n,
 * y*block[0] + (b/n)/block[1] - before[0], x*block[1] + (b/n)%block[1] - before[1]), pad_value
 * to batch where that lies outside, dropped to space. BAD_PARAM for NULL pointers, an element
 * size other than 1, 2 or 4, a block < 1, a negative before, a pad value outside the element
 * type or tensors that do not fit (batch count, depth, h'*block[0] >= h + before[0], the same
 * for w); BAD_SHAPE for dimensions < 1 or tensors above INT32_MAX elements. input and output
 * must not overlap. */
utvm_err_t utvm_space_batch(const utvm_space_batch_params_t *params,
                            const utvm_dims_t *space_dims, const utvm_dims_t *batch_dims,
                            const void *input, void *output);

/* GATHER: the input seen as [batch, outer, axis_size, inner], the indices as [batch, coords],
 * the output [batch, outer, coords, inner]: output (b, o, k, i) is input (b, o, indices[b][k],
 * i). */
typedef struct {
  int32_t element_size; /* 1, 2 or 4 bytes */
  int32_t index_size;   /* 4 (int32 indices) or 8 (int64) */
  int32_t batch;        /* elements of the batch_dims leading dimensions, >= 1 */
  int32_t outer;        /* of the dimensions from batch_dims to the axis, >= 1 */
  int32_t axis_size;    /* >= 1 */
  int32_t coords;       /* indices per batch, >= 1 */
  int32_t inner;        /* of the dimensions after the axis, >= 1 */
} utvm_gather_params_t;

/* The gather of params. BAD_PARAM for NULL pointers, an element or index size out of range, or
 * an index outside [0, axis_size) (checked before anything is written); BAD_SHAPE for sizes < 1
 * or tensors above INT32_MAX elements. */
utvm_err_t utvm_gather(const utvm_gather_params_t *params, const void *input,
                       const void *indices, void *output);

/* RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR: input [n, h, w, c] to output [n, h', w', c]. */
typedef struct {
  int32_t element_size;       /* NEAREST: 1, 2 or 4 bytes; BILINEAR: 1 (int8) */
  int32_t align_corners;      /* 0 or 1 */
  int32_t half_pixel_centers; /* 0 or 1 (BILINEAR: not with align_corners) */
} utvm_resize_params_t;

/* RESIZE_NEAREST_NEIGHBOR of any element size: each output pixel is the input pixel TFLite's
 * float mapping picks. BAD_PARAM for NULL pointers or parameters out of range; BAD_SHAPE for
 * dimensions < 1, batches or depths that differ, an output side above 2^24 or a tensor above
 * INT32_MAX elements. */
utvm_err_t utvm_resize_nearest(const utvm_resize_params_t *params, const utvm_dims_t *input_dims,
                               const void *input, const utvm_dims_t *output_dims, void *output);

/* RESIZE_BILINEAR, int8 (input and output of one quantization): TFLite's integer bilinear
 * interpolation. BAD_PARAM as above (and align_corners with half_pixel_centers); BAD_SHAPE as
 * above and for an input side above 2^20. */
utvm_err_t utvm_resize_bilinear_s8(const utvm_resize_params_t *params,
                                   const utvm_dims_t *input_dims, const int8_t *input,
                                   const utvm_dims_t *output_dims, int8_t *output);

typedef struct {
  int32_t input_zero_point;
  int32_t output_zero_point;
  int32_t multiplier; /* input scale / output scale */
  int32_t shift;      /* -31..31 */
} utvm_mean_params_t;

/* MEAN over the given axes (negative counts from the end, repeats allowed); the output holds
 * the kept dimensions in order, so keep_dims does not change its bytes. */
utvm_err_t utvm_mean_s8(const utvm_mean_params_t *params, const utvm_shape_t *input_shape,
                        const int8_t *input, const int32_t *axes, int32_t num_axes,
                        int8_t *output);

/* What utvm_reduce computes. */
typedef enum {
  UTVM_REDUCE_MEAN = 0,
  UTVM_REDUCE_SUM = 1,
  UTVM_REDUCE_MAX = 2,
  UTVM_REDUCE_MIN = 3
} utvm_reduce_op_t;

typedef struct {
  int32_t op;                /* utvm_reduce_op_t */
  int32_t element_size;      /* 1 int8, 2 int16 (MAX and MIN: int8 only, as TFLM) */
  int32_t input_zero_point;  /* MEAN, SUM */
  int32_t output_zero_point;
  int32_t multiplier;        /* input scale / output scale (MEAN, SUM) */
  int32_t shift;             /* -31..31 */
} utvm_reduce_params_t;

/* MEAN, SUM, REDUCE_MAX or REDUCE_MIN over the given axes (as utvm_mean_s8): MEAN and SUM
 * rescaled as TFLite's QuantizedMeanOrSum, MAX and MIN the raw extreme (input and output of one
 * quantization). BAD_PARAM for an unknown op or element size, values out of range, an axis
 * outside the rank; BAD_SHAPE for an invalid shape. */
utvm_err_t utvm_reduce(const utvm_reduce_params_t *params, const utvm_shape_t *input_shape,
                       const void *input, const int32_t *axes, int32_t num_axes, void *output);

/* ARG_MAX / ARG_MIN of int8 along one axis (the input seen as [outer, axis_size, inner]): the
 * index of the first largest / smallest value, as int32 (TFLM's types). */
typedef struct {
  int32_t outer;
  int32_t axis_size;
  int32_t inner;
  int32_t is_max;            /* 1: ARG_MAX, 0: ARG_MIN */
} utvm_arg_min_max_params_t;

/* BAD_PARAM for NULL pointers, sizes < 1 or a product over 2^31; the output holds outer x
 * inner indices. */
utvm_err_t utvm_arg_min_max_s8(const utvm_arg_min_max_params_t *params, const int8_t *input,
                               int32_t *output);

/* LOGISTIC and TANH on int16 (zero points 0, output scale 2^-15): the input rescale of TFLM's
 * prepare (a power-of-two scale's multiplier 3 << shift already applied). */
typedef struct {
  int32_t input_multiplier; /* 0..32767 */
  int32_t input_left_shift; /* a right shift, 0..31 */
} utvm_sigmoid_s16_params_t;

/* LOGISTIC int16 -> int16 (TFLite's int16 Logistic). BAD_PARAM for parameters out of range. */
utvm_err_t utvm_logistic_s16(const utvm_sigmoid_s16_params_t *params, int32_t size,
                             const int16_t *input, int16_t *output);

/* TANH int16 -> int16 (TFLite's int16 Tanh). */
utvm_err_t utvm_tanh_s16(const utvm_sigmoid_s16_params_t *params, int32_t size,
                         const int16_t *input, int16_t *output);

/* ---- QUANTIZE, DEQUANTIZE ---- */

typedef struct {
  int32_t input_zero_point;
  int32_t output_zero_point;
  int32_t multiplier; /* input scale / output scale */
  int32_t shift;      /* -31..31 */
} utvm_requantize_params_t;

/* QUANTIZE float32 -> int8: round(x / scale) + zero_point, saturated (scale > 0). */
utvm_err_t utvm_quantize_f32_s8(float scale, int32_t zero_point, int32_t size, const float *input,
                                int8_t *output);

/* QUANTIZE int8 -> int8 (requantize to another scale and zero point). Output may alias input. */
utvm_err_t utvm_requantize_s8(const utvm_requantize_params_t *params, int32_t size,
                              const int8_t *input, int8_t *output);

/* DEQUANTIZE int8 -> float32: scale * (q - zero_point). */
utvm_err_t utvm_dequantize_s8_f32(float scale, int32_t zero_point, int32_t size,
                                  const int8_t *input, float *output);

/* QUANTIZE float32 -> int16: round(x / scale) + zero_point, saturated (scale > 0, zero point
 * int16). */
utvm_err_t utvm_quantize_f32_s16(float scale, int32_t zero_point, int32_t size,
                                 const float *input, int16_t *output);

/* QUANTIZE between int8 and int16 (int16 -> int8, int8 -> int16, int16 -> int16). */
typedef struct {
  int32_t input_zero_point;  /* in the input's range */
  int32_t output_zero_point; /* in the output's range */
  int32_t multiplier;        /* input scale / output scale */
  int32_t shift;             /* -31..31 */
  int32_t input_size;        /* element bytes: 1 int8, 2 int16 */
  int32_t output_size;
} utvm_requantize_q_params_t;

/* Requantizes size elements: BAD_PARAM for NULL, element sizes other than 1 or 2, zero points
 * outside their type or a shift outside -31..31. input and output must not overlap. */
utvm_err_t utvm_requantize_q(const utvm_requantize_q_params_t *params, int32_t size,
                             const void *input, void *output);

/* DEQUANTIZE int16 -> float32: scale * (q - zero_point) (zero point int16). */
utvm_err_t utvm_dequantize_s16_f32(float scale, int32_t zero_point, int32_t size,
                                   const int16_t *input, float *output);

/* ---- Prepare helpers (float scales as stored in the model -> integer parameters) ---- */

/* TFLite's QuantizeMultiplier: real = multiplier * 2^(shift - 31), multiplier in [2^30, 2^31)
 * (0/0 for 0 and for |real| < 2^-32). BAD_PARAM if real is not finite. */
utvm_err_t utvm_quantize_multiplier(double real, int32_t *multiplier, int32_t *shift);

/* Output size and padding of a window operator (TFLite's ComputePaddingHeightWidth).
 * BAD_PARAM for sizes/strides/dilations < 1 or an unknown padding. */
utvm_err_t utvm_compute_padding(utvm_padding_t padding, int32_t stride_h, int32_t stride_w,
                                int32_t dilation_h, int32_t dilation_w, int32_t in_h,
                                int32_t in_w, int32_t filter_h, int32_t filter_w,
                                utvm_padding_values_t *out);

/* Clamp range of a fused activation on an int8 output (CalculateActivationRangeQuantized).
 * UNSUPPORTED for TANH, SIGN_BIT and unknown values; BAD_PARAM if the range is empty. */
utvm_err_t utvm_activation_range_s8(int32_t activation, float output_scale,
                                    int32_t output_zero_point, int32_t *act_min, int32_t *act_max);

/* The same on an int16 output. */
utvm_err_t utvm_activation_range_s16(int32_t activation, float output_scale,
                                     int32_t output_zero_point, int32_t *act_min,
                                     int32_t *act_max);

/* Output multipliers of CONV_2D and DEPTHWISE_CONV_2D: input_scale * filter_scales[i] /
 * output_scale in double for i < count (count 1 = per-tensor); writes count entries. */
utvm_err_t utvm_conv_quant_params(float input_scale, const float *filter_scales, int32_t count,
                                  float output_scale, int32_t *multipliers, int32_t *shifts);

/* Output multipliers of FULLY_CONNECTED: per-tensor (count 1) multiplies the two scales in
 * float as TFLite does, per-channel (count > 1) as utvm_conv_quant_params. */
utvm_err_t utvm_fully_connected_quant_params(float input_scale, const float *filter_scales,
                                             int32_t count, float output_scale,
                                             int32_t *multipliers, int32_t *shifts);

/* Window parameters of AVERAGE/MAX_POOL_2D from the model's options; out_h/out_w receive the
 * output size TFLite computes for this input. */
utvm_err_t utvm_pool2d_params_s8(utvm_padding_t padding, int32_t stride_h, int32_t stride_w,
                                 int32_t filter_h, int32_t filter_w, int32_t in_h, int32_t in_w,
                                 int32_t activation, float output_scale,
                                 int32_t output_zero_point, utvm_pool2d_params_t *params,
                                 int32_t *out_h, int32_t *out_w);

/* The same for int16 input and output (the activation range within int16). */
utvm_err_t utvm_pool2d_params_s16(utvm_padding_t padding, int32_t stride_h, int32_t stride_w,
                                  int32_t filter_h, int32_t filter_w, int32_t in_h, int32_t in_w,
                                  int32_t activation, float output_scale,
                                  int32_t output_zero_point, utvm_pool2d_params_t *params,
                                  int32_t *out_h, int32_t *out_w);

/* ADD parameters (left shift 20). UNSUPPORTED when the output scale is too small for TFLite's
 * scheme (output multiplier >= 1). */
utvm_err_t utvm_add_params_s8(float input1_scale, int32_t input1_zero_point, float input2_scale,
                              int32_t input2_zero_point, float output_scale,
                              int32_t output_zero_point, int32_t activation,
                              utvm_add_params_t *params);

/* MUL parameters: input1_scale * input2_scale / output_scale in double. */
utvm_err_t utvm_mul_params_s8(float input1_scale, int32_t input1_zero_point, float input2_scale,
                              int32_t input2_zero_point, float output_scale,
                              int32_t output_zero_point, int32_t activation,
                              utvm_mul_params_t *params);

/* SOFTMAX parameters for int8 -> int8 (PreprocessSoftmaxScaling, 5 integer bits).
 * UNSUPPORTED if beta * input_scale is too small for TFLite's scheme (<= 2^-26). */
utvm_err_t utvm_softmax_params_s8(float beta, float input_scale, utvm_softmax_params_t *params);

/* SOFTMAX parameters for int16 input: beta * input_scale / (10 / 65535) in double
 * (QuantizeMultiplier; diff_min 0). */
utvm_err_t utvm_softmax_params_s16(float beta, float input_scale, utvm_softmax_params_t *params);

/* LOGISTIC parameters (4 integer bits). UNSUPPORTED unless output_zero_point is -128 (TFLite's
 * rule) and 2^-28 <= input_scale < 16. */
utvm_err_t utvm_logistic_params_s8(float input_scale, int32_t input_zero_point,
                                   int32_t output_zero_point, utvm_logistic_params_t *params);

/* TANH parameters (4 integer bits). UNSUPPORTED unless 2^-28 <= input_scale < 16. */
utvm_err_t utvm_tanh_params_s8(float input_scale, int32_t input_zero_point,
                               utvm_tanh_params_t *params);

/* LOGISTIC (tanh 0) or TANH (tanh 1) int16 parameters as TFLM's prepare: a power-of-two
 * input scale of the right size (CheckedLog2) takes 3 << shift, any other the doubled
 * input_scale * 3 * 4096. UNSUPPORTED unless the output scale is 2^-15, or when the multiplier
 * passes 32767 (input scale above about 2.67). */
utvm_err_t utvm_sigmoid_params_s16(float input_scale, float output_scale, int32_t tanh,
                                   utvm_sigmoid_s16_params_t *params);

/* MEAN parameters: input_scale / output_scale in double. */
utvm_err_t utvm_mean_params_s8(float input_scale, int32_t input_zero_point, float output_scale,
                               int32_t output_zero_point, utvm_mean_params_t *params);

/* QUANTIZE int8 -> int8 parameters: input_scale / output_scale in double. */
utvm_err_t utvm_requantize_params_s8(float input_scale, int32_t input_zero_point,
                                     float output_scale, int32_t output_zero_point,
                                     utvm_requantize_params_t *params);

/* ---- Prepare helpers of the element-wise operators ---- */

/* QUANTIZE between int8 and int16: input_scale / output_scale in double (TFLM's
 * PrepareQuantizeReference); element sizes 1 or 2, zero points in their types. */
utvm_err_t utvm_requantize_q_params(float input_scale, int32_t input_zero_point,
                                    int32_t input_size, float output_scale,
                                    int32_t output_zero_point, int32_t output_size,
                                    utvm_requantize_q_params_t *params);


/* The piecewise-linear map from its two real factors (each QuantizeMultiplier'ed as TFLite
 * does; a negative negative_real turns UTVM_PWL_SCALE into UTVM_PWL_NEGATE), zero points and
 * clamp range. UNSUPPORTED where TFLite's arithmetic would overflow (a multiplier of -2^31). */
utvm_err_t utvm_pwl_params(double positive_real, double negative_real, int32_t negative_mode,
                           int32_t input_zero_point, int32_t output_zero_point, int32_t act_min,
                           int32_t act_max, utvm_pwl_params_t *params);

/* The 256-entry table of the piecewise-linear map on int8 (zero points and range int8). */
utvm_err_t utvm_pwl_table_s8(const utvm_pwl_params_t *params, int8_t *table);

/* SUB parameters (TFLM's CalculateOpDataSub: the ratios in float; left_shift 20 for int8, 15
 * for int16). UNSUPPORTED as utvm_add_params_s8. */
utvm_err_t utvm_sub_params(float input1_scale, int32_t input1_zero_point, float input2_scale,
                           int32_t input2_zero_point, float output_scale,
                           int32_t output_zero_point, int32_t activation, int32_t left_shift,
                           utvm_add_params_t *params);

/* SQUARED_DIFFERENCE parameters (TFLM's PrepareQuantized): each input over twice the larger
 * scale, the output (2 * max scale)^2 / (2^(2 * left_shift) * output scale); the range of the
 * element type (int16: int16 false gives int8). */
utvm_err_t utvm_squared_difference_params(float input1_scale, int32_t input1_zero_point,
                                          float input2_scale, int32_t input2_zero_point,
                                          float output_scale, int32_t output_zero_point,
                                          int32_t int16, utvm_add_params_t *params);

/* ADD parameters on int16 (left shift 15, zero points 0). */
utvm_err_t utvm_add_params_s16(float input1_scale, float input2_scale, float output_scale,
                               int32_t activation, utvm_add_params_t *params);

/* MUL parameters on int16 (zero points 0). */
utvm_err_t utvm_mul_params_s16(float input1_scale, float input2_scale, float output_scale,
                               int32_t activation, utvm_mul_params_t *params);

/* ---- Element-wise and normalisation operators, round 3 (issue 25) ---- */

/* HARD_SWISH on int8 (TFLite's HardSwishParams): 16-bit fixed-point multipliers and their
 * exponents. */
typedef struct {
  int32_t input_zero_point;   /* int8 */
  int32_t output_zero_point;  /* int8 */
  int32_t output_multiplier;  /* 0..32767 */
  int32_t output_shift;       /* -31..0 */
  int32_t reluish_multiplier; /* 0..32767 */
  int32_t reluish_shift;      /* -31..31 */
} utvm_hard_swish_params_t;

/* HARD_SWISH parameters (TFLM's HardSwishPrepare); BAD_PARAM for scales <= 0 or zero points
 * outside int8, UNSUPPORTED for an output exponent > 0 (TFLM refuses it) or shifts beyond 31. */
utvm_err_t utvm_hard_swish_params_s8(float input_scale, int32_t input_zero_point,
                                     float output_scale, int32_t output_zero_point,
                                     utvm_hard_swish_params_t *params);

/* The 256-entry table of HARD_SWISH (table[q + 128] = HardSwish(q)); BAD_PARAM for parameters
 * out of their ranges. */
utvm_err_t utvm_hard_swish_table_s8(const utvm_hard_swish_params_t *params, int8_t *table);

/* PRELU (TFLite's PreluParams): offsets (the negated input and alpha zero points, the output
 * zero point) and the multipliers of input/output and input*alpha/output scales. */
typedef struct {
  int32_t input_offset;
  int32_t alpha_offset;  /* -128..128 (alpha is int8) */
  int32_t output_offset;
  int32_t multiplier_1;  /* >= 0 */
  int32_t shift_1;       /* -31..31 */
  int32_t multiplier_2;  /* >= 0 */
  int32_t shift_2;       /* -31..31 */
} utvm_prelu_params_t;

/* PRELU parameters (TFLM's CalculatePreluParams, the ratios in double); BAD_PARAM for scales
 * <= 0, UNSUPPORTED for shifts beyond 31. */
utvm_err_t utvm_prelu_params(float input_scale, int32_t input_zero_point, float alpha_scale,
                             int32_t alpha_zero_point, float output_scale,
                             int32_t output_zero_point, utvm_prelu_params_t *params);

/* PRELU of int8 (or int16) input and int8 alpha broadcast to the output (ranks up to
 * UTVM_KERNEL_MAX_RANK); BAD_PARAM for offsets outside the types or bad shifts, BAD_SHAPE
 * unless the shapes broadcast. */
utvm_err_t utvm_prelu_s8(const utvm_prelu_params_t *params, const utvm_shape_t *input_shape,
                         const int8_t *input, const utvm_shape_t *alpha_shape,
                         const int8_t *alpha, const utvm_shape_t *output_shape, int8_t *output);
utvm_err_t utvm_prelu_s16(const utvm_prelu_params_t *params, const utvm_shape_t *input_shape,
                          const int16_t *input, const utvm_shape_t *alpha_shape,
                          const int8_t *alpha, const utvm_shape_t *output_shape,
                          int16_t *output);

/* RSQRT on int8 (TFLM's OpDataAbsRsqrt): zero points and the multiplier of
 * 1/(sqrt(input scale) * output scale). */
typedef struct {
  int32_t input_zero_point;  /* int8 */
  int32_t output_zero_point; /* int8 */
  int32_t multiplier;        /* >= 0 */
  int32_t shift;             /* -11..51 (shift - 20 within -31..31) */
} utvm_rsqrt_params_t;

/* RSQRT parameters (TFLM's SetRsqrtOutputMultiplier); BAD_PARAM for scales <= 0 or zero
 * points outside int8, UNSUPPORTED where TFLite's rescale would shift by more than 31. */
utvm_err_t utvm_rsqrt_params_s8(float input_scale, int32_t input_zero_point, float output_scale,
                                int32_t output_zero_point, utvm_rsqrt_params_t *params);

/* The 256-entry table of RSQRT (entries below the input zero point are 0, never used). */
utvm_err_t utvm_rsqrt_table_s8(const utvm_rsqrt_params_t *params, int8_t *table);

/* RSQRT through its table; UNSUPPORTED at the first input below input_zero_point (TFLM:
 * "Rsqrt is only defined for positive values"), the outputs before it written. */
utvm_err_t utvm_rsqrt_s8(const int8_t *table, int32_t input_zero_point, int32_t size,
                         const int8_t *input, int8_t *output);

/* DIV on int8 (TFLM's OpDataDiv): offsets (negated input zero points, output zero point), the
 * multiplier of input1 scale / (input2 scale * output scale) and the activation range. */
typedef struct {
  int32_t input1_offset; /* -127..128 */
  int32_t input2_offset; /* -127..128 */
  int32_t output_offset; /* int8 */
  int32_t multiplier;    /* >= 0 */
  int32_t shift;         /* -31..22 */
  int32_t act_min;
  int32_t act_max;
} utvm_div_params_t;

/* DIV parameters (TFLM's CalculateOpDataDiv, the ratio in float); BAD_PARAM for scales <= 0
 * or zero points outside int8, UNSUPPORTED for a shift above 22 (a quotient's shift would be
 * positive, undefined in TFLite's arithmetic) or an unknown activation. */
utvm_err_t utvm_div_params_s8(float input1_scale, int32_t input1_zero_point, float input2_scale,
                              int32_t input2_zero_point, float output_scale,
                              int32_t output_zero_point, int32_t activation,
                              utvm_div_params_t *params);

/* DIV of int8 inputs broadcast to the output (ranks up to UTVM_KERNEL_MAX_RANK); UNSUPPORTED
 * at the first divisor equal to its zero point (the outputs before it written). */
utvm_err_t utvm_div_s8(const utvm_div_params_t *params, const utvm_shape_t *input1_shape,
                       const int8_t *input1, const utvm_shape_t *input2_shape,
                       const int8_t *input2, const utvm_shape_t *output_shape, int8_t *output);

/* LOG_SOFTMAX on int8 (TFLM's LogSoftmaxOpData): the input as Q5 (beta 1), the reverse scaling
 * of the log-sum back to input steps, the smallest difference counted. */
typedef struct {
  int32_t input_multiplier;
  int32_t input_left_shift;        /* 0..31 */
  int32_t reverse_scaling_divisor;
  int32_t reverse_scaling_shift;   /* -31..0 (TFLM stores its negation) */
  int32_t diff_min;                /* <= 0 */
} utvm_log_softmax_params_t;

/* LOG_SOFTMAX parameters (PreprocessLogSoftmaxScalingExp, beta 1, 5 integer bits, and
 * CalculateInputRadius); BAD_PARAM for a scale <= 0, UNSUPPORTED where TFLite's checks fail. */
utvm_err_t utvm_log_softmax_params_s8(float input_scale, utvm_log_softmax_params_t *params);

/* LOG_SOFTMAX of rows x depth int8 values along depth (output scale 16/256, zero point 127). */
utvm_err_t utvm_log_softmax_s8(const utvm_log_softmax_params_t *params, int32_t rows,
                               int32_t depth, const int8_t *input, int8_t *output);

/* The longest L2_NORMALIZATION row: its int32 sum of squares ((x - zp)^2 <= 255^2) cannot
 * overflow. */
#define UTVM_L2_NORMALIZATION_MAX_DEPTH 33025

/* L2_NORMALIZATION of rows x depth int8 values along depth (TFLite's reference integer
 * kernel: output scale 1/128, zero point 0); BAD_SHAPE for depth above the maximum. */
utvm_err_t utvm_l2_normalization_s8(int32_t input_zero_point, int32_t rows, int32_t depth,
                                    const int8_t *input, int8_t *output);

/* The 256-entry int8 table of ELU (TFLM's PopulateLookupTable in float: expf, roundf);
 * BAD_PARAM for scales <= 0 or zero points outside int8, UNSUPPORTED where an entry passes the
 * int32 range before TFLM's clamp (undefined there). */
utvm_err_t utvm_elu_table_s8(float input_scale, int32_t input_zero_point, float output_scale,
                             int32_t output_zero_point, int8_t *table);

/* ---- float32 (issue 30) ----
 * The operators of float32 TFLite models, with the arithmetic of TensorFlow Lite Micro's float
 * reference kernels: the same products summed in the same order from 0.0f, the bias added after
 * the sum, the fused activation as min(max(x, act_min), act_max) (ActivationFunctionWithMinMax),
 * every operation in float (the library is compiled without fused multiply-add), so results
 * are bit-exact where the C library is not involved (LOGISTIC, TANH and SOFTMAX call expf or
 * tanhf: docs/TFLITE.md gives their tolerance). Layout as above (NHWC; filters OHWI,
 * 1HWO, [output_depth, input_depth]); tensors are caller memory, nothing is allocated and no
 * kernel needs scratch. Errors as the int8 kernels: UTVM_ERR_KERNEL_BAD_PARAM (a NULL pointer,
 * a parameter out of range, an empty or NaN activation range), UTVM_ERR_KERNEL_BAD_SHAPE, both
 * before anything is written. The layout operators (RESHAPE, TRANSPOSE, PAD, CONCATENATION)
 * are the byte-generic kernels above with element size 4. */

/* Clamp range of a fused activation on a float output (CalculateActivationRange): NONE
 * -FLT_MAX..FLT_MAX, RELU 0..FLT_MAX, RELU_N1_TO_1 -1..1, RELU6 0..6; UNSUPPORTED for others. */
utvm_err_t utvm_activation_range_f32(int32_t activation, float *act_min, float *act_max);

typedef struct {
  int32_t stride_h;
  int32_t stride_w;
  int32_t dilation_h;
  int32_t dilation_w;
  int32_t pad_top; /* utvm_compute_padding's, as the int8 kernels */
  int32_t pad_left;
  float act_min;
  float act_max;
} utvm_conv2d_f32_params_t;

/* CONV_2D: input [N,H,W,Ci], filter [Co,KH,KW,Ci/groups] (grouped when Ci > filter c), bias
 * [Co] or NULL, output [N,OH,OW,Co]; per output, taps (row, column, channel) in order,
 * out-of-image taps skipped. */
utvm_err_t utvm_conv2d_f32(const utvm_conv2d_f32_params_t *params, const utvm_dims_t *input_dims,
                           const float *input, const utvm_dims_t *filter_dims,
                           const float *filter, const float *bias,
                           const utvm_dims_t *output_dims, float *output);

typedef struct {
  int32_t stride_h;
  int32_t stride_w;
  int32_t dilation_h;
  int32_t dilation_w;
  int32_t pad_top;
  int32_t pad_left;
  int32_t depth_multiplier; /* output channels per input channel, >= 1 */
  float act_min;
  float act_max;
} utvm_depthwise_conv2d_f32_params_t;

/* DEPTHWISE_CONV_2D: input [N,H,W,Ci], filter [1,KH,KW,Ci*M], bias [Ci*M] or NULL, output
 * [N,OH,OW,Ci*M]; output channel ci*M+m reads input channel ci. */
utvm_err_t utvm_depthwise_conv2d_f32(const utvm_depthwise_conv2d_f32_params_t *params,
                                     const utvm_dims_t *input_dims, const float *input,
                                     const utvm_dims_t *filter_dims, const float *filter,
                                     const float *bias, const utvm_dims_t *output_dims,
                                     float *output);

/* The fused activation of FULLY_CONNECTED, ADD, SUB and MUL. */
typedef struct {
  float act_min;
  float act_max;
} utvm_activation_f32_t;

/* FULLY_CONNECTED: input [batches, input_depth], weights [output_depth, input_depth], bias
 * [output_depth] or NULL, output [batches, output_depth]. BAD_SHAPE for sizes < 1. */
utvm_err_t utvm_fully_connected_f32(const utvm_activation_f32_t *params, int32_t batches,
                                    int32_t input_depth, int32_t output_depth,
                                    const float *input, const float *weights, const float *bias,
                                    float *output);

typedef struct {
  int32_t stride_h;
  int32_t stride_w;
  int32_t filter_h;
  int32_t filter_w;
  int32_t pad_top;
  int32_t pad_left;
  float act_min;
  float act_max;
} utvm_pool2d_f32_params_t;

/* AVERAGE_POOL_2D: the sum of each window's in-bounds inputs divided by their count;
 * BAD_SHAPE if a window has no input inside (TFLite's error). */
utvm_err_t utvm_avg_pool2d_f32(const utvm_pool2d_f32_params_t *params,
                               const utvm_dims_t *input_dims, const float *input,
                               const utvm_dims_t *output_dims, float *output);

/* MAX_POOL_2D: the maximum of each window's in-bounds inputs (-FLT_MAX when it has none). */
utvm_err_t utvm_max_pool2d_f32(const utvm_pool2d_f32_params_t *params,
                               const utvm_dims_t *input_dims, const float *input,
                               const utvm_dims_t *output_dims, float *output);

/* ADD, SUB (input1 - input2) and MUL with broadcasting (numpy rules, as utvm_add_s8);
 * BAD_SHAPE for shapes that do not broadcast to output_shape. The output may be an input of
 * the output's shape (element by element, in place). */
utvm_err_t utvm_add_f32(const utvm_activation_f32_t *params, const utvm_shape_t *input1_shape,
                        const float *input1, const utvm_shape_t *input2_shape,
                        const float *input2, const utvm_shape_t *output_shape, float *output);
utvm_err_t utvm_sub_f32(const utvm_activation_f32_t *params, const utvm_shape_t *input1_shape,
                        const float *input1, const utvm_shape_t *input2_shape,
                        const float *input2, const utvm_shape_t *output_shape, float *output);
utvm_err_t utvm_mul_f32(const utvm_activation_f32_t *params, const utvm_shape_t *input1_shape,
                        const float *input1, const utvm_shape_t *input2_shape,
                        const float *input2, const utvm_shape_t *output_shape, float *output);

/* Element-wise over count values (output may be input; BAD_SHAPE for count < 0):
 * RELU x < 0 ? 0 : x; RELU6 x > 6 ? 6 : (x < 0 ? 0 : x) (-0 stays -0, NaN stays NaN);
 * LOGISTIC 1 above 16.619047, expf(x) below -9, else 1 / (1 + expf(-x)); TANH tanhf;
 * HARD_SWISH x * min(6, max(0, x + 3)) / 6. */
utvm_err_t utvm_relu_f32(int32_t count, const float *input, float *output);
utvm_err_t utvm_relu6_f32(int32_t count, const float *input, float *output);
utvm_err_t utvm_logistic_f32(int32_t count, const float *input, float *output);
utvm_err_t utvm_tanh_f32(int32_t count, const float *input, float *output);
utvm_err_t utvm_hard_swish_f32(int32_t count, const float *input, float *output);

/* SOFTMAX of rows x depth values along depth: expf((x - row max) * beta), each divided by the
 * row's sum (summed in order). BAD_PARAM for a beta that is not finite, BAD_SHAPE for sizes
 * < 1. The output must not overlap the input. */
utvm_err_t utvm_softmax_f32(float beta, int32_t rows, int32_t depth, const float *input,
                            float *output);

/* MEAN over the given axes (as utvm_mean_s8: negative counts from the end, repeats allowed;
 * the output holds the kept dimensions in order, whatever keep_dims): each group summed from
 * 0.0f in input order, divided by its element count. BAD_PARAM for an axis outside the rank,
 * BAD_SHAPE for an invalid shape. */
utvm_err_t utvm_mean_f32(const utvm_shape_t *input_shape, const float *input,
                         const int32_t *axes, int32_t num_axes, float *output);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_KERNELS_H */

/*
 * Randomized comparison of the int8 kernels' fast paths with their reference loops
 * (src/kernels/fast_s8.h): the blocked portable C paths always, the DSP paths when built with
 * them (__ARM_FEATURE_DSP without MVE, or UTVM_KERNELS_DSP_EMULATED on the host: see
 * src/kernels/dsp_s8.h), the MVE paths with __ARM_FEATURE_MVE (Cortex-M55). Shared by the host
 * unit test and the Cortex-M self-test image.
 */
#ifndef UTVM_TESTS_KERNELS_FAST_COMPARE_H
#define UTVM_TESTS_KERNELS_FAST_COMPARE_H

#include <stdint.h>

typedef struct {
  int32_t conv_cases;          /* convolutions compared */
  int32_t conv_pointwise;      /* of which 1x1 */
  int32_t conv_dsp_s16;        /* of which also run with the filter laid out as DSP_S16 (the
                                  DSP kernel; and the dispatcher where the build runs it) */
  int32_t conv_mve_terms;      /* of which also run with the filter laid out as MVE_TERMS (the
                                  dispatcher: run and compared on an MVE build, refused on any
                                  other) */
  int32_t depthwise_cases;     /* depthwise convolutions compared */
  int32_t depthwise_shared;    /* of which with a multiplier above 1 */
  int32_t depthwise_as_conv;   /* of which run by utvm_depthwise_conv2d_s8 as a convolution
                                  (one input channel on a DSP or MVE core) */
  int32_t fc_cases;            /* fully connected layers compared */
  int32_t fc_dsp_s16;          /* of which also run with the weights laid out as DSP_S16 (as
                                  conv_dsp_s16) */
  int32_t fc_mve_terms;        /* of which also run with the weights laid out as MVE_TERMS (as
                                  conv_mve_terms) */
  int32_t add_cases;           /* element-wise ADDs compared */
  int32_t inplace_cases;       /* element-wise kernels run in place and compared with their
                                  out-of-place results (MUL, SUB, LUT, QUANTIZE, LOGISTIC, TANH;
                                  int16 ADD, SUB, MUL, piecewise-linear) */
  int32_t window_inplace_cases; /* CONV_2D and DEPTHWISE_CONV_2D run in place (the row ring of
                                   utvm_*_inplace) and compared with their out-of-place results */
  int32_t window_inplace_pointwise; /* of which 1x1 of stride 1 with at most as many output
                                       channels as input channels (one call on DSP and MVE
                                       cores when they fit a channel block) */
  int32_t stage_cases;         /* stages of 1..5 windows run patch by patch (utvm_stage_s8) and
                                  compared with the layers run whole */
  int32_t stage_layers;        /* their layers */
  int32_t stage_inplace;       /* of which with the output over the input */
  int32_t stage_tails;         /* of which ending in a FULLY_CONNECTED tail */
  int32_t avg_pool_cases;      /* average poolings compared */
  int32_t mismatches;          /* cases whose outputs differ in any byte */
  int32_t first_mismatch;      /* index of the first such case (conv, depthwise, fc, add,
                                  in place, window in place, stage, average
                                  pool), or -1 */
  int32_t compared_bytes;      /* output bytes compared in all */
  int32_t fast_core;           /* the fastest paths compared: UTVM_KERNELS_PORTABLE (the blocked
                                  C paths only), UTVM_KERNELS_DSP or UTVM_KERNELS_MVE */
} utvm_fast_compare_result_t;

/* Runs cases random convolutions, depthwise convolutions, fully connected layers, ADDs,
 * element-wise kernels in place, convolutions in place, stages patch by patch and average
 * poolings each from
 * seed (strides, padding, dilation, odd channel counts, per-tensor and per-channel
 * quantization, shifts -31..31, extreme offsets, multipliers and biases, batches > 1) through
 * every path built and counts the differences into *result. */
void utvm_fast_compare_run(uint32_t seed, int32_t cases, utvm_fast_compare_result_t *result);

#endif /* UTVM_TESTS_KERNELS_FAST_COMPARE_H */

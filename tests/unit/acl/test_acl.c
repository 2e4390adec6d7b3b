/*
 * The Arm Compute Library backend (include/utvm/acl.h) against utvm's float32 kernels: random
 * CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and pool layers (shapes, strides, dilations,
 * padding, fused activations, with and without bias), each prepared once and run on two
 * inputs, within UTVM_ACL_TOLERANCE of the kernel's output (relative to the layer's largest
 * magnitude: ACL sums in its own order). The auxiliary memory comes from a stack allocator
 * that checks it is freed last-first and counts what is live; refusals (grouped convolution,
 * bad arguments) are errors, not crashes.
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "utvm/acl.h"
#include "utvm/kernels.h"

/* Largest difference allowed, relative to max(1, largest magnitude of the kernel's output). */
#define UTVM_ACL_TOLERANCE 1e-5f
#define STACK_BYTES (8u << 20)
#define MAX_LIVE 64u

/* A LIFO allocator over one buffer, as TVM's workspace is. */
typedef struct {
  uint8_t *base;
  size_t top;
  size_t peak;
  size_t marks[MAX_LIVE];
  void *ptrs[MAX_LIVE];
  uint32_t live;
  uint32_t out_of_order;
} stack_t;

static void *stack_alloc(void *ctx, size_t bytes, size_t alignment) {
  stack_t *s = ctx;
  const uintptr_t at = (uintptr_t)&s->base[s->top];
  const size_t start = s->top + (size_t)(((at + alignment - 1u) & ~(uintptr_t)(alignment - 1u)) - at);
  if ((s->live == MAX_LIVE) || (start + bytes > STACK_BYTES)) {
    return NULL;
  }
  s->marks[s->live] = s->top;
  s->ptrs[s->live] = &s->base[start];
  s->live++;
  s->top = start + bytes;
  s->peak = (s->top > s->peak) ? s->top : s->peak;
  return &s->base[start];
}

static void stack_free(void *ctx, void *ptr) {
  stack_t *s = ctx;
  if ((s->live == 0u) || (s->ptrs[s->live - 1u] != ptr)) {
    s->out_of_order++;
    return;
  }
  s->live--;
  s->top = s->marks[s->live];
}

static stack_t stack;
static utvm_acl_memory_t memory = {stack_alloc, stack_free, &stack};

static uint32_t rng = 12345u;
static uint32_t next_u32(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}
static int32_t rand_in(int32_t lo, int32_t hi) {
  return lo + (int32_t)(next_u32() % (uint32_t)(hi - lo + 1));
}
static float rand_f(void) { return ((float)(next_u32() % 20001u) - 10000.0f) / 5000.0f; }
static float *rand_buffer(size_t n) {
  float *p = malloc((n > 0u ? n : 1u) * sizeof(float));
  assert_non_null(p);
  for (size_t i = 0u; i < n; i++) {
    p[i] = rand_f();
  }
  return p;
}

/* a * b * c * d as a size (every factor >= 1). */
static size_t elems(int32_t a, int32_t b, int32_t c, int32_t d) {
  return (size_t)a * (size_t)b * (size_t)c * (size_t)d;
}

static size_t dims_elems(const utvm_dims_t *x) { return elems(x->n, x->h, x->w, x->c); }

static void random_activation(float *lo, float *hi) {
  static const int32_t acts[] = {UTVM_ACT_NONE, UTVM_ACT_RELU, UTVM_ACT_RELU_N1_TO_1,
                                 UTVM_ACT_RELU6};
  assert_int_equal(utvm_activation_range_f32(acts[next_u32() % 4u], lo, hi), UTVM_OK);
}

/* Output size and leading padding of one axis (TFLite's SAME or VALID). */
static void axis(int32_t in, int32_t filter, int32_t stride, int32_t dilation, int same,
                 int32_t *out, int32_t *pad) {
  const int32_t reach = (filter - 1) * dilation + 1;
  *out = same ? (in + stride - 1) / stride : (in - reach + stride) / stride;
  const int32_t total = (*out - 1) * stride + reach - in;
  *pad = (same && (total > 0)) ? total / 2 : 0;
}

static void expect_close(const float *want, const float *got, size_t n, const char *what) {
  float scale = 1.0f;
  for (size_t i = 0u; i < n; i++) {
    scale = fmaxf(scale, fabsf(want[i]));
  }
  for (size_t i = 0u; i < n; i++) {
    if (!(fabsf(want[i] - got[i]) <= UTVM_ACL_TOLERANCE * scale)) {
      fail_msg("%s: element %zu: utvm %.9g, ACL %.9g", what, i, (double)want[i], (double)got[i]);
    }
  }
}

/* Runs layer twice (two inputs) against run_kernel's outputs; frees it; memory back. */
typedef utvm_err_t (*kernel_fn)(const void *ctx, const float *input, float *output);
static void check_layer(utvm_acl_layer_t *layer, kernel_fn kernel, const void *ctx,
                        size_t in_n, size_t out_n, const char *what) {
  for (int run = 0; run < 2; run++) {
    float *in = rand_buffer(in_n);
    float *want = rand_buffer(out_n);
    float *got = rand_buffer(out_n);
    assert_int_equal(kernel(ctx, in, want), UTVM_OK);
    assert_int_equal(utvm_acl_layer_run(layer, in, got), UTVM_OK);
    expect_close(want, got, out_n, what);
    free(in);
    free(want);
    free(got);
  }
  utvm_acl_layer_free(layer);
  assert_int_equal(stack.live, 0u);
  assert_int_equal(stack.out_of_order, 0u);
}

typedef struct {
  utvm_conv2d_f32_params_t p;
  utvm_dims_t in, filter, out;
  const float *w, *b;
} conv_ctx_t;

static utvm_err_t conv_kernel(const void *ctx, const float *input, float *output) {
  const conv_ctx_t *c = ctx;
  return utvm_conv2d_f32(&c->p, &c->in, input, &c->filter, c->w, c->b, &c->out, output);
}

static void test_conv2d(void **state) {
  (void)state;
  for (int i = 0; i < 40; i++) {
    conv_ctx_t c;
    memset(&c, 0, sizeof(c));
    const int same = (int)(next_u32() % 2u);
    c.in = (utvm_dims_t){rand_in(1, 2), rand_in(3, 12), rand_in(3, 12), rand_in(1, 9)};
    c.filter = (utvm_dims_t){rand_in(1, 9), rand_in(1, 3), rand_in(1, 3), c.in.c};
    c.p.stride_h = rand_in(1, 2);
    c.p.stride_w = rand_in(1, 2);
    c.p.dilation_h = (i % 4 == 3) ? 2 : 1;
    c.p.dilation_w = c.p.dilation_h;
    int32_t oh, ow;
    axis(c.in.h, c.filter.h, c.p.stride_h, c.p.dilation_h, same, &oh, &c.p.pad_top);
    axis(c.in.w, c.filter.w, c.p.stride_w, c.p.dilation_w, same, &ow, &c.p.pad_left);
    if ((oh < 1) || (ow < 1)) {
      continue;
    }
    c.out = (utvm_dims_t){c.in.n, oh, ow, c.filter.n};
    random_activation(&c.p.act_min, &c.p.act_max);
    float *w = rand_buffer(dims_elems(&c.filter));
    float *b = (i % 3 == 0) ? NULL : rand_buffer(elems(c.filter.n, 1, 1, 1));
    c.w = w;
    c.b = b;
    utvm_acl_layer_t *layer = NULL;
    assert_int_equal(utvm_acl_conv2d_f32_prepare(&c.p, &c.in, &c.filter, w, b, &c.out, &memory,
                                                 &layer),
                     UTVM_OK);
    check_layer(layer, conv_kernel, &c, dims_elems(&c.in), dims_elems(&c.out), "CONV_2D");
    free(w);
    free(b);
  }
}

typedef struct {
  utvm_depthwise_conv2d_f32_params_t p;
  utvm_dims_t in, filter, out;
  const float *w, *b;
} dw_ctx_t;

static utvm_err_t dw_kernel(const void *ctx, const float *input, float *output) {
  const dw_ctx_t *c = ctx;
  return utvm_depthwise_conv2d_f32(&c->p, &c->in, input, &c->filter, c->w, c->b, &c->out,
                                   output);
}

static void test_depthwise(void **state) {
  (void)state;
  for (int i = 0; i < 40; i++) {
    dw_ctx_t c;
    memset(&c, 0, sizeof(c));
    const int same = (int)(next_u32() % 2u);
    c.p.depth_multiplier = (i % 5 == 4) ? 2 : 1;
    c.in = (utvm_dims_t){1, rand_in(3, 12), rand_in(3, 12), rand_in(1, 16)};
    const int32_t oc = c.in.c * c.p.depth_multiplier;
    c.filter = (utvm_dims_t){1, rand_in(1, 3), rand_in(1, 3), oc};
    c.p.stride_h = rand_in(1, 2);
    c.p.stride_w = c.p.stride_h;
    c.p.dilation_h = 1;
    c.p.dilation_w = 1;
    int32_t oh, ow;
    axis(c.in.h, c.filter.h, c.p.stride_h, 1, same, &oh, &c.p.pad_top);
    axis(c.in.w, c.filter.w, c.p.stride_w, 1, same, &ow, &c.p.pad_left);
    if ((oh < 1) || (ow < 1)) {
      continue;
    }
    c.out = (utvm_dims_t){1, oh, ow, oc};
    random_activation(&c.p.act_min, &c.p.act_max);
    float *w = rand_buffer(elems(c.filter.h, c.filter.w, oc, 1));
    float *b = (i % 3 == 0) ? NULL : rand_buffer(elems(oc, 1, 1, 1));
    c.w = w;
    c.b = b;
    utvm_acl_layer_t *layer = NULL;
    assert_int_equal(utvm_acl_depthwise_conv2d_f32_prepare(&c.p, &c.in, &c.filter, w, b, &c.out,
                                                           &memory, &layer),
                     UTVM_OK);
    check_layer(layer, dw_kernel, &c, dims_elems(&c.in), dims_elems(&c.out), "DEPTHWISE_CONV_2D");
    free(w);
    free(b);
  }
}

typedef struct {
  utvm_activation_f32_t p;
  int32_t batches, depth, units;
  const float *w, *b;
} fc_ctx_t;

static utvm_err_t fc_kernel(const void *ctx, const float *input, float *output) {
  const fc_ctx_t *c = ctx;
  return utvm_fully_connected_f32(&c->p, c->batches, c->depth, c->units, input, c->w, c->b,
                                  output);
}

static void test_fully_connected(void **state) {
  (void)state;
  for (int i = 0; i < 30; i++) {
    fc_ctx_t c;
    memset(&c, 0, sizeof(c));
    c.batches = rand_in(1, 3);
    c.depth = rand_in(1, 300);
    c.units = rand_in(1, 40);
    random_activation(&c.p.act_min, &c.p.act_max);
    float *w = rand_buffer(elems(c.units, c.depth, 1, 1));
    float *b = (i % 3 == 0) ? NULL : rand_buffer(elems(c.units, 1, 1, 1));
    c.w = w;
    c.b = b;
    utvm_acl_layer_t *layer = NULL;
    assert_int_equal(utvm_acl_fully_connected_f32_prepare(&c.p, c.batches, c.depth, c.units, w, b,
                                                          &memory, &layer),
                     UTVM_OK);
    check_layer(layer, fc_kernel, &c, elems(c.batches, c.depth, 1, 1), elems(c.batches, c.units, 1, 1),
                "FULLY_CONNECTED");
    free(w);
    free(b);
  }
}

typedef struct {
  int32_t average;
  utvm_pool2d_f32_params_t p;
  utvm_dims_t in, out;
} pool_ctx_t;

static utvm_err_t pool_kernel(const void *ctx, const float *input, float *output) {
  const pool_ctx_t *c = ctx;
  return c->average ? utvm_avg_pool2d_f32(&c->p, &c->in, input, &c->out, output)
                    : utvm_max_pool2d_f32(&c->p, &c->in, input, &c->out, output);
}

static void test_pools(void **state) {
  (void)state;
  for (int i = 0; i < 40; i++) {
    pool_ctx_t c;
    memset(&c, 0, sizeof(c));
    const int same = (int)(next_u32() % 2u);
    c.average = i % 2;
    c.in = (utvm_dims_t){1, rand_in(2, 12), rand_in(2, 12), rand_in(1, 16)};
    c.p.filter_h = rand_in(1, 3);
    c.p.filter_w = rand_in(1, 3);
    c.p.stride_h = rand_in(1, 2);
    c.p.stride_w = rand_in(1, 2);
    int32_t oh, ow;
    axis(c.in.h, c.p.filter_h, c.p.stride_h, 1, same, &oh, &c.p.pad_top);
    axis(c.in.w, c.p.filter_w, c.p.stride_w, 1, same, &ow, &c.p.pad_left);
    if ((oh < 1) || (ow < 1)) {
      continue;
    }
    c.out = (utvm_dims_t){1, oh, ow, c.in.c};
    random_activation(&c.p.act_min, &c.p.act_max);
    utvm_acl_layer_t *layer = NULL;
    assert_int_equal(utvm_acl_pool2d_f32_prepare(c.average, &c.p, &c.in, &c.out, &memory, &layer),
                     UTVM_OK);
    check_layer(layer, pool_kernel, &c, dims_elems(&c.in), dims_elems(&c.out), c.average ? "AVERAGE_POOL_2D" : "MAX_POOL_2D");
  }
}

static void test_refusals(void **state) {
  (void)state;
  utvm_conv2d_f32_params_t p = {1, 1, 1, 1, 0, 0, -FLT_MAX, FLT_MAX};
  const utvm_dims_t in = {1, 4, 4, 4};
  const utvm_dims_t grouped = {2, 1, 1, 2}; /* two groups of two channels */
  const utvm_dims_t out = {1, 4, 4, 2};
  float w[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  utvm_acl_layer_t *layer = (utvm_acl_layer_t *)&p;
  assert_int_equal(utvm_acl_conv2d_f32_prepare(&p, &in, &grouped, w, NULL, &out, &memory, &layer),
                   UTVM_ERR_ACL_UNSUPPORTED);
  const utvm_dims_t plain = {2, 1, 1, 4};
  assert_int_equal(utvm_acl_conv2d_f32_prepare(&p, &in, &plain, w, NULL, &out, NULL, &layer),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_null(layer);
  p.stride_h = 0;
  assert_int_equal(utvm_acl_conv2d_f32_prepare(&p, &in, &plain, w, NULL, &out, &memory, &layer),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  p.stride_h = 1;
  const utvm_dims_t wrong = {1, 4, 4, 3};
  assert_int_equal(utvm_acl_conv2d_f32_prepare(&p, &in, &plain, w, NULL, &wrong, &memory, &layer),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
  /* An allocator with nothing to give: the layer is refused, nothing leaks. */
  const utvm_acl_memory_t none = {stack_alloc, stack_free, &stack};
  size_t saved_top = stack.top;
  stack.top = STACK_BYTES;
  utvm_activation_f32_t a = {-FLT_MAX, FLT_MAX};
  float big[64 * 64];
  memset(big, 0, sizeof(big));
  utvm_err_t err = utvm_acl_fully_connected_f32_prepare(&a, 1, 64, 64, big, NULL, &none, &layer);
  stack.top = saved_top;
  if (err == UTVM_OK) {
    utvm_acl_layer_free(layer); /* this layer took no auxiliary memory */
  } else {
    assert_int_equal(err, UTVM_ERR_ACL_MEMORY);
  }
  assert_int_equal(stack.live, 0u);
  assert_string_equal(utvm_acl_version(), "v20.08");
  assert_int_equal(utvm_acl_layer_run(NULL, w, w), UTVM_ERR_KERNEL_BAD_PARAM);
}

int main(void) {
  stack.base = malloc(STACK_BYTES);
  assert_non_null(stack.base);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv2d),      cmocka_unit_test(test_depthwise),
      cmocka_unit_test(test_fully_connected), cmocka_unit_test(test_pools),
      cmocka_unit_test(test_refusals)};
  int failed = cmocka_run_group_tests_name("acl", tests, NULL, NULL);
  free(stack.base);
  return failed;
}

/*
 * The layout kernels (any element size: strided copy, concatenation) on random shapes against index loops written here
 * independently (unravel an output index, map its coordinates, ravel the input's), and their
 * parameter checks.
 */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "utvm/kernels.h"

#define MAX_ELEMENTS 4096
#define MAX_BYTES (MAX_ELEMENTS * 4)

static uint32_t rng_state = 12345u;

static uint32_t rng(uint32_t n) {
  rng_state = rng_state * 1664525u + 1013904223u;
  return (rng_state >> 8) % n;
}

static uint8_t input[MAX_BYTES];
static uint8_t output[MAX_BYTES];
static uint8_t expected[MAX_BYTES];

static void fill_input(void) {
  for (int32_t i = 0; i < MAX_BYTES; ++i) {
    input[i] = (uint8_t)rng(256u);
  }
}

/* Row-major coordinates of flat index i over dims[rank]. */
static void unravel(int32_t i, int32_t rank, const int32_t *dims, int32_t *coords) {
  for (int32_t d = rank - 1; d >= 0; --d) {
    coords[d] = i % dims[d];
    i /= dims[d];
  }
}

static int32_t ravel(int32_t rank, const int32_t *dims, const int32_t *coords) {
  int32_t i = 0;
  for (int32_t d = 0; d < rank; ++d) {
    i = i * dims[d] + coords[d];
  }
  return i;
}

/* Random dims of rank whose product is at most MAX_ELEMENTS. */
static int32_t random_dims(int32_t rank, int32_t *dims) {
  int32_t count = 1;
  for (int32_t d = 0; d < rank; ++d) {
    dims[d] = 1 + (int32_t)rng(5u);
    if (count * dims[d] > MAX_ELEMENTS / 2) {
      dims[d] = 1;
    }
    count *= dims[d];
  }
  return count;
}

static void test_transpose_random(void **state) {
  (void)state;
  for (int32_t round = 0; round < 600; ++round) {
    const int32_t size = (int32_t[]){1, 2, 4}[round % 3];
    const int32_t rank = 1 + (int32_t)rng(UTVM_STRIDED_COPY_MAX_RANK);
    int32_t in_dims[6];
    int32_t out_dims[6];
    int32_t perm[6];
    const int32_t count = random_dims(rank, in_dims);
    for (int32_t d = 0; d < rank; ++d) {
      perm[d] = d;
    }
    for (int32_t d = rank - 1; d > 0; --d) {
      const int32_t k = (int32_t)rng((uint32_t)d + 1u);
      const int32_t t = perm[d];
      perm[d] = perm[k];
      perm[k] = t;
    }
    utvm_strided_copy_params_t p;
    memset(&p, 0, sizeof(p));
    p.element_size = size;
    p.input_elements = count;
    p.rank = rank;
    for (int32_t d = 0; d < rank; ++d) {
      int32_t stride = 1;
      for (int32_t k = perm[d] + 1; k < rank; ++k) {
        stride *= in_dims[k];
      }
      out_dims[d] = in_dims[perm[d]];
      p.dims[d] = out_dims[d];
      p.strides[d] = stride;
    }
    fill_input();
    for (int32_t o = 0; o < count; ++o) {
      int32_t oc[6];
      int32_t ic[6];
      unravel(o, rank, out_dims, oc);
      for (int32_t d = 0; d < rank; ++d) {
        ic[perm[d]] = oc[d];
      }
      memcpy(&expected[o * size], &input[ravel(rank, in_dims, ic) * size], (size_t)size);
    }
    memset(output, 0xA5, sizeof(output));
    assert_int_equal(utvm_strided_copy(&p, input, output), UTVM_OK);
    assert_memory_equal(output, expected, (size_t)(count * size));
    assert_int_equal(output[count * size], 0xA5); /* nothing written past the output */
  }
}

/* Slices with any begin and step (negative too) per axis. */
static void test_strided_slice_random(void **state) {
  (void)state;
  for (int32_t round = 0; round < 600; ++round) {
    const int32_t size = (int32_t[]){1, 2, 4}[round % 3];
    const int32_t rank = 1 + (int32_t)rng(UTVM_STRIDED_COPY_MAX_RANK);
    int32_t in_dims[6];
    int32_t out_dims[6];
    int32_t begin[6];
    int32_t step[6];
    const int32_t in_count = random_dims(rank, in_dims);
    int32_t count = 1;
    utvm_strided_copy_params_t p;
    memset(&p, 0, sizeof(p));
    p.element_size = size;
    p.input_elements = in_count;
    p.rank = rank;
    for (int32_t d = 0; d < rank; ++d) {
      int32_t stride = 1;
      for (int32_t k = d + 1; k < rank; ++k) {
        stride *= in_dims[k];
      }
      begin[d] = (int32_t)rng((uint32_t)in_dims[d]);
      step[d] = (rng(2u) == 0u) ? 1 + (int32_t)rng(3u) : -1 - (int32_t)rng(3u);
      const int32_t room = (step[d] > 0) ? in_dims[d] - begin[d] : begin[d] + 1;
      const int32_t magnitude = (step[d] > 0) ? step[d] : -step[d];
      out_dims[d] = 1 + (int32_t)rng((uint32_t)((room + magnitude - 1) / magnitude));
      count *= out_dims[d];
      p.dims[d] = out_dims[d];
      p.strides[d] = step[d] * stride;
      p.start += begin[d] * stride;
    }
    fill_input();
    for (int32_t o = 0; o < count; ++o) {
      int32_t oc[6];
      int32_t ic[6];
      unravel(o, rank, out_dims, oc);
      for (int32_t d = 0; d < rank; ++d) {
        ic[d] = begin[d] + oc[d] * step[d];
        assert_true(ic[d] >= 0 && ic[d] < in_dims[d]);
      }
      memcpy(&expected[o * size], &input[ravel(rank, in_dims, ic) * size], (size_t)size);
    }
    assert_int_equal(utvm_strided_copy(&p, input, output), UTVM_OK);
    assert_memory_equal(output, expected, (size_t)(count * size));
  }
}

static void test_strided_copy_checks(void **state) {
  (void)state;
  const utvm_strided_copy_params_t ok = {2, 6, 1, 2, {2, 2}, {3, 1}};
  utvm_strided_copy_params_t p = ok;
  const int16_t in[6] = {10, 11, 12, 13, 14, 15};
  int16_t out[4] = {0};
  assert_int_equal(utvm_strided_copy(&p, in, out), UTVM_OK);
  assert_int_equal(out[0], 11);
  assert_int_equal(out[1], 12);
  assert_int_equal(out[2], 14);
  assert_int_equal(out[3], 15);
  assert_int_equal(utvm_strided_copy(NULL, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_strided_copy(&p, NULL, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_strided_copy(&p, in, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
  p.element_size = 3;
  assert_int_equal(utvm_strided_copy(&p, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.rank = 0;
  assert_int_equal(utvm_strided_copy(&p, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  p.rank = 7;
  assert_int_equal(utvm_strided_copy(&p, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  p = ok;
  p.dims[1] = 0;
  assert_int_equal(utvm_strided_copy(&p, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  p = ok;
  p.start = 2; /* the last read would be element 6 */
  assert_int_equal(utvm_strided_copy(&p, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  p = ok;
  p.strides[0] = -3; /* the first row would start at element -2 */
  assert_int_equal(utvm_strided_copy(&p, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  p.start = 4; /* rows 4..5 then 1..2 */
  assert_int_equal(utvm_strided_copy(&p, in, out), UTVM_OK);
  assert_int_equal(out[0], 14);
  assert_int_equal(out[2], 11);
  p = ok;
  p.input_elements = 0;
  assert_int_equal(utvm_strided_copy(&p, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  p = ok;
  p.dims[0] = 65536;
  p.dims[1] = 65536;
  p.strides[0] = 0;
  p.strides[1] = 0;
  assert_int_equal(utvm_strided_copy(&p, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
}

/* Concatenations of random [outer, size_i, inner] blocks: output element (o, a, i) is input
 * k's (o, a - the sizes before k, i). */
static void test_concatenation_random(void **state) {
  (void)state;
  for (int32_t round = 0; round < 300; ++round) {
    const int32_t size = (int32_t[]){1, 2, 4}[round % 3];
    utvm_concat_params_t p;
    memset(&p, 0, sizeof(p));
    p.element_size = size;
    p.n_inputs = 1 + (int32_t)rng(UTVM_CONCAT_MAX_INPUTS);
    p.outer = 1 + (int32_t)rng(4u);
    p.inner = 1 + (int32_t)rng(5u);
    const void *inputs[UTVM_CONCAT_MAX_INPUTS];
    int32_t total = 0;
    int32_t at = 0;
    fill_input();
    for (int32_t k = 0; k < p.n_inputs; ++k) {
      p.axis_sizes[k] = 1 + (int32_t)rng(4u);
      inputs[k] = &input[at * size];
      at += p.outer * p.axis_sizes[k] * p.inner;
      total += p.axis_sizes[k];
    }
    const int32_t count = p.outer * total * p.inner;
    for (int32_t e = 0; e < count; ++e) {
      const int32_t o = e / (total * p.inner);
      int32_t a = (e / p.inner) % total;
      const int32_t i = e % p.inner;
      int32_t k = 0;
      while (a >= p.axis_sizes[k]) {
        a -= p.axis_sizes[k];
        ++k;
      }
      const uint8_t *in = (const uint8_t *)inputs[k];
      const int32_t from = (o * p.axis_sizes[k] + a) * p.inner + i;
      memcpy(&expected[e * size], &in[from * size], (size_t)size);
    }
    assert_int_equal(utvm_concatenation(&p, inputs, output), UTVM_OK);
    assert_memory_equal(output, expected, (size_t)(count * size));
  }
}

static void test_concatenation_checks(void **state) {
  (void)state;
  const int16_t a[2] = {1, 2};
  const int16_t b[4] = {3, 4, 5, 6};
  const void *inputs[2] = {a, b};
  int16_t out[6] = {0};
  const utvm_concat_params_t ok = {2, 2, 2, 1, {1, 2}};
  utvm_concat_params_t p = ok;
  assert_int_equal(utvm_concatenation(&p, inputs, out), UTVM_OK);
  const int16_t want[6] = {1, 3, 4, 2, 5, 6};
  assert_memory_equal(out, want, sizeof(want));
  assert_int_equal(utvm_concatenation(NULL, inputs, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_concatenation(&p, NULL, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_concatenation(&p, inputs, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
  p.element_size = 8;
  assert_int_equal(utvm_concatenation(&p, inputs, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.n_inputs = 0;
  assert_int_equal(utvm_concatenation(&p, inputs, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p.n_inputs = UTVM_CONCAT_MAX_INPUTS + 1;
  assert_int_equal(utvm_concatenation(&p, inputs, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.axis_sizes[1] = 0;
  assert_int_equal(utvm_concatenation(&p, inputs, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  p = ok;
  p.outer = 0;
  assert_int_equal(utvm_concatenation(&p, inputs, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  p = ok;
  p.outer = 65536;
  p.inner = 65536;
  assert_int_equal(utvm_concatenation(&p, inputs, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  const void *missing[2] = {a, NULL};
  assert_int_equal(utvm_concatenation(&ok, missing, out), UTVM_ERR_KERNEL_BAD_PARAM);
}

/* Views: an input that is its own block of the output, or an output that is its own block of
 * the input, comes out unchanged (the kernels skip the memcpy onto itself, which C leaves
 * undefined and ASan lets pass). */
static void test_views_not_copied(void **state) {
  (void)state;
  int16_t whole[6] = {1, 2, 3, 4, 5, 6};
  const void *inputs[2] = {whole, &whole[2]};
  const utvm_concat_params_t concat = {2, 2, 1, 1, {2, 4}};
  assert_int_equal(utvm_concatenation(&concat, inputs, whole), UTVM_OK);
  const int16_t want[6] = {1, 2, 3, 4, 5, 6};
  assert_memory_equal(whole, want, sizeof(want));
  const int8_t *pieces[2] = {(const int8_t *)(const void *)whole,
                             (const int8_t *)(const void *)&whole[2]};
  const utvm_shape_t shapes[3] = {{1, {4}}, {1, {8}}, {1, {12}}};
  assert_int_equal(utvm_concatenation_s8(2, pieces, shapes, 0, &shapes[2], (int8_t *)(void *)whole),
                   UTVM_OK);
  assert_memory_equal(whole, want, sizeof(want));
  const utvm_split_params_t split = {1, 6, 4, 2, 1, 2};
  assert_int_equal(utvm_split(&split, whole, &whole[2]), UTVM_OK);
  assert_memory_equal(whole, want, sizeof(want));
}

/* The input coordinate of output coordinate o (TFLM's MirrorPad formula with an edge offset
 * of 1 for REFLECT, 0 for SYMMETRIC), or -1 for the constant. */
static int32_t pad_reference(int32_t o, int32_t before, int32_t n, int32_t mode) {
  const int32_t offset = mode == UTVM_PAD_REFLECT ? 1 : 0;
  if (o < before) {
    return mode == UTVM_PAD_CONSTANT ? -1 : before + offset - 1 - o;
  }
  if (o - before >= n) {
    return mode == UTVM_PAD_CONSTANT ? -1 : n - 1 - offset - (o - before - n);
  }
  return o - before;
}

/* PAD, PADV2 and MIRROR_PAD on random 4-D shapes, paddings and modes. */
static void test_pad_random(void **state) {
  (void)state;
  for (int32_t round = 0; round < 600; ++round) {
    const int32_t size = (int32_t[]){1, 2, 4}[round % 3];
    int32_t in_dims[4];
    int32_t out_dims[4];
    utvm_pad_any_params_t p;
    memset(&p, 0, sizeof(p));
    p.element_size = size;
    p.mode = (int32_t)rng(3u);
    p.pad_value = size == 1 ? -100 : (size == 2 ? -30000 : 0x12345678);
    random_dims(4, in_dims);
    int32_t count = 1;
    for (int32_t d = 0; d < 4; ++d) {
      const int32_t most = p.mode == UTVM_PAD_CONSTANT ? 3
                           : (p.mode == UTVM_PAD_REFLECT ? in_dims[d] - 1 : in_dims[d]);
      p.before[d] = (int32_t)rng((uint32_t)(most < 3 ? most : 3) + 1u);
      p.after[d] = (int32_t)rng((uint32_t)(most < 3 ? most : 3) + 1u);
      out_dims[d] = in_dims[d] + p.before[d] + p.after[d];
      count *= out_dims[d];
    }
    if (count > MAX_ELEMENTS) {
      continue;
    }
    fill_input();
    for (int32_t o = 0; o < count; ++o) {
      int32_t oc[4];
      int32_t ic[4];
      bool border = false;
      unravel(o, 4, out_dims, oc);
      for (int32_t d = 0; d < 4; ++d) {
        ic[d] = pad_reference(oc[d], p.before[d], in_dims[d], p.mode);
        border = border || ic[d] < 0;
        assert_true(ic[d] < in_dims[d]);
      }
      if (border) {
        const int8_t v8 = (int8_t)p.pad_value;
        const int16_t v16 = (int16_t)p.pad_value;
        memcpy(&expected[o * size], size == 1 ? (const void *)&v8
                                              : (size == 2 ? (const void *)&v16
                                                           : (const void *)&p.pad_value),
               (size_t)size);
      } else {
        memcpy(&expected[o * size], &input[ravel(4, in_dims, ic) * size], (size_t)size);
      }
    }
    const utvm_dims_t dims = {in_dims[0], in_dims[1], in_dims[2], in_dims[3]};
    memset(output, 0xA5, sizeof(output));
    assert_int_equal(utvm_pad(&p, &dims, input, output), UTVM_OK);
    assert_memory_equal(output, expected, (size_t)(count * size));
    assert_int_equal(output[count * size], 0xA5);
  }
}

static void test_pad_checks(void **state) {
  (void)state;
  const int16_t in[3] = {1, 2, 3};
  int16_t out[9] = {0};
  const utvm_dims_t dims = {1, 1, 1, 3};
  const utvm_pad_any_params_t ok = {2, UTVM_PAD_REFLECT, {0, 0, 0, 2}, {0, 0, 0, 2}, 0};
  utvm_pad_any_params_t p = ok;
  assert_int_equal(utvm_pad(&p, &dims, in, out), UTVM_OK);
  const int16_t reflect[7] = {3, 2, 1, 2, 3, 2, 1};
  assert_memory_equal(out, reflect, sizeof(reflect));
  p.mode = UTVM_PAD_SYMMETRIC;
  p.before[3] = 3;
  assert_int_equal(utvm_pad(&p, &dims, in, out), UTVM_OK);
  const int16_t symmetric[8] = {3, 2, 1, 1, 2, 3, 3, 2};
  assert_memory_equal(out, symmetric, sizeof(symmetric));
  p.before[3] = 4; /* past SYMMETRIC's limit */
  assert_int_equal(utvm_pad(&p, &dims, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.after[3] = 3; /* past REFLECT's limit */
  assert_int_equal(utvm_pad(&p, &dims, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.mode = UTVM_PAD_CONSTANT;
  p.pad_value = -7;
  p.after[3] = 4;
  assert_int_equal(utvm_pad(&p, &dims, in, out), UTVM_OK);
  const int16_t constant[9] = {-7, -7, 1, 2, 3, -7, -7, -7, -7};
  assert_memory_equal(out, constant, sizeof(constant));
  p.pad_value = 40000;
  assert_int_equal(utvm_pad(&p, &dims, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p.element_size = 1;
  p.pad_value = 128;
  assert_int_equal(utvm_pad(&p, &dims, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.mode = 3;
  assert_int_equal(utvm_pad(&p, &dims, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.element_size = 3;
  assert_int_equal(utvm_pad(&p, &dims, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.before[0] = -1;
  assert_int_equal(utvm_pad(&p, &dims, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_pad(NULL, &dims, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_pad(&ok, &dims, NULL, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_pad(&ok, &dims, in, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
  const utvm_dims_t empty = {1, 0, 1, 3};
  assert_int_equal(utvm_pad(&ok, &empty, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  p = ok;
  p.mode = UTVM_PAD_CONSTANT;
  p.after[0] = 65535;
  p.after[1] = 65535;
  assert_int_equal(utvm_pad(&p, &dims, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  p.after[0] = INT32_MAX; /* one dimension past int32 */
  p.after[1] = INT32_MAX;
  p.before[0] = INT32_MAX;
  assert_int_equal(utvm_pad(&p, &dims, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
}

/* DEPTH_TO_SPACE and SPACE_TO_DEPTH as the operators' 6-D strided copies, against TFLite's
 * index formulas: depth-to-space output (n, y, x, k) is input (n, y/b, x/b,
 * ((y%b)*b + x%b)*c' + k); space-to-depth is its inverse. */
static void test_depth_space_random(void **state) {
  (void)state;
  for (int32_t round = 0; round < 400; ++round) {
    const int32_t size = (int32_t[]){1, 2, 4}[round % 3];
    const int32_t b = 1 + (int32_t)rng(3u);
    const int32_t n = 1 + (int32_t)rng(2u);
    const int32_t h = 1 + (int32_t)rng(4u);
    const int32_t w = 1 + (int32_t)rng(4u);
    const int32_t k = 1 + (int32_t)rng(3u);
    const int32_t count = n * h * b * w * b * k; /* both directions move this many */
    if (count > MAX_ELEMENTS) {
      continue;
    }
    fill_input();
    /* depth to space: input [n, h, w, b*b*k] -> output [n, h*b, w*b, k] */
    const int32_t c = b * b * k;
    utvm_strided_copy_params_t p = {size, count, 0, 6, {n, h, b, w, b, k},
                                    {h * w * c, w * c, b * k, c, k, 1}};
    for (int32_t o = 0; o < count; ++o) {
      const int32_t od[4] = {n, h * b, w * b, k};
      int32_t oc[4];
      unravel(o, 4, od, oc);
      const int32_t ic[4] = {oc[0], oc[1] / b, oc[2] / b, ((oc[1] % b) * b + oc[2] % b) * k + oc[3]};
      const int32_t id[4] = {n, h, w, c};
      memcpy(&expected[o * size], &input[ravel(4, id, ic) * size], (size_t)size);
    }
    assert_int_equal(utvm_strided_copy(&p, input, output), UTVM_OK);
    assert_memory_equal(output, expected, (size_t)(count * size));
    /* space to depth: input [n, h*b, w*b, k] -> output [n, h, w, b*b*k] */
    const int32_t iw = w * b;
    utvm_strided_copy_params_t q = {size, count, 0, 6, {n, h, w, b, b, k},
                                    {h * b * iw * k, b * iw * k, b * k, iw * k, k, 1}};
    for (int32_t o = 0; o < count; ++o) {
      const int32_t od[4] = {n, h, w, c};
      int32_t oc[4];
      unravel(o, 4, od, oc);
      const int32_t block = oc[3] / k;
      const int32_t ic[4] = {oc[0], oc[1] * b + block / b, oc[2] * b + block % b, oc[3] % k};
      const int32_t id[4] = {n, h * b, iw, k};
      memcpy(&expected[o * size], &input[ravel(4, id, ic) * size], (size_t)size);
    }
    assert_int_equal(utvm_strided_copy(&q, input, output), UTVM_OK);
    assert_memory_equal(output, expected, (size_t)(count * size));
  }
}

/* SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND on random shapes, blocks and paddings, against
 * loops over the other tensor: to batch, each batch pixel found from the space one it came
 * from; to space, each space pixel (n, y, x) from batch (((y+top)%bh)*bw + (x+left)%bw)*n + n0. */
static void test_space_batch_random(void **state) {
  (void)state;
  for (int32_t round = 0; round < 400; ++round) {
    const int32_t size = (int32_t[]){1, 2, 4}[round % 3];
    utvm_space_batch_params_t p;
    memset(&p, 0, sizeof(p));
    p.element_size = size;
    p.block[0] = 1 + (int32_t)rng(3u);
    p.block[1] = 1 + (int32_t)rng(3u);
    p.before[0] = (int32_t)rng(3u);
    p.before[1] = (int32_t)rng(3u);
    p.pad_value = size == 1 ? 77 : (size == 2 ? -1234 : 0x0BADF00D);
    const utvm_dims_t s = {1 + (int32_t)rng(2u), 1 + (int32_t)rng(5u), 1 + (int32_t)rng(5u),
                           1 + (int32_t)rng(3u)};
    const int32_t after_h = (int32_t)rng(3u);
    const int32_t after_w = (int32_t)rng(3u);
    /* the batch tensor covers before + h + after, rounded up to the block */
    const int32_t bh = (p.before[0] + s.h + after_h + p.block[0] - 1) / p.block[0];
    const int32_t bw = (p.before[1] + s.w + after_w + p.block[1] - 1) / p.block[1];
    const utvm_dims_t b = {s.n * p.block[0] * p.block[1], bh, bw, s.c};
    const int32_t space_count = s.n * s.h * s.w * s.c;
    const int32_t batch_count = b.n * b.h * b.w * b.c;
    if (batch_count > MAX_ELEMENTS) {
      continue;
    }
    const int32_t sd[4] = {s.n, s.h, s.w, s.c};
    const int32_t bd[4] = {b.n, b.h, b.w, b.c};
    fill_input();
    p.to_batch = 1;
    for (int32_t o = 0; o < batch_count; ++o) {
      int32_t oc[4];
      unravel(o, 4, bd, oc);
      const int32_t block = oc[0] / s.n;
      const int32_t ic[4] = {oc[0] % s.n, oc[1] * p.block[0] + block / p.block[1] - p.before[0],
                             oc[2] * p.block[1] + block % p.block[1] - p.before[1], oc[3]};
      if (ic[1] < 0 || ic[1] >= s.h || ic[2] < 0 || ic[2] >= s.w) {
        const int8_t v8 = (int8_t)p.pad_value;
        const int16_t v16 = (int16_t)p.pad_value;
        memcpy(&expected[o * size], size == 1 ? (const void *)&v8
                                              : (size == 2 ? (const void *)&v16
                                                           : (const void *)&p.pad_value),
               (size_t)size);
      } else {
        memcpy(&expected[o * size], &input[ravel(4, sd, ic) * size], (size_t)size);
      }
    }
    assert_int_equal(utvm_space_batch(&p, &s, &b, input, output), UTVM_OK);
    assert_memory_equal(output, expected, (size_t)(batch_count * size));
    p.to_batch = 0;
    for (int32_t o = 0; o < space_count; ++o) {
      int32_t oc[4];
      unravel(o, 4, sd, oc);
      const int32_t y = oc[1] + p.before[0];
      const int32_t x = oc[2] + p.before[1];
      const int32_t ic[4] = {((y % p.block[0]) * p.block[1] + x % p.block[1]) * s.n + oc[0],
                             y / p.block[0], x / p.block[1], oc[3]};
      memcpy(&expected[o * size], &input[ravel(4, bd, ic) * size], (size_t)size);
    }
    memset(output, 0xA5, sizeof(output));
    assert_int_equal(utvm_space_batch(&p, &s, &b, input, output), UTVM_OK);
    assert_memory_equal(output, expected, (size_t)(space_count * size));
    assert_int_equal(output[space_count * size], 0xA5);
  }
}

static void test_space_batch_checks(void **state) {
  (void)state;
  const int8_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  int8_t out[8] = {0};
  const utvm_dims_t s = {1, 2, 2, 2};
  const utvm_dims_t b = {4, 1, 1, 2};
  const utvm_space_batch_params_t ok = {1, 1, {2, 2}, {0, 0}, 0};
  utvm_space_batch_params_t p = ok;
  assert_int_equal(utvm_space_batch(&p, &s, &b, in, out), UTVM_OK);
  const int8_t want[8] = {1, 2, 3, 4, 5, 6, 7, 8}; /* each pixel its own batch */
  assert_memory_equal(out, want, sizeof(want));
  assert_int_equal(utvm_space_batch(NULL, &s, &b, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_space_batch(&p, &s, &b, NULL, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_space_batch(&p, &s, &b, in, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
  p.element_size = 3;
  assert_int_equal(utvm_space_batch(&p, &s, &b, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.to_batch = 2;
  assert_int_equal(utvm_space_batch(&p, &s, &b, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.block[1] = 0;
  assert_int_equal(utvm_space_batch(&p, &s, &b, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.before[0] = 1; /* the batch tensor no longer covers the space one */
  assert_int_equal(utvm_space_batch(&p, &s, &b, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.before[1] = -1;
  assert_int_equal(utvm_space_batch(&p, &s, &b, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.pad_value = 200;
  assert_int_equal(utvm_space_batch(&p, &s, &b, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  const utvm_dims_t b3 = {3, 1, 1, 2};
  assert_int_equal(utvm_space_batch(&ok, &s, &b3, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.block[0] = INT32_MAX; /* the block count would pass int64 with the batch */
  p.block[1] = INT32_MAX;
  assert_int_equal(utvm_space_batch(&p, &s, &b, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  const utvm_dims_t b_depth = {4, 1, 1, 1};
  assert_int_equal(utvm_space_batch(&ok, &s, &b_depth, in, out), UTVM_ERR_KERNEL_BAD_PARAM);
  const utvm_dims_t empty = {4, 0, 1, 2};
  assert_int_equal(utvm_space_batch(&ok, &s, &empty, in, out), UTVM_ERR_KERNEL_BAD_SHAPE);
}

/* GATHER on random sizes with int32 and int64 indices: output (b, o, k, i) is input
 * (b, o, indices[b*coords + k], i). */
static void test_gather_random(void **state) {
  (void)state;
  static uint8_t indices[MAX_ELEMENTS * 8];
  for (int32_t round = 0; round < 400; ++round) {
    const int32_t size = (int32_t[]){1, 2, 4}[round % 3];
    const utvm_gather_params_t p = {size, (round % 2 == 0) ? 4 : 8, 1 + (int32_t)rng(3u),
                                    1 + (int32_t)rng(3u), 1 + (int32_t)rng(5u),
                                    1 + (int32_t)rng(5u), 1 + (int32_t)rng(4u)};
    const int32_t count = p.batch * p.outer * p.coords * p.inner;
    fill_input();
    for (int32_t i = 0; i < p.batch * p.coords; ++i) {
      const int32_t v = (int32_t)rng((uint32_t)p.axis_size);
      const int64_t v64 = v;
      memcpy(&indices[i * p.index_size], p.index_size == 8 ? (const void *)&v64 : (const void *)&v,
             (size_t)p.index_size);
    }
    for (int32_t e = 0; e < count; ++e) {
      const int32_t od[4] = {p.batch, p.outer, p.coords, p.inner};
      int32_t oc[4];
      unravel(e, 4, od, oc);
      int32_t v = 0;
      memcpy(&v, &indices[(oc[0] * p.coords + oc[2]) * p.index_size], 4u); /* little-endian */
      const int32_t id[4] = {p.batch, p.outer, p.axis_size, p.inner};
      const int32_t ic[4] = {oc[0], oc[1], v, oc[3]};
      memcpy(&expected[e * size], &input[ravel(4, id, ic) * size], (size_t)size);
    }
    assert_int_equal(utvm_gather(&p, input, indices, output), UTVM_OK);
    assert_memory_equal(output, expected, (size_t)(count * size));
  }
}

static void test_gather_checks(void **state) {
  (void)state;
  const int16_t in[6] = {10, 11, 12, 13, 14, 15};
  const int32_t idx[2] = {2, 0};
  const int64_t idx64[2] = {1, 3};
  const int32_t negative[2] = {0, -1};
  int16_t out[4] = {0};
  const utvm_gather_params_t ok = {2, 4, 1, 2, 3, 2, 1}; /* [2, 3] along axis 1 */
  utvm_gather_params_t p = ok;
  assert_int_equal(utvm_gather(&p, in, idx, out), UTVM_OK);
  const int16_t want[4] = {12, 10, 15, 13};
  assert_memory_equal(out, want, sizeof(want));
  p.index_size = 8;
  memset(out, 0, sizeof(out));
  assert_int_equal(utvm_gather(&p, in, idx64, out), UTVM_ERR_KERNEL_BAD_PARAM); /* 3 >= 3 */
  assert_int_equal(out[0], 0); /* nothing written */
  p = ok;
  assert_int_equal(utvm_gather(&p, in, negative, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p.index_size = 2;
  assert_int_equal(utvm_gather(&p, in, idx, out), UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.element_size = 3;
  assert_int_equal(utvm_gather(&p, in, idx, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_gather(NULL, in, idx, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_gather(&ok, NULL, idx, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_gather(&ok, in, NULL, out), UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_gather(&ok, in, idx, NULL), UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.coords = 0;
  assert_int_equal(utvm_gather(&p, in, idx, out), UTVM_ERR_KERNEL_BAD_SHAPE);
  p = ok;
  p.outer = 65536;
  p.inner = 65536;
  assert_int_equal(utvm_gather(&p, in, idx, out), UTVM_ERR_KERNEL_BAD_SHAPE);
}

/* RESIZE_NEAREST_NEIGHBOR on random sizes and every option pair: the source index of each
 * output coordinate as TFLite computes it (float scale, floor or round, clamped). */
static void test_resize_nearest_random(void **state) {
  (void)state;
  for (int32_t round = 0; round < 400; ++round) {
    const int32_t size = (int32_t[]){1, 2, 4}[round % 3];
    const utvm_resize_params_t p = {size, (int32_t)rng(2u), (int32_t)rng(2u)};
    const utvm_dims_t in = {1 + (int32_t)rng(2u), 1 + (int32_t)rng(7u), 1 + (int32_t)rng(7u),
                            1 + (int32_t)rng(3u)};
    const utvm_dims_t out = {in.n, 1 + (int32_t)rng(12u), 1 + (int32_t)rng(12u), in.c};
    const int32_t count = out.n * out.h * out.w * out.c;
    int32_t map_y[16];
    int32_t map_x[16];
    for (int32_t side = 0; side < 2; ++side) {
      const int32_t n_in = side == 0 ? in.h : in.w;
      const int32_t n_out = side == 0 ? out.h : out.w;
      int32_t *map = side == 0 ? map_y : map_x;
      float scale = (float)n_in / (float)n_out;
      if (p.align_corners == 1 && n_out > 1) {
        scale = (float)(n_in - 1) / (float)(n_out - 1);
      }
      for (int32_t o = 0; o < n_out; ++o) {
        const float f = ((float)o + (p.half_pixel_centers == 1 ? 0.5f : 0.0f)) * scale;
        int32_t v = p.align_corners == 1 ? (int32_t)roundf(f) : (int32_t)floorf(f);
        map[o] = v > n_in - 1 ? n_in - 1 : (v < 0 ? 0 : v);
      }
    }
    fill_input();
    for (int32_t e = 0; e < count; ++e) {
      const int32_t od[4] = {out.n, out.h, out.w, out.c};
      const int32_t id[4] = {in.n, in.h, in.w, in.c};
      int32_t oc[4];
      unravel(e, 4, od, oc);
      const int32_t ic[4] = {oc[0], map_y[oc[1]], map_x[oc[2]], oc[3]};
      memcpy(&expected[e * size], &input[ravel(4, id, ic) * size], (size_t)size);
    }
    assert_int_equal(utvm_resize_nearest(&p, &in, input, &out, output), UTVM_OK);
    assert_memory_equal(output, expected, (size_t)(count * size));
  }
}

static void test_resize_nearest_checks(void **state) {
  (void)state;
  const int16_t in[4] = {1, 2, 3, 4};
  int16_t out[16] = {0};
  const utvm_dims_t in_dims = {1, 2, 2, 1};
  const utvm_dims_t out_dims = {1, 4, 4, 1};
  const utvm_resize_params_t ok = {2, 0, 0};
  utvm_resize_params_t p = ok;
  assert_int_equal(utvm_resize_nearest(&p, &in_dims, in, &out_dims, out), UTVM_OK);
  const int16_t want[16] = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};
  assert_memory_equal(out, want, sizeof(want));
  p.align_corners = 2;
  assert_int_equal(utvm_resize_nearest(&p, &in_dims, in, &out_dims, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.half_pixel_centers = -1;
  assert_int_equal(utvm_resize_nearest(&p, &in_dims, in, &out_dims, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  p = ok;
  p.element_size = 8;
  assert_int_equal(utvm_resize_nearest(&p, &in_dims, in, &out_dims, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_resize_nearest(NULL, &in_dims, in, &out_dims, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  assert_int_equal(utvm_resize_nearest(&ok, &in_dims, NULL, &out_dims, out),
                   UTVM_ERR_KERNEL_BAD_PARAM);
  const utvm_dims_t deeper = {1, 4, 4, 2};
  assert_int_equal(utvm_resize_nearest(&ok, &in_dims, in, &deeper, out),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
  const utvm_dims_t empty = {1, 0, 4, 1};
  assert_int_equal(utvm_resize_nearest(&ok, &in_dims, in, &empty, out),
                   UTVM_ERR_KERNEL_BAD_SHAPE);
}

/* BROADCAST_TO as the operator's strided copy: a random input of up to 5 dimensions (some of
 * them 1, some missing in front) broadcast with stride 0; output element (i0..) is input
 * element (i_d or 0 where the input's dimension is 1). */
static void test_broadcast_random(void **state) {
  (void)state;
  for (int32_t round = 0; round < 400; ++round) {
    const int32_t size = (int32_t[]){1, 2, 4}[round % 3];
    const int32_t rank = 1 + (int32_t)rng(5u);
    const int32_t in_rank = 1 + (int32_t)rng((uint32_t)rank);
    const int32_t lead = rank - in_rank;
    int32_t out_dims[6];
    int32_t in_dims[6];
    const int32_t count = random_dims(rank, out_dims);
    int32_t in_count = 1;
    for (int32_t d = 0; d < in_rank; ++d) {
      in_dims[d] = rng(2u) == 0u ? 1 : out_dims[lead + d];
      in_count *= in_dims[d];
    }
    utvm_strided_copy_params_t p;
    memset(&p, 0, sizeof(p));
    p.element_size = size;
    p.input_elements = in_count;
    p.rank = rank;
    for (int32_t d = 0; d < rank; ++d) {
      int32_t stride = 0; /* a dimension the input lacks or has as 1 */
      if (d >= lead && in_dims[d - lead] != 1) {
        stride = 1;
        for (int32_t k = d - lead + 1; k < in_rank; ++k) {
          stride *= in_dims[k];
        }
      }
      p.dims[d] = out_dims[d];
      p.strides[d] = stride;
    }
    fill_input();
    for (int32_t o = 0; o < count; ++o) {
      int32_t oc[6];
      int32_t ic[6];
      unravel(o, rank, out_dims, oc);
      for (int32_t d = 0; d < in_rank; ++d) {
        ic[d] = in_dims[d] == 1 ? 0 : oc[lead + d];
      }
      memcpy(&expected[o * size], &input[ravel(in_rank, in_dims, ic) * size], (size_t)size);
    }
    assert_int_equal(utvm_strided_copy(&p, input, output), UTVM_OK);
    assert_memory_equal(output, expected, (size_t)(count * size));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_transpose_random),
      cmocka_unit_test(test_strided_slice_random),
      cmocka_unit_test(test_strided_copy_checks),
      cmocka_unit_test(test_concatenation_random),
      cmocka_unit_test(test_concatenation_checks),
      cmocka_unit_test(test_views_not_copied),
      cmocka_unit_test(test_pad_random),
      cmocka_unit_test(test_pad_checks),
      cmocka_unit_test(test_depth_space_random),
      cmocka_unit_test(test_space_batch_random),
      cmocka_unit_test(test_space_batch_checks),
      cmocka_unit_test(test_gather_random),
      cmocka_unit_test(test_gather_checks),
      cmocka_unit_test(test_resize_nearest_random),
      cmocka_unit_test(test_resize_nearest_checks),
      cmocka_unit_test(test_broadcast_random),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

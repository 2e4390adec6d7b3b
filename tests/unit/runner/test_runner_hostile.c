/*
 * Hostile models through the runner: every truncation and every single-byte corruption (XOR
 * with a few values) of hello_world, every byte of the chain_dscnn operator case corrupted and a
 * spread of truncations, and a spread of corruptions of the KWS model. Each variant is opened,
 * initialised and invoked (inputs filled with a pattern): it must be refused with a code and a
 * text, or run (an invoke error must name its operator); never crash or touch memory outside
 * the model, workspace and arena. Run it under the host-asan preset (ASan + UBSan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runner_test_util.h"

/* Arena limit for a variant: a corrupted shape may ask for gigabytes. */
#define HOSTILE_MAX_ARENA ((size_t)1u << 20)

typedef struct {
  uint32_t open_refused;
  uint32_t init_refused;
  uint32_t too_large;
  uint32_t invoke_failed;
  uint32_t ran;
  uint32_t shown; /* runner refusals printed as examples */
} outcome_t;

/* Opens, initialises and invokes one variant (copied into a block of exactly its size); every
 * other variant with patches (auto). */
static void exercise(const uint8_t *bytes, size_t size, outcome_t *out) {
  static uint32_t variants = 0u;
  rt_patches = ((variants++ % 2u) == 0u) ? UTVM_RUNNER_PATCHES_OFF : UTVM_RUNNER_PATCHES_AUTO;
  uint8_t *copy = (uint8_t *)malloc((size > 0u) ? size : 1u);
  assert_non_null(copy);
  if (size > 0u) {
    (void)memcpy(copy, bytes, size);
  }
  rt_instance_t in;
  const char *stage = "";
  utvm_err_t err = rt_setup(&in, copy, size, HOSTILE_MAX_ARENA, &stage);
  if (err != UTVM_OK) {
    if (strcmp(stage, "open") == 0) {
      assert_true(in.model.error[0] != '\0');
      out->open_refused++;
    } else if (strcmp(stage, "arena above the test's limit") == 0) {
      out->too_large++;
    } else {
      if (in.runner.error[0] == '\0') {
        fail_msg("init refused (%s, %s) without a text", stage, utvm_strerror(err));
      }
      /* Examples of the runner's own checks (the planner's data-flow texts aside). */
      if ((out->shown < 6u) && ((int)err >= (int)UTVM_ERR_KERNEL_BAD_PARAM) &&
          (((int)err <= (int)UTVM_ERR_KERNEL_UNSUPPORTED) ||
           ((int)err >= (int)UTVM_ERR_RUNNER_ARGUMENT))) {
        (void)printf("  e.g. %s\n", in.runner.error);
        out->shown++;
      }
      out->init_refused++;
    }
  } else {
    for (uint32_t i = 0u; i < in.model.n_inputs; i++) {
      utvm_runner_tensor_t t;
      assert_int_equal(utvm_runner_input(&in.runner, i, &t), UTVM_OK);
      uint8_t *d = (uint8_t *)t.data;
      for (size_t k = 0u; k < t.bytes; k++) {
        d[k] = (uint8_t)((k * 37u) + i);
      }
    }
    err = utvm_runner_invoke(&in.runner);
    if (err != UTVM_OK) {
      if (strncmp(in.runner.error, "operator ", 9u) != 0) {
        fail_msg("invoke failed (%s) with text '%s'", utvm_strerror(err), in.runner.error);
      }
      out->invoke_failed++;
    } else {
      uint32_t sum = 0u;
      for (uint32_t i = 0u; i < in.model.n_outputs; i++) {
        utvm_runner_tensor_t t;
        assert_int_equal(utvm_runner_output(&in.runner, i, &t), UTVM_OK);
        const uint8_t *d = (const uint8_t *)t.const_data;
        for (size_t k = 0u; k < t.bytes; k++) {
          sum += d[k];
        }
      }
      (void)sum;
      out->ran++;
    }
  }
  rt_teardown(&in);
  free(copy);
}

static void report(const char *what, const outcome_t *o) {
  (void)printf("%s: %u refused by the reader, %u by the runner, %u arenas above 1 MiB, "
               "%u invoke errors, %u ran\n",
               what, o->open_refused, o->init_refused, o->too_large, o->invoke_failed, o->ran);
}

static uint8_t *must_load(const char *file, size_t *size) {
  uint8_t *data = rt_load(file, size);
  if (data == NULL) {
    fail_msg("cannot read %s/models/%s", UTVM_SHARED_DIR, file);
  }
  return data;
}

static const uint8_t xor_values[] = {0x01u, 0x80u, 0xFFu, 0x7Fu, 0x10u};

static void test_hello_world_truncations(void **state) {
  (void)state;
  size_t size = 0u;
  uint8_t *data = must_load("hello_world_int8.tflite", &size);
  outcome_t o;
  (void)memset(&o, 0, sizeof(o));
  for (size_t n = 0u; n <= size; n++) {
    exercise(data, n, &o);
  }
  report("hello_world truncations", &o);
  assert_int_equal(o.ran, 1u); /* only the whole file */
  free(data);
}

static void test_hello_world_corruptions(void **state) {
  (void)state;
  size_t size = 0u;
  uint8_t *data = must_load("hello_world_int8.tflite", &size);
  outcome_t o;
  (void)memset(&o, 0, sizeof(o));
  for (size_t i = 0u; i < size; i++) {
    for (size_t v = 0u; v < sizeof(xor_values); v++) {
      data[i] ^= xor_values[v];
      exercise(data, size, &o);
      data[i] ^= xor_values[v];
    }
  }
  report("hello_world byte corruptions", &o);
  assert_true(o.init_refused > 0u);
  free(data);
}

static void test_chain_dscnn(void **state) {
  (void)state;
  size_t size = 0u;
  uint8_t *data = must_load("ops/chain_dscnn.tflite", &size);
  outcome_t o;
  (void)memset(&o, 0, sizeof(o));
  for (size_t i = 0u; i < size; i++) {
    for (size_t v = 0u; v < 2u; v++) {
      data[i] ^= xor_values[v];
      exercise(data, size, &o);
      data[i] ^= xor_values[v];
    }
  }
  for (size_t n = 0u; n < size; n += 7u) {
    exercise(data, n, &o);
  }
  report("chain_dscnn corruptions and truncations", &o);
  assert_true(o.init_refused > 0u);
  free(data);
}

static void test_kws_spread(void **state) {
  (void)state;
  size_t size = 0u;
  uint8_t *data = must_load("mlperf_tiny_kws_dscnn_int8.tflite", &size);
  outcome_t o;
  (void)memset(&o, 0, sizeof(o));
  /* A deterministic spread of positions and values (xorshift), half of them in the last 8 KiB
   * where the converter puts the tensor and operator tables. */
  uint32_t x = 0x12345678u;
  for (uint32_t k = 0u; k < 400u; k++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    size_t i = (size_t)x % size;
    if (((k & 1u) != 0u) && (size > 8192u)) {
      i = size - 1u - ((size_t)x % 8192u);
    }
    const uint8_t value = xor_values[(x >> 24) % sizeof(xor_values)];
    data[i] ^= value;
    exercise(data, size, &o);
    data[i] ^= value;
  }
  report("KWS corruptions", &o);
  free(data);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hello_world_truncations),
      cmocka_unit_test(test_hello_world_corruptions),
      cmocka_unit_test(test_chain_dscnn),
      cmocka_unit_test(test_kws_spread),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

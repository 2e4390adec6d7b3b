/*
 * The cases of the operator case sets utvm runs (cmake/utvm_op_cases.cmake: shared/models/ops2
 * less tests/data/ops2_pending.txt, tests/data/tflm) as standalone C (utvm_add_model: `utvm
 * compile -o DIR --name NET`) through the ai_ API: every input/output pair bit-exact with
 * TensorFlow Lite Micro, in activations of exactly the size the model states.
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "utvm/ai.h"

#include "test_support.h"

typedef struct {
  const char *set; /* the case set: ops2, tflm */
  const char *name;
  const ai_model *model;
  const char *input; /* paths */
  const char *output;
} op_case_pair_t;

#include "ai_op_cases.h"

/* A heap block of exactly size bytes (at least 1), 16-byte aligned. */
static void *exact_block(size_t size) {
  void *p = NULL;
  assert_int_equal(posix_memalign(&p, 16u, (size > 0u) ? size : 1u), 0);
  return p;
}

/* Every pair of every set bit-exact (a set's pairs are consecutive in op_case_pairs). */
static void test_op_case_pairs_bit_exact(void **state) {
  size_t exact = 0u;
  size_t set_first = 0u;
  size_t set_exact = 0u;
  const size_t n = sizeof(op_case_pairs) / sizeof(op_case_pairs[0]);
  (void)state;
  for (size_t i = 0u; i < n; i++) {
    const op_case_pair_t *p = &op_case_pairs[i];
    const ai_model *m = p->model;
    ai_handle h = NULL;
    ai_tensor in;
    ai_tensor out;
    size_t in_size = 0u;
    size_t out_size = 0u;
    void *act = exact_block(m->activations_size);
    void *in_buf = exact_block(m->inputs[0].bytes);
    void *out_buf = exact_block(m->outputs[0].bytes);
    uint8_t *input = test_load_file(p->input, &in_size);
    uint8_t *want = test_load_file(p->output, &out_size);
    assert_int_equal(ai_create(m, act, m->activations_size, &h), UTVM_OK);
    assert_int_equal(ai_set_input(h, 0u, in_buf, m->inputs[0].bytes), UTVM_OK);
    assert_int_equal(ai_set_output(h, 0u, out_buf, m->outputs[0].bytes), UTVM_OK);
    assert_int_equal(ai_get_input(h, 0u, &in), UTVM_OK);
    assert_int_equal(in.bytes, in_size);
    (void)memcpy(in.dl.data, input, in_size);
    if (ai_run(h) != UTVM_OK) {
      ai_error e;
      (void)ai_get_error(h, &e);
      fail_msg("%s: ai_run: %s", p->name, e.text);
    }
    assert_int_equal(ai_get_output(h, 0u, &out), UTVM_OK);
    assert_int_equal(out.bytes, out_size);
    if (memcmp(out.dl.data, want, out_size) == 0) {
      exact++;
      set_exact++;
    } else {
      (void)printf("MISMATCH %s: %s\n", p->name, p->input);
    }
    /* A model with state (SVDF) runs from its starting state again after ai_reset_state. */
    if (m->reset_state != NULL) {
      assert_int_equal(ai_reset_state(h), UTVM_OK);
      (void)memcpy(in.dl.data, input, in_size);
      assert_int_equal(ai_run(h), UTVM_OK);
      assert_memory_equal(out.dl.data, want, out_size);
    }
    assert_int_equal(ai_destroy(h), UTVM_OK);
    free(act);
    free(in_buf);
    free(out_buf);
    free(input);
    free(want);
    if ((i + 1u == n) || (strcmp(op_case_pairs[i + 1u].set, p->set) != 0)) {
      (void)printf("%s standalone: %zu/%zu pairs bit-exact\n", p->set, set_exact,
                   i + 1u - set_first);
      set_first = i + 1u;
      set_exact = 0u;
    }
  }
  (void)printf("operator case sets standalone: %zu/%zu pairs bit-exact\n", exact, n);
  assert_int_equal(exact, n);
  assert_true(n > 0u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_op_case_pairs_bit_exact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

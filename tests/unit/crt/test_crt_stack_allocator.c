/* Tests of the workspace-arena stack allocator (src/crt/stack_allocator.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "utvm/crt.h"

#define ALIGN UTVM_CRT_WORKSPACE_ALIGNMENT

static uint8_t g_buffer[1024 + 64] __attribute__((aligned(64)));

static void test_init_arguments(void **state) {
  utvm_stack_allocator_t sa;
  void *p;
  (void)state;
  assert_int_equal(utvm_stack_allocator_init(NULL, g_buffer, 16u), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_stack_allocator_init(&sa, NULL, 16u), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  /* No arena at all: allowed, but every allocation fails. */
  assert_int_equal(utvm_stack_allocator_init(&sa, NULL, 0u), UTVM_OK);
  assert_int_equal(utvm_stack_alloc(&sa, 1u, &p), UTVM_ERR_PLATFORM_NO_MEMORY);
  assert_null(p);
  assert_int_equal(utvm_stack_free(&sa, g_buffer), UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE);
  assert_int_equal(utvm_stack_alloc(&sa, 1u, NULL), UTVM_ERR_FUNC_CALL_INVALID_ARG);
}

static void test_alignment_on_any_base(void **state) {
  size_t offset;
  (void)state;
  for (offset = 0u; offset < 64u; offset += 5u) {
    utvm_stack_allocator_t sa;
    void *p[4];
    int i;
    assert_int_equal(utvm_stack_allocator_init(&sa, g_buffer + offset, 1024u), UTVM_OK);
    for (i = 0; i < 4; i++) {
      assert_int_equal(utvm_stack_alloc(&sa, (size_t)(1 + 37 * i), &p[i]), UTVM_OK);
      assert_int_equal((uintptr_t)p[i] % ALIGN, 0u);
      assert_true((uint8_t *)p[i] >= g_buffer + offset + 8u);
      assert_true((uint8_t *)p[i] + 1 + 37 * i <= g_buffer + offset + 1024u);
      if (i > 0) {
        assert_true((uint8_t *)p[i] >= (uint8_t *)p[i - 1] + 1 + 37 * (i - 1) + 8);
      }
      memset(p[i], 0x30 + i, (size_t)(1 + 37 * i));
    }
    for (i = 3; i >= 0; i--) {
      assert_int_equal(((uint8_t *)p[i])[0], 0x30 + i);
      assert_int_equal(utvm_stack_free(&sa, p[i]), UTVM_OK);
    }
    assert_int_equal(utvm_stack_used_bytes(&sa), 0u);
  }
}

static void test_lifo_and_bad_frees(void **state) {
  utvm_stack_allocator_t sa;
  void *a;
  void *b;
  void *c;
  size_t used;
  int local;
  (void)state;
  assert_int_equal(utvm_stack_allocator_init(&sa, g_buffer, 1024u), UTVM_OK);
  assert_int_equal(utvm_stack_alloc(&sa, 100u, &a), UTVM_OK);
  assert_int_equal(utvm_stack_alloc(&sa, 10u, &b), UTVM_OK);
  assert_int_equal(utvm_stack_alloc(&sa, 0u, &c), UTVM_OK);
  assert_ptr_not_equal(b, c); /* zero-size allocations still get their own address */
  used = utvm_stack_used_bytes(&sa);
  /* Out of order, foreign, interior and NULL frees change nothing. */
  assert_int_equal(utvm_stack_free(&sa, a), UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE);
  assert_int_equal(utvm_stack_free(&sa, b), UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE);
  assert_int_equal(utvm_stack_free(&sa, &local), UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE);
  assert_int_equal(utvm_stack_free(&sa, (uint8_t *)c + 1), UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE);
  assert_int_equal(utvm_stack_free(&sa, NULL), UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE);
  assert_int_equal(utvm_stack_free(NULL, c), UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE);
  assert_int_equal(utvm_stack_used_bytes(&sa), used);
  assert_int_equal(utvm_stack_free(&sa, c), UTVM_OK);
  assert_int_equal(utvm_stack_free(&sa, c), UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE); /* double */
  assert_int_equal(utvm_stack_free(&sa, b), UTVM_OK);
  assert_int_equal(utvm_stack_free(&sa, a), UTVM_OK);
  assert_int_equal(utvm_stack_free(&sa, a), UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE);
  assert_int_equal(utvm_stack_used_bytes(&sa), 0u);
}

static void test_exhaustion_and_reuse(void **state) {
  utvm_stack_allocator_t sa;
  void *a;
  void *b;
  void *again;
  (void)state;
  assert_int_equal(utvm_stack_allocator_init(&sa, g_buffer, 1024u), UTVM_OK);
  /* The first allocation starts at 64 (8-byte header, aligned): 960 bytes remain. */
  assert_int_equal(utvm_stack_alloc(&sa, 961u, &a), UTVM_ERR_PLATFORM_NO_MEMORY);
  assert_int_equal(utvm_stack_alloc(&sa, SIZE_MAX, &a), UTVM_ERR_PLATFORM_NO_MEMORY);
  assert_int_equal(utvm_stack_alloc(&sa, 960u, &a), UTVM_OK);
  assert_ptr_equal(a, g_buffer + 64);
  assert_int_equal(utvm_stack_alloc(&sa, 0u, &b), UTVM_ERR_PLATFORM_NO_MEMORY);
  assert_int_equal(utvm_stack_free(&sa, a), UTVM_OK);
  assert_int_equal(utvm_stack_alloc(&sa, 500u, &a), UTVM_OK);
  assert_int_equal(utvm_stack_alloc(&sa, 500u, &b), UTVM_ERR_PLATFORM_NO_MEMORY);
  assert_int_equal(utvm_stack_alloc(&sa, 100u, &b), UTVM_OK);
  assert_int_equal(utvm_stack_free(&sa, b), UTVM_OK);
  assert_int_equal(utvm_stack_alloc(&sa, 100u, &again), UTVM_OK);
  assert_ptr_equal(again, b);
  utvm_stack_allocator_reset(&sa);
  assert_int_equal(utvm_stack_used_bytes(&sa), 0u);
  assert_int_equal(utvm_stack_free(&sa, again), UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE);
}

/* An overflow of one allocation that destroys the next one's header must not move the stack
 * outside the arena. */
static void test_corrupted_header_is_rejected(void **state) {
  utvm_stack_allocator_t sa;
  void *a;
  void *b;
  size_t used;
  (void)state;
  assert_int_equal(utvm_stack_allocator_init(&sa, g_buffer, 1024u), UTVM_OK);
  assert_int_equal(utvm_stack_alloc(&sa, 64u, &a), UTVM_OK);
  assert_int_equal(utvm_stack_alloc(&sa, 64u, &b), UTVM_OK);
  used = utvm_stack_used_bytes(&sa);
  memset((uint8_t *)b - 8, 0xFF, 8u);
  assert_int_equal(utvm_stack_free(&sa, b), UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE);
  assert_int_equal(utvm_stack_used_bytes(&sa), used);
}

/* Random pushes and pops on bases of every alignment, checked against a stack model: aligned,
 * non-overlapping, inside the arena, contents intact, exact used bytes restored by each pop,
 * every free but the last one's rejected. */
static void test_random_against_model(void **state) {
  enum { kDepth = 12, kSteps = 4000 };
  uint32_t seed = 4242u;
  size_t offset;
  (void)state;
  for (offset = 0u; offset < 64u; offset += 9u) {
    utvm_stack_allocator_t sa;
    uint8_t *ptrs[kDepth];
    size_t sizes[kDepth];
    size_t used_before[kDepth];
    int depth = 0;
    int step;
    assert_int_equal(utvm_stack_allocator_init(&sa, g_buffer + offset, 1000u), UTVM_OK);
    for (step = 0; step < kSteps; step++) {
      seed = seed * 1103515245u + 12345u;
      if (depth < kDepth && ((seed >> 16) % 3u) != 0u) {
        size_t nbytes = (seed >> 4) % 200u;
        size_t used = utvm_stack_used_bytes(&sa);
        void *p;
        utvm_err_t err = utvm_stack_alloc(&sa, nbytes, &p);
        /* Fits exactly when header and padding plus nbytes stay within the arena. */
        uintptr_t data = (uintptr_t)(g_buffer + offset) + used + 8u;
        data = ((data + ALIGN - 1u) / ALIGN) * ALIGN;
        if (data + nbytes <= (uintptr_t)(g_buffer + offset + 1000u)) {
          assert_int_equal(err, UTVM_OK);
          assert_ptr_equal(p, (void *)data);
          memset(p, depth, nbytes);
          ptrs[depth] = p;
          sizes[depth] = nbytes;
          used_before[depth] = used;
          depth++;
        } else {
          assert_int_equal(err, UTVM_ERR_PLATFORM_NO_MEMORY);
          assert_null(p);
          assert_int_equal(utvm_stack_used_bytes(&sa), used);
        }
      } else if (depth > 0) {
        size_t k;
        if (depth > 1) {
          assert_int_equal(utvm_stack_free(&sa, ptrs[depth - 2]),
                           UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE);
        }
        depth--;
        for (k = 0u; k < sizes[depth]; k++) {
          assert_int_equal(ptrs[depth][k], (uint8_t)depth);
        }
        assert_int_equal(utvm_stack_free(&sa, ptrs[depth]), UTVM_OK);
        assert_int_equal(utvm_stack_used_bytes(&sa), used_before[depth]);
        assert_int_equal(utvm_stack_free(&sa, ptrs[depth]), UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE);
      }
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_init_arguments),
      cmocka_unit_test(test_alignment_on_any_base),
      cmocka_unit_test(test_lifo_and_bad_frees),
      cmocka_unit_test(test_exhaustion_and_reuse),
      cmocka_unit_test(test_corrupted_header_is_rejected),
      cmocka_unit_test(test_random_against_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

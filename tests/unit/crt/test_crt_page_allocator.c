/* Tests of the tensor-arena page allocator (src/crt/page_allocator.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "utvm/crt.h"

#define PAGE UTVM_CRT_PAGE_SIZE

/* Room for 64 pages, their bookkeeping and slack; 256-byte aligned so that page addresses,
 * and therefore alignment padding, are the same in every run. */
static uint8_t g_buffer[UTVM_CRT_PAGE_ENTRY_SIZE * 64u + 64u * PAGE + 2u * PAGE] __attribute__((aligned(256)));

static uint8_t *aligned_buffer(void) { return g_buffer; }

/* Lays an allocator over a buffer giving exactly `pages` pages. */
static void init_pages(utvm_page_allocator_t *pa, uint32_t pages) {
  /* With an aligned buffer the table takes 4*pages bytes, rounded up to a page. */
  size_t table = ((UTVM_CRT_PAGE_ENTRY_SIZE * pages + PAGE - 1u) / PAGE) * PAGE;
  assert_int_equal(utvm_page_allocator_init(pa, aligned_buffer(), table + pages * PAGE), UTVM_OK);
  assert_int_equal(pa->num_pages, pages);
}

static void test_init_rejects_bad_arguments(void **state) {
  utvm_page_allocator_t pa;
  uint8_t small[PAGE + 1u];
  (void)state;
  assert_int_equal(utvm_page_allocator_init(NULL, g_buffer, sizeof(g_buffer)),
                   UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_page_allocator_init(&pa, NULL, 4096u), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_page_allocator_init(&pa, g_buffer, 0u), UTVM_ERR_BUFFER_TOO_SMALL);
  /* PAGE + 1 bytes can never hold a table entry plus an aligned page. */
  assert_int_equal(utvm_page_allocator_init(&pa, small, sizeof(small)), UTVM_ERR_BUFFER_TOO_SMALL);
}

static void test_init_uses_aligned_pages_inside_buffer(void **state) {
  utvm_page_allocator_t pa;
  size_t offset;
  (void)state;
  for (offset = 0u; offset < PAGE; offset += 7u) {
    uint8_t *start = g_buffer + offset;
    size_t size = sizeof(g_buffer) - offset;
    assert_int_equal(utvm_page_allocator_init(&pa, start, size), UTVM_OK);
    assert_true(pa.num_pages > 0u);
    /* Pages from the first page-aligned byte on, then the table (so it is 4-byte aligned). */
    assert_int_equal((uintptr_t)pa.pages % PAGE, 0u);
    assert_true(pa.pages >= start && pa.pages < start + PAGE);
    assert_ptr_equal((uint8_t *)pa.table, pa.pages + (size_t)pa.num_pages * PAGE);
    assert_int_equal((uintptr_t)pa.table % 4u, 0u);
    assert_true((uint8_t *)(pa.table + pa.num_pages) <= start + size);
    /* One more page and its entry would not fit. */
    assert_true(pa.pages + (size_t)(pa.num_pages + 1u) * (PAGE + UTVM_CRT_PAGE_ENTRY_SIZE) > start + size);
    assert_int_equal(utvm_page_free_bytes(&pa), (size_t)pa.num_pages * PAGE);
    assert_int_equal(utvm_page_largest_free_block(&pa), (size_t)pa.num_pages * PAGE);
  }
}

static void test_init_smallest_arena(void **state) {
  utvm_page_allocator_t pa;
  void *p;
  void *q;
  size_t offset;
  (void)state;
  for (offset = 0u; offset < PAGE; offset += 3u) {
    size_t skip = (PAGE - offset) % PAGE;
    /* Exactly one page and its entry after the alignment padding. */
    assert_int_equal(utvm_page_allocator_init(&pa, g_buffer + offset, skip + PAGE + UTVM_CRT_PAGE_ENTRY_SIZE), UTVM_OK);
    assert_int_equal(pa.num_pages, 1u);
    assert_int_equal(utvm_page_alloc(&pa, PAGE, 0u, &p), UTVM_OK);
    assert_int_equal(utvm_page_alloc(&pa, 1u, 0u, &q), UTVM_ERR_PLATFORM_NO_MEMORY);
    assert_int_equal(utvm_page_free(&pa, p), UTVM_OK);
    /* One byte less: no page, and every later call fails cleanly. */
    assert_int_equal(utvm_page_allocator_init(&pa, g_buffer + offset, skip + PAGE + 1u),
                     UTVM_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(pa.num_pages, 0u);
    assert_int_equal(utvm_page_alloc(&pa, 1u, 0u, &q), UTVM_ERR_PLATFORM_NO_MEMORY);
    assert_int_equal(utvm_page_free(&pa, p), UTVM_ERR_FUNC_CALL_INVALID_ARG);
    assert_int_equal(utvm_page_free_bytes(&pa), 0u);
    assert_int_equal(utvm_page_allocator_init(&pa, g_buffer + offset, skip),
                     UTVM_ERR_BUFFER_TOO_SMALL);
  }
}

/* Arenas beyond UTVM_CRT_MAX_PAGES pages of PAGE bytes get larger pages and are usable in
 * full: at the first size past the limit, and at 16 MiB (512-byte pages), filled with 512 KiB
 * tensors and with one tensor of every free byte. Above UTVM_CRT_MAX_ARENA_SIZE, init refuses. */
static void test_large_arenas_use_larger_pages(void **state) {
  static const size_t sizes[3] = {(size_t)UTVM_CRT_MAX_PAGES * (PAGE + UTVM_CRT_PAGE_ENTRY_SIZE),
                                  (size_t)(UTVM_CRT_MAX_PAGES + 100u) * (PAGE + UTVM_CRT_PAGE_ENTRY_SIZE),
                                  16u * 1024u * 1024u};
  static const uint32_t shifts[3] = {6u, 7u, 9u};
  (void)state;
  for (size_t k = 0u; k < 3u; k++) {
    utvm_page_allocator_t pa;
    size_t size = sizes[k];
    uint8_t *big = malloc(size + 4096u);
    uint8_t *arena = (uint8_t *)(((uintptr_t)big + 4095u) & ~(uintptr_t)4095u);
    void *p;
    assert_non_null(big);
    assert_int_equal(utvm_page_allocator_init(&pa, arena, size), UTVM_OK);
    assert_int_equal(pa.page_shift, shifts[k]);
    assert_true(pa.num_pages <= UTVM_CRT_MAX_PAGES);
    /* Only the entries and less than one page of rounding are lost. */
    size_t total = utvm_page_total_bytes(&pa);
    size_t page = (size_t)1u << pa.page_shift;
    assert_true(total + (size_t)pa.num_pages * UTVM_CRT_PAGE_ENTRY_SIZE + page > size);
    assert_int_equal(utvm_page_free_bytes(&pa), total);
    /* 512 KiB tensors (or quarters of the arena) until the arena is full, then nothing fits. */
    size_t chunk = (total >= 4u * 512u * 1024u) ? 512u * 1024u : total / 4u;
    size_t allocated = 0u;
    while (utvm_page_alloc(&pa, chunk, 64u, &p) == UTVM_OK) {
      assert_true(((uintptr_t)p & 63u) == 0u);
      memset(p, 0x5A, chunk);
      allocated += chunk;
    }
    assert_true(total - allocated < chunk + page);
    utvm_page_allocator_reset(&pa);
    assert_int_equal(utvm_page_alloc(&pa, total, 0u, &p), UTVM_OK);
    assert_ptr_equal(p, pa.pages);
    assert_int_equal(utvm_page_free_bytes(&pa), 0u);
    free(big);
  }
#if SIZE_MAX > UINT32_MAX
  {
    utvm_page_allocator_t pa;
    static uint8_t small[64];
    assert_int_equal(utvm_page_allocator_init(&pa, small, (size_t)UTVM_CRT_MAX_ARENA_SIZE + 1u),
                     UTVM_ERR_FUNC_CALL_INVALID_ARG);
  }
#endif
}

static void test_alloc_is_page_aligned_and_rounded(void **state) {
  utvm_page_allocator_t pa;
  void *a;
  void *b;
  void *c;
  uint8_t *base;
  size_t size;
  (void)state;
  init_pages(&pa, 16u);
  assert_int_equal(utvm_page_alloc(&pa, 1u, 0u, &a), UTVM_OK);
  assert_int_equal(utvm_page_alloc(&pa, PAGE + 1u, 1u, &b), UTVM_OK);
  assert_int_equal(utvm_page_alloc(&pa, 0u, 0u, &c), UTVM_OK); /* zero bytes: one page */
  assert_int_equal((uintptr_t)a % 64u, 0u);
  assert_int_equal((uintptr_t)b % 64u, 0u);
  assert_ptr_equal((uint8_t *)b, (uint8_t *)a + PAGE);
  assert_ptr_equal((uint8_t *)c, (uint8_t *)b + 2u * PAGE);
  /* The size found is what was asked for, not the pages. */
  assert_int_equal(utvm_page_find(&pa, b, &base, &size), UTVM_OK);
  assert_int_equal(size, PAGE + 1u);
  assert_int_equal(utvm_page_find(&pa, c, &base, &size), UTVM_OK);
  assert_int_equal(size, 0u);
  assert_int_equal(utvm_page_find(&pa, a, &base, &size), UTVM_OK);
  assert_int_equal(size, 1u);
  assert_int_equal(utvm_page_free_bytes(&pa), 12u * PAGE);
}

static void test_alloc_honours_large_alignment(void **state) {
  utvm_page_allocator_t pa;
  void *first;
  void *aligned;
  void *next;
  (void)state;
  init_pages(&pa, 32u);
  assert_int_equal(utvm_page_alloc(&pa, PAGE, 0u, &first), UTVM_OK);
  assert_int_equal(utvm_page_alloc(&pa, PAGE, 4u * PAGE, &aligned), UTVM_OK);
  assert_int_equal((uintptr_t)aligned % (4u * PAGE), 0u);
  /* The padding pages before the aligned block stay usable. */
  assert_int_equal(utvm_page_alloc(&pa, PAGE, 0u, &next), UTVM_OK);
  assert_true((uint8_t *)next < (uint8_t *)aligned);
  assert_int_equal(utvm_page_free_bytes(&pa), 29u * PAGE);
  /* Non-powers of two are rejected, the arena untouched. */
  assert_int_equal(utvm_page_alloc(&pa, PAGE, 96u, &next), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_null(next);
  assert_int_equal(utvm_page_free_bytes(&pa), 29u * PAGE);
  /* An alignment no page in the arena can satisfy. */
  assert_int_equal(utvm_page_alloc(&pa, PAGE, (size_t)1u << 40, &next),
                   UTVM_ERR_PLATFORM_NO_MEMORY);
}

static void test_exhaustion(void **state) {
  utvm_page_allocator_t pa;
  void *all;
  void *more;
  (void)state;
  init_pages(&pa, 8u);
  assert_int_equal(utvm_page_alloc(&pa, 8u * PAGE + 1u, 0u, &more), UTVM_ERR_PLATFORM_NO_MEMORY);
  assert_null(more);
  assert_int_equal(utvm_page_alloc(&pa, SIZE_MAX, 0u, &more), UTVM_ERR_PLATFORM_NO_MEMORY);
  assert_int_equal(utvm_page_alloc(&pa, 8u * PAGE, 0u, &all), UTVM_OK);
  assert_int_equal(utvm_page_free_bytes(&pa), 0u);
  assert_int_equal(utvm_page_largest_free_block(&pa), 0u);
  assert_int_equal(utvm_page_alloc(&pa, 1u, 0u, &more), UTVM_ERR_PLATFORM_NO_MEMORY);
  assert_int_equal(utvm_page_free(&pa, all), UTVM_OK);
  assert_int_equal(utvm_page_alloc(&pa, 1u, 0u, &more), UTVM_OK);
  assert_ptr_equal(more, all);
}

static void test_fill_patterns_and_fragmentation(void **state) {
  utvm_page_allocator_t pa;
  void *blocks[16];
  void *two;
  uint32_t i;
  size_t k;
  (void)state;
  init_pages(&pa, 16u);
  for (i = 0u; i < 16u; i++) {
    assert_int_equal(utvm_page_alloc(&pa, PAGE, 0u, &blocks[i]), UTVM_OK);
    memset(blocks[i], (int)(0x10u + i), PAGE);
  }
  for (i = 0u; i < 16u; i++) {
    for (k = 0u; k < PAGE; k++) {
      assert_int_equal(((uint8_t *)blocks[i])[k], 0x10u + i);
    }
  }
  /* Free every other page: half the arena is free, but no two pages are contiguous. */
  for (i = 0u; i < 16u; i += 2u) {
    assert_int_equal(utvm_page_free(&pa, blocks[i]), UTVM_OK);
  }
  assert_int_equal(utvm_page_free_bytes(&pa), 8u * PAGE);
  assert_int_equal(utvm_page_largest_free_block(&pa), PAGE);
  assert_int_equal(utvm_page_alloc(&pa, 2u * PAGE, 0u, &two), UTVM_ERR_PLATFORM_NO_MEMORY);
  /* The surviving blocks are intact. */
  for (i = 1u; i < 16u; i += 2u) {
    for (k = 0u; k < PAGE; k++) {
      assert_int_equal(((uint8_t *)blocks[i])[k], 0x10u + i);
    }
  }
  /* Freeing block 1 joins pages 0..2. */
  assert_int_equal(utvm_page_free(&pa, blocks[1]), UTVM_OK);
  assert_int_equal(utvm_page_largest_free_block(&pa), 3u * PAGE);
  assert_int_equal(utvm_page_alloc(&pa, 3u * PAGE, 0u, &two), UTVM_OK);
  assert_ptr_equal(two, blocks[0]);
  assert_int_equal(utvm_page_free(&pa, two), UTVM_OK);
  for (i = 3u; i < 16u; i += 2u) {
    assert_int_equal(utvm_page_free(&pa, blocks[i]), UTVM_OK);
  }
  assert_int_equal(utvm_page_largest_free_block(&pa), 16u * PAGE);
}

static void test_coalescing_orders(void **state) {
  static const int kOrders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  utvm_page_allocator_t pa;
  int order;
  (void)state;
  for (order = 0; order < 6; order++) {
    void *blocks[3];
    void *whole;
    int i;
    init_pages(&pa, 6u);
    for (i = 0; i < 3; i++) {
      assert_int_equal(utvm_page_alloc(&pa, 2u * PAGE, 0u, &blocks[i]), UTVM_OK);
    }
    for (i = 0; i < 3; i++) {
      assert_int_equal(utvm_page_free(&pa, blocks[kOrders[order][i]]), UTVM_OK);
    }
    assert_int_equal(utvm_page_largest_free_block(&pa), 6u * PAGE);
    assert_int_equal(utvm_page_alloc(&pa, 6u * PAGE, 0u, &whole), UTVM_OK);
  }
}

static void test_find_every_byte(void **state) {
  utvm_page_allocator_t pa;
  void *before;
  void *block;
  void *after;
  uint8_t *base;
  size_t size;
  size_t k;
  (void)state;
  init_pages(&pa, 8u);
  assert_int_equal(utvm_page_alloc(&pa, PAGE, 0u, &before), UTVM_OK);
  assert_int_equal(utvm_page_alloc(&pa, 3u * PAGE - 5u, 0u, &block), UTVM_OK);
  assert_int_equal(utvm_page_alloc(&pa, PAGE, 0u, &after), UTVM_OK);
  assert_int_equal(utvm_page_free(&pa, before), UTVM_OK);
  assert_int_equal(utvm_page_free(&pa, after), UTVM_OK);
  for (k = 0u; k < 3u * PAGE; k++) {
    base = NULL;
    size = 0u;
    assert_int_equal(utvm_page_find(&pa, (uint8_t *)block + k, &base, &size), UTVM_OK);
    assert_ptr_equal(base, block);
    assert_int_equal(size, 3u * PAGE - 5u); /* its pages hold it; its size is exact */
  }
  /* The bytes just outside are in free pages; beyond the arena and the table are foreign. */
  assert_int_equal(utvm_page_find(&pa, (uint8_t *)block - 1, &base, &size),
                   UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_page_find(&pa, (uint8_t *)block + 3u * PAGE, &base, &size),
                   UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_page_find(&pa, pa.pages + 8u * PAGE, &base, &size),
                   UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_page_find(&pa, pa.table, &base, &size), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_page_find(&pa, &pa, &base, &size), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_page_find(&pa, NULL, &base, &size), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_page_find(&pa, block, NULL, &size), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  /* After the free nothing is found. */
  assert_int_equal(utvm_page_free(&pa, block), UTVM_OK);
  assert_int_equal(utvm_page_find(&pa, block, &base, &size), UTVM_ERR_FUNC_CALL_INVALID_ARG);
}

static void test_bad_frees_change_nothing(void **state) {
  utvm_page_allocator_t pa;
  void *a;
  void *b;
  int local;
  (void)state;
  init_pages(&pa, 8u);
  assert_int_equal(utvm_page_alloc(&pa, 2u * PAGE, 0u, &a), UTVM_OK);
  assert_int_equal(utvm_page_alloc(&pa, PAGE, 0u, &b), UTVM_OK);
  assert_int_equal(utvm_page_free(&pa, (uint8_t *)a + PAGE), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_page_free(&pa, (uint8_t *)a + 1), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_page_free(&pa, &local), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_page_free(&pa, NULL), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_page_free(&pa, pa.table), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_page_free(&pa, pa.pages + 7u * PAGE), UTVM_ERR_FUNC_CALL_INVALID_ARG);
  assert_int_equal(utvm_page_free_bytes(&pa), 5u * PAGE);
  assert_int_equal(utvm_page_free(&pa, a), UTVM_OK);
  assert_int_equal(utvm_page_free(&pa, a), UTVM_ERR_FUNC_CALL_INVALID_ARG); /* double free */
  assert_int_equal(utvm_page_free_bytes(&pa), 7u * PAGE);
  assert_int_equal(utvm_page_free(&pa, b), UTVM_OK);
  assert_int_equal(utvm_page_largest_free_block(&pa), 8u * PAGE);
  assert_int_equal(utvm_page_free(NULL, b), UTVM_ERR_FUNC_CALL_INVALID_ARG);
}

static void test_reset_frees_everything(void **state) {
  utvm_page_allocator_t pa;
  void *a;
  void *b;
  (void)state;
  init_pages(&pa, 4u);
  assert_int_equal(utvm_page_alloc(&pa, PAGE, 0u, &a), UTVM_OK);
  assert_int_equal(utvm_page_alloc(&pa, PAGE, 0u, &b), UTVM_OK);
  utvm_page_allocator_reset(&pa);
  assert_int_equal(utvm_page_free_bytes(&pa), 4u * PAGE);
  assert_int_equal(utvm_page_free(&pa, b), UTVM_ERR_FUNC_CALL_INVALID_ARG);
}

/* Random allocations and frees checked against a per-page ownership model. */
static void test_random_against_model(void **state) {
  enum { kPages = 64, kSlots = 24, kSteps = 20000 };
  utvm_page_allocator_t pa;
  void *slots[kSlots] = {0};
  size_t sizes[kSlots] = {0};
  int owner[kPages];
  uint32_t seed = 12345u;
  int step;
  (void)state;
  init_pages(&pa, kPages);
  for (step = 0; step < kPages; step++) {
    owner[step] = -1;
  }
  for (step = 0; step < kSteps; step++) {
    int slot;
    size_t free_pages = 0u;
    int p;
    seed = seed * 1103515245u + 12345u;
    slot = (int)((seed >> 16) % kSlots);
    if (slots[slot] == NULL) {
      size_t nbytes = (size_t)((seed >> 4) % (6u * PAGE));
      void *ptr;
      utvm_err_t err = utvm_page_alloc(&pa, nbytes, 0u, &ptr);
      if (err == UTVM_OK) {
        size_t first = (size_t)((uint8_t *)ptr - pa.pages) / PAGE;
        size_t count = nbytes == 0u ? 1u : (nbytes + PAGE - 1u) / PAGE;
        size_t k;
        for (k = first; k < first + count; k++) {
          assert_int_equal(owner[k], -1);
          owner[k] = slot;
        }
        memset(ptr, slot, count * PAGE);
        slots[slot] = ptr;
        sizes[slot] = nbytes;
      } else {
        size_t count = nbytes == 0u ? 1u : (nbytes + PAGE - 1u) / PAGE;
        assert_int_equal(err, UTVM_ERR_PLATFORM_NO_MEMORY);
        assert_true(utvm_page_largest_free_block(&pa) < count * PAGE);
      }
    } else {
      uint8_t *base;
      size_t size;
      size_t k;
      size_t count = (sizes[slot] == 0u) ? 1u : (sizes[slot] + PAGE - 1u) / PAGE;
      /* The last byte of its pages finds it, with the size asked for. */
      assert_int_equal(utvm_page_find(&pa, (uint8_t *)slots[slot] + count * PAGE - 1u, &base,
                                      &size),
                       UTVM_OK);
      assert_ptr_equal(base, slots[slot]);
      assert_int_equal(size, sizes[slot]);
      for (k = 0u; k < sizes[slot]; k++) {
        assert_int_equal(base[k], (uint8_t)slot);
      }
      assert_int_equal(utvm_page_free(&pa, slots[slot]), UTVM_OK);
      for (p = 0; p < kPages; p++) {
        if (owner[p] == slot) {
          owner[p] = -1;
        }
      }
      slots[slot] = NULL;
    }
    for (p = 0; p < kPages; p++) {
      free_pages += (owner[p] == -1) ? 1u : 0u;
    }
    assert_int_equal(utvm_page_free_bytes(&pa), free_pages * PAGE);
  }
}

static uint32_t next_random(uint32_t *seed) {
  *seed = *seed * 1103515245u + 12345u;
  return *seed >> 8;
}

/* Lowest page where `count` free pages start at an address aligned to `alignment`, or -1. */
static int model_first_fit(const utvm_page_allocator_t *pa, const int *owner, size_t count,
                           size_t alignment) {
  size_t p;
  for (p = 0u; p + count <= pa->num_pages; p++) {
    size_t k;
    int fits = ((uintptr_t)(pa->pages + p * PAGE) % alignment) == 0u;
    for (k = p; fits && k < p + count; k++) {
      fits = owner[k] == -1;
    }
    if (fits) {
      return (int)p;
    }
  }
  return -1;
}

/* Random allocations (random sizes and alignments), frees and bad frees on an arena of exact
 * size (so a sanitizer sees any access outside it), checked after every step against a
 * per-page ownership model: first-fit placement, free bytes, largest free run, find. */
static void test_random_first_fit_against_model(void **state) {
  enum { kPages = 40, kSlots = 12, kSteps = 6000 };
  static const size_t kAlignments[5] = {0u, PAGE, 2u * PAGE, 4u * PAGE, 8u * PAGE};
  size_t arena_size = (size_t)kPages * (PAGE + UTVM_CRT_PAGE_ENTRY_SIZE) + PAGE - 1u;
  uint8_t *arena = malloc(arena_size);
  utvm_page_allocator_t pa;
  void *slots[kSlots] = {0};
  size_t pages[kSlots] = {0};
  size_t sizes[kSlots] = {0};
  int owner[kPages];
  uint32_t seed = 777u;
  int step;
  (void)state;
  assert_non_null(arena);
  assert_int_equal(utvm_page_allocator_init(&pa, arena, arena_size), UTVM_OK);
  assert_int_equal(pa.num_pages, kPages);
  for (step = 0; step < kPages; step++) {
    owner[step] = -1;
  }
  for (step = 0; step < kSteps; step++) {
    int slot = (int)(next_random(&seed) % kSlots);
    size_t free_pages = 0u;
    size_t run = 0u;
    size_t largest = 0u;
    int p;
    if (slots[slot] == NULL) {
      size_t nbytes = next_random(&seed) % (7u * PAGE);
      size_t alignment = kAlignments[next_random(&seed) % 5u];
      size_t count = nbytes == 0u ? 1u : (nbytes + PAGE - 1u) / PAGE;
      int expected = model_first_fit(&pa, owner, count, alignment == 0u ? PAGE : alignment);
      void *ptr;
      utvm_err_t err = utvm_page_alloc(&pa, nbytes, alignment, &ptr);
      if (expected < 0) {
        assert_int_equal(err, UTVM_ERR_PLATFORM_NO_MEMORY);
        assert_null(ptr);
      } else {
        size_t k;
        assert_int_equal(err, UTVM_OK);
        assert_ptr_equal(ptr, pa.pages + (size_t)expected * PAGE);
        for (k = (size_t)expected; k < (size_t)expected + count; k++) {
          owner[k] = slot;
        }
        memset(ptr, slot, count * PAGE);
        slots[slot] = ptr;
        pages[slot] = count;
        sizes[slot] = nbytes;
      }
    } else {
      uint8_t *block = slots[slot];
      size_t k;
      /* Interior pointers are rejected; then the real free, then a double free. */
      if (pages[slot] > 1u) {
        assert_int_equal(utvm_page_free(&pa, block + PAGE), UTVM_ERR_FUNC_CALL_INVALID_ARG);
      }
      assert_int_equal(utvm_page_free(&pa, block + 1), UTVM_ERR_FUNC_CALL_INVALID_ARG);
      for (k = 0u; k < pages[slot] * PAGE; k++) {
        assert_int_equal(block[k], (uint8_t)slot);
      }
      assert_int_equal(utvm_page_free(&pa, block), UTVM_OK);
      assert_int_equal(utvm_page_free(&pa, block), UTVM_ERR_FUNC_CALL_INVALID_ARG);
      for (p = 0; p < kPages; p++) {
        if (owner[p] == slot) {
          owner[p] = -1;
        }
      }
      slots[slot] = NULL;
    }
    for (p = 0; p < kPages; p++) {
      uint8_t *base = NULL;
      size_t size = 0u;
      utvm_err_t err = utvm_page_find(&pa, pa.pages + (size_t)p * PAGE + (size_t)p % PAGE, &base,
                                      &size);
      if (owner[p] == -1) {
        free_pages++;
        run++;
        largest = run > largest ? run : largest;
        assert_int_equal(err, UTVM_ERR_FUNC_CALL_INVALID_ARG);
      } else {
        run = 0u;
        assert_int_equal(err, UTVM_OK);
        assert_ptr_equal(base, slots[owner[p]]);
        assert_int_equal(size, sizes[owner[p]]);
      }
    }
    assert_int_equal(utvm_page_free_bytes(&pa), free_pages * PAGE);
    assert_int_equal(utvm_page_largest_free_block(&pa), largest * PAGE);
  }
  free(arena);
}

/* Checks every operation on a table of arbitrary entries: nothing leaves the arena (exact
 * size, so a sanitizer sees any stray access), every walk ends, results stay in range. */
static void check_damaged_table(utvm_page_allocator_t *pa) {
  size_t total = (size_t)pa->num_pages * PAGE;
  uint32_t p;
  void *ptr;
  assert_true(utvm_page_free_bytes(pa) <= total);
  assert_true(utvm_page_largest_free_block(pa) <= utvm_page_free_bytes(pa));
  for (p = 0u; p < pa->num_pages; p++) {
    uint8_t *base;
    size_t size;
    if (utvm_page_find(pa, pa->pages + (size_t)p * PAGE, &base, &size) == UTVM_OK) {
      assert_true(base >= pa->pages && base <= pa->pages + (size_t)p * PAGE);
      assert_true(base + size <= pa->pages + total);
    }
  }
  if (utvm_page_alloc(pa, PAGE, 0u, &ptr) == UTVM_OK) {
    assert_true((uint8_t *)ptr >= pa->pages && (uint8_t *)ptr < pa->pages + total);
  }
  for (p = 0u; p < pa->num_pages; p++) {
    (void)utvm_page_free(pa, pa->pages + (size_t)p * PAGE);
  }
  assert_true(utvm_page_free_bytes(pa) <= total);
  if (utvm_page_alloc(pa, 2u * PAGE, 2u * PAGE, &ptr) == UTVM_OK) {
    assert_true((uint8_t *)ptr >= pa->pages && (uint8_t *)ptr + 2u * PAGE <= pa->pages + total);
  }
}

static void test_damaged_table_stays_inside_arena(void **state) {
  enum { kPages = 17 };
  size_t arena_size = (size_t)kPages * (PAGE + UTVM_CRT_PAGE_ENTRY_SIZE) + PAGE - 1u;
  uint8_t *arena = malloc(arena_size);
  utvm_page_allocator_t pa;
  uint32_t seed = 99u;
  int round;
  uint32_t p;
  (void)state;
  assert_non_null(arena);
  for (round = 0; round < 300; round++) {
    assert_int_equal(utvm_page_allocator_init(&pa, arena, arena_size), UTVM_OK);
    assert_int_equal(pa.num_pages, kPages);
    for (p = 0u; p < kPages; p++) {
      uint32_t value = next_random(&seed);
      /* Rounds 0 to 2: all zero, all 0xFFFF and all 0xFFFFFFFF; then random, biased to small
       * lengths. */
      if (round < 3) {
        value = (round == 0) ? 0u : ((round == 1) ? 0xFFFFu : 0xFFFFFFFFu);
      } else if ((value & 1u) != 0u) {
        value = (value & 0xFFFF8000u) | ((value >> 1) % (kPages + 3u));
      }
      pa.table[p] = value;
    }
    check_damaged_table(&pa);
  }
  /* Reset repairs the table. */
  utvm_page_allocator_reset(&pa);
  assert_int_equal(utvm_page_largest_free_block(&pa), (size_t)kPages * PAGE);
  free(arena);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_init_rejects_bad_arguments),
      cmocka_unit_test(test_init_uses_aligned_pages_inside_buffer),
      cmocka_unit_test(test_init_smallest_arena),
      cmocka_unit_test(test_large_arenas_use_larger_pages),
      cmocka_unit_test(test_alloc_is_page_aligned_and_rounded),
      cmocka_unit_test(test_alloc_honours_large_alignment),
      cmocka_unit_test(test_exhaustion),
      cmocka_unit_test(test_fill_patterns_and_fragmentation),
      cmocka_unit_test(test_coalescing_orders),
      cmocka_unit_test(test_find_every_byte),
      cmocka_unit_test(test_bad_frees_change_nothing),
      cmocka_unit_test(test_reset_frees_everything),
      cmocka_unit_test(test_random_against_model),
      cmocka_unit_test(test_random_first_fit_against_model),
      cmocka_unit_test(test_damaged_table_stays_inside_arena),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

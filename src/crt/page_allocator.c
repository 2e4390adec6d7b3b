/*
 * Tensor arena: first-fit allocator over fixed-size pages.
 *
 * The arena holds the page-aligned pages followed by a table of one uint16_t entry per page
 * (the table starts where the pages end, so it is always 2-byte aligned). The entry of the
 * first page of an allocation holds its length in pages; every other entry is 0, which marks
 * a free page. Freeing zeroes one entry, so free pages next to each other always form one run
 * (coalescing costs nothing).
 *
 * Walks step from the first page on with next_page: one page over a free page, the whole
 * allocation over an allocated one. The step is clamped to 1..(pages left), so even a damaged
 * table makes a walk stay inside the arena and stop after at most num_pages steps.
 */
#include <stddef.h>
#include <stdint.h>

#include "utvm/crt.h"

typedef char page_size_is_power_of_two[
    (UTVM_CRT_PAGE_SIZE >= 8u && (UTVM_CRT_PAGE_SIZE & (UTVM_CRT_PAGE_SIZE - 1u)) == 0u) ? 1 : -1];

/* First page after the free page or allocation at page (< num_pages). */
static uint32_t next_page(const utvm_page_allocator_t *pa, uint32_t page) {
  uint32_t length = pa->table[page];
  uint32_t left = pa->num_pages - page;
  if (length == 0u) {
    length = 1u;
  }
  return page + ((length < left) ? length : left);
}

static uint8_t *page_address(const utvm_page_allocator_t *pa, uint32_t page) {
  return pa->pages + ((size_t)page * UTVM_CRT_PAGE_SIZE);
}

utvm_err_t utvm_page_allocator_init(utvm_page_allocator_t *pa, uint8_t *buffer, size_t size) {
  size_t skip;
  size_t num_pages = 0u;
  if (pa == NULL || buffer == NULL) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  skip = (size_t)((0u - (uintptr_t)buffer) & (UTVM_CRT_PAGE_SIZE - 1u));
  if (size > skip) {
    num_pages = (size - skip) / (UTVM_CRT_PAGE_SIZE + 2u);
  }
  if (num_pages > UTVM_CRT_MAX_PAGES) {
    num_pages = UTVM_CRT_MAX_PAGES;
  }
  pa->pages = buffer + skip;
  pa->table = (uint16_t *)(void *)page_address(pa, (uint32_t)num_pages);
  pa->num_pages = (uint32_t)num_pages;
  utvm_page_allocator_reset(pa);
  return (num_pages == 0u) ? UTVM_ERR_BUFFER_TOO_SMALL : UTVM_OK;
}

void utvm_page_allocator_reset(utvm_page_allocator_t *pa) {
  if (pa != NULL) {
    uint32_t page = pa->num_pages;
    while (page > 0u) {
      page--;
      pa->table[page] = 0u;
    }
  }
}

utvm_err_t utvm_page_alloc(utvm_page_allocator_t *pa, size_t nbytes, size_t alignment,
                           void **out) {
  uint32_t page = 0u;
  uint32_t run = 0u; /* first page of the run of free pages that ends at page */
  size_t needed;
  if (pa == NULL || out == NULL) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  *out = NULL;
  if ((alignment & (alignment - 1u)) != 0u) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  if (alignment < UTVM_CRT_PAGE_SIZE) {
    alignment = UTVM_CRT_PAGE_SIZE;
  }
  needed = ((nbytes - (nbytes != 0u ? 1u : 0u)) / UTVM_CRT_PAGE_SIZE) + 1u;
  while (page < pa->num_pages) {
    uint32_t allocated = pa->table[page];
    page = next_page(pa, page);
    if (allocated != 0u) {
      run = page;
    } else {
      /* Free pages to skip from the start of the run to an aligned address. */
      uintptr_t pad =
          ((0u - (uintptr_t)page_address(pa, run)) & (alignment - 1u)) / UTVM_CRT_PAGE_SIZE;
      if (pad + needed <= page - run) {
        run += (uint32_t)pad;
        pa->table[run] = (uint16_t)needed;
        *out = page_address(pa, run);
        return UTVM_OK;
      }
    }
  }
  return UTVM_ERR_PLATFORM_NO_MEMORY;
}

utvm_err_t utvm_page_find(const utvm_page_allocator_t *pa, const void *ptr, uint8_t **base,
                          size_t *size) {
  uint32_t page = 0u;
  size_t target;
  if (pa == NULL || base == NULL || size == NULL) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  /* Wraps to a huge value for pointers below the pages. */
  target = ((uintptr_t)ptr - (uintptr_t)pa->pages) / UTVM_CRT_PAGE_SIZE;
  while (page < pa->num_pages) {
    uint32_t first = page;
    page = next_page(pa, page);
    if (target < page) {
      if (pa->table[first] == 0u) {
        break;
      }
      *base = page_address(pa, first);
      *size = (size_t)(page - first) * UTVM_CRT_PAGE_SIZE;
      return UTVM_OK;
    }
  }
  return UTVM_ERR_FUNC_CALL_INVALID_ARG;
}

utvm_err_t utvm_page_free(utvm_page_allocator_t *pa, void *ptr) {
  uint8_t *base;
  size_t size;
  /* Only the start of an allocation may be freed (not interior, not free pages). */
  if (utvm_page_find(pa, ptr, &base, &size) != UTVM_OK || base != ptr) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  pa->table[(size_t)(base - pa->pages) / UTVM_CRT_PAGE_SIZE] = 0u;
  return UTVM_OK;
}

/* Free pages (want_largest = 0) or longest run of free pages (1), in bytes; 0 for NULL. */
static size_t free_summary(const utvm_page_allocator_t *pa, int want_largest) {
  uint32_t total = 0u;
  uint32_t largest = 0u;
  uint32_t page = 0u;
  uint32_t run = 0u;
  if (pa == NULL) {
    return 0u;
  }
  while (page < pa->num_pages) {
    uint32_t allocated = pa->table[page];
    page = next_page(pa, page);
    if (allocated != 0u) {
      run = page;
    } else {
      total++;
      if (page - run > largest) {
        largest = page - run;
      }
    }
  }
  return (size_t)((want_largest != 0) ? largest : total) * UTVM_CRT_PAGE_SIZE;
}

size_t utvm_page_free_bytes(const utvm_page_allocator_t *pa) { return free_summary(pa, 0); }

size_t utvm_page_largest_free_block(const utvm_page_allocator_t *pa) {
  return free_summary(pa, 1);
}

/*
 * Tensor arena: first-fit allocator over fixed-size pages.
 *
 * The arena holds the page-aligned pages followed by a table of one uint16_t entry per page
 * (the table starts where the pages end, so it is always 2-byte aligned). The pages form a
 * sequence of blocks (runs of pages); only the entry of a block's first page is meaningful:
 * bits 0..14 hold the block length in pages, bit 15 is set when the block is allocated.
 *
 * Coalescing is lazy: a free only clears bit 15, and every walk treats consecutive free
 * blocks as one free run; an allocation rewrites the entries of the run it takes pages from.
 * Every operation is one walk over the blocks in address order (walk_blocks), which clamps
 * each length to 1..(pages left): even a damaged table makes it advance at least one page per
 * step, stay inside the arena and stop after at most num_pages steps.
 */
#include <stddef.h>
#include <stdint.h>

#include "utvm/crt.h"

#define ENTRY_ALLOCATED 0x8000u
#define ENTRY_LENGTH_MASK 0x7FFFu
/* A page count no run reaches: makes a walk look for no free run. */
#define NEVER_FITS ((size_t)UTVM_CRT_MAX_PAGES + 1u)

typedef char page_size_is_power_of_two[
    (UTVM_CRT_PAGE_SIZE >= 8u && (UTVM_CRT_PAGE_SIZE & (UTVM_CRT_PAGE_SIZE - 1u)) == 0u) ? 1 : -1];

/* Where a walk stopped, and what it saw on the way. */
typedef struct {
  uint32_t first;        /* start of the block (or free run) it stopped at; num_pages if none */
  uint32_t end;          /* page after that block (or free run) */
  uint32_t pad;          /* free pages in front of the aligned start, when a run fits */
  uint32_t free_pages;   /* free pages in the blocks visited */
  uint32_t largest_free; /* longest free run visited */
} block_walk_t;

static int is_allocated(const utvm_page_allocator_t *pa, uint32_t page) {
  return (pa->table[page] & ENTRY_ALLOCATED) != 0u;
}

/* Walks the blocks from the first page on. Stops at the block that contains page target, or
 * at the first free run that holds needed pages from an address aligned to alignment (a power
 * of two >= the page size). target = num_pages and needed = NEVER_FITS disable either. */
static void walk_blocks(const utvm_page_allocator_t *pa, uint32_t target, size_t needed,
                        uintptr_t alignment, block_walk_t *w) {
  uint32_t page = 0u;
  uint32_t run = 0u; /* start of the free run the current block belongs to */
  uint32_t end = 0u;
  w->free_pages = 0u;
  w->largest_free = 0u;
  while (page < pa->num_pages) {
    uint32_t length = pa->table[page] & ENTRY_LENGTH_MASK;
    uint32_t left = pa->num_pages - page;
    end = page + ((length - 1u < left) ? length : left);
    if (is_allocated(pa, page)) {
      run = end;
    } else {
      uintptr_t address = (uintptr_t)(pa->pages + ((size_t)run * UTVM_CRT_PAGE_SIZE));
      uint32_t pad = (uint32_t)(((0u - address) & (alignment - 1u)) / UTVM_CRT_PAGE_SIZE);
      w->free_pages += end - page;
      if (end - run > w->largest_free) {
        w->largest_free = end - run;
      }
      if (pad + needed <= end - run) {
        w->pad = pad;
        page = run;
        break;
      }
    }
    if (target < end) {
      break;
    }
    page = end;
  }
  w->first = page;
  w->end = end;
}

/* Page index of ptr inside the pages, or a value >= num_pages for any other pointer. */
static size_t page_of(const utvm_page_allocator_t *pa, const void *ptr) {
  return ((uintptr_t)ptr - (uintptr_t)pa->pages) / UTVM_CRT_PAGE_SIZE;
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
  pa->table = (uint16_t *)(void *)(pa->pages + (num_pages * UTVM_CRT_PAGE_SIZE));
  pa->num_pages = (uint32_t)num_pages;
  utvm_page_allocator_reset(pa);
  return (num_pages == 0u) ? UTVM_ERR_BUFFER_TOO_SMALL : UTVM_OK;
}

void utvm_page_allocator_reset(utvm_page_allocator_t *pa) {
  if (pa != NULL && pa->num_pages > 0u) {
    pa->table[0] = (uint16_t)pa->num_pages;
  }
}

utvm_err_t utvm_page_alloc(utvm_page_allocator_t *pa, size_t nbytes, size_t alignment,
                           void **out) {
  block_walk_t w;
  size_t needed;
  uint32_t first;
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
  if (nbytes == 0u) {
    nbytes = 1u;
  }
  needed = ((nbytes - 1u) / UTVM_CRT_PAGE_SIZE) + 1u;
  walk_blocks(pa, pa->num_pages, needed, alignment, &w);
  if (w.first >= pa->num_pages) {
    return UTVM_ERR_PLATFORM_NO_MEMORY;
  }
  /* Split the run into [padding][allocation][rest]; without padding the second store wins. */
  first = w.first + w.pad;
  pa->table[w.first] = (uint16_t)w.pad;
  pa->table[first] = (uint16_t)(needed | ENTRY_ALLOCATED);
  first += (uint32_t)needed;
  if (first < w.end) {
    pa->table[first] = (uint16_t)(w.end - first);
  }
  *out = pa->pages + ((size_t)(first - needed) * UTVM_CRT_PAGE_SIZE);
  return UTVM_OK;
}

utvm_err_t utvm_page_free(utvm_page_allocator_t *pa, void *ptr) {
  block_walk_t w;
  size_t target;
  if (pa == NULL) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  target = page_of(pa, ptr);
  if (target >= pa->num_pages) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  walk_blocks(pa, (uint32_t)target, NEVER_FITS, UTVM_CRT_PAGE_SIZE, &w);
  /* Only the start of an allocated block may be freed (not interior, not free pages). */
  if (ptr != (void *)(pa->pages + ((size_t)w.first * UTVM_CRT_PAGE_SIZE)) ||
      !is_allocated(pa, w.first)) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  pa->table[w.first] = (uint16_t)(w.end - w.first);
  return UTVM_OK;
}

utvm_err_t utvm_page_find(const utvm_page_allocator_t *pa, const void *ptr, uint8_t **base,
                          size_t *size) {
  block_walk_t w;
  size_t target;
  if (pa == NULL || base == NULL || size == NULL) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  target = page_of(pa, ptr);
  if (target >= pa->num_pages) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  walk_blocks(pa, (uint32_t)target, NEVER_FITS, UTVM_CRT_PAGE_SIZE, &w);
  if (!is_allocated(pa, w.first)) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  *base = pa->pages + ((size_t)w.first * UTVM_CRT_PAGE_SIZE);
  *size = (size_t)(w.end - w.first) * UTVM_CRT_PAGE_SIZE;
  return UTVM_OK;
}

size_t utvm_page_free_bytes(const utvm_page_allocator_t *pa) {
  block_walk_t w;
  if (pa == NULL) {
    return 0u;
  }
  walk_blocks(pa, pa->num_pages, NEVER_FITS, UTVM_CRT_PAGE_SIZE, &w);
  return (size_t)w.free_pages * UTVM_CRT_PAGE_SIZE;
}

size_t utvm_page_largest_free_block(const utvm_page_allocator_t *pa) {
  block_walk_t w;
  if (pa == NULL) {
    return 0u;
  }
  walk_blocks(pa, pa->num_pages, NEVER_FITS, UTVM_CRT_PAGE_SIZE, &w);
  return (size_t)w.largest_free * UTVM_CRT_PAGE_SIZE;
}

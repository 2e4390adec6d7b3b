/*
 * Tensor arena: first-fit allocator over fixed-size pages.
 *
 * Pages are UTVM_CRT_PAGE_SIZE bytes, or a larger power of two when the arena holds more than
 * UTVM_CRT_MAX_PAGES of those (page_shift); addresses and sizes convert with shifts.
 *
 * The arena holds the page-aligned pages followed by a table of one uint32_t entry per page
 * (the table starts where the pages end, so it is always 4-byte aligned). The entry of the
 * first page of an allocation holds its length in pages (low ENTRY_PAGE_BITS bits) and the
 * bytes of its last page beyond the size asked for (the bits above), so that utvm_page_find
 * reports exactly the bytes allocated; every other entry is 0, which marks a free page.
 * Freeing zeroes one entry, so free pages next to each other always form one run (coalescing
 * costs nothing).
 *
 * Walks step from the first page on with next_page: one page over a free page, the whole
 * allocation over an allocated one, one page over an entry longer than the pages left. So a
 * walk costs one step per free page and per allocation, and even a damaged table keeps it
 * inside the arena and ends it after at most num_pages steps.
 */
#include <stddef.h>
#include <stdint.h>

#include "utvm/crt.h"

typedef char page_size_is_power_of_two[
    (UTVM_CRT_PAGE_SIZE >= 8u && (UTVM_CRT_PAGE_SIZE & (UTVM_CRT_PAGE_SIZE - 1u)) == 0u) ? 1 : -1];

/* An entry: pages in the low ENTRY_PAGE_BITS bits, unused bytes of the last page above them
 * (below 2^UTVM_CRT_MAX_PAGE_SHIFT, so the 32 bits hold both). */
#define ENTRY_PAGE_BITS 15u
#define ENTRY_PAGE_MASK 0x7FFFu
typedef char entry_fields_fit[
    ((UTVM_CRT_MAX_PAGES <= ENTRY_PAGE_MASK) && ((ENTRY_PAGE_BITS + UTVM_CRT_MAX_PAGE_SHIFT) <= 32u))
        ? 1 : -1];

/* A page count no run reaches. */
#define NEVER_FITS ((size_t)UTVM_CRT_MAX_PAGES + 1u)

/* What scan_free_runs returns when no free run fits. */
#define NO_FIT UINT32_MAX

/* First page after the free page or allocation at page (< num_pages). A damaged entry, longer
 * than the pages left, counts as one page. */
static uint32_t next_page(const utvm_page_allocator_t *pa, uint32_t page) {
  uint32_t length = pa->table[page] & ENTRY_PAGE_MASK;
  return page + ((length - 1u < pa->num_pages - page) ? length : 1u);
}

static uint8_t *page_address(const utvm_page_allocator_t *pa, uint32_t page) {
  return pa->pages + ((size_t)page << pa->page_shift);
}

utvm_err_t utvm_page_allocator_init(utvm_page_allocator_t *pa, uint8_t *buffer, size_t size) {
  size_t skip;
  size_t num_pages;
  uint32_t shift = 3u;
  if (pa == NULL || buffer == NULL || (uint64_t)size > UTVM_CRT_MAX_ARENA_SIZE) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  /* The smallest page size from UTVM_CRT_PAGE_SIZE up whose page count fits (at most
   * UTVM_CRT_MAX_PAGE_SHIFT steps: the size check above). */
  while (((size_t)1u << shift) < UTVM_CRT_PAGE_SIZE ||
         size / (((size_t)1u << shift) + UTVM_CRT_PAGE_ENTRY_SIZE) > UTVM_CRT_MAX_PAGES) {
    shift++;
  }
  /* Pages from the first aligned byte on; each page also needs its entry. */
  skip = (size_t)((0u - (uintptr_t)buffer) & (((uintptr_t)1u << shift) - 1u));
  num_pages = ((size > skip) ? (size - skip) : 0u) / (((size_t)1u << shift) + UTVM_CRT_PAGE_ENTRY_SIZE);
  pa->page_shift = shift;
  pa->pages = buffer + skip;
  pa->table = (uint32_t *)(void *)page_address(pa, (uint32_t)num_pages);
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

/* Walks all free runs (free pages next to each other). Returns the page where the first run
 * that holds needed pages from an address aligned to alignment_mask + 1 would place them, or
 * NO_FIT if none does; stats[0] counts the free pages and stats[1] is the longest run, both
 * over the pages walked. */
static uint32_t scan_free_runs(const utvm_page_allocator_t *pa, size_t needed,
                               uintptr_t alignment_mask, uint32_t stats[2]) {
  uint32_t page = 0u;
  uint32_t run = 0u; /* first page of the run of free pages that ends at page */
  stats[0] = 0u;
  stats[1] = 0u;
  while (page < pa->num_pages) {
    uint32_t allocated = pa->table[page];
    page = next_page(pa, page);
    if (allocated != 0u) {
      run = page;
    } else {
      /* Free pages to skip from the start of the run to an aligned address. */
      uintptr_t pad = ((0u - (uintptr_t)page_address(pa, run)) & alignment_mask) >>
                      pa->page_shift;
      stats[0]++;
      if (page - run > stats[1]) {
        stats[1] = page - run;
      }
      if (pad + needed <= page - run) {
        return run + (uint32_t)pad;
      }
    }
  }
  return NO_FIT;
}

utvm_err_t utvm_page_alloc(utvm_page_allocator_t *pa, size_t nbytes, size_t alignment,
                           void **out) {
  uint32_t stats[2];
  uint32_t first;
  /* Alignment 0 means 1; below the page size it changes nothing (pages are aligned). */
  size_t alignment_mask = alignment - ((alignment != 0u) ? 1u : 0u);
  size_t needed;
  if (pa == NULL || out == NULL) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  /* Whole pages, at least one (nbytes = 0 counts as 1). */
  needed = ((nbytes - ((nbytes != 0u) ? 1u : 0u)) >> pa->page_shift) + 1u;
  *out = NULL;
  if ((alignment & alignment_mask) != 0u) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  first = scan_free_runs(pa, needed, alignment_mask, stats);
  if (first == NO_FIT) {
    return UTVM_ERR_PLATFORM_NO_MEMORY;
  }
  /* nbytes <= needed pages, so the unused bytes are below one page. */
  pa->table[first] = (uint32_t)needed |
                     ((uint32_t)((needed << pa->page_shift) - nbytes) << ENTRY_PAGE_BITS);
  *out = page_address(pa, first);
  return UTVM_OK;
}

utvm_err_t utvm_page_find(const utvm_page_allocator_t *pa, const void *ptr, uint8_t **base,
                          size_t *size) {
  uint32_t page = 0u;
  size_t target;
  if (pa == NULL || base == NULL || size == NULL) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  /* Wraps to a huge value for pointers below the pages. */
  target = ((uintptr_t)ptr - (uintptr_t)pa->pages) >> pa->page_shift;
  while (page < pa->num_pages) {
    uint32_t first = page;
    page = next_page(pa, page);
    if (target < page) {
      size_t pages_bytes = (size_t)(page - first) << pa->page_shift;
      size_t unused = (size_t)(pa->table[first] >> ENTRY_PAGE_BITS);
      if (pa->table[first] == 0u) {
        break;
      }
      *base = page_address(pa, first);
      /* A damaged entry claims at most every byte of its pages. */
      *size = pages_bytes - ((unused <= pages_bytes) ? unused : 0u);
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
  pa->table[((uintptr_t)base - (uintptr_t)pa->pages) >> pa->page_shift] = 0u;
  return UTVM_OK;
}

/* Free pages (want_largest = 0) or longest run of free pages (1), in bytes; 0 for NULL. */
static size_t free_summary(const utvm_page_allocator_t *pa, int want_largest) {
  uint32_t stats[2];
  if (pa == NULL) {
    return 0u;
  }
  (void)scan_free_runs(pa, NEVER_FITS, 0u, stats);
  return (size_t)stats[(want_largest != 0) ? 1 : 0] << pa->page_shift;
}

size_t utvm_page_total_bytes(const utvm_page_allocator_t *pa) {
  return (pa == NULL) ? 0u : ((size_t)pa->num_pages << pa->page_shift);
}

size_t utvm_page_free_bytes(const utvm_page_allocator_t *pa) { return free_summary(pa, 0); }

size_t utvm_page_largest_free_block(const utvm_page_allocator_t *pa) {
  return free_summary(pa, 1);
}

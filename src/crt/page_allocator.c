/*
 * Tensor arena: first-fit allocator over fixed-size pages.
 *
 * The arena starts with a table of one 16-bit little-endian entry per page, followed by the
 * page-aligned pages. The arena is a sequence of blocks (runs of pages); only the entry of
 * a block's first page is meaningful: bits 0..14 hold the block length in pages, bit 15 is set
 * when the block is allocated. Free blocks are always coalesced, so two free blocks are never
 * adjacent. Every walk visits at most num_pages blocks.
 */
#include <stddef.h>
#include <stdint.h>

#include "utvm/crt.h"

#define ENTRY_ALLOCATED 0x8000u
#define ENTRY_LENGTH_MASK 0x7FFFu

typedef char page_size_is_power_of_two[
    (UTVM_CRT_PAGE_SIZE >= 8u && (UTVM_CRT_PAGE_SIZE & (UTVM_CRT_PAGE_SIZE - 1u)) == 0u) ? 1 : -1];

static uint32_t entry_get(const utvm_page_allocator_t *pa, uint32_t page) {
  const uint8_t *e = &pa->table[2u * page];
  return (uint32_t)e[0] | ((uint32_t)e[1] << 8);
}

static void entry_set(utvm_page_allocator_t *pa, uint32_t page, uint32_t length, int allocated) {
  uint32_t value = (length & ENTRY_LENGTH_MASK) | (allocated ? ENTRY_ALLOCATED : 0u);
  uint8_t *e = &pa->table[2u * page];
  e[0] = (uint8_t)(value & 0xFFu);
  e[1] = (uint8_t)(value >> 8);
}

/* Length of the block starting at page, clamped so that a damaged table cannot make a walk
 * leave the arena or stall. */
static uint32_t block_length(const utvm_page_allocator_t *pa, uint32_t page) {
  uint32_t length = entry_get(pa, page) & ENTRY_LENGTH_MASK;
  if (length == 0u || length > pa->num_pages - page) {
    length = pa->num_pages - page;
  }
  return length;
}

static int block_allocated(const utvm_page_allocator_t *pa, uint32_t page) {
  return (entry_get(pa, page) & ENTRY_ALLOCATED) != 0u;
}

static uintptr_t align_up(uintptr_t value, uintptr_t alignment) {
  return (value + alignment - 1u) & ~(alignment - 1u);
}

/* Page index of ptr if it lies inside the pages (*page set), else 0. */
static int page_of(const utvm_page_allocator_t *pa, const void *ptr, uint32_t *page,
                   int *page_start) {
  uintptr_t first = (uintptr_t)pa->pages;
  uintptr_t addr = (uintptr_t)ptr;
  uintptr_t offset;
  if (pa->pages == NULL || addr < first) {
    return 0;
  }
  offset = addr - first;
  if (offset / UTVM_CRT_PAGE_SIZE >= pa->num_pages) {
    return 0;
  }
  *page = (uint32_t)(offset / UTVM_CRT_PAGE_SIZE);
  *page_start = (offset % UTVM_CRT_PAGE_SIZE) == 0u;
  return 1;
}

utvm_err_t utvm_page_allocator_init(utvm_page_allocator_t *pa, uint8_t *buffer, size_t size) {
  size_t num_pages;
  uintptr_t start;
  uintptr_t end;
  if (pa == NULL || buffer == NULL) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  start = (uintptr_t)buffer;
  end = start + size;
  num_pages = size / (UTVM_CRT_PAGE_SIZE + 2u);
  if (num_pages > UTVM_CRT_MAX_PAGES) {
    num_pages = UTVM_CRT_MAX_PAGES;
  }
  /* Alignment padding costs less than one page, so this loop runs at most twice. */
  while (num_pages > 0u &&
         align_up(start + 2u * num_pages, UTVM_CRT_PAGE_SIZE) + num_pages * UTVM_CRT_PAGE_SIZE >
             end) {
    num_pages--;
  }
  if (num_pages == 0u) {
    pa->table = NULL;
    pa->pages = NULL;
    pa->num_pages = 0u;
    return UTVM_ERR_BUFFER_TOO_SMALL;
  }
  pa->table = buffer;
  pa->pages = buffer + (align_up(start + 2u * num_pages, UTVM_CRT_PAGE_SIZE) - start);
  pa->num_pages = (uint32_t)num_pages;
  utvm_page_allocator_reset(pa);
  return UTVM_OK;
}

void utvm_page_allocator_reset(utvm_page_allocator_t *pa) {
  if (pa != NULL && pa->num_pages > 0u) {
    entry_set(pa, 0u, pa->num_pages, 0);
  }
}

utvm_err_t utvm_page_alloc(utvm_page_allocator_t *pa, size_t nbytes, size_t alignment,
                           void **out) {
  size_t needed;
  uint32_t page = 0u;
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
  if (nbytes > (size_t)pa->num_pages * UTVM_CRT_PAGE_SIZE) {
    return UTVM_ERR_PLATFORM_NO_MEMORY;
  }
  needed = (nbytes == 0u) ? 1u : (nbytes + UTVM_CRT_PAGE_SIZE - 1u) / UTVM_CRT_PAGE_SIZE;
  while (page < pa->num_pages) {
    uint32_t length = block_length(pa, page);
    if (!block_allocated(pa, page)) {
      uintptr_t addr = (uintptr_t)(pa->pages + (size_t)page * UTVM_CRT_PAGE_SIZE);
      size_t pad = (align_up(addr, alignment) - addr) / UTVM_CRT_PAGE_SIZE;
      if (pad < length && needed <= length - pad) {
        uint32_t first = page + (uint32_t)pad;
        uint32_t rest = length - (uint32_t)pad - (uint32_t)needed;
        if (pad > 0u) {
          entry_set(pa, page, (uint32_t)pad, 0);
        }
        entry_set(pa, first, (uint32_t)needed, 1);
        if (rest > 0u) {
          entry_set(pa, first + (uint32_t)needed, rest, 0);
        }
        *out = pa->pages + (size_t)first * UTVM_CRT_PAGE_SIZE;
        return UTVM_OK;
      }
    }
    page += length;
  }
  return UTVM_ERR_PLATFORM_NO_MEMORY;
}

utvm_err_t utvm_page_free(utvm_page_allocator_t *pa, void *ptr) {
  uint32_t target;
  int page_start;
  uint32_t page = 0u;
  uint32_t previous = 0u;
  int has_previous = 0;
  if (pa == NULL || !page_of(pa, ptr, &target, &page_start) || !page_start) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  while (page <= target) {
    uint32_t length = block_length(pa, page);
    if (page == target) {
      uint32_t next = page + length;
      if (!block_allocated(pa, page)) {
        return UTVM_ERR_FUNC_CALL_INVALID_ARG; /* double free */
      }
      if (next < pa->num_pages && !block_allocated(pa, next)) {
        length += block_length(pa, next);
      }
      if (has_previous && !block_allocated(pa, previous)) {
        entry_set(pa, previous, block_length(pa, previous) + length, 0);
      } else {
        entry_set(pa, page, length, 0);
      }
      return UTVM_OK;
    }
    previous = page;
    has_previous = 1;
    page += length;
  }
  return UTVM_ERR_FUNC_CALL_INVALID_ARG; /* interior pointer */
}

utvm_err_t utvm_page_find(const utvm_page_allocator_t *pa, const void *ptr, uint8_t **base,
                          size_t *size) {
  uint32_t target;
  int page_start;
  uint32_t page = 0u;
  if (pa == NULL || base == NULL || size == NULL || !page_of(pa, ptr, &target, &page_start)) {
    return UTVM_ERR_FUNC_CALL_INVALID_ARG;
  }
  while (page < pa->num_pages) {
    uint32_t length = block_length(pa, page);
    if (target < page + length) {
      if (!block_allocated(pa, page)) {
        return UTVM_ERR_FUNC_CALL_INVALID_ARG;
      }
      *base = pa->pages + (size_t)page * UTVM_CRT_PAGE_SIZE;
      *size = (size_t)length * UTVM_CRT_PAGE_SIZE;
      return UTVM_OK;
    }
    page += length;
  }
  return UTVM_ERR_FUNC_CALL_INVALID_ARG;
}

/* Sum (want_largest = 0) or maximum (want_largest = 1) of the free block lengths, in bytes. */
static size_t free_pages_summary(const utvm_page_allocator_t *pa, int want_largest) {
  size_t result = 0u;
  uint32_t page = 0u;
  if (pa == NULL) {
    return 0u;
  }
  while (page < pa->num_pages) {
    uint32_t length = block_length(pa, page);
    if (!block_allocated(pa, page)) {
      if (!want_largest) {
        result += length;
      } else if (length > result) {
        result = length;
      }
    }
    page += length;
  }
  return result * UTVM_CRT_PAGE_SIZE;
}

size_t utvm_page_free_bytes(const utvm_page_allocator_t *pa) {
  return free_pages_summary(pa, 0);
}

size_t utvm_page_largest_free_block(const utvm_page_allocator_t *pa) {
  return free_pages_summary(pa, 1);
}

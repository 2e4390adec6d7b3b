/*
 * The memory report's measured figures (docs/AI.md, "The memory report"): the table a build
 * writes (utvm-sizes.txt: what each kernel and the ai_ runtime pull into a firmware, per input
 * section, and how that build compiles generated code), and the sections of generated C
 * compiled with that build's compiler and flags.
 */
#ifndef UTVM_CLI_SIZES_H
#define UTVM_CLI_SIZES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds of a table: lines, line length, include directories. */
#define CLI_SIZES_MAX_ENTRIES 4096u
#define CLI_SIZES_MAX_LINE 2048u
#define CLI_SIZES_MAX_INCLUDES 8u

/* The four kinds of bytes a firmware places: code, constants, initialised and zeroed data. */
typedef enum { CLI_SZ_TEXT = 0, CLI_SZ_RODATA, CLI_SZ_DATA, CLI_SZ_BSS, CLI_SZ_KINDS } cli_sz_kind_t;

typedef struct {
  uint64_t bytes[CLI_SZ_KINDS];
} cli_sz_row_t;

/* One input section a group pulls in: group (a kernel function or "ai_runtime"), object
 * ("libutvm_kernels.a(conv2d_s8.c.obj)"), section name, bytes. */
typedef struct {
  char *group;
  char *object;
  char *section;
  uint32_t bytes;
  cli_sz_kind_t kind;
} cli_sz_entry_t;

typedef struct {
  char core[64];                 /* the -mcpu= of the build, or "host" */
  char *cc;                      /* the build's C compiler */
  char *cflags;                  /* the flags generated model code is compiled with */
  char *includes[CLI_SIZES_MAX_INCLUDES];
  uint32_t n_includes;
  cli_sz_entry_t *entries;
  uint32_t n_entries;
} cli_sizes_t;

/* Reads the table at path into *t (every line checked); false with a text in msg. */
bool cli_sizes_load(const char *path, cli_sizes_t *t, char *msg, size_t cap);

/* Frees what cli_sizes_load allocated; t is zeroed. */
void cli_sizes_free(cli_sizes_t *t);

/* Whether the table measured group (a kernel function name or "ai_runtime"). */
bool cli_sizes_has_group(const cli_sizes_t *t, const char *group);

/* Sums into *row the sections that the groups[0..n) pull in together (each section once),
 * from objects whose name starts with prefix (NULL: every object; exclude: every object but
 * those). */
void cli_sizes_union(const cli_sizes_t *t, const char *const *groups, uint32_t n,
                     const char *prefix, bool exclude, cli_sz_row_t *row);

/* Compiles the C file src with the table's compiler and flags (include dir added) into obj and
 * sums its code and data sections into *row; false with a text in msg. */
bool cli_sizes_compile(const cli_sizes_t *t, const char *dir, const char *src, const char *obj,
                       cli_sz_row_t *row, char *msg, size_t cap);

#endif /* UTVM_CLI_SIZES_H */

/* The memory report's measured figures (sizes.h): the build's table and compiled objects. */
#define _DEFAULT_SOURCE

#include "sizes.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* Largest object file read, and most arguments of one compiler call. */
#define SIZES_MAX_OBJECT ((size_t)256u << 20)
#define SIZES_MAX_ARGS 128u

extern char **environ;

static char *dup_str(const char *s) {
  const size_t n = strlen(s) + 1u;
  char *d = (char *)malloc(n);
  if (d != NULL) {
    (void)memcpy(d, s, n);
  }
  return d;
}

/* The kind of an input section by its name; false for anything else (notes, unwind tables). */
static bool section_kind(const char *name, cli_sz_kind_t *kind) {
  static const char *const prefixes[CLI_SZ_KINDS] = {".text", ".rodata", ".data", ".bss"};
  for (uint32_t k = 0u; k < (uint32_t)CLI_SZ_KINDS; k++) {
    const size_t n = strlen(prefixes[k]);
    if ((strncmp(name, prefixes[k], n) == 0) && ((name[n] == '\0') || (name[n] == '.'))) {
      *kind = (cli_sz_kind_t)k;
      return true;
    }
  }
  return false;
}

/* Splits line at spaces into at most max words; returns the count. */
static uint32_t split_words(char *line, char **words, uint32_t max) {
  uint32_t n = 0u;
  char *save = NULL;
  for (char *w = strtok_r(line, " \t", &save); (w != NULL) && (n < max);
       w = strtok_r(NULL, " \t", &save)) {
    words[n++] = w;
  }
  return n;
}

static bool parse_entry(cli_sizes_t *t, char **w, uint32_t n, char *msg, size_t cap,
                        uint32_t line_no) {
  char *end = NULL;
  cli_sz_kind_t kind = CLI_SZ_TEXT;
  errno = 0;
  const unsigned long bytes = (n == 5u) ? strtoul(w[4], &end, 10) : 0ul;
  if ((n != 5u) || (errno != 0) || (end == w[4]) || (*end != '\0') || (bytes > UINT32_MAX) ||
      !section_kind(w[3], &kind)) {
    (void)snprintf(msg, cap, "line %u: not \"section GROUP OBJECT SECTION BYTES\" with a code or "
                   "data section", line_no);
    return false;
  }
  if (t->n_entries >= CLI_SIZES_MAX_ENTRIES) {
    (void)snprintf(msg, cap, "more than %u sections", CLI_SIZES_MAX_ENTRIES);
    return false;
  }
  cli_sz_entry_t *e = &t->entries[t->n_entries];
  e->group = dup_str(w[1]);
  e->object = dup_str(w[2]);
  e->section = dup_str(w[3]);
  e->bytes = (uint32_t)bytes;
  e->kind = kind;
  t->n_entries++;
  if ((e->group == NULL) || (e->object == NULL) || (e->section == NULL)) {
    (void)snprintf(msg, cap, "out of memory");
    return false;
  }
  return true;
}

/* One line of the table (newline removed); false with a text in msg. */
static bool parse_line(cli_sizes_t *t, char *line, uint32_t line_no, char *msg, size_t cap) {
  char *w[6];
  if (line_no == 1u) {
    if (strcmp(line, "utvm-sizes 1") != 0) {
      (void)snprintf(msg, cap, "not a utvm-sizes table of version 1");
      return false;
    }
    return true;
  }
  if (strncmp(line, "cflags ", 7u) == 0) {
    free(t->cflags);
    t->cflags = dup_str(&line[7]);
    return (t->cflags != NULL) || (snprintf(msg, cap, "out of memory") < 0);
  }
  const uint32_t n = split_words(line, w, 6u);
  if ((n == 2u) && (strcmp(w[0], "core") == 0) && (strlen(w[1]) < sizeof(t->core))) {
    (void)memcpy(t->core, w[1], strlen(w[1]) + 1u);
    return true;
  }
  if ((n == 2u) && (strcmp(w[0], "cc") == 0)) {
    free(t->cc);
    t->cc = dup_str(w[1]);
    return (t->cc != NULL) || (snprintf(msg, cap, "out of memory") < 0);
  }
  if ((n == 2u) && (strcmp(w[0], "include") == 0) && (t->n_includes < CLI_SIZES_MAX_INCLUDES)) {
    t->includes[t->n_includes] = dup_str(w[1]);
    return (t->includes[t->n_includes++] != NULL) || (snprintf(msg, cap, "out of memory") < 0);
  }
  if ((n >= 1u) && (strcmp(w[0], "section") == 0)) {
    return parse_entry(t, w, n, msg, cap, line_no);
  }
  (void)snprintf(msg, cap, "line %u: unknown or malformed", line_no);
  return false;
}

bool cli_sizes_load(const char *path, cli_sizes_t *t, char *msg, size_t cap) {
  char line[CLI_SIZES_MAX_LINE];
  char err[256] = "";
  uint32_t line_no = 0u;
  bool ok = true;
  (void)memset(t, 0, sizeof(*t));
  FILE *f = fopen(path, "r");
  t->entries = (cli_sz_entry_t *)calloc(CLI_SIZES_MAX_ENTRIES, sizeof(cli_sz_entry_t));
  if ((f == NULL) || (t->entries == NULL)) {
    (void)snprintf(msg, cap, "--sizes %s: %s", path, (f == NULL) ? strerror(errno) : "no memory");
    if (f != NULL) {
      (void)fclose(f);
    }
    cli_sizes_free(t);
    return false;
  }
  while (ok && (fgets(line, (int)sizeof(line), f) != NULL)) {
    const size_t len = strlen(line);
    line_no++;
    if ((len == 0u) || (line[len - 1u] != '\n')) {
      (void)snprintf(err, sizeof(err), "line %u: longer than %u bytes or unterminated", line_no,
                     CLI_SIZES_MAX_LINE - 2u);
      ok = false;
    } else {
      line[len - 1u] = '\0';
      ok = parse_line(t, line, line_no, err, sizeof(err));
    }
  }
  (void)fclose(f);
  if (ok && ((t->core[0] == '\0') || (t->cc == NULL) || (t->cflags == NULL) ||
             (t->n_entries == 0u))) {
    (void)snprintf(err, sizeof(err), "no core, cc, cflags or sections");
    ok = false;
  }
  if (!ok) {
    (void)snprintf(msg, cap, "--sizes %s: %s", path, err);
    cli_sizes_free(t);
  }
  return ok;
}

void cli_sizes_free(cli_sizes_t *t) {
  for (uint32_t i = 0u; (t->entries != NULL) && (i < t->n_entries); i++) {
    free(t->entries[i].group);
    free(t->entries[i].object);
    free(t->entries[i].section);
  }
  for (uint32_t i = 0u; i < t->n_includes; i++) {
    free(t->includes[i]);
  }
  free(t->entries);
  free(t->cc);
  free(t->cflags);
  (void)memset(t, 0, sizeof(*t));
}

bool cli_sizes_has_group(const cli_sizes_t *t, const char *group) {
  for (uint32_t i = 0u; i < t->n_entries; i++) {
    if (strcmp(t->entries[i].group, group) == 0) {
      return true;
    }
  }
  return false;
}

static bool in_groups(const cli_sz_entry_t *e, const char *const *groups, uint32_t n) {
  for (uint32_t g = 0u; g < n; g++) {
    if (strcmp(e->group, groups[g]) == 0) {
      return true;
    }
  }
  return false;
}

void cli_sizes_union(const cli_sizes_t *t, const char *const *groups, uint32_t n,
                     const char *prefix, bool exclude, cli_sz_row_t *row) {
  (void)memset(row, 0, sizeof(*row));
  for (uint32_t i = 0u; i < t->n_entries; i++) {
    const cli_sz_entry_t *e = &t->entries[i];
    const bool match = (prefix == NULL) || (strncmp(e->object, prefix, strlen(prefix)) == 0);
    if (!in_groups(e, groups, n) || (match == exclude)) {
      continue;
    }
    bool counted = false;
    for (uint32_t j = 0u; (j < i) && !counted; j++) {
      const cli_sz_entry_t *o = &t->entries[j];
      counted = in_groups(o, groups, n) && (strcmp(o->object, e->object) == 0) &&
                (strcmp(o->section, e->section) == 0);
    }
    if (!counted) {
      row->bytes[e->kind] += e->bytes;
    }
  }
}

/* Runs argv and waits; false with a text in msg unless it exits 0. */
static bool run_tool(char *const *argv, char *msg, size_t cap) {
  pid_t pid;
  int status = 0;
  const int rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
  if (rc != 0) {
    (void)snprintf(msg, cap, "cannot run %s: %s", argv[0], strerror(rc));
    return false;
  }
  if ((waitpid(pid, &status, 0) != pid) || !WIFEXITED(status) || (WEXITSTATUS(status) != 0)) {
    (void)snprintf(msg, cap, "%s failed on the generated code (exit status %d)", argv[0],
                   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return false;
  }
  return true;
}

static uint64_t rd(const uint8_t *p, uint32_t n) {
  uint64_t v = 0u;
  for (uint32_t i = n; i > 0u; i--) {
    v = (v << 8) | p[i - 1u];
  }
  return v;
}

/* Sums the allocated code and data sections of the little-endian ELF object in b[0..size). */
static bool elf_sections(const uint8_t *b, size_t size, cli_sz_row_t *row, char *msg,
                         size_t cap) {
  if ((size < 64u) || (memcmp(b, "\177ELF", 4u) != 0) || ((b[4] != 1u) && (b[4] != 2u)) ||
      (b[5] != 1u)) {
    (void)snprintf(msg, cap, "the compiled object is not a little-endian ELF file");
    return false;
  }
  const bool wide = b[4] == 2u;
  const uint64_t shoff = wide ? rd(&b[0x28], 8u) : rd(&b[0x20], 4u);
  const uint64_t entsize = rd(&b[wide ? 0x3au : 0x2eu], 2u);
  const uint64_t shnum = rd(&b[wide ? 0x3cu : 0x30u], 2u);
  const uint64_t shstrndx = rd(&b[wide ? 0x3eu : 0x32u], 2u);
  const uint64_t need = wide ? 64u : 40u;
  if ((entsize < need) || (shoff > size) || (shnum > ((size - shoff) / entsize)) ||
      (shstrndx >= shnum)) {
    (void)snprintf(msg, cap, "the compiled object's section table is out of bounds");
    return false;
  }
  const uint8_t *strsh = &b[shoff + (shstrndx * entsize)];
  const uint64_t stroff = wide ? rd(&strsh[0x18], 8u) : rd(&strsh[0x10], 4u);
  const uint64_t strsize = wide ? rd(&strsh[0x20], 8u) : rd(&strsh[0x14], 4u);
  if ((stroff > size) || (strsize > (size - stroff)) || (strsize == 0u) ||
      (b[stroff + strsize - 1u] != 0u)) {
    (void)snprintf(msg, cap, "the compiled object's section names are out of bounds");
    return false;
  }
  (void)memset(row, 0, sizeof(*row));
  for (uint64_t i = 0u; i < shnum; i++) {
    const uint8_t *sh = &b[shoff + (i * entsize)];
    const uint64_t name = rd(sh, 4u);
    const uint64_t flags = wide ? rd(&sh[8], 8u) : rd(&sh[8], 4u);
    const uint64_t bytes = wide ? rd(&sh[0x20], 8u) : rd(&sh[0x14], 4u);
    cli_sz_kind_t kind = CLI_SZ_TEXT;
    if ((name < strsize) && ((flags & 2u) != 0u) &&
        section_kind((const char *)&b[stroff + name], &kind)) {
      row->bytes[kind] += bytes;
    }
  }
  return true;
}

bool cli_sizes_compile(const cli_sizes_t *t, const char *dir, const char *src, const char *obj,
                       cli_sz_row_t *row, char *msg, size_t cap) {
  char *argv[SIZES_MAX_ARGS];
  char include_dir[1024];
  uint32_t n = 0u;
  char *flags = dup_str(t->cflags);
  char *inc[CLI_SIZES_MAX_INCLUDES + 1u];
  if (flags == NULL) {
    (void)snprintf(msg, cap, "out of memory");
    return false;
  }
  argv[n++] = t->cc;
  n += split_words(flags, &argv[n], SIZES_MAX_ARGS - CLI_SIZES_MAX_INCLUDES - 8u);
  (void)snprintf(include_dir, sizeof(include_dir), "-I%s", dir);
  argv[n++] = include_dir;
  bool ok = true;
  for (uint32_t i = 0u; i < t->n_includes; i++) {
    const size_t len = strlen(t->includes[i]) + 3u;
    inc[i] = (char *)malloc(len);
    ok = ok && (inc[i] != NULL);
    if (inc[i] != NULL) {
      (void)snprintf(inc[i], len, "-I%s", t->includes[i]);
      argv[n++] = inc[i];
    }
  }
  argv[n++] = (char *)"-c";
  argv[n++] = (char *)(uintptr_t)src;
  argv[n++] = (char *)"-o";
  argv[n++] = (char *)(uintptr_t)obj;
  argv[n] = NULL;
  ok = ok ? run_tool(argv, msg, cap) : (snprintf(msg, cap, "out of memory") < 0);
  for (uint32_t i = 0u; i < t->n_includes; i++) {
    free(inc[i]);
  }
  free(flags);
  if (!ok) {
    return false;
  }
  struct stat st;
  FILE *f = fopen(obj, "rb");
  uint8_t *data = NULL;
  if ((f != NULL) && (fstat(fileno(f), &st) == 0) && (st.st_size > 0) &&
      ((uint64_t)st.st_size <= (uint64_t)SIZES_MAX_OBJECT)) {
    data = (uint8_t *)malloc((size_t)st.st_size);
    if ((data != NULL) && (fread(data, 1u, (size_t)st.st_size, f) != (size_t)st.st_size)) {
      free(data);
      data = NULL;
    }
  }
  if (f != NULL) {
    (void)fclose(f);
  }
  if (data == NULL) {
    (void)snprintf(msg, cap, "cannot read the compiled object %s", obj);
    return false;
  }
  ok = elf_sections(data, (size_t)st.st_size, row, msg, cap);
  free(data);
  return ok;
}

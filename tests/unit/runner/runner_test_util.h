/* Shared by the runner tests: loading files (of shared/models, or by path) and running a model
 * with heap-allocated workspace and arena of exactly the sizes the runner asks for (so that
 * ASan sees any access past them). */
#ifndef RUNNER_TEST_UTIL_H
#define RUNNER_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utvm/runner.h"

#ifndef UTVM_SHARED_DIR
#error "UTVM_SHARED_DIR must name the shared/ folder"
#endif

/* The whole of file (an absolute path, or relative to shared/models) in a heap block (16-byte
 * aligned by malloc on the hosts we test), or NULL. */
static uint8_t *rt_load(const char *file, size_t *size) {
  char path[512];
  if (file[0] == '/') {
    (void)snprintf(path, sizeof(path), "%s", file);
  } else {
    (void)snprintf(path, sizeof(path), "%s/models/%s", UTVM_SHARED_DIR, file);
  }
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    return NULL;
  }
  uint8_t *data = NULL;
  long n = -1;
  if (fseek(f, 0, SEEK_END) == 0) {
    n = ftell(f);
  }
  if ((n > 0) && (fseek(f, 0, SEEK_SET) == 0)) {
    data = (uint8_t *)malloc((size_t)n);
    if ((data != NULL) && (fread(data, 1u, (size_t)n, f) != (size_t)n)) {
      free(data);
      data = NULL;
    }
  }
  (void)fclose(f);
  *size = (data != NULL) ? (size_t)n : 0u;
  return data;
}

/* A model set up to run: the model, its runner and the memory they use. */
typedef struct {
  utvm_model_t model;
  utvm_runner_t runner;
  void *workspace;
  void *arena;
} rt_instance_t;

/* Opens data and initialises a runner with workspace and arena of the sizes asked for (the
 * arena only if at most max_arena bytes). Returns the first error; *stage says where. */
/* utvm_runner_options_t.patches of rt_setup (a test may change it). */
static uint32_t rt_patches = UTVM_RUNNER_PATCHES_OFF;

static utvm_err_t rt_setup(rt_instance_t *in, const uint8_t *data, size_t size, size_t max_arena,
                           const char **stage) {
  (void)memset(in, 0, sizeof(*in));
  *stage = "open";
  utvm_err_t err = utvm_model_open(&in->model, data, size);
  if (err != UTVM_OK) {
    return err;
  }
  *stage = "workspace_size";
  const size_t ws = utvm_runner_workspace_size(&in->model);
  if ((ws == SIZE_MAX) || (ws > ((size_t)64u << 20))) {
    return UTVM_ERR_RUNNER_WORKSPACE;
  }
  in->workspace = malloc(ws);
  if (in->workspace == NULL) {
    return UTVM_ERR_RUNNER_WORKSPACE;
  }
  *stage = "init (query)";
  const utvm_runner_options_t options = {UTVM_KERNELS_NATIVE, false, &utvm_op_resolver_all,
                                         rt_patches};
  err = utvm_runner_init_with(&in->runner, &in->model, in->workspace, ws, NULL, 0u, &options);
  if (err != UTVM_ERR_RUNNER_ARENA) {
    return (err == UTVM_OK) ? UTVM_ERR_RUNNER_ARGUMENT : err;
  }
  const size_t arena = in->runner.arena_size;
  if (arena > max_arena) {
    *stage = "arena above the test's limit";
    return UTVM_ERR_RUNNER_ARENA;
  }
  /* At least 16 bytes so that malloc returns a block (16-byte aligned on glibc). */
  in->arena = malloc((arena > 16u) ? arena : 16u);
  if (in->arena == NULL) {
    return UTVM_ERR_RUNNER_ARENA;
  }
  *stage = "init";
  return utvm_runner_init_with(&in->runner, &in->model, in->workspace, ws, in->arena, arena,
                               &options);
}

static void rt_teardown(rt_instance_t *in) {
  free(in->workspace);
  free(in->arena);
  in->workspace = NULL;
  in->arena = NULL;
}

#endif /* RUNNER_TEST_UTIL_H */

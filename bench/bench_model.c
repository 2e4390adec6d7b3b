/*
 * One inference of a .tflite model with the runner, for callgrind (bench/run.sh):
 *
 *   bench_model MODEL.tflite INPUT.bin [EXPECTED.bin]
 *
 * Opens and prepares the model, runs one warm-up inference, then (input written again, variable
 * tensors reset) one inside measured_invoke() (callgrind --toggle-collect=measured_invoke counts exactly that one).
 * Prints "operators <n> arena <bytes> exact <yes|no|-> workspace <bytes>" (exact: the output equals
 * EXPECTED.bin; workspace: utvm_runner_workspace_size, the runner's own memory besides the arena).
 */
#define _POSIX_C_SOURCE 200112L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utvm/model.h"
#include "utvm/runner.h"

/* Largest file read (the biggest shipped model is about 333 KB). */
#define BENCH_MAX_FILE (64u * 1024u * 1024u)

/* A malloc'd block of size bytes aligned to alignment (a power of two), or NULL. */
static void *aligned_block(size_t alignment, size_t size) {
  void *p = NULL;
  return (posix_memalign(&p, alignment, (size > 0u) ? size : 1u) == 0) ? p : NULL;
}

/* The whole file in a 16-byte aligned malloc'd block (the reader needs aligned constants). */
static uint8_t *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    return NULL;
  }
  uint8_t *data = NULL;
  long n = -1;
  if (fseek(f, 0, SEEK_END) == 0) {
    n = ftell(f);
  }
  if ((n >= 0) && ((unsigned long)n <= BENCH_MAX_FILE) && (fseek(f, 0, SEEK_SET) == 0)) {
    data = (uint8_t *)aligned_block(16u, (size_t)n);
    if ((data != NULL) && (fread(data, 1u, (size_t)n, f) != (size_t)n)) {
      free(data);
      data = NULL;
    }
  }
  (void)fclose(f);
  *size = (size_t)n;
  return data;
}

/* Not inlined, so that callgrind can collect exactly one inference. */
__attribute__((noinline)) utvm_err_t measured_invoke(utvm_runner_t *runner);
__attribute__((noinline)) utvm_err_t measured_invoke(utvm_runner_t *runner) {
  return utvm_runner_invoke(runner);
}

int main(int argc, char **argv) {
  if ((argc != 3) && (argc != 4)) {
    (void)fprintf(stderr, "usage: bench_model MODEL.tflite INPUT.bin [EXPECTED.bin]\n");
    return 2;
  }
  size_t model_size = 0u;
  size_t input_size = 0u;
  size_t expected_size = 0u;
  uint8_t *model_bytes = read_file(argv[1], &model_size);
  uint8_t *input = read_file(argv[2], &input_size);
  uint8_t *expected = (argc == 4) ? read_file(argv[3], &expected_size) : NULL;
  if ((model_bytes == NULL) || (input == NULL) || ((argc == 4) && (expected == NULL))) {
    (void)fprintf(stderr, "bench_model: cannot read the files\n");
    return 1;
  }
  utvm_model_t model;
  utvm_runner_t runner;
  if (utvm_model_open(&model, model_bytes, model_size) != UTVM_OK) {
    (void)fprintf(stderr, "bench_model: %s\n", model.error);
    return 1;
  }
  size_t ws_size = utvm_runner_workspace_size(&model);
  void *workspace = (ws_size != SIZE_MAX) ? malloc(ws_size) : NULL;
  (void)utvm_runner_init(&runner, &model, workspace, ws_size, NULL, 0u);
  void *arena = aligned_block(UTVM_RUNNER_ARENA_ALIGNMENT, runner.arena_size);
  utvm_runner_tensor_t in;
  utvm_runner_tensor_t out;
  if ((workspace == NULL) || (arena == NULL) ||
      (utvm_runner_init(&runner, &model, workspace, ws_size, arena, runner.arena_size) !=
       UTVM_OK) ||
      (utvm_runner_input(&runner, 0u, &in) != UTVM_OK) || (in.bytes != input_size)) {
    (void)fprintf(stderr, "bench_model: %s (input %zu bytes)\n", runner.error, input_size);
    return 1;
  }
  /* The input is written before each inference: the plan reuses its memory once it died. The
   * state (SVDF, LSTM) starts from zero again, as the first inference's did. */
  (void)memcpy(in.data, input, input_size);
  utvm_err_t err = utvm_runner_invoke(&runner);
  (void)memcpy(in.data, input, input_size);
  if (err == UTVM_OK) {
    err = utvm_runner_reset_state(&runner);
  }
  if ((err != UTVM_OK) || (measured_invoke(&runner) != UTVM_OK) ||
      (utvm_runner_output(&runner, 0u, &out) != UTVM_OK)) {
    (void)fprintf(stderr, "bench_model: %s\n", runner.error);
    return 1;
  }
  const char *exact = "-";
  if (expected != NULL) {
    exact = ((expected_size == out.bytes) && (memcmp(expected, out.data, out.bytes) == 0))
                ? "yes"
                : "no";
  }
  (void)printf("operators %u arena %zu exact %s workspace %zu\n", (unsigned)runner.n_operators,
               runner.arena_size, exact, ws_size);
  free(arena);
  free(workspace);
  free(expected);
  free(input);
  free(model_bytes);
  return 0;
}

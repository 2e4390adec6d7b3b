/*
 * libFuzzer target for the op-params decoder (utvm_op_params_decode, src/runner/op_params.c).
 *
 * Input: little-endian int32 words (a trailing partial word is dropped), decoded with every
 * word count up to the input's. Checked on every input: decode either fails with a text or
 * gives params whose re-encoding reproduces the input words exactly (the format has one
 * encoding per call) and whose operands have sizes within the format's limits.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "utvm/runner.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Words looked at (an op-params tensor of a real model is a few hundred words). */
#define MAX_WORDS 4096u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint32_t n = (uint32_t)((size / 4u > MAX_WORDS) ? MAX_WORDS : size / 4u);
  /* A heap block of exactly n words, so that ASan sees any read past it. */
  int32_t *words = (int32_t *)malloc(((size_t)n + 1u) * sizeof(int32_t));
  int32_t *again = (int32_t *)malloc(((size_t)n + 1u) * sizeof(int32_t));
  FUZZ_CHECK((words != NULL) && (again != NULL));
  (void)memcpy(words, data, (size_t)n * 4u);
  for (uint32_t len = (n > 8u) ? n - 8u : 0u; len <= n; len++) {
    utvm_op_params_t p;
    const char *why = NULL;
    int32_t *exact = (int32_t *)malloc(((size_t)len + 1u) * sizeof(int32_t));
    FUZZ_CHECK(exact != NULL);
    (void)memcpy(exact, words, (size_t)len * 4u);
    if (utvm_op_params_decode(exact, len, &p, &why) != UTVM_OK) {
      FUZZ_CHECK((why != NULL) && (why[0] != '\0'));
    } else {
      uint32_t out = 0u;
      FUZZ_CHECK(utvm_op_params_words(&p) == len);
      FUZZ_CHECK(utvm_op_params_encode(&p, again, len, &out, &why) == UTVM_OK);
      FUZZ_CHECK((out == len) && (memcmp(again, exact, (size_t)len * 4u) == 0));
      for (uint32_t i = 0u; i <= p.n_inputs; i++) {
        FUZZ_CHECK(p.operands[i].bytes <= UTVM_OP_PARAMS_MAX_ELEMENTS);
      }
    }
    free(exact);
  }
  free(words);
  free(again);
  return 0;
}

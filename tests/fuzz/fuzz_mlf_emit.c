/*
 * libFuzzer target for the standalone emitter's graph inputs (host/compiler/emit_graph.c, mlf.c):
 * the Model Library Format archive reader and the graph back end.
 *
 * Input: byte 0 selects (even: the rest is an archive, odd: a graph JSON without parameters;
 * seeds in tests/fuzz/corpus/mlf_emit: hello_world's graph archive and graph JSON, made by
 * `utvm compile --mlf` and `--generic`). Checked on every input: utvm_host_mlf_find_graph
 * either fails with a text or returns a graph (and parameters) inside the input; the emitter,
 * asked for its report only, either fails with a text or reports activations and layers that
 * agree with each other.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "utvm/host_emit.h"
#include "utvm/host_mlf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void emit_report(const char *json, size_t json_len, const uint8_t *params,
                        size_t params_len, bool io_in_activations) {
  char err[512];
  utvm_emit_report_t r;
  utvm_emit_options_t o;
  (void)memset(&o, 0, sizeof(o));
  o.name = "fuzz";
  o.io_in_activations = io_in_activations;
  o.core = UTVM_KERNELS_DSP;
  const utvm_err_t rc =
      utvm_host_emit_graph(json, json_len, params, params_len, &o, NULL, &r, err, sizeof(err));
  if (rc != UTVM_OK) {
    FUZZ_CHECK(err[0] != '\0');
    return;
  }
  FUZZ_CHECK(r.activations_bytes <= UTVM_EMIT_MAX_ARENA);
  for (uint32_t k = 0u; k < r.n_layers; k++) {
    FUZZ_CHECK((r.layers[k].output_offset == UINT32_MAX) ||
               ((uint64_t)r.layers[k].output_offset <= r.activations_io_shared_bytes +
                                                          r.activations_io_separate_bytes +
                                                          r.io_bytes + 64u));
  }
  utvm_host_emit_report_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1u) {
    return 0;
  }
  const uint8_t *body = &data[1];
  const size_t len = size - 1u;
  if ((data[0] & 1u) == 0u) {
    char err[512];
    const uint8_t *graph = NULL;
    const uint8_t *params = NULL;
    size_t graph_len = 0u;
    size_t params_len = 0u;
    err[0] = '\0';
    if (utvm_host_mlf_find_graph(body, len, &graph, &graph_len, &params, &params_len, err,
                                 sizeof(err)) != UTVM_OK) {
      FUZZ_CHECK(err[0] != '\0');
      return 0;
    }
    FUZZ_CHECK((graph >= body) && ((graph + graph_len) <= (body + len)));
    FUZZ_CHECK((params == NULL) || ((params >= body) && ((params + params_len) <= (body + len))));
    emit_report((const char *)graph, graph_len, params, params_len, (data[0] & 2u) != 0u);
  } else {
    emit_report((const char *)body, len, NULL, 0u, (data[0] & 2u) != 0u);
  }
  return 0;
}

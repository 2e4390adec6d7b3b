/*
 * utvm host library: Model Library Format (PROTOCOL.md 6.3) archives of a compiled model
 * (utvm/host_compile.h), for TVM's graph executor or its AOT executor.
 *
 * The archive is an uncompressed tar (uid/gid 0, "root") of
 *   metadata.json                          version 7, one module "<name>"
 *   codegen/host/src/<name>_lib0.c         the operators: one packed function per operator,
 *                                          calling the utvm kernel functions (utvm_k_*); AOT:
 *                                          also the constants, tvmgen_<name>_run and
 *                                          tvmgen_<name>_get_c_metadata
 *   codegen/host/src/<name>_lib1.c         the system library registry (TVMSystemLibEntryPoint)
 *   executor-config/graph/<name>.graph     graph JSON (graph executor)
 *   parameters/<name>.params               parameter blob (graph executor)
 * Link it into firmware with utvm_add_mlf() (cmake/utvm_mlf.cmake) and utvm_kfuncs.
 * Library utvm_host_compiler (host/compiler/).
 */
#ifndef UTVM_HOST_MLF_H
#define UTVM_HOST_MLF_H

#include <stddef.h>

#include "utvm/error.h"
#include "utvm/host_compile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Executor an archive is made for. */
typedef enum { UTVM_MLF_GRAPH = 0, UTVM_MLF_AOT = 1 } utvm_mlf_executor_t;

/* Longest module name (letters, digits, '_'; it prefixes C symbols). */
#define UTVM_MLF_MAX_NAME 32u

/* Largest archive written (the generated C holds the constants as text for AOT). */
#define UTVM_MLF_MAX_BYTES ((size_t)512u << 20)

/* Writes the MLF archive of g for executor to path, with module name name (e.g. "default").
 * Errors: UTVM_ERR_FUNC_CALL_INVALID_ARG (bad name, inconsistent g), UTVM_ERR_PLATFORM_NO_MEMORY,
 * UTVM_ERR_WRITE_FAILED (the file); a text in err (err_cap bytes). */
utvm_err_t utvm_host_write_mlf(const utvm_compiled_graph_t *g, utvm_mlf_executor_t executor,
                               const char *name, const char *path, char *err, size_t err_cap);

/* Most members of an archive utvm_host_mlf_find_graph reads. */
#define UTVM_MLF_MAX_MEMBERS 100000u

/* Finds a graph-executor MLF archive's graph JSON (executor-config/graph/NAME.graph) and
 * parameter blob (parameters/NAME.params, or none) in tar[0, len) (an uncompressed ustar/pax
 * archive, as TVM's export_model_library_format and utvm compile --mlf write), every header and
 * size checked. The pointers point into tar. UTVM_ERR_EMIT_ARGUMENT with a text in err for a
 * damaged or compressed archive or one without a graph. */
utvm_err_t utvm_host_mlf_find_graph(const uint8_t *tar, size_t len, const uint8_t **graph,
                                    size_t *graph_len, const uint8_t **params,
                                    size_t *params_len, char *err, size_t err_cap);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_HOST_MLF_H */

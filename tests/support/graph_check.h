/*
 * Checks the planned storage of an initialised graph executor (utvm/graph.h) by walking its
 * operators: every entry lies in the executor's memory, aligned to g->storage_alignment,
 * and no two entries alive at the same step overlap. An entry lives from the operator that
 * writes it to its last reader (or to the end for a graph output); an entry no operator writes
 * (an input node: graph input or parameter) lives all the time. The only overlap allowed is a
 * reshape alias: the input and output of a node planned as UTVM_PLAN_STEP_ALIAS (and chains of
 * them) at the same address; and an in-place step (UTVM_PLAN_STEP_INPLACE): its output at the
 * address of an entry whose life ends at that step, alive together only there.
 */
#ifndef UTVM_GRAPH_CHECK_H
#define UTVM_GRAPH_CHECK_H

#include <stddef.h>

#include "utvm/graph.h"

/* 0 if the layout of g (initialised in memory[0, memory_size)) is sound, else -1 with a text in
 * err (err_cap bytes). *aliases (may be NULL) receives the number of aliased reshape nodes. */
int graph_check_layout(const utvm_graph_t *g, const void *memory, size_t memory_size,
                       unsigned *aliases, char *err, size_t err_cap);

#endif /* UTVM_GRAPH_CHECK_H */

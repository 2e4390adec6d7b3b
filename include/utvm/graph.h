/*
 * utvm graph executor: runs a TVM graph (graph JSON of PROTOCOL.md 6.1, parameters of 6.2) with
 * the operator functions of a module of the C runtime (utvm/crt.h), on the device.
 *
 * The graph JSON is read by a bounded, non-recursive parser (nesting tracked in a fixed array of
 * UTVM_GRAPH_MAX_JSON_DEPTH levels) that accepts TVM's schema and nothing else, and names what is
 * wrong, e.g. "graph JSON: node 3: func_name longer than 119 characters". Everything the executor
 * needs is copied out of the JSON at init (input names included): the JSON may be freed
 * afterwards.
 *
 * Memory: the caller owns all of it (littlefs / CMSIS-NN style): its tables (row pointers,
 * operators with their argument entry ids, the DLTensor of every entry with its shape, each
 * entry's offset, input names) followed by one block of planned storage, laid out by the
 * generic planner (utvm_plan, utvm/model.h) from the graph's own topology, not from its
 * storage ids:
 *   - every entry is one planner buffer of its bytes rounded up to g->storage_alignment
 *     (UTVM_GRAPH_STORAGE_ALIGNMENT, 64, or UTVM_GRAPH_KFUNC_ALIGNMENT, 16, when every
 *     operator is a utvm kernel function); every operator node is one step in node order
 *     (reads: its input entries, writes: its output entries);
 *   - the entries of the input nodes (arg_nodes, parameters included, and any other "null"
 *     node) are UTVM_PLAN_APART: they have bytes of their own after the shared part
 *     (g->io_offset .. g->arena_size), so set_input and load_params survive any number of runs;
 *   - the graph outputs (heads) are UTVM_PLAN_OUTPUT: alive from their operator to the end of
 *     the run, so get_output reads them after it;
 *   - every other entry lives from the step that writes it to its last reader and may share
 *     bytes with entries that are not alive at the same time (whatever storage id TVM gave
 *     them); a kernel function's step kind is its kind's plan_kind (utvm_op_kind_info_t,
 *     utvm/ops.h): a utvm_k_reshape node (RESHAPE, SQUEEZE) is an UTVM_PLAN_STEP_ALIAS step:
 *     its output takes its input's bytes when the planner finds that safe, and the kernel then
 *     skips the copy (identical pointers); an element-wise kernel function (add, sub, mul,
 *     logistic, tanh, lut, pwl, requantize) whose data inputs have its output's element size
 *     is an UTVM_PLAN_STEP_INPLACE step: its output may take the bytes of an input that dies
 *     at that step (the kernels read each element before writing it); an in-place convolution
 *     (utvm_k_conv2d_s8_inplace, utvm_k_depthwise_conv2d_s8_inplace) whose other inputs are
 *     input nodes is an UTVM_PLAN_STEP_INPLACE_GROW step over input 0 (the kernel function
 *     runs the plain kernel when the planner did not apply it). Kernel scratch is not in the
 *     block: the kernel functions take it from the workspace during their call.
 * Every offset is a multiple of g->storage_alignment from a block start aligned to
 * UTVM_GRAPH_STORAGE_ALIGNMENT (sizes are multiples of it, and the planner places buffers at 0
 * or at ends of placed ones).
 * The planner's working memory (its buffers, steps and workspace: 8 bytes per entry, one
 * utvm_plan_step_t per operator, utvm_plan_workspace_size) lies in the storage block while
 * init plans and is reused by the storage afterwards: the block is max(working memory, plan).
 *
 * Sizes: utvm_graph_memory_size() reads the JSON without memory and sets g->memory_size to
 * bytes that always suffice (tables + alignment slack + max(working memory, every entry's
 * rounded bytes)) and g->plan_memory_size to the least init can plan in (tables + slack +
 * working memory). utvm_graph_init() plans; it then sets g->memory_size to the exact bytes it
 * needs (tables + slack + max(working memory, g->arena_size)), the same for any address of
 * memory, and fails with UTVM_ERR_GRAPH_MEMORY if memory_size is below it. To use the least
 * memory: init in plan_memory_size bytes, and if that says UTVM_ERR_GRAPH_MEMORY, init again
 * in g->memory_size bytes (what tvm.graph_executor.create does); the plan is deterministic. The
 * memory needs no particular alignment (the sizes include the slack). Nothing allocates,
 * nothing recurses, no state is static.
 *
 * Figures (build/host/tests/unit/kfuncs/test_kfuncs_models on x86-64; docs/KERNEL_FUNCS.md,
 * "Storage", has the table): the planned storage without parameters (shared part + model
 * inputs + state) against the runner's arena with its inputs and outputs apart, KWS 16,496 vs
 * 16,512 B, VWW 82,944 vs 82,960 B, person_detect 64,512 vs 64,528 B, IC 52,224 vs 52,240 B,
 * micro_speech 7,936 vs 7,952 B, AD 1,408 vs 1,552 B, hello_world 48 vs 64 B (the test asserts
 * at most 5 % above). With 64-byte entries for these kernel-function graphs: KWS 16,512,
 * micro_speech 8,000, hello_world 192 B, the others unchanged. Whole memory_size after init
 * (tables and parameters included): KWS 50,039 B, IC 140,095 B, VWW 331,687 B.
 *
 * Operators are looked up once at init (TVMModGetFunction in the module given) and called by
 * utvm_graph_run() in node order with their input entries then their output entries, each a
 * DLTensor passed with type code 13 (kTVMNDArrayHandle), as TVM's C runtime does.
 *
 * Usage:
 *   utvm_graph_memory_size(&g, json, strlen(json));          -> g.memory_size
 *   utvm_graph_init(&g, json, strlen(json), module, mem, g.memory_size);
 *   utvm_graph_load_params(&g, blob, blob_len);               (optional)
 *   utvm_graph_set_input(&g, utvm_graph_input_index(&g, "x"), &tensor);
 *   utvm_graph_run(&g);
 *   utvm_graph_output(&g, 0u, &out);                          (a view: out->data holds it)
 *
 * Over RPC (utvm_graph_register_global), `tvm.graph_executor.create` allocates that memory from
 * the runtime's tensor arena and returns a module (see docs/EXECUTORS.md).
 */
#ifndef UTVM_GRAPH_H
#define UTVM_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/crt.h"
#include "utvm/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest graph JSON text in bytes. */
#ifndef UTVM_GRAPH_MAX_JSON_SIZE
#define UTVM_GRAPH_MAX_JSON_SIZE (1024u * 1024u)
#endif
/* Deepest nesting of JSON arrays and objects (TVM's schema needs 5). */
#ifndef UTVM_GRAPH_MAX_JSON_DEPTH
#define UTVM_GRAPH_MAX_JSON_DEPTH 8u
#endif
/* Most nodes, entries (node outputs), graph inputs (arg_nodes), graph outputs (heads) and
 * storage ids of a graph. */
#ifndef UTVM_GRAPH_MAX_NODES
#define UTVM_GRAPH_MAX_NODES 4096u
#endif
#ifndef UTVM_GRAPH_MAX_ENTRIES
#define UTVM_GRAPH_MAX_ENTRIES 4096u
#endif
#ifndef UTVM_GRAPH_MAX_INPUTS
#define UTVM_GRAPH_MAX_INPUTS 1024u
#endif
#ifndef UTVM_GRAPH_MAX_OUTPUTS
#define UTVM_GRAPH_MAX_OUTPUTS 256u
#endif
#ifndef UTVM_GRAPH_MAX_STORAGE
#define UTVM_GRAPH_MAX_STORAGE UTVM_GRAPH_MAX_ENTRIES
#endif
/* Most tensor arguments (inputs + outputs) of one operator (TVM's C runtime: 9; utvm's LSTM
 * kernel function: 17); at least 10. */
#ifndef UTVM_GRAPH_MAX_OP_ARGS
#define UTVM_GRAPH_MAX_OP_ARGS 24u
#endif
/* Longest node name and func_name (TVM: 119), op (15), attrs key (19), parameter name (79),
 * in characters. */
#define UTVM_GRAPH_MAX_NAME_LEN 119u
#define UTVM_GRAPH_MAX_OP_LEN 15u
#define UTVM_GRAPH_MAX_ATTR_KEY_LEN 19u
#define UTVM_GRAPH_MAX_PARAM_NAME_LEN 79u
/* Most dimensions of an entry's shape (TVM_CRT_MAX_NDIM). */
#ifndef UTVM_GRAPH_MAX_NDIM
#define UTVM_GRAPH_MAX_NDIM 6u
#endif
/* Largest entry (and storage buffer) in bytes. */
#ifndef UTVM_GRAPH_MAX_TENSOR_BYTES
#define UTVM_GRAPH_MAX_TENSOR_BYTES 0x7FFFFFC0u
#endif
/* Alignment of every entry's bytes (TVM's kAllocAlignment): a power of two, a multiple of
 * UTVM_PLAN_ALIGNMENT (16). Each entry's planned size is its bytes rounded up to it; the
 * storage block starts aligned to it. */
#ifndef UTVM_GRAPH_STORAGE_ALIGNMENT
#define UTVM_GRAPH_STORAGE_ALIGNMENT 64u
#endif
/* Alignment of every entry's bytes in a graph whose every operator is a utvm kernel function
 * (func_name utvm_k_*, utvm/kfuncs.h; what `utvm compile --generic` emits): those are the
 * only code that sees the entries, and each checks its tensors' data alignment itself (the
 * element size: at most 8 bytes, "data not 4-byte aligned" otherwise); the runner calls the
 * same kernels on its arena at UTVM_PLAN_ALIGNMENT (16). A graph with any other function
 * (TVM's compiler annotates its buffers with data_alignment 64 and may rely on it) keeps
 * UTVM_GRAPH_STORAGE_ALIGNMENT. A power of two, multiple of 16, from 8 to
 * UTVM_GRAPH_STORAGE_ALIGNMENT. */
#ifndef UTVM_GRAPH_KFUNC_ALIGNMENT
#define UTVM_GRAPH_KFUNC_ALIGNMENT 16u
#endif
/* Bytes of utvm_graph_t.error, NUL included; longer texts are cut. */
#define UTVM_GRAPH_ERROR_SIZE 128u

/* Name of the global function registered by utvm_graph_register_global. */
#define UTVM_GRAPH_CREATE_NAME "tvm.graph_executor.create"

/* One operator node (private). */
typedef struct {
  TVMFunctionHandle func;
  uint32_t node;      /* its node id */
  uint32_t first_arg; /* index in args_ of its first input entry id */
  uint16_t num_inputs;
  uint16_t num_outputs;
  uint8_t plan_kind;  /* utvm_plan_step_kind_t of its kernel function's kind (graph.c):
                         ALIAS (utvm_k_reshape), INPLACE (element-wise), INPLACE_GROW (in-place
                         convolutions), DEFAULT (any other function) */
} utvm_graph_op_t;

/* A graph executor: caller-owned, filled by utvm_graph_memory_size / utvm_graph_init. The public
 * fields are read-only for the caller; the rest is private. */
typedef struct {
  /* public, read-only */
  size_t memory_size;   /* bytes of memory init needs: an upper bound after memory_size, the
                           exact figure after init (see Sizes above) */
  size_t plan_memory_size; /* the least memory init can plan in (set by memory_size) */
  size_t arena_size;    /* after init: bytes of the planned storage block (shared part and the
                           input nodes' bytes) */
  size_t io_offset;     /* after init: where the input nodes' bytes start in the block; the
                           bytes below are shared by the operators' outputs */
  uint32_t num_nodes;
  uint32_t num_entries;
  uint32_t num_inputs;  /* arg_nodes: graph inputs, parameters included (TVM's definition) */
  uint32_t num_outputs; /* heads */
  uint32_t num_ops;
  uint32_t num_storage; /* storage ids of the JSON (checked, not used for the layout) */
  uint32_t storage_alignment; /* every entry's alignment: UTVM_GRAPH_STORAGE_ALIGNMENT, or
                                 UTVM_GRAPH_KFUNC_ALIGNMENT for kernel functions only */
  char error[UTVM_GRAPH_ERROR_SIZE]; /* what failed, "" after success */
  /* private */
  uint32_t num_args_;
  uint32_t num_shape_dims_;
  uint32_t names_size_;
  uint32_t *row_ptr_;        /* [num_nodes + 1] */
  utvm_graph_op_t *ops_;     /* [num_ops] */
  uint32_t *args_;           /* [num_args_] entry ids */
  uint32_t *input_nodes_;    /* [num_inputs] node ids */
  uint32_t *input_names_;    /* [num_inputs] offsets in names_ */
  uint8_t *input_params_;    /* [num_inputs] 1 once a parameter was loaded into the input */
  uint32_t *output_entries_; /* [num_outputs] */
  DLTensor *entries_;        /* [num_entries] views of their storage */
  int64_t *shapes_;          /* every entry's shape */
  uint32_t *entry_sids_;     /* [num_entries] */
  uint32_t *offsets_;        /* [num_entries] each entry's offset in the storage block */
  char *names_;              /* NUL-terminated names of the input nodes */
  bool ready_;
} utvm_graph_t;

/* Reads json[0, json_len) (TVM graph JSON, no NUL needed) and sets g->memory_size to the bytes
 * of memory utvm_graph_init needs for it. UTVM_ERR_GRAPH_JSON / _LIMIT with g->error naming the
 * problem; UTVM_ERR_GRAPH_ARGUMENT for NULL pointers. Keeps no pointer into json. */
utvm_err_t utvm_graph_memory_size(utvm_graph_t *g, const char *json, size_t json_len);

/* Parses json into memory (memory_size bytes from the caller, kept until g is no longer used),
 * looks up every operator in module (a live module handle of the active runtime) and plans the
 * storage (see Memory and Sizes above). Errors as utvm_graph_memory_size, plus
 * UTVM_ERR_GRAPH_MEMORY (memory NULL or smaller than g->plan_memory_size: g->memory_size is
 * then the upper bound; or smaller than the plan needs: g->memory_size is then the exact
 * figure), UTVM_ERR_GRAPH_LIMIT (the planned sizes add up to 4 GiB or more),
 * UTVM_ERR_GRAPH_FUNCTION (a func_name not in the module). The JSON is not referenced
 * afterwards. */
utvm_err_t utvm_graph_init(utvm_graph_t *g, const char *json, size_t json_len,
                           TVMModuleHandle module, void *memory, size_t memory_size);

/* Finds operator function name (NUL-terminated) for utvm_graph_init_lookup: returns 0 and sets
 * *func, or nonzero when there is none. */
typedef int32_t (*utvm_graph_lookup_fn)(void *ctx, const char *name, TVMFunctionHandle *func);

/* utvm_graph_init with the operators found by lookup(ctx, ...) instead of in a module (a code
 * generator's handles need not be callable: then only the inspection calls below apply).
 * Errors as utvm_graph_init; UTVM_ERR_GRAPH_ARGUMENT if lookup is NULL. */
utvm_err_t utvm_graph_init_lookup(utvm_graph_t *g, const char *json, size_t json_len,
                                  utvm_graph_lookup_fn lookup, void *ctx, void *memory,
                                  size_t memory_size);

/* Index of the graph input called name (NUL-terminated), or -1 if there is none. */
int32_t utvm_graph_input_index(const utvm_graph_t *g, const char *name);

/* Name of graph input index (a string in the executor's memory), or NULL out of range. */
const char *utvm_graph_input_name(const utvm_graph_t *g, uint32_t index);

/* The DLTensor of graph input / output index: a view into the executor's storage, valid while g
 * is; write inputs through it, read outputs after utvm_graph_run. UTVM_ERR_GRAPH_ARGUMENT for an
 * index out of range or an executor not ready. */
utvm_err_t utvm_graph_input(utvm_graph_t *g, uint32_t index, DLTensor **out);
utvm_err_t utvm_graph_output(utvm_graph_t *g, uint32_t index, DLTensor **out);

/* Copies the bytes of src (compact, its byte_offset honoured) into graph input index.
 * UTVM_ERR_GRAPH_TENSOR if src's dtype or byte size differs from the input's,
 * UTVM_ERR_GRAPH_ARGUMENT for a bad index or a NULL src / src->data. */
utvm_err_t utvm_graph_set_input(utvm_graph_t *g, uint32_t index, const DLTensor *src);

/* Loads a parameter blob (PROTOCOL.md 6.2): every name must be a graph input whose dtype, shape
 * and byte size the array matches. The whole blob is checked before anything is copied.
 * UTVM_ERR_GRAPH_PARAMS with g->error naming the problem. */
utvm_err_t utvm_graph_load_params(utvm_graph_t *g, const uint8_t *blob, size_t blob_len);

/* Copies into g the inputs named in a parameter blob (PROTOCOL.md 6.2; only its names are
 * read, as TVM's share_params does) from the same-named inputs of other, an executor of the
 * same model whose parameters are loaded. Names that are no input of g are skipped. TVM aliases
 * the storage; utvm's storage is caller memory, so it copies. UTVM_ERR_GRAPH_PARAMS with
 * g->error naming the problem (a name other lacks, a dtype or size that differs). */
utvm_err_t utvm_graph_share_params(utvm_graph_t *g, const utvm_graph_t *other,
                                   const uint8_t *blob, size_t blob_len);

/* Writes the graph's inputs that hold no loaded parameter, as TVM's get_input_info gives them,
 * as JSON into out (cap bytes, NUL-terminated when cap > 0; out may be NULL to measure):
 * {"shape": {"x": [1, 49, 10, 1]}, "dtype": {"x": "int8"}}. Returns the text's length (without
 * the NUL); the text is complete only if that is below cap. 0 if g is not ready. */
size_t utvm_graph_input_info(const utvm_graph_t *g, char *out, size_t cap);

/* Calls every operator in node order; stops at the first failure (UTVM_ERR_GRAPH_FUNCTION, with
 * g->error naming the node and the function's last-error text). */
utvm_err_t utvm_graph_run(utvm_graph_t *g);

/* ---- Inspection, for code generators (e.g. the host's standalone emitter) ---- */

/* Operator k (< num_ops, in node order). */
typedef struct {
  TVMFunctionHandle func;   /* as the lookup returned it */
  uint32_t node;            /* its node id */
  uint32_t num_inputs;
  uint32_t num_outputs;
  const uint32_t *entries;  /* num_inputs input then num_outputs output entry ids, in g */
} utvm_graph_op_info_t;

/* Describes operator k into *op. UTVM_ERR_GRAPH_ARGUMENT out of range or not ready. */
utvm_err_t utvm_graph_op(const utvm_graph_t *g, uint32_t k, utvm_graph_op_info_t *op);

/* Entry entry's DLTensor (its bytes are t->data, in g's storage block) and the storage id the
 * graph JSON gave it. That id is TVM's and says no longer which bytes the entry uses: entries
 * with one id may lie apart and entries with different ids may share bytes at different
 * times; only entries alive at the same step never overlap (see Memory above). */
utvm_err_t utvm_graph_entry(const utvm_graph_t *g, uint32_t entry, const DLTensor **t,
                            uint32_t *storage_id);

/* The entry id of graph input index (< num_inputs: arg_nodes order, parameters included) /
 * of graph output index (< num_outputs). */
utvm_err_t utvm_graph_input_entry(const utvm_graph_t *g, uint32_t index, uint32_t *entry);
utvm_err_t utvm_graph_output_entry(const utvm_graph_t *g, uint32_t index, uint32_t *entry);

/* Registers UTVM_GRAPH_CREATE_NAME in the active runtime: create(Str json | DLTensor uint8 json,
 * Module, Int device_type, Int device_id) -> Module (docs/EXECUTORS.md). Errors as
 * utvm_crt_register_global. Call after utvm_rpc_server_init / utvm_crt_init. */
utvm_err_t utvm_graph_register_global(void);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_GRAPH_H */

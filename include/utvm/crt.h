/*
 * utvm_crt: the on-device C runtime under the RPC server and TVM-generated code.
 *
 * It implements the TVM C API of <tvm/runtime/c_runtime_api.h>, <tvm/runtime/c_backend_api.h>,
 * <tvm/runtime/crt/module.h> and the memory hooks of <tvm/runtime/crt/platform.h> on top of
 * two caller-provided arenas:
 *   - the tensor arena (page allocator): tensors, TVMPlatformMemoryAllocate, returned bytes;
 *   - the workspace arena (stack allocator): TVMBackendAllocWorkspace scratch memory.
 * No malloc, no recursion, every loop bounded.
 *
 * The single deliberate global: because the TVM C API has no context argument (generated code
 * calls TVMBackendAllocWorkspace(...) directly), utvm_crt_init() records its utvm_crt_t as the
 * process-wide "active runtime" and every TVM API call works on that one. All other state lives
 * in the utvm_crt_t owned by the application.
 *
 * Contract relied on by the RPC server (src/minrpc):
 *   - TVMFuncGetGlobal(name, &h): 0 and h on success; -1 when not found (reply handle 0).
 *   - TVMFuncCall(h, args, codes, n, &ret, &ret_code): 0, or -1 with TVMGetLastError() text.
 *     *ret_code is kTVMNullptr when the callee returns nothing. A kTVMBytes result (code 12)
 *     points to a TVMByteArray whose data and struct were allocated with
 *     TVMPlatformMemoryAllocate; the caller releases them with TVMPlatformMemoryFree (data, then
 *     struct) or TVMByteArrayFree. A kTVMStr result points to static or argument memory valid
 *     until the next call. Module results are kTVMModuleHandle (9), functions
 *     kTVMPackedFuncHandle (10).
 *   - Every function taking a module or function handle decodes and validates it (the values
 *     come from the wire): an invalid one returns -1 with "invalid function handle 0x...".
 *   - TVMFuncFree(h), TVMModFree(h): validate and release (no-op for static module/global
 *     functions and for the system library).
 *   - TVMDeviceAllocDataSpace(dev, nbytes, alignment, type_hint, &ptr) /
 *     TVMDeviceFreeDataSpace(dev, ptr): tensors on the page allocator; non-CPU device -> -1.
 *   - utvm_crt_data_range(ptr, &base, &size): extent of the live tensor allocation holding ptr.
 *   - utvm_crt_register_global(name, func, resource_handle): func later receives
 *     resource_handle; system-library functions receive NULL.
 *
 * Handles (informative; TVM-like): module = 0x8000 | index (index 0 = system library);
 * function = ((0x8000 | module_index) << 16) | (0x8000 | function_index), where globals use
 * module index UTVM_CRT_MAX_MODULES and time evaluators module index 0x7FFF.
 */
#ifndef UTVM_CRT_H
#define UTVM_CRT_H

#include <stddef.h>
#include <stdint.h>

#include "tvm/runtime/c_backend_api.h"
#include "tvm/runtime/c_runtime_api.h"
#include "tvm/runtime/crt/module.h"
#include "utvm/error.h"
#include "utvm/error_texts.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Smallest tensor arena page size in bytes: the allocation granule and alignment (TVM's
 * kAllocAlignment is 64). Must be a power of two >= 8. An arena too large for
 * UTVM_CRT_MAX_PAGES such pages gets larger pages (the next power of two that fits), so every
 * arena up to UTVM_CRT_MAX_ARENA_SIZE is usable in full; its allocations are then rounded to
 * that page size (e.g. 512-byte pages in a 16 MiB arena). */
#ifndef UTVM_CRT_PAGE_SIZE
#define UTVM_CRT_PAGE_SIZE 64u
#endif

/* Most pages one tensor arena manages. */
#define UTVM_CRT_MAX_PAGES 0x7FFFu

/* Bytes of bookkeeping per page, kept in the arena: the page count of an allocation and the
 * bytes of its last page beyond the size asked for, so that range checks are exact. */
#define UTVM_CRT_PAGE_ENTRY_SIZE 4u

/* Largest page size (128 KiB), so that every allocation stays below 4 GiB. */
#define UTVM_CRT_MAX_PAGE_SHIFT 17u

/* Largest tensor arena: UTVM_CRT_MAX_PAGES pages of the largest size with their bookkeeping,
 * about 4 GiB (only 64-bit hosts come near it); utvm_page_allocator_init refuses more. */
#define UTVM_CRT_MAX_ARENA_SIZE                                                                  \
  ((uint64_t)UTVM_CRT_MAX_PAGES * (((uint64_t)1u << UTVM_CRT_MAX_PAGE_SHIFT) + UTVM_CRT_PAGE_ENTRY_SIZE))

/* Workspace allocation alignment in bytes (TVM's kTempAllocaAlignment). Power of two >= 8. */
#ifndef UTVM_CRT_WORKSPACE_ALIGNMENT
#define UTVM_CRT_WORKSPACE_ALIGNMENT 64u
#endif

/* Capacity of the global function table (3 entries are taken by the built-ins). */
#ifndef UTVM_CRT_MAX_GLOBAL_FUNCS
#define UTVM_CRT_MAX_GLOBAL_FUNCS 16u
#endif

/* Module slots; slot 0 is the system library, the others serve TVMModCreateFromCModule. */
#ifndef UTVM_CRT_MAX_MODULES
#define UTVM_CRT_MAX_MODULES 2u
#endif

/* Simultaneously live time-evaluator functions (runtime.RPCTimeEvaluator results). */
#ifndef UTVM_CRT_MAX_TIME_EVALUATORS
#define UTVM_CRT_MAX_TIME_EVALUATORS 2u
#endif

/* Size of the last-error buffer, NUL included; longer messages are truncated. */
#ifndef UTVM_CRT_LAST_ERROR_SIZE
#define UTVM_CRT_LAST_ERROR_SIZE 128u
#endif

/* Bound on the bytes scanned in a registry names blob (count + names + terminators). */
#ifndef UTVM_CRT_MAX_NAMES_BLOB_BYTES
#define UTVM_CRT_MAX_NAMES_BLOB_BYTES 16384u
#endif

/* Time evaluator bounds: most measurement rounds per repeat (zero readings included), largest
 * calls-per-measurement `number`, largest `repeat`. Exceeding one is an error, never a hang. */
#ifndef UTVM_CRT_TIME_EVAL_MAX_ROUNDS
#define UTVM_CRT_TIME_EVAL_MAX_ROUNDS 1000u
#endif
#ifndef UTVM_CRT_TIME_EVAL_MAX_NUMBER
#define UTVM_CRT_TIME_EVAL_MAX_NUMBER 0x7FFFFFFFu
#endif
#ifndef UTVM_CRT_TIME_EVAL_MAX_REPEAT
#define UTVM_CRT_TIME_EVAL_MAX_REPEAT 1024u
#endif

/* ---- Page allocator (tensor arena) ------------------------------------------------------- */

/* First-fit allocator over fixed-size pages. Bookkeeping: one 32-bit entry per page in the
 * arena right after the last page; the entry of an allocation's first page holds its length
 * in pages and the bytes of the last page it does not use (so the allocation's size is exactly
 * what was asked for), every other entry is 0 (free page). Alloc, free, find and the summaries walk
 * from the first page, one step per free page and per allocation (at most num_pages steps):
 * cost grows with the arena, so size it to the model rather than to all RAM.
 * Treat the fields as private. */
typedef struct {
  uint32_t *table;    /* one entry per page, right after the pages (so 4-byte aligned) */
  uint8_t *pages;     /* first page: the first page-aligned byte of the arena */
  uint32_t num_pages;
  uint32_t page_shift; /* log2 of the page size (at least that of UTVM_CRT_PAGE_SIZE) */
} utvm_page_allocator_t;

/* Lays the allocator over buffer[0, size) (which it then owns), with the smallest page size
 * (from UTVM_CRT_PAGE_SIZE up) for which UTVM_CRT_MAX_PAGES pages cover it.
 * UTVM_ERR_BUFFER_TOO_SMALL if not even one page fits; UTVM_ERR_FUNC_CALL_INVALID_ARG for NULL
 * arguments or a size above UTVM_CRT_MAX_ARENA_SIZE. */
utvm_err_t utvm_page_allocator_init(utvm_page_allocator_t *pa, uint8_t *buffer, size_t size);

/* Frees every allocation at once. */
void utvm_page_allocator_reset(utvm_page_allocator_t *pa);

/* Allocates whole pages for nbytes (0 counts as 1 byte) at an address aligned to alignment
 * (a power of two; values below the page size mean the page size). Returns
 * UTVM_ERR_PLATFORM_NO_MEMORY when no free run fits, UTVM_ERR_FUNC_CALL_INVALID_ARG for a
 * bad alignment. */
utvm_err_t utvm_page_alloc(utvm_page_allocator_t *pa, size_t nbytes, size_t alignment,
                           void **out);

/* Frees the allocation starting at ptr. UTVM_ERR_FUNC_CALL_INVALID_ARG if ptr does not start
 * a live allocation (double free, interior or foreign pointer); nothing is changed then. */
utvm_err_t utvm_page_free(utvm_page_allocator_t *pa, void *ptr);

/* Finds the live allocation whose pages contain ptr: *base and *size (the bytes asked for, not
 * the whole pages) describe it. UTVM_ERR_FUNC_CALL_INVALID_ARG if ptr is in no live
 * allocation's pages. */
utvm_err_t utvm_page_find(const utvm_page_allocator_t *pa, const void *ptr, uint8_t **base,
                          size_t *size);

/* Bytes of all pages (the arena less alignment and bookkeeping); 0 for NULL. */
size_t utvm_page_total_bytes(const utvm_page_allocator_t *pa);

/* Diagnostics: total free bytes, and the largest contiguous free run in bytes. */
size_t utvm_page_free_bytes(const utvm_page_allocator_t *pa);
size_t utvm_page_largest_free_block(const utvm_page_allocator_t *pa);

/* ---- Stack allocator (workspace arena) --------------------------------------------------- */

/* LIFO allocator; each allocation has an 8-byte header just below its aligned start that
 * records the previous state. Treat the fields as private. */
typedef struct {
  uint8_t *base;
  uint32_t size;
  uint32_t top;  /* bytes in use from base */
  uint32_t last; /* offset of the most recent allocation, 0 when empty */
} utvm_stack_allocator_t;

/* Lays the allocator over buffer[0, size) (size capped at 4 GiB - 1); buffer may be NULL
 * with size 0 (every allocation then fails). UTVM_ERR_FUNC_CALL_INVALID_ARG for a NULL
 * allocator or a NULL buffer with non-zero size. */
utvm_err_t utvm_stack_allocator_init(utvm_stack_allocator_t *sa, uint8_t *buffer, size_t size);

/* Frees every allocation at once. */
void utvm_stack_allocator_reset(utvm_stack_allocator_t *sa);

/* Allocates nbytes aligned to UTVM_CRT_WORKSPACE_ALIGNMENT. UTVM_ERR_PLATFORM_NO_MEMORY when
 * it does not fit. */
utvm_err_t utvm_stack_alloc(utvm_stack_allocator_t *sa, size_t nbytes, void **out);

/* Frees the most recent allocation. UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE for any other
 * pointer (out of order, double free, foreign); nothing is changed then. */
utvm_err_t utvm_stack_free(utvm_stack_allocator_t *sa, void *ptr);

/* Diagnostics: bytes currently in use (headers and alignment padding included). */
size_t utvm_stack_used_bytes(const utvm_stack_allocator_t *sa);

/* ---- Registry ---------------------------------------------------------------------------- */

/* Finds name in a TVMFuncRegistry names blob (section 5.5 of PROTOCOL.md): scans at most N
 * names from offset 2, stops at the empty name and after UTVM_CRT_MAX_NAMES_BLOB_BYTES bytes.
 * UTVM_ERR_FUNC_NAME_NOT_FOUND when absent (or the blob is NULL). */
utvm_err_t utvm_crt_registry_lookup(const TVMFuncRegistry *registry, const char *name,
                                    tvm_function_index_t *index);

/* Number of functions of a registry: N, reduced to the names actually present in the blob
 * (within the same bounds as the lookup). 0 for a NULL registry or blob. */
tvm_function_index_t utvm_crt_registry_count(const TVMFuncRegistry *registry);

/* The name of function index of a registry (a pointer into its names blob), or NULL past the
 * last name (within the bounds of utvm_crt_registry_lookup). */
const char *utvm_crt_registry_name(const TVMFuncRegistry *registry, int64_t index);

/* One global function. */
typedef struct {
  const char *name; /* not copied: must outlive the runtime */
  TVMBackendPackedCFunc func;
  void *resource_handle; /* passed to func on each call */
} utvm_crt_global_t;

/* Registers a global function in the active runtime's table. UTVM_ERR_FUNC_ALREADY_DEFINED if
 * the name exists, UTVM_ERR_REGISTRY_FULL after UTVM_CRT_MAX_GLOBAL_FUNCS entries,
 * UTVM_ERR_PLATFORM_CHECK_FAILURE before utvm_crt_init, UTVM_ERR_FUNC_CALL_INVALID_ARG for
 * NULL name or func. name is not copied and must outlive the runtime. */
utvm_err_t utvm_crt_register_global(const char *name, TVMBackendPackedCFunc func,
                                    void *resource_handle);

/* Names of the optional globals (src/crt/optional_globals.c). */
#define UTVM_CRT_RANDOM_FILL_NAME "tvm.contrib.random.random_fill"
#define UTVM_CRT_FUNCTION_NAME_NAME "utvm.crt.FunctionName"

/* Registers the optional globals in the active runtime: UTVM_CRT_RANDOM_FILL_NAME (fills a
 * tensor with random values in [1, 10) from TVMPlatformGenerateRandom, as TVM's random_fill)
 * and UTVM_CRT_FUNCTION_NAME_NAME(Int table, Int index) -> Str (name of function index of the
 * system library, table 0, or of the global table, table 1; Null past the end). Errors as
 * utvm_crt_register_global. Call after utvm_rpc_server_init / utvm_crt_init. */
utvm_err_t utvm_crt_register_optional_globals(void);

/* ---- Modules with state (executors) ----------------------------------------------------- */

/* Hooks of a module that owns state (an executor, see utvm/graph.h and utvm/aot.h); its
 * functions receive the module's context as resource_handle. */
typedef struct {
  /* Releases the context's state (and its tensor-arena memory): called once, by TVMModFree of
   * the module's handle or by utvm_crt_reset_memory (before the arenas are reset). */
  void (*release)(void *context);
  /* 1 if nd is an NDArray this module returned (a view it owns: FreeHandle(nd, 13) is then a
   * no-op), else 0. */
  int (*owns_ndarray)(const void *context, const void *nd);
  /* What the module is, e.g. "graph executor": named when the module table is full. */
  const char *name;
} utvm_crt_module_hooks_t;

/* Takes a free module slot for module with hooks (may be NULL) and context, and returns its
 * handle. UTVM_ERR_REGISTRY_FULL when every slot is taken (last error "module table full: held
 * by graph executor 0x8001; free one (FreeHandle) or raise UTVM_CRT_MAX_MODULES"),
 * UTVM_ERR_FUNC_CALL_INVALID_ARG for NULL module/registry/out, UTVM_ERR_PLATFORM_CHECK_FAILURE
 * without an active runtime. module, hooks and context must stay valid until released. */
utvm_err_t utvm_crt_module_create(const TVMModule *module, const utvm_crt_module_hooks_t *hooks,
                                  void *context, TVMModuleHandle *out);

/* The context of the live module handle if it was created with hooks (the same pointer), else
 * NULL: how an executor recognises another of its kind (e.g. graph share_params). */
void *utvm_crt_module_context(TVMModuleHandle handle, const utvm_crt_module_hooks_t *hooks);

/* Releases an NDArray returned by a packed function (FreeHandle(nd, 13)): a no-op for a view
 * owned by a live module (owns_ndarray), TVMArrayFree otherwise. -1 with the last error set
 * for anything else (never dereferences a pointer outside a live tensor allocation), and
 * always while no module with state was ever created (nothing returns NDArrays then). */
int utvm_crt_ndarray_free(void *nd);

/* ---- Runtime ------------------------------------------------------------------------------ */

/* One live runtime.RPCTimeEvaluator function. Treat as private. */
typedef struct {
  TVMBackendPackedCFunc func; /* timed function, NULL when the slot is free */
  void *resource_handle;      /* what func is called with (e.g. its executor) */
  uint32_t number;            /* calls per measurement; grows and persists across calls */
  uint32_t repeat;
  uint32_t min_repeat_ms;
  uint32_t limit_zero_time_iterations;
  uint32_t cooldown_ms;         /* pause before every repeats_to_cooldown-th repeat */
  uint32_t repeats_to_cooldown; /* at least 1 */
} utvm_crt_time_evaluator_t;

/* Sleeps (or waits) at least ms milliseconds; UTVM_OK or a port error code. */
typedef utvm_err_t (*utvm_crt_sleep_fn)(uint32_t ms);

/* Runtime state, owned by the application (typically a static object). Treat as private.
 * (The small fields come before the tables: shorter load/store offsets in Thumb code.) */
typedef struct {
  utvm_page_allocator_t tensors;
  utvm_stack_allocator_t workspace;
  const TVMModule *modules[UTVM_CRT_MAX_MODULES]; /* [0] = system library, may be NULL */
  const utvm_crt_module_hooks_t *module_hooks[UTVM_CRT_MAX_MODULES]; /* NULL: no state */
  void *module_contexts[UTVM_CRT_MAX_MODULES]; /* resource_handle of the module's functions */
  /* Set by the first utvm_crt_module_create (src/crt/modules.c): a firmware without modules
   * with state (executors) links none of that code. */
  void (*release_module)(void *crt, uint32_t module_index);
  int (*free_ndarray)(void *crt, void *nd);
  /* Set by utvm_crt_enable_time_evaluator (src/crt/time_evaluator.c): runs a live evaluator. */
  TVMBackendPackedCFunc time_evaluator_call;
  uint32_t num_globals;
  utvm_crt_sleep_fn sleep_ms;
  utvm_crt_time_evaluator_t time_evaluators[UTVM_CRT_MAX_TIME_EVALUATORS];
  utvm_crt_global_t globals[UTVM_CRT_MAX_GLOBAL_FUNCS];
  char last_error[UTVM_CRT_LAST_ERROR_SIZE];
} utvm_crt_t;

/* What utvm_crt_init needs; the arenas stay owned by the caller but are used by the runtime
 * until utvm_crt_shutdown. */
typedef struct {
  uint8_t *tensor_arena;     /* tensors, returned bytes; at least one page + 4 bytes + alignment */
  size_t tensor_arena_size;
  uint8_t *workspace_arena;  /* generated-code scratch memory; may be NULL with size 0 */
  size_t workspace_arena_size;
  const TVMModule *system_lib; /* e.g. TVMSystemLibEntryPoint(); may be NULL */
  /* The time evaluator's cooldown_interval_ms pause; NULL refuses a cooldown > 0. */
  utvm_crt_sleep_fn sleep_ms;
} utvm_crt_config_t;

/* Initialises crt, registers the built-in globals (runtime.SystemLib,
 * tvm.rpc.server.ModuleGetFunction; runtime.RPCTimeEvaluator's place, empty until
 * utvm_crt_enable_time_evaluator) and makes crt the active runtime.
 * UTVM_ERR_FUNC_CALL_INVALID_ARG for NULL arguments, UTVM_ERR_BUFFER_TOO_SMALL if the tensor
 * arena holds no page; the active runtime is unchanged on error. */
utvm_err_t utvm_crt_init(utvm_crt_t *crt, const utvm_crt_config_t *config);

/* Turns runtime.RPCTimeEvaluator on in the active runtime (TVM's time_evaluator: timing a
 * function on the device, PROTOCOL.md 4.1), in the global slot TVM's C runtime gives it, so
 * that its handle is TVM's. Call after utvm_rpc_server_init / utvm_crt_init; returns
 * UTVM_ERR_PLATFORM_CHECK_FAILURE before. Without it a lookup of the global answers "function
 * not found: runtime.RPCTimeEvaluator" and the time evaluator's code is not linked. */
utvm_err_t utvm_crt_enable_time_evaluator(void);

/* Releases every tensor, workspace block, time evaluator and non-system module (calling the
 * modules' release hooks first), e.g. when a new RPC session starts; keeps the registered
 * globals. */
void utvm_crt_reset_memory(utvm_crt_t *crt);

/* Stops using crt: if it is the active runtime, there is none afterwards (TVM API calls then
 * fail with -1 / NULL). */
void utvm_crt_shutdown(utvm_crt_t *crt);

/* Returns UTVM_OK and the extent [*base, *base + *size) of the live tensor allocation that
 * contains ptr; UTVM_ERR_FUNC_CALL_INVALID_ARG if there is none (or no active runtime). */
utvm_err_t utvm_crt_data_range(const void *ptr, uint8_t **base, size_t *size);

/* Append text, or "0x" and value in 8 hex digits (16 above 32 bits), to the active runtime's
 * last error (truncating at UTVM_CRT_LAST_ERROR_SIZE); no effect without an active runtime. */
void utvm_crt_error_append(const char *text);
void utvm_crt_error_append_hex(uint64_t value);

/* Append the text of id (utvm/error_texts.h) to the active runtime's last error, as
 * utvm_crt_error_append: texts is the NUL-separated list of id's library (its first string has
 * id 0 or UTVM_TEXT_RPC_FIRST_ID), texts_size its size in bytes. Built with
 * UTVM_NO_ERROR_TEXTS, writes the id's "#<id>" token instead and does not read texts. */
void utvm_crt_error_append_id(utvm_text_id_t id, const char *texts, size_t texts_size);

/* Set the active runtime's last error to the C runtime text id (UTVM_CRT_TEXT_LIST), to it
 * followed by name, or to it followed by "0x" and value in hex (as utvm_crt_error_append_hex);
 * each returns -1 (TVM's failure code). */
int utvm_crt_fail(utvm_text_id_t id);
int utvm_crt_fail_name(utvm_text_id_t id, const char *name);
int utvm_crt_fail_hex(utvm_text_id_t id, uint64_t value);

#ifdef __cplusplus
}
#endif

#endif /* UTVM_CRT_H */

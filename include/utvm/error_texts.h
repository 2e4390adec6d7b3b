/*
 * The catalogue of every error text the device stack (src/crt, src/minrpc) writes into the
 * last error, which reaches the host as an RPC exception text.
 *
 * Two lists, one per library, so that an image holds only the texts of the libraries it
 * links: UTVM_CRT_TEXT_LIST (ids from 0) and UTVM_RPC_TEXT_LIST (ids from
 * UTVM_TEXT_RPC_FIRST_ID). Each expands UTVM_TEXT(id, text) once per text, with the UTVM_TEXT
 * of the place that expands it: below they make utvm_text_id_t; src/crt/last_error.c,
 * src/minrpc/rpc_args.c and host/link/error_texts.c make tables of the texts (and
 * src/crt/last_error.c the objects of UTVM_TEXT_OWN entries, see below). The device composes
 * an error from ids, names and hex values (e.g. "CallFunc" ": " "bad handle"). Built with
 * UTVM_ERROR_TEXTS=ON (default) it writes the texts; built with UTVM_ERROR_TEXTS=OFF (compile
 * definition UTVM_NO_ERROR_TEXTS) it writes each id as the token '#' followed by
 * UTVM_TEXT_TOKEN_DIGITS decimal digits ("#103: #129 0x00000063" for "CallFunc: unsupported
 * type code 0x00000063"), and the host turns the tokens back into these texts
 * (utvm_host_expand_error in utvm/host.h).
 *
 * The ids are a contract between a device built without texts and any host: a new text goes
 * at the end of its list; no text is ever moved, removed or given another meaning.
 */
#ifndef UTVM_ERROR_TEXTS_H
#define UTVM_ERROR_TEXTS_H

#include "utvm/rpc_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Decimal digits of a text token (ids are zero-padded to this width, so that a value that
 * follows the token cannot be read as part of it). */
#define UTVM_TEXT_TOKEN_DIGITS 3

/* The id of the first text of UTVM_RPC_TEXT_LIST; the C runtime's texts have the ids below. */
#define UTVM_TEXT_RPC_FIRST_ID 100

/* Each text ends with "\0", so that a list concatenates into one NUL-separated string. A text
 * that a hex value or a name follows ends with its separator. */

/* The C runtime's texts. The first is returned without an active runtime; the time
 * evaluator's texts follow UTVM_TEXT_TIME_EVALUATOR, their common prefix. The texts of
 * functions an RPC server image seldom links (TVMFuncRegisterGlobal, module creation, tensor
 * allocation and copies) are UTVM_TEXT_OWN entries, which the device keeps in an object of
 * their own each (src/crt/crt_internal.h's UTVM_CRT_OWN), so that an image without the function
 * drops its texts; the others are UTVM_TEXT entries, kept in one table and named by their id. A
 * place that expands a list defines both macros. */
#define UTVM_CRT_TEXT_LIST                                                                         \
  UTVM_TEXT(UTVM_TEXT_NOT_INITIALISED, "utvm_crt: runtime not initialised\0")                      \
  UTVM_TEXT(UTVM_TEXT_NULL_ARGUMENT, "NULL argument\0")                                            \
  UTVM_TEXT_OWN(UTVM_TEXT_INVALID_SHAPE, "invalid tensor shape\0")                                 \
  UTVM_TEXT(UTVM_TEXT_FUNCTION_NOT_FOUND, "function not found: \0")                                \
  UTVM_TEXT_OWN(UTVM_TEXT_FUNCTION_DEFINED, "function already defined: \0")                        \
  UTVM_TEXT(UTVM_TEXT_FUNCTION_FAILED, "function failed, code \0")                                 \
  UTVM_TEXT_OWN(UTVM_TEXT_GLOBALS_FULL, "global function table full\0")                            \
  UTVM_TEXT_OWN(UTVM_TEXT_MODULES_FULL, "module table full\0")                                     \
  UTVM_TEXT(UTVM_TEXT_INVALID_MODULE, "invalid module handle \0")                                  \
  UTVM_TEXT(UTVM_TEXT_INVALID_FUNCTION, "invalid function handle \0")                              \
  UTVM_TEXT(UTVM_TEXT_DEVICE_TYPE, "unsupported device type \0")                                   \
  UTVM_TEXT(UTVM_TEXT_BAD_ALIGNMENT, "bad alignment \0")                                           \
  UTVM_TEXT(UTVM_TEXT_TENSOR_ARENA_FULL, "tensor arena full, bytes \0")                            \
  UTVM_TEXT(UTVM_TEXT_LARGEST_FREE, ", largest free \0")                                           \
  UTVM_TEXT_OWN(UTVM_TEXT_NOT_IN_ARENA, "tensor data not in arena: \0")                            \
  UTVM_TEXT_OWN(UTVM_TEXT_COPY_OUT_OF_BOUNDS, "copy out of bounds: \0")                            \
  UTVM_TEXT_OWN(UTVM_TEXT_COPY_STRIDED, "copy: strided tensors unsupported\0")                     \
  UTVM_TEXT_OWN(UTVM_TEXT_COPY_SIZES, "copy: tensor sizes differ\0")                               \
  UTVM_TEXT(UTVM_TEXT_UNALLOCATED_FREE, "free of unallocated \0")                                  \
  UTVM_TEXT(UTVM_TEXT_WORKSPACE_FULL, "workspace arena full, bytes \0")                            \
  UTVM_TEXT(UTVM_TEXT_WORKSPACE_ORDER, "workspace free out of order: \0")                          \
  UTVM_TEXT(UTVM_TEXT_NO_SYSTEM_LIB, "runtime.SystemLib: no system library\0")                     \
  UTVM_TEXT(UTVM_TEXT_GET_FUNCTION_ARGS, "ModuleGetFunction: expected (Module, Str, Int|Bool)\0")  \
  UTVM_TEXT(UTVM_TEXT_TIME_EVALUATOR, "RPCTimeEvaluator: \0")                                      \
  UTVM_TEXT(UTVM_TEXT_TE_ARGUMENT_COUNT, "expected 12 arguments\0")                                \
  UTVM_TEXT(UTVM_TEXT_TE_NOT_FOUND, "function not found\0")                                        \
  UTVM_TEXT(UTVM_TEXT_TE_COOLDOWN, "cooldown not supported\0")                                     \
  UTVM_TEXT(UTVM_TEXT_TE_NO_SLOT, "too many live evaluators\0")                                    \
  UTVM_TEXT(UTVM_TEXT_TE_CALL_FAILED, "timed function failed\0")                                   \
  UTVM_TEXT(UTVM_TEXT_TE_NO_MEMORY, "no memory for the result\0")                                  \
  UTVM_TEXT(UTVM_TEXT_TE_NUMBER_OVERFLOW, "calls per measurement overflow\0")                      \
  UTVM_TEXT(UTVM_TEXT_TE_TIMER_OVERFLOW, "timer overflow\0")                                       \
  UTVM_TEXT(UTVM_TEXT_TE_ROUND_LIMIT, "round limit reached\0")                                     \
  UTVM_TEXT(UTVM_TEXT_TE_BAD_ARGUMENT, "bad argument \0")                                          \
  UTVM_TEXT(UTVM_TEXT_TE_PLATFORM_HOOK, "platform hook error \0")                                 \
  UTVM_TEXT_OWN(UTVM_TEXT_MODULES_HELD_BY, ": held by \0")                                         \
  UTVM_TEXT_OWN(UTVM_TEXT_MODULES_FREE_HINT, "; free one (FreeHandle) or raise UTVM_CRT_MAX_MODULES\0")

/* The RPC server's texts: the request names in RPC code order 0..21 (so a request's name is
 * UTVM_TEXT_RPC + code), "RPC" standing for the codes that are no request; then the problems
 * the server finds in a request. Those of its opt-in features (large calls, the sequence
 * extension) are UTVM_TEXT_OWN entries, objects of their own as the C runtime's
 * (src/minrpc/rpc_internal.h's RPC_OWN). */
#define UTVM_RPC_TEXT_LIST                                                                         \
  UTVM_TEXT(UTVM_TEXT_RPC, "RPC\0")                                                                \
  UTVM_TEXT(UTVM_TEXT_SHUTDOWN, "Shutdown\0")                                                      \
  UTVM_TEXT(UTVM_TEXT_INIT_SERVER, "InitServer\0")                                                 \
  UTVM_TEXT(UTVM_TEXT_CALL_FUNC, "CallFunc\0")                                                     \
  UTVM_TEXT(UTVM_TEXT_RPC_RETURN, "RPC\0")                                                         \
  UTVM_TEXT(UTVM_TEXT_RPC_EXCEPTION, "RPC\0")                                                      \
  UTVM_TEXT(UTVM_TEXT_COPY_FROM_REMOTE, "CopyFromRemote\0")                                        \
  UTVM_TEXT(UTVM_TEXT_COPY_TO_REMOTE, "CopyToRemote\0")                                            \
  UTVM_TEXT(UTVM_TEXT_RPC_COPY_ACK, "RPC\0")                                                       \
  UTVM_TEXT(UTVM_TEXT_GET_GLOBAL_FUNC, "GetGlobalFunc\0")                                          \
  UTVM_TEXT(UTVM_TEXT_FREE_HANDLE, "FreeHandle\0")                                                 \
  UTVM_TEXT(UTVM_TEXT_DEV_SET_DEVICE, "DevSetDevice\0")                                            \
  UTVM_TEXT(UTVM_TEXT_DEV_GET_ATTR, "DevGetAttr\0")                                                \
  UTVM_TEXT(UTVM_TEXT_DEV_ALLOC_DATA, "DevAllocData\0")                                            \
  UTVM_TEXT(UTVM_TEXT_DEV_FREE_DATA, "DevFreeData\0")                                              \
  UTVM_TEXT(UTVM_TEXT_DEV_STREAM_SYNC, "DevStreamSync\0")                                          \
  UTVM_TEXT(UTVM_TEXT_COPY_AMONG_REMOTE, "CopyAmongRemote\0")                                      \
  UTVM_TEXT(UTVM_TEXT_DEV_ALLOC_DATA_WITH_SCOPE, "DevAllocDataWithScope\0")                        \
  UTVM_TEXT(UTVM_TEXT_DEV_CREATE_STREAM, "DevCreateStream\0")                                      \
  UTVM_TEXT(UTVM_TEXT_DEV_FREE_STREAM, "DevFreeStream\0")                                          \
  UTVM_TEXT(UTVM_TEXT_DEV_SET_STREAM, "DevSetStream\0")                                            \
  UTVM_TEXT(UTVM_TEXT_DEV_GET_CURRENT_STREAM, "DevGetCurrentStream\0")                             \
  UTVM_TEXT(UTVM_TEXT_RPC_TRUNCATED, "truncated\0")                                                \
  UTVM_TEXT(UTVM_TEXT_RPC_LENGTH, "length mismatch\0")                                             \
  UTVM_TEXT(UTVM_TEXT_RPC_BUFFER, "over request buffer\0")                                         \
  UTVM_TEXT(UTVM_TEXT_RPC_NDIM, "bad ndim\0")                                                      \
  UTVM_TEXT(UTVM_TEXT_RPC_DEVICE, "not device cpu(0)\0")                                           \
  UTVM_TEXT(UTVM_TEXT_RPC_RANGE, "range outside tensors\0")                                        \
  UTVM_TEXT(UTVM_TEXT_RPC_ARGUMENTS, "bad arguments\0")                                            \
  UTVM_TEXT(UTVM_TEXT_RPC_TYPE_CODE, "unsupported type code\0")                                    \
  UTVM_TEXT(UTVM_TEXT_RPC_HANDLE, "bad handle\0")                                                  \
  UTVM_TEXT(UTVM_TEXT_RPC_VERSION, "protocol version is not " UTVM_RPC_PROTOCOL_VERSION "\0")      \
  UTVM_TEXT(UTVM_TEXT_RPC_SIZES, "tensor sizes differ\0")                                          \
  UTVM_TEXT(UTVM_TEXT_RPC_LIMIT, "over reply limit\0")                                             \
  UTVM_TEXT(UTVM_TEXT_RPC_KIND, "unsupported attribute kind\0")                                    \
  UTVM_TEXT(UTVM_TEXT_RPC_CODE, "unknown code\0")                                                  \
  UTVM_TEXT(UTVM_TEXT_RPC_CRC, "failed its CRC and was not executed\0")                            \
  UTVM_TEXT(UTVM_TEXT_RPC_COPY_CRC, "payload failed its CRC; destination undefined\0")             \
  UTVM_TEXT(UTVM_TEXT_RPC_SHAPE, "bad dtype or shape\0")                                           \
  UTVM_TEXT(UTVM_TEXT_RPC_ALIGNMENT, "bad size or alignment\0")                                   \
  UTVM_TEXT_OWN(UTVM_TEXT_RPC_ARENA_NEEDS, "over request buffer, needs\0")                        \
  UTVM_TEXT_OWN(UTVM_TEXT_RPC_ARENA_BYTES, " bytes of the tensor arena,\0")                       \
  UTVM_TEXT_OWN(UTVM_TEXT_RPC_ARENA_FREE, " free\0")                                              \
  UTVM_TEXT_OWN(UTVM_TEXT_RPC_NOT_KEPT, "repeated; ran once, reply not kept\0")

/* One enumerator per entry of the two lists, in their order; the RPC server's from
 * UTVM_TEXT_RPC_FIRST_ID. */
#define UTVM_TEXT(id, text) id,
#define UTVM_TEXT_OWN(id, text) id,
typedef enum {
  UTVM_CRT_TEXT_LIST
  UTVM_TEXT_CRT_END,
  UTVM_TEXT_BEFORE_RPC = UTVM_TEXT_RPC_FIRST_ID - 1, /* so that the next id is the first */
  UTVM_RPC_TEXT_LIST
  UTVM_TEXT_RPC_END
} utvm_text_id_t;
#undef UTVM_TEXT
#undef UTVM_TEXT_OWN

/* Request names are UTVM_TEXT_RPC + code for codes 0..21; the C runtime's ids stay below the
 * RPC server's; the tokens hold every id. */
typedef char utvm_text_check_requests[
    ((int)UTVM_TEXT_DEV_GET_CURRENT_STREAM - (int)UTVM_TEXT_RPC == UTVM_RPC_DEV_GET_CURRENT_STREAM) ? 1 : -1];
typedef char utvm_text_check_groups[((int)UTVM_TEXT_CRT_END <= UTVM_TEXT_RPC_FIRST_ID) ? 1 : -1];
typedef char utvm_text_check_token[((UTVM_TEXT_TOKEN_DIGITS == 3) && ((int)UTVM_TEXT_RPC_END <= 1000)) ? 1 : -1];

#ifdef __cplusplus
}
#endif

#endif /* UTVM_ERROR_TEXTS_H */

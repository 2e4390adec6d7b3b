/*
 * TVM CRT error codes (tvm_crt_error_t): value = category << 8 | code.
 *
 * utvm's own enum utvm_err_t (utvm/error.h) already uses these numbers, so
 * tvm_crt_error_t is the same type and each TVM name is a macro for the utvm value.
 * The few TVM codes utvm never produces (0x6xx, 0x7xx) are casts of their numbers.
 */
#ifndef TVM_RUNTIME_CRT_ERROR_CODES_H_
#define TVM_RUNTIME_CRT_ERROR_CODES_H_

#include "utvm/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef utvm_err_t tvm_crt_error_t;

#define kTvmErrorNoError UTVM_OK

#define kTvmErrorFunctionNameNotFound UTVM_ERR_FUNC_NAME_NOT_FOUND
#define kTvmErrorFunctionIndexInvalid UTVM_ERR_FUNC_INDEX_INVALID
#define kTvmErrorFunctionRegistryFull UTVM_ERR_REGISTRY_FULL
#define kTvmErrorFunctionAlreadyDefined UTVM_ERR_FUNC_ALREADY_DEFINED
#define kTvmErrorBufferTooSmall UTVM_ERR_BUFFER_TOO_SMALL

#define kTvmErrorFramingInvalidState UTVM_ERR_FRAMING_INVALID_STATE
#define kTvmErrorFramingShortPacket UTVM_ERR_FRAMING_SHORT_PACKET
#define kTvmErrorFramingInvalidEscape UTVM_ERR_FRAMING_INVALID_ESCAPE
#define kTvmErrorFramingPayloadOverflow UTVM_ERR_FRAMING_PAYLOAD_OVERFLOW
#define kTvmErrorFramingPayloadIncomplete UTVM_ERR_FRAMING_PAYLOAD_INCOMPLETE

#define kTvmErrorWriteStreamShortWrite UTVM_ERR_WRITE_SHORT
#define kTvmErrorWriteStreamLongWrite UTVM_ERR_WRITE_LONG

#define kTvmErrorSessionInvalidState UTVM_ERR_SESSION_INVALID_STATE
#define kTvmErrorSessionReceiveBufferBusy UTVM_ERR_SESSION_RX_BUSY
#define kTvmErrorSessionReceiveBufferShortWrite UTVM_ERR_SESSION_RX_SHORT_WRITE

#define kTvmErrorPlatformCheckFailure UTVM_ERR_PLATFORM_CHECK_FAILURE
#define kTvmErrorPlatformMemoryManagerInitialized UTVM_ERR_PLATFORM_MEMORY_MANAGER_INITIALIZED
#define kTvmErrorPlatformShutdown UTVM_ERR_PLATFORM_SHUTDOWN
#define kTvmErrorPlatformNoMemory UTVM_ERR_PLATFORM_NO_MEMORY
#define kTvmErrorPlatformTimerBadState UTVM_ERR_PLATFORM_TIMER_BAD_STATE
#define kTvmErrorPlatformStackAllocBadFree UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE

#define kTvmErrorGeneratedInvalidStorageId ((tvm_crt_error_t)0x600)

#define kTvmErrorExecutorModuleAlreadyCreated ((tvm_crt_error_t)0x700)
#define kTvmErrorExecutorModuleBadContext ((tvm_crt_error_t)0x701)
#define kTvmErrorExecutorModuleNoSuchInput ((tvm_crt_error_t)0x702)

#define kTvmErrorFunctionCallNumArguments UTVM_ERR_FUNC_CALL_NUM_ARGS
#define kTvmErrorFunctionCallWrongArgType UTVM_ERR_FUNC_CALL_WRONG_ARG_TYPE
#define kTvmErrorFunctionCallNotImplemented UTVM_ERR_FUNC_CALL_NOT_IMPLEMENTED
#define kTvmErrorFunctionCallInvalidArg UTVM_ERR_FUNC_CALL_INVALID_ARG

#define kTvmErrorTimeEvaluatorBadHandle UTVM_ERR_TIME_EVAL_BAD_HANDLE

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_CRT_ERROR_CODES_H_ */

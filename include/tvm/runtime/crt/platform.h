/*
 * Platform hooks of the TVM CRT (PROTOCOL.md section 5.7).
 *
 * Implemented by utvm_crt: TVMPlatformMemoryAllocate / TVMPlatformMemoryFree (tensor arena).
 * Implemented by the port (ports/ or a test): every other hook declared here.
 */
#ifndef TVM_RUNTIME_CRT_PLATFORM_H_
#define TVM_RUNTIME_CRT_PLATFORM_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "tvm/runtime/crt/error_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Port: fatal error; never returns. */
#if defined(__GNUC__)
__attribute__((noreturn))
#endif
void TVMPlatformAbort(tvm_crt_error_t code);

/* Port: vsnprintf-like formatting into out (at most out_size bytes including the NUL);
 * returns the number of bytes written. */
size_t TVMPlatformFormatMessage(char *out_buf, size_t out_buf_size_bytes, const char *fmt,
                                va_list args);

/* utvm_crt: allocates num_bytes (at least one 64-byte page, 64-byte aligned) from the tensor
 * arena into *out_ptr. kTvmErrorPlatformNoMemory when full; dev is ignored. */
tvm_crt_error_t TVMPlatformMemoryAllocate(size_t num_bytes, DLDevice dev, void **out_ptr);

/* utvm_crt: frees a TVMPlatformMemoryAllocate block. kTvmErrorFunctionCallInvalidArg for a
 * pointer that does not start a live allocation (double or foreign free). */
tvm_crt_error_t TVMPlatformMemoryFree(void *ptr, DLDevice dev);

/* Port: starts the single timer; kTvmErrorPlatformTimerBadState if it is already running. */
tvm_crt_error_t TVMPlatformTimerStart(void);

/* Port: stops the timer and stores the whole nanoseconds elapsed since TVMPlatformTimerStart
 * in *elapsed_ns. kTvmErrorPlatformTimerBadState if not running;
 * UTVM_ERR_TIME_EVAL_TIMER_OVERFLOW if the interval cannot be represented (the hardware counter
 * wrapped, or the nanoseconds do not fit in 64 bits), never a wrong value.
 * Deliberate difference from TVM's platform API, which has
 * TVMPlatformTimerStop(double *elapsed_time_seconds): utvm's runtime does no floating-point
 * arithmetic, so that no soft-float library code is linked on cores without a double-precision
 * FPU; a TVM port's timer needs this one-function change. */
tvm_crt_error_t TVMPlatformTimerStopNs(uint64_t *elapsed_ns);

/* Port: called by the time evaluator before starting / after stopping each measurement
 * (e.g. to lock clocks or flush caches). Return kTvmErrorNoError when there is nothing to do. */
tvm_crt_error_t TVMPlatformBeforeMeasurement(void);
tvm_crt_error_t TVMPlatformAfterMeasurement(void);

/* Port: fills buffer with num_bytes random bytes (used for the session nonce). */
tvm_crt_error_t TVMPlatformGenerateRandom(uint8_t *buffer, size_t num_bytes);

/* Port: one-time platform set-up, called by the application before the server starts. */
tvm_crt_error_t TVMPlatformInitialize(void);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_CRT_PLATFORM_H_ */

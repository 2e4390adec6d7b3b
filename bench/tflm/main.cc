// TFLM benchmark image (bench/tflm, issue 28): one model run by TensorFlow Lite Micro on utvm's
// Cortex-M board support (ports/cortex-m: startup.c, sections.ld, the board's linker script,
// the CMSDK UART driver, timer.c), the counterpart of ports/cortex-m/ai_main.c. At boot it
// copies the embedded reference input into the model's input, runs ONE inference between
// bench_begin() and bench_end() (a QEMU plugin may count the instructions between their
// addresses), compares the output with TFLM's reference output, and prints over the UART
//   model NAME: I instructions, arena A B, bit-exact yes|no
//   models done: 1 of 1 bit-exact                 (0 of 1 on a mismatch or an error)
// Under QEMU -icount shift=0 one virtual ns is one instruction: I is the SysTick ticks of the
// run * 1e9 / UTVM_BOARD_CPU_HZ, at SysTick resolution (as ai_main.c). A is
// MicroInterpreter::arena_used_bytes().
//
// Built by bench/tflm/build.sh, which defines BENCH_MODEL_<NAME> (which operators to register),
// BENCH_NAME ("kws", ...), BENCH_MODEL_FILE, BENCH_INPUT_FILE, BENCH_EXPECTED_FILE (paths
// embedded with .incbin) and BENCH_ARENA_SIZE.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tensorflow/lite/micro/cortex_m_generic/debug_log_callback.h"
#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/schema/schema_generated.h"

extern "C" {
#include "cortex_m.h"
#include "embed.h"
#include "port.h"
}

#ifndef BENCH_ARENA_SIZE
#define BENCH_ARENA_SIZE (320u * 1024u)
#endif

// The model and its reference data (the model in .rodata.bench_model: its size is read from
// the link map).
UTVM_EMBED(bench_model, BENCH_MODEL_FILE);
UTVM_EMBED(bench_input, BENCH_INPUT_FILE);
UTVM_EMBED(bench_expected, BENCH_EXPECTED_FILE);

// The tensor arena, in the board's ARENA region (not zeroed at boot).
alignas(16) static uint8_t arena[BENCH_ARENA_SIZE] __attribute__((section(".utvm_arena")));

// The operators each model uses (read from its OperatorCodes), and only those, so that the
// image links no other kernel.
#if defined(BENCH_MODEL_KWS) || defined(BENCH_MODEL_VWW)
constexpr int kOps = 6;
static TfLiteStatus add_ops(tflite::MicroMutableOpResolver<kOps> &r) {
  if (r.AddAveragePool2D() != kTfLiteOk || r.AddConv2D() != kTfLiteOk ||
      r.AddDepthwiseConv2D() != kTfLiteOk || r.AddFullyConnected() != kTfLiteOk ||
      r.AddReshape() != kTfLiteOk || r.AddSoftmax() != kTfLiteOk) {
    return kTfLiteError;
  }
  return kTfLiteOk;
}
#elif defined(BENCH_MODEL_IC)
constexpr int kOps = 6;
static TfLiteStatus add_ops(tflite::MicroMutableOpResolver<kOps> &r) {
  if (r.AddAdd() != kTfLiteOk || r.AddAveragePool2D() != kTfLiteOk ||
      r.AddConv2D() != kTfLiteOk || r.AddFullyConnected() != kTfLiteOk ||
      r.AddReshape() != kTfLiteOk || r.AddSoftmax() != kTfLiteOk) {
    return kTfLiteError;
  }
  return kTfLiteOk;
}
#elif defined(BENCH_MODEL_AD)
constexpr int kOps = 1;
static TfLiteStatus add_ops(tflite::MicroMutableOpResolver<kOps> &r) {
  return r.AddFullyConnected();
}
#elif defined(BENCH_MODEL_PERSON)
constexpr int kOps = 5;
static TfLiteStatus add_ops(tflite::MicroMutableOpResolver<kOps> &r) {
  if (r.AddAveragePool2D() != kTfLiteOk || r.AddConv2D() != kTfLiteOk ||
      r.AddDepthwiseConv2D() != kTfLiteOk || r.AddReshape() != kTfLiteOk ||
      r.AddSoftmax() != kTfLiteOk) {
    return kTfLiteError;
  }
  return kTfLiteOk;
}
#elif defined(BENCH_MODEL_MICRO_SPEECH)
constexpr int kOps = 4;
static TfLiteStatus add_ops(tflite::MicroMutableOpResolver<kOps> &r) {
  if (r.AddDepthwiseConv2D() != kTfLiteOk || r.AddFullyConnected() != kTfLiteOk ||
      r.AddReshape() != kTfLiteOk || r.AddSoftmax() != kTfLiteOk) {
    return kTfLiteError;
  }
  return kTfLiteOk;
}
#else
#error "define BENCH_MODEL_KWS, _VWW, _IC, _AD, _PERSON or _MICRO_SPEECH"
#endif

// The measured region is exactly the code between these two calls.
extern "C" __attribute__((noinline)) void bench_begin(void) { __asm__ volatile("" ::: "memory"); }
extern "C" __attribute__((noinline)) void bench_end(void) { __asm__ volatile("" ::: "memory"); }

static void write_line(char *text, size_t len) {
  text[len] = '\n';
  utvm_port_uart_write(reinterpret_cast<const uint8_t *>(text), len + 1u);
}

// TFLM's log lines (MicroPrintf; error strings are stripped in the release build) to the UART.
static void debug_log(const char *s) {
  utvm_port_uart_write(reinterpret_cast<const uint8_t *>(s), strlen(s));
}

// Runs the model; appends its line's details to text and returns true when bit-exact.
static bool run_model(char *text, size_t cap, size_t *len) {
  const tflite::Model *model = tflite::GetModel(bench_model);
  tflite::MicroMutableOpResolver<kOps> resolver;
  if (add_ops(resolver) != kTfLiteOk) {
    utvm_port_append_str(text, cap, len, "operator registration failed");
    return false;
  }
  tflite::MicroInterpreter interpreter(model, resolver, arena, sizeof(arena));
  if (interpreter.AllocateTensors() != kTfLiteOk) {
    utvm_port_append_str(text, cap, len, "AllocateTensors failed");
    return false;
  }
  TfLiteTensor *in = interpreter.input(0);
  size_t in_bytes = static_cast<size_t>(bench_input_end - bench_input);
  size_t out_bytes = static_cast<size_t>(bench_expected_end - bench_expected);
  if (in == nullptr || in->bytes != in_bytes) {
    utvm_port_append_str(text, cap, len, "input size differs");
    return false;
  }
  memcpy(in->data.int8, bench_input, in_bytes);
  uint64_t start = utvm_port_ticks();
  bench_begin();
  TfLiteStatus status = interpreter.Invoke();
  bench_end();
  uint64_t ticks = utvm_port_ticks() - start;
  TfLiteTensor *out = interpreter.output(0);
  bool exact = (status == kTfLiteOk) && (out != nullptr) && (out->bytes == out_bytes) &&
               (memcmp(out->data.int8, bench_expected, out_bytes) == 0);
  utvm_port_append_dec(text, cap, len,
                       static_cast<uint32_t>((ticks * 1000000000u) / UTVM_BOARD_CPU_HZ));
  utvm_port_append_str(text, cap, len, " instructions, arena ");
  utvm_port_append_dec(text, cap, len, static_cast<uint32_t>(interpreter.arena_used_bytes()));
  utvm_port_append_str(text, cap, len, " B, bit-exact ");
  utvm_port_append_str(text, cap, len, exact ? "yes" : "no");
  return exact;
}

int main(void) {
  char text[200];
  size_t len = 0u;
  utvm_port_timer_init();
  utvm_port_uart_init();
  RegisterDebugLogCallback(debug_log);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, "model " BENCH_NAME ": ");
  bool exact = run_model(text, sizeof(text) - 1u, &len);
  write_line(text, len);
  len = 0u;
  utvm_port_append_str(text, sizeof(text) - 1u, &len,
                       exact ? "models done: 1 of 1 bit-exact" : "models done: 0 of 1 bit-exact");
  write_line(text, len);
  for (;;) {
    utvm_wfi();
  }
}

/*
 * utvm-model-test firmware: runs the shipped int8 models built into the image with the model
 * runner (portable C kernels, DSP fast paths on cores that have them) on this core, compares
 * every output with TensorFlow Lite Micro's reference bytes and reports on the UART, one line
 * per model:
 *
 *   model <name>: <operators> operators, arena <bytes> B, workspace <bytes> B,
 *     <instructions> instructions, bit-exact yes|no
 *
 * then "models done: <passed> of <count> bit-exact". Under QEMU -icount shift=0 the guest clock
 * advances 1 ns per instruction, so the SysTick ticks of one inference convert to its
 * instruction count (at SysTick resolution). The models, inputs and expected outputs are the
 * files of shared/models (UTVM_MODELS_DIR), embedded with .incbin; UTVM_MODEL_TEST_LARGE adds
 * person_detect and VWW (boards with the flash for them); UTVM_MODEL_TEST_NO_AD leaves the AD
 * autoencoder (270 KB) to an image of its own (utvm-model-test-ad: model_test_ad.h) on boards
 * with 512 KB of flash. Built with UTVM_MODEL_TEST_CASES (a
 * header naming other files and cases) the same program is utvm-ops-test: the operator case
 * sets (ops2, tflm), one line per input/output pair.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cortex_m.h"
#include "embed.h"
#include "port.h"
#include "utvm/model.h"
#include "utvm/runner.h"

#ifndef UTVM_MODELS_DIR
#error "UTVM_MODELS_DIR must name the shared/models folder (a string literal)"
#endif

/* Static memory for the largest embedded model (checked at run time). */
#define ARENA_SIZE (64u * 1024u)
#define WORKSPACE_SIZE (40u * 1024u)

/* Embeds a file of shared/models (embed.h). */
#define EMBED(sym, file) UTVM_EMBED(sym, UTVM_MODELS_DIR "/" file)

typedef struct {
  const char *name;
  const uint8_t *files[3][2]; /* model, input, expected output: start and end */
} model_case_t;

#define CASE(name, m, i, o) {name, {{m, m##_end}, {i, i##_end}, {o, o##_end}}}

#if defined(UTVM_MODEL_TEST_CASES)
/* A generated list (the operator case sets: ports/cortex-m/CMakeLists.txt): its UTVM_EMBEDs
 * and kCases[]. */
#include UTVM_MODEL_TEST_CASES
#else
EMBED(hello_model, "hello_world_int8.tflite");
EMBED(hello_in, "refdata/hello_world/in_-63.bin");
EMBED(hello_out, "refdata/hello_world/tflm_in_-63.out0.bin");
EMBED(speech_model, "micro_speech_int8.tflite");
EMBED(speech_in, "refdata/micro_speech/yes_1000ms_features_int8.bin");
EMBED(speech_out, "refdata/micro_speech/yes_1000ms_tflm.out0.bin");
EMBED(kws_model, "mlperf_tiny_kws_dscnn_int8.tflite");
EMBED(kws_in, "refdata/mlperf_tiny/kws_input0_int8.bin");
EMBED(kws_out, "refdata/mlperf_tiny/kws_input0_int8_tflm.out0.bin");
#if !defined(UTVM_MODEL_TEST_NO_AD)
EMBED(ad_model, "mlperf_tiny_ad_autoencoder_int8.tflite");
EMBED(ad_in, "refdata/mlperf_tiny/ad_window0_int8.bin");
EMBED(ad_out, "refdata/mlperf_tiny/ad_window0_int8_tflm.out0.bin");
#endif
EMBED(ic_model, "mlperf_tiny_ic_resnet8_int8.tflite");
EMBED(ic_in, "refdata/mlperf_tiny/ic_input0_int8.bin");
EMBED(ic_out, "refdata/mlperf_tiny/ic_input0_int8_tflm.out0.bin");
#if defined(UTVM_MODEL_TEST_LARGE)
EMBED(person_model, "person_detect_int8.tflite");
EMBED(person_in, "refdata/person_detection/person_input_int8.bin");
EMBED(person_out, "refdata/person_detection/person_tflm.out0.bin");
EMBED(vww_model, "mlperf_tiny_vww_mobilenetv1_int8.tflite");
EMBED(vww_in, "refdata/mlperf_tiny/vww_from_person_bmp_int8.bin");
EMBED(vww_out, "refdata/mlperf_tiny/vww_from_person_bmp_int8_tflm.out0.bin");
#endif

static const model_case_t kCases[] = {
    CASE("hello_world", hello_model, hello_in, hello_out),
    CASE("micro_speech", speech_model, speech_in, speech_out),
    CASE("kws_dscnn", kws_model, kws_in, kws_out),
#if !defined(UTVM_MODEL_TEST_NO_AD)
    CASE("ad_autoencoder", ad_model, ad_in, ad_out),
#endif
    CASE("ic_resnet8", ic_model, ic_in, ic_out),
#if defined(UTVM_MODEL_TEST_LARGE)
    CASE("person_detect", person_model, person_in, person_out),
    CASE("vww_mobilenetv1", vww_model, vww_in, vww_out),
#endif
};

#endif

static uint8_t arena[ARENA_SIZE] __attribute__((aligned(16)));
static uint8_t workspace[WORKSPACE_SIZE] __attribute__((aligned(16)));

static void write_line(char *text, size_t len) {
  text[len] = '\n';
  utvm_port_uart_write((const uint8_t *)text, len + 1u);
}

/* Bytes of an embedded file (the .byte 0 after each file is not part of it). */
static size_t file_size(const model_case_t *c, uint32_t k) {
  return (size_t)(c->files[k][1] - c->files[k][0]);
}

/* Runs one case; writes its line and returns true when the output is bit-exact. */
static bool run_case(const model_case_t *c) {
  char text[200];
  size_t len = 0u;
  utvm_model_t model;
  utvm_runner_t runner;
  utvm_runner_tensor_t in;
  utvm_runner_tensor_t out;
  bool exact = false;
  utvm_port_append_str(text, sizeof(text) - 1u, &len, "model ");
  utvm_port_append_str(text, sizeof(text) - 1u, &len, c->name);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, ": ");
  if (utvm_model_open(&model, c->files[0][0], file_size(c, 0u)) != UTVM_OK) {
    utvm_port_append_str(text, sizeof(text) - 1u, &len, model.error);
  } else if ((utvm_runner_init(&runner, &model, workspace, sizeof(workspace), arena,
                               sizeof(arena)) != UTVM_OK) ||
             (utvm_runner_input(&runner, 0u, &in) != UTVM_OK) ||
             (in.bytes != file_size(c, 1u))) {
    utvm_port_append_str(text, sizeof(text) - 1u, &len, runner.error);
  } else {
    (void)memcpy(in.data, c->files[1][0], in.bytes);
    uint64_t start = utvm_port_ticks();
    utvm_err_t err = utvm_runner_invoke(&runner);
    uint64_t ticks = utvm_port_ticks() - start;
    exact = (err == UTVM_OK) && (utvm_runner_output(&runner, 0u, &out) == UTVM_OK) &&
            (out.bytes == file_size(c, 2u)) && (memcmp(out.data, c->files[2][0], out.bytes) == 0);
    utvm_port_append_dec(text, sizeof(text) - 1u, &len, runner.n_operators);
    utvm_port_append_str(text, sizeof(text) - 1u, &len, " operators, arena ");
    utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)runner.arena_size);
    utvm_port_append_str(text, sizeof(text) - 1u, &len, " B, workspace ");
    utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)runner.workspace_size);
    utvm_port_append_str(text, sizeof(text) - 1u, &len, " B, ");
    utvm_port_append_dec(text, sizeof(text) - 1u, &len,
                         (uint32_t)((ticks * 1000000000u) / UTVM_BOARD_CPU_HZ));
    utvm_port_append_str(text, sizeof(text) - 1u, &len, " instructions, bit-exact ");
    utvm_port_append_str(text, sizeof(text) - 1u, &len, exact ? "yes" : "no");
  }
  write_line(text, len);
  return exact;
}

int main(void) {
  char text[64];
  size_t len = 0u;
  uint32_t passed = 0u;
  uint32_t i;
  utvm_port_timer_init();
  utvm_port_uart_init();
  for (i = 0u; i < sizeof(kCases) / sizeof(kCases[0]); i++) {
    passed += run_case(&kCases[i]) ? 1u : 0u;
  }
  utvm_port_append_str(text, sizeof(text) - 1u, &len, "models done: ");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, passed);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " of ");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, i);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " bit-exact");
  write_line(text, len);
  for (;;) {
    utvm_wfi();
  }
}

/*
 * Standalone model image: one network generated at build time by `utvm compile MODEL -o DIR
 * --name NET` (utvm_add_model), run with the ai_ API and no host at all. At boot it copies the
 * embedded reference input into the model's input, runs it once and compares the output with
 * TensorFlow Lite Micro's, then prints over the UART
 *   model NET: N nodes, activations A B, params P B, I instructions, bit-exact yes|no
 *   models done: 1 of 1 bit-exact            (0 of 1 on a mismatch or an error)
 * (the format tests/qemu/test_qemu_models.py reads). Under QEMU -icount shift=0 the guest
 * clock advances 1 ns per instruction, so SysTick ticks of the run give its instruction count
 * at SysTick resolution. The build defines UTVM_AI_HEADER ("NET.h"), UTVM_AI_MODEL
 * (ai_model_NET), UTVM_AI_ACTIVATIONS (AI_NET_ACTIVATIONS_SIZE), UTVM_AI_INPUT_SIZE and
 * UTVM_AI_OUTPUT_SIZE (AI_NET_IN_0_SIZE, AI_NET_OUT_0_SIZE: the IO buffers), UTVM_AI_INPUT and
 * UTVM_AI_EXPECTED (paths of the reference files).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cortex_m.h"
#include "embed.h"
#include "port.h"
#include "utvm/ai.h"
#include UTVM_AI_HEADER

UTVM_EMBED(reference_input, UTVM_AI_INPUT);
UTVM_EMBED(reference_output, UTVM_AI_EXPECTED);

static uint8_t activations[UTVM_AI_ACTIVATIONS] UTVM_AI_ALIGNED;
static uint8_t input[UTVM_AI_INPUT_SIZE] UTVM_AI_ALIGNED;
static uint8_t output[UTVM_AI_OUTPUT_SIZE] UTVM_AI_ALIGNED;

static void write_line(char *text, size_t len) {
  text[len] = '\n';
  utvm_port_uart_write((const uint8_t *)text, len + 1u);
}

/* Runs the model; appends its line's details to text and returns true when bit-exact. */
static bool run_model(char *text, size_t cap, size_t *len) {
  const ai_model *m = &UTVM_AI_MODEL;
  ai_handle h = NULL;
  ai_tensor in;
  ai_tensor out;
  ai_error e;
  size_t in_bytes = (size_t)(reference_input_end - reference_input);
  size_t out_bytes = (size_t)(reference_output_end - reference_output);
  bool exact = false;
  (void)memset(&e, 0, sizeof(e));
  if ((ai_create(m, activations, sizeof(activations), &h) != UTVM_OK) ||
      (ai_set_input(h, 0u, input, sizeof(input)) != UTVM_OK) ||
      (ai_set_output(h, 0u, output, sizeof(output)) != UTVM_OK) ||
      (ai_get_input(h, 0u, &in) != UTVM_OK) || (in.bytes != in_bytes)) {
    (void)ai_get_error(h, &e);
    utvm_port_append_str(text, cap, len, (e.text[0] != '\0') ? e.text : "input size differs");
  } else {
    (void)memcpy(in.dl.data, reference_input, in_bytes);
    uint64_t start = utvm_port_ticks();
    utvm_err_t err = ai_run(h);
    uint64_t ticks = utvm_port_ticks() - start;
    exact = (err == UTVM_OK) && (ai_get_output(h, 0u, &out) == UTVM_OK) &&
            (out.bytes == out_bytes) && (memcmp(out.dl.data, reference_output, out_bytes) == 0);
    utvm_port_append_dec(text, cap, len, m->n_nodes);
    utvm_port_append_str(text, cap, len, " nodes, activations ");
    utvm_port_append_dec(text, cap, len, (uint32_t)m->activations_size);
    utvm_port_append_str(text, cap, len, " B, params ");
    utvm_port_append_dec(text, cap, len, (uint32_t)m->params_size);
    utvm_port_append_str(text, cap, len, " B, ");
    utvm_port_append_dec(text, cap, len, (uint32_t)((ticks * 1000000000u) / UTVM_BOARD_CPU_HZ));
    utvm_port_append_str(text, cap, len, " instructions, bit-exact ");
    utvm_port_append_str(text, cap, len, exact ? "yes" : "no");
  }
  if (h != NULL) {
    (void)ai_destroy(h);
  }
  return exact;
}

int main(void) {
  char text[200];
  size_t len = 0u;
  utvm_port_timer_init();
  utvm_port_uart_init();
  utvm_port_append_str(text, sizeof(text) - 1u, &len, "model ");
  utvm_port_append_str(text, sizeof(text) - 1u, &len, UTVM_AI_MODEL.name);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, ": ");
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

/*
 * KWS as a standalone model (utvm_add_model) with an installed utvm: at boot it runs the
 * reference input once through the ai_ API and prints over the UART
 *   model kws: bit-exact yes|no (or the ai_ error)
 *   models done: 1 of 1 bit-exact        (0 of 1 otherwise)
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cortex_m.h"
#include "kws.h"
#include "kws_reference.h"
#include "port.h"
#include "utvm/ai.h"

static uint8_t activations[AI_kws_ACTIVATIONS_SIZE] UTVM_AI_ALIGNED;
static int8_t features[AI_kws_IN_0_SIZE] UTVM_AI_ALIGNED;
static int8_t scores[AI_kws_OUT_0_SIZE] UTVM_AI_ALIGNED;

static void print_line(const char *a, const char *b) {
  char text[160];
  size_t len = 0u;
  utvm_port_append_str(text, sizeof(text) - 1u, &len, a);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, b);
  text[len] = '\n';
  utvm_port_uart_write((const uint8_t *)text, len + 1u);
}

int main(void) {
  ai_handle h = NULL;
  ai_error e;
  bool exact = false;
  utvm_port_timer_init();
  utvm_port_uart_init();
  (void)memset(&e, 0, sizeof(e));
  if ((sizeof(kws_input) != sizeof(features)) || (sizeof(kws_expected) != sizeof(scores))) {
    print_line("model kws: ", "reference files do not match the model");
  } else if ((ai_create(&ai_model_kws, activations, sizeof(activations), &h) != UTVM_OK) ||
             (ai_set_input(h, 0u, features, sizeof(features)) != UTVM_OK) ||
             (ai_set_output(h, 0u, scores, sizeof(scores)) != UTVM_OK)) {
    (void)ai_get_error(h, &e);
    print_line("model kws: ", e.text);
  } else {
    (void)memcpy(features, kws_input, sizeof(features));
    exact = (ai_run(h) == UTVM_OK) && (memcmp(scores, kws_expected, sizeof(scores)) == 0);
    (void)ai_get_error(h, &e);
    print_line("model kws: ",
               exact ? "bit-exact yes" : ((e.text[0] != '\0') ? e.text : "bit-exact no"));
  }
  print_line("models done: ", exact ? "1 of 1 bit-exact" : "0 of 1 bit-exact");
  for (;;) {
    utvm_wfi();
  }
}

/* utvm explain TEXT: a device error text with its #<id> tokens expanded; no device. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* utvm explain --help. */
static const char explain_help[] =
    "usage: utvm explain TEXT\n\n"
    "Replaces the #<id> tokens of a device error text (a device built with\n"
    "UTVM_ERROR_TEXTS=OFF) by their texts; needs no device.\n";

/* explain TEXT: expands the tokens of an error text copied from elsewhere (e.g. the exception
 * a TVM host printed), without a device. */
static int explain_main(const cli_options_t *o) {
  if (o->num_positional != 1) {
    return cli_usage_error(o, "explain needs one text (quote it)%s", "");
  }
  char text[4096];
  size_t len = utvm_host_expand_error(o->positional[0], text, sizeof(text));
  if (o->json) {
    (void)printf("{\"ok\": true, \"text\": ");
    cli_json_string(stdout, text, len);
    (void)printf("}\n");
  } else {
    (void)printf("%s\n", text);
  }
  return CLI_EXIT_OK;
}

const cli_command_t cli_explain_command = {"explain", explain_help, explain_main};

/* utvm_host_expand_error: "#<id>" tokens of a device built without error texts become the
 * texts of include/utvm/error_texts.h; everything else is copied. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "utvm/error_texts.h"
#include "utvm/host.h"

/* The token of id, as the device writes it. */
static void token_of(utvm_text_id_t id, char *out, size_t out_size) {
  (void)snprintf(out, out_size, "#%0*u", UTVM_TEXT_TOKEN_DIGITS, (unsigned)id);
}

/* Byte counts of a full arena read in decimal with units and keep their hex, from texts and
 * from tokens alike. */
static void test_byte_counts_in_decimal(void **state) {
  char out[256];
  char text[96];
  char full[8];
  char largest[8];
  (void)state;
  (void)utvm_host_expand_error(
      "DevAllocData: tensor arena full, bytes 0x00049400, largest free 0x0003e0c0", out,
      sizeof(out));
  assert_string_equal(out, "DevAllocData: tensor arena full: need 300,032 bytes (0x00049400), "
                           "largest free 254,144 bytes (0x0003e0c0)");
  token_of(UTVM_TEXT_TENSOR_ARENA_FULL, full, sizeof(full));
  token_of(UTVM_TEXT_LARGEST_FREE, largest, sizeof(largest));
  (void)snprintf(text, sizeof(text), "%s0x00000040%s0x00000000", full, largest);
  (void)utvm_host_expand_error(text, out, sizeof(out));
  assert_string_equal(out, "tensor arena full: need 64 bytes (0x00000040), largest free 0 bytes "
                           "(0x00000000)");
  (void)utvm_host_expand_error("workspace arena full, bytes 0x00100000", out, sizeof(out));
  assert_string_equal(out, "workspace arena full: need 1,048,576 bytes (0x00100000)");
  /* A timer that never ran: the code is explained. */
  (void)utvm_host_expand_error("RPCTimeEvaluator: platform hook error 0x000005f0", out,
                               sizeof(out));
  assert_non_null(strstr(out, "0x000005f0 (timer not running: TVMPlatformInitialize"));
  /* Truncated output stays terminated. */
  (void)utvm_host_expand_error("tensor arena full, bytes 0x00049400", out, 30u);
  assert_int_equal(strlen(out), 29u);
}

static void test_tokens_expand(void **state) {
  char token[8];
  char text[64];
  char out[256];
  (void)state;
  token_of(UTVM_TEXT_CALL_FUNC, token, sizeof(token));
  (void)snprintf(text, sizeof(text), "%s: ", token);
  token_of(UTVM_TEXT_RPC_TYPE_CODE, token, sizeof(token));
  (void)strcat(text, token);
  (void)strcat(text, " 0x00000063");
  size_t n = utvm_host_expand_error(text, out, sizeof(out));
  assert_string_equal(out, "CallFunc: unsupported type code 0x00000063");
  assert_int_equal(n, strlen(out));

  /* Adjacent tokens, a hex value right after a token, a name after a token. */
  char first[8];
  token_of(UTVM_TEXT_TIME_EVALUATOR, first, sizeof(first));
  token_of(UTVM_TEXT_TE_BAD_ARGUMENT, token, sizeof(token));
  (void)snprintf(text, sizeof(text), "%s%s0x00000002", first, token);
  (void)utvm_host_expand_error(text, out, sizeof(out));
  assert_string_equal(out, "RPCTimeEvaluator: bad argument 0x00000002");
  token_of(UTVM_TEXT_FUNCTION_NOT_FOUND, token, sizeof(token));
  (void)snprintf(text, sizeof(text), "%s42nd_function", token);
  (void)utvm_host_expand_error(text, out, sizeof(out));
  assert_string_equal(out, "function not found: 42nd_function");
  token_of(UTVM_TEXT_NOT_INITIALISED, token, sizeof(token));
  (void)utvm_host_expand_error(token, out, sizeof(out));
  assert_string_equal(out, "utvm_crt: runtime not initialised");
}

static void test_every_id(void **state) {
  char token[8];
  char out[256];
  (void)state;
  token_of(UTVM_TEXT_RPC_VERSION, token, sizeof(token));
  (void)utvm_host_expand_error(token, out, sizeof(out));
  assert_string_equal(out, "protocol version is not " UTVM_RPC_PROTOCOL_VERSION);
  /* Every id of both lists expands to a text without '#' (no text holds a token); the ids
   * between and after the lists are not tokens. */
  for (unsigned id = 0u; id < (unsigned)UTVM_TEXT_RPC_END + 2u; id++) {
    bool known = (id < (unsigned)UTVM_TEXT_CRT_END) ||
                 ((id >= UTVM_TEXT_RPC_FIRST_ID) && (id < (unsigned)UTVM_TEXT_RPC_END));
    token_of((utvm_text_id_t)id, token, sizeof(token));
    size_t n = utvm_host_expand_error(token, out, sizeof(out));
    if (known) {
      assert_true(n > 0u);
      assert_null(strchr(out, '#'));
    } else {
      assert_string_equal(out, token);
    }
  }
  /* Request names by RPC code. */
  token_of((utvm_text_id_t)(UTVM_TEXT_RPC + UTVM_RPC_DEV_GET_CURRENT_STREAM), token,
           sizeof(token));
  (void)utvm_host_expand_error(token, out, sizeof(out));
  assert_string_equal(out, "DevGetCurrentStream");
}

static void test_unknown_and_plain_text(void **state) {
  char out[256];
  (void)state;
  /* An id beyond the lists, a lone '#', a '#' with too few digits: copied as they are. */
  assert_true(UTVM_TEXT_RPC_END <= 999);
  const char *text = "#999 and # and #7x and #07 and #7";
  size_t n = utvm_host_expand_error(text, out, sizeof(out));
  assert_string_equal(out, text);
  assert_int_equal(n, strlen(text));
  /* A text without tokens (a device with texts, an application's own error) is unchanged. */
  const char *plain = "test_add_f32: shapes differ";
  assert_int_equal(utvm_host_expand_error(plain, out, sizeof(out)), strlen(plain));
  assert_string_equal(out, plain);
  assert_int_equal(utvm_host_expand_error("", out, sizeof(out)), 0u);
  assert_string_equal(out, "");
  assert_int_equal(utvm_host_expand_error(NULL, out, sizeof(out)), 0u);
  assert_string_equal(out, "");
}

static void test_truncation(void **state) {
  char token[8];
  char out[12];
  (void)state;
  token_of(UTVM_TEXT_NULL_ARGUMENT, token, sizeof(token));
  /* "NULL argument" is 13 characters: cut to 11 and terminated. */
  memset(out, 'x', sizeof(out));
  assert_int_equal(utvm_host_expand_error(token, out, sizeof(out)), 11u);
  assert_string_equal(out, "NULL argume");
  assert_int_equal(utvm_host_expand_error("0123456789abcdef", out, sizeof(out)), 11u);
  assert_string_equal(out, "0123456789a");
  assert_int_equal(utvm_host_expand_error(token, out, 1u), 0u);
  assert_string_equal(out, "");
  out[0] = 'x';
  assert_int_equal(utvm_host_expand_error(token, out, 0u), 0u);
  assert_int_equal(out[0], 'x'); /* nothing written */
  assert_int_equal(utvm_host_expand_error(token, NULL, 8u), 0u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tokens_expand),
      cmocka_unit_test(test_byte_counts_in_decimal),
      cmocka_unit_test(test_every_id),
      cmocka_unit_test(test_unknown_and_plain_text),
      cmocka_unit_test(test_truncation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

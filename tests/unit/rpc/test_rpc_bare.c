/*
 * A server without its opt-in features (utvm_rpc_server_enable_sequence,
 * utvm_rpc_server_enable_large_calls, utvm_crt_enable_time_evaluator): what needs them gets a clear exception, never a crash,
 * and the server goes on; the enable functions' argument errors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rpc_harness.h"

static int setup_bare(void **state) {
  (void)state;
  rpc_h_setup_with(4096u, 0u);
  return 0;
}

static int setup_sequence(void **state) {
  (void)state;
  rpc_h_setup_with(4096u, RPC_H_SEQUENCE);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  rpc_h_teardown();
  return 0;
}

/* A GetGlobalFunc packet of name. */
static void get_global_packet(test_bytes_t *packet, const char *name) {
  rpc_args_builder_t b;
  rpc_ab_init(&b);
  rpc_ab_str(&b, name);
  rpc_packet_syscall(packet, UTVM_RPC_GET_GLOBAL_FUNC, &b);
  rpc_ab_free(&b);
}

/* Without the extension there is no Sequence global (a utvm host then sends plain requests),
 * and a numbered request is refused: its prefix is no packet length. */
static void test_no_sequence(void **state) {
  (void)state;
  assert_int_equal(rpc_h_get_global(UTVM_RPC_SEQUENCE_NAME), 0u);
  assert_true(rpc_h_get_global(UTVM_RPC_SYNC_NAME) != 0u);
  test_bytes_t packet;
  test_bytes_t wire;
  test_bytes_t reply;
  test_bytes_init(&packet);
  test_bytes_init(&wire);
  test_bytes_init(&reply);
  get_global_packet(&packet, "runtime.SystemLib");
  rpc_put_u32(&wire, 7u);
  rpc_put_u32(&wire, (uint32_t)UTVM_RPC_SEQ_TAG << 16);
  test_bytes_append(&wire, packet.data, packet.len);
  rpc_h_call(wire.data, wire.len, &reply);
  assert_non_null(strstr(rpc_expect_exception(&reply), "length mismatch"));
  assert_int_equal(rpc_h_server()->stats.replays, 0u);
  rpc_h_call(packet.data, packet.len, &reply);
  assert_true(rpc_expect_handle(&reply) != 0u);
  test_bytes_free(&packet);
  test_bytes_free(&wire);
  test_bytes_free(&reply);
}

/* Without large calls a CallFunc larger than the request buffer is refused as any other
 * request, fed whole or in pieces, and takes nothing from the tensor arena. */
static void test_no_large_calls(void **state) {
  (void)state;
  uint64_t echo = rpc_h_syslib_function("test_echo");
  static char big[4u * RPC_H_BUFFER_SIZE];
  (void)memset(big, 'x', sizeof(big) - 1u);
  size_t free_before = utvm_page_free_bytes(&rpc_h_server()->crt.tensors);
  rpc_args_builder_t b;
  rpc_ab_init(&b);
  rpc_ab_str(&b, big);
  test_bytes_t packet;
  test_bytes_t reply;
  test_bytes_init(&packet);
  test_bytes_init(&reply);
  rpc_packet_call(&packet, echo, &b);
  rpc_ab_free(&b);
  for (size_t chunk = 0u; chunk < 2u; chunk++) {
    rpc_h_send(packet.data, packet.len, chunk * 100u);
    assert_int_equal(rpc_h_replies(&reply, 1u), 1u);
    const char *text = rpc_expect_exception(&reply);
    assert_non_null(strstr(text, "CallFunc: over request buffer"));
    assert_null(strstr(text, "needs"));
    assert_int_equal(utvm_page_free_bytes(&rpc_h_server()->crt.tensors), free_before);
    rpc_h_expect_alive();
  }
  test_bytes_free(&packet);
  test_bytes_free(&reply);
}

/* The same with the sequence extension on. */
static void test_no_large_calls_with_sequence(void **state) {
  test_no_large_calls(state);
}

/* Calls the function handle without arguments; *reply (initialised here) gets the reply. */
static void call_without_arguments(uint64_t handle, test_bytes_t *reply) {
  rpc_args_builder_t b;
  rpc_ab_init(&b);
  test_bytes_t packet;
  test_bytes_init(&packet);
  test_bytes_init(reply);
  rpc_packet_call(&packet, handle, &b);
  rpc_ab_free(&b);
  rpc_h_call(packet.data, packet.len, reply);
  test_bytes_free(&packet);
}

/* Without utvm_crt_enable_time_evaluator, TVM's time evaluator is not found, and a call of the
 * handle TVM's C runtime gives it is refused. */
static void test_no_time_evaluator(void **state) {
  (void)state;
  assert_int_equal(rpc_h_get_global("runtime.RPCTimeEvaluator"), 0u);
  test_bytes_t reply;
  call_without_arguments(0x80028002u, &reply);
  assert_non_null(strstr(rpc_expect_exception(&reply), "invalid function handle"));
  rpc_h_expect_alive();
  test_bytes_free(&reply);
}

/* utvm_rpc_server_enable_sequence refuses a missing server or cache and a cache below
 * UTVM_RPC_REPLY_CACHE_MIN, and a second call (its global exists); none turns the extension
 * on. */
static void test_enable_sequence_arguments(void **state) {
  (void)state;
  static uint8_t cache[UTVM_RPC_REPLY_CACHE_MIN];
  utvm_rpc_server_t *server = rpc_h_server();
  assert_int_equal(utvm_rpc_server_enable_sequence(NULL, cache, sizeof(cache)),
                   UTVM_ERR_SESSION_BAD_ARGUMENT);
  assert_int_equal(utvm_rpc_server_enable_sequence(server, NULL, sizeof(cache)),
                   UTVM_ERR_SESSION_BAD_ARGUMENT);
  assert_int_equal(utvm_rpc_server_enable_sequence(server, cache, sizeof(cache) - 1u),
                   UTVM_ERR_SESSION_BAD_ARGUMENT);
  assert_int_equal(rpc_h_get_global(UTVM_RPC_SEQUENCE_NAME), 0u);
  assert_int_equal(utvm_rpc_server_enable_sequence(server, cache, sizeof(cache)), UTVM_OK);
  assert_true(rpc_h_get_global(UTVM_RPC_SEQUENCE_NAME) != 0u);
  assert_int_not_equal(utvm_rpc_server_enable_sequence(server, cache, sizeof(cache)), UTVM_OK);
  utvm_rpc_server_enable_large_calls(NULL); /* nothing to do */
}

/* The extension alone (without large calls): Sequence answers the harness's cache size. */
static void test_sequence_without_large_calls(void **state) {
  (void)state;
  uint64_t f = rpc_h_get_global(UTVM_RPC_SEQUENCE_NAME);
  assert_true(f != 0u);
  test_bytes_t reply;
  call_without_arguments(f, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, kTVMArgInt), 256u);
  test_bytes_free(&reply);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_no_sequence, setup_bare, teardown),
      cmocka_unit_test_setup_teardown(test_no_large_calls, setup_bare, teardown),
      cmocka_unit_test_setup_teardown(test_no_large_calls_with_sequence, setup_sequence,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_no_time_evaluator, setup_bare, teardown),
      cmocka_unit_test_setup_teardown(test_enable_sequence_arguments, setup_bare, teardown),
      cmocka_unit_test_setup_teardown(test_sequence_without_large_calls, setup_sequence,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

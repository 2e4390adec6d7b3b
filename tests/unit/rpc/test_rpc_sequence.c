/*
 * The sequence extension (utvm.rpc.server.Sequence, docs/RECOVERY.md): numbered requests run
 * once, a repeated number is answered from the reply cache (or run again when it is a read
 * whose reply was not kept, or refused otherwise), an older number is dropped, a CopyToRemote
 * whose header check fails writes nothing, a damaged request is not remembered, and plain
 * TVM packets keep working in the same session.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rpc_harness.h"
#include "utvm/framing.h"

/* The harness's reply cache (rpc_harness.c). */
#define CACHE_SIZE 256u

/* prefix (seq, check, tag) + packet */
static void wrap(test_bytes_t *out, uint32_t seq, uint16_t check, const test_bytes_t *packet) {
  test_bytes_clear(out);
  rpc_put_u32(out, seq);
  rpc_put_u32(out, ((uint32_t)UTVM_RPC_SEQ_TAG << 16) | check);
  test_bytes_append(out, packet->data, packet->len);
}

/* Sends packet under seq and returns the one reply, its prefix checked and removed. */
static void seq_call(uint32_t seq, uint16_t check, const test_bytes_t *packet,
                     test_bytes_t *reply) {
  test_bytes_t wire;
  test_bytes_t raw;
  test_bytes_init(&wire);
  test_bytes_init(&raw);
  wrap(&wire, seq, check, packet);
  rpc_h_send(wire.data, wire.len, 7u);
  assert_int_equal(rpc_h_replies(&raw, 1u), 1u);
  assert_true(raw.len >= UTVM_RPC_SEQ_PREFIX_SIZE + 12u);
  assert_int_equal(rpc_get_u32(raw.data), seq);
  assert_int_equal(rpc_get_u32(&raw.data[4]), (uint32_t)UTVM_RPC_SEQ_TAG << 16);
  test_bytes_clear(reply);
  test_bytes_append(reply, &raw.data[UTVM_RPC_SEQ_PREFIX_SIZE], raw.len - UTVM_RPC_SEQ_PREFIX_SIZE);
  test_bytes_free(&wire);
  test_bytes_free(&raw);
}

static void alloc_packet(test_bytes_t *packet, int64_t nbytes) {
  rpc_args_builder_t b;
  rpc_ab_init(&b);
  rpc_ab_device(&b, 1, 0);
  rpc_ab_int(&b, 0, nbytes);
  rpc_ab_int(&b, 0, 64);
  rpc_ab_dtype(&b, 1u, 8u, 1u);
  rpc_packet_syscall(packet, UTVM_RPC_DEV_ALLOC_DATA, &b);
  rpc_ab_free(&b);
}

static uint64_t free_bytes(uint32_t seq) {
  test_bytes_t packet;
  test_bytes_t reply;
  test_bytes_init(&packet);
  test_bytes_init(&reply);
  rpc_args_builder_t b;
  rpc_ab_init(&b);
  rpc_ab_device(&b, 1, 0);
  rpc_ab_int(&b, 0, 15);
  rpc_packet_syscall(&packet, UTVM_RPC_DEV_GET_ATTR, &b);
  rpc_ab_free(&b);
  seq_call(seq, 0u, &packet, &reply);
  rpc_reply_t r;
  rpc_parse_reply(reply.data, reply.len, &r);
  assert_int_equal(r.code, UTVM_RPC_RETURN);
  uint64_t value = r.values[0].u;
  test_bytes_free(&packet);
  test_bytes_free(&reply);
  return value;
}

/* CRC of the packet's bytes before the payload of a CopyToRemote with n payload bytes. */
static uint16_t header_check(const test_bytes_t *packet, size_t n) {
  return utvm_crc16_update(UTVM_CRC16_INIT, packet->data, packet->len - n);
}

static int setup(void **state) {
  (void)state;
  rpc_h_setup(4096u);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  rpc_h_teardown();
  return 0;
}

static void test_sequence_global(void **state) {
  (void)state;
  uint64_t f = rpc_h_get_global(UTVM_RPC_SEQUENCE_NAME);
  assert_true(f != 0u);
  test_bytes_t packet;
  test_bytes_t reply;
  test_bytes_init(&packet);
  test_bytes_init(&reply);
  rpc_args_builder_t b;
  rpc_ab_init(&b);
  rpc_packet_call(&packet, f, &b);
  rpc_h_call(packet.data, packet.len, &reply);
  assert_int_equal(rpc_expect_call_result(&reply, 0), CACHE_SIZE);
  rpc_ab_free(&b);
  test_bytes_free(&packet);
  test_bytes_free(&reply);
}

/* A repeated DevAllocData gets the same pointer without a second allocation; an older number
 * is dropped without a reply. */
static void test_repeat_and_stale(void **state) {
  (void)state;
  test_bytes_t packet;
  test_bytes_t first;
  test_bytes_t again;
  test_bytes_init(&packet);
  test_bytes_init(&first);
  test_bytes_init(&again);
  uint64_t before = free_bytes(1u);
  alloc_packet(&packet, 4096);
  seq_call(2u, 0u, &packet, &first);
  uint64_t ptr = rpc_expect_handle(&first);
  assert_true(ptr != 0u);
  seq_call(2u, 0u, &packet, &again);
  assert_true(test_bytes_equal(&first, again.data, again.len));
  assert_int_equal(rpc_h_server()->stats.replays, 1u);
  assert_int_equal(free_bytes(3u), before - 4096u);
  /* Number 2 again after 3: stale, dropped; the state is unchanged. */
  test_bytes_t wire;
  test_bytes_init(&wire);
  wrap(&wire, 2u, 0u, &packet);
  rpc_h_expect_no_reply(wire.data, wire.len);
  assert_int_equal(rpc_h_server()->stats.stale, 1u);
  assert_int_equal(free_bytes(4u), before - 4096u);
  /* Numbers order modulo 2^32: up to 2^31 - 1 ahead is new, so 0x80000003, 0xFFFFFFFF and 0
   * follow 4 in turn. */
  assert_int_equal(free_bytes(0x80000003u), before - 4096u);
  assert_int_equal(free_bytes(0xFFFFFFFFu), before - 4096u);
  assert_int_equal(free_bytes(0u), before - 4096u);
  test_bytes_free(&wire);
  test_bytes_free(&packet);
  test_bytes_free(&first);
  test_bytes_free(&again);
}

/* A CopyToRemote whose header check does not match writes nothing (nor does one without a
 * check); a repeated CopyFromRemote larger than the reply cache runs again. */
static void test_copy_header_check_and_rerun(void **state) {
  (void)state;
  uint64_t ptr = rpc_h_alloc(512u);
  uint8_t data[512];
  uint8_t other[512];
  for (size_t i = 0u; i < sizeof(data); i++) {
    data[i] = (uint8_t)(i * 7u + 1u);
    other[i] = (uint8_t)~data[i];
  }
  test_bytes_t packet;
  test_bytes_t reply;
  test_bytes_t read;
  test_bytes_init(&packet);
  test_bytes_init(&reply);
  test_bytes_init(&read);
  rpc_packet_copy_to(&packet, ptr, 512, 0u, data, sizeof(data));
  seq_call(10u, header_check(&packet, sizeof(data)), &packet, &reply);
  rpc_expect_void(&reply);
  rpc_packet_copy_to(&packet, ptr, 512, 0u, other, sizeof(other));
  uint16_t check = header_check(&packet, sizeof(other));
  seq_call(11u, (uint16_t)(check ^ 0x0100u), &packet, &reply);
  assert_non_null(strstr(rpc_expect_exception(&reply), "CopyToRemote: failed its CRC and was not executed"));
  seq_call(12u, 0u, &packet, &reply);
  assert_non_null(strstr(rpc_expect_exception(&reply), "failed its CRC"));
  rpc_packet_copy_from(&read, ptr, 512, 0u, 512u);
  seq_call(13u, 0u, &read, &reply);
  rpc_reply_t r;
  rpc_parse_reply(reply.data, reply.len, &r);
  assert_int_equal(r.code, UTVM_RPC_COPY_ACK);
  assert_int_equal(r.data_len, sizeof(data));
  assert_memory_equal(r.data, data, sizeof(data));
  uint32_t reruns = rpc_h_server()->stats.reruns;
  seq_call(13u, 0u, &read, &reply);
  rpc_parse_reply(reply.data, reply.len, &r);
  assert_memory_equal(r.data, data, sizeof(data));
  assert_int_equal(rpc_h_server()->stats.reruns, reruns + 1u);
  test_bytes_free(&read);
  test_bytes_free(&packet);
  test_bytes_free(&reply);
}

/* A CallFunc whose reply was over the cache is refused when repeated: it ran once. */
static void test_repeat_not_kept(void **state) {
  (void)state;
  uint64_t echo = rpc_h_syslib_function("test_echo");
  char text[CACHE_SIZE + 40u];
  (void)memset(text, 'x', sizeof(text) - 1u);
  text[sizeof(text) - 1u] = '\0';
  rpc_args_builder_t b;
  rpc_ab_init(&b);
  rpc_ab_str(&b, text);
  test_bytes_t packet;
  test_bytes_t reply;
  test_bytes_init(&packet);
  test_bytes_init(&reply);
  rpc_packet_call(&packet, echo, &b);
  seq_call(20u, 0u, &packet, &reply);
  rpc_reply_t r;
  rpc_parse_reply(reply.data, reply.len, &r);
  assert_int_equal(r.code, UTVM_RPC_RETURN);
  seq_call(20u, 0u, &packet, &reply);
  assert_non_null(strstr(rpc_expect_exception(&reply),
                         "CallFunc: repeated; ran once, reply not kept"));
  rpc_ab_free(&b);
  test_bytes_free(&packet);
  test_bytes_free(&reply);
}

/* A numbered request in a frame with a bad CRC is answered "not executed" under its number and
 * not remembered: the same number then runs. Plain packets still get plain replies. */
static void test_damaged_frame_and_plain_packets(void **state) {
  (void)state;
  uint64_t before = free_bytes(30u);
  test_bytes_t packet;
  test_bytes_t wire;
  test_bytes_t frame;
  test_bytes_t raw;
  test_bytes_init(&packet);
  test_bytes_init(&wire);
  test_bytes_init(&frame);
  test_bytes_init(&raw);
  alloc_packet(&packet, 1024);
  wrap(&wire, 31u, 0u, &packet);
  utvm_rpc_server_t *server = rpc_h_server();
  rpc_h_frame(&frame, utvm_session_id(&server->session), UTVM_MSG_NORMAL, wire.data, wire.len,
              0x5A5Au);
  rpc_h_feed(frame.data, frame.len, 0u);
  assert_int_equal(rpc_h_replies(&raw, 1u), 1u);
  assert_int_equal(rpc_get_u32(raw.data), 31u);
  test_bytes_t reply;
  test_bytes_init(&reply);
  test_bytes_append(&reply, &raw.data[UTVM_RPC_SEQ_PREFIX_SIZE], raw.len - UTVM_RPC_SEQ_PREFIX_SIZE);
  assert_non_null(strstr(rpc_expect_exception(&reply), "was not executed"));
  assert_int_equal(free_bytes(32u), before);
  seq_call(33u, 0u, &packet, &reply);
  assert_true(rpc_expect_handle(&reply) != 0u);
  assert_int_equal(free_bytes(34u), before - 1024u);
  rpc_h_call(packet.data, packet.len, &reply); /* plain: TVM's form */
  assert_true(rpc_expect_handle(&reply) != 0u);
  assert_int_equal(free_bytes(35u), before - 2048u);
  test_bytes_free(&packet);
  test_bytes_free(&wire);
  test_bytes_free(&frame);
  test_bytes_free(&raw);
  test_bytes_free(&reply);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_sequence_global, setup, teardown),
      cmocka_unit_test_setup_teardown(test_repeat_and_stale, setup, teardown),
      cmocka_unit_test_setup_teardown(test_copy_header_check_and_rerun, setup, teardown),
      cmocka_unit_test_setup_teardown(test_repeat_not_kept, setup, teardown),
      cmocka_unit_test_setup_teardown(test_damaged_frame_and_plain_packets, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* CRC-16/CCITT-FALSE (PROTOCOL.md 1.4): check values, incremental use, and agreement with
 * a bitwise reference written here from the algorithm's definition. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "utvm/framing.h"

/* The bit-at-a-time definition of PROTOCOL.md 1.4. */
static uint16_t reference_crc16(uint16_t crc, const uint8_t *data, size_t n) {
  uint32_t c = crc;
  for (size_t i = 0u; i < n; i++) {
    c ^= (uint32_t)data[i] << 8;
    for (int bit = 0; bit < 8; bit++) {
      c = ((c & 0x8000u) != 0u) ? ((c << 1) ^ 0x1021u) : (c << 1);
      c &= 0xFFFFu;
    }
  }
  return (uint16_t)c;
}

static void fill_pattern(uint8_t *buf, size_t n) {
  uint32_t x = 0x12345678u;
  for (size_t i = 0u; i < n; i++) {
    x = (x * 1103515245u) + 12345u;
    buf[i] = (uint8_t)(x >> 23);
  }
}

static void test_check_value(void **state) {
  (void)state;
  static const char check[] = "123456789";
  assert_int_equal(utvm_crc16_update(UTVM_CRC16_INIT, (const uint8_t *)check, 9u), 0x29B1u);
}

static void test_start_sequence(void **state) {
  (void)state;
  static const uint8_t start[2] = {0xFFu, 0xFDu};
  assert_int_equal(utvm_crc16_update(UTVM_CRC16_INIT, start, sizeof(start)), 0x2042u);
}

static void test_empty_input_keeps_value(void **state) {
  (void)state;
  static const uint8_t unused = 0u;
  assert_int_equal(utvm_crc16_update(UTVM_CRC16_INIT, &unused, 0u), UTVM_CRC16_INIT);
  assert_int_equal(utvm_crc16_update(0x1234u, &unused, 0u), 0x1234u);
}

static void test_every_single_byte_matches_reference(void **state) {
  (void)state;
  static const uint16_t seeds[] = {UTVM_CRC16_INIT, 0x0000u, 0x8000u, 0x29B1u, 0x5A5Au};
  for (size_t s = 0u; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
    for (uint32_t b = 0u; b < 256u; b++) {
      uint8_t byte = (uint8_t)b;
      assert_int_equal(utvm_crc16_update(seeds[s], &byte, 1u),
                       reference_crc16(seeds[s], &byte, 1u));
    }
  }
}

static void test_long_buffer_matches_reference(void **state) {
  (void)state;
  uint8_t buf[4096];
  fill_pattern(buf, sizeof(buf));
  memset(&buf[1000], 0xFF, 300u);
  assert_int_equal(utvm_crc16_update(UTVM_CRC16_INIT, buf, sizeof(buf)),
                   reference_crc16(UTVM_CRC16_INIT, buf, sizeof(buf)));
}

/* Splitting the input at any point, or feeding it byte by byte, gives the one-shot value. */
static void test_incremental_equals_one_shot(void **state) {
  (void)state;
  uint8_t buf[300];
  fill_pattern(buf, sizeof(buf));
  buf[7] = 0xFFu;
  buf[8] = 0xFDu;
  uint16_t one_shot = utvm_crc16_update(UTVM_CRC16_INIT, buf, sizeof(buf));
  for (size_t split = 0u; split <= sizeof(buf); split++) {
    uint16_t crc = utvm_crc16_update(UTVM_CRC16_INIT, buf, split);
    crc = utvm_crc16_update(crc, &buf[split], sizeof(buf) - split);
    assert_int_equal(crc, one_shot);
  }
  for (size_t first = 0u; first <= 40u; first++) {
    for (size_t second = first; second <= 40u; second++) {
      uint16_t crc = utvm_crc16_update(UTVM_CRC16_INIT, buf, first);
      crc = utvm_crc16_update(crc, &buf[first], second - first);
      crc = utvm_crc16_update(crc, &buf[second], sizeof(buf) - second);
      assert_int_equal(crc, one_shot);
    }
  }
  uint16_t crc = UTVM_CRC16_INIT;
  for (size_t i = 0u; i < sizeof(buf); i++) {
    crc = utvm_crc16_update(crc, &buf[i], 1u);
  }
  assert_int_equal(crc, one_shot);

  static const char check[] = "123456789";
  for (size_t split = 0u; split <= 9u; split++) {
    uint16_t c = utvm_crc16_update(UTVM_CRC16_INIT, (const uint8_t *)check, split);
    c = utvm_crc16_update(c, (const uint8_t *)&check[split], 9u - split);
    assert_int_equal(c, 0x29B1u);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_check_value),
    cmocka_unit_test(test_start_sequence),
    cmocka_unit_test(test_empty_input_keeps_value),
    cmocka_unit_test(test_every_single_byte_matches_reference),
    cmocka_unit_test(test_long_buffer_matches_reference),
    cmocka_unit_test(test_incremental_equals_one_shot),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

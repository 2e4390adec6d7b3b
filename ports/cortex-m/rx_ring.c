/*
 * Receive ring: single producer (the UART RX interrupt), single consumer (the main loop).
 * Flow control: on a full ring the producer masks its interrupt and leaves the byte in the
 * UART; the consumer unmasks it once it has made room.
 * Indices run freely modulo 2^32; the producer only writes ring_head, the consumer only
 * ring_tail, so no lock is needed on a single core. Port state (statics): the ring is shared
 * between an interrupt handler and the main loop, which have no common context argument.
 */
#include "cortex_m.h"
#include "port.h"

#if (UTVM_PORT_RX_RING_SIZE & (UTVM_PORT_RX_RING_SIZE - 1u)) != 0u
#error "UTVM_PORT_RX_RING_SIZE must be a power of two"
#endif

static uint8_t ring[UTVM_PORT_RX_RING_SIZE];
static volatile uint32_t ring_head; /* next write position (interrupt) */
static volatile uint32_t ring_tail; /* next read position (main loop) */
static volatile uint32_t ring_dropped;
/* Set by the interrupt side when it masked the UART interrupt on a full ring; cleared by the
 * main loop when it unmasks it. */
static volatile bool rx_paused;

void utvm_port_rx_push(uint8_t byte) {
  uint32_t head = ring_head;
  if ((head - ring_tail) >= UTVM_PORT_RX_RING_SIZE) {
    ring_dropped = ring_dropped + 1u;
    return;
  }
  ring[head & (UTVM_PORT_RX_RING_SIZE - 1u)] = byte;
  __asm__ volatile("" ::: "memory"); /* byte stored before the index is published */
  ring_head = head + 1u;
}

bool utvm_port_rx_pause_if_full(void) {
  if ((ring_head - ring_tail) < UTVM_PORT_RX_RING_SIZE) {
    return false;
  }
  utvm_nvic_disable(UTVM_BOARD_UART_IRQ);
  rx_paused = true;
  return true;
}

size_t utvm_port_rx_take(uint8_t *dst, size_t max) {
  uint32_t tail = ring_tail;
  uint32_t available = ring_head - tail;
  size_t n = (available < max) ? (size_t)available : max;
  __asm__ volatile("" ::: "memory"); /* index read before the bytes */
  for (size_t i = 0u; i < n; i++) {
    dst[i] = ring[(tail + (uint32_t)i) & (UTVM_PORT_RX_RING_SIZE - 1u)];
  }
  __asm__ volatile("" ::: "memory"); /* bytes copied before the slots are released */
  ring_tail = tail + (uint32_t)n;
  if (rx_paused && (n > 0u)) {
    /* The handler cannot run while masked, so it cannot race this. Set pending as well: a
     * UART whose interrupt status the handler already cleared would not raise it again. */
    rx_paused = false;
    utvm_nvic_enable(UTVM_BOARD_UART_IRQ);
    utvm_nvic_set_pending(UTVM_BOARD_UART_IRQ);
  }
  return n;
}

bool utvm_port_rx_empty(void) { return ring_head == ring_tail; }

uint32_t utvm_port_rx_dropped(void) { return ring_dropped; }

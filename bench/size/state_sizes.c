/*
 * Compiled (not linked) by bench/run.sh for each Cortex-M preset: the symbol sizes that
 * arm-none-eabi-nm reports are the sizes of the caller-owned state structs on that target.
 */
#include <stdint.h>

#include "utvm/framing.h"
#include "utvm/session.h"

uint8_t sizeof_utvm_framer_t[sizeof(utvm_framer_t)];
uint8_t sizeof_utvm_unframer_t[sizeof(utvm_unframer_t)];
uint8_t sizeof_utvm_session_t[sizeof(utvm_session_t)];

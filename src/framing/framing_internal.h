/* Constants shared by the framing encoder and decoder (not part of the public API). */
#ifndef UTVM_FRAMING_INTERNAL_H
#define UTVM_FRAMING_INTERNAL_H

#include "utvm/framing.h"

#define UTVM_FRAMING_ESCAPE 0xFFu     /* escape introducer; ff ff is one data byte 0xff */
#define UTVM_FRAMING_START 0xFDu      /* ff fd: packet start */
#define UTVM_FRAMING_NOP 0xFEu        /* ff fe: no-op */
#define UTVM_FRAMING_NOP_PREFIX 0xFEu /* bare byte sent before a framer's first packet */

/* CRC-16/CCITT-FALSE of the start sequence ff fd, where every packet's CRC begins
 * (test_crc16 checks the value). */
#define UTVM_FRAMING_START_CRC 0x2042u

#endif /* UTVM_FRAMING_INTERNAL_H */

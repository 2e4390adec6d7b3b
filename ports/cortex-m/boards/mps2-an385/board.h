/* MPS2 with the AN385 FPGA image (Cortex-M3), as modelled by QEMU hw/arm/mps2.c. */
#ifndef UTVM_BOARD_H
#define UTVM_BOARD_H

#define UTVM_BOARD_NAME "mps2-an385"
#include "../mps2/mps2.h"

#endif /* UTVM_BOARD_H */

/* MPS2 with the AN386 FPGA image (Cortex-M4F), as modelled by QEMU hw/arm/mps2.c. */
#ifndef UTVM_BOARD_H
#define UTVM_BOARD_H

#define UTVM_BOARD_NAME "mps2-an386"
#include "../mps2/mps2.h"

#endif /* UTVM_BOARD_H */

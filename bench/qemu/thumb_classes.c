/*
 * Thumb/Thumb-2 instruction classes and the cycle model (see thumb_classes.h). Decoding
 * follows the encoding tables of the ARMv7-M and ARMv8.1-M Architecture Reference Manuals
 * (A5.2 16-bit, A5.3 32-bit); bench/qemu/check_classes.py checks it against binutils'
 * disassembly of the project's firmware for the three cores.
 */
#include "thumb_classes.h"

#include <string.h>

static const char *const kClassNames[THUMB_CLASS_COUNT] = {
    "alu",  "dsp",   "mul",        "mac",         "mull",   "mlal",   "div",
    "load", "store", "load_multi", "store_multi", "branch", "fp_alu", "fp_mac",
    "fp_div", "fp_mem", "mve_mem", "mve_alu", "other"};

const char *thumb_class_name(thumb_class_t cls) {
  return (cls < THUMB_CLASS_COUNT) ? kClassNames[cls] : "?";
}

static uint8_t popcount16(uint32_t v) {
  uint8_t n = 0;
  for (unsigned i = 0; i < 16u; i++) {
    n = (uint8_t)(n + ((v >> i) & 1u));
  }
  return n;
}

static void set(thumb_insn_t *out, thumb_class_t cls, uint8_t registers) {
  out->cls = cls;
  out->registers = registers;
}

static void classify16(uint32_t hw, thumb_insn_t *out) {
  uint32_t op = hw >> 10;
  if (op < 0x10u) {
    set(out, THUMB_ALU, 0); /* shift, add, subtract, move, compare (immediate) */
  } else if (op == 0x10u) {
    set(out, ((hw & 0xFFC0u) == 0x4340u) ? THUMB_MUL : THUMB_ALU, 0);
  } else if (op == 0x11u) {
    uint32_t sub = (hw >> 8) & 3u;
    uint32_t rd = ((hw >> 4) & 8u) | (hw & 7u);
    /* BX/BLX, or ADD/MOV with the PC as destination */
    set(out, ((sub == 3u) || ((sub != 1u) && (rd == 15u))) ? THUMB_BRANCH : THUMB_ALU, 0);
  } else if (op <= 0x13u) {
    set(out, THUMB_LOAD, 0); /* LDR (literal) */
  } else if (op <= 0x17u) {
    set(out, (((hw >> 9) & 7u) < 3u) ? THUMB_STORE : THUMB_LOAD, 0);
  } else if (op <= 0x27u) {
    set(out, ((hw & 0x0800u) != 0u) ? THUMB_LOAD : THUMB_STORE, 0);
  } else if (op <= 0x2Bu) {
    set(out, THUMB_ALU, 0); /* ADR, ADD (SP plus immediate) */
  } else if (op <= 0x2Fu) {
    if ((hw & 0xF500u) == 0xB100u) {
      set(out, THUMB_BRANCH, 0); /* CBZ, CBNZ */
    } else if ((hw & 0xFE00u) == 0xB400u) {
      set(out, THUMB_STORE_MULTI, popcount16(hw & 0x1FFu)); /* PUSH */
    } else if ((hw & 0xFE00u) == 0xBC00u) {
      set(out, ((hw & 0x100u) != 0u) ? THUMB_BRANCH : THUMB_LOAD_MULTI,
          popcount16(hw & 0x1FFu)); /* POP */
    } else if (((hw & 0xFE00u) == 0xBE00u) || ((hw & 0xFFE8u) == 0xB660u)) {
      set(out, THUMB_OTHER, 0); /* IT, hints, BKPT, CPS */
    } else {
      set(out, THUMB_ALU, 0); /* ADD/SUB SP, extends, REV */
    }
  } else if (op <= 0x31u) {
    set(out, THUMB_STORE_MULTI, popcount16(hw & 0xFFu)); /* STM */
  } else if (op <= 0x33u) {
    set(out, THUMB_LOAD_MULTI, popcount16(hw & 0xFFu)); /* LDM */
  } else if (op <= 0x37u) {
    set(out, (((hw >> 9) & 7u) == 7u) ? THUMB_OTHER : THUMB_BRANCH, 0); /* B<c>; UDF, SVC */
  } else {
    set(out, THUMB_BRANCH, 0); /* B */
  }
}

/* Coprocessor space (1110 11xx, 1111 11xx): FP (coprocessors 10 and 11) or MVE. */
static void classify_coprocessor(uint32_t hw1, uint32_t hw2, thumb_insn_t *out) {
  int memory = (hw1 & 0x0200u) == 0u;
  /* coprocessors 10 and 11, outside the 1111 x1111 space that only MVE uses */
  int fp = (((hw2 >> 9) & 7u) == 5u) && ((hw1 & 0x0F00u) != 0x0F00u);
  /* VDUP shares the FP register-transfer space */
  int vdup = ((hw1 & 0xFF90u) == 0xEE80u) && ((hw2 & 0x0F50u) == 0x0B10u);
  if (!fp || vdup) {
    set(out, memory ? THUMB_MVE_MEM : THUMB_MVE_ALU, 0);
  } else if (memory) {
    if ((hw1 & 0xFFE0u) == 0xEC40u) {
      set(out, THUMB_FP_ALU, 0); /* VMOV between two core registers and FP registers */
    } else if ((hw1 & 0xFF20u) == 0xED00u) {
      set(out, THUMB_FP_MEM, 1); /* VLDR, VSTR */
    } else {
      uint32_t words = hw2 & 0xFFu; /* VLDM, VSTM, VPUSH, VPOP: imm8 words */
      set(out, THUMB_FP_MEM, (uint8_t)((words == 0u) ? 1u : words));
    }
  } else if (((hw2 & 0x10u) != 0u) || ((hw1 & 0x1000u) != 0u)) {
    /* VMOV core <-> FP, VMRS, VMSR; ARMv8 VSEL, VMAXNM, VRINT, VCVTA (1111 1110) */
    set(out, THUMB_FP_ALU, 0);
  } else {
    uint32_t opc1 = (hw1 >> 4) & 0xBu;
    uint32_t opc2 = hw1 & 0xFu;
    if ((opc1 == 0u) || (opc1 == 1u) || (opc1 == 9u) || (opc1 == 0xAu)) {
      set(out, THUMB_FP_MAC, 0); /* VMLA, VMLS, VNMLA, VNMLS, VFMA, VFMS, VFNMA, VFNMS */
    } else if ((opc1 == 8u) || ((opc1 == 0xBu) && (opc2 == 1u) && ((hw2 & 0xC0u) == 0xC0u))) {
      set(out, THUMB_FP_DIV, 0); /* VDIV, VSQRT */
    } else {
      set(out, THUMB_FP_ALU, 0);
    }
  }
}

/* 1110 100x: load/store multiple, dual, exclusive, table branch. */
static void classify_multiple(uint32_t hw1, uint32_t hw2, thumb_insn_t *out) {
  int load = (hw1 & 0x0010u) != 0u;
  if ((hw1 & 0x0040u) == 0u) {
    uint8_t n = popcount16(hw2);
    if (load && ((hw2 & 0x8000u) != 0u)) {
      set(out, THUMB_BRANCH, n); /* LDM with the PC */
    } else {
      set(out, load ? THUMB_LOAD_MULTI : THUMB_STORE_MULTI, n);
    }
    return;
  }
  uint32_t op1 = (hw1 >> 7) & 3u;
  uint32_t op2 = (hw1 >> 4) & 3u;
  if ((op1 >= 2u) || (op2 >= 2u)) {
    set(out, load ? THUMB_LOAD_MULTI : THUMB_STORE_MULTI, 2); /* LDRD, STRD */
  } else if ((op1 == 1u) && (op2 == 1u) && ((hw2 & 0xFFE0u) == 0xF000u)) {
    set(out, THUMB_BRANCH, 0); /* TBB, TBH */
    out->extra = 1;
  } else {
    set(out, load ? THUMB_LOAD : THUMB_STORE, 0); /* LDREX*, STREX* */
  }
}

/* 1111 0xxx with hw2[15] set: branches, miscellaneous control, low-overhead loops. */
static void classify_control(uint32_t hw1, uint32_t hw2, thumb_insn_t *out) {
  if (((hw1 & 0xFFCFu) == 0xF00Fu) && ((hw2 & 0xF001u) == 0xC001u)) {
    set(out, THUMB_BRANCH, 0); /* LE, LETP */
    out->loop_end = 1;
  } else if (((hw1 & 0xFFC0u) == 0xF040u) && ((hw2 & 0xF001u) == 0xC001u)) {
    set(out, THUMB_BRANCH, 0); /* WLS, WLSTP */
  } else if ((hw2 & 0x5000u) == 0x0000u) {
    /* B<c> (T3), or MSR, MRS, hints, barriers when the condition field is 111x */
    set(out, (((hw1 >> 7) & 7u) == 7u) ? THUMB_OTHER : THUMB_BRANCH, 0);
  } else if ((hw2 & 0x1000u) != 0u) {
    set(out, THUMB_BRANCH, 0); /* B (T4), BL */
  } else {
    set(out, THUMB_OTHER, 0); /* DLS, DLSTP, VCTP and other ARMv8.1-M control */
  }
}

/* 1111 1010: data processing (register): shifts, extends, parallel add/subtract, misc. */
static void classify_register(uint32_t hw1, uint32_t hw2, thumb_insn_t *out) {
  if ((hw1 & 0x0080u) != 0u) {
    /* parallel add/subtract (hw2[7] clear) or QADD, REV, SEL, CLZ */
    set(out, ((hw2 & 0x0080u) == 0u) ? THUMB_DSP : THUMB_ALU, 0);
  } else {
    uint32_t op1 = (hw1 >> 4) & 7u;
    int extend = (hw2 & 0x0080u) != 0u;
    set(out, (extend && ((op1 == 2u) || (op1 == 3u))) ? THUMB_DSP : THUMB_ALU, 0);
  }
}

/* 1111 1011: multiplies, multiply-accumulates, long multiplies, divides. */
static void classify_multiply(uint32_t hw1, uint32_t hw2, thumb_insn_t *out) {
  uint32_t op1 = (hw1 >> 4) & 7u;
  int accumulate = ((hw2 >> 12) & 0xFu) != 0xFu;
  if ((hw1 & 0x0080u) == 0u) {
    if (op1 == 7u) {
      set(out, THUMB_DSP, 0); /* USAD8, USADA8 */
    } else if ((op1 == 0u) && ((hw2 & 0x30u) == 0x10u)) {
      set(out, THUMB_MAC, 0); /* MLS */
    } else {
      set(out, accumulate ? THUMB_MAC : THUMB_MUL, 0);
    }
  } else if ((op1 == 1u) || (op1 == 3u)) {
    set(out, THUMB_DIV, 0);
  } else {
    set(out, (op1 >= 4u) ? THUMB_MLAL : THUMB_MULL, 0);
  }
}

/* 1111 100x: single loads and stores; a load to the PC is a branch, one of Rt = PC that is
 * not a word load a preload hint. */
static void classify_single(uint32_t hw1, uint32_t hw2, thumb_insn_t *out) {
  if ((hw1 & 0x0010u) == 0u) {
    set(out, THUMB_STORE, 0);
  } else if (((hw2 >> 12) & 0xFu) != 0xFu) {
    set(out, THUMB_LOAD, 0);
  } else if (((hw1 >> 5) & 3u) == 2u) {
    set(out, THUMB_BRANCH, 0); /* LDR pc */
    out->extra = 1;
  } else {
    set(out, THUMB_OTHER, 0); /* PLD, PLI */
  }
}

static void classify32(uint32_t hw1, uint32_t hw2, thumb_insn_t *out) {
  uint32_t op1 = (hw1 >> 11) & 3u;
  if (op1 == 1u) {
    if ((hw1 & 0x0600u) == 0u) {
      classify_multiple(hw1, hw2, out);
    } else if ((hw1 & 0x0600u) == 0x0200u) {
      set(out, ((hw1 & 0xFFE0u) == 0xEAC0u) ? THUMB_DSP : THUMB_ALU, 0); /* PKH / others */
    } else {
      classify_coprocessor(hw1, hw2, out);
    }
  } else if (op1 == 2u) {
    if ((hw2 & 0x8000u) == 0u) {
      set(out, THUMB_ALU, 0); /* data processing (immediate) */
    } else {
      classify_control(hw1, hw2, out);
    }
  } else if ((hw1 & 0x0600u) == 0u) {
    classify_single(hw1, hw2, out);
  } else if ((hw1 & 0x0700u) == 0x0200u) {
    classify_register(hw1, hw2, out);
  } else if ((hw1 & 0x0700u) == 0x0300u) {
    classify_multiply(hw1, hw2, out);
  } else {
    classify_coprocessor(hw1, hw2, out);
  }
}

void thumb_classify(const uint8_t *bytes, size_t size, thumb_insn_t *out) {
  (void)memset(out, 0, sizeof(*out));
  uint32_t hw1 = (uint32_t)bytes[0] | ((uint32_t)bytes[1] << 8);
  if (size >= 4u && (hw1 >> 11) >= 0x1Du) {
    uint32_t hw2 = (uint32_t)bytes[2] | ((uint32_t)bytes[3] << 8);
    out->size = 4;
    classify32(hw1, hw2, out);
  } else {
    out->size = 2;
    classify16(hw1, out);
  }
}

int cortex_core_parse(const char *name, cortex_core_t *core) {
  if (strcmp(name, "m3") == 0) {
    *core = CORE_M3;
  } else if (strcmp(name, "m4") == 0) {
    *core = CORE_M4;
  } else if (strcmp(name, "m55") == 0) {
    *core = CORE_M55;
  } else {
    return -1;
  }
  return 0;
}

/* Pipeline refill after a taken branch: the TRMs give 1 to 3 cycles (target alignment and
 * width, early speculation); the model takes the middle. */
#define REFILL_CYCLES 2u

static int is_single_memory(thumb_class_t cls) {
  return (cls == THUMB_LOAD) || (cls == THUMB_STORE);
}

static int is_mve(thumb_class_t cls) { return (cls == THUMB_MVE_MEM) || (cls == THUMB_MVE_ALU); }

uint32_t cortex_cycles(cortex_core_t core, const thumb_insn_t *insn, thumb_class_t prev,
                       int taken) {
  int m3 = core == CORE_M3;
  switch (insn->cls) {
  case THUMB_MAC:
    return m3 ? 2u : 1u;
  case THUMB_MULL:
    return m3 ? 4u : 1u; /* M3: 3 to 5 */
  case THUMB_MLAL:
    return m3 ? 5u : 1u; /* M3: 4 to 7 */
  case THUMB_DIV:
    return 7u; /* 2 to 12, by the operands' leading bits */
  case THUMB_LOAD:
  case THUMB_STORE:
    /* neighbouring single loads and stores pipeline their address and data phases */
    return is_single_memory(prev) ? 1u : 2u;
  case THUMB_LOAD_MULTI:
  case THUMB_STORE_MULTI:
    return 1u + insn->registers;
  case THUMB_BRANCH:
    if (!taken) {
      return 1u;
    }
    if (insn->loop_end && (core == CORE_M55)) {
      return 1u; /* LE from the loop cache: no refill */
    }
    return 1u + insn->registers + insn->extra + REFILL_CYCLES;
  case THUMB_FP_MAC:
    return 3u;
  case THUMB_FP_DIV:
    return 14u;
  case THUMB_FP_MEM:
    if (insn->registers > 1u) {
      return 1u + insn->registers;
    }
    return is_single_memory(prev) || (prev == THUMB_FP_MEM) ? 1u : 2u;
  case THUMB_MVE_MEM:
  case THUMB_MVE_ALU:
    /* dual-beat: a 128-bit instruction takes 2 cycles; it overlaps with an MVE instruction
     * of the other kind (memory after arithmetic or arithmetic after memory) */
    return (is_mve(prev) && (prev != insn->cls)) ? 1u : 2u;
  default:
    return 1u;
  }
}

/*
 * Instruction classes of the Thumb/Thumb-2 instruction set (ARMv7-M, its DSP and FP
 * extensions, ARMv8.1-M MVE and low-overhead loops) and a cycle model per Cortex-M core, for
 * the QEMU plugin bench/qemu/insn_plugin.c. Host code (bench tool), C99.
 */
#ifndef UTVM_BENCH_THUMB_CLASSES_H
#define UTVM_BENCH_THUMB_CLASSES_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
  THUMB_ALU,         /* data processing, moves, shifts, extends, bit fields, saturation */
  THUMB_DSP,         /* SIMD of the DSP extension: parallel add/sub, SXTB16, PKH, USAD8 */
  THUMB_MUL,         /* 32-bit product without accumulation (MUL, SMULxy, SMUAD, SMMUL) */
  THUMB_MAC,         /* 32-bit multiply-accumulate (MLA, MLS, SMLAxy, SMLAD, SMMLA) */
  THUMB_MULL,        /* 64-bit product (SMULL, UMULL) */
  THUMB_MLAL,        /* 64-bit multiply-accumulate (SMLAL, UMLAL, SMLALD, UMAAL) */
  THUMB_DIV,         /* SDIV, UDIV */
  THUMB_LOAD,        /* single load (LDR*, LDREX) */
  THUMB_STORE,       /* single store (STR*, STREX) */
  THUMB_LOAD_MULTI,  /* LDM, POP, LDRD: `registers` words */
  THUMB_STORE_MULTI, /* STM, PUSH, STRD: `registers` words */
  THUMB_BRANCH,      /* anything that may write the PC */
  THUMB_FP_ALU,      /* FP add, multiply, convert, compare, moves */
  THUMB_FP_MAC,      /* FP multiply-accumulate (VMLA, VFMA, ...) */
  THUMB_FP_DIV,      /* VDIV, VSQRT */
  THUMB_FP_MEM,      /* VLDR, VSTR, VLDM, VSTM, VPUSH, VPOP: `registers` words */
  THUMB_MVE_MEM,     /* MVE vector loads and stores */
  THUMB_MVE_ALU,     /* MVE vector data processing (beat-wise) */
  THUMB_OTHER,       /* IT, hints, barriers, system, low-overhead loop start */
  THUMB_CLASS_COUNT
} thumb_class_t;

/* One decoded instruction. */
typedef struct {
  thumb_class_t cls;
  uint8_t size;        /* 2 or 4 bytes */
  uint8_t registers;   /* words moved by a multiple load/store (0 otherwise) */
  uint8_t loop_end;    /* 1 for LE/LETP (low-overhead loop end, a branch) */
  uint8_t extra;       /* fixed cycles beyond the class's cost when taken: 1 for LDR pc and
                          TBB/TBH (a load before the refill), 0 otherwise */
} thumb_insn_t;

/* Decodes the instruction at `bytes` (little-endian halfwords, `size` 2 or 4 as QEMU reports
 * it) into *out. Unknown encodings are THUMB_OTHER. Never fails. */
void thumb_classify(const uint8_t *bytes, size_t size, thumb_insn_t *out);

/* Short lower-case name of a class ("alu", "mve_mem"), for reports. */
const char *thumb_class_name(thumb_class_t cls);

typedef enum { CORE_M3, CORE_M4, CORE_M55 } cortex_core_t;

/* Parses "m3", "m4" or "m55"; returns 0 on success, -1 otherwise. */
int cortex_core_parse(const char *name, cortex_core_t *core);

/* Cycles of `insn` on `core` given the class of the instruction executed before it (`prev`,
 * THUMB_CLASS_COUNT when none) and whether it was a taken branch (`taken`: the next
 * instruction executed was not the one after it). A model built from the cores' Technical
 * Reference Manual timings with zero wait states: see bench/qemu/README.md. */
uint32_t cortex_cycles(cortex_core_t core, const thumb_insn_t *insn, thumb_class_t prev,
                       int taken);

#endif

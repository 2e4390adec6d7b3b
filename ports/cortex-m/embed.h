/* Embedding files into a Cortex-M image at build time (used by the model test images). */
#ifndef UTVM_CORTEX_M_EMBED_H
#define UTVM_CORTEX_M_EMBED_H

#include <stdint.h>

/* Embeds file (a path string literal) as a 16-byte aligned read-only symbol <sym> with its end
 * at <sym>_end; a zero byte follows the end (not part of the file). */
#define UTVM_EMBED(sym, file)                                                                  \
  __asm__(".section .rodata." #sym ",\"a\"\n.balign 16\n.global " #sym "\n" #sym ":\n"       \
          ".incbin \"" file "\"\n.global " #sym "_end\n" #sym "_end:\n"                        \
          ".byte 0\n.previous\n");                                                           \
  extern const uint8_t sym[];                                                                  \
  extern const uint8_t sym##_end[]

#endif /* UTVM_CORTEX_M_EMBED_H */

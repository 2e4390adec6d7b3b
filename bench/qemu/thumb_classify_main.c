/*
 * thumb_classify: the instruction classes of bench/qemu/thumb_classes.c for a list of
 * encodings, for bench/qemu/check_classes.py.
 *
 *   thumb_classify < encodings      (one instruction per line, as objdump prints it: "4770"
 *                                    or "f8d3 2004"; prints "<class> <registers>" per line)
 */
#include <stdio.h>
#include <stdlib.h>

#include "thumb_classes.h"

int main(void) {
  char line[128];
  while (fgets(line, sizeof(line), stdin) != NULL) {
    unsigned hw1 = 0, hw2 = 0;
    int fields = sscanf(line, "%x %x", &hw1, &hw2);
    if (fields < 1 || hw1 > 0xFFFFu || hw2 > 0xFFFFu) {
      fprintf(stderr, "thumb_classify: bad line: %s", line);
      return 1;
    }
    uint8_t bytes[4] = {(uint8_t)hw1, (uint8_t)(hw1 >> 8), (uint8_t)hw2, (uint8_t)(hw2 >> 8)};
    thumb_insn_t insn;
    thumb_classify(bytes, fields == 2 ? 4u : 2u, &insn);
    if ((fields == 2) != (insn.size == 4u)) {
      printf("size-mismatch %u\n", insn.registers);
    } else {
      printf("%s %u\n", thumb_class_name(insn.cls), insn.registers);
    }
  }
  return 0;
}

#!/usr/bin/python3
"""Sums an insn_plugin profile (profile=FILE: "ADDR INSTRUCTIONS CYCLES" per address) per
function of the ELF it ran, and prints the hottest functions with their share; with --lines N,
also the N hottest addresses with their source line (addr2line) and instruction.

Usage: profile.py ELF PROFILE [--top N] [--lines N]
"""

import bisect
import subprocess
import sys


def functions(elf):
    out = subprocess.run(["arm-none-eabi-nm", "-S", "--defined-only", elf], capture_output=True,
                         text=True, check=True).stdout
    spans = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "tTwW":
            start = int(fields[0], 16) & ~1
            spans.append((start, start + int(fields[1], 16), fields[3]))
    spans.sort()
    return spans


def main():
    elf, path = sys.argv[1], sys.argv[2]
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 25
    lines = int(sys.argv[sys.argv.index("--lines") + 1]) if "--lines" in sys.argv else 0
    spans = functions(elf)
    starts = [s[0] for s in spans]
    per_function = {}
    rows = []
    for line in open(path):
        addr, insns, cycles = line.split()
        addr, insns, cycles = int(addr, 16), int(insns), int(cycles)
        rows.append((insns, cycles, addr))
        i = bisect.bisect_right(starts, addr) - 1
        name = spans[i][2] if i >= 0 and addr < spans[i][1] else "?"
        total = per_function.setdefault(name, [0, 0])
        total[0] += insns
        total[1] += cycles
    all_insns = sum(r[0] for r in rows)
    all_cycles = sum(r[1] for r in rows)
    print("%d instructions, %d cycles" % (all_insns, all_cycles))
    print("%12s %6s %12s %6s  function" % ("instructions", "%", "cycles", "%"))
    for name, (insns, cycles) in sorted(per_function.items(), key=lambda kv: -kv[1][0])[:top]:
        print("%12d %5.1f%% %12d %5.1f%%  %s" % (insns, 100.0 * insns / all_insns, cycles,
                                               100.0 * cycles / max(all_cycles, 1), name))
    if lines:
        hot = sorted(rows, reverse=True)[:lines]
        where = subprocess.run(["arm-none-eabi-addr2line", "-e", elf, "-f", "-s"] +
                               ["0x%x" % r[2] for r in hot], capture_output=True, text=True,
                               check=True).stdout.split("\n")
        for k, (insns, cycles, addr) in enumerate(hot):
            print("%08x %12d %12d  %s %s" % (addr, insns, cycles, where[2 * k],
                                            where[2 * k + 1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

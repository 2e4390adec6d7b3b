#!/usr/bin/python3
"""The instruction-class plugin (bench/qemu/insn_plugin.c) on a real run: boots the standalone
KWS image under QEMU with the plugin counting between the two reads of the SysTick clock around
the inference, and checks the counts against what the image measures itself and against each
other: the region's instructions within 64 of the image's SysTick-derived count (-icount
shift=0: 1 ns per instruction, 40 ns per tick at 25 MHz), the classes summing to the total,
taken plus not-taken equal to the branches, cycles at least the instructions, and the classes a
core may execute (no DSP, FP or MVE on M3; DSP on M4; MVE on M55).

Usage: test_insn_plugin.py PLUGIN BOARD CORE ELF
"""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(HERE, "..", "..", "bench", "qemu", "plugin_run.py")


def main():
    plugin, board, core, elf = sys.argv[1:5]
    out = subprocess.run([sys.executable, RUN, plugin, board, core, elf, "utvm_port_ticks"],
                         capture_output=True, text=True, timeout=600).stdout
    print(out, end="")
    model = re.search(r"^model \S+: .*?(\d+) instructions", out, re.M)
    regions = [l.split() for l in out.splitlines() if l.startswith("region ")]
    if model is None or len(regions) != 1:
        print("FAIL: expected one model line and one region")
        return 1
    fields = regions[0]
    counts = {fields[i]: int(fields[i + 1]) for i in range(2, len(fields) - 1, 2)}
    classes = {k: v for k, v in counts.items()
               if k not in ("instructions", "cycles", "taken", "not_taken")}
    failures = []
    measured = int(model.group(1))
    if abs(counts["instructions"] - measured) > 64:
        failures.append("instructions %d, the image measured %d" % (counts["instructions"],
                                                                    measured))
    if sum(classes.values()) != counts["instructions"]:
        failures.append("classes sum to %d" % sum(classes.values()))
    if counts["taken"] + counts["not_taken"] != classes["branch"]:
        failures.append("taken + not taken != branches")
    if counts["cycles"] < counts["instructions"]:
        failures.append("fewer cycles than instructions")
    simd = {"m3": ("dsp", "fp_alu", "mve_alu", "mve_mem"), "m4": ("mve_alu", "mve_mem")}
    for cls in simd.get(core, ()):
        if classes[cls] != 0:
            failures.append("%d %s instructions on %s" % (classes[cls], cls, core))
    needed = {"m4": ("dsp", "mac"), "m55": ("mve_alu", "mve_mem"), "m3": ("mac", "load")}
    for cls in needed[core]:
        if classes[cls] == 0:
            failures.append("no %s instructions on %s" % (cls, core))
    if failures:
        print("FAIL: " + "; ".join(failures))
        return 1
    print("PASS: %d instructions, %d estimated %s cycles (%.3f per instruction)" % (
        counts["instructions"], counts["cycles"], core,
        counts["cycles"] / counts["instructions"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

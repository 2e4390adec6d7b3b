#!/usr/bin/python3
"""Runs a standalone Cortex-M image (an utvm-ai-*.elf, utvm-model-test.elf or a TFLM bench
image) under QEMU -icount shift=0 with bench/qemu/insn_plugin, counting the instructions
between two marker functions, and prints the image's own "model ..." lines followed by the
plugin's region lines (see insn_plugin.c), one region per timed run.

Usage: plugin_run.py PLUGIN BOARD CORE ELF BEGIN_SYMBOL [END_SYMBOL]
  CORE: m3, m4 or m55; END_SYMBOL defaults to BEGIN_SYMBOL (toggle: e.g. utvm_port_ticks,
  read before and after each run). Stops at the image's "models done" line (600 s at most).
"""

import os
import subprocess
import sys
import tempfile
import time


def symbol(elf, name):
    out = subprocess.run(["arm-none-eabi-nm", elf], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[2] == name:
            return "0x" + fields[0]
    sys.exit("plugin_run.py: %s has no symbol %s" % (elf, name))


def main():
    plugin, board, core, elf, begin = sys.argv[1:6]
    end = sys.argv[6] if len(sys.argv) > 6 else begin
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "regions.txt")
        option = "%s,core=%s,begin=%s,end=%s,out=%s" % (plugin, core, symbol(elf, begin),
                                                         symbol(elf, end), out)
        proc = subprocess.Popen(["qemu-system-arm", "-M", board, "-nographic", "-monitor",
                                 "none", "-serial", "stdio", "-icount", "shift=0", "-kernel",
                                 elf, "-plugin", option],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
        deadline = time.time() + 600
        done = False
        try:
            for line in proc.stdout:
                line = line.strip()
                if line.startswith("model"):
                    print(line)
                if line.startswith("models done"):
                    done = True
                    break
                if time.time() > deadline:
                    break
        finally:
            proc.kill()
            proc.wait()
        with open(out) as regions:
            sys.stdout.write(regions.read())
    return 0 if done else 1


if __name__ == "__main__":
    sys.exit(main())

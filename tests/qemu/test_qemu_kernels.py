#!/usr/bin/python3
"""The int8 kernels' DSP fast paths on a Cortex-M core with the DSP extension under QEMU: boots
utvm-kernel-test.elf (ports/cortex-m/kernel_test_main.c: random layers through the fast paths
and the portable loops), reads its UART until the verdict line and checks that every case was
compared and none differed.

Usage: test_qemu_kernels.py <board> <utvm-kernel-test.elf>
"""

import re
import subprocess
import sys
import time

BOARD, ELF = sys.argv[1], sys.argv[2]
TIMEOUT_S = 300


def main():
    proc = subprocess.Popen(["qemu-system-arm", "-M", BOARD, "-nographic", "-monitor", "none",
                             "-serial", "stdio", "-icount", "shift=0", "-kernel", ELF],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    lines = []
    deadline = time.time() + TIMEOUT_S
    try:
        for line in proc.stdout:
            line = line.strip()
            print(line)
            lines.append(line)
            if line.startswith("kernels PASS") or line.startswith("kernels FAIL") or \
                    time.time() > deadline:
                break
    finally:
        proc.kill()
        proc.wait()
    summary = [m for m in (re.match(r"kernels: (\d+) conv \((\d+) 1x1, (\d+) int16 filters, "
                                    r"(\d+) term filters\), (\d+) depthwise "
                                    r"\((\d+) as convolutions\), "
                                    r"(\d+) fully connected \((\d+) int16 weights, (\d+) term weights\), (\d+) add, "
                                    r"(\d+) in place, "
                                    r"(\d+) windows in place, (\d+) stages, (\d+) average pools, "
                                    r"(\d+) bytes, (\d+) mismatches", l) for l in lines) if m]
    if not summary or "kernels PASS" not in lines:
        print("FAIL: no passing verdict from %s within %d s" % (ELF, TIMEOUT_S))
        return 1
    conv, pointwise, wide, terms, depthwise, as_conv, fc, fc_wide, fc_terms, add, in_place, windows, \
        stages, pools, compared, mismatches = (int(g) for g in summary[0].groups())
    # one input channel runs as a convolution on the DSP and MVE cores only
    as_conv_expected = "blocked paths" not in summary[0].string
    # every convolution again with its filter laid out as DSP_S16 where the DSP kernels are
    # built (the DSP core: its dispatcher runs it); the MVE and portable builds have none
    wide_expected = conv if "DSP paths" in summary[0].string else 0
    fc_wide_expected = fc if "DSP paths" in summary[0].string else 0
    # every convolution and fully connected layer again with MVE_TERMS filters: run and compared
    # on the MVE core, refused by the other cores' dispatchers
    terms_expected = terms == conv and fc_terms == fc
    if mismatches != 0 or min(conv, depthwise, fc, add, in_place, windows, stages, pools) < 1000 or \
            pointwise < 1 or (as_conv > 0) != as_conv_expected or wide != wide_expected or \
            fc_wide != fc_wide_expected or \
            not terms_expected or \
            compared < 100000:
        print("FAIL: %d mismatches over %d conv, %d depthwise, %d fully connected, %d add and %d "
              "in-place cases (%d convolutions in place, %d stages patch by patch, %d average "
              "pools)" % (mismatches, conv, depthwise, fc, add, in_place, windows, stages, pools))
        return 1
    print("PASS: %d conv, %d depthwise, %d fully connected, %d add layers and %d element-wise "
          "kernels, %d convolutions in place, %d stages patch by patch and %d average pools "
          "bit-exact on %s" % (conv, depthwise, fc, add, in_place, windows, stages, pools, BOARD))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""The shipped int8 models on a Cortex-M core under QEMU: boots utvm-model-test.elf (the models,
inputs and TFLM's outputs built in; ports/cortex-m/model_test_main.c), reads its UART until
"models done" and checks that every model's output was bit-exact with TFLM's, each model run
whole and with patches (utvm_runner_options_t.patches auto: "model NAME patches: ...").

Usage: test_qemu_models.py <board> <utvm-model-test.elf> <minimum number of models> [--whole-only]
(--whole-only: a firmware that runs its models whole only, e.g. the examples').
"""

import re
import subprocess
import sys
import time

BOARD, ELF, MINIMUM = sys.argv[1], sys.argv[2], int(sys.argv[3])
WHOLE_ONLY = sys.argv[4:] == ["--whole-only"]
TIMEOUT_S = 600


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
            if line.startswith("models done") or time.time() > deadline:
                break
    finally:
        proc.kill()
        proc.wait()
    models = [l for l in lines if l.startswith("model ")]
    exact = [l for l in models if l.endswith("bit-exact yes")]
    done = [l for l in lines if l.startswith("models done")]
    if not done:
        print("FAIL: no 'models done' line within %d s" % TIMEOUT_S)
        return 1
    match = re.match(r"models done: (\d+) of (\d+) bit-exact", done[0])
    if not match or match.group(1) != match.group(2) or len(exact) != len(models) or \
            len(models) < MINIMUM:
        print("FAIL: %d of %d models bit-exact (at least %d expected)" %
              (len(exact), len(models), MINIMUM))
        return 1
    patched = [l for l in models if " patches: " in l]
    if WHOLE_ONLY:
        print("PASS: %d models bit-exact with TFLM on %s" % (len(models), BOARD))
        return 0
    if len(patched) * 2 != len(models):
        print("FAIL: %d of %d runs with patches, expected half" % (len(patched), len(models)))
        return 1
    print("PASS: %d models bit-exact with TFLM on %s, whole and with patches" %
          (len(patched), BOARD))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""The shipped int8 models on a Cortex-M core under QEMU: boots utvm-model-test.elf (the models,
inputs and TFLM's outputs built in; ports/cortex-m/model_test_main.c), reads its UART until
"models done" and checks that every model's output was bit-exact with TFLM's, each model run
whole and with patches (utvm_runner_options_t.patches auto: "model NAME patches: ...").

Usage: test_qemu_models.py <board> <utvm-model-test.elf> <minimum number of models> [--whole-only]
       [--tolerances FILE | --no-f32]
(--whole-only: a firmware that runs its models whole only, e.g. the examples'; --tolerances: the
float32 cases that may differ from TFLM, "<case> <max abs error>" per line, '#' comments
(tests/data/tflm_float_board_tolerance.txt): a run of such a case passes when the firmware's
"bit-exact no, max abs error 0x<float bits>" is at most the case's tolerance; every other run
must be bit-exact. The largest error of each case is printed. --no-f32: a firmware built without
float32 operators (UTVM_HAVE_F32 0): every run is bit-exact or refused by the runner with the
text "float32 operators are not in this build", and some of each.)
"""

import re
import struct
import subprocess
import sys
import time

BOARD, ELF, MINIMUM = sys.argv[1], sys.argv[2], int(sys.argv[3])
WHOLE_ONLY = "--whole-only" in sys.argv[4:]
TOLERANCE_FILE = None
if "--tolerances" in sys.argv[4:]:
    TOLERANCE_FILE = sys.argv[sys.argv.index("--tolerances") + 1]
NO_F32 = "--no-f32" in sys.argv[4:]
NO_F32_TEXT = "float32 operators are not in this build"
TIMEOUT_S = 600
ERROR_RE = re.compile(r"^model (\S+?)(?:/\d+)?(?: patches)?: .*bit-exact no, max abs error 0x([0-9a-fA-F]{8})$")


def read_tolerances(path):
    """{case: tolerance} of a tolerance file."""
    tolerances = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                name, value = line.split()
                tolerances[name] = float(value)
    return tolerances


def within_tolerance(models, tolerances):
    """The runs of models that are not bit-exact but within their case's tolerance, after
    printing each case's largest error."""
    worst = {}
    passed = []
    for line in models:
        match = ERROR_RE.match(line)
        if not match:
            continue
        name = match.group(1)
        error = struct.unpack("<f", struct.pack("<I", int(match.group(2), 16)))[0]
        worst[name] = max(worst.get(name, 0.0), error)
        if name in tolerances and error <= tolerances[name]:
            passed.append(line)
    for name in sorted(worst):
        print("%s: max abs error %.9g vs TFLM (tolerance %s)" %
              (name, worst[name], tolerances.get(name, "none: must be bit-exact")))
    return passed


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
    tolerated = within_tolerance(models, read_tolerances(TOLERANCE_FILE)) if TOLERANCE_FILE \
        else []
    if NO_F32:
        refused = [l for l in models if NO_F32_TEXT in l]
        done = [l for l in lines if l.startswith("models done")]
        ok = done and done[0].startswith("models done: %d of %d " % (len(exact), len(models))) \
            and len(exact) + len(refused) == len(models) and exact and refused and \
            len(models) >= MINIMUM
        print("%s: %d of %d runs bit-exact, %d refused by the runner (%s)" %
              ("PASS" if ok else "FAIL", len(exact), len(models), len(refused), NO_F32_TEXT))
        return 0 if ok else 1
    done = [l for l in lines if l.startswith("models done")]
    if not done:
        print("FAIL: no 'models done' line within %d s" % TIMEOUT_S)
        return 1
    match = re.match(r"models done: (\d+) of (\d+) bit-exact", done[0])
    if not match or int(match.group(1)) + len(tolerated) != int(match.group(2)) or \
            len(exact) + len(tolerated) != len(models) or len(models) < MINIMUM:
        print("FAIL: %d of %d models bit-exact, %d within tolerance (at least %d expected)" %
              (len(exact), len(models), len(tolerated), MINIMUM))
        return 1
    if tolerated:
        print("%d of %d runs bit-exact, %d within their case's tolerance" %
              (len(exact), len(models), len(tolerated)))
    patched = [l for l in models if " patches: " in l]
    if WHOLE_ONLY:
        print("PASS: %d models bit-exact with TFLM on %s" % (len(models), BOARD))
        return 0
    if len(patched) * 2 != len(models):
        print("FAIL: %d of %d runs with patches, expected half" % (len(patched), len(models)))
        return 1
    print("PASS: %d models bit-exact with TFLM%s on %s, whole and with patches" %
          (len(patched), " or within their tolerance" if tolerated else "", BOARD))
    return 0


if __name__ == "__main__":
    sys.exit(main())

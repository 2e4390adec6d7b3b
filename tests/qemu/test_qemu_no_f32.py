#!/usr/bin/python3
"""A firmware without float32 operators (UTVM_HAVE_F32 0: mps2-an385's Cortex-M3, no FPU) under
QEMU: `utvm info` says so, and `utvm run` and `utvm time` of a float32 model are refused by the
host before anything of the model is sent, while the same firmware still runs an int8 model.

Usage: test_qemu_no_f32.py <utvm> <scripts/qemu-run.sh> <board> <utvm-server.elf>
                           <float32 model> <its input> <int8 model> <its input>

The device is reached through exec:"tee SENT | qemu-run.sh BOARD ELF", so SENT holds every byte
the host wrote: a refused model leaves only the session, the function look-ups and the
utvm_k_kernels call there (a few hundred bytes; the float32 model's constants are ~100 KB).
"""

import os
import subprocess
import sys
import tempfile

UTVM, RUNNER, BOARD, ELF, F32_MODEL, F32_INPUT, I8_MODEL, I8_INPUT = sys.argv[1:9]
TIMEOUT_S = 240
FAILED = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)


def utvm(sent, *args):
    connect = "exec:tee %s | %s %s %s" % (sent, RUNNER, BOARD, ELF)
    return subprocess.run([UTVM, "--connect", connect] + list(args), capture_output=True,
                          text=True, timeout=TIMEOUT_S)


def main():
    model_bytes = os.path.getsize(F32_MODEL)
    with tempfile.TemporaryDirectory() as tmp:
        sent = os.path.join(tmp, "sent.bin")
        p = utvm(sent, "info")
        told = [l for l in p.stdout.splitlines() if l.startswith("float32 ")]
        check(p.returncode == 0 and told and told[0].split()[1] == "no",
              "info: %r (exit %d)" % (told, p.returncode))
        for command in (["run", F32_MODEL, "--input", F32_INPUT],
                        ["run", F32_MODEL, "--input", F32_INPUT, "--host-driven"],
                        ["time", F32_MODEL, "--input", F32_INPUT]):
            p = utvm(sent, *command)
            size = os.path.getsize(sent) if os.path.exists(sent) else -1
            print("%s: exit %d, %d bytes sent (model %d bytes): %s" %
                  (" ".join(command[:1] + command[3:]), p.returncode, size, model_bytes,
                   p.stderr.strip()))
            check(p.returncode == 4 and "does not run float32 operators" in p.stderr and
                  "_f32" in p.stderr, "%s refused with the first float32 operator" % command[0])
            check(0 < size < 4096, "%s: refused before the upload (%d bytes sent)" %
                  (command[0], size))
        p = utvm(sent, "run", I8_MODEL, "--input", I8_INPUT)
        size = os.path.getsize(sent) if os.path.exists(sent) else -1
        check(p.returncode == 0 and size > 4096,
              "an int8 model still runs there (exit %d, %d bytes sent): %r" %
              (p.returncode, size, p.stderr))
    if FAILED:
        print("FAIL: %d check(s)" % len(FAILED))
        return 1
    print("PASS: float32 refused before the upload on %s" % BOARD)
    return 0


if __name__ == "__main__":
    sys.exit(main())

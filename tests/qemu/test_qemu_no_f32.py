#!/usr/bin/python3
"""A firmware without float32 operators (UTVM_HAVE_F32 0: mps2-an385's Cortex-M3, no FPU) under
QEMU: `utvm info` says so, and `utvm run` and `utvm time` of a float32 model are refused by the
host before anything of the model is sent, while the same firmware still runs an int8 model; a
float32 kernel function reached anyway (`utvm call utvm_k_relu_f32` with the op params `utvm
compile --generic` writes for tflm_float's relu_f32) fails on the device with the kernels' text.

Usage: test_qemu_no_f32.py <utvm> <scripts/qemu-run.sh> <board> <utvm-server.elf>
                           <float32 model> <its input> <int8 model> <its input>

The device is reached through exec:"tee SENT | qemu-run.sh BOARD ELF", so SENT holds every byte
the host wrote: a refused model leaves only the session, the function look-ups and the
utvm_k_kernels call there (a few hundred bytes; the float32 model's constants are ~100 KB).
"""

import os
import struct
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


def op_params(params_bin):
    """The data of the one array of a parameter blob (PROTOCOL.md 6.2): a graph's op params."""
    with open(params_bin, "rb") as f:
        blob = f.read()
    at = blob.index(struct.pack("<Q", 0xDD5E40F096B4A13F)) + 16  # array magic, reserved
    ndim = struct.unpack_from("<iii", blob, at)[2]
    at += 16 + 8 * ndim  # device, ndim, dtype, shape
    size = struct.unpack_from("<Q", blob, at)[0]
    return blob[at + 8:at + 8 + size]


def case_kernel_function(tmp, sent):
    """utvm_k_relu_f32 called directly: the device's stub refuses with its text."""
    relu = os.path.join(os.path.dirname(F32_MODEL), "relu_f32")
    p = subprocess.run([UTVM, "compile", relu + ".tflite", "--generic", "-o",
                        os.path.join(tmp, "relu")], capture_output=True, text=True,
                       timeout=TIMEOUT_S)
    check(p.returncode == 0, "relu_f32 compiles on the host: %r" % p.stderr)
    words = op_params(os.path.join(tmp, "relu", "params.bin"))
    params = os.path.join(tmp, "relu_params.bin")
    with open(params, "wb") as f:
        f.write(words)
    p = utvm(sent, "call", "utvm_k_relu_f32", "bin:float32:[1,4,4,3]:%s_in0.bin" % relu,
             "bin:int32:[%d]:%s" % (len(words) // 4, params), "t:float32:#48")
    print("call utvm_k_relu_f32: exit %d: %s" % (p.returncode, p.stderr.strip()))
    check(p.returncode == 4 and "float32 operators are not in this build" in p.stderr,
          "a float32 kernel function refuses on the device")


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
        case_kernel_function(tmp, sent)
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

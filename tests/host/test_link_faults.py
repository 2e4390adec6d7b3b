#!/usr/bin/python3
"""`utvm --connect 'fault:.../exec:SERVER' run KWS` over every fault class of the fault transport
(include/utvm/host.h): ber, drop, insert, dup, split with delay, reset_at, and tx.-only and
rx.-only variants.

Severe faults (with --deadline 2) must make the run FAIL with a non-zero exit and a message that
names the step ("uploading parameter p3: ...", "deadline of 2 s passed during STEP (...)", or
"cannot connect: ..." when the handshake itself never got through) and a non-empty cause after
the last ": ". Mild faults must SUCCEED bit-exact with TensorFlow Lite Micro's output; a device
reset in the middle (reset_at) must be recovered from (a new session, the run started again).
A device that does not come back after its reset ends the run at once. The [step k/n] progress
line shows on a terminal only.

Usage: test_link_faults.py <utvm binary> <shared/models directory> <utvm-posix-server>
Python standard library only; bounded: every run has a deadline and a subprocess timeout.
"""

import concurrent.futures
import json
import os
import pty
import re
import subprocess
import sys
import tempfile
import time

UTVM, MODELS, SERVER = sys.argv[1:4]
RUN_TIMEOUT_S = 60
TMP = tempfile.mkdtemp(prefix="utvm_link_faults_")

KWS = ("mlperf_tiny_kws_dscnn_int8.tflite", "refdata/mlperf_tiny/kws_input0_int8.bin",
       "refdata/mlperf_tiny/kws_input0_int8_tflm.out0.bin")
IC = ("mlperf_tiny_ic_resnet8_int8.tflite", "refdata/mlperf_tiny/ic_input0_int8.bin",
      "refdata/mlperf_tiny/ic_input0_int8_tflm.out0.bin")

# The steps of a device run (host/cli/remote.c), as its failures name them.
STEPS = ("opening the system library", "checking the device's free memory",
         "reading the device's free memory", "checking the kernel functions",
         "looking up the kernel functions", "creating the graph executor",
         "reading the device's packet limit", "uploading the graph JSON",
         "freeing the uploaded graph JSON", "the graph executor's functions",
         "uploading parameters", "uploading parameter ", "setting the model inputs",
         "setting model input ", "running the model", "resetting the model's state",
         "reading the model outputs", "reading model output ", "releasing device memory",
         "reading the device's memory after reconnecting", "reconnecting to the device")

# Severe faults: each run must fail (most get through the handshake and fail in a step or at
# the deadline; the rx. variants need higher rates as replies are short).
SEVERE = ["ber=3e-3", "drop=1e-2", "insert=1e-2", "dup=1e-2", "split=1,delay_us=3000",
          "tx.ber=3e-3", "rx.ber=3e-3", "tx.drop=1e-2", "rx.drop=1e-2", "tx.insert=1e-2",
          "rx.insert=3e-2", "tx.dup=1e-2", "rx.dup=3e-2"]


def check(cond, what, proc=None):
    if not cond:
        detail = ""
        if proc is not None:
            detail = "\n  rc=%d\n  stdout=%r\n  stderr=%r" % (proc.returncode, proc.stdout[-2000:],
                                                            proc.stderr[-2000:])
        raise AssertionError(what + detail)


def model_args(model, out):
    name, inp, _ = model
    return [os.path.join(MODELS, name), "--input", os.path.join(MODELS, inp), "--output", out]


def utvm(transport, command, model, out, *options):
    if os.path.exists(out):
        os.remove(out)
    args = [UTVM, "--connect", transport] + list(options) + [command] + model_args(model, out)
    start = time.monotonic()
    proc = subprocess.run(args, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    return proc, time.monotonic() - start


def bit_exact(model, out):
    with open(os.path.join(MODELS, model[2]), "rb") as f:
        expected = f.read()
    if not os.path.exists(out):
        return False
    with open(out, "rb") as f:
        return f.read() == expected


def error_line(proc):
    """The text after "utvm: " of the run's error line."""
    for line in proc.stderr.splitlines():
        if line.startswith("utvm: ") and not line.startswith("utvm: hint:"):
            return line[len("utvm: "):]
    return ""


def names_step_and_cause(proc):
    """Checks the error names the step that failed and a non-empty cause after the last ': '."""
    text = error_line(proc)
    check(text != "", "an error line on stderr", proc)
    marker = " on the device: "
    if marker in text:
        message = text[text.index(marker) + len(marker):]
        deadline = re.match(r"deadline of [0-9.e+-]+ s passed during (.*?) \(", message)
        step = deadline.group(1) if deadline else message
        check(any(step.startswith(s) for s in STEPS), "the error names a step: %r" % message,
              proc)
    else:
        check(text.startswith("cannot connect: ") or text.startswith("handshake failure: "),
              "a failure outside the run is the connection's: %r" % text, proc)
    cause = text.rsplit(": ", 1)[-1]
    check(cause.strip() != "", "a non-empty cause after the last ': ': %r" % text, proc)
    return text


def severe(spec, index):
    out = os.path.join(TMP, "severe%d.bin" % index)
    proc, seconds = utvm("fault:seed=%d,%s/exec:%s" % (index + 1, spec, SERVER), "run", KWS, out,
                         "--timeout", "0.1", "--start-timeout", "1", "--deadline", "2")
    check(proc.returncode != 0, "%s: the run fails" % spec, proc)
    check(not os.path.exists(out), "%s: a failed run writes no output" % spec, proc)
    text = names_step_and_cause(proc)
    return "ok   %-24s exit %d in %4.1f s: %s" % (spec, proc.returncode, seconds, text[:150])


def mild(spec, model, *options, recovered=False):
    out = os.path.join(TMP, "mild.bin")
    proc, seconds = utvm("fault:%s/exec:%s" % (spec, SERVER), "run", model, out, "--timeout",
                         "0.2", "--json", *options)
    check(proc.returncode == 0, "%s: the run succeeds" % spec, proc)
    check(bit_exact(model, out), "%s: the output is bit-exact with TFLM's" % spec, proc)
    device = json.loads(proc.stdout)["device"]
    if recovered:
        check(device["recoveries"] >= 1, "%s: the run recovered from the reset" % spec, proc)
    check("recover" not in proc.stderr, "%s: nothing about recoveries off a terminal" % spec,
          proc)
    print("ok   %-24s %s%s: bit-exact in %.1f s, recoveries %d (deadline %g s)"
          % (spec, model[0].split("_")[2], "".join(" " + o for o in options), seconds,
             device["recoveries"], device["deadline_seconds"]))


def main():
    # Severe faults, in parallel (the runs mostly wait for timeouts).
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        for line in pool.map(severe, SEVERE, range(len(SEVERE))):
            print(line)

    # A device that does not come back after its reset: the reconnect finds the transport
    # closed and the run ends at once, naming the step and the reconnect's cause.
    marker = os.path.join(TMP, "booted")
    once = "if [ -e %s ]; then exit 1; fi; touch %s; exec %s" % (marker, marker, SERVER)
    out = os.path.join(TMP, "once.bin")
    proc, seconds = utvm("fault:reset_at=3000/exec:" + once, "run", KWS, out, "--timeout", "0.2")
    check(proc.returncode == 3 and "then reconnecting: " in proc.stderr,
          "a device gone after its reset: exit 3, the reconnect's failure", proc)
    check(seconds < 5.0, "a closed transport ends the run at once (%.1f s)" % seconds, proc)
    print("ok   reset_at, no reboot      exit 3 in %.1f s: %s"
          % (seconds, names_step_and_cause(proc)[:150]))

    # A deadline that passes before the first step, on a perfect link.
    proc, _ = utvm("exec:" + SERVER, "run", KWS, out, "--deadline", "0.000001")
    check(proc.returncode == 3 and "deadline of 1e-06 s passed during opening the system library"
          in proc.stderr, "--deadline: exit 3 naming the step", proc)
    names_step_and_cause(proc)
    print("ok   --deadline 0.000001      %s" % error_line(proc)[:150])

    # Mild faults: bit-exact; resets recovered from by a new session.
    mild("seed=1,ber=1e-5", KWS)
    mild("seed=2,drop=1e-4", KWS)
    mild("reset_at=3000", KWS, recovered=True)
    mild("reset_at=3000", KWS, "--host-driven", recovered=True)
    mild("reset_at=40000", IC, recovered=True)

    # utvm time MODEL shares the run: a reset during it is recovered from too.
    proc, _ = utvm("fault:reset_at=3000/exec:" + SERVER, "time", KWS, out, "--timeout", "0.2",
                   "--json", "--number", "1", "--repeat", "1")
    check(proc.returncode == 0 and json.loads(proc.stdout)["device"]["recoveries"] >= 1,
          "time MODEL recovers from a reset", proc)
    print("ok   time MODEL, reset_at=3000: recovered")

    # The progress line: on a terminal, "[step k/n] ..." with the recoveries; not otherwise.
    spec = "fault:seed=1,split=1,delay_us=1000,reset_at=3000/exec:" + SERVER
    master, slave = pty.openpty()
    args = [UTVM, "--connect", spec, "--timeout", "0.2", "run"] + model_args(KWS, out)
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    check(proc.wait(timeout=RUN_TIMEOUT_S) == 0, "the run on a terminal succeeds")
    text = seen.decode(errors="replace")
    check(re.search(r"\r\[step \d+/\d+\] uploading parameters \d+% \(\d+/\d+ KB\), 1 recovery",
                    text) is not None, "a progress line on a terminal: %r" % text[-600:])
    print("ok   progress line on a terminal: %r" % text.split("\r")[-2][:100])
    print("all link fault checks passed")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Models on a device with no new firmware: `utvm --connect T run MODEL.tflite` (the model
compiled for the device's kernel functions and run by its graph executor over RPC),
`--host-driven` (the host calls each kernel function) and `utvm time MODEL.tflite`.

Usage: test_device_run.py <utvm binary> <shared/models directory> <transport> <set>
  set "all":   every refdata model, every ops/cases.json pair and every pair of the operator
               case sets (tests/tools/op_cases.py: ops2, less tests/data/ops2_pending.txt,
               whose cases must be refused, and tflm) through the graph executor,
               host-driven on one model, time MODEL (with --per-layer), and the error cases
               (a model too big for the device's memory, a device without kernel functions)
  set "board": the kernels the firmware tells (utvm info: the M4's read DSP_S16 filters, the
               M55's MVE_TERMS ones, which utvm run lays the constants out for), KWS, IC,
               person detection and AD through the graph executor, time MODEL, and one model
               host-driven, and the float32 DS-CNN of tests/data/tflm_float (a QEMU board:
               slower link, fewer models)
  set "aot":   a firmware with KWS built in as an AOT archive (utvm-server-aot): run through
               tvm.aot_executor.create (--executor aot), bit-exact, and timed
Outputs are compared with TensorFlow Lite Micro's byte for byte. Python standard library only.
"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import op_cases  # noqa: E402

UTVM, MODELS, TRANSPORT, SET = sys.argv[1:5]
TIMEOUT_S = 900
# The reply timeout (utvm --timeout). A request that does not arrive whole is sent again after
# it, and the recovery has to fit the run's deadline (30 s + 20 x the link time; 139 s for AD on
# a QEMU board): on a board a dropped request (the firmware's UART ring overflowing on a busy
# machine, "uart rx overflow" in the log) cost the whole 120 s once and failed the run. The POSIX
# server's sets keep 120 s for their long single calls.
REPLY_TIMEOUT_S = "20" if SET == "board" else "120"

REFDATA = {
    "person": ("person_detect_int8.tflite", "refdata/person_detection/person_input_int8.bin",
               "refdata/person_detection/person_tflm.out0.bin"),
    "kws": ("mlperf_tiny_kws_dscnn_int8.tflite", "refdata/mlperf_tiny/kws_input0_int8.bin",
            "refdata/mlperf_tiny/kws_input0_int8_tflm.out0.bin"),
    "vww": ("mlperf_tiny_vww_mobilenetv1_int8.tflite",
            "refdata/mlperf_tiny/vww_from_person_bmp_int8.bin",
            "refdata/mlperf_tiny/vww_from_person_bmp_int8_tflm.out0.bin"),
    "ic": ("mlperf_tiny_ic_resnet8_int8.tflite", "refdata/mlperf_tiny/ic_input0_int8.bin",
           "refdata/mlperf_tiny/ic_input0_int8_tflm.out0.bin"),
    "ad": ("mlperf_tiny_ad_autoencoder_int8.tflite", "refdata/mlperf_tiny/ad_window0_int8.bin",
           "refdata/mlperf_tiny/ad_window0_int8_tflm.out0.bin"),
    "micro_speech": ("micro_speech_int8.tflite",
                     "refdata/micro_speech/yes_1000ms_features_int8.bin",
                     "refdata/micro_speech/yes_1000ms_tflm.out0.bin"),
    "hello": ("hello_world_int8.tflite", "refdata/hello_world/in_-63.bin",
              "refdata/hello_world/tflm_in_-63.out0.bin"),
}

TMP = tempfile.mkdtemp(prefix="utvm_device_run_")


def path(relative):
    return os.path.join(MODELS, relative)


def utvm(*args, transport=TRANSPORT):
    command = [UTVM, "--connect", transport, "--timeout", REPLY_TIMEOUT_S] + list(args)
    return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)


def check(cond, what, proc=None):
    if not cond:
        detail = ""
        if proc is not None:
            detail = "\n  rc=%d\n  stdout=%r\n  stderr=%r" % (proc.returncode, proc.stdout[-3000:],
                                                            proc.stderr[-3000:])
        raise AssertionError(what + detail)


def read(p):
    with open(p, "rb") as f:
        return f.read()


def run_pair(model, inp, expected, *extra):
    """Runs one model on the device; checks exit 0 and the output bit-exact. Returns the JSON."""
    out = os.path.join(TMP, "out.bin")
    if os.path.exists(out):
        os.remove(out)
    proc = utvm("--json", "run", path(model), "--input", path(inp), "--output", out, *extra)
    check(proc.returncode == 0, "%s on %s: exit code" % (model, TRANSPORT), proc)
    got = read(out)
    want = read(path(expected))
    check(got == want, "%s (%s): output differs from TFLM's (%d of %d bytes differ)" %
          (model, inp, sum(1 for a, b in zip(got, want) if a != b), len(want)), proc)
    result = json.loads(proc.stdout)
    check(result["ok"] and (result["device"]["device_bytes"] > 0 or "--executor" in extra),
          "device report", proc)
    return result


def ops_pairs():
    with open(path("ops/cases.json")) as f:
        cases = json.load(f)["cases"]
    for case in cases:
        for inp, out in case["pairs"]:
            yield ("ops/" + case["model"], "ops/" + inp, "ops/" + out)


def case_models(names):
    for name in names:
        result = run_pair(*REFDATA[name])
        d = result["device"]
        print("ok   %-14s graph executor bit-exact: %.6f s/inference, %d bytes device memory, "
              "%d bytes uploaded" % (name, result["seconds"], d["device_bytes"],
                                     d["upload_bytes"]))


def case_kernels():
    proc = utvm("--json", "info")
    check(proc.returncode == 0, "info on %s" % TRANSPORT, proc)
    kernels = json.loads(proc.stdout)["kernels"]
    expected = {"mps2-an386": {"core": "dsp", "filter_layouts": ["plain", "dsp_s16"],
                               "float32": True},
                "mps3-an547": {"core": "mve", "filter_layouts": ["plain", "mve_terms"],
                               "float32": True}}
    for board, want in expected.items():
        if board in TRANSPORT:
            check(kernels == want, "kernels on %s: %r" % (board, kernels), proc)
    print("ok   kernels %s, filter layouts %s, float32 %s" %
          (kernels["core"], ", ".join(kernels["filter_layouts"]), kernels["float32"]))


def case_float_model():
    """The float32 DS-CNN (tests/data/tflm_float, pair 2: bit-exact with TFLM on the M4F and the
    M55; its other pairs differ in SOFTMAX's expf on the M4F, docs/TFLITE.md "float32 on
    boards") through the graph executor on a board with an FPU."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tflm_float")
    result = run_pair(os.path.join(folder, "kws_dscnn_f32.tflite"),
                      os.path.join(folder, "kws_dscnn_f32_in2.bin"),
                      os.path.join(folder, "kws_dscnn_f32_out2.tflm.bin"))
    d = result["device"]
    print("ok   kws_dscnn_f32  graph executor bit-exact: %.6f s/inference, %d bytes device memory, "
          "%d bytes uploaded" % (result["seconds"], d["device_bytes"], d["upload_bytes"]))


def case_ops():
    count = 0
    for model, inp, out in ops_pairs():
        run_pair(model, inp, out)
        count += 1
    check(count >= 32, "at least 32 op pairs (%d)" % count)
    print("ok   ops: %d pairs bit-exact through the graph executor" % count)


def case_op_cases():
    """Every pair of the operator case sets through the graph executor, or (pending) refused
    before any upload; a line per set."""
    counts = {}
    for set_name, folder, case, pending in op_cases.cases(MODELS):
        exact, refused = counts.setdefault(set_name, (0, 0))
        model = os.path.join(folder, case["model"])
        if pending:
            proc = utvm("run", model, "--input", os.path.join(folder, case["pairs"][0][0]))
            check(proc.returncode == 4 and ("operator" in proc.stderr or "tensor" in proc.stderr) and
                  "upload" not in proc.stdout, "%s (pending): refused with a text" % model, proc)
            counts[set_name] = (exact, refused + 1)
            continue
        for inp, out in case["pairs"]:
            run_pair(model, os.path.join(folder, inp), os.path.join(folder, out))
        counts[set_name] = (exact + len(case["pairs"]), refused)
    for set_name, (exact, refused) in counts.items():
        print("ok   %s: %d pairs bit-exact through the graph executor, %d pending cases refused" %
              (set_name, exact, refused))


def case_host_driven(name):
    result = run_pair(*REFDATA[name], "--host-driven")
    check(result["device"]["path"] == "host-driven", "host-driven path reported")
    print("ok   %s host-driven bit-exact" % name)


def case_time(name):
    model = path(REFDATA[name][0])
    proc = utvm("--json", "time", model, "--input", path(REFDATA[name][1]), "--repeat", "2")
    check(proc.returncode == 0, "time MODEL", proc)
    result = json.loads(proc.stdout)
    check(result["seconds"] > 0.0, "time MODEL gives a positive time per inference", proc)
    proc = utvm("--json", "time", model, "--per-layer", "--repeat", "1")
    check(proc.returncode == 0, "time MODEL --per-layer", proc)
    layers = json.loads(proc.stdout)["layers"]
    check(len(layers) >= 2 and all(l["seconds"] > 0.0 for l in layers) and
          all(l["function"].startswith("utvm_k_") for l in layers),
          "one positive time per kernel call", proc)
    print("ok   time %s: %.6f s per inference, %d layers timed" %
          (name, result["seconds"], len(layers)))


def case_aot():
    result = run_pair(*REFDATA["kws"], "--executor", "aot")
    check(result["device"]["path"] == "aot-executor", "AOT path reported")
    check(result["seconds"] > 0.0, "a positive time per inference")
    proc = utvm("run", path(REFDATA["ic"][0]), "--executor", "aot", "--input",
                path(REFDATA["ic"][1]))
    check(proc.returncode == 4 and "does the firmware's AOT model match" in proc.stderr,
          "a model that is not the firmware's: exit 4 and a hint", proc)
    print("ok   kws through the AOT executor bit-exact: %.6f s/inference" % result["seconds"])


def case_device_lacks_function():
    """A device without a kernel function the model needs (utvm-posix-server-int8: the kernel
    functions of before issue 25): exit 4 naming the function, before anything is uploaded."""
    server = TRANSPORT.split(" ")[0].replace("utvm-posix-server", "utvm-posix-server-int8")
    case = "ops2/transpose_2d_i8"
    for extra in ([], ["--host-driven"]):
        proc = utvm(*extra, "run", path(case + ".tflite"), "--input", path(case + "_in0.bin"),
                    transport=server)
        check(proc.returncode == 4 and "no kernel function utvm_k_strided_copy" in proc.stderr
              and "nothing was uploaded" in proc.stderr,
              "a device without the function: exit 4, named, nothing uploaded %r" % extra, proc)
    print("ok   device without a kernel function: %s" % proc.stderr.strip()[:160])
    proc = utvm("run", path(REFDATA["kws"][0]), "--input", path(REFDATA["kws"][1]),
                transport=server)
    check(proc.returncode == 0, "the same device runs a model of the functions it has", proc)


def case_too_big():
    server = TRANSPORT.split(" ")[0]
    proc = utvm("run", path(REFDATA["person"][0]), "--input", path(REFDATA["person"][1]),
                transport=server + " --arena 65536")
    check(proc.returncode == 4, "a model too big for the device: exit 4", proc)
    check("bytes free" in proc.stderr and "nothing was uploaded" in proc.stderr,
          "the error says how much memory is needed and free", proc)
    print("ok   too big for the device: %s" % proc.stderr.strip().splitlines()[0][:160])


def main():
    if SET == "aot":
        case_aot()
    elif SET == "all":
        case_models(["hello", "ad", "micro_speech", "kws", "ic", "person", "vww"])
        case_ops()
        case_op_cases()
        case_host_driven("kws")
        case_time("kws")
        case_too_big()
        case_device_lacks_function()
    else:
        case_kernels()
        case_models(["kws", "ic", "person", "ad"])
        case_float_model()
        case_host_driven("ad")
        case_time("ad")
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())

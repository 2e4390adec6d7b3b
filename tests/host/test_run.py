#!/usr/bin/python3
"""End-to-end tests of `utvm run` (the model runner on the host; no device).

Usage: test_run.py <utvm binary> <shared/models directory>
Runs every reference pair of refdata/ and ops/cases.json through `utvm run ... --output OUT.bin`
and compares OUT with TFLite Micro's output byte for byte; then --json, --per-layer, .npy input
and output, and the error cases (exit codes and texts). Python standard library only.
"""

import json
import os
import struct
import subprocess
import sys
import tempfile

UTVM = sys.argv[1]
MODELS = sys.argv[2]

REFDATA = [
    ("person_detect_int8.tflite", "refdata/person_detection/person_input_int8.bin",
     "refdata/person_detection/person_tflm.out0.bin"),
    ("person_detect_int8.tflite", "refdata/person_detection/no_person_input_int8.bin",
     "refdata/person_detection/no_person_tflm.out0.bin"),
    ("mlperf_tiny_kws_dscnn_int8.tflite", "refdata/mlperf_tiny/kws_input0_int8.bin",
     "refdata/mlperf_tiny/kws_input0_int8_tflm.out0.bin"),
    ("mlperf_tiny_vww_mobilenetv1_int8.tflite", "refdata/mlperf_tiny/vww_from_person_bmp_int8.bin",
     "refdata/mlperf_tiny/vww_from_person_bmp_int8_tflm.out0.bin"),
    ("mlperf_tiny_vww_mobilenetv1_int8.tflite",
     "refdata/mlperf_tiny/vww_from_no_person_bmp_int8.bin",
     "refdata/mlperf_tiny/vww_from_no_person_bmp_int8_tflm.out0.bin"),
    ("mlperf_tiny_ic_resnet8_int8.tflite", "refdata/mlperf_tiny/ic_input0_int8.bin",
     "refdata/mlperf_tiny/ic_input0_int8_tflm.out0.bin"),
    ("mlperf_tiny_ad_autoencoder_int8.tflite", "refdata/mlperf_tiny/ad_window0_int8.bin",
     "refdata/mlperf_tiny/ad_window0_int8_tflm.out0.bin"),
    ("refdata/network_tester/network_model.tflite", "refdata/network_tester/input_data.bin",
     "refdata/network_tester/expected_output_data.bin"),
] + [("micro_speech_int8.tflite", "refdata/micro_speech/%s_1000ms_features_int8.bin" % w,
      "refdata/micro_speech/%s_1000ms_tflm.out0.bin" % w)
     for w in ("yes", "no", "silence", "noise")] + [
    ("hello_world_int8.tflite", "refdata/hello_world/in_%s.bin" % x,
     "refdata/hello_world/tflm_in_%s.out0.bin" % x) for x in ("-96", "-63", "-34", "0")]

TMP = tempfile.mkdtemp(prefix="utvm_run_test_")


def path(relative):
    return os.path.join(MODELS, relative)


def run(*args):
    return subprocess.run([UTVM] + list(args), capture_output=True, text=True, timeout=60)


def check(cond, what, proc=None):
    if not cond:
        detail = ""
        if proc is not None:
            detail = "\n  rc=%d\n  stdout=%r\n  stderr=%r" % (proc.returncode, proc.stdout[:2000],
                                                            proc.stderr[:2000])
        raise AssertionError(what + detail)


def read(p):
    with open(p, "rb") as f:
        return f.read()


def pairs():
    """(model, input, expected) relative to MODELS: refdata, then every ops/cases.json pair."""
    result = list(REFDATA)
    with open(path("ops/cases.json")) as f:
        cases = json.load(f)["cases"]
    for case in cases:
        for inp, out in case["pairs"]:
            result.append(("ops/" + case["model"], "ops/" + inp, "ops/" + out))
    return result


def case_all_pairs_bit_exact():
    out = os.path.join(TMP, "out.bin")
    n = 0
    for model, inp, expected in pairs():
        if os.path.exists(out):
            os.unlink(out)
        p = run("run", path(model), "--input", path(inp), "--output", out)
        check(p.returncode == 0, "%s %s: exit 0" % (model, inp), p)
        check(read(out) == read(path(expected)), "%s %s: output equals %s" % (model, inp, expected))
        n += 1
    check(n == 16 + 64, "80 pairs (got %d)" % n)
    return "%d pairs bit-exact" % n


def run_json(*args, expect_rc=0):
    p = run("--json", *args)
    check(p.returncode == expect_rc, "exit code %d" % expect_rc, p)
    try:
        return json.loads(p.stdout)
    except ValueError:
        check(False, "stdout is one JSON object", p)
    return None


def case_json_fields():
    model, inp, expected = REFDATA[0]
    j = run_json("run", path(model), "--input", path(inp))
    for key in ("ok", "arena_bytes", "operators", "output", "outputs", "seconds",
                "workspace_bytes"):
        check(key in j, "JSON has %s" % key)
    want = list(struct.unpack("<%db" % len(read(path(expected))), read(path(expected))))
    check(j["ok"] is True and j["operators"] == 31, "31 operators")
    check(j["output"] == want, "output values %r == %r" % (j["output"], want))
    check(0 < j["arena_bytes"] < 85024, "arena below TFLM's 85,024 B")
    check(j["seconds"] > 0, "seconds > 0")
    check(j["outputs"][0]["shape"] == [1, 2] and j["outputs"][0]["type"] == "int8", "shape")
    check("layers" not in j, "no layers without --per-layer")
    return "arena %d B, %.4f s" % (j["arena_bytes"], j["seconds"])


def case_per_layer():
    model, inp, _ = REFDATA[2]
    j = run_json("run", path(model), "--input", path(inp), "--per-layer")
    layers = j["layers"]
    check(len(layers) == j["operators"] == 13, "one layer per operator")
    check(layers[0]["operator"] == "CONV_2D" and layers[-1]["operator"] == "SOFTMAX", "names")
    check(layers[-1]["shape"] == [1, 12], "last shape [1, 12]")
    check(all(layer["seconds"] >= 0 for layer in layers), "layer times")
    p = run("run", path(model), "--input", path(inp), "--per-layer")
    check(p.returncode == 0 and "DEPTHWISE_CONV_2D" in p.stdout and "int8[1,12]" in p.stdout,
          "text table", p)
    return "%d layers" % len(layers)


def npy_bytes(descr, shape, data):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d, " % d for d in shape))
    pad = 64 - (10 + len(header) + 1) % 64
    header += " " * (pad % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data


def parse_npy(blob):
    check(blob[:8] == b"\x93NUMPY\x01\x00", "npy magic")
    (hlen,) = struct.unpack("<H", blob[8:10])
    check((10 + hlen) % 64 == 0, "npy header padded to 64")
    return blob[10:10 + hlen].decode(), blob[10 + hlen:]


def case_npy_in_out():
    _, inp, expected = REFDATA[0]
    inp_npy = os.path.join(TMP, "in.npy")
    with open(inp_npy, "wb") as f:
        f.write(npy_bytes("|i1", (1, 96, 96, 1), read(path(inp))))
    out_npy = os.path.join(TMP, "out.npy")
    p = run("run", path(REFDATA[0][0]), "--input", inp_npy, "--output", out_npy)
    check(p.returncode == 0, "npy input runs", p)
    header, data = parse_npy(read(out_npy))
    check("'|i1'" in header and "(1, 2,)" in header, "npy header %r" % header)
    check(data == read(path(expected)), "npy output data")
    # Float output (DEQUANTIZE) as npy.
    p = run("run", path("ops/dequantize_i8_f32.tflite"), "--input",
            path("ops/dequantize_i8_f32_in0.bin"), "--output", out_npy)
    check(p.returncode == 0, "dequantize runs", p)
    header, data = parse_npy(read(out_npy))
    check("'<f4'" in header and "(1, 10, 10, 2,)" in header, "float npy header %r" % header)
    check(data == read(path("ops/dequantize_i8_f32_out0.tflm.bin")), "float npy bit-exact")
    # An npy of the wrong dtype is refused with both sizes named.
    with open(inp_npy, "wb") as f:
        f.write(npy_bytes("<i2", (1, 96, 96, 1), b"\0" * (2 * 9216)))
    p = run("run", path(REFDATA[0][0]), "--input", inp_npy)
    check(p.returncode == 2 and "int8[1,96,96,1]" in p.stderr, "wrong npy dtype: exit 2", p)
    return "ok"


def case_errors():
    model = path("hello_world_int8.tflite")
    good = path("refdata/hello_world/in_0.bin")
    # Wrong input size: expected vs actual bytes.
    p = run("run", model, "--input", path("refdata/person_detection/person_input_int8.bin"))
    check(p.returncode == 2 and "9216 bytes, expected 1" in p.stderr, "wrong input size", p)
    # Missing input file, named.
    p = run("run", model, "--input", "/nonexistent/in.bin")
    check(p.returncode == 2 and "/nonexistent/in.bin" in p.stderr, "missing input", p)
    # Missing model file.
    p = run("run", "/nonexistent/model.tflite", "--input", good)
    check(p.returncode == 2 and "/nonexistent/model.tflite" in p.stderr, "missing model", p)
    # No --input, too many inputs, unknown option, no model.
    p = run("run", model)
    check(p.returncode == 2, "no --input", p)
    p = run("run", model, "--input", good, "--input", good)
    check(p.returncode == 2 and "1 input(s), 2 --input" in p.stderr, "too many inputs", p)
    p = run("run", model, "--input", good, "--bogus", "x")
    check(p.returncode == 2, "unknown option", p)
    p = run("run", "--input", good)
    check(p.returncode == 2, "no model", p)
    # Not a model: refused by the reader (4).
    j = run_json("run", path("README.md"), "--input", good, expect_rc=4)
    check(j["ok"] is False and j["exit_code"] == 4 and "TFL3" in j["error"], "not a model")
    # A model the reader accepts and the runner refuses: the text names the operator.
    blob = bytearray(read(model))
    blob[1184] ^= 0x01  # hello_world: operator 2's bias tensor becomes int8
    bad = os.path.join(TMP, "bad.tflite")
    with open(bad, "wb") as f:
        f.write(blob)
    p = run("run", bad, "--input", good)
    check(p.returncode == 4 and "operator 2 (FULLY_CONNECTED): bias is int8, not int32"
          in p.stderr, "runner refusal names the operator", p)
    # A truncated model.
    with open(bad, "wb") as f:
        f.write(read(model)[:1000])
    p = run("run", bad, "--input", good)
    check(p.returncode == 4 and "refused" in p.stderr, "truncated model", p)
    # --json usage error object.
    j = run_json("run", model, "--input", "/nonexistent/in.bin", expect_rc=2)
    check(j["ok"] is False and j["exit_code"] == 2 and j["kind"] == "usage", "json usage error")
    # Output to an unwritable place.
    p = run("run", model, "--input", good, "--output", "/nonexistent/dir/out.bin")
    check(p.returncode == 2 and "/nonexistent/dir/out.bin" in p.stderr, "unwritable output", p)
    return "ok"


def case_help():
    p = run("run", "--help")
    check(p.returncode == 0 and p.stdout.startswith("usage: utvm [--connect T [--host-driven]] [--json] run MODEL.tflite"),
          "run --help", p)
    p = run("--help")
    check(p.returncode == 0 and "run MODEL --input IN" in p.stdout, "--help lists run", p)
    return "ok"


def main():
    failed = 0
    for name, fn in sorted(globals().items()):
        if not name.startswith("case_"):
            continue
        try:
            result = fn()
            print("ok   %-28s %s" % (name[5:], result))
        except AssertionError as e:
            failed += 1
            print("FAIL %-28s %s" % (name[5:], e))
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

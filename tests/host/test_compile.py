#!/usr/bin/python3
"""End-to-end tests of `utvm compile MODEL --generic -o DIR` (no device).

Usage: test_compile.py <utvm binary> <shared/models directory>
For every model of shared/models, ops/cases.json and the operator case sets (tests/tools/
op_cases.py: ops2, tflm): the files are written, graph.json parses
with json and follows PROTOCOL.md 6.1 (allowed keys only, names <= 119 chars, string attrs,
node_row_ptr, one dltype/storage_id/shape per entry, 1..6 dims, at most 9 tensors per
operator as TVM's C graph executor passes, 17 for utvm_k_lstm, which needs utvm's), params.bin parses per 6.2 (magics, names = the graph's parameter nodes, sizes =
prod(shape) x element size), and the report matches. Then the error cases.
"""

import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import op_cases  # noqa: E402

UTVM = sys.argv[1]
MODELS = sys.argv[2]
FAILED = []

DTYPE_BYTES = {"int8": 1, "uint8": 1, "int16": 2, "int32": 4, "int64": 8, "float32": 4}
DL = {(0, 8): "int8", (1, 8): "uint8", (0, 16): "int16", (0, 32): "int32", (0, 64): "int64",
      (2, 32): "float32"}


def check(cond, what):
    if not cond:
        FAILED.append(what)
        print("FAIL", what)


def run(*args):
    return subprocess.run([UTVM] + list(args), capture_output=True, text=True, timeout=120)


def parse_params(blob):
    at = 0

    def u64():
        nonlocal at
        v = struct.unpack_from("<Q", blob, at)[0]
        at += 8
        return v

    assert u64() == 0xF7E58D4F05049CB7, "list magic"
    assert u64() == 0, "reserved"
    n = u64()
    names = []
    for _ in range(n):
        ln = u64()
        names.append(blob[at:at + ln].decode())
        at += ln
    assert u64() == n, "array count equals name count"
    arrays = []
    for _ in range(n):
        assert u64() == 0xDD5E40F096B4A13F, "array magic"
        assert u64() == 0, "array reserved"
        dev_type, dev_id, ndim = struct.unpack_from("<iii", blob, at)
        at += 12
        code, bits, lanes = struct.unpack_from("<BBH", blob, at)
        at += 4
        assert (dev_type, dev_id) == (1, 0), "cpu(0)"
        shape = list(struct.unpack_from("<%dq" % ndim, blob, at))
        at += 8 * ndim
        size = u64()
        count = 1
        for d in shape:
            count *= d
        assert size == count * ((bits + 7) // 8), "data_byte_size"
        arrays.append((DL[(code, bits)], shape, blob[at:at + size]))
        at += size
    assert at == len(blob), "blob fully consumed"
    return dict(zip(names, arrays))


def check_graph(g, params, label):
    check(set(g) <= {"nodes", "arg_nodes", "heads", "attrs", "node_row_ptr"} and
          set(g) >= {"nodes", "arg_nodes", "heads", "attrs", "node_row_ptr"}, label + ": keys")
    nodes = g["nodes"]
    n_entries = g["node_row_ptr"][-1]
    check(g["node_row_ptr"] == list(range(len(nodes) + 1)), label + ": node_row_ptr")
    attrs = g["attrs"]
    check(set(attrs) == {"dltype", "storage_id", "shape"}, label + ": graph attrs")
    check(attrs["dltype"][0] == "list_str" and len(attrs["dltype"][1]) == n_entries,
          label + ": dltype")
    check(attrs["storage_id"][0] == "list_int" and len(attrs["storage_id"][1]) == n_entries,
          label + ": storage_id")
    check(attrs["shape"][0] == "list_shape" and len(attrs["shape"][1]) == n_entries,
          label + ": shape")
    check(all(1 <= len(s) <= 6 for s in attrs["shape"][1]), label + ": 1..6 dims")
    check(all(d in DTYPE_BYTES for d in attrs["dltype"][1]), label + ": dtypes")
    names = set()
    nulls = []
    for i, n in enumerate(nodes):
        check(len(n["name"]) <= 119 and n["name"] not in names, label + ": unique short names")
        names.add(n["name"])
        if n["op"] == "null":
            check(set(n) == {"op", "name", "inputs"} and n["inputs"] == [], label + ": null node")
            nulls.append(i)
        else:
            check(n["op"] == "tvm_op" and set(n) == {"op", "name", "attrs", "inputs"},
                  label + ": op node keys")
            a = n["attrs"]
            check(all(isinstance(v, str) for v in a.values()), label + ": string attrs")
            check(a["flatten_data"] == "0" and a["num_outputs"] == "1" and
                  int(a["num_inputs"]) == len(n["inputs"]), label + ": op attrs")
            check(a["func_name"].startswith("utvm_k_") and len(a["func_name"]) <= 119,
                  label + ": func_name")
            most = 17 if a["func_name"] == "utvm_k_lstm" else 9
            check(len(n["inputs"]) + 1 <= most, label + ": at most %d tensors" % most)
            check(all(e[0] < i and e[1] == 0 for e in n["inputs"]), label + ": inputs before")
            pnode = nodes[n["inputs"][-1][0]]
            check(pnode["op"] == "null" and pnode["name"].endswith("_params") and
                  attrs["dltype"][1][n["inputs"][-1][0]] == "int32", label + ": op params last")
    check(g["arg_nodes"] == nulls, label + ": arg_nodes are the null nodes")
    check(nodes[0]["name"] == "input0", label + ": input0 first")
    inputs = [n["name"] for n in nodes if n["name"].startswith("input")]
    check(set(params) == set(n["name"] for n in nodes if n["op"] == "null") - set(inputs),
          label + ": every parameter in the blob")
    for i, n in enumerate(nodes):
        if n["name"] in params:
            dt, shape, data = params[n["name"]]
            check(dt == attrs["dltype"][1][i] and shape == attrs["shape"][1][i],
                  label + ": param %s dtype/shape" % n["name"])
            if n["name"].endswith("_params"):
                words = struct.unpack_from("<%di" % (len(data) // 4), data)
                check(words[0] == 0x504B0003 and words[2] == len(words),
                      label + ": op params header of %s" % n["name"])
    check(len(g["heads"]) >= 1 and all(h[0] < len(nodes) for h in g["heads"]), label + ": heads")


def case_models():
    with open(os.path.join(MODELS, "ops", "cases.json")) as f:
        cases = json.load(f)["cases"]
    models = [m for m in sorted(os.listdir(MODELS)) if m.endswith(".tflite")]
    models += ["refdata/network_tester/network_model.tflite"]
    models += sorted(set("ops/" + c["model"] for c in cases))
    paths = [os.path.join(MODELS, m) for m in models]
    n_sets = {}
    for set_name, folder, case, pending in op_cases.cases(MODELS):
        if not pending:
            models.append(set_name + "/" + case["model"])
            paths.append(os.path.join(folder, case["model"]))
            n_sets[set_name] = n_sets.get(set_name, 0) + 1
    with tempfile.TemporaryDirectory() as tmp:
        for m, model_path in zip(models, paths):
            out = os.path.join(tmp, m.replace("/", "_"))
            p = run("--json", "compile", model_path, "--generic", "-o", out)
            check(p.returncode == 0, "%s: exit %d %s" % (m, p.returncode, p.stderr))
            if p.returncode != 0:
                continue
            report = json.loads(p.stdout)
            with open(os.path.join(out, "graph.json")) as f:
                g = json.load(f)
            with open(os.path.join(out, "params.bin"), "rb") as f:
                params = parse_params(f.read())
            check_graph(g, params, m)
            ops = sum(1 for n in g["nodes"] if n["op"] == "tvm_op")
            check(report["ok"] and report["operators"] == ops and
                  report["entries"] == len(g["nodes"]) and report["parameters"] == len(params),
                  m + ": report")
    print("compiled and checked %d models (operator case sets: %s)" %
          (len(models), ", ".join("%s %d" % kv for kv in n_sets.items())))
    check(len(models) == 40 + sum(n_sets.values()),
          "7 models, network_tester, 32 op models and the operator case sets' %r" % n_sets)


def case_op_cases_pending():
    """A pending case of an operator case set is refused by both compilers (exit 4) with a text
    naming the operator, and nothing is written."""
    n = 0
    with tempfile.TemporaryDirectory() as tmp:
        for _, folder, case, pending in op_cases.cases(MODELS):
            if not pending:
                continue
            model = os.path.join(folder, case["model"])
            for flags in (["--generic"], ["--name", "net", "--cpu", "cortex-m4"]):
                out = os.path.join(tmp, case["name"] + flags[0])
                p = run("compile", model, *flags, "-o", out)
                check(p.returncode == 4 and ("operator" in p.stderr or "tensor" in p.stderr) and
                      not os.path.exists(os.path.join(out, "graph.json")) and
                      not os.path.exists(os.path.join(out, "net.c")),
                      "%s %s (pending): exit 4 with a text: %d %r" %
                      (case["name"], flags[0], p.returncode, p.stderr))
            n += 1
    print("pending operator cases refused by both compilers: %d" % n)


def case_text_report():
    with tempfile.TemporaryDirectory() as tmp:
        p = run("compile", os.path.join(MODELS, "hello_world_int8.tflite"), "--generic", "-o",
                os.path.join(tmp, "hw"))
        check(p.returncode == 0 and "operators          3" in p.stdout and
              "parameters" in p.stdout, "text report: %r" % p.stdout)


def case_errors():
    with tempfile.TemporaryDirectory() as tmp:
        hw = os.path.join(MODELS, "hello_world_int8.tflite")
        p = run("compile", hw, "-o", os.path.join(tmp, "a"))
        check(p.returncode == 2 and "--generic" in p.stderr, "no --generic is a usage error")
        p = run("compile", hw, "--generic")
        check(p.returncode == 2 and "-o DIR" in p.stderr, "no -o is a usage error")
        p = run("compile", os.path.join(tmp, "missing.tflite"), "--generic", "-o", tmp)
        check(p.returncode == 2 and "cannot read model" in p.stderr, "missing model: exit 2")
        bad = os.path.join(tmp, "bad.tflite")
        with open(hw, "rb") as f:
            data = f.read()
        with open(bad, "wb") as f:
            f.write(data[:len(data) // 2])
        p = run("--json", "compile", bad, "--generic", "-o", os.path.join(tmp, "b"))
        check(p.returncode == 4 and json.loads(p.stdout)["kind"] == "model",
              "truncated model: exit 4 %r" % p.stdout)
        check(not os.path.exists(os.path.join(tmp, "b", "graph.json")), "nothing written")
        p = run("compile", hw, "--generic", "-o", os.path.join(tmp, "no", "such", "dir"))
        check(p.returncode == 2 and "cannot create" in p.stderr, "unwritable DIR: exit 2")
        p = run("compile", "--help")
        check(p.returncode == 0 and "--generic -o DIR" in p.stdout, "compile --help")


def case_help_texts():
    """compile --help names --generic where it describes it, and the MVE paths of M55/M85."""
    p = run("compile", "--help")
    text = " ".join(p.stdout.split())
    check(p.returncode == 0 and "--generic -o DIR compiles MODEL for the kernel functions" in text,
          "compile --help: the --generic paragraph names --generic: %r" % p.stdout)
    check("cortex-m55/m85: MVE" in text and "m55/m85: DSP" not in text,
          "compile --help: MVE for M55/M85: %r" % p.stdout)


def case_failed_compile_leaves_no_dir():
    """A failed `compile -o DIR` removes DIR when it created it, and keeps a DIR that existed."""
    hw = os.path.join(MODELS, "hello_world_int8.tflite")
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "bad.tflite")
        with open(hw, "rb") as f:
            data = f.read()
        with open(bad, "wb") as f:
            f.write(data[:len(data) // 2])
        for why, args in [("bad --cpu", [hw, "--name", "net", "--cpu", "cortex-m99"]),
                          ("truncated model", [bad, "--name", "net", "--cpu", "host"]),
                          ("missing --params", [hw, "--name", "net", "--cpu", "host", "--params",
                                                os.path.join(tmp, "missing.params")]),
                          ("--generic, truncated model", [bad, "--generic"])]:
            out = os.path.join(tmp, "out-" + why.replace(" ", "-"))
            p = run("compile", *args, "-o", out)
            check(p.returncode in (2, 4) and not os.path.exists(out),
                  "%s: exit %d and no %s left (%r)" % (why, p.returncode, out,
                                                      os.listdir(tmp)))
        kept = os.path.join(tmp, "kept")
        os.mkdir(kept)
        with open(os.path.join(kept, "mine.txt"), "w") as f:
            f.write("the user's")
        p = run("compile", bad, "--name", "net", "--cpu", "host", "-o", kept)
        check(p.returncode == 4 and os.listdir(kept) == ["mine.txt"],
              "a DIR that existed stays as it was: %r" % os.listdir(kept))
        empty = os.path.join(tmp, "empty")
        os.mkdir(empty)
        p = run("compile", bad, "--name", "net", "--cpu", "host", "-o", empty)
        check(p.returncode == 4 and os.path.isdir(empty),
              "an empty DIR that existed is not removed")
        p = run("compile", hw, "--name", "net", "--cpu", "host", "-o", os.path.join(tmp, "good"))
        check(p.returncode == 0 and sorted(os.listdir(os.path.join(tmp, "good"))) ==
              ["net.c", "net.h", "net_data.c"], "a successful compile writes its files")


FLOAT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tflm_float")


def case_float_without_fpu():
    """A float32 model for a core without an FPU (cortex-m0, cortex-m0plus, cortex-m3: utvm
    builds no float32 operators there, UTVM_HAVE_F32 0) is refused at build time with a text
    naming the core and the first float32 operator, and nothing is written, in every mode;
    the same model compiles for cortex-m4, and a model whose float32 operators only convert
    (QUANTIZE, DEQUANTIZE) compiles for cortex-m3."""
    kws = os.path.join(FLOAT_DIR, "kws_dscnn_f32.tflite")
    with tempfile.TemporaryDirectory() as tmp:
        for cpu in ("cortex-m0", "cortex-m0plus", "cortex-m3"):
            for mode in (["--name", "net", "-o", os.path.join(tmp, "c")], ["--report"],
                         ["--generic", "-o", os.path.join(tmp, "g")],
                         ["--mlf", os.path.join(tmp, "m.tar")]):
                p = run("compile", kws, "--cpu", cpu, *mode)
                check(p.returncode == 4 and ("--cpu %s has no FPU" % cpu) in p.stderr and
                      "conv2d_f32" in p.stderr and os.listdir(tmp) == [],
                      "float32 for %s %s refused before writing: exit %d %r %r" %
                      (cpu, mode[0], p.returncode, p.stderr, os.listdir(tmp)))
        p = run("--json", "compile", kws, "--cpu", "cortex-m3", "--report")
        check(p.returncode == 4 and json.loads(p.stdout)["kind"] == "model",
              "float32 for cortex-m3, --json: %r" % p.stdout)
        p = run("compile", kws, "--cpu", "cortex-m4", "--name", "net", "-o",
                os.path.join(tmp, "m4"))
        check(p.returncode == 0, "float32 for cortex-m4 compiles: %r" % p.stderr)
        p = run("compile", os.path.join(FLOAT_DIR, "quant_add_i8_dequant_f32.tflite"), "--cpu",
                "cortex-m3", "--name", "net", "-o", os.path.join(tmp, "q"))
        check(p.returncode == 0, "QUANTIZE/DEQUANTIZE for cortex-m3 compiles: %r" % p.stderr)


if __name__ == "__main__":
    case_models()
    case_op_cases_pending()
    case_text_report()
    case_errors()
    case_help_texts()
    case_failed_compile_leaves_no_dir()
    case_float_without_fpu()
    if FAILED:
        print("%d failure(s)" % len(FAILED))
        sys.exit(1)
    print("all compile cases passed")

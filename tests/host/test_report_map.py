#!/usr/bin/python3
"""The memory report against the link map of the shipped standalone-model images.

Usage: test_report_map.py <utvm binary> <shared/models directory> <board build dir>...
For each board build (build/<board>: bin/utvm-ai-<NET>.map of the seven models, utvm-sizes.txt) and
each model, runs `utvm --json compile MODEL --report --cpu CORE --sizes TABLE` and compares it
with what the linker placed (docs/AI.md, "The memory report"), byte for byte per kind of
section (text, rodata, data, bss):
  kernels  the input sections of libutvm_kernels.a
  runtime  those of libutvm_ai.a and libutvm_common.a
  network  those of NET.c (code and tables)
  weights  those of NET_data.c
each at its size in the object (a string section the linker merged with others counts at its
size before merging). The application's buffers (ai_main.c's activations, input and output)
must have the report's sizes, and span the report's activations plus IO with 16-byte alignment.
"""

import json
import os
import re
import subprocess
import sys

UTVM, MODELS = sys.argv[1:3]
BOARDS = sys.argv[3:]
NETS = {"kws": "mlperf_tiny_kws_dscnn_int8.tflite", "ic": "mlperf_tiny_ic_resnet8_int8.tflite",
        "person": "person_detect_int8.tflite", "hello": "hello_world_int8.tflite",
        "speech": "micro_speech_int8.tflite", "vww": "mlperf_tiny_vww_mobilenetv1_int8.tflite",
        "ad": "mlperf_tiny_ad_autoencoder_int8.tflite"}
# The compile options each image is built with (ports/cortex-m/CMakeLists.txt, utvm_ai_image).
PATCHES = ["--patches", "auto"]
FLAGS = {"kws": [], "ic": [], "person": PATCHES, "hello": [], "speech": PATCHES, "vww": PATCHES,
         "ad": ["--requant", "tables"]}
KINDS = ("text", "rodata", "data", "bss")
ROWS = ("kernels", "network", "weights", "runtime")
IGNORED = re.compile(r"^\.(comment|ARM\.attributes|debug|note|group|iplt|rel|igot|got|glue|v4_bx|vfp11)")


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def kind_of(section):
    for kind in KINDS:
        if section == "." + kind or section.startswith("." + kind + "."):
            return kind
    return None


def input_sections(path):
    """(section, size, file, address) of every input section in the map's memory map."""
    with open(path) as f:
        lines = f.read().split("\n")
    start = lines.index("Linker script and memory map")
    out = []
    pending = None
    for line in lines[start:]:
        m = re.match(r"^ +0x[0-9a-f]+ \(size before relaxing\)$", line)
        if m and out:
            before = int(line.split()[0], 16)
            out[-1] = (out[-1][0], before, out[-1][2], out[-1][3])
            continue
        m = re.match(r"^ (\.\S+|COMMON)$", line)
        if m:
            pending = m.group(1)
            continue
        m = re.match(r"^ (\.\S+|COMMON) +0x([0-9a-f]+) +0x([0-9a-f]+) (\S.*)$", line)
        if m:
            out.append((m.group(1), int(m.group(3), 16), m.group(4), int(m.group(2), 16)))
        elif pending is not None:
            m = re.match(r"^ +0x([0-9a-f]+) +0x([0-9a-f]+) (\S.*)$", line)
            if m:
                out.append((pending, int(m.group(2), 16), m.group(3), int(m.group(1), 16)))
        pending = None
    return out


def row_of(path, net):
    if "libutvm_kernels.a(" in path:
        return "kernels"
    if "libutvm_ai.a(" in path or "libutvm_common.a(" in path:
        return "runtime"
    if path.endswith("/%s.c.obj" % net):
        return "network"
    if path.endswith("/%s_data.c.obj" % net):
        return "weights"
    return None


def map_rows(path, net):
    rows = {r: dict.fromkeys(KINDS, 0) for r in ROWS}
    app = {}
    for section, size, obj, address in input_sections(path):
        row = row_of(obj, net)
        if obj.endswith("/ai_main.c.obj") and section in (".bss.activations", ".bss.input",
                                                          ".bss.output"):
            app[section] = (address, size)
        if row is None or size == 0:
            continue
        kind = kind_of(section)
        if kind is None:
            check(IGNORED.match(section) is not None,
                  "%s: %s of %s is neither code nor data" % (path, section, obj))
            continue
        rows[row][kind] += size
    return rows, app


def table_core(table):
    with open(table) as f:
        for line in f:
            if line.startswith("core "):
                return line.split()[1]
    raise AssertionError("%s: no core line" % table)


def main():
    check(len(BOARDS) > 0, "at least one board build")
    compared = 0
    for build in BOARDS:
        table = os.path.join(build, "utvm-sizes.txt")
        core = table_core(table)
        for net, model in NETS.items():
            path = os.path.join(build, "bin", "utvm-ai-%s.map" % net)
            p = subprocess.run([UTVM, "--json", "compile", os.path.join(MODELS, model),
                                "--report", "--cpu", core, "--sizes", table, "--name", net] +
                               FLAGS[net],
                               capture_output=True, text=True, timeout=120)
            check(p.returncode == 0, "%s %s: report failed: %s" % (build, net, p.stderr))
            report = json.loads(p.stdout)
            memory = report["memory"]
            rows, app = map_rows(path, net)
            for row in ROWS:
                for kind in KINDS:
                    check(memory[row][kind] == rows[row][kind],
                          "%s %s: %s %s: report %d, link map %d" %
                          (os.path.basename(build), net, row, kind, memory[row][kind],
                           rows[row][kind]))
            check(report["kernel_flash_bytes"] == sum(rows["kernels"][k] for k in KINDS[:3]),
                  "%s %s: kernel_flash_bytes" % (build, net))
            for kind in KINDS:
                total = sum(rows[r][kind] for r in ROWS)
                check(memory["total"][kind] == total, "%s %s: total %s" % (build, net, kind))
            check(set(app) == {".bss.activations", ".bss.input", ".bss.output"},
                  "%s: ai_main.c's buffers in the map" % path)
            check(app[".bss.activations"][1] == report["activations_bytes"],
                  "%s: activations %d, report %d" % (path, app[".bss.activations"][1],
                                                    report["activations_bytes"]))
            check(app[".bss.input"][1] + app[".bss.output"][1] == report["io_bytes"],
                  "%s: IO bytes" % path)
            low = min(a for a, _ in app.values())
            high = max(a + s for a, s in app.values())
            span = ((high - low) + 15) // 16 * 16
            aligned = (report["activations_bytes"] + 15) // 16 * 16 + report["io_aligned_bytes"]
            check(span == aligned, "%s: buffers span %d, report %d" % (path, span, aligned))
            flash = memory["total"]["text"] + memory["total"]["rodata"] + memory["total"]["data"]
            print("%s %s (%s): flash %d B (kernels %d, network %d, weights %d, runtime %d), "
                  "RAM %d B + activations %d + IO %d (%d aligned): equal to the link map" %
                  (os.path.basename(build), net, core, flash, memory["kernels"]["flash"],
                   memory["network"]["flash"], memory["weights"]["flash"],
                   memory["runtime"]["flash"], memory["total"]["ram"],
                   report["activations_bytes"], report["io_bytes"], report["io_aligned_bytes"]))
            compared += 1
    print("%d images compared" % compared)


if __name__ == "__main__":
    main()

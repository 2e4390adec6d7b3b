#!/usr/bin/env python3
"""Guards a committed TFLM-oracle data set (default tests/data/tflm_float): every file that
cases.json lists exists with the recorded size and sha256, no unlisted file lies in the folder,
and every model parses as a TFLite flatbuffer (identifier TFL3, schema version 3, one subgraph,
one graph input, one graph output) whose tensors have the types cases.json says (FLOAT32 where
the case says float32), with input and output files of the graph input's and output's size.

Python 3 standard library only; no TFLM, no fetching.

Usage: check_cases.py [DATA_DIR]     (exit status 0: all good; 1: a problem, listed)
"""

import hashlib
import json
import math
import os
import struct
import sys

TYPES = {0: "float32", 1: "float16", 2: "int32", 3: "uint8", 4: "int64", 5: "string",
         6: "bool", 7: "int16", 9: "int8", 10: "float64"}
SIZES = {"float32": 4, "int32": 4, "int64": 8, "int16": 2, "int8": 1, "uint8": 1}


class Table:
    """A FlatBuffers table, fields read by index; bounds-checked (a bad file raises)."""

    def __init__(self, buf, pos):
        self.buf = buf
        self.pos = pos
        self.vtable = pos - self._u("<i", pos)
        self.vsize = self._u("<H", self.vtable)

    def _u(self, fmt, at):
        if at < 0 or at + struct.calcsize(fmt) > len(self.buf):
            raise ValueError("offset %d out of the file" % at)
        return struct.unpack_from(fmt, self.buf, at)[0]

    def _field(self, i):
        entry = 4 + 2 * i
        if entry >= self.vsize:
            return None
        off = self._u("<H", self.vtable + entry)
        return self.pos + off if off else None

    def scalar(self, i, fmt, default=0):
        at = self._field(i)
        return default if at is None else self._u("<" + fmt, at)

    def _ref(self, i):
        at = self._field(i)
        return None if at is None else at + self._u("<I", at)

    def table(self, i):
        at = self._ref(i)
        return None if at is None else Table(self.buf, at)

    def scalars(self, i, fmt):
        at = self._ref(i)
        if at is None:
            return []
        n = self._u("<I", at)
        size = struct.calcsize("<" + fmt)
        if at + 4 + n * size > len(self.buf):
            raise ValueError("vector out of the file")
        return list(struct.unpack_from("<%d%s" % (n, fmt), self.buf, at + 4))

    def tables(self, i):
        at = self._ref(i)
        if at is None:
            return []
        return [Table(self.buf, at + 4 + 4 * k + self._u("<I", at + 4 + 4 * k))
                for k in range(self._u("<I", at))]

    def string(self, i):
        at = self._ref(i)
        if at is None:
            return ""
        n = self._u("<I", at)
        return self.buf[at + 4:at + 4 + n].decode()


def parse_model(buf):
    """(tensors {name: (dtype, shape)}, input index list, output index list, tensor list)."""
    if len(buf) < 8 or buf[4:8] != b"TFL3":
        raise ValueError("no TFL3 file identifier")
    root = Table(buf, struct.unpack_from("<I", buf, 0)[0])
    if root.scalar(0, "I") != 3:
        raise ValueError("schema version %d, not 3" % root.scalar(0, "I"))
    subgraphs = root.tables(2)
    if len(subgraphs) != 1:
        raise ValueError("%d subgraphs" % len(subgraphs))
    sg = subgraphs[0]
    tensors = [(t.string(3), TYPES.get(t.scalar(1, "b"), "type%d" % t.scalar(1, "b")),
                t.scalars(0, "i")) for t in sg.tables(0)]
    if not sg.tables(3):
        raise ValueError("no operators")
    return tensors, sg.scalars(1, "i"), sg.scalars(2, "i")


def check_case(folder, c, problems):
    name = c["name"]

    def bad(msg):
        problems.append("%s: %s" % (name, msg))

    files = c.get("files", {})
    listed = set(files) | {c["model"]} | {f for p in c["pairs"] for f in p}
    for f in sorted(listed):
        path = os.path.join(folder, f)
        if not os.path.isfile(path):
            bad("%s missing" % f)
            continue
        data = open(path, "rb").read()
        want = files.get(f)
        if f == c["model"]:
            want = dict(bytes=c["bytes"], sha256=c["sha256"])
            if f in files and files[f] != want:
                bad("%s: files entry differs from bytes/sha256" % f)
        if want is None:
            bad("%s has no size and sha256 in cases.json" % f)
            continue
        if len(data) != want["bytes"]:
            bad("%s is %d bytes, cases.json says %d" % (f, len(data), want["bytes"]))
        if hashlib.sha256(data).hexdigest() != want["sha256"]:
            bad("%s sha256 differs from cases.json" % f)
    path = os.path.join(folder, c["model"])
    if not os.path.isfile(path):
        return listed
    try:
        tensors, inputs, outputs = parse_model(open(path, "rb").read())
    except (ValueError, struct.error, UnicodeDecodeError, IndexError) as e:
        bad("%s does not parse: %s" % (c["model"], e))
        return listed
    if len(inputs) != 1 or len(outputs) != 1:
        bad("%d graph inputs, %d outputs (want 1 and 1)" % (len(inputs), len(outputs)))
        return listed
    by_name = {t[0]: t for t in tensors}
    for role, index, io in (("input", inputs[0], c["input"]), ("output", outputs[0],
                                                                 c["output"])):
        if not 0 <= index < len(tensors):
            bad("graph %s index %d out of range" % (role, index))
            continue
        _, dtype, shape = tensors[index]
        if dtype != io["dtype"] or shape != io["shape"]:
            bad("graph %s is %s %s, cases.json says %s %s" % (role, dtype, shape, io["dtype"],
                                                               io["shape"]))
        size = SIZES.get(io["dtype"], 0) * math.prod(io["shape"])
        for pair in c["pairs"]:
            f = os.path.join(folder, pair[0 if role == "input" else 1])
            if os.path.isfile(f) and os.path.getsize(f) != size:
                bad("%s is %d bytes, the graph %s %d" % (os.path.basename(f),
                                                         os.path.getsize(f), role, size))
    if c["type"].startswith("float32") and (c["input"]["dtype"] != "float32" or
                                            c["output"]["dtype"] != "float32"):
        bad("type %s but graph input/output not float32" % c["type"])
    for op in c.get("graph", []):
        for t in op["inputs"] + op["outputs"]:
            if t is None:
                continue
            got = by_name.get(t["name"])
            if got is None:
                bad("tensor %s not in the model" % t["name"])
            elif got[1] != t["dtype"] or got[2] != t["shape"]:
                bad("tensor %s is %s %s in the model, %s %s in cases.json" % (
                    t["name"], got[1], got[2], t["dtype"], t["shape"]))
    return listed


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "data", "tflm_float")
    doc = json.load(open(os.path.join(folder, "cases.json")))
    problems = []
    listed = {"cases.json", "README.md"}
    for c in doc["cases"]:
        listed |= check_case(folder, c, problems)
    for f in sorted(set(os.listdir(folder)) - listed):
        problems.append("%s: in the folder, not in cases.json" % f)
    if not doc["cases"]:
        problems.append("cases.json lists no case")
    n_files = len(listed) - 2
    for p in problems:
        print("FAIL " + p)
    print("%s: %d cases, %d files: %s" % (folder, len(doc["cases"]), n_files,
                                          "%d problem(s)" % len(problems) if problems
                                          else "OK"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

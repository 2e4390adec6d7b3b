#!/usr/bin/env python3
"""Checks tflite_ref.py against TensorFlow Lite Micro: runs every case of shared/models/ops
(cases.json, the .tflite files for the constant tensors) through the reference and compares
with the outputs TFLM's reference kernels produced (<case>_out<k>.tflm.bin), byte for byte.

The C kernels are compared with tflite_ref.py by test_kernels_vectors; this closes the loop to
TFLM itself on the option space the cases cover.

Usage: check_tflm_ops.py <shared/models/ops directory> [operator ...]
(with operators: only the cases whose graph has just those, e.g. RESIZE_BILINEAR of
shared/models/ops2, PRELU of tests/data/tflm: the operator case sets)
"""

import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tflite_ref as ref  # noqa: E402


class Table:
    """A FlatBuffers table: fields read by their index in the schema."""

    def __init__(self, buf, pos):
        self.buf = buf
        self.pos = pos
        vtable = pos - struct.unpack_from("<i", buf, pos)[0]
        self.vtable = vtable
        self.vtable_size = struct.unpack_from("<H", buf, vtable)[0]

    def _field(self, index):
        entry = 4 + 2 * index
        if entry >= self.vtable_size:
            return None
        offset = struct.unpack_from("<H", self.buf, self.vtable + entry)[0]
        return self.pos + offset if offset else None

    def scalar(self, index, fmt, default=0):
        at = self._field(index)
        return default if at is None else struct.unpack_from("<" + fmt, self.buf, at)[0]

    def _indirect(self, at):
        return at + struct.unpack_from("<I", self.buf, at)[0]

    def table(self, index):
        at = self._field(index)
        return None if at is None else Table(self.buf, self._indirect(at))

    def vector(self, index):
        """(start, length) of a vector field, or None."""
        at = self._field(index)
        if at is None:
            return None
        vec = self._indirect(at)
        return vec + 4, struct.unpack_from("<I", self.buf, vec)[0]

    def scalars(self, index, fmt):
        v = self.vector(index)
        if v is None:
            return []
        size = struct.calcsize("<" + fmt)
        return [struct.unpack_from("<" + fmt, self.buf, v[0] + i * size)[0] for i in range(v[1])]

    def tables(self, index):
        v = self.vector(index)
        if v is None:
            return []
        return [Table(self.buf, self._indirect(v[0] + 4 * i)) for i in range(v[1])]

    def string(self, index):
        v = self.vector(index)
        return "" if v is None else self.buf[v[0]:v[0] + v[1]].decode()


def load_tensors(path):
    """name -> dict(shape, type, scales, zero_points, data bytes or None)."""
    buf = open(path, "rb").read()
    model = Table(buf, struct.unpack_from("<I", buf, 0)[0])
    buffers = model.tables(4)
    subgraph = model.tables(2)[0]
    tensors = {}
    for t in subgraph.tables(0):
        quant = t.table(4)
        data = None
        b = t.scalar(2, "I")
        if b < len(buffers):
            v = buffers[b].vector(0)
            if v is not None and v[1] > 0:
                data = buf[v[0]:v[0] + v[1]]
        tensors[t.string(3)] = dict(
            shape=t.scalars(0, "i"), type=t.scalar(1, "b"), data=data,
            scales=quant.scalars(2, "f") if quant else [],
            zero_points=quant.scalars(3, "q") if quant else [])
    return tensors


def int8_list(data):
    return list(struct.unpack("<%db" % len(data), data))


def int32_list(data):
    return list(struct.unpack("<%di" % (len(data) // 4), data))


def prod(shape):
    return math.prod(shape) if shape else 1


def run_op(op, tensors, values):
    """Runs one graph operator; values maps tensor names to flat lists."""
    ins = op["inputs"]
    out = op["outputs"][0]
    opts = op.get("options") or {}
    t_in = tensors[ins[0]["name"]]
    t_out = tensors[out["name"]]
    x = values[ins[0]["name"]]
    in_scale, in_zp = (t_in["scales"] or [0.0])[0], (t_in["zero_points"] or [0])[0]
    out_scale, out_zp = (t_out["scales"] or [0.0])[0], (t_out["zero_points"] or [0])[0]
    act = opts.get("fusedActivationFunction", 0)
    name = op["op"]

    def const(i):
        t = tensors[ins[i]["name"]]
        return int32_list(t["data"]) if t["type"] == 2 else int8_list(t["data"])

    if name in ("CONV_2D", "DEPTHWISE_CONV_2D"):
        t_f = tensors[ins[1]["name"]]
        bias = const(2) if len(ins) > 2 and ins[2] is not None else None
        n, ih, iw, ic = t_in["shape"]
        fshape = t_f["shape"]
        stride = (opts["strideH"], opts["strideW"])
        dil = (opts["dilationHFactor"], opts["dilationWFactor"])
        oh, pt, _ = ref.compute_padding(opts["padding"], stride[0], dil[0], ih, fshape[1])
        ow, pl, _ = ref.compute_padding(opts["padding"], stride[1], dil[1], iw, fshape[2])
        assert [n, oh, ow] == t_out["shape"][:3]
        quant = ref.conv_quant(in_scale, t_f["scales"], out_scale)
        a = ref.activation_range(act, out_scale, out_zp)
        if name == "CONV_2D":
            return ref.conv2d(x, t_in["shape"], const(1), fshape, bias, t_out["shape"], stride, dil,
                              (pt, pl), -in_zp, out_zp, quant, a)
        return ref.depthwise_conv2d(x, t_in["shape"], const(1), fshape, bias, t_out["shape"],
                                    stride, dil, (pt, pl), opts["depthMultiplier"], -in_zp,
                                    out_zp, quant, a)
    if name == "FULLY_CONNECTED":
        t_f = tensors[ins[1]["name"]]
        units, depth = t_f["shape"]
        bias = const(2) if len(ins) > 2 and ins[2] is not None else None
        quant = ref.fc_quant(in_scale, t_f["scales"], out_scale)
        a = ref.activation_range(act, out_scale, out_zp)
        return ref.fully_connected(x, len(x) // depth, depth, const(1), units, bias, -in_zp,
                                   -t_f["zero_points"][0], out_zp, quant, a)
    if name in ("AVERAGE_POOL_2D", "MAX_POOL_2D"):
        n, ih, iw, c = t_in["shape"]
        stride = (opts["strideH"], opts["strideW"])
        filt = (opts["filterHeight"], opts["filterWidth"])
        _, pt, _ = ref.compute_padding(opts["padding"], stride[0], 1, ih, filt[0])
        _, pl, _ = ref.compute_padding(opts["padding"], stride[1], 1, iw, filt[1])
        if t_in["type"] == 7:  # int16: the cases have no activation
            if act != 0:
                raise NotImplementedError("int16 pooling with an activation")
            return ref.pool2d(x, t_in["shape"], t_out["shape"], stride, filt, (pt, pl),
                              (-32768, 32767), name == "AVERAGE_POOL_2D", lowest=-32768)
        a = ref.activation_range(act, out_scale, out_zp)
        return ref.pool2d(x, t_in["shape"], t_out["shape"], stride, filt, (pt, pl), a,
                          name == "AVERAGE_POOL_2D")
    if name in ("ADD", "MUL"):
        t2 = tensors[ins[1]["name"]]
        y = values.get(ins[1]["name"]) or const(1)
        args = (in_scale, in_zp, t2["scales"][0], t2["zero_points"][0], out_scale, out_zp, act)
        if name == "ADD":
            return ref.add(ref.add_params(*args), x, t_in["shape"], y, t2["shape"], t_out["shape"])
        return ref.mul(ref.mul_params(*args), x, t_in["shape"], y, t2["shape"], t_out["shape"])
    if name == "SOFTMAX":
        depth = t_in["shape"][-1]
        p = ref.softmax_params(ref.f32(opts["beta"]), in_scale)
        return ref.softmax(p, x, len(x) // depth, depth)
    if name in ("RESHAPE", "SQUEEZE"):
        return list(x)
    if name == "PAD":
        paddings = const(1)
        before, after = paddings[0::2], paddings[1::2]
        return ref.pad(x, t_in["shape"], before, after, out_zp)[0]
    if name == "CONCATENATION":
        parts = [values.get(i["name"]) or const(k) for k, i in enumerate(ins)]
        return ref.concatenation(parts, [tensors[i["name"]]["shape"] for i in ins], opts["axis"])
    if name == "MEAN":
        p = ref.mean_params(in_scale, in_zp, out_scale, out_zp)
        return ref.mean(p, x, t_in["shape"], const(1))
    if name == "LOGISTIC":
        return ref.logistic(ref.q4_params(in_scale, in_zp), x)
    if name == "TANH":
        return ref.tanh(ref.q4_params(in_scale, in_zp), x)
    if name == "QUANTIZE":
        if t_in["type"] == 0:
            return ref.quantize_f32(x, out_scale, out_zp)
        return ref.requantize(ref.requantize_params(in_scale, in_zp, out_scale, out_zp), x)
    if name == "DEQUANTIZE":
        return ref.dequantize(x, in_scale, in_zp)
    if name == "RESIZE_BILINEAR":
        out_h, out_w = const(1)
        return ref.resize_bilinear_int8(x, t_in["shape"], out_h, out_w, opts["alignCorners"],
                                        opts["halfPixelCenters"])
    if name == "PRELU":
        t_a = tensors[ins[1]["name"]]
        p = ref.prelu_params(in_scale, in_zp, t_a["scales"][0], t_a["zero_points"][0], out_scale,
                             out_zp)
        return ref.prelu(p, x, t_in["shape"], const(1), t_a["shape"], t_out["shape"],
                         16 if t_in["type"] == 7 else 8)
    if name == "BROADCAST_TO":
        return [x[i1] for i1, _ in ref.broadcast_iter(t_in["shape"], [1], t_out["shape"])]
    raise NotImplementedError(name)


def main():
    ops_dir = sys.argv[1]
    only = set(sys.argv[2:])
    cases = json.load(open(os.path.join(ops_dir, "cases.json")))["cases"]
    failures = 0
    checked = 0
    for case in cases:
        if only and not set(op["op"] for op in case["graph"]) <= only:
            continue
        checked += 1
        tensors = load_tensors(os.path.join(ops_dir, case["model"]))
        first = case["graph"][0]["inputs"][0]["name"]
        for in_file, out_file in case["pairs"]:
            raw = open(os.path.join(ops_dir, in_file), "rb").read()
            if tensors[first]["type"] == 0:
                x = list(struct.unpack("<%df" % (len(raw) // 4), raw))
            elif tensors[first]["type"] == 7:
                x = list(struct.unpack("<%dh" % (len(raw) // 2), raw))
            else:
                x = int8_list(raw)
            values = {first: x}
            for op in case["graph"]:
                values[op["outputs"][0]["name"]] = run_op(op, tensors, values)
            result = values[case["graph"][-1]["outputs"][0]["name"]]
            expected_raw = open(os.path.join(ops_dir, out_file), "rb").read()
            last = tensors[case["graph"][-1]["outputs"][0]["name"]]
            if isinstance(result[0], float):
                got = struct.pack("<%df" % len(result), *result)
            elif last["type"] == 7:
                got = struct.pack("<%dh" % len(result), *result)
            else:
                got = struct.pack("<%db" % len(result), *result)
            ok = got == expected_raw
            failures += not ok
            print("%-28s %-30s %s" % (case["name"], out_file, "ok" if ok else "MISMATCH"))
    print("%d mismatches" % failures)
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())

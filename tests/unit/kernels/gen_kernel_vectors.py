#!/usr/bin/env python3
"""Generates kernel_vectors.h: random cases of every int8 kernel with the outputs and prepared
parameters of tflite_ref.py (TFLite's integer arithmetic in Python), for test_kernels_vectors.c.

Usage: gen_kernel_vectors.py <output.h> [seed]

The cases are drawn from a fixed seed, so the header is the same on every build. Each case
holds the model-level description (float scales, zero points, options, shapes) and the
expected prepared parameters and outputs; the C test prepares the parameters with the C
helpers, compares them, runs the kernel and compares the output byte for byte.
"""

import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tflite_ref as ref  # noqa: E402


def loguniform(rng, lo, hi):
    return ref.f32(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def zero_point(rng):
    return rng.choice([-128, 127, 0, rng.randint(-128, 127), rng.randint(-128, 127)])


def int8s(rng, count, lo=-128, hi=127):
    return [rng.randint(lo, hi) for _ in range(count)]


class Writer:
    """Collects C definitions: arrays and case initializers."""

    def __init__(self):
        self.lines = []
        self.counter = 0

    def array(self, ctype, values, fmt=str):
        if values is None:
            return "NULL"
        self.counter += 1
        name = "v%d" % self.counter
        body = ", ".join(fmt(v) for v in values) if values else "0"
        self.lines.append("static const %s %s[] = {%s};" % (ctype, name, body))
        return name

    def i8(self, values):
        return self.array("int8_t", values)

    def i32(self, values):
        return self.array("int32_t", values)

    def f32s(self, values):
        return self.array("float", values, c_float)


def c_float(x):
    return "%sf" % float(x).hex()


def c_double(x):
    return float(x).hex()


def dims(shape):
    return "{%d, %d, %d, %d}" % tuple(shape)


def shape_t(shape):
    padded = list(shape) + [0] * (6 - len(shape))
    return "{%d, {%s}}" % (len(shape), ", ".join(str(d) for d in padded))


def struct_init(fields):
    return "{" + ", ".join(".%s = %s" % (k, v) for k, v in fields.items()) + "}"


def conv_case(rng, w, depthwise):
    n = rng.choice([1, 1, 2])
    ih, iw = rng.randint(1, 9), rng.randint(1, 9)
    fh, fw = rng.randint(1, 4), rng.randint(1, 4)
    stride = (rng.choice([1, 1, 2, 3]), rng.choice([1, 1, 2, 3]))
    dilation = (rng.choice([1, 1, 2, 3]), rng.choice([1, 1, 2, 3]))
    padding = rng.choice([0, 1])
    if depthwise:
        ic = rng.randint(1, 6)
        multiplier = rng.choice([1, 1, 2, 3])
        oc = ic * multiplier
        flt_shape = (1, fh, fw, oc)
        k = fh * fw
    else:
        multiplier = 1
        groups = rng.choice([1, 1, 1, 2])
        fc = rng.randint(1, 5)
        ic = fc * groups
        oc = groups * rng.randint(1, 4)
        flt_shape = (oc, fh, fw, fc)
        k = fh * fw * fc
    oh, pad_top, _ = ref.compute_padding(padding, stride[0], dilation[0], ih, fh)
    ow, pad_left, _ = ref.compute_padding(padding, stride[1], dilation[1], iw, fw)
    if oh < 1 or ow < 1:
        return None
    in_zp, out_zp = zero_point(rng), zero_point(rng)
    in_scale = loguniform(rng, 0.002, 0.1)
    per_channel = rng.random() < 0.7
    filter_scales = [loguniform(rng, 0.0005, 0.05) for _ in range(oc if per_channel else 1)]
    mean_fs = sum(filter_scales) / len(filter_scales)
    out_scale = ref.f32(in_scale * mean_fs * math.sqrt(k) * 60 * rng.uniform(0.05, 3.0))
    activation = rng.choice([0, 0, 1, 2, 3])
    inp = int8s(rng, n * ih * iw * ic)
    flt = int8s(rng, flt_shape[0] * flt_shape[1] * flt_shape[2] * flt_shape[3], -127, 127)
    bias = None if rng.random() < 0.25 else [rng.randint(-60000, 60000) for _ in range(oc)]
    quant = ref.conv_quant(in_scale, filter_scales, out_scale)
    act = ref.activation_range(activation, out_scale, out_zp)
    out_shape = (n, oh, ow, oc)
    if depthwise:
        expected = ref.depthwise_conv2d(inp, (n, ih, iw, ic), flt, flt_shape, bias, out_shape, stride,
                                        dilation, (pad_top, pad_left), multiplier, -in_zp, out_zp,
                                        quant, act)
    else:
        expected = ref.conv2d(inp, (n, ih, iw, ic), flt, flt_shape, bias, out_shape, stride, dilation,
                              (pad_top, pad_left), -in_zp, out_zp, quant, act)
    return struct_init(dict(
        input_scale=c_float(in_scale), input_zero_point=in_zp, filter_scales=w.f32s(filter_scales),
        scale_count=len(filter_scales), output_scale=c_float(out_scale), output_zero_point=out_zp,
        activation=activation, padding=padding, stride_h=stride[0], stride_w=stride[1],
        dilation_h=dilation[0], dilation_w=dilation[1], depth_multiplier=multiplier,
        input_dims=dims((n, ih, iw, ic)), filter_dims=dims(flt_shape), output_dims=dims(out_shape),
        input=w.i8(inp), filter=w.i8(flt), bias=w.i32(bias), expected=w.i8(expected),
        multipliers=w.i32([m for m, _ in quant]), shifts=w.i32([s for _, s in quant]),
        act_min=act[0], act_max=act[1], pad_top=pad_top, pad_left=pad_left))


def fc_case(rng, w):
    batches, depth, units = rng.randint(1, 3), rng.randint(1, 40), rng.randint(1, 12)
    per_channel = rng.random() < 0.3
    in_zp, out_zp = zero_point(rng), zero_point(rng)
    filter_zp = 0 if per_channel or rng.random() < 0.7 else rng.randint(-127, 127)
    in_scale = loguniform(rng, 0.002, 0.2)
    filter_scales = [loguniform(rng, 0.0005, 0.05) for _ in range(units if per_channel else 1)]
    out_scale = ref.f32(in_scale * filter_scales[0] * math.sqrt(depth) * 60 * rng.uniform(0.05, 3.0))
    activation = rng.choice([0, 0, 1, 2, 3])
    inp = int8s(rng, batches * depth)
    flt = int8s(rng, units * depth, -127, 127)
    bias = None if rng.random() < 0.3 else [rng.randint(-40000, 40000) for _ in range(units)]
    quant = ref.fc_quant(in_scale, filter_scales, out_scale)
    act = ref.activation_range(activation, out_scale, out_zp)
    expected = ref.fully_connected(inp, batches, depth, flt, units, bias, -in_zp, -filter_zp, out_zp,
                                   quant, act)
    return struct_init(dict(
        input_scale=c_float(in_scale), input_zero_point=in_zp, filter_zero_point=filter_zp,
        filter_scales=w.f32s(filter_scales), scale_count=len(filter_scales),
        output_scale=c_float(out_scale), output_zero_point=out_zp, activation=activation,
        batches=batches, input_depth=depth, output_depth=units, input=w.i8(inp), filter=w.i8(flt),
        bias=w.i32(bias), expected=w.i8(expected), multipliers=w.i32([m for m, _ in quant]),
        shifts=w.i32([s for _, s in quant]), act_min=act[0], act_max=act[1]))


def pool_case(rng, w):
    average = rng.random() < 0.5
    n, ih, iw, c = rng.choice([1, 1, 2]), rng.randint(1, 9), rng.randint(1, 9), rng.randint(1, 5)
    fh, fw = rng.randint(1, 4), rng.randint(1, 4)
    stride = (rng.randint(1, 3), rng.randint(1, 3))
    padding = rng.choice([0, 1])
    oh, pad_top, _ = ref.compute_padding(padding, stride[0], 1, ih, fh)
    ow, pad_left, _ = ref.compute_padding(padding, stride[1], 1, iw, fw)
    if oh < 1 or ow < 1:
        return None
    scale, zp = loguniform(rng, 0.005, 0.2), zero_point(rng)
    activation = rng.choice([0, 0, 1, 2, 3])
    act = ref.activation_range(activation, scale, zp)
    inp = int8s(rng, n * ih * iw * c)
    try:
        expected = ref.pool2d(inp, (n, ih, iw, c), (n, oh, ow, c), stride, (fh, fw),
                              (pad_top, pad_left), act, average)
    except ref.Unsupported:
        return None
    return struct_init(dict(
        average=int(average), scale=c_float(scale), zero_point=zp, activation=activation,
        padding=padding, stride_h=stride[0], stride_w=stride[1], filter_h=fh, filter_w=fw,
        input_dims=dims((n, ih, iw, c)), output_dims=dims((n, oh, ow, c)), input=w.i8(inp),
        expected=w.i8(expected), pad_top=pad_top, pad_left=pad_left, act_min=act[0],
        act_max=act[1]))


def broadcast_shapes(rng):
    rank = rng.randint(0, 5)
    out = [rng.randint(1, 4) for _ in range(rank)]
    mode = rng.random()
    if mode < 0.3:
        return out, list(out), list(out)
    s1, s2 = [], []
    for d in out:
        pick = rng.random()
        if d == 1 or pick < 0.4:
            s1.append(d), s2.append(d)
        elif pick < 0.7:
            s1.append(d), s2.append(1)
        else:
            s1.append(1), s2.append(d)
    drop1 = rng.randint(0, rank) if rng.random() < 0.3 else 0
    drop2 = rng.randint(0, rank) if rng.random() < 0.3 else 0
    # A dropped leading dimension reads as 1: only drop dimensions the other input carries.
    drop1 = min(drop1, next((i for i, (a, b) in enumerate(zip(s2, out)) if a != b), rank))
    drop2 = min(drop2, next((i for i, (a, b) in enumerate(zip(s1, out)) if a != b), rank))
    return out, s1[drop1:], s2[drop2:]


def binary_case(rng, w, is_mul):
    out_shape, shape1, shape2 = broadcast_shapes(rng)
    count = lambda s: math.prod(s) if s else 1  # noqa: E731
    s1, s2 = loguniform(rng, 0.003, 0.2), loguniform(rng, 0.003, 0.2)
    zp1, zp2, zpo = zero_point(rng), zero_point(rng), zero_point(rng)
    activation = rng.choice([0, 0, 1, 2, 3])
    if is_mul:
        so = ref.f32(s1 * s2 * 128 * rng.uniform(0.05, 4.0))
    else:
        so = ref.f32(max(s1, s2) * rng.uniform(0.3, 3.0))
    try:
        if is_mul:
            p = ref.mul_params(s1, zp1, s2, zp2, so, zpo, activation)
        else:
            p = ref.add_params(s1, zp1, s2, zp2, so, zpo, activation)
    except ref.Unsupported:
        return None
    in1, in2 = int8s(rng, count(shape1)), int8s(rng, count(shape2))
    expected = (ref.mul if is_mul else ref.add)(p, in1, shape1, in2, shape2, out_shape)
    return struct_init(dict(
        is_mul=int(is_mul), scale1=c_float(s1), zero_point1=zp1, scale2=c_float(s2),
        zero_point2=zp2, output_scale=c_float(so), output_zero_point=zpo, activation=activation,
        shape1=shape_t(shape1), shape2=shape_t(shape2), output_shape=shape_t(out_shape),
        input1=w.i8(in1), input2=w.i8(in2), expected=w.i8(expected),
        params=w.i32(list(p.values()))))


def softmax_case(rng, w):
    rows, depth = rng.randint(1, 4), rng.randint(1, 40)
    beta = rng.choice([1.0, 1.0, 0.5, 2.0, ref.f32(rng.uniform(0.1, 4.0))])
    scale = loguniform(rng, 0.005, 0.5)
    kind = rng.random()
    if kind < 0.15:
        inp = [rng.randint(-128, 127)] * (rows * depth)
    elif kind < 0.3:
        inp = [rng.choice([-128, 127]) for _ in range(rows * depth)]
    else:
        inp = int8s(rng, rows * depth)
    try:
        p = ref.softmax_params(beta, scale)
        expected = ref.softmax(p, inp, rows, depth)
    except ref.Unsupported:
        return None
    return struct_init(dict(
        beta=c_float(beta), input_scale=c_float(scale), rows=rows, depth=depth, input=w.i8(inp),
        expected=w.i8(expected), params=w.i32(list(p.values()))))


def q4_case(rng, w, is_tanh):
    scale = loguniform(rng, 0.0005, 0.6)
    zp = zero_point(rng)
    p = ref.q4_params(scale, zp)
    inp = list(range(-128, 128))
    expected = (ref.tanh if is_tanh else ref.logistic)(p, inp)
    return struct_init(dict(
        is_tanh=int(is_tanh), input_scale=c_float(scale), input_zero_point=zp, size=len(inp),
        input=w.i8(inp), expected=w.i8(expected),
        params=w.i32([p["input_zero_point"], p["input_range_radius"], p["input_multiplier"],
                      p["input_left_shift"]])))


def pad_case(rng, w):
    shape = [rng.randint(1, 4) for _ in range(4)]
    before = [rng.randint(0, 2) for _ in range(4)]
    after = [rng.randint(0, 2) for _ in range(4)]
    value = zero_point(rng)
    inp = int8s(rng, math.prod(shape))
    expected, _ = ref.pad(inp, shape, before, after, value)
    return struct_init(dict(
        input_dims=dims(shape), before=w.i32(before), after=w.i32(after), pad_value=value,
        input=w.i8(inp), expected=w.i8(expected), output_count=len(expected)))


def concat_case(rng, w):
    rank = rng.randint(1, 4)
    base = [rng.randint(1, 4) for _ in range(rank)]
    axis = rng.randrange(rank)
    num = rng.randint(1, 4)
    shapes, inputs = [], []
    for _ in range(num):
        s = list(base)
        s[axis] = rng.randint(1, 3)
        shapes.append(s)
        inputs.append(int8s(rng, math.prod(s)))
    out_shape = list(base)
    out_shape[axis] = sum(s[axis] for s in shapes)
    c_axis = axis - rank if rng.random() < 0.3 else axis
    expected = ref.concatenation(inputs, shapes, axis)
    shapes_c = "{" + ", ".join(shape_t(s) for s in shapes) + "}"
    inputs_c = "{" + ", ".join(w.i8(t) for t in inputs) + "}"
    return struct_init(dict(
        num_inputs=num, input_shapes=shapes_c, inputs=inputs_c, axis=c_axis,
        output_shape=shape_t(out_shape), expected=w.i8(expected)))


def mean_case(rng, w):
    rank = rng.randint(1, 5)
    shape = [rng.randint(1, 5) for _ in range(rank)]
    kind = rng.random()
    if rank == 4 and kind < 0.3:
        axes = rng.choice([[1, 2], [2, 1], [3], [-1], [-3, -2]])
    else:
        axes = [rng.randrange(-rank, rank) for _ in range(rng.randint(0, min(rank, 3)))]
    in_scale, in_zp = loguniform(rng, 0.005, 0.2), zero_point(rng)
    if rng.random() < 0.3:
        out_scale, out_zp = in_scale, in_zp
    else:
        out_scale, out_zp = loguniform(rng, 0.002, 0.3), zero_point(rng)
    p = ref.mean_params(in_scale, in_zp, out_scale, out_zp)
    inp = int8s(rng, math.prod(shape))
    expected = ref.mean(p, inp, shape, axes)
    return struct_init(dict(
        input_scale=c_float(in_scale), input_zero_point=in_zp, output_scale=c_float(out_scale),
        output_zero_point=out_zp, input_shape=shape_t(shape),
        axes=w.i32(axes), num_axes=len(axes), input=w.i8(inp), expected=w.i8(expected),
        output_count=len(expected), params=w.i32(list(p.values()))))


def quantize_case(rng, w):
    scale, zp = loguniform(rng, 0.001, 0.5), zero_point(rng)
    values = [ref.f32(rng.uniform(-300, 300) * scale) for _ in range(40)]
    values += [ref.f32((k + 0.5) * scale) for k in range(-6, 6)]  # near-ties
    values += [0.0, -0.0, ref.f32(1e6 * scale), ref.f32(-1e6 * scale)]
    expected = ref.quantize_f32(values, scale, zp)
    return struct_init(dict(scale=c_float(scale), zero_point=zp, size=len(values),
                            input=w.f32s(values), expected=w.i8(expected)))


def requantize_case(rng, w):
    in_scale, in_zp = loguniform(rng, 0.002, 0.3), zero_point(rng)
    if rng.random() < 0.2:
        out_scale = in_scale
    else:
        out_scale = loguniform(rng, 0.002, 0.3)
    out_zp = zero_point(rng)
    p = ref.requantize_params(in_scale, in_zp, out_scale, out_zp)
    inp = list(range(-128, 128))
    expected = ref.requantize(p, inp)
    return struct_init(dict(
        input_scale=c_float(in_scale), input_zero_point=in_zp, output_scale=c_float(out_scale),
        output_zero_point=out_zp, size=len(inp), input=w.i8(inp), expected=w.i8(expected),
        params=w.i32(list(p.values()))))


def dequantize_case(rng, w):
    scale, zp = loguniform(rng, 0.0001, 10.0), zero_point(rng)
    inp = list(range(-128, 128))
    expected = ref.dequantize(inp, scale, zp)
    return struct_init(dict(scale=c_float(scale), zero_point=zp, size=len(inp), input=w.i8(inp),
                            expected=w.f32s(expected)))


def multiplier_cases(rng):
    values = [0.0, 1.0, 0.5, -0.75, 2.0 ** -31, 2.0 ** -32, 2.0 ** -33, 2.0 ** -31 * 0.75,
              1.0 - 2.0 ** -33, 1.0 - 2.0 ** -31, 0.5 - 2.0 ** -34, 2.0 ** 40, 3.0e9, 5e-324,
              ref.f32(0.1) * ref.f32(0.02) / ref.f32(0.3)]
    values += [math.exp(rng.uniform(-30, 10)) for _ in range(40)]
    return [(v,) + ref.quantize_multiplier(v) for v in values]


def padding_cases(rng):
    cases = []
    for _ in range(60):
        padding = rng.choice([0, 1])
        stride, dilation = rng.randint(1, 4), rng.choice([1, 1, 2, 3])
        in_size, filt = rng.randint(1, 20), rng.randint(1, 6)
        cases.append((padding, stride, dilation, in_size, filt) +
                     ref.compute_padding(padding, stride, dilation, in_size, filt))
    return cases


PWL_OPS = ("relu", "relu_n1_to_1", "relu6", "leaky_relu", "abs")


def pwl_case(rng, w, bits):
    """RELU family, LEAKY_RELU, ABS: every int8 input (the table), or random int16 inputs."""
    op = rng.randrange(len(PWL_OPS))
    name = PWL_OPS[op]
    if bits == 8:
        in_zp, out_zp = zero_point(rng), zero_point(rng)
        inp = list(range(-128, 128))
    else:
        in_zp = out_zp = 0
        inp = [rng.randint(-32768, 32767) for _ in range(64)] + [-32768, 32767, 0, -1, 1]
    in_scale = ref.f32(loguniform(rng, 0.0001, 0.5))
    out_scale = ref.f32(in_scale * rng.choice([1.0, loguniform(rng, 0.3, 3.0)]))
    if name == "relu6":
        out_scale, out_zp = in_scale, in_zp
    alpha = ref.f32(rng.choice([0.2, -0.3, loguniform(rng, 0.01, 3.0)]))
    try:
        expected = ref.relu_family(name, inp, in_scale, in_zp, out_scale, out_zp, bits, alpha)
    except ref.Unsupported:
        return None
    return struct_init(dict(
        op=op, bits=bits, input_scale=c_float(in_scale), input_zero_point=in_zp,
        output_scale=c_float(out_scale), output_zero_point=out_zp, alpha=c_float(alpha),
        size=len(inp), input=w.i32(inp), expected=w.i32(expected)))


def activation_cases(rng):
    cases = []
    for _ in range(60):
        act = rng.choice([0, 1, 2, 3])
        scale = loguniform(rng, 0.001, 2.0) if rng.random() < 0.9 else ref.f32(1.0 / rng.randint(1, 8))
        zp = zero_point(rng)
        cases.append((act, scale, zp) + ref.activation_range(act, scale, zp))
    return cases


def hard_swish_case(rng, w):
    """HARD_SWISH: every int8 input (the table) for random scales and zero points."""
    in_scale = loguniform(rng, 0.001, 0.5)
    out_scale = ref.f32(in_scale * loguniform(rng, 0.2, 2.0))
    in_zp, out_zp = zero_point(rng), zero_point(rng)
    try:
        p = ref.hard_swish_params(in_scale, in_zp, out_scale, out_zp)
    except ref.Unsupported:
        return None
    inp = list(range(-128, 128))
    return struct_init(dict(
        input_scale=c_float(in_scale), input_zero_point=in_zp, output_scale=c_float(out_scale),
        output_zero_point=out_zp, expected=w.i8(ref.hard_swish(p, inp)),
        params=w.i32(list(p.values()))))


def prelu_case(rng, w, bits):
    """PRELU: the input broadcast against an int8 alpha (int16 input: zero points any)."""
    out_shape, shape1, shape2 = broadcast_shapes(rng)
    if len(shape1) != len(out_shape) or any(a != b for a, b in zip(shape1, out_shape)):
        return None
    count = lambda s: math.prod(s) if s else 1  # noqa: E731
    lo, hi = (-128, 127) if bits == 8 else (-32768, 32767)
    in_scale = loguniform(rng, 0.0001, 0.2)
    alpha_scale = loguniform(rng, 0.001, 0.05)
    out_scale = ref.f32(in_scale * loguniform(rng, 0.3, 3.0))
    in_zp = zero_point(rng) if bits == 8 else rng.choice([0, 0, rng.randint(-300, 300)])
    out_zp = zero_point(rng) if bits == 8 else rng.choice([0, 0, rng.randint(-300, 300)])
    alpha_zp = zero_point(rng)
    try:
        p = ref.prelu_params(in_scale, in_zp, alpha_scale, alpha_zp, out_scale, out_zp)
    except ref.Unsupported:
        return None
    inp = [rng.randint(lo, hi) for _ in range(count(shape1))]
    alpha = int8s(rng, count(shape2))
    return struct_init(dict(
        bits=bits, input_scale=c_float(in_scale), input_zero_point=in_zp,
        alpha_scale=c_float(alpha_scale), alpha_zero_point=alpha_zp,
        output_scale=c_float(out_scale), output_zero_point=out_zp,
        shape=shape_t(shape1), alpha_shape=shape_t(shape2), output_shape=shape_t(out_shape),
        input=w.i32(inp), alpha=w.i8(alpha),
        expected=w.i32(ref.prelu(p, inp, shape1, alpha, shape2, out_shape, bits)),
        params=w.i32(list(p.values()))))


TYPES = """
typedef struct {
  float input_scale; int32_t input_zero_point; const float *filter_scales; int32_t scale_count;
  float output_scale; int32_t output_zero_point; int32_t activation; int32_t padding;
  int32_t stride_h, stride_w, dilation_h, dilation_w, depth_multiplier;
  utvm_dims_t input_dims, filter_dims, output_dims;
  const int8_t *input; const int8_t *filter; const int32_t *bias; const int8_t *expected;
  const int32_t *multipliers; const int32_t *shifts;
  int32_t act_min, act_max, pad_top, pad_left;
} conv_vector_t;
typedef struct {
  float input_scale; int32_t input_zero_point; int32_t filter_zero_point;
  const float *filter_scales; int32_t scale_count; float output_scale; int32_t output_zero_point;
  int32_t activation; int32_t batches, input_depth, output_depth;
  const int8_t *input; const int8_t *filter; const int32_t *bias; const int8_t *expected;
  const int32_t *multipliers; const int32_t *shifts; int32_t act_min, act_max;
} fc_vector_t;
typedef struct {
  int32_t average; float scale; int32_t zero_point; int32_t activation; int32_t padding;
  int32_t stride_h, stride_w, filter_h, filter_w; utvm_dims_t input_dims, output_dims;
  const int8_t *input; const int8_t *expected; int32_t pad_top, pad_left, act_min, act_max;
} pool_vector_t;
typedef struct {
  int32_t is_mul; float scale1; int32_t zero_point1; float scale2; int32_t zero_point2;
  float output_scale; int32_t output_zero_point; int32_t activation;
  utvm_shape_t shape1, shape2, output_shape;
  const int8_t *input1; const int8_t *input2; const int8_t *expected;
  const int32_t *params; /* the fields of utvm_add_params_t / utvm_mul_params_t in order */
} binary_vector_t;
typedef struct {
  float beta; float input_scale; int32_t rows, depth; const int8_t *input; const int8_t *expected;
  const int32_t *params; /* utvm_softmax_params_t in order */
} softmax_vector_t;
typedef struct {
  int32_t is_tanh; float input_scale; int32_t input_zero_point; int32_t size;
  const int8_t *input; const int8_t *expected;
  const int32_t *params; /* utvm_logistic_params_t in order */
} q4_vector_t;
typedef struct {
  utvm_dims_t input_dims; const int32_t *before; const int32_t *after; int32_t pad_value;
  const int8_t *input; const int8_t *expected; int32_t output_count;
} pad_vector_t;
typedef struct {
  int32_t num_inputs; utvm_shape_t input_shapes[4]; const int8_t *inputs[4]; int32_t axis;
  utvm_shape_t output_shape; const int8_t *expected;
} concat_vector_t;
typedef struct {
  float input_scale; int32_t input_zero_point; float output_scale; int32_t output_zero_point;
  utvm_shape_t input_shape; const int32_t *axes; int32_t num_axes;
  const int8_t *input; const int8_t *expected; int32_t output_count;
  const int32_t *params; /* utvm_mean_params_t in order */
} mean_vector_t;
typedef struct {
  float scale; int32_t zero_point; int32_t size; const float *input; const int8_t *expected;
} quantize_vector_t;
typedef struct {
  float input_scale; int32_t input_zero_point; float output_scale; int32_t output_zero_point;
  int32_t size; const int8_t *input; const int8_t *expected;
  const int32_t *params; /* utvm_requantize_params_t in order */
} requantize_vector_t;
typedef struct {
  float scale; int32_t zero_point; int32_t size; const int8_t *input; const float *expected;
} dequantize_vector_t;
typedef struct { double real; int32_t multiplier; int32_t shift; } multiplier_vector_t;
typedef struct {
  int32_t padding, stride, dilation, in_size, filter_size, out_size, pad, offset;
} padding_vector_t;
typedef struct {
  int32_t activation; float scale; int32_t zero_point; int32_t act_min, act_max;
} activation_vector_t;
typedef struct {
  int32_t op; /* relu, relu_n1_to_1, relu6, leaky_relu, abs */
  int32_t bits; float input_scale; int32_t input_zero_point; float output_scale;
  int32_t output_zero_point; float alpha; int32_t size; const int32_t *input;
  const int32_t *expected;
} pwl_vector_t;
typedef struct {
  int32_t average; utvm_pool2d_params_t params; utvm_dims_t input_dims, output_dims;
  const int16_t *input; const int16_t *expected;
} pool_s16_vector_t;
typedef struct {
  utvm_dims_t input_dims; utvm_dims_t output_dims; int32_t align_corners;
  int32_t half_pixel_centers; const int8_t *input; const int8_t *expected;
} resize_bilinear_vector_t;
typedef struct {
  float input_scale; int32_t input_zero_point; float output_scale; int32_t output_zero_point;
  const int8_t *expected; /* for the inputs -128..127 */
  const int32_t *params;  /* utvm_hard_swish_params_t in order */
} hard_swish_vector_t;
typedef struct {
  int32_t bits; float input_scale; int32_t input_zero_point; float alpha_scale;
  int32_t alpha_zero_point; float output_scale; int32_t output_zero_point;
  utvm_shape_t shape, alpha_shape, output_shape;
  const int32_t *input; const int8_t *alpha; const int32_t *expected;
  const int32_t *params; /* utvm_prelu_params_t in order */
} prelu_vector_t;
"""


def pool_s16_case(rng, w):
    """int16 pooling: TFLM's int8 arithmetic on int16 values, an int16 activation range."""
    average = rng.random() < 0.5
    n, ih, iw, c = rng.choice([1, 1, 2]), rng.randint(1, 9), rng.randint(1, 9), rng.randint(1, 4)
    fh, fw = rng.randint(1, 4), rng.randint(1, 4)
    stride = (rng.randint(1, 3), rng.randint(1, 3))
    padding = rng.choice([0, 1])
    oh, pad_top, _ = ref.compute_padding(padding, stride[0], 1, ih, fh)
    ow, pad_left, _ = ref.compute_padding(padding, stride[1], 1, iw, fw)
    if oh < 1 or ow < 1:
        return None
    lo = rng.choice([-32768, rng.randint(-32768, 0)])
    hi = rng.choice([32767, rng.randint(0, 32767)])
    inp = [rng.randint(-32768, 32767) for _ in range(n * ih * iw * c)]
    try:
        expected = ref.pool2d(inp, (n, ih, iw, c), (n, oh, ow, c), stride, (fh, fw),
                              (pad_top, pad_left), (lo, hi), average, lowest=-32768)
    except ref.Unsupported:
        return None
    params = "{%d, %d, %d, %d, %d, %d, %d, %d}" % (stride[0], stride[1], fh, fw, pad_top,
                                                   pad_left, lo, hi)
    return struct_init(dict(
        average=int(average), params=params, input_dims=dims((n, ih, iw, c)),
        output_dims=dims((n, oh, ow, c)), input=w.array("int16_t", inp),
        expected=w.array("int16_t", expected)))


def resize_bilinear_case(rng, w):
    shape = (rng.randint(1, 2), rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 3))
    out_h, out_w = rng.randint(1, 12), rng.randint(1, 12)
    align = rng.random() < 0.3
    half = not align and rng.random() < 0.5
    inp = int8s(rng, math.prod(shape))
    expected = ref.resize_bilinear_int8(inp, shape, out_h, out_w, align, half)
    return struct_init(dict(
        input_dims=dims(shape), output_dims=dims((shape[0], out_h, out_w, shape[3])),
        align_corners=int(align), half_pixel_centers=int(half), input=w.i8(inp),
        expected=w.i8(expected)))


def main():
    out_path = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 20240607
    rng = random.Random(seed)
    w = Writer()
    tables = []

    def table(ctype, name, make, count):
        items = []
        while len(items) < count:
            item = make()
            if item is not None:
                items.append(item)
        tables.append("static const %s %s[] = {\n  %s\n};" % (ctype, name, ",\n  ".join(items)))

    table("conv_vector_t", "conv_vectors", lambda: conv_case(rng, w, False), 60)
    table("conv_vector_t", "depthwise_vectors", lambda: conv_case(rng, w, True), 60)
    table("fc_vector_t", "fc_vectors", lambda: fc_case(rng, w), 50)
    table("pool_vector_t", "pool_vectors", lambda: pool_case(rng, w), 60)
    table("binary_vector_t", "add_vectors", lambda: binary_case(rng, w, False), 60)
    table("binary_vector_t", "mul_vectors", lambda: binary_case(rng, w, True), 60)
    table("softmax_vector_t", "softmax_vectors", lambda: softmax_case(rng, w), 50)
    table("q4_vector_t", "logistic_vectors", lambda: q4_case(rng, w, False), 16)
    table("q4_vector_t", "tanh_vectors", lambda: q4_case(rng, w, True), 16)
    table("pad_vector_t", "pad_vectors", lambda: pad_case(rng, w), 30)
    table("concat_vector_t", "concat_vectors", lambda: concat_case(rng, w), 30)
    table("mean_vector_t", "mean_vectors", lambda: mean_case(rng, w), 50)
    table("quantize_vector_t", "quantize_vectors", lambda: quantize_case(rng, w), 12)
    table("requantize_vector_t", "requantize_vectors", lambda: requantize_case(rng, w), 16)
    table("dequantize_vector_t", "dequantize_vectors", lambda: dequantize_case(rng, w), 8)
    table("pwl_vector_t", "pwl_s8_vectors", lambda: pwl_case(rng, w, 8), 40)
    table("pwl_vector_t", "pwl_s16_vectors", lambda: pwl_case(rng, w, 16), 40)
    table("pool_s16_vector_t", "pool_s16_vectors", lambda: pool_s16_case(rng, w), 40)
    table("resize_bilinear_vector_t", "resize_bilinear_vectors",
          lambda: resize_bilinear_case(rng, w), 40)
    table("hard_swish_vector_t", "hard_swish_vectors", lambda: hard_swish_case(rng, w), 30)
    table("prelu_vector_t", "prelu_s8_vectors", lambda: prelu_case(rng, w, 8), 30)
    table("prelu_vector_t", "prelu_s16_vectors", lambda: prelu_case(rng, w, 16), 30)
    tables.append("static const multiplier_vector_t multiplier_vectors[] = {\n  %s\n};" % ",\n  ".join(
        "{%s, %d, %d}" % (c_double(v), m, s) for v, m, s in multiplier_cases(rng)))
    tables.append("static const padding_vector_t padding_vectors[] = {\n  %s\n};" % ",\n  ".join(
        "{%s}" % ", ".join(str(x) for x in c) for c in padding_cases(rng)))
    tables.append("static const activation_vector_t activation_vectors[] = {\n  %s\n};" % ",\n  ".join(
        "{%d, %s, %d, %d, %d}" % (a, c_float(s), z, lo, hi) for a, s, z, lo, hi in activation_cases(rng)))

    with open(out_path, "w") as f:
        f.write("/* Generated by tests/unit/kernels/gen_kernel_vectors.py (seed %d); do not edit. */\n" % seed)
        f.write("#ifndef KERNEL_VECTORS_H\n#define KERNEL_VECTORS_H\n\n")
        f.write("#include <stddef.h>\n#include <stdint.h>\n\n#include \"utvm/kernels.h\"\n")
        f.write(TYPES)
        f.write("\n".join(w.lines))
        f.write("\n\n")
        f.write("\n\n".join(tables))
        f.write("\n\n#define VECTOR_COUNT(a) (sizeof(a) / sizeof((a)[0]))\n\n#endif\n")


if __name__ == "__main__":
    main()

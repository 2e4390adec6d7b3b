"""Reference of TensorFlow Lite Micro's int8 kernels, in plain Python integers.

Written from TFLite's sources (tflite-micro 90b983c2b3f1: kernels/internal/common.h,
quantization_util.cc, kernel_util.cc, reference/integer_ops/*.h, reference/softmax.h,
reference/reduce.h, micro/kernels/*_common.cc) and gemmlowp's fixedpoint.h (719139ce), to
produce expected outputs for the C kernels that do not come from the C code. Python integers do
not overflow, so every place where TFLite relies on 32-bit wrapping says so (wrap32).

Float parts of Prepare are done in binary64 like TFLite's double code; values TFLite keeps as
float (tensor scales, float products and quotients) are rounded to binary32 with f32(). Python's
float operations are correctly rounded binary64, and rounding a binary64 sum, product or
quotient of two binary32 values to binary32 gives the correctly rounded binary32 result, so
f32(a * b) and f32(a / b) equal C's float arithmetic.
"""

import math
import struct

INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1


def wrap32(x):
    """x modulo 2^32 as a signed 32-bit value."""
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= (1 << 31) else x


def f32(x):
    """x rounded to the nearest binary32 value."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def trunc_div(a, b):
    """C/C++ integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def round_half_away(x):
    """std::round / roundf: nearest integer, ties away from zero (exact for any float)."""
    floor = math.floor(x)
    frac = x - floor  # exact: the fractional bits of x
    if frac > 0.5 or (frac == 0.5 and x > 0):
        return floor + 1
    return floor


def clamp(x, lo, hi):
    return max(lo, min(hi, x))


# ---- gemmlowp fixed point (scalar int32) ----

def srdhm(a, b):
    """SaturatingRoundingDoublingHighMul."""
    if a == INT32_MIN and b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    return trunc_div(ab + nudge, 1 << 31)


def rounding_divide_by_pot(x, exponent):
    assert 0 <= exponent <= 31
    mask = (1 << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if remainder > threshold else 0)


def saturating_rounding_multiply_by_pot(x, exponent):
    """SaturatingRoundingMultiplyByPOT<exponent> on int32."""
    if exponent == 0:
        return x
    if exponent < 0:
        return rounding_divide_by_pot(x, -exponent)
    threshold = (1 << (31 - exponent)) - 1
    if x > threshold:
        return INT32_MAX
    if x < -threshold:
        return INT32_MIN
    return x << exponent


def rescale(raw, src_bits, dst_bits):
    """gemmlowp::Rescale<dst_bits>(FixedPoint<int32, src_bits>)."""
    return saturating_rounding_multiply_by_pot(raw, src_bits - dst_bits)


class FP:
    """FixedPoint<int32_t, bits>: raw value and its integer bits."""

    def __init__(self, raw, bits):
        self.raw = raw
        self.bits = bits

    def __add__(self, o):
        assert self.bits == o.bits
        return FP(wrap32(self.raw + o.raw), self.bits)

    def __sub__(self, o):
        assert self.bits == o.bits
        return FP(wrap32(self.raw - o.raw), self.bits)

    def __mul__(self, o):
        return FP(srdhm(self.raw, o.raw), self.bits + o.bits)

    def __neg__(self):
        return FP(wrap32(-self.raw), self.bits)

    @staticmethod
    def one(bits):
        return FP(INT32_MAX if bits == 0 else 1 << (31 - bits), bits)

    @staticmethod
    def constant_pot(bits, exponent):
        return FP(1 << (31 - bits + exponent), bits)


def exp_on_interval_between_negative_one_quarter_and_0_excl(a):
    assert a.bits == 0
    constant_term = FP(1895147668, 0)
    constant_1_over_3 = FP(715827883, 0)
    x = a + FP.constant_pot(0, -3)
    x2 = x * x
    x3 = x2 * x
    x4 = x2 * x2
    x4_over_4 = FP(saturating_rounding_multiply_by_pot(x4.raw, -2), 0)
    inner = ((x4_over_4 + x3) * constant_1_over_3) + x2
    x4_over_24_plus_x3_over_6_plus_x2_over_2 = FP(saturating_rounding_multiply_by_pot(inner.raw, -1), 0)
    return constant_term + constant_term * (x + x4_over_24_plus_x3_over_6_plus_x2_over_2)


def exp_on_negative_values(a):
    integer_bits = a.bits
    fractional_bits = 31 - integer_bits
    one_quarter = FP.constant_pot(integer_bits, -2)
    mask = one_quarter - FP(1, integer_bits)
    a_mod_quarter_minus_one_quarter = FP(a.raw & mask.raw, integer_bits) - one_quarter
    result = exp_on_interval_between_negative_one_quarter_and_0_excl(
        FP(rescale(a_mod_quarter_minus_one_quarter.raw, integer_bits, 0), 0))
    remainder = (a_mod_quarter_minus_one_quarter - a).raw
    for exponent, multiplier in ((-2, 1672461947), (-1, 1302514674), (0, 790015084),
                                 (1, 290630308), (2, 39332535), (3, 720401), (4, 242)):
        if integer_bits > exponent:
            if remainder & (1 << (fractional_bits + exponent)):
                result = result * FP(multiplier, 0)
    if integer_bits > 5:
        clamp_b = 36 - integer_bits
        if a.raw < -(1 << clamp_b):
            result = FP(0, 0)
    if a.raw == 0:
        result = FP.one(0)
    return result


def _newton_reciprocal(half_denominator):
    constant_48_over_17 = FP(1515870810, 2)
    constant_neg_32_over_17 = FP(-1010580540, 2)
    x = constant_48_over_17 + half_denominator * constant_neg_32_over_17
    for _ in range(3):
        half_denominator_times_x = half_denominator * x
        one_minus = FP.one(2) - half_denominator_times_x
        x = x + FP(rescale((x * one_minus).raw, 4, 2), 2)
    return x


def rounding_half_sum(a, b):
    s = a + b
    sign = 1 if s >= 0 else -1
    return trunc_div(s + sign, 2)


def one_over_one_plus_x_for_x_in_0_1(a):
    half_denominator = FP(rounding_half_sum(a.raw, FP.one(0).raw), 0)
    x = _newton_reciprocal(half_denominator)
    return FP(rescale(x.raw, 1, 0), 0)  # Rescale<0>(ExactMulByPot<-1>(x))


def one_minus_x_over_one_plus_x_for_x_in_0_1(a):
    half_denominator = FP(rounding_half_sum(a.raw, FP.one(0).raw), 0)
    x = _newton_reciprocal(half_denominator)
    return FP(rescale((x - FP.one(2)).raw, 2, 0), 0)


def fp_logistic(a):
    abs_input = a if a.raw > 0 else -a
    result_if_positive = one_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(-abs_input))
    result_if_negative = FP.one(0) - result_if_positive
    if a.raw == 0:
        return FP(1 << 30, 0)
    return result_if_positive if a.raw > 0 else result_if_negative


def fp_tanh(a):
    n = a if a.raw < 0 else -a
    t = one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(FP(n.raw, a.bits + 1)))
    if a.raw == 0:
        return FP(0, 0)
    return -t if a.raw < 0 else t


# ---- TFLite requantization ----

def multiply_by_quantized_multiplier(x, multiplier, shift):
    left_shift = shift if shift > 0 else 0
    right_shift = 0 if shift > 0 else -shift
    return rounding_divide_by_pot(srdhm(wrap32(x * (1 << left_shift)), multiplier), right_shift)


def multiply_by_quantized_multiplier_smaller_than_one_exp(x, multiplier, left_shift):
    return rounding_divide_by_pot(srdhm(x, multiplier), -left_shift)


def multiply_by_quantized_multiplier_greater_than_one(x, multiplier, left_shift):
    return srdhm(wrap32(x * (1 << left_shift)), multiplier)


def quantize_multiplier(real):
    """QuantizeMultiplier: (multiplier, shift)."""
    if real == 0.0:
        return 0, 0
    q, shift = math.frexp(real)
    q_fixed = round_half_away(q * (1 << 31))
    assert q_fixed <= (1 << 31)
    if q_fixed == (1 << 31):
        q_fixed //= 2
        shift += 1
    if shift < -31:
        shift = 0
        q_fixed = 0
    return q_fixed, shift


class Unsupported(Exception):
    """A case TFLite's Prepare rejects (a CHECK or ENSURE fails)."""


def quantize_multiplier_smaller_than_one_exp(real):
    if not 0.0 < real < 1.0:
        raise Unsupported("multiplier not in (0, 1)")
    m, s = quantize_multiplier(real)
    if s > 0:
        raise Unsupported("shift > 0")
    return m, s


def activation_range(activation, scale, zero_point):
    """CalculateActivationRangeQuantized for int8 (scale is a float32 value)."""
    def quantize(f):
        return zero_point + int(round_half_away(f32(f / scale)))
    if activation == 0:
        return -128, 127
    if activation == 1:
        return max(-128, quantize(0.0)), 127
    if activation == 2:
        return max(-128, quantize(-1.0)), min(127, quantize(1.0))
    if activation == 3:
        return max(-128, quantize(0.0)), min(127, quantize(6.0))
    raise Unsupported("activation")


def compute_padding(padding, stride, dilation, in_size, filter_size):
    """(out, pad, offset) of ComputePaddingHeightWidth for one dimension; 0 = SAME."""
    effective = (filter_size - 1) * dilation + 1
    if padding == 0:
        out = trunc_div(in_size + stride - 1, stride)
    else:
        out = trunc_div(in_size + stride - effective, stride)
    total = max((out - 1) * stride + effective - in_size, 0)
    return out, total // 2, total % 2


def conv_quant(input_scale, filter_scales, output_scale):
    return [quantize_multiplier(input_scale * fs / output_scale) for fs in filter_scales]


def fc_quant(input_scale, filter_scales, output_scale):
    if len(filter_scales) > 1:
        return conv_quant(input_scale, filter_scales, output_scale)
    return [quantize_multiplier(f32(input_scale * filter_scales[0]) / output_scale)]


# ---- Kernels. Tensors are flat lists in NHWC / C order. ----

def conv2d(inp, in_shape, flt, flt_shape, bias, out_shape, stride, dilation, pad, input_offset,
           output_offset, quant, act):
    n, ih, iw, ic = in_shape
    oc, fh, fw, fc = flt_shape
    _, oh, ow, _ = out_shape
    groups = ic // fc
    per_group = oc // groups
    out = []
    for b in range(n):
        for oy in range(oh):
            for ox in range(ow):
                for c in range(oc):
                    g = c // per_group
                    acc = 0
                    for ky in range(fh):
                        y = oy * stride[0] - pad[0] + dilation[0] * ky
                        for kx in range(fw):
                            x = ox * stride[1] - pad[1] + dilation[1] * kx
                            if not (0 <= y < ih and 0 <= x < iw):
                                continue
                            for k in range(fc):
                                iv = inp[((b * ih + y) * iw + x) * ic + k + g * fc]
                                fv = flt[((c * fh + ky) * fw + kx) * fc + k]
                                acc += fv * (iv + input_offset)
                    if bias is not None:
                        acc += bias[c]
                    m, s = quant[c] if len(quant) > 1 else quant[0]
                    acc = multiply_by_quantized_multiplier(wrap32(acc), m, s) + output_offset
                    out.append(clamp(acc, act[0], act[1]))
    return out


def depthwise_conv2d(inp, in_shape, flt, flt_shape, bias, out_shape, stride, dilation, pad,
                     depth_multiplier, input_offset, output_offset, quant, act):
    n, ih, iw, ic = in_shape
    _, fh, fw, oc = flt_shape
    _, oh, ow, _ = out_shape
    out = []
    for b in range(n):
        for oy in range(oh):
            for ox in range(ow):
                for ci in range(ic):
                    for m in range(depth_multiplier):
                        c = m + ci * depth_multiplier
                        acc = 0
                        for ky in range(fh):
                            for kx in range(fw):
                                x = ox * stride[1] - pad[1] + dilation[1] * kx
                                y = oy * stride[0] - pad[0] + dilation[0] * ky
                                if 0 <= x < iw and 0 <= y < ih:
                                    iv = inp[((b * ih + y) * iw + x) * ic + ci]
                                    fv = flt[(ky * fw + kx) * oc + c]
                                    acc += fv * (iv + input_offset)
                        if bias is not None:
                            acc += bias[c]
                        mm, s = quant[c] if len(quant) > 1 else quant[0]
                        acc = multiply_by_quantized_multiplier(wrap32(acc), mm, s) + output_offset
                        out.append(clamp(acc, act[0], act[1]))
    return out


def fully_connected(inp, batches, depth, flt, units, bias, input_offset, filter_offset,
                    output_offset, quant, act):
    out = []
    for b in range(batches):
        for c in range(units):
            acc = 0
            for d in range(depth):
                acc += (flt[c * depth + d] + filter_offset) * (inp[b * depth + d] + input_offset)
            if bias is not None:
                acc += bias[c]
            m, s = quant[c] if len(quant) > 1 else quant[0]
            acc = multiply_by_quantized_multiplier(wrap32(acc), m, s) + output_offset
            out.append(clamp(acc, act[0], act[1]))
    return out


def pool2d(inp, in_shape, out_shape, stride, filt, pad, act, average, lowest=-128):
    """AveragePool / MaxPool of reference_integer_ops (lowest: the type's, where MAX starts)."""
    n, ih, iw, c = in_shape
    _, oh, ow, _ = out_shape
    out = []
    for b in range(n):
        for oy in range(oh):
            for ox in range(ow):
                for ch in range(c):
                    x0 = ox * stride[1] - pad[1]
                    y0 = oy * stride[0] - pad[0]
                    fxs, fxe = max(0, -x0), min(filt[1], iw - x0)
                    fys, fye = max(0, -y0), min(filt[0], ih - y0)
                    values = [inp[((b * ih + y0 + fy) * iw + x0 + fx) * c + ch]
                              for fy in range(fys, fye) for fx in range(fxs, fxe)]
                    if average:
                        count = len(values)
                        if count == 0:
                            raise Unsupported("empty window")
                        acc = sum(values)
                        if acc > 0:
                            acc = trunc_div(acc + count // 2, count)
                        else:
                            acc = trunc_div(acc - count // 2, count)
                    else:
                        acc = max([lowest] + values)
                    out.append(clamp(acc, act[0], act[1]))
    return out


def broadcast_iter(shape1, shape2, out_shape):
    """Yields (index1, index2) for each output element in order (numpy broadcasting)."""
    rank = len(out_shape)
    s1 = [1] * (rank - len(shape1)) + list(shape1)
    s2 = [1] * (rank - len(shape2)) + list(shape2)

    def strides(shape):
        st = [0] * rank
        acc = 1
        for d in range(rank - 1, -1, -1):
            st[d] = acc
            acc *= shape[d]
        return st
    st1, st2 = strides(s1), strides(s2)
    total = 1
    for d in out_shape:
        total *= d
    for flat in range(total):
        rem = flat
        i1 = i2 = 0
        for d in range(rank - 1, -1, -1):
            coord = rem % out_shape[d]
            rem //= out_shape[d]
            i1 += (coord if s1[d] > 1 else 0) * st1[d]
            i2 += (coord if s2[d] > 1 else 0) * st2[d]
        yield i1, i2


def add_params(s1, zp1, s2, zp2, so, zpo, activation):
    left_shift = 20
    twice_max = 2 * max(s1, s2)
    m1, sh1 = quantize_multiplier_smaller_than_one_exp(s1 / twice_max)
    m2, sh2 = quantize_multiplier_smaller_than_one_exp(s2 / twice_max)
    mo, sho = quantize_multiplier_smaller_than_one_exp(twice_max / ((1 << left_shift) * so))
    act = activation_range(activation, so, zpo)
    return dict(input1_offset=-zp1, input2_offset=-zp2, output_offset=zpo, left_shift=left_shift,
                input1_multiplier=m1, input1_shift=sh1, input2_multiplier=m2, input2_shift=sh2,
                output_multiplier=mo, output_shift=sho, act_min=act[0], act_max=act[1])


def add(p, in1, shape1, in2, shape2, out_shape):
    out = []
    for i1, i2 in broadcast_iter(shape1, shape2, out_shape):
        a = (in1[i1] + p["input1_offset"]) * (1 << p["left_shift"])
        b = (in2[i2] + p["input2_offset"]) * (1 << p["left_shift"])
        a = multiply_by_quantized_multiplier_smaller_than_one_exp(a, p["input1_multiplier"], p["input1_shift"])
        b = multiply_by_quantized_multiplier_smaller_than_one_exp(b, p["input2_multiplier"], p["input2_shift"])
        raw = multiply_by_quantized_multiplier_smaller_than_one_exp(
            a + b, p["output_multiplier"], p["output_shift"]) + p["output_offset"]
        out.append(clamp(raw, p["act_min"], p["act_max"]))
    return out


def mul_params(s1, zp1, s2, zp2, so, zpo, activation):
    m, s = quantize_multiplier(s1 * s2 / so)
    act = activation_range(activation, so, zpo)
    return dict(input1_offset=-zp1, input2_offset=-zp2, output_offset=zpo, output_multiplier=m,
                output_shift=s, act_min=act[0], act_max=act[1])


def mul(p, in1, shape1, in2, shape2, out_shape):
    out = []
    for i1, i2 in broadcast_iter(shape1, shape2, out_shape):
        prod = (in1[i1] + p["input1_offset"]) * (in2[i2] + p["input2_offset"])
        raw = multiply_by_quantized_multiplier(prod, p["output_multiplier"], p["output_shift"])
        out.append(clamp(raw + p["output_offset"], p["act_min"], p["act_max"]))
    return out


def calculate_input_radius(integer_bits, left_shift, total_signed_bits=31):
    rescaled = 1.0 * ((1 << integer_bits) - 1) * (1 << (total_signed_bits - integer_bits)) / (1 << left_shift)
    return int(math.floor(rescaled))


def softmax_params(beta, input_scale):
    real = min(beta * input_scale * (1 << 26), (1 << 31) - 1.0)
    if not real > 1.0:
        raise Unsupported("softmax multiplier <= 1")
    m, s = quantize_multiplier(real)
    assert s >= 0
    return dict(input_multiplier=m, input_left_shift=s, diff_min=int(-1.0 * calculate_input_radius(5, s)))


def count_leading_zeros32(x):
    x &= 0xFFFFFFFF
    return 32 - x.bit_length()


def softmax(p, inp, rows, depth):
    out = []
    for r in range(rows):
        row = inp[r * depth:(r + 1) * depth]
        max_in_row = max(row)
        sum_of_exps = FP(0, 12)
        exps = []
        for v in row:
            diff = v - max_in_row
            if diff >= p["diff_min"]:
                rescaled = multiply_by_quantized_multiplier_greater_than_one(
                    diff, p["input_multiplier"], p["input_left_shift"])
                e = exp_on_negative_values(FP(rescaled, 5))
                exps.append(e)
                sum_of_exps = sum_of_exps + FP(rescale(e.raw, 0, 12), 12)
            else:
                exps.append(None)
        x = sum_of_exps.raw
        headroom_plus_one = count_leading_zeros32(x)
        num_bits_over_unit = 12 - headroom_plus_one
        shifted_sum_minus_one = wrap32(((x & 0xFFFFFFFF) << headroom_plus_one) - (1 << 31))
        shifted_scale = one_over_one_plus_x_for_x_in_0_1(FP(shifted_sum_minus_one, 0))
        exponent = num_bits_over_unit + 31 - 8
        if not 0 <= exponent <= 31:
            raise Unsupported("softmax exponent")
        for e in exps:
            if e is None:
                out.append(-128)
            else:
                unsat = rounding_divide_by_pot((shifted_scale * e).raw, exponent)
                out.append(clamp(unsat - 128, -128, 127))
    return out


def q4_params(input_scale, input_zero_point):
    real = input_scale * (1 << 27)
    q, shift = math.frexp(real)
    return dict(input_zero_point=input_zero_point, input_multiplier=round_half_away(q * (1 << 31)),
                input_left_shift=shift, input_range_radius=calculate_input_radius(4, shift))


def logistic(p, inp):
    out = []
    for v in inp:
        x = v - p["input_zero_point"]
        if x <= -p["input_range_radius"]:
            out.append(-128)
        elif x >= p["input_range_radius"]:
            out.append(127)
        else:
            xq4 = multiply_by_quantized_multiplier(x, p["input_multiplier"], p["input_left_shift"])
            y = rounding_divide_by_pot(fp_logistic(FP(xq4, 4)).raw, 23)
            out.append(clamp(y - 128, -128, 127))
    return out


def tanh(p, inp):
    out = []
    for v in inp:
        x = v - p["input_zero_point"]
        if x <= -p["input_range_radius"]:
            out.append(-128)
        elif x >= p["input_range_radius"]:
            out.append(127)
        else:
            xq4 = multiply_by_quantized_multiplier(x, p["input_multiplier"], p["input_left_shift"])
            y = rounding_divide_by_pot(fp_tanh(FP(xq4, 4)).raw, 24)
            out.append(clamp(y, -128, 127))
    return out


def pad(inp, shape, before, after, value):
    out_shape = [shape[d] + before[d] + after[d] for d in range(4)]
    out = []
    for b in range(out_shape[0]):
        for y in range(out_shape[1]):
            for x in range(out_shape[2]):
                for c in range(out_shape[3]):
                    coords = (b - before[0], y - before[1], x - before[2], c - before[3])
                    if all(0 <= coords[d] < shape[d] for d in range(4)):
                        i = ((coords[0] * shape[1] + coords[1]) * shape[2] + coords[2]) * shape[3] + coords[3]
                        out.append(inp[i])
                    else:
                        out.append(value)
    return out, out_shape


def concatenation(inputs, shapes, axis):
    rank = len(shapes[0])
    axis = axis + rank if axis < 0 else axis
    outer = 1
    for d in shapes[0][:axis]:
        outer *= d
    out = []
    for o in range(outer):
        for t, s in zip(inputs, shapes):
            block = 1
            for d in s[axis:]:
                block *= d
            out.extend(t[o * block:(o + 1) * block])
    return out


def mean_params(input_scale, input_zp, output_scale, output_zp):
    m, s = quantize_multiplier(input_scale / output_scale)
    return dict(input_zero_point=input_zp, output_zero_point=output_zp, multiplier=m, shift=s)


def mean(p, inp, shape, axes):
    rank = len(shape)
    resolved = sorted({a + rank if a < 0 else a for a in axes})
    kept = [d for d in range(rank) if d not in resolved]
    count = 1
    for d in resolved:
        count *= shape[d]
    # QuantizedMeanOrSum: the raw sums per output (reduced positions grouped).
    sums = {}
    strides = [1] * rank
    for d in range(rank - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    total = 1
    for d in shape:
        total *= d
    for flat in range(total):
        key = tuple((flat // strides[d]) % shape[d] for d in kept)
        sums[key] = wrap32(sums.get(key, 0) + inp[flat])
    shift = 63 - (64 - count.bit_length())
    shift = min(shift, 32)
    shift = min(shift, 31 + p["shift"])
    multiplier = trunc_div(p["multiplier"] << shift, count)
    out_shift = p["shift"] - shift
    out = []
    for key in sorted(sums):
        shifted = wrap32(sums[key] - p["input_zero_point"] * count)
        v = multiply_by_quantized_multiplier(shifted, multiplier, out_shift) + p["output_zero_point"]
        out.append(clamp(v, -128, 127))
    return out


def quantize_f32(values, scale, zero_point):
    out = []
    for v in values:
        r = round_half_away(f32(v / scale))
        out.append(clamp(int(r) + zero_point, -128, 127))
    return out


def requantize_params(input_scale, input_zp, output_scale, output_zp):
    m, s = quantize_multiplier(input_scale / output_scale)
    return dict(input_zero_point=input_zp, output_zero_point=output_zp, multiplier=m, shift=s)


def requantize(p, inp):
    return [clamp(multiply_by_quantized_multiplier(v - p["input_zero_point"], p["multiplier"], p["shift"])
                  + p["output_zero_point"], -128, 127) for v in inp]


def dequantize(inp, scale, zero_point):
    return [f32(scale * (v - zero_point)) for v in inp]


# ---- RELU, RELU6, RELU_N1_TO_1, LEAKY_RELU, ABS (TFLM's quantized forms, int8 and int16) ----

def _type_range(bits):
    return (-128, 127) if bits == 8 else (-32768, 32767)


def _quantize_bound(f, scale, zero_point):
    return zero_point + int(round_half_away(f32(f32(f) / scale)))


def relu_family(op, inp, in_scale, in_zp, out_scale, out_zp, bits, alpha=0.0):
    """op: 'relu', 'relu_n1_to_1', 'relu6', 'leaky_relu' or 'abs'; the outputs of inp."""
    qmin, qmax = _type_range(bits)
    if op in ("relu", "relu_n1_to_1"):
        # CalculateReluOpData / ReluQuantized (TFLite's Relu1 for RELU_N1_TO_1)
        lo_f, hi_f = (0.0, None) if op == "relu" else (-1.0, 1.0)
        m, s = quantize_multiplier(f32(in_scale / out_scale))
        act_min = max(qmin, _quantize_bound(lo_f, out_scale, out_zp))
        act_max = qmax if hi_f is None else min(qmax, _quantize_bound(hi_f, out_scale, out_zp))
        return [clamp(out_zp + multiply_by_quantized_multiplier(x - in_zp, m, s), act_min, act_max)
                for x in inp]
    if op == "relu6":
        # Relu6Quantized: the input clamped to [zero point, quantized 6], no rescale
        six = min(qmax, max(qmin, _quantize_bound(6.0, in_scale, in_zp)))
        return [six if x > six else (in_zp if x < in_zp else x) for x in inp]
    if op == "leaky_relu":
        # CalculateOpDataLeakyRelu / QuantizeLeakyRelu
        ma, sa = quantize_multiplier(f32(f32(in_scale * f32(alpha)) / out_scale))
        mi, si = quantize_multiplier(f32(in_scale / out_scale))
        out = []
        for x in inp:
            v = x - in_zp
            if v >= 0:
                y = out_zp + multiply_by_quantized_multiplier(v, mi, si)
            else:
                scaled = multiply_by_quantized_multiplier(v, abs(ma), sa)
                y = out_zp + (-scaled if ma < 0 else scaled)
            out.append(clamp(y, qmin, qmax))
        return out
    if op == "abs":
        # AbsEvalQuantized
        if f32(in_scale) == f32(out_scale):
            return [clamp(abs(x - in_zp) + out_zp, qmin, qmax) for x in inp]
        m, s = quantize_multiplier(f32(in_scale / out_scale))
        return [clamp(multiply_by_quantized_multiplier(abs(x - in_zp), m, s) + out_zp, qmin, qmax)
                for x in inp]
    raise ValueError(op)


def resize_bilinear_int8(inp, shape, out_h, out_w, align_corners, half_pixel_centers):
    """reference_ops::ResizeBilinearInteger on int8 NHWC (TFLite's default double rounding):
    10-bit fixed-point source positions and four weights summing to 2^20."""
    n, in_h, in_w, depth = shape

    def scale(in_size, out_size):
        if align_corners and out_size > 1:
            return trunc_div(1024 * (in_size - 1) + (out_size - 1) // 2, out_size - 1)
        return trunc_div(1024 * in_size + out_size // 2, out_size)

    def position(o, s, in_size):
        at = o * s + s // 2 - 512 if half_pixel_centers else o * s
        lower = max(trunc_div(at, 1024), 0)
        upper = min(trunc_div(at + 1023, 1024), in_size - 1)
        return at, lower, upper

    sh, sw = scale(in_h, out_h), scale(in_w, out_w)
    out = []
    for b in range(n):
        for y in range(out_h):
            ay, y0, y1 = position(y, sh, in_h)
            dy = ay - 1024 * y0
            for x in range(out_w):
                ax, x0, x1 = position(x, sw, in_w)
                dx = ax - 1024 * x0
                for c in range(depth):
                    def at(yy, xx):
                        return inp[((b * in_h + yy) * in_w + xx) * depth + c]
                    total = (at(y0, x0) * (1024 - dy) * (1024 - dx) + at(y1, x0) * dy * (1024 - dx)
                             + at(y0, x1) * (1024 - dy) * dx + at(y1, x1) * dy * dx)
                    rounding = (1 << 19) if total > 0 else -(1 << 19)
                    out.append(trunc_div(total + rounding, 1 << 20))
    return out


# ---- Round 3 element-wise operators (issue 25) ----

def _wrap16(x):
    x &= 0xFFFF
    return x - 0x10000 if x >= 0x8000 else x


def _srdhm16(a, b):
    """gemmlowp's int16 SaturatingRoundingDoublingHighMul."""
    if a == -32768 and b == -32768:
        return 32767
    ab = a * b
    nudge = (1 << 14) if ab >= 0 else 1 - (1 << 14)
    return _wrap16(trunc_div(ab + nudge, 1 << 15))


def _rdbp16(x, exponent):
    """gemmlowp's RoundingDivideByPOT on int16 (the mask taken modulo 2^16)."""
    mask = _wrap16((1 << exponent) - 1)
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return _wrap16((x >> exponent) + (1 if remainder > threshold else 0))


def _downscale16(m):
    """DownScaleInt32ToInt16Multiplier."""
    return 32767 if m >= INT32_MAX - (1 << 15) else (m + (1 << 15)) >> 16


def hard_swish_params(in_scale, in_zp, out_scale, out_zp):
    """HardSwishPrepare (float arithmetic as TFLM's)."""
    hires = f32(f32(1.0 / 128.0) * in_scale)
    om, osh = quantize_multiplier(f32(hires / out_scale))
    rm, rsh = quantize_multiplier(f32(hires / f32(3.0 / 32768.0)))
    if osh > 0 or osh < -31 or rsh > 31 or rsh < -31:
        raise Unsupported("hard swish shifts")
    return dict(input_zero_point=in_zp, output_zero_point=out_zp,
                output_multiplier=_downscale16(om), output_shift=osh,
                reluish_multiplier=_downscale16(rm), reluish_shift=rsh)


def hard_swish(p, inp):
    """TFLite's reference quantized HardSwish on int8."""
    out = []
    for q in inp:
        hires = _wrap16((q - p["input_zero_point"]) * 128)
        pre = _srdhm16(hires, p["output_multiplier"])
        r = hires
        if p["reluish_shift"] > 0:
            r = clamp(r * (1 << (p["reluish_shift"] - 1)), -32768, 32767)
        r = _srdhm16(r, p["reluish_multiplier"])
        if p["reluish_shift"] > 0:
            r = clamp(r * 2, -32768, 32767)
        if p["reluish_shift"] < 0:
            r = _rdbp16(r, -p["reluish_shift"])
        r = (r + (1 << 15)) >> 1
        v = 32767 if (r == -32768 and pre == -32768) else _wrap16(trunc_div(r * pre, 1 << 15))
        v = _wrap16(_rdbp16(v, -p["output_shift"]) + p["output_zero_point"])
        out.append(clamp(v, -128, 127))
    return out


def prelu_params(in_scale, in_zp, alpha_scale, alpha_zp, out_scale, out_zp):
    """CalculatePreluParams (the ratios in double)."""
    m1, s1 = quantize_multiplier(in_scale / out_scale)
    m2, s2 = quantize_multiplier(in_scale * alpha_scale / out_scale)
    if not (-31 <= s1 <= 31 and -31 <= s2 <= 31):
        raise Unsupported("prelu shifts")
    return dict(input_offset=-in_zp, alpha_offset=-alpha_zp, output_offset=out_zp,
                multiplier_1=m1, shift_1=s1, multiplier_2=m2, shift_2=s2)


def prelu(p, inp, shape, alpha, alpha_shape, out_shape, bits):
    """BroadcastPrelu4DSlow: int8 or int16 input, int8 alpha."""
    lo, hi = _type_range(bits)
    out = []
    for i1, i2 in broadcast_iter(shape, alpha_shape, out_shape):
        v = p["input_offset"] + inp[i1]
        if v >= 0:
            r = multiply_by_quantized_multiplier(v, p["multiplier_1"], p["shift_1"])
        else:
            r = multiply_by_quantized_multiplier(v * (p["alpha_offset"] + alpha[i2]),
                                                 p["multiplier_2"], p["shift_2"])
        out.append(clamp(wrap32(r + p["output_offset"]), lo, hi))
    return out

#!/usr/bin/env python3
"""Conformance cases of the binary element-wise and quantization operators, computed with numpy.

Run once to (re)write cases/binary_*.json (one file per group, so a failure names its group). The
values FreeDML must produce come from here: float64 numpy or exact Python integer math, rounded once
to the output type; never from FreeDML.

Semantics the cases pin down (DirectML's pages are silent; FreeDML's choices, see
src/dml/ops/elementwise_binary/cpu/binary_kernels.h):
  integers wrap modulo 2^bits; x / 0 = x % 0 = 0; INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0;
  MIN/MAX: a NaN loses to a number, MIN(-0, +0) = -0, MAX(-0, +0) = +0;
  MODULUS_FLOOR on floats as numpy's np.mod, MODULUS_TRUNCATE as C's fmod;
  shifts by >= the width give 0; integer MEAN is (a + b) / 2 exact, truncated toward zero;
  integer POW is exact modulo 2^bits, negative exponents give trunc(1 / base^-e) (0 for base 0);
  quantization computes in float32 as the formula is written, rounds half to even, saturates, NaN -> zero point.

Tolerances (ulps of the output type): 0 for integers, comparisons, bitwise ops and every float op
that IEEE rounds once (SUBTRACT, MULTIPLY, DIVIDE, MIN, MAX, MODULUS_*, MEAN of FLOAT32, quantization);
1 for FLOAT16 MEAN and FLOAT16 DIFFERENCE_SQUARE/ATAN_YX/POW (computed in float, rounded again to
half); 2 for FLOAT32 DIFFERENCE_SQUARE (two roundings), ATAN_YX and POW (libm).
"""
import json
import math
import pathlib

import numpy as np

from case_format import is_float, tensor, values

rng = np.random.default_rng(20261123)

NP = {"FLOAT32": np.float32, "FLOAT16": np.float16, "FLOAT64": np.float64, "INT8": np.int8, "UINT8": np.uint8,
      "INT16": np.int16, "UINT16": np.uint16, "INT32": np.int32, "UINT32": np.uint32, "INT64": np.int64,
      "UINT64": np.uint64}
FLOATS = ("FLOAT32", "FLOAT16")
INTS = ("INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8")
NUMERIC = FLOATS + INTS
UNSIGNED = ("UINT64", "UINT32", "UINT16", "UINT8")
SHAPE = (2, 4, 5)  # 40 elements: edge pairs first, random values after
COUNT = int(np.prod(SHAPE))


def edges(dtype, nan=True):
    t = NP[dtype]
    if is_float(dtype):
        info = np.finfo(t)
        e = [0.0, -0.0, np.inf, -np.inf, float(info.max), -float(info.max), float(info.tiny),
             float(info.smallest_subnormal), 1.0, -1.0, 0.5, -2.5, 3.0, 7.0]
        if nan:
            e.append(np.nan)
        return np.array(e, dtype=t)
    info = np.iinfo(t)
    e = [0, 1, 2, 3, int(info.max), int(info.max) - 1, int(info.min), 7]
    if info.min < 0:
        e += [-1, -2, -3, int(info.min) + 1, -7]
    return np.array(e, dtype=t)


def random(dtype, n, low=None, high=None):
    t = NP[dtype]
    if is_float(dtype):
        return (rng.standard_normal(n) * 8).astype(t)
    info = np.iinfo(t)
    lo = info.min if low is None else max(low, info.min)
    hi = info.max if high is None else min(high, info.max)
    return rng.integers(lo, hi, size=n, endpoint=True, dtype=t)


def operand_pair(dtype, nan=True, low=None, high=None, exclude=None):
    """A and B of COUNT elements: edge values paired against rotations of themselves, then random."""
    e = edges(dtype, nan)
    a, b = [], []
    for shift in (0, 1, 3, 5):
        for i in range(len(e)):
            a.append(e[i])
            b.append(e[(i + shift) % len(e)])
    a = np.array(a[:COUNT // 2], dtype=NP[dtype])
    b = np.array(b[:COUNT // 2], dtype=NP[dtype])
    rest = COUNT - len(a)
    a = np.concatenate([a, random(dtype, rest, low, high)])
    b = np.concatenate([b, random(dtype, rest, low, high)])
    if exclude is not None:
        keep = ~exclude(a, b)
        a = np.where(keep, a, NP[dtype](1))
        b = np.where(keep, b, NP[dtype](2))
    return a.astype(NP[dtype]), b.astype(NP[dtype])


def wrap(v, dtype):
    bits = np.dtype(NP[dtype]).itemsize * 8
    v &= (1 << bits) - 1
    if np.issubdtype(NP[dtype], np.signedinteger) and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def int_map(f, a, b, dtype, out=None):
    return np.array([wrap(f(int(x), int(y)), out or dtype) for x, y in zip(a, b)], dtype=NP[out or dtype])


def float_map(f, a, b, dtype):
    with np.errstate(all="ignore"):
        return np.array([f(float(x), float(y)) for x, y in zip(a, b)], dtype=np.float64).astype(NP[dtype])


def trunc_div(x, y):
    if y == 0:
        return 0
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


def trunc_mod(x, y):
    if y == 0:
        return 0
    return x - y * trunc_div(x, y)


def floor_mod(x, y):
    return 0 if y == 0 else x % y  # Python's % floors


def np_mod(a, b):
    """numpy's float modulus (npy_divmod), in float64."""
    if b == 0:
        return math.nan
    m = math.fmod(a, b) if not (math.isinf(a) or math.isnan(a) or math.isnan(b)) else math.nan
    if math.isnan(m):
        return m
    if m != 0:
        if (b < 0) != (m < 0):
            m += b
    else:
        m = math.copysign(0.0, b)
    return m


def fmod(a, b):
    if b == 0 or math.isinf(a) or math.isnan(a) or math.isnan(b):
        return math.nan
    return math.fmod(a, b)


def fmax(a, b):
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    if a == b == 0:
        return -0.0 if (math.copysign(1, a) < 0 and math.copysign(1, b) < 0) else 0.0
    return max(a, b)


def fmin(a, b):
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    if a == b == 0:
        return -0.0 if (math.copysign(1, a) < 0 or math.copysign(1, b) < 0) else 0.0
    return min(a, b)


def atan2(y, x):
    return math.atan2(y, x)


def diff_square(a, b):
    d = a - b
    return d * d


def mean(a, b):
    return (a + b) / 2


def int_mean(a, b):
    return trunc_div(a + b, 2)


def int_pow(x, e):
    if e < 0:
        if x == 1:
            return 1
        if x == -1:
            return -1 if e % 2 else 1
        return 0
    return x ** e


def float_pow(x, e):
    try:
        with np.errstate(all="ignore"):
            return float(np.power(np.float64(x), np.float64(e)))
    except (OverflowError, ZeroDivisionError):
        return math.nan


ARITHMETIC = {
    # name: (types, float function in float64, integer function, float ulps by type)
    "SUBTRACT": (NUMERIC, lambda a, b: a - b, lambda a, b: a - b, {}),
    "MULTIPLY": (NUMERIC, lambda a, b: a * b, lambda a, b: a * b, {}),
    "DIVIDE": (NUMERIC, lambda a, b: a / b if b != 0 else (math.nan if a == 0 or math.isnan(a) else
                                                           math.copysign(math.inf, a) * math.copysign(1, b)),
               trunc_div, {}),
    "MIN": (NUMERIC, fmin, min, {}),
    "MAX": (NUMERIC, fmax, max, {}),
    "MEAN": (("FLOAT32", "FLOAT16", "INT32", "UINT32"), mean, int_mean, {"FLOAT16": 1}),
    "ATAN_YX": (FLOATS, atan2, None, {"FLOAT32": 2, "FLOAT16": 1}),
    "DIFFERENCE_SQUARE": (("FLOAT32", "FLOAT16", "INT32", "UINT32"), diff_square, lambda a, b: (a - b) ** 2,
                          {"FLOAT32": 2, "FLOAT16": 1}),
    "MODULUS_TRUNCATE": (NUMERIC, fmod, trunc_mod, {}),
    "MODULUS_FLOOR": (NUMERIC, np_mod, floor_mod, {}),
}


def binary_case(name, dtype, a, b, expected, ulps=0, out_dtype=None, a_desc=None, b_desc=None, out_desc=None,
                a_values=None, b_values=None):
    out_dtype = out_dtype or dtype
    op = {"type": f"DML_OPERATOR_ELEMENT_WISE_{name}",
          "ATensor": a_desc or tensor(dtype, SHAPE), "BTensor": b_desc or tensor(dtype, SHAPE),
          "OutputTensor": out_desc or tensor(out_dtype, SHAPE)}
    output = {"values": values(expected, out_dtype)}
    if ulps:
        output["ulps"] = ulps
    return {"name": f"{name}_{dtype}" + ("" if out_dtype == dtype else f"_to_{out_dtype}"), "operator": op,
            "inputs": {"ATensor": a_values if a_values is not None else values(a, dtype),
                       "BTensor": b_values if b_values is not None else values(b, dtype)},
            "outputs": {"OutputTensor": output}}


def arithmetic_cases():
    cases = []
    for name, (types, ffun, ifun, ulps) in ARITHMETIC.items():
        for dtype in types:
            if is_float(dtype):
                # ATAN_YX is undefined at the origin: keep (0, 0) out.
                exclude = (lambda x, y: (x == 0) & (y == 0)) if name == "ATAN_YX" else None
                a, b = operand_pair(dtype, exclude=exclude)
                expected = float_map(ffun, a, b, dtype)
            else:
                a, b = operand_pair(dtype)
                expected = int_map(ifun, a, b, dtype)
            cases.append(binary_case(name, dtype, a, b, expected, ulps.get(dtype, 0)))
    return cases


def bitwise_cases():
    cases = []
    ops = {"BIT_AND": lambda x, y: x & y, "BIT_OR": lambda x, y: x | y, "BIT_XOR": lambda x, y: x ^ y}
    bits_type = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
    for name, f in ops.items():
        for dtype in ("FLOAT64",) + NUMERIC:
            a, b = operand_pair(dtype, nan=False)
            u = bits_type[np.dtype(NP[dtype]).itemsize]
            with np.errstate(all="ignore"):
                r = f(a.view(u), b.view(u)).view(NP[dtype])
            if is_float(dtype):
                r = np.where(np.isnan(r), np.nan, r).astype(NP[dtype])  # the runner matches any NaN
            cases.append(binary_case(name, dtype, a, b, r))
    for name, f in (("BIT_SHIFT_LEFT", lambda x, y, w: 0 if y >= w else x << y),
                    ("BIT_SHIFT_RIGHT", lambda x, y, w: 0 if y >= w else x >> y)):
        for dtype in UNSIGNED:
            width = np.dtype(NP[dtype]).itemsize * 8
            a = random(dtype, COUNT)
            b = np.array([(i * 7) % (width + 9) for i in range(COUNT)], dtype=NP[dtype])  # shifts past the width
            b[-1] = np.iinfo(NP[dtype]).max
            cases.append(binary_case(name, dtype, a, b, int_map(lambda x, y: f(x, y, width), a, b, dtype)))
    return cases


def logical_cases():
    cases = []
    ops = {"LOGICAL_AND": lambda x, y: int(bool(x) and bool(y)), "LOGICAL_OR": lambda x, y: int(bool(x) or bool(y)),
           "LOGICAL_XOR": lambda x, y: int(bool(x) != bool(y))}
    for name, f in ops.items():
        for dtype in ("UINT32", "UINT8"):
            a = np.where(rng.random(COUNT) < 0.5, 0, random(dtype, COUNT)).astype(NP[dtype])
            b = np.where(rng.random(COUNT) < 0.5, 0, random(dtype, COUNT)).astype(NP[dtype])
            cases.append(binary_case(name, dtype, a, b, int_map(f, a, b, dtype)))
    comparisons = {"LOGICAL_EQUALS": np.equal, "LOGICAL_GREATER_THAN": np.greater, "LOGICAL_LESS_THAN": np.less,
                   "LOGICAL_GREATER_THAN_OR_EQUAL": np.greater_equal, "LOGICAL_LESS_THAN_OR_EQUAL": np.less_equal}
    for name, f in comparisons.items():
        for dtype in NUMERIC:
            # UINT8 output for every input type; UINT32 output for one float, one signed and one
            # unsigned type (the output type is independent of the comparison).
            for out in ("UINT8", "UINT32") if dtype in ("FLOAT16", "INT32", "UINT64") else ("UINT8",):
                a, b = operand_pair(dtype)
                # Half the random pairs equal, so EQUALS and the OR_EQUAL forms see both outcomes.
                b[COUNT - 10:] = a[COUNT - 10:]
                with np.errstate(all="ignore"):
                    r = f(a, b).astype(NP[out])
                cases.append(binary_case(name, dtype, a, b, r, out_dtype=out))
    return cases


def pow_case(in_dtype, exp_dtype, base, exponent, expected, ulps=0, scale_bias=None, suffix=""):
    op = {"type": "DML_OPERATOR_ELEMENT_WISE_POW", "InputTensor": tensor(in_dtype, SHAPE),
          "ExponentTensor": tensor(exp_dtype, SHAPE), "OutputTensor": tensor(in_dtype, SHAPE)}
    if scale_bias:
        op["ScaleBias"] = {"Scale": scale_bias[0], "Bias": scale_bias[1]}
    output = {"values": values(expected, in_dtype)}
    if ulps:
        output["ulps"] = ulps
    name = f"POW_{in_dtype}" + ("" if exp_dtype == in_dtype else f"_exponent_{exp_dtype}") + suffix
    return {"name": name, "operator": op,
            "inputs": {"InputTensor": values(base, in_dtype), "ExponentTensor": values(exponent, exp_dtype)},
            "outputs": {"OutputTensor": output}}


def saturate(v, dtype):
    if math.isnan(v):
        return 0
    info = np.iinfo(NP[dtype])
    return int(min(max(math.trunc(v) if not math.isinf(v) else v, info.min), info.max))


def pow_cases():
    cases = []
    pow_types = ("FLOAT32", "FLOAT16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8")
    for dtype in pow_types:
        if is_float(dtype):
            base = np.array([2, -2, -2, 0, -0.0, 0, -0.0, np.inf, -np.inf, -np.inf, np.nan, 1, 1, -1, -1, 0.5,
                             -8, 10, 3, 1.5] + list(np.abs(random(dtype, 20)) + 0.25), dtype=NP[dtype])
            exponent = np.array([3, 3, 0.5, -1, -1, 0, -3, -1, 3, 2, 0, np.nan, np.inf, np.inf, 1e4, -2,
                                 1.0 / 3.0, 4, 2.5, -0.5] + list(rng.uniform(-3, 3, 20)), dtype=NP[dtype])
            expected = float_map(float_pow, base, exponent, dtype)
            cases.append(pow_case(dtype, dtype, base, exponent, expected, 2 if dtype == "FLOAT32" else 1))
        else:
            info = np.iinfo(NP[dtype])
            signed = info.min < 0
            base = random(dtype, COUNT, -6 if signed else 0, 6)
            exponent = random(dtype, COUNT, -3 if signed else 0, 9)
            base[:6] = [0, 1, 2, 3, 7, info.max]
            exponent[:6] = [0, 5, info.bits - 1, 13, 3, 2]
            if signed:
                base[6:12] = [-1, -1, -2, 0, 2, info.min]
                exponent[6:12] = [-3, -4, 3, -1, -2, 2]
            expected = int_map(int_pow, base, exponent, dtype)
            cases.append(pow_case(dtype, dtype, base, exponent, expected))
    # Mixed types (feature level 3.0 on): float base with integer exponent and the reverse.
    base = random("FLOAT32", COUNT)
    exponent = random("INT32", COUNT, -4, 5)
    cases.append(pow_case("FLOAT32", "INT32", base, exponent, float_map(float_pow, base, exponent, "FLOAT32"), 2))
    base = random("INT32", COUNT, -20, 20)
    exponent = (rng.uniform(-1, 3.5, COUNT)).astype(np.float32)
    expected = np.array([saturate(float_pow(x, e), "INT32") for x, e in zip(base, exponent)], dtype=np.int32)
    cases.append(pow_case("INT32", "FLOAT32", base, exponent, expected))
    base = random("FLOAT16", COUNT)
    exponent = random("UINT8", COUNT, 0, 4)
    cases.append(pow_case("FLOAT16", "UINT8", base, exponent, float_map(float_pow, base, exponent, "FLOAT16"), 1))
    # ScaleBias applies to the base, in float32: g(x) = x * 0.5 + 1.
    base = random("FLOAT32", COUNT)
    exponent = random("FLOAT32", COUNT)
    scaled = (base.astype(np.float32) * np.float32(0.5) + np.float32(1.0)).astype(np.float32)
    cases.append(pow_case("FLOAT32", "FLOAT32", base, exponent, float_map(float_pow, scaled, exponent, "FLOAT32"), 2,
                          scale_bias=(0.5, 1.0), suffix="_scale_bias"))
    return cases


def layout_cases():
    """Broadcast (zero strides), transposed and strided/offset views, checked against numpy's own indexing."""
    cases = []
    # SUBTRACT FLOAT32: A a column per row (strides [1, 0]), B a row broadcast over rows ([0, 1]).
    col = random("FLOAT32", 4)
    row = random("FLOAT32", 6)
    full = np.subtract.outer(col.astype(np.float64), row.astype(np.float64)).astype(np.float32)
    cases.append(binary_case("SUBTRACT", "FLOAT32", None, None, full,
                             a_desc=tensor("FLOAT32", (4, 6), (1, 0)), b_desc=tensor("FLOAT32", (4, 6), (0, 1)),
                             out_desc=tensor("FLOAT32", (4, 6)), a_values=values(col, "FLOAT32"),
                             b_values=values(row, "FLOAT32")))
    cases[-1]["name"] += "_broadcast_both"
    # MAX INT16 against a scalar broadcast over everything.
    a = random("INT16", 24)
    s = np.array([-5], dtype=np.int16)
    cases.append(binary_case("MAX", "INT16", a, None, np.maximum(a, s[0]).reshape(2, 3, 4),
                             a_desc=tensor("INT16", (2, 3, 4)), b_desc=tensor("INT16", (2, 3, 4), (0, 0, 0)),
                             out_desc=tensor("INT16", (2, 3, 4)), b_values=values(s, "INT16")))
    cases[-1]["name"] += "_scalar"
    # MULTIPLY FLOAT16 with a transposed output (strides [1, 5]) and A transposed too.
    a = random("FLOAT16", 15).reshape(3, 5)
    b = random("FLOAT16", 15).reshape(5, 3).T  # B packed as 5x3 memory, read transposed
    product = (a.astype(np.float64) * b.astype(np.float64)).astype(np.float16)
    cases.append(binary_case("MULTIPLY", "FLOAT16", None, None, product,
                             a_desc=tensor("FLOAT16", (3, 5)), b_desc=tensor("FLOAT16", (3, 5), (1, 3)),
                             out_desc=tensor("FLOAT16", (3, 5), (1, 3)), a_values=values(a, "FLOAT16"),
                             b_values=values(b.T, "FLOAT16")))
    cases[-1]["name"] += "_transposed"
    # DIVIDE INT32 into every other element of a larger output buffer (nothing else may change).
    a = random("INT32", 12, -1000, 1000)
    b = random("INT32", 12, -9, 9)
    q = int_map(trunc_div, a, b, "INT32")
    cases.append(binary_case("DIVIDE", "INT32", a, b, q, a_desc=tensor("INT32", (3, 4)),
                             b_desc=tensor("INT32", (3, 4)), out_desc=tensor("INT32", (3, 4), (10, 2), total=128)))
    cases[-1]["name"] += "_strided_output"
    # LOGICAL_GREATER_THAN FLOAT32 -> UINT8 with a per-channel B (NCHW, strides [0, 1, 0, 0]).
    a = random("FLOAT32", 2 * 3 * 2 * 2).reshape(2, 3, 2, 2)
    ch = random("FLOAT32", 3)
    r = (a > ch.reshape(1, 3, 1, 1)).astype(np.uint8)
    cases.append(binary_case("LOGICAL_GREATER_THAN", "FLOAT32", a, None, r, out_dtype="UINT8",
                             a_desc=tensor("FLOAT32", (2, 3, 2, 2)), b_desc=tensor("FLOAT32", (2, 3, 2, 2), (0, 1, 0, 0)),
                             out_desc=tensor("UINT8", (2, 3, 2, 2)), b_values=values(ch, "FLOAT32")))
    cases[-1]["name"] += "_per_channel"
    # MODULUS_FLOOR INT8 with A read from every third element of its buffer.
    a_mem = random("INT8", 3 * 8)
    a = a_mem[::3]
    b = random("INT8", 8, -5, 5)
    cases.append(binary_case("MODULUS_FLOOR", "INT8", None, b, int_map(floor_mod, a, b, "INT8"),
                             a_desc=tensor("INT8", (8,), (3,)), b_desc=tensor("INT8", (8,)),
                             out_desc=tensor("INT8", (8,)), a_values=values(a_mem[:22], "INT8")))
    cases[-1]["name"] += "_strided_input"
    return cases


# ---- Quantization ---------------------------------------------------------------------------------

F32 = np.float32


def quantize_expected(x, scale, zero_point, out_dtype):
    info = np.iinfo(NP[out_dtype])
    out = []
    for v, s, z in zip(x, scale, zero_point):
        with np.errstate(all="ignore"):
            q = F32(F32(v) / F32(s))
        if np.isnan(q):
            out.append(int(z))
            continue
        r = float(np.rint(q)) + int(z)
        out.append(int(min(max(r, info.min), info.max)))
    return np.array(out, dtype=NP[out_dtype])


def quantize_inputs(in_dtype):
    if in_dtype == "INT32":
        x = random("INT32", COUNT, -3000, 3000)
        x[:6] = [0, 2 ** 31 - 1, -2 ** 31, 5, -5, 15]
        return x
    scale = 0.5
    ties = [2.5 * scale, 3.5 * scale, -2.5 * scale, -3.5 * scale, 0.5 * scale, -0.5 * scale]
    x = list(ties) + [0.0, -0.0, np.inf, -np.inf, np.nan, 1e4, -1e4, 127.4 * scale, -128.6 * scale]
    x = np.array(x + list(random(in_dtype, COUNT - len(x)) * 8), dtype=NP[in_dtype])
    return x


def quantize_case(name, op_type, in_dtype, out_dtype, x, scale_desc, scale_values, scale_full, zp_desc, zp_values,
                  zp_full, array_form=None):
    expected = quantize_expected(x, scale_full, zp_full, out_dtype)
    op = {"type": op_type, "InputTensor": tensor(in_dtype, SHAPE), "OutputTensor": tensor(out_dtype, SHAPE)}
    inputs = {"InputTensor": values(x, in_dtype)}
    scale_dtype = scale_desc["DataType"]
    if array_form:
        op["QuantizationType"] = array_form
        op["QuantizationTensorCount"] = 2 if zp_desc else 1
        op["QuantizationTensors"] = [scale_desc] + ([zp_desc] if zp_desc else [])
        # The runner takes a one-tensor array's values as a flat list (as for a single tensor).
        inputs["QuantizationTensors"] = [values(scale_values, scale_dtype), values(zp_values, out_dtype)] if zp_desc \
            else values(scale_values, scale_dtype)
    else:
        op["ScaleTensor"] = scale_desc
        inputs["ScaleTensor"] = values(scale_values, scale_dtype)
        if zp_desc:
            op["ZeroPointTensor"] = zp_desc
            inputs["ZeroPointTensor"] = values(zp_values, out_dtype)
    return {"name": name, "operator": op, "inputs": inputs, "outputs": {"OutputTensor": {"values": values(expected, out_dtype)}}}


def dequantize_case(name, op_type, in_dtype, out_dtype, x, scale, zp, array_form=None, per_axis=False):
    # Per-axis: scale and zero point vary along axis 1 (strides [0, 1, 0]).
    if per_axis:
        desc_sizes, strides = SHAPE, (0, 1, 0)
        scale_full = np.broadcast_to(scale.reshape(1, SHAPE[1], 1), SHAPE).ravel()
        zp_full = np.broadcast_to(zp.reshape(1, SHAPE[1], 1), SHAPE).ravel() if zp is not None else None
    else:
        desc_sizes, strides = (1, 1, 1), None
        scale_full = np.repeat(scale, COUNT)
        zp_full = np.repeat(zp, COUNT) if zp is not None else None
    diff = np.array([int(v) - (int(z) if zp is not None else 0) for v, z in
                     zip(x, zp_full if zp is not None else np.zeros(COUNT))], dtype=np.int64)
    expected = (diff.astype(F32) * scale_full.astype(F32)).astype(F32).astype(NP[out_dtype])
    op = {"type": op_type, "InputTensor": tensor(in_dtype, SHAPE), "OutputTensor": tensor(out_dtype, SHAPE)}
    inputs = {"InputTensor": values(x, in_dtype)}
    scale_desc = tensor(out_dtype, desc_sizes, strides)
    zp_desc = tensor(in_dtype, desc_sizes, strides) if zp is not None else None
    if array_form:
        op["QuantizationType"] = array_form
        op["QuantizationTensorCount"] = 2 if zp is not None else 1
        op["QuantizationTensors"] = [scale_desc] + ([zp_desc] if zp_desc else [])
        inputs["QuantizationTensors"] = [values(scale, out_dtype), values(zp, in_dtype)] if zp_desc \
            else values(scale, out_dtype)
    else:
        op["ScaleTensor"] = scale_desc
        inputs["ScaleTensor"] = values(scale, out_dtype)
        if zp_desc:
            op["ZeroPointTensor"] = zp_desc
            inputs["ZeroPointTensor"] = values(zp, in_dtype)
    return {"name": name, "operator": op, "inputs": inputs, "outputs": {"OutputTensor": {"values": values(expected, out_dtype)}}}


def quantization_cases():
    cases = []
    one = (1, 1, 1)
    for in_dtype in ("FLOAT32", "FLOAT16", "INT32"):
        scale_dtype = "FLOAT32" if in_dtype == "INT32" else in_dtype
        for out_dtype in ("INT8", "UINT8"):
            x = quantize_inputs(in_dtype)
            zp = np.array([3 if out_dtype == "INT8" else 130], dtype=NP[out_dtype])
            scale = np.array([0.5], dtype=NP[scale_dtype])
            cases.append(quantize_case(f"QUANTIZE_LINEAR_{in_dtype}_to_{out_dtype}",
                                       "DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR", in_dtype, out_dtype, x,
                                       tensor(scale_dtype, one), scale, np.repeat(scale, COUNT),
                                       tensor(out_dtype, one), zp, np.repeat(zp, COUNT)))
    # Per-axis scale and zero point through broadcast strides, and no zero point (6.2 on).
    x = quantize_inputs("FLOAT32")
    scale = np.array([0.25, 0.5, 1.0, 3.0], dtype=np.float32)
    zp = np.array([-3, 0, 5, 100], dtype=np.int8)
    full = lambda v: np.broadcast_to(v.reshape(1, 4, 1), SHAPE).ravel()
    cases.append(quantize_case("QUANTIZE_LINEAR_FLOAT32_to_INT8_per_axis", "DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR",
                               "FLOAT32", "INT8", x, tensor("FLOAT32", SHAPE, (0, 1, 0)), scale, full(scale),
                               tensor("INT8", SHAPE, (0, 1, 0)), zp, full(zp)))
    cases.append(quantize_case("QUANTIZE_LINEAR_FLOAT32_to_UINT8_no_zero_point",
                               "DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR", "FLOAT32", "UINT8", x,
                               tensor("FLOAT32", one), np.array([0.5], np.float32), np.repeat(F32(0.5), COUNT),
                               None, None, np.zeros(COUNT, np.int64)))
    # QUANTIZE (6.3) with SCALE and SCALE_ZERO_POINT.
    for in_dtype in FLOATS:
        for out_dtype in ("INT8", "UINT8"):
            x = quantize_inputs(in_dtype)
            scale = np.array([0.5], dtype=NP[in_dtype])
            zp = np.array([-7 if out_dtype == "INT8" else 7], dtype=NP[out_dtype])
            cases.append(quantize_case(f"QUANTIZE_{in_dtype}_to_{out_dtype}_scale_zero_point", "DML_OPERATOR_QUANTIZE",
                                       in_dtype, out_dtype, x, tensor(in_dtype, one), scale, np.repeat(scale, COUNT),
                                       tensor(out_dtype, one), zp, np.repeat(zp, COUNT),
                                       array_form="DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT"))
        cases.append(quantize_case(f"QUANTIZE_{in_dtype}_to_INT8_scale", "DML_OPERATOR_QUANTIZE", in_dtype, "INT8",
                                   quantize_inputs(in_dtype), tensor(in_dtype, one), np.array([0.5], NP[in_dtype]),
                                   np.repeat(NP[in_dtype](0.5), COUNT), None, None, np.zeros(COUNT, np.int64),
                                   array_form="DML_QUANTIZATION_TYPE_SCALE"))
    for in_dtype in ("INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8"):
        for out_dtype in FLOATS:
            x = random(in_dtype, COUNT)
            zp = random(in_dtype, 1)
            scale = np.array([0.0625 if out_dtype == "FLOAT16" else 1.0e-3], dtype=NP[out_dtype])
            cases.append(dequantize_case(f"DEQUANTIZE_LINEAR_{in_dtype}_to_{out_dtype}",
                                         "DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR", in_dtype, out_dtype, x, scale, zp))
    x = random("UINT8", COUNT)
    cases.append(dequantize_case("DEQUANTIZE_LINEAR_UINT8_to_FLOAT32_per_axis",
                                 "DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR", "UINT8", "FLOAT32", x,
                                 np.array([0.1, 0.2, 0.3, 0.4], np.float32), np.array([0, 10, 128, 255], np.uint8),
                                 per_axis=True))
    cases.append(dequantize_case("DEQUANTIZE_LINEAR_INT8_to_FLOAT32_no_zero_point",
                                 "DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR", "INT8", "FLOAT32", random("INT8", COUNT),
                                 np.array([0.75], np.float32), None))
    for in_dtype in ("INT8", "UINT8"):
        for out_dtype in FLOATS:
            cases.append(dequantize_case(f"DEQUANTIZE_{in_dtype}_to_{out_dtype}", "DML_OPERATOR_DEQUANTIZE", in_dtype,
                                         out_dtype, random(in_dtype, COUNT), np.array([0.125], NP[out_dtype]),
                                         random(in_dtype, 1), array_form="DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT"))
    # QUANTIZED_LINEAR_ADD: dequantize both, add, requantize, all in float32 as written.
    for a_t, b_t, o_t, with_zp in (("INT8", "INT8", "INT8", True), ("UINT8", "UINT8", "UINT8", True),
                                   ("INT8", "UINT8", "UINT8", True), ("UINT8", "INT8", "INT8", True),
                                   ("UINT8", "UINT8", "INT8", False)):
        a, b = random(a_t, COUNT), random(b_t, COUNT)
        a_s, b_s, o_s = F32(0.05), F32(0.02), F32(0.07)
        a_z = random(a_t, 1)[0] if with_zp else 0
        b_z = random(b_t, 1)[0] if with_zp else 0
        o_z = random(o_t, 1, -20, 20)[0] if with_zp else 0
        info = np.iinfo(NP[o_t])
        expected = []
        for x, y in zip(a, b):
            av = F32(F32(int(x) - int(a_z)) * a_s)
            bv = F32(F32(int(y) - int(b_z)) * b_s)
            q = F32(F32(av + bv) / o_s)
            expected.append(int(min(max(float(np.rint(q)) + int(o_z), info.min), info.max)))
        op = {"type": "DML_OPERATOR_ELEMENT_WISE_QUANTIZED_LINEAR_ADD", "ATensor": tensor(a_t, SHAPE),
              "AScaleTensor": tensor("FLOAT32", one), "BTensor": tensor(b_t, SHAPE),
              "BScaleTensor": tensor("FLOAT32", one), "OutputScaleTensor": tensor("FLOAT32", one),
              "OutputTensor": tensor(o_t, SHAPE)}
        inputs = {"ATensor": values(a, a_t), "AScaleTensor": [float(a_s)], "BTensor": values(b, b_t),
                  "BScaleTensor": [float(b_s)], "OutputScaleTensor": [float(o_s)]}
        if with_zp:
            op.update({"AZeroPointTensor": tensor(a_t, one), "BZeroPointTensor": tensor(b_t, one),
                       "OutputZeroPointTensor": tensor(o_t, one)})
            inputs.update({"AZeroPointTensor": [int(a_z)], "BZeroPointTensor": [int(b_z)],
                           "OutputZeroPointTensor": [int(o_z)]})
        cases.append({"name": f"QUANTIZED_LINEAR_ADD_{a_t}_{b_t}_to_{o_t}" + ("" if with_zp else "_no_zero_points"),
                      "operator": op, "inputs": inputs,
                      "outputs": {"OutputTensor": {"values": values(np.array(expected), o_t)}}})
    return cases


# ---- 4-bit QUANTIZE and DEQUANTIZE ---------------------------------------------------------------
# INT4 (-8..7) and UINT4 (0..15) pack two elements a byte: element i of the buffer in byte i // 2,
# the low nibble when i is even. A 4-bit input is listed as the bytes of its buffer, packed here.

RANGE4 = {"INT4": (-8, 7), "UINT4": (0, 15)}
rng4 = np.random.default_rng(20261126)  # its own stream: the cases above keep their values


def pack4(elements):
    """Bytes of a 4-bit buffer holding `elements` (memory order), padded to a multiple of 4."""
    nibbles = [int(e) & 0xF for e in elements]
    if len(nibbles) % 2:
        nibbles.append(0)
    packed = [nibbles[k] | (nibbles[k + 1] << 4) for k in range(0, len(nibbles), 2)]
    return packed + [0] * (-len(packed) % 4)


def strided_memory(values_rowmajor, sizes, strides, fill=0):
    """The memory-order elements of a tensor of `sizes` and `strides` holding `values_rowmajor`."""
    index = np.indices(sizes).reshape(len(sizes), -1).T
    offsets = index @ np.array(strides)
    memory = [fill] * (int(offsets.max()) + 1)
    for o, v in zip(offsets, np.asarray(values_rowmajor).ravel()):
        memory[int(o)] = v
    return memory


def expand_blocks(v, sizes):
    """A scale or zero point of sizes dividing SHAPE, spread over SHAPE (each element a block)."""
    v = np.asarray(v).reshape(sizes)
    for d, (n, b) in enumerate(zip(SHAPE, sizes)):
        v = np.repeat(v, n // b, axis=d)
    return v.ravel()


def quantize4_expected(x, scale, zero_point, out_dtype):
    lo, hi = RANGE4[out_dtype]
    out = []
    for v, sc, z in zip(x, scale, zero_point):
        with np.errstate(all="ignore"):
            q = F32(F32(v) / F32(sc))
        if np.isnan(q):
            out.append(int(z))
            continue
        out.append(int(min(max(float(np.rint(q)) + int(z), lo), hi)))
    return out


def quantize4_case(name, in_dtype, out_dtype, x, scale, scale_sizes, zp=None, out_strides=None):
    scale = np.asarray(scale, NP[in_dtype])
    scale_full = expand_blocks(scale, scale_sizes)
    zp_full = expand_blocks(zp, scale_sizes) if zp is not None else np.zeros(COUNT, np.int64)
    expected = quantize4_expected(x, scale_full, zp_full, out_dtype)
    op = {"type": "DML_OPERATOR_QUANTIZE", "InputTensor": tensor(in_dtype, SHAPE),
          "QuantizationType": "DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT" if zp is not None
          else "DML_QUANTIZATION_TYPE_SCALE",
          "QuantizationTensorCount": 2 if zp is not None else 1,
          "QuantizationTensors": [tensor(in_dtype, scale_sizes)] + ([tensor(out_dtype, scale_sizes)] if zp is not None
                                                                    else []),
          "OutputTensor": tensor(out_dtype, SHAPE, out_strides)}
    inputs = {"InputTensor": values(x, in_dtype)}
    inputs["QuantizationTensors"] = [values(scale, in_dtype), pack4(np.ravel(zp))] if zp is not None \
        else values(scale, in_dtype)
    return {"name": name, "operator": op, "inputs": inputs, "outputs": {"OutputTensor": {"values": expected}}}


def dequantize4_case(name, in_dtype, out_dtype, x, scale, scale_sizes, zp=None, in_strides=None):
    """x: the logical (row-major) elements; with in_strides they are laid out through those."""
    scale = np.asarray(scale, NP[out_dtype])
    scale_full = expand_blocks(scale, scale_sizes).astype(F32)
    zp_full = expand_blocks(zp, scale_sizes) if zp is not None else np.zeros(COUNT, np.int64)
    diff = np.array([int(v) - int(z) for v, z in zip(x, zp_full)], dtype=np.int64)
    expected = (diff.astype(F32) * scale_full).astype(F32).astype(NP[out_dtype])
    memory = strided_memory(x, SHAPE, in_strides) if in_strides else list(x)
    op = {"type": "DML_OPERATOR_DEQUANTIZE", "InputTensor": tensor(in_dtype, SHAPE, in_strides),
          "QuantizationType": "DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT" if zp is not None
          else "DML_QUANTIZATION_TYPE_SCALE",
          "QuantizationTensorCount": 2 if zp is not None else 1,
          "QuantizationTensors": [tensor(out_dtype, scale_sizes)] + ([tensor(in_dtype, scale_sizes)] if zp is not None
                                                                     else []),
          "OutputTensor": tensor(out_dtype, SHAPE)}
    inputs = {"InputTensor": pack4(memory)}
    inputs["QuantizationTensors"] = [values(scale, out_dtype), pack4(np.ravel(zp))] if zp is not None \
        else values(scale, out_dtype)
    return {"name": name, "operator": op, "inputs": inputs,
            "outputs": {"OutputTensor": {"values": values(expected, out_dtype)}}}


def quantization4_cases():
    cases = []
    one = (1, 1, 1)
    for in_dtype in FLOATS:
        # Ties at +-0.5, +-2.5, +-3.5 (half to even), +-0, +-inf, NaN (to the zero point), values
        # far past -8..7 and 0..15 (saturation), then random ones.
        for out_dtype in ("INT4", "UINT4"):
            x = quantize_inputs(in_dtype)
            zp = np.array([-2 if out_dtype == "INT4" else 3])
            cases.append(quantize4_case(f"QUANTIZE_{in_dtype}_to_{out_dtype}_scale_zero_point", in_dtype, out_dtype,
                                        x, [0.5], one, zp))
            cases.append(quantize4_case(f"QUANTIZE_{in_dtype}_to_{out_dtype}_scale", in_dtype, out_dtype, x, [0.5],
                                        one))
    x = quantize_inputs("FLOAT32")
    # Per axis (scales along axis 1) and blocked (sizes (2, 2, 1): two elements of axis 1 a block).
    cases.append(quantize4_case("QUANTIZE_FLOAT32_to_UINT4_per_axis", "FLOAT32", "UINT4", x,
                                [0.25, 0.5, 1.0, 3.0], (1, 4, 1), np.array([0, 4, 8, 15])))
    blocked = (2, 2, 1)  # blocks of 2 along axis 1, one scale per batch: 4 scales
    cases.append(quantize4_case("QUANTIZE_FLOAT32_to_INT4_blocked", "FLOAT32", "INT4", x,
                                [0.25, 0.5, 1.0, 2.0], blocked, np.array([-8, -1, 0, 7])))
    cases.append(quantize4_case("QUANTIZE_FLOAT16_to_UINT4_blocked_scale_only", "FLOAT16", "UINT4",
                                quantize_inputs("FLOAT16"), [0.5, 1.0], (2, 1, 1)))
    # A strided output: odd strides put neighbouring elements in one byte's two nibbles out of
    # order, and the elements the strides skip must keep the buffer's bytes.
    cases.append(quantize4_case("QUANTIZE_FLOAT32_to_INT4_strided_output", "FLOAT32", "INT4", x, [0.5], one,
                                np.array([1]), out_strides=(1, 2, 9)))
    for in_dtype in ("INT4", "UINT4"):
        lo, hi = RANGE4[in_dtype]
        for out_dtype in FLOATS:
            x = list(range(lo, hi + 1)) + list(rng4.integers(lo, hi + 1, COUNT - (hi - lo + 1)))
            zp = np.array([rng4.integers(lo, hi + 1)])
            scale = [0.0625 if out_dtype == "FLOAT16" else 1.0e-3]
            cases.append(dequantize4_case(f"DEQUANTIZE_{in_dtype}_to_{out_dtype}_scale_zero_point", in_dtype,
                                          out_dtype, x, scale, one, zp))
            cases.append(dequantize4_case(f"DEQUANTIZE_{in_dtype}_to_{out_dtype}_scale", in_dtype, out_dtype, x,
                                          [0.75], one))
    x = list(rng4.integers(-8, 8, COUNT))
    cases.append(dequantize4_case("DEQUANTIZE_INT4_to_FLOAT32_per_axis", "INT4", "FLOAT32", x,
                                  [0.1, 0.2, 0.3, 0.4], (1, 4, 1), np.array([-8, 0, 3, 7])))
    cases.append(dequantize4_case("DEQUANTIZE_INT4_to_FLOAT32_blocked", "INT4", "FLOAT32", x,
                                  [0.5, 0.25, 2.0, 4.0], (2, 2, 1), np.array([1, -1, 0, 5])))
    x = list(rng4.integers(0, 16, COUNT))
    cases.append(dequantize4_case("DEQUANTIZE_UINT4_to_FLOAT16_strided_input", "UINT4", "FLOAT16", x, [0.5], one,
                                  np.array([8]), in_strides=(1, 2, 9)))
    return cases


def write(group, cases):
    path = pathlib.Path(__file__).parent / "cases" / f"binary_{group}.json"
    lines = ",\n".join(json.dumps(c, separators=(",", ":")) for c in cases)
    path.write_text('{"generator":"%s","cases":[\n%s\n]}\n' % (pathlib.Path(__file__).name, lines))
    print(f"wrote {len(cases)} cases ({path.stat().st_size // 1024} KiB) to {path}")


write("arithmetic", arithmetic_cases())
write("bitwise", bitwise_cases())
write("logical", logical_cases())
write("pow", pow_cases())
write("layouts", layout_cases())
write("quantization", quantization_cases())
write("quantization_4bit", quantization4_cases())

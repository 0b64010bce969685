#!/usr/bin/env python3
"""Conformance cases of the unary element-wise family, CAST and FILL_VALUE_*, computed with numpy.

Run once to (re)write cases/unary_*.json. Every expected value comes from numpy in float64 (or
exact integer arithmetic in Python), rounded once to the output type; never from FreeDML.

Tolerances, in units in the last place of the output type:
  exact (0)    ABS, NEGATE, CEIL, FLOOR, ROUND, SIGN, CLIP, CLIP1, THRESHOLD, CLIP_GRAD(1),
               IS_NAN, IS_INFINITY, BIT_NOT, BIT_COUNT, LOGICAL_NOT, CAST, FILL_VALUE_CONSTANT,
               every integer result
  1            SQRT, RECIP (DirectML allows the approximate GPU forms), FILL_VALUE_SEQUENCE on
               floating types (start + index * delta may be rounded in float or double)
  4 (FLOAT32)  the transcendental functions and CONSTANT_POW
  1 (FLOAT16)  the transcendental functions and CONSTANT_POW (computed in float, rounded once)

Semantics where DirectML's pages are silent (FreeDML's choices, see the report of this family):
  CLIP / CLIP1 / THRESHOLD pass NaN through; SIGN(NaN) = 0 (the documented "0 otherwise");
  CLIP_GRAD passes the gradient for a NaN input (neither comparison holds);
  CAST float -> integer truncates toward zero, saturates, NaN -> 0; integer -> integer wraps;
  FLOAT Min/Max/Exponent of CLIP/THRESHOLD/CLIP_GRAD on integer tensors truncate toward zero and
  saturate; on FLOAT16 tensors they round to the nearest half (as CLIP's page says);
  FILL_VALUE_SEQUENCE element i (logical row-major order) = start + i * delta.
"""
import json
import math
import pathlib

import numpy as np

from case_format import is_float, tensor, values

rng = np.random.default_rng(20261205)
HERE = pathlib.Path(__file__).parent
NP = {"FLOAT32": np.float32, "FLOAT16": np.float16, "FLOAT64": np.float64, "INT8": np.int8, "UINT8": np.uint8,
      "INT16": np.int16, "UINT16": np.uint16, "INT32": np.int32, "UINT32": np.uint32, "INT64": np.int64,
      "UINT64": np.uint64}
FLOATS = ["FLOAT32", "FLOAT16"]
SIGNED = ["FLOAT32", "FLOAT16", "INT64", "INT32", "INT16", "INT8"]
NUMERIC = SIGNED + ["UINT64", "UINT32", "UINT16", "UINT8"]
ALL = ["FLOAT64"] + NUMERIC
NARROW = ["FLOAT32", "FLOAT16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8"]


def expect(array, ulps=0):
    out = {"values": values(array)}
    if ulps:
        out["ulps"] = ulps
    return out


# ---- Inputs ---------------------------------------------------------------------------------------

def float_edges(dtype):
    t = NP[dtype]
    info = np.finfo(t)
    return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, info.max, -info.max, info.tiny, -info.tiny,
                     info.smallest_subnormal, 1.0, -1.0], dtype=t)


def float_inputs(dtype, special, low, high, count=40):
    """Edge values, the operator's special points, then uniform randoms in [low, high)."""
    t = NP[dtype]
    base = np.concatenate([float_edges(dtype), np.array(special, dtype=np.float64).astype(t)])
    extra = max(count - len(base), 8)
    return np.concatenate([base, rng.uniform(low, high, extra).astype(t)])


def integer_inputs(dtype, count=24):
    t = NP[dtype]
    info = np.iinfo(t)
    edges = [info.min, info.max, 0, 1, info.min + 1, info.max - 1]
    if info.min < 0:
        edges += [-1, -2]
    random = rng.integers(info.min, info.max, size=count - len(edges), endpoint=True, dtype=t)
    return np.concatenate([np.array(edges, dtype=t), random])


def wrap(x, dtype):
    """Python integer x modulo 2^bits of dtype, as the type's value."""
    info = np.iinfo(NP[dtype])
    bits = info.bits
    x %= 1 << bits
    if info.min < 0 and x >= 1 << (bits - 1):
        x -= 1 << bits
    return x


def saturate_truncate(v, dtype):
    """A float converted as CAST converts it to an integer type."""
    info = np.iinfo(NP[dtype])
    if math.isnan(v):
        return 0
    if v >= info.max + 1:
        return int(info.max)
    if v <= info.min:
        return int(info.min)
    return int(math.trunc(v))


def round_int_to_float(x, dtype):
    """Integer x rounded once (to nearest even) to FLOAT16/FLOAT32/FLOAT64, as a Python float."""
    digits, max_exp = {"FLOAT16": (11, 16), "FLOAT32": (24, 128), "FLOAT64": (53, 1024)}[dtype]
    if x == 0:
        return 0.0
    sign = -1 if x < 0 else 1
    m = abs(x)
    shift = m.bit_length() - digits
    if shift > 0:
        kept, rest = m >> shift, m & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if rest > half or (rest == half and kept & 1):
            kept += 1
        m = kept << shift
    if m >= 1 << max_exp:
        return sign * math.inf
    return float(sign * m)


cases_by_file = {}


def add(file, case):
    cases_by_file.setdefault(file, []).append(case)


def unary_case(file, name, op, dtype, inputs, expected, ulps=0, out_dtype=None, extra=None, shape=None,
               in_strides=None, out_strides=None, input_values=None):
    shape = shape or (len(inputs),)
    desc = {"type": "DML_OPERATOR_" + op, "InputTensor": tensor(dtype, shape, in_strides),
            "OutputTensor": tensor(out_dtype or dtype, shape, out_strides)}
    desc.update(extra or {})
    add(file, {"name": name, "operator": desc,
               "inputs": {"InputTensor": values(inputs if input_values is None else input_values)},
               "outputs": {"OutputTensor": expect(expected, ulps)}})


# ---- Float math -----------------------------------------------------------------------------------

PI = math.pi
# name: (float64 function, special points, random range, FLOAT32 ulps, FLOAT16 ulps)
MATH = {
    "ABS": (np.abs, [-3.5, 2.25], -100, 100, 0, 0),
    "ACOS": (np.arccos, [1.0000001, -1.0000001, 0.5, -0.5, 0.99999994], -1, 1, 4, 1),
    "ASIN": (np.arcsin, [1.0000001, -1.0000001, 0.5, -0.5, 1e-4], -1, 1, 4, 1),
    "ATAN": (np.arctan, [1e10, -1e10, 1e-5], -20, 20, 4, 1),
    "CEIL": (np.ceil, [0.5, -0.5, 1.5, -1.5, 2 ** 23 - 0.5, -(2 ** 23 - 0.5), 1e-30, -1e-30], -1000, 1000, 0, 0),
    "COS": (np.cos, [PI / 2, PI, 1e5, -1e5, 3 * PI / 2], -10, 10, 4, 1),
    "EXP": (np.exp, [88.72, 88.73, -87.3, -103.9, -104.0, 11.09, 11.1, -16.6, -17.4, 1e-7], -20, 20, 4, 1),
    "FLOOR": (np.floor, [0.5, -0.5, 1.5, -1.5, 2 ** 23 - 0.5, -(2 ** 23 - 0.5), 1e-30, -1e-30], -1000, 1000, 0, 0),
    "LOG": (np.log, [1.0000001, 0.99999994, 2.0, 1e-38, 1e-44, 65504, 6e-8], 0, 100, 4, 1),
    "RECIP": (lambda x: 1.0 / x, [3.0, -7.0, 1e38, 3e-39, 1e-4, 6e4], -10, 10, 1, 1),
    "SIN": (np.sin, [PI, 2 * PI, 1e5, -1e5, 1e-6], -10, 10, 4, 1),
    "SQRT": (np.sqrt, [2.0, -4.0, 1e-40, 3.0, 65504], 0, 1000, 1, 1),
    "TAN": (np.tan, [PI / 2, -PI / 2, PI / 4, 1.5707, 1e4], -3, 3, 4, 1),
    "ERF": (lambda x: np.vectorize(math.erf)(x), [3.9, -3.9, 0.5, 1e-6, 1e-20, 10.0], -4, 4, 4, 1),
    "SINH": (np.sinh, [89.4, 89.5, -89.5, 11.8, 1e-6], -12, 12, 4, 1),
    "COSH": (np.cosh, [89.4, 89.5, -89.5, 11.8, 1e-6], -12, 12, 4, 1),
    "TANH": (np.tanh, [9.0, -9.0, 1e-6, 0.5, 20.0], -6, 6, 4, 1),
    "ASINH": (np.arcsinh, [1e20, -1e20, 1e-6, 65504], -50, 50, 4, 1),
    "ACOSH": (np.arccosh, [1.0000001, 0.99999994, 1e20, 65504], 1, 60, 4, 1),
    "ATANH": (np.arctanh, [1.0000001, -1.0000001, 0.99999994, -0.99999994, 1e-6], -1, 1, 4, 1),
}


def f64(x):
    return np.asarray(x, dtype=np.float64)


def c_pow1(x, e):
    """C's pow, except that a negative base (-inf too) with a non-integral exponent gives NaN, as
    DirectML documents. (numpy's power takes shortcuts: sqrt for 0.5, which differs at -0 and -inf.)"""
    x = float(x)
    odd = e == math.floor(e) and abs(e) < 2 ** 53 and int(e) % 2 == 1
    if x < 0 and e != math.floor(e):
        return math.nan
    if x == 0 and e < 0:
        return math.copysign(math.inf, x) if odd else math.inf
    try:
        return math.pow(x, e)
    except OverflowError:
        return -math.inf if (x < 0 and odd) else math.inf


def c_pow(x, e):
    return np.array([c_pow1(v, e) for v in np.asarray(x).ravel()]).reshape(np.shape(x))


def rounded(y, dtype):
    with np.errstate(all="ignore"):
        return np.asarray(y, dtype=np.float64).astype(NP[dtype])


with np.errstate(all="ignore"):
    for op, (fn, special, low, high, ulps32, ulps16) in MATH.items():
        for dtype in FLOATS:
            x = float_inputs(dtype, special, low, high)
            add_ulps = ulps32 if dtype == "FLOAT32" else ulps16
            unary_case("unary_math", f"{op}_{dtype}", "ELEMENT_WISE_" + op, dtype, x, rounded(fn(f64(x)), dtype),
                       add_ulps)
    for dtype in FLOATS:
        x = float_inputs(dtype, [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, 2 ** 22 + 0.5, -(2 ** 22 + 0.5), 0.49999997,
                                  2 ** 23 + 1], -50, 50)
        if dtype == "FLOAT16":
            x = float_inputs(dtype, [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, 1024.5, -1024.5, 0.4998, 2049], -50, 50)
        modes = {"HALVES_TO_NEAREST_EVEN": np.rint(f64(x)), "TOWARD_ZERO": np.trunc(f64(x)),
                 "TOWARD_INFINITY": np.where(np.isfinite(x), np.copysign(np.floor(np.abs(f64(x)) + 0.5), f64(x)), f64(x))}
        for mode, y in modes.items():
            unary_case("unary_math", f"ROUND_{dtype}_{mode}", "ELEMENT_WISE_ROUND", dtype, x, rounded(y, dtype),
                       extra={"RoundingMode": mode})
        # CONSTANT_POW: negative bases need an integral exponent, else NaN.
        base = float_inputs(dtype, [-2.0, -3.0, 0.5, -0.5, 2.0, 10.0], -8, 8)
        for exponent in (2.0, 3.0, -1.0, 0.5, 1.5, 0.0, -2.5):
            y = c_pow(base, exponent)
            unary_case("unary_math", f"CONSTANT_POW_{dtype}_{exponent:g}", "ELEMENT_WISE_CONSTANT_POW", dtype, base,
                       rounded(y, dtype), 4 if dtype == "FLOAT32" else 1, extra={"Exponent": exponent})

# ---- Sign-like and bounded operators over every type --------------------------------------------

def typed_inputs(dtype):
    if is_float(dtype):
        return float_inputs(dtype, [2.5, -2.5, 0.75, -0.75, 100.25, -100.25], -300, 300, 32)
    return integer_inputs(dtype)


def int_map(dtype, x, fn):
    return np.array([wrap(fn(int(v)), dtype) for v in x], dtype=NP[dtype])


for dtype in SIGNED:
    x = typed_inputs(dtype)
    if is_float(dtype):
        unary_case("unary_bounded", f"NEGATE_{dtype}", "ELEMENT_WISE_NEGATE", dtype, x, -x)
    else:
        unary_case("unary_bounded", f"ABS_{dtype}", "ELEMENT_WISE_ABS", dtype, x, int_map(dtype, x, abs))
        unary_case("unary_bounded", f"NEGATE_{dtype}", "ELEMENT_WISE_NEGATE", dtype, x, int_map(dtype, x, lambda v: -v))

for dtype in NUMERIC:
    x = typed_inputs(dtype)
    if is_float(dtype):
        y = np.where(x > 0, 1.0, np.where(x < 0, -1.0, 0.0)).astype(NP[dtype])  # NaN -> 0
    else:
        y = np.array([(v > 0) - (v < 0) for v in map(int, x)], dtype=NP[dtype])
    unary_case("unary_bounded", f"SIGN_{dtype}", "ELEMENT_WISE_SIGN", dtype, x, y)


def bound(value, dtype):
    """A FLOAT Min/Max in the tensor's type."""
    if dtype == "FLOAT16":
        return float(np.float16(value))
    if is_float(dtype):
        return float(np.float32(value))
    return saturate_truncate(value, dtype)


def clip(x, lo, hi):
    # max(Min, min(x, Max)); NaN stays NaN.
    out = []
    for v in x:
        t = hi if v > hi else v
        out.append(lo if t < lo else t)
    return out


for dtype in NUMERIC:
    x = typed_inputs(dtype)
    pairs = [(-3.7, 100.9), (-1e30, 1e30)] if not is_float(dtype) else [(-150.5, 120.25)]
    for i, (lo, hi) in enumerate(pairs):
        y = np.array(clip(x.tolist() if not is_float(dtype) else x, bound(lo, dtype), bound(hi, dtype)), dtype=NP[dtype])
        unary_case("unary_bounded", f"CLIP_{dtype}_{i}", "ELEMENT_WISE_CLIP", dtype, x, y, extra={"Min": lo, "Max": hi})
    # CLIP1: bounds typed as the tensor; 64-bit ones beyond 2^53 check the typed path.
    if is_float(dtype):
        lo, hi = (-0.333251953125, 96.5) if dtype == "FLOAT16" else (-0.3333333432674408, 96.25)
    else:
        info = np.iinfo(NP[dtype])
        lo = int(info.min) // 3 + (0 if info.min == 0 else 1)
        hi = int(info.max) // 2 + 3
        if info.min == 0:
            lo = int(info.max) // 5
    y = np.array(clip(x.tolist() if not is_float(dtype) else x, lo, hi), dtype=NP[dtype])
    unary_case("unary_bounded", f"CLIP1_{dtype}", "ELEMENT_WISE_CLIP1", dtype, x, y,
               extra={"MinMaxDataType": dtype, "Min": lo, "Max": hi})
    # CLIP_GRAD1: the gradient where Min < x < Max, else 0.
    g = typed_inputs(dtype)
    rng.shuffle(g)
    y = np.array([0 if (v <= lo or v >= hi) else gv for v, gv in zip(x.tolist(), g.tolist())], dtype=NP[dtype])
    add("unary_bounded", {"name": f"CLIP_GRAD1_{dtype}", "operator": {
        "type": "DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD1", "InputTensor": tensor(dtype, (len(x),)),
        "InputGradientTensor": tensor(dtype, (len(x),)), "OutputGradientTensor": tensor(dtype, (len(x),)),
        "MinMaxDataType": dtype, "Min": lo, "Max": hi},
        "inputs": {"InputTensor": values(x), "InputGradientTensor": values(g)},
        "outputs": {"OutputGradientTensor": expect(y)}})

def clip_grad_case(dtype, x, lo, hi):
    """CLIP_GRAD with FLOAT bounds: the gradient (a shuffled second input) where Min < x < Max, else 0."""
    g = typed_inputs(dtype)
    rng.shuffle(g)
    blo, bhi = bound(lo, dtype), bound(hi, dtype)
    y = np.array([0 if (v <= blo or v >= bhi) else gv for v, gv in zip(x.tolist(), g.tolist())], dtype=NP[dtype])
    add("unary_bounded", {"name": f"CLIP_GRAD_{dtype}", "operator": {
        "type": "DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD", "InputTensor": tensor(dtype, (len(x),)),
        "InputGradientTensor": tensor(dtype, (len(x),)), "OutputGradientTensor": tensor(dtype, (len(x),)),
        "Min": lo, "Max": hi},
        "inputs": {"InputTensor": values(x), "InputGradientTensor": values(g)},
        "outputs": {"OutputGradientTensor": expect(y)}})


for dtype in NARROW:
    x = typed_inputs(dtype)
    m = bound(-7.9, dtype) if not dtype.startswith("UINT") else bound(37.9, dtype)
    y = np.array([m if v < m else v for v in (x.tolist() if not is_float(dtype) else x)], dtype=NP[dtype])
    unary_case("unary_bounded", f"THRESHOLD_{dtype}", "ELEMENT_WISE_THRESHOLD", dtype, x, y,
               extra={"Min": -7.9 if not dtype.startswith("UINT") else 37.9})
    clip_grad_case(dtype, x, -20.6, 150.2)

# ---- Tests, bits and logic ---------------------------------------------------------------------------

for dtype in FLOATS:
    x = float_inputs(dtype, [65504, -65504], -10, 10, 24)
    for out in ("UINT8", "UINT32"):
        unary_case("unary_bits", f"IS_NAN_{dtype}_{out}", "ELEMENT_WISE_IS_NAN", dtype, x,
                   np.isnan(x).astype(NP[out]), out_dtype=out)
    for mode, test in {"EITHER": np.isinf, "POSITIVE": np.isposinf, "NEGATIVE": np.isneginf}.items():
        unary_case("unary_bits", f"IS_INFINITY_{dtype}_{mode}", "ELEMENT_WISE_IS_INFINITY", dtype, x,
                   test(x).astype(np.uint8), out_dtype="UINT8", extra={"InfinityMode": mode})


def bit_inputs(dtype):
    """Values whose bit patterns are all distinct; for the float types normal numbers only, so that
    the complement is an ordinary number too."""
    if is_float(dtype):
        t = NP[dtype]
        mags = rng.uniform(-12, 12, 20) if dtype == "FLOAT16" else rng.uniform(-30, 30, 20)
        x = (np.sign(rng.uniform(-1, 1, 20)) * np.exp2(mags) * rng.uniform(1, 2, 20)).astype(t)
        return np.concatenate([x, np.array([1.0, -1.0, np.finfo(t).tiny, -np.finfo(t).max], dtype=t)])
    return integer_inputs(dtype)


UINT_OF = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
for dtype in ALL:
    x = bit_inputs(dtype)
    bits = x.view(UINT_OF[x.dtype.itemsize])
    unary_case("unary_bits", f"BIT_NOT_{dtype}", "ELEMENT_WISE_BIT_NOT", dtype, x, np.invert(bits).view(x.dtype))
    counts = [bin(int(b)).count("1") for b in bits]
    for out in ("UINT8", "UINT32"):
        unary_case("unary_bits", f"BIT_COUNT_{dtype}_{out}", "ELEMENT_WISE_BIT_COUNT", dtype, x,
                   np.array(counts, dtype=NP[out]), out_dtype=out)

for dtype in ("UINT8", "UINT32"):
    x = np.concatenate([np.array([0, 1, 2, 0, np.iinfo(NP[dtype]).max], dtype=NP[dtype]),
                        rng.integers(0, 3, 11).astype(NP[dtype])])
    unary_case("unary_bits", f"LOGICAL_NOT_{dtype}", "ELEMENT_WISE_LOGICAL_NOT", dtype, x, (x == 0).astype(NP[dtype]))

# ---- CAST ------------------------------------------------------------------------------------------

def cast_inputs(dtype):
    if dtype == "FLOAT16":
        special = [2.5, -2.5, 0.7, -0.7, 127.9, 128, -128.5, 255.5, 256, -1, 65504, -65504, 6e-8, 2049, 300.5]
    elif is_float(dtype):
        special = [2.5, -2.5, 0.7, -0.7, 127.9, 128, -128.5, 255.5, 256, -1, 32767.5, 65535.9, 65536, 65519,
                   65520, 1e5, 2.0 ** 31, -2.0 ** 31 - 1000, 2.0 ** 32, 2.0 ** 63, -2.0 ** 63, 2.0 ** 64, -1e30,
                   1e-8, 3e-8, 1e-40, 16777217, 0.1]
        if dtype == "FLOAT64":
            special += [1e300, -1e300, 3.4028235677973366e38, 1e-320, 2.0 ** 53 + 1, 0.1 + 2 ** -30]
    else:
        info = np.iinfo(NP[dtype])
        special = [v for v in [2 ** 24 + 1, 2 ** 24 + 3, 65519, 65520, 2 ** 53 + 1, 2 ** 63 - 1, 2 ** 62 + 2 ** 38 + 1,
                               -(2 ** 24) - 1, -(2 ** 62) - 1, 255, 256, -129, 70000, 2 ** 31, 2 ** 32 + 5]
                   if info.min <= v <= info.max]
    if is_float(dtype):
        t = NP[dtype]
        with np.errstate(all="ignore"):
            base = np.concatenate([float_edges(dtype), np.array(special, dtype=np.float64).astype(t)])
        return base
    return np.concatenate([integer_inputs(dtype, 16), np.array(special, dtype=NP[dtype])])


def cast_value(v, src, dst):
    """One element converted exactly as CAST defines it."""
    if is_float(src):
        v = float(v)
        if is_float(dst):
            with np.errstate(all="ignore"):
                return NP[dst](np.float64(v))  # numpy rounds float64 -> narrower once, to nearest even
        return saturate_truncate(v, dst)
    v = int(v)
    if is_float(dst):
        return NP[dst](round_int_to_float(v, dst))
    return wrap(v, dst)


for src in ALL:
    x = cast_inputs(src)
    for dst in ALL:
        y = [cast_value(v, src, dst) for v in x]
        unary_case("unary_cast", f"CAST_{src}_to_{dst}", "CAST", src, x,
                   np.array(y, dtype=NP[dst]) if is_float(dst) else np.array(y, dtype=object), out_dtype=dst)

# ---- FILL_VALUE_CONSTANT / FILL_VALUE_SEQUENCE -------------------------------------------------------

FILL_VALUES = {"FLOAT64": (1 / 3, -0.125), "FLOAT32": (3.25, 0.1), "FLOAT16": (-1.5, 0.0999755859375),
               "INT64": (-(2 ** 62) - 5, 2 ** 40 + 7), "INT32": (-123456789, 99991), "INT16": (-32000, 1234),
               "INT8": (-120, -7), "UINT64": (2 ** 64 - 3, 2 ** 63 + 11), "UINT32": (4000000000, 123456791),
               "UINT16": (65530, 3), "UINT8": (250, 3)}
for dtype in ALL:
    value, delta = FILL_VALUES[dtype]
    shape = (2, 3, 4)
    count = 24
    if is_float(dtype):
        v = float(NP[dtype](value))
        const = np.full(count, v, dtype=NP[dtype])
    else:
        const = np.array([value] * count, dtype=object)
    add("unary_fill", {"name": f"FILL_VALUE_CONSTANT_{dtype}", "operator": {
        "type": "DML_OPERATOR_FILL_VALUE_CONSTANT", "OutputTensor": tensor(dtype, shape),
        "ValueDataType": dtype, "Value": value},
        "outputs": {"OutputTensor": expect(const)}})
    if dtype == "FLOAT64":
        continue  # FILL_VALUE_SEQUENCE lists every type but FLOAT64
    if is_float(dtype):
        s, d = float(NP[dtype](value)), float(NP[dtype](delta))
        seq = rounded([s + i * d for i in range(count)], dtype)
        ulps = 1
    else:
        seq = np.array([wrap(value + i * delta, dtype) for i in range(count)], dtype=object)
        ulps = 0
    add("unary_fill", {"name": f"FILL_VALUE_SEQUENCE_{dtype}", "operator": {
        "type": "DML_OPERATOR_FILL_VALUE_SEQUENCE", "OutputTensor": tensor(dtype, shape),
        "ValueDataType": dtype, "ValueStart": value, "ValueDelta": delta},
        "outputs": {"OutputTensor": expect(seq, ulps)}})

# A sequence written through transposed strides: logical order, not memory order.
seq = np.array([7 + 5 * i for i in range(12)], dtype=np.int32)
add("unary_fill", {"name": "FILL_VALUE_SEQUENCE_INT32_transposed", "operator": {
    "type": "DML_OPERATOR_FILL_VALUE_SEQUENCE", "OutputTensor": tensor("INT32", (3, 4), (1, 3)),
    "ValueDataType": "INT32", "ValueStart": 7, "ValueDelta": 5},
    "outputs": {"OutputTensor": expect(seq)}})
add("unary_fill", {"name": "FILL_VALUE_CONSTANT_FLOAT16_strided", "operator": {
    "type": "DML_OPERATOR_FILL_VALUE_CONSTANT", "OutputTensor": tensor("FLOAT16", (2, 3), (8, 2)),
    "ValueDataType": "FLOAT16", "Value": "-inf"},
    "outputs": {"OutputTensor": expect(np.full(6, -np.inf, dtype=np.float16))}})

# ---- Layouts and ScaleBias ---------------------------------------------------------------------------

def quantized(dtype, shape, scale=1 / 64, low=-6, high=6):
    """Randoms on a coarse grid, so that x * Scale + Bias below is exact in the tensor's type."""
    return (np.round(rng.uniform(low, high, shape) / scale) * scale).astype(NP[dtype])


SCALE_BIAS = {"Scale": 0.5, "Bias": -0.25}
with np.errstate(all="ignore"):
    for op, fn, ulps32, ulps16 in [("ABS", np.abs, 0, 0), ("CEIL", np.ceil, 0, 0), ("EXP", np.exp, 4, 1),
                                   ("TANH", np.tanh, 4, 1), ("ERF", np.vectorize(math.erf), 4, 1),
                                   ("SQRT", np.sqrt, 1, 1), ("ATAN", np.arctan, 4, 1)]:
        for dtype in FLOATS:
            x = quantized(dtype, (3, 5))
            g = f64(x) * SCALE_BIAS["Scale"] + SCALE_BIAS["Bias"]
            unary_case("unary_layout", f"{op}_{dtype}_scale_bias", "ELEMENT_WISE_" + op, dtype, x.ravel(),
                       rounded(fn(g), dtype).ravel(), ulps32 if dtype == "FLOAT32" else ulps16, shape=(3, 5),
                       extra={"ScaleBias": SCALE_BIAS})
    for dtype in FLOATS:
        x = quantized(dtype, (16,))
        g = f64(x) * 2.0 + 1.0
        unary_case("unary_layout", f"CLIP_{dtype}_scale_bias", "ELEMENT_WISE_CLIP", dtype, x,
                   rounded(clip(g, bound(-3.0, dtype), bound(4.5, dtype)), dtype),
                   extra={"ScaleBias": {"Scale": 2.0, "Bias": 1.0}, "Min": -3.0, "Max": 4.5})
        unary_case("unary_layout", f"THRESHOLD_{dtype}_scale_bias", "ELEMENT_WISE_THRESHOLD", dtype, x,
                   rounded(np.maximum(g, 0.5), dtype), extra={"ScaleBias": {"Scale": 2.0, "Bias": 1.0}, "Min": 0.5})
        unary_case("unary_layout", f"CONSTANT_POW_{dtype}_scale_bias", "ELEMENT_WISE_CONSTANT_POW", dtype, x,
                   rounded(c_pow(g, 2.0), dtype), 4 if dtype == "FLOAT32" else 1,
                   extra={"ScaleBias": {"Scale": 2.0, "Bias": 1.0}, "Exponent": 2.0})
        lo, hi = (-2.5, 3.0)
        unary_case("unary_layout", f"CLIP1_{dtype}_scale_bias", "ELEMENT_WISE_CLIP1", dtype, x,
                   rounded(clip(g, lo, hi), dtype),
                   extra={"ScaleBias": {"Scale": 2.0, "Bias": 1.0}, "MinMaxDataType": dtype, "Min": lo, "Max": hi})

    # Transposed input: memory holds the (4, 3) matrix; the operator reads it as (3, 4).
    for dtype in FLOATS:
        m = quantized(dtype, (4, 3), 1 / 16, -4, 4)
        logical = m.T
        unary_case("unary_layout", f"EXP_{dtype}_transposed_input", "ELEMENT_WISE_EXP", dtype, None,
                   rounded(np.exp(f64(logical)), dtype).ravel(), 4 if dtype == "FLOAT32" else 1, shape=(3, 4),
                   in_strides=(1, 3), input_values=m.ravel())
    # Broadcast through zero strides: one row of 5 for all 4 rows, and one scalar.
    row = quantized("FLOAT32", (5,), 1 / 8, 0, 9)
    unary_case("unary_layout", "SQRT_FLOAT32_broadcast_row", "ELEMENT_WISE_SQRT", "FLOAT32", None,
               rounded(np.sqrt(np.tile(f64(row), 4)), "FLOAT32"), 1, shape=(4, 5), in_strides=(0, 1),
               input_values=row)
    unary_case("unary_layout", "NEGATE_INT32_broadcast_scalar", "ELEMENT_WISE_NEGATE", "INT32", None,
               np.full(24, 17, dtype=np.int32), shape=(2, 3, 4), in_strides=(0, 0, 0),
               input_values=np.array([-17], dtype=np.int32))
    # Strided output with gaps (every other element of each row, rows 16 apart).
    x = float_inputs("FLOAT16", [], -10, 10, 18)[:18]
    unary_case("unary_layout", "ABS_FLOAT16_strided_output", "ELEMENT_WISE_ABS", "FLOAT16", x, np.abs(x),
               shape=(3, 6), out_strides=(16, 2))
    # Rank 5, an input whose two middle dimensions are swapped, into a padded output.
    src = rng.integers(-30000, 30000, (2, 3, 1, 4, 2)).astype(np.int16)
    logical = src.transpose(0, 3, 2, 1, 4)  # logical (2, 4, 1, 3, 2)
    unary_case("unary_layout", "CAST_INT16_to_FLOAT32_rank5_permuted", "CAST", "INT16", None,
               logical.astype(np.float32).ravel(), out_dtype="FLOAT32", shape=(2, 4, 1, 3, 2),
               in_strides=(24, 2, 8, 8, 1), out_strides=(30, 6, 6, 2, 1), input_values=src.ravel())
    # Long rows (more than one vector block and a tail) through the packed FLOAT32 loop.
    x = quantized("FLOAT32", (261,), 1 / 32, -8, 8)
    unary_case("unary_layout", "EXP_FLOAT32_long_row", "ELEMENT_WISE_EXP", "FLOAT32", x, rounded(np.exp(f64(x)), "FLOAT32"), 4)
    unary_case("unary_layout", "FLOOR_FLOAT16_long_row", "ELEMENT_WISE_FLOOR", "FLOAT16", x.astype(np.float16),
               np.floor(x.astype(np.float16)))
    # FLOAT16 rows of the transcendental functions through the chunks that convert inside the loop
    # (four chunks of 64 and a tail).
    h = x.astype(np.float16)
    unary_case("unary_layout", "EXP_FLOAT16_long_row", "ELEMENT_WISE_EXP", "FLOAT16", h, rounded(np.exp(f64(h)), "FLOAT16"), 1)
    unary_case("unary_layout", "TANH_FLOAT16_long_row", "ELEMENT_WISE_TANH", "FLOAT16", h,
               rounded(np.tanh(f64(h)), "FLOAT16"), 1)


# CLIP_GRAD on the 64-bit integers (listed from feature level 5.0); after every other case so that
# adding them left the random inputs of the cases above unchanged. Bounds beyond 2^53 would not
# survive the FLOAT Min/Max, so these use small ones, truncated toward zero as documented above.
for dtype in ("INT64", "UINT64"):
    clip_grad_case(dtype, typed_inputs(dtype), *((-20.6, 150.2) if dtype == "INT64" else (3.9, 1e30)))


for file, cases in cases_by_file.items():
    path = HERE / "cases" / f"{file}.json"
    lines = ",\n".join(json.dumps(case, separators=(",", ":")) for case in cases)
    path.write_text('{"generator":"%s","cases":[\n%s\n]}\n' % (pathlib.Path(__file__).name, lines))
    print(f"wrote {len(cases)} cases to {path} ({path.stat().st_size // 1024} KB)")

#!/usr/bin/env python3
"""Conformance cases of every DML_OPERATOR_ACTIVATION_* operator, computed with numpy.

Run once to (re)write cases/activation_*.json. Expected values are the documented formulas
evaluated in float64 (long double for the softmax family) on the exact input values, then rounded
once to the output type; FreeDML is never consulted.

Semantics the references encode (FreeDML's choices where DirectML's pages are silent):
- Comparisons are IEEE (false for NaN); min/max/clamp return the non-NaN operand, as D3D's
  min/max do: RELU, HARD_SIGMOID, CELU, THRESHOLDED_RELU and SHRINK map NaN to 0.
- Softmax and log-softmax follow exp(x - max) / sum and (x - max) - log(sum) literally: a NaN, a
  +inf, or a slice of only -inf gives NaN throughout the slice.
- Hardmax marks the first maximum in row-major order over the reduced axes; NaN counts as the
  maximum (numpy's argmax).
- Integer SHRINK computes in float64, rounds toward zero and saturates to the type; integer
  PARAMETERIZED_RELU wraps modulo 2^bits.
- SOFTPLUS and PARAMETRIC_SOFTPLUS scale x in float32 before the softplus: where that product
  overflows, the result is infinite (as the float32 formula gives it).
- FLOAT32 results that fall below FLT_MIN in magnitude may be flushed to zero (D3D's float32
  denormal rule), so those cases carry an absolute tolerance of FLT_MIN.
"""
import json
import math
import pathlib

import numpy as np

from case_format import tensor, values

rng = np.random.default_rng(20261123)
NP = {"FLOAT32": np.float32, "FLOAT16": np.float16, "INT8": np.int8, "INT16": np.int16, "INT32": np.int32,
      "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32}
FLT_MIN = float(np.finfo(np.float32).tiny)
OUT = pathlib.Path(__file__).parent / "cases"


def edge_floats(dtype):
    big = 65504.0 if dtype == "FLOAT16" else 3.0e38
    tiny = 6e-8 if dtype == "FLOAT16" else 1e-40
    return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, big, -big, tiny, -tiny, 1.0, -1.0, 0.5, -0.5,
                     20.0, -20.0, 100.0, -100.0, 1000.0, -1000.0], dtype=np.float64)


def float_input(dtype, count):
    """Random values with every edge value, exactly representable in `dtype`."""
    edges = edge_floats(dtype)
    wide = min(8, count - len(edges))
    random = np.concatenate([rng.standard_normal(count - len(edges) - wide) * 3, rng.uniform(-60, 60, wide)])
    with np.errstate(over="ignore"):
        return np.concatenate([edges, random]).astype(NP[dtype])


def rounded(reference, dtype):
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(reference, dtype=np.float64).astype(NP[dtype])


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def softplus(v):
    return np.logaddexp(0.0, v)


def scaled(scale, x):
    """scale * x as the float32 (or wider) arithmetic of the operator gives it: the softplus
    operators scale their input first, so a product beyond FLT_MAX is already infinite."""
    with np.errstate(over="ignore"):
        return (np.float32(scale) * x.astype(np.float32)).astype(np.float64)


erfc = np.vectorize(math.erfc, otypes=[np.float64])

# name -> (fields, reference(x, fields), FLOAT32 ulps, FLOAT32 absolute tolerance, FLOAT16 ulps).
# FLT_MIN: results below it may flush to zero. GELU: 1e-7, as float32 erfc of a rounded argument
# keeps only a few digits far in the negative tail (|result| < 1e-6 there).
UNARY = {
    "ELU": ({"Alpha": 0.75}, lambda x, f: np.where(x > 0, x, f["Alpha"] * np.expm1(x)), 2, 0, 1),
    "HARD_SIGMOID": ({"Alpha": 0.25, "Beta": 0.5},
                     lambda x, f: np.fmin(1.0, np.fmax(0.0, f["Alpha"] * x + f["Beta"])), 1, 0, 1),
    "IDENTITY": ({}, lambda x, f: x, 0, 0, 0),
    "LEAKY_RELU": ({"Alpha": 0.01}, lambda x, f: np.where(x >= 0, x, f["Alpha"] * x), 1, 0, 1),
    "LINEAR": ({"Alpha": 2.0, "Beta": -0.75}, lambda x, f: f["Alpha"] * x + f["Beta"], 1, 0, 1),
    "PARAMETRIC_SOFTPLUS": ({"Alpha": 1.5, "Beta": 2.0}, lambda x, f: f["Alpha"] * softplus(scaled(f["Beta"], x)), 4, FLT_MIN, 1),
    "RELU": ({}, lambda x, f: np.where(x > 0, x, 0.0), 0, 0, 0),
    "SCALED_ELU": ({"Alpha": 1.6732632, "Gamma": 1.0507010},
                   lambda x, f: f["Gamma"] * np.where(x > 0, x, f["Alpha"] * np.expm1(x)), 3, 0, 1),
    "SCALED_TANH": ({"Alpha": 1.7159, "Beta": 0.5}, lambda x, f: f["Alpha"] * np.tanh(f["Beta"] * x), 3, 0, 1),
    "SIGMOID": ({}, lambda x, f: sigmoid(x), 3, FLT_MIN, 1),
    "SOFTPLUS": ({"Steepness": 2.0}, lambda x, f: softplus(scaled(f["Steepness"], x)) / f["Steepness"], 4, FLT_MIN, 1),
    "SOFTSIGN": ({}, lambda x, f: x / (1.0 + np.abs(x)), 2, 0, 1),
    "TANH": ({}, lambda x, f: np.tanh(x), 2, 0, 1),
    "THRESHOLDED_RELU": ({"Alpha": 0.5}, lambda x, f: np.where(x > f["Alpha"], x, 0.0), 0, 0, 0),
    "SHRINK": ({"Bias": 0.25, "Threshold": 0.5},
               lambda x, f: np.where(x > f["Threshold"], x - f["Bias"],
                                     np.where(x < -f["Threshold"], x + f["Bias"], 0.0)), 0, 0, 1),
    "CELU": ({"Alpha": 2.0}, lambda x, f: np.fmax(0.0, x) + np.fmin(0.0, f["Alpha"] * np.expm1(x / f["Alpha"])),
             2, 0, 1),
    "GELU": ({}, lambda x, f: 0.5 * x * erfc(-x / math.sqrt(2.0)), 4, 1e-7, 1),
    "SWISH": ({"SigmoidInputScale": 2.0}, lambda x, f: x * sigmoid(f["SigmoidInputScale"] * x), 4, FLT_MIN, 1),
    "HARD_SWISH": ({"Alpha": 0.125, "Beta": 0.5},
                   lambda x, f: x * np.fmin(1.0, np.fmax(0.0, f["Alpha"] * x + f["Beta"])), 1, 0, 1),
}


def float_params(fields):
    # Parameters as the desc's FLOATs hold them.
    return {k: float(np.float32(v)) for k, v in fields.items()}


def unary_case(name, dtype, fields, x, strides_in=None, strides_out=None, sizes=None, suffix=""):
    _, reference, ulps32, absolute32, ulps16 = UNARY[name]
    f = float_params(fields)
    sizes = sizes or list(x.shape)
    with np.errstate(all="ignore"):
        want = rounded(reference(x.astype(np.float64), f), dtype)
    out = {"values": values(want), "ulps": ulps32 if dtype == "FLOAT32" else ulps16}
    if dtype == "FLOAT32" and absolute32:
        out["absolute"] = absolute32
    memory = x.ravel() if strides_in is None else strided_memory(x, strides_in)
    return {"name": f"{name}_{dtype}{suffix}", "operator": {
        "type": f"DML_OPERATOR_ACTIVATION_{name}", "InputTensor": tensor(dtype, sizes, strides_in),
        "OutputTensor": tensor(dtype, sizes, strides_out), **fields},
        "inputs": {"InputTensor": values(memory)}, "outputs": {"OutputTensor": out}}


def strided_memory(logical, strides):
    """The buffer (memory order) that holds `logical` at element `strides`; gaps are zero."""
    shape = logical.shape
    length = 1 + sum((s - 1) * st for s, st in zip(shape, strides))
    memory = np.zeros(length, dtype=logical.dtype)
    index = np.indices(shape).reshape(len(shape), -1)
    offsets = sum(index[d] * strides[d] for d in range(len(shape)))
    memory[offsets] = logical.ravel()
    return memory


def write(name, cases):
    path = OUT / f"activation_{name}.json"
    path.write_text(json.dumps({"generator": pathlib.Path(__file__).name, "cases": cases}, separators=(",", ":"))
                    + "\n")
    print(f"wrote {len(cases)} cases to {path}")


# ---- element-wise float activations ----------------------------------------------------------------

cases = []
for name in UNARY:
    for dtype in ("FLOAT32", "FLOAT16"):
        x = float_input(dtype, 60).reshape(3, 20)
        cases.append(unary_case(name, dtype, UNARY[name][0], x))
    # A transposed input and an output with padded rows: the strided (non-packed) path.
    x = float_input("FLOAT32", 24).reshape(4, 6)
    cases.append(unary_case(name, "FLOAT32", UNARY[name][0], x, strides_in=[1, 4], strides_out=[8, 1],
                            suffix="_strided"))
# Parameters other than the ones above: SOFTPLUS below 1 at 6.4, HARD_SWISH's usual 1/6.
x = float_input("FLOAT32", 40)
cases.append(unary_case("SOFTPLUS", "FLOAT32", {"Steepness": 0.5}, x, suffix="_steepness_half"))
case = unary_case("HARD_SWISH", "FLOAT32", {"Alpha": 1.0 / 6.0, "Beta": 0.5}, x, suffix="_sixth")
case["outputs"]["OutputTensor"]["absolute"] = 1e-6  # Alpha * x rounds before the + Beta that may cancel it
cases.append(case)
cases.append(unary_case("ELU", "FLOAT32", {"Alpha": 1.0}, x, suffix="_alpha1"))
cases.append(unary_case("SWISH", "FLOAT32", {"SigmoidInputScale": 1.0}, x, suffix="_scale1"))
# Packed FLOAT16 rows long enough for the chunks that convert inside the loop (four of 64 and a
# tail); evenly spaced values, so that the random inputs of the cases below stay as they were.
x = np.linspace(-12.0, 12.0, 261).astype(np.float16)
for name in ("SIGMOID", "TANH", "GELU"):
    cases.append(unary_case(name, "FLOAT16", UNARY[name][0], x, suffix="_long_row"))
write("unary", cases)

# ---- integer RELU and SHRINK, PARAMETERIZED_RELU, RELU_GRAD ----------------------------------------


def int_input(dtype, count):
    info = np.iinfo(NP[dtype])
    edges = np.array([0, 1, -1 if info.min < 0 else 2, info.min, info.max, info.min + 1, info.max - 1],
                     dtype=np.int64)
    return np.concatenate([edges, rng.integers(info.min, info.max, count - len(edges), endpoint=True)]).astype(NP[dtype])


cases = []
for dtype in ("INT8", "INT16", "INT32"):
    x = int_input(dtype, 30)
    cases.append({"name": f"RELU_{dtype}", "operator": {
        "type": "DML_OPERATOR_ACTIVATION_RELU", "InputTensor": tensor(dtype, [5, 6]), "OutputTensor": tensor(dtype, [5, 6])},
        "inputs": {"InputTensor": values(x)}, "outputs": {"OutputTensor": {"values": values(np.maximum(x, 0))}}})
for dtype in ("INT8", "INT16", "INT32", "UINT8", "UINT16", "UINT32"):
    info = np.iinfo(NP[dtype])
    x = int_input(dtype, 30)
    for k, (bias, threshold) in enumerate(((3.0, 10.0), (-2.5, 1.5))):
        v = x.astype(np.float64)
        r = np.trunc(np.where(v < -threshold, v + bias, np.where(v > threshold, v - bias, 0.0)))
        want = np.clip(r, info.min, info.max).astype(NP[dtype])
        cases.append({"name": f"SHRINK_{dtype}_{k}", "operator": {
            "type": "DML_OPERATOR_ACTIVATION_SHRINK", "InputTensor": tensor(dtype, [30]),
            "OutputTensor": tensor(dtype, [30]), "Bias": bias, "Threshold": threshold},
            "inputs": {"InputTensor": values(x)}, "outputs": {"OutputTensor": {"values": values(want)}}})

for dtype in ("FLOAT32", "FLOAT16", "INT8", "INT16", "INT32"):
    floating = dtype.startswith("FLOAT")
    x = (float_input(dtype, 24) if floating else int_input(dtype, 24)).reshape(4, 6)
    # Per-column slopes broadcast over the rows through a zero stride.
    slope = (rng.standard_normal(6) * 0.5).astype(NP[dtype]) if floating else rng.integers(-5, 6, 6).astype(NP[dtype])
    full = np.broadcast_to(slope, (4, 6))
    if floating:
        with np.errstate(all="ignore"):
            want = rounded(np.where(x >= 0, x.astype(np.float64), full.astype(np.float64) * x), dtype)
        out = {"values": values(want), "ulps": 1 if dtype == "FLOAT16" else 0}
        if dtype == "FLOAT32":
            out["absolute"] = FLT_MIN
    else:
        want = np.where(x >= 0, x, (full.astype(np.int64) * x.astype(np.int64)).astype(NP[dtype]))
        out = {"values": values(want)}
    cases.append({"name": f"PARAMETERIZED_RELU_{dtype}", "operator": {
        "type": "DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU", "InputTensor": tensor(dtype, [4, 6]),
        "SlopeTensor": tensor(dtype, [4, 6], [0, 1]), "OutputTensor": tensor(dtype, [4, 6])},
        "inputs": {"InputTensor": values(x), "SlopeTensor": values(slope)}, "outputs": {"OutputTensor": out}})

    dy = (float_input(dtype, 24) if floating else int_input(dtype, 24)).reshape(4, 6)
    dy = dy[:, ::-1].copy()  # not aligned with x's edge values
    with np.errstate(invalid="ignore"):
        want = np.where(x > 0, dy, np.zeros_like(dy))
    cases.append({"name": f"RELU_GRAD_{dtype}", "operator": {
        "type": "DML_OPERATOR_ACTIVATION_RELU_GRAD", "InputTensor": tensor(dtype, [4, 6]),
        "InputGradientTensor": tensor(dtype, [4, 6], [1, 4]), "OutputGradientTensor": tensor(dtype, [4, 6])},
        "inputs": {"InputTensor": values(x), "InputGradientTensor": values(strided_memory(dy, [1, 4]))},
        "outputs": {"OutputGradientTensor": {"values": values(want)}}})
write("integer_binary", cases)

# ---- SOFTMAX, LOG_SOFTMAX, HARDMAX and the `1` forms -----------------------------------------------


def axis_reference(function, x, axes):
    """`function` of float input `x` over `axes`, in long double."""
    axes = tuple(sorted(axes))
    v = x.astype(np.longdouble)
    kept = [d for d in range(x.ndim) if d not in axes]
    perm = kept + list(axes)
    moved = np.transpose(v, perm)
    flat = moved.reshape(int(np.prod([x.shape[d] for d in kept], dtype=np.int64)), -1)
    out = np.empty_like(flat)
    for r, row in enumerate(flat):
        if function == "HARDMAX":
            o = np.zeros_like(row)
            o[int(np.argmax(row))] = 1  # first maximum; NaN is the maximum
        else:
            with np.errstate(all="ignore"):
                m = np.max(row)
                shifted = row - m
                if np.isnan(row).any() or np.isinf(m):
                    o = np.full_like(row, np.nan)
                elif function == "SOFTMAX":
                    e = np.exp(shifted)
                    o = e / np.sum(e)
                else:
                    first = int(np.argmax(row))
                    e = np.exp(shifted)
                    e[first] = 0
                    o = shifted - np.log1p(np.sum(e))
        out[r] = o
    back = out.reshape(moved.shape)
    inverse = np.argsort(perm)
    return np.transpose(back, inverse).astype(np.float64)


def axis_case(function, dtype, x, axes=None, strides_in=None, strides_out=None, suffix=""):
    one = axes is not None
    op = function + ("1" if one else "")
    reduce_axes = axes if one else [x.ndim - 1]
    want = rounded(axis_reference(function, x, reduce_axes), dtype)
    ulps = 0 if function == "HARDMAX" else (2 if dtype == "FLOAT32" else 1)
    out = {"values": values(want), "ulps": ulps}
    if function == "SOFTMAX" and dtype == "FLOAT32":
        out["absolute"] = FLT_MIN
    desc = {"type": f"DML_OPERATOR_ACTIVATION_{op}", "InputTensor": tensor(dtype, x.shape, strides_in),
            "OutputTensor": tensor(dtype, x.shape, strides_out)}
    if one:
        desc["Axes"] = list(axes)
    memory = x.ravel() if strides_in is None else strided_memory(x, strides_in)
    tag = "_axes" + "".join(str(a) for a in axes) if one else ""
    return {"name": f"{op}_{dtype}_{'x'.join(map(str, x.shape))}{tag}{suffix}", "operator": desc,
            "inputs": {"InputTensor": values(memory)}, "outputs": {"OutputTensor": out}}


def axis_input(dtype, shape, scale=4.0):
    return (rng.standard_normal(shape) * scale).astype(NP[dtype])


cases = []
for function in ("SOFTMAX", "LOG_SOFTMAX", "HARDMAX"):
    for dtype in ("FLOAT32", "FLOAT16"):
        # The original forms: the last axis of an effective rank of at most 2.
        cases.append(axis_case(function, dtype, axis_input(dtype, (1, 1, 3, 7))))
        cases.append(axis_case(function, dtype, axis_input(dtype, (5, 16))))
        cases.append(axis_case(function, dtype, axis_input(dtype, (9,))))
        # The `1` forms over several axis sets and ranks.
        for shape, axes in (((2, 3, 4), [2]), ((2, 3, 4), [0]), ((2, 3, 4), [0, 2]), ((2, 3, 4, 5), [1, 2]),
                            ((2, 3, 4, 5), [3, 0]), ((2, 3, 2, 2, 3), [0, 1, 2, 3, 4]), ((3, 1, 5), [1])):
            cases.append(axis_case(function, dtype, axis_input(dtype, shape), axes=axes))
    # Transposed input, padded output, FLOAT32.
    x = axis_input("FLOAT32", (3, 4, 5))
    cases.append(axis_case(function, "FLOAT32", x, axes=[1], strides_in=[1, 15, 3], strides_out=[24, 6, 1],
                           suffix="_strided"))
    cases.append(axis_case(function, "FLOAT32", axis_input("FLOAT32", (4, 6)), strides_in=[1, 4], suffix="_transposed"))
    # Edge rows: huge magnitudes (stability), -inf among numbers, a NaN, a +inf, all -inf, ties.
    edge = np.array([
        [1e30, -1e30, 3e38, 1.0, 0.0, -0.0],
        [-np.inf, 2.0, -np.inf, 1.0, 0.5, -3.0],
        [1.0, np.nan, 2.0, 3.0, 4.0, 5.0],
        [1.0, np.inf, 2.0, 3.0, 4.0, 5.0],
        [-np.inf] * 6,
        [2.0, 7.0, 7.0, -1.0, 7.0, 0.0],
        [-88.0, -100.0, -120.0, 0.0, -1e-30, -104.0],
        [80.0, 80.0, 80.0, 80.0, 80.0, 80.0],
    ], dtype=np.float32)
    cases.append(axis_case(function, "FLOAT32", edge, suffix="_edges"))
    cases.append(axis_case(function, "FLOAT32", edge, axes=[1], suffix="_edges"))
    edge16 = np.array([[60000.0, -60000.0, 1.0, 0.0], [1.0, np.nan, 2.0, 3.0], [-np.inf, 1.0, 1.0, 0.5],
                       [3.0, 3.0, -3.0, 3.0]], dtype=np.float16)
    cases.append(axis_case(function, "FLOAT16", edge16, suffix="_edges"))
write("axis", cases)

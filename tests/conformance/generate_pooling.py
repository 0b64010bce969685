#!/usr/bin/env python3
"""Conformance cases of the pooling family (AVERAGE_POOLING, AVERAGE_POOLING1, LP_POOLING,
LP_POOLING1, MAX_POOLING, MAX_POOLING1, MAX_POOLING2, MAX_UNPOOLING), computed with numpy in float64.

Run once to (re)write cases/pooling_average.json, pooling_lp.json, pooling_max.json,
pooling_unpooling.json and pooling_grad.json (AVERAGE_POOLING_GRAD, MAX_POOLING_GRAD); FreeDML is
never consulted.

Semantics the references encode (the reference pages):
- InputTensor {N, C, spatial..} with 2 or 3 spatial dimensions; output element y of spatial
  dimension d reads inputs y * Strides[d] - StartPadding[d] + k * Dilations[d], k < WindowSize[d];
  the output has (In + StartPadding + EndPadding - ((WindowSize - 1) * Dilations + 1)) / Strides + 1
  elements per spatial dimension, rounded down.
- Padding takes no part in MAX and LP; an average divides by the window's size with IncludePadding
  and by the number of inputs the window covers without it.
- MAX_POOLING1/2's indices: the maximum's position in InputTensor read as a packed row-major array;
  of equal maxima, the first in row-major window order.
- MAX_UNPOOLING: zeros, with each input element written where its index (into OutputTensor read
  as a packed row-major array) points.
FreeDML's choices where the pages are silent: a NaN in a MAX window wins (the first NaN, as
PyTorch's max_pool propagates it); an average over no input (a window wholly in the padding
without IncludePadding) is 0/0, NaN; with IncludePadding it is 0.
"""
import itertools

import numpy as np

from case_format import tensor, values, write_cases

rng = np.random.default_rng(20261125)
NP = {"FLOAT32": np.float32, "FLOAT16": np.float16, "INT8": np.int8, "INT16": np.int16, "INT32": np.int32,
      "INT64": np.int64, "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32, "UINT64": np.uint64}
FLOATS = ["FLOAT32", "FLOAT16"]


def out_sizes(shape, window, strides, start, end, dil):
    return [(i + s + e - ((w - 1) * d + 1)) // st + 1
            for i, w, st, s, e, d in zip(shape[2:], window, strides, start, end, dil)]


def reference(x, kind, window, strides, start, end, dil, include=False, p=2):
    """(values as float64 or the integer type, flat indices)."""
    n, c = x.shape[:2]
    outs = out_sizes(x.shape, window, strides, start, end, dil)
    integer = x.dtype.kind in "iu"
    y = np.zeros([n, c] + outs, dtype=x.dtype if integer else np.float64)
    idx = np.zeros([n, c] + outs, dtype=np.uint64)
    xf = x if integer else x.astype(np.float64)
    for o in itertools.product(*[range(s) for s in outs]):
        taps = [[oi * st - s + k * d for k in range(w) if 0 <= oi * st - s + k * d < size]
                for oi, st, s, w, d, size in zip(o, strides, start, window, dil, x.shape[2:])]
        positions = list(itertools.product(*taps))  # row-major window order
        at = (slice(None), slice(None)) + o
        if not positions:
            if kind == "avg":
                y[at] = 0.0 if include else np.nan
            elif kind == "lp":
                y[at] = 0.0
            else:
                y[at] = -np.inf
            continue
        v = np.stack([xf[(slice(None), slice(None)) + pos] for pos in positions], axis=-1)
        if kind == "avg":
            y[at] = v.sum(axis=-1) / (np.prod(window) if include else len(positions))
        elif kind == "lp":
            y[at] = (np.abs(v) ** p).sum(axis=-1) ** (1.0 / p)
        else:
            best = np.argmax(v, axis=-1)  # the first maximum, or the first NaN
            y[at] = np.take_along_axis(v, best[..., None], axis=-1)[..., 0]
            for ni in range(n):
                for ci in range(c):
                    idx[(ni, ci) + o] = np.ravel_multi_index((ni, ci) + positions[best[ni, ci]], x.shape)
    return y, idx


def strided_memory(logical, strides):
    shape = logical.shape
    length = 1 + sum((s - 1) * st for s, st in zip(shape, strides))
    memory = np.zeros(length, dtype=logical.dtype)
    index = np.indices(shape).reshape(len(shape), -1)
    offsets = sum(index[d] * strides[d] for d in range(len(shape)))
    memory[offsets] = logical.ravel()
    return memory


def make_input(dtype, shape, few=False):
    if few:
        return rng.integers(0, 3, size=shape).astype(NP[dtype])
    if dtype in FLOATS:
        return (rng.standard_normal(shape) * 3).astype(NP[dtype])
    info = np.iinfo(NP[dtype])
    return rng.integers(int(info.min), int(info.max), size=shape, dtype=NP[dtype], endpoint=True)


OPS = {"AVERAGE_POOLING": "avg", "AVERAGE_POOLING1": "avg", "LP_POOLING": "lp", "LP_POOLING1": "lp",
       "MAX_POOLING": "max", "MAX_POOLING1": "max", "MAX_POOLING2": "max"}
DILATED = {"AVERAGE_POOLING1", "LP_POOLING1", "MAX_POOLING2"}


def case(op, dtype, x, window, strides=None, start=None, end=None, dil=None, include=False, p=2,
         index_type=None, strides_in=None, strides_out=None, suffix=""):
    spatial = len(window)
    strides = strides or [1] * spatial
    start = start or [0] * spatial
    end = end or [0] * spatial
    dil = dil or [1] * spatial
    assert op in DILATED or dil == [1] * spatial
    kind = OPS[op]
    y, idx = reference(x, kind, window, strides, start, end, dil, include, p)
    desc = {"type": f"DML_OPERATOR_{op}", "InputTensor": tensor(dtype, x.shape, strides_in),
            "OutputTensor": tensor(dtype, y.shape, strides_out), "DimensionCount": spatial,
            "Strides": strides, "WindowSize": window, "StartPadding": start, "EndPadding": end}
    if op in DILATED:
        desc["Dilations"] = dil
    if kind == "avg":
        desc["IncludePadding"] = include
    if kind == "lp":
        desc["P"] = p
    outputs = {}
    expected = y.astype(NP[dtype]) if dtype in FLOATS else y
    if kind == "max" or dtype not in FLOATS:
        tol = {"ulps": 0}
    elif dtype == "FLOAT16":
        tol = {"ulps": 1}
    else:
        tol = {"ulps": 2 if kind == "avg" else 4, "absolute": 1e-6}
    outputs["OutputTensor"] = {"values": values(expected, dtype), **tol}
    if index_type:
        desc["OutputIndicesTensor"] = tensor(index_type, y.shape)
        outputs["OutputIndicesTensor"] = {"values": values(idx, index_type)}
    memory = x.ravel() if strides_in is None else strided_memory(x, strides_in)
    parts = [op, dtype, "x".join(map(str, x.shape)), "w" + "x".join(map(str, window)),
             "s" + "x".join(map(str, strides))]
    if any(start) or any(end):
        parts.append("p" + "x".join(map(str, start + end)))
    if any(d != 1 for d in dil):
        parts.append("d" + "x".join(map(str, dil)))
    if kind == "avg":
        parts.append("incl" if include else "excl")
    if kind == "lp":
        parts.append(f"P{p}")
    if index_type:
        parts.append(index_type)
    name = "_".join(parts) + suffix
    return {"name": name, "operator": desc, "inputs": {"InputTensor": values(memory, dtype)}, "outputs": outputs}


# Geometries: (input shape, window, strides, start, end, dilations); dilations apply to the dilated
# operators only.
GEOMETRIES_2D = [
    ((1, 2, 5, 5), [2, 2], [2, 2], [0, 0], [0, 0], [1, 1]),
    ((2, 3, 6, 7), [3, 3], [2, 2], [1, 1], [1, 1], [2, 1]),
    ((1, 1, 7, 6), [3, 2], [1, 2], [1, 0], [2, 1], [2, 2]),
    ((1, 2, 4, 9), [1, 3], [1, 3], [0, 1], [0, 1], [1, 2]),   # a 1-D window as a 2-D one of height 1
]
GEOMETRIES_3D = [
    ((1, 2, 4, 5, 4), [2, 3, 2], [2, 1, 2], [0, 1, 1], [1, 1, 0], [1, 1, 2]),
]

average, lp, maxp, unpool = [], [], [], []
for dtype in FLOATS:
    for g, (shape, window, strides, start, end, dil) in enumerate(GEOMETRIES_2D + GEOMETRIES_3D):
        x = make_input(dtype, shape)
        for include in (False, True):
            average.append(case("AVERAGE_POOLING", dtype, x, window, strides, start, end, include=include))
            average.append(case("AVERAGE_POOLING1", dtype, x, window, strides, start, end, dil, include=include))
        for p in ((1, 2) if g % 2 == 0 else (2, 3)):
            lp.append(case("LP_POOLING", dtype, x, window, strides, start, end, p=p))
            lp.append(case("LP_POOLING1", dtype, x, window, strides, start, end, dil, p=p))
        maxp.append(case("MAX_POOLING", dtype, x, window, strides, start, end))
        maxp.append(case("MAX_POOLING1", dtype, x, window, strides, start, end, index_type="UINT32"))
        maxp.append(case("MAX_POOLING1", dtype, x, window, strides, start, end))
        maxp.append(case("MAX_POOLING2", dtype, x, window, strides, start, end, dil,
                         index_type=["UINT32", "UINT64"][g % 2]))

# Integer MAX: every integer type, ties (first maximum), the 3-D window once.
for n, dtype in enumerate(["INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8"]):
    shape, window, strides, start, end, dil = GEOMETRIES_2D[1]
    maxp.append(case("MAX_POOLING", dtype, make_input(dtype, shape), window, strides, start, end))
    maxp.append(case("MAX_POOLING2", dtype, make_input(dtype, shape, few=True), window, strides, start, end, dil,
                     index_type=["UINT32", "UINT64"][n % 2], suffix="_ties"))
shape, window, strides, start, end, dil = GEOMETRIES_3D[0]
maxp.append(case("MAX_POOLING2", "INT32", make_input("INT32", shape), window, strides, start, end, dil,
                 index_type="UINT64"))

# Edge values: NaN wins a MAX window, infinities, signed zeros; NaN spreads through averages.
edge = np.array([[[[1.0, np.nan, -np.inf, 0.0], [np.inf, -0.0, 2.0, -1.0], [-0.0, -0.0, np.nan, np.nan],
                   [-np.inf, -np.inf, 5.0, 4.0]]]], dtype=np.float32)
for dtype in FLOATS:
    x = edge.astype(NP[dtype])
    maxp.append(case("MAX_POOLING1", dtype, x, [2, 2], [1, 1], index_type="UINT32", suffix="_edges"))
    maxp.append(case("MAX_POOLING2", dtype, x, [2, 2], [1, 1], dil=[2, 1], suffix="_edges"))  # no indices
    maxp.append(case("MAX_POOLING", dtype, x, [3, 2], [1, 2], [1, 1], [1, 1], suffix="_edges"))
    average.append(case("AVERAGE_POOLING", dtype, x, [2, 2], [2, 2], suffix="_edges"))
# Windows wholly in the padding: 0/0 (NaN) without IncludePadding, 0 with it; -inf for MAX.
x = make_input("FLOAT32", (1, 1, 2, 2))
for include in (False, True):
    average.append(case("AVERAGE_POOLING", "FLOAT32", x, [2, 2], [3, 3], [3, 0], [0, 0], include=include,
                        suffix="_empty_windows"))
maxp.append(case("MAX_POOLING", "FLOAT32", x, [2, 2], [3, 3], [3, 0], [0, 0], suffix="_empty_windows"))
lp.append(case("LP_POOLING", "FLOAT32", x, [2, 2], [3, 3], [3, 0], [0, 0], p=2, suffix="_empty_windows"))

# Strided views: a transposed (channels-last) input and a padded output.
x = make_input("FLOAT32", (2, 3, 5, 6))
nhwc = [90, 1, 18, 3]
average.append(case("AVERAGE_POOLING1", "FLOAT32", x, [3, 2], [1, 2], [1, 0], [1, 0], [1, 2], include=False,
                    strides_in=nhwc, suffix="_strided"))
lp.append(case("LP_POOLING1", "FLOAT32", x, [2, 2], [2, 2], [0, 0], [1, 0], [1, 1], p=3, strides_in=nhwc,
               suffix="_strided"))
maxp.append(case("MAX_POOLING2", "FLOAT32", x, [3, 3], [2, 2], [1, 1], [1, 1], [1, 1], index_type="UINT32",
                 strides_in=nhwc, strides_out=[40, 12, 4, 1], suffix="_strided"))
maxp.append(case("MAX_POOLING", "FLOAT16", make_input("FLOAT16", (2, 3, 5, 6)), [2, 3], [1, 1],
                 strides_in=nhwc, suffix="_strided"))

# MAX_UNPOOLING: indices from a max pool (no two alike) put back; a strided input and duplicate
# indices of one value (overlapping windows); UINT64 indices; every integer type once.
def unpool_case(dtype, x, idx, out_shape, index_type="UINT32", strides_in=None, suffix=""):
    flat = np.zeros(int(np.prod(out_shape)), dtype=x.dtype)
    for v, i in zip(x.ravel(), idx.ravel()):
        flat[int(i)] = v
    desc = {"type": "DML_OPERATOR_MAX_UNPOOLING", "InputTensor": tensor(dtype, x.shape, strides_in),
            "IndicesTensor": tensor(index_type, idx.shape), "OutputTensor": tensor(dtype, out_shape)}
    memory = x.ravel() if strides_in is None else strided_memory(x, strides_in)
    name = f"MAX_UNPOOLING_{dtype}_{'x'.join(map(str, x.shape))}_to_{'x'.join(map(str, out_shape))}_{index_type}{suffix}"
    return {"name": name, "operator": desc,
            "inputs": {"InputTensor": values(memory, dtype), "IndicesTensor": values(idx.ravel(), index_type)},
            "outputs": {"OutputTensor": {"values": values(flat.reshape(out_shape), dtype)}}}


for n, dtype in enumerate(FLOATS + ["INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8"]):
    source = make_input(dtype, (2, 3, 4, 6))
    y, idx = reference(source, "max", [2, 2], [2, 2], [0, 0], [0, 0], [1, 1])
    unpool.append(unpool_case(dtype, y.astype(NP[dtype]), idx, source.shape, ["UINT32", "UINT64"][n % 2]))
source = make_input("FLOAT32", (1, 2, 5, 5))
y, idx = reference(source, "max", [3, 3], [1, 1], [1, 1], [1, 1], [1, 1])  # overlapping: duplicates of one value
y = y.astype(np.float32)
unpool.append(unpool_case("FLOAT32", y, idx, source.shape, suffix="_overlapping"))
unpool.append(unpool_case("FLOAT32", y, idx, source.shape, "UINT64", strides_in=[1, 2, 10, 50], suffix="_strided"))


# AVERAGE_POOLING_GRAD and MAX_POOLING_GRAD: each forward output's gradient back to its window, by
# scatter in float64 (divided by the window's divisor for AVERAGE, all to the first maximum for MAX).
def gradient_reference(kind, x_shape, dy, window, strides, start, end, dil, include=False, x=None):
    dx = np.zeros(x_shape, dtype=np.float64)
    outs = dy.shape[2:]
    for n in range(x_shape[0]):
        for c in range(x_shape[1]):
            for o in itertools.product(*[range(s) for s in outs]):
                taps = [[oi * st - s + k * d for k in range(w) if 0 <= oi * st - s + k * d < size]
                        for oi, st, s, w, d, size in zip(o, strides, start, window, dil, x_shape[2:])]
                positions = list(itertools.product(*taps))
                g = float(dy[(n, c) + o])
                if kind == "avg":
                    divisor = np.prod(window) if include else len(positions)
                    for pos in positions:
                        dx[(n, c) + pos] += g / divisor
                else:
                    v = np.array([float(x[(n, c) + pos]) for pos in positions])
                    dx[(n, c) + positions[int(np.argmax(v))]] += g
    return dx


def grad_case(op, dtype, x_shape, window, strides, start, end, dil=None, include=False, few=False,
              strides_dx=None, suffix=""):
    spatial = len(window)
    dil = dil or [1] * spatial
    outs = out_sizes(x_shape, window, strides, start, end, dil)
    dy = make_input(dtype, [x_shape[0], x_shape[1]] + outs)
    desc = {"type": f"DML_OPERATOR_{op}", "InputGradientTensor": tensor(dtype, dy.shape),
            "OutputGradientTensor": tensor(dtype, x_shape, strides_dx), "DimensionCount": spatial,
            "Strides": strides, "WindowSize": window, "StartPadding": start, "EndPadding": end}
    inputs = {"InputGradientTensor": values(dy.ravel(), dtype)}
    if op == "MAX_POOLING_GRAD":
        x = make_input(dtype, x_shape, few=few)
        desc["InputTensor"] = tensor(dtype, x_shape)
        desc["Dilations"] = dil
        inputs["InputTensor"] = values(x.ravel(), dtype)
        dx = gradient_reference("max", x_shape, dy, window, strides, start, end, dil, x=x)
    else:
        desc["IncludePadding"] = include
        dx = gradient_reference("avg", x_shape, dy, window, strides, start, end, dil, include)
    tol = {"ulps": 1, "absolute": 1e-3} if dtype == "FLOAT16" else {"ulps": 2, "absolute": 1e-6}
    parts = [op, dtype, "x".join(map(str, x_shape)), "w" + "x".join(map(str, window)),
             "s" + "x".join(map(str, strides)), "p" + "x".join(map(str, start + end))]
    if any(d != 1 for d in dil):
        parts.append("d" + "x".join(map(str, dil)))
    if op == "AVERAGE_POOLING_GRAD":
        parts.append("incl" if include else "excl")
    return {"name": "_".join(parts) + suffix, "operator": desc, "inputs": inputs,
            "outputs": {"OutputGradientTensor": {"values": values(dx.astype(NP[dtype]), dtype), **tol}}}


grads = []
for dtype in FLOATS:
    for shape, window, strides, start, end, dil in GEOMETRIES_2D[:3] + GEOMETRIES_3D:
        for include in (False, True):
            grads.append(grad_case("AVERAGE_POOLING_GRAD", dtype, shape, window, strides, start, end,
                                   include=include))
        grads.append(grad_case("MAX_POOLING_GRAD", dtype, shape, window, strides, start, end, dil))
    grads.append(grad_case("MAX_POOLING_GRAD", dtype, (1, 2, 5, 5), [3, 3], [1, 1], [1, 1], [1, 1], few=True,
                           suffix="_ties"))
grads.append(grad_case("AVERAGE_POOLING_GRAD", "FLOAT32", (1, 2, 5, 6), [2, 3], [2, 1], [1, 0], [0, 1],
                       include=False, strides_dx=[80, 40, 8, 1], suffix="_strided"))

# Global average pooling (a CNN's head): the window is the whole plane, 2-D and 3-D, packed and
# channels-last in memory.
for dtype in FLOATS:
    x = make_input(dtype, (2, 3, 4, 5))
    average.append(case("AVERAGE_POOLING", dtype, x, [4, 5], suffix="_global"))
    average.append(case("AVERAGE_POOLING1", dtype, x, [4, 5], strides_in=[60, 1, 15, 3], suffix="_global_nhwc"))
    average.append(case("AVERAGE_POOLING", dtype, make_input(dtype, (2, 2, 3, 2, 2)), [3, 2, 2], suffix="_global"))
write_cases(__file__, "pooling_average", average)
write_cases(__file__, "pooling_lp", lp)
write_cases(__file__, "pooling_max", maxp)
write_cases(__file__, "pooling_unpooling", unpool)
write_cases(__file__, "pooling_grad", grads)

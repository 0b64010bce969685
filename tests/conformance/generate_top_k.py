#!/usr/bin/env python3
"""Conformance cases of DML_OPERATOR_TOP_K and DML_OPERATOR_TOP_K1, computed with numpy and Python's
sort.

Run once to (re)write cases/reduction_top_k.json. The expected outputs are the input elements
themselves (bit for bit) and their positions along Axis; FreeDML is never consulted.

Semantics the references encode:
- Each line along Axis gives its K first elements in the chosen order: largest first for TOP_K and
  for TOP_K1 with DML_AXIS_DIRECTION_DECREASING, smallest first with DML_AXIS_DIRECTION_INCREASING;
  equal values in increasing index, whatever the direction (the pages).
- FreeDML's choice where the pages are silent: NaN ranks above every number (as numpy's argmax
  counts it the maximum), so it comes first when the largest are asked and last when the smallest
  are; -0 equals +0; K may equal the size along Axis.
"""
import math

import numpy as np

from case_format import tensor, values, write_cases

rng = np.random.default_rng(20261126)
NP = {"FLOAT32": np.float32, "FLOAT16": np.float16, "INT8": np.int8, "INT16": np.int16, "INT32": np.int32,
      "INT64": np.int64, "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32, "UINT64": np.uint64}
FLOATS = ["FLOAT32", "FLOAT16"]
ALL = FLOATS + ["INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8"]


def order_key(largest):
    def key(pair):
        v, i = pair
        if isinstance(v, float) and math.isnan(v):
            return (0 if largest else 1, 0, i)
        return (1 if largest else 0, -v if largest else v, i)
    return key


def reference(x, axis, k, largest):
    moved = np.moveaxis(x, axis, -1)
    lines = moved.reshape(-1, moved.shape[-1])
    out_v, out_i = [], []
    for line in lines:
        items = [(float(v) if x.dtype.kind == "f" else int(v), i) for i, v in enumerate(line)]
        chosen = sorted(items, key=order_key(largest))[:k]
        out_i.append([i for _, i in chosen])
        out_v.append([line[i] for i in out_i[-1]])
    shape = list(moved.shape[:-1]) + [k]
    v = np.moveaxis(np.array(out_v, dtype=x.dtype).reshape(shape), -1, axis)
    i = np.moveaxis(np.array(out_i, dtype=np.uint64).reshape(shape), -1, axis)
    return v, i


def strided_memory(logical, strides):
    shape = logical.shape
    length = 1 + sum((s - 1) * st for s, st in zip(shape, strides))
    memory = np.zeros(length, dtype=logical.dtype)
    index = np.indices(shape).reshape(len(shape), -1)
    offsets = sum(index[d] * strides[d] for d in range(len(shape)))
    memory[offsets] = logical.ravel()
    return memory


def case(op, dtype, x, axis, k, largest=True, index_type="UINT32", strides_in=None, strides_v=None,
         strides_i=None, suffix=""):
    v, i = reference(x, axis, k, largest)
    desc = {"type": f"DML_OPERATOR_{op}", "InputTensor": tensor(dtype, x.shape, strides_in),
            "OutputValueTensor": tensor(dtype, v.shape, strides_v),
            "OutputIndexTensor": tensor(index_type, i.shape, strides_i), "Axis": axis, "K": k}
    if op == "TOP_K1":
        desc["AxisDirection"] = "DML_AXIS_DIRECTION_DECREASING" if largest else "DML_AXIS_DIRECTION_INCREASING"
    memory = x.ravel() if strides_in is None else strided_memory(x, strides_in)
    direction = "" if op == "TOP_K" else ("_largest" if largest else "_smallest")
    name = f"{op}_{dtype}_{index_type}_{'x'.join(map(str, x.shape))}_axis{axis}_k{k}{direction}{suffix}"
    return {"name": name, "operator": desc, "inputs": {"InputTensor": values(memory, dtype)},
            "outputs": {"OutputValueTensor": {"values": values(v, dtype)},
                        "OutputIndexTensor": {"values": values(i, index_type)}}}


def make_input(dtype, shape, few=False):
    if few:  # few distinct values: ties everywhere
        return rng.integers(0, 4, size=shape).astype(NP[dtype])
    if dtype in FLOATS:
        return (rng.standard_normal(shape) * 4).astype(NP[dtype])
    info = np.iinfo(NP[dtype])
    return rng.integers(int(info.min), int(info.max), size=shape, dtype=NP[dtype], endpoint=True)


cases = []
# The pages' examples: {1,1,3,4} along axis 3 and axis 2, K = 2.
page = np.array([[[[0, 1, 10, 11], [3, 2, 9, 8], [4, 5, 6, 7]]]], dtype=np.float32)
for axis in (3, 2):
    cases.append(case("TOP_K", "FLOAT32", page, axis, 2, suffix="_page"))
    for largest in (True, False):
        cases.append(case("TOP_K1", "FLOAT32", page, axis, 2, largest, suffix="_page"))
SHAPES = [((2, 3, 7), 2, 3), ((5, 4), 0, 2), ((2, 6, 3), 1, 6), ((9,), 0, 1)]
for n, dtype in enumerate(ALL):
    for s, (shape, axis, k) in enumerate(SHAPES):
        index_type = ["UINT32", "UINT64"][(n + s) % 2]
        x = make_input(dtype, shape)
        cases.append(case("TOP_K", dtype, x, axis, k, index_type=index_type))
        for largest in (True, False):
            cases.append(case("TOP_K1", dtype, x, axis, k, largest, index_type))
        x = make_input(dtype, shape, few=True)
        for largest in (True, False):
            cases.append(case("TOP_K1", dtype, x, axis, k, largest, index_type, suffix="_ties"))
# Edge values: NaN, infinities, signed zeros, extremes.
edge = np.array([[1.0, np.nan, -np.inf, 0.0, np.inf, -0.0, 3e38, np.nan],
                 [-0.0, 0.0, -0.0, 0.0, 1.0, -1.0, np.nan, -np.inf]], dtype=np.float32)
edge16 = np.where(np.abs(edge) == np.float32(3e38), np.float32(6e4), edge).astype(np.float16)
for k in (3, 8):
    cases.append(case("TOP_K", "FLOAT32", edge, 1, k, suffix="_edges"))
    for largest in (True, False):
        cases.append(case("TOP_K1", "FLOAT32", edge, 1, k, largest, "UINT64", suffix="_edges"))
        cases.append(case("TOP_K1", "FLOAT16", edge16, 1, k, largest, suffix="_edges"))
for dtype in ALL[2:]:
    info = np.iinfo(NP[dtype])
    x = np.array([[info.min, info.max, 0, info.max, 1, info.min]], dtype=NP[dtype])
    for largest in (True, False):
        cases.append(case("TOP_K1", dtype, x, 1, 4, largest, suffix="_limits"))
# Strided and padded views: a transposed input, padded outputs.
x = make_input("FLOAT32", (3, 4, 5))
for largest in (True, False):
    cases.append(case("TOP_K1", "FLOAT32", x, 1, 2, largest, strides_in=[1, 15, 3], strides_v=[20, 5, 1],
                      strides_i=[1, 3, 6], suffix="_strided"))
    cases.append(case("TOP_K1", "INT32", make_input("INT32", (3, 4, 5), few=True), 2, 3, largest, "UINT64",
                      strides_in=[1, 15, 3], suffix="_strided"))
# Long lines.
x = make_input("FLOAT32", (2, 300))
cases.append(case("TOP_K", "FLOAT32", x, 1, 17, suffix="_long"))
cases.append(case("TOP_K1", "FLOAT32", x, 1, 300, False, suffix="_long"))
# Lines of 256 elements and more (the CUDA adapter selects there instead of sorting): NaN, signed
# zeros and many equal values across several chunks of a line; K up to 1024, and above it.
x = np.round(rng.standard_normal((3, 2500)) * 3).astype(np.float32)
x[0, ::97] = np.nan
x[1, ::13] = -0.0
for largest in (True, False):
    cases.append(case("TOP_K1", "FLOAT32", x, 1, 40, largest, suffix="_long_ties"))
cases.append(case("TOP_K1", "FLOAT32", x.T.copy(), 0, 7, True, "UINT64", suffix="_long_axis0"))
x16 = make_input("FLOAT16", (2, 1500), few=True)
cases.append(case("TOP_K1", "FLOAT16", x16, 1, 1000, False, suffix="_long_ties"))
for dtype, length, k in (("INT8", 700, 650), ("UINT16", 600, 5), ("INT32", 1100, 1024), ("UINT32", 300, 1)):
    xi = make_input(dtype, (2, length))
    for largest in (True, False):
        cases.append(case("TOP_K1", dtype, xi, 1, k, largest, suffix="_long"))
cases.append(case("TOP_K1", "FLOAT32", make_input("FLOAT32", (1, 1300)), 1, 1100, True, suffix="_long_k_above_1024"))
write_cases(__file__, "reduction_top_k", cases)

#!/usr/bin/env python3
"""Conformance cases of the first operators (IDENTITY, ADD, ADD1, JOIN, SPLIT), computed with numpy.

Run once to (re)write cases/first_operators.json. The values FreeDML must produce come from numpy
here, never from FreeDML.
"""
import json
import pathlib

import numpy as np

from case_format import tensor, values

rng = np.random.default_rng(20261122)
NP = {"FLOAT32": np.float32, "FLOAT16": np.float16, "FLOAT64": np.float64, "INT8": np.int8, "UINT8": np.uint8,
      "INT16": np.int16, "UINT16": np.uint16, "INT32": np.int32, "UINT32": np.uint32, "INT64": np.int64,
      "UINT64": np.uint64}


def random(dtype, shape):
    t = NP[dtype]
    if np.issubdtype(t, np.floating):
        return (rng.standard_normal(shape) * 4).astype(t)
    info = np.iinfo(t)
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=t)


cases = []

for dtype in NP:
    a = random(dtype, (2, 3, 4))
    b = random(dtype, (2, 3, 4))
    with np.errstate(over="ignore"):
        s = (a + b).astype(NP[dtype])  # integers wrap around, as DirectML's do
    ulps = 1 if dtype in ("FLOAT32", "FLOAT16", "FLOAT64") else 0
    if dtype != "FLOAT64":  # DirectML's ADD takes no FLOAT64 (IDENTITY does)
        cases.append({"name": f"ADD_{dtype}", "operator": {
            "type": "DML_OPERATOR_ELEMENT_WISE_ADD", "ATensor": tensor(dtype, (2, 3, 4)),
            "BTensor": tensor(dtype, (2, 3, 4)), "OutputTensor": tensor(dtype, (2, 3, 4))},
            "inputs": {"ATensor": values(a), "BTensor": values(b)},
            "outputs": {"OutputTensor": {"values": values(s), "ulps": ulps}}})
    cases.append({"name": f"IDENTITY_{dtype}", "operator": {
        "type": "DML_OPERATOR_ELEMENT_WISE_IDENTITY", "InputTensor": tensor(dtype, (2, 3, 4)),
        "OutputTensor": tensor(dtype, (2, 3, 4))},
        "inputs": {"InputTensor": values(a)}, "outputs": {"OutputTensor": {"values": values(a)}}})

# Broadcast through a zero stride, and a transposed (strided) output.
a = random("FLOAT32", (3, 4))
row = random("FLOAT32", (4,))
cases.append({"name": "ADD_FLOAT32_broadcast_row", "operator": {
    "type": "DML_OPERATOR_ELEMENT_WISE_ADD", "ATensor": tensor("FLOAT32", (3, 4)),
    "BTensor": tensor("FLOAT32", (3, 4), (0, 1)), "OutputTensor": tensor("FLOAT32", (3, 4), (1, 3))},
    "inputs": {"ATensor": values(a), "BTensor": values(row)},
    "outputs": {"OutputTensor": {"values": values(a + row), "ulps": 1}}})

# Edge values of FLOAT32: infinities and NaN propagate, -0 + -0 = -0.
edge = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3.4028235e38, -0.0, 1e-45], dtype=np.float32)
other = np.array([-0.0, -0.0, 1.0, np.inf, 1.0, 3.4028235e38, 0.0, -1e-45], dtype=np.float32)
with np.errstate(invalid="ignore", over="ignore"):
    cases.append({"name": "ADD_FLOAT32_edges", "operator": {
        "type": "DML_OPERATOR_ELEMENT_WISE_ADD", "ATensor": tensor("FLOAT32", (8,)),
        "BTensor": tensor("FLOAT32", (8,)), "OutputTensor": tensor("FLOAT32", (8,))},
        "inputs": {"ATensor": values(edge), "BTensor": values(other)},
        "outputs": {"OutputTensor": {"values": values(edge + other)}}})

# IDENTITY with a scale and bias, in float64 then rounded to float32.
x = random("FLOAT32", (2, 5))
cases.append({"name": "IDENTITY_FLOAT32_scale_bias", "operator": {
    "type": "DML_OPERATOR_ELEMENT_WISE_IDENTITY", "InputTensor": tensor("FLOAT32", (2, 5)),
    "OutputTensor": tensor("FLOAT32", (2, 5)), "ScaleBias": {"Scale": 0.5, "Bias": -1.25}},
    "inputs": {"InputTensor": values(x)},
    "outputs": {"OutputTensor": {"values": values((x.astype(np.float64) * 0.5 - 1.25).astype(np.float32)),
                                 "ulps": 1}}})

# ADD1 with a fused LEAKY_RELU.
a = random("FLOAT32", (2, 6))
b = random("FLOAT32", (2, 6))
s = a.astype(np.float64) + b
cases.append({"name": "ADD1_FLOAT32_leaky_relu", "operator": {
    "type": "DML_OPERATOR_ELEMENT_WISE_ADD1", "ATensor": tensor("FLOAT32", (2, 6)),
    "BTensor": tensor("FLOAT32", (2, 6)), "OutputTensor": tensor("FLOAT32", (2, 6)),
    "FusedActivation": {"type": "DML_OPERATOR_ACTIVATION_LEAKY_RELU", "Alpha": 0.1}},
    "inputs": {"ATensor": values(a), "BTensor": values(b)},
    "outputs": {"OutputTensor": {"values": values(np.where(s > 0, s, 0.1 * s).astype(np.float32)), "ulps": 2}}})

# JOIN along each axis of three inputs.
for axis in range(3):
    shapes = [[2, 3, 4], [2, 3, 4], [2, 3, 4]]
    for i, shape in enumerate(shapes):
        shape[axis] = i + 1
    parts = [random("INT16", s) for s in shapes]
    joined = np.concatenate(parts, axis=axis)
    cases.append({"name": f"JOIN_INT16_axis{axis}", "operator": {
        "type": "DML_OPERATOR_JOIN", "InputTensors": [tensor("INT16", s) for s in shapes],
        "OutputTensor": tensor("INT16", joined.shape), "Axis": axis},
        "inputs": {"InputTensors": [values(p) for p in parts]},
        "outputs": {"OutputTensor": {"values": values(joined)}}})

# SPLIT along each axis into three outputs, every data type once; then a transposed (strided)
# input, strided outputs and a single output.
for axis in range(3):
    for dtype in NP:
        shapes = [[2, 3, 4], [2, 3, 4], [2, 3, 4]]
        for i, shape in enumerate(shapes):
            shape[axis] = i + 1
        whole_shape = [2, 3, 4]
        whole_shape[axis] = 6
        whole = random(dtype, whole_shape)
        parts = np.split(whole, [1, 3], axis=axis)
        cases.append({"name": f"SPLIT_{dtype}_axis{axis}", "operator": {
            "type": "DML_OPERATOR_SPLIT", "InputTensor": tensor(dtype, whole.shape),
            "OutputTensors": [tensor(dtype, s) for s in shapes], "Axis": axis},
            "inputs": {"InputTensor": values(whole)},
            "outputs": {"OutputTensors": [{"values": values(p)} for p in parts]}})

# A [4, 5] input stored transposed (strides [1, 4]) split along axis 1 into widths 2 and 3, written
# into outputs with padded rows (strides [4, 1] and [5, 1]).
whole = random("FLOAT32", (4, 5))
stored = np.ascontiguousarray(whole.T)  # memory order of strides [1, 4]
parts = np.split(whole, [2], axis=1)
cases.append({"name": "SPLIT_FLOAT32_strided", "operator": {
    "type": "DML_OPERATOR_SPLIT", "InputTensor": tensor("FLOAT32", [4, 5], [1, 4]),
    "OutputTensors": [tensor("FLOAT32", [4, 2], [4, 1]), tensor("FLOAT32", [4, 3], [5, 1])], "Axis": 1},
    "inputs": {"InputTensor": values(stored)},
    "outputs": {"OutputTensors": [{"values": values(p)} for p in parts]}})

whole = random("UINT8", (3, 7))
cases.append({"name": "SPLIT_UINT8_one_output", "operator": {
    "type": "DML_OPERATOR_SPLIT", "InputTensor": tensor("UINT8", [3, 7]),
    "OutputTensors": [tensor("UINT8", [3, 7])], "Axis": 0},
    "inputs": {"InputTensor": values(whole)},
    "outputs": {"OutputTensors": [{"values": values(whole)}]}})

path = pathlib.Path(__file__).parent / "cases" / "first_operators.json"
path.write_text(json.dumps({"generator": pathlib.Path(__file__).name, "cases": cases}, indent=1) + "\n")
print(f"wrote {len(cases)} cases to {path}")

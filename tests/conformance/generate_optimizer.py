#!/usr/bin/env python3
"""Conformance cases of DML_OPERATOR_ADAM_OPTIMIZER, computed in float64 with numpy from the
DML_ADAM_OPTIMIZER_OPERATOR_DESC page's formula and rounded once to the tensor type.

Run once to (re)write cases/optimizer_adam.json; FreeDML is never consulted.

The page's computation, with T the value of TrainingStepTensor used as it is:
    M' = Beta1 * M + (1 - Beta1) * G
    V' = Beta2 * V + (1 - Beta2) * G * G
    X' = X - LearningRate * sqrt(1 - Beta2^T) / (1 - Beta1^T) * M' / (sqrt(V') + Epsilon)
The desc's FLOAT fields are float32, so the reference uses their float32 values. FreeDML computes
in float (FLOAT16 tensors read and written through float): the tolerances allow a few ulps.
Cases: every data type, a first step from zero moments, a run of training steps in which each step
takes the previous step's rounded outputs, edge values (zeros, -0, huge and tiny gradients, NaN,
infinities, the step T = 0 at which the formula's correction is 0 / 0), strided and broadcast
views. (In-place bindings and tensors large enough for the host thread pool to split are in
tests/optimizer/optimizer_api_test.cpp.)
"""
import numpy as np

from case_format import tensor, values, write_cases

rng = np.random.default_rng(20261126)
NP = {"FLOAT32": np.float32, "FLOAT16": np.float16}
TOL = {"FLOAT32": {"ulps": 16, "absolute": 1e-6}, "FLOAT16": {"ulps": 2, "absolute": 1e-3}}
NAMES = ["InputParametersTensor", "InputFirstMomentTensor", "InputSecondMomentTensor", "GradientTensor"]
OUTS = ["OutputParametersTensor", "OutputFirstMomentTensor", "OutputSecondMomentTensor"]


def f32(v):
    return float(np.float32(v))


def adam(x, m, v, g, t, lr, b1, b2, eps):
    lr, b1, b2, eps = (f32(a) for a in (lr, b1, b2, eps))
    x, m, v, g = (np.asarray(a, dtype=np.float64) for a in (x, m, v, g))
    with np.errstate(all="ignore"):
        m2 = b1 * m + (1.0 - b1) * g
        v2 = b2 * v + (1.0 - b2) * g * g
        alpha = np.sqrt(1.0 - np.power(b2, t)) / (1.0 - np.power(b1, t)) if t != 0 else np.nan
        x2 = x - lr * alpha * m2 / (np.sqrt(v2) + eps)
    return x2, m2, v2


def strided_memory(logical, strides):
    length = 1 + sum((s - 1) * st for s, st in zip(logical.shape, strides))
    memory = np.zeros(length, dtype=logical.dtype)
    index = np.indices(logical.shape).reshape(logical.ndim, -1)
    memory[sum(index[d] * strides[d] for d in range(logical.ndim))] = logical.ravel()
    return memory


def case(name, dtype, x, m, v, g, t, lr=0.01, b1=0.9, b2=0.999, eps=1e-8, strides=None):
    """`strides`: optional {field: strides}; an input's values are then its strided memory (a zero
    stride broadcasts: `g` etc. are given already broadcast to the full shape)."""
    strides = strides or {}
    shape = list(x.shape)
    ins = [a.astype(NP[dtype]) for a in (x, m, v, g)]
    want = adam(*ins, t, lr, b1, b2, eps)
    desc = {"type": "DML_OPERATOR_ADAM_OPTIMIZER"}
    for field in NAMES + OUTS:
        desc[field] = tensor(dtype, shape, strides.get(field))
    desc["TrainingStepTensor"] = tensor(dtype, [1, 1, 1, 1])
    desc.update({"LearningRate": lr, "Beta1": b1, "Beta2": b2, "Epsilon": eps})
    inputs = {}
    for field, a in zip(NAMES, ins):
        inputs[field] = values(a if field not in strides else strided_memory(a, strides[field]), dtype)
    inputs["TrainingStepTensor"] = values(np.array([t], dtype=NP[dtype]), dtype)
    outputs = {}
    for field, w in zip(OUTS, want):
        outputs[field] = {"values": values(w.astype(NP[dtype]), dtype), **TOL[dtype]}
        if field in strides:
            outputs[field]["strides"] = strides[field]
    return {"name": f"ADAM_OPTIMIZER_{dtype}_{name}", "operator": desc, "inputs": inputs, "outputs": outputs}


def cases():
    out = []
    shape = (2, 3, 4, 5)
    for dtype in ("FLOAT32", "FLOAT16"):
        x = rng.uniform(-2, 2, shape)
        g = rng.normal(0, 1, shape)
        zeros = np.zeros(shape)
        out.append(case("first_step", dtype, x, zeros, zeros, g, 1))
        # A training loop: each step feeds the previous step's rounded outputs back in.
        m, v = zeros, zeros
        for t in (1, 2, 3, 4):
            g = rng.normal(0, 1, shape)
            c = case(f"step{t}", dtype, x, m, v, g, t, lr=0.05, b1=0.8, b2=0.95, eps=1e-6)
            out.append(c)
            x, m, v = (np.array([float(e) for e in c["outputs"][f]["values"]]).reshape(shape) for f in OUTS)
        # Late in training, other hyperparameters.
        out.append(case("step1000", dtype, x, m, v, rng.normal(0, 0.1, shape), 1000, lr=0.001, b1=0.95, b2=0.9999,
                        eps=1e-4))
        # Edge values of the gradient and the moments.
        big = 60000.0 if dtype == "FLOAT16" else 1e18
        tiny = 6e-5 if dtype == "FLOAT16" else 1e-30
        edge_g = np.array([0.0, -0.0, big, -big, tiny, -tiny, np.nan, np.inf, -np.inf, 1.0, -1.0, 0.5])
        edge_x = np.array([1.0, -1.0, 0.0, -0.0, 2.0, 3.0, 1.0, 1.0, 1.0, np.inf, np.nan, -0.0])
        edge_m = np.array([0.0, 0.0, 0.0, 0.0, 0.1, -0.1, 0.0, 0.0, 0.0, 0.3, 0.0, 0.0])
        edge_v = np.array([0.0, 0.0, 0.0, 0.0, 0.2, 0.2, 0.0, 0.0, 0.0, 0.1, 0.0, np.inf])
        r = (1, 1, 3, 4)
        out.append(case("edge_values", dtype, edge_x.reshape(r), edge_m.reshape(r), edge_v.reshape(r),
                        edge_g.reshape(r), 3))
        # T = 0: the page's correction sqrt(1 - 1) / (1 - 1) is NaN, and so are the parameters.
        out.append(case("step0_as_formula", dtype, rng.uniform(-1, 1, (1, 1, 2, 3)), np.zeros((1, 1, 2, 3)),
                        np.zeros((1, 1, 2, 3)), rng.normal(0, 1, (1, 1, 2, 3)), 0))
    # Strided and broadcast views: a transposed parameter view, a gradient broadcast over the first
    # two dimensions, padded output rows.
    dtype = "FLOAT32"
    shape = (2, 2, 3, 4)
    x = rng.uniform(-1, 1, shape)
    m = rng.normal(0, 0.1, shape)
    v = rng.uniform(0, 0.1, shape)
    g_row = rng.normal(0, 1, (1, 1, 3, 4))
    g = np.broadcast_to(g_row, shape).copy()
    strides = {"InputParametersTensor": [1, 2, 16, 4],   # the dimensions stored in another order
               "GradientTensor": [0, 0, 4, 1],
               "OutputParametersTensor": [30, 15, 5, 1],  # rows of 5 for 4 elements
               "OutputSecondMomentTensor": [24, 12, 4, 1]}
    c = case("strided_broadcast", dtype, x, m, v, g, 2, strides=strides)
    c["inputs"]["GradientTensor"] = values(g_row.astype(np.float32).ravel(), dtype)
    out.append(c)
    return out


if __name__ == "__main__":
    write_cases(__file__, "optimizer_adam", cases())

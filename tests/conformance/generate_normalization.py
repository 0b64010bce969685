#!/usr/bin/env python3
"""Conformance cases of the normalization family: DML_OPERATOR_BATCH_NORMALIZATION, the
MEAN_VARIANCE_NORMALIZATION forms (0, 1 and 2), LOCAL_RESPONSE_NORMALIZATION and LP_NORMALIZATION,
computed with numpy in float64 and rounded once to the output type; FreeDML is never consulted.

Semantics the references encode (the reference pages' formulas; FreeDML's choices where silent):
- BATCH_NORMALIZATION: y = act(scale * (x - mean) / sqrt(variance + epsilon) + bias), every
  statistic broadcast to the input through its sizes (Spatial has no effect).
- BATCH_NORMALIZATION_TRAINING: the same plus FusedAdd before the activation, with the mean and the
  population variance taken over the dimensions where ScaleTensor has size 1 (the page), and
  written to OutputMeanTensor and OutputVarianceTensor.
- BATCH_NORMALIZATION_GRAD (the page): OutputGradient = g * scale / sqrt(variance + epsilon), the
  scale gradient sum(g * (x - mean) / sqrt(variance + epsilon)) and the bias gradient sum(g), summed
  over the dimensions where ScaleTensor has size 1.
- BATCH_NORMALIZATION_TRAINING_GRAD (the page): with k = 1 / sqrt(variance + epsilon) and m() the
  mean over those dimensions, OutputGradient = scale * k * ((g - m(g)) - (x - m(x)) * m(g * (x - m(x)))
  * k^2); the parameter gradients as above. The cases pass the input's own mean and variance, as
  the forward pass writes them.
- MEAN_VARIANCE_NORMALIZATION*: the same with the mean and the (population) variance of the input
  over the axes ({C,H,W} with CrossChannel, else {H,W}; or Axes). NormalizeVariance FALSE (or
  UseVariance FALSE) leaves the division out; UseMean FALSE takes the mean as 0, so the variance is
  the mean of squares (RMS normalization).
- LOCAL_RESPONSE_NORMALIZATION: y = x / (bias + alpha / LocalSize * sum(x^2 over the window))^beta,
  the window LocalSize channels (CrossChannel) or LocalSize x LocalSize positions, from
  floor((LocalSize-1)/2) before to ceil((LocalSize-1)/2) after, clipped at the edges.
- LOCAL_RESPONSE_NORMALIZATION_GRAD: the gradient of that formula with respect to x for the
  incoming gradient g (the derivative of each output scattered onto its window's inputs).
- LP_NORMALIZATION: y = x / max(||x||_p along Axis, epsilon).
- FLOAT16 accumulates in float32: tolerances allow a few ulps.
"""
import numpy as np

from case_format import tensor, values, write_cases

rng = np.random.default_rng(20261126)
NP = {"FLOAT32": np.float32, "FLOAT16": np.float16}
TYPES = ["FLOAT32", "FLOAT16"]
TOL = {"FLOAT32": {"ulps": 8, "absolute": 1e-5}, "FLOAT16": {"ulps": 4, "absolute": 2e-3}}


def rnd(dtype, shape, scale=2.0, offset=0.0):
    return (rng.standard_normal(shape) * scale + offset).astype(NP[dtype])


def positive(dtype, shape):
    return rng.uniform(0.5, 2.0, shape).astype(NP[dtype])


def strided_memory(logical, strides):
    shape = logical.shape
    length = 1 + sum((s - 1) * st for s, st in zip(shape, strides))
    memory = np.zeros(length, dtype=logical.dtype)
    index = np.indices(shape).reshape(len(shape), -1)
    offsets = sum(index[d] * strides[d] for d in range(len(shape)))
    memory[offsets] = logical.ravel()
    return memory


def relu(y):
    return np.maximum(y, 0)


def leaky(y):
    return np.where(y >= 0, y, 0.1 * y)


ACTIVATIONS = {None: (None, lambda y: y),
               "relu": ({"type": "DML_OPERATOR_ACTIVATION_RELU"}, relu),
               "leaky": ({"type": "DML_OPERATOR_ACTIVATION_LEAKY_RELU", "Alpha": 0.1}, leaky)}


def make_case(name, op, dtype, x, want, extra_inputs, fields, activation=None, in_strides=None):
    desc = {"type": f"DML_OPERATOR_{op}", "InputTensor": tensor(dtype, x.shape, in_strides)}
    inputs = {"InputTensor": values(x.ravel() if in_strides is None else strided_memory(x, in_strides), dtype)}
    for field, arr in extra_inputs.items():
        desc[field] = tensor(dtype, arr.shape)
        inputs[field] = values(arr, dtype)
    desc["OutputTensor"] = tensor(dtype, x.shape)
    desc.update(fields)
    fused, _ = ACTIVATIONS[activation]
    if fused:
        desc["FusedActivation"] = fused
    with np.errstate(all="ignore"):
        out = want.astype(NP[dtype])
    return {"name": f"{name}_{dtype}", "operator": desc, "inputs": inputs,
            "outputs": {"OutputTensor": {"values": values(out, dtype), **TOL[dtype]}}}


def mvn_reference(x, axes, use_mean, use_variance, eps, scale, bias, activation):
    v = x.astype(np.float64)
    axes = tuple(axes)
    mean = v.mean(axis=axes, keepdims=True) if use_mean else 0.0
    y = v - mean
    if use_variance:
        y = y / np.sqrt((y * y).mean(axis=axes, keepdims=True) + eps)
    if scale is not None:
        y = y * scale.astype(np.float64)
    if bias is not None:
        y = y + bias.astype(np.float64)
    return ACTIVATIONS[activation][1](y)


cases = []

# ---- BATCH_NORMALIZATION ---------------------------------------------------------------------------
for dtype in TYPES:
    # (input shape, statistics shape, Spatial, activation, strided input)
    for shape, stat, spatial, act, strided in [
            ((2, 3, 4, 5), (1, 3, 1, 1), True, None, False),
            ((2, 3, 4, 5), (1, 3, 4, 5), False, "relu", False),
            ((1, 4, 3, 3), (1, 4, 1, 1), True, "leaky", True),
            ((2, 3, 2, 2, 2), (1, 3, 1, 1, 1), True, None, False),
            ((3, 5), (1, 5), True, "relu", False)]:
        x = rnd(dtype, shape, 2.0, 0.5)
        mean, var = rnd(dtype, stat, 0.5), positive(dtype, stat)
        scale, bias = rnd(dtype, stat, 1.0), rnd(dtype, stat, 1.0)
        eps = 1e-3
        y = (x.astype(np.float64) - mean) / np.sqrt(var.astype(np.float64) + eps) * scale + bias
        want = ACTIVATIONS[act][1](y)
        strides = None
        if strided:  # channels last in memory
            strides = [shape[1] * shape[2] * shape[3], 1, shape[3] * shape[1], shape[1]]
        name = f"BATCH_NORMALIZATION_{'x'.join(map(str, shape))}_stats{'x'.join(map(str, stat))}"
        name += f"{'_act_' + act if act else ''}{'_strided' if strided else ''}"
        cases.append(make_case(name, "BATCH_NORMALIZATION", dtype, x, want,
                               {"MeanTensor": mean, "VarianceTensor": var, "ScaleTensor": scale, "BiasTensor": bias},
                               {"Spatial": spatial, "Epsilon": eps}, act, strides))

# ---- BATCH_NORMALIZATION_TRAINING: statistics over the dimensions where Scale has size 1 -----------
for dtype in TYPES:
    for shape, stat, fused_add, act in [((2, 3, 4, 5), (1, 3, 1, 1), False, None),
                                        ((2, 3, 4, 5), (1, 3, 1, 1), True, "relu"),
                                        ((4, 6), (1, 6), False, "leaky"),
                                        ((2, 3, 2, 4), (1, 3, 2, 1), True, None)]:
        x = rnd(dtype, shape, 2.0, 1.0)
        scale, bias = rnd(dtype, stat, 1.0), rnd(dtype, stat, 1.0)
        axes = tuple(d for d in range(len(shape)) if stat[d] == 1)
        v = x.astype(np.float64)
        mean = v.mean(axis=axes, keepdims=True)
        var = ((v - mean) ** 2).mean(axis=axes, keepdims=True)
        eps = 1e-3
        y = (v - mean) / np.sqrt(var + eps) * scale + bias
        inputs = {"ScaleTensor": scale, "BiasTensor": bias}
        if fused_add:
            add = rnd(dtype, shape, 1.0)
            inputs["FusedAddTensor"] = add
            y = y + add
        want = ACTIVATIONS[act][1](y)
        name = f"BATCH_NORMALIZATION_TRAINING_{'x'.join(map(str, shape))}_stats{'x'.join(map(str, stat))}"
        name += f"{'_add' if fused_add else ''}{'_act_' + act if act else ''}"
        c = make_case(name, "BATCH_NORMALIZATION_TRAINING", dtype, x, want, inputs, {"Epsilon": eps}, act)
        # The statistics outputs follow OutputTensor, in the desc's field order.
        op = c["operator"]
        fused_desc = op.pop("FusedActivation", None)
        epsilon = op.pop("Epsilon")
        op["OutputMeanTensor"] = tensor(dtype, stat)
        op["OutputVarianceTensor"] = tensor(dtype, stat)
        op["Epsilon"] = epsilon
        if fused_desc:
            op["FusedActivation"] = fused_desc
        c["outputs"]["OutputMeanTensor"] = {"values": values(mean.astype(NP[dtype]), dtype), **TOL[dtype]}
        c["outputs"]["OutputVarianceTensor"] = {"values": values(var.astype(NP[dtype]), dtype), **TOL[dtype]}
        cases.append(c)

# ---- BATCH_NORMALIZATION_GRAD: statistics held fixed, sums over the dimensions where Scale is 1 ---
for dtype in TYPES:
    for shape, stat in [((2, 3, 4, 5), (1, 3, 1, 1)), ((4, 6), (1, 6)), ((2, 3, 2, 4), (1, 3, 2, 1))]:
        x = rnd(dtype, shape, 2.0, 1.0)
        dy = rnd(dtype, shape, 1.0)
        mean, var, scale = rnd(dtype, stat, 0.5), positive(dtype, stat), rnd(dtype, stat, 1.0)
        eps = 1e-3
        axes = tuple(d for d in range(len(shape)) if stat[d] == 1)
        v, g = x.astype(np.float64), dy.astype(np.float64)
        k = 1.0 / np.sqrt(var.astype(np.float64) + eps)
        grad_in = g * scale * k
        grad_scale = (g * (v - mean) * k).sum(axis=axes, keepdims=True)
        grad_bias = g.sum(axis=axes, keepdims=True)
        name = f"BATCH_NORMALIZATION_GRAD_{'x'.join(map(str, shape))}_stats{'x'.join(map(str, stat))}"
        desc = {"type": "DML_OPERATOR_BATCH_NORMALIZATION_GRAD", "InputTensor": tensor(dtype, shape),
                "InputGradientTensor": tensor(dtype, shape), "MeanTensor": tensor(dtype, stat),
                "VarianceTensor": tensor(dtype, stat), "ScaleTensor": tensor(dtype, stat),
                "OutputGradientTensor": tensor(dtype, shape), "OutputScaleGradientTensor": tensor(dtype, stat),
                "OutputBiasGradientTensor": tensor(dtype, stat), "Epsilon": eps}
        # Sums of up to 40 terms: FLOAT16 results round once, after float32 sums.
        sum_tol = {"FLOAT32": {"ulps": 8, "absolute": 1e-4}, "FLOAT16": {"ulps": 4, "absolute": 2e-2}}[dtype]
        cases.append({"name": f"{name}_{dtype}", "operator": desc,
                      "inputs": {"InputTensor": values(x, dtype), "InputGradientTensor": values(dy, dtype),
                                 "MeanTensor": values(mean, dtype), "VarianceTensor": values(var, dtype),
                                 "ScaleTensor": values(scale, dtype)},
                      "outputs": {"OutputGradientTensor": {"values": values(grad_in.astype(NP[dtype]), dtype),
                                                           **TOL[dtype]},
                                  "OutputScaleGradientTensor": {"values": values(grad_scale.astype(NP[dtype]), dtype),
                                                                **sum_tol},
                                  "OutputBiasGradientTensor": {"values": values(grad_bias.astype(NP[dtype]), dtype),
                                                               **sum_tol}}})

# ---- BATCH_NORMALIZATION_TRAINING_GRAD: Mean and Variance from the forward pass (the input's own) ----
for dtype in TYPES:
    for shape, stat in [((2, 3, 4, 5), (1, 3, 1, 1)), ((5, 6), (1, 6)), ((2, 3, 2, 4), (1, 3, 2, 1))]:
        x = rnd(dtype, shape, 2.0, 1.0)
        dy = rnd(dtype, shape, 1.0)
        axes = tuple(d for d in range(len(shape)) if stat[d] == 1)
        v, g = x.astype(np.float64), dy.astype(np.float64)
        # The statistics as BATCH_NORMALIZATION_TRAINING writes them, rounded to the data type.
        mean = v.mean(axis=axes, keepdims=True).astype(NP[dtype])
        var = ((v - v.mean(axis=axes, keepdims=True)) ** 2).mean(axis=axes, keepdims=True).astype(NP[dtype])
        scale = rnd(dtype, stat, 1.0)
        eps = 1e-3
        m = lambda a: a.mean(axis=axes, keepdims=True)  # noqa: E731
        k = 1.0 / np.sqrt(var.astype(np.float64) + eps)
        xc = v - m(v)
        grad_in = scale * k * ((g - m(g)) - xc * m(g * xc) * k * k)
        grad_scale = (g * (v - mean) * k).sum(axis=axes, keepdims=True)
        grad_bias = g.sum(axis=axes, keepdims=True)
        name = f"BATCH_NORMALIZATION_TRAINING_GRAD_{'x'.join(map(str, shape))}_stats{'x'.join(map(str, stat))}"
        desc = {"type": "DML_OPERATOR_BATCH_NORMALIZATION_TRAINING_GRAD", "InputTensor": tensor(dtype, shape),
                "InputGradientTensor": tensor(dtype, shape), "MeanTensor": tensor(dtype, stat),
                "VarianceTensor": tensor(dtype, stat), "ScaleTensor": tensor(dtype, stat),
                "OutputGradientTensor": tensor(dtype, shape), "OutputScaleGradientTensor": tensor(dtype, stat),
                "OutputBiasGradientTensor": tensor(dtype, stat), "Epsilon": eps}
        sum_tol = {"FLOAT32": {"ulps": 8, "absolute": 1e-4}, "FLOAT16": {"ulps": 4, "absolute": 2e-2}}[dtype]
        grad_tol = {"FLOAT32": {"ulps": 16, "absolute": 1e-5}, "FLOAT16": {"ulps": 4, "absolute": 4e-3}}[dtype]
        cases.append({"name": f"{name}_{dtype}", "operator": desc,
                      "inputs": {"InputTensor": values(x, dtype), "InputGradientTensor": values(dy, dtype),
                                 "MeanTensor": values(mean, dtype), "VarianceTensor": values(var, dtype),
                                 "ScaleTensor": values(scale, dtype)},
                      "outputs": {"OutputGradientTensor": {"values": values(grad_in.astype(NP[dtype]), dtype),
                                                           **grad_tol},
                                  "OutputScaleGradientTensor": {"values": values(grad_scale.astype(NP[dtype]), dtype),
                                                                **sum_tol},
                                  "OutputBiasGradientTensor": {"values": values(grad_bias.astype(NP[dtype]), dtype),
                                                               **sum_tol}}})

# ---- MEAN_VARIANCE_NORMALIZATION -------------------------------------------------------------------
for dtype in TYPES:
    for cross, normvar, with_sb, act in [(True, True, True, None), (False, True, True, "relu"),
                                         (False, False, False, None), (True, True, False, "leaky")]:
        shape = (2, 3, 4, 5)
        x = rnd(dtype, shape, 3.0, 1.0)
        sb = {}
        scale = bias = None
        if with_sb:
            scale, bias = rnd(dtype, (1, 3, 1, 1), 1.0), rnd(dtype, (1, 3, 1, 1), 1.0)
            sb = {"ScaleTensor": scale, "BiasTensor": bias}
        axes = (1, 2, 3) if cross else (2, 3)
        want = mvn_reference(x, axes, True, normvar, 1e-5, scale, bias, act)
        name = f"MEAN_VARIANCE_NORMALIZATION_cross{int(cross)}_var{int(normvar)}_sb{int(with_sb)}"
        name += f"{'_act_' + act if act else ''}"
        cases.append(make_case(name, "MEAN_VARIANCE_NORMALIZATION", dtype, x, want, sb,
                               {"CrossChannel": cross, "NormalizeVariance": normvar, "Epsilon": 1e-5}, act))

# ---- MEAN_VARIANCE_NORMALIZATION1: several axis sets, scale/bias broadcast, layer norm rows of 300, 2048
for dtype in TYPES:
    for shape, axes, sb_shape, act, strided in [
            ((2, 3, 4), [2], (1, 1, 4), None, False),
            ((2, 3, 4), [0, 2], (1, 3, 1), "relu", False),
            ((2, 3, 4, 5), [3, 1], None, None, False),
            ((3, 300), [1], (1, 300), None, False),
            ((2, 3, 4), [1, 2], (2, 3, 4), "leaky", True),
            ((5,), [0], None, None, False),
            ((2, 2048), [1], (1, 2048), "relu", False)]:  # rows of several 16-byte chunks per thread
        x = rnd(dtype, shape, 2.0, 3.0)
        scale = bias = None
        sb = {}
        if sb_shape:
            scale, bias = rnd(dtype, sb_shape, 1.0), rnd(dtype, sb_shape, 1.0)
            sb = {"ScaleTensor": scale, "BiasTensor": bias}
        strides = None
        if strided:  # the last two dimensions transposed in memory
            strides = [shape[1] * shape[2], 1, shape[1]]
        want = mvn_reference(x, axes, True, True, 1e-5, scale, bias, act)
        name = f"MEAN_VARIANCE_NORMALIZATION1_{'x'.join(map(str, shape))}_axes{''.join(map(str, axes))}"
        name += f"{'_sb' if sb else ''}{'_act_' + act if act else ''}{'_strided' if strided else ''}"
        cases.append(make_case(name, "MEAN_VARIANCE_NORMALIZATION1", dtype, x, want, sb,
                               {"Axes": axes, "NormalizeVariance": True, "Epsilon": 1e-5}, act, strides))

# ---- MEAN_VARIANCE_NORMALIZATION2: UseMean/UseVariance, scale only or bias only, axes ------------
for dtype in TYPES:
    for shape, axes, use_mean, use_var, which, act in [
            ((2, 3, 8), [2], True, True, "both", None),
            ((2, 3, 8), [2], False, True, "scale", None),  # RMS normalization
            ((2, 3, 8), [1, 2], True, False, "bias", "relu"),
            ((2, 4, 3), [0, 1], False, False, "none", None),
            ((2, 3, 4, 2), [1, 3], True, True, "both", "leaky")]:
        x = rnd(dtype, shape, 2.0, 1.0)
        sb_shape = tuple(1 if d in axes and d != axes[-1] else shape[d] for d in range(len(shape)))
        sb_shape = tuple(s if d in axes else 1 for d, s in enumerate(sb_shape))
        scale = rnd(dtype, sb_shape, 1.0) if which in ("both", "scale") else None
        bias = rnd(dtype, sb_shape, 1.0) if which in ("both", "bias") else None
        sb = {k: v for k, v in (("ScaleTensor", scale), ("BiasTensor", bias)) if v is not None}
        want = mvn_reference(x, axes, use_mean, use_var, 1e-4, scale, bias, act)
        name = f"MEAN_VARIANCE_NORMALIZATION2_{'x'.join(map(str, shape))}_axes{''.join(map(str, axes))}"
        name += f"_mean{int(use_mean)}_var{int(use_var)}_{which}{'_act_' + act if act else ''}"
        cases.append(make_case(name, "MEAN_VARIANCE_NORMALIZATION2", dtype, x, want, sb,
                               {"Axes": axes, "UseMean": use_mean, "UseVariance": use_var, "Epsilon": 1e-4}, act))

# ---- LOCAL_RESPONSE_NORMALIZATION ------------------------------------------------------------------


def lrn_reference(x, cross, size, alpha, beta, bias):
    v = x.astype(np.float64)
    n, c, h, w = v.shape
    before, after = (size - 1) // 2, size // 2
    sq = v * v
    total = np.zeros_like(v)
    for ci in range(c):
        for hi in range(h):
            for wi in range(w):
                if cross:
                    lo, hi_ = max(0, ci - before), min(c - 1, ci + after)
                    total[:, ci, hi, wi] = sq[:, lo:hi_ + 1, hi, wi].sum(axis=1)
                else:
                    h0, h1 = max(0, hi - before), min(h - 1, hi + after)
                    w0, w1 = max(0, wi - before), min(w - 1, wi + after)
                    total[:, ci, hi, wi] = sq[:, ci, h0:h1 + 1, w0:w1 + 1].sum(axis=(1, 2))
    return v / (bias + alpha / size * total) ** beta


for dtype in TYPES:
    for cross, size, alpha, beta, bias in [(True, 3, 0.5, 0.75, 1.0), (True, 4, 1.0, 0.5, 2.0),
                                           (False, 3, 0.2, 0.75, 1.0), (False, 2, 0.5, 1.0, 0.5)]:
        shape = (2, 5, 3, 4)
        x = rnd(dtype, shape, 1.5)
        want = lrn_reference(x, cross, size, alpha, beta, bias)
        name = f"LOCAL_RESPONSE_NORMALIZATION_cross{int(cross)}_size{size}"
        cases.append(make_case(name, "LOCAL_RESPONSE_NORMALIZATION", dtype, x, want, {},
                               {"CrossChannel": cross, "LocalSize": size, "Alpha": alpha, "Beta": beta,
                                "Bias": bias}))

# ---- LOCAL_RESPONSE_NORMALIZATION_GRAD: the vector-Jacobian product of the forward formula -------


def lrn_grad_reference(x, g, cross, size, alpha, beta, bias):
    """Scatters each output's derivative onto the inputs of its window (dy_i/dx_j for j in W(i))."""
    v, gv = x.astype(np.float64), g.astype(np.float64)
    n, c, h, w = v.shape
    before, after = (size - 1) // 2, size // 2
    dx = np.zeros_like(v)
    for b in range(n):
        for ci in range(c):
            for hi in range(h):
                for wi in range(w):
                    if cross:
                        window = [(k, hi, wi) for k in range(max(0, ci - before), min(c - 1, ci + after) + 1)]
                    else:
                        window = [(ci, a, z) for a in range(max(0, hi - before), min(h - 1, hi + after) + 1)
                                  for z in range(max(0, wi - before), min(w - 1, wi + after) + 1)]
                    d = bias + alpha / size * sum(v[b, k, a, z] ** 2 for k, a, z in window)
                    gi, xi = gv[b, ci, hi, wi], v[b, ci, hi, wi]
                    dx[b, ci, hi, wi] += gi * d ** -beta
                    for k, a, z in window:
                        dx[b, k, a, z] -= gi * xi * beta * d ** (-beta - 1) * alpha / size * 2 * v[b, k, a, z]
    return dx


for dtype in TYPES:
    for cross, size, alpha, beta, bias in [(True, 3, 0.5, 0.75, 1.0), (True, 4, 1.0, 0.5, 2.0),
                                           (False, 3, 0.2, 0.75, 1.0), (False, 2, 0.5, 1.0, 0.5)]:
        shape = (2, 4, 3, 3)
        x = rnd(dtype, shape, 1.5)
        g = rnd(dtype, shape, 1.0)
        want = lrn_grad_reference(x, g, cross, size, alpha, beta, bias)
        name = f"LOCAL_RESPONSE_NORMALIZATION_GRAD_cross{int(cross)}_size{size}"
        desc = {"type": "DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD", "InputTensor": tensor(dtype, shape),
                "InputGradientTensor": tensor(dtype, shape), "OutputGradientTensor": tensor(dtype, shape),
                "CrossChannel": cross, "LocalSize": size, "Alpha": alpha, "Beta": beta, "Bias": bias}
        tol = {"FLOAT32": {"ulps": 16, "absolute": 1e-5}, "FLOAT16": {"ulps": 4, "absolute": 4e-3}}[dtype]
        cases.append({"name": f"{name}_{dtype}", "operator": desc,
                      "inputs": {"InputTensor": values(x, dtype), "InputGradientTensor": values(g, dtype)},
                      "outputs": {"OutputGradientTensor": {"values": values(want.astype(NP[dtype]), dtype), **tol}}})

# ---- LP_NORMALIZATION ------------------------------------------------------------------------------
for dtype in TYPES:
    for shape, axis, p, zero_row in [((2, 3, 4), 2, 2, False), ((2, 3, 4), 1, 1, False), ((4, 6), 0, 2, False),
                                     ((3, 4), 1, 2, True), ((2, 3, 2, 2), 1, 1, True)]:
        x = rnd(dtype, shape, 2.0)
        if zero_row:  # a line of zeros: the norm is below epsilon
            x[(0,) * (len(shape) - 1 if axis == len(shape) - 1 else 1)] = 0
        v = x.astype(np.float64)
        norm = np.abs(v).sum(axis=axis, keepdims=True) if p == 1 else np.sqrt((v * v).sum(axis=axis, keepdims=True))
        want = v / np.maximum(norm, 1e-5)
        name = f"LP_NORMALIZATION_{'x'.join(map(str, shape))}_axis{axis}_p{p}{'_zeros' if zero_row else ''}"
        cases.append(make_case(name, "LP_NORMALIZATION", dtype, x, want, {}, {"Axis": axis, "Epsilon": 1e-5, "P": p}))

write_cases(__file__, "normalization_operators", cases)

#!/usr/bin/env python3
"""Expected outputs of the example models, computed with numpy, independently of FreeDML.

    python3 models/expected/generate.py

reads each model's initial values, computes in float64 what its print commands must show (the
operator semantics are written out here with numpy, never taken from FreeDML), and writes
models/expected/<model>.json:

    {"resources": {"Out": [...]}, "rtol": ..., "atol": ..., "files": {...}, "lines": [...]}

tests/dmlrun/run_model.py compares dmlrun's printed values with these. The script also writes the
.npy inputs of npy_input.json (models/data/).
"""
import json
import pathlib

import numpy as np

MODELS = pathlib.Path(__file__).resolve().parent.parent
EXPECTED = MODELS / "expected"
DTYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16, "FLOAT64": np.float64, "INT32": np.int32,
          "UINT32": np.uint32, "INT8": np.int8, "UINT8": np.uint8, "INT16": np.int16, "UINT16": np.uint16,
          "INT64": np.int64, "UINT64": np.uint64}


def write_inputs():
    data = MODELS / "data"
    data.mkdir(exist_ok=True)
    np.save(data / "samples.npy", np.array([[1.5, -2.0, 3.25], [0.0, 10.0, -0.125]], dtype=np.float32))
    np.save(data / "offsets.npy", np.array([100.0, -100.0, 0.5], dtype=np.float32))


def initial_values(model, name):
    """The initial values of a resource, as the model defines them (arrays, constants, sequences, .npy)."""
    resource = model["resources"][name]
    values = resource["initialValues"]
    if isinstance(values, dict) and "sourcePath" in values:
        return np.load(MODELS / values["sourcePath"]).ravel()
    dtype = DTYPES[resource["initialValuesDataType"].replace("DML_TENSOR_DATA_TYPE_", "")]
    if isinstance(values, list):
        return np.array(values, dtype=dtype)
    count = values["valueCount"]
    if "value" in values:
        return np.full(count, values["value"], dtype=dtype)
    # A sequence; the models use steps that are exact in their type, so start + i * delta is what
    # repeated addition gives.
    return (values["valueStart"] + values["valueDelta"] * np.arange(count)).astype(dtype)


def f64(model, name, shape=None):
    values = initial_values(model, name).astype(np.float64)
    return values.reshape(shape) if shape else values


def gemm(a, b, c=None, trans_a=False, trans_b=False, alpha=1.0, beta=0.0):
    a = a.swapaxes(-1, -2) if trans_a else a
    b = b.swapaxes(-1, -2) if trans_b else b
    out = alpha * (a @ b)
    return out + beta * c if c is not None else out


def conv2d(x, w, bias=None, strides=(1, 1), dilations=(1, 1), start=(0, 0), end=(0, 0), groups=1, flip=False):
    """DirectML's forward CONVOLUTION: x {N, C, H, W}, w {M, C / groups, KH, KW}. CONVOLUTION mode
    flips the filter (rotates it by 180 degrees); CROSS_CORRELATION does not."""
    if flip:
        w = w[:, :, ::-1, ::-1]
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (start[0], end[0]), (start[1], end[1])))
    oh = (h + start[0] + end[0] - (dilations[0] * (kh - 1) + 1)) // strides[0] + 1
    ow = (wd + start[1] + end[1] - (dilations[1] * (kw - 1) + 1)) // strides[1] + 1
    out = np.zeros((n, m, oh, ow))
    mg = m // groups
    for b in range(n):
        for o in range(m):
            g = o // mg
            for y in range(oh):
                for xx in range(ow):
                    total = 0.0
                    for ci in range(cg):
                        for ky in range(kh):
                            for kx in range(kw):
                                total += (xp[b, g * cg + ci, y * strides[0] + ky * dilations[0],
                                             xx * strides[1] + kx * dilations[1]] * w[o, ci, ky, kx])
                    out[b, o, y, xx] = total
    if bias is not None:
        out += bias.reshape(1, m, 1, 1)
    return out


def conv_transpose2d(x, w, bias=None, strides=(1, 1), dilations=(1, 1), start=(0, 0), end=(0, 0),
                     output_padding=(0, 0), groups=1):
    """DirectML's BACKWARD CONVOLUTION in CROSS_CORRELATION mode, which is ONNX's ConvTranspose:
    x {N, C, H, W}, w {C, M / groups, KH, KW}; every input element scatters its filter times itself
    into the output at (i * stride + k * dilation - start padding)."""
    n, c, h, wd = x.shape
    _, mg, kh, kw = w.shape
    m = mg * groups
    cg = c // groups
    oh = (h - 1) * strides[0] + dilations[0] * (kh - 1) + 1 + output_padding[0] - start[0] - end[0]
    ow = (wd - 1) * strides[1] + dilations[1] * (kw - 1) + 1 + output_padding[1] - start[1] - end[1]
    out = np.zeros((n, m, oh, ow))
    for b in range(n):
        for ci in range(c):
            g = ci // cg
            for y in range(h):
                for xx in range(wd):
                    for mo in range(mg):
                        for ky in range(kh):
                            for kx in range(kw):
                                oy = y * strides[0] + ky * dilations[0] - start[0]
                                ox = xx * strides[1] + kx * dilations[1] - start[1]
                                if 0 <= oy < oh and 0 <= ox < ow:
                                    out[b, g * mg + mo, oy, ox] += x[b, ci, y, xx] * w[ci, mo, ky, kx]
    if bias is not None:
        out += bias.reshape(1, m, 1, 1)
    return out


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def relu(v):
    return np.maximum(v, 0.0)


# One function per model: {resource printed: values}, plus tolerances and written files.
def hello_directml(m):
    x = f64(m, "input")
    return {"input": x, "output": 2.0 * x + 0.5}


def element_wise_identity(m):
    return {"transposed": initial_values(m, "matrix").reshape(2, 3).T}


def element_wise_add(m):
    return {"Out": f64(m, "A", (2, 3)) + f64(m, "row", (1, 3))}


def element_wise_add1_fused(m):
    s = f64(m, "A") + f64(m, "B")
    return {"Out": np.where(s >= 0, s, 0.1 * s)}


def element_wise_math(m):
    x = f64(m, "x")
    return {"abs": np.abs(x), "sqrt": np.sqrt(np.abs(x)), "exp": np.exp(x), "square": x * x,
            "clipped": np.clip(x, -1.0, 2.5), "sequence": 10 - 3 * np.arange(6)}


def gemm_model(m):
    return {"Out": gemm(f64(m, "A", (2, 3)), f64(m, "B", (3, 4)))}


def gemm_transposed(m):
    out = gemm(f64(m, "A", (3, 2)), f64(m, "B", (4, 3)), f64(m, "bias", (1, 4)), True, True, 0.5, 2.0)
    return {"Out": relu(out)}


def gemm_owned_b(m):
    return {"Out": gemm(f64(m, "A", (2, 3)), f64(m, "weights", (3, 2)))}


def dml_owned_tensors(m):
    # DirectML's own example of this model documents the exact line it prints.
    return {"Out": f64(m, "A") + f64(m, "B")}, {"lines": ["Resource 'Out': 6, 10, -2"]}


def gemm_float16(m):
    out = gemm(f64(m, "A", (2, 4)), f64(m, "B", (4, 2)), f64(m, "C", (2, 2)), beta=1.0)
    return {"Out": out.astype(np.float16)}, {"rtol": 2e-3, "atol": 1e-3}


def convolution(m):
    return {"Out": conv2d(f64(m, "image", (1, 1, 4, 4)), f64(m, "filters", (2, 1, 3, 3)), f64(m, "bias"),
                          strides=(2, 2), start=(1, 1), end=(1, 1))}


def convolution_groups(m):
    return {"Out": conv2d(f64(m, "input", (1, 4, 3, 4)), f64(m, "filters", (2, 2, 2, 2)), dilations=(1, 2),
                          groups=2, flip=True)}


def convolution_backward(m):
    return {"Out": conv_transpose2d(f64(m, "input", (1, 2, 2, 2)), f64(m, "filters", (2, 1, 3, 3)), f64(m, "bias"),
                                    strides=(2, 2), start=(1, 1), end=(1, 1), output_padding=(1, 1))}


def join(m):
    ab = f64(m, "AB")
    parts = [ab[0:4].reshape(2, 2), f64(m, "C", (2, 1)), ab[4:10].reshape(2, 3)]
    return {"Out": np.concatenate(parts, axis=1)}


def scatter_nd(m):
    out = f64(m, "In", (4, 3)).copy()
    updates = f64(m, "Updates", (2, 3))
    for k, row in enumerate(f64(m, "Indices").astype(int)):
        out[row] = updates[k]
    return {"Out": out}


def chain(m):
    hidden = relu(gemm(f64(m, "x", (2, 3)), f64(m, "W1", (3, 4)), f64(m, "b1", (1, 4)), beta=1.0))
    logits = gemm(hidden, f64(m, "W2", (4, 2)))
    out = sigmoid(logits + f64(m, "skip", (2, 2)))
    files = {"chain_out.npy": {"dtype": "<f4", "shape": [2, 2], "values": out.ravel().tolist()}}
    return {"hidden": hidden, "logits": logits, "out": out}, {"files": files}


def dml_gemm_graph(m):
    # Beta 1 without a C tensor: the output is A x B alone.
    return {"output": gemm(f64(m, "A", (32, 32)), f64(m, "B", (32, 32)))}


def graph_mlp(m):
    b1 = np.array([0.5, -0.5, 1, -1], dtype=np.float64).reshape(1, 4)  # the graph's constant node
    hidden = relu(gemm(f64(m, "x", (2, 3)), f64(m, "W1", (3, 4)), b1, beta=1.0))
    logits = gemm(hidden, f64(m, "W2", (4, 2)))
    return {"logits": logits, "out": sigmoid(logits + f64(m, "skip", (2, 2)))}


def dml_serialized_graph(m):
    # serialized/write_graphs.py: W in serialized/layer_weights.bin, b held in the graph file.
    w = np.fromfile(MODELS / "serialized" / "layer_weights.bin", dtype="<f4").astype(np.float64).reshape(4, 3)
    b = np.array([0.5, -1.0, 2.0]).reshape(1, 3)
    t = gemm(f64(m, "X", (2, 4)), w, b, beta=1.0)
    return {"Y": 2.0 * np.where(t >= 0, t, 0.125 * t) - 1.0}


def npy_input(m):
    samples = f64(m, "samples", (2, 3))
    return {"samples": samples, "Out": samples + f64(m, "offsets", (1, 3))}


def dml_reduce(m):
    x = f64(m, "x", (3, 4))
    y = f64(m, "y", (3, 4))
    # ARGMAX with DECREASING ties: the last maximum of each column, i.e. the first from the end.
    last_max = (y.shape[0] - 1) - np.argmax(y[::-1], axis=0)
    return {"sum": x.sum(axis=1), "logSumExp": np.logaddexp.reduce(x.ravel()), "min": y.min(axis=1),
            "argmax": last_max}


def dml_cumulative_product(m):
    b = f64(m, "B", (2, 3))
    # Exclusive and from the end: each element gets the sum of those after it in its row.
    after = np.cumsum(b[:, ::-1], axis=1)[:, ::-1] - b
    return {"product": np.cumprod(f64(m, "A")), "reversedExclusive": after, "inPlace": np.cumsum(f64(m, "inPlace"))}


def dml_split(m):
    out1, out2, out3 = np.split(f64(m, "A"), 3)
    return {"Out1": out1, "Out2": out2, "Out3": out3}, {"rtol": 0, "atol": 0}


def dml_slice(m):
    grid = f64(m, "grid", (5, 5))
    return {"output": grid[1:4, 1:5:2]}, {"rtol": 0, "atol": 0}


def dml_upsample_2d(m):
    # Bilinear 2x with half-pixel centres: output coordinate o reads input (o + 0.5) / 2 - 0.5,
    # clamped to the grid; the result is the tensor product of the two 1-D interpolations.
    grid = f64(m, "input", (2, 2))
    x = np.clip((np.arange(4) + 0.5) / 2 - 0.5, 0, 1)
    w = np.stack([1 - x, x], axis=1)  # 4 x 2: weight of input 0 and input 1
    return {"output": w @ grid @ w.T}, {"rtol": 0, "atol": 0}


def dml_normalization(m):
    x = f64(m, "image", (1, 2, 2, 3))
    stat = {k: f64(m, k, (1, 2, 1, 1)) for k in ("mean", "variance", "scale", "bias")}
    y = stat["scale"] * (x - stat["mean"]) / np.sqrt(stat["variance"]) + stat["bias"]
    t = f64(m, "tokens", (3, 4))
    centered = t - t.mean(axis=1, keepdims=True)
    z = centered / np.sqrt((centered ** 2).mean(axis=1, keepdims=True) + 1e-5)
    return {"normalized": np.maximum(y, 0), "layerNorm": z * f64(m, "gamma", (1, 4)) + f64(m, "beta", (1, 4))}


def top_k(m):
    x = f64(m, "scores", (4, 4))
    # A stable sort keeps equal values in increasing index, as the TOP_K1 page asks.
    largest_at = np.argsort(-x, axis=1, kind="stable")[:, :3]
    smallest_at = np.argsort(x, axis=0, kind="stable")[:2, :]
    return {"largest": np.take_along_axis(x, largest_at, 1), "largestAt": largest_at,
            "smallest": np.take_along_axis(x, smallest_at, 0), "smallestAt": smallest_at}


def dml_max_pooling(m):
    x = f64(m, "x", (5, 5))
    padded = np.full((7, 7), -np.inf)
    padded[1:6, 1:6] = x
    inside = np.zeros((7, 7))
    inside[1:6, 1:6] = 1
    flat = np.full((7, 7), -1)
    flat[1:6, 1:6] = np.arange(25).reshape(5, 5)
    best, at, mean = np.zeros((3, 3)), np.zeros((3, 3)), np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            window = padded[2 * i:2 * i + 3, 2 * j:2 * j + 3]
            k = np.argmax(window)  # the first maximum in row-major window order
            best[i, j] = window.ravel()[k]
            at[i, j] = flat[2 * i:2 * i + 3, 2 * j:2 * j + 3].ravel()[k]
            count = inside[2 * i:2 * i + 3, 2 * j:2 * j + 3].sum()
            mean[i, j] = np.where(np.isinf(window), 0, window).sum() / count
    unpooled = np.zeros(25)
    unpooled[at.ravel().astype(int)] = best.ravel()
    return {"max": best, "maxAt": at, "unpooled": unpooled, "average": mean}


def lstm(m):
    """ONNX's LSTM written out (gates i, o, f, c; biases Wb then Rb), both directions."""
    x = f64(m, "x", (3, 2))
    w = f64(m, "w", (2, 8, 2))
    r = f64(m, "r", (2, 8, 2))
    b = f64(m, "bias", (2, 16))
    sig = lambda v: 1.0 / (1.0 + np.exp(-v))
    seq = np.zeros((3, 2, 1, 2))
    hidden = np.zeros((2, 2))
    cell = np.zeros((2, 2))
    for d in range(2):
        h = np.zeros(2)
        c = np.zeros(2)
        for t in (range(3) if d == 0 else range(2, -1, -1)):
            g = w[d] @ x[t] + r[d] @ h + b[d, :8] + b[d, 8:]
            i, o, f, cand = sig(g[0:2]), g[2:4], sig(g[4:6]), np.tanh(g[6:8])
            c = f * c + i * cand
            h = sig(o) * np.tanh(c)
            seq[t, d, 0] = h
        hidden[d], cell[d] = h, c
    return {"sequence": seq, "hidden": hidden, "cell": cell}


def roi_align(m):
    x = f64(m, "features", (1, 2, 4, 4))
    # ROI_ALIGN1 with ONNX RoiAlign's half_pixel settings: per axis ceil(size / 2) samples, sample k
    # of output cell j at x1 + (j * n + k + 0.5) * size / (2 * n) - 0.5, bilinear between pixel
    # centers at integer coordinates, clamped to the edge pixels (all samples here are inside).
    def bilinear(img, y, xx):
        y, xx = max(y, 0.0), max(xx, 0.0)
        y0, x0 = min(int(np.floor(y)), 3), min(int(np.floor(xx)), 3)
        y1, x1 = min(y0 + 1, 3), min(x0 + 1, 3)
        ly, lx = (y - y0 if y0 < 3 else 0.0), (xx - x0 if x0 < 3 else 0.0)
        return ((1 - ly) * ((1 - lx) * img[y0, x0] + lx * img[y0, x1]) +
                ly * ((1 - lx) * img[y1, x0] + lx * img[y1, x1]))
    boxes = f64(m, "boxes", (2, 4))
    aligned = np.zeros((2, 2, 2, 2))
    for r, (bx1, by1, bx2, by2) in enumerate(boxes):
        w, h = bx2 - bx1, by2 - by1
        nx, ny = int(np.ceil(w / 2)), int(np.ceil(h / 2))
        for c in range(2):
            for oy in range(2):
                for ox in range(2):
                    got = [bilinear(x[0, c], by1 + (oy * ny + ky + 0.5) * h / (2 * ny) - 0.5,
                                    bx1 + (ox * nx + kx + 0.5) * w / (2 * nx) - 0.5)
                           for ky in range(ny) for kx in range(nx)]
                    aligned[r, c, oy, ox] = np.mean(got)
    # ROI_POOLING: inclusive integer corners, bin j of a region of size S covers
    # [floor(j * S / 2), ceil((j + 1) * S / 2)) from the corner; the maximum.
    pooled = np.zeros((2, 2, 2, 2))
    for r, (b, bx1, by1, bx2, by2) in enumerate(f64(m, "pooledBoxes", (2, 5)).astype(int)):
        rw, rh = bx2 - bx1 + 1, by2 - by1 + 1
        for oy in range(2):
            ys, ye = by1 + oy * rh // 2, by1 + -(-(oy + 1) * rh // 2)
            for ox in range(2):
                xs, xe = bx1 + ox * rw // 2, bx1 + -(-(ox + 1) * rw // 2)
                pooled[r, :, oy, ox] = x[b, :, ys:ye, xs:xe].max(axis=(1, 2))
    return {"aligned": aligned, "pooled": pooled}


def adam_optimizer(m):
    """Two in-place steps of the DML_ADAM_OPTIMIZER_OPERATOR_DESC page's formula, the bias correction
    sqrt(1 - Beta2^T) / (1 - Beta1^T) with T = 1, then 2; the desc's FLOAT fields as float32."""
    desc = m["dispatchables"]["adam"]["desc"]
    lr, b1, b2, eps = (float(np.float32(desc[k])) for k in ("LearningRate", "Beta1", "Beta2", "Epsilon"))
    x, mom, var = f64(m, "weights"), f64(m, "firstMoment"), f64(m, "secondMoment")
    for t in (1, 2):
        g = f64(m, f"gradient{t}")
        mom = b1 * mom + (1 - b1) * g
        var = b2 * var + (1 - b2) * g * g
        x = x - lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * mom / (np.sqrt(var) + eps)
    return {"weights": x, "firstMoment": mom, "secondMoment": var}


def roi_align_grad(m):
    """ROI_ALIGN1's forward pass (half-pixel offsets, two samples per axis, bilinear, every sample
    inside the map and off pixel boundaries) written out, differentiated numerically: with respect
    to the features by its linearity, with respect to the box corners by central differences."""
    x = f64(m, "features", (4, 4))
    g = f64(m, "cropGradient", (2, 2, 2))
    boxes = f64(m, "boxes", (2, 4))

    def bilinear(img, y, xx):
        y0, x0 = int(np.floor(y)), int(np.floor(xx))
        y1, x1 = min(y0 + 1, 3), min(x0 + 1, 3)
        ly, lx = y - y0, xx - x0
        return ((1 - ly) * ((1 - lx) * img[y0, x0] + lx * img[y0, x1]) +
                ly * ((1 - lx) * img[y1, x0] + lx * img[y1, x1]))

    def loss(img, bx):
        total = 0.0
        for r, (bx1, by1, bx2, by2) in enumerate(bx):
            sx, sy = (bx2 - bx1) / 4, (by2 - by1) / 4  # 2 outputs x 2 samples per axis
            for oy in range(2):
                for ox in range(2):
                    got = [bilinear(img, by1 + (oy * 2 + ky + 0.5) * sy - 0.5, bx1 + (ox * 2 + kx + 0.5) * sx - 0.5)
                           for ky in range(2) for kx in range(2)]
                    total += g[r, oy, ox] * np.mean(got)
        return total

    features = np.zeros(16)
    for k in range(16):
        unit = np.zeros(16)
        unit[k] = 1.0
        features[k] = loss(unit.reshape(4, 4), boxes)
    h = 1e-6
    corners = np.zeros(8)
    for k in range(8):
        plus, minus = boxes.ravel().copy(), boxes.ravel().copy()
        plus[k] += h
        minus[k] -= h
        corners[k] = (loss(x, plus.reshape(2, 4)) - loss(x, minus.reshape(2, 4))) / (2 * h)
    return {"featureGradient": features, "boxGradient": corners}, {"rtol": 1e-4, "atol": 1e-5}


def dynamic_quantized_linear(m):
    """ONNX DynamicQuantizeLinear (UINT8: range widened to include 0, scale (max - min) / 255, zero
    point and values rounded half to even, saturated), in float32 as the operator computes it, then
    ONNX MatMulInteger in int64."""
    x = initial_values(m, "x").astype(np.float32)
    lo, hi = min(np.float32(0), x.min()), max(np.float32(0), x.max())
    scale = np.float32((hi - lo) / np.float32(255))
    zero = np.float32(np.rint(np.clip(np.float32(0) - np.float32(lo / scale), 0, 255)))
    xq = np.clip(np.rint((x / scale).astype(np.float32)) + zero, 0, 255).astype(np.int64)
    weights = initial_values(m, "weights").astype(np.int64).reshape(4, 3)
    sums = (xq.reshape(2, 4) - int(zero)) @ weights
    return {"xq": xq, "scale": [scale], "zeroPoint": [zero, 0, 0, 0], "sums": sums}, {"rtol": 1e-6, "atol": 0}


def attention(m):
    qkv = f64(m, "qkv", (4, 2, 3, 2))  # {token, head, query/key/value, channel}
    q, k, v = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]
    out = np.zeros((4, 2, 2))
    for h in range(2):
        s = 0.7071067690849304 * q[:, h] @ k[:, h].T
        s = s + np.where(np.tril(np.ones((4, 4))) == 0, -10000.0, 0.0)  # later tokens masked
        w = np.exp(s - s.max(axis=1, keepdims=True))
        out[:, h] = (w / w.sum(axis=1, keepdims=True)) @ v[:, h]
    return {"out": out, "presentKey": k.transpose(1, 0, 2)}


def philox4x32_10(counter, key):
    """Philox 4x32-10 from its paper (Salmon et al., SC 2011): ten rounds, the key bumped between them."""
    mask = 0xFFFFFFFF
    x0, x1, x2, x3 = counter
    k0, k1 = key
    for _ in range(10):
        p0, p1 = 0xD2511F53 * x0, 0xCD9E8D57 * x2
        x0, x1, x2, x3 = ((p1 >> 32) ^ x1 ^ k0) & mask, p1 & mask, ((p0 >> 32) ^ x3 ^ k1) & mask, p0 & mask
        k0, k1 = (k0 + 0x9E3779B9) & mask, (k1 + 0xBB67AE85) & mask
    return [x0, x1, x2, x3]


def generators(m):
    ids = initial_values(m, "ids").astype(np.int64)
    one_hot = np.zeros((4, 4))
    for row, i in enumerate(ids):
        i = i + 4 if i < 0 else i
        if 0 <= i < 4:
            one_hot[row, i] = 1
    mask = np.tril(np.ones((4, 4)))  # column - row in [-4, 1): on or below the diagonal
    state = [int(v) for v in initial_values(m, "state")]
    counter = sum(w << (32 * i) for i, w in enumerate(state[:4]))
    words = []
    for block in range(2):  # 6 outputs: two blocks of four words
        words += philox4x32_10([((counter + block) >> (32 * i)) & 0xFFFFFFFF for i in range(4)], state[4:])
    next_state = [((counter + 2) >> (32 * i)) & 0xFFFFFFFF for i in range(4)] + state[4:]
    return {"oneHot": one_hot, "mask": mask, "bits": words[:6], "nextState": next_state}, {"rtol": 0, "atol": 0}


REFERENCES = {
    "hello_directml": hello_directml,
    "element_wise_identity": element_wise_identity,
    "element_wise_add": element_wise_add,
    "element_wise_add1_fused": element_wise_add1_fused,
    "element_wise_math": element_wise_math,
    "gemm": gemm_model,
    "gemm_transposed": gemm_transposed,
    "gemm_owned_b": gemm_owned_b,
    "gemm_float16": gemm_float16,
    "dml_owned_tensors": dml_owned_tensors,
    "convolution": convolution,
    "convolution_groups": convolution_groups,
    "convolution_backward": convolution_backward,
    "join": join,
    "scatter_nd": scatter_nd,
    "chain": chain,
    "graph_mlp": graph_mlp,
    "dml_serialized_graph": dml_serialized_graph,
    "npy_input": npy_input,
    "dml_reduce": dml_reduce,
    "dml_cumulative_product": dml_cumulative_product,
    "dml_slice": dml_slice,
    "dml_split": dml_split,
    "dml_upsample_2d": dml_upsample_2d,
    "dml_gemm_graph": dml_gemm_graph,
    "top_k": top_k,
    "dml_max_pooling": dml_max_pooling,
    "dml_normalization": dml_normalization,
    "roi_align": roi_align,
    "roi_align_grad": roi_align_grad,
    "adam_optimizer": adam_optimizer,
    "generators": generators,
    "lstm": lstm,
    "dynamic_quantized_linear": dynamic_quantized_linear,
    "attention": attention,
}


def main():
    write_inputs()
    models = sorted(p.stem for p in MODELS.glob("*.json"))
    missing = [name for name in models if name not in REFERENCES]
    if missing:
        raise SystemExit(f"no reference for {', '.join(missing)}: add one to {__file__}")
    for name in models:
        model = json.loads((MODELS / f"{name}.json").read_text())
        result = REFERENCES[name](model)
        outputs, extra = result if isinstance(result, tuple) else (result, {})
        expected = {
            "model": f"{name}.json",
            "resources": {key: np.asarray(value, dtype=np.float64).ravel().tolist() for key, value in outputs.items()},
            "rtol": extra.get("rtol", 1e-5),
            "atol": extra.get("atol", 1e-6),
        }
        for key in ("files", "lines"):
            if key in extra:
                expected[key] = extra[key]
        (EXPECTED / f"{name}.json").write_text(json.dumps(expected, indent=1) + "\n")
        print(f"wrote expected/{name}.json")


if __name__ == "__main__":
    main()

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


def top_k(m):
    x = f64(m, "scores", (4, 4))
    # A stable sort keeps equal values in increasing index, as the TOP_K1 page asks.
    largest_at = np.argsort(-x, axis=1, kind="stable")[:, :3]
    smallest_at = np.argsort(x, axis=0, kind="stable")[:2, :]
    return {"largest": np.take_along_axis(x, largest_at, 1), "largestAt": largest_at,
            "smallest": np.take_along_axis(x, smallest_at, 0), "smallestAt": smallest_at}


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
    "chain": chain,
    "graph_mlp": graph_mlp,
    "npy_input": npy_input,
    "dml_reduce": dml_reduce,
    "dml_cumulative_product": dml_cumulative_product,
    "dml_slice": dml_slice,
    "dml_split": dml_split,
    "dml_gemm_graph": dml_gemm_graph,
    "top_k": top_k,
    "generators": generators,
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

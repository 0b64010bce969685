"""ONNX Runtime's CPU provider on the CPU problems of sequence_bench.cpp (issue 20), under the same
names as its lines: the contrib MultiHeadAttention (com.microsoft; what ONNX Runtime's DirectML
provider maps to MULTIHEAD_ATTENTION) with Query, Key, Value {batch, sequence, 32 x 128}, the
causal case through its `unidirectional` attribute where this ONNX Runtime has it, else as an
additive attention bias of -10000 above the diagonal; and the ONNX LSTM (hidden 512, input 512,
batch 16, with bias, all three outputs). The models are built here, in memory. Times are the median
of 5 runs (3 with --quick), each of as many calls as fill 0.3 s
(0.05 s with --quick), after a timed warm-up.
    sequence_ort.py [--threads N] [--quick] [--only name,name...]
Prints one JSON object per line."""
import argparse
import json
import math
import os
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

parser = argparse.ArgumentParser()
parser.add_argument("--threads", type=int, default=os.cpu_count())
parser.add_argument("--quick", action="store_true")
parser.add_argument("--only", default="")
args = parser.parse_args()
run_seconds = 0.05 if args.quick else 0.3
runs = 3 if args.quick else 5
only = set(filter(None, args.only.split(",")))
rng = np.random.default_rng(5)


def session(model):
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def median_ms(fn):
    start = time.perf_counter()
    fn()  # the warm-up, timed to size the runs
    once = max(time.perf_counter() - start, 1e-7)
    reps = min(1000, max(1, int(run_seconds / once)))
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(reps):
            fn()
        times.append((time.perf_counter() - start) * 1e3 / reps)
    times.sort()
    return times[len(times) // 2]


def case(name, fn, flops, reference):
    if only and name not in only:
        return
    ms = median_ms(fn)
    print(json.dumps({"bench": "seq", "name": name, "type": "f32", "ms": ms, "gflops": flops / ms / 1e6,
                      "reference": reference}), flush=True)


def rand(*shape):
    # Multiples of 1/512 in [-1, 1), like api_bench.h.
    return (rng.integers(-512, 512, shape) / 512).astype(np.float32)


def model(nodes, inputs, outputs, opsets):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid(domain, v) for domain, v in opsets])
    m.ir_version = min(m.ir_version, 9)
    return m


heads, head_size = 32, 128
hidden = heads * head_size
sequence = 128 if args.quick else 512
flops = 4.0 * heads * sequence * sequence * head_size
q, k, v = rand(1, sequence, hidden), rand(1, sequence, hidden), rand(1, sequence, hidden)
info = lambda n, shape: helper.make_tensor_value_info(n, TensorProto.FLOAT, shape)
for causal in (False, True):
    name = f"attention_b1_s{sequence}" + ("_causal" if causal else "")
    if only and name not in only:
        continue
    common = dict(num_heads=heads, scale=1.0 / math.sqrt(head_size), mask_filter_value=-10000.0)
    opsets = [("", 17), ("com.microsoft", 1)]
    outputs = [info("out", [1, sequence, hidden])]
    inputs = [info("q", [1, sequence, hidden]), info("k", [1, sequence, hidden]), info("v", [1, sequence, hidden])]
    feeds = {"q": q, "k": k, "v": v}
    run = None
    if causal:
        try:  # the attribute, where this ONNX Runtime has it
            node = helper.make_node("MultiHeadAttention", ["q", "k", "v"], ["out"], domain="com.microsoft",
                                    unidirectional=1, **common)
            s = session(model([node], inputs, outputs, opsets))
            s.run(None, feeds)
            run, how = (lambda: s.run(None, feeds)), "unidirectional=1"
        except Exception:  # noqa: BLE001 - an older ONNX Runtime: the bias instead
            run = None
        if run is None:
            bias = np.triu(np.full((sequence, sequence), -10000.0, np.float32), 1).reshape(1, 1, sequence, sequence)
            node = helper.make_node("MultiHeadAttention", ["q", "k", "v", "", "", "bias"], ["out"],
                                    domain="com.microsoft", **common)
            s = session(model([node], inputs + [info("bias", [1, 1, sequence, sequence])], outputs, opsets))
            feeds_b = dict(feeds, bias=bias)
            run, how = (lambda: s.run(None, feeds_b)), "additive attention bias"
        reference = f"ONNX Runtime MultiHeadAttention (com.microsoft, {how})"
    else:
        node = helper.make_node("MultiHeadAttention", ["q", "k", "v"], ["out"], domain="com.microsoft", **common)
        s = session(model([node], inputs, outputs, opsets))
        run, reference = (lambda: s.run(None, feeds)), "ONNX Runtime MultiHeadAttention (com.microsoft)"
    case(name, run, flops, reference)

steps, batch, size, cells = (16 if args.quick else 128), 16, 512, 512
name = f"lstm_h512_s{steps}_b16"
if not only or name in only:
    weights = [helper.make_tensor("W", TensorProto.FLOAT, [1, 4 * cells, size], rand(1, 4 * cells, size).ravel()),
               helper.make_tensor("R", TensorProto.FLOAT, [1, 4 * cells, cells], rand(1, 4 * cells, cells).ravel()),
               helper.make_tensor("B", TensorProto.FLOAT, [1, 8 * cells], rand(1, 8 * cells).ravel())]
    node = helper.make_node("LSTM", ["x", "W", "R", "B"], ["y", "y_h", "y_c"], hidden_size=cells)
    graph = helper.make_graph([node], "lstm", [info("x", [steps, batch, size])],
                              [info("y", [steps, 1, batch, cells]), info("y_h", [1, batch, cells]),
                               info("y_c", [1, batch, cells])], initializer=weights)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = min(m.ir_version, 9)
    s = session(m)
    x = rand(steps, batch, size)
    case(name, lambda: s.run(None, {"x": x}), 2.0 * steps * batch * 4 * cells * (size + cells), "ONNX Runtime LSTM")

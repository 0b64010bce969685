#!/usr/bin/env python3
"""Cross-checks generate_recurrent.py's float64 references against ONNX Runtime's RNN, LSTM and GRU.

Not part of the test suite (it needs onnxruntime and onnx, e.g. in a venv): it shows that the
references read ONNX's operators as ONNX Runtime does, for the options the conformance cases use
(every direction, biases, initial states, sequence lengths (0 included), peepholes, clip, input-forget
coupling, linear-before-reset both ways, non-default activations).

    python3 tests/conformance/crosscheck_recurrent_ort.py
"""
import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

from generate_recurrent import GATES, reference

ONNX_ACT = {"SIGMOID": "Sigmoid", "TANH": "Tanh", "RELU": "Relu", "LEAKY_RELU": "LeakyRelu", "ELU": "Elu",
            "HARD_SIGMOID": "HardSigmoid", "SCALED_TANH": "ScaledTanh", "SOFTSIGN": "Softsign", "LINEAR": "Affine"}
rng = np.random.default_rng(7)


def check(op, direction, seq=4, batch=3, inp=3, hid=5, lengths=None, peep=False, clip=None, couple=False, lbr=False,
          acts=None):
    g = GATES[op]
    dirs = 2 if direction == "BIDIRECTIONAL" else 1
    r32 = lambda *s: (rng.standard_normal(s) * 0.5).astype(np.float32)
    x, w, r, b = r32(seq, batch, inp), r32(dirs, g * hid, inp), r32(dirs, g * hid, hid), r32(dirs, 2 * g * hid)
    h0, c0, p = r32(dirs, batch, hid), r32(dirs, batch, hid), r32(dirs, 3 * hid)
    acts = acts or {"RNN": ["TANH"], "LSTM": ["SIGMOID", "TANH", "TANH"], "GRU": ["SIGMOID", "TANH"]}[op] * dirs
    f64 = lambda a: a.astype(np.float64)
    y, yh, yc = reference(op, f64(x), f64(w), f64(r), f64(b), f64(h0), f64(c0) if op == "LSTM" else None,
                          lengths, f64(p) if peep else None, direction, acts, clip, couple, lbr)

    names = ["X", "W", "R", "B", "sequence_lens", "initial_h"] + (["initial_c", "P"] if op == "LSTM" else [])
    feeds = {"X": x, "W": w, "R": r, "B": b, "initial_h": h0}
    if lengths is not None:
        feeds["sequence_lens"] = np.array(lengths, dtype=np.int32)
    if op == "LSTM":
        feeds["initial_c"] = c0
        if peep:
            feeds["P"] = p
    inputs = [n if n in feeds else "" for n in names]
    outputs = ["Y", "Y_h"] + (["Y_c"] if op == "LSTM" else [])
    attrs = {"hidden_size": hid, "direction": {"FORWARD": "forward", "BACKWARD": "reverse",
                                                "BIDIRECTIONAL": "bidirectional"}[direction],
             "activations": [ONNX_ACT[a if isinstance(a, str) else a[0]] for a in acts]}
    alphas = [a[1].get("Alpha") for a in acts if not isinstance(a, str) and "Alpha" in a[1]]
    betas = [a[1].get("Beta") for a in acts if not isinstance(a, str) and "Beta" in a[1]]
    if alphas:
        attrs["activation_alpha"] = alphas
    if betas:
        attrs["activation_beta"] = betas
    if clip is not None:
        attrs["clip"] = clip
    if op == "LSTM":
        attrs["input_forget"] = int(couple)
    if op == "GRU":
        attrs["linear_before_reset"] = int(lbr)
    node = helper.make_node(op, inputs, outputs, **attrs)
    vi = lambda n, a: helper.make_tensor_value_info(n, TensorProto.INT32 if a.dtype == np.int32 else TensorProto.FLOAT,
                                                    a.shape)
    graph = helper.make_graph([node], "g", [vi(n, feeds[n]) for n in names if n in feeds],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    got = session.run(None, feeds)
    want = [y, yh] + ([yc] if op == "LSTM" else [])
    worst = max(float(np.max(np.abs(g_ - w_))) for g_, w_ in zip(got, want))
    label = f"{op} {direction} lengths={lengths} peep={peep} clip={clip} couple={couple} lbr={lbr} acts={acts}"
    print(f"{'ok  ' if worst < 1e-5 else 'DIFF'} {worst:.2e}  {label}")
    return worst < 1e-5


results = [
    check("RNN", "FORWARD"),
    check("RNN", "BIDIRECTIONAL", lengths=[4, 1, 2], acts=["RELU", "SOFTSIGN"]),
    check("LSTM", "FORWARD"),
    check("LSTM", "BACKWARD", lengths=[4, 2, 3]),
    check("LSTM", "BIDIRECTIONAL", lengths=[4, 1, 2], peep=True),
    check("LSTM", "FORWARD", peep=True, clip=0.3),
    check("LSTM", "BIDIRECTIONAL", lengths=[4, 3, 2], peep=True, clip=0.8, couple=True),
    check("LSTM", "FORWARD", acts=[("HARD_SIGMOID", {"Alpha": 0.2, "Beta": 0.5}), ("ELU", {"Alpha": 0.7}),
                                   ("SCALED_TANH", {"Alpha": 1.5, "Beta": 0.8})]),
    check("GRU", "BIDIRECTIONAL", lengths=[4, 3, 1], lbr=False),
    check("GRU", "BIDIRECTIONAL", lengths=[4, 3, 1], lbr=True),
    check("GRU", "BACKWARD", acts=[("LEAKY_RELU", {"Alpha": 0.1}), "SOFTSIGN"]),
    check("RNN", "BIDIRECTIONAL", lengths=[4, 0, 2]),
    check("LSTM", "BIDIRECTIONAL", lengths=[4, 0, 2], peep=True),
    check("GRU", "BIDIRECTIONAL", lengths=[0, 3, 2], lbr=True),
]
raise SystemExit(0 if all(results) else 1)

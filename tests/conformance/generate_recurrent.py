#!/usr/bin/env python3
"""Conformance cases of RNN, LSTM and GRU, computed with numpy in float64.

Run once to (re)write cases/recurrent_rnn.json, recurrent_lstm.json and recurrent_gru.json. The
references are ONNX's RNN, LSTM and GRU formulas written out here step by step (gate orders
i, o, f, c and z, r, h; biases Wb then Rb; peepholes i, o, f), evaluated in float64 on the exact
input values and rounded once to the output type; FreeDML is never consulted
(crosscheck_recurrent_ort.py compares them with ONNX Runtime). DirectML's 4-D layout wraps them:
InputTensor {1, seq, batch, input}, WeightTensor {1, dirs, gates*hidden, input}, RecurrenceTensor
{1, dirs, gates*hidden, hidden}, BiasTensor {1, 1, dirs, 2*gates*hidden}, HiddenInitTensor and
CellMemInitTensor {1, dirs, batch, hidden}, SequenceLengthsTensor {1, 1, 1, batch}, PeepholeTensor
{1, 1, dirs, 3*hidden}, OutputSequenceTensor {seq, dirs, batch, hidden}, the single outputs
{1, dirs, batch, hidden}.

Semantics encoded: a batch row with sequence length L runs steps 0..L-1 (backward: L-1 down to 0);
its sequence output is zero at steps >= L and its single outputs hold the state after its last
step, zero for L = 0 (ONNX Runtime's reading; DirectML's pages do not say). LSTM's clip bounds
every gate's activation input (peephole and biases included) to [-clip, clip]; CoupleInputForget
makes the forget gate 1 - input gate.
"""
import numpy as np

from case_format import tensor, values, write_cases

rng = np.random.default_rng(20261125)
NP = {"FLOAT32": np.float32, "FLOAT16": np.float16}
GATES = {"RNN": 1, "LSTM": 4, "GRU": 3}
PER_DIR = {"RNN": 1, "LSTM": 3, "GRU": 2}
DEFAULT_ACTS = {"RNN": ["TANH"], "LSTM": ["SIGMOID", "TANH", "TANH"], "GRU": ["SIGMOID", "TANH"]}


def act_desc(a):
    name, params = (a, {}) if isinstance(a, str) else a
    return dict({"type": "DML_OPERATOR_ACTIVATION_" + name}, **params)


def act_fn(a):
    name, p = (a, {}) if isinstance(a, str) else a
    alpha, beta = p.get("Alpha", 0.0), p.get("Beta", 0.0)
    return {
        "RELU": lambda v: np.maximum(v, 0.0),
        "TANH": np.tanh,
        "SIGMOID": lambda v: 1.0 / (1.0 + np.exp(-v)),
        "LINEAR": lambda v: alpha * v + beta,
        "LEAKY_RELU": lambda v: np.where(v >= 0, v, alpha * v),
        "THRESHOLDED_RELU": lambda v: np.where(v > alpha, v, 0.0),
        "SCALED_TANH": lambda v: alpha * np.tanh(beta * v),
        "HARD_SIGMOID": lambda v: np.clip(alpha * v + beta, 0.0, 1.0),
        "ELU": lambda v: np.where(v > 0, v, alpha * np.expm1(v)),
        "SOFTSIGN": lambda v: v / (1.0 + np.abs(v)),
        "SOFTPLUS": lambda v: np.log1p(np.exp(p["Steepness"] * v)) / p["Steepness"],
    }[name]


def reference(op, x, w, r, b, h0, c0, lengths, peep, direction, acts, clip, couple, lbr):
    """x {seq, batch, in}; w {dirs, G*H, in}; r {dirs, G*H, H}; b {dirs, 2*G*H}; h0, c0 {dirs, batch, H};
    peep {dirs, 3H}. Returns y {seq, dirs, batch, H}, yh and yc {dirs, batch, H}."""
    seq, batch, _ = x.shape
    dirs = w.shape[0]
    hid = r.shape[2]
    y = np.zeros((seq, dirs, batch, hid))
    yh = np.zeros((dirs, batch, hid))
    yc = np.zeros((dirs, batch, hid))
    k = PER_DIR[op]
    for d in range(dirs):
        backward = direction == "BACKWARD" or d == 1
        f = [act_fn(a) for a in acts[d * k:(d + 1) * k]]
        g = GATES[op]
        wb = b[d, :g * hid] if b is not None else np.zeros(g * hid)
        rb = b[d, g * hid:] if b is not None else np.zeros(g * hid)
        cl = (lambda v: np.clip(v, -clip, clip)) if clip is not None else (lambda v: v)
        for n in range(batch):
            h = h0[d, n].copy() if h0 is not None else np.zeros(hid)
            c = c0[d, n].copy() if c0 is not None else np.zeros(hid)
            length = min(int(lengths[n]), seq) if lengths is not None else seq
            steps = range(length - 1, -1, -1) if backward else range(length)
            for t in steps:
                xt = x[t, n]
                if op == "RNN":
                    h = f[0](w[d] @ xt + r[d] @ h + wb + rb)
                elif op == "LSTM":
                    pre = w[d] @ xt + r[d] @ h + wb + rb
                    pi, po, pf = (0, 0, 0) if peep is None else (peep[d, :hid], peep[d, hid:2 * hid],
                                                                   peep[d, 2 * hid:])
                    i = f[0](cl(pre[:hid] + pi * c))
                    fg = 1.0 - i if couple else f[0](cl(pre[2 * hid:3 * hid] + pf * c))
                    cand = f[1](cl(pre[3 * hid:]))
                    c = fg * c + i * cand
                    o = f[0](cl(pre[hid:2 * hid] + po * c))
                    h = o * f[2](c)
                else:
                    wz, wr, wh = w[d][:hid], w[d][hid:2 * hid], w[d][2 * hid:]
                    rz, rr, rh = r[d][:hid], r[d][hid:2 * hid], r[d][2 * hid:]
                    z = f[0](wz @ xt + rz @ h + wb[:hid] + rb[:hid])
                    rs = f[0](wr @ xt + rr @ h + wb[hid:2 * hid] + rb[hid:2 * hid])
                    if lbr:
                        hh = f[1](wh @ xt + rs * (rh @ h + rb[2 * hid:]) + wb[2 * hid:])
                    else:
                        hh = f[1](wh @ xt + rh @ (rs * h) + rb[2 * hid:] + wb[2 * hid:])
                    h = (1.0 - z) * hh + z * h
                y[t, d, n] = h
            if length > 0:  # a row that ran no step keeps zero single outputs (ONNX Runtime's reading)
                yh[d, n] = h
                yc[d, n] = c
    return y, yh, yc


def make_case(name, op, dtype="FLOAT32", seq=3, batch=2, inp=3, hid=4, direction="FORWARD", bias=False, h0=False,
              c0=False, lengths=None, peep=False, acts=None, clip=None, couple=False, lbr=False,
              outputs=("OutputSequenceTensor", "OutputSingleTensor", "OutputCellSingleTensor"), batch_first=False):
    """batch_first: InputTensor and OutputSequenceTensor lie in memory batch-major (through strides)."""
    npt = NP[dtype]
    g = GATES[op]
    dirs = 2 if direction == "BIDIRECTIONAL" else 1
    acts = acts if acts is not None else DEFAULT_ACTS[op] * dirs

    def rand(*shape, scale=0.5):
        return (rng.standard_normal(shape) * scale).astype(npt).astype(np.float64)

    x = rand(seq, batch, inp, scale=1.0)
    w = rand(dirs, g * hid, inp)
    r = rand(dirs, g * hid, hid)
    b = rand(dirs, 2 * g * hid) if bias else None
    hi = rand(dirs, batch, hid) if h0 else None
    ci = rand(dirs, batch, hid) if c0 and op == "LSTM" else None
    pe = rand(dirs, 3 * hid) if peep else None
    y, yh, yc = reference(op, x, w, r, b, hi, ci, lengths, pe, direction, acts, clip, couple, lbr)

    desc = {"type": "DML_OPERATOR_" + op,
            "InputTensor": tensor(dtype, (1, seq, batch, inp),
                                  (seq * batch * inp, inp, seq * inp, 1) if batch_first else None),
            "WeightTensor": tensor(dtype, (1, dirs, g * hid, inp)),
            "RecurrenceTensor": tensor(dtype, (1, dirs, g * hid, hid)),
            "ActivationDescs": [act_desc(a) for a in acts],
            "Direction": "DML_RECURRENT_NETWORK_DIRECTION_" + direction}
    inputs = {"InputTensor": values(x.transpose(1, 0, 2) if batch_first else x, dtype),
              "WeightTensor": values(w, dtype), "RecurrenceTensor": values(r, dtype)}
    if b is not None:
        desc["BiasTensor"] = tensor(dtype, (1, 1, dirs, 2 * g * hid))
        inputs["BiasTensor"] = values(b, dtype)
    if hi is not None:
        desc["HiddenInitTensor"] = tensor(dtype, (1, dirs, batch, hid))
        inputs["HiddenInitTensor"] = values(hi, dtype)
    if ci is not None:
        desc["CellMemInitTensor"] = tensor(dtype, (1, dirs, batch, hid))
        inputs["CellMemInitTensor"] = values(ci, dtype)
    if lengths is not None:
        desc["SequenceLengthsTensor"] = tensor("UINT32", (1, 1, 1, batch))
        inputs["SequenceLengthsTensor"] = [int(v) for v in lengths]
    if pe is not None:
        desc["PeepholeTensor"] = tensor(dtype, (1, 1, dirs, 3 * hid))
        inputs["PeepholeTensor"] = values(pe, dtype)
    if op == "LSTM":
        desc.update({"ClipThreshold": float(clip) if clip is not None else 0.0, "UseClipThreshold": clip is not None,
                     "CoupleInputForget": couple})
    if op == "GRU":
        desc["LinearBeforeReset"] = lbr
    # float32 math over a few steps: a loose relative bound, and an absolute one near zero.
    tol = {"ulps": 256, "absolute": 2e-6} if dtype == "FLOAT32" else {"ulps": 8, "absolute": 2e-3}
    expected = {"OutputSequenceTensor": (y, (seq, dirs, batch, hid)), "OutputSingleTensor": (yh, (1, dirs, batch, hid)),
                "OutputCellSingleTensor": (yc, (1, dirs, batch, hid))}
    outs = {}
    for key in outputs:
        if key == "OutputCellSingleTensor" and op != "LSTM":
            continue
        data, shape = expected[key]
        strides = None
        if batch_first and key == "OutputSequenceTensor":
            strides = (dirs * hid, hid, seq * dirs * hid, 1)
        desc[key] = tensor(dtype, shape, strides)
        outs[key] = dict({"values": values(data.astype(npt), dtype)}, **tol)
    # The operators refuse OWNED_BY_DML on InputTensor, WeightTensor, RecurrenceTensor and BiasTensor;
    # the owned run flags the others.
    owned = [k for k in inputs if k not in ("InputTensor", "WeightTensor", "RecurrenceTensor", "BiasTensor")]
    return {"name": name, "operator": desc, "inputs": inputs, "outputs": outs, "ownedInputs": owned or False}


def main():
    cases = []
    for op in ("RNN", "LSTM", "GRU"):
        for dtype in ("FLOAT32", "FLOAT16"):
            cases.append(make_case(f"{op}_{dtype}_forward", op, dtype))
            cases.append(make_case(f"{op}_{dtype}_backward_bias_init", op, dtype, direction="BACKWARD", bias=True,
                                   h0=True, c0=True))
            cases.append(make_case(f"{op}_{dtype}_bidirectional_lengths", op, dtype, seq=4, batch=3,
                                   direction="BIDIRECTIONAL", bias=True, h0=True, c0=True, lengths=[4, 1, 2]))
        cases.append(make_case(f"{op}_FLOAT32_single_step", op, seq=1, batch=1, inp=2, hid=3, bias=True))
        cases.append(make_case(f"{op}_FLOAT32_lengths_past_sequence", op, seq=3, batch=2, lengths=[7, 2], bias=True,
                               outputs=("OutputSingleTensor",)))

    # Non-default activations, each of the ONNX set at least once.
    cases.append(make_case("RNN_FLOAT32_relu", "RNN", acts=["RELU"], bias=True))
    cases.append(make_case("RNN_FLOAT32_bidirectional_softsign_linear", "RNN", direction="BIDIRECTIONAL",
                           acts=["SOFTSIGN", ("LINEAR", {"Alpha": 0.5, "Beta": 0.25})], bias=True))
    cases.append(make_case("LSTM_FLOAT32_hard_sigmoid_elu_scaled_tanh", "LSTM", bias=True, h0=True, c0=True,
                           acts=[("HARD_SIGMOID", {"Alpha": 0.2, "Beta": 0.5}), ("ELU", {"Alpha": 0.7}),
                                 ("SCALED_TANH", {"Alpha": 1.5, "Beta": 0.8})]))
    cases.append(make_case("GRU_FLOAT32_leaky_relu_softplus", "GRU", bias=True, h0=True,
                           acts=[("LEAKY_RELU", {"Alpha": 0.1}), ("SOFTPLUS", {"Steepness": 2.0})]))
    cases.append(make_case("GRU_FLOAT32_thresholded_relu", "GRU", bias=True,
                           acts=["SIGMOID", ("THRESHOLDED_RELU", {"Alpha": 0.1})]))

    # LSTM's options.
    for dtype in ("FLOAT32", "FLOAT16"):
        cases.append(make_case(f"LSTM_{dtype}_peephole", "LSTM", dtype, bias=True, h0=True, c0=True, peep=True))
    cases.append(make_case("LSTM_FLOAT32_clip", "LSTM", bias=True, h0=True, c0=True, peep=True, clip=0.3))
    cases.append(make_case("LSTM_FLOAT32_couple_input_forget", "LSTM", bias=True, h0=True, c0=True, couple=True))
    cases.append(make_case("LSTM_FLOAT32_bidirectional_all", "LSTM", seq=5, batch=3, hid=5, direction="BIDIRECTIONAL",
                           bias=True, h0=True, c0=True, lengths=[5, 3, 2], peep=True, clip=0.8, couple=True))
    cases.append(make_case("LSTM_FLOAT32_batch_first_strides", "LSTM", seq=3, batch=2, direction="BIDIRECTIONAL",
                           bias=True, h0=True, c0=True, lengths=[3, 2], batch_first=True))
    cases.append(make_case("GRU_FLOAT16_batch_first_strides", "GRU", "FLOAT16", seq=3, batch=2, bias=True,
                           batch_first=True))
    for op in ("RNN", "LSTM", "GRU"):
        cases.append(make_case(f"{op}_FLOAT32_zero_length", op, seq=3, batch=3, direction="BIDIRECTIONAL", bias=True,
                               h0=True, c0=True, lengths=[3, 0, 2]))
    cases.append(make_case("LSTM_FLOAT32_cell_output_only", "LSTM", bias=True, outputs=("OutputCellSingleTensor",)))

    # GRU's reset placement, both ways, with every input.
    for dtype in ("FLOAT32", "FLOAT16"):
        for lbr in (False, True):
            cases.append(make_case(f"GRU_{dtype}_linear_before_reset_{int(lbr)}", "GRU", dtype, seq=4, batch=2, hid=6,
                                   direction="BIDIRECTIONAL", bias=True, h0=True, lengths=[4, 3], lbr=lbr))

    for op in ("RNN", "LSTM", "GRU"):
        write_cases(__file__, "recurrent_" + op.lower(), [c for c in cases if c["name"].startswith(op + "_")])


if __name__ == "__main__":
    main()

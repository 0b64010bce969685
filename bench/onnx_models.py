#!/usr/bin/env python3
"""Real models through `dmlrun model.onnx` against a reference on the same inputs, in one run.

    onnx_models.py --dmlrun PATH [--reference ort|torch] [--adapter cpu|cuda] [--threads N]
                   [--models-dir DIR] [--export-python PYTHON] [--quick]

Cases: ResNet-50 (batch 1 and 16) and MobileNetV2 (batch 1) from torchvision's model definitions,
BERT-base (sequence 128, batch 1 and 8; the second half of each row's tokens masked as padding in
odd rows) and GPT-2 small (a prompt of 128) from the transformers package's model classes, all
with random weights (no downloads). The models are exported to ONNX once (opset 14, symbolic batch
and sequence) into --models-dir and reused.

--reference ort (the CPU benchmark, bench/run.sh): ONNX Runtime's CPU provider with --threads
intra-op threads runs the same .onnx file on the same inputs; needs onnxruntime in this Python, and
torch (with torchvision and transformers) in --export-python for the export.
--reference torch (the GPU benchmark, bench/run_gpu.sh): the same torch model in eager mode on the
same device ("cuda" when --adapter is cuda) with TF32 off (full FLOAT32, as FreeDML computes it);
needs torch, torchvision and transformers here. --allow-half-precision runs dmlrun with that flag
(FreeDML may use TF32 tensor cores on CUDA) and PyTorch with TF32 on, rows named NAME_tf32;
--torch-compile runs the PyTorch side through torch.compile (compiled in the untimed first call),
rows named NAME_vs_compile.

FreeDML's time is dmlrun's median over its iterations (the first excluded); the reference's is the
median over as many runs after one untimed. Both sides' outputs are compared (largest absolute
difference, and relative to the output's scale). Prints one JSON object per case:
{"bench": "model", "type": "f32", "name": ..., "ms": FreeDML, "reference_ms": ..., "reference": ...,
 "max_abs_diff": ..., "scale": ...}; --split F R also appends each side's time to F and R as
{"bench": "model", "type": "f32", "name": ..., "ms": ...} (bench/run_gpu.sh's two files for
bench/cuda/compare.py).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

# name, model, batch; --quick keeps the batch-1 cases.
CASES = [
    ("resnet50_b1", "resnet50", 1),
    ("resnet50_b16", "resnet50", 16),
    ("mobilenet_v2_b1", "mobilenet_v2", 1),
    ("bert_base_s128_b1", "bert_base", 1),
    ("bert_base_s128_b8", "bert_base", 8),
    ("gpt2_small_s128_b1", "gpt2_small", 1),
]


def eager_attention(config, eager):
    # Attention written out (matmul, softmax, matmul) as exporters give it, rather than a PyTorch
    # scaled_dot_product_attention call newer transformers releases default to.
    if eager:
        config._attn_implementation = "eager"
    return config


def by_name(m, names):
    """The transformers model called with its inputs by name (their positional order differs between
    releases), giving its last hidden state."""
    import torch

    class ByName(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = m

        def forward(self, *args):
            return self.model(**dict(zip(names, args))).last_hidden_state

    return ByName()


def build_model(model, for_export=False):
    """The torch model with random weights (every normalization's parameters random too); for the
    export, attention written out, for timing PyTorch, its default (fastest) attention."""
    import torch
    torch.manual_seed(21)
    if model in ("resnet50", "mobilenet_v2"):
        import torchvision
        m = getattr(torchvision.models, model)(weights=None).eval()
    else:
        import transformers
        if model == "bert_base":
            m = transformers.BertModel(eager_attention(transformers.BertConfig(), for_export), add_pooling_layer=False).eval()
        else:
            m = transformers.GPT2Model(eager_attention(transformers.GPT2Config(use_cache=False), for_export)).eval()
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, torch.nn.BatchNorm2d):
                mod.running_mean.uniform_(-0.1, 0.1)
                mod.running_var.uniform_(0.5, 1.5)
            elif isinstance(mod, torch.nn.LayerNorm):
                mod.weight.uniform_(0.5, 1.5)
                mod.bias.uniform_(-0.1, 0.1)
    return m if model in ("resnet50", "mobilenet_v2") else by_name(m, list(make_inputs(model, 1)))


def make_inputs(model, batch):
    """The inputs by ONNX input name, seeded."""
    rng = np.random.RandomState(21)
    if model in ("resnet50", "mobilenet_v2"):
        return {"input": rng.uniform(-1, 1, (batch, 3, 224, 224)).astype(np.float32)}
    if model == "bert_base":
        ids = rng.randint(0, 30522, (batch, 128)).astype(np.int64)
        mask = np.ones((batch, 128), np.int64)
        mask[1::2, 64:] = 0
        return {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    return {"input_ids": rng.randint(0, 50257, (batch, 128)).astype(np.int64)}


def export(model, path):
    import torch
    m = build_model(model, for_export=True)
    inputs = make_inputs(model, 1)
    dynamic = {k: ({0: "batch"} if model in ("resnet50", "mobilenet_v2") else {0: "batch", 1: "sequence"})
               for k in inputs}
    # Newer PyTorch defaults to its dynamo exporter (newer opsets and IR than Debian's ONNX reads).
    import inspect
    legacy = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
    torch.onnx.export(m, tuple(torch.from_numpy(v) for v in inputs.values()), path + ".tmp",
                      input_names=list(inputs), output_names=["output"], opset_version=14, dynamic_axes=dynamic, **legacy)
    os.replace(path + ".tmp", path)


def run_dmlrun(args, path, model, inputs, tmp):
    files = []
    for key, value in inputs.items():
        np.save(os.path.join(tmp, key + ".npy"), value)
        files += ["--input", "%s=%s" % (key, os.path.join(tmp, key + ".npy"))]
    x = next(iter(inputs.values()))
    dims = ["--dim", "batch=%d" % x.shape[0]]
    if model not in ("resnet50", "mobilenet_v2"):
        dims += ["--dim", "sequence=%d" % x.shape[1]]
    out = os.path.join(tmp, "out")
    command = [args.dmlrun, path, "--adapter", args.adapter, "--iterations", str(args.iterations + 1),
               "--output-dir", out] + files + dims + (["--allow-half-precision"] if args.allow_half_precision else [])
    r = subprocess.run(command, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("dmlrun failed (exit %d): %s" % (r.returncode, r.stderr[-2000:]))
    m = re.search(r"Dispatch '[^']*': \d+ iterations, ([0-9.]+) ms median", r.stdout)
    if not m:
        raise RuntimeError("dmlrun printed no timing line")
    return float(m.group(1)), np.load(os.path.join(out, "output.npy"))


def run_ort(args, path, inputs):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    output = session.run(None, inputs)[0]
    times = []
    for _ in range(args.iterations):
        start = time.perf_counter()
        session.run(None, inputs)
        times.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(times), output


def run_torch(args, model, inputs):
    import torch
    device = "cuda" if args.adapter.startswith("cuda") else "cpu"
    if device == "cpu":
        torch.set_num_threads(args.threads)
    # The same arithmetic as FreeDML's: full FLOAT32, or TF32 tensor cores in convolutions and
    # matrix multiplies where FreeDML was allowed half precision (PyTorch's own default is TF32 in
    # convolutions only).
    torch.backends.cudnn.allow_tf32 = args.allow_half_precision
    torch.backends.cuda.matmul.allow_tf32 = args.allow_half_precision
    m = build_model(model).to(device)
    if args.torch_compile:
        m = torch.compile(m)  # compiled at the first call, which is untimed
    feeds = [torch.from_numpy(v).to(device) for v in inputs.values()]

    def once():
        with torch.no_grad():
            y = m(*feeds)
        return y if isinstance(y, torch.Tensor) else y[0]

    output = once().float().cpu().numpy()
    times = []
    for _ in range(args.iterations):
        if device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        once()
        if device == "cuda":
            torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(times), output


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dmlrun", required=True)
    parser.add_argument("--reference", choices=["ort", "torch"], default="ort")
    parser.add_argument("--adapter", default="cpu")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--models-dir", default=os.path.join(tempfile.gettempdir(), "freedml-onnx-models"))
    parser.add_argument("--export-python", default=sys.executable)
    parser.add_argument("--iterations", type=int, default=0)
    parser.add_argument("--cases", default="", help="comma-separated case names (default: all, or batch 1 with --quick)")
    parser.add_argument("--split", nargs=2, metavar=("FREEDML_FILE", "REFERENCE_FILE"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--torch-compile", action="store_true",
                        help="the PyTorch reference through torch.compile; rows named NAME_vs_compile")
    parser.add_argument("--allow-half-precision", action="store_true",
                        help="dmlrun --allow-half-precision (TF32 on CUDA), PyTorch with TF32 on; rows named NAME_tf32")
    parser.add_argument("--export", nargs=2, metavar=("MODEL", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.export:
        export(*args.export)
        return 0
    if not args.iterations:
        args.iterations = 3 if args.quick else 10
    cases = [c for c in CASES if not args.quick or c[2] == 1]
    if args.cases:
        cases = [c for c in CASES if c[0] in args.cases.split(",")]
    os.makedirs(args.models_dir, exist_ok=True)
    reference = "ONNX Runtime CPU" if args.reference == "ort" else "PyTorch %s (%s, %s)" % (
        "torch.compile" if args.torch_compile else "eager", "cuda" if args.adapter.startswith("cuda") else "cpu",
        "TF32" if args.allow_half_precision else "FLOAT32")
    status = 0
    for name, model, batch in cases:
        path = os.path.join(args.models_dir, model + ".onnx")
        if args.allow_half_precision:
            name += "_tf32"
        if args.torch_compile:
            name += "_vs_compile"
        row = {"bench": "model", "type": "f32", "name": name, "reference": reference}
        try:
            if not os.path.exists(path):
                r = subprocess.run([args.export_python, os.path.abspath(__file__), "--dmlrun", args.dmlrun,
                                    "--export", model, path], capture_output=True, text=True)
                if r.returncode != 0:
                    raise RuntimeError("the export failed: " + r.stderr[-2000:])
            inputs = make_inputs(model, batch)
            with tempfile.TemporaryDirectory() as tmp:
                ms, got = run_dmlrun(args, path, model, inputs, tmp)
            if args.reference == "ort":
                ref_ms, expected = run_ort(args, path, inputs)
            else:
                ref_ms, expected = run_torch(args, model, inputs)
            scale = float(np.abs(expected).max())
            diff = float(np.abs(got.astype(np.float64) - expected.astype(np.float64)).max())
            row.update({"ms": round(ms, 4), "reference_ms": round(ref_ms, 4), "max_abs_diff": diff, "scale": scale,
                        "threads": args.threads, "iterations": args.iterations})
        except Exception as error:  # one case failing leaves the others
            row.update({"skipped": True, "reason": str(error).strip().splitlines()[-1] if str(error).strip() else repr(error)})
            status = 1
        print(json.dumps(row), flush=True)
        if args.split and not row.get("skipped"):
            # bench/cuda/compare.py's two files: each side's time as "ms" under the same key.
            for file, ms in zip(args.split, (row["ms"], row["reference_ms"])):
                with open(file, "a") as f:
                    f.write(json.dumps({"bench": "model", "type": "f32", "name": name, "ms": ms}) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())

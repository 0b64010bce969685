#!/usr/bin/env python3
"""A torchvision model with random weights (its public architecture, no downloaded weights),
exported to ONNX with torch.onnx, run through `dmlrun model.onnx` and compared with ONNX Runtime's
CPU output for the same input, within FLOAT32 tolerances.

    torchvision_test.py DMLRUN MODEL [--adapter NAME] [--batch N]     MODEL: resnet50, mobilenet_v2

torch and torchvision may live in another Python than this one (Debian's python3-torch and
python3-torchvision in /usr/bin/python3, onnxruntime from PyPI elsewhere): the export runs in the
first interpreter that has them. Exit status 77 (skipped, with the reason) when none has them or
onnxruntime is missing.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

EXPORT = r"""
import sys, numpy as np, torch, torchvision
name, path, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
torch.manual_seed(21)
model = getattr(torchvision.models, name)(weights=None).eval()
# Random running statistics, so that batch normalization is not the identity.
with torch.no_grad():
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.1, 0.1)
            m.running_var.uniform_(0.5, 1.5)
x = torch.from_numpy(np.random.RandomState(21).uniform(-1, 1, (batch, 3, 224, 224)).astype(np.float32))
torch.onnx.export(model, x, path, input_names=["input"], output_names=["output"], opset_version=13)
np.save(path + ".input.npy", x.numpy())
"""


def find_torch_python():
    candidates = [sys.executable, "/usr/bin/python3", shutil.which("python3") or ""]
    for python in candidates:
        if python and os.path.exists(python):
            r = subprocess.run([python, "-c", "import torch, torchvision"], capture_output=True)
            if r.returncode == 0:
                return python
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dmlrun")
    parser.add_argument("model")
    parser.add_argument("--adapter", default="cpu")
    parser.add_argument("--batch", type=int, default=1)
    args = parser.parse_args()
    if args.adapter.startswith("cuda"):
        listed = subprocess.run([args.dmlrun, "--list-adapters"], capture_output=True, text=True).stdout.splitlines()
        if not any("(hardware)" in line for line in listed):
            print("skipped: no CUDA adapter")
            return 77
    try:
        import onnxruntime as ort
    except ImportError:
        print("skipped: the Python package onnxruntime is not installed (python3 -m pip install onnxruntime)")
        return 77
    python = find_torch_python()
    if not python:
        print("skipped: no Python with torch and torchvision (Debian: apt-get install python3-torchvision)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, args.model + ".onnx")
        r = subprocess.run([python, "-c", EXPORT, args.model, path, str(args.batch)], capture_output=True, text=True)
        if r.returncode != 0:
            print("the export failed:\n" + r.stderr[-3000:])
            return 1
        x = np.load(path + ".input.npy")
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        expected = session.run(None, {"input": x})[0]
        out = os.path.join(tmp, "out")
        r = subprocess.run([args.dmlrun, path, "--adapter", args.adapter, "--quiet", "--input", "input=" + path + ".input.npy",
                            "--output-dir", out], capture_output=True, text=True)
        if r.returncode != 0:
            print("dmlrun failed (exit %d):\n%s" % (r.returncode, r.stderr[-3000:]))
            return 1
        got = np.load(os.path.join(out, "output.npy"))
        if got.shape != expected.shape:
            print("dmlrun gave shape %s, ONNX Runtime %s" % (got.shape, expected.shape))
            return 1
        # FLOAT32 through ~50 layers: absolute 1e-4 plus 1e-3 of the output's scale.
        scale = float(np.abs(expected).max())
        diff = np.abs(got.astype(np.float64) - expected.astype(np.float64))
        worst = float(diff.max())
        print("%s batch %d on %s: max abs difference %.3g (output scale %.3g), same top-1: %s" % (
            args.model, args.batch, args.adapter, worst, scale,
            bool((got.argmax(axis=-1) == expected.argmax(axis=-1)).all())))
        return 0 if worst <= 1e-4 + 1e-3 * scale else 1


if __name__ == "__main__":
    sys.exit(main())

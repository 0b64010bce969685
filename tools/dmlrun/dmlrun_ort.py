#!/usr/bin/env python3
"""dmlrun --compare-ort's helper: runs an ONNX model through ONNX Runtime's CPU provider.

    dmlrun_ort.py MODEL.onnx --output-dir DIR [--iterations N] [--input NAME=FILE.npy ...]

Writes DIR/output<k>.npy for the model's k-th output and DIR/timing.txt (the median milliseconds
of N runs after a first, untimed one).
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--output-dir", required=True)
    parser.add_argument("--iterations", type=int, default=1)
    parser.add_argument("--input", action="append", default=[])
    args = parser.parse_args()
    try:
        import onnxruntime as ort
    except ImportError:
        print("dmlrun_ort.py: the Python package onnxruntime is not installed "
              "(python3 -m pip install onnxruntime).", file=sys.stderr)
        return 1
    session = ort.InferenceSession(args.model, providers=["CPUExecutionProvider"])
    feeds = {}
    for item in args.input:
        name, path = item.split("=", 1)
        array = np.load(path)
        # FreeDML keeps ONNX booleans as UINT8.
        for meta in session.get_inputs():
            if meta.name == name and meta.type == "tensor(bool)":
                array = array.astype(bool)
        feeds[name] = array
    outputs = session.run(None, feeds)
    times = []
    for _ in range(max(args.iterations, 1)):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append((time.perf_counter() - start) * 1000.0)
    for k, value in enumerate(outputs):
        value = np.asarray(value)
        if value.dtype == bool:
            value = value.astype(np.uint8)
        np.save(os.path.join(args.output_dir, "output%d.npy" % k), value)
    with open(os.path.join(args.output_dir, "timing.txt"), "w") as f:
        f.write("%.6f\n" % statistics.median(times))
    return 0


if __name__ == "__main__":
    sys.exit(main())

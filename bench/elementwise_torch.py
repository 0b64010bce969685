#!/usr/bin/env python3
"""PyTorch's CPU element-wise kernels on the sizes elementwise_bench uses, for its comparison column.

Prints "RESULT OP DTYPE GBPS" lines (GB/s moved: bytes read + bytes written, median of the timed
iterations after warm-up), with torch limited to 2 threads like FreeDML's pool on this machine.
Run alone: python3 bench/elementwise_torch.py --elements 16777216
"""
import argparse
import os
import statistics
import time

parser = argparse.ArgumentParser()
parser.add_argument("--elements", type=int, default=1 << 24)
parser.add_argument("--iterations", type=int, default=15)
parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
args = parser.parse_args()

try:
    import torch
except ImportError:
    print("PyTorch is not installed (Debian: apt-get install -y python3-torch); no PyTorch column.")
    raise SystemExit(0)

torch.set_num_threads(args.threads)
n = args.elements


def median_seconds(fn):
    for _ in range(3):
        fn()
    times = []
    for _ in range(args.iterations):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


for dtype, name in ((torch.float32, "FLOAT32"), (torch.float16, "FLOAT16")):
    a = (torch.rand(n) * 1.5 + 0.5).to(dtype)
    b = (torch.rand(n) * 1.5 + 0.5).to(dtype)
    out = torch.empty(n, dtype=dtype)
    size = a.element_size() * n
    ops = {
        "IDENTITY": (lambda: out.copy_(a), 2),
        "ADD": (lambda: torch.add(a, b, out=out), 3),
        "SUBTRACT": (lambda: torch.sub(a, b, out=out), 3),
        "MULTIPLY": (lambda: torch.mul(a, b, out=out), 3),
        "DIVIDE": (lambda: torch.div(a, b, out=out), 3),
        "MAX": (lambda: torch.maximum(a, b, out=out), 3),
    }
    for op, (fn, tensors) in ops.items():
        try:
            seconds = median_seconds(fn)
            print(f"RESULT {op} {name} {tensors * size / seconds / 1e9:.2f}", flush=True)
        except RuntimeError as error:  # an op PyTorch's CPU backend lacks for this type
            print(f"{op} {name}: {error}", flush=True)

#!/usr/bin/env python3
"""PyTorch's CPU element-wise kernels (unary and binary) on the sizes elementwise_bench uses, for its
comparison column.

Prints "RESULT OP DTYPE GBPS" lines (GB/s moved: bytes read + bytes written, median of the timed
iterations after warm-up), with torch limited to the thread count given (elementwise_bench passes
its pool's), or "UNAVAILABLE OP DTYPE: why" for an operator PyTorch's CPU backend lacks.

Run alone, it measures every operator: python3 bench/elementwise_torch.py --elements 16777216
With --serve (what elementwise_bench runs), it prints READY, then measures one "OP DTYPE" line of
standard input at a time, so that the caller can measure the same operator right after it.
"""
import argparse
import os
import statistics
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--elements", type=int, default=1 << 24)
parser.add_argument("--iterations", type=int, default=15)
parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
parser.add_argument("--serve", action="store_true")
args = parser.parse_args()

try:
    import torch
except ImportError:
    print("PyTorch is not installed (Debian: apt-get install -y python3-torch); no PyTorch column.", flush=True)
    raise SystemExit(0)

torch.set_num_threads(args.threads)
n = args.elements
DTYPES = {"FLOAT32": torch.float32, "FLOAT16": torch.float16}
# operator -> (call on a, b, out; tensors moved: inputs read + the output written)
OPS = {
    "IDENTITY": (lambda a, b, out: out.copy_(a), 2),
    "EXP": (lambda a, b, out: torch.exp(a, out=out), 2),
    "SIGMOID": (lambda a, b, out: torch.sigmoid(a, out=out), 2),
    "TANH": (lambda a, b, out: torch.tanh(a, out=out), 2),
    "ABS": (lambda a, b, out: torch.abs(a, out=out), 2),
    # Over rows of 1024 as elementwise_bench's SOFTMAX (torch.softmax has no out=: it allocates).
    "SOFTMAX": (lambda a, b, out: torch.softmax(a.view(-1, 1024) if n % 1024 == 0 else a, dim=-1), 2),
    "ERF": (lambda a, b, out: torch.erf(a, out=out), 2),
    # The exact (erf) GELU, as DirectML's ACTIVATION_GELU; F.gelu has no out=, its kernel does.
    "GELU": (lambda a, b, out: torch._C._nn.gelu(a, out=out), 2),
    "ADD": (lambda a, b, out: torch.add(a, b, out=out), 3),
    "SUBTRACT": (lambda a, b, out: torch.sub(a, b, out=out), 3),
    "MULTIPLY": (lambda a, b, out: torch.mul(a, b, out=out), 3),
    "DIVIDE": (lambda a, b, out: torch.div(a, b, out=out), 3),
    "MAX": (lambda a, b, out: torch.maximum(a, b, out=out), 3),
}
tensors = {}  # dtype name -> (a, b, out), made on first use


def median_seconds(fn):
    for _ in range(3):
        fn()
    times = []
    for _ in range(args.iterations):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(op, name):
    if op not in OPS or name not in DTYPES:
        print(f"UNAVAILABLE {op} {name}: not an operator or type of this script", flush=True)
        return
    if name not in tensors:
        dtype = DTYPES[name]
        tensors[name] = ((torch.rand(n) * 1.5 + 0.5).to(dtype), (torch.rand(n) * 1.5 + 0.5).to(dtype),
                         torch.empty(n, dtype=dtype))
    a, b, out = tensors[name]
    call, count = OPS[op]
    try:
        seconds = median_seconds(lambda: call(a, b, out))
        print(f"RESULT {op} {name} {count * a.element_size() * n / seconds / 1e9:.2f}", flush=True)
    except RuntimeError as error:  # an op PyTorch's CPU backend lacks for this type
        print(f"UNAVAILABLE {op} {name}: {error}", flush=True)


if args.serve:
    print("READY", flush=True)
    for line in sys.stdin:
        fields = line.split()
        if len(fields) == 2:
            measure(*fields)
else:
    for name in DTYPES:
        for op in OPS:
            measure(op, name)

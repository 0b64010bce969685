"""PyTorch on the problems of sequence_bench.cpp (issue 20), on the CPU or a CUDA GPU: the reference
those figures are measured against, under the same names, so the ratio of two lines' times is the
figure. Times are the median of 5 runs (3 with --quick), each of as many calls as fill 0.3 s
(0.05 s with --quick), after a timed warm-up.

Attention: torch.nn.functional.scaled_dot_product_attention where this PyTorch has it (2.0 and
later; is_causal=True for the causal case), else the same computation written out (q.k^T scaled,
the causal mask added as -10000 where a key is later than the query, softmax, .v), which is SDPA's
math path; each line says which ran ("reference"). Query, key and value are {batch, heads, sequence,
128}, PyTorch's preferred layout. LSTM: torch.nn.LSTM (hidden 512, input 512, batch 16, with bias);
on CUDA that is cuDNN's LSTM, held to full FLOAT32 as FreeDML is (no TF32, which cuDNN would use
by default).
With --gpu the integer cases' reference is PyTorch's FLOAT16 matmul of the same size.
    sequence_torch.py [--device cpu|cuda] [--gpu] [--threads N] [--quick] [--only name,name...]
Prints one JSON object per line."""
import argparse
import json
import math
import time

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cpu")
parser.add_argument("--gpu", action="store_true", help="sequence_bench --gpu's problem set (implied by --device cuda)")
parser.add_argument("--threads", type=int, default=0)
parser.add_argument("--quick", action="store_true")
parser.add_argument("--only", default="")
args = parser.parse_args()
if args.threads:
    torch.set_num_threads(args.threads)
dev = torch.device(args.device)
cuda = dev.type == "cuda"
gpu = args.gpu or cuda
run_seconds = 0.05 if args.quick else 0.3
runs = 3 if args.quick else 5
only = set(filter(None, args.only.split(",")))
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
F = torch.nn.functional
sdpa = getattr(F, "scaled_dot_product_attention", None)


def sync():
    if cuda:
        torch.cuda.synchronize()


def median_ms(fn):
    start = time.perf_counter()
    fn()  # the warm-up, timed to size the runs
    sync()
    once = max(time.perf_counter() - start, 1e-7)
    reps = min(1000, max(1, int(run_seconds / once)))
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        times.append((time.perf_counter() - start) * 1e3 / reps)
    times.sort()
    return times[len(times) // 2]


def case(name, dtype_name, fn, flops, reference):
    if only and name not in only:
        return
    with torch.no_grad():
        ms = median_ms(fn)
    print(json.dumps({"bench": "seq", "name": name, "type": dtype_name, "ms": ms, "gflops": flops / ms / 1e6,
                      "reference": reference}), flush=True)


def rand(shape, dtype):
    # Multiples of 1/512 in [-1, 1), like api_bench.h: never zeros.
    return torch.randint(-512, 512, shape, device=dev).to(dtype) / 512


heads, head_size = 32, 128
if gpu:
    attention = [(1, 512)] if args.quick else [(1, 512), (8, 512), (1, 4096), (8, 4096)]
    attention_type, attention_name = torch.float16, "f16"
else:
    attention = [(1, 128 if args.quick else 512)]
    attention_type, attention_name = torch.float32, "f32"
for batch, sequence in attention:
    q, k, v = (rand((batch, heads, sequence, head_size), attention_type) for _ in range(3))
    scale = 1.0 / math.sqrt(head_size)
    later = torch.triu(torch.ones(sequence, sequence, device=dev, dtype=torch.bool), diagonal=1)
    additive = torch.zeros(sequence, sequence, device=dev, dtype=attention_type).masked_fill(later, -10000.0)
    flops = 4.0 * batch * heads * sequence * sequence * head_size
    for causal in (False, True):
        name = f"attention_b{batch}_s{sequence}" + ("_causal" if causal else "")
        if sdpa is not None:
            fn = lambda: sdpa(q, k, v, is_causal=causal)
            reference = "PyTorch scaled_dot_product_attention"
        else:
            def fn():
                scores = torch.matmul(q, k.transpose(-1, -2)).mul_(scale)
                if causal:
                    scores.add_(additive)
                return torch.matmul(torch.softmax(scores, dim=-1), v)
            reference = "PyTorch matmul, softmax, matmul (no scaled_dot_product_attention in this PyTorch)"
        case(name, attention_name, fn, flops, reference)
        del fn

steps = 16 if args.quick and not gpu else 128
lstm = torch.nn.LSTM(512, 512).to(dev)
x = rand((steps, 16, 512), torch.float32)
case(f"lstm_h512_s{steps}_b16", "f32", lambda: lstm(x), 2.0 * steps * 16 * 4 * 512 * 1024, "torch.nn.LSTM")

if gpu:
    for n in (1024,) if args.quick else (1024, 4096):
        a, b = rand((n, n), torch.float16), rand((n, n), torch.float16)
        out = torch.empty((n, n), device=dev, dtype=torch.float16)
        for name in (f"matmul_integer_{n}", f"qlinear_matmul_{n}", f"gemm_f16_{n}"):
            case(name, "f16" if name.startswith("gemm") else "u8s8", lambda: torch.matmul(a, b, out=out), 2.0 * n ** 3,
                 "PyTorch FLOAT16 matmul")

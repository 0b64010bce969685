"""PyTorch on the problems of operator_bench.cpp (the memory-bound operators of issues 17-19), on the
CPU or a CUDA GPU: the reference those figures are measured against. Each line has the same byte
count as FreeDML's, so the ratio of two lines' GB/s is the ratio of their times. Times are the median
of 5 runs, each of as many calls as fill --run-seconds, after a warm-up.
    operator_torch.py [--device cpu|cuda] [--threads N] [--quick] [--only name,name...]
Prints one JSON object per line."""
import argparse
import json
import time

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cpu")
parser.add_argument("--threads", type=int, default=0)
parser.add_argument("--quick", action="store_true")
parser.add_argument("--only", default="")
args = parser.parse_args()
if args.threads:
    torch.set_num_threads(args.threads)
dev = torch.device(args.device)
cuda = dev.type == "cuda"
run_seconds = 0.02 if args.quick else 0.1
only = set(filter(None, args.only.split(",")))
F = torch.nn.functional


def sync():
    if cuda:
        torch.cuda.synchronize()


def median_ms(fn):
    fn()
    sync()
    start = time.perf_counter()
    fn()
    sync()
    once = max(time.perf_counter() - start, 1e-7)
    reps = min(10000, max(1, int(run_seconds / once)))
    times = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        times.append((time.perf_counter() - start) * 1e3 / reps)
    times.sort()
    return times[2]


def op(name, dtype_name, fn, nbytes):
    if only and name not in only:
        return
    try:
        ms = median_ms(fn)
    except RuntimeError as e:  # e.g. no FLOAT16 layer norm on PyTorch's CPU: say so, go on
        print(json.dumps({"bench": "op", "name": name, "type": dtype_name, "skipped": str(e).splitlines()[0]}),
              flush=True)
        return
    print(json.dumps({"bench": "op", "name": name, "type": dtype_name, "ms": ms, "gbs": nbytes / ms / 1e6}),
          flush=True)


def rand(shape, dtype):
    # Multiples of 1/512 in [-1, 1), like operator_bench.cpp: never zeros.
    return (torch.randint(-512, 512, shape, device=dev).to(dtype) / 512)




x = rand((4096, 4096), torch.float32)
rows, cols = torch.empty(4096, device=dev), torch.empty(4096, device=dev)
op("reduce_sum_last", "f32", lambda: torch.sum(x, dim=1, out=rows), x.numel() * 4 + 4096 * 4)
op("reduce_sum_first", "f32", lambda: torch.sum(x, dim=0, out=cols), x.numel() * 4 + 4096 * 4)
op("reduce_max_last", "f32", lambda: torch.amax(x, dim=1, out=rows), x.numel() * 4 + 4096 * 4)
op("reduce_max_first", "f32", lambda: torch.amax(x, dim=0, out=cols), x.numel() * 4 + 4096 * 4)
op("argmax_rows", "f32", lambda: torch.argmax(x, dim=1), x.numel() * 4 + 4096 * 4)
t = rand((64, 32768), torch.float32)
for k in (1, 8, 256):
    op(f"top_k_{k}", "f32", lambda: torch.topk(t, k, dim=1), t.numel() * 4 + 64 * k * 8)
table = rand((32000, 4096), torch.float16)
ids = torch.randint(0, 32000, (512,), device=dev)
picked = torch.empty((512, 4096), device=dev, dtype=torch.float16)
op("gather_embedding", "f16", lambda: torch.index_select(table, 0, ids, out=picked), 2 * 512 * 4096 * 2 + 512 * 4)
del table
half = torch.empty((4096, 2048), device=dev)
op("slice_64mib", "f32", lambda: half.copy_(x[:, 1024:3072]), 2 * half.numel() * 4)
op("padding_64mib", "f32", lambda: F.pad(x, (16, 16, 16, 16)), x.numel() * 4 + 4128 * 4128 * 4)
image = rand((1, 64, 512, 512), torch.float32)
op("resample_2x_bilinear", "f32", lambda: F.interpolate(image, scale_factor=2, mode="bilinear", align_corners=False),
   image.numel() * 4 * 5)
for images in (1, 32):
    a = rand((images, 64, 112, 112), torch.float32)
    op(f"max_pool_3x3s2_b{images}", "f32", lambda: F.max_pool2d(a, 3, 2, 1), a.numel() * 4 * 5 // 4)
    g = rand((images, 2048, 7, 7), torch.float32)
    op(f"global_avg_pool_b{images}", "f32", lambda: F.avg_pool2d(g, 7), g.numel() * 4 + images * 2048 * 4)
for dtype, name, size in ((torch.float32, "f32", 4), (torch.float16, "f16", 2)):
    tokens, w, b = rand((512, 4096), dtype), rand((4096,), dtype), rand((4096,), dtype)
    op("layer_norm_512x4096", name, lambda: F.layer_norm(tokens, (4096,), w, b, 1e-5), 2 * tokens.numel() * size)
feature = rand((1, 256, 56, 56), torch.float32)
mean, var = rand((256,), torch.float32), torch.ones(256, device=dev)
scale, shift = rand((256,), torch.float32), rand((256,), torch.float32)
op("batch_norm_256x56x56", "f32", lambda: F.batch_norm(feature, mean, var, scale, shift, False, 0.0, 1e-5),
   2 * feature.numel() * 4)


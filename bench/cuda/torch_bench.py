"""PyTorch on the same GPU, the same problems as gpu_bench.cpp: the reference FreeDML's CUDA
backend is measured against. Times with CUDA events over `reps` launches after a warm-up, median
of 5 runs. FLOAT32 runs in full float (TF32 off), as FreeDML's FLOAT32 does by default.
Prints one JSON object per line."""
import json
import sys

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
quick = "--quick" in sys.argv
dev = torch.device("cuda")


def median_ms(fn, reps, runs=5):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / reps)
    times.sort()
    return times[len(times) // 2]


def rand(shape, dtype):
    # Multiples of 1/512 in [-1, 1), like gpu_bench.cpp: never zeros.
    return (torch.randint(-512, 512, shape, device=dev).to(dtype) / 512)


for dtype, name in ((torch.float16, "f16"), (torch.float32, "f32")):
    for n in (1024, 2048, 4096, 8192):
        if quick and n > 2048:
            continue
        a, b = rand((n, n), dtype), rand((n, n), dtype)
        out = torch.empty((n, n), device=dev, dtype=dtype)
        flops = 2.0 * n ** 3
        ms = median_ms(lambda: torch.matmul(a, b, out=out), max(3, int(2e13 / flops)))
        print(json.dumps({"bench": "gemm", "type": name, "n": n, "ms": ms, "tflops": flops / ms / 1e9}), flush=True)

layers = [("conv1_7x7s2", 3, 224, 64, 7, 2, 3), ("l1_1x1_64_64", 64, 56, 64, 1, 1, 0),
          ("l1_3x3_64", 64, 56, 64, 3, 1, 1), ("l1_1x1_64_256", 64, 56, 256, 1, 1, 0),
          ("l2_3x3_128", 128, 28, 128, 3, 1, 1), ("l2_1x1_512_128", 512, 28, 128, 1, 1, 0),
          ("l3_3x3_256", 256, 14, 256, 3, 1, 1), ("l3_1x1_256_1024", 256, 14, 1024, 1, 1, 0),
          ("l4_3x3_512", 512, 7, 512, 3, 1, 1), ("l4_1x1_512_2048", 512, 7, 2048, 1, 1, 0)]
batch = 32
for dtype, name in ((torch.float16, "f16"), (torch.float32, "f32")):
    for (layer, c, h, k, r, stride, pad) in layers:
        x, w = rand((batch, c, h, h), dtype), rand((k, c, r, r), dtype)
        out = (h + 2 * pad - r) // stride + 1
        flops = 2.0 * batch * k * out * out * c * r * r
        fn = lambda: torch.nn.functional.conv2d(x, w, stride=stride, padding=pad)
        ms = median_ms(fn, max(5, int(5e12 / flops)))
        print(json.dumps({"bench": "conv", "type": name, "layer": layer, "ms": ms, "tflops": flops / ms / 1e9}),
              flush=True)

count = 64 << 20
for dtype, name, size in ((torch.float32, "f32", 4), (torch.float16, "f16", 2)):
    a, b = rand((count,), dtype), rand((count,), dtype)
    out = torch.empty_like(a)
    copy_ms = median_ms(lambda: out.copy_(a), 20)
    add_ms = median_ms(lambda: torch.add(a, b, out=out), 20)
    print(json.dumps({"bench": "elementwise", "type": name, "copy_gbs": 2.0 * count * size / copy_ms / 1e6,
                      "add_gbs": 3.0 * count * size / add_ms / 1e6, "add_ms": add_ms, "copy_ms": copy_ms}), flush=True)

small_a = rand((64,), torch.float32)
small_o = torch.empty_like(small_a)
ms = median_ms(lambda: small_o.copy_(small_a), 5000)
print(json.dumps({"bench": "dispatch", "us_per_dispatch": ms * 1000.0}), flush=True)

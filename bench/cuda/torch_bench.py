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

# The memory-bound operators of gpu_bench.cpp's "op" section: GB/s of the same byte counts, so the
# ratio of the two lines is the ratio of their times.
F = torch.nn.functional


def op(name, dtype_name, fn, nbytes, reps=None):
    reps = reps or max(10, int(2e10 / nbytes))
    ms = median_ms(fn, reps)
    print(json.dumps({"bench": "op", "name": name, "type": dtype_name, "ms": ms, "gbs": nbytes / ms / 1e6}),
          flush=True)


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

small_a = rand((64,), torch.float32)
small_o = torch.empty_like(small_a)
ms = median_ms(lambda: small_o.copy_(small_a), 5000)
print(json.dumps({"bench": "dispatch", "us_per_dispatch": ms * 1000.0}), flush=True)

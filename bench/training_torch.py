"""The training step of training_bench.cpp in PyTorch (torch.nn + torch.optim.Adam), on the CPU or a
CUDA GPU: the reference the FreeDML step is measured against. Same network, sizes and
initialization scheme (bench/training_step.h documents it); batch normalization does not track
running statistics, as the DirectML step does not (BATCH_NORMALIZATION_TRAINING computes and returns
the batch statistics only). A step is zero_grad(set_to_none=True), forward, cross-entropy, backward,
optimizer.step(). Each timed run is `reps` steps back to back and one synchronize; the median of the
runs is printed. On CUDA, FLOAT32 runs in full float (TF32 off), as FreeDML's FLOAT32 does.
    training_torch.py [--device cpu|cuda] [--threads N] [--quick] [--optimizer adam|sgd] [--batch N]
Prints one JSON object per line."""
import argparse
import json
import time

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cpu")
parser.add_argument("--threads", type=int, default=0)
parser.add_argument("--quick", action="store_true")
parser.add_argument("--optimizer", default="adam", choices=("adam", "sgd"))
parser.add_argument("--batch", type=int, default=32)
parser.add_argument("--runs", type=int, default=5)
args = parser.parse_args()
if args.threads:
    torch.set_num_threads(args.threads)
dev = torch.device(args.device)
cuda = dev.type == "cuda"
if cuda:
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
torch.manual_seed(2024)
nn = torch.nn
N, CIN, S, C1, C2, K = args.batch, 3, 32, 32, 64, 10
model = nn.Sequential(
    nn.Conv2d(CIN, C1, 3, padding=1, bias=False), nn.BatchNorm2d(C1, track_running_stats=False), nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Conv2d(C1, C2, 3, padding=1, bias=False), nn.BatchNorm2d(C2, track_running_stats=False), nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(C2 * (S // 4) ** 2, K)).to(dev)
if args.optimizer == "adam":
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
else:
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(N, CIN, S, S, device=dev)
labels = torch.randint(0, K, (N,), device=dev)
loss_fn = nn.CrossEntropyLoss()


def step():
    optimizer.zero_grad(set_to_none=True)
    loss = loss_fn(model(x), labels)
    loss.backward()
    optimizer.step()
    return loss


def sync():
    if cuda:
        torch.cuda.synchronize()


def timed(reps):
    start = time.perf_counter()
    for _ in range(reps):
        step()
    sync()
    return (time.perf_counter() - start) / reps


run_seconds = 0.3 if args.quick else 1.0
timed(2)  # warm-up
once = timed(1)
reps = min(10000, max(1, int(run_seconds / max(once, 1e-6))))
times = sorted(timed(reps) for _ in range(min(args.runs, 3) if args.quick else args.runs))
seconds = times[len(times) // 2]
loss = float(step().detach())
print(json.dumps({"bench": "train", "name": f"cnn_b{N}", "type": "f32", "optimizer": args.optimizer,
                  "ms": seconds * 1e3, "steps_per_s": 1.0 / seconds, "loss": loss}), flush=True)

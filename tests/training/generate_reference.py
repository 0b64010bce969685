#!/usr/bin/env python3
"""Writes cnn_reference.txt: the float64 reference of training_api_test, from PyTorch's autograd in
float64 (the gradients) and the optimizers written out here from their definitions (DirectML's
ADAM_OPTIMIZER: M = b1 M + (1 - b1) G, V = b2 V + (1 - b2) G^2,
X -= lr sqrt(1 - b2^t) / (1 - b1^t) M / (sqrt(V) + eps), t counting from 1; plain SGD: X -= lr G).

The network is bench/training_step.h's at a small size (batch 4, 3x8x8 input, 4 and 8 channels,
10 classes): conv 3x3 pad 1 (no bias), batch normalization with batch statistics (biased variance,
eps 1e-5), ReLU, 2x2 max pool, twice, then a fully connected layer and the mean softmax
cross-entropy. The file holds the initial parameters and data, the step-1 gradients, each step's
loss and every parameter after STEPS steps, for Adam and for SGD.
Run with Debian's python3 (python3-torch): python3 tests/training/generate_reference.py"""
import os

import numpy as np
import torch
import torch.nn.functional as F

N, CIN, S, C1, C2, K = 4, 3, 8, 4, 8, 10
STEPS = 3
ADAM = dict(lr=0.01, b1=0.9, b2=0.999, eps=1e-8)
SGD_LR = 0.1
BN_EPS = 1e-5
NAMES = ["W1", "g1", "be1", "W2", "g2", "be2", "W3", "b3"]

rng = np.random.RandomState(24)
F3 = C2 * (S // 4) ** 2
initial = {
    "W1": rng.uniform(-1, 1, (C1, CIN, 3, 3)) / np.sqrt(CIN * 9),
    "g1": 1 + 0.1 * rng.randn(C1),
    "be1": 0.1 * rng.randn(C1),
    "W2": rng.uniform(-1, 1, (C2, C1, 3, 3)) / np.sqrt(C1 * 9),
    "g2": 1 + 0.1 * rng.randn(C2),
    "be2": 0.1 * rng.randn(C2),
    "W3": rng.uniform(-1, 1, (K, F3)) / np.sqrt(F3),
    "b3": rng.uniform(-1, 1, K) / np.sqrt(F3),
}
# Inputs rounded to float32 so that both sides start from the same numbers.
initial = {k: v.astype(np.float32).astype(np.float64) for k, v in initial.items()}
x = rng.randn(N, CIN, S, S).astype(np.float32).astype(np.float64)
labels = rng.randint(0, K, N)
onehot = np.eye(K)[labels]


def loss_and_grads(p):
    t = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in p.items()}
    h = torch.tensor(x)
    for i in ("1", "2"):
        h = F.conv2d(h, t["W" + i], padding=1)
        h = F.batch_norm(h, None, None, t["g" + i], t["be" + i], training=True, eps=BN_EPS)
        h = F.max_pool2d(F.relu(h), 2)
    logits = h.reshape(N, -1) @ t["W3"].T + t["b3"]
    loss = F.cross_entropy(logits, torch.tensor(labels))
    loss.backward()
    return float(loss), {k: t[k].grad.numpy().copy() for k in p}


def train(optimizer):
    p = {k: v.copy() for k, v in initial.items()}
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v2 = {k: np.zeros_like(v) for k, v in p.items()}
    losses, first = [], None
    for t in range(1, STEPS + 1):
        loss, g = loss_and_grads(p)
        losses.append(loss)
        first = first or g
        for k in NAMES:
            if optimizer == "adam":
                m[k] = ADAM["b1"] * m[k] + (1 - ADAM["b1"]) * g[k]
                v2[k] = ADAM["b2"] * v2[k] + (1 - ADAM["b2"]) * g[k] ** 2
                alpha = np.sqrt(1 - ADAM["b2"] ** t) / (1 - ADAM["b1"] ** t)
                p[k] = p[k] - ADAM["lr"] * alpha * m[k] / (np.sqrt(v2[k]) + ADAM["eps"])
            else:
                p[k] = p[k] - SGD_LR * g[k]
    return losses, first, p


out = []


def put(name, values):
    values = np.asarray(values, dtype=np.float64).ravel()
    out.append(f"{name} {values.size}")
    out.append(" ".join(repr(float(v)) for v in values))


put("config", [N, CIN, S, C1, C2, K, STEPS])
put("adam", [ADAM["lr"], ADAM["b1"], ADAM["b2"], ADAM["eps"]])
put("sgd_lr", [SGD_LR])
for k in NAMES:
    put(k, initial[k])
put("x", x)
put("onehot", onehot)
for optimizer in ("adam", "sgd"):
    losses, grads, final = train(optimizer)
    put(f"{optimizer}_losses", losses)
    for k in NAMES:
        if optimizer == "adam":  # the first step's gradients do not depend on the optimizer
            put("grad_" + k, grads[k])
        put(f"{optimizer}_{k}", final[k])

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cnn_reference.txt")
with open(path, "w") as f:
    f.write("# Written by generate_reference.py (float64): name count, then the values.\n")
    f.write("\n".join(out) + "\n")
print(f"wrote {path}")

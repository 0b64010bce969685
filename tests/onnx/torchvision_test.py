#!/usr/bin/env python3
"""A real model with random weights (its public architecture, no downloaded weights), exported to
ONNX with torch.onnx, run through `dmlrun model.onnx` and compared with ONNX Runtime's CPU output
for the same input, within FLOAT32 tolerances. Models: torchvision's resnet50 and mobilenet_v2;
bert_base and gpt2_small, the transformers package's BertModel and GPT2Model made from their
default configurations (BERT-base: 12 layers, 768 wide, sequence 128 with a padding mask; GPT-2
small: 12 layers, 768 wide, a prompt of 128 under GPT-2's causal mask); and two small transformers
written here in plain torch: gpt2_like (GPT-2's decoder block: causal mask, fused QKV, tanh GELU,
LayerNormalization at opset 17) and bert_like (a BERT-style encoder: erf GELU, layer norm
decomposed at opset 13), both with symbolic batch and sequence dimensions.

    torchvision_test.py DMLRUN MODEL [--adapter NAME] [--batch N]

torch, torchvision and transformers may live in another Python than this one (Debian's
python3-torch and python3-torchvision in /usr/bin/python3, onnxruntime from PyPI elsewhere): the
export runs in the first interpreter that has what the model needs. Exit status 77 (skipped, with
the reason) when none has them or onnxruntime is missing (scripts/install-deps.sh --python
installs them).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

EXPORT = r"""
import math, sys, numpy as np, torch
name, path, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
torch.manual_seed(21)
nn = torch.nn


class GptBlock(nn.Module):
    # GPT-2's decoder block: pre-norm, fused QKV projection, heads by view/transpose, a causal mask
    # sliced from a buffer, tanh-approximated GELU.
    def __init__(self, d=64, heads=4, context=32):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.heads = heads
        self.register_buffer("mask", torch.tril(torch.ones(context, context)).view(1, 1, context, context))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(C // self.heads))
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.proj(y)
        return x + self.out(nn.functional.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class Gpt(nn.Module):
    def __init__(self, vocab=100, d=64, layers=2, context=32):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(context, d)
        self.blocks = nn.ModuleList([GptBlock(d, 4, context) for _ in range(layers)])
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.wte(ids) + self.wpe(positions)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))


class Bert(nn.Module):
    # A BERT-style encoder: embeddings, post-norm self-attention layers with exact (erf) GELU.
    def __init__(self, vocab=100, d=64, layers=2, context=32):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(context, d)
        self.norm = nn.LayerNorm(d)
        self.q = nn.ModuleList([nn.Linear(d, d) for _ in range(layers)])
        self.k = nn.ModuleList([nn.Linear(d, d) for _ in range(layers)])
        self.v = nn.ModuleList([nn.Linear(d, d) for _ in range(layers)])
        self.o = nn.ModuleList([nn.Linear(d, d) for _ in range(layers)])
        self.ln1 = nn.ModuleList([nn.LayerNorm(d) for _ in range(layers)])
        self.ff1 = nn.ModuleList([nn.Linear(d, 4 * d) for _ in range(layers)])
        self.ff2 = nn.ModuleList([nn.Linear(4 * d, d) for _ in range(layers)])
        self.ln2 = nn.ModuleList([nn.LayerNorm(d) for _ in range(layers)])
        self.heads, self.layers = 4, layers

    def forward(self, ids):
        B, T = ids.shape
        x = self.norm(self.wte(ids) + self.wpe(torch.arange(T).unsqueeze(0)))
        h, dh = self.heads, x.shape[2] // self.heads
        for i in range(self.layers):
            split = lambda t: t.view(B, T, h, dh).permute(0, 2, 1, 3)
            q, k, v = split(self.q[i](x)), split(self.k[i](x)), split(self.v[i](x))
            p = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dh), dim=-1)
            y = (p @ v).permute(0, 2, 1, 3).reshape(B, T, h * dh)
            x = self.ln1[i](x + self.o[i](y))
            x = self.ln2[i](x + self.ff2[i](nn.functional.gelu(self.ff1[i](x))))
        return x


# Newer PyTorch exports through its dynamo exporter at the newest opset and IR version, which
# Debian's ONNX library cannot read: ask for the TorchScript exporter wherever it is a choice.
import inspect
legacy = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}


def randomize_norms(model):
    # Default initialization makes every LayerNorm the identity; random scales and shifts test them.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.1, 0.1)


def eager_attention(config):
    # Attention written out (matmul, softmax, matmul), the pattern exporters give and the lowering
    # fuses, rather than a PyTorch scaled_dot_product_attention call newer releases default to.
    config._attn_implementation = "eager"
    return config


# Calls a transformers model with its inputs by name (their positional order differs between
# releases) and returns its last hidden state.
class ByName(nn.Module):
    def __init__(self, model, names):
        super().__init__()
        self.model, self.names = model, names

    def forward(self, *args):
        return self.model(**dict(zip(self.names, args))).last_hidden_state


rng = np.random.RandomState(21)
if name in ("bert_base", "gpt2_small"):
    import transformers
    # Sequence 128 from the public configurations (BertConfig() is BERT-base, GPT2Config() GPT-2
    # small); symbolic batch and sequence dimensions, set back with dmlrun --dim.
    ids = rng.randint(0, 30522 if name == "bert_base" else 50257, (batch, 128)).astype(np.int64)
    if name == "bert_base":
        model = transformers.BertModel(eager_attention(transformers.BertConfig()), add_pooling_layer=False).eval()
        # Padding: even rows keep their first 100 tokens, odd rows all 128.
        mask = np.ones((batch, 128), np.int64)
        for r in range(0, batch, 2):
            mask[r, 100:] = 0
        inputs = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    else:
        model = transformers.GPT2Model(eager_attention(transformers.GPT2Config(use_cache=False))).eval()
        inputs = {"input_ids": ids}
    randomize_norms(model)
    torch.onnx.export(ByName(model, list(inputs)), tuple(torch.from_numpy(v) for v in inputs.values()), path,
                      input_names=list(inputs), output_names=["output"], opset_version=14,
                      dynamic_axes={k: {0: "batch", 1: "sequence"} for k in inputs}, **legacy)
    np.savez(path + ".inputs.npz", **inputs)
    sys.exit(0)

if name in ("gpt2_like", "bert_like"):
    model = (Gpt() if name == "gpt2_like" else Bert()).eval()
    x = torch.from_numpy(np.random.RandomState(21).randint(0, 100, (batch, 16)).astype(np.int64))
    # Symbolic batch and sequence dimensions, set back with dmlrun --dim; GPT at opset 17
    # (LayerNormalization), BERT at 13 (layer norm as ReduceMean, Sub, Pow, Sqrt, Div).
    torch.onnx.export(model, x, path, input_names=["input"], output_names=["output"],
                      opset_version=17 if name == "gpt2_like" else 13,
                      dynamic_axes={"input": {0: "batch", 1: "sequence"}, "output": {0: "batch", 1: "sequence"}}, **legacy)
else:
    import torchvision
    model = getattr(torchvision.models, name)(weights=None).eval()
    # Random running statistics, so that batch normalization is not the identity.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    x = torch.from_numpy(np.random.RandomState(21).uniform(-1, 1, (batch, 3, 224, 224)).astype(np.float32))
    torch.onnx.export(model, x, path, input_names=["input"], output_names=["output"], opset_version=13, **legacy)
np.savez(path + ".inputs.npz", input=x.numpy())
"""


def find_torch_python(modules):
    candidates = [sys.executable, "/usr/bin/python3", shutil.which("python3") or ""]
    for python in candidates:
        if python and os.path.exists(python):
            r = subprocess.run([python, "-c", "import " + modules], capture_output=True)
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
    transformer = args.model in ("bert_base", "gpt2_small")
    python = find_torch_python("torch, transformers" if transformer else "torch, torchvision")
    if not python:
        if transformer:
            print("skipped: no Python with torch and transformers (scripts/install-deps.sh --python installs "
                  "transformers 4.40 beside Debian's python3-torch)")
        else:
            print("skipped: no Python with torch and torchvision (Debian: apt-get install python3-torchvision)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, args.model + ".onnx")
        r = subprocess.run([python, "-c", EXPORT, args.model, path, str(args.batch)], capture_output=True, text=True)
        if r.returncode != 0:
            print("the export failed:\n" + r.stderr[-3000:])
            return 1
        inputs = dict(np.load(path + ".inputs.npz"))
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        expected = session.run(None, inputs)[0]
        out = os.path.join(tmp, "out")
        x = next(iter(inputs.values()))
        dims = ["--dim", "batch=%d" % x.shape[0], "--dim", "sequence=%d" % x.shape[1]] if x.ndim == 2 else []
        files = []
        for key, value in inputs.items():
            np.save(os.path.join(tmp, key + ".npy"), value)
            files += ["--input", "%s=%s" % (key, os.path.join(tmp, key + ".npy"))]
        r = subprocess.run([args.dmlrun, path, "--adapter", args.adapter, "--quiet", "--dump-graph", "--output-dir", out]
                           + files + dims, capture_output=True, text=True)
        if r.returncode != 0:
            print("dmlrun failed (exit %d):\n%s" % (r.returncode, r.stderr[-3000:]))
            return 1
        # Every layer's attention (matmul, scale, padding or causal mask, softmax, matmul) becomes
        # one MULTIHEAD_ATTENTION node.
        fused = r.stdout.count("note: attention fused into MULTIHEAD_ATTENTION")
        # (gpt2_like builds its causal mask on the device, with Equal, so its values are not known
        # while lowering and it stays unfused.)
        want = {"bert_base": 12, "gpt2_small": 12, "bert_like": 2}.get(args.model, 0)
        print("%d attention patterns fused into MULTIHEAD_ATTENTION" % fused)
        if fused != want:
            print("expected %d fused attention patterns; the graph's notes:\n%s" % (
                want, "\n".join(line for line in r.stdout.splitlines() if "note:" in line)))
            return 1
        # Each LayerNorm (embeddings, two per layer; GPT-2's final one) becomes one
        # MEAN_VARIANCE_NORMALIZATION1, and BERT's erf GELU one ACTIVATION_GELU.
        norms = r.stdout.count("note: layer normalization fused into MEAN_VARIANCE_NORMALIZATION1")
        gelus = r.stdout.count("note: GELU fused into ACTIVATION_GELU")
        print("%d layer normalizations and %d GELUs fused" % (norms, gelus))
        want = {"bert_base": (25, 12), "gpt2_small": (25, 0)}.get(args.model)
        if want and (norms, gelus) != want:
            print("expected %d fused layer normalizations and %d GELUs; the graph's notes:\n%s" % (
                want + ("\n".join(line for line in r.stdout.splitlines() if "note:" in line),)))
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
            args.model, x.shape[0], args.adapter, worst, scale,
            bool((got.argmax(axis=-1) == expected.argmax(axis=-1)).all())))
        return 0 if worst <= 1e-4 + 1e-3 * scale else 1


if __name__ == "__main__":
    sys.exit(main())

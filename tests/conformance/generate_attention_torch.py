"""A decoder-style attention step with its expected outputs from PyTorch (issue: attention with a
causal mask and past key/value through the API must match PyTorch), written to
cases/attention_torch.json.

    /usr/bin/python3 tests/conformance/generate_attention_torch.py   (needs torch)

Each case is one step of a decoder: S new tokens attend, under a causal mask, to P cached tokens
(PastKey/PastValue, {batch, heads, P, head size}) and to themselves; the present key/value outputs
are the cache with the new tokens appended. PyTorch computes the reference in float64: the head
split of the new query/key/value rows, torch.cat of the cache and the new keys and values, then
torch.nn.functional.scaled_dot_product_attention with the boolean causal mask where this PyTorch has
it, else softmax(Q K^T * scale, masked) V with torch's own ops.
"""
import numpy as np
import torch

from case_format import tensor, values, write_cases

NP = {"FLOAT32": np.float32, "FLOAT16": np.float16}
TOLERANCE = {"FLOAT32": {"ulps": 64, "absolute": 1e-5}, "FLOAT16": {"ulps": 8, "absolute": 2e-3}}
rng = np.random.default_rng(20261126)


def torch_attention(q, k, v, mask, scale):
    """q {B, N, S, H}, k and v {B, N, T, H}, mask {S, T} (True: attend), in float64 tensors."""
    sdpa = getattr(torch.nn.functional, "scaled_dot_product_attention", None)
    if sdpa is not None:
        return sdpa(q, k, v, attn_mask=mask, scale=scale)
    scores = torch.matmul(q, k.transpose(-1, -2)) * scale
    scores = scores.masked_fill(~mask, float("-inf"))
    return torch.matmul(torch.softmax(scores, dim=-1), v)


def decoder_step(name, dtype, B, N, H, P, S):
    T = P + S
    scale = 1.0 / np.sqrt(H)
    t = NP[dtype]
    q = rng.uniform(-1, 1, (B, S, N * H)).astype(t)
    k = rng.uniform(-1, 1, (B, S, N * H)).astype(t)
    v = rng.uniform(-1, 1, (B, S, N * H)).astype(t)
    past_k = rng.uniform(-1, 1, (B, N, P, H)).astype(t)
    past_v = rng.uniform(-1, 1, (B, N, P, H)).astype(t)
    # Query i sits at absolute position P + i and sees keys 0 .. P + i.
    allowed = np.arange(T)[None, :] <= (P + np.arange(S))[:, None]

    def heads(x):  # {B, S, N*H} -> {B, N, S, H}
        return torch.from_numpy(x.astype(np.float64)).reshape(B, S, N, H).permute(0, 2, 1, 3)

    keys = torch.cat([torch.from_numpy(past_k.astype(np.float64)), heads(k)], dim=2)
    vals = torch.cat([torch.from_numpy(past_v.astype(np.float64)), heads(v)], dim=2)
    out = torch_attention(heads(q), keys, vals, torch.from_numpy(allowed), scale)
    out = out.permute(0, 2, 1, 3).reshape(B, S, N * H).numpy()

    op = {"type": "DML_OPERATOR_MULTIHEAD_ATTENTION",
          "QueryTensor": tensor(dtype, [B, S, N * H]), "KeyTensor": tensor(dtype, [B, S, N * H]),
          "ValueTensor": tensor(dtype, [B, S, N * H]), "MaskTensor": tensor("INT32", [1, 1, S, T]),
          "PastKeyTensor": tensor(dtype, [B, N, P, H]), "PastValueTensor": tensor(dtype, [B, N, P, H]),
          "OutputTensor": tensor(dtype, [B, S, N * H]),
          "OutputPresentKeyTensor": tensor(dtype, [B, N, T, H]),
          "OutputPresentValueTensor": tensor(dtype, [B, N, T, H]),
          "Scale": float(scale), "MaskFilterValue": -1e4, "HeadCount": N,
          "MaskType": "DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN"}
    inputs = {"QueryTensor": values(q, dtype), "KeyTensor": values(k, dtype), "ValueTensor": values(v, dtype),
              "MaskTensor": values(allowed.astype(np.int32), "INT32"),
              "PastKeyTensor": values(past_k, dtype), "PastValueTensor": values(past_v, dtype)}
    outputs = {"OutputTensor": dict(values=values(out.astype(t), dtype), **TOLERANCE[dtype]),
               "OutputPresentKeyTensor": {"values": values(keys.numpy().astype(t), dtype), "ulps": 0},
               "OutputPresentValueTensor": {"values": values(vals.numpy().astype(t), dtype), "ulps": 0}}
    return {"name": f"MULTIHEAD_ATTENTION_{dtype}_{name}", "operator": op, "inputs": inputs, "outputs": outputs}


def main():
    cases = []
    for dtype in ["FLOAT32", "FLOAT16"]:
        cases += [
            decoder_step("decoder_chunk_after_cache_torch", dtype, 2, 4, 8, 5, 3),
            decoder_step("decoder_one_token_torch", dtype, 1, 2, 16, 9, 1),
        ]
    write_cases(__file__, "attention_torch", cases)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Conformance cases of DML_OPERATOR_MULTIHEAD_ATTENTION and DML_OPERATOR_MULTIHEAD_ATTENTION1,
computed with numpy in float64 from the formulas; FreeDML is never consulted.

Run once to (re)write cases/attention_*.json.

Semantics the references encode (the DirectML pages; ONNX Runtime's contrib MultiHeadAttention and
GroupQueryAttention where the pages are terse):
- Query {batch, S, Nq*H}; Key {batch, kvS, Nkv*H}; Value {batch, kvS, Nkv*Hv}. Stacked forms put
  {batch, seq, heads, 2 or 3, H} slots in the fourth dimension: query, key, value in that order.
- Bias {Nq*H + Nkv*H + Nkv*Hv} is added to the new query, key and value (never to the past).
- Keys are PastKey {batch, Nkv, P, H} followed by the new keys; OutputPresentKey/Value are that
  concatenation, {batch, Nkv, T, H}.
- scores = Scale * Q.K^T + RelativePositionBias {batch, Nq, S, T} + MaskFilterValue where masked;
  softmax over the keys; times V. Query head h reads key/value head h // (Nq / Nkv).
- Masks (INT32): KEY_SEQUENCE_LENGTH {1, batch}: keys j >= length masked; KEY_SEQUENCE_END_START
  {2, batch} (or one row of 2*batch): ends then starts, keys outside [start, end) masked;
  KEY_QUERY_SEQUENCE_LENGTH_START_END {3*batch + 2}: key lengths then cumulative offsets, of which
  only the key lengths matter for padded tensors; BOOLEAN {batch, Nq, S, T} with sizes of 1
  broadcast: 0 masks. MaskFilterValue is added to masked scores.
- MULTIHEAD_ATTENTION1's PastSequenceLengths {batch} (FreeDML's reading, after ONNX Runtime's
  GroupQueryAttention): batch b's keys are its first length[b] past positions then the new ones;
  the present outputs hold them and 0 after.
"""
import numpy as np

from case_format import tensor, values, write_cases

rng = np.random.default_rng(20261125)
NP = {"FLOAT32": np.float32, "FLOAT16": np.float16}


def rand(dtype, shape, scale=1.0):
    return (rng.uniform(-scale, scale, size=shape)).astype(NP[dtype])


def strided_memory(logical, strides):
    shape = logical.shape
    length = 1 + sum((s - 1) * st for s, st in zip(shape, strides))
    memory = np.zeros(length, dtype=logical.dtype)
    index = np.indices(shape).reshape(len(shape), -1)
    offsets = sum(index[d] * strides[d] for d in range(len(shape)))
    memory[offsets] = logical.ravel()
    return memory


def reference(q, k, v, nq, nkv, scale, bias=None, mask_type="NONE", mask=None, filt=-10000.0, rpb=None,
              past_k=None, past_v=None, past_lens=None, total=None):
    """q {B,S,Nq,H}, k {B,kvS,Nkv,H}, v {B,kvS,Nkv,Hv} in float64. Returns the output {B,S,Nq*Hv}
    and the present key/value {B,Nkv,T,H}."""
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    B, S, _, H = q.shape
    kvs, Hv = k.shape[1], v.shape[3]
    if bias is not None:
        bias = np.asarray(bias, np.float64)
        q = q + bias[:nq * H].reshape(nq, H)
        k = k + bias[nq * H:nq * H + nkv * H].reshape(nkv, H)
        v = v + bias[nq * H + nkv * H:].reshape(nkv, Hv)
    P = 0 if past_k is None else past_k.shape[2]
    T = total if total is not None else P + kvs
    out = np.zeros((B, S, nq * Hv))
    pk = np.zeros((B, nkv, T, H))
    pv = np.zeros((B, nkv, T, Hv))
    group = nq // nkv
    for b in range(B):
        past = P if past_lens is None else int(past_lens[b])
        keys = np.concatenate([np.zeros((nkv, 0, H)) if P == 0 else np.asarray(past_k[b, :, :past], np.float64),
                               k[b].transpose(1, 0, 2)], axis=1)
        vals = np.concatenate([np.zeros((nkv, 0, Hv)) if P == 0 else np.asarray(past_v[b, :, :past], np.float64),
                               v[b].transpose(1, 0, 2)], axis=1)
        count = past + kvs
        pk[b, :, :count] = keys
        pv[b, :, :count] = vals
        for h in range(nq):
            kh = h // group
            s = scale * q[b, :, h, :] @ keys[kh].T  # {S, count}
            if rpb is not None:
                s = s + np.broadcast_to(np.asarray(rpb, np.float64), (B, nq, S, T))[b, h, :, :count]
            masked = np.zeros(s.shape, bool)
            j = np.arange(count)
            flat = None if mask is None else np.asarray(mask).ravel()
            if mask_type in ("KEY_SEQUENCE_LENGTH", "KEY_QUERY_SEQUENCE_LENGTH_START_END"):
                masked[:, j >= flat[b]] = True
            elif mask_type == "KEY_SEQUENCE_END_START":
                masked[:, (j >= flat[b]) | (j < flat[B + b])] = True
            elif mask_type == "BOOLEAN":
                masked = np.broadcast_to(mask, (B, nq, S, T))[b, h, :, :count] == 0
            s = s + np.where(masked, filt, 0.0)
            s = s - s.max(axis=1, keepdims=True)
            w = np.exp(s)
            w = w / w.sum(axis=1, keepdims=True)
            out[b, :, h * Hv:(h + 1) * Hv] = w @ vals[kh]
    return out, pk, pv


def tolerance(dtype):
    return {"ulps": 8, "absolute": 1e-5} if dtype == "FLOAT32" else {"ulps": 4, "absolute": 2e-3}


def case(name, dtype, B, S, kvs, nq, H, Hv=None, nkv=None, form="separate", bias=False, mask_type="NONE",
         mask=None, mask_sizes=None, rpb_sizes=None, past=0, present=False, past_lens=None, total=None,
         v1=False, scale=None, filt=-10000.0, query_strided=False, lens_type="INT32"):
    Hv = Hv or H
    nkv = nkv or nq
    scale = scale if scale is not None else 1.0 / np.sqrt(H)
    q = rand(dtype, (B, S, nq, H))
    k = rand(dtype, (B, kvs, nkv, H))
    v = rand(dtype, (B, kvs, nkv, Hv))
    op = {"type": "DML_OPERATOR_MULTIHEAD_ATTENTION1" if v1 else "DML_OPERATOR_MULTIHEAD_ATTENTION"}
    inputs = {}
    if form == "separate":
        hidden = nq * H
        if query_strided:  # sequence-major memory: {B, S, hidden} read through strides {hidden, B*hidden, 1}
            st = [hidden, B * hidden, 1]
            op["QueryTensor"] = tensor(dtype, [B, S, hidden], st)
            inputs["QueryTensor"] = values(strided_memory(q.reshape(B, S, hidden), st), dtype)
        else:
            op["QueryTensor"] = tensor(dtype, [B, S, hidden])
            inputs["QueryTensor"] = values(q, dtype)
        op["KeyTensor"] = tensor(dtype, [B, kvs, nkv * H])
        inputs["KeyTensor"] = values(k, dtype)
        op["ValueTensor"] = tensor(dtype, [B, kvs, nkv * Hv])
        inputs["ValueTensor"] = values(v, dtype)
    elif form == "qkv":
        op["StackedQueryKeyValueTensor"] = tensor(dtype, [B, S, nq, 3, H])
        inputs["StackedQueryKeyValueTensor"] = values(np.stack([q, k, v], axis=3), dtype)
    elif form == "qk":
        op["StackedQueryKeyTensor"] = tensor(dtype, [B, S, nq, 2, H])
        inputs["StackedQueryKeyTensor"] = values(np.stack([q, k], axis=3), dtype)
        op["ValueTensor"] = tensor(dtype, [B, kvs, nkv * Hv])
        inputs["ValueTensor"] = values(v, dtype)
    elif form == "kv":
        op["QueryTensor"] = tensor(dtype, [B, S, nq * H])
        inputs["QueryTensor"] = values(q, dtype)
        op["StackedKeyValueTensor"] = tensor(dtype, [B, kvs, nkv, 2, H])
        inputs["StackedKeyValueTensor"] = values(np.stack([k, v], axis=3), dtype)
    b = None
    if bias:
        b = rand(dtype, (nq * H + nkv * H + nkv * Hv,), 0.5)
        op["BiasTensor"] = tensor(dtype, b.shape)
        inputs["BiasTensor"] = values(b, dtype)
    P = past
    T = total if total is not None else P + kvs
    m = None
    if mask_type != "NONE":
        m = np.asarray(mask, np.int32)
        if mask_sizes is not None:
            m = m.reshape(mask_sizes)
        op["MaskTensor"] = tensor("INT32", m.shape)
        inputs["MaskTensor"] = values(m, "INT32")
    r = None
    if rpb_sizes is not None:
        r = rand(dtype, rpb_sizes)
        op["RelativePositionBiasTensor"] = tensor(dtype, rpb_sizes)
        inputs["RelativePositionBiasTensor"] = values(r, dtype)
    pk = pv = None
    if P:
        pk = rand(dtype, (B, nkv, P, H))
        pv = rand(dtype, (B, nkv, P, Hv))
        op["PastKeyTensor"] = tensor(dtype, pk.shape)
        op["PastValueTensor"] = tensor(dtype, pv.shape)
        inputs["PastKeyTensor"] = values(pk, dtype)
        inputs["PastValueTensor"] = values(pv, dtype)
    if past_lens is not None:
        op["PastSequenceLengthsTensor"] = tensor(lens_type, [B])
        inputs["PastSequenceLengthsTensor"] = values(np.asarray(past_lens, dict(NP, INT32=np.int32)[lens_type]), lens_type)
    out, rk, rv = reference(q, k, v, nq, nkv, scale, b, mask_type, m, filt, r, pk, pv, past_lens, T)
    op["OutputTensor"] = tensor(dtype, [B, S, nq * Hv])
    outputs = {"OutputTensor": dict(values=values(out.astype(NP[dtype]), dtype), **tolerance(dtype))}
    if present:
        op["OutputPresentKeyTensor"] = tensor(dtype, [B, nkv, T, H])
        op["OutputPresentValueTensor"] = tensor(dtype, [B, nkv, T, Hv])
        outputs["OutputPresentKeyTensor"] = {"values": values(rk.astype(NP[dtype]), dtype), "ulps": 1}
        outputs["OutputPresentValueTensor"] = {"values": values(rv.astype(NP[dtype]), dtype), "ulps": 1}
    op["Scale"] = float(scale)
    op["MaskFilterValue"] = float(filt)
    if v1:
        op["QueryHeadCount"] = nq
        op["KeyValueHeadCount"] = nkv
    else:
        op["HeadCount"] = nq
    op["MaskType"] = "DML_MULTIHEAD_ATTENTION_MASK_TYPE_" + mask_type
    prefix = "MULTIHEAD_ATTENTION1" if v1 else "MULTIHEAD_ATTENTION"
    return {"name": f"{prefix}_{dtype}_{name}", "operator": op, "inputs": inputs, "outputs": outputs}


def causal(S, P):
    """{1, 1, S, P+S}: query i (absolute position P+i) sees keys j <= P+i."""
    j = np.arange(P + S)
    return (j[None, :] <= (P + np.arange(S))[:, None]).astype(np.int32).reshape(1, 1, S, P + S)


def main():
    cases = []
    for dt in ["FLOAT32", "FLOAT16"]:
        cases += [
            case("separate", dt, 2, 3, 4, 2, 4),
            case("separate_value_head_size", dt, 1, 2, 5, 3, 2, Hv=3),
            case("separate_bias", dt, 2, 3, 3, 2, 4, Hv=2, bias=True),
            case("stacked_qkv", dt, 2, 4, 4, 2, 3),
            case("stacked_qkv_bias", dt, 1, 3, 3, 3, 2, bias=True),
            case("stacked_qk", dt, 2, 3, 3, 2, 4, Hv=5),
            case("stacked_kv_bias", dt, 2, 2, 5, 2, 3, bias=True),
            case("query_strided", dt, 2, 3, 2, 2, 2, query_strided=True),
            case("mask_key_sequence_length", dt, 2, 3, 5, 2, 4, mask_type="KEY_SEQUENCE_LENGTH", mask=[3, 5],
                 mask_sizes=(1, 2)),
            case("mask_key_sequence_end_start", dt, 2, 2, 5, 1, 4, mask_type="KEY_SEQUENCE_END_START",
                 mask=[4, 5, 1, 2], mask_sizes=(2, 2)),
            case("mask_key_sequence_end_start_one_row", dt, 2, 2, 4, 2, 2, mask_type="KEY_SEQUENCE_END_START",
                 mask=[3, 4, 0, 2]),
            # key lengths {2, 4}; query offsets {0, 3, 6}; key offsets {0, 2, 6}
            case("mask_key_query_sequence_length_start_end", dt, 2, 3, 4, 2, 2,
                 mask_type="KEY_QUERY_SEQUENCE_LENGTH_START_END", mask=[2, 4, 0, 3, 6, 0, 2, 6]),
            case("mask_boolean_full", dt, 2, 3, 4, 2, 2, mask_type="BOOLEAN",
                 mask=rng.integers(0, 2, (2, 2, 3, 4)), mask_sizes=(2, 2, 3, 4)),
            case("mask_boolean_broadcast", dt, 2, 3, 4, 2, 2, mask_type="BOOLEAN",
                 mask=[1, 1, 0, 1, 0, 1, 1, 1], mask_sizes=(2, 1, 1, 4), filt=-1e4),
            case("relative_position_bias", dt, 2, 3, 4, 2, 4, rpb_sizes=(2, 2, 3, 4)),
            case("relative_position_bias_broadcast_mask", dt, 1, 2, 3, 3, 2, rpb_sizes=(1, 3, 2, 3), bias=True,
                 mask_type="KEY_SEQUENCE_LENGTH", mask=[2], mask_sizes=(1, 1)),
            case("past_present", dt, 2, 2, 2, 2, 4, past=3, present=True),
            case("past_present_bias_value_head", dt, 1, 1, 1, 3, 2, Hv=4, past=4, present=True, bias=True),
            case("present_no_past", dt, 2, 3, 3, 2, 2, present=True, form="qkv"),
            # The decoder block: two new tokens over a cache of three, causal through the mask.
            case("decoder_causal_past", dt, 2, 2, 2, 2, 4, past=3, present=True, bias=True, mask_type="BOOLEAN",
                 mask=causal(2, 3), filt=-1e4),
            case("scale_and_filter", dt, 1, 3, 3, 1, 8, scale=0.7, mask_type="KEY_SEQUENCE_LENGTH", mask=[1],
                 mask_sizes=(1, 1), filt=-3.0),
            # MULTIHEAD_ATTENTION1: grouped key/value heads and past sequence lengths.
            case("grouped_heads", dt, 2, 3, 3, 2, 4, nkv=1, v1=True),
            case("grouped_heads_bias_past", dt, 1, 2, 2, 3, 2, nkv=1, v1=True, bias=True, past=2, present=True),
            case("past_sequence_lengths_decode", dt, 2, 1, 1, 2, 4, nkv=2, v1=True, past=3, present=True,
                 past_lens=[1, 3]),
            case("past_sequence_lengths_grouped", dt, 2, 1, 1, 2, 2, nkv=1, v1=True, past=3, present=True,
                 past_lens=[0, 2], total=5),
            case("v1_mask_boolean_stacked", dt, 1, 3, 3, 2, 2, v1=True, form="qkv", mask_type="BOOLEAN",
                 mask=causal(3, 0), filt=-1e4),
        ]
    # Head sizes 64 and 128 (the tiled CUDA FLOAT16 kernel's), sequences that end inside a tile of 64
    # queries and 32 keys.
    cases += [
        case("tiled_h64_causal", "FLOAT16", 1, 40, 40, 1, 64, mask_type="BOOLEAN", mask=causal(40, 0), filt=-1e4),
        case("tiled_h128_grouped_lengths", "FLOAT16", 1, 10, 33, 2, 128, nkv=1, v1=True,
             mask_type="KEY_SEQUENCE_LENGTH", mask=[30], mask_sizes=(1, 1)),
        case("tiled_h64_rows_past_tile_bias", "FLOAT16", 1, 66, 20, 1, 64, rpb_sizes=(1, 1, 66, 20)),
    ]
    # Several tiles of 64 queries and 64 keys (the sm_80 kernel's), each ending inside a tile: a
    # causal mask with whole key tiles masked (skipped at filter -1e4), a BOOLEAN mask with a row
    # that has no open key (no tile of its query tile may be skipped) and a key tile masked for a
    # whole query tile of one batch, key ranges that mask whole tiles, and a stacked layout whose
    # masked tiles count at filter -3.
    boolean = rng.integers(0, 2, (2, 1, 66, 70))
    boolean[0, 0, 3, :] = 0
    boolean[1, 0, :64, 64:] = 0
    cases += [
        case("flash_h128_causal", "FLOAT16", 1, 100, 100, 1, 128, mask_type="BOOLEAN", mask=causal(100, 0),
             filt=-1e4),
        case("flash_h64_boolean_masked_rows", "FLOAT16", 2, 66, 70, 1, 64, mask_type="BOOLEAN", mask=boolean,
             mask_sizes=(2, 1, 66, 70), filt=-1e4),
        case("flash_h64_key_ranges", "FLOAT16", 2, 3, 140, 1, 64, mask_type="KEY_SEQUENCE_END_START",
             mask=[130, 70, 10, 66], mask_sizes=(2, 2), filt=-1e4),
        case("flash_h64_stacked_lengths_filter", "FLOAT16", 1, 65, 65, 1, 64, form="qkv",
             mask_type="KEY_SEQUENCE_LENGTH", mask=[40], mask_sizes=(1, 1), filt=-3.0),
    ]
    # PastSequenceLengths as floats (the page's FLOAT32/FLOAT16; whole numbers as a client binds).
    cases += [
        case("past_sequence_lengths_float32", "FLOAT32", 2, 1, 1, 2, 4, nkv=2, v1=True, past=3, present=True,
             past_lens=[2, 0], lens_type="FLOAT32"),
        case("past_sequence_lengths_float16", "FLOAT16", 2, 1, 1, 2, 2, nkv=1, v1=True, past=3, present=True,
             past_lens=[3, 1], lens_type="FLOAT16"),
    ]
    write_cases(__file__, "attention", cases)


if __name__ == "__main__":
    main()

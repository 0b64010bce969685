#!/usr/bin/env python3
"""Conformance cases of ELEMENT_WISE_IF (Output = Condition != 0 ? A : B), computed with numpy.

Run once to (re)write cases/select_if.json. Selection copies elements bit for bit, so the expected
outputs are exact (ulps 0) and keep -0, infinities and NaN of the chosen operand. Every data type
the reference page lists, conditions with values other than 0 and 1, broadcast operands (zero
strides), a transposed operand, and a padded output whose gaps must stay untouched.
"""
import numpy as np

from case_format import is_float, tensor, values, write_cases

rng = np.random.default_rng(20261122)

NP = {"FLOAT64": np.float64, "FLOAT32": np.float32, "FLOAT16": np.float16, "INT64": np.int64, "INT32": np.int32,
      "INT16": np.int16, "INT8": np.int8, "UINT64": np.uint64, "UINT32": np.uint32, "UINT16": np.uint16,
      "UINT8": np.uint8}
SHAPE = (2, 3, 4)
COUNT = int(np.prod(SHAPE))


def operand(dtype, n):
    """n values of dtype: the type's edge values first, then random ones."""
    t = NP[dtype]
    if is_float(dtype):
        info = np.finfo(t)
        edge = [0.0, -0.0, np.inf, -np.inf, np.nan, float(info.max), -float(info.max), float(info.tiny),
                float(info.smallest_subnormal), 1.0, -1.5]
        rest = (rng.standard_normal(max(0, n - len(edge))) * 8).astype(t)
    else:
        info = np.iinfo(t)
        edge = [0, 1, int(info.max), int(info.min), int(info.max) - 1]
        rest = rng.integers(info.min, info.max, size=max(0, n - len(edge)), endpoint=True, dtype=t)
    return np.concatenate([np.array(edge, dtype=t), rest])[:n]


def condition(n):
    """Zeros and non-zeros (1, 255 and others: any non-zero byte selects A)."""
    c = rng.integers(0, 4, size=n, dtype=np.uint8)
    c[c == 2] = 255
    c[c == 3] = rng.integers(2, 255, size=int((c == 3).sum()), dtype=np.uint8)
    return c


def case(name, dtype, cond, a, b, cond_t=None, a_t=None, b_t=None, out_t=None, a_mem=None, expected=None):
    op = {"type": "DML_OPERATOR_ELEMENT_WISE_IF",
          "ConditionTensor": cond_t or tensor("UINT8", SHAPE),
          "ATensor": a_t or tensor(dtype, SHAPE),
          "BTensor": b_t or tensor(dtype, SHAPE),
          "OutputTensor": out_t or tensor(dtype, SHAPE)}
    return {"name": name, "operator": op,
            "inputs": {"ConditionTensor": [int(v) for v in cond.ravel()],
                       "ATensor": values(a if a_mem is None else a_mem, dtype), "BTensor": values(b, dtype)},
            "outputs": {"OutputTensor": {"values": values(expected, dtype)}}}


def cases():
    out = []
    for dtype in NP:
        c, a, b = condition(COUNT), operand(dtype, COUNT), operand(dtype, COUNT)[::-1].copy()
        out.append(case(f"IF_{dtype}_packed", dtype, c, a, b, expected=np.where(c != 0, a, b)))

    # Broadcast: the condition varies along the last axis only, B is one value for everything.
    for dtype in ("FLOAT32", "FLOAT16", "INT64", "UINT8"):
        c = np.array([1, 0, 7, 0], dtype=np.uint8)
        a = operand(dtype, COUNT)
        b = operand(dtype, 1)[:1] if not is_float(dtype) else np.array([-0.0], dtype=NP[dtype])
        full_c = np.broadcast_to(c, SHAPE)
        expected = np.where(full_c != 0, a.reshape(SHAPE), b[0])
        out.append(case(f"IF_{dtype}_broadcast_condition_and_B", dtype, c, a, b,
                        cond_t=tensor("UINT8", SHAPE, strides=[0, 0, 1]),
                        b_t=tensor(dtype, SHAPE, strides=[0, 0, 0]), expected=expected))

    # A transposed: its memory is [4, 3, 2] row-major, read through strides.
    for dtype in ("FLOAT32", "INT16", "FLOAT64"):
        c = condition(COUNT)
        a_memory = operand(dtype, COUNT)  # logical a[i,j,k] = a_memory[k, j, i]
        a_logical = a_memory.reshape(4, 3, 2).transpose(2, 1, 0)
        b = operand(dtype, COUNT)
        expected = np.where(c.reshape(SHAPE) != 0, a_logical, b.reshape(SHAPE))
        out.append(case(f"IF_{dtype}_transposed_A", dtype, c, None, b, a_mem=a_memory,
                        a_t=tensor(dtype, SHAPE, strides=[1, 2, 6]), expected=expected))

    # A padded output: rows of 4 elements stored 6 apart; the gaps must keep their bytes.
    for dtype in ("FLOAT16", "UINT32"):
        c, a, b = condition(COUNT), operand(dtype, COUNT), operand(dtype, COUNT)
        size = np.dtype(NP[dtype]).itemsize
        total = ((2 * 3 - 1) * 6 + 4) * size
        total += (-total) % 4
        out.append(case(f"IF_{dtype}_padded_output", dtype, c, a, b,
                        out_t=tensor(dtype, SHAPE, strides=[18, 6, 1], total=total),
                        expected=np.where(c != 0, a, b)))
    return out


write_cases(__file__, "select_if", cases())

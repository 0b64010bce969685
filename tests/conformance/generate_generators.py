#!/usr/bin/env python3
"""Conformance cases of the generator operators DML_OPERATOR_ONE_HOT, DML_OPERATOR_DIAGONAL_MATRIX and
DML_OPERATOR_DIAGONAL_MATRIX1, computed with numpy from the reference pages' definitions.

Run once to (re)write cases/generators_*.json; FreeDML is never consulted.

Semantics the references encode:
- ONE_HOT: OffValue is ValuesTensor's element 0, OnValue its element 1 along the innermost dimension
  of size > 1; each line along Axis is OffValue except OnValue at its index; a negative index of a
  signed type counts from the end (feature level 3.0); an index outside the line gives a line of
  OffValue (the page).
- DIAGONAL_MATRIX: Value where column - row == Offset, 0 elsewhere, in each trailing 2D matrix;
  integer outputs take Value truncated (the page: 10.6 becomes 10). FreeDML's choice where the page
  is silent: a Value outside an integer type's range saturates to its limits.
- DIAGONAL_MATRIX1: the page's pseudocode: Value where (End >= Begin) ^ (topX >= Begin) ^ (topX < End),
  topX = column - row; else the input element, or 0 without InputTensor.
"""
import numpy as np

from case_format import tensor, values, write_cases

rng = np.random.default_rng(20261127)
NP = {"FLOAT64": np.float64, "FLOAT32": np.float32, "FLOAT16": np.float16, "INT8": np.int8, "INT16": np.int16,
      "INT32": np.int32, "INT64": np.int64, "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32,
      "UINT64": np.uint64}
ALL = list(NP)
INDEX_TYPES = ["INT32", "INT64", "UINT32", "UINT64"]


def memory_of(logical, strides):
    """The buffer (memory order) that holds `logical` at element `strides`; gaps are zero."""
    shape = logical.shape
    length = 1 + sum((s - 1) * st for s, st in zip(shape, strides))
    memory = np.zeros(length, dtype=logical.dtype)
    index = np.indices(shape).reshape(len(shape), -1)
    memory[sum(index[d] * strides[d] for d in range(len(shape)))] = logical.ravel()
    return memory


def sample(dtype, n):
    if dtype.startswith("FLOAT"):
        return (rng.standard_normal(n) * 8).astype(NP[dtype])
    info = np.iinfo(NP[dtype])
    return rng.integers(int(info.min), int(info.max), size=n, dtype=NP[dtype], endpoint=True)


# ---- ONE_HOT ---------------------------------------------------------------------------------------


def one_hot(indices, off, on, axis, depth):
    out_shape = list(indices.shape)
    out_shape[axis] = depth
    out = np.full(out_shape, off, dtype=np.asarray(off).dtype)
    for pos in np.ndindex(*indices.shape):
        i = int(indices[pos])
        if i < 0:
            i += depth
        if 0 <= i < depth:
            p = list(pos)
            p[axis] = i
            out[tuple(p)] = on
    return out


def one_hot_case(index_type, dtype, indices, axis, depth, values_shape=(1, 1, 1, 2), values_strides=None,
                 indices_strides=None, suffix=""):
    pair = sample(dtype, 2)
    while pair[0] == pair[1]:
        pair = sample(dtype, 2)
    off, on = pair
    # ValuesTensor: OffValue first, OnValue one step along the innermost dimension of size > 1.
    vals = np.zeros(values_shape, dtype=NP[dtype])
    inner = max(d for d in range(len(values_shape)) if values_shape[d] > 1)
    vals.flat[0] = off
    pos = [0] * len(values_shape)
    pos[inner] = 1
    vals[tuple(pos)] = on
    want = one_hot(indices, off, on, axis, depth)
    vmem = vals.ravel() if values_strides is None else memory_of(vals, values_strides)
    if indices_strides is None:
        imem = indices.ravel()
    else:  # a broadcast view: the logical indices repeat along the zero strides
        imem = memory_of(indices, indices_strides)
    desc = {"type": "DML_OPERATOR_ONE_HOT", "IndicesTensor": tensor(index_type, indices.shape, indices_strides),
            "ValuesTensor": tensor(dtype, values_shape, values_strides),
            "OutputTensor": tensor(dtype, want.shape), "Axis": axis}
    name = f"ONE_HOT_{index_type}_{dtype}_{'x'.join(map(str, want.shape))}_axis{axis}{suffix}"
    return {"name": name, "operator": desc,
            "inputs": {"IndicesTensor": values(imem, index_type), "ValuesTensor": values(vmem, dtype)},
            "outputs": {"OutputTensor": {"values": values(want, dtype)}}}


cases = []
# Every output data type, index types in turn, three axes, indices beyond the line (and negative ones).
for n, dtype in enumerate(ALL):
    index_type = INDEX_TYPES[n % 4]
    signed = index_type.startswith("INT")
    low = -6 if signed else 0
    for axis, shape, depth in ((3, (1, 2, 3, 1), 5), (1, (2, 1, 4), 3), (0, (1, 6), 4)):
        idx = rng.integers(low, depth + 2, size=shape).astype(NP[index_type])  # some out of range
        cases.append(one_hot_case(index_type, dtype, idx, axis, depth))
# Every index type with negative and out-of-range values, and index type limits.
for index_type in INDEX_TYPES:
    info = np.iinfo(NP[index_type])
    idx = np.array([[0], [3], [4], [int(info.max)], [int(info.min)], [2]], dtype=NP[index_type])
    if index_type.startswith("INT"):
        idx = np.array([[0], [-1], [-4], [-5], [4], [int(info.max)], [int(info.min)], [2]], dtype=NP[index_type])
    cases.append(one_hot_case(index_type, "FLOAT32", idx, 1, 4, suffix="_limits"))
# ValuesTensor of other shapes and strides: {2} rank 1, {2,1} (OnValue along dimension 0), a padded one.
idx = np.array([[[0, 2, 1]]], dtype=np.int32)
cases.append(one_hot_case("INT32", "FLOAT32", idx, 1, 3, values_shape=(2,), suffix="_values2"))
cases.append(one_hot_case("INT32", "INT16", idx, 1, 3, values_shape=(2, 1), suffix="_values2x1"))
cases.append(one_hot_case("INT32", "FLOAT16", idx, 1, 3, values_shape=(1, 3), values_strides=(0, 2),
                          suffix="_values_strided"))
# Broadcast indices (stride 0 along a dimension).
idx = np.repeat(np.array([[1], [0], [2]], dtype=np.uint32)[None], 4, axis=0).reshape(4, 3, 1)
cases.append(one_hot_case("UINT32", "UINT8", idx, 2, 3, indices_strides=(0, 1, 1), suffix="_broadcast"))
write_cases(__file__, "generators_one_hot", cases)

# ---- DIAGONAL_MATRIX and DIAGONAL_MATRIX1 -------------------------------------------------------------


def as_type(value, dtype):
    """DIAGONAL_MATRIX's FLOAT Value in the output type: floats rounded, integers truncated and saturated."""
    v = np.float32(value)
    if dtype.startswith("FLOAT"):
        with np.errstate(over="ignore"):  # FLOAT16 overflows to infinity, as a float-to-half conversion does
            return NP[dtype](v)
    info = np.iinfo(NP[dtype])
    t = int(np.trunc(np.float64(v)))
    return NP[dtype](min(max(t, int(info.min)), int(info.max)))


def band(shape, begin, end):
    rows, cols = shape[-2], shape[-1]
    top_x = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    use = (end >= begin) ^ (top_x >= begin) ^ (top_x < end)
    return np.broadcast_to(use, shape)


def diagonal_case(dtype, shape, offset, value, suffix=""):
    v = as_type(value, dtype)
    want = np.where(band(shape, offset, offset + 1), v, NP[dtype](0)).astype(NP[dtype])
    desc = {"type": "DML_OPERATOR_DIAGONAL_MATRIX", "OutputTensor": tensor(dtype, shape), "Offset": offset,
            "Value": float(np.float32(value))}
    name = f"DIAGONAL_MATRIX_{dtype}_{'x'.join(map(str, shape))}_offset{offset}{suffix}"
    return {"name": name, "operator": desc, "inputs": {}, "outputs": {"OutputTensor": {"values": values(want, dtype)}}}


def diagonal1_case(dtype, shape, begin, end, with_input, out_strides=None, in_strides=None, suffix=""):
    value = sample(dtype, 1)[0]
    use = band(shape, begin, end)
    x = sample(dtype, int(np.prod(shape))).reshape(shape)
    if in_strides is not None:  # a broadcast input repeats along its zero strides
        for d, st in enumerate(in_strides):
            if st == 0:
                x = np.repeat(np.take(x, [0], axis=d), shape[d], axis=d)
    want = np.where(use, value, x if with_input else NP[dtype](0)).astype(NP[dtype])
    desc = {"type": "DML_OPERATOR_DIAGONAL_MATRIX1"}
    inputs = {}
    if with_input:
        desc["InputTensor"] = tensor(dtype, shape, in_strides)
        inputs["InputTensor"] = values(x.ravel() if in_strides is None else memory_of(x, in_strides), dtype)
    desc.update({"OutputTensor": tensor(dtype, shape, out_strides), "ValueDataType": dtype,
                 "Value": values([value], dtype)[0], "DiagonalFillBegin": begin, "DiagonalFillEnd": end})
    name = (f"DIAGONAL_MATRIX1_{dtype}_{'x'.join(map(str, shape))}_fill{begin}_{end}"
            f"{'_input' if with_input else ''}{suffix}")
    return {"name": name, "operator": desc, "inputs": inputs, "outputs": {"OutputTensor": {"values": values(want, dtype)}}}


cases = []
# The page's examples: 3x3 identity, shifted right/up, a 3x2 shifted left/down.
cases.append(diagonal_case("FLOAT32", (1, 1, 3, 3), 0, 1.0, "_page"))
cases.append(diagonal_case("FLOAT32", (1, 1, 3, 3), 1, 1.0, "_page"))
cases.append(diagonal_case("FLOAT32", (1, 1, 3, 2), -1, 1.0, "_page"))
for n, dtype in enumerate(ALL):
    cases.append(diagonal_case(dtype, (2, 3, 4, 5), [0, 2, -3][n % 3], 10.6))
    cases.append(diagonal_case(dtype, (5, 3), -1, -3.7))
    cases.append(diagonal_case(dtype, (3, 4), 7, 2.0, "_outside"))
for dtype in ("INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32"):
    cases.append(diagonal_case(dtype, (3, 3), 0, 1e10, "_saturated"))
    cases.append(diagonal_case(dtype, (3, 3), 0, -1e10, "_saturated"))
cases.append(diagonal_case("FLOAT16", (2, 2), 0, 0.1, "_rounded"))
cases.append(diagonal_case("FLOAT16", (2, 2), 0, 1e6, "_overflow"))
write_cases(__file__, "generators_diagonal", cases)

cases = []
for n, dtype in enumerate(ALL):
    for begin, end in ((0, 1), (-1, 2), (2, 2), (1, -1), (-10, 10)):
        cases.append(diagonal1_case(dtype, (2, 4, 5), begin, end, with_input=(n + begin) % 2 == 0))
    cases.append(diagonal1_case(dtype, (3, 4), 0, 3, True))
    cases.append(diagonal1_case(dtype, (3, 4), 2, -2, False))
# Strided input and output: a transposed input, a padded output.
cases.append(diagonal1_case("FLOAT32", (4, 3), -1, 1, True, out_strides=(5, 1), in_strides=(1, 4), suffix="_strided"))
cases.append(diagonal1_case("INT64", (2, 3, 3), 1, 0, True, in_strides=(0, 3, 1), suffix="_broadcast"))
write_cases(__file__, "generators_diagonal1", cases)

# ---- NONZERO_COORDINATES -------------------------------------------------------------------------------
# The count of nonzero elements (-0 is zero, NaN is not) and their coordinates in increasing element
# order (numpy's argwhere), the last N of each; rows past the count are zeros (FreeDML's choice: the
# page leaves them undefined).
NONZERO_TYPES = ["FLOAT32", "FLOAT16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8"]


def nonzero_case(dtype, x, n, coords_rank=4, in_strides=None, suffix=""):
    found = np.argwhere(x != 0)[:, x.ndim - n:] if x.size else np.zeros((0, n), dtype=np.int64)
    m = x.size
    coords = np.zeros((m, n), dtype=np.uint32)
    coords[:len(found)] = found
    coords_shape = [1] * (coords_rank - 2) + [m, n]
    desc = {"type": "DML_OPERATOR_NONZERO_COORDINATES", "InputTensor": tensor(dtype, x.shape, in_strides),
            "OutputCountTensor": tensor("UINT32", [1] * 4),
            "OutputCoordinatesTensor": tensor("UINT32", coords_shape)}
    memory = x.ravel() if in_strides is None else memory_of(x, in_strides)
    name = f"NONZERO_COORDINATES_{dtype}_{'x'.join(map(str, x.shape))}_n{n}{suffix}"
    return {"name": name, "operator": desc, "inputs": {"InputTensor": values(memory, dtype)},
            "outputs": {"OutputCountTensor": {"values": [len(found)]},
                        "OutputCoordinatesTensor": {"values": values(coords, "UINT32")}}}


cases = []
# The page's example: {1,1,2,4} with -0 and +0 among the values, N = 2.
page = np.array([[[[1.0, 0.0, 0.0, 2.0], [-0.0, 3.5, 0.0, -5.2]]]], dtype=np.float32)
cases.append(nonzero_case("FLOAT32", page, 2, suffix="_page"))
for dtype in NONZERO_TYPES:
    x = rng.integers(0, 3, size=(1, 3, 4, 5)).astype(NP[dtype])  # about a third zeros
    cases.append(nonzero_case(dtype, x, 3))
    cases.append(nonzero_case(dtype, x, 4, coords_rank=5, suffix="_5d"))
    cases.append(nonzero_case(dtype, np.zeros((2, 3), dtype=NP[dtype]), 2, suffix="_zeros"))
    cases.append(nonzero_case(dtype, np.ones((2, 3), dtype=NP[dtype]), 2, suffix="_ones"))
edge = np.array([[np.nan, -0.0, 0.0, np.inf], [-np.inf, 1e-45, -1e-45, 0.0]], dtype=np.float32)
cases.append(nonzero_case("FLOAT32", edge, 2, suffix="_edges"))
cases.append(nonzero_case("FLOAT16", np.array([[np.nan, -0.0, 0.0, 6e-8]], dtype=np.float16), 1, suffix="_edges"))
cases.append(nonzero_case("INT8", np.array([[-128, 0], [0, -1]], dtype=np.int8), 2, suffix="_edges"))
# A transposed input; a long input (several tiles of the CUDA block).
x = rng.integers(0, 2, size=(3, 4, 5)).astype(np.float32)
cases.append(nonzero_case("FLOAT32", x, 3, in_strides=[1, 15, 3], suffix="_strided"))
x = (rng.random((3, 1500)) < 0.3).astype(np.uint8) * rng.integers(1, 255, size=(3, 1500)).astype(np.uint8)
cases.append(nonzero_case("UINT8", x, 2, suffix="_long"))
write_cases(__file__, "generators_nonzero", cases)

# ---- RANDOM_GENERATOR -----------------------------------------------------------------------------------
# Philox 4x32-10 written here from its paper (Salmon et al., SC 2011), checked against the known-answer
# vectors Random123 publishes, then run as the DirectML page describes the state: elements 0-3 a 128-bit
# counter (element 0 least significant), elements 4-5 the key. FreeDML's choices where the page is
# silent: output element i (row-major) is word i % 4 of the block for counter + i // 4, and the output
# state is the counter advanced by the number of blocks used, ceil(elements / 4), with the same key.
MASK32 = 0xFFFFFFFF


def philox4x32_10(counter, key):
    x0, x1, x2, x3 = counter
    k0, k1 = key
    for _ in range(10):
        p0 = 0xD2511F53 * x0
        p1 = 0xCD9E8D57 * x2
        x0, x1, x2, x3 = ((p1 >> 32) ^ x1 ^ k0) & MASK32, p1 & MASK32, ((p0 >> 32) ^ x3 ^ k1) & MASK32, p0 & MASK32
        k0 = (k0 + 0x9E3779B9) & MASK32
        k1 = (k1 + 0xBB67AE85) & MASK32
    return [x0, x1, x2, x3]


# Random123's kat_vectors for philox4x32 with 10 rounds.
assert philox4x32_10([0, 0, 0, 0], [0, 0]) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
assert philox4x32_10([MASK32] * 4, [MASK32] * 2) == [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]
assert philox4x32_10([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0]) == \
    [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]


def counter_words(value):
    return [(value >> (32 * i)) & MASK32 for i in range(4)]


def random_case(state, shape, with_state=True, out_strides=None, suffix=""):
    counter = sum(w << (32 * i) for i, w in enumerate(state[:4]))
    n = int(np.prod(shape))
    blocks = (n + 3) // 4
    words = []
    for b in range(blocks):
        words += philox4x32_10(counter_words((counter + b) % (1 << 128)), state[4:])
    want = np.array(words[:n], dtype=np.uint32).reshape(shape)
    next_state = counter_words((counter + blocks) % (1 << 128)) + list(state[4:])
    desc = {"type": "DML_OPERATOR_RANDOM_GENERATOR", "InputStateTensor": tensor("UINT32", [1, 1, 1, 6]),
            "OutputTensor": tensor("UINT32", shape, out_strides)}
    outputs = {"OutputTensor": {"values": values(want, "UINT32")}}
    if with_state:
        desc["OutputStateTensor"] = tensor("UINT32", [1, 1, 1, 6])
        outputs["OutputStateTensor"] = {"values": next_state}
    desc["Type"] = "DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10"
    # The fields go in "desc": beside "type", the field Type would be taken for the operator type.
    desc = {"type": desc.pop("type"), "desc": desc}
    name = f"RANDOM_GENERATOR_{'x'.join(map(str, shape))}{'_state' if with_state else ''}{suffix}"
    return {"name": name, "operator": desc, "inputs": {"InputStateTensor": list(state)}, "outputs": outputs}


cases = []
cases.append(random_case([0, 0, 0, 0, 0, 0], (1, 1, 1, 4), suffix="_zero"))
cases.append(random_case([0, 0, 0, 0, 0, 0], (1, 1, 1, 4), with_state=False, suffix="_zero"))
cases.append(random_case([MASK32] * 6, (2, 4), suffix="_wraps"))  # the counter wraps to 0 after the first block
cases.append(random_case([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344, 0xA4093822, 0x299F31D0], (3,),
                         suffix="_pi"))
cases.append(random_case([MASK32 - 1, MASK32, 0, 7, 12345, 678], (5, 7), suffix="_carry"))  # carries across words
cases.append(random_case([17, 0, 0, 0, 0xDEADBEEF, 0xCAFEF00D], (2, 3, 4, 5)))
cases.append(random_case([3, 1, 4, 1, 5, 9], (1, 1, 1, 1)))
cases.append(random_case([0, 0, 0, 0, 42, 0], (4, 3), out_strides=(1, 4), suffix="_transposed"))
cases.append(random_case([100, 0, 0, 0, 1, 2], (2, 1031), suffix="_long"))
write_cases(__file__, "generators_random", cases)

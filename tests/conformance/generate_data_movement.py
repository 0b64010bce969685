"""Conformance cases of the data movement operators SLICE, SLICE1, PADDING, PADDING1, TILE,
SPACE_TO_DEPTH(1), DEPTH_TO_SPACE(1), GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1, SCATTER_ELEMENTS,
SCATTER_ND, SLICE_GRAD, REVERSE_SUBSEQUENCES, FOLD and UNFOLD, computed with numpy (slicing, np.pad, np.tile, reshapes and
transposes, np.take, np.take_along_axis, ONNX's GatherND and ScatterND written out as loops, and
fancy-index assignment), plus the examples of the DirectML reference pages.

Run once to (re)write cases/data_movement_*.json. The values FreeDML must produce come from numpy
here, never from FreeDML.
"""
import numpy as np

from case_format import tensor, values, write_cases

rng = np.random.default_rng(20261125)
NP = {"FLOAT64": np.float64, "FLOAT32": np.float32, "FLOAT16": np.float16, "INT64": np.int64, "INT32": np.int32,
      "INT16": np.int16, "INT8": np.int8, "UINT64": np.uint64, "UINT32": np.uint32, "UINT16": np.uint16,
      "UINT8": np.uint8}
ALL = list(NP)
TILE_TYPES = [t for t in ALL if t != "FLOAT64"]  # TILE's table has no FLOAT64
# One type of each element size, for the cases about shapes rather than types.
BY_SIZE = ["UINT8", "FLOAT16", "INT32", "FLOAT64"]


def random(dtype, shape):
    t = NP[dtype]
    if np.issubdtype(t, np.floating):
        return (rng.standard_normal(shape) * 4).astype(t)
    info = np.iinfo(t)
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=t)


def stored(dtype, array, strides):
    """The memory of `array` laid out with element `strides`: the tensor desc and its elements in
    memory order. Elements the strides skip hold random values (the operator must not read them
    into the output)."""
    count = 1 + sum((s - 1) * st for s, st in zip(array.shape, strides))
    memory = random(dtype, (count,))
    for index in np.ndindex(*array.shape):
        memory[sum(i * st for i, st in zip(index, strides))] = array[index]
    return tensor(dtype, array.shape, strides), values(memory, dtype)


def case(name, op, inputs, output, dtype):
    return {"name": name, "operator": op, "inputs": {"InputTensor": inputs},
            "outputs": {"OutputTensor": {"values": values(output, dtype)}}}


# ---- SLICE and SLICE1 ------------------------------------------------------------------------------

def slice_cases():
    cases = []

    def add_slice(name, dtype, x, offsets, sizes, strides, in_strides=None, out_strides=None):
        expected = x[tuple(slice(o, o + (n - 1) * s + 1, s) for o, n, s in zip(offsets, sizes, strides))]
        assert list(expected.shape) == list(sizes)
        if in_strides:
            in_desc, in_values = stored(dtype, x, in_strides)
        else:
            in_desc, in_values = tensor(dtype, x.shape), values(x, dtype)
        cases.append(case(name, {"type": "DML_OPERATOR_SLICE", "InputTensor": in_desc,
                                 "OutputTensor": tensor(dtype, sizes, out_strides), "Offsets": offsets,
                                 "Sizes": sizes, "Strides": strides}, in_values, expected, dtype))

    for dtype in ALL:
        add_slice(f"SLICE_{dtype}_3d", dtype, random(dtype, (3, 4, 5)), [1, 0, 2], [2, 2, 2], [1, 3, 1])
    # The reference page's examples: a contiguous and a strided slice of 1..16.
    page = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    add_slice("SLICE_page_contiguous", "FLOAT32", page, [0, 0, 1, 2], [1, 1, 3, 2], [1, 1, 1, 1])
    add_slice("SLICE_page_strided", "FLOAT32", page, [0, 0, 1, 0], [1, 1, 2, 2], [1, 1, 2, 3])
    for dtype in BY_SIZE:
        x = random(dtype, (5, 6))
        # A transposed input (strides [1, 5]) and an output with padded rows (strides [4, 1]).
        add_slice(f"SLICE_{dtype}_strided_views", dtype, x, [1, 2], [2, 3], [2, 1], in_strides=[1, 5],
                  out_strides=[4, 1])
        add_slice(f"SLICE_{dtype}_whole", dtype, x, [0, 0], [5, 6], [1, 1])
        add_slice(f"SLICE_{dtype}_last_element", dtype, x, [4, 5], [1, 1], [7, 9])
    add_slice("SLICE_INT16_1d", "INT16", random("INT16", (9,)), [2], [3], [3])
    add_slice("SLICE_UINT8_8d", "UINT8", random("UINT8", (2, 3, 2, 2, 3, 2, 2, 3)), [1, 0, 0, 1, 1, 0, 1, 0],
              [1, 2, 2, 1, 1, 1, 1, 2], [1, 2, 1, 1, 1, 1, 1, 2])

    def add_slice1(name, dtype, x, offsets, sizes, strides, out_sizes=None, in_strides=None, out_strides=None):
        # The page: a negative stride starts at the window's end. In numpy terms, the window
        # reversed, then stepped by |stride|; the output keeps its first out_sizes elements.
        window = x[tuple(slice(o, o + n) for o, n in zip(offsets, sizes))]
        picked = window[tuple(slice(None, None, s) for s in strides)]
        if out_sizes is None:
            out_sizes = list(picked.shape)
        expected = picked[tuple(slice(0, n) for n in out_sizes)]
        if in_strides:
            in_desc, in_values = stored(dtype, x, in_strides)
        else:
            in_desc, in_values = tensor(dtype, x.shape), values(x, dtype)
        cases.append(case(name, {"type": "DML_OPERATOR_SLICE1", "InputTensor": in_desc,
                                 "OutputTensor": tensor(dtype, out_sizes, out_strides),
                                 "InputWindowOffsets": offsets, "InputWindowSizes": sizes,
                                 "InputWindowStrides": strides}, in_values, expected, dtype))

    for dtype in ALL:
        add_slice1(f"SLICE1_{dtype}_backwards", dtype, random(dtype, (4, 6)), [1, 1], [3, 5], [-1, 2])
    for dtype in BY_SIZE:
        x = random(dtype, (3, 5, 7))
        add_slice1(f"SLICE1_{dtype}_all_negative", dtype, x, [0, 1, 0], [3, 4, 7], [-2, -1, -3])
        # An output shorter than the window reaches: the first elements only.
        add_slice1(f"SLICE1_{dtype}_short_output", dtype, x, [0, 0, 1], [3, 5, 6], [1, -2, 2],
                   out_sizes=[2, 1, 2])
        add_slice1(f"SLICE1_{dtype}_strided_views", dtype, x, [1, 0, 2], [2, 5, 4], [-1, 3, -1],
                   in_strides=[1, 3, 15], out_strides=[20, 5, 1])
    add_slice1("SLICE1_INT8_reverse_1d", "INT8", random("INT8", (10,)), [0], [10], [-1])
    add_slice1("SLICE1_FLOAT32_stride_beyond_window", "FLOAT32", random("FLOAT32", (6, 6)), [2, 0], [3, 6], [-5, 9])
    return cases


# ---- PADDING and PADDING1 ----------------------------------------------------------------------------

MODES = {"DML_PADDING_MODE_CONSTANT": "constant", "DML_PADDING_MODE_EDGE": "edge",
         "DML_PADDING_MODE_REFLECTION": "reflect", "DML_PADDING_MODE_SYMMETRIC": "symmetric",
         "DML_PADDING_MODE_WRAP": "wrap"}


def padded(x, mode, start, end, constant):
    pads = list(zip(start, end))
    if MODES[mode] == "constant":
        return np.pad(x, pads, mode="constant", constant_values=constant)
    return np.pad(x, pads, mode=MODES[mode])


def padding_cases():
    cases = []

    def add(name, op_type, dtype, x, mode, start, end, constant, value_field, in_strides=None, out_strides=None):
        expected = padded(x, mode, start, end, constant)
        if in_strides:
            in_desc, in_values = stored(dtype, x, in_strides)
        else:
            in_desc, in_values = tensor(dtype, x.shape), values(x, dtype)
        op = {"type": op_type, "InputTensor": in_desc, "OutputTensor": tensor(dtype, expected.shape, out_strides),
              "PaddingMode": mode}
        op.update(value_field)
        op.update({"StartPadding": start, "EndPadding": end})
        cases.append(case(name, op, in_values, expected, dtype))

    # PADDING: every mode and type; pads wider than the input fold over again (the page allows
    # them for REFLECTION and SYMMETRIC).
    for dtype in ALL:
        x = random(dtype, (2, 3, 4))
        for mode in MODES:
            if mode == "DML_PADDING_MODE_WRAP" and dtype not in BY_SIZE:
                continue
            constant = NP[dtype](7) if mode == "DML_PADDING_MODE_CONSTANT" else 0
            add(f"PADDING_{dtype}_{mode[17:]}", "DML_OPERATOR_PADDING", dtype, x, mode, [1, 0, 2], [0, 4, 9],
                constant, {"PaddingValue": 7.0})
    # The FLOAT value in an integer tensor truncates toward zero (the page: 10.6 becomes 10).
    # Beyond the type's range it saturates: FreeDML's choice, the page is silent.
    for dtype, value, expect in [("INT32", 10.6, 10), ("INT8", -3.7, -3), ("UINT16", 65535.9, 65535),
                                 ("UINT8", 300.0, 255), ("INT16", -40000.0, -32768),
                                 ("FLOAT16", 0.1, np.float16(0.1)), ("FLOAT64", 0.1, np.float64(np.float32(0.1)))]:
        add(f"PADDING_{dtype}_value_{value}", "DML_OPERATOR_PADDING", dtype, random(dtype, (3, 2)),
            "DML_PADDING_MODE_CONSTANT", [1, 2], [2, 0], NP[dtype](expect), {"PaddingValue": value})
    for dtype in BY_SIZE:
        x = random(dtype, (3, 4))
        add(f"PADDING_{dtype}_zero_pads", "DML_OPERATOR_PADDING", dtype, x, "DML_PADDING_MODE_REFLECTION",
            [0, 0], [0, 0], 0, {"PaddingValue": 0.0})
        add(f"PADDING_{dtype}_strided_views", "DML_OPERATOR_PADDING", dtype, x, "DML_PADDING_MODE_SYMMETRIC",
            [2, 1], [1, 3], 0, {"PaddingValue": 0.0}, in_strides=[1, 3], out_strides=[10, 1])
    add("PADDING_FLOAT32_reflect_single_element", "DML_OPERATOR_PADDING", "FLOAT32", random("FLOAT32", (1, 3)),
        "DML_PADDING_MODE_REFLECTION", [2, 1], [3, 1], 0, {"PaddingValue": 0.0})

    # PADDING1: the value in the tensor's own type, exactly (an INT64 beyond FLOAT's precision,
    # UINT64's largest, FLOAT64's 1/3, FLOAT16's smallest subnormal).
    typed = {"FLOAT64": 1 / 3, "FLOAT32": -2.5, "FLOAT16": float(np.float16(2.0 ** -24)), "INT64": 2 ** 40 + 1,
             "INT32": -2 ** 31, "INT16": 12345, "INT8": -128, "UINT64": 2 ** 64 - 1, "UINT32": 2 ** 32 - 1,
             "UINT16": 65535, "UINT8": 200}
    for dtype in ALL:
        x = random(dtype, (2, 3, 2))
        value = typed[dtype]
        add(f"PADDING1_{dtype}_CONSTANT", "DML_OPERATOR_PADDING1", dtype, x, "DML_PADDING_MODE_CONSTANT",
            [0, 2, 1], [1, 1, 0], NP[dtype](value), {"PaddingValueDataType": dtype, "PaddingValue": value})
        for mode in ["DML_PADDING_MODE_EDGE", "DML_PADDING_MODE_REFLECTION", "DML_PADDING_MODE_SYMMETRIC"]:
            if dtype not in BY_SIZE:
                continue
            add(f"PADDING1_{dtype}_{mode[17:]}", "DML_OPERATOR_PADDING1", dtype, x, mode, [2, 0, 3], [1, 5, 0], 0,
                {"PaddingValueDataType": dtype, "PaddingValue": 0})
    # The PADDING1 page's four examples (value 9 for CONSTANT), on its {1, 1, 4, 4} input.
    page = np.array([1, 2, 3, 4, 5, 6, 7, 8] * 2, dtype=np.float32).reshape(1, 1, 4, 4)
    for mode in list(MODES)[:4]:
        add(f"PADDING1_page_{mode[17:]}", "DML_OPERATOR_PADDING1", "FLOAT32", page, mode, [0, 0, 1, 2], [0, 0, 3, 4],
            np.float32(9), {"PaddingValueDataType": "FLOAT32", "PaddingValue": 9})
    return cases


# ---- TILE ----------------------------------------------------------------------------------------------

def tile_cases():
    cases = []

    def add(name, dtype, x, repeats, in_strides=None, out_strides=None):
        expected = np.tile(x, repeats)
        if in_strides:
            in_desc, in_values = stored(dtype, x, in_strides)
        else:
            in_desc, in_values = tensor(dtype, x.shape), values(x, dtype)
        cases.append(case(name, {"type": "DML_OPERATOR_TILE", "InputTensor": in_desc,
                                 "OutputTensor": tensor(dtype, expected.shape, out_strides), "Repeats": repeats},
                          in_values, expected, dtype))

    for dtype in TILE_TYPES:
        add(f"TILE_{dtype}_2d", dtype, random(dtype, (2, 3)), [2, 3])
    for dtype in ["UINT8", "FLOAT16", "INT32", "UINT64"]:
        x = random(dtype, (3, 2))
        add(f"TILE_{dtype}_ones", dtype, x, [1, 1])
        add(f"TILE_{dtype}_strided_views", dtype, x, [3, 2], in_strides=[1, 3], out_strides=[5, 1])
        add(f"TILE_{dtype}_4d", dtype, random(dtype, (1, 2, 1, 3)), [2, 1, 3, 2])
    add("TILE_INT8_1d", "INT8", random("INT8", (4,)), [5])
    return cases


# ---- SPACE_TO_DEPTH(1), DEPTH_TO_SPACE(1) -----------------------------------------------------------

ORDERS = ["DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW", "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH"]


def depth_to_space(x, b, order):
    n, cbb, h, w = x.shape
    c = cbb // (b * b)
    if order == ORDERS[0]:  # channel (by * b + bx) * C + c
        y = x.reshape(n, b, b, c, h, w).transpose(0, 3, 4, 1, 5, 2)
    else:  # channel (c * b + by) * b + bx
        y = x.reshape(n, c, b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c, h * b, w * b)


def space_to_depth(x, b, order):
    n, c, hb, wb = x.shape
    h, w = hb // b, wb // b
    y = x.reshape(n, c, h, b, w, b)
    if order == ORDERS[0]:
        y = y.transpose(0, 3, 5, 1, 2, 4)
    else:
        y = y.transpose(0, 1, 3, 5, 2, 4)
    return y.reshape(n, c * b * b, h, w)


def depth_space_cases():
    cases = []

    def add(name, op_type, dtype, x, b, order, in_strides=None, out_strides=None):
        to_space = "DEPTH_TO_SPACE" in op_type
        expected = (depth_to_space if to_space else space_to_depth)(x, b, order or ORDERS[0])
        if in_strides:
            in_desc, in_values = stored(dtype, x, in_strides)
        else:
            in_desc, in_values = tensor(dtype, x.shape), values(x, dtype)
        op = {"type": op_type, "InputTensor": in_desc, "OutputTensor": tensor(dtype, expected.shape, out_strides),
              "BlockSize": b}
        if order:
            op["Order"] = order
        cases.append(case(name, op, in_values, expected, dtype))

    # The reference pages' example input: {1, 8, 2, 3}, channel k holding 9k + 0..5.
    page = (np.arange(8, dtype=np.uint32)[:, None] * 9 + np.arange(6, dtype=np.uint32)).reshape(1, 8, 2, 3)
    for order in ORDERS:
        add(f"DEPTH_TO_SPACE1_page_{order[22:]}", "DML_OPERATOR_DEPTH_TO_SPACE1", "UINT32", page, 2, order)
        add(f"SPACE_TO_DEPTH1_page_{order[22:]}", "DML_OPERATOR_SPACE_TO_DEPTH1", "UINT32",
            depth_to_space(page, 2, order), 2, order)
    for dtype in ALL:
        add(f"DEPTH_TO_SPACE_{dtype}", "DML_OPERATOR_DEPTH_TO_SPACE", dtype, random(dtype, (2, 8, 2, 3)), 2, None)
        add(f"SPACE_TO_DEPTH_{dtype}", "DML_OPERATOR_SPACE_TO_DEPTH", dtype, random(dtype, (2, 2, 4, 6)), 2, None)
        for order in ORDERS:
            add(f"DEPTH_TO_SPACE1_{dtype}_{order[22:]}", "DML_OPERATOR_DEPTH_TO_SPACE1", dtype,
                random(dtype, (1, 12, 2, 2)), 2, order)
            add(f"SPACE_TO_DEPTH1_{dtype}_{order[22:]}", "DML_OPERATOR_SPACE_TO_DEPTH1", dtype,
                random(dtype, (2, 3, 4, 2)), 2, order)
    for dtype in BY_SIZE:
        for order in ORDERS:
            add(f"DEPTH_TO_SPACE1_{dtype}_block3_{order[22:]}", "DML_OPERATOR_DEPTH_TO_SPACE1", dtype,
                random(dtype, (1, 18, 2, 1)), 3, order)
            add(f"SPACE_TO_DEPTH1_{dtype}_strided_{order[22:]}", "DML_OPERATOR_SPACE_TO_DEPTH1", dtype,
                random(dtype, (1, 2, 4, 4)), 2, order, in_strides=[32, 1, 8, 2], out_strides=[40, 5, 2, 1])
        add(f"DEPTH_TO_SPACE_{dtype}_block1", "DML_OPERATOR_DEPTH_TO_SPACE", dtype, random(dtype, (1, 3, 2, 2)), 1,
            None)
    return cases


# ---- GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1 ---------------------------------------------------

INDEX_TYPES = ["INT64", "INT32", "UINT64", "UINT32"]


def indices(index_type, shape, n):
    """Indices into a dimension of n elements; signed types get negative ones too (-n to -1 count
    from the end, as the pages define from feature level 3.0)."""
    low = -n if index_type.startswith("INT") else 0
    return rng.integers(low, n, size=shape).astype(NP[index_type])


def padded_shape(shape, rank):
    return [1] * (rank - len(shape)) + list(shape)


def gather_cases():
    cases = []

    def add(name, op, x, idx, index_type, expected, dtype, in_strides=None):
        if in_strides:
            in_desc, in_values = stored(dtype, x, in_strides)
        else:
            in_desc, in_values = tensor(dtype, x.shape), values(x, dtype)
        op = dict(op)
        op["InputTensor"] = in_desc
        op["IndicesTensor"] = tensor(index_type, idx.shape)
        op["OutputTensor"] = tensor(dtype, expected.shape)
        cases.append({"name": name, "operator": op,
                      "inputs": {"InputTensor": in_values, "IndicesTensor": values(idx, index_type)},
                      "outputs": {"OutputTensor": {"values": values(expected, dtype)}}})

    def gather(name, dtype, x, axis, idx_shape, index_dims, index_type, in_strides=None):
        rank = x.ndim
        idx = indices(index_type, padded_shape(idx_shape, rank), x.shape[axis])
        original = idx.reshape(idx_shape).astype(np.int64)
        taken = np.take(x, original, axis=axis)  # numpy wraps negative indices from the end
        # DirectML right-aligns the result to the tensors' rank (leading ones dropped or added).
        shape = list(taken.shape)
        while len(shape) > rank:
            assert shape[0] == 1
            shape.pop(0)
        expected = taken.reshape(padded_shape(shape, rank))
        add(name, {"type": "DML_OPERATOR_GATHER", "Axis": axis, "IndexDimensions": index_dims}, x, idx, index_type,
            expected, dtype, in_strides)

    for dtype in ALL:
        gather(f"GATHER_{dtype}_embedding", dtype, random(dtype, (1, 1, 10, 4)), 2, (2, 3), 2, "INT32")
    for index_type in INDEX_TYPES:
        gather(f"GATHER_INT16_axis1_{index_type}", "INT16", random("INT16", (2, 5, 3)), 1, (4,), 1, index_type)
        gather(f"GATHER_FLOAT32_axis0_{index_type}", "FLOAT32", random("FLOAT32", (6, 2, 3)), 0, (1, 4), 2,
               index_type)
    gather("GATHER_UINT8_scalar_index", "UINT8", random("UINT8", (2, 5, 3)), 1, (), 0, "INT64")
    gather("GATHER_FLOAT64_last_axis", "FLOAT64", random("FLOAT64", (1, 3, 4)), 2, (5,), 1, "UINT32")
    gather("GATHER_FLOAT16_strided_input", "FLOAT16", random("FLOAT16", (1, 4, 3)), 1, (2,), 1, "INT64",
           in_strides=[12, 1, 4])

    def gather_elements(name, dtype, x, axis, idx_shape, index_type, in_strides=None):
        idx = indices(index_type, idx_shape, x.shape[axis])
        window = x[tuple(slice(None) if d == axis else slice(0, n) for d, n in enumerate(idx_shape))]
        expected = np.take_along_axis(window, idx.astype(np.int64) % x.shape[axis], axis=axis)
        add(name, {"type": "DML_OPERATOR_GATHER_ELEMENTS", "Axis": axis}, x, idx, index_type, expected, dtype,
            in_strides)

    for dtype in ALL:
        gather_elements(f"GATHER_ELEMENTS_{dtype}", dtype, random(dtype, (3, 4)), 1, (3, 6), "INT64")
    for index_type in INDEX_TYPES:
        gather_elements(f"GATHER_ELEMENTS_INT32_axis0_smaller_{index_type}", "INT32", random("INT32", (4, 5, 2)), 0,
                        (3, 2, 2), index_type)
    gather_elements("GATHER_ELEMENTS_UINT16_strided_input", "UINT16", random("UINT16", (3, 4)), 0, (5, 4), "INT32",
                    in_strides=[1, 3])

    def gather_nd(name, dtype, x_shape, idx_shape, batch, index_type, rank=4, nd1=True):
        """x_shape and idx_shape are the original shapes; both are padded to `rank`."""
        x = random(dtype, x_shape)
        q = idx_shape[-1]
        idx = np.empty(idx_shape, dtype=NP[index_type])
        for d in range(q):
            idx[..., d] = indices(index_type, idx_shape[:-1], x_shape[batch + d])
        out_shape = list(idx_shape[:-1]) + list(x_shape[batch + q:])
        expected = np.empty(out_shape, dtype=x.dtype)
        for p in np.ndindex(*idx_shape[:-1]):
            coords = tuple(int(v) % x_shape[batch + k] for k, v in enumerate(idx[p]))
            expected[p] = x[tuple(p[:batch]) + coords]
        op = {"type": "DML_OPERATOR_GATHER_ND1" if nd1 else "DML_OPERATOR_GATHER_ND",
              "InputDimensionCount": len(x_shape), "IndicesDimensionCount": len(idx_shape)}
        if nd1:
            op["BatchDimensionCount"] = batch
        add(name, op, x.reshape(padded_shape(x_shape, rank)), idx.reshape(padded_shape(idx_shape, rank)), index_type,
            expected.reshape(padded_shape(out_shape, rank)), dtype)

    for dtype in ALL:
        gather_nd(f"GATHER_ND_{dtype}", dtype, (3, 4, 5), (2, 2), 0, "INT64", nd1=False)
        gather_nd(f"GATHER_ND1_{dtype}_batch1", dtype, (2, 3, 4), (2, 3, 1), 1, "INT32")
    for index_type in INDEX_TYPES:
        gather_nd(f"GATHER_ND_FLOAT32_full_tuple_{index_type}", "FLOAT32", (3, 4), (5, 2), 0, index_type, nd1=False)
        gather_nd(f"GATHER_ND1_UINT8_batch2_{index_type}", "UINT8", (2, 2, 3, 4), (2, 2, 2, 1), 2, index_type)
    gather_nd("GATHER_ND1_INT16_batch0_rows", "INT16", (4, 3), (2, 1), 0, "INT32")
    return cases


# ---- SCATTER_ELEMENTS, SCATTER_ND ----------------------------------------------------------------------

def distinct_indices(index_type, count, n, negative):
    """`count` distinct positions in [0, n) (duplicates have no defined result in DirectML), written
    as negative indices (-n to -1) where `negative` and the type is signed."""
    picked = rng.permutation(n)[:count].astype(np.int64)
    if negative and index_type.startswith("INT"):
        picked = np.where(rng.integers(0, 2, size=count) == 1, picked - n, picked)
    return picked


def scatter_cases():
    cases = []

    def add(name, op, x, idx, index_type, upd, expected, dtype, in_strides=None, upd_strides=None, out_strides=None):
        if in_strides:
            in_desc, in_values = stored(dtype, x, in_strides)
        else:
            in_desc, in_values = tensor(dtype, x.shape), values(x, dtype)
        if upd_strides:
            upd_desc, upd_values = stored(dtype, upd, upd_strides)
        else:
            upd_desc, upd_values = tensor(dtype, upd.shape), values(upd, dtype)
        op = dict(op)
        op["InputTensor"] = in_desc
        op["IndicesTensor"] = tensor(index_type, idx.shape)
        op["UpdatesTensor"] = upd_desc
        op["OutputTensor"] = tensor(dtype, x.shape, out_strides)
        cases.append({"name": name, "operator": op,
                      "inputs": {"InputTensor": in_values, "IndicesTensor": values(idx, index_type),
                                 "UpdatesTensor": upd_values},
                      "outputs": {"OutputTensor": {"values": values(expected, dtype)}}})

    def scatter_elements(name, dtype, shape, axis, count, index_type, negative=True, **strides):
        x = random(dtype, shape)
        idx_shape = list(shape)
        idx_shape[axis] = count
        # Distinct along the axis for every other coordinate, so no two updates meet.
        idx = np.empty(idx_shape, dtype=np.int64)
        for p in np.ndindex(*[n for d, n in enumerate(idx_shape) if d != axis]):
            sel = list(p)
            sel.insert(axis, slice(None))
            idx[tuple(sel)] = distinct_indices(index_type, count, shape[axis], negative)
        upd = random(dtype, idx_shape)
        expected = x.copy()
        np.put_along_axis(expected, idx % shape[axis], upd, axis=axis)
        add(name, {"type": "DML_OPERATOR_SCATTER_ELEMENTS", "Axis": axis}, x, idx.astype(NP[index_type]), index_type,
            upd, expected, dtype, **strides)

    for dtype in ALL:
        scatter_elements(f"SCATTER_ELEMENTS_{dtype}", dtype, (3, 5), 1, 3, "INT64")
    for index_type in INDEX_TYPES:
        scatter_elements(f"SCATTER_ELEMENTS_FLOAT32_axis0_{index_type}", "FLOAT32", (4, 2, 3), 0, 2, index_type)
    scatter_elements("SCATTER_ELEMENTS_FLOAT16_strided_views", "FLOAT16", (4, 3), 0, 3, "INT32",
                     in_strides=[1, 4], upd_strides=[1, 3], out_strides=[4, 1])
    # The reference page's first example: [0,1,2,3,4], indices [3,1,3,0], updates [5,6,7,8] gives
    # [8,6,2,7,4]: of the two writes to element 3 the later one. Duplicates are undefined in
    # DirectML, so the case keeps the distinct three of them.
    add("SCATTER_ELEMENTS_page_1d", {"type": "DML_OPERATOR_SCATTER_ELEMENTS", "Axis": 0},
        np.arange(5, dtype=np.float32), np.array([3, 1, 0], dtype=np.uint32), "UINT32",
        np.array([5, 6, 8], dtype=np.float32), np.array([8, 6, 2, 5, 4], dtype=np.float32), "FLOAT32")

    def scatter_nd(name, dtype, x_shape, idx_shape, index_type, rank=4, **strides):
        """ONNX's ScatterND with distinct index tuples; shapes padded to `rank`."""
        x = random(dtype, x_shape)
        q = idx_shape[-1]
        tuples = int(np.prod(idx_shape[:-1]))
        space = int(np.prod(x_shape[:q]))
        flat = rng.permutation(space)[:tuples]
        coords = np.stack(np.unravel_index(flat, x_shape[:q]), axis=-1).astype(np.int64)
        if index_type.startswith("INT"):
            negate = rng.integers(0, 2, size=coords.shape) == 1
            coords = np.where(negate, coords - np.array(x_shape[:q]), coords)
        idx = coords.reshape(idx_shape)
        upd_shape = list(idx_shape[:-1]) + list(x_shape[q:])
        upd = random(dtype, upd_shape)
        expected = x.copy()
        for p in np.ndindex(*idx_shape[:-1]):
            target = tuple(int(v) % x_shape[k] for k, v in enumerate(idx[p]))
            expected[target] = upd[p]
        op = {"type": "DML_OPERATOR_SCATTER_ND", "InputDimensionCount": len(x_shape),
              "IndicesDimensionCount": len(idx_shape)}
        add(name, op, x.reshape(padded_shape(x_shape, rank)), idx.astype(NP[index_type]).reshape(
            padded_shape(idx_shape, rank)), index_type, upd.reshape(padded_shape(upd_shape, rank)),
            expected.reshape(padded_shape(x_shape, rank)), dtype, **strides)

    for dtype in ALL:
        scatter_nd(f"SCATTER_ND_{dtype}_rows", dtype, (4, 3), (2, 1), "INT64")
    for index_type in INDEX_TYPES:
        scatter_nd(f"SCATTER_ND_INT16_full_tuple_{index_type}", "INT16", (3, 4), (5, 2), index_type)
        scatter_nd(f"SCATTER_ND_FLOAT32_blocks_{index_type}", "FLOAT32", (3, 2, 4), (2, 1), index_type, rank=3)
    scatter_nd("SCATTER_ND_UINT8_strided_views", "UINT8", (3, 4), (2, 1), "INT32", rank=2,
               in_strides=[1, 3], upd_strides=[1, 2], out_strides=[5, 1])
    return cases


# ---- SLICE_GRAD ------------------------------------------------------------------------------------

def slice_grad_cases():
    cases = []

    def add(name, dtype, shape, offsets, sizes, strides, dy_strides=None, dx_strides=None):
        # SLICE1's window of a tensor of `shape`; the gradient lands where SLICE1 read, zeros elsewhere.
        index = np.arange(int(np.prod(shape))).reshape(shape)
        window = index[tuple(slice(o, o + n) for o, n in zip(offsets, sizes))]
        picked = window[tuple(slice(None, None, s) for s in strides)]
        dy = random(dtype, picked.shape)
        expected = np.zeros(int(np.prod(shape)), dtype=NP[dtype])
        expected[picked.reshape(-1)] = dy.reshape(-1)
        if dy_strides:
            dy_desc, dy_values = stored(dtype, dy, dy_strides)
        else:
            dy_desc, dy_values = tensor(dtype, dy.shape), values(dy, dtype)
        op = {"type": "DML_OPERATOR_SLICE_GRAD", "InputGradientTensor": dy_desc,
              "OutputGradientTensor": tensor(dtype, shape, dx_strides), "InputWindowOffsets": offsets,
              "InputWindowSizes": sizes, "InputWindowStrides": strides}
        cases.append({"name": name, "operator": op, "inputs": {"InputGradientTensor": dy_values},
                      "outputs": {"OutputGradientTensor": {"values": values(expected.reshape(shape), dtype)}}})

    for dtype in ALL:
        add(f"SLICE_GRAD_{dtype}_backwards", dtype, [4, 6], [1, 1], [3, 5], [-1, 2])
    for dtype in BY_SIZE:
        add(f"SLICE_GRAD_{dtype}_all_negative", dtype, [3, 5, 7], [0, 1, 0], [3, 4, 7], [-2, -1, -3])
        add(f"SLICE_GRAD_{dtype}_strided_views", dtype, [3, 5, 4], [1, 0, 2], [2, 5, 2], [-1, 3, 1],
            dy_strides=[1, 2, 4], dx_strides=[24, 4, 1])
    add("SLICE_GRAD_FLOAT32_whole", "FLOAT32", [2, 3], [0, 0], [2, 3], [1, 1])
    return cases


# ---- REVERSE_SUBSEQUENCES -------------------------------------------------------------------------

def reverse_subsequences_cases():
    cases = []

    def add(name, dtype, x, axis, lengths, length_type, in_strides=None, out_strides=None):
        n = x.shape[axis]
        expected = x.copy()
        moved = np.moveaxis(expected, axis, -1)  # a view: writes land in expected
        src = np.moveaxis(x, axis, -1)
        lens = np.moveaxis(lengths, axis, -1)[..., 0]
        for p in np.ndindex(*moved.shape[:-1]):
            k = min(int(lens[p]), n)  # the page: a length beyond the axis acts as the axis size
            moved[p][:k] = src[p][:k][::-1]
        if in_strides:
            in_desc, in_values = stored(dtype, x, in_strides)
        else:
            in_desc, in_values = tensor(dtype, x.shape), values(x, dtype)
        op = {"type": "DML_OPERATOR_REVERSE_SUBSEQUENCES", "InputTensor": in_desc,
              "SequenceLengthsTensor": tensor(length_type, lengths.shape),
              "OutputTensor": tensor(dtype, x.shape, out_strides), "Axis": axis}
        cases.append({"name": name, "operator": op,
                      "inputs": {"InputTensor": in_values, "SequenceLengthsTensor": values(lengths, length_type)},
                      "outputs": {"OutputTensor": {"values": values(expected, dtype)}}})

    def lengths_for(shape, axis, length_type):
        lshape = list(shape)
        lshape[axis] = 1
        # 0 to one past the axis size (clamped), so empty, partial, whole and too-long subsequences.
        return rng.integers(0, shape[axis] + 2, size=lshape).astype(NP[length_type])

    for dtype in ALL:
        add(f"REVERSE_SUBSEQUENCES_{dtype}", dtype, random(dtype, (3, 5)), 1, lengths_for((3, 5), 1, "UINT32"),
            "UINT32")
    for length_type in ["UINT32", "UINT64"]:
        add(f"REVERSE_SUBSEQUENCES_FLOAT32_axis0_{length_type}", "FLOAT32", random("FLOAT32", (6, 2, 3)), 0,
            lengths_for((6, 2, 3), 0, length_type), length_type)
    add("REVERSE_SUBSEQUENCES_FLOAT16_strided_views", "FLOAT16", random("FLOAT16", (4, 3)), 0,
        lengths_for((4, 3), 0, "UINT64"), "UINT64", in_strides=[1, 4], out_strides=[4, 1])
    # The reference page's two examples.
    page = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 3, 4)
    add("REVERSE_SUBSEQUENCES_page_axis3", "FLOAT32", page, 3, np.array([2, 4, 3], dtype=np.uint32).reshape(1, 1, 3, 1),
        "UINT32")
    add("REVERSE_SUBSEQUENCES_page_axis2", "FLOAT32", page, 2, np.array([2, 3, 1, 0], dtype=np.uint32).reshape(1, 1, 1, 4),
        "UINT32")
    return cases


# ---- FOLD and UNFOLD -----------------------------------------------------------------------------

FOLD_SUM_TOLERANCE = {"FLOAT64": {"ulps": 4, "absolute": 1e-12}, "FLOAT32": {"ulps": 4, "absolute": 1e-5},
                      "FLOAT16": {"ulps": 1, "absolute": 1e-3}}
FOLD_TYPES = ["FLOAT64", "FLOAT32", "FLOAT16", "INT64", "INT32", "UINT64", "UINT32"]


def window_geometry(spatial, window, strides, dilations, start, end):
    blocks = [(n + s + e - d * (w - 1) - 1) // st + 1
              for n, w, st, d, s, e in zip(spatial, window, strides, dilations, start, end)]
    return blocks


def unfold_reference(x, window, strides, dilations, start, end):
    """im2col by loops over a zero-padded copy: column (n, c * P + w, l)."""
    n_, c_ = x.shape[:2]
    spatial = x.shape[2:]
    padded = np.pad(x.astype(np.float64) if x.dtype.kind == "f" else x,
                    [(0, 0), (0, 0)] + [(s, e) for s, e in zip(start, end)])
    blocks = window_geometry(spatial, window, strides, dilations, start, end)
    P, L = int(np.prod(window)), int(np.prod(blocks))
    out = np.zeros((n_, c_ * P, L), dtype=padded.dtype)
    for l, b in enumerate(np.ndindex(*blocks)):
        for w, wd in enumerate(np.ndindex(*window)):
            pos = tuple(bb * st + ww * d for bb, st, ww, d in zip(b, strides, wd, dilations))
            for c in range(c_):
                out[:, c * P + w, l] = padded[(slice(None), c) + pos]
    return out


def fold_reference(cols, image_shape, window, strides, dilations, start, end):
    """col2im by loops that add every column element into a zero-padded image, then crop."""
    n_, c_ = image_shape[:2]
    spatial = image_shape[2:]
    acc = np.float64 if cols.dtype.kind == "f" else cols.dtype
    padded = np.zeros([n_, c_] + [n + s + e for n, s, e in zip(spatial, start, end)], dtype=acc)
    blocks = window_geometry(spatial, window, strides, dilations, start, end)
    P = int(np.prod(window))
    for l, b in enumerate(np.ndindex(*blocks)):
        for w, wd in enumerate(np.ndindex(*window)):
            pos = tuple(bb * st + ww * d for bb, st, ww, d in zip(b, strides, wd, dilations))
            for c in range(c_):
                padded[(slice(None), c) + pos] += cols[:, c * P + w, l].astype(acc)
    return padded[(slice(None), slice(None)) + tuple(slice(s, s + n) for s, n in zip(start, spatial))]


def small(dtype, shape):
    """Values whose sums stay exact in every FOLD type (integers: no overflow)."""
    t = NP[dtype]
    if np.issubdtype(t, np.floating):
        return (rng.standard_normal(shape) * 4).astype(t)
    low = 0 if dtype.startswith("U") else -100
    return rng.integers(low, 100, size=shape).astype(t)


def fold_cases():
    cases = []

    def add(name, op_type, dtype, x, expected, fields, in_strides=None, out_strides=None):
        if in_strides:
            in_desc, in_values = stored(dtype, x, in_strides)
        else:
            in_desc, in_values = tensor(dtype, x.shape), values(x, dtype)
        op = {"type": op_type, "InputTensor": in_desc, "OutputTensor": tensor(dtype, expected.shape, out_strides)}
        op.update(fields)
        c = case(name, op, in_values, expected.astype(NP[dtype]), dtype)
        if op_type == "DML_OPERATOR_FOLD" and dtype in FOLD_SUM_TOLERANCE:
            # Sums of up to a few dozen terms in the element type (FLOAT16 in float32), against a
            # float64 reference: a few ulps, or an absolute bound where terms cancel near zero.
            c["outputs"]["OutputTensor"].update(FOLD_SUM_TOLERANCE[dtype])
        cases.append(c)

    def both(name, dtype, image_shape, window, strides, dilations, start, end, unfold=True, fold=True, **views):
        fields = {"DimensionCount": len(window), "WindowSizes": window, "Strides": strides, "Dilations": dilations,
                  "StartPadding": start, "EndPadding": end}
        if unfold:
            x = random(dtype, image_shape)
            add(f"UNFOLD_{name}", "DML_OPERATOR_UNFOLD", dtype, x,
                unfold_reference(x, window, strides, dilations, start, end), fields, **views)
        if fold:
            blocks = window_geometry(image_shape[2:], window, strides, dilations, start, end)
            cols = small(dtype, (image_shape[0], image_shape[1] * int(np.prod(window)), int(np.prod(blocks))))
            add(f"FOLD_{name}", "DML_OPERATOR_FOLD", dtype, cols,
                fold_reference(cols, image_shape, window, strides, dilations, start, end), fields)

    for dtype in FOLD_TYPES:
        # Overlapping 3x3 windows with stride 1 and padding 1: every image element in several.
        both(f"{dtype}_3x3_overlap", dtype, (1, 2, 4, 5), [3, 3], [1, 1], [1, 1], [1, 1], [1, 1])
    for dtype in ["INT8", "UINT16"]:
        both(f"{dtype}_2x2", dtype, (2, 1, 4, 4), [2, 2], [2, 2], [1, 1], [0, 0], [0, 0], fold=False)
    both("FLOAT32_dilated_strided", "FLOAT32", (1, 3, 7, 6), [2, 3], [2, 1], [2, 2], [1, 0], [0, 2])
    both("FLOAT32_1d", "FLOAT32", (2, 2, 9), [3], [2], [1], [2], [1])
    both("FLOAT16_3d", "FLOAT16", (1, 1, 3, 4, 3), [2, 2, 2], [1, 2, 1], [1, 1, 2], [0, 1, 0], [1, 0, 0])
    both("FLOAT32_strided_views", "FLOAT32", (1, 2, 3, 4), [2, 2], [1, 1], [1, 1], [0, 0], [0, 0], fold=False,
         in_strides=[24, 1, 8, 2], out_strides=[40, 7, 1])
    return cases


# ---- Long packed rows ---------------------------------------------------------------------------------
# Rows of many elements, packed on both sides, whose lengths and offsets allow wide copy units (16
# bytes) or only narrow ones (2 bytes), some longer than one block's segment of a row. Written last
# so that the random values of the cases above stay as they were.

def long_row_cases():
    cases = []

    def add_slice(name, dtype, x, offsets, sizes):
        expected = x[tuple(slice(o, o + n) for o, n in zip(offsets, sizes))]
        cases.append(case(name, {"type": "DML_OPERATOR_SLICE", "InputTensor": tensor(dtype, x.shape),
                                 "OutputTensor": tensor(dtype, sizes), "Offsets": offsets, "Sizes": sizes,
                                 "Strides": [1] * len(sizes)}, values(x, dtype), expected, dtype))

    add_slice("ROWS_SLICE_FLOAT32_aligned", "FLOAT32", random("FLOAT32", (3, 80)), [0, 8], [3, 40])
    add_slice("ROWS_SLICE_FLOAT16_unaligned", "FLOAT16", random("FLOAT16", (3, 75)), [1, 3], [2, 37])
    add_slice("ROWS_SLICE_UINT8_long", "UINT8", random("UINT8", (2, 2100)), [0, 7], [2, 2090])

    def add_padding(name, dtype, x, mode, start, end, constant):
        expected = padded(x, mode, start, end, constant)
        op = {"type": "DML_OPERATOR_PADDING", "InputTensor": tensor(dtype, x.shape),
              "OutputTensor": tensor(dtype, expected.shape), "PaddingMode": mode, "PaddingValue": float(constant),
              "StartPadding": start, "EndPadding": end}
        cases.append(case(name, op, values(x, dtype), expected, dtype))

    add_padding("ROWS_PADDING_FLOAT32_CONSTANT", "FLOAT32", random("FLOAT32", (3, 70)), "DML_PADDING_MODE_CONSTANT",
                [1, 5], [2, 7], 7)
    add_padding("ROWS_PADDING_FLOAT16_REFLECTION", "FLOAT16", random("FLOAT16", (2, 66)),
                "DML_PADDING_MODE_REFLECTION", [1, 3], [0, 4], 0)
    add_padding("ROWS_PADDING_UINT8_CONSTANT_long", "UINT8", random("UINT8", (2, 1030)),
                "DML_PADDING_MODE_CONSTANT", [0, 2], [1, 3], 9)

    x = random("INT16", (2, 33))
    expected = np.tile(x, [2, 3])
    cases.append(case("ROWS_TILE_INT16", {"type": "DML_OPERATOR_TILE", "InputTensor": tensor("INT16", x.shape),
                                           "OutputTensor": tensor("INT16", expected.shape), "Repeats": [2, 3]},
                      values(x, "INT16"), expected, "INT16"))

    def add_gather(name, dtype, x, idx_shape, index_type):
        idx = indices(index_type, idx_shape, x.shape[2])
        expected = np.take(x, idx.reshape(-1).astype(np.int64), axis=2).reshape(1, 1, idx.size, x.shape[3])
        op = {"type": "DML_OPERATOR_GATHER", "Axis": 2, "IndexDimensions": 1,
              "InputTensor": tensor(dtype, x.shape), "IndicesTensor": tensor(index_type, idx.shape),
              "OutputTensor": tensor(dtype, expected.shape)}
        cases.append({"name": name, "operator": op,
                      "inputs": {"InputTensor": values(x, dtype), "IndicesTensor": values(idx, index_type)},
                      "outputs": {"OutputTensor": {"values": values(expected, dtype)}}})

    add_gather("ROWS_GATHER_FLOAT16_aligned", "FLOAT16", random("FLOAT16", (1, 1, 12, 40)), (1, 1, 1, 7), "INT64")
    add_gather("ROWS_GATHER_FLOAT16_unaligned", "FLOAT16", random("FLOAT16", (1, 1, 9, 37)), (1, 1, 1, 5),
               "UINT32")
    add_gather("ROWS_GATHER_FLOAT16_long", "FLOAT16", random("FLOAT16", (1, 1, 3, 1040)), (1, 1, 1, 3), "INT32")
    # Constant padding whose row lengths and leading pad allow 16-byte units, and 2-byte units of
    # 1-byte elements.
    add_padding("ROWS_PADDING_FLOAT32_CONSTANT_wide_units", "FLOAT32", random("FLOAT32", (3, 64)),
                "DML_PADDING_MODE_CONSTANT", [1, 4], [0, 8], -3)
    add_padding("ROWS_PADDING_UINT8_CONSTANT_pairs", "UINT8", random("UINT8", (2, 100)), "DML_PADDING_MODE_CONSTANT",
                [0, 2], [1, 6], 5)
    return cases


write_cases(__file__, "data_movement_slice", slice_cases())
write_cases(__file__, "data_movement_padding", padding_cases())
write_cases(__file__, "data_movement_tile", tile_cases())
write_cases(__file__, "data_movement_depth_space", depth_space_cases())
write_cases(__file__, "data_movement_gather", gather_cases())
write_cases(__file__, "data_movement_scatter", scatter_cases())
write_cases(__file__, "data_movement_slice_grad", slice_grad_cases())
write_cases(__file__, "data_movement_reverse", reverse_subsequences_cases())
write_cases(__file__, "data_movement_fold", fold_cases())
write_cases(__file__, "data_movement_rows", long_row_cases())


# ---- FOLD of 8- and 16-bit integers -------------------------------------------------------------
# Sums modulo the type: values large enough that overlapping windows wrap (numpy's in-place add in
# the element type wraps the same way). Written last so that the cases above stay as they were.

def fold_small_int_cases():
    cases = []
    for dtype, low, high in [("INT8", -128, 128), ("UINT8", 0, 256), ("INT16", -32768, 32768), ("UINT16", 0, 65536)]:
        image, window, strides, dil, start, end = (1, 2, 4, 5), [3, 3], [1, 1], [1, 1], [1, 1], [1, 1]
        blocks = window_geometry(image[2:], window, strides, dil, start, end)
        cols = rng.integers(low, high, size=(1, 2 * 9, int(np.prod(blocks)))).astype(NP[dtype])
        with np.errstate(over="ignore"):
            expected = fold_reference(cols, image, window, strides, dil, start, end)
        op = {"type": "DML_OPERATOR_FOLD", "InputTensor": tensor(dtype, cols.shape), "OutputTensor": tensor(dtype, image),
              "DimensionCount": 2, "WindowSizes": window, "Strides": strides, "Dilations": dil, "StartPadding": start,
              "EndPadding": end}
        cases.append(case(f"FOLD_{dtype}_3x3_overlap_wraps", op, values(cols, dtype), expected.astype(NP[dtype]), dtype))
    return cases


write_cases(__file__, "data_movement_fold_small_integers", fold_small_int_cases())

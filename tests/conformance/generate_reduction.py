#!/usr/bin/env python3
"""Conformance cases of DML_OPERATOR_REDUCE (every DML_REDUCE_FUNCTION), DML_OPERATOR_ARGMIN,
DML_OPERATOR_ARGMAX, DML_OPERATOR_CUMULATIVE_SUMMATION and DML_OPERATOR_CUMULATIVE_PRODUCT, computed
with numpy.

Run once to (re)write cases/reduction_*.json. Expected values are computed in float64 (integers
with Python's exact integers) on the exact input values and rounded once to the output type;
FreeDML is never consulted.

Semantics the references encode (FreeDML's choices where DirectML's pages are silent):
- The output keeps the input's rank, size 1 on each reduced axis (the reference pages).
- ARGMIN and ARGMAX write the position of the extreme element in the slice, counted row-major over
  the reduced axes in increasing axis order (the REDUCE page's examples); the first of equal
  extremes, or the last with DML_AXIS_DIRECTION_DECREASING (the ARGMIN/ARGMAX pages). A NaN counts
  as the extreme value (numpy's argmax and argmin).
- MIN and MAX pass over NaNs as D3D's min and max do (numpy's fmin and fmax); only a slice of
  NaNs gives NaN. The other float functions let any NaN reach the result.
- Integer SUM, MULTIPLY, L1 and SUM_SQUARE wrap modulo 2^bits (L1 of the most negative value is
  itself, as its absolute value wraps).
- CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT write the running tally along Axis, from the last
  element backwards with DML_AXIS_DIRECTION_DECREASING, without the current element when exclusive
  (the first tally is then 0, or 1 for the product), as the CUMULATIVE_SUMMATION page's examples
  show. Integer tallies wrap modulo 2^bits.
- FLOAT16 accumulates in float32, which is exact for the sums of the values used here up to the
  last few bits; FLOAT16 sums carry a small absolute tolerance for results near zero.
"""
import math

import numpy as np

from case_format import tensor, values, write_cases

rng = np.random.default_rng(20261125)
NP = {"FLOAT32": np.float32, "FLOAT16": np.float16, "INT8": np.int8, "INT16": np.int16, "INT32": np.int32,
      "INT64": np.int64, "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32, "UINT64": np.uint64}
FLOATS = ["FLOAT32", "FLOAT16"]
ALL = FLOATS + ["INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8"]
ARITHMETIC = FLOATS + ["INT64", "INT32", "UINT64", "UINT32"]
INDEX_TYPES = ["UINT32", "INT32", "UINT64", "INT64"]

# Function -> the input types the REDUCE page allows it.
FUNCTIONS = {
    "ARGMAX": ALL, "ARGMIN": ALL, "AVERAGE": FLOATS, "L1": ARITHMETIC, "L2": FLOATS, "LOG_SUM": FLOATS,
    "LOG_SUM_EXP": FLOATS, "MAX": ALL, "MIN": ALL, "MULTIPLY": ARITHMETIC, "SUM": ARITHMETIC,
    "SUM_SQUARE": ARITHMETIC,
}

# (shape, axes): one axis, an outer axis, several axes, axes listed out of order, all axes, an axis
# of size 1, slices longer than a warp.
SHAPES = [((2, 3, 4), [2]), ((2, 3, 4), [0]), ((2, 3, 4), [0, 2]), ((2, 3, 4, 5), [3, 1]), ((3, 5), [0, 1]),
          ((4, 1, 3), [1]), ((3, 40), [1]), ((37, 2), [0]), ((6,), [0])]
SHORT_SHAPES = [SHAPES[2], SHAPES[3], SHAPES[6]]


def slices(x, axes):
    """`x` with the kept axes first and the reduced ones flattened (row-major, increasing axis) last,
    and the output shape (size 1 on each reduced axis)."""
    axes = sorted(axes)
    kept = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x, kept + axes)
    n = int(np.prod([x.shape[d] for d in axes]))
    out_shape = [1 if d in axes else x.shape[d] for d in range(x.ndim)]
    return moved.reshape(-1, n), out_shape


def wrap(total, dtype):
    bits = np.dtype(NP[dtype]).itemsize * 8
    total %= 1 << bits
    if np.issubdtype(NP[dtype], np.signedinteger) and total >= 1 << (bits - 1):
        total -= 1 << bits
    return total


def arg_index(row, function, decreasing):
    if decreasing:
        return len(row) - 1 - arg_index(row[::-1], function, False)
    return int(np.argmax(row) if function == "ARGMAX" else np.argmin(row))


def reference(function, x, axes, dtype, decreasing=False):
    """The expected output values (row-major) of `function` over `axes`."""
    flat, out_shape = slices(x, axes)
    out = []
    for row in flat:
        if function in ("ARGMAX", "ARGMIN"):
            out.append(arg_index(row, function, decreasing))
        elif function in ("MAX", "MIN"):
            if dtype in FLOATS:
                out.append((np.fmax if function == "MAX" else np.fmin).reduce(row.astype(np.float64)))
            else:
                out.append(int(row.max() if function == "MAX" else row.min()))
        elif dtype not in FLOATS:
            ints = [int(v) for v in row]
            if function == "SUM":
                total = sum(ints)
            elif function == "L1":
                total = sum(abs(v) for v in ints)
            elif function == "SUM_SQUARE":
                total = sum(v * v for v in ints)
            else:
                total = math.prod(ints)
            out.append(wrap(total, dtype))
        else:
            v = row.astype(np.float64)
            with np.errstate(all="ignore"):
                out.append({
                    "AVERAGE": lambda: np.sum(v) / len(v),
                    "L1": lambda: np.sum(np.abs(v)),
                    "L2": lambda: np.sqrt(np.sum(v * v)),
                    "LOG_SUM": lambda: np.log(np.sum(v)),
                    "LOG_SUM_EXP": lambda: np.logaddexp.reduce(v),
                    "MULTIPLY": lambda: np.prod(v),
                    "SUM": lambda: np.sum(v),
                    "SUM_SQUARE": lambda: np.sum(v * v),
                }[function]())
    if dtype in FLOATS and function not in ("ARGMAX", "ARGMIN"):
        with np.errstate(over="ignore", invalid="ignore"):
            out = np.array(out, dtype=np.float64).astype(NP[dtype])
    elif function not in ("ARGMAX", "ARGMIN"):
        out = np.array(out, dtype=NP[dtype])  # exact 64-bit integers (a plain list may become float64)
    return out, out_shape


def tolerance(function, dtype):
    """{"ulps": .., "absolute": ..} of an output."""
    if dtype not in FLOATS or function in ("ARGMAX", "ARGMIN", "MAX", "MIN"):
        return {"ulps": 0}
    if dtype == "FLOAT32":
        return {"ulps": 2}
    t = {"ulps": 1}
    if function in ("SUM", "AVERAGE", "LOG_SUM_EXP", "LOG_SUM"):
        t["absolute"] = 1e-4  # float32 accumulation of results that cancel to near zero
    return t


def float_input(dtype, shape, function):
    if function == "LOG_SUM":
        x = rng.uniform(0.1, 4.0, shape)  # a positive sum: log of a sum that may round negative is NaN
    elif function == "MULTIPLY":
        x = rng.uniform(0.6, 1.5, shape) * rng.choice([-1.0, 1.0], shape)  # products of 40 stay finite
    else:
        x = rng.standard_normal(shape) * 3
    return x.astype(NP[dtype])


def int_input(dtype, shape, function):
    info = np.iinfo(NP[dtype])
    if function == "MULTIPLY":
        low, high = (-3, 4) if info.min < 0 else (0, 4)  # some products wrap, some do not
    else:
        low, high = int(info.min), int(info.max)
    return rng.integers(low, high, size=shape, dtype=NP[dtype], endpoint=True)


def strided_memory(logical, strides):
    """The buffer (memory order) that holds `logical` at element `strides`; gaps are zero."""
    shape = logical.shape
    length = 1 + sum((s - 1) * st for s, st in zip(shape, strides))
    memory = np.zeros(length, dtype=logical.dtype)
    index = np.indices(shape).reshape(len(shape), -1)
    offsets = sum(index[d] * strides[d] for d in range(len(shape)))
    memory[offsets] = logical.ravel()
    return memory


def case(op, function, dtype, x, axes, out_type=None, strides_in=None, strides_out=None, decreasing=False, suffix=""):
    want, out_shape = reference(function, x, axes, dtype, decreasing)
    out_type = out_type or dtype
    arg = function in ("ARGMAX", "ARGMIN")
    desc = {"type": f"DML_OPERATOR_{op}"}
    if op == "REDUCE":
        desc["Function"] = f"DML_REDUCE_FUNCTION_{function}"
    desc["InputTensor"] = tensor(dtype, x.shape, strides_in)
    desc["OutputTensor"] = tensor(out_type, out_shape, strides_out)
    desc["Axes"] = list(axes)
    if op != "REDUCE":
        desc["AxisDirection"] = "DML_AXIS_DIRECTION_DECREASING" if decreasing else "DML_AXIS_DIRECTION_INCREASING"
    memory = x.ravel() if strides_in is None else strided_memory(x, strides_in)
    out = {"values": values(want, None if arg else out_type), **tolerance(function, dtype)}
    name = f"{op}_{function}_{dtype}" if op == "REDUCE" else f"{op}_{dtype}"
    if arg:
        name += f"_{out_type}"
    name += f"_{'x'.join(map(str, x.shape))}_axes{''.join(map(str, axes))}{suffix}"
    return {"name": name, "operator": desc, "inputs": {"InputTensor": values(memory, dtype)},
            "outputs": {"OutputTensor": out}}


def make_input(dtype, shape, function):
    return float_input(dtype, shape, function) if dtype in FLOATS else int_input(dtype, shape, function)


# ---- REDUCE: every function, its data types, axis sets -----------------------------------------------

cases = []
for function, types in FUNCTIONS.items():
    arg = function in ("ARGMAX", "ARGMIN")
    for dtype in types:
        shapes = SHAPES if dtype in ("FLOAT32", "INT32") else SHORT_SHAPES
        for i, (shape, axes) in enumerate(shapes):
            out_type = INDEX_TYPES[i % len(INDEX_TYPES)] if arg else None
            cases.append(case("REDUCE", function, dtype, make_input(dtype, shape, function), axes, out_type))
    # A transposed, padded (non-packed) input and a padded output.
    x = make_input("FLOAT32", (3, 4, 5), function)
    cases.append(case("REDUCE", function, "FLOAT32", x, [1], "INT32" if arg else None, strides_in=[1, 15, 3],
                      strides_out=[24, 6, 1], suffix="_strided"))
    cases.append(case("REDUCE", function, "FLOAT32", x, [0, 2], "UINT64" if arg else None, strides_in=[1, 15, 3],
                      suffix="_strided"))
write_cases(__file__, "reduction_reduce", cases)

# ---- REDUCE: edge values ------------------------------------------------------------------------------

EDGE_ROWS = np.array([
    [1.0, np.nan, 2.0, 3.0, -4.0, 5.0],
    [np.nan] * 6,
    [1.0, np.inf, 2.0, 3.0, 4.0, 5.0],
    [-np.inf, 2.0, -np.inf, 1.0, 0.5, -3.0],
    [-np.inf] * 6,
    [np.inf, -np.inf, 1.0, 2.0, 3.0, 4.0],
    [2.0, 7.0, 7.0, -1.0, 7.0, -1.0],
    [1e30, 3e38, -3e38, 1.0, 2.0, 3.0],
    [-80.0, -100.0, -120.0, -90.0, -101.0, -104.0],
    [88.0, 88.5, 87.0, 80.0, 1.0, 0.5],
], dtype=np.float32)
EDGE16 = np.array([
    [1.0, np.nan, 2.0, 3.0],
    [np.nan] * 4,
    [1.0, np.inf, -2.0, 3.0],
    [-np.inf, 1.0, -np.inf, 0.5],
    [-np.inf] * 4,
    [3.0, 3.0, -3.0, 3.0],
    [60000.0, 30000.0, 1.0, 2.0],
    [10.0, 11.0, 9.5, 10.5],
], dtype=np.float16)

cases = []
for function in FUNCTIONS:
    arg = function in ("ARGMAX", "ARGMIN")
    cases.append(case("REDUCE", function, "FLOAT32", EDGE_ROWS, [1], "UINT32" if arg else None, suffix="_edges"))
    cases.append(case("REDUCE", function, "FLOAT16", EDGE16, [1], "INT64" if arg else None, suffix="_edges"))
# Integer extremes: MIN and MAX at the type's limits, sums and L1 that wrap.
for dtype in ("INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64"):
    info = np.iinfo(NP[dtype])
    x = np.array([[info.min, info.max, 0, 1], [info.max, info.max, info.min, info.min]], dtype=NP[dtype])
    for function in ("MIN", "MAX", "ARGMIN", "ARGMAX"):
        cases.append(case("REDUCE", function, dtype, x, [1], "UINT32" if function.startswith("ARG") else None,
                          suffix="_limits"))
    if dtype in ARITHMETIC:
        for function in ("SUM", "L1", "SUM_SQUARE", "MULTIPLY"):
            cases.append(case("REDUCE", function, dtype, x, [1], suffix="_limits"))
# The REDUCE page's example input, reduced over both axes (ARGMAX's index is row-major).
x = np.array([[1, 2, 3], [3, 0, 4], [2, 4, 2]], dtype=np.float32)
for function in FUNCTIONS:
    cases.append(case("REDUCE", function, "FLOAT32", x, [0, 1], "UINT32" if function.startswith("ARG") else None,
                      suffix="_page"))
write_cases(__file__, "reduction_edges", cases)

# ---- ARGMIN and ARGMAX: axis direction and ties -----------------------------------------------------------

cases = []
for op in ("ARGMIN", "ARGMAX"):
    for decreasing in (False, True):
        tag = "_decreasing" if decreasing else "_increasing"
        # The pages' examples: argmin({1,2,3,2,1}) and argmax({3,2,1,2,3}).
        row = np.array([[1, 2, 3, 2, 1]] if op == "ARGMIN" else [[3, 2, 1, 2, 3]], dtype=np.float32)
        cases.append(case(op, op, "FLOAT32", row, [1], "UINT32", decreasing=decreasing, suffix=tag + "_page"))
        for i, dtype in enumerate(ALL):
            shape, axes = SHAPES[i % len(SHAPES)]
            # Few distinct values, so that ties are common.
            x = rng.integers(0, 4, size=shape).astype(NP[dtype])
            cases.append(case(op, op, dtype, x, axes, INDEX_TYPES[i % 4], decreasing=decreasing, suffix=tag))
        cases.append(case(op, op, "FLOAT32", EDGE_ROWS, [1], "INT64", decreasing=decreasing, suffix=tag + "_edges"))
        cases.append(case(op, op, "FLOAT16", EDGE16, [0], "INT32", decreasing=decreasing, suffix=tag + "_edges"))
        x = rng.integers(0, 3, size=(3, 4, 5)).astype(np.float32)
        cases.append(case(op, op, "FLOAT32", x, [2, 0], "UINT64", strides_in=[1, 15, 3], strides_out=[8, 2, 1],
                          decreasing=decreasing, suffix=tag + "_strided"))
        x = rng.integers(0, 5, size=(2, 70)).astype(np.float32)
        cases.append(case(op, op, "FLOAT32", x, [1], "UINT32", decreasing=decreasing, suffix=tag + "_long"))
write_cases(__file__, "reduction_arg", cases)

# ---- CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT -----------------------------------------------------


def scan_reference(product, x, axis, decreasing, exclusive, dtype):
    """The running tally of `x` along `axis` (float64, or exact integers wrapped to `dtype`)."""
    moved = np.moveaxis(x, axis, -1)
    lines = moved.reshape(-1, moved.shape[-1])
    out = []
    for line in lines:
        seq = list(line[::-1]) if decreasing else list(line)
        if dtype in FLOATS:
            acc, tallies = 1.0 if product else 0.0, []
            for v in seq:
                before = acc
                with np.errstate(all="ignore"):
                    acc = acc * float(v) if product else acc + float(v)
                tallies.append(before if exclusive else acc)
        else:
            acc, tallies = 1 if product else 0, []
            for v in seq:
                before = acc
                acc = acc * int(v) if product else acc + int(v)
                tallies.append(wrap(before if exclusive else acc, dtype))
        out.append(tallies[::-1] if decreasing else tallies)
    result = np.array(out, dtype=np.float64 if dtype in FLOATS else object).reshape(moved.shape)
    result = np.moveaxis(result, -1, axis)
    with np.errstate(over="ignore", invalid="ignore"):
        return result.astype(NP[dtype])


def scan_case(product, dtype, x, axis, decreasing, exclusive, strides_in=None, strides_out=None, suffix=""):
    op = "CUMULATIVE_PRODUCT" if product else "CUMULATIVE_SUMMATION"
    want = scan_reference(product, x, axis, decreasing, exclusive, dtype)
    desc = {"type": f"DML_OPERATOR_{op}", "InputTensor": tensor(dtype, x.shape, strides_in),
            "OutputTensor": tensor(dtype, x.shape, strides_out), "Axis": axis,
            "AxisDirection": "DML_AXIS_DIRECTION_DECREASING" if decreasing else "DML_AXIS_DIRECTION_INCREASING",
            ("HasExclusiveProduct" if product else "HasExclusiveSum"): exclusive}
    if dtype not in FLOATS:
        tol = {"ulps": 0}
    elif dtype == "FLOAT32":
        tol = {"ulps": 2}
    else:
        tol = {"ulps": 1} if product else {"ulps": 1, "absolute": 1e-4}
    memory = x.ravel() if strides_in is None else strided_memory(x, strides_in)
    name = (f"{op}_{dtype}_{'x'.join(map(str, x.shape))}_axis{axis}"
            f"{'_decreasing' if decreasing else ''}{'_exclusive' if exclusive else ''}{suffix}")
    return {"name": name, "operator": desc, "inputs": {"InputTensor": values(memory, dtype)},
            "outputs": {"OutputTensor": {"values": values(want, dtype), **tol}}}


SCAN_SHAPES = [((2, 3, 4), 2), ((2, 3, 4), 0), ((3, 40), 1), ((5,), 0)]
cases = []
for product in (False, True):
    function = "MULTIPLY" if product else "SUM"
    for dtype in ARITHMETIC:
        shapes = SCAN_SHAPES if dtype == "FLOAT32" else SCAN_SHAPES[:3:2]
        for shape, axis in shapes:
            for decreasing in (False, True):
                for exclusive in (False, True):
                    x = make_input(dtype, shape, function)
                    cases.append(scan_case(product, dtype, x, axis, decreasing, exclusive))
    # A transposed, padded input and a padded output.
    x = make_input("FLOAT32", (3, 4, 5), function)
    cases.append(scan_case(product, "FLOAT32", x, 1, False, False, strides_in=[1, 15, 3], strides_out=[24, 6, 1],
                           suffix="_strided"))
    cases.append(scan_case(product, "FLOAT32", x, 2, True, True, strides_in=[1, 15, 3], suffix="_strided"))
    # NaN and infinities reach every later tally; 0 * inf is NaN.
    edge = np.array([[1.0, np.nan, 2.0, 3.0], [np.inf, 1.0, -np.inf, 2.0], [0.0, np.inf, 2.0, -1.0],
                     [3e38, 3e38, -3e38, 1.0]], dtype=np.float32)
    for decreasing in (False, True):
        cases.append(scan_case(product, "FLOAT32", edge, 1, decreasing, False, suffix="_edges"))
        cases.append(scan_case(product, "FLOAT16", edge[:3].astype(np.float16), 1, decreasing, True, suffix="_edges"))
# The CUMULATIVE_SUMMATION page's example input, along its last axis.
x = np.array([[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]], dtype=np.float32)
for decreasing in (False, True):
    for exclusive in (False, True):
        cases.append(scan_case(False, "FLOAT32", x, 3, decreasing, exclusive, suffix="_page"))
        cases.append(scan_case(True, "FLOAT32", x, 3, decreasing, exclusive, suffix="_page"))
write_cases(__file__, "reduction_cumulative", cases)

# ---- REDUCE over outer axes of packed tensors ------------------------------------------------------------
# Neighbouring outputs read neighbouring inputs while each slice's elements lie apart: the layout
# the CPU kernel reduces in blocks of outputs. Rows longer than a block, and several rows.

cases = []
for function, types in FUNCTIONS.items():
    arg = function in ("ARGMAX", "ARGMIN")
    for dtype in ("FLOAT32", "FLOAT16", "INT32"):
        if dtype not in types:
            continue
        shapes = [((3, 4, 5), [1]), ((4, 3, 2, 5), [1, 2]), ((2, 3, 2, 3), [0, 2])]
        if dtype == "FLOAT32":
            shapes.append(((2, 260), [0]))  # a row longer than a block
        for shape, axes in shapes:
            cases.append(case("REDUCE", function, dtype, make_input(dtype, shape, function), axes,
                              "INT64" if arg else None, suffix="_outer"))
for op in ("ARGMIN", "ARGMAX"):
    x = rng.integers(0, 3, size=(3, 260)).astype(np.float32)
    cases.append(case(op, op, "FLOAT32", x, [0], "UINT32", decreasing=True, suffix="_outer"))
# Rows wider than 256 outputs: the CPU kernel's dense path takes blocks up to 2048 wide.
for function in ("SUM", "MAX", "MIN", "L2"):
    cases.append(case("REDUCE", function, "FLOAT32", make_input("FLOAT32", (3, 2100), function), [0],
                      suffix="_outer_wide"))
write_cases(__file__, "reduction_outer", cases)

# ---- Long slices ---------------------------------------------------------------------------------------
# Packed rows long enough for several 16-byte loads per lane of a warp (rows of 521 also start
# unaligned), and slices down the columns of a row-major tensor (of a matrix, longer than the 128
# rows a column block reads at once, with a partial last block of columns; of a middle axis).

rng = np.random.default_rng(20261127)
cases = []
for function in ("SUM", "MAX", "ARGMAX", "LOG_SUM_EXP"):
    arg = function in ("ARGMAX", "ARGMIN")
    shapes = [("FLOAT32", (2, 520), [1]), ("FLOAT32", (2, 521), [1]), ("FLOAT16", (1, 1100), [1]),
              ("INT32", (1, 520), [1]), ("FLOAT32", (130, 33), [0]), ("FLOAT16", (130, 33), [0]),
              ("FLOAT32", (2, 40, 33), [1])]
    for dtype, shape, axes in shapes:
        if dtype not in FUNCTIONS[function] or (function == "LOG_SUM_EXP" and axes == [0]):
            continue
        if len(shape) == 3 and function not in ("SUM", "ARGMAX"):
            continue
        cases.append(case("REDUCE", function, dtype, make_input(dtype, shape, function), axes,
                          "UINT32" if arg else None, suffix="_long"))
for dtype in ("INT8", "UINT16"):
    for shape, axes in (((1, 1040), [1]), ((130, 33), [0])):
        cases.append(case("REDUCE", "MIN", dtype, make_input(dtype, shape, "MIN"), axes, suffix="_long"))
for op, decreasing in (("ARGMIN", False), ("ARGMAX", True)):
    tag = "_decreasing" if decreasing else "_increasing"
    for shape, axes in (((1, 520), [1]), ((130, 33), [0])):
        x = rng.integers(0, 4, size=shape).astype(np.float32)  # ties everywhere
        cases.append(case(op, op, "FLOAT32", x, axes, "INT64", decreasing=decreasing, suffix=tag + "_long"))
write_cases(__file__, "reduction_long", cases)

"""The JSON form of conformance cases (see README.md), shared by the generate_*.py scripts."""
import json
import math
import pathlib

import numpy as np


def is_float(dtype):
    return dtype.startswith("FLOAT")


def values(array, dtype=None):
    """Elements as the case files write them: numbers, or "nan", "inf", "-inf", "-0". Floating point
    is told by `dtype` when given, else by each element's own type."""
    out = []
    for v in np.asarray(array).ravel():
        floating = is_float(dtype) if dtype is not None else isinstance(v, (np.floating, float))
        if floating:
            v = float(v)
            if math.isnan(v):
                out.append("nan")
            elif math.isinf(v):
                out.append("inf" if v > 0 else "-inf")
            elif v == 0 and math.copysign(1, v) < 0:
                out.append("-0")
            else:
                out.append(v)
        else:
            out.append(int(v))
    return out


def tensor(dtype, sizes, strides=None, total=None):
    t = {"DataType": dtype, "Sizes": list(sizes)}
    if strides is not None:
        t["Strides"] = list(strides)
    if total is not None:
        t["TotalTensorSizeInBytes"] = total
    return t


def write_cases(script, name, cases):
    """Writes cases/<name>.json, one case per line."""
    path = pathlib.Path(script).parent / "cases" / f"{name}.json"
    lines = ",\n".join(json.dumps(c, separators=(",", ":")) for c in cases)
    path.write_text('{"generator":"%s","cases":[\n%s\n]}\n' % (pathlib.Path(script).name, lines))
    print(f"wrote {len(cases)} cases ({path.stat().st_size // 1024} KiB) to {path}")

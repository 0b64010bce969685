#!/usr/bin/env python3
"""Runs one example model with dmlrun and compares what it prints with the values numpy computed
for it (models/expected/generate.py).

    run_model.py DMLRUN MODEL.json EXPECTED.json [extra dmlrun arguments...]

Every resource in EXPECTED.json must be printed ("Resource 'NAME': v0, v1, ...", DxDispatch's
format) with as many values, each within atol + rtol * |expected|; files it lists must have been
written with that dtype, shape and values; "lines" it lists must be printed exactly (the output a
DirectML example documents). Exits non-zero with a line per difference.
"""
import ast
import json
import math
import pathlib
import re
import struct
import subprocess
import sys


def close(got, want, rtol, atol):
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want):
        return got == want
    return abs(got - want) <= atol + rtol * abs(want)


def compare(label, got, want, rtol, atol, problems):
    if len(got) != len(want):
        problems.append(f"{label}: {len(got)} values printed, {len(want)} expected")
        return
    for i, (g, w) in enumerate(zip(got, want)):
        if not close(g, w, rtol, atol):
            problems.append(f"{label}[{i}]: got {g!r}, expected {w!r}")


def read_npy(path):
    data = open(path, "rb").read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path} is not a .npy file")
    length = struct.unpack_from("<H", data, 8)[0]
    header = ast.literal_eval(data[10:10 + length].decode("latin1"))
    codes = {"<f4": "f", "<f2": "e", "<f8": "d", "<i4": "i", "<u4": "I", "|u1": "B", "|i1": "b"}
    code = codes[header["descr"]]
    count = math.prod(header["shape"])
    values = struct.unpack_from("<" + code * count, data, 10 + length)
    return header["descr"], list(header["shape"]), list(values)


def main():
    dmlrun, model, expected_path = sys.argv[1:4]
    expected = json.load(open(expected_path))
    command = [dmlrun, "-q", model] + sys.argv[4:]
    for path in expected.get("files", {}):
        pathlib.Path(path).unlink(missing_ok=True)  # a file from an earlier run proves nothing
    run = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        print(f"{' '.join(command)} exited with {run.returncode}:\n{run.stderr}{run.stdout}")
        return 1
    printed = {}
    for line in run.stdout.splitlines():
        match = re.fullmatch(r"Resource '(.*)': (.*)", line)
        if match:
            printed[match[1]] = [float(v) for v in match[2].split(", ")]
    problems = []
    for line in expected.get("lines", []):
        if line not in run.stdout.splitlines():
            problems.append(f"the line {line!r} was not printed")
    rtol, atol = expected["rtol"], expected["atol"]
    for name, values in expected["resources"].items():
        if name not in printed:
            problems.append(f"resource '{name}' was not printed")
        else:
            compare(f"'{name}'", printed[name], values, rtol, atol, problems)
    for path, file in expected.get("files", {}).items():
        try:
            descr, shape, values = read_npy(path)
        except (OSError, ValueError, KeyError) as error:
            problems.append(f"{path}: {error}")
            continue
        if descr != file["dtype"] or shape != file["shape"]:
            problems.append(f"{path}: dtype {descr} shape {shape}, expected {file['dtype']} {file['shape']}")
        compare(path, values, file["values"], rtol, atol, problems)
    for problem in problems:
        print(problem)
    if not problems:
        print(f"{model}: {sum(len(v) for v in expected['resources'].values())} values as expected")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

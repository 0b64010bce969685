#!/usr/bin/env python3
"""Runs one ONNX lowering test case through dmlrun and compares every output with ONNX Runtime's
(stored beside the model by make_models.py).

    run_case.py DMLRUN CASE_DIR [--adapter NAME]

Floats must agree within FLOAT32 tolerances (absolute 1e-4 plus relative 1e-3 of the reference);
integers and booleans exactly. Exit status 1 names each output that differs and by how much.
"""
import glob
import os
import pathlib
import subprocess
import sys
import tempfile


def main():
    dmlrun, case = sys.argv[1], pathlib.Path(sys.argv[2])
    extra = sys.argv[3:]
    if "cuda" in " ".join(extra):
        # Without an NVIDIA device node there is no GPU to ask for: skip before starting dmlrun.
        if not glob.glob("/dev/nvidia[0-9]*"):
            print("skipped: no NVIDIA GPU on this machine")
            return 77
        listed = subprocess.run([dmlrun, "--list-adapters"], capture_output=True, text=True).stdout.splitlines()
        if not any("(hardware)" in line for line in listed):
            print("skipped: no CUDA adapter")
            return 77
    import numpy as np
    command = [dmlrun, str(case / "model.onnx"), "--quiet"] + extra
    for npy in sorted((case / "inputs").glob("*.npy")):
        command += ["--input", "%s=%s" % (npy.stem, npy)]
    dims = case / "dims.txt"
    if dims.exists():
        for line in dims.read_text().split():
            command += ["--dim", line]
    with tempfile.TemporaryDirectory() as out:
        command += ["--output-dir", out]
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode != 0:
            print("dmlrun failed (exit %d):\n%s%s" % (run.returncode, run.stdout[-2000:], run.stderr[-4000:]))
            return 1
        failed = False
        for expected_file in sorted((case / "expected").glob("*.npy")):
            expected = np.load(expected_file)
            got_file = pathlib.Path(out) / expected_file.name
            if not got_file.exists():
                print("output '%s': dmlrun wrote no file" % expected_file.stem)
                failed = True
                continue
            got = np.load(got_file)
            if got.shape != expected.shape or got.dtype != expected.dtype:
                print("output '%s': dmlrun gave %s %s, ONNX Runtime %s %s" % (expected_file.stem, got.dtype, got.shape,
                                                                            expected.dtype, expected.shape))
                failed = True
                continue
            if np.issubdtype(expected.dtype, np.floating):
                e, g = expected.astype(np.float64), got.astype(np.float64)
                bad = ~np.isclose(g, e, rtol=1e-3, atol=1e-4, equal_nan=True)
            else:
                bad = got != expected
            if bad.any():
                index = tuple(np.argwhere(bad)[0])
                print("output '%s': %d of %d elements differ; first at %s: dmlrun %r, ONNX Runtime %r" % (
                    expected_file.stem, int(bad.sum()), bad.size, index, got[index], expected[index]))
                failed = True
        if not failed:
            print("all outputs match ONNX Runtime")
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

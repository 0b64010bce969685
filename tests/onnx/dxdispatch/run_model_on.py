#!/usr/bin/env python3
"""tests/dmlrun/run_model.py on one adapter, skipped (exit 77) when that adapter is CUDA and there is none.

    run_model_on.py DMLRUN MODEL.json EXPECTED.json ADAPTER
"""
import pathlib
import subprocess
import sys

dmlrun, model, expected, adapter = sys.argv[1:5]
if adapter.startswith("cuda"):
    listed = subprocess.run([dmlrun, "--list-adapters"], capture_output=True, text=True).stdout.splitlines()
    if not any("(hardware)" in line for line in listed):
        print("skipped: no CUDA adapter")
        sys.exit(77)
run_model = pathlib.Path(__file__).resolve().parents[2] / "dmlrun" / "run_model.py"
sys.exit(subprocess.run([sys.executable, str(run_model), dmlrun, model, expected, "--adapter", adapter]).returncode)

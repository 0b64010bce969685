#!/usr/bin/env python3
"""End-to-end test with Microsoft's TensorFlow-DirectML plugin on FreeDML.

usage: run_tensorflow_directml.py DIRECTML_DIR D3D12_DIR DXCORE_DIR

The plugin (PyPI tensorflow-directml-plugin 0.4.0.dev230202, cp310 only) and tensorflow-cpu 2.10 need
Python 3.10. This script looks for an interpreter that has both: $FREEDML_TF_PYTHON, else python3.10
on PATH, else pyenv's 3.10 versions. Without one it exits 77 (ctest's skip) and says why. Otherwise
it runs tensorflow_directml_check.py in it with:
  TF_DIRECTML_PATH   DIRECTML_DIR (the plugin then loads libdirectml.so from there),
  LD_LIBRARY_PATH    D3D12_DIR and DXCORE_DIR first (the plugin dlopens libd3d12.so and libdxcore.so
                     by name),
  FREEDML_CPU_AS_HARDWARE=1 (the plugin skips software adapters),
  FREEDML_DISABLE_CUDA=1 unless FREEDML_TF_CUDA=1 (then a CUDA adapter, a hardware GPU, comes first),
  FREEDML_DEBUG=1    (FreeDML's messages, which name any call it refused, go to standard error).
The comparison covers tf.add, tf.matmul, a Keras prediction and one Keras training step (SGD);
FREEDML_TF_TRAIN=0 leaves the training step out. Last, it checks that without
FREEDML_CPU_AS_HARDWARE (and without CUDA) the plugin finds no device: it skips software adapters.
"""
import glob
import os
import shutil
import subprocess
import sys

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
PROBE = ("import importlib.metadata as m, tensorflow as tf; "
         "print(tf.__version__, m.version('tensorflow-directml-plugin'))")


def candidates():
    if os.environ.get("FREEDML_TF_PYTHON"):
        yield os.environ["FREEDML_TF_PYTHON"]
        return
    found = shutil.which("python3.10")
    if found:
        yield found
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    for path in sorted(glob.glob(os.path.join(root, "versions", "3.10*", "bin", "python3.10"))):
        yield path
    for path in sorted(glob.glob(os.path.join(root, "versions", "*", "envs", "*", "bin", "python3.10"))):
        yield path


def find_python():
    reasons = []
    for python in candidates():
        try:
            probe = subprocess.run([python, "-c", PROBE], capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as error:
            reasons.append("%s: %s" % (python, error))
            continue
        if probe.returncode == 0:
            return python, probe.stdout.strip()
        lines = probe.stderr.strip().splitlines() or ["failed"]
        errors = [line for line in lines if "Error" in line]
        last = (errors or lines)[-1]
        reasons.append("%s: %s" % (python, last))
    if not reasons:
        reasons.append("no Python 3.10 interpreter found (python3.10 on PATH, pyenv 3.10.x, $FREEDML_TF_PYTHON)")
    return None, "; ".join(reasons)


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    directml_dir, d3d12_dir, dxcore_dir = (os.path.abspath(p) for p in sys.argv[1:4])
    python, detail = find_python()
    if not python:
        print("SKIPPED: the TensorFlow-DirectML plugin needs Python 3.10 with tensorflow-cpu 2.10 and "
              "tensorflow-directml-plugin 0.4.0.dev230202 from PyPI (pip install tensorflow-cpu==2.10.* "
              "tensorflow-directml-plugin==0.4.0.dev230202 'numpy<2'); none is usable here: " + detail)
        return SKIP
    print("using %s (tensorflow, tensorflow-directml-plugin: %s)" % (python, detail), flush=True)
    env = dict(os.environ)
    env["TF_DIRECTML_PATH"] = directml_dir
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        [d3d12_dir, dxcore_dir, directml_dir] + ([env["LD_LIBRARY_PATH"]] if env.get("LD_LIBRARY_PATH") else []))
    env["FREEDML_CPU_AS_HARDWARE"] = "1"
    if env.get("FREEDML_TF_CUDA") != "1":
        env["FREEDML_DISABLE_CUDA"] = "1"
    env.setdefault("FREEDML_DEBUG", "1")
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "0")
    run = subprocess.run([python, os.path.join(HERE, "tensorflow_directml_check.py")], env=env, timeout=1200)
    if run.returncode != 0:
        return run.returncode
    # Without the switch the CPU adapter is a software adapter, which the plugin skips: no device.
    env.pop("FREEDML_CPU_AS_HARDWARE")
    env["FREEDML_DISABLE_CUDA"] = "1"
    probe = subprocess.run([python, "-c", "import tensorflow as tf; print(len(tf.config.list_physical_devices('GPU')))"],
                           env=env, capture_output=True, text=True, timeout=600)
    count = probe.stdout.strip().splitlines()[-1:] or ["(none)"]
    print("without FREEDML_CPU_AS_HARDWARE the plugin lists %s devices" % count[0], flush=True)
    if probe.returncode != 0 or count[0] != "0":
        print("FAIL: without FREEDML_CPU_AS_HARDWARE the software CPU adapter must not become a plugin device\n"
              + probe.stderr[-2000:])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

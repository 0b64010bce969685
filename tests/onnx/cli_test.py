#!/usr/bin/env python3
"""`dmlrun model.onnx`'s command line: inputs from .npy files and seeded random ones, outputs printed
and written, --dump-graph, --iterations, --compare-ort (when onnxruntime is installed), and every
refusal: a malformed or truncated file (with protobuf's or the checker's reason), a symbolic
dimension left unset, an operator or attribute without a lowering (naming the node, its op type and
opset). Each refusal must come before anything runs.

    cli_test.py DMLRUN TESTS_ONNX_DIR

Exit status 1 lists the failed checks.
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np

DMLRUN = os.path.abspath(sys.argv[1])
HERE = pathlib.Path(sys.argv[2]).resolve()
CASES = HERE / "cases"
ERRORS = HERE / "errors"
failures = []


def run(*args, env=None):
    return subprocess.run([DMLRUN, "--adapter", "cpu"] + [str(a) for a in args], capture_output=True, text=True, env=env)


def check(name, condition, detail=""):
    if not condition:
        failures.append("%s: %s" % (name, detail))


def expect_error(name, args, status, *needles):
    r = run(*args)
    check(name, r.returncode == status, "exit %d, expected %d; stderr: %s" % (r.returncode, status, r.stderr))
    for needle in needles:
        check(name, needle in r.stderr, "stderr lacks %r: %s" % (needle, r.stderr))
    # One sentence, and nothing ran: no adapter line, no outputs.
    check(name, "Running on" not in r.stdout and "Resource" not in r.stdout, "something ran: %s" % r.stdout)
    check(name, r.stderr.count("\n") == 1, "more than one line: %s" % r.stderr)


conv = CASES / "conv_bias_relu" / "model.onnx"
conv_x = CASES / "conv_bias_relu" / "inputs" / "x.npy"
conv_y = np.load(CASES / "conv_bias_relu" / "expected" / "y.npy")
symbolic = CASES / "symbolic_batch" / "model.onnx"

with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    data = conv.read_bytes()
    (tmp / "truncated.onnx").write_bytes(data[: len(data) // 2])
    expect_error("truncated", [tmp / "truncated.onnx"], 1, "protobuf cannot parse", "stopped at byte")
    (tmp / "garbage.onnx").write_bytes(bytes(range(256)) * 4)
    expect_error("garbage", [tmp / "garbage.onnx"], 1, "garbage.onnx: ")
    (tmp / "empty.onnx").write_bytes(b"")
    expect_error("empty", [tmp / "empty.onnx"], 1, "holds no graph")
    expect_error("missing file", [tmp / "absent.onnx"], 1, "cannot open")

    expect_error("symbolic unset", [symbolic], 1, "graph input 'x' has the symbolic dimension 'batch'", "--dim batch=N")
    expect_error("unknown dim", [symbolic, "--dim", "batch=3", "--dim", "sequence=4"], 1,
                 "--dim sequence=4 names no symbolic dimension of the model (it has: batch)")
    expect_error("unsupported operator", [ERRORS / "unsupported_operator.onnx"], 1,
                 "node 'mystery' (Det, opset 13): FreeDML has no lowering for the ONNX operator Det")
    expect_error("unsupported attribute", [ERRORS / "unsupported_attribute.onnx"], 1,
                 "node 'pool_with_indices' (MaxPool, opset 13): storage_order 1 (column-major Indices) has no DirectML equivalent")
    expect_error("foreign domain", [ERRORS / "foreign_domain.onnx"], 1,
                 "node 'custom' (FusedThing, opset 1): operators of the domain 'com.example'")
    expect_error("unknown input", [conv, "--input", "nope=%s" % conv_x], 1, "the model has no input 'nope' (its inputs: 'x')")
    np.save(tmp / "wrong.npy", np.zeros((2, 2), np.float32))
    expect_error("wrong input size", [conv, "--input", "x=%s" % (tmp / "wrong.npy")], 1, "takes 486 FLOAT32 elements")

    r = subprocess.run([DMLRUN, str(CASES.parent / "make_models.py"), "--input", "x=y.npy"], capture_output=True, text=True)
    check("options for json", r.returncode == 2 and "apply to ONNX models" in r.stderr, r.stderr)
    r = subprocess.run([DMLRUN, str(CASES.parent / "dxdispatch_onnx.json"), "--allow-half-precision"], capture_output=True, text=True)
    check("half precision for json", r.returncode == 2 and "executionFlags" in r.stderr, r.stderr)
    # The flag reaches CompileGraph (the CPU computes FLOAT32 in full either way).
    r = run(conv, "--input", "x=%s" % conv_x, "--allow-half-precision", "--quiet")
    line = [l for l in r.stdout.splitlines() if l.startswith("Resource 'y': ")]
    check("half precision", r.returncode == 0 and len(line) == 1 and np.allclose(
        np.array([float(v) for v in line[0][len("Resource 'y': "):].split(", ")], np.float32),
        conv_y.reshape(-1), rtol=1e-3, atol=1e-4), r.stdout + r.stderr)
    r = subprocess.run([DMLRUN, "--adapter", "cpu", str(conv), "--quiet", "--allow-half-precision"],
                       capture_output=True, text=True, env=dict(os.environ, FREEDML_TRACE="api"))
    # DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION is 1.
    check("half precision flag", re.search(r"IDMLDevice::CompileGraph\(.*flags=1,", r.stderr) is not None,
          "\n".join(l for l in r.stderr.splitlines() if "CompileGraph" in l))

    # Inputs from a file; outputs printed and written.
    out = tmp / "out"
    r = run(conv, "--input", "x=%s" % conv_x, "--output-dir", out, "--iterations", "3", "--dump-graph")
    check("run", r.returncode == 0, r.stderr)
    check("adapter line", r.stdout.startswith("DirectML graph:") and "Running on 'FreeDML CPU'" in r.stdout, r.stdout)
    check("dump", "DML_OPERATOR_CONVOLUTION <- making 'c' (Conv, opset 13)" in r.stdout and
          "DML_OPERATOR_ACTIVATION_RELU" in r.stdout and "edge: input 0 -> node" in r.stdout, r.stdout)
    check("timing", re.search(r"Dispatch 'model': 3 iterations, [0-9.]+ ms median", r.stdout) is not None, r.stdout)
    written = np.load(out / "y.npy")
    check("written", written.shape == conv_y.shape and np.allclose(written, conv_y, rtol=1e-3, atol=1e-4),
          "y.npy differs from ONNX Runtime's")
    line = [l for l in r.stdout.splitlines() if l.startswith("Resource 'y': ")]
    check("printed", len(line) == 1, r.stdout)
    if line:
        printed = np.array([float(v) for v in line[0][len("Resource 'y': "):].split(", ")], np.float32)
        check("printed values", np.allclose(printed, written.reshape(-1), rtol=1e-5, atol=1e-6), "printed values differ")

    # FREEDML_PROFILE=graph: per node and per operator type, the first of the 4 executions left out.
    env = dict(os.environ, FREEDML_PROFILE="graph")
    r = subprocess.run([DMLRUN, "--adapter", "cpu", str(conv), "--iterations", "4", "--quiet"], capture_output=True,
                       text=True, env=env)
    profile = [l for l in r.stderr.splitlines() if l.startswith("FreeDML profile: ")]
    check("profile", r.returncode == 0 and len(profile) >= 4 and
          re.match(r"FreeDML profile: graph of \d+ nodes \(\d+ kernels\), 3 executions timed, [0-9.]+ ms each$", profile[0]),
          r.stderr)
    check("profile node", any("'c' (Conv, opset 13)" in l and "CONVOLUTION" in l for l in profile[1:]), r.stderr)
    check("profile kinds", any(re.search(r"^FreeDML profile: +[0-9.]+ +[0-9.]+ +1  CONVOLUTION$", l) for l in profile), r.stderr)
    check("no profile unasked", "FreeDML profile" not in run(conv, "--quiet").stderr, "profile printed without FREEDML_PROFILE")

    # Seeded random inputs: the same seed gives the same outputs, another seed others.
    a, b, c = (run(symbolic, "--dim", "batch=3", "--seed", s, "--quiet").stdout for s in ("1", "1", "2"))
    check("seeded", a == b and a != c and a.startswith("Resource 'y': "), "%r %r %r" % (a, b, c))

    # DxDispatch's "type": "onnx" dispatchables in a JSON model, values against numpy (float64).
    r = run(HERE / "dxdispatch_onnx.json", "--quiet")
    check("json onnx", r.returncode == 0, r.stderr)
    printed = {l.split("'")[1]: np.array([float(v) for v in l.split(": ", 1)[1].split(", ")])
               for l in r.stdout.splitlines() if l.startswith("Resource '")}
    a, b = np.arange(1, 7, dtype=np.float64).reshape(3, 2), np.arange(1, 9, dtype=np.float64).reshape(2, 4)
    check("json onnx gemm", "Out" in printed and np.array_equal(printed["Out"], (a @ b + a @ b).ravel()), r.stdout)
    x = np.array([-1, 2, -3, 4, -5, 6, -7, 8, -9, 10, -11, 12], np.float64)
    check("json onnx dims", "Y" in printed and np.array_equal(printed["Y"], np.maximum(x, 0) + x), r.stdout)
    import json as _json
    model = _json.loads((HERE / "dxdispatch_onnx.json").read_text())
    model["dispatchables"]["gemm"]["sourcePath"] = str(ERRORS / "unsupported_operator.onnx")
    model["dispatchables"]["relu_add"]["sourcePath"] = str(symbolic)
    model["commands"][0]["bindings"] = {"x": "A0", "y": "Out"}  # its tensors (the lowering refuses it before sizes matter)
    (tmp / "bad.json").write_text(_json.dumps(model))
    r = run(tmp / "bad.json")
    check("json onnx refusal", r.returncode == 1 and "dispatchables.gemm" in r.stderr and
          "node 'mystery' (Det, opset 13)" in r.stderr, r.stderr)

    # DxDispatch's onnx_dynamic_shapes model made wrong in one place each: one sentence, nothing run.
    dynamic = _json.loads((HERE / "dxdispatch" / "onnx_dynamic_shapes.json").read_text())
    dynamic["dispatchables"]["concat"]["sourcePath"] = str(HERE / "dxdispatch" / "onnx_dynamic_shapes.onnx")

    def expect_json_error(name, change, *needles):
        model = _json.loads(_json.dumps(dynamic))
        change(model)
        (tmp / "dynamic.json").write_text(_json.dumps(model))
        expect_error(name, [tmp / "dynamic.json"], 1, *needles)

    expect_json_error("json onnx unknown input", lambda m: m["commands"][0]["bindings"].update(z="a"),
                      "commands[0].bindings.z: the ONNX model 'onnx_dynamic_shapes.onnx' has no input or output named 'z' "
                      "(its inputs: 'x0', 'x1'; its outputs: 'y')")
    expect_json_error("json onnx deferred input", lambda m: m["commands"][4]["bindings"].update(x0="deferredY"),
                      "commands[4].bindings.x0: resource 'deferredY' is deferred", "cannot be bound to the input 'x0'")
    expect_json_error("json onnx missing file",
                      lambda m: m["dispatchables"]["concat"].update(sourcePath=str(tmp / "absent.onnx")),
                      "dispatchables.concat.sourcePath: cannot open", "absent.onnx': no such file")
    expect_json_error("json onnx deferred printed first", lambda m: m["commands"].insert(0, {"type": "print", "resource": "deferredY"}),
                      "commands[0].resource: resource 'deferredY' is deferred, and no dispatch command before this one writes")
    expect_json_error("json onnx input shape", lambda m: m["commands"][0]["bindings"]["x0"].update(shape=[1, 3]),
                      "the shape [1,3] given for graph input 'x0' does not fit its declared shape [N,2]")
    expect_json_error("json onnx output shape", lambda m: m["commands"][0]["bindings"]["y"].update(shape=[3, 2]),
                      "commands[0].bindings.y.shape: the shape [3,2] given for the output 'y' is not the [2,2]")
    expect_json_error("json onnx small resource", lambda m: m["commands"][0]["bindings"]["x0"].update(shape=[4, 2]),
                      "'x0' (FLOAT32 [4,2]) takes 32 bytes, but the binding of resource 'a' spans 24")
    expect_json_error("json onnx unknown override", lambda m: m["dispatchables"]["concat"].update(freeDimensionNameOverrides={"M": 2}),
                      "freeDimensionNameOverrides M=2 names no symbolic dimension of the model (it has: N)")

    # freeDimensionNameOverrides fixes N; writeFile gives a deferred resource the output's shape.
    model = _json.loads(_json.dumps(dynamic))
    model["dispatchables"]["concat"]["freeDimensionNameOverrides"] = {"N": 3}
    model["commands"] = [{"type": "dispatch", "dispatchable": "concat", "bindings": {"x0": "a", "x1": "b", "y": "deferredY"}},
                         {"type": "writeFile", "resource": "deferredY", "targetPath": str(tmp / "y.npy")}]
    (tmp / "dynamic.json").write_text(_json.dumps(model))
    r = run(tmp / "dynamic.json", "--quiet")
    y = np.load(tmp / "y.npy") if (tmp / "y.npy").exists() else None
    want = np.concatenate([np.arange(1, 7).reshape(3, 2), np.arange(7, 13).reshape(3, 2)]).astype(np.float32)
    check("json onnx deferred file", r.returncode == 0 and y is not None and y.dtype == np.float32 and
          np.array_equal(y, want), "%s %r" % (r.stderr, y))

    # Implicit bindings: x1 left out is [1,2] (its N free) of zeros; nothing bound at all still runs.
    model = _json.loads(_json.dumps(dynamic))
    model["commands"] = [{"type": "dispatch", "dispatchable": "concat",
                          "bindings": {"x0": {"name": "a", "shape": [2, 2]}, "y": "deferredY"}},
                         {"type": "print", "resource": "deferredY"},
                         {"type": "dispatch", "dispatchable": "concat", "bindings": {}}]
    (tmp / "dynamic.json").write_text(_json.dumps(model))
    r = run(tmp / "dynamic.json", "--print-all")
    lines = [l for l in r.stdout.splitlines() if l.startswith("Resource")]
    check("json onnx implicit", r.returncode == 0 and lines[0] == "Resource 'deferredY': 1, 2, 3, 4, 0, 0" and
          r.stdout.count("Dispatch 'concat'") == 2 and not any("implicit" in l for l in lines), r.stdout + r.stderr)

    try:
        import onnxruntime  # noqa: F401
        have_ort = True
    except ImportError:
        have_ort = False
    if have_ort:
        env = dict(os.environ, FREEDML_PYTHON=sys.executable)
        r = subprocess.run([DMLRUN, "--adapter", "cpu", str(conv), "--compare-ort", "--iterations", "2"],
                           capture_output=True, text=True, env=env)
        check("compare-ort", r.returncode == 0, r.stderr)
        m = re.search(r"Compare 'y' with ONNX Runtime: max abs difference ([0-9.e+-]+), max rel difference", r.stdout)
        check("compare-ort difference", m is not None and float(m.group(1)) < 1e-4, r.stdout)
        check("compare-ort speed", re.search(r"Speed: FreeDML [0-9.]+ ms median, ONNX Runtime \(CPU\) [0-9.]+ ms median",
                                             r.stdout) is not None, r.stdout)
    else:
        print("--compare-ort not checked: the Python package onnxruntime is not installed")

# Attention fusion: --dump-graph names the fused nodes, or why a pattern stayed node by node (the
# outputs of these cases are checked against ONNX Runtime by run_case.py).
fused = {
    "attention_fused_causal": ("attention fused into MULTIHEAD_ATTENTION", "as a BOOLEAN mask, filter -3.40282e+38",
                               "scale 0.353553"),
    "attention_fused_padding": ("attention fused into MULTIHEAD_ATTENTION", "the additive mask 'pad' as RelativePositionBias",
                                "scale 0.353553"),
    "attention_fused_split_qkv": ("attention fused into MULTIHEAD_ATTENTION", "Q, K and V read stacked in the split's input"),
    "attention_masked_row_unfused": ("lowered node by node: a row of the Where mask masks every key",),
    # A fill of -1e4 added to the scores is not the same as filling with it.
    "attention": ("lowered node by node: the Where mask's fill value is not a scalar of at most -1e30",),
}
for name, needles in fused.items():
    folder = CASES / name
    r = run(folder / "model.onnx", "--dump-graph", "--quiet")
    check("fusion " + name, r.returncode == 0, r.stderr)
    for needle in needles:
        check("fusion " + name, needle in r.stdout, "--dump-graph lacks %r" % needle)
    multihead = r.stdout.count("DML_OPERATOR_MULTIHEAD_ATTENTION")
    check("fusion " + name, multihead == (1 if "fused" in name and "unfused" not in name else 0),
          "%d MULTIHEAD_ATTENTION nodes" % multihead)

# LayerNorm and erf GELU fusion: --dump-graph's notes and operator counts (expected outputs checked
# by run_case.py); the cases that must stay node by node say why, or have no fusable pattern.
chains = {
    "layer_norm_decomposed_gelu": ({"MEAN_VARIANCE_NORMALIZATION1": 1, "ACTIVATION_GELU": 1},
                                   ("layer normalization fused into MEAN_VARIANCE_NORMALIZATION1",
                                    "epsilon 1e-05, scale and bias", "GELU fused into ACTIVATION_GELU")),
    "layer_norm_fused_two_axes": ({"MEAN_VARIANCE_NORMALIZATION1": 1, "REDUCE": 0},
                                  ("axes {2, 3}, epsilon 1e-06, scale):",)),
    "layer_norm_unfused": ({"MEAN_VARIANCE_NORMALIZATION1": 0, "REDUCE": 6},
                           ("ending at node 'z' lowered node by node: epsilon is not a non-negative scalar",
                            "ending at node 'p_n' lowered node by node: the Pow's exponent is not a scalar 2")),
    "gelu_erf_matmul_fused": ({"ACTIVATION_GELU": 1, "ELEMENT_WISE_ERF": 0}, ("GELU fused into ACTIVATION_GELU",)),
    "gelu_erf_orders_fused": ({"ACTIVATION_GELU": 2, "ELEMENT_WISE_ERF": 0}, ("'xs' (Mul), 'e' (Erf)",
                                                                            "'xs2' (Div), 'f' (Erf)")),
    "gelu_erf_unfused": ({"ACTIVATION_GELU": 0, "ELEMENT_WISE_ERF": 2},
                         ("GELU ending at node 'z' lowered node by node: x is not divided by sqrt(2)",)),
}
for name, (counts, needles) in chains.items():
    r = run(CASES / name / "model.onnx", "--dump-graph", "--quiet")
    check("fusion " + name, r.returncode == 0, r.stderr)
    for needle in needles:
        check("fusion " + name, needle in r.stdout, "--dump-graph lacks %r" % needle)
    for operator, count in counts.items():
        got = len(re.findall(r"DML_OPERATOR_%s\b" % operator, r.stdout))
        check("fusion " + name, got == count, "%d %s nodes, not %d" % (got, operator, count))
# The SPLIT whose parts the attention reads stacked is then read by nothing: the optimizer drops it.
r = run(CASES / "attention_fused_split_qkv" / "model.onnx", "--quiet", env=dict(os.environ, FREEDML_DEBUG="1"))
check("fusion split qkv", re.search(r"removed node \d+ .*\(SPLIT operator\): no node or graph output reads it", r.stderr)
      is not None, r.stderr)
# The graph optimizer then carries the GELU after MatMul and its bias as the GEMM's epilogue.
r = run(CASES / "gelu_erf_matmul_fused" / "model.onnx", "--quiet", env=dict(os.environ, FREEDML_DEBUG="1"))
check("fusion gelu into gemm", re.search(r"fused node \d+ .*\(ACTIVATION_GELU operator\) into node \d+ .*\(GEMM operator\)"
                                         r".* as its FusedActivation", r.stderr) is not None, r.stderr)

if failures:
    print("%d failed checks:" % len(failures))
    for f in failures:
        print("  " + f)
    sys.exit(1)
print("all checks passed")

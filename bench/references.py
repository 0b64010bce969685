#!/usr/bin/env python3
"""The PyTorch and ONNX Runtime side of FreeDML's benchmarks, on the shapes FreeDML's own drivers use.

Prints the same "RESULT,group,case,dtype,implementation,value,unit,note" lines as dispatch_bench and
dense_bench (bench/report.py reads them). One framework per process, since Debian's PyTorch and
PyPI's ONNX Runtime live in different Python environments (bench/run.sh picks the interpreter):

  references.py --framework torch --what gemm,conv,dispatch       (Debian python3 + python3-torch)
  references.py --framework ort   --what gemm,conv,elementwise,dispatch,int8   (venv with onnxruntime)

Timing as in bench_common.h: one warm-up call, a batch of iterations calibrated to --sample-seconds,
--rounds rounds, median seconds per iteration. Threads: --threads (default: every core), the same
count FreeDML's pool and oneDNN use.
"""
import argparse
import csv
import os
import statistics
import sys
import time

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--framework", choices=["torch", "ort"], required=True)
parser.add_argument("--what", default="gemm,conv,elementwise,dispatch")
parser.add_argument("--device", default="cpu", help="cpu, or cuda (PyTorch only)")
parser.add_argument("--sizes", default="64,128,256,512,1024,2048")
parser.add_argument("--int8-sizes", default="1024,4096", help="sizes of --what int8")
parser.add_argument("--layers", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "resnet50_convs.csv"))
parser.add_argument("--elements", type=int, default=1 << 24)
parser.add_argument("--rounds", type=int, default=5)
parser.add_argument("--sample-seconds", type=float, default=0.05)
parser.add_argument("--max-seconds", type=float, default=10.0,
                    help="skip a case whose single run is predicted to take longer than this")
parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
parser.add_argument("--types", default="FLOAT32,FLOAT16", help="element types of --what gemm, conv and elementwise")
args = parser.parse_args()
what = set(args.what.split(","))
wanted_types = set(args.types.split(","))


def result(group, case, dtype, impl, value, unit, note=""):
    print(f"RESULT,{group},{case},{dtype},{impl},{value:.6g},{unit},{note.replace(',', ';')}", flush=True)


def measure(body, sync=lambda: None):
    """Median seconds per call of body(), over args.rounds calibrated batches."""
    start = time.perf_counter()
    body()
    sync()
    once = max(time.perf_counter() - start, 1e-7)
    iterations = max(1, int(args.sample_seconds / once))
    if iterations > 1:
        probe = min(iterations, 16)
        start = time.perf_counter()
        for _ in range(probe):
            body()
        sync()
        iterations = max(1, int(args.sample_seconds / max((time.perf_counter() - start) / probe, 1e-9)))
    samples = []
    for _ in range(args.rounds if once < args.max_seconds / 4 else 1):
        start = time.perf_counter()
        for _ in range(iterations):
            body()
        sync()
        samples.append((time.perf_counter() - start) / iterations)
    return statistics.median(samples), samples


def spread(samples):
    return f"rounds {len(samples)}; min {min(samples):.4g}; max {max(samples):.4g}"


def read_layers(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        for key in row:
            if key != "name":
                row[key] = int(row[key])
    return rows


def conv_out(size, kernel, stride, pad):
    return (size + 2 * pad - kernel) // stride + 1


def conv_flops(layer):
    oh = conv_out(layer["height"], layer["kernel"], layer["stride"], layer["padding"])
    ow = conv_out(layer["width"], layer["kernel"], layer["stride"], layer["padding"])
    return 2.0 * layer["out_channels"] * oh * ow * layer["in_channels"] * layer["kernel"] ** 2


# ---- PyTorch --------------------------------------------------------------------------------------

def run_torch():
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    blas = "Debian BLAS" if device.type == "cpu" else "cuBLAS"
    info = f"torch {torch.__version__}; {torch.get_num_threads()} threads"
    types = [(t, name) for t, name in [(torch.float32, "FLOAT32"), (torch.float16, "FLOAT16")] if name in wanted_types]

    if "gemm" in what:
        for dtype, name in types:
            predicted = 0.0
            for n in [int(s) for s in args.sizes.split(",")]:
                flops = 2.0 * n ** 3
                if predicted > args.max_seconds:
                    result("gemm", str(n), name, "PyTorch", 0, "GFLOP/s",
                           f"skipped: predicted {predicted:.0f} s per GEMM ({blas})")
                    predicted *= 8
                    continue
                a = torch.rand(n, n, dtype=dtype, device=device) * 2 - 1
                b = torch.rand(n, n, dtype=dtype, device=device) * 2 - 1
                out = torch.empty(n, n, dtype=dtype, device=device)
                try:
                    seconds, samples = measure(lambda: torch.matmul(a, b, out=out), sync)
                except RuntimeError as error:
                    result("gemm", str(n), name, "PyTorch", 0, "GFLOP/s", f"unavailable: {error}")
                    break
                predicted = seconds * 8
                result("gemm", str(n), name, "PyTorch", flops / seconds / 1e9, "GFLOP/s",
                       f"torch.matmul ({blas}); {info}; {spread(samples)}")

    if "conv" in what:
        for dtype, name in types:
            for layer in read_layers(args.layers):
                x = torch.rand(1, layer["in_channels"], layer["height"], layer["width"], dtype=dtype, device=device)
                w = torch.rand(layer["out_channels"], layer["in_channels"], layer["kernel"], layer["kernel"],
                               dtype=dtype, device=device) * 2 - 1
                bias = torch.rand(layer["out_channels"], dtype=dtype, device=device)
                stride, pad = layer["stride"], layer["padding"]
                flops = conv_flops(layer)
                bodies = [("PyTorch", "F.conv2d (PyTorch's own choice of kernel)",
                           lambda: F.conv2d(x, w, bias, stride, pad))]
                if device.type == "cpu" and dtype == torch.float32:
                    # PyTorch picks its oneDNN convolution by itself only for larger batches; this
                    # is the same op through it, which a PyTorch user can get with to_mkldnn().
                    bodies.append(("PyTorch oneDNN", "torch.mkldnn_convolution",
                                   lambda: torch.mkldnn_convolution(x, w, bias, (pad, pad), (stride, stride), (1, 1), 1)))
                for impl, how, body in bodies:
                    try:
                        seconds, samples = measure(body, sync)
                        result("conv", layer["name"], name, impl, flops / seconds / 1e9, "GFLOP/s",
                               f"{how}; {info}; {spread(samples)}")
                    except RuntimeError as error:
                        result("conv", layer["name"], name, impl, 0, "GFLOP/s", f"unavailable: {str(error)[:120]}")

    if "dispatch" in what:
        a = torch.rand(4, device=device)
        out = torch.empty(4, device=device)
        seconds, samples = measure(lambda: (torch.add(a, a, out=out), sync()))
        result("dispatch", "tiny op (4 floats)", "FLOAT32", "PyTorch", seconds * 1e6, "us",
               f"torch.add(out=) from Python; {info}; {spread(samples)}")


# ---- ONNX Runtime ---------------------------------------------------------------------------------

def run_ort():
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    info = f"onnxruntime {ort.__version__}; CPUExecutionProvider; {args.threads} threads"
    onnx_types = {name: t for name, t in {"FLOAT32": (TensorProto.FLOAT, np.float32),
                                          "FLOAT16": (TensorProto.FLOAT16, np.float16)}.items() if name in wanted_types}

    def session(nodes, inputs, outputs, initializers=()):
        graph = helper.make_graph(nodes, "bench", inputs, outputs, list(initializers))
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])

    def bound(sess, feeds, output_name, output_array):
        """An IO binding over preallocated arrays: run() then allocates nothing."""
        binding = sess.io_binding()
        for name, array in feeds.items():
            binding.bind_cpu_input(name, array)
        binding.bind_output(output_name, "cpu", 0, output_array.dtype, output_array.shape,
                            output_array.ctypes.data)
        return lambda: sess.run_with_iobinding(binding)

    rng = np.random.default_rng(0)

    if "gemm" in what:
        for name, (onnx_type, np_type) in onnx_types.items():
            for n in [int(s) for s in args.sizes.split(",")]:
                a = (rng.random((n, n), dtype=np.float32) * 2 - 1).astype(np_type)
                b = (rng.random((n, n), dtype=np.float32) * 2 - 1).astype(np_type)
                out = np.empty((n, n), dtype=np_type)
                try:
                    # B as an initializer: a constant weight, which ONNX Runtime pre-packs (the
                    # counterpart of FreeDML's OWNED_BY_DML B and oneDNN's packed weights).
                    sess = session([helper.make_node("MatMul", ["A", "B"], ["Y"])],
                                   [helper.make_tensor_value_info("A", onnx_type, [n, n])],
                                   [helper.make_tensor_value_info("Y", onnx_type, [n, n])],
                                   [numpy_helper.from_array(b, "B")])
                    seconds, samples = measure(bound(sess, {"A": a}, "Y", out))
                    result("gemm", str(n), name, "ONNX Runtime", 2.0 * n ** 3 / seconds / 1e9, "GFLOP/s",
                           f"MatMul with B an initializer; {info}; {spread(samples)}")
                except Exception as error:  # a type the CPU provider lacks
                    result("gemm", str(n), name, "ONNX Runtime", 0, "GFLOP/s", f"unavailable: {str(error)[:120]}")
                    break

    if "int8" in what:
        # dense_bench --int8's shapes and types: UINT8 A, INT8 B, per-tensor zero points (128, 0)
        # and scales 0.01, every tensor an input (as FreeDML binds them).
        for n in [int(s) for s in args.int8_sizes.split(",")]:
            a = rng.integers(0, 256, (n, n), dtype=np.uint8)
            b = rng.integers(-128, 128, (n, n), dtype=np.int8)
            azp, bzp = np.array(128, np.uint8), np.array(0, np.int8)
            scale, ozp = np.array(0.01, np.float32), np.array(128, np.uint8)
            u8, i8, f32 = TensorProto.UINT8, TensorProto.INT8, TensorProto.FLOAT
            sess = session([helper.make_node("MatMulInteger", ["A", "B", "AZ", "BZ"], ["Y"])],
                           [helper.make_tensor_value_info("A", u8, [n, n]), helper.make_tensor_value_info("B", i8, [n, n]),
                            helper.make_tensor_value_info("AZ", u8, []), helper.make_tensor_value_info("BZ", i8, [])],
                           [helper.make_tensor_value_info("Y", TensorProto.INT32, [n, n])])
            out32 = np.empty((n, n), np.int32)
            seconds, samples = measure(bound(sess, {"A": a, "B": b, "AZ": azp, "BZ": bzp}, "Y", out32))
            result("int8", str(n), "UINT8xINT8", "ONNX Runtime MatMulInteger", 2.0 * n ** 3 / seconds / 1e9, "GOP/s",
                   f"every tensor an input; {info}; {spread(samples)}")
            names = ["A", "AS", "AZ", "B", "BS", "BZ", "YS", "YZ"]
            types = [u8, f32, u8, i8, f32, i8, f32, u8]
            shapes = [[n, n], [], [], [n, n], [], [], [], []]
            sess = session([helper.make_node("QLinearMatMul", names, ["Y"])],
                           [helper.make_tensor_value_info(nm, t, sh) for nm, t, sh in zip(names, types, shapes)],
                           [helper.make_tensor_value_info("Y", u8, [n, n])])
            out8 = np.empty((n, n), np.uint8)
            feeds = dict(zip(names, [a, scale, azp, b, scale, bzp, scale, ozp]))
            seconds, samples = measure(bound(sess, feeds, "Y", out8))
            result("int8", str(n), "UINT8xINT8", "ONNX Runtime QLinearMatMul", 2.0 * n ** 3 / seconds / 1e9, "GOP/s",
                   f"every tensor an input; {info}; {spread(samples)}")

    if "conv" in what:
        for name, (onnx_type, np_type) in onnx_types.items():
            for layer in read_layers(args.layers):
                cin, cout, k = layer["in_channels"], layer["out_channels"], layer["kernel"]
                h, w, s, p = layer["height"], layer["width"], layer["stride"], layer["padding"]
                oh, ow = conv_out(h, k, s, p), conv_out(w, k, s, p)
                x = rng.random((1, cin, h, w), dtype=np.float32).astype(np_type)
                weights = (rng.random((cout, cin, k, k), dtype=np.float32) * 2 - 1).astype(np_type)
                bias = rng.random(cout, dtype=np.float32).astype(np_type)
                out = np.empty((1, cout, oh, ow), dtype=np_type)
                try:
                    node = helper.make_node("Conv", ["X", "W", "B"], ["Y"], kernel_shape=[k, k], strides=[s, s],
                                            pads=[p, p, p, p])
                    sess = session([node], [helper.make_tensor_value_info("X", onnx_type, [1, cin, h, w])],
                                   [helper.make_tensor_value_info("Y", onnx_type, [1, cout, oh, ow])],
                                   [numpy_helper.from_array(weights, "W"), numpy_helper.from_array(bias, "B")])
                    seconds, samples = measure(bound(sess, {"X": x}, "Y", out))
                    result("conv", layer["name"], name, "ONNX Runtime", conv_flops(layer) / seconds / 1e9, "GFLOP/s",
                           f"Conv with W and B initializers; {info}; {spread(samples)}")
                except Exception as error:
                    result("conv", layer["name"], name, "ONNX Runtime", 0, "GFLOP/s",
                           f"unavailable: {str(error)[:120]}")
                    break

    if "elementwise" in what:
        n = args.elements
        ops = [("IDENTITY", "Identity", 1), ("ADD", "Add", 2), ("SUBTRACT", "Sub", 2), ("MULTIPLY", "Mul", 2),
               ("DIVIDE", "Div", 2), ("MAX", "Max", 2)]
        for name, (onnx_type, np_type) in onnx_types.items():
            a = (rng.random(n, dtype=np.float32) * 1.5 + 0.5).astype(np_type)
            b = (rng.random(n, dtype=np.float32) * 1.5 + 0.5).astype(np_type)
            out = np.empty(n, dtype=np_type)
            for op, onnx_op, operands in ops:
                inputs = ["A", "B"][:operands]
                try:
                    sess = session([helper.make_node(onnx_op, inputs, ["Y"])],
                                   [helper.make_tensor_value_info(i, onnx_type, [n]) for i in inputs],
                                   [helper.make_tensor_value_info("Y", onnx_type, [n])])
                    feeds = {"A": a, "B": b} if operands == 2 else {"A": a}
                    seconds, samples = measure(bound(sess, feeds, "Y", out))
                    moved = (operands + 1) * a.nbytes
                    result("elementwise", op, name, "ONNX Runtime", moved / seconds / 1e9, "GB/s",
                           f"{onnx_op} over {n} elements; {info}; {spread(samples)}")
                except Exception as error:
                    result("elementwise", op, name, "ONNX Runtime", 0, "GB/s", f"unavailable: {str(error)[:120]}")

    if "dispatch" in what:
        a = np.arange(4, dtype=np.float32)
        out = np.empty(4, dtype=np.float32)
        sess = session([helper.make_node("Identity", ["A"], ["Y"])],
                       [helper.make_tensor_value_info("A", TensorProto.FLOAT, [4])],
                       [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [4])])
        seconds, samples = measure(bound(sess, {"A": a}, "Y", out))
        result("dispatch", "tiny op (4 floats)", "FLOAT32", "ONNX Runtime", seconds * 1e6, "us",
               f"run_with_iobinding of an Identity from Python; {info}; {spread(samples)}")


if args.framework == "torch":
    try:
        run_torch()
    except ImportError as error:
        print(f"references.py: PyTorch is missing ({error}); no PyTorch figures", file=sys.stderr)
else:
    if args.device != "cpu":
        print("references.py: ONNX Runtime runs on the CPU provider only here", file=sys.stderr)
        sys.exit(0)
    try:
        run_ort()
    except ImportError as error:
        print(f"references.py: onnx/onnxruntime are missing ({error}); no ONNX Runtime figures", file=sys.stderr)

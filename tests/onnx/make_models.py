#!/usr/bin/env python3
"""Writes the ONNX lowering's test cases: small models built with the onnx package, random inputs,
and the outputs ONNX Runtime (CPU) computes for them, the independent reference.

    python3 make_models.py [OUT_DIR]     (default: cases/ beside this script)

Each case is a folder: model.onnx, inputs/<name>.npy, expected/<name>.npy, and dims.txt when the
model has symbolic dimensions (one NAME=VALUE per line, for dmlrun --dim). Needs numpy, onnx and
onnxruntime (python3 -m pip install onnx onnxruntime). Models use IR version 8 so that ONNX 1.12's
C++ library (Debian's libonnx) reads them.
"""
import os
import shutil
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")
rng = np.random.RandomState(21)
CASES = []


def f32(*shape, low=-1.0, high=1.0):
    return rng.uniform(low, high, size=shape).astype(np.float32)


def case(name, nodes, inputs, outputs, initializers=(), opset=13, dims=None, input_shapes=None, output_shapes=None,
         extra_opsets=()):
    """inputs: {name: array}; outputs: [names]; initializers: {name: array}; output_shapes: for outputs
    the Python package's shape inference cannot follow; extra_opsets: other domains' opset imports."""
    CASES.append((name, nodes, inputs, outputs, dict(initializers), opset, dims or {}, input_shapes or {},
                  output_shapes or {}, list(extra_opsets)))


def onnx_type(a):
    return {np.dtype(np.float32): T.FLOAT, np.dtype(np.int64): T.INT64, np.dtype(np.int32): T.INT32,
            np.dtype(bool): T.BOOL, np.dtype(np.float16): T.FLOAT16, np.dtype(np.uint8): T.UINT8,
            np.dtype(np.int8): T.INT8, np.dtype(np.float64): T.DOUBLE}[a.dtype]


def write(name, nodes, inputs, outputs, inits, opset, dims, input_shapes, output_shapes, extra_opsets):
    graph_inputs = [h.make_tensor_value_info(k, onnx_type(v), input_shapes.get(k, list(v.shape)))
                    for k, v in inputs.items()]
    graph_outputs = [h.make_tensor_value_info(o, T.FLOAT, output_shapes[o]) if o in output_shapes
                     else h.make_tensor_value_info(o, T.UNDEFINED, None) for o in outputs]
    graph = h.make_graph(nodes, name, graph_inputs, graph_outputs,
                         [nh.from_array(v, k) for k, v in inits.items()])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)] + extra_opsets)
    model.ir_version = 8
    # Output types from ONNX's own inference, so the model is complete.
    model = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    inferred = {vi.name: vi for vi in list(model.graph.value_info) + list(model.graph.output)}
    del model.graph.output[:]
    model.graph.output.extend([inferred[o] for o in outputs])
    onnx.checker.check_model(model)
    folder = os.path.join(OUT, name)
    os.makedirs(os.path.join(folder, "inputs"))
    os.makedirs(os.path.join(folder, "expected"))
    onnx.save(model, os.path.join(folder, "model.onnx"))
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    results = session.run(outputs, inputs)
    for k, v in inputs.items():
        np.save(os.path.join(folder, "inputs", k + ".npy"), v.astype(np.uint8) if v.dtype == bool else v)
    for o, v in zip(outputs, results):
        v = np.asarray(v)
        np.save(os.path.join(folder, "expected", o + ".npy"), v.astype(np.uint8) if v.dtype == bool else v)
    if dims:
        with open(os.path.join(folder, "dims.txt"), "w") as f:
            for k, v in dims.items():
                f.write("%s=%d\n" % (k, v))


N = h.make_node

# --- the ResNet-50 / MobileNetV2 set ---
case("conv_bias_relu", [N("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]), N("Relu", ["c"], ["y"])],
     {"x": f32(2, 3, 9, 9)}, ["y"], {"w": f32(8, 3, 3, 3), "b": f32(8)})
case("conv_stride_dilation", [N("Conv", ["x", "w"], ["y"], strides=[2, 2], dilations=[2, 1], pads=[2, 1, 0, 1])],
     {"x": f32(1, 4, 12, 10)}, ["y"], {"w": f32(6, 4, 3, 3)})
case("conv_depthwise_clip", [N("Conv", ["x", "w", "b"], ["c"], group=6, pads=[1, 1, 1, 1], strides=[2, 2]),
                             N("Clip", ["c", "lo", "hi"], ["y"])],
     {"x": f32(1, 6, 10, 10)}, ["y"], {"w": f32(6, 1, 3, 3), "b": f32(6), "lo": np.array(0, np.float32),
                                         "hi": np.array(0.6, np.float32)})
case("conv_auto_pad_same", [N("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPER", strides=[2, 2])],
     {"x": f32(1, 2, 7, 7)}, ["y"], {"w": f32(3, 2, 4, 4)})
case("conv1d", [N("Conv", ["x", "w", "b"], ["y"], pads=[2, 2])], {"x": f32(2, 3, 16)}, ["y"],
     {"w": f32(5, 3, 5), "b": f32(5)})
case("conv_transpose", [N("ConvTranspose", ["x", "w", "b"], ["y"], strides=[2, 2], pads=[1, 1, 1, 1],
                          output_padding=[1, 1])],
     {"x": f32(1, 4, 5, 5)}, ["y"], {"w": f32(4, 3, 3, 3), "b": f32(3)})
case("batchnorm", [N("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], epsilon=1e-3)],
     {"x": f32(2, 5, 4, 3)}, ["y"], {"s": f32(5), "b": f32(5), "m": f32(5), "v": f32(5, low=0.5, high=2)})
case("maxpool", [N("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
     {"x": f32(1, 3, 11, 11)}, ["y"])
case("maxpool_ceil", [N("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)],
     {"x": f32(1, 2, 10, 10)}, ["y"])
case("averagepool", [N("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1])],
     {"x": f32(1, 3, 6, 6)}, ["y"])
case("averagepool_include_pad", [N("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2],
                                   pads=[1, 1, 1, 1], count_include_pad=1)],
     {"x": f32(1, 3, 6, 6)}, ["y"])
case("global_pools", [N("GlobalAveragePool", ["x"], ["a"]), N("GlobalMaxPool", ["x"], ["m"])],
     {"x": f32(2, 4, 5, 6)}, ["a", "m"])
case("add_mul_broadcast", [N("Add", ["x", "b"], ["s"]), N("Mul", ["s", "c"], ["y"])],
     {"x": f32(2, 3, 4, 5), "c": f32(4, 1)}, ["y"], {"b": f32(3, 1, 5)})
case("gemm", [N("Gemm", ["a", "b", "c"], ["y"], alpha=0.5, beta=2.0, transB=1)],
     {"a": f32(4, 6)}, ["y"], {"b": f32(3, 6), "c": f32(3)})
case("gemm_transa", [N("Gemm", ["a", "b"], ["y"], transA=1)], {"a": f32(5, 4), "b": f32(5, 2)}, ["y"])
case("matmul_batched", [N("MatMul", ["a", "b"], ["y"])], {"a": f32(2, 3, 4, 5), "b": f32(5, 6)}, ["y"])
case("matmul_broadcast_batch", [N("MatMul", ["a", "b"], ["y"])], {"a": f32(3, 1, 4, 5), "b": f32(2, 5, 3)}, ["y"])
case("matmul_vector", [N("MatMul", ["a", "b"], ["y"])], {"a": f32(5), "b": f32(2, 5, 3)}, ["y"])
case("flatten_gemm", [N("Flatten", ["x"], ["f"], axis=1), N("Gemm", ["f", "w", "b"], ["y"], transB=1)],
     {"x": f32(2, 3, 2, 2)}, ["y"], {"w": f32(4, 12), "b": f32(4)})
case("reshape", [N("Reshape", ["x", "s"], ["y"])], {"x": f32(2, 3, 4)}, ["y"],
     {"s": np.array([4, 0, -1], np.int64)})
case("concat", [N("Concat", ["a", "b", "c"], ["y"], axis=1)],
     {"a": f32(2, 1, 3), "b": f32(2, 4, 3)}, ["y"], {"c": f32(2, 2, 3)})
case("softmax_opset13", [N("Softmax", ["x"], ["y"], axis=1)], {"x": f32(2, 5, 3)}, ["y"])
case("softmax_opset11", [N("Softmax", ["x"], ["y"], axis=1)], {"x": f32(2, 5, 3)}, ["y"], opset=11)
case("log_softmax", [N("LogSoftmax", ["x"], ["y"])], {"x": f32(3, 7)}, ["y"])
case("symbolic_batch", [N("Relu", ["x"], ["r"]), N("Add", ["r", "x"], ["y"])], {"x": f32(3, 4)}, ["y"],
     dims={"batch": 3}, input_shapes={"x": ["batch", 4]})

# --- element-wise and activations ---
for op in ["Abs", "Neg", "Exp", "Sigmoid", "Tanh", "Erf", "Floor", "Ceil", "Sin", "Cos", "Softsign", "Round",
           "Sign", "HardSwish", "Softplus"]:
    case("unary_" + op.lower(), [N(op, ["x"], ["y"])], {"x": f32(2, 3, 5, low=-3, high=3)}, ["y"], opset=14)
for op in ["Sqrt", "Log", "Reciprocal"]:
    case("unary_" + op.lower(), [N(op, ["x"], ["y"])], {"x": f32(4, 6, low=0.1, high=4)}, ["y"])
case("leaky_relu", [N("LeakyRelu", ["x"], ["y"], alpha=0.2)], {"x": f32(3, 8)}, ["y"])
case("elu", [N("Elu", ["x"], ["y"], alpha=0.7)], {"x": f32(3, 8)}, ["y"])
case("selu", [N("Selu", ["x"], ["y"])], {"x": f32(3, 8)}, ["y"])
case("hard_sigmoid", [N("HardSigmoid", ["x"], ["y"], alpha=0.3, beta=0.4)], {"x": f32(3, 8, low=-4, high=4)}, ["y"])
case("prelu", [N("PRelu", ["x", "s"], ["y"])], {"x": f32(2, 3, 4, 4)}, ["y"], {"s": f32(3, 1, 1)})
case("sub_div_pow", [N("Sub", ["a", "b"], ["s"]), N("Div", ["s", "c"], ["d"]), N("Pow", ["d", "e"], ["y"])],
     {"a": f32(3, 4, low=1, high=2), "b": f32(4, low=-1, high=0), "c": f32(3, 1, low=1, high=2)}, ["y"],
     {"e": np.array(2.0, np.float32)})
case("max_min_sum_mean", [N("Max", ["a", "b", "c"], ["mx"]), N("Min", ["a", "b"], ["mn"]), N("Sum", ["a", "b", "c"], ["s"]),
                          N("Mean", ["a", "c"], ["m"])],
     {"a": f32(2, 3), "b": f32(3), "c": f32(2, 1)}, ["mx", "mn", "s", "m"])
case("clip_opset6", [N("Clip", ["x"], ["y"], min=-0.5, max=0.25)], {"x": f32(4, 5)}, ["y"], opset=7)
case("where_compare", [N("Greater", ["a", "b"], ["g"]), N("Where", ["g", "a", "b"], ["y"])],
     {"a": f32(3, 4), "b": f32(4)}, ["y"])
case("compare_bool_out", [N("Less", ["a", "b"], ["y"])], {"a": f32(3, 4), "b": f32(3, 4)}, ["y"])
case("cast", [N("Cast", ["x"], ["i"], to=T.INT32), N("Cast", ["i"], ["y"], to=T.FLOAT)],
     {"x": f32(3, 4, low=-5, high=5)}, ["y"])

# --- data movement ---
case("transpose", [N("Transpose", ["x"], ["t"], perm=[0, 2, 3, 1]), N("Relu", ["t"], ["y"])], {"x": f32(2, 3, 4, 5)}, ["y"])
case("transpose_output", [N("Transpose", ["x"], ["y"], perm=[1, 0])], {"x": f32(3, 5)}, ["y"])
case("transpose_reshape", [N("Transpose", ["x"], ["t"], perm=[0, 2, 1, 3]), N("Reshape", ["t", "s"], ["y"])],
     {"x": f32(2, 3, 4, 5)}, ["y"], {"s": np.array([2, 4, 15], np.int64)})
case("squeeze_unsqueeze", [N("Unsqueeze", ["x", "a0"], ["u"]), N("Squeeze", ["u", "a1"], ["y"])],
     {"x": f32(3, 1, 4)}, ["y"], {"a0": np.array([0, 4], np.int64), "a1": np.array([0, 2], np.int64)})
case("slice", [N("Slice", ["x", "st", "en", "ax", "sp"], ["y"])], {"x": f32(5, 8, 6)}, ["y"],
     {"st": np.array([1, -5], np.int64), "en": np.array([4, 100], np.int64), "ax": np.array([0, 1], np.int64),
      "sp": np.array([2, 1], np.int64)})
case("slice_negative_step", [N("Slice", ["x", "st", "en", "ax", "sp"], ["y"])], {"x": f32(4, 7)}, ["y"],
     {"st": np.array([-1], np.int64), "en": np.array([-8], np.int64), "ax": np.array([1], np.int64),
      "sp": np.array([-2], np.int64)})
case("gather_axis0", [N("Gather", ["x", "i"], ["y"], axis=0)], {"x": f32(6, 4)}, ["y"],
     {"i": np.array([[0, 5], [2, -1]], np.int64)})
case("gather_axis1", [N("Gather", ["x", "i"], ["y"], axis=1)], {"x": f32(2, 5, 3), "i": np.array([4, 0, 2], np.int64)}, ["y"])
case("gather_scalar_index", [N("Gather", ["x", "i"], ["y"], axis=1)], {"x": f32(2, 5, 3)}, ["y"],
     {"i": np.array(3, np.int64)})
case("split", [N("Split", ["x", "sp"], ["a", "b", "c"], axis=1)], {"x": f32(2, 7, 3)}, ["a", "b", "c"],
     {"sp": np.array([2, 4, 1], np.int64)})
case("pad_constant", [N("Pad", ["x", "p", "v"], ["y"])], {"x": f32(2, 3, 4)}, ["y"],
     {"p": np.array([0, 1, 2, 0, 2, 1], np.int64), "v": np.array(0.5, np.float32)})
case("pad_reflect", [N("Pad", ["x", "p"], ["y"], mode="reflect")], {"x": f32(1, 2, 5, 5)}, ["y"],
     {"p": np.array([0, 0, 2, 1, 0, 0, 1, 2], np.int64)})
case("pad_edge", [N("Pad", ["x", "p"], ["y"], mode="edge")], {"x": f32(3, 4)}, ["y"],
     {"p": np.array([1, 2, 2, 1], np.int64)})
case("resize_nearest", [N("Resize", ["x", "", "sc"], ["y"], mode="nearest", coordinate_transformation_mode="asymmetric",
                          nearest_mode="floor")],
     {"x": f32(1, 2, 3, 4)}, ["y"], {"sc": np.array([1, 1, 2, 2], np.float32)})
case("resize_nearest_default", [N("Resize", ["x", "", "sc"], ["y"])], {"x": f32(1, 2, 3, 5)}, ["y"],
     {"sc": np.array([1, 1, 1.5, 0.6], np.float32)})
case("resize_nearest_ceil", [N("Resize", ["x", "", "sc"], ["y"], nearest_mode="ceil",
                               coordinate_transformation_mode="asymmetric")],
     {"x": f32(1, 1, 4, 4)}, ["y"], {"sc": np.array([1, 1, 1.75, 2.5], np.float32)})
case("resize_linear", [N("Resize", ["x", "", "sc"], ["y"], mode="linear")], {"x": f32(1, 2, 4, 4)}, ["y"],
     {"sc": np.array([1, 1, 2, 1.5], np.float32)})
case("resize_linear_align_corners", [N("Resize", ["x", "", "", "sz"], ["y"], mode="linear",
                                       coordinate_transformation_mode="align_corners")],
     {"x": f32(1, 1, 3, 5)}, ["y"], {"sz": np.array([1, 1, 7, 9], np.int64)})
case("expand", [N("Expand", ["x", "s"], ["e"]), N("Add", ["e", "e"], ["y"])], {"x": f32(3, 1)}, ["y"],
     {"s": np.array([2, 3, 4], np.int64)})
case("tile", [N("Tile", ["x", "r"], ["y"])], {"x": f32(2, 3)}, ["y"], {"r": np.array([2, 3], np.int64)})
case("shape_arithmetic", [N("Shape", ["x"], ["s"]), N("Gather", ["s", "zero"], ["n"], axis=0),
                          N("Unsqueeze", ["n", "axes"], ["n1"]), N("Concat", ["n1", "minus1"], ["shape"], axis=0),
                          N("Reshape", ["x", "shape"], ["y"])],
     {"x": f32(3, 4, 5)}, ["y"], {"zero": np.array(0, np.int64), "axes": np.array([0], np.int64),
                                  "minus1": np.array([-1], np.int64)}, output_shapes={"y": [3, 20]})
case("constant_of_shape", [N("ConstantOfShape", ["s"], ["c"], value=nh.from_array(np.array([1.5], np.float32))),
                           N("Add", ["x", "c"], ["y"])],
     {"x": f32(2, 3)}, ["y"], {"s": np.array([2, 3], np.int64)})
case("constant_node", [N("Constant", [], ["c"], value=nh.from_array(f32(3))), N("Mul", ["x", "c"], ["y"])],
     {"x": f32(2, 3)}, ["y"])

# --- reductions and normalization ---
for op in ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2", "ReduceLogSumExp",
           "ReduceSumSquare", "ReduceL1"]:
    if op == "ReduceSum":
        case("reduce_sum", [N(op, ["x", "ax"], ["y"], keepdims=0)], {"x": f32(2, 3, 4)}, ["y"],
             {"ax": np.array([1, -1], np.int64)})
    else:
        case("reduce_" + op[6:].lower(), [N(op, ["x"], ["y"], axes=[1], keepdims=1)], {"x": f32(2, 3, 4)}, ["y"])
case("argmax", [N("ArgMax", ["x"], ["y"], axis=1, keepdims=0)], {"x": f32(3, 5, 2)}, ["y"])
case("layer_norm", [N("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1, epsilon=1e-5)],
     {"x": f32(2, 5, 8)}, ["y"], {"g": f32(8), "b": f32(8)}, opset=17)
case("instance_norm", [N("InstanceNormalization", ["x", "s", "b"], ["y"])], {"x": f32(2, 3, 4, 5)}, ["y"],
     {"s": f32(3), "b": f32(3)})
# LayerNorm as exporters before opset 17 write it, and GELU as Erf (BERT's pattern).
case("layer_norm_decomposed_gelu",
     [N("ReduceMean", ["x"], ["mu"], axes=[-1]), N("Sub", ["x", "mu"], ["d"]), N("Pow", ["d", "two"], ["d2"]),
      N("ReduceMean", ["d2"], ["var"], axes=[-1]), N("Add", ["var", "eps"], ["ve"]), N("Sqrt", ["ve"], ["sd"]),
      N("Div", ["d", "sd"], ["n"]), N("Mul", ["n", "g"], ["ng"]), N("Add", ["ng", "b"], ["z"]),
      N("Div", ["z", "sqrt2"], ["zs"]), N("Erf", ["zs"], ["e"]), N("Add", ["e", "one"], ["e1"]),
      N("Mul", ["z", "e1"], ["ze"]), N("Mul", ["ze", "half"], ["y"])],
     {"x": f32(2, 4, 16)}, ["y"],
     {"two": np.array(2, np.float32), "eps": np.array(1e-5, np.float32), "g": f32(16), "b": f32(16),
      "sqrt2": np.array(np.sqrt(2), np.float32), "one": np.array(1, np.float32), "half": np.array(0.5, np.float32)})
# Self-attention as GPT-2 and BERT exports write it: projections, heads split by Reshape/Transpose,
# scaled scores, a causal mask through Where, Softmax, and the heads joined again.
S, E, H = 6, 16, 2
mask = np.tril(np.ones((S, S), bool)).reshape(1, 1, S, S)
case("attention",
     [N("MatMul", ["x", "wq"], ["q"]), N("MatMul", ["x", "wk"], ["k"]), N("MatMul", ["x", "wv"], ["v"]),
      N("Reshape", ["q", "heads"], ["qh"]), N("Transpose", ["qh"], ["qt"], perm=[0, 2, 1, 3]),
      N("Reshape", ["k", "heads"], ["kh"]), N("Transpose", ["kh"], ["kt"], perm=[0, 2, 3, 1]),
      N("Reshape", ["v", "heads"], ["vh"]), N("Transpose", ["vh"], ["vt"], perm=[0, 2, 1, 3]),
      N("MatMul", ["qt", "kt"], ["s"]), N("Mul", ["s", "scale"], ["ss"]),
      N("Where", ["mask", "ss", "neg"], ["sm"]), N("Softmax", ["sm"], ["p"], axis=-1),
      N("MatMul", ["p", "vt"], ["o"]), N("Transpose", ["o"], ["ot"], perm=[0, 2, 1, 3]),
      N("Reshape", ["ot", "joined"], ["y"])],
     {"x": f32(1, S, E)}, ["y"],
     {"wq": f32(E, E), "wk": f32(E, E), "wv": f32(E, E), "heads": np.array([1, S, H, E // H], np.int64),
      "scale": np.array(1 / np.sqrt(E // H), np.float32), "mask": mask, "neg": np.array(-1e4, np.float32),
      "joined": np.array([1, S, E], np.int64)})
# The shape of DxDispatch's onnx_gemm example (two products summed, inputs A0 B0 A1 B1, output "add"),
# run from JSON by dxdispatch_onnx.json.
case("dxdispatch_gemm", [N("MatMul", ["A0", "B0"], ["m0"]), N("MatMul", ["A1", "B1"], ["m1"]), N("Add", ["m0", "m1"], ["add"])],
     {"A0": f32(3, 2), "B0": f32(2, 4), "A1": f32(3, 2), "B1": f32(2, 4)}, ["add"])
case("embedding_gather", [N("Gather", ["table", "ids"], ["e"]), N("Add", ["e", "pos"], ["y"])],
     {"ids": np.array([[1, 5, 2, 7]], np.int64)}, ["y"], {"table": f32(10, 8), "pos": f32(4, 8)})



def write_error_models(folder):
    """Models the lowering must refuse with one sentence before running (cli_test.py)."""
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    os.makedirs(folder)

    def save(name, nodes, inputs, outputs, inits=(), opset=13, extra_opsets=()):
        graph = h.make_graph(nodes, name, inputs, outputs, list(inits))
        model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)] + list(extra_opsets))
        model.ir_version = 8
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(folder, name + ".onnx"))

    x = h.make_tensor_value_info("x", T.FLOAT, [2, 3])
    square = h.make_tensor_value_info("x", T.FLOAT, [3, 3])
    save("unsupported_operator", [N("Det", ["x"], ["y"], name="mystery")], [square],
         [h.make_tensor_value_info("y", T.FLOAT, [])])
    x4 = h.make_tensor_value_info("x", T.FLOAT, [1, 1, 4, 4])
    save("unsupported_attribute", [N("MaxPool", ["x"], ["y", "i"], name="pool_with_indices", kernel_shape=[2, 2],
                                     storage_order=1)],
         [x4], [h.make_tensor_value_info("y", T.FLOAT, [1, 1, 3, 3]), h.make_tensor_value_info("i", T.INT64, [1, 1, 3, 3])])
    save("foreign_domain", [h.make_node("FusedThing", ["x"], ["y"], name="custom", domain="com.example")], [x],
         [h.make_tensor_value_info("y", T.FLOAT, [2, 3])], extra_opsets=[h.make_opsetid("com.example", 1)])
    print("wrote the error models to %s" % folder)


# Appended last so that the random inputs of the cases above stay as they were.
case("trilu_upper_lower", [N("Trilu", ["x", "k"], ["u"]), N("Trilu", ["x", "k"], ["l"], upper=0)],
     {"x": f32(2, 4, 5)}, ["u", "l"], {"k": np.array(1, np.int64)}, opset=14)
case("dropout_inference_mask", [N("Dropout", ["x"], ["y", "m"])], {"x": f32(3, 4)}, ["y", "m"])
case("quantize_dequantize", [N("QuantizeLinear", ["x", "s", "z"], ["q"]), N("DequantizeLinear", ["q", "s", "z"], ["y"])],
     {"x": f32(2, 3, 4, low=-2, high=2)}, ["q", "y"], {"s": np.array(0.02, np.float32), "z": np.array(3, np.uint8)})

# Quantized operators with per-channel, per-column and per-row parameters (the backend suite has
# only per-tensor ones).
def u8(*shape):
    return rng.randint(0, 256, size=shape).astype(np.uint8)


def i8(*shape):
    return rng.randint(-128, 128, size=shape).astype(np.int8)


case("qlinearconv_per_channel",
     [N("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"], pads=[1, 1, 1, 1], strides=[2, 2])],
     {"x": u8(1, 3, 7, 7)}, ["y"],
     {"xs": np.array(0.05, np.float32), "xz": np.array(120, np.uint8), "w": i8(4, 3, 3, 3),
      "ws": np.array([0.01, 0.02, 0.005, 0.03], np.float32), "wz": np.zeros(4, np.int8),
      "ys": np.array(0.5, np.float32), "yz": np.array(128, np.uint8),
      "b": rng.randint(-500, 500, size=4).astype(np.int32)})
case("convinteger_group", [N("ConvInteger", ["x", "w", "xz"], ["y"], group=2)],
     {"x": u8(1, 4, 5, 5)}, ["y"], {"w": u8(6, 2, 2, 2), "xz": np.array(100, np.uint8)})
case("qlinearmatmul_per_column", [N("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"])],
     {"a": u8(2, 3, 8)}, ["y"],
     {"as": np.array(0.02, np.float32), "az": np.array(128, np.uint8), "b": i8(8, 5),
      "bs": np.array([0.01, 0.02, 0.03, 0.015, 0.025], np.float32), "bz": np.zeros(5, np.int8),
      "ys": np.array(0.3, np.float32), "yz": np.array(10, np.uint8)})
case("matmulinteger_per_column", [N("MatMulInteger", ["a", "b", "az", "bz"], ["y"])],
     {"a": u8(2, 4, 6)}, ["y"], {"b": u8(6, 3), "az": np.array(7, np.uint8), "bz": np.array([1, 200, 50], np.uint8)})
case("dynamic_quantize_dequantize",
     [N("DynamicQuantizeLinear", ["x"], ["q", "s", "z"]), N("DequantizeLinear", ["q", "s", "z"], ["y"])],
     {"x": f32(3, 5, low=-3, high=2)}, ["q", "s", "z", "y"])

# Recurrent operators beyond the backend suite's forward ones.
hidden = 4
case("lstm_bidirectional", [N("LSTM", ["x", "w", "r", "b", "", "h0", "c0"], ["y", "yh", "yc"], hidden_size=hidden,
                              direction="bidirectional")],
     {"x": f32(5, 2, 3)}, ["y", "yh", "yc"],
     {"w": f32(2, 4 * hidden, 3), "r": f32(2, 4 * hidden, hidden), "b": f32(2, 8 * hidden), "h0": f32(2, 2, hidden), "c0": f32(2, 2, hidden)})
case("gru_reverse_linear_before_reset",
     [N("GRU", ["x", "w", "r", "b"], ["y", "yh"], hidden_size=hidden, direction="reverse", linear_before_reset=1)],
     {"x": f32(4, 3, 2)}, ["y", "yh"], {"w": f32(1, 3 * hidden, 2), "r": f32(1, 3 * hidden, hidden), "b": f32(1, 6 * hidden)})
case("maxpool_indices_padded", [N("MaxPool", ["x"], ["y", "i"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
     {"x": f32(2, 3, 7, 6)}, ["y", "i"])
case("einsum_contract_permute", [N("Einsum", ["a", "b"], ["y"], equation="ijk,jl->lik")],
     {"a": f32(2, 3, 4), "b": f32(3, 5)}, ["y"], opset=12)
case("einsum_sum_transpose", [N("Einsum", ["a"], ["y"], equation="ijk->kj")], {"a": f32(2, 3, 4)}, ["y"], opset=12)
# Operators that run through ONNX's function bodies and through a narrower type.
case("softmax_cross_entropy_weighted",
     [N("SoftmaxCrossEntropyLoss", ["x", "t", "w"], ["loss", "logp"], reduction="mean", ignore_index=2)],
     {"x": f32(4, 5, 3), "t": rng.randint(0, 5, size=(4, 3)).astype(np.int64)}, ["loss", "logp"], {"w": f32(5, low=0.5)})
case("max_cumsum_float64", [N("Max", ["a", "b"], ["m"]), N("CumSum", ["m", "axis"], ["y"])],
     {"a": rng.uniform(-4, 4, size=(3, 5)), "b": rng.uniform(-4, 4, size=(5,))}, ["y"],
     {"axis": np.array(1, np.int64)}, opset=14)

# The same written as the exporters of BERT and GPT-2 do, which the lowering fuses into one
# MULTIHEAD_ATTENTION (cli_test.py checks the fusion notes): a causal Where mask filling with
# float32's lowest value, and a padding mask added to scores divided by sqrt(head size).
B = 2
lowest = np.array(np.finfo(np.float32).min, np.float32)
heads_split = [N("MatMul", ["x", "wq"], ["q"]), N("MatMul", ["x", "wk"], ["k"]), N("MatMul", ["x", "wv"], ["v"]),
               N("Reshape", ["q", "heads"], ["qh"]), N("Transpose", ["qh"], ["qt"], perm=[0, 2, 1, 3]),
               N("Reshape", ["k", "heads"], ["kh"]), N("Transpose", ["kh"], ["kt"], perm=[0, 2, 3, 1]),
               N("Reshape", ["v", "heads"], ["vh"]), N("Transpose", ["vh"], ["vt"], perm=[0, 2, 1, 3]),
               N("MatMul", ["qt", "kt"], ["s"])]
heads_join = [N("Softmax", ["sm"], ["p"], axis=-1), N("MatMul", ["p", "vt"], ["o"]),
              N("Transpose", ["o"], ["ot"], perm=[0, 2, 1, 3]), N("Reshape", ["ot", "joined"], ["y"])]
weights = {"wq": f32(E, E), "wk": f32(E, E), "wv": f32(E, E), "heads": np.array([B, S, H, E // H], np.int64),
           "joined": np.array([B, S, E], np.int64)}
case("attention_fused_causal", heads_split + [N("Mul", ["s", "scale"], ["ss"]), N("Where", ["mask", "ss", "lowest"], ["sm"])]
     + heads_join, {"x": f32(B, S, E)}, ["y"],
     dict(weights, scale=np.array(1 / np.sqrt(E // H), np.float32), mask=mask, lowest=lowest))
padding = np.zeros((B, 1, 1, S), np.float32)
padding[1, ..., 4:] = lowest
case("attention_fused_padding", heads_split + [N("Div", ["s", "root"], ["ss"]), N("Add", ["ss", "pad"], ["sm"])] + heads_join,
     {"x": f32(B, S, E), "pad": padding}, ["y"], dict(weights, root=np.array(np.sqrt(E // H), np.float32)))
# A row whose keys are all masked: Where gives it equal scores (a uniform softmax); the operator's
# added filter gives the same only where float rounding absorbs the scores into the filter, which
# the lowering does not count on, so this one stays unfused.
masked_row = mask.copy()
masked_row[..., 2, :] = False
case("attention_masked_row_unfused", heads_split + [N("Mul", ["s", "scale"], ["ss"]),
                                                    N("Where", ["mask", "ss", "lowest"], ["sm"])] + heads_join,
     {"x": f32(B, S, E)}, ["y"], dict(weights, scale=np.array(1 / np.sqrt(E // H), np.float32), mask=masked_row,
                                      lowest=lowest))

# ONNX Runtime's contrib MultiHeadAttention (com.microsoft), lowered to MULTIHEAD_ATTENTION: with a
# packed bias, a 0/1 key padding mask and an attention bias; and with key lengths as the mask.
CONTRIB = [h.make_opsetid("com.microsoft", 1)]
B, S, T_, H, D = 2, 5, 6, 2, 4
pad01 = np.ones((B, T_), np.int32)
pad01[1, 4:] = 0
case("contrib_mha_bias_mask",
     [h.make_node("MultiHeadAttention", ["q", "k", "v", "bias", "pad", "abias"], ["o"], domain="com.microsoft",
                  num_heads=H), N("Relu", ["o"], ["y"])],
     {"q": f32(B, S, H * D), "k": f32(B, T_, H * D), "v": f32(B, T_, H * D), "pad": pad01, "abias": f32(1, H, S, T_)},
     ["y"], {"bias": f32(3 * H * D)}, output_shapes={"y": [B, S, H * D]}, extra_opsets=CONTRIB)
case("contrib_mha_key_lengths",
     [h.make_node("MultiHeadAttention", ["q", "k", "v", "", "lengths"], ["y"], domain="com.microsoft", num_heads=H,
                  scale=0.3)],
     {"q": f32(B, S, H * D), "k": f32(B, T_, H * D), "v": f32(B, T_, H * D), "lengths": np.array([6, 3], np.int32)},
     ["y"], output_shapes={"y": [B, S, H * D]}, extra_opsets=CONTRIB)

# Cast to BOOL: non-zero is true, NaN included (values fixed, so no random draws change).
case("cast_to_bool", [N("Cast", ["x"], ["b"], to=T.BOOL), N("Cast", ["n"], ["c"], to=T.BOOL)],
     {"x": np.array([[0.0, -0.0, 0.5, -2.0], [np.nan, np.inf, -np.inf, 1e-30]], np.float32),
      "n": np.array([0, 1, -3, 2147483647], np.int32)}, ["b", "c"])

# GPT-2's tanh GELU as exported: Pow(x, 3) (lowered as x * x * x, as ONNX Runtime computes it).
case("gelu_tanh_pow3",
     [N("Pow", ["x", "three"], ["x3"]), N("Mul", ["x3", "c"], ["x3c"]), N("Add", ["x", "x3c"], ["inner"]),
      N("Mul", ["inner", "k"], ["t0"]), N("Tanh", ["t0"], ["t"]), N("Add", ["t", "one"], ["t1"]),
      N("Mul", ["x", "half"], ["xh"]), N("Mul", ["xh", "t1"], ["y"]), N("Pow", ["x", "three"], ["cube"])],
     {"x": f32(3, 7, 16, low=-4.0, high=4.0)}, ["y", "cube"],
     {"three": np.array(3, np.float32), "c": np.array(0.044715, np.float32),
      "k": np.array(np.sqrt(2 / np.pi), np.float32), "one": np.array(1, np.float32),
      "half": np.array(0.5, np.float32)})

# LayerNorm written out as exporters write it (the layer_norm_decomposed_gelu case above has
# BERT's form), fused into MEAN_VARIANCE_NORMALIZATION1 where the formula is the same; cli_test.py
# checks which are fused. Here: the square as Mul(d, d), a scale and no bias, over two axes.
def layer_norm(x, square, axes, eps, tail, prefix=""):
    n = lambda s: prefix + s
    nodes = [N("ReduceMean", [x], [n("mu")], axes=axes), N("Sub", [x, n("mu")], [n("d")]),
             N("Mul", [n("d"), n("d")], [n("d2")]) if square == "mul" else N("Pow", [n("d"), square], [n("d2")]),
             N("ReduceMean", [n("d2")], [n("var")], axes=axes),
             N("Add", [eps, n("var")], [n("ve")]), N("Sqrt", [n("ve")], [n("sd")]), N("Div", [n("d"), n("sd")], [n("n")])]
    return nodes + tail


case("layer_norm_fused_two_axes",
     layer_norm("x", "mul", [-2, -1], "eps", [N("Mul", ["g", "n"], ["y"])]),
     {"x": f32(2, 3, 4, 8, low=-3.0, high=5.0)}, ["y"], {"eps": np.array([1e-6], np.float32), "g": f32(4, 1)})
# Not fused, and still equal to ONNX Runtime: the deviation also read as an output; an epsilon per
# channel (not a scalar); a square by an exponent other than 2.
case("layer_norm_unfused",
     layer_norm("x", "two", [-1], "eps", [N("Mul", ["n", "g"], ["ng"]), N("Add", ["ng", "b"], ["y"])]) +
     layer_norm("x", "two", [-1], "epsv", [N("Mul", ["v_n", "g"], ["v_ng"]), N("Add", ["v_ng", "b"], ["z"])], prefix="v_") +
     layer_norm("x", "three", [-1], "eps", [], prefix="p_"),
     {"x": f32(2, 5, 16)}, ["y", "d", "z", "p_n"],
     {"two": np.array(2, np.float32), "three": np.array(3, np.float32), "eps": np.array(1e-5, np.float32),
      "epsv": f32(5, 1, low=1e-3, high=1e-2), "g": f32(16), "b": f32(16)})
# The erf GELU: after a MatMul and its bias (the GEMM then carries it as its fused activation), in
# BERT's order; with the other orders exporters write (x / sqrt(2) as a product with 1 / sqrt(2),
# the halving first or last); and unfused where the sum 1 + erf is also an output.
gelu_bert = [N("Div", ["h", "sqrt2"], ["hs"]), N("Erf", ["hs"], ["e"]), N("Add", ["e", "one"], ["e1"]),
             N("Mul", ["h", "e1"], ["he"]), N("Mul", ["he", "half"], ["y"])]
case("gelu_erf_matmul_fused", [N("MatMul", ["x", "w"], ["m"]), N("Add", ["bias", "m"], ["h"])] + gelu_bert,
     {"x": f32(2, 6, 8, low=-2.0, high=2.0)}, ["y"],
     {"w": f32(8, 12), "bias": f32(12), "sqrt2": np.array(np.sqrt(2), np.float32),
      "one": np.array(1, np.float32), "half": np.array(0.5, np.float32)})
case("gelu_erf_orders_fused",
     [N("Mul", ["r", "x"], ["xs"]), N("Erf", ["xs"], ["e"]), N("Add", ["one", "e"], ["e1"]),
      N("Mul", ["half", "x"], ["xh"]), N("Mul", ["e1", "xh"], ["y"]),
      N("Div", ["x", "sqrt2"], ["xs2"]), N("Erf", ["xs2"], ["f"]), N("Add", ["f", "one"], ["f1"]),
      N("Mul", ["f1", "half"], ["fh"]), N("Mul", ["x", "fh"], ["z"])],
     {"x": f32(3, 40, low=-5.0, high=5.0)}, ["y", "z"],
     {"r": np.array(1 / np.sqrt(2), np.float32), "sqrt2": np.array(np.sqrt(2), np.float32),
      "one": np.array(1, np.float32), "half": np.array(0.5, np.float32)})
case("gelu_erf_unfused",
     [N("Div", ["x", "sqrt2"], ["xs"]), N("Erf", ["xs"], ["e"]), N("Add", ["e", "one"], ["e1"]),
      N("Mul", ["x", "e1"], ["xe"]), N("Mul", ["xe", "half"], ["y"]),
      N("Div", ["x", "c"], ["xc"]), N("Erf", ["xc"], ["g"]), N("Add", ["g", "one"], ["g1"]),
      N("Mul", ["x", "g1"], ["xg"]), N("Mul", ["xg", "half"], ["z"])],
     {"x": f32(4, 10, low=-3.0, high=3.0)}, ["y", "e1", "z"],
     {"sqrt2": np.array(np.sqrt(2), np.float32), "c": np.array(1.5, np.float32),
      "one": np.array(1, np.float32), "half": np.array(0.5, np.float32)})
# GPT-2's attention: Q, K and V split from one projection along its last axis; the fused
# attention reads them stacked in the projection (cli_test.py checks the note, and that the graph
# optimizer drops the then unread SPLIT).
B, S, H, D = 2, 6, 2, 4
E = H * D
causal = np.tril(np.ones((S, S), bool)).reshape(1, 1, S, S)
case("attention_fused_split_qkv",
     [N("MatMul", ["x", "w"], ["qkv"]), N("Split", ["qkv", "parts"], ["q", "k", "v"], axis=2),
      N("Reshape", ["q", "heads"], ["qh"]), N("Transpose", ["qh"], ["qt"], perm=[0, 2, 1, 3]),
      N("Reshape", ["k", "heads"], ["kh"]), N("Transpose", ["kh"], ["kt"], perm=[0, 2, 3, 1]),
      N("Reshape", ["v", "heads"], ["vh"]), N("Transpose", ["vh"], ["vt"], perm=[0, 2, 1, 3]),
      N("MatMul", ["qt", "kt"], ["s"]), N("Div", ["s", "root"], ["ss"]), N("Where", ["mask", "ss", "lowest"], ["sm"]),
      N("Softmax", ["sm"], ["p"], axis=-1), N("MatMul", ["p", "vt"], ["o"]),
      N("Transpose", ["o"], ["ot"], perm=[0, 2, 1, 3]), N("Reshape", ["ot", "joined"], ["y"])],
     {"x": f32(B, S, E)}, ["y"],
     {"w": f32(E, 3 * E), "parts": np.array([E, E, E], np.int64), "heads": np.array([B, S, H, D], np.int64),
      "root": np.array(np.sqrt(D), np.float32), "mask": causal, "lowest": np.array(np.finfo(np.float32).min, np.float32),
      "joined": np.array([B, S, E], np.int64)})


if __name__ == "__main__":
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    for c in CASES:
        write(*c)
    print("wrote %d cases to %s" % (len(CASES), OUT))
    write_error_models(os.path.join(os.path.dirname(OUT), "errors"))

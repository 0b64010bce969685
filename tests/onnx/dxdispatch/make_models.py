#!/usr/bin/env python3
"""Writes DxDispatch's two ONNX example models and what dmlrun must print for their JSON models.

    python3 make_models.py

onnx_gemm.onnx and onnx_dynamic_shapes.onnx are built here with the onnx package from the graphs
DxDispatch's guide describes (microsoft/DirectML, DxDispatch/models, MIT licence): two Gemms of
[3,2] x [2,4] inputs added together; a Concat on axis 0 of two [N,2] inputs whose output shape is
left unknown. The JSON models beside them run the same commands as DxDispatch's models of the same
names. expected/<model>.json holds the values ONNX Runtime (CPU) computes for each print command,
with the buffers reinterpreted as each dispatch's binding shapes ask, for tests/dmlrun/run_model.py;
its "lines" are the exact lines DxDispatch's own tests look for, and the other prints.
Needs numpy, onnx and onnxruntime. IR version 8, so that ONNX 1.12's C++ library reads the files.
"""
import json
import pathlib

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T
from onnx import helper as h

HERE = pathlib.Path(__file__).resolve().parent


def save(model, name):
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, HERE / name)
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def gemm_model():
    f = lambda name, shape: h.make_tensor_value_info(name, T.FLOAT, shape)
    graph = h.make_graph(
        [h.make_node("Gemm", ["A0", "B0"], ["gemm_0"]), h.make_node("Gemm", ["A1", "B1"], ["gemm_1"]),
         h.make_node("Add", ["gemm_0", "gemm_1"], ["add"])],
        "GEMM Network", [f("A0", [3, 2]), f("B0", [2, 4]), f("A1", [3, 2]), f("B1", [2, 4])], [f("add", [3, 4])])
    return save(h.make_model(graph, opset_imports=[h.make_opsetid("", 13)]), "onnx_gemm.onnx")


def concat_model():
    x = lambda name: h.make_tensor_value_info(name, T.FLOAT, ["N", 2])
    y = h.make_tensor_value_info("y", T.FLOAT, [None, None])
    graph = h.make_graph([h.make_node("Concat", ["x0", "x1"], ["y"], axis=0)], "my_graph", [x("x0"), x("x1")], [y])
    return save(h.make_model(graph, opset_imports=[h.make_opsetid("", 14)]), "onnx_dynamic_shapes.onnx")


def line(name, values):
    return "Resource '%s': %s" % (name, ", ".join("%g" % v for v in values))


def write(model, resources, lines):
    assert DXDISPATCH_TESTS[model] in lines, "ONNX Runtime disagrees with DxDispatch's test for " + model
    expected = {"model": model, "resources": {k: [float(v) for v in vs] for k, vs in resources.items()},
                "rtol": 0, "atol": 0, "lines": lines}
    (HERE / "expected").mkdir(exist_ok=True)
    with open(HERE / "expected" / (model[:-5] + ".json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


# What DxDispatch's CMakeLists.txt (its model_test entries) requires these models to print.
DXDISPATCH_TESTS = {
    "onnx_gemm.json": "Resource 'Out': 22, 28, 34, 40, 46, 60, 74, 88, 70, 92, 114, 136",
    "onnx_dynamic_shapes.json": "Resource 'deferredY': 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12",
}


def main():
    a = np.arange(1, 7, dtype=np.float32)
    b = np.arange(1, 9, dtype=np.float32)
    (out,) = gemm_model().run(["add"], {"A0": a.reshape(3, 2), "B0": b.reshape(2, 4), "A1": a.reshape(3, 2),
                                        "B1": b.reshape(2, 4)})
    write("onnx_gemm.json", {"Out": out.ravel()}, [line("Out", out.ravel())])

    session = concat_model()
    a, b = np.arange(1, 7, dtype=np.float32), np.arange(7, 13, dtype=np.float32)
    c = np.zeros(12, np.float32)
    prints = []
    # The first two dispatches read the first n rows of a and b as [n,2] and write c's first 2n rows.
    for n in (1, 3):
        (y,) = session.run(["y"], {"x0": a[:2 * n].reshape(n, 2), "x1": b[:2 * n].reshape(n, 2)})
        c[:y.size] = y.ravel()
        prints.append(line("c", c))
    # The third writes a deferred resource, which takes y's shape.
    (deferred,) = session.run(["y"], {"x0": a.reshape(3, 2), "x1": b.reshape(3, 2)})
    prints.append(line("deferredY", deferred.ravel()))
    write("onnx_dynamic_shapes.json", {"c": c, "deferredY": deferred.ravel()}, prints)


if __name__ == "__main__":
    main()

"""Conformance cases of the resampling operators VALUE_SCALE_2D, UPSAMPLE_2D, RESAMPLE, RESAMPLE1,
RESAMPLE2, RESAMPLE3, RESAMPLE_GRAD and RESAMPLE_GRAD1, computed here with numpy in float64 from the
reference pages' coordinate mapping,

    OutputX = (InputX + InputPixelOffset) * Scale + OutputPixelOffset,

(half-pixel offsets 0.5 and -0.5 where a desc has none), plus DxDispatch's dml_upsample_2d example.
Each dimension becomes a weight matrix W (output x input): nearest neighbour picks the rounded
coordinate (halves up, or down for RoundingDirection DECREASING), linear the two neighbours of the
coordinate clamped to the input, antialiased linear downscaling a triangle filter of half-width
1/Scale whose taps beyond an edge read the edge element. The forward output is the input multiplied
by every W along its dimension, the gradient the output gradient multiplied by every W transposed. The coordinate
itself is computed in float32, as DirectML's FLOAT fields give it (it decides the rounding of
ties); everything after it in float64.

Where onnxruntime is installed, the references are first checked against ONNX Resize (opset 18,
half_pixel) on its CPU provider: linear, antialiased linear, and nearest with round_prefer_ceil
(INCREASING) and round_prefer_floor (DECREASING).

Run once to (re)write cases/resampling_*.json. The values FreeDML must produce come from numpy here,
never from FreeDML.
"""
import math

import numpy as np

from case_format import tensor, values, write_cases

rng = np.random.default_rng(20261126)
NP = {"FLOAT32": np.float32, "FLOAT16": np.float16, "INT8": np.int8, "UINT8": np.uint8}
TOL = {"FLOAT32": {"ulps": 16, "absolute": 1e-5}, "FLOAT16": {"ulps": 2, "absolute": 2e-3}, "INT8": {}, "UINT8": {}}
F32 = np.float32


def random(dtype, shape):
    t = NP[dtype]
    if np.issubdtype(t, np.floating):
        return (rng.standard_normal(shape) * 4).astype(t)
    info = np.iinfo(t)
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=t)


def stored(dtype, array, strides):
    """The memory of `array` laid out with element `strides`; skipped elements hold random values."""
    count = 1 + sum((s - 1) * st for s, st in zip(array.shape, strides))
    memory = random(dtype, (count,))
    for index in np.ndindex(*array.shape):
        memory[sum(i * st for i, st in zip(index, strides))] = array[index]
    return tensor(dtype, array.shape, strides), values(memory, dtype)


def weights(n_in, n_out, scale, in_off, out_off, linear, round_down=False, antialias=False):
    w = np.zeros((n_out, n_in))
    for o in range(n_out):
        x = float((F32(o) - F32(out_off)) / F32(scale) - F32(in_off))
        if not linear:
            r = math.ceil(x - 0.5) if round_down else math.floor(x + 0.5)
            w[o, min(max(r, 0), n_in - 1)] = 1
        elif antialias and F32(scale) < 1:
            # The triangle of half-width 1/scale, normalized over its whole window; taps beyond an
            # edge read the edge element (ONNX Resize's antialias with exclude_outside 0).
            s = float(F32(scale))
            taps = np.arange(math.ceil(x - 1 / s), math.floor(x + 1 / s) + 1)
            tri = np.maximum(0.0, 1.0 - np.abs((taps - x) * s))
            np.add.at(w[o], np.clip(taps, 0, n_in - 1), tri / tri.sum())
        else:
            c = min(max(x, 0.0), n_in - 1)
            i0 = math.floor(c)
            f = c - i0
            w[o, i0] += 1 - f
            if f > 0:
                w[o, i0 + 1] += f
    return w


def apply(x, mats):
    y = x.astype(np.float64)
    for axis, m in enumerate(mats):
        y = np.moveaxis(np.tensordot(m, np.moveaxis(y, axis, 0), axes=1), 0, axis)
    return y


def to_type(y, dtype):
    if dtype in ("INT8", "UINT8"):
        info = np.iinfo(NP[dtype])
        return np.clip(np.rint(y), info.min, info.max)
    return y.astype(NP[dtype]).astype(np.float64)


def make_case(name, op, in_name, out_name, x, y, dtype, in_strides=None, out_strides=None, exact=False):
    if in_strides:
        in_desc, in_values = stored(dtype, x, in_strides)
    else:
        in_desc, in_values = tensor(dtype, x.shape), values(x, dtype)
    op = dict(op, **{in_name: in_desc, out_name: tensor(dtype, y.shape, out_strides)})
    out = {"values": values(to_type(y, dtype), dtype)}
    if not exact:
        out.update(TOL[dtype])
    return {"name": name, "operator": op, "inputs": {in_name: in_values}, "outputs": {out_name: out}}


def resample(name, op_type, dtype, x, out_shape, scales, linear, in_offs=None, out_offs=None, round_down=False,
             antialias=None, fields=None, **kw):
    in_o = in_offs or [0.5] * x.ndim
    out_o = out_offs or [-0.5] * x.ndim
    mats = [weights(n, m, s, a, b, linear, round_down, bool(antialias))
            for n, m, s, a, b in zip(x.shape, out_shape, scales, in_o, out_o)]
    y = apply(x, mats)
    # The integer types compare exactly; a weighted sum within float32 error of a half would round
    # either way, so such inputs are drawn again.
    while dtype in ("INT8", "UINT8") and np.any(np.abs(np.abs(y - np.floor(y)) - 0.5) < 1e-3):
        x = random(dtype, x.shape)
        y = apply(x, mats)
    op = {"type": f"DML_OPERATOR_{op_type}",
          "InterpolationMode": "DML_INTERPOLATION_MODE_LINEAR" if linear else "DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR"}
    if op_type == "RESAMPLE":
        op.update(ScaleCount=x.ndim, Scales=scales)
    else:
        op.update(DimensionCount=x.ndim, Scales=scales, InputPixelOffsets=in_o, OutputPixelOffsets=out_o)
    if op_type in ("RESAMPLE2", "RESAMPLE3"):
        op["RoundingDirection"] = "DML_AXIS_DIRECTION_DECREASING" if round_down else "DML_AXIS_DIRECTION_INCREASING"
    if op_type == "RESAMPLE3":
        op["Antialiased"] = bool(antialias)
    op.update(fields or {})
    return make_case(name, op, "InputTensor", "OutputTensor", x, y, dtype, exact=not linear, **kw)


def resample_cases():
    cases = []
    for dtype in ["FLOAT32", "FLOAT16", "INT8", "UINT8"]:
        x = random(dtype, (1, 2, 3, 4))
        cases.append(resample(f"RESAMPLE_{dtype}_linear_2x", "RESAMPLE", dtype, x, (1, 2, 6, 8), [1, 1, 2, 2], True))
        cases.append(resample(f"RESAMPLE_{dtype}_nearest_2x", "RESAMPLE", dtype, x, (1, 2, 6, 8), [1, 1, 2, 2], False))
        y = random(dtype, (2, 5, 7))
        cases.append(resample(f"RESAMPLE_{dtype}_linear_down_noninteger", "RESAMPLE", dtype, y, (2, 3, 5),
                              [1, 0.6, 0.75], True))
        cases.append(resample(f"RESAMPLE_{dtype}_nearest_1_5x", "RESAMPLE", dtype, y, (3, 7, 10), [1.5, 1.5, 1.5],
                              False))
    x = random("FLOAT32", (9,))
    cases.append(resample("RESAMPLE_FLOAT32_1d_linear_third", "RESAMPLE", "FLOAT32", x, (3,), [1 / 3], True))
    # Scales need not be OutputSize / InputSize: the output is cropped or its edges clamped.
    x = random("FLOAT32", (1, 1, 4, 4))
    cases.append(resample("RESAMPLE_FLOAT32_scale_not_size_ratio", "RESAMPLE", "FLOAT32", x, (1, 1, 5, 9),
                          [1, 1, 2, 2], True))
    cases.append(resample("RESAMPLE_FLOAT32_4d_every_dim_linear", "RESAMPLE", "FLOAT32", random("FLOAT32", (2, 2, 2, 3)),
                          (3, 4, 3, 5), [1.5, 2, 1.5, 1.75], True))
    # RESAMPLE1: offsets. 0 and 0 is the "asymmetric" mapping InputX = OutputX / Scale.
    for dtype in ["FLOAT32", "FLOAT16", "INT8", "UINT8"]:
        x = random(dtype, (1, 2, 4, 5))
        cases.append(resample(f"RESAMPLE1_{dtype}_linear_asymmetric", "RESAMPLE1", dtype, x, (1, 2, 7, 9),
                              [1, 1, 1.75, 1.8], True, [0, 0, 0, 0], [0, 0, 0, 0]))
        cases.append(resample(f"RESAMPLE1_{dtype}_nearest_offsets", "RESAMPLE1", dtype, x, (1, 2, 3, 8),
                              [1, 1, 0.7, 1.6], False, [0, 0, 0.25, -0.3], [0, 0, 0.5, 0.1]))
    x = random("FLOAT32", (2, 3, 4))
    cases.append(resample("RESAMPLE1_FLOAT32_strided_views", "RESAMPLE1", "FLOAT32", x, (2, 6, 2),
                          [1, 2, 0.5], True, None, None, in_strides=[1, 2, 6], out_strides=[20, 3, 1]))
    # RESAMPLE2: both rounding directions; scale 1.5 with half-pixel offsets puts output 1 exactly
    # on 0.5 (a tie) and scale 3 with offsets 0 puts several on halves.
    for dtype in ["FLOAT32", "FLOAT16"]:
        x = random(dtype, (1, 1, 4, 6))
        for down in (False, True):
            tag = "down" if down else "up"
            cases.append(resample(f"RESAMPLE2_{dtype}_nearest_ties_{tag}", "RESAMPLE2", dtype, x, (1, 1, 6, 9),
                                  [1, 1, 1.5, 1.5], False, round_down=down))
            cases.append(resample(f"RESAMPLE2_{dtype}_nearest_offsets_{tag}", "RESAMPLE2", dtype, x, (1, 1, 2, 9),
                                  [1, 1, 0.5, 2], False, [0, 0, 0.25, 0.25], [0, 0, 0, 0], round_down=down))
        cases.append(resample(f"RESAMPLE2_{dtype}_linear", "RESAMPLE2", dtype, x, (1, 1, 3, 10), [1, 1, 0.75, 1.7],
                              True))
    x = random("FLOAT32", (3, 4))
    cases.append(resample("RESAMPLE2_FLOAT32_strided_views", "RESAMPLE2", "FLOAT32", x, (5, 3), [1.5, 0.75], False,
                          round_down=True, in_strides=[1, 3], out_strides=[4, 1]))
    # RESAMPLE3: antialiasing when downscaling (linear), off, and upscaling (no effect).
    for dtype in ["FLOAT32", "FLOAT16", "INT8", "UINT8"]:
        x = random(dtype, (1, 2, 8, 10))
        for aa in (False, True):
            tag = "antialiased" if aa else "plain"
            cases.append(resample(f"RESAMPLE3_{dtype}_linear_down_{tag}", "RESAMPLE3", dtype, x, (1, 2, 4, 4),
                                  [1, 1, 0.5, 0.4], True, antialias=aa))
        cases.append(resample(f"RESAMPLE3_{dtype}_linear_up_antialiased", "RESAMPLE3", dtype, x[:, :, :3, :3],
                              (1, 2, 7, 5), [1, 1, 2.5, 1.5], True, antialias=True))
        cases.append(resample(f"RESAMPLE3_{dtype}_nearest_down_antialiased", "RESAMPLE3", dtype, x, (1, 2, 3, 4),
                              [1, 1, 0.4, 0.4], False, round_down=True, antialias=True))
    x = random("FLOAT32", (11, 6))
    cases.append(resample("RESAMPLE3_FLOAT32_antialiased_offsets_strided", "RESAMPLE3", "FLOAT32", x, (4, 2),
                          [0.3, 0.45], True, [0.1, 0.5], [-0.2, -0.5], antialias=True, in_strides=[1, 12],
                          out_strides=[3, 1]))
    return cases


def upsample_cases():
    cases = []
    # DxDispatch's dml_upsample_2d: 1 2 / 3 4, linear, 2x.
    page = np.array([1, 2, 3, 4], dtype=np.float32).reshape(1, 1, 2, 2)
    for dtype in ["FLOAT32", "FLOAT16"]:
        for linear in (True, False):
            mode = "linear" if linear else "nearest"
            for name, x, sh, sw in [("page", page.astype(NP[dtype]), 2, 2),
                                    ("3x2", random(dtype, (2, 3, 3, 4)), 3, 2)]:
                n, c, h, w = x.shape
                mats = [np.eye(n), np.eye(c), weights(h, h * sh, sh, 0.5, -0.5, linear),
                        weights(w, w * sw, sw, 0.5, -0.5, linear)]
                op = {"type": "DML_OPERATOR_UPSAMPLE_2D", "ScaleSize": {"Width": sw, "Height": sh},
                      "InterpolationMode": "DML_INTERPOLATION_MODE_LINEAR" if linear
                      else "DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR"}
                cases.append(make_case(f"UPSAMPLE_2D_{dtype}_{mode}_{name}", op, "InputTensor", "OutputTensor", x,
                                       apply(x, mats), dtype, exact=not linear))
    # DxDispatch's expected print for the example, checked against the reference above.
    expected = [1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4]
    assert cases[0]["outputs"]["OutputTensor"]["values"] == expected, cases[0]["outputs"]
    # 5-D {N, C, D, H, W}: only height and width are scaled.
    for linear in (True, False):
        x = random("FLOAT32", (1, 2, 3, 2, 3))
        mats = [np.eye(1), np.eye(2), np.eye(3), weights(2, 6, 3, 0.5, -0.5, linear), weights(3, 6, 2, 0.5, -0.5, linear)]
        op = {"type": "DML_OPERATOR_UPSAMPLE_2D", "ScaleSize": {"Width": 2, "Height": 3},
              "InterpolationMode": "DML_INTERPOLATION_MODE_LINEAR" if linear
              else "DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR"}
        cases.append(make_case(f"UPSAMPLE_2D_FLOAT32_5d_{'linear' if linear else 'nearest'}", op, "InputTensor",
                               "OutputTensor", x, apply(x, mats), "FLOAT32", exact=not linear))
    x = random("FLOAT32", (1, 2, 2, 3))
    mats = [np.eye(1), np.eye(2), weights(2, 4, 2, 0.5, -0.5, True), weights(3, 3, 1, 0.5, -0.5, True)]
    op = {"type": "DML_OPERATOR_UPSAMPLE_2D", "ScaleSize": {"Width": 1, "Height": 2},
          "InterpolationMode": "DML_INTERPOLATION_MODE_LINEAR"}
    cases.append(make_case("UPSAMPLE_2D_FLOAT32_strided_views", op, "InputTensor", "OutputTensor", x, apply(x, mats),
                           "FLOAT32", in_strides=[12, 1, 6, 2], out_strides=[24, 12, 3, 1]))
    return cases


def value_scale_cases():
    cases = []
    for dtype in ["FLOAT32", "FLOAT16"]:
        x = random(dtype, (2, 3, 2, 4))
        bias = [0.5, -1.25, 3.0]
        scale = 0.75
        y = x.astype(np.float64) * scale + np.array(bias).reshape(1, 3, 1, 1)
        op = {"type": "DML_OPERATOR_VALUE_SCALE_2D", "Scale": scale, "ChannelCount": 3, "Bias": bias}
        cases.append(make_case(f"VALUE_SCALE_2D_{dtype}", op, "InputTensor", "OutputTensor", x, y, dtype))
    x = random("FLOAT32", (1, 2, 3, 3))
    y = x.astype(np.float64) * -2 + np.array([1.0, 0.25]).reshape(1, 2, 1, 1)
    op = {"type": "DML_OPERATOR_VALUE_SCALE_2D", "Scale": -2.0, "ChannelCount": 2, "Bias": [1.0, 0.25]}
    cases.append(make_case("VALUE_SCALE_2D_FLOAT32_strided_views", op, "InputTensor", "OutputTensor", x, y,
                           "FLOAT32", in_strides=[18, 1, 6, 2], out_strides=[24, 12, 4, 1]))
    return cases


def grad(name, op_type, dtype, in_shape, out_shape, scales, linear, in_offs=None, out_offs=None, round_down=False,
         **kw):
    """The gradient: dY (out_shape) times every W transposed gives dX (in_shape)."""
    in_o = in_offs or [0.5] * len(in_shape)
    out_o = out_offs or [-0.5] * len(in_shape)
    mats = [weights(n, m, s, a, b, linear, round_down).T
            for n, m, s, a, b in zip(in_shape, out_shape, scales, in_o, out_o)]
    dy = random(dtype, out_shape)
    dx = apply(dy, mats)
    op = {"type": f"DML_OPERATOR_{op_type}",
          "InterpolationMode": "DML_INTERPOLATION_MODE_LINEAR" if linear else "DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR",
          "DimensionCount": len(in_shape), "Scales": scales, "InputPixelOffsets": in_o, "OutputPixelOffsets": out_o}
    if op_type == "RESAMPLE_GRAD1":
        op["RoundingDirection"] = "DML_AXIS_DIRECTION_DECREASING" if round_down else "DML_AXIS_DIRECTION_INCREASING"
    return make_case(name, op, "InputGradientTensor", "OutputGradientTensor", dy, dx, dtype, **kw)


def grad_cases():
    cases = []
    for dtype in ["FLOAT32", "FLOAT16"]:
        cases.append(grad(f"RESAMPLE_GRAD_{dtype}_linear_2x", "RESAMPLE_GRAD", dtype, (1, 2, 3, 4), (1, 2, 6, 8),
                          [1, 1, 2, 2], True))
        cases.append(grad(f"RESAMPLE_GRAD_{dtype}_nearest_down", "RESAMPLE_GRAD", dtype, (1, 1, 6, 7), (1, 1, 3, 3),
                          [1, 1, 0.5, 0.45], False))
        cases.append(grad(f"RESAMPLE_GRAD_{dtype}_linear_noninteger", "RESAMPLE_GRAD", dtype, (2, 5, 4), (2, 7, 3),
                          [1, 1.4, 0.75], True, [0, 0, 0], [0, 0, 0]))
        for down in (False, True):
            tag = "down" if down else "up"
            cases.append(grad(f"RESAMPLE_GRAD1_{dtype}_nearest_ties_{tag}", "RESAMPLE_GRAD1", dtype, (1, 1, 4, 6),
                              (1, 1, 6, 9), [1, 1, 1.5, 1.5], False, round_down=down))
        cases.append(grad(f"RESAMPLE_GRAD1_{dtype}_linear", "RESAMPLE_GRAD1", dtype, (1, 1, 5, 4), (1, 1, 3, 7),
                          [1, 1, 0.6, 1.75], True))
    cases.append(grad("RESAMPLE_GRAD_FLOAT32_strided_views", "RESAMPLE_GRAD", "FLOAT32", (3, 4), (6, 3),
                      [2, 0.75], True, in_strides=[1, 6], out_strides=[5, 1]))
    return cases


def wide_cases():
    """Rows wider than one CUDA block of the row-mapped kernel (256 threads), the FLOAT16 one with N and C above 1.
    Written last so that the random values of the other files stay as they were."""
    cases = []
    x = random("FLOAT32", (1, 1, 2, 150))
    cases.append(resample("RESAMPLE_FLOAT32_linear_2x_wide", "RESAMPLE", "FLOAT32", x, (1, 1, 4, 300), [1, 1, 2, 2],
                          True))
    x = random("FLOAT16", (2, 2, 1, 140))
    cases.append(resample("RESAMPLE1_FLOAT16_linear_2x_wide", "RESAMPLE1", "FLOAT16", x, (2, 2, 2, 280),
                          [1, 1, 2, 2], True))
    return cases


def check_against_onnxruntime():
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper
    except ImportError:
        print("onnxruntime is not installed; the cross-check is skipped")
        return
    check = np.random.default_rng(1)
    for shape, scales, linear, floor_ties, aa in [((1, 2, 5, 7), [1, 1, 2, 1.5], True, False, 0),
                                                  ((1, 2, 8, 10), [1, 1, 0.5, 0.4], True, False, 1),
                                                  ((1, 1, 4, 6), [1, 1, 1.5, 1.5], False, False, 0),
                                                  ((1, 1, 4, 6), [1, 1, 1.5, 1.5], False, True, 0)]:
        node = helper.make_node("Resize", ["X", "", "S"], ["Y"], mode="linear" if linear else "nearest",
                                coordinate_transformation_mode="half_pixel", antialias=aa,
                                nearest_mode="round_prefer_floor" if floor_ties else "round_prefer_ceil")
        graph = helper.make_graph([node], "resize", [helper.make_tensor_value_info("X", TensorProto.FLOAT, shape)],
                                  [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
                                  [helper.make_tensor("S", TensorProto.FLOAT, [len(scales)], scales)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        x = check.standard_normal(shape).astype(np.float32)
        got = session.run(None, {"X": x})[0]
        mats = [weights(n, m, s, 0.5, -0.5, linear, floor_ties, bool(aa)) for n, m, s in zip(shape, got.shape, scales)]
        assert np.abs(apply(x, mats) - got).max() < 1e-5, (shape, scales, linear, floor_ties, aa)
    print("the references match onnxruntime's Resize")


if __name__ == "__main__":
    check_against_onnxruntime()
    write_cases(__file__, "resampling_resample", resample_cases())
    write_cases(__file__, "resampling_upsample_value_scale", upsample_cases() + value_scale_cases())
    write_cases(__file__, "resampling_grad", grad_cases())
    write_cases(__file__, "resampling_wide", wide_cases())

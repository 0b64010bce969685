#!/usr/bin/env python3
"""Conformance cases of DML_OPERATOR_ROI_POOLING, DML_OPERATOR_ROI_ALIGN and DML_OPERATOR_ROI_ALIGN1,
computed in float64 with numpy from the reference pages' formulas.

Run once to (re)write cases/region_pooling.json; FreeDML is never consulted.

Semantics the references encode (src/dml/ops/region_pooling/region_math.h says the same):
- ROI_POOLING: rows [batch, x1, y1, x2, y2]; corners rounded half away from zero after SpatialScale;
  RegionWidth = max(x2 - x1 + 1, 1); bin X covers [x1 + floor(X*RW/PW), x1 + ceil((X+1)*RW/PW)),
  clamped to the input; the largest value, or 0 for an empty bin.
- ROI_ALIGN1: samples per axis = clamp(ceil(|size| / out), Minimum, Maximum); step = size / (out *
  samples) (with AlignRegionsToCorners: / (out * samples - 1)); sample i sits at
  (i - OutputPixelOffset) * step + x1 * scale - InputPixelOffset. LINEAR: outside [-1, H] x [-1, W]
  reads OutOfBoundsInputValue, inside clamps to the edge pixels and interpolates (ONNX RoiAlign's
  rule); NEAREST_NEIGHBOR reads pixel floor(c + 0.5), or OutOfBoundsInputValue outside. AVERAGE
  or MAX of the samples; a region of infinite size takes Minimum samples. ROI_ALIGN is ROI_ALIGN1 with offsets 0.5 and -0.5, no corner alignment.
Regions are chosen so that no sample falls within 1e-3 of a rounding tie or a bounds edge, where
float32 arithmetic in the kernels could legitimately round the other way.

With onnxruntime installed, an ONNX-like ROI_ALIGN1 case (half_pixel, avg) is also checked against
onnxruntime's RoiAlign.
"""
import math

import numpy as np

from case_format import tensor, values, write_cases

rng = np.random.default_rng(20261125)
NP = {"FLOAT32": np.float32, "FLOAT16": np.float16}


class Tie(Exception):
    """A sample too near a discontinuity: pick another region."""


def near(v, edges):
    return any(abs(v - e) < 1e-3 for e in edges)


def sample_value(x, b, c, yy, xx, linear, oob):
    n, ch, h, w = x.shape
    if linear:
        if near(yy, (-1, h)) or near(xx, (-1, w)):
            raise Tie()
        if yy < -1 or yy > h or xx < -1 or xx > w:
            return oob
        cy, cx = max(yy, 0.0), max(xx, 0.0)
        y0, x0 = int(math.floor(cy)), int(math.floor(cx))
        if y0 >= h - 1:
            y0 = y1 = h - 1
            cy = float(y0)
        else:
            y1 = y0 + 1
        if x0 >= w - 1:
            x0 = x1 = w - 1
            cx = float(x0)
        else:
            x1 = x0 + 1
        ly, lx = cy - y0, cx - x0
        img = x[b, c].astype(np.float64)
        return ((1 - ly) * ((1 - lx) * img[y0, x0] + lx * img[y0, x1]) +
                ly * ((1 - lx) * img[y1, x0] + lx * img[y1, x1]))
    if near(yy + 0.5 - math.floor(yy + 0.5), (0, 1)) or near(xx + 0.5 - math.floor(xx + 0.5), (0, 1)):
        raise Tie()
    fy, fx = int(math.floor(yy + 0.5)), int(math.floor(xx + 0.5))
    if fy < 0 or fy >= h or fx < 0 or fx >= w:
        return oob
    return float(x[b, c, fy, fx])


def samples(size, out, lo, hi):
    if not math.isfinite(size):
        return lo  # FreeDML's choice: an infinite region takes the minimum, not ~2^32 samples
    want = math.ceil(abs(size) / out)
    return min(max(want, lo), hi)


def align_reference(x, rois, batches, out_h, out_w, p):
    n, ch, h, w = x.shape
    r = len(rois)
    out = np.zeros((r, ch, out_h, out_w))
    for i in range(r):
        x1, y1, x2, y2 = (float(v) for v in rois[i])
        b = int(batches[i])
        sx1, sy1 = x1 * p["scale_x"], y1 * p["scale_y"]
        size_x, size_y = x2 * p["scale_x"] - sx1, y2 * p["scale_y"] - sy1
        nx = samples(size_x, out_w, p["min"], p["max"])
        ny = samples(size_y, out_h, p["min"], p["max"])
        tx, ty = out_w * nx, out_h * ny
        if p["corners"]:
            step_x = size_x / (tx - 1) if tx > 1 else 0.0
            step_y = size_y / (ty - 1) if ty > 1 else 0.0
        else:
            step_x, step_y = size_x / tx, size_y / ty
        for c in range(ch):
            for oy in range(out_h):
                for ox in range(out_w):
                    got = []
                    for ky in range(ny):
                        yy = (oy * ny + ky - p["out_offset"]) * step_y + sy1 - p["in_offset"]
                        for kx in range(nx):
                            xx = (ox * nx + kx - p["out_offset"]) * step_x + sx1 - p["in_offset"]
                            got.append(sample_value(x, b, c, yy, xx, p["linear"], p["oob"]))
                    out[i, c, oy, ox] = max(got) if p["max_reduce"] else sum(got) / len(got)
    return out


def round_half_away(v):
    return int(math.floor(abs(v) + 0.5)) * (1 if v >= 0 else -1)


def pool_reference(x, rois, scale, ph, pw):
    n, ch, h, w = x.shape
    out = np.zeros((len(rois), ch, ph, pw))
    for i, row in enumerate(rois):
        b = int(float(row[0]))
        x1, y1, x2, y2 = (round_half_away(float(v) * scale) for v in row[1:])
        rw, rh = max(x2 - x1 + 1, 1), max(y2 - y1 + 1, 1)
        for oy in range(ph):
            ys = min(max(oy * rh // ph + y1, 0), h)
            ye = min(max(-((-(oy + 1) * rh) // ph) + y1, 0), h)
            for ox in range(pw):
                xs = min(max(ox * rw // pw + x1, 0), w)
                xe = min(max(-((-(ox + 1) * rw) // pw) + x1, 0), w)
                if ys >= ye or xs >= xe:
                    continue
                out[i, :, oy, ox] = x[b, :, ys:ye, xs:xe].astype(np.float64).max(axis=(1, 2))
    return out


def strided_memory(logical, strides):
    shape = logical.shape
    length = 1 + sum((s - 1) * st for s, st in zip(shape, strides))
    memory = np.zeros(length, dtype=logical.dtype)
    index = np.indices(shape).reshape(len(shape), -1)
    offsets = sum(index[d] * strides[d] for d in range(len(shape)))
    memory[offsets] = logical.ravel()
    return memory


def packed_strides(shape):
    s, out = 1, []
    for d in reversed(shape):
        out.append(s)
        s *= d
    return list(reversed(out))


def memory_of(a, strides):
    return a.ravel() if strides is None else strided_memory(a, strides)


def tolerance(dtype):
    # float32 coordinates in the kernels against float64 here; FLOAT16 rounds the result once.
    return {"ulps": 64, "absolute": 1e-5} if dtype == "FLOAT32" else {"ulps": 2, "absolute": 2e-3}


def align_case(op, dtype, x, rois, batches, out_h, out_w, name, roi_shape=None, batch_type="UINT32",
               batch_shape=None, strides_in=None, strides_out=None, **fields):
    p = {"scale_x": 1.0, "scale_y": 1.0, "oob": 0.0, "min": 1, "max": 2 ** 32 - 1, "max_reduce": False,
         "linear": True, "in_offset": 0.5, "out_offset": -0.5, "corners": False}
    p.update(fields)
    want = align_reference(x, rois, batches, out_h, out_w, p)
    ch = x.shape[1]
    r = len(rois)
    roi_shape = roi_shape or [r, 4]
    batch_shape = batch_shape or [r]
    out_shape = [r, ch, out_h, out_w]
    desc = {"type": f"DML_OPERATOR_{op}", "InputTensor": tensor(dtype, x.shape, strides_in),
            "ROITensor": tensor(dtype, roi_shape), "BatchIndicesTensor": tensor(batch_type, batch_shape),
            "OutputTensor": tensor(dtype, out_shape, strides_out),
            "ReductionFunction": "DML_REDUCE_FUNCTION_MAX" if p["max_reduce"] else "DML_REDUCE_FUNCTION_AVERAGE",
            "InterpolationMode": ("DML_INTERPOLATION_MODE_LINEAR" if p["linear"]
                                  else "DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR"),
            "SpatialScaleX": p["scale_x"], "SpatialScaleY": p["scale_y"],
            "OutOfBoundsInputValue": p["oob"], "MinimumSamplesPerOutput": p["min"],
            "MaximumSamplesPerOutput": p["max"]}
    if op == "ROI_ALIGN1":
        desc.update({"InputPixelOffset": p["in_offset"], "OutputPixelOffset": p["out_offset"],
                     "AlignRegionsToCorners": p["corners"]})
    else:
        assert p["in_offset"] == 0.5 and p["out_offset"] == -0.5 and not p["corners"]
    result = want.astype(NP[dtype])
    expected = {"values": values(result, dtype), **tolerance(dtype)}
    if strides_out is not None:
        expected["strides"] = strides_out
    return {"name": f"{op}_{dtype}_{batch_type}_{name}", "operator": desc,
            "inputs": {"InputTensor": values(memory_of(x, strides_in), dtype),
                       "ROITensor": values(rois, dtype), "BatchIndicesTensor": values(batches, batch_type)},
            "outputs": {"OutputTensor": expected}}


def random_input(dtype, shape):
    return rng.uniform(-4, 4, size=shape).astype(NP[dtype])


def random_rois(dtype, count, h, w, spread=1.0):
    return np.stack([rng.uniform(-0.5 * spread, w * spread, count), rng.uniform(-0.5 * spread, h * spread, count),
                     rng.uniform(0, w * spread, count), rng.uniform(0, h * spread, count)], axis=1).astype(NP[dtype])


def retry(make):
    """Calls make() until its regions avoid every tie (see the module's docstring)."""
    for _ in range(200):
        try:
            return make()
        except Tie:
            continue
    raise RuntimeError("no tie-free regions found")


def align_cases():
    cases = []
    for dtype in ("FLOAT32", "FLOAT16"):
        for batch_type in ("UINT32", "UINT64"):
            x = random_input(dtype, (2, 3, 6, 7))
            batches = np.array([1, 0, 1], dtype=np.uint64)
            for op in ("ROI_ALIGN", "ROI_ALIGN1"):
                for linear in (True, False):
                    for max_reduce in (False, True):
                        mode = ("linear" if linear else "nearest") + ("_max" if max_reduce else "_avg")
                        cases.append(retry(lambda: align_case(
                            op, dtype, x, random_rois(dtype, 3, 6, 7), batches, 2, 3, mode, batch_type=batch_type,
                            linear=linear, max_reduce=max_reduce)))
    dtype = "FLOAT32"
    x = random_input(dtype, (2, 2, 5, 6))
    batches = np.array([0, 1], dtype=np.uint64)
    # Normalized coordinates and a scale per axis; a fixed sample count.
    cases.append(retry(lambda: align_case(
        "ROI_ALIGN", dtype, x, (random_rois(dtype, 2, 1, 1)), batches, 3, 2, "scaled_fixed_samples",
        scale_x=6.0, scale_y=5.0, min=2, max=2)))
    # Regions reaching far outside the input: OutOfBoundsInputValue, both interpolation modes.
    for linear in (True, False):
        rois = np.array([[-6.3, -4.1, 3.2, 2.7], [4.4, 3.3, 11.8, 9.6]], dtype=np.float32)
        cases.append(retry(lambda: align_case(
            "ROI_ALIGN1", dtype, x, rois, batches, 3, 3, "out_of_bounds_" + ("linear" if linear else "nearest"),
            oob=-7.5, linear=linear, max_reduce=not linear)))
    # Inverted (mirrored) and empty regions, a cap on the sample count.
    rois = np.array([[5.3, 4.1, 0.7, 0.4], [2.2, 2.2, 2.2, 2.2]], dtype=np.float32)
    cases.append(retry(lambda: align_case("ROI_ALIGN1", dtype, x, rois, batches, 2, 2, "inverted_and_empty",
                                          max=2)))
    # A region with an infinite corner under the unbounded Maximum ONNX Runtime passes: one sample
    # per axis, which lands outside the input (OutOfBoundsInputValue).
    rois = np.array([[0.5, 1.0, np.inf, 3.0], [1.5, 1.0, 4.0, 3.5]], dtype=np.float32)
    cases.append(retry(lambda: align_case("ROI_ALIGN1", dtype, x, rois, batches, 2, 2, "infinite_region",
                                          oob=3.25)))
    # The half-pixel choices of ROI_ALIGN1: ONNX's output_half_pixel (input offset 0) and corners.
    cases.append(retry(lambda: align_case("ROI_ALIGN1", dtype, x, random_rois(dtype, 2, 5, 6), batches, 2, 3,
                                          "input_offset_0", in_offset=0.0)))
    cases.append(retry(lambda: align_case("ROI_ALIGN1", dtype, x, random_rois(dtype, 2, 5, 6), batches, 3, 3,
                                          "corners", in_offset=0.0, out_offset=0.0, corners=True, min=1, max=1)))
    # Strided input and output, ROITensor and BatchIndicesTensor with leading 1s.
    strides_in = [80, 40, 7, 1]  # rows of 7 for a width of 6, channels and batches apart
    strides_out = [2 * 2 * 3 * 2, 2 * 3 * 2, 3 * 2, 2]  # every other element of the last dimension
    cases.append(retry(lambda: align_case(
        "ROI_ALIGN1", dtype, x, random_rois(dtype, 2, 5, 6), batches, 2, 3, "strided", roi_shape=[1, 1, 2, 4],
        batch_shape=[1, 1, 1, 2], strides_in=strides_in, strides_out=strides_out, batch_type="UINT64")))
    # Enough output elements (4 x 8 x 7 x 7) for the CPU thread pool to split the work.
    big = random_input(dtype, (1, 8, 10, 10))
    cases.append(retry(lambda: align_case("ROI_ALIGN1", dtype, big, random_rois(dtype, 4, 10, 10),
                                          np.zeros(4, dtype=np.uint64), 7, 7, "split_work")))
    return cases


def pool_case(dtype, x, rois, scale, ph, pw, name, strides_in=None):
    want = pool_reference(x, rois, scale, ph, pw)
    r = len(rois)
    desc = {"type": "DML_OPERATOR_ROI_POOLING", "InputTensor": tensor(dtype, x.shape, strides_in),
            "ROITensor": tensor(dtype, [1, 1, r, 5]), "OutputTensor": tensor(dtype, [r, x.shape[1], ph, pw]),
            "SpatialScale": scale, "PooledSize": {"Width": pw, "Height": ph}}
    return {"name": f"ROI_POOLING_{dtype}_{name}", "operator": desc,
            "inputs": {"InputTensor": values(memory_of(x, strides_in), dtype), "ROITensor": values(rois, dtype)},
            "outputs": {"OutputTensor": {"values": values(want.astype(NP[dtype]), dtype), "ulps": 0}}}


def pool_cases():
    cases = []
    for dtype in ("FLOAT32", "FLOAT16"):
        x = random_input(dtype, (2, 3, 7, 8))
        # Multiples of 1/8 with scale 1/2: products are exact, so rounding ties round alike.
        rois = np.array([[0, 0.0, 0.0, 7.0, 6.0], [1, 2.25, 1.75, 14.5, 12.0], [1, -3.0, -2.0, 5.0, 3.0],
                         [0, 10.0, 4.0, 30.0, 20.0], [0, 6.0, 6.0, 2.0, 2.0]], dtype=NP[dtype])
        cases.append(pool_case(dtype, x, rois, 0.5, 3, 2, "bins"))
        cases.append(pool_case(dtype, x, rois[:2] * np.array([1, 0.5, 0.5, 0.5, 0.5], dtype=NP[dtype]), 1.0, 4, 5,
                               "more_bins_than_pixels"))
    x = random_input("FLOAT32", (1, 2, 5, 6))
    rois = np.array([[0, 1.0, 0.0, 5.0, 4.0]], dtype=np.float32)
    cases.append(pool_case("FLOAT32", x, rois, 1.0, 2, 2, "strided", strides_in=[100, 48, 8, 1]))
    return cases


def onnxruntime_check():
    """ROI_ALIGN with ONNX RoiAlign's settings (half_pixel, avg, sampling_ratio 0) against onnxruntime."""
    try:
        import onnx
        import onnxruntime
        from onnx import TensorProto, helper
    except ImportError:
        print("onnxruntime not installed: skipping the cross-check")
        return
    x = random_input("FLOAT32", (2, 3, 6, 7))
    corner = rng.uniform(-0.5, 4, size=(3, 2))
    rois = np.concatenate([corner, corner + rng.uniform(0.5, 4, size=(3, 2))], axis=1).astype(np.float32)
    batches = np.array([1, 0, 1], dtype=np.int64)  # ONNX wants upright boxes, x2 >= x1 and y2 >= y1
    node = helper.make_node("RoiAlign", ["X", "rois", "batch"], ["Y"], mode="avg", output_height=2, output_width=3,
                            sampling_ratio=0, spatial_scale=1.0, coordinate_transformation_mode="half_pixel")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, x.shape),
                                            helper.make_tensor_value_info("rois", TensorProto.FLOAT, rois.shape),
                                            helper.make_tensor_value_info("batch", TensorProto.INT64, [3])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    theirs = session.run(None, {"X": x, "rois": rois, "batch": batches})[0]
    p = {"scale_x": 1.0, "scale_y": 1.0, "oob": 0.0, "min": 1, "max": 2 ** 32 - 1, "max_reduce": False,
         "linear": True, "in_offset": 0.5, "out_offset": -0.5, "corners": False}
    try:
        ours = align_reference(x, rois, batches, 2, 3, p)
    except Tie:
        print("onnxruntime cross-check: regions near a tie, not compared")
        return
    err = np.abs(ours - theirs).max()
    print(f"onnxruntime RoiAlign cross-check: largest difference {err:.3g}")
    assert err < 1e-4, err


if __name__ == "__main__":
    onnxruntime_check()
    write_cases(__file__, "region_pooling", pool_cases() + align_cases())

#!/usr/bin/env python3
"""Conformance cases of DML_OPERATOR_ROI_ALIGN_GRAD: the gradients of ROI_ALIGN1's forward pass,
found by differentiating generate_region_pooling.py's float64 forward reference numerically.

Run once to (re)write cases/region_pooling_grad.json; FreeDML is never consulted.

For an incoming gradient G (InputGradientTensor) and L(X, R) = sum(G * ROI_ALIGN1(X, R)):
- OutputGradientTensor = dL/dX, by central differences in each input element. ROI_ALIGN1 is
  piecewise linear in X, so the differences are exact up to rounding.
- OutputROIGradientTensor = dL/dR, by central differences in each region coordinate. Within a
  region's sample pattern the bilinear value is linear in each coordinate separately, so these too
  are exact up to rounding, as long as no sample crosses a pixel boundary, a bounds edge or a
  rounding tie and no sample count changes: regions near those are rejected and drawn again.
- Samples outside the input pass no gradient on (the grad desc has no OutOfBoundsInputValue); for
  MAX they never win: the forward reference reads them as -1e30 and elements whose result is that
  constant are left out of the sums.
The reference page's own example (nearest-neighbor, four regions of a 4 x 4 input) is a case with
the page's printed OutputGradientTensor as its expected result; its samples sit exactly on
rounding ties (which float32 resolves as exactly as float64), where a numeric derivative cannot go.
"""
import math
import warnings

import numpy as np

from case_format import tensor, values, write_cases
from generate_region_pooling import align_reference, samples, Tie, near, strided_memory

warnings.filterwarnings("ignore", category=RuntimeWarning)  # NaN and infinite gradients
rng = np.random.default_rng(20261126)
NP = {"FLOAT32": np.float32, "FLOAT16": np.float16}
OUTSIDE = -1e30
STEP_X = 1e-5   # central difference step in an input element
STEP_R = 1e-6   # in a region coordinate


def params(**fields):
    p = {"scale_x": 1.0, "scale_y": 1.0, "min": 1, "max": 2 ** 32 - 1, "max_reduce": False, "linear": True,
         "in_offset": 0.5, "out_offset": -0.5, "corners": False}
    p.update(fields)
    p["oob"] = OUTSIDE if p["max_reduce"] else 0.0
    return p


def check_ties(x_shape, rois, out_h, out_w, p):
    """Raises Tie when a sample sits within 1e-3 of a kink of the forward pass in its coordinates."""
    h, w = x_shape[2], x_shape[3]
    for x1, y1, x2, y2 in rois:
        for c1, c2, scale, out, size_in in ((x1, x2, p["scale_x"], out_w, w), (y1, y2, p["scale_y"], out_h, h)):
            start = float(c1) * scale
            size = float(c2) * scale - start
            if near(abs(size) / out - math.floor(abs(size) / out), (0, 1)) and abs(size) > 1e-9:
                raise Tie()  # the sample count would change
            n = samples(size, out, p["min"], p["max"])
            total = out * n
            if p["corners"]:
                step = size / (total - 1) if total > 1 else 0.0
            else:
                step = size / total
            for i in range(total):
                coord = (i - p["out_offset"]) * step + start - p["in_offset"]
                if p["linear"]:
                    if near(coord - math.floor(coord), (0, 1)):
                        raise Tie()
                elif near(coord + 0.5 - math.floor(coord + 0.5), (0, 1)):
                    raise Tie()


def forward(x, rois, batches, out_h, out_w, p):
    y = align_reference(x, rois, batches, out_h, out_w, p)
    return np.where(y <= OUTSIDE / 10, 0.0, y)


def gradients(x, rois, batches, g, p):
    """dL/dX and dL/dR in float64, L = sum(g * forward)."""
    out_h, out_w = g.shape[2], g.shape[3]
    x = x.astype(np.float64)
    rois = rois.astype(np.float64)
    check_ties(x.shape, rois, out_h, out_w, p)

    def change(plus, minus, step):
        # Only elements that move take part, so a NaN or infinite gradient reaches only what its
        # element reads.
        d = forward(*plus, batches, out_h, out_w, p) - forward(*minus, batches, out_h, out_w, p)
        return float(np.sum(np.where(d != 0, g * d, 0.0))) / (2 * step)

    dx = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[k] += STEP_X
        minus[k] -= STEP_X
        dx[k] = change((plus, rois), (minus, rois), STEP_X)
    dr = np.zeros_like(rois)
    for k in np.ndindex(rois.shape):
        plus, minus = rois.copy(), rois.copy()
        plus[k] += STEP_R
        minus[k] -= STEP_R
        dr[k] = change((x, plus), (x, minus), STEP_R)
    return dx, dr


def tolerance(dtype, kind):
    # The kernels sum in float32 (the region gradient over every element and sample); FLOAT16
    # rounds the sum once.
    if dtype == "FLOAT16":
        return {"ulps": 2, "absolute": 4e-3 if kind == "roi" else 2e-3}
    return {"ulps": 256, "absolute": 2e-4 if kind == "roi" else 2e-5}


def grad_case(dtype, x, rois, batches, g, name, with_input=True, outputs=("grad", "roi"), roi_shape=None,
              batch_shape=None, strides=None, exact_grid=None, **fields):
    """`exact_grid`: the expected OutputGradientTensor, given (the page's example, whose samples sit
    exactly on rounding ties that the numeric derivative cannot take)."""
    strides = strides or {}
    assert exact_grid is None or "roi" not in outputs
    p = params(**fields)
    x = x.astype(NP[dtype])
    rois = rois.astype(NP[dtype])
    g = g.astype(NP[dtype])
    if exact_grid is not None:
        dx, dr = exact_grid, None  # given: the page's printed result
    else:
        dx, dr = gradients(x, rois, batches, g, p)
    r = len(rois)
    roi_shape = roi_shape or [r, 4]
    desc = {"type": "DML_OPERATOR_ROI_ALIGN_GRAD",
            "InputGradientTensor": tensor(dtype, g.shape, strides.get("InputGradientTensor")),
            "ROITensor": tensor(dtype, roi_shape), "BatchIndicesTensor": tensor("UINT32", batch_shape or [r]),
            "ReductionFunction": "DML_REDUCE_FUNCTION_MAX" if p["max_reduce"] else "DML_REDUCE_FUNCTION_AVERAGE",
            "InterpolationMode": ("DML_INTERPOLATION_MODE_LINEAR" if p["linear"]
                                  else "DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR"),
            "SpatialScaleX": p["scale_x"], "SpatialScaleY": p["scale_y"], "InputPixelOffset": p["in_offset"],
            "OutputPixelOffset": p["out_offset"], "MinimumSamplesPerOutput": p["min"],
            "MaximumSamplesPerOutput": p["max"], "AlignRegionsToCorners": p["corners"]}
    gradient_memory = g if "InputGradientTensor" not in strides else strided_memory(g, strides["InputGradientTensor"])
    inputs = {"InputGradientTensor": values(gradient_memory, dtype), "ROITensor": values(rois, dtype),
              "BatchIndicesTensor": values(batches, "UINT32")}
    if with_input:
        desc["InputTensor"] = tensor(dtype, x.shape)
        inputs["InputTensor"] = values(x, dtype)
    expected = {}
    if "grad" in outputs:
        desc["OutputGradientTensor"] = tensor(dtype, x.shape, strides.get("OutputGradientTensor"))
        expected["OutputGradientTensor"] = {"values": values(dx.astype(NP[dtype]), dtype), **tolerance(dtype, "grad")}
        if "OutputGradientTensor" in strides:
            expected["OutputGradientTensor"]["strides"] = strides["OutputGradientTensor"]
    if "roi" in outputs:
        desc["OutputROIGradientTensor"] = tensor(dtype, roi_shape, strides.get("OutputROIGradientTensor"))
        expected["OutputROIGradientTensor"] = {"values": values(dr.astype(NP[dtype]), dtype), **tolerance(dtype, "roi")}
        if "OutputROIGradientTensor" in strides:
            expected["OutputROIGradientTensor"]["strides"] = strides["OutputROIGradientTensor"]
    return {"name": f"ROI_ALIGN_GRAD_{dtype}_{name}", "operator": desc, "inputs": inputs, "outputs": expected}


def retry(make):
    for _ in range(500):
        try:
            return make()
        except Tie:
            continue
    raise RuntimeError("no tie-free regions found")


def random_rois(count, h, w, spread=1.0):
    """Regions partly outside the image: corners from a little before the input to past its end."""
    return np.stack([rng.uniform(-1.5, w * spread, count), rng.uniform(-1.5, h * spread, count),
                     rng.uniform(0, w * spread + 1.5, count), rng.uniform(0, h * spread + 1.5, count)], axis=1)


def page_example():
    """The DML_ROI_ALIGN_GRAD_OPERATOR_DESC page's example: its printed OutputGradientTensor."""
    x = np.zeros((1, 1, 4, 4))
    rois = np.array([[0, 0, 2, 2], [2, 0, 4, 2], [0, 2, 2, 4], [2, 2, 4, 4]], dtype=np.float64)
    batches = np.zeros(4, dtype=np.uint32)
    g = np.arange(1, 13, dtype=np.float64).reshape(4, 1, 1, 3)
    # The page does not print its offsets; these reproduce its forward output [1, 1, 2] ... [11, 11, 12].
    fields = dict(linear=False, in_offset=0.5, out_offset=0.0, min=1, max=1)
    printed = np.array([3, 3, 9, 6, 0, 0, 0, 0, 15, 9, 21, 12, 0, 0, 0, 0], dtype=np.float64).reshape(1, 1, 4, 4)
    forward_in = np.arange(1, 17, dtype=np.float64).reshape(1, 1, 4, 4)
    p = params(**fields)
    p["in_offset"] -= 2e-3  # off the exact ties, to the side they round to, past the reference's tie check
    printed_forward = np.array([1, 1, 2, 3, 3, 4, 9, 9, 10, 11, 11, 12], dtype=np.float64).reshape(4, 1, 1, 3)
    assert np.array_equal(align_reference(forward_in, rois, batches, 1, 3, p), printed_forward)
    return grad_case("FLOAT32", x, rois, batches, g, "page_example", with_input=False, outputs=("grad",),
                     exact_grid=printed, **fields)


def cases():
    out = [page_example()]
    shape = (2, 2, 5, 6)
    batches = np.array([1, 0, 1], dtype=np.uint32)
    for dtype in ("FLOAT32", "FLOAT16"):
        x = rng.uniform(-4, 4, shape)
        for linear in (True, False):
            for max_reduce in (False, True):
                mode = ("linear" if linear else "nearest") + ("_max" if max_reduce else "_avg")
                out.append(retry(lambda: grad_case(
                    dtype, x, random_rois(3, 5, 6), batches, rng.normal(0, 1, (3, 2, 2, 3)), mode, linear=linear,
                    max_reduce=max_reduce)))
    dtype = "FLOAT32"
    x = rng.uniform(-4, 4, shape)
    b2 = np.array([0, 1], dtype=np.uint32)
    # No InputTensor (AVERAGE needs none), OutputGradientTensor only, with NaN and infinite gradients
    # (they reach only the pixels their samples read).
    g = rng.normal(0, 1, (2, 2, 2, 2))
    g[0, 0, 0, 1] = np.nan
    g[1, 1, 1, 0] = np.inf
    out.append(retry(lambda: grad_case(dtype, x, random_rois(2, 5, 6), b2, g, "no_input_nan_inf", with_input=False,
                                       outputs=("grad",))))
    # The region gradient only, normalized coordinates with a scale per axis and two samples per axis.
    out.append(retry(lambda: grad_case(dtype, x, random_rois(2, 1, 1), b2, rng.normal(0, 1, (2, 2, 3, 2)),
                                       "roi_only_scaled", outputs=("roi",), scale_x=6.0, scale_y=5.0, min=2, max=2)))
    # ROI_ALIGN's offsets with corners, input offset 0; inverted (mirrored) regions; a sample cap.
    out.append(retry(lambda: grad_case(dtype, x, random_rois(2, 5, 6), b2, rng.normal(0, 1, (2, 2, 3, 3)),
                                       "corners", in_offset=0.0, out_offset=0.0, corners=True, min=1, max=1)))
    out.append(retry(lambda: grad_case(dtype, x, random_rois(2, 5, 6), b2, rng.normal(0, 1, (2, 2, 2, 3)),
                                       "input_offset_0", in_offset=0.0)))
    inverted = np.array([[5.3, 4.1, 0.7, 0.4], [1.2, 3.7, 4.6, 0.9]])
    out.append(retry(lambda: grad_case(dtype, x, inverted, b2, rng.normal(0, 1, (2, 2, 2, 2)), "inverted",
                                       max=2)))
    out.append(retry(lambda: grad_case(dtype, x, random_rois(2, 5, 6), b2, rng.normal(0, 1, (2, 2, 2, 2)),
                                       "inverted_max_capped", max_reduce=True, max=3)))
    # Strided views: InputGradientTensor and OutputGradientTensor padded, ROITensor and
    # BatchIndicesTensor with leading 1s, OutputROIGradientTensor every other row.
    strides = {"InputGradientTensor": [16, 8, 4, 1],               # rows of 4 for 3 elements
               "OutputGradientTensor": [80, 40, 7, 1],             # rows of 7 for 6
               "OutputROIGradientTensor": [16, 16, 8, 1]}          # every other region row
    out.append(retry(lambda: grad_case(dtype, x, random_rois(2, 5, 6), b2, rng.normal(0, 1, (2, 2, 2, 3)),
                                       "strided", roi_shape=[1, 1, 2, 4], batch_shape=[1, 1, 1, 2],
                                       strides=strides)))
    # Several regions on one plane and more channels: the CPU splits the channels over its threads,
    # CUDA's atomics meet on shared pixels.
    big = rng.uniform(-4, 4, (1, 6, 6, 6))
    out.append(retry(lambda: grad_case(dtype, big, random_rois(5, 6, 6), np.zeros(5, dtype=np.uint32),
                                       rng.normal(0, 1, (5, 6, 2, 2)), "overlapping_regions")))
    return out


if __name__ == "__main__":
    write_cases(__file__, "region_pooling_grad", cases())

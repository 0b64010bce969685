#!/usr/bin/env python3
"""Conformance cases of the quantized family: MATRIX_MULTIPLY_INTEGER, QUANTIZED_LINEAR_MATRIX_MULTIPLY,
MATRIX_MULTIPLY_INTEGER_TO_FLOAT, CONVOLUTION_INTEGER, QUANTIZED_LINEAR_CONVOLUTION,
QUANTIZED_LINEAR_AVERAGE_POOLING and DYNAMIC_QUANTIZE_LINEAR.

References: integer products and sums in numpy int64 (exact); the float parts as DirectML documents
them (dequantize, compute, requantize: round half to even, add the zero point, saturate), in float32
where the operator computes in float32, in float64 otherwise. Cases that test a rounding tie or a
saturation edge are built so that the float math is exact, and compare exactly."""
import numpy as np

from case_format import tensor, values, write_cases

RNG = np.random.default_rng(20)
NP = {"INT8": np.int8, "UINT8": np.uint8, "INT16": np.int16, "UINT16": np.uint16, "INT32": np.int32,
      "UINT32": np.uint32, "FLOAT32": np.float32, "FLOAT16": np.float16}
F32 = np.float32
PAIRS8 = [("INT8", "INT8"), ("UINT8", "UINT8"), ("INT8", "UINT8"), ("UINT8", "INT8")]


def rand(dtype, shape, lo=None, hi=None):
    info = np.iinfo(NP[dtype])
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    return RNG.integers(lo, hi + 1, size=shape).astype(NP[dtype])


def saturate(q, dtype):
    """round half to even, saturate: q is the float value plus zero point already rounded."""
    info = np.iinfo(NP[dtype])
    return np.clip(q, info.min, info.max).astype(NP[dtype])


def requantize(real_f32, out_scale, out_zero, dtype):
    q = np.rint((real_f32 / F32(out_scale)).astype(F32)).astype(np.float64) + np.asarray(out_zero, np.float64)
    return saturate(q, dtype)


def matmul_int(a, az, b, bz):
    """(A - AZeroPoint) x (B - BZeroPoint) in int64, numpy.matmul broadcasting the batch."""
    return np.matmul(a.astype(np.int64) - az.astype(np.int64), b.astype(np.int64) - bz.astype(np.int64))


def row_shape(rank, m):
    return [1] * (rank - 2) + [m, 1]


def col_shape(rank, n):
    return [1] * (rank - 2) + [1, n]


def one(rank):
    return [1] * rank


# ---- MATRIX_MULTIPLY_INTEGER ----------------------------------------------------------------------

def mmi_case(name, a_t, b_t, a_shape, b_shape, zp_form, a=None, b=None, az=None, bz=None):
    rank = len(a_shape)
    m, k, n = a_shape[-2], a_shape[-1], b_shape[-1]
    a = rand(a_t, a_shape) if a is None else a
    b = rand(b_t, b_shape) if b is None else b
    op = {"type": "DML_OPERATOR_MATRIX_MULTIPLY_INTEGER", "ATensor": tensor(a_t, a_shape), "BTensor": tensor(b_t, b_shape)}
    inputs = {"ATensor": values(a), "BTensor": values(b)}
    az_shape = {"tensor": one(rank), "axis": row_shape(rank, m)}.get(zp_form)
    bz_shape = {"tensor": one(rank), "axis": col_shape(rank, n)}.get(zp_form)
    if zp_form:
        az = rand(a_t, az_shape) if az is None else az
        bz = rand(b_t, bz_shape) if bz is None else bz
        op["AZeroPointTensor"] = tensor(a_t, az_shape)
        op["BZeroPointTensor"] = tensor(b_t, bz_shape)
        inputs["AZeroPointTensor"] = values(az)
        inputs["BZeroPointTensor"] = values(bz)
    else:
        az, bz = np.zeros(1, np.int64), np.zeros(1, np.int64)
    out = matmul_int(a, az, b, bz).astype(np.int32)
    op["OutputTensor"] = tensor("INT32", out.shape)
    return {"name": name, "operator": op, "inputs": inputs, "outputs": {"OutputTensor": {"values": values(out)}}}


def mmi_cases():
    cases = []
    for a_t, b_t in PAIRS8:
        for zp in (None, "tensor", "axis"):
            cases.append(mmi_case(f"MMI_{a_t}_{b_t}_zp_{zp}", a_t, b_t, [1, 1, 3, 5], [1, 1, 5, 4], zp))
    cases.append(mmi_case("MMI_rank2", "UINT8", "INT8", [4, 7], [7, 3], "axis"))
    cases.append(mmi_case("MMI_rank3_batch", "INT8", "INT8", [2, 3, 4], [2, 4, 2], "tensor"))
    cases.append(mmi_case("MMI_batch_broadcast", "INT8", "UINT8", [2, 1, 3, 4], [1, 3, 4, 2], "axis"))
    # More than one 16-wide tile in M, N and K (the CUDA kernel's tiles).
    cases.append(mmi_case("MMI_several_tiles", "UINT8", "INT8", [1, 1, 20, 37], [1, 1, 37, 19], "axis"))
    # Extremes: every product at its largest magnitude, K large enough to pass 2^16.
    k = 40
    cases.append(mmi_case("MMI_INT8_extremes", "INT8", "INT8", [1, 1, 2, k], [1, 1, k, 2], "tensor",
                          a=np.full((1, 1, 2, k), -128, np.int8), b=np.full((1, 1, k, 2), -128, np.int8),
                          az=np.array([127], np.int8).reshape(1, 1, 1, 1), bz=np.array([127], np.int8).reshape(1, 1, 1, 1)))
    cases.append(mmi_case("MMI_UINT8_extremes", "UINT8", "UINT8", [1, 1, 2, k], [1, 1, k, 2], "tensor",
                          a=np.full((1, 1, 2, k), 255, np.uint8), b=np.full((1, 1, k, 2), 0, np.uint8),
                          az=np.array([0], np.uint8).reshape(1, 1, 1, 1), bz=np.array([255], np.uint8).reshape(1, 1, 1, 1)))
    return cases


# ---- QUANTIZED_LINEAR_MATRIX_MULTIPLY -------------------------------------------------------------

def qlmm_case(name, a_t, b_t, o_t, a_shape, b_shape, form, a=None, b=None, scales=None, zeros=None, exact=False):
    rank = len(a_shape)
    m, n = a_shape[-2], b_shape[-1]
    a = rand(a_t, a_shape) if a is None else a
    b = rand(b_t, b_shape) if b is None else b
    a_sh = row_shape(rank, m) if form == "axis" else one(rank)
    b_sh = col_shape(rank, n) if form == "axis" else one(rank)
    if scales is None:
        a_s = RNG.uniform(0.01, 0.05, a_sh).astype(F32)
        b_s = RNG.uniform(0.01, 0.05, b_sh).astype(F32)
        o_s = np.array(RNG.uniform(0.05, 0.3), F32).reshape(one(rank))
    else:
        a_s, b_s, o_s = (np.asarray(s, F32).reshape(sh) for s, sh in zip(scales, (a_sh, b_sh, one(rank))))
    if zeros is None:
        az, bz = rand(a_t, a_sh, *((-10, 10) if a_t == "INT8" else (118, 138))), rand(b_t, b_sh, *((-10, 10) if b_t == "INT8" else (118, 138)))
        oz = rand(o_t, one(rank), *((-20, 20) if o_t == "INT8" else (100, 150)))
    else:
        az, bz, oz = (np.asarray(z).astype(NP[t]).reshape(sh) for z, t, sh in
                      zip(zeros, (a_t, b_t, o_t), (a_sh, b_sh, one(rank))))
    acc = matmul_int(a, az, b, bz)
    real = ((acc.astype(F32) * a_s).astype(F32) * b_s).astype(F32)
    out = requantize(real, o_s, oz, o_t)
    op = {"type": "DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY", "ATensor": tensor(a_t, a_shape),
          "AScaleTensor": tensor("FLOAT32", a_sh), "AZeroPointTensor": tensor(a_t, a_sh),
          "BTensor": tensor(b_t, b_shape), "BScaleTensor": tensor("FLOAT32", b_sh), "BZeroPointTensor": tensor(b_t, b_sh),
          "OutputScaleTensor": tensor("FLOAT32", one(rank)), "OutputZeroPointTensor": tensor(o_t, one(rank)),
          "OutputTensor": tensor(o_t, out.shape)}
    inputs = {"ATensor": values(a), "AScaleTensor": values(a_s), "AZeroPointTensor": values(az), "BTensor": values(b),
              "BScaleTensor": values(b_s), "BZeroPointTensor": values(bz), "OutputScaleTensor": values(o_s),
              "OutputZeroPointTensor": values(oz)}
    # Float32 requantization may land one step away at a near-tie where the device's float order differs.
    return {"name": name, "operator": op, "inputs": inputs,
            "outputs": {"OutputTensor": {"values": values(out), "ulps": 0 if exact else 1}}}


def qlmm_cases():
    cases = []
    for a_t, b_t in PAIRS8:
        for o_t in ("INT8", "UINT8"):
            cases.append(qlmm_case(f"QLMM_{a_t}_{b_t}_to_{o_t}", a_t, b_t, o_t, [1, 1, 3, 6], [1, 1, 6, 4], "tensor"))
    cases.append(qlmm_case("QLMM_per_row_column", "UINT8", "INT8", "UINT8", [1, 1, 4, 5], [1, 1, 5, 3], "axis"))
    cases.append(qlmm_case("QLMM_batch_broadcast", "INT8", "INT8", "INT8", [2, 1, 2, 3], [1, 2, 3, 2], "axis"))
    cases.append(qlmm_case("QLMM_rank2", "INT8", "UINT8", "INT8", [3, 4], [4, 5], "tensor"))
    cases.append(qlmm_case("QLMM_several_tiles", "UINT8", "INT8", "INT8", [2, 17, 33], [2, 33, 18], "axis"))
    # Ties: scales 1, 1 and output scale 2, so an odd sum lands on x.5 and rounds to the even neighbour.
    a = np.array([[1, 3, 5, -1, -3, 7, 0, 2]], np.int8).reshape(1, 1, 8, 1)
    b = np.array([[1]], np.int8).reshape(1, 1, 1, 1)
    cases.append(qlmm_case("QLMM_ties_half_to_even", "INT8", "INT8", "INT8", [1, 1, 8, 1], [1, 1, 1, 1], "tensor",
                           a=a, b=b, scales=(1.0, 1.0, 2.0), zeros=(0, 0, 0), exact=True))
    # Saturation: results far past both ends of each output type.
    a = np.array([127, -128, 100, -100], np.int8).reshape(1, 1, 4, 1)
    b = np.array([127], np.int8).reshape(1, 1, 1, 1)
    for o_t, oz in (("INT8", 0), ("UINT8", 128)):
        cases.append(qlmm_case(f"QLMM_saturate_{o_t}", "INT8", "INT8", o_t, [1, 1, 4, 1], [1, 1, 1, 1], "tensor",
                               a=a, b=b, scales=(1.0, 1.0, 4.0), zeros=(0, 0, oz), exact=True))
    return cases


# ---- MATRIX_MULTIPLY_INTEGER_TO_FLOAT -------------------------------------------------------------

WIDE = {"INT8": (-100, 100), "UINT8": (0, 255), "INT16": (-2000, 2000), "UINT16": (0, 4000),
        "INT32": (-30000, 30000), "UINT32": (0, 60000)}


def mmif_case(name, a_t, b_t, o_t, a_shape, b_shape, form, with_zero, with_bias):
    rank = len(a_shape)
    m, n = a_shape[-2], b_shape[-1]
    a, b = rand(a_t, a_shape, *WIDE[a_t]), rand(b_t, b_shape, *WIDE[b_t])
    a_sh = row_shape(rank, m) if form == "axis" else one(rank)
    b_sh = col_shape(rank, n) if form == "axis" else one(rank)
    # Power-of-two scales keep the float products exact, so FLOAT32 results compare exactly.
    a_s = (2.0 ** RNG.integers(-8, -4, a_sh)).astype(NP[o_t])
    b_s = (2.0 ** RNG.integers(-8, -4, b_sh)).astype(NP[o_t])
    az = rand(a_t, a_sh, *WIDE[a_t]) if with_zero else np.zeros(a_sh, np.int64)
    bz = rand(b_t, b_sh, *WIDE[b_t]) if with_zero else np.zeros(b_sh, np.int64)
    acc = matmul_int(a, az, b, bz)
    real = acc.astype(np.float64) * a_s.astype(np.float64) * b_s.astype(np.float64)
    out_shape = list(real.shape)
    op = {"type": "DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT", "ATensor": tensor(a_t, a_shape),
          "AScaleTensor": tensor(o_t, a_sh), "BTensor": tensor(b_t, b_shape), "BScaleTensor": tensor(o_t, b_sh),
          "OutputTensor": tensor(o_t, out_shape)}
    inputs = {"ATensor": values(a), "AScaleTensor": values(a_s, o_t), "BTensor": values(b), "BScaleTensor": values(b_s, o_t)}
    if with_zero:
        op["AZeroPointTensor"] = tensor(a_t, a_sh)
        op["BZeroPointTensor"] = tensor(b_t, b_sh)
        inputs["AZeroPointTensor"] = values(az)
        inputs["BZeroPointTensor"] = values(bz)
    if with_bias:
        bias_sh = col_shape(rank, n)
        bias = RNG.uniform(-2, 2, bias_sh).astype(NP[o_t])
        real = real + bias.astype(np.float64)
        op["BiasTensor"] = tensor(o_t, bias_sh)
        inputs["BiasTensor"] = values(bias, o_t)
    ulps = 2 if o_t == "FLOAT16" else 1
    return {"name": name, "operator": op, "inputs": inputs,
            "outputs": {"OutputTensor": {"values": values(real.astype(NP[o_t]), o_t), "ulps": ulps}}}


def mmif_cases():
    cases = []
    for t in ("INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32"):
        cases.append(mmif_case(f"MMIF_{t}_FLOAT32", t, t, "FLOAT32", [1, 1, 3, 4], [1, 1, 4, 2], "tensor", True, True))
    cases.append(mmif_case("MMIF_INT8_UINT8_FLOAT16", "INT8", "UINT8", "FLOAT16", [1, 1, 2, 5], [1, 1, 5, 3], "axis", True, True))
    cases.append(mmif_case("MMIF_UINT16_INT32_axis_no_bias", "UINT16", "INT32", "FLOAT32", [1, 2, 3, 4], [1, 2, 4, 2], "axis", True, False))
    cases.append(mmif_case("MMIF_no_zero_points", "INT16", "INT8", "FLOAT32", [2, 3], [3, 4], "tensor", False, False))
    cases.append(mmif_case("MMIF_batch_broadcast", "UINT8", "INT8", "FLOAT32", [2, 1, 2, 3], [1, 2, 3, 2], "axis", True, True))
    return cases


# ---- Shapes of the CUDA kernels' cuBLASLt route ----------------------------------------------------
# 8-bit products of 2^16 multiply-adds or more run through cuBLASLt's INT8 GEMM on CUDA (A and B
# copied to INT8 along K, padded to a multiple of 16, then a zero-point and requantization pass):
# K a multiple of 16, of 4 and neither, an INT8 A read in place, batches shared and broadcast,
# transposed views, per-row and per-column zero points, saturation. Their own generator state, so
# the files above stay as they are.

def gemm_route_cases():
    global RNG
    RNG = np.random.default_rng(2020)
    cases = [
        mmi_case("MMI_gemm_UINT8_INT8_K36_rank2", "UINT8", "INT8", [40, 36], [36, 48], "tensor"),
        mmi_case("MMI_gemm_INT8_INT8_in_place_K64", "INT8", "INT8", [1, 1, 33, 64], [1, 1, 64, 40], None),
        mmi_case("MMI_gemm_UINT8_UINT8_axis_K37", "UINT8", "UINT8", [1, 1, 45, 37], [1, 1, 37, 41], "axis"),
        mmi_case("MMI_gemm_INT8_UINT8_batched", "INT8", "UINT8", [3, 20, 36], [3, 36, 40], "tensor"),
        mmi_case("MMI_gemm_batch_broadcast", "UINT8", "INT8", [2, 1, 16, 40], [1, 3, 40, 24], "axis"),
    ]
    k = 64
    cases.append(mmi_case("MMI_gemm_INT8_extremes", "INT8", "INT8", [1, 1, 32, k], [1, 1, k, 32], "tensor",
                          a=np.full((1, 1, 32, k), -128, np.int8), b=np.full((1, 1, k, 32), -128, np.int8),
                          az=np.array([127], np.int8).reshape(1, 1, 1, 1), bz=np.array([127], np.int8).reshape(1, 1, 1, 1)))
    cases.append(mmi_case("MMI_gemm_UINT8_extremes", "UINT8", "UINT8", [1, 1, 32, k], [1, 1, k, 32], "tensor",
                          a=np.full((1, 1, 32, k), 255, np.uint8), b=np.full((1, 1, k, 32), 0, np.uint8),
                          az=np.array([0], np.uint8).reshape(1, 1, 1, 1), bz=np.array([255], np.uint8).reshape(1, 1, 1, 1)))
    # B shared by every batch (one GEMM over all of A's rows), per-row and per-column quantization.
    cases.append(qlmm_case("QLMM_gemm_shared_B", "UINT8", "INT8", "UINT8", [4, 16, 48], [1, 48, 32], "axis"))
    cases.append(qlmm_case("QLMM_gemm_INT8_K20_to_INT8", "INT8", "INT8", "INT8", [1, 1, 40, 20], [1, 1, 20, 90], "tensor"))
    # Saturation: unit scales and an output scale of 8 (exact float math), sums far past both ends.
    for o_t, oz in (("INT8", 3), ("UINT8", 120)):
        cases.append(qlmm_case(f"QLMM_gemm_saturate_{o_t}", "INT8", "UINT8", o_t, [1, 1, 36, 40], [1, 1, 40, 48],
                               "tensor", scales=(1.0, 1.0, 8.0), zeros=(0, 128, oz), exact=True))
    # Transposed views: A stored K-major (strides {1, M}), B stored N-major (strides {1, K}).
    m, kk, n = 36, 44, 42
    case = qlmm_case("QLMM_gemm_transposed_views", "UINT8", "UINT8", "INT8", [m, kk], [kk, n], "axis")
    a = np.array(case["inputs"]["ATensor"], np.uint8).reshape(m, kk)
    b = np.array(case["inputs"]["BTensor"], np.uint8).reshape(kk, n)
    case["operator"]["ATensor"] = tensor("UINT8", [m, kk], strides=[1, m])
    case["operator"]["BTensor"] = tensor("UINT8", [kk, n], strides=[1, kk])
    case["inputs"]["ATensor"] = values(a.T)
    case["inputs"]["BTensor"] = values(b.T)
    cases.append(case)
    # Padded rows: K (38) and N (42) not multiples of 4 inside row strides that are (40 and 44), so
    # word loads meet the ends of rows; the gaps hold values that must not be read.
    m, kk, n = 44, 38, 42
    case = qlmm_case("QLMM_gemm_padded_rows", "UINT8", "INT8", "UINT8", [m, kk], [kk, n], "axis")
    for name, t, rows, cols, stride in (("ATensor", "UINT8", m, kk, 40), ("BTensor", "INT8", kk, n, 44)):
        dense = np.array(case["inputs"][name], np.int64).reshape(rows, cols)
        memory = np.full((rows, stride), 85 if t == "UINT8" else -85, np.int64)
        memory[:, :cols] = dense
        case["operator"][name] = tensor(t, [rows, cols], strides=[stride, 1])
        case["inputs"][name] = values(memory.ravel()[:(rows - 1) * stride + cols])
    cases.append(case)
    cases.append(mmif_case("MMIF_gemm_UINT8_INT8_FLOAT32_K50", "UINT8", "INT8", "FLOAT32", [1, 1, 30, 50], [1, 1, 50, 48],
                           "axis", True, True))
    cases.append(mmif_case("MMIF_gemm_INT8_INT8_FLOAT16", "INT8", "INT8", "FLOAT16", [24, 40], [40, 72], "tensor",
                           True, True))
    cases.append(mmif_case("MMIF_gemm_no_zero_points_batched", "INT8", "INT8", "FLOAT32", [2, 24, 32], [2, 32, 48],
                           "tensor", False, False))
    # K past one packing tile (256): the row and column sums come from several tiles, and K (300)
    # is not a multiple of 16 either.
    cases.append(mmi_case("MMI_gemm_UINT8_INT8_K300", "UINT8", "INT8", [1, 1, 20, 300], [1, 1, 300, 24], "axis"))
    cases.append(qlmm_case("QLMM_gemm_K520_batched", "UINT8", "INT8", "UINT8", [2, 12, 520], [2, 520, 16], "axis"))
    return cases


# ---- Convolutions ---------------------------------------------------------------------------------

def conv_int64(x, w, strides, dilations, pads, groups):
    """Cross-correlation of (N, C, spatial...) by (M, C/groups, kernel...) in int64, zero padding."""
    dims = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + [(p0, p1) for p0, p1 in pads])
    n, c = x.shape[:2]
    m = w.shape[0]
    out_sp = [(x.shape[2 + i] - (dilations[i] * (w.shape[2 + i] - 1) + 1)) // strides[i] + 1 for i in range(dims)]
    out = np.zeros([n, m] + out_sp, np.int64)
    cig, cog = c // groups, m // groups
    for oc in range(m):
        g = oc // cog
        for pos in np.ndindex(*out_sp):
            sl = tuple(slice(pos[i] * strides[i], pos[i] * strides[i] + dilations[i] * (w.shape[2 + i] - 1) + 1,
                             dilations[i]) for i in range(dims))
            patch = x[(slice(None), slice(g * cig, (g + 1) * cig)) + sl]
            out[(slice(None), oc) + pos] = (patch * w[oc]).reshape(n, -1).sum(axis=1)
    return out


def conv_fields(dims, strides, dilations, pads, groups):
    return {"DimensionCount": dims, "Strides": list(strides), "Dilations": list(dilations),
            "StartPadding": [p[0] for p in pads], "EndPadding": [p[1] for p in pads], "GroupCount": groups}


def conv_case(name, quantized, x_t, w_t, o_t, x_shape, w_shape, strides, dilations, pads, groups, per_channel,
              with_bias=True, x=None, w=None, exact=False, out_scale=None):
    dims = len(x_shape) - 2
    rank = dims + 2
    m = w_shape[0]
    x = rand(x_t, x_shape) if x is None else x
    w = rand(w_t, w_shape) if w is None else w
    ch = [1, m] + [1] * dims
    w_sh = ch if per_channel else one(rank)
    xz = rand(x_t, one(rank), *((-5, 5) if x_t == "INT8" else (120, 135)))
    wz = rand(w_t, w_sh, *((-5, 5) if w_t == "INT8" else (120, 135)))
    acc = conv_int64(x.astype(np.int64) - xz.astype(np.int64), w.astype(np.int64) - wz.reshape(-1, *([1] * (rank - 1))).astype(np.int64)
                     if per_channel else w.astype(np.int64) - wz.astype(np.int64), strides, dilations, pads, groups)
    op = {"InputTensor": tensor(x_t, x_shape), "InputZeroPointTensor": tensor(x_t, one(rank)),
          "FilterTensor": tensor(w_t, w_shape), "FilterZeroPointTensor": tensor(w_t, w_sh)}
    op.update(conv_fields(dims, strides, dilations, pads, groups))
    inputs = {"InputTensor": values(x), "InputZeroPointTensor": values(xz), "FilterTensor": values(w),
              "FilterZeroPointTensor": values(wz)}
    if not quantized:
        op["type"] = "DML_OPERATOR_CONVOLUTION_INTEGER"
        op["OutputTensor"] = tensor("INT32", acc.shape)
        return {"name": name, "operator": op, "inputs": inputs,
                "outputs": {"OutputTensor": {"values": values(acc.astype(np.int32))}}}
    op["type"] = "DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION"
    x_s = np.array(RNG.uniform(0.01, 0.05), F32).reshape(one(rank))
    w_s = RNG.uniform(0.01, 0.05, w_sh).astype(F32)
    o_s = np.array(out_scale if out_scale is not None else RNG.uniform(0.05, 0.3), F32).reshape(one(rank))
    oz = rand(o_t, one(rank), *((-20, 20) if o_t == "INT8" else (100, 150)))
    if exact:
        x_s, w_s = np.ones(one(rank), F32), np.ones(w_sh, F32)
    if with_bias:
        bias = RNG.integers(-500, 500, ch).astype(np.int32)
        acc = acc + bias.reshape(1, m, *([1] * dims))
        op["BiasTensor"] = tensor("INT32", ch)
        inputs["BiasTensor"] = values(bias)
    multiplier = (x_s.reshape(-1)[0] * w_s.reshape(-1)).astype(F32).reshape(1, -1, *([1] * dims)) if per_channel \
        else (x_s * w_s).astype(F32)
    real = (acc.astype(F32) * multiplier).astype(F32)
    out = requantize(real, o_s.reshape(-1)[0], oz.reshape(-1)[0], o_t)
    op.update({"InputScaleTensor": tensor("FLOAT32", one(rank)), "FilterScaleTensor": tensor("FLOAT32", w_sh),
               "OutputScaleTensor": tensor("FLOAT32", one(rank)), "OutputZeroPointTensor": tensor(o_t, one(rank)),
               "OutputTensor": tensor(o_t, out.shape)})
    inputs.update({"InputScaleTensor": values(x_s), "FilterScaleTensor": values(w_s), "OutputScaleTensor": values(o_s),
                   "OutputZeroPointTensor": values(oz)})
    return {"name": name, "operator": op, "inputs": inputs,
            "outputs": {"OutputTensor": {"values": values(out), "ulps": 0 if exact else 1}}}


def conv_cases():
    cases = []
    p0 = [(0, 0), (0, 0)]
    for x_t, w_t in PAIRS8:
        cases.append(conv_case(f"CONV_INTEGER_{x_t}_{w_t}", False, x_t, w_t, None, [1, 2, 5, 5], [3, 2, 3, 3],
                               (1, 1), (1, 1), p0, 1, False))
    cases.append(conv_case("CONV_INTEGER_pad_stride_dilation", False, "UINT8", "INT8", None, [2, 2, 7, 6], [2, 2, 3, 2],
                           (2, 1), (1, 2), [(1, 2), (0, 1)], 1, True))
    cases.append(conv_case("CONV_INTEGER_groups", False, "INT8", "INT8", None, [1, 4, 4, 4], [6, 2, 2, 2],
                           (1, 1), (1, 1), [(1, 0), (0, 1)], 2, True))
    cases.append(conv_case("CONV_INTEGER_depthwise", False, "UINT8", "UINT8", None, [1, 3, 5, 5], [3, 1, 3, 3],
                           (2, 2), (1, 1), [(1, 1), (1, 1)], 3, True))
    cases.append(conv_case("CONV_INTEGER_3d", False, "INT8", "UINT8", None, [1, 2, 3, 4, 4], [2, 2, 2, 2, 2],
                           (1, 2, 1), (1, 1, 1), [(0, 1), (1, 0), (0, 0)], 1, False))
    for x_t, w_t in PAIRS8:
        for o_t in ("INT8", "UINT8"):
            cases.append(conv_case(f"QLCONV_{x_t}_{w_t}_to_{o_t}", True, x_t, w_t, o_t, [1, 2, 4, 4], [2, 2, 3, 3],
                                   (1, 1), (1, 1), [(1, 1), (1, 1)], 1, False))
    cases.append(conv_case("QLCONV_per_channel_groups_stride", True, "UINT8", "INT8", "UINT8", [1, 4, 6, 5], [4, 2, 3, 2],
                           (2, 1), (1, 2), [(1, 0), (0, 1)], 2, True))
    cases.append(conv_case("QLCONV_no_bias", True, "INT8", "INT8", "INT8", [2, 2, 4, 3], [3, 2, 2, 2],
                           (1, 1), (1, 1), p0, 1, True, with_bias=False))
    cases.append(conv_case("QLCONV_3d", True, "UINT8", "UINT8", "UINT8", [1, 2, 3, 3, 3], [2, 2, 2, 2, 2],
                           (1, 1, 1), (1, 1, 1), [(0, 0), (1, 0), (0, 1)], 1, False))
    # Saturation with exact float math: unit scales, output scale 1/4.
    cases.append(conv_case("QLCONV_saturate", True, "INT8", "INT8", "INT8", [1, 1, 2, 2], [2, 1, 2, 2],
                           (1, 1), (1, 1), p0, 1, False, with_bias=False, exact=True, out_scale=0.25,
                           x=np.array([127, -128, 100, -100], np.int8).reshape(1, 1, 2, 2),
                           w=np.array([127, -128, 127, -128, -128, 127, -128, 127], np.int8).reshape(2, 1, 2, 2)))
    return cases


# ---- QUANTIZED_LINEAR_AVERAGE_POOLING -------------------------------------------------------------

def pool_case(name, t, x_shape, window, strides, dilations, pads, include_padding, per_channel, exact=False,
              x=None, scales=None, zeros=None):
    dims = len(x_shape) - 2
    rank = dims + 2
    c = x_shape[1]
    x = rand(t, x_shape) if x is None else x
    sh = [1, c] + [1] * dims if per_channel else one(rank)
    if scales is None:
        x_s, o_s = RNG.uniform(0.02, 0.1, sh).astype(F32), RNG.uniform(0.02, 0.1, sh).astype(F32)
    else:
        x_s, o_s = (np.full(sh, s, F32) for s in scales)
    if zeros is None:
        xz = rand(t, sh, *((-10, 10) if t == "INT8" else (118, 138)))
        oz = rand(t, sh, *((-10, 10) if t == "INT8" else (118, 138)))
    else:
        xz, oz = (np.full(sh, z, NP[t]) for z in zeros)
    real = (x.astype(np.float64) - xz.astype(np.float64)) * x_s.astype(np.float64)
    padded = np.pad(real, [(0, 0), (0, 0)] + list(pads))
    inside = np.pad(np.ones(x.shape), [(0, 0), (0, 0)] + list(pads))
    out_sp = [(padded.shape[2 + i] - (dilations[i] * (window[i] - 1) + 1)) // strides[i] + 1 for i in range(dims)]
    avg = np.zeros(list(x.shape[:2]) + out_sp)
    for pos in np.ndindex(*out_sp):
        sl = tuple(slice(pos[i] * strides[i], pos[i] * strides[i] + dilations[i] * (window[i] - 1) + 1, dilations[i])
                   for i in range(dims))
        total = padded[(slice(None), slice(None)) + sl].reshape(*x.shape[:2], -1).sum(axis=2)
        count = np.prod(window) if include_padding else inside[(slice(None), slice(None)) + sl].reshape(*x.shape[:2], -1).sum(axis=2)
        avg[(slice(None), slice(None)) + pos] = total / count
    out = saturate(np.rint(avg / o_s.astype(np.float64)) + oz.astype(np.float64), t)
    op = {"type": "DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING", "InputTensor": tensor(t, x_shape),
          "InputScaleTensor": tensor("FLOAT32", sh), "InputZeroPointTensor": tensor(t, sh),
          "OutputScaleTensor": tensor("FLOAT32", sh), "OutputZeroPointTensor": tensor(t, sh),
          "OutputTensor": tensor(t, out.shape), "DimensionCount": dims, "Strides": list(strides),
          "WindowSize": list(window), "StartPadding": [p[0] for p in pads], "EndPadding": [p[1] for p in pads],
          "Dilations": list(dilations), "IncludePadding": include_padding}
    inputs = {"InputTensor": values(x), "InputScaleTensor": values(x_s), "InputZeroPointTensor": values(xz),
              "OutputScaleTensor": values(o_s), "OutputZeroPointTensor": values(oz)}
    return {"name": name, "operator": op, "inputs": inputs,
            "outputs": {"OutputTensor": {"values": values(out), "ulps": 0 if exact else 1}}}


def pool_cases():
    cases = []
    for t in ("INT8", "UINT8"):
        for include in (False, True):
            cases.append(pool_case(f"QLAVGPOOL_{t}_include_padding_{include}", t, [1, 2, 5, 5], (3, 3), (2, 2), (1, 1),
                                   [(1, 1), (1, 0)], include, False))
    cases.append(pool_case("QLAVGPOOL_per_channel_dilation", "UINT8", [2, 3, 6, 5], (2, 2), (1, 2), (2, 1),
                           [(0, 1), (1, 1)], False, True))
    cases.append(pool_case("QLAVGPOOL_1d", "INT8", [1, 2, 9], (3,), (2,), (1,), [(1, 1)], True, False))
    cases.append(pool_case("QLAVGPOOL_3d", "UINT8", [1, 1, 3, 4, 4], (2, 2, 2), (1, 2, 2), (1, 1, 1),
                           [(0, 1), (0, 0), (1, 0)], False, False))
    # Ties: unit scales; windows of two elements whose sums are odd average to x.5.
    x = np.array([1, 2, 3, 4, -1, -2, 5, 8, 7, 0], np.int8).reshape(1, 1, 10)
    cases.append(pool_case("QLAVGPOOL_ties_half_to_even", "INT8", [1, 1, 10], (2,), (2,), (1,), [(0, 0)], False, False,
                           exact=True, x=x, scales=(1.0, 1.0), zeros=(0, 0)))
    x = np.array([127, 127, -128, -128], np.int8).reshape(1, 1, 4)
    cases.append(pool_case("QLAVGPOOL_saturate", "INT8", [1, 1, 4], (2,), (2,), (1,), [(0, 0)], False, False,
                           exact=True, x=x, scales=(1.0, 0.5), zeros=(0, 0)))
    return cases


# ---- DYNAMIC_QUANTIZE_LINEAR ----------------------------------------------------------------------

def dql_case(name, in_t, out_t, x):
    """ONNX DynamicQuantizeLinear's formula with DirectML's INT8 range: float32 throughout."""
    xf = x.astype(F32)
    lo, hi = min(F32(0), F32(xf.min())), max(F32(0), F32(xf.max()))
    qmin, qmax = (F32(-128), F32(127)) if out_t == "INT8" else (F32(0), F32(255))
    scale = F32((hi - lo) / (qmax - qmin))
    zero = F32(np.rint(np.clip(F32(qmin - F32(lo / scale)), qmin, qmax)))
    out = saturate(np.rint((xf / scale).astype(F32)).astype(np.float64) + float(zero), out_t)
    rank = x.ndim
    op = {"type": "DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR", "InputTensor": tensor(in_t, x.shape),
          "OutputTensor": tensor(out_t, x.shape), "OutputScaleTensor": tensor("FLOAT32", one(rank)),
          "OutputZeroPointTensor": tensor(out_t, one(rank))}
    return {"name": name, "operator": op, "inputs": {"InputTensor": values(x, in_t)},
            "outputs": {"OutputTensor": {"values": values(out), "ulps": 1},
                        "OutputScaleTensor": {"values": [float(scale)], "ulps": 0},
                        "OutputZeroPointTensor": {"values": [int(zero)], "ulps": 0}}}


def dql_cases():
    cases = []
    for in_t in ("FLOAT32", "FLOAT16"):
        for out_t in ("UINT8", "INT8"):
            x = RNG.uniform(-3, 5, (2, 3, 4)).astype(NP[in_t])
            cases.append(dql_case(f"DQL_{in_t}_to_{out_t}_mixed", in_t, out_t, x))
    cases.append(dql_case("DQL_positive_range_includes_zero", "FLOAT32", "UINT8", RNG.uniform(1, 4, (5, 3)).astype(F32)))
    cases.append(dql_case("DQL_negative_range_includes_zero", "FLOAT32", "INT8", RNG.uniform(-4, -1, (7,)).astype(F32)))
    # Exact: range [-1, 254] gives scale 1 and zero point 1 (UINT8); -1 maps to 0, 254 to 255.
    cases.append(dql_case("DQL_exact_UINT8", "FLOAT32", "UINT8", np.array([-1, 0, 2.5, 3.5, 254], F32)))
    return cases


if __name__ == "__main__":
    write_cases(__file__, "quantized_matmul", mmi_cases() + qlmm_cases() + mmif_cases())
    write_cases(__file__, "quantized_convolution", conv_cases())
    write_cases(__file__, "quantized_pooling", pool_cases())
    write_cases(__file__, "quantized_dynamic", dql_cases())
    write_cases(__file__, "quantized_matmul_gemm", gemm_route_cases())

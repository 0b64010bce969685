// What ROI_ALIGN_GRAD computes for one element of InputGradientTensor, shared by the CPU kernel
// (cpu/region_grad_ops.cpp) and the CUDA kernels (cuda/region_grad_ops.cu). Plain C++ (no
// DirectML.h). It is the derivative of the forward ROI_ALIGN1 that region_math.h computes (same
// sample count, positions, interpolation and clamping), in float:
//
// OutputGradientTensor (with respect to InputTensor): each InputGradientTensor element g of region
// r, channel c is spread over the samples its forward output read, in plane (BatchIndices[r], c):
//   - AVERAGE: every sample takes g / (samples per output element); MAX: the one sample the forward
//     pass chose (the first largest, as region_math.h compares) takes g.
//   - LINEAR: a sample's share goes to its four interpolation neighbours with the forward weights
//     (clamped neighbours coincide and add); NEAREST_NEIGHBOR: to its one pixel.
//   - Samples outside the input read a constant in the forward pass and pass no gradient on. The
//     desc has no OutOfBoundsInputValue, so a MAX element picks its largest sample among those
//     inside the input (none inside: no gradient).
//   Elements no sample reaches are 0. A region whose batch index is not in [0, BatchCount) passes
//   nothing on (the page leaves it undefined).
//
// OutputROIGradientTensor (with respect to the region's [x1, y1, x2, y2]): the exact derivative of
// the forward output, sum over elements and samples of share * dValue/dCoordinate. A sample sits at
//     x = (i - OutputPixelOffset) * step + x1 * SpatialScaleX - InputPixelOffset,
//     step = (x2 - x1) * SpatialScaleX / D
// (D = samples along the axis, minus 1 when aligned to corners)
// so dx/dx1 = SpatialScaleX * (1 - (i - OutputPixelOffset) / D) and dx/dx2 = SpatialScaleX * (i -
// OutputPixelOffset) / D (dx/dx1 = SpatialScaleX, dx/dx2 = 0 where the step is fixed at 0), and
// dValue/dx is the bilinear slope (1 - ly) * (v01 - v00) + ly * (v11 - v10), 0 where the forward
// clamps x (x <= 0 or past the last column). The page's pseudocode (one sample per output) has the
// same slopes times the incoming gradient (its imageGradX, imageGradY) but weights them by
// (inputWidth - X) and X of the output element, which does not follow from its own sample
// positions; FreeDML uses dx/dx1 and dx/dx2 above, so the region gradient is the derivative of the
// forward pass (the conformance generator checks it numerically). NEAREST_NEIGHBOR is piecewise
// constant in the coordinates: its region gradient is 0. The sample count (a ceil of the region
// size) is constant almost everywhere and contributes no derivative.
#pragma once

#include <cmath>
#include <cstdint>

#include "dml/ops/region_pooling/region_math.h"

namespace freedml::dml::region {

// Strides in elements; InputTensor, InputGradientTensor and OutputGradientTensor are NCHW.
struct GradPlan {
    bool half = false;      // FLOAT16 tensors, else FLOAT32
    bool max = false;       // DML_REDUCE_FUNCTION_MAX, else AVERAGE
    bool linear = true;     // DML_INTERPOLATION_MODE_LINEAR, else NEAREST_NEIGHBOR
    bool corners = false;   // AlignRegionsToCorners
    bool hasInput = false;  // InputTensor bound
    bool hasOutputGradient = false, hasRoiGradient = false;
    float scaleX = 1, scaleY = 1, inputOffset = 0.5f, outputOffset = -0.5f;
    uint32_t minSamples = 1, maxSamples = 1;
    uint32_t batch = 1, channels = 1, height = 1, width = 1;  // InputTensor / OutputGradientTensor
    uint32_t regions = 0, outHeight = 1, outWidth = 1;        // InputGradientTensor
    int64_t in[4] = {}, inGrad[4] = {}, outGrad[4] = {};
    int64_t roiRow = 0, roiColumn = 0;          // ROITensor
    int64_t roiGradRow = 0, roiGradColumn = 0;  // OutputROIGradientTensor
    int64_t batchStride = 0;                    // BatchIndicesTensor

    FREEDML_RP_HD uint64_t GradientCount() const { return uint64_t(regions) * channels * outHeight * outWidth; }
    FREEDML_RP_HD uint64_t OutputCount() const { return uint64_t(batch) * channels * height * width; }
    // Index of pixel (b, c, y, x) in a packed float accumulation buffer of OutputGradientTensor's sizes.
    FREEDML_RP_HD uint64_t PackedIndex(uint64_t b, uint64_t c, int64_t y, int64_t x) const {
        return ((b * channels + c) * height + uint64_t(y)) * width + uint64_t(x);
    }
};

// One axis of a region: where its samples sit and how they move with the corners.
struct Axis {
    float start = 0, step = 0, denominator = 1;
    uint32_t samples = 1;
    bool fixed = false;  // step 0 whatever the corners (corner alignment with one sample)
};

FREEDML_RP_HD uint32_t GradSampleCount(const GradPlan& p, float size, uint32_t outSize) {
    if (!(fabsf(size) <= 3.4028234e38f)) return p.minSamples;
    const float want = ceilf(fabsf(size) / float(outSize));
    if (!(want >= float(p.minSamples))) return p.minSamples;
    if (want >= float(p.maxSamples)) return p.maxSamples;
    return uint32_t(want);
}

FREEDML_RP_HD Axis MakeAxis(const GradPlan& p, float c1, float c2, float scale, uint32_t outSize) {
    Axis a;
    a.start = c1 * scale;
    const float size = c2 * scale - a.start;
    a.samples = GradSampleCount(p, size, outSize);
    const uint64_t total = uint64_t(outSize) * a.samples;
    if (p.corners) {
        if (total > 1) {
            a.denominator = float(total - 1);
            a.step = size / a.denominator;
        } else {
            a.fixed = true;
        }
    } else {
        a.denominator = float(total);
        a.step = size / a.denominator;
    }
    return a;
}

// Sample i's position offset from the region's start, in sample steps.
FREEDML_RP_HD float SamplePosition(const GradPlan& p, uint64_t i) { return float(i) - p.outputOffset; }

FREEDML_RP_HD float Coordinate(const GradPlan& p, const Axis& a, float position) {
    return position * a.step + a.start - p.inputOffset;
}

// The interpolation of one sample as the forward pass does it (region_math.h's AlignValue).
struct Sample {
    bool inside = false;
    int64_t y0 = 0, y1 = 0, x0 = 0, x1 = 0;  // LINEAR neighbours; NEAREST_NEIGHBOR: the pixel (y0, x0)
    float ly = 0, lx = 0;
    bool slopeY = false, slopeX = false;  // the forward value moves with y / x here
};

FREEDML_RP_HD Sample Locate(const GradPlan& p, float y, float x) {
    Sample s;
    const int64_t h = p.height, w = p.width;
    if (p.linear) {
        if (y < -1.0f || y > float(h) || x < -1.0f || x > float(w) || y != y || x != x) return s;
        s.inside = true;
        float cy = y <= 0 ? 0.0f : y, cx = x <= 0 ? 0.0f : x;
        s.slopeY = y > 0;
        s.slopeX = x > 0;
        s.y0 = int64_t(cy);
        s.x0 = int64_t(cx);
        if (s.y0 >= h - 1) {
            s.y0 = s.y1 = h - 1;
            cy = float(s.y0);
            s.slopeY = false;
        } else {
            s.y1 = s.y0 + 1;
        }
        if (s.x0 >= w - 1) {
            s.x0 = s.x1 = w - 1;
            cx = float(s.x0);
            s.slopeX = false;
        } else {
            s.x1 = s.x0 + 1;
        }
        s.ly = cy - float(s.y0);
        s.lx = cx - float(s.x0);
    } else {
        const float fy = floorf(y + 0.5f), fx = floorf(x + 0.5f);
        if (!(fy >= 0.0f && fy < float(h) && fx >= 0.0f && fx < float(w))) return s;
        s.inside = true;
        s.y0 = s.y1 = int64_t(fy);
        s.x0 = s.x1 = int64_t(fx);
    }
    return s;
}

// The forward value of a sample that is inside; `read(y, x)` returns InputTensor's pixel.
template <class Read>
FREEDML_RP_HD float SampleValue(const GradPlan& p, const Sample& s, Read read) {
    if (!p.linear) return read(s.y0, s.x0);
    const float hy = 1.0f - s.ly, hx = 1.0f - s.lx;
    return hy * (hx * read(s.y0, s.x0) + s.lx * read(s.y0, s.x1)) +
           s.ly * (hx * read(s.y1, s.x0) + s.lx * read(s.y1, s.x1));
}

// The gradient of one InputGradientTensor element `g` at output position (oy, ox) of a region
// whose axes are `ax`, `ay`. `read(y, x)` returns InputTensor's pixel of the element's plane (only
// called when p.hasInput), `scatter(y, x, value)` adds to the OutputGradientTensor pixel of that
// plane (called when `scatterInput`), and roi[0..3] accumulate the derivative with respect to
// x1, y1, x2, y2 (when `roiGradient`).
template <class Read, class Scatter>
FREEDML_RP_HD void ElementGradient(const GradPlan& p, const Axis& ax, const Axis& ay, uint32_t oy, uint32_t ox, float g,
                                   bool scatterInput, bool roiGradient, Read read, Scatter scatter, float (&roi)[4]) {
    const uint32_t nx = ax.samples, ny = ay.samples;
    uint32_t bestX = 0, bestY = 0;
    float share = g;
    if (p.max) {
        bool found = false;
        float best = 0;
        for (uint32_t ky = 0; ky < ny; ++ky) {
            const float y = Coordinate(p, ay, SamplePosition(p, uint64_t(oy) * ny + ky));
            for (uint32_t kx = 0; kx < nx; ++kx) {
                const float x = Coordinate(p, ax, SamplePosition(p, uint64_t(ox) * nx + kx));
                const Sample s = Locate(p, y, x);
                if (!s.inside) continue;
                const float v = SampleValue(p, s, read);
                if (!found || v > best) {
                    best = v;
                    bestX = kx;
                    bestY = ky;
                }
                found = true;
            }
        }
        if (!found) return;
    } else {
        share = g / float(uint64_t(nx) * ny);
    }
    const uint32_t firstY = p.max ? bestY : 0, lastY = p.max ? bestY + 1 : ny;
    const uint32_t firstX = p.max ? bestX : 0, lastX = p.max ? bestX + 1 : nx;
    for (uint32_t ky = firstY; ky < lastY; ++ky) {
        const float posY = SamplePosition(p, uint64_t(oy) * ny + ky);
        const float y = Coordinate(p, ay, posY);
        for (uint32_t kx = firstX; kx < lastX; ++kx) {
            const float posX = SamplePosition(p, uint64_t(ox) * nx + kx);
            const float x = Coordinate(p, ax, posX);
            const Sample s = Locate(p, y, x);
            if (!s.inside) continue;
            if (scatterInput) {
                if (p.linear) {
                    // A neighbour of weight 0 is not read by the sample and takes nothing (not even
                    // a NaN or infinite gradient times 0).
                    const float hy = 1.0f - s.ly, hx = 1.0f - s.lx;
                    if (hy * hx != 0.0f) scatter(s.y0, s.x0, share * (hy * hx));
                    if (hy * s.lx != 0.0f) scatter(s.y0, s.x1, share * (hy * s.lx));
                    if (s.ly * hx != 0.0f) scatter(s.y1, s.x0, share * (s.ly * hx));
                    if (s.ly * s.lx != 0.0f) scatter(s.y1, s.x1, share * (s.ly * s.lx));
                } else {
                    scatter(s.y0, s.x0, share);
                }
            }
            if (roiGradient && p.linear && (s.slopeX || s.slopeY)) {
                const float v00 = read(s.y0, s.x0), v01 = read(s.y0, s.x1);
                const float v10 = read(s.y1, s.x0), v11 = read(s.y1, s.x1);
                if (s.slopeX) {
                    const float slope = share * ((1.0f - s.ly) * (v01 - v00) + s.ly * (v11 - v10));
                    const float t = ax.fixed ? 0.0f : posX / ax.denominator;
                    roi[0] += slope * p.scaleX * (1.0f - t);
                    roi[2] += slope * p.scaleX * t;
                }
                if (s.slopeY) {
                    const float slope = share * ((1.0f - s.lx) * (v10 - v00) + s.lx * (v11 - v01));
                    const float t = ay.fixed ? 0.0f : posY / ay.denominator;
                    roi[1] += slope * p.scaleY * (1.0f - t);
                    roi[3] += slope * p.scaleY * t;
                }
            }
        }
    }
}

}  // namespace freedml::dml::region

// What ROI_POOLING, ROI_ALIGN and ROI_ALIGN1 compute for one output element, shared by the CPU
// kernels (cpu/region_pooling_ops.cpp) and the CUDA kernels (cuda/region_pooling_ops.cu) so that
// both backends give one answer. Plain C++ (no DirectML.h): the CUDA device code includes it too.
// Coordinates and sums are in float; FLOAT16 tensors are read and written through float.
//
// ROI_POOLING (the DML_ROI_POOLING_OPERATOR_DESC page's equations): a region row is
// [batch, x1, y1, x2, y2]; x1 = round(x1 * SpatialScale) (half away from zero) and so on; the region
// is x1..x2 inclusive, RegionWidth = x2 - x1 + 1 (at least 1: the page asks x2 >= x1 and FreeDML
// keeps inverted regions to one column); output column X takes input columns
// [x1 + floor(X * RegionWidth / PooledWidth), x1 + ceil((X + 1) * RegionWidth / PooledWidth)), clamped
// to the input, and the same for rows; the result is the largest value there. The page is silent on
// a bin that the clamping empties and on the batch value: FreeDML writes 0 for an empty bin (as
// Caffe's and ONNX Runtime's MaxRoiPool do), truncates the batch value to an integer and writes 0
// for a region whose batch is not in [0, BatchCount); a NaN in a bin makes the bin's result NaN.
//
// ROI_ALIGN and ROI_ALIGN1 (the DML_ROI_ALIGN1_OPERATOR_DESC page's pseudocode; ROI_ALIGN is
// ROI_ALIGN1 with InputPixelOffset 0.5, OutputPixelOffset -0.5 and no corner alignment, as that
// page says). Per region and axis:
//     size    = (x2 - x1) * SpatialScaleX
//     samples = clamp(ceil(|size| / OutputWidth), MinimumSamplesPerOutput, MaximumSamplesPerOutput)
//     step    = size / (OutputWidth * samples)     (AlignRegionsToCorners: / (OutputWidth * samples - 1))
// and output column X averages or takes the largest of the samples i = X * samples + k, k in
// [0, samples), at input coordinate (i - OutputPixelOffset) * step + x1 * SpatialScaleX -
// InputPixelOffset, where input pixel j's center is coordinate j. Choices where the page is silent:
//   - The page's "scaledRegionSize / outputSize" is a real number; ceil makes it a sample count and
//     matches ONNX RoiAlign's adaptive sampling_ratio = ceil(roi_width / output_width), which ONNX
//     Runtime's DirectML provider maps to Minimum 1 and Maximum UINT32_MAX. |size| keeps inverted
//     (mirrored) regions at the same count; the step keeps its sign, so they read mirrored.
//   - The page's loops run "to <=" the next output's first sample, which would count it twice;
//     FreeDML takes `samples` samples per axis, as ONNX RoiAlign does.
//   - Corner alignment changes the step only; the offsets still apply (0 and 0 make the first and
//     last samples fall on the region's corners, TensorFlow's crop_and_resize). One sample on an
//     axis then has step 0.
//   - LINEAR reads a sample outside [-1, Height] x [-1, Width] as OutOfBoundsInputValue; a sample
//     inside clamps its coordinates into [0, Height - 1] x [0, Width - 1] and interpolates the four
//     neighbours (ONNX RoiAlign's rule, with its 0 replaced by OutOfBoundsInputValue).
//     NEAREST_NEIGHBOR reads pixel floor(coordinate + 0.5) per axis, or OutOfBoundsInputValue when
//     that pixel is outside the input.
//   - MAX is the largest interpolated sample (the page's "maximum with inputValue"; ONNX Runtime's
//     own CPU RoiAlign instead takes the largest weighted corner, which DirectML's page does not).
//   - A region whose batch index is not in [0, BatchCount) (undefined behaviour on the page) writes
//     OutOfBoundsInputValue everywhere and reads nothing.
#pragma once

#include <cmath>
#include <cstdint>

#ifdef __CUDACC__
#define FREEDML_RP_HD __host__ __device__ __forceinline__
#else
#define FREEDML_RP_HD inline
#endif

namespace freedml::dml::region {

// Strides in elements; dimension order NCHW for InputTensor and OutputTensor.
struct RegionPlan {
    bool align = true;    // ROI_ALIGN / ROI_ALIGN1, else ROI_POOLING
    bool half = false;    // FLOAT16 tensors, else FLOAT32
    bool batch64 = false; // UINT64 batch indices, else UINT32
    bool max = false;     // DML_REDUCE_FUNCTION_MAX, else AVERAGE
    bool linear = true;   // DML_INTERPOLATION_MODE_LINEAR, else NEAREST_NEIGHBOR
    bool corners = false; // AlignRegionsToCorners
    float scaleX = 1, scaleY = 1;  // ROI_POOLING: both SpatialScale
    float inputOffset = 0.5f, outputOffset = -0.5f;
    float outOfBounds = 0;
    uint32_t minSamples = 1, maxSamples = 1;
    uint32_t batch = 1, channels = 1, height = 1, width = 1;  // InputTensor
    uint32_t regions = 0, outHeight = 1, outWidth = 1;        // OutputTensor
    int64_t in[4] = {}, out[4] = {};
    int64_t roiRow = 0, roiColumn = 0;  // ROITensor: between regions, between coordinates
    int64_t batchStride = 0;            // BatchIndicesTensor: between regions

    FREEDML_RP_HD uint64_t OutputCount() const { return uint64_t(regions) * channels * outHeight * outWidth; }
};

// The region, channel, row and column of output element `e` (row-major over the output's sizes).
struct OutputIndex {
    uint32_t region, channel, y, x;
};
FREEDML_RP_HD OutputIndex Unflatten(const RegionPlan& p, uint64_t e) {
    OutputIndex o;
    o.x = uint32_t(e % p.outWidth);
    e /= p.outWidth;
    o.y = uint32_t(e % p.outHeight);
    e /= p.outHeight;
    o.channel = uint32_t(e % p.channels);
    o.region = uint32_t(e / p.channels);
    return o;
}

FREEDML_RP_HD int64_t OutputOffset(const RegionPlan& p, const OutputIndex& o) {
    return int64_t(o.region) * p.out[0] + int64_t(o.channel) * p.out[1] + int64_t(o.y) * p.out[2] +
           int64_t(o.x) * p.out[3];
}

FREEDML_RP_HD int64_t ClampI(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

// Samples per output element along one axis (see the top of this file). A region of infinite or
// NaN size takes MinimumSamplesPerOutput (its samples land outside the input or at NaN): with the
// usual Maximum of UINT32_MAX it would otherwise ask for billions of samples per element.
FREEDML_RP_HD uint32_t SampleCount(const RegionPlan& p, float size, uint32_t outSize) {
    if (!(fabsf(size) <= 3.4028234e38f)) return p.minSamples;
    const float want = ceilf(fabsf(size) / float(outSize));
    if (!(want >= float(p.minSamples))) return p.minSamples;
    if (want >= float(p.maxSamples)) return p.maxSamples;
    return uint32_t(want);
}

// ROI_ALIGN/ROI_ALIGN1's output element `o`. `read(offset)` returns InputTensor's element at that
// element offset as float; `coord(k)` returns the region's coordinate k (x1, y1, x2, y2) as float.
template <class Read, class Coord>
FREEDML_RP_HD float AlignValue(const RegionPlan& p, const OutputIndex& o, uint64_t batch, Read read, Coord coord) {
    if (batch >= p.batch) return p.outOfBounds;
    const float x1 = coord(0) * p.scaleX, y1 = coord(1) * p.scaleY;
    const float sizeX = coord(2) * p.scaleX - x1, sizeY = coord(3) * p.scaleY - y1;
    const uint32_t nx = SampleCount(p, sizeX, p.outWidth), ny = SampleCount(p, sizeY, p.outHeight);
    const uint64_t totalX = uint64_t(p.outWidth) * nx, totalY = uint64_t(p.outHeight) * ny;
    float stepX, stepY;
    if (p.corners) {
        stepX = totalX > 1 ? sizeX / float(totalX - 1) : 0.0f;
        stepY = totalY > 1 ? sizeY / float(totalY - 1) : 0.0f;
    } else {
        stepX = sizeX / float(totalX);
        stepY = sizeY / float(totalY);
    }
    const int64_t base = int64_t(batch) * p.in[0] + int64_t(o.channel) * p.in[1];
    const int64_t h = p.height, w = p.width;
    float sum = 0, best = 0;
    bool first = true;
    for (uint32_t ky = 0; ky < ny; ++ky) {
        const float sy = float(uint64_t(o.y) * ny + ky);
        float y = (sy - p.outputOffset) * stepY + y1 - p.inputOffset;
        for (uint32_t kx = 0; kx < nx; ++kx) {
            const float sx = float(uint64_t(o.x) * nx + kx);
            float x = (sx - p.outputOffset) * stepX + x1 - p.inputOffset;
            float v;
            if (p.linear) {
                if (y < -1.0f || y > float(h) || x < -1.0f || x > float(w) || y != y || x != x) {
                    v = p.outOfBounds;
                } else {
                    float cy = y <= 0 ? 0.0f : y, cx = x <= 0 ? 0.0f : x;
                    int64_t y0 = int64_t(cy), x0 = int64_t(cx), yy1, xx1;
                    if (y0 >= h - 1) {
                        y0 = yy1 = h - 1;
                        cy = float(y0);
                    } else {
                        yy1 = y0 + 1;
                    }
                    if (x0 >= w - 1) {
                        x0 = xx1 = w - 1;
                        cx = float(x0);
                    } else {
                        xx1 = x0 + 1;
                    }
                    const float ly = cy - float(y0), lx = cx - float(x0), hy = 1.0f - ly, hx = 1.0f - lx;
                    const float v00 = read(base + y0 * p.in[2] + x0 * p.in[3]);
                    const float v01 = read(base + y0 * p.in[2] + xx1 * p.in[3]);
                    const float v10 = read(base + yy1 * p.in[2] + x0 * p.in[3]);
                    const float v11 = read(base + yy1 * p.in[2] + xx1 * p.in[3]);
                    v = hy * (hx * v00 + lx * v01) + ly * (hx * v10 + lx * v11);
                }
            } else {
                const float fy = floorf(y + 0.5f), fx = floorf(x + 0.5f);
                if (!(fy >= 0.0f && fy < float(h) && fx >= 0.0f && fx < float(w))) {
                    v = p.outOfBounds;
                } else {
                    v = read(base + int64_t(fy) * p.in[2] + int64_t(fx) * p.in[3]);
                }
            }
            if (p.max) {
                if (first || v > best) best = v;
            } else {
                sum += v;
            }
            first = false;
        }
    }
    return p.max ? best : sum / float(uint64_t(nx) * ny);
}

// Rounds half away from zero. A scaled corner beyond +-2^28 is clamped there first (and NaN read as
// 0) so that the integer bin arithmetic below cannot overflow; the bins then follow from the
// clamped corner (the page does not consider corners that far outside the input).
FREEDML_RP_HD int64_t RoundHalfAway(float v) {
    constexpr float kLimit = 268435456.0f;  // 2^28
    if (v != v) v = 0.0f;
    v = v < -kLimit ? -kLimit : (v > kLimit ? kLimit : v);
    return int64_t(v < 0 ? -floorf(-v + 0.5f) : floorf(v + 0.5f));
}

// ROI_POOLING's output element `o`; `coord(k)` returns row element k ([batch, x1, y1, x2, y2]).
template <class Read, class Coord>
FREEDML_RP_HD float PoolValue(const RegionPlan& p, const OutputIndex& o, Read read, Coord coord) {
    const float b = coord(0);
    if (!(b >= 0.0f && b < float(p.batch))) return 0.0f;
    const int64_t batch = int64_t(b);
    const int64_t x1 = RoundHalfAway(coord(1) * p.scaleX), y1 = RoundHalfAway(coord(2) * p.scaleY);
    const int64_t x2 = RoundHalfAway(coord(3) * p.scaleX), y2 = RoundHalfAway(coord(4) * p.scaleY);
    const int64_t rw = x2 - x1 + 1 > 1 ? x2 - x1 + 1 : 1, rh = y2 - y1 + 1 > 1 ? y2 - y1 + 1 : 1;
    const int64_t pw = p.outWidth, ph = p.outHeight;
    const int64_t h = p.height, w = p.width;
    const int64_t ys = ClampI(int64_t(o.y) * rh / ph + y1, 0, h), ye = ClampI((int64_t(o.y + 1) * rh + ph - 1) / ph + y1, 0, h);
    const int64_t xs = ClampI(int64_t(o.x) * rw / pw + x1, 0, w), xe = ClampI((int64_t(o.x + 1) * rw + pw - 1) / pw + x1, 0, w);
    if (ys >= ye || xs >= xe) return 0.0f;
    const int64_t base = batch * p.in[0] + int64_t(o.channel) * p.in[1];
    float best = read(base + ys * p.in[2] + xs * p.in[3]);
    for (int64_t y = ys; y < ye; ++y) {
        for (int64_t x = xs; x < xe; ++x) {
            const float v = read(base + y * p.in[2] + x * p.in[3]);
            if (v > best || v != v) best = v;
        }
    }
    return best;
}

}  // namespace freedml::dml::region

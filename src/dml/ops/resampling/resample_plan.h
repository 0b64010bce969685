// The one description of resampling that UPSAMPLE_2D, RESAMPLE, RESAMPLE1, RESAMPLE2, RESAMPLE3 and
// the gradients share, read by the CPU kernels and the CUDA device code (which never sees
// DirectML.h, so nothing here includes it). Per dimension it holds the coordinate mapping the
// reference pages give,
//
//     OutputX = (InputX + InputPixelOffset) * Scale + OutputPixelOffset,
//     so InputX = (OutputX - OutputPixelOffset) / Scale - InputPixelOffset,
//
// computed in float as DirectML's FLOAT fields are. ForEachTap turns one output coordinate into
// the input elements it reads and their weights: nearest neighbour (halves rounded up, or down for
// RoundingDirection DECREASING), linear (the two neighbours of the clamped coordinate) or, for an
// antialiased linear downscale, a triangle filter widened by 1/Scale, its taps clamped to the edges.
// An output element is the product of its dimensions' taps.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define FREEDML_RESAMPLE_HD __host__ __device__
#else
#define FREEDML_RESAMPLE_HD
#endif

namespace freedml::dml {

constexpr uint32_t kResampleMaxDims = 8;

struct ResampleDim {
    uint32_t inSize = 1, outSize = 1;
    float scale = 1, inOffset = 0.5f, outOffset = -0.5f;
    int64_t inStride = 0, outStride = 0;  // elements
};

struct ResamplePlan {
    uint32_t rank = 0;
    bool linear = false;
    bool roundDown = false;  // nearest neighbour: halves go to the lower index
    bool antialias = false;  // linear only, in dimensions with Scale < 1
    ResampleDim dims[kResampleMaxDims];
    uint64_t outCount = 0;
};

FREEDML_RESAMPLE_HD inline float SourceCoordinate(const ResampleDim& d, uint32_t o) {
    return (float(o) - d.outOffset) / d.scale - d.inOffset;
}

// Calls f(inputIndex, weight) for each input element output coordinate `o` of dimension `d` reads.
template <class F>
FREEDML_RESAMPLE_HD inline void ForEachTap(const ResamplePlan& p, const ResampleDim& d, uint32_t o, F&& f) {
    const float x = SourceCoordinate(d, o);
    const int64_t last = int64_t(d.inSize) - 1;
    auto clampIndex = [last](float v) -> int64_t {
        if (!(v > 0)) return 0;  // NaN too
        return v >= float(last) ? last : int64_t(v);
    };
    if (!p.linear) {
        const float r = p.roundDown ? ceilf(x - 0.5f) : floorf(x + 0.5f);
        f(clampIndex(r), 1.0f);
        return;
    }
    if (p.antialias && d.scale < 1) {
        // Normalized over the whole window; taps beyond an edge read the edge element (as ONNX
        // Resize's antialiasing does with exclude_outside 0, the case DirectML has no field for).
        const float support = 1.0f / d.scale;
        const int64_t lo = int64_t(ceilf(x - support)), hi = int64_t(floorf(x + support));
        float sum = 0;
        for (int64_t i = lo; i <= hi; ++i) sum += fmaxf(0.0f, 1.0f - fabsf((float(i) - x) * d.scale));
        if (sum > 0) {
            for (int64_t i = lo; i <= hi; ++i) {
                const float w = fmaxf(0.0f, 1.0f - fabsf((float(i) - x) * d.scale));
                if (w > 0) f(i < 0 ? 0 : (i > last ? last : i), w / sum);
            }
            return;
        }
        f(clampIndex(x), 1.0f);  // a degenerate window (NaN coordinate)
        return;
    }
    const float c = x < 0 ? 0.0f : (x > float(last) ? float(last) : x);
    const int64_t i0 = int64_t(floorf(c));
    const float w1 = c - float(i0);
    if (w1 > 0 && i0 < last) {
        f(i0, 1.0f - w1);
        f(i0 + 1, w1);
    } else {
        f(i0, 1.0f);
    }
}

}  // namespace freedml::dml

namespace freedml::dml {

// The taps of every dimension laid out flat, for the kernel that sums them (forward: the output
// reads the input; gradient: the input gradient gathers from the output gradient, the same taps
// transposed, so it needs no atomics and is deterministic). For destination coordinate c of
// dimension d, its taps are entries [starts[startBase[d] + c], starts[startBase[d] + c + 1]) of
// `offsets` (source element offsets, stride applied) and `weights`.
struct TapTables {
    uint32_t rank = 0;
    uint32_t sizes[kResampleMaxDims] = {};        // destination sizes
    int64_t dstStrides[kResampleMaxDims] = {};    // elements
    uint32_t startBase[kResampleMaxDims] = {};
    uint64_t count = 0;                           // destination elements
    const uint32_t* starts = nullptr;
    const int64_t* offsets = nullptr;
    const float* weights = nullptr;
};

}  // namespace freedml::dml

namespace freedml::dml {

// Destination element `i` (row-major over the tables' sizes): its offset and the weighted sum of
// the source elements `load(offset)` its taps name, in float.
template <class Load>
FREEDML_RESAMPLE_HD inline float SumTaps(const TapTables& t, uint64_t i, int64_t* dstOffset, Load&& load) {
    uint32_t k[kResampleMaxDims], begin[kResampleMaxDims], end[kResampleMaxDims];
    int64_t offset = 0;
    bool empty = false;
    for (int d = int(t.rank) - 1; d >= 0; --d) {
        const uint32_t c = uint32_t(i % t.sizes[d]);
        i /= t.sizes[d];
        offset += int64_t(c) * t.dstStrides[d];
        begin[d] = k[d] = t.starts[t.startBase[d] + c];
        end[d] = t.starts[t.startBase[d] + c + 1];
        empty |= begin[d] == end[d];
    }
    *dstOffset = offset;
    if (empty) return 0.0f;
    float acc = 0;
    for (;;) {
        float w = 1;
        int64_t src = 0;
        for (uint32_t d = 0; d < t.rank; ++d) {
            w *= t.weights[k[d]];
            src += t.offsets[k[d]];
        }
        acc += w * load(src);
        int d = int(t.rank) - 1;
        for (; d >= 0; --d) {
            if (++k[d] < end[d]) break;
            k[d] = begin[d];
        }
        if (d < 0) break;
    }
    return acc;
}

}  // namespace freedml::dml

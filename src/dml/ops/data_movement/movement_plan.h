// Plain descriptions of the data movement operators that are not a cut along one axis, shared by
// the decode (movement_params.cpp), the CPU kernels and the CUDA device code (which never sees
// DirectML.h, so nothing here includes it). Two shapes of work cover SLICE, SLICE1, PADDING,
// PADDING1, TILE and the space/depth operators:
//  - MovementCopy: the output is a strided view of the input (a slice, a permutation of blocks);
//    one strided copy does it.
//  - IndexMap: each output coordinate maps, dimension by dimension, to an input coordinate or to a
//    constant (padding, tiling).
//  - GatherMap: each output element reads a tuple of indices from the indices tensor, which pick
//    the input coordinates of some dimensions; the others pass through (the GATHER operators).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FREEDML_MOVEMENT_HD __host__ __device__
#else
#define FREEDML_MOVEMENT_HD
#endif

namespace freedml::dml {

constexpr uint32_t kMovementMaxDims = 8;

// output[c] = input[inOffset + sum_d c[d] * inStrides[d]] for every c over `sizes`, the output
// element being sum_d c[d] * outStrides[d]. Strides and the offset are in elements; input strides
// may be negative (SLICE1 reading backwards).
struct MovementCopy {
    uint32_t rank = 0;
    uint32_t sizes[kMovementMaxDims] = {};
    int64_t inStrides[kMovementMaxDims] = {};
    int64_t outStrides[kMovementMaxDims] = {};
    int64_t inOffset = 0;
};

// How an output coordinate outside the input's range along a dimension is mapped back into it.
enum class MapMode : uint8_t {
    Constant,   // not mapped: the element is the constant
    Edge,       // the nearest edge element
    Reflect,    // mirrored about the edge element (which is not repeated), periodically
    Symmetric,  // mirrored about the edge (the edge element repeats), periodically
    Wrap,       // periodic: TILE, and PADDING's WRAP
};

// output[c] = input[m(c)] where m maps each dimension on its own: input coordinate
// Map(mode, c[d] - start[d], inSizes[d]), or the constant where a dimension maps to -1.
struct IndexMap {
    uint32_t rank = 0;
    MapMode mode = MapMode::Constant;
    uint64_t count = 0;                            // output elements
    uint64_t constantBits = 0;                     // the constant's element bits (low bytes)
    uint32_t outSizes[kMovementMaxDims] = {};
    int64_t outStrides[kMovementMaxDims] = {};     // elements
    int64_t inSizes[kMovementMaxDims] = {};
    int64_t inStrides[kMovementMaxDims] = {};      // elements
    int64_t start[kMovementMaxDims] = {};          // output coordinate of input coordinate 0
};

// The input coordinate that input-relative coordinate `i` (output coordinate minus start) reads
// along a dimension of `n` elements, or -1 for the constant.
FREEDML_MOVEMENT_HD inline int64_t MapCoordinate(MapMode mode, int64_t i, int64_t n) {
    if (i >= 0 && i < n) return i;
    switch (mode) {
        case MapMode::Constant:
            return -1;
        case MapMode::Edge:
            return i < 0 ? 0 : n - 1;
        case MapMode::Reflect: {
            if (n == 1) return 0;
            const int64_t period = 2 * (n - 1);
            const int64_t m = ((i % period) + period) % period;
            return m < n ? m : period - m;
        }
        case MapMode::Symmetric: {
            const int64_t period = 2 * n;
            const int64_t m = ((i % period) + period) % period;
            return m < n ? m : period - 1 - m;
        }
        case MapMode::Wrap:
            return ((i % n) + n) % n;
    }
    return -1;
}

// The GATHER operators. For output coordinate c (over outSizes, right-aligned as DirectML lays the
// output out): the index tuple starts at indices element sum_d c[d] * idxStrides[d], component k at
// + k * tupleStride; component k picks the coordinate of an input dimension of componentSizes[k]
// elements and stride componentStrides[k]; the other input dimensions follow c through inStrides.
// All strides in elements.
struct GatherMap {
    uint32_t rank = 0;
    uint64_t count = 0;  // output elements
    uint32_t outSizes[kMovementMaxDims] = {};
    int64_t outStrides[kMovementMaxDims] = {};
    int64_t inStrides[kMovementMaxDims] = {};
    int64_t idxStrides[kMovementMaxDims] = {};
    uint32_t tupleSize = 1;
    int64_t tupleStride = 0;
    int64_t componentSizes[kMovementMaxDims] = {};
    int64_t componentStrides[kMovementMaxDims] = {};
};

// Index value `v` along a dimension of `n` elements: a negative index counts from the end (the
// pages: from feature level 3.0, with signed index types). An index still outside [0, n) gives no
// defined result in DirectML, which only promises reads inside the input; FreeDML clamps it.
FREEDML_MOVEMENT_HD inline int64_t ClampIndex(int64_t v, int64_t n) {
    if (v < 0) v += n;
    return v < 0 ? 0 : (v >= n ? n - 1 : v);
}
FREEDML_MOVEMENT_HD inline int64_t ClampIndex(uint64_t v, int64_t n) {
    return v >= uint64_t(n) ? n - 1 : int64_t(v);
}
// An index of the IndicesTensor's type I (INT32, INT64, UINT32, UINT64).
template <class I>
FREEDML_MOVEMENT_HD inline int64_t ClampIndexOf(I v, int64_t n) {
    if constexpr (I(-1) < I(0)) {
        return ClampIndex(int64_t(v), n);
    } else {
        return ClampIndex(uint64_t(v), n);
    }
}

// The scatter operators (SCATTER_ELEMENTS, SCATTER_ND) write through the same map as the GATHER
// operators with the roles of the tensors exchanged: the map walks UpdatesTensor (outSizes,
// outStrides are the updates') and the index tuples pick coordinates of OutputTensor (inStrides and
// componentStrides are the output's). The output first receives a copy of InputTensor (`copy`).
struct ScatterPlan {
    MovementCopy copy;  // InputTensor into OutputTensor, element for element
    GatherMap map;
};

// SLICE_GRAD: `zero` fills OutputGradientTensor with zeros (an IndexMap whose every coordinate is
// the constant), then `copy` writes InputGradientTensor into the window: its `in` side is the
// input gradient, its `out` side the output gradient's window, which starts `outOffset` elements
// into the output gradient and may walk it backwards (negative strides).
struct SliceGradPlan {
    IndexMap zero;
    MovementCopy copy;
    int64_t outOffset = 0;
};

// REVERSE_SUBSEQUENCES: output coordinate c reads the input at c, except along `axis`, where the
// first `length` elements are read in reverse; length is the SequenceLengthsTensor element at c
// (its axis dimension has one element: lenStrides[axis] is 0), clamped to the axis size as the
// page says.
struct ReverseMap {
    uint32_t rank = 0;
    uint32_t axis = 0;
    uint64_t count = 0;  // output elements
    uint32_t sizes[kMovementMaxDims] = {};
    int64_t inStrides[kMovementMaxDims] = {};
    int64_t outStrides[kMovementMaxDims] = {};
    int64_t lenStrides[kMovementMaxDims] = {};
};

// The input coordinate along the axis for output coordinate `i` of a subsequence of `length`
// elements (of an axis of `n`).
FREEDML_MOVEMENT_HD inline int64_t ReversedCoordinate(int64_t i, uint64_t length, int64_t n) {
    const int64_t len = length > uint64_t(n) ? n : int64_t(length);
    return i < len ? len - 1 - i : i;
}

// FOLD and UNFOLD: an image {N, C, spatial...} and its columns {N, C * P, L}, P the elements of a
// window (WindowSizes multiplied), L the window positions (blocks). Column element (n, c * P + w, l)
// is image element (n, c, x) with x[d] = b[d] * strides[d] + w[d] * dilations[d] - startPadding[d],
// w and l split row-major into per-dimension w[d] and b[d]; x outside the image is zero padding.
// UNFOLD walks the columns (`count` column elements) and reads the image; FOLD walks the image
// (`count` image elements) and sums every column element that lands on it, a gather per output
// element so that no two threads write one element.
constexpr uint32_t kWindowMaxDims = 6;
struct WindowMap {
    uint32_t spatial = 0;  // DimensionCount
    uint32_t batch = 0, channels = 0;
    uint64_t count = 0;
    uint64_t windowCount = 0, blockCount = 0;  // P, L
    uint32_t imageSizes[kWindowMaxDims] = {};
    int64_t imageStrides[kWindowMaxDims + 2] = {};  // N, C, spatial...
    int64_t columnStrides[3] = {};                  // N, C * P, L
    uint32_t window[kWindowMaxDims] = {}, strides[kWindowMaxDims] = {}, dilations[kWindowMaxDims] = {};
    uint32_t startPadding[kWindowMaxDims] = {}, blocks[kWindowMaxDims] = {};
};

// FOLD's element types (its sums need the type, not only the size).
enum class FoldType : uint8_t { F64, F32, F16, I64, I32, U64, U32, I16, I8, U16, U8 };

// UNFOLD's column element i: the offsets of the column and of the image element (or -1 in the
// padding).
FREEDML_MOVEMENT_HD inline void UnfoldOffsets(const WindowMap& m, uint64_t i, int64_t* column, int64_t* image) {
    const uint64_t l = i % m.blockCount;
    const uint64_t k = (i / m.blockCount) % (uint64_t(m.channels) * m.windowCount);
    const uint64_t n = i / (m.blockCount * m.channels * m.windowCount);
    *column = int64_t(n) * m.columnStrides[0] + int64_t(k) * m.columnStrides[1] + int64_t(l) * m.columnStrides[2];
    uint64_t w = k % m.windowCount, b = l;
    int64_t offset = int64_t(n) * m.imageStrides[0] + int64_t(k / m.windowCount) * m.imageStrides[1];
    bool inside = true;
    for (int d = int(m.spatial) - 1; d >= 0; --d) {
        const int64_t wd = int64_t(w % m.window[d]), bd = int64_t(b % m.blocks[d]);
        w /= m.window[d];
        b /= m.blocks[d];
        const int64_t x = bd * m.strides[d] + wd * m.dilations[d] - int64_t(m.startPadding[d]);
        inside &= x >= 0 && x < int64_t(m.imageSizes[d]);
        offset += x * m.imageStrides[d + 2];
    }
    *image = inside ? offset : -1;
}

// FOLD's image element i: calls add(column offset) for every column element that lands on it, in
// window order; returns the image element's offset.
template <class Add>
FREEDML_MOVEMENT_HD inline int64_t FoldGather(const WindowMap& m, uint64_t i, Add&& add) {
    int64_t x[kWindowMaxDims];
    uint64_t rest = i;
    int64_t image = 0;
    for (int d = int(m.spatial) - 1; d >= 0; --d) {
        x[d] = int64_t(rest % m.imageSizes[d]);
        rest /= m.imageSizes[d];
        image += x[d] * m.imageStrides[d + 2];
    }
    const uint64_t c = rest % m.channels, n = rest / m.channels;
    image += int64_t(c) * m.imageStrides[1] + int64_t(n) * m.imageStrides[0];
    const int64_t base = int64_t(n) * m.columnStrides[0] + int64_t(c * m.windowCount) * m.columnStrides[1];
    for (uint64_t w = 0; w < m.windowCount; ++w) {
        uint64_t rw = w;
        int64_t wd[kWindowMaxDims];
        for (int d = int(m.spatial) - 1; d >= 0; --d) {
            wd[d] = int64_t(rw % m.window[d]);
            rw /= m.window[d];
        }
        int64_t l = 0;
        bool hit = true;
        for (uint32_t d = 0; d < m.spatial && hit; ++d) {
            const int64_t t = x[d] + int64_t(m.startPadding[d]) - wd[d] * m.dilations[d];
            hit = t >= 0 && t % m.strides[d] == 0 && t / m.strides[d] < int64_t(m.blocks[d]);
            l = l * m.blocks[d] + (hit ? t / m.strides[d] : 0);
        }
        if (hit) add(base + int64_t(w) * m.columnStrides[1] + l * m.columnStrides[2]);
    }
    return image;
}

// A scatter index: negative values count from the end as for the GATHER operators, but an index
// still outside [0, n) gives -1 and its update is skipped. DirectML leaves such an index undefined;
// skipping it writes nothing outside the output and leaves the output's valid elements alone.
template <class I>
FREEDML_MOVEMENT_HD inline int64_t ScatterIndexOf(I v, int64_t n) {
    int64_t i;
    if constexpr (I(-1) < I(0)) {
        i = int64_t(v);
        if (i < 0) i += n;
    } else {
        i = uint64_t(v) >= uint64_t(n) ? -1 : int64_t(v);
    }
    return i < 0 || i >= n ? -1 : i;
}

}  // namespace freedml::dml

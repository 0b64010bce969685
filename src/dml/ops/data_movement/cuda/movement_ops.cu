// Device code of the data movement index map (PADDING, PADDING1, TILE, SLICE_GRAD's zeros) and
// of the GATHER and SCATTER operators: one thread per output
// element in a grid-stride loop, the input coordinate found dimension by dimension by
// MapCoordinate, the same function the CPU kernel builds its tables with. Where the innermost
// dimension is packed on both sides, the index map and the gather run by rows instead (a block per
// row segment, the outer coordinates found once per segment; the gather, and the constant-mode map
// where its row geometry allows, move units of up to 16 bytes).
#include <cuda_fp16.h>

#include "dml/ops/data_movement/cuda/movement_launch.h"

namespace freedml::dml::cuda {

namespace {

constexpr int kMapThreads = 256;
// A block of a row kernel takes this many steps of its threads along a row segment.
constexpr int kRowSegmentSteps = 4;

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
uint64_t LowestBit(uint64_t v) { return v & (~v + 1); }

// The output and input offsets (in elements) of the coordinate that `index` enumerates over the
// map's first `dims` output dimensions, and whether any of them maps to the constant (then the
// input offset means nothing).
__device__ __forceinline__ bool MapOffsets(const IndexMap& map, int dims, uint64_t index, int64_t* inOffset,
                                           int64_t* outOffset) {
    int64_t in = 0, out = 0;
    bool isConstant = false;
    for (int d = dims - 1; d >= 0; --d) {
        const int64_t c = int64_t(index % map.outSizes[d]);
        index /= map.outSizes[d];
        out += c * map.outStrides[d];
        const int64_t source = MapCoordinate(map.mode, c - map.start[d], map.inSizes[d]);
        isConstant |= source < 0;
        in += source * map.inStrides[d];
    }
    *inOffset = in;
    *outOffset = out;
    return isConstant;
}

template <class T>
__global__ void __launch_bounds__(kMapThreads) IndexMapKernel(IndexMap map, T* out, const T* in) {
    T constant;
    memcpy(&constant, &map.constantBits, sizeof(T));  // little-endian: the low bytes
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < map.count; i += step) {
        int64_t inOffset, outOffset;
        const bool isConstant = MapOffsets(map, int(map.rank), i, &inOffset, &outOffset);
        out[outOffset] = isConstant ? constant : in[inOffset];
    }
}

template <class T>
cudaError_t LaunchTyped(const IndexMap& map, void* out, const void* in, LaunchTarget launch) {
    if (map.count == 0) return cudaSuccess;
    IndexMapKernel<T><<<launch.Blocks(map.count, kMapThreads), kMapThreads, 0, launch.stream>>>(
        map, static_cast<T*>(out), static_cast<const T*>(in));
    return cudaGetLastError();
}

// The row form of the index map, where the innermost dimension is packed on both sides: each
// block takes a segment of an output row, finds the outer coordinates (and whether the whole row
// is constant) once, and its threads read and write consecutive elements of the row.
template <class T>
__global__ void __launch_bounds__(kMapThreads) IndexMapRowsKernel(IndexMap map, uint64_t segments,
                                                                  uint64_t segmentsPerRow, T* out, const T* in) {
    T constant;
    memcpy(&constant, &map.constantBits, sizeof(T));
    const int last = int(map.rank) - 1;
    const int64_t width = map.outSizes[last];
    const int64_t inWidth = map.inSizes[last];
    const int64_t start = map.start[last];
    const int64_t segment = int64_t(kMapThreads) * kRowSegmentSteps;
    for (uint64_t s = blockIdx.x; s < segments; s += gridDim.x) {
        const int64_t begin = int64_t(s % segmentsPerRow) * segment;
        const int64_t end = begin + segment < width ? begin + segment : width;
        int64_t inOffset, outOffset;
        const bool isConstant = MapOffsets(map, last, s / segmentsPerRow, &inOffset, &outOffset);
        // All of a thread's reads before its writes, so that they are in flight together.
        T v[kRowSegmentSteps];
#pragma unroll
        for (int u = 0; u < kRowSegmentSteps; ++u) {
            const int64_t c = begin + threadIdx.x + int64_t(u) * blockDim.x;
            const int64_t source = MapCoordinate(map.mode, c - start, inWidth);
            v[u] = (c >= end || isConstant || source < 0) ? constant : in[inOffset + source];
        }
#pragma unroll
        for (int u = 0; u < kRowSegmentSteps; ++u) {
            const int64_t c = begin + threadIdx.x + int64_t(u) * blockDim.x;
            if (c < end) out[outOffset + c] = v[u];
        }
    }
}

// The constant-mode row map (PADDING's rows: constant, the copied input row, constant) in units of
// V, several elements of T, where every boundary and row start falls on a unit: a unit is either
// all constant or a copy of an input unit.
template <class V, class T>
__global__ void __launch_bounds__(kMapThreads) PadRowsKernel(IndexMap map, uint64_t segments, uint64_t segmentsPerRow,
                                                              V* out, const V* in) {
    constexpr int64_t k = int64_t(sizeof(V) / sizeof(T));
    T constant;
    memcpy(&constant, &map.constantBits, sizeof(T));
    V fill;
    for (int64_t e = 0; e < k; ++e) {
        memcpy(reinterpret_cast<unsigned char*>(&fill) + e * sizeof(T), &constant, sizeof(T));
    }
    const int last = int(map.rank) - 1;
    const int64_t width = map.outSizes[last] / k;
    const int64_t inWidth = map.inSizes[last] / k;
    const int64_t start = map.start[last] / k;
    const int64_t segment = int64_t(kMapThreads) * kRowSegmentSteps;
    for (uint64_t s = blockIdx.x; s < segments; s += gridDim.x) {
        const int64_t begin = int64_t(s % segmentsPerRow) * segment;
        const int64_t end = begin + segment < width ? begin + segment : width;
        int64_t inOffset, outOffset;
        const bool isConstant = MapOffsets(map, last, s / segmentsPerRow, &inOffset, &outOffset);
        outOffset /= k;  // exact: every stride that moves a row start is a multiple of k
        inOffset /= k;
        V v[kRowSegmentSteps];
#pragma unroll
        for (int u = 0; u < kRowSegmentSteps; ++u) {
            const int64_t c = begin + threadIdx.x + int64_t(u) * blockDim.x;
            const int64_t source = c - start;
            v[u] = (c >= end || isConstant || source < 0 || source >= inWidth) ? fill : in[inOffset + source];
        }
#pragma unroll
        for (int u = 0; u < kRowSegmentSteps; ++u) {
            const int64_t c = begin + threadIdx.x + int64_t(u) * blockDim.x;
            if (c < end) out[outOffset + c] = v[u];
        }
    }
}

// Rows of at least this many elements take the row kernel.
constexpr uint32_t kMinRowElements = 64;

bool IsRowMap(const IndexMap& map) {
    if (map.rank == 0) return false;
    const uint32_t last = map.rank - 1;
    return map.outSizes[last] >= kMinRowElements && map.outStrides[last] == 1 && map.inStrides[last] == 1;
}

uint64_t Magnitude(int64_t v) { return uint64_t(v < 0 ? -v : v); }

// The unit in bytes of PadRowsKernel for a constant-mode row map, up to 16: the largest power of
// two dividing the row lengths, the padding before the row, every stride that moves a row start
// and both pointers (an input pointer of null, SLICE_GRAD's zeros, allows any).
uint64_t PadRowUnit(const IndexMap& map, uint32_t elementBytes, const void* out, const void* in) {
    if (map.mode != MapMode::Constant) return elementBytes;
    const uint32_t last = map.rank - 1;
    uint64_t bits = 16 | uint64_t(map.outSizes[last]) * elementBytes | Magnitude(map.inSizes[last]) * elementBytes |
                    Magnitude(map.start[last]) * elementBytes | uint64_t(reinterpret_cast<uintptr_t>(out)) |
                    uint64_t(reinterpret_cast<uintptr_t>(in));
    for (uint32_t d = 0; d < last; ++d) {
        bits |= Magnitude(map.inStrides[d]) * elementBytes | Magnitude(map.outStrides[d]) * elementBytes;
    }
    return LowestBit(bits);
}

template <class V, class T>
cudaError_t LaunchPadRowsTyped(const IndexMap& map, void* out, const void* in, LaunchTarget launch) {
    if constexpr (sizeof(V) <= sizeof(T)) {
        return cudaErrorInvalidValue;  // unreachable: LaunchRowsTyped picks only units wider than T
    } else {
        const uint64_t width = map.outSizes[map.rank - 1] / (sizeof(V) / sizeof(T));
        const uint64_t perRow = CeilDiv(width, uint64_t(kMapThreads) * kRowSegmentSteps);
        const uint64_t segments = map.count / map.outSizes[map.rank - 1] * perRow;
        PadRowsKernel<V, T><<<launch.Blocks(segments * kMapThreads, kMapThreads), kMapThreads, 0, launch.stream>>>(
            map, segments, perRow, static_cast<V*>(out), static_cast<const V*>(in));
        return cudaGetLastError();
    }
}

template <class T>
cudaError_t LaunchRowsTyped(const IndexMap& map, void* out, const void* in, LaunchTarget launch) {
    const uint64_t unit = PadRowUnit(map, sizeof(T), out, in);
    if (unit > sizeof(T)) {
        switch (unit) {
            case 16: return LaunchPadRowsTyped<uint4, T>(map, out, in, launch);
            case 8: return LaunchPadRowsTyped<uint2, T>(map, out, in, launch);
            case 4: return LaunchPadRowsTyped<uint32_t, T>(map, out, in, launch);
            default: return LaunchPadRowsTyped<uint16_t, T>(map, out, in, launch);
        }
    }
    const uint64_t width = map.outSizes[map.rank - 1];
    const uint64_t perRow = CeilDiv(width, uint64_t(kMapThreads) * kRowSegmentSteps);
    const uint64_t segments = map.count / width * perRow;
    IndexMapRowsKernel<T><<<launch.Blocks(segments * kMapThreads, kMapThreads), kMapThreads, 0, launch.stream>>>(
        map, segments, perRow, static_cast<T*>(out), static_cast<const T*>(in));
    return cudaGetLastError();
}

// The GATHER of whole rows (an embedding lookup), and with no index tuple a strided copy of rows:
// the innermost dimension passes through packed on both sides, so each row is one contiguous copy,
// done in units of V (1 to 16 bytes, a width every row start and the row length allow); each block
// takes a segment of a row and finds its offsets once.
template <class V, class I>
__global__ void __launch_bounds__(kMapThreads) GatherRowsKernel(GatherMap map, uint64_t segments,
                                                                 uint64_t segmentsPerRow, uint32_t elementBytes,
                                                                 uint64_t rowUnits, unsigned char* out,
                                                                 const unsigned char* in, const I* indices) {
    const int last = int(map.rank) - 1;
    const uint64_t segment = uint64_t(blockDim.x) * kRowSegmentSteps;
    for (uint64_t s = blockIdx.x; s < segments; s += gridDim.x) {
        uint64_t rest = s / segmentsPerRow;
        const uint64_t begin = (s % segmentsPerRow) * segment;
        const uint64_t end = begin + segment < rowUnits ? begin + segment : rowUnits;
        int64_t inOffset = 0, idxOffset = 0, outOffset = 0;
        for (int d = last - 1; d >= 0; --d) {
            const int64_t c = int64_t(rest % map.outSizes[d]);
            rest /= map.outSizes[d];
            inOffset += c * map.inStrides[d];
            idxOffset += c * map.idxStrides[d];
            outOffset += c * map.outStrides[d];
        }
        for (uint32_t k = 0; k < map.tupleSize; ++k) {
            const I v = indices[idxOffset + int64_t(k) * map.tupleStride];
            inOffset += ClampIndexOf(v, map.componentSizes[k]) * map.componentStrides[k];
        }
        const V* src = reinterpret_cast<const V*>(in + inOffset * int64_t(elementBytes));
        V* dst = reinterpret_cast<V*>(out + outOffset * int64_t(elementBytes));
        // The segment is kRowSegmentSteps steps of the block: all of a thread's reads before its
        // writes, so that they are in flight together.
        V v[kRowSegmentSteps] = {};
#pragma unroll
        for (int u = 0; u < kRowSegmentSteps; ++u) {
            const uint64_t j = begin + threadIdx.x + uint64_t(u) * blockDim.x;
            if (j < end) v[u] = src[j];
        }
#pragma unroll
        for (int u = 0; u < kRowSegmentSteps; ++u) {
            const uint64_t j = begin + threadIdx.x + uint64_t(u) * blockDim.x;
            if (j < end) dst[j] = v[u];
        }
    }
}

// The copy unit of the row gather, or 0 where the map is not a packed-row gather: the largest
// power of two up to 16 dividing the row's byte length, every byte stride that moves a row start,
// and both pointers.
uint32_t GatherRowUnit(const GatherMap& map, uint32_t elementBytes, const void* out, const void* in) {
    if (map.count == 0 || !IsGatherRowMap(map, elementBytes)) return 0;
    const uint32_t last = map.rank - 1;
    const uint64_t rowBytes = uint64_t(map.outSizes[last]) * elementBytes;
    uint64_t bits = 16 | rowBytes | uint64_t(reinterpret_cast<uintptr_t>(out)) |
                    uint64_t(reinterpret_cast<uintptr_t>(in));
    for (uint32_t d = 0; d < last; ++d) {
        bits |= uint64_t(map.inStrides[d] < 0 ? -map.inStrides[d] : map.inStrides[d]) * elementBytes;
        bits |= uint64_t(map.outStrides[d] < 0 ? -map.outStrides[d] : map.outStrides[d]) * elementBytes;
    }
    for (uint32_t k = 0; k < map.tupleSize; ++k) {
        const int64_t s = map.componentStrides[k];
        bits |= uint64_t(s < 0 ? -s : s) * elementBytes;
    }
    return uint32_t(LowestBit(bits));
}

template <class V, class I>
cudaError_t LaunchGatherRowsTyped(const GatherMap& map, uint32_t elementBytes, uint32_t unit, void* out,
                                  const void* in, const void* indices, LaunchTarget launch) {
    const uint64_t width = map.outSizes[map.rank - 1];
    const uint64_t rowUnits = width * elementBytes / unit;
    // Enough threads that a row takes a few steps of the block, at least a warp.
    const int threads = rowUnits >= 1024 ? 256 : (rowUnits >= 512 ? 128 : (rowUnits >= 256 ? 64 : 32));
    const uint64_t perRow = CeilDiv(rowUnits, uint64_t(threads) * kRowSegmentSteps);
    const uint64_t segments = map.count / width * perRow;
    GatherRowsKernel<V, I><<<launch.Blocks(segments * uint64_t(threads), threads), threads, 0, launch.stream>>>(
        map, segments, perRow, elementBytes, rowUnits, static_cast<unsigned char*>(out),
        static_cast<const unsigned char*>(in), static_cast<const I*>(indices));
    return cudaGetLastError();
}

template <class I>
cudaError_t LaunchGatherRows(const GatherMap& map, uint32_t elementBytes, uint32_t unit, void* out, const void* in,
                             const void* indices, LaunchTarget launch) {
    switch (unit) {
        case 16: return LaunchGatherRowsTyped<uint4, I>(map, elementBytes, unit, out, in, indices, launch);
        case 8: return LaunchGatherRowsTyped<uint2, I>(map, elementBytes, unit, out, in, indices, launch);
        case 4: return LaunchGatherRowsTyped<uint32_t, I>(map, elementBytes, unit, out, in, indices, launch);
        case 2: return LaunchGatherRowsTyped<uint16_t, I>(map, elementBytes, unit, out, in, indices, launch);
        default: return LaunchGatherRowsTyped<uint8_t, I>(map, elementBytes, unit, out, in, indices, launch);
    }
}

template <class T, class I>
__global__ void __launch_bounds__(kMapThreads) GatherKernel(GatherMap map, T* out, const T* in, const I* indices) {
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < map.count; i += step) {
        uint64_t rest = i;
        int64_t inOffset = 0, idxOffset = 0, outOffset = 0;
        for (int d = int(map.rank) - 1; d >= 0; --d) {
            const int64_t c = int64_t(rest % map.outSizes[d]);
            rest /= map.outSizes[d];
            inOffset += c * map.inStrides[d];
            idxOffset += c * map.idxStrides[d];
            outOffset += c * map.outStrides[d];
        }
        for (uint32_t k = 0; k < map.tupleSize; ++k) {
            const I v = indices[idxOffset + int64_t(k) * map.tupleStride];
            inOffset += ClampIndexOf(v, map.componentSizes[k]) * map.componentStrides[k];
        }
        out[outOffset] = in[inOffset];
    }
}

// The scatter: one thread per update element; the map's output side is UpdatesTensor, its input
// side OutputTensor. Of duplicate indices (undefined in DirectML) any one update may win.
template <class T, class I>
__global__ void __launch_bounds__(kMapThreads) ScatterKernel(GatherMap map, T* out, const T* updates,
                                                             const I* indices) {
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < map.count; i += step) {
        uint64_t rest = i;
        int64_t outOffset = 0, idxOffset = 0, updOffset = 0;
        for (int d = int(map.rank) - 1; d >= 0; --d) {
            const int64_t c = int64_t(rest % map.outSizes[d]);
            rest /= map.outSizes[d];
            outOffset += c * map.inStrides[d];
            idxOffset += c * map.idxStrides[d];
            updOffset += c * map.outStrides[d];
        }
        bool skip = false;
        for (uint32_t k = 0; k < map.tupleSize; ++k) {
            const int64_t j = ScatterIndexOf(indices[idxOffset + int64_t(k) * map.tupleStride], map.componentSizes[k]);
            skip |= j < 0;
            outOffset += j * map.componentStrides[k];
        }
        if (!skip) out[outOffset] = updates[updOffset];
    }
}

template <class T, class I>
cudaError_t LaunchGatherTyped(const GatherMap& map, bool scatter, void* out, const void* in, const void* indices,
                              LaunchTarget launch) {
    if (map.count == 0) return cudaSuccess;
    if (scatter) {
        ScatterKernel<T, I><<<launch.Blocks(map.count, kMapThreads), kMapThreads, 0, launch.stream>>>(
            map, static_cast<T*>(out), static_cast<const T*>(in), static_cast<const I*>(indices));
    } else {
        GatherKernel<T, I><<<launch.Blocks(map.count, kMapThreads), kMapThreads, 0, launch.stream>>>(
            map, static_cast<T*>(out), static_cast<const T*>(in), static_cast<const I*>(indices));
    }
    return cudaGetLastError();
}

template <class I>
cudaError_t LaunchGatherIndexed(const GatherMap& map, bool scatter, uint32_t elementBytes, void* out, const void* in,
                                const void* indices, LaunchTarget launch) {
    if (!scatter) {
        const uint32_t unit = GatherRowUnit(map, elementBytes, out, in);
        if (unit != 0) return LaunchGatherRows<I>(map, elementBytes, unit, out, in, indices, launch);
    }
    switch (elementBytes) {
        case 1: return LaunchGatherTyped<uint8_t, I>(map, scatter, out, in, indices, launch);
        case 2: return LaunchGatherTyped<uint16_t, I>(map, scatter, out, in, indices, launch);
        case 4: return LaunchGatherTyped<uint32_t, I>(map, scatter, out, in, indices, launch);
        case 8: return LaunchGatherTyped<uint64_t, I>(map, scatter, out, in, indices, launch);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchGatherOrScatter(const GatherMap& map, bool scatter, uint32_t elementBytes, uint32_t indexBytes,
                                  bool indexSigned, void* out, const void* in, const void* indices,
                                  LaunchTarget launch) {
    if (indexBytes == 8) {
        return indexSigned ? LaunchGatherIndexed<int64_t>(map, scatter, elementBytes, out, in, indices, launch)
                           : LaunchGatherIndexed<uint64_t>(map, scatter, elementBytes, out, in, indices, launch);
    }
    return indexSigned ? LaunchGatherIndexed<int32_t>(map, scatter, elementBytes, out, in, indices, launch)
                       : LaunchGatherIndexed<uint32_t>(map, scatter, elementBytes, out, in, indices, launch);
}

template <class T, class L>
__global__ void __launch_bounds__(kMapThreads) ReverseKernel(ReverseMap map, T* out, const T* in, const L* lengths) {
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < map.count; i += step) {
        uint64_t rest = i;
        int64_t inOffset = 0, outOffset = 0, lenOffset = 0, along = 0;
        for (int d = int(map.rank) - 1; d >= 0; --d) {
            const int64_t c = int64_t(rest % map.sizes[d]);
            rest /= map.sizes[d];
            if (uint32_t(d) == map.axis) {
                along = c;
            } else {
                inOffset += c * map.inStrides[d];
            }
            outOffset += c * map.outStrides[d];
            lenOffset += c * map.lenStrides[d];
        }
        inOffset += ReversedCoordinate(along, uint64_t(lengths[lenOffset]), map.sizes[map.axis]) *
                    map.inStrides[map.axis];
        out[outOffset] = in[inOffset];
    }
}

template <class T>
cudaError_t LaunchReverseTyped(const ReverseMap& map, bool wideLengths, void* out, const void* in,
                               const void* lengths, LaunchTarget launch) {
    if (map.count == 0) return cudaSuccess;
    if (wideLengths) {
        ReverseKernel<T, uint64_t><<<launch.Blocks(map.count, kMapThreads), kMapThreads, 0, launch.stream>>>(
            map, static_cast<T*>(out), static_cast<const T*>(in), static_cast<const uint64_t*>(lengths));
    } else {
        ReverseKernel<T, uint32_t><<<launch.Blocks(map.count, kMapThreads), kMapThreads, 0, launch.stream>>>(
            map, static_cast<T*>(out), static_cast<const T*>(in), static_cast<const uint32_t*>(lengths));
    }
    return cudaGetLastError();
}

template <class T>
__global__ void __launch_bounds__(kMapThreads) UnfoldKernel(WindowMap map, T* out, const T* in) {
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < map.count; i += step) {
        int64_t column, image;
        UnfoldOffsets(map, i, &column, &image);
        out[column] = image >= 0 ? in[image] : T(0);
    }
}

template <class T>
cudaError_t LaunchUnfoldTyped(const WindowMap& map, void* out, const void* in, LaunchTarget launch) {
    if (map.count == 0) return cudaSuccess;
    UnfoldKernel<T><<<launch.Blocks(map.count, kMapThreads), kMapThreads, 0, launch.stream>>>(
        map, static_cast<T*>(out), static_cast<const T*>(in));
    return cudaGetLastError();
}

template <class T> struct FoldAcc { using type = T; };
template <> struct FoldAcc<__half> { using type = float; };
// 8- and 16-bit sums in unsigned 32-bit arithmetic, kept modulo the type (as the CPU).
template <>
struct FoldAcc<int16_t> {
    using type = uint32_t;
};
template <>
struct FoldAcc<int8_t> {
    using type = uint32_t;
};
template <>
struct FoldAcc<uint16_t> {
    using type = uint32_t;
};
template <>
struct FoldAcc<uint8_t> {
    using type = uint32_t;
};

// One thread per image element, summing in window order: no atomics, the same result every run.
template <class T>
__global__ void __launch_bounds__(kMapThreads) FoldKernel(WindowMap map, T* out, const T* in) {
    using Acc = typename FoldAcc<T>::type;
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < map.count; i += step) {
        Acc sum = Acc(0);
        const int64_t image = FoldGather(map, i, [&](int64_t column) { sum += Acc(in[column]); });
        out[image] = T(sum);
    }
}

template <class T>
cudaError_t LaunchFoldTyped(const WindowMap& map, void* out, const void* in, LaunchTarget launch) {
    if (map.count == 0) return cudaSuccess;
    FoldKernel<T><<<launch.Blocks(map.count, kMapThreads), kMapThreads, 0, launch.stream>>>(
        map, static_cast<T*>(out), static_cast<const T*>(in));
    return cudaGetLastError();
}

}  // namespace

bool IsGatherRowMap(const GatherMap& map, uint32_t elementBytes) {
    if (map.rank == 0) return false;
    const uint32_t last = map.rank - 1;
    return map.idxStrides[last] == 0 && map.inStrides[last] == 1 && map.outStrides[last] == 1 &&
           uint64_t(map.outSizes[last]) * elementBytes >= 32;
}

cudaError_t LaunchUnfold(const WindowMap& map, uint32_t elementBytes, void* out, const void* in, LaunchTarget launch) {
    switch (elementBytes) {
        case 1: return LaunchUnfoldTyped<uint8_t>(map, out, in, launch);
        case 2: return LaunchUnfoldTyped<uint16_t>(map, out, in, launch);
        case 4: return LaunchUnfoldTyped<uint32_t>(map, out, in, launch);
        case 8: return LaunchUnfoldTyped<uint64_t>(map, out, in, launch);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchFold(const WindowMap& map, FoldType type, void* out, const void* in, LaunchTarget launch) {
    switch (type) {
        case FoldType::F64: return LaunchFoldTyped<double>(map, out, in, launch);
        case FoldType::F32: return LaunchFoldTyped<float>(map, out, in, launch);
        case FoldType::F16: return LaunchFoldTyped<__half>(map, out, in, launch);
        case FoldType::I64: return LaunchFoldTyped<int64_t>(map, out, in, launch);
        case FoldType::I32: return LaunchFoldTyped<int32_t>(map, out, in, launch);
        case FoldType::U64: return LaunchFoldTyped<uint64_t>(map, out, in, launch);
        case FoldType::U32: return LaunchFoldTyped<uint32_t>(map, out, in, launch);
        case FoldType::I16:
            return LaunchFoldTyped<int16_t>(map, out, in, launch);
        case FoldType::I8:
            return LaunchFoldTyped<int8_t>(map, out, in, launch);
        case FoldType::U16:
            return LaunchFoldTyped<uint16_t>(map, out, in, launch);
        case FoldType::U8:
            return LaunchFoldTyped<uint8_t>(map, out, in, launch);
    }
    return cudaErrorInvalidValue;
}

cudaError_t LaunchReverse(const ReverseMap& map, uint32_t elementBytes, bool wideLengths, void* out, const void* in,
                          const void* lengths, LaunchTarget launch) {
    switch (elementBytes) {
        case 1: return LaunchReverseTyped<uint8_t>(map, wideLengths, out, in, lengths, launch);
        case 2: return LaunchReverseTyped<uint16_t>(map, wideLengths, out, in, lengths, launch);
        case 4: return LaunchReverseTyped<uint32_t>(map, wideLengths, out, in, lengths, launch);
        case 8: return LaunchReverseTyped<uint64_t>(map, wideLengths, out, in, lengths, launch);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchGather(const GatherMap& map, uint32_t elementBytes, uint32_t indexBytes, bool indexSigned, void* out,
                         const void* in, const void* indices, LaunchTarget launch) {
    return LaunchGatherOrScatter(map, false, elementBytes, indexBytes, indexSigned, out, in, indices, launch);
}

cudaError_t LaunchScatter(const GatherMap& map, uint32_t elementBytes, uint32_t indexBytes, bool indexSigned,
                          void* out, const void* updates, const void* indices, LaunchTarget launch) {
    return LaunchGatherOrScatter(map, true, elementBytes, indexBytes, indexSigned, out, updates, indices, launch);
}

cudaError_t LaunchIndexMap(const IndexMap& map, uint32_t elementBytes, void* out, const void* in, LaunchTarget launch) {
    if (map.count != 0 && IsRowMap(map)) {
        switch (elementBytes) {
            case 1: return LaunchRowsTyped<uint8_t>(map, out, in, launch);
            case 2: return LaunchRowsTyped<uint16_t>(map, out, in, launch);
            case 4: return LaunchRowsTyped<uint32_t>(map, out, in, launch);
            case 8: return LaunchRowsTyped<uint64_t>(map, out, in, launch);
            default: return cudaErrorInvalidValue;
        }
    }
    switch (elementBytes) {
        case 1: return LaunchTyped<uint8_t>(map, out, in, launch);
        case 2: return LaunchTyped<uint16_t>(map, out, in, launch);
        case 4: return LaunchTyped<uint32_t>(map, out, in, launch);
        case 8: return LaunchTyped<uint64_t>(map, out, in, launch);
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace freedml::dml::cuda

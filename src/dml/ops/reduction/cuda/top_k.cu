// Device code of TOP_K and TOP_K1. Elements of at most 32 bits take the sorting path: each element
// becomes one 64-bit key (its line, its value mapped to bits that order as the chosen direction,
// its index), one radix sort of all keys puts every line's elements in order, and a last kernel
// writes each line's first K. The key holds the index, so ties keep the lower index first whatever
// the sort's stability, and the values written are read back from the input (bit for bit).
// 64-bit elements, and keys that would need more than 64 bits, take the counting path: one thread
// per element finds its place by counting the elements that go before it (length^2 comparisons
// per line, exact and simple).
#include <cstdint>
#include <type_traits>

#include <cub/device/device_radix_sort.cuh>

#include "dml/kernels/cuda/elementwise.cuh"
#include "dml/ops/reduction/cuda/reduction_plan.h"

namespace freedml::dml::cuda {

namespace {

constexpr int kBlockThreads = 256;

template <class V>
__device__ __forceinline__ bool Before(bool largest, V a, uint32_t ai, V b, uint32_t bi) {
    if constexpr (std::is_floating_point_v<V>) {
        const bool an = a != a, bn = b != b;
        if (an || bn) {
            if (an != bn) return largest ? an : bn;
            return ai < bi;
        }
    }
    if (a != b) return largest ? a > b : a < b;
    return ai < bi;
}

template <class T>
__global__ void __launch_bounds__(kBlockThreads) TopKPlaces(TopKPlan plan, T* values, void* indices, const T* in) {
    const uint64_t total = plan.lines.count * plan.length;
    const uint64_t step = uint64_t(gridDim.x) * kBlockThreads;
    for (uint64_t t = uint64_t(blockIdx.x) * kBlockThreads + threadIdx.x; t < total; t += step) {
        const uint64_t line = t / plan.length;
        const uint32_t i = uint32_t(t % plan.length);
        int64_t o[3];
        Offsets(plan.lines, line, o);
        const T* x = in + o[2];
        const auto v = LoadAs(x + int64_t(i) * plan.inStride);
        uint32_t place = 0;
        for (uint32_t j = 0; j < plan.length && place < plan.k; ++j) {
            if (j != i && Before(plan.largest, LoadAs(x + int64_t(j) * plan.inStride), j, v, i)) ++place;
        }
        if (place >= plan.k) continue;
        values[o[0] + int64_t(place) * plan.valueStride] = x[int64_t(i) * plan.inStride];
        if (plan.index64) {
            static_cast<uint64_t*>(indices)[o[1] + int64_t(place) * plan.indexStride] = i;
        } else {
            static_cast<uint32_t*>(indices)[o[1] + int64_t(place) * plan.indexStride] = i;
        }
    }
}

// The element's bits mapped so that unsigned order is increasing value order, with every NaN one
// key above +infinity and -0 the key of +0 (the order Before defines).
__device__ __forceinline__ uint32_t OrderBits(float v) {
    uint32_t u = __float_as_uint(v);
    if (v != v) u = 0x7FC00000u;
    if (u == 0x80000000u) u = 0;
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
__device__ __forceinline__ uint32_t OrderBits(__half v) {
    uint32_t u = __half_as_ushort(v);
    if ((u & 0x7FFFu) > 0x7C00u) u = 0x7E00u;
    if (u == 0x8000u) u = 0;
    return (u & 0x8000u) ? (~u & 0xFFFFu) : (u | 0x8000u);
}
template <class T>
__device__ __forceinline__ uint32_t OrderBits(T v) {
    using U = std::make_unsigned_t<T>;
    const uint32_t u = uint32_t(U(v));
    if constexpr (std::is_signed_v<T>) return u ^ (uint32_t(1) << (8 * sizeof(T) - 1));
    return u;
}

template <class T>
__global__ void __launch_bounds__(kBlockThreads) TopKKeys(TopKPlan plan, uint64_t* keys, const T* in) {
    const uint64_t total = plan.lines.count * plan.length;
    const uint64_t step = uint64_t(gridDim.x) * kBlockThreads;
    const uint32_t valueBits = 8 * sizeof(T);
    const uint32_t valueMask = valueBits == 32 ? 0xFFFFFFFFu : (uint32_t(1) << valueBits) - 1;
    for (uint64_t t = uint64_t(blockIdx.x) * kBlockThreads + threadIdx.x; t < total; t += step) {
        const uint64_t line = t / plan.length;
        const uint32_t i = uint32_t(t % plan.length);
        int64_t o[3];
        Offsets(plan.lines, line, o);
        uint32_t bits = OrderBits(in[o[2] + int64_t(i) * plan.inStride]);
        if (plan.largest) bits = ~bits & valueMask;
        uint64_t key = (uint64_t(bits) << plan.indexBits) | i;
        if (plan.lineBits != 0) key |= line << (valueBits + plan.indexBits);
        keys[t] = key;
    }
}

template <class T>
__global__ void __launch_bounds__(kBlockThreads) TopKWrite(TopKPlan plan, T* values, void* indices, const T* in,
                                                           const uint64_t* sorted) {
    const uint64_t total = plan.lines.count * plan.k;
    const uint64_t step = uint64_t(gridDim.x) * kBlockThreads;
    const uint64_t indexMask = (uint64_t(1) << plan.indexBits) - 1;
    for (uint64_t t = uint64_t(blockIdx.x) * kBlockThreads + threadIdx.x; t < total; t += step) {
        const uint64_t line = t / plan.k;
        const uint32_t place = uint32_t(t % plan.k);
        const uint32_t i = uint32_t(sorted[line * plan.length + place] & indexMask);
        int64_t o[3];
        Offsets(plan.lines, line, o);
        values[o[0] + int64_t(place) * plan.valueStride] = in[o[2] + int64_t(i) * plan.inStride];
        if (plan.index64) {
            static_cast<uint64_t*>(indices)[o[1] + int64_t(place) * plan.indexStride] = i;
        } else {
            static_cast<uint32_t*>(indices)[o[1] + int64_t(place) * plan.indexStride] = i;
        }
    }
}

uint32_t BitsFor(uint64_t count) {  // bits that hold 0 .. count - 1
    uint32_t bits = 0;
    while (bits < 64 && (uint64_t(1) << bits) < count) ++bits;
    return bits;
}

uint32_t ValueBits(ElementType type) {  // 0: no sorting path
    switch (type) {
        case ElementType::F32: case ElementType::I32: case ElementType::U32: return 32;
        case ElementType::F16: case ElementType::I16: case ElementType::U16: return 16;
        case ElementType::I8: case ElementType::U8: return 8;
        default: return 0;
    }
}

uint64_t AlignUp(uint64_t n) { return (n + 255) & ~uint64_t(255); }

cudaError_t SortKeys(const TopKPlan& plan, void* storage, size_t* storageBytes, uint64_t* keys0, uint64_t* keys1,
                     uint64_t** sorted, cudaStream_t stream) {
    cub::DoubleBuffer<uint64_t> keys(keys0, keys1);
    const int count = int(plan.lines.count * plan.length);
    const int endBit = int(plan.lineBits + plan.indexBits + 8 * plan.valueBytes);
    const cudaError_t e = cub::DeviceRadixSort::SortKeys(storage, *storageBytes, keys, count, 0, endBit, stream);
    if (sorted) *sorted = keys.Current();
    return e;
}

template <class T>
cudaError_t LaunchSorted(const TopKPlan& plan, void* values, void* indices, const void* in, void* temporary,
                         LaunchTarget launch) {
    const uint64_t total = plan.lines.count * plan.length;
    const uint64_t base = (reinterpret_cast<uintptr_t>(temporary) + 255) & ~uintptr_t(255);
    uint64_t* keys0 = reinterpret_cast<uint64_t*>(base);
    uint64_t* keys1 = reinterpret_cast<uint64_t*>(base + AlignUp(total * 8));
    void* storage = reinterpret_cast<void*>(base + 2 * AlignUp(total * 8));
    size_t storageBytes = plan.sortBytes;
    TopKKeys<T><<<launch.Blocks(total, kBlockThreads), kBlockThreads, 0, launch.stream>>>(
        plan, keys0, static_cast<const T*>(in));
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    uint64_t* sorted = nullptr;
    e = SortKeys(plan, storage, &storageBytes, keys0, keys1, &sorted, launch.stream);
    if (e != cudaSuccess) return e;
    TopKWrite<T><<<launch.Blocks(plan.lines.count * plan.k, kBlockThreads), kBlockThreads, 0, launch.stream>>>(
        plan, static_cast<T*>(values), indices, static_cast<const T*>(in), sorted);
    return cudaGetLastError();
}

template <class T>
cudaError_t LaunchTyped(const TopKPlan& plan, void* values, void* indices, const void* in, void* temporary,
                        LaunchTarget launch) {
    const uint64_t total = plan.lines.count * plan.length;
    if (total == 0) return cudaSuccess;
    if constexpr (sizeof(T) <= 4) {
        if (plan.valueBytes != 0) return LaunchSorted<T>(plan, values, indices, in, temporary, launch);
    }
    TopKPlaces<T><<<launch.Blocks(total, kBlockThreads), kBlockThreads, 0, launch.stream>>>(
        plan, static_cast<T*>(values), indices, static_cast<const T*>(in));
    return cudaGetLastError();
}

}  // namespace

uint64_t PlanTopKSort(TopKPlan* plan) {
    plan->valueBytes = 0;
    const uint32_t valueBits = ValueBits(plan->type);
    const uint64_t total = plan->lines.count * plan->length;
    if (valueBits == 0 || total == 0 || total > uint64_t(INT32_MAX) / 2) return 0;
    const uint32_t lineBits = BitsFor(plan->lines.count), indexBits = BitsFor(plan->length);
    if (lineBits + indexBits + valueBits > 64) return 0;
    TopKPlan sorting = *plan;
    sorting.valueBytes = valueBits / 8;
    sorting.lineBits = lineBits;
    sorting.indexBits = indexBits;
    size_t storageBytes = 0;
    if (SortKeys(sorting, nullptr, &storageBytes, nullptr, nullptr, nullptr, nullptr) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    sorting.sortBytes = storageBytes;
    *plan = sorting;
    return 256 + 2 * AlignUp(total * 8) + AlignUp(storageBytes);
}

cudaError_t LaunchTopK(const TopKPlan& plan, void* values, void* indices, const void* in, void* temporary,
                       LaunchTarget launch) {
    switch (plan.type) {
        case ElementType::F32: return LaunchTyped<float>(plan, values, indices, in, temporary, launch);
        case ElementType::F16: return LaunchTyped<__half>(plan, values, indices, in, temporary, launch);
        case ElementType::I64: return LaunchTyped<int64_t>(plan, values, indices, in, temporary, launch);
        case ElementType::I32: return LaunchTyped<int32_t>(plan, values, indices, in, temporary, launch);
        case ElementType::I16: return LaunchTyped<int16_t>(plan, values, indices, in, temporary, launch);
        case ElementType::I8: return LaunchTyped<int8_t>(plan, values, indices, in, temporary, launch);
        case ElementType::U64: return LaunchTyped<uint64_t>(plan, values, indices, in, temporary, launch);
        case ElementType::U32: return LaunchTyped<uint32_t>(plan, values, indices, in, temporary, launch);
        case ElementType::U16: return LaunchTyped<uint16_t>(plan, values, indices, in, temporary, launch);
        case ElementType::U8: return LaunchTyped<uint8_t>(plan, values, indices, in, temporary, launch);
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace freedml::dml::cuda

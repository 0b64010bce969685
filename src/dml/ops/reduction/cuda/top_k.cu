// Device code of TOP_K and TOP_K1. Elements of at most 32 bits take the sorting path: each element
// becomes one 64-bit key (its line, its value mapped to bits that order as the chosen direction,
// its index), one radix sort of all keys puts every line's elements in order, and a last kernel
// writes each line's first K. The key holds the index, so ties keep the lower index first whatever
// the sort's stability, and the values written are read back from the input (bit for bit).
// Lines of at least kSelectMinLength elements with K up to kSelectMaxK take the selecting path
// instead: one block per line finds the K-th key by a radix select (8 bits a pass, a shared
// histogram), gathers the K first keys in index order and sorts only those.
// 64-bit elements, and keys that would need more than 64 bits, take the counting path: one thread
// per element finds its place by counting the elements that go before it (length^2 comparisons
// per line, exact and simple).
#include <cstdint>
#include <type_traits>

#include <cub/block/block_scan.cuh>
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

// The key of a value: its OrderBits, reversed where the largest come first, so that a line's K
// first elements are its K smallest (key, index) pairs.
template <class T>
__device__ __forceinline__ uint32_t KeyOf(bool largest, T v) {
    constexpr uint32_t kMask = sizeof(T) == 4 ? 0xFFFFFFFFu : (uint32_t(1) << (8 * sizeof(T))) - 1;
    const uint32_t bits = OrderBits(v);
    return largest ? ~bits & kMask : bits;
}

constexpr int kSelectThreads = 1024;
constexpr uint32_t kSelectMaxK = 1024;
constexpr uint32_t kSelectMinLength = 256;

template <class T>
__global__ void __launch_bounds__(kSelectThreads) TopKSelect(TopKPlan plan, T* values, void* indices, const T* in) {
    using Scan = cub::BlockScan<uint32_t, kSelectThreads>;
    __shared__ typename Scan::TempStorage scanStorage;
    __shared__ uint32_t histogram[256];
    __shared__ uint64_t chosen[kSelectMaxK];  // (key << 32) | index
    __shared__ uint32_t digitFound, remainingFound;
    const uint32_t n = plan.length, k = plan.k, lane = threadIdx.x % 32;
    for (uint64_t line = blockIdx.x; line < plan.lines.count; line += gridDim.x) {
        int64_t o[3];
        Offsets(plan.lines, line, o);
        const T* x = in + o[2];
        // Radix select from the top digit: `prefix` gathers the K-th smallest key, `remaining`
        // its rank among the keys that share the digits found so far.
        uint32_t prefix = 0, prefixMask = 0, remaining = k;
        for (int shift = 8 * int(sizeof(T)) - 8; shift >= 0; shift -= 8) {
            if (threadIdx.x < 256) histogram[threadIdx.x] = 0;
            __syncthreads();
            for (uint32_t base = 0; base < n; base += kSelectThreads) {
                const uint32_t i = base + threadIdx.x;
                uint32_t digit = 256;  // none: outside the line or off the prefix
                if (i < n) {
                    const uint32_t key = KeyOf(plan.largest, x[int64_t(i) * plan.inStride]);
                    if ((key & prefixMask) == prefix) digit = (key >> shift) & 255;
                }
                // One atomic per distinct digit of the warp: the top digits of real data repeat.
                const uint32_t peers = __match_any_sync(0xFFFFFFFFu, digit);
                if (digit < 256 && lane == uint32_t(__ffs(peers) - 1)) atomicAdd(&histogram[digit], __popc(peers));
            }
            __syncthreads();
            if (threadIdx.x < 32) {  // the digit where the running count reaches `remaining`
                uint32_t sum = 0;
                for (int b = 0; b < 8; ++b) sum += histogram[lane * 8 + b];
                uint32_t inclusive = sum;
                for (int d = 1; d < 32; d <<= 1) {
                    const uint32_t other = __shfl_up_sync(0xFFFFFFFFu, inclusive, d);
                    if (int(lane) >= d) inclusive += other;
                }
                const uint32_t reached = __ballot_sync(0xFFFFFFFFu, inclusive >= remaining);
                if (lane == uint32_t(__ffs(reached) - 1)) {
                    uint32_t before = inclusive - sum;
                    for (int b = 0; b < 8; ++b) {
                        const uint32_t count = histogram[lane * 8 + b];
                        if (before + count >= remaining) {
                            digitFound = lane * 8 + b;
                            remainingFound = remaining - before;
                            break;
                        }
                        before += count;
                    }
                }
            }
            __syncthreads();
            prefix |= digitFound << shift;
            prefixMask |= 255u << shift;
            remaining = remainingFound;
        }
        // Every key below the K-th, and the first `remaining` equal to it, in index order.
        uint32_t taken = 0, tiesSeen = 0;
        for (uint32_t base = 0; base < n && taken < k; base += kSelectThreads) {
            const uint32_t i = base + threadIdx.x;
            const uint32_t key = i < n ? KeyOf(plan.largest, x[int64_t(i) * plan.inStride]) : 0;
            const bool below = i < n && key < prefix, tie = i < n && key == prefix;
            uint32_t tieRank = 0, ties = 0, place = 0, count = 0;
            Scan(scanStorage).ExclusiveSum(tie ? 1u : 0u, tieRank, ties);
            __syncthreads();
            const bool take = below || (tie && tiesSeen + tieRank < remaining);
            Scan(scanStorage).ExclusiveSum(take ? 1u : 0u, place, count);
            __syncthreads();
            if (take) chosen[taken + place] = (uint64_t(key) << 32) | i;
            taken += count;
            tiesSeen += ties;
        }
        // Bitonic sort of the K chosen, padded to a power of two with keys above every pair.
        uint32_t size = 1;
        while (size < k) size <<= 1;
        for (uint32_t i = k + threadIdx.x; i < size; i += kSelectThreads) chosen[i] = ~uint64_t(0);
        __syncthreads();
        for (uint32_t span = 2; span <= size; span <<= 1) {
            for (uint32_t stride = span / 2; stride > 0; stride >>= 1) {
                for (uint32_t i = threadIdx.x; i < size; i += kSelectThreads) {
                    const uint32_t j = i ^ stride;
                    if (j > i) {
                        const uint64_t a = chosen[i], b = chosen[j];
                        if ((a > b) == ((i & span) == 0)) chosen[i] = b, chosen[j] = a;
                    }
                }
                __syncthreads();
            }
        }
        for (uint32_t place = threadIdx.x; place < k; place += kSelectThreads) {
            const uint32_t i = uint32_t(chosen[place]);
            values[o[0] + int64_t(place) * plan.valueStride] = x[int64_t(i) * plan.inStride];
            if (plan.index64) {
                static_cast<uint64_t*>(indices)[o[1] + int64_t(place) * plan.indexStride] = i;
            } else {
                static_cast<uint32_t*>(indices)[o[1] + int64_t(place) * plan.indexStride] = i;
            }
        }
        __syncthreads();  // `chosen` is rewritten by the next line
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
        if (plan.select) {
            const uint64_t cap = uint64_t(launch.multiprocessors > 0 ? launch.multiprocessors : 1) * 2;
            const int blocks = int(plan.lines.count < cap ? plan.lines.count : cap);
            TopKSelect<T><<<blocks, kSelectThreads, 0, launch.stream>>>(plan, static_cast<T*>(values), indices,
                                                                        static_cast<const T*>(in));
            return cudaGetLastError();
        }
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
    plan->select = valueBits != 0 && plan->length >= kSelectMinLength && plan->k <= kSelectMaxK;
    if (plan->select) return 0;
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

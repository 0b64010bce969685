// Device code of TOP_K and TOP_K1. One thread per input element finds the element's place in its
// line's order by counting the elements that go before it (the order is total, so places are
// distinct), and writes the element where that place is below K. Each line costs length^2
// comparisons: exact and simple; long lines want a sort or a radix select instead.
#include <cstdint>
#include <type_traits>

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

template <class T>
cudaError_t LaunchTyped(const TopKPlan& plan, void* values, void* indices, const void* in, LaunchTarget launch) {
    const uint64_t total = plan.lines.count * plan.length;
    if (total == 0) return cudaSuccess;
    TopKPlaces<T><<<launch.Blocks(total, kBlockThreads), kBlockThreads, 0, launch.stream>>>(
        plan, static_cast<T*>(values), indices, static_cast<const T*>(in));
    return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchTopK(const TopKPlan& plan, void* values, void* indices, const void* in, LaunchTarget launch) {
    switch (plan.type) {
        case ElementType::F32: return LaunchTyped<float>(plan, values, indices, in, launch);
        case ElementType::F16: return LaunchTyped<__half>(plan, values, indices, in, launch);
        case ElementType::I64: return LaunchTyped<int64_t>(plan, values, indices, in, launch);
        case ElementType::I32: return LaunchTyped<int32_t>(plan, values, indices, in, launch);
        case ElementType::I16: return LaunchTyped<int16_t>(plan, values, indices, in, launch);
        case ElementType::I8: return LaunchTyped<int8_t>(plan, values, indices, in, launch);
        case ElementType::U64: return LaunchTyped<uint64_t>(plan, values, indices, in, launch);
        case ElementType::U32: return LaunchTyped<uint32_t>(plan, values, indices, in, launch);
        case ElementType::U16: return LaunchTyped<uint16_t>(plan, values, indices, in, launch);
        case ElementType::U8: return LaunchTyped<uint8_t>(plan, values, indices, in, launch);
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace freedml::dml::cuda

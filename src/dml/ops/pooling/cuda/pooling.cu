// Device code of the pooling family: the CPU kernels' window loop (pool_plan.h), one thread per
// output element in a grid-stride loop; MAX_UNPOOLING zero-fills, then scatters one thread per
// input element (of several inputs naming one output element, an unspecified one stays).
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "dml/kernels/cuda/elementwise.cuh"
#include "dml/ops/pooling/cuda/pooling_launch.h"

namespace freedml::dml::cuda {

namespace {

constexpr int kBlockThreads = 256;

template <class T> struct Acc { using type = double; };
template <> struct Acc<__half> { using type = float; };

// The value of a MAX window wholly in the padding: -inf, or the integer type's least value.
template <class T>
__device__ __forceinline__ typename ComputeOf<T>::type Lowest() {
    if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, float>) {
        return -INFINITY;
    } else if constexpr (std::is_signed_v<T>) {
        return T(std::make_unsigned_t<T>(1) << (sizeof(T) * 8 - 1));
    } else {
        return T(0);
    }
}

template <class T>
__global__ void __launch_bounds__(kBlockThreads) PoolKernel(PoolPlan plan, T* out, void* indices, const T* in) {
    const uint64_t step = uint64_t(gridDim.x) * kBlockThreads;
    for (uint64_t o = uint64_t(blockIdx.x) * kBlockThreads + threadIdx.x; o < plan.outCount; o += step) {
        const PoolSite site = LocatePool(plan, o);
        if (plan.kind == PoolKind::Max) {
            uint64_t index = 0;
            const auto best = PoolMax(plan, site, Lowest<T>(), [&](int64_t offset) { return LoadAs(in + offset); },
                                      &index);
            StoreAs(out + site.outOffset, best);
            if (plan.hasIndices) {
                if (plan.index64) static_cast<uint64_t*>(indices)[site.indexOffset] = index;
                else static_cast<uint32_t*>(indices)[site.indexOffset] = uint32_t(index);
            }
        } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, __half>) {
            using A = typename Acc<T>::type;
            const A v = PoolAverageOrLp<A>(plan, site, [&](int64_t offset) { return A(LoadAs(in + offset)); });
            StoreAs(out + site.outOffset, float(v));
        }
    }
}

// One thread per OutputGradientTensor element gathers its share (PoolGradient): no atomics, the
// same order of additions as the CPU.
template <class T>
__global__ void __launch_bounds__(kBlockThreads) PoolGradKernel(PoolPlan plan, T* dx, const T* x, const T* dy) {
    using A = typename Acc<T>::type;
    const uint64_t step = uint64_t(gridDim.x) * kBlockThreads;
    for (uint64_t i = uint64_t(blockIdx.x) * kBlockThreads + threadIdx.x; i < plan.inCount; i += step) {
        const A g = PoolGradient<A>(
            plan, i, [&](int64_t offset) { return A(LoadAs(dy + offset)); },
            [&](int64_t offset) { return LoadAs(x + offset); }, Lowest<T>());
        StoreAs(dx + GradientOffset(plan, i), float(g));
    }
}

template <class T>
__global__ void __launch_bounds__(kBlockThreads) ZeroKernel(UnpoolPlan plan, T* out) {
    const uint64_t step = uint64_t(gridDim.x) * kBlockThreads;
    for (uint64_t i = uint64_t(blockIdx.x) * kBlockThreads + threadIdx.x; i < plan.outCount; i += step)
        out[OffsetOf4(plan.outSizes, plan.outStrides, i)] = T(0);
}

template <class T>
__global__ void __launch_bounds__(kBlockThreads) ScatterKernel(UnpoolPlan plan, T* out, const void* indices,
                                                               const T* in) {
    const uint64_t step = uint64_t(gridDim.x) * kBlockThreads;
    for (uint64_t i = uint64_t(blockIdx.x) * kBlockThreads + threadIdx.x; i < plan.inCount; i += step) {
        const int64_t at = OffsetOf4(plan.inSizes, plan.indexStrides, i);
        const uint64_t target = plan.index64 ? static_cast<const uint64_t*>(indices)[at]
                                             : static_cast<const uint32_t*>(indices)[at];
        if (target >= plan.outCount) continue;
        out[OffsetOf4(plan.outSizes, plan.outStrides, target)] = in[OffsetOf4(plan.inSizes, plan.inStrides, i)];
    }
}

template <class T>
cudaError_t PoolTyped(const PoolPlan& plan, void* out, void* indices, const void* in, LaunchTarget launch) {
    if (plan.outCount == 0) return cudaSuccess;
    PoolKernel<T><<<launch.Blocks(plan.outCount, kBlockThreads), kBlockThreads, 0, launch.stream>>>(
        plan, static_cast<T*>(out), indices, static_cast<const T*>(in));
    return cudaGetLastError();
}

template <class T>
cudaError_t PoolGradTyped(const PoolPlan& plan, void* dx, const void* x, const void* dy, LaunchTarget launch) {
    if (plan.inCount == 0) return cudaSuccess;
    PoolGradKernel<T><<<launch.Blocks(plan.inCount, kBlockThreads), kBlockThreads, 0, launch.stream>>>(
        plan, static_cast<T*>(dx), static_cast<const T*>(x), static_cast<const T*>(dy));
    return cudaGetLastError();
}

// Unpooling moves elements without arithmetic: by size only.
template <class T>
cudaError_t UnpoolTyped(const UnpoolPlan& plan, void* out, const void* indices, const void* in, LaunchTarget launch) {
    if (plan.outCount == 0) return cudaSuccess;
    ZeroKernel<T><<<launch.Blocks(plan.outCount, kBlockThreads), kBlockThreads, 0, launch.stream>>>(
        plan, static_cast<T*>(out));
    if (plan.inCount != 0) {
        ScatterKernel<T><<<launch.Blocks(plan.inCount, kBlockThreads), kBlockThreads, 0, launch.stream>>>(
            plan, static_cast<T*>(out), indices, static_cast<const T*>(in));
    }
    return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchPooling(const PoolPlan& plan, ElementType type, void* out, void* indices, const void* in,
                          LaunchTarget launch) {
    switch (type) {
        case ElementType::F32: return PoolTyped<float>(plan, out, indices, in, launch);
        case ElementType::F16: return PoolTyped<__half>(plan, out, indices, in, launch);
        case ElementType::I64: return PoolTyped<int64_t>(plan, out, indices, in, launch);
        case ElementType::I32: return PoolTyped<int32_t>(plan, out, indices, in, launch);
        case ElementType::I16: return PoolTyped<int16_t>(plan, out, indices, in, launch);
        case ElementType::I8: return PoolTyped<int8_t>(plan, out, indices, in, launch);
        case ElementType::U64: return PoolTyped<uint64_t>(plan, out, indices, in, launch);
        case ElementType::U32: return PoolTyped<uint32_t>(plan, out, indices, in, launch);
        case ElementType::U16: return PoolTyped<uint16_t>(plan, out, indices, in, launch);
        case ElementType::U8: return PoolTyped<uint8_t>(plan, out, indices, in, launch);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchPoolingGrad(const PoolPlan& plan, ElementType type, void* dx, const void* x, const void* dy,
                              LaunchTarget launch) {
    switch (type) {
        case ElementType::F32: return PoolGradTyped<float>(plan, dx, x, dy, launch);
        case ElementType::F16: return PoolGradTyped<__half>(plan, dx, x, dy, launch);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchMaxUnpooling(const UnpoolPlan& plan, ElementType type, void* out, const void* indices,
                               const void* in, LaunchTarget launch) {
    switch (ElementBytes(type)) {
        case 1: return UnpoolTyped<uint8_t>(plan, out, indices, in, launch);
        case 2: return UnpoolTyped<uint16_t>(plan, out, indices, in, launch);
        case 4: return UnpoolTyped<uint32_t>(plan, out, indices, in, launch);
        case 8: return UnpoolTyped<uint64_t>(plan, out, indices, in, launch);
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace freedml::dml::cuda

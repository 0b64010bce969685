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

template <class T, class Index>
__global__ void __launch_bounds__(kBlockThreads) PoolKernel(PoolPlan plan, T* out, void* indices, const T* in) {
    const Index step = Index(gridDim.x) * kBlockThreads, count = Index(plan.outCount);
    for (Index o = Index(blockIdx.x) * kBlockThreads + threadIdx.x; o < count; o += step) {
        const PoolSite site = LocatePool<Index>(plan, o);
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

// MAX over 2-D windows (the first spatial slot unused) without an indices output, the shape of
// every CNN's max pool: blockIdx.y is the {N, C} plane, so a thread finds its output position with
// one 32-bit division, and walks its window in PoolMax's order with PoolMax's rule (the first
// NaN wins, else the first strict maximum).
template <class T>
__global__ void __launch_bounds__(kBlockThreads) MaxPool2dKernel(PoolPlan plan, T* out, const T* in) {
    const uint32_t plane = blockIdx.y, n = plane / plan.channels, c = plane % plan.channels;
    const T* src = in + int64_t(n) * plan.inStrides[0] + int64_t(c) * plan.inStrides[1];
    T* dst = out + int64_t(n) * plan.outStrides[0] + int64_t(c) * plan.outStrides[1];
    const uint32_t outW = plan.out[2], planeSize = plan.out[1] * outW;
    const int32_t inH = int32_t(plan.in[1]), inW = int32_t(plan.in[2]);
    for (uint32_t i = blockIdx.x * kBlockThreads + threadIdx.x; i < planeSize; i += gridDim.x * kBlockThreads) {
        const uint32_t oy = i / outW, ox = i % outW;
        const int32_t y0 = int32_t(oy * plan.stride[1]) - int32_t(plan.pad[1]);
        const int32_t x0 = int32_t(ox * plan.stride[2]) - int32_t(plan.pad[2]);
        auto best = Lowest<T>();
        bool any = false, nan = false;
        for (uint32_t ky = 0; ky < plan.window[1] && !nan; ++ky) {
            const int32_t y = y0 + int32_t(ky * plan.dilation[1]);
            if (y < 0 || y >= inH) continue;
            const T* row = src + int64_t(y) * plan.inStrides[3];
            for (uint32_t kx = 0; kx < plan.window[2]; ++kx) {
                const int32_t x = x0 + int32_t(kx * plan.dilation[2]);
                if (x < 0 || x >= inW) continue;
                const auto v = LoadAs(row + int64_t(x) * plan.inStrides[4]);
                const bool isNaN = !(v == v);
                if (!any || isNaN || v > best) best = v, any = true, nan = isNaN;
                if (nan) break;
            }
        }
        StoreAs(dst + int64_t(oy) * plan.outStrides[3] + int64_t(ox) * plan.outStrides[4], best);
    }
}

// Whether MaxPool2dKernel serves the plan: MAX without indices over 2-D windows, planes that fit
// the grid's y dimension and 32-bit positions.
bool IsMaxPool2d(const PoolPlan& plan) {
    return plan.kind == PoolKind::Max && !plan.hasIndices && plan.in[0] == 1 && plan.out[0] == 1 &&
           plan.window[0] == 1 && uint64_t(plan.batch) * plan.channels <= 65535 &&
           uint64_t(plan.out[1]) * plan.out[2] < (uint64_t(1) << 31) && plan.in[1] < (1u << 30) &&
           plan.in[2] < (1u << 30) && uint64_t(plan.out[1]) * plan.stride[1] + plan.pad[1] < (uint64_t(1) << 30) &&
           uint64_t(plan.out[2]) * plan.stride[2] + plan.pad[2] < (uint64_t(1) << 30) &&
           uint64_t(plan.window[1]) * plan.dilation[1] < (uint64_t(1) << 30) &&
           uint64_t(plan.window[2]) * plan.dilation[2] < (uint64_t(1) << 30);
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
    if (IsMaxPool2d(plan)) {
        const uint32_t planeSize = plan.out[1] * plan.out[2];
        const dim3 grid((planeSize + kBlockThreads - 1) / kBlockThreads, plan.batch * plan.channels);
        MaxPool2dKernel<T>
            <<<grid, kBlockThreads, 0, launch.stream>>>(plan, static_cast<T*>(out), static_cast<const T*>(in));
        return cudaGetLastError();
    }
    const int blocks = launch.Blocks(plan.outCount, kBlockThreads);
    // 32-bit output coordinates where the grid-stride loop cannot overflow them.
    if (plan.outCount + uint64_t(blocks) * kBlockThreads <= UINT32_MAX) {
        PoolKernel<T, uint32_t><<<blocks, kBlockThreads, 0, launch.stream>>>(plan, static_cast<T*>(out), indices,
                                                                             static_cast<const T*>(in));
    } else {
        PoolKernel<T, uint64_t><<<blocks, kBlockThreads, 0, launch.stream>>>(plan, static_cast<T*>(out), indices,
                                                                             static_cast<const T*>(in));
    }
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

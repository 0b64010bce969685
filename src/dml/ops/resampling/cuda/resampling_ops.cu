// Device code of the resampling family: one thread per destination element in a grid-stride loop,
// summing its taps with SumTaps (resample_plan.h, the function the CPU kernel runs), and
// VALUE_SCALE_2D. Arithmetic in float, as on the CPU.
#include <cuda_fp16.h>

#include "dml/ops/resampling/cuda/resample_launch.h"

namespace freedml::dml::cuda {

namespace {

constexpr int kThreads = 256;

template <class T>
__device__ float LoadAs(const T* p) {
    if constexpr (std::is_same_v<T, __half>) return __half2float(*p);
    return float(*p);
}

template <class T>
__device__ void StoreAs(T* p, float v) {
    if constexpr (std::is_same_v<T, __half>) {
        *p = __float2half_rn(v);
    } else if constexpr (std::is_same_v<T, float>) {
        *p = v;
    } else {
        const float lo = std::is_signed_v<T> ? -128.0f : 0.0f, hi = std::is_signed_v<T> ? 127.0f : 255.0f;
        *p = T(fminf(fmaxf(rintf(v), lo), hi));  // the 8-bit integers only
    }
}

template <class T>
__global__ void __launch_bounds__(kThreads) TapSumKernel(TapTables t, T* dst, const T* src) {
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < t.count; i += step) {
        int64_t offset = 0;
        const float v = SumTaps(t, i, &offset, [src](int64_t s) { return LoadAs<T>(src + s); });
        StoreAs<T>(dst + offset, v);
    }
}

template <class T>
cudaError_t LaunchTapSumTyped(const TapTables& t, void* dst, const void* src, LaunchTarget launch) {
    if (t.count == 0) return cudaSuccess;
    TapSumKernel<T><<<launch.Blocks(t.count, kThreads), kThreads, 0, launch.stream>>>(t, static_cast<T*>(dst),
                                                                                       static_cast<const T*>(src));
    return cudaGetLastError();
}

template <class T>
__global__ void __launch_bounds__(kThreads) ValueScaleKernel(ValueScalePlan p, const float* bias, T* dst,
                                                             const T* src, uint64_t count) {
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
        uint64_t rest = i;
        int64_t in = 0, out = 0;
        uint32_t channel = 0;
        for (int d = 3; d >= 0; --d) {
            const uint64_t c = rest % p.sizes[d];
            rest /= p.sizes[d];
            in += int64_t(c) * p.inStrides[d];
            out += int64_t(c) * p.outStrides[d];
            if (d == 1) channel = uint32_t(c);
        }
        StoreAs<T>(dst + out, LoadAs<T>(src + in) * p.scale + bias[channel]);
    }
}

template <class T>
cudaError_t LaunchValueScaleTyped(const ValueScalePlan& p, const float* bias, void* dst, const void* src,
                                  LaunchTarget launch) {
    const uint64_t count = uint64_t(p.sizes[0]) * p.sizes[1] * p.sizes[2] * p.sizes[3];
    if (count == 0) return cudaSuccess;
    ValueScaleKernel<T><<<launch.Blocks(count, kThreads), kThreads, 0, launch.stream>>>(
        p, bias, static_cast<T*>(dst), static_cast<const T*>(src), count);
    return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchTapSum(const TapTables& tables, ElementType type, void* dst, const void* src, LaunchTarget launch) {
    switch (type) {
        case ElementType::F32: return LaunchTapSumTyped<float>(tables, dst, src, launch);
        case ElementType::F16: return LaunchTapSumTyped<__half>(tables, dst, src, launch);
        case ElementType::I8: return LaunchTapSumTyped<int8_t>(tables, dst, src, launch);
        case ElementType::U8: return LaunchTapSumTyped<uint8_t>(tables, dst, src, launch);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchValueScale(const ValueScalePlan& plan, ElementType type, const float* bias, void* dst,
                             const void* src, LaunchTarget launch) {
    switch (type) {
        case ElementType::F32: return LaunchValueScaleTyped<float>(plan, bias, dst, src, launch);
        case ElementType::F16: return LaunchValueScaleTyped<__half>(plan, bias, dst, src, launch);
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace freedml::dml::cuda

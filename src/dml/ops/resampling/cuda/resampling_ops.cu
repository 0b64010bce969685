// Device code of the resampling family: one thread per destination element in a grid-stride loop,
// summing its taps with SumTaps (resample_plan.h, the function the CPU kernel runs), or by rows
// where only the last two of four dimensions are scaled; and VALUE_SCALE_2D. Arithmetic in float,
// as on the CPU.
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

// The 4-D resample that scales only the last two dimensions (each of the first two has one tap of
// weight 1): a 2-D grid, x along the destination row so that consecutive threads write
// consecutive elements, y over runs of kRowsPerThread consecutive rows. A thread holds its column's taps in
// registers (up to kColumnTaps; a longer column reads them per row) and blends in float in
// SumTaps's order (weight = row weight * column weight, taps row-major, acc from 0), so the
// result is SumTaps's.
constexpr uint32_t kColumnTaps = 4;
constexpr uint32_t kRowsPerThread = 4;

template <class T, class Offset>
__device__ __forceinline__ float BlendRow(const T* __restrict__ row, float wy, uint32_t nx,
                                          const float (&wx)[kColumnTaps], const Offset (&ox)[kColumnTaps], float acc) {
#pragma unroll
    for (uint32_t k = 0; k < kColumnTaps; ++k) {
        if (k < nx) acc += (wy * wx[k]) * LoadAs<T>(row + ox[k]);
    }
    return acc;
}

// Offset: int64_t, or int32_t where every offset fits (32-bit address arithmetic is several
// times cheaper, and this kernel is bound by it).
template <class T, class Offset>
__global__ void __launch_bounds__(kThreads)
    TapSum2dKernel(TapTables t, uint32_t rows, T* __restrict__ dst, const T* __restrict__ src) {
    const uint32_t width = t.sizes[3], height = t.sizes[2], channels = t.sizes[1];
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width) return;
    const uint32_t bx = t.starts[t.startBase[3] + x], ex = t.starts[t.startBase[3] + x + 1];
    const uint32_t nx = ex - bx;
    float wx[kColumnTaps] = {};
    Offset ox[kColumnTaps] = {};
    if (nx <= kColumnTaps) {
#pragma unroll
        for (uint32_t k = 0; k < kColumnTaps; ++k) {
            if (k < nx) wx[k] = t.weights[bx + k], ox[k] = Offset(t.offsets[bx + k]);
        }
    }
    const Offset s0 = Offset(t.dstStrides[0]), s1 = Offset(t.dstStrides[1]), s2 = Offset(t.dstStrides[2]);
    const Offset column = Offset(x) * Offset(t.dstStrides[3]);
    // kRowsPerThread consecutive rows from r0: one division for all of them.
    for (uint32_t r0 = blockIdx.y * kRowsPerThread; r0 < rows; r0 += gridDim.y * kRowsPerThread) {
        uint32_t y = r0 % height, plane = r0 / height;
        uint32_t c1 = plane % channels, c0 = plane / channels;
        const uint32_t end = rows - r0 < kRowsPerThread ? rows : r0 + kRowsPerThread;
        for (uint32_t r = r0; r < end; ++r) {
            const Offset out = Offset(c0) * s0 + Offset(c1) * s1 + Offset(y) * s2 + column;
            const uint32_t by = t.starts[t.startBase[2] + y], ey = t.starts[t.startBase[2] + y + 1];
            const Offset base =
                Offset(t.offsets[t.starts[t.startBase[0] + c0]]) + Offset(t.offsets[t.starts[t.startBase[1] + c1]]);
            float acc = 0;
            if (nx != 0) {
                for (uint32_t ky = by; ky < ey; ++ky) {
                    const float wy = t.weights[ky];
                    const T* row = src + (base + Offset(t.offsets[ky]));
                    if (nx <= kColumnTaps) {
                        acc = BlendRow(row, wy, nx, wx, ox, acc);
                    } else {
                        for (uint32_t kx = bx; kx < ex; ++kx)
                            acc += (wy * t.weights[kx]) * LoadAs<T>(row + Offset(t.offsets[kx]));
                    }
                }
            }
            StoreAs<T>(dst + out, acc);
            if (++y == height) {  // the next row starts the next plane
                y = 0;
                if (++c1 == channels) c1 = 0, ++c0;
            }
        }
    }
}

template <class T>
cudaError_t LaunchTapSum2dTyped(const TapTables& t, bool narrow, void* dst, const void* src, LaunchTarget launch) {
    if (t.count == 0) return cudaSuccess;
    const uint32_t rows = t.sizes[0] * t.sizes[1] * t.sizes[2];
    // kRowsPerThread rows per thread: the column taps are loaded once for all of them.
    const uint32_t rowBlocks = (rows + kRowsPerThread - 1) / kRowsPerThread;
    const dim3 grid((t.sizes[3] + kThreads - 1) / kThreads, rowBlocks < 65535 ? rowBlocks : 65535);
    if (narrow) {
        TapSum2dKernel<T, int32_t>
            <<<grid, kThreads, 0, launch.stream>>>(t, rows, static_cast<T*>(dst), static_cast<const T*>(src));
    } else {
        TapSum2dKernel<T, int64_t>
            <<<grid, kThreads, 0, launch.stream>>>(t, rows, static_cast<T*>(dst), static_cast<const T*>(src));
    }
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

cudaError_t LaunchTapSum2d(const TapTables& tables, ElementType type, bool narrow, void* dst, const void* src,
                           LaunchTarget launch) {
    switch (type) {
        case ElementType::F32:
            return LaunchTapSum2dTyped<float>(tables, narrow, dst, src, launch);
        case ElementType::F16:
            return LaunchTapSum2dTyped<__half>(tables, narrow, dst, src, launch);
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

// Device code of ROI_ALIGN_GRAD (region_grad_launch.h says how the work is split; region_grad_math.h
// what each element contributes, as on the CPU).
#include <cuda_fp16.h>

#include <cstdint>

#include "dml/ops/region_pooling/cuda/region_grad_launch.h"

namespace freedml::dml::cuda {

namespace {

constexpr int kGradThreads = 256;

__device__ __forceinline__ float ToFloat(float v) { return v; }
__device__ __forceinline__ float ToFloat(__half v) { return __half2float(v); }
__device__ __forceinline__ void Store(float* p, float v) { *p = v; }
__device__ __forceinline__ void Store(__half* p, float v) { *p = __float2half_rn(v); }

struct GradArgs {
    region::GradPlan plan;
    const void* input;
    const void* gradient;
    const void* rois;
    const uint32_t* batches;
};

template <class T>
__device__ uint32_t RegionOf(const GradArgs& a, uint32_t r, region::Axis* ax, region::Axis* ay) {
    const region::GradPlan& p = a.plan;
    const T* row = static_cast<const T*>(a.rois) + int64_t(r) * p.roiRow;
    const float x1 = ToFloat(row[0]), y1 = ToFloat(row[p.roiColumn]);
    const float x2 = ToFloat(row[2 * p.roiColumn]), y2 = ToFloat(row[3 * p.roiColumn]);
    *ax = region::MakeAxis(p, x1, x2, p.scaleX, p.outWidth);
    *ay = region::MakeAxis(p, y1, y2, p.scaleY, p.outHeight);
    return a.batches[int64_t(r) * p.batchStride];
}

template <class T>
__global__ void __launch_bounds__(kGradThreads) ScatterGradient(GradArgs a, float* scratch) {
    const region::GradPlan& p = a.plan;
    const uint64_t total = p.GradientCount();
    const uint64_t step = uint64_t(gridDim.x) * kGradThreads;
    const T* input = static_cast<const T*>(a.input);
    const T* gradient = static_cast<const T*>(a.gradient);
    for (uint64_t e = uint64_t(blockIdx.x) * kGradThreads + threadIdx.x; e < total; e += step) {
        uint64_t rest = e;
        const uint32_t ox = uint32_t(rest % p.outWidth);
        rest /= p.outWidth;
        const uint32_t oy = uint32_t(rest % p.outHeight);
        rest /= p.outHeight;
        const uint32_t c = uint32_t(rest % p.channels);
        const uint32_t r = uint32_t(rest / p.channels);
        region::Axis ax, ay;
        const uint32_t batch = RegionOf<T>(a, r, &ax, &ay);
        if (batch >= p.batch) continue;
        const float g = ToFloat(gradient[int64_t(r) * p.inGrad[0] + int64_t(c) * p.inGrad[1] +
                                         int64_t(oy) * p.inGrad[2] + int64_t(ox) * p.inGrad[3]]);
        const int64_t inBase = int64_t(batch) * p.in[0] + int64_t(c) * p.in[1];
        const auto read = [&](int64_t y, int64_t x) { return ToFloat(input[inBase + y * p.in[2] + x * p.in[3]]); };
        float* plane = scratch + p.PackedIndex(batch, c, 0, 0);
        const uint32_t width = p.width;
        const auto scatter = [plane, width](int64_t y, int64_t x, float v) { atomicAdd(plane + y * width + x, v); };
        float unused[4] = {};
        region::ElementGradient(p, ax, ay, oy, ox, g, true, false, read, scatter, unused);
    }
}

template <class T>
__global__ void __launch_bounds__(kGradThreads) StoreGradient(region::GradPlan p, T* out, const float* scratch) {
    const uint64_t total = p.OutputCount();
    const uint64_t step = uint64_t(gridDim.x) * kGradThreads;
    for (uint64_t e = uint64_t(blockIdx.x) * kGradThreads + threadIdx.x; e < total; e += step) {
        uint64_t rest = e;
        const int64_t x = int64_t(rest % p.width);
        rest /= p.width;
        const int64_t y = int64_t(rest % p.height);
        rest /= p.height;
        const int64_t c = int64_t(rest % p.channels);
        const int64_t n = int64_t(rest / p.channels);
        Store(out + n * p.outGrad[0] + c * p.outGrad[1] + y * p.outGrad[2] + x * p.outGrad[3], scratch[e]);
    }
}

// One block per region (grid-stride over regions): the threads split the region's elements, then
// reduce their four sums through shared memory.
template <class T>
__global__ void __launch_bounds__(kGradThreads) RegionGradient(GradArgs a, T* out) {
    __shared__ float partial[4][kGradThreads];
    const region::GradPlan& p = a.plan;
    const T* input = static_cast<const T*>(a.input);
    const T* gradient = static_cast<const T*>(a.gradient);
    const uint64_t perRegion = uint64_t(p.channels) * p.outHeight * p.outWidth;
    for (uint32_t r = blockIdx.x; r < p.regions; r += gridDim.x) {
        region::Axis ax, ay;
        const uint32_t batch = RegionOf<T>(a, r, &ax, &ay);
        float sum[4] = {};
        if (batch < p.batch) {
            for (uint64_t j = threadIdx.x; j < perRegion; j += kGradThreads) {
                uint64_t rest = j;
                const uint32_t ox = uint32_t(rest % p.outWidth);
                rest /= p.outWidth;
                const uint32_t oy = uint32_t(rest % p.outHeight);
                const uint32_t c = uint32_t(rest / p.outHeight);
                const float g = ToFloat(gradient[int64_t(r) * p.inGrad[0] + int64_t(c) * p.inGrad[1] +
                                                 int64_t(oy) * p.inGrad[2] + int64_t(ox) * p.inGrad[3]]);
                const int64_t inBase = int64_t(batch) * p.in[0] + int64_t(c) * p.in[1];
                const auto read = [&](int64_t y, int64_t x) {
                    return ToFloat(input[inBase + y * p.in[2] + x * p.in[3]]);
                };
                const auto scatter = [](int64_t, int64_t, float) {};
                region::ElementGradient(p, ax, ay, oy, ox, g, false, true, read, scatter, sum);
            }
        }
        for (int k = 0; k < 4; ++k) partial[k][threadIdx.x] = sum[k];
        __syncthreads();
        for (int width = kGradThreads / 2; width > 0; width /= 2) {
            if (int(threadIdx.x) < width) {
                for (int k = 0; k < 4; ++k) partial[k][threadIdx.x] += partial[k][threadIdx.x + width];
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) {
            for (int k = 0; k < 4; ++k) Store(out + int64_t(r) * p.roiGradRow + k * p.roiGradColumn, partial[k][0]);
        }
        __syncthreads();  // `partial` is reused by the next region
    }
}

template <class T>
cudaError_t LaunchTyped(const region::GradPlan& plan, void* const (&outputs)[2], const void* const (&inputs)[4],
                        void* scratch, LaunchTarget launch) {
    const GradArgs args{plan, inputs[0], inputs[1], inputs[2], static_cast<const uint32_t*>(inputs[3])};
    if (plan.hasOutputGradient && plan.OutputCount() != 0) {
        float* sums = static_cast<float*>(scratch);
        cudaError_t status = cudaMemsetAsync(sums, 0, RoiAlignGradScratchBytes(plan), launch.stream);
        if (status != cudaSuccess) return status;
        if (plan.GradientCount() != 0) {
            ScatterGradient<T><<<launch.Blocks(plan.GradientCount(), kGradThreads), kGradThreads, 0, launch.stream>>>(
                args, sums);
            status = cudaGetLastError();
            if (status != cudaSuccess) return status;
        }
        StoreGradient<T><<<launch.Blocks(plan.OutputCount(), kGradThreads), kGradThreads, 0, launch.stream>>>(
            plan, static_cast<T*>(outputs[0]), sums);
        status = cudaGetLastError();
        if (status != cudaSuccess) return status;
    }
    if (plan.hasRoiGradient && plan.regions != 0) {
        const int blocks = launch.Blocks(uint64_t(plan.regions) * kGradThreads, kGradThreads);
        RegionGradient<T><<<blocks, kGradThreads, 0, launch.stream>>>(args, static_cast<T*>(outputs[1]));
        return cudaGetLastError();
    }
    return cudaSuccess;
}

}  // namespace

cudaError_t LaunchRoiAlignGrad(const region::GradPlan& plan, void* const (&outputs)[2], const void* const (&inputs)[4],
                               void* scratch, LaunchTarget launch) {
    return plan.half ? LaunchTyped<__half>(plan, outputs, inputs, scratch, launch)
                     : LaunchTyped<float>(plan, outputs, inputs, scratch, launch);
}

}  // namespace freedml::dml::cuda

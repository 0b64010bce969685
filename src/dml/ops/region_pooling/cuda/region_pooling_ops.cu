// Device code of ROI_POOLING, ROI_ALIGN and ROI_ALIGN1: a grid-stride loop, one output element per
// iteration, each computed by region_math.h (shared with the CPU kernels).
#include <cuda_fp16.h>

#include <cstdint>

#include "dml/ops/region_pooling/cuda/region_plan.h"

namespace freedml::dml::cuda {

namespace {

constexpr int kBlockThreads = 256;

__device__ __forceinline__ float ToFloat(float v) { return v; }
__device__ __forceinline__ float ToFloat(__half v) { return __half2float(v); }
__device__ __forceinline__ void Store(float* p, float v) { *p = v; }
__device__ __forceinline__ void Store(__half* p, float v) { *p = __float2half_rn(v); }

template <class T>
__global__ void __launch_bounds__(kBlockThreads)
    RegionElements(region::RegionPlan plan, T* out, const T* in, const T* rois, const void* batchIndices) {
    const uint64_t total = plan.OutputCount();
    const uint64_t step = uint64_t(gridDim.x) * kBlockThreads;
    const auto read = [in](int64_t offset) { return ToFloat(in[offset]); };
    for (uint64_t e = uint64_t(blockIdx.x) * kBlockThreads + threadIdx.x; e < total; e += step) {
        const region::OutputIndex o = region::Unflatten(plan, e);
        const T* row = rois + int64_t(o.region) * plan.roiRow;
        const int64_t column = plan.roiColumn;
        const auto coord = [row, column](int k) { return ToFloat(row[k * column]); };
        float value;
        if (plan.align) {
            const int64_t at = int64_t(o.region) * plan.batchStride;
            const uint64_t batch = plan.batch64 ? static_cast<const uint64_t*>(batchIndices)[at]
                                                : uint64_t(static_cast<const uint32_t*>(batchIndices)[at]);
            value = region::AlignValue(plan, o, batch, read, coord);
        } else {
            value = region::PoolValue(plan, o, read, coord);
        }
        Store(out + region::OutputOffset(plan, o), value);
    }
}

template <class T>
cudaError_t LaunchTyped(const region::RegionPlan& plan, void* out, const void* in, const void* rois,
                        const void* batchIndices, LaunchTarget launch) {
    const uint64_t total = plan.OutputCount();
    if (total == 0) return cudaSuccess;
    RegionElements<T><<<launch.Blocks(total, kBlockThreads), kBlockThreads, 0, launch.stream>>>(
        plan, static_cast<T*>(out), static_cast<const T*>(in), static_cast<const T*>(rois), batchIndices);
    return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchRegionPooling(const region::RegionPlan& plan, void* out, const void* in, const void* rois,
                                const void* batchIndices, LaunchTarget launch) {
    return plan.half ? LaunchTyped<__half>(plan, out, in, rois, batchIndices, launch)
                     : LaunchTyped<float>(plan, out, in, rois, batchIndices, launch);
}

}  // namespace freedml::dml::cuda

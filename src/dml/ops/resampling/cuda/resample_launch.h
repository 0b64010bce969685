// The launchers of the resampling device code (resampling_ops.cu), shared with the planning code;
// it does not include DirectML.h.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "dml/kernels/cuda/ew_plan.h"
#include "dml/ops/resampling/resample_plan.h"

namespace freedml::dml::cuda {

// dst[c] = the weighted sum of src over c's taps (tables in device memory), for F32, F16, I8, U8.
cudaError_t LaunchTapSum(const TapTables& tables, ElementType type, void* dst, const void* src, LaunchTarget launch);

// The same for 4-D tables whose first two dimensions each have one tap of weight 1 at every
// coordinate and fewer than 2^31 destination rows (IsTapSum2d), for F32 and F16; `narrow`: every
// source and destination offset fits in 32 bits (the address arithmetic is then 32-bit).
cudaError_t LaunchTapSum2d(const TapTables& tables, ElementType type, bool narrow, void* dst, const void* src,
                           LaunchTarget launch);

// VALUE_SCALE_2D over {N, C, H, W}: dst = src * scale + bias[channel] (bias in device memory).
struct ValueScalePlan {
    uint32_t sizes[4] = {};
    int64_t inStrides[4] = {}, outStrides[4] = {};
    float scale = 1;
};
cudaError_t LaunchValueScale(const ValueScalePlan& plan, ElementType type, const float* bias, void* dst,
                             const void* src, LaunchTarget launch);

}  // namespace freedml::dml::cuda

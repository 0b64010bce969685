// The launch of the region pooling kernels (ROI_POOLING, ROI_ALIGN, ROI_ALIGN1), shared by the
// planning code (cuda_region_pooling.cpp) and the device code (region_pooling_ops.cu).
#pragma once

#include "dml/kernels/cuda/ew_plan.h"
#include "dml/ops/region_pooling/region_math.h"

namespace freedml::dml::cuda {

// One thread per output element, computed as region_math.h says (as the CPU kernels do).
cudaError_t LaunchRegionPooling(const region::RegionPlan& plan, void* out, const void* in, const void* rois,
                                const void* batchIndices, LaunchTarget launch);

}  // namespace freedml::dml::cuda

// The launch of ROI_ALIGN_GRAD's kernels, shared by the planning code (cuda_region_pooling.cpp)
// and the device code (region_grad_ops.cu).
#pragma once

#include "dml/kernels/cuda/ew_plan.h"
#include "dml/ops/region_pooling/region_grad_math.h"

namespace freedml::dml::cuda {

// Bytes of float scratch the launch needs: OutputGradientTensor's elements, when it is bound.
inline uint64_t RoiAlignGradScratchBytes(const region::GradPlan& plan) {
    return plan.hasOutputGradient ? plan.OutputCount() * sizeof(float) : 0;
}

// OutputGradientTensor: the float scratch is zeroed, every InputGradientTensor element scatters
// into it with float atomics (one thread each; FLOAT16 outputs too accumulate in float), and the
// sums are stored through the output's strides. OutputROIGradientTensor: a block per region
// sums its elements' derivatives and writes the four. `outputs` is {OutputGradientTensor,
// OutputROIGradientTensor}, null where not bound; `inputs` is {InputTensor, InputGradientTensor,
// ROITensor, BatchIndicesTensor}.
cudaError_t LaunchRoiAlignGrad(const region::GradPlan& plan, void* const (&outputs)[2], const void* const (&inputs)[4],
                               void* scratch, LaunchTarget launch);

}  // namespace freedml::dml::cuda

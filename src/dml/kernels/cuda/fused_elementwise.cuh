// The CUDA launcher of a compiled graph's fused element-wise pass (graph/ew_program.h), shared by
// the kernel (cuda_fused.cpp) and its device code (fused_elementwise.cu).
#pragma once

#include <cuda_runtime.h>

#include "dml/graph/ew_program.h"
#include "dml/kernels/cuda/ew_plan.h"

namespace freedml::dml::cuda {

struct FusedOperands {
    float* output = nullptr;
    const float* inputs[kEwMaxInputs] = {};
};

// Runs `program` (its Activation instructions' op an Act) over every element, one per thread.
cudaError_t LaunchFusedElementwise(const EwProgram& program, const FusedOperands& operands, LaunchTarget launch);

}  // namespace freedml::dml::cuda

// The launch of the ADAM_OPTIMIZER kernel, shared by the planning code (cuda_adam.cpp) and the
// device code (adam_ops.cu).
#pragma once

#include "dml/kernels/cuda/ew_plan.h"
#include "dml/ops/optimizer/adam_math.h"

namespace freedml::dml::cuda {

// Operands of the plan: outputs X, M, V, then inputs X, M, V, G (adam_math.h computes each
// element). `step` is TrainingStepTensor's one element, read on the device: a UINT32 when
// `stepUint32`, else of the parameters' type.
cudaError_t LaunchAdam(const EwPlan<7>& plan, bool half, const adam::AdamParams& params, void* const (&operands)[7],
                       const void* step, bool stepUint32, LaunchTarget launch);

}  // namespace freedml::dml::cuda

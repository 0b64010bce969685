// The launch of the normalization family's device code (normalization.cu), shared with its
// planning code (cuda_normalization.cpp); no DirectML types.
#pragma once

#include "dml/kernels/cuda/ew_plan.h"
#include "dml/ops/normalization/norm_plan.h"

namespace freedml::dml::cuda {

// Statistics: one block per group (a row of a layer normalization), the sums reduced through
// warp shuffles; GivenStatistics and LocalResponse: one thread per element. Math in float.
// `operands` holds each NormOperand's base address (null where absent).
cudaError_t LaunchNormalization(const NormPlan& plan, const ActParams& act, void* const* operands, LaunchTarget launch);

}  // namespace freedml::dml::cuda

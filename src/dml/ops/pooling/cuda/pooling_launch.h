// Launches of the pooling family's device code (pooling.cu), declared for the planning code
// (cuda_pooling.cpp) without DirectML.h.
#pragma once

#include "dml/kernels/cuda/ew_plan.h"
#include "dml/ops/pooling/pool_plan.h"

namespace freedml::dml::cuda {

// One thread per output element walks its window (pool_plan.h's loop): FLOAT32 average and Lp
// accumulate in double, FLOAT16 in float, MAX compares in the element's type (FLOAT16 as float).
cudaError_t LaunchPooling(const PoolPlan& plan, ElementType type, void* out, void* indices, const void* in,
                          LaunchTarget launch);
// AVERAGE_POOLING_GRAD and MAX_POOLING_GRAD (FLOAT32 and FLOAT16): one thread per
// OutputGradientTensor element; `x` (the forward input) is read by MAX only.
cudaError_t LaunchPoolingGrad(const PoolPlan& plan, ElementType type, void* dx, const void* x, const void* dy,
                              LaunchTarget launch);
// Zero-fills OutputTensor, then one thread per input element writes it where its index says.
cudaError_t LaunchMaxUnpooling(const UnpoolPlan& plan, ElementType type, void* out, const void* indices,
                               const void* in, LaunchTarget launch);

}  // namespace freedml::dml::cuda

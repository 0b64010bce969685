// Launchers of the generator family's device code (generators.cu), shared with the planning code
// (cuda_generators.cpp); no DirectML.h here.
#pragma once

#include "dml/kernels/cuda/ew_plan.h"
#include "dml/ops/generators/generator_plan.h"

namespace freedml::dml::cuda {

// ONE_HOT, DIAGONAL_MATRIX and DIAGONAL_MATRIX1 (generator_plan.h): one thread per output
// element. `source` is the indices (ONE_HOT) or the input (DIAGONAL_MATRIX1), else null;
// ONE_HOT reads OffValue at `values` and OnValue `onOffset` elements further.
cudaError_t LaunchGenerator(const generators::GenPlan& plan, void* out, const void* source, const void* values,
                            int64_t onOffset, LaunchTarget launch);

// NONZERO_COORDINATES (generator_plan.h): `count` is the UINT32 count, `coords` the coordinates.
cudaError_t LaunchNonzero(const generators::NonzeroPlan& plan, void* count, void* coords, const void* in,
                          LaunchTarget launch);

// RANDOM_GENERATOR (generator_plan.h): `nextState` may be null.
cudaError_t LaunchRandom(const generators::RandomPlan& plan, void* out, void* nextState, const void* state,
                         LaunchTarget launch);

}  // namespace freedml::dml::cuda

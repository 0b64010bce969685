// The generator operators' plans from their validated descs (plan.cpp), for both backends.
#pragma once

#include "common/status.h"
#include "dml/ops/generators/generator_plan.h"
#include "dml/schema/schema.h"

namespace freedml::dml::generators {

// ONE_HOT, DIAGONAL_MATRIX or DIAGONAL_MATRIX1. ONE_HOT's OnValue and OffValue are read at
// execution (they live in a tensor); the plan says where (OnValueOffset).
Status MakeGenPlan(const OperatorArgs& args, GenPlan* plan);

// ONE_HOT: the element offset of OnValue in ValuesTensor (OffValue is at 0): element 1 along the
// innermost dimension of size greater than 1 (the ONE_HOT page).
int64_t OnValueOffset(const TensorDesc& values);

// NONZERO_COORDINATES.
NonzeroPlan MakeNonzeroPlan(const OperatorArgs& args);

// RANDOM_GENERATOR.
RandomPlan MakeRandomPlan(const OperatorArgs& args);

}  // namespace freedml::dml::generators

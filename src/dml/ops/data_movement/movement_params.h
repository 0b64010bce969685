// The decode of the data movement descs (validated by schema.cpp) into the plain plans of
// movement_plan.h, read by the CPU and the CUDA kernels alike.
#pragma once

#include "dml/ops/data_movement/movement_plan.h"
#include "dml/schema/schema.h"

namespace freedml::dml {

// SLICE, SLICE1, SPACE_TO_DEPTH(1) and DEPTH_TO_SPACE(1): the output as a strided view of the input.
MovementCopy DecodeMovementCopy(const OperatorArgs& args);
// PADDING, PADDING1 and TILE.
IndexMap DecodeIndexMap(const OperatorArgs& args);
// True for the types DecodeMovementCopy handles.
bool IsMovementCopy(DML_OPERATOR_TYPE type);

}  // namespace freedml::dml

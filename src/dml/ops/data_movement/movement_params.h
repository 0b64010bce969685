// The decode of the data movement descs (validated by schema.cpp) into the plain plans of
// movement_plan.h, read by the CPU and the CUDA kernels alike.
#pragma once

#include <vector>

#include "dml/ops/data_movement/movement_plan.h"
#include "dml/schema/schema.h"

namespace freedml::dml {

// SLICE, SLICE1, SPACE_TO_DEPTH(1) and DEPTH_TO_SPACE(1): the output as a strided view of the input.
MovementCopy DecodeMovementCopy(const OperatorArgs& args);
// PADDING, PADDING1 and TILE.
IndexMap DecodeIndexMap(const OperatorArgs& args);
// One dimension of a GATHER operator's output before DirectML right-aligns it to the output's
// dimension count: its size and the strides (in elements) at which it walks the input and the
// indices tensor.
struct GatherDim {
    uint32_t size;
    int64_t inStride;
    int64_t idxStride;
};
// The output dimensions the GATHER operator's page defines (shape rules on the attributes were
// checked first). Validation compares them with OutputTensor; DecodeGatherMap uses them.
std::vector<GatherDim> GatherOutputDims(const OperatorArgs& args);
// GATHER, GATHER_ELEMENTS, GATHER_ND and GATHER_ND1.
GatherMap DecodeGatherMap(const OperatorArgs& args);
// SCATTER_ELEMENTS and SCATTER_ND: the UpdatesTensor sizes their pages define, each dimension with
// the strides at which it walks OutputTensor and IndicesTensor (checked against UpdatesTensor by
// validation, used by DecodeScatterPlan); not right-aligned.
std::vector<GatherDim> ScatterUpdateDims(const OperatorArgs& args);
ScatterPlan DecodeScatterPlan(const OperatorArgs& args);
// REVERSE_SUBSEQUENCES.
ReverseMap DecodeReverseMap(const OperatorArgs& args);
// FOLD and UNFOLD (validated first: BlocksPerDimension as the pages give it).
WindowMap DecodeWindowMap(const OperatorArgs& args);
// FOLD's element type (one of the types its validation accepts).
FoldType FoldTypeOf(DML_TENSOR_DATA_TYPE type);
// SLICE_GRAD.
SliceGradPlan DecodeSliceGrad(const OperatorArgs& args);
// True for the types DecodeMovementCopy handles.
bool IsMovementCopy(DML_OPERATOR_TYPE type);

}  // namespace freedml::dml

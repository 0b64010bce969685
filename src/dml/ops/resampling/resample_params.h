// The decode of the resampling descs (validated by schema.cpp) into resample_plan.h's plan and its
// flat tap tables, shared by the CPU and the CUDA kernels.
#pragma once

#include <vector>

#include "dml/ops/resampling/resample_plan.h"
#include "dml/schema/schema.h"

namespace freedml::dml {

// UPSAMPLE_2D, RESAMPLE, RESAMPLE1, RESAMPLE2, RESAMPLE3 and (with the forward roles: InputTensor
// is OutputGradientTensor's shape, OutputTensor InputGradientTensor's) RESAMPLE_GRAD(1).
ResamplePlan DecodeResamplePlan(const OperatorArgs& args);
bool IsResampleGrad(DML_OPERATOR_TYPE type);

// The tables and their storage; Tables() points into the vectors (call it again after a copy).
struct TapTableStorage {
    TapTables header;
    std::vector<uint32_t> starts;
    std::vector<int64_t> offsets;
    std::vector<float> weights;
    TapTables Tables() const;
    // Bytes of the three arrays packed one after another (8-byte aligned), and that packing.
    uint64_t PackedBytes() const;
    void Pack(std::byte* dst) const;
    TapTables TablesAt(const std::byte* packed) const;
};

// Forward: destination = output, source = input. Gradient (`transposed`): destination = the input
// gradient of the forward input's shape, source = the output gradient.
TapTableStorage BuildTapTables(const ResamplePlan& plan, bool transposed);

}  // namespace freedml::dml

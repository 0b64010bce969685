// CPU kernels of ELEMENT_WISE_IDENTITY (with its optional DML_SCALE_BIAS) and ELEMENT_WISE_ADD /
// ADD1 (with ADD1's optional fused activation), over any strides: zero strides broadcast, and an
// output may share its input's memory when the layouts match (in-place execution).
// FLOAT32 and FLOAT16 compute in float (FLOAT16 rounds once, to nearest even, when stored);
// integers wrap around modulo 2^bits; FLOAT64 computes in double.
#pragma once

#include <DirectML.h>

#include <cstddef>
#include <cstdint>

#include "common/status.h"
#include "dml/kernels/cpu/activation.h"
#include "dml/kernels/cpu/tensor_view.h"
#include "dml/tensor.h"

namespace freedml::dml::cpu {

struct IdentityParams {
    TensorDesc input;
    TensorDesc output;
    bool hasScaleBias = false;
    DML_SCALE_BIAS scaleBias{1.0f, 0.0f};
};

class IdentityKernel {
public:
    Status Create(const IdentityParams& params);
    uint64_t PersistentSizeInBytes() const { return 0; }
    uint64_t TemporarySizeInBytes() const { return 0; }
    void Initialize(std::byte* /*persistent*/) const {}
    void Execute(TensorView input, TensorView output, std::byte* persistent, std::byte* temporary) const;

private:
    IdentityParams params_;
    LoopPlan<2> plan_;  // operands: output, input
};

// ELEMENT_WISE_ADD is ADD1 without an activation.
struct AddParams {
    TensorDesc a;
    TensorDesc b;
    TensorDesc output;
    FusedActivation activation;
};

class AddKernel {
public:
    Status Create(const AddParams& params);
    uint64_t PersistentSizeInBytes() const { return 0; }
    uint64_t TemporarySizeInBytes() const { return 0; }
    void Initialize(std::byte* /*persistent*/) const {}
    void Execute(TensorView a, TensorView b, TensorView output, std::byte* persistent, std::byte* temporary) const;

private:
    AddParams params_;
    LoopPlan<3> plan_;  // operands: output, a, b
};

}  // namespace freedml::dml::cpu

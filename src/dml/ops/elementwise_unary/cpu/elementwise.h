// CPU kernel of ELEMENT_WISE_IDENTITY (with its optional DML_SCALE_BIAS), over any strides: zero
// strides broadcast, and the output may share its input's memory when the layouts match (in-place
// execution). With a ScaleBias, FLOAT32 and FLOAT16 compute in float (FLOAT16 rounds once, to
// nearest even, when stored) and FLOAT64 in double. ADD and ADD1 are binary_kernels.h's.
#pragma once

#include <DirectML.h>

#include <cstddef>
#include <cstdint>

#include "common/thread_pool.h"
#include "common/status.h"
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
    void Execute(ThreadPool* threads, TensorView input, TensorView output, std::byte* persistent,
                 std::byte* temporary) const;

private:
    IdentityParams params_;
    LoopPlan<2> plan_;  // operands: output, input
};

}  // namespace freedml::dml::cpu

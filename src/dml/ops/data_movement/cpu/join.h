// CPU kernel of JOIN: concatenates any number of inputs along Axis into the output. Any strides,
// any data type (it moves elements by size). Each input's copy is planned at Create as a strided
// copy into its slice of the output, so Execute does no per-input arithmetic beyond a pointer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"
#include "dml/kernels/cpu/tensor_view.h"
#include "dml/tensor.h"

namespace freedml::dml::cpu {

struct JoinParams {
    std::vector<TensorDesc> inputs;
    TensorDesc output;
    uint32_t axis = 0;
};

class JoinKernel {
public:
    Status Create(const JoinParams& params);
    uint64_t PersistentSizeInBytes() const { return 0; }
    uint64_t TemporarySizeInBytes() const { return 0; }
    void Initialize(std::byte* /*persistent*/) const {}
    // inputs.size() == the planned input count, in order.
    void Execute(std::span<const TensorView> inputs, TensorView output, std::byte* persistent,
                 std::byte* temporary) const;

private:
    struct Piece {
        LoopPlan<2> plan;          // operands: output slice, input
        int64_t outputOffset = 0;  // bytes from the output's element 0 to the slice's
    };
    std::vector<Piece> pieces_;
    uint32_t elementSize_ = 0;
};

}  // namespace freedml::dml::cpu

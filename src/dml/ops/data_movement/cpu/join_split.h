// CPU kernels of JOIN (concatenates inputs along Axis into the output) and SPLIT (cuts the input
// along Axis into the outputs). Both are the same work seen from either end: a tensor cut along one
// axis into pieces, each piece a strided copy planned at Create between the piece's own tensor and
// its slice of the whole one, so Execute does no per-piece arithmetic beyond a pointer. Any
// strides, any data type of 8 to 64 bits (they move elements by size).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/thread_pool.h"
#include "common/status.h"
#include "dml/kernels/cpu/tensor_view.h"
#include "dml/tensor.h"

namespace freedml::dml::cpu {

// `whole` cut along `axis` into `pieces` (the sizes of the pieces add up to whole's along axis).
class AxisPieces {
public:
    // `op` names the operator in messages ("JOIN", "SPLIT").
    Status Plan(const char* op, const TensorDesc& whole, std::span<const TensorDesc> pieces, uint32_t axis);
    // Copies each piece into its slice of `whole` (JOIN), or each slice of `whole` into its piece
    // (SPLIT). pieces.size() == the planned piece count, in order.
    void CopyPiecesIntoWhole(ThreadPool* threads, std::span<const TensorView> pieces, TensorView whole) const;
    void CopyWholeIntoPieces(ThreadPool* threads, TensorView whole, std::span<const TensorView> pieces) const;

private:
    struct Piece {
        LoopPlan<2> plan;         // operands: the slice of the whole tensor, the piece
        int64_t wholeOffset = 0;  // bytes from the whole tensor's element 0 to the slice's
    };
    std::vector<Piece> pieces_;
    uint32_t elementSize_ = 0;
};

struct JoinParams {
    std::vector<TensorDesc> inputs;
    TensorDesc output;
    uint32_t axis = 0;
};

class JoinKernel {
public:
    Status Create(const JoinParams& params) { return pieces_.Plan("JOIN", params.output, params.inputs, params.axis); }
    uint64_t PersistentSizeInBytes() const { return 0; }
    uint64_t TemporarySizeInBytes() const { return 0; }
    void Initialize(std::byte* /*persistent*/) const {}
    // inputs.size() == the planned input count, in order.
    void Execute(ThreadPool* threads, std::span<const TensorView> inputs, TensorView output, std::byte* /*persistent*/,
                 std::byte* /*temporary*/) const {
        pieces_.CopyPiecesIntoWhole(threads, inputs, output);
    }

private:
    AxisPieces pieces_;
};

struct SplitParams {
    TensorDesc input;
    std::vector<TensorDesc> outputs;
    uint32_t axis = 0;
};

class SplitKernel {
public:
    Status Create(const SplitParams& params) { return pieces_.Plan("SPLIT", params.input, params.outputs, params.axis); }
    uint64_t PersistentSizeInBytes() const { return 0; }
    uint64_t TemporarySizeInBytes() const { return 0; }
    // outputs.size() == the planned output count, in order.
    void Execute(ThreadPool* threads, TensorView input, std::span<const TensorView> outputs) const {
        pieces_.CopyWholeIntoPieces(threads, input, outputs);
    }

private:
    AxisPieces pieces_;
};

}  // namespace freedml::dml::cpu
